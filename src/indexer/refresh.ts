import type { WorkspaceConfig } from '../config/types.js';

export interface RefreshEvents {
  failed?: (source: string, err: unknown) => void;
}

/**
 * Re-reads GraphQL endpoints on their `refresh` schedule: calls `refresh([name])` every `refresh_seconds` for
 * each source that has one. A refresh still running when the next is due is not started twice.
 */
export function scheduleRefresh(config: WorkspaceConfig, refresh: (sources: string[]) => Promise<void>, events: RefreshEvents = {}): { sources: string[]; close: () => void } {
  const timers: NodeJS.Timeout[] = [];
  const sources: string[] = [];
  for (const s of config.sources) {
    if (s.kind !== 'graphql' || !s.endpoint || !s.refresh_seconds) continue;
    sources.push(s.name);
    let running = false;
    timers.push(
      setInterval(() => {
        if (running) return;
        running = true;
        refresh([s.name])
          .catch((err: unknown) => events.failed?.(s.name, err))
          .finally(() => {
            running = false;
          });
      }, s.refresh_seconds * 1000),
    );
  }
  return { sources, close: () => timers.forEach((t) => clearInterval(t)) };
}
