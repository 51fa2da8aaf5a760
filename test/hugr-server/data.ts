/**
 * Data resolution for the test server: Hugr's generated queries over in-memory rows (select with filter,
 * order_by, limit, offset; by primary key; aggregation; bucket aggregation), the insert and delete mutations, and
 * function calls that echo their arguments. Enough for the data tools' tests, not a query engine.
 */
import { getNamedType, isListType, isNonNullType, isObjectType, Kind, type FieldNode, type GraphQLFieldResolver, type GraphQLResolveInfo, type GraphQLType } from 'graphql';
import { directivesOf } from '../helpers/hugr.js';

export type Row = Record<string, unknown>;
type Json = Record<string, unknown>;

interface Aggregated {
  __rows: Row[];
}
interface Values {
  __values: unknown[];
}

function likeRegex(pattern: string, flags: string): RegExp {
  const escaped = pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/%/g, '.*').replace(/_/g, '.');
  return new RegExp(`^${escaped}$`, flags);
}

function compare(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a == null) return -1;
  if (b == null) return 1;
  return (a as number | string) < (b as number | string) ? -1 : 1;
}

export function matches(row: Row, filter: Json | null | undefined): boolean {
  if (!filter) return true;
  for (const [key, cond] of Object.entries(filter)) {
    if (cond == null) continue;
    if (key === '_and') {
      if (!(cond as Json[]).every((f) => matches(row, f))) return false;
    } else if (key === '_or') {
      if (!(cond as Json[]).some((f) => matches(row, f))) return false;
    } else if (key === '_not') {
      if (matches(row, cond as Json)) return false;
    } else {
      const v = row[key];
      for (const [op, x] of Object.entries(cond as Json)) {
        if (x == null && op !== 'is_null') continue;
        const ok =
          op === 'eq' ? v === x
          : op === 'in' ? (x as unknown[]).includes(v)
          : op === 'like' ? typeof v === 'string' && likeRegex(x as string, '').test(v)
          : op === 'ilike' ? typeof v === 'string' && likeRegex(x as string, 'i').test(v)
          : op === 'gt' ? v != null && compare(v, x) > 0
          : op === 'gte' ? v != null && compare(v, x) >= 0
          : op === 'lt' ? v != null && compare(v, x) < 0
          : op === 'lte' ? v != null && compare(v, x) <= 0
          : op === 'is_null' ? (v == null) === x
          : false;
        if (!ok) return false;
      }
    }
  }
  return true;
}

function selectRows(rows: Row[], args: Json): Row[] {
  let out = rows.filter((r) => matches(r, args['filter'] as Json | undefined));
  const order = args['order_by'] as { field: string; direction?: string }[] | undefined;
  if (order?.length) {
    out = [...out].sort((a, b) => {
      for (const o of order) {
        const c = compare(a[o.field], b[o.field]);
        if (c !== 0) return o.direction === 'DESC' ? -c : c;
      }
      return 0;
    });
  }
  const offset = (args['offset'] as number | undefined) ?? 0;
  const limit = (args['limit'] as number | undefined) ?? 2000;
  return out.slice(offset, offset + limit);
}

function aggregate(values: unknown[], fn: string, args: Json): unknown {
  const present = values.filter((v) => v != null);
  const nums = present.filter((v): v is number => typeof v === 'number');
  switch (fn) {
    case 'count':
      return args['distinct'] ? new Set(present.map((v) => JSON.stringify(v))).size : present.length;
    case 'sum':
      return nums.reduce((a, b) => a + b, 0);
    case 'avg':
      return nums.length ? nums.reduce((a, b) => a + b, 0) / nums.length : null;
    case 'min':
      return present.length ? present.reduce((a, b) => (compare(a, b) <= 0 ? a : b)) : null;
    case 'max':
      return present.length ? present.reduce((a, b) => (compare(a, b) >= 0 ? a : b)) : null;
    case 'list':
      return args['distinct'] ? [...new Set(present)] : present;
    case 'any':
      return present[0] ?? null;
    case 'last':
      return present[present.length - 1] ?? null;
    case 'string_agg':
      return present.join((args['sep'] as string) ?? ',');
    default:
      return null;
  }
}

function keyFields(info: GraphQLResolveInfo): string[] {
  const out: string[] = [];
  for (const node of info.fieldNodes) {
    for (const sel of node.selectionSet?.selections ?? []) {
      if (sel.kind !== Kind.FIELD || sel.name.value !== 'key') continue;
      for (const k of sel.selectionSet?.selections ?? []) if (k.kind === Kind.FIELD && !k.name.value.startsWith('__')) out.push((k as FieldNode).name.value);
    }
  }
  return [...new Set(out)];
}

function isList(type: GraphQLType): boolean {
  return isListType(isNonNullType(type) ? type.ofType : type);
}

export interface DataModel {
  /** hugr_type of `Type.field` (from the extended introspection). */
  hugrType: (type: string, field: string) => string | undefined;
  /** Rows by data object type name (mutated by insert and delete). */
  rows: Map<string, Row[]>;
  isModuleRoot: (type: string) => boolean;
}

/** Target data object of a generated query field. */
function targetOf(kind: string, returnType: string): string {
  if (kind === 'aggregate') return returnType.replace(/^_/, '').replace(/_aggregation$/, '');
  if (kind === 'bucket_agg') return returnType.replace(/^_/, '').replace(/_aggregation_bucket$/, '');
  return returnType;
}

export function dataResolver(model: DataModel): GraphQLFieldResolver<unknown, unknown> {
  return (source, args: Json, _ctx, info) => {
    const parent = info.parentType.name;
    const named = getNamedType(info.returnType).name;
    if (model.isModuleRoot(parent)) {
      const kind = model.hugrType(parent, info.fieldName);
      if (kind === 'submodule' || model.isModuleRoot(named)) return {};
      let target = kind ? targetOf(kind, named) : named;
      if (kind?.startsWith('mutation_')) {
        // The data object a mutation changes: by its filter (X_filter) or data (X_mut_input_data) argument type.
        const def = info.parentType.getFields()[info.fieldName]!;
        const filterArg = def.args.find((a) => a.name === 'filter');
        const dataArg = def.args.find((a) => a.name === 'data');
        target = filterArg ? getNamedType(filterArg.type).name.replace(/_filter$/, '') : dataArg ? getNamedType(dataArg.type).name.replace(/_mut_input_data$/, '') : target;
      }
      const rows = model.rows.get(target) ?? [];
      switch (kind) {
        case 'select':
          return selectRows(rows, args);
        case 'select_one':
          return rows.find((r) => Object.entries(args).every(([k, v]) => k === 'args' || r[k] === v)) ?? null;
        case 'aggregate':
          return { __rows: selectRows(rows, { ...args, limit: Number.MAX_SAFE_INTEGER }) } satisfies Aggregated;
        case 'bucket_agg': {
          const selected = selectRows(rows, { ...args, limit: Number.MAX_SAFE_INTEGER, offset: 0 });
          const fields = keyFields(info);
          const groups = new Map<string, Row[]>();
          for (const r of selected) {
            const k = JSON.stringify(fields.map((f) => r[f] ?? null));
            const g = groups.get(k) ?? [];
            g.push(r);
            groups.set(k, g);
          }
          const buckets = [...groups.values()].map((g) => ({
            key: Object.fromEntries(fields.map((f) => [f, g[0]![f] ?? null])),
            aggregations: (a: Json) => ({ __rows: g.filter((r) => matches(r, a['filter'] as Json | undefined)) }),
          }));
          const offset = (args['offset'] as number | undefined) ?? 0;
          return buckets.slice(offset, offset + ((args['limit'] as number | undefined) ?? 2000));
        }
        case 'mutation_insert': {
          const row = { ...(args['data'] as Row) };
          const list = model.rows.get(target) ?? [];
          list.push(row);
          model.rows.set(target, list);
          return row;
        }
        case 'mutation_delete': {
          const list = model.rows.get(target) ?? [];
          const keep = list.filter((r) => !matches(r, args['filter'] as Json | undefined));
          model.rows.set(target, keep);
          return { success: true, affected_rows: list.length - keep.length };
        }
        case 'function':
          return isList(info.returnType) ? [] : `${info.fieldName}(${JSON.stringify(args)})`;
        default:
          return null;
      }
    }
    const src = source as Partial<Aggregated & Values> & Json;
    if (src && Array.isArray(src.__rows)) {
      if (info.fieldName === '_rows_count') return src.__rows.length;
      return { __values: src.__rows.map((r) => r[info.fieldName]) } satisfies Values;
    }
    if (src && Array.isArray(src.__values)) return aggregate(src.__values, info.fieldName, args);
    const value = src?.[info.fieldName];
    if (value === undefined && src) {
      const related = relatedRows(model.rows, info, src, args);
      if (related !== undefined) return related;
    }
    return typeof value === 'function' ? (value as (a: Json) => unknown)(args) : value;
  };
}

/**
 * The rows a relation field (`@references_query`) of a data object reaches from `row`, by the `@references` it
 * names: on the row's own type (it holds the keys: many-to-one, or many-to-many through the m2m table's other
 * reference) or on the target type (one-to-many). A list field gets the matching rows (filter, order, limit,
 * offset applied; null when none, as Hugr answers), a single one the first or null; undefined when the field is no
 * relation.
 */
function relatedRows(rows: Map<string, Row[]>, info: GraphQLResolveInfo, row: Row, args: Json): unknown {
  const field = info.parentType.getFields()[info.fieldName];
  const query = field && directivesOf(field).find((d) => d.name === 'references_query');
  if (!query) return undefined;
  const target = getNamedType(info.returnType).name;
  const targetType = info.schema.getType(target);
  const named = (holder: Parameters<typeof directivesOf>[0]) => directivesOf(holder).find((d) => d.name === 'references' && d.args['name'] === query.args['name'])?.args;
  const keys = (r: Json | undefined, k: string) => ((r?.[k] as string[] | undefined) ?? []);
  const same = (a: Row, af: string[], b: Row, bf: string[]) => af.length > 0 && af.every((f, i) => a[f] === b[bf[i]!]);
  let found: Row[] = [];
  const own = named(info.parentType);
  if (own && own['is_m2m'] === true) {
    const m2mType = info.schema.getType(own['m2m_name'] as string);
    const toTarget = isObjectType(m2mType) ? directivesOf(m2mType).find((d) => d.name === 'references' && d.args['references_name'] === target)?.args : undefined;
    const links = (rows.get(own['m2m_name'] as string) ?? []).filter((l) => same(row, keys(own, 'source_fields'), l, keys(own, 'references_fields')));
    found = (rows.get(target) ?? []).filter((t) => links.some((l) => same(l, keys(toTarget, 'source_fields'), t, keys(toTarget, 'references_fields'))));
  } else if (own) {
    found = (rows.get(target) ?? []).filter((t) => same(row, keys(own, 'source_fields'), t, keys(own, 'references_fields')));
  } else {
    const back = isObjectType(targetType) ? named(targetType) : undefined;
    if (!back) return undefined;
    found = (rows.get(target) ?? []).filter((t) => same(t, keys(back, 'source_fields'), row, keys(back, 'references_fields')));
  }
  if (!isList(info.returnType)) return found[0] ?? null;
  // As Hugr v0.3.41 answers: a relation list with no rows is null, not [].
  const selected = selectRows(found, args) as unknown[];
  return selected.length ? selected : null;
}
