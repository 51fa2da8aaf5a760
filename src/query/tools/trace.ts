import type { EdgeRow } from '../../graph/store.js';
import { toRef, type NodeRecord, type NodeRef, type PropValue } from '../../graph/types.js';
import { asBoolean, asEnum, asInteger, asNumber, asString, asStringList } from '../coerce.js';
import { fail } from '../errors.js';
import { limitHints, type Hint } from '../hints.js';
import { stringListSchema, type ToolContext, type ToolDef } from '../tool.js';
import { edgesAround, isCodeType } from '../walk.js';
import { namedNode } from '../node-ids.js';
import { FORWARDING_FRAMEWORKS } from '../../graph/ontology/code.js';
import { forwardsOf, hasRouteProperty } from './resolve.js';

/**
 * The steps a request takes, as (edge type, direction) pairs: a route is served by the handler that EXPOSES it, a
 * method CALLS methods, a call to an interface or overridden method reaches the methods that OVERRIDE it, a
 * method that DECLARES a client or producer leaves the service through it, and HTTP_CALLS / ASYNC_CALLS arrive
 * at another route.
 */
const FLOW_STEPS = [
  { type: 'EXPOSES', direction: 'in' },
  { type: 'CALLS', direction: 'out' },
  { type: 'OVERRIDES', direction: 'in' },
  { type: 'DECLARES_CLIENT', direction: 'out' },
  { type: 'HTTP_CALLS', direction: 'out' },
  { type: 'FORWARDS', direction: 'out' },
  { type: 'DECLARES_PRODUCER', direction: 'out' },
  { type: 'ASYNC_CALLS', direction: 'out' },
] as const;

/** Edge types a path may also use when asked for (walked from → to, as the edge points). */
const OTHER_PATH_TYPES = ['DECLARES', 'INJECTS', 'IMPLEMENTS', 'EXTENDS', 'SERVICE_CALLS'] as const;
const TRACE_EDGE_TYPES = [...FLOW_STEPS.map((s) => s.type), ...OTHER_PATH_TYPES] as const;
const CROSSING = new Set(['HTTP_CALLS', 'ASYNC_CALLS', 'FORWARDS']);
/** How many nodes a trace may visit before it stops and says so. */
const MAX_VISITED = 20_000;

type Step = { type: string; direction: 'in' | 'out' };

interface Hop {
  depth: number;
  from: string;
  edge_type: string;
  to: NodeRecord;
  attrs: Record<string, PropValue>;
}

/** A node as a trace shows it: where it is, plus what says where a request goes for routes, clients and producers. */
function hopNode(node: NodeRecord): NodeRef & Record<string, PropValue> {
  const out: NodeRef & Record<string, PropValue> = { ...toRef(node) };
  for (const key of ['protocol', 'http_method', 'path', 'destination', 'target_service', 'match', 'declared', 'resolved'] as const) {
    const v = node.props[key];
    if (v !== undefined && v !== null && (node.kind !== 'symbol' || key === 'resolved')) out[key] = v;
  }
  return out;
}

function edgeFacts(attrs: Record<string, PropValue>): Record<string, PropValue> {
  const out: Record<string, PropValue> = {};
  for (const key of ['confidence', 'strategy', 'match', 'line', 'library_method'] as const) if (attrs[key] !== undefined && attrs[key] !== null) out[key] = attrs[key]!;
  return out;
}

/** Whether a walk continues through this node: external library code, unresolved call sites and undeclared routes end it. */
function passable(node: NodeRecord, includeExternal: boolean): boolean {
  if (node.kind === 'unresolved_call') return false;
  if (node.kind === 'route' && node.props.declared === false) return false;
  if (node.kind === 'symbol' && node.props.resolved === false) return includeExternal;
  return true;
}

/** Next steps from `ids`, grouped by origin, in `edgesAround`'s order. */
async function stepsFrom(ctx: ToolContext, ids: readonly string[], steps: readonly Step[], minConfidence: number): Promise<Map<string, EdgeRow[]>> {
  const byOrigin = new Map<string, EdgeRow[]>();
  for (const direction of ['out', 'in'] as const) {
    const types = steps.filter((s) => s.direction === direction).map((s) => s.type);
    if (!types.length) continue;
    for (const r of await throughReceivers(ctx, await edgesAround(ctx, ids, direction, types, minConfidence))) {
      let list = byOrigin.get(r.origin);
      if (!list) byOrigin.set(r.origin, (list = []));
      list.push(r);
    }
  }
  // Leaving the service first, so a breadth cap drops local detail before a remote call.
  const rank = (t: string) => (t === 'EXPOSES' || t === 'DECLARES_CLIENT' || t === 'DECLARES_PRODUCER' || CROSSING.has(t) ? 0 : t === 'OVERRIDES' ? 1 : 2);
  for (const list of byOrigin.values()) list.sort((a, b) => rank(a.type) - rank(b.type)); // stable: edgesAround's order within a rank
  return byOrigin;
}

/**
 * A call on a project type that lands on a method the type inherits from a library (`visitRepository.save(…)` →
 * JpaRepository#save, which every repository shares) reaches that project type: the edge's `receiver_type` says
 * which. The library method stays in the hop as `library_method`. A receiver type whose name is not one node stays
 * the library method.
 */
async function throughReceivers(ctx: ToolContext, rows: EdgeRow[]): Promise<EdgeRow[]> {
  const receiverOf = (r: EdgeRow) => (r.type === 'CALLS' && r.direction === 'out' && typeof r.attrs.receiver_type === 'string' ? r.attrs.receiver_type : undefined);
  const names = [...new Set(rows.map(receiverOf).filter((n): n is string => n !== undefined))];
  if (!names.length) return rows;
  const types = new Map<string, NodeRecord>();
  for (const name of names) {
    const found = (await ctx.store.nodesByName('qualified_name', name, { caseInsensitive: false, kinds: ['symbol'], limit: 2 })).filter(isCodeType);
    if (found.length === 1) types.set(name, found[0]!);
  }
  return rows.map((r) => {
    const type = types.get(receiverOf(r) ?? '');
    // The member the type inherits (`VisitRepository#save(?)`) names the library's method it is.
    const library = typeof r.other.props.inherited_from === 'string' ? `${r.other.props.inherited_from}#${r.other.name}(?)` : r.other.qualified_name;
    return type ? { ...r, to: type.id, other: type, attrs: { ...r.attrs, library_method: library } } : r;
  });
}

/** Where a walk starts: a service's declared routes, a type's declared members, or the node itself. */
async function flowRoots(ctx: ToolContext, start: NodeRecord, breadth: number): Promise<{ roots: NodeRecord[]; more: boolean }> {
  if (start.kind === 'service' && hasRouteProperty(ctx, 'declared')) {
    const { nodes, total } = await ctx.store.findNodes({ kinds: ['route'], predicates: [{ property: 'service', op: 'in', values: [start.name] }, { property: 'declared', op: 'in', values: [true] }], limit: breadth, offset: 0 });
    return { roots: nodes, more: total > nodes.length };
  }
  if (isCodeType(start)) {
    const { rows, total } = await ctx.store.edges({ ids: [start.id], direction: 'out', types: ['DECLARES'], other: { kinds: ['symbol'], predicates: [{ property: 'symbol_kind', op: 'in', values: ['method', 'constructor'] }] }, limit: breadth, offset: 0 });
    return { roots: rows.map((r) => r.other), more: total > rows.length };
  }
  return { roots: [start], more: false };
}


export const traceTool: ToolDef = {
  name: 'trace',
  title: 'Follow a request across services, or find the paths between two nodes',
  description: () =>
    [
      'Without `to`: the request flow from a route, a handler method or a service (its routes): route → handler (EXPOSES) → calls (CALLS, and OVERRIDES to the implementations of an interface method) → clients and producers (DECLARES_CLIENT, DECLARES_PRODUCER) → the routes they reach in other services (HTTP_CALLS, ASYNC_CALLS) → their handlers → …, breadth-first, each node once, bounded by `max_depth`, `max_breadth` per node and `limit` hops.',
      'By default (`prune`) only hops on the way to a client, producer or another route are kept, so the answer is the path a request takes between services; `prune: false` shows every call.',
      'Each hop gives its depth, edge type, the node reached (with service) and the edge\'s confidence, strategy and match; `services` lists the services in the order reached and `crossings` each hop from one service to another (the client, producer or gateway route with its declaring method as `caller`, the route reached with its `handler`); `from_handler` is the starting route\'s handler.',
      'With `to`: the shortest paths from `from` to `to` over the same steps (or `edge_types`), up to `max_paths` of them. Two services: paths over SERVICE_CALLS.',
      'A type as `from` or `to` stands for its members (a service as `to` for its routes): paths start and end at the members that connect; a call through a project type to a method it inherits from a library (`repository.save(…)`) reaches that type. `collapse: "types"` gives each path, or the flow, as the classes it passes through.',
      'When no hop of the flow leaves local code, the local hops are answered (`local_only: true`) instead of nothing.',
      '`from` and `to` take an id, an exact qualified name, or anything `resolve` understands that names one node (`GET /orders/{id}`, `order-service`, `OrderService#place`, a topic). A concrete request to a gateway route (`GET /api/customer/owners/7`) follows only the routes that request lands on, and the answer says so (`request`).',
    ].join('\n'),
  params: () => [
    { name: 'from', description: 'Where to start: a route, handler method, type or service (id, qualified name, route like `POST /orders`, service name).', schema: { type: 'string', minLength: 1 }, required: true },
    { name: 'to', description: 'Where to end: find the shortest paths instead of the whole flow.', schema: { type: 'string', minLength: 1 } },
    { name: 'max_depth', description: 'Most hops from `from` (default 12, at most 30).', schema: { type: 'integer', minimum: 1, maximum: 30, default: 12 } },
    { name: 'max_breadth', description: 'Most next hops followed from one node; the rest are counted (default 25, at most 500).', schema: { type: 'integer', minimum: 1, maximum: 500, default: 25 } },
    { name: 'edge_types', description: `Edge types to walk (default: the request flow, ${FLOW_STEPS.map((s) => s.type).join(', ')}).`, schema: stringListSchema({ type: 'string', enum: [...TRACE_EDGE_TYPES] }) },
    { name: 'min_confidence', description: 'Follow only edges at least this sure, 0..1 (default 0.5).', schema: { type: 'number', minimum: 0, maximum: 1, default: 0.5 } },
    { name: 'prune', description: 'Flow only: keep just the hops that lead to a client, producer or route (default true).', schema: { type: 'boolean', default: true } },
    { name: 'include_external', description: 'Also walk into library code (resolved: false symbols; default false: they end a branch).', schema: { type: 'boolean', default: false } },
    { name: 'max_paths', description: 'With `to`: most shortest paths returned (default 5, at most 50).', schema: { type: 'integer', minimum: 1, maximum: 50, default: 5 } },
    { name: 'limit', description: 'Flow: most hops returned (default 200, at most 2000).', schema: { type: 'integer', minimum: 1, maximum: 2000, default: 200 } },
    { name: 'collapse', description: '`members` (default): every hop between members; `types`: the path as classes, one step per change of type, with the member hop that makes it.', schema: { type: 'string', enum: [...COLLAPSE], default: 'members' } },
  ],
  run: async (ctx, args) => {
    const toArg = asString(args.to, 'to');
    const maxDepth = asInteger(args.max_depth, 'max_depth', { min: 1, max: 30 }) ?? 12;
    const breadth = asInteger(args.max_breadth, 'max_breadth', { min: 1, max: 500 }) ?? 25;
    const types = asStringList(args.edge_types, 'edge_types')?.map((t) => asEnum(t, 'edge_types', TRACE_EDGE_TYPES, 'edge type')!);
    const minConfidence = asNumber(args.min_confidence, 'min_confidence') ?? 0.5;
    if (minConfidence < 0 || minConfidence > 1) fail({ code: 'out_of_range', argument: 'min_confidence', message: `min_confidence must be between 0 and 1; got ${minConfidence}.` });
    const prune = asBoolean(args.prune, 'prune') ?? true;
    const includeExternal = asBoolean(args.include_external, 'include_external') ?? false;
    const maxPaths = asInteger(args.max_paths, 'max_paths', { min: 1, max: 50 }) ?? 5;
    const limit = asInteger(args.limit, 'limit', { min: 1, max: 2000 }) ?? 200;
    const collapse = asEnum(args.collapse, 'collapse', COLLAPSE) ?? 'members';
    const start = await namedNode(ctx, 'trace', args, 'from', { resolveForms: true });
    const end = toArg === undefined ? undefined : await namedNode(ctx, 'trace', args, 'to', { resolveForms: true });
    const bothServices = start.kind === 'service' && end?.kind === 'service';
    const steps: Step[] = types
      ? [...new Set(types)].map((t) => ({ type: t, direction: FLOW_STEPS.find((s) => s.type === t)?.direction ?? 'out' }))
      : bothServices ? [{ type: 'SERVICE_CALLS', direction: 'out' }] : FLOW_STEPS.map((s) => ({ ...s }));
    // A concrete request to a gateway route (`POST /api/orders`) goes only where that request lands, not everywhere the route forwards.
    const given = String(args.from);
    const landing = !end && start.kind === 'route' && FORWARDING_FRAMEWORKS.has(String(start.props.framework)) && given !== start.id && given !== start.qualified_name ? (await forwardsOf(ctx, start, given)).map((f) => f.node.id) : [];
    const walk: Walk = { steps, maxDepth, breadth, minConfidence, includeExternal, collapse, ...(landing.length ? { landsOn: new Set(landing) } : {}) };
    if (end) return paths(ctx, start, end, walk, maxPaths, args);
    const answer = await flow(ctx, start, walk, prune, limit, args);
    return landing.length ? { ...answer, request: given } : answer;
  },
};

const COLLAPSE = ['members', 'types'] as const;

interface Walk {
  steps: Step[];
  maxDepth: number;
  breadth: number;
  minConfidence: number;
  includeExternal: boolean;
  collapse: (typeof COLLAPSE)[number];
  /** The routes a concrete request to the start (a gateway route) lands on: its only first hops. */
  landsOn?: ReadonlySet<string>;
}

async function flow(ctx: ToolContext, start: NodeRecord, walk: Walk, prune: boolean, limit: number, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const { roots, more: moreRoots } = await flowRoots(ctx, start, walk.breadth);
  const seen = new Set<string>([start.id, ...roots.map((r) => r.id)]);
  const parent = new Map<string, Hop>();
  const hops: Hop[] = [];
  const cut: { id: string; followed: number; total: number }[] = [];
  let frontier = roots.filter((r) => passable(r, walk.includeExternal)).map((r) => r.id);
  let depth = 0;
  let exhausted = false;
  while (frontier.length && depth < walk.maxDepth) {
    depth++;
    const next: string[] = [];
    const rows = await stepsFrom(ctx, frontier, walk.steps, walk.minConfidence);
    for (const id of frontier) {
      // Each next node once (a method may call another from several lines), library code only when asked.
      const targets = new Map<string, EdgeRow>();
      for (const r of rows.get(id) ?? []) {
        if (seen.has(r.other.id) || targets.has(r.other.id) || r.other.kind === 'unresolved_call') continue;
        if (r.other.kind === 'symbol' && r.other.props.resolved === false && !walk.includeExternal) continue;
        if (walk.landsOn && id === start.id && r.type === 'FORWARDS' && !walk.landsOn.has(r.other.id)) continue;
        targets.set(r.other.id, r);
      }
      let followed = 0;
      for (const r of targets.values()) {
        if (followed >= walk.breadth) break;
        seen.add(r.other.id);
        followed++;
        const hop: Hop = { depth, from: id, edge_type: r.type, to: r.other, attrs: r.attrs };
        hops.push(hop);
        parent.set(r.other.id, hop);
        if (passable(r.other, walk.includeExternal)) next.push(r.other.id);
      }
      const total = targets.size;
      if (total > followed) cut.push({ id, followed, total });
    }
    if (seen.size > MAX_VISITED) {
      exhausted = true;
      break;
    }
    frontier = next;
  }
  const deeper = frontier.length > 0 && depth >= walk.maxDepth;
  // Pruning keeps a hop when it, or a hop below it, reaches a client, producer or route.
  let kept = hops;
  if (prune) {
    const keep = new Set<string>();
    for (const h of hops) {
      if (h.to.kind !== 'route' && h.to.kind !== 'client' && h.to.kind !== 'producer') continue;
      for (let id: string | undefined = h.to.id; id && !keep.has(id); id = parent.get(id)?.from) keep.add(id);
    }
    // And the handler serving each route reached: where the request lands on the other side.
    for (const h of hops) if (h.edge_type === 'EXPOSES' && keep.has(h.from)) keep.add(h.to.id);
    kept = hops.filter((h) => keep.has(h.to.id));
  }
  // Nothing leaves local code: the local hops are the answer, rather than an empty one that needs a second call.
  const localOnly = prune && kept.length === 0 && hops.length > 0;
  if (localOnly) kept = hops;
  const truncated = kept.length > limit;
  const shown = kept.slice(0, limit);
  const nodesById = new Map<string, NodeRecord>([[start.id, start], ...roots.map((r) => [r.id, r] as const), ...hops.map((h) => [h.to.id, h.to] as const)]);
  const services: { service: string; depth: number }[] = [];
  const startService = start.kind === 'service' ? start.name : start.service;
  if (startService) services.push({ service: startService, depth: 0 });
  for (const h of shown) if (h.to.service && !services.some((s) => s.service === h.to.service)) services.push({ service: h.to.service, depth: h.depth });
  // Each route's handler and each client's or producer's declaring method, so a crossing reads on its own.
  const handlerOf = new Map<string, string>();
  const declarerOf = new Map<string, string>();
  for (const h of hops) {
    if (h.edge_type === 'EXPOSES') handlerOf.set(h.from, h.to.qualified_name);
    else if (h.edge_type === 'DECLARES_CLIENT' || h.edge_type === 'DECLARES_PRODUCER') declarerOf.set(h.to.id, nodesById.get(h.from)?.qualified_name ?? h.from);
  }
  const crossings = shown
    .filter((h) => CROSSING.has(h.edge_type))
    .map((h) => {
      const from = nodesById.get(h.from)!;
      const handler = handlerOf.get(h.to.id);
      const caller = declarerOf.get(from.id);
      return { depth: h.depth, from_service: from.service ?? null, to_service: h.to.service ?? null, edge_type: h.edge_type, via: hopNode(from), ...(caller ? { caller } : {}), route: hopNode(h.to), ...(handler ? { handler } : {}), ...edgeFacts(h.attrs) };
    });
  const startHandler = handlerOf.get(start.id);
  const result: Record<string, unknown> = {
    ok: true,
    mode: 'flow',
    from: hopNode(start),
    ...(startHandler ? { from_handler: startHandler } : {}),
    ...(roots[0]?.id !== start.id ? { roots: roots.map(hopNode) } : {}),
    services,
    crossings,
    ...(walk.collapse === 'types' ? await collapsedFlow(ctx, start, nodesById, shown) : { hops: shown.map((h) => ({ depth: h.depth, from: h.from, edge_type: h.edge_type, to: hopNode(h.to), ...edgeFacts(h.attrs) })) }),
    total_hops: kept.length,
    ...(prune ? { pruned: hops.length - kept.length } : {}),
    ...(localOnly ? { local_only: true, note: `No client, producer or route is reached from ${start.qualified_name} within ${walk.maxDepth} hops: these are the local hops (as with prune: false).` } : {}),
    has_more: truncated || deeper || exhausted || moreRoots || cut.length > 0,
    ...(cut.length ? { breadth_cut: cut.slice(0, 20).map((c) => ({ node: c.id, followed: c.followed, total: c.total })) } : {}),
    ...(deeper ? { depth_cut: true } : {}),
  };
  const hints: (Hint | undefined)[] = [];
  if (deeper && walk.maxDepth < 30) hints.push({ tool: 'trace', args: { ...args, max_depth: Math.min(30, walk.maxDepth * 2) }, reason: 'the flow goes deeper than max_depth' });
  if ((cut.length || moreRoots) && walk.breadth < 500) hints.push({ tool: 'trace', args: { ...args, max_breadth: Math.min(500, walk.breadth * 4) }, reason: 'some nodes have more next hops than max_breadth' });
  if (truncated && limit < 2000) hints.push({ tool: 'trace', args: { ...args, limit: Math.min(2000, limit * 4) }, reason: 'more hops than limit' });
  const firstCrossing = crossings[0];
  if (firstCrossing) hints.push({ tool: 'describe', args: { id: firstCrossing.route.id }, reason: `the ${firstCrossing.to_service ?? 'remote'} route this request reaches, with its other callers` });
  if (!shown.length || localOnly) {
    if (!localOnly) result.absence = {
      reason: hops.length ? 'nothing_leaves' : 'no_steps',
      message: hops.length
        ? `From ${start.qualified_name}, ${hops.length} hop(s) stay inside local code: no client, producer or route is reached within ${walk.maxDepth} hops.`
        : `${start.qualified_name} has no ${walk.steps.map((s) => s.type).join('/')} edges to follow${walk.minConfidence > 0 ? ` at confidence ≥ ${walk.minConfidence}` : ''}.`,
    };
    if (hops.length && prune && !localOnly) hints.push({ tool: 'trace', args: { ...args, prune: false }, reason: 'see the local calls too' });
    const applicable = new Set([...ctx.ontology.edgeTypesFor(start.kind, 'out'), ...ctx.ontology.edgeTypesFor(start.kind, 'in')]);
    const around = [...new Set(walk.steps.map((s) => s.type))].filter((t) => applicable.has(t)).sort();
    if (around.length) hints.push({ tool: 'neighbors', args: { ids: [start.id], direction: 'both', edge_types: around }, reason: 'every edge of these kinds around the start' });
  }
  result.hints = limitHints(hints);
  return result;
}

async function paths(ctx: ToolContext, start: NodeRecord, end: NodeRecord, walk: Walk, maxPaths: number, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  // A service or type starts from its routes or members (two services walk SERVICE_CALLS from the service itself).
  const { roots } = walk.steps.some((s) => s.type === 'SERVICE_CALLS') && start.kind === 'service' ? { roots: [start] } : await flowRoots(ctx, start, MAX_VISITED);
  // Breadth-first, keeping every parent at the shortest depth so that all shortest paths can be listed; one
  // parent per (node, edge type) however many lines the call is made from.
  const depthOf = new Map<string, number>(roots.map((r) => [r.id, 0]));
  const parents = new Map<string, Hop[]>();
  const rootIds = new Set(roots.map((r) => r.id));
  // A type as `to` is reached at any of its members (or itself); a service, over the request flow, at its routes.
  const endsFor = isCodeType(end) || (end.kind === 'service' && !walk.steps.some((s) => s.type === 'SERVICE_CALLS')) ? (await flowRoots(ctx, end, MAX_VISITED)).roots : [];
  const ends = new Set([end.id, ...endsFor.map((n) => n.id)]);
  let frontier = roots.filter((r) => passable(r, walk.includeExternal) || ends.has(r.id)).map((r) => r.id);
  let found = roots.some((r) => ends.has(r.id));
  let depth = 0;
  while (!found && frontier.length && depth < walk.maxDepth && depthOf.size <= MAX_VISITED) {
    depth++;
    const next: string[] = [];
    const rows = await stepsFrom(ctx, frontier, walk.steps, walk.minConfidence);
    for (const id of frontier) {
      for (const r of rows.get(id) ?? []) {
        const other = r.other;
        const known = depthOf.get(other.id);
        if (known !== undefined && known < depth) continue;
        if (known === undefined) {
          depthOf.set(other.id, depth);
          if (passable(other, walk.includeExternal) || ends.has(other.id)) next.push(other.id);
        }
        let list = parents.get(other.id);
        if (!list) parents.set(other.id, (list = []));
        if (list.some((h) => h.from === id && h.edge_type === r.type)) continue;
        list.push({ depth, from: id, edge_type: r.type, to: other, attrs: r.attrs });
        if (ends.has(other.id)) found = true;
      }
    }
    frontier = next;
  }
  const out: Hop[][] = [];
  if (found) {
    const extend = (id: string, suffix: Hop[]): void => {
      if (out.length >= maxPaths) return;
      if (rootIds.has(id)) {
        out.push(suffix);
        return;
      }
      for (const hop of parents.get(id) ?? []) extend(hop.from, [hop, ...suffix]);
    };
    for (const id of depthOf.keys()) if (ends.has(id)) extend(id, []);
  }
  const reachedEnd = [...depthOf.keys()].find((id) => ends.has(id));
  const result: Record<string, unknown> = {
    ok: true,
    mode: 'paths',
    from: hopNode(start),
    to: hopNode(end),
    length: found && reachedEnd ? depthOf.get(reachedEnd) ?? 0 : null,
    paths: await renderPaths(ctx, start, end, roots, out, walk.collapse),
    has_more: found && out.length >= maxPaths,
  };
  const hints: (Hint | undefined)[] = [];
  if (!found) {
    result.absence = {
      reason: 'no_path',
      message: `No path from ${start.qualified_name}${roots[0]?.id !== start.id ? ` (${roots.length} ${start.kind === 'service' ? 'route' : 'member'}(s))` : ''} to ${end.qualified_name}${endsFor.length ? ` (${endsFor.length} ${end.kind === 'service' ? 'route' : 'member'}(s))` : ''} over ${[...new Set(walk.steps.map((s) => `${s.type}${s.direction === 'in' ? ' (backwards)' : ''}`))].join(', ')} within ${walk.maxDepth} hops${walk.minConfidence > 0 ? ` at confidence ≥ ${walk.minConfidence}` : ''}; ${depthOf.size - roots.length} node(s) were reachable.`,
    };
    if (depth >= walk.maxDepth && frontier.length && walk.maxDepth < 30) hints.push({ tool: 'trace', args: { ...args, max_depth: Math.min(30, walk.maxDepth * 2) }, reason: 'search deeper' });
    hints.push({ tool: 'trace', args: { ...args, from: end.id, to: start.id }, reason: 'the other direction' });
    hints.push({ tool: 'trace', args: { from: start.id }, reason: `where a request from ${start.name} does go` });
  } else if (out.length >= maxPaths && maxPaths < 50) hints.push({ tool: 'trace', args: { ...args, max_paths: Math.min(50, maxPaths * 4) }, reason: 'more shortest paths exist' });
  result.hints = limitHints(hints);
  return result;
}

/** Each path as hops between members, or (`collapse: "types"`) as the classes it passes through. */
async function renderPaths(ctx: ToolContext, start: NodeRecord, end: NodeRecord, roots: NodeRecord[], found: Hop[][], collapse: Walk['collapse']): Promise<Record<string, unknown>[]> {
  const origins = found.map((p) => roots.find((r) => r.id === (p[0] ? p[0].from : undefined)) ?? roots.find((r) => p.length === 0 && r.id !== start.id) ?? start);
  const nodes = new Map<string, NodeRecord>([[start.id, start], [end.id, end], ...roots.map((r) => [r.id, r] as const), ...found.flat().map((h) => [h.to.id, h.to] as const)]);
  const owners = collapse === 'types' ? await ownersOf(ctx, [...nodes.values()]) : undefined;
  const out: Record<string, unknown>[] = [];
  const seen = new Set<string>();
  found.forEach((p, i) => {
    const origin = origins[i]!;
    const last = p.length ? p[p.length - 1]!.to : origin;
    const base = {
      ...(origin.id !== start.id ? { start: hopNode(origin) } : {}),
      ...(last.id !== end.id ? { end: hopNode(last) } : {}),
      services: [...new Set([origin.kind === 'service' ? origin.name : origin.service, ...p.map((h) => h.to.service)].filter((s): s is string => !!s))],
    };
    if (!owners) {
      out.push({ ...base, hops: p.map((h) => ({ from: h.from, edge_type: h.edge_type, to: hopNode(h.to), ...edgeFacts(h.attrs) })) });
      return;
    }
    const collapsed = collapseHops(owners, nodes, origin, p);
    const key = JSON.stringify(collapsed.steps.map((st) => [st.from, st.edge_type, st.to]));
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ ...base, types: collapsed.types.map(hopNode), steps: collapsed.steps });
  });
  return out;
}

interface TypeStep {
  depth?: number;
  from: string;
  edge_type: string;
  to: string;
  /** The member hop that makes the step. */
  via: { from: string; to: string } & Record<string, PropValue>;
}

/**
 * The class each node belongs to in a collapsed path: a type is its own, a member its declaring type's, a client or
 * producer its calling method's type; a route or service stays itself (the boundary a request crosses).
 */
async function ownersOf(ctx: ToolContext, nodes: readonly NodeRecord[]): Promise<Map<string, NodeRecord>> {
  const ownerName = (n: NodeRecord): string | undefined => {
    if (n.kind === 'symbol') return isCodeType(n) ? undefined : typeof n.props.declaring_type === 'string' ? n.props.declaring_type : n.qualified_name.split('#')[0];
    if ((n.kind === 'client' || n.kind === 'producer') && typeof n.props.caller === 'string') return n.props.caller.split('#')[0];
    return undefined;
  };
  const names = [...new Set(nodes.map(ownerName).filter((q): q is string => !!q))];
  const byName = new Map<string, NodeRecord[]>();
  for (const name of names) byName.set(name, (await ctx.store.nodesByName('qualified_name', name, { caseInsensitive: false, kinds: ['symbol'], limit: 20 })).filter(isCodeType));
  const out = new Map<string, NodeRecord>();
  for (const n of nodes) {
    const name = ownerName(n);
    const candidates = name ? byName.get(name) ?? [] : [];
    out.set(n.id, candidates.find((t) => t.service === n.service && t.source === n.source) ?? candidates[0] ?? n);
  }
  return out;
}

/** Hops as steps between classes: hops inside one class are left out, each change of class is one step. */
function collapseHops(owners: Map<string, NodeRecord>, nodes: Map<string, NodeRecord>, origin: NodeRecord, hops: readonly Hop[]): { types: NodeRecord[]; steps: TypeStep[] } {
  const ownerOf = (id: string) => owners.get(id) ?? nodes.get(id)!;
  const types: NodeRecord[] = [ownerOf(origin.id)];
  const steps: TypeStep[] = [];
  for (const h of hops) {
    const a = ownerOf(h.from);
    const b = ownerOf(h.to.id);
    if (a.id === b.id) continue;
    steps.push({ from: a.qualified_name, edge_type: h.edge_type, to: b.qualified_name, via: { from: nodes.get(h.from)?.qualified_name ?? h.from, to: h.to.qualified_name, ...edgeFacts(h.attrs) } });
    if (types[types.length - 1]!.id !== b.id) types.push(b);
  }
  return { types, steps };
}

/** A flow as classes: each class once (in the order reached), each (class, edge type, class) step once with its first member hop. */
async function collapsedFlow(ctx: ToolContext, start: NodeRecord, nodesById: Map<string, NodeRecord>, hops: readonly Hop[]): Promise<{ types: unknown[]; steps: TypeStep[] }> {
  const owners = await ownersOf(ctx, [...nodesById.values()]);
  const ownerOf = (id: string) => owners.get(id) ?? nodesById.get(id)!;
  const types = new Map<string, NodeRecord>([[ownerOf(start.id).id, ownerOf(start.id)]]);
  const steps = new Map<string, TypeStep>();
  for (const h of hops) {
    const a = ownerOf(h.from);
    const b = ownerOf(h.to.id);
    if (!types.has(b.id)) types.set(b.id, b);
    const key = `${a.id}\0${h.edge_type}\0${b.id}`;
    if (a.id === b.id || steps.has(key)) continue;
    steps.set(key, { depth: h.depth, from: a.qualified_name, edge_type: h.edge_type, to: b.qualified_name, via: { from: nodesById.get(h.from)?.qualified_name ?? h.from, to: h.to.qualified_name, ...edgeFacts(h.attrs) } });
  }
  return { types: [...types.values()].map(hopNode), steps: [...steps.values()] };
}
