import parseDiff from 'parse-diff';

/** One file of a unified diff, as the `changes` tool maps it onto the index. */
export interface DiffFile {
  /** Path on the old and new side, without `a/` / `b/`; undefined where the file does not exist (added, deleted). */
  oldPath?: string;
  newPath?: string;
  status: 'modified' | 'added' | 'deleted' | 'renamed' | 'binary';
  /**
   * Lines touched on each side: on the old side the deleted lines and, for a pure insertion, the line it follows;
   * on the new side the added lines and, for a pure deletion, the line after it.
   */
  oldLines: number[];
  newLines: number[];
  /** What each side must read at a line for the diff to apply (context and removed lines; added and context lines). */
  oldExpect: Map<number, string>;
  newExpect: Map<number, string>;
}

const BINARY = /^Binary files (?:a\/)?(.+?) and (?:b\/)?(.+?) differ$/gm;

function clean(path: string | undefined): string | undefined {
  if (!path || path === '/dev/null') return undefined;
  return path.replace(/^[ab]\//, '');
}

/**
 * Reads a unified diff (git's or plain `diff -u`). Never throws: text that is no diff gives no files, and the tool
 * says so.
 */
export function readDiff(text: string): DiffFile[] {
  const binary = new Set<string>();
  for (const m of text.matchAll(BINARY)) binary.add(m[2]!);
  const out: DiffFile[] = [];
  for (const f of parseDiff(text)) {
    const oldPath = f.new ? undefined : clean(f.from);
    const newPath = f.deleted ? undefined : clean(f.to);
    const status: DiffFile['status'] =
      newPath && binary.has(newPath) ? 'binary' : f.new ? 'added' : f.deleted ? 'deleted' : oldPath && newPath && oldPath !== newPath ? 'renamed' : 'modified';
    const file: DiffFile = { ...(oldPath ? { oldPath } : {}), ...(newPath ? { newPath } : {}), status, oldLines: [], newLines: [], oldExpect: new Map(), newExpect: new Map() };
    for (const chunk of f.chunks) {
      let lastOld = chunk.oldStart - 1;
      let lastNew = chunk.newStart - 1;
      let pendingAdd = false;
      let pendingDel = false;
      for (const c of chunk.changes) {
        if (c.type === 'normal') {
          if (pendingAdd) file.oldLines.push(Math.max(1, lastOld));
          if (pendingDel) file.newLines.push(c.ln2);
          pendingAdd = pendingDel = false;
          lastOld = c.ln1;
          lastNew = c.ln2;
          file.oldExpect.set(c.ln1, c.content.slice(1));
          file.newExpect.set(c.ln2, c.content.slice(1));
        } else if (c.type === 'del') {
          file.oldLines.push(c.ln);
          file.oldExpect.set(c.ln, c.content.slice(1));
          lastOld = c.ln;
          pendingDel = true;
        } else {
          file.newLines.push(c.ln);
          file.newExpect.set(c.ln, c.content.slice(1));
          lastNew = c.ln;
          pendingAdd = true;
        }
      }
      if (pendingAdd) file.oldLines.push(Math.max(1, lastOld));
      if (pendingDel) file.newLines.push(Math.max(1, lastNew + 1));
    }
    file.oldLines = [...new Set(file.oldLines)].sort((a, b) => a - b);
    file.newLines = [...new Set(file.newLines)].sort((a, b) => a - b);
    out.push(file);
  }
  return out;
}
