/**
 * Reads what a Hugr v0.3.0–v0.3.41 server says about its data platform through the `core.catalog` module: its
 * data sources (catalogs) with their exact prefix, engine, read-only and as-module flags; its data objects with
 * their primary keys; and, from each registered source's own SDL (`describe_data_source_schema`), original names,
 * flags and relations with their keys. Every request is batched (per page, per chunk of names, per group of
 * sources), never one per field; a question the server does not answer costs a warning, never the build.
 */
import { getNamedType, isObjectType, type GraphQLSchema } from 'graphql';
import type { HugrDataSource, HugrMetaObject, HugrServerFacts } from './model.js';
import { mergeObjectFacts, sourceSdlFacts, type SdlObjectFacts } from './source-sdl.js';

/** A side query: its JSON answer when it has `data`, else undefined. Never throws. */
export type Ask = (query: string) => Promise<unknown>;

/** Rows asked for per page of a catalog list. */
export const CATALOG_PAGE = 1000;
/** Type names per `in` filter. */
export const CATALOG_NAMES_PER_REQUEST = 200;
/** Sources whose SDL is asked for in one request (aliases d0, d1, …). */
export const SOURCES_PER_REQUEST = 10;
/** The catalog Hugr keeps its own system types in: not a data source. */
const SYSTEM_CATALOG = '_system';

export const SCHEMA_CATALOGS_QUERY = `{ core { catalog { schema_catalogs(order_by: [{field: "name", direction: ASC}], limit: ${CATALOG_PAGE * 10}) { name version type prefix as_module read_only disabled suspended description } } } }`;
export const REGISTERED_SOURCES_QUERY = '{ core { data_sources { name } } }';

export interface CatalogFacts extends HugrServerFacts {
  dataSources: HugrDataSource[];
  dataObjects: Map<string, HugrMetaObject>;
  warnings: string[];
}

type Json = Record<string, unknown>;

function dataOf(answer: unknown, ...path: string[]): unknown {
  let cur = (answer as { data?: unknown } | null | undefined)?.data;
  for (const p of path) cur = cur && typeof cur === 'object' ? (cur as Json)[p] : undefined;
  return cur;
}

function text(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function rows(v: unknown): Json[] {
  return Array.isArray(v) ? v.filter((x): x is Json => typeof x === 'object' && x !== null) : [];
}

/** Whether a schema has `core { catalog { schema_catalogs } }` (v0.3.0 and later). */
export function hasSchemaCatalogs(schema: GraphQLSchema): boolean {
  let type: unknown = schema.getQueryType();
  for (const field of ['core', 'catalog', 'schema_catalogs']) {
    if (!isObjectType(type)) return false;
    const f = type.getFields()[field];
    if (!f) return false;
    type = getNamedType(f.type);
  }
  return true;
}

/**
 * A data source as Hugr's tables describe it, the same in v0.3's `schema_catalogs` and v0.1's `schema_summary`:
 * `name`, `type` (the engine), `prefix`, `as_module`, `read_only`, `description` ("" read as absent).
 */
export function dataSourceOfRow(c: Record<string, unknown>): HugrDataSource | undefined {
  const name = text(c['name']);
  if (!name) return undefined;
  const ds: HugrDataSource = { name, inferred: false };
  const engine = text(c['type']);
  if (engine) {
    ds.engine = engine;
    ds.isExtension = engine === 'extension';
  }
  const prefix = text(c['prefix']);
  if (prefix) ds.prefix = prefix;
  if (typeof c['as_module'] === 'boolean') ds.asModule = c['as_module'];
  if (typeof c['read_only'] === 'boolean') ds.readOnly = c['read_only'];
  const description = text(c['description']);
  if (description) ds.description = description;
  return ds;
}

/** The data sources a `schema_catalogs` answer lists (without Hugr's `_system`, disabled and suspended ones). */
export function dataSourcesFromCatalog(answer: unknown): HugrDataSource[] | undefined {
  const list = dataOf(answer, 'core', 'catalog', 'schema_catalogs');
  if (!Array.isArray(list)) return undefined;
  const out: HugrDataSource[] = [];
  for (const c of rows(list)) {
    if (c['name'] === SYSTEM_CATALOG || c['disabled'] === true || c['suspended'] === true) continue;
    const ds = dataSourceOfRow(c);
    if (ds) out.push(ds);
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export function dataObjectsPageQuery(offset: number): string {
  return `{ core { catalog { data_objects(order_by: [{field: "name", direction: ASC}], limit: ${CATALOG_PAGE}, offset: ${offset}) { name filter_type_name args_type_name } } } }`;
}

export function primaryKeysQuery(typeNames: readonly string[]): string {
  return `{ core { catalog { fields(filter: {type_name: {in: ${JSON.stringify(typeNames)}}, is_pk: {eq: true}}, order_by: [{field: "type_name", direction: ASC}], limit: ${CATALOG_PAGE * 10}) { type_name name is_pk ordinal } } } }`;
}

export function sourceSchemasQuery(names: readonly string[]): string {
  return `{ function { core { ${names.map((n, i) => `d${i}: describe_data_source_schema(name: ${JSON.stringify(n)})`).join(' ')} } } }`;
}

/**
 * The SDL of each named source, asked for in groups; a group the server refuses (one unknown source fails the
 * whole answer) is asked for again one source at a time. Sources the server has no SDL for are left out.
 */
export async function sourceSchemas(ask: Ask, names: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const askGroup = async (group: readonly string[]): Promise<boolean> => {
    const core = dataOf(await ask(sourceSchemasQuery(group)), 'function', 'core');
    if (!core || typeof core !== 'object') return false;
    group.forEach((n, i) => {
      const sdl = (core as Json)[`d${i}`];
      if (typeof sdl === 'string') out.set(n, sdl);
    });
    return true;
  };
  for (let i = 0; i < names.length; i += SOURCES_PER_REQUEST) {
    const group = names.slice(i, i + SOURCES_PER_REQUEST);
    if (!(await askGroup(group)) && group.length > 1) for (const n of group) await askGroup([n]);
  }
  return out;
}

/** Facts from the sources' own SDL, with a warning per source whose SDL does not read. */
export function factsFromSchemas(schemas: ReadonlyMap<string, string>, sources: readonly HugrDataSource[], primaryKeyOf: (typeName: string) => string[] | undefined, warnings: string[]): Map<string, SdlObjectFacts>[] {
  const out: Map<string, SdlObjectFacts>[] = [];
  for (const [name, sdl] of schemas) {
    if (sdl.trim() === '') continue;
    const ds = sources.find((s) => s.name === name);
    try {
      out.push(sourceSdlFacts(sdl, { name, ...(ds?.prefix ? { prefix: ds.prefix } : {}), ...(ds?.isExtension ? { isExtension: true } : {}) }, primaryKeyOf));
    } catch (err) {
      warnings.push(`the SDL of data source "${name}" does not read (${(err as Error).message.split('\n')[0]}); its relation keys and original names are inferred from the schema`);
    }
  }
  return out;
}

/** Original name of a prefixed data object Hugr names `<prefix>_<name>` (extension sources keep their views' names). */
export function stripPrefix(typeName: string, ds: HugrDataSource | undefined, isView: boolean): string | undefined {
  if (!ds?.prefix || (ds.isExtension && isView) || !typeName.startsWith(`${ds.prefix}_`)) return undefined;
  return typeName.slice(ds.prefix.length + 1) || undefined;
}

/**
 * Reads the `core.catalog` of a v0.3 server. `objectCatalogs` maps each data object's type name to its catalog (the
 * introspection's `__Type.catalog`) and kind, so original names of objects whose source has no SDL to read
 * (Hugr's own `core` sources) follow from the catalog's exact prefix. Undefined when `schema_catalogs` is not
 * answered at all.
 */
export async function readCoreCatalog(ask: Ask, objectCatalogs: ReadonlyMap<string, { catalog?: string; kind: 'table' | 'view' }> = new Map()): Promise<CatalogFacts | undefined> {
  const dataSources = dataSourcesFromCatalog(await ask(SCHEMA_CATALOGS_QUERY));
  if (!dataSources) return undefined;
  const warnings: string[] = [];

  // Data objects, a page at a time.
  const names: string[] = [];
  for (let offset = 0; ; offset += CATALOG_PAGE) {
    const page = dataOf(await ask(dataObjectsPageQuery(offset)), 'core', 'catalog', 'data_objects');
    if (!Array.isArray(page)) {
      warnings.push('the server did not list its data objects (core.catalog.data_objects); primary keys and relation kinds are inferred from the schema');
      break;
    }
    for (const o of rows(page)) if (text(o['name'])) names.push(o['name'] as string);
    if (page.length < CATALOG_PAGE) break;
  }

  // Primary keys (is_pk: also of objects without a by-key query), by chunks of type names.
  // (`ordinal` is not sortable on the server: key fields are put in order here.)
  const keyFields = new Map<string, { name: string; ordinal: number }[]>(names.map((n) => [n, []]));
  for (let i = 0; i < names.length; i += CATALOG_NAMES_PER_REQUEST) {
    const list = dataOf(await ask(primaryKeysQuery(names.slice(i, i + CATALOG_NAMES_PER_REQUEST))), 'core', 'catalog', 'fields');
    if (!Array.isArray(list)) {
      warnings.push('the server did not answer core.catalog.fields; primary keys are read from the by-key queries');
      break;
    }
    for (const f of rows(list)) {
      if (f['is_pk'] !== true || !text(f['type_name']) || !text(f['name'])) continue;
      keyFields.get(f['type_name'] as string)?.push({ name: f['name'] as string, ordinal: typeof f['ordinal'] === 'number' ? f['ordinal'] : Number.MAX_SAFE_INTEGER });
    }
  }
  const primaryKeys = new Map([...keyFields].map(([n, fs]) => [n, [...fs].sort((a, b) => a.ordinal - b.ordinal).map((f) => f.name)]));

  const base = new Map<string, HugrMetaObject>();
  for (const name of names) {
    const info = objectCatalogs.get(name);
    const original = stripPrefix(name, dataSources.find((d) => d.name === info?.catalog), info?.kind === 'view');
    base.set(name, { name, ...(original ? { originalName: original } : {}), primaryKey: primaryKeys.get(name) ?? [], properties: {}, relations: [] });
  }

  // The registered sources' own SDL: original names, flags, relations and their keys.
  const registered = rows(dataOf(await ask(REGISTERED_SOURCES_QUERY), 'core', 'data_sources'))
    .map((d) => text(d['name']))
    .filter((n): n is string => !!n && dataSources.some((s) => s.name === n))
    .sort();
  const schemas = await sourceSchemas(ask, registered);
  const missing = registered.filter((n) => !schemas.has(n));
  if (missing.length) warnings.push(`the server did not describe the schema of data source${missing.length > 1 ? 's' : ''} ${missing.join(', ')}; their relation keys are inferred from the schema`);
  const facts = factsFromSchemas(schemas, dataSources, (t) => primaryKeys.get(t), warnings);
  return { dataSources, dataObjects: mergeObjectFacts(base, facts), warnings };
}
