import { nodeId } from '../../graph/ids.js';
import type { Ontology } from '../../graph/ontology/index.js';
import { pathPattern } from '../../graph/ontology/code.js';
import type { EdgeRecord, NodeRecord } from '../../graph/types.js';
import type { CallResolver } from './calls.js';
import { ConfigView } from './eval/config.js';
import { Evaluator } from './eval/evaluator.js';
import { LIBRARY } from './eval/library.js';
import { render, type Value } from './eval/value.js';
import type { Expr } from './ir.js';
import type { ServiceInfo } from './layout.js';
import type { CodeModel, MemberEntry } from './model.js';
import { joinPath } from './routes.js';

/** A call site that sends an HTTP request (a library method with an `http` row), found while its file was emitted. */
export interface OutboundSink {
  file: string;
  /** Qualified name of the calling member. */
  member: string;
  /** Index of the call in the member's calls. */
  call: number;
  /** The library type the call landed on. */
  owner: string;
}

/** At most this many clients are made for one call site whose URL can take several values. */
const MAX_URLS_PER_SITE = 4;

/** Where a URL value goes: the host (a service, discovery or deployment name), the path, and what is unknown. */
export interface UrlTarget {
  targetService: string;
  path: string;
  resolved: boolean;
  reason?: string;
  from: string[];
  profile?: string;
}

const URL_HEAD = /^([a-z][a-z0-9+.-]*:)?\/\/([^/:?#]*)(?::[^/?#]*)?/i;

/** The target of one URL value: a hole in the scheme or host leaves the target unknown, with the hole's origin. */
export function urlTarget(value: Value): UrlTarget {
  const text = render(value);
  const base = { from: value.from, ...(value.profile ? { profile: value.profile } : {}) };
  const firstHole = value.pieces.find((p) => p.hole)?.hole;
  const head = URL_HEAD.exec(text);
  if (head) {
    const hostEnd = head[0].length;
    let at = 0;
    for (const p of value.pieces) {
      const len = p.s !== undefined ? p.s.length : `{${p.hole.name ?? '?'}}`.length;
      if (p.hole && at < hostEnd) return { targetService: '', path: pathOf(text.slice(hostEnd)), resolved: false, reason: `the host is ${p.hole.origin}`, ...base };
      at += len;
    }
    return { targetService: head[2]!, path: pathOf(text.slice(hostEnd)), resolved: true, ...base };
  }
  const first = value.pieces[0];
  if (!first) return { targetService: '', path: '', resolved: false, reason: 'the URL is empty', ...base };
  if (first.hole) return { targetService: '', path: text, resolved: false, reason: `the URL starts with ${first.hole.origin}`, ...base };
  // A relative path: the client's base is not stated, so the call is matched by method and path.
  return { targetService: '', path: pathOf(text), resolved: !firstHole || text.startsWith('/'), ...(firstHole && !text.startsWith('/') ? { reason: firstHole.origin } : {}), ...base };
}

function pathOf(rest: string): string {
  return joinPath('', rest.split(/[?#]/)[0]!);
}

const FRAMEWORKS: [RegExp, string][] = [
  [/WebClient/, 'web_client'],
  [/RestClient/, 'rest_client'],
  [/Rest(?:Template|Operations)/, 'rest_template'],
];

/**
 * The client nodes of call sites that send HTTP requests, evaluated with the whole estate in view: the URL's values
 * follow fields, constructor arguments, helper methods and configuration wherever they are, so this runs after
 * every file is emitted, on every assembly.
 */
export function outboundHttpClients(input: {
  ontology: Ontology;
  source: string;
  model: CodeModel;
  resolver: CallResolver;
  services: readonly ServiceInfo[];
  sinks: readonly OutboundSink[];
  memberId: (member: MemberEntry) => string;
}): { nodes: NodeRecord[]; edges: EdgeRecord[] } {
  const nodes: NodeRecord[] = [];
  const edges: EdgeRecord[] = [];
  if (!input.sinks.length) return { nodes, edges };
  const views = new Map<string, ConfigView>();
  const configOf = (service: string): ConfigView => {
    let view = views.get(service);
    if (!view) {
      const s = input.services.find((x) => x.name === service);
      views.set(service, (view = new ConfigView(s?.config ?? {}, s?.profiles ?? {}, s?.configOrigins ?? {})));
    }
    return view;
  };
  const evaluator = new Evaluator(input.model, input.resolver, configOf);
  const members = new Map<string, MemberEntry>();
  const files = new Set(input.sinks.map((s) => s.file));
  for (const t of input.model.types) if (files.has(t.file.path)) for (const m of t.members) members.set(`${t.file.path}\0${m.qn}`, m);
  const used = new Set<string>();
  for (const sink of input.sinks) {
    const caller = members.get(`${sink.file}\0${sink.member}`);
    const call = caller?.facts.calls[sink.call];
    const row = call && LIBRARY.method(sink.owner, call.name)?.http;
    if (!caller || !call || !row) continue;
    const expr: Extract<Expr, { k: 'call' }> = { k: 'call', name: call.name, argCount: call.argCount, ...(call.receiver ? { of: call.receiver } : {}), ...(call.values ? { args: call.values } : {}) };
    const site = { owner: caller.owner, member: caller, line: call.line };
    const service = caller.owner.place.service;
    const httpMethod = evaluator.httpMethodOf(row.method, expr, site);
    const values = evaluator.inService(service, () => evaluator.apply(row.url, expr, site, 0));
    const framework = FRAMEWORKS.find(([re]) => re.test(sink.owner))?.[1] ?? 'rest_template';
    const targets = new Map<string, UrlTarget>();
    for (const v of values.slice(0, MAX_URLS_PER_SITE)) {
      const t = urlTarget(v);
      targets.set(`${t.targetService}\0${t.path}`, t);
    }
    for (const t of targets.values()) {
      let id = nodeId(input.ontology, input.source, 'client', `${sink.file}|${caller.qn}@${call.line}|${httpMethod} ${t.targetService} ${t.path}`);
      for (let n = 2; used.has(id); n++) id = nodeId(input.ontology, input.source, 'client', `${sink.file}|${caller.qn}@${call.line}|${httpMethod} ${t.targetService} ${t.path}~${n}`);
      used.add(id);
      const written = call.args[row.url.operands.find((o) => /^arg\d$/.test(o)) ? Number(row.url.operands.find((o) => /^arg\d$/.test(o))!.slice(3)) : 0];
      nodes.push({
        id,
        kind: 'client',
        name: `${httpMethod} ${t.path}`,
        qualified_name: `${service} -> ${t.targetService || '?'} ${httpMethod} ${t.path}`,
        source: input.source,
        service,
        module: caller.owner.place.module,
        file: caller.owner.file.path,
        line: call.line,
        props: {
          protocol: 'http',
          http_method: httpMethod,
          path: t.path,
          path_pattern: pathPattern(t.path),
          ...(written !== undefined && !/^"[^"]*"$/.test(written.trim()) ? { path_written: written } : {}),
          ...(t.targetService ? { target_service: t.targetService } : {}),
          framework,
          caller: caller.qn,
          match: 'unmatched',
          resolved: t.resolved,
          ...(t.reason ? { unresolved_reason: t.reason } : {}),
          ...(t.from.length ? { value_from: t.from } : {}),
          ...(t.profile ? { profile: t.profile } : {}),
        },
      });
      edges.push({ type: 'DECLARES_CLIENT', from: input.memberId(caller), to: id });
    }
  }
  return { nodes, edges };
}
