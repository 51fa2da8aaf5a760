import type { NodeRecord } from '../../graph/types.js';
import { toRef } from '../../graph/types.js';
import { asEnum, asInteger } from '../coerce.js';
import { namedNodes, nodeIdParams } from '../node-ids.js';
import { limitHints, type Hint } from '../hints.js';
import type { ToolContext, ToolDef } from '../tool.js';
import { DEFAULT_MAX_LINES, MAX_MAX_LINES, SOURCE_MODES, SourceReader, type SourceAnswer, type SourceMode } from '../source-text.js';

const MAX_IDS = 50;

export const describeTool: ToolDef = {
  name: 'describe',
  title: 'Describe nodes',
  description: () =>
    [
      'Full records by id: every stored property, where the node is declared, and `edges: {TYPE: {in, out}}` counts so you know which `neighbors` calls will return something. A route also lists its `callers`: the clients and producers that reach it, from every service, with the calling method and how the call matched.',
      `A symbol comes with its \`code\`: the declaration's lines read from the indexed file (at most \`max_lines\`, default ${DEFAULT_MAX_LINES}; \`truncated: true\` when cut), the first sentence of its doc comment, and \`stale: true\` with a note when the file changed since indexing (lines that no longer hold the declaration are not shown). \`source: "signature"\` gives only the header (annotations included, body excluded); \`"none"\` leaves it out; \`"full"\` also shows the lines other kinds point at.`,
      'Pass `id`, or `ids` for several (at most 50). An exact qualified name is accepted in place of an id when it names exactly one node; otherwise use `resolve` first.',
      'How to query a Hugr data object or function once described (paths, filters, order_by, nested arguments, aggregations): the MCP resource sextant://guide/hugr.',
    ].join('\n'),
  params: () => [
    ...nodeIdParams('describe', MAX_IDS),
    { name: 'source', description: 'What `code` holds: `full` (the declaration\'s lines, the default for symbols), `signature` (its header up to the body, annotations included) or `none` (the default for other kinds).', schema: { type: 'string', enum: [...SOURCE_MODES] } },
    { name: 'max_lines', description: `With source full: at most this many lines of each declaration (then \`truncated: true\`).`, schema: { type: 'integer', minimum: 1, maximum: MAX_MAX_LINES, default: DEFAULT_MAX_LINES } },
  ],
  run: async (ctx, args) => {
    const sourceMode = asEnum(args.source, 'source', SOURCE_MODES);
    const maxLines = asInteger(args.max_lines, 'max_lines', { min: 1, max: MAX_MAX_LINES }) ?? DEFAULT_MAX_LINES;
    const { argument, nodes, missing } = await namedNodes(ctx, 'describe', args, { max: MAX_IDS, partial: true });
    const many = argument === 'ids';
    const counts = await ctx.store.edgeCounts(nodes.map((n) => n.id));
    const reader = new SourceReader(ctx.store);
    const sources = await Promise.all(nodes.map((n) => sourceOf(reader, n, sourceMode, maxLines)));
    const records = await Promise.all(nodes.map(async (n, i) => ({ ...record(n, counts.get(n.id) ?? {}), ...(n.kind === 'route' ? await callersOf(ctx, n) : {}), ...(sources[i] ? { code: sources[i] } : {}) })));
    const hints = limitHints([...nodes.flatMap((n, i) => moreSourceHint(n, sources[i])), ...nodes.flatMap((n) => edgeHints(ctx, n, counts.get(n.id) ?? {}))]);
    if (!many) return { ok: true, node: records[0], hints };
    return { ok: true, nodes: records, ...(missing.length ? { missing } : {}), hints };
  },
};

/** Symbols show their source unless told not to; other kinds only when asked. */
function sourceOf(reader: SourceReader, node: NodeRecord, mode: SourceMode | undefined, maxLines: number): Promise<SourceAnswer> | undefined {
  const effective = mode ?? (node.kind === 'symbol' ? 'full' : 'none');
  return effective === 'none' ? undefined : reader.declaration(node, effective, maxLines);
}

function moreSourceHint(node: NodeRecord, source: SourceAnswer | undefined): Hint[] {
  if (!source?.available || !source.truncated || source.total_lines === undefined) return [];
  const all = Math.min(MAX_MAX_LINES, source.total_lines);
  return [{ tool: 'describe', args: { id: node.id, source: 'full', max_lines: all }, reason: `${all === source.total_lines ? 'all' : `the first ${all} of`} the ${source.total_lines} lines of ${node.qualified_name}` }];
}

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
