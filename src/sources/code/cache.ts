import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { appendFile, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { FileFacts } from './parse/ir.js';

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
 * The cache is one file written whole (`{"version", "id", "files": [[path, entry], …]}`) and a log beside it
 * (`<file>.log`): a header line naming the version and the id of the whole file it extends, then one line per entry
 * changed since (`[path, entry]`, or `[path, null]` for a file gone). A build that changed a few files appends them
 * instead of writing tens of megabytes again; once the log holds more than a tenth of the entries, the next save
 * writes the whole file again and drops the log.
 *
 * A log line cut short (a process killed while appending) ends the log where it was cut; a log whose header names
 * another version or another whole file is ignored. Either way an entry can only be older than the file it stands
 * for, and a file whose size or time differs from its entry's is read and hashed again: nothing stale is ever used.
 */
const LOG_SUFFIX = '.log';
const MAX_LOG_SHARE = 0.1;
/** A small estate may log this many entries whatever their share. */
const MIN_LOG_ENTRIES = 50;

/** What a loaded cache extends: the whole file's id, how many entries its log holds, and how the next save may log. */
interface LoadedLog {
  id: string;
  logged: number;
  /** `append`: the log is whole and extends this file; `start`: there is none to extend (absent, or stale); `none`: it is cut short, so the next save writes the whole file. */
  next: 'append' | 'start' | 'none';
}
const loaded = new WeakMap<ReadonlyMap<string, CachedFile>, LoadedLog>();

/** Facts of every file of one code source by path, from the last build. Missing or stale caches read as empty. */
export async function loadFactsCache(file: string): Promise<Map<string, CachedFile>> {
  try {
    // JSON: three times faster to read back than v8.deserialize for this plain data.
    const data = JSON.parse(await readFile(file, 'utf8')) as { version?: string; id?: string; files?: [string, CachedFile][] };
    if (data.version !== EXTRACTOR_VERSION || !Array.isArray(data.files)) return new Map();
    const files = new Map(data.files);
    if (typeof data.id === 'string') loaded.set(files, { id: data.id, ...(await applyLog(`${file}${LOG_SUFFIX}`, data.id, files)) });
    return files;
  } catch {
    return new Map();
  }
}

/** Applies the log's entries in order, up to a line cut short; how many, and how the next save may log. */
async function applyLog(log: string, id: string, files: Map<string, CachedFile>): Promise<Omit<LoadedLog, 'id'>> {
  let text: string;
  try {
    text = await readFile(log, 'utf8');
  } catch {
    return { logged: 0, next: 'start' };
  }
  const lines = text.split('\n');
  try {
    const header = JSON.parse(lines[0]!) as { version?: string; id?: string };
    if (header.version !== EXTRACTOR_VERSION || header.id !== id) return { logged: 0, next: 'start' };
  } catch {
    return { logged: 0, next: 'start' };
  }
  let logged = 0;
  // Every line but the last ends with a newline; the last is empty unless it was cut short.
  for (const [i, line] of lines.entries()) {
    if (i === 0 || (i === lines.length - 1 && line === '')) continue;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      return { logged, next: 'none' };
    }
    if (!Array.isArray(entry) || typeof entry[0] !== 'string' || (entry[1] !== null && typeof entry[1] !== 'object')) return { logged, next: 'none' };
    if (entry[1] === null) files.delete(entry[0]);
    else files.set(entry[0], entry[1] as CachedFile);
    logged++;
  }
  return { logged, next: 'append' };
}

/**
 * Saves the facts of every file. With `previous`, the cache this build loaded, only what changed since (entries that
 * are not the very objects loaded, and files gone) is appended to the log, unless the log would grow too long.
 */
export async function saveFactsCache(file: string, files: ReadonlyMap<string, CachedFile>, previous?: ReadonlyMap<string, CachedFile>): Promise<void> {
  const base = previous && loaded.get(previous);
  if (base) {
    const changed: [string, CachedFile | null][] = [...files].filter(([path, entry]) => previous.get(path) !== entry);
    for (const path of previous.keys()) if (!files.has(path)) changed.push([path, null]);
    if (changed.length === 0) return;
    if (base.next !== 'none' && base.logged + changed.length <= Math.max(MIN_LOG_ENTRIES, files.size * MAX_LOG_SHARE)) {
      const lines = changed.map((entry) => `${JSON.stringify(entry)}\n`).join('');
      if (base.next === 'append') await appendFile(`${file}${LOG_SUFFIX}`, lines);
      else await writeFile(`${file}${LOG_SUFFIX}`, `${JSON.stringify({ version: EXTRACTOR_VERSION, id: base.id })}\n${lines}`);
      return;
    }
  }
  await saveWhole(file, files);
}

/** Written entry by entry, so a large estate's cache is never one string in memory. */
async function saveWhole(file: string, files: ReadonlyMap<string, CachedFile>): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  const out = createWriteStream(tmp);
  // `once` rejects if the stream errors while waiting (disk full, …).
  const write = (chunk: string): Promise<unknown> | undefined => (out.write(chunk) ? undefined : once(out, 'drain'));
  try {
    await write(`{"version":${JSON.stringify(EXTRACTOR_VERSION)},"id":${JSON.stringify(randomUUID())},"files":[`);
    let first = true;
    for (const entry of files) {
      await write(`${first ? '' : ','}${JSON.stringify(entry)}`);
      first = false;
    }
    await write(']}');
    out.end();
    await once(out, 'finish');
  } catch (err) {
    out.destroy();
    await rm(tmp, { force: true });
    throw err;
  }
  // The new file has a new id, so the old log no longer applies to it; removed, it is not read for nothing.
  await rm(`${file}${LOG_SUFFIX}`, { force: true });
  await rename(tmp, file);
}
