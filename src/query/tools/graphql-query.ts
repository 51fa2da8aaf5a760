import { Kind, type DocumentNode, type FragmentDefinitionNode, type GraphQLSchema, type OperationDefinitionNode, type OperationTypeNode, type SelectionSetNode } from 'graphql';
import { asEnum, asInteger, asObject, asString } from '../coerce.js';
import { fail } from '../errors.js';
import { limitHints, type Hint } from '../hints.js';
import { sendGraphql, sendIpc, type GraphqlRequest } from '../data/http.js';
import { parseQuery, pickOperation, refuseUnsafeIntegers, validationProblems } from '../data/operation.js';
import { indexedSchema } from '../data/schema.js';
import { dataSourceFor, isHugrSource } from '../data/source.js';
import { fitTables, planTables, shapeNamespace, tablesOfIpc, tablesOfJson, type NamespaceTest, type ResultTable } from '../data/table.js';
import { truncateJson } from '../data/truncate.js';
import type { ParamDef, ToolContext, ToolDef } from '../tool.js';

export const MAX_BYTES_LIMIT = 1_000_000;
const MIN_BYTES = 100;
const FORMATS = ['json', 'table'] as const;

function params(kind: 'query' | 'mutation'): ParamDef[] {
  return [
    { name: 'query', description: `The GraphQL document (one ${kind}, or several operations with \`operation_name\`).`, schema: { type: 'string', minLength: 1 }, required: true },
    { name: 'variables', description: 'Variables of the operation: an object (or its JSON text).', schema: { anyOf: [{ type: 'object' }, { type: 'string' }] } },
    { name: 'operation_name', description: 'Which operation of the document to run, when it has several.', schema: { type: 'string' } },
    { name: 'source', description: 'The GraphQL source to send it to (needed when several can be queried).', schema: { type: 'string' } },
    ...(kind === 'query'
      ? [
          { name: 'jq', description: 'A jq filter applied here to the whole answer (`{data, errors, extensions}`, so paths start at `.data`); several outputs come back as a list.', schema: { type: 'string' } } satisfies ParamDef,
          {
            name: 'format',
            description:
              '`json` (default): GraphQL\'s answer as it is. `table`: each query of the operation as `{path, columns, rows, row_count}`, rows as lists of cells (far smaller to read); nested objects and lists stay JSON in their cell, a single object (by primary key, aggregation) is a one-row table. Read from Hugr\'s Arrow endpoint (/ipc) on a Hugr source. Not with `jq`.',
            schema: { type: 'string', enum: [...FORMATS], default: 'json' },
          } satisfies ParamDef,
        ]
      : []),
    {
      name: 'max_bytes',
      description: `Largest answer to return, in bytes of JSON (default: the source's data.max_bytes, 20000; ${MIN_BYTES}–${MAX_BYTES_LIMIT}). A larger answer is cut to fit and stays valid JSON: \`truncated: true\`, its original size, and where it was cut.`,
      schema: { type: 'integer', minimum: MIN_BYTES, maximum: MAX_BYTES_LIMIT },
    },
  ];
}

const OPERATION_WORD: Record<OperationTypeNode, string> = { query: 'a query', mutation: 'a mutation', subscription: 'a subscription' } as Record<OperationTypeNode, string>;

async function runOperation(ctx: ToolContext, args: Record<string, unknown>, kind: 'query' | 'mutation'): Promise<Record<string, unknown>> {
  const tool = kind === 'query' ? 'graphql_query' : 'graphql_mutate';
  const query = asString(args['query'], 'query')!;
  const variables = asObject(args['variables'], 'variables');
  refuseUnsafeIntegers(variables, 'variables');
  const operationName = asString(args['operation_name'], 'operation_name');
  const jq = kind === 'query' ? asString(args['jq'], 'jq') : undefined;
  const format = kind === 'query' ? (asEnum(args['format'], 'format', FORMATS, 'format') ?? 'json') : 'json';
  if (format === 'table' && jq !== undefined) {
    fail({
      code: 'invalid_argument',
      argument: 'jq',
      message: '`jq` reshapes the JSON answer and `format: table` answers with tables: use one of them. (With `format: json`, jq can build rows too, e.g. `[.data.shop.customers[] | [.id, .name]]`.)',
    });
  }
  const access = dataSourceFor(ctx, tool, asString(args['source'], 'source'));
  const maxBytes = asInteger(args['max_bytes'], 'max_bytes', { min: MIN_BYTES, max: MAX_BYTES_LIMIT }) ?? access.config.max_bytes;

  // Read-only is decided by parsing, never by trusting the text.
  const doc = parseQuery(query);
  const op = pickOperation(doc, operationName);
  if (op.operation !== kind) {
    if (kind === 'query') {
      fail({
        code: 'not_read_only',
        argument: 'query',
        message: `graphql_query runs queries only, and this operation is ${OPERATION_WORD[op.operation]}. ${
          op.operation === 'mutation'
            ? access.config.allow_mutations
              ? 'Send it with graphql_mutate.'
              : `Mutations go through graphql_mutate, which is off unless \`data.allow_mutations: true\` is set for source "${access.source}" in sextant.yaml.`
            : 'Subscriptions are not supported.'
        }`,
      });
    }
    fail({ code: 'invalid_argument', argument: 'query', message: `graphql_mutate runs mutations only, and this operation is ${OPERATION_WORD[op.operation]}; read with graphql_query.` });
  }
  if (kind === 'mutation' && !access.config.allow_mutations) {
    fail({ code: 'mutations_disabled', message: `Mutations are off for source "${access.source}": set \`data.allow_mutations: true\` for it in sextant.yaml to allow them (they run as the caller, with the caller's permissions).` });
  }
  const schema = await indexedSchema(ctx.store, access.source);
  if (schema) {
    const problems = validationProblems(schema, doc);
    if (problems.length) {
      fail({
        code: 'invalid_query',
        argument: 'query',
        message: `The ${kind} does not validate against the indexed schema of "${access.source}": ${problems.slice(0, 5).map((p) => `${p.message}${p.locations ? ` (line ${p.locations[0]!.line}, column ${p.locations[0]!.column})` : ''}`).join('; ')}${problems.length > 5 ? ` (and ${problems.length - 5} more)` : ''}`,
        hints: limitHints([{ tool: 'graphql_validate', args: { query, source: access.source }, reason: 'every problem with its location and suggestions' }]),
      });
    }
  }

  // Hugr's server-side jq can run GraphQL of its own (queryHugr), mutations included: on a Hugr source, neither
  // its root `jq` field nor a `_jq` variable may ride along with a read-only query. Our jq runs here.
  const hugr = await isHugrSource(ctx, access);
  if (hugr) refuseServerJq(doc, op, variables, access.source);
  const request = { query, ...(variables ? { variables } : {}), ...(operationName ? { operationName } : {}) };
  if (format === 'table') {
    const head = { source: access.source, operation: { type: op.operation, ...(op.name ? { name: op.name.value } : {}) } };
    return { ok: true, ...head, ...(await runTables(ctx, args, { access, doc, op, schema, request, hugr, maxBytes })) };
  }
  let { json, bytes, as } = await sendGraphql(access, ctx.data!.caller, request);
  graphqlEnvelope(json, access.source);
  if (jq !== undefined) {
    if (!ctx.data?.jq) fail({ code: 'invalid_argument', argument: 'jq', message: 'jq is not available here: run the query without `jq`.' });
    try {
      json = await ctx.data.jq(jq, json);
    } catch (err) {
      fail({ code: 'invalid_argument', argument: 'jq', message: `The jq filter failed: ${(err as Error).message}` });
    }
    bytes = Buffer.byteLength(JSON.stringify(json) ?? 'null');
  }
  const jqBy = jq !== undefined ? 'local' : undefined;
  const envelope = jqBy ? { result: json } : (json as Record<string, unknown>);
  const { value, cuts, fits } = truncateJson(envelope, maxBytes);
  const out = value as Record<string, unknown>;
  const hints: Hint[] = [];
  if (cuts.length) {
    if (maxBytes < MAX_BYTES_LIMIT) hints.push({ tool, args: { ...stripBlank(args), max_bytes: Math.min(MAX_BYTES_LIMIT, Math.max(maxBytes * 4, bytes + 1024)) }, reason: 'the whole answer' });
    if (kind === 'query' && jq === undefined) hints.push({ tool, args: { ...stripBlank(args), jq: '.data' }, reason: 'reshape the answer with jq (e.g. select fields, count with length) so it fits' });
  }
  return {
    ok: true,
    source: access.source,
    operation: { type: op.operation, ...(op.name ? { name: op.name.value } : {}) },
    identity: as,
    ...(jqBy ? { jq: jqBy, result: out['result'] } : { ...(out['data'] !== undefined ? { data: out['data'] } : {}), ...(out['errors'] !== undefined ? { errors: out['errors'] } : {}), ...(out['extensions'] !== undefined ? { extensions: out['extensions'] } : {}) }),
    bytes: cuts.length ? Buffer.byteLength(JSON.stringify(value)) : bytes,
    truncated: cuts.length > 0,
    ...(cuts.length ? { original_bytes: bytes, cuts } : {}),
    ...(fits ? {} : { over_max_bytes: true }),
    hints: limitHints(hints),
  };
}

/** The answer as a GraphQL envelope (`{data, errors}`); anything else is the server's error. */
function graphqlEnvelope(json: unknown, source: string): Record<string, unknown> {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    fail({ code: 'upstream_error', message: `${source} answered with ${Array.isArray(json) ? 'a list' : json === null ? 'null' : `a ${typeof json}`} instead of a GraphQL answer ({data, errors}).` });
  }
  return json as Record<string, unknown>;
}

interface TableRun {
  access: ReturnType<typeof dataSourceFor>;
  doc: DocumentNode;
  op: OperationDefinitionNode;
  schema: GraphQLSchema | undefined;
  request: GraphqlRequest;
  hugr: boolean;
  maxBytes: number;
}

/**
 * `format: table`: from Hugr's Arrow endpoint on a Hugr source, from the JSON answer elsewhere; the tables found in
 * the document (table.ts). Over `max_bytes`, whole rows are dropped from the ends of the largest tables.
 */
async function runTables(ctx: ToolContext, args: Record<string, unknown>, run: TableRun): Promise<Record<string, unknown>> {
  const { access, doc, op, schema, request, hugr, maxBytes } = run;
  const specs = planTables(doc, op, schema, hugr ? await hugrModuleRoots(ctx, access.source) : shapeNamespace);
  let tables: ResultTable[];
  let errors: unknown;
  let extensions: unknown;
  let as: string;
  if (hugr) {
    const byPath = new Map(specs.map((s) => [s.path, s.jsonFields]));
    const ipc = await sendIpc(access, ctx.data!.caller, request, { jsonFields: (path) => byPath.get(path) ?? new Set() });
    tables = tablesOfIpc(ipc.answer, specs, schema !== undefined);
    errors = ipc.answer.errors.length ? ipc.answer.errors : undefined;
    extensions = ipc.answer.extensions;
    as = ipc.as;
  } else {
    const { json, as: who } = await sendGraphql(access, ctx.data!.caller, request);
    const answer = graphqlEnvelope(json, access.source);
    tables = tablesOfJson(answer['data'], specs);
    errors = answer['errors'];
    extensions = answer['extensions'];
    as = who;
  }
  const envelope: { tables: ResultTable[] } & Record<string, unknown> = { tables, ...(errors !== undefined ? { errors } : {}), ...(extensions !== undefined ? { extensions } : {}) };
  const bytes = Buffer.byteLength(JSON.stringify(envelope));
  const { cut, fits } = fitTables(envelope, maxBytes);
  const dropped = envelope.tables.reduce((n, t) => n + (t.rows_dropped ?? 0), 0);
  const hints: Hint[] = [];
  if (cut && maxBytes < MAX_BYTES_LIMIT) {
    hints.push({ tool: 'graphql_query', args: { ...stripBlank(args), max_bytes: Math.min(MAX_BYTES_LIMIT, Math.max(maxBytes * 4, bytes + 1024)) }, reason: `the whole answer (${dropped} row${dropped === 1 ? ' was' : 's were'} left out)` });
  }
  return {
    identity: as,
    format: 'table',
    via: hugr ? 'ipc' : 'json',
    ...envelope,
    bytes: cut ? Buffer.byteLength(JSON.stringify(envelope)) : bytes,
    truncated: cut,
    ...(cut ? { original_bytes: bytes, rows_dropped: dropped } : {}),
    ...(fits ? {} : { over_max_bytes: true }),
    hints: limitHints(hints),
  };
}

/** Hugr's namespaces: the query and function root types of the source's modules (the fields Hugr looks through). */
async function hugrModuleRoots(ctx: ToolContext, source: string): Promise<NamespaceTest> {
  const { nodes } = await ctx.store.findNodes({ kinds: ['module'], predicates: [{ property: 'source', op: 'in', values: [source] }], limit: 100_000, offset: 0 });
  const roots = new Set<string>();
  for (const n of nodes) for (const p of ['query_root', 'function_root']) if (typeof n.props[p] === 'string') roots.add(n.props[p] as string);
  return (_field, type) => roots.has(type.name);
}

/** Refuses Hugr's root `jq` field (also through fragments) and the `_jq` variable: both run jq on the server. */
function refuseServerJq(doc: DocumentNode, op: OperationDefinitionNode, variables: Record<string, unknown> | undefined, source: string): void {
  if (variables && Object.hasOwn(variables, '_jq')) {
    fail({ code: 'invalid_argument', argument: 'variables', message: `\`_jq\` in variables makes Hugr run jq on the server, which can run other GraphQL; it is not accepted. Use the \`jq\` argument: it runs here.` });
  }
  const fragments = new Map(doc.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((f) => [f.name.value, f]));
  const seen = new Set<string>();
  const visitRoot = (set: SelectionSetNode): void => {
    for (const sel of set.selections) {
      if (sel.kind === Kind.FIELD && sel.name.value === 'jq') {
        fail({ code: 'invalid_argument', argument: 'query', message: `Hugr's root \`jq\` field runs jq on the server of "${source}", which can run other GraphQL; it is not accepted in graphql_query. Query the data and pass the filter in the \`jq\` argument: it runs here.` });
      }
      if (sel.kind === Kind.INLINE_FRAGMENT) visitRoot(sel.selectionSet);
      if (sel.kind === Kind.FRAGMENT_SPREAD && !seen.has(sel.name.value)) {
        seen.add(sel.name.value);
        const f = fragments.get(sel.name.value);
        if (f) visitRoot(f.selectionSet);
      }
    }
  };
  visitRoot(op.selectionSet);
}

function stripBlank(args: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined && v !== null && v !== ''));
}

export const graphqlQueryTool: ToolDef = {
  name: 'graphql_query',
  title: 'Run a GraphQL query',
  description: () =>
    [
      'Runs a read-only GraphQL query against an indexed API, as the caller: with the bearer token of the MCP request (Streamable HTTP) or the configured user token (stdio), never with the service credentials used for indexing.',
      'Mutations are refused by parsing the document (use graphql_mutate where it is enabled). The query is checked against the indexed schema first. `describe` a data object for a skeleton to start from; `jq` reshapes the answer (real jq, run here); `format: table` answers with rows under their columns, far smaller to read; an answer over `max_bytes` is cut to valid JSON and says where.',
      'Writing a Hugr query (paths, filters, order_by, nested arguments, bucket aggregations, functions): read the MCP resource sextant://guide/hugr first.',
    ].join('\n'),
  params: () => params('query'),
  run: (ctx, args) => runOperation(ctx, args, 'query'),
};

export const graphqlMutateTool: ToolDef = {
  name: 'graphql_mutate',
  title: 'Run a GraphQL mutation',
  description: () =>
    'Runs a GraphQL mutation as the caller (bearer token of the MCP request, or the configured user token). Changes data. Only for sources with `data.allow_mutations: true` in sextant.yaml.',
  params: () => params('mutation'),
  run: (ctx, args) => runOperation(ctx, args, 'mutation'),
};
