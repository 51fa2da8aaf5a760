/**
 * Type usages as USES edges (issue 15, item 3): what each rule records in the parsers, the exact edges on the
 * per-rule fixture (test/fixtures/uses: one member per `via`, Java and Kotlin), what an AspectJ pointcut names,
 * "what depends on ProductService" through the MCP client (`neighbors USES in`, `describe`, `impact`), and exact
 * USES sets of two types of the petclinic estate in ../shared/corpora (read in place).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { sextantOntology } from '../src/graph/ontology/index.js';
import { dumpIndex, openTestStore, testStoreLocation } from './helpers/store.js';
import { buildWorkspace } from '../src/indexer/build.js';
import { extractFile } from '../src/sources/code/parse/job.js';
import { pointcutTypes } from '../src/sources/code/model/uses.js';
import { callTool, closeSession, indexInto, killAll, openSession, type Session, tempDir } from './helpers/e2e.js';
import { estateSource } from './helpers/estate.js';
import { sharedDir } from './helpers/index.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/uses', import.meta.url));
const PETCLINIC = join(sharedDir(), 'corpora', 'spring-petclinic-microservices');
const ontology = sextantOntology();

/** Indexes a tree in this process; every USES edge as `from -> to via` (qualified names), sorted. */
async function usesEdges(root: string): Promise<{ edges: string[]; stat: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'sextant-uses-'));
  try {
    const store = await openTestStore(ontology, dir, { mode: 'write' });
    let stat: number;
    try {
      const report = await buildWorkspace(store, ontology, { dir: root, sources: [estateSource(root)] }, {}, process.env, {});
      stat = (report.sources[0]!.details as { stats: { uses: number } }).stats.uses;
    } finally {
      await store.close();
    }
    const { nodes, edges } = await dumpIndex(await testStoreLocation(dir));
    const qn = new Map(nodes.map((n) => JSON.parse(n) as { id: string; qualified_name: string }).map((n) => [n.id, n.qualified_name]));
    const rows = edges.map((e) => JSON.parse(e) as { src: string; type: string; dst: string; key: string; attrs: string }).filter((e) => e.type === 'USES');
    for (const r of rows) assert.deepEqual(JSON.parse(r.attrs), { via: r.key }, 'each edge is keyed by its via');
    return { edges: rows.map((r) => `${qn.get(r.src)} -> ${qn.get(r.dst)} ${r.key}`).sort(), stat };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('what the parsers record of a body', () => {
  test('Java: casts, instanceof, class literals, static access, arrays; each once per member', async () => {
    const facts = await extractFile(
      'A.java',
      'java',
      `package p;
class A {
  static final Object K = Registry.of(Z.class);
  { Init.go(); }
  void m(Object o) {
    if (o instanceof Foo) {}
    if (o instanceof Bar b) {}
    Object x = (Baz<Q>) o;
    Object y = (Baz<Q>) o;
    Object z = (Runnable & Marker) o;
    Class<?> c = Qux.class;
    int n = Con.MAX;
    Zed.call();
    com.x.Full.bar();
    Foo[] a = new Foo[3];
    Runnable r = Ref::bar;
    Object e = Color.Red;
    Outer.Inner.X.y();
    LOG.info("x");
    order.items.size();
    this.foo.bar();
  }
}
`,
    );
    const a = facts.types[0]!;
    assert.equal(a.bodyUses, 's:Registry l:Z s:Init', 'field initializers and initializer blocks belong to the type');
    assert.equal(a.members.find((m) => m.name === 'm')!.bodyUses, 'i:Foo i:Bar c:Baz c:Q c:Runnable c:Marker l:Qux s:Con s:Zed s:com.x.Full n:Foo s:Ref s:Color.Red s:Outer.Inner');
  });

  test('Kotlin: as, is (also in when), ::class, static access through names; initializers merged into the constructor', async () => {
    const facts = await extractFile(
      'A.kt',
      'kotlin',
      `package p

class A {
    constructor(x: Int) {}
    val k = Reg.of(Z::class)

    fun m(o: Any) {
        val a = Foo.Bar::class
        val b = List<Qq>::class
        val d = Foo::bar
        val e = o?.Baz
        val f = o is Foo.Inner?
        when (o) { is Bar -> 1 }
        val x = o as Baz
        val y = o as? Baz2
        Zed.call()
        com.x.Full.bar()
        LOG.info("x")
        order.items.size
    }
}

object O {
    val q = Qz.X
}
`,
    );
    const a = facts.types.find((t) => t.name === 'A')!;
    assert.equal(a.members.find((m) => m.name === '<init>')!.bodyUses, 's:Reg l:Z', 'a property initializer runs in the (secondary) constructor');
    assert.equal(a.members.find((m) => m.name === 'm')!.bodyUses, 'l:Foo.Bar l:List l:Qq s:Foo i:Foo.Inner i:Bar c:Baz c:Baz2 s:Zed s:com.x.Full');
    assert.equal(facts.types.find((t) => t.name === 'O')!.bodyUses, 's:Qz', "an object's initializers belong to the type");
  });
});

describe('what an AspectJ pointcut names', () => {
  const cases: [string, string[]][] = [
    ['execution(* com.x.ProductService.*(..))', ['com.x.ProductService']],
    ['within(com.x..*)', []],
    ['within(com.x.*Service)', []],
    ['execution(* *..ProductService.*(..))', []],
    ['within(com.x.ProductService+)', ['com.x.ProductService']],
    // String is named too (a library type: it resolves to no edge).
    ['execution(public com.x.Product com.x.ProductService.find*(String, ..)) && args(com.x.Query,..)', ['com.x.Product', 'com.x.ProductService', 'String', 'com.x.Query']],
    ['@annotation(com.x.Audited) || @within(org.springframework.stereotype.Service)', ['com.x.Audited', 'org.springframework.stereotype.Service']],
    ['com.x.Architecture.inServiceLayer() && !bean(productService)', ['com.x.Architecture']],
    ['inServiceLayer() && target(service)', []],
    ['execution(* com.x.service.*.*(..))', []],
  ];
  for (const [expression, names] of cases) {
    test(expression, () => assert.deepEqual(pointcutTypes(expression), names));
  }
});

/** Every USES edge of the fixture: Java and Kotlin members, one per via, and what depends on ProductService. */
const FIXTURE_EDGES = [
  // ProductService: through a setter field, a parameter and a pointcut (and none from the package-pattern advice).
  'ProductLister -> ProductService field',
  'ProductLister -> ProductService parameter',
  'ProductLister#setProductService(ProductService) -> ProductService parameter',
  'PriceReport -> ProductService parameter',
  'PriceReport#render(ProductService) -> ProductService parameter',
  'ProductAspect -> ProductService pointcut',
  'ProductAspect#productOperations() -> ProductService pointcut',
  'ProductService -> Product return',
  'ProductService#find(String) -> Product return',
  'DefaultProductService -> Product new',
  'DefaultProductService -> Product return',
  'DefaultProductService#find(String) -> Product new',
  'DefaultProductService#find(String) -> Product return',
  // Java, one member per via; the field initializer's static access belongs to the type; `self()` names its own type
  // and `later(Widget)` a type the project does not have: no edge.
  'uses.Catalog -> uses.Casted cast',
  'uses.Catalog -> uses.Constants static',
  'uses.Catalog -> uses.Item field',
  'uses.Catalog -> uses.Literal class_literal',
  'uses.Catalog -> uses.Local local',
  'uses.Catalog -> uses.Made new',
  'uses.Catalog -> uses.Marker annotation',
  'uses.Catalog -> uses.Param parameter',
  'uses.Catalog -> uses.Registry static',
  'uses.Catalog -> uses.Result return',
  'uses.Catalog -> uses.Tag field',
  'uses.Catalog -> uses.Tested instanceof',
  'uses.Catalog -> uses.Uses annotation',
  'uses.Catalog -> uses.Valued annotation',
  'uses.Catalog#cast(Object) -> uses.Casted cast',
  'uses.Catalog#constant() -> uses.Constants static',
  'uses.Catalog#give() -> uses.Result return',
  'uses.Catalog#literal() -> uses.Literal class_literal',
  'uses.Catalog#local() -> uses.Local local',
  'uses.Catalog#make() -> uses.Made new',
  'uses.Catalog#marked() -> uses.Marker annotation',
  'uses.Catalog#take(Param) -> uses.Param parameter',
  'uses.Catalog#test(Object) -> uses.Tested instanceof',
  'uses.Catalog#valued() -> uses.Uses annotation',
  'uses.Catalog#valued() -> uses.Valued annotation',
  'uses.CatalogRepository -> uses.Entity type_argument',
  // Kotlin: a constructor property is a field and a constructor parameter; `var tags` adds its accessors.
  'uses.KCatalog -> uses.Casted cast',
  'uses.KCatalog -> uses.Constants static',
  'uses.KCatalog -> uses.Item field',
  'uses.KCatalog -> uses.Item parameter',
  'uses.KCatalog -> uses.Literal class_literal',
  'uses.KCatalog -> uses.Local local',
  'uses.KCatalog -> uses.Made new',
  'uses.KCatalog -> uses.Marker annotation',
  'uses.KCatalog -> uses.Param parameter',
  'uses.KCatalog -> uses.Result return',
  'uses.KCatalog -> uses.Tag field',
  'uses.KCatalog -> uses.Tag parameter',
  'uses.KCatalog -> uses.Tag return',
  'uses.KCatalog -> uses.Tested instanceof',
  'uses.KCatalog -> uses.Uses annotation',
  'uses.KCatalog -> uses.Valued annotation',
  'uses.KCatalog#<init>(Item) -> uses.Item parameter',
  'uses.KCatalog#cast(Any) -> uses.Casted cast',
  'uses.KCatalog#constant() -> uses.Constants static',
  'uses.KCatalog#getTags() -> uses.Tag return',
  'uses.KCatalog#give() -> uses.Result return',
  'uses.KCatalog#literal() -> uses.Literal class_literal',
  'uses.KCatalog#local() -> uses.Local local',
  'uses.KCatalog#make() -> uses.Made new',
  'uses.KCatalog#marked() -> uses.Marker annotation',
  'uses.KCatalog#setTags(List) -> uses.Tag parameter',
  'uses.KCatalog#take(Param) -> uses.Param parameter',
  'uses.KCatalog#test(Any) -> uses.Tested instanceof',
  'uses.KCatalog#valued() -> uses.Uses annotation',
  'uses.KCatalog#valued() -> uses.Valued annotation',
]
  .map((line) => line.replace(/(^|> )/g, '$1com.x.'))
  .sort();

describe('USES edges on the per-rule fixture', () => {
  test('exactly these edges, one per via, counted in the build stats', async () => {
    const { edges, stat } = await usesEdges(FIXTURE);
    assert.deepEqual(edges, FIXTURE_EDGES);
    assert.equal(stat, FIXTURE_EDGES.length);
  });
});

describe('what depends on ProductService, through the MCP client', () => {
  let storeDir: string;
  let session: Session | undefined;
  const call = async (tool: string, args: Record<string, unknown>): Promise<Record<string, any>> => {
    const r = await callTool(session!.conn.client, tool, args);
    assert.equal(r.isError, false, JSON.stringify(r.body));
    return r.body;
  };
  const idOf = async (qn: string): Promise<string> => {
    const r = await call('resolve', { identifier: qn, kind: 'symbol' });
    assert.equal(r.status, 'one', JSON.stringify(r));
    return r.node.id;
  };

  before(async () => {
    storeDir = await tempDir('sextant-uses-e2e-');
    await indexInto(FIXTURE, storeDir);
    session = await openSession('stdio', storeDir);
  });
  after(async () => {
    await closeSession(session);
    await killAll();
  });

  test('neighbors USES in: the setter field, the parameter and the pointcut, each with its via', async () => {
    const r = await call('neighbors', { ids: [await idOf('com.x.ProductService')], direction: 'in', edge_types: ['USES'] });
    assert.deepEqual(r.edges.map((e: any) => `${e.other.qualified_name} ${e.attrs.via}`).sort(), [
      'com.x.PriceReport parameter',
      'com.x.PriceReport#render(ProductService) parameter',
      'com.x.ProductAspect pointcut',
      'com.x.ProductAspect#productOperations() pointcut',
      'com.x.ProductLister field',
      'com.x.ProductLister parameter',
      'com.x.ProductLister#setProductService(ProductService) parameter',
    ]);
    const only = await call('neighbors', { ids: [await idOf('com.x.ProductService')], direction: 'in', edge_types: ['USES'], edge_filter: { via: 'pointcut' } });
    assert.deepEqual(only.edges.map((e: any) => e.other.qualified_name).sort(), ['com.x.ProductAspect', 'com.x.ProductAspect#productOperations()']);
  });

  test('describe counts them', async () => {
    const r = await call('describe', { id: await idOf('com.x.ProductService') });
    assert.deepEqual(r.node.edges.USES, { in: 7, out: 1 });
    const member = await call('describe', { id: await idOf('com.x.uses.Catalog#valued()') });
    assert.deepEqual(member.node.edges.USES, { in: 0, out: 2 });
  });

  test('impact of the service interface includes them, each with the edge that carried it', async () => {
    const r = await call('impact', { ids: [await idOf('com.x.ProductService')], depth: 1 });
    const reached = r.groups.flatMap((g: any) => g.nodes.map((n: any) => `${n.qualified_name} ${n.via.edge_type}${n.via.uses ? ` ${n.via.uses}` : ''}`)).sort();
    assert.deepEqual(reached, [
      'com.x.DefaultProductService IMPLEMENTS',
      'com.x.DefaultProductService#find(String) OVERRIDES',
      'com.x.PriceReport USES parameter',
      'com.x.PriceReport#render(ProductService) USES parameter',
      'com.x.ProductAspect USES pointcut',
      'com.x.ProductAspect#productOperations() USES pointcut',
      'com.x.ProductLister USES field',
      'com.x.ProductLister#first() CALLS',
      'com.x.ProductLister#setProductService(ProductService) USES parameter',
    ]);
    const without = await call('impact', { ids: [await idOf('com.x.ProductService')], depth: 1, edge_types: ['CALLS', 'INJECTS', 'IMPLEMENTS', 'EXTENDS', 'OVERRIDES'] });
    assert.deepEqual(without.groups.flatMap((g: any) => g.nodes.map((n: any) => n.qualified_name)).sort(), ['com.x.DefaultProductService', 'com.x.DefaultProductService#find(String)', 'com.x.ProductLister#first()'], 'without USES, the field, parameter and pointcut are invisible');
  });
});

describe('USES on spring-petclinic-microservices (../shared/corpora)', { skip: existsSync(PETCLINIC) ? false : 'the corpora are not on this machine' }, () => {
  let edges: string[];
  const P = 'org.springframework.samples.petclinic.';
  const into = (qn: string) => edges.filter((e) => e.includes(` -> ${qn} `)).map((e) => e.slice(0, e.indexOf(' -> ')).replace(P, '') + e.slice(e.lastIndexOf(' '))).sort();
  before(async () => {
    ({ edges } = await usesEdges(PETCLINIC));
  });

  test('customers.model.Owner: the repository type argument, Pet field and accessors, the resource and mapper members', () => {
    assert.deepEqual(into(`${P}customers.model.Owner`), [
      'customers.model.OwnerRepository type_argument',
      'customers.model.Pet field',
      'customers.model.Pet parameter',
      'customers.model.Pet return',
      'customers.model.Pet#getOwner() return',
      'customers.model.Pet#setOwner(Owner) parameter',
      'customers.web.OwnerResource local',
      'customers.web.OwnerResource new',
      'customers.web.OwnerResource return',
      'customers.web.OwnerResource#createOwner(OwnerRequest) local',
      'customers.web.OwnerResource#createOwner(OwnerRequest) new',
      'customers.web.OwnerResource#createOwner(OwnerRequest) return',
      'customers.web.OwnerResource#findAll() return',
      'customers.web.OwnerResource#findOwner(int) return',
      'customers.web.OwnerResource#updateOwner(int,OwnerRequest) local',
      'customers.web.PetResource local',
      'customers.web.PetResource#processCreationForm(PetRequest,int) local',
      'customers.web.mapper.OwnerEntityMapper parameter',
      'customers.web.mapper.OwnerEntityMapper return',
      'customers.web.mapper.OwnerEntityMapper type_argument',
      'customers.web.mapper.OwnerEntityMapper#map(Owner,OwnerRequest) parameter',
      'customers.web.mapper.OwnerEntityMapper#map(Owner,OwnerRequest) return',
    ]);
  });

  test('api.dto.Visits: the gateway client returns it and names its class; the controller creates and returns it', () => {
    assert.deepEqual(into(`${P}api.dto.Visits`), [
      'api.application.VisitsServiceClient class_literal',
      'api.application.VisitsServiceClient return',
      'api.application.VisitsServiceClient#getVisitsForPets(List) class_literal',
      'api.application.VisitsServiceClient#getVisitsForPets(List) return',
      'api.boundary.web.ApiGatewayController new',
      'api.boundary.web.ApiGatewayController return',
      'api.boundary.web.ApiGatewayController#addVisitsToOwner(OwnerDetails) return',
      'api.boundary.web.ApiGatewayController#emptyVisitsForPets() new',
      'api.boundary.web.ApiGatewayController#emptyVisitsForPets() return',
    ]);
  });
});
