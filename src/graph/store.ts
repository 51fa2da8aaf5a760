import type { Ontology } from './ontology/index.js';
import type { EdgeRecord, NodeRecord, PropValue } from './types.js';

/**
 * The storage contract. Query code talks only to this interface, so the embedded SQLite store and a
 * PostgreSQL store are interchangeable. Every method is async even where SQLite is synchronous.
 */

/** A validated condition on one node property (core column, indexed property or list property). */
export type Predicate =
  | { property: string; op: 'in'; values: (string | number | boolean)[] }
  | { property: string; op: 'not_in'; values: string[] }
  | { property: string; op: 'prefix'; values: string[] }
  | { property: string; op: 'contains'; value: string }
  | { property: string; op: 'gte' | 'lte'; value: number }
  | { property: string; op: 'has_any'; values: string[] };

export type EdgePredicate =
  | { attr: string; op: 'gte'; value: number }
  | { attr: string; op: 'in'; values: (string | number | boolean)[] };

export interface NodeQuery {
  kinds?: readonly string[];
  predicates: readonly Predicate[];
  limit: number;
  offset: number;
}

export interface EdgeQuery {
  ids: readonly string[];
  direction: 'in' | 'out' | 'both';
  types: readonly string[];
  /** Conditions on the node at the other end. */
  other?: { kinds?: readonly string[]; predicates: readonly Predicate[] };
  edge?: readonly EdgePredicate[];
  limit: number;
  offset: number;
}

export interface EdgeRow {
  type: string;
  /** `out` when the origin is `from`, `in` when it is `to`. */
  direction: 'in' | 'out';
  from: string;
  to: string;
  key: string;
  attrs: Record<string, PropValue>;
  origin: string;
  other: NodeRecord;
}

export interface TextQuery {
  /** Query terms already split the way the indexed text was (see search/tokenize). */
  terms: readonly string[];
  /** `and`: every term must match; `or`: any term. */
  mode: 'and' | 'or';
  kinds?: readonly string[];
  predicates?: readonly Predicate[];
  /** Relative weights of name and qualified name (scored together) and of descriptive text (scored apart). */
  weights: { name: number; qualified_name: number; text: number };
  /** Score multiplier per node kind. */
  kindPriors: Readonly<Record<string, number>>;
  limit: number;
}

export interface TextHit {
  node: NodeRecord;
  /** Weighted BM25 with kind prior (higher is better). */
  score: number;
  /** Weighted BM25 of the identifier columns and of the text column, before the kind prior, for `explain`. */
  components: { identifier: number; text: number };
}

/** What the vectors of an index were made with, as the last embedding pass recorded it. */
export interface EmbeddingSpace {
  model: string;
  dimensions: number;
  /** The endpoint as it may be shown: no user info, no query string. */
  endpoint: string;
  /** The environment variable the API key was read from, when the configuration named one (never the key). */
  api_key_env?: string;
  /** When the last pass ended. */
  updated_at: string;
  /** Nodes with a vector, and nodes that should have one but do not (the endpoint failed), after that pass. */
  embedded: number;
  missing: number;
  /** Why the last pass stopped short. */
  error?: string;
  /** An approximate index serves nearest-neighbour queries (PostgreSQL with pgvector); absent: exact search. */
  index?: 'hnsw';
}

export interface VectorWrite {
  model: string;
  /** Vectors by the hash of the text they were made from (see graph/embed-docs), unit length. */
  vectors: readonly { hash: string; vector: Float32Array }[];
  /** Which text (hash) each node's vector is now made from. */
  assign: readonly { id: string; hash: string }[];
  /** Nodes that no longer have a vector of this model. */
  unassign?: readonly string[];
  /** Recorded as the index's embedding space (the pass's last write). */
  space?: EmbeddingSpace;
  /** Drop vectors of this model no node is assigned (after the pass). */
  prune?: boolean;
}

export interface VectorQuery {
  model: string;
  /** Unit length, of the model's dimensions. */
  vector: Float32Array;
  kinds?: readonly string[];
  predicates?: readonly Predicate[];
  limit: number;
}

export interface VectorHit {
  node: NodeRecord;
  /** Cosine similarity to the query, -1..1. */
  similarity: number;
}

export interface NameSuggestion {
  name: string;
  kinds: string[];
  similarity: number;
}

export interface SourceInfo {
  /** How the last write went: only what changed (`patch`), or everything (`full`). Not stored. */
  written?: 'full' | 'patch' | 'unchanged';
  name: string;
  kind: string;
  /** Where it was read from: a path or URL, with secrets left out. */
  origin: string;
  built_at: string;
  nodes: number;
  edges: number;
  /** Hash of the input, so unchanged sources can be skipped. */
  content_hash?: string;
}

export interface SourceWrite {
  source: Omit<SourceInfo, 'nodes' | 'edges'>;
  nodes: readonly NodeRecord[];
  edges: readonly EdgeRecord[];
  /** Named texts kept with the source (a GraphQL source's schema as SDL), replaced with every write of it. */
  artifacts?: Readonly<Record<string, string>>;
  /**
   * The store may apply only what changed since the source's last write (nodes grouped by file, each group
   * compared by content hash). The result is the same as a full write: same nodes, edges and answer order.
   */
  incremental?: boolean;
  /**
   * With `incremental`: the writer knows that, since the write whose content hash was `since`, only these
   * groups can have changed. The store trusts it only if that write is the source's current one.
   */
  changed?: ChangedGroups;
}

/** What a source knows changed since one of its writes (see {@link SourceWrite.changed}). */
export interface ChangedGroups {
  since: string;
  groups: ReadonlySet<string>;
  /**
   * Present when `nodes` and `edges` hold only what applying `groups` needs (every node of those groups, the edges
   * leaving them, and nodes of other groups the source read anyway): the whole graph, made when asked, for a store
   * that writes it whole, and its size.
   */
  whole?: { nodes: number; edges: number; make: () => { nodes: NodeRecord[]; edges: EdgeRecord[] } };
}

/** A write's whole graph: as it is, or made from what the source left out (see {@link ChangedGroups.whole}). */
export function wholeGraph(write: Pick<SourceWrite, 'nodes' | 'edges' | 'changed'>): { nodes: readonly NodeRecord[]; edges: readonly EdgeRecord[] } {
  return write.changed?.whole ? write.changed.whole.make() : write;
}

export interface IndexMeta {
  ontology_version: string;
  store_format: number;
  created_at: string;
  updated_at: string;
  /** What was indexed (a sextant.yaml, directory, schema file or URL), as given to `sextant index`. */
  root?: string;
  sources: SourceInfo[];
  counts: { nodes: number; edges: number; by_kind: Record<string, number>; by_edge_type: Record<string, number> };
}

export interface WriteProgress {
  source: string;
  phase: 'nodes' | 'edges' | 'search' | 'done';
  done: number;
  total: number;
}

export interface Store {
  readonly ontology: Ontology;
  /** Where the index lives (directory or connection), for messages. */
  readonly location: string;
  meta(): Promise<IndexMeta>;
  /** The sources indexed, by name (what `meta` lists, without counting every node and edge). */
  sources(): Promise<SourceInfo[]>;
  /** When the index was last written, and since when a watcher has seen changes it has not written yet. Cheap. */
  freshness(): Promise<{ updated_at: string; pending_since?: string }>;
  /** Records (or, with null, clears) that source files changed and a write is coming. Write mode only. */
  markPending?(since: string | null): Promise<void>;

  /**
   * Replaces what each of these sources contributed and removes the `remove`d ones, in one transaction:
   * readers see the whole old graph or the whole new one, never a mix.
   */
  writeSources(writes: readonly SourceWrite[], opts?: { remove?: readonly string[]; onProgress?: (p: WriteProgress) => void }): Promise<SourceInfo[]>;
  /** `writeSources` for one source. */
  replaceSource(
    source: Omit<SourceInfo, 'nodes' | 'edges'>,
    nodes: readonly NodeRecord[],
    edges: readonly EdgeRecord[],
    onProgress?: (p: WriteProgress) => void,
  ): Promise<SourceInfo>;
  removeSource(name: string): Promise<boolean>;
  /**
   * Runs `task` holding the named lock every writer of this index takes for it, so what it reads from the index and
   * then writes back (an estate's repositories, re-linked together) is never interleaved with another writer's.
   * Write mode only. (The embedded store's writer lock already keeps every other writer out.)
   */
  exclusive?<T>(name: string, task: () => Promise<T>): Promise<T>;

  getNodes(ids: readonly string[]): Promise<NodeRecord[]>;
  findNodes(q: NodeQuery): Promise<{ nodes: NodeRecord[]; total: number }>;
  countNodes(q: Omit<NodeQuery, 'limit' | 'offset'>): Promise<number>;
  /** Exact matches on qualified_name or name, optionally case-insensitive. */
  nodesByName(
    field: 'qualified_name' | 'name',
    value: string,
    opts: { caseInsensitive: boolean; kinds?: readonly string[]; limit: number },
  ): Promise<NodeRecord[]>;
  /** Nodes whose qualified name ends with `.suffix`, `#suffix` or `/suffix`. */
  nodesByQualifiedNameSuffix(suffix: string, opts: { kinds?: readonly string[]; limit: number }): Promise<NodeRecord[]>;

  edges(q: EdgeQuery): Promise<{ rows: EdgeRow[]; total: number }>;
  /** Per node, per edge type: how many edges arrive and leave. */
  edgeCounts(ids: readonly string[]): Promise<Map<string, Record<string, { in: number; out: number }>>>;

  searchText(q: TextQuery): Promise<TextHit[]>;
  /** For each term, how many nodes' text matches it, counted up to `cap` (cheap even for very common terms). */
  textMatchCounts(terms: readonly string[], cap: number): Promise<number[]>;
  /** Names similar to `text` (trigram similarity), for did-you-mean. */
  similarNames(text: string, opts: { kinds?: readonly string[]; limit: number }): Promise<NameSuggestion[]>;

  /** The embedding space the index's vectors were made in, or undefined when it has none. */
  embeddingSpace(): Promise<EmbeddingSpace | undefined>;
  /** Per node id, the hash of the text its vector of `model` was made from. */
  vectorAssignments(model: string): Promise<Map<string, string>>;
  /** Of these text hashes, those that have a vector of `model`. */
  vectorHashes(model: string, hashes: readonly string[]): Promise<Set<string>>;
  /** Stores vectors and assigns them to nodes, in one transaction. Write mode only. */
  writeVectors(w: VectorWrite): Promise<void>;
  /** The nodes whose vectors are nearest the query's, exactly or by an approximate index; filters apply first. */
  searchVectors(q: VectorQuery): Promise<VectorHit[]>;

  /** A text a source's last write kept (`SourceWrite.artifacts`), or undefined. */
  artifact(source: string, name: string): Promise<string | undefined>;
  close(): Promise<void>;
}

export class StoreError extends Error {
  constructor(
    readonly code: 'store_missing' | 'ontology_mismatch' | 'store_corrupt' | 'store_busy' | 'store_readonly' | 'store_unreachable',
    message: string,
  ) {
    super(message);
  }
}
