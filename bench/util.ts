/** Shared pieces of the benchmark: a seeded PRNG, a Zipf sampler, latency statistics, memory sampling, timing. */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { runTool, type ToolContext } from '../src/query/index.js';

// ------------------------------------------------------------------------------------------------ randomness

/** Small, fast, seeded PRNG (mulberry32). Deterministic across runs and platforms; never Math.random. */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  /** Uniform in [0, 1). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  /** Uniform integer in [lo, hi]. */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[this.int(items.length)]!;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  /** Fisher–Yates shuffle of a copy. */
  shuffled<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  }
}

/** Zipf(s) over ranks 0..n-1 (rank 0 most likely), sampled by binary search over the cumulative weights. */
export class Zipf {
  private readonly cdf: Float64Array;
  constructor(
    readonly n: number,
    s: number,
  ) {
    this.cdf = new Float64Array(n);
    let sum = 0;
    for (let i = 0; i < n; i++) {
      sum += 1 / Math.pow(i + 1, s);
      this.cdf[i] = sum;
    }
    for (let i = 0; i < n; i++) this.cdf[i] = this.cdf[i]! / sum;
  }
  sample(rng: Rng): number {
    const u = rng.next();
    let lo = 0;
    let hi = this.n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.cdf[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

// ------------------------------------------------------------------------------------------------ statistics

export interface LatencyStats {
  calls: number;
  errors: number;
  median_ms: number;
  p95_ms: number;
  max_ms: number;
  mean_ms: number;
}

export function round(n: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

/** Nearest-rank percentile of an ascending list. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export function latencyStats(samples: readonly number[], errors: number): LatencyStats {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length);
  return {
    calls: sorted.length,
    errors,
    median_ms: round(percentile(sorted, 50)),
    p95_ms: round(percentile(sorted, 95)),
    max_ms: round(sorted[sorted.length - 1] ?? 0),
    mean_ms: round(mean),
  };
}

// ------------------------------------------------------------------------------------------------ memory, files

/** Tracks the largest resident set size seen at the points where `sample()` is called. */
export class RssSampler {
  peak = 0;
  sample(): void {
    const rss = process.memoryUsage.rss();
    if (rss > this.peak) this.peak = rss;
  }
}

export function mb(bytes: number): number {
  return round(bytes / (1024 * 1024), 1);
}

/** Size of an index on disk: the database file plus its WAL and shared-memory files, when present. */
export function storeBytes(dir: string): number {
  let total = 0;
  for (const suffix of ['', '-wal', '-shm']) {
    try {
      total += statSync(join(dir, `index.db${suffix}`)).size;
    } catch {
      /* absent */
    }
  }
  return total;
}

export function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

export function gc(): void {
  const g = (globalThis as { gc?: () => void }).gc;
  if (g) g();
}

// ------------------------------------------------------------------------------------------------ timing tools

export interface ToolCall {
  tool: string;
  args: Record<string, unknown>;
  /** What the call stands for, for reports of errors and the slowest calls. */
  label?: string;
}

/** What both bench graphs report about their index build. */
export interface IndexStats {
  seconds: number;
  nodes: number;
  edges: number;
  nodes_per_s: number;
  edges_per_s: number;
  store_bytes: number;
  store_mb: number;
  by_kind: Record<string, number>;
}

export interface ToolReport extends LatencyStats {
  /** The slowest calls, to point an investigation at them. */
  slowest: { ms: number; args: Record<string, unknown> }[];
  /** First few `{ok: false}` answers. */
  error_samples?: { args: Record<string, unknown>; error: unknown }[];
  /** Calls that answered with nothing (status none, no results, no edges): expected for misses. */
  empty: number;
  /** The same statistics per kind of call (the workload's labels), slowest p95 first. */
  by_case?: Record<string, { calls: number; median_ms: number; p95_ms: number; max_ms: number }>;
}

function isEmptyAnswer(result: Record<string, unknown>): boolean {
  if (result.status === 'none') return true;
  if (Array.isArray(result.results) && result.results.length === 0) return true;
  if (Array.isArray(result.edges) && result.edges.length === 0) return true;
  return false;
}

/**
 * Runs `calls` through `runTool` (as a surface would): the first `warmup` untimed (they warm the page cache and
 * the prepared statements), the rest timed one by one. `{ok: false}` answers count as errors, warm-up included.
 */
export async function timeTool(ctx: ToolContext, tool: string, all: readonly ToolCall[], warmup: number): Promise<ToolReport> {
  let errors = 0;
  const errorSamples: { args: Record<string, unknown>; error: unknown }[] = [];
  for (const call of all.slice(0, warmup)) {
    const result = (await runTool(ctx, tool, call.args)) as Record<string, unknown>;
    if (result.ok !== true) {
      errors++;
      if (errorSamples.length < 5) errorSamples.push({ args: call.args, error: result.error });
    }
  }
  const calls = all.slice(warmup);
  const samples: number[] = [];
  const byLabel = new Map<string, number[]>();
  const timed: { ms: number; args: Record<string, unknown> }[] = [];
  let empty = 0;
  for (const call of calls) {
    const t0 = performance.now();
    const result = (await runTool(ctx, tool, call.args)) as Record<string, unknown>;
    const ms = performance.now() - t0;
    samples.push(ms);
    timed.push({ ms, args: call.args });
    if (call.label) {
      const list = byLabel.get(call.label) ?? [];
      list.push(ms);
      byLabel.set(call.label, list);
    }
    if (result.ok !== true) {
      errors++;
      if (errorSamples.length < 5) errorSamples.push({ args: call.args, error: result.error });
    } else if (isEmptyAnswer(result)) empty++;
  }
  timed.sort((a, b) => b.ms - a.ms);
  const cases = [...byLabel.entries()]
    .map(([label, list]) => {
      const { calls: n, median_ms, p95_ms, max_ms } = latencyStats(list, 0);
      return [label, { calls: n, median_ms, p95_ms, max_ms }] as const;
    })
    .sort(([a, x], [b, y]) => y.p95_ms - x.p95_ms || a.localeCompare(b));
  return {
    ...latencyStats(samples, errors),
    empty,
    ...(cases.length ? { by_case: Object.fromEntries(cases) } : {}),
    slowest: timed.slice(0, 3).map((t) => ({ ms: round(t.ms), args: t.args })),
    ...(errorSamples.length ? { error_samples: errorSamples } : {}),
  };
}

/** A whole-number setting from the environment, at least `min`; unset or blank: `fallback`. */
export function envInt(env: Record<string, string | undefined>, name: string, fallback: number, min: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new Error(`${name} must be a whole number; got ${JSON.stringify(raw)}`);
  return Math.max(min, Number(raw));
}
