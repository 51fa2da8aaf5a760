import YAML from 'yaml';

export interface SpringConfigFile {
  path: string;
  /** `application-dev.yml` → 'dev'; a document's `spring.config.activate.on-profile` too; null = default. */
  profile: string | null;
  kind: 'application' | 'bootstrap';
  /** Flattened keys: `a.b.c`, lists as `a.b[0]`. */
  values: Map<string, string>;
}

type Document = Map<string, string>;

const FILE_NAME = /^(application|bootstrap)(?:-([^.]+))?\.(ya?ml|properties)$/;
const PROFILE_KEYS = ['spring.config.activate.on-profile', 'spring.profiles'];
const NULL_SCALARS = new Set(['~', 'null', 'Null', 'NULL']);

/**
 * One entry per profile the file speaks for (documents with the same profile merged in order, later wins),
 * in order of first appearance; always at least one entry for the file's own profile.
 */
export function parseSpringConfig(path: string, text: string, warnings: string[]): SpringConfigFile[] {
  const { kind, profile, format } = describeFileName(path);
  const documents = format === 'properties' ? parseProperties(path, text, warnings) : parseYaml(path, text, warnings);
  const byProfile = new Map<string | null, Document>();
  for (const doc of documents) {
    const key = combineProfiles(profile, documentProfile(doc));
    const merged = byProfile.get(key) ?? new Map<string, string>();
    for (const [k, v] of doc) merged.set(k, v);
    byProfile.set(key, merged);
  }
  if (byProfile.size === 0) byProfile.set(profile, new Map());
  return [...byProfile].map(([p, values]) => ({ path, profile: p, kind, values }));
}

function describeFileName(path: string): { kind: SpringConfigFile['kind']; profile: string | null; format: 'yaml' | 'properties' } {
  const match = FILE_NAME.exec(path.slice(path.lastIndexOf('/') + 1));
  const format = path.endsWith('.properties') ? 'properties' : 'yaml';
  if (!match) return { kind: 'application', profile: null, format };
  return { kind: match[1] === 'bootstrap' ? 'bootstrap' : 'application', profile: match[2] ?? null, format };
}

function documentProfile(doc: Document): string | null {
  for (const key of PROFILE_KEYS) {
    const value = doc.get(key) ?? listValue(doc, key);
    if (value) return value;
  }
  return null;
}

function listValue(doc: Document, key: string): string | undefined {
  const items: string[] = [];
  for (let i = 0; doc.has(`${key}[${i}]`); i++) items.push(doc.get(`${key}[${i}]`)!);
  return items.length > 0 ? items.join(',') : undefined;
}

function combineProfiles(fileProfile: string | null, docProfile: string | null): string | null {
  if (fileProfile && docProfile) return `${fileProfile}&${/^[\w.-]+$/.test(docProfile) ? docProfile : `(${docProfile})`}`;
  return docProfile ?? fileProfile;
}

function parseYaml(path: string, text: string, warnings: string[]): Document[] {
  const documents: Document[] = [];
  let parsed: ReturnType<typeof YAML.parseAllDocuments>;
  try {
    parsed = YAML.parseAllDocuments(text, { schema: 'failsafe', merge: true, logLevel: 'silent' });
  } catch (error) {
    warnings.push(`${path}: cannot parse YAML: ${firstLine(error)}`);
    return documents;
  }
  const list = Array.isArray(parsed) ? parsed : [];
  list.forEach((doc, index) => {
    const where = list.length > 1 ? `${path} (document ${index + 1})` : path;
    if (doc.errors.length > 0) {
      warnings.push(`${where}: malformed YAML, document skipped: ${firstLine(doc.errors[0])}`);
      return;
    }
    const flat = flattenDocument(where, () => doc.toJS({ maxAliasCount: 1000 }), warnings);
    if (flat) documents.push(flat);
  });
  return documents;
}

function flattenDocument(where: string, toJS: () => unknown, warnings: string[]): Document | undefined {
  let value: unknown;
  try {
    value = toJS();
  } catch (error) {
    warnings.push(`${where}: malformed YAML, document skipped: ${firstLine(error)}`);
    return undefined;
  }
  if (value === null || value === undefined || value === '') return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) {
    warnings.push(`${where}: a Spring config document must be a mapping; skipped`);
    return undefined;
  }
  const out: Document = new Map();
  flatten(value, '', out);
  return out;
}

function flatten(value: unknown, prefix: string, out: Document): void {
  if (Array.isArray(value)) {
    if (value.length === 0) out.set(prefix, '');
    value.forEach((item, i) => flatten(item, `${prefix}[${i}]`, out));
  } else if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0 && prefix) out.set(prefix, '');
    for (const [key, item] of entries) flatten(item, joinKey(prefix, key), out);
  } else if (prefix) {
    out.set(prefix, scalarText(value));
  }
}

function joinKey(prefix: string, key: string): string {
  if (!prefix) return key;
  return key.startsWith('[') ? `${prefix}${key}` : `${prefix}.${key}`;
}

function scalarText(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  return NULL_SCALARS.has(text) ? '' : text;
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0]!.trim();
}

/** java.util.Properties rules, plus Spring Boot's `#---` / `!---` document separators. */
function parseProperties(path: string, text: string, warnings: string[]): Document[] {
  const documents: Document[] = [new Map()];
  for (const line of logicalLines(text)) {
    if (line === null) {
      documents.push(new Map());
      continue;
    }
    const [key, value] = splitProperty(line, path, warnings);
    documents[documents.length - 1]!.set(key, value);
  }
  return documents.filter((doc) => doc.size > 0);
}

/** Logical lines with continuations joined (escapes still raw); null marks a document separator. */
function logicalLines(text: string): (string | null)[] {
  const natural = text.split(/\r\n|\r|\n/);
  const out: (string | null)[] = [];
  let current: string | undefined;
  for (const raw of natural) {
    const line = stripLeadingSpace(raw);
    if (current === undefined) {
      if (line === '') continue;
      if (line[0] === '#' || line[0] === '!') {
        if (/^[#!]---\s*$/.test(line)) out.push(null);
        continue;
      }
    }
    const continues = endsWithContinuation(line);
    const body = continues ? line.slice(0, -1) : line;
    current = (current ?? '') + body;
    if (!continues) {
      out.push(current);
      current = undefined;
    }
  }
  if (current !== undefined) out.push(current);
  return out;
}

function stripLeadingSpace(line: string): string {
  let i = 0;
  while (i < line.length && isPropertySpace(line[i]!)) i++;
  return line.slice(i);
}

function isPropertySpace(c: string): boolean {
  return c === ' ' || c === '\t' || c === '\f';
}

function endsWithContinuation(line: string): boolean {
  let slashes = 0;
  for (let i = line.length - 1; i >= 0 && line[i] === '\\'; i--) slashes++;
  return slashes % 2 === 1;
}

function splitProperty(line: string, path: string, warnings: string[]): [string, string] {
  let i = 0;
  while (i < line.length) {
    const c = line[i]!;
    if (c === '\\') i += 2;
    else if (c === '=' || c === ':' || isPropertySpace(c)) break;
    else i++;
  }
  const keyEnd = Math.min(i, line.length);
  while (i < line.length && isPropertySpace(line[i]!)) i++;
  if (i < line.length && (line[i] === '=' || line[i] === ':')) i++;
  while (i < line.length && isPropertySpace(line[i]!)) i++;
  return [unescape(line.slice(0, keyEnd), path, warnings), unescape(line.slice(i), path, warnings)];
}

const ESCAPES: Record<string, string> = { t: '\t', n: '\n', r: '\r', f: '\f' };

function unescape(text: string, path: string, warnings: string[]): string {
  if (!text.includes('\\')) return text;
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c !== '\\' || i + 1 >= text.length) {
      out += c;
      continue;
    }
    const next = text[++i]!;
    if (next === 'u') {
      const hex = text.slice(i + 1, i + 5);
      if (/^[0-9a-fA-F]{4}$/.test(hex)) {
        out += String.fromCharCode(parseInt(hex, 16));
        i += 4;
      } else {
        warnings.push(`${path}: malformed \\uxxxx escape in ${JSON.stringify(text)}; kept as written`);
        out += '\\u';
      }
    } else {
      out += ESCAPES[next] ?? next;
    }
  }
  return out;
}

/**
 * The service name the config files give: the first default-profile `application*` file that names it, else
 * the first default-profile `bootstrap*` one, in the order given. Profile-specific files never name a service.
 * `${…}` placeholders resolve from the same file or their literal default (`${APP_NAME:orders}` → orders);
 * a value that still depends on something unknown is ignored.
 */
export function applicationName(files: SpringConfigFile[]): { name: string; file: string } | undefined {
  for (const kind of ['application', 'bootstrap'] as const) {
    for (const file of files) {
      if (file.kind !== kind || file.profile !== null) continue;
      const raw = file.values.get('spring.application.name');
      if (raw === undefined) continue;
      const name = resolvePlaceholders(raw, file.values)?.trim();
      if (name) return { name, file: file.path };
    }
  }
  return undefined;
}

const MAX_PLACEHOLDER_DEPTH = 8;

export function resolvePlaceholders(value: string, values: ReadonlyMap<string, string>, depth = 0): string | undefined {
  if (depth > MAX_PLACEHOLDER_DEPTH) return undefined;
  let out = '';
  let i = 0;
  while (i < value.length) {
    const start = value.indexOf('${', i);
    if (start < 0) return out + value.slice(i);
    const end = matchingBrace(value, start + 2);
    if (end < 0) return undefined;
    const resolved = resolveOne(value.slice(start + 2, end), values, depth);
    if (resolved === undefined) return undefined;
    out += value.slice(i, start) + resolved;
    i = end + 1;
  }
  return out;
}

export function matchingBrace(text: string, from: number): number {
  let depth = 0;
  for (let i = from; i < text.length; i++) {
    if (text.startsWith('${', i)) {
      depth++;
      i++;
    } else if (text[i] === '}') {
      if (depth === 0) return i;
      depth--;
    }
  }
  return -1;
}

function resolveOne(body: string, values: ReadonlyMap<string, string>, depth: number): string | undefined {
  const colon = topLevelColon(body);
  const key = colon < 0 ? body : body.slice(0, colon);
  const known = values.get(key);
  if (known !== undefined) return resolvePlaceholders(known, values, depth + 1);
  if (colon < 0) return undefined;
  return resolvePlaceholders(body.slice(colon + 1), values, depth + 1);
}

export function topLevelColon(body: string): number {
  let depth = 0;
  for (let i = 0; i < body.length; i++) {
    if (body.startsWith('${', i)) {
      depth++;
      i++;
    } else if (body[i] === '}') depth--;
    else if (body[i] === ':' && depth === 0) return i;
  }
  return -1;
}
