import { resolveTarget } from '../indexer/target.js';
import { openStore } from '../graph/open.js';
import type { Ontology } from '../graph/ontology/index.js';
import { dataSourcesOf, type DataSourceAccess } from '../query/data/access.js';

/**
 * The data access a server or CLI call offers: from the workspace named by `--config`, else from what the index
 * was built from (its recorded sextant.yaml, directory or endpoint). Credentials are read from the environment of
 * this process, never from the index. When neither is usable, data tools say how to configure them.
 */
export async function loadDataSources(ontology: Ontology, storeLocation: string, configTarget: string | undefined, env: Record<string, string | undefined> = process.env): Promise<{ sources: Map<string, DataSourceAccess>; warning?: string }> {
  let target = configTarget;
  if (!target) {
    try {
      const store = openStore(ontology, storeLocation, 'read');
      try {
        target = (await store.meta()).root;
      } finally {
        await store.close();
      }
    } catch {
      return { sources: new Map() };
    }
  }
  if (!target) return { sources: new Map() };
  try {
    const { config } = await resolveTarget(target, env, { forData: true });
    return { sources: dataSourcesOf(config) };
  } catch (err) {
    return { sources: new Map(), warning: `data tools are off: the workspace ${target} cannot be read (${(err as Error).message})` };
  }
}
