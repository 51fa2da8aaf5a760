import { type RecalledYaml, YamlRecall } from './config/yaml-recall.js';
import { dropKeyedCache, loadKeyedCache, saveKeyedCache } from './keyed-cache.js';
import { productDigest } from './product.js';

/**
 * What reading each configuration and deployment YAML file gave, kept beside the assembler's state
 * (`code-<source>.yaml`) for the next re-index to recall instead of parsing (see config/yaml-recall.ts). Like that
 * state, it holds only against the very Sextant that wrote it: readers that change read the files again.
 */
export interface LoadedYamlRecall {
  file: string;
  recall: YamlRecall;
  stored: ReadonlyMap<string, RecalledYaml>;
}

export async function loadYamlRecall(file: string): Promise<LoadedYamlRecall> {
  const stored = await loadKeyedCache<RecalledYaml>(file, yamlCacheVersion());
  return { file, recall: new YamlRecall(stored), stored };
}

/** Saves what the build read (only the entries that changed, when the log allows); a failed save drops the file. */
export async function saveYamlRecall({ file, recall, stored }: LoadedYamlRecall): Promise<void> {
  try {
    await saveKeyedCache(file, yamlCacheVersion(), recall.kept, stored);
  } catch {
    await dropKeyedCache(file).catch(() => undefined);
  }
}

function yamlCacheVersion(): string {
  return `yaml-1:${productDigest()}`;
}
