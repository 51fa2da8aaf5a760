/**
 * Reading the workspace config, `sextant.yaml`: YAML in, a validated `WorkspaceConfig` out, or one `ConfigError`
 * listing every problem with its line and column, what is wrong and how to fix it.
 *
 * Source kinds are a table (`SOURCE_KINDS`): each kind lists the keys it accepts and reads them. Adding a kind is
 * one entry there (plus its type in `types.ts`).
 */

import { statSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { LineCounter, isAlias, isMap, isNode, isScalar, isSeq, parseDocument } from 'yaml';
import type { Document, Node, YAMLMap } from 'yaml';
import { closest } from '../search/similarity.js';
import { expandEnv, type Env } from './env.js';
import { isPostgresLocation } from '../graph/postgres/location.js';
import { ConfigError, type ConfigIssue, type ConfigIssueCode } from './errors.js';
import { CAPABILITIES, ROLES } from '../graph/ontology/code.js';
import type { CodeLinkPins, CodeSourceConfig, EmbeddingsConfig, GraphqlDataConfig, GraphqlSourceConfig, SourceConfig, WorkspaceConfig } from './types.js';
import { embeddingsUrl } from '../search/embeddings.js';

export { ConfigError, formatIssue } from './errors.js';
export type { ConfigErrorCode, ConfigIssue, ConfigIssueCode } from './errors.js';
export { expandEnv } from './env.js';
export type { Env } from './env.js';

/** Config file names looked for in a directory, in order of preference. */
export const CONFIG_FILE_NAMES = ['sextant.yaml', 'sextant.yml'] as const;
/** `timeout_ms` when a source does not set it. */
export const DEFAULT_TIMEOUT_MS = 30_000;
export const GRAPHQL_FLAVORS = ['auto', 'hugr', 'generic'] as const;
/** What a source name must look like. */
export const SOURCE_NAME_PATTERN = /^[a-z0-9][a-z0-9_.-]*$/i;

const TOP_KEYS = ['version', 'store', 'sources', 'embeddings'] as const;
const COMMON_SOURCE_KEYS = ['name', 'kind'] as const;
const SUPPORTED_VERSION = 1;
/** RFC 9110 `token`: what an HTTP header name may contain. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

// ---------------------------------------------------------------------------------------------------------------
// Public API

/** The config file in `dir` (`sextant.yaml`, else `sextant.yml`) as an absolute path, or undefined. */
export function findConfigFile(dir: string): string | undefined {
  for (const name of CONFIG_FILE_NAMES) {
    const candidate = resolve(dir, name);
    if (isFile(candidate)) return candidate;
  }
  return undefined;
}

/**
 * Reads and validates a workspace config. `path` is the config file, or a directory holding `sextant.yaml` or
 * `sextant.yml`. `${VAR}` in header values is expanded from `env` (default: `process.env`).
 * @throws ConfigError listing every problem found.
 */
/**
 * `forData`: the config is read to serve data tools, which never send the discovery `headers`: a header whose
 * environment variable is unset in this process is left out instead of being an error.
 */
export interface ReadOptions {
  forData?: boolean;
}

export async function loadWorkspaceConfig(path: string, env: Env = process.env, read: ReadOptions = {}): Promise<WorkspaceConfig> {
  const asked = resolve(path);
  let file = asked;
  let isDir: boolean;
  try {
    isDir = (await stat(asked)).isDirectory();
  } catch (err) {
    const code = errnoCode(err);
    if (code === 'ENOENT' || code === 'ENOTDIR') throw notFound(asked, asked, 'not found');
    throw unreadable(asked, code);
  }
  if (isDir) {
    const present = CONFIG_FILE_NAMES.filter((name) => isFile(join(asked, name)));
    if (present.length === 0) {
      const what = `this directory holds no ${CONFIG_FILE_NAMES.join(' or ')}`;
      throw notFound(join(asked, CONFIG_FILE_NAMES[0]), asked, what, 'Create a sextant.yaml');
    }
    if (present.length > 1) {
      throw new ConfigError(
        'config_ambiguous',
        join(asked, CONFIG_FILE_NAMES[0]),
        [
          fileIssue(
            'ambiguous',
            `both ${CONFIG_FILE_NAMES.join(' and ')} exist, and only one can be the workspace config. ` +
              'Delete or rename one of them, or pass the file you mean.',
          ),
        ],
        asked,
      );
    }
    file = join(asked, present[0]!);
  }
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw unreadable(file, errnoCode(err));
  }
  return parseWorkspaceConfig(text, { path: file, env, ...read });
}

/**
 * Validates the text of a workspace config. `path` is where the text came from: relative paths in it are
 * resolved against its directory, and messages are prefixed with its file name.
 * @throws ConfigError listing every problem found.
 */
export function parseWorkspaceConfig(text: string, opts: { path: string; env?: Env } & ReadOptions): WorkspaceConfig {
  const file = resolve(opts.path);
  const dir = dirname(file);
  const label = basename(file);
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: false });

  if (doc.errors.length > 0) {
    const issues = doc.errors.map((e): ConfigIssue => {
      const { line, col } = lineCounter.linePos(e.pos[0]);
      return { code: 'yaml_syntax', line, column: col, message: `${yamlMessage(e.message)}. ${yamlFix(e.code)}` };
    });
    throw new ConfigError('config_syntax', file, sortIssues(issues), label);
  }

  const r = new Reader(doc, lineCounter, dir, opts.env ?? process.env, opts.forData ?? false);
  const config = readWorkspace(r, file, dir);
  if (r.issues.length > 0 || config === undefined) {
    throw new ConfigError('config_invalid', file, sortIssues(r.issues), label);
  }
  return config;
}

// ---------------------------------------------------------------------------------------------------------------
// Source kinds: one entry per kind.

/** A source map after `name` and `kind` were read. */
interface SourceInput {
  r: Reader;
  name: string;
  /** How messages refer to this source: "source `github`". */
  place: string;
  node: YAMLMap;
  entries: Map<string, Entry>;
}

interface KindSpec {
  /** Keys this kind accepts besides `name` and `kind`, with what each holds. */
  fields: Readonly<Record<string, string>>;
  /** Reads the fields (their keys are already checked), reporting problems; undefined when unusable. */
  read(input: SourceInput): SourceConfig | undefined;
}

/** Every source kind, keyed by its `kind` value. */
export const SOURCE_KINDS = {
  graphql: {
    fields: {
      schema: 'SDL (.graphql, .graphqls, .gql) or introspection (.json) files or directories: a path or a list',
      endpoint: 'an http(s) URL of a live GraphQL endpoint to introspect',
      headers: 'request headers for `endpoint`: a map of name to value, with ${VAR} expanded',
      timeout_ms: `request timeout for \`endpoint\` in milliseconds (default ${DEFAULT_TIMEOUT_MS})`,
      data: 'how data tools reach the API: `endpoint`, `token` (the caller for stdio/CLI), `role`, `role_header`, `allow_mutations`, `allow_anonymous`, `timeout_ms`, `max_bytes`',
      refresh: 'with `endpoint`: how often `sextant index --watch` re-reads the schema, e.g. `15m`, `1h`, `90s` (an unchanged schema is not rewritten)',
      flavor: `how to read the API: ${GRAPHQL_FLAVORS.map((f) => `\`${f}\``).join(', ')} (default \`auto\`: Hugr when the schema is a Hugr schema)`,
    },
    read: readGraphqlSource,
  },
  code: {
    fields: {
      path: 'root directory of the Java / Kotlin source tree (default: the directory of sextant.yaml)',
      include_tests: 'index test source sets (src/test, src/it, …) too: true or false (default false)',
      exclude: 'gitignore-style patterns of files or directories to skip, relative to `path`: a pattern or a list',
      roles: 'role overrides: `annotations: {Annotation: ROLE}` and/or `types: {com.acme.Type: ROLE}`',
      capabilities: 'capabilities to add: `annotations: {Annotation: [CAPABILITY]}` and/or `types: {com.acme.Type: [CAPABILITY]}`',
      links: 'links the source cannot reveal: `clients: {com.acme.Type or com.acme.Type#method(Arg): target-service}` and/or `destinations: {…: topic}`',
    },
    read: readCodeSource,
  },
} as const satisfies Record<SourceConfig['kind'], KindSpec>;

type KindName = keyof typeof SOURCE_KINDS;
const KIND_NAMES = (Object.keys(SOURCE_KINDS) as KindName[]).sort();

function kindSpec(kind: string): KindSpec | undefined {
  return Object.hasOwn(SOURCE_KINDS, kind) ? SOURCE_KINDS[kind as KindName] : undefined;
}

function readGraphqlSource({ r, name, place, node, entries }: SourceInput): GraphqlSourceConfig | undefined {
  const schemaEntry = entries.get('schema');
  const endpointEntry = entries.get('endpoint');
  const schema = readPathList(r, schemaEntry, place);
  const endpoint = readUrl(r, endpointEntry, place);
  const hasSchema = schema !== undefined;
  const hasEndpoint = endpoint !== undefined;

  if (hasSchema && hasEndpoint) {
    r.report(
      'schema_endpoint_conflict',
      [endpointEntry?.keyNode],
      `${place} has both \`schema\` (line ${r.line(schemaEntry?.keyNode)}) and \`endpoint\``,
      'Keep exactly one: `schema` to index schema files, or `endpoint` to introspect a live server.',
    );
  } else if (!hasSchema && !hasEndpoint) {
    r.report(
      'missing_required',
      [node],
      `${place} has neither \`schema\` nor \`endpoint\``,
      'Add `schema: <file or directory>` (SDL .graphql/.graphqls/.gql or introspection .json) ' +
        'or `endpoint: https://…/graphql`.',
    );
  }

  let headers: Record<string, string> | null | undefined;
  let timeout: number | null | undefined;
  if (hasSchema && !hasEndpoint) {
    // Headers and timeouts only matter for requests; with files only, they would be silently ignored.
    for (const key of ['headers', 'timeout_ms'] as const) {
      const e = entries.get(key);
      if (e && (e.broken || !isBlank(e.value))) {
        r.report(
          'field_not_applicable',
          [e.keyNode],
          `\`${key}\` in ${place} applies only to \`endpoint\`, and this source reads \`schema\` files`,
          `Remove \`${key}\`, or replace \`schema\` with \`endpoint\`.`,
        );
      }
    }
  } else {
    headers = readHeaders(r, entries.get('headers'), place);
    timeout = readTimeout(r, entries.get('timeout_ms'), place);
  }

  const flavor = readEnum(r, entries.get('flavor'), `\`flavor\` in ${place}`, GRAPHQL_FLAVORS);
  const data = readDataAccess(r, entries.get('data'), place);
  const refreshEntry = entries.get('refresh');
  let refresh: number | null | undefined;
  if (refreshEntry && !refreshEntry.broken && !isBlank(refreshEntry.value) && !hasEndpoint) {
    r.report('field_not_applicable', [refreshEntry.keyNode], `\`refresh\` in ${place} applies only to \`endpoint\`, and this source reads \`schema\` files`, '`sextant index --watch` re-reads schema files when they change; remove `refresh`.');
    refresh = null;
  } else refresh = readDuration(r, refreshEntry, `\`refresh\` in ${place}`);
  if (schema === null || endpoint === null || headers === null || timeout === null || flavor === null || data === null || refresh === null) return undefined;
  const out: GraphqlSourceConfig = {
    kind: 'graphql',
    name,
    headers: headers ?? {},
    timeout_ms: timeout ?? DEFAULT_TIMEOUT_MS,
  };
  if (flavor && flavor !== 'auto') out.flavor = flavor;
  if (data) out.data = data;
  if (refresh) out.refresh_seconds = refresh;
  if (schema) out.schema = schema;
  if (endpoint) out.endpoint = endpoint;
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// The workspace and its sources

function readWorkspace(r: Reader, file: string, dir: string): WorkspaceConfig | undefined {
  const root = r.deref(r.doc.contents);
  if (isBlank(root)) {
    r.report(
      'missing_required',
      [],
      'the file is empty, and `sources` is required',
      'Add a `sources:` list, e.g. `sources: [{name: api, kind: graphql, schema: schema.graphql}]`.',
    );
    return undefined;
  }
  if (!isMap(root)) {
    r.report(
      'wrong_type',
      [r.doc.contents],
      `the top level must be a map (keys ${TOP_KEYS.map(code).join(', ')}), got ${typeName(root)}`,
      'Start the file with `sources:` at column 1.',
    );
    return undefined;
  }
  const entries = r.entries(root, 'at the top level');
  r.checkKeys(entries, TOP_KEYS, 'at the top level', 'at the top level');

  readVersion(r, entries.get('version'));
  const storeEntry = entries.get('store');
  let store = r.string(storeEntry, '`store`', 'a directory path or a postgres:// URL');
  // A database URL keeps its form, with ${VAR} (its password) expanded; a directory is relative to this file.
  if (typeof store === 'string' && isPostgresLocation(store)) store = readSecretText(r, storeEntry!, '`store`');
  const sources = readSources(r, root, entries.get('sources'));
  const embeddings = readEmbeddings(r, entries.get('embeddings'));

  const config: WorkspaceConfig = { path: file, dir, sources };
  if (typeof store === 'string') config.store = isPostgresLocation(store) ? store.trim() : resolve(dir, store);
  if (embeddings) config.embeddings = embeddings;
  return config;
}

const EMBEDDINGS_KEYS = ['endpoint', 'model', 'dimensions', 'api_key', 'headers', 'batch_size', 'timeout_ms'] as const;
export const DEFAULT_EMBEDDING_BATCH = 64;
const MAX_EMBEDDING_BATCH = 2048;
const MAX_EMBEDDING_DIMENSIONS = 16_000;
const EMBEDDINGS_EXAMPLE = 'e.g.\n  embeddings:\n    endpoint: http://localhost:11434/v1\n    model: nomic-embed-text';

function readEmbeddings(r: Reader, e: Entry | undefined): EmbeddingsConfig | undefined {
  if (!e || e.broken || isBlank(e.value)) return undefined;
  const what = '`embeddings`';
  if (!isMap(e.value)) {
    r.report('wrong_type', [e.valueNode], `${what} must be a map, got ${typeName(e.value)}`, `Write ${EMBEDDINGS_EXAMPLE} (keys: ${EMBEDDINGS_KEYS.join(', ')}).`);
    return undefined;
  }
  const entries = r.entries(e.value, `in ${what}`);
  r.checkKeys(entries, [...EMBEDDINGS_KEYS], `in ${what}`, what);
  const endpointEntry = entries.get('endpoint');
  const modelEntry = entries.get('model');
  if (!endpointEntry || isBlank(endpointEntry.value)) r.report('missing_required', [e.keyNode], `${what} needs \`endpoint\`: the OpenAI-compatible server that makes the vectors`, `Write ${EMBEDDINGS_EXAMPLE}.`);
  if (!modelEntry || isBlank(modelEntry.value)) r.report('missing_required', [e.keyNode], `${what} needs \`model\`: the embedding model the server runs`, `Write ${EMBEDDINGS_EXAMPLE}.`);
  const endpoint = endpointEntry && !isBlank(endpointEntry.value) ? readUrl(r, endpointEntry, what) : undefined;
  const model = r.string(modelEntry, `\`model\` in ${what}`, 'a model name');
  const dimensions = readTimeout(r, entries.get('dimensions'), what, 'dimensions', 'dimensions', 768);
  if (typeof dimensions === 'number' && dimensions > MAX_EMBEDDING_DIMENSIONS) r.report('invalid_value', [entries.get('dimensions')!.valueNode], `\`dimensions\` in ${what} is ${dimensions}; models give at most ${MAX_EMBEDDING_DIMENSIONS}`, 'Write the dimensions of the model, or remove it to take what the model gives.');
  const batch = readTimeout(r, entries.get('batch_size'), what, 'batch_size', 'texts', DEFAULT_EMBEDDING_BATCH);
  if (typeof batch === 'number' && batch > MAX_EMBEDDING_BATCH) r.report('invalid_value', [entries.get('batch_size')!.valueNode], `\`batch_size\` in ${what} is ${batch}; at most ${MAX_EMBEDDING_BATCH} texts go in one request`, `Write e.g. \`batch_size: ${DEFAULT_EMBEDDING_BATCH}\`.`);
  const timeout = readTimeout(r, entries.get('timeout_ms'), what);
  const headers = readHeaders(r, entries.get('headers'), what);
  const keyEntry = entries.get('api_key');
  const apiKey = keyEntry && !keyEntry.broken && !isBlank(keyEntry.value) ? readSecretText(r, keyEntry, `\`api_key\` in ${what}`) : undefined;
  const written = keyEntry && isScalar(keyEntry.value) && typeof keyEntry.value.value === 'string' ? keyEntry.value.value.trim() : undefined;
  const keyVar = written ? /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(written)?.[1] : undefined;
  if (typeof endpoint !== 'string' || typeof model !== 'string' || [dimensions, batch, timeout, headers, apiKey].includes(null)) return undefined;
  if (typeof dimensions === 'number' && dimensions > MAX_EMBEDDING_DIMENSIONS) return undefined;
  if (typeof batch === 'number' && batch > MAX_EMBEDDING_BATCH) return undefined;
  let url: string;
  try {
    url = embeddingsUrl(endpoint);
  } catch {
    return undefined;
  }
  return {
    url,
    model: model.trim(),
    ...(typeof dimensions === 'number' ? { dimensions } : {}),
    ...(typeof apiKey === 'string' && apiKey !== '' ? { api_key: apiKey } : {}),
    ...(keyVar ? { api_key_env: keyVar } : {}),
    headers: headers ?? {},
    batch_size: typeof batch === 'number' ? batch : DEFAULT_EMBEDDING_BATCH,
    timeout_ms: typeof timeout === 'number' ? timeout : DEFAULT_TIMEOUT_MS,
  };
}

function readVersion(r: Reader, e: Entry | undefined): void {
  if (!e || e.broken || isBlank(e.value)) return;
  const v = isScalar(e.value) ? e.value.value : undefined;
  if (v === SUPPORTED_VERSION || (typeof v === 'string' && v.trim() === String(SUPPORTED_VERSION))) return;
  if (typeof v === 'number' || typeof v === 'string') {
    r.report(
      'unsupported_version',
      [e.valueNode],
      `\`version: ${String(v)}\` is not supported: this Sextant reads version ${SUPPORTED_VERSION}`,
      `Set \`version: ${SUPPORTED_VERSION}\`, or remove the line.`,
    );
    return;
  }
  r.report(
    'wrong_type',
    [e.valueNode],
    `\`version\` must be the number ${SUPPORTED_VERSION}, got ${typeName(e.value)}`,
    `Write \`version: ${SUPPORTED_VERSION}\`, or remove the line.`,
  );
}

function readSources(r: Reader, root: YAMLMap, e: Entry | undefined): SourceConfig[] {
  const howTo = 'List at least one source under `sources:`, each with `name`, `kind` and `schema` or `endpoint`.';
  if (e?.broken) return [];
  if (!e || isBlank(e.value)) {
    r.report('missing_required', [e?.keyNode ?? root], e ? '`sources` is empty' : '`sources` is missing', howTo);
    return [];
  }
  if (!isSeq(e.value)) {
    r.report(
      'wrong_type',
      [e.valueNode],
      `\`sources\` must be a list, got ${typeName(e.value)}`,
      isMap(e.value)
        ? 'Start each source with `- `, and give its name as a key, e.g. `- name: github`.'
        : howTo,
    );
    return [];
  }
  if (e.value.items.length === 0) {
    r.report('missing_required', [e.valueNode], '`sources` is an empty list', howTo);
    return [];
  }

  const out: SourceConfig[] = [];
  const seen = new Map<string, { name: string; line: number }>();
  e.value.items.forEach((raw, i) => {
    const item = r.deref(raw);
    const at = [raw, e.valueNode];
    if (r.isBadAlias(raw)) return;
    if (isBlank(item)) {
      const fix = 'Give it `name`, `kind` and `schema` or `endpoint`, or remove the `-`.';
      r.report('missing_required', at, `\`sources[${i}]\` is empty`, fix);
      return;
    }
    if (!isMap(item)) {
      r.report(
        'wrong_type',
        at,
        `\`sources[${i}]\` must be a map, got ${typeName(item)}`,
        'Write each source as keys under its `-`, e.g. `- name: api` then `kind: graphql` indented below.',
      );
      return;
    }
    const named = readSource(r, item, i);
    if (named.nameNode && named.name !== undefined) {
      const key = named.name.toLowerCase();
      const first = seen.get(key);
      if (first) {
        r.report(
          'duplicate_name',
          [named.nameNode],
          `source name \`${named.name}\` is already used by the source at line ${first.line}` +
            (first.name === named.name ? '' : ` (\`${first.name}\`; names are compared ignoring case)`),
          'Give each source a unique name.',
        );
      } else {
        seen.set(key, { name: named.name, line: r.line(named.nameNode) });
      }
    }
    if (named.source) out.push(named.source);
  });
  return out;
}

function readSource(
  r: Reader,
  node: YAMLMap,
  index: number,
): { source?: SourceConfig; name?: string; nameNode?: unknown } {
  const entries = r.entries(node, `in \`sources[${index}]\``);
  const nameEntry = entries.get('name');
  let name = r.string(nameEntry, `\`name\` in \`sources[${index}]\``, 'a source name');
  if (name === undefined) {
    r.report(
      'missing_required',
      [node],
      `\`sources[${index}]\` has no \`name\``,
      'Add `name: <name>`: letters, digits, `_`, `.` and `-`, starting with a letter or digit.',
    );
  } else if (name !== null && !SOURCE_NAME_PATTERN.test(name)) {
    const slug = name
      .toLowerCase()
      .replace(/[^a-z0-9_.-]+/g, '-')
      .replace(/^[^a-z0-9]+/, '')
      .replace(/-+$/, '');
    r.report(
      'invalid_name',
      [nameEntry?.valueNode],
      `source name \`${name}\` does not match ${String(SOURCE_NAME_PATTERN)}`,
      'Use letters, digits, `_`, `.` and `-`, starting with a letter or digit' + (slug ? `, e.g. \`${slug}\`.` : '.'),
    );
    name = null;
  }
  const place = typeof name === 'string' ? `source \`${name}\`` : `\`sources[${index}]\``;
  const result = { name: name ?? undefined, nameNode: typeof name === 'string' ? nameEntry?.valueNode : undefined };

  const kindEntry = entries.get('kind');
  const kind = r.string(kindEntry, `\`kind\` in ${place}`, 'a source kind');
  let spec: KindSpec | undefined;
  if (kind === undefined) {
    const fix = `Add \`kind:\` with one of the known kinds: ${KIND_NAMES.map(code).join(', ')} (\`code\` for a Java/Kotlin tree, \`graphql\` for a schema or endpoint).`;
    r.report('missing_required', [node], `${place} has no \`kind\``, fix);
  } else if (typeof kind === 'string') {
    spec = kindSpec(kind);
    if (!spec) {
      const near = closest(kind, KIND_NAMES, 1)[0];
      r.report(
        'unknown_kind',
        [kindEntry?.valueNode],
        `unknown source kind \`${kind}\` in ${place}`,
        (near ? `Did you mean \`${near}\`? ` : '') + `Known kinds: ${KIND_NAMES.map(code).join(', ')}.`,
      );
    }
  }

  if (spec) {
    const valid = [...COMMON_SOURCE_KEYS, ...Object.keys(spec.fields)];
    r.checkKeys(entries, valid, `in ${place}`, `for a ${kind} source`);
    // Read the fields even when the name is unusable, so that their problems are reported too.
    const source = spec.read({ r, name: name ?? '', place, node, entries });
    if (source && typeof name === 'string') return { ...result, source };
  } else {
    // Without a known kind we cannot tell which fields apply; still flag keys that no kind accepts.
    const kindKeys = KIND_NAMES.flatMap((k) => Object.keys(SOURCE_KINDS[k].fields));
    const all = [...new Set([...COMMON_SOURCE_KEYS, ...kindKeys])];
    r.checkKeys(entries, all, `in ${place}`, 'for a source');
  }
  return result;
}

function readCodeSource({ r, name, place, entries }: SourceInput): CodeSourceConfig | undefined {
  const pathEntry = entries.get('path');
  const path = r.string(pathEntry, `\`path\` in ${place}`, 'a directory');
  const includeTests = readBoolean(r, entries.get('include_tests'), `\`include_tests\` in ${place}`);
  const exclude = readStringList(r, entries.get('exclude'), `\`exclude\` in ${place}`);
  const roles = readOverrideMap(r, entries.get('roles'), `\`roles\` in ${place}`, ROLES.filter((x) => x !== 'OTHER'), false);
  const capabilities = readOverrideMap(r, entries.get('capabilities'), `\`capabilities\` in ${place}`, CAPABILITIES, true);
  const links = readLinks(r, entries.get('links'), `\`links\` in ${place}`);
  if (path === null || includeTests === null || exclude === null || roles === null || capabilities === null || links === null) return undefined;
  return {
    kind: 'code',
    name,
    path: resolve(r.dir, path ?? '.'),
    include_tests: includeTests ?? false,
    exclude: exclude ?? [],
    roles: (roles as CodeSourceConfig['roles'] | undefined) ?? { annotations: {}, types: {} },
    capabilities: (capabilities as CodeSourceConfig['capabilities'] | undefined) ?? { annotations: {}, types: {} },
    links: links ?? { clients: {}, destinations: {} },
  };
}

/** `{clients: {qualified name: service}, destinations: {qualified name: destination}}`, non-empty strings. */
function readLinks(r: Reader, e: Entry | undefined, what: string): CodeLinkPins | null | undefined {
  if (e?.broken) return null;
  if (!e || isBlank(e.value)) return undefined;
  if (!isMap(e.value)) {
    r.report('wrong_type', [e.valueNode], `${what} must be a map with \`clients\` and/or \`destinations\`, got ${typeName(e.value)}`, 'Write e.g. `clients: {com.acme.orders.StockClient: inventory-service}`.');
    return null;
  }
  const out: CodeLinkPins = { clients: {}, destinations: {} };
  let ok = true;
  const groups = r.entries(e.value, `in ${what}`);
  r.checkKeys(groups, ['clients', 'destinations'], `in ${what}`, what);
  for (const [group, g] of groups) {
    if (group !== 'clients' && group !== 'destinations') continue;
    if (isBlank(g.value)) continue;
    const target = group === 'clients' ? 'a service name' : 'a topic, queue or destination';
    if (!isMap(g.value)) {
      r.report('wrong_type', [g.valueNode], `\`${group}\` in ${what} must be a map of qualified name to ${target}, got ${typeName(g.value)}`, `Write e.g. \`com.acme.orders.StockClient: ${group === 'clients' ? 'inventory-service' : 'orders.events'}\`.`);
      ok = false;
      continue;
    }
    for (const [key, item] of r.entries(g.value, `in \`${group}\` of ${what}`)) {
      const v = item.value;
      const text = isScalar(v) && (typeof v.value === 'string' || typeof v.value === 'number') ? String(v.value).trim() : undefined;
      if (!text) {
        r.report('wrong_type', [item.valueNode], `\`${key}\` in ${what} must map to ${target}, got ${typeName(v)}`, 'Give the name as a string.');
        ok = false;
        continue;
      }
      out[group][key] = text;
    }
  }
  return ok ? out : null;
}

const DATA_KEYS = ['endpoint', 'token', 'role', 'role_header', 'allow_mutations', 'allow_anonymous', 'timeout_ms', 'max_bytes'] as const;
export const DEFAULT_MAX_BYTES = 20_000;
export const DEFAULT_ROLE_HEADER = 'x-hugr-role';

/** Data access of a GraphQL source that has no `data` block. */
export function defaultDataConfig(): GraphqlDataConfig {
  return { role_header: DEFAULT_ROLE_HEADER, allow_mutations: false, allow_anonymous: false, timeout_ms: DEFAULT_TIMEOUT_MS, max_bytes: DEFAULT_MAX_BYTES };
}

function readDataAccess(r: Reader, e: Entry | undefined, place: string): GraphqlDataConfig | null | undefined {
  if (e?.broken) return null;
  if (!e || isBlank(e.value)) return undefined;
  const what = `\`data\` of ${place}`;
  if (!isMap(e.value)) {
    r.report('wrong_type', [e.valueNode], `${what} must be a map, got ${typeName(e.value)}`, 'Write e.g. `data: {token: ${HUGR_USER_TOKEN}}` (keys: ' + DATA_KEYS.join(', ') + ').');
    return null;
  }
  const entries = r.entries(e.value, `in ${what}`);
  r.checkKeys(entries, [...DATA_KEYS], `in ${what}`, what);
  const endpoint = readUrl(r, entries.get('endpoint'), what);
  // The token is the caller's for stdio and the CLI only: indexing never needs it, and a server on HTTP uses each
  // request's own. An unset variable is remembered, for the data tools to say so, rather than failing the config.
  const tokenEntry = entries.get('token');
  let tokenUnset: string[] | undefined;
  if (tokenEntry && !tokenEntry.broken && isScalar(tokenEntry.value) && typeof tokenEntry.value.value === 'string') {
    const expanded = expandEnv(tokenEntry.value.value, r.env);
    if (!expanded.ok && expanded.unset) tokenUnset = expanded.unset;
  }
  const token = tokenUnset ? undefined : tokenEntry?.broken ? null : !tokenEntry || isBlank(tokenEntry.value) ? undefined : readSecretText(r, tokenEntry, `\`token\` in ${what}`);
  const role = r.string(entries.get('role'), `\`role\` in ${what}`, 'a role name');
  const roleHeader = r.string(entries.get('role_header'), `\`role_header\` in ${what}`, 'an HTTP header name');
  if (typeof roleHeader === 'string' && !HEADER_NAME.test(roleHeader)) {
    r.report('invalid_value', [entries.get('role_header')!.valueNode], `\`role_header\` in ${what} is not a valid HTTP header name: \`${roleHeader}\``, 'Use letters, digits and `-`, e.g. `x-hugr-role`.');
    return null;
  }
  const allowMutations = readBoolean(r, entries.get('allow_mutations'), `\`allow_mutations\` in ${what}`);
  const allowAnonymous = readBoolean(r, entries.get('allow_anonymous'), `\`allow_anonymous\` in ${what}`);
  const timeout = readTimeout(r, entries.get('timeout_ms'), what);
  const maxBytes = readTimeout(r, entries.get('max_bytes'), what, 'max_bytes', 'bytes', DEFAULT_MAX_BYTES);
  if ([endpoint, token, role, roleHeader, allowMutations, allowAnonymous, timeout, maxBytes].includes(null)) return null;
  const defaults = defaultDataConfig();
  const out: GraphqlDataConfig = {
    role_header: roleHeader ?? defaults.role_header,
    allow_mutations: allowMutations ?? defaults.allow_mutations,
    allow_anonymous: allowAnonymous ?? defaults.allow_anonymous,
    timeout_ms: timeout ?? defaults.timeout_ms,
    max_bytes: maxBytes ?? defaults.max_bytes,
  };
  if (endpoint) out.endpoint = endpoint;
  if (token) out.token = token;
  if (tokenUnset) out.token_unset = tokenUnset;
  if (role) out.role = role;
  return out;
}

const MIN_REFRESH_SECONDS = 10;
/** Timers take at most 2^31-1 ms (24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;
const MAX_REFRESH_SECONDS = 24 * 86400;
const DURATION_UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/** A duration like `90s`, `15m`, `1h` or `1d`, in seconds (at least MIN_REFRESH_SECONDS). */
function readDuration(r: Reader, e: Entry | undefined, what: string): number | null | undefined {
  if (e?.broken) return null;
  if (!e || isBlank(e.value)) return undefined;
  const v = isScalar(e.value) ? String(e.value.value).trim() : undefined;
  const m = v !== undefined ? /^(\d+)\s*([smhd])$/.exec(v) : null;
  const seconds = m ? Number(m[1]) * DURATION_UNITS[m[2]!]! : undefined;
  if (seconds !== undefined && seconds >= MIN_REFRESH_SECONDS && seconds <= MAX_REFRESH_SECONDS) return seconds;
  r.report(
    'invalid_value',
    [e.valueNode],
    `${what} must be a duration from ${MIN_REFRESH_SECONDS}s to ${MAX_REFRESH_SECONDS / 86400}d, like \`90s\`, \`15m\`, \`1h\` or \`1d\`, got ${v !== undefined ? `\`${v}\`` : typeName(e.value)}`,
    'Write a whole number followed by s, m, h or d, e.g. `refresh: 15m`.',
  );
  return null;
}

function readEnum<T extends string>(r: Reader, e: Entry | undefined, what: string, allowed: readonly T[]): T | null | undefined {
  if (e?.broken) return null;
  if (!e || isBlank(e.value)) return undefined;
  const v = isScalar(e.value) ? e.value.value : undefined;
  if (typeof v === 'string' && (allowed as readonly string[]).includes(v)) return v as T;
  const near = typeof v === 'string' ? closest(v, allowed, 1)[0] : undefined;
  r.report(
    'invalid_value',
    [e.valueNode],
    `${what} must be one of ${allowed.map((a) => `\`${a}\``).join(', ')}, got ${isScalar(e.value) ? `\`${String(v)}\`` : typeName(e.value)}`,
    near ? `Did you mean \`${near}\`?` : `Write one of ${allowed.join(', ')}.`,
  );
  return null;
}

function readBoolean(r: Reader, e: Entry | undefined, what: string): boolean | null | undefined {
  if (e?.broken) return null;
  if (!e || isBlank(e.value)) return undefined;
  const v = isScalar(e.value) ? e.value.value : undefined;
  if (typeof v === 'boolean') return v;
  if (v === 'true' || v === 'false') return v === 'true';
  r.report('wrong_type', [e.valueNode], `${what} must be true or false, got ${isScalar(e.value) ? `\`${String(v)}\`` : typeName(e.value)}`, 'Write `true` or `false`.');
  return null;
}

function readStringList(r: Reader, e: Entry | undefined, what: string): string[] | null | undefined {
  if (e?.broken) return null;
  if (!e || isBlank(e.value)) return undefined;
  const v = e.value;
  if (isScalar(v) && typeof v.value === 'string') return [v.value];
  if (isSeq(v)) {
    const out: string[] = [];
    for (const raw of v.items) {
      const item = r.deref(raw);
      if (isScalar(item) && typeof item.value === 'string') out.push(item.value);
      else {
        r.report('wrong_type', [raw, e.valueNode], `every item of ${what} must be a string, got ${typeName(item)}`, 'Quote the value to make it a string.');
        return null;
      }
    }
    return out;
  }
  r.report('wrong_type', [e.valueNode], `${what} must be a string or a list of strings, got ${typeName(v)}`, 'Write `exclude: [legacy/, "**/*Generated.java"]`.');
  return null;
}

/** `{annotations: {Name: VALUE}, types: {qualified.Name: VALUE}}`; VALUE a list of values when `list`. */
function readOverrideMap(r: Reader, e: Entry | undefined, what: string, allowed: readonly string[], list: boolean): Record<string, Record<string, unknown>> | null | undefined {
  if (e?.broken) return null;
  if (!e || isBlank(e.value)) return undefined;
  if (!isMap(e.value)) {
    r.report('wrong_type', [e.valueNode], `${what} must be a map with \`annotations\` and/or \`types\`, got ${typeName(e.value)}`, `Write e.g. \`annotations: {DomainService: ${allowed[0]}}\`.`);
    return null;
  }
  const out: Record<string, Record<string, unknown>> = { annotations: {}, types: {} };
  let ok = true;
  const groups = r.entries(e.value, `in ${what}`);
  r.checkKeys(groups, ['annotations', 'types'], `in ${what}`, what);
  for (const [group, g] of groups) {
    if (group !== 'annotations' && group !== 'types') continue;
    if (isBlank(g.value)) continue;
    if (!isMap(g.value)) {
      r.report('wrong_type', [g.valueNode], `\`${group}\` in ${what} must be a map of name to ${list ? 'a list of values' : 'a value'}, got ${typeName(g.value)}`, `Allowed values: ${allowed.join(', ')}.`);
      ok = false;
      continue;
    }
    for (const [key, item] of r.entries(g.value, `in \`${group}\` of ${what}`)) {
      const raw = item.value;
      const values = isSeq(raw) ? raw.items.map((x) => r.deref(x)) : [raw];
      const texts: string[] = [];
      for (const v of values) {
        const text = isScalar(v) && typeof v.value === 'string' ? v.value.trim().toUpperCase() : undefined;
        if (text === undefined || !allowed.includes(text)) {
          const near = text ? closest(text, allowed, 1)[0] : undefined;
          r.report('invalid_value', [item.valueNode], `\`${key}\` in ${what} has ${text === undefined ? typeName(v) : `\`${text}\``}, which is not one of ${allowed.join(', ')}`, near ? `Did you mean \`${near}\`?` : `Use one of ${allowed.join(', ')}.`);
          ok = false;
          continue;
        }
        texts.push(text);
      }
      if (!list && texts.length > 1) {
        r.report('invalid_value', [item.valueNode], `\`${key}\` in ${what} gives several roles`, 'A type has one role: give one value.');
        ok = false;
      }
      out[group]![key] = list ? texts : texts[0];
    }
  }
  return ok ? out : null;
}

// ---------------------------------------------------------------------------------------------------------------
// Field readers. Each returns undefined when the field is absent (or blank), null when it is present but invalid
// (after reporting why), or the value.

function readPathList(r: Reader, e: Entry | undefined, place: string): string[] | null | undefined {
  if (e?.broken) return null;
  if (!e || isBlank(e.value)) return undefined;
  const what = `\`schema\` in ${place}`;
  let paths: string[] = [];
  const v = e.value;
  if (isScalar(v) && typeof v.value === 'string') {
    const text = v.value.trim();
    if (text.startsWith('[') && text.endsWith(']')) {
      const list = parseJsonStringList(text);
      if (!list) {
        r.report(
          'invalid_value',
          [e.valueNode],
          `${what} looks like a list written as text, but is not a JSON list of strings`,
          'Write it as a YAML list: `schema: [a.graphql, b.graphql]`.',
        );
        return null;
      }
      paths = list;
    } else {
      paths = [v.value];
    }
  } else if (isSeq(v)) {
    let ok = true;
    v.items.forEach((raw, j) => {
      const item = r.deref(raw);
      if (isBlank(item)) return;
      if (isScalar(item) && typeof item.value === 'string') {
        paths.push(item.value);
        return;
      }
      ok = false;
      r.report(
        'wrong_type',
        [raw, e.valueNode],
        `\`schema[${j}]\` in ${place} must be a path (a string), got ${typeName(item)}`,
        isScalar(item) ? 'Quote the value to make it a string.' : 'Write one path per list item.',
      );
    });
    if (!ok) return null;
  } else {
    r.report(
      'wrong_type',
      [e.valueNode],
      `${what} must be a path or a list of paths, got ${typeName(v)}`,
      isScalar(v)
        ? 'Quote the value to make it a string.'
        : 'Write `schema: schema.graphql` or `schema: [a.graphql, b.graphql]`.',
    );
    return null;
  }
  const resolved = [...new Set(paths.filter((p) => p.trim() !== '').map((p) => resolve(r.dir, p)))];
  return resolved.length > 0 ? resolved : undefined;
}

function readUrl(r: Reader, e: Entry | undefined, place: string): string | null | undefined {
  const s = r.string(e, `\`endpoint\` in ${place}`, 'an http(s) URL');
  if (typeof s !== 'string') return s;
  const example = 'Write an absolute http(s) URL, e.g. `https://api.example.com/graphql`.';
  const envNote = s.includes('${') ? ' Environment variables are expanded only in `headers` and `data.token`.' : '';
  let url: URL;
  try {
    url = new URL(s.trim());
  } catch {
    // The URL itself is not echoed: it may carry credentials or tokens.
    r.report('invalid_value', [e?.valueNode], `\`endpoint\` in ${place} is not a valid URL`, example + envNote);
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    r.report(
      'invalid_value',
      [e?.valueNode],
      `\`endpoint\` in ${place} must use http or https, got \`${url.protocol.slice(0, -1)}\``,
      example + envNote,
    );
    return null;
  }
  return s.trim();
}

function readHeaders(r: Reader, e: Entry | undefined, place: string): Record<string, string> | null | undefined {
  if (e?.broken) return null;
  if (!e || isBlank(e.value)) return undefined;
  if (!isMap(e.value)) {
    r.report(
      'wrong_type',
      [e.valueNode],
      `\`headers\` in ${place} must be a map of header name to value, got ${typeName(e.value)}`,
      'Write one `Name: value` per line, indented under `headers:`.',
    );
    return null;
  }
  let ok = true;
  const out = new Map<string, string>();
  const byLower = new Map<string, Entry>();
  for (const [name, h] of r.entries(e.value, `in the \`headers\` of ${place}`)) {
    const header = `header \`${name}\` of ${place}`;
    if (!HEADER_NAME.test(name)) {
      ok = false;
      r.report(
        'invalid_value',
        [h.keyNode],
        `\`${name}\` in the \`headers\` of ${place} is not a valid HTTP header name`,
        'Use letters, digits and `-`, e.g. `X-Api-Key`.',
      );
      continue;
    }
    const twin = byLower.get(name.toLowerCase());
    if (twin) {
      ok = false;
      r.report(
        'duplicate_key',
        [h.keyNode],
        `${header} repeats \`${twin.key}\` (line ${r.line(twin.keyNode)}): HTTP header names ignore case`,
        'Keep one of them.',
      );
      continue;
    }
    byLower.set(name.toLowerCase(), h);
    if (h.broken) {
      ok = false;
      continue;
    }
    if (isBlank(h.value)) continue;
    if (r.forData && isScalar(h.value) && typeof h.value.value === 'string') {
      const expanded = expandEnv(h.value.value, r.env);
      if (!expanded.ok) continue;
    }
    const value = readSecretText(r, h, header);
    if (value === null) ok = false;
    else out.set(name, value);
  }
  return ok ? Object.fromEntries(out) : null;
}

/**
 * A string that may hold a credential: `${VAR}` expanded from the environment. Problems are reported without ever
 * echoing the value or anything expanded into it. `label` names the entry (e.g. "header `X` of source `a`").
 */
function readSecretText(r: Reader, h: Entry, label: string): string | null {
  if (!isScalar(h.value) || typeof h.value.value !== 'string') {
    r.report('wrong_type', [h.valueNode], `${label} must be a string, got ${typeName(h.value)}`, isScalar(h.value) ? 'Quote the value to make it a string.' : 'Give it a single string value.');
    return null;
  }
  const expanded = expandEnv(h.value.value, r.env);
  if (expanded.ok) return expanded.value;
  if (expanded.syntax !== undefined) {
    r.report('env_syntax', [h.valueNode], `${label} has a malformed variable reference: ${expanded.syntax}`, 'Write `${VAR}` or `${VAR:-default}`, and `$${` for a literal `${`.');
    return null;
  }
  const vars = expanded.unset;
  const one = vars.length === 1;
  r.report(
    'env_unset',
    [h.valueNode],
    `${label} uses environment variable${one ? '' : 's'} ${vars.map(code).join(', ')}, which ${one ? 'is' : 'are'} not set`,
    one ? `Set ${code(vars[0]!)} in the environment, or give a default: \`\${${vars[0]}:-…}\`.` : `Set them in the environment, or give defaults: \`\${${vars[0]}:-…}\`.`,
  );
  return null;
}

function readTimeout(r: Reader, e: Entry | undefined, place: string, key = 'timeout_ms', unit = 'milliseconds', fallback = DEFAULT_TIMEOUT_MS): number | null | undefined {
  if (e?.broken) return null;
  if (!e || isBlank(e.value)) return undefined;
  const v = isScalar(e.value) ? e.value.value : undefined;
  let n: number | undefined;
  if (typeof v === 'number') n = v;
  else if (typeof v === 'string' && /^\s*\d+\s*$/.test(v)) n = Number(v);
  const max = unit === 'milliseconds' ? MAX_TIMER_MS : Number.MAX_SAFE_INTEGER;
  if (n !== undefined && Number.isSafeInteger(n) && n > 0 && n <= max) return n;
  const what = `\`${key}\` in ${place} must be a positive whole number of ${unit}${unit === 'milliseconds' ? ` up to ${MAX_TIMER_MS}` : ''}`;
  const fix = `Write e.g. \`${key}: ${fallback}\`, or remove it for the default (${fallback}).`;
  if (typeof v === 'number' || typeof v === 'string') {
    r.report('invalid_value', [e.valueNode], `${what}, got \`${String(v)}\``, fix);
  } else {
    r.report('wrong_type', [e.valueNode], `${what}, got ${typeName(e.value)}`, fix);
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------------------
// Walking the YAML tree

interface Entry {
  key: string;
  keyNode: Node;
  /** The value with aliases resolved; null when there is none. */
  value: Node | null;
  /** The value as written (an alias stays an alias), for positions; falls back to the key. */
  valueNode: unknown;
  /** The value is an alias to no anchor (already reported): present, but unusable. */
  broken: boolean;
}

class Reader {
  readonly issues: ConfigIssue[] = [];

  constructor(
    readonly doc: Document,
    private readonly lineCounter: LineCounter,
    readonly dir: string,
    readonly env: Env,
    readonly forData = false,
  ) {}

  private readonly badAliases = new Set<unknown>();

  /** The node with aliases resolved, or null. An alias to no anchor is reported (once) and yields null. */
  deref(node: unknown): Node | null {
    let n: unknown = node;
    for (let hops = 0; isAlias(n) && hops < 100; hops++) {
      const target: unknown = n.resolve(this.doc);
      if (target === undefined && !this.badAliases.has(n)) {
        this.badAliases.add(n);
        this.report(
          'invalid_value',
          [n],
          `the alias \`*${n.source}\` refers to no anchor`,
          `Define \`&${n.source}\` on a value above it, or write the value out.`,
        );
      }
      n = target;
    }
    return isNode(n) && !isAlias(n) ? n : null;
  }

  /** Whether `node` is an alias to no anchor (reported by `deref`). */
  isBadAlias(node: unknown): boolean {
    return this.badAliases.has(node);
  }

  /** 1-based line and column of the first of `nodes` with a position, else 1:1. */
  pos(nodes: readonly unknown[]): { line: number; column: number } {
    for (const n of nodes) {
      if (isNode(n) && n.range) {
        const { line, col } = this.lineCounter.linePos(n.range[0]);
        return { line, column: col };
      }
    }
    return { line: 1, column: 1 };
  }

  line(node: unknown): number {
    return this.pos([node]).line;
  }

  report(code: ConfigIssueCode, at: readonly unknown[], what: string, fix: string): void {
    this.issues.push({ code, ...this.pos(at), message: `${what}. ${fix}` });
  }

  /** The map's entries by key, in order; reports keys that are not strings and keys given twice. */
  entries(map: YAMLMap, where: string): Map<string, Entry> {
    const out = new Map<string, Entry>();
    for (const pair of map.items) {
      const keyNode = this.deref(pair.key);
      if (!isScalar(keyNode) || keyNode.value === null || typeof keyNode.value === 'object') {
        this.report(
          'wrong_type',
          [pair.key, map],
          `a key ${where} must be a name, got ${typeName(keyNode)}`,
          'Write keys as plain words followed by `:`.',
        );
        continue;
      }
      const key = String(keyNode.value);
      const value = this.deref(pair.value);
      const valueNode = isNode(pair.value) && pair.value.range ? pair.value : keyNode;
      const entry: Entry = { key, keyNode, value, valueNode, broken: this.isBadAlias(pair.value) };
      const first = out.get(key);
      if (first) {
        this.report(
          'duplicate_key',
          [keyNode],
          `\`${key}\` is given twice ${where} (first at line ${this.line(first.keyNode)})`,
          'Keep one of them.',
        );
        continue;
      }
      out.set(key, entry);
    }
    return out;
  }

  /** Reports every key not in `valid`, with the nearest valid spelling and the full list. */
  checkKeys(entries: Map<string, Entry>, valid: readonly string[], where: string, validFor: string): void {
    for (const [key, e] of entries) {
      if (valid.includes(key)) continue;
      const near = closest(key, valid, 1)[0];
      const hint =
        key === '<<'
          ? 'Merge keys (`<<`) are not supported; write the keys out. '
          : near
            ? `Did you mean \`${near}\`? `
            : '';
      const fix = `${hint}Valid keys ${validFor}: ${valid.map(code).join(', ')}.`;
      this.report('unknown_key', [e.keyNode], `unknown key \`${key}\` ${where}`, fix);
    }
  }

  /**
   * A string field: undefined when absent or blank, null when present with another type (reported), else the
   * string as written. `what` names the field in messages; `expected` is what it should hold.
   */
  string(e: Entry | undefined, what: string, expected: string): string | null | undefined {
    if (e?.broken) return null;
    if (!e || isBlank(e.value)) return undefined;
    if (isScalar(e.value) && typeof e.value.value === 'string') return e.value.value;
    this.report(
      'wrong_type',
      [e.valueNode],
      `${what} must be ${expected} (a string), got ${typeName(e.value)}`,
      isScalar(e.value) ? 'Quote the value to make it a string.' : 'Give it a single string value.',
    );
    return null;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Helpers

function isBlank(node: Node | null): boolean {
  if (node === null) return true;
  if (!isScalar(node)) return false;
  return node.value === null || (typeof node.value === 'string' && node.value.trim() === '');
}

/** What a node holds, for "expected X, got Y" — never its value. */
function typeName(node: Node | null): string {
  if (node === null) return 'nothing';
  if (isMap(node)) return 'a map';
  if (isSeq(node)) return 'a list';
  if (isScalar(node)) {
    const v = node.value;
    if (v === null) return 'null';
    if (typeof v === 'string') return 'a string';
    if (typeof v === 'boolean') return 'a boolean';
    if (typeof v === 'number') return Number.isInteger(v) ? 'an integer' : 'a number';
    return typeof v;
  }
  return 'an unsupported YAML node';
}

function code(s: string): string {
  return `\`${s}\``;
}

function parseJsonStringList(text: string): string[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  return Array.isArray(parsed) && parsed.every((x): x is string => typeof x === 'string') ? parsed : undefined;
}

function sortIssues(issues: ConfigIssue[]): ConfigIssue[] {
  return issues
    .map((issue, i) => ({ issue, i }))
    .sort(
      (a, b) =>
        (a.issue.line ?? 0) - (b.issue.line ?? 0) || (a.issue.column ?? 0) - (b.issue.column ?? 0) || a.i - b.i,
    )
    .map((x) => x.issue);
}

/** The YAML library's message without quoted source text (which could hold a secret) or a final period. */
function yamlMessage(message: string): string {
  return message
    .replace(/"[^"\n]*"/g, '"…"')
    .replace(/(extra characters):.*$/s, '$1')
    .replace(/[\s.]+$/, '');
}

function yamlFix(code: string): string {
  switch (code) {
    case 'TAB_AS_INDENT':
      return 'Indent with spaces, not tabs.';
    case 'MULTIPLE_DOCS':
      return 'Keep a single YAML document: remove the second `---` and what follows, or merge it into the first.';
    case 'BAD_DQ_ESCAPE':
      return 'Use single quotes, or escape the backslash as `\\\\`.';
    case 'BAD_ALIAS':
      return 'Define the anchor (`&name`) before using it (`*name`).';
    default:
      return 'Fix the YAML syntax here: check indentation, `:` after keys, and that quotes and brackets are closed.';
  }
}

function fileIssue(code: ConfigIssueCode, message: string): ConfigIssue {
  return { code, line: undefined, column: undefined, message };
}

/** `label` leads the message (`/abs/path: not found. …`); `path` is the file the error is about. */
function notFound(path: string, label: string, what: string, create = 'Create it'): ConfigError {
  return new ConfigError(
    'config_not_found',
    path,
    [
      fileIssue(
        'not_found',
        `${what}. ${create} with a \`sources:\` list, or run \`sextant index <dir>\`, which also works without a config.`,
      ),
    ],
    label,
  );
}

function unreadable(path: string, errno: string | undefined): ConfigError {
  return new ConfigError('config_unreadable', path, [
    fileIssue('unreadable', `cannot be read${errno ? ` (${errno})` : ''}. Check that it is a readable file.`),
  ]);
}

function errnoCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
}

function isFile(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isFile() ?? false;
  } catch {
    return false;
  }
}
