import { extendSchema, getNamedType, isObjectType, parse, valueFromASTUntyped, type GraphQLObjectType, type GraphQLSchema } from 'graphql';


const ROOT_OF: Record<string, { root: string; suffix: string; under?: string }> = {
  QUERY: { root: 'Query', suffix: 'query' },
  MUTATION: { root: 'Mutation', suffix: 'mutation' },
  FUNCTION: { root: 'Function', suffix: 'function', under: 'Query' },
  MUT_FUNCTION: { root: 'MutationFunction', suffix: 'mut_function', under: 'Mutation' },
};

function directiveArgs(type: GraphQLObjectType, name: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const node of [type.astNode, ...type.extensionASTNodes]) {
    for (const d of node?.directives ?? []) {
      if (d.name.value !== name) continue;
      const args: Record<string, unknown> = {};
      for (const a of d.arguments ?? []) args[a.name.value] = valueFromASTUntyped(a.value);
      out.push(args);
    }
  }
  return out;
}

function hasDirective(type: GraphQLObjectType, ...names: string[]): boolean {
  return names.some((n) => directiveArgs(type, n).length > 0);
}

function moduleRootOf(type: GraphQLObjectType): { name: string; kind: string } | undefined {
  for (const node of [type.astNode, ...type.extensionASTNodes]) {
    const d = node?.directives?.find((x) => x.name.value === 'module_root');
    if (!d) continue;
    const arg = (n: string) => d.arguments?.find((a) => a.name.value === n)?.value;
    const name = arg('name');
    const kind = arg('type');
    if (name?.kind === 'StringValue' && kind?.kind === 'EnumValue') return { name: name.value, kind: kind.value };
  }
  return undefined;
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
      addField(parent, segment, name);
      parent = name;
    });
    if (queryFields.has(`${parent}.${select['name']}`)) continue;
    addField(parent, `${select['name']}(filter: ${typeof filter === 'string' ? filter : 'String'}, limit: Int = 2000, offset: Int = 0, order_by: [OrderByField], distinct_on: [String])`, `[${type.name}]`);
  }
  if (fields.size === 0) return schema;
  const lines: string[] = [];
  if (!schema.getQueryType()) lines.push(`schema { query: Query${fields.has('Mutation') ? ' mutation: Mutation' : ''} }`);
  for (const [name, map] of fields) {
    const existing = schema.getType(name);
    const own = isObjectType(existing) ? existing.getFields() : {};
    const body = [...map].filter(([f]) => !own[f.replace(/\(.*$/, '')]).map(([f, t]) => `${f}: ${t}`);
    if (body.length) lines.push(`${existing ? 'extend ' : ''}type ${name} { ${body.join(' ')} }`);
  }
  const text = lines.join('\n');
  if (!text) return schema;
  return extendSchema(schema, parse(text), { assumeValidSDL: true });
}
