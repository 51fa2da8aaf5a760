import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let collect: (() => void) | undefined;

/**
 * A full garbage collection, for the moment a long build has just dropped a large working set. V8 grows the heap
 * rather than collect garbage it has no pressure to collect, so without it the next phase's allocations add to the
 * peak. (`gc` is exposed to a fresh context only; the process's own global scope is unchanged.)
 */
export function collectGarbage(): void {
  if (!collect) {
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  }
  collect();
}

/**
 * GC work V8 would spread over helper threads, kept on the thread that collects. A build allocates millions of
 * short-lived objects on the main thread and a parse worker at once; helper threads then compete with both for the
 * cores and cost more CPU than they save: all the corpora side by side took 57–58 CPU s with them and 51–52 without
 * (2 cores; wall time 40–41 s → 35–37 s). Only flags V8 reads at each collection are set (young-generation
 * scavenging, compaction, pointer updates, sweeping): concurrent marking is set up with the heap, and changing it
 * in a running process is not safe.
 */
const SERIAL_GC_FLAGS = ['--no-parallel-scavenge', '--no-parallel-compaction', '--no-parallel-pointer-update', '--no-concurrent-sweeping'];

let serial = false;

/** Sets SERIAL_GC_FLAGS for the rest of the process (once). */
export function serialGarbageCollection(): void {
  if (serial) return;
  serial = true;
  for (const flag of SERIAL_GC_FLAGS) setFlagsFromString(flag);
}
