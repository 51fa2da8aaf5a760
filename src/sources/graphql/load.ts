import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import {
  GraphQLError,
  Lexer,
  Source,
  TokenKind,
  buildASTSchema,
  getIntrospectionQuery,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  parse,
  print,
  printSourceLocation,
  type ASTNode,
  type DefinitionNode,
  type GraphQLSchema,
} from 'graphql';
import { AnswerTooLarge, MAX_ANSWER_BYTES, Secrets, basicAuth, megabytes, readCapped, requestUrl, shownUrl } from '../../config/endpoint.js';
import type { GraphqlSourceConfig } from '../../config/types.js';
import type { SourceContext } from '../types.js';
import { checkSdlDepth } from './depth.js';
import { GraphqlSourceError } from './errors.js';
import { buildFromIntrospection, canonicalJson, introspectionSchemaOf } from './introspection.js';
import { normalizeSdl } from './sdl.js';
import { EXTENSION_PROBE, META_DATA_SOURCES_QUERY, META_OBJECTS_PER_REQUEST, dataSourcesFromMeta, extendedIntrospectionQuery, extensionFieldsOf, hugrExtensionsOf, hugrGenerationOf, metaObjectsOf, metaObjectsQuery } from './hugr/extensions.js';
import type { HugrDataSource, HugrExtensions, HugrMetaObject } from './hugr/model.js';
import { SCHEMA_CATALOGS_QUERY, dataSourcesFromCatalog, hasSchemaCatalogs, readCoreCatalog } from './hugr/catalog.js';
import { catalogVersions, changedCatalogs, targetedIntrospection } from './hugr/targeted.js';
import { readSchemaSummary } from './hugr/summary.js';
import { failureOf, upstreamRequest } from '../../log/upstream.js';

export { GraphqlSourceError } from './errors.js';
export type { GraphqlSourceErrorCode } from './errors.js';

/** Where a definition is written: a file relative to the source's base directory (forward slashes), 1-based line. */
export interface SchemaLocation {
  file: string;
  line: number;
}

/** Location of a type (or, with `fieldName`, of one of its fields); undefined when the schema has no SDL. */
export type FileOf = (typeName: string, fieldName?: string) => SchemaLocation | undefined;

export interface LoadedGraphqlSchema {
  schema: GraphQLSchema;
  /** Paths or URL the schema was read from, never with credentials or a query string. */
  origin: string;
  /** sha256 (hex) of the SDL files (with their relative paths) or of the canonical introspection JSON. */
  contentHash: string;
  fileOf: FileOf;
  warnings: string[];
  /** Types the schema references but never defines, added as empty placeholders so it loads. */
  placeholders: string[];
  /**
   * The schema as text the data tools rebuild it from: the merged SDL (`schema.graphql`), or the introspection
   * result with its placeholders (`schema.json`).
   */
  artifact: { name: 'schema.graphql' | 'schema.json'; text: string };
  /** Hugr's introspection extensions, when the introspection carried them. */
  hugrExtensions?: HugrExtensions;
  /** Data sources as the server describes them (Hugr: `_dataSources`, `core.catalog` or `schema_summary`, by generation). */
  hugrDataSources?: HugrDataSource[];
  /** Data objects as the server describes them (Hugr: `_dataObject`, or `core.catalog` / `schema_summary` with the sources' SDL). */
  hugrDataObjects?: Map<string, HugrMetaObject>;
  /** More named texts to keep with the source (a Hugr v0.3 server's catalog versions, for the next refresh). */
  extraArtifacts?: Record<string, string>;
  /** How an endpoint was read: whole, only the data sources that changed, or not at all (nothing changed). */
  refresh?: RefreshReport;
}

export interface RefreshReport {
  mode: 'full' | 'targeted' | 'unchanged';
  /** Data sources read again (targeted). */
  data_sources: string[];
  types_read?: number;
  types_added?: string[];
  types_removed?: string[];
}

/** The artifact that keeps a Hugr v0.3 server's catalog versions and the introspection query it accepted. */
const CATALOG_STATE = 'hugr-catalogs.json';

/** What the last build kept of an endpoint: its introspection (with Hugr's extensions), catalog versions and query. */
async function previousCatalogState(previous: NonNullable<SourceContext['previous']>): Promise<{ schema: Record<string, unknown>; versions: Record<string, string>; query: string } | undefined> {
  try {
    const state = JSON.parse((await previous.artifact(CATALOG_STATE)) ?? 'null') as { versions?: Record<string, string>; query?: string } | null;
    const schema = (JSON.parse((await previous.artifact('schema.json')) ?? 'null') as { __schema?: Record<string, unknown> } | null)?.__schema;
    if (!state?.versions || typeof state.query !== 'string' || !schema || !Array.isArray(schema['types'])) return undefined;
    return { schema, versions: state.versions, query: state.query };
  } catch {
    return undefined;
  }
}

export const SDL_EXTENSIONS = ['.graphql', '.graphqls', '.gql'] as const;
const JSON_EXTENSION = '.json';

/**
 * Loads the schema of a GraphQL source: SDL files, an introspection JSON file, directories of them, or a live
 * endpoint answering the introspection query. When both `schema` and `endpoint` are configured, the files are
 * indexed (the endpoint stays the place queries are sent to).
 */
export async function loadGraphqlSchema(cfg: GraphqlSourceConfig, ctx: SourceContext): Promise<LoadedGraphqlSchema> {
  if (cfg.schema && cfg.schema.length > 0) return loadFromFiles(cfg, ctx);
  if (cfg.endpoint) return loadFromEndpoint(cfg, ctx);
  throw new GraphqlSourceError(
    'NO_SCHEMA_INPUT',
    `GraphQL source "${cfg.name}" has neither \`schema\` (SDL or introspection JSON files) nor \`endpoint\` (a URL answering introspection). Set one of them in sextant.yaml.`,
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Files

interface SchemaFile {
  abs: string;
  /** Relative to baseDir, forward slashes. */
  rel: string;
  format: 'sdl' | 'json';
  /** Found by listing a directory (rather than named in the config). */
  listed: boolean;
}

function relPath(baseDir: string, abs: string): string {
  const rel = path.relative(baseDir, abs);
  return (rel === '' ? '.' : rel).split(path.sep).join('/');
}

function formatOf(file: string): 'sdl' | 'json' | undefined {
  const ext = path.extname(file).toLowerCase();
  if ((SDL_EXTENSIONS as readonly string[]).includes(ext)) return 'sdl';
  if (ext === JSON_EXTENSION) return 'json';
  return undefined;
}

function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Schema files under a directory, recursively (skipping dot-directories and node_modules), sorted by path. */
async function listDirectory(dir: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (d: string): Promise<void> => {
    const entries = await readdir(d, { withFileTypes: true });
    for (const e of entries) {
      const full = path.join(d, e.name);
      if (e.isDirectory()) {
        if (!e.name.startsWith('.') && e.name !== 'node_modules') await walk(full);
      } else if ((e.isFile() || e.isSymbolicLink()) && formatOf(e.name)) {
        found.push(full);
      }
    }
  };
  await walk(dir);
  return found.sort((a, b) => byCodeUnit(relPath(dir, a), relPath(dir, b)));
}

async function collectFiles(cfg: GraphqlSourceConfig, baseDir: string): Promise<SchemaFile[]> {
  const files: SchemaFile[] = [];
  const seen = new Set<string>();
  const add = (abs: string, listed: boolean, format: 'sdl' | 'json'): void => {
    if (seen.has(abs)) return;
    seen.add(abs);
    files.push({ abs, rel: relPath(baseDir, abs), format, listed });
  };
  for (const entry of cfg.schema ?? []) {
    const abs = path.resolve(baseDir, entry);
    let info;
    try {
      info = await stat(abs);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new GraphqlSourceError(
        'FILE_NOT_FOUND',
        code === 'ENOENT' || code === 'ENOTDIR'
          ? `Schema path "${entry}" of GraphQL source "${cfg.name}" does not exist (resolved to ${abs}; relative paths are resolved against ${baseDir}).`
          : `Schema path "${entry}" of GraphQL source "${cfg.name}" cannot be read (resolved to ${abs}): ${(err as Error).message}`,
      );
    }
    if (info.isDirectory()) {
      const listed = await listDirectory(abs);
      if (listed.length === 0) {
        throw new GraphqlSourceError(
          'NO_SCHEMA_FILES',
          `Directory "${entry}" of GraphQL source "${cfg.name}" (resolved to ${abs}) contains no schema files: expected SDL (${SDL_EXTENSIONS.join(', ')}) or introspection JSON (.json).`,
        );
      }
      for (const f of listed) add(f, true, formatOf(f)!);
    } else {
      const format = formatOf(abs);
      if (!format) {
        throw new GraphqlSourceError(
          'UNSUPPORTED_FILE',
          `Schema file "${entry}" of GraphQL source "${cfg.name}" (resolved to ${abs}) has an extension Sextant does not read: use SDL (${SDL_EXTENSIONS.join(', ')}) or introspection JSON (.json).`,
        );
      }
      add(abs, false, format);
    }
  }
  return files;
}

async function readText(file: SchemaFile): Promise<string> {
  try {
    const text = await readFile(file.abs, 'utf8');
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  } catch (err) {
    throw new GraphqlSourceError('FILE_NOT_FOUND', `Cannot read schema file ${file.abs}: ${(err as Error).message}`);
  }
}

function hasTokens(source: Source): boolean {
  try {
    return new Lexer(source).advance().kind !== TokenKind.EOF;
  } catch {
    return true; // a lexical error: let the parser report it with its location
  }
}

function parseSdl(text: string, file: SchemaFile): DefinitionNode[] | undefined {
  const source = new Source(text, file.rel);
  if (!hasTokens(source)) return undefined;
  let definitions: DefinitionNode[];
  try {
    definitions = [...parse(source).definitions];
  } catch (err) {
    if (err instanceof RangeError) {
      // graphql-js parses by recursion: nesting thousands deep ends its stack.
      throw new GraphqlSourceError(
        'TOO_DEEP',
        `Schema file ${file.rel} nests too deeply to parse (a type like [[[…String…]]] or a value thousands of levels deep): ${err.message}. Flatten it, or remove it from the schema files of this source.`,
      );
    }
    if (err instanceof GraphQLError) {
      const loc = err.locations?.[0];
      const where = loc ? `${file.rel}:${loc.line}:${loc.column}` : file.rel;
      const frame = loc ? `\n${printSourceLocation(source, loc)}` : '';
      throw new GraphqlSourceError('SDL_SYNTAX_ERROR', `GraphQL syntax error at ${where}: ${err.message.replace(/^Syntax Error: /, '')}${frame}`);
    }
    throw err;
  }
  checkSdlDepth(definitions, file.rel);
  return definitions;
}

async function loadFromFiles(cfg: GraphqlSourceConfig, ctx: SourceContext): Promise<LoadedGraphqlSchema> {
  const baseDir = path.resolve(ctx.baseDir);
  const files = await collectFiles(cfg, baseDir);
  const origin = (cfg.schema ?? []).map((p) => relPath(baseDir, path.resolve(baseDir, p))).join(', ');
  const warnings: string[] = [];
  const sdl: { file: SchemaFile; text: string }[] = [];
  const introspections: { file: SchemaFile; schema: Record<string, unknown> }[] = [];

  for (const file of files) {
    const text = await readText(file);
    if (file.format === 'sdl') {
      sdl.push({ file, text });
      continue;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      throw new GraphqlSourceError('INVALID_JSON', `Schema file ${file.rel} is not valid JSON (${(err as Error).message}); an introspection result is expected in a .json file.`);
    }
    try {
      introspections.push({ file, schema: introspectionSchemaOf(json, `Schema file ${file.rel}`) });
    } catch (err) {
      if (!file.listed) throw err;
      warnings.push(`skipped ${file.rel}: a JSON file that is not a GraphQL introspection result`);
    }
  }

  if (sdl.length === 0 && introspections.length === 0) {
    throw new GraphqlSourceError('NO_SCHEMA_FILES', `GraphQL source "${cfg.name}" found no schema in ${origin}: the JSON files there are not introspection results and there is no SDL.`);
  }
  if (introspections.length > 0 && (sdl.length > 0 || introspections.length > 1)) {
    const names = [...introspections.map((i) => i.file.rel), ...sdl.map((s) => s.file.rel)].slice(0, 6).join(', ');
    throw new GraphqlSourceError(
      'MIXED_SCHEMA_FORMATS',
      `GraphQL source "${cfg.name}" mixes an introspection JSON file with other schema files (${names}). One source reads either SDL files (any number) or one introspection JSON file; split them into separate sources in sextant.yaml.`,
    );
  }

  const single = introspections[0];
  if (single) {
    const { schema, warnings: w, placeholders, completed } = buildFromIntrospection(single.schema, `Schema file ${single.file.rel}`);
    const hugrExtensions = hugrExtensionsOf(single.schema);
    return {
      schema,
      artifact: { name: 'schema.json', text: JSON.stringify({ __schema: completed }) },
      origin,
      contentHash: sha256(canonicalJson(single.schema)),
      fileOf: () => undefined,
      warnings: [...warnings, ...w],
      placeholders,
      ...(hugrExtensions ? { hugrExtensions } : {}),
    };
  }

  const definitions: DefinitionNode[] = [];
  const hash = createHash('sha256');
  for (const { file, text } of sdl) {
    hash.update(`${file.rel}\u0000${text}\u0000`);
    const defs = parseSdl(text, file);
    if (!defs) {
      warnings.push(`${file.rel} contains no definitions`);
      continue;
    }
    definitions.push(...defs);
  }
  const { document, warnings: w, placeholders } = normalizeSdl(definitions);
  warnings.push(...w);
  let schema: GraphQLSchema;
  try {
    schema = buildASTSchema(document, { assumeValidSDL: true });
  } catch (err) {
    throw new GraphqlSourceError('SCHEMA_BUILD_ERROR', `GraphQL source "${cfg.name}": the SDL in ${origin} parses but cannot be built into a schema: ${(err as Error).message}`);
  }
  return { schema, artifact: { name: 'schema.graphql', text: print(document) }, origin, contentHash: hash.digest('hex'), fileOf: sdlFileOf(schema), warnings, placeholders };
}

function locationOf(node: ASTNode | null | undefined): SchemaLocation | undefined {
  const nameLoc = node && 'name' in node && node.name && typeof node.name === 'object' && 'loc' in node.name ? node.name.loc : undefined;
  const loc = nameLoc ?? node?.loc;
  return loc ? { file: loc.source.name, line: loc.startToken.line } : undefined;
}

function sdlFileOf(schema: GraphQLSchema): FileOf {
  return (typeName, fieldName) => {
    const type = schema.getType(typeName);
    if (!type) return undefined;
    if (fieldName === undefined) return locationOf(type.astNode ?? type.extensionASTNodes[0]);
    if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) return locationOf(type.getFields()[fieldName]?.astNode);
    return undefined;
  };
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

// ---------------------------------------------------------------------------------------------------------------
// Endpoint

/** The optional parts of the introspection query, each with the introspection fields it adds and what is lost without it. */
const INTROSPECTION_FEATURES = [
  { option: 'inputValueDeprecation', fields: ['isDeprecated', 'deprecationReason', 'includeDeprecated'], lost: 'argument deprecation' },
  { option: 'directiveIsRepeatable', fields: ['isRepeatable'], lost: 'repeatable directives' },
  { option: 'specifiedByUrl', fields: ['specifiedByURL', 'specifiedByUrl'], lost: 'specifiedBy URLs' },
  { option: 'schemaDescription', fields: ['description'], lost: 'the schema description' },
] as const;
type IntrospectionFeature = (typeof INTROSPECTION_FEATURES)[number]['option'];

function introspectionQuery(features: ReadonlySet<IntrospectionFeature>): string {
  return getIntrospectionQuery({ descriptions: true, ...Object.fromEntries([...features].map((f) => [f, true])) });
}

/**
 * The features an introspection answer's errors reject: those whose fields an error message names as a word
 * (Hugr v0.3.41 lists `__InputValue.isDeprecated` but answers "isDeprecated: couldn't find field resolver").
 */
function rejectedFeatures(errors: readonly string[], features: ReadonlySet<IntrospectionFeature>): IntrospectionFeature[] {
  return INTROSPECTION_FEATURES.filter((f) => features.has(f.option) && f.fields.some((name) => errors.some((m) => new RegExp(`\\b${name}\\b`).test(m)))).map((f) => f.option);
}

type Attempt = { kind: 'schema'; schema: Record<string, unknown>; errors: string[] } | { kind: 'errors'; errors: string[] };

async function loadFromEndpoint(cfg: GraphqlSourceConfig, ctx: SourceContext): Promise<LoadedGraphqlSchema> {
  const endpoint = cfg.endpoint!;
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new GraphqlSourceError('INVALID_ENDPOINT', `Endpoint of GraphQL source "${cfg.name}" is not a valid absolute URL; write it like https://api.example.com/graphql.`);
  }
  const origin = shownUrl(url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new GraphqlSourceError('INVALID_ENDPOINT', `Endpoint ${origin} of GraphQL source "${cfg.name}" must use http: or https:.`);
  }

  // Everything sent that must never come back in a message: header values, the URL's user info and query values.
  const secrets = new Secrets(Object.values(cfg.headers ?? {})).addUrl(url);
  const headers = new Headers();
  for (const [name, value] of Object.entries(cfg.headers ?? {})) headers.set(name, value);
  const basic = basicAuth(url);
  if (basic && !headers.has('authorization')) headers.set('authorization', `Basic ${basic}`);
  headers.set('content-type', 'application/json');
  if (!headers.has('accept')) headers.set('accept', 'application/graphql-response+json, application/json');
  const sendTo = requestUrl(url);
  const redact = (text: string): string => secrets.redact(text);
  const tooLarge = (): GraphqlSourceError =>
    new GraphqlSourceError(
      'ANSWER_TOO_LARGE',
      `GraphQL endpoint ${origin} sent more than ${megabytes(MAX_ANSWER_BYTES)} for the introspection query; Sextant stopped reading. ` +
        'A schema that large is not expected: check that this URL is the GraphQL endpoint, or export the schema as SDL and set `schema` instead of `endpoint` in sextant.yaml.',
    );

  /**
   * A side query (probe, meta query): its JSON answer when it has `data`, else undefined; never throws. Each query
   * is sent once per read: the catalog versions and the data sources are the same `schema_catalogs` answer.
   */
  const answers = new Map<string, Promise<unknown>>();
  const ask = (query: string): Promise<unknown> => {
    let answer = answers.get(query);
    if (!answer) answers.set(query, (answer = askServer(query)));
    return answer;
  };
  const askServer = async (query: string): Promise<unknown> => {
    const logged = indexRequestLog(cfg, origin, secrets, query === EXTENSION_PROBE ? 'probe' : 'meta', query);
    try {
      const signal = cfg.timeout_ms > 0 && Number.isFinite(cfg.timeout_ms) ? AbortSignal.timeout(cfg.timeout_ms) : undefined;
      const res = await fetch(sendTo, { method: 'POST', headers, body: JSON.stringify({ query }), redirect: 'manual', ...(signal ? { signal } : {}) });
      if (!res.ok) {
        logged.done(res.status, null);
        await res.body?.cancel().catch(() => undefined);
        return undefined;
      }
      const text = await readCapped(res, MAX_ANSWER_BYTES);
      logged.done(res.status, Buffer.byteLength(text));
      const json = JSON.parse(text) as { data?: unknown };
      return json && typeof json === 'object' && json.data ? json : undefined;
    } catch (err) {
      logged.failed(failureOf(err, err instanceof AnswerTooLarge));
      return undefined;
    }
  };

  const post = async (query: string): Promise<Attempt> => {
    const signal = cfg.timeout_ms > 0 && Number.isFinite(cfg.timeout_ms) ? AbortSignal.timeout(cfg.timeout_ms) : undefined;
    const fail = (err: unknown): GraphqlSourceError => {
      if (signal?.aborted) {
        const suggested = Math.max(cfg.timeout_ms * 4, 30_000);
        return new GraphqlSourceError(
          'TIMEOUT',
          `GraphQL endpoint ${origin} did not answer the introspection query within ${cfg.timeout_ms} ms (timeout_ms). ` +
            `Large schemas can take longer: raise it for source "${cfg.name}" in sextant.yaml, e.g. \`timeout_ms: ${suggested}\`.`,
        );
      }
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      const detail = cause?.message ? `${cause.message}${cause.code && !cause.message.includes(cause.code) ? ` (${cause.code})` : ''}` : (err as Error).message;
      return new GraphqlSourceError('NETWORK_ERROR', redact(`Cannot reach GraphQL endpoint ${origin}: ${detail}. Check the URL and that the server is running and reachable from this machine.`));
    };
    let res: Response;
    let text: string;
    const logged = indexRequestLog(cfg, origin, secrets, 'introspection', query);
    try {
      res = await fetch(sendTo, { method: 'POST', headers, body: JSON.stringify({ query }), redirect: 'manual', ...(signal ? { signal } : {}) });
      text = await readCapped(res, MAX_ANSWER_BYTES);
    } catch (err) {
      logged.failed(signal?.aborted ? 'timeout' : failureOf(err, err instanceof AnswerTooLarge));
      if (err instanceof AnswerTooLarge) throw tooLarge();
      throw fail(err);
    }
    logged.done(res.status, Buffer.byteLength(text));
    if (res.status >= 300 && res.status < 400) {
      const location = res.headers.get('location');
      let target = '';
      if (location) {
        try {
          target = ` to ${shownUrl(new URL(location, sendTo))}`;
        } catch {
          target = '';
        }
      }
      throw new GraphqlSourceError(
        'HTTP_ERROR',
        `GraphQL endpoint ${origin} answered HTTP ${res.status} (a redirect${target}). Sextant does not follow redirects, so headers are never sent to another address: set \`endpoint\` to the final URL.`,
      );
    }
    let json: unknown;
    let parsed = false;
    try {
      json = JSON.parse(text);
      parsed = true;
    } catch {
      parsed = false;
    }
    // Redacted before they are cut short for a message: a cut must not leave half a token behind.
    const errors = graphqlErrorsOf(json).map(redact);
    const data = typeof json === 'object' && json !== null ? (json as { data?: unknown }).data : undefined;
    const rawSchema = typeof data === 'object' && data !== null ? (data as { __schema?: unknown }).__schema : undefined;
    const errorsOnly = errors.length > 0 && rawSchema == null;
    if (!res.ok && !(errorsOnly && (res.status === 400 || res.status === 422))) {
      const hint =
        res.status === 401 || res.status === 403
          ? ' Check the credentials in the `headers` of this source in sextant.yaml.'
          : res.status === 404
            ? ' Check the endpoint path (often /graphql or /query).'
            : '';
      throw new GraphqlSourceError('HTTP_ERROR', redact(`GraphQL endpoint ${origin} answered HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}: ${snippet(redact(text))}.${hint}`));
    }
    if (!parsed) {
      throw new GraphqlSourceError('BAD_RESPONSE', redact(`GraphQL endpoint ${origin} answered HTTP ${res.status} with a body that is not JSON: ${snippet(redact(text))}. Is this URL a GraphQL endpoint?`));
    }
    if (rawSchema != null) {
      return { kind: 'schema', schema: introspectionSchemaOf({ __schema: rawSchema }, `The answer of ${origin}`), errors };
    }
    if (errorsOnly) return { kind: 'errors', errors };
    introspectionSchemaOf(json, `The answer of GraphQL endpoint ${origin}`);
    throw new GraphqlSourceError('NOT_INTROSPECTION', `The answer of GraphQL endpoint ${origin} has no data.__schema.`);
  };

  // Hugr adds fields to __Type and __Field (hugr_type, module, catalog, mcp_exclude, field_kind): ask for them
  // when the server has them. The probe is an ordinary query any server answers (or refuses harmlessly).
  const probe = await ask(EXTENSION_PROBE);
  const extensionFields = probe ? extensionFieldsOf(probe) : undefined;
  // Ask for every optional part first; a server that rejects some loses only those (named in the warning), and
  // keeps Hugr's extension fields, which is what makes it recognisable as Hugr at all.
  const features = new Set<IntrospectionFeature>(INTROSPECTION_FEATURES.map((f) => f.option));
  const queryWith = (withExtensions: boolean): string => {
    const base = introspectionQuery(features);
    return withExtensions && extensionFields ? extendedIntrospectionQuery(base, extensionFields) : base;
  };
  const warnings: string[] = [];
  // A Hugr v0.3 server versions each data source: a refresh reads again only what changed (hugr/targeted.ts).
  // Only a source read before with its versions kept can be refreshed by them: ask for them first then.
  const previous = extensionFields && ctx.previous ? await previousCatalogState(ctx.previous) : undefined;
  const versionsBefore = previous ? await catalogVersions(ask) : undefined;
  let attempt: Attempt | undefined;
  let refresh: RefreshReport | undefined;
  let usedQuery = queryWith(true);
  if (versionsBefore && previous) {
    const changed = changedCatalogs(previous.versions, versionsBefore, ctx.refreshDataSources ?? []);
    if (changed.length === 0) {
      attempt = { kind: 'schema', schema: previous.schema, errors: [] };
      refresh = { mode: 'unchanged', data_sources: [] };
    } else {
      const targeted = await targetedIntrospection(ask, previous.schema, changed, previous.query);
      if (targeted) {
        attempt = { kind: 'schema', schema: targeted.schema, errors: [] };
        refresh = { mode: 'targeted', data_sources: targeted.dataSources, types_read: targeted.typesRead, types_added: targeted.typesAdded, types_removed: targeted.typesRemoved };
      } else warnings.push(`endpoint ${origin} did not say which types its changed data sources (${changed.join(', ')}) contribute to; the whole schema was read again`);
    }
    if (attempt) usedQuery = previous.query;
  }
  if (!attempt) {
    attempt = await post(queryWith(true));
    const firstErrors = attempt.kind === 'errors' ? attempt.errors : [];
    for (let round = 0; attempt.kind === 'errors' && round < INTROSPECTION_FEATURES.length; round++) {
      const rejected = rejectedFeatures(attempt.errors, features);
      if (rejected.length === 0) break;
      for (const f of rejected) features.delete(f);
      attempt = await post(queryWith(true));
    }
    if (attempt.kind === 'errors' && features.size > 0) {
      features.clear();
      attempt = await post(queryWith(true));
    }
    let extensionsDropped = false;
    if (attempt.kind === 'errors' && extensionFields) {
      attempt = await post(queryWith(false));
      extensionsDropped = attempt.kind === 'schema';
    }
    if (attempt.kind === 'schema' && (features.size < INTROSPECTION_FEATURES.length || extensionsDropped)) {
      const lost: string[] = INTROSPECTION_FEATURES.filter((f) => !features.has(f.option)).map((f) => f.lost);
      if (extensionsDropped) lost.push(`Hugr's introspection extensions (${[...extensionFields!.type, ...extensionFields!.field].join(', ')})`);
      warnings.push(redact(`endpoint ${origin} rejected part of the introspection query (${summarizeErrors(firstErrors)}); read it without ${lost.join(', ')}`));
    }
    usedQuery = queryWith(!extensionsDropped);
    refresh = { mode: 'full', data_sources: [] };
  }
  if (attempt.kind === 'errors') {
    throw new GraphqlSourceError(
      'GRAPHQL_ERRORS',
      redact(
        `GraphQL endpoint ${origin} answered the introspection query with errors: ${summarizeErrors(attempt.errors)}. ` +
          'If introspection is disabled on this server, export its schema as SDL or introspection JSON and set `schema` instead of `endpoint` in sextant.yaml.',
      ),
    );
  }
  if (attempt.errors.length) warnings.push(redact(`endpoint ${origin} answered with errors alongside the schema: ${summarizeErrors(attempt.errors)}`));
  const { schema, warnings: w, placeholders, completed } = buildFromIntrospection(attempt.schema, `The answer of ${origin}`);
  const hugrExtensions = hugrExtensionsOf(attempt.schema);
  // Each Hugr generation describes its data sources and data objects its own way: v0.3.42+ through meta queries
  // (below), v0.3 through the core.catalog module, v0.1 through schema_summary (both with the sources' own SDL).
  const generation = hugrExtensions ? hugrGenerationOf(schema) : undefined;
  let hugrDataSources: HugrDataSource[] | undefined;
  let hugrDataObjects: Map<string, HugrMetaObject> | undefined;
  if (generation === 'v0.3' || generation === 'v0.1') {
    const objectCatalogs = new Map([...hugrExtensions!.types].filter(([, t]) => t.hugr_type === 'table' || t.hugr_type === 'view').map(([name, t]) => [name, { ...(t.catalog ? { catalog: t.catalog } : {}), kind: t.hugr_type as 'table' | 'view' }]));
    const facts = generation === 'v0.3' ? await readCoreCatalog(ask, objectCatalogs) : await readSchemaSummary(ask);
    if (facts) {
      hugrDataSources = facts.dataSources;
      hugrDataObjects = facts.dataObjects;
      warnings.push(...facts.warnings.map((m) => redact(`endpoint ${origin}: ${m}`)));
    } else {
      warnings.push(`endpoint ${origin} has ${generation === 'v0.3' ? 'core.catalog' : 'schema_summary'} but did not answer it; data source attributes, primary keys and relation kinds are inferred from the schema`);
    }
  }
  // A Hugr v0.3.42+ server describes its data sources (engine, read-only, as-module) through a meta query.
  if (generation !== 'v0.3' && generation !== 'v0.1' && schema.getQueryType()?.getFields()['_dataSources']) {
    const answer = await ask(META_DATA_SOURCES_QUERY);
    hugrDataSources = answer ? dataSourcesFromMeta(answer) : undefined;
    if (!hugrDataSources) warnings.push(`endpoint ${origin} has _dataSources but did not answer it; data source attributes are inferred from the schema`);
    // _dataSources has no prefix; the core.catalog module (kept since v0.3.0) has.
    if (hugrDataSources && hasSchemaCatalogs(schema)) {
      const catalogs = dataSourcesFromCatalog(await ask(SCHEMA_CATALOGS_QUERY));
      for (const ds of hugrDataSources) {
        const prefix = catalogs?.find((c) => c.name === ds.name)?.prefix;
        if (prefix) ds.prefix = prefix;
      }
    }
  }
  // …and its data objects (primary keys without a by-key query, many-to-many relations, flags) through _dataObject.
  const objectTypes = hugrExtensions ? [...hugrExtensions.types].filter(([, t]) => t.hugr_type === 'table' || t.hugr_type === 'view').map(([name]) => name).sort() : [];
  if (!hugrDataObjects && schema.getQueryType()?.getFields()['_dataObject'] && objectTypes.length) {
    hugrDataObjects = new Map();
    for (let i = 0; i < objectTypes.length; i += META_OBJECTS_PER_REQUEST) {
      const answer = await ask(metaObjectsQuery(objectTypes.slice(i, i + META_OBJECTS_PER_REQUEST)));
      if (!answer) {
        warnings.push(`endpoint ${origin} has _dataObject but did not answer it; primary keys and relation kinds are inferred from the schema`);
        hugrDataObjects = undefined;
        break;
      }
      for (const o of metaObjectsOf(answer)) hugrDataObjects.set(o.name, o);
    }
  }
  // Kept for the next refresh (the same schema_catalogs answer the data sources came from, when they did).
  const versions = versionsBefore ?? (hasSchemaCatalogs(schema) ? await catalogVersions(ask) : undefined);
  return {
    schema,
    artifact: { name: 'schema.json', text: JSON.stringify({ __schema: completed }) },
    origin,
    // Over the completed schema with its types in name order, so a targeted refresh and a whole read of the same
    // schema hash alike.
    contentHash: sha256(canonicalJson({ ...completed, types: [...(completed['types'] as { name?: string }[])].sort((a, b) => byCodeUnit(a.name ?? '', b.name ?? '')) })),
    fileOf: () => undefined,
    warnings: [...warnings, ...w.map(redact)],
    ...(versions ? { extraArtifacts: { [CATALOG_STATE]: JSON.stringify({ versions, query: usedQuery }) } } : {}),
    refresh,
    placeholders,
    ...(hugrExtensions ? { hugrExtensions } : {}),
    ...(hugrDataSources ? { hugrDataSources } : {}),
    ...(hugrDataObjects ? { hugrDataObjects } : {}),
  };
}

/** The `upstream_request` log record of one indexing request; the identity is the source's own credentials when it has any. */
function indexRequestLog(cfg: GraphqlSourceConfig, endpoint: string, secrets: Secrets, operation: string, query: string): ReturnType<typeof upstreamRequest> {
  const credentials = Object.keys(cfg.headers ?? {}).length > 0 || secrets.list().length > 0;
  return upstreamRequest({ source: cfg.name, endpoint, identity: credentials ? 'secret' : 'anonymous', operation, query, secrets: secrets.list() });
}

function snippet(text: string): string {
  const t = text.trim();
  if (t === '') return '(empty body)';
  return t.length > 200 ? `${t.slice(0, 200)}…` : t;
}

function graphqlErrorsOf(json: unknown): string[] {
  if (typeof json !== 'object' || json === null) return [];
  const errors = (json as { errors?: unknown }).errors;
  if (!Array.isArray(errors)) return [];
  return errors.map((e) => (typeof e === 'object' && e !== null && typeof (e as { message?: unknown }).message === 'string' ? (e as { message: string }).message : JSON.stringify(e)));
}

function summarizeErrors(errors: string[]): string {
  const shown = errors.slice(0, 3).map((m) => (m.length > 200 ? `${m.slice(0, 200)}…` : m));
  return shown.join('; ') + (errors.length > 3 ? ` (and ${errors.length - 3} more)` : '');
}
