import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { type Dirent, readdirSync, readFileSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { dirname } from 'node:path';
import { fileContentHash } from '../../graph/file-hashes.js';
import type { Discovery } from './discover.js';

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
  /** Directories listed, with a digest of what the listing held (see {@link listingDigest}). */
  private readonly listings = new Map<string, string>();
  /** What discovery read, once it is done. */
  private discovered: { dirs: Map<string, number>; files: Map<string, [number, number]>; found: Discovery; sources: Set<string> } | undefined;

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

  /** A file whose stamp the caller already took (discovery stats every source file; size -1: absent). */
  stamped(abs: string, size: number, mtimeMs: number): void {
    if (!this.files.has(abs)) this.files.set(abs, [size, mtimeMs]);
  }

  /** A directory whose stamp the caller already took (mtime -1: absent). */
  stampedDir(abs: string, mtimeMs: number): void {
    if (!this.dirs.has(abs)) this.dirs.set(abs, mtimeMs);
  }

  /** What a directory stamped with {@link dir} held when it was listed (or its digest, known already). */
  listed(abs: string, entries: readonly Dirent[] | string): void {
    this.listings.set(abs, typeof entries === 'string' ? entries : listingDigest(entries));
  }

  /** Discovery is done: what it read so far, and what it found (`abs`: a found path's file), go into the snapshot as its own stamp. */
  discoveryDone(found: Discovery, abs: (rel: string) => string): void {
    this.discovered = { dirs: new Map(this.dirs), files: new Map(this.files), found, sources: new Set(found.files.map((f) => abs(f.path))) };
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

  /**
   * Discovery's own stamp: the directories it listed (with their listings' digests) and the files other than sources
   * it read (ignore rules, SQL dumps it scanned), with what it found. A racy directory is kept, to be listed again and
   * compared; a racy file, or a racy directory that was not listed, leaves none.
   */
  discoveryStamp(key: string): DiscoveryStamp | undefined {
    const d = this.discovered;
    if (!d) return undefined;
    const racy = (mtime: number): boolean => mtime >= this.started - RACY_MS;
    const files: [string, number, number][] = [];
    for (const [path, [size, mtime]] of d.files) {
      if (d.sources.has(path)) continue;
      if (size !== -1 && racy(mtime)) return undefined;
      files.push([path, size, mtime]);
    }
    const dirs: DiscoveryStamp['dirs'] = [];
    for (const [path, mtime] of d.dirs) {
      const digest = this.listings.get(path) ?? null;
      if (mtime !== -1 && racy(mtime)) {
        if (!digest) return undefined;
        dirs.push([path, mtime, digest, true]);
      } else dirs.push([path, mtime, digest]);
    }
    return { key, dirs, files, found: d.found };
  }
}

/**
 * A listing's names and entry kinds, as one digest. A listing with a symbolic link has none: what discovery makes of
 * a link depends on its target, which the listing does not show.
 */
function listingDigest(entries: readonly Dirent[]): string {
  if (entries.some((e) => e.isSymbolicLink())) return '';
  const lines = entries.map((e) => `${e.isDirectory() ? 'd' : e.isFile() ? 'f' : 'o'} ${e.name}`).sort();
  return createHash('sha1').update(lines.join('\n')).digest('base64');
}

/**
 * What discovery read and found, kept beside the stamps (in a file of its own, which an unchanged build does not
 * read): a later build that finds other changes (a source file edited) takes the same files from it instead of walking
 * the tree again, when every directory still lists what it did (same time, or the same names and kinds: an editor that
 * saves by renaming a new file over the old one changes the time only) and every other file discovery read is as it
 * was. A racy build keeps it too.
 */
export interface DiscoveryStamp {
  /** As the stamps' key: another Sextant or another configuration discovers anew. */
  key: string;
  /**
   * Directory, mtime (-1: absent), the digest of its listing ('': none to compare, null: not listed), and `true` when
   * it was racy (its time proves nothing: it is listed and compared whatever it is).
   */
  dirs: ([string, number, string | null] | [string, number, string, true])[];
  /** Files other than sources that discovery read or looked for: path, size (-1: absent), mtime. */
  files: [string, number, number][];
  found: Discovery;
}

/**
 * The discovery a stamp kept, with each source file's size and time as they are now, stamped into `log` as a walk
 * would have; undefined when something discovery read is not as it was (the tree is then walked again).
 */
export function recallDiscovery(stamp: DiscoveryStamp, abs: (rel: string) => string, log: ReadLog | undefined): Discovery | undefined {
  try {
    for (const [path, mtime, digest, racy] of stamp.dirs) {
      const info = statSync(path, { throwIfNoEntry: false });
      if (mtime === -1) {
        if (info !== undefined) return undefined;
        log?.stampedDir(path, -1);
        continue;
      }
      if (!info?.isDirectory()) return undefined;
      if (info.mtimeMs !== mtime || racy) {
        if (!digest) return undefined;
        const entries = readdirSync(path, { withFileTypes: true });
        if (listingDigest(entries) !== digest) return undefined;
        log?.listed(path, entries);
      } else if (digest) log?.listed(path, digest);
      log?.stampedDir(path, info.mtimeMs);
    }
    for (const [path, size, mtime] of stamp.files) {
      const info = statSync(path, { throwIfNoEntry: false });
      if (size === -1 ? info !== undefined : info?.size !== size || info.mtimeMs !== mtime) return undefined;
      log?.stamped(path, size, mtime);
    }
    const files = stamp.found.files.map((f) => {
      const file = abs(f.path);
      const info = statSync(file);
      log?.stamped(file, info.size, info.mtimeMs);
      return { ...f, size: info.size, mtimeMs: info.mtimeMs };
    });
    const found = { ...stamp.found, files };
    log?.discoveryDone(found, abs);
    return found;
  } catch {
    // A stamp of another layout, or a source file gone since the check: walked again.
    return undefined;
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

/** Saves the stamps (or what discovery found), or (none: a racy build) removes the last ones. */
export async function saveStamp(file: string, stamp: InputStamp | DiscoveryStamp | undefined): Promise<void> {
  if (!stamp) return rm(file, { force: true });
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify(stamp));
  await rename(tmp, file);
}

/** What the last build's discovery kept, when made with this key. */
export async function loadDiscoveryStamp(file: string, key: string): Promise<DiscoveryStamp | undefined> {
  try {
    const data = JSON.parse(await readFile(file, 'utf8')) as DiscoveryStamp;
    return data.key === key && Array.isArray(data.dirs) && Array.isArray(data.files) && Array.isArray(data.found?.files) ? data : undefined;
  } catch {
    return undefined;
  }
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
