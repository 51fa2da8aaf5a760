/**
 * Questions people ask about code, as one command each (`sextant callers 'OrderService#place'`): the name is
 * resolved by the `resolve` tool and the graph walked by `neighbors` (or `find`), all through the tools in one
 * process, so the answer is the tools' answer. Which edges answer which question for which kind is the table below.
 */
import type { ToolResult } from '../../query/run.js';
import type { CliSession } from './session.js';
import { absenceText, compositionNote, formatResult, hintsText, linkNote, shellQuote, short, storeFlag, type FormatOptions } from './format.js';

type Json = Record<string, unknown>;
type Direction = 'in' | 'out';

/** How one shortcut answers for a node of one kind. */
interface Walk {
  kind: string;
  /** Only for a symbol that is a type (`type`) or a method or constructor (`member`); absent: any. */
  symbol?: 'type' | 'member';
  direction: Direction;
  edgeTypes: readonly string[];
  /** A type stands for itself and its members (DECLARES out): the callers of a class are its members' callers. */
  members?: boolean;
  /** Follow the edges again from each node reached, up to MAX_DEPTH (implementations of implementations). */
  transitive?: boolean;
  /** Also the routes the method (or the type's members) serve, and what reaches them: clients, producers, gateway routes. */
  routes?: boolean;
  /** Also the calls of the methods the origin implements or overrides (an interface's): they run it. */
  dispatch?: boolean;
  /** Name what each method reached is implemented or overridden by (a call of an interface method runs one of those). */
  implementations?: boolean;
  /**
   * A service's links, each with the client, producer or gateway route that makes it and the route it reaches: `out`
   * from the service's clients and producers, `in` to its routes.
   */
  links?: Direction;
  /** From a node of this kind reached, one hop more along these edges (a method's client, then the route it calls). */
  then?: Readonly<Record<string, readonly string[]>>;
}

export interface ShortcutDef {
  name: string;
  description: string;
  argument: string;
  /** The kind `resolve` is asked for, where only one kind can answer. */
  resolveKind?: string;
  walks: readonly Walk[];
  /** Singular and plural of what the answer lists. */
  noun: [string, string];
}

export const SHORTCUTS: readonly ShortcutDef[] = [
  {
    name: 'callers',
    description: 'Who calls a method (a type: any of its members; calls through the interface it implements included; for a handler, the clients and gateway routes reaching its routes too), a route (clients, producers, gateway routes) or a service',
    argument: 'a method (Type#method, Type.method), type, route (GET /owners/{id}) or service',
    walks: [
      { kind: 'symbol', direction: 'in', edgeTypes: ['CALLS'], members: true, routes: true, dispatch: true },
      { kind: 'route', direction: 'in', edgeTypes: ['HTTP_CALLS', 'ASYNC_CALLS', 'FORWARDS'] },
      { kind: 'service', direction: 'in', edgeTypes: ['SERVICE_CALLS'], links: 'in' },
    ],
    noun: ['caller', 'callers'],
  },
  {
    name: 'callees',
    description: 'What a method (a type: any of its members; a client method: its client and the route it calls), client, producer, gateway route or service calls',
    argument: 'a method (Type#method, Type.method), type, client, producer, route or service',
    walks: [
      { kind: 'symbol', direction: 'out', edgeTypes: ['CALLS', 'DECLARES_CLIENT', 'DECLARES_PRODUCER'], members: true, then: { client: ['HTTP_CALLS'], producer: ['ASYNC_CALLS'] }, implementations: true },
      { kind: 'client', direction: 'out', edgeTypes: ['HTTP_CALLS'] },
      { kind: 'producer', direction: 'out', edgeTypes: ['ASYNC_CALLS'] },
      { kind: 'route', direction: 'out', edgeTypes: ['FORWARDS'] },
      { kind: 'service', direction: 'out', edgeTypes: ['SERVICE_CALLS'], links: 'out' },
    ],
    noun: ['callee', 'callees'],
  },
  {
    name: 'impls',
    description: 'Implementations and subtypes of a type, or the overrides of a method, at any depth',
    argument: 'an interface, class or method',
    resolveKind: 'symbol',
    walks: [
      { kind: 'symbol', symbol: 'type', direction: 'in', edgeTypes: ['IMPLEMENTS', 'EXTENDS'], transitive: true },
      { kind: 'symbol', symbol: 'member', direction: 'in', edgeTypes: ['OVERRIDES'], transitive: true },
    ],
    noun: ['implementation', 'implementations'],
  },
  {
    name: 'usages',
    description: 'What uses a type: members and types naming it (fields, parameters, return types, locals, new, casts, annotations…)',
    argument: 'a type',
    resolveKind: 'symbol',
    walks: [{ kind: 'symbol', direction: 'in', edgeTypes: ['USES'] }],
    noun: ['usage', 'usages'],
  },
  {
    name: 'routes',
    description: 'The routes a service exposes (HTTP endpoints, gateway routes, message listeners)',
    argument: 'a service: its name, module or directory',
    resolveKind: 'service',
    walks: [],
    noun: ['route', 'routes'],
  },
];

const TYPE_KINDS = new Set(['class', 'interface', 'enum', 'record', 'annotation']);
/** Edge attributes the text shows (how an edge was made); `call` only where it is not a plain call. */
const SHOWN_ATTRS = ['via', 'match', 'protocol', 'call'] as const;
/** How deep a transitive walk goes; type hierarchies are shallower in practice. */
const MAX_DEPTH = 10;
/** The most edges one answer collects before paging (`--limit`, `--offset`) cuts it. */
const MAX_EDGES = 5000;
/** neighbors takes this many origin ids per call. */
const IDS_PER_CALL = 100;
const PAGE = 500;

export interface ShortcutOptions {
  limit?: string;
  offset?: string;
}

/** The answer and its exit code: 0 answered (an empty list included), 1 not one node or a tool error. */
export interface ShortcutAnswer {
  result: Json;
  code: number;
}

function symbolShape(node: Json): 'type' | 'member' | undefined {
  const sk = (node.attributes as Json | undefined)?.symbol_kind;
  return typeof sk === 'string' ? (TYPE_KINDS.has(sk) ? 'type' : 'member') : undefined;
}

function walkFor(def: ShortcutDef, node: Json): Walk | undefined {
  return def.walks.find((w) => w.kind === node.kind && (!w.symbol || w.symbol === symbolShape(node)));
}

function kindsOf(def: ShortcutDef): string[] {
  return def.resolveKind ? [def.resolveKind] : [...new Set(def.walks.map((w) => w.kind))];
}

function intOption(text: string | undefined, name: string, dflt: number, min: number, max: number): number | { error: string } {
  if (text === undefined) return dflt;
  const n = Number(text);
  return Number.isInteger(n) && n >= min && n <= max ? n : { error: `--${name} takes a whole number from ${min} to ${max}; got ${JSON.stringify(text)}` };
}

/** Resolves `identifier` as the shortcut's kinds allow: one node, or the resolve answer that says why not. */
function resolveTarget(session: CliSession, def: ShortcutDef, identifier: string): Promise<{ node: Json } | { answer: ToolResult }> {
  return resolveName(session, identifier, kindsOf(def), def.resolveKind);
}

/**
 * Resolves a name a command was given to one node of the kinds it answers for (`kind`: only that one): one node, or
 * the resolve answer that says why not.
 */
export async function resolveName(session: CliSession, identifier: string, answering: readonly string[], kind?: string): Promise<{ node: Json } | { answer: ToolResult }> {
  const first = await session.run('resolve', { identifier, ...(kind ? { kind } : {}) });
  if (!first.ok) return { answer: first };
  if (first.status === 'one') return { node: first.node as Json };
  if (first.status !== 'many' || kind) return { answer: first };
  // Several candidates of several kinds, of which one kind is one this command answers for: narrow to it, as
  // the resolve answer's own hint would (`kind`), rather than stop at candidates the command cannot use.
  const applicable = new Set(answering);
  const kinds = [...new Set((first.candidates as { node: Json }[]).map((c) => String(c.node.kind)))];
  const usable = kinds.filter((k) => applicable.has(k));
  if (usable.length !== 1 || usable.length === kinds.length) return { answer: first };
  const narrowed = await session.run('resolve', { identifier, kind: usable[0] });
  return narrowed.ok && narrowed.status === 'one' ? { node: narrowed.node as Json } : { answer: narrowed.ok && narrowed.status === 'many' ? narrowed : first };
}

/** Every edge of `edgeTypes` from `ids` in `direction`, through `neighbors`, page by page. */
async function collect(session: CliSession, ids: readonly string[], direction: Direction, edgeTypes: readonly string[], budget: number): Promise<{ edges: Json[]; truncated: boolean; answers: Json[] } | { failed: ToolResult }> {
  const edges: Json[] = [];
  const answers: Json[] = [];
  for (let i = 0; i < ids.length; i += IDS_PER_CALL) {
    const batch = ids.slice(i, i + IDS_PER_CALL);
    for (let offset = 0; ; offset += PAGE) {
      const r = await session.run('neighbors', { ids: batch, direction, edge_types: [...edgeTypes], limit: PAGE, offset });
      if (!r.ok) return { failed: r };
      answers.push(r);
      edges.push(...(r.edges as Json[]));
      if (edges.length >= budget) return { edges: edges.slice(0, budget), truncated: true, answers };
      if (!r.has_more) break;
    }
  }
  return { edges, truncated: false, answers };
}

function edgeKey(e: Json): string {
  return `${String(e.type)}\u0000${String(e.from)}\u0000${String(e.to)}\u0000${String(e.key ?? '')}`;
}

function sortKey(e: Json): string {
  const other = e.other as Json;
  const line = String((e.attrs as Json | undefined)?.line ?? other.line ?? 0).padStart(8, '0');
  return `${String(e.depth ?? 1).padStart(3, '0')}\u0000${String(other.qualified_name)}\u0000${line}\u0000${edgeKey(e)}`;
}

/** Runs one shortcut: resolve, then walk (or list a service's routes); the structured answer and its exit code. */
export async function runShortcut(session: CliSession, def: ShortcutDef, identifier: string, opts: ShortcutOptions): Promise<ShortcutAnswer> {
  const limit = intOption(opts.limit, 'limit', 50, 1, 500);
  const offset = intOption(opts.offset, 'offset', 0, 0, 100000);
  if (typeof limit === 'object') return usage(limit.error);
  if (typeof offset === 'object') return usage(offset.error);

  const missing = [...new Set(def.walks.flatMap((w) => w.edgeTypes))].filter((t) => !session.ontology.edgeType(t));
  if (missing.length && missing.length === new Set(def.walks.flatMap((w) => w.edgeTypes)).size) {
    return { code: 1, result: { ok: false, error: { code: 'unsupported', message: `\`${def.name}\` follows ${missing.join(', ')} edges, which this version of Sextant does not record.` } } };
  }

  const target = await resolveTarget(session, def, identifier);
  if ('answer' in target) return { code: 1, result: { ...target.answer, shortcut: def.name } };
  const node = target.node;

  if (def.name === 'routes') {
    const r = await session.run('find', { kind: 'route', filter: { service: String(node.name), declared: true }, limit, offset });
    if (!r.ok) return { code: 1, result: r };
    return { code: 0, result: { ...r, shortcut: def.name, target: node } };
  }

  const walk = walkFor(def, node);
  if (!walk) {
    const shapes = def.walks.map((w) => (w.symbol ? `${w.kind} (${w.symbol === 'type' ? 'a type' : 'a method or constructor'})` : w.kind));
    const others = SHORTCUTS.filter((d) => d !== def && walkFor(d, node)).map((d) => `\`sextant ${d.name}\``);
    const message = `\`${def.name}\` answers for ${shapes.join(', ')}; ${String(node.qualified_name)} is a ${String(node.kind)}${symbolShape(node) ? ` (${String((node.attributes as Json).symbol_kind)})` : ''}.${others.length ? ` For it, try ${others.join(' or ')}.` : ''}`;
    return { code: 1, result: { ok: false, shortcut: def.name, target: node, error: { code: 'inapplicable', message } } };
  }
  const edgeTypes = walk.edgeTypes.filter((t) => session.ontology.edgeType(t));

  let origins = [String(node.id)];
  // The members a type stands for, by id: each edge from one says which (`member`).
  const memberOf = new Map<string, string>();
  if (walk.members && symbolShape(node) === 'type') {
    const declared = await collect(session, origins, 'out', ['DECLARES'], MAX_EDGES);
    if ('failed' in declared) return { code: 1, result: declared.failed };
    for (const e of declared.edges) {
      const member = e.other as Json;
      if (symbolShape(member) === 'member') memberOf.set(String(member.id), String(member.qualified_name));
    }
    origins = [...origins, ...memberOf.keys()];
  }
  const members = memberOf.size;

  const seen = new Set(origins);
  // A type standing for its members: calls among them are not calls from outside it.
  const own = memberOf.size ? new Set(origins) : undefined;
  let within = 0;
  const found = new Map<string, Json>();
  let truncated = false;
  let frontier = origins;
  let lastAnswers: Json[] = [];
  for (let depth = 1; frontier.length > 0 && depth <= (walk.transitive ? MAX_DEPTH : 1); depth++) {
    const step = await collect(session, frontier, walk.direction, edgeTypes, MAX_EDGES - found.size);
    if ('failed' in step) return { code: 1, result: step.failed };
    lastAnswers = depth === 1 ? step.answers : lastAnswers;
    const next: string[] = [];
    for (const e of step.edges) {
      const key = edgeKey(e);
      if (found.has(key)) continue;
      if (own?.has(String((e.other as Json).id))) {
        within++;
        continue;
      }
      const member = memberOf.get(String(walk.direction === 'in' ? e.to : e.from));
      found.set(key, { ...e, ...(member ? { member } : {}), ...(walk.transitive ? { depth } : {}) });
      const otherId = String((e.other as Json).id);
      if (!seen.has(otherId)) {
        seen.add(otherId);
        next.push(otherId);
      }
    }
    truncated ||= step.truncated;
    frontier = next;
  }

  const implementing = memberOf.size ? [...memberOf.keys()] : [String(node.id)];
  if (walk.dispatch && session.ontology.edgeType('OVERRIDES')) {
    // `orders.place()` on an IOrders runs OrdersImpl#place: such a call is a caller of the implementation.
    const overridden = await collect(session, implementing, 'out', ['OVERRIDES'], MAX_EDGES);
    if ('failed' in overridden) return { code: 1, result: overridden.failed };
    const implementer = new Map(overridden.edges.map((e) => [String((e.other as Json).id), { from: String(e.from), name: String((e.other as Json).qualified_name) }]));
    const calls = implementer.size ? await collect(session, [...implementer.keys()], 'in', edgeTypes, MAX_EDGES - found.size) : { edges: [], truncated: false, answers: [] };
    if ('failed' in calls) return { code: 1, result: calls.failed };
    for (const e of calls.edges) {
      const key = edgeKey(e);
      const over = implementer.get(String(e.to))!;
      if (found.has(key) || own?.has(String((e.other as Json).id))) continue;
      const member = memberOf.get(over.from);
      found.set(key, { ...e, through: over.name, ...(member ? { member } : {}) });
    }
    truncated ||= calls.truncated;
  }
  let served: Json[] = [];
  let linksOf: Json[] | undefined;
  if (walk.routes && session.ontology.edgeType('EXPOSES')) {
    // A handler's routes and what reaches them from other services: its callers too, in the same answer.
    const exposes = await collect(session, implementing, 'out', ['EXPOSES'], MAX_EDGES);
    if ('failed' in exposes) return { code: 1, result: exposes.failed };
    served = exposes.edges.map((e) => e.other as Json);
    const inbound = ['HTTP_CALLS', 'ASYNC_CALLS', 'FORWARDS'].filter((t) => session.ontology.edgeType(t));
    const reaching = served.length ? await collect(session, served.map((r) => String(r.id)), 'in', inbound, MAX_EDGES - found.size) : { edges: [], truncated: false, answers: [] };
    if ('failed' in reaching) return { code: 1, result: reaching.failed };
    const routeName = new Map(served.map((r) => [String(r.id), String(r.qualified_name)]));
    for (const e of reaching.edges) if (!found.has(edgeKey(e))) found.set(edgeKey(e), { ...e, route: routeName.get(String(e.to)) });
    truncated ||= reaching.truncated;
  }

  if (walk.links) {
    // Which clients, producers and gateway routes carry the service's calls, and the routes they reach.
    const ends = walk.links === 'out' ? ['client', 'producer'] : ['route'];
    const byId = new Map<string, Json>();
    const edges: Json[] = [];
    // The edges each kind has that way: a client's requests, a producer's sends, what reaches a route.
    const carried: Record<string, string[]> = walk.links === 'out' ? { client: ['HTTP_CALLS'], producer: ['ASYNC_CALLS'] } : { route: ['HTTP_CALLS', 'ASYNC_CALLS', 'FORWARDS'] };
    for (const [kind, all] of Object.entries(carried)) {
      const types = all.filter((t) => session.ontology.edgeType(t));
      if (!session.ontology.kind(kind) || !types.length) continue;
      const r = await session.run('find', { kind, filter: { service: String(node.name) }, limit: 500 });
      if (!r.ok) return { code: 1, result: r };
      const ids = (r.results as Json[]).map((n) => String(n.id));
      truncated ||= Boolean(r.has_more);
      for (const n of r.results as Json[]) byId.set(String(n.id), n);
      const step = ids.length ? await collect(session, ids, walk.links, types, MAX_EDGES) : { edges: [], truncated: false, answers: [] };
      if ('failed' in step) return { code: 1, result: step.failed };
      edges.push(...step.edges);
      truncated ||= step.truncated;
    }
    const own = (id: unknown): Json => byId.get(String(id)) ?? { id };
    linksOf = edges.map((e) => (walk.links === 'out' ? { from: own(e.from), type: e.type, to: e.other, attrs: e.attrs } : { from: e.other, type: e.type, to: own(e.to), attrs: e.attrs }));
  }

  // A Feign method's client, then the route that client calls (depth 2), in one answer.
  const hops = walk.then ? [...found.values()].filter((e) => walk.then![String((e.other as Json).kind)]) : [];
  for (const e of hops) {
    const other = e.other as Json;
    const types = walk.then![String(other.kind)]!.filter((t) => session.ontology.edgeType(t));
    const step = await collect(session, [String(other.id)], walk.direction, types, MAX_EDGES - found.size);
    if ('failed' in step) return { code: 1, result: step.failed };
    for (const next of step.edges) if (!found.has(edgeKey(next))) found.set(edgeKey(next), { ...next, depth: 2, via: String(other.qualified_name) });
    truncated ||= step.truncated;
  }

  if (walk.implementations && session.ontology.edgeType('OVERRIDES')) {
    // `accountsService.update(…)` lands on IAccountsService#update: say which methods it runs.
    const called = [...new Set([...found.values()].filter((e) => e.type === 'CALLS' && symbolShape(e.other as Json) === 'member').map((e) => String((e.other as Json).id)))];
    const overriding = called.length ? await collect(session, called, 'in', ['OVERRIDES'], MAX_EDGES) : { edges: [], truncated: false, answers: [] };
    if ('failed' in overriding) return { code: 1, result: overriding.failed };
    const by = new Map<string, string[]>();
    for (const o of overriding.edges) (by.get(String(o.to)) ?? by.set(String(o.to), []).get(String(o.to))!).push(String((o.other as Json).qualified_name));
    for (const e of found.values()) {
      const impls = e.type === 'CALLS' ? by.get(String((e.other as Json).id)) : undefined;
      if (impls) e.implementations = [...impls].sort();
    }
  }

  const all = [...found.values()].sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : sortKey(a) > sortKey(b) ? 1 : 0));
  const page = all.slice(offset, offset + limit);
  const result: Json = {
    ok: true,
    shortcut: def.name,
    target: node,
    walk: { direction: walk.direction, edge_types: edgeTypes, ...(walk.members && members ? { members } : {}), ...(walk.transitive ? { transitive: true } : {}) },
    total: all.length,
    // Several edges can come from one node (a method calling twice): how many nodes the whole answer names.
    nodes_total: new Set(all.map((e) => String((e.other as Json).id))).size,
    has_more: offset + page.length < all.length,
    ...(truncated ? { truncated: true } : {}),
    ...(within ? { within_type: within } : {}),
    edges: page,
  };
  if (served.length) result.serves = served;
  if (linksOf) result.links = linksOf;
  if (all.length === 0) {
    // One origin: the tool's own diagnosis says why (which edges the node has instead, with hints).
    const single = origins.length === 1 ? lastAnswers[0] : undefined;
    result.absence = single?.absence ?? { reason: `nothing in the index has ${edgeTypes.join(' or ')} edges ${walk.direction === 'in' ? 'into' : 'out of'} ${String(node.qualified_name)} or its ${members} members` };
    if (single?.hints) result.hints = single.hints;
  }
  const index = lastAnswers[0]?.index;
  if (index) result.index = index;
  return { code: 0, result };
}

function usage(message: string): ShortcutAnswer {
  return { code: 2, result: { ok: false, error: { code: 'usage', message } } };
}

// ---------------------------------------------------------------- text

function where(node: Json, line?: unknown): string {
  return node.file ? `  ${String(node.file)}${line ?? node.line ? `:${String(line ?? node.line)}` : ''}` : '';
}

/** Concise text: the target, then one line per edge (the node at the other end, where, and how). */
export function formatShortcut(def: ShortcutDef, result: Json, opts: FormatOptions = {}): string {
  if (!result.ok) return formatResult(def.name, result, opts);
  if (!result.target) {
    // Not one node: the resolve answer, with what to type instead.
    const lead = result.status === 'many' ? `${JSON.stringify(result.identifier)} names several nodes; give one of them (its qualified name or id):` : `${def.name}: nothing is named ${JSON.stringify(result.identifier)}.`;
    const store = storeFlag(opts.store);
    const first = (result.candidates as { node: Json }[] | undefined)?.[0]?.node;
    const retry = first ? [`  sextant ${def.name} ${shellQuote(String(first.qualified_name))}${store}   # the first candidate`] : [];
    const [, ...rest] = formatResult('resolve', result, opts).split('\n');
    const at = rest.indexOf('next:');
    return [lead, ...(at >= 0 ? [...rest.slice(0, at + 1), ...retry, ...rest.slice(at + 1)] : [...rest, ...(retry.length ? ['', 'next:', ...retry] : [])])].join('\n');
  }
  const target = result.target as Json;
  const lines: string[] = [`${def.name} of ${String(target.qualified_name)}  [${String(target.id)}]`];
  const count = (n: unknown) => `${String(n)} ${n === 1 ? def.noun[0] : def.noun[1]}`;
  if (def.name === 'routes') {
    lines.push(`${count(result.total)}${result.has_more ? ' (more: use --offset)' : ''}`);
    // The routes Spring Boot's actuator serves are the same in every service: one line says which, after the others.
    const all = (result.results as Json[] | undefined) ?? [];
    const actuator = all.filter((r) => (r.attributes as Json | undefined)?.framework === 'actuator');
    for (const r of all.filter((x) => !actuator.includes(x))) {
      const attrs = (r.attributes as Json | undefined) ?? {};
      const what = typeof attrs.handler === 'string' ? `${short(attrs.handler)}${compositionNote(attrs)}` : typeof attrs.gateway_target === 'string' ? `→ ${attrs.gateway_target}` : typeof attrs.framework === 'string' ? `(${attrs.framework})` : '';
      lines.push(`  ${String(r.name).padEnd(36)} ${what}${where(r)}`);
    }
    if (actuator.length) lines.push(`  and ${actuator.length} actuator route${actuator.length === 1 ? '' : 's'}${where(actuator[0]!)}: ${actuator.map((r) => String(r.name)).join(', ')}`);
  } else {
    const walk = result.walk as Json;
    const members = typeof walk.members === 'number' ? ` (of the type and its ${walk.members} members)` : '';
    const within = typeof result.within_type === 'number' ? `; ${result.within_type} among its own members left out` : '';
    const countAt = lines.length;
    lines.push('');
    // One line per node at the other end and way it is reached: a type used as a field and a parameter is one line.
    const byLine = new Map<string, { head: string; how: string[]; tail: string; note: string; routes: string[] }>();
    // Calls whose receiver type is unknown are kept apart from the answer, on one line at its end.
    const unresolved: string[] = [];
    for (const e of result.edges as Json[]) {
      const other = e.other as Json;
      const attrs = (e.attrs as Json | undefined) ?? {};
      if (other.kind === 'unresolved_call') {
        const at = String(other.qualified_name).split('@').pop() ?? '';
        if (!unresolved.includes(at)) unresolved.push(at);
        continue;
      }
      // A call site's line is where the call is, in the caller's file.
      const callLine = e.type === 'CALLS' && walk.direction === 'in' ? attrs.line : undefined;
      const via = [
        typeof e.through === 'string' ? `  through ${short(e.through)}` : '',
        Array.isArray(e.implementations) ? `  implemented by ${(e.implementations as string[]).map(short).join(', ')}` : '',
        typeof e.member === 'string' ? `  ${walk.direction === 'in' ? '→' : '←'} ${memberOnly(e.member)}` : '',
      ].join('');
      const depth = typeof e.depth === 'number' && e.depth > 1 ? `  (depth ${e.depth})` : '';
      const shape = symbolShape(other) ? String((other.attributes as Json).symbol_kind) : String(other.kind);
      const head = `  ${short(String(other.qualified_name))}  ${shape}, ${String(e.type)}${endpointNote(other)}`;
      const tail = `${where(other, callLine)}${via}${depth}`;
      const key = `${head}\u0000${tail}`;
      const entry = byLine.get(key) ?? { head, how: [], tail, note: linkNote(e.type, attrs), routes: [] };
      if (typeof e.route === 'string' && !entry.routes.includes(e.route)) entry.routes.push(e.route);
      for (const name of SHOWN_ATTRS) {
        const v = attrs[name];
        if (typeof v === 'string' && !(name === 'call' && v === 'call') && !entry.how.includes(v)) entry.how.push(v);
      }
      byLine.set(key, entry);
    }
    for (const { head, how, tail, note, routes } of byLine.values()) lines.push(`${head}${how.length ? ` ${how.join(', ')}` : ''}${tail}${routes.length ? `  → ${routes.join(', ')}` : ''}${note}`);
    if (unresolved.length) lines.push(`  and ${unresolved.length} call${unresolved.length === 1 ? '' : 's'} on a receiver of unknown type (unresolved_call): ${unresolved.join(', ')}`);
    // Edges to one node the same way share a line (a type held in a field and a parameter): say so when they do.
    const shown = (result.edges as Json[]).length;
    const lineCount = byLine.size + (unresolved.length ? 1 : 0);
    const grouped = lineCount < shown ? `; the ${shown} shown here on ${lineCount} lines, one per node and place` : '';
    // Several calls from one method are one caller: count the nodes, and the edges beside them when they differ.
    const distinct = Number(result.nodes_total ?? result.total);
    const byNode = (def.name === 'callers' || def.name === 'callees') && distinct < Number(result.total);
    lines[countAt] = `${byNode ? `${count(distinct)} (${String(result.total)} edges)` : count(result.total)}${members}${within}${grouped}${result.has_more ? ' (more: use --offset)' : ''}${result.truncated ? ` (cut at the first ${MAX_EDGES} edges)` : ''}`;
    const serves = (result.serves as Json[] | undefined) ?? [];
    if (serves.length) lines.push(`serves ${serves.length} route${serves.length === 1 ? '' : 's'}: ${serves.map((r) => String(r.name)).join(', ')}; what reaches them is listed above (→ route)`);
    const links = (result.links as Json[] | undefined) ?? [];
    if (links.length) lines.push(`through ${links.length} link${links.length === 1 ? '' : 's'}:`);
    for (const l of links) {
      const from = l.from as Json;
      const to = l.to as Json;
      lines.push(`  ${short(String(from.qualified_name ?? from.id))}${endpointNote(from)}  ${String(l.type)} → ${String(to.qualified_name ?? to.id)}${endpointNote(to)}${linkNote(l.type, l.attrs as Json | undefined)}${where(from)}`);
    }
    if (def.name === 'callers' && target.kind === 'symbol') lines.push(`callers of these callers, across services: \`sextant impact ${shellQuote(String(target.qualified_name))}${storeFlag(opts.store)}\``);
  }
  return [...lines, ...absenceText(result), ...hintsText(result, opts)].join('\n');
}

/** Who is behind the other end of a link: the method making a client's call or a send, the method handling a route. */
function endpointNote(node: Json): string {
  const attrs = (node.attributes as Json | undefined) ?? {};
  if ((node.kind === 'client' || node.kind === 'producer') && typeof attrs.caller === 'string') return `  in ${short(attrs.caller)}`;
  if (node.kind === 'route' && typeof attrs.handler === 'string') return `  handled by ${short(attrs.handler)}${compositionNote(attrs)}`;
  if (node.kind === 'route' && typeof attrs.gateway_target === 'string') return `  → ${attrs.gateway_target}`;
  return '';
}

/** `Type#method(int)` → `#method(int)`: the member part, its type being the target. */
function memberOnly(qualifiedName: string): string {
  const hash = qualifiedName.indexOf('#');
  return hash >= 0 ? qualifiedName.slice(hash) : qualifiedName;
}
