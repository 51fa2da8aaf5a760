import type { EdgeRow } from '../graph/store.js';
import type { NodeRecord } from '../graph/types.js';
import type { ToolContext } from './tool.js';

const IDS_PER_QUERY = 100;
const PAGE = 2000;

/**
 * Every edge of `types` around `ids` in `direction` (at least `minConfidence` sure): by origin in the order of `ids`,
 * then by edge type and by what the other node is (kind, qualified name). Not in the store's order, which follows
 * where nodes are kept (their source, its write order): a walk over an estate split into sources must take the same
 * steps, and stop at the same cap, as over the estate indexed whole.
 */
export async function edgesAround(ctx: ToolContext, ids: readonly string[], direction: 'in' | 'out', types: readonly string[], minConfidence: number): Promise<EdgeRow[]> {
  const out: EdgeRow[] = [];
  for (let i = 0; i < ids.length; i += IDS_PER_QUERY) {
    const chunk = ids.slice(i, i + IDS_PER_QUERY);
    for (let offset = 0; ; offset += PAGE) {
      const { rows, total } = await ctx.store.edges({ ids: chunk, direction, types, edge: minConfidence > 0 ? [{ attr: 'confidence', op: 'gte', value: minConfidence }] : [], limit: PAGE, offset });
      out.push(...rows);
      if (offset + rows.length >= total || !rows.length) break;
    }
  }
  const position = new Map(ids.map((id, i) => [id, i]));
  return out.sort((a, b) => position.get(a.origin)! - position.get(b.origin)! || byName(a.type, b.type) || byName(a.other.kind, b.other.kind) || byName(a.other.qualified_name, b.other.qualified_name) || byName(a.other.id, b.other.id) || byName(a.key, b.key));
}

/** Code-point order, as the stores order names. */
const byName = (a: string, b: string): number => (a === b ? 0 : a < b ? -1 : 1);

/** A code type (class, interface, enum, record, annotation), as opposed to a member or another kind. */
export function isCodeType(node: NodeRecord): boolean {
  return node.kind === 'symbol' && typeof node.props.symbol_kind === 'string' && node.props.symbol_kind !== 'method' && node.props.symbol_kind !== 'constructor';
}
