import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, rm } from 'node:fs/promises';
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

/** Facts of every file of one code source by path, from the last build. Missing or stale caches read as empty. */
export async function loadFactsCache(file: string): Promise<Map<string, CachedFile>> {
  try {
    // JSON: three times faster to read back than v8.deserialize for this plain data.
    const data = JSON.parse(await readFile(file, 'utf8')) as { version?: string; files?: [string, CachedFile][] };
    if (data.version !== EXTRACTOR_VERSION || !Array.isArray(data.files)) return new Map();
    return new Map(data.files);
  } catch {
    return new Map();
  }
}

/** Written entry by entry, so a large estate's cache is never one string in memory. */
export async function saveFactsCache(file: string, files: ReadonlyMap<string, CachedFile>): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  const out = createWriteStream(tmp);
  // `once` rejects if the stream errors while waiting (disk full, …).
  const write = (chunk: string): Promise<unknown> | undefined => (out.write(chunk) ? undefined : once(out, 'drain'));
  try {
    await write(`{"version":${JSON.stringify(EXTRACTOR_VERSION)},"files":[`);
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
  await rename(tmp, file);
}
