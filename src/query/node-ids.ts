import { looksLikeNodeId } from '../graph/ids.js';
import { fail } from './errors.js';
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

