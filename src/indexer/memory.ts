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
