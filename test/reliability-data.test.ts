/**
 * Reliability of the GraphQL side against hostile or careless inputs: credentials in endpoint URLs (6), jq filters
 * that blow up (7), servers that echo credentials back (8), endless schema downloads (10) and schemas nested
 * thousands deep (12). Endpoints are real loopback HTTP servers started here that behave badly on purpose.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { defaultDataConfig } from '../src/config/workspace.js';
import { sextantOntology } from '../src/graph/ontology/index.js';
import { openStore } from '../src/graph/open.js';
import type { Store } from '../src/graph/store.js';
import { buildWorkspace } from '../src/indexer/build.js';
import { indexRoot, resolveTarget, TargetError } from '../src/indexer/target.js';
import type { DataCaller, DataSourceAccess } from '../src/query/data/access.js';
import { JQ_MAX_WORKERS, jqWorkers, localJq } from '../src/query/data/jq.js';
import { runTool } from '../src/query/index.js';
import { buildGraphqlSource, GraphqlSourceError } from '../src/sources/graphql/index.js';
import { loadDataSources } from '../src/surfaces/data.js';
import { indexInto, jsonOf, runCli } from './helpers/e2e.js';

const T = { timeout: 30_000 };
const ontology = sextantOntology();
const PASS = 'pa55-w0rd-XYZZY';
const KEY = 'k3y-in-query-QWERTY';
const TOKEN = 'user-token-ABCDEF-123456';
const CALLER = 'caller-bearer-GHIJKL-7890';
const SECRET_HEADER = 'discovery-secret-MNOPQ';

function tmp(): string {
  return mkdtempSync(join(tmpdir(), 'sextant-rel-data-'));
}

function ctx(dir: string, progress?: string[]) {
  return { ontology, baseDir: dir, env: {}, ...(progress ? { onProgress: (m: string) => progress.push(m) } : {}) };
}

function graphqlCfg(over: Record<string, unknown>) {
  return { kind: 'graphql' as const, name: 'bad', headers: {}, timeout_ms: 10_000, ...over };
}

function noneOf(text: string, secrets: string[], what: string): void {
  for (const s of secrets) assert.ok(!text.includes(s), `${what} leaks ${s}: ${text.slice(0, 2000)}`);
}

/** A loopback server whose every answer echoes what it was sent: the URL, every header and the body. */
async function startServer(handle: (req: IncomingMessage, res: ServerResponse, body: string) => void): Promise<{ server: Server; base: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    server,
    base,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

const echo = (req: IncomingMessage) => `url=${req.url} headers=${JSON.stringify(req.headers)}`;

// ---------------------------------------------------------------------------------------------------------------

describe('6: credentials in an endpoint URL are never stored or shown', () => {
  let srv: Awaited<ReturnType<typeof startServer>>;
  before(async () => {
    srv = await startServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (path === '/fail') {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`boom ${echo(req)}`);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ errors: [{ message: `introspection refused for ${echo(req)}` }] }));
    });
  });
  after(() => srv.close());

  test('the recorded root says what was taken out, and keeps nothing secret', T, () => {
    const root = indexRoot(`http://admin:${PASS}@example.com:8080/graphql?api_key=${KEY}`);
    assert.equal(root, 'http://<redacted>@example.com:8080/graphql?<redacted>');
    assert.equal(indexRoot('https://example.com/graphql'), 'https://example.com/graphql');
  });

  test('errors and origins of an endpoint with user info and a key carry neither', T, async () => {
    const secrets = [PASS, KEY, Buffer.from(`admin:${PASS}`).toString('base64')];
    for (const path of ['/fail', '/closed']) {
      const url = `${srv.base.replace('http://', `http://admin:${PASS}@`)}${path}?api_key=${KEY}`;
      const progress: string[] = [];
      const err = await buildGraphqlSource(graphqlCfg({ endpoint: url }), ctx(tmp(), progress)).then(
        () => assert.fail('expected a failure'),
        (e: Error) => e,
      );
      assert.ok(err instanceof GraphqlSourceError, String(err));
      assert.match(err.message, new RegExp(`${srv.base}${path}`));
      noneOf(err.message + progress.join('\n'), secrets, `error of ${path}`);
    }
  });

  test('an invalid endpoint URL is refused without echoing it', T, async () => {
    await assert.rejects(resolveTarget(`http://admin:${PASS}@[::1/graphql?api_key=${KEY}`), (e: Error) => {
      assert.ok(e instanceof TargetError, String(e));
      noneOf(e.message, [PASS, KEY], 'target error');
      return true;
    });
  });

  test('data tools read from a redacted root say what to pass instead of querying the wrong URL', T, async () => {
    const store = { meta: async () => ({ root: indexRoot(`http://admin:${PASS}@example.com/graphql?api_key=${KEY}`) }) } as unknown as Store;
    const { sources, warning } = await loadDataSources(store, undefined, {});
    assert.equal(sources.size, 0);
    assert.match(warning ?? '', /<redacted>.*--config/);
  });

  test(
    'the CLI: `status --json` shows no credential of the URL the index was built from',
    T,
    async () => {
      const ok = await startServer((_req, res, body) => {
        const query = (JSON.parse(body || '{}') as { query?: string }).query ?? '';
        res.writeHead(200, { 'content-type': 'application/json' });
        if (!query.includes('__schema')) return res.end(JSON.stringify({ errors: [{ message: 'no' }] }));
        res.end(JSON.stringify({ data: { __schema: { queryType: { name: 'Query' }, mutationType: null, subscriptionType: null, directives: [], types: [{ kind: 'OBJECT', name: 'Query', fields: [{ name: 'a', args: [], type: { kind: 'SCALAR', name: 'String', ofType: null }, isDeprecated: false, deprecationReason: null }], interfaces: [] }, { kind: 'SCALAR', name: 'String' }] } } }));
      });
      try {
        const dir = tmp();
        const store = join(dir, '.sextant');
        const url = `${ok.base.replace('http://', `http://admin:${PASS}@`)}/graphql?api_key=${KEY}`;
        const r = await indexInto(url, store);
        assert.equal(r.code, 0, r.stderr);
        noneOf(r.stdout + r.stderr, [PASS, KEY], 'index output');
        const status = await runCli(['status', '--json', '--store', store]);
        noneOf(status.stdout + status.stderr, [PASS, KEY], 'status --json');
        assert.match(String(jsonOf(status)['root']), /\?<redacted>$/);
      } finally {
        await ok.close();
      }
    },
  );
});

// ---------------------------------------------------------------------------------------------------------------

describe('7: jq runs with an output cap, a bounded number of workers, and gives its memory back', () => {
  test('a tiny filter with a huge output is stopped with a clear error', T, async () => {
    await assert.rejects(localJq('"x" * 100000000', {}), /output passed 16 MB and was stopped/);
    // Many outputs, each 100 bytes: the cap, not the 5 s limit, stops it (about 1 s here).
    await assert.rejects(localJq(`range(1000000000) | "${'x'.repeat(100)}"`, {}), /output passed 16 MB/);
  });

  test('a filter that never ends is stopped after its time, counted from when it begins', T, async () => {
    await assert.rejects(localJq('0 | until(false; . + 1)', {}), /ran longer than 5 s and was stopped/);
    assert.deepEqual(await localJq('.a', { a: 2 }), 2);
  });

  test('a filter that needs more memory than jq may use fails cleanly', T, async () => {
    await assert.rejects(localJq('"x" * 1000000000', {}), /more memory than jq may use/);
  });

  test('concurrent huge filters: at most JQ_MAX_WORKERS run, grown workers are ended, ordinary filters still work', T, async () => {
    const calls = Array.from({ length: 4 }, () => localJq('"x" * 100000000', { a: 1 }));
    assert.ok(jqWorkers().running <= JQ_MAX_WORKERS);
    const settled = await Promise.allSettled(calls);
    assert.deepEqual(settled.map((s) => s.status), ['rejected', 'rejected', 'rejected', 'rejected']);
    const after = jqWorkers();
    assert.equal(after.running, 0);
    assert.ok(after.idle <= 1, `idle workers kept: ${after.idle}`);
    assert.deepEqual(await localJq('[.a, .b] | add', { a: 1, b: 2 }), 3);
    assert.deepEqual(await localJq('.[]', [1, 2]), [1, 2]);
    await assert.rejects(localJq('.a[', {}), /syntax error|compile error/);
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe('8 and 10: what an endpoint sends back', () => {
  let dir: string;
  let store: Store;
  let srv: Awaited<ReturnType<typeof startServer>>;

  before(async () => {
    srv = await startServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const json = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      switch (path) {
        case '/401':
          res.writeHead(401, { 'content-type': 'text/plain' });
          // The token straddles the 300 characters a message keeps: a cut must not leave half of it behind.
          res.end(`${'.'.repeat(280)}${String(req.headers['authorization'])} unauthorized: ${echo(req)}`);
          return;
        case '/500':
          res.writeHead(500, { 'content-type': 'text/plain' });
          res.end(`internal error: ${echo(req)}`);
          return;
        case '/errors':
          json(200, { errors: [{ message: `denied for ${echo(req)}`, extensions: { [String(req.headers['authorization'])]: req.headers } }], data: null });
          return;
        case '/data':
          json(200, { data: { echo: `${'y'.repeat(50_000)} ${echo(req)}` } });
          return;
        case '/endless': {
          // A schema download that never ends.
          res.writeHead(200, { 'content-type': 'application/json' });
          const chunk = Buffer.alloc(64 * 1024, 'x');
          res.write('{"data": {"__schema": {"description": "');
          const pump = (): void => {
            while (!res.destroyed && res.write(chunk));
            if (!res.destroyed) res.once('drain', pump);
          };
          res.on('close', () => res.removeAllListeners('drain'));
          pump();
          return;
        }
        default:
          json(404, { errors: [{ message: 'not found' }] });
      }
    });
    dir = tmp();
    writeFileSync(join(dir, 'echo.graphql'), 'type Query { echo: String }\n');
    store = await openStore(ontology, join(dir, '.sextant'), 'write');
    await buildWorkspace(store, ontology, { dir, sources: [{ kind: 'graphql', name: 'echo', schema: [join(dir, 'echo.graphql')], headers: {}, timeout_ms: 5000 }] });
  });
  after(async () => {
    await store.close();
    await srv.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const access = (path: string): DataSourceAccess => ({
    source: 'echo',
    endpoint: `${srv.base}${path}?api_key=${KEY}`,
    flavor: 'generic',
    config: { ...defaultDataConfig(), token: TOKEN, max_bytes: 2000 },
    secrets: [SECRET_HEADER],
  });
  const call = (path: string, caller: DataCaller, args: Record<string, unknown> = {}) =>
    runTool({ store, ontology, data: { sources: new Map([['echo', access(path)]]), caller, jq: localJq } }, 'graphql_query', { query: '{ echo }', ...args });
  const local: DataCaller = { transport: 'local' };
  const http: DataCaller = { transport: 'http', authorization: `Bearer ${CALLER}`, headers: { authorization: `Bearer ${CALLER}` } };

  test('8: upstream errors that echo the request never carry the token, the key or the forwarded bearer', T, async () => {
    for (const path of ['/401', '/500', '/errors']) {
      for (const caller of [local, http]) {
        const r = await call(path, caller);
        const text = JSON.stringify(r);
        assert.ok(text.includes('[redacted]'), `${path}: the echo is there, redacted: ${text.slice(0, 500)}`);
        noneOf(text, [TOKEN, CALLER, KEY, TOKEN.slice(0, 12), CALLER.slice(0, 12)], `${path} as ${caller.transport}`);
      }
    }
  });

  test('8: data, truncated answers and jq results are redacted too', T, async () => {
    for (const args of [{}, { max_bytes: 60_000 }, { jq: '.data.echo' }]) {
      const r = (await call('/data', local, args)) as Record<string, unknown>;
      assert.equal(r['ok'], true, JSON.stringify(r).slice(0, 500));
      noneOf(JSON.stringify(r), [TOKEN, KEY], `data ${JSON.stringify(args)}`);
    }
  });

  test('10: an endless schema download stops at the cap with a message naming the endpoint (redacted) and the cap', T, async () => {
    const url = `${srv.base.replace('http://', `http://admin:${PASS}@`)}/endless?api_key=${KEY}`;
    await assert.rejects(buildGraphqlSource(graphqlCfg({ endpoint: url, headers: { 'x-secret': SECRET_HEADER } }), ctx(dir)), (e: Error) => {
      assert.ok(e instanceof GraphqlSourceError, String(e));
      assert.equal(e.code, 'ANSWER_TOO_LARGE');
      assert.match(e.message, new RegExp(`${srv.base}/endless.*32 MB`));
      noneOf(e.message, [PASS, KEY, SECRET_HEADER], 'too large');
      return true;
    });
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe('12: schemas nested thousands deep fail clearly, naming the file', () => {
  const dir = tmp();
  const build = (file: string) => buildGraphqlSource(graphqlCfg({ schema: [file] }), ctx(dir));
  const sdl = (name: string, depth: number) => {
    writeFileSync(join(dir, name), `type Query {\n  ok: String\n  deep: ${'['.repeat(depth)}String${']'.repeat(depth)}\n}\n`);
    return name;
  };
  const introspection = (name: string, depth: number) => {
    const ref = '{"kind":"LIST","name":null,"ofType":'.repeat(depth) + '{"kind":"SCALAR","name":"String","ofType":null}' + '}'.repeat(depth);
    const field = (n: string, type: string) => `{"name":"${n}","description":null,"args":[],"type":${type},"isDeprecated":false,"deprecationReason":null}`;
    writeFileSync(
      join(dir, name),
      `{"__schema":{"queryType":{"name":"Query"},"mutationType":null,"subscriptionType":null,"directives":[],"types":[` +
        `{"kind":"OBJECT","name":"Query","description":null,"fields":[${field('ok', '{"kind":"SCALAR","name":"String","ofType":null}')},${field('deep', ref)}],"interfaces":[]},` +
        `{"kind":"SCALAR","name":"String","description":null}]}}`,
    );
    return name;
  };
  after(() => rmSync(dir, { recursive: true, force: true }));

  const refused = (file: string, ...patterns: RegExp[]) => (e: Error) => {
    assert.ok(e instanceof GraphqlSourceError, `${e.name}: ${e.message}`);
    assert.equal(e.code, 'TOO_DEEP');
    assert.ok(e.message.includes(file), e.message);
    for (const p of patterns) assert.match(e.message, p);
    return true;
  };

  test('a 20,000-deep list type in SDL', T, async () => {
    await assert.rejects(build(sdl('deep20k.graphql', 20_000)), refused('deep20k.graphql', /nests too deeply/));
  });

  test('a 40-deep list type in SDL names the type, the field and the line', T, async () => {
    await assert.rejects(build(sdl('deep40.graphql', 40)), refused('deep40.graphql:3', /Query\.deep/, /at most 32/));
  });

  test('a 5,000-deep ofType chain in introspection JSON', T, async () => {
    await assert.rejects(build(introspection('deep5k.json', 5_000)), refused('deep5k.json', /Query\.deep/));
  });

  test('ordinary nesting still builds', T, async () => {
    const a = await build(sdl('ok.graphql', 3));
    assert.ok(a.nodes.some((n) => n.kind === 'field' && n.name === 'deep'));
    const b = await build(introspection('ok.json', 3));
    assert.ok(b.nodes.some((n) => n.kind === 'field' && n.name === 'deep'));
  });
});
