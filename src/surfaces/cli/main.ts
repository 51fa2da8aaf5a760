/**
 * The `sextant` command line. Start-up is most of a query's time, so this module loads only commander: each command
 * imports what it needs when it runs (a query loads the store and the code tools, never the parsers, GraphQL or
 * the MCP SDK; see session.ts).
 */
import { Command, CommanderError, Option } from 'commander';
import type { BuildEvents, BuildOptions } from '../../indexer/build.js';
import type { CodeSourceConfig, EmbeddingsConfig, WorkspaceConfig } from '../../config/types.js';
import type { EmbedReport } from '../../indexer/embed.js';
import type { Store } from '../../graph/store.js';
import type { DataAccessOptions } from '../mcp/server.js';
import { VERSION } from '../../version.js';
import { LogOptionError, logOptions, startLogging, type LogFlags } from './log-options.js';
import type { ToolResult } from '../../query/run.js';
import { isPostgresLocation, shownPostgresLocation } from '../../graph/postgres/location.js';
import { formatResult } from './format.js';
import { formatShortcut, resolveName, runShortcut, SHORTCUTS, type ShortcutDef } from './shortcuts.js';
import { CLIENTS } from './setup.js';

/** Exit codes: 0 ok, 1 a tool or build error, 2 a usage error. */
const EXIT_OK = 0;
const EXIT_ERROR = 1;
const EXIT_USAGE = 2;

class UsageError extends Error {}

interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
}

const defaultIo: Io = {
  out: (t) => process.stdout.write(t.endsWith('\n') ? t : `${t}\n`),
  err: (t) => process.stderr.write(t.endsWith('\n') ? t : `${t}\n`),
};

/**
 * Errors a command expects and shows as one line (exit 1): a bad config, target, store or build. Each module that
 * defines one registers it when a command loads it, so main needs none of them up front.
 */
const EXPECTED_ERRORS = new Set<new (...args: never[]) => Error>();
function expectErrors(...types: (new (...args: never[]) => Error)[]): void {
  for (const t of types) EXPECTED_ERRORS.add(t);
}

async function openSession(storeOpt: string | undefined, configTarget: string | undefined, io: Io) {
  const { CliSession } = await import('./session.js');
  const { StoreError } = await import('../../graph/store.js');
  expectErrors(StoreError);
  return CliSession.open(storeOpt, configTarget, io);
}

async function callTool(storeOpt: string | undefined, tool: string, args: unknown, asJson: boolean, io: Io, configTarget?: string): Promise<number> {
  const session = await openSession(storeOpt, configTarget, io);
  try {
    const { UnknownToolError } = await import('./session.js');
    let result: ToolResult;
    try {
      result = await session.run(tool, args);
    } catch (err) {
      if (err instanceof UnknownToolError) throw new UsageError(err.message);
      throw err;
    }
    io.out(asJson ? JSON.stringify(result, null, 2) : formatResult(tool, result as Record<string, unknown>, storeOpt ? { store: session.location } : {}));
    return result.ok ? EXIT_OK : EXIT_ERROR;
  } finally {
    await session.close();
  }
}

/**
 * The edge types the nodes have in `direction`, from describe's counts: what `neighbors` walks when none are given.
 * Null when describe does not know the ids; undefined when they have none that way (the tool's own error then teaches).
 */
async function edgeTypesOf(storeOpt: string | undefined, ids: readonly string[], direction: string, io: Io): Promise<string[] | undefined | null> {
  const session = await openSession(storeOpt, undefined, io);
  try {
    const r = await session.run('describe', ids.length === 1 ? { id: ids[0] } : { ids: [...ids] });
    if (!r.ok || (Array.isArray(r.missing) && r.missing.length)) return null;
    const types = new Set<string>();
    for (const n of (r.nodes as Record<string, unknown>[] | undefined) ?? [r.node as Record<string, unknown>]) {
      for (const [type, c] of Object.entries((n?.edges as Record<string, { in: number; out: number }>) ?? {})) {
        if ((direction !== 'out' && c.in > 0) || (direction !== 'in' && c.out > 0)) types.add(type);
      }
    }
    return types.size ? [...types].sort() : undefined;
  } finally {
    await session.close();
  }
}

/** `sextant impact <name…>`: each name resolved as `callers` resolves it, then the impact tool on their ids. */
async function impactCommand(names: readonly string[], opts: { store?: string; json?: boolean; depth?: string; minConfidence?: string; withinService?: boolean; limit?: string }, io: Io): Promise<number> {
  const session = await openSession(opts.store, undefined, io);
  const format = opts.store ? { store: session.location } : {};
  try {
    const ids: string[] = [];
    for (const name of names) {
      const found = await resolveName(session, name, ['symbol', 'service']);
      if ('answer' in found) {
        io.out(opts.json ? JSON.stringify(found.answer, null, 2) : [`impact: ${JSON.stringify(name)} is not one method, type or service.`, formatResult('resolve', found.answer as Record<string, unknown>, format)].join('\n'));
        return EXIT_ERROR;
      }
      ids.push(String(found.node.id));
    }
    const result = await session.run('impact', { ids, depth: opts.depth, min_confidence: opts.minConfidence, limit: opts.limit, ...(opts.withinService ? { across_services: false } : {}) });
    io.out(opts.json ? JSON.stringify(result, null, 2) : formatResult('impact', result as Record<string, unknown>, format));
    return result.ok ? EXIT_OK : EXIT_ERROR;
  } finally {
    await session.close();
  }
}

/** `sextant callers …` and the other shortcuts: resolve and walk in this process, through the tools. */
async function runShortcutCommand(def: ShortcutDef, identifier: string, opts: { store?: string; json?: boolean; limit?: string; offset?: string }, io: Io): Promise<number> {
  const session = await openSession(opts.store, undefined, io);
  try {
    const { result, code } = await runShortcut(session, def, identifier, opts);
    if (code === EXIT_USAGE) throw new UsageError(String((result.error as { message: string }).message));
    io.out(opts.json ? JSON.stringify(result, null, 2) : formatShortcut(def, result, opts.store ? { store: session.location } : {}));
    return code;
  } finally {
    await session.close();
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseJsonArgs(text: string | undefined): unknown {
  if (text === undefined || text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new UsageError(`arguments must be JSON, e.g. '{"query": "pull request"}': ${(err as Error).message}`);
  }
}

async function runIndex(target: string, opts: { store?: string; rebuild?: boolean; json?: boolean; watch?: boolean; source?: string }, io: Io): Promise<number> {
  const [{ rm }, { join }, { default: cliProgress }, { BuildError, buildWorkspace }, { defaultStoreDir, indexRoot, localCacheRoot, resolveTarget, TargetError }, { ConfigError }, { sextantOntology }, { openStore }, { StoreError }, { knowStoreSecrets, knowWorkspaceSecrets }, { logEvent }, { isPostgresLocation }] = await Promise.all([
    import('node:fs/promises'),
    import('node:path'),
    import('cli-progress'),
    import('../../indexer/build.js'),
    import('../../indexer/target.js'),
    import('../../config/errors.js'),
    import('../../graph/ontology/index.js'),
    import('../../graph/open.js'),
    import('../../graph/store.js'),
    import('./log-options.js'),
    import('../../log/logger.js'),
    import('../../graph/postgres/location.js'),
  ]);
  expectErrors(BuildError, TargetError, ConfigError, StoreError);
  const { config, root } = await resolveTarget(target, process.env, opts.source !== undefined ? { code: true } : {});
  knowWorkspaceSecrets(config);
  const publish = opts.source === undefined ? undefined : repositoryToPublish(config, opts.source, target);
  if (publish && opts.watch) throw new UsageError('--watch keeps one workspace fresh; --source publishes a repository once (run it again after each change, as a CI job does).');
  const location = opts.store ?? process.env.SEXTANT_STORE ?? config.store ?? defaultStoreDir(root);
  const remote = isPostgresLocation(location);
  if (remote) knowStoreSecrets(location);
  const ontology = sextantOntology();
  const store = await openStore(ontology, location, 'write', { reset: Boolean(opts.rebuild) });
  // Parsed facts are kept on this machine: beside a directory index, else in this user's cache directory, per
  // indexed tree (an estate's publications share one: each builds every repository of the estate).
  const storeDir = remote ? localCacheRoot(publish ? `estate of ${store.location}` : root) : location;
  const cacheDir = join(storeDir, 'cache');
  if (opts.rebuild) await rm(cacheDir, { recursive: true, force: true });
  // Stored so a stale index can say how to rebuild it; absolute, since that message is read from anywhere, and
  // without the credentials an endpoint URL may carry.
  await store.setRoot?.(indexRoot(target));
  const tty = Boolean(process.stderr.isTTY) && !opts.json;
  const bar = tty ? new cliProgress.SingleBar({ format: ' {source} {phase} [{bar}] {value}/{total}', hideCursor: true, clearOnComplete: true, stream: process.stderr }, cliProgress.Presets.shades_classic) : undefined;
  let barStarted = false;
  // Under --watch, sources keep their facts and per-file graph in memory, so an update re-emits only what a change reaches.
  const session = opts.watch ? new Map<string, unknown>() : undefined;
  try {
    const events: BuildEvents = {
      sourceStart: (name, i, total) => {
        logEvent('info', 'index_source_start', { source: name });
        io.err(`indexing ${name} (${i + 1}/${total})`);
      },
      warning: (name, w) => {
        logEvent('warn', 'index_warning', { source: name, message: w });
        io.err(`warning [${name}]: ${w}`);
      },
      write: (name, p) => {
        if (!bar) return;
        if (!barStarted) {
          bar.start(p.total || 1, p.done, { source: name, phase: p.phase });
          barStarted = true;
        }
        if (p.phase === 'done') {
          bar.stop();
          barStarted = false;
          return;
        }
        bar.setTotal(p.total || 1);
        bar.update(p.done, { source: name, phase: p.phase });
      },
    };
    const report = publish
      ? await (await import('../../indexer/estate.js')).relinkEstate(store, ontology, { publish }, events, process.env, { cacheDir })
      : await buildWorkspace(store, ontology, config, events, process.env, { cacheDir, ...(session ? { session } : {}) });
    const embedded = config.embeddings ? await embedPass(store, config.embeddings, tty, io) : undefined;
    // Counts by kind only where they are printed: the totals are the sources' own.
    const meta = opts.json ? await store.meta() : undefined;
    const totals = meta?.counts ?? (await store.sources()).reduce((t, s) => ({ nodes: t.nodes + s.nodes, edges: t.edges + s.edges }), { nodes: 0, edges: 0 });
    for (const s of report.sources) logEvent('info', 'index_source', { source: s.name, nodes: s.nodes, edges: s.edges, seconds: s.seconds, written: s.written ?? 'full' });
    if (opts.json) io.out(JSON.stringify({ ok: true, store: store.location, ...report, ...(embedded ? { embeddings: embedded } : {}), counts: meta!.counts }, null, 2));
    else {
      for (const s of report.sources) io.out(`${s.name}: ${s.nodes} nodes, ${s.edges} edges in ${s.seconds}s (${s.origin})${s.written === 'unchanged' ? ' — unchanged, not rewritten' : ''}`);
      for (const r of report.removed) io.out(`${r}: removed (no longer configured)`);
      if (embedded) io.out(embeddingLine(embedded));
      io.out(`index: ${store.location} (${totals.nodes} nodes, ${totals.edges} edges)`);
    }
    if (session) await watchAndUpdate(target, config, storeDir, store, { cacheDir, session }, io);
    return EXIT_OK;
  } finally {
    bar?.stop();
    await store.close();
  }
}

/** The embedding pass after a write, with a progress bar on a terminal; its failure is a warning, never a failed index. */
async function embedPass(store: Store, config: EmbeddingsConfig, tty: boolean, io: Io): Promise<EmbedReport> {
  const [{ default: cliProgress }, { embedIndex }, { logEvent }] = await Promise.all([import('cli-progress'), import('../../indexer/embed.js'), import('../../log/logger.js')]);
  const bar = tty ? new cliProgress.SingleBar({ format: ' embeddings [{bar}] {value}/{total} texts', hideCursor: true, clearOnComplete: true, stream: process.stderr }, cliProgress.Presets.shades_classic) : undefined;
  let started = false;
  try {
    const report = await embedIndex(store, config, {
      progress: (done, total) => {
        if (!bar || total === 0) return;
        if (!started) {
          bar.start(total, done);
          started = true;
        } else bar.update(done);
      },
      warning: (message) => {
        logEvent('warn', 'index_warning', { source: 'embeddings', message });
        bar?.stop();
        io.err(`warning [embeddings]: ${message}`);
      },
    });
    logEvent('info', 'index_embeddings', { model: report.model, nodes: report.nodes, embedded: report.embedded, reused: report.reused, missing: report.missing, seconds: report.seconds });
    return report;
  } finally {
    bar?.stop();
  }
}

function embeddingLine(r: EmbedReport): string {
  const rate = r.texts_per_second ? ` at ${r.texts_per_second} texts/s` : '';
  return `embeddings: ${r.nodes - r.missing} of ${r.nodes} nodes have vectors (${r.embedded} embedded now${rate}, ${r.reused} kept) — ${r.model} at ${r.endpoint} in ${r.seconds}s${r.missing ? `; ${r.missing} missing: ${r.error ?? 'see the warning'}` : ''}`;
}

const WRITTEN_WORD = { full: 'rewritten', patch: 'updated', unchanged: 'unchanged' } as const;

/** `index --watch`: keeps the index fresh until interrupted; each update is one transaction readers never see half of. */
async function watchAndUpdate(target: string, first: WorkspaceConfig, storeDir: string, store: Store, options: BuildOptions, io: Io): Promise<void> {
  const [{ buildWorkspace }, { resolveTarget }, { sextantOntology }, { watchWorkspace }, { scheduleRefresh }] = await Promise.all([
    import('../../indexer/build.js'),
    import('../../indexer/target.js'),
    import('../../graph/ontology/index.js'),
    import('../../indexer/watch.js'),
    import('../../indexer/refresh.js'),
  ]);
  let config = first;
  // File changes and scheduled endpoint refreshes take turns: one build at a time.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(task: () => Promise<T>): Promise<T> => {
    const next = queue.then(task, task);
    queue = next.catch(() => undefined);
    return next;
  };
  const update = (only?: string[]) =>
    serial(async () => {
      if (!only) config = (await resolveTarget(target)).config;
      const report = await buildWorkspace(store, sextantOntology(), config, { warning: (name, w) => io.err(`warning [${name}]: ${w}`) }, process.env, { ...options, ...(only ? { only } : {}) });
      for (const s of report.sources) io.err(`${new Date().toISOString()} ${s.name}: ${WRITTEN_WORD[s.written ?? 'full']} (${s.nodes} nodes, ${s.edges} edges)`);
      if (config.embeddings) {
        const embedded = await embedPass(store, config.embeddings, false, io);
        if (embedded.embedded) io.err(`${new Date().toISOString()} ${embeddingLine(embedded)}`);
      }
    });
  const refresher = scheduleRefresh(config, (only) => update(only), { failed: (name, err) => io.err(`refresh of ${name} failed (the index keeps the last schema): ${err instanceof Error ? err.message : String(err)}`) });
  if (refresher.sources.length) io.err(`re-reading ${refresher.sources.join(', ')} on schedule`);
  const watcher = watchWorkspace(
    config,
    storeDir,
    () => update(),
    async (since) => store.markPending?.(since),
    {
      changed: (paths) => io.err(`${paths.length} file${paths.length === 1 ? '' : 's'} changed; updating the index`),
      rebuilt: (ms) => io.err(`index updated in ${ms} ms`),
      failed: (err) => io.err(`update failed (the index is unchanged): ${err instanceof Error ? err.message : String(err)}`),
      warning: (message) => io.err(`warning: ${message}`),
    },
  );
  await watcher.ready;
  io.err('watching for changes (Ctrl+C to stop)');
  await new Promise<void>((done) => {
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
  refresher.close();
  await watcher.close();
}

/** The one code source of a target, renamed to the repository name `--source` gives. */
function repositoryToPublish(config: WorkspaceConfig, name: string, target: string): CodeSourceConfig {
  if (!/^[A-Za-z0-9_.-]+$/.test(name)) throw new UsageError(`--source ${JSON.stringify(name)}: a source name is letters, digits, _ . and -.`);
  const code = config.sources.filter((s): s is CodeSourceConfig => s.kind === 'code');
  if (code.length !== 1 || config.sources.length !== 1) {
    throw new UsageError(`--source publishes one repository's code: ${target} holds ${config.sources.length === 0 ? 'no source' : config.sources.map((s) => `${s.kind} source ${s.name}`).join(', ')}. Point it at the repository's directory (or a sextant.yaml with its one code source).`);
  }
  return { ...code[0]!, name };
}

async function runRemove(name: string, opts: { store?: string; json?: boolean }, io: Io): Promise<number> {
  const [{ sextantOntology }, { locateStore, openStore }, { StoreError }, { ESTATE_SOURCE, isEstateMember, relinkEstate }, { BuildError }] = await Promise.all([
    import('../../graph/ontology/index.js'),
    import('../../graph/open.js'),
    import('../../graph/store.js'),
    import('../../indexer/estate.js'),
    import('../../indexer/build.js'),
  ]);
  expectErrors(StoreError, BuildError);
  const location = locateStore(opts.store);
  if (/^postgres(ql)?:\/\//i.test(location)) (await import('./log-options.js')).knowStoreSecrets(location);
  const ontology = sextantOntology();
  const store = await openStore(ontology, location, 'write');
  try {
    const sources = await store.sources();
    if (!sources.some((s) => s.name === name)) throw new UsageError(`the index at ${store.location} has no source ${JSON.stringify(name)}; it has: ${sources.map((s) => s.name).join(', ') || 'none'}.`);
    if (name === ESTATE_SOURCE && sources.some((s) => s.name === ESTATE_SOURCE)) {
      const members = [];
      for (const s of sources) if (await isEstateMember(store, s.name)) members.push(s.name);
      if (members.length) throw new UsageError(`${ESTATE_SOURCE} holds what the estate's repositories share (${members.join(', ')}): remove those repositories, and it goes with the last.`);
    }
    let removed: string[];
    if (await isEstateMember(store, name)) {
      const report = await relinkEstate(store, ontology, { retire: name }, { warning: (source, w) => io.err(`warning [${source}]: ${w}`) }, process.env);
      removed = report.removed;
    } else {
      await store.removeSource(name);
      removed = [name];
    }
    const meta = await store.meta();
    if (opts.json) io.out(JSON.stringify({ ok: true, store: store.location, removed, sources: meta.sources.map((s) => s.name), counts: meta.counts }, null, 2));
    else {
      for (const r of removed) io.out(`${r}: removed`);
      io.out(`index: ${store.location} (${meta.counts.nodes} nodes, ${meta.counts.edges} edges; sources: ${meta.sources.map((s) => s.name).join(', ') || 'none'})`);
    }
    return EXIT_OK;
  } finally {
    await store.close();
  }
}

async function runStatus(opts: { store?: string; json?: boolean }, io: Io): Promise<number> {
  const [{ sextantOntology }, { locateStore, openStore }, { StoreError }] = await Promise.all([import('../../graph/ontology/index.js'), import('../../graph/open.js'), import('../../graph/store.js')]);
  expectErrors(StoreError);
  const store = await openStore(sextantOntology(), locateStore(opts.store), 'read');
  try {
    const meta = await store.meta();
    const embeddings = await store.embeddingSpace();
    if (opts.json) io.out(JSON.stringify({ ok: true, store: store.location, ...meta, ...(embeddings ? { embeddings } : {}) }, null, 2));
    else {
      io.out(`index: ${store.location}`);
      io.out(`ontology ${meta.ontology_version}, updated ${meta.updated_at}`);
      for (const s of meta.sources) io.out(`  ${s.name} (${s.kind}): ${s.nodes} nodes, ${s.edges} edges, built ${s.built_at} from ${s.origin}`);
      io.out(`nodes: ${Object.entries(meta.counts.by_kind).map(([k, n]) => `${k} ${n}`).join(', ')}`);
      io.out(`edges: ${Object.entries(meta.counts.by_edge_type).map(([k, n]) => `${k} ${n}`).join(', ')}`);
      io.out(
        embeddings
          ? `embeddings: ${embeddings.model} (${embeddings.dimensions} dimensions) from ${embeddings.endpoint}: ${embeddings.embedded} nodes${embeddings.missing ? `, ${embeddings.missing} missing (${embeddings.error ?? 'the last pass stopped short'})` : ''}; search is hybrid${embeddings.index ? `, through pgvector's ${embeddings.index.toUpperCase()} index` : ''}`
          : 'embeddings: none (search is lexical; add an `embeddings:` block to sextant.yaml for semantic search)',
      );
    }
    return EXIT_OK;
  } finally {
    await store.close();
  }
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, ...value.split(',').map((v) => v.trim()).filter(Boolean)];
}

/**
 * The commands. `toolNames` (the registry's tools) is given when help is asked for, the one time `call`'s help
 * lists them: loading the registry costs a query the time it saves.
 */
export function buildProgram(io: Io, setCode: (code: number) => void, toolNames?: readonly string[]): Command {
  const program = new Command();
  const storeOption = () => new Option('--store <dir|url>', 'index directory or postgres:// URL (default: SEXTANT_STORE, else the nearest .sextant/)');
  const configOption = () => new Option('--config <path-or-url>', 'workspace whose GraphQL sources data tools may query (default: what the index was built from)');
  program
    .name('sextant')
    .description('A typed, navigable map of a software estate, for AI agents (MCP) and engineers (CLI).')
    .version(VERSION)
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) })
    .configureHelp({ showGlobalOptions: true });
  // Global: accepted before or after any command's name.
  for (const option of logOptions()) program.addOption(option);
  program.hook('preAction', (_program, command) => {
    try {
      startLogging(program.opts<LogFlags>(), command.name());
    } catch (err) {
      if (err instanceof LogOptionError) throw new UsageError(err.message);
      throw err;
    }
  });

  program
    .command('index')
    .description('Build the index from a sextant.yaml, a directory, a GraphQL schema file or an http(s) endpoint')
    .argument('<path-or-config>', 'sextant.yaml, a directory, a schema file (.graphql/.gql/.json) or a URL')
    .addOption(new Option('--store <dir|url>', 'index directory or postgres:// URL (default: SEXTANT_STORE, the config\'s store, else .sextant/ in the indexed root)'))
    .option('--rebuild', 'delete the existing index first')
    .option('--json', 'print the build report as JSON')
    .option('--watch', 'after indexing, keep the index up to date as files change (Ctrl+C to stop)')
    .option('--source <name>', 'publish this code tree as the repository <name> of the store\'s estate, re-linking it with the repositories other jobs published, and leave every other source as it is')
    .action(async (target: string, opts) => setCode(await runIndex(target, opts, io)));

  program
    .command('remove')
    .description('Take a source out of the index (a repository of the estate: the others are re-linked without it)')
    .argument('<source>', 'the source\'s name, as `sextant status` lists it')
    .addOption(new Option('--store <dir|url>', 'the index: a directory or a postgres:// URL (default: SEXTANT_STORE, else the nearest .sextant/)'))
    .option('--json', 'print the report as JSON')
    .action(async (name: string, opts) => setCode(await runRemove(name, opts, io)));

  program
    .command('status')
    .description('Show what the index holds and how fresh it is')
    .addOption(storeOption())
    .option('--json', 'print as JSON')
    .action(async (opts) => setCode(await runStatus(opts, io)));

  program
    .command('serve')
    .description('Run the MCP server over stdio (default) or Streamable HTTP; with --http the web page is served at / too')
    .addOption(storeOption())
    .option('--http <port>', 'serve Streamable HTTP on this port instead of stdio')
    .option('--host <host>', 'interface to bind with --http', '127.0.0.1')
    .option('--allowed-hosts <names>', 'with --http: Host header names accepted besides loopback (comma-separated or repeated; name or name:port)', collect)
    .option('--allowed-origins <origins>', 'with --http: browser origins accepted besides loopback ones, e.g. https://app.example.com (comma-separated or repeated)', collect)
    .option('--allow-refresh', 'offer the `refresh` tool, which re-reads GraphQL sources with the service credential (this process then needs the sources\' discovery headers in its environment)')
    .addOption(configOption())
    .action(async (opts: { store?: string; http?: string; host: string; config?: string; allowedHosts?: string[]; allowedOrigins?: string[]; allowRefresh?: boolean }) => {
      const [{ sextantOntology }, { locateStore }, { exposureWarning, serveHttp, serveStdio, StoreHandle }, { loadDataSources }, { localJq }, { refreshTool }, { knowDataSecrets }] = await Promise.all([
        import('../../graph/ontology/index.js'),
        import('../../graph/open.js'),
        import('../mcp/server.js'),
        import('../data.js'),
        import('../../query/data/jq.js'),
        import('../refresh.js'),
        import('./log-options.js'),
      ]);
      const location = locateStore(opts.store);
      if (/^postgres(ql)?:\/\//i.test(location)) (await import('./log-options.js')).knowStoreSecrets(location);
      const handle = new StoreHandle(sextantOntology(), location);
      // The data sources this server may query, from `--config` or the workspace the index was built from.
      let store: Store | undefined;
      try {
        store = await handle.current();
      } catch {
        store = undefined; // no index yet: data tools answer that themselves
      }
      const loaded = await loadDataSources(store, opts.config);
      knowDataSecrets(loaded.sources);
      if (loaded.warning) io.err(`warning: ${loaded.warning}`);
      const data: DataAccessOptions = { sources: loaded.sources, jq: localJq };
      if (opts.allowRefresh) data.refresh = refreshTool({ ontology: handle.ontology, storeDir: handle.location, ...(opts.config ? { configTarget: opts.config } : {}) });
      if (opts.http === undefined) {
        if (opts.allowedHosts || opts.allowedOrigins) throw new UsageError('--allowed-hosts and --allowed-origins apply to --http only');
        await serveStdio(handle, data);
        return;
      }
      const port = Number(opts.http);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--http takes a port number (0-65535); got ${JSON.stringify(opts.http)}`);
      for (const o of opts.allowedOrigins ?? []) if (!/^https?:\/\/[^/]+\/?$/i.test(o)) throw new UsageError(`--allowed-origins takes origins like https://app.example.com (scheme, host, optional port); got ${JSON.stringify(o)}`);
      const access = { ...(opts.allowedHosts ? { allowedHosts: opts.allowedHosts } : {}), ...(opts.allowedOrigins ? { allowedOrigins: opts.allowedOrigins } : {}) };
      const server = await serveHttp(handle, { port, host: opts.host, data, ...access });
      const warning = exposureWarning({ host: opts.host, ...access });
      if (warning) io.err(warning);
      const base = baseUrl(opts.host, server);
      io.err(`sextant MCP (Streamable HTTP) on ${base}/mcp — web page ${base}/ — index ${shownLocation(handle.location)}`);
      await untilStopped(server);
      await handle.close();
    });

  program
    .command('ui')
    .description('Serve the web page only (service map, routes, traces, data platform) on loopback, read-only; Ctrl+C to stop')
    .addOption(storeOption())
    .option('--port <port>', 'port to listen on (0: any free port)', '7345')
    .option('--host <host>', 'interface to bind', '127.0.0.1')
    .option('--open', 'open the page in the default browser')
    .action(async (opts: { store?: string; port: string; host: string; open?: boolean }) => {
      const [{ sextantOntology }, { locateStore }, { exposureWarning, serveHttp, StoreHandle }] = await Promise.all([import('../../graph/ontology/index.js'), import('../../graph/open.js'), import('../mcp/server.js')]);
      const port = Number(opts.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port takes a port number (0-65535); got ${JSON.stringify(opts.port)}`);
      const location = locateStore(opts.store);
      if (/^postgres(ql)?:\/\//i.test(location)) (await import('./log-options.js')).knowStoreSecrets(location);
      const handle = new StoreHandle(sextantOntology(), location);
      let server;
      try {
        server = await serveHttp(handle, { port, host: opts.host, mcp: false });
      } catch (err) {
        const e = err as NodeJS.ErrnoException;
        if (e.code === 'EADDRINUSE') throw new UsageError(`port ${port} is in use on ${opts.host}: pass --port <another> (or --port 0 for any free port)`);
        throw err;
      }
      const warning = exposureWarning({ host: opts.host });
      if (warning) io.err(warning);
      const url = `${baseUrl(opts.host, server)}/`;
      io.out(`sextant web page on ${url} — index ${shownLocation(handle.location)} (Ctrl+C to stop)`);
      if (opts.open) openInBrowser(url, io);
      await untilStopped(server);
      await handle.close();
    });

  program
    .command('call')
    .description('Run a tool with JSON arguments and print its structured result (exit 0 ok, 1 tool error, 2 usage error)')
    .argument('<tool>', toolNames ? `one of: ${toolNames.join(', ')}` : 'a tool name (`sextant call --help` lists them)')
    .argument('[json-args]', 'arguments as a JSON object', '{}')
    .addOption(storeOption())
    .addOption(configOption())
    .action(async (tool: string, json: string, opts: { store?: string; config?: string }) => setCode(await callTool(opts.store, tool, parseJsonArgs(json), true, io, opts.config)));

  const shortcut = (name: string) => program.command(name).addOption(storeOption()).option('--json', 'print the structured result');
  shortcut('search')
    .description('Ranked text search')
    .argument('<query...>', 'words or identifiers')
    .option('--kind <kind>', 'only this kind (repeatable, or comma-separated)', collect)
    .option('--filter <json>', 'exact conditions (JSON object)')
    .option('--limit <n>', 'results per page')
    .option('--offset <n>', 'results to skip')
    .option('--explain', 'show score components')
    .option('--mode <mode>', 'lexical, semantic or hybrid (default: hybrid when the index has embeddings)')
    .option('--min-score <n>', 'semantic and hybrid: least cosine similarity of a vector match')
    .option('--fields-query <text>', 'rank the fields of each data object or type found by this second query')
    .action(async (words: string[], o) =>
      setCode(await callTool(o.store, 'search', { query: words.join(' '), kinds: o.kind, filter: o.filter, limit: o.limit, offset: o.offset, explain: o.explain, mode: o.mode, min_score: o.minScore, fields_query: o.fieldsQuery }, Boolean(o.json || o.explain), io)),
    );
  shortcut('find')
    .description('Exact lookup of every node of a kind matching a filter')
    .argument('<kind>', 'node kind')
    .argument('[filter]', 'filter as JSON, e.g. \'{"type_kind": "OBJECT"}\'')
    .option('--limit <n>', 'results per page')
    .option('--offset <n>', 'results to skip')
    .action(async (kind: string, filter: string | undefined, o) => setCode(await callTool(o.store, 'find', { kind, filter, limit: o.limit, offset: o.offset }, Boolean(o.json), io)));
  shortcut('describe')
    .description('Full records of nodes by id (or exact qualified name)')
    .argument('<id...>', 'node ids')
    .action(async (ids: string[], o) => setCode(await callTool(o.store, 'describe', ids.length === 1 ? { id: ids[0] } : { ids }, Boolean(o.json), io)));
  shortcut('neighbors')
    .description('Walk typed edges from nodes')
    .argument('<id...>', 'origin node ids')
    .option('--direction <dir>', 'in, out or both (default both)')
    .option('--edge-types <types>', 'edge types (repeatable, or comma-separated; default: every type the nodes have that way, as describe counts them)', collect)
    .option('--filter <json>', 'conditions on the other end (JSON object)')
    .option('--limit <n>', 'results per page')
    .option('--offset <n>', 'results to skip')
    .action(async (ids: string[], o) => {
      const direction = o.direction ?? 'both';
      // Without edge types, the nodes must be known to know theirs: an unknown id is describe's error to report.
      const edgeTypes = o.edgeTypes ?? (await edgeTypesOf(o.store, ids, direction, io));
      if (edgeTypes === null) return setCode(await callTool(o.store, 'describe', ids.length === 1 ? { id: ids[0] } : { ids }, Boolean(o.json), io));
      setCode(await callTool(o.store, 'neighbors', { ids, direction, edge_types: edgeTypes, filter: o.filter, limit: o.limit, offset: o.offset }, Boolean(o.json), io));
    });
  shortcut('resolve')
    .description('Resolve a name to node ids (one / many / none); a concrete request (GET /api/customer/owners/7) to a gateway or proxy route also says which route it lands on')
    .argument('<identifier>', 'name, qualified name or id')
    .option('--kind <kind>', 'only this kind')
    .action(async (identifier: string, o) => setCode(await callTool(o.store, 'resolve', { identifier, kind: o.kind }, Boolean(o.json), io)));

  shortcut('changes')
    .description('What a change breaks: a unified diff (file, or - for stdin) or a git revision range, mapped to declarations, routes and the services that call them')
    .argument('[diff-file]', 'a unified diff file, or - to read it from stdin')
    .option('--rev <range>', 'a git revision or range in the indexed work tree, e.g. main..HEAD (instead of a diff)')
    .option('--indexed <side>', 'which side of the diff the index holds: old (default) or new')
    .option('--depth <n>', 'hops of dependents to follow (default 2)')
    .action(async (file: string | undefined, o) => {
      if ((file === undefined) === (o.rev === undefined)) throw new UsageError('sextant changes takes a diff file (or - for stdin) or --rev <range>, one of them');
      let diff: string | undefined;
      if (file !== undefined) {
        const { readFile } = await import('node:fs/promises');
        try {
          diff = file === '-' ? await readStdin() : await readFile(file, 'utf8');
        } catch (err) {
          throw new UsageError(`cannot read the diff ${JSON.stringify(file)}: ${(err as Error).message}`);
        }
      }
      setCode(await callTool(o.store, 'changes', { ...(diff !== undefined ? { diff } : { revisions: o.rev }), indexed: o.indexed, depth: o.depth }, Boolean(o.json), io));
    });

  shortcut('links')
    .description('The coverage of links between services: per service, HTTP clients, sends, listeners and gateway routes by status, and every unresolved one with file:line and what it stopped at (or --all links with their targets)')
    .option('--service <name>', 'only this service (repeatable, or comma-separated)', collect)
    .option('--kind <kind>', 'only http, message, listener or gateway (repeatable, or comma-separated)', collect)
    .option('--all', 'list every link with its targets, not only the unresolved ones')
    .option('--status <status>', 'with --all: only these statuses (repeatable, or comma-separated)', collect)
    .option('--limit <n>', 'links per page')
    .option('--offset <n>', 'links to skip')
    .action(async (o) =>
      setCode(await callTool(o.store, 'links', { service: o.service, kinds: o.kind, ...(o.all ? { include: 'all' } : {}), status: o.status, limit: o.limit, offset: o.offset }, Boolean(o.json), io)),
    );

  shortcut('map')
    .description('The service map: each service with its routes, clients and producers, what it calls (per protocol, with counts), what gateways forward where, external hosts, and calls that reach no declared route')
    .option('--service <name>', 'only these services and their neighbours (repeatable, or comma-separated)', collect)
    .option('--protocol <p>', 'only edges of these protocols: http, kafka, …, gateway (repeatable, or comma-separated)', collect)
    .action(async (o) => setCode(await callTool(o.store, 'service_map', { service: o.service, protocols: o.protocol }, Boolean(o.json), io)));

  shortcut('trace')
    .description('A request\'s path across services: from a route (GET /orders/{id}), handler or service, each call to another service with the client, the route and handler it reaches, and how sure the link is; with --to, the shortest paths between two nodes')
    .argument('<from>', 'a route (GET /orders/{id}, or service GET /orders/{id}), method, service or id')
    .option('--to <name>', 'the node to reach: shortest paths instead of the flow')
    .option('--depth <n>', 'most hops to walk')
    .action(async (from: string, o) => setCode(await callTool(o.store, 'trace', { from, ...(o.to ? { to: o.to } : {}), ...(o.depth ? { max_depth: o.depth } : {}) }, Boolean(o.json), io)));

  shortcut('impact')
    .description('What is affected if a method, type or service changes: its callers, injectors, users and subtypes, and, across services, the clients, gateway routes and methods that reach the routes it serves, with their callers, by depth')
    .argument('<name...>', 'methods (Type#method), types or services, as callers takes them, or ids')
    .option('--depth <n>', 'hops back to walk (default 3; a call across services, route to client to its method, is one hop)')
    .option('--min-confidence <x>', 'follow only links at least this sure, 0..1 (default 0.5)')
    .option('--within-service', 'stay in code: do not follow the routes it serves to their callers')
    .option('--limit <n>', 'most affected nodes (default 200)')
    .action(async (names: string[], o) => setCode(await impactCommand(names, o, io)));

  for (const def of SHORTCUTS) {
    shortcut(def.name)
      .description(def.description)
      .argument('<name>', def.argument)
      .option('--limit <n>', 'results per page (default 50)')
      .option('--offset <n>', 'results to skip')
      .action(async (identifier: string, o) => setCode(await runShortcutCommand(def, identifier, o, io)));
  }

  program
    .command('setup')
    .description('Register this Sextant as an MCP server in a client (Claude Code, Cursor, VS Code, Codex): writes its config, or prints it with --print')
    .argument('<client>', `one of: ${CLIENTS.map((c) => c.name).join(', ')}`)
    .addOption(new Option('--store <dir>', 'the index the server reads (default: SEXTANT_STORE, else the nearest .sextant/); written as an absolute path'))
    .option('--print', 'print what would be written, and where; write nothing')
    .option('--project <dir>', 'the project whose config to write, for clients configured per project (default: the current directory)')
    .option('--name <name>', 'the server\'s name in the client\'s config', 'sextant')
    .option('--json', 'print what was done as JSON')
    .action(async (client: string, o: { store?: string; print?: boolean; project?: string; name: string; json?: boolean }) => {
      const { runSetup, SetupError } = await import('./setup.js');
      try {
        setCode(await runSetup(client, o, io));
      } catch (err) {
        if (err instanceof SetupError) {
          if (err.usage) throw new UsageError(err.message);
          io.err(`sextant: ${err.message}`);
          setCode(EXIT_ERROR);
          return;
        }
        throw err;
      }
    });
  return program;
}

/** Where an index is, as printed: a database URL without its password. */
function shownLocation(location: string): string {
  return isPostgresLocation(location) ? shownPostgresLocation(location) : location;
}

function baseUrl(host: string, server: import('node:http').Server): string {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

function untilStopped(server: import('node:http').Server): Promise<void> {
  return new Promise<void>((resolveStop) => {
    const stop = () => {
      server.closeAllConnections?.();
      server.close(() => resolveStop());
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

/** Opens a URL with the platform's opener; says so when there is none (a server without a desktop). */
function openInBrowser(url: string, io: Io): void {
  void import('node:child_process').then(({ spawn }) => {
    const [cmd, args] = process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '', url]] : ['xdg-open', [url]];
    const child = spawn(cmd, args as string[], { stdio: 'ignore', detached: true });
    child.on('error', () => io.err(`could not open a browser (${cmd} is not available): open ${url} yourself`));
    child.unref();
  });
}

/** Runs the CLI; returns the exit code instead of exiting so it can be embedded and tested. */
/**
 * A reader that stops early (`sextant status | head -3`) closes the pipe we write to: a normal end of the command,
 * as for any Unix tool, not an error with a stack trace.
 */
function endQuietlyWhenOutputCloses(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(typeof process.exitCode === 'number' ? process.exitCode : EXIT_OK);
      process.exitCode = EXIT_ERROR;
    });
  }
}

export async function main(argv: string[], io: Io = defaultIo): Promise<number> {
  if (io === defaultIo) endQuietlyWhenOutputCloses();
  let code = EXIT_OK;
  const wantsHelp = argv.slice(2).some((a) => a === '--help' || a === '-h' || a === 'help');
  const toolNames = wantsHelp ? (await import('../../query/index.js')).TOOLS.map((t) => t.name) : undefined;
  const program = buildProgram(
    io,
    (c: number) => {
      code = c;
    },
    toolNames,
  );
  try {
    await program.parseAsync(argv);
    return code;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    if (err instanceof UsageError) {
      io.err(`sextant: ${err.message}`);
      return EXIT_USAGE;
    }
    if ([...EXPECTED_ERRORS].some((type) => err instanceof type)) {
      io.err(`sextant: ${(err as Error).message}`);
      return EXIT_ERROR;
    }
    const named = err as Error & { code?: string };
    // An unexpected error is a Sextant bug: SEXTANT_DEBUG=1 shows where it happened, for the report.
    if (named && typeof named.code === 'string' && named.name !== 'Error') {
      io.err(`sextant: ${named.message}`);
      if (process.env['SEXTANT_DEBUG'] && named.stack) io.err(named.stack);
      return EXIT_ERROR;
    }
    io.err(`sextant: ${named?.message ?? String(err)}`);
    if (process.env['SEXTANT_DEBUG'] && named?.stack) io.err(named.stack);
    return EXIT_ERROR;
  }
}
