import type { AnnotationFacts } from '../parse/ir.js';
import { parseUrl } from './http-calls.js';
import type { CodeModel, MemberEntry, TypeEntry } from '../model/model.js';
import { type Constants, EMPTY, joinPath, mappingOf, type Part, profileOf } from './routes.js';

/** An outbound HTTP call a client interface declares. */
export interface HttpClientCall {
  framework: 'feign' | 'http_exchange';
  method: MemberEntry;
  httpMethod: string;
  path: string;
  targetService: string;
  targetUrl?: string;
  /** False when the target or a path part is not stated by the source (kept as written). */
  resolved: boolean;
  /** The values as written, when constants or placeholders were involved. */
  written?: string;
  profile?: string;
}

/** Where a URL with `${…}` placeholders goes, each value the service's configuration gives it: its text and host. */
export type UrlOf = (template: string) => { text: string; host: string; path: string; resolved: boolean; profile?: string }[];

/**
 * The calls of a Feign client interface (`@FeignClient`): its target from `name`/`value`/`serviceId`, or the
 * host of `url`; its paths from `path`, the path of `url`, a type-level `@RequestMapping` and each method's
 * Spring mapping (inherited from super-interfaces too). Placeholders resolve against the service's configuration;
 * a `url` with placeholders, through `urlOf` when given, as any URL the configuration gives is (deployment holes and
 * host templates included): one host it names is the target.
 */
export function feignClientsOf(model: CodeModel, entry: TypeEntry, constants: Constants, urlOf?: UrlOf): HttpClientCall[] {
  const feign = entry.facts.annotations.find((a) => a.name === 'FeignClient');
  if (!feign || entry.facts.kind !== 'interface') return [];
  const arg = (...names: string[]): Part | undefined => {
    for (const n of names) {
      const v = feign.args[n]?.[0];
      if (v) return constants.part(v, entry);
    }
    return undefined;
  };
  const name = arg('name', 'value', 'serviceId');
  let url = arg('url');
  // Every value the configuration gives the url naming one host (and base path): that host and path.
  const configured = url?.template !== undefined && urlOf ? urlOf(url.template) : [];
  const hosts = [...new Map(configured.map((c) => [`${c.host}\u0000${c.path}`, c])).values()];
  const one = hosts.length === 1 && hosts[0]!.host ? hosts[0]! : undefined;
  if (url && one) url = { text: one.text, literal: one.resolved, written: url.written, derived: true, ...(one.profile ? { profile: one.profile } : {}) };
  const base = one ? { host: one.host, path: one.path } : url?.literal ? parseUrl(url.text) : undefined;
  const target = base?.host ?? name?.text ?? '';
  const targetResolved = base ? (one ? one.resolved : true) : (name?.literal ?? false);
  const { project } = model.ancestors(entry);
  const typeLevel = project.map((t) => mappingOf(t.facts.annotations, 'type', (v) => constants.part(v, t))).find((m) => m && m.framework === 'spring_mvc');
  const prefixes: Part[] = [arg('path') ?? EMPTY, base ? { text: base.path, literal: true, written: url!.written, derived: url!.derived } : EMPTY, ...(typeLevel?.paths.length ? [typeLevel.paths[0]!] : [])];
  const prefix = prefixes.reduce<Part>((a, b) => ({ text: joinPath(a.text, b.text), literal: a.literal && b.literal, written: [a.written, b.written].filter((w) => w).join(' + '), derived: a.derived || b.derived, ...profileOf(a, b) }), EMPTY);
  const out: HttpClientCall[] = [];
  const signatures = new Set<string>();
  for (const t of project) {
    for (const m of t.members) {
      if (m.facts.kind !== 'method' || m.facts.modifiers.includes('static') || m.facts.modifiers.includes('default') || signatures.has(m.signature)) continue;
      signatures.add(m.signature);
      const mapping = mappingOf(m.facts.annotations, 'method', (v) => constants.part(v, t));
      if (!mapping || mapping.framework !== 'spring_mvc') continue;
      for (const part of mapping.paths.length ? mapping.paths : [EMPTY]) {
        for (const httpMethod of mapping.methods.length ? mapping.methods : ['ANY']) {
          const derived = prefix.derived || part.derived || !targetResolved;
          out.push({
            framework: 'feign',
            method: m,
            httpMethod,
            path: joinPath(prefix.text, part.text),
            targetService: target,
            ...(url ? { targetUrl: url.text } : {}),
            resolved: targetResolved && prefix.literal && part.literal,
            ...profileOf(name, url, prefix, part),
            ...(derived ? { written: [name?.written ? `name=${name.written}` : '', url ? `url=${url.written}` : '', prefix.written, part.written].filter((w) => w).join(' ') } : {}),
          });
        }
      }
    }
  }
  return out;
}

/** `@GetExchange` and friends by the HTTP method they send; `@HttpExchange` names it in `method` (or any). */
const EXCHANGES: Record<string, string> = { GetExchange: 'GET', PostExchange: 'POST', PutExchange: 'PUT', DeleteExchange: 'DELETE', PatchExchange: 'PATCH', HttpExchange: '' };

/** A `@…Exchange` annotation's URL part (`value` or `url`) and HTTP method. */
function exchangeOf(annotations: readonly AnnotationFacts[], owner: TypeEntry, constants: Constants): { url: Part; method: string } | undefined {
  const a = annotations.find((x) => x.name in EXCHANGES);
  if (!a) return undefined;
  const v = a.args.value?.[0] ?? a.args.url?.[0];
  const method = EXCHANGES[a.name] || (a.args.method?.[0]?.value ?? a.args.method?.[0]?.text ?? '').toUpperCase().replace(/^.*\./, '') || 'ANY';
  return { url: v ? constants.part(v, owner) : EMPTY, method };
}

/**
 * The calls of an `@HttpExchange` interface (Spring 6 HTTP interface clients): the type-level `@HttpExchange`
 * URL (an absolute one names the target service by its host) joined with each method's `@GetExchange` /
 * `@PostExchange` / … path. Without an absolute URL the target is the base URL of the client the proxy is built
 * on, which the interface does not state: the target stays empty and the call is matched by method and path.
 */
export function httpExchangeClientsOf(entry: TypeEntry, constants: Constants): HttpClientCall[] {
  if (entry.facts.kind !== 'interface') return [];
  const typeLevel = exchangeOf(entry.facts.annotations, entry, constants);
  const methods = entry.members.filter((m) => m.facts.kind === 'method' && exchangeOf(m.facts.annotations, entry, constants));
  if (!methods.length) return [];
  const base = typeLevel?.url.literal ? parseUrl(typeLevel.url.text) : undefined;
  const prefix: Part = base ? { ...typeLevel!.url, text: base.path } : (typeLevel?.url ?? EMPTY);
  const out: HttpClientCall[] = [];
  for (const m of methods) {
    const own = exchangeOf(m.facts.annotations, entry, constants)!;
    const method = own.method === 'ANY' && typeLevel ? typeLevel.method : own.method;
    const derived = prefix.derived || own.url.derived;
    out.push({
      framework: 'http_exchange',
      method: m,
      httpMethod: method,
      path: joinPath(prefix.text, own.url.text),
      targetService: base?.host ?? '',
      ...(base ? { targetUrl: typeLevel!.url.text } : {}),
      resolved: !!base && prefix.literal && own.url.literal,
      ...profileOf(typeLevel?.url, own.url),
      ...(derived ? { written: [prefix.written, own.url.written].filter((w) => w).join(' + ') } : {}),
    });
  }
  return out;
}

/**
 * The calls of a plain OpenFeign interface (`@RequestLine("GET /orders/{id}")`, no `@FeignClient`): the base URL is
 * the one `Feign.builder()…target(Api.class, url)` gives it, found with the rest of the estate.
 */
export function requestLineClientsOf(entry: TypeEntry, constants: Constants): HttpClientCall[] {
  if (entry.facts.kind !== 'interface' || entry.facts.annotations.some((a) => a.name === 'FeignClient')) return [];
  const out: HttpClientCall[] = [];
  for (const m of entry.members) {
    const line = m.facts.annotations.find((a) => a.name === 'RequestLine')?.args.value?.[0];
    if (!line || m.facts.kind !== 'method') continue;
    const part = constants.part(line, entry);
    const match = /^\s*([A-Z]+)\s+(\S+)/.exec(part.text);
    if (!match) continue;
    const path = joinPath('', match[2]!.split('?')[0]!);
    out.push({ framework: 'feign', method: m, httpMethod: match[1]!, path, targetService: '', resolved: false, ...(part.derived ? { written: part.written } : {}), ...profileOf(part) });
  }
  return out;
}
