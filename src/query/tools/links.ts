import { FORWARDING_FRAMEWORKS } from '../../graph/ontology/code.js';
import type { EdgeRow, Predicate } from '../../graph/store.js';
import type { NodeRecord, PropValue } from '../../graph/types.js';
import { asEnum, asInteger, asStringList } from '../coerce.js';
import { fail } from '../errors.js';
import { limitHints, type Hint } from '../hints.js';
import { limitParam, offsetParam, stringListSchema, type ToolContext, type ToolDef } from '../tool.js';
import { edgesAround } from '../walk.js';

/** What a link report lists: HTTP clients, message sends, listeners, gateway and proxy routes. */
export const LINK_KINDS = ['http', 'message', 'listener', 'gateway'] as const;
export type LinkKind = (typeof LINK_KINDS)[number];

/**
 * Where a link stands: `linked` (it reaches declared routes or listeners), `guessed` (its target service is not
 * known, and the one route in the estate with its method and path is taken, at a lower confidence), `ambiguous` (several routes fit),
 * `external` (its host is outside the estate), `deployed` (its target is a service the estate deploys without
 * source), `unmatched` (its target is known, nothing declared there fits), `no_consumer` (a send nobody in the
 * estate reads), `unresolved` (the estate does not say where it goes), and for listeners and gateway routes
 * `resolved` / `unresolved`.
 */
export const LINK_STATUSES = ['linked', 'guessed', 'ambiguous', 'external', 'deployed', 'unmatched', 'no_consumer', 'resolved', 'unresolved'] as const;
export type LinkStatus = (typeof LINK_STATUSES)[number];

const PAGE = 2000;

export interface LinkTarget {
  id: string;
  qualified_name: string;
  service?: string;
  /** The handler of a route or listener: `pkg.Type#method(Args)`. */
  handler?: string;
  method?: string;
  path?: string;
  declared: boolean;
  /** The gateway or proxy route the call went through, when it did. */
  via?: string;
  strategy?: string;
  confidence?: number;
}

export interface LinkEntry {
  kind: LinkKind;
  /** The node of the link (the first, when the call site has one per value: see `ids`). */
  id: string;
  /** Every client or producer node of the call site, when its value takes several forms. */
  ids?: string[];
  name: string;
  service?: string;
  file?: string;
  line?: number;
  /** The calling method (clients, producers) or the handler (listeners). */
  member?: string;
  status: LinkStatus;
  protocol?: string;
  destination?: string;
  targets: LinkTarget[];
  /** Gateway and proxy routes: the services they forward to. */
  target_services?: string[];
  reason?: string;
  unresolved_kind?: string;
  unresolved_at?: string;
  value_from?: string[];
}

interface Counts {
  total: number;
  by_status: Partial<Record<LinkStatus, number>>;
  /** Share (0..1) with a known outcome: linked, external, deployed, no_consumer or resolved. */
  resolved_share: number;
}

/** The statuses with a known outcome: what `resolved_share` counts. */
export const KNOWN_STATUSES: readonly LinkStatus[] = ['linked', 'external', 'deployed', 'no_consumer', 'resolved'];
const KNOWN: ReadonlySet<LinkStatus> = new Set(KNOWN_STATUSES);

export const linksTool: ToolDef = {
  name: 'links',
  title: 'Coverage of the links between services',
  description: () =>
    [
      'The link report: per service, its HTTP clients, message sends, listeners and gateway routes, how many reach their target (linked, external, deployed, no consumer) and how many the estate does not resolve.',
      'Every unresolved one is listed, grouped by what its value stopped at (`unresolved_kind`: a configuration key no file sets, a key the deployment leaves to its environment, a parameter, a field, a call…) and that key or parameter (`unresolved_at`), with file and line: the list of what to fix, or to pin in sextant.yaml `links`.',
      '`include: "all"` lists every link with its targets (the routes a client reaches, through which gateway; the listeners a send reaches), paginated.',
    ].join('\n'),
  params: () => [
    { name: 'service', description: 'Only these services (names as `find kind=service` lists them).', schema: stringListSchema({ type: 'string' }) },
    { name: 'kinds', description: `Only these kinds of link: ${LINK_KINDS.join(', ')} (default all).`, schema: stringListSchema({ type: 'string', enum: [...LINK_KINDS] }) },
    { name: 'status', description: `With include "all": only links with these statuses (${LINK_STATUSES.join(', ')}).`, schema: stringListSchema({ type: 'string', enum: [...LINK_STATUSES] }) },
    { name: 'include', description: 'What to list besides the counts: "unresolved" (default: the unresolved ones, grouped by where they stopped) or "all" (every link with its targets).', schema: { type: 'string', enum: ['unresolved', 'all'], default: 'unresolved' } },
    limitParam(200, 2000),
    offsetParam,
  ],
  run: async (ctx, args) => {
    const services = asStringList(args.service, 'service');
    const kinds = new Set((asStringList(args.kinds, 'kinds') ?? [...LINK_KINDS]).map((k) => asEnum(k, 'kinds', LINK_KINDS, 'link kind')!));
    const statuses = asStringList(args.status, 'status')?.map((s) => asEnum(s, 'status', LINK_STATUSES, 'status')!);
    const include = asEnum(args.include ?? 'unresolved', 'include', ['unresolved', 'all'] as const, 'include') ?? 'unresolved';
    if (statuses && include !== 'all') fail({ code: 'invalid_argument', argument: 'status', message: '`status` filters the listed links: use it with include "all" (the default lists the unresolved ones).' });
    const limit = asInteger(args.limit, 'limit', { min: 1, max: 2000 }) ?? 200;
    const offset = asInteger(args.offset, 'offset', { min: 0, max: 1_000_000 }) ?? 0;
    if (services) await checkServices(ctx, services);

    const entries = await linkEntries(ctx, kinds, services);
    const summary = countsOf(entries);
    const byService = new Map<string, LinkEntry[]>();
    for (const e of entries) (byService.get(e.service ?? '') ?? byService.set(e.service ?? '', []).get(e.service ?? '')!).push(e);
    const result: Record<string, unknown> = {
      ok: true,
      summary,
      services: [...byService.keys()].sort().map((s) => ({ service: s || null, ...countsOf(byService.get(s)!) })),
    };
    const hints: (Hint | undefined)[] = [];
    if (include === 'all') {
      const listed = statuses ? entries.filter((e) => statuses.includes(e.status)) : entries;
      result.total = listed.length;
      result.has_more = offset + limit < listed.length;
      result.links = listed.slice(offset, offset + limit);
      if (result.has_more) hints.push({ tool: 'links', args: { ...(services ? { service: services } : {}), kinds: [...kinds], ...(statuses ? { status: statuses } : {}), include, limit, offset: offset + limit }, reason: `next page (${listed.length - offset - limit} more)` });
    } else {
      const open = entries.filter((e) => e.status === 'unresolved');
      const groups = new Map<string, { unresolved_kind: string | null; unresolved_at: string | null; count: number; links: LinkEntry[] }>();
      for (const e of open) {
        const key = `${e.unresolved_kind ?? ''}\0${e.unresolved_at ?? ''}`;
        let g = groups.get(key);
        if (!g) groups.set(key, (g = { unresolved_kind: e.unresolved_kind ?? null, unresolved_at: e.unresolved_at ?? null, count: 0, links: [] }));
        g.count++;
        g.links.push(e);
      }
      const sorted = [...groups.values()].sort((a, b) => b.count - a.count || `${a.unresolved_kind}\0${a.unresolved_at}`.localeCompare(`${b.unresolved_kind}\0${b.unresolved_at}`));
      result.unresolved_total = open.length;
      let left = limit;
      result.unresolved = sorted.map((g) => {
        const shown = g.links.slice(0, Math.max(0, left));
        left -= shown.length;
        return { ...g, links: shown.map(brief) };
      });
      if (left < 0 || open.length > limit) result.has_more = true;
      const first = sorted[0]?.links[0];
      if (first) hints.push({ tool: 'describe', args: { id: first.id }, reason: `full record of the first unresolved ${first.kind === 'http' ? 'client' : first.kind}` });
      if (!entries.length) result.absence = { reason: 'no_links', message: services ? `${services.join(', ')} ${services.length > 1 ? 'have' : 'has'} no HTTP clients, message sends, listeners or gateway routes in the index.` : 'The index holds no HTTP clients, message sends, listeners or gateway routes (index a Java or Kotlin estate).' };
    }
    hints.push({ tool: 'find', args: { kind: 'service' }, reason: 'the services of the index' });
    result.hints = limitHints(hints);
    return result;
  },
};

/** An unresolved link as the grouped list shows it. */
function brief(e: LinkEntry): Record<string, unknown> {
  return { kind: e.kind, id: e.id, name: e.name, service: e.service, file: e.file, line: e.line, ...(e.member ? { member: e.member } : {}), ...(e.reason ? { reason: e.reason } : {}), ...(e.value_from ? { value_from: e.value_from } : {}) };
}

function countsOf(entries: readonly LinkEntry[]): Record<LinkKind, Counts> {
  const out = {} as Record<LinkKind, Counts>;
  for (const kind of LINK_KINDS) {
    const of = entries.filter((e) => e.kind === kind);
    const by: Partial<Record<LinkStatus, number>> = {};
    for (const e of of) by[e.status] = (by[e.status] ?? 0) + 1;
    const known = of.filter((e) => KNOWN.has(e.status)).length;
    out[kind] = { total: of.length, by_status: by, resolved_share: of.length ? Math.round((known / of.length) * 1000) / 1000 : 1 };
  }
  return out;
}

export async function checkServices(ctx: ToolContext, services: readonly string[]): Promise<void> {
  const { nodes } = await ctx.store.findNodes({ kinds: ['service'], predicates: [], limit: 10_000, offset: 0 });
  const names = new Set(nodes.map((n) => n.name));
  const missing = services.filter((s) => !names.has(s));
  if (!missing.length) return;
  const { closest } = await import('../../search/similarity.js');
  const near = closest(missing[0]!, [...names])[0];
  fail({ code: 'not_found', argument: 'service', message: `No service named ${JSON.stringify(missing[0])} in the index${near ? `; did you mean ${JSON.stringify(near)}?` : ''}. Services: ${[...names].sort().slice(0, 30).join(', ')}${names.size > 30 ? ', …' : ''}.` });
}

export async function allNodes(ctx: ToolContext, kind: string, predicates: Predicate[]): Promise<NodeRecord[]> {
  const out: NodeRecord[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const { nodes, total } = await ctx.store.findNodes({ kinds: [kind], predicates, limit: PAGE, offset });
    out.push(...nodes);
    if (offset + nodes.length >= total || !nodes.length) break;
  }
  return out;
}

function edgesByOrigin(rows: readonly EdgeRow[]): Map<string, EdgeRow[]> {
  const out = new Map<string, EdgeRow[]>();
  for (const r of rows) (out.get(r.origin) ?? out.set(r.origin, []).get(r.origin)!).push(r);
  return out;
}

function str(v: PropValue | undefined): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function holeFields(n: NodeRecord): Pick<LinkEntry, 'reason' | 'unresolved_kind' | 'unresolved_at' | 'value_from'> {
  const from = Array.isArray(n.props.value_from) ? n.props.value_from.map(String) : undefined;
  return { ...(str(n.props.unresolved_reason) ? { reason: str(n.props.unresolved_reason) } : {}), ...(str(n.props.unresolved_kind) ? { unresolved_kind: str(n.props.unresolved_kind) } : {}), ...(str(n.props.unresolved_at) ? { unresolved_at: str(n.props.unresolved_at) } : {}), ...(from?.length ? { value_from: from } : {}) };
}

function targetOf(r: NodeRecord, edge?: EdgeRow, via?: string): LinkTarget {
  return {
    id: r.id,
    qualified_name: r.qualified_name,
    ...(r.service ? { service: r.service } : {}),
    ...(str(r.props.handler) ? { handler: str(r.props.handler) } : {}),
    ...(str(r.props.http_method) ? { method: str(r.props.http_method) } : {}),
    ...(str(r.props.path) ? { path: str(r.props.path) } : {}),
    declared: r.props.declared !== false,
    ...(via ? { via } : {}),
    ...(edge && typeof edge.attrs.strategy === 'string' ? { strategy: edge.attrs.strategy } : {}),
    ...(edge && typeof edge.attrs.confidence === 'number' ? { confidence: edge.attrs.confidence } : {}),
  };
}

/** Every link of the index (of `services`, when given), each with its status and targets, in a stable order. */
export async function linkEntries(ctx: ToolContext, kinds: ReadonlySet<LinkKind>, services?: readonly string[]): Promise<LinkEntry[]> {
  const inServices: Predicate[] = services ? [{ property: 'service', op: 'in', values: [...services] }] : [];
  const serviceNodes = await allNodes(ctx, 'service', []);
  // A service only the deployment has (an image, no source) is where a call is `deployed`, not unmatched.
  const sourceless = new Set(serviceNodes.filter((s) => Number(s.props.files ?? 0) === 0).map((s) => s.name));
  const out: LinkEntry[] = [];
  const gatewayTargets = async (routes: readonly NodeRecord[]): Promise<Map<string, EdgeRow[]>> => edgesByOrigin(await edgesAround(ctx, routes.map((r) => r.id), 'out', ['FORWARDS'], 0));

  if (kinds.has('http')) {
    const clients = await allNodes(ctx, 'client', inServices);
    const calls = edgesByOrigin(await edgesAround(ctx, clients.map((c) => c.id), 'out', ['HTTP_CALLS'], 0));
    const gateways = [...calls.values()].flat().map((r) => r.other).filter((r) => FORWARDING_FRAMEWORKS.has(String(r.props.framework)));
    const forwards = await gatewayTargets(gateways);
    for (const c of clients) {
      const edges = calls.get(c.id) ?? [];
      const targets: LinkTarget[] = [];
      for (const e of edges) {
        const via = FORWARDING_FRAMEWORKS.has(String(e.other.props.framework)) ? e.other : undefined;
        // Through a gateway: the routes it forwards this call's method and path to.
        if (via && forwards.get(via.id)?.length) {
          for (const f of forwards.get(via.id)!) if (forwardedFits(c, f)) targets.push(targetOf(f.other, e, via.qualified_name));
        } else targets.push(targetOf(e.other, e));
      }
      const match = String(c.props.match ?? 'unmatched');
      const declared = targets.filter((t) => t.declared);
      const target = str(c.props.target_service);
      let status: LinkStatus;
      if (match === 'external') status = 'external';
      else if (c.props.resolved === false && !declared.length) status = 'unresolved';
      else if (match === 'ambiguous') status = 'ambiguous';
      else if (declared.length) status = declared.every((t) => t.strategy === 'method_path') ? 'guessed' : 'linked';
      // The target as matching named it: the host, or the service a deployment host stands for (a compose service name).
      else if ((target && sourceless.has(target)) || (targets.length > 0 && targets.every((t) => t.service !== undefined && sourceless.has(t.service)))) status = 'deployed';
      else status = c.props.resolved === false ? 'unresolved' : 'unmatched';
      out.push({ kind: 'http', id: c.id, name: c.name, ...place(c), ...(str(c.props.caller) ? { member: str(c.props.caller) } : {}), status, protocol: 'http', targets: status === 'external' ? targets : declared.length ? declared : targets, ...holeFields(c) });
    }
  }
  if (kinds.has('message')) {
    const producers = await allNodes(ctx, 'producer', inServices);
    const sends = edgesByOrigin(await edgesAround(ctx, producers.map((p) => p.id), 'out', ['ASYNC_CALLS'], 0));
    for (const p of producers) {
      const targets = (sends.get(p.id) ?? []).map((e) => targetOf(e.other, e)).filter((t) => t.declared);
      const status: LinkStatus = targets.length ? 'linked' : p.props.resolved === false ? 'unresolved' : 'no_consumer';
      out.push({ kind: 'message', id: p.id, name: p.name, ...place(p), ...(str(p.props.caller) ? { member: str(p.props.caller) } : {}), status, ...(str(p.props.protocol) ? { protocol: str(p.props.protocol) } : {}), ...(str(p.props.destination) ? { destination: str(p.props.destination) } : {}), targets, ...holeFields(p) });
    }
  }
  if (kinds.has('listener') || kinds.has('gateway')) {
    const routes = (await allNodes(ctx, 'route', inServices)).filter((r) => r.props.declared !== false);
    const gateways = routes.filter((r) => FORWARDING_FRAMEWORKS.has(String(r.props.framework)));
    if (kinds.has('listener')) {
      for (const r of routes) {
        if (r.props.protocol === 'http') continue;
        out.push({ kind: 'listener', id: r.id, name: r.name, ...place(r), ...(str(r.props.handler) ? { member: str(r.props.handler) } : {}), status: r.props.resolved === false ? 'unresolved' : 'resolved', ...(str(r.props.protocol) ? { protocol: str(r.props.protocol) } : {}), ...(str(r.props.destination) ? { destination: str(r.props.destination) } : {}), targets: [], ...holeFields(r) });
      }
    }
    if (kinds.has('gateway')) {
      const forwards = await gatewayTargets(gateways);
      for (const g of gateways) {
        const targets = (forwards.get(g.id) ?? []).map((e) => targetOf(e.other, e));
        const services = [...new Set([...(Array.isArray(g.props.target_services) ? g.props.target_services.map(String) : []), ...targets.map((t) => t.service ?? '').filter(Boolean)])].sort();
        // A route forwards to services (whether or not a route of theirs takes the path); one only the deployment has is `deployed`.
        const status: LinkStatus = g.props.resolved === false && !services.length ? 'unresolved' : !services.length ? 'unmatched' : services.every((s) => sourceless.has(s)) ? 'deployed' : 'linked';
        out.push({ kind: 'gateway', id: g.id, name: g.name, ...place(g), status, protocol: 'http', targets, ...(services.length ? { target_services: services } : {}), ...holeFields(g) });
      }
    }
  }
  const merged = mergeCallSites(out);
  for (const e of merged) e.targets.sort(byTargetOrder);
  return merged.sort((a, b) => `${a.service ?? ''}\0${a.file ?? ''}\0${String(a.line ?? 0).padStart(7, '0')}\0${a.kind}\0${a.id}`.localeCompare(`${b.service ?? ''}\0${b.file ?? ''}\0${String(b.line ?? 0).padStart(7, '0')}\0${b.kind}\0${b.id}`));
}

/**
 * Targets best first (highest confidence), then by name: an order of what they are, not of their ids, so the same
 * estate lists the same targets in the same order however it was split into sources.
 */
function byTargetOrder(a: LinkTarget, b: LinkTarget): number {
  return (b.confidence ?? 1) - (a.confidence ?? 1) || a.qualified_name.localeCompare(b.qualified_name) || (a.via ?? '').localeCompare(b.via ?? '') || a.id.localeCompare(b.id);
}

/** How far a link got, best first: a call site whose value takes several forms (one per environment) is as good as its best. */
const STATUS_RANK: readonly LinkStatus[] = ['linked', 'deployed', 'external', 'no_consumer', 'resolved', 'guessed', 'ambiguous', 'unmatched', 'unresolved'];

/**
 * One entry per call site: a call whose URL or destination takes several values (per profile or deployment
 * environment) is one client or producer node per value in the graph, and one link here, with every target and the
 * best status its values reach.
 */
function mergeCallSites(entries: readonly LinkEntry[]): LinkEntry[] {
  const out: LinkEntry[] = [];
  const bySite = new Map<string, LinkEntry>();
  for (const e of entries) {
    if (e.kind !== 'http' && e.kind !== 'message') {
      out.push(e);
      continue;
    }
    const key = `${e.kind}\0${e.file ?? ''}\0${e.line ?? 0}\0${e.member ?? ''}`;
    const seen = bySite.get(key);
    if (!seen) {
      const copy = { ...e, targets: [...e.targets], ids: [e.id] };
      bySite.set(key, copy);
      out.push(copy);
      continue;
    }
    (seen as LinkEntry & { ids: string[] }).ids.push(e.id);
    for (const t of e.targets) if (!seen.targets.some((x) => x.id === t.id)) seen.targets.push(t);
    if (STATUS_RANK.indexOf(e.status) < STATUS_RANK.indexOf(seen.status)) {
      seen.status = e.status;
      if (e.destination !== undefined) seen.destination = e.destination;
    }
    if (seen.status !== 'unresolved') {
      delete seen.reason;
      delete seen.unresolved_kind;
      delete seen.unresolved_at;
    }
  }
  return out;
}

/** Whether a gateway forwards a client's call to a route: methods fit, and its path is the route's request path. */
function forwardedFits(client: NodeRecord, forward: EdgeRow): boolean {
  const method = String(client.props.http_method ?? 'ANY');
  const routeMethod = String(forward.other.props.http_method ?? 'ANY');
  if (method !== 'ANY' && routeMethod !== 'ANY' && method !== routeMethod) return false;
  const request = forward.attrs.request_path;
  if (typeof request !== 'string') return true;
  const a = String(client.props.path_pattern ?? '').split('/');
  const b = request.replace(/\{[^}]*\}/g, '{}').split('/');
  return a.length === b.length && a.every((seg, i) => seg === b[i] || seg === '{}' || b[i] === '{}');
}

function place(n: NodeRecord): Pick<LinkEntry, 'service' | 'file' | 'line'> {
  return { ...(n.service ? { service: n.service } : {}), ...(n.file ? { file: n.file } : {}), ...(n.line ? { line: n.line } : {}) };
}
