import { createHash } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { shownUrl } from '../config/endpoint.js';
import type { WorkspaceConfig } from '../config/types.js';
import { findConfigFile, loadWorkspaceConfig, type ReadOptions } from '../config/workspace.js';

const SCHEMA_EXTENSIONS = new Set(['.graphql', '.graphqls', '.gql', '.json']);

const GENERIC_FILE_NAMES = new Set(['schema', 'api', 'graphql', 'index', 'introspection', 'sdl']);

export class TargetError extends Error {}

function sourceNameFrom(text: string): string {
  const cleaned = text.toLowerCase().replace(/[^a-z0-9_.-]+/g, '-').replace(/^[^a-z0-9]+|-+$/g, '');
  return cleaned || 'default';
}

/**
 * What `sextant index <target>` means: a sextant.yaml (or a directory holding one), a schema file, a
 * directory of schema files, or an http(s) GraphQL endpoint. Returns the workspace and the default store.
 */
export async function resolveTarget(target: string, env: Record<string, string | undefined> = process.env, read: ReadOptions & { code?: boolean } = {}): Promise<{ config: WorkspaceConfig; root: string }> {
  if (isEndpoint(target)) {
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      // The text is not echoed: it may carry credentials.
      throw new TargetError(`(an invalid URL, not shown): the endpoint is not a valid URL. Write it like https://api.example.com/graphql.`);
    }
    const root = process.cwd();
    return { root, config: { dir: root, sources: [{ kind: 'graphql', name: sourceNameFrom(url.hostname), endpoint: target, headers: {}, timeout_ms: 30000 }] } };
  }
  const abs = resolve(target);
  if (!existsSync(abs)) throw new TargetError(`${abs} does not exist. Pass a sextant.yaml, a directory, a GraphQL schema file (.graphql, .gql, introspection .json) or an http(s) endpoint.`);
  const stat = statSync(abs);
  if (stat.isFile()) {
    const ext = extname(abs).toLowerCase();
    if (ext === '.yaml' || ext === '.yml') {
      const config = await loadWorkspaceConfig(abs, env, read);
      return { config, root: config.dir };
    }
    if (!SCHEMA_EXTENSIONS.has(ext)) throw new TargetError(`${abs}: not a file Sextant can index. Expected sextant.yaml, or a GraphQL schema (.graphql, .graphqls, .gql, or introspection .json).`);
    const root = dirname(abs);
    // `schema.graphql` says little; its folder (`graphql-schema`, `billing-api`) usually names the API.
    const stem = basename(abs, extname(abs));
    const name = GENERIC_FILE_NAMES.has(stem.toLowerCase()) ? basename(root) : stem;
    return { root, config: { dir: root, sources: [{ kind: 'graphql', name: sourceNameFrom(name), schema: [abs], headers: {}, timeout_ms: 30000 }] } };
  }
  const configFile = findConfigFile(abs);
  if (configFile) {
    const config = await loadWorkspaceConfig(configFile, env, read);
    return { config, root: config.dir };
  }
  const schemas = readdirSync(abs).filter((f) => SCHEMA_EXTENSIONS.has(extname(f).toLowerCase()) && extname(f).toLowerCase() !== '.json');
  if (schemas.length > 0) {
    return { root: abs, config: { dir: abs, sources: [{ kind: 'graphql', name: sourceNameFrom(basename(abs)), schema: [abs], headers: {}, timeout_ms: 30000 }] } };
  }
  // A repository published as code (`--source`) is one even with no Java in it: its deployment files link the others.
  if (read.code || looksLikeCodeTree(abs)) {
    return { root: abs, config: { dir: abs, sources: [{ kind: 'code', name: sourceNameFrom(basename(abs)), path: abs, include_tests: false, exclude: [], roles: { annotations: {}, types: {} }, capabilities: { annotations: {}, types: {} }, links: { clients: {}, destinations: {} } }] } };
  }
  throw new TargetError(`${abs} has no sextant.yaml, no Java or Kotlin sources and no GraphQL schema files (.graphql, .graphqls, .gql). Add a sextant.yaml listing sources (see README), or point at a source tree or a schema file.`);
}

export function isEndpoint(target: string): boolean {
  return /^https?:\/\//i.test(target);
}

/**
 * What an index records as built from `target` (so a stale index can say how to rebuild it, and `status` shows
 * it): an endpoint without its user info and query string, each marked `<redacted>` where it was
 * (`https://<redacted>@host/graphql?<redacted>`) so the user knows to supply it; a path, absolute.
 */
export function indexRoot(target: string): string {
  return isEndpoint(target) ? shownUrl(target, { mark: true }) : resolve(target);
}

const BUILD_FILES = new Set(['pom.xml', 'build.gradle', 'build.gradle.kts', 'settings.gradle', 'settings.gradle.kts']);
const SKIP_DIRS = new Set(['node_modules', 'target', 'build', 'out', 'bin']);

/** A directory with a Maven/Gradle build file, or Java/Kotlin sources within a few levels. */
/**
 * Whether a directory holds Java or Kotlin code or a build file: breadth first, so a shallow build file is found
 * at once, and bounded by directories read (a package path alone is six or more levels deep).
 */
function looksLikeCodeTree(root: string): boolean {
  const MAX_DIRS = 5000;
  let queue = [root];
  for (let read = 0; queue.length && read < MAX_DIRS; ) {
    const next: string[] = [];
    for (const dir of queue) {
      if (read++ >= MAX_DIRS) break;
      let entries: import('node:fs').Dirent[];
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const e of entries) {
        if (e.isFile() && (BUILD_FILES.has(e.name) || e.name.endsWith('.java') || e.name.endsWith('.kt'))) return true;
        if (e.isDirectory() && !e.name.startsWith('.') && !SKIP_DIRS.has(e.name)) next.push(join(dir, e.name));
      }
    }
    queue = next;
  }
  return false;
}

export function defaultStoreDir(root: string): string {
  return join(root, '.sextant');
}

/**
 * Where `sextant index` keeps parsed facts between runs when the index itself is not a directory (a database):
 * this user's cache directory (XDG_CACHE_HOME, else ~/.cache), one folder per key (an indexed root, or an estate).
 */
export function localCacheRoot(key: string, env: Record<string, string | undefined> = process.env): string {
  const base = env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'sextant', createHash('sha256').update(key).digest('hex').slice(0, 16));
}
