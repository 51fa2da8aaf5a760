import type { Predicate } from '../../graph/store.js';
import { asEnum, asInteger } from '../coerce.js';
import { compileFilter } from '../filters.js';
import { limitHints, type Hint } from '../hints.js';
import { listEntry } from '../present.js';
import { filterSchema, limitParam, offsetParam, type ToolContext, type ToolDef } from '../tool.js';
import { emptyKindAbsence, nameSuggestions } from './absence.js';

const NAME_LIKE = new Set(['name', 'qualified_name', 'parent_type', 'type_name']);

export const findTool: ToolDef = {
  name: 'find',
  title: 'Find nodes by exact filter',
  description: (o) =>
    [
      'Exact structured lookup: every node of one `kind` matching `filter`, in a stable order (kind, qualified name), paginated.',
      'Filter fields are typed per kind; an unknown or inapplicable field is an error that lists the valid ones. Multi-valued fields mean OR.',
      'No wildcards: use `<field>_prefix` / `<field>_contains`, or `search` for ranked text.',
      `Kinds: ${o.kindNames().join(', ')}. Filter fields per kind:`,
      ...o.kinds().map((k) => `- ${k.def.name}: ${[...k.filterFields.keys()].sort().join(', ')}`),
    ].join('\n'),
  params: (o) => [
    { name: 'kind', description: 'Node kind to list.', schema: { type: 'string', enum: o.kindNames() }, required: true },
    { name: 'filter', description: 'Exact conditions on properties of that kind (default {}: all nodes of the kind).', schema: filterSchema(o) },
    limitParam(25, 500),
    offsetParam,
  ],
  run: async (ctx, args) => {
    const kind = asEnum(args.kind, 'kind', ctx.ontology.kindNames(), 'kind')!;
    const { predicates, filter } = compileFilter(ctx.ontology, [kind], args.filter);
    const limit = asInteger(args.limit, 'limit', { min: 1, max: 500 }) ?? 25;
    const offset = asInteger(args.offset, 'offset', { min: 0, max: 100000 }) ?? 0;
    const { nodes, total } = await ctx.store.findNodes({ kinds: [kind], predicates, limit, offset });
    const hasMore = offset + nodes.length < total;
    const result: Record<string, unknown> = {
      ok: true,
      kind,
      filter,
      total,
      has_more: hasMore,
      results: nodes.map((n) => listEntry(ctx.ontology, n)),
    };
    const hints: (Hint | undefined)[] = [];
    if (hasMore) hints.push({ tool: 'find', args: { kind, filter, limit, offset: offset + limit }, reason: `next page (${total - offset - nodes.length} more)` });
    if (nodes.length > 0) hints.push({ tool: 'describe', args: { id: nodes[0]!.id }, reason: `full record of ${nodes[0]!.qualified_name}` });
    if (total === 0) result.absence = await findAbsence(ctx, kind, predicates, filter, hints);
    result.hints = limitHints(hints);
    return result;
  },
};

/** Why `find` came back empty: which filter field emptied it, what relaxing it returns, and near names. */
async function findAbsence(ctx: ToolContext, kind: string, predicates: Predicate[], filter: Record<string, unknown>, hints: (Hint | undefined)[]): Promise<Record<string, unknown>> {
  const ofKind = await ctx.store.countNodes({ kinds: [kind], predicates: [] });
  if (ofKind === 0) return emptyKindAbsence(ctx, kind, hints);
  const fields = Object.keys(filter);
  const relaxations: { field: string; value: unknown; results_without_it: number }[] = [];
  for (const field of fields) {
    const rest = predicates.filter((_, i) => i !== fields.indexOf(field));
    const count = await ctx.store.countNodes({ kinds: [kind], predicates: rest });
    relaxations.push({ field, value: filter[field], results_without_it: count });
  }
  relaxations.sort((a, b) => b.results_without_it - a.results_without_it || a.field.localeCompare(b.field));
  const best = relaxations.find((r) => r.results_without_it > 0);
  if (best) {
    const relaxed = Object.fromEntries(Object.entries(filter).filter(([k]) => k !== best.field));
    hints.push({ tool: 'find', args: { kind, filter: relaxed }, reason: `drop \`${best.field}\`: ${best.results_without_it} ${kind} nodes match the rest` });
  }
  const didYouMean: Record<string, unknown> = {};
  for (const field of fields) {
    const value = filter[field];
    if (!NAME_LIKE.has(field) || typeof value !== 'string') continue;
    const alone = predicates[fields.indexOf(field)]!;
    if ((await ctx.store.countNodes({ kinds: [kind], predicates: [alone] })) > 0) continue;
    const near = await nameSuggestions(ctx, value.split(/[.#/]/).pop() ?? value, field === 'name' || field === 'qualified_name' ? [kind] : undefined);
    if (near.length) didYouMean[field] = near;
    for (const s of near.slice(0, 1)) hints.push({ tool: 'resolve', args: { identifier: s.name }, reason: `closest name to ${JSON.stringify(value)}` });
  }
  return {
    reason: fields.length === 1 ? `no ${kind} has ${fields[0]} = ${JSON.stringify(filter[fields[0]!])}` : `no ${kind} matches all ${fields.length} conditions`,
    nodes_of_kind: ofKind,
    emptied_by: best ? best.field : undefined,
    relaxations,
    ...(Object.keys(didYouMean).length ? { did_you_mean: didYouMean } : {}),
  };
}
