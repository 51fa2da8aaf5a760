/**
 * Structured logs end to end: the real CLI indexes the Hugr test server with the service secret, `sextant serve`
 * answers over Streamable HTTP (a caller's bearer token) and over stdio (a configured token), and `sextant call`
 * runs a data tool, each with `--log-level debug --log-file`. The logs must record every tool call and upstream
 * request with their fields, and never a secret, a token or a variable's value, in any file or on stderr.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { BIN, callTool, childEnv, connectHttp, killAll, REPO_ROOT, runCli, startHttpServer, tempDir } from './helpers/e2e.js';
import { ADMIN_TOKEN, ANALYST_TOKEN, SECRET, startHarnessServer } from './hugr-server/fixture.js';
import type { HugrTestServer } from './hugr-server/server.js';
import { closeLogging, configureLogging, addLogSecrets, logEvent } from '../src/log/logger.js';

const T = { timeout: 60000 };
/** A variable's value and a literal in a document: neither may reach a log. */
const VARIABLE_VALUE = 'variable-value-5e1c0d';
const LITERAL_VALUE = 'literal-value-91ab7f';
const NEVER_LOGGED = [SECRET, ANALYST_TOKEN, ADMIN_TOKEN, VARIABLE_VALUE, LITERAL_VALUE];

type Event = Record<string, any>;

async function eventsIn(file: string): Promise<Event[]> {
  const text = await readFile(file, 'utf8');
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Event);
}

function assertClean(what: string, text: string): void {
  for (const secret of NEVER_LOGGED) assert.ok(!text.includes(secret), `${what} contains ${secret}`);
}

/** The query an analyst may run, with a variable and a string literal. */
const TAGS_QUERY = `query TagsByName($name: String) { sales { tags(filter: {_and: [{_not: {name: {eq: $name}}}, {_not: {name: {eq: "${LITERAL_VALUE}"}}}]}, limit: 5) { name } } }`;

interface StdioRun {
  stdout: string;
  stderr: string;
  replies: Map<number, Event>;
}

/** `sextant serve` over stdio driven line by line, so every byte it writes to stdout is seen. */
function runStdio(store: string, args: string[], env: Record<string, string | undefined>, calls: { name: string; arguments: Record<string, unknown> }[]): Promise<StdioRun> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BIN, 'serve', '--store', store, ...args], { cwd: REPO_ROOT, env: childEnv(env), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const replies = new Map<number, Event>();
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`stdio server did not answer; stderr:\n${stderr}`));
    }, 45000);
    const send = (m: object) => child.stdin.write(`${JSON.stringify(m)}\n`);
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      for (const line of stdout.split('\n').slice(0, -1)) {
        const m = JSON.parse(line) as Event;
        if (typeof m['id'] === 'number') replies.set(m['id'], m);
      }
      if (replies.size === calls.length + 1) child.stdin.end();
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.once('close', () => {
      clearTimeout(timer);
      done({ stdout, stderr, replies });
    });
    send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'logging-test', version: '0' } } });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    calls.forEach((c, i) => send({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: c }));
  });
}

after(async () => {
  await killAll();
});

describe('structured logs', () => {
  let hugr: HugrTestServer;
  let dir: string;
  let store: string;
  let indexRun: Awaited<ReturnType<typeof runCli>>;
  const stderrs: string[] = [];

  before(async () => {
    hugr = await startHarnessServer();
    dir = await tempDir('sextant-logging-');
    await writeFile(
      join(dir, 'sextant.yaml'),
      ['sources:', '  - name: hugr', '    kind: graphql', `    endpoint: ${hugr.url}/query`, '    headers:', '      x-hugr-secret-key: ${HUGR_SECRET}', '    data:', '      token: ${HUGR_USER_TOKEN}', '      role: admin', ''].join('\n'),
    );
    store = join(dir, '.sextant');
    indexRun = await runCli(['index', dir, '--store', store, '--log-level', 'debug', '--log-file', join(dir, 'index.log')], { env: { HUGR_SECRET: SECRET } });
    assert.equal(indexRun.code, 0, indexRun.stderr);
    stderrs.push(indexRun.stderr);
  }, { timeout: 120000 });

  after(async () => {
    await hugr?.close();
    for (const [i, text] of stderrs.entries()) assertClean(`stderr #${i}`, text);
  });

  test('indexing logs each request it sends: probe, introspection, meta, with the secret as the identity kind', T, async () => {
    const events = await eventsIn(join(dir, 'index.log'));
    const requests = events.filter((e) => e['event'] === 'upstream_request');
    const operations = requests.map((e) => e['operation']);
    assert.equal(operations[0], 'probe');
    assert.ok(operations.includes('introspection'), operations.join());
    assert.equal(requests.length, hugr.requests.length);
    for (const r of requests) {
      assert.deepEqual([r['source'], r['endpoint'], r['identity'], r['status'], r['level']], ['hugr', `${hugr.url}/query`, 'secret', 200, 'info']);
      assert.ok(r['bytes'] > 0 && Number.isInteger(r['duration_ms']) && typeof r['document'] === 'string');
    }
    assert.match(requests.find((r) => r['operation'] === 'introspection')!['document'], /__schema/);
    const built = events.find((e) => e['event'] === 'index_source');
    assert.deepEqual([built?.['source'], built?.['nodes'] > 0], ['hugr', true]);
    // What the user reads is unchanged: the human lines on stderr, the report on stdout, no log line in either.
    assert.match(indexRun.stderr, /^indexing hugr \(1\/1\)$/m);
    assert.match(indexRun.stdout, /^hugr: \d+ nodes/m);
    assert.ok(!indexRun.stderr.includes('"event"') && !indexRun.stdout.includes('"event"'));
  });

  test('HTTP: tool calls with surface, outcome, size, role and bearer presence; the query upstream with its name and a redacted document', T, async () => {
    const log = join(dir, 'http.log');
    const server = await startHttpServer(store, 30000, { args: ['--log-level', 'debug', '--log-file', log], env: { HUGR_SECRET: undefined, HUGR_USER_TOKEN: undefined } });
    const analyst = await connectHttp(server.url, { authorization: `Bearer ${ANALYST_TOKEN}`, 'x-hugr-role': 'analyst' });
    try {
      const r = await callTool(analyst.client, 'graphql_query', { query: TAGS_QUERY, variables: { name: VARIABLE_VALUE } });
      assert.equal(r.isError, false, JSON.stringify(r.body));
      const bad = await callTool(analyst.client, 'graphql_query', { query: '{ sales { ordrs { id } } }' });
      assert.equal(bad.body['error'].code, 'invalid_query');
      await callTool(analyst.client, 'search', { query: 'orders' });
      // A request carrying a session id: logged with the call.
      const raw = await fetch(server.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': 'session-42' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'resolve', arguments: { identifier: 'sales.orders' } } }),
      });
      assert.equal(raw.status, 200, await raw.text());
    } finally {
      await analyst.close();
      await server.stop();
    }
    stderrs.push(server.stderr());
    const text = await readFile(log, 'utf8');
    assertClean('http.log', text);
    const events = await eventsIn(log);
    const calls = events.filter((e) => e['event'] === 'tool_call');
    assert.deepEqual(calls.map((c) => [c['tool'], c['outcome']]), [['graphql_query', 'ok'], ['graphql_query', 'invalid_query'], ['search', 'ok'], ['resolve', 'ok']]);
    const [query, , search, resolve] = calls as [Event, Event, Event, Event];
    assert.deepEqual([query['surface'], query['role'], query['bearer'], query['level']], ['http', 'analyst', true, 'info']);
    assert.ok(query['answer_bytes'] > 20 && Number.isInteger(query['duration_ms']));
    assert.deepEqual(query['arguments'], ['query', 'variables']);
    assert.equal(query['session_id'], undefined);
    assert.deepEqual([search['bearer'], resolve['bearer'], resolve['session_id']], [true, false, 'session-42']);
    const upstream = events.filter((e) => e['event'] === 'upstream_request');
    assert.ok(upstream.every((e) => !String(e['document']).includes('ordrs')), 'the invalid query is never sent');
    const named = upstream.filter((e) => e['operation'] === 'TagsByName');
    assert.equal(named.length, 1);
    const sent = named[0]!;
    assert.deepEqual([sent['source'], sent['endpoint'], sent['operation'], sent['identity'], sent['status']], ['hugr', `${hugr.url}/query`, 'TagsByName', 'caller_bearer', 200]);
    assert.ok(sent['bytes'] > 0);
    assert.match(sent['document'], /eq: "<string>"/);
    assert.match(sent['document'], /limit: <int>/);
    assert.match(sent['document'], /eq: \$name/);
  });

  test('stdio: nothing but JSON-RPC on stdout; logs on stderr; the configured role and token presence, never the token', T, async () => {
    const run = await runStdio(store, ['--log-level', 'debug'], { HUGR_USER_TOKEN: ADMIN_TOKEN, HUGR_SECRET: undefined }, [
      { name: 'graphql_query', arguments: { query: TAGS_QUERY, variables: { name: VARIABLE_VALUE } } },
      { name: 'describe', arguments: { id: 'sales.orders' } },
    ]);
    stderrs.push(run.stderr);
    for (const line of run.stdout.split('\n').filter((l) => l !== '')) assert.equal((JSON.parse(line) as Event)['jsonrpc'], '2.0', line);
    assert.equal(run.replies.get(1)?.['result']?.['isError'], false, JSON.stringify(run.replies.get(1)));
    assertClean('stdio stdout', run.stdout);
    const events = run.stderr.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Event);
    const calls = events.filter((e) => e['event'] === 'tool_call');
    assert.deepEqual(calls.map((c) => [c['tool'], c['surface'], c['outcome'], c['role'], c['bearer']]).sort(), [
      ['describe', 'stdio', 'ok', 'admin', true],
      ['graphql_query', 'stdio', 'ok', 'admin', true],
    ]);
    const sent = events.find((e) => e['event'] === 'upstream_request' && e['operation'] === 'TagsByName');
    assert.deepEqual([sent?.['identity'], sent?.['operation'], sent?.['status']], ['configured_token', 'TagsByName', 200]);
  });

  test('sextant call: text format is one readable line per event; stdout is the answer alone', T, async () => {
    const log = join(dir, 'call.log');
    const r = await runCli(['call', 'graphql_query', JSON.stringify({ query: TAGS_QUERY, variables: { name: VARIABLE_VALUE } }), '--store', store, '--log-level', 'debug', '--log-format', 'text', '--log-file', log], { env: { HUGR_USER_TOKEN: ADMIN_TOKEN } });
    assert.equal(r.code, 0, r.stderr);
    stderrs.push(r.stderr);
    assert.equal(JSON.parse(r.stdout).ok, true);
    assert.equal(r.stderr, '');
    const text = await readFile(log, 'utf8');
    assertClean('call.log', text);
    const lines = text.split('\n').filter((l) => l !== '');
    for (const line of lines) assert.match(line, /^\d{4}-\d\d-\d\dT[\d:.]+Z (INFO|DEBUG|WARN|ERROR) +[a-z_]+( \w+=("(?:[^"\\]|\\.)*"|[^\s"]+))+$/);
    assert.equal(lines.filter((l) => / upstream_request source=hugr .*operation=TagsByName identity=configured_token .*status=200 .*document="query TagsByName/.test(l)).length, 1, text);
    assert.match(lines.at(-1)!, / tool_call tool=graphql_query surface=cli .*outcome=ok answer_bytes=\d+ role=admin bearer=true/);
  });

  test('by default a one-shot command logs nothing: its output is what it was', T, async () => {
    const r = await runCli(['call', 'graphql_query', JSON.stringify({ query: '{ sales { tags { name } } }' }), '--store', store], { env: { HUGR_USER_TOKEN: ADMIN_TOKEN, SEXTANT_LOG_LEVEL: undefined } });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    const env = await runCli(['call', 'search', '{"query": "orders"}', '--store', store], { env: { SEXTANT_LOG_LEVEL: 'info', SEXTANT_LOG_FORMAT: 'json' } });
    assert.equal(env.code, 0, env.stderr);
    const events = env.stderr.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Event);
    assert.deepEqual(events.map((e) => [e['event'], e['tool'], e['surface']]), [['tool_call', 'search', 'cli']]);
  });

  test('bad values are teaching errors (exit 2), from flags and from the environment', T, async () => {
    const level = await runCli(['call', 'search', '{"query": "x"}', '--store', store, '--log-level', 'debg']);
    assert.equal(level.code, 2);
    assert.match(level.stderr, /--log-level takes one of error, warn, info, debug; got "debg"\. Did you mean debug\?/);
    const format = await runCli(['status', '--store', store, '--log-format', 'xml']);
    assert.equal(format.code, 2);
    assert.match(format.stderr, /--log-format takes one of json, text; got "xml"/);
    const env = await runCli(['status', '--store', store], { env: { SEXTANT_LOG_LEVEL: 'verbose' } });
    assert.equal(env.code, 2);
    assert.match(env.stderr, /SEXTANT_LOG_LEVEL takes one of error, warn, info, debug; got "verbose"/);
    // stdout redirected to a file, and that file as the log: refused before the server starts.
    const out = join(dir, 'stdout.txt');
    const fd = openSync(out, 'w');
    const refused = await new Promise<{ code: number | null; stderr: string }>((done) => {
      const child = spawn(process.execPath, [BIN, 'serve', '--store', store, '--log-file', out], { cwd: REPO_ROOT, env: childEnv(), stdio: ['pipe', fd, 'pipe'] });
      let stderr = '';
      child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      child.once('close', (code) => done({ code, stderr }));
    });
    closeSync(fd);
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /is this process's stdout, which carries answers \(and the MCP protocol on stdio\): logs never go there/);
    assert.equal(await readFile(out, 'utf8'), '');
    const dirAsFile = await runCli(['status', '--store', store, '--log-file', dir]);
    assert.equal(dirAsFile.code, 2);
    assert.match(dirAsFile.stderr, /cannot open the log file .*Give --log-file a path Sextant may write/);
  });
});

describe('the final guard', () => {
  test('removes every credential the process knows from a line, as written and as JSON escapes it', async () => {
    const dir = await tempDir('sextant-guard-');
    const file = join(dir, 'guard.log');
    configureLogging({ level: 'info', format: 'json', file });
    try {
      addLogSecrets(['Bearer guard-token-3f9a', 'pass"word\\x']);
      logEvent('info', 'probe', { message: 'sent guard-token-3f9a and pass"word\\x', other: 'per-call-77c1' }, ['per-call-77c1']);
      logEvent('debug', 'dropped', { message: 'below the level' });
    } finally {
      closeLogging();
    }
    const text = await readFile(file, 'utf8');
    assert.ok(!text.includes('guard-token-3f9a') && !text.includes('per-call-77c1') && !text.includes('word\\\\x'), text);
    const events = await eventsIn(file);
    assert.deepEqual(events.map((e) => [e['event'], e['message'], e['other']]), [['probe', 'sent [redacted] and [redacted]', '[redacted]']]);
  });
});
