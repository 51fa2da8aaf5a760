import { Kind, parse, print, visit, type FieldNode, type GraphQLSchema, type SelectionSetNode } from 'graphql';
import type { HugrDataSource, HugrExtensions, HugrMetaObject, HugrServerGeneration } from './model.js';

/** Hugr's extra introspection fields, per introspection type, in the order they are asked for. */
export const HUGR_TYPE_FIELDS = ['hugr_type', 'module', 'catalog'] as const;
export const HUGR_FIELD_FIELDS = ['hugr_type', 'catalog', 'mcp_exclude', 'field_kind'] as const;

/** Asks a server which fields its `__Type` and `__Field` have: safe on any GraphQL server. */
export const EXTENSION_PROBE = '{ t: __type(name: "__Type") { fields { name } } f: __type(name: "__Field") { fields { name } } }';

/** The extension fields a probe answer says the server has; undefined when it has none (not Hugr). */
export function extensionFieldsOf(probe: unknown): { type: string[]; field: string[] } | undefined {
  const data = (probe as { data?: { t?: { fields?: { name?: unknown }[] } | null; f?: { fields?: { name?: unknown }[] } | null } } | null)?.data;
  const names = (x: { fields?: { name?: unknown }[] } | null | undefined): Set<string> => new Set((x?.fields ?? []).map((f) => f.name).filter((n): n is string => typeof n === 'string'));
  const t = names(data?.t);
  const f = names(data?.f);
  const type = HUGR_TYPE_FIELDS.filter((n) => t.has(n));
  const field = HUGR_FIELD_FIELDS.filter((n) => f.has(n));
  return type.includes('hugr_type') ? { type, field } : undefined;
}

/**
 * The standard introspection query with Hugr's extra fields added to every `__Type` selection that has `kind`
 * and to the `fields` of those (graphql-js's own query, edited as a document, never as text).
 */
export function extendedIntrospectionQuery(base: string, fields: { type: readonly string[]; field: readonly string[] }): string {
  const add = (set: SelectionSetNode, names: readonly string[]): SelectionSetNode => {
    const have = new Set(set.selections.filter((s): s is FieldNode => s.kind === Kind.FIELD).map((s) => s.name.value));
    const extra: FieldNode[] = names.filter((n) => !have.has(n)).map((n) => ({ kind: Kind.FIELD, name: { kind: Kind.NAME, value: n } }));
    return { ...set, selections: [...set.selections, ...extra] };
  };
  const doc = visit(parse(base), {
    FragmentDefinition(node) {
      if (node.typeCondition.name.value !== '__Type') return undefined;
      const selections = node.selectionSet.selections.map((s) => (s.kind === Kind.FIELD && s.name.value === 'fields' && s.selectionSet ? { ...s, selectionSet: add(s.selectionSet, fields.field) } : s));
      return { ...node, selectionSet: add({ ...node.selectionSet, selections }, fields.type) };
    },
  });
  return print(doc);
}

function text(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** Hugr's extension values in an introspection `__schema`; undefined when it carries none. */
export function hugrExtensionsOf(rawSchema: Record<string, unknown>): HugrExtensions | undefined {
  const types = new Map<string, { hugr_type?: string; module?: string; catalog?: string }>();
  const fields = new Map<string, { hugr_type?: string; catalog?: string; mcp_exclude?: boolean; field_kind?: string }>();
  let any = false;
  for (const t of Array.isArray(rawSchema['types']) ? (rawSchema['types'] as Record<string, unknown>[]) : []) {
    if (typeof t !== 'object' || t === null || typeof t['name'] !== 'string') continue;
    const name = t['name'];
    if ('hugr_type' in t) any = true;
    const entry: { hugr_type?: string; module?: string; catalog?: string } = {};
    const h = text(t['hugr_type']);
    const m = typeof t['module'] === 'string' ? t['module'] : undefined;
    const c = text(t['catalog']);
    if (h) entry.hugr_type = h;
    if (m !== undefined && (h === 'module' || m !== '')) entry.module = m;
    if (c) entry.catalog = c;
    if (Object.keys(entry).length) types.set(name, entry);
    for (const f of Array.isArray(t['fields']) ? (t['fields'] as Record<string, unknown>[]) : []) {
      if (typeof f !== 'object' || f === null || typeof f['name'] !== 'string') continue;
      const fe: { hugr_type?: string; catalog?: string; mcp_exclude?: boolean; field_kind?: string } = {};
      const fh = text(f['hugr_type']);
      const fc = text(f['catalog']);
      const fk = text(f['field_kind']);
      if (fh) fe.hugr_type = fh;
      if (fc) fe.catalog = fc;
      if (f['mcp_exclude'] === true) fe.mcp_exclude = true;
      if (fk) fe.field_kind = fk;
      if (Object.keys(fe).length) fields.set(`${name}.${f['name']}`, fe);
    }
  }
  return any ? { types, fields } : undefined;
}

/**
 * Which generation of Hugr a schema comes from, by what its roots offer: the logical-model meta queries
 * (`_catalog`, v0.3.42+), the `core.catalog` module (v0.3.0–v0.3.41), or `function.core.meta.schema_summary`
 * (v0.1–v0.2). Undefined when none of them is there.
 */
export function hugrGenerationOf(schema: GraphQLSchema): HugrServerGeneration | undefined {
  const query = schema.getQueryType();
  const fieldsOf = (typeName: string | undefined): Record<string, { type: unknown }> => {
    const t = typeName ? schema.getType(typeName) : undefined;
    return t && 'getFields' in t ? (t.getFields() as Record<string, { type: unknown }>) : {};
  };
  const namedOf = (f: { type: unknown } | undefined): string | undefined => {
    let t = f?.type as { ofType?: unknown; name?: string } | undefined;
    while (t && t.ofType) t = t.ofType as typeof t;
    return t?.name;
  };
  const root = fieldsOf(query?.name);
  if (root['_catalog'] || root['_dataObject']) return 'v0.3.42';
  const core = fieldsOf(namedOf(root['core']));
  if (core['catalog']) return 'v0.3';
  const fnCore = fieldsOf(namedOf(fieldsOf(namedOf(root['function']))['core']));
  if (fieldsOf(namedOf(fnCore['meta']))['schema_summary']) return 'v0.1';
  return undefined;
}

/** Data sources as `_dataSources` (v0.3.42+) describes them. */
export const META_DATA_SOURCES_QUERY = '{ _dataSources { name engine description readOnly asModule isExtension } }';

export function dataSourcesFromMeta(answer: unknown): HugrDataSource[] | undefined {
  const list = (answer as { data?: { _dataSources?: unknown } } | null)?.data?._dataSources;
  if (!Array.isArray(list)) return undefined;
  const out: HugrDataSource[] = [];
  for (const d of list as Record<string, unknown>[]) {
    if (typeof d !== 'object' || d === null || typeof d['name'] !== 'string') continue;
    const ds: HugrDataSource = { name: d['name'], inferred: false };
    if (text(d['engine'])) ds.engine = d['engine'] as string;
    if (text(d['description'])) ds.description = d['description'] as string;
    if (typeof d['readOnly'] === 'boolean') ds.readOnly = d['readOnly'];
    if (typeof d['asModule'] === 'boolean') ds.asModule = d['asModule'];
    if (typeof d['isExtension'] === 'boolean') ds.isExtension = d['isExtension'];
    out.push(ds);
  }
  return out;
}

const META_OBJECT_SELECTION = 'name primaryKey properties { isM2M isCube isHypertable softDelete hasVectors } relations { name direction kind fieldName dataObject { name } through { name } sourceKeys destinationKeys }';
/** Data objects asked for per `_dataObject` request (aliases o0, o1, …). */
export const META_OBJECTS_PER_REQUEST = 100;

/** One request for the `_dataObject` answers of these type names. */
export function metaObjectsQuery(names: readonly string[]): string {
  return `{ ${names.map((n, i) => `o${i}: _dataObject(name: ${JSON.stringify(n)}) { ${META_OBJECT_SELECTION} }`).join(' ')} }`;
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** The data objects in an answer to `metaObjectsQuery`. */
export function metaObjectsOf(answer: unknown): HugrMetaObject[] {
  const data = (answer as { data?: Record<string, unknown> } | null)?.data ?? {};
  const out: HugrMetaObject[] = [];
  for (const v of Object.values(data)) {
    if (!v || typeof v !== 'object' || typeof (v as { name?: unknown }).name !== 'string') continue;
    const o = v as Record<string, unknown>;
    const props = (o['properties'] ?? {}) as Record<string, unknown>;
    const bool = (k: string) => (typeof props[k] === 'boolean' ? { [k]: props[k] as boolean } : {});
    out.push({
      name: o['name'] as string,
      primaryKey: strings(o['primaryKey']),
      properties: { ...bool('isM2M'), ...bool('isCube'), ...bool('isHypertable'), ...bool('softDelete'), ...bool('hasVectors') },
      relations: (Array.isArray(o['relations']) ? (o['relations'] as Record<string, unknown>[]) : []).map((r) => {
        const named = (x: unknown) => (x && typeof x === 'object' && typeof (x as { name?: unknown }).name === 'string' ? { v: (x as { name: string }).name } : undefined);
        const target = named(r['dataObject']);
        const through = named(r['through']);
        return {
          ...(typeof r['name'] === 'string' ? { name: r['name'] } : {}),
          ...(typeof r['direction'] === 'string' ? { direction: r['direction'] } : {}),
          ...(typeof r['kind'] === 'string' ? { kind: r['kind'] } : {}),
          ...(typeof r['fieldName'] === 'string' ? { fieldName: r['fieldName'] } : {}),
          ...(target ? { dataObject: target.v } : {}),
          ...(through ? { through: through.v } : {}),
          sourceKeys: strings(r['sourceKeys']),
          destinationKeys: strings(r['destinationKeys']),
        };
      }),
    });
  }
  return out;
}
