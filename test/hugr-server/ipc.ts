/**
 * `POST /ipc` of the test server, in Hugr's framing (query-engine ipc-query.go, v0.3.41; the framing is described in
 * src/query/data/ipc.ts), from the same execution as `/query`: a multipart/mixed answer with boundary HUGR, one
 * part per query (module fields looked through), in document order (Hugr's own order is a map's). A list query
 * with rows is an Arrow IPC stream (types from the schema: Int → int32, BigInt → int64, Float → float64, Date →
 * date32, Timestamp → timestamp[us], nested objects → structs, lists → lists; the table's own Geometry columns as
 * WKB, nested ones as GeoJSON text); an empty list writes no part; anything else is a JSON part. Errors make the
 * answer one errors part. test/python/hugr_read.py reads these answers with Hugr's own Python client.
 */
import { Field, List, Schema, Struct, makeData, RecordBatch, Table, tableToIPC, vectorFromArray, type DataType } from 'apache-arrow';
import * as arrow from 'apache-arrow';
import {
  getNamedType,
  getNullableType,
  isListType,
  isObjectType,
  Kind,
  parse,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { directivesOf } from '../helpers/hugr.js';

export const IPC_CONTENT_TYPE = 'multipart/mixed; boundary=HUGR';

type Json = Record<string, unknown>;

/** A part as Go's multipart writer puts it: header lines sorted by name. */
function part(headers: Record<string, string>, body: Buffer | Uint8Array | string, first: boolean): Buffer {
  const lines = Object.keys(headers)
    .sort()
    .map((k) => `${k}: ${headers[k]}\r\n`)
    .join('');
  return Buffer.concat([Buffer.from(`${first ? '' : '\r\n'}--HUGR\r\n${lines}\r\n`), typeof body === 'string' ? Buffer.from(body) : Buffer.from(body)]);
}

function collect(set: SelectionSetNode | undefined, fragments: ReadonlyMap<string, FragmentDefinitionNode>, out = new Map<string, FieldNode[]>()): Map<string, FieldNode[]> {
  for (const sel of set?.selections ?? []) {
    if (sel.kind === Kind.FIELD) out.set(sel.alias?.value ?? sel.name.value, [...(out.get(sel.alias?.value ?? sel.name.value) ?? []), sel]);
    else if (sel.kind === Kind.INLINE_FRAGMENT) collect(sel.selectionSet, fragments, out);
    else collect(fragments.get(sel.name.value)?.selectionSet, fragments, out);
  }
  return out;
}

function merged(nodes: readonly FieldNode[]): SelectionSetNode | undefined {
  const selections = nodes.flatMap((n) => n.selectionSet?.selections ?? []);
  return selections.length ? { kind: Kind.SELECTION_SET, selections } : undefined;
}

interface Query {
  path: string[];
  field: GraphQLField<unknown, unknown>;
  selection: SelectionSetNode | undefined;
}

/** The queries of an operation, module fields looked through (Hugr's FlatQuery), in document order. */
function queries(schema: GraphQLSchema, doc: DocumentNode, op: OperationDefinitionNode, moduleRoots: ReadonlySet<string>): { queries: Query[]; fragments: Map<string, FragmentDefinitionNode> } {
  const fragments = new Map(doc.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((f) => [f.name.value, f]));
  const out: Query[] = [];
  const walk = (typeName: string, set: SelectionSetNode | undefined, path: string[]): void => {
    const type = schema.getType(typeName);
    if (!isObjectType(type)) return;
    for (const [key, nodes] of collect(set, fragments)) {
      const field = type.getFields()[nodes[0]!.name.value];
      if (!field) continue;
      const named = getNamedType(field.type).name;
      if (moduleRoots.has(named) && named !== typeName) walk(named, merged(nodes), [...path, key]);
      else out.push({ path: [...path, key], field, selection: merged(nodes) });
    }
  };
  walk(schema.getRootType(op.operation)?.name ?? 'Query', op.selectionSet, []);
  return { queries: out, fragments };
}

// ------------------------------------------------------------------------------------------ arrow tables

interface Column {
  field: Field;
  /** A JSON answer's value as the Arrow builder takes it. */
  value: (v: unknown) => unknown;
}

/** Geometry fields of a selection by dotted path (a list adds no segment), and their SRID. */
function geometryFields(fieldType: GraphQLOutputType, set: SelectionSetNode | undefined, fragments: ReadonlyMap<string, FragmentDefinitionNode>, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  const type = getNamedType(fieldType);
  if (!isObjectType(type)) return out;
  for (const [key, nodes] of collect(set, fragments)) {
    const f = type.getFields()[nodes[0]!.name.value];
    if (!f) continue;
    const at = prefix ? `${prefix}.${key}` : key;
    if (getNamedType(f.type).name === 'Geometry') out.set(at, String(directivesOf(f).find((d) => d.name === 'geometry_info')?.args['srid'] ?? '4326'));
    else for (const [k, v] of geometryFields(f.type, merged(nodes), fragments, at)) out.set(k, v);
  }
  return out;
}

/** A GeoJSON geometry as little-endian ISO WKB (a Z ordinate when its positions have three). */
export function geoJsonToWkb(g: Json): Buffer {
  const out: Buffer[] = [];
  const codes: Record<string, number> = { Point: 1, LineString: 2, Polygon: 3, MultiPoint: 4, MultiLineString: 5, MultiPolygon: 6, GeometryCollection: 7 };
  const firstPosition = (c: unknown): number[] | undefined => (Array.isArray(c) && typeof c[0] === 'number' ? (c as number[]) : Array.isArray(c) && c.length ? firstPosition(c[0]) : undefined);
  const write = (geom: Json): void => {
    const type = geom['type'] as string;
    const z = (firstPosition(geom['coordinates']) ?? []).length === 3;
    const head = Buffer.alloc(5);
    head.writeUInt8(1, 0);
    head.writeUInt32LE(codes[type]! + (z ? 1000 : 0), 1);
    out.push(head);
    const count = (n: number) => {
      const b = Buffer.alloc(4);
      b.writeUInt32LE(n, 0);
      out.push(b);
    };
    const position = (p: number[]) => {
      const b = Buffer.alloc((z ? 3 : 2) * 8);
      p.slice(0, z ? 3 : 2).forEach((x, i) => b.writeDoubleLE(x, i * 8));
      out.push(b);
    };
    const positions = (ps: number[][]) => {
      count(ps.length);
      ps.forEach(position);
    };
    const c = geom['coordinates'] as never;
    if (type === 'Point') position(c);
    else if (type === 'LineString') positions(c);
    else if (type === 'Polygon') {
      count((c as number[][][]).length);
      (c as number[][][]).forEach(positions);
    } else if (type === 'GeometryCollection') {
      count((geom['geometries'] as Json[]).length);
      (geom['geometries'] as Json[]).forEach(write);
    } else {
      const single = type.replace(/^Multi/, '');
      count((c as unknown[]).length);
      for (const member of c as unknown[]) write({ type: single, coordinates: member });
    }
  };
  write(g);
  return Buffer.concat(out);
}

const toDate = (v: unknown) => (typeof v === 'string' ? new Date(v.length === 10 ? `${v}T00:00:00Z` : v) : v);
const SCALARS: Record<string, { type: () => DataType; value: (v: unknown) => unknown }> = {
  Int: { type: () => new arrow.Int32(), value: (v) => v },
  BigInt: { type: () => new arrow.Int64(), value: (v) => BigInt(v as number) },
  Float: { type: () => new arrow.Float64(), value: (v) => v },
  Boolean: { type: () => new arrow.Bool(), value: (v) => v },
  Date: { type: () => new arrow.DateDay(), value: toDate },
  Timestamp: { type: () => new arrow.TimestampMicrosecond(), value: toDate },
};

/** The Arrow column for a field of a list query's rows (`top`: a column of the table itself). */
function column(name: string, type: GraphQLOutputType, set: SelectionSetNode | undefined, fragments: ReadonlyMap<string, FragmentDefinitionNode>, top: boolean, inStruct: boolean): Column {
  const nullable = getNullableType(type);
  if (isListType(nullable)) {
    const item = column('item', nullable.ofType, set, fragments, false, false);
    return { field: new Field(name, new List(item.field), true), value: (v) => (v as unknown[]).map((x) => (x === null ? null : item.value(x))) };
  }
  const named = getNamedType(type);
  if (isObjectType(named)) {
    const children = [...collect(set, fragments)].map(([key, nodes]) => {
      const f = named.getFields()[nodes[0]!.name.value];
      // No field: __typename, a string.
      return { key, col: f ? column(key, f.type, merged(nodes), fragments, false, true) : { field: new Field(key, new arrow.Utf8(), true), value: (v: unknown) => v } };
    });
    return {
      field: new Field(name, new Struct(children.map((c) => c.col.field)), true),
      value: (v) => Object.fromEntries(children.map(({ key, col }) => [key, (v as Json)[key] === null || (v as Json)[key] === undefined ? null : col.value((v as Json)[key])])),
    };
  }
  if (named.name === 'Geometry') {
    if (top) return { field: new Field(name, new arrow.Binary(), true, new Map([['ARROW:extension:name', 'geoarrow.wkb'], ['ARROW:extension:metadata', '{}']])), value: (v) => geoJsonToWkb(v as Json) };
    const meta = inStruct ? new Map([['ARROW:extension:name', 'hugr.geojson'], ['ARROW:extension:metadata', '{"srid":4326}']]) : undefined;
    return { field: new Field(name, new arrow.Utf8(), true, meta), value: (v) => JSON.stringify(v) };
  }
  const scalar = SCALARS[named.name];
  if (scalar) return { field: new Field(name, scalar.type(), true), value: scalar.value };
  return { field: new Field(name, new arrow.Utf8(), true), value: (v) => (typeof v === 'string' ? v : JSON.stringify(v)) };
}

function arrowStream(rows: Json[], q: Query, fragments: ReadonlyMap<string, FragmentDefinitionNode>): Uint8Array {
  const topLevel = [...collect(q.selection, fragments)].map(([key, nodes]) => {
    const f = (getNamedType(q.field.type) as { getFields?: () => Record<string, GraphQLField<unknown, unknown>> }).getFields?.()[nodes[0]!.name.value];
    return f ? column(key, f.type, merged(nodes), fragments, true, false) : { field: new Field(key, new arrow.Utf8(), true), value: (v: unknown) => v };
  });
  const vectors = topLevel.map((c) => vectorFromArray(rows.map((r) => (r[c.field.name] === null || r[c.field.name] === undefined ? null : c.value(r[c.field.name]))), c.field.type));
  const schema = new Schema(topLevel.map((c) => c.field), new Map([['chunk', '0']]));
  const batch = new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: rows.length, nullCount: 0, children: vectors.map((v) => v.data[0]!) }));
  return tableToIPC(new Table([batch]), 'stream');
}

// ------------------------------------------------------------------------------------------------ answer

/** The /ipc answer for a request the server executed into `result` (its `/query` answer). */
export function ipcAnswer(schema: GraphQLSchema, moduleRoots: ReadonlySet<string>, body: Json, result: Json): Buffer {
  const parts: Buffer[] = [];
  const add = (headers: Record<string, string>, content: Buffer | Uint8Array | string) => parts.push(part(headers, content, parts.length === 0));
  const errors = result['errors'] as unknown[] | undefined;
  const operationName = typeof body['operationName'] === 'string' ? body['operationName'] : '';
  if (errors?.length || typeof body['query'] !== 'string') {
    add({ 'Content-Type': 'application/json', 'X-Hugr-Part-Type': 'errors', 'X-Hugr-Format': 'object', ...(operationName ? { 'X-Hugr-Path': operationName } : {}) }, `${JSON.stringify(errors ?? [{ message: 'query is required' }])}\n`);
  } else {
    const doc = parse(body['query']);
    const ops = doc.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
    const op = ops.find((o) => (operationName ? o.name?.value === operationName : true))!;
    const { queries: qs, fragments } = queries(schema, doc, op, moduleRoots);
    for (const q of qs) {
      let value: unknown = result['data'];
      for (const k of q.path) value = value && typeof value === 'object' ? (value as Json)[k] : undefined;
      const path = `data.${q.path.join('.')}`;
      const geometry = geometryFields(q.field.type, q.selection, fragments);
      const list = isListType(getNullableType(q.field.type));
      const geometryHeaders = (format: (field: string) => string): Record<string, string> =>
        geometry.size ? { 'X-Hugr-Geometry': 'true', 'X-Hugr-Geometry-Fields': `{${[...geometry].map(([f, srid]) => `"${f}": {"srid": "${srid}", "format": "${format(f)}"}`).join(',')}}` } : {};
      if (list) {
        if (!Array.isArray(value) || value.length === 0) continue;
        add(
          { 'Content-Type': 'application/vnd.apache.arrow.stream', 'X-Hugr-Part-Type': 'data', 'X-Hugr-Path': path, 'X-Hugr-Format': 'table', 'X-Hugr-Table-Info': '', ...geometryHeaders((f) => (f.includes('.') ? 'GeoJSONString' : 'WKB')) },
          arrowStream(value as Json[], q, fragments),
        );
      } else {
        add({ 'Content-Type': 'application/json', 'X-Hugr-Part-Type': 'data', 'X-Hugr-Path': path, 'X-Hugr-Format': 'object', ...geometryHeaders(() => 'GeoJSON') }, `${JSON.stringify(value ?? null)}\n`);
      }
    }
  }
  parts.push(Buffer.from('\r\n--HUGR--\r\n'));
  return Buffer.concat(parts);
}
