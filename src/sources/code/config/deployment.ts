/**
 * What an estate's own deployment files say about its services: docker compose services, Kubernetes workloads and
 * Ingresses, the values of well-known Helm charts, NAIS applications (environment, images, build contexts, the names
 * they are reached by, per environment where the platform has environments), nginx and Apache httpd reverse-proxy rules
 * and the seed of a Nacos config server. Pure readers:
 * text in, facts out; a file that does not parse is a warning naming `file:line` and is skipped, never a crash.
 * Values the files leave to the environment they run in (`$CONFIG_SERVICE_PASSWORD`, a Kubernetes secret) stay
 * unknown, with the reason, and are never guessed.
 */
import YAML from 'yaml';
import { anchorTargets, expandedSize, MAX_FLOW_DEPTH, parseYaml } from './yaml.js';
import { readYaml, type YamlCodec } from './yaml-recall.js';
import { isHttpdFile, mentionsHttpdProxy } from './httpd.js';
import { isNacosSeedFile, mentionsNacosConfig, type NacosConfig, readNacosSeed } from './nacos.js';
import { matchingBrace } from './spring-config.js';
import { patternAccepts } from '../../../search/patterns.js';

// ---------------------------------------------------------------------------------------------------------------
// Types

/** One environment variable a deployment file gives a container. */
export interface EnvEntry {
  name: string;
  /** The value, when the file states it (compose defaults `${X:-d}` applied, `$$` unescaped). */
  value?: string;
  /** Why the value is not known, when it is not, as a predicate (`comes from $CONFIG_SERVICE_PASSWORD of the environment docker compose runs in`). */
  unknown?: string;
  /** As written (`$CONFIG_SERVICE_PASSWORD`, `secretKeyRef orders-db/password`). */
  written: string;
  file: string;
  line: number;
  /** A Kubernetes `configMapKeyRef`, resolved against the estate's ConfigMaps by {@link readDeployment}. */
  configMapRef?: { name: string; key: string };
  /**
   * Parts of `value` the deployment leaves to the platform, written there as `${key}` placeholders: a Helm template
   * (`{{ .Values.global.environment }}` → `${.Values.global.environment}`), a pipeline substitution in a values
   * template (`${SERVICE_FQDN}` → `${$SERVICE_FQDN}`). Key → why it is not known. Such keys never name configuration.
   */
  holes?: Record<string, string>;
}

/**
 * A name the cluster DNS gives a Kubernetes Service (or a workload, or a NAIS application): `name`,
 * `name.namespace`, `name.namespace.svc`, `name.namespace.svc.cluster.local`.
 */
export interface DnsName {
  name: string;
  /** The namespace the manifests give; absent when they give none (applied to whichever namespace: any). */
  namespace?: string;
}

/** A bind mount of a compose service: `source` inside the estate (posix, relative to the root), `target` in the container. */
export interface Bind {
  source: string;
  target: string;
}

/** A service of one compose file. Paths are posix, relative to the estate root. */
export interface ComposeService {
  /** The key under `services:`. */
  name: string;
  file: string;
  line: number;
  containerName?: string;
  hostname?: string;
  /** `networks.<net>.aliases`. */
  aliases: string[];
  image?: string;
  /** `build` (its context directory and Dockerfile), when inside the estate. */
  build?: { context: string; dockerfile?: string };
  /** Bind-mounted sources inside the estate (`./nginx/nginx.conf:/etc/nginx/nginx.conf` → `nginx/nginx.conf`). */
  mounts: string[];
  /** The same bind mounts with where the container sees them (`{source: 'config-repo', target: '/config-repo'}`), in file order. */
  binds?: Bind[];
  /** `env_file` entries inside the estate, in order. */
  envFiles: string[];
  /** `environment`, in file order, one entry per name (the last one written). */
  env: EnvEntry[];
  /** Host ports it publishes (`ports: ["8099:80"]` → 8099), in file order. */
  publishedPorts: number[];
}

export interface KubeContainer {
  name: string;
  image?: string;
  line: number;
  env: EnvEntry[];
  /** `envFrom`: every key of a ConfigMap or Secret, with an optional prefix. */
  envFrom: { configMap?: string; secret?: string; prefix: string; line: number }[];
}

export interface KubeWorkload {
  kind: 'Deployment' | 'StatefulSet' | 'DaemonSet' | 'ReplicaSet' | 'Job' | 'CronJob' | 'Pod' | 'DeploymentConfig';
  name: string;
  namespace?: string;
  /** The labels of its pods (what a Service selects). */
  labels: Record<string, string>;
  /** StatefulSet `serviceName`. */
  serviceName?: string;
  file: string;
  line: number;
  containers: KubeContainer[];
}

export interface KubeService {
  name: string;
  namespace?: string;
  selector: Record<string, string>;
  ports: { name?: string; port?: string; targetPort?: string }[];
  file: string;
  line: number;
}

/** An Ingress: each rule's host and the Services its paths send to. */
export interface KubeIngress {
  name: string;
  namespace?: string;
  rules: { host: string; services: string[]; line: number }[];
  /** `defaultBackend` (`backend` in v1beta1): takes the requests no rule matches, from any host the rules name. */
  defaultService?: string;
  file: string;
  line: number;
}

/** A NAIS application (`nais.io/v1alpha1` `Application`): one app, its container's environment and how it is reached. */
export interface NaisApplication {
  name: string;
  namespace?: string;
  file: string;
  line: number;
  image?: string;
  env: EnvEntry[];
  /** `spec.ingresses`, as hosts. */
  ingresses: string[];
  /** `spec.accessPolicy.outbound.rules`: the applications it is allowed to call. */
  outbound: { application: string; namespace?: string; cluster?: string; line: number }[];
}

export interface KubeConfigMap {
  name: string;
  namespace?: string;
  data: Record<string, { value: string; line: number }>;
  file: string;
  line: number;
}

export type LocationKind = 'prefix' | 'exact' | 'regex' | 'regex_case_insensitive' | 'prefix_no_regex' | 'named';

/** An nginx `location` that passes requests on with `proxy_pass`. */
export interface ProxyRule {
  file: string;
  /** The line of the `proxy_pass` directive. */
  line: number;
  /** The line of the enclosing `server` block (with `file`, it names the {@link NginxServer}). */
  serverLine: number;
  /** `server_name`s of the enclosing server block (empty: any). */
  serverNames: string[];
  /** `listen` values as written (`80`, `443 ssl` → `443`). */
  listen: string[];
  location: { kind: LocationKind; path: string; line: number };
  /** As written. */
  proxyPass: string;
  /** The upstream block the host names, when it does. */
  upstream?: string;
  /** Hosts requests go to: the proxy_pass host, or the server hosts of its upstream block. Without ports. */
  targetHosts: string[];
  /** The URI part of proxy_pass (`http://orders:8080/api/` → `/api/`), when it has one. */
  targetPath?: string;
  /**
   * How the request path reaches the target (nginx semantics): `pass` unchanged (no URI part); `replace_prefix`
   * the part matching the location (prefix or exact) replaced by `targetPath`; `replace_all` the whole URI replaced
   * by `targetPath` (proxy_pass with variables); `unknown` (a rewrite, or a URI part on a regex location).
   */
  pathMode: 'pass' | 'replace_prefix' | 'replace_all' | 'unknown';
  /** Why the target is not known, when it is not (a variable host, a unix socket). */
  unresolved?: string;
  /** `rewrite` directives in effect in the location, as written: the path sent is not evaluated. */
  rewrites?: string[];
  /** The `if (…)` a proxy_pass sits in, as written. */
  condition?: string;
}

/** A location of a server block, nested ones below it: what nginx chooses among for a request. */
export interface NginxLocation {
  kind: LocationKind;
  path: string;
  line: number;
  /** Whether it passes requests on (`proxy_pass`, not only under an `if`). */
  proxies: boolean;
  children: NginxLocation[];
}

export interface NginxServer {
  file: string;
  line: number;
  serverNames: string[];
  listen: string[];
  locations: NginxLocation[];
}

export interface NginxUpstream {
  name: string;
  hosts: string[];
  file: string;
  line: number;
}

/**
 * A compose service (its files merged), one container of a Kubernetes workload, the deployment one values file of a
 * well-known Helm chart describes, or one NAIS application manifest.
 */
export interface DeploymentUnit {
  kind: 'compose' | 'kubernetes' | 'helm' | 'nais';
  /** `docker-compose.yml#config`, `k8s/orders.yaml#Deployment/orders/app`, `helm_deploy/values-dev.yaml#generic-service`, `.nais/prod.yaml#Application/team/app`. */
  id: string;
  /** The compose key, the Kubernetes workload's name, the Helm chart's (or its `fullnameOverride`), the NAIS application's. */
  name: string;
  /** The Kubernetes container's name. */
  container?: string;
  /** The Kubernetes workload it is a container of (`k8s/orders.yaml#Deployment/orders`). */
  workload?: string;
  /** Files that define it (a compose service in override files too), in the order they apply. */
  files: string[];
  line: number;
  /** container_name (compose), container name (Kubernetes). */
  containerNames: string[];
  images: string[];
  /** Build context directories inside the estate. */
  buildContexts: string[];
  /** Dockerfiles inside the estate. */
  dockerfiles: string[];
  mounts: string[];
  /** Compose bind mounts: a directory or file of the estate and the absolute path the container sees it at. */
  binds?: Bind[];
  /** One per name, resolved: override files applied, ConfigMaps and `$(VAR)` references followed. */
  env: EnvEntry[];
  /** The names other containers may address it by (ingress hosts included), sorted. */
  hosts: string[];
  /**
   * The environment the file describes, when the platform deploys per environment: `dev` of a Helm
   * `values-dev.yaml` or `values.dev.template.yaml`, `preprod` of a NAIS `nais-preprod.yaml`. Absent: every environment.
   */
  environment?: string;
  /** Names the cluster DNS resolves to it (Services selecting it, the workload, a NAIS application), sorted. */
  dnsNames?: DnsName[];
  /** Hosts of Ingresses (manifests, Helm ingress values, NAIS `ingresses`) that route to it; in `hosts` too. */
  ingressHosts?: string[];
  /** Ingress hosts with parts left to the platform, written with `${key}` holes as {@link EnvEntry.holes} are. */
  hostTemplates?: string[];
  /** Host ports a compose service publishes (what `localhost:<port>` reaches). */
  publishedPorts?: number[];
  /** Directories whose files describe it in the service's own repository (a chart's, a NAIS manifest's), to place it. */
  sourceDirs?: string[];
  /** NAIS `accessPolicy.outbound.rules`: the applications it declares it calls. */
  outbound?: { application: string; namespace?: string; cluster?: string; file: string; line: number }[];
}

/** A Debezium connector the estate registers: the Kafka topics its captured tables publish to. */
export interface CdcConnector {
  name: string;
  file: string;
  line: number;
  connectorClass: string;
  /** `<topic.prefix>.<schema>.<table>` for each table of `table.include.list`. */
  topics: string[];
}

/**
 * A Kafka Connect registration (`{"name": …, "config": {…}}` or the bare config) of a Debezium source connector:
 * its topics are `<topic.prefix | database.server.name>.<table>` for each listed table. Tables given as patterns,
 * and topics rerouted by a transform, cannot be named: a warning says so.
 */
export function readConnector(file: string, text: string): { connectors: CdcConnector[]; warnings: string[] } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return { connectors: [], warnings: [`${file}:1: not JSON (${err instanceof Error ? err.message : String(err)}); skipped`] };
  }
  const out: CdcConnector[] = [];
  const warnings: string[] = [];
  for (const item of Array.isArray(parsed) ? parsed : [parsed]) {
    if (!item || typeof item !== 'object') continue;
    const obj = item as Record<string, unknown>;
    const config = (obj.config && typeof obj.config === 'object' ? obj.config : obj) as Record<string, unknown>;
    const str = (key: string): string | undefined => (typeof config[key] === 'string' ? (config[key] as string) : undefined);
    const connectorClass = str('connector.class') ?? '';
    if (!connectorClass.startsWith('io.debezium.')) continue;
    const name = typeof obj.name === 'string' ? obj.name : (str('name') ?? file.slice(file.lastIndexOf('/') + 1).replace(/\.json$/, ''));
    const prefix = str('topic.prefix') ?? str('database.server.name');
    const transforms = (str('transforms') ?? '').split(',').map((t) => t.trim()).filter(Boolean);
    const rerouted = transforms.some((t) => /Router|EventRouter/.test(str(`transforms.${t}.type`) ?? ''));
    const tables = (str('table.include.list') ?? str('table.whitelist') ?? '').split(',').map((t) => t.trim()).filter(Boolean);
    const literal = tables.filter((t) => /^[\w$-]+(?:\.[\w$-]+)+$/.test(t));
    if (!prefix) warnings.push(`${file}:1: connector ${name} names no topic.prefix (database.server.name); its topics are not known`);
    else if (rerouted) warnings.push(`${file}:1: connector ${name} reroutes its topics with a transform; they are not read`);
    else if (literal.length < tables.length || !tables.length) warnings.push(`${file}:1: connector ${name} lists ${tables.length ? 'tables as patterns' : 'no tables'}; only named tables become topics`);
    out.push({ name, file, line: 1, connectorClass, topics: prefix && !rerouted ? literal.map((t) => `${prefix}.${t}`) : [] });
  }
  return { connectors: out, warnings };
}

export interface Deployment {
  /** Debezium connectors registered from the estate's files. */
  connectors: CdcConnector[];
  units: DeploymentUnit[];
  proxies: ProxyRule[];
  /** The nginx server blocks the proxies belong to, with all their locations (for {@link selectLocation}). */
  servers: NginxServer[];
  upstreams: NginxUpstream[];
  kubeServices: KubeService[];
  kubeIngresses: KubeIngress[];
  /**
   * httpd configuration and consul-template templates that proxy, in path order: {@link readHttpd} reads them once
   * the services a Consul catalog would hold (what `{{range services}}` runs over) are known.
   */
  httpd: { file: string; text: string }[];
  /** The `config_info` rows of the Nacos seeds (SQL dumps) of the estate, in path and row order. */
  nacos: NacosConfig[];
  warnings: string[];
}

// ---------------------------------------------------------------------------------------------------------------
// File names

const COMPOSE_FILE = /^(?:docker-)?compose(?:[.-][^/]*)?\.ya?ml$/;
const YAML_FILE = /\.ya?ml$/;
const NGINX_DIRS = new Set(['nginx', 'conf.d', 'sites-available', 'sites-enabled']);
/** Kafka Connect connector registrations (`register-postgres.json`, `debezium/orders.json`). */
const CONNECTOR_FILE = /debezium|connect|register|cdc/i;
const CONNECTOR_DIRS = new Set(['debezium', 'connect', 'connectors', 'kafka-connect']);

export function isComposeFileName(name: string): boolean {
  return COMPOSE_FILE.test(name);
}

/**
 * What a file may be to {@link readDeployment}, from its path alone (posix, relative): a compose file, a YAML file
 * that may hold Kubernetes manifests (its content decides), an httpd configuration or consul-template template, an
 * nginx configuration, or a SQL dump that may be a Nacos seed (its content decides). httpd and nginx share
 * directories (`conf.d`, `sites-*`) and `.conf`: a file there is `nginx` by name, and either kind is read as httpd
 * when its text proxies as httpd does.
 */
export function deploymentFileKind(path: string): 'compose' | 'kubernetes' | 'httpd' | 'nginx' | 'nacos' | 'connector' | undefined {
  const slash = path.lastIndexOf('/');
  const name = path.slice(slash + 1);
  if (name.endsWith('.json') && (CONNECTOR_FILE.test(name) || path.slice(0, Math.max(0, slash)).split('/').some((d) => CONNECTOR_DIRS.has(d)))) return 'connector';
  if (COMPOSE_FILE.test(name)) return 'compose';
  if (YAML_FILE.test(name)) return 'kubernetes';
  if (isNacosSeedFile(path)) return 'nacos';
  if (isHttpdFile(path) && !path.slice(0, Math.max(0, slash)).split('/').some((d) => NGINX_DIRS.has(d))) return 'httpd';
  return nginxNamed(path) ? 'nginx' : undefined;
}

function nginxNamed(path: string): boolean {
  const slash = path.lastIndexOf('/');
  const name = path.slice(slash + 1);
  if (name.endsWith('.conf') || name.endsWith('.conf.template')) return true;
  return !name.includes('.') && slash > 0 && path.slice(0, slash).split('/').some((d) => NGINX_DIRS.has(d));
}

// ---------------------------------------------------------------------------------------------------------------
// YAML with lines

const NULLS = new Set(['', '~', 'null', 'Null', 'NULL']);
const MAX_YAML_NODES = 200_000;
const MAX_YAML_DEPTH = 64;

type Obj = { [key: string]: unknown };

type Lines = WeakMap<object, Map<string | number, number>>;

interface YamlDoc {
  root: unknown;
  /** The line of a map key or list item, 1-based. */
  lineOf(container: unknown, key: string | number): number | undefined;
  line: number;
  /** Each map's and list's lines by key or index (what `lineOf` reads). */
  lines: Lines;
}

function yamlDoc(root: unknown, line: number, lines: Lines): YamlDoc {
  return { root, line, lines, lineOf: (c, k) => (c && typeof c === 'object' ? lines.get(c)?.get(k) : undefined) };
}

/** Every document of a YAML text, as plain values with lines; a document that does not parse is a warning. */
function yamlDocuments(file: string, text: string, warnings: string[]): YamlDoc[] {
  const read = readYaml('deployment', file, text, DOCS_CODEC, (own) => parseYamlDocuments(file, text, own));
  warnings.push(...read.warnings);
  return read.value;
}

/**
 * Documents as plain data (see yaml-recall): each one's root as JSON, and the line maps of its maps and lists in the
 * order a depth-first walk meets them (a map or list reached twice, through a merge key, is written twice).
 */
const DOCS_CODEC: YamlCodec<YamlDoc[]> = {
  encode: (docs) =>
    docs.map((d) => {
      const lines: [string | number, number][][] = [];
      const walk = (value: unknown): void => {
        if (value === null || typeof value !== 'object') return;
        lines.push([...(d.lines.get(value) ?? [])]);
        for (const child of Array.isArray(value) ? value : Object.values(value)) walk(child);
      };
      walk(d.root);
      // A copy: the reader's caller owns (and may change) the documents it was given.
      return { line: d.line, root: structuredClone(d.root), lines };
    }),
  decode: (value) =>
    (value as { line: number; root: unknown; lines: [string | number, number][][] }[]).map((d) => {
      if (typeof d.line !== 'number' || !Array.isArray(d.lines)) throw new Error('not YAML documents');
      const lines: Lines = new WeakMap();
      let next = 0;
      const rebuild = (v: unknown): unknown => {
        if (v === null || typeof v !== 'object') return v;
        const own = d.lines[next++];
        if (!Array.isArray(own)) throw new Error('line maps cut short');
        if (Array.isArray(v)) {
          const out: unknown[] = [];
          lines.set(out, new Map(own));
          for (const item of v) out.push(rebuild(item));
          return out;
        }
        // As the reader makes them: maps without a prototype, so a key such as `constructor` is only ever data.
        const out = Object.create(null) as Obj;
        lines.set(out, new Map(own));
        for (const k of Object.keys(v)) out[k] = rebuild((v as Obj)[k]);
        return out;
      };
      return yamlDoc(rebuild(d.root), d.line, lines);
    }),
};

function parseYamlDocuments(file: string, text: string, warnings: string[]): YamlDoc[] {
  const counter = new YAML.LineCounter();
  let docs: YAML.Document.Parsed[];
  try {
    const parsed = parseYaml(text, counter);
    if ('tooDeep' in parsed) {
      warnings.push(`${file}:${parsed.tooDeep}: YAML nested more than ${MAX_FLOW_DEPTH} levels deep; skipped`);
      return [];
    }
    docs = parsed;
  } catch (error) {
    warnings.push(`${file}:1: cannot parse YAML (${firstLine(error)}); skipped`);
    return [];
  }
  const out: YamlDoc[] = [];
  for (const doc of docs) {
    const start = (doc.contents as { range?: [number, number, number] } | null)?.range?.[0] ?? doc.range?.[0] ?? 0;
    if (doc.errors.length > 0) {
      const e = doc.errors[0]!;
      warnings.push(`${file}:${counter.linePos(e.pos[0]).line}: malformed YAML (${firstLine(e)}); document skipped`);
      continue;
    }
    const lines = new WeakMap<object, Map<string | number, number>>();
    const budget = { left: MAX_YAML_NODES };
    try {
      const anchors = anchorTargets(doc);
      if (expandedSize(doc.contents, anchors, MAX_YAML_NODES) > MAX_YAML_NODES) {
        warnings.push(`${file}:${counter.linePos(start).line}: YAML document expands to more than ${MAX_YAML_NODES} nodes through its aliases (anchors); document skipped`);
        continue;
      }
      const root = convert(doc.contents, anchors, counter, lines, budget, 0);
      out.push(yamlDoc(root, counter.linePos(start).line, lines));
    } catch (error) {
      warnings.push(`${file}:${counter.linePos(start).line}: malformed YAML (${firstLine(error)}); document skipped`);
    }
  }
  return out;
}

function convert(node: unknown, anchors: ReadonlyMap<unknown, unknown>, counter: YAML.LineCounter, lines: WeakMap<object, Map<string | number, number>>, budget: { left: number }, depth: number): unknown {
  if (depth > MAX_YAML_DEPTH) throw new Error(`nested deeper than ${MAX_YAML_DEPTH}`);
  if (--budget.left < 0) throw new Error(`more than ${MAX_YAML_NODES} nodes (aliases expanded)`);
  if (node === null || node === undefined) return null;
  if (YAML.isAlias(node)) return convert(anchors.get(node), anchors, counter, lines, budget, depth + 1);
  if (YAML.isScalar(node)) {
    const text = node.value === null || node.value === undefined ? '' : String(node.value);
    return node.type === 'PLAIN' && NULLS.has(text) ? null : text;
  }
  const lineAt = (n: unknown, fallback: number): number => {
    const range = (n as { range?: [number, number, number] } | null)?.range;
    return range ? counter.linePos(range[0]).line : fallback;
  };
  if (YAML.isSeq(node)) {
    const out: unknown[] = [];
    const own = new Map<string | number, number>();
    lines.set(out, own);
    const base = lineAt(node, 1);
    for (const item of node.items) {
      own.set(out.length, lineAt(item, base));
      out.push(convert(item, anchors, counter, lines, budget, depth + 1));
    }
    return out;
  }
  if (YAML.isMap(node)) {
    const out: Obj = Object.create(null) as Obj;
    const own = new Map<string | number, number>();
    lines.set(out, own);
    const base = lineAt(node, 1);
    const merges: unknown[] = [];
    for (const pair of node.items) {
      const key = convert(pair.key, anchors, counter, lines, budget, depth + 1);
      const keyText = key === null ? '' : typeof key === 'string' ? key : JSON.stringify(key);
      if (keyText === '<<' && YAML.isScalar(pair.key) && pair.key.type === 'PLAIN') {
        const merged = convert(pair.value, anchors, counter, lines, budget, depth + 1);
        merges.push(...(Array.isArray(merged) ? merged : [merged]));
        continue;
      }
      own.set(keyText, lineAt(pair.key, base));
      out[keyText] = convert(pair.value, anchors, counter, lines, budget, depth + 1);
    }
    for (const m of merges) {
      if (!isObj(m)) continue;
      for (const [k, v] of Object.entries(m)) {
        if (k in out) continue;
        out[k] = v;
        const l = lines.get(m)?.get(k);
        if (l !== undefined) own.set(k, l);
      }
    }
    return out;
  }
  return null;
}

function isObj(value: unknown): value is Obj {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0]!.trim().replace(/ at line \d+, column \d+:?$/, '');
}

// ---------------------------------------------------------------------------------------------------------------
// Compose

/**
 * Compose variable interpolation (`$VAR`, `${VAR}`, `${VAR:-default}`, `${VAR-default}`, `${VAR:?err}`,
 * `${VAR:+alt}`, `$$`) against the variables the estate states (its `.env`); a variable it does not state makes the
 * value unknown, with the reason.
 */
export function interpolateCompose(text: string, vars: Readonly<Record<string, string>> = {}, depth = 0): { value: string } | { unknown: string; variables: string[] } {
  let out = '';
  const missing: string[] = [];
  let i = 0;
  while (i < text.length) {
    const dollar = text.indexOf('$', i);
    if (dollar < 0) {
      out += text.slice(i);
      break;
    }
    out += text.slice(i, dollar);
    const next = text[dollar + 1];
    if (next === '$') {
      out += '$';
      i = dollar + 2;
      continue;
    }
    if (next === '{') {
      const end = matchingBrace(text, dollar + 2);
      if (end < 0) {
        out += text.slice(dollar);
        break;
      }
      const body = text.slice(dollar + 2, end);
      i = end + 1;
      const m = /^([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])([\s\S]*))?$/.exec(body);
      if (!m) {
        missing.push(`\${${body}}`);
        continue;
      }
      const [, name, op, arg = ''] = m as unknown as [string, string, string | undefined, string | undefined];
      const set = Object.hasOwn(vars, name);
      const value = set ? vars[name]! : undefined;
      const empty = value === undefined || value === '';
      if (op === undefined || op === ':?' || op === '?') {
        if (value === undefined) missing.push(name);
        else out += value;
      } else if (op === ':-' || op === '-') {
        const useDefault = op === ':-' ? empty : !set;
        if (!useDefault) out += value!;
        else if (depth >= 8) missing.push(name);
        else {
          const d = interpolateCompose(arg, vars, depth + 1);
          if ('value' in d) out += d.value;
          else missing.push(...d.variables);
        }
      } else {
        // `:+` / `+`: the alternative when the variable is set; whether it is cannot be known without it.
        if (!set) missing.push(name);
        else if (!(op === ':+' && empty)) {
          const d = depth >= 8 ? undefined : interpolateCompose(arg, vars, depth + 1);
          if (d && 'value' in d) out += d.value;
          else missing.push(...(d?.variables ?? [name]));
        }
      }
      continue;
    }
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(dollar + 1, dollar + 257))?.[0];
    if (!name) {
      out += '$';
      i = dollar + 1;
      continue;
    }
    if (Object.hasOwn(vars, name)) out += vars[name];
    else missing.push(name);
    i = dollar + 1 + name.length;
  }
  if (missing.length) {
    const variables = [...new Set(missing)];
    return { unknown: `comes from ${variables.map((v) => (v.startsWith('$') ? v : `$${v}`)).join(', ')} of the environment docker compose runs in`, variables };
  }
  return { value: out };
}


/** `KEY=value` lines of a `.env` or `env_file` (comments, `export`, quotes). */
export function readDotEnv(file: string, text: string): EnvEntry[] {
  const out = new Map<string, EnvEntry>();
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, index) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    const body = line.startsWith('export ') ? line.slice(7).trimStart() : line;
    const eq = body.indexOf('=');
    const name = (eq < 0 ? body : body.slice(0, eq)).trim();
    if (!/^[A-Za-z_][A-Za-z0-9_.-]*$/.test(name)) return;
    if (eq < 0) {
      out.set(name, { name, written: name, unknown: `comes from $${name} of the environment docker compose runs in`, file, line: index + 1 });
      return;
    }
    let value = body.slice(eq + 1).trim();
    const q = value[0];
    if ((q === '"' || q === "'") && value.length >= 2 && value.endsWith(q)) value = value.slice(1, -1);
    else {
      const hash = value.indexOf(' #');
      if (hash >= 0) value = value.slice(0, hash).trimEnd();
    }
    out.delete(name);
    out.set(name, { name, value, written: body.slice(eq + 1).trim(), file, line: index + 1 });
  });
  return [...out.values()];
}

/**
 * The services of one compose file. `vars` are the variables interpolation sees (the estate's `.env` beside the
 * file); what they leave unset stays unknown.
 */
export function readCompose(file: string, text: string, vars: Readonly<Record<string, string>> = {}): { services: ComposeService[]; warnings: string[] } {
  const warnings: string[] = [];
  const services: ComposeService[] = [];
  const dir = parentDir(file);
  for (const doc of yamlDocuments(file, text, warnings)) {
    const root = doc.root;
    if (root === null) continue;
    if (!isObj(root)) {
      warnings.push(`${file}:${doc.line}: a compose file must be a mapping; skipped`);
      continue;
    }
    let table: unknown = root.services;
    // Compose file format 1: services at the top level.
    if (table === undefined && root.version === undefined && Object.values(root).every((v) => isObj(v) && (v.image !== undefined || v.build !== undefined))) table = root;
    if (table === undefined || table === null) continue;
    if (!isObj(table)) {
      warnings.push(`${file}:${doc.lineOf(root, 'services') ?? doc.line}: services must be a mapping; skipped`);
      continue;
    }
    for (const [name, body] of Object.entries(table)) {
      const line = doc.lineOf(table, name) ?? doc.line;
      if (body !== null && !isObj(body)) {
        warnings.push(`${file}:${line}: compose service ${name} must be a mapping; skipped`);
        continue;
      }
      services.push(composeService(file, dir, name, line, body ?? (Object.create(null) as Obj), doc, vars, warnings));
    }
  }
  return { services, warnings };
}

function composeService(file: string, dir: string, name: string, line: number, body: Obj, doc: YamlDoc, vars: Readonly<Record<string, string>>, warnings: string[]): ComposeService {
  const known = (value: unknown): string | undefined => {
    const text = str(value);
    if (text === undefined) return undefined;
    const r = interpolateCompose(text, vars);
    return 'value' in r ? r.value : undefined;
  };
  const service: ComposeService = { name, file, line, aliases: [], mounts: [], envFiles: [], env: [], publishedPorts: [] };
  const containerName = known(body.container_name);
  if (containerName) service.containerName = containerName;
  const hostname = known(body.hostname);
  if (hostname) service.hostname = hostname;
  const imageText = str(body.image);
  if (imageText) service.image = known(imageText) ?? imageText;
  const build = body.build;
  const context = isObj(build) ? known(build.context) ?? (build.context === undefined ? '.' : undefined) : known(build);
  if (context !== undefined && !/^[a-z][a-z0-9+.-]*:\/\/|^git@|\.git(?:#|$)/i.test(context)) {
    const ctx = resolveRel(dir, context);
    if (ctx !== undefined) {
      service.build = { context: ctx };
      const dockerfile = isObj(build) ? known(build.dockerfile) : undefined;
      const df = dockerfile !== undefined ? resolveRel(ctx, dockerfile) : undefined;
      if (df !== undefined) service.build.dockerfile = df;
    }
  }
  const networks = body.networks;
  if (isObj(networks)) {
    for (const net of Object.values(networks)) {
      if (!isObj(net) || !Array.isArray(net.aliases)) continue;
      for (const a of net.aliases) {
        const alias = known(a);
        if (alias) service.aliases.push(alias);
      }
    }
  }
  if (Array.isArray(body.volumes)) {
    // A relative host path is the compose file's directory's; so is `$PWD`, the directory docker compose runs in,
    // when it runs beside its file (where it finds the file by default) and the estate's `.env` does not set PWD.
    const volumeVars = Object.hasOwn(vars, 'PWD') ? vars : { ...vars, PWD: '.' };
    const knownPath = (value: unknown): string | undefined => {
      const text = str(value);
      if (text === undefined) return undefined;
      const r = interpolateCompose(text, volumeVars);
      return 'value' in r ? r.value : undefined;
    };
    for (const v of body.volumes) {
      const spec = isObj(v) ? (v.type === undefined || v.type === 'bind' ? { source: knownPath(v.source), target: str(v.target) } : undefined) : splitVolume(knownPath(v));
      const source = spec?.source;
      if (source === undefined || !/^\.{1,2}(?:\/|$)/.test(source)) continue;
      const rel = resolveRel(dir, source);
      if (rel === undefined) continue;
      service.mounts.push(rel);
      const target = spec?.target?.trim().replace(/\/+$/, '');
      if (target && target.startsWith('/')) (service.binds ??= []).push({ source: rel, target });
    }
  }
  const envFiles = body.env_file;
  for (const entry of Array.isArray(envFiles) ? envFiles : envFiles === undefined || envFiles === null ? [] : [envFiles]) {
    const path = isObj(entry) ? known(entry.path) : known(entry);
    const rel = path === undefined ? undefined : resolveRel(dir, path);
    if (rel !== undefined) service.envFiles.push(rel);
  }
  const env = new Map<string, EnvEntry>();
  const add = (entry: EnvEntry): void => {
    env.delete(entry.name);
    env.set(entry.name, entry);
  };
  const environment = body.environment;
  const envLine = doc.lineOf(body, 'environment') ?? line;
  if (Array.isArray(environment)) {
    environment.forEach((item, index) => {
      const at = doc.lineOf(environment, index) ?? envLine;
      const text = str(item);
      if (text === undefined) {
        warnings.push(`${file}:${at}: environment entry of ${name} is not a string; skipped`);
        return;
      }
      const eq = text.indexOf('=');
      const key = (eq < 0 ? text : text.slice(0, eq)).trim();
      if (!key) return;
      if (eq < 0) {
        const passed = passThrough(key, text, file, at, vars);
        if (passed) add(passed);
      } else add(envEntry(key, text.slice(eq + 1), file, at, vars));
    });
  } else if (isObj(environment)) {
    for (const [key, value] of Object.entries(environment)) {
      const at = doc.lineOf(environment, key) ?? envLine;
      if (value === null) {
        const passed = passThrough(key, '', file, at, vars);
        if (passed) add(passed);
      } else if (typeof value === 'string') add(envEntry(key, value, file, at, vars));
      else warnings.push(`${file}:${at}: environment ${key} of ${name} is not a scalar; skipped`);
    }
  } else if (environment !== undefined && environment !== null) {
    warnings.push(`${file}:${envLine}: environment of ${name} must be a list or a mapping; skipped`);
  }
  service.env = [...env.values()];
  service.publishedPorts = publishedPorts(body.ports, known);
  return service;
}

/**
 * `- VAR` / `VAR:` without a value: Compose passes the variable from the environment it runs in (the shell, and the
 * project's `.env`). The estate states only the `.env`: a variable it sets has that value; otherwise the entry is
 * absent (unset in the container, so an `env_file` value or the application's own configuration stands).
 */
function passThrough(name: string, written: string, file: string, line: number, vars: Readonly<Record<string, string>>): EnvEntry | undefined {
  return Object.hasOwn(vars, name) ? { name, value: vars[name]!, written, file, line } : undefined;
}

/** Host ports of `ports` (`"8099:80"`, `"127.0.0.1:8099:80/tcp"`, `"8000-8001:80-81"`, `{published: 8099}`); a container port alone publishes none. */
function publishedPorts(ports: unknown, known: (value: unknown) => string | undefined): number[] {
  if (!Array.isArray(ports)) return [];
  const out: number[] = [];
  for (const p of ports) {
    let published: string | undefined;
    if (isObj(p)) published = known(p.published);
    else {
      const text = known(p)?.trim().replace(/\/[a-z]+$/i, '');
      if (text === undefined) continue;
      // [host_ip:]published:target, the host ip possibly bracketed IPv6.
      const parts = text.replace(/^\[[^\]]*\]:/, 'ip:').split(':');
      if (parts.length >= 2) published = parts[parts.length - 2];
    }
    out.push(...portRange(published));
  }
  return [...new Set(out)];
}

const MAX_PORT_RANGE = 32;

function portRange(text: string | undefined): number[] {
  const m = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(text?.trim() ?? '');
  if (!m) return [];
  const from = Number(m[1]);
  const to = m[2] === undefined ? from : Number(m[2]);
  if (from < 1 || to > 65535 || to < from || to - from >= MAX_PORT_RANGE) return [];
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

function envEntry(name: string, written: string, file: string, line: number, vars: Readonly<Record<string, string>>): EnvEntry {
  const r = interpolateCompose(written, vars);
  return 'value' in r ? { name, value: r.value, written, file, line } : { name, unknown: r.unknown, written, file, line };
}

/** The host side of a short volume syntax `src:dst[:mode]`. */
/** `SOURCE:TARGET[:MODE]` (short syntax) → source and target; a named volume or a bare container path has no source here. */
function splitVolume(text: string | undefined): { source: string; target?: string } | undefined {
  if (text === undefined) return undefined;
  const colon = text.indexOf(':');
  if (colon < 0) return undefined;
  const rest = text.slice(colon + 1);
  const mode = rest.indexOf(':');
  return { source: text.slice(0, colon), target: mode < 0 ? rest : rest.slice(0, mode) };
}

// ---------------------------------------------------------------------------------------------------------------
// Kubernetes

const WORKLOADS = new Set<KubeWorkload['kind']>(['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'Job', 'CronJob', 'Pod', 'DeploymentConfig']);

/** Whether a YAML text may hold Kubernetes objects: `apiVersion:` and `kind:` at the start of a line. */
export function looksLikeKubernetes(text: string): boolean {
  return /^apiVersion[ \t]*:/m.test(text) && /^kind[ \t]*:/m.test(text);
}

interface KubeObjects {
  workloads: KubeWorkload[];
  services: KubeService[];
  configMaps: KubeConfigMap[];
  ingresses: KubeIngress[];
  nais: NaisApplication[];
  warnings: string[];
}

/**
 * Workloads (their containers' env and images), Services, Ingresses, ConfigMaps and NAIS applications of one
 * manifest file (`List`s included).
 */
export function readKubernetes(file: string, text: string): KubeObjects {
  const warnings: string[] = [];
  const out: KubeObjects = { workloads: [], services: [], configMaps: [], ingresses: [], nais: [], warnings };
  for (const doc of yamlDocuments(file, text, warnings)) {
    if (!isObj(doc.root)) continue;
    const objects: [Obj, number][] = [[doc.root, doc.line]];
    if (doc.root.kind === 'List' && Array.isArray(doc.root.items)) {
      const items = doc.root.items;
      items.forEach((item, i) => {
        if (isObj(item)) objects.push([item, doc.lineOf(items, i) ?? doc.line]);
      });
    }
    for (const [obj, line] of objects) kubeObject(file, obj, line, doc, out);
  }
  return out;
}

function kubeObject(file: string, obj: Obj, line: number, doc: YamlDoc, out: KubeObjects): void {
  const kind = str(obj.kind);
  const meta = isObj(obj.metadata) ? obj.metadata : undefined;
  const name = str(meta?.name);
  const apiVersion = str(obj.apiVersion);
  if (!kind || apiVersion === undefined || !name) return;
  const namespace = str(meta?.namespace);
  const ns = namespace ? { namespace } : {};
  const spec = isObj(obj.spec) ? obj.spec : undefined;
  if (apiVersion.startsWith('nais.io/')) {
    if (kind === 'Application') out.nais.push(naisApplication(file, name, ns, line, spec, doc, out.warnings));
    return;
  }
  if (kind === 'Ingress') {
    out.ingresses.push(kubeIngress(file, name, ns, line, spec, doc));
    return;
  }
  if (kind === 'Service') {
    const selector = stringMap(spec?.selector);
    const ports = Array.isArray(spec?.ports)
      ? spec.ports.filter(isObj).map((p) => ({ ...(str(p.name) ? { name: str(p.name)! } : {}), ...(str(p.port) ? { port: str(p.port)! } : {}), ...(str(p.targetPort) ? { targetPort: str(p.targetPort)! } : {}) }))
      : [];
    out.services.push({ name, ...ns, selector, ports, file, line });
    return;
  }
  if (kind === 'ConfigMap') {
    const data: KubeConfigMap['data'] = {};
    const raw = obj.data;
    if (isObj(raw)) for (const [k, v] of Object.entries(raw)) if (typeof v === 'string') data[k] = { value: v, line: doc.lineOf(raw, k) ?? line };
    out.configMaps.push({ name, ...ns, data, file, line });
    return;
  }
  if (!WORKLOADS.has(kind as KubeWorkload['kind'])) return;
  // The pod template: Pod itself, CronJob's job template's, every other workload's.
  let podMeta: unknown = meta;
  let podSpec: unknown = spec;
  if (kind === 'CronJob') {
    const jobSpec = isObj(spec?.jobTemplate) && isObj(spec.jobTemplate.spec) ? spec.jobTemplate.spec : undefined;
    podMeta = isObj(jobSpec?.template) ? jobSpec.template.metadata : undefined;
    podSpec = isObj(jobSpec?.template) ? jobSpec.template.spec : undefined;
  } else if (kind !== 'Pod') {
    podMeta = isObj(spec?.template) ? spec.template.metadata : undefined;
    podSpec = isObj(spec?.template) ? spec.template.spec : undefined;
  }
  const labels = stringMap(isObj(podMeta) ? podMeta.labels : undefined);
  const workload: KubeWorkload = { kind: kind as KubeWorkload['kind'], name, ...ns, labels, file, line, containers: [] };
  const serviceName = str(spec?.serviceName);
  if (kind === 'StatefulSet' && serviceName) workload.serviceName = serviceName;
  const containers = isObj(podSpec) ? podSpec.containers : undefined;
  if (Array.isArray(containers)) {
    containers.forEach((c, i) => {
      if (!isObj(c)) return;
      workload.containers.push(kubeContainer(file, c, doc.lineOf(containers, i) ?? line, doc, out.warnings));
    });
  }
  out.workloads.push(workload);
}

function kubeContainer(file: string, c: Obj, line: number, doc: YamlDoc, warnings: string[]): KubeContainer {
  const container: KubeContainer = { name: str(c.name) ?? '', line, env: [], envFrom: [] };
  const image = str(c.image);
  if (image) container.image = image;
  const env = new Map<string, EnvEntry>();
  const list = c.env;
  if (Array.isArray(list)) {
    list.forEach((item, i) => {
      const at = doc.lineOf(list, i) ?? line;
      if (!isObj(item) || !str(item.name)) {
        warnings.push(`${file}:${at}: an env entry without a name; skipped`);
        return;
      }
      const name = str(item.name)!;
      const entry = kubeEnv(name, item, file, at);
      env.delete(name);
      env.set(name, entry);
    });
  }
  container.env = [...env.values()];
  const from = c.envFrom;
  if (Array.isArray(from)) {
    from.forEach((item, i) => {
      if (!isObj(item)) return;
      const at = doc.lineOf(from, i) ?? line;
      const prefix = str(item.prefix) ?? '';
      const cm = isObj(item.configMapRef) ? str(item.configMapRef.name) : undefined;
      const secret = isObj(item.secretRef) ? str(item.secretRef.name) : undefined;
      if (cm) container.envFrom.push({ configMap: cm, prefix, line: at });
      if (secret) container.envFrom.push({ secret, prefix, line: at });
    });
  }
  return container;
}

function kubeEnv(name: string, item: Obj, file: string, line: number): EnvEntry {
  const value = str(item.value);
  if (item.valueFrom === undefined || item.valueFrom === null) return { name, value: value ?? '', written: value ?? '', file, line };
  const from = isObj(item.valueFrom) ? item.valueFrom : {};
  const ref = (key: string): Obj | undefined => (isObj(from[key]) ? (from[key] as Obj) : undefined);
  const secret = ref('secretKeyRef');
  if (secret) return { name, written: `secretKeyRef ${str(secret.name) ?? '?'}/${str(secret.key) ?? '?'}`, unknown: `comes from key ${str(secret.key) ?? '?'} of secret ${str(secret.name) ?? '?'}`, file, line };
  const cm = ref('configMapKeyRef');
  if (cm) {
    const cmName = str(cm.name) ?? '?';
    const key = str(cm.key) ?? '?';
    return { name, written: `configMapKeyRef ${cmName}/${key}`, unknown: `comes from key ${key} of config map ${cmName}, which is not in the estate`, file, line, configMapRef: { name: cmName, key } };
  }
  const field = ref('fieldRef');
  if (field) return { name, written: `fieldRef ${str(field.fieldPath) ?? '?'}`, unknown: `comes from the pod's field ${str(field.fieldPath) ?? '?'}, known at run time`, file, line };
  const resource = ref('resourceFieldRef');
  if (resource) return { name, written: `resourceFieldRef ${str(resource.resource) ?? '?'}`, unknown: `comes from the container's resource ${str(resource.resource) ?? '?'}, known at run time`, file, line };
  return { name, written: 'valueFrom', unknown: 'comes from a valueFrom source that is not read', file, line };
}

/** `networking.k8s.io/v1` (`backend.service.name`) and `v1beta1` (`backend.serviceName`) rules. */
function kubeIngress(file: string, name: string, ns: { namespace?: string }, line: number, spec: Obj | undefined, doc: YamlDoc): KubeIngress {
  const backendService = (backend: unknown): string | undefined => (isObj(backend) ? (isObj(backend.service) ? str(backend.service.name) : str(backend.serviceName)) : undefined);
  const ingress: KubeIngress = { name, ...ns, rules: [], file, line };
  const fallback = backendService(spec?.defaultBackend) ?? backendService(spec?.backend);
  if (fallback) ingress.defaultService = fallback;
  const rules = spec?.rules;
  if (Array.isArray(rules)) {
    rules.forEach((r, i) => {
      const host = isObj(r) ? str(r.host) : undefined;
      if (!isObj(r) || !host) return;
      const paths = isObj(r.http) && Array.isArray(r.http.paths) ? r.http.paths : [];
      const services = uniq(paths.map((p) => (isObj(p) ? backendService(p.backend) : undefined)));
      ingress.rules.push({ host: host.toLowerCase(), services, line: doc.lineOf(rules, i) ?? line });
    });
  }
  return ingress;
}

/**
 * A NAIS Application: its container's `spec.env` (as Kubernetes env; a value the deploy fills in from its variables,
 * `{{ var }}`, is unknown), `spec.ingresses` (URLs) and the applications `accessPolicy.outbound.rules` allows it to
 * call.
 */
function naisApplication(file: string, name: string, ns: { namespace?: string }, line: number, spec: Obj | undefined, doc: YamlDoc, warnings: string[]): NaisApplication {
  const app: NaisApplication = { name, ...ns, file, line, env: [], ingresses: [], outbound: [] };
  const image = str(spec?.image);
  if (image && !image.includes('{{')) app.image = image;
  const container = kubeContainer(file, { name, env: spec?.env }, line, doc, warnings);
  app.env = container.env.map((e) => (e.value !== undefined && e.value.includes('{{') ? { ...withoutValue(e), unknown: `is the NAIS template ${JSON.stringify(e.value)}, filled in from the deploy's variables` } : e));
  const ingresses = spec?.ingresses;
  if (Array.isArray(ingresses)) for (const i of ingresses) {
    const host = typeof i === 'string' && !i.includes('{{') ? hostOfUrl(i) : undefined;
    if (host) app.ingresses.push(host);
  }
  const policy = isObj(spec?.accessPolicy) ? spec.accessPolicy : undefined;
  const rules = isObj(policy?.outbound) ? policy.outbound.rules : undefined;
  if (Array.isArray(rules)) {
    rules.forEach((r, i) => {
      const application = isObj(r) ? str(r.application) : undefined;
      if (!isObj(r) || !application) return;
      app.outbound.push({ application, ...(str(r.namespace) ? { namespace: str(r.namespace)! } : {}), ...(str(r.cluster) ? { cluster: str(r.cluster)! } : {}), line: doc.lineOf(rules, i) ?? line });
    });
  }
  return app;
}

function withoutValue(e: EnvEntry): EnvEntry {
  const { value: _value, ...rest } = e;
  return rest;
}

/** `https://orders.example.com:8443/api` or `orders.example.com` → `orders.example.com`; undefined when there is no host. */
function hostOfUrl(text: string): string | undefined {
  const m = /^(?:[a-z][a-z0-9+.-]*:\/\/)?([^/:?#\s]+)/i.exec(text.trim());
  return m ? m[1]!.toLowerCase() : undefined;
}

function stringMap(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (isObj(value)) for (const [k, v] of Object.entries(value)) if (typeof v === 'string') out[k] = v;
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Helm

/**
 * What a well-known chart makes of its values, its templates being outside the estate. Paths are below the key the
 * chart's values sit under (its dependency name, or alias, in the estate's own chart).
 */
export interface ChartKnowledge {
  /** Maps of container environment variables (name → value). */
  env: readonly (readonly string[])[];
  /** Ingress hosts: a host, or a list of hosts or of `{host: …}`. */
  hosts: readonly (readonly string[])[];
  /** The flag that makes the ingress at all, and its default in the chart. */
  ingressEnabled?: { path: readonly string[]; default: boolean };
  /** The container image (a name, or a repository without the tag). */
  image?: readonly string[];
  /** Whether the chart renders env values and hosts through `tpl`: `{{ … }}` in them is a template, not text. */
  tpl: boolean;
}

/** Chart name (in Chart.yaml `dependencies`) → what its values mean. */
export const HELM_CHARTS: Readonly<Record<string, ChartKnowledge>> = {
  // ministryofjustice/hmpps-helm-charts: `env` becomes `value: "{{ $val }}"` (no tpl); the ingress is `ingress.host` (or `hosts`), off by default.
  'generic-service': { env: [['env']], hosts: [['ingress', 'host'], ['ingress', 'hosts']], ingressEnabled: { path: ['ingress', 'enabled'], default: false }, image: ['image', 'repository'], tpl: false },
  // hmcts/chart-java: `environment` and `ingressHost` are rendered with tpl (`{{ .Values.global.environment }}`).
  java: { env: [['environment']], hosts: [['ingressHost']], image: ['image'], tpl: true },
};

/** `helm create`'s convention, which most charts keep: every resource, the Service included, is named `fullnameOverride`. */
const FULLNAME_OVERRIDE = 'fullnameOverride';

/** `values.yaml` (every environment), `values-dev.yaml`, `values.dev.yaml`, `values.aat.template.yaml` (that environment). */
const VALUES_FILE = /^values(?:[-._]([A-Za-z0-9][A-Za-z0-9_.-]*?))?(?:[-.](template))?\.ya?ml$/;

interface HelmChart {
  dir: string;
  file: string;
  name: string;
  /** The values keys of well-known dependencies. */
  sections: { key: string; chart: string }[];
}

interface HelmValues {
  file: string;
  dir: string;
  environment?: string;
  /** A `*.template.yaml` the pipeline renders with envsubst first: `${VAR}` in it is the pipeline's. */
  envsubst: boolean;
  root: Obj;
  doc: YamlDoc;
}

function readChart(file: string, text: string, requirements: string | undefined, warnings: string[]): HelmChart | undefined {
  const docs = yamlDocuments(file, text, warnings);
  const root = docs[0]?.root;
  if (!isObj(root)) return undefined;
  const name = str(root.name) ?? lastSegment(parentDir(file));
  const deps: unknown[] = Array.isArray(root.dependencies) ? [...root.dependencies] : [];
  if (requirements !== undefined) {
    const req = yamlDocuments(joinRel(parentDir(file), 'requirements.yaml'), requirements, warnings)[0]?.root;
    if (isObj(req) && Array.isArray(req.dependencies)) deps.push(...req.dependencies);
  }
  const sections: HelmChart['sections'] = [];
  for (const d of deps) {
    const chart = isObj(d) ? str(d.name) : undefined;
    if (!chart || !Object.hasOwn(HELM_CHARTS, chart)) continue;
    sections.push({ key: (isObj(d) ? str(d.alias) : undefined) ?? chart, chart });
  }
  return { dir: parentDir(file), file, name, sections };
}

function readValues(file: string, text: string, warnings: string[]): HelmValues | undefined {
  const m = VALUES_FILE.exec(lastSegment(file));
  if (!m) return undefined;
  const doc = yamlDocuments(file, text, warnings)[0];
  if (!doc || !isObj(doc.root)) return undefined;
  const environment = m[1] === undefined || m[1] === 'template' ? undefined : m[1];
  return { file, dir: parentDir(file), ...(environment ? { environment } : {}), envsubst: m[2] !== undefined || m[1] === 'template', root: doc.root, doc };
}

function at(root: unknown, path: readonly string[]): { value: unknown; container?: unknown; key?: string } {
  let value: unknown = root;
  let container: unknown;
  for (const key of path) {
    if (!isObj(value)) return { value: undefined };
    container = value;
    value = value[key];
  }
  return { value, container, key: path[path.length - 1] };
}

/**
 * The deployment each values file describes, per chart it is for: the chart in its directory; for an environment's
 * file, the charts in the directories beside it (`helm_deploy/values-dev.yaml` next to `helm_deploy/<chart>/`);
 * else a chart outside the estate (`helm install … -f values.yaml`), whose well-known sections are found by key.
 * A base `values.yaml` describes every environment; each environment's file is a unit of its own, over it.
 */
function helmUnits(charts: HelmChart[], values: HelmValues[], warnings: string[]): DeploymentUnit[] {
  const out: DeploymentUnit[] = [];
  const baseOf = (dir: string): HelmValues | undefined => values.find((v) => v.dir === dir && v.environment === undefined);
  for (const v of values) {
    let targets = charts.filter((c) => c.dir === v.dir);
    if (!targets.length && v.environment !== undefined) targets = charts.filter((c) => c.dir !== '' && parentDir(c.dir) === v.dir);
    if (!targets.length) {
      const sections = Object.keys(v.root).filter((k) => Object.hasOwn(HELM_CHARTS, k)).sort(byString).map((k) => ({ key: k, chart: k }));
      targets = [{ dir: v.dir, file: v.file, name: '', sections }];
    }
    for (const chart of targets) {
      const unit = helmUnit(chart, v, v.environment !== undefined ? baseOf(chart.dir) : undefined, warnings);
      if (unit) out.push(unit);
    }
  }
  return out;
}

function helmUnit(chart: HelmChart, v: HelmValues, base: HelmValues | undefined, warnings: string[]): DeploymentUnit | undefined {
  const env = new Map<string, EnvEntry>();
  const hosts: string[] = [];
  const templates: string[] = [];
  const images: string[] = [];
  const dns: DnsName[] = [];
  const fullname = (section: unknown): void => {
    const name = isObj(section) ? str(section[FULLNAME_OVERRIDE]) : undefined;
    if (name && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(name)) dns.push({ name });
  };
  fullname(v.root);
  for (const { key, chart: known } of chart.sections) {
    const k = HELM_CHARTS[known]!;
    const section = v.root[key];
    const baseSection = base?.root[key];
    fullname(section);
    if (!isObj(section)) continue;
    const how = { helm: k.tpl, envsubst: v.envsubst };
    for (const path of k.env) {
      const { value: map } = at(section, path);
      if (map === undefined || map === null) continue;
      if (!isObj(map)) {
        warnings.push(`${v.file}:${v.doc.lineOf(at(section, path.slice(0, -1)).value, path[path.length - 1]!) ?? v.doc.line}: ${key}.${path.join('.')} must be a mapping of environment variables; skipped`);
        continue;
      }
      for (const [name, raw] of Object.entries(map)) {
        const line = v.doc.lineOf(map, name) ?? v.doc.line;
        if (raw !== null && typeof raw !== 'string') {
          warnings.push(`${v.file}:${line}: environment ${name} of ${key} is not a scalar; skipped`);
          continue;
        }
        const written = raw ?? '';
        const r = platformValue(written, how, `${v.file}:${line}`);
        env.delete(name);
        env.set(name, 'unknown' in r ? { name, written, unknown: r.unknown, file: v.file, line } : { name, value: r.value, written, file: v.file, line, ...(Object.keys(r.holes).length ? { holes: r.holes } : {}) });
      }
    }
    const enabledFlag = k.ingressEnabled ? (at(section, k.ingressEnabled.path).value ?? at(baseSection, k.ingressEnabled.path).value) : undefined;
    const enabled = k.ingressEnabled ? (enabledFlag === undefined || enabledFlag === null ? k.ingressEnabled.default : /^(?:true|yes|on)$/i.test(String(enabledFlag))) : true;
    if (enabled) {
      for (const path of k.hosts) {
        const { value } = at(section, path);
        const written = (Array.isArray(value) ? value : [value]).map((h) => (isObj(h) ? str(h.host) : str(h))).filter((h): h is string => !!h);
        const line = v.doc.lineOf(at(section, path.slice(0, -1)).value, path[path.length - 1]!) ?? v.doc.line;
        for (const h of written) {
          const r = platformValue(h.trim(), how, `${v.file}:${line}`);
          if ('unknown' in r) continue;
          const keys = Object.keys(r.holes);
          if (!keys.length) {
            const host = hostOfUrl(r.value);
            if (host) hosts.push(host);
          } else if (keys.every((key) => key.startsWith(GLOBAL_VALUES)) && /[a-z0-9]/i.test(r.value.replace(/\$\{[^}]*\}/g, ''))) templates.push(r.value.toLowerCase());
        }
      }
    }
    if (k.image) {
      const image = str(at(section, k.image).value) ?? str(at(baseSection, k.image).value);
      if (image && !image.includes('{{') && !image.includes('$')) images.push(image);
    }
  }
  if (!env.size && !hosts.length && !templates.length && !dns.length) return undefined;
  const name = chart.name || dns[0]?.name || lastSegment(v.dir) || 'helm';
  const unit: DeploymentUnit = {
    kind: 'helm',
    id: `${v.file}#${chart.name || name}`,
    name,
    files: [v.file],
    line: v.doc.line,
    containerNames: [],
    images: uniq(images),
    buildContexts: [],
    dockerfiles: [],
    mounts: [],
    env: [...env.values()],
    hosts: uniq(hosts).sort(byString),
    sourceDirs: [chart.dir],
  };
  if (v.environment !== undefined) unit.environment = v.environment;
  if (dns.length) unit.dnsNames = uniqDns(dns);
  if (hosts.length) unit.ingressHosts = uniq(hosts).sort(byString);
  if (templates.length) unit.hostTemplates = uniq(templates).sort(byString);
  return unit;
}

/**
 * Global values, which a platform sets alike for every chart it deploys to an environment: the one kind of hole two
 * charts' hosts can share (`bulk-scan-processor-{{ .Values.global.environment }}.internal`). A release name or a
 * pipeline variable differs per chart.
 */
const GLOBAL_VALUES = '.Values.global.';

/** A Helm template action that only names a value: `.Values.global.environment`, `$.Release.Name`. */
const TEMPLATE_FIELD = /^\$?(\.[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)$/;

/**
 * A value with the parts the platform fills in when it deploys: a Helm template action naming a value, when the
 * chart renders the value with `tpl`; a pipeline variable (`${VAR}`, `$VAR`) in a values template it renders with
 * envsubst. Each becomes a `${key}` placeholder (`${.Values.global.environment}`, `${$VAR}`) with why it is not known;
 * any other template action leaves the whole value unknown.
 */
export function platformValue(text: string, how: { helm: boolean; envsubst: boolean }, where: string): { value: string; holes: Record<string, string> } | { unknown: string } {
  const holes: Record<string, string> = {};
  let out = '';
  let i = 0;
  while (i < text.length) {
    if (how.helm && text.startsWith('{{', i)) {
      const end = text.indexOf('}}', i + 2);
      if (end < 0) return { unknown: `is an unterminated Helm template (${where})` };
      const action = text.slice(i + 2, end).replace(/^-\s*|\s*-$/g, '').trim();
      const field = TEMPLATE_FIELD.exec(action);
      if (!field) return { unknown: `is the Helm template ${JSON.stringify(text)} (${where}), rendered when the chart is installed` };
      const key = field[1]!;
      // One hole per value across the chart's files, so it names the chart, not the first line that used it.
      holes[key] ??= `the Helm value ${key} of the chart in ${where.replace(/\/[^/]*$/, '')}, given when the chart is installed`;
      out += `\${${key}}`;
      i = end + 2;
      continue;
    }
    if (how.envsubst && text[i] === '$') {
      const m = /^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/.exec(text.slice(i, i + 260));
      if (m) {
        const key = `$${m[1] ?? m[2]}`;
        holes[key] ??= `the pipeline variable ${key}, substituted into ${where.replace(/:\d+$/, '')} before it is deployed`;
        out += `\${${key}}`;
        i += m[0].length;
        continue;
      }
    }
    out += text[i];
    i++;
  }
  return { value: out, holes };
}

function uniqDns(names: DnsName[]): DnsName[] {
  const seen = new Map<string, DnsName>();
  for (const n of names) seen.set(`${n.name}\u0000${n.namespace ?? ''}`, n);
  return [...seen.values()].sort((a, b) => byString(a.name, b.name) || byString(a.namespace ?? '', b.namespace ?? ''));
}

// ---------------------------------------------------------------------------------------------------------------
// nginx

interface Directive {
  name: string;
  args: string[];
  line: number;
  block?: Directive[];
}

const MAX_NGINX_DEPTH = 64;

/**
 * nginx configuration syntax as directives: words (bare or quoted, with escapes), `;`, blocks, `#` comments,
 * `${var}` inside words; `*_by_lua_block` bodies are skipped. One pass, no backtracking. Throws with a line.
 */
function parseNginx(text: string): Directive[] {
  const root: Directive[] = [];
  const stack: { list: Directive[]; line: number }[] = [{ list: root, line: 1 }];
  let words: string[] = [];
  let wordsLine = 1;
  let line = 1;
  let i = 0;
  const n = text.length;
  const fail = (message: string, at: number): never => {
    throw Object.assign(new Error(message), { line: at });
  };
  while (i < n) {
    const ch = text[i]!;
    if (ch === '\n') {
      line++;
      i++;
      continue;
    }
    if (ch === ' ' || ch === '\t' || ch === '\r') {
      i++;
      continue;
    }
    if (ch === '#') {
      const end = text.indexOf('\n', i);
      i = end < 0 ? n : end;
      continue;
    }
    if (ch === ';' || ch === '{') {
      if (!words.length) fail(`unexpected "${ch}"`, line);
      const d: Directive = { name: words[0]!, args: words.slice(1), line: wordsLine };
      words = [];
      i++;
      stack[stack.length - 1]!.list.push(d);
      if (ch === '{') {
        if (d.name.endsWith('_by_lua_block')) {
          const skipped = skipBlock(text, i);
          if (skipped.end < 0) fail('unexpected end of file, expecting "}"', line);
          line += skipped.lines;
          i = skipped.end + 1;
          continue;
        }
        if (stack.length > MAX_NGINX_DEPTH) fail(`blocks nested deeper than ${MAX_NGINX_DEPTH}`, line);
        d.block = [];
        stack.push({ list: d.block, line });
      }
      continue;
    }
    if (ch === '}') {
      if (words.length) fail('unexpected "}"', line);
      if (stack.length === 1) fail('unexpected "}"', line);
      stack.pop();
      i++;
      continue;
    }
    // A word: quoted, or bare up to whitespace, `;`, `{` (not after `$`), `}` (not closing a `${`).
    if (!words.length) wordsLine = line;
    if (ch === '"' || ch === "'") {
      let word = '';
      let j = i + 1;
      const opened = line;
      for (;;) {
        if (j >= n) fail('unterminated quoted string', opened);
        const c = text[j]!;
        if (c === '\\' && j + 1 < n) {
          const e = text[j + 1]!;
          word += e === ch || e === '\\' ? e : e === 'n' ? '\n' : e === 't' ? '\t' : e === 'r' ? '\r' : `\\${e}`;
          if (e === '\n') line++;
          j += 2;
          continue;
        }
        if (c === ch) break;
        if (c === '\n') line++;
        word += c;
        j++;
      }
      words.push(word);
      i = j + 1;
      continue;
    }
    let j = i;
    let inVar = false;
    while (j < n) {
      const c = text[j]!;
      if (inVar) {
        if (c === '}') inVar = false;
        else if (c === '\n' || c === ';') fail('unterminated "${" in a word', line);
        j++;
        continue;
      }
      if (c === ' ' || c === '\t' || c === '\r' || c === '\n' || c === ';' || c === '}') break;
      if (c === '{') {
        if (j > i && text[j - 1] === '$') {
          inVar = true;
          j++;
          continue;
        }
        break;
      }
      if (c === '\\' && j + 1 < n && text[j + 1] !== '\n') {
        j += 2;
        continue;
      }
      j++;
    }
    words.push(text.slice(i, j));
    i = j;
  }
  if (words.length) fail(`unexpected end of file, expecting ";" or "}" after "${words[0]}"`, line);
  if (stack.length > 1) fail('unexpected end of file, expecting "}"', stack[stack.length - 1]!.line);
  return root;
}

/** The end of a raw `{ … }` body (Lua): braces counted, strings and comments not read. */
function skipBlock(text: string, from: number): { end: number; lines: number } {
  let depth = 0;
  let lines = 0;
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (c === '\n') lines++;
    else if (c === '{') depth++;
    else if (c === '}') {
      if (depth === 0) return { end: i, lines };
      depth--;
    }
  }
  return { end: -1, lines };
}

/** Whether an nginx candidate is worth parsing: it proxies or declares upstreams. */
export function mentionsProxy(text: string): boolean {
  return text.includes('proxy_pass') || text.includes('upstream');
}

/**
 * The proxy rules (one per `proxy_pass` in a location, nested locations and `if` blocks included) and upstream
 * blocks of one nginx file. Upstreams are not applied here: {@link resolveUpstreams} does, across files, as
 * `include` makes them shared.
 */
export function readNginx(file: string, text: string): { rules: ProxyRule[]; servers: NginxServer[]; upstreams: NginxUpstream[]; warnings: string[] } {
  const warnings: string[] = [];
  let tree: Directive[];
  try {
    tree = parseNginx(text);
  } catch (error) {
    const at = (error as { line?: number }).line ?? 1;
    warnings.push(`${file}:${at}: cannot parse nginx configuration (${firstLine(error)}); skipped`);
    return { rules: [], servers: [], upstreams: [], warnings };
  }
  const rules: ProxyRule[] = [];
  const servers: NginxServer[] = [];
  const upstreams: NginxUpstream[] = [];
  const visit = (list: Directive[], depth: number): void => {
    for (const d of list) {
      if (d.name === 'upstream' && d.block && d.args[0]) {
        const hosts = d.block.filter((s) => s.name === 'server' && s.args[0]).map((s) => hostOfAddress(s.args[0]!)).filter((h): h is string => !!h);
        upstreams.push({ name: d.args[0], hosts: [...new Set(hosts)], file, line: d.line });
      } else if (d.name === 'server' && d.block) {
        servers.push(serverRules(file, d.line, d.block, rules));
      } else if (d.block && depth < MAX_NGINX_DEPTH) visit(d.block, depth + 1);
    }
  };
  visit(tree, 0);
  return { rules, servers, upstreams, warnings };
}

function serverRules(file: string, serverLine: number, block: Directive[], rules: ProxyRule[]): NginxServer {
  const serverNames = block.filter((d) => d.name === 'server_name').flatMap((d) => d.args);
  const listen = block.filter((d) => d.name === 'listen' && d.args[0]).map((d) => d.args[0]!);
  const vars = setVariables(block, new Map());
  const server: NginxServer = { file, line: serverLine, serverNames, listen, locations: [] };
  const locations = (list: Directive[], inherited: Map<string, string>, depth: number, into: NginxLocation[]): void => {
    for (const d of list) {
      if (d.name !== 'location' || !d.block || depth > MAX_NGINX_DEPTH) continue;
      const location = locationOf(d);
      if (!location) continue;
      const node: NginxLocation = { ...location, proxies: d.block.some((x) => x.name === 'proxy_pass' && x.args[0] !== undefined), children: [] };
      into.push(node);
      const own = setVariables(d.block, inherited);
      const rewrites = d.block.filter((x) => x.name === 'rewrite').map((x) => ['rewrite', ...x.args].join(' '));
      const passes: { directive: Directive; condition?: string; vars: Map<string, string>; rewrites: string[] }[] = [];
      for (const x of d.block) {
        if (x.name === 'proxy_pass' && x.args[0]) passes.push({ directive: x, vars: own, rewrites });
        if (x.name === 'if' && x.block) {
          const inner = setVariables(x.block, own);
          const innerRewrites = [...rewrites, ...x.block.filter((y) => y.name === 'rewrite').map((y) => ['rewrite', ...y.args].join(' '))];
          for (const y of x.block) if (y.name === 'proxy_pass' && y.args[0]) passes.push({ directive: y, condition: `if ${x.args.join(' ')}`, vars: inner, rewrites: innerRewrites });
        }
      }
      for (const p of passes) rules.push(proxyRule(file, serverLine, serverNames, listen, location, p.directive, p.vars, p.rewrites, p.condition));
      locations(d.block, own, depth + 1, node.children);
    }
  };
  locations(block, vars, 0, server.locations);
  return server;
}

function setVariables(block: Directive[], inherited: Map<string, string>): Map<string, string> {
  const own = block.filter((d) => d.name === 'set' && d.args.length >= 2 && d.args[0]!.startsWith('$'));
  if (!own.length) return inherited;
  const out = new Map(inherited);
  for (const d of own) {
    const value = substitute(d.args[1]!, out);
    if (value === undefined) out.delete(d.args[0]!.slice(1));
    else out.set(d.args[0]!.slice(1), value);
  }
  return out;
}

/** `$name` / `${name}` from `set` variables; undefined when one is not set in the file. */
function substitute(text: string, vars: Map<string, string>): string | undefined {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const dollar = text.indexOf('$', i);
    if (dollar < 0) return out + text.slice(i);
    out += text.slice(i, dollar);
    let name: string | undefined;
    let end: number;
    if (text[dollar + 1] === '{') {
      const close = text.indexOf('}', dollar + 2);
      if (close < 0) return undefined;
      name = text.slice(dollar + 2, close);
      end = close + 1;
    } else {
      name = /^[A-Za-z0-9_]+/.exec(text.slice(dollar + 1, dollar + 129))?.[0];
      end = dollar + 1 + (name?.length ?? 0);
    }
    if (!name || !vars.has(name)) return undefined;
    out += vars.get(name);
    i = end;
  }
  return out;
}

function locationOf(d: Directive): ProxyRule['location'] | undefined {
  const [first, second] = d.args;
  if (first === undefined) return undefined;
  const kinds: [string, LocationKind][] = [['^~', 'prefix_no_regex'], ['~*', 'regex_case_insensitive'], ['=', 'exact'], ['~', 'regex']];
  for (const [modifier, kind] of kinds) {
    if (first === modifier && second !== undefined) return { kind, path: second, line: d.line };
    if (first.startsWith(modifier) && first.length > modifier.length) return { kind, path: first.slice(modifier.length), line: d.line };
  }
  if (first.startsWith('@')) return { kind: 'named', path: first, line: d.line };
  return { kind: 'prefix', path: first, line: d.line };
}

function proxyRule(file: string, serverLine: number, serverNames: string[], listen: string[], location: ProxyRule['location'], d: Directive, vars: Map<string, string>, rewrites: string[], condition: string | undefined): ProxyRule {
  const written = d.args[0]!;
  const rule: ProxyRule = { file, line: d.line, serverLine, serverNames, listen, location, proxyPass: written, targetHosts: [], pathMode: 'pass' };
  if (rewrites.length) rule.rewrites = rewrites;
  if (condition) rule.condition = condition;
  const hasVariables = written.includes('$');
  const url = hasVariables ? substitute(written, vars) : written;
  if (url === undefined) {
    rule.unresolved = `proxy_pass ${written} uses a variable the file does not set`;
    rule.pathMode = 'unknown';
    return rule;
  }
  const m = /^([a-z][a-z0-9+.-]*):\/\/([^/]*)(\/.*)?$/i.exec(url);
  if (!m) {
    rule.unresolved = `proxy_pass ${written} is not a URL`;
    rule.pathMode = 'unknown';
    return rule;
  }
  const authority = m[2]!;
  const uri = m[3];
  if (authority.startsWith('unix:')) {
    rule.unresolved = `proxy_pass ${written} goes to a unix socket`;
    rule.pathMode = 'unknown';
    return rule;
  }
  const host = hostOfAddress(authority);
  if (host) rule.targetHosts = [host];
  else rule.unresolved = `proxy_pass ${written} names no host`;
  if (uri !== undefined) rule.targetPath = uri;
  if (rewrites.length) rule.pathMode = 'unknown';
  else if (uri === undefined) rule.pathMode = 'pass';
  else if (hasVariables) rule.pathMode = 'replace_all';
  else if (location.kind === 'prefix' || location.kind === 'prefix_no_regex' || location.kind === 'exact') rule.pathMode = 'replace_prefix';
  else rule.pathMode = 'unknown';
  return rule;
}

/** `orders:8080`, `[::1]:80`, `orders` → the host, lower case; `unix:` sockets → undefined. */
function hostOfAddress(address: string): string | undefined {
  if (address.startsWith('unix:')) return undefined;
  const at = address.lastIndexOf('@');
  const hostPort = at >= 0 ? address.slice(at + 1) : address;
  if (hostPort.startsWith('[')) {
    const close = hostPort.indexOf(']');
    return close > 0 ? hostPort.slice(1, close).toLowerCase() : undefined;
  }
  const colon = hostPort.indexOf(':');
  const host = colon < 0 ? hostPort : hostPort.slice(0, colon);
  return host ? host.toLowerCase() : undefined;
}

/**
 * Rules whose host names an upstream block get that block's server hosts: one in the same file first, else the
 * estate's blocks of that name (all of them when several files declare it).
 */
export function resolveUpstreams(rules: readonly ProxyRule[], upstreams: readonly NginxUpstream[]): ProxyRule[] {
  return rules.map((rule) => {
    if (rule.targetHosts.length !== 1) return rule;
    const name = rule.targetHosts[0]!;
    const named = upstreams.filter((u) => u.name.toLowerCase() === name);
    if (!named.length) return rule;
    const same = named.filter((u) => u.file === rule.file);
    const used = same.length ? same : named;
    return { ...rule, upstream: used[0]!.name, targetHosts: [...new Set(used.flatMap((u) => u.hosts))].sort(byString) };
  });
}

/**
 * Whether a location accepts a request path, on its own (which location nginx picks among several is
 * {@link selectLocation}): an exact path, a prefix, or a regular expression found anywhere in the path (PCRE read
 * as RE2, in linear time; a pattern RE2 cannot read accepts nothing).
 */
export function locationAccepts(location: Pick<NginxLocation, 'kind' | 'path'>, requestPath: string): boolean {
  switch (location.kind) {
    case 'exact':
      return requestPath === location.path;
    case 'prefix':
    case 'prefix_no_regex':
      return requestPath.startsWith(location.path);
    case 'regex':
    case 'regex_case_insensitive':
      return patternAccepts(`(?s:.*)(?${location.kind === 'regex' ? '' : 'i'}:${location.path})(?s:.*)`, requestPath);
    default:
      return false;
  }
}

/**
 * The location nginx uses for a request path among a server's locations: an exact match; else the longest
 * matching prefix, whose nested locations are searched first, and which wins outright when it is `^~`; else the
 * first matching regular expression in order; else that longest prefix.
 */
export function selectLocation(locations: readonly NginxLocation[], requestPath: string, depth = 0): NginxLocation | undefined {
  const exact = locations.find((l) => l.kind === 'exact' && l.path === requestPath);
  if (exact) return exact;
  let prefix: NginxLocation | undefined;
  for (const l of locations) if ((l.kind === 'prefix' || l.kind === 'prefix_no_regex') && requestPath.startsWith(l.path) && (!prefix || l.path.length > prefix.path.length)) prefix = l;
  if (prefix && prefix.children.length && depth < MAX_NGINX_DEPTH) {
    const nested = selectLocation(prefix.children, requestPath, depth + 1);
    if (nested) return nested;
  }
  if (prefix?.kind === 'prefix_no_regex') return prefix;
  const regex = locations.find((l) => (l.kind === 'regex' || l.kind === 'regex_case_insensitive') && locationAccepts(l, requestPath));
  return regex ?? prefix;
}

/**
 * The request path that reaches the target at `targetPath` through a rule (the inverse of {@link forwardPath}):
 * the location prefix put back in place of the proxy_pass URI, or the path itself when it is passed unchanged;
 * undefined when no request does (or the rule's rewriting is not evaluated). For a `replace_all` rule, every
 * request the location accepts reaches `targetPath`: the location's own path is returned for prefix and exact
 * locations, undefined for regex ones. `accepts` says which requests the location takes (nginx's rule by default).
 */
export function requestPathFor(rule: ProxyRule, targetPath: string, accepts: (location: ProxyRule['location'], requestPath: string) => boolean = locationAccepts): string | undefined {
  const { kind, path } = rule.location;
  let request: string | undefined;
  switch (rule.pathMode) {
    case 'pass':
      request = targetPath;
      break;
    case 'replace_prefix': {
      const uri = rule.targetPath ?? '';
      if (!targetPath.startsWith(uri)) return undefined;
      request = `${path}${targetPath.slice(uri.length)}`;
      break;
    }
    case 'replace_all':
      if (targetPath !== rule.targetPath) return undefined;
      request = kind === 'exact' || kind === 'prefix' || kind === 'prefix_no_regex' ? path : undefined;
      break;
    default:
      return undefined;
  }
  return request !== undefined && accepts(rule.location, request) ? request : undefined;
}

/**
 * The path a request reaches the target with, as nginx passes it; undefined when the rule does not accept the
 * path or its rewriting is not evaluated.
 */
export function forwardPath(rule: ProxyRule, requestPath: string): string | undefined {
  const { path } = rule.location;
  if (!locationAccepts(rule.location, requestPath)) return undefined;
  switch (rule.pathMode) {
    case 'pass':
      return requestPath;
    case 'replace_all':
      return rule.targetPath;
    case 'replace_prefix':
      return `${rule.targetPath ?? ''}${requestPath.slice(path.length)}`;
    default:
      return undefined;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The estate's deployment, all files together

/** In compose's own order: the base file, then the override file compose applies by itself, then other overlays. */
function composeRank(path: string): number {
  const name = path.slice(path.lastIndexOf('/') + 1);
  if (/^(?:docker-)?compose\.ya?ml$/.test(name)) return 0;
  if (/^(?:docker-)?compose\.override\.ya?ml$/.test(name)) return 1;
  return 2;
}

/**
 * Reads the deployment files among `paths` (posix, relative to the root) through `readText` (which may read any
 * other file of the estate: a compose file's `.env` and `env_file`s): compose services (a directory's compose
 * files merged by service), Kubernetes containers with the Services that select them, nginx proxy rules with their
 * upstreams applied, the httpd files that proxy (as text) and the rows of Nacos seeds. Files of other kinds are ignored.
 */
export function readDeployment(paths: readonly string[], readText: (relPath: string) => string | undefined): Deployment {
  const warnings: string[] = [];
  const read = (path: string): string | undefined => {
    try {
      return readText(path);
    } catch {
      return undefined;
    }
  };
  const compose = new Map<string, ComposeService[]>();
  const workloads: KubeWorkload[] = [];
  const kubeServices: KubeService[] = [];
  const configMaps: KubeConfigMap[] = [];
  const kubeIngresses: KubeIngress[] = [];
  const nais: NaisApplication[] = [];
  const charts: HelmChart[] = [];
  const helmValues: HelmValues[] = [];
  const rules: ProxyRule[] = [];
  const servers: NginxServer[] = [];
  const upstreams: NginxUpstream[] = [];
  const helm: string[] = [];
  const connectors: CdcConnector[] = [];
  const httpd: Deployment['httpd'] = [];
  const nacos: NacosConfig[] = [];
  const dotEnvs = new Map<string, Record<string, string>>();
  const dotEnvOf = (dir: string): Record<string, string> => {
    let vars = dotEnvs.get(dir);
    if (!vars) {
      vars = {};
      const text = read(joinRel(dir, '.env'));
      if (text !== undefined) for (const e of readDotEnv(joinRel(dir, '.env'), text)) if (e.value !== undefined) vars[e.name] = e.value;
      dotEnvs.set(dir, vars);
    }
    return vars;
  };
  for (const path of [...paths].sort(byString)) {
    const kind = deploymentFileKind(path);
    if (!kind) continue;
    const text = read(path);
    if (text === undefined) {
      warnings.push(`cannot read ${path}`);
      continue;
    }
    if (kind === 'compose') {
      const r = readCompose(path, text, dotEnvOf(parentDir(path)));
      warnings.push(...r.warnings);
      const dir = parentDir(path);
      for (const s of r.services) (compose.get(`${dir}\0${s.name}`) ?? compose.set(`${dir}\0${s.name}`, []).get(`${dir}\0${s.name}`)!).push(s);
    } else if (kind === 'kubernetes') {
      const name = lastSegment(path);
      if (name === 'Chart.yaml') {
        const chart = readChart(path, text, read(joinRel(parentDir(path), 'requirements.yaml')), warnings);
        if (chart) charts.push(chart);
        continue;
      }
      if (!looksLikeKubernetes(text)) {
        if (VALUES_FILE.test(name)) {
          const values = readValues(path, text, warnings);
          if (values) helmValues.push(values);
        }
        continue;
      }
      // NAIS manifests are templated by the deploy action (`image: "{{ image }}"`), and are YAML all the same.
      if (text.includes('{{') && !NAIS_API.test(text)) {
        helm.push(path);
        continue;
      }
      const r = readKubernetes(path, text);
      warnings.push(...r.warnings);
      workloads.push(...r.workloads);
      kubeServices.push(...r.services);
      configMaps.push(...r.configMaps);
      kubeIngresses.push(...r.ingresses);
      nais.push(...r.nais);
    } else if (kind === 'connector') {
      if (!text.includes('io.debezium')) continue;
      const r = readConnector(path, text);
      warnings.push(...r.warnings);
      connectors.push(...r.connectors);
    } else if (kind === 'nacos') {
      if (!mentionsNacosConfig(text)) continue;
      const r = readNacosSeed(path, text);
      warnings.push(...r.warnings);
      nacos.push(...r.configs);
    } else if (mentionsHttpdProxy(text)) {
      httpd.push({ file: path, text });
    } else if (nginxNamed(path)) {
      if (!mentionsProxy(text)) continue;
      const r = readNginx(path, text);
      warnings.push(...r.warnings);
      rules.push(...r.rules);
      servers.push(...r.servers);
      upstreams.push(...r.upstreams);
    }
  }
  if (helm.length) warnings.push(`${helm.length} Kubernetes template file(s) are not rendered and not read: ${helm.slice(0, 5).join(', ')}${helm.length > 5 ? ', …' : ''}`);
  const units: DeploymentUnit[] = [];
  for (const group of compose.values()) units.push(composeUnit(group, read, dotEnvOf(parentDir(group[0]!.file)), warnings));
  units.push(...kubeUnits(workloads, kubeServices, configMaps, kubeIngresses));
  units.push(...helmUnits(charts, helmValues, warnings));
  units.push(...nais.map(naisUnit));
  units.sort((a, b) => byString(a.id, b.id));
  return { connectors, units, proxies: resolveUpstreams(rules, upstreams), servers, upstreams, kubeServices, kubeIngresses, httpd, nacos, warnings };
}

function composeUnit(group: ComposeService[], read: (path: string) => string | undefined, vars: Readonly<Record<string, string>>, warnings: string[]): DeploymentUnit {
  const services = [...group].sort((a, b) => composeRank(a.file) - composeRank(b.file) || byString(a.file, b.file));
  const first = services[0]!;
  const unit: DeploymentUnit = {
    kind: 'compose',
    id: `${first.file}#${first.name}`,
    name: first.name,
    files: services.map((s) => s.file),
    line: first.line,
    containerNames: uniq(services.map((s) => s.containerName)),
    images: uniq(services.map((s) => s.image)),
    buildContexts: uniq(services.map((s) => s.build?.context)),
    dockerfiles: uniq(services.map((s) => s.build?.dockerfile)),
    mounts: uniq(services.flatMap((s) => s.mounts)),
    env: [],
    hosts: uniq([first.name, ...services.flatMap((s) => [s.containerName, s.hostname, ...s.aliases])]).sort(byString),
  };
  const ports = [...new Set(services.flatMap((s) => s.publishedPorts))];
  if (ports.length) unit.publishedPorts = ports;
  // A container path its files mount from one place; one they mount differently is not known.
  const sources = new Map<string, Set<string>>();
  for (const b of services.flatMap((s) => s.binds ?? [])) (sources.get(b.target) ?? sources.set(b.target, new Set()).get(b.target)!).add(b.source);
  const binds = [...sources].filter(([, from]) => from.size === 1).map(([target, from]) => ({ source: [...from][0]!, target }));
  if (binds.length) unit.binds = binds;
  // Per file: its env_files, then its environment; an override file (compose.override.yml) over the base file;
  // other overlays (docker-compose.prod.yml) are alternatives: a value they set differently is not known.
  const byName = new Map<string, { entry: EnvEntry; rank: number }[]>();
  for (const s of services) {
    const rank = composeRank(s.file);
    const own = new Map<string, EnvEntry>();
    for (const envFile of s.envFiles) {
      const text = read(envFile);
      if (text === undefined) {
        warnings.push(`${s.file}:${s.line}: env_file ${envFile} of ${s.name} is not in the estate; its variables are not read`);
        continue;
      }
      for (const e of readDotEnv(envFile, text)) {
        // A bare `VAR` line passes the variable through, as in `environment`.
        if (e.value !== undefined) own.set(e.name, e);
        else if (Object.hasOwn(vars, e.name)) own.set(e.name, { ...withoutUnknown(e), value: vars[e.name]! });
      }
    }
    for (const e of s.env) own.set(e.name, e);
    for (const e of own.values()) (byName.get(e.name) ?? byName.set(e.name, []).get(e.name)!).push({ entry: e, rank });
  }
  for (const [, entries] of byName) {
    const base = entries.filter((e) => e.rank < 2);
    const overlays = entries.filter((e) => e.rank === 2);
    const effective = base.length ? base[base.length - 1]!.entry : overlays[0]!.entry;
    const differing = overlays.filter((o) => o.entry !== effective && !sameValue(o.entry, effective));
    if (!differing.length) unit.env.push(effective);
    else {
      const all = [effective, ...differing.map((d) => d.entry)];
      unit.env.push({ name: effective.name, written: effective.written, file: effective.file, line: effective.line, unknown: `is set differently by ${all.map((e) => `${e.file}:${e.line} (${e.written})`).join(', ')}` });
    }
  }
  return unit;
}

function withoutUnknown(e: EnvEntry): EnvEntry {
  const { unknown: _unknown, ...rest } = e;
  return rest;
}

function sameValue(a: EnvEntry, b: EnvEntry): boolean {
  return a.value !== undefined ? a.value === b.value : b.value === undefined && a.written === b.written;
}

const NAIS_API = /^apiVersion[ \t]*:[ \t]*["']?nais\.io\//m;

/**
 * One NAIS application: reached in the cluster by its name (`http://familie-ef-iverksett`, from its namespace or any
 * other as `<name>.<namespace>`), and from outside by its ingresses. The environment is the manifest's, by file name
 * (`nais-preprod.yaml`, `.nais/prod.yaml`); a manifest named only `nais.yaml` is every environment's.
 */
function naisUnit(app: NaisApplication): DeploymentUnit {
  const fileName = lastSegment(app.file).replace(/\.ya?ml$/, '');
  const environment = fileName.replace(/^nais(?:[-._]|$)/, '');
  const dir = parentDir(app.file);
  const unit: DeploymentUnit = {
    kind: 'nais',
    id: `${app.file}#Application/${app.namespace ? `${app.namespace}/` : ''}${app.name}`,
    name: app.name,
    files: [app.file],
    line: app.line,
    containerNames: [],
    images: app.image ? [app.image] : [],
    buildContexts: [],
    dockerfiles: [],
    mounts: [],
    env: app.env,
    hosts: uniq([app.name, ...app.ingresses]).sort(byString),
    dnsNames: [{ name: app.name, ...(app.namespace ? { namespace: app.namespace } : {}) }],
    // The repository a `.nais/` directory belongs to.
    sourceDirs: [lastSegment(dir) === '.nais' ? parentDir(dir) : dir],
  };
  if (environment) unit.environment = environment;
  if (app.ingresses.length) unit.ingressHosts = uniq(app.ingresses).sort(byString);
  if (app.outbound.length) unit.outbound = app.outbound.map((o) => ({ ...o, file: app.file }));
  return unit;
}

function kubeUnits(workloads: KubeWorkload[], services: KubeService[], configMaps: KubeConfigMap[], ingresses: KubeIngress[]): DeploymentUnit[] {
  const sameNamespace = (a: string | undefined, b: string | undefined): boolean => a === undefined || b === undefined || a === b;
  const configMap = (name: string, namespace: string | undefined): KubeConfigMap[] => configMaps.filter((c) => c.name === name && sameNamespace(c.namespace, namespace));
  const out: DeploymentUnit[] = [];
  for (const w of workloads) {
    const selecting = services.filter((s) => Object.keys(s.selector).length > 0 && sameNamespace(s.namespace, w.namespace) && Object.entries(s.selector).every(([k, v]) => w.labels[k] === v));
    const serviceNames = new Set(selecting.map((s) => s.name));
    const ingressHosts = uniq(
      ingresses
        .filter((i) => sameNamespace(i.namespace, w.namespace))
        .flatMap((i) => i.rules.filter((r) => r.services.some((s) => serviceNames.has(s)) || (i.defaultService !== undefined && serviceNames.has(i.defaultService) && !r.services.length)).map((r) => r.host)),
    ).sort(byString);
    const hosts = uniq([w.name, ...selecting.map((s) => s.name), w.serviceName, ...ingressHosts]).sort(byString);
    const dnsNames = uniqDns([
      { name: w.name, ...(w.namespace ? { namespace: w.namespace } : {}) },
      ...selecting.map((s) => ({ name: s.name, ...((s.namespace ?? w.namespace) ? { namespace: (s.namespace ?? w.namespace)! } : {}) })),
      ...(w.serviceName ? [{ name: w.serviceName, ...(w.namespace ? { namespace: w.namespace } : {}) }] : []),
    ]);
    for (const c of w.containers) {
      const env = new Map<string, EnvEntry>();
      for (const from of c.envFrom) {
        if (from.secret) continue;
        const found = configMap(from.configMap!, w.namespace);
        if (found.length !== 1) continue;
        for (const [k, v] of Object.entries(found[0]!.data)) {
          const name = `${from.prefix}${k}`;
          env.set(name, { name, value: v.value, written: `envFrom configMapRef ${from.configMap}`, file: found[0]!.file, line: v.line });
        }
      }
      for (const e of c.env) {
        let entry = e;
        if (e.configMapRef) {
          const found = configMap(e.configMapRef.name, w.namespace).filter((m) => m.data[e.configMapRef!.key] !== undefined);
          const values = new Set(found.map((m) => m.data[e.configMapRef!.key]!.value));
          if (found.length && values.size === 1) {
            const { unknown: _unknown, ...rest } = e;
            entry = { ...rest, value: [...values][0]! };
          } else if (found.length) entry = { ...e, unknown: `comes from key ${e.configMapRef.key} of config map ${e.configMapRef.name}, which the estate defines differently in ${found.map((m) => m.file).join(', ')}` };
        }
        env.delete(e.name);
        env.set(e.name, entry);
      }
      out.push({
        kind: 'kubernetes',
        id: `${w.file}#${w.kind}/${w.namespace ? `${w.namespace}/` : ''}${w.name}/${c.name}`,
        name: w.name,
        container: c.name,
        workload: `${w.file}#${w.kind}/${w.namespace ? `${w.namespace}/` : ''}${w.name}`,
        files: [w.file],
        line: c.line,
        containerNames: c.name ? [c.name] : [],
        images: c.image ? [c.image] : [],
        buildContexts: [],
        dockerfiles: [],
        mounts: [],
        env: expandDependentEnv([...env.values()]),
        hosts,
        dnsNames,
        ...(ingressHosts.length ? { ingressHosts } : {}),
      });
    }
  }
  return out;
}

/** Kubernetes `$(VAR)` references to variables defined before, in the same container; `$$(` stays literal. */
function expandDependentEnv(entries: EnvEntry[]): EnvEntry[] {
  const known = new Map<string, EnvEntry>();
  const out: EnvEntry[] = [];
  for (const e of entries) {
    let entry = e;
    if (e.value !== undefined && e.value.includes('$(')) {
      let text = '';
      let unknown: string | undefined;
      let i = 0;
      const v = e.value;
      while (i < v.length) {
        const at = v.indexOf('$', i);
        if (at < 0) {
          text += v.slice(i);
          break;
        }
        text += v.slice(i, at);
        if (v.startsWith('$$', at)) {
          text += '$';
          i = at + 2;
          continue;
        }
        const close = v[at + 1] === '(' ? v.indexOf(')', at + 2) : -1;
        if (close < 0) {
          text += '$';
          i = at + 1;
          continue;
        }
        const name = v.slice(at + 2, close);
        const ref = known.get(name);
        if (ref?.value !== undefined) text += ref.value;
        else if (ref) unknown ??= `uses $(${name}), which ${ref.unknown}`;
        else text += `$(${name})`;
        i = close + 1;
      }
      entry = unknown ? { name: e.name, written: e.written, file: e.file, line: e.line, unknown } : { ...e, value: text };
    }
    known.set(e.name, entry);
    out.push(entry);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Paths

function uniq(items: (string | undefined)[]): string[] {
  return [...new Set(items.filter((x): x is string => !!x))];
}

function parentDir(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

function lastSegment(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

function joinRel(dir: string, name: string): string {
  return dir === '' ? name : `${dir}/${name}`;
}

/** `dir` joined with a relative path, normalized; undefined when absolute or when it leaves the estate. */
function resolveRel(dir: string, rel: string): string | undefined {
  const text = rel.trim().replace(/\\/g, '/');
  if (!text || text.startsWith('/') || text.startsWith('~') || /^[A-Za-z]:/.test(text) || text.includes('$')) return undefined;
  const parts = dir ? dir.split('/') : [];
  for (const seg of text.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (!parts.length) return undefined;
      parts.pop();
    } else parts.push(seg);
  }
  return parts.join('/');
}

function byString(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
