import type { Dirent } from 'node:fs';
import { open, readdir, readFile, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { deploymentFileKind } from './config/deployment.js';
import { mentionsNacosConfig } from './config/nacos.js';
import type { Language } from './parse/ir.js';
import { languageOfPath } from './parse/parser.js';
import type { ReadLog } from './stamp.js';

export interface DiscoverOptions {
  includeTests?: boolean;
  /** gitignore-style patterns, relative to the root. */
  exclude?: string[];
  /** Stamps every directory listed and every file read or looked for (see stamp.ts). */
  log?: ReadLog;
}

export interface DiscoveredFile {
  /** posix, relative to the root. */
  path: string;
  language: Language;
  size: number;
  mtimeMs: number;
}

export interface Discovery {
  /** absolute */
  root: string;
  /** .java and .kt sources, sorted by path. */
  files: DiscoveredFile[];
  /** application*.yml|yaml|properties and bootstrap*.…, outside test source sets and build output, sorted. */
  configFiles: string[];
  /** pom.xml, build.gradle(.kts), settings.gradle(.kts) outside any `src/` tree, sorted. */
  buildFiles: string[];
  /**
   * Files that may describe the deployment, by name (`deployment.ts` reads them): compose files, other YAML files
   * (Kubernetes manifests when their content says so), nginx and httpd configuration (`*.conf`, files under
   * `nginx/`, `apache/`, consul-template `*.ctmpl`), and SQL dumps that write Nacos's `config_info` table (the only
   * ones whose content is read here), outside test source sets; such files in `src/<set>/resources` are not (Spring
   * config, HOCON, migrations). Sorted.
   */
  deploymentFiles: string[];
  /**
   * Skipped entries: a skipped directory counts once (its content is not walked), a skipped file counts once
   * (only .java / .kt files are counted). Hidden directories and node_modules are not counted.
   */
  skipped: { gitignored: number; buildOutput: number; tests: number; excluded: number };
  warnings: string[];
}

interface IgnoreLevel {
  base: string;
  rules: Ignore;
}

interface Frame {
  dir: string;
  ignores: IgnoreLevel[];
  inSrc: boolean;
  inTests: boolean;
  /** A `target` / `build` dir with no build file beside it: output unless it holds a module itself. */
  suspectOutput: boolean;
}

interface Walk {
  root: string;
  /** The root with its symbolic links resolved: a link whose target lies outside it is not followed. */
  realRoot: string;
  includeTests: boolean;
  exclude: Ignore | undefined;
  result: Discovery;
  log: ReadLog | undefined;
}

const GRADLE_FILES = new Set(['build.gradle', 'build.gradle.kts', 'settings.gradle', 'settings.gradle.kts']);
const MAVEN_FILE = 'pom.xml';
const CONFIG_FILE = /^(?:application|bootstrap)(?:-[^.]+)?\.(?:ya?ml|properties)$/;
const RESOURCES_DIR = /(?:^|\/)src\/[^/]+\/resources(?:\/|$)/;
const TEST_SOURCE_SET = /^(?:test|tests|it|testFixtures)$|^test[A-Z]|^integrationTest|^[a-z][A-Za-z0-9]*(?:Test|Tests|IT)$/;
const ALWAYS_SKIPPED = new Set(['node_modules']);
const PARALLEL_DIRS = 32;

export function isBuildFileName(name: string): boolean {
  return name === MAVEN_FILE || GRADLE_FILES.has(name);
}

export function isConfigFileName(name: string): boolean {
  return CONFIG_FILE.test(name);
}

export async function discover(root: string, options: DiscoverOptions = {}): Promise<Discovery> {
  const absolute = resolve(root);
  const info = await stat(absolute).catch(() => undefined);
  if (!info?.isDirectory()) throw new Error(`not a directory: ${absolute}`);
  const walk: Walk = {
    root: absolute,
    realRoot: await realpath(absolute).catch(() => absolute),
    includeTests: options.includeTests ?? false,
    exclude: options.exclude?.length ? newIgnore().add(options.exclude) : undefined,
    log: options.log,
    result: {
      root: absolute,
      files: [],
      configFiles: [],
      buildFiles: [],
      deploymentFiles: [],
      skipped: { gitignored: 0, buildOutput: 0, tests: 0, excluded: 0 },
      warnings: [],
    },
  };
  const rootIgnores = await gitInfoExclude(walk);
  let level: Frame[] = [{ dir: '', ignores: rootIgnores, inSrc: false, inTests: false, suspectOutput: false }];
  while (level.length > 0) {
    const next: Frame[] = [];
    for (let i = 0; i < level.length; i += PARALLEL_DIRS) {
      const children = await Promise.all(level.slice(i, i + PARALLEL_DIRS).map((frame) => visit(walk, frame)));
      for (const c of children) next.push(...c);
    }
    level = next;
  }
  return sortResult(walk.result);
}

function newIgnore(): Ignore {
  return ignore({ ignorecase: false });
}

async function gitInfoExclude(walk: Walk): Promise<IgnoreLevel[]> {
  const text = await readOptional(walk, join(walk.root, '.git', 'info', 'exclude'), '.git/info/exclude');
  return text === undefined ? [] : [{ base: '', rules: newIgnore().add(text) }];
}

async function readOptional(walk: Walk, absolute: string, rel: string): Promise<string | undefined> {
  walk.log?.file(absolute);
  try {
    return await readFile(absolute, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') walk.result.warnings.push(`cannot read ${rel}: ${errorText(error)}`);
    return undefined;
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function visit(walk: Walk, frame: Frame): Promise<Frame[]> {
  const entries = await readEntries(walk, frame.dir);
  if (!entries) return [];
  const names = new Set(entries.map((e) => e.name));
  if (frame.suspectOutput && !(await holdsModule(walk, frame.dir, names))) {
    walk.result.skipped.buildOutput++;
    return [];
  }
  const ignores = await withGitignore(walk, frame, names);
  const children: Frame[] = [];
  const files: Promise<void>[] = [];
  for (const entry of entries) {
    const kind = await entryKind(walk, frame.dir, entry);
    if (kind === 'dir') {
      const child = childFrame(walk, frame, ignores, names, entry.name);
      if (child) children.push(child);
    } else if (kind === 'file') {
      files.push(addFile(walk, frame, ignores, entry.name));
    }
  }
  await Promise.all(files);
  return children;
}

async function readEntries(walk: Walk, dir: string): Promise<Dirent[] | undefined> {
  walk.log?.dir(join(walk.root, dir));
  try {
    const entries = await readdir(join(walk.root, dir), { withFileTypes: true });
    walk.log?.listed(join(walk.root, dir), entries);
    return entries;
  } catch (error) {
    walk.result.warnings.push(`cannot read directory ${dir || '.'}: ${errorText(error)}`);
    return undefined;
  }
}

async function entryKind(walk: Walk, dir: string, entry: Dirent): Promise<'dir' | 'file' | 'other'> {
  if (entry.isDirectory()) return 'dir';
  if (entry.isFile()) return 'file';
  if (!entry.isSymbolicLink()) return 'other';
  const real = await realpath(join(walk.root, dir, entry.name)).catch(() => undefined);
  if (!real) return 'other';
  const inside = relative(walk.realRoot, real);
  if (inside.startsWith('..') || isAbsolute(inside)) {
    // A file the index would read, linked from outside the tree: what lies there is not the estate's to show.
    if (indexable(entry.name)) walk.result.warnings.push(`skipped ${joinRel(dir, entry.name)}: a symbolic link to ${real}, outside the indexed root`);
    return 'other';
  }
  const target = await stat(real).catch(() => undefined);
  if (target?.isFile()) walk.log?.stamped(real, target.size, target.mtimeMs);
  return target?.isFile() ? 'file' : 'other';
}

/** Whether a file of this name is one discovery would index (source, configuration, build or deployment). */
function indexable(name: string): boolean {
  return !!languageOfPath(name) || isConfigFileName(name) || isBuildFileName(name) || !!deploymentFileKind(name);
}

async function holdsModule(walk: Walk, dir: string, names: Set<string>): Promise<boolean> {
  if (hasMaven(names) || hasGradle(names)) return true;
  if (!names.has('src')) return false;
  walk.log?.dir(join(walk.root, dir, 'src'));
  const main = await stat(join(walk.root, dir, 'src', 'main')).catch(() => undefined);
  return main?.isDirectory() ?? false;
}

async function withGitignore(walk: Walk, frame: Frame, names: Set<string>): Promise<IgnoreLevel[]> {
  if (!names.has('.gitignore')) return frame.ignores;
  const rel = joinRel(frame.dir, '.gitignore');
  const text = await readOptional(walk, join(walk.root, rel), rel);
  if (text === undefined) return frame.ignores;
  return [...frame.ignores, { base: frame.dir, rules: newIgnore().add(text) }];
}

function childFrame(walk: Walk, frame: Frame, ignores: IgnoreLevel[], siblings: Set<string>, name: string): Frame | undefined {
  if (name.startsWith('.') || ALWAYS_SKIPPED.has(name)) return undefined;
  const dir = joinRel(frame.dir, name);
  const skipped = walk.result.skipped;
  if (matches(walk.exclude, dir, true)) return count(skipped, 'excluded');
  if (gitignored(ignores, dir, true)) return count(skipped, 'gitignored');
  if (!frame.inSrc && isOutputBesideBuildFile(name, siblings)) return count(skipped, 'buildOutput');
  const isTests = lastSegment(frame.dir) === 'src' && TEST_SOURCE_SET.test(name);
  if (isTests && !walk.includeTests) return count(skipped, 'tests');
  return {
    dir,
    ignores,
    inSrc: frame.inSrc || name === 'src',
    inTests: frame.inTests || isTests,
    suspectOutput: !frame.inSrc && (name === 'target' || name === 'build') && !hasMaven(siblings) && !hasGradle(siblings),
  };
}

function count(skipped: Discovery['skipped'], reason: keyof Discovery['skipped']): undefined {
  skipped[reason]++;
  return undefined;
}

function isOutputBesideBuildFile(name: string, siblings: Set<string>): boolean {
  const maven = hasMaven(siblings);
  const gradle = hasGradle(siblings);
  if (name === 'target') return maven;
  if (name === 'build' || name === 'out') return gradle;
  if (name === 'bin') return maven || gradle;
  return false;
}

function hasMaven(names: Set<string>): boolean {
  return names.has(MAVEN_FILE);
}

function hasGradle(names: Set<string>): boolean {
  for (const f of GRADLE_FILES) if (names.has(f)) return true;
  return false;
}

async function addFile(walk: Walk, frame: Frame, ignores: IgnoreLevel[], name: string): Promise<void> {
  const path = joinRel(frame.dir, name);
  const language = languageOfPath(name);
  const isConfig = !frame.inTests && isConfigFileName(name);
  const isBuild = !frame.inSrc && !frame.inTests && isBuildFileName(name);
  const isDeployment = !language && !isConfig && !isBuild && !frame.inTests && isDeploymentFile(frame, path);
  if (!language && !isConfig && !isBuild && !isDeployment) return;
  if (matches(walk.exclude, path, false)) {
    if (language) walk.result.skipped.excluded++;
    return;
  }
  if (gitignored(ignores, path, false)) {
    if (language) walk.result.skipped.gitignored++;
    return;
  }
  if (isConfig) walk.result.configFiles.push(path);
  if (isBuild) walk.result.buildFiles.push(path);
  if (isDeployment && (deploymentFileKind(path) !== 'nacos' || (await seedsNacos(walk, path)))) walk.result.deploymentFiles.push(path);
  if (language) await addSource(walk, path, language);
}

function isDeploymentFile(frame: Frame, path: string): boolean {
  const kind = deploymentFileKind(path);
  if (!kind) return false;
  return kind === 'compose' || !frame.inSrc || !RESOURCES_DIR.test(frame.dir);
}

const SCAN_CHUNK = 1 << 16;
/** Kept from one chunk to the next: longer than an INSERT's reach to the table name ({@link mentionsNacosConfig}). */
const SCAN_OVERLAP = 512;

/**
 * Whether a SQL file writes Nacos's config table, read in chunks: schema and data dumps, however large, are
 * scanned once and not kept.
 */
async function seedsNacos(walk: Walk, path: string): Promise<boolean> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  walk.log?.file(join(walk.root, path));
  try {
    handle = await open(join(walk.root, path), 'r');
    const buffer = Buffer.alloc(SCAN_CHUNK);
    let carry = '';
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, SCAN_CHUNK, null);
      if (bytesRead === 0) return false;
      // latin1 keeps every byte one character: the words sought are ASCII, and no chunk splits a character.
      const text = carry + buffer.toString('latin1', 0, bytesRead);
      if (mentionsNacosConfig(text)) return true;
      carry = text.slice(-SCAN_OVERLAP);
    }
  } catch (error) {
    walk.result.warnings.push(`cannot read ${path}: ${errorText(error)}`);
    return false;
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

async function addSource(walk: Walk, path: string, language: Language): Promise<void> {
  try {
    const info = await stat(join(walk.root, path));
    walk.log?.stamped(join(walk.root, path), info.size, info.mtimeMs);
    walk.result.files.push({ path, language, size: info.size, mtimeMs: info.mtimeMs });
  } catch (error) {
    walk.result.warnings.push(`cannot stat ${path}: ${errorText(error)}`);
  }
}

function matches(rules: Ignore | undefined, path: string, isDir: boolean): boolean {
  if (!rules) return false;
  return testIgnore(rules, isDir ? `${path}/` : path).ignored;
}

/** The deepest .gitignore with an opinion on the path decides, as in git. */
function gitignored(levels: IgnoreLevel[], path: string, isDir: boolean): boolean {
  for (let i = levels.length - 1; i >= 0; i--) {
    const level = levels[i]!;
    const rel = level.base === '' ? path : path.slice(level.base.length + 1);
    const result = testIgnore(level.rules, isDir ? `${rel}/` : rel);
    if (result.unignored) return false;
    if (result.ignored) return true;
  }
  return false;
}

function testIgnore(rules: Ignore, path: string): { ignored: boolean; unignored: boolean } {
  try {
    return rules.test(path);
  } catch {
    return { ignored: false, unignored: false };
  }
}

function joinRel(dir: string, name: string): string {
  return dir === '' ? name : `${dir}/${name}`;
}

function lastSegment(dir: string): string {
  return dir.slice(dir.lastIndexOf('/') + 1);
}

function byString(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sortResult(result: Discovery): Discovery {
  result.files.sort((a, b) => byString(a.path, b.path));
  result.configFiles.sort(byString);
  result.buildFiles.sort(byString);
  result.deploymentFiles.sort(byString);
  result.warnings.sort(byString);
  return result;
}
