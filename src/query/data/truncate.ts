/** Where a truncated answer was cut: the list, string or object at `path` kept `kept` of `total` items, characters or members. */
export interface Cut {
  path: string;
  kept: number;
  total: number;
}

/** Strings are never cut below this many characters (plus the `…` that marks the cut). */
const MIN_STRING = 200;
/** Single cuts, largest first, before the rest is cut in bulk (many long strings in one object). */
const SINGLE_CUTS = 50;

type Holder = Record<string, unknown> | unknown[];
interface Place {
  holder: Holder;
  key: string | number;
  path: string;
  bytes: number;
}

function size(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? 'null');
}

function cuttableString(v: unknown): v is string {
  return typeof v === 'string' && v.length > MIN_STRING + 1;
}

/**
 * Every list and long string below `root.value` (and, with `objects`, every object with members), with its
 * serialized size. Objects are measured only when asked: each measure serializes the subtree again.
 */
function places(root: Record<string, unknown>, objects = false): { lists: Place[]; strings: Place[]; objects: Place[] } {
  const out = { lists: [] as Place[], strings: [] as Place[], objects: [] as Place[] };
  const visit = (v: unknown, holder: Holder, key: string | number, path: string): void => {
    if (Array.isArray(v)) {
      if (v.length > 0) out.lists.push({ holder, key, path, bytes: size(v) });
      v.forEach((x, i) => visit(x, v, i, `${path}[${i}]`));
    } else if (cuttableString(v)) {
      out.strings.push({ holder, key, path, bytes: Buffer.byteLength(v) });
    } else if (v && typeof v === 'object') {
      const entries = Object.entries(v);
      if (objects && entries.length > 0) out.objects.push({ holder, key, path, bytes: size(v) });
      for (const [k, x] of entries) visit(x, v as Record<string, unknown>, k, path ? `${path}.${k}` : k);
    }
  };
  visit(root['value'], root, 'value', '');
  const bySize = (a: Place, b: Place) => b.bytes - a.bytes || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  out.lists.sort(bySize);
  out.strings.sort(bySize);
  out.objects.sort(bySize);
  return out;
}

/**
 * Cuts a JSON value down to at most `maxBytes` of JSON text, keeping it valid JSON of the same shape: the largest
 * list or long string is cut first (a list keeps its longest prefix that fits, a string ends in `…`), then, when
 * many are left, every long string at once, and last the members of the largest objects. Deterministic; every
 * cut is reported. `fits` is false only when what is left cannot be cut (a single number, say).
 */
export function truncateJson(value: unknown, maxBytes: number): { value: unknown; cuts: Cut[]; fits: boolean } {
  if (size(value) <= maxBytes) return { value, cuts: [], fits: true };
  const root: Record<string, unknown> = { value: JSON.parse(JSON.stringify(value)) as unknown };
  const cuts = new Map<string, Cut>();
  const record = (path: string, kept: number, total: number) => cuts.set(path, { path: path || '.', kept, total: cuts.get(path)?.total ?? total });
  /** The longest prefix (of a list, or of an object's members) with which the whole fits. */
  const keepPrefix = (count: number, apply: (n: number) => void): number => {
    let lo = 0;
    let hi = count - 1;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      apply(mid);
      if (size(root['value']) <= maxBytes) lo = mid;
      else hi = mid - 1;
    }
    apply(lo);
    return lo;
  };
  const cutList = (p: Place): void => {
    const list = (p.holder as Record<string | number, unknown>)[p.key] as unknown[];
    const all = list.slice();
    const kept = keepPrefix(all.length, (n) => {
      list.length = 0;
      list.push(...all.slice(0, n));
    });
    record(p.path, kept, all.length);
  };
  const cutString = (p: Place, excess: number): void => {
    const text = (p.holder as Record<string | number, unknown>)[p.key] as string;
    const keep = Math.max(MIN_STRING, text.length - excess - 1);
    (p.holder as Record<string | number, unknown>)[p.key] = `${text.slice(0, keep)}…`;
    record(p.path, keep, text.length);
  };
  const cutObject = (p: Place): void => {
    const obj = (p.holder as Record<string | number, unknown>)[p.key] as Record<string, unknown>;
    const entries = Object.entries(obj);
    const kept = keepPrefix(entries.length, (n) => {
      for (const k of Object.keys(obj)) delete obj[k];
      for (const [k, v] of entries.slice(0, n)) obj[k] = v;
    });
    record(p.path, kept, entries.length);
  };

  for (let round = 0; round < SINGLE_CUTS; round++) {
    const total = size(root['value']);
    if (total <= maxBytes) break;
    const { lists, strings } = places(root);
    const list = lists[0];
    const string = strings[0];
    if (!list && !string) break;
    if (list && (!string || list.bytes >= string.bytes)) cutList(list);
    else cutString(string!, total - maxBytes);
  }
  if (size(root['value']) > maxBytes) {
    for (const s of places(root).strings) cutString(s, Number.MAX_SAFE_INTEGER);
  }
  for (let round = 0; round < SINGLE_CUTS && size(root['value']) > maxBytes; round++) {
    const { lists, objects } = places(root, true);
    const target = lists[0] ?? objects[0];
    if (!target) break;
    if (lists[0]) cutList(target);
    else cutObject(target);
  }
  const sorted = [...cuts.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { value: root['value'], cuts: sorted, fits: size(root['value']) <= maxBytes };
}
