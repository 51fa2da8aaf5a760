/**
 * Against the real Hugr (v0.3.41, built from source by ../shared/hugr-server/; see test/helpers/real-hugr.ts):
 * indexing with the secret reads Hugr's extension fields and its core catalog, and every tool answers each caller
 * with what that caller's role may see, over the official MCP client on Streamable HTTP with two RS256 bearer
 * tokens (analyst, admin) and on stdio with a configured token. Nothing here is imitated.
 */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { callTool, connectHttp, connectStdio, indexInto, jsonOf, killAll, runCli, startHttpServer, tempDir, type Connection, type HttpServerProcess } from './helpers/e2e.js';
import { REAL_SECRET, startRealHugr, type RealHugr } from './helpers/real-hugr.js';
import { comparable, compareIpcWithJson, REAL_SHOP_QUERIES } from './helpers/ipc-compare.js';
import { askOf, assertRealHugrCatalog } from './helpers/hugr-real-catalog.js';
import { sourceSchemas } from '../src/sources/graphql/hugr/catalog.js';
import { EMBEDDING_MODEL, startEmbeddingServer, type EmbeddingServer } from './helpers/embedding-server.js';

const T = { timeout: 120_000 };

describe('the real Hugr', () => {
  let hugr: RealHugr;
  let dir: string;
  let store: string;
  let indexOutput: string;
  let server: HttpServerProcess;
  let analyst: Connection;
  let admin: Connection;
  let embeddings: EmbeddingServer;

  before(async () => {
    [hugr, embeddings] = await Promise.all([startRealHugr(), startEmbeddingServer()]);
    dir = await tempDir('sextant-real-');
    // With embeddings (a real model, test/embedding-server), so every search below runs hybrid by default: what a
    // role hides must stay hidden from vectors too.
    await writeFile(
      join(dir, 'sextant.yaml'),
      ['sources:', '  - name: hugr', '    kind: graphql', `    endpoint: ${hugr.url}`, '    headers:', '      x-hugr-secret-key: ${HUGR_SECRET}', '    data:', '      token: ${HUGR_USER_TOKEN}', 'embeddings:', `  endpoint: ${embeddings.url}`, `  model: ${EMBEDDING_MODEL}`, ''].join('\n'),
    );
    store = join(dir, '.sextant');
    process.env['HUGR_SECRET'] = REAL_SECRET;
    try {
      // The embedding pass makes ~750 vectors on a CPU: more than indexInto's default wait.
      const r = await runCli(['index', dir, '--store', store], { timeoutMs: 600_000 });
      assert.equal(r.code, 0, r.stderr);
      indexOutput = r.stdout + r.stderr;
    } finally {
      delete process.env['HUGR_SECRET'];
    }
    // The server process has neither the secret nor a user token: it can only ever send the caller's.
    server = await startHttpServer(store, 30_000, { env: { HUGR_SECRET: undefined, HUGR_USER_TOKEN: undefined } });
    analyst = await connectHttp(server.url, { authorization: `Bearer ${hugr.tokenFor('analyst', 'ann')}` });
    admin = await connectHttp(server.url, { authorization: `Bearer ${hugr.tokenFor('admin', 'root')}` });
  }, { timeout: 900_000 });

  after(async () => {
    await analyst?.close().catch(() => undefined);
    await admin?.close().catch(() => undefined);
    await server?.stop();
    await hugr?.close();
    await embeddings?.close();
    await killAll();
  });

  test('indexing with the secret reads Hugr: extension fields, modules, data objects, relations', T, async () => {
    // Hugr v0.3.41 lists __InputValue.isDeprecated but cannot resolve it: only that part of the query is dropped.
    assert.match(indexOutput, /read it without argument deprecation/);
    assert.doesNotMatch(indexOutput, /Hugr's introspection extensions/);
    const root = await callTool(admin.client, 'find', { kind: 'module', filter: { is_root: true } });
    assert.deepEqual(root.body['results'].map((n: any) => [n.attributes.hugr_model_from, n.attributes.hugr_generation]), [['introspection', 'v0.3']]);
    const objects = await callTool(admin.client, 'find', { kind: 'data_object', filter: { data_source: 'shop' } });
    assert.deepEqual(
      objects.body['results'].map((n: any) => [n.qualified_name, n.attributes.type_name, n.attributes.query_name, n.attributes.object_kind, n.attributes.primary_key]),
      [
        ['shop.customers', 'shop_customers', 'customers', 'table', ['id']],
        ['shop.orders', 'shop_orders', 'orders', 'table', ['id']],
      ],
    );
    // The core catalog's facts: the data source exactly as registered, original names behind the prefix.
    const ds = (await callTool(admin.client, 'find', { kind: 'data_source', filter: { prefix: 'shop' } })).body['results'];
    assert.deepEqual(ds.map((d: any) => [d.name, d.attributes.engine, d.attributes.as_module, d.attributes.read_only, d.attributes.inferred]), [['shop', 'duckdb', true, false, false]]);
    const originals = await Promise.all(['shop.customers', 'shop.orders'].map(async (id) => (await callTool(admin.client, 'describe', { id })).body['node'].properties.original_name));
    assert.deepEqual(originals, ['customers', 'orders']);
    const byOriginal = await callTool(admin.client, 'find', { kind: 'data_object', filter: { original_name: 'orders' } });
    assert.deepEqual(byOriginal.body['results'].map((n: any) => n.qualified_name), ['shop.orders']);
    const refs = await callTool(admin.client, 'neighbors', { ids: objects.body['results'].map((n: any) => n.id), direction: 'out', edge_types: ['REFERENCES'] });
    assert.deepEqual(
      refs.body['edges'].map((e: any) => [e.attrs.field, e.other.qualified_name, e.attrs.relation_kind, e.attrs.source_fields, e.attrs.target_fields]).sort(),
      [
        ['customer', 'shop.customers', 'many_to_one', ['customer_id'], ['id']],
        ['orders', 'shop.orders', 'one_to_many', ['id'], ['customer_id']],
      ],
    );
  });

  test('the core catalog reader (catalog.ts): data sources, keys, original names and relations, batched', T, async () => {
    await assertRealHugrCatalog(hugr.url, REAL_SECRET);
    // One source it will not describe (Hugr's own `core`) fails the whole answer there: each is asked again alone.
    const { ask, sent } = askOf(hugr.url, REAL_SECRET);
    const schemas = await sourceSchemas(ask, ['core', 'shop']);
    assert.deepEqual([...schemas.keys()], ['shop']);
    assert.match(schemas.get('shop')!, /type orders @table\(name: "orders"\)/);
    assert.equal(sent.length, 3);
  });

  test('the analyst is shown only what the analyst may see; the admin sees everything', T, async () => {
    const seenBy = async (c: Connection) => (await callTool(c.client, 'describe', { id: 'shop.customers' })).body;
    const a = await seenBy(analyst);
    const b = await seenBy(admin);
    assert.deepEqual(a['views'], [{ source: 'hugr', view: 'caller', role: 'analyst' }]);
    assert.deepEqual(b['views'], [{ source: 'hugr', view: 'caller', role: 'admin' }]);
    for (const hidden of ['email', 'tier']) {
      assert.ok(!JSON.stringify(a['node']).includes(hidden), `the analyst's describe mentions ${hidden}`);
      assert.ok(b['node'].properties.field_names.includes(hidden));
      assert.match(b['node'].properties.skeleton, new RegExp(`\\b${hidden}\\b`));
    }
    // Search, find and neighbors: the hidden fields (and their filter, aggregation and input twins) are absent.
    for (const query of ['email', 'tier', 'contact address']) {
      const hits = await callTool(analyst.client, 'search', { query });
      assert.ok(!JSON.stringify(hits.body['results']).match(/\b(email|tier)\b/), `search ${query}: ${JSON.stringify(hits.body['results'])}`);
      const adminHits = await callTool(admin.client, 'search', { query });
      assert.ok(adminHits.body['results'].length > 0, `admin search ${query}`);
    }
    const fields = await callTool(analyst.client, 'find', { kind: 'field', filter: { parent_type: 'shop_customers' }, limit: 100 });
    assert.ok(!fields.body['results'].some((f: any) => ['email', 'tier'].includes(f.name)));
    const adminFields = await callTool(admin.client, 'find', { kind: 'field', filter: { parent_type: 'shop_customers' }, limit: 100 });
    assert.equal(adminFields.body['total'] - fields.body['total'], 2);
    const filterType = (await callTool(analyst.client, 'describe', { id: 'shop_customers_filter' })).body['node'].id;
    const ty = await callTool(analyst.client, 'neighbors', { ids: [filterType], direction: 'out', edge_types: ['HAS_FIELD'], limit: 100 });
    assert.ok(ty.body['edges'].length > 0 && !ty.body['edges'].some((e: any) => ['email', 'tier'].includes(e.other.name)));
    // A hidden field by its qualified name is not there at all (not "forbidden").
    const gone = await callTool(analyst.client, 'describe', { id: 'shop_customers.email' });
    assert.equal(gone.isError, true);
    assert.ok(!JSON.stringify(gone.body).includes('"forbidden"'));
  });

  test('semantic search, its scores and fields_query never show the analyst a field the role hides', T, async () => {
    const hidden = /\b(email|tier)\b/;
    const adminSaw = new Set<string>();
    for (const mode of ['semantic', 'hybrid']) {
      for (const query of ['customer email address', 'customer loyalty tier', 'how to contact a customer']) {
        const a = await callTool(analyst.client, 'search', { query, mode, limit: 50, explain: true });
        assert.equal(a.body['ok'], true, JSON.stringify(a.body));
        assert.equal(a.body['mode'], mode);
        assert.ok(a.body['results'].length > 0);
        assert.ok(!JSON.stringify(a.body['results']).match(hidden), `${mode} ${query}: ${JSON.stringify(a.body['results']).slice(0, 400)}`);
        const b = await callTool(admin.client, 'search', { query, mode, limit: 50 });
        for (const m of JSON.stringify(b.body['results']).match(new RegExp(hidden, 'g')) ?? []) adminSaw.add(m);
      }
    }
    assert.deepEqual([...adminSaw].sort(), ['email', 'tier'], 'the same searches show the admin both fields');
    // The admin's nearest field to an email question is the email column; the analyst's list has no trace of it.
    const adminTop = await callTool(admin.client, 'search', { query: 'customer email address', mode: 'semantic', kinds: ['field'], limit: 3 });
    assert.ok(adminTop.body['results'].some((r: any) => r.node.qualified_name === 'shop_customers.email'), JSON.stringify(adminTop.body['results']));
    // The data object ranks the same for both: its vector is made from nothing a role hides.
    const objectFor = async (c: Connection) => (await callTool(c.client, 'search', { query: 'shop customers', mode: 'semantic', kinds: ['data_object'], limit: 5 })).body['results'].map((r: any) => [r.node.qualified_name, r.score]);
    assert.deepEqual(await objectFor(analyst), await objectFor(admin));
    const fieldsFor = async (c: Connection) => {
      const r = await callTool(c.client, 'search', { query: 'shop customers', kinds: ['data_object'], fields_query: 'email contact and tier', fields_limit: 50, limit: 5 });
      return r.body['results'].find((x: any) => x.node.qualified_name === 'shop.customers').fields.map((f: any) => f.name);
    };
    const analystFields = await fieldsFor(analyst);
    const adminFields = await fieldsFor(admin);
    assert.ok(!analystFields.some((f: string) => hidden.test(f)), analystFields.join(', '));
    assert.ok(adminFields.includes('email') && adminFields.includes('tier'), adminFields.join(', '));
  });

  test('every skeleton the analyst is shown runs for the analyst', T, async () => {
    for (const id of ['shop.customers', 'shop.orders']) {
      const d = await callTool(analyst.client, 'describe', { id });
      const skeleton = d.body['node'].properties.skeleton as string;
      const valid = await callTool(analyst.client, 'graphql_validate', { query: skeleton });
      assert.equal(valid.body['valid'], true, JSON.stringify(valid.body['problems']));
      const ran = await callTool(analyst.client, 'graphql_query', { query: skeleton });
      assert.equal(ran.body['ok'], true, JSON.stringify(ran.body));
      assert.equal(ran.body['errors'], undefined, JSON.stringify(ran.body['errors']));
      assert.equal(ran.body['identity'], 'caller');
    }
  });

  test('graphql_validate and field_values answer as the caller', T, async () => {
    const q = '{ shop { customers { id email } } }';
    assert.equal((await callTool(admin.client, 'graphql_validate', { query: q })).body['valid'], true);
    const v = await callTool(analyst.client, 'graphql_validate', { query: q });
    assert.equal(v.body['valid'], false);
    assert.match(v.body['problems'][0].message, /Cannot query field "email" on type "shop_customers"/);
    const tiers = await callTool(admin.client, 'field_values', { data_object: 'shop.customers', field: 'tier' });
    assert.deepEqual(tiers.body['values'], [{ value: 'gold', count: 2 }, { value: 'silver', count: 1 }]);
    const refused = await callTool(analyst.client, 'field_values', { data_object: 'shop.customers', field: 'tier' });
    assert.equal(refused.body['error'].code, 'invalid_argument');
    assert.ok(!JSON.stringify(refused.body['error'].allowed).includes('tier'));
    const statuses = await callTool(analyst.client, 'field_values', { data_object: 'shop.orders', field: 'status' });
    assert.deepEqual(statuses.body['values'], [{ value: 'shipped', count: 2 }, { value: 'pending', count: 1 }]);
  });

  test('graphql_query runs as the caller: the analyst cannot read what the role disables', T, async () => {
    const rows = await callTool(admin.client, 'graphql_query', { query: '{ shop { customers(order_by: [{field: "id"}]) { id email orders { id amount } } } }' });
    assert.deepEqual(rows.body['data'].shop.customers.map((c: any) => [c.id, c.email, (c.orders ?? []).length]), [
      [1, 'ada@example.com', 2],
      [2, 'brook@example.com', 1],
      [3, null, 0],
    ]);
    const refused = await callTool(analyst.client, 'graphql_query', { query: '{ shop { customers { id email } } }' });
    assert.equal(refused.body['error'].code, 'invalid_query');
  });

  test("format: table reads the real /ipc answer, and it agrees with the JSON answer row for row", T, async () => {
    const compared = await compareIpcWithJson(hugr.url.replace(/\/query$/, '/'), { 'x-hugr-secret-key': REAL_SECRET }, REAL_SHOP_QUERIES);
    for (const c of compared) {
      assert.deepEqual(comparable(c.ipc.tables), comparable(c.json.tables), c.query);
      assert.deepEqual(c.ipc.errors, c.json.errors, c.query);
    }
    assert.ok(compared[0]!.ipc.tables[0]!.row_count === 3, 'the shop has three customers');
    assert.ok(compared.at(-1)!.ipc.errors?.length, 'a bad query answers with errors');
    // Through the tool, as the caller: the admin's table from /ipc, the analyst refused the disabled column.
    const q = '{ shop { orders(order_by: [{field: "id"}]) { id amount status customer { name } } } }';
    const table = await callTool(admin.client, 'graphql_query', { query: q, format: 'table' });
    assert.equal(table.body['via'], 'ipc');
    const json = await callTool(admin.client, 'graphql_query', { query: q });
    assert.deepEqual(table.body['tables'][0].rows.map((r: unknown[]) => r.slice(0, 3)), json.body['data'].shop.orders.map((o: any) => [o.id, o.amount, o.status]));
    const analystTable = await callTool(analyst.client, 'graphql_query', { query: '{ shop { customers { id email } } }', format: 'table' });
    assert.equal(analystTable.body['error'].code, 'invalid_query');
  });

  test('refresh over MCP reads again only the data source that changed, with the service credential', { timeout: 300_000 }, async () => {
    // Only a server started with --allow-refresh offers it (and only such a server holds the secret).
    assert.ok(!(await admin.client.listTools()).tools.some((t) => t.name === 'refresh'));
    const refresher = await startHttpServer(store, 30_000, { args: ['--allow-refresh', '--config', join(dir, 'sextant.yaml')], env: { HUGR_SECRET: REAL_SECRET, HUGR_USER_TOKEN: undefined } });
    const conn = await connectHttp(refresher.url, { authorization: `Bearer ${hugr.tokenFor('admin', 'root')}` });
    try {
      assert.ok((await conn.client.listTools()).tools.some((t) => t.name === 'refresh'));
      const same = await callTool(conn.client, 'refresh', {});
      assert.deepEqual([same.body['written'], same.body['mode']], ['unchanged', 'unchanged']);
      const missing = await callTool(conn.client, 'refresh', { data_source: 'shoop' });
      assert.equal(missing.body['error'].code, 'not_found');
      assert.match(missing.body['error'].message, /Did you mean `shop`/);

      await hugr.extendShop('"Orders over 50."\ntype big_orders @view(name: "big_orders", sql: "SELECT id, customer_id, amount FROM orders WHERE amount > 50") {\n  id: Int! @pk\n  customer_id: Int!\n  amount: Float\n}');
      const r = await callTool(conn.client, 'refresh', { data_object: 'shop.orders' });
      assert.equal(r.body['ok'], true, JSON.stringify(r.body));
      assert.deepEqual([r.body['mode'], r.body['data_sources'], r.body['asked']], ['targeted', ['shop'], ['shop']]);
      assert.ok(r.body['types_added'].includes('shop_big_orders'), JSON.stringify(r.body['types_added']));
      assert.ok(r.body['types_read'] < 100, `read ${r.body['types_read']} types again`);
      // Every later answer sees it, and the index equals what reading the whole schema gives.
      const d = await callTool(admin.client, 'describe', { id: 'shop.big_orders' });
      assert.equal(d.body['node'].properties.object_kind, 'view');
      // What the refresh added or changed was embedded with it; the rest of the source was not asked again.
      const space = jsonOf(await runCli(['status', '--json', '--store', store]))['embeddings'];
      assert.ok(r.body['embeddings'].embedded >= 1 && r.body['embeddings'].embedded < space.embedded / 4, `${JSON.stringify(r.body['embeddings'])} of ${space.embedded}`);
      assert.equal(r.body['embeddings'].missing, 0);
      const big = await callTool(admin.client, 'search', { query: 'large orders', mode: 'semantic', kinds: ['data_object'], limit: 3 });
      assert.ok(big.body['results'].some((x: any) => x.node.qualified_name === 'shop.big_orders'), JSON.stringify(big.body['results']));
      // The same workspace without embeddings: the graph is what matters here.
      const plain = await tempDir('sextant-real-plain-');
      await writeFile(join(plain, 'sextant.yaml'), (await readFile(join(dir, 'sextant.yaml'), 'utf8')).replace(/embeddings:[\s\S]*$/, ''));
      const fresh = join(plain, 'fresh');
      process.env['HUGR_SECRET'] = REAL_SECRET;
      try {
        assert.equal((await indexInto(plain, fresh)).code, 0);
      } finally {
        delete process.env['HUGR_SECRET'];
      }
      const statuses = await Promise.all([store, fresh].map(async (s) => jsonOf(await runCli(['status', '--json', '--store', s]))));
      assert.deepEqual(
        statuses.map((st) => [st['sources'][0].content_hash, st['counts'].nodes, st['counts'].edges]),
        [0, 1].map(() => [statuses[1]!['sources'][0].content_hash, statuses[1]!['counts'].nodes, statuses[1]!['counts'].edges]),
      );
    } finally {
      await conn.close();
      await refresher.stop();
    }
  });

  test('on stdio the configured token is the caller; without one nothing of the source is shown', T, async () => {
    const stdio = await connectStdio(store, { env: { HUGR_USER_TOKEN: hugr.tokenFor('analyst', 'ann'), HUGR_SECRET: undefined } });
    try {
      const d = await callTool(stdio.client, 'describe', { id: 'shop.customers' });
      assert.deepEqual(d.body['views'], [{ source: 'hugr', view: 'caller', role: 'analyst' }]);
      assert.ok(!JSON.stringify(d.body['node']).includes('email'));
    } finally {
      await stdio.close();
    }
    const none = await runCli(['call', 'find', JSON.stringify({ kind: 'data_object' }), '--store', store], { env: { HUGR_USER_TOKEN: undefined, HUGR_SECRET: undefined } });
    const body = jsonOf(none);
    assert.deepEqual([body['total'], body['views'][0].view], [0, 'none']);
    assert.match(body['views'][0].reason, /HUGR_USER_TOKEN/);
  });
});
