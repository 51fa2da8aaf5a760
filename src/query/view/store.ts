import type { GraphQLSchema } from 'graphql';
import type { EdgeQuery, EdgeRow, EmbeddingSpace, IndexMeta, NameSuggestion, NodeQuery, SourceInfo, Store, TextHit, TextQuery, VectorHit, VectorQuery, VectorWrite, WriteProgress, SourceWrite } from '../../graph/store.js';
import { embedTextOf } from '../../graph/embed-docs.js';
import type { EdgeRecord, NodeRecord } from '../../graph/types.js';
import type { Ontology } from '../../graph/ontology/index.js';
import { indexTokens } from '../../search/tokenize.js';
import type { DataContext } from '../data/access.js';
import { isHugrSource } from '../data/source.js';
import type { ToolContext } from '../tool.js';
import { learnView, type SourceView, type ViewReport } from './learn.js';
import { VIEWED_KINDS } from './visibility.js';

/** A store that knows the schema each caller sees (ViewStore), for validating documents against it. */
export interface CallerSchemas {
  viewSchema(source: string): Promise<{ schema?: GraphQLSchema; report: ViewReport } | undefined>;
}

export function hasCallerSchemas(store: Store): store is Store & CallerSchemas {
  return typeof (store as Partial<CallerSchemas>).viewSchema === 'function';
}

/** Rows read at once when a filtered answer must be counted or paged over what the caller sees. */
const SCAN_PAGE = 2000;
/** Most rows one filtered scan reads (a schema's types or one type's edges are far fewer). */
const SCAN_MAX = 200_000;

/**
 * The index as one caller sees it. For every Hugr source this server can query, a node of the GraphQL kinds is
 * shown only when the caller's role sees what it stands for (see SchemaView), its properties lose what names
 * hidden fields, and counts, pages, suggestions and search are made over the visible nodes only, so a hidden
 * field's name never appears. Code sources and other GraphQL sources pass through unchanged. Read-only.
 */
export class ViewStore implements Store, CallerSchemas {
  readonly ontology: Ontology;
  readonly location: string;
  private readonly views = new Map<string, Promise<SourceView | undefined>>();
  private readonly dataSourceSeen = new Map<string, Promise<boolean>>();
  /** The views answers were made from, for the answer to say. */
  readonly used = new Map<string, ViewReport>();

  constructor(
    private readonly inner: Store,
    private readonly data: DataContext,
  ) {
    this.ontology = inner.ontology;
    this.location = inner.location;
  }

  /** The caller's view of a source, or undefined when the source is not governed by one. */
  private viewOf(source: string): Promise<SourceView | undefined> {
    let v = this.views.get(source);
    if (!v) {
      v = (async () => {
        const access = this.data.sources.get(source);
        if (!access) return undefined;
        if (!(await isHugrSource({ store: this.inner, ontology: this.ontology } as ToolContext, access))) return undefined;
        const view = await learnView(this.inner, access, this.data.caller);
        this.used.set(source, view.report);
        if (view.schema) view.schema.hideColumns(await this.dataObjectsOf(source));
        return view;
      })();
      this.views.set(source, v);
    }
    return v;
  }

  /** Each data object of a source with its full field list and the companion types Hugr generates for it. */
  private async dataObjectsOf(source: string): Promise<{ typeName: string; fields: string[]; companions: string[] }[]> {
    const out: { typeName: string; fields: string[]; companions: string[] }[] = [];
    for (let offset = 0; offset < SCAN_MAX; offset += SCAN_PAGE) {
      const { nodes } = await this.inner.findNodes({ kinds: ['data_object'], predicates: [{ property: 'source', op: 'in', values: [source] }], limit: SCAN_PAGE, offset });
      for (const n of nodes) {
        const t = n.props['type_name'];
        if (typeof t !== 'string') continue;
        const named = (k: string): string[] => (typeof n.props[k] === 'string' ? [n.props[k] as string] : []);
        const aggregation = named('aggregation_type');
        out.push({
          typeName: t,
          fields: Array.isArray(n.props['field_names']) ? (n.props['field_names'] as string[]) : [],
          companions: [...named('filter_type'), ...aggregation, ...aggregation.map((a) => `${a}_sub_aggregation`), `${t}_list_filter`, `${t}_mut_data`, `${t}_mut_input_data`],
        });
      }
      if (nodes.length < SCAN_PAGE) break;
    }
    return out;
  }

  /** The schema a governed source's caller sees, for validating documents; undefined when not governed or none. */
  async viewSchema(source: string): Promise<{ schema?: GraphQLSchema; report: ViewReport } | undefined> {
    const view = await this.viewOf(source);
    if (!view || view.report.view === 'full') return undefined;
    return { ...(view.schema ? { schema: view.schema.schema } : {}), report: view.report };
  }

  private governed(node: NodeRecord): boolean {
    return VIEWED_KINDS.has(node.kind) && this.data.sources.has(node.source);
  }

  /** The visible nodes, projected, in their order. */
  private async visible(nodes: readonly NodeRecord[]): Promise<NodeRecord[]> {
    const out: NodeRecord[] = [];
    for (const node of nodes) {
      const shown = await this.show(node);
      if (shown) out.push(shown);
    }
    return out;
  }

  private async show(node: NodeRecord): Promise<NodeRecord | undefined> {
    if (!this.governed(node)) return node;
    const view = await this.viewOf(node.source);
    if (!view || view.report.view === 'full') return node;
    if (!view.schema) return undefined;
    if (node.kind === 'data_source') return (await this.dataSourceVisible(node)) ? node : undefined;
    return view.schema.sees(node) ? view.schema.project(node) : undefined;
  }

  /** A data source is visible when something visible comes from it (or nothing does). */
  private dataSourceVisible(node: NodeRecord): Promise<boolean> {
    let seen = this.dataSourceSeen.get(node.id);
    if (!seen) {
      seen = (async () => {
        const { rows } = await this.inner.edges({ ids: [node.id], direction: 'in', types: ['FROM_SOURCE'], limit: SCAN_MAX, offset: 0 });
        if (rows.length === 0) return true;
        for (const r of rows) if (await this.show(r.other)) return true;
        return false;
      })();
      this.dataSourceSeen.set(node.id, seen);
    }
    return seen;
  }

  /**
   * Whether a query for these kinds can meet a node some caller's view hides: only then are its results read
   * whole and filtered (else the store pages and counts it as usual).
   */
  private async touches(kinds: readonly string[] | undefined): Promise<boolean> {
    if (this.data.sources.size === 0 || (kinds && !kinds.some((k) => VIEWED_KINDS.has(k)))) return false;
    for (const source of this.data.sources.keys()) {
      const view = await this.viewOf(source);
      if (view && view.report.view !== 'full') return true;
    }
    return false;
  }

  meta(): Promise<IndexMeta> {
    return this.inner.meta();
  }
  sources(): Promise<SourceInfo[]> {
    return this.inner.sources();
  }
  freshness(): Promise<{ updated_at: string; pending_since?: string }> {
    return this.inner.freshness();
  }
  writeSources(_writes: readonly SourceWrite[], _opts?: { remove?: readonly string[]; onProgress?: (p: WriteProgress) => void }): Promise<SourceInfo[]> {
    return Promise.reject(new Error('a caller\'s view of the index is read-only'));
  }
  replaceSource(_s: Omit<SourceInfo, 'nodes' | 'edges'>, _n: readonly NodeRecord[], _e: readonly EdgeRecord[]): Promise<SourceInfo> {
    return Promise.reject(new Error('a caller\'s view of the index is read-only'));
  }
  removeSource(_name: string): Promise<boolean> {
    return Promise.reject(new Error('a caller\'s view of the index is read-only'));
  }
  close(): Promise<void> {
    return Promise.resolve();
  }

  async getNodes(ids: readonly string[]): Promise<NodeRecord[]> {
    return this.visible(await this.inner.getNodes(ids));
  }

  /** Every visible match of a node query, in the store's order (for paging and counting what the caller sees). */
  private async scan(q: Omit<NodeQuery, 'limit' | 'offset'>): Promise<NodeRecord[]> {
    const out: NodeRecord[] = [];
    for (let offset = 0; offset < SCAN_MAX; offset += SCAN_PAGE) {
      const { nodes } = await this.inner.findNodes({ ...q, limit: SCAN_PAGE, offset });
      out.push(...(await this.visible(nodes)));
      if (nodes.length < SCAN_PAGE) break;
    }
    return out;
  }

  async findNodes(q: NodeQuery): Promise<{ nodes: NodeRecord[]; total: number }> {
    if (!(await this.touches(q.kinds))) return this.inner.findNodes(q);
    const all = await this.scan(q);
    return { nodes: all.slice(q.offset, q.offset + q.limit), total: all.length };
  }

  async countNodes(q: Omit<NodeQuery, 'limit' | 'offset'>): Promise<number> {
    if (!(await this.touches(q.kinds))) return this.inner.countNodes(q);
    return (await this.scan(q)).length;
  }

  async nodesByName(field: 'qualified_name' | 'name', value: string, opts: { caseInsensitive: boolean; kinds?: readonly string[]; limit: number }): Promise<NodeRecord[]> {
    if (!(await this.touches(opts.kinds))) return this.inner.nodesByName(field, value, opts);
    return (await this.visible(await this.inner.nodesByName(field, value, { ...opts, limit: SCAN_MAX }))).slice(0, opts.limit);
  }

  async nodesByQualifiedNameSuffix(suffix: string, opts: { kinds?: readonly string[]; limit: number }): Promise<NodeRecord[]> {
    if (!(await this.touches(opts.kinds))) return this.inner.nodesByQualifiedNameSuffix(suffix, opts);
    return (await this.visible(await this.inner.nodesByQualifiedNameSuffix(suffix, { ...opts, limit: SCAN_MAX }))).slice(0, opts.limit);
  }

  /** Whether any of these ids is of a kind a view governs (the kind is in the id, so no read is needed). */
  private mayGovern(ids: readonly string[]): boolean {
    return this.data.sources.size > 0 && ids.some((id) => VIEWED_KINDS.has(this.ontology.kindOfId(id) ?? ''));
  }

  async edges(q: EdgeQuery): Promise<{ rows: EdgeRow[]; total: number }> {
    if (!this.mayGovern(q.ids)) return this.inner.edges(q);
    const origins = await this.inner.getNodes(q.ids);
    if (!origins.some((n) => this.governed(n))) return this.inner.edges(q);
    const shown = new Map((await this.visible(origins)).map((n) => [n.id, n]));
    const { rows } = await this.inner.edges({ ...q, ids: [...shown.keys()], limit: SCAN_MAX, offset: 0 });
    const kept: EdgeRow[] = [];
    for (const row of rows) {
      const other = await this.show(row.other);
      if (!other) continue;
      const origin = shown.get(row.direction === 'out' ? row.from : row.to);
      if (!origin || !(await this.edgeVisible(row, row.direction === 'out' ? origin : other))) continue;
      kept.push({ ...row, other });
    }
    return { rows: kept.slice(q.offset, q.offset + q.limit), total: kept.length };
  }

  /** A relation edge is visible only with the field that navigates it. */
  private async edgeVisible(row: EdgeRow, from: NodeRecord): Promise<boolean> {
    if (row.type !== 'REFERENCES' || typeof row.attrs['field'] !== 'string' || typeof from.props['type_name'] !== 'string') return true;
    const view = await this.viewOf(from.source);
    return !view?.schema || view.schema.hasField(from.props['type_name'], row.attrs['field']);
  }

  async edgeCounts(ids: readonly string[]): Promise<Map<string, Record<string, { in: number; out: number }>>> {
    if (!this.mayGovern(ids)) return this.inner.edgeCounts(ids);
    const nodes = await this.inner.getNodes(ids);
    const governed = nodes.filter((n) => this.governed(n)).map((n) => n.id);
    const counts = await this.inner.edgeCounts(ids.filter((id) => !governed.includes(id)));
    for (const id of governed) {
      const { rows } = await this.edges({ ids: [id], direction: 'both', types: this.ontology.edgeTypeNames(), limit: SCAN_MAX, offset: 0 });
      const c: Record<string, { in: number; out: number }> = {};
      for (const r of rows) (c[r.type] ??= { in: 0, out: 0 })[r.direction]++;
      counts.set(id, c);
    }
    return counts;
  }

  async searchText(q: TextQuery): Promise<TextHit[]> {
    if (!(await this.touches(q.kinds))) return this.inner.searchText(q);
    return this.visibleHits(q.limit, (limit) => this.inner.searchText({ ...q, limit }), (node) => matchesVisibly(node, q.terms, q.mode));
  }

  /**
   * The first `limit` ranked hits the caller sees, projected: the inner ranking is read in growing windows until
   * enough are visible. A hit whose node the view changes is kept only when `stillMatches` its projection.
   */
  private async visibleHits<H extends { node: NodeRecord }>(limit: number, ranked: (window: number) => Promise<H[]>, stillMatches: (projected: NodeRecord, hit: H) => boolean): Promise<H[]> {
    const out: H[] = [];
    for (let window = limit * 3 + 20; ; window *= 4) {
      const hits = await ranked(window);
      out.length = 0;
      for (const hit of hits) {
        const node = await this.show(hit.node);
        if (node && (node === hit.node || stillMatches(node, hit))) out.push({ ...hit, node });
        if (out.length >= limit) return out;
      }
      if (hits.length < window || window >= SCAN_MAX) return out;
    }
  }

  textMatchCounts(terms: readonly string[], cap: number): Promise<number[]> {
    return this.inner.textMatchCounts(terms, cap);
  }

  embeddingSpace(): Promise<EmbeddingSpace | undefined> {
    return this.inner.embeddingSpace();
  }
  vectorAssignments(model: string): Promise<Map<string, string>> {
    return this.inner.vectorAssignments(model);
  }
  vectorHashes(model: string, hashes: readonly string[]): Promise<Set<string>> {
    return this.inner.vectorHashes(model, hashes);
  }
  writeVectors(_w: VectorWrite): Promise<void> {
    return Promise.reject(new Error('a caller\'s view of the index is read-only'));
  }

  /**
   * Nearest nodes the caller sees. A node's vector was made from its whole text; one whose text the caller's view
   * changes (a property naming a hidden field) is left out rather than ranked by what the caller may not see.
   */
  async searchVectors(q: VectorQuery): Promise<VectorHit[]> {
    if (!(await this.touches(q.kinds))) return this.inner.searchVectors(q);
    return this.visibleHits(q.limit, (limit) => this.inner.searchVectors({ ...q, limit }), (node, hit) => embedTextOf(node) === embedTextOf(hit.node));
  }

  async similarNames(text: string, opts: { kinds?: readonly string[]; limit: number }): Promise<NameSuggestion[]> {
    if (!(await this.touches(opts.kinds))) return this.inner.similarNames(text, opts);
    const out: NameSuggestion[] = [];
    for (const s of await this.inner.similarNames(text, { ...opts, limit: opts.limit * 4 + 10 })) {
      const named = await this.nodesByName('name', s.name, { caseInsensitive: false, kinds: s.kinds, limit: 1 });
      if (named.length) out.push(s);
      if (out.length >= opts.limit) break;
    }
    return out;
  }

  async artifact(source: string, name: string): Promise<string | undefined> {
    const view = await this.viewOf(source);
    // The caller's schema is read through viewSchema; the indexed one is not theirs to see.
    if (view && view.report.view !== 'full') return undefined;
    return this.inner.artifact(source, name);
  }
}

/**
 * Whether a projected node still matches the search terms on what the caller sees. The full-text index matched
 * the whole node; a match that only a hidden field's name made is not the caller's. Prefix comparison in both
 * directions stands in for the stemmer, so a visible match is never dropped.
 */
function matchesVisibly(node: NodeRecord, terms: readonly string[], mode: 'and' | 'or'): boolean {
  const tokens = new Set<string>();
  const add = (text: unknown): void => {
    if (typeof text === 'string') for (const t of indexTokens(text)) tokens.add(t);
    else if (Array.isArray(text)) for (const x of text) add(x);
  };
  add(node.name);
  add(node.qualified_name);
  for (const value of Object.values(node.props)) if (typeof value === 'string' || Array.isArray(value)) add(value);
  const hit = (term: string): boolean => {
    for (const t of tokens) if (t === term || (t.length >= 3 && term.startsWith(t)) || (term.length >= 3 && t.startsWith(term))) return true;
    return false;
  };
  return mode === 'and' ? terms.every(hit) : terms.some(hit);
}
