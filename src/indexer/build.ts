import type { WorkspaceConfig } from '../config/types.js';
import type { Ontology } from '../graph/ontology/index.js';
import type { SourceInfo, SourceWrite, Store, WriteProgress } from '../graph/store.js';
import type { EdgeRecord, NodeRecord } from '../graph/types.js';
import { validateGraph } from '../graph/validate.js';
import { ESTATE_SOURCE, REPOSITORY_ARTIFACT } from './estate-names.js';
import { buildSource } from './sources.js';
import { collectGarbage } from './memory.js';

/** Rows (nodes and edges) from which a build collects garbage before it writes. */
const COLLECT_BEFORE_WRITE = 500_000;

export interface BuildEvents {
  sourceStart?: (name: string, index: number, total: number) => void;
  message?: (source: string, message: string) => void;
  write?: (source: string, p: WriteProgress) => void;
  warning?: (source: string, warning: string) => void;
}

export interface BuildReport {
  /** Per source: what was written, and the seconds spent reading and extracting it. */
  sources: (SourceInfo & { seconds: number; warnings: string[]; details?: Record<string, unknown> })[];
  removed: string[];
  /** Seconds spent writing everything to the store. */
  write_seconds: number;
  seconds: number;
}

export class BuildError extends Error {
  constructor(
    readonly source: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Builds every source of a workspace, then writes them all (and removes sources no longer configured) in one
 * store transaction, so a reader never sees a half-built workspace. A failing source fails the build and
 * leaves the index as it was.
 */
export interface BuildOptions {
  /** Where sources keep derived data between builds (parsed facts); usually `<store>/cache`. */
  cacheDir?: string;
  /** In-memory state sources keep between builds of one process (`index --watch`): pass the same map each time. */
  session?: Map<string, unknown>;
  /** Build only these sources (a scheduled refresh); the others, configured or not, stay as they are. */
  only?: readonly string[];
  /** Data sources of a Hugr source to read again whatever their versions say (a targeted refresh). */
  refreshDataSources?: readonly string[];
}

export async function buildWorkspace(store: Store, ontology: Ontology, config: WorkspaceConfig, events: BuildEvents = {}, env: Record<string, string | undefined> = process.env, options: BuildOptions = {}): Promise<BuildReport> {
  const started = performance.now();
  const configured = new Set(config.sources.map((s) => s.name));
  const current = await store.sources();
  // An estate's repositories are published by their own jobs (`--source`) and retired by `sextant remove`, never
  // removed for not being in this workspace.
  const removed: string[] = [];
  if (!options.only) for (const s of current) if (!configured.has(s.name) && s.name !== ESTATE_SOURCE && (await store.artifact(s.name, REPOSITORY_ARTIFACT)) === undefined) removed.push(s.name);
  const writes: SourceWrite[] = [];
  const unchanged: BuildReport['sources'] = [];
  const timings = new Map<string, { seconds: number; warnings: string[]; details?: Record<string, unknown> }>();
  const selected = options.only ? config.sources.filter((s) => options.only!.includes(s.name)) : config.sources;
  for (const [i, cfg] of selected.entries()) {
    const t0 = performance.now();
    const previous = current.find((s) => s.name === cfg.name);
    events.sourceStart?.(cfg.name, i, selected.length);
    const built = await buildSource(cfg, {
      ontology,
      baseDir: config.dir,
      env,
      onProgress: (message) => events.message?.(cfg.name, message),
      ...(options.cacheDir ? { cacheDir: options.cacheDir } : {}),
      ...(options.session ? { session: options.session } : {}),
      ...(previous ? { previous: { ...(previous.content_hash ? { content_hash: previous.content_hash } : {}), artifact: (name: string) => store.artifact(cfg.name, name) } } : {}),
      ...(options.refreshDataSources ? { refreshDataSources: options.refreshDataSources } : {}),
    });
    for (const w of built.warnings) events.warning?.(cfg.name, w);
    // A source that says its input is what the index already holds (a GraphQL schema whose hash is unchanged)
    // is not written again.
    if (built.unchanged && previous?.content_hash !== built.content_hash) throw new BuildError(cfg.name, `source ${cfg.name} left its graph out as unchanged, but the index holds another version of it (a Sextant bug; nothing was written)`);
    if ((built.skipIfUnchanged || built.unchanged) && previous && previous.content_hash === built.content_hash) {
      unchanged.push({ ...previous, written: 'unchanged', seconds: round((performance.now() - t0) / 1000), warnings: built.warnings, ...(built.details ? { details: built.details } : {}) });
      continue;
    }
    const problems = built.changed ? validateChanged(ontology, built.nodes, built.edges, built.changed.groups) : validateGraph(ontology, built.nodes, built.edges);
    if (problems.length) throw new BuildError(cfg.name, `source ${cfg.name} produced an invalid graph (a Sextant bug; nothing was written):\n  ${problems.slice(0, 10).join('\n  ')}`);
    writes.push({
      source: { name: cfg.name, kind: cfg.kind, origin: built.origin, built_at: new Date().toISOString(), content_hash: built.content_hash },
      nodes: built.nodes,
      edges: built.edges,
      incremental: true,
      ...(built.changed ? { changed: built.changed } : {}),
      ...(built.artifacts ? { artifacts: built.artifacts } : {}),
    });
    timings.set(cfg.name, { seconds: round((performance.now() - t0) / 1000), warnings: built.warnings, ...(built.details ? { details: built.details } : {}) });
  }
  // A large build has just dropped its working set (every file's facts, the model): collected now, its memory is
  // reused by the write instead of the heap growing past it (the 10,000-file estate peaked 90 MB higher without).
  if (writes.reduce((n, w) => n + w.nodes.length + w.edges.length, 0) >= COLLECT_BEFORE_WRITE) collectGarbage();
  const t1 = performance.now();
  // Nothing changed: the index is left as it is (not even its update time is touched).
  const infos = writes.length || removed.length ? await store.writeSources(writes, { remove: removed, onProgress: (p) => events.write?.(p.source, p) }) : [];
  const writeSeconds = round((performance.now() - t1) / 1000);
  return {
    sources: [...infos.map((info) => ({ ...info, ...timings.get(info.name)! })), ...unchanged].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    removed,
    write_seconds: writeSeconds,
    seconds: round((performance.now() - started) / 1000),
  };
}

/**
 * Validates only the nodes and edges of the groups an update changed; the rest was valid when last written.
 * An edge's other end outside those groups is checked by its id's kind prefix (the store refuses an edge to a
 * node it does not hold).
 */
function validateChanged(ontology: Ontology, nodes: readonly NodeRecord[], edges: readonly EdgeRecord[], groups: ReadonlySet<string>): string[] {
  const inChanged = new Set<string>();
  const changedNodes: NodeRecord[] = [];
  for (const n of nodes) {
    if (groups.has(n.file ?? '')) {
      changedNodes.push(n);
      inChanged.add(n.id);
    }
  }
  const changedEdges = edges.filter((e) => inChanged.has(e.from));
  return validateGraph(ontology, changedNodes, changedEdges, (id) => ontology.kindOfId(id));
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
