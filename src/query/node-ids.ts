import { looksLikeNodeId } from '../graph/ids.js';
import type { NodeRecord } from '../graph/types.js';
import { fail } from './errors.js';
import { limitHints } from './hints.js';
import type { ToolContext } from './tool.js';

/** An id as given, or the id of the one node with this exact qualified name (DESIGN.md §2). */
export async function toId(ctx: ToolContext, tool: string, given: string, argument: string): Promise<string> {
  if (looksLikeNodeId(given) && ctx.ontology.kindOfId(given)) return given;
  const byName = await ctx.store.nodesByName('qualified_name', given, { caseInsensitive: false, limit: 3 });
  if (byName.length === 1) return byName[0]!.id;
  fail({
    code: byName.length > 1 ? 'ambiguous' : 'not_found',
    argument,
    message:
      byName.length > 1
        ? `${JSON.stringify(given)} is the qualified name of several nodes (${byName.map((n) => `${n.kind} in ${n.source}`).join(', ')}); ${tool} needs one. Use \`resolve\` and pass an id.`
        : `${JSON.stringify(given)} is neither a node id nor an exact qualified name. Use \`resolve\` to look it up.`,
    hints: [{ tool: 'resolve', args: { identifier: given }, reason: 'find the matching node ids' }],
  });
}


/** The nodes with these ids; an id that names no node is a `not_found` error pointing to `resolve`. */
export async function existingNodes(ctx: ToolContext, ids: readonly string[]): Promise<NodeRecord[]> {
  const nodes = await ctx.store.getNodes(ids);
  const missing = ids.filter((id) => !nodes.some((n) => n.id === id));
  if (missing.length) {
    fail({
      code: 'not_found',
      argument: 'ids',
      message: `No node has id ${missing.map((m) => JSON.stringify(m)).join(', ')}. Get ids from \`search\`, \`find\` or \`resolve\`.`,
      hints: limitHints([{ tool: 'resolve', args: { identifier: missing[0]! }, reason: 'if that is a name, look it up' }]),
    });
  }
  return nodes;
}
