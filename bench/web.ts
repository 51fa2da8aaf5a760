/**
 * The web page (`sextant ui`) on a 100-service estate, in headless Chromium: how long a person waits for the service
 * map, a service and a request trace, and whether the map is laid out the same way every time.
 *
 * The synthetic Spring estate of estate.ts (100 services of 14 files: the fewest that still give each service its
 * entities, a Feign client to another service, a Kafka listener on another service's topic and a producer) is
 * indexed by the CLI, then served by `sextant ui --port 0` (both the launcher compiled with the bench, cli-bin.ts; the
 * page itself is the one `npm run build` wrote to dist/ui). Chromium (Debian's, driven by playwright-core; nothing
 * downloads a browser) opens the page in a new context per run and, per run:
 *   - `#/`: first contentful paint, navigation start → `window.sextant.ready`, and the page's own `layoutMs` (ELK)
 *     and `firstMapMs` (the service_map call, layout and draw), the node positions and the nodes and edges drawn;
 *   - `#/service/<busiest service>` from the map: hash change → ready;
 *   - `#/trace/<a route of that service>` (the one of its first five routes whose trace crosses the most services):
 *     hash change → ready, and the trace's steps drawn.
 * Readiness is timed in the page: an init script wraps `window.sextant.ready` with a setter that notes
 * `performance.now()` when it turns true, so the time is when the view was drawn, not when the bench polled.
 * A view that sets `window.sextant.error`, or an uncaught page error, counts as an error (a bug); positions that
 * differ between runs make `layout_stable` false.
 *
 * Environment: SEXTANT_BENCH_WEB_RUNS (default 5), SEXTANT_BENCH_WEB_SERVICES (default 100),
 * SEXTANT_BENCH_CHROMIUM (default /usr/bin/chromium; missing: the section is skipped), SEXTANT_BENCH_WEB_SCREENSHOT
 * (a .png path: the map of the first run is saved there).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import type { PageState } from '../src/surfaces/web/page/state.js';
import { DEFAULT_CHROMIUM, launchChromium, startUi, type UiProcess } from '../test/helpers/web.js';
import { sextantOntology } from '../src/graph/ontology/index.js';
import { openStore } from '../src/graph/open.js';
import { generateEstate } from './estate.js';
import { envInt, log, mb, round } from './util.js';

/** Medians on the 100-service estate, 2-core machine. Reported, not enforced: a busy machine makes a slow page. */
export const WEB_BUDGETS = {
  /** Navigation start → first contentful paint. */
  first_paint_median_ms_max: 500,
  /** The page stays responsive: no main-thread task this long while the map loads (ELK runs in a worker). */
  longest_task_median_ms_max: 500,
  /** Navigation start → the map drawn and `ready`. */
  map_ready_median_ms_max: 3500,
  /** ELK's layered layout of the whole map (in its worker, cold), as the page times it. */
  layout_median_ms_max: 2000,
} as const;

const REPO = resolve(import.meta.dirname, '..', '..');
/** Source files per service: the fewest for which estate.ts gives a service an entity, its Feign client and its Kafka listener and producer. */
const FILES_PER_SERVICE = 14;
/** Longest wait for one view. */
const VIEW_TIMEOUT_MS = 60_000;

export interface WebOptions {
  runs: number;
  services: number;
  chromium: string;
  screenshot?: string;
  keep: boolean;
}

export function webOptions(env: Record<string, string | undefined>, overrides: { keep: boolean }): WebOptions {
  return {
    runs: envInt(env, 'SEXTANT_BENCH_WEB_RUNS', 5, 2),
    services: envInt(env, 'SEXTANT_BENCH_WEB_SERVICES', 100, 2),
    chromium: env['SEXTANT_BENCH_CHROMIUM'] || DEFAULT_CHROMIUM,
    ...(env['SEXTANT_BENCH_WEB_SCREENSHOT'] ? { screenshot: env['SEXTANT_BENCH_WEB_SCREENSHOT'] } : {}),
    keep: overrides.keep,
  };
}

/** Median and max of a handful of runs, with the samples (there are few). */
export interface RunStats {
  median_ms: number;
  max_ms: number;
  samples_ms: number[];
}

function stats(samples: readonly number[]): RunStats {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length === 0 ? 0 : sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median_ms: round(median, 1), max_ms: round(sorted[sorted.length - 1] ?? 0, 1), samples_ms: samples.map((s) => round(s, 1)) };
}

export interface WebReport {
  skipped?: string;
  description?: string;
  estate?: { services: number; files_per_service: number; files: number; lines: number; generate_seconds: number };
  index?: { seconds: number; nodes: number; edges: number; services: number; service_calls_edges: number };
  /** What service_map answers (what the map draws). */
  service_map?: { services: number; calls: number; by_protocol: Record<string, number>; external: number; open: number; call_seconds: number };
  browser?: string;
  /** The page in dist/ui is older than a file of src/surfaces/web/page: run `npm run build` to time the current page. */
  page_build_stale?: boolean;
  runs?: number;
  views?: { service: string; trace_route: string; trace_route_id: string; trace_crossings: number };
  map?: {
    first_contentful_paint: RunStats;
    ready: RunStats;
    layout: RunStats;
    first_map: RunStats;
    /** Navigation start → the page asks for service_map (HTML, the script bundle loaded, parsed and run): ready − first_map. */
    before_map_call: RunStats;
    /** Main-thread tasks over 50 ms before the map was ready (Long Tasks API): the longest, and their sum. */
    longest_main_thread_task: RunStats;
    long_tasks_total: RunStats;
    nodes_drawn: number;
    services_drawn: number;
    edges_drawn: number | null;
  };
  service_view?: { ready: RunStats };
  trace_view?: { ready: RunStats; steps_drawn: number };
  layout_stable?: boolean;
  /** Nodes whose position differs from run 1's, in the first run that differs (up to 5). */
  layout_differences?: string[];
  server?: { peak_rss_mb: number | null; rss_at_end_mb: number | null };
  budgets?: typeof WEB_BUDGETS;
  within_budget?: Record<string, unknown>;
  errors: number;
  error_samples?: string[];
}

// ------------------------------------------------------------------------------------------------ processes

interface Ran {
  ms: number;
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(args: readonly string[]): Promise<Ran> {
  const bin = fileURLToPath(new URL('./cli-bin.js', import.meta.url));
  return new Promise((done, fail) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 4000) stderr += chunk.toString();
    });
    child.on('error', fail);
    child.on('close', (code) => done({ ms: performance.now() - t0, code, stdout: Buffer.concat(out).toString(), stderr }));
  });
}

async function callTool(store: string, tool: string, args: unknown): Promise<{ answer: Record<string, any>; ms: number }> {
  const r = await run(['call', tool, JSON.stringify(args), '--store', store]);
  if (r.code !== 0) throw new Error(`sextant call ${tool} failed (exit ${r.code}): ${r.stderr.trim() || r.stdout.slice(0, 500)}`);
  return { answer: JSON.parse(r.stdout) as Record<string, any>, ms: r.ms };
}


/** Peak and current resident set of a process, from /proc (Linux; null elsewhere). */
function procRss(pid: number | undefined): { peak_rss_mb: number | null; rss_at_end_mb: number | null } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => {
      const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
      return m ? mb(Number(m[1]) * 1024) : null;
    };
    return { peak_rss_mb: kb('VmHWM'), rss_at_end_mb: kb('VmRSS') };
  } catch {
    return { peak_rss_mb: null, rss_at_end_mb: null };
  }
}

/** Whether a file of the page's source is newer than the built page. */
function pageBuildStale(pageDir: string): boolean {
  const built = statSync(join(pageDir, 'assets', 'app.js')).mtimeMs;
  const src = join(REPO, 'src', 'surfaces', 'web', 'page');
  if (!existsSync(src)) return false;
  return readdirSync(src).some((f) => statSync(join(src, f)).mtimeMs > built);
}

// ------------------------------------------------------------------------------------------------ in the page

interface ReadyMark {
  view: string;
  at: number;
  error: string | null;
}
/** What the page exposes (main.ts) and what the init script adds (`__bench`). */
interface PageGlobal {
  sextant?: PageState;
  __bench: { marks: ReadyMark[]; longTasks: { start: number; duration: number }[] };
  location: { hash: string };
  PerformanceObserver: new (cb: (list: { getEntries(): { startTime: number; duration: number }[] }) => void) => { observe(o: { type: string; buffered?: boolean }): void };
  document: { querySelectorAll(selector: string): { length: number } };
}

/**
 * Runs in the page before its scripts: notes when `window.sextant.ready` turns true, for which view, with what error,
 * and the main thread's long tasks (over 50 ms: the page does not answer input meanwhile).
 */
function readyProbe(): void {
  const g = globalThis as unknown as PageGlobal;
  const marks: ReadyMark[] = [];
  const longTasks: { start: number; duration: number }[] = [];
  g.__bench = { marks, longTasks };
  try {
    new g.PerformanceObserver((list) => {
      for (const e of list.getEntries()) longTasks.push({ start: e.startTime, duration: e.duration });
    }).observe({ type: 'longtask', buffered: true });
  } catch {
    /* no long task timing in this browser */
  }
  let state: PageGlobal['sextant'];
  Object.defineProperty(g, 'sextant', {
    configurable: true,
    enumerable: true,
    get: () => state,
    set(value: NonNullable<PageGlobal['sextant']>) {
      state = value;
      let ready = value.ready;
      Object.defineProperty(value, 'ready', {
        configurable: true,
        enumerable: true,
        get: () => ready,
        set(next: boolean) {
          ready = next;
          if (next) marks.push({ view: value.view, at: performance.now(), error: value.error ?? null });
        },
      });
    },
  });
}

/** Waits for the first ready mark of `view` after mark `after`. */
async function untilReady(page: Page, view: string, after: number): Promise<ReadyMark> {
  const handle = await page.waitForFunction(
    ([v, n]) => (globalThis as unknown as PageGlobal).__bench.marks.slice(n).find((m) => m.view === v),
    [view, after] as const,
    { timeout: VIEW_TIMEOUT_MS, polling: 50 },
  );
  return (await handle.jsonValue()) as ReadyMark;
}

/** Sets the hash and times hash change → ready, in the page's clock. */
async function timeHash(page: Page, hash: string, view: string): Promise<ReadyMark & { ms: number }> {
  const { t0, before } = await page.evaluate((h) => {
    const g = globalThis as unknown as PageGlobal;
    const before = g.__bench.marks.length;
    const t0 = performance.now();
    g.location.hash = h;
    return { t0, before };
  }, hash);
  const mark = await untilReady(page, view, before);
  return { ...mark, ms: mark.at - t0 };
}

interface OneRun {
  fcp: number | null;
  ready: number;
  /** The longest main-thread task before the map was ready, and all long tasks' time summed. */
  longestTask: number | null;
  longTasksTotal: number | null;
  layout: number | null;
  firstMap: number | null;
  positions: Record<string, { x: number; y: number }>;
  edges: number | null;
  service: number;
  trace: number;
  traceSteps: number;
  errors: string[];
}

async function onePageRun(browser: Browser, url: string, service: string, routeId: string, screenshot: string | undefined): Promise<OneRun> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  try {
    await context.addInitScript(readyProbe);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(`console error: ${m.text()}`);
    });
    await page.goto(`${url}#/`, { waitUntil: 'commit' });
    const map = await untilReady(page, 'map', 0);
    if (map.error) errors.push(`#/: ${map.error}`);
    const measured = await page.evaluate(async (readyAt) => {
      const g = globalThis as unknown as PageGlobal & { performance: { getEntriesByName(name: string): { startTime: number }[] } };
      const s = g.sextant!;
      // Long task entries arrive after their task ends.
      await new Promise((done) => setTimeout(done, 100));
      const before = g.__bench.longTasks.filter((t) => t.start < readyAt);
      return {
        longestTask: before.length ? Math.max(...before.map((t) => t.duration)) : 0,
        longTasksTotal: before.reduce((n, t) => n + t.duration, 0),
        fcp: g.performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null,
        layout: s.layoutMs ?? null,
        firstMap: s.firstMapMs ?? null,
        positions: s.positions?.() ?? {},
        edges: s.visibleEdges ? s.visibleEdges().length : null,
      };
    }, map.at);
    if (screenshot) {
      // After the map's 200 ms fit animation.
      await page.waitForTimeout(400);
      await page.screenshot({ path: screenshot });
    }
    const svc = await timeHash(page, `#/service/${encodeURIComponent(service)}`, 'service');
    if (svc.error) errors.push(`#/service/${service}: ${svc.error}`);
    const trace = await timeHash(page, `#/trace/${encodeURIComponent(routeId)}`, 'trace');
    if (trace.error) errors.push(`#/trace/${routeId}: ${trace.error}`);
    const traceSteps = await page.evaluate(() => (globalThis as unknown as PageGlobal).document.querySelectorAll('.trace .step').length);
    return { ...measured, ready: map.at, service: svc.ms, trace: trace.ms, traceSteps, errors };
  } finally {
    await context.close();
  }
}

function positionDifferences(a: Record<string, { x: number; y: number }>, b: Record<string, { x: number; y: number }>): string[] {
  const out: string[] = [];
  for (const id of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const p = a[id];
    const q = b[id];
    if (!p || !q || p.x !== q.x || p.y !== q.y) out.push(`${id}: ${p ? `${p.x},${p.y}` : 'absent'} vs ${q ? `${q.x},${q.y}` : 'absent'}`);
  }
  return out;
}

// ------------------------------------------------------------------------------------------------ the section

export async function runWeb(opts: WebOptions): Promise<WebReport> {
  if (!existsSync(opts.chromium)) {
    const skipped = `no Chromium at ${opts.chromium} (set SEXTANT_BENCH_CHROMIUM)`;
    log(`web: skipped (${skipped})`);
    return { skipped, errors: 0 };
  }
  const pageDir = join(REPO, 'dist', 'ui');
  if (!existsSync(join(pageDir, 'index.html')) || !existsSync(join(pageDir, 'assets', 'app.js'))) {
    const skipped = `the web page is not built (${pageDir}): run \`npm run build\``;
    log(`web: skipped (${skipped})`);
    return { skipped, errors: 0 };
  }
  const stale = pageBuildStale(pageDir);
  if (stale) log('web: dist/ui is older than src/surfaces/web/page: this times the page as last built (npm run build)');

  const dir = mkdtempSync(join(tmpdir(), 'sextant-bench-web-'));
  const estateDir = join(dir, 'estate');
  const store = join(dir, 'index');
  let ui: UiProcess | undefined;
  let browser: Browser | undefined;
  try {
    log(`web: generating ${opts.services} services × ${FILES_PER_SERVICE} files`);
    const t0 = performance.now();
    const estate = await generateEstate(estateDir, { services: opts.services, filesPerService: FILES_PER_SERVICE });
    const generateSeconds = (performance.now() - t0) / 1000;

    log(`web: indexing ${estate.files} files`);
    const indexed = await run(['index', estateDir, '--store', store]);
    if (indexed.code !== 0) throw new Error(`sextant index failed (exit ${indexed.code}): ${indexed.stderr.trim()}`);
    const reader = await openStore(sextantOntology(), store, 'read');
    const counts = (await reader.meta()).counts;
    await reader.close();
    const serviceNodes = counts.by_kind['service'] ?? 0;
    const serviceCalls = counts.by_edge_type['SERVICE_CALLS'] ?? 0;
    log(`web: indexed in ${round(indexed.ms / 1000, 1)} s: ${counts.nodes} nodes, ${counts.edges} edges, ${serviceNodes} services, ${serviceCalls} SERVICE_CALLS`);

    const { answer: map, ms: mapMs } = await callTool(store, 'service_map', {});
    const services = map.services as { name: string }[];
    const calls = map.calls as { from: string; to: string; protocol: string }[];
    const byProtocol: Record<string, number> = {};
    for (const c of calls) byProtocol[c.protocol] = (byProtocol[c.protocol] ?? 0) + 1;
    if (services.length !== opts.services) throw new Error(`service_map lists ${services.length} services, expected ${opts.services} (an estate or indexer regression)`);
    if (calls.length < opts.services) throw new Error(`service_map has only ${calls.length} service-to-service edges for ${opts.services} services (each has a Feign client and a Kafka listener)`);

    // The view targets: the service with the most map edges (ties by name), and of its first five routes the one
    // whose trace crosses the most services.
    const degree = new Map<string, number>();
    for (const c of calls) for (const s of [c.from, c.to]) degree.set(s, (degree.get(s) ?? 0) + 1);
    const service = [...degree].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]![0];
    const routes = (await callTool(store, 'find', { kind: 'route', filter: { service }, limit: 5 })).answer.results as { id: string; qualified_name: string }[];
    if (!routes.length) throw new Error(`find lists no route of ${service}`);
    let traced: { id: string; name: string; crossings: number } | undefined;
    for (const r of routes) {
      const t = (await callTool(store, 'trace', { from: r.id })).answer;
      const crossings = (t.crossings as unknown[] | undefined)?.length ?? 0;
      if (!traced || crossings > traced.crossings) traced = { id: r.id, name: r.qualified_name, crossings };
    }
    log(`web: views #/service/${service} and #/trace/${traced!.id} (${traced!.name}, ${traced!.crossings} crossings)`);

    ui = await startUi(fileURLToPath(new URL('./cli-bin.js', import.meta.url)), ['--store', store]);
    const started = ui;
    log(`web: ${started.url} (pid ${ui.child.pid})`);
    browser = await launchChromium(opts.chromium);
    const version = browser.version();

    const runs: OneRun[] = [];
    for (let i = 0; i < opts.runs; i++) {
      const r = await onePageRun(browser, started.url, service, traced!.id, i === 0 ? opts.screenshot : undefined);
      runs.push(r);
      log(`web run ${i + 1}: fcp ${r.fcp === null ? '?' : round(r.fcp, 0)} ms, map ready ${round(r.ready, 0)} ms (layout ${r.layout === null ? '?' : round(r.layout, 0)}, first map ${r.firstMap === null ? '?' : round(r.firstMap, 0)}, longest task ${r.longestTask === null ? '?' : round(r.longestTask, 0)}), service ${round(r.service, 0)} ms, trace ${round(r.trace, 0)} ms${r.errors.length ? `, ${r.errors.length} error(s)` : ''}`);
    }
    const server = procRss(ui.child.pid);

    const first = runs[0]!;
    let differences: string[] = [];
    for (const r of runs.slice(1)) {
      differences = positionDifferences(first.positions, r.positions);
      if (differences.length) break;
    }
    const stable = differences.length === 0 && Object.keys(first.positions).length > 0;
    const nodeIds = Object.keys(first.positions);
    const errorSamples = runs.flatMap((r) => r.errors);
    const numbers = (pick: (r: OneRun) => number | null) => stats(runs.map(pick).filter((n): n is number => n !== null));
    const mapReady = numbers((r) => r.ready);
    const layout = numbers((r) => r.layout);
    const fcp = numbers((r) => r.fcp);
    const longest = numbers((r) => r.longestTask);
    const within: Record<string, unknown> = {
      first_paint_median_ms: { value: fcp.median_ms, max: WEB_BUDGETS.first_paint_median_ms_max, pass: fcp.samples_ms.length > 0 && fcp.median_ms <= WEB_BUDGETS.first_paint_median_ms_max },
      longest_task_median_ms: { value: longest.median_ms, max: WEB_BUDGETS.longest_task_median_ms_max, pass: longest.median_ms <= WEB_BUDGETS.longest_task_median_ms_max },
      map_ready_median_ms: { value: mapReady.median_ms, max: WEB_BUDGETS.map_ready_median_ms_max, pass: mapReady.median_ms <= WEB_BUDGETS.map_ready_median_ms_max },
      layout_median_ms: { value: layout.median_ms, max: WEB_BUDGETS.layout_median_ms_max, pass: layout.samples_ms.length > 0 && layout.median_ms <= WEB_BUDGETS.layout_median_ms_max },
    };
    within.all = Object.values(within).every((v) => (v as { pass: boolean }).pass);
    log(`web: map ready median ${mapReady.median_ms} ms (budget ${WEB_BUDGETS.map_ready_median_ms_max}), layout median ${layout.median_ms} ms (budget ${WEB_BUDGETS.layout_median_ms_max}), layout stable ${stable}, errors ${errorSamples.length}`);
    return {
      description: `sextant ui on a generated Spring estate (${opts.services} services) in headless Chromium: the map, a service and a trace, ${opts.runs} runs in fresh browser contexts`,
      estate: { services: opts.services, files_per_service: FILES_PER_SERVICE, files: estate.files, lines: estate.lines, generate_seconds: round(generateSeconds) },
      index: { seconds: round(indexed.ms / 1000), nodes: counts.nodes, edges: counts.edges, services: serviceNodes, service_calls_edges: serviceCalls },
      service_map: { services: services.length, calls: calls.length, by_protocol: byProtocol, external: (map.external as unknown[]).length, open: (map.open as unknown[]).length, call_seconds: round(mapMs / 1000) },
      browser: `chromium ${version}`,
      page_build_stale: stale,
      runs: opts.runs,
      views: { service, trace_route: traced!.name, trace_route_id: traced!.id, trace_crossings: traced!.crossings },
      map: {
        first_contentful_paint: numbers((r) => r.fcp),
        ready: mapReady,
        layout,
        first_map: numbers((r) => r.firstMap),
        before_map_call: numbers((r) => (r.firstMap === null ? null : r.ready - r.firstMap)),
        longest_main_thread_task: numbers((r) => r.longestTask),
        long_tasks_total: numbers((r) => r.longTasksTotal),
        nodes_drawn: nodeIds.length,
        services_drawn: nodeIds.filter((id) => id.startsWith('svc:')).length,
        edges_drawn: first.edges,
      },
      service_view: { ready: numbers((r) => r.service) },
      trace_view: { ready: numbers((r) => r.trace), steps_drawn: first.traceSteps },
      layout_stable: stable,
      ...(differences.length ? { layout_differences: differences.slice(0, 5) } : {}),
      server,
      budgets: WEB_BUDGETS,
      within_budget: within,
      errors: errorSamples.length,
      ...(errorSamples.length ? { error_samples: errorSamples.slice(0, 10) } : {}),
    };
  } finally {
    await browser?.close().catch(() => undefined);
    await ui?.stop();
    if (!opts.keep) rmSync(dir, { recursive: true, force: true });
    else log(`web: estate and index kept in ${dir}`);
  }
}
