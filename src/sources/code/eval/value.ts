import type { HOLE_KINDS } from '../../../graph/ontology/code.js';
import type { MemberEntry, TypeEntry } from '../model/model.js';
import type { Expr } from '../parse/ir.js';
/**
 * Abstract string values: what an expression can hold, as a bounded set of partial strings. A part the estate
 * does not determine is an explicit hole that says where it came from; it is never guessed.
 */

/** What kind of value a hole stopped at (the ontology's `unresolved_kind`). */
export type HoleKind = (typeof HOLE_KINDS)[number];

export interface Hole {
  /** Why the part is unknown, for an agent to act on (`parameter ownerId`, `configuration key order.url, set by no file`). */
  origin: string;
  /** A name to show it by in a path (`{ownerId}`); absent for holes that are not path variables. */
  name?: string;
  kind?: HoleKind;
  /** The configuration key, variable, parameter (`Type#method(param)`) or expression the value stopped at. */
  at?: string;
  /** A stand-in for a parameter while finding out whether a value depends on it (`Evaluator.choosers`). */
  marker?: string;
  /** The unknown value is a bean the framework injects (a constructor or `@Bean` parameter, an `@Autowired` field). */
  injected?: true;
  /**
   * The value is read back from where the estate stored it: a property of an object of a project class that came
   * from elsewhere (`class:pkg.Type#property`: a row loaded from a table, a message payload), or a message header
   * (`header:name`). Whatever the estate writes there is what it can be (`Evaluator.storedWrites`).
   */
  stored?: string;
}

export type Piece = { s: string; hole?: undefined } | { hole: Hole; s?: undefined };

export interface Value {
  pieces: Piece[];
  /** Where configuration gave parts of it (`file: key`), in order. */
  from: string[];
  /** The Spring profile(s) a configuration value came from, when the default profile does not set it. */
  profile?: string;
  /** An object bound from configuration under this prefix (a `@ConfigurationProperties` instance), not a string. */
  bound?: string;
  /** An object of a project class made with these constructor arguments (`new ServiceUri(host, "/x")`), not a string. */
  instance?: Instance;
  /**
   * An empty value that is empty only because this configuration key is set by no file and its `${…:}` default is
   * empty (`${AM_CLIENT_URL:${am.url:}}`): where a base URL is wanted, the key it stops at.
   */
  unset?: string;
}

/** An object of a project class: its type and the constructor arguments it was made with, where they are written. */
export interface Instance {
  type: TypeEntry;
  args: readonly Expr[];
  /** Where the arguments are evaluated: the `new` (an enum constant's are in its enum). */
  at?: { owner: TypeEntry; member?: MemberEntry; line: number; bindings?: ReadonlyMap<string, Value[]> };
}

/** At most this many alternatives are kept; more become one hole. */
export const MAX_VALUES = 32;

export function literal(s: string): Value[] {
  return [{ pieces: s ? [{ s }] : [], from: [] }];
}

export function unknown(origin: string, how: { name?: string; kind?: HoleKind; at?: string; injected?: boolean; stored?: string } = {}): Value[] {
  const hole: Hole = { origin };
  if (how.name) hole.name = how.name;
  if (how.kind) hole.kind = how.kind;
  if (how.at) hole.at = how.at;
  if (how.injected) hole.injected = true;
  if (how.stored) hole.stored = how.stored;
  return [{ pieces: [{ hole }], from: [] }];
}

export function boundObject(prefix: string, from: string[] = []): Value[] {
  return [{ pieces: [], from, bound: prefix }];
}

function keyOf(v: Value): string {
  const instance = v.instance ? `${v.instance.type.qn}@${v.instance.at?.owner.qn ?? ''}:${v.instance.at?.line ?? 0}:${v.instance.args.length}` : null;
  return JSON.stringify([v.pieces, v.bound ?? null, v.profile ?? null, instance]);
}

/** The alternatives of several values, without repeats, bounded. */
export function union(...lists: Value[][]): Value[] {
  let only: Value | undefined;
  let count = 0;
  for (const list of lists) {
    count += list.length;
    if (list.length) only = list[0];
  }
  // One value is its own union (most unions, in a product of single values): nothing to compare it with.
  if (count <= 1) return only ? [only] : [];
  const out = new Map<string, Value>();
  for (const list of lists) {
    for (const v of list) {
      const key = keyOf(v);
      if (!out.has(key)) out.set(key, v);
    }
  }
  if (out.size > MAX_VALUES) return unknown(`more than ${MAX_VALUES} possible values`, { kind: 'limit' });
  return [...out.values()];
}

function mergePieces(a: Piece[], b: Piece[]): Piece[] {
  const out = [...a];
  for (const p of b) {
    const last = out[out.length - 1];
    if (p.s !== undefined && last?.s !== undefined) out[out.length - 1] = { s: last.s + p.s };
    else out.push(p);
  }
  return out;
}

function joinFrom(a: Value, b: Value): Pick<Value, 'from' | 'profile'> {
  const profile = a.profile ?? b.profile;
  return { from: [...new Set([...a.from, ...b.from])], ...(profile ? { profile } : {}) };
}

/** Every combination of `a` followed by `b`, through `combine`. */
export function product(a: Value[], b: Value[], combine: (x: Value, y: Value) => Value): Value[] {
  if (a.length * b.length > MAX_VALUES) return unknown(`more than ${MAX_VALUES} possible values`, { kind: 'limit' });
  return union(a.flatMap((x) => b.map((y) => combine(x, y))));
}

export function concat(a: Value[], b: Value[]): Value[] {
  return product(a, b, (x, y) => {
    const pieces = mergePieces(x.pieces, y.pieces);
    const unset = pieces.length ? undefined : (x.unset ?? y.unset);
    return { pieces, ...joinFrom(x, y), ...(unset !== undefined ? { unset } : {}) };
  });
}

/** `base` and `path` with exactly one `/` between them (UriBuilder#path, a base URL and a relative path). */
export function joinPath(a: Value[], b: Value[]): Value[] {
  return product(a, b, (x, y) => {
    const left = trimEnd(x.pieces);
    const right = trimStart(y.pieces);
    if (!left.length) return { pieces: y.pieces, ...joinFrom(x, y) };
    if (!right.length) return { pieces: x.pieces, ...joinFrom(x, y) };
    return { pieces: mergePieces(mergePieces(left, [{ s: '/' }]), right), ...joinFrom(x, y) };
  });
}

function trimEnd(pieces: Piece[]): Piece[] {
  const out = [...pieces];
  const last = out[out.length - 1];
  if (last?.s !== undefined) {
    const s = last.s.replace(/\/+$/, '');
    if (s) out[out.length - 1] = { s };
    else out.pop();
  }
  return out;
}

function trimStart(pieces: Piece[]): Piece[] {
  const out = [...pieces];
  const first = out[0];
  if (first?.s !== undefined) {
    const s = first.s.replace(/^\/+/, '');
    if (s) out[0] = { s };
    else out.shift();
  }
  return out;
}

/** The text of a value, holes shown as `{name}` (or `{?}`). */
export function render(v: Value): string {
  return v.pieces.map((p) => (p.s !== undefined ? p.s : `{${holeName(p.hole)}}`)).join('');
}

/**
 * The name a hole is shown by in a path or destination: its own, else one read off the expression it stopped at
 * (`order.getWeight()` → `weight`), else `value` — a name, so that `{…}` reads as the path variable it is.
 */
export function holeName(hole: Hole): string {
  if (hole.name) return hole.name;
  const last = (hole.at ?? '').replace(/\(.*$/, '').split(/[.#]/).pop() ?? '';
  const bare = /^(?:get|is)([A-Z]\w*)$/.exec(last)?.[1] ?? last;
  return /^[A-Za-z_]\w*$/.test(bare) ? bare[0]!.toLowerCase() + bare.slice(1) : 'value';
}

/** Whether a value starts with a URL scheme (`http://`, `lb://`) or `//`. */
export function isAbsoluteUrl(v: Value): boolean {
  const first = v.pieces[0];
  return first?.s !== undefined && /^(?:[a-z][a-z0-9+.-]*:)?\/\//i.test(first.s);
}

/** A URL reference resolved against a base: an absolute one stands alone; a relative one follows the base. */
export function resolveUrl(base: Value[], ref: Value[]): Value[] {
  const out: Value[][] = [];
  for (const r of ref) {
    if (isAbsoluteUrl(r)) out.push([r]);
    else out.push(joinPath(base, [r]));
  }
  return union(...out);
}

/** `String.format` / `formatted`: `%s` (and `%d`) take the arguments in order. */
export function format(template: Value[], args: Value[][]): Value[] {
  return union(
    ...template.map((t) => {
      let result: Value[] = [{ pieces: [], from: t.from, ...(t.profile ? { profile: t.profile } : {}) }];
      let next = 0;
      for (const p of t.pieces) {
        if (p.s === undefined) {
          result = concat(result, [{ pieces: [p], from: [] }]);
          continue;
        }
        let at = 0;
        for (const m of p.s.matchAll(/%(?:(\d+)\$)?[-#+ 0,(]*\d*(?:\.\d+)?([sdSfx%n])/g)) {
          result = concat(result, literal(p.s.slice(at, m.index)));
          at = m.index + m[0].length;
          if (m[2] === '%') result = concat(result, literal('%'));
          else if (m[2] === 'n') result = concat(result, literal('\n'));
          else {
            const index = m[1] ? Number(m[1]) - 1 : next++;
            result = concat(result, args[index] ?? unknown(`format argument ${index + 1}`, { kind: 'expression' }));
          }
        }
        result = concat(result, literal(p.s.slice(at)));
      }
      return result;
    }),
  );
}

/** The node properties that say where an unresolved value stopped (`unresolved_kind`, `unresolved_at`). */
export function holeProps(hole: Hole | undefined): { unresolved_kind?: HoleKind; unresolved_at?: string } {
  if (!hole) return {};
  return { ...(hole.kind ? { unresolved_kind: hole.kind } : {}), ...(hole.at ? { unresolved_at: hole.at } : {}) };
}

/** A text every value states wholly, or undefined (a separator, a suffix, a pattern must be known to be applied). */
export function knownText(values: readonly Value[]): string | undefined {
  const texts = [...new Set(values.filter((v) => v.pieces.every((p) => p.s !== undefined)).map(render))];
  return texts.length === 1 && values.length === texts.length ? texts[0] : undefined;
}

/**
 * A text edit applied to the literal pieces of a value (`replaceAll("/$", "")`, `removeSuffix("/")`): the whole text
 * when the value is wholly known; else each literal piece on its own — the first one only for an edit anchored at the
 * start, the last one only for one anchored at the end — so a hole elsewhere keeps what is known.
 */
export function editText(values: readonly Value[], edit: (text: string) => string, anchored: 'start' | 'end' | 'none'): Value[] {
  return values.map((v) => {
    if (v.instance || v.bound !== undefined) return v;
    if (v.pieces.every((p) => p.s !== undefined)) return { ...v, pieces: mergePieces([], literal(edit(render(v)))[0]!.pieces) };
    const last = v.pieces.length - 1;
    const pieces = v.pieces.map((p, i) => (p.s === undefined || (anchored === 'start' && i !== 0) || (anchored === 'end' && i !== last) ? p : { s: edit(p.s) }));
    return { ...v, pieces: pieces.filter((p) => p.s !== '') };
  });
}
