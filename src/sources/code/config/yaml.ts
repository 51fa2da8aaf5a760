import YAML from 'yaml';
import { readYaml, type YamlCodec, yamlRecallKeeps } from './yaml-recall.js';

/**
 * Spring-style YAML documents flattened to keys (`a.b.c`, lists as `a.b[0]`) with the line each key is set on.
 * Anchors and aliases are expanded as YAML defines them, merge keys (`<<: *base`) included — but a document is
 * first measured as it would be expanded, and one over the bound is skipped with a warning: a few kilobytes of
 * aliases to aliases can stand for billions of nodes, and no configuration means that.
 */

/** At most this many nodes in one document, aliases expanded (a real configuration file has a few thousand). */
export const MAX_EXPANDED_NODES = 50_000;
const MAX_DEPTH = 64;
const NULL_SCALARS = new Set(['~', 'null', 'Null', 'NULL']);

/** Flow collections (`{`, `[`) nested deeper than this are not read: the parser recurses once per level. */
export const MAX_FLOW_DEPTH = 256;

/**
 * The documents of a YAML text as the `yaml` package parses them, scalars as strings (Spring binds them itself),
 * or the reason it is not read: flow collections nested past MAX_FLOW_DEPTH (the line where they do).
 */
export function parseYaml(text: string, counter: YAML.LineCounter, merge = true): YAML.Document.Parsed[] | { tooDeep: number } {
  const deep = flowTooDeep(text);
  if (deep !== undefined) return { tooDeep: deep };
  const docs = YAML.parseAllDocuments(text, { schema: 'failsafe', merge, logLevel: 'silent', lineCounter: counter, uniqueKeys: false, prettyErrors: false });
  return Array.isArray(docs) ? (docs as YAML.Document.Parsed[]) : [];
}

/** The line where flow collections nest past MAX_FLOW_DEPTH. Brackets in quotes count too: an over-count only skips a text no configuration writes. */
export function flowTooDeep(text: string): number | undefined {
  let depth = 0;
  let line = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) line++;
    else if (c === 123 || c === 91) {
      if (++depth > MAX_FLOW_DEPTH) return line;
    } else if ((c === 125 || c === 93) && depth > 0) depth--;
  }
  return undefined;
}

export interface FlatDocument {
  values: Map<string, string>;
  lines: Map<string, number>;
  /** The line the document starts on. */
  line: number;
}

/**
 * What flattening each configuration file last gave, by path: the layout and the configuration keys read the same
 * files, and a process that indexes again (`--watch`) reads most of them unchanged. Exact: the result is a function
 * of the path (in warnings) and the text, and callers only read the documents.
 */
const flattened = new Map<string, { text: string; docs: FlatDocument[]; warnings: string[] }>();

/** Every well-formed document of a YAML text, flattened; a malformed or oversized one is a warning naming file:line. */
export function flatYamlDocuments(path: string, text: string, warnings: string[]): FlatDocument[] {
  let memo = flattened.get(path);
  if (memo?.text !== text || !yamlRecallKeeps(FLAT_READER, path, text)) {
    const read = readYaml(FLAT_READER, path, text, FLAT_CODEC, (own) => flattenYaml(path, text, own));
    flattened.set(path, (memo = { text, docs: read.value, warnings: read.warnings }));
  }
  warnings.push(...memo.warnings);
  return memo.docs;
}

const FLAT_READER = 'flat';

/** Flattened documents as plain data (see yaml-recall): the maps as entry lists, in their order. */
const FLAT_CODEC: YamlCodec<FlatDocument[]> = {
  encode: (docs) => docs.map((d) => ({ line: d.line, values: [...d.values], lines: [...d.lines] })),
  decode: (value) =>
    (value as { line: number; values: [string, string][]; lines: [string, number][] }[]).map((d) => {
      if (typeof d.line !== 'number' || !Array.isArray(d.values) || !Array.isArray(d.lines)) throw new Error('not flattened documents');
      return { line: d.line, values: new Map(d.values), lines: new Map(d.lines) };
    }),
};

function flattenYaml(path: string, text: string, warnings: string[]): FlatDocument[] {
  const counter = new YAML.LineCounter();
  let docs: YAML.Document.Parsed[];
  try {
    const parsed = parseYaml(text, counter);
    if ('tooDeep' in parsed) {
      warnings.push(`${path}:${parsed.tooDeep}: YAML nested more than ${MAX_FLOW_DEPTH} levels deep; skipped`);
      return [];
    }
    docs = parsed;
  } catch (error) {
    warnings.push(`${path}:1: cannot parse YAML (${firstLine(error)}); skipped`);
    return [];
  }
  const lineOf = (node: unknown, fallback: number): number => {
    const range = (node as { range?: [number, number, number] | null } | null)?.range;
    return range ? counter.linePos(range[0]).line : fallback;
  };
  const out: FlatDocument[] = [];
  for (const doc of docs) {
    const start = lineOf(doc.contents, lineOf(doc, 1));
    if (doc.errors.length) {
      const e = doc.errors[0]!;
      warnings.push(`${path}:${counter.linePos(e.pos[0]).line}: malformed YAML (${firstLine(e)}); document skipped`);
      continue;
    }
    const anchors = anchorTargets(doc);
    const dangling = [...anchors].find(([, target]) => target === undefined)?.[0];
    if (dangling !== undefined) {
      warnings.push(`${path}:${lineOf(dangling, start)}: malformed YAML (the alias *${(dangling as YAML.Alias).source} refers to no anchor before it); document skipped`);
      continue;
    }
    if (doc.contents !== null && !YAML.isMap(doc.contents) && !(YAML.isScalar(doc.contents) && (doc.contents.value === null || doc.contents.value === ''))) {
      warnings.push(`${path}:${start}: a configuration document must be a mapping; skipped`);
      continue;
    }
    const size = expandedSize(doc.contents, anchors, MAX_EXPANDED_NODES);
    if (size > MAX_EXPANDED_NODES) {
      warnings.push(`${path}:${start}: YAML document expands to more than ${MAX_EXPANDED_NODES} nodes through its aliases (anchors); document skipped`);
      continue;
    }
    const flat: FlatDocument = { values: new Map(), lines: new Map(), line: start };
    const set = (key: string, value: string, line: number): void => {
      // A later setting of a key (a merge key's, then the map's own) wins, as YAML's merge defines.
      flat.values.delete(key);
      flat.values.set(key, value);
      flat.lines.set(key, line);
    };
    const walk = (node: unknown, prefix: string, line: number, depth: number): void => {
      if (depth > MAX_DEPTH) return;
      if (YAML.isAlias(node)) {
        walk(anchors.get(node), prefix, line, depth + 1);
      } else if (YAML.isMap(node)) {
        if (!node.items.length && prefix) set(prefix, '', line);
        // Merged keys first, so the map's own keys win.
        for (const pair of node.items) if (isMergeKey(pair.key)) for (const source of YAML.isSeq(pair.value) ? pair.value.items : [pair.value]) walk(source, prefix, lineOf(pair.key, line), depth + 1);
        for (const pair of node.items) {
          if (isMergeKey(pair.key)) continue;
          const key = YAML.isScalar(pair.key) ? String(pair.key.value) : pair.key === null ? '' : String(pair.key);
          const keyLine = lineOf(pair.key, line);
          const joined = !prefix ? key : key.startsWith('[') ? `${prefix}${key}` : `${prefix}.${key}`;
          if (pair.value === null || pair.value === undefined) set(joined, '', keyLine);
          else walk(pair.value, joined, keyLine, depth + 1);
        }
      } else if (YAML.isSeq(node)) {
        if (!node.items.length && prefix) set(prefix, '', line);
        node.items.forEach((item, i) => walk(item, `${prefix}[${i}]`, lineOf(item, line), depth + 1));
      } else if (YAML.isScalar(node) && prefix) {
        const text = node.value === null || node.value === undefined ? '' : String(node.value);
        set(prefix, NULL_SCALARS.has(text) && node.type === 'PLAIN' ? '' : text, line);
      }
    };
    walk(doc.contents, '', start, 0);
    out.push(flat);
  }
  return out;
}

/**
 * Each alias of a document with the node it refers to: the closest anchor of that name before it, in document
 * order (an anchor may be redefined). One pass, instead of a search of the document per alias.
 */
export function anchorTargets(doc: YAML.Document.Parsed): Map<unknown, unknown> {
  const defined = new Map<string, unknown>();
  const out = new Map<unknown, unknown>();
  YAML.visit(doc, (_key, node) => {
    if (YAML.isAlias(node)) {
      out.set(node, defined.get(node.source));
      return undefined;
    }
    const anchor = (node as { anchor?: string } | null)?.anchor;
    if (anchor) defined.set(anchor, node);
    return undefined;
  });
  return out;
}

/** The node count of `root` with aliases expanded, counting up to just past `limit` (each anchor measured once). */
export function expandedSize(root: unknown, anchors: Map<unknown, unknown>, limit: number): number {
  const sizes = new Map<unknown, number>();
  const measuring = new Set<unknown>();
  const size = (node: unknown, depth: number): number => {
    if (node === null || node === undefined || depth > MAX_DEPTH) return 1;
    const known = sizes.get(node);
    if (known !== undefined) return known;
    // An alias to an enclosing node is a cycle YAML itself rejects; count it once.
    if (measuring.has(node)) return 1;
    measuring.add(node);
    let total = 1;
    if (YAML.isAlias(node)) total = size(anchors.get(node), depth + 1);
    else if (YAML.isMap(node)) {
      for (const pair of node.items) {
        total += size(pair.value, depth + 1) + 1;
        if (total > limit) break;
      }
    } else if (YAML.isSeq(node)) {
      for (const item of node.items) {
        total += size(item, depth + 1);
        if (total > limit) break;
      }
    }
    measuring.delete(node);
    sizes.set(node, Math.min(total, limit + 1));
    return Math.min(total, limit + 1);
  };
  return size(root, 0);
}

function isMergeKey(key: unknown): boolean {
  return YAML.isScalar(key) && (typeof key.value === 'symbol' || key.value === '<<');
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0]!.trim();
}
