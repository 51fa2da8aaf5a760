/**
 * Incremental re-indexing gives exactly what a full build gives: after each step of a scripted sequence of
 * edits, the incrementally updated indexes and a fresh full index of the same tree hold the same nodes, the
 * same edges and the same node order (which is the order answers are given in). Two incremental paths are
 * checked: a one-shot build (facts cache and the assembler's state on disk + store patch) and a long-running one
 * as under `index --watch` (facts and per-file graph kept in memory); both emit again only the files a change reaches.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sextantOntology } from '../src/graph/ontology/index.js';
import { dumpIndex, openTestStore, TEST_STORE, testStoreLocation } from './helpers/store.js';
import { buildWorkspace, type BuildReport } from '../src/indexer/build.js';
import { fileURLToPath } from 'node:url';
import { ageTree, ESTATE, estateSource } from './helpers/estate.js';

const ontology = sextantOntology();

type Step = [string, (edit: (rel: string, f: (text: string) => string) => void, root: string) => void];

/**
 * Copies `fixture`, builds it once both ways, then after each step checks both incremental indexes against a
 * fresh full build. `files`: how many source files the fixture has.
 */
function incrementalSuite(title: string, fixture: string, files: number, steps: readonly Step[]): void {
  let root: string;
  let work: string;
  const incrementalStore = () => join(work, 'incremental');
  const watchingStore = () => join(work, 'watching');
  /** Whether the one-shot index was built again (not answered from the stamps) since the first build. */
  let reindexed = false;
  /** The in-memory state of one long-running indexer, kept across steps. */
  const session = new Map<string, unknown>();
  const edit = (rel: string, f: (text: string) => string) => writeFileSync(join(root, rel), f(readFileSync(join(root, rel), 'utf8')));

  async function index(storeDir: string, cacheDir?: string, keep?: Map<string, unknown>): Promise<BuildReport> {
    const store = await openTestStore(ontology, storeDir, { mode: 'write' });
    try {
      return await buildWorkspace(store, ontology, { dir: root, sources: [estateSource(root)] }, {}, process.env, { ...(cacheDir ? { cacheDir } : {}), ...(keep ? { session: keep } : {}) });
    } finally {
      await store.close();
    }
  }

  describe(title, () => {
    before(() => {
      work = mkdtempSync(join(tmpdir(), 'sextant-incremental-'));
      root = join(work, 'estate');
      cpSync(fixture, root, { recursive: true });
      // As a checkout is: older than a build. (A file changed within seconds of a build is checked by content, and a
      // directory is not trusted at all: `step 1` would then build in full, which proves nothing about the stamps.)
      ageTree(root, Date.now() / 1000 - 3600);
    });
    after(() => rmSync(work, { recursive: true, force: true }));

    test('the first build is full and parses every file', async () => {
      const r = await index(incrementalStore(), join(work, 'cache'));
      assert.equal(r.sources[0]!.written, 'full');
      assert.equal((r.sources[0]!.details as { parsed: number }).parsed, files);
      const w = await index(watchingStore(), join(work, 'cache-watching'), session);
      assert.equal((w.sources[0]!.details as { emitted: number }).emitted, files);
    });

    for (const [i, [what, apply]] of steps.entries()) {
      test(`step ${i + 1}: ${what}`, async () => {
        apply(edit, root);
        const inc = await index(incrementalStore(), join(work, 'cache'));
        const watching = await index(watchingStore(), join(work, 'cache-watching'), session);
        const fullDir = join(work, `full-${i}`);
        await index(fullDir);
        const b = await dumpIndex(await testStoreLocation(fullDir));
        for (const [how, dir] of [['one-shot', incrementalStore()], ['watching', watchingStore()]] as const) {
          const a = await dumpIndex(await testStoreLocation(dir));
          assert.equal(a.nodes.length, b.nodes.length, `${how}: node count`);
          assert.deepEqual(a.nodes, b.nodes, `${how}: nodes and their order`);
          assert.deepEqual(a.edges, b.edges, `${how}: edges`);
        }
        const emitted = (watching.sources[0]!.details as { emitted: number }).emitted;
        // From the second re-index on, the one-shot build restores the assembler's state the last one saved, and
        // re-emits what a watching one does. (The first re-index assembles everything, and saves the state.)
        if (inc.sources[0]!.written !== 'unchanged') {
          if (reindexed) assert.equal((inc.sources[0]!.details as { emitted: number }).emitted, emitted, 'one-shot: emits the files a watching build does');
          else assert.equal((inc.sources[0]!.details as { emitted: number }).emitted, files, 'one-shot: the first re-index emits every file');
          reindexed = true;
        }
        if (what === 'nothing changed') assert.equal(emitted, 0, 'nothing emitted again');
        else if (what.includes('body')) assert.equal(emitted, 1, 'a body edit emits its own file only');
        else if (!what.includes('application.yml')) assert.ok(emitted < files / 2, `an update emits only the files it reaches (${emitted})`);
        // A node whose qualified name changes under the same id moves in the node order: the store writes in full.
        const patchable = !what.includes('application.yml') && !what.includes('full write');
        // SQLite applies a patch in place; PostgreSQL rewrites the source in one transaction (the same rows either way).
        if (patchable && TEST_STORE === 'sqlite') assert.equal(watching.sources[0]!.written, 'patch', 'watching: applied as a patch');
        const details = inc.sources[0]!.details as { parsed: number };
        if (what === 'nothing changed') assert.equal(details.parsed, 0);
        else if (!what.includes('application.yml') && !what.includes('deleted') && !what.includes('build file')) assert.equal(details.parsed, 1, 'only the changed file is parsed again');
        if (what.includes('build file')) assert.equal(details.parsed, 0, 'a build file edit parses no source');
        // Nothing changed: the one-shot build answers from the stamps of what the last one read, and writes nothing.
        if (what === 'nothing changed') assert.equal(inc.sources[0]!.written, 'unchanged', 'answered from the stamps');
        else if (patchable && TEST_STORE === 'sqlite') assert.equal(inc.sources[0]!.written, 'patch', 'applied as a patch');
        rmSync(fullDir, { recursive: true, force: true });
      });
    }
  });
}

const P = 'orders/orders-app/src/main/java/com/acme/orders/';

const STEPS: Step[] = [
  ['nothing changed', (edit, root) => {}],
  ['a method and a call added to one file', (edit, root) => edit(`${P}service/OrderBatch.java`, (t) => t.replace(/\n}\s*$/, '\n    public int twice() {\n        return size() + size();\n    }\n}\n'))],
  [
    'a call of a method the repository inherits from Spring Data, added in another file (a new member of the repository, in its file)',
    (edit) => edit(`${P}jobs/OrderCleanupJob.java`, (t) => t.replace('log.info("checked {} open orders", batch.size());', 'log.info("checked {} open orders of {}", batch.size(), orderRepository.count());')),
  ],
  [
    'a new file: another PaymentHandler implementation (new nodes between existing ones; callers elsewhere unchanged)',
    (edit, root) =>
      writeFileSync(
        join(root, `${P}payment/CashPaymentHandler.java`),
        'package com.acme.orders.payment;\n\nimport com.acme.orders.api.OrderDto;\nimport com.acme.orders.api.PaymentHandler;\nimport com.acme.orders.api.PaymentResult;\nimport org.springframework.stereotype.Component;\n\n@Component("cash")\npublic class CashPaymentHandler implements PaymentHandler {\n    public boolean supports(String method) { return "cash".equals(method); }\n    public PaymentResult handle(OrderDto order) { return PaymentResult.declined("no cash"); }\n}\n',
      ),
  ],
  ['a method removed that others call (their edges change too)', (edit, root) => edit(`${P}service/OrderBatch.java`, (t) => t.replace(/\n    public int size\(\) \{[\s\S]*?\n    \}\n/, '\n'))],
  ['a file deleted', (edit, root) => unlinkSync(join(root, `${P}jobs/OrderCleanupJob.java`))],
  ['a file moved to another package', (edit, root) => renameSync(join(root, `${P}payment/CashPaymentHandler.java`), join(root, `${P}service/CashPaymentHandler.java`))],
  ['a method body edited, nothing else', (edit, root) => edit(`${P}payment/CardPaymentHandler.java`, (t) => t.replace(/return "card"\.equals\(/, 'return "credit-card".equals('))],
  ['@Primary removed from a bean (injections in another file change)', (edit, root) => edit(`${P}payment/PaypalPaymentHandler.java`, (t) => t.replace('@Primary\n', ''))],
  ['a supertype removed (inherited calls and overrides in other files change)', (edit, root) => edit(`${P}pricing/DiscountPricer.java`, (t) => t.replace(' extends AbstractPricer', ''))],
  [
    'a new file importing a library package with a wildcard',
    (edit, root) => writeFileSync(join(root, `${P}web/VendorPing.java`), 'package com.acme.orders.web;\n\nimport com.acme.vendor.*;\n\npublic class VendorPing {\n    public void ping(VendorClient client) {\n        client.ping();\n    }\n}\n'),
  ],
  [
    'a file added in that package, which turns it into a project package (the importer reads it differently)',
    (edit, root) => {
      mkdirSync(join(root, 'orders/orders-app/src/main/java/com/acme/vendor'), { recursive: true });
      writeFileSync(join(root, 'orders/orders-app/src/main/java/com/acme/vendor/Other.java'), 'package com.acme.vendor;\n\npublic class Other {\n}\n');
    },
  ],
  ['a @Bean method no longer returns the injected type (bean edges in other files go)', (edit, root) => edit(`${P}config/OrderConfig.java`, (t) => t.replace('public Clock clock()', 'public java.time.InstantSource clock()'))],
  [
    'a @Bean method added for an injected interface (the injecting file names the type, not the method)',
    (edit, root) => edit(`${P}config/OrderConfig.java`, (t) => t.replace(/\n}\s*$/, '\n    @Bean\n    public com.acme.orders.pricing.PriceCalculator fallbackPricer() {\n        return null;\n    }\n}\n')),
  ],
  [
    'a mapping changed on a generated API interface (the route of the controller implementing it, in another file, changes)',
    (edit, root) => edit('orders/orders-api/src/main/java/com/acme/orders/api/generated/OrdersApi.java', (t) => t.replace('"/orders/{id}"', '"/orders/{orderId}"')),
  ],
  [
    'a route added in one service that a client in another calls (the client, in a file not edited, now matches)',
    (edit, root) => edit('billing/billing-web/src/main/kotlin/com/acme/billing/web/InvoiceController.kt', (t) => t.replace('\n}\n\ndata class CreateInvoiceRequest', '\n\n    @GetMapping("/{id}")\n    fun byId(@PathVariable id: String): String = id\n}\n\ndata class CreateInvoiceRequest')),
  ],
  ['a Kotlin file edited', (edit, root) => edit('billing/billing-core/src/main/kotlin/com/acme/billing/core/BillingUtils.kt', (t) => `${t}\nfun halve(amount: java.math.BigDecimal): java.math.BigDecimal = amount.divide(java.math.BigDecimal(2))\n`)],
  ['a dependency added to a pom.xml (build file: dependency nodes and DEPENDS_ON edges)', (edit) => edit('orders/orders-app/pom.xml', (t) => t.replace('<dependencies>\n', '<dependencies>\n        <dependency>\n            <groupId>org.springframework.boot</groupId>\n            <artifactId>spring-boot-starter-data-redis</artifactId>\n        </dependency>\n'))],
  ['a version property changed in the parent pom.xml (build file: versions resolved through it in another file change)', (edit) => edit('orders/pom.xml', (t) => t.replace('<mapstruct.version>1.5.5.Final</mapstruct.version>', '<mapstruct.version>1.6.0</mapstruct.version>'))],
  ['a Gradle dependency removed and one added (build file, Kotlin DSL)', (edit) => edit('billing/billing-web/build.gradle.kts', (t) => t.replace('    implementation("com.google.protobuf:protobuf-java:3.25.3")\n', '    runtimeOnly("org.postgresql:postgresql:42.7.3")\n'))],
  ['a configuration key added to application.yml (config_key nodes)', (edit) => edit('orders/orders-app/src/main/resources/application.yml', (t) => t.replace('server:\n  port: 8081\n', 'server:\n  port: 8081\n  servlet:\n    context-path: /orders-api\n'))],
  ['the service name changed in application.yml', (edit, root) => edit('orders/orders-app/src/main/resources/application.yml', (t) => t.replace('order-service', 'ordering'))],
];

incrementalSuite('incremental re-index equals a full build', ESTATE, 53, STEPS);

const LINKS = fileURLToPath(new URL('./fixtures/links', import.meta.url));
const G = 'gateway/src/main/java/com/acme/gateway/';
incrementalSuite('incremental re-index equals a full build: links between services', LINKS, 29, [
  ['nothing changed', () => {}],
  ['a URL constant changed (the RestTemplate clients of that file move to another route)', (edit) => edit(`${G}GatewayController.java`, (t) => t.replace('"http://order-service/orders"', '"http://order-service/orders/v2"'))],
  ['a shared path constant changed in the contracts library (Feign, annotated and functional routes, UriComponentsBuilder in other files)', (edit) => edit('contracts/src/main/java/com/acme/contracts/ApiPaths.java', (t) => t.replace('"/invoices"', '"/bills"'))],
  ['a shared topic constant changed (producer and listener in two services)', (edit) => edit('contracts/src/main/java/com/acme/contracts/Topics.java', (t) => t.replace('".created"', '".placed"'))],
  ['a functional route handler renamed (the route in another file is exposed by the router method instead)', (edit) => edit('billing/src/main/java/com/acme/billing/InvoiceHandler.java', (t) => t.replace('pdf(ServerRequest', 'pdfFile(ServerRequest'))],
  ['a method body edited, nothing else', (edit) => edit('billing/src/main/java/com/acme/billing/Ledger.java', (t) => t.replace('"invoices.issued"', '"invoices.posted"'))],
  ['a new file with a constant', (_, root) => writeFileSync(join(root, 'contracts/src/main/java/com/acme/contracts/Prefixes.java'), 'package com.acme.contracts;\n\npublic interface Prefixes {\n    String ROOT = "";\n}\n')],
  ['a path constant now built from it', (edit) => edit('contracts/src/main/java/com/acme/contracts/ApiPaths.java', (t) => t.replace('STOCK = "/stock"', 'STOCK = Prefixes.ROOT + "/stock"'))],
  ['that first constant changed: the route two constants away, in another service, moves', (edit) => edit('contracts/src/main/java/com/acme/contracts/Prefixes.java', (t) => t.replace('ROOT = ""', 'ROOT = "/api"'))],
  ['a Stream binding moved to another destination in application.yml', (edit) => edit('inventory/src/main/resources/application.yml', (t) => t.replace('destination: orders.created', 'destination: orders.placed'))],
]);

const MESSAGING = fileURLToPath(new URL('./fixtures/messaging', import.meta.url));
const O = 'order-service/src/main/java/com/acme/order/';
incrementalSuite('incremental re-index equals a full build: messaging through the evaluator', MESSAGING, 16, [
  ['nothing changed', () => {}],
  ['an enum constant argument changed (the send in another file goes to another topic)', (edit) => edit(`${O}Topic.java`, (t) => t.replace('"orders.created"', '"orders.placed"'))],
  ['a channel constant changed (a field initializer in another file sends elsewhere)', (edit) => edit(`${O}AccountingChannels.java`, (t) => t.replace('"accountingService"', '"accounting"'))],
  ['a binding key changed in another service (the exchange send reaches no queue)', (edit) => edit('billing-service/src/main/java/com/acme/billing/RabbitConfig.java', (t) => t.replace('with("order.*")', 'with("invoice.*")'))],
  ['an aggregate class renamed (the Eventuate channel of a publisher in another file moves)', (edit, root) => {
    edit(`${O}OrderDomainEventPublisher.java`, (t) => t.replace('Order.class', 'OrderDomainEvent.class'));
  }],
]);

const USES = fileURLToPath(new URL('./fixtures/uses', import.meta.url));
const X = 'shop/src/main/java/com/x/';
incrementalSuite('incremental re-index equals a full build: type usages (USES)', USES, 10, [
  ['nothing changed', () => {}],
  ['a type renamed that members in other files name (their USES edges go)', (edit) => edit(`${X}uses/Targets.java`, (t) => t.replace('class Tested {}', 'class Checked {}'))],
  ['a cast added in a method body', (edit) => edit(`${X}uses/Catalog.java`, (t) => t.replace('return (Casted) o;', 'return (Casted) (Item) o;'))],
  ['a new file: the type a parameter names becomes a project type (the edge appears)', (_, root) => writeFileSync(join(root, `${X}uses/Widget.java`), 'package com.x.uses;\n\npublic class Widget {\n}\n')],
  ['the pointcut now names only a package pattern (the USES edge of the aspect goes)', (edit) => edit(`${X}ProductAspect.java`, (t) => t.replace('execution(* com.x.ProductService.*(..))', 'execution(* com.x..*Service.*(..))'))],
  ['a file deleted: the setter-field holder of ProductService', (_, root) => unlinkSync(join(root, `${X}ProductLister.java`))],
]);

const GATEWAYS = fileURLToPath(new URL('./fixtures/gateways', import.meta.url));
incrementalSuite('incremental re-index equals a full build: gateways, proxies and client bases', GATEWAYS, 8, [
  ['nothing changed', () => {}],
  ['a Java DSL route path changed (a client in another service reaches another gateway route)', (edit) => edit('edge/src/main/java/com/acme/edge/EdgeRoutes.java', (t) => t.replace('"/api/orders/**"', '"/api/v2/orders/**"'))],
  ['a DSL target constant changed (the route forwards to another service)', (edit) => edit('edge/src/main/java/com/acme/edge/EdgeRoutes.java', (t) => t.replace('"lb://order-service"', '"lb://payment-service"'))],
  ['a client base URL changed where the proxy is built (the interface in another file calls elsewhere, its client renamed: a full write)', (edit) => edit('web-bff/src/main/java/com/acme/bff/ClientsConfig.java', (t) => t.replace('"http://order-service"', '"http://customer-service"'))],
  ['a gateway route in application.yml changed (configuration, not code)', (edit) => edit('edge/src/main/resources/application.yml', (t) => t.replace('Path=/pay/**', 'Path=/billing/**'))],
]);
