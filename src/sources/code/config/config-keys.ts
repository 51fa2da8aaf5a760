/**
 * Configuration keys as nodes: every key a service's Spring configuration sets (its own application and bootstrap
 * files, the files a config server in the estate serves it, its deployment's environment), with file, line and
 * profile, and the value only when it is not a secret. Which keys and values are secrets is the table below.
 */
import YAML from 'yaml';
import { nodeId } from '../../../graph/ids.js';
import type { Ontology } from '../../../graph/ontology/index.js';
import type { EdgeRecord, NodeRecord, PropValue } from '../../../graph/types.js';
import { type LayoutDeployment, relaxedEnvKey, type ServiceInfo } from './layout.js';

/** One key a configuration file sets, where, and for which profile (null: the default). */
export interface ConfigEntry {
  file: string;
  line: number;
  profile: string | null;
  key: string;
  value: string;
}

/**
 * When a value is withheld. `key` rules look at the key's last segment (lower case, `-` and `_` removed, list
 * indexes dropped), `path` rules at the whole key so normalized, `segment` rules at every other segment, `value`
 * rules at the value as written.
 */
export const SECRET_RULES: readonly { on: 'key' | 'path' | 'segment' | 'value'; pattern: RegExp; says: string }[] = [
  { on: 'key', pattern: /(?:password|passwd|pwd|passphrase)$/, says: 'the key names a password' },
  { on: 'key', pattern: /secret$/, says: 'the key names a secret' },
  { on: 'key', pattern: /token$/, says: 'the key names a token' },
  { on: 'key', pattern: /credentials?$/, says: 'the key names a credential' },
  { on: 'key', pattern: /^(?:key|(?:api|access|secret|private|signing|encryption|master|license|auth|hmac|client|shared|account|subscription)key)$/, says: 'the key names a key' },
  { on: 'key', pattern: /^connectionstring$/, says: 'the key holds a connection string, which carries credentials' },
  { on: 'path', pattern: /(?:^|\.)jaas\.config$/, says: 'the key holds a JAAS login configuration, which carries credentials' },
  { on: 'segment', pattern: /^(?:secrets?|credentials|passwords|tokens)$/, says: 'the key lies under a secrets or credentials section' },
  { on: 'value', pattern: /^[a-z][a-z0-9+.-]*:\/\/[^/\s:@]+:[^/\s@]+@/i, says: 'the value is a URL with a password in it' },
  { on: 'value', pattern: /(?:password|passwd|pwd|secret|token)\s*=\s*["']?[^\s"';&${}]/i, says: 'the value sets a password, secret or token' },
  { on: 'value', pattern: /-----BEGIN [A-Z ]*-----/, says: 'the value is a PEM key or certificate' },
  { on: 'value', pattern: /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\./, says: 'the value looks like a JSON web token' },
  { on: 'value', pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/, says: 'the value looks like an AWS access key' },
  { on: 'value', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}|glpat-[A-Za-z0-9_-]{20,}|xox[abprs]-[A-Za-z0-9-]{10,})/, says: 'the value looks like an access token' },
  { on: 'value', pattern: /\b(?:sk|pk|rk)[-_](?:(?:live|test|proj)[-_])?[A-Za-z0-9]{20,}|\bAIza[0-9A-Za-z_-]{35}\b/, says: 'the value looks like an API key' },
  { on: 'value', pattern: /\b(?:Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{16,}/, says: 'the value carries an authorization header' },
  { on: 'value', pattern: /^(?=[A-Za-z0-9+/=_-]{32,}$)(?=.*[0-9])(?=.*[A-Za-z])[A-Za-z0-9+/=_-]+$/, says: 'the value looks like a generated key (a long random token)' },
];

/** Why a key's value is withheld, or undefined when it may be stored. */
export function secretReason(key: string, value: string): string | undefined {
  const segments = key.replace(/\[\d+\]/g, '').split('.').map((s) => s.toLowerCase().replace(/[-_]/g, ''));
  const last = segments[segments.length - 1] ?? '';
  for (const r of SECRET_RULES) {
    const hit = r.on === 'key' ? r.pattern.test(last) : r.on === 'path' ? r.pattern.test(segments.join('.')) : r.on === 'segment' ? segments.slice(0, -1).some((s) => r.pattern.test(s)) : r.pattern.test(value);
    if (hit) return r.says;
  }
  return undefined;
}

/** Names the value refers to: `${NAME}` / `${name:default}` (Spring), `$NAME` / `${NAME:-default}` (compose). */
export function referencesOf(value: string): string[] {
  const out = new Set<string>();
  for (const m of value.matchAll(/\$\{([^}:$]+)[}:]|\$\(([A-Za-z_][A-Za-z0-9_]*)\)|\$([A-Za-z_][A-Za-z0-9_]*)/g)) out.add((m[1] ?? m[2] ?? m[3]!).trim().replace(/[:-]+$/, ''));
  return [...out].filter(Boolean).sort();
}

const FILE_NAME = /^(application|bootstrap)(?:-([^.]+))?\.(ya?ml|properties)$/;
const PROFILE_KEYS = ['spring.config.activate.on-profile', 'spring.profiles'];
const NULL_SCALARS = new Set(['~', 'null', 'Null', 'NULL']);
const MAX_DEPTH = 64;

/** Every key a Spring configuration file sets, by profile (later documents of one profile win), in file order. */
export function configEntries(path: string, text: string): ConfigEntry[] {
  const match = FILE_NAME.exec(path.slice(path.lastIndexOf('/') + 1));
  const fileProfile = match?.[2] ?? null;
  const documents = path.endsWith('.properties') ? propertiesDocuments(text) : yamlDocuments(text);
  const merged = new Map<string, ConfigEntry>();
  for (const doc of documents) {
    const docProfile = documentProfile(doc);
    const profile = fileProfile && docProfile ? `${fileProfile}&${/^[\w.-]+$/.test(docProfile) ? docProfile : `(${docProfile})`}` : (docProfile ?? fileProfile);
    for (const [key, { value, line }] of doc) {
      const id = `${profile ?? ''}\0${key}`;
      merged.delete(id);
      merged.set(id, { file: path, line, profile, key, value });
    }
  }
  return [...merged.values()].sort((a, b) => a.line - b.line || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

type Document = Map<string, { value: string; line: number }>;

function documentProfile(doc: Document): string | null {
  for (const key of PROFILE_KEYS) {
    const value = doc.get(key)?.value;
    if (value) return value;
    const items: string[] = [];
    for (let i = 0; doc.has(`${key}[${i}]`); i++) items.push(doc.get(`${key}[${i}]`)!.value);
    if (items.length) return items.join(',');
  }
  return null;
}

function yamlDocuments(text: string): Document[] {
  const lineCounter = new YAML.LineCounter();
  let docs: YAML.Document.Parsed[];
  try {
    docs = YAML.parseAllDocuments(text, { schema: 'failsafe', merge: true, logLevel: 'silent', lineCounter }) as YAML.Document.Parsed[];
  } catch {
    return [];
  }
  if (!Array.isArray(docs)) return [];
  const out: Document[] = [];
  for (const doc of docs) {
    // The layout warns about malformed documents; they set nothing here either.
    if (doc.errors.length) continue;
    const flat: Document = new Map();
    const lineOf = (node: { range?: [number, number, number] | null } | null | undefined, fallback: number): number => (node?.range ? lineCounter.linePos(node.range[0]).line : fallback);
    let aliases = 0;
    const walk = (node: unknown, prefix: string, line: number, depth: number): void => {
      if (depth > MAX_DEPTH) return;
      if (YAML.isAlias(node)) {
        if (++aliases > 1000) return;
        walk(node.resolve(doc), prefix, line, depth + 1);
      } else if (YAML.isMap(node)) {
        if (!node.items.length && prefix) flat.set(prefix, { value: '', line });
        // Merged keys first, so the map's own keys win.
        for (const pair of node.items) if (isMergeKey(pair.key)) for (const source of YAML.isSeq(pair.value) ? pair.value.items : [pair.value]) walk(source, prefix, lineOf(pair.key as never, line), depth + 1);
        for (const pair of node.items) {
          if (isMergeKey(pair.key)) continue;
          const key = YAML.isScalar(pair.key) ? String(pair.key.value) : pair.key === null ? '' : String(pair.key);
          const keyLine = lineOf(pair.key as never, line);
          const joined = !prefix ? key : key.startsWith('[') ? `${prefix}${key}` : `${prefix}.${key}`;
          if (pair.value === null || pair.value === undefined) flat.set(joined, { value: '', line: keyLine });
          else walk(pair.value, joined, keyLine, depth + 1);
        }
      } else if (YAML.isSeq(node)) {
        if (!node.items.length && prefix) flat.set(prefix, { value: '', line });
        node.items.forEach((item, i) => walk(item, `${prefix}[${i}]`, lineOf(item as never, line), depth + 1));
      } else if (YAML.isScalar(node) && prefix) {
        const text = node.value === null || node.value === undefined ? '' : String(node.value);
        flat.set(prefix, { value: NULL_SCALARS.has(text) ? '' : text, line });
      }
    };
    walk(doc.contents, '', 1, 0);
    if (flat.size) out.push(flat);
  }
  return out;
}

function isMergeKey(key: unknown): boolean {
  return YAML.isScalar(key) && (typeof key.value === 'symbol' || key.value === '<<');
}

/** java.util.Properties logical lines (continuations joined), with the line each starts on; `#---` separates documents. */
function propertiesDocuments(text: string): Document[] {
  const docs: Document[] = [new Map()];
  const lines = text.split(/\r\n|\r|\n/);
  for (let n = 0; n < lines.length; n++) {
    const start = n + 1;
    let line = lines[n]!.replace(/^[ \t\f]+/, '');
    if (line === '') continue;
    if (line[0] === '#' || line[0] === '!') {
      if (/^[#!]---\s*$/.test(line)) docs.push(new Map());
      continue;
    }
    while (continues(line) && n + 1 < lines.length) line = line.slice(0, -1) + lines[++n]!.replace(/^[ \t\f]+/, '');
    if (continues(line)) line = line.slice(0, -1);
    let i = 0;
    while (i < line.length && !'=: \t\f'.includes(line[i]!)) i += line[i] === '\\' ? 2 : 1;
    const key = unescapeProperty(line.slice(0, Math.min(i, line.length)));
    while (i < line.length && ' \t\f'.includes(line[i]!)) i++;
    if (line[i] === '=' || line[i] === ':') i++;
    while (i < line.length && ' \t\f'.includes(line[i]!)) i++;
    docs[docs.length - 1]!.set(key, { value: unescapeProperty(line.slice(i)), line: start });
  }
  return docs.filter((d) => d.size > 0);
}

function continues(line: string): boolean {
  let slashes = 0;
  for (let i = line.length - 1; i >= 0 && line[i] === '\\'; i--) slashes++;
  return slashes % 2 === 1;
}

function unescapeProperty(text: string): string {
  if (!text.includes('\\')) return text;
  return text.replace(/\\(u[0-9a-fA-F]{4}|.)/g, (_, c: string) => (c.length === 5 ? String.fromCharCode(parseInt(c.slice(1), 16)) : ({ t: '\t', n: '\n', r: '\r', f: '\f' } as Record<string, string>)[c] ?? c));
}

// ---------------------------------------------------------------------------------------------------------------
// Nodes and edges

interface KeySite {
  node: NodeRecord;
  services: Set<string>;
}

/**
 * `config_key` nodes, one per file, profile and key (one per environment variable a deployment unit sets), each
 * with the services whose configuration it is part of, and a READS_CONFIG edge from each of them.
 */
export function configKeyGraph(
  ontology: Ontology,
  source: string,
  services: readonly ServiceInfo[],
  locate: (path: string) => { service: string; module: string },
  texts: ReadonlyMap<string, string>,
  deployments: readonly LayoutDeployment[],
): { nodes: NodeRecord[]; edges: EdgeRecord[] } {
  const listed = new Set(services.map((s) => s.name));
  const served = new Map<string, Set<string>>();
  for (const s of services) for (const f of s.configServerFiles ?? []) (served.get(f) ?? served.set(f, new Set()).get(f)!).add(s.name);
  const files = new Map<string, { origin: 'service_file' | 'config_server'; services: Set<string> }>();
  for (const [file, clients] of served) files.set(file, { origin: 'config_server', services: clients });
  for (const s of services) for (const f of s.configFiles) if (!served.has(f)) (files.get(f) ?? files.set(f, { origin: 'service_file', services: new Set() }).get(f)!).services.add(s.name);
  const sites = new Map<string, KeySite>();
  const owner = (file: string, users: Set<string>): Pick<NodeRecord, 'service' | 'module'> => {
    const at = locate(file);
    if (users.size === 1) return { service: [...users][0]!, ...(at.service === [...users][0] ? { module: at.module } : {}) };
    return listed.has(at.service) ? { service: at.service, module: at.module } : {};
  };
  for (const file of [...files.keys()].sort()) {
    const text = texts.get(file);
    if (text === undefined) continue;
    const { origin, services: users } = files.get(file)!;
    for (const e of configEntries(file, text)) {
      const identity = `${file}|${e.profile ?? ''}|${e.key}`;
      if (sites.has(identity)) continue;
      const fileProfile = FILE_NAME.exec(file.slice(file.lastIndexOf('/') + 1))?.[2] ?? null;
      const tag = e.profile !== null && e.profile !== fileProfile ? ` [${e.profile}]` : '';
      sites.set(identity, {
        services: users,
        node: {
          id: nodeId(ontology, source, 'config_key', identity),
          kind: 'config_key',
          name: e.key,
          qualified_name: `${file}${tag}: ${e.key}`,
          source,
          ...owner(file, users),
          file,
          line: e.line,
          props: { key: e.key, ...valueProps(e.key, e.value), ...(e.profile !== null ? { profile: e.profile } : {}), origin, for_services: [...users].sort() },
        },
      });
    }
  }
  for (const unit of [...deployments].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    if (!unit.service || !listed.has(unit.service)) continue;
    for (const e of unit.env) {
      const identity = `${e.file}:${e.line}|${e.name}`;
      const known = sites.get(identity);
      if (known) {
        known.services.add(unit.service);
        known.node.props.for_services = [...known.services].sort();
        continue;
      }
      const key = relaxedEnvKey(e.name);
      const props: Record<string, PropValue> = { key, env_var: e.name, origin: 'deployment', for_services: [unit.service] };
      const reason = secretReason(key, e.value ?? e.written) ?? secretReason(e.name, e.value ?? e.written);
      if (reason) Object.assign(props, { secret: true, secret_reason: reason });
      else if (e.value !== undefined) props.value = e.value;
      if (e.value === undefined && e.unknown) props.unresolved_reason = e.unknown;
      const refs = referencesOf(e.written);
      if (refs.length) props.references = refs;
      sites.set(identity, {
        services: new Set([unit.service]),
        node: { id: nodeId(ontology, source, 'config_key', `deployment|${identity}`), kind: 'config_key', name: key, qualified_name: `${e.file} ${unit.name}: ${e.name}`, source, service: unit.service, file: e.file, line: e.line, props },
      });
    }
  }
  const nodes = [...sites.values()].map((s) => s.node);
  const edges: EdgeRecord[] = [];
  const serviceIds = new Map(services.map((s) => [s.name, nodeId(ontology, source, 'service', s.name)]));
  const byName = new Map(services.map((s) => [s.name, s]));
  for (const site of sites.values()) {
    for (const name of [...site.services].sort()) {
      const from = serviceIds.get(name);
      if (!from) continue;
      const winner = site.node.props.profile === undefined ? byName.get(name)?.configOrigins?.[String(site.node.props.key)] : undefined;
      const own = site.node.props.origin === 'deployment' ? `${site.node.file}:${site.node.line}` : site.node.file;
      edges.push({ type: 'READS_CONFIG', from, to: site.node.id, ...(winner !== undefined && winner !== own ? { attrs: { overridden_by: winner } } : {}) });
    }
  }
  return { nodes, edges };
}

function valueProps(key: string, value: string): Record<string, PropValue> {
  const refs = referencesOf(value);
  const reason = secretReason(key, value);
  return { ...(reason ? { secret: true, secret_reason: reason } : { value }), ...(refs.length ? { references: refs } : {}) };
}
