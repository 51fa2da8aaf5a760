/**
 * Reads the same queries from a Hugr server's `/query` (JSON) and `/ipc` (Arrow) endpoints and turns both answers
 * into tables with Sextant's own code (src/query/data/table.ts, ipc.ts), so a test can check they agree row for
 * row. Used on the Hugr test server, and on a real Hugr when SEXTANT_REAL_HUGR_URL names one (the shop source of
 * /work/shared/hugr-server: customers and orders).
 */
import { buildClientSchema, getIntrospectionQuery, Kind, parse, type IntrospectionQuery, type OperationDefinitionNode } from 'graphql';
import { decodeIpc, type IpcAnswer } from '../../src/query/data/ipc.js';
import { planTables, tablesOfIpc, tablesOfJson, type ResultTable } from '../../src/query/data/table.js';

/** Queries for the real server's `shop` source (DuckDB, as_module): lists, nested rows, objects, empty, errors. */
export const REAL_SHOP_QUERIES = [
  '{ shop { customers(order_by: [{field: "id"}]) { id name email tier orders(order_by: [{field: "id"}]) { id amount status placed_at customer_id } } } }',
  '{ shop { orders(order_by: [{field: "id"}]) { id amount placed_at customer { id name } } customers_by_pk(id: 1) { id name } orders_aggregation { _rows_count amount { sum avg min max } } } }',
  '{ shop { orders_bucket_aggregation(order_by: [{field: "key.status"}]) { key { status } aggregations { _rows_count amount { sum } } } none: customers(filter: {id: {eq: -1}}) { id name } } }',
  '{ shop { customers_by_pk(id: -1) { id } } }',
  '{ shop { no_such_field { id } } }',
];

export interface Compared {
  query: string;
  json: { tables: ResultTable[]; errors?: unknown };
  ipc: { tables: ResultTable[]; errors?: unknown[]; answer: IpcAnswer };
}

/** `{ __schema { types { name hugr_type } } }`: the module types, which Hugr's /ipc looks through. */
async function moduleTypes(post: (path: string, query: string) => Promise<Response>): Promise<Set<string>> {
  const r = (await (await post('/query', '{ __schema { types { name hugr_type } } }')).json()) as { data?: { __schema: { types: { name: string; hugr_type?: string }[] } } };
  return new Set((r.data?.__schema.types ?? []).filter((t) => t.hugr_type === 'module').map((t) => t.name));
}

/** Both answers of each query as tables. `base` is the server's root URL (`/query` and `/ipc` are added). */
export async function compareIpcWithJson(base: string, headers: Record<string, string>, queries: readonly string[]): Promise<Compared[]> {
  const post = (path: string, query: string) => fetch(new URL(path, base), { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query }) });
  const intro = (await (await post('/query', getIntrospectionQuery())).json()) as { data: IntrospectionQuery };
  const schema = buildClientSchema(intro.data, { assumeValid: true });
  const modules = await moduleTypes(post);
  const out: Compared[] = [];
  for (const query of queries) {
    const doc = parse(query);
    const op = doc.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
    const specs = planTables(doc, op, schema, (_f, t) => modules.has(t.name));
    const json = (await (await post('/query', query)).json()) as { data?: unknown; errors?: unknown };
    const res = await post('/ipc', query);
    const byPath = new Map(specs.map((s) => [s.path, s.jsonFields]));
    const answer = decodeIpc(Buffer.from(await res.arrayBuffer()), res.headers.get('content-type') ?? '', { jsonFields: (p) => byPath.get(p) ?? new Set() });
    out.push({
      query,
      json: { tables: tablesOfJson(json.data, specs), ...(json.errors ? { errors: json.errors } : {}) },
      ipc: { tables: tablesOfIpc(answer, specs, true), ...(answer.errors.length ? { errors: answer.errors } : {}), answer },
    });
  }
  return out;
}

/**
 * A cell as both endpoints can say it: JSON cannot carry integers beyond 2^53 (the JSON endpoint rounds them, the
 * Arrow reader keeps them exact as strings), so a numeric string is compared as the number JSON would give.
 */
export function comparable(value: unknown): unknown {
  if (typeof value === 'string' && /^-?\d{16,}$/.test(value)) return Number(value);
  if (Array.isArray(value)) return value.map(comparable);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, comparable(v)]));
  return value;
}
