import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { CodeMount, CodeSourceConfig } from '../../config/types.js';
import { discover, type Discovery } from './discover.js';
import type { ReadLog } from './stamp.js';

/**
 * Where a code source's files are: one directory, or (for an estate of repositories) several mounted side by side,
 * each as the folder of its name, so every later step reads paths relative to one tree either way.
 */
export interface CodeTree {
  /** The absolute file of a path relative to the tree. */
  abs(rel: string): string;
  discover(): Promise<Discovery>;
  /** Files under a directory of the tree (relative paths), bounded: an OpenAPI spec folder. */
  listFiles(dir: string, limit?: number): string[];
  /** The names of the files in one directory of the tree (not below it), sorted; undefined when there is none. */
  listDir(dir: string): string[] | undefined;
}

/** A mounted tree's root, as its discovery names it: no files sit there, and its name is the same for every build. */
const MOUNTED_ROOT = '/sextant-estate';

/** `log` stamps every directory the tree lists and every file discovery reads (see stamp.ts). */
export function codeTree(cfg: CodeSourceConfig, log?: ReadLog): CodeTree {
  if (!cfg.mounts) {
    const root = cfg.path;
    return {
      abs: (rel) => join(root, rel),
      discover: () => discover(root, { includeTests: cfg.include_tests, exclude: cfg.exclude, ...(log ? { log } : {}) }),
      listFiles: (dir, limit) => listFilesUnder(root, dir, limit, log),
      listDir: (dir) => filesIn(join(root, dir), log),
    };
  }
  return mountedTree(cfg.mounts, log);
}

function mountedTree(mounts: readonly CodeMount[], log: ReadLog | undefined): CodeTree {
  const byName = new Map(mounts.map((m) => [m.name, m]));
  const split = (rel: string): { mount: CodeMount; rest: string } | undefined => {
    const clean = rel.replace(/^\.?\/+/, '');
    const slash = clean.indexOf('/');
    const mount = byName.get(slash < 0 ? clean : clean.slice(0, slash));
    return mount ? { mount, rest: slash < 0 ? '' : clean.slice(slash + 1) } : undefined;
  };
  return {
    abs: (rel) => {
      const at = split(rel);
      // A path outside every mount names no file: reading it fails as a missing file does.
      return at ? join(at.mount.path, at.rest) : join('/nonexistent-sextant-mount', rel);
    },
    discover: async () => {
      const merged: Discovery = { root: MOUNTED_ROOT, files: [], configFiles: [], buildFiles: [], deploymentFiles: [], skipped: { gitignored: 0, buildOutput: 0, tests: 0, excluded: 0 }, warnings: [] };
      for (const m of [...mounts].sort((a, b) => (a.name < b.name ? -1 : 1))) {
        const found = await discover(m.path, { includeTests: m.include_tests, exclude: m.exclude, ...(log ? { log } : {}) });
        const under = (p: string) => `${m.name}/${p}`;
        merged.files.push(...found.files.map((f) => ({ ...f, path: under(f.path) })));
        merged.configFiles.push(...found.configFiles.map(under));
        merged.buildFiles.push(...found.buildFiles.map(under));
        merged.deploymentFiles.push(...found.deploymentFiles.map(under));
        merged.warnings.push(...found.warnings.map((w) => `${m.name}: ${w}`));
        for (const k of Object.keys(merged.skipped) as (keyof Discovery['skipped'])[]) merged.skipped[k] += found.skipped[k];
      }
      const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
      merged.files.sort((a, b) => byString(a.path, b.path));
      for (const list of [merged.configFiles, merged.buildFiles, merged.deploymentFiles, merged.warnings]) list.sort(byString);
      return merged;
    },
    listFiles: (dir, limit) => {
      const at = split(dir);
      if (!at) return [];
      return listFilesUnder(at.mount.path, at.rest, limit, log).map((p) => `${at.mount.name}/${p}`);
    },
    listDir: (dir) => {
      const at = split(dir);
      // The root holds the mounts' folders and no file.
      if (!at) return dir.replace(/^\.?\/*/, '') === '' ? [] : undefined;
      return filesIn(join(at.mount.path, at.rest), log);
    },
  };
}

function filesIn(dir: string, log?: ReadLog): string[] | undefined {
  log?.dir(dir);
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => e.name)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  } catch {
    return undefined;
  }
}

function listFilesUnder(root: string, dir: string, limit = 2000, log?: ReadLog): string[] {
  const out: string[] = [];
  const pending = [dir.replace(/^\.?\/?/, '').replace(/\/+$/, '')];
  while (pending.length && out.length < limit) {
    const rel = pending.pop()!;
    let entries: import('node:fs').Dirent[];
    log?.dir(join(root, rel));
    try {
      entries = readdirSync(join(root, rel), { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (e.name.startsWith('.') || e.name === 'node_modules' || e.name === 'target' || e.name === 'build') continue;
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) pending.push(path);
      else if (e.isFile()) out.push(path);
    }
  }
  return out.sort();
}
