import { createHash, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import pg from 'pg';
import { searchTerm } from '../../search/tokenize.js';
import { trigramScorer, trigrams } from '../../search/similarity.js';
import { nodeFromRow } from '../types.js';
import { groupHashes, movedSources, nodeOrder } from '../groups.js';
import { CORE_COLUMNS, STORE_FORMAT, type Ontology } from '../ontology/index.js';
import { BM25_B, BM25_K1, searchDocOf } from '../search-docs.js';
import { propertyColumn, propertyNames } from '../sqlite/schema.js';
import { DEFAULT_LOCK_WAIT_MS } from '../sqlite/writer-lock.js';
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
import { copyRows, type CopyValue } from './copy.js';
import { connectionError, connectionSettings, errorCode, isConnectionFailure, shownPostgresLocation } from './location.js';
import { PG_SEQUENCES, PG_TABLES, pgSchemaDdl, pgSchemaHash, TRIGRAM_DDL, VECTOR_DDL, vectorIndexDdl } from './schema.js';
import { encodeVector } from '../../search/vectors.js';
import { nearest, parseEmbeddingSpace, VectorCache } from '../vector-search.js';

type Row = Record<string, unknown>;

export interface PgOpenOptions {
  mode: 'read' | 'write';
  /** `write` only: drop every source in the database and start from empty (applied with the first write). */
  reset?: boolean;
  /** `write` only: how long a write waits for another writer of the same source (default `DEFAULT_LOCK_WAIT_MS`). */
  lockWaitMs?: number;
  onLockWait?: (message: string) => void;
}

/** Rows of one write get row ids from one block: `block * RID_BLOCK + i * RID_GAP`, in (kind, qualified name, id) order. */
const RID_BLOCK = 2 ** 32;
const RID_GAP = 1024;
/** A reader's statements stop after this long (a runaway query never holds a server connection for good). */
const READ_STATEMENT_TIMEOUT_MS = 60_000;
const POOL_SIZE = { read: 4, write: 3 } as const;
const NODE_COLUMNS = 'n.rid, n.id, n.kind, n.name, n.qualified_name, n.source, n.service, n.module, n.file, n.line, n.props';
const LOCK_NOTICE_EVERY_MS = 15_000;
/** Vectors per INSERT of the embedding pass. */
const VECTOR_BATCH = 500;
/** A write that grows or shrinks the graph by more than this share of its rows refreshes the planner's statistics at once. */
const STALE_STATISTICS_SHARE = 0.2;

/** int8 and numeric as JavaScript numbers (counts and row ids stay far below 2^53). */
const TYPES = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => (oid === 20 || oid === 1700 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as 'text'))) as typeof pg.types.getTypeParser,
};

/** Positional parameters, numbered as they are added. */
class Params {
  readonly values: unknown[] = [];
  add(v: unknown): string {
    this.values.push(v);
    return `$${this.values.length}`;
  }
}

function reverse(text: string): string {
  return [...text].reverse().join('');
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** A property as its typed column holds it. */
function columnValue(v: PropValue | undefined): CopyValue {
  if (v === undefined || v === null) return null;
  if (typeof v === 'boolean' || typeof v === 'string' || typeof v === 'number') return v;
  return JSON.stringify(v);
}

/** A 64-bit advisory lock key (as text, for a bigint parameter) for one source of one database. */
function sourceLockKey(source: string): { key: string; hi: number; lo: number } {
  const digest = createHash('sha256').update(`sextant:source:${source}`).digest();
  const hi = digest.readInt32BE(0);
  const lo = digest.readUInt32BE(4);
  return { key: digest.readBigInt64BE(0).toString(), hi, lo };
}

/** A trigram did-you-mean looks names up by: three letters or digits, lower-cased, as SQLite's trigram index folds them. */
const NAME_GRAM = /^[\p{L}\p{N}]{3}$/u;

/** For each trigram, how many of these nodes' distinct names hold it. */
function nameGramCounts(nodes: readonly NodeRecord[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const name of new Set(nodes.map((n) => n.name))) {
    const chars = [...name.toLowerCase()];
    const seen = new Set<string>();
    for (let i = 0; i + 3 <= chars.length; i++) {
      const gram = chars[i]! + chars[i + 1]! + chars[i + 2]!;
      if (!seen.has(gram) && NAME_GRAM.test(gram)) {
        seen.add(gram);
        counts.set(gram, (counts.get(gram) ?? 0) + 1);
      }
    }
  }
  return counts;
}

/** The lock every schema change (create, rebuild) takes, so two first writers do not both create the tables. */
const SCHEMA_LOCK = sourceLockKey('\0schema').key;

/**
 * The PostgreSQL store: the same contract, answers and answer order as the SQLite store (see `Store`), for an
 * index a team shares. Sources are written independently: each write is one transaction over its own rows, so
 * writers of different sources run side by side and a reader sees each source before or after a write, never
 * half; two writers of the same source take turns on an advisory lock.
 */
export class PgStore implements Store {
  readonly location: string;
  private root: string | undefined;
  private pendingReset: boolean;
  /** Whether the schema exists and is this version's (set once checked or created). */
  private ready = false;
  private trigrams = false;

  private constructor(
    readonly ontology: Ontology,
    private readonly url: string,
    private readonly pool: pg.Pool,
    private readonly opts: PgOpenOptions,
  ) {
    this.location = shownPostgresLocation(url);
    this.pendingReset = Boolean(opts.reset);
  }

  static async open(ontology: Ontology, url: string, opts: PgOpenOptions): Promise<PgStore> {
    const readOnly = opts.mode === 'read';
    let settings: { connectionString: string; options?: string };
    try {
      // A reader never writes, and a runaway query of its never holds a server connection for good.
      settings = connectionSettings(url, { ...(readOnly ? { default_transaction_read_only: 'on', statement_timeout: READ_STATEMENT_TIMEOUT_MS } : {}) });
    } catch {
      throw new StoreError('store_unreachable', `The store location ${shownPostgresLocation(url)} is not a valid URL: write it like postgres://user@host:5432/database.`);
    }
    const pool = new pg.Pool({
      ...settings,
      max: POOL_SIZE[opts.mode],
      types: TYPES,
      application_name: `sextant ${opts.mode === 'read' ? 'reader' : 'index'} (pid ${process.pid} on ${hostname()})`,
    });
    // An idle connection the server closes (a restart, a timeout) is dropped from the pool, not a crash.
    pool.on('error', () => undefined);
    const store = new PgStore(ontology, url, pool, opts);
    try {
      await store.check();
    } catch (err) {
      await pool.end().catch(() => undefined);
      throw err;
    }
    return store;
  }

  /** Runs a statement, turning a failure to connect into an error that says where and what to check. */
  private async query<T extends Row = Row>(sql: string, values: readonly unknown[] = [], client?: pg.PoolClient): Promise<T[]> {
    try {
      return (await (client ?? this.pool).query<T>(sql, values as unknown[])).rows;
    } catch (err) {
      throw this.storeError(err);
    }
  }

  private storeError(err: unknown): unknown {
    if (err instanceof StoreError) return err;
    if (isConnectionFailure(err) && !errorCode(err)?.startsWith('42')) return connectionError(err, this.url);
    const code = errorCode(err);
    if (code === '42501' || code === '25006') {
      let user = '';
      try {
        user = decodeURIComponent(new URL(this.url).username);
      } catch {
        // shown without the user
      }
      return new StoreError(
        'store_readonly',
        `Cannot write the index at ${this.location}: ${user ? `role ${user}` : 'this role'} may read it but not write it (${(err as Error).message}). Index with the role that owns its tables; serve with a read-only one (docs/postgres.md).`,
      );
    }
    if (code === '42P01') return new StoreError('store_corrupt', `The index at ${this.location} is missing a table (${(err as Error).message}): it was changed by hand or half dropped. Rebuild it with \`sextant index <path> --store <url> --rebuild\`.`);
    return err;
  }

  /** What the database holds: no Sextant schema, this version's, or another one. */
  private async state(client?: pg.PoolClient): Promise<{ state: 'empty' | 'ok' | 'format' | 'ontology' | 'foreign'; meta: Record<string, string> }> {
    const tables = await this.query<{ name: string }>(`SELECT c.relname AS name FROM pg_class c WHERE c.relkind IN ('r', 'p') AND c.relname = ANY($1) AND pg_table_is_visible(c.oid)`, [[...PG_TABLES]], client);
    if (tables.length === 0) return { state: 'empty', meta: {} };
    if (!tables.some((t) => t.name === 'meta')) return { state: 'foreign', meta: {} };
    const meta = Object.fromEntries((await this.query<{ key: string; value: string }>('SELECT key, value FROM meta', [], client)).map((r) => [r.key, r.value]));
    if (meta.store_format === undefined || meta.ontology_version === undefined) return { state: 'foreign', meta };
    if (meta.store_format !== String(STORE_FORMAT) || meta.schema_hash !== pgSchemaHash(this.ontology)) return { state: 'format', meta };
    if (meta.ontology_version !== this.ontology.version) return { state: 'ontology', meta };
    return { state: 'ok', meta };
  }

  /** Checks the database on open: a reader needs this version's index; a writer one it may write into. */
  private async check(): Promise<void> {
    const { state, meta } = await this.state();
    this.trigrams = meta.trigrams === 'yes';
    if (state === 'ok') {
      this.ready = !this.pendingReset;
      return;
    }
    const how = `\`sextant index ${meta.root ?? '<path-or-config>'} --store ${this.location} --rebuild\``;
    if (state === 'empty') {
      if (this.opts.mode === 'read') throw new StoreError('store_missing', `No index at ${this.location} yet. Build one with \`sextant index <path> --store ${this.location}\` (the password as PGPASSWORD, ~/.pgpass or in the URL).`);
      return;
    }
    if (state === 'foreign') {
      if (this.pendingReset && Object.keys(meta).length > 0) return;
      throw new StoreError('store_corrupt', `The database at ${this.location} has tables named like Sextant's (${PG_TABLES.join(', ')}) that are not a complete Sextant index. Give Sextant a database (or a schema, with ?options=-csearch_path%3Dname) of its own${Object.keys(meta).length ? `, or rebuild it: ${how}` : ''}.`);
    }
    if (this.opts.mode === 'write' && this.pendingReset) return;
    const found = state === 'format' ? 'a different store layout' : `ontology version ${meta.ontology_version}`;
    const want = state === 'format' ? `store format ${STORE_FORMAT}` : `ontology version ${this.ontology.version}`;
    throw new StoreError(
      'ontology_mismatch',
      `The index at ${this.location} was built with ${found}; this Sextant ${this.opts.mode === 'read' ? 'reads' : 'writes'} ${want}. It is shared: nothing is reset without being asked. Rebuild every source into it with ${how} (this drops what other jobs published there until they publish again), or point this Sextant at a database of its own.`,
    );
  }

  async setRoot(root: string): Promise<void> {
    this.root = root;
  }

  // ---------------------------------------------------------------- metadata

  async freshness(): Promise<{ updated_at: string; pending_since?: string }> {
    if (!this.ready) return { updated_at: '' };
    const rows = await this.query<{ key: string; value: string }>(`SELECT key, value FROM meta WHERE key IN ('updated_at', 'pending_since')`);
    const meta = Object.fromEntries(rows.map((r) => [r.key, r.value]));
    return { updated_at: meta.updated_at ?? '', ...(meta.pending_since ? { pending_since: meta.pending_since } : {}) };
  }

  async markPending(since: string | null): Promise<void> {
    if (!this.ready) return;
    if (since) await this.query(`INSERT INTO meta(key, value) VALUES ('pending_since', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, [since]);
    else await this.query(`DELETE FROM meta WHERE key = 'pending_since'`);
  }

  async sources(): Promise<SourceInfo[]> {
    if (!this.ready) return [];
    return (await this.query('SELECT name, kind, origin, built_at, nodes, edges, content_hash FROM sources ORDER BY name')).map((r) => ({
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
    if (!this.ready) return { ontology_version: this.ontology.version, store_format: STORE_FORMAT, created_at: '', updated_at: '', sources: [], counts: { nodes: 0, edges: 0, by_kind: {}, by_edge_type: {} } };
    const meta = Object.fromEntries((await this.query<{ key: string; value: string }>('SELECT key, value FROM meta')).map((r) => [r.key, r.value]));
    const sources = await this.sources();
    const byKind = Object.fromEntries((await this.query<{ kind: string; n: number }>('SELECT kind, count(*) AS n FROM nodes GROUP BY kind ORDER BY kind')).map((r) => [r.kind, r.n]));
    const byType = Object.fromEntries((await this.query<{ type: string; n: number }>('SELECT type, count(*) AS n FROM edges GROUP BY type ORDER BY type')).map((r) => [r.type, r.n]));
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

  async artifact(source: string, name: string): Promise<string | undefined> {
    if (!this.ready) return undefined;
    const rows = await this.query<{ content: string }>('SELECT content FROM source_artifacts WHERE source = $1 AND name = $2', [source, name]);
    return rows[0]?.content;
  }

  // ---------------------------------------------------------------- writing

  async writeSources(given: readonly SourceWrite[], opts: { remove?: readonly string[]; onProgress?: (p: WriteProgress) => void } = {}): Promise<SourceInfo[]> {
    if (this.opts.mode !== 'write') throw new StoreError('store_readonly', `The index at ${this.location} was opened for reading.`);
    // Every source is written whole here (and compared whole with what the index holds).
    const writes = given.map((w) => (w.changed?.whole ? { ...w, ...wholeGraph(w) } : w));
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw this.storeError(err);
    }
    const infos: SourceInfo[] = [];
    // How much the graph changed in size: what dates the planner's statistics (rewriting a source as it was does not).
    let resized = 0;
    try {
      await client.query('BEGIN');
      await this.prepareSchema(client);
      const names = [...new Set([...writes.map((w) => w.source.name), ...(opts.remove ?? [])])].sort();
      for (const name of names) await this.lockSource(client, name);
      const rowsBefore = new Map((await client.query<{ name: string; n: number }>('SELECT name, nodes + edges AS n FROM sources WHERE name = ANY($1)', [names])).rows.map((r) => [r.name, Number(r.n)]));
      for (const name of opts.remove ?? []) resized += rowsBefore.get(name) ?? 0;
      for (const name of opts.remove ?? []) await this.deleteSource(client, name);
      // A node may move between two sources written together (an estate's repositories): those go first, whole.
      const moved = await this.sourcesLosingNodes(client, writes);
      for (const name of moved) await this.deleteSource(client, name);
      for (const write of writes) {
        const info = await this.writeSource(client, moved.has(write.source.name) ? { ...write, incremental: false } : write, opts.onProgress);
        if (info.written !== 'unchanged') resized += Math.abs(write.nodes.length + write.edges.length - (rowsBefore.get(write.source.name) ?? 0));
        infos.push(info);
      }
      const now = new Date().toISOString();
      const upsert = `INSERT INTO meta(key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value`;
      await client.query(upsert, ['updated_at', now]);
      await client.query(`DELETE FROM meta WHERE key = 'pending_since'`);
      if (this.root) await client.query(upsert, ['root', this.root]);
      await client.query('COMMIT');
      this.ready = true;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      client.release();
      throw this.storeError(err);
    }
    try {
      // Fresh statistics let the planner pick property indexes (as on SQLite after a full write); a vacuumed
      // postings table is read from its covering index alone (its pages marked all-visible). Only after the graph
      // grew or shrank much against what the statistics were taken on: on a shared index ANALYZE takes seconds, and
      // a small change (one repository of many, or sources rewritten at their size) is left to autovacuum.
      if (resized > 10_000 && (await this.statisticsStale(client, resized))) {
        await client.query('ANALYZE nodes, edges, node_terms, search_df');
        await client.query('VACUUM (ANALYZE) search_postings');
      }
    } catch {
      // Statistics are an optimisation; autovacuum gathers them too.
    } finally {
      client.release();
    }
    return infos;
  }

  /** Whether `resized` rows are a large share (a fifth) of the graph the planner's statistics describe, or there are none. */
  private async statisticsStale(client: pg.PoolClient, resized: number): Promise<boolean> {
    const rows = (await client.query<{ tuples: number }>(`SELECT reltuples::float8 AS tuples FROM pg_class WHERE oid IN ('nodes'::regclass, 'edges'::regclass)`)).rows;
    if (rows.length < 2 || rows.some((r) => r.tuples < 0)) return true;
    return resized > STALE_STATISTICS_SHARE * rows.reduce((n, r) => n + r.tuples, 0);
  }

  /** Creates the schema in an empty database, or drops and recreates it for `reset` (inside the write's transaction). */
  private async prepareSchema(client: pg.PoolClient): Promise<void> {
    if (this.ready) return;
    await client.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK]);
    const { state } = await this.state(client);
    if (state === 'ok' && !this.pendingReset) {
      this.ready = true;
      return;
    }
    if (state !== 'empty' && !this.pendingReset) {
      // Another writer created a different version meanwhile: refused as on open, never reset unasked.
      await this.check();
      throw new StoreError('ontology_mismatch', `The index at ${this.location} changed version while this run built its sources; run it again.`);
    }
    if (state !== 'empty') {
      await client.query(`DROP TABLE IF EXISTS ${PG_TABLES.join(', ')} CASCADE`);
      await client.query(`DROP SEQUENCE IF EXISTS ${PG_SEQUENCES.join(', ')}`);
    }
    await client.query(pgSchemaDdl(this.ontology));
    // pg_trgm is a trusted extension (a database owner may create it); without it, did-you-mean scans names.
    await client.query('SAVEPOINT trgm');
    try {
      await client.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
      await client.query(TRIGRAM_DDL);
      await client.query('RELEASE SAVEPOINT trgm');
      this.trigrams = true;
    } catch {
      await client.query('ROLLBACK TO SAVEPOINT trgm');
      this.trigrams = false;
    }
    const now = new Date().toISOString();
    const put = 'INSERT INTO meta(key, value) VALUES ($1, $2)';
    for (const [key, value] of [
      ['ontology_version', this.ontology.version],
      ['schema_hash', pgSchemaHash(this.ontology)],
      ['store_format', String(STORE_FORMAT)],
      ['created_at', now],
      ['updated_at', now],
      ['trigrams', this.trigrams ? 'yes' : 'no'],
    ]) {
      await client.query(put, [key, value]);
    }
    this.pendingReset = false;
  }

  /** Takes the transaction's lock on one source, saying whom it waits for while another writer holds it. */
  private async lockSource(client: pg.PoolClient, source: string): Promise<void> {
    await this.waitForLock(client, sourceLockKey(source), 'transaction', `the source ${source}`);
  }

  /**
   * Takes the advisory lock `key` for the transaction or the session, telling `onLockWait` whom it waits for (at
   * once and every `LOCK_NOTICE_EVERY_MS`) and giving up after `lockWaitMs`. The wait is in the server's lock queue,
   * so writers get the lock in the order they asked (polling let a later writer overtake one waiting for minutes).
   * `what` names the locked thing in the messages.
   */
  private async waitForLock(client: pg.PoolClient, { key, hi, lo }: ReturnType<typeof sourceLockKey>, scope: 'transaction' | 'session', what: string): Promise<void> {
    const [tryLock, lock] = scope === 'transaction' ? ['pg_try_advisory_xact_lock', 'pg_advisory_xact_lock'] : ['pg_try_advisory_lock', 'pg_advisory_lock'];
    if ((await client.query<{ ok: boolean }>(`SELECT ${tryLock}($1) AS ok`, [key])).rows[0]?.ok) return;
    const started = Date.now();
    const waitMs = Math.max(1, Math.round(this.opts.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS));
    // Who holds it is asked on another connection (this one waits in the queue), without holding the wait up.
    const notice = () => void this.lockHolder(this.pool, hi, lo).then((holder) => this.opts.onLockWait?.(`waiting for ${holder}, which is writing ${what} into ${this.location}`)).catch(() => undefined);
    notice();
    const timer = setInterval(notice, LOCK_NOTICE_EVERY_MS);
    const set = scope === 'transaction' ? 'SET LOCAL' : 'SET';
    try {
      await client.query(`${set} lock_timeout = ${waitMs}`);
      await client.query(`SELECT ${lock}($1)`, [key]);
      await client.query(`${set} lock_timeout TO DEFAULT`);
    } catch (err) {
      if ((err as { code?: string }).code !== '55P03') throw err;
      // The transaction is aborted (the caller rolls it back); a session lock's connection goes back to its default.
      if (scope === 'session') await client.query('RESET lock_timeout').catch(() => undefined);
      throw new StoreError('store_busy', `${what[0]!.toUpperCase()}${what.slice(1)} of the index at ${this.location} stayed locked for ${Math.round((Date.now() - started) / 1000)} s by ${await this.lockHolder(this.pool, hi, lo)}; try again once it has finished.`);
    } finally {
      clearInterval(timer);
    }
  }

  async exclusive<T>(name: string, task: () => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw this.storeError(err);
    }
    const lock = sourceLockKey(`\0lock:${name}`);
    try {
      await this.waitForLock(client, lock, 'session', `the ${name}`);
      return await task();
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [lock.key]).catch(() => undefined);
      client.release();
    }
  }

  private async lockHolder(client: pg.Pool | pg.PoolClient, hi: number, lo: number): Promise<string> {
    try {
      const [holder] = (
        await client.query<{ application_name: string; pid: number }>(
          `SELECT a.application_name, a.pid FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
           WHERE l.locktype = 'advisory' AND l.granted AND l.classid = $1::bigint::oid AND l.objid = $2::bigint::oid AND l.objsubid = 1 LIMIT 1`,
          [hi >>> 0, lo],
        )
      ).rows;
      if (holder) return `${holder.application_name || 'another client'} (server pid ${holder.pid})`;
    } catch {
      // Who holds it is only for the message.
    }
    return 'another writer';
  }

  private async sourcesLosingNodes(client: pg.PoolClient, writes: readonly SourceWrite[]): Promise<Set<string>> {
    if (writes.length < 2) return new Set();
    const holder = new Map<string, string>();
    const ids = writes.flatMap((w) => w.nodes.map((n) => n.id));
    for (let i = 0; i < ids.length; i += 20_000) {
      for (const r of (await client.query<{ id: string; source: string }>('SELECT id, source FROM nodes WHERE id = ANY($1)', [ids.slice(i, i + 20_000)])).rows) holder.set(r.id, r.source);
    }
    return movedSources(writes, (id) => holder.get(id));
  }

  private async deleteSource(client: pg.PoolClient, name: string): Promise<void> {
    await client.query('DELETE FROM edges WHERE source = $1', [name]);
    // As on SQLite: another source's edges to or from this one's nodes go with them.
    await client.query('DELETE FROM edges WHERE src IN (SELECT rid FROM nodes WHERE source = $1)', [name]);
    await client.query('DELETE FROM edges WHERE dst IN (SELECT rid FROM nodes WHERE source = $1)', [name]);
    for (const table of ['node_terms', 'search_postings', 'search_df', 'name_grams', 'source_names', 'nodes', 'source_artifacts', 'sources']) {
      await client.query(`DELETE FROM ${table} WHERE ${table === 'sources' ? 'name' : 'source'} = $1`, [name]);
    }
  }

  /** A digest of everything a source write stores, to tell an unchanged source from a changed one. */
  private graphHash(write: SourceWrite): string {
    const h = createHash('sha256');
    for (const [group, content] of [...groupHashes(write.nodes, write.edges)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) h.update(`${group}\0${content.hash}\n`);
    h.update(JSON.stringify(Object.entries(write.artifacts ?? {}).sort(([a], [b]) => (a < b ? -1 : 1))));
    return h.digest('hex');
  }

  private async writeSource(client: pg.PoolClient, write: SourceWrite, onProgress?: (p: WriteProgress) => void): Promise<SourceInfo> {
    const { source, nodes, edges, artifacts } = write;
    const progress = (p: Omit<WriteProgress, 'source'>) => onProgress?.({ ...p, source: source.name });
    const info: SourceInfo = { ...source, nodes: nodes.length, edges: edges.length };
    const graphHash = this.graphHash(write);
    const [current] = (await client.query<{ graph_hash: string | null }>('SELECT graph_hash FROM sources WHERE name = $1', [source.name])).rows;
    if (write.incremental && current?.graph_hash === graphHash) {
      // Nothing this write would store differs from what is stored: only when it was built changes.
      await client.query('UPDATE sources SET built_at = $2, origin = $3, content_hash = $4 WHERE name = $1', [source.name, source.built_at, source.origin, source.content_hash ?? null]);
      progress({ phase: 'done', done: 0, total: 0 });
      return { ...info, written: 'unchanged' };
    }
    await this.deleteSource(client, source.name);
    const [{ block }] = (await client.query<{ block: number }>(`SELECT nextval('rid_blocks') AS block`)).rows as [{ block: number }];
    const ordered = [...nodes].sort(nodeOrder);
    const ridOf = new Map<string, number>();
    for (const [i, n] of ordered.entries()) {
      if (ridOf.has(n.id)) throw new StoreError('store_corrupt', `duplicate node id ${n.id} (${n.kind} ${n.qualified_name})`);
      ridOf.set(n.id, block * RID_BLOCK + (i + 1) * RID_GAP);
    }
    const props = propertyNames(this.ontology);
    const declared = new Map(this.ontology.kinds().map((k) => [k.def.name, new Set(k.properties.map((p) => p.name))]));
    await copyRows(
      client,
      'nodes',
      ['rid', 'id', 'kind', 'name', 'qualified_name', 'source', 'service', 'module', 'file', 'line', 'name_lc', 'qn_lc', 'qn_rev', 'props', ...props.map(propertyColumn)],
      (function* () {
        for (const n of ordered) {
          const own = declared.get(n.kind);
          if (!own) throw new StoreError('store_corrupt', `node of unknown kind ${n.kind}`);
          const qnLc = n.qualified_name.toLowerCase();
          yield [ridOf.get(n.id)!, n.id, n.kind, n.name, n.qualified_name, n.source, n.service ?? null, n.module ?? null, n.file ?? null, n.line ?? null, n.name.toLowerCase(), qnLc, reverse(qnLc), JSON.stringify(n.props), ...props.map((p) => (own.has(p) ? columnValue(n.props[p]) : null))];
        }
      })(),
      (done) => progress({ phase: 'nodes', done, total: nodes.length }),
    );
    const listProps = [...this.ontology.listProperties.keys()];
    await copyRows(
      client,
      'node_terms',
      ['prop', 'value', 'rid', 'source'],
      (function* () {
        for (const n of ordered) {
          for (const p of listProps) {
            const v = n.props[p];
            if (Array.isArray(v)) for (const item of new Set(v)) if (typeof item === 'string') yield [p, item, ridOf.get(n.id)!, source.name];
          }
        }
      })(),
    );
    // Per source: document counts and token totals of each search column, and each term's document frequency.
    const stats = { idDocs: 0, idTokens: 0, textDocs: 0, textTokens: 0 };
    const df = new Map<string, { id: number; text: number }>();
    const ontology = this.ontology;
    await copyRows(
      client,
      'search_postings',
      ['term', 'rid', 'source', 'kind', 'in_name', 'in_qn', 'id_len', 'in_text', 'text_len'],
      (function* () {
        for (const n of ordered) {
          const doc = searchDocOf(ontology, n);
          const idLen = doc.name.length + doc.qualifiedName.length;
          const postings = new Map<string, [number, number, number]>();
          const count = (terms: readonly string[], at: 0 | 1 | 2) => {
            for (const t of terms) {
              let p = postings.get(t);
              if (!p) postings.set(t, (p = [0, 0, 0]));
              p[at]++;
            }
          };
          count(doc.name, 0);
          count(doc.qualifiedName, 1);
          count(doc.text, 2);
          stats.idDocs++;
          stats.idTokens += idLen;
          if (doc.text.length) {
            stats.textDocs++;
            stats.textTokens += doc.text.length;
          }
          const rid = ridOf.get(n.id)!;
          for (const [term, [inName, inQn, inText]] of postings) {
            let d = df.get(term);
            if (!d) df.set(term, (d = { id: 0, text: 0 }));
            if (inName + inQn > 0) d.id++;
            if (inText > 0) d.text++;
            yield [term, rid, source.name, n.kind, inName, inQn, idLen, inText, doc.text.length];
          }
        }
        progress({ phase: 'search', done: nodes.length, total: nodes.length });
      })(),
    );
    await copyRows(client, 'search_df', ['term', 'source', 'id_docs', 'text_docs'], (function* () {
      for (const [term, d] of df) yield [term, source.name, d.id, d.text];
    })());
    const kindsByName = new Map<string, Set<string>>();
    for (const n of nodes) {
      let kinds = kindsByName.get(n.name);
      if (!kinds) kindsByName.set(n.name, (kinds = new Set()));
      kinds.add(n.kind);
    }
    await copyRows(client, 'source_names', ['name', 'source', 'kinds'], (function* () {
      for (const [name, kinds] of kindsByName) yield [name, source.name, [...kinds].sort()];
    })());
    await copyRows(client, 'name_grams', ['gram', 'source', 'names'], (function* () {
      for (const [gram, n] of nameGramCounts(nodes)) yield [gram, source.name, n];
    })());
    // Endpoints in other sources must exist (as SQLite's rid lookup requires).
    const foreign = [...new Set(edges.flatMap((e) => [e.from, e.to]).filter((id) => !ridOf.has(id)))];
    if (foreign.length) {
      for (const r of (await client.query<{ id: string; rid: number }>('SELECT id, rid FROM nodes WHERE id = ANY($1)', [foreign])).rows) ridOf.set(r.id, r.rid);
      const missing = foreign.find((id) => !ridOf.has(id));
      if (missing) throw new StoreError('store_corrupt', `edge endpoint ${missing} is not a node of this index`);
    }
    const seen = new Set<string>();
    await copyRows(
      client,
      'edges',
      ['src', 'type', 'dst', 'key', 'source', 'confidence', 'attrs'],
      (function* () {
        // Later duplicates replace earlier ones, as SQLite's INSERT OR REPLACE does: keep the last of each key.
        for (let i = edges.length - 1; i >= 0; i--) {
          const e: EdgeRecord = edges[i]!;
          const k = `${e.from}\0${e.type}\0${e.to}\0${e.key ?? ''}`;
          if (seen.has(k)) continue;
          seen.add(k);
          const attrs = e.attrs && Object.keys(e.attrs).length > 0 ? e.attrs : undefined;
          yield [ridOf.get(e.from)!, e.type, ridOf.get(e.to)!, e.key ?? '', source.name, typeof attrs?.confidence === 'number' ? attrs.confidence : null, attrs ? JSON.stringify(e.attrs) : null];
        }
      })(),
      (done) => progress({ phase: 'edges', done, total: edges.length }),
    );
    for (const [name, content] of Object.entries(artifacts ?? {})) await client.query('INSERT INTO source_artifacts(source, name, content) VALUES ($1, $2, $3)', [source.name, name, content]);
    await client.query(
      `INSERT INTO sources(name, kind, origin, built_at, nodes, edges, content_hash, graph_hash, id_docs, id_tokens, text_docs, text_tokens)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      [info.name, info.kind, info.origin, info.built_at, info.nodes, info.edges, info.content_hash ?? null, graphHash, stats.idDocs, stats.idTokens, stats.textDocs, stats.textTokens],
    );
    progress({ phase: 'done', done: nodes.length + edges.length, total: nodes.length + edges.length });
    return { ...info, written: 'full' };
  }

  async replaceSource(source: Omit<SourceInfo, 'nodes' | 'edges'>, nodes: readonly NodeRecord[], edges: readonly EdgeRecord[], onProgress?: (p: WriteProgress) => void): Promise<SourceInfo> {
    const [info] = await this.writeSources([{ source, nodes, edges }], onProgress ? { onProgress } : {});
    return info!;
  }

  async removeSource(name: string): Promise<boolean> {
    if (!this.ready) return false;
    const had = (await this.query('SELECT 1 FROM sources WHERE name = $1', [name])).length > 0;
    if (had) await this.writeSources([], { remove: [name] });
    return had;
  }

  // ---------------------------------------------------------------- reading

  private toNode(row: Row): NodeRecord {
    return nodeFromRow(row);
  }

  async getNodes(ids: readonly string[]): Promise<NodeRecord[]> {
    if (ids.length === 0 || !this.ready) return [];
    const rows = await this.query(`SELECT ${NODE_COLUMNS} FROM nodes n WHERE n.id = ANY($1)`, [[...ids]]);
    const byId = new Map(rows.map((r) => [r.id as string, this.toNode(r)]));
    return ids.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : []));
  }

  /** SQL condition on the node aliased `alias`, its parameters added to `params`. */
  private whereNodes(alias: string, kinds: readonly string[] | undefined, predicates: readonly Predicate[], params: Params): string {
    const clauses: string[] = [];
    if (kinds && kinds.length > 0) clauses.push(`${alias}.kind = ANY(${params.add([...kinds])}::text[])`);
    for (const p of predicates) {
      if (this.ontology.listProperties.has(p.property)) {
        if (p.op !== 'has_any') throw new Error(`list property ${p.property} supports has_any only`);
        clauses.push(`EXISTS (SELECT 1 FROM node_terms t WHERE t.prop = ${params.add(p.property)} AND t.value = ANY(${params.add(p.values)}::text[]) AND t.rid = ${alias}.rid)`);
        continue;
      }
      const core = CORE_COLUMNS.has(p.property);
      const col = `${alias}.${core ? p.property : propertyColumn(p.property)}`;
      const lower = p.property === 'name' ? `${alias}.name_lc` : p.property === 'qualified_name' ? `${alias}.qn_lc` : undefined;
      const type = p.property === 'line' ? 'integer' : core ? 'text' : this.ontology.indexedProperties.get(p.property)?.type === 'boolean' ? 'boolean' : ['integer', 'number'].includes(this.ontology.indexedProperties.get(p.property)?.type ?? '') ? 'double precision' : 'text';
      switch (p.op) {
        case 'in':
        case 'has_any': {
          const values = p.values.map((v) => (type === 'text' ? String(v) : v));
          clauses.push(values.length === 1 ? `${col} = ${params.add(values[0])}::${type}` : `${col} = ANY(${params.add(values)}::${type}[])`);
          if (lower && values.every((v) => typeof v === 'string')) clauses.push(`${lower} = ANY(${params.add(values.map((v) => (v as string).toLowerCase()))}::text[])`);
          break;
        }
        case 'not_in':
          clauses.push(`(${col} IS NULL OR NOT (${col} = ANY(${params.add(p.values)}::${type}[])))`);
          break;
        case 'prefix': {
          clauses.push(`${col} IS NOT NULL AND (${p.values.map((v) => `(${col} >= ${params.add(v)} AND ${col} < ${params.add(`${v}\u{10FFFF}`)})`).join(' OR ')})`);
          if (lower) clauses.push(`(${p.values.map((v) => `(${lower} >= ${params.add(v.toLowerCase())} AND ${lower} < ${params.add(`${v.toLowerCase()}\u{10FFFF}`)})`).join(' OR ')})`);
          break;
        }
        case 'contains':
          // SQLite's LIKE ignores the case of ASCII letters only: so does this.
          clauses.push(`translate(${col}, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') LIKE ${params.add(`%${escapeLike(p.value.replace(/[A-Z]/g, (c) => c.toLowerCase()))}%`)}`);
          break;
        case 'gte':
          clauses.push(`${col} >= ${params.add(p.value)}`);
          break;
        case 'lte':
          clauses.push(`${col} <= ${params.add(p.value)}`);
          break;
      }
    }
    return clauses.length ? clauses.join(' AND ') : 'TRUE';
  }

  async findNodes(q: NodeQuery): Promise<{ nodes: NodeRecord[]; total: number }> {
    if (!this.ready) return { nodes: [], total: 0 };
    const params = new Params();
    const where = this.whereNodes('n', q.kinds, q.predicates, params);
    const rows = await this.query(`SELECT ${NODE_COLUMNS} FROM nodes n WHERE ${where} ORDER BY n.kind, n.qualified_name, n.id LIMIT ${params.add(q.limit)} OFFSET ${params.add(q.offset)}`, params.values);
    const total = rows.length < q.limit && (q.offset === 0 || rows.length > 0) ? q.offset + rows.length : await this.countNodes(q);
    return { nodes: rows.map((r) => this.toNode(r)), total };
  }

  async countNodes(q: Omit<NodeQuery, 'limit' | 'offset'>): Promise<number> {
    if (!this.ready) return 0;
    const params = new Params();
    const where = this.whereNodes('n', q.kinds, q.predicates, params);
    return ((await this.query<{ c: number }>(`SELECT count(*) AS c FROM nodes n WHERE ${where}`, params.values))[0]?.c ?? 0) as number;
  }

  async nodesByName(field: 'qualified_name' | 'name', value: string, opts: { caseInsensitive: boolean; kinds?: readonly string[]; limit: number }): Promise<NodeRecord[]> {
    if (!this.ready) return [];
    const params = new Params();
    const lc = field === 'name' ? 'name_lc' : 'qn_lc';
    const exact = opts.caseInsensitive ? '' : ` AND n.${field} = ${params.add(value)}`;
    const kinds = this.whereNodes('n', opts.kinds, [], params);
    const rows = await this.query(`SELECT ${NODE_COLUMNS} FROM nodes n WHERE n.${lc} = ${params.add(value.toLowerCase())}${exact} AND ${kinds} ORDER BY n.kind, n.qualified_name, n.id LIMIT ${params.add(opts.limit)}`, params.values);
    return rows.map((r) => this.toNode(r));
  }

  async nodesByQualifiedNameSuffix(suffix: string, opts: { kinds?: readonly string[]; limit: number }): Promise<NodeRecord[]> {
    if (!this.ready) return [];
    const rev = reverse(suffix.toLowerCase());
    const params = new Params();
    const kinds = this.whereNodes('n', opts.kinds, [], params);
    const rows = await this.query(
      `SELECT ${NODE_COLUMNS} FROM nodes n WHERE n.qn_rev >= ${params.add(rev)} AND n.qn_rev < ${params.add(`${rev}\u{10FFFF}`)}
         AND substr(n.qn_rev, ${params.add([...rev].length + 1)}, 1) IN ('.', '#', '/', ':') AND ${kinds}
       ORDER BY n.kind, n.qualified_name, n.id LIMIT ${params.add(opts.limit)}`,
      params.values,
    );
    return rows.map((r) => this.toNode(r));
  }

  private edgeWhere(preds: readonly EdgePredicate[] | undefined, params: Params): string {
    const clauses: string[] = [];
    for (const p of preds ?? []) {
      const attr = p.attr.replace(/[^a-z0-9_]/gi, '');
      if (p.attr === 'confidence' && p.op === 'gte') clauses.push(`coalesce(e.confidence, 1.0) >= ${params.add(p.value)}`);
      else if (p.op === 'in') clauses.push(`(e.attrs::jsonb -> '${attr}') = ANY(${params.add(p.values.map((v) => JSON.stringify(v)))}::jsonb[])`);
      else clauses.push(`coalesce((e.attrs::jsonb ->> '${attr}')::double precision, 0) >= ${params.add(p.value)}`);
    }
    return clauses.length ? clauses.join(' AND ') : 'TRUE';
  }

  async edges(q: EdgeQuery): Promise<{ rows: EdgeRow[]; total: number }> {
    if (q.ids.length === 0 || q.types.length === 0 || !this.ready) return { rows: [], total: 0 };
    const origins = await this.query<{ id: string; rid: number }>(`SELECT id, rid FROM nodes WHERE id = ANY($1) ORDER BY id`, [[...q.ids]]);
    if (origins.length === 0) return { rows: [], total: 0 };
    const originId = new Map(origins.map((o) => [o.rid, o.id]));
    const filtered = (q.other?.kinds?.length ?? 0) > 0 || (q.other?.predicates.length ?? 0) > 0;
    const params = new Params();
    const rids = params.add(origins.map((o) => o.rid));
    const types = params.add([...q.types]);
    const other = filtered ? this.whereNodes('n', q.other?.kinds, q.other?.predicates ?? [], params) : 'TRUE';
    const edge = this.edgeWhere(q.edge, params);
    const dirs = q.direction === 'both' ? (['out', 'in'] as const) : [q.direction];
    // Pages are cut on edge keys alone, in the order the (near, type, far) index yields them; the other ends' full
    // rows are read for the page only. Existence of the other end is guaranteed (edges go with their ends' sources).
    const parts = dirs.map((dir) => {
      const [near, far] = dir === 'out' ? ['src', 'dst'] : ['dst', 'src'];
      return `SELECT e.${near} AS e_origin, e.type AS e_type, e.key AS e_key, e.attrs AS e_attrs, '${dir}'::text AS e_dir, e.${far} AS n_rid
              FROM edges e${filtered ? ` JOIN nodes n ON n.rid = e.${far}` : ''}
              WHERE e.${near} = ANY(${rids}::bigint[]) AND e.type = ANY(${types}::text[]) AND ${other} AND ${edge}`;
    });
    const all = parts.join(' UNION ALL ');
    const order = `ORDER BY ${origins.length > 1 ? `array_position(${rids}::bigint[], e_origin), ` : ''}e_type, ${dirs.length > 1 ? 'e_dir DESC, ' : ''}n_rid, e_key`;
    const countValues = [...params.values];
    const pageSql = dirs.length > 1 || origins.length > 1 ? `SELECT * FROM (${all}) x ${order}` : `${parts[0]} ${order}`;
    const page = await this.query(`${pageSql} LIMIT ${params.add(q.limit)} OFFSET ${params.add(q.offset)}`, params.values);
    const total = page.length < q.limit && (q.offset === 0 || page.length > 0) ? q.offset + page.length : ((await this.query<{ c: number }>(`SELECT count(*) AS c FROM (${all}) x`, countValues))[0]?.c ?? 0);
    const nodeRows = page.length ? await this.query(`SELECT ${NODE_COLUMNS} FROM nodes n WHERE n.rid = ANY($1)`, [[...new Set(page.map((r) => r.n_rid as number))]]) : [];
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
    for (const id of ids) out.set(id, {});
    if (ids.length === 0 || !this.ready) return out;
    const rows = await this.query<{ id: string; type: string; dir: 'in' | 'out'; c: number }>(
      `SELECT o.id, e.type, 'out' AS dir, count(*) AS c FROM nodes o JOIN edges e ON e.src = o.rid WHERE o.id = ANY($1) GROUP BY o.id, e.type
       UNION ALL
       SELECT o.id, e.type, 'in' AS dir, count(*) AS c FROM nodes o JOIN edges e ON e.dst = o.rid WHERE o.id = ANY($1) GROUP BY o.id, e.type`,
      [[...ids]],
    );
    for (const r of rows) {
      const counts = out.get(r.id)!;
      counts[r.type] ??= { in: 0, out: 0 };
      counts[r.type]![r.dir] = r.c;
    }
    for (const [id, counts] of out) out.set(id, Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b))));
    return out;
  }

  /**
   * BM25 as SQLite's FTS5 computes it (see `searchDocOf`): identifiers (name and qualified name, weighted) and
   * descriptions scored apart, each with its own document count, average length and document frequencies (summed
   * over the sources), each counting only where that part matched (every term for `and`, any for `or`).
   */
  async searchText(q: TextQuery): Promise<TextHit[]> {
    if (q.terms.length === 0 || !this.ready) return [];
    const terms = q.terms.map(searchTerm);
    const params = new Params();
    const t = params.add(terms);
    // With no condition but kinds, the page is chosen from the postings alone (they carry the kind); other
    // conditions are on the nodes, read for every hit.
    const narrow = (q.predicates ?? []).length === 0;
    const kindsParam = narrow && q.kinds && q.kinds.length > 0 ? params.add([...q.kinds]) : undefined;
    const kindsOf = (p: string) => (kindsParam ? `${p}.kind = ANY(${kindsParam}::text[])` : 'TRUE');
    const where = narrow ? 'TRUE' : this.whereNodes('n', q.kinds, q.predicates ?? [], params);
    const priorCases = Object.entries(q.kindPriors)
      .map(([kind, prior]) => `WHEN ${params.add(kind)} THEN ${Number(prior)}::float8`)
      .join(' ');
    const prior = priorCases ? `(CASE h.kind ${priorCases} ELSE 1::float8 END)` : '1::float8';
    const w = q.weights;
    const f8 = (n: number) => `${Number(n)}::float8`;
    const [k1, b] = [f8(BM25_K1), f8(BM25_B)];
    // FTS5's arithmetic, in its order and in doubles: idf = ln((N - n + 0.5) / (n + 0.5)), at least 1e-6; per term
    // idf * ((f * (k1 + 1)) / (f + k1 * (1 - b + b * D / avgdl))), summed over the terms in query order.
    const idf = (n: string, df: string) => `(CASE WHEN ln((${n} - ${df} + 0.5::float8) / (${df} + 0.5::float8)) <= 0 THEN 1e-6::float8 ELSE ln((${n} - ${df} + 0.5::float8) / (${df} + 0.5::float8)) END)`;
    const bm25 = (f: string, idfCol: string, len: string, avg: string) => `${idfCol} * ((${f} * (${k1} + 1::float8)) / (${f} + ${k1} * (1::float8 - ${b} + ${b} * ${len} / ${avg})))`;
    // A node's terms summed in query order, as FTS5 adds them: ((0 + c1) + c2) + …, an unmatched term adding 0 (which
    // leaves a double unchanged). One column per term rather than `sum(… ORDER BY ord)`, which sorts every group.
    const inQueryOrder = (term: string, f: string) =>
      terms.reduce((sum, _, i) => `(${sum} + coalesce(max(${term}) FILTER (WHERE m.ord = ${i + 1} AND ${f} > 0), 0::float8))`, '0::float8');
    const idAvg = '(st.id_tok / st.id_n)';
    const textAvg = '(st.text_tok / st.text_n)';
    const fi = (p: string) => `(${f8(w.name)} * ${p}.in_name + ${f8(w.qualified_name)} * ${p}.in_qn)`;
    const ft = (p: string) => `${p}.in_text::float8`;
    // `and`: a node holds every term, so its postings for the terms are joined on the node (index order, no grouping),
    // one row per node with a column per term. `or`: a node holds any term, its postings grouped by node.
    const hits =
      q.mode === 'and'
        ? (() => {
            const ps = terms.map((_, i) => `p${i + 1}`);
            const all = (f: (p: string) => string) => ps.map((p) => `${f(p)} > 0`).join(' AND ');
            const sumInOrder = (part: (p: string, i: number) => string) => ps.reduce((sum, p, i) => `(${sum} + ${part(p, i + 1)})`, '0::float8');
            const joins = ps.slice(1).map((p, i) => `JOIN search_postings ${p} ON ${p}.rid = p1.rid AND ${p}.term = ${params.add(terms[i + 1]!)}`).join(' ');
            return `q AS (
                SELECT ${ps.map((_, i) => `max(idf_id) FILTER (WHERE ord = ${i + 1}) AS idf_id_${i + 1}, max(idf_text) FILTER (WHERE ord = ${i + 1}) AS idf_text_${i + 1}`).join(', ')} FROM qt
              ), hits AS (
                SELECT p1.rid, p1.kind,
                  CASE WHEN ${all(fi)} THEN ${sumInOrder((p, i) => bm25(fi(p), `q.idf_id_${i}`, 'p1.id_len::float8', idAvg))} ELSE 0::float8 END AS s_id,
                  CASE WHEN ${all(ft)} THEN ${sumInOrder((p, i) => bm25(ft(p), `q.idf_text_${i}`, 'p1.text_len::float8', textAvg))} * ${f8(w.text)} ELSE 0::float8 END AS s_text
                FROM search_postings p1 ${joins} CROSS JOIN q CROSS JOIN st
                WHERE p1.term = ${params.add(terms[0]!)} AND ${kindsOf('p1')} AND ((${all(fi)}) OR (${all(ft)}))
              )`;
          })()
        : `matched AS (
             SELECT qt.ord, p.rid, p.kind, qt.idf_id, qt.idf_text, ${fi('p')} AS fi, ${ft('p')} AS ft, p.id_len::float8 AS id_len, p.text_len::float8 AS text_len
             FROM qt JOIN search_postings p ON p.term = qt.term WHERE ${kindsOf('p')}
           ), hits AS (
             -- Each part counts where it matched any term, as FTS5 matches each table apart.
             SELECT m.rid, m.kind,
               ${inQueryOrder(bm25('m.fi', 'm.idf_id', 'm.id_len', idAvg), 'm.fi')} AS s_id,
               ${inQueryOrder(bm25('m.ft', 'm.idf_text', 'm.text_len', textAvg), 'm.ft')} * ${f8(w.text)} AS s_text
             FROM matched m CROSS JOIN st
             GROUP BY m.rid, m.kind
           )`;
    const rows = await this.query(
      `WITH st AS (
         SELECT coalesce(sum(id_docs), 0)::float8 AS id_n, coalesce(sum(id_tokens), 0)::float8 AS id_tok,
                coalesce(sum(text_docs), 0)::float8 AS text_n, coalesce(sum(text_tokens), 0)::float8 AS text_tok FROM sources
       ), qt AS (
         SELECT u.term, u.ord, ${idf('st.id_n', 'coalesce(d.id_df, 0::float8)')} AS idf_id, ${idf('st.text_n', 'coalesce(d.text_df, 0::float8)')} AS idf_text
         FROM unnest(${t}::text[]) WITH ORDINALITY AS u(term, ord) CROSS JOIN st
         LEFT JOIN LATERAL (SELECT sum(id_docs)::float8 AS id_df, sum(text_docs)::float8 AS text_df FROM search_df s WHERE s.term = u.term) d ON TRUE
       ), ${hits}, weighted AS (
         SELECT h.rid, (h.s_id + h.s_text) * ${prior} AS score, h.s_id, h.s_text FROM hits h
       ), filtered AS (
         ${narrow ? 'SELECT * FROM weighted' : `SELECT w.* FROM weighted w WHERE w.rid IN (SELECT n.rid FROM nodes n WHERE ${where})`}
       ), ranked AS (
         -- The page's scores, ties at its end included, then the nodes for the (qualified name, id) order.
         SELECT f.*, n.qualified_name, n.id FROM filtered f JOIN nodes n ON n.rid = f.rid
         WHERE f.score >= (SELECT min(score) FROM (SELECT score FROM filtered ORDER BY score DESC LIMIT ${params.add(q.limit)}) top)
         ORDER BY score DESC, n.qualified_name, n.id LIMIT ${params.add(q.limit)}
       )
       SELECT ${NODE_COLUMNS}, r.score, r.s_id AS c_id, r.s_text AS c_text
       FROM ranked r JOIN nodes n ON n.rid = r.rid
       ORDER BY r.score DESC, r.qualified_name, r.id`,
      params.values,
    );
    return rows.map((r) => ({ node: this.toNode(r), score: r.score as number, components: { identifier: r.c_id as number, text: r.c_text as number } }));
  }

  // ---------------------------------------------------------------- vectors

  private readonly vectorCache = new VectorCache();

  private async metaValue(key: string): Promise<string | undefined> {
    if (!this.ready) return undefined;
    return (await this.query<{ value: string }>('SELECT value FROM meta WHERE key = $1', [key]))[0]?.value;
  }

  private async hasVectorTables(): Promise<boolean> {
    if (!this.ready) return false;
    const rows = await this.query<{ c: number }>(`SELECT count(*)::int AS c FROM pg_class c WHERE c.relkind = 'r' AND c.relname IN ('embedding_vectors', 'node_embeddings') AND pg_table_is_visible(c.oid)`);
    return rows[0]?.c === 2;
  }

  async embeddingSpace(): Promise<EmbeddingSpace | undefined> {
    return parseEmbeddingSpace(await this.metaValue('embeddings'));
  }

  async vectorAssignments(model: string): Promise<Map<string, string>> {
    if (!(await this.hasVectorTables())) return new Map();
    return new Map((await this.query<{ id: string; hash: string }>('SELECT id, hash FROM node_embeddings WHERE model = $1', [model])).map((r) => [r.id, r.hash]));
  }

  async vectorHashes(model: string, hashes: readonly string[]): Promise<Set<string>> {
    if (hashes.length === 0 || !(await this.hasVectorTables())) return new Set();
    return new Set((await this.query<{ hash: string }>('SELECT hash FROM embedding_vectors WHERE model = $1 AND hash = ANY($2::text[])', [model, [...hashes]])).map((r) => r.hash));
  }

  async writeVectors(w: VectorWrite): Promise<void> {
    if (this.opts.mode !== 'write') throw new StoreError('store_readonly', `The index at ${this.location} was opened for reading.`);
    if (!this.ready) throw new StoreError('store_missing', `The index at ${this.location} has no sources yet: index them before their vectors.`);
    await this.transaction(async (client) => {
      // Tables, the extension's column and its index are made once, by one writer at a time.
      await client.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK]);
      await client.query(VECTOR_DDL);
      const pgvector = await this.pgvector(client);
      const dims = w.vectors[0]?.vector.length ?? w.space?.dimensions;
      for (let i = 0; i < w.vectors.length; i += VECTOR_BATCH) {
        const batch = w.vectors.slice(i, i + VECTOR_BATCH);
        await client.query(
          `INSERT INTO embedding_vectors(model, hash, vector${pgvector ? ', embedding' : ''})
           SELECT $1, h, v${pgvector ? ', e::vector' : ''} FROM unnest($2::text[], $3::bytea[]${pgvector ? ', $4::text[]' : ''}) AS t(h, v${pgvector ? ', e' : ''})
           ON CONFLICT (model, hash) DO UPDATE SET vector = excluded.vector${pgvector ? ', embedding = excluded.embedding' : ''}`,
          [w.model, batch.map((v) => v.hash), batch.map((v) => encodeVector(v.vector)), ...(pgvector ? [batch.map((v) => `[${Array.from(v.vector).join(',')}]`)] : [])],
        );
      }
      for (let i = 0; i < w.assign.length; i += VECTOR_BATCH * 10) {
        const batch = w.assign.slice(i, i + VECTOR_BATCH * 10);
        await client.query(
          `INSERT INTO node_embeddings(model, id, hash) SELECT $1, i, h FROM unnest($2::text[], $3::text[]) AS t(i, h)
           ON CONFLICT (model, id) DO UPDATE SET hash = excluded.hash`,
          [w.model, batch.map((a) => a.id), batch.map((a) => a.hash)],
        );
      }
      if (w.unassign?.length) await client.query('DELETE FROM node_embeddings WHERE model = $1 AND id = ANY($2::text[])', [w.model, [...w.unassign]]);
      if (w.prune) {
        await client.query('DELETE FROM embedding_vectors v WHERE v.model = $1 AND NOT EXISTS (SELECT 1 FROM node_embeddings m WHERE m.model = v.model AND m.hash = v.hash)', [w.model]);
        await client.query('DELETE FROM embedding_vectors WHERE model <> $1', [w.model]);
        await client.query('DELETE FROM node_embeddings WHERE model <> $1', [w.model]);
      }
      if (pgvector && dims && w.space) await client.query(vectorIndexDdl(w.model, dims).ddl);
      const put = `INSERT INTO meta(key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value`;
      await client.query(put, ['vectors_written', `${new Date().toISOString()}#${randomUUID()}`]);
      if (w.space) await client.query(put, ['embeddings', JSON.stringify({ ...w.space, ...(pgvector ? { index: 'hnsw' } : {}) })]);
    });
  }

  /** Runs `task` in one transaction on one pooled connection: committed when it returns, rolled back when it throws. */
  private async transaction<T>(task: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw this.storeError(err);
    }
    try {
      await client.query('BEGIN');
      const result = await task(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw this.storeError(err);
    } finally {
      client.release();
    }
  }

  /**
   * Whether pgvector serves this database: installed, or installable by this role (then installed, with its column
   * on the vectors table). Without it, vectors are searched exactly in this process.
   */
  private async pgvector(client: pg.PoolClient): Promise<boolean> {
    await client.query('SAVEPOINT pgvector');
    try {
      await client.query('CREATE EXTENSION IF NOT EXISTS vector');
      await client.query('ALTER TABLE embedding_vectors ADD COLUMN IF NOT EXISTS embedding vector');
      await client.query('RELEASE SAVEPOINT pgvector');
      return true;
    } catch {
      await client.query('ROLLBACK TO SAVEPOINT pgvector');
      return false;
    }
  }

  async searchVectors(q: VectorQuery): Promise<VectorHit[]> {
    if (!(await this.hasVectorTables())) return [];
    const space = await this.embeddingSpace();
    if (space?.index === 'hnsw' && space.model === q.model) {
      const hits = await this.searchHnsw(q, space.dimensions);
      // An approximate index may stop short under a narrow filter: then the candidates are few, and scored exactly.
      if (hits && hits.length >= q.limit) return hits;
    }
    const stamp = (await this.metaValue('vectors_written')) ?? '';
    const byHash = await this.vectorCache.vectors(q.model, stamp, async () => (await this.query<{ hash: string; vector: Buffer }>('SELECT hash, vector FROM embedding_vectors WHERE model = $1', [q.model])).map((r) => [r.hash, r.vector] as const));
    const params = new Params();
    const model = params.add(q.model);
    const where = this.whereNodes('n', q.kinds, q.predicates ?? [], params);
    const rows = await this.query<{ id: string; hash: string }>(`SELECT n.id, m.hash FROM node_embeddings m JOIN nodes n ON n.id = m.id WHERE m.model = ${model} AND ${where}`, params.values);
    const best = nearest(
      rows.map((r) => ({ key: r.id, hash: r.hash })),
      byHash,
      q.vector,
      q.limit,
    );
    const nodes = new Map((await this.getNodes(best.map((b) => b.key))).map((n) => [n.id, n]));
    return best.flatMap((b) => (nodes.has(b.key) ? [{ node: nodes.get(b.key)!, similarity: b.similarity }] : []));
  }

  /** Nearest vectors through pgvector's HNSW index (iterative scans, where the installed version has them, keep filtered answers full). */
  private async searchHnsw(q: VectorQuery, dims: number): Promise<VectorHit[] | undefined> {
    if (q.vector.length !== dims) return undefined;
    return this.transaction(async (client) => {
      await client.query(`SELECT set_config('hnsw.ef_search', $1, true)`, [String(Math.min(1000, Math.max(64, q.limit * 2)))]);
      await client.query('SAVEPOINT iterative');
      try {
        await client.query(`SELECT set_config('hnsw.iterative_scan', 'strict_order', true)`);
        await client.query('RELEASE SAVEPOINT iterative');
      } catch {
        await client.query('ROLLBACK TO SAVEPOINT iterative');
      }
      const params = new Params();
      const model = params.add(q.model);
      const vector = params.add(`[${Array.from(q.vector).join(',')}]`);
      const where = this.whereNodes('n', q.kinds, q.predicates ?? [], params);
      const distance = `(v.embedding::vector(${dims}) <=> ${vector}::vector(${dims}))`;
      const rows = (
        await client.query(
          `SELECT ${NODE_COLUMNS}, 1 - ${distance} AS similarity
           FROM embedding_vectors v JOIN node_embeddings m ON m.model = v.model AND m.hash = v.hash JOIN nodes n ON n.id = m.id
           WHERE v.model = ${model} AND ${where}
           ORDER BY ${distance}, n.id LIMIT ${params.add(q.limit)}`,
          params.values,
        )
      ).rows as Row[];
      return rows.map((r) => ({ node: this.toNode(r), similarity: Number(r.similarity) }));
    });
  }

  async textMatchCounts(terms: readonly string[], cap: number): Promise<number[]> {
    if (!this.ready) return terms.map(() => 0);
    const stems = terms.map(searchTerm);
    const rows = await this.query<{ term: string; id_df: number; text_df: number }>(
      'SELECT term, sum(id_docs) AS id_df, sum(text_docs) AS text_df FROM search_df WHERE term = ANY($1) GROUP BY term',
      [[...new Set(stems)]],
    );
    const byTerm = new Map(rows.map((r) => [r.term, r]));
    return stems.map((s) => {
      const r = byTerm.get(s);
      return r ? Math.min(cap, Math.min(cap, r.id_df) + Math.min(cap, r.text_df)) : 0;
    });
  }

  /**
   * Did-you-mean as the SQLite store finds it, so both suggest the same names: candidates are the distinct names
   * holding two of the needle's four rarest trigrams (any one of them when that finds too few), case-insensitively,
   * scored exactly by `trigramScorer`.
   */
  async similarNames(text: string, opts: { kinds?: readonly string[]; limit: number }): Promise<NameSuggestion[]> {
    const needle = text.trim();
    if (!needle || !this.ready) return [];
    const grams = [...new Set([...trigrams(needle)].map((g) => g.trim()).filter((g) => g.length === 3))];
    const like = (g: string) => `%${escapeLike(g)}%`;
    let names: string[];
    if (grams.length === 0) {
      names = (await this.query<{ name: string }>(`SELECT DISTINCT name FROM source_names WHERE translate(name, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') LIKE $1 ORDER BY name LIMIT 500`, [`${escapeLike(needle.replace(/[A-Z]/g, (c) => c.toLowerCase()))}%`])).map((r) => r.name);
    } else {
      const docs = await this.query<{ term: string; doc: number }>('SELECT gram AS term, sum(names) AS doc FROM name_grams WHERE gram = ANY($1) GROUP BY gram', [grams]);
      const rare = docs
        .filter((d) => d.doc > 0)
        .sort((a, b) => a.doc - b.doc || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0))
        .slice(0, 4)
        .map((d) => d.term);
      if (rare.length === 0) return [];
      const matching = async (groups: string[][]): Promise<string[]> => {
        const params = new Params();
        const where = groups.map((g) => `(${g.map((t) => `name ILIKE ${params.add(like(t))}`).join(' AND ')})`).join(' OR ');
        return (await this.query<{ name: string }>(`SELECT DISTINCT name FROM source_names WHERE ${where} ORDER BY name LIMIT 3000`, params.values)).map((r) => r.name);
      };
      const pairs = rare.flatMap((a, i) => rare.slice(i + 1).map((b) => [a, b]));
      names = pairs.length ? await matching(pairs) : [];
      if (names.length < opts.limit * 4) names = await matching(rare.map((t) => [t]));
    }
    const kindFilter = opts.kinds && opts.kinds.length > 0 ? new Set(opts.kinds) : undefined;
    const similarityTo = trigramScorer(needle);
    const sameCase = (name: string) => (name[0] === needle[0] ? 0 : 1);
    const scored = names
      .map((name) => ({ name, similarity: similarityTo(name) }))
      .filter((c) => c.similarity >= 0.25)
      .sort((a, b) => b.similarity - a.similarity || sameCase(a.name) - sameCase(b.name) || a.name.localeCompare(b.name));
    const out: NameSuggestion[] = [];
    // Without a kind filter every name has kinds and the first few fill the answer; with one, many may be passed over.
    const chunkSize = kindFilter ? 1000 : 50;
    for (let i = 0; i < scored.length && out.length < opts.limit; i += chunkSize) {
      const chunk = scored.slice(i, i + chunkSize);
      const kindsOf = new Map((await this.query<{ name: string; kinds: string[] }>('SELECT s.name, array_agg(DISTINCT k ORDER BY k) AS kinds FROM source_names s CROSS JOIN unnest(s.kinds) AS k WHERE s.name = ANY($1) GROUP BY s.name', [chunk.map((c) => c.name)])).map((r) => [r.name, r.kinds]));
      for (const c of chunk) {
        const kinds = (kindsOf.get(c.name) ?? []).filter((k) => !kindFilter || kindFilter.has(k));
        if (kinds.length === 0) continue;
        out.push({ name: c.name, kinds, similarity: Math.round(c.similarity * 1000) / 1000 });
        if (out.length === opts.limit) break;
      }
    }
    return out;
  }

  async close(): Promise<void> {
    await this.pool.end().catch(() => undefined);
  }
}
