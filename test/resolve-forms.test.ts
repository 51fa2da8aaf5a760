/**
 * Names as people write them, and one identity contract for every tool (issue 15, items 1 and 2), on the real
 * estates in ../shared/corpora (read in place) and on our estate fixture, through the MCP client over stdio and
 * `sextant call`: each identifier form `resolve` understands, overloads answered as `many` with their signatures,
 * did-you-mean with kind and qualified name, and `id` / `ids` taking an exact qualified name everywhere, with the
 * teaching error (resolve's candidates as hints that validate and work) for anything else. The right answers come
 * from reading the estates' source.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { callTool, jsonOf, killAll, openThreeEstates, REPO_ROOT, runCli, type HintChecker, type ThreeEstates } from './helpers/e2e.js';
import { sharedDir } from './helpers/index.js';

const CORPORA = join(sharedDir(), 'corpora');
const PETCLINIC = join(CORPORA, 'spring-petclinic-microservices');
const PIGGY = join(CORPORA, 'piggymetrics');
const ESTATE = join(REPO_ROOT, 'test', 'fixtures', 'estate');

const GATEWAY = 'org.springframework.samples.petclinic.api.boundary.web.ApiGatewayController';
const GATEWAY_FILE = 'spring-petclinic-api-gateway/src/main/java/org/springframework/samples/petclinic/api/boundary/web/ApiGatewayController.java';
const OWNER_DETAILS = `${GATEWAY}#getOwnerDetails(int)`;
const VISITS = 'org.springframework.samples.petclinic.visits.web.VisitResource';
const AUTH_CONFIG = 'com.piggymetrics.auth.config.OAuth2AuthorizationConfig';
const ACCOUNTS = 'com.piggymetrics.account.service.AccountServiceImpl';
const O = 'com.acme.orders.';

type Estate = 'pet' | 'piggy' | 'estate';


describe('names as people write them, one identity contract', () => {
  let stores: ThreeEstates['stores'];
  let mcp: ThreeEstates['mcp'];
  let hints: HintChecker;
  let estates: ThreeEstates;

  before(async () => {
    estates = await openThreeEstates('sextant-forms-', CORPORA);
    ({ stores, mcp, hints } = estates);
  });

  after(async () => {
    await estates?.close();
    await killAll();
  });

  /** A tool call through MCP (stdio) and through `sextant call`: the same answer both ways; every hint validates. */
  async function both(estate: Estate, tool: string, args: Record<string, unknown>): Promise<Record<string, any>> {
    const { body } = await callTool(mcp[estate].client, tool, args);
    const cli = jsonOf(await runCli(['call', tool, JSON.stringify(args), '--store', stores[estate]]));
    const { index: _a, ...viaMcp } = body;
    const { index: _b, ...viaCli } = cli;
    assert.deepEqual(viaCli, viaMcp, `${tool} ${JSON.stringify(args)}: sextant call and MCP differ`);
    hints.check(`${tool} ${JSON.stringify(args)}`, body);
    return body;
  }

  /** `one: qualified name (reason)`, `many: [qualified name, …]` or `none`. */
  async function resolved(estate: Estate, identifier: string, kind?: string): Promise<string> {
    const r = await both(estate, 'resolve', { identifier, ...(kind ? { kind } : {}) });
    assert.equal(r.ok, true, JSON.stringify(r));
    if (r.status === 'one') return `one: ${r.node.qualified_name}`;
    if (r.status === 'many') return `many: ${r.candidates.map((c: any) => c.node.qualified_name).sort().join(' | ')}`;
    return 'none';
  }

  /** [estate, identifier, answer, kind?]: a build module's artifact id is also a dependency's name, so those ask for the service. */
  const forms: [Estate, string, string, string?][] = [
    // A member: separator, how much of the type is written, with or without parameter types.
    ['pet', 'ApiGatewayController#getOwnerDetails', `one: ${OWNER_DETAILS}`],
    ['pet', `${GATEWAY}#getOwnerDetails`, `one: ${OWNER_DETAILS}`],
    ['pet', 'ApiGatewayController#getOwnerDetails(int)', `one: ${OWNER_DETAILS}`],
    ['pet', 'ApiGatewayController.getOwnerDetails', `one: ${OWNER_DETAILS}`],
    ['pet', 'ApiGatewayController::getOwnerDetails', `one: ${OWNER_DETAILS}`],
    ['pet', `${GATEWAY}.getOwnerDetails(int)`, `one: ${OWNER_DETAILS}`],
    ['pet', 'web.ApiGatewayController.getOwnerDetails(final @PathVariable int ownerId)', `one: ${OWNER_DETAILS}`],
    ['pet', `at ${GATEWAY}.getOwnerDetails(ApiGatewayController.java:58)`, `one: ${OWNER_DETAILS}`],
    ['pet', 'ApiGatewayController#ApiGatewayController', `one: ${GATEWAY}#<init>(CustomersServiceClient,VisitsServiceClient,ReactiveCircuitBreakerFactory)`],
    ['pet', 'VisitResource#read(java.util.List<Integer>)', `one: ${VISITS}#read(List)`],
    ['pet', 'VisitResource.read(int)', `one: ${VISITS}#read(int)`],
    ['piggy', 'AccountServiceImpl.findByName(String)', `one: ${ACCOUNTS}#findByName(String)`],
    ['piggy', `${AUTH_CONFIG}.configure(org.springframework.security.oauth2.config.annotation.web.configurers.AuthorizationServerSecurityConfigurer)`, `one: ${AUTH_CONFIG}#configure(AuthorizationServerSecurityConfigurer)`],
    ['estate', 'OrderService#place(CreateOrderRequest, String)', `one: ${O}service.OrderService#place(CreateOrderRequest,String)`],
    ['estate', 'Money.of(long)', `one: ${O}api.Money#of(long)`],
    ['estate', `${O}domain.Order.Order(String, java.math.BigDecimal, String)`, `one: ${O}domain.Order#<init>(String,BigDecimal,String)`],
    ['estate', 'InvoiceController.create(request: CreateInvoiceRequest)', 'one: com.acme.billing.web.InvoiceController#create(CreateInvoiceRequest)'],
    // A method a project type inherits from a library is that type's inherited member (inherited_from the library type).
    ['pet', 'VisitRepository.save', 'one: org.springframework.samples.petclinic.visits.model.VisitRepository#save(?)'],
    ['piggy', 'AccountRepository::save', 'one: com.piggymetrics.account.repository.AccountRepository#save(?)'],
    // A file: relative to the root, to the service, absolute, by its name; `path:line` the innermost declaration.
    ['pet', GATEWAY_FILE, `one: ${GATEWAY}`],
    ['pet', 'src/main/java/org/springframework/samples/petclinic/api/boundary/web/ApiGatewayController.java', `one: ${GATEWAY}`],
    ['pet', join(PETCLINIC, GATEWAY_FILE), `one: ${GATEWAY}`],
    ['pet', 'ApiGatewayController.java', `one: ${GATEWAY}`],
    ['pet', `${GATEWAY_FILE}:58`, `one: ${OWNER_DETAILS}`],
    ['pet', 'ApiGatewayController.java:40', `one: ${GATEWAY}`],
    ['piggy', 'account-service/src/main/java/com/piggymetrics/account/service/AccountServiceImpl.java:39', `one: ${ACCOUNTS}#findByName(String)`],
    ['estate', 'src/main/java/com/acme/orders/service/OrderService.java', `one: ${O}service.OrderService`],
    ['estate', 'web/InvoiceController.kt', 'many: com.acme.billing.web.CreateInvoiceRequest | com.acme.billing.web.InvoiceController | com.acme.billing.web.InvoiceResponse'],
    ['estate', 'billing/billing-web/src/main/kotlin/com/acme/billing/web/InvoiceController.kt:20', 'one: com.acme.billing.web.InvoiceController#create(CreateInvoiceRequest)'],
    // A service: application name, directory, build module (its artifact id).
    ['pet', 'api-gateway', 'one: api-gateway'],
    ['pet', 'spring-petclinic-api-gateway', 'one: api-gateway'],
    ['piggy', 'statistics-service', 'one: statistics-service'],
    ['estate', 'order-service', 'one: order-service'],
    ['estate', 'orders', 'one: order-service'],
    ['estate', 'orders-app', 'one: order-service', 'service'],
    ['estate', 'orders-api', 'one: order-service', 'service'],
    ['estate', 'billing', 'one: billing-service'],
    ['estate', 'billing-core', 'one: billing-service', 'service'],
    // Several: never picked.
    ['pet', 'src/main/resources/application.yml', 'many: admin-server | api-gateway | customers-service | discovery-server | genai-service | vets-service | visits-service'],
    ['estate', 'Money::of', `many: ${O}api.Money#of(String) | ${O}api.Money#of(long)`],
  ];

  test('every identifier form resolves, through MCP and sextant call', async () => {
    const got: string[] = [];
    for (const [estate, identifier, , kind] of forms) got.push(`${estate} ${identifier} => ${await resolved(estate, identifier, kind)}`);
    assert.deepEqual(got, forms.map(([estate, identifier, expected]) => `${estate} ${identifier} => ${expected}`));
  });

  test('overloads come back as many, each with its signature and why it matched', async () => {
    const signatures = async (estate: Estate, identifier: string) => {
      const r = await both(estate, 'resolve', { identifier });
      assert.equal(r.status, 'many', JSON.stringify(r));
      return r.candidates.map((c: any) => `${c.node.signature} | ${c.reason}`).sort();
    };
    assert.deepEqual(await signatures('pet', 'VisitResource#read'), ['read(List) | type and member name', 'read(int) | type and member name']);
    assert.deepEqual(await signatures('piggy', 'OAuth2AuthorizationConfig#configure'), [
      'configure(AuthorizationServerEndpointsConfigurer) | type and member name',
      'configure(AuthorizationServerSecurityConfigurer) | type and member name',
      'configure(ClientDetailsServiceConfigurer) | type and member name',
    ]);
    assert.deepEqual(await signatures('estate', 'OrderService.place'), ['place(CreateOrderRequest) | type and member name', 'place(CreateOrderRequest,String) | type and member name']);
    assert.deepEqual(await signatures('estate', 'Order#Order'), ['<init>() | type and member name', '<init>(String,BigDecimal,String) | type and member name']);
  });

  test('none explains itself: did-you-mean nodes carry kind and qualified name', async () => {
    const none = async (identifier: string) => {
      const r = await both('pet', 'resolve', { identifier });
      assert.equal(r.status, 'none', JSON.stringify(r));
      return r.absence;
    };
    const typo = await none('ApiGatewayController#getOwnerDetail');
    assert.match(typo.reason, /ApiGatewayController declares no member named getOwnerDetail/);
    assert.deepEqual(typo.did_you_mean.map((d: any) => [d.kind, d.qualified_name]), [['symbol', OWNER_DETAILS]]);
    const type = await none('ApiGatewayControler#getOwnerDetails');
    assert.deepEqual([type.did_you_mean[0].kind, type.did_you_mean[0].qualified_name], ['symbol', GATEWAY]);
    const params = await none('ApiGatewayController#getOwnerDetails(String)');
    assert.match(params.reason, /has getOwnerDetails only as getOwnerDetails\(int\): no overload takes \(String\)/);
    assert.deepEqual(params.did_you_mean.map((d: any) => d.signature), ['getOwnerDetails(int)']);
    const javadoc = await none('ApiGatewayController.java:34');
    assert.match(javadoc.reason, /no declaration spans line 34/);
  });

  test('every id parameter takes an exact qualified name, as `id` and as `ids`', async () => {
    const ok = async (tool: string, args: Record<string, unknown>) => {
      const r = await both('pet', tool, args);
      assert.equal(r.ok, true, `${tool} ${JSON.stringify(args)}: ${JSON.stringify(r.error)}`);
      return r;
    };
    for (const name of ['id', 'ids'] as const) {
      const value = name === 'id' ? OWNER_DETAILS : [OWNER_DETAILS];
      const described = await ok('describe', { [name]: value });
      assert.equal((described.node ?? described.nodes[0]).qualified_name, OWNER_DETAILS);
      const calls = await ok('neighbors', { [name]: value, direction: 'out', edge_types: ['CALLS'] });
      assert.equal(calls.total, 10);
      const impact = await ok('impact', { [name]: value });
      assert.deepEqual(impact.origins.map((o: any) => o.qualified_name), [OWNER_DETAILS]);
    }
    const traced = await ok('trace', { from: GATEWAY, to: 'org.springframework.samples.petclinic.api.application.VisitsServiceClient' });
    assert.equal(traced.paths.length, 1);
    // The schemas say so: id and ids on every tool that takes nodes, neither required.
    for (const t of (await mcp.pet.client.listTools()).tools.filter((t) => ['describe', 'neighbors', 'impact'].includes(t.name))) {
      assert.deepEqual([t.name, 'id' in t.inputSchema.properties!, 'ids' in t.inputSchema.properties!], [t.name, true, true]);
      assert.ok(!(t.inputSchema.required ?? []).some((r) => r === 'id' || r === 'ids'), `${t.name} requires id or ids`);
    }
  });

  test('anything else is refused with resolve\'s candidates as hints that repeat the call, and following one works', async () => {
    const args = { id: 'ApiGatewayController#getOwnerDetails', direction: 'out', edge_types: ['CALLS'] };
    const refused = await both('pet', 'neighbors', args);
    assert.equal(refused.ok, false);
    assert.equal(refused.error.code, 'not_found');
    assert.match(refused.error.message, /neither a node id nor an exact qualified name.*resolve` finds one node for it: symbol .*getOwnerDetails\(int\)/);
    assert.deepEqual(refused.error.hints[0], { tool: 'resolve', args: { identifier: 'ApiGatewayController#getOwnerDetails' }, reason: 'see every candidate with its id' });
    const retry = refused.error.hints[1];
    assert.equal(retry.tool, 'neighbors');
    const followed = await both('pet', retry.tool, retry.args);
    assert.equal(followed.ok, true);
    assert.equal(followed.total, 10);

    // Two overloads: one hint per candidate; in `ids`, only the refused entry is replaced.
    const two = await both('pet', 'describe', { ids: [OWNER_DETAILS, 'VisitResource#read'] });
    assert.equal(two.error.code, 'not_found');
    assert.match(two.error.message, /finds 2 candidates/);
    const retries = two.error.hints.filter((h: any) => h.tool === 'describe');
    assert.equal(retries.length, 2);
    for (const h of retries) {
      assert.equal(h.args.ids[0], OWNER_DETAILS);
      const r = await both('pet', 'describe', h.args);
      assert.deepEqual(r.nodes.map((n: any) => n.qualified_name.replace(/^.*\./, '')), ['ApiGatewayController#getOwnerDetails(int)', h.reason.includes('read(int)') ? 'VisitResource#read(int)' : 'VisitResource#read(List)']);
    }

    const impact = await both('pet', 'impact', { ids: ['NoSuchThingAnywhere'] });
    assert.deepEqual([impact.error.code, impact.error.hints[0].tool], ['not_found', 'resolve']);
    const bothGiven = await both('pet', 'neighbors', { id: OWNER_DETAILS, ids: [OWNER_DETAILS], direction: 'out', edge_types: ['CALLS'] });
    assert.equal(bothGiven.error.code, 'invalid_argument');
    const neither = await both('pet', 'impact', { depth: 2 });
    assert.equal(neither.error.code, 'missing_argument');
    assert.match(neither.error.message, /`id` \(one node\) or `ids` \(several\)/);
  });

  test('a hint `{id}` from resolve followed into neighbors works', async () => {
    const r = await both('pet', 'resolve', { identifier: 'ApiGatewayController.getOwnerDetails' });
    const hint = r.hints.find((h: any) => h.tool === 'describe');
    assert.deepEqual(Object.keys(hint.args), ['id']);
    const calls = await both('pet', 'neighbors', { ...hint.args, direction: 'out', edge_types: ['CALLS'] });
    assert.equal(calls.ok, true, JSON.stringify(calls.error));
    assert.deepEqual(
      calls.edges.filter((e: any) => e.other.kind === 'symbol' && e.other.attributes?.resolved !== false).map((e: any) => e.other.qualified_name).sort(),
      [
        'org.springframework.samples.petclinic.api.application.CustomersServiceClient#getOwner(int)',
        'org.springframework.samples.petclinic.api.application.VisitsServiceClient#getVisitsForPets(List)',
        `${GATEWAY}#addVisitsToOwner(OwnerDetails)`,
        `${GATEWAY}#emptyVisitsForPets()`,
      ],
    );
    const impact = await both('pet', 'impact', { ...hint.args, depth: 1 });
    assert.equal(impact.ok, true, JSON.stringify(impact.error));
  });
});
