import { nodeId } from '../../graph/ids.js';
import type { Ontology } from '../../graph/ontology/index.js';
import { pathPattern } from '../../graph/ontology/code.js';
import type { EdgeRecord, NodeRecord } from '../../graph/types.js';
import { compilePattern } from '../../search/patterns.js';
import type { ServiceInfo } from './layout.js';
import { joinPath } from './routes.js';

/** A route a gateway declares in configuration: the paths it accepts and where it sends them. */
export interface GatewayRoute {
  framework: 'spring_cloud_gateway' | 'zuul';
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
  /** A filter that rewrites the path in a way not evaluated (RewritePath, SetPath): no forward is inferred. */
  opaque?: string;
  file?: string;
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
  const out: GatewayRoute[] = [];
  for (const prefix of SCG_PREFIXES) {
    for (let i = 0; config[`${prefix}[${i}].uri`] !== undefined || config[`${prefix}[${i}].id`] !== undefined; i++) {
      const base = `${prefix}[${i}]`;
      const uri = config[`${base}.uri`] ?? '';
      const predicates = listOf(config, `${base}.predicates`);
      const filters = listOf(config, `${base}.filters`);
      let strip = 0;
      let pathPrefix = '';
      let opaque: string | undefined;
      for (const f of filters) {
        const [name, args = ''] = f.split(/=(.*)/s);
        if (name === 'StripPrefix') strip = Number(args.trim()) || 0;
        else if (name === 'PrefixPath') pathPrefix = args.trim();
        else if (name === 'RewritePath' || name === 'SetPath') opaque = f;
      }
      const paths = predicates.filter((p) => p.startsWith('Path=')).flatMap((p) => p.slice(5).split(',').map((x) => x.trim()).filter(Boolean));
      for (const path of paths) {
        out.push({ framework: 'spring_cloud_gateway', id: config[`${base}.id`] ?? `${i}`, path, target: hostOf(uri), targetUri: uri, strip, prefix: pathPrefix, ...(opaque ? { opaque } : {}), ...(origin(`${base}.uri`) ? { file: origin(`${base}.uri`)! } : {}) });
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
      ...(origin(`${base}.path`) ? { file: origin(`${base}.path`)! } : {}),
    });
  }
  return out;
}

function hostOf(uri: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\/([^/:?#]+)/i.exec(uri.trim())?.[1] ?? '';
}

/** `/api/vet/**` as a regular expression over request paths. */
function globRegex(glob: string): string {
  return glob
    .split('/')
    .map((seg) => (seg === '**' ? '\u0000' : seg.replace(/[.+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]*\}/g, '[^/]+').replace(/\*/g, '[^/]*')))
    .join('/')
    .replace(/\/\u0000/g, '(?:/.*)?')
    .replace(/\u0000/g, '.*');
}

/**
 * Gateway route nodes for every service's configuration, and FORWARDS edges from each to the routes of its target
 * service a request through it can reach: the target route's path with the stripped segments put back (or the
 * added prefix taken off) must match the gateway path.
 */
export function gatewayGraph(ontology: Ontology, source: string, services: readonly ServiceInfo[], nodes: readonly NodeRecord[]): { nodes: NodeRecord[]; edges: EdgeRecord[] } {
  const out: NodeRecord[] = [];
  const edges: EdgeRecord[] = [];
  const serviceNames = new Map(services.map((s) => [s.name.toLowerCase(), s.name]));
  const routesOf = new Map<string, NodeRecord[]>();
  for (const n of nodes) if (n.kind === 'route' && n.props.protocol === 'http' && n.props.declared === true && n.service) (routesOf.get(n.service) ?? routesOf.set(n.service, []).get(n.service)!).push(n);
  for (const service of services) {
    for (const g of gatewayRoutesOf(service)) {
      const target = serviceNames.get(g.target.toLowerCase());
      const id = nodeId(ontology, source, 'route', `gateway|${service.name}|${g.framework}|${g.id}|${g.path}`);
      const rewrite = [g.strip ? `StripPrefix=${g.strip}` : '', g.prefix ? `PrefixPath=${g.prefix}` : '', g.opaque ?? ''].filter(Boolean).join(', ');
      out.push({
        id,
        kind: 'route',
        name: `ANY ${g.path}`,
        qualified_name: `${service.name} ANY ${g.path}`,
        source,
        service: service.name,
        ...(g.file ? { file: g.file } : {}),
        props: {
          protocol: 'http',
          http_method: 'ANY',
          path: g.path,
          path_pattern: pathPattern(g.path),
          path_regex: globRegex(g.path),
          framework: g.framework,
          gateway_target: `${g.targetUri}${rewrite ? ` (${rewrite})` : ''}`,
          declared: true,
          resolved: !!target && !g.opaque,
        },
      });
      if (!target || g.opaque) continue;
      const accepts = compilePattern(globRegex(g.path));
      if (!('accepts' in accepts)) continue;
      const kept = g.path.split('/').filter(Boolean).slice(0, g.strip);
      for (const r of routesOf.get(target) ?? []) {
        const path = String(r.props.path_pattern);
        if (g.prefix && !path.startsWith(g.prefix)) continue;
        const forwarded = g.prefix ? path.slice(g.prefix.length) || '/' : path;
        const outside = joinPath(`/${kept.join('/')}`, forwarded).replace(/\{\}/g, 'x');
        if (accepts.accepts(outside)) edges.push({ type: 'FORWARDS', from: id, to: r.id, attrs: { confidence: 0.9, strategy: g.framework === 'zuul' ? 'zuul_route' : 'gateway_route' } });
      }
    }
  }
  return { nodes: out, edges };
}
