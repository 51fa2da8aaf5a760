import { nodeId } from '../../../graph/ids.js';
import type { Ontology } from '../../../graph/ontology/index.js';
import { pathPattern } from '../../../graph/ontology/code.js';
import type { EdgeRecord, NodeRecord } from '../../../graph/types.js';
import type { CallResolver } from '../model/calls.js';
import { ConfigView } from '../eval/config.js';
import { Evaluator } from '../eval/evaluator.js';
import { LIBRARY } from '../eval/library.js';
import { type Hole, holeName, holeProps, isAbsoluteUrl, joinPath, literal, render, type Value } from '../eval/value.js';
import type { ValueOp } from '../eval/library.js';
import type { Site } from '../eval/evaluator.js';
import type { CallFacts, Expr } from '../parse/ir.js';
import { exprText } from '../model/calls.js';
import { skipWarning } from '../warnings.js';
import { dslGatewayRoutes, type GatewayRoute } from './gateways.js';
import { callExpr, declarationOf, type MessagingContext, producerNodes, type RabbitBinding, receiversOf } from './outbound-messages.js';
import { hostTemplateOf, type ServiceInfo } from '../config/layout.js';
import type { CodeModel, MemberEntry } from '../model/model.js';
import { joinPath as joinPathText } from './routes.js';

/**
 * A call site the estate-wide pass reads, found while its file was emitted: one that sends an HTTP request or a
 * message, or ends a declaration built as a chain (a Rabbit binding or queue, an Eventuate handler), per its row in
 * the library table.
 */
export interface OutboundSink {
  kind: 'http' | 'message' | 'declares';
  file: string;
  /** Qualified name of the calling member. */
  member: string;
  /** Index of the call in the member's calls; -1 for a call in a field initializer, given as `expr` at `line`. */
  call: number;
  expr?: Extract<Expr, { k: 'call' }>;
  line?: number;
  /** The library type the call landed on. */
  owner: string;
}

/** At most this many clients are made for one call site whose URL can take several values. */
const MAX_URLS_PER_SITE = 16;

/** Where a URL value goes: the host (a service, discovery or deployment name), the path, and what is unknown. */
export interface UrlTarget {
  targetService: string;
  path: string;
  resolved: boolean;
  reason?: string;
  from: string[];
  profile?: string;
  /** The client's base URL, when a relative URL was resolved against it. */
  targetUrl?: string;
  /** Where an unresolved URL stopped. */
  hole?: Hole;
  /** The port written after a loopback host (`localhost:8099`): the service listening there is the target. */
  port?: number;
}

const URL_HEAD = /^([a-z][a-z0-9+.-]*:)?\/\/([^/:?#]*)(?::([^/?#]*))?/i;

/**
 * The target of one URL value. A hole in the scheme or host leaves the target unknown, with the hole's origin —
 * unless the host, holes and all, is a host template a service is known by (`bulk-scan-processor-${env}.internal`,
 * from the ingress hosts of its chart): `knownHost` says which hosts some service or deployment answers to.
 */
export function urlTarget(value: Value, knownHost: (host: string) => boolean = () => false, outsideHost: (template: string) => boolean = () => false): UrlTarget {
  const text = render(value);
  const base = { from: value.from, ...(value.profile ? { profile: value.profile } : {}) };
  const firstHole = value.pieces.find((p) => p.hole)?.hole;
  const head = URL_HEAD.exec(text);
  if (head) {
    const hostEnd = head[0].length;
    let at = 0;
    for (const p of value.pieces) {
      const len = p.s !== undefined ? p.s.length : `{${holeName(p.hole)}}`.length;
      if (p.hole && at < hostEnd) {
        const template = hostTemplateOf(value.pieces);
        // A known host template names its service; one whose platform-filled parts leave a name the estate does not
        // run names a host outside it (matched as external, never by its path alone).
        if (template && (knownHost(template) || outsideHost(template))) return { targetService: template, path: pathOf(text.slice(hostEnd)), resolved: true, ...base };
        return { targetService: '', path: pathOf(text.slice(hostEnd)), resolved: false, reason: `the host is ${p.hole.origin}`, hole: p.hole, ...base };
      }
      at += len;
    }
    const port = head[3] && /^\d+$/.test(head[3]) && LOOPBACK_HOST.test(head[2]!) ? Number(head[3]) : undefined;
    return { targetService: head[2]!, path: pathOf(text.slice(hostEnd)), resolved: true, ...(port !== undefined ? { port } : {}), ...base };
  }
  const first = value.pieces[0];
  if (!first) return { targetService: '', path: '', resolved: false, reason: 'the URL is empty', ...base };
  if (first.hole) return { targetService: '', path: text, resolved: false, reason: `the URL starts with ${first.hole.origin}`, hole: first.hole, ...base };
  // A relative path: the client's base is not stated, so the call is matched by method and path.
  return { targetService: '', path: pathOf(text), resolved: !firstHole || text.startsWith('/'), ...(firstHole && !text.startsWith('/') ? { reason: firstHole.origin, hole: firstHole } : {}), ...base };
}

/**
 * The URLs a sink's `url` operation gives. For `resolve(base, ref)`: an absolute reference stands alone; a relative
 * one follows a base the estate states, and without one (an injected client) stays relative, to be matched by
 * method and path.
 */
function urlValues(evaluator: Evaluator, op: ValueOp, expr: Extract<Expr, { k: 'call' }>, site: Site): { value: Value; base?: string }[] {
  if (op.op !== 'resolve') return evaluator.apply(op, expr, site, 0).map((value) => ({ value }));
  const [baseOp = 'empty', refOp = 'empty'] = op.operands;
  const refs = evaluator.apply({ op: 'id', operands: [refOp] }, expr, site, 0);
  const out: { value: Value; base?: string }[] = [];
  for (const ref of refs) {
    if (isAbsoluteUrl(ref)) {
      out.push({ value: ref });
      continue;
    }
    const bases = evaluator.apply({ op: 'id', operands: [baseOp] }, expr, site, 0).filter((b) => b.pieces.length > 0 && !b.bound);
    const known = bases.filter((b) => !b.pieces.some((p) => p.hole));
    if (!bases.length || known.length < bases.length) out.push({ value: ref });
    else for (const b of known) out.push({ value: joinPath([b], [ref])[0]!, base: render(b) });
  }
  return out;
}

/**
 * A client interface's declared call placed on a base URL code gives it elsewhere: the call's path joined to each
 * base (a host names the target service); the node is copied, never changed in place (emissions are reused).
 */
export function withClientBase(node: NodeRecord, given: readonly Value[], knownHost?: (host: string) => boolean, outsideHost?: (template: string) => boolean): NodeRecord {
  // A base left empty by configuration no file sets is not known: it stops at that key.
  const bases = given.map((b) => (b.pieces.length || b.unset === undefined ? b : { ...b, pieces: [{ hole: { origin: `configuration key ${b.unset}, set by no file in the estate (its default is empty)`, kind: 'configuration' as const, at: b.unset } }] }));
  const known = bases.filter((b) => !b.pieces.some((p) => p.hole));
  const base = known[0];
  if (!base || known.some((b) => render(b) !== render(base))) {
    const hole = !base ? bases[0]?.pieces.find((p) => p.hole)?.hole : undefined;
    const reason = !base ? hole?.origin : 'the interface is built on several base URLs';
    return reason ? { ...node, props: { ...node.props, unresolved_reason: `the base URL is ${reason}`, ...holeProps(hole) } } : node;
  }
  const t = urlTarget(joinPath([base], literal(String(node.props.path)))[0]!, knownHost, outsideHost);
  const method = String(node.props.http_method);
  const props = { ...node.props, path: t.path, path_pattern: pathPattern(t.path), target_url: render(base), ...(t.targetService ? { target_service: t.targetService } : {}), ...(t.port !== undefined ? { target_port: t.port } : {}), ...(base.from.length ? { value_from: base.from } : {}), resolved: t.resolved };
  return { ...node, name: `${method} ${t.path}`, qualified_name: `${node.service} -> ${t.targetService || '?'} ${method} ${t.path}`, props };
}

/** A parameter decides a URL when it stands in its scheme or host, or at its start (the whole URL or its base). */
const LOOPBACK_HOST = /^(?:localhost|127(?:\.\d{1,3}){3}|0\.0\.0\.0|\[?::1\]?)$/i;

function decidesUrl(values: readonly Value[], marker: string): boolean {
  return values.some((v) => {
    if (v.pieces[0]?.hole?.marker === marker) return true;
    const head = URL_HEAD.exec(render(v));
    if (!head) return false;
    let at = 0;
    for (const p of v.pieces) {
      if (at >= head[0].length) break;
      if (p.hole?.marker === marker) return true;
      at += p.s !== undefined ? p.s.length : `{${holeName(p.hole)}}`.length;
    }
    return false;
  });
}

/** A call in a field initializer, as the call facts of a member body would give it. */
function callFactsOf(expr: Extract<Expr, { k: 'call' }>, line: number): CallFacts {
  return { kind: 'call', name: expr.name, argCount: expr.argCount, args: (expr.args ?? []).map(exprText), line, ...(expr.of ? { receiver: expr.of } : {}), ...(expr.args ? { values: expr.args } : {}) };
}

function pathOf(rest: string): string {
  return joinPathText('', rest.split(/[?#]/)[0]!);
}

const FRAMEWORKS: [RegExp, string][] = [
  [/WebClient/, 'web_client'],
  [/RestClient/, 'rest_client'],
  [/Rest(?:Template|Operations)/, 'rest_template'],
  [/^java\.net\.http\./, 'java_http_client'],
];

/**
 * The nodes of call sites that send HTTP requests or messages, and of declarations built as library call chains
 * (Rabbit bindings and dead-letter queues, Eventuate handlers), evaluated with the whole estate in view: a value can
 * follow fields, constructor arguments, helper methods and configuration wherever they are, so this runs after every
 * file is emitted, on every assembly.
 */
export function outboundGraph(input: {
  ontology: Ontology;
  source: string;
  model: CodeModel;
  resolver: CallResolver;
  services: readonly ServiceInfo[];
  sinks: readonly OutboundSink[];
  memberId: (member: MemberEntry) => string;
  /** Whether a service or deployment of the estate answers to a host (a host template with holes included). */
  knownHost?: (host: string) => boolean;
  /** Whether a host template names a host outside the estate ({@link isOutsideHostTemplate}). */
  outsideHost?: (template: string) => boolean;
}): {
  nodes: NodeRecord[];
  edges: EdgeRecord[];
  bindings: RabbitBinding[];
  files: Set<string>;
  gatewayRoutes: { service: string; route: GatewayRoute }[];
  /** Base URLs of client interfaces built in code (HttpServiceProxyFactory, Feign builders), by interface. */
  clientBases: Map<string, Value[]>;
  /** Call sites skipped on a value they could not read, each naming `file:line`. */
  warnings: string[];
} {
  const nodes: NodeRecord[] = [];
  const edges: EdgeRecord[] = [];
  const bindings: RabbitBinding[] = [];
  const files = new Set<string>();
  if (!input.sinks.length) return { nodes, edges, bindings, files, gatewayRoutes: [], clientBases: new Map(), warnings: [] };
  const views = new Map<string, ConfigView>();
  const configOf = (service: string): ConfigView => {
    let view = views.get(service);
    if (!view) {
      const s = input.services.find((x) => x.name === service);
      views.set(service, (view = new ConfigView(s?.config ?? {}, s?.profiles ?? {}, s?.configOrigins ?? {}, s?.configHoles ?? {})));
    }
    return view;
  };
  const evaluator = new Evaluator(input.model, input.resolver, configOf);
  const knownHost = input.knownHost ?? (() => false);
  const outsideHost = input.outsideHost ?? (() => false);
  const members = new Map<string, MemberEntry>();
  const sinkFiles = new Set(input.sinks.map((s) => s.file));
  for (const t of input.model.types) if (sinkFiles.has(t.file.path)) for (const m of t.members) members.set(`${t.file.path}\0${m.qn}`, m);
  const used = new Set<string>();
  const binderOf = (service: string): 'kafka' | 'rabbit' | undefined => input.services.find((x) => x.name === service)?.streamBinder;
  const messaging: MessagingContext = { ontology: input.ontology, source: input.source, evaluator, resolver: input.resolver, model: input.model, configOf, binderOf, memberId: input.memberId, used, nodes, edges, bindings, files, relayed: new Set() };
  const receivers = new Map<MemberEntry, Set<string>>();
  const gatewayCalls = new Map<MemberEntry, CallFacts[]>();
  const clientBases = new Map<string, Value[]>();
  const warnings: string[] = [];
  for (const sink of input.sinks) {
    try {
      readSink(sink);
    } catch (err) {
      warnings.push(skipWarning(`${sink.file}:${sink.line ?? members.get(`${sink.file}\0${sink.member}`)?.facts.calls[sink.call]?.line ?? 0}`, sink.kind === 'http' ? 'HTTP client' : sink.kind === 'message' ? 'message send' : 'declaration', err));
    }
  }
  function readSink(sink: OutboundSink): void {
    const caller = members.get(`${sink.file}\0${sink.member}`);
    const call = sink.expr ? callFactsOf(sink.expr, sink.line ?? 0) : caller?.facts.calls[sink.call];
    const library = call && LIBRARY.method(sink.owner, call.name);
    if (!caller || !call || !library) return;
    if (sink.kind === 'message' && library.message) producerNodes(messaging, caller, call, library.message);
    if (sink.kind === 'declares' && library.declares?.what === 'client_base') {
      // `factory.createClient(OrdersApi.class)`, `Feign.builder()…target(OrdersApi.class, url)`: where an interface's calls go.
      const expr = callExpr(call);
      const site = { owner: caller.owner, member: caller, line: call.line };
      const roles = library.roles ?? {};
      evaluator.inService(caller.owner.place.service, () => {
        const iface = roles.interface ? evaluator.apply(roles.interface, expr, site, 0) : [];
        const bases = roles.base ? evaluator.apply(roles.base, expr, site, 0).filter((b) => (b.pieces.length > 0 || b.unset !== undefined) && b.bound === undefined) : [];
        for (const i of iface) {
          if (i.pieces.some((p) => p.hole)) continue;
          const list = clientBases.get(render(i)) ?? clientBases.set(render(i), []).get(render(i))!;
          list.push(...bases);
        }
      });
      files.add(caller.owner.file.path);
      return;
    }
    if (sink.kind === 'declares' && library.declares?.what === 'gateway_route') {
      const list = gatewayCalls.get(caller) ?? gatewayCalls.set(caller, []).get(caller)!;
      list.push(call);
      return;
    }
    if (sink.kind === 'declares' && library.declares) {
      let inner = receivers.get(caller);
      if (!inner) receivers.set(caller, (inner = receiversOf(caller)));
      declarationOf(messaging, caller, call, library, inner);
    }
    const row = library.http;
    if (sink.kind !== 'http' || !row) return;
    const expr = callExpr(call);
    if (expr.k !== 'call') return;
    const site = { owner: caller.owner, member: caller, line: call.line };
    const service = caller.owner.place.service;
    const httpMethod = evaluator.httpMethodOf(row.method, expr, site);
    const framework = FRAMEWORKS.find(([re]) => re.test(sink.owner))?.[1] ?? 'rest_template';
    const urlArg = row.url.operands.find((o) => /^arg\d$/.test(o));
    // The URL is chosen where the call is made, or at each call site of the helper whose parameters make it.
    const chosen = evaluator.inService(service, () =>
      evaluator.choosers(caller, call.line, (bindings) => urlValues(evaluator, row.url, expr, bindings ? { ...site, bindings } : site), (r) => r.map((x) => x.value), decidesUrl),
    );
    for (const { member: chooser, line, result } of chosen) {
      const written = chooser === caller && line === call.line && urlArg ? call.args[Number(urlArg.slice(3))] : undefined;
      const targets = new Map<string, UrlTarget>();
      for (const { value, base } of result.slice(0, MAX_URLS_PER_SITE)) {
        const t = urlTarget(value, knownHost, outsideHost);
        // A URL the source does not state from its start has no path to match: it is kept as written.
        if (t.reason?.startsWith('the URL starts with') && written !== undefined) t.path = written;
        if (base) t.targetUrl = base;
        targets.set(`${t.targetService}\0${t.path}`, t);
      }
      clientNodes(chooser, line, httpMethod, framework, written, [...targets.values()]);
    }
  }

  function clientNodes(caller: MemberEntry, line: number, httpMethod: string, framework: string, written: string | undefined, targets: readonly UrlTarget[]): void {
    const service = caller.owner.place.service;
    const file = caller.owner.file.path;
    for (const t of targets) {
      let id = nodeId(input.ontology, input.source, 'client', `${file}|${caller.qn}@${line}|${httpMethod} ${t.targetService} ${t.path}`);
      for (let n = 2; used.has(id); n++) id = nodeId(input.ontology, input.source, 'client', `${file}|${caller.qn}@${line}|${httpMethod} ${t.targetService} ${t.path}~${n}`);
      used.add(id);
      nodes.push({
        id,
        kind: 'client',
        name: `${httpMethod} ${t.path}`,
        qualified_name: `${service} -> ${t.targetService || '?'} ${httpMethod} ${t.path}`,
        source: input.source,
        service,
        module: caller.owner.place.module,
        file,
        line,
        props: {
          protocol: 'http',
          http_method: httpMethod,
          path: t.path,
          path_pattern: pathPattern(t.path),
          ...(written !== undefined && !/^"[^"]*"$/.test(written.trim()) ? { path_written: written } : {}),
          ...(t.targetService ? { target_service: t.targetService } : {}),
          ...(t.port !== undefined ? { target_port: t.port } : {}),
          ...(t.targetUrl ? { target_url: t.targetUrl } : {}),
          framework,
          caller: caller.qn,
          match: 'unmatched',
          resolved: t.resolved,
          ...(t.reason ? { unresolved_reason: t.reason } : {}),
          ...holeProps(t.hole),
          ...(t.from.length ? { value_from: t.from } : {}),
          ...(t.profile ? { profile: t.profile } : {}),
        },
      });
      edges.push({ type: 'DECLARES_CLIENT', from: input.memberId(caller), to: id });
    }
  }
  const gatewayRoutes: { service: string; route: GatewayRoute }[] = [];
  for (const [member, calls] of gatewayCalls) {
    const service = member.owner.place.service;
    const argValues = (call: CallFacts, index: number): string[] => {
      const arg = call.values?.[index];
      if (!arg) return [];
      if (arg.k === 'literal' && arg.value === undefined && /^\d+$/.test(call.args[index] ?? '')) return [call.args[index]!];
      const values = evaluator.inService(service, () => evaluator.values(arg, { owner: member.owner, member, line: call.line }));
      return values.filter((v) => !v.pieces.some((p) => p.hole)).map(render);
    };
    for (const route of dslGatewayRoutes(member, calls, argValues)) gatewayRoutes.push({ service, route });
  }
  for (const n of nodes) files.add(n.file ?? '');
  for (const g of gatewayRoutes) files.add(g.route.file ?? '');
  return { nodes, edges, bindings, files, gatewayRoutes, clientBases, warnings };
}
