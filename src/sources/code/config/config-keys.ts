/**
 * Configuration keys as nodes: every key a service's Spring configuration sets (its own application and bootstrap
 * files, the files a config server in the estate serves it, its deployment's environment), with file, line and
 * profile, and the value only when it is not a secret. Which keys and values are secrets is the table below.
 */
import { nodeId } from '../../../graph/ids.js';
import type { Ontology } from '../../../graph/ontology/index.js';
import type { EdgeRecord, NodeRecord, PropValue } from '../../../graph/types.js';
import { type LayoutDeployment, relaxedEnvKey, type ServiceInfo } from './layout.js';
import { profiledDocuments } from './spring-config.js';

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

/** Every key a Spring configuration file sets, by profile (later documents of one profile win), in file order. */
export function configEntries(path: string, text: string): ConfigEntry[] {
  // The layout reads the same files and warns about what cannot be read.
  const merged = new Map<string, ConfigEntry>();
  for (const { doc, profile } of profiledDocuments(path, text, [])) {
    for (const [key, value] of doc.values) {
      const id = `${profile ?? ''}\0${key}`;
      merged.delete(id);
      merged.set(id, { file: path, line: doc.lines.get(key) ?? 0, profile, key, value });
    }
  }
  return [...merged.values()].sort((a, b) => a.line - b.line || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

// ---------------------------------------------------------------------------------------------------------------
// Nodes and edges

const FILE_NAME = /^(application|bootstrap)(?:-([^.]+))?\.(ya?ml|properties)$/;

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
