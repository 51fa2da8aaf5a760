/**
 * The fuzz harness: generated malformed and hostile arguments for every tool the server lists, sent by the
 * official MCP SDK client to the real `sextant serve` over stdio and over Streamable HTTP, against one index
 * holding a code estate (test/fixtures/links) and a Hugr platform (the test server, with a data block, so data
 * tools really run). The seed is fixed, so a failure reproduces; the count and every call are bounded.
 *
 * Asserts, for every call: an answer comes back (the server neither crashes nor drops the session), it is the
 * structured envelope, it is not an `internal` error, it stays under the reply budget and the time budget; and at
 * the end the server still answers a plain call. The time budget is the one timed check in the suite, and it is
 * deliberately loose (20x what any call takes): it catches a hang or a backtracking pattern, not slowness.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { connectHttp, connectStdio, indexInto, killAll, startHttpServer, tempDir, type Connection, type HttpServerProcess } from './helpers/e2e.js';
import { ANALYST_TOKEN, SECRET, startHarnessServer } from './hugr-server/fixture.js';
import type { HugrTestServer } from './hugr-server/server.js';

const SEED = 0x5e47a17;
/** Calls per transport. */
const CALLS = 600;
/** No reply (the JSON text the client receives) may be larger than this. */
const REPLY_BUDGET_BYTES = 1024 * 1024;
/**
 * A hang guard, not a speed check (speed is `npm run bench`'s, which states budgets): a call that does not answer in
 * this time is stuck (a pathological input running for minutes), whatever the machine's load.
 */
const HANG_GUARD_MS = 60_000;
const LINKS = fileURLToPath(new URL('./fixtures/links', import.meta.url));

/** mulberry32: a small seeded generator, so every run sends the same calls. */
function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
interface Schema {
  type?: string;
  enum?: Json[];
  anyOf?: Schema[];
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  minimum?: number;
  maximum?: number;
}

/** Strings that have broken parsers, SQL, full-text syntax, regular expressions and terminals before. */
const HOSTILE_STRINGS = [
  '',
  ' ',
  '\u0000',
  '\ud800',
  '\u202e\u0644\u0627',
  '(a+)+$',
  '^/x/([^/]+)+$',
  `/x/${'{a}'.repeat(12)}`,
  `/x/${'a'.repeat(40)}!`,
  "'; DROP TABLE nodes; --",
  '%_%\\',
  '"unterminated',
  'NEAR(a b, 2) OR * AND ^',
  'a*b?',
  '${HOME}',
  '../../../../etc/passwd',
  'GET /owners/{ownerId}',
  'POST',
  'kafka orders.events',
  'com.acme.orders.OrderService#place(Order)',
  'com.acme.orders.OrderService.place',
  'OrderService::place',
  'sales.orders',
  '__proto__',
  'constructor',
  '{"kind":"symbol"}',
  '["a", "b"]',
  "['a', 'b']",
  '[[[[[[[[[[',
  'query { ' + 'a { '.repeat(300) + '}'.repeat(300) + ' }',
  'mutation { insert_orders(data: {id: 1}) { id } }',
  '{ __schema { types { name fields { name } } } }',
  '"x" * 100000000',
  '[range(0; 100000000)]',
  'def f: f; f',
  '.[] | .. | .',
  'x'.repeat(100_000),
  'y'.repeat(2_000_000),
  'é'.repeat(50_000),
];

/** Real names from the index, so some calls get past validation and reach the deeper code. */
const REAL_STRINGS = [
  'com.acme.orders.OrderService',
  'OrderService',
  'order-service',
  'billing-service',
  'symbol',
  'route',
  'data_object',
  'CALLS',
  'HTTP_CALLS',
  'out',
  'in',
  'both',
  'orders',
  '{ orders { id amount } }',
  '.data',
  'amount',
  'customer_id',
];

/** Well-formed values for the data tools' arguments, so their calls reach the endpoint and jq (bombs included). */
const PROPERTY_POOLS: Record<string, Json[]> = {
  query: ['{ sales { orders { id amount customer_id } } }', '{ sales { customers { id name } } }', 'order service', 'mutation { sales { delete_orders(filter: {id: {eq: 10}}) { success } } }'],
  jq: ['.data.sales.orders | map(.amount) | add', '.data', '"x" * 100000000', '[range(0; 100000000)]', 'def f: f; f', '.[] | .. | .', '.data['],
  data_object: ['sales.orders', 'orders', 'sales.customers'],
  field: ['customer_id', 'amount', 'id', 'name'],
  source: ['hugr', 'links'],
  variables: [{}, { id: 1 }],
};

class Fuzzer {
  private readonly next: () => number;
  constructor(seed: number) {
    this.next = generator(seed);
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** Inside a long array every string is short, so one request stays a few megabytes however the dice fall. */
  private short = false;

  string(): string {
    if (this.short) return this.pick(REAL_STRINGS);
    return this.chance(0.5) ? this.pick(REAL_STRINGS) : this.pick(HOSTILE_STRINGS);
  }

  /** Many items with short strings: a long list, not a huge one. */
  longList(item: () => Json): Json[] {
    const was = this.short;
    this.short = true;
    try {
      return Array.from({ length: 5000 }, item);
    } finally {
      this.short = was;
    }
  }

  /** Any JSON value, nested up to `depth`. */
  anyValue(depth = 2): Json {
    switch (this.int(depth > 0 ? 9 : 6)) {
      case 0: return null;
      case 1: return this.chance(0.5);
      case 2: return this.pick([0, -1, 1.5, 2 ** 53 + 2, -(2 ** 31), 1e308, 100001, 501]);
      case 3:
      case 4:
      case 5: return this.string();
      case 6: return Array.from({ length: this.int(4) }, () => this.anyValue(depth - 1));
      case 7: return Object.fromEntries(Array.from({ length: this.int(4) }, () => [this.string().slice(0, 40), this.anyValue(depth - 1)]));
      default: return this.short ? 'deep' : this.deep(this.pick([50, 500, 3000]));
    }
  }

  deep(levels: number): Json {
    let v: Json = 'bottom';
    for (let i = 0; i < levels; i++) v = this.chance(0.5) ? [v] : { a: v };
    return v;
  }

  /** A plausible value for a schema: right-typed most of the time, so validation is passed often enough. */
  valueFor(schema: Schema): Json {
    if (schema.enum?.length && this.chance(0.7)) return this.pick(schema.enum);
    if (schema.anyOf?.length) return this.valueFor(this.pick(schema.anyOf));
    switch (schema.type) {
      case 'string': return this.string();
      case 'integer': return this.chance(0.7) ? Math.max(schema.minimum ?? 0, Math.min(schema.maximum ?? 100, this.int(30))) : this.pick([-5, 0, 1e9, 2 ** 53 + 2, 3.5]);
      case 'number': return this.chance(0.5) ? 0.5 : this.pick([-1, 2, 1e308]);
      case 'boolean': return this.chance(0.5);
      case 'array': {
        const item = (): Json => (schema.items ? this.valueFor(schema.items) : this.anyValue(1));
        return this.chance(0.9) ? Array.from({ length: 1 + this.int(3) }, item) : this.longList(item);
      }
      case 'object': {
        const props = Object.entries(schema.properties ?? {});
        const out: Record<string, Json> = {};
        for (const [k, s] of props) if (this.chance(0.2)) out[k] = this.valueFor(s);
        return out;
      }
      default: return this.anyValue();
    }
  }

  /** Arguments for a tool: mostly well-shaped with one or more faults, sometimes not an object at all. */
  argumentsFor(schema: Schema): unknown {
    // A third of the calls are well-formed (real names, no faults), so the deeper code is reached too.
    if (this.chance(1 / 3)) return this.wellFormed(schema);
    const roll = this.int(20);
    if (roll === 0) return this.pick<unknown>([null, 'not an object', 42, ['a'], true]);
    if (roll === 1) return JSON.stringify(this.argumentsFor(schema));
    const args: Record<string, unknown> = {};
    const props = Object.entries(schema.properties ?? {});
    for (const [k, s] of props) {
      const required = schema.required?.includes(k);
      if (required ? this.chance(0.9) : this.chance(0.4)) args[k] = this.valueFor(s);
    }
    const faults = this.int(3);
    for (let i = 0; i < faults && props.length; i++) {
      const [k] = this.pick(props);
      switch (this.int(6)) {
        case 0: args[k] = this.anyValue(); break;
        case 1: args[k] = this.pick(HOSTILE_STRINGS); break;
        case 2: delete args[k]; break;
        case 3: args[this.pick(['lmit', 'kinds ', 'id\u0000', 'x'.repeat(5000), 'constructor'])] = this.anyValue(1); break;
        case 4: Object.defineProperty(args, '__proto__', { value: { polluted: true }, enumerable: true, configurable: true, writable: true }); break;
        default: args[k] = JSON.stringify(this.valueFor(props.find(([n]) => n === k)![1]));
      }
    }
    return args;
  }

  wellFormed(schema: Schema): Record<string, unknown> {
    const was = this.short;
    this.short = true;
    try {
      const args: Record<string, unknown> = {};
      for (const [k, s] of Object.entries(schema.properties ?? {})) {
        const pool = PROPERTY_POOLS[k];
        if (!schema.required?.includes(k) && !this.chance(pool ? 0.3 : 0.15)) continue;
        args[k] = pool && this.chance(0.8) ? this.pick(pool) : this.valueFor(s);
      }
      return args;
    } finally {
      this.short = was;
    }
  }
}

/** Requests stay under this size, so they pass the transports and reach the tools' own validation. */
const REQUEST_BUDGET_BYTES = 3 * 1024 * 1024;

function boundedArguments(fuzzer: Fuzzer, schema: Schema): unknown {
  for (let attempt = 0; attempt < 8; attempt++) {
    const args = fuzzer.argumentsFor(schema);
    if (Buffer.byteLength(JSON.stringify(args) ?? '') <= REQUEST_BUDGET_BYTES) return args;
  }
  return {};
}

const VALID_QUERY = '{ sales { orders { id amount customer_id } } }';
/**
 * Calls that found defects before, sent first on every transport so they are never left to chance: jq filters that
 * explode or never end, and inputs of megabytes where a name is expected.
 */
const SEEDED_CALLS: [string, Record<string, unknown>][] = [
  ['graphql_query', { query: VALID_QUERY, jq: '"x" * 100000000' }],
  ['graphql_query', { query: VALID_QUERY, jq: '[range(0; 100000000)]' }],
  ['graphql_query', { query: VALID_QUERY, jq: 'def f: f; f' }],
  ['graphql_query', { query: VALID_QUERY, jq: '.data.sales.orders | map(.amount) | add' }],
  ['find', { kind: 'k'.repeat(3_900_000) }],
  ['describe', { id: 'x'.repeat(80_000) }],
  ['resolve', { identifier: 'com.acme.'.repeat(9_000) }],
  ['search', { query: 'y'.repeat(2_000_000) }],
  ['field_values', { data_object: 'sales.orders', field: 'customer_id', filter: JSON.stringify({ amount: { gt: 'x'.repeat(100_000) } }) }],
];

interface Outcome {
  tool: string;
  ms: number;
  bytes: number;
  code: string;
}

/** Sends the call as raw JSON-RPC params (the SDK client would refuse a non-object `arguments` before sending). */
async function fuzzCall(conn: Connection, tool: string, args: unknown): Promise<Outcome> {
  const started = performance.now();
  const result = await conn.client.request({ method: 'tools/call', params: { name: tool, arguments: args as Record<string, unknown> } }, CallToolResultSchema, { timeout: HANG_GUARD_MS });
  const ms = performance.now() - started;
  const text = (result.content as { type: string; text?: string }[])[0]?.text ?? '';
  const structured = result.structuredContent as { ok?: boolean; error?: { code?: string; message?: string } } | undefined;
  assert.ok(structured && typeof structured.ok === 'boolean', `${tool}: no structured envelope for ${excerpt(args)}`);
  assert.equal(result.isError === true, structured.ok === false, `${tool}: isError disagrees with ok`);
  const code = structured.ok ? 'ok' : String(structured.error?.code);
  assert.notEqual(code, 'internal', `${tool}: internal error for ${excerpt(args)}: ${structured.error?.message?.slice(0, 400)}`);
  return { tool, ms, bytes: Buffer.byteLength(text), code };
}

function excerpt(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 300 ? `${text.slice(0, 300)}… (${text.length} chars)` : text;
}

/** One call, held to the reply budget (and answered before the hang guard). */
async function checkedCall(conn: Connection, name: string, args: unknown): Promise<Outcome> {
  const outcome = await fuzzCall(conn, name, args).catch((err: Error) => assert.fail(`${name} ${excerpt(args)}: ${err.message}`));
  assert.ok(outcome.bytes <= REPLY_BUDGET_BYTES, `${name}: reply of ${outcome.bytes} bytes over the budget for ${excerpt(args)}`);
  return outcome;
}

async function fuzz(conn: Connection, seed: number): Promise<Outcome[]> {
  const { tools } = await conn.client.listTools();
  assert.ok(tools.length >= 10, 'the server lists its tools');
  const fuzzer = new Fuzzer(seed);
  const outcomes: Outcome[] = [];
  for (const [name, args] of SEEDED_CALLS) outcomes.push(await checkedCall(conn, name, args));
  for (let i = 0; i < CALLS; i++) {
    // One call in thirty names a tool that does not exist, or misspells one.
    const tool = i % 30 === 29 ? fuzzer.pick(['serch', 'nope', 'x'.repeat(10_000), '']) : tools[i % tools.length]!;
    const name = typeof tool === 'string' ? tool : tool.name;
    const args = typeof tool === 'string' ? {} : boundedArguments(fuzzer, tool.inputSchema as Schema);
    outcomes.push(await checkedCall(conn, name, args));
  }
  // Still alive and answering.
  const after = await fuzzCall(conn, 'search', { query: 'order service' });
  assert.equal(after.code, 'ok');
  return outcomes;
}

/** Every tool was reached, and a fair share of calls got past validation, so the fuzzing is not only argument errors. */
function assertCoverage(outcomes: Outcome[], toolNames: string[]): void {
  for (const name of toolNames) assert.ok(outcomes.some((o) => o.tool === name), `${name} was never called`);
  const answered = outcomes.filter((o) => o.code === "ok").length;
  assert.ok(answered >= outcomes.length / 10, `only ${answered} of ${outcomes.length} calls got past validation`);
}

describe('fuzzed tool calls over MCP', () => {
  let hugr: HugrTestServer;
  let store: string;

  before(async () => {
    hugr = await startHarnessServer();
    const dir = await tempDir('sextant-fuzz-');
    await writeFile(
      join(dir, 'sextant.yaml'),
      [
        'sources:',
        '  - name: links',
        '    kind: code',
        `    path: ${JSON.stringify(LINKS)}`,
        '  - name: hugr',
        '    kind: graphql',
        `    endpoint: ${hugr.url}/query`,
        `    headers: {x-hugr-secret-key: "${SECRET}"}`,
        '    data:',
        `      token: "${ANALYST_TOKEN}"`,
        '',
      ].join('\n'),
    );
    store = join(dir, '.sextant');
    await indexInto(dir, store);
  }, { timeout: 120_000 });

  after(async () => {
    await hugr?.close();
    await killAll();
  });

  test('stdio: no crash, no internal error, replies and calls within budget', { timeout: 240_000 }, async () => {
    const conn = await connectStdio(store);
    try {
      const { tools } = await conn.client.listTools();
      const outcomes = await fuzz(conn, SEED);
      assertCoverage(outcomes, tools.map((t) => t.name));
    } finally {
      await conn.close();
    }
  });

  test('Streamable HTTP: the same calls, the same guarantees', { timeout: 240_000 }, async () => {
    let server: HttpServerProcess | undefined;
    let conn: Connection | undefined;
    try {
      server = await startHttpServer(store);
      conn = await connectHttp(server.url, { authorization: `Bearer ${ANALYST_TOKEN}` });
      const { tools } = await conn.client.listTools();
      const outcomes = await fuzz(conn, SEED);
      assertCoverage(outcomes, tools.map((t) => t.name));
      assert.doesNotMatch(server.stderr(), /Maximum call stack|FATAL|heap out of memory/);
    } finally {
      await conn?.close().catch(() => undefined);
      await server?.stop();
    }
  });
});
