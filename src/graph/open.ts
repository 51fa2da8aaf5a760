import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Ontology } from './ontology/index.js';
import { DB_FILE, SqliteStore } from './sqlite/store.js';
import type { Store } from './store.js';

/**
 * Opens the index at `location` (a directory holding the embedded store); `reset` starts a writer from empty. A
 * writer waits while another process writes the same index, saying for whom on stderr unless `onLockWait` is given.
 */
export function openStore(
  ontology: Ontology,
  location: string,
  mode: 'read' | 'write',
  opts: { reset?: boolean; lockWaitMs?: number; onLockWait?: (message: string) => void } = {},
): Store & { setRoot?: (root: string) => Promise<void> } {
  return SqliteStore.open(ontology, location, { mode, onLockWait: (message) => process.stderr.write(`sextant: ${message}\n`), ...opts });
}

/**
 * Where to read an index from when none is named: `--store`, then SEXTANT_STORE, then the nearest
 * `.sextant/` holding an index in the working directory or one of its parents.
 */
export function locateStore(explicit: string | undefined, env: Record<string, string | undefined> = process.env, cwd = process.cwd()): string {
  if (explicit) return resolve(explicit);
  if (env.SEXTANT_STORE) return resolve(env.SEXTANT_STORE);
  let dir = resolve(cwd);
  for (;;) {
    const candidate = join(dir, '.sextant');
    if (existsSync(join(candidate, DB_FILE))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return join(resolve(cwd), '.sextant');
    dir = parent;
  }
}
