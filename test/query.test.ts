import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import AjvModule from 'ajv';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateSynthetic } from '../bench/synthetic.js';
import { openTestStore } from './helpers/store.js';
import { listTools, runTool } from '../src/query/index.js';
import { indexSchema, SHOP_SDL, type TestIndex } from './helpers/index.js';

const Ajv = ((AjvModule as unknown as { default?: unknown }).default ?? AjvModule) as new (opts: object) => { compile: (schema: object) => ((data: unknown) => boolean) & { errors?: unknown } };

let shop: TestIndex;
const seenHints: { tool: string; args: Record<string, unknown> }[] = [];

async function ok(tool: string, args: unknown) {
  const result = await shop.call(tool, args);
  assert.equal(result.ok, true, `${tool} ${JSON.stringify(args)} failed: ${JSON.stringify(result)}`);
  for (const h of result.hints ?? []) seenHints.push(h);
  return result;
}

async function err(tool: string, args: unknown, code: string): Promise<any> {
  const result = await shop.call(tool, args);
  assert.equal(result.ok, false, `${tool} ${JSON.stringify(args)} should fail`);
  assert.equal(result.error.code, code, JSON.stringify(result.error));
  for (const h of result.error.hints ?? []) seenHints.push(h);
  return result.error;
}

const names = (nodes: { qualified_name: string }[]) => nodes.map((n) => n.qualified_name).sort();

before(async () => {
  shop = await indexSchema(SHOP_SDL, 'shop');
});
after(async () => {
  await shop.close();
});

describe('find', () => {
  test('an enum filter returns the exact set, in a stable order', async () => {
    const r = await ok('find', { kind: 'type', filter: { type_kind: 'OBJECT' } });
    assert.deepEqual(r.results.map((n: { qualified_name: string }) => n.qualified_name), ['Customer', 'Money', 'Mutation', 'Order', 'OrderLine', 'Product', 'Query']);
    assert.equal(r.total, 7);
    assert.equal(r.has_more, false);
  });

  test('exclude, prefix, contains, range and list-membership fields', async () => {
    assert.deepEqual(names((await ok('find', { kind: 'type', filter: { exclude_type_kind: ['OBJECT', 'SCALAR'] } })).results), ['Node', 'OrderStatus', 'PlaceOrderInput', 'SearchResult']);
    assert.deepEqual(names((await ok('find', { kind: 'type', filter: { name_prefix: 'Order' } })).results), ['Order', 'OrderLine', 'OrderStatus']);
    assert.deepEqual(names((await ok('find', { kind: 'field', filter: { qualified_name_contains: 'ORDER.l' } })).results), ['Order.legacyCode', 'Order.lines']);
    assert.deepEqual(names((await ok('find', { kind: 'type', filter: { min_field_count: 5 } })).results), ['Order']);
    assert.deepEqual(names((await ok('find', { kind: 'type', filter: { enum_values: 'SHIPPED' } })).results), ['OrderStatus']);
    assert.deepEqual(names((await ok('find', { kind: 'type', filter: { interfaces: ['Node'] } })).results), ['Customer', 'Order', 'Product']);
    assert.deepEqual(names((await ok('find', { kind: 'field', filter: { deprecated: true } })).results), ['Order.legacyCode']);
    assert.deepEqual(names((await ok('find', { kind: 'field', filter: { parent_type: ['Money', 'OrderLine'] } })).results), ['Money.amount', 'Money.currency', 'OrderLine.product', 'OrderLine.quantity']);
  });

  test('an empty filter lists the kind, paginated with a next-page hint', async () => {
    const r = await ok('find', { kind: 'type', limit: 3 });
    assert.equal(r.results.length, 3);
    assert.equal(r.has_more, true);
    assert.ok(r.total > 10);
    const next = r.hints.find((h: { tool: string }) => h.tool === 'find');
    assert.deepEqual(next.args, { kind: 'type', filter: {}, limit: 3, offset: 3 });
    const page2 = await ok('find', next.args);
    assert.notEqual(page2.results[0].id, r.results[0].id);
  });

  test('the filter may be JSON text, limit a numeric string, blank strings are absent', async () => {
    const r = await ok('find', { kind: 'type', filter: '{"type_kind": "ENUM"}', limit: '5', offset: '' });
    assert.deepEqual(names(r.results), ['OrderStatus']);
    const all = await ok('find', { kind: 'module', filter: '' });
    assert.deepEqual(names(all.results), ['shop']);
    const text = await ok('find', '{"kind": "type", "filter": {"name": "Money"}}');
    assert.equal(text.total, 1);
  });

  test('enum values are matched ignoring case when that is exact', async () => {
    assert.deepEqual(names((await ok('find', { kind: 'type', filter: { type_kind: 'enum' } })).results), ['OrderStatus']);
  });

  test('an inapplicable field teaches which fields apply', async () => {
    const e = await err('find', { kind: 'type', filter: { parent_type: 'Order' } }, 'inapplicable_field');
    assert.equal(e.argument, 'filter.parent_type');
    assert.match(e.message, /`parent_type` does not apply to kind type \(it applies to field\)/);
    assert.ok(e.allowed.includes('type_kind') && e.allowed.includes('name_prefix'));
  });

  test('an unknown field suggests the nearest spelling', async () => {
    const e = await err('find', { kind: 'type', filter: { type_knid: 'OBJECT' } }, 'unknown_field');
    assert.deepEqual(e.did_you_mean?.[0], 'type_kind');
    assert.match(e.message, /Did you mean `type_kind`/);
  });

  test('a bad enum value lists the allowed values and the nearest', async () => {
    const e = await err('find', { kind: 'type', filter: { type_kind: 'OBJCT' } }, 'bad_enum_value');
    assert.deepEqual(e.did_you_mean, ['OBJECT']);
    assert.ok(e.allowed.includes('INPUT_OBJECT'));
  });

  test('a wildcard points to the prefix field and search', async () => {
    const e = await err('find', { kind: 'type', filter: { name: 'Order*' } }, 'wildcard_in_filter');
    assert.ok(e.allowed.includes('name_prefix'));
    assert.match(e.message, /name_prefix/);
    assert.match(e.message, /search/);
  });

  test('limit and offset out of range, unknown kind, unknown and missing arguments', async () => {
    await err('find', { kind: 'type', limit: 0 }, 'out_of_range');
    const big = await err('find', { kind: 'type', limit: 501 }, 'out_of_range');
    assert.match(big.message, /between 1 and 500/);
    await err('find', { kind: 'type', offset: -1 }, 'out_of_range');
    const kind = await err('find', { kind: 'typ' }, 'unknown_kind');
    assert.ok(kind.did_you_mean.includes('type'));
    const arg = await err('find', { kind: 'type', fitler: {} }, 'unknown_argument');
    assert.deepEqual(arg.did_you_mean, ['filter']);
    await err('find', {}, 'missing_argument');
    await err('find', { kind: 'type', filter: '[1,2]' }, 'invalid_argument');
    await err('find', { kind: 'type', filter: { name: [] } }, 'invalid_argument');
  });

  test('an empty result says which field emptied it and what relaxing returns', async () => {
    const r = await ok('find', { kind: 'type', filter: { type_kind: 'ENUM', name_prefix: 'Cust' } });
    assert.equal(r.total, 0);
    assert.ok(['name_prefix', 'type_kind'].includes(r.absence.emptied_by));
    const byField = Object.fromEntries(r.absence.relaxations.map((x: { field: string; results_without_it: number }) => [x.field, x.results_without_it]));
    assert.deepEqual(byField, { name_prefix: 1, type_kind: 1 });
    assert.ok(r.hints.some((h: { tool: string }) => h.tool === 'find'));
  });

  test('an empty name lookup suggests near names', async () => {
    const r = await ok('find', { kind: 'type', filter: { name: 'Custmer' } });
    assert.equal(r.total, 0);
    assert.equal(r.absence.did_you_mean.name[0].name, 'Customer');
  });
});

describe('resolve', () => {
  test('one: an exact qualified name', async () => {
    const r = await ok('resolve', { identifier: 'Order' });
    assert.equal(r.status, 'one');
    assert.equal(r.node.kind, 'type');
    assert.equal(r.reason, 'exact qualified name');
    assert.equal((await ok('resolve', { identifier: 'Order.status' })).node.kind, 'field');
    assert.equal((await ok('resolve', { identifier: r.node.id })).reason, 'exact id');
  });

  test('many: never picks, gives reasons', async () => {
    const r = await ok('resolve', { identifier: 'id' });
    assert.equal(r.status, 'many');
    assert.deepEqual(names(r.candidates.map((c: { node: { qualified_name: string } }) => c.node)), ['Customer.id', 'Node.id', 'Order.id', 'Product.id']);
    assert.ok(r.candidates.every((c: { reason: string }) => c.reason === 'exact name'));
  });

  test('none: did-you-mean and a search hint', async () => {
    const r = await ok('resolve', { identifier: 'Custmer' });
    assert.equal(r.status, 'none');
    assert.equal(r.absence.did_you_mean[0].name, 'Customer');
    assert.ok(r.hints.some((h: { tool: string }) => h.tool === 'search'));
  });

  test('a kind that excludes the only match says where the name does exist', async () => {
    const r = await ok('resolve', { identifier: 'OrderLine', kind: 'module' });
    assert.equal(r.status, 'none');
    assert.equal(r.absence.other_kinds[0].qualified_name, 'OrderLine');
  });

  test('the end of a qualified name', async () => {
    const r = await ok('resolve', { identifier: 'LINES' });
    assert.equal(r.status, 'one');
    assert.equal(r.node.qualified_name, 'Order.lines');
  });
});

describe('describe', () => {
  test('every property, location and edge counts', async () => {
    const id = (await ok('resolve', { identifier: 'Order' })).node.id;
    const r = await ok('describe', { id });
    assert.equal(r.node.properties.type_kind, 'OBJECT');
    assert.equal(r.node.properties.description, 'A customer order with its line items.');
    assert.equal(r.node.location.file, 'shop.graphql');
    assert.equal(typeof r.node.location.line, 'number');
    assert.deepEqual(r.node.edges.HAS_FIELD, { in: 0, out: 7 });
    assert.deepEqual(r.node.edges.IMPLEMENTS, { in: 0, out: 1 });
    assert.deepEqual(r.node.edges.FIELD_TYPE, { in: 4, out: 0 });
    assert.deepEqual(r.node.edges.UNION_MEMBER, { in: 1, out: 0 });
    assert.ok(r.hints.some((h: { tool: string; args: { edge_types: string[] } }) => h.tool === 'neighbors' && h.args.edge_types[0] === 'HAS_FIELD'));
  });

  test('ids as a list, its JSON text, a Python-style literal or a lone string', async () => {
    const a = (await ok('resolve', { identifier: 'Order' })).node.id;
    const b = (await ok('resolve', { identifier: 'Customer' })).node.id;
    for (const ids of [[a, b], JSON.stringify([a, b]), `['${a}', "${b}"]`]) {
      const r = await ok('describe', { ids });
      assert.deepEqual(r.nodes.map((n: { name: string }) => n.name), ['Order', 'Customer']);
    }
    assert.equal((await ok('describe', { ids: a })).nodes.length, 1);
    await err('describe', { ids: `['${a}', ${b}]` }, 'invalid_argument');
  });

  test('an exact qualified name is accepted in place of an id; anything else points to resolve', async () => {
    assert.equal((await ok('describe', { id: 'Order.lines' })).node.properties.type_signature, '[OrderLine!]!');
    const e = await err('describe', { id: 'Order.nope' }, 'not_found');
    assert.equal(e.hints[0].tool, 'resolve');
    await err('describe', { id: 'ty_0000000000000000' }, 'not_found');
    await err('describe', {}, 'missing_argument');
    await err('describe', { id: 'a', ids: ['b'] }, 'invalid_argument');
  });

  test('unknown ids among known ones are listed as missing', async () => {
    const a = (await ok('resolve', { identifier: 'Order' })).node.id;
    const r = await ok('describe', { ids: [a, 'ty_0000000000000000'] });
    assert.deepEqual(r.missing, ['ty_0000000000000000']);
  });
});

describe('neighbors', () => {
  const idOf = async (name: string) => (await ok('resolve', { identifier: name })).node.id as string;

  test('out: the fields of a type, with the other end described', async () => {
    const r = await ok('neighbors', { ids: [await idOf('Order')], direction: 'out', edge_types: ['HAS_FIELD'] });
    assert.deepEqual(names(r.edges.map((e: { other: { qualified_name: string } }) => e.other)), ['Order.customer', 'Order.id', 'Order.legacyCode', 'Order.lines', 'Order.placedAt', 'Order.status', 'Order.total']);
    assert.ok(r.edges.every((e: { direction: string; type: string }) => e.direction === 'out' && e.type === 'HAS_FIELD'));
  });

  test('in and both, with a lone string for ids and edge_types', async () => {
    const node = await idOf('Node');
    const incoming = await ok('neighbors', { ids: node, direction: 'in', edge_types: 'IMPLEMENTS' });
    assert.deepEqual(names(incoming.edges.map((e: { other: { qualified_name: string } }) => e.other)), ['Customer', 'Order', 'Product']);
    const both = await ok('neighbors', { ids: [node], direction: 'both', edge_types: ['IMPLEMENTS', 'HAS_FIELD'] });
    assert.equal(both.total, 4);
    assert.deepEqual(both.edges.map((e: { direction: string }) => e.direction).sort(), ['in', 'in', 'in', 'out']);
  });

  test('FIELD_TYPE walks to the type; attributes come along', async () => {
    const r = await ok('neighbors', { ids: [await idOf('Order.lines')], direction: 'out', edge_types: ['FIELD_TYPE'] });
    assert.equal(r.edges[0].other.qualified_name, 'OrderLine');
    assert.equal(r.edges[0].attrs.signature, '[OrderLine!]!');
  });

  test('filter on the other end and edge_filter on an attribute', async () => {
    const dep = await ok('neighbors', { ids: [await idOf('Order')], direction: 'out', edge_types: ['HAS_FIELD'], filter: { deprecated: true } });
    assert.deepEqual(names(dep.edges.map((e: { other: { qualified_name: string } }) => e.other)), ['Order.legacyCode']);
    const arg = await ok('neighbors', { ids: [await idOf('Order.lines')], direction: 'out', edge_types: ['ARGUMENT_TYPE'], edge_filter: { argument: 'after' } });
    assert.deepEqual(arg.edges.map((e: { other: { name: string } }) => e.other.name), ['String']);
    const conf = await ok('neighbors', { ids: [await idOf('Order')], direction: 'out', edge_types: ['HAS_FIELD'], edge_filter: { min_confidence: 0.5 } });
    assert.equal(conf.total, 7);
    await err('neighbors', { ids: [await idOf('Order')], direction: 'out', edge_types: ['HAS_FIELD'], edge_filter: { argumnet: 'x' } }, 'unknown_field');
    await err('neighbors', { ids: [await idOf('Order')], direction: 'out', edge_types: ['HAS_FIELD'], filter: { type_kind: 'OBJECT' } }, 'inapplicable_field');
  });

  test('an edge type that cannot leave this kind is an error naming the ones that can', async () => {
    const e = await err('neighbors', { ids: [await idOf('Order')], direction: 'out', edge_types: ['FIELD_TYPE'] }, 'inapplicable_edge_type');
    assert.match(e.message, /Try direction "in"/);
    assert.ok(e.allowed.includes('HAS_FIELD') && !e.allowed.includes('FIELD_TYPE'));
  });

  test('direction and a non-empty edge_types are required; edge types are checked', async () => {
    const id = await idOf('Order');
    await err('neighbors', { ids: [id], edge_types: ['HAS_FIELD'] }, 'missing_argument');
    await err('neighbors', { ids: [id], direction: 'out' }, 'missing_argument');
    await err('neighbors', { ids: [id], direction: 'out', edge_types: [] }, 'invalid_argument');
    await err('neighbors', { ids: [], direction: 'out', edge_types: ['HAS_FIELD'] }, 'invalid_argument');
    await err('describe', { ids: [] }, 'invalid_argument');
    await err('search', { query: 'order', kinds: [] }, 'invalid_argument');
    await err('neighbors', { ids: [id], direction: 'sideways', edge_types: ['HAS_FIELD'] }, 'bad_enum_value');
    const e = await err('neighbors', { ids: [id], direction: 'out', edge_types: ['HAS_FIELDS'] }, 'unknown_edge_type');
    assert.deepEqual(e.did_you_mean[0], 'HAS_FIELD');
    await err('neighbors', { ids: ['ty_0000000000000000'], direction: 'out', edge_types: ['HAS_FIELD'] }, 'not_found');
  });

  test('no edges: the absence lists what this node does have', async () => {
    const r = await ok('neighbors', { ids: [await idOf('Money')], direction: 'out', edge_types: ['IMPLEMENTS'] });
    assert.equal(r.total, 0);
    assert.equal(r.absence.edge_counts.HAS_FIELD.out, 2);
    assert.ok(r.hints.some((h: { args: { edge_types: string[] } }) => h.args.edge_types?.[0] === 'FIELD_TYPE' || h.args.edge_types?.[0] === 'HAS_FIELD'));
  });
});

describe('search', () => {
  test('ranks the exact name first and explains the score', async () => {
    const r = await ok('search', { query: 'order status', explain: true });
    assert.equal(r.results[0].node.qualified_name, 'OrderStatus');
    assert.equal(r.results[0].explain.exact_name, true);
    assert.ok(r.results[0].explain.bm25.identifier > 0);
    assert.equal(r.match, 'all_terms+some_terms');
  });

  test('descriptions are searched', async () => {
    const r = await ok('search', { query: 'someone who buys' });
    assert.equal(r.results[0].node.qualified_name, 'Customer');
    assert.equal(r.results[0].snippet, 'Someone who buys things.');
  });

  test('kinds and kind-specific filters narrow exactly', async () => {
    const r = await ok('search', { query: 'order', kinds: 'field', limit: 50 });
    assert.ok(r.results.length > 0 && r.results.every((x: { node: { kind: string } }) => x.node.kind === 'field'));
    const enums = await ok('search', { query: 'order', kinds: ['type'], filter: { type_kind: 'ENUM' } });
    assert.deepEqual(enums.results.map((x: { node: { name: string } }) => x.node.name), ['OrderStatus']);
    await err('search', { query: 'order', filter: { type_kind: 'ENUM' } }, 'inapplicable_field');
    await err('search', { query: 'order', limit: 51 }, 'out_of_range');
    await err('search', { query: '  ' }, 'missing_argument');
    await err('search', { query: '!!!' }, 'invalid_argument');
  });

  test('nothing found: did-you-mean', async () => {
    const r = await ok('search', { query: 'custmer' });
    assert.equal(r.results.length, 0);
    assert.equal(r.absence.did_you_mean[0].name, 'customer');
    assert.ok(r.absence.did_you_mean.some((s: { name: string; kinds: string[] }) => s.name === 'Customer' && s.kinds.includes('type')));
  });

  test('found but filtered out: says so', async () => {
    const r = await ok('search', { query: 'customer', kinds: ['module'] });
    assert.equal(r.results.length, 0);
    assert.match(r.absence.reason, /none pass the kinds/);
  });

  test('found by some words but filtered out: says so', async () => {
    // No node holds both words: the explanation falls back to nodes holding any of them.
    const r = await ok('search', { query: 'customer qwxzvbn', kinds: ['module'] });
    assert.equal(r.results.length, 0);
    assert.match(r.absence.reason, /none pass the kinds/);
    assert.ok(r.absence.without_restrictions.type >= 1, JSON.stringify(r.absence));
  });
});

describe('tool surface', () => {
  test('unknown tools are errors, never exceptions', async () => {
    const r = await shop.call('serach', {});
    assert.equal(r.ok, false);
    assert.equal(r.error.code, 'unknown_tool');
    assert.match(r.error.message, /Did you mean search/);
    const bad = await shop.call('find', 'not json');
    assert.equal(bad.error.code, 'invalid_argument');
  });

  test('every hint validates against its tool\'s input schema', async () => {
    assert.ok(seenHints.length > 20, `only ${seenHints.length} hints seen`);
    const ajv = new Ajv({ strict: false, allErrors: true });
    const schemas = new Map(listTools(shop.ontology).map((t) => [t.name, ajv.compile(t.inputSchema)]));
    for (const h of seenHints) {
      const validate = schemas.get(h.tool);
      assert.ok(validate, `hint names unknown tool ${h.tool}`);
      assert.ok(validate(h.args), `hint ${JSON.stringify(h)} does not validate: ${JSON.stringify(validate.errors)}`);
      const replay = await shop.call(h.tool, h.args);
      assert.equal(replay.ok, true, `hint ${JSON.stringify(h)} fails when sent verbatim: ${JSON.stringify(replay)}`);
    }
  });
});

describe('an index whose ontology has no routes (the bench\'s own ontology)', () => {
  test('resolve of a path or a topic-like name, and trace from a service, answer instead of failing', async () => {
    const g = generateSynthetic({ seed: 7, services: 2, calls: 200 });
    const dir = mkdtempSync(join(tmpdir(), 'sextant-no-routes-'));
    const writer = await openTestStore(g.ontology, dir, { mode: 'write' });
    await writer.replaceSource({ name: 'synthetic', kind: 'bench', origin: 'test', built_at: new Date(0).toISOString() }, g.nodes, g.edges);
    await writer.close();
    const store = await openTestStore(g.ontology, dir, { mode: 'read' });
    try {
      const ctx = { store, ontology: g.ontology };
      for (const identifier of ['/orders/{id}', 'orders.events', 'GET /x', 'NoSuchName']) {
        const r = (await runTool(ctx, 'resolve', { identifier })) as any;
        assert.equal(r.ok, true, `${identifier}: ${JSON.stringify(r.error)}`);
      }
      const service = g.nodes.find((n) => n.kind === 'service')!;
      const t = (await runTool(ctx, 'trace', { from: service.id })) as any;
      assert.equal(t.ok, true, JSON.stringify(t.error));
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
