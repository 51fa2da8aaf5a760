import { watch, type FSWatcher } from 'chokidar';
import { basename, resolve } from 'node:path';
import type { WorkspaceConfig } from '../config/types.js';

/** Directories whose changes never matter to an index. */
const IGNORED_DIRS = new Set(['.git', 'node_modules', '.sextant', 'target', 'build', 'out', '.gradle', '.idea', '.mvn', 'dist']);
/** Files whose changes can change a graph: sources, schemas, Spring configuration, build files. */
const RELEVANT = /\.(java|kt|graphql|graphqls|gql|json|ya?ml|properties|xml|gradle|kts|toml|conf|conf\.template|env)$|^\.(gitignore|env)$/;
/** nginx keeps configuration in extension-less files under these directories. */
const NGINX_DIRS = /(?:^|\/)(?:nginx|conf\.d|sites-[a-z]+)\/[^/.]+$/;

export interface WatchEvents {
  /** Files changed; a rebuild follows after a quiet period. */
  changed?: (paths: string[]) => void;
  rebuilt?: (ms: number) => void;
  failed?: (err: unknown) => void;
  /** Something the watcher cannot watch (a link loop, a directory it may not read): watching goes on without it. */
  warning?: (message: string) => void;
}

/**
 * Watches what a workspace indexes and calls `rebuild` after changes settle (`quietMs`), one rebuild at a time;
 * changes during a rebuild cause one more. `onPending` runs as soon as a change is seen, before the rebuild.
 */
export function watchWorkspace(config: WorkspaceConfig, storeDir: string, rebuild: () => Promise<void>, onPending: (since: string) => Promise<void>, events: WatchEvents = {}, quietMs = 300): { ready: Promise<void>; close: () => Promise<void> } {
  const roots = new Set<string>();
  for (const s of config.sources) {
    if (s.kind === 'code') roots.add(s.path);
    else for (const p of s.schema ?? []) roots.add(p);
  }
  if (config.path) roots.add(config.path);
  const store = resolve(storeDir);
  const watcher: FSWatcher = watch([...roots], {
    ignoreInitial: true,
    // Indexing never follows a linked directory (nor a link out of the tree): a link loop or a link to `/` is not
    // walked here either.
    followSymlinks: false,
    ignored: (path, stats) => {
      if (path === store || path.startsWith(`${store}/`)) return true;
      if (IGNORED_DIRS.has(basename(path))) return true;
      return Boolean(stats?.isFile()) && !RELEVANT.test(basename(path)) && !NGINX_DIRS.test(path.replace(/\\/g, '/'));
    },
  });
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  const changed: string[] = [];
  const run = async (): Promise<void> => {
    if (running) {
      again = true;
      return;
    }
    const paths = changed.splice(0);
    events.changed?.(paths);
    const t0 = performance.now();
    running = rebuild()
      .then(() => events.rebuilt?.(Math.round(performance.now() - t0)))
      .catch((err: unknown) => events.failed?.(err))
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          void run();
        }
      });
    await running;
  };
  const onChange = (path: string): void => {
    if (!changed.length) void onPending(new Date().toISOString()).catch(() => undefined);
    changed.push(path);
    clearTimeout(timer);
    timer = setTimeout(() => void run(), quietMs);
  };
  for (const event of ['add', 'change', 'unlink', 'unlinkDir'] as const) watcher.on(event, (path: string) => onChange(path));
  watcher.on('error', (err: unknown) => {
    const e = err as NodeJS.ErrnoException;
    events.warning?.(`cannot watch ${e.path ?? 'a path'} (${e.code ?? (e instanceof Error ? e.message : String(err))}); watching the rest`);
  });
  const ready = new Promise<void>((done) => watcher.once('ready', () => done()));
  return {
    ready,
    close: async () => {
      clearTimeout(timer);
      await watcher.close();
      await running;
    },
  };
}

