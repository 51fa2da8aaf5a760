import Database from 'better-sqlite3';
import { createHash, randomUUID } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { searchTerm } from '../../search/tokenize.js';
import { trigramScorer, trigrams } from '../../search/similarity.js';
import { CORE_COLUMNS, STORE_FORMAT, type Ontology } from '../ontology/index.js';
import {
  StoreError,
  type EdgePredicate,
  type EdgeQuery,
  type EdgeRow,
  type IndexMeta,
  type NameSuggestion,
  type NodeQuery,
  type Predicate,
  type EmbeddingSpace,
  type SourceInfo,
  type SourceWrite,
  wholeGraph,
  type VectorHit,
  type VectorQuery,
  type VectorWrite,
  type Store,
  type TextHit,
  type TextQuery,
  type WriteProgress,
} from '../store.js';
import type { EdgeRecord, NodeRecord, PropValue } from '../types.js';
import { searchDocOf } from '../search-docs.js';
import { encodeVector } from '../../search/vectors.js';
import { nearest, parseEmbeddingSpace, VectorCache } from '../vector-search.js';
import { nodeFromRow } from '../types.js';
import { attrsJsonOf, edgeLine, GroupHasher, groupHashes, movedSources, nodeOrder, rowKey, type GroupContent } from '../groups.js';
import { propertyColumn, propertyIndexDdl, propertyNames, schemaDdl } from './schema.js';
import { describeHolder, isBusy, WriterLock } from './writer-lock.js';

export const DB_FILE = 'index.db';
/** Beside the index: the writer lock, and who holds it (see WriterLock). */
const LOCK_FILE = 'index.lock';
const WRITER_FILE = 'index.writer';

type Row = Record<string, unknown>;
type SqlValue = string | number | bigint | null;

export interface OpenOptions {
  /** `read` refuses a missing or mismatched index; `write` creates or recreates one as needed. */
  mode: 'read' | 'write';
  /** `write` only: start from an empty index (applied atomically with the first write). */
  reset?: boolean;
  /** `write` only: how long to wait while another process writes the index (default: `DEFAULT_LOCK_WAIT_MS`). */
  lockWaitMs?: number;
  /** `write` only: told who is being waited for, when the wait starts and periodically after. */
  onLockWait?: (message: string) => void;
}

const NODE_COLUMNS = 'n.rid, n.id, n.kind, n.name, n.qualified_name, n.source, n.service, n.module, n.file, n.line, (SELECT p.props FROM node_props p WHERE p.rid = n.rid) AS props';
const BATCH = 400;
/** SQLite's limit on bound parameters per statement (SQLITE_MAX_VARIABLE_NUMBER). */
const MAX_VARIABLES = 32766;

/** Hash of the DDL, so an index written by a different layout is rebuilt rather than misread. */
function schemaHash(ontology: Ontology): string {
  return createHash('sha256').update(schemaDdl(ontology)).update(propertyNames(ontology).map(propertyIndexDdl).join('\n')).digest('hex').slice(0, 12);
}

function reverse(text: string): string {
  let out = '';
  // By code point, so a surrogate pair stays one character.
  for (let i = text.length - 1; i >= 0; i--) {
    const c = text.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff && i > 0) {
      const h = text.charCodeAt(i - 1);
      if (h >= 0xd800 && h <= 0xdbff) {
        out += text[i - 1]! + text[i]!;
        i--;
        continue;
      }
    }
    out += text[i]!;
  }
  return out;
}

/** A property as its column holds it: what json_extract would give (booleans as 1/0). */
function columnValue(v: PropValue | undefined): SqlValue {
  if (v === undefined || v === null) return null;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string' || typeof v === 'number') return v;
  return JSON.stringify(v);
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Quote a term for an FTS5 MATCH expression. */
function ftsQuote(term: string): string {
  return `"${term.replace(/"/g, '""')}"`;
}

/** The full-text tables and the columns each indexes from its `_docs` table (see schemaDdl). */
const SEARCH_TABLES = [
  { table: 'search_id', columns: 'name_t, qn_t' },
  { table: 'search_text', columns: 'text_t' },
] as const;

type SearchTable = (typeof SEARCH_TABLES)[number];

/** Indexes the `_docs` rows whose rid satisfies the condition appended to the statement. */
function indexSearchSql({ table, columns }: SearchTable): string {
  return `INSERT INTO ${table}(rowid, ${columns}) SELECT rid, ${columns} FROM ${table}_docs WHERE rid`;
}

/**
 * Un-indexes (with the tokens they were indexed with, so BM25's totals stay exact) and drops the `_docs` rows
 * whose rid satisfies the condition appended to each statement.
 */
function unindexSearchSql({ table, columns }: SearchTable): string[] {
  return [`INSERT INTO ${table}(${table}, rowid, ${columns}) SELECT 'delete', rid, ${columns} FROM ${table}_docs WHERE rid`, `DELETE FROM ${table}_docs WHERE rid`];
}

/** Where rows go: pushed one at a time, written in batches. */
interface RowSink {
  push(row: SqlValue[]): void;
}

/** Where a node's rows go: the node, its properties, its full text and its list terms. */
interface NodeSinks {
  /** The sink for node rows of one kind (each kind is inserted with its own columns). */
  nodeRows: (kind: string) => RowSink;
  propRows: RowSink;
  idRows: RowSink;
  textRows: RowSink;
  termRows: RowSink;
}

/** Room left between consecutive rids of a full write, for nodes an incremental write adds in between. */
const RID_GAP = 1024;

/**
 * A property gets its index once a write gives that many nodes a value for it. Fewer are found as fast through
 * the kind index (a filter always names the kind), and each index costs a scan of the whole node table to build:
 * thirty such scans were a tenth of a 2,000-file cold index.
 */
const PROPERTY_INDEX_MIN_NODES = 1000;

/** The writer lock's files, beside the index (see WriterLock). */
function lockFiles(dir: string): { lockFile: string; recordFile: string } {
  return { lockFile: join(dir, LOCK_FILE), recordFile: join(dir, WRITER_FILE) };
}

/** A meta value, or undefined when there is none (no meta table: not a Sextant index, or not yet). */
function metaValueOf(db: Database.Database, key: string): string | undefined {
  try {
    const row = db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined;
    return row?.value;
  } catch (err) {
    if (err instanceof Error && /no such table/.test(err.message)) return undefined;
    throw err;
  }
}

const SQLITE_HEADER = 'SQLite format 3\0';

/** Whether the file starts as a SQLite database does (an empty file is an empty database). */
function looksLikeSqlite(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const header = Buffer.alloc(SQLITE_HEADER.length);
    const read = readSync(fd, header, 0, header.length, 0);
    return read === 0 || header.toString('latin1', 0, read) === SQLITE_HEADER;
  } finally {
    closeSync(fd);
  }
}

/** SQLite or the file system refusing a write this user may not make (a read-only file, directory or mount). */
function isReadOnly(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_READONLY') || code === 'SQLITE_CANTOPEN' || code === 'EACCES' || code === 'EPERM' || code === 'EROFS');
}

/** A writer refused by the file system, as an error that says what this user can do instead. */
function readOnlyError(err: unknown, dir: string): StoreError | undefined {
  if (!isReadOnly(err)) return undefined;
  const detail = (err as Error).message.split('\n')[0];
  return new StoreError('store_readonly', `Cannot write the index at ${dir} (${detail}): this user may read it (search, serve) but not index into it. Index into a directory you can write (--store DIR), or have its owner re-index it.`);
}

function isUnreadable(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'SQLITE_NOTADB' || (typeof code === 'string' && code.startsWith('SQLITE_CORRUPT'));
}

function removeIndexFile(file: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
}

/**
 * Opens the index file for writing; called holding the writer lock. The file is replaced only when it holds no
 * Sextant index: it is not a SQLite database (by its header or SQLite's own verdict), its pages cannot be read,
 * or it has no complete Sextant meta (a first write killed half-way). A busy file is never one of these: its
 * error goes to the caller. A file this process creates has no readers yet: its first write keeps the rollback
 * journal in memory instead of writing every page twice (WAL, then checkpoint), and WAL is switched on after it.
 */
function openIndexFile(file: string): { db: Database.Database; created: boolean } {
  if (existsSync(file) && !looksLikeSqlite(file)) removeIndexFile(file);
  if (existsSync(file)) {
    let db: Database.Database | undefined;
    try {
      db = connect(file, 'WAL');
      if (metaValueOf(db, 'store_format') !== undefined) return { db, created: false };
      db.close();
    } catch (err) {
      if (db?.open) db.close();
      if (!isUnreadable(err)) throw err;
    }
    removeIndexFile(file);
  }
  const db = connect(file, 'MEMORY');
  // Before the first table, while the file is still empty; an existing index keeps the page size it was made with.
  db.pragma(`page_size = ${PAGE_SIZE}`);
  return { db, created: true };
}

/**
 * Page size of a new index file. A full write builds some forty indexes, each scanning the whole node table: with
 * 16 KB pages instead of SQLite's 4 KB, writing hmpps-nomis-sync's graph (32k nodes, 71k edges) took 2.9 instead
 * of 3.7 s (median of 5, round-robin; 64 KB gave 2.8), a one-file patch 0.39 instead of 0.43 s; CLI queries and
 * the synthetic bench's tool latencies (200k nodes, readers given the same number of cached pages) stayed within
 * the run-to-run spread.
 */
const PAGE_SIZE = 16384;

/** How long a connection waits for SQLite's own locks (another program on the file) before it says so. */
const BUSY_TIMEOUT_MS = 5000;

/** The error for an index whose first version another process is still building; undefined when none is. */
function notBuiltYet(dir: string): StoreError | undefined {
  const writer = WriterLock.holder(lockFiles(dir));
  return writer ? new StoreError('store_busy', `The index at ${dir} is being built by ${describeHolder(writer)} and has no first version yet; try again once that has finished.`) : undefined;
}

function connect(file: string, journal: 'WAL' | 'MEMORY'): Database.Database {
  const db = new Database(file);
  try {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    db.pragma(`journal_mode = ${journal}`);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

/**
 * SQLite's bare "database is locked" as an error that says what happened. Sextant's own writers wait for each
 * other on the writer lock and its readers never block a write (WAL), so what held the file for the whole busy
 * timeout is another program, or an older Sextant without the lock.
 */
function busyError(err: unknown, dir: string, doing: string): unknown {
  if (!isBusy(err)) return err;
  const writer = WriterLock.holder(lockFiles(dir));
  const who = writer ? `${describeHolder(writer)}, which is writing it` : 'another program (or an older Sextant) that has the file open';
  return new StoreError('store_busy', `The index at ${dir} stayed locked for ${BUSY_TIMEOUT_MS / 1000} s while ${doing}, held by ${who}. Try again once it has finished, or stop it.`);
}

/** Vectors by model and text hash, and which text each node's vector is made from (see graph/embed-docs). */
const VECTOR_DDL = `
CREATE TABLE IF NOT EXISTS embedding_vectors (model TEXT NOT NULL, hash TEXT NOT NULL, vector BLOB NOT NULL, PRIMARY KEY (model, hash)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS node_embeddings (model TEXT NOT NULL, id TEXT NOT NULL, hash TEXT NOT NULL, PRIMARY KEY (model, id)) WITHOUT ROWID;
`;

export class SqliteStore implements Store {
  readonly location: string;
  private readonly db: Database.Database;
  private readonly stmtCache = new Map<string, Database.Statement>();
  private pendingReset = false;

  /** Set on a database file this process created: see `openIndexFile`. */
  private walAfterFirstWrite = false;
  /** A writer's lock on the index, held from open to close. */
  private lock: WriterLock | undefined;
  /**
   * Columns a node row of each kind is inserted with: the core ones, then one per indexed property the kind
   * declares. (The table has a column per indexed property of every kind; binding the others' NULLs row by row
   * cost 8% of a code index's write.)
   */
  private readonly nodeColumns = new Map<string, { sql: string; width: number; properties: string[] }>();

  private constructor(
    readonly ontology: Ontology,
    dir: string,
    db: Database.Database,
  ) {
    this.location = dir;
    this.db = db;
    const indexed = new Set(propertyNames(ontology));
    const core = ['rid', 'id', 'kind', 'name', 'qualified_name', 'source', 'service', 'module', 'file', 'line', 'name_lc', 'qn_lc', 'qn_rev'];
    for (const info of ontology.kinds()) {
      const properties = info.properties.map((p) => p.name).filter((p) => indexed.has(p));
      this.nodeColumns.set(info.def.name, { sql: `(${[...core, ...properties.map(propertyColumn)].join(', ')})`, width: core.length + properties.length, properties });
    }
  }

  private columnsOf(kind: string): { sql: string; width: number; properties: string[] } {
    const columns = this.nodeColumns.get(kind);
    if (!columns) throw new StoreError('store_corrupt', `node of unknown kind ${kind}`);
    return columns;
  }

  static open(ontology: Ontology, dir: string, opts: OpenOptions): SqliteStore {
    const absDir = resolve(dir);
    if (opts.mode === 'read') return SqliteStore.openReader(ontology, absDir);
    // Everything a writer does to the files, from choosing the journal to replacing a file that is no index, is
    // done holding the writer lock: no other writer is ever in the middle of a write it could disturb.
    let lock: WriterLock;
    try {
      mkdirSync(absDir, { recursive: true });
      lock = WriterLock.acquire(absDir, lockFiles(absDir), { ...(opts.lockWaitMs !== undefined ? { waitMs: opts.lockWaitMs } : {}), ...(opts.onLockWait ? { onWait: opts.onLockWait } : {}) });
    } catch (err) {
      throw readOnlyError(err, absDir) ?? err;
    }
    try {
      const { db, created } = openIndexFile(join(absDir, DB_FILE));
      db.pragma('synchronous = NORMAL');
      db.pragma('cache_size = -16384');
      const store = new SqliteStore(ontology, absDir, db);
      store.lock = lock;
      store.walAfterFirstWrite = created;
      // An empty, stale or mismatched index is reset inside the first write transaction, so readers keep the old
      // index until the new one is complete.
      store.pendingReset = Boolean(opts.reset) || store.compatibility() !== 'ok';
      return store;
    } catch (err) {
      lock.release();
      throw readOnlyError(err, absDir) ?? busyError(err, absDir, 'opening it for writing');
    }
  }

  private static openReader(ontology: Ontology, absDir: string): SqliteStore {
    const file = join(absDir, DB_FILE);
    if (!existsSync(file)) {
      const building = notBuiltYet(absDir);
      if (building) throw building;
      throw new StoreError('store_missing', `No index at ${absDir}. Build one with \`sextant index <path>\` (or point --store / SEXTANT_STORE at an existing index).`);
    }
    try {
      return SqliteStore.reader(ontology, absDir, new Database(file, { fileMustExist: true }));
    } catch (err) {
      if (!isReadOnly(err)) throw busyError(err, absDir, 'opening it for reading');
    }
    // A store this user may read but not write (an index a CI job published, another user's): a read-only
    // connection reads it as long as no write left it in WAL mode (see close).
    try {
      return SqliteStore.reader(ontology, absDir, new Database(file, { fileMustExist: true, readonly: true }));
    } catch (err) {
      if (!isReadOnly(err)) throw busyError(err, absDir, 'opening it for reading');
      throw new StoreError(
        'store_readonly',
        `The index at ${absDir} can be read by this user, but its last write left it in write-ahead-log mode, which SQLite reads only where it may create ${DB_FILE}-shm beside it. Run \`sextant index\` on it once more as its owner (a writer that ends alone leaves it readable by anyone), or make the directory writable.`,
      );
    }
  }

  private static reader(ontology: Ontology, absDir: string, db: Database.Database): SqliteStore {
    try {
      db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
      db.pragma('query_only = 1');
      // As many pages as SQLite's default 2 MB cache held of 4 KB pages (see PAGE_SIZE).
      db.pragma('cache_size = -8192');
      const store = new SqliteStore(ontology, absDir, db);
      store.checkCompatible();
      return store;
    } catch (err) {
      if (db.open) db.close();
      throw err;
    }
  }

  /** Drops every table and creates the schema of this ontology (inside the caller's transaction). */
  private resetSchema(): void {
    const objects = this.db.prepare("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'").all() as { type: string; name: string; sql: string | null }[];
    const quote = (n: string) => `"${n.replace(/"/g, '""')}"`;
    for (const o of objects.filter((x) => x.type === 'table' && /CREATE VIRTUAL TABLE/i.test(x.sql ?? ''))) this.db.exec(`DROP TABLE IF EXISTS ${quote(o.name)}`);
    const left = this.db.prepare("SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' AND type IN ('table', 'view')").all() as { type: string; name: string }[];
    for (const o of left) this.db.exec(`DROP ${o.type === 'view' ? 'VIEW' : 'TABLE'} IF EXISTS ${quote(o.name)}`);
    this.stmtCache.clear();
    this.db.exec(schemaDdl(this.ontology));
    const now = new Date().toISOString();
    const put = this.db.prepare('INSERT INTO meta(key, value) VALUES (?, ?)');
    put.run('ontology_version', this.ontology.version);
    // store_format is written last of all, by the write that completes the index (see writeSources).
    put.run('schema_hash', schemaHash(this.ontology));
    put.run('created_at', now);
    put.run('updated_at', now);
    this.pendingReset = false;
  }

  async freshness(): Promise<{ updated_at: string; pending_since?: string }> {
    if (this.pendingReset) return { updated_at: '' };
    const pending = this.metaValue('pending_since');
    return { updated_at: this.metaValue('updated_at') ?? '', ...(pending ? { pending_since: pending } : {}) };
  }

  async markPending(since: string | null): Promise<void> {
    if (this.pendingReset) return;
    if (since) this.stmt('INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)').run('pending_since', since);
    else this.stmt('DELETE FROM meta WHERE key = ?').run('pending_since');
  }

  private metaValue(key: string): string | undefined {
    return metaValueOf(this.db, key);
  }

  private compatibility(): 'ok' | 'format' | 'ontology' | 'corrupt' {
    const format = this.metaValue('store_format');
    const version = this.metaValue('ontology_version');
    if (format === undefined || version === undefined) return 'corrupt';
    if (format !== String(STORE_FORMAT) || this.metaValue('schema_hash') !== schemaHash(this.ontology)) return 'format';
    if (version !== this.ontology.version) return 'ontology';
    return 'ok';
  }

  private checkCompatible(): void {
    const state = this.compatibility();
    if (state === 'ok') return;
    const building = state === 'corrupt' ? notBuiltYet(this.location) : undefined;
    if (building) {
      this.db.close();
      throw building;
    }
    const root = this.metaValue('root');
    const how = `Rebuild it: \`sextant index ${root ?? '<path-or-config>'} --store ${this.location}\` (a full rebuild replaces the old index).`;
    const found = state === 'format' ? 'a different store layout' : `ontology version ${this.metaValue('ontology_version')}`;
    this.db.close();
    if (state === 'corrupt') throw new StoreError('store_corrupt', `The index at ${this.location} is incomplete or not a Sextant index. ${how}`);
    const want = state === 'format' ? `store format ${STORE_FORMAT}` : `ontology version ${this.ontology.version}`;
    throw new StoreError('ontology_mismatch', `The index at ${this.location} was built with ${found}; this Sextant reads ${want}. ${how}`);
  }

  private stmt(sql: string): Database.Statement {
    let s = this.stmtCache.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.stmtCache.set(sql, s);
    }
    return s;
  }

  private root: string | undefined;

  /** What was indexed, recorded with the next write so a stale-index message can say how to rebuild. */
  async setRoot(root: string): Promise<void> {
    this.root = root;
  }

  async sources(): Promise<SourceInfo[]> {
    if (this.pendingReset) return [];
    return (this.stmt('SELECT * FROM sources ORDER BY name').all() as Row[]).map((r) => ({
      name: r.name as string,
      kind: r.kind as string,
      origin: r.origin as string,
      built_at: r.built_at as string,
      nodes: r.nodes as number,
      edges: r.edges as number,
      ...(r.content_hash ? { content_hash: r.content_hash as string } : {}),
    }));
  }

  async meta(): Promise<IndexMeta> {
    if (this.pendingReset) {
      return { ontology_version: this.ontology.version, store_format: STORE_FORMAT, created_at: '', updated_at: '', sources: [], counts: { nodes: 0, edges: 0, by_kind: {}, by_edge_type: {} } };
    }
    const meta = Object.fromEntries((this.stmt('SELECT key, value FROM meta').all() as { key: string; value: string }[]).map((r) => [r.key, r.value]));
    const sources = await this.sources();
    const { byKind, byType } = this.keptCounts(meta) ?? this.counts();
    const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);
    return {
      ontology_version: meta.ontology_version ?? '',
      store_format: Number(meta.store_format),
      created_at: meta.created_at ?? '',
      updated_at: meta.updated_at ?? '',
      ...(meta.root ? { root: meta.root } : {}),
      sources,
      counts: { nodes: sum(byKind), edges: sum(byType), by_kind: byKind, by_edge_type: byType },
    };
  }

  /** Nodes by kind and edges by type, counted (grouping the edges scans them all: 0.1 s for 200,000). */
  private counts(): { byKind: Record<string, number>; byType: Record<string, number> } {
    const byKind = Object.fromEntries((this.stmt('SELECT kind, count(*) AS n FROM nodes GROUP BY kind ORDER BY kind').all() as { kind: string; n: number }[]).map((r) => [r.kind, r.n]));
    const byType = Object.fromEntries((this.stmt('SELECT type, count(*) AS n FROM edges GROUP BY type ORDER BY type').all() as { type: string; n: number }[]).map((r) => [r.type, r.n]));
    return { byKind, byType };
  }

  /**
   * The counts the last full write kept (meta `counts`), when that write is the index's last one: a patch drops them,
   * and a writer that does not keep them (an older Sextant) moves `updated_at` past them. An index answered
   * `unchanged` reads them instead of counting again.
   */
  private keptCounts(meta: Record<string, string>): { byKind: Record<string, number>; byType: Record<string, number> } | undefined {
    if (meta.counts === undefined) return undefined;
    try {
      const kept = JSON.parse(meta.counts) as { updated_at?: unknown; by_kind?: Record<string, number>; by_edge_type?: Record<string, number> };
      if (kept.updated_at !== meta.updated_at || typeof kept.by_kind !== 'object' || typeof kept.by_edge_type !== 'object' || !kept.by_kind || !kept.by_edge_type) return undefined;
      return { byKind: kept.by_kind, byType: kept.by_edge_type };
    } catch {
      return undefined;
    }
  }

  // ---------------------------------------------------------------- writing

  async writeSources(writes: readonly SourceWrite[], opts: { remove?: readonly string[]; onProgress?: (p: WriteProgress) => void } = {}): Promise<SourceInfo[]> {
    const infos: SourceInfo[] = [];
    const write = this.db.transaction(() => {
      this.propertyCounts.clear();
      // A reset index has nothing to patch.
      const reset = this.pendingReset;
      if (reset) this.resetSchema();
      for (const name of opts.remove ?? []) this.deleteSource(name);
      // A node may move between two sources written together (an estate's repositories): those go first, whole.
      const movedFrom = reset ? new Set<string>() : this.sourcesLosingNodes(writes);
      for (const name of movedFrom) this.deleteSource(name);
      let full = false;
      for (const w of writes) {
        const { source, incremental: asked, changed, artifacts } = w;
        let { nodes, edges } = w;
        const incremental = asked && !movedFrom.has(source.name);
        const progress = opts.onProgress && ((p: Omit<WriteProgress, 'source'>) => opts.onProgress!({ ...p, source: source.name }));
        const info: SourceInfo = { ...source, nodes: changed?.whole?.nodes ?? nodes.length, edges: changed?.whole?.edges ?? edges.length };
        const current = reset ? undefined : (this.stmt('SELECT content_hash FROM sources WHERE name = ?').get(source.name) as { content_hash: string | null } | undefined);
        // The writer's list of changed groups holds only against the write it was computed from.
        const only = changed && current?.content_hash === changed.since ? changed.groups : undefined;
        const canPatch = incremental && !reset;
        // Only the changed groups' rows came: enough for a patch of them, not for any other write.
        if (changed?.whole && !(canPatch && only)) ({ nodes, edges } = wholeGraph(w));
        const groups = canPatch ? groupHashes(nodes, edges, only) : undefined;
        const patched = canPatch && this.patchSource(source.name, groups!, only);
        let hashes: Map<string, string>;
        if (!patched) {
          ({ nodes, edges } = wholeGraph(w));
          full = true;
          this.deleteSource(source.name);
          // Into an (almost) empty index, building each secondary index once from sorted rows beats keeping
          // forty B-trees up to date row by row.
          const deferring = nodes.length > 10_000 && this.nodeCount() < nodes.length / 4;
          // Without the id index, an edge to another source's node would scan the table: their few rids first.
          const others = deferring ? new Map((this.stmt('SELECT id, rid FROM nodes').raw().all() as [string, number][])) : undefined;
          const deferred = deferring ? this.dropSecondaryIndexes() : undefined;
          const hasher = new GroupHasher();
          const { ridOf, groupOf } = this.insertNodes(nodes, progress, hasher);
          if (others) for (const [id, rid] of others) if (!ridOf.has(id)) ridOf.set(id, rid);
          this.insertEdges(source.name, edges, ridOf, progress, { hasher, groupOf });
          hashes = hasher.finish();
          if (deferred) for (const sql of deferred) this.db.exec(sql);
        } else hashes = new Map([...groups!].map(([g, c]) => [g, c.hash]));
        this.stmt('DELETE FROM sources WHERE name = ?').run(source.name);
        if (patched && only) {
          const drop = this.stmt('DELETE FROM source_groups WHERE source = ? AND grp = ?');
          for (const g of only) drop.run(source.name, g);
        } else this.stmt('DELETE FROM source_groups WHERE source = ?').run(source.name);
        this.insertRows('source_groups', '(source, grp, hash)', 3, [...hashes].map(([g, hash]) => [source.name, g, hash]));
        this.stmt('DELETE FROM source_artifacts WHERE source = ?').run(source.name);
        this.insertRows('source_artifacts', '(source, name, content)', 3, Object.entries(artifacts ?? {}).map(([name, content]) => [source.name, name, content]));
        this.stmt('INSERT INTO sources(name, kind, origin, built_at, nodes, edges, content_hash) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
          info.name,
          info.kind,
          info.origin,
          info.built_at,
          info.nodes,
          info.edges,
          info.content_hash ?? null,
        );
        infos.push({ ...info, written: patched ? 'patch' : 'full' });
        progress?.({ phase: 'done', done: nodes.length + edges.length, total: nodes.length + edges.length });
      }
      for (const [p, n] of this.propertyCounts) if (n >= PROPERTY_INDEX_MIN_NODES) this.db.exec(propertyIndexDdl(p));
      this.propertyCounts.clear();
      if (full || (opts.remove?.length ?? 0) > 0) {
        this.rebuildNames();
        // Fresh statistics let the planner pick the property index over the kind index (find by declaring type:
        // 240 ms without, 0.1 ms with, on the 200k-node bench). A patch keeps the last full write's statistics.
        // Full statistics: sampled ones (analysis_limit) misjudge how many nodes share a kind, and the planner then
        // scans a whole kind instead of a property index (find by role: 0.1 ms → 6 ms on 2,000 files).
        this.db.exec('ANALYZE');
      } else this.refreshNames();
      this.stmtCache.clear();
      const put = this.stmt('INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)');
      const updatedAt = new Date().toISOString();
      put.run('updated_at', updatedAt);
      // A full write counts (a scan it can afford); a patch, which must stay cheap (a watching process writes one per
      // edit), leaves the counting to meta().
      if (full || (opts.remove?.length ?? 0) > 0) {
        const { byKind, byType } = this.counts();
        put.run('counts', JSON.stringify({ updated_at: updatedAt, by_kind: byKind, by_edge_type: byType }));
      } else this.stmt('DELETE FROM meta WHERE key = ?').run('counts');
      this.stmt('DELETE FROM meta WHERE key = ?').run('pending_since');
      if (this.root) put.run('root', this.root);
      // Last: a first write killed half-way (its journal only in memory) leaves a file without it, which the next
      // writer replaces rather than mistakes for an index.
      put.run('store_format', String(STORE_FORMAT));
    });
    try {
      write();
    } catch (err) {
      throw busyError(err, this.location, 'writing it');
    }
    this.switchToWal();
    return infos;
  }

  async artifact(source: string, name: string): Promise<string | undefined> {
    const row = this.stmt('SELECT content FROM source_artifacts WHERE source = ? AND name = ?').get(source, name) as { content: string } | undefined;
    return row?.content;
  }

  async replaceSource(
    source: Omit<SourceInfo, 'nodes' | 'edges'>,
    nodes: readonly NodeRecord[],
    edges: readonly EdgeRecord[],
    onProgress?: (p: WriteProgress) => void,
  ): Promise<SourceInfo> {
    const [info] = await this.writeSources([{ source, nodes, edges }], onProgress ? { onProgress } : {});
    return info!;
  }

  async removeSource(name: string): Promise<boolean> {
    if (this.pendingReset) return false;
    const had = (this.stmt('SELECT count(*) AS c FROM sources WHERE name = ?').get(name) as { c: number }).c > 0;
    if (had) await this.writeSources([], { remove: [name] });
    return had;
  }

  /** Of the sources written together, those holding a node another of them now writes (see `movedSources`). */
  private sourcesLosingNodes(writes: readonly SourceWrite[]): Set<string> {
    const lookup = this.stmt('SELECT source FROM nodes WHERE id = ?');
    return movedSources(writes, (id) => (lookup.get(id) as { source: string } | undefined)?.source);
  }

  private deleteSource(name: string): boolean {
    const had = this.stmt('DELETE FROM sources WHERE name = ?').run(name).changes > 0;
    this.unindexSource(name);
    this.stmt('DELETE FROM node_terms WHERE rid IN (SELECT rid FROM nodes WHERE source = ?)').run(name);
    this.stmt('DELETE FROM node_props WHERE rid IN (SELECT rid FROM nodes WHERE source = ?)').run(name);
    this.stmt('DELETE FROM edges WHERE source = ?').run(name);
    this.stmt('DELETE FROM edges WHERE src IN (SELECT rid FROM nodes WHERE source = ?) OR dst IN (SELECT rid FROM nodes WHERE source = ?)').run(name, name);
    this.stmt('DELETE FROM nodes WHERE source = ?').run(name);
    this.stmt('DELETE FROM source_groups WHERE source = ?').run(name);
    this.stmt('DELETE FROM source_artifacts WHERE source = ?').run(name);
    return had;
  }

  /** Takes a source's rows out of the search tables: all of them at once when no other source has any. */
  private unindexSource(name: string): void {
    const others = this.stmt('SELECT EXISTS (SELECT 1 FROM nodes WHERE source < ?) OR EXISTS (SELECT 1 FROM nodes WHERE source > ?) AS others').get(name, name) as { others: number };
    for (const t of SEARCH_TABLES) {
      if (others.others) for (const sql of unindexSearchSql(t)) this.stmt(`${sql} IN (SELECT rid FROM nodes WHERE source = ?)`).run(name);
      else this.db.exec(`INSERT INTO ${t.table}(${t.table}) VALUES ('delete-all'); DELETE FROM ${t.table}_docs;`);
    }
  }

  private nodeCount(): number {
    return (this.stmt('SELECT count(*) AS c FROM nodes').get() as { c: number }).c;
  }

  /** Drops the secondary indexes of nodes and edges; returns the statements that recreate them. */
  private dropSecondaryIndexes(): string[] {
    const indexes = this.db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN ('nodes', 'edges', 'node_terms')").all() as { name: string; sql: string }[];
    for (const i of indexes) this.db.exec(`DROP INDEX "${i.name.replace(/"/g, '""')}"`);
    this.stmtCache.clear();
    return indexes.map((i) => i.sql);
  }

  /** Inserts a source's nodes in answer order; feeds each row to `hasher` (in the order group hashes need). */
  private insertNodes(nodes: readonly NodeRecord[], onProgress: ((p: Omit<WriteProgress, 'source'>) => void) | undefined, hasher: GroupHasher): { ridOf: Map<string, number>; groupOf: Map<string, string> } {
    const maxRid = (this.stmt('SELECT coalesce(max(rid), 0) AS m FROM nodes').get() as { m: number }).m;
    const ridOf = new Map<string, number>();
    const groupOf = new Map<string, string>();
    const listProps = [...this.ontology.listProperties.keys()];
    let rid = maxRid + RID_GAP;
    // Rows are written a batch at a time as they are made, so a large write never holds them all.
    let nodesDone = 0;
    const byKind = new Map<string, RowSink & { flush(): void }>();
    const nodeRows = (kind: string): RowSink => {
      let sink = byKind.get(kind);
      if (!sink) {
        const { sql, width } = this.columnsOf(kind);
        let before = 0;
        const inner = this.batcher('nodes', sql, width, 'INSERT', (done) => {
          nodesDone += done - before;
          before = done;
          onProgress?.({ phase: 'nodes', done: nodesDone, total: nodes.length });
        });
        byKind.set(kind, (sink = inner));
      }
      return sink;
    };
    const termRows = this.batcher('node_terms', '(prop, value, rid)', 3);
    const idRows = this.batcher('search_id_docs', '(rid, name_t, qn_t)', 3);
    const textRows = this.batcher('search_text_docs', '(rid, text_t)', 2);
    const propRows = this.batcher('node_props', '(rid, props)', 2);
    // Rids follow (kind, qualified name, id) within a source, so walking an edge index in rid order is already
    // the order answers are given in: a page of a hub's 20k callers needs no sort.
    // Gaps between rids leave room for an incremental write to insert a node at its place in that order.
    const ordered = [...nodes].sort(nodeOrder);
    for (const n of ordered) {
      if (ridOf.has(n.id)) throw new StoreError('store_corrupt', `duplicate node id ${n.id} (${n.kind} ${n.qualified_name})`);
      ridOf.set(n.id, rid);
      const group = n.file ?? '';
      groupOf.set(n.id, group);
      const props = this.nodeRowsOf(n, rid, { nodeRows, propRows, idRows, textRows, termRows }, listProps);
      hasher.node(group, rowKey(n, props));
      rid += RID_GAP;
    }
    for (const b of [...byKind.values(), propRows, termRows, idRows, textRows]) b.flush();
    for (const sql of SEARCH_TABLES.map(indexSearchSql)) this.stmt(`${sql} > ?`).run(maxRid);
    return { ridOf, groupOf };
  }

  /** Pushes a node's rows to the sinks; returns its props as stored. */
  private nodeRowsOf(n: NodeRecord, rid: number, sinks: NodeSinks, listProps: readonly string[]): string {
    const { nodeRows, propRows, idRows, textRows, termRows } = sinks;
    const props = JSON.stringify(n.props);
    propRows.push([rid, props]);
    const row: SqlValue[] = [rid, n.id, n.kind, n.name, n.qualified_name, n.source, n.service ?? null, n.module ?? null, n.file ?? null, n.line ?? null, n.name.toLowerCase(), n.qualified_name.toLowerCase(), reverse(n.qualified_name.toLowerCase())];
    for (const p of this.columnsOf(n.kind).properties) {
      const value = columnValue(n.props[p]);
      if (value !== null) this.propertyCounts.set(p, (this.propertyCounts.get(p) ?? 0) + 1);
      row.push(value);
    }
    nodeRows(n.kind).push(row);
    const doc = searchDocOf(this.ontology, n);
    idRows.push([rid, doc.name.join(' '), doc.qualifiedName.join(' ')]);
    if (doc.text.length) textRows.push([rid, doc.text.join(' ')]);
    for (const p of listProps) {
      const v = n.props[p];
      if (Array.isArray(v)) for (const item of new Set(v)) if (typeof item === 'string') termRows.push([p, item, rid]);
    }
    return props;
  }

  /**
   * Applies only the groups (files) whose content hash changed since the source's last write: their nodes are
   * updated in place (rid kept, so edges from elsewhere stay valid), added at their place in (kind, qualified
   * name, id) order, or removed, and their outgoing edges replaced. Returns false, having changed nothing, when
   * a full write is the better or the only way (no previous groups, most groups changed, no rid gap left).
   */
  private patchSource(source: string, groups: Map<string, GroupContent>, only: ReadonlySet<string> | undefined): boolean {
    const old = new Map((this.stmt('SELECT grp, hash FROM source_groups WHERE source = ?').all(source) as { grp: string; hash: string }[]).map((r) => [r.grp, r.hash]));
    if (!old.size) return false;
    // With `only`, `groups` holds just those groups (one of them missing from it is now empty).
    const candidates = only ? [...only] : [...new Set([...groups.keys(), ...old.keys()])];
    const touched = candidates.filter((g) => groups.get(g)?.hash !== old.get(g)).sort();
    if (touched.length > Math.max(8, (only ? old.size : groups.size) / 3)) return false;
    const oldRows: { rid: number; id: string; name: string; grp: string; row: string; order: string }[] = [];
    const columns = 'n.rid, n.id, n.kind, n.name, n.qualified_name, n.service, n.module, n.file, n.line, p.props';
    const select = this.stmt(`SELECT ${columns} FROM nodes n JOIN node_props p ON p.rid = n.rid WHERE n.source = ? AND n.file = ?`);
    const selectNull = this.stmt(`SELECT ${columns} FROM nodes n JOIN node_props p ON p.rid = n.rid WHERE n.source = ? AND n.file IS NULL`);
    for (const g of touched) {
      const rows = (g === '' ? selectNull.all(source) : select.all(source, g)) as Row[];
      for (const r of rows) oldRows.push({ rid: r.rid as number, id: r.id as string, name: r.name as string, grp: g, row: rowKey(r), order: `${r.kind as string}\0${r.qualified_name as string}` });
    }
    const oldById = new Map(oldRows.map((r) => [r.id, r]));
    const fresh = touched.flatMap((g) => groups.get(g)?.nodes ?? []);
    const freshIds = new Set(fresh.map((n) => n.id));
    // Plan new rids first, so that running out of room changes nothing.
    const added = fresh.filter((n) => !oldById.has(n.id)).sort(nodeOrder);
    const before = this.stmt('SELECT rid FROM nodes WHERE (kind, qualified_name, id) < (?, ?, ?) AND source = ? ORDER BY kind DESC, qualified_name DESC, id DESC LIMIT 1');
    const after = this.stmt('SELECT rid FROM nodes WHERE (kind, qualified_name, id) > (?, ?, ?) AND source = ? ORDER BY kind, qualified_name, id LIMIT 1');
    const planned = new Map<string, number>();
    let last = -Infinity;
    const maxRid = (this.stmt('SELECT coalesce(max(rid), 0) AS m FROM nodes').get() as { m: number }).m;
    for (const n of added) {
      const lo = Math.max(last, (before.get(n.kind, n.qualified_name, n.id, source) as { rid: number } | undefined)?.rid ?? -Infinity);
      const hi = (after.get(n.kind, n.qualified_name, n.id, source) as { rid: number } | undefined)?.rid;
      let rid: number;
      if (hi === undefined) rid = Math.max(lo === -Infinity ? 0 : lo, maxRid, last === -Infinity ? 0 : last) + RID_GAP;
      else if (lo === -Infinity) rid = hi - RID_GAP;
      else rid = Math.floor((lo + hi) / 2);
      if ((hi !== undefined && rid >= hi) || rid <= lo || rid <= 0) return false;
      planned.set(n.id, rid);
      last = rid;
    }
    const byId = new Map(fresh.map((n) => [n.id, n]));
    const gone = oldRows.filter((r) => !freshIds.has(r.id));
    const changed = oldRows.filter((r) => freshIds.has(r.id) && rowKey(byId.get(r.id)!) !== r.row);
    // A node whose kind or qualified name changed under the same id (a client whose target became known) belongs
    // elsewhere in the (kind, qualified name, id) order its rid keeps: only a full write places it.
    if (changed.some((r) => `${byId.get(r.id)!.kind}\0${byId.get(r.id)!.qualified_name}` !== r.order)) return false;
    const goneRids = gone.map((r) => r.rid);
    this.runWhereIn(oldRows.map((r) => r.rid), ['DELETE FROM edges WHERE src IN']);
    this.runWhereIn([...goneRids, ...changed.map((r) => r.rid)], [...SEARCH_TABLES.flatMap(unindexSearchSql).map((sql) => `${sql} IN`), 'DELETE FROM node_terms WHERE rid IN']);
    this.runWhereIn(goneRids, ['DELETE FROM edges WHERE dst IN', 'DELETE FROM node_props WHERE rid IN', 'DELETE FROM nodes WHERE rid IN']);
    const listProps = [...this.ontology.listProperties.keys()];
    const rowsByKind = new Map<string, SqlValue[][]>();
    const nodeRows = (kind: string): SqlValue[][] => {
      let rows = rowsByKind.get(kind);
      if (!rows) rowsByKind.set(kind, (rows = []));
      return rows;
    };
    const sinks = { nodeRows, propRows: [] as SqlValue[][], idRows: [] as SqlValue[][], textRows: [] as SqlValue[][], termRows: [] as SqlValue[][] };
    for (const r of changed) this.nodeRowsOf(byId.get(r.id)!, r.rid, sinks, listProps);
    for (const n of added) this.nodeRowsOf(n, planned.get(n.id)!, sinks, listProps);
    const { propRows, idRows, textRows, termRows } = sinks;
    for (const [kind, rows] of rowsByKind) {
      const { sql, width } = this.columnsOf(kind);
      this.insertRows('nodes', sql, width, rows, undefined, 'INSERT OR REPLACE');
    }
    this.insertRows('node_props', '(rid, props)', 2, propRows, undefined, 'INSERT OR REPLACE');
    this.insertRows('node_terms', '(prop, value, rid)', 3, termRows);
    this.insertRows('search_id_docs', '(rid, name_t, qn_t)', 3, idRows);
    this.insertRows('search_text_docs', '(rid, text_t)', 2, textRows);
    this.runWhereIn([...changed.map((r) => r.rid), ...planned.values()], SEARCH_TABLES.map((t) => `${indexSearchSql(t)} IN`));
    const ridOf = new Map<string, number>([...oldRows.filter((r) => freshIds.has(r.id)).map((r) => [r.id, r.rid] as const), ...planned]);
    this.insertEdges(source, touched.flatMap((g) => groups.get(g)?.edges ?? []), ridOf);
    for (const r of oldRows) this.namesTouched.add(r.name);
    for (const n of fresh) this.namesTouched.add(n.name);
    return true;
  }

  /** Runs each statement prefix ending in `IN` (a delete, or an insert from a select) over the rids, a batch at a time. */
  private runWhereIn(rids: readonly number[], statements: readonly string[]): void {
    for (let i = 0; i < rids.length; i += BATCH) {
      const chunk = rids.slice(i, i + BATCH);
      const marks = chunk.map(() => '?').join(',');
      for (const sql of statements) this.stmt(`${sql} (${marks})`).run(...chunk);
    }
  }

  /** How many nodes written in this transaction have each indexed property (see PROPERTY_INDEX_MIN_NODES). */
  private readonly propertyCounts = new Map<string, number>();

  /** Names of nodes a patch added, changed or removed. */
  private readonly namesTouched = new Set<string>();

  /** After a patch: the vocabulary and per-kind counts of the names it touched, without rebuilding the rest. */
  private refreshNames(): void {
    if (!this.namesTouched.size) return;
    this.db.exec('CREATE TEMP TABLE IF NOT EXISTS touched_names (name TEXT PRIMARY KEY, name_lc TEXT NOT NULL) WITHOUT ROWID; DELETE FROM touched_names;');
    this.insertRows('touched_names', '(name, name_lc)', 2, [...this.namesTouched].map((n) => [n, n.toLowerCase()]));
    this.namesTouched.clear();
    const before = (this.stmt('SELECT coalesce(max(nid), 0) AS m FROM name_ids').get() as { m: number }).m;
    this.db.exec(`
      INSERT INTO name_ids(name) SELECT DISTINCT n.name FROM touched_names t JOIN nodes n ON n.name_lc = t.name_lc AND n.name = t.name WHERE n.name NOT IN (SELECT name FROM name_ids) ORDER BY n.name;
      INSERT INTO names(rowid, name) SELECT nid, name FROM name_ids WHERE nid > ${before};
      DELETE FROM name_kinds WHERE nid IN (SELECT d.nid FROM name_ids d JOIN touched_names t ON t.name = d.name);
      INSERT INTO name_kinds(nid, kind, n) SELECT d.nid, n.kind, count(*) FROM touched_names t JOIN name_ids d ON d.name = t.name JOIN nodes n ON n.name_lc = t.name_lc AND n.name = t.name GROUP BY d.nid, n.kind;
      DELETE FROM touched_names;
    `);
  }

  /**
   * Inserts edges in primary-key order (appending to the table's B-tree instead of splitting it at random), and
   * feeds each edge to `hashing` under the group of its source node (of its target, for another source's node).
   */
  private insertEdges(source: string, edges: readonly EdgeRecord[], ridOf: Map<string, number>, onProgress?: (p: Omit<WriteProgress, 'source'>) => void, hashing?: { hasher: GroupHasher; groupOf: Map<string, string> }): void {
    const lookup = this.stmt('SELECT rid FROM nodes WHERE id = ?');
    const resolveRid = (id: string): number => {
      let rid = ridOf.get(id);
      if (rid === undefined) {
        rid = (lookup.get(id) as { rid: number } | undefined)?.rid;
        if (rid === undefined) throw new StoreError('store_corrupt', `edge endpoint ${id} is not a node of this index`);
        ridOf.set(id, rid);
      }
      return rid;
    };
    const src = new Float64Array(edges.length);
    const dst = new Float64Array(edges.length);
    for (let i = 0; i < edges.length; i++) {
      src[i] = resolveRid(edges[i]!.from);
      dst[i] = resolveRid(edges[i]!.to);
    }
    const order = Array.from({ length: edges.length }, (_, i) => i).sort((a, b) => {
      const ea = edges[a]!;
      const eb = edges[b]!;
      return src[a]! - src[b]! || (ea.type < eb.type ? -1 : ea.type > eb.type ? 1 : 0) || dst[a]! - dst[b]! || ((ea.key ?? '') < (eb.key ?? '') ? -1 : (ea.key ?? '') > (eb.key ?? '') ? 1 : 0);
    });
    const rows = this.batcher('edges', '(src, type, dst, key, source, confidence, attrs)', 7, 'INSERT OR REPLACE', (done) => onProgress?.({ phase: 'edges', done, total: edges.length }));
    for (const i of order) {
      const e = edges[i]!;
      const json = attrsJsonOf(e);
      const attrs = e.attrs && Object.keys(e.attrs).length > 0 ? e.attrs : undefined;
      const confidence = typeof attrs?.confidence === 'number' ? attrs.confidence : null;
      rows.push([src[i]!, e.type, dst[i]!, e.key ?? '', source, confidence, attrs ? json : null]);
      if (hashing) {
        const group = hashing.groupOf.get(e.from) ?? hashing.groupOf.get(e.to);
        if (group !== undefined) hashing.hasher.edge(group, edgeLine(e, json));
      }
    }
    rows.flush();
  }

  /** Batched multi-row inserts: one prepared statement per batch size, run inside the caller's transaction. */
  private insertRows(table: string, cols: string, width: number, rows: SqlValue[][], progress?: (done: number) => void, verb = 'INSERT'): void {
    const sink = this.batcher(table, cols, width, verb, progress);
    for (const row of rows) sink.push(row);
    sink.flush();
  }

  /** A sink that inserts rows `BATCH` at a time as they arrive; `flush` writes the rest. */
  private batcher(table: string, cols: string, width: number, verb = 'INSERT', progress?: (done: number) => void): RowSink & { flush(): void } {
    const placeholder = `(${new Array(width).fill('?').join(',')})`;
    const statementFor = (count: number) => this.stmt(`${verb} INTO ${table} ${cols} VALUES ${new Array(count).fill(placeholder).join(',')}`);
    // A wide table (many indexed properties) gets fewer rows per statement.
    const batch = Math.min(BATCH, Math.floor(MAX_VARIABLES / width));
    const full = statementFor(batch);
    let params: SqlValue[] = [];
    let done = 0;
    return {
      push: (row) => {
        for (const v of row) params.push(v);
        if (params.length === batch * width) {
          full.run(params);
          params = [];
          done += batch;
          if (progress && done % (batch * 25) < batch) progress(done);
        }
      },
      flush: () => {
        if (params.length) statementFor(params.length / width).run(params);
        done += params.length / width;
        params = [];
        progress?.(done);
      },
    };
  }

  private rebuildNames(): void {
    this.namesTouched.clear();
    this.db.exec(`
      DELETE FROM names;
      DELETE FROM name_kinds;
      DELETE FROM name_ids;
      INSERT INTO name_ids(name) SELECT DISTINCT name FROM nodes ORDER BY name;
      INSERT INTO names(rowid, name) SELECT nid, name FROM name_ids;
      INSERT INTO name_kinds(nid, kind, n) SELECT d.nid, n.kind, count(*) FROM nodes n JOIN name_ids d ON d.name = n.name GROUP BY d.nid, n.kind;
    `);
  }

  // ---------------------------------------------------------------- reading

  private toNode(row: Row): NodeRecord {
    return nodeFromRow(row);
  }

  async getNodes(ids: readonly string[]): Promise<NodeRecord[]> {
    if (ids.length === 0) return [];
    const rows = this.db.prepare(`SELECT ${NODE_COLUMNS} FROM nodes n WHERE n.id IN (${ids.map(() => '?').join(',')})`).all(...ids) as Row[];
    const byId = new Map(rows.map((r) => [r.id as string, this.toNode(r)]));
    return ids.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : []));
  }

  /** SQL condition and parameters for predicates on the node aliased `alias`. */
  private whereNodes(alias: string, kinds: readonly string[] | undefined, predicates: readonly Predicate[]): { sql: string; params: SqlValue[] } {
    const clauses: string[] = [];
    const params: SqlValue[] = [];
    if (kinds && kinds.length > 0) {
      clauses.push(`${alias}.kind IN (${kinds.map(() => '?').join(',')})`);
      params.push(...kinds);
    }
    for (const p of predicates) {
      if (this.ontology.listProperties.has(p.property)) {
        if (p.op !== 'has_any') throw new Error(`list property ${p.property} supports has_any only`);
        clauses.push(`EXISTS (SELECT 1 FROM node_terms t WHERE t.prop = ? AND t.value IN (${p.values.map(() => '?').join(',')}) AND t.rid = ${alias}.rid)`);
        params.push(p.property, ...p.values);
        continue;
      }
      const col = `${alias}.${CORE_COLUMNS.has(p.property) ? p.property : propertyColumn(p.property)}`;
      // Names and qualified names are indexed lower-case only: a matching lower-case term lets that index serve.
      const lower = p.property === 'name' ? `${alias}.name_lc` : p.property === 'qualified_name' ? `${alias}.qn_lc` : undefined;
      switch (p.op) {
        case 'in':
        case 'has_any': {
          const values = p.values.map((v) => (typeof v === 'boolean' ? (v ? 1 : 0) : v));
          clauses.push(values.length === 1 ? `${col} = ?` : `${col} IN (${values.map(() => '?').join(',')})`);
          params.push(...values);
          if (lower && values.every((v) => typeof v === 'string')) {
            clauses.push(`${lower} IN (${values.map(() => '?').join(',')})`);
            params.push(...values.map((v) => (v as string).toLowerCase()));
          }
          break;
        }
        case 'not_in':
          clauses.push(`(${col} IS NULL OR ${col} NOT IN (${p.values.map(() => '?').join(',')}))`);
          params.push(...p.values);
          break;
        case 'prefix':
          // The explicit NOT NULL lets the planner use a property's partial index under an OR of ranges.
          clauses.push(`${col} IS NOT NULL AND (${p.values.map(() => `(${col} >= ? AND ${col} < ?)`).join(' OR ')})`);
          for (const v of p.values) params.push(v, `${v}\u{10FFFF}`);
          if (lower) {
            clauses.push(`(${p.values.map(() => `(${lower} >= ? AND ${lower} < ?)`).join(' OR ')})`);
            for (const v of p.values) params.push(v.toLowerCase(), `${v.toLowerCase()}\u{10FFFF}`);
          }
          break;
        case 'contains':
          clauses.push(`${col} LIKE ? ESCAPE '\\'`);
          params.push(`%${escapeLike(p.value)}%`);
          break;
        case 'gte':
          clauses.push(`${col} >= ?`);
          params.push(p.value);
          break;
        case 'lte':
          clauses.push(`${col} <= ?`);
          params.push(p.value);
          break;
      }
    }
    return { sql: clauses.length ? clauses.join(' AND ') : '1', params };
  }

  async findNodes(q: NodeQuery): Promise<{ nodes: NodeRecord[]; total: number }> {
    const where = this.whereNodes('n', q.kinds, q.predicates);
    const rows = this.db
      .prepare(`SELECT ${NODE_COLUMNS} FROM nodes n WHERE ${where.sql} ORDER BY n.kind, n.qualified_name, n.id LIMIT ? OFFSET ?`)
      .all(...where.params, q.limit, q.offset) as Row[];
    const total = rows.length < q.limit && (q.offset === 0 || rows.length > 0) ? q.offset + rows.length : await this.countNodes(q);
    return { nodes: rows.map((r) => this.toNode(r)), total };
  }

  async countNodes(q: Omit<NodeQuery, 'limit' | 'offset'>): Promise<number> {
    const where = this.whereNodes('n', q.kinds, q.predicates);
    return (this.db.prepare(`SELECT count(*) AS c FROM nodes n WHERE ${where.sql}`).get(...where.params) as { c: number }).c;
  }

  async nodesByName(
    field: 'qualified_name' | 'name',
    value: string,
    opts: { caseInsensitive: boolean; kinds?: readonly string[]; limit: number },
  ): Promise<NodeRecord[]> {
    // Exact names are found through the lower-case index (one index per name serves both lookups).
    const lc = field === 'name' ? 'name_lc' : 'qn_lc';
    const exact = opts.caseInsensitive ? '' : ` AND n.${field} = ?`;
    const kinds = this.whereNodes('n', opts.kinds, []);
    const rows = this.db
      .prepare(`SELECT ${NODE_COLUMNS} FROM nodes n WHERE n.${lc} = ?${exact} AND ${kinds.sql} ORDER BY n.kind, n.qualified_name, n.id LIMIT ?`)
      .all(value.toLowerCase(), ...(opts.caseInsensitive ? [] : [value]), ...kinds.params, opts.limit) as Row[];
    return rows.map((r) => this.toNode(r));
  }

  async nodesByQualifiedNameSuffix(suffix: string, opts: { kinds?: readonly string[]; limit: number }): Promise<NodeRecord[]> {
    const rev = reverse(suffix.toLowerCase());
    const kinds = this.whereNodes('n', opts.kinds, []);
    const rows = this.db
      .prepare(
        `SELECT ${NODE_COLUMNS} FROM nodes n WHERE n.qn_rev >= ? AND n.qn_rev < ? AND substr(n.qn_rev, ?, 1) IN ('.', '#', '/', ':') AND ${kinds.sql}
         ORDER BY n.kind, n.qualified_name, n.id LIMIT ?`,
      )
      .all(rev, `${rev}\u{10FFFF}`, rev.length + 1, ...kinds.params, opts.limit) as Row[];
    return rows.map((r) => this.toNode(r));
  }

  private edgeWhere(preds: readonly EdgePredicate[] | undefined): { sql: string; params: SqlValue[] } {
    const clauses: string[] = [];
    const params: SqlValue[] = [];
    for (const p of preds ?? []) {
      if (p.attr === 'confidence' && p.op === 'gte') {
        clauses.push('coalesce(e.confidence, 1.0) >= ?');
        params.push(p.value);
      } else if (p.op === 'in') {
        clauses.push(`json_extract(e.attrs, '$.${p.attr.replace(/[^a-z0-9_]/gi, '')}') IN (${p.values.map(() => '?').join(',')})`);
        params.push(...p.values.map((v) => (typeof v === 'boolean' ? (v ? 1 : 0) : v)));
      } else {
        clauses.push(`coalesce(json_extract(e.attrs, '$.${p.attr.replace(/[^a-z0-9_]/gi, '')}'), 0) >= ?`);
        params.push(p.value);
      }
    }
    return { sql: clauses.length ? clauses.join(' AND ') : '1', params };
  }

  async edges(q: EdgeQuery): Promise<{ rows: EdgeRow[]; total: number }> {
    if (q.ids.length === 0 || q.types.length === 0) return { rows: [], total: 0 };
    const origins = this.db.prepare(`SELECT rid, id FROM nodes WHERE id IN (${q.ids.map(() => '?').join(',')}) ORDER BY id`).all(...q.ids) as { rid: number; id: string }[];
    if (origins.length === 0) return { rows: [], total: 0 };
    const originId = new Map(origins.map((o) => [o.rid, o.id]));
    const filtered = (q.other?.kinds?.length ?? 0) > 0 || (q.other?.predicates.length ?? 0) > 0;
    const other = this.whereNodes('n', q.other?.kinds, q.other?.predicates ?? []);
    const edge = this.edgeWhere(q.edge);
    const types = q.types.map(() => '?').join(',');
    const rids = origins.map(() => '?').join(',');
    // Origins are ordered by id: a CASE turns each origin's rid into its rank. Pages are cut on edge keys alone;
    // the other ends' full rows are read for the page only.
    const originRank = origins.length === 1 ? '' : `CASE e_origin ${origins.map((o, i) => `WHEN ${o.rid} THEN ${i}`).join(' ')} END, `;
    const keyParts: string[] = [];
    const countParts: string[] = [];
    const params: SqlValue[] = [];
    const countParams: SqlValue[] = [];
    const dirs = q.direction === 'both' ? (['out', 'in'] as const) : [q.direction];
    for (const dir of dirs) {
      const [near, far] = dir === 'out' ? ['src', 'dst'] : ['dst', 'src'];
      keyParts.push(
        `SELECT e.${near} AS e_origin, e.type AS e_type, e.key AS e_key, e.attrs AS e_attrs, '${dir}' AS e_dir, e.${far} AS n_rid
         FROM edges e${filtered ? ` JOIN nodes n ON n.rid = e.${far}` : ''}
         WHERE e.${near} IN (${rids}) AND e.type IN (${types}) AND ${filtered ? other.sql : '1'} AND ${edge.sql}`,
      );
      params.push(...origins.map((o) => o.rid), ...q.types, ...(filtered ? other.params : []), ...edge.params);
      countParts.push(
        filtered
          ? `SELECT count(*) AS c FROM edges e JOIN nodes n ON n.rid = e.${far} WHERE e.${near} IN (${rids}) AND e.type IN (${types}) AND ${other.sql} AND ${edge.sql}`
          : `SELECT count(*) AS c FROM edges e WHERE e.${near} IN (${rids}) AND e.type IN (${types}) AND ${edge.sql}`,
      );
      countParams.push(...origins.map((o) => o.rid), ...q.types, ...(filtered ? other.params : []), ...edge.params);
    }
    // The other end's rid is its (kind, qualified name) order within a source; with one direction the edge index
    // already yields rows in this order, so SQLite stops after one page.
    const order = `ORDER BY ${originRank}e_type, ${dirs.length > 1 ? 'e_dir DESC, ' : ''}n_rid, e_key`;
    const pageSql = dirs.length > 1 ? `SELECT * FROM (${keyParts.join(' UNION ALL ')}) ${order} LIMIT ? OFFSET ?` : `${keyParts[0]} ${order} LIMIT ? OFFSET ?`;
    const page = this.db.prepare(pageSql).all(...params, q.limit, q.offset) as Row[];
    const total =
      page.length < q.limit && (q.offset === 0 || page.length > 0)
        ? q.offset + page.length
        : (this.db.prepare(`SELECT sum(c) AS c FROM (${countParts.join(' UNION ALL ')})`).get(...countParams) as { c: number | null }).c ?? 0;
    const nodeRows = page.length
      ? (this.db.prepare(`SELECT ${NODE_COLUMNS} FROM nodes n WHERE n.rid IN (${[...new Set(page.map((r) => r.n_rid))].join(',')})`).all() as Row[])
      : [];
    const byRid = new Map(nodeRows.map((r) => [r.rid as number, this.toNode(r)]));
    return {
      total,
      rows: page.map((r) => {
        const otherNode = byRid.get(r.n_rid as number)!;
        const dir = r.e_dir as 'in' | 'out';
        const origin = originId.get(r.e_origin as number)!;
        return {
          type: r.e_type as string,
          direction: dir,
          from: dir === 'out' ? origin : otherNode.id,
          to: dir === 'out' ? otherNode.id : origin,
          key: r.e_key as string,
          attrs: r.e_attrs ? (JSON.parse(r.e_attrs as string) as Record<string, PropValue>) : {},
          origin,
          other: otherNode,
        };
      }),
    };
  }

  async edgeCounts(ids: readonly string[]): Promise<Map<string, Record<string, { in: number; out: number }>>> {
    const out = new Map<string, Record<string, { in: number; out: number }>>();
    if (ids.length === 0) return out;
    const marks = ids.map(() => '?').join(',');
    const rows = this.db
      .prepare(
        `SELECT o.id AS id, e.type AS type, 'out' AS dir, count(*) AS c FROM nodes o JOIN edges e ON e.src = o.rid WHERE o.id IN (${marks}) GROUP BY o.id, e.type
         UNION ALL
         SELECT o.id AS id, e.type AS type, 'in' AS dir, count(*) AS c FROM nodes o JOIN edges e ON e.dst = o.rid WHERE o.id IN (${marks}) GROUP BY o.id, e.type`,
      )
      .all(...ids, ...ids) as { id: string; type: string; dir: 'in' | 'out'; c: number }[];
    for (const id of ids) out.set(id, {});
    for (const r of rows) {
      const counts = out.get(r.id)!;
      counts[r.type] ??= { in: 0, out: 0 };
      counts[r.type]![r.dir] = r.c;
    }
    for (const [id, counts] of out) out.set(id, Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b))));
    return out;
  }

  async searchText(q: TextQuery): Promise<TextHit[]> {
    if (q.terms.length === 0) return [];
    const match = q.terms.map((t) => ftsQuote(searchTerm(t))).join(q.mode === 'and' ? ' AND ' : ' OR ');
    const where = this.whereNodes('n', q.kinds, q.predicates ?? []);
    const priorCases = Object.entries(q.kindPriors)
      .map(([kind, prior]) => `WHEN '${kind.replace(/'/g, "''")}' THEN ${Number(prior)}`)
      .join(' ');
    const prior = priorCases ? `(CASE n.kind ${priorCases} ELSE 1.0 END)` : '1.0';
    const w = q.weights;
    // bm25() is lower-is-better (negative); negate so higher is better. Identifiers and descriptions are
    // scored in separate tables so each has its own length normalisation, then added.
    const rows = this.db
      .prepare(
        `WITH hits AS (
           SELECT rowid AS rid, -bm25(search_id, ${w.name}, ${w.qualified_name}) AS s_id, 0.0 AS s_text FROM search_id WHERE search_id MATCH ?
           UNION ALL
           SELECT rowid AS rid, 0.0, -bm25(search_text) * ${w.text} FROM search_text WHERE search_text MATCH ?
         ), agg AS (SELECT rid, sum(s_id) AS s_id, sum(s_text) AS s_text FROM hits GROUP BY rid)
         SELECT ${NODE_COLUMNS}, (agg.s_id + agg.s_text) * ${prior} AS score, agg.s_id AS c_id, agg.s_text AS c_text
         FROM agg CROSS JOIN nodes n ON n.rid = agg.rid
         WHERE ${where.sql}
         ORDER BY score DESC, n.qualified_name, n.id LIMIT ?`,
      )
      .all(match, match, ...where.params, q.limit) as Row[];
    return rows.map((r) => ({
      node: this.toNode(r),
      score: r.score as number,
      components: { identifier: r.c_id as number, text: r.c_text as number },
    }));
  }

  // ---------------------------------------------------------------- vectors

  private readonly vectorCache = new VectorCache();

  private hasVectorTables(): boolean {
    return (this.stmt("SELECT count(*) AS c FROM sqlite_master WHERE type = 'table' AND name IN ('embedding_vectors', 'node_embeddings')").get() as { c: number }).c === 2;
  }

  async embeddingSpace(): Promise<EmbeddingSpace | undefined> {
    if (this.pendingReset) return undefined;
    return parseEmbeddingSpace(this.metaValue('embeddings'));
  }

  async vectorAssignments(model: string): Promise<Map<string, string>> {
    if (this.pendingReset || !this.hasVectorTables()) return new Map();
    return new Map(this.stmt('SELECT id, hash FROM node_embeddings WHERE model = ?').raw().all(model) as [string, string][]);
  }

  async vectorHashes(model: string, hashes: readonly string[]): Promise<Set<string>> {
    const out = new Set<string>();
    if (this.pendingReset || !this.hasVectorTables()) return out;
    const has = this.stmt('SELECT 1 FROM embedding_vectors WHERE model = ? AND hash = ?').pluck();
    for (const h of hashes) if (has.get(model, h) !== undefined) out.add(h);
    return out;
  }

  async writeVectors(w: VectorWrite): Promise<void> {
    if (this.pendingReset) throw new StoreError('store_missing', `the index at ${this.location} has no sources yet: index them before their vectors`);
    const write = this.db.transaction(() => {
      // Created by the first pass; statements prepared before then would not see the new tables.
      if (!this.hasVectorTables()) {
        this.db.exec(VECTOR_DDL);
        this.stmtCache.clear();
      }
      const putVector = this.stmt('INSERT OR REPLACE INTO embedding_vectors(model, hash, vector) VALUES (?, ?, ?)');
      for (const v of w.vectors) putVector.run(w.model, v.hash, encodeVector(v.vector));
      const assign = this.stmt('INSERT OR REPLACE INTO node_embeddings(model, id, hash) VALUES (?, ?, ?)');
      for (const a of w.assign) assign.run(w.model, a.id, a.hash);
      const unassign = this.stmt('DELETE FROM node_embeddings WHERE model = ? AND id = ?');
      for (const id of w.unassign ?? []) unassign.run(w.model, id);
      if (w.prune) {
        this.stmt('DELETE FROM embedding_vectors WHERE model = ? AND hash NOT IN (SELECT hash FROM node_embeddings WHERE model = ?)').run(w.model, w.model);
        // Vectors of another model are another space's: a changed `model` leaves them unused.
        this.stmt('DELETE FROM embedding_vectors WHERE model <> ?').run(w.model);
        this.stmt('DELETE FROM node_embeddings WHERE model <> ?').run(w.model);
      }
      // The stamp changes with every write, so readers reload the vectors they keep.
      this.stmt('INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)').run('vectors_written', `${new Date().toISOString()}#${randomUUID()}`);
      if (w.space) this.stmt('INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)').run('embeddings', JSON.stringify(w.space));
    });
    try {
      write();
    } catch (err) {
      throw busyError(err, this.location, 'writing vectors to it');
    }
  }

  async searchVectors(q: VectorQuery): Promise<VectorHit[]> {
    if (this.pendingReset || !this.hasVectorTables()) return [];
    const stamp = this.metaValue('vectors_written') ?? '';
    const byHash = await this.vectorCache.vectors(q.model, stamp, () => this.stmt('SELECT hash, vector FROM embedding_vectors WHERE model = ?').raw().iterate(q.model) as Iterable<[string, Uint8Array]>);
    const where = this.whereNodes('n', q.kinds, q.predicates ?? []);
    const rows = this.db.prepare(`SELECT n.id, m.hash FROM node_embeddings m CROSS JOIN nodes n ON n.id = m.id WHERE m.model = ? AND ${where.sql}`).raw().all(q.model, ...where.params) as [string, string][];
    const best = nearest(
      rows.map(([key, hash]) => ({ key, hash })),
      byHash,
      q.vector,
      q.limit,
    );
    const nodes = new Map((await this.getNodes(best.map((b) => b.key))).map((n) => [n.id, n]));
    return best.flatMap((b) => (nodes.has(b.key) ? [{ node: nodes.get(b.key)!, similarity: b.similarity }] : []));
  }

  async textMatchCounts(terms: readonly string[], cap: number): Promise<number[]> {
    const count = this.stmt(
      `SELECT (SELECT count(*) FROM (SELECT 1 FROM search_id WHERE search_id MATCH ? LIMIT ?)) + (SELECT count(*) FROM (SELECT 1 FROM search_text WHERE search_text MATCH ? LIMIT ?)) AS c`,
    );
    return terms.map((t) => {
      const quoted = ftsQuote(searchTerm(t));
      return Math.min(cap, (count.get(quoted, cap, quoted, cap) as { c: number }).c);
    });
  }

  async similarNames(text: string, opts: { kinds?: readonly string[]; limit: number }): Promise<NameSuggestion[]> {
    const needle = text.trim();
    if (!needle) return [];
    const grams = [...new Set([...trigrams(needle)].map((g) => g.trim()).filter((g) => g.length === 3))];
    let candidates: { nid: number; name: string }[];
    if (grams.length === 0) {
      candidates = this.stmt(`SELECT rowid AS nid, name FROM names WHERE name LIKE ? ESCAPE '\\' LIMIT 500`).all(`${escapeLike(needle)}%`) as { nid: number; name: string }[];
    } else {
      // Candidates share one of the needle's rarest trigrams: a small match set, scored exactly in JS below,
      // instead of ranking every name that shares any trigram.
      const docs = this.db.prepare(`SELECT term, doc FROM names_vocab WHERE term IN (${grams.map(() => '?').join(',')})`).all(...grams) as { term: string; doc: number }[];
      const rare = docs.sort((a, b) => a.doc - b.doc || a.term.localeCompare(b.term)).slice(0, 4).map((r) => ftsQuote(r.term));
      if (rare.length === 0) return [];
      // Names sharing two of the four rarest trigrams first (a typo rarely breaks more than two); any one of them
      // only when that finds too little.
      const pairs = rare.flatMap((a, i) => rare.slice(i + 1).map((b) => `(${a} AND ${b})`));
      const matchNames = this.stmt(`SELECT rowid AS nid, name FROM names WHERE names MATCH ? LIMIT 3000`);
      candidates = pairs.length ? (matchNames.all(pairs.join(' OR ')) as { nid: number; name: string }[]) : [];
      if (candidates.length < opts.limit * 4) candidates = matchNames.all(rare.join(' OR ')) as { nid: number; name: string }[];
    }
    const kindFilter = opts.kinds && opts.kinds.length > 0 ? new Set(opts.kinds) : undefined;
    const kindsOf = this.stmt('SELECT kind FROM name_kinds WHERE nid = ? ORDER BY kind');
    const similarityTo = trigramScorer(needle);
    // Ties (e.g. the type Customer and the field customer) go to the spelling whose case matches the input's.
    const sameCase = (name: string) => (name[0] === needle[0] ? 0 : 1);
    const scored = candidates
      .map((c) => ({ ...c, similarity: similarityTo(c.name) }))
      .filter((c) => c.similarity >= 0.25)
      .sort((a, b) => b.similarity - a.similarity || sameCase(a.name) - sameCase(b.name) || a.name.localeCompare(b.name));
    const out: NameSuggestion[] = [];
    for (const c of scored) {
      const kinds = (kindsOf.all(c.nid) as { kind: string }[]).map((k) => k.kind).filter((k) => !kindFilter || kindFilter.has(k));
      if (kinds.length === 0) continue;
      out.push({ name: c.name, kinds, similarity: Math.round(c.similarity * 1000) / 1000 });
      if (out.length === opts.limit) break;
    }
    return out;
  }

  /** After the first write of a file this process created: WAL from now on, so readers and the writer never wait on each other. */
  private switchToWal(): void {
    if (!this.walAfterFirstWrite) return;
    try {
      this.db.pragma('journal_mode = WAL');
      this.walAfterFirstWrite = false;
    } catch (err) {
      // A reader opened the new index within the moment since its commit: the next write, or the next writer, switches.
      if (!isBusy(err)) throw err;
    }
  }

  async close(): Promise<void> {
    if (this.lock && this.db.open) this.leaveWal();
    if (this.db.open) this.db.close();
    this.lock?.release();
    this.lock = undefined;
  }

  /**
   * A writer that ends with no reader connected leaves the file in rollback-journal mode: SQLite reads a WAL file
   * only where it may create its shared-memory file, so a published index (a read-only directory, another user's)
   * would be unreadable. The next writer switches WAL on again; with readers connected it stays on (they can write there).
   */
  private leaveWal(): void {
    try {
      this.db.pragma('busy_timeout = 0');
      this.db.pragma('journal_mode = DELETE');
    } catch {
      // A reader is connected: WAL stays.
    }
  }
}
