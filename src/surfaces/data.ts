import { hasRedactedParts } from '../config/endpoint.js';
import { isEndpoint, resolveTarget } from '../indexer/target.js';
import type { Store } from '../graph/store.js';
import { dataSourcesOf, type DataSourceAccess } from '../query/data/access.js';

/**
 * The data access a server or CLI call offers: from the workspace named by `--config`, else from what the index
 * was built from (its recorded sextant.yaml, directory or endpoint). Credentials are read from the environment of
 * this process, never from the index. When neither is usable, data tools say how to configure them.
 */
export async function loadDataSources(store: Store | undefined, configTarget: string | undefined, env: Record<string, string | undefined> = process.env): Promise<{ sources: Map<string, DataSourceAccess>; warning?: string }> {
  const target = configTarget ?? (await store?.meta())?.root;
  if (!target) return { sources: new Map() };
  if (configTarget === undefined && isEndpoint(target) && hasRedactedParts(target)) {
    // The index records an endpoint without the credentials or query string it was given; queries sent there
    // would go to another URL. Never a guess: say what to pass.
    return { sources: new Map(), warning: `data tools are off: the index was built from ${target}, recorded without the parts marked <redacted> (credentials are never stored); pass \`--config\` with the full endpoint URL or a sextant.yaml` };
  }
  try {
    const { config } = await resolveTarget(target, env, { forData: true });
    return { sources: dataSourcesOf(config) };
  } catch (err) {
    return { sources: new Map(), warning: `data tools are off: the workspace ${target} cannot be read (${(err as Error).message})` };
  }
}
