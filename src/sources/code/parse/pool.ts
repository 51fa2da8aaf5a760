import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Language } from './ir.js';
import { type ParseJob, type ParseResult, runJob } from './job.js';
import { ParseQueue } from './queue.js';

/** Below this many files, starting workers (each loads the parser runtime and grammars) costs more than it saves. */
const MIN_JOBS_FOR_WORKERS = 100;
const MAX_WORKERS = 4;
const JOBS_IN_FLIGHT = 4;

/**
 * How many worker threads parse beside this one: `SEXTANT_PARSE_WORKERS` when set (0: this thread alone); else,
 * for a large enough batch, one per core but one (at most 4). This thread always parses too.
 */
export function parseWorkerCount(jobs: number, env: Readonly<Record<string, string | undefined>>): number {
  const configured = env.SEXTANT_PARSE_WORKERS;
  if (configured !== undefined && configured !== '') {
    if (!/^\d+$/.test(configured)) throw new Error(`SEXTANT_PARSE_WORKERS must be a whole number (0 parses on the main thread); got ${JSON.stringify(configured)}`);
    return Math.min(Number(configured), 16);
  }
  const cores = availableParallelism();
  return jobs >= MIN_JOBS_FOR_WORKERS ? Math.min(cores - 1, MAX_WORKERS) : 0;
}

/**
 * Runs parse jobs on this thread and `workers` more, calling `onResult` as each finishes. A job whose worker
 * fails is run again on this thread, so a crashed worker loses nothing.
 */
export async function runParseJobs(jobs: readonly ParseJob[], workers: number, onResult: (job: ParseJob, result: ParseResult) => void): Promise<void> {
  if (workers <= 0 || jobs.length === 0) {
    for (const job of jobs) onResult(job, await runJob(job));
    return;
  }
  // Under tsx (tests, scripts) this module is TypeScript, and so is the worker.
  const url = new URL(import.meta.url.endsWith('.ts') ? './worker.ts' : './worker.js', import.meta.url);
  const queue = new ParseQueue(jobs);
  const retry: ParseJob[] = [];
  const lane = (): Promise<void> =>
    new Promise((done) => {
      const worker = new Worker(url);
      const warm = new Set<Language>();
      // Several jobs in flight: a worker that had to wait for this thread to finish its own job before it got
      // the next one would sit idle half the time.
      const inFlight = new Map<number, ParseJob>();
      const feed = (): void => {
        while (inFlight.size < JOBS_IN_FLIGHT) {
          const job = queue.take(warm);
          if (!job) break;
          inFlight.set(job.id, job);
          worker.postMessage(job);
        }
        if (inFlight.size === 0) void worker.terminate().then(() => done());
      };
      worker.on('message', (result: ParseResult) => {
        const job = inFlight.get(result.id)!;
        inFlight.delete(result.id);
        onResult(job, result);
        feed();
      });
      // A worker that fails, or exits without saying why, leaves its jobs in flight to this thread.
      const lost = (): void => {
        retry.push(...inFlight.values());
        inFlight.clear();
        done();
      };
      worker.on('error', lost);
      worker.on('exit', lost);
      feed();
    });
  // This thread takes the first job, so it (already running, unlike a starting worker) claims the largest
  // language; then it takes jobs from the same queue between handling results.
  const warm = new Set<Language>();
  const first = queue.take(warm);
  const own = async (): Promise<void> => {
    for (let job = first; job; job = queue.take(warm)) {
      onResult(job, await runJob(job));
      await new Promise((tick) => setImmediate(tick));
    }
  };
  await Promise.all([...Array.from({ length: Math.min(workers, jobs.length) }, lane), own()]);
  // What no thread took up (too little to repay a warm-up), and the jobs a dead worker had in flight.
  for (let job = queue.take(warm, true); job; job = queue.take(warm, true)) onResult(job, await runJob(job));
  for (const job of retry) onResult(job, await runJob(job));
}
