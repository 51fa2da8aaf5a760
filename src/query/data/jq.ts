import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { megabytes } from '../../config/endpoint.js';
import type { JqJob, JqReply, JqStarted } from './jq-worker.js';

/** How long one filter may run before its worker is stopped. */
export const JQ_TIMEOUT_MS = 5_000;
/** How long a worker may take to load jq and begin a filter (a busy machine starts threads slowly). */
const JQ_START_TIMEOUT_MS = 30_000;
/** Largest output a filter may write (JSON text); past it the filter is stopped and fails. */
export const JQ_MAX_OUTPUT_BYTES = 16 * 1024 * 1024;
/** Filters running at once (one worker each); more wait their turn. */
export const JQ_MAX_WORKERS = 2;
/** Filters waiting for a worker; past this, a filter is refused at once. */
export const JQ_MAX_WAITING = 32;
/** V8 heap limits of a jq worker (jq's own heap is WebAssembly memory, capped by jq-wasm at 256 MB). */
const RESOURCE_LIMITS = { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 32 };
/** A worker whose jq heap grew past this, or that wrote more than KEEP_WRITTEN, is ended after its run. */
const KEEP_HEAP_BYTES = 64 * 1024 * 1024;
const KEEP_WRITTEN = 1024 * 1024;
/** Idle workers kept for the next filter (each holds a jq instance, a few MB). */
const KEEP_IDLE = 1;

/** A compiled WebAssembly module (the TypeScript lib here does not declare WebAssembly). */
type WasmModule = object;
const WASM = (globalThis as unknown as { WebAssembly: { Module: new (bytes: Uint8Array) => WasmModule } }).WebAssembly;

let wasm: WasmModule | undefined;
/** jq's WebAssembly, compiled once here and shared by every worker (no worker compiles it again). */
function jqModule(): WasmModule {
  if (!wasm) {
    const entry = createRequire(import.meta.url).resolve('jq-wasm');
    wasm = new WASM.Module(readFileSync(join(dirname(entry), 'build', 'jq.wasm')));
  }
  return wasm;
}

function options(workerData: unknown): WorkerOptions {
  return { workerData, resourceLimits: RESOURCE_LIMITS };
}

function start(): Worker {
  const workerData = { module: jqModule(), maxOutputBytes: JQ_MAX_OUTPUT_BYTES };
  // Built: dist/query/data/jq-worker.js beside this file. Under tsx (tests), the .ts source, loaded through tsx's
  // loader registered in the worker first (a worker does not inherit the parent's loader hooks).
  const w = import.meta.url.endsWith('.ts')
    ? new Worker(new URL(`data:text/javascript,${encodeURIComponent(`import { register } from ${JSON.stringify(import.meta.resolve('tsx/esm/api'))}; register(); await import(${JSON.stringify(new URL('./jq-worker.ts', import.meta.url).href)});`)}`), options(workerData))
    : new Worker(new URL('./jq-worker.js', import.meta.url), options(workerData));
  return w;
}

// ---------------------------------------------------------------------------------------------------------------
// Slots: at most JQ_MAX_WORKERS filters run at once.

let running = 0;
const waiting: (() => void)[] = [];
const idle: Worker[] = [];

function acquire(): Promise<void> {
  if (running < JQ_MAX_WORKERS) {
    running++;
    return Promise.resolve();
  }
  if (waiting.length >= JQ_MAX_WAITING) return Promise.reject(new Error(`${JQ_MAX_WORKERS} filters are running and ${JQ_MAX_WAITING} waiting; try again in a moment`));
  return new Promise((go) => waiting.push(go));
}

function release(): void {
  const next = waiting.shift();
  if (next) next();
  else running--;
}

/** Keeps a worker for the next filter, or ends it; an idle worker never keeps the process alive. */
function park(w: Worker, keep: boolean): void {
  if (keep && idle.length < KEEP_IDLE) {
    unlisten(w);
    // A worker that fails while idle is dropped.
    w.once('error', () => drop(w));
    w.once('exit', () => drop(w));
    w.unref();
    idle.push(w);
  } else void w.terminate();
}

function unlisten(w: Worker): void {
  w.removeAllListeners('message');
  w.removeAllListeners('error');
  w.removeAllListeners('exit');
}

function drop(w: Worker): void {
  const i = idle.indexOf(w);
  if (i >= 0) idle.splice(i, 1);
}

function run(w: Worker, filter: string, input: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const job: JqJob = { filter, input };
    let settled = false;
    const done = (keep: boolean, outcome: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      park(w, keep);
      outcome();
    };
    const stop = (message: string) => () => done(false, () => reject(new Error(message)));
    // The filter's own time counts from when the worker begins it, not from the worker's start-up.
    let timer = setTimeout(stop(`the jq worker did not start within ${JQ_START_TIMEOUT_MS / 1000} s`), JQ_START_TIMEOUT_MS);
    unlisten(w);
    w.on('message', (msg: JqReply | JqStarted) => {
      if (msg.started) {
        clearTimeout(timer);
        timer = setTimeout(stop(`the filter ran longer than ${JQ_TIMEOUT_MS / 1000} s and was stopped`), JQ_TIMEOUT_MS);
        return;
      }
      // Ended when it grew (its memory is returned), failed oddly, or wrote much (its output buffer never shrinks).
      const keep = msg.kind !== 'output' && msg.kind !== 'internal' && msg.heapBytes <= KEEP_HEAP_BYTES && msg.written <= KEEP_WRITTEN;
      if (msg.kind === 'output') done(false, () => reject(new Error(`the filter's output passed ${megabytes(JQ_MAX_OUTPUT_BYTES)} and was stopped: return less (select the fields you need, \`.[0:100]\`, \`length\`)`)));
      else if (msg.error !== undefined) done(keep, () => reject(new Error(msg.kind === 'internal' ? `jq stopped: ${memoryWords(msg.error!)}` : msg.error)));
      else done(keep, () => resolve(msg.outputs!.length === 1 ? msg.outputs![0] : msg.outputs));
    });
    w.on('error', (err: Error & { code?: string }) =>
      done(false, () => reject(err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? new Error(`the filter needed more than ${RESOURCE_LIMITS.maxOldGenerationSizeMb} MB and was stopped`) : err)),
    );
    w.on('exit', (code) => done(false, () => reject(new Error(`the jq worker ended (exit code ${code})`))));
    w.ref();
    w.postMessage(job);
  });
}

function memoryWords(message: string): string {
  return /memory|Aborted|allocat/i.test(message) ? `the filter needed more memory than jq may use (256 MB) and was stopped` : message;
}

/**
 * Applies a jq filter to a JSON value with real jq (1.8, in WebAssembly, in a worker thread). One output comes
 * back as itself, several (or none) as the list of outputs. Bounded: a filter runs at most JQ_TIMEOUT_MS, writes
 * at most JQ_MAX_OUTPUT_BYTES, and at most JQ_MAX_WORKERS run at once; a worker that grew is ended after its run,
 * so its memory goes back to the system.
 */
export async function localJq(filter: string, input: unknown): Promise<unknown> {
  const text = JSON.stringify(input) ?? 'null';
  await acquire();
  try {
    return await run(idle.pop() ?? start(), filter, text);
  } finally {
    release();
  }
}

/** Workers running a filter now, and idle ones kept for the next (for tests and diagnostics). */
export function jqWorkers(): { running: number; idle: number; waiting: number } {
  return { running, idle: idle.length, waiting: waiting.length };
}
