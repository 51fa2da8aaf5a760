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
