/**
 * Answers as tables: `{path, columns, rows}` for each query of an operation, rows as lists of cells in column
 * order (far smaller for a model to read than a list of objects repeating every key). The tables of an operation
 * are found in its document: a root field is a table unless it is a namespace (a Hugr module, or on any API an
 * argument-less field whose type holds only objects and lists), whose fields are then looked at the same way.
 * A list query is a table of its rows; a single object (by primary key, an aggregation) a one-row table, or a
 * table without rows when it is null. Nested objects and lists stay JSON values in their cell.
 */
import {
  getNamedType,
  getNullableType,
  isListType,
  isObjectType,
  Kind,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import type { IpcAnswer } from './ipc.js';

/** Where one table is in an answer's `data`, and what the document says of it. */
export interface TableSpec {
  /** Response keys from `data` to the table, dotted: `shop.customers`. */
  path: string;
  keys: string[];
  /** Response keys the query selects on each row, in document order. */
  columns: string[];
  /** Dotted paths (a list adds no segment) of fields whose type is the JSON scalar: Hugr's Arrow answer carries them as text. */
  jsonFields: Set<string>;
}

export interface ResultTable {
  path: string;
  columns: string[];
  row_count: number;
  /** Rows cut off the end to fit `max_bytes`. */
  rows_dropped?: number;
  rows: unknown[][];
}

/** Whether a field only groups other queries (its fields are looked into, it is no table). */
export type NamespaceTest = (field: GraphQLField<unknown, unknown>, type: GraphQLObjectType) => boolean;

/** The namespace test for a generic API: an argument-less field whose type has only object and list fields. */
export function shapeNamespace(field: GraphQLField<unknown, unknown>, type: GraphQLObjectType): boolean {
  if (field.args.length > 0 || isListType(getNullableType(field.type))) return false;
  const fields = Object.values(type.getFields());
  return fields.length > 0 && fields.every((f) => isListType(getNullableType(f.type)) || isObjectType(getNamedType(f.type)));
}

/** Deepest nesting of namespaces and selections followed. */
const MAX_DEPTH = 64;

/** Fields of a selection set by response key, fragments spread in, in document order (repeated keys merged). */
function collectFields(set: SelectionSetNode | undefined, fragments: ReadonlyMap<string, FragmentDefinitionNode>, out = new Map<string, FieldNode[]>(), seen = new Set<string>()): Map<string, FieldNode[]> {
  for (const sel of set?.selections ?? []) {
    if (sel.kind === Kind.FIELD) {
      const key = sel.alias?.value ?? sel.name.value;
      out.set(key, [...(out.get(key) ?? []), sel]);
    } else if (sel.kind === Kind.INLINE_FRAGMENT) {
      collectFields(sel.selectionSet, fragments, out, seen);
    } else if (!seen.has(sel.name.value)) {
      seen.add(sel.name.value);
      collectFields(fragments.get(sel.name.value)?.selectionSet, fragments, out, seen);
    }
  }
  return out;
}

function subSelection(nodes: readonly FieldNode[]): SelectionSetNode | undefined {
  const selections = nodes.flatMap((n) => n.selectionSet?.selections ?? []);
  return selections.length ? { kind: Kind.SELECTION_SET, selections } : undefined;
}

/**
 * The tables an operation answers with, in document order. Without a schema every root field is a table (a
 * namespace cannot be told).
 */
export function planTables(doc: DocumentNode, op: OperationDefinitionNode, schema: GraphQLSchema | undefined, isNamespace: NamespaceTest): TableSpec[] {
  const fragments = new Map(doc.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((f) => [f.name.value, f]));
  const specs = new Map<string, TableSpec>();
  const root = schema?.getRootType(op.operation) ?? undefined;
  const jsonFieldsOf = (type: GraphQLNamedType | undefined, set: SelectionSetNode | undefined, prefix: string, into: Set<string>, depth: number): void => {
    if (!isObjectType(type) || depth > MAX_DEPTH) return;
    for (const [key, nodes] of collectFields(set, fragments)) {
      const def = type.getFields()[nodes[0]!.name.value];
      if (!def) continue;
      const named = getNamedType(def.type);
      const at = prefix ? `${prefix}.${key}` : key;
      if (named.name === 'JSON') into.add(at);
      else jsonFieldsOf(named, subSelection(nodes), at, into, depth + 1);
    }
  };
  const walk = (type: GraphQLObjectType | undefined, set: SelectionSetNode | undefined, keys: string[], depth: number): void => {
    for (const [key, nodes] of collectFields(set, fragments)) {
      const name = nodes[0]!.name.value;
      if (name === '__typename') continue;
      const def = type?.getFields()[name];
      const named = def ? getNamedType(def.type) : undefined;
      const sub = subSelection(nodes);
      const at = [...keys, key];
      if (def && isObjectType(named) && sub && depth < MAX_DEPTH && isNamespace(def, named)) {
        walk(named, sub, at, depth + 1);
        continue;
      }
      const path = at.join('.');
      const spec = specs.get(path) ?? { path, keys: at, columns: [], jsonFields: new Set<string>() };
      const columns = sub ? [...collectFields(sub, fragments).keys()] : [key];
      for (const c of columns) if (!spec.columns.includes(c)) spec.columns.push(c);
      if (sub) jsonFieldsOf(named, sub, '', spec.jsonFields, 0);
      else if (named?.name === 'JSON') spec.jsonFields.add(key);
      specs.set(path, spec);
    }
  };
  walk(root, op.selectionSet, [], 0);
  return [...specs.values()];
}

/** Cells of `rows` (objects) in `columns`, extended by any key the rows have that the columns lack. */
export function rowsOfObjects(columns: readonly string[], objects: readonly unknown[], single: string): { columns: string[]; rows: unknown[][] } {
  const cols = [...columns];
  const known = new Set(cols);
  const plain = objects.filter((o): o is Record<string, unknown> => o !== null && typeof o === 'object' && !Array.isArray(o));
  if (plain.length < objects.length && !known.has(single)) {
    cols.push(single);
    known.add(single);
  }
  for (const o of plain) {
    for (const k of Object.keys(o)) {
      if (!known.has(k)) {
        known.add(k);
        cols.push(k);
      }
    }
  }
  const rows = objects.map((o) => {
    if (o === null || typeof o !== 'object' || Array.isArray(o)) return cols.map((c) => (c === single ? (o ?? null) : null));
    return cols.map((c) => (o as Record<string, unknown>)[c] ?? null);
  });
  return { columns: cols, rows };
}

/** A table from the JSON value at its path: a list's elements, one object, or nothing for null. */
export function tableOfValue(spec: TableSpec, value: unknown): ResultTable {
  const objects = value === null || value === undefined ? [] : Array.isArray(value) ? value : [value];
  const single = spec.keys[spec.keys.length - 1]!;
  const { columns, rows } = rowsOfObjects(spec.columns, objects, single);
  return { path: spec.path, columns, row_count: rows.length, rows };
}

/** The tables of a JSON answer's `data` (none when `data` is null). */
export function tablesOfJson(data: unknown, specs: readonly TableSpec[]): ResultTable[] {
  if (data === null || typeof data !== 'object') return [];
  return specs.map((spec) => {
    let v: unknown = data;
    for (const k of spec.keys) v = v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>)[k] : undefined;
    return tableOfValue(spec, v);
  });
}

/**
 * The tables of a decoded /ipc answer in document order: Arrow tables, objects as one-row tables, and (when the
 * plan comes from the schema) a table without rows for each query Hugr wrote no part for, as it does for an empty
 * list. Parts the plan does not name follow in the answer's order. An answer with errors and no data has no tables.
 */
export function tablesOfIpc(answer: IpcAnswer, specs: readonly TableSpec[], planned: boolean): ResultTable[] {
  if (!answer.hasData && answer.errors.length > 0) return [];
  const tables = new Map(answer.tables.map((t) => [t.path, t]));
  const objects = new Map(answer.objects.map((o) => [o.path, o.value]));
  const out: ResultTable[] = [];
  const done = new Set<string>();
  const decoded = (path: string, own: { columns: string[]; rows: unknown[][] }, columns: readonly string[]): ResultTable => {
    const r = inColumns(columns, own.columns, own.rows);
    return { path, columns: r.columns, row_count: r.rows.length, rows: r.rows };
  };
  for (const spec of specs) {
    const table = tables.get(spec.path);
    if (table) out.push(decoded(spec.path, table, spec.columns));
    else if (objects.has(spec.path)) out.push(tableOfValue(spec, objects.get(spec.path)));
    else if (planned) out.push(tableOfValue(spec, null));
    else continue;
    done.add(spec.path);
  }
  for (const t of answer.tables) if (!done.has(t.path)) out.push(decoded(t.path, t, []));
  for (const o of answer.objects) {
    if (done.has(o.path)) continue;
    const keys = o.path.split('.');
    out.push(tableOfValue({ path: o.path, keys, columns: [], jsonFields: new Set() }, o.value));
  }
  return out;
}

/** A decoded table's rows in `columns` (its own columns first when `columns` lacks some). */
export function inColumns(columns: readonly string[], own: readonly string[], rows: readonly unknown[][]): { columns: string[]; rows: unknown[][] } {
  const cols = [...columns, ...own.filter((c) => !columns.includes(c))];
  const from = cols.map((c) => own.indexOf(c));
  return { columns: cols, rows: rows.map((r) => from.map((k) => (k < 0 ? null : r[k]))) };
}

function size(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? 'null');
}

/**
 * Cuts whole rows off the ends of the largest tables until `answer` fits in `maxBytes` of JSON: from the largest
 * table until it is no longer the largest, then the next. Each table that lost rows says how many
 * (`rows_dropped`); `fits` is false when even no rows do not fit (the errors alone are larger).
 */
export function fitTables(answer: { tables: ResultTable[] } & Record<string, unknown>, maxBytes: number): { cut: boolean; fits: boolean } {
  let total = size(answer);
  if (total <= maxBytes) return { cut: false, fits: true };
  const rowBytes = answer.tables.map((t) => t.rows.map((r) => size(r)));
  const tableBytes = rowBytes.map((sizes) => sizes.reduce((a, b) => a + b + 1, 0));
  for (let guard = 0; total > maxBytes && guard < 4 * answer.tables.length + 8; guard++) {
    const order = answer.tables.map((_, i) => i).filter((i) => answer.tables[i]!.rows.length > 0).sort((a, b) => tableBytes[b]! - tableBytes[a]! || a - b);
    const largest = order[0];
    if (largest === undefined) break;
    const table = answer.tables[largest]!;
    const next = order[1] !== undefined ? tableBytes[order[1]]! : -1;
    if (table.rows_dropped === undefined) total += size({ rows_dropped: table.row_count }) - 2 + 1;
    let n = table.rows.length;
    while (n > 0 && total > maxBytes && (tableBytes[largest]! >= next || next < 0)) {
      n--;
      total -= rowBytes[largest]![n]! + (n > 0 ? 1 : 0);
      tableBytes[largest]! -= rowBytes[largest]![n]! + 1;
    }
    table.rows.length = n;
    table.rows_dropped = table.row_count - n;
    total = size(answer);
  }
  // The order of a table's keys is kept: rows last.
  answer.tables = answer.tables.map(({ path, columns, row_count, rows_dropped, rows }) => ({ path, columns, row_count, ...(rows_dropped !== undefined ? { rows_dropped } : {}), rows }));
  return { cut: true, fits: size(answer) <= maxBytes };
}
