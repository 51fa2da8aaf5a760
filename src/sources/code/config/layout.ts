import { basename } from 'node:path';
import { type CdcConnector, type DeploymentUnit, type EnvEntry, type NginxServer, type ProxyRule, readDeployment } from './deployment.js';
import type { Discovery } from '../discover.js';
import { applicationName, parseSpringConfig, type SpringConfigFile } from './spring-config.js';

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
   * Default-profile configuration of the service (`application*` over `bootstrap*`, the deployable unit's own
   * resources over others), flattened: what `${…}` placeholders in its code resolve against.
   */
  config: Record<string, string>;
  /** Each other profile's own configuration (`application-dev.yml`, `on-profile` documents), by profile. */
  profiles: Record<string, Record<string, string>>;
  /** The file each default-profile key comes from (`docker-compose.yml:42` for a deployment's environment). */
  configOrigins?: Record<string, string>;
  /**
   * Keys a deployment file sets from what it leaves to its own environment (`CONFIG_SERVICE_PASSWORD:
   * $CONFIG_SERVICE_PASSWORD`, a Kubernetes secret): their value is not known, and no application file's value or
   * `${…:default}` stands in for it. Key (as `config` would hold it, raw and relaxed) → why.
   */
  configHoles?: Record<string, string>;
  /**
   * The names other services may address it by, from the estate's deployment files: compose service keys,
   * `container_name`, `hostname`, network aliases, Kubernetes workload names and the Services selecting them.
   * Sorted, without repeats; empty when no deployment file describes it.
   */
  hosts: string[];
  /** The deployment units (compose services, Kubernetes containers) that run it, by id. */
  deployedBy?: string[];
}

/** An nginx proxy rule of the estate, with who runs it and where it sends requests. */
export interface LayoutProxy extends ProxyRule {
  /** The estate service that owns the nginx file (deploys it, or holds it in its directory), if any. */
  service?: string;
  /** The names the proxy itself is addressed by: the hosts of the compose services that mount or build the file. */
  hosts: string[];
  /** The estate services `targetHosts` name (by their hosts, else their names, any case). */
  targetServices: string[];
}

/** A deployment unit of the estate, with the service it runs when it runs one. */
export type LayoutDeployment = DeploymentUnit & { service?: string };

export interface Layout {
  /** Services that own source files or a deployable build unit, sorted by name. */
  services: ServiceInfo[];
  /** The service and module of a file (posix, relative to the root); answers for any path, cached per directory. */
  locate(path: string): { service: string; module: string };
  /** nginx proxy rules in the estate's deployment files, in file and line order. */
  proxies: LayoutProxy[];
  /** The nginx server blocks of those rules (`file` + `line` = a rule's `file` + `serverLine`), every location listed. */
  proxyServers: NginxServer[];
  /** Debezium connectors the estate registers (change-data-capture topics). */
  connectors: CdcConnector[];
  /** Compose services and Kubernetes containers of the estate, matched to the services they run. */
  deployments: LayoutDeployment[];
  /** The service a host name (any case) addresses, from services' `hosts`; undefined when none or several claim it. */
  serviceOfHost(host: string): string | undefined;
  warnings: string[];
}

interface Unit {
  dir: string;
  buildFile: string;
  buildTool: BuildTool;
  children: Unit[];
  deployable: boolean;
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
  configHoles: Record<string, string>;
  hosts: Set<string>;
  deployedBy: string[];
  configServerFiles: string[];
}

const BUILD_FILE_PREFERENCE = ['pom.xml', 'build.gradle.kts', 'build.gradle', 'settings.gradle.kts', 'settings.gradle'];
const OWN_RESOURCES = /^src\/(?:main|[a-z][A-Za-z0-9]*Main)\/resources\//;

export function detectLayout(
  discovery: Discovery,
  readText: (relPath: string) => string | undefined,
  deployableDirs?: ReadonlySet<string>,
): Layout {
  const warnings: string[] = [];
  const rootName = basename(discovery.root);
  const units = buildUnits(discovery.buildFiles);
  const nearestUnit = nearestUnitFinder(units);
  const configs = readConfigs(discovery.configFiles, readText, warnings);
  markDeployables(units, nearestUnit, discovery.configFiles, deployableDirs);
  const serviceDirOfUnit = assignServices(units, nearestUnit);
  const unitlessDir = unitlessDirFinder(discovery);
  const scopeDirOf = (dir: string): string => {
    const unit = nearestUnit(dir);
    return unit ? serviceDirOfUnit.get(unit.dir)! : unitlessDir(dir);
  };

  const scopes = collectScopes(discovery, units, serviceDirOfUnit, scopeDirOf);
  for (const scope of scopes.values()) nameScope(scope, configs, rootName);
  const deployment = readDeployment(discovery.deploymentFiles ?? [], readText);
  warnings.push(...deployment.warnings);
  const runs = applyDeployment([...scopes.values()].filter(isListed), deployment.units, rootName, warnings);
  applyConfigServers([...scopes.values()], readText, warnings);
  const services = listServices(scopes, rootName, warnings);
  const hostOwner = hostIndex(services);
  const serviceOfHost = (host: string): string | undefined => hostOwner.get(host.toLowerCase());
  const deployments: LayoutDeployment[] = deployment.units.map((u) => {
    const scope = runs.get(u);
    return scope ? { ...u, service: scope.name } : { ...u };
  });
  const proxies = layoutProxies(deployment.proxies, deployment.units, runs, [...scopes.values()].filter(isListed), services);

  const located = new Map<string, { service: string; module: string }>();
  const locate = (path: string): { service: string; module: string } => {
    const dir = parentDir(normalizePath(path));
    let hit = located.get(dir);
    if (!hit) {
      const scopeDir = scopeDirOf(dir);
      const service = scopes.get(scopeDir)?.name ?? dirName(scopeDir, rootName);
      const unit = nearestUnit(dir);
      hit = { service, module: unit ? dirName(unit.dir, rootName) : service };
      located.set(dir, hit);
    }
    return hit;
  };
  return { services, locate, proxies, proxyServers: deployment.servers, connectors: deployment.connectors, deployments, serviceOfHost, warnings };
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

/** Unit dir → the dir of the service it belongs to. A unit whose subtree holds ≥2 deployables is an aggregator. */
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
    if (unit.deployablesBelow <= 1) return markSubtree(unit, unit.dir, serviceDir);
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
function unitlessDirFinder(discovery: Discovery): (dir: string) => string {
  const topDirs = new Set<string>();
  for (const file of discovery.files) {
    const slash = file.path.indexOf('/');
    if (slash > 0) topDirs.add(file.path.slice(0, slash));
  }
  const several = topDirs.size > 1;
  return (dir) => {
    const top = dir.split('/')[0]!;
    return several && top !== 'src' ? top : '';
  };
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
      s = { dir, units: [], configFiles: [], fileCount: 0, name: '', nameFrom: 'directory', config: {}, profiles: {}, configOrigins: {}, configHoles: {}, hosts: new Set(), deployedBy: [], configServerFiles: [] };
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
    const named = servers.filter((s) => [s.scope.name, lastSegment(s.scope.dir), ...s.scope.hosts].some((n) => new RegExp(`//${escapeRegExp(n)}[:/]`, 'i').test(`${uri}/`)));
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
          delete client.configHoles[k];
        }
      } else {
        const own = (client.profiles[f.profile] ??= {});
        for (const [k, v] of f.values) own[k] = v;
      }
    }
  }
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

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
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
    hosts: [...scope.hosts].sort(byString),
  };
  if (Object.keys(scope.configHoles).length) info.configHoles = scope.configHoles;
  if (scope.deployedBy.length) info.deployedBy = [...scope.deployedBy].sort(byString);
  if (scope.configServerFiles.length) info.configServerFiles = scope.configServerFiles;
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
    }
    applyEnvironment(scope, mergeEnvironments(own), warnings);
  }
  return runs;
}

function matchUnit(unit: DeploymentUnit, scopes: Scope[], rootName: string, containersOf: Map<string, number>, warnings: string[]): Scope | undefined {
  const pick = (rule: string, found: Scope[]): Scope | undefined | null => {
    const distinct = [...new Set(found)];
    if (distinct.length === 1) return distinct[0]!;
    if (distinct.length > 1) {
      warnings.push(`${unit.files[0]}:${unit.line}: ${unit.kind === 'compose' ? 'compose service' : 'Kubernetes container of'} ${unit.name} matches several services by ${rule} (${distinct.map((s) => s.name).sort(byString).join(', ')}); it is matched to none`);
      return null;
    }
    return undefined;
  };
  const dirs = [...unit.buildContexts, ...unit.dockerfiles.map(parentDir)];
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
      scope.config[key] = e.value;
      delete scope.configHoles[key];
      for (const f of environmentForms(key)) (configForms.get(f) ?? configForms.set(f, new Set()).get(f)!).add(key);
    } else {
      delete scope.config[key];
      scope.configHoles[key] = `environment variable ${e.name} (${origin}) ${e.unknown}`;
    }
    scope.configOrigins[key] = origin;
  };
  for (const e of env) {
    const origin = `${e.file}:${e.line}`;
    const form = e.name.toUpperCase();
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

/** `SPRING_APPLICATION_NAME` → `spring.application.name`, `ROUTES_0_URI` → `routes[0].uri`; other names as written. */
export function relaxedEnvKey(name: string): string {
  if (!/^[A-Z0-9_]+$/.test(name)) return name;
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

/** Host (lower case) → service, for hosts exactly one service claims. */
export function hostIndex(services: readonly ServiceInfo[]): Map<string, string> {
  const claims = new Map<string, Set<string>>();
  for (const s of services) for (const h of s.hosts) (claims.get(h.toLowerCase()) ?? claims.set(h.toLowerCase(), new Set()).get(h.toLowerCase())!).add(s.name);
  const out = new Map<string, string>();
  for (const [h, owners] of claims) if (owners.size === 1) out.set(h, [...owners][0]!);
  return out;
}

function layoutProxies(rules: readonly ProxyRule[], units: readonly DeploymentUnit[], runs: Map<DeploymentUnit, Scope>, scopes: Scope[], services: readonly ServiceInfo[]): LayoutProxy[] {
  const hosts = hostIndex(services);
  const names = new Map<string, string>();
  for (const s of services) if (!names.has(s.name.toLowerCase())) names.set(s.name.toLowerCase(), s.name);
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
