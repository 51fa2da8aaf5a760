import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Ontology } from './ontology/index.js';
import { isPostgresLocation } from './postgres/location.js';
import { DB_FILE, SqliteStore } from './sqlite/store.js';
import type { Store } from './store.js';

export interface StoreOpenOptions {
  /** Start from empty: the embedded index is replaced; a PostgreSQL index drops every source (asked for, never implied). */
  reset?: boolean;
  lockWaitMs?: number;
  onLockWait?: (message: string) => void;
}

/**
 * Opens the index at `location`: a directory holding the embedded store, or a `postgres://` URL. A writer waits
 * while another process writes the same index (on PostgreSQL, the same source), saying for whom on stderr unless
 * `onLockWait` is given.
 */
export async function openStore(ontology: Ontology, location: string, mode: 'read' | 'write', opts: StoreOpenOptions = {}): Promise<Store & { setRoot?: (root: string) => Promise<void> }> {
  const options = { mode, onLockWait: (message: string) => process.stderr.write(`sextant: ${message}\n`), ...opts };
  if (isPostgresLocation(location)) {
    const { PgStore } = await import('./postgres/store.js');
    return PgStore.open(ontology, location.trim(), options);
  }
  return SqliteStore.open(ontology, location, options);
}

/**
 * Where to read an index from when none is named: `--store`, then SEXTANT_STORE, then the nearest
 * `.sextant/` holding an index in the working directory or one of its parents. A PostgreSQL URL is kept as given.
 */
export function locateStore(explicit: string | undefined, env: Record<string, string | undefined> = process.env, cwd = process.cwd()): string {
  const named = explicit ?? env.SEXTANT_STORE;
  if (named) return isPostgresLocation(named) ? named.trim() : resolve(named);
  let dir = resolve(cwd);
  for (;;) {
    const candidate = join(dir, '.sextant');
    if (existsSync(join(candidate, DB_FILE))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return join(resolve(cwd), '.sextant');
    dir = parent;
  }
}
