import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { quotePattern } from '../../../search/patterns.js';
import { type CdcConnector, type DeploymentUnit, type DnsName, type EnvEntry, type NginxServer, type ProxyRule, readDeployment } from './deployment.js';
import type { Discovery } from '../discover.js';
import { canonicalKey } from '../eval/config.js';
import { readHttpd } from './httpd.js';
import { type NacosConfig, nacosConfigFor, type NacosDocument } from './nacos.js';
import { applicationName, parseSpringConfig, profiledDocuments, resolvePlaceholders, type SpringConfigFile } from './spring-config.js';

export type BuildTool = 'maven' | 'gradle' | 'none';

export interface ModuleInfo {
  name: string;
  /** posix, relative to the root; '' = the root. */
  dir: string;
  buildFile?: string;
  buildTool: BuildTool;
}

export interface ServiceInfo {
  name: string;
  dir: string;
  nameFrom: 'spring.application.name' | 'directory';
  buildTool: BuildTool;
  modules: ModuleInfo[];
  applicationNameFile?: string;
  configFiles: string[];
  /** Files a config server in the estate serves it (`application.*` and `<name>.*` of its search locations), lowest precedence first. */
  configServerFiles?: string[];
  /**
   * Files its deployment points Spring Boot at (`SPRING_CONFIG_LOCATION`, `SPRING_CONFIG_ADDITIONAL_LOCATION`), read
   * where the container sees the estate's files (compose bind mounts), lowest precedence first.
   */
  configLocationFiles?: string[];
  /** The documents a Nacos config server seeded by the estate serves it (see {@link applyNacos}), lowest precedence first. */
  nacosConfigs?: NacosServed[];
  /**
   * Default-profile configuration of the service (`application*` over `bootstrap*`, the deployable unit's own
   * resources over others), flattened: what `${…}` placeholders in its code resolve against.
   */
  config: Record<string, string>;
  /** Each other profile's own configuration (`application-dev.yml`, `on-profile` documents), by profile. */
  profiles: Record<string, Record<string, string>>;
  /** The file each default-profile key comes from (`docker-compose.yml:42` for a deployment's environment). */
  configOrigins?: Record<string, string>;
  /** The Spring Cloud Stream binder its build brings (`spring-cloud-starter-stream-rabbit`…): the default binder when configuration names none. */
  streamBinder?: 'kafka' | 'rabbit';
  /** The line of its origin file each default-profile key is set on (deployment origins carry theirs in `configOrigins`). */
  configLines?: Record<string, number>;
  /**
   * Keys a deployment file sets from what it leaves to its own environment (`CONFIG_SERVICE_PASSWORD:
   * $CONFIG_SERVICE_PASSWORD`, a Kubernetes secret): their value is not known, and no application file's value or
   * `${…:default}` stands in for it. Key (as `config` would hold it, raw and relaxed) → why.
   */
  configHoles?: Record<string, string>;
  /**
   * The names other services may address it by, from the estate's deployment files: compose service keys,
   * `container_name`, `hostname`, network aliases, Kubernetes workload names and the Services selecting them, NAIS
   * application names, and Ingress hosts (see `ingressHosts`). Sorted, without repeats; empty when no deployment
   * file describes it.
   */
  hosts: string[];
  /** The deployment units (compose services, Kubernetes containers, Helm values files, NAIS manifests) that run it, by id. */
  deployedBy?: string[];
  /**
   * Names the cluster DNS resolves to it (the Kubernetes Services selecting it, its workloads, Helm `fullnameOverride`,
   * NAIS applications), each also reachable as `name.namespace`, `name.namespace.svc` and
   * `name.namespace.svc.cluster.local`; in any namespace when the manifests give none. {@link hostIndex} answers for
   * every form. Sorted; absent when no Kubernetes-style deployment describes it.
   */
  dnsNames?: DnsName[];
  /** The hosts of `hosts` that are Ingress hosts (Ingress manifests, Helm ingress values, NAIS `ingresses`), sorted. */
  ingressHosts?: string[];
  /**
   * Ingress hosts with parts the platform fills in, written with `${key}` holes where `key` is the hole's `at`
   * (`bulk-scan-processor-${.values.global.environment}.service.core-compute-${.values.global.environment}.internal`),
   * lower case: a URL host with the same holes in the same places names it ({@link hostTemplateOf}, {@link hostIndex}).
   */
  hostTemplates?: string[];
  /**
   * The ports it listens on, for `localhost:<port>`: `server.port` of its configuration (default profile and each
   * Spring profile) and the host ports its compose services publish. In configuration order, then file order.
   */
  ports?: ServicePort[];
  /**
   * Deployment environments (Helm values files per environment, NAIS manifests per cluster), by the key of the layer
   * `profiles` holds for each: `<platform>:<environment>` (`helm:dev`, `nais:preprod`). Such a layer is what the
   * code sees there: the Spring profiles the environment activates (`SPRING_PROFILES_ACTIVE`, groups expanded), then
   * the deployment's environment variables for every environment, then that environment's own, relaxed as Spring
   * binds them. So a key set differently per environment has one value per environment layer.
   */
  environments?: Record<string, EnvironmentInfo>;
  /** NAIS `accessPolicy.outbound.rules`: the applications its manifests say it calls (informative, not a link). */
  declaredCallees?: { application: string; namespace?: string; cluster?: string; file: string; line: number }[];
}

export interface EnvironmentInfo {
  platform: 'helm' | 'nais';
  /** As the deployment names it (`dev`, `preprod`, `aat`). */
  name: string;
  /** The files that describe it, sorted. */
  files: string[];
  /** The Spring profiles it activates, in order, groups expanded; their values are under the layer's. */
  springProfiles: string[];
  /** Where each key of the layer that the environment's variables set comes from (`helm_deploy/values-dev.yaml:12`). */
  origins: Record<string, string>;
  /** Keys its variables leave unknown there (a Kubernetes secret, a template): key → why. Not in the layer. */
  holes?: Record<string, string>;
}

/** A Nacos document a service loads, and where the estate's seed writes it. */
export interface NacosServed {
  dataId: string;
  group: string;
  tenant?: string;
  /** The profile its data id carries; null for every profile. */
  profile: string | null;
  /** In the service's configuration as it runs (else in `profiles[profile]`). */
  active: boolean;
  via: NacosDocument['via'];
  /** `file:line` of its row in the seed. */
  at: string;
}

export interface ServicePort {
  port: number;
  how: 'server.port' | 'published';
  /** `file` of the configuration, or `file:line` of the compose service. */
  at: string;
  /** The Spring profile whose configuration sets it, when not the default. */
  profile?: string;
}

/**
 * A deployment unit that runs no service of the estate (an image built elsewhere: familie-brev, payment, an IAM
 * server, and infrastructure alike), as a service a client or gateway may address. Units of one name are one
 * candidate. Nothing is a service node until something targets it.
 */
export interface DeploymentOnly {
  /** `spring.application.name` of an estate directory it builds without sources (config only), else the unit's name. */
  name: string;
  /** The names it is reached by (compose keys, container names, aliases, workloads, Services, ingress hosts), sorted. */
  hosts: string[];
  dnsNames?: DnsName[];
  hostTemplates?: string[];
  /** Host ports its compose services publish. */
  ports?: number[];
  images: string[];
  /** The first unit's file and line. */
  file: string;
  line: number;
  /** Its deployment units, by id. */
  units: string[];
  /** Whether it runs a reverse proxy of the estate (nginx rules it mounts or builds): those are services already. */
  proxy?: boolean;
}

/** An nginx or httpd proxy rule of the estate, with who runs it and where it sends requests. */
export interface LayoutProxy extends ProxyRule {
  /** The proxy whose rule it is: which locations it takes a request in, and the route's `framework`. */
  kind: ProxyKind;
  /** The estate service that owns the proxy's file (deploys it, or holds it in its directory), if any. */
  service?: string;
  /** The names the proxy itself is addressed by: the hosts of the compose services that mount or build the file. */
  hosts: string[];
  /** The estate services `targetHosts` name (by their hosts, else their names, any case). */
  targetServices: string[];
}

export type ProxyKind = 'nginx' | 'httpd';

/** A deployment unit of the estate, with the service it runs when it runs one. */
export type LayoutDeployment = DeploymentUnit & { service?: string };

export interface Layout {
  /** Services that own source files or a deployable build unit, sorted by name. */
  services: ServiceInfo[];
  /** The service and module of a file (posix, relative to the root); answers for any path, cached per directory. */
  locate(path: string): { service: string; module: string };
  /**
   * nginx and httpd proxy rules in the estate's deployment files, by file, each file's in its order (an httpd file's
   * is the order mod_proxy tries them in).
   */
  proxies: LayoutProxy[];
  /** The nginx server blocks of the nginx rules (`file` + `line` = a rule's `file` + `serverLine`), every location listed. */
  proxyServers: NginxServer[];
  /** Debezium connectors the estate registers (change-data-capture topics). */
  connectors: CdcConnector[];
  /** Compose services, Kubernetes containers, Helm values and NAIS manifests of the estate, matched to the services they run. */
  deployments: LayoutDeployment[];
  /** Deployment units that run no service of the estate, by name, sorted: candidates for the services a client names. */
  deploymentOnly: DeploymentOnly[];
  /**
   * The service a host name (any case) addresses, from services' `hosts`, `dnsNames` (every cluster DNS form) and
   * `hostTemplates`; undefined when none or several claim it.
   */
  serviceOfHost(host: string): string | undefined;
  warnings: string[];
  /** What `locate` answers from, as data: a layout recalled from it places files as this one does. */
  placement: LayoutPlacement;
}

/** What places a file in a service and a module (see {@link locatorOf}), as data. */
export interface LayoutPlacement {
  rootName: string;
  /** Whether the estate's files sit under several top directories: a file under no build unit is then its top directory's. */
  several: boolean;
  /** Each build unit's directory, and the directory of the service it belongs to. */
  units: [string, string][];
  /** Each service scope's directory, and its service's name. */
  scopes: [string, string][];
}

/** The service and module of a file (posix, relative to the root), for any path; cached per directory. */
export function locatorOf(placement: LayoutPlacement): (path: string) => { service: string; module: string } {
  const serviceDirOfUnit = new Map(placement.units);
  const names = new Map(placement.scopes);
  const nearest = new Map<string, string | null>();
  const nearestUnit = (dir: string): string | undefined => {
    const cached = nearest.get(dir);
    if (cached !== undefined) return cached ?? undefined;
    const unit = serviceDirOfUnit.has(dir) ? dir : dir === '' ? undefined : nearestUnit(parentDir(dir));
    nearest.set(dir, unit ?? null);
    return unit;
  };
  const located = new Map<string, { service: string; module: string }>();
  return (path) => {
    const dir = parentDir(normalizePath(path));
    let hit = located.get(dir);
    if (!hit) {
      const unit = nearestUnit(dir);
      const scopeDir = unit !== undefined ? serviceDirOfUnit.get(unit)! : unitlessDir(placement.several, dir);
      const service = names.get(scopeDir) ?? dirName(scopeDir, placement.rootName);
      hit = { service, module: unit !== undefined ? dirName(unit, placement.rootName) : service };
      located.set(dir, hit);
    }
    return hit;
  };
}

/** The service a host name (any case) addresses among these services (see {@link Layout.serviceOfHost}). */
export function hostOwnerOf(services: readonly ServiceInfo[]): (host: string) => string | undefined {
  const owners = hostIndex(services);
  return (host) => owners.get(host);
}

interface Unit {
  dir: string;
  buildFile: string;
  buildTool: BuildTool;
  children: Unit[];
  deployable: boolean;
  /** A deployment builds its directory (a Dockerfile there): one image, so one service with every module below. */
  built: boolean;
  deployablesBelow: number;
}

interface Scope {
  dir: string;
  units: Unit[];
  configFiles: string[];
  fileCount: number;
  name: string;
  nameFrom: ServiceInfo['nameFrom'];
  applicationNameFile?: string;
  config: Record<string, string>;
  profiles: Record<string, Record<string, string>>;
  configOrigins: Record<string, string>;
  configLines: Record<string, number>;
  configHoles: Record<string, string>;
  hosts: Set<string>;
  deployedBy: string[];
  configServerFiles: string[];
  configLocationFiles: string[];
  dnsNames: DnsName[];
  ingressHosts: Set<string>;
  hostTemplates: Set<string>;
  published: ServicePort[];
  /** The units that run it (see {@link applyDeployment}). */
  runBy: DeploymentUnit[];
  /** `spring.profiles.active` as its own files set it, before any deployment's environment. */
  filesActiveProfiles?: string;
  environments: Record<string, EnvironmentInfo>;
  declaredCallees: NonNullable<ServiceInfo['declaredCallees']>;
  /** Keys its deployment's environment variables set, and (upper case) the variables: what config data imports rank under. */
  environmentKeys: Set<string>;
  environmentNames: Set<string>;
  nacosConfigs: NacosServed[];
}

const BUILD_FILE_PREFERENCE = ['pom.xml', 'build.gradle.kts', 'build.gradle', 'settings.gradle.kts', 'settings.gradle'];
const OWN_RESOURCES = /^src\/(?:main|[a-z][A-Za-z0-9]*Main)\/resources\//;

export function detectLayout(
  discovery: Discovery,
  readText: (relPath: string) => string | undefined,
  deployableDirs?: ReadonlySet<string>,
  /** The file names of a directory (relative to the root), for deployment directories discovery does not walk (`.nais`). */
  listDir: (relDir: string) => string[] | undefined = fileLister(discovery.root),
): Layout {
  const warnings: string[] = [];
  const rootName = basename(discovery.root);
  const units = buildUnits(discovery.buildFiles);
  const nearestUnit = nearestUnitFinder(units);
  const configs = readConfigs(discovery.configFiles, readText, warnings);
  markDeployables(units, nearestUnit, discovery.configFiles, deployableDirs);
  const deploymentFiles = [...new Set([...(discovery.deploymentFiles ?? []), ...hiddenDeploymentFiles(discovery, units, listDir)])].sort(byString);
  const deployment = readDeployment(deploymentFiles, readText);
  warnings.push(...deployment.warnings);
  markBuilt(units, deployment.units);
  const serviceDirOfUnit = assignServices(units, nearestUnit);
  const several = severalTopDirs(discovery);
  const scopeDirOf = (dir: string): string => {
    const unit = nearestUnit(dir);
    return unit ? serviceDirOfUnit.get(unit.dir)! : unitlessDir(several, dir);
  };

  const scopes = collectScopes(discovery, units, serviceDirOfUnit, scopeDirOf);
  for (const scope of scopes.values()) nameScope(scope, configs, rootName);
  const runs = applyDeployment([...scopes.values()].filter(isListed), deployment.units, rootName, warnings);
  for (const scope of scopes.values()) if (isListed(scope)) applyConfigLocations(scope, readText, warnings);
  applyConfigServers([...scopes.values()], readText, warnings);
  applyNacos([...scopes.values()].filter(isListed), deployment.nacos, warnings);
  for (const scope of scopes.values()) if (isListed(scope)) applyEnvironmentLayers(scope);
  const services = listServices(scopes, rootName, warnings);
  const serviceOfHost = hostOwnerOf(services);
  const deployments: LayoutDeployment[] = deployment.units.map((u) => {
    const scope = runs.get(u);
    return scope ? { ...u, service: scope.name } : { ...u };
  });
  const catalog = consulCatalog([...scopes.values()].filter(isListed));
  const rules = [...deployment.proxies.map((r) => ({ ...r, kind: 'nginx' as const })), ...httpdRules(deployment.httpd, [...catalog.keys()], warnings)];
  // By file; a file's rules keep their order, which for httpd is the order they are tried in.
  rules.sort((a, b) => byString(a.file, b.file));
  const proxies = layoutProxies(rules, deployment.units, runs, [...scopes.values()].filter(isListed), services, catalog);
  const deploymentOnly = deploymentOnlyCandidates(deployment.units, runs, discovery.configFiles, configs, rules, rootName);

  // Read when every scope has its final name.
  const placement: LayoutPlacement = { rootName, several, units: [...serviceDirOfUnit], scopes: [...scopes].map(([dir, scope]) => [dir, scope.name]) };
  return { services, locate: locatorOf(placement), proxies, proxyServers: deployment.servers, connectors: deployment.connectors, deployments, deploymentOnly, serviceOfHost, warnings, placement };
}

function buildUnits(buildFiles: string[]): Map<string, Unit> {
  const byDir = new Map<string, string[]>();
  for (const file of buildFiles) {
    const dir = parentDir(file);
    byDir.set(dir, [...(byDir.get(dir) ?? []), lastSegment(file)]);
  }
  const units = new Map<string, Unit>();
  for (const dir of [...byDir.keys()].sort(byString)) {
    const names = byDir.get(dir)!;
    const name = BUILD_FILE_PREFERENCE.find((n) => names.includes(n)) ?? names[0]!;
    units.set(dir, {
      dir,
      buildFile: joinRel(dir, name),
      buildTool: name === 'pom.xml' ? 'maven' : 'gradle',
      children: [],
      deployable: false,
      built: false,
      deployablesBelow: 0,
    });
  }
  return units;
}

function nearestUnitFinder(units: Map<string, Unit>): (dir: string) => Unit | undefined {
  const cache = new Map<string, Unit | null>();
  const nearest = (dir: string): Unit | undefined => {
    const cached = cache.get(dir);
    if (cached !== undefined) return cached ?? undefined;
    const unit = units.get(dir) ?? (dir === '' ? undefined : nearest(parentDir(dir)));
    cache.set(dir, unit ?? null);
    return unit;
  };
  return nearest;
}

function readConfigs(paths: string[], readText: (relPath: string) => string | undefined, warnings: string[]): Map<string, SpringConfigFile[]> {
  const configs = new Map<string, SpringConfigFile[]>();
  for (const path of paths) {
    const text = safeRead(readText, path);
    if (text === undefined) {
      warnings.push(`cannot read ${path}`);
      continue;
    }
    configs.set(path, parseSpringConfig(path, text, warnings));
  }
  return configs;
}

function safeRead(readText: (relPath: string) => string | undefined, path: string): string | undefined {
  try {
    return readText(path);
  } catch {
    return undefined;
  }
}

function markDeployables(
  units: Map<string, Unit>,
  nearestUnit: (dir: string) => Unit | undefined,
  configFiles: string[],
  deployableDirs: ReadonlySet<string> | undefined,
): void {
  for (const path of configFiles) {
    const unit = nearestUnit(parentDir(path));
    if (unit && OWN_RESOURCES.test(relativeTo(unit.dir, path))) unit.deployable = true;
  }
  for (const dir of deployableDirs ?? []) {
    const unit = nearestUnit(normalizePath(dir));
    if (unit) unit.deployable = true;
  }
}

/** Build units a compose service builds: its Dockerfile's directory when it names one, else its build context. */
function markBuilt(units: Map<string, Unit>, deployed: readonly DeploymentUnit[]): void {
  for (const d of deployed) {
    const dirs = d.dockerfiles.length ? d.dockerfiles.map(parentDir) : d.buildContexts;
    for (const dir of dirs) {
      const unit = units.get(dir);
      if (unit) unit.built = true;
    }
  }
}

/**
 * Unit dir → the dir of the service it belongs to. A unit whose subtree holds ≥2 deployables is an aggregator, unless
 * a deployment builds its directory: one image of a multi-module build (its other modules libraries, configuration
 * and all).
 */
function assignServices(units: Map<string, Unit>, nearestUnit: (dir: string) => Unit | undefined): Map<string, string> {
  const tops: Unit[] = [];
  for (const unit of units.values()) {
    const parent = unit.dir === '' ? undefined : nearestUnit(parentDir(unit.dir));
    if (parent) parent.children.push(unit);
    else tops.push(unit);
  }
  for (const top of tops) countDeployables(top);
  const serviceDir = new Map<string, string>();
  const assign = (unit: Unit): void => {
    if (unit.deployablesBelow <= 1 || unit.built) return markSubtree(unit, unit.dir, serviceDir);
    serviceDir.set(unit.dir, unit.dir);
    for (const child of unit.children) assign(child);
  };
  for (const top of tops) assign(top);
  return serviceDir;
}

function countDeployables(unit: Unit): number {
  unit.deployablesBelow = (unit.deployable ? 1 : 0) + unit.children.reduce((sum, c) => sum + countDeployables(c), 0);
  return unit.deployablesBelow;
}

function markSubtree(unit: Unit, service: string, serviceDir: Map<string, string>): void {
  serviceDir.set(unit.dir, service);
  for (const child of unit.children) markSubtree(child, service, serviceDir);
}

/** Outside every build unit: the top-level directory when the root holds several, else the root. */
function severalTopDirs(discovery: Discovery): boolean {
  const topDirs = new Set<string>();
  for (const file of discovery.files) {
    const slash = file.path.indexOf('/');
    if (slash > 0) topDirs.add(file.path.slice(0, slash));
  }
  return topDirs.size > 1;
}

/** The scope of a directory under no build unit: its top directory when the files sit under several, else the root. */
function unitlessDir(several: boolean, dir: string): string {
  const top = dir.split('/')[0]!;
  return several && top !== 'src' ? top : '';
}

function collectScopes(
  discovery: Discovery,
  units: Map<string, Unit>,
  serviceDirOfUnit: Map<string, string>,
  scopeDirOf: (dir: string) => string,
): Map<string, Scope> {
  const scopes = new Map<string, Scope>();
  const scope = (dir: string): Scope => {
    let s = scopes.get(dir);
    if (!s) {
      s = {
        dir,
        units: [],
        configFiles: [],
        fileCount: 0,
        name: '',
        nameFrom: 'directory',
        config: {},
        profiles: {},
        configOrigins: {},
        configLines: {},
        configHoles: {},
        hosts: new Set(),
        deployedBy: [],
        configServerFiles: [],
        configLocationFiles: [],
        dnsNames: [],
        ingressHosts: new Set(),
        hostTemplates: new Set(),
        published: [],
        runBy: [],
        environments: {},
        declaredCallees: [],
        environmentKeys: new Set(),
        environmentNames: new Set(),
        nacosConfigs: [],
      };
      scopes.set(dir, s);
    }
    return s;
  };
  for (const unit of units.values()) scope(serviceDirOfUnit.get(unit.dir)!).units.push(unit);
  for (const file of discovery.files) scope(scopeDirOf(parentDir(file.path))).fileCount++;
  for (const path of discovery.configFiles) scope(scopeDirOf(parentDir(path))).configFiles.push(path);
  return scopes;
}

function nameScope(scope: Scope, configs: Map<string, SpringConfigFile[]>, rootName: string): void {
  const ranked = [...scope.configFiles].sort((a, b) => configRank(scope, a) - configRank(scope, b) || byString(a, b));
  const files = ranked.flatMap((path) => configs.get(path) ?? []);
  const defaults = files.filter((f) => f.profile === null);
  // Lowest precedence first, so the best-ranked application file is applied last and wins.
  for (const f of [...defaults.filter((d) => d.kind === 'bootstrap').reverse(), ...defaults.filter((d) => d.kind === 'application').reverse()]) {
    for (const [k, v] of f.values) {
      scope.config[k] = v;
      scope.configOrigins[k] = f.path;
      scope.configLines[k] = f.lines.get(k) ?? 0;
    }
  }
  const profiled = files.filter((f) => f.profile !== null);
  for (const f of [...profiled.filter((d) => d.kind === 'bootstrap').reverse(), ...profiled.filter((d) => d.kind === 'application').reverse()]) {
    const own = (scope.profiles[f.profile!] ??= {});
    for (const [k, v] of f.values) own[k] = v;
  }
  const found = applicationName(files);
  if (found) {
    scope.name = found.name;
    scope.nameFrom = 'spring.application.name';
    scope.applicationNameFile = found.file;
  } else {
    scope.name = dirName(scope.dir, rootName);
  }
}

const SEARCH_LOCATIONS = ['spring.cloud.config.server.native.search-locations', 'spring.cloud.config.server.native.searchLocations'];
const CONFIG_FORMATS = ['yml', 'yaml', 'properties'];

/**
 * A Spring Cloud Config server in the estate with a native repository (`search-locations: classpath:/shared`)
 * serves its files to the services that import configuration from a config server: `application.*` to all,
 * `<application>.*` to each (profile documents inside them too), over the service's own files, as Spring Cloud
 * Config gives remote properties precedence.
 */
function applyConfigServers(scopes: Scope[], readText: (relPath: string) => string | undefined, warnings: string[]): void {
  const servers = scopes
    .map((scope) => ({ scope, locations: configServerLocations(scope) }))
    .filter((x) => x.locations.length > 0);
  if (!servers.length) return;
  for (const client of scopes) {
    if (servers.some((s) => s.scope === client) || !importsConfigServer(client)) continue;
    const uri = [client.config['spring.cloud.config.uri'], client.config['spring.config.import'], ...Object.values(client.profiles).flatMap((p) => [p['spring.cloud.config.uri'], p['spring.config.import']])].filter((x): x is string => !!x).join(' ');
    const named = servers.filter((s) => [s.scope.name, lastSegment(s.scope.dir), ...s.scope.hosts].some((n) => new RegExp(`//${quotePattern(n)}[:/]`, 'i').test(`${uri}/`)));
    const server = named.length === 1 ? named[0]! : servers.length === 1 ? servers[0]! : undefined;
    if (!server) {
      warnings.push(`${client.name} imports configuration from a config server, and ${servers.length} config servers in the estate could serve it (${servers.map((s) => s.scope.name).join(', ')}); none is applied`);
      continue;
    }
    const files: SpringConfigFile[] = [];
    for (const name of ['application', client.name]) {
      for (const dir of server.locations) {
        for (const ext of CONFIG_FORMATS) {
          const path = joinRel(dir, `${name}.${ext}`);
          const text = safeRead(readText, path);
          if (text === undefined) continue;
          files.push(...parseSpringConfig(path, text, warnings).map((f) => ({ ...f, profile: f.profile === 'application' || f.profile === client.name ? null : f.profile })));
          client.configServerFiles.push(path);
        }
      }
    }
    for (const f of files) {
      if (f.profile === null) {
        for (const [k, v] of f.values) {
          client.config[k] = v;
          client.configOrigins[k] = f.path;
          client.configLines[k] = f.lines.get(k) ?? 0;
          delete client.configHoles[k];
        }
      } else {
        const own = (client.profiles[f.profile] ??= {});
        for (const [k, v] of f.values) own[k] = v;
      }
    }
  }
}

const CONFIG_LOCATION = 'spring.config.location';
const CONFIG_ADDITIONAL_LOCATION = 'spring.config.additional-location';
const CONFIG_NAME = 'spring.config.name';

/** One configuration file a config data location gives, with the profile a profile-specific variant is for. */
interface LocatedFile {
  path: string;
  profile: string | null;
}

/**
 * Spring Boot's config data locations a deployment gives a service (`SPRING_CONFIG_LOCATION=file:/config-repo/
 * application.yml,file:/config-repo/orders.yml`, `SPRING_CONFIG_ADDITIONAL_LOCATION`), read where the container sees
 * the estate's files: an absolute path through the unit's bind mounts (`./config-repo:/config-repo`), `classpath:`
 * from the service's own resources; a relative path (the container's working directory) is not known. A location
 * is a file, or a directory (ending in `/`) holding `<spring.config.name>.properties|yml|yaml` (`application`);
 * either way the `<name>-<profile>` variant beside it is loaded for each profile the unit activates. Later locations
 * win over earlier ones; a variant's values go to its profile. They rank over the service's own files (which stay
 * under them: the service also runs where the variable is not set) and under the deployment's environment variables,
 * and a `spring.application.name` they set names the service. Units that locate different files apply none.
 */
function applyConfigLocations(scope: Scope, readText: (relPath: string) => string | undefined, warnings: string[]): void {
  const lists = new Map<string, { unit: DeploymentUnit; files: LocatedFile[] }>();
  for (const unit of scope.runBy) {
    const env = (key: string): string | undefined => unit.env.find((e) => e.value !== undefined && (relaxedEnvKey(e.name) === key || environmentForms(key).includes(e.name.toUpperCase())))?.value;
    const locations = [env(CONFIG_LOCATION), env(CONFIG_ADDITIONAL_LOCATION)].filter((l): l is string => !!l?.trim());
    if (!locations.length) continue;
    const names = (env(CONFIG_NAME) ?? 'application').split(',').map((n) => n.trim()).filter(Boolean);
    const profiles = activeProfiles(env('spring.profiles.active') ?? scope.filesActiveProfiles, scope.config);
    const files: LocatedFile[] = [];
    for (const location of locations.flatMap((l) => l.split(','))) {
      for (const base of locatedFiles(location.trim(), unit, scope, names)) {
        for (const ext of base.exts) {
          const path = `${base.stem}.${ext}`;
          if (safeRead(readText, path) !== undefined && !files.some((f) => f.path === path)) files.push({ path, profile: null });
        }
      }
    }
    // Profile-specific variants rank over every plain file, in the order of their locations.
    const plain = [...files];
    for (const p of profiles) {
      for (const f of plain) {
        const dot = f.path.lastIndexOf('.');
        const path = `${f.path.slice(0, dot)}-${p}${f.path.slice(dot)}`;
        if (safeRead(readText, path) !== undefined && !files.some((x) => x.path === path)) files.push({ path, profile: p });
      }
    }
    if (files.length) lists.set(JSON.stringify(files), { unit, files });
  }
  if (!lists.size) return;
  if (lists.size > 1) {
    warnings.push(`${scope.name}: its deployment units locate different configuration files (${[...lists.values()].map((l) => `${l.unit.id}: ${l.files.map((f) => f.path).join(', ')}`).join('; ')}); none is applied`);
    return;
  }
  const { files } = [...lists.values()][0]!;
  let named: { name: string; file: string } | undefined;
  for (const f of files) {
    const text = safeRead(readText, f.path)!;
    scope.configLocationFiles.push(f.path);
    for (const { doc, profile } of profiledDocuments(f.path, text, warnings, f.profile)) {
      if (profile !== null) {
        const layer = (scope.profiles[profile] ??= {});
        for (const [k, v] of doc.values) if (!setByEnvironment(scope, k)) layer[k] = v;
        continue;
      }
      for (const [k, v] of doc.values) {
        if (setByEnvironment(scope, k)) continue;
        scope.config[k] = v;
        scope.configOrigins[k] = f.path;
        scope.configLines[k] = doc.lines.get(k) ?? 0;
        delete scope.configHoles[k];
        if (k === 'spring.application.name') named = { name: v, file: f.path };
      }
    }
  }
  if (named) {
    const name = resolvePlaceholders(named.name, new Map(Object.entries(scope.config)))?.trim();
    if (name) {
      scope.name = name;
      scope.nameFrom = 'spring.application.name';
      scope.applicationNameFile = named.file;
    }
  }
}

/**
 * The files one config data location names, as a stem (relative to the root, without extension) and the extensions
 * to try (lowest precedence first): a file as named, a directory's `<name>.*` for each config name.
 */
function locatedFiles(written: string, unit: DeploymentUnit, scope: Scope, names: readonly string[]): { stem: string; exts: string[] }[] {
  const location = written.replace(/^optional:/, '');
  if (!location || location.includes('*') || location.includes('${')) return [];
  let path: string | undefined;
  const classpath = /^classpath\*?:\/?(.*)$/.exec(location);
  if (classpath) {
    const own = scope.units.find((u) => u.deployable) ?? scope.units[0];
    path = joinRel(joinRel(own?.dir ?? scope.dir, 'src/main/resources'), classpath[1]!);
  } else {
    const file = /^(?:file:)?(\/[^:]*)$/.exec(location.replace(/^file:\/\/(?=\/)/, 'file:'));
    if (!file) return [];
    const absolute = file[1]!.replace(/\/{2,}/g, '/');
    const bind = (unit.binds ?? []).filter((b) => absolute === b.target || absolute.startsWith(`${b.target}/`)).sort((a, b) => b.target.length - a.target.length)[0];
    if (!bind) return [];
    const rest = absolute.slice(bind.target.length).replace(/^\/+/, '');
    path = rest ? joinRel(bind.source, rest) : bind.source;
  }
  if (location.endsWith('/')) return names.map((n) => ({ stem: joinRel(path!.replace(/\/+$/, ''), n), exts: CONFIG_FORMATS }));
  const dot = path.lastIndexOf('.');
  const ext = dot > path.lastIndexOf('/') ? path.slice(dot + 1) : '';
  return CONFIG_FORMATS.includes(ext) ? [{ stem: path.slice(0, dot), exts: [ext] }] : [];
}

/** The directories (relative to the root) a native config server reads, from its search locations. */
function configServerLocations(scope: Scope): string[] {
  const written = SEARCH_LOCATIONS.map((k) => scope.config[k]).find((v) => v !== undefined);
  const nativeProfile = /(^|,)\s*native\s*(,|$)/.test(scope.config['spring.profiles.active'] ?? '');
  if (written === undefined && !nativeProfile) return [];
  const unit = scope.units.find((u) => u.deployable) ?? scope.units[0];
  const base = unit?.dir ?? scope.dir;
  const out: string[] = [];
  for (const raw of (written ?? 'classpath:/,classpath:/config').split(',').map((l) => l.trim()).filter(Boolean)) {
    const classpath = /^classpath\*?:\/?(.*)$/.exec(raw);
    const file = /^file:(?!\/\/\/|\/)(?:\.\/)?(.*)$/.exec(raw);
    const rel = classpath ? joinRel(joinRel(base, 'src/main/resources'), classpath[1]!.replace(/\/+$/, '')) : file ? joinRel(base, file[1]!.replace(/\/+$/, '')) : undefined;
    if (rel !== undefined && !rel.includes('{') && !rel.includes('$')) out.push(rel.replace(/\/+$/, ''));
  }
  return out;
}

function importsConfigServer(scope: Scope): boolean {
  const layers = [scope.config, ...Object.values(scope.profiles)];
  return layers.some((c) => (c['spring.config.import'] ?? '').includes('configserver:') || c['spring.cloud.config.uri'] !== undefined || Object.keys(c).some((k) => /^spring\.config\.import\[\d+\]$/.test(k) && c[k]!.includes('configserver:')));
}


/** What a Nacos document's content is parsed as, by its format: the name only picks the parser. */
const NACOS_PARSE_AS: Record<NacosDocument['format'], string> = { yaml: 'nacos.yml', properties: 'nacos.properties' };

/**
 * A Nacos config server seeded by the estate (`config_info` rows of a SQL dump) serves each service the documents
 * Spring Cloud Alibaba loads for it ({@link nacosConfigFor}), over its own files: a document imported as config data
 * (`spring.config.import: nacos:…`) ranks under the deployment's environment variables, one the bootstrap locator
 * loads over them too (remote property sources come first, as with a config server). An active document is the
 * service's configuration, each key's origin `<seed file>:<row line>` (the whole document is one SQL string); one for
 * a profile the service does not activate goes to that profile.
 */
function applyNacos(scopes: Scope[], configs: readonly NacosConfig[], warnings: string[]): void {
  if (!configs.length) return;
  const parsed = new Map<string, { doc: { values: Map<string, string> }; profile: string | null }[]>();
  for (const scope of scopes) {
    const served = nacosConfigFor({ name: scope.name, bootstrap: scope.config }, configs);
    if (!served.length) continue;
    const active = activeProfiles(scope.config['spring.profiles.active'], scope.config);
    for (const d of served) {
      const at = `${d.file}:${d.line}`;
      const own = d.active ? null : d.profile;
      const key = `${at}\u0000${d.tenant ?? ''}\u0000${d.group}\u0000${d.dataId}\u0000${d.format}\u0000${own ?? ''}`;
      let documents = parsed.get(key);
      if (!documents) {
        documents = nacosDocuments(d, own, warnings);
        parsed.set(key, documents);
      }
      for (const { doc, profile } of documents) {
        if (profile !== null) {
          const layer = (scope.profiles[profile] ??= {});
          for (const [k, v] of doc.values) layer[k] = v;
          continue;
        }
        for (const [k, v] of doc.values) {
          if (d.via === 'import' && setByEnvironment(scope, k)) continue;
          scope.config[k] = v;
          scope.configOrigins[k] = at;
          delete scope.configLines[k];
          delete scope.configHoles[k];
          // The service's own file for an active profile ranks under Nacos too.
          for (const p of active) if (scope.profiles[p]?.[k] !== undefined) scope.profiles[p]![k] = v;
        }
      }
      scope.nacosConfigs.push({ dataId: d.dataId, group: d.group, ...(d.tenant ? { tenant: d.tenant } : {}), profile: d.profile, active: d.active, via: d.via, at });
    }
  }
}

/** A Nacos document's content as configuration documents, each with its profile (`fileProfile` and its own `on-profile` combined). */
function nacosDocuments(d: NacosDocument, fileProfile: string | null, warnings: string[]): { doc: { values: Map<string, string> }; profile: string | null }[] {
  const label = NACOS_PARSE_AS[d.format];
  const own: string[] = [];
  const documents = profiledDocuments(label, d.content, own, fileProfile);
  // The parser names the content's own lines; the seed's row is where the estate writes them.
  for (const w of own) {
    const m = /^[^:]*(?::(\d+))?: (.*)$/s.exec(w);
    warnings.push(`${d.file}:${d.line}: Nacos config ${d.dataId} (${d.group})${m?.[1] ? `, line ${m[1]} of its content` : ''}: ${m ? m[2] : w}`);
  }
  return documents;
}

/** Whether the deployment's environment sets a key: as written, or through a variable Spring reads it from. */
function setByEnvironment(scope: Scope, key: string): boolean {
  return scope.environmentKeys.has(key) || environmentForms(key).some((f) => scope.environmentNames.has(f));
}

/** The deployable unit's own resources speak for the service first. */
function configRank(scope: Scope, path: string): number {
  const owner = scope.units
    .filter((u) => u.dir === '' || path.startsWith(`${u.dir}/`))
    .reduce<Unit | undefined>((best, u) => (!best || u.dir.length > best.dir.length ? u : best), undefined);
  if (!owner?.deployable) return 2;
  return OWN_RESOURCES.test(relativeTo(owner.dir, path)) ? 0 : 1;
}

function isListed(scope: Scope): boolean {
  return scope.fileCount > 0 || scope.units.some((u) => u.deployable);
}

function listServices(scopes: Map<string, Scope>, rootName: string, warnings: string[]): ServiceInfo[] {
  const listed = [...scopes.values()].filter(isListed);
  disambiguate(listed, warnings);
  return listed.map((s) => toServiceInfo(s, rootName)).sort((a, b) => byString(a.name, b.name) || byString(a.dir, b.dir));
}

function disambiguate(scopes: Scope[], warnings: string[]): void {
  const byName = new Map<string, Scope[]>();
  for (const scope of scopes) byName.set(scope.name, [...(byName.get(scope.name) ?? []), scope]);
  for (const [name, same] of [...byName].sort(([a], [b]) => byString(a, b))) {
    if (same.length < 2) continue;
    const dirs = same.map((s) => s.dir || '.').sort(byString);
    warnings.push(`service name "${name}" is used by ${same.length} directories (${dirs.join(', ')}); each is named "${name} (<dir>)"`);
    for (const scope of same) scope.name = `${name} (${scope.dir || '.'})`;
  }
}

function toServiceInfo(scope: Scope, rootName: string): ServiceInfo {
  const units = [...scope.units].sort((a, b) => byString(a.dir, b.dir));
  const top = units.find((u) => u.dir === scope.dir);
  const modules: ModuleInfo[] = units.length
    ? units.map((u) => ({ name: dirName(u.dir, rootName), dir: u.dir, buildFile: u.buildFile, buildTool: u.buildTool }))
    : [{ name: scope.name, dir: scope.dir, buildTool: 'none' }];
  const info: ServiceInfo = {
    name: scope.name,
    dir: scope.dir,
    nameFrom: scope.nameFrom,
    buildTool: top?.buildTool ?? 'none',
    modules,
    configFiles: [...scope.configFiles].sort(byString),
    config: scope.config,
    profiles: scope.profiles,
    configOrigins: scope.configOrigins,
    configLines: scope.configLines,
    hosts: [...scope.hosts].sort(byString),
  };
  if (Object.keys(scope.configHoles).length) info.configHoles = scope.configHoles;
  if (scope.deployedBy.length) info.deployedBy = [...scope.deployedBy].sort(byString);
  if (scope.dnsNames.length) info.dnsNames = sortedDns(scope.dnsNames);
  if (scope.ingressHosts.size) info.ingressHosts = [...scope.ingressHosts].sort(byString);
  if (scope.hostTemplates.size) info.hostTemplates = [...scope.hostTemplates].sort(byString);
  const ports = servicePorts(scope);
  if (ports.length) info.ports = ports;
  if (Object.keys(scope.environments).length) info.environments = scope.environments;
  if (scope.declaredCallees.length) info.declaredCallees = scope.declaredCallees;
  if (scope.configServerFiles.length) info.configServerFiles = scope.configServerFiles;
  if (scope.configLocationFiles.length) info.configLocationFiles = scope.configLocationFiles;
  if (scope.nacosConfigs.length) info.nacosConfigs = scope.nacosConfigs;
  if (scope.applicationNameFile) info.applicationNameFile = scope.applicationNameFile;
  return info;
}

// ---------------------------------------------------------------------------------------------------------------
// Deployment files: which unit runs which service, its environment as configuration, and the names it is reached by

/**
 * Each deployment unit to the service it runs: by build context (or Dockerfile) directory, the service's or below
 * (a service at the root only by the root itself); else by image, its last path segment without tag equal to the
 * service's name or directory; else by compose key, container name or (a single-container) workload name equal
 * to the service's name. Then each matched service takes the units' hosts, and their environment as configuration.
 */
function applyDeployment(scopes: Scope[], units: readonly DeploymentUnit[], rootName: string, warnings: string[]): Map<DeploymentUnit, Scope> {
  const runs = new Map<DeploymentUnit, Scope>();
  const containersOf = new Map<string, number>();
  for (const u of units) if (u.workload) containersOf.set(u.workload, (containersOf.get(u.workload) ?? 0) + 1);
  for (const unit of units) {
    const scope = matchUnit(unit, scopes, rootName, containersOf, warnings);
    if (scope) runs.set(unit, scope);
  }
  const byScope = new Map<Scope, DeploymentUnit[]>();
  for (const [unit, scope] of runs) (byScope.get(scope) ?? byScope.set(scope, []).get(scope)!).push(unit);
  for (const [scope, own] of byScope) {
    for (const u of own) {
      for (const h of u.hosts) scope.hosts.add(h);
      scope.deployedBy.push(u.id);
      scope.dnsNames.push(...(u.dnsNames ?? []));
      for (const h of u.ingressHosts ?? []) scope.ingressHosts.add(h);
      for (const h of u.hostTemplates ?? []) scope.hostTemplates.add(h);
      for (const port of u.publishedPorts ?? []) scope.published.push({ port, how: 'published', at: `${u.files[0]}:${u.line}` });
      scope.declaredCallees.push(...(u.outbound ?? []));
    }
    scope.filesActiveProfiles = scope.config['spring.profiles.active'];
    applyEnvironment(scope, mergeEnvironments(own.filter((u) => u.environment === undefined)), warnings);
    scope.runBy = own;
  }
  return runs;
}

function matchUnit(unit: DeploymentUnit, scopes: Scope[], rootName: string, containersOf: Map<string, number>, warnings: string[]): Scope | undefined {
  const pick = (rule: string, found: Scope[]): Scope | undefined | null => {
    const distinct = [...new Set(found)];
    if (distinct.length === 1) return distinct[0]!;
    if (distinct.length > 1) {
      warnings.push(`${unit.files[0]}:${unit.line}: ${UNIT_KINDS[unit.kind]} ${unit.name} matches several services by ${rule} (${distinct.map((s) => s.name).sort(byString).join(', ')}); it is matched to none`);
      return null;
    }
    return undefined;
  };
  const dirs = unitDirs(unit);
  const byDir = dirs.flatMap((d) => {
    const holding = scopes.filter((s) => (s.dir === '' ? d === '' : d === s.dir || d.startsWith(`${s.dir}/`)));
    return holding.length ? [holding.reduce((a, b) => (b.dir.length > a.dir.length ? b : a))] : [];
  });
  const fromDir = pick('build directory', byDir);
  if (fromDir !== undefined) return fromDir ?? undefined;
  const images = unit.images.map(imageName).filter((x): x is string => !!x);
  const fromImage = pick(
    'image',
    scopes.filter((s) => images.some((i) => i === s.name.toLowerCase() || i === dirName(s.dir, rootName).toLowerCase())),
  );
  if (fromImage !== undefined) return fromImage ?? undefined;
  const single = !unit.workload || containersOf.get(unit.workload) === 1 || unit.container === unit.name;
  const names = [...(single ? [unit.name] : []), ...unit.containerNames].map((n) => n.toLowerCase());
  return pick('name', scopes.filter((s) => names.includes(s.name.toLowerCase()))) ?? undefined;
}

const UNIT_KINDS: Record<DeploymentUnit['kind'], string> = { compose: 'compose service', kubernetes: 'Kubernetes container of', helm: 'Helm values for', nais: 'NAIS application' };

/** The estate directories a unit is built from or described in (its build context, Dockerfile, chart, manifest). */
function unitDirs(unit: DeploymentUnit): string[] {
  return [...unit.buildContexts, ...unit.dockerfiles.map(parentDir), ...(unit.sourceDirs ?? [])];
}

/** `registry:5000/team/orders-service:1.2@sha256:…` → `orders-service`. */
function imageName(image: string): string | undefined {
  const noDigest = image.split('@')[0]!;
  const last = noDigest.slice(noDigest.lastIndexOf('/') + 1);
  const colon = last.indexOf(':');
  const name = (colon < 0 ? last : last.slice(0, colon)).toLowerCase();
  return name && !name.includes('$') ? name : undefined;
}

/** Several units running one service: a variable they set alike keeps its value, one they set differently has none. */
function mergeEnvironments(units: DeploymentUnit[]): EnvEntry[] {
  const byName = new Map<string, EnvEntry[]>();
  for (const u of [...units].sort((a, b) => byString(a.id, b.id))) for (const e of u.env) (byName.get(e.name) ?? byName.set(e.name, []).get(e.name)!).push(e);
  const out: EnvEntry[] = [];
  for (const [name, entries] of byName) {
    const first = entries[0]!;
    const differing = entries.filter((e) => (e.value ?? `\u0000${e.unknown}`) !== (first.value ?? `\u0000${first.unknown}`));
    if (!differing.length) out.push(first);
    else out.push({ name, written: first.written, file: first.file, line: first.line, unknown: `is set differently by ${[first, ...differing].map((e) => `${e.file}:${e.line} (${e.written})`).join(', ')}` });
  }
  return out;
}

/**
 * Environment variables as Spring Boot binds them, over the application files (and their profiles): under their
 * own name (`${ORDER_SERVICE_URL}`) and relaxed (`ORDER_SERVICE_URL` → `order.service.url`,
 * `SPRING_CLOUD_GATEWAY_ROUTES_0_URI` → `spring.cloud.gateway.routes[0].uri`), replacing the value of every key
 * whose environment form they are (`order-service.url`). A value the deployment leaves to its environment removes
 * those keys and is recorded as a hole.
 */
function applyEnvironment(scope: Scope, env: EnvEntry[], warnings: string[]): void {
  const configForms = formsIndex(scope.config);
  const profileForms = Object.values(scope.profiles).map((p) => [p, formsIndex(p)] as const);
  const set = (key: string, e: EnvEntry, origin: string): void => {
    if (e.value !== undefined) {
      for (const [k, why] of Object.entries(e.holes ?? {})) scope.configHoles[k] ??= why;
      scope.config[key] = e.value;
      delete scope.configHoles[key];
      for (const f of environmentForms(key)) (configForms.get(f) ?? configForms.set(f, new Set()).get(f)!).add(key);
    } else {
      delete scope.config[key];
      scope.configHoles[key] = `environment variable ${e.name} (${origin}) ${e.unknown}`;
    }
    scope.configOrigins[key] = origin;
    delete scope.configLines[key];
    scope.environmentKeys.add(key);
  };
  for (const e of env) {
    const origin = `${e.file}:${e.line}`;
    const form = e.name.toUpperCase();
    scope.environmentNames.add(form);
    const keys = new Set([e.name, relaxedEnvKey(e.name), ...(configForms.get(form) ?? [])]);
    for (const key of keys) set(key, e, origin);
    for (const [profile, forms] of profileForms) {
      for (const key of [...keys, ...(forms.get(form) ?? [])]) {
        if (profile[key] === undefined) continue;
        if (e.value !== undefined) profile[key] = e.value;
        else delete profile[key];
      }
    }
    const relaxed = relaxedEnvKey(e.name);
    if (relaxed === 'spring.application.name') {
      if (e.value !== undefined && e.value.trim() && e.value.trim() !== scope.name) {
        scope.name = e.value.trim();
        scope.nameFrom = 'spring.application.name';
        scope.applicationNameFile = e.file;
      } else if (e.value === undefined) warnings.push(`${origin}: spring.application.name of ${scope.name} ${e.unknown}; the service keeps the name its files give it`);
    }
    // SPRING_APPLICATION_JSON: properties as JSON, over the other environment variables.
    if (relaxed === 'spring.application.json' && e.value !== undefined) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(e.value);
      } catch {
        warnings.push(`${origin}: ${e.name} is not JSON; not read`);
        continue;
      }
      const flat: [string, string][] = [];
      flattenJson(parsed, '', flat, 0);
      for (const [key, value] of flat) set(key, { ...e, value }, origin);
    }
  }
}

function formsIndex(values: Readonly<Record<string, string>>): Map<string, Set<string>> {
  const index = new Map<string, Set<string>>();
  for (const key of Object.keys(values)) for (const f of environmentForms(key)) (index.get(f) ?? index.set(f, new Set()).get(f)!).add(key);
  return index;
}

function flattenJson(value: unknown, prefix: string, out: [string, string][], depth: number): void {
  if (depth > 32) return;
  if (Array.isArray(value)) value.forEach((item, i) => flattenJson(item, `${prefix}[${i}]`, out, depth + 1));
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) flattenJson(v, prefix ? `${prefix}.${k}` : k, out, depth + 1);
  else if (prefix) out.push([prefix, value === null ? '' : String(value)]);
}

/**
 * `SPRING_APPLICATION_NAME` → `spring.application.name`, `ROUTES_0_URI` → `routes[0].uri`, `SPRINGDOC_API-DOCS_ENABLED`
 * → `springdoc.api-docs.enabled` (Spring keeps dashes); other names as written.
 */
export function relaxedEnvKey(name: string): string {
  if (!/^[A-Z0-9_-]+$/.test(name) || !/[A-Z0-9]/.test(name)) return name;
  let out = '';
  for (const seg of name.split('_')) {
    if (!seg) continue;
    if (/^\d+$/.test(seg) && out) out += `[${seg}]`;
    else out += `${out ? '.' : ''}${seg.toLowerCase()}`;
  }
  return out || name;
}

/** The environment variable names Spring Boot would read a key from (`order-service.url` → ORDER_SERVICE_URL, ORDERSERVICE_URL). */
function environmentForms(key: string): string[] {
  const base = key.toUpperCase().replace(/\[(\d+)\]/g, '_$1');
  return [...new Set([base.replace(/[.-]/g, '_'), base.replace(/-/g, '').replace(/\./g, '_')])];
}

/** What claims host names: a service, or a deployment-only candidate. */
export interface HostClaims {
  name: string;
  hosts: readonly string[];
  dnsNames?: readonly DnsName[];
  hostTemplates?: readonly string[];
}

/** Cluster domains a Service's fully qualified name ends with. */
const CLUSTER_DOMAINS = ['cluster.local'];
/** Top-level domains that are never read as a Kubernetes namespace: `orders.com` is not Service `orders`. */
const NOT_NAMESPACES = new Set(['com', 'net', 'org', 'io', 'gov', 'edu', 'co', 'info', 'biz']);
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * Host (lower case) → owner, for hosts exactly one owner claims: `hosts`, `hostTemplates`, and the cluster DNS forms
 * of `dnsNames` (`name`, and with a namespace `name.ns`, `name.ns.svc`, `name.ns.svc.cluster.local`). Iterating
 * gives those entries; `get` and `has` also answer for a name the manifests give no namespace, in any namespace
 * (`account.obaas-dev` → the owner of `account`), which no list of entries can hold.
 */
export class HostIndex extends Map<string, string> {
  private readonly ambiguous = new Set<string>();
  /** DNS names without a namespace → owner, or null when several claim one. */
  private readonly anyNamespace = new Map<string, string | null>();

  /** Host templates as patterns (each hole one or more characters of a DNS label, the same hole the same text) → owners. */
  private readonly templates: { pattern: RegExp; owner: string }[] = [];

  constructor(owners: readonly HostClaims[] = []) {
    super();
    for (const o of owners) for (const t of o.hostTemplates ?? []) {
      const pattern = templatePattern(t);
      if (pattern) this.templates.push({ pattern, owner: o.name });
    }
    const claims = new Map<string, Set<string>>();
    const claim = (form: string, owner: string): void => {
      const key = form.toLowerCase();
      (claims.get(key) ?? claims.set(key, new Set()).get(key)!).add(owner);
    };
    for (const o of owners) {
      for (const h of o.hosts) claim(h, o.name);
      for (const h of o.hostTemplates ?? []) claim(h, o.name);
      for (const d of o.dnsNames ?? []) {
        claim(d.name, o.name);
        if (d.namespace === undefined) {
          const name = d.name.toLowerCase();
          const known = this.anyNamespace.get(name);
          this.anyNamespace.set(name, known === undefined || known === o.name ? o.name : null);
          continue;
        }
        const base = `${d.name}.${d.namespace}`;
        for (const form of [base, `${base}.svc`, ...CLUSTER_DOMAINS.map((c) => `${base}.svc.${c}`)]) claim(form, o.name);
      }
    }
    for (const [h, who] of [...claims].sort(([a], [b]) => byString(a, b))) {
      if (who.size === 1) super.set(h, [...who][0]!);
      else this.ambiguous.add(h);
    }
  }

  override get(host: string): string | undefined {
    const h = host.toLowerCase();
    const own = super.get(h);
    if (own !== undefined || this.ambiguous.has(h)) return own;
    const name = serviceOfDnsName(h);
    const named = name === undefined ? undefined : (this.anyNamespace.get(name) ?? undefined);
    if (named !== undefined || h.includes('${')) return named;
    // A host an environment states in full (`orders-aat.service.internal`), of a template an owner's ingress gives
    // (`orders-${.values.global.environment}.service.internal`): that owner's, when no other template takes it.
    const owners = new Set(this.templates.filter((t) => t.pattern.test(h)).map((t) => t.owner));
    return owners.size === 1 ? [...owners][0] : undefined;
  }

  override has(host: string): boolean {
    return this.get(host) !== undefined;
  }
}

/**
 * A host template as a pattern of the hosts it stands for: each `${…}` hole one or more characters of a DNS label,
 * a hole written twice the same text both times. Undefined without a hole, or when the first label is all holes
 * (`${name}.internal` says nothing of whose host it is).
 */
function templatePattern(template: string): RegExp | undefined {
  const t = template.toLowerCase();
  if (!t.includes('${') || !/[a-z0-9]/.test(t.split('.')[0]!.replace(/\$\{[^}]*\}/g, ''))) return undefined;
  const groups = new Map<string, number>();
  let source = '';
  let last = 0;
  for (const m of t.matchAll(/\$\{([^}]*)\}/g)) {
    source += quotePattern(t.slice(last, m.index));
    const seen = groups.get(m[1]!);
    if (seen !== undefined) source += `\\${seen}`;
    else {
      groups.set(m[1]!, groups.size + 1);
      source += '([a-z0-9-]+)';
    }
    last = m.index + m[0].length;
  }
  return new RegExp(`^${source}${quotePattern(t.slice(last))}$`);
}

/** `account.obaas-dev`, `account.obaas-dev.svc`, `account.obaas-dev.svc.cluster.local` → `account`. */
function serviceOfDnsName(host: string): string | undefined {
  const labels = host.split('.');
  if (labels.length < 2 || !labels.slice(0, 2).every((l) => DNS_LABEL.test(l))) return undefined;
  const rest = labels.slice(2).join('.');
  if (rest === '' && NOT_NAMESPACES.has(labels[1]!)) return undefined;
  return rest === '' || rest === 'svc' || CLUSTER_DOMAINS.some((c) => rest === `svc.${c}`) ? labels[0] : undefined;
}

/** Host (lower case) → service, for hosts exactly one service claims (see {@link HostIndex}). */
export function hostIndex(owners: readonly HostClaims[]): HostIndex {
  return new HostIndex(owners);
}

/**
 * The host of a URL value whose host has holes, written as {@link ServiceInfo.hostTemplates} are: literal text, each
 * hole as `${at}`, lower case (`http://bulk-scan-processor-{?}.internal/x` → `bulk-scan-processor-${.values.global.environment}.internal`).
 * Undefined when the value is not an absolute URL, or a hole in its host does not say what it stopped at.
 */
export function hostTemplateOf(pieces: readonly ({ s: string; hole?: undefined } | { s?: undefined; hole: { at?: string } })[]): string | undefined {
  let text = '';
  for (const p of pieces) {
    if (p.s !== undefined) text += p.s;
    else if (p.hole.at === undefined || /[{}]/.test(p.hole.at)) return undefined;
    else text += `\${${p.hole.at}}`;
  }
  const m = /^(?:[a-z][a-z0-9+.-]*:)?\/\/((?:[^/:?#$]|\$\{[^}]*\})+)/i.exec(text);
  return m ? m[1]!.toLowerCase() : undefined;
}

/**
 * Whether a host template names a host outside the estate: its holes are all parts the deployment platform fills in
 * (Helm values, `.Values.global.environment`; pipeline substitutions, `$SERVICE_FQDN`), so the literal rest is the
 * host's identity, and that identity — its first label without the holes — is no name any service or deployment of
 * the estate is known by, nor a prefix or extension of one (`ccpay-bulkscanning-api-${env}.service.internal`, where the
 * estate runs bulk-scan-processor and bulk-scan-orchestrator). A template no owner claims but that starts like one of
 * theirs is not said to be outside: it may be theirs under a form the manifests do not give.
 */
export function isOutsideHostTemplate(template: string, owners: readonly HostClaims[]): boolean {
  const keys = [...template.matchAll(/\$\{([^}]*)\}/g)].map((m) => m[1]!);
  if (!keys.length || !keys.every((k) => k.startsWith('.values.') || k.startsWith('$'))) return false;
  const identity = (host: string): string => host.toLowerCase().split('.')[0]!.replace(/\$\{[^}]*\}/g, '').replace(/^[-_]+|[-_]+$/g, '');
  const own = identity(template);
  if (own.length < 3) return false;
  for (const o of owners) {
    for (const h of [o.name, ...o.hosts, ...(o.hostTemplates ?? []), ...(o.dnsNames ?? []).map((d) => d.name)]) {
      const theirs = identity(h);
      if (theirs && (own.startsWith(theirs) || theirs.startsWith(own))) return false;
    }
  }
  return true;
}

// ---------------------------------------------------------------------------------------------------------------
// Environments, ports and deployment-only services

/** Directories that hold deployment files and that discovery, which skips hidden directories, does not walk. */
const HIDDEN_DEPLOYMENT_DIRS = ['.nais'];

function fileLister(root: string): (relDir: string) => string[] | undefined {
  return (relDir) => {
    try {
      return readdirSync(join(root, relDir), { withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => e.name)
        .sort(byString);
    } catch {
      return undefined;
    }
  };
}

/** The YAML files of the hidden deployment directories of the estate root, each top-level directory and each build unit. */
function hiddenDeploymentFiles(discovery: Discovery, units: Map<string, Unit>, listDir: (relDir: string) => string[] | undefined): string[] {
  const dirs = new Set<string>(['', ...units.keys()]);
  for (const f of discovery.files) {
    const slash = f.path.indexOf('/');
    if (slash > 0) dirs.add(f.path.slice(0, slash));
  }
  const out: string[] = [];
  for (const dir of [...dirs].sort(byString)) {
    for (const hidden of HIDDEN_DEPLOYMENT_DIRS) {
      const rel = joinRel(dir, hidden);
      let names: string[] | undefined;
      try {
        names = listDir(rel);
      } catch {
        names = undefined;
      }
      for (const name of names ?? []) if (/\.ya?ml$/.test(name)) out.push(joinRel(rel, name));
    }
  }
  return out;
}

const MAX_PROFILE_GROUP_DEPTH = 8;

/** `SPRING_PROFILES_ACTIVE`-style lists with `spring.profiles.group.<name>` expanded after each name, as Spring does. */
function activeProfiles(text: string | undefined, config: Readonly<Record<string, string>>): string[] {
  const out: string[] = [];
  const add = (list: string, depth: number): void => {
    if (list.includes('${') || depth > MAX_PROFILE_GROUP_DEPTH) return;
    for (const name of list.split(',').map((p) => p.trim()).filter(Boolean)) {
      if (out.includes(name)) continue;
      out.push(name);
      const group = config[`spring.profiles.group.${name}`] ?? Object.keys(config).filter((k) => k.startsWith(`spring.profiles.group.${name}[`)).sort(byString).map((k) => config[k]).join(',');
      if (group) add(group, depth + 1);
    }
  };
  if (text) add(text, 0);
  return out;
}

/**
 * Each deployment environment of a service as a layer of `profiles` named `<platform>:<environment>`: the Spring
 * profiles it activates, then its own environment variables as Spring binds them (the variables of every
 * environment are in the default configuration, and so in each profile, already). A variable left unknown there is
 * a `${…}` placeholder to a hole, so the default configuration's value does not show through.
 */
function applyEnvironmentLayers(scope: Scope): void {
  const byLayer = new Map<string, DeploymentUnit[]>();
  for (const u of scope.runBy) {
    if (u.environment === undefined) continue;
    const key = `${u.kind === 'nais' ? 'nais' : 'helm'}:${u.environment}`;
    (byLayer.get(key) ?? byLayer.set(key, []).get(key)!).push(u);
  }
  for (const key of [...byLayer.keys()].sort(byString)) {
    const units = byLayer.get(key)!;
    const platform = key.startsWith('nais:') ? 'nais' : 'helm';
    const name = key.slice(key.indexOf(':') + 1);
    // The platform's values for every environment (a chart's values.yaml) under the environment's own: the default
    // configuration merges them with other deployments' (compose), which this environment does not see.
    const everywhere = mergeEnvironments(scope.runBy.filter((u) => u.environment === undefined && (u.kind === 'nais') === (platform === 'nais') && (u.kind === 'helm' || u.kind === 'nais')));
    const own = mergeEnvironments(units);
    const env = [...everywhere.filter((e) => !own.some((o) => o.name === e.name)), ...own];
    const active = env.find((e) => relaxedEnvKey(e.name) === 'spring.profiles.active');
    const springProfiles = activeProfiles(active ? active.value : scope.filesActiveProfiles, scope.config);
    const layer: Record<string, string> = {};
    for (const p of springProfiles) Object.assign(layer, scope.profiles[p] ?? {});
    const info: EnvironmentInfo = { platform, name, files: [...new Set(units.flatMap((u) => u.files))].sort(byString), springProfiles, origins: {} };
    const holes: Record<string, string> = {};
    const forms = formsIndex({ ...scope.config, ...layer });
    const set = (k: string, e: EnvEntry, origin: string): void => {
      if (e.value !== undefined) {
        for (const [hole, why] of Object.entries(e.holes ?? {})) scope.configHoles[hole] ??= why;
        layer[k] = e.value;
        delete holes[k];
      } else {
        const why = `environment variable ${e.name} (${origin}) ${e.unknown}`;
        const placeholder = `@${platform}-${name}.${e.name}`;
        scope.configHoles[placeholder] ??= why;
        layer[k] = `\${${placeholder}}`;
        holes[k] = why;
      }
      info.origins[k] = origin;
    };
    for (const e of env) {
      const origin = `${e.file}:${e.line}`;
      for (const k of new Set([e.name, relaxedEnvKey(e.name), ...(forms.get(e.name.toUpperCase()) ?? [])])) set(k, e, origin);
      if (relaxedEnvKey(e.name) === 'spring.application.json' && e.value !== undefined) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(e.value);
        } catch {
          continue;
        }
        const flat: [string, string][] = [];
        flattenJson(parsed, '', flat, 0);
        for (const [k, value] of flat) set(k, { ...e, value }, origin);
      }
    }
    if (Object.keys(holes).length) info.holes = holes;
    scope.environments[key] = info;
    if (Object.keys(layer).length) scope.profiles[key] = layer;
  }
}

/** `8080`, `${PORT:8080}` (PORT not configured) → the port; 0 (a random port) and anything else → undefined. */
function portOf(text: string | undefined, config: Readonly<Record<string, string>>, depth = 0): number | undefined {
  const t = text?.trim() ?? '';
  if (/^\d{1,5}$/.test(t)) {
    const n = Number(t);
    return n >= 1 && n <= 65535 ? n : undefined;
  }
  const m = /^\$\{([^:}]+)(?::(\d{1,5}))?\}$/.exec(t);
  if (!m || depth > 4) return undefined;
  const inner = config[m[1]!.trim()];
  return inner !== undefined ? portOf(inner, config, depth + 1) : portOf(m[2], config, depth + 1);
}

function servicePorts(scope: Scope): ServicePort[] {
  const out: ServicePort[] = [];
  const own = portOf(scope.config['server.port'], scope.config);
  if (own !== undefined) out.push({ port: own, how: 'server.port', at: scope.configOrigins['server.port'] ?? scope.configFiles[0] ?? scope.dir });
  for (const profile of Object.keys(scope.profiles).sort(byString)) {
    if (scope.environments[profile]) continue;
    const values = { ...scope.config, ...scope.profiles[profile] };
    const port = scope.profiles[profile]!['server.port'] !== undefined ? portOf(values['server.port'], values) : undefined;
    if (port === undefined || port === own) continue;
    const file = scope.configFiles.find((f) => lastSegment(f).replace(/\.(?:ya?ml|properties)$/, '').endsWith(`-${profile}`)) ?? scope.configFiles[0] ?? scope.dir;
    out.push({ port, how: 'server.port', at: file, profile });
  }
  const seen = new Set<number>();
  for (const p of scope.published) {
    if (seen.has(p.port)) continue;
    seen.add(p.port);
    out.push(p);
  }
  return out;
}

function sortedDns(names: readonly DnsName[]): DnsName[] {
  const seen = new Map<string, DnsName>();
  for (const n of names) seen.set(`${n.name}\u0000${n.namespace ?? ''}`, n);
  return [...seen.values()].sort((a, b) => byString(a.name, b.name) || byString(a.namespace ?? '', b.namespace ?? ''));
}

/**
 * Units that run no service of the estate, one candidate per name (any case). A unit built from an estate directory
 * that holds configuration but no sources (an image assembled from a Dockerfile and an application.yaml) takes the
 * `spring.application.name` that configuration gives.
 */
function deploymentOnlyCandidates(
  units: readonly DeploymentUnit[],
  runs: Map<DeploymentUnit, Scope>,
  configFiles: readonly string[],
  configs: Map<string, SpringConfigFile[]>,
  proxies: readonly ProxyRule[],
  rootName: string,
): DeploymentOnly[] {
  const within = (file: string, dir: string): boolean => dir !== '' && (file === dir || file.startsWith(`${dir}/`));
  const nameIn = (dir: string): string | undefined => {
    const own = configFiles.filter((f) => parentDir(f) === dir || f.startsWith(joinRel(dir, 'src/main/resources/'))).sort(byString);
    return applicationName(own.flatMap((f) => configs.get(f) ?? []))?.name;
  };
  const byName = new Map<string, DeploymentOnly>();
  for (const u of [...units].sort((a, b) => byString(a.id, b.id))) {
    if (runs.has(u)) continue;
    const dirs = unitDirs(u).filter((d) => d !== '');
    const named = [...new Set(dirs.map(nameIn).filter((n): n is string => !!n))];
    const name = named.length === 1 ? named[0]! : u.name || dirName(dirs[0] ?? '', rootName);
    const key = name.toLowerCase();
    let c = byName.get(key);
    if (!c) {
      c = { name, hosts: [], images: [], file: u.files[0] ?? '', line: u.line, units: [] };
      byName.set(key, c);
    }
    c.hosts = [...new Set([...c.hosts, ...u.hosts])].sort(byString);
    if (u.dnsNames?.length) c.dnsNames = sortedDns([...(c.dnsNames ?? []), ...u.dnsNames]);
    if (u.hostTemplates?.length) c.hostTemplates = [...new Set([...(c.hostTemplates ?? []), ...u.hostTemplates])].sort(byString);
    if (u.publishedPorts?.length) c.ports = [...new Set([...(c.ports ?? []), ...u.publishedPorts])];
    c.images = [...new Set([...c.images, ...u.images])];
    c.units.push(u.id);
    if (proxies.some((r) => u.mounts.some((m) => within(r.file, m)) || u.buildContexts.some((b) => within(r.file, b)))) c.proxy = true;
  }
  return [...byName.values()].sort((a, b) => byString(a.name, b.name));
}

/** How a Spring service takes part in Consul's catalog (Spring Cloud Consul's discovery settings, relaxed keys). */
const CONSUL_CATALOG = {
  /** A service that sets any key under this registers itself. */
  configures: 'spring.cloud.consul.',
  /** Any of these `false` keeps it out. */
  off: ['spring.cloud.consul.enabled', 'spring.cloud.consul.discovery.enabled', 'spring.cloud.consul.discovery.register'],
  /** The name it registers under, when set; else `spring.application.name`. */
  name: 'spring.cloud.consul.discovery.service-name',
} as const;

/**
 * The services a Consul catalog of the estate holds (what consul-template's `{{range services}}` runs over): those
 * that configure Spring Cloud Consul, else (no service does) every service `spring.application.name` names. Name
 * they register under → the service; a name two services register under is left out.
 */
function consulCatalog(scopes: readonly Scope[]): Map<string, string> {
  const relaxed = new Map(scopes.map((scope) => [scope, new Map(Object.entries(scope.config).map(([k, v]) => [canonicalKey(k), v]))]));
  const prefix = canonicalKey(CONSUL_CATALOG.configures);
  const configuring = scopes.filter((scope) => {
    const config = relaxed.get(scope)!;
    return [...config.keys()].some((k) => k.startsWith(prefix)) && !CONSUL_CATALOG.off.some((k) => config.get(canonicalKey(k))?.trim() === 'false');
  });
  const members = configuring.length ? configuring : scopes.filter((s) => s.nameFrom === 'spring.application.name');
  const claims = new Map<string, Set<string>>();
  for (const scope of members) {
    const written = relaxed.get(scope)!.get(canonicalKey(CONSUL_CATALOG.name)) ?? scope.config['spring.application.name'];
    const name = (written === undefined ? undefined : resolvePlaceholders(written, new Map(Object.entries(scope.config)))?.trim()) || scope.name;
    (claims.get(name) ?? claims.set(name, new Set()).get(name)!).add(scope.name);
  }
  const out = new Map<string, string>();
  for (const [name, who] of [...claims].sort(([a], [b]) => byString(a, b))) if (who.size === 1) out.set(name, [...who][0]!);
  return out;
}

/** The rules of the httpd files that proxy, templates rendered over the Consul catalog's names. */
function httpdRules(files: readonly { file: string; text: string }[], catalog: readonly string[], warnings: string[]): (ProxyRule & { kind: 'httpd' })[] {
  const out: (ProxyRule & { kind: 'httpd' })[] = [];
  for (const { file, text } of files) {
    const r = readHttpd(file, text, catalog);
    warnings.push(...r.warnings);
    out.push(...r.rules.map((rule) => ({ ...rule, kind: 'httpd' as const })));
  }
  return out;
}

function layoutProxies(
  rules: readonly (ProxyRule & { kind: ProxyKind })[],
  units: readonly DeploymentUnit[],
  runs: Map<DeploymentUnit, Scope>,
  scopes: Scope[],
  services: readonly ServiceInfo[],
  /** Names services register under in Consul (a balancer of consul-template instances names them so). */
  registered: ReadonlyMap<string, string>,
): LayoutProxy[] {
  const hosts = hostIndex(services);
  const names = new Map<string, string>();
  for (const s of services) if (!names.has(s.name.toLowerCase())) names.set(s.name.toLowerCase(), s.name);
  for (const [name, service] of registered) if (!names.has(name.toLowerCase())) names.set(name.toLowerCase(), service);
  const within = (file: string, dir: string): boolean => dir !== '' && (file === dir || file.startsWith(`${dir}/`));
  return rules.map((rule) => {
    const deploying = units.filter((u) => u.mounts.some((m) => within(rule.file, m)) || u.buildContexts.some((c) => within(rule.file, c)));
    const runners = [...new Set(deploying.map((u) => runs.get(u)).filter((s): s is Scope => !!s))];
    const holding = scopes.filter((s) => within(rule.file, s.dir)).sort((a, b) => b.dir.length - a.dir.length);
    const owner = runners.length === 1 ? runners[0] : runners.length === 0 ? holding[0] : undefined;
    const targets = rule.targetHosts.map((h) => hosts.get(h) ?? names.get(h)).filter((x): x is string => !!x);
    return {
      ...rule,
      ...(owner ? { service: owner.name } : {}),
      hosts: [...new Set(deploying.flatMap((u) => u.hosts))].sort(byString),
      targetServices: [...new Set(targets)].sort(byString),
    };
  });
}

function dirName(dir: string, rootName: string): string {
  return dir === '' ? rootName : lastSegment(dir);
}

function normalizePath(path: string): string {
  return path.replace(/\\/g, '/').replace(/^(?:\.\/)+/, '').replace(/\/+$/, '');
}

function parentDir(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

function lastSegment(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

function relativeTo(dir: string, path: string): string {
  return dir === '' ? path : path.slice(dir.length + 1);
}

function joinRel(dir: string, name: string): string {
  return dir === '' ? name : `${dir}/${name}`;
}

function byString(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
