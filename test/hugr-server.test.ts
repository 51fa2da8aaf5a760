import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ADMIN_TOKEN, ANALYST_TOKEN, SECRET, startHarnessServer } from './hugr-server/fixture.js';
import type { HugrTestServer } from './hugr-server/server.js';

// The test server is the contract the data tools are tested against (a real Hugr cannot be built here): these
// tests pin what it does, so a mistake in it cannot make a data-tool test pass by accident.
describe('Hugr test server', () => {
  let server: HugrTestServer;
  before(async () => {
    server = await startHarnessServer();
  });
  after(async () => {
    await server.close();
  });
  const post = async (body: unknown, headers: Record<string, string>, path = '/query') => {
    const res = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    return { status: res.status, json: (await res.json()) as { data?: Record<string, unknown>; errors?: { message: string }[] } };
  };
  const admin = { 'x-hugr-secret-key': SECRET };

  test('introspection carries the Hugr extension fields', async () => {
    const { json } = await post({ query: '{ __type(name: "orders") { name hugr_type module catalog fields { name hugr_type field_kind mcp_exclude } } }' }, admin);
    const t = json.data!['__type'] as { hugr_type: string; module: string; catalog: string; fields: { name: string; field_kind: string }[] };
    assert.deepEqual([t.hugr_type, t.module, t.catalog], ['table', 'sales', 'test']);
    assert.equal(t.fields.find((f) => f.name === 'customer')!.field_kind, 'relation');
    const probe = await post({ query: '{ __type(name: "__Type") { fields { name } } }' }, admin);
    assert.ok((probe.json.data!['__type'] as { fields: { name: string }[] }).fields.some((f) => f.name === 'hugr_type'));
  });

  test('select with filter, order and page; aggregation; bucket aggregation', async () => {
    const q = '{ sales { orders(filter: {customer_id: {eq: 1}}, order_by: [{field: "amount", direction: DESC}], limit: 2) { id amount } orders_aggregation { _rows_count amount { sum max } } orders_bucket_aggregation { key { customer_id } aggregations { _rows_count } } } }';
    const { json } = await post({ query: q }, admin);
    const sales = json.data!['sales'] as Record<string, unknown>;
    assert.deepEqual(sales['orders'], [{ id: 14, amount: 300 }, { id: 10, amount: 120.5 }]);
    assert.deepEqual(sales['orders_aggregation'], { _rows_count: 5, amount: { sum: 545.75, max: 300 } });
    assert.deepEqual(sales['orders_bucket_aggregation'], [
      { key: { customer_id: 1 }, aggregations: { _rows_count: 3 } },
      { key: { customer_id: 2 }, aggregations: { _rows_count: 1 } },
      { key: { customer_id: 3 }, aggregations: { _rows_count: 1 } },
    ]);
  });

  test('meta queries answer the logical model in Hugr\'s shapes', async () => {
    const q = '{ root: _catalog { name modules { name dataObjects { name } modules { name } } } tags: _dataObject(name: "order_tags") { name type primaryKey properties { isM2M } } orders: _dataObject(name: "orders") { primaryKey relations { direction kind fieldName dataObject { name } through { name } sourceKeys destinationKeys } } none: _dataObject(name: "Query") { name } ds: _dataSources { name engine readOnly } }';
    const { json } = await post({ query: q }, admin);
    assert.equal(json.errors, undefined, JSON.stringify(json.errors));
    const d = json.data as Record<string, any>;
    assert.deepEqual(d['root'], { name: '', modules: [{ name: 'sales', dataObjects: [{ name: 'customers' }, { name: 'order_tags' }, { name: 'orders' }, { name: 'tags' }], modules: [{ name: 'sales.reports' }] }] });
    assert.deepEqual(d['tags'], { name: 'order_tags', type: 'TABLE', primaryKey: ['order_id', 'tag_name'], properties: { isM2M: true } });
    assert.deepEqual(d['orders'].relations.find((r: { fieldName: string }) => r.fieldName === 'tags'), { direction: 'FORWARD', kind: 'M2M', fieldName: 'tags', dataObject: { name: 'tags' }, through: { name: 'order_tags' }, sourceKeys: ['id'], destinationKeys: ['order_id'] });
    assert.equal(d['none'], null);
    const more = await post({ query: '{ fn: _function(module: "sales", name: "reprice_orders") { name type isTable moduleName dataSourceName returns { name } } s: _search(query: "order", kinds: [DATA_OBJECT, FUNCTION]) { items { kind name moduleName score } lexical hasMore } types: _types { name } }' }, admin);
    assert.equal(more.json.errors, undefined, JSON.stringify(more.json.errors));
    const m = more.json.data as Record<string, any>;
    assert.deepEqual(m['fn'], { name: 'reprice_orders', type: 'MUTATION', isTable: true, moduleName: 'sales', dataSourceName: 'test', returns: { name: 'customers' } });
    assert.deepEqual(m['s'].items.map((h: { kind: string; name: string }) => `${h.kind}:${h.name}`), ['DATA_OBJECT:order_tags', 'DATA_OBJECT:orders', 'FUNCTION:order_status', 'FUNCTION:reprice_orders']);
    assert.equal(m['s'].lexical, true);
    assert.ok(Array.isArray(m['types']));
    assert.deepEqual(d['ds'], [{ name: 'test', engine: 'duckdb', readOnly: false }]);
  });

  test('identity: secret, bearer token roles, refusals; hidden fields', async () => {
    assert.equal((await post({ query: '{ __typename }' }, {})).status, 401);
    assert.equal((await post({ query: '{ __typename }' }, { authorization: 'Bearer nope' })).status, 401);
    const asAdmin = await post({ query: '{ sales { customers { name } } }' }, { authorization: `Bearer ${ADMIN_TOKEN}` });
    assert.equal((asAdmin.json.data!['sales'] as { customers: unknown[] }).customers.length, 3);
    const asAnalyst = await post({ query: '{ sales { customers { name } } }' }, { authorization: `Bearer ${ANALYST_TOKEN}` });
    assert.match(asAnalyst.json.errors![0]!.message, /Cannot query field "name" on type "customers"/);
    const seen = await post({ query: '{ __type(name: "customers") { fields { name } } }' }, { authorization: `Bearer ${ANALYST_TOKEN}` });
    assert.deepEqual((seen.json.data!['__type'] as { fields: { name: string }[] }).fields.map((f) => f.name).filter((n) => !n.startsWith('_')).sort(), ['customer_orders', 'customer_orders_aggregation', 'customer_orders_bucket_aggregation', 'id', 'orders', 'orders_aggregation', 'orders_bucket_aggregation']);
    assert.equal(server.requests.at(-1)!.role, 'analyst');
  });
});
