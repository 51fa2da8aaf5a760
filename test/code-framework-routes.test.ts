/**
 * Routes a framework serves for a service without a controller declaring them (src/sources/code/links/framework-routes.ts),
 * built the way the code source builds its model: facts from `extractFile`, services from `detectLayout`, dependencies
 * from `buildGraph` through `buildFactsOf`.
 *
 * - ewolff-consul (../shared/corpora, read in place): the Spring Data REST resources of catalog, customer and order, and
 *   the actuator endpoints `management.endpoints.web.exposure.include=*` exposes on Spring Boot 2.2–2.3 (Hoxton); the
 *   routes test/estates/ewolff-consul.yaml's calls reach are among them.
 * - packt-ch17: every service's actuator endpoints under the shared config-repo's `include: "*"` on Boot 3.0; the
 *   gateway's health checks of test/estates/packt-ch17.yaml reach them.
 * - test/fixtures/framework-routes/data-rest: one rule each of repository export, paths and methods.
 * - test/fixtures/framework-routes/actuator: one rule each of availability, exposure, access, paths and ports.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { before, describe, test } from 'node:test';
import { sextantOntology } from '../src/graph/ontology/index.js';
import { buildGraph, readBuildInput } from '../src/sources/code/build/files.js';
import { detectLayout, type ServiceInfo } from '../src/sources/code/config/layout.js';
import { parseSpringConfig } from '../src/sources/code/config/spring-config.js';
import { discover } from '../src/sources/code/discover.js';
import { buildFactsOf, type FrameworkRoute, frameworkRoutes, type FrameworkRoutesInput, plural, springDataRestBasePath } from '../src/sources/code/links/framework-routes.js';
import { CodeModel } from '../src/sources/code/model/model.js';
import { extractFile } from '../src/sources/code/parse/job.js';
import { loadExpected } from './helpers/estate-links.js';
import { sharedDir } from './helpers/index.js';

const CORPORA = join(sharedDir(), 'corpora');
const EWOLFF = join(CORPORA, 'ewolff-consul');
const PACKT = join(CORPORA, 'packt-ch17');
const FIXTURES = fileURLToPath(new URL('./fixtures/framework-routes', import.meta.url));

interface Indexed {
  routes: FrameworkRoute[];
  warnings: string[];
  services: ServiceInfo[];
  input: FrameworkRoutesInput;
}

/**
 * Configuration files a deployment loads in place of the service's own: directory → files, lowest precedence first
 * (what SPRING_CONFIG_LOCATION names; the layout does not read it yet).
 */
type ConfigLocations = Readonly<Record<string, readonly string[]>>;

async function index(root: string, locations: ConfigLocations = {}): Promise<Indexed> {
  const found = await discover(root, { includeTests: false, exclude: [] });
  const files = await Promise.all(found.files.map((f) => extractFile(f.path, f.language, readFileSync(join(root, f.path), 'utf8'))));
  const readText = (rel: string): string | undefined => {
    try {
      return readFileSync(join(root, rel), 'utf8');
    } catch {
      return undefined;
    }
  };
  const deployable = new Set(files.filter((f) => f.types.some((t) => t.annotations.some((a) => a.name === 'SpringBootApplication'))).map((f) => dirname(f.path)));
  const layout = detectLayout(found, readText, deployable);
  const renamed = new Map<string, string>();
  const services = layout.services.map((s) => {
    const files = locations[s.dir];
    if (!files || s.config['spring.application.name']) return s;
    const config: Record<string, string> = {};
    const configOrigins: Record<string, string> = {};
    const configLines: Record<string, number> = {};
    for (const file of files) {
      for (const doc of parseSpringConfig(file, readText(file) ?? '', []).filter((d) => d.profile === null)) {
        for (const [k, v] of doc.values) [config[k], configOrigins[k], configLines[k]] = [v, file, doc.lines.get(k) ?? 0];
      }
    }
    const name = config['spring.application.name'] ?? s.name;
    renamed.set(s.name, name);
    return { ...s, name, config, configOrigins, configLines };
  });
  const locate = (p: string) => {
    const at = layout.locate(p);
    return { ...at, service: renamed.get(at.service) ?? at.service };
  };
  const ontology = sextantOntology();
  const build = readBuildInput(found, { services, deployments: layout.deployments }, readText);
  const graph = buildGraph(ontology, 'code', services, locate, build);
  const facts = buildFactsOf(graph, ontology, 'code', services, build.texts);
  const model = new CodeModel(files, locate);
  const input: FrameworkRoutesInput = { model, services, dependencies: facts.dependencies, declaredAt: facts.declaredAt, bootVersion: facts.bootVersion };
  const { routes, warnings } = frameworkRoutes(input);
  return { routes, warnings, services, input };
}

/** `METHOD path` of one service's routes of one framework (`@port` when on the management port). */
function routeSet(routes: readonly FrameworkRoute[], service: string, framework: FrameworkRoute['framework']): string[] {
  return routes.filter((r) => r.service === service && r.framework === framework).map((r) => `${r.method} ${r.path}${r.managementPort ? ` @${r.managementPort}` : ''}`);
}

function find(routes: readonly FrameworkRoute[], service: string, key: string): FrameworkRoute {
  const found = routes.find((r) => r.service === service && `${r.method} ${r.path}` === key);
  assert.ok(found, `${service} ${key}`);
  return found;
}

const handlerOf = (r: FrameworkRoute): string | undefined => r.handler?.qn.replace(/^.*\.(\w+#)/, '$1');
/** `service METHOD /path` with path variables' names dropped. */
const shape = (s: string): string => s.replace(/\{[^}]*\}/g, '{}');

/** Spring Boot 2.2–2.3 endpoints with no condition besides the actuator itself (beans, caches, …, threaddump). */
const BOOT_2_ENDPOINTS = [
  'GET /actuator',
  'GET /actuator/beans',
  'GET /actuator/caches',
  'GET /actuator/caches/{cache}',
  'DELETE /actuator/caches',
  'DELETE /actuator/caches/{cache}',
  'GET /actuator/conditions',
  'GET /actuator/configprops',
  'GET /actuator/env',
  'GET /actuator/env/{toMatch}',
  'GET /actuator/health',
  'GET /actuator/health/{*path}',
  'GET /actuator/heapdump',
  'GET /actuator/info',
  'GET /actuator/loggers',
  'GET /actuator/loggers/{name}',
  'POST /actuator/loggers/{name}',
  'GET /actuator/mappings',
  'GET /actuator/metrics',
  'GET /actuator/metrics/{name}',
  'GET /actuator/scheduledtasks',
  'GET /actuator/threaddump',
];

describe('framework routes on ewolff-consul', { skip: existsSync(EWOLFF) ? false : 'the corpora are not on this machine' }, () => {
  let indexed: Indexed;
  before(async () => {
    indexed = await index(EWOLFF);
  });

  test('Spring Data REST: each exported repository at its path, with the methods its CrudRepository backs', () => {
    const crud = (p: string) => [`GET /${p}`, `POST /${p}`, `GET /${p}/{id}`, `PUT /${p}/{id}`, `PATCH /${p}/{id}`, `DELETE /${p}/{id}`];
    assert.deepEqual(routeSet(indexed.routes, 'catalog', 'spring_data_rest'), [
      'GET /',
      'GET /profile',
      ...crud('catalog'),
      'GET /catalog/search',
      'GET /catalog/search/findByName',
      'GET /catalog/search/findByNameContaining',
      'GET /profile/catalog',
    ]);
    assert.deepEqual(routeSet(indexed.routes, 'customer', 'spring_data_rest'), ['GET /', 'GET /profile', ...crud('customer'), 'GET /customer/search', 'GET /customer/search/findByName', 'GET /profile/customer']);
    // OrderRepository is package-private, but annotated: the default detection strategy exports it. No query methods, no search resource.
    assert.deepEqual(routeSet(indexed.routes, 'order', 'spring_data_rest'), ['GET /', 'GET /profile', ...crud('order'), 'GET /profile/order']);
    assert.deepEqual(indexed.warnings, []);
  });

  test('Spring Data REST: where each route is declared and what serves it', () => {
    const ITEM = 'microservice-consul-demo/microservice-consul-demo-catalog/src/main/java/com/ewolff/microservice/catalog/ItemRepository.java';
    const collection = find(indexed.routes, 'catalog', 'GET /catalog');
    assert.deepEqual([collection.file, collection.line, collection.serves, collection.handler, collection.type?.qn], [ITEM, 9, 'findAll(Pageable)', undefined, 'com.ewolff.microservice.catalog.ItemRepository']);
    assert.deepEqual(
      ['GET /catalog/{id}', 'DELETE /catalog/{id}', 'PATCH /catalog/{id}'].map((k) => find(indexed.routes, 'catalog', k).serves),
      ['findById(ID)', 'delete(T)', 'save(T)'],
    );
    const query = find(indexed.routes, 'catalog', 'GET /catalog/search/findByNameContaining');
    assert.deepEqual([query.file, query.line, handlerOf(query)], [ITEM, 14, 'ItemRepository#findByNameContaining(String)']);
    const root = find(indexed.routes, 'catalog', 'GET /');
    assert.deepEqual([root.file, root.line], ['microservice-consul-demo/microservice-consul-demo-catalog/pom.xml', 29]);
  });

  test('Actuator: exposure.include=* on Boot 2.2-2.3 (Spring Cloud Hoxton), prometheus where micrometer-registry-prometheus is', () => {
    assert.deepEqual(routeSet(indexed.routes, 'catalog', 'actuator'), BOOT_2_ENDPOINTS);
    assert.deepEqual(routeSet(indexed.routes, 'customer', 'actuator'), BOOT_2_ENDPOINTS);
    assert.deepEqual(routeSet(indexed.routes, 'order', 'actuator'), [...BOOT_2_ENDPOINTS.slice(0, -2), 'GET /actuator/prometheus', ...BOOT_2_ENDPOINTS.slice(-2)]);
    const health = find(indexed.routes, 'order', 'GET /actuator/health');
    assert.deepEqual([health.file, health.line, health.serves, health.managementPort], ['microservice-consul-demo/microservice-consul-demo-order/src/main/resources/application.properties', 1, 'endpoint health', undefined]);
  });

  test('the routes the estate file says the order service calls are served', () => {
    const served = new Set(indexed.routes.map((r) => shape(`${r.service} ${r.method} ${r.path}`)));
    const targets = loadExpected('ewolff-consul').links.filter((l) => l.kind === 'http').flatMap((l) => l.to ?? []);
    assert.equal(targets.length, 5);
    for (const t of targets) assert.ok(served.has(shape(t)), t);
  });
});

/** docker-compose.yml:10, 30, 50, 69, 132, 150: SPRING_CONFIG_LOCATION=file:/config-repo/application.yml,file:/config-repo/<name>.yml, the config-repo mounted at /config-repo. */
const PACKT_CONFIG: ConfigLocations = Object.fromEntries(
  [
    ['microservices/product-service', 'product'],
    ['microservices/recommendation-service', 'recommendation'],
    ['microservices/review-service', 'review'],
    ['microservices/product-composite-service', 'product-composite'],
    ['spring-cloud/gateway', 'gateway'],
    ['spring-cloud/authorization-server', 'auth-server'],
  ].map(([dir, name]) => [dir!, ['config-repo/application.yml', `config-repo/${name}.yml`]]),
);

describe('framework routes on packt-ch17', { skip: existsSync(PACKT) ? false : 'the corpora are not on this machine' }, () => {
  let indexed: Indexed;
  before(async () => {
    indexed = await index(PACKT, PACKT_CONFIG);
  });

  test('Actuator: include "*" (config-repo/application.yml:16) on Spring Boot 3.0.4 for every service', () => {
    const boot3 = [...BOOT_2_ENDPOINTS.slice(0, 8), 'GET /actuator/configprops/{prefix}', ...BOOT_2_ENDPOINTS.slice(8)];
    for (const service of ['auth-server', 'gateway', 'product', 'product-composite', 'recommendation', 'review']) assert.deepEqual(routeSet(indexed.routes, service, 'actuator'), boot3, service);
    // api and util are libraries: no actuator in their builds.
    assert.deepEqual(
      indexed.routes.map((r) => r.service).filter((s, i, all) => all.indexOf(s) === i),
      ['auth-server', 'gateway', 'product', 'product-composite', 'recommendation', 'review'],
    );
    assert.ok(indexed.routes.every((r) => r.framework === 'actuator' && r.file === 'config-repo/application.yml' && r.line === 16 && r.resolved));
    assert.deepEqual(indexed.warnings, []);
  });

  test("the gateway's health checks reach each service's health endpoint", () => {
    const served = new Set(indexed.routes.map((r) => shape(`${r.service} ${r.method} ${r.path}`)));
    const targets = loadExpected('packt-ch17').links.flatMap((l) => l.to ?? []).filter((t) => t.includes('/actuator/'));
    assert.equal(targets.length, 5);
    for (const t of targets) assert.ok(served.has(shape(t)), t);
  });
});

describe('Spring Data REST rules (fixtures/framework-routes/data-rest)', () => {
  let indexed: Indexed;
  before(async () => {
    indexed = await index(join(FIXTURES, 'data-rest'));
  });

  test('exported repositories, their paths under spring.data.rest.base-path, and the HTTP methods their CRUD methods back', () => {
    assert.deepEqual(routeSet(indexed.routes, 'library', 'spring_data_rest'), [
      'GET /api',
      'GET /api/profile',
      // Boot 3: PagingAndSortingRepository alone backs the collection GET only.
      'GET /api/books',
      'GET /api/profile/books',
      // Package-private but annotated; Category pluralised.
      'GET /api/categories',
      'POST /api/categories',
      'GET /api/categories/{id}',
      'PUT /api/categories/{id}',
      'PATCH /api/categories/{id}',
      'DELETE /api/categories/{id}',
      'GET /api/profile/categories',
      // Public, not annotated; delete(T) not exported: no DELETE; findByAge not exported; the fragment's method is no query method.
      'GET /api/persons',
      'POST /api/persons',
      'GET /api/persons/{id}',
      'PUT /api/persons/{id}',
      'PATCH /api/persons/{id}',
      'GET /api/persons/search',
      'GET /api/persons/search/by-name',
      'GET /api/profile/persons',
      // Person.books is an association to an exported repository's type (Person.address's repository is not exported).
      'GET /api/persons/{id}/books',
      'PUT /api/persons/{id}/books',
      'PATCH /api/persons/{id}/books',
      'DELETE /api/persons/{id}/books',
      'POST /api/persons/{id}/books',
      // Only what its @NoRepositoryBean base declares (findAll, save): no item GET, so no DELETE either.
      'GET /api/tags',
      'POST /api/tags',
      'PUT /api/tags/{id}',
      'PATCH /api/tags/{id}',
      'GET /api/profile/tags',
    ]);
    assert.deepEqual(indexed.warnings, []);
  });

  test('handlers are the repository methods the estate declares', () => {
    const handlers = indexed.routes.filter((r) => r.handler).map((r) => `${r.method} ${r.path} -> ${handlerOf(r)}`);
    assert.deepEqual(handlers, [
      'POST /api/persons -> PersonRepository#save(S)',
      'PUT /api/persons/{id} -> PersonRepository#save(S)',
      'PATCH /api/persons/{id} -> PersonRepository#save(S)',
      'GET /api/persons/search/by-name -> PersonRepository#findByLastName(String)',
      'GET /api/tags -> BaseRepository#findAll()',
      'POST /api/tags -> BaseRepository#save(T)',
      'PUT /api/tags/{id} -> BaseRepository#save(T)',
      'PATCH /api/tags/{id} -> BaseRepository#save(T)',
    ]);
    const association = find(indexed.routes, 'library', 'GET /api/persons/{id}/books');
    assert.deepEqual([association.file, association.line, association.type?.qn], ['src/main/java/com/example/library/Person.java', 16, 'com.example.library.PersonRepository']);
  });

  test('the base path repository controllers are mapped under', () => {
    assert.equal(springDataRestBasePath(indexed.input, indexed.services[0]!), '/api');
  });

  test('default paths pluralise as Evo Inflector does', () => {
    assert.deepEqual(
      ['person', 'category', 'address', 'box', 'key', 'leaf', 'status', 'child', 'salesman', 'photo', 'hero', 'news', 'orderItem'].map(plural),
      ['persons', 'categories', 'addresses', 'boxes', 'keys', 'leaves', 'statuses', 'children', 'salesmen', 'photos', 'heroes', 'news', 'orderItems'],
    );
  });
});

describe('Actuator rules (fixtures/framework-routes/actuator)', () => {
  let indexed: Indexed;
  before(async () => {
    indexed = await index(join(FIXTURES, 'actuator'));
  });

  test('management port, base paths, path mapping, exposure, access and conditions', () => {
    assert.deepEqual(routeSet(indexed.routes, 'monitor', 'actuator'), [
      'GET /manage/ops @9001',
      'GET /manage/ops/healthcheck @9001',
      'GET /manage/ops/healthcheck/{*path} @9001',
      'GET /manage/ops/info @9001',
      // logging.file.name is set; flyway-core is a test dependency only; metrics is disabled.
      'GET /manage/ops/logfile @9001',
      // access read-only: no POST.
      'GET /manage/ops/loggers @9001',
      'GET /manage/ops/loggers/{name} @9001',
      'GET /manage/ops/prometheus @9001',
      // Disabled by default, unrestricted by its access setting (Boot 3.4).
      'POST /manage/ops/shutdown @9001',
      'GET /manage/ops/features @9001',
      'GET /manage/ops/features/{name} @9001',
      'POST /manage/ops/features/{name} @9001',
      'DELETE /manage/ops/features/{name} @9001',
      // The liveness group's additional path on the main server.
      'GET /livez',
    ]);
    const feature = find(indexed.routes, 'monitor', 'POST /manage/ops/features/{name}');
    assert.deepEqual([feature.file, feature.line, handlerOf(feature)], ['monitor/src/main/java/com/example/monitor/FeaturesEndpoint.java', 26, 'FeaturesEndpoint#configure(String,boolean)']);
    const info = find(indexed.routes, 'monitor', 'GET /manage/ops/info');
    assert.deepEqual([info.file, info.line], ['monitor/src/main/resources/application.yml', 17]);
  });

  test('without exposure settings Boot 2.4 exposes health and info (at the build file line); a non-web application serves none', () => {
    assert.deepEqual(routeSet(indexed.routes, 'legacy', 'actuator'), ['GET /actuator', 'GET /actuator/health', 'GET /actuator/health/{*path}', 'GET /actuator/info']);
    const health = find(indexed.routes, 'legacy', 'GET /actuator/health');
    assert.deepEqual([health.file, health.line], ['legacy/build.gradle', 8]);
    assert.deepEqual(routeSet(indexed.routes, 'batch', 'actuator'), []);
    assert.deepEqual(indexed.warnings, []);
  });
});

test('odd input: unknown values, placeholders without value, no code, never a throw', () => {
  const service = (name: string, config: Record<string, string>, holes: Record<string, string> = {}): ServiceInfo => ({ name, dir: name, nameFrom: 'directory', buildTool: 'maven', modules: [], configFiles: [], config, profiles: {}, configHoles: holes, hosts: [] });
  const services = [
    service('a', { 'management.endpoints.web.exposure.include': '', 'management.server.port': '${MGMT_PORT}', 'spring.data.rest.base-path': '${BASE}' }),
    service('b', { MANAGEMENT_ENDPOINTS_WEB_EXPOSURE_INCLUDE: 'health,,constructor', 'management.endpoint.health.access': 'bogus', 'management.endpoints.web.base-path': '${X}' }, { 'management.endpoints.web.base-path': 'a Kubernetes secret' }),
  ];
  const deps = ['org.springframework.boot:spring-boot-starter-actuator', 'org.springframework.boot:spring-boot-starter-web', 'org.springframework.boot:spring-boot-starter-data-rest'];
  const { routes, warnings } = frameworkRoutes({ model: new CodeModel([], () => ({ service: 'a', module: 'a' })), services, dependencies: () => deps });
  assert.deepEqual(routeSet(routes, 'a', 'actuator'), ['GET /actuator @${MGMT_PORT}']);
  assert.deepEqual(
    routes.filter((r) => r.service === 'a' && r.framework === 'spring_data_rest').map((r) => [r.method, r.path, r.resolved, r.written]),
    [
      ['GET', '/${BASE}', false, '${spring.data.rest.base-path}'],
      ['GET', '/${BASE}/profile', false, '${spring.data.rest.base-path}'],
    ],
  );
  // The environment-variable form of the key; an access level Boot does not know leaves the default; the base path a deployment leaves unknown.
  assert.deepEqual(
    routes.filter((r) => r.service === 'b' && r.framework === 'actuator').map((r) => [r.method, r.path, r.resolved]),
    [
      ['GET', '/${X}', false],
      ['GET', '/${X}/health', false],
      ['GET', '/${X}/health/{*path}', false],
    ],
  );
  assert.deepEqual(warnings, []);
});
