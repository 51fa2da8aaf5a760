import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLSchema,
  type GraphQLType,
} from 'graphql';
import { defaultText } from '../defaults.js';
import { appliedDirectivesOf, type AppliedDirective } from '../directives.js';
import { hugrGenerationOf } from './extensions.js';
import type {
  HugrArgument,
  HugrDataObject,
  HugrDataSource,
  HugrExtensions,
  HugrFunction,
  HugrModel,
  HugrModule,
  HugrOperation,
  HugrReference,
  HugrServerFacts,
  MutationKind,
  QueryKind,
  RootKind,
} from './model.js';

type AnyField = GraphQLField<unknown, unknown>;

const MODULE_ROOT_KINDS: Record<string, RootKind> = { QUERY: 'query', MUTATION: 'mutation', FUNCTION: 'function', MUT_FUNCTION: 'mut_function' };
const QUERY_TYPES: Record<string, QueryKind> = { SELECT: 'select', SELECT_ONE: 'select_one', AGGREGATE: 'aggregate', AGGREGATE_BUCKET: 'bucket_aggregate' };
const HUGR_QUERY_TYPES: Record<string, QueryKind> = { select: 'select', select_one: 'select_one', aggregate: 'aggregate', bucket_agg: 'bucket_aggregate' };
const MUTATION_TYPES: Record<string, MutationKind> = { INSERT: 'insert', UPDATE: 'update', DELETE: 'delete' };
const HUGR_MUTATION_TYPES: Record<string, MutationKind> = { mutation_insert: 'insert', mutation_update: 'update', mutation_delete: 'delete' };
const QUERY_HUGR_TYPE: Record<QueryKind, string> = { select: 'select', select_one: 'select_one', aggregate: 'aggregate', bucket_aggregate: 'bucket_agg' };

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Whether a schema is a Hugr schema: Hugr's introspection extensions with values, or what only Hugr's compiler
 * generates: a `@module_root`, or a `@table`/`@view` that also names its `@catalog` (other tools use `@table` alone).
 */
export function looksLikeHugr(schema: GraphQLSchema, ext?: HugrExtensions): boolean {
  if (ext && [...ext.types.values()].some((t) => t.hugr_type === 'module' || t.hugr_type === 'table' || t.hugr_type === 'view')) return true;
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    const names = new Set(directivesOf(type).map((d) => d.name));
    if (names.has('module_root') || ((names.has('table') || names.has('view')) && names.has('catalog'))) return true;
  }
  return false;
}

function directivesOf(x: { astNode?: unknown; extensionASTNodes?: readonly unknown[]; extensions?: Readonly<Record<string, unknown>> | null }): AppliedDirective[] {
  const nodes = [x.astNode, ...(x.extensionASTNodes ?? [])] as Parameters<typeof appliedDirectivesOf>[0];
  return appliedDirectivesOf(nodes, x.extensions);
}

function directive(list: readonly AppliedDirective[], name: string): AppliedDirective | undefined {
  return list.find((d) => d.name === name);
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function strList(v: unknown): string[] | undefined {
  return Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : undefined;
}

export function argumentOf(arg: GraphQLArgument): HugrArgument {
  const out: HugrArgument = { name: arg.name, type: String(arg.type) };
  const dv = defaultText(arg);
  if (dv !== undefined) out.default_value = dv;
  if (arg.description) out.description = arg.description;
  return out;
}

function isListOutput(type: GraphQLType): boolean {
  return isListType(isNonNullType(type) ? type.ofType : type);
}

/**
 * Reads Hugr's logical model from a schema. Modules and paths come from walking the roots the way a query is
 * written (`Query` → module fields → query fields; `Query.function` → function modules → functions; the same under
 * `Mutation`), so a path is exactly what validates. What a field or type *is* comes from Hugr's introspection
 * extensions when the schema was read with them, else from the directives Hugr's compiler generates
 * (`@module_root`, `@table`, `@view`, `@query`, `@aggregation_query`, `@mutation`, `@function`, `@catalog`, …),
 * else from Hugr's naming conventions (`X_by_pk`, `X_aggregation`, `insert_X`).
 */
export function deriveHugrModel(schema: GraphQLSchema, ext?: HugrExtensions, server: HugrServerFacts = {}): HugrModel {
  const serverDataSources = server.dataSources;
  const warnings: string[] = [];
  const typeMap = schema.getTypeMap();
  const typeDirectives = new Map<string, AppliedDirective[]>();
  const dirsOfType = (t: GraphQLNamedType): AppliedDirective[] => {
    let d = typeDirectives.get(t.name);
    if (!d) typeDirectives.set(t.name, (d = directivesOf(t)));
    return d;
  };
  const typeExt = (name: string) => ext?.types.get(name);
  const fieldExt = (type: string, field: string) => ext?.fields.get(`${type}.${field}`);

  const excludedFields = new Set<string>();
  const isExcluded = (type: string, field: AnyField | { name: string; astNode?: unknown; extensions?: Readonly<Record<string, unknown>> | null }): boolean => {
    if (fieldExt(type, field.name)?.mcp_exclude === true) return true;
    return directivesOf(field as AnyField).some((d) => d.name === 'exclude_mcp');
  };
  for (const type of Object.values(typeMap)) {
    if (type.name.startsWith('__') || !(isObjectType(type) || isInterfaceType(type) || isInputObjectType(type))) continue;
    for (const field of Object.values(type.getFields())) if (isExcluded(type.name, field as AnyField)) excludedFields.add(`${type.name}.${field.name}`);
  }

  // ---- classification of types
  const objectKind = (t: GraphQLNamedType | undefined): 'table' | 'view' | undefined => {
    if (!t || !isObjectType(t)) return undefined;
    const h = typeExt(t.name)?.hugr_type;
    if (h === 'table' || h === 'view') return h;
    const dirs = dirsOfType(t);
    if (directive(dirs, 'table')) return 'table';
    if (directive(dirs, 'view')) return 'view';
    return undefined;
  };
  const moduleRootOf = (t: GraphQLNamedType | undefined): { name?: string; kind?: RootKind } | undefined => {
    if (!t || !isObjectType(t)) return undefined;
    const d = directive(dirsOfType(t), 'module_root');
    if (d) return { ...(str(d.args['name']) !== undefined ? { name: str(d.args['name'])! } : {}), ...(MODULE_ROOT_KINDS[str(d.args['type']) ?? ''] ? { kind: MODULE_ROOT_KINDS[str(d.args['type'])!]! } : {}) };
    const e = typeExt(t.name);
    if (e?.hugr_type === 'module') return { ...(e.module !== undefined ? { name: e.module } : {}) };
    return undefined;
  };
  const aggregationTarget = (t: GraphQLNamedType | undefined): string | undefined => {
    if (!t || !isObjectType(t)) return undefined;
    const d = directive(dirsOfType(t), 'aggregation');
    const named = d && str(d.args['name']);
    if (named && objectKind(typeMap[named])) return named;
    const key = t.getFields()['key'];
    if (key && objectKind(getNamedType(key.type))) return getNamedType(key.type).name;
    const m = /^_(.+?)_aggregation(_bucket)?$/.exec(t.name);
    if (m && objectKind(typeMap[m[1]!])) return m[1];
    return undefined;
  };
  const queryKindOf = (root: string, field: AnyField): QueryKind | undefined => {
    const h = fieldExt(root, field.name)?.hugr_type;
    if (h && HUGR_QUERY_TYPES[h]) return HUGR_QUERY_TYPES[h];
    const dirs = directivesOf(field);
    const q = directive(dirs, 'query');
    if (q && QUERY_TYPES[str(q.args['type']) ?? '']) return QUERY_TYPES[str(q.args['type'])!];
    const a = directive(dirs, 'aggregation_query');
    if (a) return a.args['is_bucket'] === true ? 'bucket_aggregate' : 'aggregate';
    // Neither extension nor directive (an older server, a hand-written schema): what it returns tells.
    const named = getNamedType(field.type);
    if (objectKind(named)) return isListOutput(field.type) ? 'select' : 'select_one';
    if (aggregationTarget(named)) return isListOutput(field.type) ? 'bucket_aggregate' : 'aggregate';
    return undefined;
  };
  const mutationKindOf = (root: string, field: AnyField): MutationKind | undefined => {
    const h = fieldExt(root, field.name)?.hugr_type;
    if (h && HUGR_MUTATION_TYPES[h]) return HUGR_MUTATION_TYPES[h];
    const m = directive(directivesOf(field), 'mutation');
    if (m && MUTATION_TYPES[str(m.args['type']) ?? '']) return MUTATION_TYPES[str(m.args['type'])!];
    const conv = /^(insert|update|delete)_/.exec(field.name);
    return conv ? (conv[1] as MutationKind) : undefined;
  };
  const catalogOf = (x: AnyField | GraphQLNamedType, extCatalog: string | undefined): string | undefined => {
    if (extCatalog) return extCatalog;
    const d = directive(directivesOf(x as AnyField), 'catalog');
    return d ? str(d.args['name']) : undefined;
  };

  // ---- walk the roots
  const modules = new Map<string, HugrModule>();
  const visitedRoots = new Set<string>();
  interface FoundQuery {
    kind: QueryKind;
    field: AnyField;
    root: string;
    path: string[];
    module: string;
  }
  const foundQueries: FoundQuery[] = [];
  const foundMutations: { kind: MutationKind; field: AnyField; root: string; path: string[]; module: string }[] = [];
  const foundFunctions: { field: AnyField; root: string; path: string[]; module: string; isMutation: boolean; kind?: QueryKind }[] = [];

  const moduleAt = (path: string[], declared?: string): HugrModule => {
    const name = declared ?? path.join('.');
    let m = modules.get(name);
    if (!m) modules.set(name, (m = { name, path: name === '' ? [] : name.split('.'), roots: {}, dataSources: [] }));
    return m;
  };

  const walk = (root: GraphQLObjectType, kind: RootKind, path: string[], declared?: string): void => {
    const key = `${kind}:${root.name}`;
    if (visitedRoots.has(key)) return;
    visitedRoots.add(key);
    const mod = moduleAt(path, declared);
    mod.roots[kind] ??= root.name;
    if (!mod.description && root.description && path.length > 0) mod.description = root.description;
    const opPrefix = kind === 'function' || kind === 'mut_function' ? ['function'] : [];
    for (const field of Object.values(root.getFields())) {
      if (excludedFields.has(`${root.name}.${field.name}`)) continue;
      const named = getNamedType(field.type);
      if (path.length === 0 && (kind === 'query' || kind === 'mutation') && field.name === 'function' && isObjectType(named)) {
        walk(named, kind === 'query' ? 'function' : 'mut_function', []);
        continue;
      }
      // A field that returns an operation root wraps a whole query (Hugr's `jq(query)`): not a module.
      if (named === schema.getQueryType() || named === schema.getMutationType()) continue;
      const sub = moduleRootOf(named);
      if (sub || fieldExt(root.name, field.name)?.hugr_type === 'submodule') {
        if (isObjectType(named)) {
          const childPath = [...path, field.name];
          if (sub?.name !== undefined && sub.name !== childPath.join('.')) warnings.push(`module root ${named.name} declares module "${sub.name}" but is reached at ${childPath.join('.')}; the path is used`);
          walk(named, kind, childPath);
          const child = modules.get(childPath.join('.'));
          if (child && !child.description && field.description && !/^The root .* object of the module/.test(field.description)) child.description = field.description;
        }
        continue;
      }
      const fullPath = [...opPrefix, ...path, field.name];
      if (kind === 'query') {
        const qk = queryKindOf(root.name, field);
        if (qk) foundQueries.push({ kind: qk, field, root: root.name, path: fullPath, module: mod.name });
      } else if (kind === 'mutation') {
        const mk = mutationKindOf(root.name, field);
        if (mk) foundMutations.push({ kind: mk, field, root: root.name, path: fullPath, module: mod.name });
      } else {
        // Hugr's own members of a function root (`_stub` in the base schema) are not functions of the platform.
        if (field.name.startsWith('_') || directive(directivesOf(field), 'system')) continue;
        const qk = queryKindOf(root.name, field);
        const isCompanion = (qk === 'aggregate' || qk === 'bucket_aggregate') && !directive(directivesOf(field), 'function');
        foundFunctions.push({ field, root: root.name, path: fullPath, module: mod.name, isMutation: kind === 'mut_function', ...(isCompanion ? { kind: qk } : {}) });
      }
    }
  };
  const query = schema.getQueryType();
  const mutation = schema.getMutationType();
  if (query) walk(query, 'query', []);
  if (mutation) walk(mutation, 'mutation', []);

  // Partial schemas (a snapshot without Query, an SDL file per module): module roots nothing reaches are placed by
  // their declared name, which is the path Hugr would give them.
  const unreached: string[] = [];
  for (const type of Object.values(typeMap).sort((a, b) => cmp(a.name, b.name))) {
    const info = moduleRootOf(type);
    if (!info?.name || !info.kind || !isObjectType(type)) continue;
    if (visitedRoots.has(`${info.kind}:${type.name}`)) continue;
    unreached.push(type.name);
    walk(type, info.kind, info.name === '' ? [] : info.name.split('.'), info.name);
  }
  if (unreached.length) {
    warnings.push(`Hugr module roots not reachable from the schema's root types (a partial schema?): ${unreached.join(', ')}; their paths follow their module names`);
  }
  // Every ancestor of a module is a module.
  for (const m of [...modules.values()]) for (let i = 0; i < m.path.length; i++) moduleAt(m.path.slice(0, i));
  moduleAt([]);

  // ---- data objects
  const operationOf = (f: { field: AnyField; path: string[] }, kind: QueryKind | MutationKind, operation: 'query' | 'mutation'): HugrOperation => ({
    name: f.field.name,
    kind,
    operation,
    path: f.path,
    arguments: f.field.args.map(argumentOf),
    returns: String(f.field.type),
  });
  const objects = new Map<string, HugrDataObject>();
  const queriesByObject = new Map<string, FoundQuery[]>();
  for (const q of foundQueries) {
    const named = getNamedType(q.field.type);
    const target = q.kind === 'select' || q.kind === 'select_one' ? (objectKind(named) ? named.name : undefined) : aggregationTarget(named);
    if (!target) continue;
    const list = queriesByObject.get(target) ?? [];
    list.push(q);
    queriesByObject.set(target, list);
  }
  for (const [typeName, queries] of [...queriesByObject].sort(([a], [b]) => cmp(a, b))) {
    const type = typeMap[typeName] as GraphQLObjectType;
    const main = queries.find((q) => q.kind === 'select') ?? queries.find((q) => q.kind === 'select_one') ?? queries[0]!;
    const dirs = dirsOfType(type);
    const byPk = queries.find((q) => q.kind === 'select_one' && q.field.name === `${main.field.name}_by_pk`) ?? queries.find((q) => q.kind === 'select_one');
    const filterArg = main.field.args.find((a) => a.name === 'filter');
    const argsArg = main.field.args.find((a) => a.name === 'args');
    const pkFromFields = Object.values(type.getFields())
      .filter((f) => directive(directivesOf(f), 'pk'))
      .map((f) => f.name);
    const primaryKey = pkFromFields.length ? pkFromFields : (byPk?.field.args.filter((a) => a.name !== 'args').map((a) => a.name) ?? []);
    const agg = queries.find((q) => q.kind === 'aggregate');
    const bucket = queries.find((q) => q.kind === 'bucket_aggregate');
    const obj: HugrDataObject = {
      typeName,
      kind: objectKind(type)!,
      module: main.module,
      queryName: main.field.name,
      path: main.path,
      pathVerified: true,
      primaryKey,
      argsRequired: argsArg ? isNonNullType(argsArg.type) : false,
      queries: queries.map((q) => operationOf(q, q.kind, 'query')).sort((a, b) => cmp(a.path.join('.'), b.path.join('.'))),
      mutations: [],
      references: [],
      ...objectFlags(type as GraphQLObjectType, dirs),
    };
    const catalog = catalogOf(type, typeExt(typeName)?.catalog) ?? catalogOf(main.field, fieldExt(main.root, main.field.name)?.catalog);
    if (catalog) obj.dataSource = catalog;
    if (type.description) obj.description = type.description;
    if (filterArg) obj.filterType = getNamedType(filterArg.type).name;
    if (argsArg) obj.argsType = getNamedType(argsArg.type).name;
    if (agg) obj.aggregationType = getNamedType(agg.field.type).name;
    if (bucket) obj.bucketAggregationType = getNamedType(bucket.field.type).name;
    const declaredModule = str(directive(dirs, 'module')?.args['name']) ?? typeExt(typeName)?.module;
    if (declaredModule !== undefined && declaredModule !== main.module) {
      warnings.push(`data object ${typeName} declares module "${declaredModule}" but its select query is reached at ${main.path.join('.')}; the path is used`);
    }
    objects.set(typeName, obj);
  }

  // Data objects no query field reaches (a partial schema): placed by their @module and @query directives, with the
  // arguments Hugr generates for every select (filter, order_by, limit, offset, distinct_on, args).
  const unplaced: string[] = [];
  for (const type of Object.values(typeMap).sort((a, b) => cmp(a.name, b.name))) {
    const kind = objectKind(type);
    if (!kind || objects.has(type.name) || !isObjectType(type)) continue;
    const dirs = dirsOfType(type);
    const declared = dirs.filter((d) => d.name === 'query' && QUERY_TYPES[str(d.args['type']) ?? ''] && str(d.args['name']));
    const select = declared.find((d) => d.args['type'] === 'SELECT') ?? declared[0];
    if (!select) continue;
    const module = str(directive(dirs, 'module')?.args['name']) ?? typeExt(type.name)?.module ?? '';
    const modulePath = module === '' ? [] : module.split('.');
    moduleAt(modulePath);
    for (let i = 0; i < modulePath.length; i++) moduleAt(modulePath.slice(0, i));
    const filterType = str(directive(dirs, 'filter_input')?.args['name']);
    const args = directive(dirs, 'args');
    const argsType = str(args?.args['name']);
    const listArgs: HugrArgument[] = [
      ...(argsType ? [{ name: 'args', type: `${argsType}${args?.args['required'] === true ? '!' : ''}` }] : []),
      { name: 'distinct_on', type: '[String]' },
      ...(filterType ? [{ name: 'filter', type: filterType }] : []),
      { name: 'limit', type: 'Int', default_value: '2000' },
      { name: 'offset', type: 'Int', default_value: '0' },
      { name: 'order_by', type: '[OrderByField]' },
    ];
    const pk = Object.values(type.getFields()).filter((f) => directive(directivesOf(f), 'pk'));
    const queries: HugrOperation[] = declared.map((d) => {
      const qk = QUERY_TYPES[str(d.args['type'])!]!;
      const name = str(d.args['name'])!;
      const returns = qk === 'select' ? `[${type.name}]` : qk === 'select_one' ? type.name : qk === 'aggregate' ? `_${type.name}_aggregation` : `[_${type.name}_aggregation_bucket]`;
      const argumentsOf: HugrArgument[] = qk === 'select_one' ? [...(argsType ? [listArgs[0]!] : []), ...pk.map((f) => ({ name: f.name, type: `${getNamedType(f.type).name}!` }))] : listArgs;
      return { name, kind: qk, operation: 'query', path: [...modulePath, name], arguments: argumentsOf, returns };
    });
    const obj: HugrDataObject = {
      typeName: type.name,
      kind,
      module,
      queryName: str(select.args['name'])!,
      path: [...modulePath, str(select.args['name'])!],
      pathVerified: false,
      primaryKey: pk.map((f) => f.name),
      argsRequired: args?.args['required'] === true,
      queries: queries.sort((a, b) => cmp(a.path.join('.'), b.path.join('.'))),
      mutations: [],
      references: [],
      ...objectFlags(type as GraphQLObjectType, dirs),
    };
    const catalog = catalogOf(type, typeExt(type.name)?.catalog);
    if (catalog) obj.dataSource = catalog;
    if (type.description) obj.description = type.description;
    if (filterType) obj.filterType = filterType;
    if (argsType) obj.argsType = argsType;
    objects.set(type.name, obj);
    unplaced.push(type.name);
  }
  if (unplaced.length) {
    warnings.push(`Hugr data objects that no query field of the schema reaches (a partial schema?): ${unplaced.join(', ')}; their paths and queries follow their @module and @query directives`);
  }

  // A prefixed type keeps its name in its source's own schema in @original_name (shop_items ← items).
  for (const obj of objects.values()) {
    const original = str(directive(dirsOfType(typeMap[obj.typeName]!), 'original_name')?.args['name']);
    if (original && original !== obj.typeName) obj.originalName = original;
  }

  // Mutations: the data object named by @mutation, else the one whose filter or data input the mutation takes, else
  // the one the naming convention (insert_<query name>) points to in the same module.
  const byFilter = new Map([...objects.values()].filter((o) => o.filterType).map((o) => [o.filterType!, o]));
  const byQueryName = new Map([...objects.values()].map((o) => [`${o.module}\u0000${o.queryName}`, o]));
  for (const m of foundMutations) {
    const named = directive(directivesOf(m.field), 'mutation')?.args['name'];
    let obj = typeof named === 'string' ? objects.get(named) : undefined;
    if (!obj) {
      const filter = m.field.args.find((a) => a.name === 'filter');
      if (filter) obj = byFilter.get(getNamedType(filter.type).name);
    }
    if (!obj && m.kind === 'insert') {
      const ret = getNamedType(m.field.type);
      if (objects.has(ret.name)) obj = objects.get(ret.name);
    }
    obj ??= byQueryName.get(`${m.module}\u0000${m.field.name.replace(/^(insert|update|delete)_/, '')}`);
    if (obj) obj.mutations.push(operationOf(m, m.kind, 'mutation'));
  }
  for (const o of objects.values()) o.mutations.sort((a, b) => cmp(a.name, b.name));

  // References: fields of a data object whose type is another data object.
  for (const obj of objects.values()) {
    const type = typeMap[obj.typeName] as GraphQLObjectType;
    const refsDeclared = dirsOfType(type).filter((d) => d.name === 'references');
    for (const field of Object.values(type.getFields())) {
      if (excludedFields.has(`${obj.typeName}.${field.name}`)) continue;
      const target = getNamedType(field.type);
      if (!objects.has(target.name)) continue;
      const fdirs = directivesOf(field);
      const rq = directive(fdirs, 'references_query');
      const list = isListOutput(field.type);
      let kind: HugrReference['kind'];
      if (directive(fdirs, 'table_function_call_join') || fieldExt(obj.typeName, field.name)?.hugr_type === 'function') kind = 'function_join';
      else if (directive(fdirs, 'join')) kind = 'join';
      else if (list) kind = rq?.args['is_m2m'] === true ? 'many_to_many' : 'one_to_many';
      else kind = 'many_to_one';
      const ref: HugrReference = { field: field.name, target: target.name, kind };
      const relation = str(rq?.args['name']);
      if (relation) ref.relation = relation;
      const through = str(rq?.args['m2m_name']);
      if (kind === 'many_to_many' && through) ref.through = through;
      // Key fields: the @references on this object that this field is the forward query of, or the one on the
      // target this field is the back query of.
      const forward = refsDeclared.find((d) => d.args['query'] === field.name && d.args['references_name'] === target.name);
      const back = !forward ? dirsOfType(target).find((d) => d.name === 'references' && d.args['references_query'] === field.name && d.args['references_name'] === obj.typeName) : undefined;
      const join = kind === 'join' ? directive(fdirs, 'join') : undefined;
      const keys = forward
        ? [strList(forward.args['source_fields']), strList(forward.args['references_fields'])]
        : back
          ? [strList(back.args['references_fields']), strList(back.args['source_fields'])]
          : join
            ? [strList(join.args['source_fields']), strList(join.args['references_fields'])]
            : [];
      if (keys[0]) ref.sourceFields = keys[0];
      if (keys[1]) ref.targetFields = keys[1];
      obj.references.push(ref);
    }
  }

  // What the server says about a data object (v0.3.42+ `_dataObject`) is exact where the schema only suggests.
  for (const obj of objects.values()) {
    const meta = server.dataObjects?.get(obj.typeName);
    if (!meta) continue;
    if (meta.originalName && !obj.originalName) obj.originalName = meta.originalName;
    if (meta.primaryKey.length) obj.primaryKey = meta.primaryKey;
    if (meta.properties.isM2M !== undefined) obj.isM2m = meta.properties.isM2M;
    if (meta.properties.isCube !== undefined) obj.isCube = meta.properties.isCube;
    if (meta.properties.isHypertable !== undefined) obj.isHypertable = meta.properties.isHypertable;
    if (meta.properties.softDelete !== undefined) obj.softDelete = meta.properties.softDelete;
    if (meta.properties.hasVectors !== undefined) obj.hasVectors = meta.properties.hasVectors;
    for (const ref of obj.references) {
      const r = meta.relations.find((x) => x.fieldName === ref.field && (!x.dataObject || x.dataObject === ref.target));
      if (!r) continue;
      if (r.kind === 'M2M') ref.kind = 'many_to_many';
      else if (r.kind === 'JOIN') ref.kind = 'join';
      if (r.through) ref.through = r.through;
      // A join's relation name is its field name: nothing the field does not already say.
      if (r.name && r.kind !== 'JOIN') ref.relation = r.name;
      if (r.sourceKeys?.length) ref.sourceFields = r.sourceKeys;
      if (r.destinationKeys?.length) ref.targetFields = r.destinationKeys;
    }
  }

  // ---- functions
  const functions: HugrFunction[] = [];
  const companions = foundFunctions.filter((f) => f.kind);
  for (const f of foundFunctions.filter((x) => !x.kind)) {
    const named = getNamedType(f.field.type);
    const fn: HugrFunction = {
      name: f.field.name,
      module: f.module,
      isMutation: f.isMutation,
      path: f.path,
      arguments: f.field.args.map(argumentOf),
      returns: String(f.field.type),
      returnType: named.name,
      returnsList: isListOutput(f.field.type),
      isTable: objects.has(named.name),
      queries: [],
      deprecated: f.field.deprecationReason != null,
    };
    const catalog = catalogOf(f.field, fieldExt(f.root, f.field.name)?.catalog);
    if (catalog) fn.dataSource = catalog;
    if (f.field.description) fn.description = f.field.description;
    for (const c of companions) {
      if (c.root !== f.root || c.isMutation !== f.isMutation) continue;
      const named = str(directive(directivesOf(c.field), 'aggregation_query')?.args['name']);
      if (named === f.field.name || (!named && (c.field.name === `${f.field.name}_aggregation` || c.field.name === `${f.field.name}_bucket_aggregation`))) {
        fn.queries.push(operationOf(c, c.kind!, f.isMutation ? 'mutation' : 'query'));
      }
    }
    functions.push(fn);
  }
  functions.sort((a, b) => cmp(a.path.join('.'), b.path.join('.')) || Number(a.isMutation) - Number(b.isMutation));

  // ---- data sources, from the catalogs named on data objects, functions and module roots
  const sources = new Map<string, HugrDataSource & { objects: HugrDataObject[]; modules: Set<string> }>();
  const sourceOf = (name: string): HugrDataSource & { objects: HugrDataObject[]; modules: Set<string> } => {
    let s = sources.get(name);
    if (!s) sources.set(name, (s = { name, inferred: true, objects: [], modules: new Set() }));
    return s;
  };
  for (const obj of objects.values()) {
    if (!obj.dataSource) continue;
    const s = sourceOf(obj.dataSource);
    s.objects.push(obj);
    s.modules.add(obj.module);
    const engine = str(directive(dirsOfType(typeMap[obj.typeName]!), 'catalog')?.args['engine']);
    if (engine && !s.engine) s.engine = engine;
  }
  for (const fn of functions) {
    if (!fn.dataSource) continue;
    const s = sourceOf(fn.dataSource);
    s.modules.add(fn.module);
  }
  for (const s of sources.values()) {
    // Prefix: what a prefixed type's original name leaves over (shop_items ← items).
    s.prefix = prefixOf(s.objects, (o) => o.originalName);
    if (s.objects.length > 0) {
      s.asModule = [...s.modules].every((m) => m === s.name || m.startsWith(`${s.name}.`));
      // An as-module source queries its objects by their unprefixed names (shop { items } of type shop_items).
      if (!s.prefix && s.asModule) s.prefix = prefixOf(s.objects, (o) => o.queryName);
      // Read-only: none of its tables has a mutation, found under a mutation root or declared on the type.
      if (s.objects.some((o) => o.kind === 'table')) {
        s.readOnly = s.objects.every((o) => o.mutations.length === 0 && !directive(dirsOfType(typeMap[o.typeName]!), 'mutation'));
      }
    }
  }
  for (const m of modules.values()) {
    const names = new Set<string>();
    for (const o of objects.values()) if (o.module === m.name && o.dataSource) names.add(o.dataSource);
    for (const f of functions) if (f.module === m.name && f.dataSource) names.add(f.dataSource);
    m.dataSources = [...names].sort(cmp);
  }

  // ---- hugr_type and field_kind of types and fields (read, or derived from the model)
  const typeHugrType = new Map<string, string>();
  const fieldHugrType = new Map<string, string>();
  const fieldKind = new Map<string, 'column' | 'relation' | 'extra'>();
  for (const type of Object.values(typeMap)) {
    const e = typeExt(type.name)?.hugr_type;
    if (e) typeHugrType.set(type.name, e);
  }
  for (const [key, e] of ext?.fields ?? []) if (e.hugr_type) fieldHugrType.set(key, e.hugr_type);
  for (const m of modules.values()) for (const root of Object.values(m.roots)) if (root && !typeHugrType.has(root) && root !== 'Query' && root !== 'Mutation' && root !== 'Function' && root !== 'MutationFunction') typeHugrType.set(root, 'module');
  for (const o of objects.values()) {
    if (!typeHugrType.has(o.typeName)) typeHugrType.set(o.typeName, o.kind);
    if (o.filterType && !typeHugrType.has(o.filterType)) typeHugrType.set(o.filterType, 'filter');
    const type = typeMap[o.typeName] as GraphQLObjectType;
    for (const field of Object.values(type.getFields())) {
      const key = `${o.typeName}.${field.name}`;
      const read = ext?.fields.get(key)?.field_kind;
      if (read === 'column' || read === 'relation' || read === 'extra') {
        fieldKind.set(key, read);
        continue;
      }
      const named = getNamedType(field.type);
      const fdirs = directivesOf(field);
      if (!fieldHugrType.has(key)) {
        const h = directive(fdirs, 'sql') ? 'calculated' : directive(fdirs, 'extra_field') ? 'extra_field' : directive(fdirs, 'function_call') || directive(fdirs, 'table_function_call_join') ? 'function' : undefined;
        if (h) fieldHugrType.set(key, h);
      }
      if (objects.has(named.name) && !directive(fdirs, 'table_function_call_join')) fieldKind.set(key, 'relation');
      else if (field.name.startsWith('_') || fdirs.some((d) => d.name === 'extra_field' || d.name === 'sql' || d.name === 'function_call' || d.name === 'table_function_call_join' || d.name === 'aggregation_query')) fieldKind.set(key, 'extra');
      else if (isObjectType(named) && directive(dirsOfType(named), 'aggregation')) fieldKind.set(key, 'extra');
      else fieldKind.set(key, 'column');
    }
  }
  const setOp = (root: string, name: string, value: string): void => {
    const key = `${root}.${name}`;
    if (!fieldHugrType.has(key)) fieldHugrType.set(key, value);
  };
  for (const q of foundQueries) setOp(q.root, q.field.name, QUERY_HUGR_TYPE[q.kind]);
  for (const m of foundMutations) setOp(m.root, m.field.name, `mutation_${m.kind}`);
  for (const f of foundFunctions) setOp(f.root, f.field.name, f.kind ? QUERY_HUGR_TYPE[f.kind] : 'function');

  // What the server says about its data sources wins over what names and directives suggest.
  for (const ds of serverDataSources ?? []) {
    const known = sources.get(ds.name);
    const merged = { ...(known ?? { objects: [], modules: new Set<string>() }), ...ds, ...(known?.prefix && !ds.prefix ? { prefix: known.prefix } : {}), inferred: false };
    sources.set(ds.name, merged as typeof merged & { objects: HugrDataObject[]; modules: Set<string> });
  }
  // Hugr names a prefixed source's objects <prefix>_<name>, except an extension source's views.
  for (const obj of objects.values()) {
    const s = obj.dataSource ? sources.get(obj.dataSource) : undefined;
    if (obj.originalName || !s?.prefix || (s.isExtension && obj.kind === 'view') || !obj.typeName.startsWith(`${s.prefix}_`)) continue;
    obj.originalName = obj.typeName.slice(s.prefix.length + 1);
  }
  const generation = hugrGenerationOf(schema);
  return {
    from: ext ? 'introspection' : 'directives',
    ...(generation ? { generation } : {}),
    modules: [...modules.values()].sort((a, b) => cmp(a.name, b.name)),
    dataObjects: [...objects.values()],
    functions,
    dataSources: [...sources.values()].map(({ objects: _o, modules: _m, ...s }) => s).sort((a, b) => cmp(a.name, b.name)),
    excludedFields,
    typeHugrType,
    fieldHugrType,
    fieldKind,
    warnings,
  };
}

/** The prefix every object that has a name besides its type name is named with (`<prefix>_<name>`), if they agree. */
function prefixOf(objects: readonly HugrDataObject[], nameOf: (o: HugrDataObject) => string | undefined): string | undefined {
  let prefix: string | undefined;
  for (const o of objects) {
    const name = nameOf(o);
    if (!name || name === o.typeName || !o.typeName.endsWith(`_${name}`)) continue;
    const p = o.typeName.slice(0, o.typeName.length - name.length - 1);
    if (prefix !== undefined && p !== prefix) return undefined;
    prefix = p;
  }
  return prefix;
}

/** What a data object's directives and field types say about it (the server's `_dataObject` may say better). */
function objectFlags(type: GraphQLObjectType, dirs: readonly AppliedDirective[]): Pick<HugrDataObject, 'isM2m' | 'isCube' | 'isHypertable' | 'softDelete' | 'hasGeometry' | 'hasVectors'> {
  const table = directive(dirs, 'table');
  const named = Object.values(type.getFields()).map((f) => getNamedType(f.type).name);
  return {
    isM2m: table?.args['is_m2m'] === true,
    isCube: !!directive(dirs, 'cube'),
    isHypertable: !!directive(dirs, 'hypertable'),
    softDelete: table?.args['soft_delete'] === true,
    hasGeometry: named.includes('Geometry'),
    hasVectors: !!directive(dirs, 'embeddings') || named.includes('Vector'),
  };
}

/** Whether a type is a leaf (scalar or enum) that can be selected without a sub-selection. */
export function isLeafType(t: GraphQLNamedType): boolean {
  return isScalarType(t) || isEnumType(t);
}
