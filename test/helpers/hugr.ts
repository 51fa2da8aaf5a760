import { extendSchema, getNamedType, introspectionFromSchema, isInterfaceType, isListType, isNonNullType, isObjectType, parse, valueFromASTUntyped, type GraphQLObjectType, type GraphQLSchema } from 'graphql';

const ROOT_OF: Record<string, { root: string; suffix: string; under?: string }> = {
  QUERY: { root: 'Query', suffix: 'query' },
  MUTATION: { root: 'Mutation', suffix: 'mutation' },
  FUNCTION: { root: 'Function', suffix: 'function', under: 'Query' },
  MUT_FUNCTION: { root: 'MutationFunction', suffix: 'mut_function', under: 'Mutation' },
};

type DirectiveHolder = { astNode?: { directives?: readonly unknown[] } | null; extensionASTNodes?: readonly { directives?: readonly unknown[] }[] };

/** Directives applied to a type or field (its definition and extensions), with their arguments as values. */
export function directivesOf(node: DirectiveHolder): { name: string; args: Record<string, unknown> }[] {
  const out: { name: string; args: Record<string, unknown> }[] = [];
  for (const n of [node.astNode, ...(node.extensionASTNodes ?? [])]) {
    for (const d of (n?.directives ?? []) as { name: { value: string }; arguments?: { name: { value: string }; value: Parameters<typeof valueFromASTUntyped>[0] }[] }[]) {
      const args: Record<string, unknown> = {};
      for (const a of d.arguments ?? []) args[a.name.value] = valueFromASTUntyped(a.value);
      out.push({ name: d.name.value, args });
    }
  }
  return out;
}

function directiveArgs(node: DirectiveHolder, name: string): Record<string, unknown>[] {
  return directivesOf(node)
    .filter((d) => d.name === name)
    .map((d) => d.args);
}

/** Each directive's arguments by name (the first application of each). */
function directiveMap(node: DirectiveHolder): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  for (const d of directivesOf(node)) if (!out.has(d.name)) out.set(d.name, d.args);
  return out;
}

function hasDirective(type: GraphQLObjectType, ...names: string[]): boolean {
  return names.some((n) => directiveArgs(type, n).length > 0);
}

function moduleRootOf(type: GraphQLObjectType): { name: string; kind: string } | undefined {
  const d = directiveArgs(type, 'module_root')[0];
  return d && typeof d['name'] === 'string' && typeof d['type'] === 'string' ? { name: d['name'], kind: d['type'] } : undefined;
}

/**
 * Hugr's golden snapshots hold sections of a generated schema; some have module roots but not the `Query` fields
 * that lead to them (a real Hugr server always has them). This adds what a server would: for every module root
 * nothing reaches, the field chain from its operation root (`Query.bi`, `Query.function`, `_module_a_query.b`),
 * creating intermediate module roots where the snapshot has none. Schemas that are complete come back unchanged.
 */
export function completeModuleRoots(schema: GraphQLSchema): GraphQLSchema {
  const reached = new Set<string>();
  const visit = (t: GraphQLObjectType | null | undefined): void => {
    if (!t || reached.has(t.name)) return;
    reached.add(t.name);
    for (const f of Object.values(t.getFields())) {
      const named = getNamedType(f.type);
      if (isObjectType(named) && (moduleRootOf(named) || ['Function', 'MutationFunction'].includes(named.name))) visit(named);
    }
  };
  visit(schema.getQueryType());
  visit(schema.getMutationType());

  const fields = new Map<string, Map<string, string>>();
  /** The @module_root directive of each module root type on the way, for the ones the schema lacks. */
  const roots = new Map<string, string>();
  const addField = (type: string, field: string, target: string): void => {
    let m = fields.get(type);
    if (!m) fields.set(type, (m = new Map()));
    m.set(field, target);
  };
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || reached.has(type.name)) continue;
    const info = moduleRootOf(type);
    const root = info && ROOT_OF[info.kind];
    if (!info || !root) continue;
    if (root.under) addField(root.under, 'function', root.root);
    const segments = info.name.split('.');
    let parent = root.root;
    segments.forEach((segment, i) => {
      const name = i === segments.length - 1 ? type.name : `_module_${segments.slice(0, i + 1).join('_')}_${root.suffix}`;
      roots.set(name, `@module_root(name: "${segments.slice(0, i + 1).join('.')}", type: ${info.kind})`);
      addField(parent, segment, name);
      parent = name;
    });
  }
  // Data objects whose select query the snapshot leaves out: the field Hugr generates, on their module's query root.
  const queryFields = new Set<string>();
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || !type.name.startsWith('_module_')) continue;
    for (const f of Object.values(type.getFields())) queryFields.add(`${type.name}.${f.name}`);
  }
  for (const f of Object.values(schema.getQueryType()?.getFields() ?? {})) queryFields.add(`Query.${f.name}`);
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || !hasDirective(type, 'table', 'view')) continue;
    const select = directiveArgs(type, 'query').find((a) => a['type'] === 'SELECT');
    const filter = directiveArgs(type, 'filter_input')[0]?.['name'];
    if (!select || typeof select['name'] !== 'string') continue;
    const module = directiveArgs(type, 'module')[0]?.['name'];
    const segments = typeof module === 'string' && module !== '' ? module.split('.') : [];
    let parent = 'Query';
    segments.forEach((segment, i) => {
      const name = `_module_${segments.slice(0, i + 1).join('_')}_query`;
      roots.set(name, `@module_root(name: "${segments.slice(0, i + 1).join('.')}", type: QUERY)`);
      addField(parent, segment, name);
      parent = name;
    });
    if (queryFields.has(`${parent}.${select['name']}`)) continue;
    addField(parent, `${select['name']}(filter: ${typeof filter === 'string' ? filter : 'String'}, limit: Int = 2000, offset: Int = 0, order_by: [OrderByField], distinct_on: [String])`, `[${type.name}] @query(name: "${type.name}", type: SELECT)`);
  }
  if (fields.size === 0) return schema;
  const lines: string[] = [];
  if (!schema.getQueryType()) lines.push(`schema { query: Query${fields.has('Mutation') ? ' mutation: Mutation' : ''} }`);
  for (const [name, map] of fields) {
    const existing = schema.getType(name);
    const own = isObjectType(existing) ? existing.getFields() : {};
    const body = [...map].filter(([f]) => !own[f.replace(/\(.*$/, '')]).map(([f, t]) => `${f}: ${t}`);
    if (body.length) lines.push(existing ? `extend type ${name} { ${body.join(' ')} }` : `type ${name} ${roots.get(name) ?? ''} { ${body.join(' ')} }`);
  }
  const text = lines.join('\n');
  if (!text) return schema;
  return extendSchema(schema, parse(text), { assumeValidSDL: true });
}

const MUTATION_HUGR_TYPE: Record<string, string> = { INSERT: 'mutation_insert', UPDATE: 'mutation_update', DELETE: 'mutation_delete' };
const QUERY_HUGR_TYPE: Record<string, string> = { SELECT: 'select', SELECT_ONE: 'select_one', AGGREGATE: 'aggregate', AGGREGATE_BUCKET: 'bucket_agg' };

/**
 * The introspection a Hugr server gives for a schema: the standard one plus Hugr's extension fields
 * (`__Type.hugr_type/module/catalog`, `__Field.hugr_type/catalog/mcp_exclude/field_kind`), derived here from the
 * generated directives the way Hugr's compiler sets them (reference/hugr.md §2.10). Independent of Sextant's own
 * reading of those directives, so tests can compare the two.
 */
export function hugrIntrospection(schema: GraphQLSchema): { __schema: Record<string, unknown> } {
  const json = introspectionFromSchema(schema, { descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true, inputValueDeprecation: true }) as unknown as {
    __schema: { types: Record<string, unknown>[] };
  };
  const isDataObject = (name: string): boolean => {
    const t = schema.getType(name);
    return isObjectType(t) && hasDirective(t, 'table', 'view');
  };
  const isModuleRoot = (name: string): boolean => {
    const t = schema.getType(name);
    return isObjectType(t) && (!!moduleRootOf(t) || ['Query', 'Mutation', 'Function', 'MutationFunction'].includes(name));
  };
  for (const t of json.__schema.types) {
    const name = t['name'] as string;
    const type = schema.getType(name);
    const dirs = type ? directiveMap(type as DirectiveHolder) : new Map<string, Record<string, unknown>>();
    const moduleRoot = isObjectType(type) ? moduleRootOf(type) : undefined;
    t['hugr_type'] = moduleRoot ? 'module' : dirs.has('table') ? 'table' : dirs.has('view') ? 'view' : dirs.has('filter_input') ? 'filter' : dirs.has('filter_list_input') ? 'filter_list' : dirs.has('data_input') ? 'data_input' : '';
    t['module'] = moduleRoot?.name ?? (typeof dirs.get('module')?.['name'] === 'string' ? (dirs.get('module')!['name'] as string) : '');
    t['catalog'] = typeof dirs.get('catalog')?.['name'] === 'string' ? dirs.get('catalog')!['name'] : null;
    const fieldMap = isObjectType(type) || isInterfaceType(type) ? type.getFields() : {};
    for (const f of (t['fields'] as Record<string, unknown>[] | null) ?? []) {
      const field = fieldMap[f['name'] as string];
      const fd = field ? directiveMap(field as DirectiveHolder) : new Map<string, Record<string, unknown>>();
      const named = field ? getNamedType(field.type).name : '';
      let hugrType = '';
      let fieldKind: string | null = null;
      if (isModuleRoot(name)) {
        if (isModuleRoot(named) && named !== name) hugrType = 'submodule';
        else if (fd.has('query')) hugrType = QUERY_HUGR_TYPE[fd.get('query')!['type'] as string] ?? '';
        else if (fd.has('aggregation_query')) hugrType = fd.get('aggregation_query')!['is_bucket'] === true ? 'bucket_agg' : 'aggregate';
        else if (fd.has('mutation')) hugrType = MUTATION_HUGR_TYPE[fd.get('mutation')!['type'] as string] ?? '';
        else if (fd.has('function')) hugrType = 'function';
      } else if (isDataObject(name)) {
        if (fd.has('sql')) [hugrType, fieldKind] = ['calculated', 'extra'];
        else if (fd.has('extra_field')) [hugrType, fieldKind] = ['extra_field', 'extra'];
        else if (fd.has('function_call') || fd.has('table_function_call_join')) [hugrType, fieldKind] = ['function', 'extra'];
        else if (fd.has('aggregation_query')) [hugrType, fieldKind] = [fd.get('aggregation_query')!['is_bucket'] === true ? 'bucket_agg' : 'aggregate', 'extra'];
        else if (isDataObject(named)) [hugrType, fieldKind] = [field && isListType(isNonNullType(field.type) ? field.type.ofType : field.type) ? 'select' : 'select_one', 'relation'];
        else if ((f['name'] as string).startsWith('_')) fieldKind = 'extra';
        else [hugrType, fieldKind] = ['column', 'column'];
      }
      f['hugr_type'] = hugrType;
      f['catalog'] = typeof fd.get('catalog')?.['name'] === 'string' ? fd.get('catalog')!['name'] : null;
      f['mcp_exclude'] = fd.has('exclude_mcp');
      f['field_kind'] = fieldKind;
    }
  }
  // Hugr's own extension of the introspection types, as its introspection lists them.
  const scalar = (name: string) => ({ kind: 'SCALAR', name, ofType: null });
  const extra = (name: string, type: string) => ({ name, description: null, args: [], type: scalar(type), isDeprecated: false, deprecationReason: null });
  const add: Record<string, [string, string][]> = {
    __Type: [['hugr_type', 'String'], ['module', 'String'], ['catalog', 'String']],
    __Field: [['hugr_type', 'String'], ['catalog', 'String'], ['mcp_exclude', 'Boolean'], ['field_kind', 'String']],
    __InputValue: [['hugr_type', 'String']],
  };
  for (const t of json.__schema.types) {
    const more = add[t['name'] as string];
    if (more) t['fields'] = [...((t['fields'] as unknown[]) ?? []), ...more.map(([n, ty]) => extra(n, ty))];
  }
  return json as unknown as { __schema: Record<string, unknown> };
}
