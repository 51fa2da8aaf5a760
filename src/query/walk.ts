import type { EdgeRow } from '../graph/store.js';
import type { NodeRecord } from '../graph/types.js';
import type { ToolContext } from './tool.js';

const IDS_PER_QUERY = 100;
const PAGE = 2000;

/** Every edge of `types` around `ids` in `direction` (at least `minConfidence` sure), in the store's stable order. */
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
  return out;
}

/** A code type (class, interface, enum, record, annotation), as opposed to a member or another kind. */
export function isCodeType(node: NodeRecord): boolean {
  return node.kind === 'symbol' && typeof node.props.symbol_kind === 'string' && node.props.symbol_kind !== 'method' && node.props.symbol_kind !== 'constructor';
}
