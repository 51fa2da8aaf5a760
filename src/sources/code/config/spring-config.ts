import { flatYamlDocuments } from './yaml.js';

export interface SpringConfigFile {
  path: string;
  /** `application-dev.yml` → 'dev'; a document's `spring.config.activate.on-profile` too; null = default. */
  profile: string | null;
  kind: 'application' | 'bootstrap';
  /** Flattened keys: `a.b.c`, lists as `a.b[0]`. */
  values: Map<string, string>;
  /** The line each key is set on. */
  lines: Map<string, number>;
}

/** One document of a configuration file: its keys, and the line each is set on. */
export interface ConfigDocument {
  values: Map<string, string>;
  lines: Map<string, number>;
}

const FILE_NAME = /^(application|bootstrap)(?:-([^.]+))?\.(ya?ml|properties)$/;
const PROFILE_KEYS = ['spring.config.activate.on-profile', 'spring.profiles'];

/**
 * One entry per profile the file speaks for (documents with the same profile merged in order, later wins),
 * in order of first appearance; always at least one entry for the file's own profile.
 */
export function parseSpringConfig(path: string, text: string, warnings: string[]): SpringConfigFile[] {
  const { kind, profile } = describeFileName(path);
  const byProfile = new Map<string | null, ConfigDocument>();
  for (const { doc, profile: key } of profiledDocuments(path, text, warnings, profile)) {
    const merged = byProfile.get(key) ?? { values: new Map<string, string>(), lines: new Map<string, number>() };
    for (const [k, v] of doc.values) {
      merged.values.set(k, v);
      merged.lines.set(k, doc.lines.get(k) ?? 0);
    }
    byProfile.set(key, merged);
  }
  if (byProfile.size === 0) byProfile.set(profile, { values: new Map(), lines: new Map() });
  return [...byProfile].map(([p, doc]) => ({ path, profile: p, kind, values: doc.values, lines: doc.lines }));
}

/** Each document of a Spring configuration file (YAML or properties) with the profile it speaks for, in order. */
export function profiledDocuments(path: string, text: string, warnings: string[], fileProfile = describeFileName(path).profile): { doc: ConfigDocument; profile: string | null }[] {
  const documents = path.endsWith('.properties') ? parseProperties(path, text, warnings) : flatYamlDocuments(path, text, warnings).filter((d) => d.values.size > 0);
  return documents.map((doc) => ({ doc, profile: combineProfiles(fileProfile, documentProfile(doc.values)) }));
}

function describeFileName(path: string): { kind: SpringConfigFile['kind']; profile: string | null } {
  const match = FILE_NAME.exec(path.slice(path.lastIndexOf('/') + 1));
  if (!match) return { kind: 'application', profile: null };
  return { kind: match[1] === 'bootstrap' ? 'bootstrap' : 'application', profile: match[2] ?? null };
}

function documentProfile(doc: ReadonlyMap<string, string>): string | null {
  for (const key of PROFILE_KEYS) {
    const value = doc.get(key) ?? listValue(doc, key);
    if (value) return value;
  }
  return null;
}

function listValue(doc: ReadonlyMap<string, string>, key: string): string | undefined {
  const items: string[] = [];
  for (let i = 0; doc.has(`${key}[${i}]`); i++) items.push(doc.get(`${key}[${i}]`)!);
  return items.length > 0 ? items.join(',') : undefined;
}

function combineProfiles(fileProfile: string | null, docProfile: string | null): string | null {
  if (fileProfile && docProfile) return `${fileProfile}&${/^[\w.-]+$/.test(docProfile) ? docProfile : `(${docProfile})`}`;
  return docProfile ?? fileProfile;
}

/** java.util.Properties rules, plus Spring Boot's `#---` / `!---` document separators; each key with its line. */
function parseProperties(path: string, text: string, warnings: string[]): ConfigDocument[] {
  const documents: ConfigDocument[] = [{ values: new Map(), lines: new Map() }];
  for (const entry of logicalLines(text)) {
    if (entry === null) {
      documents.push({ values: new Map(), lines: new Map() });
      continue;
    }
    const [key, value] = splitProperty(entry.text, path, warnings);
    const doc = documents[documents.length - 1]!;
    doc.values.set(key, value);
    doc.lines.set(key, entry.line);
  }
  return documents.filter((doc) => doc.values.size > 0);
}

/** Logical lines with continuations joined (escapes still raw), with the line each starts on; null marks a document separator. */
function logicalLines(text: string): ({ text: string; line: number } | null)[] {
  const natural = text.split(/\r\n|\r|\n/);
  const out: ({ text: string; line: number } | null)[] = [];
  let current: { text: string; line: number } | undefined;
  natural.forEach((raw, n) => {
    const line = stripLeadingSpace(raw);
    if (current === undefined) {
      if (line === '') return;
      if (line[0] === '#' || line[0] === '!') {
        if (/^[#!]---\s*$/.test(line)) out.push(null);
        return;
      }
    }
    const continues = endsWithContinuation(line);
    const body = continues ? line.slice(0, -1) : line;
    current = { text: (current?.text ?? '') + body, line: current?.line ?? n + 1 };
    if (!continues) {
      out.push(current);
      current = undefined;
    }
  });
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
