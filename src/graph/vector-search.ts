import { decodeVector, dot, topK } from '../search/vectors.js';
import type { EmbeddingSpace } from './store.js';

/**
 * Exact nearest-neighbour search as both stores run it when no vector index serves: the vectors of one model are
 * read once and kept (until the embedding pass writes again, which changes `stamp`), and each query scores the
 * candidate nodes its filters leave. Memory is the vectors' size (4 bytes × dimensions × distinct texts: 77 MB for
 * 50,000 nodes of 384 dimensions); time is linear in the candidates (about 20 ms per 50,000 at 384 dimensions).
 */
export class VectorCache {
  private loaded: { model: string; stamp: string; byHash: Map<string, Float32Array> } | undefined;

  async vectors(model: string, stamp: string, load: () => Promise<Iterable<readonly [string, Uint8Array]>> | Iterable<readonly [string, Uint8Array]>): Promise<Map<string, Float32Array>> {
    if (this.loaded?.model === model && this.loaded.stamp === stamp) return this.loaded.byHash;
    const byHash = new Map<string, Float32Array>();
    for (const [hash, blob] of await load()) byHash.set(hash, decodeVector(blob));
    this.loaded = { model, stamp, byHash };
    return byHash;
  }
}

/** The `limit` candidates nearest `query` (ties by key, so the order is the same every time). */
export function nearest(candidates: Iterable<{ key: string; hash: string }>, byHash: ReadonlyMap<string, Float32Array>, query: Float32Array, limit: number): { key: string; similarity: number }[] {
  return topK(
    candidates,
    limit,
    (c) => {
      const v = byHash.get(c.hash);
      return v ? dot(v, query) : Number.NaN;
    },
    (c) => c.key,
  ).map(({ item, score }) => ({ key: item.key, similarity: score }));
}

/** The embedding space as a store keeps it in its metadata (JSON), or undefined when absent or unreadable. */
export function parseEmbeddingSpace(text: string | undefined): EmbeddingSpace | undefined {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as EmbeddingSpace;
  } catch {
    return undefined;
  }
}
