import { createHash, type Hash } from 'node:crypto';
import type { EdgeRecord, NodeRecord } from './types.js';

/**
 * A source's nodes grouped by file, each group with a content hash: what lets a store apply only the files that
 * changed since a source's last write, or see that nothing did. Shared by both stores, so they agree on it.
 */

/** The order rids follow within a source: (kind, qualified name, id). */
export function nodeOrder(a: NodeRecord, b: NodeRecord): number {
  return a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : a.qualified_name < b.qualified_name ? -1 : a.qualified_name > b.qualified_name ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

export interface GroupContent {
  hash: string;
  nodes: NodeRecord[];
  edges: EdgeRecord[];
}

/**
 * A group's hash: its node rows (fed in (kind, qualified name, id) order) and its edges (in any order: each
 * edge line is hashed on its own and the line hashes are summed and xored, so no line has to be kept).
 * The one definition both the full write (hashing as it inserts) and the patch (hashing what it compares) use.
 */
export class GroupHasher {
  private readonly nodes = new Map<string, Hash>();
  /** Per group: sum and xor of two 32-bit hashes of every edge line, and the edge count. */
  private readonly edges = new Map<string, Uint32Array>();

  node(group: string, key: string): void {
    let h = this.nodes.get(group);
    if (!h) this.nodes.set(group, (h = createHash('sha1')));
    h.update(key).update('\n');
  }

  edge(group: string, line: string): void {
    let acc = this.edges.get(group);
    if (!acc) this.edges.set(group, (acc = new Uint32Array(5)));
    let a = 0x811c9dc5;
    let b = 0x9747b28c;
    for (let i = 0; i < line.length; i++) {
      const c = line.charCodeAt(i);
      a = Math.imul(a ^ c, 16777619);
      b = Math.imul(b ^ c, 0x5bd1e995);
      b ^= b >>> 15;
    }
    acc[0] = acc[0]! + a;
    acc[1] = acc[1]! + b;
    acc[2] = acc[2]! ^ a;
    acc[3] = acc[3]! ^ Math.imul(b, 0xcc9e2d51);
    acc[4] = acc[4]! + 1;
  }

  /** Hashes by group, for every group that has a node. */
  finish(): Map<string, string> {
    const out = new Map<string, string>();
    for (const [group, h] of this.nodes) {
      const acc = this.edges.get(group);
      if (acc) h.update(`edges ${[...acc].map((x) => x.toString(16)).join(' ')}`);
      out.set(group, h.digest('hex'));
    }
    return out;
  }
}

export function edgeLine(e: EdgeRecord, attrsJson: string): string {
  return `${e.type}\0${e.from}\0${e.to}\0${e.key ?? ''}\0${attrsJson}`;
}

export function attrsJsonOf(e: EdgeRecord): string {
  return e.attrs ? JSON.stringify(e.attrs) : '';
}

/**
 * Nodes grouped by file (no file: group ''), each with the edges leaving it, and a hash of it all; only the
 * groups in `only` when given (the others are known to be unchanged).
 */
export function groupHashes(nodes: readonly NodeRecord[], edges: readonly EdgeRecord[], only?: ReadonlySet<string>): Map<string, GroupContent> {
  const groups = new Map<string, GroupContent>();
  const groupOf = new Map<string, string | null>();
  for (const n of nodes) {
    const g = n.file ?? '';
    if (only && !only.has(g)) {
      groupOf.set(n.id, null);
      continue;
    }
    let content = groups.get(g);
    if (!content) groups.set(g, (content = { hash: '', nodes: [], edges: [] }));
    content.nodes.push(n);
    groupOf.set(n.id, g);
  }
  const hasher = new GroupHasher();
  for (const e of edges) {
    let g = groupOf.get(e.from);
    // An edge from another source's node belongs with its target.
    if (g === undefined) g = groupOf.get(e.to);
    if (g === undefined || g === null) continue;
    groups.get(g)!.edges.push(e);
    hasher.edge(g, edgeLine(e, attrsJsonOf(e)));
  }
  for (const [g, content] of groups) for (const n of [...content.nodes].sort(nodeOrder)) hasher.node(g, rowKey(n));
  for (const [g, hash] of hasher.finish()) groups.get(g)!.hash = hash;
  return groups;
}

/** Everything a node row stores, as one comparable string (`propsJson`: the props as stored, when at hand). */
export function rowKey(node: NodeRecord | Record<string, unknown>, propsJson?: string): string {
  const n = node as Record<string, unknown>;
  const props = propsJson ?? (typeof n.props === 'string' ? n.props : JSON.stringify(n.props));
  return `${n.id}\0${n.kind}\0${n.name}\0${n.qualified_name}\0${n.service ?? ''}\0${n.module ?? ''}\0${n.file ?? ''}\0${n.line ?? ''}\0${props}`;
}


/**
 * The sources, among those written together, that must be emptied before any of them is written: each holds a node
 * (by id) that another of them now writes, and the one that writes it too (it is rewritten whole, since its patch
 * would be computed against rows of the other). `sourceOf` tells which source holds an id now.
 */
export function movedSources(writes: readonly { source: { name: string }; nodes: readonly NodeRecord[] }[], sourceOf: (id: string) => string | undefined): Set<string> {
  const written = new Set(writes.map((w) => w.source.name));
  const out = new Set<string>();
  if (writes.length < 2) return out;
  for (const w of writes) {
    for (const n of w.nodes) {
      const holder = sourceOf(n.id);
      if (holder !== undefined && holder !== w.source.name && written.has(holder)) {
        out.add(holder);
        out.add(w.source.name);
      }
    }
  }
  return out;
}
