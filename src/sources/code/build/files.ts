/**
 * What each service is built on: the dependencies its Maven and Gradle build files declare, with the versions the
 * estate determines (properties, the estate's parents and dependencyManagement, BOMs and platforms in the estate,
 * version catalogs) and, when it does not, the reason; and, through `config-keys.ts`, the configuration keys its
 * configuration sets. Nothing is downloaded: a parent or BOM outside the estate is named, never read.
 */
import { nodeId } from '../../../graph/ids.js';
import type { DEPENDENCY_SCOPES } from '../../../graph/ontology/code.js';
import type { Ontology } from '../../../graph/ontology/index.js';
import type { EdgeRecord, NodeRecord, PropValue } from '../../../graph/types.js';
import { type Arg, child, children, childText, dottedName, type Expr, parseExpression, parseScript, parseToml, parseXml, type Statement, stringText, type TomlTable, type TomlValue, type XmlElement } from './syntax.js';
import { configKeyGraph } from '../config/config-keys.js';
import type { Discovery } from '../discover.js';
import type { Layout, LayoutDeployment, ServiceInfo } from '../config/layout.js';

type Scope = (typeof DEPENDENCY_SCOPES)[number];

/** What the build and configuration graph is made from: plain data, read once per build. */
export interface BuildInput {
  /** Text of every build file, version catalog, gradle.properties and configuration file read, by path. */
  texts: ReadonlyMap<string, string>;
  /** pom.xml, build.gradle(.kts) and settings.gradle(.kts) files of the estate, sorted. */
  buildFiles: readonly string[];
  /** The estate's deployment units, with the services they run (their environment sets configuration keys). */
  deployments: readonly LayoutDeployment[];
}

const CATALOG = 'gradle/libs.versions.toml';
const GRADLE_PROPERTIES = 'gradle.properties';

/** Reads what `buildGraph` needs through `readText` (which records what the index depends on). */
export function readBuildInput(discovery: Pick<Discovery, 'buildFiles'>, layout: Pick<Layout, 'services' | 'deployments'>, readText: (rel: string) => string | undefined): BuildInput {
  const texts = new Map<string, string>();
  const read = (path: string): void => {
    if (texts.has(path)) return;
    const text = readText(path);
    if (text !== undefined) texts.set(path, text);
  };
  for (const f of discovery.buildFiles) read(f);
  const gradleDirs = new Set(discovery.buildFiles.filter((f) => !f.endsWith('pom.xml')).map(parentDir));
  for (const dir of [...gradleDirs].sort()) {
    read(joinRel(dir, GRADLE_PROPERTIES));
    read(joinRel(dir, CATALOG));
  }
  for (const s of layout.services) for (const f of [...s.configFiles, ...(s.configServerFiles ?? [])]) read(f);
  return { texts, buildFiles: discovery.buildFiles, deployments: layout.deployments };
}

/** A dependency as declared, before it becomes a node. */
interface Declared {
  file: string;
  line: number;
  group: string;
  artifact: string;
  version?: string;
  versionWritten?: string;
  versionFrom?: string[];
  versionReason?: string;
  managedBy?: string[];
  scope: Scope;
  configuration?: string;
  classifier?: string;
  optional?: boolean;
  platform?: boolean;
  profile?: string;
  tool: 'maven' | 'gradle';
  /** The Gradle project paths or pom files this declaration applies to besides its own (inheritance). */
  appliesTo: 'self' | 'subprojects' | 'allprojects' | { project: string };
}

/** A value the estate may or may not determine. */
interface Val {
  value?: string;
  reason?: string;
  from: string[];
}

export interface BuildGraph {
  nodes: NodeRecord[];
  edges: EdgeRecord[];
  warnings: string[];
}

/** `dependency` and `config_key` nodes, and the DEPENDS_ON and READS_CONFIG edges from services. */
export function buildGraph(ontology: Ontology, source: string, services: readonly ServiceInfo[], locate: (path: string) => { service: string; module: string }, input: BuildInput): BuildGraph {
  const warnings: string[] = [];
  const maven = new MavenEstate(input, warnings);
  const gradle = new GradleEstate(input, warnings);
  const listed = new Set(services.map((s) => s.name));
  const coordinates = new Map<string, string>();
  for (const [ga, file] of [...maven.coordinates(), ...gradle.coordinates()]) {
    const service = locate(file).service;
    if (!coordinates.has(ga)) coordinates.set(ga, listed.has(service) ? service : '');
  }
  const declared = [...maven.declared(), ...gradle.declared()].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line));
  const nodes: NodeRecord[] = [];
  const used = new Set<string>();
  const byFile = new Map<string, { decl: Declared; id: string }[]>();
  for (const d of declared) {
    const at = locate(d.file);
    const identity = `${d.file}|${d.profile ?? ''}|${d.configuration ?? d.scope}|${d.group}:${d.artifact}|${d.classifier ?? ''}`;
    let id = nodeId(ontology, source, 'dependency', identity);
    for (let n = 2; used.has(id); n++) id = nodeId(ontology, source, 'dependency', `${identity}~${n}`);
    used.add(id);
    const builtBy = coordinates.get(`${d.group}:${d.artifact}`);
    const props: Record<string, PropValue> = {
      group: d.group,
      artifact: d.artifact,
      ...(d.version !== undefined ? { version: d.version } : {}),
      ...(d.versionWritten !== undefined ? { version_written: d.versionWritten } : {}),
      ...(d.versionFrom?.length ? { version_from: [...new Set(d.versionFrom)] } : {}),
      ...(d.version === undefined && d.versionReason ? { version_unresolved_reason: d.versionReason } : {}),
      ...(d.version === undefined && d.managedBy?.length ? { managed_by: [...new Set(d.managedBy)] } : {}),
      scope: d.scope,
      ...(d.configuration ? { configuration: d.configuration } : {}),
      ...(d.classifier ? { classifier: d.classifier } : {}),
      ...(d.optional ? { optional: true } : {}),
      platform: d.platform === true,
      internal: builtBy !== undefined,
      ...(builtBy ? { built_by: builtBy } : {}),
      build_tool: d.tool,
      ...(d.profile ? { profile: d.profile } : {}),
    };
    nodes.push({ id, kind: 'dependency', name: d.artifact, qualified_name: `${d.group}:${d.artifact}`, source, ...(listed.has(at.service) ? { service: at.service, module: at.module } : {}), file: d.file, line: d.line, props });
    (byFile.get(d.file) ?? byFile.set(d.file, []).get(d.file)!).push({ decl: d, id });
  }
  const edges: EdgeRecord[] = [];
  for (const s of services) {
    const own = new Set(s.modules.map((m) => m.buildFile).filter((f): f is string => !!f));
    const seen = new Set<string>();
    const link = (file: string, filter: (d: Declared) => boolean): void => {
      for (const { decl, id } of byFile.get(file) ?? []) {
        if (seen.has(id) || !filter(decl)) continue;
        seen.add(id);
        edges.push({ type: 'DEPENDS_ON', from: nodeId(ontology, source, 'service', s.name), to: id, attrs: { scope: decl.scope, via: own.has(file) ? 'declared' : 'parent' } });
      }
    };
    for (const m of s.modules) {
      if (!m.buildFile) continue;
      // A pom inherits its parents' dependencies, BOM imports and (outside the estate) parent.
      if (m.buildTool === 'maven') for (const file of maven.chain(m.buildFile)) link(file, () => true);
      else for (const { file, applies } of gradle.sources(m.dir)) link(file, applies);
    }
  }
  const config = configKeyGraph(ontology, source, services, locate, input.texts, input.deployments);
  return { nodes: [...nodes, ...config.nodes], edges: [...edges, ...config.edges], warnings };
}

// ---------------------------------------------------------------------------------------------------------------
// Maven

interface PomDep {
  group?: string;
  artifact?: string;
  version?: string;
  scope?: string;
  type?: string;
  classifier?: string;
  optional: boolean;
  line: number;
  profile?: string;
  processor?: boolean;
}

interface Pom {
  file: string;
  dir: string;
  groupId?: string;
  artifactId?: string;
  version?: string;
  parent?: { group: string; artifact: string; version: string; relativePath: string | null; line: number };
  properties: Map<string, { value: string; line: number }>;
  deps: PomDep[];
  managed: PomDep[];
}

const MAVEN_SCOPES: Record<string, Scope> = { compile: 'compile', provided: 'provided', runtime: 'runtime', test: 'test', system: 'system', import: 'import' };
const MAX_INTERPOLATION = 10;

class MavenEstate {
  private readonly poms = new Map<string, Pom>();
  private readonly byCoordinates = new Map<string, Pom[]>();
  private readonly parents = new Map<Pom, Pom | null>();

  constructor(input: BuildInput, warnings: string[]) {
    for (const file of input.buildFiles) {
      if (!file.endsWith('pom.xml')) continue;
      const text = input.texts.get(file);
      if (text === undefined) continue;
      const pom = readPom(file, text, warnings);
      if (!pom) continue;
      this.poms.set(file, pom);
    }
    for (const pom of this.poms.values()) {
      const ga = `${pom.groupId ?? pom.parent?.group}:${pom.artifactId}`;
      (this.byCoordinates.get(ga) ?? this.byCoordinates.set(ga, []).get(ga)!).push(pom);
    }
  }

  /** group:artifact of every pom in the estate, with its file. */
  coordinates(): [string, string][] {
    return [...this.poms.values()].filter((p) => p.artifactId).map((p) => [`${this.groupOf(p) ?? ''}:${p.artifactId}`, p.file]);
  }

  private groupOf(pom: Pom): string | undefined {
    return pom.groupId ?? pom.parent?.group;
  }

  /** The parent pom when the estate holds it: at its relative path (default ../pom.xml) with matching coordinates, else by coordinates. */
  parentOf(pom: Pom): Pom | undefined {
    const known = this.parents.get(pom);
    if (known !== undefined) return known ?? undefined;
    let found: Pom | undefined;
    const p = pom.parent;
    if (p) {
      const rel = p.relativePath;
      if (rel !== null) {
        const path = normalize(joinRel(pom.dir, rel.endsWith('.xml') ? rel : joinRel(rel, 'pom.xml')));
        const at = path === undefined ? undefined : this.poms.get(path);
        if (at && at.artifactId === p.artifact && this.groupOf(at) === p.group) found = at;
      }
      if (!found) {
        const candidates = (this.byCoordinates.get(`${p.group}:${p.artifact}`) ?? []).filter((c) => c !== pom);
        if (candidates.length === 1) found = candidates[0];
        else if (candidates.length > 1) found = candidates.find((c) => c.version === p.version) ?? candidates[0];
      }
    }
    this.parents.set(pom, found ?? null);
    return found;
  }

  /** The pom files whose declarations a module's build includes: its own, then its parents' in the estate. */
  chain(file: string): string[] {
    const out: string[] = [];
    let pom = this.poms.get(file);
    const seen = new Set<Pom>();
    while (pom && !seen.has(pom)) {
      seen.add(pom);
      out.push(pom.file);
      pom = this.parentOf(pom);
    }
    return out;
  }

  private lineage(pom: Pom): Pom[] {
    return this.chain(pom.file).map((f) => this.poms.get(f)!);
  }

  /** The parent outside the estate at the top of a pom's lineage, as group:artifact:version. */
  private externalParent(pom: Pom): string | undefined {
    const top = this.lineage(pom).at(-1)!;
    if (!top.parent || this.parentOf(top)) return undefined;
    const v = this.interpolate(top.parent.version, pom, 0);
    return `${top.parent.group}:${top.parent.artifact}${v.value ? `:${v.value}` : ''}`;
  }

  /** `${…}` expanded from the pom's properties and its estate parents' (the nearest wins), and project.* values. */
  interpolate(text: string, pom: Pom, depth: number): Val {
    if (!text.includes('${')) return { value: text, from: [] };
    if (depth > MAX_INTERPOLATION) return { reason: `properties nested deeper than ${MAX_INTERPOLATION} in ${text}`, from: [] };
    let out = '';
    const from: string[] = [];
    let i = 0;
    while (i < text.length) {
      const start = text.indexOf('${', i);
      if (start < 0) break;
      const end = text.indexOf('}', start);
      if (end < 0) break;
      out += text.slice(i, start);
      const name = text.slice(start + 2, end).trim();
      const v = this.property(name, pom, depth);
      if (v.value === undefined) return { reason: v.reason ?? `property ${name} is not set`, from };
      out += v.value;
      from.push(...v.from);
      i = end + 1;
    }
    return { value: out + text.slice(i), from };
  }

  private property(name: string, pom: Pom, depth: number): Val {
    const lineage = this.lineage(pom);
    for (const p of lineage) {
      const found = p.properties.get(name);
      if (found) {
        const v = this.interpolate(found.value, pom, depth + 1);
        return { ...v, from: [`${p.file}:${found.line}`, ...v.from] };
      }
    }
    const builtIn = this.builtIn(name, pom);
    if (builtIn !== undefined) return { ...this.interpolate(builtIn, pom, depth + 1) };
    if (name.startsWith('env.')) return { reason: `property ${name} is the environment variable ${name.slice(4)} of the machine Maven runs on`, from: [] };
    const external = this.externalParent(pom);
    return { reason: external ? `property ${name} is set by no pom in the estate (it may come from the parent ${external}, outside the estate)` : `property ${name} is set by no pom in the estate`, from: [] };
  }

  private builtIn(name: string, pom: Pom): string | undefined {
    const key = name.replace(/^(?:project|pom)\./, '');
    const lineage = this.lineage(pom);
    switch (key) {
      case 'version':
        return lineage.map((p) => p.version ?? p.parent?.version).find((v) => v !== undefined);
      case 'groupId':
        return lineage.map((p) => this.groupOf(p)).find((v) => v !== undefined);
      case 'artifactId':
        return pom.artifactId;
      case 'parent.version':
        return pom.parent?.version;
      case 'parent.groupId':
        return pom.parent?.group;
      case 'parent.artifactId':
        return pom.parent?.artifact;
      default:
        return undefined;
    }
  }

  /** A managed version for group:artifact in a pom's context: its lineage's dependencyManagement, then BOMs imported in the estate. */
  private managed(group: string, artifact: string, pom: Pom, seen: Set<Pom>): { version?: Val; line?: string; external: string[] } {
    const lineage = this.lineage(pom);
    for (const p of lineage) {
      for (const m of p.managed) {
        if (m.scope === 'import' || m.artifact === undefined || m.version === undefined) continue;
        const g = this.interpolate(m.group ?? '', pom, 0).value;
        const a = this.interpolate(m.artifact, pom, 0).value;
        if (g === group && a === artifact) return { version: this.interpolate(m.version, pom, 0), line: `${p.file}:${m.line}`, external: [] };
      }
    }
    const external: string[] = [];
    for (const p of lineage) {
      for (const m of p.managed) {
        if (m.scope !== 'import' || m.artifact === undefined) continue;
        const g = this.interpolate(m.group ?? '', pom, 0).value ?? m.group ?? '';
        const a = this.interpolate(m.artifact, pom, 0).value ?? m.artifact;
        const bom = (this.byCoordinates.get(`${g}:${a}`) ?? [])[0];
        if (bom && !seen.has(bom)) {
          seen.add(bom);
          const inner = this.managed(group, artifact, bom, seen);
          if (inner.version) return inner;
          external.push(...inner.external);
        } else if (!bom) {
          const v = m.version ? this.interpolate(m.version, pom, 0).value : undefined;
          external.push(`${g}:${a}${v ? `:${v}` : ''}`);
        }
      }
    }
    const parent = this.externalParent(pom);
    if (parent) external.push(parent);
    return { external };
  }

  declared(): Declared[] {
    const out: Declared[] = [];
    for (const pom of this.poms.values()) {
      const base = { file: pom.file, tool: 'maven' as const, appliesTo: 'self' as const };
      for (const d of pom.deps) {
        if (d.artifact === undefined) continue;
        const group = this.interpolate(d.group ?? '', pom, 0).value ?? d.group ?? '';
        const artifact = this.interpolate(d.artifact, pom, 0).value ?? d.artifact;
        const scope: Scope = d.processor ? 'annotation_processor' : (MAVEN_SCOPES[d.scope ?? 'compile'] ?? 'other');
        out.push({ ...base, line: d.line, group, artifact, scope, ...this.version(d, group, artifact, pom), ...(d.classifier ? { classifier: d.classifier } : {}), ...(d.optional ? { optional: true } : {}), ...(d.profile ? { profile: d.profile } : {}), ...(d.type === 'pom' && d.scope === 'import' ? { platform: true } : {}) });
      }
      for (const m of pom.managed) {
        if (m.scope !== 'import' || m.artifact === undefined) continue;
        const group = this.interpolate(m.group ?? '', pom, 0).value ?? m.group ?? '';
        const artifact = this.interpolate(m.artifact, pom, 0).value ?? m.artifact;
        out.push({ ...base, line: m.line, group, artifact, scope: 'import', platform: true, ...this.version(m, group, artifact, pom), ...(m.profile ? { profile: m.profile } : {}) });
      }
      if (pom.parent && !this.parentOf(pom)) {
        const v = this.interpolate(pom.parent.version, pom, 0);
        out.push({ ...base, line: pom.parent.line, group: pom.parent.group, artifact: pom.parent.artifact, scope: 'parent', platform: true, ...versionProps(v, pom.parent.version) });
      }
    }
    return out;
  }

  private version(d: PomDep, group: string, artifact: string, pom: Pom): Pick<Declared, 'version' | 'versionWritten' | 'versionFrom' | 'versionReason' | 'managedBy'> {
    if (d.version !== undefined) return versionProps(this.interpolate(d.version, pom, 0), d.version);
    if (d.scope === 'import') return { versionReason: 'no version declared' };
    const managed = this.managed(group, artifact, pom, new Set());
    if (managed.version) {
      const v = managed.version;
      return v.value !== undefined ? { version: v.value, versionFrom: [managed.line!, ...v.from] } : { versionFrom: [managed.line!], versionReason: `managed at ${managed.line}, where ${v.reason}` };
    }
    if (managed.external.length) return { versionReason: `no version declared; managed by ${managed.external.length === 1 ? 'a parent or BOM' : 'parents or BOMs'} outside the estate`, managedBy: managed.external };
    return { versionReason: 'no version declared, and no dependencyManagement in the estate manages it' };
  }
}

function versionProps(v: Val, written: string): Pick<Declared, 'version' | 'versionWritten' | 'versionFrom' | 'versionReason'> {
  const literal = !written.includes('${');
  return {
    ...(v.value !== undefined ? { version: v.value } : { versionReason: v.reason ?? 'not determined' }),
    ...(!literal ? { versionWritten: written } : {}),
    ...(v.from.length ? { versionFrom: v.from } : {}),
  };
}

function readPom(file: string, text: string, warnings: string[]): Pom | undefined {
  const { root, error } = parseXml(text);
  if (error) warnings.push(`${file}: cannot read the pom (${error})${root ? '; read as far as it goes' : ''}`);
  if (!root || root.name !== 'project') {
    if (root) warnings.push(`${file}: not a Maven pom (its document element is <${root.name}>)`);
    return undefined;
  }
  const parentEl = child(root, 'parent');
  const rel = child(parentEl, 'relativePath');
  const parent = parentEl && childText(parentEl, 'groupId') && childText(parentEl, 'artifactId') ? { group: childText(parentEl, 'groupId')!, artifact: childText(parentEl, 'artifactId')!, version: childText(parentEl, 'version') ?? '', relativePath: rel ? (rel.text.trim() || null) : '../pom.xml', line: parentEl.line } : undefined;
  const properties = new Map<string, { value: string; line: number }>();
  for (const p of child(root, 'properties')?.children ?? []) properties.set(p.name, { value: p.text.trim(), line: p.line });
  const deps: PomDep[] = [];
  const managed: PomDep[] = [];
  const collect = (scopeEl: XmlElement | undefined, profile: string | undefined): void => {
    for (const d of children(child(scopeEl, 'dependencies'), 'dependency')) deps.push(pomDep(d, profile));
    for (const d of children(child(child(scopeEl, 'dependencyManagement'), 'dependencies'), 'dependency')) managed.push(pomDep(d, profile));
    for (const plugin of children(child(child(scopeEl, 'build'), 'plugins'), 'plugin')) {
      for (const path of children(child(child(plugin, 'configuration'), 'annotationProcessorPaths'), 'path')) deps.push({ ...pomDep(path, profile), processor: true });
    }
  };
  collect(root, undefined);
  for (const p of children(child(root, 'profiles'), 'profile')) collect(p, childText(p, 'id') ?? '?');
  const dir = parentDir(file);
  return {
    file,
    dir,
    ...(childText(root, 'groupId') ? { groupId: childText(root, 'groupId')! } : {}),
    ...(childText(root, 'artifactId') ? { artifactId: childText(root, 'artifactId')! } : {}),
    ...(childText(root, 'version') ? { version: childText(root, 'version')! } : {}),
    ...(parent ? { parent } : {}),
    properties,
    deps,
    managed,
  };
}

function pomDep(d: XmlElement, profile: string | undefined): PomDep {
  const text = (name: string) => childText(d, name) || undefined;
  return {
    ...(text('groupId') ? { group: text('groupId')! } : {}),
    ...(text('artifactId') ? { artifact: text('artifactId')! } : {}),
    ...(text('version') ? { version: text('version')! } : {}),
    ...(text('scope') ? { scope: text('scope')! } : {}),
    ...(text('type') ? { type: text('type')! } : {}),
    ...(text('classifier') ? { classifier: text('classifier')! } : {}),
    optional: text('optional') === 'true',
    line: d.line,
    ...(profile ? { profile } : {}),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Gradle

/** Gradle configurations onto scopes, first match wins; any other configuration is `other`. */
const GRADLE_CONFIGURATIONS: readonly [RegExp, Scope][] = [
  [/test/i, 'test'],
  [/^(?:implementation|api|compile)$/, 'compile'],
  [/^(?:compileOnly|compileOnlyApi)$/, 'provided'],
  [/^(?:runtimeOnly|runtime)$/, 'runtime'],
  [/^developmentOnly$/, 'development'],
  [/^(?:annotationProcessor|kapt|ksp)$/, 'annotation_processor'],
];
/** Names in a dependencies block that are not configurations. */
const NOT_CONFIGURATIONS = new Set(['constraints', 'components', 'modules', 'attributesSchema', 'registerTransform', 'if', 'for', 'when', 'println', 'apply', 'project', 'add', 'artifactTypes']);
/** Plugins that manage versions when applied together: the BOM they import. */
const PLUGIN_BOMS: readonly { plugin: string; with: string; bom: (version: string) => string }[] = [
  { plugin: 'org.springframework.boot', with: 'io.spring.dependency-management', bom: (v) => `org.springframework.boot:spring-boot-dependencies:${v}` },
];
/** `kotlin("x")` in a dependencies block; versioned by the Kotlin Gradle plugin. */
const KOTLIN_GROUP = 'org.jetbrains.kotlin';

interface GradleProject {
  dir: string;
  file?: string;
  /** The directory of the build (settings file) it belongs to. */
  root: string;
  /** Ancestor projects of the same build, nearest first. */
  ancestors: GradleProject[];
  props: Map<string, { expr?: Expr; text?: string; line: number; file: string }>;
  plugins: Map<string, { version?: string; line: number; file: string }>;
  group?: { expr: Expr; file: string };
  version?: { expr: Expr; file: string };
  deps: { configuration: string; notation: Expr; line: number; file: string; appliesTo: Declared['appliesTo'] }[];
  managed: { notation: Expr; line: number; file: string; appliesTo: Declared['appliesTo'] }[];
}

interface CatalogLibrary {
  group: string;
  artifact: string;
  version?: Val;
  versionWritten?: string;
  line: number;
}

class GradleEstate {
  private readonly projects = new Map<string, GradleProject>();
  private readonly catalogs = new Map<string, { libraries: Map<string, CatalogLibrary>; bundles: Map<string, string[]>; versions: Map<string, { value: string; line: number }>; plugins: Map<string, { id: string; version?: string; line: number }>; file: string }>();
  private readonly names = new Map<string, string>();
  /** Projects by build root and path (`root\0:a:b`). */
  private readonly byPath = new Map<string, GradleProject>();
  /** Projects with `project(":x") { … }` blocks, which declare for other projects. */
  private readonly projectBlocks: GradleProject[] = [];
  /** group = … set in subprojects/allprojects blocks, applied to the projects below. */
  private readonly inherited: { from: GradleProject; appliesTo: Declared['appliesTo']; kind: 'group' | 'version'; expr: Expr; file: string }[] = [];

  constructor(
    private readonly input: BuildInput,
    private readonly warnings: string[],
  ) {
    const scripts = input.buildFiles.filter((f) => /(?:^|\/)build\.gradle(?:\.kts)?$/.test(f));
    const settings = input.buildFiles.filter((f) => /(?:^|\/)settings\.gradle(?:\.kts)?$/.test(f));
    const roots = new Set(settings.map(parentDir));
    const rootOf = (dir: string): string => {
      for (let d: string | undefined = dir; d !== undefined; d = d === '' ? undefined : parentDir(d)) if (roots.has(d)) return d;
      return dir;
    };
    for (const dir of new Set([...scripts.map(parentDir), ...roots])) {
      const file = scripts.find((f) => parentDir(f) === dir && f.endsWith('.kts')) ?? scripts.find((f) => parentDir(f) === dir);
      this.projects.set(dir, { dir, ...(file ? { file } : {}), root: rootOf(dir), ancestors: [], props: new Map(), plugins: new Map(), deps: [], managed: [] });
    }
    for (const p of this.projects.values()) {
      for (let d = p.dir; d !== p.root && d !== ''; ) {
        d = parentDir(d);
        const a = this.projects.get(d);
        if (a && a.root === p.root) p.ancestors.push(a);
        if (d === p.root) break;
      }
      for (const name of [GRADLE_PROPERTIES]) {
        for (const dir of [p.dir, ...p.ancestors.map((a) => a.dir)]) {
          const path = joinRel(dir, name);
          const text = input.texts.get(path);
          if (text === undefined) continue;
          text.split(/\r\n|\r|\n/).forEach((line, i) => {
            const m = /^\s*([A-Za-z0-9_.-]+)\s*[=:]\s*(.*?)\s*$/.exec(line);
            if (m && !line.trimStart().startsWith('#') && !p.props.has(`gradle:${m[1]}`)) p.props.set(`gradle:${m[1]}`, { text: m[2]!, line: i + 1, file: path });
          });
        }
      }
    }
    for (const p of this.projects.values()) this.byPath.set(`${p.root}\0${projectPath(p)}`, p);
    for (const root of new Set([...this.projects.values()].map((p) => p.root))) this.readCatalog(root);
    for (const f of settings) this.readSettings(f);
    for (const p of [...this.projects.values()].sort((a, b) => (a.dir < b.dir ? -1 : 1))) if (p.file) this.readScript(p, p.file);
  }

  private readCatalog(root: string): void {
    const file = joinRel(root, CATALOG);
    const text = this.input.texts.get(file);
    if (text === undefined) return;
    const { tables, errors } = parseToml(text);
    for (const e of errors) this.warnings.push(`${file}: ${e}`);
    const versions = new Map<string, { value: string; line: number }>();
    for (const [k, e] of Object.entries(tables.get('versions') ?? {})) {
      const v = versionText(e.value);
      if (v !== undefined) versions.set(k, { value: v, line: e.line });
    }
    const versionOf = (spec: TomlTable, line: number): { version?: Val; versionWritten?: string } => {
      const ref = spec['version.ref'] ?? (isTable(spec.version?.value) ? spec.version!.value['ref'] : undefined);
      if (ref && typeof ref.value === 'string') {
        const v = versions.get(ref.value);
        return { version: v ? { value: v.value, from: [`${file}:${v.line}`] } : { reason: `version.ref ${ref.value} is not in [versions] of ${file}`, from: [] }, versionWritten: `versions.${ref.value}` };
      }
      const v = spec.version ? versionText(spec.version.value) : undefined;
      return v !== undefined ? { version: { value: v, from: [`${file}:${line}`] } } : {};
    };
    const libraries = new Map<string, CatalogLibrary>();
    for (const [alias, e] of Object.entries(tables.get('libraries') ?? {})) {
      let lib: CatalogLibrary | undefined;
      if (typeof e.value === 'string') {
        const [g, a, v] = e.value.split(':');
        if (g && a) lib = { group: g, artifact: a, ...(v ? { version: { value: v, from: [`${file}:${e.line}`] } } : {}), line: e.line };
      } else if (isTable(e.value)) {
        const spec = e.value;
        const module = typeof spec.module?.value === 'string' ? spec.module.value.split(':') : undefined;
        const g = module?.[0] ?? (typeof spec.group?.value === 'string' ? spec.group.value : undefined);
        const a = module?.[1] ?? (typeof spec.name?.value === 'string' ? spec.name.value : undefined);
        if (g && a) lib = { group: g, artifact: a, ...versionOf(spec, e.line), line: e.line };
      }
      if (lib) libraries.set(accessor(alias), lib);
      else this.warnings.push(`${file}:${e.line}: library ${alias} names no group and artifact`);
    }
    const bundles = new Map<string, string[]>();
    for (const [alias, e] of Object.entries(tables.get('bundles') ?? {})) if (Array.isArray(e.value)) bundles.set(accessor(alias), e.value.filter((x): x is string => typeof x === 'string').map(accessor));
    const plugins = new Map<string, { id: string; version?: string; line: number }>();
    for (const [alias, e] of Object.entries(tables.get('plugins') ?? {})) {
      if (typeof e.value === 'string') {
        const [id, v] = e.value.split(':');
        if (id) plugins.set(accessor(alias), { id, ...(v ? { version: v } : {}), line: e.line });
      } else if (isTable(e.value) && typeof e.value.id?.value === 'string') {
        const v = versionOf(e.value, e.line).version?.value;
        plugins.set(accessor(alias), { id: e.value.id.value, ...(v ? { version: v } : {}), line: e.line });
      }
    }
    this.catalogs.set(root, { libraries, bundles, versions, plugins, file });
  }

  private readSettings(file: string): void {
    const text = this.input.texts.get(file);
    const root = this.projects.get(parentDir(file));
    if (text === undefined || !root) return;
    for (const s of parseScript(text)) {
      if (s.k === 'assign' && dottedName(s.target) === 'rootProject.name') {
        const name = this.literal(s.value);
        if (name) this.names.set(root.dir, name);
      }
      if (s.k === 'block' && dottedName(s.head) === 'pluginManagement') for (const inner of s.body) if (inner.k === 'block' && dottedName(inner.head) === 'plugins') this.readPlugins(root, inner.body, file);
    }
  }

  private literal(e: Expr): string | undefined {
    return e.k === 'str' ? stringText(e.parts) : undefined;
  }

  private readScript(project: GradleProject, file: string): void {
    const text = this.input.texts.get(file);
    if (text === undefined) return;
    this.readBody(project, parseScript(text), file, 'self', 0);
  }

  private readBody(project: GradleProject, body: readonly Statement[], file: string, appliesTo: Declared['appliesTo'], depth: number): void {
    if (depth > 8) return;
    for (const s of body) {
      if (s.k === 'block') {
        const head = s.head.k === 'call' ? s.head.callee : s.head;
        const name = dottedName(head);
        if (name === 'plugins') this.readPlugins(project, s.body, file);
        else if (name === 'dependencies') this.readDependencies(project, s.body, file, appliesTo);
        else if (name === 'dependencyManagement') this.readDependencyManagement(project, s.body, file, appliesTo);
        else if (name === 'ext' || name === 'project.ext' || name === 'extra') this.readExt(project, s.body, file);
        else if (name === 'buildscript') {
          for (const inner of s.body) if (inner.k === 'block' && dottedName(inner.head) === 'ext') this.readExt(project, inner.body, file);
        } else if ((name === 'subprojects' || name === 'allprojects') && appliesTo === 'self') this.readBody(project, s.body, file, name, depth + 1);
        else if (name === 'project' && s.head.k === 'call' && appliesTo === 'self') {
          const path = s.head.args[0] ? this.literal(s.head.args[0].value) : undefined;
          if (path) {
            this.readBody(project, s.body, file, { project: path }, depth + 1);
            if (!this.projectBlocks.includes(project)) this.projectBlocks.push(project);
          }
        }
      } else if (s.k === 'assign') {
        const target = dottedName(s.target) ?? (s.target.k === 'index' ? `${dottedName(s.target.obj)}[${this.literal(s.target.index) ?? '?'}]` : undefined);
        if (!target) continue;
        if (target === 'group' || target === 'project.group' || target === 'version' || target === 'project.version') {
          const kind = target.endsWith('group') ? 'group' : 'version';
          if (appliesTo === 'self') project[kind] = { expr: s.value, file };
          else this.inherited.push({ from: project, appliesTo, kind, expr: s.value, file });
        } else {
          const m = /^(?:project\.|rootProject\.)?(?:ext|extra)(?:\.([A-Za-z_][A-Za-z0-9_]*)|\[(.+)\])$/.exec(target);
          const key = m?.[1] ?? m?.[2];
          if (key) project.props.set(key, { expr: s.value, line: s.line, file });
        }
      } else if (s.k === 'decl') {
        if (s.value) project.props.set(s.name, { expr: s.value, line: s.line, file });
        else if (s.by) {
          const by = s.by;
          if (by.k === 'call' && dottedName(by.callee) === 'extra' && by.args[0]) project.props.set(s.name, { expr: by.args[0].value, line: s.line, file });
          // `val x: String by project`: the project property x (gradle.properties), not this declaration again.
          else if (dottedName(by) === 'project' || dottedName(by) === 'settings') project.props.set(s.name, { expr: { k: 'call', callee: { k: 'id', name: '$gradleProperty', line: s.line }, args: [{ value: { k: 'str', parts: [s.name], line: s.line } }], line: s.line }, line: s.line, file });
        }
      } else if (s.k === 'expr' && s.expr.k === 'call') {
        const callee = dottedName(s.expr.callee);
        // ext.set('x', 'v'), extra.set("x", "v")
        if ((callee === 'ext.set' || callee === 'extra.set' || callee === 'project.ext.set') && s.expr.args.length === 2) {
          const key = this.literal(s.expr.args[0]!.value);
          if (key) project.props.set(key, { expr: s.expr.args[1]!.value, line: s.line, file });
        } else if (callee === 'apply') {
          const plugin = s.expr.args.find((a) => a.name === 'plugin');
          const id = plugin ? this.literal(plugin.value) : undefined;
          if (id && !project.plugins.has(id)) project.plugins.set(id, { line: s.line, file });
        }
      }
    }
  }

  private readExt(project: GradleProject, body: readonly Statement[], file: string): void {
    for (const s of body) {
      if (s.k === 'assign' && s.target.k === 'id') project.props.set(s.target.name, { expr: s.value, line: s.line, file });
      else if (s.k === 'expr' && s.expr.k === 'call' && dottedName(s.expr.callee) === 'set' && s.expr.args.length === 2) {
        const key = this.literal(s.expr.args[0]!.value);
        if (key) project.props.set(key, { expr: s.expr.args[1]!.value, line: s.line, file });
      }
    }
  }

  private readPlugins(project: GradleProject, body: readonly Statement[], file: string): void {
    for (const s of body) {
      if (s.k !== 'expr') continue;
      const spec = pluginSpec(s.expr, this.catalogs.get(project.root));
      if (!spec) continue;
      const version = spec.version ? this.evaluate(spec.version, project, 0).value : spec.catalogVersion;
      const known = project.plugins.get(spec.id);
      if (!known || (!known.version && version)) project.plugins.set(spec.id, { ...(version ? { version } : {}), line: s.line, file });
    }
  }

  private readDependencies(project: GradleProject, body: readonly Statement[], file: string, appliesTo: Declared['appliesTo']): void {
    for (const s of body) {
      const expr = s.k === 'expr' ? s.expr : s.k === 'block' ? s.head : undefined;
      if (s.k === 'block' && dottedName(s.head) === 'constraints') {
        for (const c of s.body) {
          const e = c.k === 'expr' ? c.expr : c.k === 'block' ? c.head : undefined;
          if (e?.k === 'call') for (const a of e.args) project.managed.push({ notation: a.value, line: c.line, file, appliesTo });
        }
        continue;
      }
      if (!expr || expr.k !== 'call') continue;
      let configuration = dottedName(expr.callee);
      let args: readonly Arg[] = expr.args;
      if (expr.callee.k === 'str') configuration = stringText(expr.callee.parts);
      if (configuration === 'add' && args.length >= 2) {
        configuration = this.literal(args[0]!.value);
        args = args.slice(1);
      }
      if (!configuration || NOT_CONFIGURATIONS.has(configuration) || configuration.includes('.')) continue;
      if (args.some((a) => a.name)) project.deps.push({ configuration, notation: { k: 'call', callee: { k: 'id', name: '$map', line: s.line }, args, line: s.line }, line: s.line, file, appliesTo });
      else for (const a of args) project.deps.push({ configuration, notation: a.value, line: s.line, file, appliesTo });
    }
  }

  private readDependencyManagement(project: GradleProject, body: readonly Statement[], file: string, appliesTo: Declared['appliesTo']): void {
    for (const s of body) {
      if (s.k !== 'block') continue;
      const name = dottedName(s.head);
      for (const inner of s.body) {
        const e = inner.k === 'expr' ? inner.expr : inner.k === 'block' ? inner.head : undefined;
        if (e?.k !== 'call') continue;
        const callee = dottedName(e.callee);
        if (name === 'imports' && callee === 'mavenBom' && e.args[0]) project.deps.push({ configuration: 'mavenBom', notation: e.args[0].value, line: inner.line, file, appliesTo });
        else if (name === 'dependencies' && callee === 'dependency') project.managed.push({ notation: e.args.some((a) => a.name) ? { k: 'call', callee: { k: 'id', name: '$map', line: inner.line }, args: e.args, line: inner.line } : e.args[0]!.value, line: inner.line, file, appliesTo });
        else if (name === 'dependencies' && callee === 'dependencySet' && inner.k === 'block') {
          const map = namedArgs(e.args);
          for (const entry of inner.body) {
            if (entry.k !== 'expr' || entry.expr.k !== 'call' || dottedName(entry.expr.callee) !== 'entry' || !entry.expr.args[0]) continue;
            project.managed.push({ notation: { k: 'call', callee: { k: 'id', name: '$map', line: entry.line }, args: [{ name: 'group', value: map.group ?? { k: 'other' } }, { name: 'name', value: entry.expr.args[0].value }, { name: 'version', value: map.version ?? { k: 'other' } }], line: entry.line }, line: entry.line, file, appliesTo });
          }
        }
      }
    }
  }

  /** The projects a declaration made in `owner` applies to includes `target`. */
  private applies(owner: GradleProject, appliesTo: Declared['appliesTo'], target: GradleProject): boolean {
    if (appliesTo === 'self') return owner === target;
    if (appliesTo === 'allprojects') return owner === target || target.ancestors.includes(owner);
    if (appliesTo === 'subprojects') return target.ancestors.includes(owner);
    return target.root === owner.root && projectPath(target) === appliesTo.project;
  }

  /** The build files whose declarations a project includes, with the test for which of their declarations. */
  sources(dir: string): { file: string; applies: (d: Declared) => boolean }[] {
    const target = this.projects.get(dir);
    if (!target) return [];
    const out: { file: string; applies: (d: Declared) => boolean }[] = [];
    for (const owner of this.ownersFor(target).filter((p) => p.file)) {
      out.push({ file: owner.file!, applies: (d) => d.tool === 'gradle' && this.applies(owner, d.appliesTo, target) });
    }
    return out;
  }

  private projectOf(path: string, from: GradleProject): GradleProject | undefined {
    return this.byPath.get(`${from.root}\0${path}`);
  }

  /** The projects whose declarations may apply to a project: itself, its ancestors, and those with project(…) blocks; itself first. */
  private ownersFor(target: GradleProject): GradleProject[] {
    const blocks = this.projectBlocks.filter((p) => p.root === target.root && p !== target && !target.ancestors.includes(p));
    return [target, ...[...target.ancestors, ...blocks].sort((a, b) => (a.dir < b.dir ? -1 : 1))];
  }

  coordinates(): [string, string][] {
    const out: [string, string][] = [];
    for (const p of this.projects.values()) {
      if (!p.file) continue;
      const group = this.groupOf(p);
      if (group) out.push([`${group}:${this.nameOf(p)}`, p.file]);
    }
    return out;
  }

  private nameOf(p: GradleProject): string {
    return this.names.get(p.dir) ?? (p.dir === '' ? '' : p.dir.slice(p.dir.lastIndexOf('/') + 1));
  }

  private groupOf(p: GradleProject): string | undefined {
    return this.coordinate('group', p, 0).value;
  }

  /** A project's own group or version, else one a subprojects/allprojects/project(…) block sets for it. */
  private coordinate(kind: 'group' | 'version', p: GradleProject, depth: number): Val {
    const own = p[kind];
    if (own) return this.evaluate(own.expr, p, depth + 1);
    // The nearest ancestor's block wins, as it is applied last.
    const blocks = this.inherited.filter((i) => i.kind === kind && this.applies(i.from, i.appliesTo, p)).sort((a, b) => b.from.dir.length - a.from.dir.length);
    if (blocks[0]) return this.evaluate(blocks[0].expr, p, depth + 1);
    return { reason: `the project sets no ${kind}`, from: [] };
  }

  /** A property as Gradle looks it up from a project: its own, its ancestors', then gradle.properties. */
  private property(name: string, p: GradleProject, depth: number): Val {
    for (const q of [p, ...p.ancestors]) {
      const found = q.props.get(name);
      if (found?.expr) {
        const v = this.evaluate(found.expr, q, depth + 1);
        return { ...v, from: [`${found.file}:${found.line}`, ...v.from] };
      }
    }
    const fromFile = p.props.get(`gradle:${name}`);
    if (fromFile?.text !== undefined) return { value: fromFile.text, from: [`${fromFile.file}:${fromFile.line}`] };
    if (name === 'version' || name === 'group') return this.coordinate(name, p, depth);
    return { reason: `property ${name} is set by no build script or gradle.properties in the estate`, from: [] };
  }

  /** The text of an expression, as far as the estate determines it. */
  evaluate(e: Expr, p: GradleProject, depth: number): Val {
    if (depth > MAX_INTERPOLATION) return { reason: 'properties nested too deep', from: [] };
    switch (e.k) {
      case 'str': {
        let out = '';
        const from: string[] = [];
        for (const part of e.parts) {
          if (typeof part === 'string') {
            out += part;
            continue;
          }
          const v = this.evaluate(parseExpression(part.expr, e.line), p, depth + 1);
          if (v.value === undefined) return { reason: v.reason ?? `\${${part.expr}} is not determined`, from };
          out += v.value;
          from.push(...v.from);
        }
        return { value: out, from };
      }
      case 'num':
        return { value: e.text, from: [] };
      case 'id':
        return this.property(e.name, p, depth);
      case 'member': {
        const name = dottedName(e);
        if (name) {
          const m = /^(?:project\.|rootProject\.)?(?:ext|extra|properties)\.(.+)$/.exec(name);
          if (m) return this.property(m[1]!, p, depth);
          if (name === 'project.version' || name === 'rootProject.version') return this.property('version', name.startsWith('root') ? this.rootOf(p) : p, depth);
          if (name === 'project.group' || name === 'rootProject.group') return this.property('group', name.startsWith('root') ? this.rootOf(p) : p, depth);
          const v = /^libs\.versions\.(.+?)(?:\.get)?$/.exec(name);
          if (v) return this.catalogVersion(v[1]!, p);
        }
        return { reason: `${name ?? 'an expression'} is not determined by the estate`, from: [] };
      }
      case 'index': {
        const key = this.literal(e.index);
        const obj = dottedName(e.obj);
        if (key && obj && /^(?:project\.|rootProject\.)?(?:extra|ext|properties)$/.test(obj)) return this.property(key, p, depth);
        return { reason: 'an indexed expression is not determined by the estate', from: [] };
      }
      case 'call': {
        const callee = dottedName(e.callee);
        if (callee && /^(?:(?:project|rootProject)\.)?(?:property|findProperty)$|^providers\.gradleProperty$/.test(callee) && e.args[0]) {
          const key = this.literal(e.args[0].value);
          if (key) return this.property(key, p, depth);
        }
        if (callee === '$gradleProperty' && e.args[0]) {
          const key = this.literal(e.args[0].value)!;
          const found = p.props.get(`gradle:${key}`);
          return found?.text !== undefined ? { value: found.text, from: [`${found.file}:${found.line}`] } : { reason: `property ${key} is set by no gradle.properties in the estate`, from: [] };
        }
        if (e.callee.k === 'member' && (e.callee.name === 'get' || e.callee.name === 'toString') && e.args.length === 0) return this.evaluate(e.callee.obj, p, depth + 1);
        return { reason: `${callee ?? 'a call'}(…) is not determined by the estate`, from: [] };
      }
      default:
        return { reason: 'an expression the estate does not determine', from: [] };
    }
  }

  private rootOf(p: GradleProject): GradleProject {
    return this.projects.get(p.root) ?? p;
  }

  private catalogVersion(alias: string, p: GradleProject): Val {
    const catalog = this.catalogs.get(p.root);
    const v = catalog?.versions.get(accessor(alias));
    return v ? { value: v.value, from: [`${catalog!.file}:${v.line}`] } : { reason: `libs.versions.${alias} is not in ${catalog?.file ?? 'a version catalog of the estate'}`, from: [] };
  }

  declared(): Declared[] {
    const out: Declared[] = [];
    for (const p of [...this.projects.values()].sort((a, b) => (a.dir < b.dir ? -1 : 1))) {
      for (const d of p.deps) {
        const scope: Scope = d.configuration === 'mavenBom' ? 'import' : (GRADLE_CONFIGURATIONS.find(([re]) => re.test(d.configuration))?.[1] ?? 'other');
        for (const n of this.notations(d.notation, p, d.configuration === 'mavenBom')) {
          out.push({ file: d.file, line: d.line, tool: 'gradle', appliesTo: d.appliesTo, scope, configuration: d.configuration, ...n });
        }
      }
    }
    return out;
  }

  /** What a dependency notation declares (a bundle declares several), with its version resolved in a target project. */
  private notations(e: Expr, p: GradleProject, platform: boolean): Omit<Declared, 'file' | 'line' | 'tool' | 'appliesTo' | 'scope' | 'configuration'>[] {
    if (e.k === 'call') {
      const callee = dottedName(e.callee);
      if ((callee === 'platform' || callee === 'enforcedPlatform') && e.args[0]) return this.notations(e.args[0].value, p, true);
      if (callee === 'testFixtures' && e.args[0]) return this.notations(e.args[0].value, p, platform).map((n) => ({ ...n, classifier: 'test-fixtures' }));
      if (callee === 'project' && e.args[0]) {
        const path = this.literal((e.args.find((a) => a.name === 'path') ?? e.args[0]).value);
        const target = path ? this.projectOf(path, p) : undefined;
        if (!target) return [];
        const group = this.groupOf(target) ?? '';
        const version = this.property('version', target, 0);
        return [{ group, artifact: this.nameOf(target), ...(version.value ? { version: version.value } : { versionReason: 'a project of the same build, which sets no version' }), ...(platform ? { platform } : {}) }];
      }
      if (callee === 'kotlin' && e.args[0]) {
        const name = this.literal(e.args[0].value);
        if (!name) return [];
        const written = e.args[1] ? this.evaluate(e.args[1].value, p, 0) : undefined;
        const plugin = this.kotlinPlugin(p);
        return [{ group: KOTLIN_GROUP, artifact: `kotlin-${name}`, ...(written?.value ? { version: written.value } : plugin?.version ? { version: plugin.version, versionFrom: [`${plugin.file}:${plugin.line}`] } : { versionReason: 'kotlin(…) takes the Kotlin Gradle plugin\'s version, which the estate does not state' }) }];
      }
      if (callee === '$map') return this.mapNotation(namedArgs(e.args), p, platform);
      if (e.callee.k === 'member' && e.callee.name === 'get' && e.args.length === 0) return this.notations(e.callee.obj, p, platform);
      return [];
    }
    if (e.k === 'member' || e.k === 'id') {
      const name = dottedName(e);
      if (name?.startsWith('libs.')) return this.catalogNotation(name.slice(5), p, platform);
      if (name?.startsWith('projects.')) {
        const target = [...this.projects.values()].find((q) => q.root === p.root && camel(this.nameOf(q)) === name.slice(9));
        return target ? this.notations({ k: 'call', callee: { k: 'id', name: 'project', line: 0 }, args: [{ value: { k: 'str', parts: [projectPath(target)], line: 0 } }], line: 0 }, p, platform) : [];
      }
      if (e.k === 'id') {
        const v = this.evaluate(e, p, 0);
        return v.value ? this.stringNotation(v.value, `$${e.name}`, v.from, p, platform) : [];
      }
      return [];
    }
    if (e.k === 'str') {
      const literal = stringText(e.parts);
      if (literal !== undefined) return this.stringNotation(literal, undefined, [], p, platform);
      // Evaluate each part; the version part may stay unknown while group and artifact are literal.
      const written = e.raw ?? e.parts.map((x) => (typeof x === 'string' ? x : `\${${x.expr}}`)).join('');
      const v = this.evaluate(e, p, 0);
      if (v.value !== undefined) return this.stringNotation(v.value, written, v.from, p, platform);
      const [g, a, ver] = written.split(':');
      if (!g || !a || g.includes('${') || a.includes('${')) return [];
      return [{ group: g, artifact: a, ...(ver ? { versionWritten: ver, versionReason: v.reason ?? 'not determined' } : this.managedVersion(g, a, p)), ...(platform ? { platform } : {}) }];
    }
    return [];
  }

  private stringNotation(text: string, written: string | undefined, from: string[], p: GradleProject, platform: boolean): ReturnType<GradleEstate['notations']> {
    const [coordinates, ext] = text.split('@');
    const [g, a, v, classifier] = coordinates!.split(':');
    if (!g || !a) return [];
    const versionWritten = written?.split('@')[0]!.split(':')[2];
    return [
      {
        group: g,
        artifact: a,
        ...(v ? { version: v, ...(versionWritten && versionWritten !== v ? { versionWritten } : {}), ...(from.length ? { versionFrom: from } : {}) } : this.managedVersion(g, a, p)),
        ...(classifier ? { classifier } : ext ? { classifier: `@${ext}` } : {}),
        ...(platform ? { platform } : {}),
      },
    ];
  }

  private mapNotation(args: Record<string, Expr>, p: GradleProject, platform: boolean): ReturnType<GradleEstate['notations']> {
    const g = args.group ? this.evaluate(args.group, p, 0).value : undefined;
    const a = args.name ? this.evaluate(args.name, p, 0).value : undefined;
    if (!g || !a) return [];
    const v = args.version ? this.evaluate(args.version, p, 0) : undefined;
    const written = args.version && args.version.k !== 'str' ? (dottedName(args.version) ?? undefined) : args.version?.k === 'str' && stringText(args.version.parts) === undefined ? args.version.raw : undefined;
    const c = args.classifier ? this.evaluate(args.classifier, p, 0).value : undefined;
    return [{ group: g, artifact: a, ...(v ? { ...(v.value ? { version: v.value } : { versionReason: v.reason ?? 'not determined' }), ...(written ? { versionWritten: written } : {}), ...(v.from.length ? { versionFrom: v.from } : {}) } : this.managedVersion(g, a, p)), ...(c ? { classifier: c } : {}), ...(platform ? { platform } : {}) }];
  }

  private catalogNotation(path: string, p: GradleProject, platform: boolean): ReturnType<GradleEstate['notations']> {
    const catalog = this.catalogs.get(p.root);
    if (!catalog) return [];
    const clean = path.replace(/\.get$/, '');
    if (clean.startsWith('bundles.')) return (catalog.bundles.get(clean.slice(8)) ?? []).flatMap((alias) => this.catalogNotation(alias, p, platform));
    const lib = catalog.libraries.get(clean);
    if (!lib) return [];
    return [{ group: lib.group, artifact: lib.artifact, ...(lib.version?.value ? { version: lib.version.value, versionFrom: lib.version.from } : lib.version?.reason ? { versionReason: lib.version.reason } : this.managedVersion(lib.group, lib.artifact, p)), versionWritten: `libs.${clean}`, ...(platform ? { platform } : {}) }];
  }

  private kotlinPlugin(p: GradleProject): { version?: string; line: number; file: string } | undefined {
    for (const q of [p, ...p.ancestors, ...(this.projects.get(p.root) ? [this.projects.get(p.root)!] : [])]) for (const [id, v] of q.plugins) if (id.startsWith('org.jetbrains.kotlin.') && v.version) return v;
    return undefined;
  }

  private pluginVersion(id: string, p: GradleProject): { version: string; line: number; file: string } | undefined {
    for (const q of [p, ...p.ancestors, ...(this.projects.get(p.root) ? [this.projects.get(p.root)!] : [])]) {
      const v = q.plugins.get(id);
      if (v?.version) return { version: v.version, line: v.line, file: v.file };
    }
    return undefined;
  }

  /** The version of a dependency written without one: constraints and managed entries in the estate, else who manages it. */
  private managedVersion(group: string, artifact: string, p: GradleProject): Pick<Declared, 'version' | 'versionFrom' | 'versionReason' | 'managedBy'> {
    const owners = this.ownersFor(p);
    const platforms: GradleProject[] = [];
    const external: string[] = [];
    for (const q of owners) {
      for (const m of q.managed) {
        if (!this.applies(q, m.appliesTo, p)) continue;
        for (const n of this.constraintNotation(m.notation, q)) if (n.group === group && n.artifact === artifact && n.version) return { version: n.version, versionFrom: [`${m.file}:${m.line}`, ...(n.versionFrom ?? [])] };
      }
      for (const d of q.deps) {
        if (!this.applies(q, d.appliesTo, p)) continue;
        const e = d.notation;
        const isPlatform = d.configuration === 'mavenBom' || (e.k === 'call' && ['platform', 'enforcedPlatform'].includes(dottedName(e.callee) ?? ''));
        if (!isPlatform) continue;
        const inner = d.configuration === 'mavenBom' ? e : e.k === 'call' ? e.args[0]?.value : undefined;
        if (inner?.k === 'call' && dottedName(inner.callee) === 'project') {
          const path = inner.args[0] ? this.literal(inner.args[0].value) : undefined;
          const target = path ? this.projectOf(path, q) : undefined;
          if (target) platforms.push(target);
          continue;
        }
        if (inner) for (const n of this.coordinatesOf(inner, q)) external.push(n);
      }
    }
    for (const bom of platforms) {
      for (const m of bom.managed) for (const n of this.constraintNotation(m.notation, bom)) if (n.group === group && n.artifact === artifact && n.version) return { version: n.version, versionFrom: [`${m.file}:${m.line}`, ...(n.versionFrom ?? [])] };
    }
    const applied = new Set<string>();
    for (const q of [p, ...p.ancestors]) for (const id of q.plugins.keys()) applied.add(id);
    for (const rule of PLUGIN_BOMS) {
      if (!applied.has(rule.plugin) || !applied.has(rule.with)) continue;
      const v = this.pluginVersion(rule.plugin, p);
      external.push(v ? rule.bom(v.version) : rule.bom('?').replace(/:\?$/, ''));
    }
    if (group === KOTLIN_GROUP) {
      const k = this.kotlinPlugin(p);
      if (k?.version) return { version: k.version, versionFrom: [`${k.file}:${k.line}`] };
    }
    if (external.length) return { versionReason: `no version declared; managed by ${external.length === 1 ? 'a platform or BOM' : 'platforms or BOMs'} outside the estate`, managedBy: external };
    return { versionReason: 'no version declared, and no platform, BOM or constraint in the estate manages it' };
  }

  private constraintNotation(e: Expr, q: GradleProject): { group: string; artifact: string; version?: string; versionFrom?: string[] }[] {
    if (e.k === 'call' && dottedName(e.callee) === '$map') {
      const args = namedArgs(e.args);
      const g = args.group ? this.evaluate(args.group, q, 0).value : undefined;
      const a = args.name ? this.evaluate(args.name, q, 0).value : undefined;
      const v = args.version ? this.evaluate(args.version, q, 0) : undefined;
      return g && a ? [{ group: g, artifact: a, ...(v?.value ? { version: v.value, versionFrom: v.from } : {}) }] : [];
    }
    if (e.k === 'member' && dottedName(e)?.startsWith('libs.')) {
      const lib = this.catalogs.get(q.root)?.libraries.get(dottedName(e)!.slice(5));
      return lib ? [{ group: lib.group, artifact: lib.artifact, ...(lib.version?.value ? { version: lib.version.value, versionFrom: lib.version.from } : {}) }] : [];
    }
    const v = this.evaluate(e, q, 0);
    if (v.value === undefined) return [];
    const [g, a, ver] = v.value.split(':');
    return g && a ? [{ group: g, artifact: a, ...(ver ? { version: ver, versionFrom: v.from } : {}) }] : [];
  }

  private coordinatesOf(e: Expr, q: GradleProject): string[] {
    if (e.k === 'member' && dottedName(e)?.startsWith('libs.')) {
      const lib = this.catalogs.get(q.root)?.libraries.get(dottedName(e)!.slice(5).replace(/\.get$/, ''));
      return lib ? [`${lib.group}:${lib.artifact}${lib.version?.value ? `:${lib.version.value}` : ''}`] : [];
    }
    const v = this.evaluate(e, q, 0);
    return v.value ? [v.value] : [];
  }
}

/** A plugins-block entry: `id 'x' version 'v'`, `id("x") version "v"`, `kotlin("jvm") version "v"`, `alias(libs.plugins.x)`. */
function pluginSpec(e: Expr, catalog: { plugins: Map<string, { id: string; version?: string }> } | undefined): { id: string; version?: Expr; catalogVersion?: string } | undefined {
  let version: Expr | undefined;
  let cur: Expr = e;
  // Strip trailing `apply false` and `version "v"` infix calls.
  for (let guard = 0; guard < 4 && cur.k === 'call' && cur.callee.k === 'member'; guard++) {
    if (cur.callee.name === 'version') version = cur.args[0]?.value;
    else if (cur.callee.name !== 'apply') break;
    cur = cur.callee.obj;
  }
  if (cur.k !== 'call') return undefined;
  const callee = dottedName(cur.callee);
  const arg = cur.args[0]?.value;
  if (!arg) return undefined;
  // Groovy: `id 'x' version 'v'` parses as id(('x').version('v')).
  if (arg.k === 'call' && arg.callee.k === 'member' && arg.callee.name === 'version') {
    version = arg.args[0]?.value;
    return callee === 'id' && arg.callee.obj.k === 'str' ? { id: stringText(arg.callee.obj.parts) ?? '', ...(version ? { version } : {}) } : undefined;
  }
  if (callee === 'id' && arg.k === 'str') {
    const id = stringText(arg.parts);
    return id ? { id, ...(version ? { version } : {}) } : undefined;
  }
  if (callee === 'kotlin' && arg.k === 'str') {
    const id = stringText(arg.parts);
    return id ? { id: `org.jetbrains.kotlin.${id}`, ...(version ? { version } : {}) } : undefined;
  }
  if (callee === 'alias') {
    const name = dottedName(arg)?.replace(/^libs\.plugins\./, '');
    const plugin = name ? catalog?.plugins.get(name) : undefined;
    return plugin ? { id: plugin.id, ...(plugin.version ? { catalogVersion: plugin.version } : {}) } : undefined;
  }
  return undefined;
}

function namedArgs(args: readonly Arg[]): Record<string, Expr> {
  const out: Record<string, Expr> = {};
  for (const a of args) if (a.name) out[a.name === 'module' ? 'module' : a.name] = a.value;
  if (out.module && !out.group) {
    // `module = "g:a"` (Gradle's named notation does not have it, the dependency-management plugin's does).
    const text = out.module.k === 'str' ? stringText(out.module.parts) : undefined;
    const [g, a] = text?.split(':') ?? [];
    if (g && a) {
      out.group = { k: 'str', parts: [g], line: 0 };
      out.name = { k: 'str', parts: [a], line: 0 };
    }
  }
  return out;
}

/** A catalog alias as its accessor reads it: `spring-boot_starter.web` → `spring.boot.starter.web`. */
function accessor(alias: string): string {
  return alias.replace(/[-_.]/g, '.').toLowerCase();
}

function camel(name: string): string {
  return name.replace(/[-_]+([a-zA-Z0-9])/g, (_, c: string) => c.toUpperCase());
}

function versionText(v: TomlValue): string | undefined {
  if (typeof v === 'string') return v;
  if (isTable(v)) for (const k of ['strictly', 'require', 'prefer']) if (typeof v[k]?.value === 'string') return v[k]!.value as string;
  return undefined;
}

function isTable(v: TomlValue | undefined): v is TomlTable {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `:a:b` for a project's directory below its build's root. */
function projectPath(p: GradleProject): string {
  const rel = p.root === '' ? p.dir : p.dir === p.root ? '' : p.dir.slice(p.root.length + 1);
  return `:${rel.split('/').filter(Boolean).join(':')}`;
}

// ---------------------------------------------------------------------------------------------------------------
// Paths

function parentDir(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

function joinRel(dir: string, name: string): string {
  return dir === '' ? name : `${dir}/${name}`;
}

/** `a/b/../c` → `a/c`; undefined when it leaves the root. */
function normalize(path: string): string | undefined {
  const out: string[] = [];
  for (const seg of path.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (!out.length) return undefined;
      out.pop();
    } else out.push(seg);
  }
  return out.join('/');
}
