/**
 * Shared setup for the end-to-end tests: the real CLI (`bin/sextant.js`, which runs the built `dist/`), the
 * real MCP server over stdio and Streamable HTTP, and the official MCP SDK client. Every process started
 * here is tracked and killed by `killAll()` (call it in `after`).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { stopChild } from './child.js';
import { TEST_STORE, testStoreLocation } from './store.js';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BIN = join(REPO_ROOT, 'bin', 'sextant.js');
/** The tools every server lists (graphql_mutate only where a source allows mutations). */
export const TOOL_NAMES = ['search', 'find', 'describe', 'neighbors', 'resolve', 'trace', 'impact', 'changes', 'links', 'service_map', 'graphql_query', 'graphql_validate', 'field_values'] as const;

if (!existsSync(join(REPO_ROOT, 'dist', 'surfaces', 'cli', 'main.js'))) {
  throw new Error('dist/ is missing: run `npm run build` before the end-to-end tests.');
}

/**
 * GitHub's public schema from @octokit/graphql-schema. The package's `exports` only maps ".", so
 * `require.resolve('@octokit/graphql-schema/schema.graphql')` throws ERR_PACKAGE_PATH_NOT_EXPORTED; resolve
 * the package entry and take the file next to it.
 */
export function githubSchemaPath(): string {
  const entry = fileURLToPath(import.meta.resolve('@octokit/graphql-schema'));
  const file = join(dirname(entry), 'schema.graphql');
  assert.ok(existsSync(file), `GitHub schema not found at ${file}`);
  return file;
}

// ------------------------------------------------------------------------------------------- processes

const live = new Set<ChildProcess>();
const tempDirs: string[] = [];

function track(child: ChildProcess): ChildProcess {
  live.add(child);
  child.once('exit', () => live.delete(child));
  return child;
}

/** Kill every process this module started that is still running, and remove the temp dirs. */
export async function killAll(): Promise<void> {
  const exits = [...live].map(
    (child) =>
      new Promise<void>((done) => {
        if (child.exitCode !== null || child.signalCode !== null) return done();
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
        }, 3000);
        child.once('exit', () => {
          clearTimeout(timer);
          done();
        });
        child.kill('SIGTERM');
      }),
  );
  await Promise.all(exits);
  for (const dir of tempDirs.splice(0)) await rm(dir, { recursive: true, force: true });
}

export async function tempDir(prefix = 'sextant-e2e-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}

/** The environment for a child: ours without SEXTANT_STORE (so tests never pick up a stray index), plus `extra`. */
export function childEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== 'SEXTANT_STORE') env[k] = v;
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `node bin/sextant.js ...args` to completion. */
export function runCli(args: string[], opts: { cwd?: string; env?: Record<string, string | undefined>; timeoutMs?: number } = {}): Promise<CliResult> {
  return new Promise((done, fail) => {
    const child = track(spawn(process.execPath, [BIN, ...args], { cwd: opts.cwd ?? REPO_ROOT, env: childEnv(opts.env), stdio: ['ignore', 'pipe', 'pipe'] }));
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`sextant ${args.join(' ')} timed out after ${opts.timeoutMs ?? 50000} ms\nstderr: ${stderr}`));
    }, opts.timeoutMs ?? 50000);
    child.once('error', (err) => {
      clearTimeout(timer);
      fail(err);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      done({ code, signal, stdout, stderr });
    });
  });
}

/** Parses a CLI's stdout as JSON, failing with the output when it is not. */
export function jsonOf(result: CliResult): Record<string, any> {
  try {
    return JSON.parse(result.stdout) as Record<string, any>;
  } catch {
    assert.fail(`stdout is not JSON (exit ${result.code}):\n${result.stdout}\nstderr:\n${result.stderr}`);
  }
}

/** `sextant index <schema> --store <dir>`, asserting success. */
export async function indexInto(target: string, storeDir: string, extra: string[] = []): Promise<CliResult> {
  const r = await runCli(['index', target, '--store', storeDir, ...extra]);
  assert.equal(r.code, 0, `sextant index ${target} failed:\n${r.stderr}\n${r.stdout}`);
  return r;
}

/** A new test index's location on the store under test (helpers/store.ts): a temp directory, or a new database. */
export async function tempStore(prefix = 'sextant-e2e-'): Promise<string> {
  return testStoreLocation(await tempDir(prefix));
}

/** A temp store holding GitHub's public schema. */
export async function githubStore(): Promise<string> {
  const store = await tempStore('sextant-github-');
  await indexInto(githubSchemaPath(), store);
  if (TEST_STORE === 'sqlite') assert.ok(existsSync(join(store, 'index.db')), 'index.db was not written');
  return store;
}

export interface HttpServerProcess {
  url: URL;
  port: number;
  child: ChildProcess;
  stderr: () => string;
  stop: () => Promise<void>;
}

/** `sextant serve --http 0 --store DIR`; resolves once the server prints its address. */
export function startHttpServer(storeDir: string, timeoutMs = 30000, opts: { args?: string[]; env?: Record<string, string | undefined> } = {}): Promise<HttpServerProcess> {
  const child = track(spawn(process.execPath, [BIN, 'serve', '--http', '0', '--store', storeDir, ...(opts.args ?? [])], { cwd: REPO_ROOT, env: childEnv(opts.env), stdio: ['ignore', 'pipe', 'pipe'] }));
  let stderr = '';
  child.stdout!.resume();
  const stop = () => stopChild(child, 3000);
  return new Promise((done, fail) => {
    const timer = setTimeout(() => {
      void stop();
      fail(new Error(`sextant serve --http did not print its address within ${timeoutMs} ms; stderr:\n${stderr}`));
    }, timeoutMs);
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      const m = /on (http:\/\/127\.0\.0\.1:(\d+)\/mcp)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        done({ url: new URL(m[1]!), port: Number(m[2]), child, stderr: () => stderr, stop });
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      fail(new Error(`sextant serve --http exited early (${code ?? signal}); stderr:\n${stderr}`));
    });
  });
}

// ------------------------------------------------------------------------------------------- MCP clients

export type Transport = 'stdio' | 'http';

export interface Connection {
  client: Client;
  close: () => Promise<void>;
  /** The server's stderr so far (stdio: the spawned server; http: the server process). */
  stderr: () => string;
}

export async function connectStdio(storeDir: string, opts: { args?: string[]; env?: Record<string, string | undefined> } = {}): Promise<Connection> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'serve', '--store', storeDir, ...(opts.args ?? [])], cwd: REPO_ROOT, env: childEnv(opts.env), stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const client = new Client({ name: 'sextant-e2e', version: '0.0.0' });
  await client.connect(transport);
  const pid = transport.pid;
  return {
    client,
    stderr: () => stderr,
    close: async () => {
      await client.close();
      // The SDK ends stdin and escalates to signals; make sure the server really is gone.
      if (pid !== null && processAlive(pid)) process.kill(pid, 'SIGKILL');
    },
  };
}

export async function connectHttp(url: URL, headers: Record<string, string> = {}): Promise<Connection> {
  const client = new Client({ name: 'sextant-e2e', version: '0.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  return { client, stderr: () => '', close: () => client.close() };
}

/** A connection to a server over either transport; `server` is the HTTP server process, when there is one. */
export interface Session {
  conn: Connection;
  server?: HttpServerProcess;
}

export async function openSession(transport: Transport, storeDir: string): Promise<Session> {
  if (transport === 'stdio') return { conn: await connectStdio(storeDir) };
  const server = await startHttpServer(storeDir);
  return { conn: await connectHttp(server.url), server };
}

export async function closeSession(session: Session | undefined): Promise<void> {
  if (!session) return;
  await session.conn.close().catch(() => undefined);
  await session.server?.stop();
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export interface ToolAnswer {
  isError: boolean;
  /** The structured result: `{ok: true, …}` or `{ok: false, error}`. */
  body: Record<string, any>;
}

/**
 * Calls a tool and checks the envelope every answer must have: structuredContent present, and content[0] a
 * text block whose JSON is the same object; isError exactly when ok is false.
 */
export async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  const result = await client.callTool({ name, arguments: args });
  const structured = result.structuredContent as Record<string, any> | undefined;
  assert.ok(structured && typeof structured === 'object', `${name}: no structuredContent`);
  const content = result.content as { type: string; text?: string }[];
  assert.ok(Array.isArray(content) && content.length >= 1, `${name}: no content`);
  assert.equal(content[0]!.type, 'text');
  assert.deepEqual(JSON.parse(content[0]!.text!), structured, `${name}: content[0].text differs from structuredContent`);
  const isError = result.isError === true;
  assert.equal(isError, structured.ok === false, `${name}: isError=${isError} but ok=${String(structured.ok)}`);
  return { isError, body: structured };
}

// ------------------------------------------------------------------------------------------- hints

export interface HintChecker {
  /** Asserts each hint names a listed tool and its args validate against that tool's input schema; returns the count. */
  check: (from: string, body: Record<string, any>) => number;
}

export function hintChecker(tools: { name: string; inputSchema: unknown }[]): HintChecker {
  const ajv = new Ajv({ allErrors: true, strict: true });
  const validators = new Map<string, ValidateFunction>();
  for (const t of tools) validators.set(t.name, ajv.compile(t.inputSchema as object));
  return {
    check(from, body) {
      const hints = (body.hints ?? body.error?.hints ?? []) as { tool: string; args: unknown; reason: unknown }[];
      assert.ok(Array.isArray(hints), `${from}: hints is not a list`);
      assert.ok(hints.length <= 5, `${from}: more than five hints`);
      for (const h of hints) {
        const validate = validators.get(h.tool);
        assert.ok(validate, `${from}: hint names unknown tool ${JSON.stringify(h.tool)}`);
        assert.equal(typeof h.reason, 'string', `${from}: hint without a reason`);
        const valid = validate(h.args);
        assert.ok(valid, `${from}: hint ${h.tool} ${JSON.stringify(h.args)} does not validate: ${ajv.errorsText(validate.errors)}`);
      }
      return hints.length;
    },
  };
}

// ------------------------------------------------------------------------------------------- three estates

export type EstateName = 'pet' | 'piggy' | 'estate';

/** petclinic and piggymetrics (../shared/corpora, read in place) and our estate fixture, each indexed and served over stdio. */
export interface ThreeEstates {
  stores: Record<EstateName, string>;
  mcp: Record<EstateName, Connection>;
  hints: HintChecker;
  close: () => Promise<void>;
}

export async function openThreeEstates(prefix: string, corpora: string): Promise<ThreeEstates> {
  const paths: Record<EstateName, string> = { pet: join(corpora, 'spring-petclinic-microservices'), piggy: join(corpora, 'piggymetrics'), estate: join(REPO_ROOT, 'test', 'fixtures', 'estate') };
  for (const p of Object.values(paths)) assert.ok(existsSync(p), `${p} is missing: the tests read the workplace's shared corpora in place`);
  const stores = {} as Record<EstateName, string>;
  const mcp = {} as Record<EstateName, Connection>;
  for (const e of ['pet', 'piggy', 'estate'] as const) stores[e] = await testStoreLocation(join(await tempDir(`${prefix}${e}-`), 'index'));
  const built = await Promise.all((['pet', 'piggy', 'estate'] as const).map((e) => indexInto(paths[e], stores[e])));
  for (const b of built) assert.equal(b.code, 0, b.stderr);
  for (const e of ['pet', 'piggy', 'estate'] as const) mcp[e] = await connectStdio(stores[e]);
  const hints = hintChecker((await mcp.pet.client.listTools()).tools);
  return {
    stores,
    mcp,
    hints,
    close: async () => {
      for (const c of Object.values(mcp)) await c.close().catch(() => undefined);
    },
  };
}
