import type { NameSuggestion } from '../../graph/store.js';
import type { Hint } from '../hints.js';
import type { ToolContext } from '../tool.js';

/** Near names (trigram similarity) for did-you-mean, with the kinds that carry each. */
export async function nameSuggestions(ctx: ToolContext, text: string, kinds?: readonly string[], limit = 5): Promise<NameSuggestion[]> {
  return ctx.store.similarNames(text, { ...(kinds ? { kinds } : {}), limit });
}

/** The index holds no node of this kind at all: say which sources it has and what kinds are populated. */
export async function emptyKindAbsence(ctx: ToolContext, kind: string, hints: (Hint | undefined)[]): Promise<Record<string, unknown>> {
  const meta = await ctx.store.meta();
  const populated = Object.entries(meta.counts.by_kind).filter(([, n]) => n > 0);
  const sourceKind = ctx.ontology.kind(kind)?.sourceKind;
  const fromSource = meta.sources.filter((s) => s.kind === sourceKind);
  const first = populated[0];
  if (first) hints.push({ tool: 'find', args: { kind: first[0] }, reason: `${first[1]} ${first[0]} nodes are indexed` });
  return {
    reason: fromSource.length === 0 ? `no ${sourceKind} source is indexed, so there are no ${kind} nodes` : `the indexed ${sourceKind} sources contain no ${kind} nodes`,
    nodes_of_kind: 0,
    sources: meta.sources.map((s) => ({ name: s.name, kind: s.kind })),
    populated_kinds: Object.fromEntries(populated),
  };
}
