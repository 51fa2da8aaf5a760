/**
 * The test server as a Hugr v0.3.0–v0.3.41 server: no logical-model meta queries (`_catalog`, `_dataObject`, …);
 * instead the `core` module with `data_sources` and the `core.catalog` views (`schema_catalogs`, `data_objects`
 * with their `queries`, `fields`, `modules`, `module_intro`), and `function { core { describe_data_source_schema
 * (name) } }`. Types, field names and values are the real v0.3.41 server's (its introspection and answers: missing
 * strings are "", `_system` is a catalog of its own); the rows are computed from the platform's generated SDL and
 * served by the ordinary data resolver, so filters, ordering and paging work as on any data object. A data
 * source's own SDL is reconstructed from the generated one: unprefixed names (@original_name), `@table`/`@view`,
 * `@pk`, `@field_references`/`@references` as they were declared, extension fields as `extend type`.
 */
import { getNamedType, isObjectType, visit, type DefinitionNode, type GraphQLField, type GraphQLObjectType, type GraphQLSchema } from 'graphql';
import { directivesOf } from '../helpers/hugr.js';
import type { Row } from './data.js';
import type { DataSourceInfo } from './meta.js';

export type HugrGeneration = 'v0.3.42' | 'v0.3' | 'v0.1';

type Json = Record<string, unknown>;
type Directive = { name: string; args: Record<string, unknown> };
export type Resolvers = Record<string, (args: Json) => unknown>;

/** The logical-model meta queries only v0.3.42+ has on Query. */
const META_QUERIES = new Set(['_catalog', '_dataObject', '_dataSource', '_dataSources', '_function', '_module', '_search', '_types']);

/** The platform's SDL without the meta queries an older server does not have. */
export function withoutMetaQueries(definitions: readonly DefinitionNode[]): DefinitionNode[] {
  return definitions.map((def) =>
    visit(def, {
      ObjectTypeDefinition: (node) => (node.name.value === 'Query' ? { ...node, fields: node.fields?.filter((f) => !META_QUERIES.has(f.name.value)) } : undefined),
      ObjectTypeExtension: (node) => (node.name.value === 'Query' ? { ...node, fields: node.fields?.filter((f) => !META_QUERIES.has(f.name.value)) } : undefined),
    }),
  );
}

// ------------------------------------------------------------------------------------------- core module SDL

interface CoreTable {
  type: string;
  original: string;
  module: 'core' | 'core.catalog';
  kind: 'table' | 'view';
  pk: string[];
  columns: [string, string][];
}

/** The core tables and catalog views, with the columns v0.3.41's introspection lists (relations aside). */
const CORE_TABLES: CoreTable[] = [
  {
    type: 'core_data_sources',
    original: 'data_sources',
    module: 'core',
    kind: 'table',
    pk: ['name'],
    columns: [['name', 'String!'], ['type', 'String!'], ['prefix', 'String!'], ['as_module', 'Boolean!'], ['description', 'String'], ['path', 'String!'], ['disabled', 'Boolean'], ['self_defined', 'Boolean'], ['read_only', 'Boolean']],
  },
  {
    type: 'core_schema_catalogs',
    original: 'schema_catalogs',
    module: 'core.catalog',
    kind: 'view',
    pk: ['name'],
    columns: [['name', 'String!'], ['version', 'String'], ['description', 'String'], ['long_description', 'String'], ['type', 'String'], ['prefix', 'String'], ['as_module', 'Boolean'], ['read_only', 'Boolean'], ['disabled', 'Boolean'], ['suspended', 'Boolean'], ['is_summarized', 'Boolean'], ['vec', 'Vector']],
  },
  { type: 'core_data_objects', original: 'data_objects', module: 'core.catalog', kind: 'view', pk: ['name'], columns: [['name', 'String!'], ['filter_type_name', 'String'], ['args_type_name', 'String']] },
  { type: 'core_data_object_queries', original: 'data_object_queries', module: 'core.catalog', kind: 'view', pk: ['name', 'object_name'], columns: [['name', 'String!'], ['object_name', 'String!'], ['query_root', 'String!'], ['query_type', 'String!']] },
  {
    type: 'core_fields',
    original: 'fields',
    module: 'core.catalog',
    kind: 'view',
    pk: ['type_name', 'name'],
    columns: [['type_name', 'String!'], ['name', 'String!'], ['description', 'String!'], ['long_description', 'String!'], ['field_type', 'String!'], ['field_type_name', 'String!'], ['hugr_type', 'String!'], ['catalog', 'String'], ['dependency_catalog', 'String'], ['is_pk', 'Boolean!'], ['is_summarized', 'Boolean!'], ['ordinal', 'Int!'], ['vec', 'Vector']],
  },
  {
    type: 'core_modules',
    original: 'modules',
    module: 'core.catalog',
    kind: 'view',
    pk: ['name'],
    columns: [['name', 'String!'], ['description', 'String!'], ['long_description', 'String!'], ['query_root', 'String'], ['mutation_root', 'String'], ['function_root', 'String'], ['mut_function_root', 'String'], ['subscription_root', 'String'], ['is_summarized', 'Boolean!'], ['vec', 'Vector']],
  },
  { type: 'core_module_intro', original: 'module_intro', module: 'core.catalog', kind: 'view', pk: [], columns: [['module', 'String!'], ['type_type', 'String!'], ['type_name', 'String!'], ['field_name', 'String!'], ['field_description', 'String!'], ['hugr_type', 'String!'], ['catalog', 'String']] },
];

const FILTER_OF: Record<string, string> = { String: 'StringFilter', Boolean: 'BooleanFilter', Int: 'IntFilter', Vector: 'VectorFilter' };
const LIST_ARGS = 'filter: %F, order_by: [OrderByField], limit: Int = 2000, offset: Int = 0, distinct_on: [String]';
const CORE_CATALOG = '@catalog(name: "core", engine: "duckdb")';

function coreTableSdl(t: CoreTable): string {
  const body = t.columns.map(([n, ty]) => `  ${n}: ${ty}${t.pk.includes(n) ? ' @pk' : ''}`);
  let refs = '';
  if (t.type === 'core_data_objects') body.push(`  queries(${LIST_ARGS.replace('%F', 'core_data_object_queries_filter')}, inner: Boolean = false, nested_order_by: [OrderByField], nested_limit: Int, nested_offset: Int): [core_data_object_queries] ${CORE_CATALOG} @references_query(name: "data_object_queries_object_ref", references_name: "core_data_object_queries", is_m2m: false, m2m_name: "")`);
  if (t.type === 'core_data_object_queries') {
    body.push(`  data_object(inner: Boolean): core_data_objects ${CORE_CATALOG} @references_query(name: "data_object_queries_object_ref", references_name: "core_data_objects", is_m2m: false, m2m_name: "")`);
    refs = ' @references(name: "data_object_queries_object_ref", references_name: "core_data_objects", source_fields: ["object_name"], references_fields: ["name"], query: "data_object", references_query: "queries", is_m2m: false, m2m_name: "")';
  }
  const filter = `${t.type}_filter`;
  const dirs = `@${t.kind}(name: "${t.kind === 'view' ? `_schema_${t.original}` : t.original}") ${CORE_CATALOG} @module(name: "${t.module}") @original_name(name: "${t.original}") @filter_input(name: "${filter}") @query(name: "${t.original}", type: SELECT)${refs}`;
  const filterFields = t.columns.map(([n, ty]) => `  ${n}: ${FILTER_OF[ty.replace('!', '')]}`);
  return [
    `type ${t.type} ${dirs} {\n${body.join('\n')}\n}`,
    `input ${filter} @filter_input(name: "${t.type}") {\n  _and: [${filter}]\n  _or: [${filter}]\n  _not: ${filter}\n${filterFields.join('\n')}\n}`,
  ].join('\n');
}

function selectField(t: CoreTable): string {
  return `  ${t.original}(${LIST_ARGS.replace('%F', `${t.type}_filter`)}): [${t.type}] ${CORE_CATALOG} @query(name: "${t.original}", type: SELECT)`;
}

/** What a v0.3.0–v0.3.41 server adds to a platform's schema: the core module and its catalog views. */
export function coreCatalogSdl(): string {
  const inModule = (m: string) => CORE_TABLES.filter((t) => t.module === m && t.type !== 'core_data_object_queries');
  return [
    'extend type Query { core: _module_core_query }',
    'extend type Function { core: _module_core_function }',
    `type _module_core_query @module_root(name: "core", type: QUERY) {\n${inModule('core').map(selectField).join('\n')}\n  catalog: _module_core_catalog_query\n}`,
    `type _module_core_catalog_query @module_root(name: "core.catalog", type: QUERY) {\n${inModule('core.catalog').map(selectField).join('\n')}\n  data_object_queries(${LIST_ARGS.replace('%F', 'core_data_object_queries_filter')}): [core_data_object_queries] ${CORE_CATALOG} @query(name: "data_object_queries", type: SELECT)\n}`,
    'type _module_core_function @module_root(name: "core", type: FUNCTION) {\n  describe_data_source_schema(name: String!, self: Boolean, log: Boolean): String @function(name: "describe_data_source_schema")\n}',
    ...CORE_TABLES.map(coreTableSdl),
  ].join('\n\n');
}

// ------------------------------------------------------------------------------------------- the platform, read back

function dirs(x: Parameters<typeof directivesOf>[0]): Directive[] {
  return directivesOf(x);
}
export function dirOf(x: Parameters<typeof directivesOf>[0], name: string): Directive | undefined {
  return dirs(x).find((d) => d.name === name);
}
export function argString(d: Directive | undefined, arg: string): string | undefined {
  const v = d?.args[arg];
  return typeof v === 'string' ? v : undefined;
}
export function isListField(f: GraphQLField<unknown, unknown>): boolean {
  return String(f.type).replace(/!$/, '').startsWith('[');
}

/** The data objects of a schema (types with @table or @view), by name. */
export function dataObjectsOf(schema: GraphQLSchema): GraphQLObjectType[] {
  return Object.values(schema.getTypeMap())
    .filter((t): t is GraphQLObjectType => isObjectType(t) && !!(dirOf(t, 'table') ?? dirOf(t, 'view')))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
}

export function catalogOf(o: GraphQLObjectType): string | undefined {
  return argString(dirOf(o, 'catalog'), 'name');
}

export function moduleOf(o: GraphQLObjectType): string {
  return argString(dirOf(o, 'module'), 'name') ?? '';
}

/** Module roots: '' for the platform roots, else their @module_root name, with the root kind. */
export function moduleRoots(schema: GraphQLSchema): { module: string; kind: 'QUERY' | 'MUTATION' | 'FUNCTION' | 'MUT_FUNCTION'; type: GraphQLObjectType }[] {
  const out: { module: string; kind: 'QUERY' | 'MUTATION' | 'FUNCTION' | 'MUT_FUNCTION'; type: GraphQLObjectType }[] = [];
  const roots: Record<string, 'QUERY' | 'MUTATION' | 'FUNCTION' | 'MUT_FUNCTION'> = { Query: 'QUERY', Mutation: 'MUTATION', Function: 'FUNCTION', MutationFunction: 'MUT_FUNCTION' };
  for (const t of Object.values(schema.getTypeMap())) {
    if (!isObjectType(t)) continue;
    if (roots[t.name]) out.push({ module: '', kind: roots[t.name]!, type: t });
    const d = dirOf(t, 'module_root');
    if (d && typeof d.args['name'] === 'string' && typeof d.args['type'] === 'string') out.push({ module: d.args['name'], kind: d.args['type'] as 'QUERY', type: t });
  }
  return out.sort((a, b) => (a.type.name < b.type.name ? -1 : 1));
}

/** The object a generated query of a module root reads (select, by key, aggregation, bucket aggregation). */
function queryTarget(hugrType: string, returnType: string): string {
  if (hugrType === 'aggregate') return returnType.replace(/^_/, '').replace(/_aggregation$/, '');
  if (hugrType === 'bucket_agg') return returnType.replace(/^_/, '').replace(/_aggregation_bucket$/, '');
  return returnType;
}

const QUERY_KINDS = new Set(['select', 'select_one', 'aggregate', 'bucket_agg']);
const TYPE_TYPE: Record<string, string> = { QUERY: 'queries', MUTATION: 'mutation', FUNCTION: 'function', MUT_FUNCTION: 'mut_function' };

/** The rows of the core tables and catalog views for a platform, as v0.3.41 answers them. */
export function coreCatalogRows(schema: GraphQLSchema, hugrType: (type: string, field: string) => string | undefined, sources: readonly DataSourceInfo[]): Record<string, Row[]> {
  const objects = dataObjectsOf(schema);
  const roots = moduleRoots(schema);
  const objectNames = new Set(objects.map((o) => o.name));

  const queries: Row[] = [];
  for (const r of roots.filter((x) => x.kind === 'QUERY')) {
    for (const f of Object.values(r.type.getFields())) {
      const h = hugrType(r.type.name, f.name);
      if (!h || !QUERY_KINDS.has(h)) continue;
      const target = queryTarget(h, getNamedType(f.type).name);
      if (objectNames.has(target)) queries.push({ name: f.name, object_name: target, query_root: r.type.name, query_type: h });
    }
  }
  const dataObjects: Row[] = objects.map((o) => ({
    name: o.name,
    filter_type_name: argString(dirOf(o, 'filter_input'), 'name') ?? null,
    args_type_name: argString(dirOf(o, 'args'), 'name') ?? null,
    queries: queries.filter((q) => q['object_name'] === o.name),
  }));
  const fields: Row[] = objects.flatMap((o) =>
    Object.values(o.getFields()).map((f, ordinal) => ({
      type_name: o.name,
      name: f.name,
      description: f.description ?? '',
      long_description: '',
      field_type: String(f.type),
      field_type_name: getNamedType(f.type).name,
      hugr_type: hugrType(o.name, f.name) ?? '',
      catalog: argString(dirOf(f, 'catalog'), 'name') ?? catalogOf(o) ?? null,
      dependency_catalog: argString(dirOf(f, 'dependency'), 'name') ?? null,
      is_pk: !!dirOf(f, 'pk'),
      is_summarized: false,
      ordinal,
      vec: null,
    })),
  );
  const catalogRow = (name: string, type: string | null, prefix: string, asModule: boolean, readOnly: boolean, description: string): Row => ({
    name,
    version: type ? `${name}-v1` : '',
    description,
    long_description: '',
    type,
    prefix,
    as_module: asModule,
    read_only: readOnly,
    disabled: false,
    suspended: false,
    is_summarized: false,
    vec: null,
  });
  const schemaCatalogs: Row[] = [
    ...sources.map((s) => catalogRow(s.name, s.engine, s.prefix ?? '', s.asModule, s.readOnly, s.description ?? '')),
    catalogRow('_system', null, '', false, false, ''),
    catalogRow('core', 'duckdb', 'core', true, false, ''),
  ];
  const dataSources: Row[] = sources.map((s) => ({ name: s.name, type: s.engine, prefix: s.prefix ?? '', as_module: s.asModule, description: s.description ?? null, path: `/data/${s.name}.duckdb`, disabled: false, self_defined: false, read_only: s.readOnly }));

  const modules = new Map<string, Row>();
  const intro: Row[] = [];
  for (const r of roots) {
    const m = modules.get(r.module) ?? { name: r.module, description: '', long_description: '', query_root: null, mutation_root: null, function_root: null, mut_function_root: null, subscription_root: null, is_summarized: false, vec: null };
    m[{ QUERY: 'query_root', MUTATION: 'mutation_root', FUNCTION: 'function_root', MUT_FUNCTION: 'mut_function_root' }[r.kind]] = r.type.name;
    modules.set(r.module, m);
    for (const f of Object.values(r.type.getFields())) {
      const h = hugrType(r.type.name, f.name) ?? '';
      if (h === 'submodule' || f.name === 'function') continue;
      intro.push({ module: r.module, type_type: TYPE_TYPE[r.kind]!, type_name: r.type.name, field_name: f.name, field_description: f.description ?? '', hugr_type: h, catalog: argString(dirOf(f, 'catalog'), 'name') ?? null });
    }
  }
  return {
    core_data_sources: dataSources,
    core_schema_catalogs: schemaCatalogs,
    core_data_objects: dataObjects,
    core_data_object_queries: queries,
    core_fields: fields,
    core_modules: [...modules.values()].sort((a, b) => ((a['name'] as string) < (b['name'] as string) ? -1 : 1)),
    core_module_intro: intro,
  };
}

// ------------------------------------------------------------------------------------------- a source's own SDL

function value(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(value).join(', ')}]`;
  if (v && typeof v === 'object') return `{${Object.entries(v).map(([k, x]) => `${k}: ${value(x)}`).join(', ')}}`;
  return typeof v === 'string' ? JSON.stringify(v) : String(v);
}
function directive(name: string, args: Record<string, unknown>): string {
  const list = Object.entries(args).filter(([, v]) => v !== undefined);
  return `@${name}${list.length ? `(${list.map(([k, v]) => `${k}: ${value(v)}`).join(', ')})` : ''}`;
}
function description(text: string | null | undefined, indent = ''): string {
  return text ? `${indent}"""\n${indent}${text}\n${indent}"""\n` : '';
}

/** Directives of a generated field that mark it as Hugr's work, not a field its source declared. */
const GENERATED_FIELD = new Set(['references_query', 'aggregation_query', 'field_aggregation', 'extra_field']);
const KEPT_FIELD_DIRECTIVES = new Set(['pk', 'field_references', 'sql', 'default', 'field_source', 'exclude_mcp', 'join', 'function_call', 'table_function_call_join']);
const EXTENSION_FIELD_DIRECTIVES = new Set(['join', 'function_call', 'table_function_call_join']);

/**
 * The SDL a data source was registered with, as `describe_data_source_schema` gives it back: its data objects under
 * their own names with `@table`/`@view`, keys and declared references; the fields it adds to other sources' objects
 * as `extend type`; its functions. Undefined for a name that is not a registered source.
 */
export function sourceSchemaOf(schema: GraphQLSchema, source: string, sources: readonly DataSourceInfo[]): string | undefined {
  if (!sources.some((s) => s.name === source)) return undefined;
  const objects = dataObjectsOf(schema);
  const own = objects.filter((o) => catalogOf(o) === source);
  const originalOf = new Map(own.map((o) => [o.name, argString(dirOf(o, 'original_name'), 'name') ?? o.name]));
  const local = (name: string): string => originalOf.get(name) ?? name;
  const typeText = (f: GraphQLField<unknown, unknown>): string => {
    const named = getNamedType(f.type).name;
    return String(f.type).replace(named, local(named));
  };
  const out: string[] = [];
  for (const o of own) {
    const typeDirs = dirs(o);
    const kept: string[] = [];
    for (const d of typeDirs) {
      if (d.name === 'table' || d.name === 'view' || d.name === 'cube' || d.name === 'hypertable' || d.name === 'args' || d.name === 'unique') kept.push(directive(d.name, d.args));
      if (d.name === 'module' && typeof d.args['name'] === 'string' && d.args['name'] !== source) kept.push(directive('module', d.args));
    }
    const fields = Object.values(o.getFields()).filter((f) => {
      const fd = dirs(f);
      if (f.name.startsWith('_') || fd.some((d) => GENERATED_FIELD.has(d.name))) return false;
      const dep = argString(fd.find((d) => d.name === 'dependency'), 'name');
      return !dep || dep === source;
    });
    const declaredRefs = new Set<string>();
    const lines = fields.map((f) => {
      const fieldDirs = dirs(f)
        .filter((d) => KEPT_FIELD_DIRECTIVES.has(d.name))
        .map((d) => {
          if (d.name === 'join') return directive(d.name, { ...d.args, references_name: local(String(d.args['references_name'])) });
          if (d.name !== 'field_references') return directive(d.name, d.args);
          declaredRefs.add(`${f.name}\u0000${String(d.args['references_name'])}`);
          return directive(d.name, { ...d.args, references_name: local(String(d.args['references_name'])) });
        });
      return `${description(f.description, '  ')}  ${f.name}: ${typeText(f)}${fieldDirs.length ? ` ${fieldDirs.join(' ')}` : ''}`;
    });
    // Object-level references the source declared itself: not the ones its fields' @field_references became, not a
    // many-to-many side Hugr added for a junction table.
    for (const r of typeDirs.filter((d) => d.name === 'references')) {
      const sf = r.args['source_fields'];
      const fromField = Array.isArray(sf) && sf.length === 1 && declaredRefs.has(`${String(sf[0])}\u0000${String(r.args['references_name'])}`);
      if (fromField || r.args['is_m2m'] === true) continue;
      const args: Record<string, unknown> = { ...r.args, references_name: local(String(r.args['references_name'])) };
      for (const k of ['description', 'references_description', 'is_m2m', 'm2m_name']) if (args[k] === '' || args[k] === false) delete args[k];
      kept.push(directive('references', args));
    }
    out.push(`${description(o.description)}type ${local(o.name)}${kept.length ? ` ${kept.join(' ')}` : ''} {\n${lines.join('\n')}\n}`);
  }
  // Fields this source adds to other sources' objects.
  for (const o of objects.filter((x) => catalogOf(x) !== source)) {
    const added = Object.values(o.getFields()).filter((f) => argString(dirOf(f, 'dependency'), 'name') === source && !dirOf(f, 'aggregation_query'));
    if (!added.length) continue;
    const lines = added.map((f) => {
      const kept = dirs(f)
        .filter((d) => EXTENSION_FIELD_DIRECTIVES.has(d.name))
        .map((d) => directive(d.name, d.args));
      return `  ${f.name}: ${typeText(f)}${kept.length ? ` ${kept.join(' ')}` : ''}`;
    });
    out.push(`extend type ${o.name} @dependency(name: ${JSON.stringify(catalogOf(o) ?? '')}) {\n${lines.join('\n')}\n}`);
  }
  // Its functions.
  const fns: string[] = [];
  for (const r of moduleRoots(schema).filter((x) => x.kind === 'FUNCTION' || x.kind === 'MUT_FUNCTION')) {
    for (const f of Object.values(r.type.getFields())) {
      const fn = dirOf(f, 'function');
      if (!fn || argString(dirOf(f, 'catalog'), 'name') !== source) continue;
      const args = f.args.length ? `(${f.args.map((a) => `${a.name}: ${String(a.type)}`).join(', ')})` : '';
      fns.push(`  ${f.name}${args}: ${typeText(f)} ${directive('function', fn.args)}${r.module && r.module !== source ? ` ${directive('module', { name: r.module })}` : ''}`);
    }
  }
  if (fns.length) out.push(`extend type Function {\n${fns.join('\n')}\n}`);
  return out.join('\n');
}

/** `describe_data_source_schema`, failing like the real server for a name that is not a registered source. */
export function describeResolver(schema: GraphQLSchema, sources: readonly DataSourceInfo[]): (args: Json) => string {
  return (args) => {
    const sdl = sourceSchemaOf(schema, String(args['name']), sources);
    if (sdl === undefined) throw new Error('Invalid Input Error: database/sql/driver: API error: data source not found');
    return sdl;
  };
}

/** Everything the v0.3 test server serves beyond the platform's own data: rows, and the SDL function. */
export function coreCatalogOf(schema: GraphQLSchema, hugrType: (type: string, field: string) => string | undefined, sources: readonly DataSourceInfo[]): { rows: Record<string, Row[]>; resolvers: Resolvers } {
  return { rows: coreCatalogRows(schema, hugrType, sources), resolvers: { '_module_core_function.describe_data_source_schema': describeResolver(schema, sources) } };
}
