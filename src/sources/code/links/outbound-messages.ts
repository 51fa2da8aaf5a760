import { nodeId } from '../../../graph/ids.js';
import type { Ontology } from '../../../graph/ontology/index.js';
import type { EdgeRecord, NodeRecord } from '../../../graph/types.js';
import type { CallResolver } from '../model/calls.js';
import type { ConfigView } from '../eval/config.js';
import type { Evaluator, Site } from '../eval/evaluator.js';
import type { LibraryMethod, MessageSink, ValueOp } from '../eval/library.js';
import { type Hole, holeProps, type Instance, render, union, type Value } from '../eval/value.js';
import type { CallFacts, Expr } from '../parse/ir.js';
import type { CodeModel, MemberEntry } from '../model/model.js';
import { declaredClassOf, sentClassesOf } from './eventuate.js';
import { streamBinding } from './messaging.js';

/** At most this many producers are made for one send whose destination can take several values. */
const MAX_DESTINATIONS_PER_SITE = 32;

/** A Rabbit binding declared in the estate: messages sent to `exchange` with a routing key `key` matches go to `queue`. */
export interface RabbitBinding {
  queue: string;
  exchange: string;
  /** A topic-exchange pattern (`*` one word, `#` any); `#` for a fanout binding. */
  key: string;
  service: string;
  file: string;
  line: number;
}

type CallExpr = Extract<Expr, { k: 'call' }>;
type NewExpr = Extract<Expr, { k: 'new' }>;

/** The call as an expression the evaluator reads. */
export function callExpr(call: CallFacts): CallExpr | NewExpr {
  if (call.kind === 'new' && call.type) return { k: 'new', type: call.type, ...(call.values ? { args: call.values } : {}) };
  return { k: 'call', name: call.name, argCount: call.argCount, ...(call.receiver ? { of: call.receiver } : {}), ...(call.values ? { args: call.values } : {}), ...(call.argNames ? { names: call.argNames } : {}) };
}

export interface MessagingContext {
  ontology: Ontology;
  source: string;
  evaluator: Evaluator;
  resolver: CallResolver;
  model: CodeModel;
  configOf: (service: string) => ConfigView;
  /** The Spring Cloud Stream binder a service's build brings. */
  binderOf: (service: string) => 'kafka' | 'rabbit' | undefined;
  memberId: (member: MemberEntry) => string;
  used: Set<string>;
  nodes: NodeRecord[];
  edges: EdgeRecord[];
  bindings: RabbitBinding[];
  /** Files whose groups hold edges made here (a handler in another file than its route). */
  files: Set<string>;
  /** Sends made through a relay, by where they were chosen and where to: two relays of one message make one producer. */
  relayed: Set<string>;
}

/** One destination's value: its text, and what is unknown in it. */
function destinationOf(value: Value): { text: string; resolved: boolean; reason?: string; hole?: Hole; from: string[]; profile?: string } {
  const hole = value.pieces.find((p) => p.hole)?.hole;
  return { text: render(value), resolved: !hole, ...(hole ? { reason: `the destination depends on ${hole.origin}`, hole } : {}), from: value.from, ...(value.profile ? { profile: value.profile } : {}) };
}

/** A value that is a known string: no holes. */
function known(values: readonly Value[]): boolean {
  return values.length > 0 && values.every((v) => !v.pieces.some((p) => p.hole));
}

/**
 * A send through a messaging template: one producer per value its destination can take, where the destination is
 * chosen (at each call site of a helper whose parameter it is).
 */
export function producerNodes(ctx: MessagingContext, caller: MemberEntry, call: CallFacts, sink: MessageSink): void {
  // With fewer arguments a send goes to the template's default destination, when the table says so; else it is not one.
  const fewer = sink.minArgs !== undefined && call.argCount < sink.minArgs;
  if (fewer && !sink.defaultDestination) return;
  const expr = callExpr(call);
  if (expr.k !== 'call') return;
  const service = caller.owner.place.service;
  const ev = ctx.evaluator;
  ev.inService(service, () => {
    // The classes the send carries (dispatch by class): read where the send is, whichever call site chooses its destination.
    const classes = sink.messageType ? sentClassesOf(sink.messageType, call, caller, ev, ctx.model, ctx.resolver) : undefined;
    // `self`: the objects the sending method is called on, when its call sites say (a helper bean made with its sender).
    const compute = (bindings: ReadonlyMap<string, Value[]> | undefined, self?: readonly Instance[]): { values: Value[]; exchange?: Value[]; protocol: string; op: ValueOp } => {
      const sites: Site[] = (self?.length ? self : [undefined]).map((instance) => ({ owner: caller.owner, member: caller, line: call.line, ...(bindings ? { bindings } : {}), ...(instance ? { instance } : {}) }));
      const apply = (op: ValueOp): Value[] => (sites.length === 1 ? ev.apply(op, expr, sites[0]!, 0) : union(...sites.map((site) => ev.apply(op, expr, site, 0))));
      let destinationOp = fewer && sink.defaultDestination ? sink.defaultDestination : sink.destination;
      let exchange: Value[] | undefined;
      if (sink.routed && call.argCount >= sink.routed.minArgs) {
        const key = apply(sink.routed.key);
        const typed = call.values?.[1] ? ctx.resolver.typeOf(call.values[1], caller, call.line) : undefined;
        const stringTyped = typed !== undefined && !('unknown' in typed) && /^(?:java\.lang\.|kotlin\.)?String$/.test(typed.target.external ?? '');
        if (stringTyped || known(key)) {
          exchange = apply(sink.routed.exchange);
          destinationOp = sink.routed.key;
        }
      }
      const values = apply(destinationOp);
      return { values, ...(exchange ? { exchange } : {}), protocol: sink.protocol, op: destinationOp };
    };
    // A parameter anywhere in a destination decides it: the destination is its whole meaning.
    const decides = (values: readonly Value[], marker: string): boolean => values.some((v) => v.pieces.some((p) => p.hole?.marker === marker));
    for (const chosen of ev.choosers(caller, call.line, compute, (r) => [...r.values, ...(r.exchange ?? [])], decides)) {
      // A relay sends to what the message it forwards says (a header, an outbox row): each send that stored it chose.
      for (const r of relayed(ctx, chosen.member, chosen.line, chosen.result.values, service, decides)) {
        const relay = r.member !== chosen.member || r.line !== chosen.line ? `${caller.qn} (${caller.owner.file.path}:${call.line})` : undefined;
        const key = `${r.member.qn}@${r.line}|${sink.protocol} ${sink.framework}|${r.values.map(render).join('|')}`;
        if (relay && ctx.relayed.has(key)) continue;
        if (relay) ctx.relayed.add(key);
        emit({ member: r.member, line: r.line, result: { ...chosen.result, values: r.values } }, relay);
      }
    }
    function emit({ member: chooser, line, result }: { member: MemberEntry; line: number; result: ReturnType<typeof compute> }, relay: string | undefined): void {
      let { values, protocol } = result;
      const at = !relay && chooser === caller && line === call.line;
      const written = at && result.op.operands[0]?.startsWith('arg') ? call.args[Number(result.op.operands[0].slice(3))] : undefined;
      if (protocol === 'binding') {
        const config = ctx.configOf(service);
        const bound: Value[] = [];
        for (const v of values) {
          if (!known([v])) {
            bound.push(v);
            continue;
          }
          // The binding's destination as configuration gives it, with the file it comes from.
          const b = streamBinding(
            render(v),
            (key) => {
              const found = config.lookup(key)?.find((x) => x.bound === undefined);
              return found ? render(found) : undefined;
            },
            ctx.binderOf(service),
          );
          protocol = b.protocol;
          bound.push(...(b.configured ? config.lookup(b.key)!.filter((x) => x.bound === undefined) : [v]));
        }
        values = bound;
        if (protocol === 'binding') protocol = 'kafka';
      }
      const exchangeText = result.exchange?.[0] ? render(result.exchange[0]) : undefined;
      const seen = new Set<string>();
      for (const v of values.slice(0, MAX_DESTINATIONS_PER_SITE)) {
        const d = destinationOf(v);
        if (seen.has(d.text)) continue;
        seen.add(d.text);
        addProducer(ctx, chooser, line, {
          protocol,
          framework: sink.framework,
          destination: d.text,
          resolved: d.resolved,
          ...(written !== undefined && !/^"[^"]*"$/.test(written.trim()) ? { destination_written: written } : {}),
          ...(exchangeText !== undefined ? { exchange: exchangeText } : {}),
          ...(d.reason ? { unresolved_reason: d.reason } : {}),
          ...holeProps(d.hole),
          ...(d.from.length ? { value_from: d.from } : {}),
          ...(d.profile ? { profile: d.profile } : {}),
          ...(classes?.length ? { message_types: classes } : {}),
          ...(relay ? { relayed_by: relay } : {}),
        });
      }
    }
  });
}

/** Methods the framework calls with a message from a broker, from whichever service sent it. */
const LISTENER_ANNOTATIONS = new Set(['KafkaListener', 'KafkaHandler', 'RabbitListener', 'RabbitHandler', 'JmsListener', 'SqsListener', 'StreamListener']);

/** How many stores deep a relay's destination is followed back (an outbox row filled from a message header: 2). */
const MAX_RELAY_DEPTH = 3;
/** At most this many writes of one stored value are read (more: the relay is left as it is). */
const MAX_STORED_WRITES = 16;

/**
 * The destinations a send's values stand for, each with the method that chose it. A value read back from where the
 * estate stored it (`Hole.stored`: a header, a property of a loaded row) is every value written there in the service,
 * each chosen where its writer's callers chose it — the stored part replaced by it, the rest kept. A value with no
 * such part, or whose store the estate never writes, stays where it is.
 */
function relayed(ctx: MessagingContext, member: MemberEntry, line: number, values: readonly Value[], service: string | undefined, decides: (values: readonly Value[], marker: string) => boolean, depth = 0): { member: MemberEntry; line: number; values: Value[] }[] {
  const ev = ctx.evaluator;
  const out: { member: MemberEntry; line: number; values: Value[] }[] = [];
  const kept: Value[] = [];
  for (const v of values) {
    const at = v.pieces.findIndex((p) => p.hole?.stored);
    const stored = at >= 0 ? v.pieces[at]!.hole!.stored! : undefined;
    // A listener's message came from another service: what this one stores in its headers says nothing of it.
    const foreign = stored?.startsWith('header:') && member.facts.annotations.some((a) => LISTENER_ANNOTATIONS.has(a.name));
    const { writes, complete } = stored && !foreign && depth < MAX_RELAY_DEPTH ? ev.storedWrites(stored, service) : { writes: [], complete: false };
    if (!writes.length || writes.length > MAX_STORED_WRITES) {
      kept.push(v);
      continue;
    }
    // Writes the estate makes some other way too (a constructor, a builder): the relay keeps its unknown destination.
    if (!complete) kept.push(v);
    for (const w of writes) {
      const site = (bindings: ReadonlyMap<string, Value[]> | undefined): Site => ({ owner: w.caller.owner, member: w.caller, line: w.call.line, ...(bindings ? { bindings } : {}) });
      for (const chosen of ev.choosers(w.caller, w.call.line, (b) => ev.values(w.value, site(b)), (r) => r, decides)) {
        const replaced = chosen.result.map((x): Value => ({ ...v, pieces: [...v.pieces.slice(0, at), ...x.pieces, ...v.pieces.slice(at + 1)], from: [...v.from, ...x.from] }));
        out.push(...relayed(ctx, chosen.member, chosen.line, replaced, service, decides, depth + 1));
      }
    }
  }
  if (kept.length) out.unshift({ member, line, values: kept });
  return out;
}

function addProducer(ctx: MessagingContext, caller: MemberEntry, line: number, props: Record<string, string | boolean | number | string[]>): void {
  const service = caller.owner.place.service;
  const protocol = String(props.protocol);
  const destination = String(props.destination);
  let id = nodeId(ctx.ontology, ctx.source, 'producer', `${caller.owner.file.path}|${caller.qn}@${line}|${protocol} ${destination}`);
  for (let n = 2; ctx.used.has(id); n++) id = nodeId(ctx.ontology, ctx.source, 'producer', `${caller.owner.file.path}|${caller.qn}@${line}|${protocol} ${destination}~${n}`);
  ctx.used.add(id);
  ctx.nodes.push({
    id,
    kind: 'producer',
    name: `${protocol} ${destination}`,
    qualified_name: `${service} -> ${protocol} ${destination}`,
    source: ctx.source,
    service,
    module: caller.owner.place.module,
    file: caller.owner.file.path,
    line,
    props: { ...props, caller: caller.qn, match: 'unmatched' },
  });
  ctx.edges.push({ type: 'DECLARES_PRODUCER', from: ctx.memberId(caller), to: id });
}

/**
 * A declaration built as a chain of library calls, read from the call that ends it back to its start: each call's
 * row says which part it gives (`bind(queue)`, `to(exchange)`, `with(key)`; `forAggregateType(channel)`,
 * `onEvent(…, handler)`); the nearest one wins.
 */
export function declarationOf(ctx: MessagingContext, caller: MemberEntry, call: CallFacts, row: LibraryMethod, receivers: ReadonlySet<string>): void {
  const declares = row.declares!;
  const expr = callExpr(call);
  // The inner links of a longer chain that declares the same thing are read with it (`to(x)` before `.with(k)`).
  if (declares.what !== 'listener' && receivers.has(exprKey(expr))) return;
  const site: Site = { owner: caller.owner, member: caller, line: call.line };
  const service = caller.owner.place.service;
  const ev = ctx.evaluator;
  ev.inService(service, () => {
    const roles = new Map<string, { values: Value[] }>();
    for (let e: Expr | undefined = expr, first = true; e && (e.k === 'call' || e.k === 'new'); e = e.k === 'call' ? e.of : undefined, first = false) {
      const r = first ? row : e.k === 'call' ? ev.libraryCall(e, site) : undefined;
      for (const [role, op] of Object.entries(r?.roles ?? {})) if (!roles.has(role) && role !== 'handler' && role !== 'message_type') roles.set(role, { values: roleValues(ev, op, e, site) });
    }
    // A listener container configured by calls on one object (`container.setQueueNames(q); container.setMessageListener(l)`).
    if (declares.what === 'listener') siblingRoles(ctx, caller, call, expr, roles);
    const text = (role: string): string | undefined => {
      const v = roles.get(role)?.values;
      return v && known(v) ? render(v[0]!) : undefined;
    };
    if (declares.what === 'binding') {
      const queue = text('queue');
      const exchange = text('exchange');
      const key = declares.key === 'queue' ? queue : declares.key === 'any' && !roles.has('key') ? '#' : text('key');
      if (queue !== undefined && exchange !== undefined && key !== undefined) ctx.bindings.push({ queue, exchange, key, service, file: caller.owner.file.path, line: call.line });
    } else if (declares.what === 'queue') {
      const queue = text('queue');
      const dlx = text('dead_letter_exchange');
      if (queue === undefined || dlx === undefined) return;
      // A queue with a dead-letter exchange sends what it rejects or lets expire there: a producer of that flow.
      const ttl = text('ttl');
      addProducer(ctx, caller, call.line, {
        protocol: 'rabbit',
        framework: 'spring_rabbit',
        destination: text('dead_letter_routing_key') ?? queue,
        exchange: dlx,
        dead_letter_of: queue,
        ...(ttl !== undefined && /^\d+$/.test(ttl) ? { ttl_ms: Number(ttl) } : {}),
        resolved: true,
      });
    } else {
      const channel = roles.get('channel');
      if (!channel) return;
      const handlerOperand = row.roles?.handler?.operands[0];
      if (declares.at === 'handler') {
        // Placed at the method the framework calls (a method reference's, a lambda's callee, an adapter's delegate method).
        const handlers = listenerHandlers(ctx, caller, call, expr, row, site) ?? [caller];
        const messageType = declaredClassOf(row.roles?.message_type?.operands[0], call, caller, ctx.model, ctx.resolver);
        for (const handler of handlers) {
          const seen = new Set<string>();
          for (const v of channel.values.slice(0, MAX_DESTINATIONS_PER_SITE)) {
            const d = destinationOf(v);
            if (seen.has(d.text)) continue;
            seen.add(d.text);
            const line = handler === caller ? call.line : (handler.facts.nameLine ?? handler.facts.line);
            addListener(ctx, handler === caller ? caller : handler, handler, line, declares.protocol ?? 'kafka', declares.framework ?? 'eventuate_tram', d, messageType);
          }
        }
        return;
      }
      const handler = (handlerOperand?.startsWith('arg') ? ctx.resolver.methodRef(caller, call.args[Number(handlerOperand.slice(3))] ?? '') : undefined) ?? caller;
      // The one class it handles (dispatch by class): `onEvent(OrderCreated.class, …)`.
      const messageType = declaredClassOf(row.roles?.message_type?.operands[0], call, caller, ctx.model, ctx.resolver);
      const seen = new Set<string>();
      for (const v of channel.values.slice(0, MAX_DESTINATIONS_PER_SITE)) {
        const d = destinationOf(v);
        if (seen.has(d.text)) continue;
        seen.add(d.text);
        addListener(ctx, caller, handler, call.line, declares.protocol ?? 'kafka', declares.framework ?? 'eventuate_tram', d, messageType);
      }
    }
  });
}

/** A role's values; `argsN` (varargs: `setQueueNames(a, b)`): each argument from N on, one value each. */
function roleValues(ev: Evaluator, op: ValueOp, e: CallExpr | NewExpr, site: Site): Value[] {
  const each = op.op === 'id' ? /^args(\d)$/.exec(op.operands[0] ?? '') : null;
  if (!each) return ev.apply(op, e, site, 0);
  return union(...(e.args ?? []).slice(Number(each[1])).map((a) => ev.values(a, site)));
}

/**
 * Roles given by other calls on the object a listener is registered on (a container configured by setters:
 * `container.setQueueNames(q)` beside `container.setMessageListener(l)`), in the declaring method: the last call that
 * gives a role, where the chain itself gives none.
 */
function siblingRoles(ctx: MessagingContext, caller: MemberEntry, call: CallFacts, expr: CallExpr | NewExpr, roles: Map<string, { values: Value[] }>): void {
  let base: Expr | undefined = expr.k === 'call' ? expr.of : undefined;
  while (base?.k === 'call') base = base.of;
  if (!base || !(base.k === 'name' || (base.k === 'field' && base.of.k === 'this'))) return;
  const key = exprKey(base);
  const ev = ctx.evaluator;
  for (const c of [...caller.facts.calls].sort((a, b) => b.line - a.line)) {
    if (c === call || c.kind !== 'call' || !c.receiver || exprKey(c.receiver) !== key) continue;
    const e = callExpr(c);
    if (e.k !== 'call') continue;
    const site: Site = { owner: caller.owner, member: caller, line: c.line };
    const r = ev.libraryCall(e, site);
    for (const [role, op] of Object.entries(r?.roles ?? {})) if (!roles.has(role) && role !== 'handler' && role !== 'message_type') roles.set(role, { values: roleValues(ev, op, e, site) });
  }
}

/**
 * The methods a listener registration calls: a method reference (`handler::process`); the one project method a lambda
 * calls (`ctx -> handler.process(ctx)`); a listener reference its value is (`new MessageListenerAdapter(delegate)`:
 * the delegate's `handleMessage`); or the method the row `calls` on an object of a project class (a MessageListener's
 * `onMessage`). Undefined when none of these names one.
 */
function listenerHandlers(ctx: MessagingContext, caller: MemberEntry, call: CallFacts, expr: CallExpr | NewExpr, row: LibraryMethod, site: Site): MemberEntry[] | undefined {
  const op = row.roles?.handler;
  const index = op?.op === 'id' ? /^arg(\d)$/.exec(op.operands[0] ?? '') : null;
  if (!op || !index) return undefined;
  const written = call.args[Number(index[1])] ?? '';
  const byRef = ctx.resolver.methodRef(caller, written);
  if (byRef) return [byRef];
  if (/^\s*(?:\([^()]*\)|[\w$]+)\s*->/.test(written) || /^\s*\{/.test(written)) {
    // A lambda: the project methods called inside it (its lines, as far as its text is kept).
    const last = call.line + (written.match(/\n/g)?.length ?? 0);
    const called = new Set<MemberEntry>();
    for (const c of caller.facts.calls) {
      if (!c.inLambda || c.line < call.line || c.line > last) continue;
      const r = ctx.resolver.resolve(caller, c);
      if (r && !('unresolved' in r)) for (const t of r.targets) if ('member' in t && !t.member.facts.synthetic) called.add(t.member);
    }
    return called.size === 1 ? [...called] : undefined;
  }
  const out: MemberEntry[] = [];
  for (const v of roleValues(ctx.evaluator, op, expr, site)) {
    const ref = v.pieces.length && v.pieces.every((p) => p.s !== undefined) ? /^([\w.$]+)#([\w$]+)$/.exec(render(v)) : null;
    const type = ref ? ctx.model.typeByQn(ref[1]!, caller.owner.place) : undefined;
    const method = type ? ctx.model.findMethods(type, ref![2]!, -1).members[0] : undefined;
    if (method && !out.includes(method)) out.push(method);
  }
  if (out.length) return out;
  const arg = call.values?.[Number(index[1])];
  const typed = arg && row.declares?.calls ? ctx.resolver.typeOf(arg, caller, call.line) : undefined;
  const entry = typed && !('unknown' in typed) && !typed.isType ? typed.target.entry : undefined;
  const method = entry && entry.facts.kind === 'class' ? ctx.model.findMethods(entry, row.declares!.calls!, -1).members.find((m) => !m.facts.modifiers.includes('abstract')) : undefined;
  return method ? [method] : undefined;
}

function addListener(ctx: MessagingContext, declaring: MemberEntry, handler: MemberEntry, line: number, protocol: string, framework: string, d: ReturnType<typeof destinationOf>, messageType?: string): void {
  const owner = declaring.owner;
  let id = nodeId(ctx.ontology, ctx.source, 'route', `${owner.file.path}|${handler.qn}|${protocol} ${d.text}`);
  for (let n = 2; ctx.used.has(id); n++) id = nodeId(ctx.ontology, ctx.source, 'route', `${owner.file.path}|${handler.qn}|${protocol} ${d.text}~${n}`);
  ctx.used.add(id);
  ctx.nodes.push({
    id,
    kind: 'route',
    name: `${protocol} ${d.text}`,
    qualified_name: `${owner.place.service} ${protocol} ${d.text}`,
    source: ctx.source,
    service: owner.place.service,
    module: owner.place.module,
    file: owner.file.path,
    line,
    props: {
      protocol,
      destination: d.text,
      framework,
      handler: handler.qn,
      controller: handler.owner.qn,
      declared: true,
      resolved: d.resolved,
      ...(d.reason ? { unresolved_reason: d.reason } : {}),
      ...holeProps(d.hole),
      ...(d.profile ? { profile: d.profile } : {}),
      ...(messageType ? { message_type: messageType } : {}),
    },
  });
  ctx.edges.push({ type: 'EXPOSES', from: ctx.memberId(handler), to: id });
  ctx.files.add(handler.owner.file.path);
}

/** The receivers (as evaluator expressions) of a member's calls: inner links of chains. */
export function receiversOf(member: MemberEntry): Set<string> {
  const out = new Set<string>();
  for (const c of member.facts.calls) {
    for (let e = c.receiver; e && e.k === 'call'; e = e.of) out.add(exprKey(e));
  }
  return out;
}

/** An expression's identity, whatever order its keys were written in. */
function exprKey(e: Expr): string {
  return JSON.stringify(e, (_k, v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v));
}

/** Topic-exchange routing: `*` matches one word, `#` zero or more; a binding key without wildcards matches itself. */
export function routingKeyMatches(pattern: string, key: string): boolean {
  const p = pattern.split('.');
  const k = key.split('.');
  // Iterative matching over words, linear in the sizes with the usual star/hash backtracking bound.
  const memo = new Map<string, boolean>();
  const match = (i: number, j: number): boolean => {
    const id = `${i},${j}`;
    const cached = memo.get(id);
    if (cached !== undefined) return cached;
    let r: boolean;
    if (i === p.length) r = j === k.length;
    else if (p[i] === '#') r = match(i + 1, j) || (j < k.length && match(i, j + 1));
    else r = j < k.length && (p[i] === '*' || p[i] === k[j]) && match(i + 1, j + 1);
    memo.set(id, r);
    return r;
  };
  return pattern === '#' || match(0, 0);
}
