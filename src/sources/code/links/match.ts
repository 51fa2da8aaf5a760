/**
 * Matching what sends to what receives, across the estate, after every file is emitted: clients to the routes of
 * their target service (through gateways and proxies), producers to the listeners of their destination, pins from
 * sextant.yaml, and the service-level topology the matches add up to.
 */
import { nodeId } from '../../../graph/ids.js';
import type { Ontology } from '../../../graph/ontology/index.js';
import type { EdgeRecord, NodeRecord } from '../../../graph/types.js';
import type { CodeLinkPins } from '../../../config/types.js';
import { compilePattern } from '../../../search/patterns.js';
import { FORWARDING_FRAMEWORKS, literalSegmentCount } from '../../../graph/ontology/code.js';
import { type DeploymentOnly, hostIndex, type ServiceInfo } from '../config/layout.js';
import { type RabbitBinding, routingKeyMatches } from './outbound-messages.js';
import { pathRegex, unsupportedPathRegexes } from './routes.js';

export function pinLinks(nodes: NodeRecord[], links: CodeLinkPins | undefined): string[] {
  if (!links) return [];
  const used = new Set<string>();
  const pinOf = (pins: Record<string, string>, caller: string): string | undefined => {
    for (const key of [caller, caller.split('#')[0]!]) {
      if (pins[key] !== undefined) {
        used.add(`${pins === links.clients ? 'clients' : 'destinations'}\0${key}`);
        return pins[key];
      }
    }
    return undefined;
  };
  for (const n of nodes) {
    if (n.kind !== 'client' && n.kind !== 'producer') continue;
    const caller = String(n.props.caller ?? '');
    if (n.kind === 'client') {
      const target = pinOf(links.clients, caller);
      if (target === undefined) continue;
      n.props.target_service = target;
      n.props.pinned = true;
      n.qualified_name = `${n.service} -> ${target} ${n.props.http_method} ${n.props.path}`;
    } else {
      const destination = pinOf(links.destinations, caller);
      if (destination === undefined) continue;
      n.props.destination = destination;
      n.props.pinned = true;
      n.name = `${n.props.protocol} ${destination}`;
      n.qualified_name = `${n.service} -> ${n.props.protocol} ${destination}`;
    }
  }
  const warnings: string[] = [];
  for (const group of ['clients', 'destinations'] as const) {
    for (const key of Object.keys(links[group])) {
      if (!used.has(`${group}\0${key}`)) warnings.push(`links.${group}: ${key} matches no ${group === 'clients' ? 'HTTP client' : 'message producer'} (a calling method such as com.acme.Type#method(Arg), or its type)`);
    }
  }
  return warnings;
}

/**
 * Links every client to the routes it reaches: same target service, path pattern, and HTTP method (ANY on
 * either side matches any). One route: cross_service (or intra_service); several: each ambiguous; none: an
 * undeclared route node stands for the target, so the call stays visible. Sets each client's `match`.
 */
export function matchClients(ontology: Ontology, source: string, nodes: NodeRecord[], edges: EdgeRecord[], topology: Topology, services: readonly ServiceInfo[], deploymentOnly: readonly DeploymentOnly[] = []): void {
  const routes = new Map<string, NodeRecord[]>();
  const byPath = new Map<string, NodeRecord[]>();
  const forwarding = new Map<string, { route: NodeRecord; accepts: (path: string) => boolean }[]>();
  const clients: NodeRecord[] = [];
  // Discovery names are case-insensitive (Eureka registers BILLING-SERVICE for billing-service); deployment hosts
  // (compose services, containers, Kubernetes Services) address services too, names first.
  const names = new Map(nodes.filter((n) => n.kind === 'service').map((n) => [n.name.toLowerCase(), n.name]));
  const owners = hostIndex(services);
  // Services only the deployment has (a proxy container) are addressed by their hosts too.
  for (const n of nodes) if (n.kind === 'service' && n.props.name_from === 'deployment' && Array.isArray(n.props.hosts)) for (const h of n.props.hosts) if (!names.has(String(h).toLowerCase())) names.set(String(h).toLowerCase(), n.name);
  // An image the deployment runs without its source here (familie-brev, payment) becomes a service when called.
  const deployed = hostIndex(deploymentOnly.filter((d) => !d.proxy));
  const candidates = new Map(deploymentOnly.map((d) => [d.name, d]));
  const serviceNames = {
    has: (host: string): boolean => serviceNames.get(host) !== undefined,
    get: (host: string): string | undefined => {
      const h = host.toLowerCase();
      const found = names.get(h) ?? owners.get(h);
      if (found !== undefined) return found;
      const image = deployed.get(h);
      if (image === undefined) return undefined;
      if (!names.has(image.toLowerCase())) {
        nodes.push(deploymentServiceNode(ontology, source, candidates.get(image)!));
        names.set(image.toLowerCase(), image);
      }
      return image;
    },
  };
  for (const n of nodes) {
    if (n.kind === 'route' && n.props.protocol === 'http') {
      const key = `${n.service}\0${n.props.path_pattern}`;
      (routes.get(key) ?? routes.set(key, []).get(key)!).push(n);
      if (GATEWAYS.has(String(n.props.framework)) && n.service) {
        const compiled = compilePattern(String(n.props.path_regex));
        if ('accepts' in compiled) (forwarding.get(n.service) ?? forwarding.set(n.service, []).get(n.service)!).push({ route: n, accepts: (p) => compiled.accepts(p) });
      }
      const path = String(n.props.path_pattern);
      // An unresolved placeholder in a route's path is no evidence for a client that does not name the service.
      if (!path.includes('$')) (byPath.get(path) ?? byPath.set(path, []).get(path)!).push(n);
    } else if (n.kind === 'client') clients.push(n);
  }
  const declaredOf = new Map<string, NodeRecord[]>();
  for (const [key, list] of routes) {
    const service = key.slice(0, key.indexOf('\0'));
    for (const r of list) if (!GATEWAYS.has(String(r.props.framework)) && r.props.declared !== false) (declaredOf.get(service) ?? declaredOf.set(service, []).get(service)!).push(r);
  }
  // Per route: the text every path it accepts starts with, and its matcher, compiled when first needed (null: none).
  const matchers = new Map<string, { prefix: string; accepts?: ((path: string) => boolean) | null }>();
  const accepts = (r: NodeRecord, path: string): boolean => {
    let m = matchers.get(r.id);
    if (!m) matchers.set(r.id, (m = { prefix: typeof r.props.path_regex === 'string' ? requiredPrefix(r) : '' }));
    // Most paths asked of a service are another service's: their start tells, without compiling or running a matcher.
    if (!path.startsWith(m.prefix)) return false;
    if (m.accepts === undefined) {
      const c = typeof r.props.path_regex === 'string' ? compilePattern(r.props.path_regex) : undefined;
      m.accepts = c && 'accepts' in c ? c.accepts : null;
    }
    return m.accepts !== null && m.accepts(path);
  };
  // A route of wildcards only (an SPA fallback's `/**`) fits any path: no evidence of which service a client means.
  // Asked for every service on a port (most listen on 8080), so each answer is kept by service, method and path.
  const fits = new Map<string, boolean>();
  const methodAndPathFit = (c: NodeRecord, service: string): boolean => {
    const pattern = String(c.props.path_pattern);
    const key = `${service}\0${String(c.props.http_method)}\0${pattern}`;
    let fit = fits.get(key);
    if (fit === undefined) {
      const concrete = concreteOf(pattern);
      fit = pattern.startsWith('/') && (declaredOf.get(service) ?? []).some((r) => literalSegments(r) > 0 && (r.props.http_method === c.props.http_method || r.props.http_method === 'ANY' || c.props.http_method === 'ANY') && accepts(r, concrete));
      fits.set(key, fit);
    }
    return fit;
  };
  // `localhost:<port>`: the services listening on the port (server.port, a published compose port).
  const listening = new Map<number, string[]>();
  for (const s of services) {
    // Spring Boot listens on 8080 unless server.port says otherwise.
    const ports = s.ports ?? [];
    for (const p of ports.some((x) => x.how === 'server.port') ? ports : [...ports, { port: 8080 }]) (listening.get(p.port) ?? listening.set(p.port, []).get(p.port)!).push(s.name);
  }
  let client: NodeRecord | undefined;
  const byPort = (port: number): string | undefined => {
    const fitting = [...new Set(listening.get(port) ?? [])].filter((s) => client && methodAndPathFit(client, s));
    return fitting.length === 1 ? fitting[0] : undefined;
  };
  const undeclared = new Map<string, string>();
  for (const c of clients) {
    client = c;
    const method = String(c.props.http_method);
    // A call whose target the source does not name (a relative URL, an HTTP interface without a URL) is matched
    // by method and path alone, in any service, and says so with a lower confidence.
    const host = typeof c.props.target_service === 'string' ? String(c.props.target_service) : '';
    // A loopback host with a port names the one service listening there whose routes fit the call; without a port it
    // names no service, and the call is matched by method and path, as a relative one.
    const loopback = host !== '' && LOOPBACK.test(host);
    const port = typeof c.props.target_port === 'number' ? c.props.target_port : undefined;
    const local = loopback && port !== undefined ? byPort(port) : undefined;
    const named = (host !== '' && !loopback) || local !== undefined;
    const service = local ?? (named ? (serviceNames.get(host.toLowerCase()) ?? host) : '');
    const unserved = loopback && port !== undefined && local === undefined;
    if (unserved) {
      // A port is a weak name: one no service of the estate serves this call on names nothing the estate shows.
      c.props.resolved = false;
      c.props.unresolved_reason = `localhost:${port} names no service of the estate that serves ${method} ${String(c.props.path)}`;
      c.props.unresolved_kind = 'environment';
      c.props.unresolved_at = `localhost:${port}`;
    }
    if (named && !serviceNames.has(host.toLowerCase()) && isExternalHost(host, c)) {
      c.props.match = 'external';
      const identity = `external|${host}|${method} ${c.props.path_pattern}`;
      let to = undeclared.get(identity);
      if (!to) {
        to = nodeId(ontology, source, 'route', identity);
        undeclared.set(identity, to);
        const path = String(c.props.path);
        nodes.push({ id: to, kind: 'route', name: `${method} ${path}`, qualified_name: `${host} ${method} ${path}`, source, props: { protocol: 'http', http_method: method, path, path_pattern: String(c.props.path_pattern), path_regex: pathRegex(path), declared: false, resolved: Boolean(c.props.resolved) } });
      }
      edges.push({ type: 'HTTP_CALLS', from: c.id, to, attrs: { match: 'external', confidence: c.props.resolved ? 0.9 : 0.6, strategy: 'external_host' } });
      continue;
    }
    // A path the source does not state (kept as written, no leading slash) matches nothing.
    const pattern = String(c.props.path_pattern);
    const candidates = !pattern.startsWith('/') || unserved ? [] : named ? (routes.get(`${service}\0${pattern}`) ?? []) : (byPath.get(pattern) ?? []);
    const methodFits = (r: NodeRecord): boolean => r.props.http_method === method || r.props.http_method === 'ANY' || method === 'ANY';
    let found = candidates.filter(methodFits);
    // A concrete segment where the route has a variable (`/configs/RETRY` on `/configs/{name}`): the routes of the
    // service whose path matches the client's, the most literal of them, as Spring picks the most specific mapping.
    if (!found.length && named && pattern.startsWith('/')) found = mostSpecific((declaredOf.get(service) ?? []).filter((r) => methodFits(r) && accepts(r, concreteOf(pattern))));
    // Through a gateway or proxy: no route of the service has the path, one of its forwarding routes accepts it.
    let viaGateway = false;
    if (!found.length && named && pattern.startsWith('/')) {
      const concrete = pattern.replace(/\{\}/g, 'x');
      const through = (forwarding.get(service) ?? []).filter((g) => g.accepts(concrete)).map((g) => g.route);
      // The most specific gateway path wins, as gateways order their routes (a catch-all /** comes last).
      const best = through.sort((a, b) => String(b.props.path).length - String(a.props.path).length).slice(0, 1);
      if (best.length) {
        found = best;
        viaGateway = true;
      }
    }
    const target = named ? service : found.length === 1 ? (found[0]!.service ?? '') : '';
    const match = found.length === 0 ? 'unmatched' : found.length > 1 ? 'ambiguous' : target === c.service ? 'intra_service' : 'cross_service';
    c.props.match = match;
    const confidence = match === 'unmatched' ? 0 : match === 'ambiguous' ? 0.4 : !named ? 0.5 : c.props.resolved ? 0.9 : 0.6;
    const attrs = { match, confidence: c.props.pinned && match !== 'unmatched' && match !== 'ambiguous' ? 0.95 : viaGateway ? Math.min(confidence, 0.8) : local !== undefined ? Math.min(confidence, 0.7) : confidence, strategy: c.props.pinned ? 'pinned_service_method_path' : viaGateway ? 'gateway_path' : local !== undefined ? 'local_port' : named ? 'service_method_path' : 'method_path' };

    for (const r of found) edges.push({ type: 'HTTP_CALLS', from: c.id, to: r.id, attrs });
    if (target) topology.add(c.service ?? '', target, 'http', match !== 'unmatched', attrs.confidence);
    if (found.length) continue;
    // Without a target, the stand-in route belongs to the calling service: unrelated services' guesses stay apart.
    const identity = `undeclared|${target || `? from ${c.service ?? ''}`}|${method} ${c.props.path_pattern}`;
    let to = undeclared.get(identity);
    if (!to) {
      to = nodeId(ontology, source, 'route', identity);
      undeclared.set(identity, to);
      const path = String(c.props.path);
      nodes.push({
        id: to,
        kind: 'route',
        name: `${method} ${path}`,
        qualified_name: `${target || '?'} ${method} ${path}`,
        source,
        ...(target ? { service: target } : {}),
        props: { protocol: 'http', http_method: method, path, path_pattern: String(c.props.path_pattern), path_regex: pathRegex(path), declared: false, resolved: Boolean(c.props.resolved) },
      });
    }
    edges.push({ type: 'HTTP_CALLS', from: c.id, to, attrs });
  }
}

/** A service node for an image the deployment runs without its source in the estate, the first time a call names it. */
function deploymentServiceNode(ontology: Ontology, source: string, d: DeploymentOnly): NodeRecord {
  return {
    id: nodeId(ontology, source, 'service', d.name),
    kind: 'service',
    name: d.name,
    qualified_name: d.name,
    source,
    service: d.name,
    file: d.file,
    line: d.line,
    props: { name_from: 'deployment', build_tool: 'none', directory: '', modules: [], files: 0, ...(d.hosts.length ? { hosts: d.hosts } : {}) },
  };
}

/** A client path pattern as a concrete path: each unknown segment (`{}`) a value no literal segment equals. */
function concreteOf(pattern: string): string {
  return pattern.replace(/\{\}/g, '\u0000v');
}

/** The routes with the most literal segments (Spring's most specific match); several equally specific are all kept. */
function mostSpecific(routes: readonly NodeRecord[]): NodeRecord[] {
  const best = Math.max(...routes.map(literalSegments));
  return routes.filter((r) => literalSegments(r) === best);
}

/** How many segments of a route's path are literal: neither a variable nor a wildcard (`*`, `**`). */
function literalSegments(r: NodeRecord): number {
  const pattern = String(r.props.path_pattern);
  let n = literalCounts.get(pattern);
  if (n === undefined) literalCounts.set(pattern, (n = literalSegmentCount(pattern)));
  return n;
}
const literalCounts = new Map<string, number>();

/**
 * Text every path the route's regex accepts starts with: its path's literal start, up to the last `/` before a
 * variable or wildcard (`/api/**` accepts `/api`). Only for a regex made from the path as {@link pathRegex} makes it
 * (else none: '').
 */
function requiredPrefix(r: NodeRecord): string {
  const path = String(r.props.path);
  if (pathRegex(path) !== r.props.path_regex) return '';
  const free = path.search(/[*{]/);
  const lead = free < 0 ? path : path.slice(0, free);
  return lead.slice(0, Math.max(0, lead.lastIndexOf('/')));
}

const GATEWAYS = FORWARDING_FRAMEWORKS;

const LOOPBACK = /^(?:localhost|127(?:\.\d{1,3}){3}|0\.0\.0\.0|\[?::1\]?)$/i;

/**
 * A host outside the estate: one no service, gateway or deployment of the estate is addressed by — a domain name,
 * an IP address, or a bare name the estate does not run (`http://rest-service-external`, a Feign `name` of a service
 * kept in another repository). A name pinned in sextant.yaml is the estate's by decision.
 */
function isExternalHost(host: string, client: NodeRecord): boolean {
  return !LOOPBACK.test(host) && !client.props.pinned;
}

/**
 * Links every producer to the listeners of its destination in every service (fan-out is the point of
 * messaging, not an ambiguity); a topic pattern listener matches the topics its regex accepts. None: an
 * undeclared route stands for the destination. Sets each producer's `match`.
 */
export function matchProducers(ontology: Ontology, source: string, nodes: NodeRecord[], edges: EdgeRecord[], topology: Topology, bindings: readonly RabbitBinding[]): string[] {
  const listeners = nodes.filter((n) => n.kind === 'route' && n.props.protocol !== 'http' && n.props.declared !== false);
  const warnings: string[] = [];
  const topicPatterns = topicPatternsOf(listeners, warnings);
  const undeclared = new Map<string, string>();
  const byExchange = new Map<string, RabbitBinding[]>();
  for (const b of [...bindings, ...annotationBindings(listeners)]) (byExchange.get(b.exchange) ?? byExchange.set(b.exchange, []).get(b.exchange)!).push(b);
  for (const p of nodes.filter((n) => n.kind === 'producer')) {
    const destination = String(p.props.destination);
    // Axon routes its messages itself (by class, per deployment): only a send that reaches no handler is matched here.
    const axon = p.props.protocol === 'axon';
    if (axon && p.props.match !== 'unmatched') continue;
    const exchange = typeof p.props.exchange === 'string' && p.props.exchange !== '' ? p.props.exchange : undefined;
    // Through an exchange the estate declares bindings for, the queues bound with a matching key; else, through an
    // exchange, a queue named as the routing key is the usual binding, not a certain one.
    const bound = exchange !== undefined ? byExchange.get(exchange) : undefined;
    const queues = bound ? new Set(bound.filter((b) => routingKeyMatches(b.key, destination)).map((b) => b.queue)) : undefined;
    // Dispatch by class (Eventuate Tram): a send whose classes the estate states reaches only the handlers of one of them.
    const classes = Array.isArray(p.props.message_types) && p.props.message_types.length ? new Set(p.props.message_types.map(String)) : undefined;
    const carries = (l: NodeRecord): boolean => classes === undefined || typeof l.props.message_type !== 'string' || classes.has(l.props.message_type);
    const found = axon ? [] : listeners.filter((l) => l.props.protocol === p.props.protocol && (queues ? queues.has(String(l.props.destination)) : l.props.destination === destination || topicPatterns.get(l)?.accepts(destination) === true) && carries(l));
    const matches = found.map((l) => (l.service === p.service ? 'intra_service' : 'cross_service'));
    p.props.match = matches.includes('cross_service') ? 'cross_service' : matches.length ? 'intra_service' : 'unmatched';
    const confidence = p.props.pinned ? 0.95 : queues ? 0.9 : exchange !== undefined ? 0.6 : p.props.resolved ? 0.9 : 0.6;
    const strategy = p.props.pinned ? 'pinned_destination' : queues ? 'exchange_binding' : exchange !== undefined ? 'routing_key' : 'destination';
    found.forEach((l, i) => {
      // A handler of one class reached by a send whose class the estate does not state: the channel alone, less sure.
      const byClass = typeof l.props.message_type === 'string' && !p.props.pinned ? (classes ? { strategy: 'destination_message_type' } : { confidence: Math.min(confidence, 0.6) }) : {};
      edges.push({ type: 'ASYNC_CALLS', from: p.id, to: l.id, attrs: { match: matches[i]!, confidence, strategy, ...byClass } });
      topology.add(p.service ?? '', l.service ?? '', String(p.props.protocol), true, confidence);
    });
    if (found.length) continue;
    const identity = `undeclared|${p.props.protocol}|${destination}`;
    let to = undeclared.get(identity);
    if (!to) {
      to = nodeId(ontology, source, 'route', identity);
      undeclared.set(identity, to);
      nodes.push({ id: to, kind: 'route', name: `${p.props.protocol} ${destination}`, qualified_name: `${p.props.protocol} ${destination}`, source, props: { protocol: String(p.props.protocol), destination, declared: false, resolved: Boolean(p.props.resolved) } });
    }
    edges.push({ type: 'ASYNC_CALLS', from: p.id, to, attrs: { match: 'unmatched', confidence: 0, strategy: 'destination' } });
  }
  return warnings;
}

/** Bindings a listener declares with its queue (`@RabbitListener(bindings = @QueueBinding(…))`). */
function annotationBindings(listeners: readonly NodeRecord[]): RabbitBinding[] {
  const out: RabbitBinding[] = [];
  for (const l of listeners) {
    const exchange = l.props.exchange;
    if (l.props.protocol !== 'rabbit' || typeof exchange !== 'string' || !exchange) continue;
    const keys = Array.isArray(l.props.binding_keys) && l.props.binding_keys.length ? l.props.binding_keys.map(String) : ['#'];
    for (const key of keys) out.push({ queue: String(l.props.destination), exchange, key, service: l.service ?? '', file: l.file ?? '', line: l.line ?? 0 });
  }
  return out;
}

/**
 * The topic pattern of each listener that has one, compiled for linear-time matching (a pattern from source can
 * make a backtracking engine run for hours). One RE2/J cannot evaluate matches nothing, with a warning naming its
 * file; an unresolved one (a placeholder without a value) is not a pattern at all.
 */
function topicPatternsOf(listeners: readonly NodeRecord[], warnings: string[]): Map<NodeRecord, { accepts: (topic: string) => boolean }> {
  const out = new Map<NodeRecord, { accepts: (topic: string) => boolean }>();
  for (const l of listeners) {
    const pattern = l.props.destination_regex;
    if (typeof pattern !== 'string' || l.props.resolved === false) continue;
    const compiled = compilePattern(pattern);
    if ('accepts' in compiled) out.set(l, compiled);
    else warnings.push(`${fileAndLine(l)}: ${l.props.protocol} topic pattern ${JSON.stringify(pattern)} of ${l.props.handler} cannot be evaluated (${compiled.error}); no producer is matched to it`);
  }
  return out;
}

/** Declared HTTP routes whose path variable regex cannot be evaluated: they match any text in that segment instead. */
export function routePatternWarnings(nodes: readonly NodeRecord[]): string[] {
  const out: string[] = [];
  for (const r of nodes) {
    if (r.kind !== 'route' || r.props.protocol !== 'http' || r.props.declared !== true) continue;
    for (const u of unsupportedPathRegexes(String(r.props.path))) out.push(`${fileAndLine(r)}: route ${r.name}: path variable regex ${JSON.stringify(u.regex)} cannot be evaluated (${u.error}); it matches any text in its segment`);
  }
  return out;
}

function fileAndLine(n: NodeRecord): string {
  return n.line ? `${n.file ?? ''}:${n.line}` : (n.file ?? '');
}

/** Calls between services, summed per pair and protocol (the strongest match's confidence). */
export class Topology {
  private readonly pairs = new Map<string, { from: string; to: string; protocol: string; calls: number; matched: number; confidence: number }>();

  add(from: string, to: string, protocol: string, matched: boolean, confidence: number): void {
    const key = `${from}\0${to}\0${protocol}`;
    const p = this.pairs.get(key) ?? { from, to, protocol, calls: 0, matched: 0, confidence: 0 };
    p.calls++;
    if (matched) p.matched++;
    p.confidence = Math.max(p.confidence, confidence);
    this.pairs.set(key, p);
  }

  /** SERVICE_CALLS edges between indexed services. */
  emit(nodes: readonly NodeRecord[], edges: EdgeRecord[]): void {
    const services = new Map(nodes.filter((n) => n.kind === 'service').map((n) => [n.name, n.id]));
    for (const p of [...this.pairs.values()].sort((x, y) => `${x.from}\0${x.to}\0${x.protocol}`.localeCompare(`${y.from}\0${y.to}\0${y.protocol}`))) {
      const a = services.get(p.from);
      const b = services.get(p.to);
      if (a && b && a !== b) edges.push({ type: 'SERVICE_CALLS', from: a, to: b, key: p.protocol, attrs: { protocol: p.protocol, calls: p.calls, matched: p.matched, confidence: p.confidence, strategy: 'client_calls' } });
    }
  }
}

