/**
 * Issue 4's done-when on test/fixtures/links: a gateway that only forwards (RestTemplate with absolute URLs
 * through a discovery name and a constant; WebClient with a base URL from configuration), order-service (Feign
 * with a `${}` name and a constant path, an `@HttpExchange` interface with a URL, one without, a KafkaTemplate
 * send with a topic constant from the shared contracts library, a send whose topic the source cannot reveal),
 * billing-service (a listener on a topic from properties, one on a contracts constant, Kotlin RestTemplate calls with
 * string templates, functional routes, a RabbitTemplate), inventory-service (a
 * Spring Cloud Stream Consumer bound by configuration, a Supplier, StreamBridge). Exact sets of every
 * client → route pair with its match, every producer → listener pair, the topology, and trace across services,
 * through `sextant call` and the MCP client over stdio; then the same estate with sextant.yaml `links` pins.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { callTool, connectStdio, indexInto, jsonOf, killAll, runCli, tempDir, type Connection } from './helpers/e2e.js';

const LINKS = fileURLToPath(new URL('./fixtures/links', import.meta.url));
let storeDir: string;

before(async () => {
  storeDir = await tempDir('sextant-links-');
  await indexInto(LINKS, storeDir);
});
after(killAll);

async function cli(tool: string, args: Record<string, unknown>, store = storeDir): Promise<Record<string, any>> {
  const r = await runCli(['call', tool, JSON.stringify(args), '--store', store]);
  assert.equal(r.code, 0, r.stderr + r.stdout);
  return jsonOf(r);
}

type Call = (tool: string, args: Record<string, unknown>) => Promise<Record<string, any>>;

/** `caller-service framework caller -> route (match, strategy)` for every edge of `type` out of every node of `kind`. */
async function pairs(kind: 'client' | 'producer', type: 'HTTP_CALLS' | 'ASYNC_CALLS', store = storeDir, call: Call = (tool, args) => cli(tool, args, store)): Promise<string[]> {
  const found = await call('find', { kind, limit: 500 });
  const ids = found.results.map((n: any) => n.id);
  const r = await call('neighbors', { ids, direction: 'out', edge_types: [type], limit: 500 });
  const byId = new Map(found.results.map((n: any) => [n.id, n]));
  return r.edges
    .map((e: any) => {
      const from: any = byId.get(e.from);
      return `${from.service} ${from.attributes.framework} ${from.attributes.caller.replace(/^com\.acme\./, '')} -> ${e.other.qualified_name} (${e.attrs.match}, ${e.attrs.strategy})`;
    })
    .sort();
}

const HTTP_PAIRS = [
  'billing-service rest_template billing.OrderLookup#order(String) -> order-service GET /orders/{id} (cross_service, service_method_path)',
  'billing-service rest_template billing.OrderLookup#orderTrimmed(String) -> order-service GET /orders/{id} (cross_service, service_method_path)',
  'gateway rest_template gateway.GatewayController#anything() -> ? GET url (unmatched, method_path)',
  'gateway rest_template gateway.GatewayController#catalog() -> ? GET catalogUrl + "/items" (unmatched, method_path)',
  'gateway rest_template gateway.GatewayController#invoice(String) -> billing-service GET /invoices/{id} (cross_service, service_method_path)',
  'gateway rest_template gateway.GatewayController#legacy(String) -> legacy-erp GET /export/{path} (external, external_host)',
  'gateway rest_template gateway.GatewayController#order(String) -> order-service GET /orders/{id} (cross_service, service_method_path)',
  'gateway rest_template gateway.GatewayController#placeOrder(Map) -> order-service POST /orders (cross_service, service_method_path)',
  'gateway web_client gateway.GatewayController#both(String) -> inventory-service GET /stock/{sku} (cross_service, service_method_path)',
  'gateway web_client gateway.GatewayController#both(String) -> inventory-service GET /stock/{sku}/history (unmatched, service_method_path)',
  'gateway web_client gateway.GatewayController#stock(String) -> inventory-service GET /stock/{sku} (cross_service, service_method_path)',
  'order-service feign orders.BillingClient#createInvoice(Map) -> billing-service POST /invoices (cross_service, service_method_path)',
  'order-service feign orders.BillingClient#pdf(String) -> billing-service GET /invoices/{invoiceId}/pdf (cross_service, service_method_path)',
  'order-service http_exchange orders.AuditClient#record(Map) -> billing-service POST /audit (ambiguous, method_path)',
  'order-service http_exchange orders.AuditClient#record(Map) -> inventory-service POST /audit (ambiguous, method_path)',
  'order-service http_exchange orders.StockClient#level(String) -> inventory-service GET /stock/{sku} (cross_service, service_method_path)',
];

const ASYNC_PAIRS = [
  'billing-service spring_rabbit billing.Ledger#record(Map) -> inventory-service rabbit invoices.issued (cross_service, routing_key)',
  'billing-service spring_rabbit billing.Ledger#record(Map) -> rabbit ledger.entries (unmatched, destination)',
  'inventory-service spring_cloud_stream inventory.Reservations#reserve(Map) -> billing-service kafka stock.reserved (cross_service, destination)',
  'inventory-service spring_cloud_stream inventory.StockBindings#stockEvents() -> kafka stock.changed (unmatched, destination)',
  // A helper's return, evaluated with the call's argument: Topics.PREFIX + "." + "cancel" + "led".
  'order-service spring_kafka orders.OrderService#cancel(String) -> billing-service kafka orders.cancelled (cross_service, destination)',
  'order-service spring_kafka orders.OrderService#place(Map) -> billing-service kafka audit.events (cross_service, destination)',
  'order-service spring_kafka orders.OrderService#place(Map) -> billing-service kafka orders.created (cross_service, destination)',
  'order-service spring_kafka orders.OrderService#place(Map) -> inventory-service kafka orders.created (cross_service, destination)',
];

// legacy-erp is a host the estate does not run, so its client is external and makes no SERVICE_CALLS edge; AuditClient
// names no target, and an ambiguous match counts for no service.
const TOPOLOGY = ['billing-service -> inventory-service rabbit 1/1', 'billing-service -> order-service http 2/2', 'gateway -> billing-service http 1/1', 'gateway -> inventory-service http 3/2', 'gateway -> order-service http 2/2', 'inventory-service -> billing-service kafka 1/1', 'order-service -> billing-service http 2/2', 'order-service -> billing-service kafka 3/3', 'order-service -> inventory-service http 1/1', 'order-service -> inventory-service kafka 1/1'].sort();

/** `from -> to protocol calls/matched` for every SERVICE_CALLS edge. */
async function topology(call: Call): Promise<string[]> {
  const services = await call('find', { kind: 'service' });
  const names = new Map(services.results.map((n: any) => [n.id, n.name]));
  const r = await call('neighbors', { ids: [...names.keys()], direction: 'out', edge_types: ['SERVICE_CALLS'], limit: 100 });
  return r.edges.map((e: any) => `${names.get(e.from)} -> ${e.other.name} ${e.attrs.protocol} ${e.attrs.calls}/${e.attrs.matched}`).sort();
}

describe('links fixture through sextant call', () => {
  test('every client → route pair, with its match', async () => {
    assert.deepEqual(await pairs('client', 'HTTP_CALLS'), HTTP_PAIRS);
  });

  test('functional routes: a RouterFunction builder and a predicate, with the referenced handler methods', async () => {
    const r = await cli('find', { kind: 'route', filter: { framework: 'spring_functional' } });
    assert.deepEqual(
      r.results.map((n: any) => `${n.qualified_name} ${n.attributes.handler}`),
      [
        'billing-service GET /invoices/search com.acme.billing.InvoiceHandler#search(ServerRequest)',
        'billing-service GET /invoices/{id} com.acme.billing.InvoiceHandler#get(ServerRequest)',
        'billing-service GET /invoices/{invoiceId}/pdf com.acme.billing.InvoiceHandler#pdf(ServerRequest)',
      ],
      'GET("/invoices/search").and(accept(…)) is the path alone; GET(accept(…), …) states no path and is no route',
    );
  });

  test('a UriComponentsBuilder URL is read where literal (the discovery name in any case); a URL the source does not state matches nothing', async () => {
    const r = await cli('find', { kind: 'client', filter: { framework: 'rest_template' } });
    const byCaller = new Map(r.results.map((n: any) => [n.attributes.caller, n]));
    const invoice: any = byCaller.get('com.acme.gateway.GatewayController#invoice(String)');
    assert.equal(invoice.qualified_name, 'gateway -> BILLING-SERVICE GET /invoices/{id}');
    assert.equal(invoice.attributes.match, 'cross_service');
    const anything: any = byCaller.get('com.acme.gateway.GatewayController#anything()');
    assert.equal(anything.attributes.resolved, false);
    assert.equal(anything.attributes.path_written, 'url');
    assert.equal(anything.attributes.match, 'unmatched', 'a whole-URL variable is not a one-segment path template');
  });

  test('what must not link: an unset placeholder URL, function beans in a service without Stream configuration', async () => {
    const r = await cli('find', { kind: 'client', filter: { caller: 'com.acme.gateway.GatewayController#catalog()' } });
    assert.deepEqual(r.results.map((n: any) => [n.attributes.match, n.attributes.resolved, n.attributes.target_service ?? null]), [['unmatched', false, null]], 'no base URL or path is guessed for ${clients.catalog.url}');
    const placeholderRoute = await cli('find', { kind: 'route', filter: { handler: 'com.acme.inventory.CatalogController#items()' } });
    assert.deepEqual(placeholderRoute.results.map((n: any) => [n.qualified_name, n.attributes.resolved]), [['inventory-service GET /${api.base}/items', false]]);
    const callers = await cli('neighbors', { ids: [placeholderRoute.results[0].id], direction: 'in', edge_types: ['HTTP_CALLS'] });
    assert.deepEqual(callers.edges, [], 'a route with an unset placeholder is no path-only match');
    const orders = await cli('find', { kind: 'producer', filter: { service: 'order-service', framework: 'spring_cloud_stream' } });
    assert.deepEqual(orders.results, [], 'Supplier and Function beans of order-service are not bound: it has no Stream configuration');
  });

  test('the WebClient base URL comes from configuration, the RestTemplate URL from a constant plus a variable', async () => {
    const r = await cli('find', { kind: 'client', filter: { framework: ['web_client', 'rest_template'] } });
    const byCaller = new Map(r.results.map((n: any) => [n.attributes.caller, n.attributes]));
    const stock: any = byCaller.get('com.acme.gateway.GatewayController#stock(String)');
    assert.equal(stock.target_url, 'http://inventory-service');
    assert.equal(stock.resolved, true);
    const order: any = byCaller.get('com.acme.gateway.GatewayController#order(String)');
    assert.equal(order.path_written, 'ORDERS + "/" + id');
    assert.equal(order.http_method, 'GET', 'exchange(…, HttpMethod.GET, …)');
  });

  test('every producer → listener pair: Kafka constants from the contracts library, topics from properties (also a @Value field), Stream bindings, a Rabbit routing key', async () => {
    assert.deepEqual(await pairs('producer', 'ASYNC_CALLS'), ASYNC_PAIRS);
    const listeners = await cli('find', { kind: 'route', filter: { protocol: 'kafka', declared: true } });
    assert.deepEqual(
      listeners.results.map((n: any) => `${n.qualified_name} ${n.attributes.framework}`).sort(),
      ['billing-service kafka audit.events spring_kafka', 'billing-service kafka orders.cancelled spring_kafka', 'billing-service kafka orders.created spring_kafka', 'billing-service kafka refunds.events spring_kafka', 'billing-service kafka stock.reserved spring_kafka', 'inventory-service kafka orders.created spring_cloud_stream'],
      'notBound is not in spring.cloud.function.definition, so it is no listener',
    );
    // The default profile has no value for ${topics.refunds}: the profiles that do are recorded.
    const refunds = listeners.results.find((n: any) => n.qualified_name === 'billing-service kafka refunds.events');
    assert.equal(refunds.attributes.profile, 'prod,prod&eu');
    assert.equal(listeners.results.filter((n: any) => n.attributes.profile).length, 1, 'values the default profile gives record no profile');
  });

  test('the service topology', async () => {
    assert.deepEqual(await topology((tool, args) => cli(tool, args)), TOPOLOGY);
  });


  test('trace of one request end to end: gateway → order-service → billing-service and inventory-service', async () => {
    const r = await cli('trace', { from: 'gateway POST /api/orders' });
    assert.deepEqual(r.services.map((s: any) => s.service), ['gateway', 'order-service', 'billing-service', 'inventory-service']);
    assert.deepEqual(
      r.crossings.map((c: any) => `${c.from_service} -> ${c.to_service} ${c.edge_type} ${c.route.qualified_name}`),
      [
        'gateway -> order-service HTTP_CALLS order-service POST /orders',
        'order-service -> billing-service ASYNC_CALLS billing-service kafka audit.events',
        'order-service -> billing-service ASYNC_CALLS billing-service kafka orders.created',
        'order-service -> inventory-service ASYNC_CALLS inventory-service kafka orders.created',
        'order-service -> billing-service HTTP_CALLS billing-service POST /invoices',
        'order-service -> inventory-service HTTP_CALLS inventory-service GET /stock/{sku}',
        'billing-service -> inventory-service ASYNC_CALLS inventory-service rabbit invoices.issued',
        'inventory-service -> billing-service ASYNC_CALLS billing-service kafka stock.reserved',
      ],
      'the Stream consumer in inventory-service sends on through StreamBridge',
    );
    const handlers = r.hops.filter((h: any) => h.edge_type === 'EXPOSES').map((h: any) => h.to.qualified_name);
    assert.deepEqual(handlers, [
      'com.acme.gateway.GatewayController#placeOrder(Map)',
      'com.acme.orders.OrderController#place(Map)',
      'com.acme.billing.OrderEvents#onAudit(Map)',
      'com.acme.billing.OrderEvents#onCreated(Map)',
      'com.acme.inventory.StockBindings#reserveStock()',
      'com.acme.billing.InvoiceController#create(Map)',
      'com.acme.inventory.StockController#level(String)',
      'com.acme.inventory.InvoiceWatcher#onIssued(Map)',
      'com.acme.billing.ReservationAudit#onReserved(Map)',
    ]);
  });
});

describe('links fixture through the MCP client (stdio)', () => {
  let conn: Connection;
  before(async () => {
    conn = await connectStdio(storeDir);
  });
  after(async () => conn?.close());

  test('trace: the shortest path from the gateway to the Stream consumer in inventory-service', async () => {
    const a = await callTool(conn.client, 'trace', { from: 'gateway POST /api/orders', to: 'com.acme.inventory.StockBindings#reserveStock()' });
    assert.equal(a.isError, false, JSON.stringify(a.body));
    assert.deepEqual(a.body.paths[0].services, ['gateway', 'order-service', 'inventory-service']);
    assert.deepEqual(
      a.body.paths[0].hops.map((h: any) => h.edge_type),
      ['EXPOSES', 'DECLARES_CLIENT', 'HTTP_CALLS', 'EXPOSES', 'CALLS', 'DECLARES_PRODUCER', 'ASYNC_CALLS', 'EXPOSES'],
    );
  });

  test('every client → route pair, every producer → listener pair and the topology, over MCP', async () => {
    const call: Call = async (tool, args) => {
      const a = await callTool(conn.client, tool, args);
      assert.equal(a.isError, false, JSON.stringify(a.body));
      return a.body;
    };
    assert.deepEqual(await pairs('client', 'HTTP_CALLS', storeDir, call), HTTP_PAIRS);
    assert.deepEqual(await pairs('producer', 'ASYNC_CALLS', storeDir, call), ASYNC_PAIRS);
    assert.deepEqual(await topology(call), TOPOLOGY);
  });

  test('describe of a route lists its callers across services', async () => {
    const route = await callTool(conn.client, 'resolve', { identifier: 'order-service POST /orders' });
    const d = await callTool(conn.client, 'describe', { id: route.body.node.id });
    assert.deepEqual(d.body.node.callers.map((c: any) => `${c.service} ${c.caller} ${c.match}`), ['gateway com.acme.gateway.GatewayController#placeOrder(Map) cross_service']);
  });
});

describe('links pinned in sextant.yaml', () => {
  let pinned: string;
  before(async () => {
    const dir = await tempDir('sextant-links-pinned-');
    const config = join(dir, 'sextant.yaml');
    writeFileSync(
      config,
      [
        'version: 1',
        'sources:',
        '  - name: links',
        '    kind: code',
        `    path: ${JSON.stringify(LINKS)}`,
        '    links:',
        '      clients:',
        '        com.acme.orders.AuditClient: billing-service',
        '      destinations:',
        '        com.acme.orders.OrderService#cancel(String): orders.cancelled',
        '        com.acme.nowhere.Gone#send(): x',
        '',
      ].join('\n'),
    );
    pinned = join(dir, 'store');
    const r = await indexInto(config, pinned);
    assert.match(r.stderr, /links\.destinations: com\.acme\.nowhere\.Gone#send\(\) matches no message producer/);
  });

  test('a pinned client and a pinned destination match, say so, and are surer than path-only matching', async () => {
    const http = await pairs('client', 'HTTP_CALLS', pinned);
    assert.deepEqual(
      http.filter((p) => p.includes('AuditClient')),
      ['order-service http_exchange orders.AuditClient#record(Map) -> billing-service POST /audit (cross_service, pinned_service_method_path)'],
    );
    assert.deepEqual(http.filter((p) => !p.includes('AuditClient')), HTTP_PAIRS.filter((p) => !p.includes('AuditClient')), 'nothing else changes');
    const async = await pairs('producer', 'ASYNC_CALLS', pinned);
    assert.deepEqual(
      async,
      ASYNC_PAIRS.map((p) => (p.includes('OrderService#cancel') ? 'order-service spring_kafka orders.OrderService#cancel(String) -> billing-service kafka orders.cancelled (cross_service, pinned_destination)' : p)).sort(),
    );
    const p = await cli('find', { kind: 'producer', filter: { pinned: true } }, pinned);
    assert.deepEqual(p.results.map((n: any) => n.qualified_name), ['order-service -> kafka orders.cancelled']);
  });

  test('a links entry of the wrong shape is a config error that says how to write it', async () => {
    const dir = await tempDir('sextant-links-bad-');
    const config = join(dir, 'sextant.yaml');
    writeFileSync(config, ['version: 1', 'sources:', '  - name: links', '    kind: code', `    path: ${JSON.stringify(LINKS)}`, '    links:', '      client:', '        a: b', ''].join('\n'));
    const r = await runCli(['index', config, '--store', join(dir, 'store')]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /client.*Did you mean `clients`/s);
  });
});
