import type { AnnotationFacts, CallFacts, Expr } from './ir.js';
import { partsOfText } from './messaging.js';
import type { MemberEntry, TypeEntry } from './model.js';
import { type Constants, joinPath } from './routes.js';

export type HttpCallFramework = 'rest_template' | 'web_client' | 'rest_client';

/** RestTemplate methods by the HTTP method they send; '' reads it from the second argument (`HttpMethod.GET`). */
const REST_TEMPLATE: Record<string, string> = {
  getForObject: 'GET',
  getForEntity: 'GET',
  postForObject: 'POST',
  postForEntity: 'POST',
  postForLocation: 'POST',
  put: 'PUT',
  delete: 'DELETE',
  patchForObject: 'PATCH',
  headForHeaders: 'HEAD',
  optionsForAllow: 'OPTIONS',
  exchange: '',
  execute: '',
};
const REST_TEMPLATE_OWNERS = new Set(['org.springframework.web.client.RestTemplate', 'org.springframework.web.client.RestOperations']);

/** WebClient and RestClient start a request with the method (`method(HttpMethod.X)` names it), then `.uri(…)`. */
const FLUENT: Record<string, string> = { get: 'GET', post: 'POST', put: 'PUT', delete: 'DELETE', patch: 'PATCH', head: 'HEAD', options: 'OPTIONS', method: '' };
const FLUENT_OWNERS: Record<string, HttpCallFramework> = {
  'org.springframework.web.reactive.function.client.WebClient': 'web_client',
  'org.springframework.web.client.RestClient': 'rest_client',
};

/** An outbound HTTP call made at a call site: the framework, the method, and the URL argument as written. */
export interface HttpCallSite {
  framework: HttpCallFramework;
  httpMethod: string;
  url: string;
  line: number;
}

function methodOf(arg: string | undefined): string {
  const m = /(?:^|\.)(GET|POST|PUT|DELETE|PATCH|HEAD|OPTIONS)\s*$/.exec(arg?.trim() ?? '');
  return m ? m[1]! : 'ANY';
}

const same = (a: Expr | undefined, b: Expr | undefined): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * The HTTP call a resolved library call makes, if it is one: a RestTemplate verb method (URL in the first
 * argument), or the start of a WebClient / RestClient request (`client.get()`) whose `.uri(…)` follows in the
 * same chain.
 */
export function httpCallOf(owner: string, name: string, call: CallFacts, caller: MemberEntry, takenUris: Set<CallFacts>): HttpCallSite | undefined {
  if (REST_TEMPLATE_OWNERS.has(owner) && name in REST_TEMPLATE && call.args[0]) {
    const verb = REST_TEMPLATE[name]!;
    return { framework: 'rest_template', httpMethod: verb || methodOf(call.args[1]), url: call.args[0], line: call.line };
  }
  const framework = FLUENT_OWNERS[owner];
  if (framework && name in FLUENT) {
    // Its `.uri(…)`: the nearest one not yet paired, at or a few lines after the request start (two chains on one
    // line pair in source order).
    let uri: CallFacts | undefined;
    for (const c of caller.facts.calls) {
      if (c.name !== 'uri' || !c.args[0] || takenUris.has(c) || c.receiver?.k !== 'call' || c.receiver.name !== name || !same(c.receiver.of, call.receiver)) continue;
      if (c.line < call.line || c.line > call.line + 5) continue;
      if (!uri || c.line < uri.line) uri = c;
    }
    if (!uri) return undefined;
    takenUris.add(uri);
    return { framework, httpMethod: FLUENT[name] || methodOf(call.args[0]), url: uri.args[0]!, line: call.line };
  }
  return undefined;
}

/** Where an HTTP call goes: the service (URL host, a discovery name) and the path template. */
export interface HttpTarget {
  targetService: string;
  path: string;
  targetUrl?: string;
  /** False when the target or part of the path is not something the source states. */
  resolved: boolean;
  /** The URL expression as written, when it is not one literal. */
  written?: string;
  /** The Spring profile(s) a placeholder took its value from, when the default profile does not set it. */
  profile?: string;
}

/** `http://billing-service:8080/api?x` → host and path; also `lb://name` and `//name`. */
export function parseUrl(text: string): { host: string; path: string } | undefined {
  const m = /^(?:[a-z][a-z0-9+.-]*:)?\/\/([^/:?#]+)(?::\d+)?([^?#]*)/i.exec(text.trim());
  return m ? { host: m[1]!, path: m[2] ?? '' } : undefined;
}

/** A `@Value("${…}")` on a field of the type or a parameter of the member named `name`: its expression. */
function valueAnnotation(name: string, member: MemberEntry | undefined, owner: TypeEntry): string | undefined {
  const fromAnnotations = (annotations: readonly AnnotationFacts[]) => annotations.find((a) => a.name === 'Value')?.args.value?.[0]?.value;
  const param = member?.facts.params.find((p) => p.name === name);
  if (param) return fromAnnotations(param.annotations);
  const field = owner.facts.fields.find((f) => f.name === name);
  return field ? fromAnnotations(field.annotations) : undefined;
}

/**
 * A URL expression's value: literals, constants (also from other files), `@Value("${…}")` fields and
 * parameters resolved against the service's configuration; any other name (a local, a parameter) becomes a
 * path variable `{name}`. `base` (a client's configured base URL) goes in front of a relative URL.
 */
/** Also what a message destination argument says (then `variables` must be 0). */
export function urlValue(written: string, member: MemberEntry | undefined, owner: TypeEntry, constants: Constants): { text: string; resolved: boolean; derived: boolean; variables: number; profile?: string } | undefined {
  const parts = partsOfText(written, owner.file.language === 'kotlin');
  if (!parts) return undefined;
  let text = '';
  let resolved = true;
  let variables = 0;
  let profile: string | undefined;
  for (const p of parts) {
    if (p.s !== undefined) {
      text += p.s;
      continue;
    }
    const constant = constants.evaluate([{ ref: p.ref }], owner, 0);
    const injected = constant === undefined ? valueAnnotation(p.ref, member, owner) : undefined;
    const raw = constant ?? injected;
    if (raw !== undefined) {
      const value = constants.resolve(raw);
      if (value === undefined) resolved = false;
      profile ??= value?.profile;
      text += value?.text ?? raw;
    } else {
      text += `{${p.ref.split('.').pop()}}`;
      variables++;
    }
  }
  return { text, resolved, derived: !(parts.length === 1 && parts[0]!.s !== undefined), variables, ...(profile ? { profile } : {}) };
}

/**
 * The base URL a type configures its client with, when it states exactly one: the argument of `baseUrl(…)`,
 * `rootUri(…)` or `WebClient.create(…)` / `RestClient.create(…)` in its own members (a constructor building the
 * client from a builder, typically).
 */
export function baseUrlIn(owner: TypeEntry, constants: Constants): { text: string; resolved: boolean; profile?: string } | undefined {
  const found = new Map<string, { text: string; resolved: boolean; profile?: string }>();
  for (const m of owner.members) {
    for (const c of m.facts.calls) {
      const isBase = c.name === 'baseUrl' || c.name === 'rootUri' || (c.name === 'create' && c.receiver?.k === 'name' && /^(WebClient|RestClient)$/.test(c.receiver.name));
      if (!isBase || !c.args[0]) continue;
      const value = urlValue(c.args[0], m, owner, constants);
      if (value && !/\{[^}]*\}/.test(value.text)) found.set(value.text, value);
    }
  }
  return found.size === 1 ? [...found.values()][0] : undefined;
}

/**
 * `UriComponentsBuilder.fromHttpUrl(…)` / `fromUriString(…)` / `fromPath(…)` followed by `.path(…)` /
 * `.pathSegment(…)` calls, written inline as the URL argument: the URL those literal parts build.
 */
function uriBuilderValue(written: string, caller: MemberEntry, constants: Constants): ReturnType<typeof urlValue> {
  const m = /^\s*UriComponentsBuilder\s*\.\s*(?:fromHttpUrl|fromUriString|fromPath)\s*\(([^()]*)\)/.exec(written);
  if (!m) return undefined;
  const base = urlValue(m[1]!, caller, caller.owner, constants);
  if (!base) return undefined;
  let text = base.text;
  let resolved = base.resolved;
  for (const seg of written.slice(m[0].length).matchAll(/\.\s*(path|pathSegment)\s*\(([^()]*)\)/g)) {
    const part = urlValue(seg[2]!, caller, caller.owner, constants);
    if (!part) return undefined;
    resolved &&= part.resolved;
    text = `${text.replace(/\/+$/, '')}/${part.text.replace(/^\/+/, '')}`;
  }
  return { text, resolved, derived: true, variables: base.variables, ...(base.profile ? { profile: base.profile } : {}) };
}

/** Where a call site's URL goes, with the caller type's base URL in front of a relative one. */
export function httpTargetOf(site: HttpCallSite, caller: MemberEntry, constants: Constants): HttpTarget {
  const value = urlValue(site.url, caller, caller.owner, constants) ?? uriBuilderValue(site.url, caller, constants);
  // A URL the source does not state (a method's result, a variable or an unset placeholder holding the whole URL or
  // its start) has no path to match: it is kept as written.
  if (!value || value.text.startsWith('{') || value.text.startsWith('${')) return { targetService: '', path: site.url, resolved: false, written: site.url };
  let url = value.text;
  let resolved = value.resolved;
  let targetUrl: string | undefined;
  let profile = value.profile;
  if (!parseUrl(url) && !/^[a-z][a-z0-9+.-]*:/i.test(url) && value.resolved) {
    const base = baseUrlIn(caller.owner, constants);
    if (base) {
      targetUrl = base.text;
      url = `${base.text.replace(/\/+$/, '')}/${url.replace(/^\/+/, '')}`;
      resolved &&= base.resolved;
      profile ??= base.profile;
    }
  }
  const parsed = parseUrl(url);
  const written = value.derived || targetUrl ? site.url : undefined;
  const fromProfile = profile ? { profile } : {};
  if (!parsed) return { targetService: '', path: joinPath('', url.split(/[?#]/)[0]!), resolved: false, ...(written ? { written } : {}), ...fromProfile };
  const hostKnown = !/[{}]/.test(parsed.host);
  return {
    targetService: hostKnown ? parsed.host : '',
    path: joinPath('', parsed.path),
    ...(targetUrl ? { targetUrl } : {}),
    resolved: resolved && hostKnown,
    ...(written ? { written } : {}),
    ...fromProfile,
  };
}
