import type { EmbeddingsConfig } from '../config/types.js';
import type { EmbeddingSpace } from '../graph/store.js';
import { EmbeddingClient } from '../search/embeddings.js';

/**
 * How a query's text becomes a vector of the index's embedding space: the endpoint and model the embedding pass
 * recorded (`EmbeddingSpace`), its API key read from the variable the configuration named (or
 * `SEXTANT_EMBEDDINGS_API_KEY`), or — when the surface has the workspace's configuration for the same model — that
 * configuration as written. A server therefore needs nothing beyond the index (and the key's variable).
 */
export type QueryEmbedder = (space: EmbeddingSpace, text: string) => Promise<Float32Array>;

/** Query vectors kept per process (agents ask the same query again while paging). */
const CACHE_SIZE = 256;
const QUERY_TIMEOUT_MS = 15_000;

export function queryEmbedder(env: Readonly<Record<string, string | undefined>> = process.env, config?: EmbeddingsConfig): QueryEmbedder {
  const clients = new Map<string, EmbeddingClient>();
  const cache = new Map<string, Float32Array>();
  return async (space, text) => {
    const key = `${space.model}\0${space.endpoint}\0${text}`;
    const hit = cache.get(key);
    if (hit) {
      cache.delete(key);
      cache.set(key, hit);
      return hit;
    }
    let client = clients.get(space.model + space.endpoint);
    if (!client) {
      client = clientFor(space, env, config);
      clients.set(space.model + space.endpoint, client);
    }
    const [vector] = await client.embedBatch([text]);
    cache.set(key, vector!);
    if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
    return vector!;
  };
}

function clientFor(space: EmbeddingSpace, env: Readonly<Record<string, string | undefined>>, config: EmbeddingsConfig | undefined): EmbeddingClient {
  const at = space.model.lastIndexOf('@');
  const dims = at > 0 && /^\d+$/.test(space.model.slice(at + 1)) ? Number(space.model.slice(at + 1)) : undefined;
  const model = dims ? space.model.slice(0, at) : space.model;
  if (config && config.model === model && config.dimensions === dims) {
    return new EmbeddingClient({ url: config.url, model, ...(dims ? { dimensions: dims } : {}), ...(config.api_key ? { apiKey: config.api_key } : {}), headers: config.headers, batchSize: 1, timeoutMs: Math.min(config.timeout_ms, QUERY_TIMEOUT_MS), attempts: 2 });
  }
  const apiKey = (space.api_key_env ? env[space.api_key_env] : undefined) ?? env.SEXTANT_EMBEDDINGS_API_KEY;
  return new EmbeddingClient({ url: space.endpoint, model, ...(dims ? { dimensions: dims } : {}), ...(apiKey ? { apiKey } : {}), batchSize: 1, timeoutMs: QUERY_TIMEOUT_MS, attempts: 2 });
}
