import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { buildClientSchema, buildSchema, parse, validate, type GraphQLSchema, type IntrospectionQuery } from 'graphql';
import { deriveHugrModel } from '../src/sources/graphql/hugr/derive.js';
import { hugrExtensionsOf, hugrGenerationOf } from '../src/sources/graphql/hugr/extensions.js';
import type { HugrModel } from '../src/sources/graphql/hugr/model.js';
import type { GraphqlSourceConfig } from '../src/config/types.js';
import { sextantOntology } from '../src/graph/ontology/index.js';
import type { EdgeRecord, NodeRecord } from '../src/graph/types.js';
import { buildGraphqlSource, loadGraphqlSchema } from '../src/sources/graphql/index.js';
import { completeModuleRoots, hugrIntrospection } from './helpers/hugr.js';
import { sharedDir } from './helpers/index.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const HUGR = path.join(sharedDir(), 'fixtures/hugr');
const OWN = path.join(ROOT, 'test/fixtures/hugr');
const ontology = sextantOntology();

interface Built {
  nodes: NodeRecord[];
  edges: EdgeRecord[];
  warnings: string[];
  schema: GraphQLSchema;
}

async function build(baseDir: string, schema: string[], name = 'hugr'): Promise<Built> {
  const cfg: GraphqlSourceConfig = { kind: 'graphql', name, headers: {}, timeout_ms: 5000, schema };
  const ctx = { ontology, baseDir, env: {} };
  const built = await buildGraphqlSource(cfg, ctx);
  const loaded = await loadGraphqlSchema(cfg, ctx);
  return { nodes: built.nodes, edges: built.edges, warnings: built.warnings, schema: loaded.schema };
}

const qns = (b: Built, kind: string): string[] => b.nodes.filter((n) => n.kind === kind).map((n) => n.qualified_name).sort();
function one(b: Built, kind: string, qn: string, mutation?: boolean): NodeRecord {
  const found = b.nodes.filter((n) => n.kind === kind && n.qualified_name === qn && (mutation === undefined || n.props['is_mutation'] === mutation));
  assert.equal(found.length, 1, `${kind} ${qn}: ${found.length} found`);
  return found[0]!;
}
function edges(b: Built, type: string): string[] {
  const qn = new Map(b.nodes.map((n) => [n.id, `${n.kind}:${n.qualified_name}`]));
  return b.edges.filter((e) => e.type === type).map((e) => `${qn.get(e.from)} -> ${qn.get(e.to)}${e.key ? ` [${e.key}]` : ''}`).sort();
}
function assertValid(schema: GraphQLSchema, text: string, what: string): void {
  const errors = validate(schema, parse(text));
  assert.deepEqual(errors.map((e) => e.message), [], `${what}:\n${text}`);
}

describe('Hugr model from generated SDL', async () => {
  const golden = (await readdir(path.join(HUGR, 'golden'))).filter((f) => f.endsWith('.graphql')).sort();

  for (const file of golden) {
    test(`${file}: every data object and function has a path and a skeleton that validates`, async () => {
      const b = await build(HUGR, ['base', `golden/${file}`]);
      const schema = completeModuleRoots(b.schema);
      const callables = b.nodes.filter((n) => n.kind === 'data_object' || n.kind === 'function');
      assert.ok(callables.length > 0, `${file}: no data objects or functions`);
      for (const n of callables) {
        const skeleton = n.props['skeleton'] as string;
        assertValid(schema, skeleton, `${file} ${n.kind} ${n.qualified_name}`);
        // The skeleton walks the path the node records.
        const path = (n.props['graphql_path'] as string).split('.');
        const doc = parse(skeleton);
        let selection = (doc.definitions[0] as unknown as { selectionSet: { selections: { name: { value: string }; selectionSet?: unknown }[] } }).selectionSet;
        for (const segment of path) {
          const field = selection.selections.find((s) => s.name.value === segment);
          assert.ok(field, `${n.qualified_name}: skeleton does not follow ${path.join('.')}`);
          selection = field.selectionSet as typeof selection;
        }
      }
      // Generated queries of data objects validate too: each is reachable at its recorded path.
      // (Objects a partial snapshot leaves unreached say so, and their generated queries are not in it to check.)
      for (const n of b.nodes.filter((x) => x.kind === 'data_object' && x.props['path_verified'] === true)) {
        for (const q of n.props['queries'] as { name: string; kind: string; graphql_path: string }[]) {
          const segments = q.graphql_path.split('.');
          assert.equal(segments[segments.length - 1], q.name);
          let type = schema.getQueryType()!;
          for (const s of segments.slice(0, -1)) type = (type.getFields()[s]!.type as typeof type);
          assert.ok(type.getFields()[q.name], `${n.qualified_name}: ${q.graphql_path} is not in the schema`);
        }
      }
    });
  }

  test('harness: modules to depth 2, the four roots, data objects, functions, references', async () => {
    const b = await build(HUGR, ['base', 'golden/harness.graphql']);
    assert.deepEqual(qns(b, 'module'), ['hugr', 'sales', 'sales.reports']);
    assert.deepEqual(edges(b, 'SUBMODULE'), ['module:hugr -> module:sales', 'module:sales -> module:sales.reports']);
    const sales = one(b, 'module', 'sales');
    assert.deepEqual(
      [sales.props['query_root'], sales.props['mutation_root'], sales.props['function_root'], sales.props['mutation_function_root'], sales.props['depth']],
      ['_module_sales_query', '_module_sales_mutation', '_module_sales_function', '_module_sales_mut_function', 1],
    );
    assert.deepEqual([one(b, 'module', 'hugr').props['hugr_model_from'], one(b, 'module', 'hugr').props['hugr_generation']], ['directives', 'v0.3.42']);
    assert.deepEqual(qns(b, 'data_object'), ['sales.customers', 'sales.order_tags', 'sales.orders', 'sales.reports.sales_by_country', 'sales.tags']);
    assert.deepEqual(edges(b, 'CONTAINS'), [
      'module:sales -> data_object:sales.customers',
      'module:sales -> data_object:sales.order_tags',
      'module:sales -> data_object:sales.orders',
      'module:sales -> data_object:sales.tags',
      'module:sales -> function:sales.order_status',
      'module:sales -> function:sales.reprice_orders',
      'module:sales.reports -> data_object:sales.reports.sales_by_country',
    ]);
    const orders = one(b, 'data_object', 'sales.orders');
    assert.equal(orders.module, 'sales');
    assert.deepEqual(
      [orders.props['object_kind'], orders.props['type_name'], orders.props['query_name'], orders.props['filter_type'], orders.props['data_source'], orders.props['soft_delete'], orders.props['has_geometry']],
      ['table', 'orders', 'orders', 'orders_filter', 'test', true, true],
    );
    assert.deepEqual(orders.props['primary_key'], ['id']);
    assert.deepEqual((orders.props['queries'] as { name: string; kind: string }[]).map((q) => `${q.name}:${q.kind}`), ['orders:select', 'orders_aggregation:aggregate', 'orders_bucket_aggregation:bucket_aggregate', 'orders_by_pk:select_one']);
    assert.deepEqual((orders.props['mutations'] as { name: string }[]).map((q) => q.name), ['delete_orders', 'insert_orders', 'update_orders']);
    assert.equal(
      orders.props['skeleton'],
      [
        'query ($filter: orders_filter, $limit: Int = 10, $offset: Int = 0, $order_by: [OrderByField]) {',
        '  sales {',
        '    orders(filter: $filter, limit: $limit, offset: $offset, order_by: $order_by) {',
        '      amount',
        '      area',
        '      created_at',
        '      customer_id',
        '      deleted_at',
        '      id',
        '      total_with_tax',
        '    }',
        '  }',
        '}',
      ].join('\n'),
    );
    // A parameterised view in a submodule: `args` is required and passed.
    const view = one(b, 'data_object', 'sales.reports.sales_by_country');
    assert.deepEqual([view.props['object_kind'], view.props['args_type'], view.props['args_required'], view.module], ['view', 'sales_by_country_args', true, 'sales.reports']);
    assert.match(view.props['skeleton'] as string, /^query \(\$args: sales_by_country_args!, \$filter: sales_by_country_filter, \$limit: Int = 10, \$offset: Int = 0, \$order_by: \[OrderByField\]\) \{\n {2}sales \{\n {4}reports \{\n {6}sales_by_country\(args: \$args, /);
    // Functions: under `query { function { … } }` and `mutation { function { … } }`.
    const status = one(b, 'function', 'sales.order_status');
    assert.deepEqual([status.props['graphql_path'], status.props['is_mutation'], status.props['return_type'], status.props['deprecated']], ['function.sales.order_status', false, 'String', true]);
    assert.equal(status.props['skeleton'], 'query ($id: Int!, $mode: String) {\n  function {\n    sales {\n      order_status(id: $id, mode: $mode)\n    }\n  }\n}');
    const reprice = one(b, 'function', 'sales.reprice_orders');
    assert.deepEqual([reprice.props['graphql_path'], reprice.props['is_mutation'], reprice.props['is_table']], ['function.sales.reprice_orders', true, true]);
    assert.match(reprice.props['skeleton'] as string, /^mutation \(\$factor: Float!\) \{\n {2}function \{\n {4}sales \{\n {6}reprice_orders\(factor: \$factor\) \{\n {8}id\n {8}name\n/);
    assert.deepEqual(edges(b, 'RETURNS'), ['function:sales.order_status -> type:String', 'function:sales.reprice_orders -> type:customers']);
    // Relations, with their shape and keys.
    const refs = b.edges.filter((e) => e.type === 'REFERENCES');
    const qn = new Map(b.nodes.map((n) => [n.id, n.qualified_name]));
    assert.deepEqual(
      refs.map((e) => `${qn.get(e.from)}.${e.attrs!['field']} -> ${qn.get(e.to)} ${e.attrs!['relation_kind']}${e.attrs!['through'] ? ` via ${e.attrs!['through']}` : ''}${e.attrs!['source_fields'] ? ` ${JSON.stringify(e.attrs!['source_fields'])}=${JSON.stringify(e.attrs!['target_fields'])}` : ''}`).sort(),
      [
        // A declared @join, and both directions of each @references (many-to-many through the junction's keys).
        'sales.customers.customer_orders -> sales.orders join ["id"]=["customer_id"]',
        'sales.customers.orders -> sales.orders one_to_many ["id"]=["customer_id"]',
        'sales.orders.customer -> sales.customers many_to_one ["customer_id"]=["id"]',
        'sales.orders.tags -> sales.tags many_to_many via order_tags ["id"]=["order_id"]',
        'sales.tags.orders -> sales.orders many_to_many via order_tags ["name"]=["tag_name"]',
      ],
    );
    // Fields of data objects say what they are; the data object's fields carry hugr_type.
    const field = (q: string) => one(b, 'field', q).props;
    assert.deepEqual([field('orders.amount')['field_kind'], field('orders.customer')['field_kind'], field('orders.status_label')['field_kind'], field('orders._created_at_part')['field_kind']], ['column', 'relation', 'extra', 'extra']);
    assert.equal(field('_module_sales_query.orders_bucket_aggregation')['hugr_type'], 'bucket_agg');
    assert.equal(one(b, 'type', '_module_sales_reports_query').props['hugr_type'], 'module');
    assert.equal(one(b, 'type', 'orders').props['hugr_type'], 'table');
  });

  test('multi: prefixed and as_module sources, a read-only source, root-module objects, root functions', async () => {
    const b = await build(HUGR, ['base', 'golden/multi.graphql']);
    assert.deepEqual(qns(b, 'data_object'), ['audit.audit_events', 'ro_mod.logs', 'shop.categories', 'shop.items', 'shop_overview']);
    const items = one(b, 'data_object', 'shop.items');
    assert.deepEqual([items.props['type_name'], items.props['query_name'], items.props['graphql_path'], items.props['data_source']], ['shop_items', 'items', 'shop.items', 'shop']);
    const shop = one(b, 'data_source', 'shop');
    assert.deepEqual([shop.props['prefix'], shop.props['as_module'], shop.props['read_only'], shop.props['engine'], shop.props['inferred']], ['shop', true, false, 'duckdb', true]);
    const ro = one(b, 'data_source', 'ro');
    assert.deepEqual([ro.props['as_module'], ro.props['read_only']], [false, true]);
    // audit's mutation root is missing from the snapshot, but its type declares mutations: not read-only.
    assert.equal(one(b, 'data_source', 'audit').props['read_only'], false);
    const overview = one(b, 'data_object', 'shop_overview');
    assert.deepEqual([overview.module, overview.props['graphql_path'], overview.props['object_kind']], ['hugr', 'shop_overview', 'view']);
    assert.match(overview.props['skeleton'] as string, /^query \(.*\) \{\n {2}shop_overview\(/);
    assert.deepEqual(
      b.nodes.filter((n) => n.kind === 'function').map((n) => `${n.props['graphql_path']}${n.props['is_table'] ? ' table' : ''}`).sort(),
      ['function.shop.item_label', 'function.similar_items table', 'function.tools.slugify'],
    );
    const similar = one(b, 'function', 'similar_items');
    assert.deepEqual((similar.props['queries'] as { name: string; kind: string }[]).map((q) => `${q.name}:${q.kind}`), ['similar_items_aggregation:aggregate', 'similar_items_bucket_aggregation:bucket_aggregate']);
    assert.deepEqual(edges(b, 'FROM_SOURCE').filter((e) => e.startsWith('data_object')), [
      'data_object:audit.audit_events -> data_source:audit',
      'data_object:ro_mod.logs -> data_source:ro',
      'data_object:shop.categories -> data_source:shop',
      'data_object:shop.items -> data_source:shop',
      'data_object:shop_overview -> data_source:ext',
    ]);
    assert.deepEqual(edges(b, 'REFERENCES'), [
      'data_object:audit.audit_events -> data_object:ro_mod.logs [logs]',
      'data_object:shop.categories -> data_object:shop.items [items]', 'data_object:shop.items -> data_object:shop.categories [category]', 'data_object:shop.items -> data_object:shop.items [similar]']);
  });

  test('partial snapshots: data objects no query reaches are placed by their directives, unverified', async () => {
    const b = await build(HUGR, ['base', 'golden/structs.graphql']);
    assert.ok(b.warnings.some((w) => w.includes('no query field of the schema reaches') && w.includes('products')), b.warnings.join('\n'));
    const products = one(b, 'data_object', 'sales.products');
    assert.deepEqual([products.props['path_verified'], products.props['filter_type'], products.module], [false, 'products_filter', 'sales']);
    assert.deepEqual((products.props['queries'] as { name: string }[]).map((q) => q.name), ['products', 'products_aggregation', 'products_bucket_aggregation', 'products_by_pk']);
    assert.equal(one(await build(HUGR, ['base', 'golden/harness.graphql']), 'data_object', 'sales.orders').props['path_verified'], true);
  });

  test('a source named like one of its modules still indexes (both modules are kept)', async () => {
    const b = await build(HUGR, ['base', 'golden/harness.graphql'], 'sales');
    const sales = b.nodes.filter((n) => n.kind === 'module' && n.qualified_name === 'sales');
    assert.deepEqual(sales.map((n) => n.props['is_root']).sort(), [false, true]);
    assert.equal(new Set(b.nodes.map((n) => n.id)).size, b.nodes.length);
  });

  test('partial snapshots: module roots nothing reaches are placed by their names, with a warning', async () => {
    const b = await build(HUGR, ['base', 'golden/cube.graphql']);
    assert.ok(b.warnings.some((w) => w.includes('not reachable') && w.includes('_module_bi_query')), b.warnings.join('\n'));
    assert.deepEqual(qns(b, 'data_object'), ['bi.readings', 'bi.sales_cube']);
    assert.equal(one(b, 'data_object', 'bi.sales_cube').props['is_cube'], true);
  });
});

describe('Hugr model: depth, prefixes and mcp_exclude (own fixture)', () => {
  test('five levels deep, prefixed as_module source, hidden field, functions deep in both function trees', async () => {
    const b = await build(OWN, ['deep.graphql'], 'wh');
    assert.deepEqual(qns(b, 'module'), ['warehouse', 'warehouse.eu', 'warehouse.eu.north', 'warehouse.eu.north.ops', 'warehouse.eu.north.ops.daily', 'wh']);
    assert.equal(one(b, 'module', 'warehouse.eu.north.ops.daily').props['depth'], 5);
    const shipments = one(b, 'data_object', 'warehouse.eu.north.ops.daily.shipments');
    assert.deepEqual([shipments.props['type_name'], shipments.props['query_name'], shipments.module, shipments.props['description']], ['wh_shipments', 'shipments', 'warehouse.eu.north.ops.daily', 'Shipments leaving a warehouse, one row per parcel']);
    assert.equal(
      shipments.props['skeleton'],
      [
        'query ($filter: wh_shipments_filter, $limit: Int = 10, $offset: Int = 0, $order_by: [OrderByField]) {',
        '  warehouse {',
        '    eu {',
        '      north {',
        '        ops {',
        '          daily {',
        '            shipments(filter: $filter, limit: $limit, offset: $offset, order_by: $order_by) {',
        '              id',
        '              country',
        '              shipped_at',
        '              carrier_id',
        '            }',
        '          }',
        '        }',
        '      }',
        '    }',
        '  }',
        '}',
      ].join('\n'),
    );
    // @exclude_mcp: the field is not indexed and not selected.
    assert.ok(!b.nodes.some((n) => n.kind === 'field' && n.qualified_name === 'wh_shipments.internal_cost'));
    assert.ok(!(shipments.props['field_names'] as string[]).includes('internal_cost'));
    const ds = one(b, 'data_source', 'warehouse');
    assert.deepEqual([ds.props['prefix'], ds.props['as_module'], ds.props['read_only'], ds.props['engine']], ['wh', true, false, 'postgres']);
    assert.deepEqual((shipments.props['mutations'] as { name: string; graphql_path: string }[]).map((m) => m.graphql_path), ['warehouse.eu.north.ops.daily.delete_shipments']);
    assert.deepEqual(edges(b, 'REFERENCES'), [
      'data_object:warehouse.eu.carriers -> data_object:warehouse.eu.north.ops.daily.shipments [shipments]',
      'data_object:warehouse.eu.north.ops.daily.shipments -> data_object:warehouse.eu.carriers [carrier]',
    ]);
    const eta = one(b, 'function', 'warehouse.eu.north.ops.daily.shipment_eta');
    assert.equal(eta.props['skeleton'], 'query ($id: Int!, $traffic: Boolean) {\n  function {\n    warehouse {\n      eu {\n        north {\n          ops {\n            daily {\n              shipment_eta(id: $id, traffic: $traffic)\n            }\n          }\n        }\n      }\n    }\n  }\n}');
    const reroute = one(b, 'function', 'warehouse.eu.reroute');
    assert.deepEqual([reroute.props['is_mutation'], reroute.props['graphql_path'], reroute.props['description']], [true, 'function.warehouse.eu.reroute', 'Sends a shipment to another carrier']);
    const ping = one(b, 'data_object', 'ping_log');
    assert.deepEqual([ping.module, ping.props['data_source'], ping.props['object_kind']], ['wh', 'ops', 'view']);
    for (const n of b.nodes.filter((x) => x.kind === 'data_object' || x.kind === 'function')) assertValid(b.schema, n.props['skeleton'] as string, n.qualified_name);
  });
});

/** What both ways of reading a Hugr schema must agree on (directives and references keys are SDL-only). */
function essentials(m: HugrModel): unknown {
  const relation = (k: string): string => (k === 'many_to_many' || k === 'join' ? 'one_to_many' : k);
  return {
    modules: m.modules.map((x) => ({ name: x.name, roots: x.roots })),
    objects: m.dataObjects.map((o) => ({
      type: o.typeName,
      kind: o.kind,
      path: o.path.join('.'),
      module: o.module,
      // Without a by-primary-key query, only @pk directives (SDL) tell the key.
      pk: o.queries.some((q) => q.kind === 'select_one') ? o.primaryKey : '(not asked)',
      filter: o.filterType,
      args: o.argsType,
      source: o.dataSource,
      queries: o.queries.map((q) => `${q.name}:${q.kind}:${q.arguments.map((a) => `${a.name}=${a.type}`).join(',')}`),
      mutations: o.mutations.map((q) => q.name),
      refs: o.references.map((r) => `${r.field}->${r.target}:${relation(r.kind)}`),
    })),
    functions: m.functions.map((f) => ({ path: f.path.join('.'), mutation: f.isMutation, returns: f.returns, source: f.dataSource, queries: f.queries.map((q) => q.name) })),
    excluded: [...m.excludedFields].sort(),
  };
}

describe('Hugr model from introspection extensions', async () => {
  const fixtures: [string, string, string[]][] = [
    ...(await readdir(path.join(HUGR, 'golden'))).filter((f) => f.endsWith('.graphql')).sort().map((f): [string, string, string[]] => [f, HUGR, ['base', `golden/${f}`]]),
    ['deep.graphql', OWN, ['deep.graphql']],
  ];
  for (const [name, dir, files] of fixtures) {
    test(`${name}: the same data objects, functions, paths and queries as from its directives`, async () => {
      // A server always has the roots that lead to its modules: read both from the completed schema.
      const sdl = completeModuleRoots((await build(dir, files)).schema);
      const json = hugrIntrospection(sdl);
      const fromSdl = deriveHugrModel(sdl);
      const extensions = hugrExtensionsOf(json.__schema);
      assert.ok(extensions, 'the introspection carries Hugr extensions');
      const fromIntrospection = deriveHugrModel(buildClientSchema(json as unknown as IntrospectionQuery, { assumeValid: true }), extensions);
      assert.equal(fromIntrospection.from, 'introspection');
      assert.ok(fromSdl.dataObjects.length + fromSdl.functions.length > 0);
      assert.deepEqual(essentials(fromIntrospection), essentials(fromSdl));
    });
  }

  test('an introspection JSON file with extensions is read as Hugr, hidden fields stay hidden', async () => {
    const sdl = completeModuleRoots((await build(OWN, ['deep.graphql'])).schema);
    const tmp = await mkdtemp(path.join(os.tmpdir(), 'sextant-hugr-'));
    try {
      await writeFile(path.join(tmp, 'schema.json'), JSON.stringify({ data: hugrIntrospection(sdl) }));
      const b = await build(tmp, ['schema.json'], 'wh');
      assert.equal(one(b, 'module', 'wh').props['hugr_model_from'], 'introspection');
      const shipments = one(b, 'data_object', 'warehouse.eu.north.ops.daily.shipments');
      assert.deepEqual([shipments.props['type_name'], shipments.props['filter_type'], shipments.props['path_verified']], ['wh_shipments', 'wh_shipments_filter', true]);
      assert.ok(!b.nodes.some((n) => n.kind === 'field' && n.qualified_name === 'wh_shipments.internal_cost'));
      assert.ok(!(shipments.props['skeleton'] as string).includes('internal_cost'));
      assert.equal(one(b, 'field', 'wh_shipments.carrier').props['field_kind'], 'relation');
      assert.equal(one(b, 'field', '_module_warehouse_eu_north_ops_daily_query.shipments').props['hugr_type'], 'select');
      for (const n of b.nodes.filter((x) => x.kind === 'data_object' || x.kind === 'function')) assertValid(b.schema, n.props['skeleton'] as string, n.qualified_name);
      // The same JSON read with flavor generic has no Hugr model.
      const generic = await buildGraphqlSource({ kind: 'graphql', name: 'wh', headers: {}, timeout_ms: 5000, schema: ['schema.json'], flavor: 'generic' }, { ontology, baseDir: tmp, env: {} });
      assert.ok(!generic.nodes.some((n) => n.kind === 'data_object' || n.kind === 'function' || n.kind === 'data_source'));
      assert.ok(generic.nodes.some((n) => n.kind === 'field' && n.qualified_name === 'wh_shipments.internal_cost'), 'generic reads what the schema has');
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  });
});

describe('Hugr endpoint (test server)', () => {
  test('indexed with the service secret: extensions, generation, data sources from _dataSources; skeletons run', async () => {
    const { startHarnessServer, SECRET } = await import('./hugr-server/fixture.js');
    const server = await startHarnessServer();
    try {
      const cfg: GraphqlSourceConfig = { kind: 'graphql', name: 'hugr', headers: { 'x-hugr-secret-key': SECRET }, timeout_ms: 5000, endpoint: `${server.url}/query` };
      const built = await buildGraphqlSource(cfg, { ontology, baseDir: OWN, env: {} });
      const b = { nodes: built.nodes, edges: built.edges, warnings: built.warnings, schema: undefined as unknown as GraphQLSchema };
      // Probe, introspection with the extension fields (again without __InputValue.isDeprecated, which it rejects
      // as Hugr v0.3.41 does), _dataSources, _dataObject; no core.catalog question (this server has none): all with the
      // secret, never a bearer.
      const sent = server.requests.map((r) => String(r.body['query']));
      assert.ok(server.requests.every((r) => r.role === 'admin' && r.headers['authorization'] === undefined));
      assert.deepEqual(
        [sent.findIndex((q) => q.includes('__Type')), sent.filter((q) => q.includes('schema_catalogs')).length, sent.filter((q) => q.includes('__schema')).length, sent.some((q) => /_dataObject\(name: "order_tags"\)/.test(q))],
        [0, 0, 2, true],
      );
      assert.ok(sent.filter((q) => q.includes('__schema')).every((q) => /hugr_type/.test(q)));
      const root = one(b, 'module', 'hugr');
      assert.deepEqual([root.props['hugr_model_from'], root.props['hugr_generation']], ['introspection', 'v0.3.42']);
      const ds = one(b, 'data_source', 'test');
      assert.deepEqual([ds.props['inferred'], ds.props['engine'], ds.props['read_only'], ds.props['description']], [false, 'duckdb', false, 'The harness test source']);
      assert.deepEqual(qns(b, 'data_object'), ['sales.customers', 'sales.order_tags', 'sales.orders', 'sales.reports.sales_by_country', 'sales.tags']);
      // From _dataObject: a key no by-key query reveals, the junction flag, many-to-many and join relations.
      const tags = one(b, 'data_object', 'sales.order_tags');
      assert.deepEqual([tags.props['primary_key'], tags.props['is_m2m']], [['order_id', 'tag_name'], true]);
      const qn = new Map(b.nodes.map((n) => [n.id, n.qualified_name]));
      const refs = b.edges.filter((e) => e.type === 'REFERENCES').map((e) => `${qn.get(e.from)}.${e.attrs!['field']} ${e.attrs!['relation_kind']}${e.attrs!['through'] ? ` via ${e.attrs!['through']}` : ''}`).sort();
      assert.deepEqual(refs, ['sales.customers.customer_orders join', 'sales.customers.orders one_to_many', 'sales.orders.customer many_to_one', 'sales.orders.tags many_to_many via order_tags', 'sales.tags.orders many_to_many via order_tags']);
      // Every skeleton without required variables runs as it is.
      let ran = 0;
      for (const n of b.nodes.filter((x) => x.kind === 'data_object' || x.kind === 'function')) {
        const skeleton = n.props['skeleton'] as string;
        if (/\$\w+: [\w[\]]+!/.test(skeleton)) continue;
        const res = await fetch(`${server.url}/query`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-hugr-secret-key': SECRET }, body: JSON.stringify({ query: skeleton }) });
        const json = (await res.json()) as { errors?: unknown };
        assert.equal(json.errors, undefined, `${n.qualified_name}: ${JSON.stringify(json.errors)}\n${skeleton}`);
        ran++;
      }
      assert.ok(ran >= 4, `ran ${ran}`);
    } finally {
      await server.close();
    }
  });
});

describe('Hugr generation detection', () => {
  test('by what the roots offer: meta queries (v0.3.42+), core.catalog (v0.3), schema_summary (v0.1–0.2), none', () => {
    assert.equal(hugrGenerationOf(buildSchema('type Query { _catalog: String _dataObject(name: String!): String }')), 'v0.3.42');
    assert.equal(hugrGenerationOf(buildSchema('type Query { core: Core } type Core { catalog: Catalog data_sources: [String] } type Catalog { types: [String] }')), 'v0.3');
    assert.equal(hugrGenerationOf(buildSchema('type Query { function: F } type F { core: FC } type FC { meta: M } type M { schema_summary: String }')), 'v0.1');
    assert.equal(hugrGenerationOf(buildSchema('type Query { books: [String] }')), undefined);
  });
});
