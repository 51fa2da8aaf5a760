/**
 * `graphql_query` with `format: table`, end to end: the real CLI indexes the Hugr test server twice, as a Hugr
 * source (tables read from its Arrow endpoint, /ipc) and as a generic GraphQL source (`flavor: generic`: tables
 * converted from the JSON answer); `sextant serve` answers the official MCP client over stdio. The same queries
 * must give the same tables both ways. Hugr's own Python client (hugr-client) reads the test server's /ipc answers,
 * so the imitation cannot drift from Hugr's wire format; the real Hugr's two
 * endpoints are compared the same way.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { decodeIpc, splitMultipart, wkbToGeoJson } from '../src/query/data/ipc.js';
import { fitTables, type ResultTable } from '../src/query/data/table.js';
import { callTool, connectStdio, hintChecker, indexInto, killAll, REPO_ROOT, tempDir, type Connection, type HintChecker } from './helpers/e2e.js';
import { comparable, compareIpcWithJson } from './helpers/ipc-compare.js';
import { ADMIN_TOKEN, HARNESS_ROWS, SECRET, startHarnessServer } from './hugr-server/fixture.js';
import { geoJsonToWkb } from './hugr-server/ipc.js';
import type { HugrTestServer } from './hugr-server/server.js';
import { testStoreLocation } from './helpers/store.js';

const T = { timeout: 60000 };

/** Orders with geometry (the harness SDL's `orders.area`), so geometry crosses both endpoints. */
const AREAS = [
  { type: 'Point', coordinates: [30, 10] },
  { type: 'Polygon', coordinates: [[[0, 0], [4, 0], [4, 3], [0, 0]], [[1, 1], [2, 1], [2, 2], [1, 1]]] },
  { type: 'MultiLineString', coordinates: [[[10, 10], [20, 20]], [[40, 40], [30, 30]]] },
  null,
  { type: 'GeometryCollection', geometries: [{ type: 'Point', coordinates: [4, 6] }, { type: 'LineString', coordinates: [[4, 6], [7, 10]] }] },
];
const ROWS = { ...HARNESS_ROWS, orders: HARNESS_ROWS['orders']!.map((o, i) => ({ ...o, area: AREAS[i] ?? null })) };

/** Lists, nested rows through relations, geometry top level and nested, objects, an empty list, a bucket aggregation. */
const QUERY = `{ sales {
  orders(order_by: [{field: "id"}]) { id amount created_at area customer { id name } }
  customers(order_by: [{field: "id"}]) { id name orders(order_by: [{field: "id"}]) { id area } }
  orders_aggregation { _rows_count amount { sum max } }
  customers_by_pk(id: 2) { id name }
  missing: customers_by_pk(id: 99) { id name }
  none: orders(filter: {id: {eq: 999}}) { id amount }
  orders_bucket_aggregation { key { customer_id } aggregations { _rows_count } }
} }`;

after(async () => {
  await killAll();
});

describe('graphql_query format: table', () => {
  let hugr: HugrTestServer;
  let conn: Connection;
  let store: string;
  let hints: HintChecker;

  before(async () => {
    hugr = await startHarnessServer({ rows: ROWS });
    const dir = await tempDir('sextant-table-');
    const source = (name: string, extra: string[]) => [`  - name: ${name}`, '    kind: graphql', `    endpoint: ${hugr.url}/query`, ...extra, '    headers:', '      x-hugr-secret-key: ${HUGR_SECRET}', '    data:', '      token: ${HUGR_USER_TOKEN}'];
    await writeFile(join(dir, 'sextant.yaml'), ['sources:', ...source('hugr', []), ...source('plain', ['    flavor: generic']), ''].join('\n'));
    store = await testStoreLocation(join(dir, '.sextant'));
    process.env['HUGR_SECRET'] = SECRET;
    try {
      await indexInto(dir, store);
    } finally {
      delete process.env['HUGR_SECRET'];
    }
    conn = await connectStdio(store, { env: { HUGR_USER_TOKEN: ADMIN_TOKEN, HUGR_SECRET: undefined } });
    hints = hintChecker((await conn.client.listTools()).tools);
  }, { timeout: 120000 });

  after(async () => {
    await conn?.close().catch(() => undefined);
    await hugr?.close();
  });

  const table = (tables: ResultTable[], path: string) => tables.find((t) => t.path === path)!;

  test('the same query from /ipc and from JSON agree row for row', T, async () => {
    const ipc = await callTool(conn.client, 'graphql_query', { query: QUERY, source: 'hugr', format: 'table' });
    assert.equal(ipc.isError, false, JSON.stringify(ipc.body));
    assert.deepEqual([hugr.requests.at(-1)!.path, hugr.requests.at(-1)!.headers['authorization']], ['/ipc', `Bearer ${ADMIN_TOKEN}`]);
    const json = await callTool(conn.client, 'graphql_query', { query: QUERY, source: 'plain', format: 'table' });
    assert.equal(json.isError, false, JSON.stringify(json.body));
    assert.equal(hugr.requests.at(-1)!.path, '/query');
    assert.deepEqual([ipc.body['via'], json.body['via'], ipc.body['format']], ['ipc', 'json', 'table']);
    assert.deepEqual(ipc.body['tables'], json.body['tables']);

    const tables = ipc.body['tables'] as ResultTable[];
    assert.deepEqual(
      tables.map((t) => [t.path, t.row_count]),
      [['sales.orders', 5], ['sales.customers', 3], ['sales.orders_aggregation', 1], ['sales.customers_by_pk', 1], ['sales.missing', 0], ['sales.none', 0], ['sales.orders_bucket_aggregation', 3]],
    );
    const orders = table(tables, 'sales.orders');
    assert.deepEqual(orders.columns, ['id', 'amount', 'created_at', 'area', 'customer']);
    assert.deepEqual(orders.rows[0], [10, 120.5, '2026-01-05T10:00:00Z', AREAS[0], { id: 1, name: 'Ada' }]);
    assert.deepEqual(orders.rows.map((r) => r[3]), AREAS);
    assert.deepEqual(table(tables, 'sales.customers').rows[0], [1, 'Ada', [{ id: 10, area: AREAS[0] }, { id: 11, area: AREAS[1] }, { id: 14, area: AREAS[4] }]]);
    assert.deepEqual(table(tables, 'sales.orders_aggregation'), { path: 'sales.orders_aggregation', columns: ['_rows_count', 'amount'], row_count: 1, rows: [[5, { sum: 545.75, max: 300 }]] });
    assert.deepEqual(table(tables, 'sales.customers_by_pk').rows, [[2, 'Grace']]);
    assert.deepEqual(table(tables, 'sales.none'), { path: 'sales.none', columns: ['id', 'amount'], row_count: 0, rows: [] });
    assert.deepEqual(table(tables, 'sales.missing').columns, ['id', 'name']);
    assert.deepEqual(table(tables, 'sales.orders_bucket_aggregation').rows[0], [{ customer_id: 1 }, { _rows_count: 3 }]);

    // Both are GraphQL's own answer, as rows.
    const plain = await callTool(conn.client, 'graphql_query', { query: QUERY, source: 'hugr' });
    const data = plain.body['data'].sales;
    assert.deepEqual(orders.rows, data.orders.map((o: Record<string, unknown>) => orders.columns.map((c) => o[c])));
    const rowsQuery = '{ sales { orders { id customer_id amount total_with_tax created_at } } }';
    const asTable = await callTool(conn.client, 'graphql_query', { query: rowsQuery, source: 'hugr', format: 'table' });
    const asJson = await callTool(conn.client, 'graphql_query', { query: rowsQuery, source: 'hugr' });
    assert.ok(asTable.body['bytes'] < 0.75 * asJson.body['bytes'], `a table (${asTable.body['bytes']} bytes) is smaller than the JSON answer (${asJson.body['bytes']})`);
  });

  test('GraphQL errors pass through; an answer with errors only has no tables', T, async () => {
    // Valid against the schema, refused by the server: a variable of the wrong type.
    const query = 'query ($n: Int) { sales { tags(limit: $n) { name } } }';
    for (const source of ['hugr', 'plain']) {
      const r = await callTool(conn.client, 'graphql_query', { query, variables: { n: 'many' }, source, format: 'table' });
      assert.equal(r.isError, false, JSON.stringify(r.body));
      assert.deepEqual(r.body['tables'], []);
      assert.match(JSON.stringify(r.body['errors']), /Variable \\"\$n\\" got invalid value \\"many\\"/);
      assert.equal(r.body['identity'], 'configured');
    }
  });

  test('max_bytes drops whole rows from the end of the largest table and says how many', T, async () => {
    const query = '{ sales { orders(order_by: [{field: "id"}]) { id amount created_at area } customers(order_by: [{field: "id"}]) { id } } }';
    const whole = await callTool(conn.client, 'graphql_query', { query, source: 'hugr', format: 'table' });
    const cut = await callTool(conn.client, 'graphql_query', { query, source: 'hugr', format: 'table', max_bytes: 420 });
    assert.equal(cut.isError, false, JSON.stringify(cut.body));
    assert.equal(cut.body['truncated'], true);
    assert.ok(cut.body['bytes'] <= 420, `bytes ${cut.body['bytes']}`);
    assert.equal(cut.body['original_bytes'], whole.body['bytes']);
    const [orders, customers] = cut.body['tables'] as ResultTable[];
    const [allOrders] = whole.body['tables'] as ResultTable[];
    assert.ok(orders!.rows.length < 5 && orders!.rows.length > 0);
    assert.deepEqual(orders!.rows, allOrders!.rows.slice(0, orders!.rows.length), 'the rows kept are whole and in order');
    assert.equal(orders!.rows_dropped, 5 - orders!.rows.length);
    assert.equal(orders!.row_count, 5);
    assert.deepEqual([customers!.rows.length, customers!.rows_dropped], [3, undefined], 'the smaller table keeps its rows');
    assert.equal(cut.body['rows_dropped'], orders!.rows_dropped);
    assert.equal(hints.check('graphql_query', cut.body), 1);
    assert.ok(cut.body['hints'][0].args.max_bytes > 420);
    assert.match(cut.body['hints'][0].reason, /rows? w(ere|as) left out/);
  });

  test('format: a strict enum with a teaching error; table does not take jq', T, async () => {
    const bad = await callTool(conn.client, 'graphql_query', { query: '{ sales { tags { name } } }', source: 'hugr', format: 'csv' });
    assert.equal(bad.body['error'].code, 'bad_enum_value');
    assert.equal(bad.body['error'].argument, 'format');
    assert.deepEqual(bad.body['error'].allowed, ['json', 'table']);
    assert.match(bad.body['error'].message, /Allowed: json, table/);
    const near = await callTool(conn.client, 'graphql_query', { query: '{ sales { tags { name } } }', source: 'hugr', format: 'tabel' });
    assert.deepEqual(near.body['error'].did_you_mean, ['table']);
    const upper = await callTool(conn.client, 'graphql_query', { query: '{ sales { tags(order_by: [{field: "name"}]) { name } } }', source: 'hugr', format: 'TABLE' });
    assert.deepEqual(upper.body['tables'], [{ path: 'sales.tags', columns: ['name'], row_count: 2, rows: [['gift'], ['priority']] }]);
    const jq = await callTool(conn.client, 'graphql_query', { query: '{ sales { tags { name } } }', source: 'hugr', format: 'table', jq: '.data' });
    assert.equal(jq.body['error'].code, 'invalid_argument');
    assert.equal(jq.body['error'].argument, 'jq');
    assert.match(jq.body['error'].message, /format: table/);
    const json = await callTool(conn.client, 'graphql_query', { query: '{ sales { tags(order_by: [{field: "name"}]) { name } } }', source: 'hugr', format: 'json' });
    assert.deepEqual(json.body['data'], { sales: { tags: [{ name: 'gift' }, { name: 'priority' }] } });
  });

  test("Hugr's Python client reads the test server's /ipc answers as Sextant does", T, async () => {
    const queries = [QUERY, '{ sales { none: orders(filter: {id: {eq: 999}}) { id } } }', '{ sales { no_such_field { id } } }'];
    const python = await runPython(join(REPO_ROOT, 'test/python/hugr_read.py'), { url: `${hugr.url}/ipc`, secret: SECRET, queries });
    const ours = await compareIpcWithJson(hugr.url, { 'x-hugr-secret-key': SECRET }, queries);
    // Several paths: tables and objects, read alike.
    const read = python[0] as { parts: { path: string; kind: string; columns?: string[]; rows?: unknown[][]; value?: unknown }[]; errors: unknown[] };
    const answer = ours[0]!.ipc.answer;
    assert.deepEqual(read.parts.filter((p) => p.kind === 'table').map((p) => ({ path: p.path.replace(/^data\./, ''), columns: p.columns, rows: p.rows })), answer.tables);
    assert.deepEqual(read.parts.filter((p) => p.kind === 'object').map((p) => ({ path: p.path.replace(/^data\./, ''), value: p.value })), answer.objects);
    assert.deepEqual(read.parts.map((p) => p.path), ['data.sales.orders', 'data.sales.customers', 'data.sales.orders_aggregation', 'data.sales.customers_by_pk', 'data.sales.missing', 'data.sales.orders_bucket_aggregation']);
    assert.deepEqual(read.errors, []);
    // An empty list: no part at all, as Hugr writes it.
    assert.deepEqual(python[1], { parts: [], errors: [] });
    assert.deepEqual(ours[1]!.ipc.tables, [{ path: 'sales.none', columns: ['id'], row_count: 0, rows: [] }]);
    // Errors only: the client refuses the answer with them.
    assert.match((python[2] as { raised: string }).raised, /GraphQL errors: .*Cannot query field .*no_such_field/);
    assert.deepEqual(ours[2]!.ipc.errors, ours[2]!.json.errors);
    for (const c of ours) assert.deepEqual(comparable(c.ipc.tables), comparable(c.json.tables), c.query);
  });
});

describe('the /ipc reader', () => {
  test('multipart framing: parts, an answer without parts, a broken answer', () => {
    const body = Buffer.from('--HUGR\r\nContent-Type: application/json\r\nX-Hugr-Format: object\r\nX-Hugr-Part-Type: data\r\nX-Hugr-Path: data.a.b\r\n\r\n{"x":1}\n\r\n--HUGR\r\nX-Hugr-Part-Type: errors\r\nX-Hugr-Format: object\r\n\r\n[{"message":"m"}]\n\r\n--HUGR--\r\n');
    assert.equal(splitMultipart(body, 'HUGR').length, 2);
    assert.deepEqual(decodeIpc(body, 'multipart/mixed; boundary=HUGR'), { tables: [], objects: [{ path: 'a.b', value: { x: 1 } }], errors: [{ message: 'm' }], hasData: true });
    assert.deepEqual(decodeIpc(Buffer.from('\r\n--HUGR--\r\n'), 'multipart/mixed; boundary=HUGR'), { tables: [], objects: [], errors: [], hasData: false });
    assert.throws(() => decodeIpc(Buffer.from('--HUGR\r\nX-Hugr-Part-Type: data\r\n\r\n{"x"'), 'multipart/mixed; boundary=HUGR'), /not closed/);
    assert.throws(() => decodeIpc(Buffer.from('{}'), 'application/json'), /not multipart/);
  });

  test('WKB to GeoJSON: every kind, 2D and Z, ISO and EWKB, empty points; bad WKB is refused', () => {
    const kinds = [
      ...AREAS.filter((a) => a !== null),
      { type: 'LineString', coordinates: [[1, 2, 3], [4, 5, 6]] },
      { type: 'MultiPoint', coordinates: [[10, 40], [40, 30]] },
      { type: 'MultiPolygon', coordinates: [[[[30, 20], [45, 40], [10, 40], [30, 20]]], [[[15, 5], [40, 10], [10, 20], [5, 10], [15, 5]]]] },
      { type: 'Point', coordinates: [1, 2, 3] },
    ];
    for (const g of kinds) assert.deepEqual(wkbToGeoJson(geoJsonToWkb(g)), g);
    // PostGIS EWKB, big-endian: POINT Z with SRID 4326.
    const ewkb = Buffer.alloc(1 + 4 + 4 + 24);
    ewkb.writeUInt8(0, 0);
    ewkb.writeUInt32BE((0x80000000 | 0x20000000 | 1) >>> 0, 1);
    ewkb.writeUInt32BE(4326, 5);
    [1.5, 2.5, 3.5].forEach((v, i) => ewkb.writeDoubleBE(v, 9 + i * 8));
    assert.deepEqual(wkbToGeoJson(ewkb), { type: 'Point', coordinates: [1.5, 2.5, 3.5] });
    // POINT M (ISO 2001): the M ordinate is dropped.
    const m = Buffer.alloc(5 + 24);
    m.writeUInt8(1, 0);
    m.writeUInt32LE(2001, 1);
    [1, 2, 9].forEach((v, i) => m.writeDoubleLE(v, 5 + i * 8));
    assert.deepEqual(wkbToGeoJson(m), { type: 'Point', coordinates: [1, 2] });
    const empty = Buffer.alloc(21);
    empty.writeUInt8(1, 0);
    empty.writeUInt32LE(1, 1);
    empty.writeDoubleLE(NaN, 5);
    empty.writeDoubleLE(NaN, 13);
    assert.deepEqual(wkbToGeoJson(empty), { type: 'Point', coordinates: [] });
    assert.throws(() => wkbToGeoJson(geoJsonToWkb(AREAS[1]!).subarray(0, 20)), /ends early|counts more/);
    const huge = Buffer.alloc(9);
    huge.writeUInt8(1, 0);
    huge.writeUInt32LE(2, 1);
    huge.writeUInt32LE(0xffffffff, 5);
    assert.throws(() => wkbToGeoJson(huge), /counts more elements than it holds/);
  });

  test('fitting tables: whole rows off the largest table first, until it is no longer the largest', () => {
    const rows = (n: number, w: number) => Array.from({ length: n }, (_, i) => [i, 'x'.repeat(w)]);
    const answer = { tables: [{ path: 'a', columns: ['i', 's'], row_count: 4, rows: rows(4, 10) }, { path: 'b', columns: ['i', 's'], row_count: 10, rows: rows(10, 50) }] as ResultTable[] };
    const full = Buffer.byteLength(JSON.stringify(answer));
    const { cut, fits } = fitTables(answer, full - 300);
    assert.deepEqual([cut, fits], [true, true]);
    assert.ok(Buffer.byteLength(JSON.stringify(answer)) <= full - 300);
    assert.deepEqual(answer.tables.map((t) => [t.rows.length, t.rows_dropped]), [[4, undefined], [4, 6]]);
    assert.deepEqual(answer.tables[1]!.rows, rows(4, 50));
    // No more than needed: one row more would not fit.
    const oneMore = { tables: [answer.tables[0]!, { ...answer.tables[1]!, rows: rows(5, 50), rows_dropped: 5 }] };
    assert.ok(Buffer.byteLength(JSON.stringify(oneMore)) > full - 300);
    assert.deepEqual(Object.keys(answer.tables[1]!), ['path', 'columns', 'row_count', 'rows_dropped', 'rows']);
    const none = { tables: [{ path: 'a', columns: ['i'], row_count: 1, rows: [[1]] }] as ResultTable[], errors: ['e'.repeat(500)] };
    assert.deepEqual(fitTables(none, 100), { cut: true, fits: false });
    assert.deepEqual(none.tables[0]!.rows, []);
  });
});

/** Runs a Python script with JSON on stdin; its stdout is JSON. Fails, saying what to install, when it cannot run. */
function runPython(script: string, input: unknown): Promise<unknown[]> {
  const install = 'python3 -m pip install hugr-client';
  return new Promise((resolve, reject) => {
    const child = spawn('python3', [script], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.once('error', (e) => reject(new Error(`python3 could not be started (${e.message}): install Python 3, then \`${install}\``)));
    child.once('close', (code) => {
      if (code === 3) return reject(new Error(`${err.trim()} — run \`${install}\``));
      if (code !== 0) return reject(new Error(`${script} exited ${code}: ${err.slice(-2000)}`));
      try {
        resolve(JSON.parse(out) as unknown[]);
      } catch {
        reject(new Error(`${script} did not print JSON: ${out.slice(0, 500)}`));
      }
    });
    child.stdin.end(JSON.stringify(input));
  });
}
