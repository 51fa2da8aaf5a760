/**
 * The code graph through the two real surfaces: `sextant index` + `sextant call` (child processes), and the
 * official MCP SDK client over stdio. Same fixture and expectations as code-estate.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, callTool, childEnv, connectStdio, indexInto, jsonOf, killAll, runCli, tempDir, type Connection } from './helpers/e2e.js';
import { ESTATE, IMPACT_CASES, impactSets } from './helpers/estate.js';

const O = 'com.acme.orders.';
let storeDir: string;

before(async () => {
  storeDir = await tempDir('sextant-code-e2e-');
  const r = await indexInto(ESTATE, storeDir);
  assert.match(r.stdout, /estate: \d+ nodes, \d+ edges/);
  assert.match(r.stderr, /BrokenOrderImporter\.java/, 'the file with syntax errors is reported');
});
after(killAll);

async function cli(tool: string, args: Record<string, unknown>): Promise<Record<string, any>> {
  const r = await runCli(['call', tool, JSON.stringify(args), '--store', storeDir]);
  assert.equal(r.code, 0, r.stderr + r.stdout);
  return jsonOf(r);
}

async function idOf(qn: string): Promise<string> {
  const r = await cli('resolve', { identifier: qn, kind: 'symbol' });
  assert.equal(r.status, 'one', JSON.stringify(r));
  return r.node.id;
}

describe('code graph through sextant call', () => {
  test('callers of an interface method, through injected interfaces and chained calls', async () => {
    const r = await cli('neighbors', { ids: [await idOf(`${O}api.PaymentHandler#handle(OrderDto)`)], direction: 'in', edge_types: ['CALLS'] });
    assert.deepEqual(r.edges.map((e: any) => e.other.qualified_name).sort(), [`${O}api.PaymentHandler#handle(OrderDto,int)`, `${O}service.OrderService#place(CreateOrderRequest,String)`]);
    const place = r.edges.find((e: any) => e.other.qualified_name.includes('place'));
    assert.equal(place.attrs.strategy, 'chained');
    assert.equal(place.attrs.line, 49);
  });

  test('implementations, overrides and roles', async () => {
    const impls = await cli('neighbors', { ids: await idOf(`${O}api.PaymentHandler`), direction: 'in', edge_types: 'IMPLEMENTS' });
    assert.deepEqual(impls.edges.map((e: any) => e.other.name).sort(), ['CardPaymentHandler', 'InvoicePaymentHandler', 'PaymentRouter$1', 'PaypalPaymentHandler']);
    const over = await cli('neighbors', { ids: await idOf(`${O}pricing.SeasonalPricer#price(OrderDto)`), direction: 'out', edge_types: ['OVERRIDES'] });
    assert.deepEqual(over.edges.map((e: any) => e.other.qualified_name), [`${O}pricing.DiscountPricer#price(OrderDto)`]);
    const repos = await cli('find', { kind: 'symbol', filter: { role: 'REPOSITORY' } });
    assert.deepEqual(repos.results.map((n: any) => n.name).sort(), ['InMemoryInvoiceStore', 'OrderRepository', 'StockItemRepository']);
  });

  test('routes a service exposes, and the handler behind one', async () => {
    const r = await cli('find', { kind: 'route', filter: { service: 'inventory' } });
    assert.deepEqual(r.results.map((n: any) => n.qualified_name).sort(), ['inventory GET /stock/{sku}', 'inventory POST /stock/{sku}/reservations']);
    const handler = await cli('neighbors', { ids: [r.results.find((n: any) => n.name === 'GET /stock/{sku}').id], direction: 'in', edge_types: ['EXPOSES'] });
    assert.deepEqual(handler.edges.map((e: any) => e.other.qualified_name), ['com.acme.inventory.StockController#level(String)']);
  });

  test('impact, grouped by service and depth (an exact qualified name stands for the id)', async () => {
    const [seed, expected] = IMPACT_CASES[1]!;
    const r = await cli('impact', { ids: [seed], depth: 5 });
    assert.deepEqual(impactSets(r), expected);
  });

  test('trace of a request from one service into another, end to end', async () => {
    const r = await cli('trace', { from: 'order-service POST /orders' });
    assert.deepEqual(r.services.map((s: any) => s.service), ['order-service', 'billing-service']);
    assert.deepEqual(r.crossings.map((c: any) => `${c.edge_type} ${c.route.qualified_name}`), ['ASYNC_CALLS billing-service kafka orders.events', 'HTTP_CALLS billing-service POST /invoices']);
    assert.equal(r.hops.at(-1).to.qualified_name, 'com.acme.billing.web.InvoiceController#create(CreateInvoiceRequest)');
  });

  test('a bad edge type is a usage-level tool error with exit 1', async () => {
    const r = await runCli(['call', 'impact', JSON.stringify({ ids: ['x'], edge_types: ['CALS'] }), '--store', storeDir]);
    assert.equal(r.code, 1);
    assert.match(r.stdout + r.stderr, /CALLS/);
  });
});

describe('code graph through the MCP client (stdio)', () => {
  let conn: Connection;
  before(async () => {
    conn = await connectStdio(storeDir);
  });
  after(async () => conn?.close());

  const call = async (name: string, args: Record<string, unknown>) => {
    const a = await callTool(conn.client, name, args);
    assert.equal(a.isError, false, JSON.stringify(a.body));
    return a.body;
  };
  const id = async (qn: string) => (await call('resolve', { identifier: qn })).node.id as string;

  test('injections: declared types and the beans they resolve to', async () => {
    const r = await call('neighbors', { ids: [await id(`${O}payment.PaymentRouter`)], direction: 'out', edge_types: ['INJECTS'] });
    assert.deepEqual(
      r.edges.map((e: any) => `${e.other.name} ${e.attrs.mechanism} ${e.attrs.member} ${e.attrs.strategy}`).sort(),
      [
        'CardPaymentHandler constructor cardHandler qualifier',
        'CardPaymentHandler constructor handlers collection',
        'InvoicePaymentHandler constructor handlers collection',
        'PaymentHandler constructor cardHandler declared_type',
        'PaymentHandler constructor handlers declared_type',
        'PaymentHandler field defaultHandler declared_type',
        'PaypalPaymentHandler constructor handlers collection',
        'PaypalPaymentHandler field defaultHandler primary',
      ],
    );
  });

  test('callers across a Java → Kotlin boundary and an unresolved call site', async () => {
    const r = await call('neighbors', { ids: [await id('com.acme.billing.core.BillingUtilsKt#totalWithTax(Invoice)')], direction: 'in', edge_types: ['CALLS'] });
    assert.deepEqual(r.edges.map((e: any) => e.other.qualified_name).sort(), ['com.acme.billing.core.InvoiceService#issue(String,List)', 'com.acme.billing.web.LegacyInvoiceExporter#export(Invoice)']);
    const out = await call('neighbors', { ids: [await id(`${O}service.OrderService#cancel(Long)`)], direction: 'out', edge_types: ['CALLS'], filter: { name: 'ifPresent' } });
    assert.equal(out.edges.length, 1);
    assert.equal(out.edges[0].other.kind, 'unresolved_call');
    assert.equal(out.edges[0].attrs.strategy, 'unresolved');
    const described = await call('describe', { id: await id(`${O}service.OrderService#cancel(Long)`) });
    assert.equal(described.node.edges.CALLS.out, 3);
  });

  test('trace over MCP: the shortest path from a route to the handler in another service', async () => {
    const r = await call('trace', { from: 'order-service POST /orders', to: 'com.acme.billing.web.InvoiceController#create(CreateInvoiceRequest)' });
    assert.equal(r.length, 9);
    assert.deepEqual(r.paths[0].services, ['order-service', 'billing-service']);
    assert.deepEqual(r.paths[0].hops.filter((h: any) => h.to.service !== 'order-service').map((h: any) => `${h.edge_type} ${h.to.qualified_name}`), ['HTTP_CALLS billing-service POST /invoices', 'EXPOSES com.acme.billing.web.InvoiceController#create(CreateInvoiceRequest)']);
  });

  test('impact over MCP', async () => {
    const [seed, expected] = IMPACT_CASES[0]!;
    const r = await call('impact', { ids: [await id(seed)], depth: 5 });
    assert.deepEqual(impactSets(r), expected);
  });
});

describe('index --watch', () => {
  test('keeps the index fresh while files change, and every answer says how fresh it is', async () => {
    const work = await tempDir('sextant-watch-');
    const root = join(work, 'estate');
    cpSync(ESTATE, root, { recursive: true });
    const store = join(work, 'store');
    const child = spawn(process.execPath, [BIN, 'index', root, '--store', store, '--watch'], { env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const waitFor = async (what: () => boolean | Promise<boolean>, label: string, ms = 30000) => {
      const until = Date.now() + ms;
      while (!(await what())) {
        if (Date.now() > until) assert.fail(`timed out waiting for ${label}; stderr:\n${stderr}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    };
    try {
      await waitFor(() => stderr.includes('watching for changes'), 'the watcher');
      const before = jsonOf(await runCli(['call', 'resolve', JSON.stringify({ identifier: `${O}payment.CashPaymentHandler` }), '--store', store]));
      assert.equal(before.status, 'none');
      assert.equal(typeof before.index.updated_at, 'string');
      assert.equal(typeof before.index.age_seconds, 'number');
      writeFileSync(
        join(root, 'orders/orders-app/src/main/java/com/acme/orders/payment/CashPaymentHandler.java'),
        'package com.acme.orders.payment;\n\nimport com.acme.orders.api.OrderDto;\nimport com.acme.orders.api.PaymentHandler;\nimport com.acme.orders.api.PaymentResult;\n\n@org.springframework.stereotype.Component\npublic class CashPaymentHandler implements PaymentHandler {\n    public boolean supports(String m) { return false; }\n    public PaymentResult handle(OrderDto o) { return PaymentResult.declined("cash"); }\n}\n',
      );
      await waitFor(async () => jsonOf(await runCli(['call', 'resolve', JSON.stringify({ identifier: `${O}payment.CashPaymentHandler` }), '--store', store])).status === 'one', 'the new class');
      assert.match(stderr, /index updated in \d+ ms/);
      const impls = jsonOf(await runCli(['call', 'neighbors', JSON.stringify({ ids: [(await idOfIn(store, `${O}api.PaymentHandler`))], direction: 'in', edge_types: ['IMPLEMENTS'] }), '--store', store]));
      assert.equal(impls.edges.length, 5);
      // A second writer does not wait for a watcher (it would wait until it timed out): it is told at once.
      const second = await runCli(['index', root, '--store', store]);
      assert.equal(second.code, 1, second.stdout + second.stderr);
      assert.match(second.stderr, /kept up to date by pid \d+ \(`sextant index .* --watch`.*Stop it/);
    } finally {
      child.kill('SIGINT');
      await new Promise((r) => child.once('close', r));
    }
  });
});

describe('index --watch on a hostile tree', () => {
  test('a link loop and a link to / are not walked: the watcher stays up and sees changes', async () => {
    const work = await tempDir('sextant-watch-links-');
    const root = join(work, 'estate');
    const java = join(root, 'svc/src/main/java/p');
    mkdirSync(java, { recursive: true });
    writeFileSync(join(root, 'svc/build.gradle.kts'), 'plugins { id("org.springframework.boot") }\n');
    writeFileSync(join(java, 'App.java'), 'package p;\npublic class App {}\n');
    symlinkSync('..', join(root, 'svc/src/loop'));
    symlinkSync('/', join(root, 'svc/everything'));
    const store = join(work, 'store');
    const child = spawn(process.execPath, [BIN, 'index', root, '--store', store, '--watch'], { env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let exited: number | null = null;
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.once('exit', (code) => (exited = code ?? -1));
    const waitFor = async (what: () => boolean | Promise<boolean>, label: string, ms = 30000) => {
      const until = Date.now() + ms;
      while (!(await what())) {
        if (exited !== null) assert.fail(`the watcher exited (${exited}) waiting for ${label}; stderr:\n${stderr}`);
        if (Date.now() > until) assert.fail(`timed out waiting for ${label}; stderr:\n${stderr}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    };
    try {
      await waitFor(() => stderr.includes('watching for changes'), 'the watcher');
      writeFileSync(join(java, 'Added.java'), 'package p;\npublic class Added {}\n');
      await waitFor(async () => jsonOf(await runCli(['call', 'resolve', JSON.stringify({ identifier: 'p.Added' }), '--store', store])).status === 'one', 'the new class');
      assert.equal(exited, null, stderr);
      assert.doesNotMatch(stderr, /ELOOP|EACCES.*\n\s+at /);
    } finally {
      child.kill('SIGINT');
      await new Promise((r) => child.once('close', r));
    }
  });
});

async function idOfIn(store: string, qn: string): Promise<string> {
  const r = jsonOf(await runCli(['call', 'resolve', JSON.stringify({ identifier: qn }), '--store', store]));
  return r.node.id;
}
