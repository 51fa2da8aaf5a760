import { buildClientSchema, type GraphQLSchema, type IntrospectionQuery } from 'graphql';
import { checkIntrospectionDepth } from './depth.js';
import { GraphqlSourceError } from './errors.js';

/** Structural view of introspection JSON as it arrives (nothing is trusted until checked). */
interface RawTypeRef {
  kind?: unknown;
  name?: unknown;
  ofType?: RawTypeRef | null;
}
interface RawInputValue {
  type?: RawTypeRef;
}
interface RawField {
  type?: RawTypeRef;
  args?: RawInputValue[] | null;
}
interface RawType {
  kind?: unknown;
  name?: unknown;
  fields?: RawField[] | null;
  inputFields?: RawInputValue[] | null;
  interfaces?: RawTypeRef[] | null;
  possibleTypes?: RawTypeRef[] | null;
}
interface RawSchema {
  types: RawType[];
  directives?: { args?: RawInputValue[] | null }[] | null;
  queryType?: RawTypeRef | null;
  mutationType?: RawTypeRef | null;
  subscriptionType?: RawTypeRef | null;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The `__schema` object of an introspection result given as `{data: {__schema}}` or `{__schema}`; throws
 * NOT_INTROSPECTION (naming `what`) for anything else.
 */
export function introspectionSchemaOf(json: unknown, what: string): Record<string, unknown> {
  let schema: unknown;
  if (isObject(json) && isObject(json['data']) && '__schema' in json['data']) schema = json['data']['__schema'];
  else if (isObject(json) && '__schema' in json) schema = json['__schema'];
  else {
    const found = isObject(json) ? `an object with keys ${Object.keys(json).slice(0, 10).map((k) => JSON.stringify(k)).join(', ') || '(none)'}` : Array.isArray(json) ? 'an array' : `a ${json === null ? 'null' : typeof json}`;
    throw new GraphqlSourceError(
      'NOT_INTROSPECTION',
      `${what} is not a GraphQL introspection result: expected {"data": {"__schema": …}} or {"__schema": …}, found ${found}. ` +
        'Produce one with the standard introspection query (graphql-js getIntrospectionQuery()), or give the schema as SDL (.graphql).',
    );
  }
  if (!isObject(schema) || !Array.isArray(schema['types'])) {
    throw new GraphqlSourceError('NOT_INTROSPECTION', `${what} has "__schema" but no "types" list in it, so it is not a complete introspection result. Use the full introspection query (graphql-js getIntrospectionQuery()).`);
  }
  return schema;
}

/** JSON text with object keys sorted at every level: equal data gives equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (!isObject(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) sorted[k] = v[k];
    return sorted;
  });
}

const BUILTIN_NAMES = new Set(['String', 'Int', 'Float', 'Boolean', 'ID']);

/**
 * Builds a schema from a checked `__schema` object. Types that are referenced but missing from `types` get
 * placeholders (interface, object or scalar by how they are used), reported in `warnings`; built-in scalars and
 * introspection types that a server left out are restored silently.
 */
export function buildFromIntrospection(rawSchema: Record<string, unknown>, what: string): { schema: GraphQLSchema; warnings: string[]; placeholders: string[]; completed: Record<string, unknown> } {
  checkIntrospectionDepth(rawSchema, what);
  const raw = rawSchema as unknown as RawSchema;
  const warnings: string[] = [];
  const defined = new Set<string>();
  for (const t of raw.types) if (isObject(t) && typeof t.name === 'string') defined.add(t.name);

  const roles = new Map<string, 'scalar' | 'object' | 'interface'>();
  const rank = { scalar: 0, object: 1, interface: 2 } as const;
  const use = (ref: RawTypeRef | null | undefined, role: 'scalar' | 'object' | 'interface'): void => {
    let cur = ref;
    for (let depth = 0; cur && isObject(cur.ofType) && depth < 16; depth++) cur = cur.ofType;
    if (!cur || typeof cur.name !== 'string' || defined.has(cur.name)) return;
    const prev = roles.get(cur.name);
    if (!prev || rank[role] > rank[prev]) roles.set(cur.name, role);
  };
  for (const t of raw.types) {
    if (!isObject(t)) continue;
    for (const f of Array.isArray(t.fields) ? t.fields : []) {
      use(f?.type, 'scalar');
      for (const a of Array.isArray(f?.args) ? f.args : []) use(a?.type, 'scalar');
    }
    for (const f of Array.isArray(t.inputFields) ? t.inputFields : []) use(f?.type, 'scalar');
    for (const i of Array.isArray(t.interfaces) ? t.interfaces : []) use(i, 'interface');
    if (t.kind === 'UNION') for (const m of Array.isArray(t.possibleTypes) ? t.possibleTypes : []) use(m, 'object');
  }
  for (const d of Array.isArray(raw.directives) ? raw.directives : []) for (const a of Array.isArray(d?.args) ? d.args : []) use(a?.type, 'scalar');
  for (const root of [raw.queryType, raw.mutationType, raw.subscriptionType]) use(root, 'object');

  const names = [...roles.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const types: unknown[] = [...raw.types];
  const reported: string[] = [];
  for (const name of names) {
    const role = roles.get(name)!;
    if (!BUILTIN_NAMES.has(name) && !name.startsWith('__')) reported.push(`${name} (${role})`);
    if (role === 'scalar') types.push({ kind: 'SCALAR', name, description: null, specifiedByURL: null });
    else types.push({ kind: role === 'object' ? 'OBJECT' : 'INTERFACE', name, description: null, fields: [], interfaces: [], possibleTypes: [] });
  }
  if (reported.length) {
    warnings.push(`${what}: ${reported.length} type${reported.length === 1 ? ' is' : 's are'} referenced but missing from the introspection result; added empty placeholders: ${reported.join(', ')}`);
  }
  try {
    const completed = { ...rawSchema, types };
    const schema = buildClientSchema({ __schema: completed } as unknown as IntrospectionQuery);
    return { schema, warnings, placeholders: names.filter((n) => !BUILTIN_NAMES.has(n) && !n.startsWith('__')), completed };
  } catch (err) {
    throw new GraphqlSourceError(
      'NOT_INTROSPECTION',
      `${what} is an incomplete or malformed introspection result: ${(err as Error).message}. Produce it with the standard introspection query (graphql-js getIntrospectionQuery()).`,
    );
  }
}
