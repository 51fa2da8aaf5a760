/** Vectors as stores keep them, exact nearest-neighbour scoring, and reciprocal-rank fusion. */

/** A vector as stored: little-endian 32-bit floats. */
export function encodeVector(v: Float32Array): Buffer {
  const buf = Buffer.alloc(v.length * 4);
  for (let i = 0; i < v.length; i++) buf.writeFloatLE(v[i]!, i * 4);
  return buf;
}

export function decodeVector(buf: Uint8Array): Float32Array {
  const out = new Float32Array(buf.length / 4);
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}

/** Dot product: the cosine similarity of two unit vectors. */
export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) s += a[i]! * b[i]!;
  return s;
}

/**
 * The `k` best of `items` by `score` (higher first; ties by `key`), without sorting them all. Deterministic: the
 * same items give the same order whatever order they come in.
 */
export function topK<T>(items: Iterable<T>, k: number, score: (t: T) => number, key: (t: T) => string): { item: T; score: number }[] {
  const kept: { item: T; score: number; key: string }[] = [];
  const worse = (a: { score: number; key: string }, b: { score: number; key: string }) => a.score < b.score || (a.score === b.score && a.key > b.key);
  for (const item of items) {
    const s = score(item);
    if (Number.isNaN(s)) continue;
    if (kept.length >= k && !worse(kept[kept.length - 1]!, { score: s, key: key(item) })) continue;
    const entry = { item, score: s, key: key(item) };
    let i = kept.length;
    while (i > 0 && worse(kept[i - 1]!, entry)) i--;
    kept.splice(i, 0, entry);
    if (kept.length > k) kept.pop();
  }
  return kept.map(({ item, score: s }) => ({ item, score: s }));
}

/** The `k` of reciprocal-rank fusion (Cormack et al.): ranks past the first few count less, never nothing. */
export const RRF_K = 60;

/** Reciprocal-rank fusion of ranked lists of keys: Σ weight / (RRF_K + rank), rank from 1. */
export function reciprocalRankFusion(lists: readonly { keys: readonly string[]; weight?: number }[]): Map<string, number> {
  const fused = new Map<string, number>();
  for (const { keys, weight = 1 } of lists) {
    keys.forEach((key, i) => fused.set(key, (fused.get(key) ?? 0) + weight / (RRF_K + i + 1)));
  }
  return fused;
}
