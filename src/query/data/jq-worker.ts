/**
 * Worker thread that runs jq filters (jq-wasm: real jq 1.8), so a filter that never ends, writes without end or
 * fills its memory can be stopped, and its memory returned, by ending the thread.
 *
 * jq's output is counted as jq writes it (its `fd_write` import is wrapped): past `maxOutputBytes` the write is
 * refused before it lands anywhere, so an output cap holds however much a filter produces. jq's own heap is a
 * WebAssembly memory that never shrinks (jq-wasm caps it at 256 MB); each answer says how large it has grown so
 * the parent can end a worker that grew.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { JqError, loadJq } from 'jq-wasm';

/** What the TypeScript lib here does not declare: WebAssembly, as far as this worker uses it. */
interface WasmMemory {
  buffer: ArrayBuffer;
}
interface WasmInstance {
  exports: Record<string, unknown>;
}
const WASM = (globalThis as unknown as { WebAssembly: { Memory: new (...a: never[]) => WasmMemory; instantiate: (m: object, imports: object) => Promise<WasmInstance> } }).WebAssembly;

interface Setup {
  module: object;
  maxOutputBytes: number;
}
export interface JqJob {
  filter: string;
  /** The input as JSON text. */
  input: string;
}
/** Sent when the worker begins a job (its run time counts from here, not from its start-up). */
export interface JqStarted {
  started: true;
}
export interface JqReply {
  started?: undefined;
  outputs?: unknown[];
  error?: string;
  /** `jq`: the filter failed as jq reports it; `output`: the output cap was reached; `internal`: anything else. */
  kind?: 'jq' | 'output' | 'internal';
  /** Size of jq's WebAssembly heap after the run, and bytes written: what this worker now holds. */
  heapBytes: number;
  written: number;
}

const { module, maxOutputBytes } = workerData as Setup;

class OutputTooLarge extends Error {}

let memory: WasmMemory | undefined;
let written = 0;

type Imports = Record<string, Record<string, unknown>>;

/** Wraps jq's `fd_write` so what it writes to stdout is counted, and refused past the cap before it is copied. */
function capOutput(imports: Imports): void {
  for (const mod of Object.values(imports)) {
    for (const [key, fn] of Object.entries(mod)) {
      if (typeof fn !== 'function' || fn.name !== '_fd_write') continue;
      const original = fn as (fd: number, iov: number, iovcnt: number, pnum: number) => number;
      mod[key] = (fd: number, iov: number, iovcnt: number, pnum: number): number => {
        if (fd === 1 && memory) {
          const view = new DataView(memory.buffer);
          let bytes = 0;
          for (let i = 0; i < iovcnt; i++) bytes += view.getUint32(iov + i * 8 + 4, true);
          written += bytes;
          if (written > maxOutputBytes) throw new OutputTooLarge();
        }
        return original(fd, iov, iovcnt, pnum);
      };
      return;
    }
  }
}

// jq's runtime prints `Aborted()` through console.error when it runs out of memory; the failure is reported to
// the parent, and this thread writes nothing to the process's stderr (an MCP server's stderr is a log).
console.error = () => undefined;

const jq = await loadJq({
  instantiateWasm: (imports, onSuccess) => {
    capOutput(imports as unknown as Imports);
    void WASM.instantiate(module, imports).then((instance) => {
      memory = Object.values(instance.exports).find((e): e is WasmMemory => e instanceof WASM.Memory);
      onSuccess(instance as never, module as never);
    });
  },
});

parentPort!.on('message', (msg: JqJob) => {
  written = 0;
  let reply: Omit<JqReply, 'heapBytes' | 'written'>;
  parentPort!.postMessage({ started: true } satisfies JqStarted);
  try {
    const outputs = jq.json(msg.input, msg.filter);
    reply = { outputs };
  } catch (err) {
    if (err instanceof OutputTooLarge) reply = { kind: 'output', error: 'output cap' };
    else if (err instanceof JqError) reply = { kind: 'jq', error: err.stderr.replace(/^jq: error: /, '').split('\n')[0]! };
    else reply = { kind: 'internal', error: (err as Error).message };
  }
  parentPort!.postMessage({ ...reply, heapBytes: memory?.buffer.byteLength ?? 0, written } satisfies JqReply);
});
