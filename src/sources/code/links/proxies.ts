import { dirname } from 'node:path';
import { nodeId } from '../../../graph/ids.js';
import type { Ontology } from '../../../graph/ontology/index.js';
import { pathPattern } from '../../../graph/ontology/code.js';
import type { EdgeRecord, NodeRecord } from '../../../graph/types.js';
import { requestPathFor, selectLocation, type NginxServer } from '../config/deployment.js';
import { httpdAccepts } from '../config/httpd.js';
import { forwardReaches, globRegex, httpRoutesByService, literalSegments } from './gateways.js';
import { pathRegex } from './routes.js';
import { type DeploymentOnly, hostIndex, type LayoutProxy, type ProxyKind, type ServiceInfo } from '../config/layout.js';

/**
 * A service the estate deploys without code of its own (an nginx container, a Debezium connector), named by its
 * deployment (`name_from: deployment`).
 */
export function deploymentService(ontology: Ontology, source: string, name: string, file: string, hosts?: readonly string[]): NodeRecord {
  const directory = dirname(file) === '.' ? '' : dirname(file);
  return {
    id: nodeId(ontology, source, 'service', name),
    kind: 'service',
    name,
    qualified_name: name,
    source,
    service: name,
    file,
    props: { name_from: 'deployment', build_tool: 'none', directory, modules: [], files: 0, ...(hosts ? { hosts: [...new Set(hosts)].sort() } : {}) },
  };
}

/** How each proxy's rules read: the directive a route's target names, and what names the server it belongs to. */
const PROXY_SYNTAX: Record<ProxyKind, { directive: (rule: LayoutProxy) => string; serverName: string }> = {
  nginx: { directive: () => 'proxy_pass', serverName: 'server_name' },
  httpd: { directive: (rule) => (rule.location.kind === 'regex' ? 'ProxyPassMatch' : 'ProxyPass'), serverName: 'ServerName' },
};

/**
 * The path a location matches, as a route path: `location /api/` → `/api/**`, `location = /x` → `/x`; httpd's
 * `ProxyPass /api` takes whole segments → `/api/** A path variable's stand-in while a route's path is mapped back through a rule (a value no literal equals). */
const VARIABLE = 'x\u0001';

/**`.
 */
function routePath(rule: LayoutProxy): { path: string; regex: string } {
  const { kind, path } = rule.location;
  if (rule.kind === 'httpd' && kind === 'prefix') {
    if (path.endsWith('/')) return { path: `${path}**`, regex: `${globRegex(path.slice(0, -1))}/.*` };
    return { path: `${path}/**`, regex: globRegex(`${path}/**`) };
  }
  if (kind === 'exact') return { path, regex: globRegex(path) };
  if (kind === 'prefix' || kind === 'prefix_no_regex') {
    const glob = path.endsWith('/') ? `${path}**` : `${path}*`;
    return { path: glob, regex: globRegex(glob).replace(/\[\^\/\]\*$/, '.*') };
  }
  return { path: `~${kind === 'regex' ? '' : '*'} ${path}`, regex: `(?s:.*)(?${kind === 'regex' ? '' : 'i'}:${path})(?s:.*)` };
}

/**
 * nginx `location … { proxy_pass …; }` and httpd `ProxyPass` rules as routes of the service that runs the proxy (a
 * service of its own, named by its deployment host, when no estate service owns the file), each FORWARDING to the
 * routes of the services it reaches that a request through it can land on: the target route's path mapped back
 * through the rule (prefix replacement included) must be a request the proxy would send through this rule: the
 * location nginx picks in its server, the first of its virtual host's rules that takes it for httpd.
 */
export function proxyGraph(ontology: Ontology, source: string, proxies: readonly LayoutProxy[], servers: readonly NginxServer[], services: readonly ServiceInfo[], nodes: readonly NodeRecord[], deploymentOnly: readonly DeploymentOnly[] = []): { nodes: NodeRecord[]; edges: EdgeRecord[] } {
  const out: NodeRecord[] = [];
  const edges: EdgeRecord[] = [];
  if (!proxies.length) return { nodes: out, edges };
  const known = new Set(services.map((s) => s.name));
  // A proxy_pass to an image the deployment runs without its source here: that image is a service once proxied to.
  const images = hostIndex(deploymentOnly.filter((d) => !d.proxy));
  const imageNodes = new Map<string, NodeRecord>();
  const imageOf = (host: string): string | undefined => {
    const name = images.get(host);
    const d = name === undefined ? undefined : deploymentOnly.find((x) => x.name === name);
    if (!d || known.has(d.name)) return name;
    if (!imageNodes.has(d.name)) imageNodes.set(d.name, deploymentService(ontology, source, d.name, d.file, d.hosts.length ? d.hosts : [d.name]));
    return d.name;
  };
  const routesOf = httpRoutesByService(nodes);
  const proxyServices = new Map<string, NodeRecord>();
  const virtualHosts = new Map<string, LayoutProxy[]>();
  for (const rule of proxies) {
    if (rule.kind !== 'httpd') continue;
    const key = `${rule.file}\u0000${rule.serverLine}`;
    (virtualHosts.get(key) ?? virtualHosts.set(key, []).get(key)!).push(rule);
  }
  for (const rule of proxies) {
    const service = rule.service ?? rule.hosts[0] ?? rule.kind;
    if (!known.has(service) && !proxyServices.has(service)) proxyServices.set(service, deploymentService(ontology, source, service, rule.file, rule.hosts.length ? rule.hosts : [service]));
    const { path, regex } = routePath(rule);
    const literal = literalSegments(path);
    const targets = [...new Set([...rule.targetServices, ...rule.targetHosts.filter((h) => !rule.targetServices.length).map(imageOf).filter((x): x is string => !!x)])].sort();
    const id = nodeId(ontology, source, 'route', `proxy|${rule.file}|${rule.line}|${rule.location.kind} ${rule.location.path}`);
    out.push({
      id,
      kind: 'route',
      name: `ANY ${path}`,
      qualified_name: `${service} ANY ${path}`,
      source,
      service,
      file: rule.file,
      // A route is where it is declared: the `location` (the proxy_pass inside it says where it goes).
      line: rule.location.line || rule.line,
      props: {
        protocol: 'http',
        http_method: 'ANY',
        path,
        path_pattern: pathPattern(path),
        path_regex: regex,
        framework: rule.kind,
        gateway_target: `${PROXY_SYNTAX[rule.kind].directive(rule)} ${rule.proxyPass}${rule.serverNames.length ? ` (${PROXY_SYNTAX[rule.kind].serverName} ${rule.serverNames.join(' ')})` : ''}`,
        ...(targets.length ? { target_services: targets } : {}),
        declared: true,
        resolved: rule.targetServices.length > 0 && rule.pathMode !== 'unknown',
      },
    });
    const server = rule.kind === 'nginx' ? servers.find((s) => s.file === rule.file && s.line === rule.serverLine) : undefined;
    const siblings = rule.kind === 'httpd' ? (virtualHosts.get(`${rule.file}\u0000${rule.serverLine}`) ?? []) : [];
    for (const target of rule.targetServices) {
      for (const r of routesOf.get(target) ?? []) {
        const targetPath = String(r.props.path_pattern).replace(/\{\}/g, VARIABLE);
        const request = rule.kind === 'httpd' ? requestPathFor(rule, targetPath, httpdAccepts) : requestPathFor(rule, targetPath);
        if (request === undefined || !forwardReaches(r, request, literal)) continue;
        if (server && selectLocation(server.locations, request)?.line !== rule.location.line) continue;
        if (rule.kind === 'httpd' && siblings.find((s) => httpdAccepts(s.location, request)) !== rule) continue;
        const requestPath = request.split(VARIABLE).join('{}');
        edges.push({ type: 'FORWARDS', from: id, to: r.id, attrs: { confidence: 0.85, strategy: 'proxy_location', request_path: requestPath, request_regex: pathRegex(requestPath) } });
      }
    }
  }
  return { nodes: [...proxyServices.values(), ...[...imageNodes.values()].filter((n) => !proxyServices.has(n.name)), ...out], edges };
}
