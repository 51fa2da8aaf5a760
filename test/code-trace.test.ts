/**
 * `trace` on the multi-service fixture (test/fixtures/estate): the request flow from a route, a handler and a
 * service, shortest paths between two nodes, and the errors. Real parsing, the real SQLite store, the real tool.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sextantOntology } from '../src/graph/ontology/index.js';
import type { Store } from '../src/graph/store.js';
import { openTestStore } from './helpers/store.js';
import { buildWorkspace } from '../src/indexer/build.js';
import { runTool } from '../src/query/index.js';
import { ESTATE, estateSource } from './helpers/estate.js';

const ontology = sextantOntology();
const O = 'com.acme.orders.';
const B = 'com.acme.billing.';
let dir: string;
let store: Store;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sextant-trace-'));
  const writer = await openTestStore(ontology, dir, { mode: 'write' });
  await buildWorkspace(writer, ontology, { dir: ESTATE, sources: [estateSource()] });
  await writer.close();
  store = await openTestStore(ontology, dir, { mode: 'read' });
});
after(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function trace(args: Record<string, unknown>): Promise<any> {
  const r = (await runTool({ store, ontology }, 'trace', args)) as any;
  assert.equal(r.ok, true, JSON.stringify(r.error));
  // Road signs are data: every hint is a call that succeeds as it is.
  for (const h of r.hints) {
    const followed = (await runTool({ store, ontology }, h.tool, h.args)) as any;
    assert.equal(followed.ok, true, `hint ${JSON.stringify(h)}: ${JSON.stringify(followed.error)}`);
  }
  return r;
}

const hopLines = (r: any): string[] => r.hops.map((h: any) => `${h.depth} ${h.edge_type} ${h.to.qualified_name}`);

/** The expected flow of `POST /orders`, pruned to what leads out of order-service, and where it lands. */
const POST_ORDERS_FLOW = [
  `1 EXPOSES ${O}web.OrderController#createOrder(CreateOrderRequest)`,
  `2 CALLS ${O}service.OrderService#place(CreateOrderRequest)`,
  `3 CALLS ${O}service.OrderService#place(CreateOrderRequest,String)`,
  `4 CALLS ${O}api.PaymentHandler#handle(OrderDto)`,
  `4 CALLS ${O}messaging.OrderEventsPublisher#publishPaid(OrderDto)`,
  `5 OVERRIDES ${O}payment.InvoicePaymentHandler#handle(OrderDto)`,
  `5 DECLARES_PRODUCER order-service -> kafka orders.events`,
  `6 CALLS ${O}client.BillingClient#createInvoice(InvoiceRequest)`,
  `6 ASYNC_CALLS billing-service kafka orders.events`,
  `7 DECLARES_CLIENT order-service -> billing-service POST /invoices`,
  `7 EXPOSES ${B}web.OrderEventsConsumer#onOrderPaid(OrderDto)`,
  `8 HTTP_CALLS billing-service POST /invoices`,
  `9 EXPOSES ${B}web.InvoiceController#create(CreateInvoiceRequest)`,
];

describe('trace: the request flow', () => {
  test('from a route written as people write it: handler, dispatch to the implementation, client and producer, the remote routes and their handlers', async () => {
    const r = await trace({ from: 'order-service POST /orders' });
    assert.equal(r.mode, 'flow');
    assert.equal(r.from.qualified_name, 'order-service POST /orders');
    assert.deepEqual(hopLines(r), POST_ORDERS_FLOW);
    assert.deepEqual(r.services, [{ service: 'order-service', depth: 0 }, { service: 'billing-service', depth: 6 }]);
    assert.deepEqual(
      r.crossings.map((c: any) => `${c.from_service} -> ${c.to_service} ${c.edge_type} ${c.route.qualified_name} ${c.match} ${c.confidence}`),
      ['order-service -> billing-service ASYNC_CALLS billing-service kafka orders.events cross_service 0.9', 'order-service -> billing-service HTTP_CALLS billing-service POST /invoices cross_service 0.9'],
    );
    // Each hop names the node it comes from, so the tree can be rebuilt.
    const ids = new Set([r.from.id, ...r.hops.map((h: any) => h.to.id)]);
    for (const h of r.hops) assert.ok(ids.has(h.from), `hop to ${h.to.qualified_name} comes from a node of the trace`);
    assert.equal(r.has_more, false);
    assert.ok(r.pruned > 0, 'local calls that lead nowhere remote are pruned');
    assert.deepEqual(r.hints[0], { tool: 'describe', args: { id: r.crossings[0].route.id }, reason: 'the billing-service route this request reaches, with its other callers' });
  });

  test('prune: false shows the local calls too; max_breadth and max_depth bound it and say so', async () => {
    const full = await trace({ from: 'order-service POST /orders', prune: false });
    assert.ok(full.hops.length > POST_ORDERS_FLOW.length);
    for (const line of POST_ORDERS_FLOW) assert.ok(hopLines(full).includes(line), line);
    assert.ok(hopLines(full).includes(`4 CALLS ${O}repo.OrderRepository#save(Object)`) || hopLines(full).some((l) => l.includes('OrderMapper')), 'local detail is there');
    const shallow = await trace({ from: 'order-service POST /orders', max_depth: 3, prune: false });
    assert.equal(Math.max(...shallow.hops.map((h: any) => h.depth)), 3);
    assert.equal(shallow.depth_cut, true);
    assert.equal(shallow.has_more, true);
    assert.deepEqual(shallow.hints.find((h: any) => h.reason.includes('deeper'))?.args, { from: 'order-service POST /orders', max_depth: 6, prune: false });
    const narrow = await trace({ from: 'order-service POST /orders', max_breadth: 1, prune: false });
    assert.ok(narrow.breadth_cut.length > 0);
    assert.ok(narrow.breadth_cut.every((c: any) => c.followed === 1 && c.total > 1));
  });

  test('from a handler method (its qualified name) and from a service (its declared routes)', async () => {
    const fromHandler = await trace({ from: `${O}web.OrderController#createOrder(CreateOrderRequest)` });
    assert.deepEqual(hopLines(fromHandler), POST_ORDERS_FLOW.slice(1).map((l) => l.replace(/^(\d+)/, (d) => String(Number(d) - 1))));
    const fromService = await trace({ from: 'order-service' });
    assert.deepEqual(fromService.roots.map((n: any) => n.qualified_name), ['order-service GET /orders/open', 'order-service GET /orders/open/total', 'order-service GET /orders/{id}', 'order-service POST /orders', 'order-service kafka payments.events']);
    assert.ok(fromService.crossings.some((c: any) => c.route.qualified_name === 'billing-service POST /invoices'));
    assert.equal(fromService.services[0].service, 'order-service');
  });

  test('from a type: its members are the roots', async () => {
    const r = await trace({ from: `${O}web.OrderController` });
    assert.ok(r.roots.some((n: any) => n.qualified_name === `${O}web.OrderController#createOrder(CreateOrderRequest)`));
    assert.ok(r.crossings.some((c: any) => c.route.qualified_name === 'billing-service POST /invoices'));
  });

  test('bounds already at their maximum are not hinted again', async () => {
    const r = await trace({ from: 'order-service POST /orders', prune: false, max_breadth: 500, max_depth: 30, limit: 2000 });
    assert.ok(!r.hints.some((h: any) => h.tool === 'trace'), JSON.stringify(r.hints));
  });

  test('a flow that stays local answers its local hops and says so', async () => {
    const r = await trace({ from: 'inventory GET /stock/{sku}' });
    assert.equal(r.local_only, true);
    assert.match(r.note, /No client, producer or route is reached/);
    assert.deepEqual(
      r.hops.map((h: any) => `${h.depth} ${h.edge_type} ${h.to.qualified_name}${h.library_method ? ` (${h.library_method})` : ''}`),
      [
        `1 EXPOSES com.acme.inventory.StockController#level(String)`,
        `2 CALLS com.acme.inventory.StockService#level(String)`,
        `3 CALLS com.acme.inventory.StockItemRepository (org.springframework.data.repository.CrudRepository#findById(?))`,
        `3 CALLS com.acme.inventory.StockLevel#of(StockItem)`,
        `4 CALLS com.acme.inventory.StockItem#getAvailable()`,
        `4 CALLS com.acme.inventory.StockItem#getSku()`,
        `4 CALLS com.acme.inventory.StockLevel#<init>()`,
      ],
    );
    assert.equal(r.hints[0].tool, 'neighbors');
  });
});

describe('trace: paths between two nodes', () => {
  test('the shortest path from a route to a remote handler, with each hop\'s edge, service and confidence', async () => {
    const r = await trace({ from: 'order-service POST /orders', to: `${B}web.InvoiceController#create(CreateInvoiceRequest)` });
    assert.equal(r.mode, 'paths');
    assert.equal(r.length, 9);
    assert.equal(r.paths.length, 1);
    assert.deepEqual(r.paths[0].services, ['order-service', 'billing-service']);
    assert.deepEqual(
      r.paths[0].hops.map((h: any) => `${h.edge_type} ${h.to.qualified_name}`),
      [
        `EXPOSES ${O}web.OrderController#createOrder(CreateOrderRequest)`,
        `CALLS ${O}service.OrderService#place(CreateOrderRequest)`,
        `CALLS ${O}service.OrderService#place(CreateOrderRequest,String)`,
        `CALLS ${O}api.PaymentHandler#handle(OrderDto)`,
        `OVERRIDES ${O}payment.InvoicePaymentHandler#handle(OrderDto)`,
        `CALLS ${O}client.BillingClient#createInvoice(InvoiceRequest)`,
        'DECLARES_CLIENT order-service -> billing-service POST /invoices',
        'HTTP_CALLS billing-service POST /invoices',
        `EXPOSES ${B}web.InvoiceController#create(CreateInvoiceRequest)`,
      ],
    );
    const http = r.paths[0].hops.find((h: any) => h.edge_type === 'HTTP_CALLS');
    assert.equal(http.match, 'cross_service');
    assert.equal(http.to.service, 'billing-service');
  });

  test('from a service to a route: the shortest path from any of its routes, which the path names; paths are distinct', async () => {
    const r = await trace({ from: 'order-service', to: `${B}web.InvoiceController#create(CreateInvoiceRequest)`, max_paths: 50 });
    assert.equal(r.length, 9);
    assert.equal(r.paths[0].start.qualified_name, 'order-service POST /orders');
    const shapes = r.paths.map((p: any) => p.hops.map((h: any) => `${h.edge_type}>${h.to.id}`).join(' '));
    assert.equal(new Set(shapes).size, shapes.length, 'no two paths differ only by call line');
  });

  test('between two services: the topology path over SERVICE_CALLS', async () => {
    const r = await trace({ from: 'order-service', to: 'billing-service' });
    assert.equal(r.length, 1);
    assert.deepEqual(r.paths[0].hops.map((h: any) => h.edge_type), ['SERVICE_CALLS']);
  });

  test('no path: explained, with the reverse direction and the flow as next calls', async () => {
    const r = await trace({ from: 'billing-service POST /invoices', to: 'order-service POST /orders' });
    assert.equal(r.length, null);
    assert.deepEqual(r.paths, []);
    assert.equal(r.absence.reason, 'no_path');
    assert.match(r.absence.message, /No path from billing-service POST \/invoices to order-service POST \/orders over EXPOSES \(backwards\), CALLS/);
    const reverse = r.hints.find((h: any) => h.reason === 'the other direction');
    const back = await trace(reverse.args);
    assert.equal(back.length, 8);
  });
});

describe('trace: bad input', () => {
  const err = async (args: Record<string, unknown>) => {
    const r = (await runTool({ store, ontology }, 'trace', args)) as any;
    assert.equal(r.ok, false);
    return r.error;
  };
  test('an ambiguous or unknown start, an unknown edge type, an argument out of range', async () => {
    const amb = await err({ from: 'place' });
    assert.equal(amb.code, 'ambiguous');
    assert.match(amb.message, /names 2 nodes/);
    assert.deepEqual(amb.hints[0], { tool: 'resolve', args: { identifier: 'place' }, reason: 'see every candidate with its id' });
    assert.equal((await err({ from: 'NoSuchThing' })).code, 'not_found');
    const type = await err({ from: 'order-service', edge_types: ['CALS'] });
    assert.match(type.message, /CALLS/);
    assert.equal((await err({ from: 'order-service', max_depth: 99 })).code, 'out_of_range');
    assert.equal((await err({ from: 'order-service', depth: 3 })).code, 'unknown_argument');
  });
});
