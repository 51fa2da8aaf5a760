import type { NodeRecord } from '../../graph/types.js';
import { toRef } from '../../graph/types.js';
import { asString, asStringList } from '../coerce.js';
import { fail } from '../errors.js';
import { toId } from '../node-ids.js';
import { limitHints, type Hint } from '../hints.js';
import { stringListSchema, type ToolContext, type ToolDef } from '../tool.js';

const MAX_IDS = 50;

export const describeTool: ToolDef = {
  name: 'describe',
  title: 'Describe nodes',
  description: () =>
    [
      'Full records by id: every stored property, where the node is declared, and `edges: {TYPE: {in, out}}` counts so you know which `neighbors` calls will return something. A route also lists its `callers`: the clients and producers that reach it, from every service, with the calling method and how the call matched.',
      'Pass `id`, or `ids` for several (at most 50). An exact qualified name is accepted in place of an id when it names exactly one node; otherwise use `resolve` first.',
      'How to query a Hugr data object or function once described (paths, filters, order_by, nested arguments, aggregations): the MCP resource sextant://guide/hugr.',
    ].join('\n'),
  params: () => [
    { name: 'id', description: 'One node id (or an exact qualified name that names exactly one node).', schema: { type: 'string', minLength: 1 } },
    { name: 'ids', description: `Several node ids (at most ${MAX_IDS}).`, schema: stringListSchema() },
  ],
  run: async (ctx, args) => {
    const single = asString(args.id, 'id');
    const many = asStringList(args.ids, 'ids');
    if (single !== undefined && many !== undefined) fail({ code: 'invalid_argument', argument: 'ids', message: 'Pass either `id` or `ids`, not both.' });
    if (single === undefined && many === undefined) fail({ code: 'missing_argument', argument: 'id', message: 'describe needs `id` (one node) or `ids` (several). Find ids with `search`, `find` or `resolve`.' });
    if (many && many.length > MAX_IDS) fail({ code: 'out_of_range', argument: 'ids', message: `describe takes at most ${MAX_IDS} ids at once; got ${many.length}. Split the list.` });
    const wanted = many ?? [single!];
    const ids = await Promise.all(wanted.map((w) => toId(ctx, 'describe', w, many ? 'ids' : 'id')));
    const nodes = await ctx.store.getNodes(ids);
    const found = new Set(nodes.map((n) => n.id));
    const missing = ids.filter((id) => !found.has(id));
    if (nodes.length === 0) {
      fail({
        code: 'not_found',
        argument: many ? 'ids' : 'id',
        message: `No node has id ${missing.map((m) => JSON.stringify(m)).join(', ')}. Ids change only when what they name changes; look the name up again with \`resolve\`.`,
        hints: limitHints(missing.slice(0, 1).map((m) => ({ tool: 'resolve', args: { identifier: m }, reason: 'look the name up' }))),
      });
    }
    const counts = await ctx.store.edgeCounts(nodes.map((n) => n.id));
    const records = await Promise.all(nodes.map(async (n) => ({ ...record(n, counts.get(n.id) ?? {}), ...(n.kind === 'route' ? await callersOf(ctx, n) : {}) })));
    const hints = limitHints(nodes.flatMap((n) => edgeHints(ctx, n, counts.get(n.id) ?? {})));
    if (!many) return { ok: true, node: records[0], hints };
    return { ok: true, nodes: records, ...(missing.length ? { missing } : {}), hints };
  },
};

function record(node: NodeRecord, edges: Record<string, { in: number; out: number }>): Record<string, unknown> {
  const ref = toRef(node);
  return {
    ...ref,
    properties: node.props,
    location: { source: node.source, ...(node.service ? { service: node.service } : {}), ...(node.module ? { module: node.module } : {}), ...(node.file ? { file: node.file } : {}), ...(node.line ? { line: node.line } : {}) },
    edges,
  };
}

const MAX_CALLERS = 20;

/**
 * Who reaches a route, across services, in the describe answer itself: each client or producer with its
 * service, the method that declares it, and how the call matched (the question a route is asked most).
 */
async function callersOf(ctx: ToolContext, route: NodeRecord): Promise<{ callers: Record<string, unknown>[]; callers_total: number }> {
  const { rows, total } = await ctx.store.edges({ ids: [route.id], direction: 'in', types: ['HTTP_CALLS', 'ASYNC_CALLS'], limit: MAX_CALLERS, offset: 0 });
  return {
    callers: rows.map((r) => ({
      service: r.other.service ?? null,
      via: toRef(r.other),
      caller: r.other.props.caller ?? null,
      edge: r.type,
      match: r.attrs.match ?? null,
      confidence: r.attrs.confidence ?? null,
    })),
    callers_total: total,
  };
}

/** Suggest walking the edge types this node actually has, outgoing first, busiest first. */
function edgeHints(ctx: ToolContext, node: NodeRecord, counts: Record<string, { in: number; out: number }>): Hint[] {
  const options: { type: string; direction: 'in' | 'out'; n: number }[] = [];
  for (const [type, c] of Object.entries(counts)) {
    if (c.out > 0) options.push({ type, direction: 'out', n: c.out });
    if (c.in > 0) options.push({ type, direction: 'in', n: c.in });
  }
  options.sort((a, b) => (a.direction === b.direction ? b.n - a.n : a.direction === 'out' ? -1 : 1) || a.type.localeCompare(b.type));
  return options.slice(0, 3).map((o) => ({
    tool: 'neighbors',
    args: { ids: [node.id], direction: o.direction, edge_types: [o.type] },
    reason: `${o.n} ${o.type} edge${o.n === 1 ? '' : 's'} ${o.direction === 'out' ? 'from' : 'into'} ${node.qualified_name}: ${ctx.ontology.edgeType(o.type)?.description ?? ''}`.trim(),
  }));
}
