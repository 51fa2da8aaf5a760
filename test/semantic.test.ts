/**
 * Semantic search end to end, on the store under test (SQLite, or PostgreSQL under scripts/test-postgres.sh).
 *
 * Real: the CLI and MCP server (stdio, official SDK client), the index of a real estate
 * (spring-petclinic-microservices) and real Hugr schemas (hugr-lab's golden multi-source schema), and the embedding
 * model: all-MiniLM-L6-v2 served by test/embedding-server (an OpenAI-compatible endpoint on loopback; its
 * `/_control` route, which makes it fail on purpose, is the only test-only part).
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { callTool, connectStdio, jsonOf, killAll, runCli, tempDir, tempStore } from './helpers/e2e.js';
import { EMBEDDING_MODEL, startEmbeddingServer, type EmbeddingServer } from './helpers/embedding-server.js';
import { sharedDir, SHOP_SDL } from './helpers/index.js';
import { TEST_STORE } from './helpers/store.js';

const T = { timeout: 240_000 };
const PETCLINIC = join(sharedDir(), 'corpora/spring-petclinic-microservices');
const HUGR = join(sharedDir(), 'fixtures/hugr');
const HUGR_FILES = [...['base.graphql', 'system_types.graphql', 'gis.graphql', 'query_directives.graphql'].map((f) => join(HUGR, 'base', f)), fileURLToPath(new URL('./fixtures/hugr/scalars.graphql', import.meta.url)), join(HUGR, 'golden', 'multi.graphql')];

function workspace(sources: string, embeddings: string | undefined): string {
  return `sources:\n${sources}${embeddings ? `embeddings:\n${embeddings}` : ''}`;
}
const ESTATE_SOURCES = `  - name: petclinic\n    kind: code\n    path: ${PETCLINIC}\n  - name: platform\n    kind: graphql\n    schema: [${HUGR_FILES.join(', ')}]\n`;

async function search(store: string, args: Record<string, unknown>): Promise<Record<string, any>> {
  const r = await runCli(['call', 'search', JSON.stringify(args), '--store', store]);
  return jsonOf(r);
}
const names = (answer: Record<string, any>): string[] => (answer.results ?? []).map((r: any) => r.node.qualified_name as string);

let server: EmbeddingServer;
let store: string;
let lexicalStore: string;
let indexReport: Record<string, any>;

before(async () => {
  server = await startEmbeddingServer();
  const dir = await tempDir('sextant-semantic-');
  await writeFile(join(dir, 'sextant.yaml'), workspace(ESTATE_SOURCES, `  endpoint: ${server.url}\n  model: ${EMBEDDING_MODEL}\n  batch_size: 32\n`));
  await writeFile(join(dir, 'lexical.yaml'), workspace(ESTATE_SOURCES, undefined));
  store = await tempStore('sextant-semantic-store-');
  lexicalStore = await tempStore('sextant-semantic-lexical-');
  const [indexed, lexical] = await Promise.all([runCli(['index', join(dir, 'sextant.yaml'), '--store', store, '--json'], { timeoutMs: 200_000 }), runCli(['index', join(dir, 'lexical.yaml'), '--store', lexicalStore], { timeoutMs: 200_000 })]);
  assert.equal(indexed.code, 0, indexed.stderr);
  assert.equal(lexical.code, 0, lexical.stderr);
  indexReport = jsonOf(indexed);
});

after(async () => {
  await server?.close();
  await killAll();
});

describe('semantic search', T, () => {
  test('the index embeds types, public members, routes, clients, data objects, functions and fields, and reports it', () => {
    const e = indexReport.embeddings;
    assert.equal(e.model, EMBEDDING_MODEL);
    assert.equal(e.missing, 0);
    assert.equal(e.dimensions, 384);
    assert.equal(e.embedded + e.reused, e.nodes);
    assert.ok(e.nodes > 300, `only ${e.nodes} nodes embedded`);
    assert.ok(e.texts_per_second > 0);
  });

  test('an intent question finds code by meaning where lexical search finds nothing (sextant call)', async () => {
    const query = 'database access for veterinarians';
    const lexical = await search(store, { query, mode: 'lexical', limit: 10 });
    assert.equal(lexical.mode, 'lexical');
    assert.deepEqual(names(lexical), []);
    const hybrid = await search(store, { query, limit: 10 });
    assert.equal(hybrid.mode, 'hybrid', 'hybrid is the default when the index has embeddings');
    assert.ok(names(hybrid).includes('org.springframework.samples.petclinic.vets.model.VetRepository'), names(hybrid).join('\n'));
    const repo = hybrid.results.find((r: any) => r.node.qualified_name.endsWith('VetRepository'));
    assert.equal(repo.matched, 'semantic');
    assert.match(repo.why, /semantic similarity 0\.\d+/);
  });

  test('an intent question finds a Hugr function lexical ranking misses (MCP over stdio)', async () => {
    const conn = await connectStdio(store);
    try {
      const query = 'turn a title into a url friendly text';
      const lexical = await callTool(conn.client, 'search', { query, mode: 'lexical', limit: 10 });
      assert.ok(!names(lexical.body).includes('tools.slugify'), names(lexical.body).join('\n'));
      const hybrid = await callTool(conn.client, 'search', { query, limit: 10 });
      assert.equal(hybrid.body.mode, 'hybrid');
      assert.ok(names(hybrid.body).includes('tools.slugify'), names(hybrid.body).join('\n'));
      const semantic = await callTool(conn.client, 'search', { query: 'make a display label for a product', mode: 'semantic', kinds: ['function'], limit: 3 });
      assert.deepEqual(
        semantic.body.results.map((r: any) => r.node.kind),
        semantic.body.results.map(() => 'function'),
        'kinds apply before ranking',
      );
      assert.equal(semantic.body.results[0].node.qualified_name, 'shop.item_label');
    } finally {
      await conn.close();
    }
  });

  test('hybrid keeps an exact name first, and explain shows each list\'s rank and score', async () => {
    const answer = await search(store, { query: 'OwnerResource', explain: true, limit: 5 });
    assert.equal(answer.mode, 'hybrid');
    assert.equal(names(answer)[0], 'org.springframework.samples.petclinic.customers.web.OwnerResource');
    const top = answer.results[0].explain;
    assert.equal(top.exact_name_first, true);
    assert.equal(top.lexical.rank, 1);
    assert.equal(typeof top.semantic.rank, 'number');
    assert.ok(top.semantic.similarity > 0.3 && top.semantic.similarity <= 1);
    assert.equal(top.rrf.k, 60);
    for (const r of answer.results) assert.ok(r.explain.lexical || r.explain.semantic, 'every result comes from a list');
    // A name typed as words or as an identifier: hybrid's first answer is lexical's.
    for (const query of ['owner resource', 'findOwner', 'VisitsServiceClient', 'shop items', 'item label']) {
      const [lex, hyb] = await Promise.all([search(store, { query, mode: 'lexical', limit: 3 }), search(store, { query, limit: 3 })]);
      assert.equal(names(hyb)[0], names(lex)[0], query);
      assert.equal(hyb.results[0].matched === 'semantic', false);
    }
  });

  test('fields_query ranks each data object\'s fields by a second question, inside the result', async () => {
    const answer = await search(store, { query: 'shop items', kinds: ['data_object'], fields_query: 'how much it costs', limit: 3 });
    const items = answer.results.find((r: any) => r.node.qualified_name === 'shop.items');
    assert.ok(items, names(answer).join('\n'));
    assert.equal(items.fields[0].name, 'price');
    assert.ok(items.fields.length <= 5);
    const scores = items.fields.map((f: any) => f.score);
    assert.deepEqual([...scores].sort((a: number, b: number) => b - a), scores);
    const refused = await search(store, { query: 'x', kinds: ['symbol'], fields_query: 'price' });
    assert.equal(refused.error.argument, 'fields_query');
  });

  test('min_score drops vector matches below it, and is refused in lexical mode', async () => {
    const all = await search(store, { query: 'database access for veterinarians', mode: 'semantic', limit: 50 });
    const sims: number[] = all.results.map((r: any) => r.score);
    assert.deepEqual([...sims].sort((a, b) => b - a), sims, 'semantic results come by similarity');
    const cut = sims[4]!;
    const some = await search(store, { query: 'database access for veterinarians', mode: 'semantic', min_score: cut, limit: 50 });
    assert.deepEqual(names(some), names(all).slice(0, some.results.length));
    assert.ok(some.results.every((r: any) => r.score >= cut));
    const none = await search(store, { query: 'database access for veterinarians', mode: 'semantic', min_score: 0.99 });
    assert.deepEqual(none.results, []);
    assert.match(none.absence.reason, /min_score 0\.99/);
    const refused = await search(store, { query: 'x', mode: 'lexical', min_score: 0.5 });
    assert.equal(refused.ok, false);
    assert.equal(refused.error.argument, 'min_score');
  });

  test('lexical mode answers exactly as an index without embeddings does', async () => {
    for (const query of ['owner', 'visits service client', 'shop items price', 'customers']) {
      const withVectors = await search(store, { query, mode: 'lexical', limit: 20, explain: true });
      const without = await search(lexicalStore, { query, limit: 20, explain: true });
      assert.equal(without.mode, 'lexical');
      assert.equal(without.advisories, undefined);
      assert.deepEqual(withVectors.results, without.results, query);
    }
  });

  test('without a provider, semantic search is refused with what to configure, and hybrid falls back saying so', async () => {
    const semantic = await search(lexicalStore, { query: 'database access for veterinarians', mode: 'semantic' });
    assert.equal(semantic.ok, false);
    assert.match(semantic.error.message, /`embeddings:`/);
    assert.deepEqual(semantic.error.hints[0].args, { query: 'database access for veterinarians', mode: 'lexical' });
    const hybrid = await search(lexicalStore, { query: 'owner', mode: 'hybrid' });
    assert.equal(hybrid.ok, true);
    assert.equal(hybrid.mode, 'lexical');
    assert.equal(hybrid.advisories[0].code, 'no_vectors');
  });

  test('a re-index asks the endpoint for nothing it embedded before', async () => {
    await server.control({ fail: 'none', reset: true });
    const dir = await tempDir('sextant-semantic-again-');
    await writeFile(join(dir, 'sextant.yaml'), workspace(ESTATE_SOURCES, `  endpoint: ${server.url}\n  model: ${EMBEDDING_MODEL}\n`));
    const again = await runCli(['index', join(dir, 'sextant.yaml'), '--store', store, '--json'], { timeoutMs: 120_000 });
    assert.equal(again.code, 0, again.stderr);
    const e = jsonOf(again).embeddings;
    assert.equal(e.embedded, 0);
    assert.equal(e.reused, e.nodes);
    assert.equal((await server.stats()).texts, 0);
  });

  test('an endpoint that fails mid-index leaves a complete lexical index, a warning, and the next run fills the rest', async () => {
    const dir = await tempDir('sextant-semantic-fail-');
    const yaml = workspace(`  - name: shop\n    kind: graphql\n    schema: ${SHOP_SDL}\n`, `  endpoint: ${server.url}\n  model: ${EMBEDDING_MODEL}\n  batch_size: 4\n`);
    await writeFile(join(dir, 'sextant.yaml'), yaml);
    const failing = await tempStore('sextant-semantic-failing-');
    // Two batches succeed, then every request fails (retries included).
    await server.control({ fail: 'after', after: 2, reset: true });
    const first = await runCli(['index', join(dir, 'sextant.yaml'), '--store', failing, '--json'], { timeoutMs: 120_000 });
    assert.equal(first.code, 0, `a failing endpoint must not fail the index:\n${first.stderr}`);
    assert.match(first.stderr, /warning \[embeddings\]: .*HTTP 503.*nodes have no vector/);
    const report = jsonOf(first);
    assert.equal(report.embeddings.embedded, 8);
    assert.ok(report.embeddings.missing > 0);
    assert.equal(report.embeddings.missing, report.embeddings.nodes - 8);
    assert.match(report.embeddings.error, /503/);
    const lexical = await search(failing, { query: 'product', mode: 'lexical' });
    assert.ok(lexical.results.length > 0, 'the lexical index is complete');
    await server.control({ fail: 'none', reset: true });
    const hybrid = await search(failing, { query: 'product' });
    assert.equal(hybrid.mode, 'hybrid');
    assert.equal(hybrid.advisories[0].code, 'vectors_incomplete');
    assert.match(hybrid.advisories[0].message, new RegExp(`${report.embeddings.missing} of ${report.embeddings.nodes}`));

    await server.control({ fail: 'none', reset: true });
    const second = await runCli(['index', join(dir, 'sextant.yaml'), '--store', failing, '--json'], { timeoutMs: 120_000 });
    assert.equal(second.code, 0, second.stderr);
    const filled = jsonOf(second).embeddings;
    assert.equal(filled.missing, 0);
    assert.equal(filled.embedded, report.embeddings.missing, 'only what was missing is embedded');
    assert.equal((await server.stats()).texts, report.embeddings.missing);
    const healed = await search(failing, { query: 'product' });
    assert.equal(healed.advisories, undefined);
  });

  test('an endpoint down at query time: hybrid answers lexically and says why; semantic is an upstream error', async () => {
    await server.control({ fail: 'all' });
    try {
      const hybrid = await search(store, { query: 'owner pets' });
      assert.equal(hybrid.ok, true);
      assert.equal(hybrid.mode, 'lexical');
      assert.equal(hybrid.advisories[0].code, 'embedding_failed');
      assert.match(hybrid.advisories[0].message, /HTTP 503/);
      assert.ok(hybrid.results.length > 0);
      const semantic = await search(store, { query: 'owner pets', mode: 'semantic' });
      assert.equal(semantic.ok, false);
      assert.equal(semantic.error.code, 'upstream_error');
    } finally {
      await server.control({ fail: 'none' });
    }
  });

  test('the index records its embedding space: model, dimensions, the endpoint as shown, never a key', async () => {
    const { openStore } = await import('../src/graph/open.js');
    const { sextantOntology } = await import('../src/graph/ontology/index.js');
    const s = await openStore(sextantOntology(), store, 'read');
    try {
      const space = (await s.embeddingSpace())!;
      assert.equal(space.model, EMBEDDING_MODEL);
      assert.equal(space.dimensions, 384);
      assert.equal(space.endpoint, `${server.url}/embeddings`);
      assert.equal(space.missing, 0);
      assert.equal(space.api_key_env, undefined);
      // CI installs pgvector (../shared/pgvector): the PostgreSQL store then serves vectors through an HNSW index.
      if (TEST_STORE === 'postgres' && process.env.SEXTANT_REQUIRE_PG) assert.equal(space.index, 'hnsw');
      if (TEST_STORE === 'sqlite') assert.equal(space.index, undefined);
    } finally {
      await s.close();
    }
    const status = await runCli(['status', '--store', store]);
    assert.match(status.stdout, new RegExp(`embeddings: ${EMBEDDING_MODEL} \\(384 dimensions\\) from ${server.url.replace(/[.]/g, '\\.')}/embeddings: \\d+ nodes; search is hybrid`));
    assert.match((await runCli(['status', '--store', lexicalStore])).stdout, /embeddings: none \(search is lexical/);
  });
});
