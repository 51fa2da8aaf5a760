/**
 * End to end over MCP: the real `sextant serve` (stdio and stateless Streamable HTTP) driven by the official
 * SDK client, against GitHub's public schema indexed once into a temp store by the real CLI.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  BIN,
  callTool,
  childEnv,
  closeSession,
  connectHttp,
  githubStore,
  hintChecker,
  indexInto,
  killAll,
  openSession,
  REPO_ROOT,
  startHttpServer,
  tempDir,
  TOOL_NAMES,
  type Connection,
  type HintChecker,
  type HttpServerProcess,
  type Session,
  type ToolAnswer,
  type Transport,
} from './helpers/e2e.js';

const T = { timeout: 60000 };
const TRANSPORTS: Transport[] = ['stdio', 'http'];

let githubDir: string;

before(async () => {
  githubDir = await githubStore();
}, { timeout: 120000 });

after(async () => {
  await killAll();
});

function ok(answer: ToolAnswer, what: string): Record<string, any> {
  assert.equal(answer.isError, false, `${what} failed: ${JSON.stringify(answer.body.error ?? answer.body)}`);
  assert.equal(answer.body.ok, true);
  return answer.body;
}

function failed(answer: ToolAnswer, code: string, what: string): Record<string, any> {
  assert.equal(answer.isError, true, `${what} should fail with ${code}; got ${JSON.stringify(answer.body).slice(0, 400)}`);
  assert.equal(answer.body.ok, false);
  assert.equal(answer.body.error?.code, code, `${what}: ${JSON.stringify(answer.body.error)}`);
  assert.equal(typeof answer.body.error.message, 'string');
  return answer.body.error as Record<string, any>;
}

for (const transport of TRANSPORTS) {
  describe(`MCP over ${transport}: the GitHub schema walk`, () => {
    let session: Session;
    let client: Connection['client'];
    let hints: HintChecker;
    const hintCounts = new Map<string, number>();
    let pullRequestId: string;
    let titleFieldId: string;

    /** Calls a tool expecting ok, validating its hints against the advertised schemas. */
    async function okCall(name: string, args: Record<string, unknown>): Promise<Record<string, any>> {
      const body = ok(await callTool(client, name, args), `${name} ${JSON.stringify(args)}`);
      const n = hints.check(`${name} ${JSON.stringify(args)}`, body);
      hintCounts.set(name, (hintCounts.get(name) ?? 0) + (n > 0 ? 1 : 0));
      return body;
    }

    before(async () => {
      session = await openSession(transport, githubDir);
      client = session.conn.client;
    }, T);

    after(async () => {
      await closeSession(session);
    });

    test('lists exactly the five tools, each with an object input schema and a description', T, async () => {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), [...TOOL_NAMES].sort());
      for (const t of tools) {
        assert.equal(t.inputSchema.type, 'object', `${t.name} inputSchema.type`);
        assert.ok(t.inputSchema.properties && Object.keys(t.inputSchema.properties).length > 0, `${t.name} has no properties`);
        assert.ok(typeof t.description === 'string' && t.description.length > 20, `${t.name} has no description`);
        assert.equal(t.annotations?.readOnlyHint, true, `${t.name} is read-only`);
      }
      hints = hintChecker(tools);
    });

    test('server instructions teach the locate → inspect → walk loop', T, () => {
      const instructions = client.getInstructions();
      assert.ok(instructions, 'no instructions');
      for (const word of ['locate', 'inspect', 'walk']) assert.match(instructions, new RegExp(word, 'i'));
      assert.equal(client.getServerVersion()?.name, 'sextant');
    });

    test('search ranks PullRequestReviewComment first for "pull request review comments"', T, async () => {
      const body = await okCall('search', { query: 'pull request review comments' });
      const results = body.results as { node: Record<string, any> }[];
      assert.ok(results.length >= 3, `only ${results.length} results`);
      assert.equal(results[0]!.node.qualified_name, 'PullRequestReviewComment');
      for (const r of results.slice(0, 3)) assert.match(r.node.qualified_name, /PullRequestReview/, `top 3: ${results.slice(0, 3).map((x) => x.node.qualified_name).join(', ')}`);
      for (const r of results) for (const key of ['id', 'kind', 'name', 'qualified_name', 'source']) assert.ok(r.node[key], `search result lacks ${key}`);
    });

    test('resolve "PullRequest" → one type', T, async () => {
      const body = await okCall('resolve', { identifier: 'PullRequest' });
      assert.equal(body.status, 'one');
      assert.equal(body.node.kind, 'type');
      assert.equal(body.node.qualified_name, 'PullRequest');
      pullRequestId = body.node.id as string;
      assert.match(pullRequestId, /^[a-z]{2,3}_[0-9a-z]{16}$/);
    });

    test('describe PullRequest: an OBJECT with >50 fields and interfaces', T, async () => {
      const body = await okCall('describe', { id: pullRequestId });
      assert.equal(body.node.id, pullRequestId);
      assert.equal(body.node.properties.type_kind, 'OBJECT');
      assert.ok(body.node.edges.HAS_FIELD.out > 50, `HAS_FIELD out = ${body.node.edges.HAS_FIELD?.out}`);
      assert.ok(body.node.edges.IMPLEMENTS.out >= 1, `IMPLEMENTS out = ${body.node.edges.IMPLEMENTS?.out}`);
      assert.equal(body.node.location.file, 'schema.graphql');
    });

    test('describe accepts an exact qualified name in place of the id', T, async () => {
      const body = await okCall('describe', { id: 'PullRequest' });
      assert.equal(body.node.id, pullRequestId);
    });

    test('neighbors HAS_FIELD out reaches `title`, whose FIELD_TYPE is String', T, async () => {
      const body = await okCall('neighbors', { ids: [pullRequestId], direction: 'out', edge_types: ['HAS_FIELD'], limit: 500 });
      assert.equal(body.has_more, false);
      const edges = body.edges as { type: string; other: Record<string, any> }[];
      assert.ok(edges.length > 50);
      assert.ok(edges.every((e) => e.type === 'HAS_FIELD'));
      const title = edges.find((e) => e.other.name === 'title');
      assert.ok(title, 'no title field');
      assert.equal(title.other.qualified_name, 'PullRequest.title');
      titleFieldId = title.other.id as string;

      const typed = await okCall('neighbors', { ids: [titleFieldId], direction: 'out', edge_types: ['FIELD_TYPE'] });
      assert.equal(typed.edges.length, 1);
      assert.equal(typed.edges[0].other.qualified_name, 'String');
    });

    test('find rejects a filter field of another kind, naming it and listing what applies', T, async () => {
      const error = failed(await callTool(client, 'find', { kind: 'type', filter: { parent_type: 'PullRequest' } }), 'inapplicable_field', 'find type by parent_type');
      assert.match(error.message, /parent_type/);
      assert.match(error.message, /type_kind/, 'message lists the fields that apply to type');
      assert.ok(Array.isArray(error.allowed) && error.allowed.includes('type_kind'), `allowed: ${JSON.stringify(error.allowed)}`);
      assert.equal(error.argument, 'filter.parent_type');
      hints.check('find error', { hints: error.hints ?? [] });
    });

    test('find fields by parent_type, with the filter sent as JSON text', T, async () => {
      const body = await okCall('find', { kind: 'field', filter: '{"parent_type":"PullRequest"}' });
      assert.ok(body.total > 50, `total ${body.total}`);
      assert.deepEqual(body.filter, { parent_type: 'PullRequest' });
      assert.equal(body.has_more, true, 'default limit 25 < total');
      for (const r of body.results as Record<string, any>[]) {
        assert.equal(r.kind, 'field');
        assert.ok(r.attributes?.parent_type === 'PullRequest' || String(r.qualified_name).startsWith('PullRequest.'), `not a PullRequest field: ${r.qualified_name}`);
      }
      // The next-page hint is sendable as it is and returns the following page.
      const next = (body.hints as { tool: string; args: Record<string, unknown> }[]).find((h) => h.tool === 'find');
      assert.ok(next, 'no next-page hint');
      const page2 = await okCall('find', next.args);
      assert.equal(page2.total, body.total);
      const firstIds = new Set((body.results as { id: string }[]).map((r) => r.id));
      assert.ok((page2.results as { id: string }[]).every((r) => !firstIds.has(r.id)), 'page 2 repeats page 1');
    });

    test('a bad argument is a tool error (out_of_range), and the server keeps answering', T, async () => {
      const error = failed(await callTool(client, 'search', { query: 'pull request', limit: 9999 }), 'out_of_range', 'limit 9999');
      assert.match(error.message, /limit/);
      failed(await callTool(client, 'neighbors', { ids: [pullRequestId], direction: 'sideways', edge_types: ['HAS_FIELD'] }), 'bad_enum_value', 'direction sideways');
      failed(await callTool(client, 'search', { qurey: 'x' }), 'unknown_argument', 'misspelt argument');
      failed(await callTool(client, 'nosuchtool', {}), 'unknown_tool', 'unknown tool');
      const again = await okCall('resolve', { identifier: 'PullRequest' });
      assert.equal(again.node.id, pullRequestId);
      if (session.server) assert.equal(session.server.child.exitCode, null, 'HTTP server exited');
    });

    test('search, resolve and describe each returned at least one valid hint', T, () => {
      for (const tool of ['search', 'resolve', 'describe']) assert.ok((hintCounts.get(tool) ?? 0) >= 1, `${tool} gave no hints`);
    });
  });
}

// ----------------------------------------------------------------------------------------- HTTP only

function rawHttp(port: number, opts: { method: string; path: string; headers?: Record<string, string>; body?: string }): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((done, fail) => {
    const req = request({ host: '127.0.0.1', port, method: opts.method, path: opts.path, headers: opts.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () => done({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', fail);
    req.end(opts.body);
  });
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
});
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

describe('MCP over HTTP: the endpoint itself', () => {
  let server: HttpServerProcess;
  before(async () => {
    server = await startHttpServer(githubDir);
  }, T);
  after(async () => {
    await server?.stop();
  });

  test('GET /mcp is 405 (stateless: POST only)', T, async () => {
    const r = await rawHttp(server.port, { method: 'GET', path: '/mcp', headers: { accept: 'text/event-stream' } });
    assert.equal(r.status, 405);
    assert.match(String(r.headers.allow), /POST/);
  });

  test('GET /healthz is 200', T, async () => {
    const r = await rawHttp(server.port, { method: 'GET', path: '/healthz' });
    assert.equal(r.status, 200);
    assert.equal(JSON.parse(r.body).ok, true);
  });

  test('an unknown path is 404', T, async () => {
    const r = await rawHttp(server.port, { method: 'POST', path: '/other', headers: MCP_HEADERS, body: INITIALIZE });
    assert.equal(r.status, 404);
  });

  test('a foreign Host header is refused (DNS rebinding protection); the loopback Host is served', T, async () => {
    const evil = await rawHttp(server.port, { method: 'POST', path: '/mcp', headers: { ...MCP_HEADERS, host: 'evil.example' }, body: INITIALIZE });
    assert.equal(evil.status, 403, `status ${evil.status}: ${evil.body}`);
    assert.match(JSON.parse(evil.body).error.message, /Invalid Host header: evil\.example/);
    const evilWithPort = await rawHttp(server.port, { method: 'POST', path: '/mcp', headers: { ...MCP_HEADERS, host: `evil.example:${server.port}` }, body: INITIALIZE });
    assert.equal(evilWithPort.status, 403);

    for (const host of [`127.0.0.1:${server.port}`, `localhost:${server.port}`]) {
      const good = await rawHttp(server.port, { method: 'POST', path: '/mcp', headers: { ...MCP_HEADERS, host }, body: INITIALIZE });
      assert.equal(good.status, 200, `Host ${host}: ${good.status} ${good.body}`);
      assert.equal(JSON.parse(good.body).result.serverInfo.name, 'sextant');
    }
  });

  test('the server is still up after the refusals', T, async () => {
    const conn = await connectHttp(server.url);
    try {
      const { tools } = await conn.client.listTools();
      assert.equal(tools.length, TOOL_NAMES.length);
    } finally {
      await conn.close();
    }
  });

  test('SIGTERM stops it cleanly (exit 0) even after keep-alive clients', T, async () => {
    const exited = new Promise<number | null>((done) => server.child.once('exit', (code) => done(code)));
    server.child.kill('SIGTERM');
    const code = await Promise.race([exited, new Promise<'hung'>((done) => setTimeout(() => done('hung'), 5000))]);
    assert.equal(code, 0, `exit ${String(code)}; stderr:\n${server.stderr()}`);
  });
});

describe('MCP over stdio: the process', () => {
  test('exits 0 by itself when the client closes stdin, and writes only protocol to stdout', T, async () => {
    const child = spawn(process.execPath, [BIN, 'serve', '--store', githubDir], { cwd: REPO_ROOT, env: childEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    try {
      let stdout = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr.resume();
      child.stdin.write(`${INITIALIZE}\n`);
      const deadline = Date.now() + 20000;
      while (!stdout.includes('\n') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
      child.stdin.end();
      const code = await Promise.race([exited, new Promise<'hung'>((done) => setTimeout(() => done('hung'), 5000))]);
      assert.equal(code, 0);
      const lines = stdout.split('\n').filter(Boolean);
      assert.equal(lines.length, 1, stdout);
      const reply = JSON.parse(lines[0]!) as { id: number; result: { serverInfo: { name: string }; instructions?: string } };
      assert.equal(reply.id, 1);
      assert.equal(reply.result.serverInfo.name, 'sextant');
      assert.match(reply.result.instructions ?? '', /locate/);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
});

// ----------------------------------------------------------------------------------------- no index yet

const SMALL_SDL = `"""The root."""
type Query {
  """A widget by id."""
  widget(id: ID!): Widget
}

"""A thing we make."""
type Widget {
  id: ID!
  label: String
}
`;

for (const transport of TRANSPORTS) {
  describe(`MCP over ${transport}: started before the first index`, () => {
    let session: Session;
    let storeDir: string;
    let schemaFile: string;

    before(async () => {
      storeDir = await tempDir('sextant-empty-');
      const schemaDir = await tempDir('sextant-sdl-');
      schemaFile = join(schemaDir, 'widgets.graphql');
      await writeFile(schemaFile, SMALL_SDL);
      session = await openSession(transport, storeDir);
    }, T);

    after(async () => {
      await closeSession(session);
    });

    test('starts and lists its tools without an index', T, async () => {
      const { tools } = await session.conn.client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), [...TOOL_NAMES].sort());
    });

    test('a call answers index_unavailable, saying how to build one', T, async () => {
      const error = failed(await callTool(session.conn.client, 'search', { query: 'widget' }), 'index_unavailable', 'search without index');
      assert.match(error.message, /sextant index/);
      // Still alive, still teaching.
      failed(await callTool(session.conn.client, 'resolve', { identifier: 'Widget' }), 'index_unavailable', 'resolve without index');
    });

    test('after `sextant index` into its store, the same server answers', T, async () => {
      await indexInto(schemaFile, storeDir);
      const answer = await callTool(session.conn.client, 'resolve', { identifier: 'Widget' });
      const body = ok(answer, 'resolve after index');
      assert.equal(body.status, 'one');
      assert.equal(body.node.qualified_name, 'Widget');
      const search = ok(await callTool(session.conn.client, 'search', { query: 'widget label' }), 'search after index');
      assert.ok(search.results.slice(0, 3).some((r: { node: { qualified_name: string } }) => r.node.qualified_name === 'Widget.label'), JSON.stringify(search.results.slice(0, 3)));
    });

    test('a rebuild (new file) is picked up too', T, async () => {
      await writeFile(schemaFile, SMALL_SDL.replace('label: String', 'label: String\n  colour: String'));
      await indexInto(schemaFile, storeDir, ['--rebuild']);
      const body = ok(await callTool(session.conn.client, 'resolve', { identifier: 'Widget.colour' }), 'resolve after rebuild');
      assert.equal(body.status, 'one');
    });
  });
}

// ------------------------------------------------------------------- schemas and tools agree at the edges

describe('MCP: the advertised input schemas and the tools agree', () => {
  let session: Session;
  let client: Connection['client'];
  let pullRequestId: string;
  let validate: (tool: string, args: Record<string, unknown>) => boolean;

  before(async () => {
    session = await openSession('stdio', githubDir);
    client = session.conn.client;
    const { tools } = await client.listTools();
    const checker = hintChecker(tools);
    validate = (tool, args) => {
      try {
        checker.check('schema', { hints: [{ tool, args, reason: 'probe' }] });
        return true;
      } catch {
        return false;
      }
    };
    pullRequestId = ok(await callTool(client, 'resolve', { identifier: 'PullRequest' }), 'resolve').node.id as string;
  }, T);

  after(async () => {
    await closeSession(session);
  });

  test('describe {ids: []} is an invalid argument, not "No node has id ."', T, async () => {
    assert.equal(validate('describe', { ids: [] }), false, 'the schema forbids an empty ids list');
    failed(await callTool(client, 'describe', { ids: [] }), 'invalid_argument', 'describe ids []');
  });

  test('neighbors {ids: []} is an error, not an ok empty answer', T, async () => {
    assert.equal(validate('neighbors', { ids: [], direction: 'out', edge_types: ['HAS_FIELD'] }), false);
    const answer = await callTool(client, 'neighbors', { ids: [], direction: 'out', edge_types: ['HAS_FIELD'] });
    assert.equal(answer.isError, true, JSON.stringify(answer.body).slice(0, 300));
  });

  test('search {kinds: []} is an error, not silently every kind', T, async () => {
    assert.equal(validate('search', { query: 'pull', kinds: [] }), false);
    const answer = await callTool(client, 'search', { query: 'pull', kinds: [] });
    assert.equal(answer.isError, true, JSON.stringify(answer.body).slice(0, 300));
  });

  test('search accepts exactly the offsets its schema allows', T, async () => {
    assert.equal(validate('search', { query: 'pull request', offset: 150 }), true);
    const answer = await callTool(client, 'search', { query: 'pull request', offset: 150 });
    assert.equal(answer.isError, false, JSON.stringify(answer.body.error));
    assert.equal(validate('search', { query: 'pull request', offset: 5000 }), false);
    failed(await callTool(client, 'search', { query: 'pull request', offset: 5000 }), 'out_of_range', 'search offset 5000');
  });

  test('the neighbors next-page hint keeps edge_filter', T, async () => {
    const body = ok(await callTool(client, 'neighbors', { ids: [pullRequestId], direction: 'out', edge_types: ['HAS_FIELD'], edge_filter: { min_confidence: 0.5 }, limit: 1 }), 'neighbors');
    const next = (body.hints as { tool: string; args: Record<string, unknown> }[]).find((h) => h.tool === 'neighbors');
    assert.ok(next, 'no next-page hint');
    assert.deepEqual(next.args.edge_filter, { min_confidence: 0.5 });
  });
});
