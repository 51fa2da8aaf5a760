/**
 * The PostgreSQL store, beside SQLite in the same run:
 *   - load: the synthetic graph (200k nodes, 1M edges) written as one source (time, rows per second), then every
 *     tool's p50/p95 over loopback against `PG_BUDGETS_P95_MS`, and whether the answers equal SQLite's;
 *   - scale (`--pg-scale[=services]`, not run by default): a generated estate of that many services (100), each
 *     published as its own source (`sextant index <svc> --source <svc>`) by 4 CLI writers at once into one database:
 *     total time, each writer's peak RSS, tool p95 afterwards, and whether the links equal a one-source build's.
 * The server: SEXTANT_BENCH_PG (an admin URL), else a throwaway cluster (scripts/pg-cluster.sh) for the run.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { sextantOntology } from '../src/graph/ontology/index.js';
import { openStore } from '../src/graph/open.js';
import type { Store } from '../src/graph/store.js';
import { runTool } from '../src/query/index.js';
import { generateEstate } from './estate.js';
import { BENCH_SOURCE, DEFAULT_SYNTHETIC, generateSynthetic, syntheticWorkload } from './synthetic.js';
import { gc, log, mb, round, timeTool, type RssSampler, type ToolReport } from './util.js';

/** p95 budgets over loopback on this 2-core machine (SQLite's, in-process, are tighter: run.ts). */
export const PG_BUDGETS_P95_MS: Readonly<Record<string, number>> = { search: 100, find: 20, describe: 20, neighbors: 20, resolve: 20 };
const TOOLS = ['search', 'find', 'describe', 'neighbors', 'resolve'] as const;
const REPO = resolve(import.meta.dirname, '..', '..');

interface Server {
  admin: string;
  stop: () => void;
}

function startServer(): Server | { skipped: string } {
  if (process.env.SEXTANT_BENCH_PG) return { admin: process.env.SEXTANT_BENCH_PG, stop: () => undefined };
  const dir = mkdtempSync(join(tmpdir(), 'sextant-bench-pg-'));
  const started = spawnSync('bash', [join(REPO, 'scripts', 'pg-cluster.sh'), 'start', dir], { encoding: 'utf8' });
  if (started.status !== 0) return { skipped: `no PostgreSQL to run against: ${started.stderr.trim().split('\n')[0]} (set SEXTANT_BENCH_PG to a server's admin URL)` };
  return {
    admin: started.stdout.trim(),
    stop: () => {
      spawnSync('bash', [join(REPO, 'scripts', 'pg-cluster.sh'), 'stop', dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function newDatabase(admin: string): Promise<string> {
  const name = `bench_${randomBytes(5).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const u = new URL(admin);
  u.pathname = `/${name}`;
  return u.toString();
}

export interface PostgresReport {
  server?: string;
  skipped?: string;
  load?: { seconds: number; nodes: number; edges: number; rows_per_s: number; nodes_per_s: number; edges_per_s: number; database_mb: number; rss_mb: number };
  tools?: Record<string, ToolReport>;
  within_budget?: Record<string, unknown>;
  same_answers_as_sqlite?: { compared: number; equal: number; first_difference?: string };
  scale?: ScaleReport;
  errors: number;
}

/** Answers on both stores for the same calls: how many are equal (ids, order, scores). */
async function compareAnswers(a: Store, b: Store, ontology: Store['ontology'], calls: { tool: string; args: unknown }[]): Promise<{ compared: number; equal: number; first_difference?: string }> {
  let equal = 0;
  let first: string | undefined;
  for (const c of calls) {
    // Each index says when it was written (`index`): that differs by store, as it should.
    const answer = async (store: Store) => JSON.stringify({ ...(await runTool({ store, ontology }, c.tool, c.args)), index: undefined });
    if ((await answer(a)) === (await answer(b))) equal++;
    else first ??= `${c.tool} ${JSON.stringify(c.args)}`;
  }
  return { compared: calls.length, equal, ...(first ? { first_difference: first } : {}) };
}

export async function runPostgres(opts: { calls: number; warmup: number; sqliteDir?: string; scale?: number }, rss: RssSampler): Promise<PostgresReport> {
  const server = startServer();
  if ('skipped' in server) {
    log(`postgres: skipped (${server.skipped})`);
    return { skipped: server.skipped, errors: 0 };
  }
  const report: PostgresReport = { server: new URL(server.admin).host, errors: 0 };
  try {
    const g = generateSynthetic(DEFAULT_SYNTHETIC);
    const url = await newDatabase(server.admin);
    log(`postgres: loading ${g.nodes.length} nodes, ${g.edges.length} edges`);
    const writer = await openStore(g.ontology, url, 'write');
    const t0 = performance.now();
    let searchRows = 0;
    await writer.replaceSource({ name: BENCH_SOURCE, kind: 'bench', origin: 'synthetic', built_at: new Date().toISOString() }, g.nodes, g.edges, (p) => {
      rss.sample();
      if (p.phase === 'search') searchRows = p.done;
    });
    const seconds = (performance.now() - t0) / 1000;
    await writer.close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const size = Number((await client.query('SELECT pg_database_size(current_database()) AS b')).rows[0].b);
    await client.end();
    const nodes = g.nodes.length;
    const edges = g.edges.length;
    report.load = { seconds: round(seconds, 2), nodes, edges, rows_per_s: Math.round((nodes + edges + searchRows) / seconds), nodes_per_s: Math.round(nodes / seconds), edges_per_s: Math.round(edges / seconds), database_mb: mb(size), rss_mb: mb(process.memoryUsage.rss()) };
    log(`postgres: loaded in ${round(seconds, 1)} s (${report.load.rows_per_s} rows/s), ${mb(size)} MB`);
    const workload = syntheticWorkload(g, DEFAULT_SYNTHETIC.seed + 1, opts.calls + opts.warmup);
    const ontology = g.ontology;
    (g as { nodes: unknown }).nodes = [];
    (g as { edges: unknown }).edges = [];
    gc();
    const reader = await openStore(ontology, url, 'read');
    const tools: Record<string, ToolReport> = {};
    const within: Record<string, unknown> = {};
    let all = true;
    for (const tool of TOOLS) {
      const r = await timeTool({ store: reader, ontology }, tool, workload[tool], opts.warmup);
      tools[tool] = r;
      report.errors += r.errors;
      const pass = r.p95_ms < PG_BUDGETS_P95_MS[tool]!;
      all &&= pass;
      within[tool] = { p95_ms: r.p95_ms, budget_ms: PG_BUDGETS_P95_MS[tool], pass };
      log(`postgres ${tool}: median ${r.median_ms} ms, p95 ${r.p95_ms} ms, errors ${r.errors}`);
    }
    within.all = all;
    report.tools = tools;
    report.within_budget = within;
    if (opts.sqliteDir) {
      const sqlite = await openStore(ontology, opts.sqliteDir, 'read');
      const sample = TOOLS.flatMap((tool) => workload[tool].slice(opts.warmup, opts.warmup + 40).map((c) => ({ tool, args: c.args })));
      report.same_answers_as_sqlite = await compareAnswers(reader, sqlite, ontology, sample);
      await sqlite.close();
    }
    await reader.close();
    if (opts.scale) {
      report.scale = await runScale(server.admin, opts.scale, opts.warmup);
      report.errors += scaleErrors(report.scale);
    }
  } finally {
    server.stop();
  }
  return report;
}

// ------------------------------------------------------------------------------------------- scale

/** The scale run alone (`--only=pg-scale`). */
export async function runPostgresScale(services: number, warmup: number): Promise<PostgresReport> {
  const server = startServer();
  if ('skipped' in server) return { skipped: server.skipped, errors: 0 };
  try {
    const scale = await runScale(server.admin, services, warmup);
    return { server: new URL(server.admin).host, scale, errors: scaleErrors(scale) };
  } finally {
    server.stop();
  }
}

/** Failed tool calls, plus one per answer that differs from the one-source build's. */
function scaleErrors(s: ScaleReport): number {
  return Object.values(s.tools).reduce((n, t) => n + t.errors, 0) + (s.links.equal ? 0 : 1) + (s.traces.compared - s.traces.equal) + (s.impacts.compared - s.impacts.equal);
}

export interface ScaleReport {
  services: number;
  files: number;
  writers: number;
  total_seconds: number;
  publication_seconds: { median: number; max: number };
  writer_peak_rss_mb: { median: number; max: number };
  tools: Record<string, { calls: number; p95_ms: number; median_ms: number; errors: number; empty: number; error_samples?: unknown[] }>;
  links: { one_source: number; published: number; equal: boolean; only_one_source?: string; only_published?: string };
  traces: SameAnswers;
  impacts: SameAnswers;
}

/** One tool's answers on the published build against the one-source build's, the first differences shown. */
interface SameAnswers {
  compared: number;
  equal: number;
  differ?: { args: Record<string, unknown>; one_source: string; published: string }[];
}

/** One CLI run, with its peak RSS (GNU time's %M, in KB) and wall time. */
function cli(args: string[], env: Record<string, string>): Promise<{ code: number; seconds: number; rssMb: number; stderr: string }> {
  return new Promise((done) => {
    const t0 = performance.now();
    const child = spawn('/usr/bin/time', ['-f', 'SEXTANT_RSS_KB=%M', process.execPath, join(REPO, 'bin', 'sextant.js'), ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => {
      const kb = Number(/SEXTANT_RSS_KB=(\d+)/.exec(stderr)?.[1] ?? 0);
      done({ code: code ?? 1, seconds: (performance.now() - t0) / 1000, rssMb: Math.round(kb / 1024), stderr });
    });
  });
}

/** Enough files that every generated service has controllers, Feign clients, producers and listeners (13+ Java files). */
const FILES_PER_SERVICE = 20;
const NODE_ID = /^[a-z]{2}_[0-9a-z]{16}$/;

/**
 * A tool answer as compared across the published and the one-source builds: node ids (which hash the source a
 * node was built under) become kind and qualified name; sources, files (relative to a different root), modules,
 * hints and index freshness are left out.
 */
async function comparable(store: Store, value: unknown): Promise<string> {
  const ids = new Set<string>();
  const collect = (v: unknown): void => {
    if (typeof v === 'string' && NODE_ID.test(v)) ids.add(v);
    else if (Array.isArray(v)) v.forEach(collect);
    else if (v && typeof v === 'object') Object.values(v).forEach(collect);
  };
  collect(value);
  const names = new Map((await store.getNodes([...ids])).map((n) => [n.id, `${n.kind}:${n.qualified_name}`]));
  const rewrite = (v: unknown): unknown => {
    if (typeof v === 'string') return names.get(v) ?? v;
    if (Array.isArray(v)) return v.map(rewrite);
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) if (!['source', 'file', 'module', 'hints', 'index'].includes(k)) out[k] = rewrite(x);
      return out;
    }
    return v;
  };
  return JSON.stringify(rewrite(value));
}

/** The first entry each side lacks, to point at a difference. */
function firstDifference(oneSource: string[], published: string[]): { only_one_source?: string; only_published?: string } {
  const [a, b] = [new Set(oneSource), new Set(published)];
  const onlyOne = oneSource.find((x) => !b.has(x));
  const onlyPublished = published.find((x) => !a.has(x));
  return { ...(onlyOne ? { only_one_source: onlyOne } : {}), ...(onlyPublished ? { only_published: onlyPublished } : {}) };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

async function runScale(admin: string, services: number, warmup: number): Promise<ScaleReport> {
  const root = mkdtempSync(join(tmpdir(), 'sextant-bench-pg-scale-'));
  try {
    const stats = await generateEstate(root, { services, filesPerService: FILES_PER_SERVICE });
    log(`postgres scale: ${services} services, ${stats.files} files`);
    const published = await newDatabase(admin);
    const single = await newDatabase(admin);
    const env = { XDG_CACHE_HOME: join(root, '.cache') };
    // One repository per service directory (`svc-00`, …), published under the directory's name.
    const repositories = readdirSync(root).filter((d) => d.startsWith('svc-')).sort();
    const queue = [...repositories];
    const runs: { seconds: number; rssMb: number }[] = [];
    const t0 = performance.now();
    const writer = async () => {
      for (let s = queue.shift(); s; s = queue.shift()) {
        const r = await cli(['index', join(root, s), '--source', s, '--store', published], env);
        if (r.code !== 0) throw new Error(`publishing ${s} failed: ${r.stderr.slice(-2000)}`);
        runs.push({ seconds: r.seconds, rssMb: r.rssMb });
        if (runs.length % 10 === 0) log(`postgres scale: ${runs.length}/${services} published`);
      }
    };
    await Promise.all([writer(), writer(), writer(), writer()]);
    const total = (performance.now() - t0) / 1000;
    const one = await cli(['index', root, '--store', single], { XDG_CACHE_HOME: join(root, '.cache-single') });
    if (one.code !== 0) throw new Error(`the one-source build failed: ${one.stderr.slice(-2000)}`);
    const ontology = sextantOntology();
    const [a, b] = [await openStore(ontology, published, 'read'), await openStore(ontology, single, 'read')];
    const linksOf = async (store: Store) => {
      const out: any[] = [];
      for (let offset = 0; ; offset += 2000) {
        const r = (await runTool({ store, ontology }, 'links', { include: 'all', limit: 2000, offset })) as Record<string, any>;
        if (r.ok !== true) throw new Error(`links failed: ${JSON.stringify(r.error)}`);
        out.push(...r.links);
        if (!r.has_more) return out;
      }
    };
    const linkKeys = (links: any[]) => links.map((l) => `${l.kind} ${l.service} ${l.name} ${l.status} ${l.member ?? ''} ${(l.targets ?? []).map((t: any) => t.qualified_name).join(',')}`).sort();
    const oneSourceLinks = await linksOf(b);
    const [la, lb] = [linkKeys(await linksOf(a)), linkKeys(oneSourceLinks)];
    // The trace from every service, and the impact of every route a client reaches, on both builds.
    const sameAnswers = async (tool: string, argsList: Record<string, unknown>[]): Promise<SameAnswers> => {
      const report: SameAnswers = { compared: argsList.length, equal: 0 };
      for (const args of argsList) {
        const [pa, pb] = [await comparable(a, await runTool({ store: a, ontology }, tool, args)), await comparable(b, await runTool({ store: b, ontology }, tool, args))];
        if (pa === pb) report.equal++;
        else if ((report.differ ??= []).length < 3) {
          let i = 0;
          while (pa[i] === pb[i]) i++;
          const at = Math.max(0, i - 150);
          report.differ.push({ args, one_source: pb.slice(at, i + 250), published: pa.slice(at, i + 250) });
        }
      }
      return report;
    };
    const traces = await sameAnswers('trace', stats.services.map((from) => ({ from })));
    const routes = [...new Set(oneSourceLinks.filter((l) => l.kind === 'http').flatMap((l) => (l.targets ?? []).map((t: any) => t.qualified_name as string)))].sort();
    const impacts = await sameAnswers('impact', routes.slice(0, 50).map((id) => ({ id })));
    const tools: ScaleReport['tools'] = {};
    const someService = stats.services[0]!;
    if (repositories.length !== services) throw new Error(`the generated estate has ${repositories.length} service directories, not ${services}`);
    const calls: Record<string, { args: Record<string, unknown> }[]> = {
      search: ['order service', 'payment client', 'controller', 'repository find'].map((query) => ({ args: { query } })),
      find: [{ args: { kind: 'route', filter: { service: someService } } }, { args: { kind: 'client' } }],
      resolve: stats.services.slice(0, 10).map((identifier) => ({ args: { identifier } })),
      describe: (await a.findNodes({ kinds: ['symbol'], predicates: [], limit: 20, offset: 0 })).nodes.map((n) => ({ args: { id: n.id } })),
      neighbors: (await a.findNodes({ kinds: ['route'], predicates: [], limit: 20, offset: 0 })).nodes.map((n) => ({ args: { id: n.id, direction: 'both', edge_types: ['EXPOSES', 'HTTP_CALLS', 'FORWARDS'] } })),
    };
    for (const tool of TOOLS) {
      const list = calls[tool]!;
      if (list.length === 0) continue;
      const all = Array.from({ length: 60 + warmup }, (_, i) => ({ tool, args: list[i % list.length]!.args }));
      const r = await timeTool({ store: a, ontology }, tool, all, warmup);
      tools[tool] = { calls: r.calls, p95_ms: r.p95_ms, median_ms: r.median_ms, errors: r.errors, empty: r.empty, ...(r.error_samples ? { error_samples: r.error_samples.slice(0, 2) } : {}) };
    }
    await a.close();
    await b.close();
    return {
      services,
      files: stats.files,
      writers: 4,
      total_seconds: round(total, 1),
      publication_seconds: { median: round(median(runs.map((r) => r.seconds)), 1), max: round(Math.max(...runs.map((r) => r.seconds)), 1) },
      writer_peak_rss_mb: { median: median(runs.map((r) => r.rssMb)), max: Math.max(...runs.map((r) => r.rssMb)) },
      tools,
      links: { one_source: lb.length, published: la.length, equal: JSON.stringify(la) === JSON.stringify(lb), ...firstDifference(lb, la) },
      traces,
      impacts,
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
