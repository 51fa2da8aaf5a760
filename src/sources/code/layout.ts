import { basename } from 'node:path';
import type { Discovery } from './discover.js';
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
  /**
   * Default-profile configuration of the service (`application*` over `bootstrap*`, the deployable unit's own
   * resources over others), flattened: what `${…}` placeholders in its code resolve against.
   */
  config: Record<string, string>;
  /** Each other profile's own configuration (`application-dev.yml`, `on-profile` documents), by profile. */
  profiles: Record<string, Record<string, string>>;
  /** The file each default-profile key comes from. */
  configOrigins?: Record<string, string>;
}

export interface Layout {
  /** Services that own source files or a deployable build unit, sorted by name. */
  services: ServiceInfo[];
  /** The service and module of a file (posix, relative to the root); answers for any path, cached per directory. */
  locate(path: string): { service: string; module: string };
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
  applyConfigServers([...scopes.values()], readText, warnings);
  const services = listServices(scopes, rootName, warnings);

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
  return { services, locate, warnings };
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
      s = { dir, units: [], configFiles: [], fileCount: 0, name: '', nameFrom: 'directory', config: {}, profiles: {}, configOrigins: {} };
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
    const named = servers.filter((s) => new RegExp(`//${escapeRegExp(s.scope.name)}[:/]|//${escapeRegExp(lastSegment(s.scope.dir))}[:/]`).test(`${uri}/`));
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
          if (text !== undefined) files.push(...parseSpringConfig(path, text, warnings).map((f) => ({ ...f, profile: f.profile === 'application' || f.profile === client.name ? null : f.profile })));
        }
      }
    }
    for (const f of files) {
      if (f.profile === null) {
        for (const [k, v] of f.values) {
          client.config[k] = v;
          client.configOrigins[k] = f.path;
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

function listServices(scopes: Map<string, Scope>, rootName: string, warnings: string[]): ServiceInfo[] {
  const listed = [...scopes.values()].filter((s) => s.fileCount > 0 || s.units.some((u) => u.deployable));
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
  };
  if (scope.applicationNameFile) info.applicationNameFile = scope.applicationNameFile;
  return info;
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
