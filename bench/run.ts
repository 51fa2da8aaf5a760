/**
 * `npm run bench`: indexing throughput and query latency, printed as one JSON document on stdout (progress on
 * stderr). The workloads:
 *   - github: GitHub's public GraphQL schema with the real ontology (a real, mid-sized data API);
 *   - synthetic: a generated code estate (>200k nodes, >1M edges, Zipf-skewed hubs) with its own ontology module;
 *   - code_estate: a generated Spring estate on disk through the real Java/Kotlin indexer (code.ts): cold and
 *     one-file incremental indexing, tool latencies, and the peak RSS of a large cold index in a child process.
 *   - real: every estate of ../shared/corpora, and all of them side by side, indexed by the CLI in a child process:
 *     cold (wall and CPU seconds, files per CPU-second, peak RSS, nodes, edges, seconds per phase), again with nothing
 *     changed, and after one method added to one file (compared with a fresh index of the edited tree), with a digest
 *     of each graph to compare runs (real.ts; SEXTANT_BENCH_ESTATES=a,b picks estates).
 *   - peers (only with --only=peers): Sextant and CodeGraph index the same real estates cold, round-robin, three
 *     rounds: CPU and wall seconds and peak RSS per run, medians, and CodeGraph's CPU over Sextant's (peers.ts).
 *   - cli: `sextant call` and the `callers` shortcut spawned as real processes against an index of the petclinic
 *     corpus (cli.ts): per-call time, p50 against CLI_BUDGET_P50_MS.
 *   - shapes: source shapes that were once super-linear (one huge class, a deep inheritance chain, one long
 *     line), at half and full size: t(full)/t(half) against SHAPE_SCALING_MAX (shapes.ts).
 *   - links: every estate of ../shared/corpora indexed cold, its index time and its `links` report: per kind,
 *     statuses and the resolved share; against the hand-checked files of test/estates, how many entries are
 *     right (links.ts; SEXTANT_BENCH_ESTATES=a,b picks estates).
 *   - semantic: a retrieval eval of search's lexical, semantic and hybrid modes with a real embedding model over five
 *     estates and the Hugr golden schemas: recall@10 and MRR per question set, embedding throughput, and what
 *     embeddings add to index time and store size (semantic.ts; needs the Python packages of test/embedding-server).
 *   - web: the web page (`sextant ui`) on a 100-service generated estate in headless Chromium: first paint, the map
 *     ready (ELK layout and first draw as the page times them), a service and a trace ready, whether the layout is the
 *     same every run, against WEB_BUDGETS (web.ts; skipped without Chromium or a built page).
 * Latency budgets (p95, synthetic graph) live here, not in tests. The exit code is 0 when over budget (this is a
 * report) and 1 when any tool answered `{ok: false}` (a bug) or the run failed.
 *
 *   - postgres: the synthetic graph loaded into PostgreSQL, beside SQLite in the same run: load time and rows/s, tool
 *     p50/p95 over loopback against its own budgets, answers compared with SQLite's; `--pg-scale[=N]` adds a run of N
 *     services published as N sources by 4 concurrent writers (postgres.ts).
 * Options (after `npm run bench --`): --calls=N (timed calls per tool, default 300 synthetic / 200 github / 50
 * code), --only=github|synthetic|postgres|pg-scale|code|real|peers|cli|shapes|links|semantic|web, --pg-scale[=N] (--only=pg-scale: that run alone), --keep (leave the temporary stores on disk for investigation). The code
 * estate's sizes come from SEXTANT_BENCH_CODE_* environment variables (see code.ts).
 */
import { cpus, loadavg, totalmem, tmpdir } from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { SqliteStore } from '../src/graph/sqlite/store.js';
import { validateGraph } from '../src/graph/validate.js';
import { codeOptions, runCodeEstate, type CodeEstateReport } from './code.js';
import { cliCalls, runCli, type CliReport } from './cli.js';
import { runLinks } from './links.js';
import { runPeers } from './peers.js';
import { runReal } from './real.js';
import { runShapes } from './shapes.js';
import { runSemantic } from './semantic.js';
import { runWeb, webOptions, type WebReport } from './web.js';
import { runPostgres, runPostgresScale, type PostgresReport } from './postgres.js';
import { runGithub, type GithubReport } from './github.js';
import { BENCH_SOURCE, DEFAULT_SYNTHETIC, generateSynthetic, syntheticWorkload } from './synthetic.js';
import { RssSampler, envInt, gc, log, mb, round, storeBytes, timeTool, type IndexStats, type ToolReport } from './util.js';

/** p95 latency budgets in milliseconds, checked on the synthetic graph. */
export const BUDGETS_P95_MS: Readonly<Record<string, number>> = { search: 50, find: 10, describe: 10, neighbors: 10, resolve: 10 };
const TOOLS = ['search', 'find', 'describe', 'neighbors', 'resolve'] as const;
/** Untimed calls per tool before timing starts. */
const WARMUP = 20;

const ONLY = ['github', 'synthetic', 'postgres', 'pg-scale', 'code', 'real', 'peers', 'cli', 'shapes', 'links', 'semantic', 'web'] as const;

interface Options {
  calls?: number;
  only?: (typeof ONLY)[number];
  keep: boolean;
  /** `--pg-scale[=N]`: the PostgreSQL scale run, N services published as N sources (default 100). */
  pgScale?: number;
}

function parseArgs(argv: string[]): Options {
  const opts: Options = { keep: false };
  for (const arg of argv) {
    const [key, value] = arg.split('=', 2);
    if (key === '--keep') opts.keep = true;
    else if (key === '--calls' && value && /^\d+$/.test(value)) opts.calls = Math.max(1, Number(value));
    else if (key === '--only' && (ONLY as readonly string[]).includes(value ?? '')) opts.only = value as Options['only'];
    else if (key === '--pg-scale' && (value === undefined || /^\d+$/.test(value))) opts.pgScale = value ? Math.max(2, Number(value)) : 100;
    else throw new Error(`unknown bench option ${arg} (use --calls=N, --only=${ONLY.join('|')}, --pg-scale[=N], --keep)`);
  }
  return opts;
}

interface SyntheticReport {
  description: string;
  seed: number;
  generate_seconds: number;
  index: IndexStats & {
    by_edge_type: Record<string, number>;
    top_calls_in_degree: number[];
    /** Seconds per write phase (from the store's progress events). */
    phases_seconds: Record<string, number>;
  };
  memory: { peak_rss_mb_sampled: number; max_rss_mb: number; rss_after_index_mb: number };
  tools: Record<string, ToolReport>;
  errors: number;
}

/** `then` runs with the SQLite store of the synthetic graph still on disk (the PostgreSQL section compares with it). */
async function runSynthetic(opts: { calls: number; keep: boolean; then?: (dir: string) => Promise<void> }, rss: RssSampler): Promise<SyntheticReport> {
  const t0 = performance.now();
  log('synthetic: generating');
  const g = generateSynthetic(DEFAULT_SYNTHETIC);
  const generateSeconds = (performance.now() - t0) / 1000;
  rss.sample();
  log(`synthetic: ${g.nodes.length} nodes, ${g.edges.length} edges generated in ${round(generateSeconds, 2)} s`);
  const problems = validateGraph(g.ontology, g.nodes, g.edges);
  if (problems.length) throw new Error(`synthetic graph is invalid (a bench bug):\n  ${problems.slice(0, 5).join('\n  ')}`);

  const dir = mkdtempSync(join(tmpdir(), 'sextant-bench-synthetic-'));
  try {
    log(`synthetic: indexing into ${dir}`);
    const writer = SqliteStore.open(g.ontology, dir, { mode: 'write' });
    let lastPhase = '';
    const t1 = performance.now();
    // When each write phase first reported progress (seconds since the write started).
    const marks: [string, number][] = [];
    await writer.replaceSource({ name: BENCH_SOURCE, kind: 'bench', origin: 'synthetic', built_at: new Date().toISOString() }, g.nodes, g.edges, (p) => {
      rss.sample();
      if (p.phase !== lastPhase) {
        lastPhase = p.phase;
        marks.push([p.phase, (performance.now() - t1) / 1000]);
        log(`synthetic: write phase ${p.phase} at ${round((performance.now() - t1) / 1000, 1)} s`);
      }
    });
    marks.push(['committed', (performance.now() - t1) / 1000]);
    await writer.close();
    const indexSeconds = (performance.now() - t1) / 1000;
    marks.push(['closed', indexSeconds]);
    // Durations between marks: sort nodes and make the first rows → insert nodes with their full text and list
    // terms (rows are made and written batch by batch) → insert edges, then build the secondary indexes when they
    // were deferred → names index, ANALYZE and commit → close (WAL checkpoint).
    const phaseNames: Record<string, string> = { nodes: 'prepare', edges: 'insert_nodes_and_text', done: 'insert_edges_and_indexes', committed: 'names_analyze_commit', closed: 'close_checkpoint' };
    const phases: Record<string, number> = {};
    let previous = 0;
    for (const [mark, at] of marks) {
      const name = phaseNames[mark];
      if (name) phases[name] = round(at - previous, 2);
      previous = at;
    }
    rss.sample();
    const rssAfterIndex = process.memoryUsage.rss();
    const bytes = storeBytes(dir);
    log(`synthetic: indexed in ${round(indexSeconds, 1)} s, ${mb(bytes)} MB on disk`);

    const workload = syntheticWorkload(g, DEFAULT_SYNTHETIC.seed + 1, opts.calls + WARMUP);
    const nodes = g.nodes.length;
    const edges = g.edges.length;
    const topIn = [...g.callsIn].sort((a, b) => b - a).slice(0, 5);
    const counts = g.counts;
    const ontology = g.ontology;
    // Drop the in-memory graph before querying: a server would not hold it.
    (g as { nodes: unknown }).nodes = [];
    (g as { edges: unknown }).edges = [];
    gc();

    const reader = SqliteStore.open(ontology, dir, { mode: 'read' });
    const ctx = { store: reader, ontology };
    const tools: Record<string, ToolReport> = {};
    let errors = 0;
    for (const tool of TOOLS) {
      const report = await timeTool(ctx, tool, workload[tool], WARMUP);
      tools[tool] = report;
      errors += report.errors;
      rss.sample();
      log(`synthetic ${tool}: ${report.calls} calls, median ${report.median_ms} ms, p95 ${report.p95_ms} ms, max ${report.max_ms} ms, errors ${report.errors}`);
    }
    await reader.close();
    await opts.then?.(dir);
    return {
      description: `generated code estate: ${DEFAULT_SYNTHETIC.services} services, classes, methods; CALLS targets Zipf-skewed (hubs)`,
      seed: DEFAULT_SYNTHETIC.seed,
      generate_seconds: round(generateSeconds),
      index: {
        seconds: round(indexSeconds),
        nodes,
        edges,
        nodes_per_s: Math.round(nodes / indexSeconds),
        edges_per_s: Math.round(edges / indexSeconds),
        store_bytes: bytes,
        store_mb: mb(bytes),
        by_kind: counts.by_kind,
        by_edge_type: counts.by_edge_type,
        top_calls_in_degree: topIn,
        phases_seconds: phases,
      },
      memory: {
        peak_rss_mb_sampled: mb(rss.peak),
        // Linux reports maxRSS in kilobytes.
        max_rss_mb: mb(process.resourceUsage().maxRSS * 1024),
        rss_after_index_mb: mb(rssAfterIndex),
      },
      tools,
      errors,
    };
  } finally {
    if (!opts.keep) rmSync(dir, { recursive: true, force: true });
    else log(`synthetic: store kept at ${dir}`);
  }
}

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2));
  const started = performance.now();
  const rss = new RssSampler();
  rss.sample();
  const cpuList = cpus();
  const out: Record<string, unknown> = {
    bench: 'sextant',
    machine: {
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
      cpus: cpuList.length,
      cpu_model: cpuList[0]?.model.trim() ?? 'unknown',
      total_memory_mb: mb(totalmem()),
      date: new Date().toISOString(),
      gc_exposed: typeof (globalThis as { gc?: unknown }).gc === 'function',
      // Other processes compete for the CPU: latencies on a loaded machine are worse than on an idle one.
      load_average_1m_at_start: round(loadavg()[0] ?? 0, 2),
    },
  };
  let errors = 0;
  if (opts.only === undefined || opts.only === 'github') {
    const github: GithubReport = await runGithub({ calls: opts.calls ?? 200, warmup: WARMUP, keep: opts.keep });
    out.github = github;
    errors += github.errors;
    gc();
  }
  if (opts.only === undefined || opts.only === 'synthetic' || opts.only === 'postgres') {
    const withPostgres = opts.only !== 'synthetic';
    const synthetic = await runSynthetic(
      {
        calls: opts.calls ?? 300,
        keep: opts.keep,
        ...(withPostgres ? { then: async (dir: string) => void (out.postgres = await runPostgres({ calls: opts.calls ?? 300, warmup: WARMUP, sqliteDir: dir, ...(opts.pgScale ? { scale: opts.pgScale } : {}) }, rss)) } : {}),
      },
      rss,
    );
    if (out.postgres) errors += (out.postgres as PostgresReport).errors;
    out.synthetic = synthetic;
    errors += synthetic.errors;
    out.budgets = { graph: 'synthetic', metric: 'p95_ms', p95_ms: BUDGETS_P95_MS };
    const within: Record<string, unknown> = {};
    let all = true;
    for (const tool of TOOLS) {
      const p95 = synthetic.tools[tool]!.p95_ms;
      const budget = BUDGETS_P95_MS[tool]!;
      const pass = p95 < budget;
      all &&= pass;
      within[tool] = { p95_ms: p95, budget_ms: budget, pass };
    }
    within.all = all;
    out.within_budget = within;
    gc();
  }
  if (opts.only === 'pg-scale') {
    out.postgres = await runPostgresScale(opts.pgScale ?? 100, WARMUP);
    errors += (out.postgres as PostgresReport).errors;
  }
  if (opts.only === undefined || opts.only === 'code') {
    const code: CodeEstateReport = await runCodeEstate(codeOptions(process.env, { ...(opts.calls !== undefined ? { calls: opts.calls } : {}), keep: opts.keep }), BUDGETS_P95_MS);
    out.code_estate = code;
    errors += code.errors;
  }
  if (opts.only === undefined || opts.only === 'real') {
    const real = await runReal({ keep: opts.keep, ...(process.env.SEXTANT_BENCH_ESTATES ? { estates: process.env.SEXTANT_BENCH_ESTATES.split(',') } : {}), sideBySide: process.env.SEXTANT_BENCH_SIDE_BY_SIDE !== '0' });
    out.real = real;
    errors += real.errors;
  }
  // Installs a peer from npm and runs for several minutes: only when asked for.
  if (opts.only === 'peers') {
    const peers = await runPeers({ keep: opts.keep, rounds: envInt(process.env, 'SEXTANT_BENCH_PEER_ROUNDS', 3, 1), ...(process.env.SEXTANT_BENCH_ESTATES ? { estates: process.env.SEXTANT_BENCH_ESTATES.split(',') } : {}) });
    out.peers = peers;
    errors += peers.errors;
  }
  if (opts.only === undefined || opts.only === 'cli') {
    const cli: CliReport = await runCli({ calls: cliCalls(process.env), keep: opts.keep });
    out.cli = cli;
    errors += cli.errors;
  }
  if (opts.only === undefined || opts.only === 'web') {
    const web: WebReport = await runWeb(webOptions(process.env, { keep: opts.keep }));
    out.web = web;
    errors += web.errors;
  }
  if (opts.only === undefined || opts.only === 'shapes') {
    out.shapes = await runShapes();
    gc();
  }
  if (opts.only === undefined || opts.only === 'semantic') {
    const semantic = await runSemantic({ keep: opts.keep });
    out.semantic = semantic;
    errors += semantic.errors;
    gc();
  }
  if (opts.only === undefined || opts.only === 'links') {
    const links = await runLinks({ keep: opts.keep, ...(process.env.SEXTANT_BENCH_ESTATES ? { estates: process.env.SEXTANT_BENCH_ESTATES.split(',') } : {}) });
    out.links = links;
    errors += links.errors;
  }
  out.errors = errors;
  (out.machine as Record<string, unknown>).load_average_1m_at_end = round(loadavg()[0] ?? 0, 2);
  out.total_seconds = round((performance.now() - started) / 1000, 1);
  process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  if (errors > 0) {
    log(`${errors} tool call(s) answered {ok: false}; see error_samples`);
    process.exitCode = 1;
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`[bench] failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 2;
});
