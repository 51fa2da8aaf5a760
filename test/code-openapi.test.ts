/**
 * Routes declared by OpenAPI specs that openapi-generator's `spring` generator turns into controller interfaces at
 * build time: the interface and method names the generator gives each operation (tags or the first path segment,
 * operation ids as methods), read off Maven and Gradle configurations and specs split over files. Checked on
 * folio-mgr (read in place: each name below is one its controllers override) and hmpps-nomis-sync (Gradle tasks
 * generating clients only), on our fixture, and on odd input, which gives warnings naming file:line, never a throw.
 */
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { ageTree, indexTree } from './helpers/estate.js';
import { dumpIndex, testStoreLocation } from './helpers/store.js';
import { generatedApiOperations, type GeneratedApiInput, type GeneratedApiOperation } from '../src/sources/code/links/openapi.js';

const SHARED = existsSync(fileURLToPath(new URL('../../shared/corpora', import.meta.url))) ? fileURLToPath(new URL('../../shared', import.meta.url)) : '/work/shared';
const FOLIO = join(SHARED, 'corpora', 'folio-mgr');
const HMPPS = join(SHARED, 'corpora', 'hmpps-nomis-sync');
const FIXTURE = fileURLToPath(new URL('./fixtures/openapi', import.meta.url));

/** An estate on disk as the index sees it: build files outside `src/` trees, files read relative to the root. */
function onDisk(root: string): GeneratedApiInput {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      if (name === '.git' || name === 'node_modules' || name === 'target' || name === 'build') continue;
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else files.push(relative(root, path).split('\\').join('/'));
    }
  };
  walk(root);
  const build = files.filter((f) => /(^|\/)(pom\.xml|(build|settings)\.gradle(\.kts)?)$/.test(f) && !f.includes('/src/'));
  return {
    buildFiles: build.map((path) => ({ path, text: readFileSync(join(root, path), 'utf8') })),
    readText: (rel) => (files.includes(rel) ? readFileSync(join(root, rel), 'utf8') : undefined),
    listFiles: (dir) => files.filter((f) => f.startsWith(`${dir}/`)),
  };
}

/** An estate in memory: path → text. */
function inMemory(files: Record<string, string>): GeneratedApiInput {
  return {
    buildFiles: Object.entries(files).filter(([p]) => /(^|\/)(pom\.xml|(build|settings)\.gradle(\.kts)?)$/.test(p)).map(([path, text]) => ({ path, text })),
    readText: (rel) => files[rel],
    listFiles: (dir) => Object.keys(files).filter((f) => f.startsWith(`${dir}/`)),
  };
}

const line = (o: GeneratedApiOperation): string => `${o.interfaceName}#${o.methodName} ${o.httpMethod} ${o.path} ${o.specFile}:${o.line}`;

describe('generated API operations on the real estates', () => {
  test('folio-mgr: every operation of the entitlement service, named as its controllers implement them', { skip: !existsSync(FOLIO) && 'folio-mgr corpus not present' }, () => {
    const { operations, warnings } = generatedApiOperations(onDisk(FOLIO));
    assert.deepEqual(warnings, []);
    const spec = 'mgr-tenant-entitlements/src/main/resources/swagger.api/mgr-tenant-entitlements.yaml';
    const entitlements = operations.filter((o) => o.buildFile === 'mgr-tenant-entitlements/pom.xml');
    assert.deepEqual(entitlements.map(line).sort(), [
      `EntitlementApi#create POST /entitlements ${spec}:14`,
      `EntitlementApi#upgrade PUT /entitlements ${spec}:44`,
      `EntitlementApi#findByQueryOrTenantName GET /entitlements ${spec}:72`,
      `EntitlementApi#delete DELETE /entitlements ${spec}:97`,
      `EntitlementApi#applyState PUT /entitlements/state ${spec}:129`,
      `EntitlementApplicationApi#findEntitledApplicationsByTenantName GET /entitlements/{tenantName}/applications ${spec}:168`,
      `EntitlementModuleApi#getModuleEntitlements GET /entitlements/modules/{moduleId} ${spec}:192`,
      `EntitlementValidationApi#validate POST /entitlements/validate ${spec}:214`,
      `FlowApi#findFlows GET /entitlement-flows ${spec}:240`,
      `FlowApi#getFlowById GET /entitlement-flows/{flowId} ${spec}:262`,
      `FlowApi#findApplicationFlows GET /application-flows ${spec}:283`,
      `FlowApi#getApplicationFlowById GET /application-flows/{applicationFlowId} ${spec}:305`,
      `FlowApi#getApplicationFlowStages GET /application-flows/{applicationFlowId}/stages ${spec}:326`,
      `FlowApi#getApplicationFlowStageByName GET /application-flows/{applicationFlowId}/stages/{stageName} ${spec}:346`,
      `ReinstallApi#appReinstall POST /reinstall/applications ${spec}:367`,
      `ReinstallApi#moduleReinstall POST /reinstall/modules ${spec}:395`,
    ].sort());
    for (const o of entitlements) {
      // interfaceOnly: the estate's controllers implement the interfaces; the generated code carries no class-level mapping.
      assert.equal(o.package, 'org.folio.entitlement.rest.resource');
      assert.equal(o.operationId, o.methodName);
      assert.equal(o.buildLine, 565);
      assert.equal(o.delegateName ?? o.generatedController ?? o.classMapping, undefined);
    }
    // The html2 execution of the same spec makes documentation, not routes; the other two services' interfaces too.
    const byInterface = (file: string) => [...new Set(operations.filter((o) => o.buildFile === file).map((o) => `${o.package}.${o.interfaceName}`))].sort();
    assert.deepEqual(byInterface('mgr-applications/pom.xml'), ['org.folio.am.rest.resource.ApplicationDiscoveryApi', 'org.folio.am.rest.resource.ApplicationsApi', 'org.folio.am.rest.resource.ModuleBootstrapApi', 'org.folio.am.rest.resource.ModuleDiscoveryApi']);
    assert.deepEqual(byInterface('mgr-tenants/pom.xml'), ['org.folio.tm.rest.resource.TenantAttributesApi', 'org.folio.tm.rest.resource.TenantsApi']);
    assert.equal(operations.length, 16 + 19 + 10);
  });

  test('hmpps-nomis-sync: Gradle tasks generating Kotlin clients from downloaded specs make no routes', { skip: !existsSync(HMPPS) && 'hmpps-nomis-sync corpus not present' }, () => {
    const { operations, warnings } = generatedApiOperations(onDisk(HMPPS));
    assert.deepEqual(operations, []);
    assert.deepEqual(warnings, []);
  });
});

describe('generated API operations on the fixture', () => {
  const { operations, warnings } = generatedApiOperations(onDisk(FIXTURE));
  const spec = 'orders-service/src/main/resources/openapi/orders.yaml';
  const pathFile = 'orders-service/src/main/resources/openapi/paths/order.yaml';

  test('no warnings', () => assert.deepEqual(warnings, []));

  test('Maven, useTags: an interface per first tag, ids unique per tag, reserved words and missing ids as the generator names them, a $ref’d path file', () => {
    const orders = operations.filter((o) => o.buildFile === 'orders-service/pom.xml');
    assert.deepEqual(orders.map(line).sort(), [
      `OrderItemsApi#listOrders GET /orders ${spec}:7`,
      `OrderItemsApi#createOrder POST /orders ${spec}:11`,
      `OrderItemsApi#getOrder GET /orders/{id} ${pathFile}:1`,
      `OrderItemsApi#cancelOrder DELETE /orders/{id} ${pathFile}:5`,
      `OrderItemsApi#listOrders_0 GET /orders/search ${spec}:20`,
      `OrderItemsApi#callList GET /orders/{id}/items ${spec}:25`,
      `DefaultApi#getHealth GET /health ${spec}:30`,
      `Class2faApi#legacyGet GET /legacy ${spec}:39`,
    ].sort());
    const byPath = new Map(orders.map((o) => [`${o.httpMethod} ${o.path}`, o]));
    assert.equal(byPath.get('GET /health')!.operationId, 'get-health');
    assert.equal(byPath.get('GET /legacy')!.operationId, 'legacyGet');
    for (const o of orders) {
      // apiPackage from the parent's property; interfaceOnly from the parent's pluginManagement; the java client execution makes nothing.
      assert.equal(o.package, 'com.acme.orders.api');
      assert.equal(o.buildLine, 19);
      assert.equal(o.delegateName ?? o.generatedController ?? o.classMapping, undefined);
    }
  });

  test('Gradle Kotlin DSL, no useTags: an interface per first path segment; the delegate pattern without interfaceOnly', () => {
    const catalog = operations.filter((o) => o.buildFile === 'catalog-service/build.gradle.kts');
    const json = 'catalog-service/api/catalog.json';
    assert.deepEqual(catalog.map(line).sort(), [
      `ProductsApi#listProducts GET /products ${json}:7`,
      `ProductsApi#getProduct GET /products/{sku} ${json}:10`,
      `ProductReviewsApi#productReviewsGet GET /product-reviews ${json}:13`,
      `ProductReviewsApi#createReview POST /product-reviews ${json}:14`,
      `DefaultApi#rootGet GET / ${json}:17`,
    ].sort());
    const products = catalog.find((o) => o.methodName === 'listProducts')!;
    assert.deepEqual({ ...products, line: undefined }, {
      interfaceName: 'ProductsApi',
      package: 'com.acme.catalog.api',
      operationId: 'listProducts',
      methodName: 'listProducts',
      httpMethod: 'GET',
      path: '/products',
      specFile: json,
      line: undefined,
      buildFile: 'catalog-service/build.gradle.kts',
      buildLine: 10,
      delegateName: 'ProductsApiDelegate',
      generatedController: 'ProductsApiController',
      // The generated controller's mapping: the spec's title without "API", its server's path.
      classMapping: '${openapi.catalog.base-path:/v1}',
    });
  });
});

describe('generated API operations on odd input', () => {
  const pom = (configuration: string): string => `<project><artifactId>svc</artifactId><build><plugins><plugin>
  <groupId>org.openapitools</groupId><artifactId>openapi-generator-maven-plugin</artifactId>
  <executions><execution><goals><goal>generate</goal></goals><configuration>${configuration}</configuration></execution></executions>
</plugin></plugins></build></project>`;
  const spring = (spec: string, options = '<interfaceOnly>true</interfaceOnly><useTags>true</useTags>') => pom(`<generatorName>spring</generatorName><inputSpec>\${project.basedir}/${spec}</inputSpec><configOptions>${options}</configOptions>`);

  test('a malformed spec: a warning naming file:line, the operations before the fault still read', () => {
    const { operations, warnings } = generatedApiOperations(inMemory({
      'svc/pom.xml': spring('api.yaml'),
      'svc/api.yaml': 'paths:\n  /a:\n    get:\n      operationId: getA\n      tags: [a]\n  /b:\n    get: [unclosed\n',
    }));
    assert.deepEqual(operations.map(line), ['AApi#getA GET /a svc/api.yaml:3']);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /^svc\/api\.yaml:\d+: malformed spec/);
  });

  test('a spec that is not in the estate, a URL, a cyclic $ref, a missing $ref target: warnings, no operations, no throw', () => {
    const missing = generatedApiOperations(inMemory({ 'svc/pom.xml': spring('nowhere.yaml') }));
    assert.deepEqual(missing.operations, []);
    assert.match(missing.warnings[0]!, /^svc\/pom\.xml:3: openapi-generator inputSpec .*nowhere\.yaml is not in the estate/);
    const url = generatedApiOperations(inMemory({ 'svc/pom.xml': pom('<generatorName>spring</generatorName><inputSpec>https://example.com/api.yaml</inputSpec>') }));
    assert.match(url.warnings[0]!, /is a URL, outside the estate/);
    const cyclic = generatedApiOperations(inMemory({
      'svc/pom.xml': spring('api.yaml'),
      'svc/api.yaml': "paths:\n  /a:\n    $ref: 'a.yaml'\n  /b:\n    $ref: 'gone.yaml'\n  /c:\n    $ref: '#/x-nowhere'\n",
      'svc/a.yaml': "$ref: 'api.yaml#/paths/~1a'\n",
    }));
    assert.deepEqual(cyclic.operations, []);
    assert.equal(cyclic.warnings.length, 3);
    assert.match(cyclic.warnings[0]!, /^svc\/(a|api)\.yaml:\d+: \$ref .* cycle/);
    assert.match(cyclic.warnings[1]!, /gone\.yaml is not in the estate/);
    assert.match(cyclic.warnings[2]!, /^svc\/api\.yaml:7: \$ref #\/x-nowhere points at nothing/);
  });

  test('client libraries and other generators make no routes; a server generator not modelled is named', () => {
    const spec = { 'svc/api.yaml': 'paths:\n  /a:\n    get:\n      operationId: getA\n' };
    for (const library of ['spring-cloud', 'spring-http-interface']) {
      const r = generatedApiOperations(inMemory({ ...spec, 'svc/pom.xml': pom(`<generatorName>spring</generatorName><library>${library}</library><inputSpec>api.yaml</inputSpec>`) }));
      assert.deepEqual([r.operations, r.warnings], [[], []], library);
    }
    const kotlin = generatedApiOperations(inMemory({ ...spec, 'svc/pom.xml': pom('<generatorName>kotlin-spring</generatorName><inputSpec>api.yaml</inputSpec>') }));
    assert.deepEqual(kotlin.operations, []);
    assert.match(kotlin.warnings[0]!, /^svc\/pom\.xml:3: openapi-generator kotlin-spring generates server code this index does not model/);
    const noApis = generatedApiOperations(inMemory({ ...spec, 'svc/pom.xml': pom('<generatorName>spring</generatorName><inputSpec>api.yaml</inputSpec><generateApis>false</generateApis>') }));
    assert.deepEqual([noApis.operations, noApis.warnings], [[], []]);
    // A relative inputSpec is the module's; without useTags the interface is the first path segment's.
    const relative = generatedApiOperations(inMemory({ ...spec, 'svc/pom.xml': pom('<generatorName>spring</generatorName><inputSpec>api.yaml</inputSpec>') }));
    assert.deepEqual(relative.operations.map(line), ['AApi#getA GET /a svc/api.yaml:3']);
    assert.equal(relative.operations[0]!.package, 'org.openapitools.api');
  });

  test('Groovy DSL: openApiGenerate with a map literal, the root project directory, a spec directory merged', () => {
    const { operations, warnings } = generatedApiOperations(inMemory({
      'settings.gradle': "include 'app'\n",
      'app/build.gradle': [
        "plugins { id 'org.openapi.generator' version '7.24.0' }",
        'openApiGenerate {',
        "    generatorName = 'spring'",
        '    inputSpecRootDirectory = "$rootDir/specs".toString()',
        '    apiPackage = "com.acme.api"',
        '    configOptions = [',
        '        interfaceOnly: "true",',
        '        useTags      : "true",',
        '    ]',
        '}',
      ].join('\n'),
      'specs/a.yaml': 'paths:\n  /pets:\n    get:\n      operationId: listPets\n      tags: [pets]\n',
      'specs/nested/two.yaml': 'paths:\n  /owners:\n    get:\n      operationId: listPets\n      tags: [pets]\n',
      'specs/schemas/pet.yaml': 'type: object\n',
    }));
    assert.deepEqual(warnings, []);
    // Merged into one spec before generation (files in path order), so the second listPets of the tag is made unique.
    assert.deepEqual(operations.map(line).sort(), ['PetsApi#listPets GET /pets specs/a.yaml:3', 'PetsApi#listPets_0 GET /owners specs/nested/two.yaml:3'].sort());
    assert.ok(operations.every((o) => o.package === 'com.acme.api' && o.buildFile === 'app/build.gradle' && o.buildLine === 2));
  });

  test('Kotlin DSL: a task by `registering`, settings for every GenerateTask, a spec under the root project, the mapping on the interface', () => {
    const { operations, warnings } = generatedApiOperations(inMemory({
      'settings.gradle.kts': 'include("services:billing")\n',
      'gradle.properties': 'specDir=contracts\n',
      'services/billing/build.gradle.kts': [
        'import org.openapitools.generator.gradle.plugin.tasks.GenerateTask',
        'tasks.withType<GenerateTask> {',
        '  configOptions.put("interfaceOnly", "true")',
        '  configOptions.put("requestMappingMode", "api_interface")',
        '}',
        'val billingApi by tasks.registering(GenerateTask::class) {',
        '  generatorName = "spring"',
        '  inputSpec.set(rootProject.file("${specDir}/billing.yaml").absolutePath)',
        '  configOptions.put("title", "billing")',
        '}',
        'tasks.compileJava { dependsOn(billingApi) }',
      ].join('\n'),
      'contracts/billing.yaml': "servers:\n  - url: '{scheme}://billing/api/{version}/'\n    variables:\n      scheme: { default: https }\n      version: { default: v2 }\npaths:\n  /invoices/{id}:\n    get:\n      operationId: getInvoice\n",
    }));
    assert.deepEqual(warnings, []);
    assert.deepEqual(operations.map((o) => [line(o), o.buildLine, o.classMapping, o.generatedController]), [['InvoicesApi#getInvoice GET /invoices/{id} contracts/billing.yaml:8', 6, '${openapi.billing.base-path:/api/v2}', undefined]]);
  });

  test('garbage build files and specs never throw', () => {
    const junk = ['', '\u0000\u0001<<<', '<project><build><plugins><plugin><artifactId>openapi-generator-maven-plugin', 'openApiGenerate { generatorName.set(', 'tasks.register<GenerateTask>("x") { inputSpec.set("${"', '{'.repeat(5000)];
    for (const text of junk) {
      for (const path of ['pom.xml', 'build.gradle.kts', 'build.gradle']) {
        const r = generatedApiOperations(inMemory({ [path]: text }));
        assert.deepEqual(r.operations, [], `${path}: ${JSON.stringify(text.slice(0, 40))}`);
      }
      const r = generatedApiOperations(inMemory({ 'svc/pom.xml': spring('api.yaml'), 'svc/api.yaml': text }));
      assert.deepEqual(r.operations, []);
    }
    const weird = generatedApiOperations(inMemory({
      'svc/pom.xml': spring('api.yaml', '<useTags>true</useTags>'),
      'svc/api.yaml': 'paths:\n  /a: &item\n    get:\n      operationId: "$"\n      tags: [[nested]]\n  /b: *item\n  /c: null\n  x-ext: {}\n  /d:\n    get:\n      operationId: "123 go"\n',
    }));
    assert.deepEqual(weird.operations.map(line), [
      'DefaultApi#value GET /a svc/api.yaml:3',
      'DefaultApi#value_0 GET /b svc/api.yaml:3',
      'DefaultApi#call123go GET /d svc/api.yaml:10',
    ]);
    assert.ok(weird.operations.every((o) => o.generatedController === 'DefaultApiController' && o.classMapping === '${openapi.OpenAPI Spring.base-path:}'));
  });
});

describe('generated API operations on a restored re-index', () => {
  let work: string;
  let root: string;
  let builds = 0;
  const APP = 'orders-service/src/main/java/com/acme/orders/OrdersApplication.java';
  const SPEC = 'orders-service/src/main/resources/openapi/orders.yaml';
  const edit = (rel: string, from: string, to: string) => {
    const text = readFileSync(join(root, rel), 'utf8');
    assert.ok(text.includes(from), `${rel} holds ${from}`);
    writeFileSync(join(root, rel), text.replace(from, to));
  };
  /** A one-shot build of the edited tree, checked against a fresh index of it: its details and its routes. */
  async function update(): Promise<{ details: Record<string, unknown>; routes: string[] }> {
    const report = await indexTree(root, join(work, 'incremental'), { cacheDir: join(work, 'cache'), env: process.env });
    const fresh = join(work, `fresh-${++builds}`);
    await indexTree(root, fresh, { env: process.env });
    const [a, b] = [await dumpIndex(await testStoreLocation(join(work, 'incremental'))), await dumpIndex(await testStoreLocation(fresh))];
    assert.deepEqual(a.nodes, b.nodes, 'nodes equal a fresh index');
    assert.deepEqual(a.edges, b.edges, 'edges equal a fresh index');
    rmSync(fresh, { recursive: true, force: true });
    return { details: report.sources[0]!.details as Record<string, unknown>, routes: a.nodes.filter((n) => n.includes('"kind":"route"')) };
  }

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'sextant-openapi-'));
    root = join(work, 'estate');
    cpSync(FIXTURE, root, { recursive: true });
    mkdirSync(join(root, 'orders-service/src/main/java/com/acme/orders'), { recursive: true });
    writeFileSync(join(root, APP), 'package com.acme.orders;\n\n@SpringBootApplication\npublic class OrdersApplication {\n}\n');
    writeFileSync(join(root, 'orders-service/src/main/java/com/acme/orders/OrderItemsController.java'), 'package com.acme.orders;\n\nimport com.acme.orders.api.OrderItemsApi;\n\n@RestController\npublic class OrderItemsController implements OrderItemsApi {\n  @Override\n  public Object listOrders_0() {\n    return null;\n  }\n}\n');
    ageTree(root, Date.now() / 1000 - 3600);
    await indexTree(root, join(work, 'incremental'), { cacheDir: join(work, 'cache'), env: process.env });
    // The first re-index reads everything and keeps it for the next.
    edit(APP, 'public class', 'public final class');
    assert.equal((await update()).details.openapi_operations, 'read');
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  test('a source edit takes the operations from the last re-index; a spec edit reads them again', async () => {
    edit(APP, 'public final class', 'public class');
    const body = await update();
    assert.equal(body.details.openapi_operations, 'recalled');
    assert.ok(body.routes.some((r) => r.includes('GET /orders/search')), body.routes.join('\n'));
    edit(SPEC, '/orders/search:', '/orders/find:');
    const spec = await update();
    assert.equal(spec.details.openapi_operations, 'read');
    assert.ok(spec.routes.some((r) => r.includes('GET /orders/find')) && !spec.routes.some((r) => r.includes('/orders/search')), spec.routes.join('\n'));
  });
});
