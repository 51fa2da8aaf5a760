/**
 * Every Hugr generation's own description of its platform, read and checked against the SDL it was generated
 * from. The test server (test/hugr-server) plays v0.1 (`schema_summary`), v0.3 (the `core.catalog` module) and
 * v0.3.42+ (the `_dataSources`/`_dataObject` meta queries, with the core catalog real servers keep) over the same
 * platform: golden/multi.graphql (a prefixed as-module source, a read-only source, an extension's join, relations
 * with keys, @original_name) plus prefixed.graphql (a prefixed source that is not a module). The real CLI indexes
 * each endpoint and the SDL files; data sources, REFERENCES edges and original names must agree, exactly.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { sextantOntology } from '../src/graph/ontology/index.js';
import type { GraphqlSourceConfig } from '../src/config/types.js';
import { buildGraphqlSource } from '../src/sources/graphql/index.js';
import { sourceSchemas } from '../src/sources/graphql/hugr/catalog.js';
import { sourceSdlFacts } from '../src/sources/graphql/hugr/source-sdl.js';
import { jsonOf, killAll, runCli, tempDir } from './helpers/e2e.js';
import { askOf } from './helpers/hugr-real-catalog.js';
import { sharedDir } from './helpers/index.js';
import { HARNESS_FILES } from './hugr-server/fixture.js';
import type { HugrGeneration } from './hugr-server/catalog.js';
import type { DataSourceInfo } from './hugr-server/meta.js';
import { startHugrTestServer, type HugrTestServer } from './hugr-server/server.js';
import { testStoreLocation } from './helpers/store.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const HUGR = path.join(sharedDir(), 'fixtures/hugr');
const SECRET = 'generations-secret-41c7';
const T = { timeout: 120000 };

const FILES = [
  path.join(ROOT, 'test/fixtures/hugr/scalars.graphql'),
  ...['base.graphql', 'system_types.graphql', 'gis.graphql', 'query_directives.graphql'].map((f) => path.join(HUGR, 'base', f)),
  path.join(HUGR, 'golden/multi.graphql'),
  path.join(ROOT, 'test/fixtures/hugr/prefixed.graphql'),
];
/** The platform's data sources as its server registered them. */
const SOURCES: DataSourceInfo[] = [
  { name: 'audit', engine: 'duckdb', readOnly: false, asModule: true, isExtension: false },
  { name: 'ext', engine: 'duckdb', readOnly: false, asModule: false, isExtension: true },
  { name: 'func', engine: 'duckdb', readOnly: false, asModule: false, isExtension: false },
  { name: 'nw', engine: 'postgres', prefix: 'nw', readOnly: true, asModule: false, isExtension: false },
  { name: 'ro', engine: 'duckdb', readOnly: true, asModule: false, isExtension: false },
  { name: 'shop', engine: 'duckdb', prefix: 'shop', readOnly: false, asModule: true, isExtension: false },
];
const PLATFORM = new Set(SOURCES.map((s) => s.name));
const DS_ATTRS = ['prefix', 'as_module', 'read_only', 'engine'] as const;

interface Facts {
  dataSources: Record<string, Record<string, unknown>>;
  references: string[];
  originalNames: Record<string, string>;
}

async function call(store: string, tool: string, args: Record<string, unknown>): Promise<Record<string, any>> {
  const r = await runCli(['call', tool, JSON.stringify(args), '--store', store]);
  assert.equal(r.code, 0, `${tool} ${JSON.stringify(args)}: ${r.stderr}\n${r.stdout}`);
  return jsonOf(r);
}

/** What an index says about the platform's data sources and data objects (Hugr's own `core` left out). */
async function factsOf(store: string): Promise<Facts> {
  const sources = (await call(store, 'find', { kind: 'data_source', limit: 100 }))['results'] as { qualified_name: string; attributes?: Record<string, unknown> }[];
  const dataSources: Facts['dataSources'] = {};
  for (const s of sources.filter((x) => PLATFORM.has(x.qualified_name))) {
    dataSources[s.qualified_name] = Object.fromEntries(['inferred', ...DS_ATTRS].filter((a) => s.attributes?.[a] !== undefined).map((a) => [a, s.attributes![a]]));
  }
  const objects = (await call(store, 'find', { kind: 'data_object', filter: { data_source: [...PLATFORM] }, limit: 100 }))['results'] as { id: string; qualified_name: string }[];
  const ids = objects.map((o) => o.id);
  const described = (await call(store, 'describe', { ids }))['nodes'] as { qualified_name: string; properties: Record<string, unknown> }[];
  const originalNames = Object.fromEntries(described.filter((n) => n.properties['original_name'] !== undefined).map((n) => [n.qualified_name, n.properties['original_name'] as string]));
  const qn = new Map(objects.map((o) => [o.id, o.qualified_name]));
  const edges = (await call(store, 'neighbors', { ids, direction: 'out', edge_types: ['REFERENCES'], limit: 100 }))['edges'] as { from: string; other: { qualified_name: string }; attrs: Record<string, unknown> }[];
  const references = edges
    .map((e) => {
      const a = e.attrs;
      const keys = a['source_fields'] ? ` ${JSON.stringify(a['source_fields'])}=${JSON.stringify(a['target_fields'])}` : '';
      return `${qn.get(e.from)}.${String(a['field'])} -> ${e.other.qualified_name} ${String(a['relation_kind'])}${a['relation'] ? ` (${String(a['relation'])})` : ''}${a['through'] ? ` via ${String(a['through'])}` : ''}${keys}`;
    })
    .sort();
  return { dataSources, references, originalNames };
}

async function indexWorkspace(lines: string[], env: Record<string, string> = {}): Promise<string> {
  const dir = await tempDir('sextant-generations-');
  await writeFile(path.join(dir, 'sextant.yaml'), ['sources:', '  - name: hugr', '    kind: graphql', ...lines.map((l) => `    ${l}`), ''].join('\n'));
  const store = await testStoreLocation(path.join(dir, '.sextant'));
  const r = await runCli(['index', path.join(dir, 'sextant.yaml'), '--store', store], { env });
  assert.equal(r.code, 0, `index failed:\n${r.stderr}\n${r.stdout}`);
  return store;
}

after(async () => {
  await killAll();
});

describe('each Hugr generation describes the platform as its SDL does', () => {
  let sdl: Facts;

  before(async () => {
    sdl = await factsOf(await indexWorkspace(['schema:', ...FILES.map((f) => `  - ${f}`)]));
  }, T);

  test('the SDL files themselves: prefixes, as_module, read-only, relations with keys, original names', () => {
    // What the SDL alone can tell (`inferred`): a views-only source's read-only flag, a functions-only source's
    // engine and as_module are unknown to it.
    assert.deepEqual(sdl.dataSources, {
      audit: { inferred: true, as_module: true, read_only: false, engine: 'duckdb' },
      ext: { inferred: true, as_module: false, engine: 'duckdb' },
      func: { inferred: true },
      nw: { inferred: true, prefix: 'nw', as_module: false, read_only: true, engine: 'postgres' },
      ro: { inferred: true, as_module: false, read_only: true, engine: 'duckdb' },
      shop: { inferred: true, prefix: 'shop', as_module: true, read_only: false, engine: 'duckdb' },
    });
    assert.deepEqual(sdl.references, [
      'audit.audit_events.logs -> ro_mod.logs join ["log_id"]=["id"]',
      'nw_customers.orders -> nw_orders one_to_many (nw_customers_customer_id) ["id"]=["customer_id"]',
      'nw_orders.customer -> nw_customers many_to_one (nw_customers_customer_id) ["customer_id"]=["id"]',
      'shop.categories.items -> shop.items one_to_many (shop_categories_category_id) ["id"]=["category_id"]',
      'shop.items.category -> shop.categories many_to_one (shop_categories_category_id) ["category_id"]=["id"]',
      'shop.items.similar -> shop.items function_join',
    ]);
    assert.deepEqual(sdl.originalNames, { nw_customers: 'customers', nw_orders: 'orders', 'shop.categories': 'categories', 'shop.items': 'items' });
  });

  for (const generation of ['v0.1', 'v0.3', 'v0.3.42'] as const satisfies readonly HugrGeneration[]) {
    test(`${generation}: data sources, relations and original names from the server equal the SDL's`, T, async () => {
      const server = await startHugrTestServer({ files: FILES, rows: {}, secret: SECRET, tokens: {}, dataSources: SOURCES, generation, coreCatalog: generation !== 'v0.1' });
      try {
        // (The CLI calls below carry no caller identity: they see the whole index.)
        const store = await indexWorkspace([`endpoint: ${server.url}/query`, 'headers:', '  x-hugr-secret-key: ${GEN_SECRET}', 'data:', '  allow_anonymous: true'], { GEN_SECRET: SECRET });
        const facts = await factsOf(store);
        asked(server, generation);
        // Exact, from the server: every attribute of every source (no longer inferred) …
        assert.deepEqual(
          facts.dataSources,
          Object.fromEntries(SOURCES.map((s) => [s.name, { inferred: false, ...(s.prefix ? { prefix: s.prefix } : {}), as_module: s.asModule, read_only: s.readOnly, engine: s.engine }])),
        );
        // … and where the SDL can tell, the same as the SDL.
        for (const [name, attrs] of Object.entries(sdl.dataSources)) {
          for (const a of DS_ATTRS) if (attrs[a] !== undefined) assert.deepEqual(facts.dataSources[name]?.[a], attrs[a], `${generation}: ${name}.${a}`);
        }
        assert.deepEqual(facts.references, sdl.references);
        assert.deepEqual(facts.originalNames, sdl.originalNames);

        // An object is found by the name its source gave it: the prefixed `nw_orders` is the exact match of
        // `orders`, and the filter takes the original name.
        const hits = (await call(store, 'search', { query: 'orders', kinds: ['data_object'] }))['results'] as { node: { qualified_name: string }; why: string }[];
        assert.equal(hits[0]?.node.qualified_name, 'nw_orders');
        assert.match(hits[0]!.why, /exact name/);
        const byOriginal = (await call(store, 'find', { kind: 'data_object', filter: { original_name: ['items', 'customers'] } }))['results'] as { qualified_name: string }[];
        assert.deepEqual(byOriginal.map((o) => o.qualified_name).sort(), ['nw_customers', 'shop.items']);
        // …and the other way round: the type name finds the object queried by its original name.
        const byType = (await call(store, 'search', { query: 'shop_categories', kinds: ['data_object'] }))['results'] as { node: { qualified_name: string } }[];
        assert.equal(byType[0]?.node.qualified_name, 'shop.categories');
      } finally {
        await server.close();
      }
    });
  }
});

/** Each generation is asked its own questions, batched, and never another generation's. */
function asked(server: HugrTestServer, generation: HugrGeneration): void {
  const queries = server.requests.map((r) => String(r.body['query']));
  const count = (re: RegExp) => queries.filter((q) => re.test(q)).length;
  const expected: Record<HugrGeneration, [RegExp, number][]> = {
    'v0.1': [[/schema_summary/, 1], [/describe_data_source_schema/, 1], [/schema_catalogs\(order_by/, 0], [/_dataObject|_dataSources/, 0]],
    'v0.3': [[/schema_catalogs\(order_by/, 1], [/data_objects\(/, 1], [/fields\(filter/, 1], [/describe_data_source_schema/, 1], [/schema_summary/, 0], [/_dataObject|_dataSources/, 0]],
    'v0.3.42': [[/_dataSources/, 1], [/_dataObject/, 1], [/schema_catalogs\(order_by/, 1], [/describe_data_source_schema|schema_summary|data_objects\(/, 0]],
  };
  for (const [re, n] of expected[generation]) assert.equal(count(re), n, `${generation}: requests matching ${re}:\n${queries.join('\n')}`);
  assert.ok(server.requests.every((r) => r.role === 'admin'));
}

describe('relations Hugr compiles, read back from a source\'s own SDL', () => {
  const ontology = sextantOntology();
  const build = async (cfg: Partial<GraphqlSourceConfig>) => {
    const built = await buildGraphqlSource({ kind: 'graphql', name: 'hugr', headers: {}, timeout_ms: 10000, ...cfg } as GraphqlSourceConfig, { ontology, baseDir: ROOT, env: {} });
    const qn = new Map(built.nodes.map((n) => [n.id, n.qualified_name]));
    // Hugr's own core objects (a v0.3 server's catalog views) are not the platform's.
    return built.edges
      .filter((e) => e.type === 'REFERENCES' && !qn.get(e.from)!.startsWith('core.'))
      .map((e) => `${qn.get(e.from)}.${String(e.attrs!['field'])} -> ${qn.get(e.to)} ${String(e.attrs!['relation_kind'])}${e.attrs!['relation'] ? ` (${String(e.attrs!['relation'])})` : ''}${e.attrs!['through'] ? ` via ${String(e.attrs!['through'])}` : ''} ${JSON.stringify(e.attrs!['source_fields'] ?? null)}=${JSON.stringify(e.attrs!['target_fields'] ?? null)}`)
      .sort();
  };

  for (const generation of ['v0.1', 'v0.3'] as const) {
    test(`${generation}, harness: many-to-many through a junction table, an undeclared-name reference, a join`, T, async () => {
      const server = await startHugrTestServer({ files: HARNESS_FILES, rows: {}, secret: SECRET, tokens: {}, dataSources: [{ name: 'test', engine: 'duckdb', readOnly: false, asModule: false, isExtension: false }], generation });
      try {
        const fromServer = await build({ endpoint: `${server.url}/query`, headers: { 'x-hugr-secret-key': SECRET } });
        const fromSdl = await build({ schema: HARNESS_FILES });
        assert.deepEqual(fromServer, fromSdl);
        assert.ok(fromServer.includes('sales.orders.tags -> sales.tags many_to_many (orders_order_id) via order_tags ["id"]=["order_id"]'), fromServer.join('\n'));
      } finally {
        await server.close();
      }
    });
  }

  test('names the way Hugr\'s compiler does: prefix only own definitions, default query and relation names, extension views kept', () => {
    const facts = sourceSdlFacts(
      [
        'type a @table(name: "a") { id: Int! @pk  b_id: Int @field_references(references_name: "b") }',
        'type b @table(name: "b") { id: Int! @pk }',
        'type v @view(name: "v") { id: Int @pk  a_id: Int }',
        'extend type other_x { a: [a] @join(references_name: "a", source_fields: ["a_id"], references_fields: ["id"]) }',
      ].join('\n'),
      { name: 'p', prefix: 'p', isExtension: true },
    );
    assert.deepEqual([...facts.keys()].sort(), ['other_x', 'p_a', 'p_b', 'v']);
    assert.deepEqual([facts.get('p_a')!.originalName, facts.get('v')!.originalName], ['a', undefined]);
    // Without `field`: the target's single key; without names: the target's name, `<target>_<field>`, the source's name.
    assert.deepEqual(facts.get('p_a')!.relations, [{ name: 'p_b_b_id', direction: 'FORWARD', kind: 'FK', fieldName: 'p_b', dataObject: 'p_b', sourceKeys: ['b_id'], destinationKeys: ['id'] }]);
    assert.deepEqual(facts.get('p_b')!.relations, [{ name: 'p_b_b_id', direction: 'BACK', kind: 'FK', fieldName: 'p_a', dataObject: 'p_a', sourceKeys: ['id'], destinationKeys: ['b_id'] }]);
    assert.deepEqual(facts.get('other_x')!.relations, [{ name: 'a', direction: 'FORWARD', kind: 'JOIN', fieldName: 'a', dataObject: 'p_a', sourceKeys: ['a_id'], destinationKeys: ['id'] }]);
    assert.throws(() => sourceSdlFacts('type {', { name: 'p' }), /Syntax Error/);
  });
});

describe('a source whose SDL the server will not describe', () => {
  test('the test server (the failing source null, the others answered): the others are kept', T, async () => {
    const server = await startHugrTestServer({ files: FILES, rows: {}, secret: SECRET, tokens: {}, dataSources: SOURCES, generation: 'v0.3' });
    try {
      const { ask, sent } = askOf(`${server.url}/query`, SECRET);
      const schemas = await sourceSchemas(ask, ['nope', 'nw']);
      assert.deepEqual([...schemas.keys()], ['nw']);
      assert.match(schemas.get('nw')!, /^type customers @table\(name: "customers"\)/);
      assert.equal(sent.length, 1);
    } finally {
      await server.close();
    }
  });
});
