/** Where a truncated answer was cut: the array or string at `path` kept `kept` of `total` items or characters. */
export interface Cut {
  path: string;
  kept: number;
  total: number;
}

const MIN_STRING = 200;

function size(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? 'null');
}

/**
 * Cuts a JSON value down to at most `maxBytes` of JSON text, keeping it valid JSON of the same shape: the largest
 * arrays lose elements from their end and long strings are shortened (ending in `…`), largest first, until it
 * fits. Deterministic. Returns the value unchanged when it already fits.
 */
export function truncateJson(value: unknown, maxBytes: number): { value: unknown; cuts: Cut[] } {
  if (size(value) <= maxBytes) return { value, cuts: [] };
  const root: Record<string, unknown> = { value: JSON.parse(JSON.stringify(value)) as unknown };
  const cuts = new Map<string, Cut>();
  for (let round = 0; round < 10_000; round++) {
    const total = size(root['value']);
    if (total <= maxBytes) break;
    // The biggest cuttable place: an array with elements, or a string longer than MIN_STRING.
    let best: { holder: Record<string, unknown> | unknown[]; key: string | number; path: string; bytes: number } | undefined;
    const visit = (v: unknown, holder: Record<string, unknown> | unknown[] | undefined, key: string | number, path: string): void => {
      if (Array.isArray(v)) {
        const bytes = size(v);
        if (v.length > 0 && holder && (!best || bytes > best.bytes)) best = { holder, key, path, bytes };
        v.forEach((x, i) => visit(x, v, i, `${path}[${i}]`));
      } else if (typeof v === 'string') {
        const bytes = Buffer.byteLength(v);
        if (v.length > MIN_STRING && holder && (!best || bytes > best.bytes)) best = { holder, key, path, bytes };
      } else if (v && typeof v === 'object') {
        for (const [k, x] of Object.entries(v)) visit(x, v as Record<string, unknown>, k, path ? `${path}.${k}` : k);
      }
    };
    visit(root['value'], root, 'value', '');
    if (!best) break;
    const target = (best.holder as Record<string | number, unknown>)[best.key];
    const excess = total - maxBytes;
    if (Array.isArray(target)) {
      const original = cuts.get(best.path)?.total ?? target.length;
      // The longest prefix with which the whole fits (binary search); none fits: keep nothing and go on cutting.
      const all = target.slice();
      let lo = 0;
      let hi = all.length - 1;
      while (lo < hi) {
        const mid = Math.ceil((lo + hi) / 2);
        target.length = 0;
        target.push(...all.slice(0, mid));
        if (size(root['value']) <= maxBytes) lo = mid;
        else hi = mid - 1;
      }
      target.length = 0;
      target.push(...all.slice(0, lo));
      cuts.set(best.path, { path: best.path || '.', kept: target.length, total: original });
    } else if (typeof target === 'string') {
      const original = cuts.get(best.path)?.total ?? target.length;
      const keep = Math.max(MIN_STRING, target.length - Math.ceil(excess) - 1);
      (best.holder as Record<string | number, unknown>)[best.key] = `${target.slice(0, keep)}…`;
      cuts.set(best.path, { path: best.path || '.', kept: keep, total: original });
    }
  }
  return { value: root['value'], cuts: [...cuts.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)) };
}
