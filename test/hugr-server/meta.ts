/**
 * Hugr's logical-model meta queries for the test server (`_catalog`, `_module`, `_dataObject`, `_dataSources`,
 * `_dataSource`), answered from the generated directives of the role's schema in the shapes Hugr v0.3.44 answers
 * them (e2e metadata fixtures), plus `_function`, `_types` and a lexical `_search` (names, then descriptions; this
 * server has no vector index, and says so).
 */
import { getNamedType, isObjectType, type GraphQLObjectType, type GraphQLSchema } from 'graphql';
import { directivesOf as directives } from '../helpers/hugr.js';

type Json = Record<string, unknown>;

export interface DataSourceInfo {
  name: string;
  engine: string;
  /** Prefix of its generated type names (served by the v0.3 catalog and the v0.1 summary; `_dataSources` has none). */
  prefix?: string;
  description?: string;
  readOnly: boolean;
  asModule: boolean;
  isExtension: boolean;
}

/** Root resolvers for the meta queries over `schema`. */
export function metaResolvers(schema: GraphQLSchema, sources: readonly DataSourceInfo[]): Record<string, (args: Json) => unknown> {
  const objects = Object.values(schema.getTypeMap()).filter((t): t is GraphQLObjectType => isObjectType(t) && directives(t).some((d) => d.name === 'table' || d.name === 'view'));
  const byName = new Map(objects.map((o) => [o.name, o]));
  const moduleOf = (o: GraphQLObjectType): string => (directives(o).find((d) => d.name === 'module')?.args['name'] as string | undefined) ?? '';

  const dataObject = (o: GraphQLObjectType): Json => {
    const dirs = directives(o);
    const table = dirs.find((d) => d.name === 'table');
    const fields = Object.values(o.getFields());
    const relations: Json[] = [];
    const ref = (name: string | undefined) => (name && byName.has(name) ? { name } : null);
    for (const d of dirs.filter((x) => x.name === 'references')) {
      const m2m = d.args['is_m2m'] === true;
      relations.push({ name: d.args['name'], direction: 'FORWARD', kind: m2m ? 'M2M' : 'FK', fieldName: d.args['query'], dataObject: ref(d.args['references_name'] as string), through: m2m ? ref(d.args['m2m_name'] as string) : null, sourceKeys: d.args['source_fields'] ?? [], destinationKeys: d.args['references_fields'] ?? [] });
    }
    for (const other of objects) {
      for (const d of directives(other).filter((x) => x.name === 'references' && x.args['references_name'] === o.name)) {
        const m2m = d.args['is_m2m'] === true;
        relations.push({ name: d.args['name'], direction: 'BACK', kind: m2m ? 'M2M' : 'FK', fieldName: d.args['references_query'], dataObject: ref(other.name), through: m2m ? ref(d.args['m2m_name'] as string) : null, sourceKeys: d.args['references_fields'] ?? [], destinationKeys: d.args['source_fields'] ?? [] });
      }
    }
    for (const f of fields) {
      const join = directives(f).find((d) => d.name === 'join');
      if (join) relations.push({ name: f.name, direction: 'FORWARD', kind: 'JOIN', fieldName: f.name, dataObject: ref(getNamedType(f.type).name), through: null, sourceKeys: join.args['source_fields'] ?? [], destinationKeys: join.args['references_fields'] ?? [] });
    }
    return {
      name: o.name,
      type: table ? 'TABLE' : 'VIEW',
      description: o.description ?? null,
      moduleName: moduleOf(o),
      primaryKey: fields.filter((f) => directives(f).some((d) => d.name === 'pk')).map((f) => f.name),
      properties: { isCube: dirs.some((d) => d.name === 'cube'), isM2M: table?.args['is_m2m'] === true, isHypertable: dirs.some((d) => d.name === 'hypertable'), softDelete: table?.args['soft_delete'] === true, hasVectors: fields.some((f) => getNamedType(f.type).name === 'Vector') },
      relations,
      dataSourceName: (dirs.find((d) => d.name === 'catalog')?.args['name'] as string | undefined) ?? '',
    };
  };

  const moduleNames = new Set<string>(['']);
  for (const o of objects) {
    const parts = moduleOf(o).split('.').filter(Boolean);
    for (let i = 1; i <= parts.length; i++) moduleNames.add(parts.slice(0, i).join('.'));
  }
  const module = (name: string): Json | null => {
    if (!moduleNames.has(name)) return null;
    const children = [...moduleNames].filter((m) => m !== '' && (name === '' ? !m.includes('.') : m.startsWith(`${name}.`) && !m.slice(name.length + 1).includes('.'))).sort();
    const own = objects.filter((o) => moduleOf(o) === name).sort((a, b) => (a.name < b.name ? -1 : 1));
    return {
      name,
      dataSources: [...new Set(own.map((o) => dataObject(o)['dataSourceName'] as string).filter(Boolean))].sort(),
      modules: () => children.map((c) => module(c)),
      dataObjects: () => own.map(dataObject),
    };
  };

  // Functions: fields with @function on the function and mutation-function module roots.
  const roots = Object.values(schema.getTypeMap()).filter((t): t is GraphQLObjectType => isObjectType(t));
  const functionRoots = roots.flatMap((t) => {
    if (t.name === 'Function') return [{ type: t, module: '', kind: 'FUNCTION' }];
    if (t.name === 'MutationFunction') return [{ type: t, module: '', kind: 'MUTATION' }];
    const d = directives(t).find((x) => x.name === 'module_root');
    if (d?.args['type'] === 'FUNCTION') return [{ type: t, module: String(d.args['name']), kind: 'FUNCTION' }];
    if (d?.args['type'] === 'MUT_FUNCTION') return [{ type: t, module: String(d.args['name']), kind: 'MUTATION' }];
    return [];
  });
  const functions = functionRoots.flatMap((r) =>
    Object.values(r.type.getFields())
      .filter((f) => directives(f).some((d) => d.name === 'function'))
      .map((f) => ({
        name: f.name,
        type: r.kind,
        description: f.description ?? null,
        moduleName: r.module,
        isTable: byName.has(getNamedType(f.type).name),
        dataSourceName: (directives(f).find((d) => d.name === 'catalog')?.args['name'] as string | undefined) ?? null,
        returns: getNamedType(f.type),
        args: f.args.map((a) => ({ name: a.name, description: a.description ?? null, type: a.type, defaultValue: null, isDeprecated: false, deprecationReason: null })),
      })),
  );
  const GENERATED = new Set(['table', 'view', 'filter_input', 'filter_list_input', 'data_input', 'aggregation', 'module_root', 'system']);

  const search = (args: Json): Json => {
    const query = String(args['query']).toLowerCase();
    const kinds = new Set((args['kinds'] as string[] | null | undefined) ?? ['MODULE', 'DATA_SOURCE', 'DATA_OBJECT', 'FUNCTION', 'FIELD']);
    const inModule = (m: string) => args['module'] == null || m === args['module'] || m.startsWith(`${String(args['module'])}.`);
    const score = (name: string, description: string | null | undefined): number | undefined =>
      name.toLowerCase() === query ? 1 : name.toLowerCase().includes(query) ? 0.8 : description?.toLowerCase().includes(query) ? 0.5 : undefined;
    const hits: Json[] = [];
    const add = (kind: string, name: string, description: string | null | undefined, extra: Json) => {
      const sc = score(name, description);
      if (sc !== undefined) hits.push({ kind, matchedOn: 'NAME', name, description: description ?? null, score: sc, moduleName: '', dataSourceName: null, objectName: null, type: null, hugrType: null, refObjectName: null, module: null, dataObject: null, function: null, dataSource: null, field: null, ...extra });
    };
    if (kinds.has('MODULE')) for (const m of [...moduleNames].filter((x) => x !== '' && inModule(x)).sort()) add('MODULE', m, null, { moduleName: m, module: module(m) });
    if (kinds.has('DATA_SOURCE')) for (const d of sources) add('DATA_SOURCE', d.name, d.description, { dataSourceName: d.name, dataSource: d });
    for (const o of objects) {
      const m = moduleOf(o);
      if (!inModule(m)) continue;
      const obj = dataObject(o);
      if (kinds.has('DATA_OBJECT')) add('DATA_OBJECT', o.name, o.description, { moduleName: m, dataSourceName: obj['dataSourceName'], dataObject: obj });
      if (kinds.has('FIELD') && (args['object'] == null || args['object'] === o.name)) {
        for (const f of Object.values(o.getFields())) {
          if (args['includeMcpExcluded'] === false && directives(f).some((d) => d.name === 'exclude_mcp')) continue;
          add('FIELD', f.name, f.description, { moduleName: m, dataSourceName: obj['dataSourceName'], objectName: o.name, type: String(f.type), hugrType: 'column', field: null });
        }
      }
    }
    if (kinds.has('FUNCTION')) for (const f of functions.filter((x) => inModule(x.moduleName))) add('FUNCTION', f.name, f.description, { moduleName: f.moduleName, dataSourceName: f.dataSourceName, function: f });
    hits.sort((a, b) => (b['score'] as number) - (a['score'] as number) || String(a['kind']).localeCompare(String(b['kind'])) || String(a['name']).localeCompare(String(b['name'])));
    const limit = (args['limit'] as number | undefined) ?? 50;
    const offset = (args['offset'] as number | undefined) ?? 0;
    return { items: hits.slice(offset, offset + limit), limit, offset, hasMore: hits.length > offset + limit, filteredOut: 0, lexical: true, lexicalReason: 'the test server has no vector index' };
  };

  return {
    _function: (args) => functions.find((f) => f.moduleName === args['module'] && f.name === args['name']) ?? null,
    _types: (args) =>
      Object.values(schema.getTypeMap()).filter((t) => {
        if (t.name.startsWith('__')) return args['scope'] === 'SYSTEM';
        const names = new Set(directives(t as GraphQLObjectType).map((d) => d.name));
        const fromSource = names.has('catalog') && ![...names].some((n) => GENERATED.has(n));
        return args['scope'] === 'SYSTEM' ? !fromSource && (names.has('system') || !t.astNode) : fromSource;
      }),
    _search: search,
    _catalog: () => module(''),
    _module: (args) => module(String(args['name'])),
    _dataObject: (args) => {
      const o = byName.get(String(args['name']));
      return o ? dataObject(o) : null;
    },
    _dataSources: () => sources.map((s) => ({ ...s, modules: [] })),
    _dataSource: (args) => sources.find((s) => s.name === args['name']) ?? null,
  };
}
