/**
 * One minimal fixture per rule of the value evaluator (docs/links.md, "The value evaluator"), in Java and in Kotlin
 * where the language has the form: test/fixtures/eval-rules/{java,kotlin}, each a caller service `shop`, two
 * target services (`orders-service`, `customers-service`) and a `contracts` library module. Every caller method
 * reaches its URL through exactly one rule; its client must name the service, method and path Spring would really
 * call, link to that route, and say which configuration keys gave the URL (and nothing when none did).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { sextantOntology } from '../src/graph/ontology/index.js';
import { openTestStore } from './helpers/store.js';
import { buildWorkspace } from '../src/indexer/build.js';
import { runTool } from '../src/query/index.js';
import { estateSource } from './helpers/estate.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/eval-rules', import.meta.url));
const CONFIG = 'shop/src/main/resources/application.yml';

interface Client {
  props: Record<string, any>;
  /** HTTP_CALLS edges to declared routes: `service METHOD path (strategy)`. */
  routes: string[];
  /** HTTP_CALLS edges to undeclared route nodes (the stand-in of an unmatched or external target). */
  undeclared: number;
}

interface Case {
  rule: string;
  /** `Class#method` of the calling member. */
  caller: string;
  /** `target_service http_method path`, `?` for no target. */
  client?: string;
  /** The declared route the client links to (strategy `service_method_path` unless given); none when absent. */
  route?: string;
  strategy?: string;
  resolved?: boolean;
  match?: string;
  framework?: string;
  /** `value_from`: configuration files and keys; absent when the URL is not from configuration. */
  from?: string[];
  /** `target_url`: the client's base URL a relative URL was resolved against. */
  base?: string;
  reason?: RegExp;
  todo?: string;
}

const ontology = sextantOntology();
const indexes: Record<string, { dir: string; clients: Map<string, Client[]> }> = {};

async function index(language: string): Promise<{ dir: string; clients: Map<string, Client[]> }> {
  const root = join(FIXTURES, language);
  const dir = mkdtempSync(join(tmpdir(), `sextant-eval-rules-${language}-`));
  const writer = await openTestStore(ontology, dir, { mode: 'write' });
  await buildWorkspace(writer, ontology, { dir: root, sources: [estateSource(root)] });
  await writer.close();
  const store = await openTestStore(ontology, dir, { mode: 'read' });
  try {
    const ctx = { store, ontology };
    const found = (await runTool(ctx, 'find', { kind: 'client', limit: 500 })) as any;
    assert.equal(found.ok, true, JSON.stringify(found));
    const edges = (await runTool(ctx, 'neighbors', { ids: found.results.map((n: any) => n.id), direction: 'out', edge_types: ['HTTP_CALLS'], limit: 500 })) as any;
    assert.equal(edges.ok, true, JSON.stringify(edges));
    const clients = new Map<string, Client[]>();
    for (const n of found.results) {
      const described = (await runTool(ctx, 'describe', { id: n.id })) as any;
      const props = described.node.properties;
      const out = edges.edges.filter((e: any) => e.from === n.id);
      const caller = String(props.caller).replace(/^.*\.(\w+#\w+)\(.*$/, '$1');
      const client: Client = {
        props,
        routes: out.filter((e: any) => e.other.attributes?.declared !== false).map((e: any) => `${e.other.qualified_name} (${e.attrs.strategy})`),
        undeclared: out.filter((e: any) => e.other.attributes?.declared === false).length,
      };
      clients.set(caller, [...(clients.get(caller) ?? []), client]);
    }
    return { dir, clients };
  } finally {
    await store.close();
  }
}

before(async () => {
  const [java, kotlin] = await Promise.all([index('java'), index('kotlin')]);
  indexes.java = java;
  indexes.kotlin = kotlin;
});

after(() => {
  for (const i of Object.values(indexes)) rmSync(i.dir, { recursive: true, force: true });
});

function check(language: string, c: Case): void {
  const found = indexes[language]!.clients.get(c.caller) ?? [];
  assert.equal(found.length, 1, `${c.caller}: exactly one client, found ${found.length}`);
  const { props, routes, undeclared } = found[0]!;
  const where = `${c.caller}: ${JSON.stringify(props)}`;
  if (c.client) assert.equal(`${props.target_service ?? '?'} ${props.http_method} ${props.path}`, c.client, where);
  assert.equal(props.resolved, c.resolved ?? true, where);
  assert.equal(props.match, c.match ?? 'cross_service', where);
  assert.equal(props.framework, c.framework ?? 'rest_template', where);
  assert.deepEqual(props.value_from, c.from, where);
  assert.equal(props.target_url, c.base, where);
  if (c.reason) assert.match(props.unresolved_reason ?? '', c.reason, where);
  else assert.equal(props.unresolved_reason, undefined, where);
  assert.deepEqual(routes, c.route ? [`${c.route} (${c.strategy ?? 'service_method_path'})`] : [], `${c.caller}: the HTTP_CALLS edge`);
  if (!c.route) assert.equal(undeclared, 1, `${c.caller}: no route, one stand-in for the target`);
}

const ORDERS = 'orders-service GET /orders';
const ORDER = 'orders-service GET /orders/{orderId}';
const ITEMS = 'orders-service GET /orders/{orderId}/items';
const SEARCH = 'orders-service GET /orders/search';
const OWNERS = 'customers-service GET /owners';
const OWNER = 'customers-service GET /owners/{ownerId}';
const PETS = 'customers-service GET /owners/{ownerId}/pets';

/** The rules every language shares; the caller names are the same in both fixtures unless a case says otherwise. */
const COMMON: Case[] = [
  { rule: 'a literal URL', caller: 'StringCalls#literal', client: ORDER, route: ORDER },
  { rule: '+ concatenation', caller: 'StringCalls#plus', client: 'orders-service GET /orders/{id}', route: ORDER },
  { rule: 'String.format', caller: 'StringCalls#format', client: 'orders-service GET /orders/{id}/items', route: ITEMS },
  { rule: 'a field initializer', caller: 'FieldCalls#initializer', client: ORDERS, route: ORDERS },
  {
    rule: 'a field assigned from an injected @Value constructor parameter',
    caller: 'FieldCalls#constructorValue',
    client: PETS,
    route: PETS,
    from: [`${CONFIG}: clients.customers.url`],
  },
  {
    rule: "a field assigned from a constructor parameter a subclass passes with super(…), through its own this(…)",
    caller: 'SuperCalls#viaSuper',
    client: ORDERS,
    route: ORDERS,
  },
  { rule: '@Value field with ${key:default}, no file sets the key: the default', caller: 'ValueDefaults#fieldDefault', client: ORDERS, route: ORDERS },
  { rule: '@Value constructor parameter with ${key:default}: the default', caller: 'ValueDefaults#parameterDefault', client: OWNER, route: OWNER },
  {
    rule: '@ConfigurationProperties nested class (its default overridden by configuration)',
    caller: 'PropertiesCalls#nested',
    client: SEARCH,
    route: SEARCH,
    from: [`${CONFIG}: clients.orders.base-url`, `${CONFIG}: clients.orders.search.path`],
  },
  { rule: 'a local built by a UriComponentsBuilder chain, passed later to WebClient .uri(uri)', caller: 'LocalCalls#builderLocal', client: ORDER, route: ORDER, framework: 'web_client' },
  { rule: 'a local reassigned (= and +=): the last reaching definition', caller: 'LocalCalls#reassigned', client: 'orders-service GET /orders/{id}/items', route: ITEMS },
  { rule: 'the return of a project method (getCustomerServiceUri() + "/owners")', caller: 'MethodCalls#methodReturn', client: OWNERS, route: OWNERS },
  { rule: 'the return of this.baseUrl()', caller: 'MethodCalls#thisMethod', client: ORDERS, route: ORDERS },
  { rule: "a helper's return evaluated with the caller's argument", caller: 'MethodCalls#helperArgument', client: PETS, route: PETS },
  { rule: 'a private helper receiving the URL as a parameter: the link is at its call site, which chooses the URL', caller: 'MethodCalls#searchOrders', client: SEARCH, route: SEARCH },
  { rule: 'UriComponentsBuilder.fromHttpUrl(…).path(…).pathSegment(…).queryParam(…).buildAndExpand(…).toUriString()', caller: 'BuilderCalls#fromHttpUrl', client: ITEMS, route: ITEMS },
  { rule: 'UriComponentsBuilder.newInstance().scheme(…).host(…).path(…).build().toUri()', caller: 'BuilderCalls#newInstance', client: ORDERS, route: ORDERS },
  { rule: 'URI.create', caller: 'BuilderCalls#uriCreate', client: OWNERS, route: OWNERS },
  { rule: 'RestTemplate exchange(url, HttpMethod.POST, …)', caller: 'ClientCalls#exchangePost', client: 'orders-service POST /orders', route: 'orders-service POST /orders' },
  { rule: 'WebClient through an injected WebClient.Builder: builder.build().get().uri(…)', caller: 'ClientCalls#injectedBuilder', client: ORDER, route: ORDER, framework: 'web_client' },
  {
    rule: 'WebClient.create(base) with a relative .uri("/x")',
    caller: 'ClientCalls#createdWebClient',
    client: OWNER,
    route: OWNER,
    framework: 'web_client',
    base: 'http://customers-service',
  },
  {
    rule: 'RestClient.builder().baseUrl(base) with a relative .uri("/x")',
    caller: 'ClientCalls#restClient',
    client: 'orders-service DELETE /orders/{orderId}',
    route: 'orders-service DELETE /orders/{orderId}',
    framework: 'rest_client',
    base: 'http://orders-service',
  },
  { rule: 'DiscoveryClient.getInstances("orders-service")…getUri() + "/orders"', caller: 'DiscoveryCalls#discovered', client: ORDERS, route: ORDERS },
  {
    rule: 'a configuration key only the environment sets: unresolved, saying so, and no guessed link',
    caller: 'HostCalls#environmentOnly',
    resolved: false,
    match: 'unmatched',
    reason: /configuration key ORDERS_URL, set by no file in the estate/,
  },
  { rule: 'a loopback host with a port names the service listening there whose routes fit (Spring Boot: 8080 unless server.port says otherwise)', caller: 'HostCalls#loopback', client: 'localhost GET /orders', route: ORDERS, strategy: 'local_port' },
  { rule: 'an external host is external', caller: 'HostCalls#external', client: 'api.example.com GET /v1/rates', match: 'external' },
];

const JAVA: Case[] = [
  ...COMMON,
  { rule: 'a text block', caller: 'StringCalls#textBlock', client: ORDERS, route: ORDERS },
  { rule: 'String.concat', caller: 'StringCalls#concat', client: OWNER, route: OWNER },
  { rule: '"…".formatted(…)', caller: 'StringCalls#formatted', client: PETS, route: PETS },
  { rule: 'a static final constant in another module', caller: 'ConstantCalls#sharedConstant', client: 'orders-service POST /orders', route: 'orders-service POST /orders' },
  { rule: "an enum constant's getter returning its constructor argument", caller: 'ConstantCalls#enumGetter', client: OWNERS, route: OWNERS },
  { rule: '@ConfigurationProperties class with a getter, base-url bound to baseUrl', caller: 'PropertiesCalls#getter', client: ORDERS, route: ORDERS, from: [`${CONFIG}: clients.orders.base-url`] },
  { rule: '@ConfigurationProperties record', caller: 'PropertiesCalls#record', client: OWNERS, route: OWNERS, from: [`${CONFIG}: clients.customers.base-url`] },
];

const KOTLIN: Case[] = [
  ...COMMON,
  { rule: 'a raw string', caller: 'StringCalls#rawString', client: ORDERS, route: ORDERS },
  { rule: '.plus(…)', caller: 'StringCalls#plusCall', client: OWNER, route: OWNER },
  { rule: 'the "…".format(…) extension', caller: 'StringCalls#formatExtension', client: PETS, route: PETS },
  { rule: 'a string template "$base/…"', caller: 'StringCalls#template', client: 'orders-service GET /orders/{id}', route: ORDER },
  { rule: 'a const val in an object of another module', caller: 'ConstantCalls#sharedConstant', client: 'orders-service POST /orders', route: 'orders-service POST /orders' },
  { rule: 'a companion object constant in a template', caller: 'ConstantCalls#companionConstant', client: PETS, route: PETS },
  { rule: "an enum constant's property from its constructor argument", caller: 'ConstantCalls#enumProperty', client: OWNERS, route: OWNERS },
  {
    rule: 'a property initialized from a @Value constructor parameter',
    caller: 'FieldCalls#initializerFromParameter',
    client: ITEMS,
    route: ITEMS,
    from: [`${CONFIG}: clients.orders.base-url`],
  },
  { rule: '@ConfigurationProperties class property, base-url bound to baseUrl', caller: 'PropertiesCalls#property', client: ORDERS, route: ORDERS, from: [`${CONFIG}: clients.orders.base-url`] },
  { rule: '@ConfigurationProperties data class in a template "${props.baseUrl}/…"', caller: 'PropertiesCalls#dataClass', client: OWNERS, route: OWNERS, from: [`${CONFIG}: clients.customers.base-url`] },
  {
    rule: 'a WebClient property whose type is inferred from a constructor parameter builder',
    caller: 'LocalCalls#untypedProperty',
    client: OWNERS,
    route: OWNERS,
    framework: 'web_client',
    base: 'http://customers-service',
  },
];

for (const [language, cases] of [
  ['java', JAVA],
  ['kotlin', KOTLIN],
] as const) {
  describe(`evaluator rules in ${language}`, () => {
    for (const c of cases) test(c.rule, c.todo ? { todo: c.todo } : {}, () => check(language, c));

    test('no client but the ones the rules make', () => {
      const expected = cases.filter((c) => !c.todo).map((c) => c.caller);
      const made = [...indexes[language]!.clients.keys()].filter((k) => !cases.some((c) => c.todo && c.caller === k));
      assert.deepEqual(made.sort(), [...expected].sort());
    });
  });
}
