/**
 * Reliability of the tool surface: input limits (declared in the schemas, enforced in the one validation path
 * every transport shares, before any tool or did-you-mean work), error bodies that never echo a huge value,
 * request and reply size guards on MCP stdio and HTTP, one argument validation for MCP and the CLI, and the HTTP
 * Origin / Host checks. End-to-end parts use the real `sextant serve` (stdio and HTTP) and the official SDK
 * client against GitHub's schema, indexed once.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { sextantOntology } from '../src/graph/ontology/index.js';
import type { Store } from '../src/graph/store.js';
import { listTools, runTool, TOOLS, type ToolContext } from '../src/query/index.js';
import { capErrorBody, MAX_ERROR_STRING } from '../src/query/errors.js';
import { DEFAULT_LIMITS, inputSchema } from '../src/query/tool.js';
import { closest } from '../src/search/similarity.js';
import { peekRequestId } from '../src/surfaces/mcp/server.js';
import { BIN, childEnv, closeSession, connectHttp, githubStore, killAll, openSession, REPO_ROOT, runCli, startHttpServer, type Connection, type HttpServerProcess, type Session, type Transport } from './helpers/e2e.js';

const T = { timeout: 60000 };
const ontology = sextantOntology();

/** A store that fails the test if anything touches it: refused input must never reach a tool. */
const untouchable = new Proxy({}, {
  get(_t, key) {
    if (key === 'then') return undefined;
    throw new Error(`the store was used (${String(key)}) for input that should have been refused first`);
  },
}) as Store;
const ctx: ToolContext = { store: untouchable, ontology };

function refused(result: Awaited<ReturnType<typeof runTool>>, code: string | RegExp, what: string): Record<string, any> {
  assert.equal(result.ok, false, `${what}: not refused`);
  const error = (result as { error: Record<string, any> }).error;
  if (typeof code === 'string') assert.equal(error.code, code, `${what}: ${JSON.stringify(error).slice(0, 400)}`);
  else assert.match(error.code, code, `${what}: ${JSON.stringify(error).slice(0, 400)}`);
  assert.ok(JSON.stringify(error).length < 2000, `${what}: error body of ${JSON.stringify(error).length} characters`);
  return error;
}

describe('input limits, in process', () => {
  test('every string, list and free-form object in every tool schema carries a limit', () => {
    const unlimited: string[] = [];
    const walk = (schema: Record<string, any>, at: string): void => {
      if (schema.type === 'string' && typeof schema.maxLength !== 'number') unlimited.push(at);
      if (schema.type === 'array' && typeof schema.maxItems !== 'number') unlimited.push(at);
      if (schema.type === 'object' && schema.additionalProperties !== false && typeof schema.maxProperties !== 'number' && at.includes('.')) unlimited.push(at);
      for (const [i, b] of (schema.anyOf ?? []).entries()) walk(b, `${at}|${i}`);
      if (schema.items) walk(schema.items, `${at}[]`);
      for (const [k, v] of Object.entries(schema.properties ?? {})) walk(v as Record<string, any>, `${at}.${k}`);
    };
    for (const t of listTools(ontology, { mutations: true })) walk(t.inputSchema, t.name);
    assert.deepEqual(unlimited, []);
    const find = listTools(ontology).find((t) => t.name === 'find')!.inputSchema as any;
    assert.equal(find.properties.kind.maxLength, DEFAULT_LIMITS.maxLength);
    assert.equal(find.properties.filter.properties.name.anyOf[0].maxLength, DEFAULT_LIMITS.maxLength);
    const gq = inputSchema(TOOLS.find((t) => t.name === 'graphql_query')!, ontology) as any;
    assert.equal(gq.properties.query.maxLength, 256 * 1024);
    assert.equal(gq.properties.variables.anyOf[1].maxLength, 256 * 1024);
    const describeSchema = inputSchema(TOOLS.find((t) => t.name === 'describe')!, ontology) as any;
    assert.equal(describeSchema.properties.ids.anyOf[0].maxItems, DEFAULT_LIMITS.maxItems);
  });

  test('a 4 MB kind is refused by its length before any tool or similarity work', async () => {
    const kind = 'k'.repeat(4_000_000);
    const error = refused(await runTool(ctx, 'find', { kind }), 'out_of_range', 'find kind');
    assert.equal(error.argument, 'kind');
    assert.equal(error.size, 4_000_000);
    assert.equal(error.limit, DEFAULT_LIMITS.maxLength);
    assert.equal(error.unit, 'characters');
    assert.ok(error.excerpt.startsWith(`"${'k'.repeat(80)}"…`), error.excerpt);
    assert.match(error.message, /4000000 characters.*limit of 4096/);
  });

  test('nested values, list items, keys, JSON text and variables are all checked, with their path', async () => {
    const long = 'x'.repeat(5000);
    assert.equal(refused(await runTool(ctx, 'find', { kind: 'type', filter: { name: ['ok', long] } }), 'out_of_range', 'filter list item').argument, 'filter.name[1]');
    assert.equal(refused(await runTool(ctx, 'find', { kind: 'type', filter: JSON.stringify({ qualified_name_prefix: long }) }), 'out_of_range', 'filter as JSON text').argument, 'filter.qualified_name_prefix');
    assert.equal(refused(await runTool(ctx, 'describe', { ids: `['a', '${long}']` }), 'out_of_range', 'list literal').argument, 'ids[1]');
    assert.equal(refused(await runTool(ctx, 'describe', { ids: Array.from({ length: 501 }, (_, i) => `id${i}`) }), 'out_of_range', '501 ids').unit, 'items');
    assert.match(refused(await runTool(ctx, 'find', { kind: 'type', filter: { [long]: 'a' } }), 'out_of_range', 'long key').argument, /^filter\./);
    const big = 'v'.repeat(300 * 1024);
    assert.equal(refused(await runTool(ctx, 'graphql_query', { query: '{ a }', variables: { a: { b: big } } }), 'out_of_range', 'variables').argument, 'variables.a.b');
    assert.equal(refused(await runTool(ctx, 'graphql_query', { query: '{ a }', variables: JSON.stringify({ a: big }) }), 'out_of_range', 'variables text').argument, 'variables');
    assert.equal(refused(await runTool(ctx, 'graphql_validate', { query: big }), 'out_of_range', 'document').argument, 'query');
    // A long unknown argument name gets no did-you-mean work and no echo.
    const unknown = refused(await runTool(ctx, 'find', { ['k'.repeat(1_000_000)]: 1 }), 'unknown_argument', 'long argument name');
    assert.ok(!unknown.did_you_mean);
    // A long unknown tool name likewise.
    refused(await runTool(ctx, 't'.repeat(1_000_000), {}), 'unknown_tool', 'long tool name');
  });

  test('an 80 KB identifier is a teaching error, not an internal one', async () => {
    const id = 'Pull'.repeat(20_000);
    for (const [tool, args] of [['resolve', { identifier: id }], ['describe', { id }], ['find', { kind: 'type', filter: { qualified_name_prefix: id } }], ['trace', { from: id }], ['search', { query: id }]] as const) {
      const error = refused(await runTool(ctx, tool, args), 'out_of_range', tool);
      assert.match(error.message, /Identifiers, names and filter values are short/);
    }
  });

  test('did-you-mean work is bounded: a huge input or candidate list returns at once, ordinary ones unchanged', () => {
    assert.deepEqual(closest('x'.repeat(4_000_000), ['type', 'field']), []);
    assert.deepEqual(closest('feild', ['type', 'field', 'module']), ['field']);
    // Over-long inputs get no suggestions at all (before: a prefix match still found one, after all the work).
    assert.deepEqual(closest(`field${'x'.repeat(300)}`, ['field']), []);
    // At most a bounded number of candidates is compared: a match after them is not reached.
    const many = [...Array.from({ length: 6000 }, (_, i) => `unrelated_${i}`), 'candidate'];
    assert.deepEqual(closest('candidat', many), []);
    assert.deepEqual(closest('candidat', many.slice(-10)), ['candidate']);
  });

  test('no error body string leaves longer than the cap, whatever a tool put in it', () => {
    const body = capErrorBody({ code: 'not_found', message: `No node has id ${'"x", '.repeat(1_000_000)}`, argument: 'id', hints: [{ tool: 'resolve', args: { identifier: 'y'.repeat(100_000) }, reason: 'r' }] });
    assert.ok(body.message.length <= MAX_ERROR_STRING, `${body.message.length}`);
    assert.match(body.message, /\[cut: \d+ characters in all\]$/);
    assert.ok((body.hints![0]!.args.identifier as string).length <= MAX_ERROR_STRING);
  });

  test('the id of an oversized request is read from its edges', () => {
    assert.equal(peekRequestId('{"method":"tools/call","params":{"arguments":{"a":"xxx', 'xxxx"}},"jsonrpc":"2.0","id":7}'), 7);
    assert.equal(peekRequestId('{"jsonrpc":"2.0","id":"abc","method":"tools/call"', 'xxxx"}}}'), 'abc');
    assert.equal(peekRequestId('{"method":"x","params":{"a":"', 'xx","id":3}}}'), null);
  });
});

// ------------------------------------------------------------------------------------------- end to end

let githubDir: string;
before(async () => {
  githubDir = await githubStore();
}, { timeout: 120000 });
after(async () => {
  await killAll();
});

/** A tool call returning the raw reply and its size as JSON text. */
async function call(conn: Connection, name: string, args: unknown): Promise<{ body: Record<string, any>; isError: boolean; bytes: number }> {
  const result = await conn.client.callTool({ name, arguments: args as Record<string, unknown> });
  return { body: result.structuredContent as Record<string, any>, isError: result.isError === true, bytes: Buffer.byteLength(JSON.stringify(result)) };
}

async function stillAnswers(conn: Connection): Promise<void> {
  const r = await call(conn, 'resolve', { identifier: 'PullRequest' });
  assert.equal(r.body.ok, true, JSON.stringify(r.body).slice(0, 300));
  assert.equal(r.body.status, 'one');
}

/** The error a tool gives for bad arguments, without what differs between calls (index freshness). */
function errorOf(body: Record<string, any>): Record<string, unknown> {
  assert.equal(body.ok, false, JSON.stringify(body).slice(0, 300));
  return body.error as Record<string, unknown>;
}

const BAD_ARGUMENTS: { what: string; json: string }[] = [
  { what: 'a list', json: '[1, 2]' },
  { what: 'a number', json: '5' },
  { what: 'text that is not an object', json: '"kind=type"' },
  { what: 'a __proto__ key', json: '{"kind": "type", "__proto__": {"polluted": true}}' },
];

for (const transport of ['stdio', 'http'] as Transport[]) {
  describe(`MCP over ${transport}: size guards and one validation path`, () => {
    let session: Session;
    before(async () => {
      session = await openSession(transport, githubDir);
    }, T);
    after(async () => {
      await closeSession(session);
    });

    test('a 5 MB argument gets a small tool error, and the session goes on', T, async () => {
      const r = await call(session.conn, 'resolve', { identifier: 'x'.repeat(5_000_000) });
      assert.equal(r.isError, true);
      assert.equal(r.body.error.code, 'out_of_range');
      assert.equal(r.body.error.argument, 'identifier');
      assert.ok(r.bytes < 64 * 1024, `reply of ${r.bytes} bytes`);
      await stillAnswers(session.conn);
    });

    test('a request over 10 MiB gets a JSON-RPC error, and the session goes on', T, async () => {
      const huge = 'y'.repeat(11 * 1024 * 1024);
      await assert.rejects(call(session.conn, 'resolve', { identifier: huge }), (err: Error) => {
        if (transport === 'stdio') {
          assert.ok(err instanceof McpError, `${err.name}: ${err.message.slice(0, 300)}`);
          assert.equal(err.code, -32600);
        } else {
          assert.equal((err as Error & { code?: number }).code, 413, `${err.name}: ${err.message.slice(0, 300)}`);
          assert.match(err.message, /"id":\d+,"error":\{"code":-32600/);
        }
        assert.match(err.message, /Request too large: \d+ bytes.*limit of 8388608 bytes/);
        assert.ok(err.message.length < 2000);
        return true;
      });
      await stillAnswers(session.conn);
      if (transport === 'stdio') assert.doesNotMatch(session.conn.stderr(), /ReadBuffer exceeded/);
    });

    test('a 4 MB kind does not stall a concurrent small call, and is refused by length', T, async () => {
      const [big, small] = await Promise.all([call(session.conn, 'find', { kind: 'z'.repeat(4_000_000) }), call(session.conn, 'resolve', { identifier: 'PullRequest' })]);
      assert.equal(big.body.error.code, 'out_of_range');
      assert.equal(big.body.error.argument, 'kind');
      assert.equal(small.body.status, 'one');
    });

    test('an 80 KB identifier gets the teaching error, not internal', T, async () => {
      for (const [name, args] of [['resolve', { identifier: 'Pull'.repeat(20_000) }], ['find', { kind: 'type', filter: { qualified_name_prefix: 'Pull'.repeat(20_000) } }]] as const) {
        const r = await call(session.conn, name, args);
        assert.equal(r.body.error.code, 'out_of_range', JSON.stringify(r.body).slice(0, 300));
      }
    });

    test('non-object arguments and __proto__ get the same tool error as the CLI', T, async () => {
      for (const { what, json } of BAD_ARGUMENTS) {
        const over = await call(session.conn, 'find', JSON.parse(json));
        assert.equal(over.isError, true, `${what}: ${JSON.stringify(over.body).slice(0, 300)}`);
        const cli = await runCli(['call', 'find', json, '--store', githubDir]);
        assert.equal(cli.code, 1, `${what}: CLI exit ${cli.code}\n${cli.stderr}`);
        assert.deepEqual(errorOf(over.body), errorOf(JSON.parse(cli.stdout)), what);
        assert.match(String(errorOf(over.body).code), what === 'a __proto__ key' ? /^unknown_argument$/ : /^invalid_argument$/, what);
      }
    });
  });
}

// ------------------------------------------------------------------------------------------- HTTP access

function post(url: URL, headers: Record<string, string>, body: unknown): Promise<{ status: number; text: string }> {
  return new Promise((done, fail) => {
    const text = JSON.stringify(body);
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'content-length': String(Buffer.byteLength(text)), ...headers } }, (res) => {
      let out = '';
      res.setEncoding('utf8').on('data', (d: string) => (out += d));
      res.on('end', () => done({ status: res.statusCode ?? 0, text: out }));
    });
    req.on('error', fail);
    req.end(text);
  });
}

const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } } };

describe('MCP over HTTP: Origin and Host', () => {
  let server: HttpServerProcess;
  before(async () => {
    server = await startHttpServer(githubDir);
  }, T);
  after(async () => {
    await server.stop();
  });

  test('a foreign Origin is refused with 403 and a JSON-RPC error; loopback and absent origins work', T, async () => {
    const foreign = await post(server.url, { origin: 'http://evil.example' }, INITIALIZE);
    assert.equal(foreign.status, 403);
    const body = JSON.parse(foreign.text) as { jsonrpc: string; error: { code: number; message: string } };
    assert.equal(body.jsonrpc, '2.0');
    assert.match(body.error.message, /Invalid Origin header: http:\/\/evil\.example\. It is not allowed.*--allowed-origins http:\/\/evil\.example/);
    for (const origin of ['http://localhost:5173', 'http://127.0.0.1:3000', undefined]) {
      const r = await post(server.url, origin ? { origin } : {}, INITIALIZE);
      assert.equal(r.status, 200, `${origin}: ${r.text}`);
      assert.match(r.text, /"serverInfo"/);
    }
    assert.equal((await post(server.url, { host: `evil.example:${server.port}` }, INITIALIZE)).status, 403);
  });
});

describe('serve --host 0.0.0.0', () => {
  function serveWide(extra: string[]): Promise<{ port: number; stderr: () => string; stop: () => void }> {
    const child = spawn(process.execPath, [BIN, 'serve', '--http', '0', '--host', '0.0.0.0', '--store', githubDir, ...extra], { cwd: REPO_ROOT, env: childEnv(), stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    return new Promise((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`no address: ${stderr}`)), 30000);
      child.stderr!.setEncoding('utf8').on('data', (d: string) => {
        stderr += d;
        const m = /on http:\/\/0\.0\.0\.0:(\d+)\/mcp/.exec(stderr);
        if (m && /warning: serving on 0\.0\.0\.0/.test(stderr)) {
          clearTimeout(timer);
          done({ port: Number(m[1]), stderr: () => stderr, stop: () => child.kill('SIGTERM') });
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        fail(new Error(`exited ${code}: ${stderr}`));
      });
    });
  }

  test('warns on stderr, and still checks Host against the allow-list', T, async () => {
    const wide = await serveWide([]);
    try {
      assert.match(wide.stderr(), /warning: serving on 0\.0\.0\.0, beyond loopback/);
      const url = new URL(`http://127.0.0.1:${wide.port}/mcp`);
      assert.equal((await post(url, {}, INITIALIZE)).status, 200);
      const foreign = await post(url, { host: `files.example:${wide.port}` }, INITIALIZE);
      assert.equal(foreign.status, 403);
      assert.match(foreign.text, /--allowed-hosts files\.example/);
    } finally {
      wide.stop();
    }
    const allowed = await serveWide(['--allowed-hosts', 'files.example']);
    try {
      const url = new URL(`http://127.0.0.1:${allowed.port}/mcp`);
      assert.equal((await post(url, { host: `files.example:${allowed.port}` }, INITIALIZE)).status, 200);
      assert.equal((await post(url, { host: `other.example:${allowed.port}` }, INITIALIZE)).status, 403);
      // A client through the allowed name works end to end with the SDK.
      const conn = await connectHttp(url);
      await stillAnswers(conn);
      await conn.close();
    } finally {
      allowed.stop();
    }
  });
});
