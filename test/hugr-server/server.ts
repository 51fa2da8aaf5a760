/**
 * A Hugr-compatible GraphQL server for tests, on loopback. Hugr itself cannot be built here (the Go module proxy
 * refuses the hugr-lab modules; see docs/hugr.md), so this is the contract Sextant is tested against:
 *
 * - `POST /query` answers GraphQL over the schema built from Hugr's golden SDL (plus base SDL and our scalar
 *   types), with the roots a server has (`completeModuleRoots`);
 * - introspection carries Hugr's extension fields (`__Type.hugr_type`, `__Field.mcp_exclude`, …);
 * - the logical-model meta queries `_catalog`, `_module`, `_dataObject`, `_dataSources`, `_dataSource` (meta.ts);
 * - data queries run over in-memory rows (`data.ts`);
 * - identity: `x-hugr-secret-key` (admin, or the `x-hugr-role` it names) or `Authorization: Bearer <token>`
 *   (the token's role); roles hide fields from both introspection and queries.
 *
 * Every request is recorded (path, headers, body) so tests can see which identity reached the server.
 */
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildASTSchema, execute, parse, validate, visit, type DefinitionNode, type DocumentNode, type GraphQLSchema } from 'graphql';
import { normalizeSdl } from '../../src/sources/graphql/sdl.js';
import { completeModuleRoots, hugrIntrospection } from '../helpers/hugr.js';
import { dataResolver, type Row } from './data.js';
import { answerIntrospection, isIntrospection } from './introspection.js';
import { IPC_CONTENT_TYPE, ipcAnswer } from './ipc.js';
import { metaResolvers, type DataSourceInfo } from './meta.js';
import { coreCatalogOf, coreCatalogSdl, withoutMetaQueries, type HugrGeneration, type Resolvers } from './catalog.js';
import { schemaSummaryResolvers, schemaSummarySdl } from './summary.js';

export interface HugrTestServerOptions {
  /** SDL files, in order (later definitions of a type merge into earlier ones). */
  files: string[];
  rows: Record<string, Row[]>;
  secret: string;
  /** Bearer token → role. */
  tokens: Record<string, string>;
  /** Role → `Type.field` it may not see. */
  hidden?: Record<string, string[]>;
  dataSources?: DataSourceInfo[];
  /** Anonymous requests get this role; without it they are refused (401). */
  anonymousRole?: string;
  /**
   * Which Hugr the server plays: v0.3.42+ (the default; logical-model meta queries), v0.3 (the core.catalog module,
   * catalog.ts) or v0.1 (schema_summary, summary.ts).
   */
  generation?: HugrGeneration;
  /** Serve the core module (catalog views, describe_data_source_schema) too; default: only as v0.3. v0.3.42+ has it. */
  coreCatalog?: boolean;
}

export interface RecordedRequest {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
  role?: string;
}

export interface HugrTestServer {
  url: string;
  requests: RecordedRequest[];
  rows: Map<string, Row[]>;
  close(): Promise<void>;
}

interface RoleSchema {
  schema: GraphQLSchema;
  meta: Record<string, (args: Record<string, unknown>) => unknown>;
  introspection: Record<string, unknown>;
  hugrType: Map<string, string>;
  moduleRoots: Set<string>;
}

function withoutFields(definitions: readonly DefinitionNode[], hidden: ReadonlySet<string>): DefinitionNode[] {
  if (hidden.size === 0) return [...definitions];
  return definitions.map((def) =>
    visit(def, {
      ObjectTypeDefinition: (node) => ({ ...node, fields: node.fields?.filter((f) => !hidden.has(`${node.name.value}.${f.name.value}`)) }),
      ObjectTypeExtension: (node) => ({ ...node, fields: node.fields?.filter((f) => !hidden.has(`${node.name.value}.${f.name.value}`)) }),
    }),
  );
}

export async function startHugrTestServer(opts: HugrTestServerOptions): Promise<HugrTestServer> {
  const definitions: DefinitionNode[] = [];
  for (const file of opts.files) definitions.push(...parse(await readFile(file, 'utf8'), { noLocation: false }).definitions);
  const generation = opts.generation ?? 'v0.3.42';
  const coreCatalog = opts.coreCatalog ?? generation === 'v0.3';
  if (coreCatalog) definitions.push(...parse(coreCatalogSdl()).definitions);
  if (generation === 'v0.1') definitions.push(...parse(schemaSummarySdl()).definitions);
  if (generation !== 'v0.3.42') definitions.splice(0, definitions.length, ...withoutMetaQueries(definitions));
  const rows = new Map(Object.entries(opts.rows).map(([k, v]) => [k, v.map((r) => ({ ...r }))]));
  const schemas = new Map<string, RoleSchema>();
  const schemaFor = (role: string): RoleSchema => {
    let s = schemas.get(role);
    if (s) return s;
    const { document } = normalizeSdl(withoutFields(definitions, new Set(opts.hidden?.[role] ?? [])));
    const schema = completeModuleRoots(buildASTSchema(document, { assumeValidSDL: true }));
    const introspection = hugrIntrospection(schema).__schema;
    const hugrType = new Map<string, string>();
    const moduleRoots = new Set<string>(['Query', 'Mutation', 'Function', 'MutationFunction']);
    for (const t of introspection['types'] as Record<string, unknown>[]) {
      if (t['hugr_type'] === 'module') moduleRoots.add(t['name'] as string);
      for (const f of (t['fields'] as Record<string, unknown>[] | null) ?? []) if (f['hugr_type']) hugrType.set(`${t['name']}.${f['name']}`, f['hugr_type'] as string);
    }
    s = { schema, meta: metaResolvers(schema, opts.dataSources ?? []), introspection, hugrType, moduleRoots };
    schemas.set(role, s);
    return s;
  };
  // What an older generation serves instead of the meta queries, computed once from the whole platform.
  let resolvers: Resolvers = {};
  if (coreCatalog || generation === 'v0.1') {
    const { schema, hugrType } = schemaFor('admin');
    const sources = opts.dataSources ?? [];
    if (coreCatalog) {
      const core = coreCatalogOf(schema, (t, f) => hugrType.get(`${t}.${f}`), sources);
      for (const [type, list] of Object.entries(core.rows)) if (!rows.has(type)) rows.set(type, list);
      resolvers = core.resolvers;
    }
    if (generation === 'v0.1') resolvers = { ...resolvers, ...schemaSummaryResolvers(schema, sources) };
  }
  const requests: RecordedRequest[] = [];

  const identify = (req: IncomingMessage): { role: string } | { status: number; message: string } => {
    const secret = req.headers['x-hugr-secret-key'];
    const auth = req.headers['authorization'];
    if (typeof secret === 'string') {
      if (secret !== opts.secret) return { status: 401, message: 'invalid secret key' };
      const role = req.headers['x-hugr-role'];
      return { role: typeof role === 'string' ? role : 'admin' };
    }
    if (typeof auth === 'string') {
      const m = /^Bearer (.+)$/i.exec(auth);
      const role = m ? opts.tokens[m[1]!] : undefined;
      return role ? { role } : { status: 401, message: 'invalid token' };
    }
    return opts.anonymousRole ? { role: opts.anonymousRole } : { status: 401, message: 'authentication required' };
  };

  const run = (role: string, body: Record<string, unknown>): Record<string, unknown> => {
    const { schema, meta, introspection, hugrType, moduleRoots } = schemaFor(role);
    const query = body['query'];
    if (typeof query !== 'string') return { errors: [{ message: 'query is required' }] };
    let doc: DocumentNode;
    try {
      doc = parse(query);
    } catch (err) {
      return { errors: [{ message: (err as Error).message }] };
    }
    const variables = (body['variables'] as Record<string, unknown> | undefined) ?? undefined;
    const operationName = typeof body['operationName'] === 'string' ? body['operationName'] : undefined;
    if (isIntrospection(doc, operationName)) return answerIntrospection(introspection, doc, variables, operationName) as Record<string, unknown>;
    const errors = validate(schema, doc);
    if (errors.length) return { errors: errors.map((e) => ({ message: e.message, locations: e.locations })) };
    const result = execute({
      schema,
      document: doc,
      ...(variables ? { variableValues: variables } : {}),
      ...(operationName ? { operationName } : {}),
      fieldResolver: (source, args, ctx, info) => {
        if (info.parentType.name === 'Query' && Object.hasOwn(meta, info.fieldName)) return meta[info.fieldName]!(args);
        const own = resolvers[`${info.parentType.name}.${info.fieldName}`];
        if (own) return own(args);
        return dataResolver({ rows, hugrType: (t, f) => hugrType.get(`${t}.${f}`), isModuleRoot: (t) => moduleRoots.has(t) })(source, args, ctx, info);
      },
    });
    if (result instanceof Promise) throw new Error('the test server resolves synchronously');
    return result as Record<string, unknown>;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    let body: Record<string, unknown> = {};
    try {
      body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>) : {};
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ errors: [{ message: 'body is not JSON' }] }));
      return;
    }
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const who = identify(req);
    requests.push({ path, headers: { ...req.headers }, body, ...('role' in who ? { role: who.role } : {}) });
    if (!('role' in who)) {
      res.writeHead(who.status, { 'content-type': 'application/json' }).end(JSON.stringify({ errors: [{ message: who.message }] }));
      return;
    }
    if (req.method === 'POST' && path === '/ipc') {
      const { schema, moduleRoots } = schemaFor(who.role);
      res.writeHead(200, { 'content-type': IPC_CONTENT_TYPE }).end(ipcAnswer(schema, moduleRoots, body, run(who.role, body)));
      return;
    }
    if (req.method !== 'POST' || path !== '/query') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ errors: [{ message: `no ${req.method} ${path}` }] }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(run(who.role, body)));
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ errors: [{ message: (err as Error).message }] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    rows,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

