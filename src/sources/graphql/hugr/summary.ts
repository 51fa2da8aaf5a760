/**
 * Reads what a Hugr v0.1–v0.2 server says about its data platform through
 * `function { core { meta { schema_summary } } }` (one JSON answer: data sources with prefix, engine, read-only and
 * as-module; the module tree with every data object, its columns, relations and joins), completed with the
 * registered sources' own SDL (`describe_data_source_schema`) for what the summary leaves out: relation keys and
 * original names. The summary's JSON shape is Hugr's `SchemaInfo` (reference/hugr.md §2.11).
 */
import type { HugrDataSource, HugrMetaObject } from './model.js';
import { dataSourceOfRow, factsFromSchemas, sourceSchemas, stripPrefix, type Ask, type CatalogFacts } from './catalog.js';
import { mergeObjectFacts } from './source-sdl.js';

export const SCHEMA_SUMMARY_QUERY = '{ function { core { meta { schema_summary } } } }';

type Json = Record<string, unknown>;

const RELATION_KINDS: Record<string, string> = { one_to_many: 'FK', many_to_one: 'FK', many_to_many: 'M2M' };
/** Modules nest at most this deep in a summary (a guard against a malformed answer, not a Hugr limit). */
const MAX_MODULE_DEPTH = 64;

function obj(v: unknown): Json | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined;
}

function list(v: unknown): Json[] {
  return Array.isArray(v) ? v.map(obj).filter((x): x is Json => !!x) : [];
}

function text(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** The summary JSON in an answer: a JSON scalar arrives as an object, or as its text from some servers. */
export function summaryOf(answer: unknown): Json | undefined {
  let v = (answer as { data?: { function?: { core?: { meta?: { schema_summary?: unknown } } } } } | null | undefined)?.data?.function?.core?.meta?.schema_summary;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      return undefined;
    }
  }
  return obj(v);
}

export function dataSourcesFromSummary(summary: Json): HugrDataSource[] {
  const out: HugrDataSource[] = [];
  for (const d of list(summary['data_sources'])) {
    const ds = dataSourceOfRow(d);
    if (ds) out.push(ds);
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Every data object of the summary's module tree (tables and views), by type name. */
export function dataObjectsFromSummary(summary: Json, sources: readonly HugrDataSource[]): Map<string, HugrMetaObject> {
  const out = new Map<string, HugrMetaObject>();
  const stack: { module: Json; depth: number }[] = [];
  const root = obj(summary['modules']);
  if (root) stack.push({ module: root, depth: 0 });
  while (stack.length) {
    const { module, depth } = stack.pop()!;
    for (const [key, isView] of [
      ['tables', false],
      ['views', true],
    ] as const) {
      for (const o of list(module[key])) {
        const name = text(o['name']);
        if (!name || out.has(name)) continue;
        const relations: HugrMetaObject['relations'] = [];
        for (const r of list(o['relations'])) {
          const field = text(r['name']);
          if (!field) continue;
          const through = text(r['m2m_table']);
          const target = text(r['data_object']);
          relations.push({ fieldName: field, kind: RELATION_KINDS[text(r['type']) ?? ''] ?? 'FK', ...(target ? { dataObject: target } : {}), ...(through ? { through } : {}) });
        }
        for (const j of list(o['subqueries'])) {
          const field = text(j['name']);
          const target = text(j['data_object']);
          if (field) relations.push({ name: field, fieldName: field, kind: 'JOIN', ...(target ? { dataObject: target } : {}) });
        }
        const original = stripPrefix(name, sources.find((s) => s.name === text(o['data_source'])), isView);
        out.set(name, {
          name,
          ...(original ? { originalName: original } : {}),
          primaryKey: list(o['columns'])
            .filter((c) => c['is_primary_key'] === true && text(c['name']))
            .map((c) => c['name'] as string),
          properties: {
            ...(typeof o['is_m2m'] === 'boolean' ? { isM2M: o['is_m2m'] } : {}),
            ...(typeof o['is_cube'] === 'boolean' ? { isCube: o['is_cube'] } : {}),
            ...(typeof o['is_hypertable'] === 'boolean' ? { isHypertable: o['is_hypertable'] } : {}),
          },
          relations,
        });
      }
    }
    if (depth < MAX_MODULE_DEPTH) for (const sub of list(module['sub_modules'])) stack.push({ module: sub, depth: depth + 1 });
  }
  return out;
}

/**
 * Reads a v0.1 server's `schema_summary`, then the SDL of the sources it lists. Undefined when the summary is not
 * answered.
 */
export async function readSchemaSummary(ask: Ask): Promise<CatalogFacts | undefined> {
  const summary = summaryOf(await ask(SCHEMA_SUMMARY_QUERY));
  if (!summary) return undefined;
  const warnings: string[] = [];
  const dataSources = dataSourcesFromSummary(summary);
  const base = dataObjectsFromSummary(summary, dataSources);
  const names = dataSources.map((d) => d.name);
  const schemas = await sourceSchemas(ask, names);
  const missing = names.filter((n) => !schemas.has(n));
  if (missing.length) warnings.push(`the server did not describe the schema of data source${missing.length > 1 ? 's' : ''} ${missing.join(', ')}; their relation keys are inferred from the schema`);
  const facts = factsFromSchemas(schemas, dataSources, (t) => base.get(t)?.primaryKey, warnings);
  return { dataSources, dataObjects: mergeObjectFacts(base, facts), warnings };
}
