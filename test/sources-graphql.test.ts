import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { buildSchema, graphql, introspectionFromSchema, type GraphQLSchema } from 'graphql';
import type { GraphqlSourceConfig } from '../src/config/types.js';
import { sharedDir } from './helpers/index.js';
import { sextantOntology } from '../src/graph/ontology/index.js';
import type { EdgeRecord, NodeRecord } from '../src/graph/types.js';
import { buildGraphqlSource, extractGraphql, GraphqlSourceError, loadGraphqlSchema } from '../src/sources/graphql/index.js';
import type { SourceBuild, SourceContext } from '../src/sources/types.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const FIXTURES = path.join(ROOT, 'test/fixtures/graphql');
const OCTOKIT = path.join(ROOT, 'node_modules/@octokit/graphql-schema');
const HUGR = path.join(sharedDir(), 'fixtures/hugr');
const ontology = sextantOntology();

function cfg(over: Partial<GraphqlSourceConfig>): GraphqlSourceConfig {
  return { kind: 'graphql', name: 'demo', headers: {}, timeout_ms: 5000, ...over };
}
function ctx(baseDir: string, progress?: string[]): SourceContext {
  return { ontology, baseDir, env: {}, ...(progress ? { onProgress: (m: string) => progress.push(m) } : {}) };
}

/** Every node and edge conforms to the ontology: declared props with the declared types, allowed endpoints. */
function assertConforms(build: { nodes: NodeRecord[]; edges: EdgeRecord[] }): void {
  const byId = new Map<string, NodeRecord>();
  for (const n of build.nodes) {
    assert.ok(!byId.has(n.id), `duplicate node id ${n.id}`);
    byId.set(n.id, n);
    const info = ontology.kind(n.kind);
    assert.ok(info, `unknown kind ${n.kind}`);
    assert.equal(ontology.kindOfId(n.id), n.kind);
    const props = new Map(info.properties.map((p) => [p.name, p]));
    for (const [key, value] of Object.entries(n.props)) {
      const def = props.get(key);
      assert.ok(def, `${n.kind} ${n.qualified_name}: property ${key} is not declared by the ontology`);
      switch (def.type) {
        case 'string':
          assert.equal(typeof value, 'string', `${n.qualified_name}.${key}`);
          break;
        case 'integer':
          assert.ok(Number.isInteger(value), `${n.qualified_name}.${key}`);
          break;
        case 'number':
          assert.equal(typeof value, 'number', `${n.qualified_name}.${key}`);
          break;
        case 'boolean':
          assert.equal(typeof value, 'boolean', `${n.qualified_name}.${key}`);
          break;
        case 'enum':
          assert.ok(def.values?.includes(value as string), `${n.qualified_name}.${key}=${String(value)} not in ${def.values?.join(',')}`);
          break;
        case 'string_list':
          assert.ok(Array.isArray(value) && value.every((v) => typeof v === 'string'), `${n.qualified_name}.${key}`);
          break;
        case 'json':
          assert.doesNotThrow(() => JSON.stringify(value));
          break;
      }
    }
    for (const loc of ['service', 'module', 'file', 'line'] as const) {
      if (n[loc] != null) assert.ok((info.def.location as readonly string[]).includes(loc), `${n.kind} has no ${loc} location`);
    }
  }
  const seen = new Set<string>();
  for (const e of build.edges) {
    const def = ontology.edgeType(e.type);
    assert.ok(def, `unknown edge type ${e.type}`);
    const from = byId.get(e.from);
    const to = byId.get(e.to);
    assert.ok(from && to, `${e.type} edge with a dangling endpoint ${e.from} -> ${e.to}`);
    assert.ok(def.from.includes(from.kind), `${e.type} may not start at ${from.kind}`);
    assert.ok(def.to.includes(to.kind), `${e.type} may not end at ${to.kind}`);
    const attrs = new Set(ontology.edgeAttrs(def).map((a) => a.name));
    for (const k of Object.keys(e.attrs ?? {})) assert.ok(attrs.has(k), `${e.type} has undeclared attr ${k}`);
    const key = `${e.type} ${e.from} ${e.to} ${e.key ?? ''}`;
    assert.ok(!seen.has(key), `duplicate edge ${key}`);
    seen.add(key);
  }
}

/** Edges as readable text: `TYPE from -> to [key] {attrs}` with qualified names. */
function edgeTexts(build: { nodes: NodeRecord[]; edges: EdgeRecord[] }, withAttrs = false): string[] {
  const qn = new Map(build.nodes.map((n) => [n.id, n.qualified_name]));
  return build.edges.map((e) => `${e.type} ${qn.get(e.from)} -> ${qn.get(e.to)}${e.key ? ` [${e.key}]` : ''}${withAttrs && e.attrs ? ` ${JSON.stringify(e.attrs)}` : ''}`).sort();
}

function node(build: { nodes: NodeRecord[] }, kind: string, qualifiedName: string): NodeRecord {
  const found = build.nodes.find((n) => n.kind === kind && n.qualified_name === qualifiedName);
  assert.ok(found, `no ${kind} ${qualifiedName}`);
  return found;
}

/** Props that only SDL carries (applied directives live in the AST, not in introspection). */
function comparable(n: NodeRecord): unknown {
  const { directives: _d, applied_directives: _a, ...props } = n.props;
  return { id: n.id, kind: n.kind, name: n.name, qualified_name: n.qualified_name, source: n.source, module: n.module, props };
}

async function rejectsWith(promise: Promise<unknown>, code: string, ...fragments: (string | RegExp)[]): Promise<GraphqlSourceError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof GraphqlSourceError, `expected GraphqlSourceError, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    for (const f of fragments) {
      if (typeof f === 'string') assert.ok(err.message.includes(f), `message ${JSON.stringify(err.message)} should contain ${JSON.stringify(f)}`);
      else assert.match(err.message, f);
    }
    return err;
  }
  assert.fail(`expected ${code}, but it succeeded`);
}

let tmp: string;
before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'sextant-graphql-'));
});
after(async () => {
  await rm(tmp, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------------------------

describe('SDL fixture (several files, extensions, interfaces, union, enum, inputs)', () => {
  let build: SourceBuild;
  const progress: string[] = [];
  before(async () => {
    build = await buildGraphqlSource(cfg({ schema: ['sdl'] }), ctx(FIXTURES, progress));
  });

  test('source build metadata and progress', () => {
    assert.equal(build.name, 'demo');
    assert.equal(build.kind, 'graphql');
    assert.equal(build.origin, 'sdl');
    assert.match(build.content_hash, /^[0-9a-f]{64}$/);
    assert.deepEqual(build.warnings, []);
    assert.ok(progress.includes('loading schema') && progress.includes('extracting'));
    assert.ok(progress.indexOf('loading schema') < progress.indexOf('extracting'));
    assertConforms(build);
  });

  test('exact node set', () => {
    const names = build.nodes.map((n) => `${n.kind} ${n.qualified_name}`);
    assert.deepEqual(names, [
      'field Mutation.renameUser',
      'field Named.id',
      'field Named.name',
      'field Node.id',
      'field Query.node',
      'field Query.search',
      'field Team.id',
      'field Team.members',
      'field Team.name',
      'field User.createdAt',
      'field User.friends',
      'field User.id',
      'field User.login',
      'field User.name',
      'field User.role',
      'field UserFilter.limit',
      'field UserFilter.nameContains',
      'field UserFilter.roles',
      'module demo',
      'type Boolean',
      'type DateTime',
      'type Float',
      'type ID',
      'type Int',
      'type Mutation',
      'type Named',
      'type Node',
      'type Query',
      'type Role',
      'type SearchResult',
      'type String',
      'type Team',
      'type User',
      'type UserFilter',
    ]);
  });

  test('exact edge set', () => {
    assert.deepEqual(edgeTexts(build, true), [
      'ARGUMENT_TYPE Mutation.renameUser -> ID [id] {"argument":"id","signature":"ID!"}',
      'ARGUMENT_TYPE Mutation.renameUser -> String [name] {"argument":"name","signature":"String!"}',
      'ARGUMENT_TYPE Query.node -> ID [id] {"argument":"id","signature":"ID!"}',
      'ARGUMENT_TYPE Query.search -> String [kinds] {"argument":"kinds","signature":"[String!]"}',
      'ARGUMENT_TYPE Query.search -> String [term] {"argument":"term","signature":"String!"}',
      'ARGUMENT_TYPE Team.members -> Role [role] {"argument":"role","signature":"Role"}',
      'ARGUMENT_TYPE Team.members -> UserFilter [filter] {"argument":"filter","signature":"UserFilter"}',
      'ARGUMENT_TYPE User.friends -> Int [first] {"argument":"first","signature":"Int"}',
      'ARGUMENT_TYPE User.friends -> String [after] {"argument":"after","signature":"String"}',
      'FIELD_TYPE Mutation.renameUser -> User {"signature":"User"}',
      'FIELD_TYPE Named.id -> ID {"signature":"ID!"}',
      'FIELD_TYPE Named.name -> String {"signature":"String"}',
      'FIELD_TYPE Node.id -> ID {"signature":"ID!"}',
      'FIELD_TYPE Query.node -> Node {"signature":"Node"}',
      'FIELD_TYPE Query.search -> SearchResult {"signature":"[SearchResult!]!"}',
      'FIELD_TYPE Team.id -> ID {"signature":"ID!"}',
      'FIELD_TYPE Team.members -> User {"signature":"[User]"}',
      'FIELD_TYPE Team.name -> String {"signature":"String"}',
      'FIELD_TYPE User.createdAt -> DateTime {"signature":"DateTime"}',
      'FIELD_TYPE User.friends -> User {"signature":"[User!]!"}',
      'FIELD_TYPE User.id -> ID {"signature":"ID!"}',
      'FIELD_TYPE User.login -> String {"signature":"String"}',
      'FIELD_TYPE User.name -> String {"signature":"String"}',
      'FIELD_TYPE User.role -> Role {"signature":"Role!"}',
      'FIELD_TYPE UserFilter.limit -> Int {"signature":"Int!"}',
      'FIELD_TYPE UserFilter.nameContains -> String {"signature":"String"}',
      'FIELD_TYPE UserFilter.roles -> Role {"signature":"[Role!]"}',
      'HAS_FIELD Mutation -> Mutation.renameUser',
      'HAS_FIELD Named -> Named.id',
      'HAS_FIELD Named -> Named.name',
      'HAS_FIELD Node -> Node.id',
      'HAS_FIELD Query -> Query.node',
      'HAS_FIELD Query -> Query.search',
      'HAS_FIELD Team -> Team.id',
      'HAS_FIELD Team -> Team.members',
      'HAS_FIELD Team -> Team.name',
      'HAS_FIELD User -> User.createdAt',
      'HAS_FIELD User -> User.friends',
      'HAS_FIELD User -> User.id',
      'HAS_FIELD User -> User.login',
      'HAS_FIELD User -> User.name',
      'HAS_FIELD User -> User.role',
      'HAS_FIELD UserFilter -> UserFilter.limit',
      'HAS_FIELD UserFilter -> UserFilter.nameContains',
      'HAS_FIELD UserFilter -> UserFilter.roles',
      'IMPLEMENTS Named -> Node',
      'IMPLEMENTS Team -> Named',
      'IMPLEMENTS Team -> Node',
      'IMPLEMENTS User -> Named',
      'IMPLEMENTS User -> Node',
      'ROOT_TYPE demo -> Mutation {"operation":"mutation"}',
      'ROOT_TYPE demo -> Query {"operation":"query"}',
      'UNION_MEMBER SearchResult -> Team',
      'UNION_MEMBER SearchResult -> User',
    ]);
  });

  test('module, type and field properties', () => {
    const mod = node(build, 'module', 'demo');
    assert.equal(mod.name, 'demo');
    assert.equal(mod.module, 'demo');
    assert.deepEqual(mod.props, { is_root: true, depth: 0, description: 'The demo API.' });

    const user = node(build, 'type', 'User');
    assert.deepEqual(user.props, {
      type_kind: 'OBJECT',
      builtin: false,
      resolved: true,
      field_count: 6,
      interfaces: ['Node', 'Named'],
      directives: ['key'],
      applied_directives: [{ name: 'key', args: { fields: 'id' } }],
    });
    assert.equal(user.module, 'demo');
    assert.equal(user.file, 'sdl/a_types.graphql');
    assert.equal(user.line, 19);

    assert.deepEqual(node(build, 'type', 'Node').props, {
      type_kind: 'INTERFACE',
      builtin: false,
      resolved: true,
      description: 'Anything with an id.',
      field_count: 1,
      interfaces: [],
      possible_types: ['Named', 'Team', 'User'],
    });
    // A directive applied by `extend type` counts.
    assert.deepEqual(node(build, 'type', 'Team').props['directives'], ['key']);
    assert.deepEqual(node(build, 'type', 'SearchResult').props, { type_kind: 'UNION', builtin: false, resolved: true, possible_types: ['User', 'Team'] });
    assert.deepEqual(node(build, 'type', 'Role').props, { type_kind: 'ENUM', builtin: false, resolved: true, enum_values: ['ADMIN', 'MEMBER', 'GUEST'] });
    assert.deepEqual(node(build, 'type', 'UserFilter').props, { type_kind: 'INPUT_OBJECT', builtin: false, resolved: true, field_count: 3 });
    assert.deepEqual(node(build, 'type', 'Query').props, { type_kind: 'OBJECT', builtin: false, resolved: true, root_operation: 'query', field_count: 2, interfaces: [] });
    assert.equal(node(build, 'type', 'Mutation').props['root_operation'], 'mutation');
    const dt = node(build, 'type', 'DateTime');
    assert.equal(dt.file, 'sdl/b_more.graphql');
    assert.equal(dt.line, 13);
    assert.deepEqual(dt.props['directives'], ['specifiedBy']);
    const str = node(build, 'type', 'String');
    assert.equal(str.props['builtin'], true);
    assert.equal(str.props['type_kind'], 'SCALAR');
    assert.equal(str.file, undefined);
    // Float is not used by the schema but is always there.
    assert.equal(node(build, 'type', 'Float').props['builtin'], true);

    assert.deepEqual(node(build, 'field', 'User.login').props, {
      parent_type: 'User',
      parent_kind: 'OBJECT',
      type_name: 'String',
      type_signature: 'String',
      is_list: false,
      non_null: false,
      arguments: [],
      argument_names: [],
      deprecated: true,
      deprecation_reason: 'Use name.',
      description: 'Old login.',
      directives: ['deprecated'],
      applied_directives: [{ name: 'deprecated', args: { reason: 'Use name.' } }],
    });
    assert.deepEqual(node(build, 'field', 'User.friends').props, {
      parent_type: 'User',
      parent_kind: 'OBJECT',
      type_name: 'User',
      type_signature: '[User!]!',
      is_list: true,
      non_null: true,
      arguments: [
        { name: 'first', type: 'Int', default_value: '10' },
        { name: 'after', type: 'String' },
      ],
      argument_names: ['first', 'after'],
      deprecated: false,
    });
    const search = node(build, 'field', 'Query.search');
    assert.deepEqual(search.props['arguments'], [
      { name: 'term', type: 'String!' },
      { name: 'kinds', type: '[String!]', default_value: '["user"]' },
    ]);
    assert.equal(search.props['description'], 'Full-text search.');
    assert.equal(search.file, 'sdl/b_more.graphql');
    assert.equal(search.line, 4);
    const created = node(build, 'field', 'User.createdAt');
    assert.equal(created.file, 'sdl/b_more.graphql');
    assert.equal(created.line, 16);
    assert.equal(node(build, 'field', 'User.id').line, 20);

    assert.deepEqual(node(build, 'field', 'UserFilter.roles').props, {
      parent_type: 'UserFilter',
      parent_kind: 'INPUT_OBJECT',
      type_name: 'Role',
      type_signature: '[Role!]',
      is_list: true,
      non_null: false,
      arguments: [],
      argument_names: [],
      default_value: '[ADMIN, MEMBER]',
      deprecated: false,
    });
    assert.equal(node(build, 'field', 'UserFilter.limit').props['default_value'], '25');
    assert.equal(node(build, 'field', 'UserFilter.limit').props['non_null'], true);
    assert.equal(node(build, 'field', 'Named.name').props['parent_kind'], 'INTERFACE');
  });

  test('ids are derived from source, kind and qualified name', async () => {
    const { nodeId } = await import('../src/graph/ids.js');
    assert.equal(node(build, 'type', 'User').id, nodeId(ontology, 'demo', 'type', 'User'));
    assert.equal(node(build, 'field', 'User.friends').id, nodeId(ontology, 'demo', 'field', 'User.friends'));
    assert.equal(node(build, 'module', 'demo').id, nodeId(ontology, 'demo', 'module', 'demo'));
  });

  test('deterministic: two builds and two extractions give identical JSON', async () => {
    const again = await buildGraphqlSource(cfg({ schema: ['sdl'] }), ctx(FIXTURES));
    assert.equal(JSON.stringify(again), JSON.stringify(build));
    const loaded = await loadGraphqlSchema(cfg({ schema: ['sdl'] }), ctx(FIXTURES));
    const a = extractGraphql(loaded.schema, { ontology, source: 'demo', fileOf: loaded.fileOf });
    const b = extractGraphql(loaded.schema, { ontology, source: 'demo', fileOf: loaded.fileOf });
    assert.equal(JSON.stringify(a), JSON.stringify(b));
    assert.equal(JSON.stringify(a.nodes), JSON.stringify(build.nodes));
  });

  test('listing the files one by one equals listing the directory; content hash follows content', async () => {
    const files = await buildGraphqlSource(cfg({ schema: ['sdl/a_types.graphql', 'sdl/b_more.graphql'] }), ctx(FIXTURES));
    assert.equal(JSON.stringify(files.nodes), JSON.stringify(build.nodes));
    assert.equal(files.content_hash, build.content_hash);
    assert.equal(files.origin, 'sdl/a_types.graphql, sdl/b_more.graphql');
    // The same files under another base directory hash the same; a changed file or a renamed one does not.
    const base = path.join(tmp, 'hash');
    const dir = path.join(base, 'sdl');
    await mkdir(dir, { recursive: true });
    for (const f of await readdir(path.join(FIXTURES, 'sdl'))) await writeFile(path.join(dir, f), await readFile(path.join(FIXTURES, 'sdl', f)));
    const original = (await loadGraphqlSchema(cfg({ schema: ['sdl'] }), ctx(FIXTURES))).contentHash;
    const copy = await loadGraphqlSchema(cfg({ schema: ['sdl'] }), ctx(base));
    assert.equal(copy.contentHash, original);
    const moved = await loadGraphqlSchema(cfg({ schema: ['.'] }), ctx(dir));
    assert.notEqual(moved.contentHash, original);
    await writeFile(path.join(dir, 'b_more.graphql'), `${await readFile(path.join(dir, 'b_more.graphql'), 'utf8')}\nscalar Extra\n`);
    const changed = await loadGraphqlSchema(cfg({ schema: ['sdl'] }), ctx(base));
    assert.notEqual(changed.contentHash, original);
    // The source's hash covers the schema and how it is read: another flavor is another hash.
    const generic = await buildGraphqlSource(cfg({ schema: ['sdl'], flavor: 'generic' }), ctx(FIXTURES));
    assert.notEqual(generic.content_hash, build.content_hash);
  });

  test('introspection JSON of the same schema gives the same graph (without SDL-only directives and locations)', async () => {
    const sdl = (await readFile(path.join(FIXTURES, 'sdl/a_types.graphql'), 'utf8')) + (await readFile(path.join(FIXTURES, 'sdl/b_more.graphql'), 'utf8'));
    const intro = introspectionFromSchema(buildSchema(sdl));
    const file = path.join(tmp, 'demo.json');
    await writeFile(file, JSON.stringify({ data: intro }));
    const fromJson = await buildGraphqlSource(cfg({ schema: [file] }), ctx(tmp));
    assertConforms(fromJson);
    assert.deepEqual(fromJson.nodes.map(comparable), build.nodes.map(comparable));
    assert.deepEqual(fromJson.edges, build.edges);
    assert.equal(fromJson.nodes.find((n) => n.file != null), undefined);
    // `{__schema}` without the data wrapper hashes the same.
    const bare = path.join(tmp, 'demo-bare.json');
    await writeFile(bare, JSON.stringify(intro, null, 2));
    const fromBare = await loadGraphqlSchema(cfg({ schema: [bare] }), ctx(tmp));
    assert.equal(fromBare.contentHash, (await loadGraphqlSchema(cfg({ schema: [file] }), ctx(tmp))).contentHash);
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe('SDL that is not valid on its own still loads', () => {
  test('undefined types get placeholders (scalar, interface, object) and a warning', async () => {
    const dir = path.join(tmp, 'placeholders');
    await mkdir(dir);
    await writeFile(
      path.join(dir, 'schema.graphql'),
      'type Query @cached(ttl: 30) { a: Money b(f: MoneyFilter = {gt: 1}): Thing u: U }\ntype Thing implements Entity { id: ID }\nunion U = Thing | Other\n',
    );
    const build = await buildGraphqlSource(cfg({ schema: ['schema.graphql'] }), ctx(dir));
    assertConforms(build);
    assert.equal(build.warnings.length, 1);
    assert.match(build.warnings[0]!, /4 types are referenced but not defined/);
    assert.match(build.warnings[0]!, /scalars: Money, MoneyFilter; object types: Other; interfaces: Entity/);
    assert.equal(node(build, 'type', 'Money').props['type_kind'], 'SCALAR');
    assert.equal(node(build, 'type', 'Money').file, undefined);
    assert.equal(node(build, 'type', 'Entity').props['type_kind'], 'INTERFACE');
    assert.deepEqual(node(build, 'type', 'Entity').props['possible_types'], ['Thing']);
    assert.equal(node(build, 'type', 'Other').props['type_kind'], 'OBJECT');
    // Placeholders are explicit unresolved nodes; defined types are resolved.
    for (const name of ['Money', 'MoneyFilter', 'Other', 'Entity']) assert.equal(node(build, 'type', name).props['resolved'], false, name);
    for (const name of ['Query', 'Thing', 'U', 'ID']) assert.equal(node(build, 'type', name).props['resolved'], true, name);
    // The default is kept exactly as written even though its type is only a placeholder.
    assert.deepEqual(node(build, 'field', 'Query.b').props['arguments'], [{ name: 'f', type: 'MoneyFilter', default_value: '{gt: 1}' }]);
    // An undeclared directive is still recorded.
    assert.deepEqual(node(build, 'type', 'Query').props['applied_directives'], [{ name: 'cached', args: { ttl: 30 } }]);
    assert.ok(edgeTexts(build).includes('IMPLEMENTS Thing -> Entity'));
    assert.ok(edgeTexts(build).includes('UNION_MEMBER U -> Other'));
  });

  test('a type defined in two files is merged; a lone extension becomes the definition; schema is inferred', async () => {
    const dir = path.join(tmp, 'dupes');
    await mkdir(dir);
    await writeFile(path.join(dir, '1.graphql'), 'type Query { a: String stub: Int }\nextend type Ghost { g: Int }\ndirective @x on FIELD_DEFINITION\n');
    await writeFile(path.join(dir, '2.graphql'), '"The root." type Query { b: String stub: String }\ndirective @x(y: Int) on FIELD_DEFINITION\nscalar Query2\nenum Query2 { A }\n');
    const build = await buildGraphqlSource(cfg({ schema: ['.'] }), ctx(dir));
    assertConforms(build);
    const fields = build.nodes.filter((n) => n.kind === 'field' && n.qualified_name.startsWith('Query.')).map((n) => n.qualified_name);
    assert.deepEqual(fields, ['Query.a', 'Query.b', 'Query.stub']);
    assert.equal(node(build, 'field', 'Query.stub').props['type_name'], 'String');
    assert.equal(node(build, 'type', 'Query').file, '1.graphql');
    assert.equal(node(build, 'type', 'Query').props['root_operation'], 'query');
    assert.equal(node(build, 'type', 'Query').props['description'], 'The root.');
    assert.equal(node(build, 'type', 'Ghost').props['field_count'], 1);
    assert.equal(node(build, 'type', 'Query2').props['type_kind'], 'SCALAR');
    const w = build.warnings.join('\n');
    assert.match(w, /type Query is defined 2 times \(1\.graphql:1, 2\.graphql:1\); merged/);
    assert.match(w, /directive @x is declared at 1\.graphql:3 and again at 2\.graphql:2; kept the first/);
    assert.match(w, /type Query2 is defined as a scalar at 2\.graphql:3 and again as an enum at 2\.graphql:4/);
  });

  test('an empty file is skipped with a warning', async () => {
    const dir = path.join(tmp, 'empty-file');
    await mkdir(dir);
    await writeFile(path.join(dir, 'a.graphql'), 'type Query { a: Int }\n');
    await writeFile(path.join(dir, 'b.graphql'), '# nothing here yet\n');
    const build = await buildGraphqlSource(cfg({ schema: ['.'] }), ctx(dir));
    assert.deepEqual(build.warnings, ['b.graphql contains no definitions']);
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe('load errors teach', () => {
  test('neither schema nor endpoint', async () => {
    await rejectsWith(loadGraphqlSchema(cfg({}), ctx(tmp)), 'NO_SCHEMA_INPUT', 'schema', 'endpoint', 'sextant.yaml');
  });

  test('file not found names the resolved path', async () => {
    await rejectsWith(loadGraphqlSchema(cfg({ schema: ['missing/schema.graphql'] }), ctx(tmp)), 'FILE_NOT_FOUND', path.join(tmp, 'missing/schema.graphql'), 'missing/schema.graphql');
  });

  test('directory without schema files', async () => {
    const dir = path.join(tmp, 'nothing');
    await mkdir(dir);
    await writeFile(path.join(dir, 'README.md'), '# hi\n');
    await rejectsWith(loadGraphqlSchema(cfg({ schema: ['nothing'] }), ctx(tmp)), 'NO_SCHEMA_FILES', dir, '.graphql');
  });

  test('unsupported file extension', async () => {
    const file = path.join(tmp, 'schema.txt');
    await writeFile(file, 'type Query { a: Int }');
    await rejectsWith(loadGraphqlSchema(cfg({ schema: ['schema.txt'] }), ctx(tmp)), 'UNSUPPORTED_FILE', '.graphql', '.json');
  });

  test('SDL syntax error gives file, line and column', async () => {
    const dir = path.join(tmp, 'syntax');
    await mkdir(dir);
    await writeFile(path.join(dir, 'ok.graphql'), 'type Query { a: Int }\n');
    await writeFile(path.join(dir, 'bad.graphql'), 'type A {\n  b: Int\n  c(: String\n}\n');
    const err = await rejectsWith(loadGraphqlSchema(cfg({ schema: ['syntax'] }), ctx(tmp)), 'SDL_SYNTAX_ERROR', 'syntax/bad.graphql:3:5', 'Expected Name');
    assert.match(err.message, /3 \|\s+c\(: String/);
  });

  test('invalid JSON', async () => {
    await writeFile(path.join(tmp, 'broken.json'), '{"__schema": ');
    await rejectsWith(loadGraphqlSchema(cfg({ schema: ['broken.json'] }), ctx(tmp)), 'INVALID_JSON', 'broken.json', 'not valid JSON');
  });

  test('JSON that is not introspection', async () => {
    await writeFile(path.join(tmp, 'package-like.json'), '{"name": "x", "version": "1.0.0"}');
    await rejectsWith(loadGraphqlSchema(cfg({ schema: ['package-like.json'] }), ctx(tmp)), 'NOT_INTROSPECTION', '{"data": {"__schema"', '"name"');
    await writeFile(path.join(tmp, 'no-types.json'), '{"data": {"__schema": {"queryType": {"name": "Query"}}}}');
    await rejectsWith(loadGraphqlSchema(cfg({ schema: ['no-types.json'] }), ctx(tmp)), 'NOT_INTROSPECTION', 'no "types" list');
    await writeFile(path.join(tmp, 'partial.json'), '{"__schema": {"queryType": {"name": "Query"}, "types": [{"kind": "OBJECT", "name": "Query"}]}}');
    await rejectsWith(loadGraphqlSchema(cfg({ schema: ['partial.json'] }), ctx(tmp)), 'NOT_INTROSPECTION', 'incomplete or malformed');
  });

  test('a stray JSON file in a directory of SDL is skipped with a warning', async () => {
    const dir = path.join(tmp, 'stray');
    await mkdir(dir);
    await writeFile(path.join(dir, 'schema.graphql'), 'type Query { a: Int }\n');
    await writeFile(path.join(dir, 'codegen.json'), '{"generates": {}}');
    const loaded = await loadGraphqlSchema(cfg({ schema: ['stray'] }), ctx(tmp));
    assert.deepEqual(loaded.warnings, ['skipped stray/codegen.json: a JSON file that is not a GraphQL introspection result']);
  });

  test('introspection JSON mixed with SDL', async () => {
    const dir = path.join(tmp, 'mixed');
    await mkdir(dir);
    await writeFile(path.join(dir, 'a.graphql'), 'type Query { a: Int }\n');
    await writeFile(path.join(dir, 'b.json'), JSON.stringify(introspectionFromSchema(buildSchema('type Query { b: Int }'))));
    await rejectsWith(loadGraphqlSchema(cfg({ schema: ['mixed'] }), ctx(tmp)), 'MIXED_SCHEMA_FORMATS', 'separate sources');
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe("GitHub's public schema (@octokit/graphql-schema)", () => {
  let sdl: SourceBuild;
  let json: SourceBuild;
  before(async () => {
    sdl = await buildGraphqlSource(cfg({ name: 'github', schema: ['schema.graphql'] }), ctx(OCTOKIT));
    json = await buildGraphqlSource(cfg({ name: 'github', schema: ['schema.json'] }), ctx(OCTOKIT));
  });

  for (const which of ['sdl', 'json'] as const) {
    test(`${which}: conforms, is large, and has the well-known shapes`, () => {
      const build = which === 'sdl' ? sdl : json;
      assert.deepEqual(build.warnings, []);
      assertConforms(build);
      const types = build.nodes.filter((n) => n.kind === 'type');
      assert.ok(types.length > 1000, `${types.length} types`);
      assert.ok(build.nodes.filter((n) => n.kind === 'field').length > 5000);
      const edges = edgeTexts(build);
      assert.ok(edges.includes('IMPLEMENTS PullRequest -> Node'));
      assert.ok(edges.includes('ROOT_TYPE github -> Query'));
      assert.ok(edges.includes('ROOT_TYPE github -> Mutation'));
      assert.ok(edges.includes('FIELD_TYPE PullRequest.reviews -> PullRequestReviewConnection'));
      assert.ok(edges.includes('ARGUMENT_TYPE PullRequest.reviews -> PullRequestReviewState [states]'));
      assert.ok(edges.includes('UNION_MEMBER SearchResultItem -> Issue'));
      const reviews = node(build, 'field', 'PullRequest.reviews');
      for (const a of ['after', 'before', 'first', 'last', 'states', 'author']) assert.ok((reviews.props['argument_names'] as string[]).includes(a), a);
      const pr = node(build, 'type', 'PullRequest');
      assert.ok((pr.props['interfaces'] as string[]).includes('Node'));
      assert.ok((node(build, 'type', 'Node').props['possible_types'] as string[]).includes('PullRequest'));
      assert.equal(node(build, 'type', 'Query').props['root_operation'], 'query');
      if (which === 'sdl') {
        assert.equal(pr.file, 'schema.graphql');
        assert.ok((pr.line ?? 0) > 1);
        assert.deepEqual(node(build, 'field', 'AcceptTopicSuggestionPayload.topic').props['directives'], ['deprecated']);
      }
    });
  }

  test('the package ships two snapshots that mostly agree', () => {
    // schema.graphql and schema.json are not generated from the same schema version, so compare by overlap.
    const a = new Set(sdl.nodes.map((n) => n.id));
    const b = new Set(json.nodes.map((n) => n.id));
    const common = [...a].filter((id) => b.has(id)).length;
    assert.ok(common / Math.max(a.size, b.size) > 0.95, `${common} of ${a.size}/${b.size}`);
  });

  test('SDL and its own introspection JSON give the same nodes and edges', async () => {
    const loaded = await loadGraphqlSchema(cfg({ name: 'github', schema: ['schema.graphql'] }), ctx(OCTOKIT));
    const file = path.join(tmp, 'github-roundtrip.json');
    await writeFile(file, JSON.stringify({ data: introspectionFromSchema(loaded.schema) }));
    const round = await buildGraphqlSource(cfg({ name: 'github', schema: [file] }), ctx(tmp));
    assert.deepEqual(round.warnings, []);
    assert.deepEqual(round.nodes.map(comparable), sdl.nodes.map(comparable));
    assert.deepEqual(round.edges, sdl.edges);
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe('Hugr golden schemas', async () => {
  const golden = (await readdir(path.join(HUGR, 'golden'))).filter((f) => f.endsWith('.graphql')).sort();
  test('fixtures are present', () => {
    assert.ok(golden.length >= 8, golden.join(', '));
  });
  for (const file of golden) {
    test(`${file} alone and with base/`, async () => {
      const alone = await buildGraphqlSource(cfg({ name: 'hugr', schema: [`golden/${file}`] }), ctx(HUGR));
      assertConforms(alone);
      assert.ok(alone.nodes.length > 20);
      assert.ok(alone.warnings.some((w) => w.includes('referenced but not defined')), `${file}: placeholders expected`);
      const combined = await buildGraphqlSource(cfg({ name: 'hugr', schema: ['base', `golden/${file}`] }), ctx(HUGR));
      assertConforms(combined);
      assert.ok(combined.nodes.length > alone.nodes.length);
      assert.equal(combined.origin, `base, golden/${file}`);
      assert.ok(combined.warnings.some((w) => w.includes('__Field') && w.includes('__Type')), 'extensions of introspection types are reported');
      // base/ declares the schema roots, so every combination has a query root.
      assert.ok(edgeTexts(combined).includes('ROOT_TYPE hugr -> Query'));
      // base/ gives _Module fields of type __Type: the introspection types it reaches are included as built-ins.
      const introspection = combined.nodes.filter((n) => n.kind === 'type' && n.name.startsWith('__'));
      assert.ok(introspection.length >= 5 && introspection.every((n) => n.props['builtin'] === true), introspection.map((n) => n.name).join(','));
      assert.ok(edgeTexts(combined).includes('FIELD_TYPE _Module.mutationType -> __Type'));
      // …and only when something uses them.
      if (!(await readFile(path.join(HUGR, 'golden', file), 'utf8')).includes('__')) assert.ok(!alone.nodes.some((n) => n.name.startsWith('__')));
      // Data objects keep their generated directives.
      const objects = combined.nodes.filter((n) => n.kind === 'type' && (n.props['directives'] as string[] | undefined)?.some((d) => d === 'table' || d === 'view'));
      assert.ok(objects.length > 0 || file === 'structs.graphql' || file === 'joinview.graphql', `${file}: no @table/@view types`);
    });
  }

  test('harness: generated roots merge with base stubs; directive args are recorded', async () => {
    const build = await buildGraphqlSource(cfg({ name: 'hugr', schema: ['base', 'golden/harness.graphql'] }), ctx(HUGR));
    const w = build.warnings.join('\n');
    assert.match(w, /type Query is defined 2 times \(base\/system_types\.graphql:\d+, golden\/harness\.graphql:\d+\)/);
    const query = node(build, 'type', 'Query');
    assert.equal(query.file, 'base/system_types.graphql');
    assert.ok((query.props['field_count'] as number) > 10);
    const field = build.nodes.find((n) => n.kind === 'field' && n.file === 'golden/harness.graphql' && (n.props['directives'] as string[] | undefined)?.includes('pk'));
    assert.ok(field, 'a @pk field from the golden file');
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe('live endpoint', () => {
  const SECRET = 's3cr3t-token-value-42';
  let server: http.Server;
  let base: string;
  let schema: GraphQLSchema;
  let sdlBuild: SourceBuild;
  const requests: { path: string; headers: http.IncomingHttpHeaders; query: string }[] = [];

  before(async () => {
    const text = (await readFile(path.join(FIXTURES, 'sdl/a_types.graphql'), 'utf8')) + (await readFile(path.join(FIXTURES, 'sdl/b_more.graphql'), 'utf8'));
    schema = buildSchema(text);
    sdlBuild = await buildGraphqlSource(cfg({ schema: ['sdl'] }), ctx(FIXTURES));
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://localhost');
        const body = Buffer.concat(chunks).toString('utf8');
        const query = body ? (JSON.parse(body) as { query: string }).query : '';
        requests.push({ path: url.pathname, headers: req.headers, query });
        const send = (status: number, payload: unknown, type = 'application/json'): void => {
          res.writeHead(status, { 'content-type': type });
          res.end(typeof payload === 'string' ? payload : JSON.stringify(payload));
        };
        switch (url.pathname) {
          case '/graphql':
            void graphql({ schema, source: query }).then((result) => send(200, result));
            return;
          case '/old':
            // An older server that does not know the newer introspection fields.
            if (query.includes('specifiedByURL') || query.includes('isRepeatable')) {
              send(400, { errors: [{ message: 'Cannot query field "specifiedByURL" on type "__Type".' }] });
              return;
            }
            void graphql({ schema, source: query }).then((result) => send(200, result));
            return;
          case '/closed':
            send(200, { errors: [{ message: 'GraphQL introspection is not allowed' }] });
            return;
          case '/slow':
            return; // never answers
          case '/fail':
            send(500, `internal error while handling token ${String(req.headers['authorization'])} ${'x'.repeat(400)}`, 'text/plain');
            return;
          case '/html':
            send(200, '<html><body>Login</body></html>', 'text/html');
            return;
          case '/moved':
            res.writeHead(301, { location: 'https://elsewhere.example/graphql?key=abc' });
            res.end();
            return;
          case '/data':
            send(200, { data: { something: 1 } });
            return;
          default:
            send(404, 'not found', 'text/plain');
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const headers = { authorization: `Bearer ${SECRET}`, 'x-hugr-secret-key': SECRET };
  const noSecret = (text: string): void => {
    assert.ok(!text.includes(SECRET), `secret leaked: ${text}`);
  };

  test('introspects with the configured headers and gives the same graph as the SDL', async () => {
    requests.length = 0;
    const progress: string[] = [];
    const build = await buildGraphqlSource(cfg({ endpoint: `${base}/graphql?api_key=${SECRET}`, headers }), ctx(tmp, progress));
    // First the probe for Hugr's introspection extensions (this server has none), then the introspection.
    assert.equal(requests.length, 2);
    assert.match(requests[0]!.query, /__type\(name: "__Type"\)/);
    assert.equal(requests[0]!.headers['x-hugr-secret-key'], SECRET);
    const req = requests[1]!;
    assert.ok(!req.query.includes('hugr_type'));
    assert.equal(req.headers['authorization'], `Bearer ${SECRET}`);
    assert.equal(req.headers['x-hugr-secret-key'], SECRET);
    assert.equal(req.headers['content-type'], 'application/json');
    assert.ok(req.query.includes('specifiedByURL') && req.query.includes('isRepeatable') && req.query.includes('includeDeprecated: true'));
    assert.equal(build.origin, `${base}/graphql`);
    noSecret(JSON.stringify(build.warnings));
    assert.deepEqual(build.warnings, []);
    assert.deepEqual(progress.slice(0, 2), ['loading schema', 'extracting']);
    assertConforms(build);
    assert.deepEqual(build.nodes.map(comparable), sdlBuild.nodes.map(comparable));
    assert.deepEqual(build.edges, sdlBuild.edges);
    assert.match(build.content_hash, /^[0-9a-f]{64}$/);
    const again = await buildGraphqlSource(cfg({ endpoint: `${base}/graphql`, headers }), ctx(tmp));
    assert.equal(again.content_hash, build.content_hash);
    assert.equal(JSON.stringify(again.nodes), JSON.stringify(build.nodes));
  });

  test('user info in the URL becomes basic auth and never shows in origin', async () => {
    requests.length = 0;
    const loaded = await loadGraphqlSchema(cfg({ endpoint: `http://bob:${SECRET}@127.0.0.1:${new URL(base).port}/graphql` }), ctx(tmp));
    assert.equal(loaded.origin, `${base}/graphql`);
    assert.equal(requests[0]!.headers['authorization'], `Basic ${Buffer.from(`bob:${SECRET}`).toString('base64')}`);
  });

  test('drops the parts of the introspection query a server rejects, down to the plain one', async () => {
    requests.length = 0;
    const build = await buildGraphqlSource(cfg({ endpoint: `${base}/old`, headers }), ctx(tmp));
    // probe; everything; without specifiedByURL (the field the error names); the plain query.
    assert.equal(requests.length, 4);
    assert.ok(requests[1]!.query.includes('specifiedByURL') && !requests[2]!.query.includes('specifiedByURL') && requests[2]!.query.includes('isRepeatable'));
    assert.ok(!requests[3]!.query.includes('isRepeatable'));
    assert.equal(requests[3]!.headers['x-hugr-secret-key'], SECRET);
    assert.ok(build.warnings.some((w) => w.includes('rejected part of the introspection query') && w.includes('specifiedBy URLs') && w.includes('repeatable directives')));
    assert.deepEqual(build.edges, sdlBuild.edges);
  });

  test('GraphQL errors (introspection disabled)', async () => {
    requests.length = 0;
    const err = await rejectsWith(loadGraphqlSchema(cfg({ endpoint: `${base}/closed`, headers }), ctx(tmp)), 'GRAPHQL_ERRORS', 'introspection is not allowed', 'set `schema`');
    assert.equal(requests.length, 3);
    noSecret(err.message);
  });

  test('timeout names the value and how to raise it', async () => {
    const err = await rejectsWith(loadGraphqlSchema(cfg({ name: 'slowapi', endpoint: `${base}/slow?token=${SECRET}`, headers, timeout_ms: 150 }), ctx(tmp)), 'TIMEOUT', '150 ms', 'timeout_ms', 'sextant.yaml', '"slowapi"');
    noSecret(err.message);
  });

  test('HTTP 500 gives status and the start of the body, with secrets redacted', async () => {
    const err = await rejectsWith(loadGraphqlSchema(cfg({ endpoint: `${base}/fail`, headers }), ctx(tmp)), 'HTTP_ERROR', 'HTTP 500', 'internal error while handling token', '[redacted]');
    noSecret(err.message);
    assert.ok(!err.message.includes('x'.repeat(300)), 'body is cut to 200 characters');
  });

  test('a non-JSON answer, an answer without __schema, a redirect, 404', async () => {
    await rejectsWith(loadGraphqlSchema(cfg({ endpoint: `${base}/html`, headers }), ctx(tmp)), 'BAD_RESPONSE', 'not JSON', '<html>');
    await rejectsWith(loadGraphqlSchema(cfg({ endpoint: `${base}/data`, headers }), ctx(tmp)), 'NOT_INTROSPECTION', '"data"');
    const moved = await rejectsWith(loadGraphqlSchema(cfg({ endpoint: `${base}/moved`, headers }), ctx(tmp)), 'HTTP_ERROR', 'HTTP 301', 'https://elsewhere.example/graphql', 'final URL');
    assert.ok(!moved.message.includes('key=abc'));
    await rejectsWith(loadGraphqlSchema(cfg({ endpoint: `${base}/nope`, headers }), ctx(tmp)), 'HTTP_ERROR', 'HTTP 404', 'endpoint path');
  });

  test('network error and invalid URL', async () => {
    const probe = http.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const err = await rejectsWith(loadGraphqlSchema(cfg({ endpoint: `http://127.0.0.1:${port}/graphql?t=${SECRET}`, headers }), ctx(tmp)), 'NETWORK_ERROR', `http://127.0.0.1:${port}/graphql`, 'ECONNREFUSED');
    noSecret(err.message);
    await rejectsWith(loadGraphqlSchema(cfg({ endpoint: 'not a url', headers }), ctx(tmp)), 'INVALID_ENDPOINT', 'https://');
    await rejectsWith(loadGraphqlSchema(cfg({ endpoint: 'ftp://example.com/graphql', headers }), ctx(tmp)), 'INVALID_ENDPOINT', 'http:');
  });

  test('schema files win over the endpoint for indexing', async () => {
    requests.length = 0;
    const loaded = await loadGraphqlSchema(cfg({ schema: ['sdl'], endpoint: `${base}/slow` }), ctx(FIXTURES));
    assert.equal(loaded.origin, 'sdl');
    assert.equal(requests.length, 0);
  });
});
