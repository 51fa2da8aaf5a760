import { attrsJsonOf, edgeLine, GroupHasher, nodeOrder, rowKey } from '../../graph/groups.js';
import type { EdgeRecord, NodeRecord } from '../../graph/types.js';

/**
 * What the estate-wide passes left in each file's group, digested: the nodes they made or changed there (services,
 * library symbols, clients, producers and routes, matched or not, framework routes, build files' nodes…) and the
 * edges they made from its nodes. An update recomputes these passes for the whole estate, but a group whose digest
 * is the last assembly's holds what it held, unless its file was emitted again: it need not be written (a body edit
 * of one file used to rewrite every file that holds a client or a route, 1,250 of 4,835 on the corpora side by side).
 *
 * `passNode` tells the nodes in `graph.nodes` that are not an emission's own rows (those change only when their
 * file is emitted again); edges from `rest` on are the passes'. `rowGroup` places a node that is not in
 * `graph.nodes` (rows left unread). Every group holding a pass's node or edge gets a digest, and so does every group
 * of `candidates` (those the last assembly digested: one the passes have left empty since has changed).
 */
export function passDigests(
  graph: { nodes: readonly NodeRecord[]; edges: readonly EdgeRecord[] },
  passNode: (node: NodeRecord, index: number) => boolean,
  rest: number,
  rowGroup: (id: string) => string | undefined,
  candidates: Iterable<string>,
): Map<string, string> {
  const nodeGroup = new Map<string, string>();
  for (const n of graph.nodes) nodeGroup.set(n.id, n.file ?? '');
  const groupOf = (id: string): string | undefined => nodeGroup.get(id) ?? rowGroup(id);
  const byGroup = new Map<string, NodeRecord[]>();
  for (const g of candidates) byGroup.set(g, []);
  const edges: [string, EdgeRecord][] = [];
  for (let i = rest; i < graph.edges.length; i++) {
    const e = graph.edges[i]!;
    // As a store groups it: with its source node, or with its target when the source is another source's.
    const g = groupOf(e.from) ?? groupOf(e.to);
    if (g === undefined) continue;
    if (!byGroup.has(g)) byGroup.set(g, []);
    edges.push([g, e]);
  }
  graph.nodes.forEach((n, i) => {
    if (!passNode(n, i)) return;
    const g = n.file ?? '';
    const list = byGroup.get(g);
    if (list) list.push(n);
    else byGroup.set(g, [n]);
  });
  const hasher = new GroupHasher();
  for (const [g, nodes] of byGroup) {
    // Every group gets a digest, an empty one included (what a group the passes left empty holds).
    hasher.node(g, 'passes');
    for (const n of nodes.sort(nodeOrder)) hasher.node(g, rowKey(n));
  }
  for (const [g, e] of edges) hasher.edge(g, edgeLine(e, attrsJsonOf(e)));
  return hasher.finish();
}
