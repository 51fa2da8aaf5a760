import type { GraphQLSchema } from 'graphql';
import type { EdgeRecord, PropValue } from '../../../graph/types.js';
import type { FileOf } from '../load.js';
import type { HugrDataObject, HugrFunction, HugrModel, HugrModule, HugrOperation, RootKind } from './model.js';
import { DATA_OBJECT_SKELETON_ARGUMENTS, skeletonOf } from './skeleton.js';

type Props = Record<string, PropValue>;

export interface HugrEmitContext {
  source: string;
  rootModuleId: string;
  addNode: (kind: string, name: string, qualifiedName: string, props: Props, location?: { file: string; line: number }, place?: { module?: string; identity?: string }) => string;
  typeId: (name: string) => string;
  edges: EdgeRecord[];
  fileOf?: FileOf;
}

const ROOT_PROPS: Record<RootKind, string> = { query: 'query_root', mutation: 'mutation_root', function: 'function_root', mut_function: 'mutation_function_root' };
const ROOT_OPERATION: Record<RootKind, string> = { query: 'query', mutation: 'mutation', function: 'function', mut_function: 'mutation_function' };

function moduleProps(model: HugrModel, m: HugrModule): Props {
  const props: Props = {
    graphql_path: m.path.join('.'),
    data_object_count: model.dataObjects.filter((o) => o.module === m.name).length,
    function_count: model.functions.filter((f) => f.module === m.name).length,
  };
  for (const [kind, type] of Object.entries(m.roots) as [RootKind, string][]) props[ROOT_PROPS[kind]] = type;
  if (m.description) props['description'] = m.description;
  return props;
}

/** Properties of the root module of a Hugr source (merged into the generic root module). */
export function hugrRootModuleProps(model: HugrModel): Props {
  const root = model.modules.find((m) => m.name === '');
  return { hugr_model_from: model.from, ...(model.generation ? { hugr_generation: model.generation } : {}), ...(root ? moduleProps(model, root) : {}) };
}

function operationJson(op: HugrOperation): PropValue {
  // Argument descriptions are Hugr's boilerplate ("Filter", "Skip the first n objects"): the field node has them.
  const args = op.arguments.map(({ description: _d, ...a }) => a);
  return { name: op.name, kind: op.kind, graphql_path: op.path.join('.'), arguments: args as unknown as PropValue, returns: op.returns };
}

/** Qualified name of a function: its module path and name (the `function` root field is left out). */
function functionQualifiedName(fn: HugrFunction): string {
  return fn.path.slice(1).join('.');
}

/**
 * Adds a Hugr model's nodes and edges to a GraphQL source's graph: modules below the root (SUBMODULE, ROOT_TYPE),
 * data sources, data objects (CONTAINS, OBJECT_TYPE, FROM_SOURCE, REFERENCES) and functions (CONTAINS, RETURNS,
 * FROM_SOURCE), each with its GraphQL path, generated queries and a skeleton that validates against `schema`.
 */
export function emitHugrModel(model: HugrModel, schema: GraphQLSchema, ctx: HugrEmitContext): void {
  const { source, edges } = ctx;
  const moduleName = (dotted: string): string => (dotted === '' ? source : dotted);
  const moduleIds = new Map<string, string>([['', ctx.rootModuleId]]);
  for (const m of model.modules) {
    if (m.name === '') continue;
    const props: Props = { is_root: false, depth: m.path.length, ...moduleProps(model, m) };
    // Its own identity: a source may be named like one of its modules (source `sales`, module `sales`).
    const id = ctx.addNode('module', m.path[m.path.length - 1] ?? m.name, m.name, props, ctx.fileOf?.(m.roots.query ?? m.roots.function ?? m.roots.mutation ?? m.roots.mut_function ?? ''), { module: m.name, identity: `hugr-module:${m.name}` });
    moduleIds.set(m.name, id);
  }
  for (const m of model.modules) {
    const id = moduleIds.get(m.name)!;
    if (m.name !== '') edges.push({ type: 'SUBMODULE', from: moduleIds.get(m.path.slice(0, -1).join('.'))!, to: id });
    for (const [kind, type] of Object.entries(m.roots) as [RootKind, string][]) {
      // The root module's Query/Mutation edges are the generic extraction's.
      if (m.name === '' && (kind === 'query' || kind === 'mutation')) continue;
      if (schema.getType(type)) edges.push({ type: 'ROOT_TYPE', from: id, to: ctx.typeId(type), attrs: { operation: ROOT_OPERATION[kind] } });
    }
  }

  const sourceIds = new Map<string, string>();
  for (const ds of model.dataSources) {
    const props: Props = { inferred: ds.inferred };
    if (ds.engine) props['engine'] = ds.engine;
    if (ds.prefix) props['prefix'] = ds.prefix;
    if (ds.asModule !== undefined) props['as_module'] = ds.asModule;
    if (ds.readOnly !== undefined) props['read_only'] = ds.readOnly;
    if (ds.isExtension !== undefined) props['is_extension'] = ds.isExtension;
    if (ds.description) props['description'] = ds.description;
    sourceIds.set(ds.name, ctx.addNode('data_source', ds.name, ds.name, props));
  }
  for (const m of model.modules) {
    for (const ds of m.dataSources) {
      const to = sourceIds.get(ds);
      if (to) edges.push({ type: 'FROM_SOURCE', from: moduleIds.get(m.name)!, to });
    }
  }

  const objectIds = new Map<string, string>();
  for (const obj of model.dataObjects) {
    const qn = obj.path.join('.');
    const id = ctx.addNode('data_object', obj.queryName, qn, dataObjectProps(model, schema, obj), ctx.fileOf?.(obj.typeName), { module: moduleName(obj.module) });
    objectIds.set(obj.typeName, id);
    edges.push({ type: 'CONTAINS', from: moduleIds.get(obj.module)!, to: id });
    edges.push({ type: 'OBJECT_TYPE', from: id, to: ctx.typeId(obj.typeName) });
    const ds = obj.dataSource && sourceIds.get(obj.dataSource);
    if (ds) edges.push({ type: 'FROM_SOURCE', from: id, to: ds });
  }
  for (const obj of model.dataObjects) {
    for (const ref of obj.references) {
      const attrs: Record<string, PropValue> = { field: ref.field, relation_kind: ref.kind };
      if (ref.relation) attrs['relation'] = ref.relation;
      if (ref.through) attrs['through'] = ref.through;
      if (ref.sourceFields) attrs['source_fields'] = ref.sourceFields;
      if (ref.targetFields) attrs['target_fields'] = ref.targetFields;
      edges.push({ type: 'REFERENCES', from: objectIds.get(obj.typeName)!, to: objectIds.get(ref.target)!, key: ref.field, attrs });
    }
  }

  for (const fn of model.functions) {
    const props: Props = {
      is_mutation: fn.isMutation,
      graphql_path: fn.path.join('.'),
      arguments: fn.arguments as unknown as PropValue,
      argument_names: fn.arguments.map((a) => a.name),
      return_type: fn.returns,
      returns_list: fn.returnsList,
      is_table: fn.isTable,
      queries: fn.queries.map(operationJson),
      deprecated: fn.deprecated,
      skeleton: skeletonOf(schema, {
        operation: fn.isMutation ? 'mutation' : 'query',
        path: fn.path,
        arguments: fn.arguments,
        pass: fn.arguments.map((a) => a.name),
        returnType: fn.returnType,
        selectable: selectableOf(model, fn.returnType),
      }),
    };
    if (fn.dataSource) props['data_source'] = fn.dataSource;
    if (fn.description) props['description'] = fn.description;
    const qn = functionQualifiedName(fn);
    const rootType = fn.isMutation ? model.modules.find((m) => m.name === fn.module)?.roots.mut_function : model.modules.find((m) => m.name === fn.module)?.roots.function;
    const id = ctx.addNode('function', fn.name, qn, props, rootType ? ctx.fileOf?.(rootType, fn.name) : undefined, { module: moduleName(fn.module), identity: `${fn.isMutation ? 'mutation' : 'query'}:${qn}` });
    edges.push({ type: 'CONTAINS', from: moduleIds.get(fn.module)!, to: id });
    if (schema.getType(fn.returnType)) edges.push({ type: 'RETURNS', from: id, to: ctx.typeId(fn.returnType), attrs: { signature: fn.returns } });
    const ds = fn.dataSource && sourceIds.get(fn.dataSource);
    if (ds) edges.push({ type: 'FROM_SOURCE', from: id, to: ds });
  }
}

function hiddenFieldsOf(model: HugrModel, typeName: string): Set<string> {
  const hidden = new Set<string>();
  const prefix = `${typeName}.`;
  for (const key of model.excludedFields) if (key.startsWith(prefix)) hidden.add(key.slice(prefix.length));
  return hidden;
}

/** Fields a skeleton may select from a type: not hidden, and for a data object only its columns. */
function selectableOf(model: HugrModel, typeName: string): (field: string) => boolean {
  return (field) => {
    const key = `${typeName}.${field}`;
    if (model.excludedFields.has(key)) return false;
    const kind = model.fieldKind.get(key);
    return kind === undefined || kind === 'column' || model.fieldHugrType.get(key) === 'calculated';
  };
}

function dataObjectProps(model: HugrModel, schema: GraphQLSchema, obj: HugrDataObject): Props {
  const select = obj.queries.find((q) => q.kind === 'select' && q.name === obj.queryName) ?? obj.queries.find((q) => q.name === obj.queryName)!;
  const hidden = hiddenFieldsOf(model, obj.typeName);
  const type = schema.getType(obj.typeName);
  const fieldNames = type && 'getFields' in type ? Object.keys(type.getFields()).filter((f) => !hidden.has(f)) : [];
  const props: Props = {
    object_kind: obj.kind,
    type_name: obj.typeName,
    query_name: obj.queryName,
    graphql_path: obj.path.join('.'),
    path_verified: obj.pathVerified,
    primary_key: obj.primaryKey,
    args_required: obj.argsRequired,
    queries: obj.queries.map(operationJson),
    query_kinds: [...new Set(obj.queries.map((q) => q.kind))].sort(),
    mutations: obj.mutations.map(operationJson),
    skeleton: skeletonOf(schema, {
      operation: 'query',
      path: select.path,
      arguments: select.arguments,
      pass: select.kind === 'select' || select.kind === 'aggregate' || select.kind === 'bucket_aggregate' ? DATA_OBJECT_SKELETON_ARGUMENTS : [],
      // Rows, unless @exclude_mcp left only aggregations to reach the object through.
      returnType: select.kind === 'select' || select.kind === 'select_one' ? obj.typeName : select.returns.replace(/[[\]!]/g, ''),
      selectable: selectableOf(model, obj.typeName),
    }),
    field_names: fieldNames,
    is_m2m: obj.isM2m,
    is_cube: obj.isCube,
    is_hypertable: obj.isHypertable,
    soft_delete: obj.softDelete,
    has_geometry: obj.hasGeometry,
    has_vectors: obj.hasVectors,
  };
  if (obj.dataSource) props['data_source'] = obj.dataSource;
  if (obj.originalName) props['original_name'] = obj.originalName;
  if (obj.description) props['description'] = obj.description;
  if (obj.filterType) props['filter_type'] = obj.filterType;
  if (obj.argsType) props['args_type'] = obj.argsType;
  if (obj.aggregationType) props['aggregation_type'] = obj.aggregationType;
  if (obj.bucketAggregationType) props['bucket_aggregation_type'] = obj.bucketAggregationType;
  return props;
}
