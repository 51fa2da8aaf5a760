import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import type { Ontology } from '../../src/graph/ontology/index.js';
import { openStore, type StoreOpenOptions } from '../../src/graph/open.js';
import type { Store } from '../../src/graph/store.js';

/**
 * Which store the parametrised suites run on: SQLite by default; PostgreSQL when SEXTANT_TEST_STORE=postgres, on the
 * server SEXTANT_TEST_PG names (an admin URL: scripts/test-postgres.sh starts a throwaway cluster and sets both).
 * The same test files run on both; only where a test index lives differs.
 */
export const TEST_STORE: 'sqlite' | 'postgres' = process.env.SEXTANT_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';

/** The admin URL of the test server; a test that needs one fails, naming how to get it, when there is none. */
export function testPostgresUrl(): string {
  const url = process.env.SEXTANT_TEST_PG;
  if (!url) throw new Error('SEXTANT_TEST_PG is not set: run the PostgreSQL suites with `bash scripts/test-postgres.sh` (it starts a throwaway cluster).');
  return url;
}

/** The URL of database `name` on the test server, as `user` (default: the admin) with `password`. */
export function databaseUrl(name: string, user?: { name: string; password: string }): string {
  const u = new URL(testPostgresUrl());
  u.pathname = `/${name}`;
  if (user) {
    u.username = user.name;
    u.password = user.password;
  }
  return u.toString();
}

/** Runs statements on the test server as its admin (database `postgres` unless named). */
export async function adminQuery(sql: string, database = 'postgres'): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: databaseUrl(database) });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A new, empty database on the test server; returns its URL. */
export async function newTestDatabase(prefix = 'sx'): Promise<string> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  return databaseUrl(name);
}

const locations = new Map<string, Promise<string>>();

/**
 * Where the test index for `dir` lives: `dir` itself on SQLite; on PostgreSQL a database of its own, the same one
 * for every call with the same `dir` (a writer and later readers of one test index meet there).
 */
export function testStoreLocation(dir: string): Promise<string> {
  if (TEST_STORE === 'sqlite') return Promise.resolve(dir);
  let location = locations.get(dir);
  if (!location) locations.set(dir, (location = newTestDatabase()));
  return location;
}

/** Opens the test index for `dir` on the store under test (see `testStoreLocation`). */
export async function openTestStore(ontology: Ontology, dir: string, opts: { mode: 'read' | 'write' } & StoreOpenOptions): Promise<Store> {
  const { mode, ...rest } = opts;
  return openStore(ontology, await testStoreLocation(dir), mode, rest);
}

/**
 * Everything a test index holds, on either store: nodes in row order (the order answers follow) and edges in
 * (from, type, to, key) order, each row as JSON, without row ids. Two indexes with equal dumps answer alike.
 */
const EDGE_SQL = 'SELECT s.id AS src, e.type, d.id AS dst, e.key, e.confidence, e.attrs FROM edges e JOIN nodes s ON s.rid = e.src JOIN nodes d ON d.rid = e.dst ORDER BY src, e.type, dst, e.key';

export async function dumpIndex(location: string): Promise<{ nodes: string[]; edges: string[] }> {
  const nodeSql = (props: string) => `SELECT n.id, n.kind, n.name, n.qualified_name, n.source, n.service, n.module, n.file, n.line, ${props} AS props FROM nodes n`;
  if (location.startsWith('postgres')) {
    const client = new pg.Client({ connectionString: location });
    await client.connect();
    try {
      const nodes = (await client.query(`${nodeSql('n.props')} ORDER BY n.rid`)).rows.map((r) => JSON.stringify(r));
      const edges = (await client.query(EDGE_SQL)).rows.map((r) => JSON.stringify(r));
      return { nodes, edges };
    } finally {
      await client.end();
    }
  }
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(join(location, 'index.db'), { readonly: true });
  try {
    const nodes = (db.prepare(`${nodeSql('p.props')} JOIN node_props p ON p.rid = n.rid ORDER BY n.rid`).all() as Record<string, unknown>[]).map((r) => JSON.stringify(r));
    const edges = (db.prepare(EDGE_SQL).all() as Record<string, unknown>[]).map((r) => JSON.stringify(r));
    return { nodes, edges };
  } finally {
    db.close();
  }
}
