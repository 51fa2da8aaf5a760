import { existsSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolRequestSchema, JSONRPCMessageSchema, ListToolsRequestSchema, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { Ontology } from '../../graph/ontology/index.js';
import { openStore } from '../../graph/open.js';
import { isPostgresLocation } from '../../graph/postgres/location.js';
import { DB_FILE } from '../../graph/sqlite/store.js';
import { StoreError, type Store } from '../../graph/store.js';
import { DATA_TOOLS, listTools, runTool, WRITE_TOOLS, type ToolResult } from '../../query/index.js';
import { runToolIn } from '../../query/run.js';
import { inputSchema, type ToolDef } from '../../query/tool.js';
import type { DataCaller, DataContext, DataSourceAccess } from '../../query/data/access.js';
import { VERSION } from '../../version.js';
import { HUGR_GUIDE_URI, registerGuides } from './guide.js';
import { logToolCall, type ToolCallRecord } from '../tool-log.js';
import { handlePage, isPagePath } from '../web/server.js';

export const SERVER_INSTRUCTIONS = `Sextant is a typed map of a software estate: Java/Kotlin services (services, types, members, injection, calls, HTTP routes and message listeners, the Feign clients and message producers that reach them, and the service topology) and GraphQL APIs.
Work in a loop: locate → inspect → walk.
1. Locate: \`search\` (ranked words) when you know what it does; \`resolve\` when you know its name, as you would write it: com.acme.OrderService#place(Order), OrderService.place, OrderService::place, a file path or path:line, a service directory or module (it answers one / many / none and never guesses); every tool taking \`id\`/\`ids\` (or trace's from/to) also takes an exact qualified name; \`find\` to list every node of a kind matching exact filters (e.g. symbols with role SERVICE in one service, or the routes of a service: kind route, filter by http_method or path_prefix; what services are built on: kind dependency with artifact_contains "redis" or group "org.springframework.kafka", kind config_key with key or key_prefix "spring.data.redis" for where a key is set).
2. Inspect: \`describe\` an id: all properties, its location, edge counts per type and direction, and for a symbol its \`code\` (the declaration's lines from the indexed file, so no file read is needed; \`source: "signature"\` for the header alone, \`max_lines\` to see more; \`stale\` says the file changed since indexing).
3. Walk: \`neighbors\` with the edge types describe showed (code: CALLS in = callers, IMPLEMENTS in = implementations, INJECTS, OVERRIDES, EXPOSES in = a route's handler, HTTP_CALLS / ASYNC_CALLS in = clients and producers in other services reaching a route, SERVICE_CALLS = the topology, DEPENDS_ON out = a service's build dependencies, READS_CONFIG out = the configuration keys it reads; GraphQL: HAS_FIELD, FIELD_TYPE). For "what breaks if this changes", \`impact\` walks every dependent in one call, grouped by service and depth. For "what happens when this request arrives", \`trace\` from a route, handler or service follows it across services in one call (\`to\` for the shortest path between two nodes). For the whole topology (services, calls per protocol, gateways, external hosts, calls that reach nothing), \`service_map\` in one call.
GraphQL and Hugr data platforms: data_source, module (a.b.c), data_object (table or view) and function nodes; \`describe\` a data object for its GraphQL path, generated queries, filter type and a skeleton query; \`neighbors\` CONTAINS out of a module, REFERENCES between data objects. To read data: \`graphql_validate\`, then \`graphql_query\` (read-only, runs as you: your bearer token over HTTP), \`field_values\` for the values to filter on; \`jq\` and \`max_bytes\` keep answers small.
Hugr: before writing a query, read the resource ${HUGR_GUIDE_URI} (resources/read): paths, filters, order_by, nested arguments, bucket aggregations, functions and identity, with examples. In short: a module a.b is nested fields (\`a { b { orders(…) { … } } }\`); functions sit under \`function { a { fn(…) } }\` (mutation functions under \`mutation { function { … } }\`); a select takes \`filter\` (\`{col: {eq: …}}\`, \`_and\`/\`_or\`/\`_not\`, list relations \`{any_of: …}\`), \`order_by: [{field: "customer.name", direction: DESC}]\` (the field must be selected), \`limit\` (default 2000) and \`offset\`; on a list relation \`limit\`/\`order_by\` act before the join and \`nested_limit\`/\`nested_order_by\` per parent; \`X_bucket_aggregation { key { … } aggregations { _rows_count amount { sum } } }\` groups. The index was read with the service credential and data tools run as you, so an error on a field the index shows can mean your role may not read it.
Inferred edges carry confidence and strategy; a call whose receiver cannot be typed is an unresolved_call node, a library method an external symbol (resolved: false). Every answer says how fresh the index is (index.updated_at), may carry \`hints\` (next calls whose args you can send as they are), and an empty answer carries \`absence\` explaining why. Filters are strict: an error tells you the fields that apply.`;

/**
 * Opens the index lazily and reopens it when the file is replaced by a rebuild, so a server started before
 * the first `sextant index` (or kept running across rebuilds) answers from the current index.
 */
export class StoreHandle {
  private store: Store | undefined;
  private inode: number | undefined;

  constructor(
    readonly ontology: Ontology,
    readonly location: string,
  ) {}

  async current(): Promise<Store> {
    // A database is one server-side index for good; a directory's file may be replaced (by a rebuild) under it.
    const inode = isPostgresLocation(this.location) ? 0 : this.fileInode();
    if (this.store && inode === this.inode) return this.store;
    // Concurrent calls share one opening (a database's connection pool is opened once).
    if (this.opening && inode === this.openingInode) return this.opening;
    void this.store?.close();
    this.store = undefined;
    this.openingInode = inode;
    this.opening = openStore(this.ontology, this.location, 'read');
    try {
      this.store = await this.opening;
      this.inode = inode;
      return this.store;
    } finally {
      this.opening = undefined;
    }
  }

  private opening: Promise<Store> | undefined;
  private openingInode: number | undefined;

  private fileInode(): number | undefined {
    const file = join(this.location, DB_FILE);
    return existsSync(file) ? statSync(file).ino : undefined;
  }

  /** Runs a tool of the registry, or of `tools` when given (a tool bound to this server, such as `refresh`). */
  async run(name: string, args: unknown, data?: DataContext, tools?: readonly ToolDef[]): Promise<ToolResult> {
    let store: Store;
    try {
      store = await this.current();
    } catch (err) {
      const message = err instanceof StoreError ? err.message : `Cannot open the index at ${this.location}: ${(err as Error).message}`;
      return { ok: false, error: { code: 'index_unavailable', message } };
    }
    const ctx = { store, ontology: this.ontology, ...(data ? { data } : {}) };
    return tools ? runToolIn(tools, ctx, name, args) : runTool(ctx, name, args);
  }

  async close(): Promise<void> {
    await this.store?.close();
    this.store = undefined;
  }
}

/** What data tools may reach from this server: the GraphQL sources with endpoints, and a local jq. */
export interface DataAccessOptions {
  sources: ReadonlyMap<string, DataSourceAccess>;
  jq?: DataContext['jq'];
  /** Offered by a server started with `--allow-refresh`: the `refresh` tool, bound to this index (surfaces/refresh.ts). */
  refresh?: ToolDef;
}

/** The largest request (one JSON-RPC message) either transport reads; tool arguments have smaller limits of their own. */
const MAX_REQUEST_BYTES = 8 * 1024 * 1024;
/**
 * The largest reply a tool call may send, as the client receives it (structuredContent plus its JSON text in
 * `content`). The SDK client drops the whole session past 10 MiB, so stay well under.
 */
const MAX_REPLY_BYTES = 6 * 1024 * 1024;
/** Past this, an HTTP body is not even read to the end for its request id. */
const HTTP_DISCARD_LIMIT = 64 * 1024 * 1024;

/** JSON-RPC error codes this module answers with itself. */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

function mib(bytes: number): string {
  return `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`;
}

/** The JSON-RPC error for a request over MAX_REQUEST_BYTES: the same on stdio and HTTP. */
function tooLargeError(id: RequestId | null, size: number, limit: number): JSONRPCMessage {
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: INVALID_REQUEST,
      message: `Request too large: ${size} bytes (${mib(size)}), over this server's limit of ${limit} bytes (${mib(limit)}). Send smaller arguments: every tool argument has its own, much smaller limit (maxLength / maxItems in the tool's input schema).`,
      data: { size, limit },
    },
  } as unknown as JSONRPCMessage;
}

/**
 * The id of a JSON-RPC request too large to parse, read from its first and last bytes: `{"jsonrpc":"2.0","id":…`
 * at the start or `"id":…}` at the very end (where the SDK client puts it). Null when neither says.
 */
export function peekRequestId(head: string, tail: string): RequestId | null {
  const value = '(-?\\d{1,15}|"(?:[^"\\\\]|\\\\.){0,200}")';
  const atEnd = new RegExp(`"id"\\s*:\\s*${value}\\s*\\}\\s*$`).exec(tail);
  const atStart = new RegExp(`^\\s*\\{\\s*(?:"jsonrpc"\\s*:\\s*"2\\.0"\\s*,\\s*)?"id"\\s*:\\s*${value}`).exec(head);
  const m = atEnd ?? atStart;
  if (!m) return null;
  try {
    return JSON.parse(m[1]!) as RequestId;
  } catch {
    return null;
  }
}

/** The id of a parsed message that is a request (or looks enough like one to answer), else null. */
function idOf(parsed: unknown): RequestId | null {
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
  const id = (parsed as Record<string, unknown>).id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

const EDGE = 1024;

/** Keeps the first and last EDGE bytes of a stream too long to keep whole. */
class Edges {
  head = Buffer.alloc(0);
  tail = Buffer.alloc(0);
  size = 0;

  add(part: Buffer): void {
    this.size += part.length;
    if (this.head.length < EDGE) this.head = Buffer.concat([this.head, part.subarray(0, EDGE - this.head.length)]);
    this.tail = Buffer.from(Buffer.concat([this.tail, part.subarray(Math.max(0, part.length - EDGE))]).subarray(-EDGE));
  }

  id(): RequestId | null {
    return peekRequestId(this.head.toString('utf8'), this.tail.toString('utf8'));
  }
}

/**
 * Stdio with a size guard. The SDK's StdioServerTransport buffers at most 10 MiB and, past that, closes the
 * transport, which ends the server silently. This one reads line by line: a line over `maxBytes` is skipped
 * (only its first and last bytes kept, to find its id) and answered with a JSON-RPC error, and the session goes
 * on; a line that is not JSON, or not a JSON-RPC message, is answered with the JSON-RPC error for that.
 */
class GuardedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private parts: Buffer[] = [];
  private size = 0;
  private oversized: Edges | undefined;

  constructor(
    private readonly stdin: NodeJS.ReadableStream = process.stdin,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
    private readonly maxBytes = MAX_REQUEST_BYTES,
  ) {}

  private readonly ondata = (chunk: Buffer | string): void => {
    const data = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    let start = 0;
    while (start < data.length) {
      const nl = data.indexOf(0x0a, start);
      this.take(data.subarray(start, nl === -1 ? data.length : nl));
      if (nl === -1) break;
      this.endLine();
      start = nl + 1;
    }
  };

  private readonly onstdinerror = (error: Error): void => {
    this.onerror?.(error);
  };

  private take(part: Buffer): void {
    if (part.length === 0) return;
    if (this.oversized) {
      this.oversized.add(part);
      return;
    }
    if (this.size + part.length > this.maxBytes) {
      this.oversized = new Edges();
      for (const p of this.parts) this.oversized.add(p);
      this.oversized.add(part);
      this.parts = [];
      this.size = 0;
      return;
    }
    this.parts.push(part);
    this.size += part.length;
  }

  private endLine(): void {
    if (this.oversized) {
      const edges = this.oversized;
      this.oversized = undefined;
      this.onerror?.(new Error(`refused a request of ${edges.size} bytes (limit ${this.maxBytes})`));
      void this.send(tooLargeError(edges.id(), edges.size, this.maxBytes));
      return;
    }
    const line = Buffer.concat(this.parts).toString('utf8').replace(/\r$/, '');
    this.parts = [];
    this.size = 0;
    if (line.trim() === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line) as unknown;
    } catch {
      void this.send({ jsonrpc: '2.0', id: null, error: { code: PARSE_ERROR, message: 'Parse error: the line is not JSON.' } } as unknown as JSONRPCMessage);
      return;
    }
    const message = JSONRPCMessageSchema.safeParse(parsed);
    if (!message.success) {
      const id = idOf(parsed);
      // A malformed notification or response gets no answer (JSON-RPC); a request with an id does.
      if (id !== null) void this.send({ jsonrpc: '2.0', id, error: { code: INVALID_REQUEST, message: 'Invalid Request: not a JSON-RPC 2.0 message.' } } as unknown as JSONRPCMessage);
      else this.onerror?.(new Error('Invalid JSON-RPC message'));
      return;
    }
    this.onmessage?.(message.data);
  }

  async start(): Promise<void> {
    this.stdin.on('data', this.ondata);
    this.stdin.on('error', this.onstdinerror);
  }

  async close(): Promise<void> {
    this.stdin.off('data', this.ondata);
    this.stdin.off('error', this.onstdinerror);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.parts = [];
    this.oversized = undefined;
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolveSent) => {
      if (this.stdout.write(`${JSON.stringify(message)}\n`)) resolveSent();
      else this.stdout.once('drain', () => resolveSent());
    });
  }
}

/**
 * Tool arguments exactly as the client sent them. The SDK validates `tools/call` with a schema that turns away
 * non-object arguments (a raw zod dump, as a protocol error) and silently drops a `__proto__` key; the CLI does
 * neither. So the raw value is set aside, keyed by request id, and the call goes on with `{}` in its place; the
 * handler hands the raw value to runTool, where every surface meets the same validation.
 */
class RawArguments {
  private readonly byId = new Map<RequestId, unknown>();

  capture(message: JSONRPCMessage): JSONRPCMessage {
    const m = message as { method?: unknown; id?: unknown; params?: unknown };
    if (m.method !== 'tools/call' || m.id === undefined || !m.params || typeof m.params !== 'object' || Array.isArray(m.params)) return message;
    const params = m.params as Record<string, unknown>;
    if (typeof params.name !== 'string') return message;
    // A client that never lets a call finish cannot pile values up here.
    if (this.byId.size >= 1000) this.byId.clear();
    this.byId.set(m.id as RequestId, Object.hasOwn(params, 'arguments') ? params.arguments : undefined);
    return { ...message, params: { ...params, arguments: {} } } as JSONRPCMessage;
  }

  take(id: RequestId, fallback: unknown): unknown {
    if (!this.byId.has(id)) return fallback;
    const raw = this.byId.get(id);
    this.byId.delete(id);
    return raw;
  }
}

function toolReply(result: ToolResult): { content: { type: 'text'; text: string }[]; structuredContent: Record<string, unknown>; isError: boolean } {
  let text = JSON.stringify(result);
  let body = result as Record<string, unknown>;
  // The reply carries the answer twice (structured, and as JSON text); both must fit the client's buffer.
  // Escaping at most multiplies a text by 6 (\uXXXX), so a small answer is never serialized a second time.
  const bytes = Buffer.byteLength(text);
  const size = bytes * 7 + 2 <= MAX_REPLY_BYTES ? 0 : bytes + Buffer.byteLength(JSON.stringify(text));
  if (size > MAX_REPLY_BYTES) {
    body = {
      ok: false,
      error: {
        code: 'out_of_range',
        message: `The answer is ${size} bytes as sent over MCP (${mib(size)}), over this server's reply limit of ${MAX_REPLY_BYTES} bytes (${mib(MAX_REPLY_BYTES)}). Ask for less: a smaller \`limit\`, a narrower filter, or for graphql_query \`max_bytes\` and \`jq\`.`,
        size,
        limit: MAX_REPLY_BYTES,
        unit: 'bytes',
      },
    };
    text = JSON.stringify(body);
  }
  return { content: [{ type: 'text' as const, text }], structuredContent: body, isError: body.ok !== true };
}

/** An MCP server exposing the query tools; tool schemas and descriptions come from the ontology. */
export interface McpServer {
  server: Server;
  /** Connects a transport; tool arguments then reach runTool exactly as sent. */
  connect: (transport: Transport) => Promise<void>;
}

export function createMcpServer(handle: StoreHandle, data?: DataAccessOptions, caller: DataCaller = { transport: 'local' }): McpServer {
  const server = new Server({ name: 'sextant', version: VERSION }, { capabilities: { tools: {}, resources: {} }, instructions: SERVER_INSTRUCTIONS });
  const mutations = [...(data?.sources.values() ?? [])].some((s) => s.config.allow_mutations);
  // Built when listed: over HTTP there is one server per request, and most requests are tool calls.
  const tools = () => [
    ...listTools(handle.ontology, { mutations }).map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: t.inputSchema as { type: 'object'; properties?: Record<string, object> },
      annotations: { title: t.title, readOnlyHint: !WRITE_TOOLS.has(t.name), destructiveHint: WRITE_TOOLS.has(t.name), idempotentHint: !WRITE_TOOLS.has(t.name), openWorldHint: DATA_TOOLS.has(t.name) },
    })),
    ...(data?.refresh
      ? [
          {
            name: data.refresh.name,
            title: data.refresh.title,
            description: data.refresh.description(handle.ontology),
            inputSchema: inputSchema(data.refresh, handle.ontology) as { type: 'object'; properties?: Record<string, object> },
            annotations: { title: data.refresh.title, readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
          },
        ]
      : []),
  ];
  const context: DataContext | undefined = data ? { sources: data.sources, caller, ...(data.jq ? { jq: data.jq } : {}) } : undefined;
  const raw = new RawArguments();
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools() }));
  registerGuides(server);
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const started = performance.now();
    const args = raw.take(extra.requestId, request.params.arguments);
    const reply =
      data?.refresh && request.params.name === data.refresh.name
        ? toolReply(await handle.run(request.params.name, args, context, [data.refresh]))
        : WRITE_TOOLS.has(request.params.name) && !mutations
        ? toolReply({ ok: false, error: { code: 'mutations_disabled', message: 'Mutations are off on this server: set `data.allow_mutations: true` for a GraphQL source in sextant.yaml to offer graphql_mutate.' } })
        : toolReply(await handle.run(request.params.name, args, context));
    const session = caller.transport === 'http' ? caller.headers['mcp-session-id'] : undefined;
    logToolCall({
      tool: request.params.name,
      surface: caller.transport === 'http' ? 'http' : 'stdio',
      started,
      result: reply.structuredContent as ToolCallRecord['result'],
      answerBytes: Buffer.byteLength(reply.content[0]!.text),
      caller,
      args,
      ...(data ? { sources: data.sources } : {}),
      ...(typeof session === 'string' ? { sessionId: session } : {}),
    });
    return reply;
  });
  return {
    server,
    connect: async (transport) => {
      await server.connect(transport);
      // After connect: the protocol has installed its handler, which now sees each call with its raw arguments set aside.
      const deliver = transport.onmessage;
      transport.onmessage = (message, extra) => deliver?.(raw.capture(message), extra);
    },
  };
}

export async function serveStdio(handle: StoreHandle, data?: DataAccessOptions): Promise<void> {
  const { server, connect } = createMcpServer(handle, data);
  const transport = new GuardedStdioTransport();
  await connect(transport);
  await new Promise<void>((resolveClosed) => {
    // server.onclose, not transport.onclose: connect() wrapped the transport's handler, and replacing it
    // would skip the protocol's own cleanup.
    server.onclose = () => resolveClosed();
    process.stdin.on('end', () => resolveClosed());
  });
  await handle.close();
}

export interface HttpOptions {
  port: number;
  host: string;
  path?: string;
  data?: DataAccessOptions;
  /**
   * Host header values accepted besides loopback (localhost, 127.0.0.1, [::1]) and the bound address: a name
   * (any port) or `name:port`. Host is always checked, against DNS rebinding.
   */
  allowedHosts?: readonly string[];
  /** Browser origins accepted besides loopback ones (`https://app.example.com`). A request without Origin is not a browser's and passes. */
  allowedOrigins?: readonly string[];
  /** Serve the web page at `/` (default true). */
  page?: boolean;
  /** Serve MCP at `path` (default true; `sextant ui` serves the page only). */
  mcp?: boolean;
}

interface HttpPolicy {
  path: string;
  hosts: Set<string>;
  origins: Set<string>;
  data: DataAccessOptions | undefined;
  page: boolean;
  mcp: boolean;
}

/** Stateless Streamable HTTP: one short-lived MCP server per request, so requests never share state. */
export async function serveHttp(handle: StoreHandle, opts: HttpOptions): Promise<HttpServer> {
  const policy: HttpPolicy = {
    path: opts.path ?? '/mcp',
    hosts: new Set(acceptedHosts(opts)),
    origins: new Set((opts.allowedOrigins ?? []).map(normalizeOrigin).filter((o): o is string => !!o)),
    data: opts.data,
    page: opts.page ?? true,
    mcp: opts.mcp ?? true,
  };
  const http = createServer((req, res) => {
    void handleHttp(handle, policy, req, res);
  });
  await new Promise<void>((resolveListen, reject) => {
    http.once('error', reject);
    http.listen(opts.port, opts.host, () => resolveListen());
  });
  return http;
}

const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

/** The Host names the server accepts: loopback, the name it binds (unless a wildcard), and --allowed-hosts. */
function acceptedHosts(opts: Pick<HttpOptions, 'host' | 'allowedHosts'>): string[] {
  return [...LOOPBACK_HOSTS, ...(isWildcard(opts.host) ? [] : [hostName(opts.host)]), ...(opts.allowedHosts ?? []).map((h) => h.trim().toLowerCase()).filter(Boolean)];
}

/** The name in a Host header value (`name`, `[v6]`), without its port; undefined when it is not one. */
function hostPart(header: string): string | undefined {
  return /^(\[[^\]]*\]|[^:]*)(?::\d+)?$/.exec(header.trim().toLowerCase())?.[1];
}

function isWildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '[::]' || host === '';
}

/** A host as the Host header writes it: IPv6 in brackets, lower case. */
function hostName(host: string): string {
  const h = host.trim().toLowerCase();
  return h.includes(':') && !h.startsWith('[') ? `[${h}]` : h;
}

/** Whether `host` (an address or name to bind) stays on this machine. */
function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}

/** What `serve --http` should say on stderr when it listens beyond loopback; undefined when it does not. */
export function exposureWarning(opts: Pick<HttpOptions, 'host' | 'allowedHosts' | 'allowedOrigins'>): string | undefined {
  if (isLoopbackHost(opts.host)) return undefined;
  const hosts = acceptedHosts(opts);
  return [
    `warning: serving on ${opts.host}, beyond loopback: anyone who can reach this port can query the index (there is no authentication; data tools forward each caller's own bearer token).`,
    `Host headers accepted: ${hosts.join(', ')}${opts.allowedHosts?.length ? '' : ' (add the names clients use with --allowed-hosts)'}; browser origins accepted: loopback${opts.allowedOrigins?.length ? `, ${opts.allowedOrigins.join(', ')}` : ' only (add others with --allowed-origins)'}.`,
  ].join('\n');
}

function normalizeOrigin(origin: string): string | undefined {
  try {
    const url = new URL(origin.trim());
    return url.origin === 'null' ? undefined : url.origin.toLowerCase();
  } catch {
    return undefined;
  }
}

function hostAllowed(header: string | undefined, hosts: Set<string>): boolean {
  if (!header) return false;
  if (hosts.has(header.trim().toLowerCase())) return true;
  const name = hostPart(header);
  return name !== undefined && (hosts.has(name) || isLoopbackHost(name));
}

function originAllowed(header: string | undefined, origins: Set<string>): boolean {
  if (header === undefined) return true;
  const origin = normalizeOrigin(header);
  if (!origin) return false;
  if (origins.has(origin)) return true;
  const url = new URL(origin);
  return (url.protocol === 'http:' || url.protocol === 'https:') && isLoopbackHost(url.hostname);
}

function jsonRpcError(res: ServerResponse, status: number, message: JSONRPCMessage, extraHeaders: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...extraHeaders }).end(JSON.stringify(message));
}

type Body = { ok: true; text: string } | { ok: false; size: number; id: RequestId | null; drained: boolean };

/** Reads a request body up to `max` bytes; past that it reads on (to HTTP_DISCARD_LIMIT) keeping only the edges, for the id. */
function readBody(req: IncomingMessage, max: number): Promise<Body> {
  return new Promise((resolveBody, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > HTTP_DISCARD_LIMIT) {
      resolveBody({ ok: false, size: declared, id: null, drained: false });
      return;
    }
    const parts: Buffer[] = [];
    let size = 0;
    let edges: Edges | undefined;
    let done = false;
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      if (edges) edges.add(chunk);
      else if (size + chunk.length > max) {
        edges = new Edges();
        for (const p of parts) edges.add(p);
        edges.add(chunk);
        parts.length = 0;
      } else parts.push(chunk);
      size += chunk.length;
      if (edges && size > HTTP_DISCARD_LIMIT) {
        done = true;
        resolveBody({ ok: false, size, id: edges.id(), drained: false });
      }
    });
    req.on('end', () => {
      if (done) return;
      done = true;
      resolveBody(edges ? { ok: false, size, id: edges.id(), drained: true } : { ok: true, text: Buffer.concat(parts).toString('utf8') });
    });
    req.on('error', reject);
  });
}

async function handleHttp(handle: StoreHandle, policy: HttpPolicy, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  if (url.pathname === '/healthz') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, version: VERSION }));
    return;
  }
  // DNS rebinding: a web page must not reach this server through a name of its own (Host) or from its own
  // origin (Origin). Both are checked on every request, whatever address the server listens on.
  const origin = typeof req.headers.origin === 'string' ? req.headers.origin : undefined;
  if (!originAllowed(origin, policy.origins)) {
    jsonRpcError(res, 403, { jsonrpc: '2.0', id: null, error: { code: -32000, message: `Invalid Origin header: ${origin?.slice(0, 200)}. It is not allowed: this server accepts requests without an Origin (non-browser clients) and from loopback origins; start it with --allowed-origins ${origin && normalizeOrigin(origin) ? normalizeOrigin(origin) : '<origin>'} to accept this one.` } } as unknown as JSONRPCMessage);
    req.resume();
    return;
  }
  if (!hostAllowed(req.headers.host, policy.hosts)) {
    const name = req.headers.host?.slice(0, 200);
    jsonRpcError(res, 403, { jsonrpc: '2.0', id: null, error: { code: -32000, message: `Invalid Host header: ${name ?? '(none)'}. It is not allowed (DNS rebinding protection); accepted: ${[...policy.hosts].join(', ')}; start the server with --allowed-hosts ${(name && hostPart(name)) || '<name>'} to accept this one.` } } as unknown as JSONRPCMessage);
    req.resume();
    return;
  }
  if (policy.page && isPagePath(url.pathname)) {
    await handlePage(handle, req, res, url.pathname);
    return;
  }
  if (!policy.mcp || url.pathname !== policy.path) {
    res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: policy.mcp ? `MCP endpoint is ${policy.path}${policy.page ? '; the web page is /' : ''}` : 'This server serves the web page only, at /' }));
    return;
  }
  if (req.method !== 'POST') {
    res.writeHead(405, { allow: 'POST', 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this stateless server takes POST only.' }, id: null }));
    return;
  }
  let body: Body;
  try {
    body = await readBody(req, MAX_REQUEST_BYTES);
  } catch {
    if (!res.headersSent) jsonRpcError(res, 400, { jsonrpc: '2.0', id: null, error: { code: PARSE_ERROR, message: 'Parse error: the request body could not be read.' } } as unknown as JSONRPCMessage);
    return;
  }
  if (!body.ok) {
    // Refused before any parsing, with the same JSON-RPC error as stdio; the connection stays usable when the body was read through.
    jsonRpcError(res, 413, tooLargeError(body.id, body.size, MAX_REQUEST_BYTES), body.drained ? {} : { connection: 'close' });
    if (!body.drained) res.once('finish', () => req.destroy());
    return;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.text) as unknown;
  } catch {
    jsonRpcError(res, 400, { jsonrpc: '2.0', id: null, error: { code: PARSE_ERROR, message: 'Parse error: Invalid JSON' } } as unknown as JSONRPCMessage);
    return;
  }
  // Data tools run as whoever sent this request: its own bearer token, forwarded; never the server's.
  const caller: DataCaller = { transport: 'http', ...(typeof req.headers.authorization === 'string' ? { authorization: req.headers.authorization } : {}), headers: req.headers };
  const { server, connect } = createMcpServer(handle, policy.data, caller);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  try {
    await connect(transport);
    await transport.handleRequest(req, res, parsed);
  } catch (err) {
    if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: (err as Error).message }, id: null }));
  }
}
