/**
 * The Hugr guide (docs/guide-hugr.md) served as the MCP resource sextant://guide/hugr: every GraphQL example in it
 * validates against the schema the Hugr test server serves (introspected over HTTP with the service secret) and
 * against the index Sextant builds from that server (graphql_validate over MCP); the real `sextant serve` lists and
 * reads the resource over stdio and Streamable HTTP, and its instructions and data tools point to it.
 */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { buildClientSchema, getIntrospectionQuery, Kind, parse, validate, visit, type DocumentNode, type GraphQLSchema, type IntrospectionQuery } from 'graphql';
import { callTool, connectHttp, connectStdio, indexInto, killAll, REPO_ROOT, startHttpServer, tempDir, type Connection, type HttpServerProcess } from './helpers/e2e.js';
import { ADMIN_TOKEN, SECRET, startHarnessServer } from './hugr-server/fixture.js';
import type { HugrTestServer } from './hugr-server/server.js';
import { HUGR_GUIDE_URI } from '../src/surfaces/mcp/guide.js';
import { testStoreLocation } from './helpers/store.js';

const T = { timeout: 60000 };
const GUIDE_FILE = join(REPO_ROOT, 'docs', 'guide-hugr.md');
const DATA_TOOLS_POINTING_TO_GUIDE = ['graphql_query', 'graphql_validate', 'field_values', 'describe', 'search'];

interface Fence {
  lang: string;
  text: string;
  /** 1-based line of the opening fence. */
  line: number;
}

/** The fenced blocks of a Markdown text; an unclosed fence is a problem, not a block. */
function fences(markdown: string): { fences: Fence[]; problems: string[] } {
  const out: Fence[] = [];
  const problems: string[] = [];
  let open: { lang: string; line: number; body: string[] } | undefined;
  markdown.split('\n').forEach((line, i) => {
    const m = /^```\s*([\w-]*)\s*$/.exec(line);
    if (!open) {
      if (m) open = { lang: m[1]!.toLowerCase(), line: i + 1, body: [] };
    } else if (/^```\s*$/.test(line)) {
      out.push({ lang: open.lang, text: open.body.join('\n'), line: open.line });
      open = undefined;
    } else open.body.push(line);
  });
  if (open) problems.push(`the fence opened on line ${open.line} is never closed`);
  return { fences: out, problems };
}

/** What is wrong with a guide's GraphQL examples against `schema`: no examples, a parse error, a validation error. */
function exampleProblems(markdown: string, schema: GraphQLSchema): { examples: DocumentNode[]; problems: string[] } {
  const { fences: blocks, problems } = fences(markdown);
  const examples: DocumentNode[] = [];
  const graphql = blocks.filter((f) => f.lang === 'graphql');
  if (graphql.length === 0) problems.push('no ```graphql example');
  for (const f of graphql) {
    let doc: DocumentNode;
    try {
      doc = parse(f.text);
    } catch (err) {
      problems.push(`line ${f.line}: ${(err as Error).message}`);
      continue;
    }
    const errors = validate(schema, doc);
    if (errors.length) problems.push(`line ${f.line}: ${errors.map((e) => e.message).join('; ')}`);
    else examples.push(doc);
  }
  return { examples, problems };
}

/** Argument names, input-object keys and field names (as `Parent>field` for root-level paths) used by the examples. */
function vocabulary(docs: DocumentNode[]): { args: Set<string>; keys: Set<string>; fields: Set<string>; paths: Set<string> } {
  const args = new Set<string>();
  const keys = new Set<string>();
  const fields = new Set<string>();
  const paths = new Set<string>();
  for (const doc of docs) {
    for (const def of doc.definitions) {
      if (def.kind !== Kind.OPERATION_DEFINITION) continue;
      const stack: string[] = [def.operation];
      visit(def.selectionSet, {
        Field: {
          enter(node) {
            stack.push(node.name.value);
            fields.add(node.name.value);
            paths.add(stack.slice(0, 3).join('>'));
          },
          leave() {
            stack.pop();
          },
        },
        Argument: (node) => void args.add(node.name.value),
        ObjectField: (node) => void keys.add(node.name.value),
      });
    }
  }
  return { args, keys, fields, paths };
}

async function introspect(url: string): Promise<GraphQLSchema> {
  const res = await fetch(`${url}/query`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-hugr-secret-key': SECRET }, body: JSON.stringify({ query: getIntrospectionQuery() }) });
  const body = (await res.json()) as { data?: IntrospectionQuery; errors?: unknown };
  assert.ok(body.data, `introspection failed: ${JSON.stringify(body.errors)}`);
  return buildClientSchema(body.data);
}

after(async () => {
  await killAll();
});

describe('the Hugr guide', () => {
  let hugr: HugrTestServer;
  let schema: GraphQLSchema;
  let guide: string;
  let store: string;
  let stdio: Connection;

  before(async () => {
    guide = await readFile(GUIDE_FILE, 'utf8');
    hugr = await startHarnessServer();
    schema = await introspect(hugr.url);
    const dir = await tempDir('sextant-guide-');
    await writeFile(join(dir, 'sextant.yaml'), ['sources:', '  - name: hugr', '    kind: graphql', `    endpoint: ${hugr.url}/query`, '    headers:', `      x-hugr-secret-key: ${SECRET}`, '    data:', '      token: ${HUGR_USER_TOKEN}', ''].join('\n'));
    store = await testStoreLocation(join(dir, '.sextant'));
    await indexInto(dir, store);
    // Data tools run as the caller: on stdio, the configured user token (an admin's, who sees every field).
    stdio = await connectStdio(store, { env: { HUGR_USER_TOKEN: ADMIN_TOKEN } });
  }, { timeout: 120000 });

  after(async () => {
    await stdio?.close().catch(() => undefined);
    await hugr?.close();
  });

  test('every ```graphql example validates against the schema the Hugr test server serves', T, () => {
    const { examples, problems } = exampleProblems(guide, schema);
    assert.deepEqual(problems, []);
    assert.ok(examples.length >= 10, `only ${examples.length} examples`);
  });

  test('the checker fails a guide without examples, with a broken or invalid example, or with an unclosed fence', T, () => {
    assert.deepEqual(exampleProblems('# Nothing\n\n```text\nquery { a }\n```\n', schema).problems, ['no ```graphql example']);
    assert.match(exampleProblems('```graphql\nquery { sales { orders { id }\n```\n', schema).problems.join(), /line 1: Syntax Error/);
    assert.match(exampleProblems('```graphql\nquery { sales { orders { idd } } }\n```\n', schema).problems.join(), /line 1: Cannot query field "idd" on type "orders"/);
    assert.match(exampleProblems('```graphql\nquery { sales { orders { id } } }\n```\n\n```graphql\n{ x }\n', schema).problems.join(), /never closed/);
  });

  test('the examples cover the four roots, filters, ordering, nested arguments, aggregations and functions', T, () => {
    const { args, keys, fields, paths } = vocabulary(exampleProblems(guide, schema).examples);
    for (const p of ['query>sales>orders', 'query>sales>reports', 'mutation>sales>update_orders', 'query>function>sales', 'mutation>function>sales']) assert.ok(paths.has(p), `no example reaches ${p}`);
    for (const a of ['filter', 'order_by', 'limit', 'offset', 'distinct_on', 'args', 'nested_order_by', 'nested_limit', 'inner', 'bucket']) assert.ok(args.has(a), `no example uses the argument ${a}`);
    for (const k of ['eq', 'in', 'ilike', 'gt', 'gte', 'lt', 'is_null', '_or', '_not', 'any_of', 'none_of', 'field', 'direction']) assert.ok(keys.has(k), `no example uses ${k}`);
    for (const f of ['orders_by_pk', 'orders_aggregation', 'orders_bucket_aggregation', 'key', 'aggregations', '_rows_count', '_join']) assert.ok(fields.has(f), `no example selects ${f}`);
  });

  test('graphql_validate over MCP accepts every example against the index built from that server', T, async () => {
    const { fences: blocks } = fences(guide);
    const graphql = blocks.filter((f) => f.lang === 'graphql');
    assert.ok(graphql.length > 0);
    for (const f of graphql) {
      const r = await callTool(stdio.client, 'graphql_validate', { query: f.text });
      assert.equal(r.body['valid'], true, `example on line ${f.line}: ${JSON.stringify(r.body['problems'] ?? r.body['error'])}`);
    }
  });

  test('stdio: resources/list shows the guide and resources/read returns the file', T, async () => {
    assert.ok(stdio.client.getServerCapabilities()?.resources, 'the server does not declare resources');
    const { resources } = await stdio.client.listResources();
    const listed = resources.find((r) => r.uri === HUGR_GUIDE_URI);
    assert.ok(listed, `resources/list: ${JSON.stringify(resources)}`);
    assert.equal(listed.mimeType, 'text/markdown');
    assert.match(listed.description ?? '', /bucket aggregations/);
    const read = await stdio.client.readResource({ uri: HUGR_GUIDE_URI });
    assert.deepEqual(read.contents, [{ uri: HUGR_GUIDE_URI, mimeType: 'text/markdown', text: guide }]);
  });

  test('stdio: an unknown resource is a resource-not-found error and the session goes on', T, async () => {
    await assert.rejects(stdio.client.readResource({ uri: 'sextant://guide/nope' }), (err: { code?: number; message?: string }) => {
      assert.equal(err.code, -32002);
      assert.match(err.message ?? '', /sextant:\/\/guide\/hugr/);
      return true;
    });
    const { resources } = await stdio.client.listResources();
    assert.ok(resources.some((r) => r.uri === HUGR_GUIDE_URI));
  });

  test('initialize: the instructions point to the guide', T, () => {
    const instructions = stdio.client.getInstructions() ?? '';
    assert.ok(instructions.includes(HUGR_GUIDE_URI), instructions);
    assert.match(instructions, /nested_limit/);
  });

  test('the data tools\' descriptions point to the guide', T, async () => {
    const { tools } = await stdio.client.listTools();
    for (const name of DATA_TOOLS_POINTING_TO_GUIDE) {
      const tool = tools.find((t) => t.name === name);
      assert.ok(tool, `${name} is not listed`);
      assert.ok(tool.description?.includes(HUGR_GUIDE_URI), `${name}: ${tool.description}`);
    }
  });

  describe('over Streamable HTTP', () => {
    let server: HttpServerProcess;
    let http: Connection;

    before(async () => {
      server = await startHttpServer(store);
      http = await connectHttp(server.url);
    }, { timeout: 60000 });

    after(async () => {
      await http?.close().catch(() => undefined);
      await server?.stop();
    });

    test('resources/list and resources/read serve the same guide', T, async () => {
      const { resources } = await http.client.listResources();
      assert.ok(resources.some((r) => r.uri === HUGR_GUIDE_URI));
      const read = await http.client.readResource({ uri: HUGR_GUIDE_URI });
      assert.equal((read.contents[0] as { text?: string }).text, guide);
      assert.ok(http.client.getInstructions()?.includes(HUGR_GUIDE_URI));
    });
  });
});
