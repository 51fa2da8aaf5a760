/**
 * Links between services on the real estates in ../shared/corpora (read in place, never copied): every
 * inter-service HTTP call linked to the route it reaches, the external one stated as external, the gateway routes
 * and what they forward to, the service topology, and a trace across services — as exact sets, through
 * `sextant call` and the MCP client over stdio. The right answers come from reading the estates' source.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { callTool, closeSession, indexInto, jsonOf, killAll, openSession, runCli, type Session, tempDir } from './helpers/e2e.js';
import { sharedDir } from './helpers/index.js';

const CORPORA = join(sharedDir(), 'corpora');
const PETCLINIC = join(CORPORA, 'spring-petclinic-microservices');
const PIGGY = join(CORPORA, 'piggymetrics');

async function call(store: string, tool: string, args: Record<string, unknown>): Promise<Record<string, any>> {
  const r = await runCli(['call', tool, JSON.stringify(args), '--store', store]);
  const body = jsonOf(r);
  assert.equal(body.ok, true, `${tool} ${JSON.stringify(args)}: ${r.stdout}`);
  return body;
}

/** Every client as `service -> target METHOD path | match | caller#method`. */
async function clients(store: string): Promise<string[]> {
  const found = await call(store, 'find', { kind: 'client', limit: 200 });
  const out: string[] = [];
  for (const n of found.results) {
    const full = (await call(store, 'describe', { id: n.id })).node;
    out.push(`${n.qualified_name} | ${n.attributes.match} | ${String(full.properties.caller).replace(/^.*\.(\w+#\w+).*$/, '$1')}`);
  }
  return out.sort();
}

async function forwards(store: string): Promise<string[]> {
  const gateways = await call(store, 'find', { kind: 'route', filter: { framework: ['spring_cloud_gateway', 'zuul'] }, limit: 100 });
  const out: string[] = [];
  for (const g of gateways.results) {
    const edges = await call(store, 'neighbors', { ids: [g.id], direction: 'out', edge_types: ['FORWARDS'], limit: 200 });
    for (const e of edges.edges) out.push(`${g.qualified_name} -> ${e.other.qualified_name}`);
  }
  return out.sort();
}

async function topology(store: string): Promise<string[]> {
  const services = await call(store, 'find', { kind: 'service', limit: 100 });
  const out: string[] = [];
  for (const s of services.results) {
    const edges = await call(store, 'neighbors', { ids: [s.id], direction: 'out', edge_types: ['SERVICE_CALLS'], limit: 100 });
    for (const e of edges.edges) out.push(`${s.name} -> ${e.other.name} ${e.attrs.protocol} ${e.attrs.matched}/${e.attrs.calls}`);
  }
  return out.sort();
}

const available = existsSync(PETCLINIC) && existsSync(PIGGY);

describe('links on real estates (../shared/corpora)', { skip: available ? false : 'the corpora are not on this machine' }, () => {
  let petStore = '';
  let piggyStore = '';

  before(async () => {
    petStore = join(await tempDir('sextant-petclinic-'), 'index');
    piggyStore = join(await tempDir('sextant-piggy-'), 'index');
    await Promise.all([indexInto(PETCLINIC, petStore), indexInto(PIGGY, piggyStore)]);
  });

  after(killAll);

  test('petclinic: all six inter-service calls reach the right route of the right service', async () => {
    assert.deepEqual(await clients(petStore), [
      'api-gateway -> customers-service GET /owners/{ownerId} | cross_service | CustomersServiceClient#getOwner',
      'api-gateway -> visits-service GET /pets/visits | cross_service | VisitsServiceClient#getVisitsForPets',
      'genai-service -> customers-service GET /owners | cross_service | AIDataProvider#getAllOwners',
      'genai-service -> customers-service POST /owners | cross_service | AIDataProvider#addOwnerToPetclinic',
      'genai-service -> customers-service POST /owners/{ownerId}/pets | cross_service | AIDataProvider#addPetToOwner',
      'genai-service -> vets-service GET /vets | cross_service | VectorStoreController#loadVetDataToVectorStoreOnStartup',
    ]);
  });

  test('petclinic: the gateway routes in configuration forward to the routes they reach', async () => {
    const fwd = await forwards(petStore);
    assert.deepEqual(
      [...new Set(fwd.map((f) => f.split(' -> ')[0]))],
      ['api-gateway ANY /api/customer/**', 'api-gateway ANY /api/genai/**', 'api-gateway ANY /api/vet/**', 'api-gateway ANY /api/visit/**'],
    );
    assert.deepEqual(
      fwd.filter((f) => !f.includes('customer')),
      [
        'api-gateway ANY /api/genai/** -> genai-service POST /chatclient',
        'api-gateway ANY /api/vet/** -> vets-service GET /vets',
        'api-gateway ANY /api/visit/** -> visits-service GET /owners/*/pets/{petId}/visits',
        'api-gateway ANY /api/visit/** -> visits-service GET /pets/visits',
        'api-gateway ANY /api/visit/** -> visits-service POST /owners/*/pets/{petId}/visits',
      ],
    );
    assert.equal(fwd.filter((f) => f.includes('/api/customer/**')).length, 8, 'every customers-service route is reachable through /api/customer/**');
  });

  test('petclinic: the service topology', async () => {
    assert.deepEqual(await topology(petStore), ['api-gateway -> customers-service http 1/1', 'api-gateway -> visits-service http 1/1', 'genai-service -> customers-service http 3/3', 'genai-service -> vets-service http 1/1']);
  });

  test('petclinic: trace from the gateway owner-details route reaches customers-service and visits-service (MCP, stdio)', async () => {
    let session: Session | undefined;
    try {
      session = await openSession('stdio', petStore);
      const { body } = await callTool(session.conn.client, 'trace', { from: 'api-gateway GET /api/gateway/owners/{ownerId}' });
      assert.equal(body.ok, true, JSON.stringify(body));
      const reached = body.hops.filter((h: any) => h.edge_type === 'HTTP_CALLS').map((h: any) => h.to.qualified_name).sort();
      assert.deepEqual(reached, ['customers-service GET /owners/{ownerId}', 'visits-service GET /pets/visits']);
      const handlers = body.hops.filter((h: any) => h.edge_type === 'EXPOSES' && h.depth > 1).map((h: any) => h.to.qualified_name).sort();
      assert.deepEqual(handlers, ['org.springframework.samples.petclinic.customers.web.OwnerResource#findOwner(int)', 'org.springframework.samples.petclinic.visits.web.VisitResource#read(List)']);
    } finally {
      await closeSession(session);
    }
  });

  test('piggymetrics: Feign and token-service calls reach routes under the context paths the config server gives; the rates API is external', async () => {
    assert.deepEqual(await clients(piggyStore), [
      'account-service -> auth-service GET /uaa/users/current | cross_service | CustomUserInfoTokenServices#loadAuthentication',
      'account-service -> auth-service POST /uaa/users | cross_service | AuthServiceClient#createUser',
      'account-service -> statistics-service PUT /statistics/{accountName} | cross_service | StatisticsServiceClient#updateStatistics',
      'notification-service -> account-service GET /accounts/{accountName} | cross_service | AccountServiceClient#getAccount',
      'statistics-service -> api.exchangeratesapi.io GET /latest | external | ExchangeRatesClient#getRates',
      'statistics-service -> auth-service GET /uaa/users/current | cross_service | CustomUserInfoTokenServices#loadAuthentication',
    ]);
    const token = await call(piggyStore, 'find', { kind: 'client', filter: { service: 'statistics-service', target_service: 'auth-service' } });
    const full = (await call(piggyStore, 'describe', { id: token.results[0].id })).node;
    assert.deepEqual(full.properties.value_from, ['config/src/main/resources/shared/application.yml: security.oauth2.resource.user-info-uri']);
  });

  test('piggymetrics: routes carry the context path from the config server shared folder', async () => {
    const routes = await call(piggyStore, 'find', { kind: 'route', filter: { service: 'auth-service', declared: true } });
    assert.deepEqual(routes.results.map((r: any) => `${r.name} ${r.attributes.context_path}`).sort(), ['GET /uaa/users/current /uaa', 'POST /uaa/users /uaa']);
  });

  test('piggymetrics: Zuul routes forward to their services; the topology', async () => {
    assert.deepEqual(await forwards(piggyStore), [
      'gateway ANY /accounts/** -> account-service GET /accounts/current',
      'gateway ANY /accounts/** -> account-service GET /accounts/{name}',
      'gateway ANY /accounts/** -> account-service POST /accounts',
      'gateway ANY /accounts/** -> account-service PUT /accounts/current',
      'gateway ANY /notifications/** -> notification-service GET /notifications/recipients/current',
      'gateway ANY /notifications/** -> notification-service PUT /notifications/recipients/current',
      'gateway ANY /statistics/** -> statistics-service GET /statistics/current',
      'gateway ANY /statistics/** -> statistics-service GET /statistics/{accountName}',
      'gateway ANY /statistics/** -> statistics-service PUT /statistics/{accountName}',
      'gateway ANY /uaa/** -> auth-service GET /uaa/users/current',
      'gateway ANY /uaa/** -> auth-service POST /uaa/users',
    ]);
    assert.deepEqual(await topology(piggyStore), [
      'account-service -> auth-service http 2/2',
      'account-service -> statistics-service http 1/1',
      'notification-service -> account-service http 1/1',
      'statistics-service -> auth-service http 1/1',
    ]);
  });
});
