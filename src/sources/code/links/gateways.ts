import { nodeId } from '../../../graph/ids.js';
import type { Ontology } from '../../../graph/ontology/index.js';
import { pathPattern } from '../../../graph/ontology/code.js';
import type { EdgeRecord, NodeRecord } from '../../../graph/types.js';
import { compilePattern } from '../../../search/patterns.js';
import type { CallFacts } from '../parse/ir.js';
import { hostIndex, type ServiceInfo } from '../config/layout.js';
import { resolvePlaceholders } from '../config/spring-config.js';
import type { MemberEntry } from '../model/model.js';
import { joinPath, pathRegex } from './routes.js';

/** A route a gateway declares in configuration: the paths it accepts and where it sends them. */
export interface GatewayRoute {
  framework: 'spring_cloud_gateway' | 'zuul' | 'nginx';
  id: string;
  /** Ant-style path pattern (`/api/vet/**`). */
  path: string;
  /** The target: a service name (lb://, serviceId) or a URL host. */
  target: string;
  targetUri: string;
  /** Leading path segments removed before forwarding (StripPrefix, Zuul stripPrefix). */
  strip: number;
  /** A prefix added before forwarding (PrefixPath). */
  prefix: string;
  /** RewritePath of one literal prefix to another (`/api/(?<segment>.*)` → `/${segment}`). */
  rewrite?: { from: string; to: string };
  /** A filter that rewrites the path in a way not evaluated (SetPath, a RewritePath with other groups): no forward is inferred. */
  opaque?: string;
  /** Host predicates (`Host=**.example.org`). */
  hosts?: string[];
  file?: string;
  line?: number;
}

/**
 * `RewritePath=<regex>, <replacement>` when it swaps one literal prefix for another: `^/api/(?<segment>.*)` with
 * `/$\{segment}` (YAML escapes `$`), `/red/?(?<s>/?.*)` with `${s}`, `(.*)` with `$1`.
 */
export function rewriteOf(regex: string, replacement: string): { from: string; to: string } | undefined {
  const r = regex.trim().replace(/^\^/, '').replace(/\$$/, '');
  const open = r.indexOf('(');
  if (open < 0) return undefined;
  let from = r.slice(0, open);
  const group = r.slice(open);
  const named = /^\((?:\?<(\w+)>)?(?:\/\?)?\.\*\)$/.exec(group);
  if (!named) return undefined;
  if (from.endsWith('/?')) from = `${from.slice(0, -2)}/`;
  if (/(?<!\\)[.*+?()[\]{}|^$]/.test(from)) return undefined;
  from = from.replace(/\\(.)/g, '$1');
  const name = named[1];
  const rep = /^(.*?)(?:\$\\?\{(\w+)\}|\$(\d))$/.exec(replacement.trim());
  if (!rep || /[$\\]/.test(rep[1]!)) return undefined;
  if (rep[2] !== undefined ? rep[2] !== name : rep[3] !== '1' || name !== undefined) return undefined;
  return { from, to: rep[1]! };
}

const SCG_PREFIXES = ['spring.cloud.gateway.routes', 'spring.cloud.gateway.server.webflux.routes', 'spring.cloud.gateway.server.webmvc.routes', 'spring.cloud.gateway.mvc.routes'];

function listOf(config: Readonly<Record<string, string>>, key: string): string[] {
  const out: string[] = [];
  for (let i = 0; config[`${key}[${i}]`] !== undefined || Object.keys(config).some((k) => k.startsWith(`${key}[${i}].`)); i++) {
    out.push(config[`${key}[${i}]`] ?? shortcutOf(config, `${key}[${i}]`));
  }
  return out;
}

/** The fully expanded form (`name: Path`, `args: {pattern: …}`) as its shortcut (`Path=…`). */
function shortcutOf(config: Readonly<Record<string, string>>, key: string): string {
  const name = config[`${key}.name`] ?? '';
  const args = Object.keys(config)
    .filter((k) => k.startsWith(`${key}.args.`))
    .sort()
    .map((k) => config[k]!);
  return `${name}=${args.join(',')}`;
}

/** Spring Cloud Gateway and Zuul routes in a service's configuration. */
export function gatewayRoutesOf(service: ServiceInfo): GatewayRoute[] {
  const config = service.config;
  const origin = (key: string) => service.configOrigins?.[key];
  // Where a route is written: its file and the line of its first key (`- id:`, `zuul.routes.<name>.path`).
  const at = (...keys: string[]): { file?: string; line?: number } => {
    for (const key of keys) {
      const file = origin(key);
      if (file === undefined) continue;
      const own = /^(.*):(\d+)$/.exec(file);
      if (own) return { file: own[1]!, line: Number(own[2]) };
      const line = service.configLines?.[key];
      return { file, ...(line ? { line } : {}) };
    }
    return {};
  };
  const out: GatewayRoute[] = [];
  for (const prefix of SCG_PREFIXES) {
    for (let i = 0; config[`${prefix}[${i}].uri`] !== undefined || config[`${prefix}[${i}].id`] !== undefined; i++) {
      const base = `${prefix}[${i}]`;
      const uri = config[`${base}.uri`] ?? '';
      const predicates = listOf(config, `${base}.predicates`);
      const filters = listOf(config, `${base}.filters`);
      const rewriting = filtersOf(filters.map((f) => f.split(/=(.*)/s) as [string, string?]).map(([name, args = '']) => ({ name, args: name === 'RewritePath' ? splitRewrite(args) : [args.trim()] })));
      const paths = predicates.filter((p) => p.startsWith('Path=')).flatMap((p) => p.slice(5).split(',').map((x) => x.trim()).filter(Boolean));
      const hosts = predicates.filter((p) => p.startsWith('Host=')).flatMap((p) => p.slice(5).split(',').map((x) => x.trim()).filter(Boolean));
      for (const path of paths) {
        out.push({ framework: 'spring_cloud_gateway', id: config[`${base}.id`] ?? `${i}`, path, target: hostOf(uri), targetUri: uri, ...rewriting, ...(hosts.length ? { hosts } : {}), ...at(`${base}.id`, `${base}.uri`) });
      }
    }
  }
  const zuulPrefix = config['zuul.prefix'] ?? '';
  const names = new Set(Object.keys(config).filter((k) => k.startsWith('zuul.routes.')).map((k) => k.slice('zuul.routes.'.length).split('.')[0]!));
  for (const name of [...names].sort()) {
    const base = `zuul.routes.${name}`;
    const path = config[`${base}.path`] ?? `/${name}/**`;
    const url = config[`${base}.url`];
    const serviceId = config[`${base}.serviceId`] ?? config[`${base}.service-id`] ?? (url ? undefined : name);
    const stripped = (config[`${base}.stripPrefix`] ?? config[`${base}.strip-prefix`] ?? 'true') !== 'false';
    const literal = path.replace(/\/\*\*$/, '').replace(/\/\*$/, '');
    out.push({
      framework: 'zuul',
      id: name,
      path: joinPath(zuulPrefix, path),
      target: serviceId ?? hostOf(url ?? ''),
      targetUri: serviceId ? `serviceId ${serviceId}` : (url ?? ''),
      strip: stripped ? literal.split('/').filter(Boolean).length : 0,
      prefix: '',
      ...at(`${base}.path`, `${base}.url`, `${base}.serviceId`, `${base}.service-id`),
    });
  }
  return out;
}

const LOCATOR_PREFIXES = ['spring.cloud.gateway.discovery.locator', 'spring.cloud.gateway.server.webflux.discovery.locator'];

/**
 * The discovery locator (`spring.cloud.gateway.discovery.locator.enabled: true`): a route `/<service-id>/**` to
 * `lb://<service-id>` for every other service of the estate, its prefix rewritten away. The service id is the
 * registry's: lower case with `lower-case-service-id: true`, else as the service names itself (Eureka upper-cases
 * it; paths are matched as written).
 */
function discoveryRoutesOf(gateway: ServiceInfo, services: readonly ServiceInfo[]): GatewayRoute[] {
  const prefix = LOCATOR_PREFIXES.find((p) => gateway.config[`${p}.enabled`] === 'true');
  if (!prefix) return [];
  const lower = gateway.config[`${prefix}.lower-case-service-id`] === 'true' || gateway.config[`${prefix}.lowerCaseServiceId`] === 'true';
  const origin = gateway.configOrigins?.[`${prefix}.enabled`];
  const own = origin === undefined ? null : /^(.*):(\d+)$/.exec(origin);
  const file = own ? own[1]! : origin;
  const line = own ? Number(own[2]) : gateway.configLines?.[`${prefix}.enabled`];
  return services
    .filter((s) => s.name !== gateway.name && s.nameFrom === 'spring.application.name')
    .map((s) => {
      const id = lower ? s.name.toLowerCase() : s.name;
      return { framework: 'spring_cloud_gateway', id: `discovery:${id}`, path: `/${id}/**`, target: s.name, targetUri: `lb://${id}`, strip: 0, prefix: '', rewrite: { from: `/${id}/`, to: '/' }, ...(file ? { file } : {}), ...(line ? { line } : {}) } satisfies GatewayRoute;
    });
}

/** `regex, replacement` (the replacement has no comma; the regex may). */
function splitRewrite(args: string): string[] {
  const cut = args.lastIndexOf(',');
  return cut < 0 ? [args] : [args.slice(0, cut).trim(), args.slice(cut + 1).trim()];
}

/** What a route's filters do to the path: StripPrefix, PrefixPath, RewritePath (a prefix swap), else opaque. */
export function filtersOf(filters: readonly { name: string; args: string[] }[]): Pick<GatewayRoute, 'strip' | 'prefix' | 'rewrite' | 'opaque'> {
  let strip = 0;
  let prefix = '';
  let rewrite: GatewayRoute['rewrite'];
  let opaque: string | undefined;
  for (const f of filters) {
    const name = f.name.charAt(0).toUpperCase() + f.name.slice(1);
    if (name === 'StripPrefix') strip = Number(f.args[0]?.trim()) || 0;
    else if (name === 'PrefixPath') prefix = f.args[0]?.trim() ?? '';
    else if (name === 'RewritePath') {
      rewrite = f.args.length === 2 ? rewriteOf(f.args[0]!, f.args[1]!) : undefined;
      if (!rewrite) opaque = `RewritePath=${f.args.join(', ')}`;
    } else if (name === 'SetPath') opaque = `SetPath=${f.args.join(', ')}`;
  }
  return { strip, prefix, ...(rewrite ? { rewrite } : {}), ...(opaque ? { opaque } : {}) };
}

/**
 * The hosts a route's target can be: its host as written, or, when its URI has `${…}` placeholders
 * (`http://${app.auth-server}`), the host each layer of the gateway's configuration gives it — the default
 * profile's and every other profile's and deployment environment's (`localhost` by default, `auth-server` in profile
 * docker): a gateway runs with one of them, and each is a place it sends requests.
 */
function targetHostsOf(route: GatewayRoute, service: ServiceInfo | undefined): string[] {
  if (!route.targetUri.includes('${') || !service) return route.target ? [route.target] : [];
  const base = new Map(Object.entries(service.config));
  const layers = [base, ...Object.keys(service.profiles).sort().map((p) => new Map([...base, ...Object.entries(service.profiles[p]!)]))];
  const hosts: string[] = [];
  for (const layer of layers) {
    const uri = resolvePlaceholders(route.targetUri, layer);
    const host = uri === undefined ? '' : hostOf(uri);
    if (host && !host.includes('$') && !hosts.includes(host)) hosts.push(host);
  }
  return hosts;
}

function hostOf(uri: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\/([^/:?#]+)/i.exec(uri.trim())?.[1] ?? '';
}

/** `/api/vet/**` as a regular expression over request paths. */
export function globRegex(glob: string): string {
  return glob
    .split('/')
    .map((seg) => (seg === '**' ? '\u0000' : seg.replace(/[.+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]*\}/g, '[^/]+').replace(/\*/g, '[^/]*')))
    .join('/')
    .replace(/\/\u0000/g, '(?:/.*)?')
    .replace(/\u0000/g, '.*');
}

/** The declared HTTP routes of each service: what a gateway or proxy can forward to. */
export function httpRoutesByService(nodes: readonly NodeRecord[]): Map<string, NodeRecord[]> {
  const out = new Map<string, NodeRecord[]>();
  for (const n of nodes) if (n.kind === 'route' && n.props.protocol === 'http' && n.props.declared === true && n.service) (out.get(n.service) ?? out.set(n.service, []).get(n.service)!).push(n);
  return out;
}

/** The whole segments a gateway or proxy path states before its first wildcard (`/api/vet/**` → `api`, `vet`). */
export function literalSegments(gatewayPath: string): string[] {
  const head = gatewayPath.split(/[*{?]/)[0]!;
  return (head === gatewayPath ? head.split('/') : head.split('/').slice(0, -1)).filter(Boolean);
}

/**
 * Whether a gateway or proxy that forwards `request` reaches a route of its target, given the gateway path's
 * `literalSegments`. Actuator routes on management.server.port are not behind the main port at all; the others only
 * when the gateway names a path inside the actuator in its literal part (`/actuator/**`, `/api/vet/actuator/**`): a
 * catch-all (`/api/vet/**`) reaches them only incidentally, and listing health endpoints behind every route would
 * hide the routes it was written for.
 */
export function forwardReaches(route: NodeRecord, request: string, literal: readonly string[]): boolean {
  if (route.props.framework !== 'actuator') return true;
  if (route.props.management_port !== undefined) return false;
  const context = String(route.props.context_path ?? '');
  const base = String(route.props.path).slice(context.length).split('/').filter(Boolean)[0];
  const covered = request.split('/').filter(Boolean).slice(0, literal.length);
  return base !== undefined && covered.includes(base);
}

/**
 * Gateway route nodes for every service's configuration, and FORWARDS edges from each to the routes of its target
 * service a request through it can reach: the target route's path with the stripped segments put back (or the
 * added prefix taken off) must match the gateway path.
 */
export function gatewayGraph(ontology: Ontology, source: string, services: readonly ServiceInfo[], nodes: readonly NodeRecord[], declared: readonly { service: string; route: GatewayRoute }[] = []): { nodes: NodeRecord[]; edges: EdgeRecord[] } {
  const out: NodeRecord[] = [];
  const edges: EdgeRecord[] = [];
  const serviceNames = new Map(services.map((s) => [s.name.toLowerCase(), s.name]));
  for (const [host, service] of hostIndex(services)) if (!serviceNames.has(host)) serviceNames.set(host, service);
  const routesOf = httpRoutesByService(nodes);
  const infoOf = new Map(services.map((s) => [s.name, s]));
  const all = [...services.flatMap((service) => [...gatewayRoutesOf(service), ...discoveryRoutesOf(service, services)].map((route) => ({ service: service.name, route }))), ...declared];
  for (const { service, route: g } of all) {
    const info = infoOf.get(service);
    const targets = [...new Set(targetHostsOf(g, info).map((h) => serviceNames.get(h.toLowerCase())).filter((t): t is string => t !== undefined))].sort();
    const id = nodeId(ontology, source, 'route', `gateway|${service}|${g.framework}|${g.id}|${g.path}`);
    const rewrite = [g.hosts?.length ? `Host=${g.hosts.join(',')}` : '', g.strip ? `StripPrefix=${g.strip}` : '', g.prefix ? `PrefixPath=${g.prefix}` : '', g.rewrite ? `RewritePath=${g.rewrite.from} -> ${g.rewrite.to}` : '', g.opaque ?? ''].filter(Boolean).join(', ');
    out.push({
      id,
      kind: 'route',
      name: `ANY ${g.path}`,
      qualified_name: `${service} ANY ${g.path}`,
      source,
      service,
      ...(g.file ? { file: g.file } : {}),
      ...(g.line !== undefined ? { line: g.line } : {}),
      props: {
        protocol: 'http',
        http_method: 'ANY',
        path: g.path,
        path_pattern: pathPattern(g.path),
        path_regex: globRegex(g.path),
        framework: g.framework,
        gateway_target: `${g.targetUri}${rewrite ? ` (${rewrite})` : ''}`,
        ...(targets.length ? { target_services: targets } : {}),
        declared: true,
        resolved: targets.length > 0 && !g.opaque,
      },
    });
    if (!targets.length || g.opaque) continue;
    const accepts = compilePattern(globRegex(g.path));
    if (!('accepts' in accepts)) continue;
    const kept = g.path.split('/').filter(Boolean).slice(0, g.strip);
    const literal = literalSegments(g.path);
    for (const r of targets.flatMap((t) => routesOf.get(t) ?? [])) {
      let path = String(r.props.path_pattern);
      if (g.rewrite) {
        if (!path.startsWith(g.rewrite.to)) continue;
        path = `${g.rewrite.from}${path.slice(g.rewrite.to.length)}`.replace(/\/{2,}/g, '/');
      }
      if (g.prefix && !path.startsWith(g.prefix)) continue;
      const forwarded = g.prefix ? path.slice(g.prefix.length) || '/' : path;
      const request = joinPath(`/${kept.join('/')}`, forwarded);
      if (accepts.accepts(request.replace(/\{\}/g, 'x')) && forwardReaches(r, request, literal)) edges.push({ type: 'FORWARDS', from: id, to: r.id, attrs: { confidence: 0.9, strategy: g.framework === 'zuul' ? 'zuul_route' : 'gateway_route', request_path: request, request_regex: pathRegex(request) } });
    }
  }
  return { nodes: out, edges };
}

/** The string values an argument can take (known ones only), as the evaluator gives them. */
export type ArgValues = (call: CallFacts, index: number) => string[];

const DSL_FILTERS = new Set(['stripPrefix', 'prefixPath', 'rewritePath', 'setPath']);

/**
 * Routes of the Spring Cloud Gateway Java DSL in one `@Bean` method: each `builder.routes().route(id, r -> r.path(…)
 * .filters(f -> f.stripPrefix(1)).uri("lb://service"))`. The lambdas' parameters have no declared type, so a route's
 * predicates and filters are the lambda calls between its `route(…)` call and the next one.
 */
export function dslGatewayRoutes(member: MemberEntry, routeCalls: readonly CallFacts[], argValues: ArgValues): GatewayRoute[] {
  const out: GatewayRoute[] = [];
  const starts = [...routeCalls].sort((a, b) => a.line - b.line);
  starts.forEach((start, i) => {
    const end = i + 1 < starts.length ? starts[i + 1]!.line - 1 : member.facts.endLine;
    const inside = member.facts.calls.filter((c) => c.inLambda && c.kind === 'call' && c.line >= start.line && c.line <= end);
    const first = (name: string) => inside.find((c) => c.name === name);
    const uri = first('uri');
    if (!uri) return;
    const targetUri = argValues(uri, 0)[0];
    if (targetUri === undefined) return;
    const paths = inside.filter((c) => c.name === 'path').flatMap((c) => c.args.flatMap((_, n) => argValues(c, n)));
    const hosts = inside.filter((c) => c.name === 'host').flatMap((c) => c.args.flatMap((_, n) => argValues(c, n)));
    const filters = inside.filter((c) => DSL_FILTERS.has(c.name)).map((c) => ({ name: c.name, args: c.args.map((written, n) => argValues(c, n)[0] ?? written) }));
    const id = start.argCount >= 2 ? (argValues(start, 0)[0] ?? `${i}`) : `${i}`;
    for (const path of paths.length ? paths : ['/**']) {
      out.push({ framework: 'spring_cloud_gateway', id, path, target: hostOf(targetUri), targetUri, ...filtersOf(filters), ...(hosts.length ? { hosts } : {}), file: member.owner.file.path, line: start.line });
    }
  });
  return out;
}
