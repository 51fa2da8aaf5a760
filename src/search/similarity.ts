/** String similarity used for did-you-mean suggestions (field names, enum values, node names). */

/** Padded trigrams the way pg_trgm forms them: lower-cased words, two spaces before and one after. */
export function trigrams(text: string): Set<string> {
  const out = new Set<string>();
  for (const word of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (!word) continue;
    const padded = `  ${word} `;
    for (let i = 0; i + 3 <= padded.length; i++) out.add(padded.slice(i, i + 3));
  }
  return out;
}

/** pg_trgm-style similarity: shared trigrams over the union, 0..1. */
export function trigramSimilarity(a: string, b: string): number {
  return trigramScorer(a)(b);
}

/** Similarity to one fixed text, its trigrams computed once (for scoring many candidates). */
export function trigramScorer(text: string): (other: string) => number {
  const ta = trigrams(text);
  return (other) => {
    const tb = trigrams(other);
    if (ta.size === 0 || tb.size === 0) return 0;
    let shared = 0;
    for (const t of tb) if (ta.has(t)) shared++;
    return shared / (ta.size + tb.size - shared);
  };
}

/** Optimal-string-alignment edit distance (Levenshtein plus adjacent transpositions). */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  const n = a.length;
  const m = b.length;
  if (n === 0) return m;
  if (m === 0) return n;
  let prev2 = new Array<number>(m + 1).fill(0);
  let prev = Array.from({ length: m + 1 }, (_, j) => j);
  let cur = new Array<number>(m + 1).fill(0);
  for (let i = 1; i <= n; i++) {
    cur[0] = i;
    for (let j = 1; j <= m; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, prev2[j - 2]! + 1);
      cur[j] = v;
    }
    [prev2, prev, cur] = [prev, cur, prev2];
  }
  return prev[m]!;
}

/** Did-you-mean compares inputs up to this long; a longer input has no suggestions (it is refused by size first). */
const MAX_SUGGEST_INPUT = 256;
/** At most this many candidates are compared per call (the first ones, in the order given). */
const MAX_SUGGEST_CANDIDATES = 5000;
/** Edit-distance cells one call may spend in all: a bound on the work, whatever the inputs. */
const MAX_SUGGEST_CELLS = 4_000_000;

/**
 * The candidates closest to `input`, best first: case-insensitive edit distance within a third of the
 * length (at least 2), or a high trigram similarity, or one being a prefix of the other. The work is bounded:
 * an input over MAX_SUGGEST_INPUT characters gets none; candidates over it are skipped; at most
 * MAX_SUGGEST_CANDIDATES are compared, and comparing stops when the edit-distance budget is spent.
 */
export function closest(input: string, candidates: Iterable<string>, max = 3): string[] {
  if (input.length > MAX_SUGGEST_INPUT) return [];
  const needle = input.toLowerCase();
  const similarityTo = trigramScorer(needle);
  const scored: { c: string; score: number }[] = [];
  let compared = 0;
  let cells = 0;
  for (const c of candidates) {
    if (c.length > MAX_SUGGEST_INPUT) continue;
    if (++compared > MAX_SUGGEST_CANDIDATES) break;
    cells += (needle.length + 1) * (c.length + 1);
    if (cells > MAX_SUGGEST_CELLS) break;
    const lower = c.toLowerCase();
    const dist = editDistance(needle, lower);
    const budget = Math.max(2, Math.floor(Math.max(needle.length, lower.length) / 3));
    const sim = similarityTo(lower);
    const prefix = needle.length >= 3 && (lower.startsWith(needle) || needle.startsWith(lower));
    if (dist <= budget || sim >= 0.45 || prefix) scored.push({ c, score: dist - sim * 2 - (prefix ? 1 : 0) });
  }
  scored.sort((x, y) => x.score - y.score || (x.c < y.c ? -1 : x.c > y.c ? 1 : 0));
  return scored.slice(0, max).map((s) => s.c);
}
