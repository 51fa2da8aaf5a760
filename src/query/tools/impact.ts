import type { NodeRecord } from '../../graph/types.js';
import { asBoolean, asEnum, asInteger, asNumber, asStringList } from '../coerce.js';
import { fail } from '../errors.js';
import { limitHints, type Hint } from '../hints.js';
import { namedNodes, nodeIdParams } from '../node-ids.js';
import { listEntry } from '../present.js';
import { stringListSchema, type ToolDef } from '../tool.js';
import { edgesAround, isCodeType } from '../walk.js';

/** Edge types impact walks backwards by default: who depends on the origins. */
export const IMPACT_EDGE_TYPES = ['CALLS', 'INJECTS', 'USES', 'IMPLEMENTS', 'EXTENDS', 'OVERRIDES'] as const;
const MAX_IDS = 100;
interface Reached {
  node: NodeRecord;
  depth: number;
  /** The edge that carried the dependent (`uses`: how a USES edge names the type: field, parameter, pointcut…). */
  via: { edge_type: string; from: string; from_name?: string; confidence?: number; uses?: string; dispatch_to?: string; also_from?: string[] };
}

export const impactTool: ToolDef = {
  name: 'impact',
  title: 'What is affected if these change',
  description: () =>
    [
      'The reverse closure of the given code nodes: everything that calls, injects, uses (names the type: fields, parameters, locals, pointcuts, … see USES), implements, extends or overrides them, then what depends on those, up to `depth` hops.',
      'A type as origin also stands for its members (their callers are affected too) unless `include_members` is false. A method that implements or overrides another (an interface\'s) is called wherever that one is: those callers are affected too (`via.dispatch_to` names the implementation).',
      'Results are grouped by depth, then service; each node says which edge reached it and from where. Capped at `limit` nodes with `has_more`.',
      '`min_confidence` drops inferred edges below it (unresolved calls are never followed).',
      'Unless `across_services` is false, a handler reaches across services: the routes it serves, the clients, producers and gateway routes that reach those routes, and the methods declaring those clients (then their callers), each with the hop and confidence that carried it. That chain is one call, so it takes one hop of `depth`: the method declaring a client of a route the origin serves is at depth 1, its callers at depth 2.',
    ].join('\n'),
  params: () => [
    ...nodeIdParams('impact', MAX_IDS),
    { name: 'depth', description: 'How many hops back to walk (default 3, at most 10); a call across services (route, client, declaring method) is one hop.', schema: { type: 'integer', minimum: 1, maximum: 10, default: 3 } },
    { name: 'edge_types', description: `Edge types to walk backwards (default: ${IMPACT_EDGE_TYPES.join(', ')}).`, schema: stringListSchema({ type: 'string', enum: [...IMPACT_EDGE_TYPES] }) },
    { name: 'include_members', description: 'Treat a type origin as also its members (default true).', schema: { type: 'boolean', default: true } },
    { name: 'min_confidence', description: 'Follow only edges at least this sure, 0..1 (default 0.5).', schema: { type: 'number', minimum: 0, maximum: 1, default: 0.5 } },
    { name: 'across_services', description: 'Follow a handler to its routes and their callers in other services (default true).', schema: { type: 'boolean', default: true } },
    { name: 'limit', description: 'Most affected nodes to return (default 200, at most 2000).', schema: { type: 'integer', minimum: 1, maximum: 2000, default: 200 } },
  ],
  run: async (ctx, args) => {
    const depth = asInteger(args.depth, 'depth', { min: 1, max: 10 }) ?? 3;
    const types = [...new Set((asStringList(args.edge_types, 'edge_types') ?? [...IMPACT_EDGE_TYPES]).map((t) => asEnum(t, 'edge_types', IMPACT_EDGE_TYPES, 'edge type')!))].sort();
    const includeMembers = asBoolean(args.include_members, 'include_members') ?? true;
    const minConfidence = asNumber(args.min_confidence, 'min_confidence') ?? 0.5;
    if (minConfidence < 0 || minConfidence > 1) fail({ code: 'out_of_range', argument: 'min_confidence', message: `min_confidence must be between 0 and 1; got ${minConfidence}.` });
    const limit = asInteger(args.limit, 'limit', { min: 1, max: 2000 }) ?? 200;
    const acrossServices = asBoolean(args.across_services, 'across_services') ?? true;
    const { ids, nodes: origins, argument } = await namedNodes(ctx, 'impact', args, { max: MAX_IDS });
    const notCode = origins.filter((n) => n.kind !== 'symbol' && n.kind !== 'service');
    if (notCode.length) fail({ code: 'invalid_argument', argument, message: `impact walks code symbols; ${notCode[0]!.qualified_name} is a ${notCode[0]!.kind}. Use \`neighbors\` with direction "in" for other kinds.` });

    const seen = new Set<string>(ids);
    let frontier = [...ids];
    // Each dependent names the node it depends on: an origin, one of its members, or another dependent.
    const names = new Map(origins.map((n) => [n.id, n.qualified_name]));
    if (includeMembers) {
      const members = await edgesAround(ctx, origins.filter(isCodeType).map((n) => n.id), 'out', ['DECLARES'], 0);
      for (const m of members) if (!seen.has(m.other.id)) {
        seen.add(m.other.id);
        frontier.push(m.other.id);
        names.set(m.other.id, m.other.qualified_name);
      }
    }
    const reached: Reached[] = [];
    const byId = new Map<string, Reached>();
    let truncated = false;
    /** Adds what `rows` reach that is new, at depth `d`; the ids added. */
    const take = (rows: Awaited<ReturnType<typeof edgesAround>>, d: number): string[] => {
      const added: string[] = [];
      for (const r of rows) {
        if (seen.has(r.other.id)) {
          // Reached again the same way at this depth (a gateway route forwarding to several of the routes): say from where.
          const before = byId.get(r.other.id);
          const name = names.get(r.origin);
          if (before && before.depth === d && before.via.edge_type === r.type && name && r.origin !== before.via.from && !before.via.also_from?.includes(name)) (before.via.also_from ??= []).push(name);
          continue;
        }
        if (reached.length >= limit) {
          truncated = true;
          break;
        }
        seen.add(r.other.id);
        added.push(r.other.id);
        names.set(r.other.id, r.other.qualified_name);
        const fromName = names.get(r.origin);
        const entry: Reached = { node: r.other, depth: d, via: { edge_type: r.type, from: r.origin, ...(fromName ? { from_name: fromName } : {}), ...(typeof r.attrs.confidence === 'number' ? { confidence: r.attrs.confidence } : {}), ...(typeof r.attrs.via === 'string' ? { uses: r.attrs.via } : {}) } };
        reached.push(entry);
        byId.set(r.other.id, entry);
      }
      return added;
    };
    const acrossTypes = (list: readonly string[]) => (acrossServices ? list.filter((t) => ctx.ontology.edgeType(t)) : []);
    const exposes = acrossTypes(['EXPOSES']);
    const reaching = acrossTypes(['HTTP_CALLS', 'ASYNC_CALLS', 'FORWARDS']);
    const declaring = acrossTypes(['DECLARES_CLIENT', 'DECLARES_PRODUCER']);
    /** The routes the methods serve: affected with them, at their depth. */
    const routesOf = async (ids: string[], d: number): Promise<string[]> => (exposes.length && ids.length ? take(await edgesAround(ctx, ids, 'out', exposes, 0), d) : []);
    /**
     * One call across services into the frontier's routes, at depth `d`: the clients, producers and gateway routes
     * reaching them (and what reaches those gateway routes in turn), then the methods declaring those clients and
     * producers. Those methods' own routes and callers are the next depth's.
     */
    const callersAcross = async (ids: string[], d: number): Promise<string[]> => {
      if (!reaching.length || !ids.length) return [];
      const all: string[] = [];
      for (let layer = ids; layer.length && !truncated; ) {
        layer = take(await edgesAround(ctx, layer, 'in', reaching, minConfidence), d);
        all.push(...layer);
      }
      const declarers = declaring.length && all.length ? take(await edgesAround(ctx, all, 'in', declaring, 0), d) : [];
      return [...all, ...declarers];
    };
    /**
     * Callers of the methods the frontier's methods implement or override (an interface's): a call of
     * `IOrders#place` runs `OrdersImpl#place`, so changing the implementation affects it. The other implementations
     * are not affected, so the walk goes from the interface method to its callers only.
     */
    const dispatched = async (ids: string[], d: number): Promise<string[]> => {
      if (!types.includes('CALLS')) return [];
      const overridden = await edgesAround(ctx, ids, 'out', ['OVERRIDES'], 0);
      if (!overridden.length) return [];
      const implementer = new Map(overridden.map((o) => [o.other.id, names.get(o.origin) ?? o.origin]));
      for (const o of overridden) names.set(o.other.id, o.other.qualified_name);
      const callers = await edgesAround(ctx, [...implementer.keys()], 'in', ['CALLS'], minConfidence);
      const added = take(callers, d);
      for (const id of added) {
        const r = byId.get(id)!;
        r.via.dispatch_to = implementer.get(r.via.from);
      }
      return added;
    };
    // The origins' routes are affected with them (depth 1, the nearest a dependent is reported).
    frontier.push(...(await routesOf(frontier, 1)));
    for (let d = 1; d <= depth && frontier.length && !truncated; d++) {
      const added = take(await edgesAround(ctx, frontier, 'in', types, minConfidence), d);
      added.push(...(await dispatched(frontier, d)));
      added.push(...(await callersAcross(frontier, d)));
      frontier = [...added, ...(await routesOf(added, d))];
    }
    const groups = new Map<string, { depth: number; service: string; nodes: unknown[] }>();
    for (const r of reached) {
      const service = r.node.service ?? '(external)';
      const key = `${String(r.depth).padStart(2, '0')}\0${service}`;
      let g = groups.get(key);
      if (!g) groups.set(key, (g = { depth: r.depth, service, nodes: [] }));
      g.nodes.push({ ...listEntry(ctx.ontology, r.node), via: r.via });
    }
    const services: Record<string, number> = {};
    for (const r of reached) services[r.node.service ?? '(external)'] = (services[r.node.service ?? '(external)'] ?? 0) + 1;
    const hints: (Hint | undefined)[] = [];
    if (truncated) hints.push({ tool: 'impact', args: { ids, depth, edge_types: types, include_members: includeMembers, min_confidence: minConfidence, ...(acrossServices ? {} : { across_services: false }), limit: Math.min(2000, limit * 2) }, reason: 'more nodes are affected than this page shows' });
    const deepest = reached[reached.length - 1];
    if (deepest) hints.push({ tool: 'describe', args: { id: deepest.node.id }, reason: `full record of ${deepest.node.qualified_name}` });
    const result: Record<string, unknown> = {
      ok: true,
      origins: origins.map((n) => listEntry(ctx.ontology, n)),
      total: reached.length,
      has_more: truncated,
      by_service: Object.fromEntries(Object.entries(services).sort(([a], [b]) => a.localeCompare(b))),
      groups: [...groups.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, g]) => g),
    };
    if (!reached.length) {
      result.absence = { reason: 'nothing_depends', message: `Nothing reaches ${origins.map((o) => o.qualified_name).join(', ')} through ${types.join(', ')} edges (backwards)${minConfidence > 0 ? ` at confidence ≥ ${minConfidence}` : ''}.` };
      hints.push({ tool: 'neighbors', args: { ids, direction: 'both', edge_types: types }, reason: 'see every edge of these kinds, both ways' });
    }
    result.hints = limitHints(hints);
    return result;
  },
};
