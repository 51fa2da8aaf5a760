/**
 * Data tools end to end: the real CLI indexes the Hugr test server (test/hugr-server, standing in for Hugr, which
 * cannot be built here) with the service secret; the real `sextant serve` answers the official MCP client over
 * Streamable HTTP with a bearer token and over stdio with a configured token. The test server records every
 * request, so the tests see which identity reached it.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { buildSchema, graphql } from 'graphql';
import { callTool, connectHttp, connectStdio, hintChecker, indexInto, jsonOf, killAll, runCli, startHttpServer, tempDir, TOOL_NAMES, type Connection, type HttpServerProcess } from './helpers/e2e.js';
import { ADMIN_TOKEN, ANALYST_TOKEN, SECRET, startHarnessServer } from './hugr-server/fixture.js';
import type { HugrTestServer } from './hugr-server/server.js';
import { testStoreLocation } from './helpers/store.js';

const T = { timeout: 60000 };

async function workspace(url: string, data: string[]): Promise<{ dir: string; store: string }> {
  const dir = await tempDir('sextant-data-');
  await writeFile(
    join(dir, 'sextant.yaml'),
    ['sources:', '  - name: hugr', '    kind: graphql', `    endpoint: ${url}/query`, '    headers:', '      x-hugr-secret-key: ${HUGR_SECRET}', '    data:', ...data.map((d) => `      ${d}`), ''].join('\n'),
  );
  const store = await testStoreLocation(join(dir, '.sextant'));
  const r = await indexInto(dir, store);
  assert.equal(r.code, 0, r.stderr);
  return { dir, store };
}

after(async () => {
  await killAll();
});

describe('data tools against a Hugr platform', () => {
  let hugr: HugrTestServer;
  let ws: { dir: string; store: string };
  let server: HttpServerProcess;
  let analyst: Connection;
  const seen = () => hugr.requests.length;

  before(async () => {
    hugr = await startHarnessServer();
    process.env['HUGR_SECRET'] = SECRET;
    try {
      ws = await workspace(hugr.url, ['token: ${HUGR_USER_TOKEN}']);
    } finally {
      delete process.env['HUGR_SECRET'];
    }
    // Indexing used the service secret and nothing else.
    assert.ok(hugr.requests.length >= 2 && hugr.requests.every((r) => r.role === 'admin' && r.headers['authorization'] === undefined));
    // The server process has neither the secret nor a user token: data tools must use the caller's bearer.
    server = await startHttpServer(ws.store, 30000, { env: { HUGR_SECRET: undefined, HUGR_USER_TOKEN: undefined } });
    analyst = await connectHttp(server.url, { authorization: `Bearer ${ANALYST_TOKEN}` });
  }, { timeout: 120000 });

  after(async () => {
    await analyst?.close().catch(() => undefined);
    await server?.stop();
    await hugr?.close();
  });

  test('lists the data tools, read-only, without graphql_mutate', T, async () => {
    const { tools } = await analyst.client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [...TOOL_NAMES].sort());
    const query = tools.find((t) => t.name === 'graphql_query')!;
    assert.deepEqual([query.annotations?.readOnlyHint, query.annotations?.destructiveHint, query.annotations?.openWorldHint], [true, false, true]);
  });

  test('discovery: search by business words, describe a data object, walk modules to references', T, async () => {
    const found = await callTool(analyst.client, 'search', { query: 'sales by country', kinds: ['data_object'] });
    assert.equal(found.body['results'][0].node.qualified_name, 'sales.reports.sales_by_country');
    const orders = await callTool(analyst.client, 'describe', { id: 'sales.orders' });
    const p = orders.body['node'].properties;
    assert.deepEqual([p.graphql_path, p.filter_type, p.query_name], ['sales.orders', 'orders_filter', 'orders']);
    assert.deepEqual(p.queries.map((q: { name: string }) => q.name), ['orders', 'orders_aggregation', 'orders_bucket_aggregation', 'orders_by_pk']);
    assert.match(p.skeleton, /^query \(\$filter: orders_filter/);
    const module = await callTool(analyst.client, 'resolve', { identifier: 'sales', kind: 'module' });
    const contains = await callTool(analyst.client, 'neighbors', { ids: [module.body['node'].id], direction: 'out', edge_types: ['CONTAINS'], limit: 50 });
    assert.deepEqual(contains.body['edges'].map((e: { other: { qualified_name: string } }) => e.other.qualified_name).sort(), ['sales.customers', 'sales.order_status', 'sales.order_tags', 'sales.orders', 'sales.reprice_orders', 'sales.tags']);
    const refs = await callTool(analyst.client, 'neighbors', { ids: [orders.body['node'].id], direction: 'out', edge_types: ['REFERENCES'] });
    assert.deepEqual(refs.body['edges'].map((e: { other: { qualified_name: string }; attrs: { field: string } }) => `${e.attrs.field}->${e.other.qualified_name}`).sort(), ['customer->sales.customers', 'tags->sales.tags']);
  });

  test('graphql_query runs the skeleton as the caller: the token reached the server, the secret did not', T, async () => {
    // (The skeleton of orders selects total_with_tax, which an analyst may not see: the skeleton of tags is theirs.)
    const tags = await callTool(analyst.client, 'describe', { id: 'sales.tags' });
    const before = seen();
    const r = await callTool(analyst.client, 'graphql_query', { query: tags.body['node'].properties.skeleton, variables: { limit: 1, order_by: [{ field: 'name', direction: 'DESC' }] } });
    assert.equal(r.isError, false, JSON.stringify(r.body));
    assert.deepEqual(r.body['data'], { sales: { tags: [{ name: 'priority' }] } });
    assert.deepEqual([r.body['identity'], r.body['truncated'], r.body['operation'].type], ['caller', false, 'query']);
    const sent = hugr.requests.slice(before);
    assert.equal(sent.length, 1);
    assert.equal(sent[0]!.headers['authorization'], `Bearer ${ANALYST_TOKEN}`);
    assert.equal(sent[0]!.headers['x-hugr-secret-key'], undefined);
    assert.equal(sent[0]!.role, 'analyst');
  });

  test('a field the caller may not see stays hidden', T, async () => {
    // The analyst's view: checked against what the analyst's role sees, so it is never sent.
    const before = seen();
    const r = await callTool(analyst.client, 'graphql_query', { query: '{ sales { customers { id name } } }' });
    assert.equal(r.body['error'].code, 'invalid_query');
    assert.match(r.body['error'].message, /Cannot query field "name" on type "customers"/);
    assert.equal(hugr.requests.slice(before).filter((q) => !String(q.body['query']).includes('__schema') && !String(q.body['query']).includes('auth')).length, 0);
    const values = await callTool(analyst.client, 'field_values', { data_object: 'sales.orders', field: 'total_with_tax' });
    assert.equal(values.isError, true);
    assert.equal(values.body['error'].code, 'invalid_argument');
    assert.match(values.body['error'].message, /has no column `total_with_tax`/);
    assert.ok(!JSON.stringify(values.body['error']['allowed']).includes('total_with_tax'));
    assert.ok(!JSON.stringify(values.body).includes('132.55'));
  });

  test("discovery answers show the caller's view: the analyst never sees a hidden field, the admin does", T, async () => {
    const admin = await connectHttp(server.url, { authorization: `Bearer ${ADMIN_TOKEN}` });
    try {
      const a = await callTool(analyst.client, 'describe', { id: 'sales.orders' });
      const b = await callTool(admin.client, 'describe', { id: 'sales.orders' });
      assert.deepEqual(a.body['views'], [{ source: 'hugr', view: 'caller' }]);
      assert.ok(!JSON.stringify(a.body).includes('total_with_tax'));
      assert.ok(b.body['node'].properties.field_names.includes('total_with_tax'));
      assert.match(b.body['node'].properties.skeleton, /total_with_tax/);
      // The analyst's skeleton validates and runs for the analyst.
      const ran = await callTool(analyst.client, 'graphql_query', { query: a.body['node'].properties.skeleton });
      assert.equal(ran.body['ok'], true, JSON.stringify(ran.body));
      assert.equal(ran.body['errors'], undefined);
      for (const [who, c] of [['analyst', analyst], ['admin', admin]] as const) {
        const hits = await callTool(c.client, 'search', { query: 'total with tax' });
        const found = JSON.stringify(hits.body['results']).includes('total_with_tax');
        assert.equal(found, who === 'admin', `${who}: ${JSON.stringify(hits.body['results'])}`);
        const v = await callTool(c.client, 'graphql_validate', { query: '{ sales { orders { id total_with_tax } } }' });
        assert.equal(v.body['valid'], who === 'admin');
      }
      const fields = await callTool(analyst.client, 'find', { kind: 'field', filter: { parent_type: 'orders' }, limit: 200 });
      const all = await callTool(admin.client, 'find', { kind: 'field', filter: { parent_type: 'orders' }, limit: 200 });
      assert.equal(all.body['total'] - fields.body['total'], 1);
      assert.ok(!fields.body['results'].some((f: { name: string }) => f.name === 'total_with_tax'));
    } finally {
      await admin.close();
    }
  });

  test('mutations are refused by parsing and never sent; graphql_mutate is off', T, async () => {
    const before = seen();
    const r = await callTool(analyst.client, 'graphql_query', { query: 'mutation { sales { delete_orders(filter: {id: {eq: 10}}) { success } } }' });
    assert.equal(r.body['error'].code, 'not_read_only');
    assert.match(r.body['error'].message, /data\.allow_mutations: true/);
    const m = await callTool(analyst.client, 'graphql_mutate', { query: 'mutation { sales { delete_orders(filter: {id: {eq: 10}}) { success } } }' });
    assert.equal(m.body['error'].code, 'mutations_disabled');
    const sub = await callTool(analyst.client, 'graphql_query', { query: 'query A { __typename } mutation B { __typename }', operation_name: 'B' });
    assert.equal(sub.body['error'].code, 'not_read_only');
    const twin = await callTool(analyst.client, 'graphql_query', { query: 'query A { __typename } mutation A { __typename }', operation_name: 'A' });
    assert.deepEqual([twin.body['error'].code, /named `A`/.test(twin.body['error'].message)], ['invalid_query', true]);
    const big = await callTool(analyst.client, 'graphql_query', { query: 'query ($id: Int) { sales { orders_by_pk(id: $id) { id } } }', variables: '{"id": 12345678901234567891}' });
    assert.deepEqual([big.body['error'].argument, /as a string/.test(big.body['error'].message)], ['variables', true]);
    assert.equal(seen(), before);
    assert.equal(hugr.rows.get('orders')!.length, 5);
  });

  test('an answer over max_bytes is cut to valid JSON and says so', T, async () => {
    const r = await callTool(analyst.client, 'graphql_query', { query: '{ sales { orders { id amount created_at } } }', max_bytes: 150 });
    assert.equal(r.body['truncated'], true);
    assert.ok(r.body['original_bytes'] > 150);
    assert.ok(JSON.stringify({ data: r.body['data'] }).length <= 150);
    assert.deepEqual(r.body['cuts'], [{ path: 'data.sales.orders', kept: r.body['data'].sales.orders.length, total: 5 }]);
    assert.ok(r.body['data'].sales.orders.length < 5);
    const checker = hintChecker((await analyst.client.listTools()).tools);
    assert.ok(checker.check('graphql_query', r.body) >= 1);
    const bigger = r.body['hints'].find((h: { args: { max_bytes?: number } }) => h.args.max_bytes);
    const whole = await callTool(analyst.client, bigger.tool, bigger.args);
    assert.equal(whole.body['truncated'], false);
    assert.equal(whole.body['data'].sales.orders.length, 5);
  });

  test('jq runs here, never on the server: Hugr\'s jq (which can run other GraphQL) is refused', T, async () => {
    const before = seen();
    const r = await callTool(analyst.client, 'graphql_query', { query: '{ sales { orders { amount } } }', jq: '.data.sales.orders | map(.amount) | add' });
    assert.deepEqual([r.body['jq'], r.body['result']], ['local', 545.75]);
    assert.deepEqual(hugr.requests.slice(before).map((s) => [s.path, s.headers['authorization']]), [['/query', `Bearer ${ANALYST_TOKEN}`]]);
    const rootJq = await callTool(analyst.client, 'graphql_query', { query: 'query { ...J } fragment J on Query { jq(query: "queryHugr(\\"mutation { x }\\")") { __typename } }' });
    assert.deepEqual([rootJq.body['error'].code, rootJq.body['error'].argument], ['invalid_argument', 'query']);
    const varJq = await callTool(analyst.client, 'graphql_query', { query: '{ sales { orders { id } } }', variables: { _jq: 'queryHugr("mutation { x }")' } });
    assert.equal(varJq.body['error'].argument, 'variables');
    assert.equal(seen(), before + 1);
  });

  test('field_values: distinct values with real counts and statistics; filters apply', T, async () => {
    const r = await callTool(analyst.client, 'field_values', { data_object: 'sales.orders', field: 'customer_id' });
    assert.equal(r.isError, false, JSON.stringify(r.body));
    assert.deepEqual(r.body['values'], [{ value: 1, count: 3 }, { value: 2, count: 1 }, { value: 3, count: 1 }]);
    assert.deepEqual([r.body['distinct'], r.body['has_more']], [3, false]);
    assert.deepEqual(r.body['stats'], { rows: 5, non_null: 5, min: 1, max: 3, avg: 1.6, sum: 8 });
    const filtered = await callTool(analyst.client, 'field_values', { data_object: 'orders', field: 'customer_id', filter: { amount: { gt: 50 } } });
    assert.deepEqual(filtered.body['values'], [{ value: 1, count: 2 }, { value: 2, count: 1 }]);
    const wrong = await callTool(analyst.client, 'field_values', { data_object: 'sales.orders', field: 'custmer_id' });
    assert.deepEqual([wrong.body['error'].code, wrong.body['error'].did_you_mean], ['invalid_argument', ['customer_id']]);
    const relation = await callTool(analyst.client, 'field_values', { data_object: 'sales.orders', field: 'customer' });
    assert.match(relation.body['error'].message, /relation field, not a column/);
    const needsArgs = await callTool(analyst.client, 'field_values', { data_object: 'sales.orders', field: '_created_at_part' });
    assert.match(needsArgs.body['error'].message, /not a column/);
    assert.ok(!needsArgs.body['error'].allowed.includes('_created_at_part'));
    const none = await callTool(analyst.client, 'field_values', { data_object: 'sales.orders', field: 'customer_id', filter: { amount: { gt: 100000 } } });
    assert.deepEqual([none.body['values'], typeof none.body['absence'].reason], [[], 'string']);
  });

  test('graphql_validate: locations and did-you-mean, nothing sent', T, async () => {
    const before = seen();
    const r = await callTool(analyst.client, 'graphql_validate', { query: '{ sales { ordrs { id } } }' });
    assert.deepEqual([r.body['valid'], r.body['problems'][0].did_you_mean, r.body['problems'][0].locations], [false, ['orders'], [{ line: 1, column: 11 }]]);
    const ok = await callTool(analyst.client, 'graphql_validate', { query: '{ sales { orders { id } } }' });
    assert.equal(ok.body['valid'], true);
    const syntax = await callTool(analyst.client, 'graphql_validate', { query: '{ sales { orders { id }' });
    assert.deepEqual([syntax.body['valid'], syntax.body['problems'][0].locations[0].line], [false, 1]);
    assert.equal(seen(), before);
    const bad = await callTool(analyst.client, 'graphql_query', { query: '{ sales { ordrs { id } } }' });
    assert.equal(bad.body['error'].code, 'invalid_query');
    assert.equal(seen(), before);
  });

  test('a request without a bearer token is refused before anything is sent', T, async () => {
    const anonymous = await connectHttp(server.url);
    try {
      const before = seen();
      const r = await callTool(anonymous.client, 'graphql_query', { query: '{ sales { orders { id } } }' });
      assert.equal(r.body['error'].code, 'no_identity');
      assert.match(r.body['error'].message, /Authorization: Bearer/);
      assert.equal(seen(), before);
    } finally {
      await anonymous.close();
    }
  });

  test('stdio and the CLI run as the configured data.token', T, async () => {
    const stdio = await connectStdio(ws.store, { env: { HUGR_USER_TOKEN: ADMIN_TOKEN, HUGR_SECRET: undefined } });
    try {
      const before = seen();
      const r = await callTool(stdio.client, 'graphql_query', { query: '{ sales { customers(order_by: [{field: "id"}]) { name } } }' });
      assert.deepEqual(r.body['data'].sales.customers.map((c: { name: string }) => c.name), ['Ada', 'Grace', 'Linus']);
      assert.equal(r.body['identity'], 'configured');
      // The data query and learning the caller's view (introspection as the caller) carry the configured token only.
      const sent = hugr.requests.slice(before);
      assert.ok(sent.length >= 1 && sent.every((s) => s.headers['authorization'] === `Bearer ${ADMIN_TOKEN}` && s.headers['x-hugr-secret-key'] === undefined));
      assert.equal(sent.filter((s) => String(s.body['query']).includes('customers(order_by')).length, 1);
    } finally {
      await stdio.close();
    }
    const cli = await runCli(['call', 'field_values', JSON.stringify({ data_object: 'sales.orders', field: 'total_with_tax', limit: 2 }), '--store', ws.store], { env: { HUGR_USER_TOKEN: ADMIN_TOKEN } });
    assert.equal(cli.code, 0, cli.stdout + cli.stderr);
    const body = jsonOf(cli);
    assert.deepEqual([body['values'].length, body['has_more'], body['identity'], body['stats'].max], [2, true, 'configured', 330]);
    const none = await runCli(['call', 'graphql_query', JSON.stringify({ query: '{ sales { orders { id } } }' }), '--store', ws.store], { env: { HUGR_USER_TOKEN: undefined } });
    assert.equal(none.code, 1);
    assert.match(jsonOf(none)['error'].message, /`data.token` of source "hugr" uses `HUGR_USER_TOKEN`, which this process's environment does not set/);
  });
});

describe('field_values under a small data.max_bytes', () => {
  test('the values are cut to fit, say so, and keep their order', { timeout: 120000 }, async () => {
    const hugr = await startHarnessServer();
    try {
      process.env['HUGR_SECRET'] = SECRET;
      const small = await workspace(hugr.url, ['token: ${HUGR_USER_TOKEN}', 'max_bytes: 60']).finally(() => delete process.env['HUGR_SECRET']);
      const cli = await runCli(['call', 'field_values', JSON.stringify({ data_object: 'sales.orders', field: 'customer_id' }), '--store', small.store], { env: { HUGR_USER_TOKEN: ADMIN_TOKEN } });
      assert.equal(cli.code, 0, cli.stdout + cli.stderr);
      const body = jsonOf(cli);
      assert.deepEqual(body['values'], [{ value: 1, count: 3 }, { value: 2, count: 1 }]);
      assert.deepEqual([body['truncated'], body['cuts']], [true, [{ path: '.', kept: 2, total: 3 }]]);
      assert.equal(body['distinct'], 3);
    } finally {
      await hugr.close();
    }
  });
});

describe('graphql_mutate where mutations are allowed', () => {
  test('listed as destructive; runs as the caller; queries still cannot mutate', { timeout: 120000 }, async () => {
    const hugr = await startHarnessServer();
    process.env['HUGR_SECRET'] = SECRET;
    let ws: { dir: string; store: string };
    try {
      ws = await workspace(hugr.url, ['token: ${HUGR_USER_TOKEN}', 'allow_mutations: true']);
    } finally {
      delete process.env['HUGR_SECRET'];
    }
    const conn = await connectStdio(ws.store, { env: { HUGR_USER_TOKEN: ADMIN_TOKEN } });
    try {
      const { tools } = await conn.client.listTools();
      const mutate = tools.find((t) => t.name === 'graphql_mutate');
      assert.ok(mutate);
      assert.deepEqual([mutate.annotations?.readOnlyHint, mutate.annotations?.destructiveHint], [false, true]);
      const r = await callTool(conn.client, 'graphql_mutate', { query: 'mutation ($t: String) { sales { insert_tags(data: {name: $t}) { name } } }', variables: { t: 'fragile' } });
      assert.equal(r.isError, false, JSON.stringify(r.body));
      assert.deepEqual(r.body['data'], { sales: { insert_tags: { name: 'fragile' } } });
      assert.ok(hugr.rows.get('tags')!.some((t) => t['name'] === 'fragile'));
      assert.equal(hugr.requests.at(-1)!.headers['authorization'], `Bearer ${ADMIN_TOKEN}`);
      const q = await callTool(conn.client, 'graphql_query', { query: 'mutation { sales { delete_tags(filter: {}) { success } } }' });
      assert.match(q.body['error'].message, /Send it with graphql_mutate/);
    } finally {
      await conn.close();
      await hugr.close();
    }
  });
});

describe('data tools against a generic GraphQL endpoint (no Hugr extensions)', () => {
  let api: Server;
  let url: string;
  const auth: (string | undefined)[] = [];
  before(async () => {
    const schema = buildSchema('type Book { title: String! year: Int } type Query { books(first: Int = 10): [Book!]! }');
    const books = [{ title: 'Dune', year: 1965 }, { title: 'Solaris', year: 1961 }, { title: 'Neuromancer', year: 1984 }];
    api = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', async () => {
        auth.push(req.headers['authorization']);
        const { query, variables } = JSON.parse(body) as { query: string; variables?: Record<string, unknown> };
        const result = await graphql({ schema, source: query, rootValue: { books: ({ first }: { first: number }) => books.slice(0, first) }, ...(variables ? { variableValues: variables } : {}) });
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
      });
    });
    await new Promise<void>((r) => api.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(api.address() as AddressInfo).port}/graphql`;
  });
  after(async () => {
    api.closeAllConnections();
    await new Promise<void>((r) => api.close(() => r()));
  });

  test('indexed without a Hugr model; query, local jq and validate work as the caller', { timeout: 120000 }, async () => {
    const dir = await tempDir('sextant-generic-');
    await writeFile(join(dir, 'sextant.yaml'), ['sources:', '  - name: books', '    kind: graphql', `    endpoint: ${url}`, '    data:', '      token: ${BOOKS_TOKEN}', ''].join('\n'));
    const store = await testStoreLocation(join(dir, '.sextant'));
    const r = await indexInto(dir, store);
    assert.equal(r.code, 0, r.stderr);
    const conn = await connectStdio(store, { env: { BOOKS_TOKEN: 'reader-1' } });
    try {
      const kinds = await callTool(conn.client, 'find', { kind: 'data_object' });
      assert.equal(kinds.body['total'], 0);
      auth.length = 0;
      const q = await callTool(conn.client, 'graphql_query', { query: 'query ($n: Int) { books(first: $n) { title year } }', variables: { n: 2 }, jq: '[.data.books[] | select(.year > 1962) | .title]' });
      assert.deepEqual([q.body['jq'], q.body['result']], ['local', ['Dune']]);
      assert.deepEqual(auth, ['Bearer reader-1']);
      const v = await callTool(conn.client, 'graphql_validate', { query: '{ books { titel } }' });
      assert.deepEqual([v.body['valid'], v.body['problems'][0].did_you_mean], [false, ['title']]);
      const jqError = await callTool(conn.client, 'graphql_query', { query: '{ books { title } }', jq: '.data[' });
      assert.equal(jqError.body['error'].argument, 'jq');
      assert.match(jqError.body['error'].message, /syntax error/);
    } finally {
      await conn.close();
    }
  });
});
