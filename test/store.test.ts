import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
import Database from 'better-sqlite3';
import { nodeId } from '../src/graph/ids.js';
import { Ontology, sextantOntology, type OntologyModule } from '../src/graph/ontology/index.js';
import { SqliteStore } from '../src/graph/sqlite/store.js';
import { StoreError } from '../src/graph/store.js';
import type { EdgeRecord, NodeRecord } from '../src/graph/types.js';
import { validateGraph } from '../src/graph/validate.js';
import { indexSchema, SHOP_SDL } from './helpers/index.js';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'sextant-store-'));
  dirs.push(d);
  return d;
};
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const TINY: OntologyModule = {
  sourceKind: 'tiny',
  description: 'test ontology',
  nodeKinds: [{ name: 'thing', idPrefix: 'th', description: 'a thing', qualifiedNameFormat: 'name', location: ['file'], searchPrior: 1, properties: [{ name: 'colour', type: 'enum', values: ['red', 'blue'], description: 'colour', filter: ['eq'] }] }],
  edgeTypes: [{ name: 'LINKS', description: 'links', from: ['thing'], to: ['thing'], attrs: [], inferred: true }],
};

function things(ontology: Ontology, n: number, tag = ''): { nodes: NodeRecord[]; edges: EdgeRecord[] } {
  const nodes: NodeRecord[] = [];
  for (let i = 0; i < n; i++) {
    const name = `Thing${i}${tag}`;
    nodes.push({ id: nodeId(ontology, 's', 'thing', name), kind: 'thing', name, qualified_name: `pkg.${name}`, source: 's', props: { colour: i % 2 ? 'red' : 'blue' } });
  }
  const edges = nodes.slice(1).map((node, i) => ({ type: 'LINKS', from: nodes[i]!.id, to: node.id, attrs: { confidence: 0.5 + (i % 2) / 2, strategy: 'test' } }));
  return { nodes, edges };
}

test('ids are deterministic, prefixed by kind, and differ by source and identity', () => {
  const o = sextantOntology();
  assert.equal(nodeId(o, 'a', 'type', 'Order'), nodeId(o, 'a', 'type', 'Order'));
  assert.notEqual(nodeId(o, 'a', 'type', 'Order'), nodeId(o, 'b', 'type', 'Order'));
  assert.match(nodeId(o, 'a', 'field', 'Order.id'), /^fd_[0-9a-z]{16}$/);
});

test('two builds of the same input give the same ids, graph and order', async () => {
  const a = await indexSchema(SHOP_SDL, 'shop');
  const b = await indexSchema(SHOP_SDL, 'shop');
  try {
    for (const kind of ['type', 'field', 'module']) {
      const ra = await a.call('find', { kind, limit: 500 });
      const rb = await b.call('find', { kind, limit: 500 });
      assert.deepEqual(ra.results, rb.results);
    }
    const meta = await a.store.meta();
    assert.deepEqual(meta.counts, (await b.store.meta()).counts);
  } finally {
    await a.close();
    await b.close();
  }
});

test('an index built by another ontology version is refused with how to rebuild', async () => {
  const dir = tempDir();
  const o = new Ontology([TINY]);
  const w = SqliteStore.open(o, dir, { mode: 'write' });
  await w.setRoot('/some/root');
  await w.writeSources([]);
  await w.close();
  const db = new Database(join(dir, 'index.db'));
  db.prepare("UPDATE meta SET value = 'old' WHERE key = 'ontology_version'").run();
  db.close();
  assert.throws(() => SqliteStore.open(o, dir, { mode: 'read' }), (e: unknown) => {
    assert.ok(e instanceof StoreError);
    assert.equal(e.code, 'ontology_mismatch');
    assert.match(e.message, /ontology version old/);
    assert.match(e.message, /sextant index \/some\/root --store/);
    return true;
  });
  // A writer replaces the stale index instead of misreading it, atomically with its first write.
  const again = SqliteStore.open(o, dir, { mode: 'write' });
  assert.throws(() => SqliteStore.open(o, dir, { mode: 'read' }), /ontology version old/, 'still the old index before the write');
  const g = things(o, 3);
  await again.writeSources([{ source: { name: 's', kind: 'tiny', origin: 'test', built_at: 'now' }, nodes: g.nodes, edges: g.edges }]);
  await again.close();
  const reader = SqliteStore.open(o, dir, { mode: 'read' });
  assert.equal((await reader.meta()).counts.nodes, 3);
  await reader.close();
  assert.throws(() => SqliteStore.open(o, tempDir(), { mode: 'read' }), /No index at .*sextant index/);
});

test('replaceSource is atomic and batched; another process reads the old graph until the commit', async () => {
  const dir = tempDir();
  const o = new Ontology([TINY]);
  const w = SqliteStore.open(o, dir, { mode: 'write' });
  const first = things(o, 5000);
  await w.replaceSource({ name: 's', kind: 'tiny', origin: 'test', built_at: 'now' }, first.nodes, first.edges);
  assert.equal((await w.meta()).counts.nodes, 5000);
  // A reader in a second process counts nodes repeatedly while this process rewrites the source.
  const reader = spawn(process.execPath, ['-e', `
    const D = require(${JSON.stringify(require.resolve('better-sqlite3'))});
    const db = new D(${JSON.stringify(join(dir, 'index.db'))}, { readonly: true });
    db.pragma('busy_timeout = 5000');
    const seen = new Set();
    const end = Date.now() + 1500;
    while (Date.now() < end) seen.add(db.prepare('SELECT count(*) AS c FROM nodes').get().c);
    process.stdout.write(JSON.stringify([...seen]));
  `], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  reader.stdout.on('data', (d) => (out += d));
  const second = things(o, 7000, 'b');
  await new Promise((r) => setTimeout(r, 100));
  for (let i = 0; i < 3; i++) {
    await w.replaceSource({ name: 's', kind: 'tiny', origin: 'test', built_at: 'now' }, i % 2 ? first.nodes : second.nodes, i % 2 ? first.edges : second.edges);
  }
  await new Promise((r) => reader.on('close', r));
  const counts = JSON.parse(out) as number[];
  assert.ok(counts.length >= 1);
  for (const c of counts) assert.ok(c === 5000 || c === 7000, `reader saw a half-written graph: ${c} nodes`);
  const meta = await w.meta();
  assert.equal(meta.counts.nodes, 7000);
  assert.equal(meta.counts.edges, 6999);
  assert.equal(meta.sources[0]?.nodes, 7000);
  await w.close();
});

test('confidence and strategy are stored and filterable; removeSource clears everything', async () => {
  const dir = tempDir();
  const o = new Ontology([TINY]);
  const w = SqliteStore.open(o, dir, { mode: 'write' });
  const g = things(o, 10);
  await w.replaceSource({ name: 's', kind: 'tiny', origin: 'test', built_at: 'now' }, g.nodes, g.edges);
  const sure = await w.edges({ ids: [g.nodes[1]!.id], direction: 'out', types: ['LINKS'], edge: [{ attr: 'confidence', op: 'gte', value: 0.9 }], limit: 10, offset: 0 });
  assert.equal(sure.total, 1);
  assert.equal(sure.rows[0]!.attrs.strategy, 'test');
  const unsure = await w.edges({ ids: [g.nodes[0]!.id], direction: 'out', types: ['LINKS'], edge: [{ attr: 'confidence', op: 'gte', value: 0.9 }], limit: 10, offset: 0 });
  assert.equal(unsure.total, 0);
  assert.equal(await w.removeSource('s'), true);
  const meta = await w.meta();
  assert.deepEqual([meta.counts.nodes, meta.counts.edges, meta.sources.length], [0, 0, 0]);
  assert.deepEqual(await w.similarNames('Thing1', { limit: 3 }), []);
  await w.close();
});

test('meta counts are kept by each full write, and counted again when a write did not keep them', async () => {
  const dir = tempDir();
  const o = new Ontology([TINY]);
  const w = SqliteStore.open(o, dir, { mode: 'write' });
  const a = things(o, 10);
  await w.replaceSource({ name: 's', kind: 'tiny', origin: 'test', built_at: 'now' }, a.nodes, a.edges);
  const b = things(o, 4, 'b');
  await w.replaceSource({ name: 't', kind: 'tiny', origin: 'test', built_at: 'now' }, b.nodes.map((n) => ({ ...n, source: 't' })), b.edges);
  const counted = { nodes: 14, edges: 12, by_kind: { thing: 14 }, by_edge_type: { LINKS: 12 } };
  assert.deepEqual((await w.meta()).counts, counted);
  await w.close();
  // What meta answers comes from the kept counts: doctored, they show; once another writer moves updated_at past them, they are counted again.
  const db = new Database(join(dir, 'index.db'));
  const kept = JSON.parse((db.prepare("SELECT value FROM meta WHERE key = 'counts'").get() as { value: string }).value) as { updated_at: string };
  assert.equal(kept.updated_at, (db.prepare("SELECT value FROM meta WHERE key = 'updated_at'").get() as { value: string }).value);
  db.prepare("UPDATE meta SET value = ? WHERE key = 'counts'").run(JSON.stringify({ ...kept, by_kind: { thing: 99 }, by_edge_type: { LINKS: 1 } }));
  const r1 = SqliteStore.open(o, dir, { mode: 'read' });
  assert.deepEqual((await r1.meta()).counts.by_kind, { thing: 99 }, 'the kept counts are read, not counted');
  await r1.close();
  db.prepare("UPDATE meta SET value = '2099-01-01T00:00:00.000Z' WHERE key = 'updated_at'").run();
  db.close();
  const r2 = SqliteStore.open(o, dir, { mode: 'read' });
  assert.deepEqual((await r2.meta()).counts, counted, 'stale kept counts are counted again');
  await r2.close();
  const w2 = SqliteStore.open(o, dir, { mode: 'write' });
  await w2.removeSource('t');
  assert.deepEqual((await w2.meta()).counts, { nodes: 10, edges: 9, by_kind: { thing: 10 }, by_edge_type: { LINKS: 9 } });
  // A patch (one node more) does not count: it drops the kept counts, and meta counts what the index holds.
  const more = things(o, 11);
  const [patched] = await w2.writeSources([{ source: { name: 's', kind: 'tiny', origin: 'test', built_at: 'now' }, nodes: more.nodes, edges: more.edges, incremental: true }]);
  assert.equal(patched!.written, 'patch');
  assert.deepEqual((await w2.meta()).counts, { nodes: 11, edges: 10, by_kind: { thing: 11 }, by_edge_type: { LINKS: 10 } });
  await w2.close();
  const db2 = new Database(join(dir, 'index.db'));
  assert.equal(db2.prepare("SELECT value FROM meta WHERE key = 'counts'").get(), undefined, 'a patch keeps no counts');
  db2.close();
});

test('a new index file has 16 KB pages; an existing one keeps the page size it was made with', async () => {
  const o = new Ontology([TINY]);
  const a = things(o, 3);
  const fresh = tempDir();
  const w = SqliteStore.open(o, fresh, { mode: 'write' });
  await w.replaceSource({ name: 's', kind: 'tiny', origin: 'test', built_at: 'now' }, a.nodes, a.edges);
  await w.close();
  const pageSize = (dir: string): number => {
    const db = new Database(join(dir, 'index.db'), { readonly: true });
    try {
      return db.pragma('page_size', { simple: true }) as number;
    } finally {
      db.close();
    }
  };
  assert.equal(pageSize(fresh), 16384);
  // An index an earlier Sextant made with SQLite's default pages is written in place, pages unchanged.
  const older = tempDir();
  const made = SqliteStore.open(o, older, { mode: 'write' });
  await made.replaceSource({ name: 's', kind: 'tiny', origin: 'test', built_at: 'now' }, a.nodes, a.edges);
  await made.close();
  const raw = new Database(join(older, 'index.db'));
  raw.pragma('journal_mode = DELETE');
  raw.pragma('page_size = 4096');
  raw.exec('VACUUM');
  raw.pragma('journal_mode = WAL');
  raw.close();
  assert.equal(pageSize(older), 4096);
  const again = SqliteStore.open(o, older, { mode: 'write' });
  const b = things(o, 5);
  await again.replaceSource({ name: 's', kind: 'tiny', origin: 'test', built_at: 'later' }, b.nodes, b.edges);
  assert.equal((await again.meta()).counts.nodes, 5);
  await again.close();
  assert.equal(pageSize(older), 4096);
});

test('validateGraph reports undeclared properties, bad enum values and misplaced edges', () => {
  const o = new Ontology([TINY]);
  const { nodes } = things(o, 2);
  const bad: NodeRecord[] = [{ ...nodes[0]!, props: { colour: 'green', size: 3 } }, nodes[1]!];
  const problems = validateGraph(o, bad, [{ type: 'LINKS', from: nodes[0]!.id, to: 'th_missing' }, { type: 'NOPE', from: nodes[0]!.id, to: nodes[1]!.id }]);
  assert.ok(problems.some((p) => /colour should be enum/.test(p)));
  assert.ok(problems.some((p) => /size is not declared/.test(p)));
  assert.ok(problems.some((p) => /th_missing: no such node/.test(p)));
  assert.ok(problems.some((p) => /NOPE.*unknown edge type/.test(p)));
});
