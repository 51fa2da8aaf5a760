import type { EdgePredicate } from '../../graph/store.js';
import { closest } from '../../search/similarity.js';
import { asEnum, asInteger, asNumber, asObject, asStringList, isBlank } from '../coerce.js';
import { fail } from '../errors.js';
import { compileFilter } from '../filters.js';
import { limitHints, type Hint } from '../hints.js';
import { namedNodes, nodeIdParams } from '../node-ids.js';
import { listEntry } from '../present.js';
import { filterSchema, limitParam, offsetParam, stringListSchema, type ToolContext, type ToolDef } from '../tool.js';

const MAX_IDS = 100;

export const neighborsTool: ToolDef = {
  name: 'neighbors',
  title: 'Walk typed edges',
  description: (o) =>
    [
      'Edges of the given types from (`out`), into (`in`) or around (`both`) the given nodes (`id`, or `ids` for several: ids or exact qualified names), with the node at the other end.',
      '`direction` and a non-empty `edge_types` are required; an edge type that cannot touch a given node kind in that direction is an error listing the ones that can.',
      '`filter` applies to the node at the other end (fields common to its possible kinds); `edge_filter` to the edge (`min_confidence`, `strategy`, declared attributes).',
      'Edge types (from → to):',
      ...o.edgeTypes().map((e) => `- ${e.name}: ${e.from.join('|')} → ${e.to.join('|')}. ${e.description}`),
    ].join('\n'),
  params: (o) => [
    ...nodeIdParams('neighbors', MAX_IDS),
    { name: 'direction', description: '`out`: edges leaving the origins; `in`: edges arriving; `both`.', schema: { type: 'string', enum: ['in', 'out', 'both'] }, required: true },
    { name: 'edge_types', description: 'Edge types to follow (at least one).', schema: stringListSchema({ type: 'string', enum: o.edgeTypeNames() }), required: true },
    { name: 'filter', description: 'Exact conditions on the node at the other end.', schema: filterSchema(o) },
    {
      name: 'edge_filter',
      description: 'Conditions on the edge: `min_confidence` (0..1; structural edges count as 1), `strategy` (list), or an attribute the edge types declare as filterable.',
      schema: { type: 'object', properties: edgeFilterProperties(o), additionalProperties: false },
    },
    limitParam(50, 500),
    offsetParam,
  ],
  run: async (ctx, args) => {
    const o = ctx.ontology;
    const direction = asEnum(args.direction, 'direction', ['in', 'out', 'both'] as const)!;
    const edgeTypes = asStringList(args.edge_types, 'edge_types');
    if (!edgeTypes || edgeTypes.length === 0) fail({ code: 'missing_argument', argument: 'edge_types', message: 'neighbors needs at least one edge type; `describe` shows which edge types a node has.' });
    const types = [...new Set(edgeTypes.map((t) => asEnum(t, 'edge_types', o.edgeTypeNames(), 'edge type')!))];
    const limit = asInteger(args.limit, 'limit', { min: 1, max: 500 }) ?? 50;
    const offset = asInteger(args.offset, 'offset', { min: 0, max: 100000 }) ?? 0;

    const { ids, nodes: origins } = await namedNodes(ctx, 'neighbors', args, { max: MAX_IDS });
    const dirs = direction === 'both' ? (['out', 'in'] as const) : [direction];
    for (const origin of origins) {
      const allowed = [...new Set(dirs.flatMap((d) => o.edgeTypesFor(origin.kind, d)))].sort();
      for (const t of types) {
        if (allowed.includes(t)) continue;
        const opposite = direction === 'both' ? [] : o.edgeTypesFor(origin.kind, direction === 'out' ? 'in' : 'out');
        fail({
          code: 'inapplicable_edge_type',
          argument: 'edge_types',
          message: `${t} edges never go ${direction === 'out' ? 'out of' : direction === 'in' ? 'into' : 'out of or into'} a ${origin.kind} (${origin.qualified_name}).${opposite.includes(t) ? ` Try direction "${direction === 'out' ? 'in' : 'out'}".` : ''} Edge types for a ${origin.kind} with direction "${direction}": ${allowed.join(', ') || 'none'}.`,
          allowed,
        });
      }
    }
    const otherKinds = [...new Set(types.flatMap((t) => dirs.flatMap((d) => (d === 'out' ? o.edgeType(t)!.to : o.edgeType(t)!.from))))].sort();
    const { predicates, filter } = compileFilter(o, otherKinds, args.filter);
    const edgePredicates = compileEdgeFilter(ctx, types, args.edge_filter);
    const { rows, total } = await ctx.store.edges({ ids, direction, types, other: { predicates }, edge: edgePredicates, limit, offset });
    const hasMore = offset + rows.length < total;
    const hints: (Hint | undefined)[] = [];
    const edgeFilter = asObject(args.edge_filter, 'edge_filter');
    if (hasMore) hints.push({ tool: 'neighbors', args: { ids, direction, edge_types: types, ...(Object.keys(filter).length ? { filter } : {}), ...(edgeFilter && Object.keys(edgeFilter).length ? { edge_filter: edgeFilter } : {}), limit, offset: offset + limit }, reason: `next page (${total - offset - rows.length} more)` });
    const first = rows[0];
    if (first) hints.push({ tool: 'describe', args: { id: first.other.id }, reason: `full record of ${first.other.qualified_name}` });
    const result: Record<string, unknown> = {
      ok: true,
      total,
      has_more: hasMore,
      edges: rows.map((r) => ({ type: r.type, direction: r.direction, from: r.from, to: r.to, ...(r.key ? { key: r.key } : {}), attrs: r.attrs, other: listEntry(o, r.other) })),
    };
    if (total === 0) result.absence = await neighborsAbsence(ctx, ids, types, direction, Object.keys(filter).length > 0 || edgePredicates.length > 0, hints);
    result.hints = limitHints(hints);
    return result;
  },
};

function edgeFilterProperties(o: ToolContext['ontology']): Record<string, unknown> {
  const props: Record<string, unknown> = {
    min_confidence: { type: 'number', minimum: 0, maximum: 1, description: 'Only edges at least this sure (structural edges count as 1).' },
    strategy: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, minItems: 1 }], description: 'Only edges inferred by one of these strategies (inferred edge types).' },
  };
  for (const e of o.edgeTypes()) for (const a of e.attrs) if (a.filterable && !props[a.name]) props[a.name] = { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, minItems: 1 }], description: `${a.description} (edge types: ${o.edgeTypes().filter((x) => x.attrs.some((y) => y.name === a.name && y.filterable)).map((x) => x.name).join(', ')})` };
  return props;
}

function compileEdgeFilter(ctx: ToolContext, types: string[], raw: unknown): EdgePredicate[] {
  const filter = asObject(raw, 'edge_filter') ?? {};
  const o = ctx.ontology;
  const defs = types.map((t) => o.edgeType(t)!);
  const out: EdgePredicate[] = [];
  const allowedFor = (name: string) => defs.every((d) => o.edgeAttrs(d).some((a) => a.name === name && (a.filterable || name === 'confidence')));
  const allowed = ['min_confidence', ...new Set(defs.flatMap((d) => o.edgeAttrs(d).filter((a) => a.filterable).map((a) => a.name)).filter(allowedFor))];
  for (const [name, value] of Object.entries(filter).sort(([a], [b]) => a.localeCompare(b))) {
    if (isBlank(value)) continue;
    const arg = `edge_filter.${name}`;
    if (name === 'min_confidence') {
      const v = asNumber(value, arg)!;
      if (v < 0 || v > 1) fail({ code: 'out_of_range', argument: arg, message: `${arg} must be between 0 and 1; got ${v}.` });
      out.push({ attr: 'confidence', op: 'gte', value: v });
      continue;
    }
    if (!allowed.includes(name)) {
      const suggestions = closest(name, allowed);
      fail({
        code: 'unknown_field',
        argument: arg,
        message: `Edge filter field \`${name}\` does not apply to ${types.join(', ')}.${suggestions.length ? ` Did you mean ${suggestions.map((s) => `\`${s}\``).join(' or ')}?` : ''} Fields that apply: ${allowed.join(', ')}.`,
        allowed,
        ...(suggestions.length ? { did_you_mean: suggestions } : {}),
      });
    }
    out.push({ attr: name, op: 'in', values: asStringList(value, arg)! });
  }
  return out;
}

async function neighborsAbsence(ctx: ToolContext, ids: string[], types: string[], direction: string, filtered: boolean, hints: (Hint | undefined)[]): Promise<Record<string, unknown>> {
  const counts = await ctx.store.edgeCounts(ids);
  const present: Record<string, { in: number; out: number }> = {};
  for (const perNode of counts.values()) {
    for (const [type, c] of Object.entries(perNode)) {
      present[type] ??= { in: 0, out: 0 };
      present[type]!.in += c.in;
      present[type]!.out += c.out;
    }
  }
  const sorted = Object.fromEntries(Object.entries(present).sort(([a], [b]) => a.localeCompare(b)));
  const walkable = Object.entries(sorted).flatMap(([type, c]) => [
    ...(c.out > 0 ? [{ type, direction: 'out' as const, n: c.out }] : []),
    ...(c.in > 0 ? [{ type, direction: 'in' as const, n: c.in }] : []),
  ]);
  for (const w of walkable.slice(0, 2)) hints.push({ tool: 'neighbors', args: { ids, direction: w.direction, edge_types: [w.type] }, reason: `${w.n} ${w.type} edges go ${w.direction}` });
  const unfilteredHas = types.some((t) => (present[t]?.in ?? 0) + (present[t]?.out ?? 0) > 0);
  return {
    reason: filtered && unfilteredHas ? 'edges of these types exist, but the filters exclude all of them' : `these nodes have no ${types.join('/')} edges in direction ${direction}`,
    edge_counts: sorted,
  };
}

