/**
 * What only the PostgreSQL store has to prove, on a real server (scripts/test-postgres.sh starts one): the same
 * search ranking and did-you-mean as SQLite on real schemas and real code, writers of different sources side by
 * side, writers of one source in turn, readers that never see half a write, a read-only role, a version check that
 * never resets shared data unasked, and credentials that never reach a message.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { sextantOntology } from '../../src/graph/ontology/index.js';
import { openStore } from '../../src/graph/open.js';
import { StoreError, type Store } from '../../src/graph/store.js';
import type { EdgeRecord, NodeRecord } from '../../src/graph/types.js';
import { buildWorkspace } from '../../src/indexer/build.js';
import { resolveTarget } from '../../src/indexer/target.js';
import { runTool } from '../../src/query/index.js';
import { queryTerms } from '../../src/search/tokenize.js';
import { jsonOf, runCli } from '../helpers/e2e.js';
import { GITHUB_SDL, sharedDir, SHOP_SDL } from '../helpers/index.js';
import { adminQuery, databaseUrl, newTestDatabase, testPostgresUrl } from '../helpers/store.js';

const ontology = sextantOntology();
const PETCLINIC = join(sharedDir(), 'corpora', 'spring-petclinic-microservices');

async function indexBoth(target: string): Promise<{ sqlite: Store; pg: Store; close: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'sextant-pg-eq-'));
  const url = await newTestDatabase();
  const { config } = await resolveTarget(target);
  for (const location of [dir, url]) {
    const w = await openStore(ontology, location, 'write');
    await buildWorkspace(w, ontology, config, {}, { ...process.env, SEXTANT_PARSE_WORKERS: '0' });
    await w.close();
  }
  const sqlite = await openStore(ontology, dir, 'read');
  const pg = await openStore(ontology, url, 'read');
  return {
    sqlite,
    pg,
    close: async () => {
      await sqlite.close();
      await pg.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A search's answer as compared across stores: each result's id and score, in order, and how it matched. */
async function searchAnswer(store: Store, args: Record<string, unknown>): Promise<unknown> {
  const r = (await runTool({ store, ontology }, 'search', { ...args, explain: true })) as Record<string, any>;
  assert.equal(r.ok, true, JSON.stringify(r));
  return { match: r.match, results: r.results.map((x: any) => [x.node.id, x.score, x.explain.bm25]), absence: r.absence };
}

describe('the same ranking as SQLite', () => {
  const QUERIES: Record<string, Record<string, unknown>[]> = {
    github: [
      { query: 'pull request review comments' },
      { query: 'repository' },
      { query: 'issue labels', limit: 20 },
      { query: 'createIssue' },
      { query: 'branch protection rule' },
      { query: 'sponsors tier', kinds: ['type'] },
      { query: 'viewer' },
      { query: 'commit status check', limit: 50 },
      { query: 'enterprise members', kinds: ['field'] },
      { query: 'deleted', limit: 30, offset: 10 },
      { query: 'reactions' },
      { query: 'gist comments' },
      // A word twice (the same stem twice): each occurrence is a term, as FTS5 counts it.
      { query: 'comment comments review' },
    ],
    petclinic: [
      { query: 'owner' },
      { query: 'visits for pet' },
      { query: 'OwnerResource' },
      { query: 'api gateway', limit: 20 },
      { query: 'vet specialties' },
      { query: 'findById', kinds: ['symbol'] },
      { query: 'customers service route' },
      { query: 'config server' },
      { query: 'find owner', kinds: ['symbol'], filter: { service: 'customers-service' } },
      { query: 'visit', kinds: ['symbol'], filter: { service: 'visits-service' } },
    ],
  };
  const TYPOS: Record<string, string[]> = { github: ['Repositry', 'PullReqest', 'createIsue', 'viewr'], petclinic: ['OwnerResourse', 'VisitRepo', 'petTyp'] };

  for (const [name, target] of [['github', GITHUB_SDL], ['petclinic', PETCLINIC]] as const) {
    test(`${name}: search answers (ids, scores, BM25 parts) and did-you-mean are SQLite's`, async () => {
      const both = await indexBoth(target);
      try {
        for (const q of QUERIES[name]!) assert.deepEqual(await searchAnswer(both.pg, q), await searchAnswer(both.sqlite, q), `search ${JSON.stringify(q)}`);
        // The store's own hits, unrounded: the same BM25 in the same double arithmetic.
        const priors = Object.fromEntries(ontology.kinds().map((k) => [k.def.name, k.def.searchPrior]));
        for (const q of QUERIES[name]!) {
          for (const mode of ['and', 'or'] as const) {
            const tq = { terms: queryTerms(String(q.query)), mode, weights: { name: 4, qualified_name: 1, text: 0.5 }, kindPriors: priors, limit: 50 };
            const raw = async (store: Store) => (await store.searchText(tq)).map((h) => [h.node.id, h.score, h.components.identifier, h.components.text]);
            assert.deepEqual(await raw(both.pg), await raw(both.sqlite), `raw ${mode} hits for ${String(q.query)}`);
          }
        }
        for (const typo of TYPOS[name]!) {
          const [a, b] = [await both.pg.similarNames(typo, { limit: 5 }), await both.sqlite.similarNames(typo, { limit: 5 })];
          assert.ok(b.length > 0, `SQLite suggests something for ${typo}`);
          assert.deepEqual(a, b, `did-you-mean for ${typo}`);
        }
        assert.deepEqual(await both.pg.textMatchCounts(['repository', 'pull', 'zzzz'], 1000), await both.sqlite.textMatchCounts(['repository', 'pull', 'zzzz'], 1000));
        const [pm, sm] = [await both.pg.meta(), await both.sqlite.meta()];
        assert.deepEqual(pm.counts, sm.counts);
      } finally {
        await both.close();
      }
    });
  }
});

// ------------------------------------------------------------------------------------------- writers

function graph(source: string, n: number, tag = ''): { nodes: NodeRecord[]; edges: EdgeRecord[] } {
  const nodes: NodeRecord[] = [];
  const edges: EdgeRecord[] = [];
  for (let i = 0; i < n; i++) {
    nodes.push({ id: `ty_${source}_${i}`, kind: 'type', name: `T${i}${tag}`, qualified_name: `${source}.T${i}`, source, props: { type_kind: 'OBJECT' } });
    if (i > 0) edges.push({ type: 'IMPLEMENTS', from: `ty_${source}_${i}`, to: `ty_${source}_0` });
  }
  return { nodes, edges };
}

const source = (name: string) => ({ name, kind: 'graphql', origin: `${name}.graphql`, built_at: new Date().toISOString() });

describe('writers and readers', () => {
  let url: string;
  before(async () => {
    url = await newTestDatabase();
  });

  test('writers of different sources run side by side and both land', async () => {
    const [a, b] = [await openStore(ontology, url, 'write'), await openStore(ontology, url, 'write')];
    try {
      const ga = graph('alpha', 3000);
      const gb = graph('beta', 3000);
      await Promise.all([a.writeSources([{ source: source('alpha'), ...ga }]), b.writeSources([{ source: source('beta'), ...gb }])]);
    } finally {
      await a.close();
      await b.close();
    }
    const r = await openStore(ontology, url, 'read');
    try {
      assert.deepEqual((await r.sources()).map((s) => [s.name, s.nodes]), [['alpha', 3000], ['beta', 3000]]);
      assert.equal((await r.meta()).counts.nodes, 6000);
    } finally {
      await r.close();
    }
  });

  test('two writers of one source take turns, the second saying whom it waits for', async () => {
    const waits: string[] = [];
    const a = await openStore(ontology, url, 'write');
    const b = await openStore(ontology, url, 'write', { onLockWait: (m) => waits.push(m) });
    try {
      // A slow first write: a big graph. The second starts while it holds the source's lock.
      const first = a.writeSources([{ source: source('gamma'), ...graph('gamma', 60_000, 'a') }]);
      await new Promise((r) => setTimeout(r, 150));
      const second = b.writeSources([{ source: source('gamma'), ...graph('gamma', 10, 'b') }]);
      await Promise.all([first, second]);
    } finally {
      await a.close();
      await b.close();
    }
    assert.ok(waits.length >= 1, 'the second writer said it was waiting');
    assert.match(waits[0]!, /waiting for sextant index \(pid \d+ on .+\) \(server pid \d+\), which is writing the source gamma into postgres:\/\/sextant_admin@/);
    const r = await openStore(ontology, url, 'read');
    try {
      const gamma = await r.findNodes({ kinds: ['type'], predicates: [{ property: 'source', op: 'in', values: ['gamma'] }], limit: 100, offset: 0 });
      assert.equal(gamma.total, 10, 'the later write is what stays');
      assert.ok(gamma.nodes.every((n) => n.name.endsWith('b')));
    } finally {
      await r.close();
    }
  });

  test('the estate lock goes to waiting writers in the order they asked, and a wait past its limit is refused', async () => {
    const [holder, first, second] = [await openStore(ontology, url, 'write'), await openStore(ontology, url, 'write'), await openStore(ontology, url, 'write')];
    const impatient = await openStore(ontology, url, 'write', { lockWaitMs: 300 });
    const order: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    try {
      let entered!: () => void;
      const inside = new Promise<void>((r) => (entered = r));
      const holding = holder.exclusive!('estate', async () => {
        entered();
        await held;
        order.push('holder');
      });
      await inside;
      const a = first.exclusive!('estate', async () => void order.push('first'));
      await new Promise((r) => setTimeout(r, 200));
      const b = second.exclusive!('estate', async () => void order.push('second'));
      await new Promise((r) => setTimeout(r, 200));
      await assert.rejects(impatient.exclusive!('estate', async () => void order.push('impatient')), (err: Error & { code?: string }) => {
        assert.equal(err.code, 'store_busy');
        assert.match(err.message, /^The estate of the index at postgres:\/\/sextant_admin@.+ stayed locked for \d+ s by sextant index/);
        return true;
      });
      release();
      await Promise.all([holding, a, b]);
    } finally {
      release();
      for (const s of [holder, first, second, impatient]) await s.close();
    }
    assert.deepEqual(order, ['holder', 'first', 'second']);
  });

  test('a reader sees a source before or after a write, never half of it', async () => {
    const w = await openStore(ontology, url, 'write');
    await w.writeSources([{ source: source('delta'), ...graph('delta', 1000) }]);
    const r = await openStore(ontology, url, 'read');
    const seen = new Set<number>();
    let writing = true;
    try {
      const write = w.writeSources([{ source: source('delta'), ...graph('delta', 40_000) }]).finally(() => (writing = false));
      while (writing) seen.add(await r.countNodes({ kinds: ['type'], predicates: [{ property: 'source', op: 'in', values: ['delta'] }] }));
      await write;
      seen.add(await r.countNodes({ kinds: ['type'], predicates: [{ property: 'source', op: 'in', values: ['delta'] }] }));
    } finally {
      await w.close();
      await r.close();
    }
    assert.deepEqual([...seen].sort((x, y) => x - y), [...seen].filter((n) => n === 1000 || n === 40_000).sort((x, y) => x - y), `only whole versions: ${[...seen].join(', ')}`);
    assert.ok(seen.has(40_000));
  });

  test('removing a source takes its nodes, edges and search terms with it', async () => {
    const w = await openStore(ontology, url, 'write');
    try {
      assert.equal(await w.removeSource('delta'), true);
      assert.equal(await w.removeSource('delta'), false);
    } finally {
      await w.close();
    }
    const rows = await adminQuery(`SELECT (SELECT count(*) FROM nodes WHERE source = 'delta') AS n, (SELECT count(*) FROM search_postings WHERE source = 'delta') AS d, (SELECT count(*) FROM search_df WHERE source = 'delta') AS f, (SELECT count(*) FROM edges WHERE source = 'delta') AS e`, new URL(url).pathname.slice(1));
    assert.deepEqual(rows.rows[0], { n: '0', d: '0', f: '0', e: '0' });
  });
});

describe('roles, versions and credentials', () => {
  let url: string;
  let dbName: string;
  before(async () => {
    url = await newTestDatabase();
    dbName = new URL(url).pathname.slice(1);
    const w = await openStore(ontology, url, 'write');
    await w.writeSources([{ source: source('shop'), ...graph('shop', 20) }]);
    await w.close();
  });

  test('a read-only role serves the index and is refused writes with a message that says so', async () => {
    const role = { name: `reader_${dbName}`, password: 'reader-secret-pw' };
    await adminQuery(`CREATE ROLE ${role.name} LOGIN PASSWORD '${role.password}'`);
    await adminQuery(`GRANT USAGE ON SCHEMA public TO ${role.name}; GRANT SELECT ON ALL TABLES IN SCHEMA public TO ${role.name};`, dbName);
    const readerUrl = databaseUrl(dbName, role);
    const r = await openStore(ontology, readerUrl, 'read');
    try {
      assert.equal((await r.sources())[0]?.name, 'shop');
      const found = (await runTool({ store: r, ontology }, 'search', { query: 'T1' })) as Record<string, any>;
      assert.equal(found.ok, true);
    } finally {
      await r.close();
    }
    const w = await openStore(ontology, readerUrl, 'write');
    try {
      await assert.rejects(
        w.writeSources([{ source: source('shop'), ...graph('shop', 5) }]),
        (err: unknown) => err instanceof StoreError && err.code === 'store_readonly' && err.message.includes(`role ${role.name} may read it but not write it`) && !err.message.includes(role.password),
      );
    } finally {
      await w.close();
    }
  });

  test('another version: readers and writers are told how to rebuild; only --rebuild resets, and keeps nothing stale', async () => {
    await adminQuery(`UPDATE meta SET value = 'old-version' WHERE key = 'ontology_version'`, dbName);
    await assert.rejects(openStore(ontology, url, 'read'), (err: unknown) => err instanceof StoreError && err.code === 'ontology_mismatch' && /ontology version old-version/.test(err.message) && /--rebuild/.test(err.message));
    await assert.rejects(openStore(ontology, url, 'write'), (err: unknown) => err instanceof StoreError && err.code === 'ontology_mismatch' && /nothing is reset without being asked/.test(err.message));
    const w = await openStore(ontology, url, 'write', { reset: true });
    try {
      await w.writeSources([{ source: source('fresh'), ...graph('fresh', 3) }]);
    } finally {
      await w.close();
    }
    const r = await openStore(ontology, url, 'read');
    try {
      assert.deepEqual((await r.sources()).map((s) => s.name), ['fresh']);
    } finally {
      await r.close();
    }
  });

  test('a failed connection says where and what to check, never the password', async () => {
    const u = new URL(url);
    u.password = 'not-the-password-4711';
    await assert.rejects(openStore(ontology, u.toString(), 'read'), (err: unknown) => {
      assert.ok(err instanceof StoreError && err.code === 'store_unreachable', String(err));
      assert.match(err.message, /refused the password of user sextant_admin/);
      assert.ok(!err.message.includes('not-the-password-4711'));
      return true;
    });
    const closed = new URL(url);
    closed.port = '1';
    closed.password = 'not-the-password-4711';
    await assert.rejects(openStore(ontology, closed.toString(), 'read'), (err: unknown) => err instanceof StoreError && /nothing accepts connections at 127\.0\.0\.1:1/.test(err.message) && !err.message.includes('4711'));
    await assert.rejects(openStore(ontology, databaseUrl('no_such_db_here'), 'read'), (err: unknown) => err instanceof StoreError && /database no_such_db_here does not exist/.test(err.message));
  });

  test('the CLI indexes into a database named in sextant.yaml with ${VAR}, and prints it without the password', async () => {
    const admin = new URL(testPostgresUrl());
    const target = await newTestDatabase();
    const work = mkdtempSync(join(tmpdir(), 'sextant-pg-yaml-'));
    try {
      const shown = new URL(target);
      const password = decodeURIComponent(admin.password);
      shown.password = '';
      const storeUrl = `postgres://${admin.username}:\${SEXTANT_PG_PW}@${shown.host}${shown.pathname}`;
      writeFileSync(join(work, 'sextant.yaml'), `version: 1\nstore: "${storeUrl}"\nsources:\n  - name: shop\n    kind: graphql\n    schema: ${SHOP_SDL}\n`);
      const r = await runCli(['index', join(work, 'sextant.yaml'), '--json'], { env: { SEXTANT_PG_PW: password } });
      assert.equal(r.code, 0, r.stderr);
      const report = jsonOf(r);
      assert.equal(report.store, `postgres://${admin.username}@${shown.host}${shown.pathname}`);
      assert.ok(!r.stdout.includes(password) && !r.stderr.includes(password), 'the password is never printed');
      const status = await runCli(['status', '--store', target]);
      assert.equal(status.code, 0, status.stderr);
      assert.match(status.stdout, /shop \(graphql\): 44 nodes/);
      assert.ok(!status.stdout.includes(password));
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});
