/**
 * Axon Framework messaging as links (src/sources/code/links/axon.ts), built the way the code source builds its
 * model: facts from `extractFile`, services from `detectLayout`, build texts from `readBuildInput`.
 *
 * - On the real estate ../shared/corpora/digital-restaurant (read in place): every Axon send and handler of
 *   test/estates/digital-restaurant.yaml, compared with the estate comparer (same file and method, within 3 lines,
 *   the same handlers reached, per variant).
 * - On a small estate written here, one rule per behaviour: library code runs in the services that include it;
 *   Maven's nearest declaration decides whether the Axon Server connector is there; commands and queries cross
 *   services through Axon Server only; a subscribing processor sees only its own service's events; a Kafka message
 *   source receives what the Kafka publishers of its deployment send; an event handler of a supertype receives its
 *   subtypes; a helper that sends its parameter is a send at each call site; side-by-side deployments stay apart.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { before, describe, test } from 'node:test';
import { sextantOntology } from '../src/graph/ontology/index.js';
import type { EdgeRecord, NodeRecord } from '../src/graph/types.js';
import type { LinkEntry } from '../src/query/tools/links.js';
import type { RabbitBinding } from '../src/sources/code/links/outbound-messages.js';
import { readBuildInput } from '../src/sources/code/build/files.js';
import type { ServiceInfo } from '../src/sources/code/config/layout.js';
import { detectLayout } from '../src/sources/code/config/layout.js';
import { discover } from '../src/sources/code/discover.js';
import { axonGraph, type AxonGraph, type AxonGraphInput } from '../src/sources/code/links/axon.js';
import { CallResolver } from '../src/sources/code/model/calls.js';
import { CodeModel, type MemberEntry } from '../src/sources/code/model/model.js';
import type { FileFacts } from '../src/sources/code/parse/ir.js';
import { extractFile } from '../src/sources/code/parse/job.js';
import { compareLinks, type ExpectedEstate, loadExpected } from './helpers/estate-links.js';
import { sharedDir } from './helpers/index.js';

const ontology = sextantOntology();
const memberId = (m: MemberEntry): string => `sym:${m.owner.file.path}|${m.qn}`;

function run(files: readonly FileFacts[], services: readonly ServiceInfo[], locate: (path: string) => { service: string; module: string }, extra: Partial<AxonGraphInput> = {}): AxonGraph {
  const model = new CodeModel(files, locate);
  return axonGraph({ ontology, source: 'code', model, resolver: new CallResolver(model), services, memberId, ...extra });
}

/** What each producer reaches: `Caller#method@line -> service Type#handler [strategy confidence match]`, and the unmatched ones. */
function reachSets(g: AxonGraph): string[] {
  const byId = new Map(g.nodes.map((n) => [n.id, n]));
  const short = (qn: unknown) => String(qn).replace(/^.*\.([\w$]+#[\w<>]+)\(.*$/, '$1');
  const out: string[] = [];
  for (const p of g.nodes.filter((n) => n.kind === 'producer')) {
    const edges = g.edges.filter((e) => e.type === 'ASYNC_CALLS' && e.from === p.id);
    const at = `${short(p.props.caller)}@${p.line} ${String(p.props.destination).split('.').pop()}`;
    if (!edges.length) out.push(`${at} -> (${p.props.match})`);
    for (const e of edges) {
      const r = byId.get(e.to)!;
      out.push(`${at} -> ${r.service} ${short(r.props.handler)} [${e.attrs!.strategy} ${e.attrs!.confidence} ${e.attrs!.match}]`);
    }
  }
  return out.sort();
}

// ---------------------------------------------------------------------------------------------------------------
// digital-restaurant

const ESTATE = join(sharedDir(), 'corpora', 'digital-restaurant');

interface Indexed {
  graph: AxonGraph;
  services: ServiceInfo[];
}

async function indexEstate(root: string): Promise<Indexed> {
  const found = await discover(root, { includeTests: false, exclude: [] });
  const files = await Promise.all(found.files.map((f) => extractFile(f.path, f.language, readFileSync(join(root, f.path), 'utf8'))));
  const readText = (rel: string): string | undefined => {
    try {
      return readFileSync(join(root, rel), 'utf8');
    } catch {
      return undefined;
    }
  };
  // As the code source does: a directory holding a @SpringBootApplication is deployable.
  const deployable = new Set(files.filter((f) => f.types.some((t) => t.annotations.some((a) => a.name === 'SpringBootApplication'))).map((f) => dirname(f.path)));
  const layout = detectLayout(found, readText, deployable);
  const build = readBuildInput(found, layout, readText);
  return { graph: run(files, layout.services, (p) => layout.locate(p), { build }), services: layout.services };
}

/**
 * The graph as the `links` tool lists it. A handler in a library is one route per service that includes it (each
 * service's own target); the estate file lists it once, so the copies are one listener here. The estate file writes
 * Axon destinations by simple class name; the graph keeps the qualified one.
 */
function linkEntries(g: AxonGraph): LinkEntry[] {
  const byId = new Map<string, NodeRecord>(g.nodes.map((n) => [n.id, n]));
  const out: LinkEntry[] = [];
  const listeners = new Set<string>();
  const simple = (d: unknown) => String(d).split('.').pop()!;
  for (const n of g.nodes) {
    if (n.kind === 'producer') {
      const targets = g.edges
        .filter((e: EdgeRecord) => e.type === 'ASYNC_CALLS' && e.from === n.id)
        .map((e) => byId.get(e.to)!)
        .map((r) => ({ id: r.id, qualified_name: r.qualified_name, service: r.service!, handler: String(r.props.handler), declared: true }));
      out.push({ kind: 'message', id: n.id, name: n.name, service: n.service!, file: n.file!, line: n.line!, member: String(n.props.caller), status: targets.length ? 'linked' : n.props.resolved === false ? 'unresolved' : 'no_consumer', protocol: 'axon', destination: simple(n.props.destination), targets });
    } else if (n.kind === 'route') {
      const key = `${n.file}|${n.line}|${n.props.handler}|${n.props.destination}`;
      if (listeners.has(key)) continue;
      listeners.add(key);
      out.push({ kind: 'listener', id: n.id, name: n.name, service: n.service!, file: n.file!, line: n.line!, member: String(n.props.handler), status: 'resolved', protocol: 'axon', destination: simple(n.props.destination), targets: [] });
    }
  }
  return out;
}

describe('Axon messaging on digital-restaurant', { skip: existsSync(ESTATE) ? false : 'the corpora are not on this machine' }, () => {
  let indexed: Indexed;
  let expected: ExpectedEstate;

  before(async () => {
    indexed = await indexEstate(ESTATE);
    const all = loadExpected('digital-restaurant');
    // The Rabbit listeners of the AMQP message sources are Spring AMQP listeners, not Axon's: another pass makes them.
    expected = { ...all, links: all.links.filter((x) => x.kind === 'message' || x.destination?.startsWith('axon ')) };
  });

  test('every send and handler of the estate file, reaching the handlers of its variant', (t) => {
    const dirs = new Map(indexed.services.map((s) => [s.name, s.dir]));
    const diffs = compareLinks(expected, linkEntries(indexed.graph), dirs);
    const missingOrWrong = diffs.filter((d) => d.kind !== 'extra');
    t.diagnostic(`digital-restaurant axon: ${expected.links.length - missingOrWrong.length}/${expected.links.length} expected entries matched, ${diffs.length - missingOrWrong.length} extra`);
    assert.deepEqual(diffs.map((d) => `${d.kind} ${d.at} ${d.text}`), []);
    assert.equal(expected.links.length, 188);
  });

  test('producers and routes carry the ontology properties', () => {
    const g = indexed.graph;
    const producer = g.nodes.find((n) => n.kind === 'producer' && n.file?.endsWith('OrderSaga.kt') && n.line === 66)!;
    assert.deepEqual(
      { ...producer.props, service: producer.service },
      { protocol: 'axon', framework: 'axon', destination: 'com.drestaurant.customer.domain.api.CreateCustomerOrderCommand', resolved: true, caller: 'com.drestaurant.order.domain.OrderSaga#on(OrderCreationInitiatedEvent)', match: 'cross_service', service: 'drestaurant-order' },
    );
    assert.ok(g.edges.some((e) => e.type === 'DECLARES_PRODUCER' && e.to === producer.id && e.from === 'sym:drestaurant-libs/drestaurant-order/src/main/kotlin/com/drestaurant/order/domain/OrderSaga.kt|com.drestaurant.order.domain.OrderSaga#on(OrderCreationInitiatedEvent)'));
    // A library handler is a route in each service that includes the library.
    const routes = g.nodes.filter((n) => n.kind === 'route' && n.props.handler === 'com.drestaurant.customer.domain.Customer#handle(CreateCustomerOrderCommand)');
    assert.equal(routes.length, 4);
    for (const r of routes) {
      assert.deepEqual(r.props, { protocol: 'axon', destination: 'com.drestaurant.customer.domain.api.CreateCustomerOrderCommand', framework: 'axon', handler: 'com.drestaurant.customer.domain.Customer#handle(CreateCustomerOrderCommand)', controller: 'com.drestaurant.customer.domain.Customer', declared: true, resolved: true });
      assert.ok(g.edges.some((e) => e.type === 'EXPOSES' && e.to === r.id));
    }
    const unmatched = g.nodes.filter((n) => n.kind === 'producer' && n.props.match === 'unmatched').map((n) => `${n.file!.split('/').pop()}:${n.line}`);
    assert.deepEqual(unmatched, ['CustomerOrder.kt:51']);
    assert.deepEqual(indexed.graph.warnings, []);
  });

  test('deterministic', async () => {
    const again = await indexEstate(ESTATE);
    assert.deepEqual(again.graph, indexed.graph);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// One rule per behaviour

const SOURCES: Record<string, string> = {
  'api/src/main/kotlin/com/shop/api/messages.kt': `package com.shop.api
data class PlaceOrder(val id: String)
data class ShipOrder(val id: String)
data class FindOrder(val id: String)
abstract class OrderEvent(val id: String)
class OrderPlaced(id: String) : OrderEvent(id)
`,
  'orders/src/main/java/com/shop/orders/Order.java': `package com.shop.orders;

import static org.axonframework.modelling.command.AggregateLifecycle.apply;

import com.shop.api.OrderPlaced;
import com.shop.api.PlaceOrder;
import org.axonframework.commandhandling.CommandHandler;

public class Order {
    @CommandHandler
    public Order(PlaceOrder command) {
        apply(new OrderPlaced(command.getId()));
    }
}
`,
  'server/order-app/src/main/kotlin/com/shop/web/OrderController.kt': `package com.shop.web

import com.shop.api.FindOrder
import com.shop.api.PlaceOrder
import com.shop.api.ShipOrder
import org.axonframework.commandhandling.gateway.CommandGateway
import org.axonframework.queryhandling.QueryGateway
import org.springframework.boot.autoconfigure.SpringBootApplication

@SpringBootApplication
class OrderApp

class OrderController(private val commandGateway: CommandGateway, private val queryGateway: QueryGateway) {
    fun place(id: String) {
        val command = PlaceOrder(id)
        commandGateway.sendAndWait<Any>(command)
    }

    fun find(id: String) = queryGateway.query(FindOrder(id), String::class.java)

    fun ship(id: String) = dispatch(ShipOrder(id))

    private fun dispatch(message: Any) = commandGateway.send<Any>(message)

    fun count() = queryGateway.query("countOrders", FindOrder("all"), Int::class.java)
}
`,
  'server/ship-app/src/main/kotlin/com/shop/ship/Shipping.kt': `package com.shop.ship

import com.shop.api.FindOrder
import com.shop.api.OrderEvent
import com.shop.api.OrderPlaced
import com.shop.api.ShipOrder
import org.axonframework.commandhandling.CommandHandler
import org.axonframework.config.ProcessingGroup
import org.axonframework.eventhandling.EventHandler
import org.axonframework.queryhandling.QueryHandler
import org.springframework.boot.autoconfigure.SpringBootApplication

@SpringBootApplication
class ShipApp

class Shipping {
    @EventHandler
    fun on(event: OrderPlaced) {}

    @QueryHandler
    fun find(query: FindOrder): String = "found"

    @CommandHandler
    fun ship(command: ShipOrder) {}

    @QueryHandler(queryName = "countOrders")
    fun count(query: FindOrder): Int = 0
}

@ProcessingGroup("audit")
class Audit {
    @EventHandler
    fun on(event: OrderEvent) {}
}
`,
  'local/order-app2/src/main/kotlin/com/shop/web2/Controller2.kt': `package com.shop.web2

import com.shop.api.FindOrder
import com.shop.api.PlaceOrder
import org.axonframework.commandhandling.gateway.CommandGateway
import org.axonframework.queryhandling.QueryGateway
import org.springframework.boot.autoconfigure.SpringBootApplication

@SpringBootApplication
class OrderApp2

class Controller2(private val commandGateway: CommandGateway, private val queryGateway: QueryGateway) {
    fun place(id: String) = commandGateway.send<Any>(PlaceOrder(id))

    fun find(id: String) = queryGateway.query(FindOrder(id), String::class.java)
}
`,
  'local/ship-app2/src/main/kotlin/com/shop/ship2/Shipping2.kt': `package com.shop.ship2

import com.shop.api.FindOrder
import com.shop.api.OrderEvent
import com.shop.api.OrderPlaced
import org.axonframework.config.ProcessingGroup
import org.axonframework.eventhandling.EventHandler
import org.axonframework.queryhandling.QueryHandler
import org.springframework.boot.autoconfigure.SpringBootApplication

@SpringBootApplication
class ShipApp2

@ProcessingGroup("shipping")
class Shipping2 {
    @EventHandler
    fun on(event: OrderEvent) {}

    @QueryHandler
    fun find(query: FindOrder): String = "found"
}

class Projection2 {
    @EventHandler
    fun on(event: OrderPlaced) {}
}
`,
};

function pom(artifact: string, deps: string[]): string {
  const dep = (d: string) => {
    const [a, excluded] = d.split('!');
    return `<dependency><groupId>${a!.startsWith('axon') ? 'org.axonframework' : 'com.shop'}</groupId><artifactId>${a}</artifactId>${excluded ? `<exclusions><exclusion><groupId>org.axonframework</groupId><artifactId>${excluded}</artifactId></exclusion></exclusions>` : ''}</dependency>`;
  };
  return `<project><groupId>com.shop</groupId><artifactId>${artifact}</artifactId><dependencies>${deps.map(dep).join('\n')}</dependencies></project>`;
}

const SHOP: { dir: string; deps: string[]; config?: Record<string, string> }[] = [
  { dir: 'api', deps: [] },
  { dir: 'orders', deps: ['api', 'axon-spring-boot-starter'] },
  // Axon Server: the starter brings the connector.
  { dir: 'server/order-app', deps: ['orders', 'axon-spring-boot-starter'] },
  { dir: 'server/ship-app', deps: ['api', 'axon-spring-boot-starter'], config: { 'axon.eventhandling.processors.audit.mode': 'subscribing' } },
  // No Axon Server (the application's own starter, nearest, excludes the connector the library's would bring); events over Kafka.
  { dir: 'local/order-app2', deps: ['orders', 'axon-spring-boot-starter!axon-server-connector', 'axon-kafka-spring-boot-starter'], config: { 'axon.kafka.default-topic': 'shop-events', 'axon.kafka.producer.bootstrap-servers': 'kafka:9092' } },
  { dir: 'local/ship-app2', deps: ['api', 'axon-spring-boot-starter!axon-server-connector', 'axon-kafka-spring-boot-starter'], config: { 'axon.kafka.default-topic': 'shop-events', 'axon.kafka.consumer.group-id': 'ship', 'axon.eventhandling.processors.shipping.source': 'kafkaMessageSource' } },
];

describe('Axon routing rules', () => {
  let files: FileFacts[];
  const services: ServiceInfo[] = SHOP.map((s) => {
    const name = s.dir.split('/').pop()!;
    return { name, dir: s.dir, nameFrom: 'directory', buildTool: 'maven', modules: [{ name, dir: s.dir, buildFile: `${s.dir}/pom.xml`, buildTool: 'maven' }], configFiles: [], config: s.config ?? {}, profiles: {}, hosts: [] };
  });
  const locate = (path: string) => {
    const s = services.find((x) => path.startsWith(`${x.dir}/`))!;
    return { service: s.name, module: s.name };
  };
  const build = { buildFiles: SHOP.map((s) => `${s.dir}/pom.xml`), texts: new Map(SHOP.map((s) => [`${s.dir}/pom.xml`, pom(s.dir.split('/').pop()!, s.deps)])) };

  before(async () => {
    files = await Promise.all(Object.entries(SOURCES).map(([path, text]) => extractFile(path, path.endsWith('.kt') ? 'kotlin' : 'java', text)));
  });

  test('each send reaches what its buses deliver to', () => {
    const g = run(files, services, locate, { build });
    assert.deepEqual(g.warnings, []);
    assert.deepEqual(reachSets(g), [
      // Queries cross services only through Axon Server.
      'Controller2#find@15 FindOrder -> (unmatched)',
      // Commands: inside the sending service, or through Axon Server; each deployment has its own Order.
      'Controller2#place@13 PlaceOrder -> order-app2 Order#<init> [axon_command_bus 0.9 intra_service]',
      // The library's aggregate runs in both order services. Through Axon Server to the other service's tracking
      // processor (not to the subscribing 'audit' one); through Kafka to the processor reading kafkaMessageSource,
      // whose handler takes a supertype (not to the default processor on ship-app2's own bus).
      'Order#<init>@12 OrderPlaced -> ship-app Shipping#on [axon_event_bus 0.9 cross_service]',
      'Order#<init>@12 OrderPlaced -> ship-app2 Shipping2#on [axon_kafka 0.8 cross_service]',
      // A query sent by name reaches the handler answering that name.
      'OrderController#count@25 countOrders -> ship-app Shipping#count [axon_query_bus 0.9 cross_service]',
      'OrderController#find@19 FindOrder -> ship-app Shipping#find [axon_query_bus 0.9 cross_service]',
      'OrderController#place@16 PlaceOrder -> order-app Order#<init> [axon_command_bus 0.9 intra_service]',
      // A helper sending its parameter: the send is the call site that chooses the message.
      'OrderController#ship@21 ShipOrder -> ship-app Shipping#ship [axon_command_bus 0.9 cross_service]',
    ]);
    // Who talks to whom, for the service topology: the library's send runs in the order services.
    assert.deepEqual([...new Set(g.calls.map((c) => `${c.from} -> ${c.to}`))].sort(), ['order-app -> order-app', 'order-app -> ship-app', 'order-app2 -> order-app2', 'order-app2 -> ship-app2']);
    const routes = g.nodes.filter((n) => n.kind === 'route').map((n) => `${n.service} ${String(n.props.handler).replace(/^.*\./, '')} ${n.props.destination} :${n.line}`);
    assert.deepEqual(routes.sort(), [
      'order-app Order#<init>(PlaceOrder) com.shop.api.PlaceOrder :11',
      'order-app2 Order#<init>(PlaceOrder) com.shop.api.PlaceOrder :11',
      'ship-app Audit#on(OrderEvent) com.shop.api.OrderEvent :33',
      'ship-app Shipping#count(FindOrder) countOrders :27',
      'ship-app Shipping#find(FindOrder) com.shop.api.FindOrder :21',
      'ship-app Shipping#on(OrderPlaced) com.shop.api.OrderPlaced :18',
      'ship-app Shipping#ship(ShipOrder) com.shop.api.ShipOrder :24',
      'ship-app2 Projection2#on(OrderPlaced) com.shop.api.OrderPlaced :25',
      'ship-app2 Shipping2#find(FindOrder) com.shop.api.FindOrder :20',
      'ship-app2 Shipping2#on(OrderEvent) com.shop.api.OrderEvent :17',
    ]);
  });

  test('without build files a library runs on its own and nothing is known to use Axon Server', () => {
    const g = run(files, services, locate);
    assert.deepEqual(reachSets(g), [
      'Controller2#find@15 FindOrder -> (unmatched)',
      'Controller2#place@13 PlaceOrder -> (unmatched)',
      'Order#<init>@12 OrderPlaced -> (unmatched)',
      'OrderController#count@25 countOrders -> (unmatched)',
      'OrderController#find@19 FindOrder -> (unmatched)',
      'OrderController#place@16 PlaceOrder -> (unmatched)',
      'OrderController#ship@21 ShipOrder -> (unmatched)',
    ]);
  });

  test('odd code is skipped with a warning naming file:line, never a crash', async () => {
    const broken = await extractFile('server/ship-app/src/main/kotlin/com/shop/ship/Broken.kt', 'kotlin', 'package com.shop.ship\nclass Broken {\n  @EventHandler\n  fun on() {}\n  fun send(g: org.axonframework.commandhandling.gateway.CommandGateway, x: Any) = g.send<Any>(x)\n}\n');
    const g = run([...files, broken], services, locate, { build });
    assert.ok(g.warnings.some((w) => w.startsWith('server/ship-app/src/main/kotlin/com/shop/ship/Broken.kt:3: @EventHandler')), g.warnings.join('\n'));
    const unresolved = g.nodes.find((n) => n.kind === 'producer' && n.file?.endsWith('Broken.kt'))!;
    assert.equal(unresolved.props.resolved, false);
    assert.equal(unresolved.props.match, 'unmatched');
    assert.match(String(unresolved.props.unresolved_reason), /parameter x of com\.shop\.ship\.Broken#send/);
  });
});

describe('Axon routing from Gradle builds and AMQP sources', () => {
  /** A tiny estate of its own: services named after their directory, each a module with one build file. */
  async function estate(sources: Record<string, string>, builds: Record<string, string>, configs: Record<string, Record<string, string>> = {}) {
    const dirs = Object.keys(builds).filter((f) => !/settings\.gradle/.test(f)).map((f) => dirname(f));
    const services: ServiceInfo[] = dirs.map((dir) => {
      const name = dir.split('/').pop()!;
      const buildFile = Object.keys(builds).find((f) => dirname(f) === dir)!;
      return { name, dir, nameFrom: 'directory', buildTool: buildFile.endsWith('pom.xml') ? 'maven' : 'gradle', modules: [{ name, dir, buildFile, buildTool: buildFile.endsWith('pom.xml') ? 'maven' : 'gradle' }], configFiles: [], config: configs[name] ?? {}, profiles: {}, hosts: [] };
    });
    const locate = (path: string) => {
      const s = services.find((x) => path.startsWith(`${x.dir}/`))!;
      return { service: s.name, module: s.name };
    };
    const files = await Promise.all(Object.entries(sources).map(([path, text]) => extractFile(path, path.endsWith('.kt') ? 'kotlin' : 'java', text)));
    return { files, services, locate, build: { buildFiles: Object.keys(builds).sort(), texts: new Map(Object.entries(builds)) } };
  }

  const gradleSources = Object.fromEntries(Object.entries(SOURCES).filter(([p]) => !p.startsWith('local/')));
  const shipGroovy = (exclude: boolean) => `dependencies {
    implementation project(':api')
    implementation('org.axonframework:axon-spring-boot-starter:4.9.0')${exclude ? " {\n        exclude group: 'org.axonframework', module: 'axon-server-connector'\n    }" : ''}
}
`;
  const gradleBuilds = (exclude: boolean): Record<string, string> => ({
    'settings.gradle.kts': 'include("api", "orders", "server:order-app", "server:ship-app")\n',
    'api/build.gradle.kts': '',
    'orders/build.gradle.kts': 'dependencies {\n    implementation(project(":api"))\n}\n',
    'server/order-app/build.gradle.kts': 'dependencies {\n    implementation(project(":orders"))\n    implementation("org.axonframework:axon-spring-boot-starter:4.9.0")\n}\n',
    'server/ship-app/build.gradle': shipGroovy(exclude),
  });

  test('a Gradle project dependency runs the library in the service; an exclusion drops the Axon Server connector', async () => {
    const connected = await estate(gradleSources, gradleBuilds(false));
    assert.deepEqual(reachSets(run(connected.files, connected.services, connected.locate, { build: connected.build })), [
      'Order#<init>@12 OrderPlaced -> ship-app Audit#on [axon_event_bus 0.8 cross_service]',
      'Order#<init>@12 OrderPlaced -> ship-app Shipping#on [axon_event_bus 0.9 cross_service]',
      'OrderController#count@25 countOrders -> ship-app Shipping#count [axon_query_bus 0.9 cross_service]',
      'OrderController#find@19 FindOrder -> ship-app Shipping#find [axon_query_bus 0.9 cross_service]',
      'OrderController#place@16 PlaceOrder -> order-app Order#<init> [axon_command_bus 0.9 intra_service]',
      'OrderController#ship@21 ShipOrder -> ship-app Shipping#ship [axon_command_bus 0.9 cross_service]',
    ]);
    const excluded = await estate(gradleSources, gradleBuilds(true));
    assert.deepEqual(reachSets(run(excluded.files, excluded.services, excluded.locate, { build: excluded.build })), [
      'Order#<init>@12 OrderPlaced -> (unmatched)',
      'OrderController#count@25 countOrders -> (unmatched)',
      'OrderController#find@19 FindOrder -> (unmatched)',
      'OrderController#place@16 PlaceOrder -> order-app Order#<init> [axon_command_bus 0.9 intra_service]',
      'OrderController#ship@21 ShipOrder -> (unmatched)',
    ]);
  });

  const amqpSources: Record<string, string> = {
    'api/src/main/kotlin/com/shop/api/messages.kt': SOURCES['api/src/main/kotlin/com/shop/api/messages.kt']!,
    'publisher/src/main/java/com/shop/pub/Publisher.java': `package com.shop.pub;

import com.shop.api.OrderPlaced;
import org.axonframework.eventhandling.gateway.EventGateway;
import org.springframework.boot.autoconfigure.SpringBootApplication;

@SpringBootApplication
public class Publisher {
    private final EventGateway events;

    public Publisher(EventGateway events) {
        this.events = events;
    }

    public void placed(String id) {
        events.publish(new OrderPlaced(id));
    }
}
`,
    'consumer/src/main/java/com/shop/sub/Consumer.java': `package com.shop.sub;

import com.rabbitmq.client.Channel;
import com.shop.api.OrderPlaced;
import org.axonframework.config.ProcessingGroup;
import org.axonframework.eventhandling.EventHandler;
import org.axonframework.extensions.amqp.eventhandling.spring.SpringAMQPMessageSource;
import org.axonframework.serialization.Serializer;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

@SpringBootApplication
public class Consumer {
    @Bean
    public SpringAMQPMessageSource ordersSource(Serializer serializer) {
        return new SpringAMQPMessageSource(serializer) {
            @RabbitListener(queues = "\${orders.queue}")
            @Override
            public void onMessage(Message message, Channel channel) {
                super.onMessage(message, channel);
            }
        };
    }
}

@ProcessingGroup("orders")
class Projection {
    @EventHandler
    public void on(OrderPlaced event) {
    }
}
`,
  };
  const amqpBuilds: Record<string, string> = {
    'api/pom.xml': pom('api', []),
    'publisher/pom.xml': pom('publisher', ['api', 'axon-spring-boot-starter!axon-server-connector', 'axon-amqp-spring-boot-starter']),
    'consumer/pom.xml': pom('consumer', ['api', 'axon-spring-boot-starter!axon-server-connector', 'axon-amqp-spring-boot-starter']),
  };
  const amqpConfigs = { publisher: { 'axon.amqp.exchange': 'shop.events' }, consumer: { 'orders.queue': 'orders-q', 'axon.eventhandling.processors.orders.source': 'ordersSource' } };
  const binding = (exchange: string): RabbitBinding => ({ queue: 'orders-q', exchange, key: '#', service: 'consumer', file: 'consumer/src/main/java/com/shop/sub/RabbitConfig.java', line: 1 });

  test('an AMQP message source receives what AMQP publishers send to the exchange its queue is bound to', async () => {
    const e = await estate(amqpSources, amqpBuilds, amqpConfigs);
    const reach = (bindings?: RabbitBinding[]) => reachSets(run(e.files, e.services, e.locate, { build: e.build, ...(bindings ? { bindings } : {}) }));
    // No binding known for the queue: the usual setup, at a lower confidence.
    assert.deepEqual(reach(), ['Publisher#placed@16 OrderPlaced -> consumer Projection#on [axon_amqp 0.7 cross_service]']);
    assert.deepEqual(reach([binding('shop.events')]), ['Publisher#placed@16 OrderPlaced -> consumer Projection#on [axon_amqp 0.9 cross_service]']);
    assert.deepEqual(reach([binding('other.events')]), ['Publisher#placed@16 OrderPlaced -> (unmatched)']);
  });
});
