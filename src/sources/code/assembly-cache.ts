import { randomUUID } from 'node:crypto';
import { closeSync, fstatSync, openSync, readdirSync, readSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { CodeGraphAssembler, StoredAssemblyState, StoredEmission } from './emit.js';
import { asciiOnly, dropKeyedCache, dropKeyedCacheNow, LazyEntry, loadKeyedCache, saveKeyedCache } from './keyed-cache.js';
import { productDigest } from './product.js';
import type { RecalledBuildGraph } from './build/recall.js';

/**
 * The code graph assembler's state, kept across processes beside the facts cache: every file's emission (with the
 * content hash of the file it was emitted from) and what the assembler keeps besides. A later `sextant index`
 * restores it and re-emits only the files a change can reach, as `index --watch` does in memory; a fresh
 * assembly of the same files gives the same graph.
 *
 * It holds only against the very code that wrote it: its version is a fingerprint of Sextant's own extraction and
 * graph modules, so an upgrade (or a rebuild) starts over instead of mixing emissions of two versions.
 *
 * Each emission's symbols, unresolved calls and edges (nine tenths of its bytes, which only writing its file needs)
 * are kept apart, in a rows file beside it (`<file>.<id>.rows`: a header line with its id, then JSON texts end to
 * end), and the emission names their place. A save appends the rows of the files it emitted again; once the file
 * holds more than twice what the emissions still name, a save writes a new one (a new id) and every emission with it.
 * The file a build loaded stays until a later build, which may still read it when it writes (a store that writes
 * the source whole reads every row); an assembly whose rows file is missing or names another id is not restored.
 */
const META = '\u0000assembly';
/** The last assembly's build graph (see build/recall.ts): an entry of its own, logged again only when it changes. */
const BUILD = '\u0000build';
/** Before a group's path: what the estate-wide passes left in it, digested (see pass-digests.ts), one entry per group. */
const DIGEST = '\u0000digest\u0000';

interface DigestEntry {
  d: string;
}

interface EmissionEntry {
  hash: string;
  emission: StoredEmission;
}

interface MetaEntry {
  /** Digest of the configuration and service layout the emissions were made with. */
  layout: string;
  /** Id of the rows file the emissions name places in. */
  rows?: string;
  /** Content hash of the build that saved it (what an index written by that build holds). */
  contentHash: string;
  state: StoredAssemblyState;
}

type Entry = EmissionEntry | MetaEntry | RecalledBuildGraph | DigestEntry;

export interface LoadedAssembly {
  entries: ReadonlyMap<string, Entry>;
  layout: string;
  contentHash: string;
  state: StoredAssemblyState;
  emissions: Map<string, StoredEmission>;
  /** The content hash each file had when emitted. */
  hashes: Map<string, string>;
  /** Reads rows at a place of the rows file. */
  readRows: (at: [number, number]) => string;
  /** Id and size of the rows file, and how many of its bytes the emissions name. */
  rows: { id: string; size: number; live: number };
  /** The build graph saved with it, as read (checked when restored). */
  buildGraph?: unknown;
  /** What the estate-wide passes left in each group, by group, when saved. */
  digests?: Map<string, string>;
}

/** The saved state, or undefined when there is none for this version of Sextant. */
export async function loadAssembly(file: string): Promise<LoadedAssembly | undefined> {
  const entries = await loadKeyedCache<Entry>(file, assemblyVersion());
  const meta = entries.get(META) as MetaEntry | undefined;
  if (!meta || typeof meta.layout !== 'string' || typeof meta.contentHash !== 'string' || !meta.state) return undefined;
  const rowsFile = meta.rows !== undefined ? rowsPath(file, meta.rows) : undefined;
  const rows = rowsFile ? rowsFileInfo(rowsFile) : undefined;
  if (!rowsFile || !rows || rows.id !== meta.rows) return undefined;
  const emissions = new Map<string, StoredEmission>();
  const hashes = new Map<string, string>();
  let live = 0;
  const digests = new Map<string, string>();
  for (const [path, entry] of entries) {
    if (path === META || path === BUILD) continue;
    if (path.startsWith(DIGEST)) {
      if (typeof (entry as DigestEntry).d === 'string') digests.set(path.slice(DIGEST.length), (entry as DigestEntry).d);
      continue;
    }
    const e = entry as EmissionEntry;
    emissions.set(path, e.emission);
    hashes.set(path, e.hash);
    live += e.emission.rows?.at?.[1] ?? 0;
  }
  return { entries, layout: meta.layout, contentHash: meta.contentHash, state: meta.state, emissions, hashes, readRows: (at) => readRowsAt(file, rowsFile, rows.id, at), rows: { ...rows, live }, ...(entries.has(BUILD) ? { buildGraph: entries.get(BUILD) } : {}), ...(digests.size ? { digests } : {}) };
}

const ROWS_SUFFIX = '.rows';

function rowsPath(file: string, id: string): string {
  return `${file}.${id}${ROWS_SUFFIX}`;
}

/** Removes the rows files of an assembly file but those of these ids. */
function dropRowsFiles(file: string, keep: readonly string[]): void {
  const dir = dirname(file);
  const prefix = `${basename(file)}.`;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  const kept = new Set(keep.map((id) => basename(rowsPath(file, id))));
  for (const name of names) if (name.startsWith(prefix) && name.endsWith(ROWS_SUFFIX) && !kept.has(name)) rmSync(join(dir, name), { force: true });
}
const ROWS_HEADER = 'sextant-rows ';
/** A rows file is written anew once it is this many times what the emissions name. */
const MAX_ROWS_GROWTH = 2;

/** The id a rows file's header names, and its size; undefined when there is none, or no readable header. */
function rowsFileInfo(file: string): { id: string; size: number } | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const id = headerId(fd);
    return id === undefined ? undefined : { id, size: fstatSync(fd).size };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The id an open rows file's header names. */
function headerId(fd: number): string | undefined {
  const head = Buffer.alloc(ROWS_HEADER.length + 40);
  const line = head.toString('latin1', 0, readSync(fd, head, 0, head.length, 0));
  const end = line.indexOf('\n');
  return line.startsWith(ROWS_HEADER) && end >= 0 ? line.slice(ROWS_HEADER.length, end) : undefined;
}

/** A saved state whose rows are not where it says (its files changed by another process): it has been dropped. */
export class UnreadableAssembly extends Error {}

/**
 * Reads rows at a place of the rows file. Rows that are not there as saved drop the whole saved state (the next build
 * assembles every file) and throw {@link UnreadableAssembly}.
 */
function readRowsAt(state: string, file: string, id: string, [offset, length]: [number, number]): string {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const buffer = Buffer.alloc(length);
    if (readSync(fd, buffer, 0, length, offset) !== length) throw new Error('cut short');
    if (headerId(fd) !== id) throw new Error('another rows file');
    const text = buffer.toString('latin1');
    if (!text.startsWith('{"nodes":[') || !text.endsWith(']}')) throw new Error(`no rows at byte ${offset}`);
    return text;
  } catch (err) {
    dropKeyedCacheNow(state);
    rmSync(file, { force: true });
    throw new UnreadableAssembly(`the assembler's saved state ${state} could not be read back (${(err as Error).message}; changed by another process?): it is dropped, and the next build assembles every file`);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Appends rows to a rows file (its own, new one, or the one loaded) and says where each went. */
class RowsWriter {
  private readonly fd: number;
  private offset: number;
  constructor(path: string, fresh: string | undefined) {
    this.fd = openSync(path, fresh ? 'w' : 'a');
    if (fresh) writeSync(this.fd, `${ROWS_HEADER}${fresh}\n`);
    this.offset = fstatSync(this.fd).size;
  }

  /** The stored emission with its rows in this file. */
  place(emission: StoredEmission): StoredEmission {
    const rows = emission.rows;
    if (rows?.json === undefined) return emission;
    // Written as JSON makes it: ASCII only (see keyed-cache.ts), so one byte per character.
    const text = asciiOnly(rows.json);
    const length = writeSync(this.fd, text, this.offset, 'latin1');
    const at: [number, number] = [this.offset, length];
    this.offset += length;
    return { ...emission, rows: { at, ids: rows.ids, edges: rows.edges } };
  }

  close(): void {
    closeSync(this.fd);
  }
}

/**
 * Saves the assembler's state after an assembly of the files `hashes` names (path → content hash). With `loaded`,
 * the state this process restored, only the files the assembly emitted again are logged.
 */
export async function saveAssembly(file: string, assembler: CodeGraphAssembler, hashes: ReadonlyMap<string, string>, layout: string, contentHash: string, loaded?: LoadedAssembly): Promise<void> {
  const before = loaded?.rows;
  // New rows go after the ones loaded, unless the file has grown past what the emissions name: then into a new one.
  const append = before !== undefined && rowsFileInfo(rowsPath(file, before.id))?.id === before.id && before.size <= MAX_ROWS_GROWTH * before.live;
  const id = append ? before.id : randomUUID();
  // Rows files of earlier builds go; the one loaded stays, for this build's write may read it yet.
  dropRowsFiles(file, before ? [before.id, id] : [id]);
  let writer: RowsWriter | undefined;
  try {
    writer = new RowsWriter(rowsPath(file, id), append ? undefined : id);
    const rows = writer;
    const entries = new Map<string, Entry | LazyEntry<Entry>>();
    for (const [path, hash] of hashes) {
      const old = loaded?.entries.get(path) as EmissionEntry | undefined;
      if (old && old.hash === hash && !assembler.emittedPaths.has(path)) {
        const at = old.emission.rows?.at;
        // A new rows file takes every emission's rows.
        entries.set(path, append || !at ? old : new LazyEntry(() => ({ hash, emission: rows.place({ ...old.emission, rows: { ...old.emission.rows!, json: loaded!.readRows(at) } }) })));
      }
      // Made as it is written: what a file shows others is read then, not held for every file at once.
      else if (assembler.hasEmission(path)) entries.set(path, new LazyEntry(() => ({ hash, emission: rows.place(assembler.storedEmission(path)!) })));
    }
    entries.set(META, { layout, contentHash, rows: id, state: assembler.storedState() } satisfies MetaEntry);
    const built = assembler.storedBuildGraph();
    if (built) entries.set(BUILD, built);
    // The very entries loaded where a digest is the same, so only those that changed are logged.
    for (const [group, d] of assembler.storedDigests() ?? []) {
      const old = loaded?.entries.get(DIGEST + group) as DigestEntry | undefined;
      entries.set(DIGEST + group, old?.d === d ? old : { d });
    }
    await saveKeyedCache(file, assemblyVersion(), entries, loaded?.entries);
    writer.close();
  } catch {
    writer?.close();
    // A state that could not be saved whole must not be restored: the next build assembles everything.
    await dropKeyedCache(file).catch(() => undefined);
    if (!append) rmSync(rowsPath(file, id), { force: true });
  }
}

/** `assembly-1:` and a digest of the modules that extract, emit and link code and define the graph. */
function assemblyVersion(): string {
  return `assembly-1:${productDigest()}`;
}
