import { Worker } from 'node:worker_threads';

/** How long one filter may run before the worker is stopped (and replaced for the next one). */
export const JQ_TIMEOUT_MS = 5_000;

let worker: Worker | undefined;
let nextId = 0;
const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();

function start(): Worker {
  // Built: dist/query/data/jq-worker.js beside this file. Under tsx (tests), the .ts source, loaded through tsx's
  // loader registered in the worker first (a worker does not inherit the parent's loader hooks).
  const w = import.meta.url.endsWith('.ts')
    ? new Worker(new URL(`data:text/javascript,${encodeURIComponent(`import { register } from ${JSON.stringify(import.meta.resolve('tsx/esm/api'))}; register(); await import(${JSON.stringify(new URL('./jq-worker.ts', import.meta.url).href)});`)}`))
    : new Worker(new URL('./jq-worker.js', import.meta.url));
  w.on('message', (msg: { id: number; outputs?: unknown[]; error?: string }) => {
    const p = pending.get(msg.id);
    if (!p) return;
    pending.delete(msg.id);
    clearTimeout(p.timer);
    if (msg.error !== undefined) p.reject(new Error(msg.error));
    else p.resolve(msg.outputs!.length === 1 ? msg.outputs![0] : msg.outputs);
  });
  w.on('error', (err) => {
    for (const [id, p] of pending) {
      clearTimeout(p.timer);
      p.reject(err);
      pending.delete(id);
    }
    if (worker === w) worker = undefined;
  });
  // After the listeners (adding one refs the port again): an idle jq worker never keeps the process alive.
  w.unref();
  return w;
}

/**
 * Applies a jq filter to a JSON value with real jq (1.8, in WebAssembly, in a worker thread). One output comes
 * back as itself, several (or none) as the list of outputs. A filter that runs longer than JQ_TIMEOUT_MS is
 * stopped and fails.
 */
export function localJq(filter: string, input: unknown): Promise<unknown> {
  worker ??= start();
  const w = worker;
  const id = nextId++;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      pending.delete(id);
      if (worker === w) worker = undefined;
      void w.terminate();
      reject(new Error(`the filter ran longer than ${JQ_TIMEOUT_MS / 1000} s and was stopped`));
    }, JQ_TIMEOUT_MS);
    pending.set(id, { resolve, reject, timer });
    w.postMessage({ id, filter, input });
  });
}
