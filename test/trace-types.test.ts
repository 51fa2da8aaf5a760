/**
 * Trace between types (issue 15, item 4), on the real estates in ../shared/corpora (read in place) and on our
 * estate fixture, through the MCP client over stdio and `sextant call`: a type as `from` or `to` stands for its
 * members and paths start and end at the members that connect; a call through a project type that lands on a
 * method it inherits from a library (`visitRepository.save(…)` → JpaRepository#save) reaches that type;
 * `collapse: "types"` gives paths and flows as classes; a flow that never leaves local code answers its local
 * hops. The right answers come from reading the estates' source.
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

const API = 'org.springframework.samples.petclinic.api.';
const GATEWAY = `${API}boundary.web.ApiGatewayController`;
const VISITS_CLIENT = `${API}application.VisitsServiceClient`;
const VISITS = 'org.springframework.samples.petclinic.visits.';
const CUSTOMERS = 'org.springframework.samples.petclinic.customers.';
const ACCOUNT = 'com.piggymetrics.account.';
const O = 'com.acme.orders.';

type Estate = 'pet' | 'piggy' | 'estate';


/** A path as `start => hop, hop, …` with each hop `EDGE target [line] (library method)`. */
function pathText(p: any): string {
  const hops = p.hops.map((h: any) => `${h.edge_type} ${h.to.qualified_name}${h.line ? ` @${h.line}` : ''}${h.library_method ? ` (${h.library_method})` : ''}`);
  return `${p.start?.qualified_name ?? '(from)'} => ${hops.join(', ')}`;
}

/** A collapsed path as `Type -EDGE-> Type …` with the member hop of each step. */
function typeText(p: any): string {
  return [p.types.map((t: any) => t.name).join(' > '), ...p.steps.map((s: any) => `${s.from} -${s.edge_type}-> ${s.to} via ${s.via.from} -> ${s.via.to}`)].join('\n');
}

describe('trace between types', () => {
  let stores: ThreeEstates['stores'];
  let mcp: ThreeEstates['mcp'];
  let hints: HintChecker;
  let estates: ThreeEstates;

  before(async () => {
    estates = await openThreeEstates('sextant-trace-', CORPORA);
    ({ stores, mcp, hints } = estates);
  });

  after(async () => {
    await estates?.close();
    await killAll();
  });

  /** trace through MCP (stdio) and `sextant call`: the same answer both ways, ok, every hint valid. */
  async function trace(estate: Estate, args: Record<string, unknown>): Promise<Record<string, any>> {
    const { body } = await callTool(mcp[estate].client, 'trace', args);
    const cli = jsonOf(await runCli(['call', 'trace', JSON.stringify(args), '--store', stores[estate]]));
    const { index: _a, ...viaMcp } = body;
    const { index: _b, ...viaCli } = cli;
    assert.deepEqual(viaCli, viaMcp, `trace ${JSON.stringify(args)}: sextant call and MCP differ`);
    assert.equal(body.ok, true, JSON.stringify(body.error));
    hints.check(`trace ${JSON.stringify(args)}`, body);
    return body;
  }

  test('petclinic: ApiGatewayController to VisitsServiceClient is the member path getOwnerDetails → getVisitsForPets', async () => {
    const r = await trace('pet', { from: 'ApiGatewayController', to: 'VisitsServiceClient' });
    assert.equal(r.length, 1);
    assert.deepEqual(r.paths.map(pathText), [`${GATEWAY}#getOwnerDetails(int) => CALLS ${VISITS_CLIENT}#getVisitsForPets(List) @58`]);
    assert.equal(r.paths[0].end.qualified_name, `${VISITS_CLIENT}#getVisitsForPets(List)`);
    const types = await trace('pet', { from: GATEWAY, to: VISITS_CLIENT, collapse: 'types' });
    assert.deepEqual(types.paths.map(typeText), [
      `ApiGatewayController > VisitsServiceClient\n${GATEWAY} -CALLS-> ${VISITS_CLIENT} via ${GATEWAY}#getOwnerDetails(int) -> ${VISITS_CLIENT}#getVisitsForPets(List)`,
    ]);
  });

  test('petclinic: a call a repository inherits from Spring Data reaches the repository', async () => {
    const r = await trace('pet', { from: 'VisitResource', to: 'VisitRepository' });
    assert.deepEqual(r.paths.map(pathText).sort(), [
      `${VISITS}web.VisitResource#create(Visit,int) => CALLS ${VISITS}model.VisitRepository @64 (org.springframework.data.jpa.repository.JpaRepository#save(?))`,
      `${VISITS}web.VisitResource#read(List) => CALLS ${VISITS}model.VisitRepository#findByPetIdIn(Collection) @74`,
      `${VISITS}web.VisitResource#read(int) => CALLS ${VISITS}model.VisitRepository#findByPetId(int) @69`,
    ]);
    // The call lands on the member the repository inherits (declared by it, from JpaRepository); the edge says which
    // project type received it.
    const { body } = await callTool(mcp.pet.client, 'neighbors', { id: `${VISITS}web.VisitResource#create(Visit,int)`, direction: 'out', edge_types: ['CALLS'] });
    const save = body.edges.find((e: any) => e.other.qualified_name === `${VISITS}model.VisitRepository#save(?)`);
    assert.equal(save.attrs.receiver_type, `${VISITS}model.VisitRepository`);
    assert.equal(save.other.attributes.inherited_from, 'org.springframework.data.jpa.repository.JpaRepository');
    const types = await trace('pet', { from: 'VisitResource', to: 'VisitRepository', collapse: 'types' });
    assert.deepEqual(types.paths.map((p: any) => p.types.map((t: any) => t.name)), [['VisitResource', 'VisitRepository']]);
  });

  test('piggymetrics: through an interface to the Feign client; save inherited from CrudRepository', async () => {
    const r = await trace('piggy', { from: 'AccountController', to: 'StatisticsServiceClient' });
    assert.deepEqual(r.paths.map(pathText), [
      `${ACCOUNT}controller.AccountController#saveCurrentAccount(Principal,Account) => CALLS ${ACCOUNT}service.AccountService#saveChanges(String,Account) @32, OVERRIDES ${ACCOUNT}service.AccountServiceImpl#saveChanges(String,Account), CALLS ${ACCOUNT}client.StatisticsServiceClient#updateStatistics(String,Account) @90`,
    ]);
    const types = await trace('piggy', { from: 'AccountController', to: 'StatisticsServiceClient', collapse: 'types' });
    assert.deepEqual(types.paths.map((p: any) => p.types.map((t: any) => t.name)), [['AccountController', 'AccountService', 'AccountServiceImpl', 'StatisticsServiceClient']]);
    const repo = await trace('piggy', { from: 'AccountServiceImpl', to: 'AccountRepository', max_paths: 10 });
    assert.deepEqual(repo.paths.map(pathText).sort(), [
      `${ACCOUNT}service.AccountServiceImpl#create(User) => CALLS ${ACCOUNT}repository.AccountRepository @65 (org.springframework.data.repository.CrudRepository#save(?))`,
      `${ACCOUNT}service.AccountServiceImpl#create(User) => CALLS ${ACCOUNT}repository.AccountRepository#findByName(String) @48`,
      `${ACCOUNT}service.AccountServiceImpl#findByName(String) => CALLS ${ACCOUNT}repository.AccountRepository#findByName(String) @39`,
      `${ACCOUNT}service.AccountServiceImpl#saveChanges(String,Account) => CALLS ${ACCOUNT}repository.AccountRepository @86 (org.springframework.data.repository.CrudRepository#save(?))`,
      `${ACCOUNT}service.AccountServiceImpl#saveChanges(String,Account) => CALLS ${ACCOUNT}repository.AccountRepository#findByName(String) @78`,
    ]);
    assert.equal(repo.has_more, false);
  });

  test('fixture: OrderService reaches OrderRepository through its own query and two inherited methods', async () => {
    const r = await trace('estate', { from: `${O}service.OrderService`, to: `${O}repo.OrderRepository` });
    assert.deepEqual(r.paths.map(pathText).sort(), [
      `${O}service.OrderService#cancel(Long) => CALLS ${O}repo.OrderRepository @79 (org.springframework.data.jpa.repository.JpaRepository#findById(?))`,
      `${O}service.OrderService#findOpen() => CALLS ${O}repo.OrderRepository#findByStatus(OrderStatus) @63`,
      `${O}service.OrderService#place(CreateOrderRequest,String) => CALLS ${O}repo.OrderRepository @46 (org.springframework.data.jpa.repository.JpaRepository#save(?))`,
    ]);
  });

  test('a flow that never leaves local code answers its local hops', async () => {
    const r = await trace('pet', { from: 'OwnerResource#findOwner' });
    assert.equal(r.local_only, true);
    assert.match(r.note, /No client, producer or route is reached/);
    assert.equal(r.absence, undefined);
    assert.deepEqual(
      r.hops.map((h: any) => `${h.depth} ${h.edge_type} ${h.to.qualified_name} (${h.library_method})`),
      [`1 CALLS ${CUSTOMERS}model.OwnerRepository (org.springframework.data.jpa.repository.JpaRepository#findById(?))`],
    );
  });

  test('collapse "types": the gateway flow as the classes and routes it passes through', async () => {
    const r = await trace('pet', { from: 'api-gateway GET /api/gateway/owners/{ownerId}', collapse: 'types' });
    assert.equal(r.hops, undefined);
    assert.deepEqual(r.types.map((t: any) => t.qualified_name), [
      'api-gateway GET /api/gateway/owners/{ownerId}',
      GATEWAY,
      `${API}application.CustomersServiceClient`,
      VISITS_CLIENT,
      'customers-service GET /owners/{ownerId}',
      'visits-service GET /pets/visits',
      `${CUSTOMERS}web.OwnerResource`,
      `${VISITS}web.VisitResource`,
    ]);
    assert.deepEqual(
      r.steps.map((s: any) => `${s.depth} ${s.from.replace(/^.*\./, '')} -${s.edge_type}-> ${s.to.replace(/^.*\./, '')}`),
      [
        '1 api-gateway GET /api/gateway/owners/{ownerId} -EXPOSES-> ApiGatewayController',
        '2 ApiGatewayController -CALLS-> CustomersServiceClient',
        '2 ApiGatewayController -CALLS-> VisitsServiceClient',
        '4 CustomersServiceClient -HTTP_CALLS-> customers-service GET /owners/{ownerId}',
        '4 VisitsServiceClient -HTTP_CALLS-> visits-service GET /pets/visits',
        '5 customers-service GET /owners/{ownerId} -EXPOSES-> OwnerResource',
        '5 visits-service GET /pets/visits -EXPOSES-> VisitResource',
      ],
    );
  });

  test('from and to refuse an ambiguous name with a hint per candidate that repeats the trace', async () => {
    const { body } = await callTool(mcp.pet.client, 'trace', { from: 'VisitResource#read', to: 'VisitRepository' });
    assert.equal(body.error.code, 'ambiguous');
    hints.check('trace ambiguous', body);
    const retries = body.error.hints.filter((h: any) => h.tool === 'trace');
    assert.equal(retries.length, 2);
    for (const h of retries) {
      assert.equal(h.args.to, 'VisitRepository');
      const r = await trace('pet', h.args);
      assert.equal(r.paths.length, 1);
    }
  });
});
