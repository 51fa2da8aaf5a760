import { matchingBrace, topLevelColon } from '../config/spring-config.js';
import { boundObject, concat, literal, union, unknown, type Value } from './value.js';

/** `base-url`, `baseUrl`, `BASE_URL` and `base_url` are one key to Spring's relaxed binding. */
export function canonicalKey(key: string): string {
  return key
    .split('.')
    .map((segment) => segment.toLowerCase().replace(/[-_]/g, ''))
    .join('.');
}

const MAX_DEPTH = 8;

/** The environment variable Spring binds a key from: `order-service.url` → `ORDER_SERVICE_URL`, `a[0].b` → `A_0_B`. */
export function environmentForm(key: string): string {
  return key.replace(/\[(\d+)\]/g, '_$1').replace(/[.-]/g, '_').toUpperCase();
}

/**
 * A service's configuration as its code sees it: keys in any relaxed form, `${…}` placeholders (with defaults)
 * expanded, each value saying which file set it; the default profile first, then each other profile.
 */
export class ConfigView {
  private readonly layers: { profile: string | null; values: Map<string, { key: string; value: string }> }[];
  private readonly holes: Map<string, { key: string; reason: string }>;

  constructor(
    config: Readonly<Record<string, string>>,
    profiles: Readonly<Record<string, Readonly<Record<string, string>>>>,
    private readonly origins: Readonly<Record<string, string>> = {},
    /** Keys the deployment sets to a value the estate does not state (`KEY: $SECRET`): unknown, not their defaults. */
    holes: Readonly<Record<string, string>> = {},
  ) {
    const index = (values: Readonly<Record<string, string>>) => new Map(Object.entries(values).map(([key, value]) => [canonicalKey(key), { key, value }]));
    this.layers = [{ profile: null, values: index(config) }, ...Object.keys(profiles).sort().map((p) => ({ profile: p, values: index({ ...config, ...profiles[p] }) }))];
    this.holes = new Map(Object.entries(holes).map(([key, reason]) => [canonicalKey(key), { key, reason }]));
  }

  /** A key the deployment leaves unknown, as a hole saying so. */
  private hole(key: string): Value[] | undefined {
    const hole = this.holes.get(canonicalKey(key)) ?? this.holes.get(canonicalKey(environmentForm(key)));
    return hole ? unknown(hole.reason, { kind: 'environment', at: hole.key }).map((v) => ({ ...v, from: [`${this.origins[hole.key] ?? 'deployment'}: ${hole.key}`] })) : undefined;
  }

  /** A key's entry in one layer: its relaxed form, else the environment variable Spring would read it from. */
  private entry(values: Map<string, { key: string; value: string }>, key: string): { key: string; value: string } | undefined {
    return values.get(canonicalKey(key)) ?? values.get(canonicalKey(environmentForm(key)));
  }

  /**
   * The value of a key: the default profile's, and each deployment environment's (`helm:prod`: the service runs
   * there too, and its variables may set the key otherwise); where the default sets none, every other profile's
   * as well (each value saying which); undefined when nothing sets it.
   */
  value(key: string): Value[] | undefined {
    const hole = this.hole(key);
    if (hole) return hole;
    const found: Value[][] = [];
    let defaulted = false;
    for (const layer of this.layers) {
      if (defaulted && !layer.profile?.includes(':')) continue;
      const entry = this.entry(layer.values, key);
      if (!entry) continue;
      const from = `${this.origins[entry.key] ?? 'configuration'}: ${entry.key}`;
      found.push(this.expand(entry.value, layer.values, 0).map((v) => ({ ...v, from: [...new Set([from, ...v.from])], ...(layer.profile ? { profile: layer.profile } : {}) })));
      if (layer.profile === null) defaulted = true;
    }
    return found.length ? union(...found) : undefined;
  }

  /**
   * What a key holds: its value; a list's elements (`a.items[0]`, `a.items[1]`…), each what it holds, when the
   * configuration gives the key as a list (a collection carries what its elements hold); an object bound under it
   * when keys lie below it; or undefined.
   */
  lookup(key: string, depth = 0): Value[] | undefined {
    const value = this.value(key);
    if (value) return value;
    const elements = depth < MAX_DEPTH ? this.elements(key) : [];
    if (elements.length) return union(...elements.map((e) => this.lookup(e, depth + 1) ?? []));
    return this.hasUnder(key) ? boundObject(key) : undefined;
  }

  /** The elements of a list the configuration gives under `prefix` (`a.items[0]`, `a.items[1]`…), in any layer, in order. */
  elements(prefix: string): string[] {
    const canonical = `${canonicalKey(prefix)}[`;
    const indices = new Set<number>();
    for (const l of this.layers) {
      for (const k of l.values.keys()) {
        if (!k.startsWith(canonical)) continue;
        const index = /^(\d+)\]/.exec(k.slice(canonical.length));
        if (index) indices.add(Number(index[1]));
      }
    }
    return [...indices].sort((a, b) => a - b).map((i) => `${prefix}[${i}]`);
  }

  hasUnder(prefix: string): boolean {
    const canonical = `${canonicalKey(prefix)}.`;
    return this.layers.some((l) => [...l.values.keys()].some((k) => k.startsWith(canonical) || k.startsWith(`${canonical.slice(0, -1)}[`)));
  }

  /** A text with `${…}` placeholders (an `@Value` expression, a Feign `url`): its values. */
  placeholders(text: string): Value[] {
    return this.expand(text, this.layers[0]!.values, 0, true);
  }

  private expand(text: string, values: Map<string, { key: string; value: string }>, depth: number, profiles = false): Value[] {
    if (depth > MAX_DEPTH) return unknown(`placeholders nested deeper than ${MAX_DEPTH} in ${JSON.stringify(text.slice(0, 80))}`, { kind: 'limit' });
    let out: Value[] = literal('');
    let i = 0;
    while (i < text.length) {
      const start = text.indexOf('${', i);
      if (start < 0) break;
      const end = matchingBrace(text, start + 2);
      if (end < 0) break;
      out = concat(out, literal(text.slice(i, start)));
      const body = text.slice(start + 2, end);
      const colon = topLevelColon(body);
      const key = (colon < 0 ? body : body.slice(0, colon)).trim();
      const found = this.entry(values, key);
      const hole = this.hole(key);
      let part: Value[];
      const everywhere = profiles ? this.value(key) : undefined;
      if (hole) part = hole;
      // At the top level, the key's value in every layer that gives it (deployment environments included).
      else if (everywhere) part = everywhere;
      else if (found) {
        const from = `${this.origins[found.key] ?? 'configuration'}: ${found.key}`;
        part = this.expand(found.value, values, depth + 1).map((v) => ({ ...v, from: [...new Set([from, ...v.from])] }));
      } else if (colon >= 0) {
        part = this.expand(body.slice(colon + 1), values, depth + 1);
        // An empty default stands for "not configured": the value says which key it stopped at.
        if (part.every((v) => !v.pieces.length && v.bound === undefined && !v.instance)) part = part.map((v) => ({ ...v, unset: key }));
      }
      else part = unknown(`configuration key ${key}, set by no file in the estate`, { kind: 'configuration', at: key });
      out = concat(out, part);
      i = end + 1;
    }
    return concat(out, literal(text.slice(i)));
  }
}
