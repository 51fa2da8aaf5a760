import type { CodeGraphAssembler, StoredAssemblyState, StoredEmission } from './emit.js';
import { dropKeyedCache, LazyEntry, loadKeyedCache, saveKeyedCache } from './keyed-cache.js';
import { productDigest } from './product.js';

/**
 * The code graph assembler's state, kept across processes beside the facts cache: every file's emission (with the
 * content hash of the file it was emitted from) and what the assembler keeps besides. A later `sextant index`
 * restores it and re-emits only the files a change can reach, as `index --watch` does in memory; a fresh
 * assembly of the same files gives the same graph.
 *
 * It holds only against the very code that wrote it: its version is a fingerprint of Sextant's own extraction and
 * graph modules, so an upgrade (or a rebuild) starts over instead of mixing emissions of two versions.
 */
const META = '\u0000assembly';

interface EmissionEntry {
  hash: string;
  emission: StoredEmission;
}

interface MetaEntry {
  /** Digest of the configuration and service layout the emissions were made with. */
  layout: string;
  /** Content hash of the build that saved it (what an index written by that build holds). */
  contentHash: string;
  state: StoredAssemblyState;
}

type Entry = EmissionEntry | MetaEntry;

export interface LoadedAssembly {
  entries: ReadonlyMap<string, Entry>;
  layout: string;
  contentHash: string;
  state: StoredAssemblyState;
  emissions: Map<string, StoredEmission>;
  /** The content hash each file had when emitted. */
  hashes: Map<string, string>;
}

/** The saved state, or undefined when there is none for this version of Sextant. */
export async function loadAssembly(file: string): Promise<LoadedAssembly | undefined> {
  const entries = await loadKeyedCache<Entry>(file, assemblyVersion());
  const meta = entries.get(META) as MetaEntry | undefined;
  if (!meta || typeof meta.layout !== 'string' || typeof meta.contentHash !== 'string' || !meta.state) return undefined;
  const emissions = new Map<string, StoredEmission>();
  const hashes = new Map<string, string>();
  for (const [path, entry] of entries) {
    if (path === META) continue;
    const e = entry as EmissionEntry;
    emissions.set(path, e.emission);
    hashes.set(path, e.hash);
  }
  return { entries, layout: meta.layout, contentHash: meta.contentHash, state: meta.state, emissions, hashes };
}

/**
 * Saves the assembler's state after an assembly of the files `hashes` names (path → content hash). With `loaded`,
 * the state this process restored, only the files the assembly emitted again are logged.
 */
export async function saveAssembly(file: string, assembler: CodeGraphAssembler, hashes: ReadonlyMap<string, string>, layout: string, contentHash: string, loaded?: LoadedAssembly): Promise<void> {
  const entries = new Map<string, Entry | LazyEntry<Entry>>();
  for (const [path, hash] of hashes) {
    const old = loaded?.entries.get(path) as EmissionEntry | undefined;
    if (old && old.hash === hash && !assembler.emittedPaths.has(path)) entries.set(path, old);
    // Made as it is written: what a file shows others is read then, not held for every file at once.
    else if (assembler.hasEmission(path)) entries.set(path, new LazyEntry(() => ({ hash, emission: assembler.storedEmission(path)! })));
  }
  entries.set(META, { layout, contentHash, state: assembler.storedState() } satisfies MetaEntry);
  try {
    await saveKeyedCache(file, assemblyVersion(), entries, loaded?.entries);
  } catch {
    // A state that could not be saved whole must not be restored: the next build assembles everything.
    await dropKeyedCache(file).catch(() => undefined);
  }
}

/** `assembly-1:` and a digest of the modules that extract, emit and link code and define the graph. */
function assemblyVersion(): string {
  return `assembly-1:${productDigest()}`;
}
