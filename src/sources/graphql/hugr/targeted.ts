/**
 * Targeted refresh of a Hugr v0.3 schema. Hugr's core catalog versions every data source (catalog) it has loaded
 * (`core.catalog.schema_catalogs.version`, a hash of its compiled schema), so a refresh asks for those versions
 * first: when none changed the previous introspection stands as it is; when some did, only the types those data
 * sources contribute to (their own types, every type with a field from them or depending on them, and the module
 * roots) are introspected again, one `__type` each, and merged into the previous introspection. A forced scope
 * (a data source named by the caller) is re-read whatever its version says.
 */
import { Kind, parse, print, type DefinitionNode } from 'graphql';
import { SCHEMA_CATALOGS_QUERY, type Ask } from './catalog.js';

/** `__type` lookups per request. */
const TYPES_PER_REQUEST = 50;

export interface CatalogState {
  /** Version per data source (catalog), as the server reported it. */
  versions: Record<string, string>;
}

export interface TargetedResult {
  /** The merged `__schema`. */
  schema: Record<string, unknown>;
  /** Data sources whose types were read again (changed, added, removed or forced), sorted. */
  dataSources: string[];
  /** How many types were read again, and which appeared or disappeared. */
  typesRead: number;
  typesAdded: string[];
  typesRemoved: string[];
}

/**
 * The catalog versions a v0.3 server reports, or undefined (not v0.3, or it did not answer). The same question
 * catalog.ts reads the data sources from, so a read asks it once.
 */
export async function catalogVersions(ask: Ask): Promise<Record<string, string> | undefined> {
  const list = ((await ask(SCHEMA_CATALOGS_QUERY)) as { data?: { core?: { catalog?: { schema_catalogs?: unknown } } } } | undefined)?.data?.core?.catalog?.schema_catalogs;
  if (!Array.isArray(list)) return undefined;
  const out: Record<string, string> = {};
  for (const c of list as { name?: unknown; version?: unknown }[]) if (typeof c?.name === 'string') out[c.name] = typeof c.version === 'string' ? c.version : '';
  return out;
}

/** Data sources whose version differs, that appeared or disappeared, plus the forced ones; sorted. */
export function changedCatalogs(before: Record<string, string>, now: Record<string, string>, forced: readonly string[] = []): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(now)]);
  const changed = [...names].filter((n) => before[n] !== now[n]);
  return [...new Set([...changed, ...forced])].sort();
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * Re-reads the types the `changed` data sources contribute to and merges them into `previous` (an introspection
 * `__schema` with Hugr's extension fields). `fullQuery` is the introspection query the server accepted (its
 * `FullType` fragment is reused for each type). Undefined when the server does not say what to re-read.
 */
export async function targetedIntrospection(ask: Ask, previous: Record<string, unknown>, changed: readonly string[], fullQuery: string): Promise<TargetedResult | undefined> {
  const types = (Array.isArray(previous['types']) ? previous['types'] : []) as Record<string, unknown>[];
  if (types.length === 0) return undefined;
  const quoted = JSON.stringify(changed);
  const answer = (await ask(
    `{ core { catalog { types(filter: {catalog: {in: ${quoted}}}) { name } fields(filter: {_or: [{catalog: {in: ${quoted}}}, {dependency_catalog: {in: ${quoted}}}]}, distinct_on: ["type_name"]) { type_name } modules { query_root mutation_root function_root mut_function_root } } } }`,
  )) as { data?: { core?: { catalog?: { types?: { name?: unknown }[]; fields?: { type_name?: unknown }[]; modules?: Record<string, unknown>[] } } } } | undefined;
  const catalog = answer?.data?.core?.catalog;
  if (!catalog || !Array.isArray(catalog.types) || !Array.isArray(catalog.fields) || !Array.isArray(catalog.modules)) return undefined;

  const wanted = new Set<string>(['Query', 'Mutation', 'Function', 'MutationFunction']);
  for (const t of catalog.types) if (typeof t.name === 'string') wanted.add(t.name);
  for (const f of catalog.fields) if (typeof f.type_name === 'string') wanted.add(f.type_name);
  for (const m of catalog.modules) for (const k of ['query_root', 'mutation_root', 'function_root', 'mut_function_root']) if (str(m[k])) wanted.add(m[k] as string);
  const inChanged = new Set(changed);
  for (const t of types) {
    const name = t['name'];
    if (typeof name !== 'string') continue;
    // What the previous schema had from these data sources (gone now, or changed), and every module root.
    const fields = (Array.isArray(t['fields']) ? t['fields'] : []) as Record<string, unknown>[];
    if (inChanged.has(str(t['catalog']) ?? '\u0000') || t['hugr_type'] === 'module' || fields.some((f) => inChanged.has(str(f['catalog']) ?? '\u0000'))) wanted.add(name);
  }

  const fragments = parse(fullQuery).definitions.filter((d): d is DefinitionNode & { kind: Kind.FRAGMENT_DEFINITION } => d.kind === Kind.FRAGMENT_DEFINITION);
  const fragmentText = fragments.map((f) => print(f)).join('\n');
  const names = [...wanted].sort();
  const read = new Map<string, Record<string, unknown> | null>();
  for (let i = 0; i < names.length; i += TYPES_PER_REQUEST) {
    const batch = names.slice(i, i + TYPES_PER_REQUEST);
    const got = (await ask(`{ ${batch.map((n, j) => `t${j}: __type(name: ${JSON.stringify(n)}) { ...FullType }`).join(' ')} }\n${fragmentText}`)) as { data?: Record<string, unknown> } | undefined;
    if (!got?.data) return undefined;
    batch.forEach((n, j) => {
      const t = got.data![`t${j}`];
      read.set(n, t && typeof t === 'object' ? (t as Record<string, unknown>) : null);
    });
  }

  const merged: Record<string, unknown>[] = [];
  const had = new Set<string>();
  const removed: string[] = [];
  for (const t of types) {
    const name = t['name'] as string;
    had.add(name);
    if (!read.has(name)) merged.push(t);
    else if (read.get(name)) merged.push(read.get(name)!);
    else removed.push(name);
  }
  const added: string[] = [];
  for (const [name, t] of read) {
    if (t && !had.has(name)) {
      merged.push(t);
      added.push(name);
    }
  }
  return { schema: { ...previous, types: merged }, dataSources: [...changed], typesRead: read.size, typesAdded: added.sort(), typesRemoved: removed.sort() };
}
