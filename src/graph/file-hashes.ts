import { createHash } from 'node:crypto';

/**
 * What a code source keeps with each write (`SourceWrite.artifacts`): the content hash of every file it indexed,
 * so an answer that quotes a file can tell whether the file changed since. The writer (sources/code) and the
 * reader (query/source-text) share this contract.
 */
export const FILE_HASHES_ARTIFACT = 'file-hashes.tsv';

/** SHA-1 of the file's bytes, hex: the hash the code extractor's cache already keys files by. */
export function fileContentHash(bytes: Uint8Array): string {
  return createHash('sha1').update(bytes).digest('hex');
}

/** One `path<TAB>hash` line per file, sorted; files without a hash (unreadable) and unrepresentable paths left out. */
export function formatFileHashes(entries: Iterable<readonly [string, string]>): string {
  const lines: string[] = [];
  for (const [path, hash] of entries) if (hash && !/[\t\n\r]/.test(path)) lines.push(`${path}\t${hash}`);
  return lines.sort().join('\n');
}

export function parseFileHashes(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    const tab = line.lastIndexOf('\t');
    if (tab > 0) out.set(line.slice(0, tab), line.slice(tab + 1));
  }
  return out;
}
