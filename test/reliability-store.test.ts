/**
 * The embedded store under the conditions a user meets outside the happy path: several indexers on one store at
 * once, an indexer killed mid-write, a file that is not an index, and an index re-written incrementally many
 * times, whose search ranking must stay exactly what a fresh index gives.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { sextantOntology } from '../src/graph/ontology/index.js';
import { SqliteStore } from '../src/graph/sqlite/store.js';
import { StoreError, type TextQuery } from '../src/graph/store.js';
import { buildWorkspace } from '../src/indexer/build.js';
import { runTool } from '../src/query/index.js';
import { SHOP_SDL } from './helpers/index.js';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'sextant-reliability-'));
  dirs.push(d);
  return d;
};
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

// ---------------------------------------------------------------- several writers, one store

/**
 * A writer in its own process. `args.hold`: `write` pauses inside its write transaction, `open` pauses with the
 * store open for writing and writes nothing; each prints HOLDING when it starts pausing.
 */
const WRITER_SCRIPT = `
import { nodeId } from ${JSON.stringify(pathToFileURL(join(REPO, 'src/graph/ids.ts')).href)};
import { Ontology } from ${JSON.stringify(pathToFileURL(join(REPO, 'src/graph/ontology/index.ts')).href)};
import { SqliteStore } from ${JSON.stringify(pathToFileURL(join(REPO, 'src/graph/sqlite/store.ts')).href)};
const args = JSON.parse(process.argv[2]);
const ontology = new Ontology([{
  sourceKind: 'tiny', description: 'test ontology',
  nodeKinds: [{ name: 'thing', idPrefix: 'th', description: 'a thing', qualifiedNameFormat: 'name', location: ['file'], searchPrior: 1, properties: [] }],
  edgeTypes: [],
}]);
const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
const holding = () => process.stdout.write('HOLDING\\n');
try {
  const store = SqliteStore.open(ontology, args.dir, { mode: 'write', ...(args.lockWaitMs !== undefined ? { lockWaitMs: args.lockWaitMs } : {}), onLockWait: (m) => process.stderr.write('WAIT ' + m + '\\n') });
  if (args.hold === 'open') { holding(); sleep(args.holdMs); }
  const nodes = Array.from({ length: args.count }, (_, i) => {
    const name = args.source + 'Thing' + i;
    return { id: nodeId(ontology, args.source, 'thing', name), kind: 'thing', name, qualified_name: 'pkg.' + name, source: args.source, props: {} };
  });
  let paused = false;
  const onProgress = () => { if (args.hold === 'write' && !paused) { paused = true; holding(); sleep(args.holdMs); } };
  const [info] = await store.writeSources([{ source: { name: args.source, kind: 'tiny', origin: 'test', built_at: 'now' }, nodes, edges: [] }], { onProgress });
  await store.close();
  process.stdout.write(JSON.stringify({ ok: true, nodes: info.nodes }) + '\\n');
} catch (err) {
  process.stdout.write(JSON.stringify({ ok: false, code: err.code, name: err.constructor.name, message: err.message }) + '\\n');
}
`;

interface Writer {
  child: ChildProcess;
  /** Resolves when the writer starts pausing. */
  holding: Promise<void>;
  /** What the writer printed last (its result), once it exits. */
  result: Promise<{ ok: boolean; nodes?: number; code?: string; name?: string; message?: string } | undefined>;
  stderr: () => string;
}

function startWriter(script: string, args: { dir: string; source: string; count: number; hold?: 'write' | 'open'; holdMs?: number; lockWaitMs?: number }): Writer {
  const child = spawn(process.execPath, ['--import', 'tsx', script, JSON.stringify(args)], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  let onHolding: () => void = () => undefined;
  const holding = new Promise<void>((resolve) => (onHolding = resolve));
  child.stdout!.on('data', (d) => {
    out += d;
    if (out.includes('HOLDING')) onHolding();
  });
  child.stderr!.on('data', (d) => (err += d));
  const result = new Promise<Writer['result'] extends Promise<infer R> ? R : never>((resolve) =>
    child.on('close', () => {
      const last = out.trim().split('\n').filter((l) => l.startsWith('{')).pop();
      resolve(last ? JSON.parse(last) : undefined);
    }),
  );
  return { child, holding, result, stderr: () => err };
}

/** Resolves with `p`, or rejects once `ms` have passed (a bounded wait, never a timing assertion). */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms).unref())]);
}

describe('several writers on one store', () => {
  let script: string;
  const tinyOntology = () => {
    // The reader needs the writers' ontology to check compatibility; built the same way as in the script.
    return import('../src/graph/ontology/index.js').then(({ Ontology }) => new Ontology([{ sourceKind: 'tiny', description: 'test ontology', nodeKinds: [{ name: 'thing', idPrefix: 'th', description: 'a thing', qualifiedNameFormat: 'name', location: ['file'], searchPrior: 1, properties: [] }], edgeTypes: [] }]));
  };
  const sourcesIn = async (dir: string) => {
    const reader = SqliteStore.open(await tinyOntology(), dir, { mode: 'read' });
    try {
      return (await reader.sources()).map((s) => `${s.name}:${s.nodes}`);
    } finally {
      await reader.close();
    }
  };

  before(() => {
    script = join(tempDir(), 'writer.mjs');
    writeFileSync(script, WRITER_SCRIPT);
  });

  test('a second indexer on a fresh store, while the first writes for longer than the busy timeout, never deletes the first\'s index', async () => {
    const dir = tempDir();
    const first = startWriter(script, { dir, source: 'a', count: 300, hold: 'write', holdMs: 6500 });
    await within(first.holding, 20_000, 'first writer starts writing');
    const second = startWriter(script, { dir, source: 'b', count: 200 });
    const [a, b] = await within(Promise.all([first.result, second.result]), 40_000, 'both writers finish');
    assert.deepEqual(a, { ok: true, nodes: 300 }, `first writer: ${first.stderr()}`);
    if (b?.ok) assert.deepEqual(await sourcesIn(dir), ['a:300', 'b:200'], 'both writes landed');
    else {
      assert.deepEqual(await sourcesIn(dir), ['a:300'], "the first writer's index survived");
      assert.equal(b?.code, 'store_busy', `the second writer fails with a StoreError: ${JSON.stringify(b)}`);
      assert.doesNotMatch(b!.message!, /^database is locked$/);
    }
    assert.match(second.stderr(), /WAIT .*pid \d+/, 'the waiting writer says who holds the store');
  });

  test('a writer that cannot wait long enough fails with a message naming the holder, and readers keep reading', async () => {
    const dir = tempDir();
    const seed = startWriter(script, { dir, source: 'a', count: 50 });
    assert.equal((await within(seed.result, 20_000, 'seed write'))?.ok, true);
    const holder = startWriter(script, { dir, source: 'a', count: 80, hold: 'write', holdMs: 2500 });
    await within(holder.holding, 20_000, 'holder starts writing');
    assert.deepEqual(await sourcesIn(dir), ['a:50'], 'a reader sees the last complete index during a write');
    const impatient = startWriter(script, { dir, source: 'b', count: 10, lockWaitMs: 300 });
    const r = await within(impatient.result, 20_000, 'impatient writer');
    assert.equal(r?.ok, false);
    assert.equal(r?.code, 'store_busy');
    assert.match(r!.message!, new RegExp(`pid ${holder.child.pid}`));
    assert.match(r!.message!, /being written|writing/);
    assert.equal((await within(holder.result, 20_000, 'holder'))?.ok, true);
    assert.deepEqual(await sourcesIn(dir), ['a:80']);
  });

  test('a writer killed with SIGKILL leaves no lock that blocks the next one', async () => {
    const dir = tempDir();
    const victim = startWriter(script, { dir, source: 'a', count: 50, hold: 'write', holdMs: 60_000 });
    await within(victim.holding, 20_000, 'victim is in its first write');
    victim.child.kill('SIGKILL');
    await within(victim.result, 10_000, 'victim exits');
    const next = startWriter(script, { dir, source: 'b', count: 20, lockWaitMs: 2000 });
    assert.deepEqual(await within(next.result, 20_000, 'next writer'), { ok: true, nodes: 20 }, next.stderr());
    assert.deepEqual(await sourcesIn(dir), ['b:20']);
  });

  test('one process cannot open a store for writing twice (it would wait for itself)', async () => {
    const dir = tempDir();
    const o = await tinyOntology();
    const w = SqliteStore.open(o, dir, { mode: 'write' });
    try {
      assert.throws(() => SqliteStore.open(o, dir, { mode: 'write' }), (e: unknown) => e instanceof StoreError && e.code === 'store_busy' && /already open for writing in this process/.test(e.message));
    } finally {
      await w.close();
    }
    const again = SqliteStore.open(o, dir, { mode: 'write' });
    await again.close();
  });

  test('a file that is not a database is replaced; a Sextant index is not', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'index.db'), 'this is not a database, just text long enough to have a header. '.repeat(20));
    const o = await tinyOntology();
    const w = SqliteStore.open(o, dir, { mode: 'write' });
    await w.writeSources([{ source: { name: 's', kind: 'tiny', origin: 'test', built_at: 'now' }, nodes: [], edges: [] }]);
    await w.close();
    assert.deepEqual(await sourcesIn(dir), ['s:0']);
    assert.equal(readFileSync(join(dir, 'index.db')).subarray(0, 15).toString(), 'SQLite format 3');
  });
});

// ---------------------------------------------------------------- ranking after incremental writes

describe('search ranking after incremental re-indexing', () => {
  const ontology = sextantOntology();
  const original = readFileSync(SHOP_SDL, 'utf8');
  /** A second source beside the shop, so a source's rows are also taken out while another's stay. */
  const REVIEWS = '"A review of an order by its customer."\ntype Review {\n  id: ID!\n  "The order reviewed."\n  order: String!\n  stars: Int!\n}\ntype Query {\n  reviews(order: ID!): [Review!]!\n}\n';
  /** Edits of the shop schema and whether the reviews are indexed too, in turn; the last restores the start. */
  const EDITS: [string, (sdl: string) => string, boolean][] = [
    ['a type added', (t) => `${t}\n"A gift card: an order paid in advance, redeemed by a customer."\ntype GiftCard implements Node {\n  id: ID!\n  balance: Money!\n  order: Order\n}\n`, true],
    ['a description changed', (t) => t.replace('"A customer order with its line items."', '"An order a customer placed: its line items, its status and its total."'), true],
    ['the other source removed', (t) => t, false],
    ['a type removed', (t) => t.replace(/"A line of an order: one product and a quantity\."\ntype OrderLine \{[^}]*\}\n/, '').replace('[OrderLine!]!', '[Product!]!'), false],
    ['the other source back', (t) => t, true],
    ['a field renamed', (t) => t.replace('placedAt: String!', 'orderedAt: String!'), true],
    ['back to the original', () => original, true],
  ];
  const QUERIES = ['order', 'customer order', 'line items', 'product price', 'status', 'money amount currency', 'node id'];

  async function index(storeDir: string, schema: string, reviews: string | undefined) {
    const store = SqliteStore.open(ontology, storeDir, { mode: 'write' });
    const source = (name: string, path: string) => ({ kind: 'graphql' as const, name, schema: [path], headers: {}, timeout_ms: 30000 });
    try {
      return await buildWorkspace(store, ontology, { dir: storeDir, sources: [source('shop', schema), ...(reviews ? [source('reviews', reviews)] : [])] });
    } finally {
      await store.close();
    }
  }

  /** Every query's hits with their exact scores, from the store and from the search tool. */
  async function rankings(storeDir: string): Promise<unknown[]> {
    const store = SqliteStore.open(ontology, storeDir, { mode: 'read' });
    try {
      const out: unknown[] = [];
      for (const query of QUERIES) {
        for (const mode of ['and', 'or'] as const) {
          const q: TextQuery = { terms: query.split(' '), mode, weights: { name: 3, qualified_name: 1, text: 0.5 }, kindPriors: {}, limit: 50 };
          out.push({ query, mode, hits: (await store.searchText(q)).map((h) => [h.node.qualified_name, h.score, h.components.identifier, h.components.text]) });
        }
        const tool = (await runTool({ store, ontology }, 'search', { query, limit: 20 })) as unknown as { results: { node: { qualified_name: string }; score: number }[] };
        out.push({ query, tool: tool.results.map((r) => [r.node.qualified_name, r.score]) });
      }
      return out;
    } finally {
      await store.close();
    }
  }

  test('scores and order equal a fresh index of the same content after every patch', async () => {
    const work = tempDir();
    const schema = join(work, 'shop.graphql');
    copyFileSync(SHOP_SDL, schema);
    const reviews = join(work, 'reviews.graphql');
    writeFileSync(reviews, REVIEWS);
    const patched = join(work, 'patched');
    await index(patched, schema, reviews);
    let text = original;
    for (const [i, [what, edit, withReviews]] of EDITS.entries()) {
      const before = text;
      text = edit(text);
      writeFileSync(schema, text);
      const report = await index(patched, schema, withReviews ? reviews : undefined);
      const shop = report.sources.find((s) => s.name === 'shop')!;
      assert.equal(shop.written, text === before ? 'unchanged' : 'patch', `${what}: the shop written as a patch`);
      const fresh = join(work, `fresh-${i}`);
      await index(fresh, schema, withReviews ? reviews : undefined);
      assert.deepEqual(await rankings(patched), await rankings(fresh), `${what}: ranking equals a fresh index`);
    }
  });
});
