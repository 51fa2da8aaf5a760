import { getNamedType, isObjectType, parse, type GraphQLSchema } from 'graphql';
import type { NodeRecord } from '../../graph/types.js';
import { toRef } from '../../graph/types.js';
import { looksLikeNodeId } from '../../graph/ids.js';
import { closest } from '../../search/similarity.js';
import { asInteger, asObject, asString } from '../coerce.js';
import { fail } from '../errors.js';
import { sendGraphql } from '../data/http.js';
import { truncateJson } from '../data/truncate.js';
import { validationProblems } from '../data/operation.js';
import { indexedSchema } from '../data/schema.js';
import { dataSourceFor } from '../data/source.js';
import { limitHints } from '../hints.js';
import type { ToolContext, ToolDef } from '../tool.js';

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 200;
const STAT_FUNCTIONS = ['count', 'min', 'max', 'avg', 'sum'] as const;

interface StoredQuery {
  name: string;
  kind: string;
  graphql_path: string;
  arguments: { name: string; type: string }[];
}

async function dataObjectOf(ctx: ToolContext, text: string): Promise<NodeRecord> {
  if (looksLikeNodeId(text)) {
    const [node] = await ctx.store.getNodes([text]);
    if (node?.kind === 'data_object') return node;
    fail({ code: 'not_found', argument: 'data_object', message: `${text} is not the id of a data object. Find data objects with \`search\` or \`find\` (kind data_object).` });
  }
  const found = new Map<string, NodeRecord>();
  for (const property of ['qualified_name', 'type_name', 'query_name']) {
    const { nodes } = await ctx.store.findNodes({ kinds: ['data_object'], predicates: [{ property, op: 'in', values: [text] }], limit: 20, offset: 0 });
    for (const n of nodes) found.set(n.id, n);
    if (found.size) break;
  }
  if (found.size === 1) return [...found.values()][0]!;
  if (found.size > 1) {
    fail({ code: 'ambiguous', argument: 'data_object', message: `\`${text}\` names ${found.size} data objects (${[...found.values()].map((n) => `${n.qualified_name} in ${n.source}`).join(', ')}): pass one's id.`, allowed: [...found.keys()] });
  }
  const suggestions = await ctx.store.similarNames(text, { kinds: ['data_object'], limit: 3 });
  fail({
    code: 'not_found',
    argument: 'data_object',
    message: `No data object is named \`${text}\` (by path, type name or query name).${suggestions.length ? ` Did you mean ${suggestions.map((s) => `\`${s.name}\``).join(' or ')}?` : ''}`,
    hints: limitHints([{ tool: 'search', args: { query: text, kinds: ['data_object'] }, reason: 'find the data object by words' }]),
  });
}

/** Selections of the aggregation of `field` the schema offers, among count/min/max/avg/sum. */
function statSelection(schema: GraphQLSchema | undefined, aggregationType: string | undefined, field: string): string[] {
  const agg = aggregationType && schema?.getType(aggregationType);
  if (!agg || !isObjectType(agg)) return ['count'];
  const f = agg.getFields()[field];
  const t = f && getNamedType(f.type);
  if (!t || !isObjectType(t)) return [];
  return STAT_FUNCTIONS.filter((fn) => t.getFields()[fn] && t.getFields()[fn]!.args.every((a) => a.defaultValue !== undefined || !String(a.type).endsWith('!')));
}

function nest(path: string[], body: string): string {
  let out = body;
  for (let i = path.length - 1; i >= 0; i--) out = `${path[i]} { ${out} }`;
  return out;
}

export const fieldValuesTool: ToolDef = {
  name: 'field_values',
  title: 'Distinct values of a field',
  description: () =>
    [
      'The distinct values of a column of a Hugr data object with how many rows have each (most frequent first), and statistics the field\'s type allows (rows, non-null count, min, max, avg, sum), through its bucket aggregation and aggregation queries, run as the caller.',
      'Use it to pick filter values. `filter` narrows the rows (the data object\'s filter type); `args` are the arguments of a parameterised view. A list of values over the source\'s `data.max_bytes` is cut to fit (`truncated: true`, `cuts`).',
      'Hugr filters and aggregations are explained, with examples, in the MCP resource sextant://guide/hugr.',
    ].join('\n'),
  params: () => [
    { name: 'data_object', description: 'The data object: its id, path (sales.orders), type name (shop_items) or query name.', schema: { type: 'string', minLength: 1 }, required: true },
    { name: 'field', description: 'A column of the data object.', schema: { type: 'string', minLength: 1 }, required: true },
    { name: 'filter', description: 'Rows to count, in the data object\'s filter type: an object (or its JSON text), e.g. {"status": {"eq": "new"}}.', schema: { anyOf: [{ type: 'object' }, { type: 'string' }] } },
    { name: 'args', description: 'Arguments of a parameterised view: an object (or its JSON text).', schema: { anyOf: [{ type: 'object' }, { type: 'string' }] } },
    { name: 'limit', description: `How many values (default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT}).`, schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT } },
  ],
  run: async (ctx, args) => {
    const object = await dataObjectOf(ctx, asString(args['data_object'], 'data_object')!);
    const fieldName = asString(args['field'], 'field')!;
    const filter = asObject(args['filter'], 'filter');
    const viewArgs = asObject(args['args'], 'args');
    const limit = asInteger(args['limit'], 'limit', { min: 1, max: MAX_LIMIT }) ?? DEFAULT_LIMIT;
    const typeName = object.props['type_name'] as string;

    const ofObject = [{ property: 'source', op: 'in' as const, values: [object.source] }, { property: 'parent_type', op: 'in' as const, values: [typeName] }];
    // A column: stored (or computed by @sql) and callable without arguments.
    const isColumn = (f: NodeRecord): boolean =>
      (f.props['field_kind'] === undefined || f.props['field_kind'] === 'column' || f.props['hugr_type'] === 'calculated') &&
      ((f.props['arguments'] as { type: string; default_value?: string }[] | undefined) ?? []).every((a) => !a.type.endsWith('!') || a.default_value !== undefined);
    const [named] = (await ctx.store.findNodes({ kinds: ['field'], predicates: [...ofObject, { property: 'name', op: 'in', values: [fieldName] }], limit: 1, offset: 0 })).nodes;
    const field = named && isColumn(named) ? named : undefined;
    if (!field) {
      const { nodes: fields } = await ctx.store.findNodes({ kinds: ['field'], predicates: ofObject, limit: 2000, offset: 0 });
      const columns = fields.filter(isColumn);
      const names = columns.map((f) => f.name).sort();
      const near = closest(fieldName, names);
      const other = named;
      fail({
        code: 'invalid_argument',
        argument: 'field',
        message: other
          ? `\`${fieldName}\` of ${object.qualified_name} is ${other.props['field_kind'] && other.props['field_kind'] !== 'column' ? `a ${other.props['field_kind']} field` : 'a field with required arguments'}, not a column; field_values counts the values of columns: ${names.join(', ')}.`
          : `${object.qualified_name} has no column \`${fieldName}\`.${near.length ? ` Did you mean ${near.map((n) => `\`${n}\``).join(' or ')}?` : ''} Columns: ${names.join(', ')}.`,
        allowed: names,
        ...(near.length ? { did_you_mean: near } : {}),
      });
    }
    const queries = (object.props['queries'] as StoredQuery[] | undefined) ?? [];
    const bucket = queries.find((q) => q.kind === 'bucket_aggregate');
    const aggregate = queries.find((q) => q.kind === 'aggregate');
    if (!bucket) fail({ code: 'invalid_argument', argument: 'data_object', message: `${object.qualified_name} has no bucket aggregation query, so its values cannot be counted; read them with graphql_query.` });
    const access = dataSourceFor(ctx, 'field_values', object.source, `Data object ${object.qualified_name}`);
    const schema = await indexedSchema(ctx.store, object.source);

    const takes = (q: StoredQuery, name: string) => q.arguments.find((a) => a.name === name);
    const vars: string[] = [];
    const variables: Record<string, unknown> = { limit };
    const filterArg = takes(bucket, 'filter');
    if (filter && filterArg) {
      vars.push(`$filter: ${filterArg.type}`);
      variables['filter'] = filter;
    } else if (filter) fail({ code: 'invalid_argument', argument: 'filter', message: `${object.qualified_name}'s bucket aggregation takes no filter.` });
    const argsArg = takes(bucket, 'args');
    if (argsArg && (viewArgs || argsArg.type.endsWith('!'))) {
      if (!viewArgs) fail({ code: 'missing_argument', argument: 'args', message: `${object.qualified_name} is a parameterised view: pass \`args\` (type ${argsArg.type}).` });
      vars.push(`$args: ${argsArg.type}`);
      variables['args'] = viewArgs;
    } else if (viewArgs) fail({ code: 'invalid_argument', argument: 'args', message: `${object.qualified_name} takes no \`args\`.` });
    vars.push('$limit: Int');
    const common = [...(variables['filter'] ? ['filter: $filter'] : []), ...(variables['args'] ? ['args: $args'] : [])];
    const path = bucket.graphql_path.split('.').slice(0, -1);
    const stats = aggregate ? statSelection(schema, object.props['aggregation_type'] as string | undefined, fieldName) : [];
    const body = [
      `values: ${bucket.name}(${[...common, 'order_by: [{field: "aggregations._rows_count", direction: DESC}]', 'limit: $limit'].join(', ')}) { key { ${fieldName} } aggregations { _rows_count } }`,
      ...(aggregate ? [`stats: ${aggregate.name}${common.length ? `(${common.join(', ')})` : ''} { _rows_count${stats.length ? ` ${fieldName} { ${stats.join(' ')} }` : ''} }`] : []),
    ].join(' ');
    const query = `query (${vars.join(', ')}) { ${nest(path, body)} }`;
    if (schema) {
      const problems = validationProblems(schema, parse(query));
      if (problems.length) fail({ code: 'invalid_query', message: `The values query for ${object.qualified_name}.${fieldName} does not validate against the indexed schema (${problems[0]!.message}); query it with graphql_query instead.` });
    }
    const answer = await sendGraphql(access, ctx.data!.caller, { query, variables });
    if (answer.json === null || typeof answer.json !== 'object' || Array.isArray(answer.json)) {
      fail({ code: 'upstream_error', message: `${access.source} answered with something other than a GraphQL answer ({data, errors}).` });
    }
    const json = answer.json as { data?: Record<string, unknown>; errors?: { message: string }[] };
    if (json.errors?.length) {
      fail({
        code: 'upstream_error',
        message: `${access.source} did not count the values of ${object.qualified_name}.${fieldName}: ${json.errors.slice(0, 3).map((e) => e.message).join('; ')}. The caller may not see this field, or the filter does not fit the data object's filter type (${object.props['filter_type'] ?? 'none'}).`,
      });
    }
    let at: unknown = json.data;
    for (const p of path) at = (at as Record<string, unknown> | undefined)?.[p];
    const result = (at ?? {}) as { values?: { key?: Record<string, unknown>; aggregations?: { _rows_count?: number } }[]; stats?: Record<string, unknown> };
    const values = (result.values ?? [])
      .map((b) => ({ value: b.key?.[fieldName] ?? null, count: Number(b.aggregations?._rows_count ?? 0) }))
      .sort((a, b) => b.count - a.count || (JSON.stringify(a.value) < JSON.stringify(b.value) ? -1 : 1));
    const hasMore = values.length >= limit;
    // Values are whatever the column holds (long texts too): the list is cut to the source's max_bytes like any answer.
    const shown = truncateJson(values, access.config.max_bytes);
    const fieldStats = (result.stats?.[fieldName] ?? {}) as Record<string, unknown>;
    return {
      ok: true,
      data_object: toRef(object),
      field: { name: fieldName, type: field.props['type_signature'] },
      identity: answer.as,
      values: shown.value,
      ...(shown.cuts.length ? { truncated: true, cuts: shown.cuts } : {}),
      ...(hasMore ? { has_more: true, distinct_at_least: values.length } : { has_more: false, distinct: values.length }),
      ...(values.length === 0
        ? { absence: { reason: filter || viewArgs ? 'no rows match the filter and arguments (or the caller may see none)' : 'the data object has no rows the caller may see' } }
        : {}),
      ...(result.stats ? { stats: { rows: result.stats['_rows_count'], ...Object.fromEntries(STAT_FUNCTIONS.filter((f) => f in fieldStats).map((f) => [f === 'count' ? 'non_null' : f, fieldStats[f]])) } } : {}),
      hints: limitHints([
        hasMore && limit < MAX_LIMIT && { tool: 'field_values', args: { data_object: object.id, field: fieldName, ...(filter ? { filter } : {}), ...(viewArgs ? { args: viewArgs } : {}), limit: Math.min(MAX_LIMIT, limit * 5) }, reason: 'more values' },
      ]),
    };
  },
};
