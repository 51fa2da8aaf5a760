import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { CodeMount, CodeSourceConfig } from '../config/types.js';
import { FILE_HASHES_ARTIFACT, parseFileHashes, formatFileHashes } from '../graph/file-hashes.js';
import type { Ontology } from '../graph/ontology/index.js';
import { type SourceInfo, type SourceWrite, type Store, wholeGraph } from '../graph/store.js';
import type { EdgeRecord, NodeRecord } from '../graph/types.js';
import { validateGraph } from '../graph/validate.js';
import { BuildError, type BuildEvents, type BuildReport } from './build.js';
import { ESTATE_SOURCE, REPOSITORY_ARTIFACT } from './estate-names.js';
import { buildSource } from './sources.js';

/**
 * An estate whose services live in separate repositories, each published by its own job (`sextant index <repo>
 * --source <name>`), at its own time, into one store. Links between services need every repository at once, so a
 * publication (or a retirement) rebuilds the estate as one tree — this repository's checkout beside the others'
 * files as they last published them (kept in the store with each repository's source) — exactly as the single-
 * source build of all of them side by side would, and writes it back split by repository: each repository's
 * nodes and the edges among them under its own source, and what no one repository holds (external systems and
 * libraries, and every edge between two sources) under `ESTATE_SOURCE`. Re-linking the others is part of that
 * write; what a repository no longer has leaves the others' links with it. One estate per store; one publication
 * at a time (the store's `exclusive` lock, held from reading the others to writing them all).
 */

export { ESTATE_SOURCE, REPOSITORY_ARTIFACT };
/** The name the estate's node ids are made under, whichever job builds it (so ids never depend on who published). */
const ESTATE_BUILD = 'estate';

interface RepositorySnapshot {
  version: 1;
  name: string;
  origin: string;
  include_tests: boolean;
  exclude: string[];
  roles: CodeSourceConfig['roles'];
  capabilities: CodeSourceConfig['capabilities'];
  links: NonNullable<CodeSourceConfig['links']>;
  /** Every file the build read, relative to the repository's root, with its text. */
  files: [string, string][];
}

function encodeSnapshot(s: RepositorySnapshot): string {
  return gzipSync(JSON.stringify(s)).toString('base64');
}

function decodeSnapshot(text: string): RepositorySnapshot | undefined {
  try {
    const s = JSON.parse(gunzipSync(Buffer.from(text, 'base64')).toString('utf8')) as RepositorySnapshot;
    return s.version === 1 && Array.isArray(s.files) ? s : undefined;
  } catch {
    return undefined;
  }
}

export interface EstateOptions {
  cacheDir?: string;
}

export interface EstateMember {
  name: string;
  /** Its source as the index lists it. */
  info: SourceInfo;
  snapshot: RepositorySnapshot;
  snapshotText: string;
}

/** The repositories the store holds as an estate's members (sources published with `--source`). */
export async function estateMembers(store: Store): Promise<EstateMember[]> {
  const out: EstateMember[] = [];
  for (const info of await store.sources()) {
    if (info.kind !== 'code' || info.name === ESTATE_SOURCE) continue;
    const text = await store.artifact(info.name, REPOSITORY_ARTIFACT);
    const snapshot = text === undefined ? undefined : decodeSnapshot(text);
    if (text !== undefined && snapshot) out.push({ name: info.name, info, snapshot, snapshotText: text });
  }
  return out;
}

/** Whether the store's source `name` is a repository of the estate. */
export async function isEstateMember(store: Store, name: string): Promise<boolean> {
  return (await store.artifact(name, REPOSITORY_ARTIFACT)) !== undefined;
}

/**
 * Publishes `repo` (a code source whose path is this repository's checkout) as the estate's repository of its name,
 * or, with `retire`, takes that repository out; then re-links the estate. Returns what was written, as `index` reports it.
 */
export async function relinkEstate(
  store: Store,
  ontology: Ontology,
  change: { publish: CodeSourceConfig } | { retire: string },
  events: BuildEvents = {},
  env: Record<string, string | undefined> = process.env,
  options: EstateOptions = {},
): Promise<BuildReport> {
  const run = () => relink(store, ontology, change, events, env, options);
  return store.exclusive ? store.exclusive('estate', run) : run();
}

async function relink(store: Store, ontology: Ontology, change: { publish: CodeSourceConfig } | { retire: string }, events: BuildEvents, env: Record<string, string | undefined>, options: EstateOptions): Promise<BuildReport> {
  const started = performance.now();
  const own = 'publish' in change ? change.publish : undefined;
  const retiring = 'retire' in change ? change.retire : undefined;
  if (own?.name === ESTATE_SOURCE) throw new BuildError(own.name, `"${ESTATE_SOURCE}" is the name of the estate's own source (what no one repository holds): publish the repository under another name.`);
  const members = (await estateMembers(store)).filter((m) => m.name !== own?.name && m.name !== retiring);
  const work = mkdtempSync(join(tmpdir(), 'sextant-estate-'));
  try {
    // The others as they last published them, each in a folder of its name.
    const made = new Set<string>();
    const mounts: CodeMount[] = members.map((m) => {
      const dir = join(work, m.name);
      mkdirSync(dir, { recursive: true });
      for (const [rel, text] of m.snapshot.files) {
        const file = join(dir, rel);
        if (!file.startsWith(dir + '/')) continue;
        const parent = dirname(file);
        if (!made.has(parent)) {
          mkdirSync(parent, { recursive: true });
          made.add(parent);
        }
        writeFileSync(file, text);
      }
      return { name: m.name, path: dir, include_tests: m.snapshot.include_tests, exclude: m.snapshot.exclude };
    });
    if (own) mounts.push({ name: own.name, path: own.path, include_tests: own.include_tests, exclude: own.exclude });
    if (mounts.length === 0) {
      // The last repository retired: the estate's own source goes with it.
      const infos = await store.writeSources([], { remove: [...(retiring ? [retiring] : []), ...((await store.sources()).some((s) => s.name === ESTATE_SOURCE) ? [ESTATE_SOURCE] : [])] });
      return { sources: infos.map((i) => ({ ...i, seconds: 0, warnings: [] })), removed: retiring ? [retiring, ESTATE_SOURCE] : [], write_seconds: 0, seconds: round((performance.now() - started) / 1000) };
    }
    const configs = [...members.map((m) => m.snapshot), ...(own ? [{ roles: own.roles, capabilities: own.capabilities, links: own.links ?? { clients: {}, destinations: {} } }] : [])];
    // Each repository's overrides and pins hold in the estate; this repository's win where two name the same thing.
    const merged = (pick: (c: (typeof configs)[number]) => object): unknown => {
      const out: Record<string, Record<string, unknown>> = {};
      for (const c of configs) for (const [k, v] of Object.entries(pick(c) as Record<string, Record<string, unknown>>)) out[k] = { ...(out[k] ?? {}), ...v };
      return out;
    };
    const cfg: CodeSourceConfig = {
      kind: 'code',
      name: ESTATE_BUILD,
      path: work,
      mounts,
      include_tests: false,
      exclude: [],
      roles: merged((c) => c.roles) as CodeSourceConfig['roles'],
      capabilities: merged((c) => c.capabilities) as CodeSourceConfig['capabilities'],
      links: merged((c) => c.links) as NonNullable<CodeSourceConfig['links']>,
    };
    const name = own?.name ?? ESTATE_SOURCE;
    events.sourceStart?.(own ? own.name : `${ESTATE_SOURCE} (without ${retiring})`, 0, 1);
    const t0 = performance.now();
    const partial = await buildSource(cfg, { ontology, baseDir: work, env, onProgress: (message) => events.message?.(name, message), ...(options.cacheDir ? { cacheDir: options.cacheDir } : {}) });
    // The estate is split by repository and written whole: every row is needed.
    const built = { ...partial, ...wholeGraph(partial) };
    for (const w of built.warnings) events.warning?.(name, w);
    const problems = validateGraph(ontology, built.nodes, built.edges);
    if (problems.length) throw new BuildError(name, `the estate produced an invalid graph (a Sextant bug; nothing was written):\n  ${problems.slice(0, 10).join('\n  ')}`);
    const seconds = round((performance.now() - t0) / 1000);

    const names = new Set(mounts.map((m) => m.name));
    const split = splitByRepository(built.nodes, built.edges, names);
    const hashes = parseFileHashes(built.artifacts?.[FILE_HASHES_ARTIFACT] ?? '');
    const now = new Date().toISOString();
    const writes: SourceWrite[] = [];
    for (const m of [...mounts].sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const member = members.find((x) => x.name === m.name);
      const part = split.get(m.name) ?? { nodes: [], edges: [] };
      const fileHashes = formatFileHashes([...hashes].filter(([p]) => p.startsWith(`${m.name}/`)).map(([p, h]) => [p.slice(m.name.length + 1), h] as const));
      let snapshotText: string;
      let origin: string;
      if (member) {
        snapshotText = member.snapshotText;
        origin = member.snapshot.origin;
      } else {
        const prefix = `${m.name}/`;
        const read = new Set((built.inputs ?? []).filter((p) => p.startsWith(prefix)).map((p) => p.slice(prefix.length)));
        const files = [...new Set([...read, ...configurationFiles(own!.path)])].sort().flatMap((rel): [string, string][] => {
          try {
            return [[rel, readFileSync(join(own!.path, rel), 'utf8')]];
          } catch {
            return [];
          }
        });
        origin = own!.path;
        snapshotText = encodeSnapshot({ version: 1, name: m.name, origin, include_tests: own!.include_tests, exclude: own!.exclude, roles: own!.roles, capabilities: own!.capabilities, links: own!.links ?? { clients: {}, destinations: {} }, files });
      }
      writes.push({
        source: { name: m.name, kind: 'code', origin, built_at: member ? member.info.built_at : now, content_hash: createHash('sha256').update(snapshotText).digest('hex') },
        nodes: part.nodes,
        edges: part.edges,
        incremental: true,
        artifacts: { [FILE_HASHES_ARTIFACT]: fileHashes, [REPOSITORY_ARTIFACT]: snapshotText },
      });
    }
    // Last and in full: its edges reach into every repository, whose own writes above may have replaced their ends.
    const rest = split.get(ESTATE_SOURCE) ?? { nodes: [], edges: [] };
    writes.push({ source: { name: ESTATE_SOURCE, kind: 'code', origin: `the estate of ${names.size} repositories: ${[...names].sort().join(', ')}`, built_at: now, content_hash: built.content_hash }, nodes: rest.nodes, edges: rest.edges });
    const t1 = performance.now();
    const infos = await store.writeSources(writes, { remove: retiring ? [retiring] : [], onProgress: (p) => events.write?.(p.source, p) });
    const writeSeconds = round((performance.now() - t1) / 1000);
    return {
      sources: infos.map((info) => ({ ...info, seconds: info.name === name ? seconds : 0, warnings: info.name === name ? built.warnings : [], ...(info.name === name && built.details ? { details: built.details } : {}) })),
      removed: retiring ? [retiring] : [],
      write_seconds: writeSeconds,
      seconds: round((performance.now() - started) / 1000),
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Names of files a build may read for what they configure, beyond the ones this build read (see below). */
const CONFIGURATION_FILE = /\.(ya?ml|properties|json|xml|toml|conf|ctmpl|env|gradle|kts)$|^(Dockerfile|Jenkinsfile)$/i;
const SKIPPED_DIRS = new Set(['.git', 'node_modules', 'target', 'build', 'out', 'bin', 'dist', '.gradle', '.idea', '.mvn']);
const MAX_CONFIGURATION_FILE_BYTES = 1 << 20;
const MAX_CONFIGURATION_FILES = 20_000;

/**
 * The repository's configuration-like files, whoever reads them: what one build of the estate reads of a repository
 * depends on the others (a config server's `shared/gateway.yml` is read once a gateway service is there), so a
 * repository keeps every file a later build with other repositories may read, not only what this one did.
 */
function configurationFiles(root: string): string[] {
  const out: string[] = [];
  const pending = [''];
  while (pending.length && out.length < MAX_CONFIGURATION_FILES) {
    const rel = pending.pop()!;
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(join(root, rel), { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (!SKIPPED_DIRS.has(e.name)) pending.push(path);
      } else if (e.isFile() && CONFIGURATION_FILE.test(e.name)) {
        try {
          if (statSync(join(root, path)).size <= MAX_CONFIGURATION_FILE_BYTES) out.push(path);
        } catch {
          // gone since listed
        }
      }
    }
  }
  return out;
}

/**
 * Each node to the repository its file is in (the path made relative to that repository again), or to the estate's
 * own source when it has no file; each edge to the repository both its ends are in, else to the estate's source.
 */
function splitByRepository(nodes: readonly NodeRecord[], edges: readonly EdgeRecord[], repositories: ReadonlySet<string>): Map<string, { nodes: NodeRecord[]; edges: EdgeRecord[] }> {
  const out = new Map<string, { nodes: NodeRecord[]; edges: EdgeRecord[] }>();
  const part = (name: string) => {
    let p = out.get(name);
    if (!p) out.set(name, (p = { nodes: [], edges: [] }));
    return p;
  };
  const sourceOf = new Map<string, string>();
  for (const n of nodes) {
    const slash = n.file ? n.file.indexOf('/') : -1;
    const repo = slash > 0 && repositories.has(n.file!.slice(0, slash)) ? n.file!.slice(0, slash) : undefined;
    const source = repo ?? ESTATE_SOURCE;
    sourceOf.set(n.id, source);
    part(source).nodes.push(repo ? { ...n, source, file: n.file!.slice(slash + 1) } : { ...n, source });
  }
  for (const e of edges) {
    const [from, to] = [sourceOf.get(e.from), sourceOf.get(e.to)];
    part(from !== undefined && from === to ? from : ESTATE_SOURCE).edges.push(e);
  }
  return out;
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
