import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { CodeSourceConfig } from '../../config/types.js';
import { FILE_HASHES_ARTIFACT, formatFileHashes } from '../../graph/file-hashes.js';
import type { SourceBuild, SourceContext } from '../types.js';
import type { CodeBuildReport, CodePhases } from './index.js';
import { type CachedFile, loadFactsCache, saveFactsCache } from './cache.js';
import { type LoadedAssembly, loadAssembly, saveAssembly, UnreadableAssembly } from './assembly-cache.js';
import { loadYamlRecall, saveYamlRecall } from './yaml-cache.js';
import { withYamlRecall } from './config/yaml-recall.js';
import { type FileContent, loadDiscoveryStamp, RACY_MS, ReadLog, recallDiscovery, saveStamp, textContent } from './stamp.js';
import { codeTree } from './tree.js';
import { CodeGraphAssembler, type CodeGraphStats } from './emit.js';
import { detectLayout, hostOwnerOf, type Layout, locatorOf } from './config/layout.js';
import { readBuildInput } from './build/files.js';
import { type GeneratedApiOperation, generatedApiOperations } from './links/openapi.js';
import { inputDigest, recordedOnce } from './recorded.js';
import { classpathBinderOf } from './links/messaging.js';
import { emptyFacts, MAX_EXPR_DEPTH, MAX_TYPE_DEPTH } from './parse/common.js';
import type { ParseJob } from './parse/job.js';
import { parseWorkerCount, runParseJobs } from './parse/pool.js';
import { compileParsersForFewFiles, FEW_FILES } from './parse/parser.js';

/** What a code source keeps between builds of one process: every file's facts and the per-file graph. */
interface CodeSession {
  files: Map<string, CachedFile>;
  assembler: CodeGraphAssembler;
  /** Configuration and service layout of the last build: when they change, everything is emitted again. */
  layoutKey: string;
  contentHash: string;
}

/**
 * Indexes a Java / Kotlin tree: discovers files, extracts facts (reusing cached facts of unchanged files),
 * places files in services and modules, and assembles the code graph. With `stamping`, it stamps everything it
 * reads and saves the stamps with the build's content hash (see stamp.ts).
 */
export async function buildCodeTree(cfg: CodeSourceConfig, ctx: SourceContext, stamping: { file: string; discoveryFile: string; key: string } | undefined, started: number): Promise<SourceBuild & { details: CodeBuildReport }> {
  let mark = started;
  /** Seconds since the last lap. */
  const lap = (): number => {
    const now = performance.now();
    const seconds = Math.round(now - mark) / 1000;
    mark = now;
    return seconds;
  };
  const root = cfg.path;
  const log = stamping ? new ReadLog() : undefined;
  const tree = codeTree(cfg, log);
  const phases: CodePhases = { check: lap(), discover: 0, load_cache: 0, parse: 0, configuration: 0, evaluate: 0, link: 0, save_cache: 0 };
  // The last build's discovery, when nothing it read changed (see stamp.ts); else the tree is walked.
  const kept = stamping && (await loadDiscoveryStamp(stamping.discoveryFile, stamping.key));
  const recalled = kept ? recallDiscovery(kept, (rel) => tree.abs(rel), log) : undefined;
  const found = recalled ?? (await tree.discover());
  if (!recalled) log?.discoveryDone(found, (rel) => tree.abs(rel));
  phases.discover = lap();
  const cacheFile = ctx.cacheDir ? join(ctx.cacheDir, `code-${cfg.name}.facts`) : undefined;
  const session = ctx.session?.get(`code:${cfg.name}`) as CodeSession | undefined;
  const cache = session?.files ?? (cacheFile ? await loadFactsCache(cacheFile) : new Map<string, CachedFile>());
  // A process that does not keep a session restores the assembler's state a former build saved (see assembly-cache.ts).
  // Only a tree indexed before is re-indexed: a first build (no facts cached) does not pay to save it (5% of its CPU
  // on all the corpora, 20% on a synthetic 10,000 files), and the first re-index saves it for the next ones.
  const assemblyFile = ctx.cacheDir && !session && cache.size > 0 ? join(ctx.cacheDir, `code-${cfg.name}.assembly`) : undefined;
  const stored = assemblyFile ? await loadAssembly(assemblyFile) : undefined;
  // What reading the configuration and deployment YAML gave, by file (see yaml-recall.ts): kept beside the assembly.
  const yaml = assemblyFile ? await loadYamlRecall(join(ctx.cacheDir!, `code-${cfg.name}.yaml`)) : undefined;
  phases.load_cache = lap();
  const next = new Map<string, CachedFile>();
  const jobs: ParseJob[] = [];
  // Files are read after this moment: a stamp older than it by the racy margin cannot hide a later edit.
  const readFrom = Date.now();
  for (const file of found.files) {
    const cached = cache.get(file.path);
    if (cached && cached.size === file.size && cached.mtimeMs === file.mtimeMs && !isRacy(cached)) next.set(file.path, cached);
    else {
      // Placeholder keeps discovery order; the job fills it in.
      next.set(file.path, cached ?? { hash: '', facts: emptyFacts(file.path, file.language, '') });
      jobs.push({ id: jobs.length, abs: tree.abs(file.path), rel: file.path, language: file.language, ...(cached ? { knownHash: cached.hash } : {}) });
    }
  }
  let parsed = 0;
  let done = found.files.length - jobs.length;
  const unreadable: string[] = [];
  const byPath = new Map(found.files.map((f) => [f.path, f]));
  if (jobs.length > 0 && jobs.length < FEW_FILES) compileParsersForFewFiles();
  await runParseJobs(jobs, parseWorkerCount(jobs.length, ctx.env), (job, result) => {
    const file = byPath.get(job.rel)!;
    const stamp = { size: file.size, mtimeMs: file.mtimeMs };
    const cached = cache.get(job.rel);
    if (result.error !== undefined) {
      // Vanished or unreadable since discovery: indexed as empty, and said.
      unreadable.push(`${job.rel} (${result.error})`);
      next.set(job.rel, { hash: '', facts: emptyFacts(job.rel, job.language, '') });
    } else if (!result.facts && cached) next.set(job.rel, { ...cached, ...stamp, readFrom });
    else {
      next.set(job.rel, { hash: result.hash, ...stamp, readFrom, facts: result.facts! });
      parsed++;
    }
    done++;
    if (done % 200 === 0 || done === found.files.length) ctx.onProgress?.(`parsing ${done}/${found.files.length} files`, done, found.files.length);
  });
  if (jobs.length === 0) ctx.onProgress?.(`parsing ${done}/${found.files.length} files`, done, found.files.length);
  phases.parse = lap();
  const facts = [...next.values()].map((c) => c.facts);
  const deployable = new Set(facts.filter((f) => f.types.some((t) => t.annotations.some((a) => a.name === 'SpringBootApplication'))).map((f) => dirname(f.path)));
  const auxiliary = new Map<string, string>();
  const readText = (rel: string): string | undefined => {
    try {
      log?.file(tree.abs(rel));
      const text = readFileSync(tree.abs(rel), 'utf8');
      auxiliary.set(rel, text);
      return text;
    } catch {
      return undefined;
    }
  };
  const { layout, build, layoutFrom } = withYamlRecall(yaml?.recall, () => {
    // Taken from the last re-index while the files and directories it read are the same (see recorded.ts).
    const readers = { readText: (rel: string): unknown => readText(rel), listDir: (dir: string): unknown => tree.listDir(dir) };
    const make = (r: typeof readers): Layout => detectLayout(found, (rel) => r.readText(rel) as string | undefined, deployable, (dir) => r.listDir(dir) as string[] | undefined);
    const key = inputDigest(found.root, found.files.map((f) => f.path), found.buildFiles, found.configFiles, found.deploymentFiles, [...deployable].sort());
    const once = yaml ? recordedOnce(yaml.recall.recorded(LAYOUT), key, readers, (r) => layoutData(make(r)), isLayoutData) : undefined;
    if (once) {
      yaml!.recall.keepRecorded(LAYOUT, once.kept);
      // What the layout read is as it was: so is what reading its YAML gave, kept for a later build that reads it.
      if (once.reused) yaml!.recall.keepStored();
    }
    const layout = once ? { ...once.value, locate: locatorOf(once.value.placement), serviceOfHost: hostOwnerOf(once.value.services) } : make(readers);
    // Build files and configuration with their lines: dependency and config_key nodes (a pom edit re-hashes the source).
    return { layout, build: readBuildInput(found, layout, (rel) => auxiliary.get(rel) ?? readText(rel)), layoutFrom: once && (once.reused ? ('recalled' as const) : ('read' as const)) };
  });
  // What a service's build brings decides a default the configuration leaves out (the Stream binder).
  const services = layout.services.map((s) => {
    const binder = classpathBinderOf(s.modules.flatMap((m) => (m.buildFile !== undefined && build.texts.has(m.buildFile) ? [build.texts.get(m.buildFile)!] : [])));
    return binder ? { ...s, streamBinder: binder } : s;
  });
  // Routes written only in OpenAPI specs the builds generate controllers from (the specs are read, and hashed, too).
  // Taken from the last re-index while the build files, specs and directories it read are the same (see recorded.ts).
  const buildFiles = build.buildFiles.flatMap((path) => (build.texts.has(path) ? [{ path, text: build.texts.get(path)! }] : []));
  const apiReaders = { readText: (rel: string): unknown => auxiliary.get(rel) ?? readText(rel), listFiles: (dir: string): unknown => tree.listFiles(dir) };
  const makeApis = (readers: typeof apiReaders) => generatedApiOperations({ buildFiles, readText: (rel) => readers.readText(rel) as string | undefined, listFiles: (dir) => readers.listFiles(dir) as string[] });
  const apisOnce = yaml ? recordedOnce(yaml.recall.recorded(OPENAPI), inputDigest(...buildFiles.flatMap((f) => [f.path, f.text])), apiReaders, makeApis, isGeneratedApis) : undefined;
  if (apisOnce) yaml!.recall.keepRecorded(OPENAPI, apisOnce.kept);
  const apis = apisOnce?.value ?? makeApis(apiReaders);
  const layoutKey = JSON.stringify([{ ...cfg, path: undefined }, services, layout.proxies, layout.proxyServers, layout.connectors, layout.deploymentOnly, apis.operations]);
  phases.configuration = lap();
  const layoutDigest = createHash('sha256').update(layoutKey).digest('hex');
  // What the assembly updates from: this process's last build, a former process's saved state, or nothing.
  let update: { since: string; changed: Set<string> } | undefined;
  let restored: LoadedAssembly | undefined;
  let assembler: CodeGraphAssembler;
  if (session) {
    assembler = session.assembler;
    const changed = new Set([...next].filter(([p, c]) => cache.get(p)?.facts !== c.facts).map(([p]) => p));
    for (const p of cache.keys()) if (!next.has(p)) changed.add(p);
    if (session.layoutKey === layoutKey) update = { since: session.contentHash, changed };
  } else {
    assembler = new CodeGraphAssembler(ctx.ontology, cfg.name, ctx.session !== undefined || assemblyFile !== undefined, ctx.session !== undefined);
    if (stored && stored.layout === layoutDigest) {
      assembler.restore(stored.emissions, stored.state, stored.readRows, stored.buildGraph, stored.digests);
      restored = stored;
      const changed = new Set([...next].filter(([p, c]) => stored.hashes.get(p) !== c.hash).map(([p]) => p));
      for (const p of stored.hashes.keys()) if (!next.has(p)) changed.add(p);
      update = { since: stored.contentHash, changed };
    }
  }
  let graph: ReturnType<CodeGraphAssembler['assemble']>;
  const input = { source: cfg.name, files: facts, services, locate: (p: string) => layout.locate(p), overrides: { roles: cfg.roles, capabilities: cfg.capabilities }, links: cfg.links ?? { clients: {}, destinations: {} }, proxies: layout.proxies, proxyServers: layout.proxyServers, connectors: layout.connectors, build, generatedApis: apis.operations, deploymentOnly: layout.deploymentOnly };
  const stateWarnings: string[] = [];
  try {
    graph = assembler.assemble(input, update?.changed);
  } catch (err) {
    // A half-done update leaves the per-file graph out of step with the index: the next build starts over.
    ctx.session?.delete(`code:${cfg.name}`);
    if (!(err instanceof UnreadableAssembly)) throw err;
    // A restored state that could not be read back (and is dropped): every file is assembled, as on a first re-index.
    stateWarnings.push(err.message);
    assembler = new CodeGraphAssembler(ctx.ontology, cfg.name, true, false);
    restored = undefined;
    update = undefined;
    graph = assembler.assemble(input);
  }
  phases.evaluate = Math.round(graph.seconds.evaluate * 1000) / 1000;
  phases.link = Math.round(graph.seconds.link * 1000) / 1000;
  lap();
  const removed = [...cache.keys()].filter((p) => !next.has(p)).length;
  // A watching process keeps facts in memory and writes the cache once; a later one-shot build re-checks files by hash anyway.
  if (cacheFile && !session && ([...next].some(([p, c]) => cache.get(p) !== c) || [...cache.keys()].some((p) => !next.has(p)))) await saveFactsCache(cacheFile, next, cache);
  phases.save_cache = lap();
  const warnings = [...found.warnings, ...layout.warnings, ...apis.warnings, ...stateWarnings, ...graph.warnings];
  if (unreadable.length) warnings.push(`${unreadable.length} file(s) could not be read and are indexed as empty: ${unreadable.slice(0, 5).join(', ')}${unreadable.length > 5 ? ', …' : ''}`);
  const broken = facts.filter((f) => f.parseErrors > 0);
  if (broken.length) warnings.push(`${broken.length} file(s) have syntax errors; indexed as far as they parse: ${broken.slice(0, 5).map((f) => `${f.path} (${f.parseErrors})`).join(', ')}${broken.length > 5 ? ', …' : ''}`);
  const deep = facts.filter((f) => f.deepNesting !== undefined);
  if (deep.length) warnings.push(`${deep.length} file(s) nest code deeper than is read (expressions ${MAX_EXPR_DEPTH} levels, types ${MAX_TYPE_DEPTH}); indexed except what lies deeper, from: ${deep.slice(0, 5).map((f) => `${f.path}:${f.deepNesting}`).join(', ')}${deep.length > 5 ? ', …' : ''}`);
  const hash = createHash('sha256').update(JSON.stringify({ cfg: { ...cfg, path: undefined } }));
  for (const [path, c] of next) hash.update(`${path}\0${c.hash}\n`);
  for (const [path, text] of [...auxiliary].sort(([a], [b]) => a.localeCompare(b))) hash.update(`${path}\0${text}\n`);
  const contentHash = hash.digest('hex');
  if (assemblyFile) {
    if (graph.emitted > 0 || restored?.contentHash !== contentHash) await saveAssembly(assemblyFile, assembler, new Map([...next].map(([p, c]) => [p, c.hash])), layoutDigest, contentHash, restored);
    if (yaml) await saveYamlRecall(yaml);
    phases.save_cache = Math.round((phases.save_cache + lap()) * 1000) / 1000;
  }
  ctx.session?.set(`code:${cfg.name}`, { files: next, assembler, layoutKey, contentHash } satisfies CodeSession);
  const details: CodeBuildReport = { stats: graph.stats, parsed, reused: next.size - parsed, removed, lines: facts.reduce((n, f) => n + f.lines, 0), emitted: graph.emitted, ...(stamping ? { discovery: recalled ? 'recalled' : 'listed' } : {}), ...(update && assembler.buildGraphFrom ? { build_graph: assembler.buildGraphFrom } : {}), ...(layoutFrom ? { layout: layoutFrom } : {}), ...(apisOnce ? { openapi_operations: apisOnce.reused ? 'recalled' : 'read' } : {}), ...(update && graph.changedGroups ? { files_rewritten: graph.changedGroups.size } : {}), ...(yaml ? { yaml: { parsed: yaml.recall.parsed, recalled: yaml.recall.recalled } } : {}), phases_seconds: phases };
  const inputs = [...new Set([...next.keys(), ...found.configFiles, ...found.buildFiles, ...found.deploymentFiles, ...auxiliary.keys()])].sort();
  // The index must hold this content hash for the stamps to answer for it: a write that fails leaves them unused.
  if (stamping && log) {
    // What each racy file held when the build used it: a source file's hash, or the text read.
    const bySource = new Map([...next].map(([rel, c]) => [tree.abs(rel), c.hash]));
    const byText = new Map([...auxiliary].map(([rel, text]) => [tree.abs(rel), text]));
    const contentOf = (abs: string): FileContent | undefined => {
      const hash = bySource.get(abs);
      if (hash) return { hash, as: 'bytes' };
      const text = byText.get(abs);
      return text === undefined ? undefined : textContent(text);
    };
    const stamps = log.snapshot(contentOf);
    await saveStamp(stamping.file, stamps && { key: stamping.key, content_hash: contentHash, ...stamps, report: { warnings, details, inputs } }).catch(() => undefined);
    // A racy build, which leaves no stamps, still keeps what discovery found: the next build checks it and takes it.
    await saveStamp(stamping.discoveryFile, log.discoveryStamp(stamping.key)).catch(() => undefined);
  }
  return {
    name: cfg.name,
    kind: 'code',
    origin: root,
    content_hash: contentHash,
    // Answers that quote source (describe, search snippets) check each file against its hash at indexing.
    artifacts: { [FILE_HASHES_ARTIFACT]: formatFileHashes([...next].map(([p, c]) => [p, c.hash] as const)) },
    nodes: graph.nodes,
    edges: graph.edges,
    warnings,
    details,
    inputs,
    ...(update && graph.changedGroups ? { changed: { since: update.since, groups: graph.changedGroups, ...(graph.whole ? { whole: graph.whole } : {}) } } : {}),
  };
}


/** The name the OpenAPI operations of the estate's generator configurations are recorded under (see recorded.ts). */
const OPENAPI = 'openapi-operations';
/** The name the service layout is recorded under. */
const LAYOUT = 'layout';

type LayoutData = Omit<Layout, 'locate' | 'serviceOfHost'>;

/** A layout as plain data: what locates files and hosts is made again from it. */
function layoutData(layout: Layout): LayoutData {
  const { locate: _locate, serviceOfHost: _serviceOfHost, ...data } = layout;
  return data;
}

function isLayoutData(value: unknown): value is LayoutData {
  const v = value as Partial<LayoutData> | undefined;
  return Array.isArray(v?.services) && Array.isArray(v.proxies) && Array.isArray(v.proxyServers) && Array.isArray(v.connectors) && Array.isArray(v.deployments) && Array.isArray(v.deploymentOnly) && Array.isArray(v.warnings) && Array.isArray(v.placement?.units) && Array.isArray(v.placement.scopes) && typeof v.placement.rootName === 'string';
}

function isGeneratedApis(value: unknown): value is { operations: GeneratedApiOperation[]; warnings: string[] } {
  const v = value as { operations?: unknown; warnings?: unknown } | undefined;
  return Array.isArray(v?.operations) && Array.isArray(v.warnings) && v.warnings.every((w) => typeof w === 'string');
}

/**
 * Whether a file's cached facts cannot be trusted by its size and time alone: it was modified so close to when it was
 * read (or when, is unknown) that a later edit could have kept both. Such a file is read and hashed again.
 */
function isRacy(cached: CachedFile): boolean {
  return cached.readFrom === undefined || cached.mtimeMs === undefined || cached.mtimeMs >= cached.readFrom - RACY_MS;
}
