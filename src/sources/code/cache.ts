import type { FileFacts } from './parse/ir.js';
import { loadKeyedCache, saveKeyedCache } from './keyed-cache.js';

/** Bump when extraction changes what it produces for the same file, so cached facts are not reused. */
export const EXTRACTOR_VERSION = 'code-facts-12';

export interface CachedFile {
  hash: string;
  /** Size and modification time when hashed: unchanged, they spare reading the file again. */
  size?: number;
  mtimeMs?: number;
  /** A moment (ms since the epoch) before the file was last read: see `isRacy` in source.ts. */
  readFrom?: number;
  facts: FileFacts;
}

/**
 * Facts of every file of one code source by path, from the last build (see keyed-cache.ts for how it is kept).
 * An entry can only be older than the file it stands for, and a file whose size or time differs from its entry's
 * is read and hashed again: nothing stale is ever used.
 */
export function loadFactsCache(file: string): Promise<Map<string, CachedFile>> {
  return loadKeyedCache<CachedFile>(file, EXTRACTOR_VERSION);
}

/** Saves the facts of every file; with `previous`, the cache this build loaded, only what changed is logged. */
export function saveFactsCache(file: string, files: ReadonlyMap<string, CachedFile>, previous?: ReadonlyMap<string, CachedFile>): Promise<void> {
  return saveKeyedCache(file, EXTRACTOR_VERSION, files, previous);
}
