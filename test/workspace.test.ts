import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadWorkspaceConfig } from '../src/config/workspace.js';
import { sextantOntology } from '../src/graph/ontology/index.js';
import { SqliteStore } from '../src/graph/sqlite/store.js';
import { buildWorkspace } from '../src/indexer/build.js';
import { runTool } from '../src/query/index.js';
import { sharedDir, SHOP_SDL } from './helpers/index.js';

const GOLDEN = join(sharedDir(), 'fixtures/hugr/golden');
const dir = mkdtempSync(join(tmpdir(), 'sextant-ws-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function writeConfig(sources: string): string {
  const path = join(dir, 'sextant.yaml');
  writeFileSync(path, `version: 1\nstore: idx\nsources:\n${sources}`);
  return path;
}

test('a sextant.yaml with several sources builds one graph; a source dropped from the config is removed', async () => {
  const golden = readdirSync(GOLDEN).filter((f) => f.endsWith('.graphql')).sort();
  assert.ok(golden.length >= 8, `golden fixtures at ${GOLDEN}`);
  const entries = [`  - name: shop\n    kind: graphql\n    schema: ${SHOP_SDL}\n`, ...golden.map((f) => `  - name: hugr-${f.replace('.graphql', '')}\n    kind: graphql\n    schema: ${join(GOLDEN, f)}\n`)];
  const ontology = sextantOntology();
  let config = await loadWorkspaceConfig(writeConfig(entries.join('')), {});
  assert.equal(config.store, join(dir, 'idx'));
  let store = SqliteStore.open(ontology, config.store!, { mode: 'write' });
  const report = await buildWorkspace(store, ontology, config, {}, {});
  assert.equal(report.sources.length, golden.length + 1);
  for (const s of report.sources) assert.ok(s.nodes > 10 && s.edges > 10, `${s.name}: ${s.nodes} nodes`);
  const meta = await store.meta();
  assert.equal(meta.sources.length, golden.length + 1);
  // The same type name in several sources: resolve gives many, each with its source; a source filter narrows.
  const ctx = { store, ontology };
  const many = (await runTool(ctx, 'resolve', { identifier: 'Query' })) as Record<string, any>;
  assert.equal(many.status, 'many', JSON.stringify(many).slice(0, 400));
  const sources = new Set(many.candidates.map((c: { node: { source: string } }) => c.node.source));
  assert.ok(sources.size >= 3 && sources.has('shop'), [...sources].join(', '));
  const shopOnly = (await runTool(ctx, 'find', { kind: 'type', filter: { name: 'Query', source: 'shop' } })) as Record<string, any>;
  assert.equal(shopOnly.total, 1);
  await store.close();

  config = await loadWorkspaceConfig(writeConfig(entries[0]!), {});
  store = SqliteStore.open(ontology, config.store!, { mode: 'write' });
  const second = await buildWorkspace(store, ontology, config, {}, {});
  assert.deepEqual(second.removed, golden.map((f) => `hugr-${f.replace('.graphql', '')}`));
  const after2 = await store.meta();
  assert.deepEqual(after2.sources.map((s) => s.name), ['shop']);
  assert.equal(after2.counts.nodes, meta.sources.find((s) => s.name === 'shop')!.nodes);
  await store.close();
});

test('re-indexing an unchanged GraphQL schema writes nothing; `only` builds one source and keeps the others', async () => {
  const ws = mkdtempSync(join(tmpdir(), 'sextant-ws-refresh-'));
  try {
    const schema = join(ws, 'api.graphql');
    writeFileSync(schema, 'type Query { books: [Book] } type Book { title: String }');
    const path = join(ws, 'sextant.yaml');
    const config = (flavor = 'auto') => {
      writeFileSync(path, `sources:\n  - name: api\n    kind: graphql\n    schema: api.graphql\n    flavor: ${flavor}\n  - name: hugr\n    kind: graphql\n    schema: ${join(GOLDEN, 'unique.graphql')}\n`);
      return loadWorkspaceConfig(path, {});
    };
    const ontology = sextantOntology();
    const store = SqliteStore.open(ontology, join(ws, 'idx'), { mode: 'write' });
    try {
      const first = await buildWorkspace(store, ontology, await config(), {}, {});
      assert.deepEqual(first.sources.map((s) => s.written), ['full', 'full']);
      const builtAt = (await store.sources()).find((s) => s.name === 'api')!.built_at;
      const again = await buildWorkspace(store, ontology, await config(), {}, {});
      assert.deepEqual(again.sources.map((s) => [s.name, s.written, s.nodes > 0]), [['api', 'unchanged', true], ['hugr', 'unchanged', true]]);
      assert.equal((await store.sources()).find((s) => s.name === 'api')!.built_at, builtAt);
      // A changed schema, or a changed reading of it (flavor), is written (patched: only what differs).
      writeFileSync(schema, 'type Query { books: [Book] } type Book { title: String year: Int }');
      const changed = await buildWorkspace(store, ontology, await config(), {}, {}, { only: ['api'] });
      assert.deepEqual(changed.sources.map((s) => [s.name, s.written]), [['api', 'patch']]);
      assert.ok((await runTool({ store, ontology }, 'resolve', { identifier: 'Book.year' }) as Record<string, any>).status === 'one');
      assert.deepEqual(changed.removed, []);
      assert.deepEqual((await store.sources()).map((s) => s.name), ['api', 'hugr']);
      const generic = await buildWorkspace(store, ontology, await config('generic'), {}, {}, { only: ['hugr', 'api'] });
      assert.deepEqual(generic.sources.map((s) => [s.name, s.written]), [['api', 'patch'], ['hugr', 'unchanged']]);
    } finally {
      await store.close();
    }
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
});

test('endpoints are re-read on their refresh schedule, one refresh at a time', async () => {
  const { scheduleRefresh } = await import('../src/indexer/refresh.js');
  const calls: string[][] = [];
  let release: () => void = () => undefined;
  const refresher = scheduleRefresh(
    {
      dir,
      sources: [
        { kind: 'graphql', name: 'live', endpoint: 'http://127.0.0.1:1/graphql', headers: {}, timeout_ms: 1000, refresh_seconds: 0.02 },
        { kind: 'graphql', name: 'files', schema: ['x.graphql'], headers: {}, timeout_ms: 1000 },
      ],
    },
    (only) => {
      calls.push(only);
      return new Promise<void>((r) => (release = r));
    },
  );
  try {
    assert.deepEqual(refresher.sources, ['live']);
    await new Promise((r) => setTimeout(r, 150));
    // The first refresh is still running: the ticks since did not start another.
    assert.deepEqual(calls, [['live']]);
    release();
    await new Promise((r) => setTimeout(r, 100));
    assert.ok(calls.length >= 2 && calls.every((c) => c.length === 1 && c[0] === 'live'), JSON.stringify(calls));
  } finally {
    refresher.close();
    release();
  }
});
