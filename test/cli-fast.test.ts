/**
 * The quick CLI (issue 15, item 8): a query process loads only the store and the tools it runs (no parser, GraphQL,
 * MCP SDK, logger or data layer), and the shortcuts (`callers`, `callees`, `impls`, `usages`, `routes`) resolve a
 * name and walk in one process, with exact answers on the petclinic estate (read from its source). Speed itself is
 * measured by `npm run bench` (bench/cli.ts), never asserted here.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BIN, indexInto, jsonOf, killAll, runCli, tempDir, REPO_ROOT } from './helpers/e2e.js';
import { sharedDir } from './helpers/index.js';
import { QUICK_TOOLS } from '../src/surfaces/cli/session.js';
import { linkNote } from '../src/surfaces/cli/format.js';
import { DATA_TOOLS, TOOLS, toolByName } from '../src/query/index.js';
import { spawn } from 'node:child_process';

const PETCLINIC = join(sharedDir(), 'corpora', 'spring-petclinic-microservices');
const GATEWAY = 'org.springframework.samples.petclinic.api.boundary.web.ApiGatewayController';
const VISITS_CLIENT = 'org.springframework.samples.petclinic.api.application.VisitsServiceClient';
const CUSTOMERS = 'org.springframework.samples.petclinic.customers';

let store: string;
let work: string;

before(async () => {
  work = await tempDir('sextant-cli-fast-');
  store = join(work, 'index');
  await indexInto(PETCLINIC, store);
});
after(killAll);

const cli = (...args: string[]) => runCli([...args, '--store', store]);

type Json = Record<string, any>;
const others = (r: Json) => (r.edges as Json[]).map((e) => e.other.qualified_name as string);

describe('a query process loads what it needs', () => {
  it('runs the quick tools from the registry\'s own definitions, and none of the data tools', async () => {
    for (const [name, load] of Object.entries(QUICK_TOOLS)) {
      assert.equal(await load(), toolByName(name), `${name}: the quick loader must give the registry's definition`);
      assert.ok(!DATA_TOOLS.has(name));
    }
    assert.deepEqual(Object.keys(QUICK_TOOLS).sort(), ['changes', 'describe', 'find', 'impact', 'links', 'neighbors', 'resolve', 'search', 'trace']);
  });

  /** Every module a CLI process loads: ESM resolutions (a loader hook) and CommonJS ones (require.cache at exit). */
  async function modulesLoaded(args: string[]): Promise<string[]> {
    const log = join(work, `modules-${Math.random().toString(36).slice(2)}.log`);
    const hook = join(work, 'hook.mjs');
    const preload = join(work, 'preload.cjs');
    writeFileSync(
      hook,
      `import { register } from 'node:module';\nregister('data:text/javascript,' + encodeURIComponent(${JSON.stringify(
        "import { appendFileSync } from 'node:fs';\nexport async function resolve(s, c, next) { const r = await next(s, c); appendFileSync(process.env.SEXTANT_TEST_MODULES, r.url + '\\n'); return r; }",
      )}));\n`,
    );
    writeFileSync(preload, `process.on('exit', () => require('node:fs').appendFileSync(process.env.SEXTANT_TEST_MODULES, Object.keys(require.cache).join('\\n') + '\\n'));\n`);
    const code = await new Promise<number | null>((done, fail) => {
      const child = spawn(process.execPath, ['--require', preload, '--import', hook, BIN, ...args, '--store', store], { cwd: REPO_ROOT, env: { ...process.env, SEXTANT_TEST_MODULES: log }, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      child.once('error', fail);
      child.once('close', (c) => (c === 0 ? done(c) : fail(new Error(`sextant ${args.join(' ')} exited ${c}: ${stderr}`))));
    });
    assert.equal(code, 0);
    return (await readFile(log, 'utf8')).split('\n').filter(Boolean);
  }

  const HEAVY = ['graphql', '@modelcontextprotocol', 'web-tree-sitter', 'tree-sitter-java', '@tree-sitter-grammars', 'apache-arrow', 'yaml', 'zod', 'ajv', 'chokidar', 'cli-progress', 'pino', 're2js', 'jq-wasm', 'ignore'];
  const HEAVY_OWN = ['dist/sources/', 'dist/indexer/', 'dist/surfaces/mcp/', 'dist/query/data/', 'dist/query/view/', 'dist/query/index.js', 'dist/query/tools/graphql', 'dist/query/tools/field-values', 'dist/surfaces/data.js'];

  for (const args of [
    ['call', 'find', '{"kind":"service"}'],
    ['call', 'resolve', '{"identifier":"VisitsServiceClient"}'],
    ['callers', 'VisitsServiceClient#getVisitsForPets'],
  ]) {
    it(`sextant ${args.join(' ')} loads no parser, GraphQL, MCP SDK, logger, indexer or data layer`, async () => {
      const loaded = await modulesLoaded(args);
      const packages = new Set(loaded.flatMap((m) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(m)?.[1] ?? []));
      // The hook saw the modules it should (the test fails if it stops recording).
      assert.ok(packages.has('better-sqlite3') && packages.has('commander'), `recorded: ${[...packages].join(', ')}`);
      assert.ok(loaded.some((m) => m.endsWith('/dist/query/run.js')));
      for (const heavy of HEAVY) assert.ok(![...packages].some((p) => p === heavy || p.startsWith(`${heavy}/`)), `${heavy} was loaded by sextant ${args.join(' ')}`);
      for (const own of HEAVY_OWN) assert.deepEqual(loaded.filter((m) => m.includes(own)), [], `${own} was loaded by sextant ${args.join(' ')}`);
    });
  }

  it('a tool outside the quick ones runs through the full registry; an unknown one is a usage error listing every tool', async () => {
    const r = await cli('call', 'graphql_validate', '{"query":"{ a }"}');
    const answer = jsonOf(r);
    assert.equal(answer.ok, false);
    assert.notEqual(answer.error.code, 'unknown_tool');
    const unknown = await cli('call', 'no_such_tool', '{}');
    assert.equal(unknown.code, 2);
    for (const t of TOOLS) assert.match(unknown.stderr, new RegExp(`\\b${t.name}\\b`));
  });

  it('`sextant call --help` lists every tool', async () => {
    const r = await runCli(['call', '--help']);
    assert.equal(r.code, 0);
    for (const t of TOOLS) assert.ok(r.stdout.includes(t.name), `${t.name} missing from:\n${r.stdout}`);
  });
});

describe('shortcuts: resolve and walk in one process (petclinic)', () => {
  it('callers of a method given as Type#method: the one method that calls it, at its call site', async () => {
    const r = jsonOf(await cli('callers', 'VisitsServiceClient#getVisitsForPets', '--json'));
    assert.equal(r.ok, true);
    assert.equal(r.target.qualified_name, `${VISITS_CLIENT}#getVisitsForPets(List)`);
    assert.deepEqual(others(r), [`${GATEWAY}#getOwnerDetails(int)`]);
    assert.equal(r.edges[0].attrs.line, 58);
    const text = await cli('callers', 'VisitsServiceClient#getVisitsForPets');
    assert.equal(text.code, 0);
    assert.match(text.stdout, /^callers of .*VisitsServiceClient#getVisitsForPets\(List\)/);
    assert.match(text.stdout, /ApiGatewayController#getOwnerDetails\(int\) {2}method, CALLS .*ApiGatewayController\.java:58/);
  });

  it('callers of a type: its members\' callers from outside it, saying which member each reaches', async () => {
    const r = jsonOf(await cli('callers', 'VisitsServiceClient', '--json'));
    assert.equal(r.target.qualified_name, VISITS_CLIENT);
    // The constructor, getVisitsForPets, joinIds and setHostname; getVisitsForPets → joinIds stays inside.
    assert.equal(r.walk.members, 4);
    assert.equal(r.within_type, 1);
    assert.deepEqual(others(r), [`${GATEWAY}#getOwnerDetails(int)`]);
    assert.equal(r.edges[0].member, `${VISITS_CLIENT}#getVisitsForPets(List)`);
  });

  it('callers of a handler with none in code name the route it serves, and callers of that route are its clients and gateway routes', async () => {
    const handler = jsonOf(await cli('callers', 'ApiGatewayController.getOwnerDetails', '--json'));
    assert.equal(handler.target.qualified_name, `${GATEWAY}#getOwnerDetails(int)`);
    assert.equal(handler.total, 0);
    assert.deepEqual(handler.serves.map((n: Json) => n.qualified_name), ['api-gateway GET /api/gateway/owners/{ownerId}']);

    // `GET /owners/{ownerId}` names a client and a route: callers answers for routes only, so it takes the route.
    const route = jsonOf(await cli('callers', 'GET /owners/{ownerId}', '--json'));
    assert.equal(route.target.qualified_name, 'customers-service GET /owners/{ownerId}');
    assert.deepEqual(
      route.edges.map((e: Json) => [e.type, e.other.qualified_name]),
      [
        ['HTTP_CALLS', 'api-gateway -> customers-service GET /owners/{ownerId}'],
        ['FORWARDS', 'api-gateway ANY /api/customer/**'],
      ],
    );
    const page = jsonOf(await cli('callers', 'GET /owners/{ownerId}', '--json', '--limit', '1', '--offset', '1'));
    assert.deepEqual([page.total, page.has_more, others(page)], [2, false, ['api-gateway ANY /api/customer/**']]);
  });

  it('callees of a service are the services it calls, each line saying how sure the link is', async () => {
    const r = jsonOf(await cli('callees', 'api-gateway', '--json'));
    assert.deepEqual(others(r), ['customers-service', 'visits-service']);
    assert.deepEqual(r.walk.edge_types, ['SERVICE_CALLS']);
    const text = await cli('callees', 'api-gateway');
    assert.match(text.stdout, /\n {2}customers-service {2}service, SERVICE_CALLS http .*\[client_calls, confidence 0\.9\]/);
  });

  it('a route named with a prefix its service does not serve, or under the wrong service, suggests the routes nearest it', async () => {
    const prefixed = jsonOf(await runCli(['call', 'resolve', JSON.stringify({ identifier: 'customers-service GET /api/v1/owners/{id}' }), '--store', store]));
    assert.equal(prefixed.status, 'none');
    assert.match(prefixed.absence.reason, /no route of customers-service matches GET \/api\/v1\/owners\/\{id\}/);
    assert.equal(prefixed.absence.did_you_mean[0].qualified_name, 'customers-service GET /owners/{ownerId}');
    assert.ok(prefixed.absence.did_you_mean.every((n: Json) => n.kind === 'route'), 'routes, not getters named like a segment');
    const elsewhere = jsonOf(await runCli(['call', 'resolve', JSON.stringify({ identifier: 'visits-service GET /owners/{id}' }), '--store', store]));
    assert.equal(elsewhere.status, 'none');
    assert.deepEqual(elsewhere.absence.did_you_mean.map((n: Json) => n.qualified_name), ['customers-service GET /owners/{ownerId}']);
    assert.deepEqual(elsewhere.hints[0], { tool: 'resolve', args: { identifier: 'GET /owners/{id}', kind: 'route' }, reason: 'the same route in any service' });
  });

  it("impact of a handler crosses services: its routes, the gateway's client and route reaching them, the methods declaring the clients", async () => {
    const r = jsonOf(await runCli(['call', 'impact', JSON.stringify({ ids: [`${CUSTOMERS}.web.OwnerResource`] }), '--store', store]));
    const reached = (r.groups as Json[]).flatMap((g) => (g.nodes as Json[]).filter((n) => n.service !== 'customers-service').map((n) => `${g.depth} ${n.qualified_name} via ${n.via.edge_type}${n.via.confidence !== undefined ? ` ${n.via.confidence}` : ''}`)).sort();
    // The route, the client calling it and the method declaring that client are one call: depth 1; its callers, 2.
    assert.deepEqual(reached, [
      '1 api-gateway -> customers-service GET /owners/{ownerId} via HTTP_CALLS 0.9',
      '1 api-gateway ANY /api/customer/** via FORWARDS 0.9',
      '1 genai-service -> customers-service GET /owners via HTTP_CALLS 0.9',
      '1 genai-service -> customers-service POST /owners via HTTP_CALLS 0.9',
      '1 org.springframework.samples.petclinic.api.application.CustomersServiceClient#getOwner(int) via DECLARES_CLIENT',
      '1 org.springframework.samples.petclinic.genai.AIDataProvider#addOwnerToPetclinic(OwnerRequest) via DECLARES_CLIENT',
      '1 org.springframework.samples.petclinic.genai.AIDataProvider#getAllOwners() via DECLARES_CLIENT',
      '2 api-gateway GET /api/gateway/owners/{ownerId} via EXPOSES',
      '2 org.springframework.samples.petclinic.api.boundary.web.ApiGatewayController#getOwnerDetails(int) via CALLS 0.95',
      '2 org.springframework.samples.petclinic.genai.PetclinicTools#addOwnerToPetclinic(OwnerRequest) via CALLS 0.95',
      '2 org.springframework.samples.petclinic.genai.PetclinicTools#listOwners() via CALLS 0.95',
    ]);
    const within = jsonOf(await runCli(['call', 'impact', JSON.stringify({ ids: [`${CUSTOMERS}.web.OwnerResource`], across_services: false }), '--store', store]));
    assert.equal(within.total, 0);
  });

  it('sextant impact: a name that is not one node, or a bad depth, is explained and exits 1', async () => {
    const none = await cli('impact', 'NoSuchResource');
    assert.equal(none.code, 1);
    assert.match(none.stdout, /impact: "NoSuchResource" is not one method, type or service\.\nstatus: none/);
    assert.match(none.stdout, /sextant call search '\{"query":"NoSuchResource"\}'/);
    const deep = await cli('impact', 'OwnerResource', '--depth', '99');
    assert.equal(deep.code, 1);
    assert.match(deep.stdout, /error \(out_of_range\): .*depth/);
    const ok = await cli('impact', 'OwnerResource', '--depth', '1');
    assert.equal(ok.code, 0, ok.stdout);
    assert.match(ok.stdout, /^impact of OwnerResource: \d+ affected in 3 services/);
  });

  it("calls of methods a repository inherits from Spring Data are its callers, in callers and impact alike", async () => {
    const r = jsonOf(await cli('callers', 'OwnerRepository', '--json'));
    assert.deepEqual(
      (r.edges as Json[]).map((e) => `${e.other.qualified_name.split('.').pop()}:${e.attrs.line} ${e.member.split('#').pop()}`).sort(),
      ['OwnerResource#createOwner(OwnerRequest):61 save(?)', 'OwnerResource#findAll():77 findAll(?)', 'OwnerResource#findOwner(int):69 findById(?)', 'OwnerResource#updateOwner(int,OwnerRequest):86 findById(?)', 'OwnerResource#updateOwner(int,OwnerRequest):90 save(?)', 'PetResource#processCreationForm(PetRequest,int):60 findById(?)'],
    );
    const save = jsonOf(await cli('callers', 'VisitRepository#save', '--json'));
    assert.equal(save.target.attributes.inherited_from, 'org.springframework.data.jpa.repository.JpaRepository');
    assert.deepEqual(others(save), ['org.springframework.samples.petclinic.visits.web.VisitResource#create(Visit,int)']);
    const impact = jsonOf(await runCli(['call', 'impact', JSON.stringify({ ids: [`${CUSTOMERS}.model.OwnerRepository`], depth: 1, across_services: false }), '--store', store]));
    const callers = (impact.groups as Json[]).flatMap((g) => (g.nodes as Json[]).filter((n) => n.via.edge_type === 'CALLS').map((n) => n.qualified_name.split('.').pop())).sort();
    assert.deepEqual(callers, ['OwnerResource#createOwner(OwnerRequest)', 'OwnerResource#findAll()', 'OwnerResource#findOwner(int)', 'OwnerResource#updateOwner(int,OwnerRequest)', 'PetResource#processCreationForm(PetRequest,int)']);
  });

  it('a link below 0.6 confidence is marked a guess; code edges carry no note', () => {
    assert.equal(linkNote('HTTP_CALLS', { match: 'cross_service', strategy: 'method_path', confidence: 0.5 }), '  [guess: method_path, confidence 0.5]');
    assert.equal(linkNote('ASYNC_CALLS', { strategy: 'destination', confidence: 0.9 }), '  [destination, confidence 0.9]');
    assert.equal(linkNote('CALLS', { strategy: 'import', confidence: 0.9 }), '');
  });

  it('callees of a client method: the client it declares, and the route that client calls', async () => {
    const r = jsonOf(await cli('callees', 'CustomersServiceClient#getOwner', '--json'));
    const links = r.edges.filter((e: Json) => e.type !== 'CALLS').map((e: Json) => [e.type, e.other.qualified_name, e.depth ?? 1]);
    assert.deepEqual(links, [
      ['DECLARES_CLIENT', 'api-gateway -> customers-service GET /owners/{ownerId}', 1],
      ['HTTP_CALLS', 'customers-service GET /owners/{ownerId}', 2],
    ]);
    const text = await cli('callees', 'CustomersServiceClient#getOwner');
    assert.match(text.stdout, /customers-service GET \/owners\/\{ownerId\} {2}route, HTTP_CALLS {2}handled by OwnerResource#findOwner\(int\) cross_service .*\(depth 2\) {2}\[service_method_path, confidence 0\.9\]/);
  });

  it('impls: subtypes of a library interface, implementations of an interface, overrides of a method', async () => {
    const jpa = jsonOf(await cli('impls', 'JpaRepository', '--json'));
    assert.deepEqual(others(jpa), [`${CUSTOMERS}.model.OwnerRepository`, `${CUSTOMERS}.model.PetRepository`, 'org.springframework.samples.petclinic.vets.model.VetRepository', 'org.springframework.samples.petclinic.visits.model.VisitRepository']);
    const mapper = jsonOf(await cli('impls', 'Mapper', '--json'));
    assert.deepEqual(
      mapper.edges.map((e: Json) => [e.type, e.other.qualified_name, e.depth]),
      [['IMPLEMENTS', `${CUSTOMERS}.web.mapper.OwnerEntityMapper`, 1]],
    );
    const method = jsonOf(await cli('impls', 'Mapper#map', '--json'));
    assert.equal(method.target.qualified_name, `${CUSTOMERS}.web.mapper.Mapper#map(E,R)`);
    assert.deepEqual(others(method), [`${CUSTOMERS}.web.mapper.OwnerEntityMapper#map(Owner,OwnerRequest)`]);
  });

  it('usages of a type: the classes holding it in a field and the constructors taking it', async () => {
    const r = jsonOf(await cli('usages', 'OwnerRepository', '--json'));
    assert.equal(r.target.qualified_name, `${CUSTOMERS}.model.OwnerRepository`);
    const uses = (r.edges as Json[]).map((e) => `${e.other.qualified_name} ${e.attrs.via}`).sort();
    assert.deepEqual(uses, [
      `${CUSTOMERS}.web.OwnerResource field`,
      `${CUSTOMERS}.web.OwnerResource parameter`,
      `${CUSTOMERS}.web.OwnerResource#<init>(OwnerRepository,OwnerEntityMapper) parameter`,
      `${CUSTOMERS}.web.PetResource field`,
      `${CUSTOMERS}.web.PetResource parameter`,
      `${CUSTOMERS}.web.PetResource#<init>(PetRepository,OwnerRepository) parameter`,
    ]);
    const text = await cli('usages', 'OwnerRepository');
    assert.match(text.stdout, /OwnerResource {2}class, USES field, parameter/);
    // Six usages, four lines: the count says both.
    assert.match(text.stdout, /\n6 usages; the 6 shown here on 4 lines, one per node and place\n/);
  });

  it('routes of a service: the routes its controllers declare, with their handlers, and those Actuator serves for it', async () => {
    const r = jsonOf(await cli('routes', 'customers-service', '--json', '--limit', '200'));
    assert.equal(r.target.kind, 'service');
    assert.ok((r.results as Json[]).some((n) => n.name === 'GET /actuator/health' && n.attributes.framework === 'actuator'), 'spring-boot-starter-actuator serves /actuator/health');
    assert.deepEqual(
      (r.results as Json[]).filter((n) => n.attributes.framework === 'spring_mvc').map((n) => `${n.name} ${n.attributes.handler.split('.').pop()}`),
      [
        'GET /owners OwnerResource#findAll()',
        'GET /owners/*/pets/{petId} PetResource#findPet(int)',
        'GET /owners/{ownerId} OwnerResource#findOwner(int)',
        'GET /petTypes PetResource#getPetTypes()',
        'POST /owners OwnerResource#createOwner(OwnerRequest)',
        'POST /owners/{ownerId}/pets PetResource#processCreationForm(PetRequest,int)',
        'PUT /owners/*/pets/{petId} PetResource#processUpdateForm(PetRequest)',
        'PUT /owners/{ownerId} OwnerResource#updateOwner(int,OwnerRequest)',
      ],
    );
    const text = await cli('routes', 'customers-service', '--limit', '200');
    assert.match(text.stdout, new RegExp(`^routes of customers-service .*\\n${(r.results as Json[]).length} routes\\n`));
    assert.match(text.stdout, /\n {2}GET \/owners +OwnerResource#findAll\(\) /);
  });

  it('an ambiguous name prints the candidates and exits 1; nothing is picked', async () => {
    const r = await cli('callers', 'Vet');
    assert.equal(r.code, 1);
    assert.match(r.stdout, /^"Vet" names several nodes/);
    assert.ok(r.stdout.includes('org.springframework.samples.petclinic.genai.dto.Vet') && r.stdout.includes('org.springframework.samples.petclinic.vets.model.Vet'));
    assert.match(r.stdout, /sextant callers org\.springframework\.samples\.petclinic\.genai\.dto\.Vet --store /);
    const json = jsonOf(await cli('callers', 'Vet', '--json'));
    assert.equal(json.status, 'many');
    assert.deepEqual(json.candidates.map((c: Json) => c.node.qualified_name).sort(), ['org.springframework.samples.petclinic.genai.dto.Vet', 'org.springframework.samples.petclinic.vets.model.Vet']);
  });

  it('an unknown name, a node the shortcut does not answer for and a bad --limit are explained', async () => {
    const none = await cli('impls', 'NoSuchTypeAnywhere');
    assert.equal(none.code, 1);
    assert.match(none.stdout, /^impls: nothing is named "NoSuchTypeAnywhere"/);
    const client = await cli('callers', 'api-gateway -> customers-service GET /owners/{ownerId}');
    assert.equal(client.code, 1);
    assert.match(client.stdout, /`callers` answers for symbol, route, service; .* is a client\. For it, try `sextant callees`/);
    const limit = await cli('callers', 'VisitsServiceClient', '--limit', '0');
    assert.equal(limit.code, 2);
    assert.match(limit.stderr, /--limit takes a whole number from 1 to 500; got "0"/);
  });
});
