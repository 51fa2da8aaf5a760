import { existsSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Ontology } from '../../graph/ontology/index.js';
import { openStore } from '../../graph/open.js';
import { DB_FILE } from '../../graph/sqlite/store.js';
import { StoreError, type Store } from '../../graph/store.js';
import { DATA_TOOLS, listTools, runTool, WRITE_TOOLS, type ToolResult } from '../../query/index.js';
import type { DataCaller, DataContext, DataSourceAccess } from '../../query/data/access.js';
import { VERSION } from '../../version.js';

export const SERVER_INSTRUCTIONS = `Sextant is a typed map of a software estate: Java/Kotlin services (services, types, members, injection, calls, HTTP routes and message listeners, the Feign clients and message producers that reach them, and the service topology) and GraphQL APIs.
Work in a loop: locate → inspect → walk.
1. Locate: \`search\` (ranked words) when you know what it does; \`resolve\` when you know its name, e.g. a qualified name like com.acme.OrderService#place(Order) (it answers one / many / none and never guesses); \`find\` to list every node of a kind matching exact filters (e.g. symbols with role SERVICE in one service, or the routes of a service: kind route, filter by http_method or path_prefix).
2. Inspect: \`describe\` an id: all properties, its location, and edge counts per type and direction.
3. Walk: \`neighbors\` with the edge types describe showed (code: CALLS in = callers, IMPLEMENTS in = implementations, INJECTS, OVERRIDES, EXPOSES in = a route's handler, HTTP_CALLS / ASYNC_CALLS in = clients and producers in other services reaching a route, SERVICE_CALLS = the topology; GraphQL: HAS_FIELD, FIELD_TYPE). For "what breaks if this changes", \`impact\` walks every dependent in one call, grouped by service and depth. For "what happens when this request arrives", \`trace\` from a route, handler or service follows it across services in one call (\`to\` for the shortest path between two nodes).
GraphQL and Hugr data platforms: data_source, module (a.b.c), data_object (table or view) and function nodes; \`describe\` a data object for its GraphQL path, generated queries, filter type and a skeleton query; \`neighbors\` CONTAINS out of a module, REFERENCES between data objects. To read data: \`graphql_validate\`, then \`graphql_query\` (read-only, runs as you: your bearer token over HTTP), \`field_values\` for the values to filter on; \`jq\` and \`max_bytes\` keep answers small.
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

  current(): Store {
    const file = join(this.location, DB_FILE);
    const inode = existsSync(file) ? statSync(file).ino : undefined;
    if (this.store && inode === this.inode) return this.store;
    void this.store?.close();
    this.store = undefined;
    this.store = openStore(this.ontology, this.location, 'read');
    this.inode = inode;
    return this.store;
  }

  async run(name: string, args: unknown, data?: DataContext): Promise<ToolResult> {
    let store: Store;
    try {
      store = this.current();
    } catch (err) {
      const message = err instanceof StoreError ? err.message : `Cannot open the index at ${this.location}: ${(err as Error).message}`;
      return { ok: false, error: { code: 'index_unavailable', message } };
    }
    return runTool({ store, ontology: this.ontology, ...(data ? { data } : {}) }, name, args);
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
}

/** An MCP server exposing the query tools; tool schemas and descriptions come from the ontology. */
export function createMcpServer(handle: StoreHandle, data?: DataAccessOptions, caller: DataCaller = { transport: 'local' }): Server {
  const server = new Server({ name: 'sextant', version: VERSION }, { capabilities: { tools: {} }, instructions: SERVER_INSTRUCTIONS });
  const mutations = [...(data?.sources.values() ?? [])].some((s) => s.config.allow_mutations);
  const tools = listTools(handle.ontology, { mutations }).map((t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: t.inputSchema as { type: 'object'; properties?: Record<string, object> },
    annotations: { title: t.title, readOnlyHint: !WRITE_TOOLS.has(t.name), destructiveHint: WRITE_TOOLS.has(t.name), idempotentHint: !WRITE_TOOLS.has(t.name), openWorldHint: DATA_TOOLS.has(t.name) },
  }));
  const context: DataContext | undefined = data ? { sources: data.sources, caller, ...(data.jq ? { jq: data.jq } : {}) } : undefined;
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    if (WRITE_TOOLS.has(request.params.name) && !mutations) {
      const result = { ok: false, error: { code: 'mutations_disabled', message: 'Mutations are off on this server: set `data.allow_mutations: true` for a GraphQL source in sextant.yaml to offer graphql_mutate.' } };
      return { content: [{ type: 'text' as const, text: JSON.stringify(result) }], structuredContent: result, isError: true };
    }
    const result = await handle.run(request.params.name, request.params.arguments ?? {}, context);
    return {
      content: [{ type: 'text' as const, text: JSON.stringify(result) }],
      structuredContent: result as Record<string, unknown>,
      isError: !result.ok,
    };
  });
  return server;
}

export async function serveStdio(handle: StoreHandle, data?: DataAccessOptions): Promise<void> {
  const server = createMcpServer(handle, data);
  const transport = new StdioServerTransport();
  await server.connect(transport);
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
}

/** Stateless Streamable HTTP: one short-lived MCP server per request, so requests never share state. */
export async function serveHttp(handle: StoreHandle, opts: HttpOptions): Promise<HttpServer> {
  const path = opts.path ?? '/mcp';
  const http = createServer((req, res) => {
    void handleHttp(handle, path, req, res, http, opts.data);
  });
  await new Promise<void>((resolveListen, reject) => {
    http.once('error', reject);
    http.listen(opts.port, opts.host, () => resolveListen());
  });
  return http;
}

async function handleHttp(handle: StoreHandle, path: string, req: IncomingMessage, res: ServerResponse, http: HttpServer, data: DataAccessOptions | undefined): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  if (url.pathname === '/healthz') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, version: VERSION }));
    return;
  }
  if (url.pathname !== path) {
    res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `MCP endpoint is ${path}` }));
    return;
  }
  if (req.method !== 'POST') {
    res.writeHead(405, { allow: 'POST', 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this stateless server takes POST only.' }, id: null }));
    return;
  }
  const address = http.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  // Data tools run as whoever sent this request: its own bearer token, forwarded; never the server's.
  const caller: DataCaller = { transport: 'http', ...(typeof req.headers.authorization === 'string' ? { authorization: req.headers.authorization } : {}), headers: req.headers };
  const server = createMcpServer(handle, data, caller);
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    enableDnsRebindingProtection: isLoopback(address),
    allowedHosts: [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`],
  });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  try {
    await server.connect(transport);
    await transport.handleRequest(req, res);
  } catch (err) {
    if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: (err as Error).message }, id: null }));
  }
}

function isLoopback(address: ReturnType<HttpServer['address']>): boolean {
  if (!address || typeof address === 'string') return false;
  return address.address === '127.0.0.1' || address.address === '::1' || address.address.startsWith('127.');
}
