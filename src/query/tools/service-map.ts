import { FORWARDING_FRAMEWORKS, PROTOCOLS } from '../../graph/ontology/code.js';
import { asEnum, asStringList } from '../coerce.js';
import { limitHints, type Hint } from '../hints.js';
import { stringListSchema, type ToolContext, type ToolDef } from '../tool.js';
import { edgesAround } from '../walk.js';
import { allNodes, checkServices, LINK_KINDS, linkEntries, type LinkEntry, type LinkStatus } from './links.js';

/** What a service's outbound calls that reach no declared route are, on the map: each is drawn as such. */
const OPEN_STATUSES = ['unresolved', 'ambiguous', 'unmatched', 'guessed'] as const satisfies readonly LinkStatus[];
type OpenStatus = (typeof OPEN_STATUSES)[number];

export interface MapService {
  id: string;
  name: string;
  /** The build unit's directory and modules, as the service node records them. */
  directory?: string;
  modules: string[];
  /** A service that forwards requests (Spring Cloud Gateway, Zuul, nginx, httpd routes). */
  gateway: boolean;
  /** Known only from a deployment file (an image without source in the estate). */
  deployed_only: boolean;
  routes: number;
  listeners: number;
  gateway_routes: number;
  clients: number;
  producers: number;
  /** Outbound calls and sends by where they stand (linked, external, unresolved, ambiguous…). */
  links: Partial<Record<LinkStatus, number>>;
}

export interface MapCall {
  from: string;
  to: string;
  /** http, kafka, rabbit…, or `gateway` for routes a gateway forwards. */
  protocol: string;
  calls: number;
  matched: number;
  confidence: number;
}

/**
 * The estate's topology in one answer: services with their counts, SERVICE_CALLS between them, what gateways forward
 * where, calls to hosts outside the estate, and the calls each service makes that reach no declared route. What a web
 * page draws, and what `sextant map` prints.
 */
export const serviceMapTool: ToolDef = {
  name: 'service_map',
  title: 'Service map',
  description: () =>
    [
      'The service topology in one call: every service (its build directory and modules, whether it is a gateway, and how many routes (Actuator endpoints not counted), listeners, gateway routes, clients and producers it has), the calls between services per protocol (SERVICE_CALLS: calls, how many matched a declared route, confidence), the services each gateway forwards to (protocol "gateway"), the external hosts services call, and per service the calls that reach no declared route (unresolved, ambiguous, unmatched, guessed) so the map shows its holes.',
      '`service` narrows the map to those services and their direct neighbours; `protocols` keeps only edges of these protocols (http, kafka, …, gateway). For the calls behind an edge: `links` with `service` and include "all"; for one request\'s path: `trace` from a route.',
    ].join('\n'),
  params: () => [
    { name: 'service', description: 'Only these services and the services they call or are called by (names as `find kind=service` lists them).', schema: stringListSchema({ type: 'string' }) },
    { name: 'protocols', description: `Only edges of these protocols: ${[...PROTOCOLS, 'gateway'].join(', ')} (default all).`, schema: stringListSchema({ type: 'string', enum: [...PROTOCOLS, 'gateway'] }) },
  ],
  run: async (ctx, args) => {
    const focus = asStringList(args.service, 'service');
    const protocols = asStringList(args.protocols, 'protocols')?.map((p) => asEnum(p, 'protocols', [...PROTOCOLS, 'gateway'] as const, 'protocol')!);
    const map = await serviceMap(ctx);
    if (focus) await checkServices(ctx, focus);
    const keepProtocol = (p: string) => !protocols || protocols.includes(p as never);
    const inFocus = (c: { from: string; to: string }) => !focus || focus.includes(c.from) || focus.includes(c.to);
    const calls = map.calls.filter((c) => keepProtocol(c.protocol) && inFocus(c));
    const shown = focus ? new Set([...focus, ...calls.flatMap((c) => [c.from, c.to])]) : undefined;
    const services = shown ? map.services.filter((s) => shown.has(s.name)) : map.services;
    const visible = new Set(services.map((s) => s.name));
    const external = map.external.filter((e) => keepProtocol('http') && visible.has(e.from) && (!focus || focus.includes(e.from)));
    const open = map.open.filter((o) => visible.has(o.service) && (!focus || focus.includes(o.service)));
    const hints: Hint[] = [];
    const busiest = [...calls].sort((a, b) => b.calls - a.calls || a.from.localeCompare(b.from))[0];
    if (busiest) hints.push({ tool: 'links', args: { service: [busiest.from], include: 'all' }, reason: `the calls behind ${busiest.from} → ${busiest.to} and the rest of ${busiest.from}'s links` });
    const firstOpen = open[0];
    if (firstOpen) hints.push({ tool: 'links', args: { service: [firstOpen.service] }, reason: `why ${firstOpen.count} ${firstOpen.status} call${firstOpen.count > 1 ? 's' : ''} of ${firstOpen.service} reach no declared route` });
    const result: Record<string, unknown> = { ok: true, services, calls, external, open };
    if (!map.services.length) result.absence = { reason: 'no_services', message: 'The index holds no services: index a Java or Kotlin estate (a GraphQL source has no service map).' };
    else hints.push({ tool: 'find', args: { kind: 'route', filter: { service: (focus ?? [services[0]!.name])[0] } }, reason: 'the routes of a service' });
    result.hints = limitHints(hints);
    return result;
  },
};

export interface ServiceMap {
  services: MapService[];
  calls: MapCall[];
  external: { from: string; host: string; calls: number }[];
  open: { service: string; status: OpenStatus; count: number }[];
}

/** The whole estate's map, in a stable order. */
export async function serviceMap(ctx: ToolContext): Promise<ServiceMap> {
  const serviceNodes = await allNodes(ctx, 'service', []);
  const routes = await allNodes(ctx, 'route', []);
  const entries = await linkEntries(ctx, new Set(LINK_KINDS));
  const byId = new Map(serviceNodes.map((s) => [s.id, s.name]));
  const counts = new Map<string, Pick<MapService, 'routes' | 'listeners' | 'gateway_routes' | 'clients' | 'producers' | 'links'>>();
  const countsOf = (name: string) => counts.get(name) ?? counts.set(name, { routes: 0, listeners: 0, gateway_routes: 0, clients: 0, producers: 0, links: {} }).get(name)!;
  for (const r of routes) {
    // Actuator's endpoints are infrastructure every Boot service may have: not counted as the service's routes.
    if (r.props.declared === false || !r.service || r.props.framework === 'actuator') continue;
    const c = countsOf(r.service);
    if (FORWARDING_FRAMEWORKS.has(String(r.props.framework))) c.gateway_routes++;
    else if (r.props.protocol === 'http') c.routes++;
    else c.listeners++;
  }
  const external = new Map<string, { from: string; host: string; calls: number }>();
  const open = new Map<string, { service: string; status: OpenStatus; count: number }>();
  for (const e of entries) {
    if (!e.service || (e.kind !== 'http' && e.kind !== 'message')) continue;
    const c = countsOf(e.service);
    if (e.kind === 'http') c.clients++;
    else c.producers++;
    c.links[e.status] = (c.links[e.status] ?? 0) + 1;
    if (e.status === 'external') {
      const host = externalHost(e);
      const key = `${e.service}\0${host}`;
      const x = external.get(key) ?? external.set(key, { from: e.service, host, calls: 0 }).get(key)!;
      x.calls++;
    } else if ((OPEN_STATUSES as readonly string[]).includes(e.status)) {
      const key = `${e.service}\0${e.status}`;
      const x = open.get(key) ?? open.set(key, { service: e.service, status: e.status as OpenStatus, count: 0 }).get(key)!;
      x.count++;
    }
  }
  const calls: MapCall[] = [];
  for (const e of await edgesAround(ctx, serviceNodes.map((s) => s.id), 'out', ['SERVICE_CALLS'], 0)) {
    const from = byId.get(e.origin);
    if (!from) continue;
    calls.push({ from, to: e.other.name, protocol: String(e.attrs.protocol ?? 'http'), calls: num(e.attrs.calls), matched: num(e.attrs.matched), confidence: num(e.attrs.confidence) });
  }
  // A gateway's routes, summed per target service: the map's "gateway" edges (one route may forward to several).
  const forwards = new Map<string, MapCall>();
  for (const e of entries) {
    if (e.kind !== 'gateway' || !e.service) continue;
    for (const to of e.target_services ?? []) {
      if (to === e.service) continue;
      const key = `${e.service}\0${to}`;
      const f = forwards.get(key) ?? forwards.set(key, { from: e.service, to, protocol: 'gateway', calls: 0, matched: 0, confidence: 0 }).get(key)!;
      f.calls++;
      const best = Math.max(0, ...e.targets.filter((t) => t.service === to).map((t) => t.confidence ?? 0));
      if (e.targets.some((t) => t.service === to)) f.matched++;
      f.confidence = Math.max(f.confidence, best || (e.status === 'linked' ? 0.9 : 0.5));
    }
  }
  calls.push(...forwards.values());
  calls.sort((a, b) => a.from.localeCompare(b.from) || a.to.localeCompare(b.to) || a.protocol.localeCompare(b.protocol));
  const services: MapService[] = serviceNodes
    .map((s) => {
      const c = countsOf(s.name);
      return {
        id: s.id,
        name: s.name,
        ...(typeof s.props.directory === 'string' ? { directory: s.props.directory } : {}),
        modules: Array.isArray(s.props.modules) ? s.props.modules.map(String) : [],
        gateway: c.gateway_routes > 0,
        deployed_only: Number(s.props.files ?? 0) === 0,
        ...c,
      };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
  const byKey = <T>(xs: Iterable<T>, key: (x: T) => string) => [...xs].sort((a, b) => key(a).localeCompare(key(b)));
  return { services, calls, external: byKey(external.values(), (x) => `${x.from}\0${x.host}`), open: byKey(open.values(), (x) => `${x.service}\0${OPEN_STATUSES.indexOf(x.status)}`) };
}

/** The host an external call goes to: the client's target, else the first word of the undeclared route it reaches. */
function externalHost(e: LinkEntry): string {
  const target = e.targets[0]?.qualified_name;
  return target ? target.split(' ')[0]! : 'external';
}

function num(v: unknown): number {
  return typeof v === 'number' ? v : 0;
}
