import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileContentHash } from '../../graph/file-hashes.js';

/**
 * What a code build read, as the file system stamped it: every directory whose listing it looked at (its mtime
 * changes when an entry is added, removed or renamed) and every file it read or looked for (size and mtime, or
 * absent). Each stamp is taken before the read it covers, so a file changed while a build reads it makes the next
 * check fail, never pass.
 *
 * Saved with the build's content hash, it answers "did anything change?" with a few thousand `stat` calls: a
 * one-shot `sextant index` over an unchanged tree never lists, reads or parses a file again.
 *
 * File times are coarse (a clock tick; seconds on some file systems), so an edit made just before or while a build
 * reads may keep the time a stamp shows. As git does with its index, such "racy" entries are not trusted by time:
 * a racy file is stamped with the hash of the content the build used and checked by content; a racy directory
 * leaves no stamp at all (the next build runs in full).
 */
export class ReadLog {
  /** When the build began (ms since the epoch): entries modified after `started - RACY_MS` are racy. */
  private readonly started = Date.now();
  private readonly dirs = new Map<string, number>();
  /** Absolute path → [size, mtimeMs]; size -1: the file was looked for and was not there. */
  private readonly files = new Map<string, [number, number]>();

  /** Stamps a directory about to be listed. */
  dir(abs: string): void {
    if (this.dirs.has(abs)) return;
    try {
      this.dirs.set(abs, statSync(abs).mtimeMs);
    } catch {
      this.dirs.set(abs, -1);
      this.dir(dirname(abs));
    }
  }

  /** Stamps a file about to be read (or looked for: an absent file is stamped with its directory). */
  file(abs: string): void {
    if (this.files.has(abs)) return;
    try {
      const info = statSync(abs);
      this.files.set(abs, [info.size, info.mtimeMs]);
    } catch {
      this.files.set(abs, [-1, 0]);
      this.dir(dirname(abs));
    }
  }

  /** A file whose stamp the caller already took (discovery stats every source file). */
  stamped(abs: string, size: number, mtimeMs: number): void {
    if (!this.files.has(abs)) this.files.set(abs, [size, mtimeMs]);
  }

  /**
   * The stamps, racy files with the hash of what the build used (`contentOf`: a source file's bytes hash, or the text
   * it read); undefined when a racy directory or a racy file whose content the build does not know forbids a stamp.
   */
  snapshot(contentOf: (abs: string) => FileContent | undefined): Pick<InputStamp, 'dirs' | 'files'> | undefined {
    const racy = (mtime: number): boolean => mtime >= this.started - RACY_MS;
    const byPath = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    if ([...this.dirs.values()].some((mtime) => mtime !== -1 && racy(mtime))) return undefined;
    const files: FileStamp[] = [];
    for (const [path, [size, mtime]] of this.files) {
      if (size === -1 || !racy(mtime)) {
        files.push([path, size, mtime]);
        continue;
      }
      const content = contentOf(path);
      if (!content) return undefined;
      files.push([path, size, mtime, content.hash, content.as]);
    }
    return { dirs: [...this.dirs].sort((a, b) => byPath(a[0], b[0])), files: files.sort((a, b) => byPath(a[0], b[0])) };
  }
}

/** How recent a modification must be to be racy: a generous bound on file system time granularity. */
export const RACY_MS = 2_000;

/** The content a build used: the hash of the file's bytes (source files), or of the text it read (UTF-8). */
export interface FileContent {
  hash: string;
  as: 'bytes' | 'text';
}

export function textContent(text: string): FileContent {
  return { hash: fileContentHash(Buffer.from(text, 'utf8')), as: 'text' };
}

/** Path, size (-1: absent) and mtime; a racy file adds the hash of its content as the build used it. */
type FileStamp = [string, number, number] | [string, number, number, string, FileContent['as']];

export interface InputStamp {
  /** Extractor, ontology and Sextant versions, and the source's configuration: any change means a full build. */
  key: string;
  /** The content hash the build wrote; the index must still hold it. */
  content_hash: string;
  dirs: [string, number][];
  files: FileStamp[];
  /** What the build reported (warnings, details), so an unchanged answer reports the same. */
  report: { warnings: string[]; details: Record<string, unknown>; inputs: string[] };
}

/** Saves the stamps, or (none: a racy build) removes the last ones. */
export async function saveStamp(file: string, stamp: InputStamp | undefined): Promise<void> {
  if (!stamp) return rm(file, { force: true });
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify(stamp));
  await rename(tmp, file);
}

export async function loadStamp(file: string): Promise<InputStamp | undefined> {
  try {
    const data = JSON.parse(await readFile(file, 'utf8')) as InputStamp;
    return typeof data.key === 'string' && Array.isArray(data.dirs) && Array.isArray(data.files) && data.report ? data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether every directory and file is as stamped (a directory or file that vanished or appeared is a change). Sync
 * stats, in order, stopping at the first change: their inodes are in the kernel's cache after the last build, where
 * a stat costs a few microseconds and a promise per stat costs more than the stat.
 */
export function unchangedSince(stamp: InputStamp): boolean {
  try {
    return matches(stamp);
  } catch {
    // A stamp file that is not what this Sextant writes (edited, truncated, another layout) is no answer: build.
    return false;
  }
}

function matches(stamp: InputStamp): boolean {
  for (const [path, mtime] of stamp.dirs) {
    const info = statSync(path, { throwIfNoEntry: false });
    if (mtime === -1 ? info !== undefined : info?.mtimeMs !== mtime) return false;
  }
  for (const [path, size, mtime, hash, as] of stamp.files) {
    const info = statSync(path, { throwIfNoEntry: false });
    if (size === -1 ? info !== undefined : info?.size !== size || info.mtimeMs !== mtime) return false;
    if (hash !== undefined && contentHashNow(path, as!) !== hash) return false;
  }
  return true;
}

function contentHashNow(path: string, as: FileContent['as']): string | undefined {
  try {
    const bytes = readFileSync(path);
    return as === 'bytes' ? fileContentHash(bytes) : textContent(bytes.toString('utf8')).hash;
  } catch {
    return undefined;
  }
}
