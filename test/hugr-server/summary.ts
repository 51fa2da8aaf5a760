/**
 * The test server as a Hugr v0.1–v0.2 server: no logical-model meta queries and no `core.catalog`; instead
 * `function { core { meta { schema_summary } } }`, one JSON answer in the shape of Hugr's `SchemaInfo`
 * (reference/hugr.md §2.11: data sources; the module tree with each data object's columns, relations, joins,
 * function calls, queries and mutations; functions), built from the platform's generated SDL, and
 * `function { core { describe_data_source_schema(name) } }` (as in v0.3, catalog.ts).
 */
import { getNamedType, isInputObjectType, isNonNullType, type GraphQLObjectType, type GraphQLSchema } from 'graphql';
import { argString, catalogOf, dataObjectsOf, describeResolver, dirOf, isListField, moduleOf, moduleRoots, type Resolvers } from './catalog.js';
import type { DataSourceInfo } from './meta.js';

type Json = Record<string, unknown>;

/** What a v0.1 server adds to a platform's schema: the core function module with meta.schema_summary. */
export function schemaSummarySdl(): string {
  return [
    'extend type Function { core: _module_core_function }',
    'type _module_core_function @module_root(name: "core", type: FUNCTION) {\n  meta: _module_core_meta_function\n  describe_data_source_schema(name: String!, self: Boolean = false, log: Boolean = false): String @function(name: "describe_data_source_schema")\n}',
    'type _module_core_meta_function @module_root(name: "core.meta", type: FUNCTION) {\n  schema_summary: JSON @function(name: "schema_summary")\n}',
  ].join('\n\n');
}

const QUERY_TYPES: Record<string, string> = { SELECT: 'select', SELECT_ONE: 'select_one', AGGREGATE: 'aggregate', AGGREGATE_BUCKET: 'bucket_aggregate' };
const RELATION_FIELD = new Set(['references_query', 'aggregation_query', 'field_aggregation', 'join', 'function_call', 'table_function_call_join']);

function dataObjectInfo(schema: GraphQLSchema, o: GraphQLObjectType): Json {
  const table = dirOf(o, 'table');
  const module = moduleOf(o);
  const catalog = catalogOf(o) ?? '';
  const has = (name: string) => !!schema.getType(name);
  const columns: Json[] = [];
  const relations: Json[] = [];
  const subqueries: Json[] = [];
  const functionCalls: Json[] = [];
  for (const f of Object.values(o.getFields())) {
    const named = getNamedType(f.type).name;
    const target = schema.getType(named) as GraphQLObjectType | undefined;
    const rq = dirOf(f, 'references_query');
    const join = dirOf(f, 'join');
    const call = dirOf(f, 'function_call') ?? dirOf(f, 'table_function_call_join');
    if (rq) {
      const m2m = rq.args['is_m2m'] === true;
      relations.push({
        name: f.name,
        type: m2m ? 'many_to_many' : isListField(f) ? 'one_to_many' : 'many_to_one',
        ...(m2m ? { m2m_table: rq.args['m2m_name'] } : {}),
        data_source: catalog,
        data_object: named,
        module: target ? moduleOf(target) : '',
        field_data_query: f.name,
        field_data_type: named,
        ...(o.getFields()[`${f.name}_aggregation`] ? { field_agg_query: `${f.name}_aggregation`, field_agg_data_type: `_${named}_aggregation` } : {}),
        description: f.description ?? '',
      });
    } else if (join) {
      const joined = argString(join, 'references_name') ?? named;
      const jt = schema.getType(joined) as GraphQLObjectType | undefined;
      subqueries.push({ name: f.name, data_object: joined, field_data_query: f.name, description: f.description ?? '', data_source: jt ? (catalogOf(jt) ?? '') : '', module: jt ? moduleOf(jt) : '' });
    } else if (call) {
      functionCalls.push({
        name: argString(call, 'references_name') ?? f.name,
        module: argString(call, 'module') ?? '',
        data_source: argString(dirOf(f, 'catalog'), 'name') ?? '',
        field_name: f.name,
        result_type: named,
        is_scalar: !target,
        returns_array: isListField(f),
        is_table_func_join: !!dirOf(f, 'table_function_call_join'),
        description: f.description ?? '',
      });
    } else if (!f.name.startsWith('_') && ![...RELATION_FIELD].some((d) => dirOf(f, d))) {
      columns.push({ name: f.name, type: named, description: f.description ?? '', returns_array: isListField(f), is_primary_key: !!dirOf(f, 'pk'), nullable: !isNonNullType(f.type), is_calculated: !!dirOf(f, 'sql') });
    }
  }
  const queries = (o.astNode?.directives ?? [])
    .filter((d) => d.name.value === 'query')
    .map((d) => {
      const args = Object.fromEntries((d.arguments ?? []).map((a) => [a.name.value, 'value' in a.value ? String(a.value.value) : '']));
      const type = QUERY_TYPES[args['type'] ?? ''] ?? 'select';
      const returned = type === 'aggregate' ? `_${o.name}_aggregation` : type === 'bucket_aggregate' ? `_${o.name}_aggregation_bucket` : o.name;
      return { name: args['name'] ?? '', path: module, type, description: '', returned_type: returned, is_single_row: type !== 'select' && type !== 'bucket_aggregate' };
    });
  const mutation = (type: string) => (o.astNode?.directives ?? []).filter((d) => d.name.value === 'mutation').map((d) => Object.fromEntries((d.arguments ?? []).map((a) => [a.name.value, 'value' in a.value ? String(a.value.value) : '']))).find((a) => a['type'] === type);
  return {
    name: o.name,
    module,
    data_source: catalog,
    type: table ? 'table' : 'view',
    description: o.description ?? '',
    has_primary_key: columns.some((c) => c['is_primary_key'] === true),
    has_geometry: columns.some((c) => c['type'] === 'Geometry' && c['returns_array'] === false),
    is_m2m: table?.args['is_m2m'] === true,
    is_cube: !!dirOf(o, 'cube'),
    is_hypertable: !!dirOf(o, 'hypertable'),
    columns,
    ...(relations.length ? { relations } : {}),
    ...(subqueries.length ? { subqueries } : {}),
    ...(functionCalls.length ? { function_calls: functionCalls } : {}),
    ...(has(`_${o.name}_aggregation`) ? { aggregation_type: `_${o.name}_aggregation` } : {}),
    ...(has(`_${o.name}_aggregation_bucket`) ? { bucket_aggregation_type: `_${o.name}_aggregation_bucket` } : {}),
    filter_type: argString(dirOf(o, 'filter_input'), 'name') ?? '',
    queries,
    ...(table && mutation('INSERT')
      ? { mutations: { insert_mutation: mutation('INSERT')!['name'], insert_data_type: mutation('INSERT')!['data_input'], update_mutation: mutation('UPDATE')?.['name'] ?? '', update_data_type: mutation('UPDATE')?.['data_input'] ?? '', delete_mutation: mutation('DELETE')?.['name'] ?? '' } }
      : {}),
  };
}

/** The `schema_summary` JSON of a platform. */
export function schemaSummaryOf(schema: GraphQLSchema, sources: readonly DataSourceInfo[]): Json {
  const modules = new Map<string, Json>();
  const moduleAt = (name: string): Json => {
    let m = modules.get(name);
    if (!m) modules.set(name, (m = { name, description: '', sub_modules: [], tables: [], views: [], functions: [], mutate_functions: [] }));
    const parent = name.includes('.') ? name.slice(0, name.lastIndexOf('.')) : name === '' ? undefined : '';
    if (parent !== undefined && !modules.has(parent)) moduleAt(parent);
    return m;
  };
  moduleAt('');
  const kindKey = { QUERY: 'query_type', MUTATION: 'mutation_type', FUNCTION: 'function_type', MUT_FUNCTION: 'mutation_function_type' } as const;
  for (const r of moduleRoots(schema)) {
    const m = moduleAt(r.module);
    m[kindKey[r.kind]] = r.type.name;
    if (r.module && !m['description'] && r.type.description) m['description'] = r.type.description;
    if (r.kind !== 'FUNCTION' && r.kind !== 'MUT_FUNCTION') continue;
    for (const f of Object.values(r.type.getFields())) {
      const fn = dirOf(f, 'function');
      if (!fn) continue;
      (m[r.kind === 'FUNCTION' ? 'functions' : 'mutate_functions'] as Json[]).push({
        name: f.name,
        description: f.description ?? '',
        module: r.module,
        data_source: argString(dirOf(f, 'catalog'), 'name') ?? '',
        arguments: f.args.map((a) => ({ name: a.name, type: getNamedType(a.type).name, description: a.description ?? '', is_scalar_type: !isInputObjectType(getNamedType(a.type)), is_required: isNonNullType(a.type), is_array: String(a.type).replace(/!$/, '').startsWith('[') })),
        return_type: getNamedType(f.type).name,
        returns_array: isListField(f),
      });
    }
  }
  for (const o of dataObjectsOf(schema)) (moduleAt(moduleOf(o))[dirOf(o, 'table') ? 'tables' : 'views'] as Json[]).push(dataObjectInfo(schema, o));
  for (const name of [...modules.keys()].filter((n) => n !== '').sort()) {
    const parent = name.includes('.') ? name.slice(0, name.lastIndexOf('.')) : '';
    (modules.get(parent)!['sub_modules'] as Json[]).push(modules.get(name)!);
  }
  // Hugr leaves empty lists out of the JSON (omitempty).
  for (const m of modules.values()) for (const k of ['sub_modules', 'tables', 'views', 'functions', 'mutate_functions']) if ((m[k] as unknown[]).length === 0) delete m[k];
  return {
    query_root: schema.getQueryType()?.name ?? 'Query',
    mutation_root: schema.getMutationType()?.name ?? 'Mutation',
    data_sources: sources.map((s) => ({ name: s.name, prefix: s.prefix ?? '', type: s.engine, description: s.description ?? '', read_only: s.readOnly, as_module: s.asModule })),
    modules: modules.get(''),
  };
}

/** Everything the v0.1 test server serves beyond the platform's own data. */
export function schemaSummaryResolvers(schema: GraphQLSchema, sources: readonly DataSourceInfo[]): Resolvers {
  const summary = schemaSummaryOf(schema, sources);
  return {
    '_module_core_meta_function.schema_summary': () => summary,
    '_module_core_function.describe_data_source_schema': describeResolver(schema, sources),
  };
}
