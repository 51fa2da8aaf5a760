/**
 * The done-when scenario of the code source on the multi-service fixture (test/fixtures/estate, EXPECTED.md):
 * real tree-sitter parsing of real Java and Kotlin files, the real SQLite store, the real query tools.
 * Every set is asserted exactly. Where Sextant deliberately goes further than EXPECTED.md (bean edges besides
 * declared-type INJECTS edges, Lombok-generated members), the test says so.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sextantOntology } from '../src/graph/ontology/index.js';
import type { Store } from '../src/graph/store.js';
import { openTestStore } from './helpers/store.js';
import type { NodeRecord } from '../src/graph/types.js';
import { buildWorkspace, type BuildReport } from '../src/indexer/build.js';
import { runTool } from '../src/query/index.js';
import { ESTATE, estateSource, IMPACT_CASES, impactSets } from './helpers/estate.js';


const ontology = sextantOntology();
let dir: string;
let store: Store;
let report: BuildReport;
const ctx = () => ({ store, ontology });

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sextant-estate-'));
  const writer = await openTestStore(ontology, dir, { mode: 'write' });
  report = await buildWorkspace(writer, ontology, { dir: ESTATE, sources: [estateSource()] });
  await writer.close();
  store = await openTestStore(ontology, dir, { mode: 'read' });
});
after(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function all(kind: string, filter: Record<string, unknown> = {}): Promise<NodeRecord[]> {
  const out: NodeRecord[] = [];
  for (let offset = 0; ; offset += 500) {
    const r = (await runTool(ctx(), 'find', { kind, filter, limit: 500, offset })) as any;
    assert.equal(r.ok, true, JSON.stringify(r.error));
    out.push(...(await store.getNodes(r.results.map((n: any) => n.id))));
    if (!r.has_more) return out;
  }
}

async function byQn(qn: string): Promise<NodeRecord> {
  const found = (await all('symbol', { qualified_name: qn, resolved: true })).filter((n) => n.qualified_name === qn);
  assert.equal(found.length, 1, `expected one project symbol ${qn}, found ${found.length}`);
  return found[0]!;
}

/** How EXPECTED.md writes a node: project qualified name, `external: owner#name`, or `unresolved: callee`. */
function label(n: NodeRecord): string {
  if (n.kind === 'unresolved_call') return `unresolved: ${n.props.callee}`;
  if (n.props.resolved === false) return `external: ${n.qualified_name.replace(/\(\?\)$/, '')}`;
  return n.qualified_name;
}

async function edgesOf(qn: string, direction: 'in' | 'out', type: string) {
  const origin = await byQn(qn);
  const r = (await runTool(ctx(), 'neighbors', { ids: [origin.id], direction, edge_types: [type], limit: 500 })) as any;
  assert.equal(r.ok, true, JSON.stringify(r.error));
  assert.equal(r.has_more, false);
  return r.edges as { other: { id: string }; attrs: Record<string, any> }[];
}

/** Calls as `line: target` (a lambda call gets ` (λ)`); implicit `super()` calls are not asserted (EXPECTED.md §0). */
async function callsOf(qn: string): Promise<string[]> {
  const edges = (await edgesOf(qn, 'out', 'CALLS')).filter((e) => e.attrs.strategy !== 'implicit_super');
  const nodes = new Map((await store.getNodes(edges.map((e) => e.other.id))).map((n) => [n.id, n]));
  return edges.map((e) => `${e.attrs.line}: ${label(nodes.get(e.other.id)!)}${e.attrs.in_lambda ? ' (λ)' : ''}`).sort();
}

async function others(qn: string, direction: 'in' | 'out', type: string, keep: (attrs: Record<string, any>) => boolean = () => true): Promise<string[]> {
  const edges = (await edgesOf(qn, direction, type)).filter((e) => keep(e.attrs));
  const nodes = new Map((await store.getNodes(edges.map((e) => e.other.id))).map((n) => [n.id, n]));
  return [...new Set(edges.map((e) => label(nodes.get(e.other.id)!)))].sort();
}

const O = 'com.acme.orders.';
const B = 'com.acme.billing.';
const I = 'com.acme.inventory.';
const sorted = (xs: string[]) => [...xs].sort();

describe('estate: files, services, modules', () => {
  test('53 source files are indexed (42 Java, 11 Kotlin); ignored, build-output and test files are not', async () => {
    const details = report.sources[0]!.details as { parsed: number; stats: { files: number; files_with_errors: number } };
    assert.equal(details.stats.files, 53);
    assert.equal(details.stats.files_with_errors, 1);
    const types = await all('symbol', { resolved: true, symbol_kind: ['class', 'interface', 'enum', 'record', 'annotation'] });
    const files = new Set(types.map((t) => t.file));
    assert.equal(files.size, 53);
    assert.equal([...files].filter((f) => f!.endsWith('.kt')).length, 11);
    for (const skipped of [`${O}scratch.ScratchPad`, `${I}StockImport`, `${O}mapper.OrderMapperImpl`, `${I}StockItem_`, `${O}service.OrderServiceTest`, `${B}core.InvoiceServiceTest`]) {
      assert.equal(types.filter((t) => t.qualified_name === skipped).length, 0, `${skipped} must be skipped`);
    }
  });

  test('three services, named by spring.application.name or their directory, with their modules', async () => {
    const services = await all('service');
    assert.deepEqual(
      services.map((s) => [s.name, s.props.name_from, s.props.modules]).sort(),
      [
        ['billing-service', 'spring.application.name', ['billing-core', 'billing-web']],
        ['inventory', 'directory', ['inventory']],
        ['order-service', 'spring.application.name', ['orders-api', 'orders-app']],
      ],
    );
    const invoice = await byQn(`${B}core.Invoice`);
    assert.deepEqual([invoice.service, invoice.module], ['billing-service', 'billing-core']);
    const dto = await byQn(`${O}api.OrderDto#total()`);
    assert.deepEqual([dto.service, dto.module], ['order-service', 'orders-api']);
  });
});

const ROLES: Record<string, string> = {
  [`${O}api.OrderStatus`]: 'OTHER',
  [`${O}api.OrderDto`]: 'DTO',
  [`${O}api.CreateOrderRequest`]: 'DTO',
  [`${O}api.CreateOrderRequest.LineItem`]: 'DTO',
  [`${O}api.PaymentResult`]: 'DTO',
  [`${O}api.PaymentHandler`]: 'OTHER',
  [`${O}api.Money`]: 'DTO',
  [`${O}api.generated.OrdersApi`]: 'OTHER',
  [`${O}OrderServiceApplication`]: 'CONFIG',
  [`${O}config.OrderConfig`]: 'CONFIG',
  [`${O}domain.Order`]: 'ENTITY',
  [`${O}repo.OrderRepository`]: 'REPOSITORY',
  [`${O}service.DomainService`]: 'OTHER',
  [`${O}service.OrderBatch`]: 'OTHER',
  [`${O}service.OrderService`]: 'SERVICE',
  [`${O}mapper.OrderMapper`]: 'MAPPER',
  [`${O}payment.CardPaymentHandler`]: 'COMPONENT',
  [`${O}payment.PaypalPaymentHandler`]: 'COMPONENT',
  [`${O}payment.InvoicePaymentHandler`]: 'COMPONENT',
  [`${O}payment.PaymentRouter`]: 'SERVICE',
  [`${O}payment.PaymentRouter$1`]: 'OTHER',
  [`${O}payment.PaymentRouter.Decision`]: 'OTHER',
  [`${O}pricing.PriceCalculator`]: 'OTHER',
  [`${O}pricing.Auditable`]: 'OTHER',
  [`${O}pricing.AbstractPricer`]: 'OTHER',
  [`${O}pricing.DiscountPricer`]: 'OTHER',
  [`${O}pricing.SeasonalPricer`]: 'COMPONENT',
  [`${O}jobs.OrderCleanupJob`]: 'COMPONENT',
  [`${O}jobs.OrderCleanupJob$1`]: 'OTHER',
  [`${O}jobs.OrderCleanupJob$2`]: 'OTHER',
  [`${O}messaging.OrderEventsPublisher`]: 'COMPONENT',
  [`${O}messaging.PaymentEventsListener`]: 'COMPONENT',
  [`${O}client.BillingClient`]: 'CLIENT',
  [`${O}client.BillingClient.InvoiceRequest`]: 'DTO',
  [`${O}client.BillingClient.InvoiceResponse`]: 'DTO',
  [`${O}web.OrderController`]: 'CONTROLLER',
  [`${O}web.GlobalExceptionHandler`]: 'COMPONENT',
  [`${O}legacy.BrokenOrderImporter`]: 'OTHER',
  [`${B}core.InvoiceStatus`]: 'OTHER',
  [`${B}core.InvoiceLine`]: 'DTO',
  [`${B}core.Invoice`]: 'DTO',
  [`${B}core.Invoice.Companion`]: 'OTHER',
  [`${B}core.InvoiceNumbers`]: 'OTHER',
  [`${B}core.TaxPolicy`]: 'OTHER',
  [`${B}core.DefaultTaxPolicy`]: 'COMPONENT',
  [`${B}core.InvoiceStore`]: 'OTHER',
  [`${B}core.InMemoryInvoiceStore`]: 'REPOSITORY',
  [`${B}core.InvoiceService`]: 'SERVICE',
  [`${B}core.BillingUtilsKt`]: 'OTHER',
  [`${B}web.BillingApplication`]: 'CONFIG',
  [`${B}web.BillingApplicationKt`]: 'OTHER',
  [`${B}web.InvoiceController`]: 'CONTROLLER',
  [`${B}web.CreateInvoiceRequest`]: 'DTO',
  [`${B}web.InvoiceResponse`]: 'DTO',
  [`${B}web.OrderEventsConsumer`]: 'COMPONENT',
  [`${B}web.LegacyInvoiceExporter`]: 'COMPONENT',
  [`${B}web.ExportTaxPolicy`]: 'COMPONENT',
  [`${B}proto.InvoiceProtos`]: 'OTHER',
  [`${B}proto.InvoiceProtos.InvoiceEventOrBuilder`]: 'OTHER',
  [`${B}proto.InvoiceProtos.InvoiceEvent`]: 'OTHER',
  [`${I}InventoryApplication`]: 'CONFIG',
  [`${I}StockItem`]: 'ENTITY',
  [`${I}StockItemRepository`]: 'REPOSITORY',
  [`${I}StockLevel`]: 'DTO',
  [`${I}StockService`]: 'SERVICE',
  [`${I}ReservationService`]: 'SERVICE',
  [`${I}RestockPlanner`]: 'COMPONENT',
  [`${I}StockController`]: 'CONTROLLER',
};

describe('estate: types, roles, capabilities, generated', () => {
  test('exactly the 68 project types, each with its role', async () => {
    const types = await all('symbol', { resolved: true, symbol_kind: ['class', 'interface', 'enum', 'record', 'annotation'] });
    assert.deepEqual(Object.fromEntries(types.map((t) => [t.qualified_name, t.props.role]).sort()), Object.fromEntries(Object.entries(ROLES).sort()));
  });

  test('capabilities', async () => {
    const caps = async (c: string) => (await all('symbol', { capabilities: c })).map((n) => n.qualified_name).sort();
    assert.deepEqual(await caps('MESSAGE_LISTENER'), [`${O}messaging.PaymentEventsListener`, `${B}web.OrderEventsConsumer`].sort());
    assert.deepEqual(await caps('MESSAGE_PRODUCER'), [`${O}messaging.OrderEventsPublisher`]);
    assert.deepEqual(await caps('HTTP_CLIENT'), [`${O}client.BillingClient`]);
    assert.deepEqual(await caps('SCHEDULED_TASK'), [`${O}jobs.OrderCleanupJob`, `${I}RestockPlanner`].sort());
    assert.deepEqual(await caps('EXCEPTION_HANDLER'), [`${O}web.GlobalExceptionHandler`]);
  });

  test('generated types: OpenAPI by annotation, protobuf by banner; @GeneratedValue is not @Generated', async () => {
    const generated = await all('symbol', { generated: true, symbol_kind: ['class', 'interface', 'enum', 'record'] });
    assert.deepEqual(
      generated.map((n) => [n.qualified_name, n.props.generated_by]).sort(),
      [
        [`${B}proto.InvoiceProtos`, 'protobuf'],
        [`${B}proto.InvoiceProtos.InvoiceEvent`, 'protobuf'],
        [`${B}proto.InvoiceProtos.InvoiceEventOrBuilder`, 'protobuf'],
        [`${O}api.generated.OrdersApi`, 'openapi'],
      ],
    );
    assert.equal((await byQn(`${B}proto.InvoiceProtos.InvoiceEvent#getInvoiceId()`)).props.generated, true);
    assert.equal((await byQn(`${O}domain.Order`)).props.generated, false);
  });
});

describe('estate: members', () => {
  const members = async (type: string) => (await others(type, 'out', 'DECLARES')).filter((m) => m.includes('#')).map((m) => m.slice(m.indexOf('#') + 1)).sort();
  const cases: [string, string[]][] = [
    [`${O}api.OrderStatus`, ['<init>(String)', 'code()', 'isTerminal()', 'fromCode(String)']],
    [`${O}api.OrderDto`, ['<init>(Long,String,OrderStatus,BigDecimal,String)', 'id()', 'customerId()', 'status()', 'total()', 'paymentMethod()', 'isLarge()']],
    [`${O}api.CreateOrderRequest.LineItem`, ['<init>(String,int,BigDecimal)', 'sku()', 'quantity()', 'unitPrice()', 'amount()']],
    [`${O}api.PaymentHandler`, ['supports(String)', 'handle(OrderDto)', 'handle(OrderDto,int)']],
    [`${O}api.Money`, ['<init>(long,String)', 'cents()', 'currency()', 'of(long)', 'of(String)', 'valueOf(BigDecimal)', 'plus(Money)']],
    [`${O}service.DomainService`, ['value()']],
    [`${O}service.OrderService`, ['<init>(OrderRepository,PaymentRouter,Optional,OrderEventsPublisher,OrderMapper)', 'place(CreateOrderRequest)', 'place(CreateOrderRequest,String)', 'quote(OrderDto)', 'findOpen()', 'openTotal()', 'shippingFee(OrderDto)', 'cancel(Long)']],
    [`${O}payment.PaymentRouter`, ['<init>(List,PaymentHandler)', '<init>(PaymentHandler)', 'route(String)', 'payWithRetry(OrderDto,int)']],
    [`${O}payment.PaymentRouter$1`, ['supports(String)', 'handle(OrderDto)']],
    [`${O}jobs.OrderCleanupJob`, ['<init>(OrderService,Clock)', 'setOrderRepository(OrderRepository)', 'cancelStaleOrders()', 'nightly()', 'sweep(Duration)', 'cancel(Order)', 'flatPricer()']],
    [`${B}core.Invoice`, ['<init>(String,String,List,InvoiceStatus)', 'getId()', 'getCustomerId()', 'getLines()', 'getStatus()', 'setStatus(InvoiceStatus)', 'getTotal()', 'issue()']],
    [`${B}core.Invoice.Companion`, ['draft(String,List)']],
    [`${B}core.InvoiceNumbers`, ['next()']],
    [`${B}core.BillingUtilsKt`, ['formatAmount(BigDecimal)', 'totalWithTax(Invoice)']],
    [`${B}web.BillingApplicationKt`, ['main(Array)']],
    [`${B}core.InvoiceService`, ['<init>(TaxPolicy,InvoiceStore)', 'issue(String,List)', 'taxFor(Invoice)', 'outstanding(String)']],
    // Beyond EXPECTED.md: Lombok's generated constructors and accessors are members (synthetic), so calls to them resolve.
    [`${I}StockService`, ['<init>(StockItemRepository,ReservationService)', 'level(String)', 'lowStock(int)', 'reserve(String,int)']],
    [`${I}ReservationService`, ['<init>(StockItemRepository,RestockPlanner)', 'reserve(String,int)']],
  ];
  for (const [type, expected] of cases) test(type, async () => assert.deepEqual(await members(type), sorted(expected)));

  test('Lombok @Data members are synthetic and say so', async () => {
    const getter = (await edgesOf(`${I}StockLevel`, 'out', 'DECLARES')).length;
    assert.ok(getter > 2, 'StockLevel declares Lombok accessors');
    const ctor = await byQn(`${I}StockService#<init>(StockItemRepository,ReservationService)`);
    assert.equal(ctor.props.synthetic, 'lombok_constructor');
  });
});

describe('estate: hierarchy', () => {
  test('EXTENDS', async () => {
    const pairs: string[] = [];
    for (const t of Object.keys(ROLES)) for (const s of await others(t, 'out', 'EXTENDS')) pairs.push(`${t} -> ${s}`);
    assert.deepEqual(pairs.sort(), [
      `${O}pricing.DiscountPricer -> ${O}pricing.AbstractPricer`,
      `${O}pricing.SeasonalPricer -> ${O}pricing.DiscountPricer`,
      `${O}jobs.OrderCleanupJob$2 -> ${O}pricing.AbstractPricer`,
      `${O}repo.OrderRepository -> external: org.springframework.data.jpa.repository.JpaRepository`,
      `${I}StockItemRepository -> external: org.springframework.data.repository.CrudRepository`,
      `${B}proto.InvoiceProtos.InvoiceEvent -> external: com.google.protobuf.GeneratedMessageV3`,
      `${B}proto.InvoiceProtos.InvoiceEventOrBuilder -> external: com.google.protobuf.MessageOrBuilder`,
    ].sort());
  });

  test('IMPLEMENTS: implementations of each interface, Java and Kotlin, anonymous ones included', async () => {
    const impls = (iface: string) => others(iface, 'in', 'IMPLEMENTS');
    assert.deepEqual(await impls(`${O}api.PaymentHandler`), sorted([`${O}payment.CardPaymentHandler`, `${O}payment.PaypalPaymentHandler`, `${O}payment.InvoicePaymentHandler`, `${O}payment.PaymentRouter$1`]));
    assert.deepEqual(await impls(`${O}pricing.PriceCalculator`), [`${O}pricing.AbstractPricer`]);
    assert.deepEqual(await impls(`${O}pricing.Auditable`), [`${O}pricing.SeasonalPricer`]);
    assert.deepEqual(await impls(`${O}api.generated.OrdersApi`), [`${O}web.OrderController`]);
    assert.deepEqual(await impls(`${B}core.TaxPolicy`), sorted([`${B}core.DefaultTaxPolicy`, `${B}web.ExportTaxPolicy`]));
    assert.deepEqual(await impls(`${B}core.InvoiceStore`), [`${B}core.InMemoryInvoiceStore`]);
    for (const none of [`${O}repo.OrderRepository`, `${I}StockItemRepository`, `${O}mapper.OrderMapper`, `${O}client.BillingClient`]) assert.deepEqual(await impls(none), []);
    assert.deepEqual(await others(`${O}jobs.OrderCleanupJob$1`, 'out', 'IMPLEMENTS'), ['external: java.lang.Runnable']);
  });

  test('OVERRIDES: the nearest declaration on each path, 22 edges', async () => {
    const pairs: string[] = [];
    const methods = await all('symbol', { resolved: true, symbol_kind: 'method' });
    for (const m of methods) for (const target of await others(m.qualified_name, 'out', 'OVERRIDES')) pairs.push(`${m.qualified_name} -> ${target}`);
    const PH = `${O}api.PaymentHandler`;
    assert.deepEqual(pairs.sort(), [
      ...['CardPaymentHandler', 'PaypalPaymentHandler', 'InvoicePaymentHandler', 'PaymentRouter$1'].flatMap((c) => [`${O}payment.${c}#supports(String) -> ${PH}#supports(String)`, `${O}payment.${c}#handle(OrderDto) -> ${PH}#handle(OrderDto)`]),
      `${O}pricing.AbstractPricer#price(OrderDto) -> ${O}pricing.PriceCalculator#price(OrderDto)`,
      `${O}pricing.DiscountPricer#price(OrderDto) -> ${O}pricing.AbstractPricer#price(OrderDto)`,
      `${O}pricing.SeasonalPricer#price(OrderDto) -> ${O}pricing.DiscountPricer#price(OrderDto)`,
      `${O}pricing.SeasonalPricer#factor() -> ${O}pricing.DiscountPricer#factor()`,
      `${O}jobs.OrderCleanupJob$2#price(OrderDto) -> ${O}pricing.AbstractPricer#price(OrderDto)`,
      `${O}pricing.AbstractPricer#auditTag() -> ${O}pricing.Auditable#auditTag()`,
      `${O}web.OrderController#createOrder(CreateOrderRequest) -> ${O}api.generated.OrdersApi#createOrder(CreateOrderRequest)`,
      `${B}core.DefaultTaxPolicy#rateFor(String) -> ${B}core.TaxPolicy#rateFor(String)`,
      `${B}web.ExportTaxPolicy#rateFor(String) -> ${B}core.TaxPolicy#rateFor(String)`,
      ...['save(Invoice)', 'findById(String)', 'findByCustomer(String)'].map((m) => `${B}core.InMemoryInvoiceStore#${m} -> ${B}core.InvoiceStore#${m}`),
      ...['getInvoiceId()', 'getAmountCents()'].map((m) => `${B}proto.InvoiceProtos.InvoiceEvent#${m} -> ${B}proto.InvoiceProtos.InvoiceEventOrBuilder#${m}`),
    ].sort());
  });
});

describe('estate: injection', () => {
  const DECLARED: [string, string, string, string][] = [
    [`${O}service.OrderService`, `${O}repo.OrderRepository`, 'constructor', 'repository'],
    [`${O}service.OrderService`, `${O}payment.PaymentRouter`, 'constructor', 'paymentRouter'],
    [`${O}service.OrderService`, `${O}pricing.PriceCalculator`, 'constructor', 'pricer'],
    [`${O}service.OrderService`, `${O}messaging.OrderEventsPublisher`, 'constructor', 'events'],
    [`${O}service.OrderService`, `${O}mapper.OrderMapper`, 'constructor', 'mapper'],
    [`${O}payment.PaymentRouter`, `${O}api.PaymentHandler`, 'constructor', 'handlers'],
    [`${O}payment.PaymentRouter`, `${O}api.PaymentHandler`, 'constructor', 'cardHandler'],
    [`${O}payment.PaymentRouter`, `${O}api.PaymentHandler`, 'field', 'defaultHandler'],
    [`${O}payment.InvoicePaymentHandler`, `${O}client.BillingClient`, 'constructor', 'billingClient'],
    [`${O}pricing.SeasonalPricer`, 'external: java.time.Clock', 'constructor', 'clock'],
    [`${O}jobs.OrderCleanupJob`, `${O}service.OrderService`, 'constructor', 'orderService'],
    [`${O}jobs.OrderCleanupJob`, 'external: java.time.Clock', 'constructor', 'clock'],
    [`${O}jobs.OrderCleanupJob`, `${O}repo.OrderRepository`, 'setter', 'setOrderRepository'],
    [`${O}messaging.OrderEventsPublisher`, 'external: org.springframework.kafka.core.KafkaTemplate', 'field', 'kafkaTemplate'],
    [`${O}messaging.PaymentEventsListener`, `${O}service.OrderService`, 'field', 'orderService'],
    [`${O}messaging.PaymentEventsListener`, `${O}api.PaymentHandler`, 'field', 'invoiceHandler'],
    [`${O}web.OrderController`, `${O}service.OrderService`, 'constructor', 'orderService'],
    [`${O}web.OrderController`, `${O}mapper.OrderMapper`, 'constructor', 'mapperProvider'],
    [`${B}core.InvoiceService`, `${B}core.TaxPolicy`, 'constructor', 'taxPolicy'],
    [`${B}core.InvoiceService`, `${B}core.InvoiceStore`, 'constructor', 'store'],
    [`${B}web.InvoiceController`, `${B}core.InvoiceService`, 'constructor', 'invoiceService'],
    [`${B}web.OrderEventsConsumer`, `${B}core.InvoiceService`, 'constructor', 'invoiceService'],
    [`${B}web.LegacyInvoiceExporter`, `${B}core.InvoiceService`, 'constructor', 'invoiceService'],
    [`${I}StockService`, `${I}StockItemRepository`, 'lombok', 'repository'],
    [`${I}StockService`, `${I}ReservationService`, 'lombok', 'reservations'],
    [`${I}ReservationService`, `${I}StockItemRepository`, 'lombok', 'repository'],
    [`${I}ReservationService`, `${I}RestockPlanner`, 'lombok', 'planner'],
    [`${I}RestockPlanner`, `${I}StockService`, 'field', 'stockService'],
    [`${I}StockController`, `${I}StockService`, 'constructor', 'stockService'],
  ];

  async function injections(strategy: (s: string) => boolean): Promise<string[]> {
    const rows: string[] = [];
    for (const t of Object.keys(ROLES)) {
      const edges = (await edgesOf(t, 'out', 'INJECTS')).filter((e) => strategy(e.attrs.strategy));
      const nodes = new Map((await store.getNodes(edges.map((e) => e.other.id))).map((n) => [n.id, n]));
      for (const e of edges) rows.push(`${t} -> ${label(nodes.get(e.other.id)!)} ${e.attrs.mechanism} ${e.attrs.member}${e.attrs.strategy === 'declared_type' ? '' : ` [${e.attrs.strategy}]`}`);
    }
    return rows.sort();
  }

  test('one declared-type edge per injection point (29): field, constructor, setter, Lombok, Kotlin primary; wrappers unwrapped', async () => {
    assert.deepEqual(await injections((s) => s === 'declared_type'), DECLARED.map(([f, t, m, n]) => `${f} -> ${t} ${m} ${n}`).sort());
  });

  test('bean edges resolve interfaces and @Bean methods: @Qualifier, @Primary, collections, a unique bean (beyond EXPECTED.md: separate edges)', async () => {
    assert.deepEqual(await injections((s) => s !== 'declared_type'), [
      `${O}pricing.SeasonalPricer -> ${O}config.OrderConfig#clock() constructor clock [unique_bean]`,
      `${O}jobs.OrderCleanupJob -> ${O}config.OrderConfig#clock() constructor clock [unique_bean]`,
      `${O}service.OrderService -> ${O}pricing.SeasonalPricer constructor pricer [unique_bean]`,
      `${O}payment.PaymentRouter -> ${O}payment.CardPaymentHandler constructor handlers [collection]`,
      `${O}payment.PaymentRouter -> ${O}payment.PaypalPaymentHandler constructor handlers [collection]`,
      `${O}payment.PaymentRouter -> ${O}payment.InvoicePaymentHandler constructor handlers [collection]`,
      `${O}payment.PaymentRouter -> ${O}payment.CardPaymentHandler constructor cardHandler [qualifier]`,
      `${O}payment.PaymentRouter -> ${O}payment.PaypalPaymentHandler field defaultHandler [primary]`,
      `${O}messaging.PaymentEventsListener -> ${O}payment.InvoicePaymentHandler field invoiceHandler [qualifier]`,
      `${B}core.InvoiceService -> ${B}core.DefaultTaxPolicy constructor taxPolicy [primary]`,
      `${B}core.InvoiceService -> ${B}core.InMemoryInvoiceStore constructor store [unique_bean]`,
    ].sort());
  });
});

describe('estate: calls', () => {
  const cases: [string, string[]][] = [
    [
      `${O}service.OrderService#place(CreateOrderRequest,String)`,
      [
        `45: ${O}api.CreateOrderRequest#subtotal()`,
        `46: external: ${O}repo.OrderRepository#save`,
        `46: ${O}domain.Order#<init>(String,BigDecimal,String)`,
        `46: ${O}api.CreateOrderRequest#customerId()`,
        `47: ${O}mapper.OrderMapper#toDto(Order)`,
        '48: external: org.slf4j.Logger#debug',
        `48: ${O}api.OrderDto#id()`,
        '48: external: java.lang.String#valueOf',
        `49: ${O}payment.PaymentRouter#route(String)`,
        `49: ${O}api.PaymentHandler#handle(OrderDto)`,
        `50: ${O}api.PaymentResult#approved()`,
        `51: ${O}domain.Order#markPaid()`,
        `52: ${O}messaging.OrderEventsPublisher#publishPaid(OrderDto)`,
        `52: ${O}mapper.OrderMapper#toDto(Order)`,
        `54: ${O}mapper.OrderMapper#toDto(Order)`,
      ],
    ],
    [`${O}service.OrderService#place(CreateOrderRequest)`, [`41: ${O}service.OrderService#place(CreateOrderRequest,String)`, `41: ${O}api.CreateOrderRequest#paymentMethod()`]],
    [
      `${O}jobs.OrderCleanupJob#sweep(Duration)`,
      [
        '58: external: java.time.Clock#instant',
        '58: unresolved: minus',
        `59: ${O}service.OrderBatch#<init>(List)`,
        `59: ${O}repo.OrderRepository#findByStatus(OrderStatus)`,
        `60: ${O}service.OrderBatch#olderThan(Instant)`,
        '60: external: java.util.List#forEach',
        `60: ${O}jobs.OrderCleanupJob#cancel(Order)`,
        '61: external: org.slf4j.Logger#info',
        `61: ${O}service.OrderBatch#size()`,
      ],
    ],
    [`${O}jobs.OrderCleanupJob#cancelStaleOrders()`, ['49: external: java.lang.Runnable#run']],
    [`${O}jobs.OrderCleanupJob$1#run()`, [`46: ${O}jobs.OrderCleanupJob#sweep(Duration)`, '46: external: java.time.Duration#ofHours']],
    [`${O}jobs.OrderCleanupJob#nightly()`, ['54: external: java.util.concurrent.Executors#newSingleThreadExecutor', '54: unresolved: submit', `54: ${O}jobs.OrderCleanupJob#sweep(Duration) (λ)`, '54: external: java.time.Duration#ofDays (λ)']],
    [`${O}jobs.OrderCleanupJob#cancel(Order)`, [`65: ${O}service.OrderService#cancel(Long)`, `65: ${O}domain.Order#getId()`]],
    [`${O}jobs.OrderCleanupJob#flatPricer()`, [`69: ${O}pricing.AbstractPricer#<init>()`]],
    [`${O}jobs.OrderCleanupJob$2#price(OrderDto)`, [`72: ${O}pricing.AbstractPricer#round(BigDecimal)`, `72: ${O}api.OrderDto#total()`]],
    [`${O}service.OrderBatch#stream()`, ['19: external: java.util.List#stream']],
    [`${O}service.OrderBatch#size()`, ['23: external: java.util.List#size']],
    [`${O}service.OrderBatch#olderThan(Instant)`, ['27: external: java.util.ArrayList#<init>', `29: ${O}domain.Order#getCreatedAt()`, '29: external: java.time.Instant#isBefore', '30: external: java.util.List#add']],
    [`${O}api.OrderDto#isLarge()`, ['9: external: java.math.BigDecimal#compareTo', '9: external: java.math.BigDecimal#valueOf']],
    [
      `${O}messaging.PaymentEventsListener#onPaymentEvent(ConsumerRecord)`,
      [
        '28: external: org.apache.kafka.clients.consumer.ConsumerRecord#headers',
        '28: unresolved: forEach',
        '28: external: org.slf4j.Logger#debug (λ)',
        '28: unresolved: key (λ)',
        '29: external: java.lang.Long#valueOf',
        '29: external: org.apache.kafka.clients.consumer.ConsumerRecord#key',
        '30: external: java.lang.String#equals',
        '30: external: org.apache.kafka.clients.consumer.ConsumerRecord#value',
        `31: ${O}service.OrderService#cancel(Long)`,
        `32: ${O}api.PaymentHandler#supports(String)`,
        '32: external: org.apache.kafka.clients.consumer.ConsumerRecord#value',
        '33: external: org.slf4j.Logger#info',
      ],
    ],
    [
      `${B}core.InvoiceService#issue(String,List)`,
      [`16: ${B}core.Invoice.Companion#draft(String,List)`, `16: ${B}core.Invoice#issue()`, `17: ${B}core.BillingUtilsKt#totalWithTax(Invoice)`, '18: external: org.slf4j.Logger#info', `18: ${B}core.BillingUtilsKt#formatAmount(BigDecimal)`, `19: ${B}core.InvoiceStore#save(Invoice)`],
    ],
    [
      `${B}web.LegacyInvoiceExporter#export(Invoice)`,
      [
        `23: ${B}core.BillingUtilsKt#totalWithTax(Invoice)`,
        `24: ${B}core.Invoice#getId()`,
        `24: ${B}core.Invoice#getCustomerId()`,
        `24: ${B}core.Invoice#getTotal()`,
        `25: ${B}core.Invoice#getStatus()`,
        `26: ${B}core.Invoice#setStatus(InvoiceStatus)`,
        `28: ${B}core.BillingUtilsKt#formatAmount(BigDecimal)`,
        `28: ${B}core.InvoiceService#taxFor(Invoice)`,
        `29: ${B}core.InvoiceNumbers#next()`,
      ],
    ],
    [`${B}web.LegacyInvoiceExporter#placeholder(String)`, [`33: ${B}core.Invoice.Companion#draft(String,List)`, '33: external: java.util.List#of']],
    [`${O}service.OrderService#openTotal()`, [`67: ${O}api.Money#of(long)`, `68: ${O}service.OrderService#findOpen()`, `69: ${O}api.Money#plus(Money)`, `69: ${O}api.Money#valueOf(BigDecimal)`, `69: ${O}domain.Order#getTotal()`]],
    [`${O}service.OrderService#shippingFee(OrderDto)`, [`75: ${O}api.OrderDto#isLarge()`, `75: ${O}api.Money#of(String)`, `75: ${O}api.Money#of(long)`]],
    [`${O}service.OrderService#quote(OrderDto)`, ['58: external: java.util.Optional#orElse', `59: ${O}api.OrderDto#total()`, `59: ${O}pricing.PriceCalculator#price(OrderDto)`]],
    [`${O}service.OrderService#cancel(Long)`, [`79: external: ${O}repo.OrderRepository#findById`, '79: unresolved: ifPresent', `79: ${O}domain.Order#cancel()`]],
    [`${O}api.Money#of(String)`, [`13: ${O}api.Money#valueOf(BigDecimal)`, '13: external: java.math.BigDecimal#<init>']],
    [`${O}payment.PaymentRouter#<init>(PaymentHandler)`, [`39: ${O}payment.PaymentRouter#<init>(List,PaymentHandler)`, '39: external: java.util.List#of']],
    [`${O}payment.PaymentRouter#payWithRetry(OrderDto,int)`, [`58: ${O}payment.PaymentRouter#route(String)`, `58: ${O}api.OrderDto#paymentMethod()`, `58: ${O}api.PaymentHandler#handle(OrderDto,int)`]],
    [`${O}payment.PaymentRouter.Decision#handler()`, [`71: ${O}payment.PaymentRouter#route(String)`]],
    [`${O}api.PaymentHandler#handle(OrderDto,int)`, [`11: ${O}api.PaymentResult#declined(String)`, `12: ${O}api.PaymentResult#approved()`, `13: ${O}api.PaymentHandler#handle(OrderDto)`]],
    [`${O}api.CreateOrderRequest#subtotal()`, ['18: external: java.util.List#stream', '18: external: java.util.stream.Stream#map', `18: ${O}api.CreateOrderRequest.LineItem#amount()`, '18: external: java.util.stream.Stream#reduce', '18: external: java.math.BigDecimal#add']],
    [
      `${O}web.OrderController#listOpen()`,
      ['33: external: org.springframework.beans.factory.ObjectProvider#getObject', `34: ${O}service.OrderService#findOpen()`, '34: external: java.util.List#stream', '34: external: java.util.stream.Stream#map', `34: ${O}mapper.OrderMapper#toDto(Order)`, '34: external: java.util.stream.Stream#toList'],
    ],
    [`${O}legacy.BrokenOrderImporter#parseStatus(String)`, [`13: ${O}api.OrderStatus#fromCode(String)`, '13: external: java.lang.String#trim']],
  ];
  for (const [method, expected] of cases) test(method, async () => assert.deepEqual(await callsOf(method), sorted(expected)));

  test('every CALLS edge carries line, confidence and strategy; unresolved ones have confidence 0', async () => {
    const edges = await edgesOf(`${O}messaging.PaymentEventsListener#onPaymentEvent(ConsumerRecord)`, 'out', 'CALLS');
    for (const e of edges) {
      assert.equal(typeof e.attrs.line, 'number');
      assert.equal(typeof e.attrs.strategy, 'string');
      assert.ok(e.attrs.confidence >= 0 && e.attrs.confidence <= 1);
      if (e.attrs.strategy === 'unresolved') assert.equal(e.attrs.confidence, 0);
      else assert.ok(e.attrs.confidence > 0.5);
    }
  });

  test('the file with a syntax error is indexed as far as it parses', async () => {
    const t = await byQn(`${O}legacy.BrokenOrderImporter`);
    assert.ok((t.props.parse_errors as number) >= 1);
    assert.deepEqual([t.service, t.module, t.props.role], ['order-service', 'orders-app', 'OTHER']);
  });
});

describe('estate: callers', () => {
  const cases: [string, string[]][] = [
    [`${O}api.PaymentHandler#handle(OrderDto)`, [`${O}service.OrderService#place(CreateOrderRequest,String)`, `${O}api.PaymentHandler#handle(OrderDto,int)`]],
    [`${O}api.PaymentHandler#handle(OrderDto,int)`, [`${O}payment.PaymentRouter#payWithRetry(OrderDto,int)`]],
    [`${O}api.PaymentHandler#supports(String)`, [`${O}payment.PaymentRouter#route(String)`, `${O}messaging.PaymentEventsListener#onPaymentEvent(ConsumerRecord)`]],
    [`${O}payment.CardPaymentHandler#handle(OrderDto)`, []],
    [`${O}service.OrderService#cancel(Long)`, [`${O}jobs.OrderCleanupJob#cancel(Order)`, `${O}messaging.PaymentEventsListener#onPaymentEvent(ConsumerRecord)`]],
    [`${O}repo.OrderRepository#findByStatus(OrderStatus)`, [`${O}service.OrderService#findOpen()`, `${O}jobs.OrderCleanupJob#sweep(Duration)`]],
    [`${B}core.BillingUtilsKt#totalWithTax(Invoice)`, [`${B}core.InvoiceService#issue(String,List)`, `${B}web.LegacyInvoiceExporter#export(Invoice)`]],
    [`${B}core.TaxPolicy#rateFor(String)`, [`${B}core.InvoiceService#taxFor(Invoice)`]],
    [`${B}core.Invoice#getTotal()`, [`${B}web.LegacyInvoiceExporter#export(Invoice)`]],
    [`${O}api.Money#of(long)`, [`${O}service.OrderService#openTotal()`, `${O}service.OrderService#shippingFee(OrderDto)`]],
    [`${O}api.Money#of(String)`, [`${O}service.OrderService#shippingFee(OrderDto)`]],
    [`${O}api.Money#valueOf(BigDecimal)`, [`${O}api.Money#of(String)`, `${O}service.OrderService#openTotal()`]],
    [`${O}service.OrderService#place(CreateOrderRequest)`, [`${O}web.OrderController#createOrder(CreateOrderRequest)`]],
    [`${O}service.OrderBatch#stream()`, []],
    [`${O}service.OrderBatch#size()`, [`${O}jobs.OrderCleanupJob#sweep(Duration)`]],
    [`${O}pricing.DiscountPricer#price(OrderDto)`, [`${O}pricing.SeasonalPricer#price(OrderDto)`]],
    [`${O}pricing.PriceCalculator#price(OrderDto)`, [`${O}service.OrderService#quote(OrderDto)`]],
    [
      `${O}api.OrderDto#total()`,
      [`${O}service.OrderService#quote(OrderDto)`, `${O}payment.InvoicePaymentHandler#handle(OrderDto)`, `${O}pricing.DiscountPricer#price(OrderDto)`, `${O}jobs.OrderCleanupJob$2#price(OrderDto)`, `${B}web.OrderEventsConsumer#onOrderPaid(OrderDto)`],
    ],
  ];
  for (const [method, expected] of cases) test(method, async () => assert.deepEqual(await others(method, 'in', 'CALLS'), sorted(expected)));

  test('dispatch: an implementation is reached from the interface method it overrides', async () => {
    assert.deepEqual(await others(`${O}api.PaymentHandler#handle(OrderDto)`, 'in', 'OVERRIDES'), sorted(['CardPaymentHandler', 'PaypalPaymentHandler', 'InvoicePaymentHandler', 'PaymentRouter$1'].map((c) => `${O}payment.${c}#handle(OrderDto)`)));
  });
});

describe('estate: impact', () => {
  for (const [seed, expected] of IMPACT_CASES) {
    test(`impact of ${seed}`, async () => {
      const id = (await byQn(seed)).id;
      const r = (await runTool(ctx(), 'impact', { ids: [id], depth: 5 })) as any;
      assert.equal(r.ok, true, JSON.stringify(r.error));
      assert.deepEqual(impactSets(r), expected);
    });
  }

  test('impact of a type without its members walks only the type edges', async () => {
    const id = (await byQn(`${O}repo.OrderRepository`)).id;
    const r = (await runTool(ctx(), 'impact', { ids: id, depth: 5, include_members: false })) as any;
    // USES: the members naming the type (a setter and a constructor parameter) are dependents too.
    assert.deepEqual(impactSets(r), {
      'order-service': {
        1: sorted([`${O}service.OrderService`, `${O}jobs.OrderCleanupJob`, `${O}jobs.OrderCleanupJob#setOrderRepository(OrderRepository)`, `${O}service.OrderService#<init>(OrderRepository,PaymentRouter,Optional,OrderEventsPublisher,OrderMapper)`]),
        2: sorted([`${O}web.OrderController`, `${O}messaging.PaymentEventsListener`, `${O}jobs.OrderCleanupJob#<init>(OrderService,Clock)`, `${O}web.OrderController#<init>(OrderService,ObjectProvider)`]),
      },
    });
    const handler = (await byQn(`${O}api.PaymentHandler`)).id;
    const h = (await runTool(ctx(), 'impact', { ids: handler, depth: 5, include_members: false, edge_types: ['INJECTS', 'IMPLEMENTS'] })) as any;
    assert.deepEqual(impactSets(h), {
      'order-service': {
        1: sorted(['payment.CardPaymentHandler', 'payment.PaypalPaymentHandler', 'payment.InvoicePaymentHandler', 'payment.PaymentRouter$1', 'payment.PaymentRouter', 'messaging.PaymentEventsListener'].map((x) => O + x)),
        2: [`${O}service.OrderService`],
        3: sorted([`${O}web.OrderController`, `${O}jobs.OrderCleanupJob`]),
      },
    });
  });

  test('the cap reports has_more and a hint that validates; bad input teaches', async () => {
    const id = (await byQn(`${O}api.OrderDto#total()`)).id;
    const r = (await runTool(ctx(), 'impact', { ids: [id], limit: 2 })) as any;
    assert.equal(r.total, 2);
    assert.equal(r.has_more, true);
    assert.equal(r.hints[0].tool, 'impact');
    const bad = (await runTool(ctx(), 'impact', { ids: [id], edge_types: ['CALL'] })) as any;
    assert.equal(bad.ok, false);
    assert.match(bad.error.message, /CALLS/);
    const missing = (await runTool(ctx(), 'impact', { ids: ['sy_nope'] })) as any;
    assert.equal(missing.error.code, 'not_found');
  });
});

describe('estate: HTTP routes', () => {
  test('every route of every controller, with its handler: Spring mappings composed, one inherited from a generated API interface, none from a Feign client', async () => {
    const routes = await all('route', { declared: true, protocol: 'http' });
    const exposedBy = async (id: string) => {
      const r = (await runTool(ctx(), 'neighbors', { ids: [id], direction: 'in', edge_types: ['EXPOSES'] })) as any;
      assert.equal(r.ok, true, JSON.stringify(r.error));
      return r.edges.map((e: any) => e.other.qualified_name).join(',');
    };
    const rows = await Promise.all(routes.map(async (r) => `${r.qualified_name} <- ${await exposedBy(r.id)} [${r.props.path_pattern}]`));
    assert.deepEqual(rows.sort(), [
      `billing-service GET /invoices/{customerId}/outstanding <- ${B}web.InvoiceController#outstanding(String) [/invoices/{}/outstanding]`,
      `billing-service POST /invoices <- ${B}web.InvoiceController#create(CreateInvoiceRequest) [/invoices]`,
      `inventory GET /stock/{sku} <- ${I}StockController#level(String) [/stock/{}]`,
      `inventory POST /stock/{sku}/reservations <- ${I}StockController#reserve(String,int) [/stock/{}/reservations]`,
      `order-service GET /orders/open <- ${O}web.OrderController#listOpen() [/orders/open]`,
      `order-service GET /orders/open/total <- ${O}web.OrderController#openTotal() [/orders/open/total]`,
      `order-service GET /orders/{id} <- ${O}api.generated.OrdersApi#getOrder(Long) [/orders/{}]`,
      `order-service POST /orders <- ${O}web.OrderController#createOrder(CreateOrderRequest) [/orders]`,
    ]);
    for (const r of routes) {
      assert.equal(r.props.resolved, true);
      assert.equal(r.props.framework, 'spring_mvc');
      assert.match(String(r.props.path).replace(/\{[^}]*\}/g, 'x'), new RegExp(String(r.props.path_regex)));
    }
    const inherited = routes.find((r) => r.props.path === '/orders/{id}')!;
    assert.equal(inherited.props.controller, `${O}web.OrderController`);
    assert.equal(inherited.file, 'orders/orders-app/src/main/java/com/acme/orders/web/OrderController.java');
  });

  test('routes filter by method and path prefix, and search finds them by path words', async () => {
    const gets = await all('route', { http_method: 'GET', path_prefix: '/orders', declared: true });
    assert.deepEqual(gets.map((r) => r.props.path).sort(), ['/orders/open', '/orders/open/total', '/orders/{id}']);
    const r = (await runTool(ctx(), 'search', { query: 'stock reservations', kinds: ['route'] })) as any;
    assert.equal(r.ok, true);
    assert.equal(r.results[0].node.qualified_name, 'inventory POST /stock/{sku}/reservations');
  });
});

describe('estate: HTTP clients', () => {
  test('a Feign client declares its calls; one matches a route of another service, one reaches no declared route and stays visible', async () => {
    const clients = await all('client');
    const rows = await Promise.all(
      clients.map(async (c) => {
        const r = (await runTool(ctx(), 'neighbors', { ids: [c.id], direction: 'out', edge_types: ['HTTP_CALLS'] })) as any;
        const d = (await runTool(ctx(), 'neighbors', { ids: [c.id], direction: 'in', edge_types: ['DECLARES_CLIENT'] })) as any;
        const targets = r.edges.map((e: any) => `${e.other.qualified_name} [${e.attrs.match}${e.other.props?.declared === false ? ', undeclared' : ''}]`);
        return `${c.qualified_name} (${c.props.match}) <- ${d.edges.map((e: any) => e.other.qualified_name).join(',')} -> ${targets.join(' | ')}`;
      }),
    );
    assert.deepEqual(rows.sort(), [
      `order-service -> billing-service GET /invoices/{id} (unmatched) <- ${O}client.BillingClient#getInvoice(String) -> billing-service GET /invoices/{id} [unmatched]`,
      `order-service -> billing-service POST /invoices (cross_service) <- ${O}client.BillingClient#createInvoice(InvoiceRequest) -> billing-service POST /invoices [cross_service]`,
    ]);
    const undeclared = await all('route', { declared: false });
    assert.deepEqual(undeclared.map((r) => r.qualified_name), ['billing-service GET /invoices/{id}']);
    assert.equal(undeclared[0]!.file, undefined);
  });

  test('the service topology is one hop away: SERVICE_CALLS with call counts', async () => {
    const services = await all('service');
    const rows: string[] = [];
    for (const svc of services) {
      const r = (await runTool(ctx(), 'neighbors', { ids: [svc.id], direction: 'out', edge_types: ['SERVICE_CALLS'] })) as any;
      for (const e of r.edges) rows.push(`${svc.name} -> ${e.other.name} ${e.attrs.protocol} calls=${e.attrs.calls} matched=${e.attrs.matched}`);
    }
    assert.deepEqual(rows.sort(), ['order-service -> billing-service http calls=2 matched=1', 'order-service -> billing-service kafka calls=1 matched=1']);
  });

  test('who calls a route from another service: HTTP_CALLS in', async () => {
    const [route] = await all('route', { service: 'billing-service', http_method: 'POST', path: '/invoices' });
    const r = (await runTool(ctx(), 'neighbors', { ids: [route!.id], direction: 'in', edge_types: ['HTTP_CALLS'] })) as any;
    assert.deepEqual(r.edges.map((e: any) => `${e.other.service}: ${e.other.qualified_name} [${e.attrs.match}]`), ['order-service: order-service -> billing-service POST /invoices [cross_service]']);
  });
});

describe('estate: messaging', () => {
  test('listeners are routes of their service; a producer whose topic is a constant in another file reaches the listener in another service', async () => {
    const listeners = await all('route', { protocol: 'kafka', declared: true });
    const exposed = async (id: string) => ((await runTool(ctx(), 'neighbors', { ids: [id], direction: 'in', edge_types: ['EXPOSES'] })) as any).edges.map((e: any) => e.other.qualified_name).join(',');
    assert.deepEqual((await Promise.all(listeners.map(async (l) => `${l.qualified_name} <- ${await exposed(l.id)}`))).sort(), [
      `billing-service kafka orders.events <- ${B}web.OrderEventsConsumer#onOrderPaid(OrderDto)`,
      `order-service kafka payments.events <- ${O}messaging.PaymentEventsListener#onPaymentEvent(ConsumerRecord)`,
    ]);
    const producers = await all('producer');
    assert.deepEqual(producers.map((p) => `${p.qualified_name} ${p.props.match} ${p.props.destination_written} ${p.props.caller}`), [
      `order-service -> kafka orders.events cross_service OrderConfig.ORDER_EVENTS_TOPIC ${O}messaging.OrderEventsPublisher#publishPaid(OrderDto)`,
    ]);
    const r = (await runTool(ctx(), 'neighbors', { ids: [producers[0]!.id], direction: 'out', edge_types: ['ASYNC_CALLS'] })) as any;
    assert.deepEqual(r.edges.map((e: any) => `${e.other.qualified_name} [${e.attrs.match}]`), ['billing-service kafka orders.events [cross_service]']);
  });
});

describe('estate: natural identifiers', () => {
  const resolve = async (identifier: string) => (await runTool(ctx(), 'resolve', { identifier })) as any;
  test('a route as people write it: method and path with any variable names, a concrete path, a service, no method', async () => {
    for (const [identifier, expected] of [
      ['GET /orders/{id}', 'order-service GET /orders/{id}'],
      ['GET /orders/{orderId}', 'order-service GET /orders/{id}'],
      ['order-service GET /orders/42', 'order-service GET /orders/{id}'],
      ['get /orders/open', 'order-service GET /orders/open'],
      ['/invoices', 'billing-service POST /invoices'],
      ['orders.events', 'billing-service kafka orders.events'],
      ['billing-service', 'billing-service'],
    ] as const) {
      const r = await resolve(identifier);
      assert.equal(r.status, 'one', `${identifier}: ${JSON.stringify(r.candidates ?? r.absence)}`);
      assert.equal(r.node.qualified_name, expected, identifier);
    }
  });

  test('a path no route serves is none, explained', async () => {
    const r = await resolve('DELETE /orders/1');
    assert.equal(r.status, 'none');
    assert.ok(r.absence.reason);
  });
});

describe('estate: describe a route', () => {
  test('lists its callers across services directly: service, calling method, match', async () => {
    const r = (await runTool(ctx(), 'describe', { id: 'billing-service POST /invoices' })) as any;
    assert.equal(r.ok, true, JSON.stringify(r.error));
    assert.equal(r.node.callers_total, 1);
    assert.deepEqual(
      r.node.callers.map((c: any) => `${c.service} ${c.caller} ${c.edge} ${c.match}`),
      [`order-service ${O}client.BillingClient#createInvoice(InvoiceRequest) HTTP_CALLS cross_service`],
    );
    const topic = (await runTool(ctx(), 'describe', { id: 'billing-service kafka orders.events' })) as any;
    assert.deepEqual(topic.node.callers.map((c: any) => `${c.service} ${c.caller} ${c.edge} ${c.match}`), [`order-service ${O}messaging.OrderEventsPublisher#publishPaid(OrderDto) ASYNC_CALLS cross_service`]);
    const nobody = (await runTool(ctx(), 'describe', { id: 'inventory GET /stock/{sku}' })) as any;
    assert.deepEqual(nobody.node.callers, []);
  });
});
