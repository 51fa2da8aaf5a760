import { type CallResolver, exprText } from '../model/calls.js';
import type { AnnotationFacts, CallFacts, Expr, FieldFacts, MemberFacts } from '../parse/ir.js';
import { COLLECTION_TYPES, type CodeModel, type MemberEntry, type TypeEntry } from '../model/model.js';
import type { ConfigView } from './config.js';
import { LIBRARY, type Library, type LibraryMethod, type ValueOp } from './library.js';
import { boundObject, concat, editText, format, type Instance, joinPath, knownText, literal, render, resolveUrl, union, unknown, type Value } from './value.js';

/** Where an expression is evaluated: its type, the member whose body holds it, the line, and bound parameters. */
export interface Site {
  owner: TypeEntry;
  member?: MemberEntry;
  line: number;
  /** Parameter values when a method's return is evaluated for one call. */
  bindings?: ReadonlyMap<string, Value[]>;
  /** An enum constant `this` stands for: its constructor arguments, evaluated where the constant is declared. */
  instance?: Instance;
}

/**
 * Emptiness tests of strings by method name, on the receiver (`s.isEmpty()`) or on the one argument
 * (`StringUtils.hasText(s)`): `empty` is what they answer for an empty string; `blank` counts whitespace as empty.
 */
const EMPTINESS: Readonly<Record<string, { empty: boolean; blank?: boolean }>> = {
  isEmpty: { empty: true },
  isBlank: { empty: true, blank: true },
  isNotEmpty: { empty: false },
  isNotBlank: { empty: false, blank: true },
  hasText: { empty: false, blank: true },
  hasLength: { empty: false },
  isNullOrEmpty: { empty: true },
  isNullOrBlank: { empty: true, blank: true },
};

/** Annotations of methods a framework calls (so a helper without call sites in the estate is still called). */
const ENTRY_POINT_ANNOTATIONS = new Set([
  'RequestMapping', 'GetMapping', 'PostMapping', 'PutMapping', 'DeleteMapping', 'PatchMapping', 'GET', 'POST', 'PUT', 'DELETE', 'PATCH',
  'KafkaListener', 'RabbitListener', 'JmsListener', 'SqsListener', 'StreamListener', 'EventListener', 'TransactionalEventListener', 'Scheduled', 'PostConstruct',
  'Bean', 'CommandHandler', 'EventHandler', 'SagaEventHandler', 'QueryHandler', 'EventuateCommandHandler', 'EventuateDomainEventHandler', 'MessageMapping', 'SchedulerLock',
]);

/** Spring Cloud Stream's channel declarations: the method's binding is the annotation's value, else its name. */
const CHANNEL_ANNOTATIONS = new Set(['Output', 'Input']);

/** Receivers whose values may be objects of project classes (a call chain's receiver is typed, not followed). */
const OBJECT_RECEIVERS = new Set<Expr['k']>(['new', 'name', 'field']);

/** How deep the evaluator follows values through methods, fields and call sites. */
const MAX_DEPTH = 32;
/** A parameter is followed to at most this many call sites. */
const MAX_CALL_SITES = 32;
/** A value a helper's parameters decide is attributed to at most this many call sites, this many helpers up. */
const MAX_CHOOSER_SITES = 64;
const MAX_CHOOSER_DEPTH = 4;
const HTTP_METHODS = new Set(['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS']);
const INJECTION = new Set(['Autowired', 'Inject', 'Resource']);
const GETTER = /^(?:get|is)([A-Z]\w*)$/;

type CallExpr = Extract<Expr, { k: 'call' }>;

/**
 * The expression a call passes to a member's parameter `index`: by name (Kotlin named arguments), else by position,
 * else the parameter's default (Kotlin); undefined when the call leaves it to nothing the source shows.
 */
export function argumentFor(member: MemberEntry, call: CallFacts, index: number): Expr | undefined {
  const param = member.facts.params[index];
  if (!param) return undefined;
  if (member.facts.extensionReceiver) {
    // A Kotlin extension's first parameter is its receiver: the call's, else the caller's own (`this`).
    if (index === 0) return call.receiver ?? { k: 'this' };
    return argumentAt(member.facts.params.slice(1), call, index - 1);
  }
  return argumentAt(member.facts.params, call, index);
}

function argumentAt(params: MemberFacts['params'], call: CallFacts, index: number): Expr | undefined {
  const param = params[index];
  if (!param) return undefined;
  const values = call.values ?? [];
  if (call.argNames) {
    const named = call.argNames.indexOf(param.name);
    if (named >= 0) return values[named];
    // Positional arguments come before named ones.
    const positional = call.argNames.findIndex((n) => n !== null);
    if (index < (positional < 0 ? values.length : positional)) return values[index];
    return param.default;
  }
  return values[index] ?? param.default;
}

/** The object a configuring call is made on, as its steps name it (see `Evaluator.configuringSteps`). */
const CONFIGURED = { k: 'name', name: '$configured$' } as const;

/** The receiver parameter of a Kotlin extension function, as the parser names it. */
const RECEIVER = { k: 'name', name: '$receiver' } as const;
/** An abstract method with more overrides than this in the estate is not evaluated through them. */
const MAX_OVERRIDES = 8;
/** At most this many combinations of operand values one text operation makes. */
const MAX_COMBINATIONS = 32;
/** The value a chain on a function argument's parameter has reached (see `lambdaValues`). */
const CHAIN = { k: 'name', name: '$chain' } as const;
type LambdaExpr = Extract<Expr, { k: 'lambda' }>;

/** The calls of `expr` down to the name `param` it starts from, innermost first; undefined when it starts elsewhere. */
function chainOn(expr: Expr, param: string): CallExpr[] | undefined {
  const out: CallExpr[] = [];
  let e: Expr | undefined = expr;
  while (e?.k === 'call') {
    out.unshift(e);
    e = e.of;
  }
  return e?.k === 'name' && e.name === param && out.length ? out : undefined;
}

/** A method reference (`Type::name`, `this::name`, `helper::name`), which the parsers keep as its text. */
function methodReference(expr: Expr): { qualifier: string; name: string } | undefined {
  if (expr.k !== 'other') return undefined;
  const m = /^\s*([\w$.]+)\s*::\s*([\w$]+)\s*$/.exec(expr.text);
  return m && m[2] !== 'new' ? { qualifier: m[1]!, name: m[2]! } : undefined;
}

/**
 * A property read off an object (`item.address`, `event.getCustomerUrl()`) whose value its class never states
 * (a field nothing assigns, a setter's parameter): the hole is where the code reads it, as written there — the
 * object came from elsewhere (a request body, a message payload), and that expression is what a person looks for.
 */
function readThrough(values: Value[], owner: TypeEntry, read: Expr): Value[] {
  const name = owner.facts.name;
  return values.map((v) =>
    v.pieces.some((p) => p.hole && (p.hole.kind === 'field' || p.hole.kind === 'parameter') && (p.hole.at?.startsWith(`${name}.`) || p.hole.at?.startsWith(`${name}#`)))
      ? { ...v, pieces: v.pieces.map((p) => (p.hole && (p.hole.at?.startsWith(`${name}.`) || p.hole.at?.startsWith(`${name}#`)) ? { hole: { ...p.hole, origin: `${exprText(read)} (${p.hole.origin})`, at: exprText(read) } } : p)) }
      : v,
  );
}

/** Lombok annotations that make a constructor or builder setting a class's fields. */
const FIELD_SETTING_ANNOTATIONS = new Set(['Builder', 'SuperBuilder', 'AllArgsConstructor', 'Value']);

/**
 * Whether setters are the only way the estate sets an object's properties: no constructor takes values, no builder,
 * not a record or a Kotlin class (whose properties a constructor or an assignment sets).
 */
function settersOnly(type: TypeEntry): boolean {
  if (type.facts.kind === 'record' || type.file.path.endsWith('.kt')) return false;
  if (type.facts.annotations.some((a) => FIELD_SETTING_ANNOTATIONS.has(a.name))) return false;
  return !type.members.some((m) => m.facts.kind === 'constructor' && m.facts.params.length > 0);
}

/** A value a method's caller passes in (a parameter nothing in the estate binds), not a bean the framework injects. */
function fromCaller(v: Value): boolean {
  const hole = v.pieces.length === 1 ? v.pieces[0]!.hole : undefined;
  return hole?.kind === 'parameter' && !hole.injected;
}

/** How a report names a parameter: `OrdersClient#get(url)`. */
function parameterAt(member: MemberEntry, name: string): string {
  return `${member.owner.facts.name}#${member.facts.name === '<init>' ? member.owner.facts.name : member.facts.name}(${name})`;
}

function propertyOfGetter(name: string): string | undefined {
  const m = GETTER.exec(name);
  return m ? m[1]![0]!.toLowerCase() + m[1]!.slice(1) : undefined;
}

function annotationValue(annotations: readonly AnnotationFacts[], name: string, ...keys: string[]): string | undefined {
  const a = annotations.find((x) => x.name === name);
  if (!a) return undefined;
  for (const k of keys.length ? keys : ['value']) {
    const v = a.args[k]?.[0];
    if (v?.value !== undefined) return v.value;
  }
  return '';
}

/**
 * The value-and-type evaluator: for any expression in the estate's Java or Kotlin code, the string values it can
 * hold (a bounded set of partial strings, unknown parts explicit holes with their origin), through literals,
 * concatenation and templates, locals, parameters (bound at the call sites of non-public methods and
 * constructors), fields (initializers, assignments, constructor parameters), `@Value` and
 * `@ConfigurationProperties` bound from the service's configuration, project methods' returns, and library
 * methods as the library table describes them. Types come from the call resolver, which reads the same table.
 */
export class Evaluator {
  private readonly fieldCache = new Map<string, Value[]>();
  private elementLists?: Map<string, string[]>;
  private referencedMethods?: Set<string>;
  private readonly paramCache = new Map<string, Value[]>();
  private readonly active = new Set<string>();
  /**
   * How many times an evaluation stopped short: at a value defined through itself (one being evaluated further up),
   * or one built through too many steps. Values of a field or a parameter computed while one did are not kept: what
   * is kept is then the same whichever evaluation asked first, so each call site's values do not depend on the order
   * call sites are read in.
   */
  private cuts = 0;
  private callIndex: Map<string, { caller: MemberEntry; call: CallFacts }[]> | undefined;

  constructor(
    private readonly model: CodeModel,
    private readonly resolver: CallResolver,
    private readonly configOf: (service: string) => ConfigView,
    private readonly library: Library = LIBRARY,
  ) {}

  /**
   * Where a value used at `line` of `member` is chosen, with the values it has there. A helper that sends or calls
   * on its parameters (`send(topic, payload) { template.send(topic, payload) }`, `get(url)`) does not choose: each
   * call site of it does, with its own arguments — recursively, up to the method that passes no parameter of its own
   * on, or whose parameters nothing in the estate binds. A parameter decides when `decides` says so of where it sits
   * in the value (a URL's host or start, a whole destination), or when a call site passes it a path (text with a
   * `/`); one that only fills a path variable (`/stations/` + name) leaves the value where it is, as that variable.
   * `compute` evaluates the value with the given bindings of `member`'s parameters (undefined: as the evaluator would
   * on its own) and, when it takes them, the objects `this` stands for.
   *
   * An object's method whose value its fields give, fields its constructor arguments set (`new SendHelper(ordersClient)`
   * in one bean method, `new SendHelper(auditClient)` in another), does not choose either when its callers call it on
   * such objects: each call site does, by the object it calls it on — when every call site calls it on objects the
   * estate makes, and the value of one differs from the method's own.
   */
  choosers<T>(
    member: MemberEntry,
    line: number,
    compute: (bindings: ReadonlyMap<string, Value[]> | undefined, self?: readonly Instance[]) => T,
    valuesOf: (result: T) => readonly Value[],
    decides: (values: readonly Value[], marker: string) => boolean,
    depth = 0,
  ): { member: MemberEntry; line: number; result: T }[] {
    const own = (variables?: ReadonlyMap<string, Value[]>): { member: MemberEntry; line: number; result: T }[] => [{ member, line, result: compute(variables) }];
    const params = member.facts.params;
    if (depth >= MAX_CHOOSER_DEPTH) return this.cut(own());
    const key = `${member.qn}#choose`;
    if (this.active.has(key)) return this.cut(own());
    if (!params.length) return this.chosenByObject(member, line, compute, valuesOf, decides, depth, key, own);
    const markerOf = (i: number): string => `${member.qn}#${i}`;
    const markers = new Map(params.map((p, i) => [p.name, [{ pieces: [{ hole: { origin: `parameter ${p.name}`, name: p.name, kind: 'parameter' as const, marker: markerOf(i) } }], from: [] }]]));
    const probe = valuesOf(compute(markers));
    const used = params.map((_, i) => probe.some((v) => v.pieces.some((piece) => piece.hole?.marker === markerOf(i))));
    if (!used.some(Boolean)) return this.chosenByObject(member, line, compute, valuesOf, decides, depth, key, own);
    // A method's call of itself that passes its deciding parameters on as they are chooses nothing its other call sites
    // do not (an overload the resolver cannot tell apart); one that passes other values (`publish("dead-letter", e)`) does.
    const passesOn = (call: CallFacts) => params.every((p, i) => !used[i] || (argumentFor(member, call, i)?.k === 'name' && (argumentFor(member, call, i) as { name: string }).name === p.name));
    const sites = this.choosingSitesOf(member).filter(({ caller, call }) => caller !== member || !passesOn(call));
    // A parameter that only fills a path variable stays one (`{name}`), whatever its call sites pass.
    const variables = new Map(params.filter((_, i) => used[i]).map((p) => [p.name, unknown(`parameter ${p.name}`, { name: p.name, kind: 'parameter', at: parameterAt(member, p.name) })]));
    if (sites.length > MAX_CHOOSER_SITES) return own();
    this.active.add(key);
    try {
      const decisive = params.some((_, i) => used[i] && decides(probe, markerOf(i))) || sites.some(({ caller, call }) => params.some((_, i) => {
        const arg = used[i] ? argumentFor(member, call, i) : undefined;
        return arg !== undefined && this.values(arg, { owner: caller.owner, member: caller, line: call.line }).some((v) => v.pieces.length > 0 && v.pieces.every((x) => x.s !== undefined) && render(v).includes('/'));
      }));
      if (!decisive) {
        this.active.delete(key);
        return this.chosenByObject(member, line, compute, valuesOf, decides, depth, key, own, variables);
      }
      // A helper nothing in the estate calls chooses nothing (an overload left unused); a framework calls an entry point.
      if (!sites.length) return this.isEntryPoint(member) ? own() : [];
      // A compute that takes the objects `this` stands for gets them at each call site too (their receivers).
      const takesSelf = compute.length >= 2;
      return sites.flatMap(({ caller, call }) => {
        const atCaller = (outer: ReadonlyMap<string, Value[]> | undefined, outerSelf?: readonly Instance[]): T => {
          const at: Site = { owner: caller.owner, member: caller, line: call.line, ...(outer ? { bindings: outer } : {}) };
          const bound = new Map<string, Value[]>();
          params.forEach((p, i) => {
            const arg = argumentFor(member, call, i);
            if (used[i]) bound.set(p.name, arg ? this.values(arg, at) : unknown(`parameter ${p.name}`, { name: p.name, kind: 'parameter', at: parameterAt(member, p.name) }));
          });
          return takesSelf ? compute(bound, this.receiverObjects(member, call, at, outerSelf)) : compute(bound);
        };
        return this.choosers(
          caller,
          call.line,
          takesSelf ? atCaller : (outer: ReadonlyMap<string, Value[]> | undefined) => atCaller(outer),
          valuesOf,
          decides,
          depth + 1,
        );
      });
    } finally {
      this.active.delete(key);
    }
  }

  /**
   * Where a value an object's fields give is chosen: at each call site, by the object it calls the method on (see
   * {@link choosers}); else at the method itself.
   */
  private chosenByObject<T>(
    member: MemberEntry,
    line: number,
    compute: (bindings: ReadonlyMap<string, Value[]> | undefined, self?: readonly Instance[]) => T,
    valuesOf: (result: T) => readonly Value[],
    decides: (values: readonly Value[], marker: string) => boolean,
    depth: number,
    key: string,
    own: (variables?: ReadonlyMap<string, Value[]>) => { member: MemberEntry; line: number; result: T }[],
    variables?: ReadonlyMap<string, Value[]>,
  ): { member: MemberEntry; line: number; result: T }[] {
    if (compute.length < 2 || member.facts.kind !== 'method' || member.facts.modifiers.includes('static') || member.owner.facts.kind !== 'class') return own(variables);
    const sites = this.choosingSitesOf(member);
    if (!sites.length || sites.length > MAX_CHOOSER_SITES || sites.some(({ call }) => !call.receiver || call.receiver.k === 'this' || call.receiver.k === 'super')) return own(variables);
    this.active.add(key);
    try {
      const objects = sites.map(({ caller, call }) => this.receiverObjects(member, call, { owner: caller.owner, member: caller, line: call.line }));
      if (objects.some((o) => !o)) return own(variables);
      const keyOf = (values: readonly Value[]): string => values.map(render).sort().join('\u0000');
      const whole = keyOf(valuesOf(compute(variables)));
      if (objects.every((o) => keyOf(valuesOf(compute(variables, o))) === whole)) return own(variables);
      return sites.flatMap(({ caller, call }) =>
        this.choosers(
          caller,
          call.line,
          (outer, outerSelf) => {
            const at: Site = { owner: caller.owner, member: caller, line: call.line, ...(outer ? { bindings: outer } : {}) };
            return compute(variables, this.receiverObjects(member, call, at, outerSelf));
          },
          valuesOf,
          decides,
          depth + 1,
        ),
      );
    } finally {
      this.active.delete(key);
    }
  }

  /**
   * The objects of project classes a call of an object's method is made on (`helper.send(…)` with `helper` a bean made
   * by `new SendHelper(…)`), each as its constructor arguments; undefined unless every value of the receiver is one of
   * the method's class (or a subclass). `self`: the objects the caller's `this` stands for.
   */
  private receiverObjects(member: MemberEntry, call: CallFacts, at: Site, self?: readonly Instance[]): Instance[] | undefined {
    const receiver = call.receiver;
    if (!receiver || receiver.k === 'this' || receiver.k === 'super') return undefined;
    const values = union(...(self?.length ? self.map((instance) => this.values(receiver, { ...at, instance })) : [this.values(receiver, at)]));
    if (!values.length || !values.every((v) => v.instance && this.model.ancestors(v.instance.type).project.includes(member.owner))) return undefined;
    return values.map((v) => v.instance!);
  }

  /** The call sites that choose a helper's arguments: calls of it, and calls of the methods it overrides or implements. */
  private choosingSitesOf(member: MemberEntry): { caller: MemberEntry; call: CallFacts }[] {
    const out = [...this.callSitesOf(member)];
    if (member.facts.kind === 'method' && !member.facts.modifiers.includes('static') && !member.facts.modifiers.includes('private')) {
      for (const t of this.model.ancestors(member.owner).project) {
        if (t === member.owner) continue;
        for (const m of this.model.methodsNamed(t, member.facts.name)) if (m.facts.params.length === member.facts.params.length) out.push(...this.callSitesOf(m));
      }
    }
    return out.filter(({ call }) => call.kind !== 'method_ref');
  }

  /** A method a framework calls: a handler, listener, scheduled task or bean, or one that overrides a library type's. */
  private isEntryPoint(member: MemberEntry): boolean {
    if (member.facts.annotations.some((a) => ENTRY_POINT_ANNOTATIONS.has(a.name))) return true;
    // Passed as a method reference (`.map(this::loadByUrl)`): called by code the estate does not show, with values it does not state.
    if (this.methodReferenced().has(member.facts.name)) return true;
    const overrides = member.facts.annotations.some((a) => a.name === 'Override') || member.facts.modifiers.includes('override');
    if (!overrides) return false;
    const { project, external } = this.model.ancestors(member.owner);
    return external.length > 0 && !project.some((t) => t !== member.owner && this.model.methodsNamed(t, member.facts.name).length > 0);
  }

  /** The method names the estate passes as method references (`this::loadByUrl`, `Type::name`), by name. */
  private methodReferenced(): Set<string> {
    if (!this.referencedMethods) {
      this.referencedMethods = new Set();
      for (const t of this.model.types) for (const m of t.members) for (const c of m.facts.calls) for (const a of c.args) for (const ref of a.matchAll(/::\s*([A-Za-z_$][\w$]*)/g)) this.referencedMethods.add(ref[1]!);
    }
    return this.referencedMethods;
  }

  /** An evaluation that stops short (see {@link cuts}), counted. */
  private cut<T>(value: T): T {
    this.cuts++;
    return value;
  }

  /** The values of an expression at a site. */
  values(expr: Expr, site: Site, depth = 0): Value[] {
    if (depth > MAX_DEPTH) return this.cut(unknown('a value built through too many steps', { kind: 'limit' }));
    switch (expr.k) {
      case 'literal':
        if (expr.type === 'null') return [];
        return expr.value !== undefined ? literal(expr.value) : unknown(`a ${expr.type} literal`, { kind: 'expression' });
      case 'concat':
        return expr.parts.reduce<Value[]>((acc, p) => concat(acc, this.asText(this.values(p, site, depth + 1), depth)), literal(''));
      case 'cond':
        return union(...expr.options.map((o) => this.values(o, site, depth + 1)));
      case 'guarded':
        // A return whose condition the values decide against is not a value the method can give.
        return this.truth(expr.when, site, depth + 1) === false ? [] : this.values(expr.value, site, depth + 1);
      case 'cast':
        return expr.of ? this.values(expr.of, site, depth + 1) : unknown('a cast', { kind: 'expression' });
      case 'name':
        return this.nameValues(expr.name, site, depth);
      case 'field':
        return this.fieldAccess(expr, site, depth);
      case 'call':
        return this.callValues(expr, site, depth);
      case 'new':
        return this.creation(expr, site, depth);
      case 'this':
        // In a Kotlin extension function, `this` is the receiver it extends (its first parameter).
        if (!expr.qualifier && site.member?.facts.extensionReceiver) return this.nameValues(RECEIVER.name, site, depth);
        return unknown('this', { kind: 'expression', at: 'this' });
      case 'class_literal': {
        // `Order.class` where a string is wanted (an Eventuate aggregate type): the class's qualified name.
        const target = this.model.resolveType(expr.type, site.owner);
        return target.entry ? literal(target.entry.qn) : target.external !== undefined ? literal(target.external) : unknown(`${expr.type.name}.class`, { kind: 'expression' });
      }
      default:
        return unknown(expr.k === 'other' ? `the expression ${expr.text.slice(0, 60)}` : `the expression ${expr.k}`, { kind: 'expression', ...(expr.k === 'other' ? { at: expr.text.slice(0, 60) } : {}) });
    }
  }

  /**
   * Whether a condition holds, when the values it tests decide it: null checks and emptiness of strings the estate
   * states (`x != null`, `x.equals("")`, `x.isEmpty()`, `StringUtils.hasText(x)`), and `!`, `&&`, `||` of those;
   * undefined when they do not.
   */
  truth(expr: Expr, site: Site, depth: number): boolean | undefined {
    if (depth > MAX_DEPTH) return this.cut(undefined);
    if (expr.k === 'test') {
      const [a, b] = expr.args;
      if (expr.op === '!') {
        const t = a ? this.truth(a, site, depth + 1) : undefined;
        return t === undefined ? undefined : !t;
      }
      if (expr.op === '&&' || expr.op === '||') {
        const x = a ? this.truth(a, site, depth + 1) : undefined;
        const y = b ? this.truth(b, site, depth + 1) : undefined;
        if (expr.op === '&&') return x === false || y === false ? false : x === true && y === true ? true : undefined;
        return x === true || y === true ? true : x === false && y === false ? false : undefined;
      }
      // `x == null` / `x != null`: a value the estate states is not null.
      const nullSide = a?.k === 'literal' && a.type === 'null' ? b : b?.k === 'literal' && b.type === 'null' ? a : undefined;
      if (nullSide) {
        const values = this.values(nullSide, site, depth + 1);
        const isNull = values.length === 0 ? true : values.every((v) => v.instance || v.bound !== undefined || (v.pieces.length > 0 && !v.pieces.some((p) => p.hole)) || v.pieces.length === 0) ? false : undefined;
        return isNull === undefined ? undefined : expr.op === '==' ? isNull : !isNull;
      }
      const same = a && b ? this.sameText(a, b, site, depth) : undefined;
      return same === undefined ? undefined : expr.op === '==' ? same : !same;
    }
    if (expr.k === 'call') {
      const args = expr.args ?? [];
      if (expr.name === 'equals' && expr.of && args.length === 1) return this.sameText(expr.of, args[0]!, site, depth);
      const emptiness = EMPTINESS[expr.name];
      const subject = args.length === 0 ? expr.of : args.length === 1 ? args[0] : undefined;
      if (emptiness && subject) {
        const text = this.knownText(subject, site, depth);
        return text === undefined ? undefined : emptiness.empty === (text.trim() === '' && (emptiness.blank || text === ''));
      }
    }
    return undefined;
  }

  /** The one text an expression holds, when the estate states it (a single value without holes). */
  private knownText(expr: Expr, site: Site, depth: number): string | undefined {
    const values = this.values(expr, site, depth + 1);
    if (values.length !== 1 || values[0]!.instance || values[0]!.bound !== undefined || values[0]!.pieces.some((p) => p.hole)) return undefined;
    return render(values[0]!);
  }

  private sameText(a: Expr, b: Expr, site: Site, depth: number): boolean | undefined {
    const x = this.knownText(a, site, depth);
    const y = x === undefined ? undefined : this.knownText(b, site, depth);
    return x === undefined || y === undefined ? undefined : x === y;
  }

  /** The library row of a call expression, with the type it was found on (for request starts and sinks). */
  libraryCall(expr: CallExpr, site: Site): LibraryMethod | undefined {
    const member = site.member ?? this.contextMember(site.owner);
    if (!member) return undefined;
    const resolved = this.resolver.resolveCallExpr(member, expr, site.line);
    if ('unresolved' in resolved) return undefined;
    const first = resolved.targets[0];
    return first && 'external' in first ? this.library.method(first.external.owner, first.external.name) : undefined;
  }

  /** The HTTP method of a request whose start is somewhere up a receiver chain (`client.get().uri(…)`). */
  httpMethodOf(spec: string, expr: CallExpr, site: Site): string {
    if (HTTP_METHODS.has(spec)) return spec;
    const arg = /^arg(\d)$/.exec(spec);
    if (arg) {
      const named = methodNameOf(expr.args?.[Number(arg[1])]);
      // `exchange(request, type)`: the method is the one the request was built with (`RequestEntity.post(uri)`).
      return named !== 'ANY' || !expr.args?.[0] ? named : this.requestMethodOf(expr.args[0], site, 0);
    }
    return this.chainMethodOf(expr.of, site, 0);
  }

  /** The HTTP method a request-building chain starts with, up its receivers. */
  private chainMethodOf(start: Expr | undefined, site: Site, depth: number): string {
    for (let e: Expr | undefined = start; e?.k === 'call'; e = e.of) {
      const row = this.libraryCall(e, site);
      if (row?.httpMethod) return this.httpMethodOf(row.httpMethod, e, site);
    }
    return start && depth < 4 ? this.requestMethodOf(start, site, depth + 1) : 'ANY';
  }

  /** The HTTP method of a request object: its building chain, through the local it is kept in. */
  private requestMethodOf(expr: Expr, site: Site, depth: number): string {
    if (depth > 4) return this.cut('ANY');
    if (expr.k === 'call') return this.chainMethodOf(expr, site, depth);
    if (expr.k === 'name' && site.member) {
      const local = this.localDefinition(site.member.facts, expr.name, site.line);
      if (local?.value) return this.requestMethodOf(local.value, { ...site, line: local.line }, depth + 1);
    }
    return 'ANY';
  }

  /**
   * The value of a function argument (`uri(b -> b.path("/x").build())`, Kotlin's `uri { it.path("/x").build() }`):
   * its body's, its parameters empty (the builder the call gives starts from the client's base URL). A lambda's
   * parameter states no type, so a chain on it goes through the rows of the type the call's library row says the
   * function is given.
   */
  private lambdaValues(lambda: LambdaExpr, call: CallExpr | Extract<Expr, { k: 'new' }>, site: Site, depth: number): Value[] {
    if (!lambda.body) return unknown('a function whose value is not one expression', { kind: 'expression' });
    const bindings = new Map(site.bindings ?? []);
    const row = call.k === 'call' ? this.libraryCall(call, site) : undefined;
    // What the call gives the function (`opt.map(url -> …)`: the Optional's value), else an empty builder's start.
    lambda.params.forEach((p, i) => bindings.set(p, row?.lambdaArgs?.[i] ? this.apply(row.lambdaArgs[i]!, call, site, depth + 1) : literal('')));
    const inner: Site = { ...site, line: lambda.line, bindings };
    const given = row?.lambda;
    const chain = given && lambda.params.length === 1 ? chainOn(lambda.body, lambda.params[0]!) : undefined;
    if (!given || !chain) return this.values(lambda.body, inner, depth + 1);
    let type: string = given;
    let value: Value[] = literal('');
    for (const step of chain) {
      // Kotlin's scope functions `apply` and `also` give back their receiver: the chain goes on from the same value.
      if ((step.name === 'apply' || step.name === 'also') && step.args?.length === 1 && step.args[0]!.k === 'lambda') continue;
      const row = this.library.method(type, step.name);
      if (!row?.value) return unknown(`${step.name} on ${type.slice(type.lastIndexOf('.') + 1)}, which the library table does not follow`, { kind: 'expression', at: step.name });
      bindings.set(CHAIN.name, value);
      value = this.apply(row.value, { ...step, of: CHAIN }, inner, depth + 1);
      if (!row.returns) break;
      type = row.returns;
    }
    return value;
  }

  /**
   * The value of a method reference passed as a function argument (`opt.map(Mapping::getUrl)`, `this::load`,
   * `helper::build`): the method called with what the call's library row gives the function (`lambda_args`), an
   * instance method of a named type on the first of them. Without such a row, the reference says nothing of a value.
   */
  private referenceValues(ref: { qualifier: string; name: string }, call: CallExpr | Extract<Expr, { k: 'new' }>, site: Site, depth: number): Value[] {
    const row = call.k === 'call' ? this.libraryCall(call, site) : undefined;
    const what = `${ref.qualifier}::${ref.name}`;
    if (!row?.lambdaArgs?.length) return unknown(`the method reference ${what}`, { kind: 'expression', at: what });
    const bindings = new Map(site.bindings ?? []);
    const given: Expr[] = row.lambdaArgs.map((op, i) => {
      bindings.set(`$given${i}`, this.apply(op, call, site, depth + 1));
      return { k: 'name', name: `$given${i}` };
    });
    const at: Site = { ...site, bindings };
    const onObject = ref.qualifier === 'this' || ref.qualifier === 'super' || this.isVariable(ref.qualifier, site);
    const type = onObject ? undefined : this.model.resolveTypeName(ref.qualifier, site.owner);
    if (!type) {
      // `this::load(x)`, `helper::build(x)`: a call on that object with the given values (`super::` as a call of its own).
      const of: Expr | undefined = ref.qualifier === 'this' || ref.qualifier === 'super' ? undefined : { k: 'name', name: ref.qualifier };
      return this.callValues({ k: 'call', name: ref.name, argCount: given.length, args: given, ...(of ? { of } : {}) }, at, depth + 1);
    }
    // `Type::staticMethod(x)` takes the values as its arguments; `Type::instanceMethod` is called on the first (`x.instanceMethod()`).
    const asStatic: CallExpr = { k: 'call', name: ref.name, argCount: given.length, args: given };
    const onFirst: CallExpr = { k: 'call', name: ref.name, argCount: given.length - 1, of: given[0]!, args: given.slice(1) };
    if (type.entry) {
      const candidates = this.model.findMethods(type.entry, ref.name, -1).members;
      const isStatic = (m: MemberEntry) => m.facts.modifiers.includes('static');
      const staticOne = candidates.find((m) => isStatic(m) && m.facts.params.length === given.length);
      if (staticOne) return this.projectCall(staticOne, asStatic, at, depth + 1);
      const instanceOne = candidates.find((m) => !isStatic(m) && m.facts.params.length === given.length - 1);
      if (instanceOne) return this.projectCall(instanceOne, onFirst, at, depth + 1);
      return unknown(`${what}, which ${type.entry.facts.name} declares for no ${given.length} value(s)`, { kind: 'expression', at: what });
    }
    const library = type.external !== undefined ? this.library.method(type.external, ref.name) : undefined;
    if (!library?.value) return unknown(`${what}, which the library table does not follow`, { kind: 'expression', at: what });
    return this.apply(library.value, library.static ? asStatic : onFirst, at, depth + 1);
  }

  /** Whether a name is a variable where it is used (a binding, parameter, local or field), not a type. */
  private isVariable(name: string, site: Site): boolean {
    if (site.bindings?.has(name) || site.member?.facts.params.some((p) => p.name === name) || site.member?.facts.locals.some((l) => l.name === name)) return true;
    for (let t: TypeEntry | undefined = site.owner; t; t = t.outer) if (this.model.findField(t, name)) return true;
    return false;
  }

  /** Applies a value operation of the library table to a call. */
  apply(op: ValueOp, expr: CallExpr | Extract<Expr, { k: 'new' }>, site: Site, depth: number): Value[] {
    const args = expr.args ?? [];
    const receiver = (): Value[] => (expr.k === 'call' && expr.of ? this.values(expr.of, site, depth + 1) : literal(''));
    const operand = (o: string): Value[] => {
      if (o === 'receiver') return receiver();
      if (o === 'empty') return literal('');
      if (o.startsWith("'")) return literal(o.slice(1, -1));
      if (o.startsWith('super')) return this.superArgument(expr, Number(o.slice(5)), site, depth);
      if (o.startsWith('typearg')) return this.typeArgument(expr, Number(o.slice(7)), site);
      const named = /^arg(\d):(\w+)$/.exec(o);
      if (named) {
        // A Kotlin named argument, else the argument at its position (positional ones come first).
        const names = expr.k === 'call' ? (expr.names ?? []) : [];
        const at = names.indexOf(named[2]!);
        const index = at >= 0 ? at : Number(named[1]);
        const arg = at >= 0 || (names[index] ?? null) === null ? args[index] : undefined;
        if (arg?.k === 'lambda') return this.lambdaValues(arg, expr, site, depth);
        if (arg && methodReference(arg)) return this.referenceValues(methodReference(arg)!, expr, site, depth);
        return arg ? this.values(arg, site, depth + 1) : unknown(`argument ${named[2]} of ${expr.k === 'call' ? expr.name : 'new'}`, { kind: 'expression' });
      }
      const n = Number(o.replace(/^args?/, ''));
      if (o.startsWith('args')) return args.slice(n).reduce<Value[]>((acc, a) => joinPath(acc, this.values(a, site, depth + 1)), literal(''));
      const a = args[n];
      if (a?.k === 'lambda') return this.lambdaValues(a, expr, site, depth);
      if (a && methodReference(a)) return this.referenceValues(methodReference(a)!, expr, site, depth);
      return a ? this.values(a, site, depth + 1) : unknown(`argument ${n + 1} of ${expr.k === 'call' ? expr.name : 'new'}`, { kind: 'expression' });
    };
    const [a = 'empty', b = 'empty'] = op.operands;
    switch (op.op) {
      case 'id':
        return operand(a);
      case 'any':
        return union(...op.operands.map(operand));
      case 'bean_names': {
        // A bean whose name the receiver says (an injected channel named by its field or qualifier) is that one; an
        // object the framework passes in (an interceptor's channel) is one of the service's beans of that type.
        const own = receiver();
        if (own.length && own.every((v) => v.pieces.length > 0 && v.pieces.every((p) => p.s !== undefined))) return own;
        if (!own.length || !own.every(fromCaller)) {
          const what = expr.k === 'call' ? `${expr.name}(…)` : 'new';
          return unknown(what, { kind: 'call', at: what });
        }
        const type = a.slice(1, -1);
        const names = this.beanMethodsOf(site.owner.place.service ?? '')
          .filter(({ method }) => {
            const returned = method.facts.returnType ? this.model.resolveType(method.facts.returnType, method.owner) : undefined;
            return returned?.external !== undefined && this.library.isA(returned.external, type);
          })
          .map((b) => b.name);
        const what = expr.k === 'call' ? `${expr.name}(…)` : 'new';
        return names.length ? union(...[...new Set(names)].sort().map((n) => literal(n))) : unknown(what, { kind: 'call', at: what });
      }
      case 'stored': {
        // `getHeader("destination")`: what the estate stores under that key, read back; a key it does not state is no key.
        const store = a.startsWith("'") ? a.slice(1, -1) : a;
        const keys = operand(b);
        const key = keys.length === 1 && keys[0]!.pieces.every((p) => p.s !== undefined) ? render(keys[0]!) : undefined;
        const what = expr.k === 'call' ? `${expr.name}(…)` : 'new';
        return key !== undefined ? unknown(`${store} ${key}`, { name: key, kind: 'field', at: `${store} ${key}`, stored: `${store}:${key}` }) : unknown(what, { kind: 'call', at: what });
      }
      case 'either': {
        const present = op.operands.find((o) => !/^args?\d/.test(o) || Number(/\d/.exec(o)![0]) < args.length) ?? 'empty';
        return operand(present);
      }
      case 'concat':
        return concat(operand(a), operand(b));
      case 'path':
      case 'segments':
        return joinPath(operand(a), operand(b));
      case 'resolve':
        return resolveUrl(operand(a), operand(b));
      case 'scheme':
        return concat(concat(operand(b), literal('://')), operand(a));
      case 'host':
        return concat(operand(a), operand(b));
      case 'port':
        return concat(concat(operand(a), literal(':')), operand(b));
      case 'service':
        return concat(literal('lb://'), operand(a));
      case 'simple_name':
        return operand(a).map((v) => (v.pieces.every((p) => p.s !== undefined) ? literal(render(v).replace(/^.*[.$]/, ''))[0]! : v));
      case 'format': {
        const n = Number(b.replace(/^args/, ''));
        return format(operand(a), args.slice(n).map((x) => this.values(x, site, depth + 1)));
      }
      case 'method': {
        // `method(target, name, 'default')`: a listener reference `pkg.Type#name` (a MessageListenerAdapter's delegate method).
        const [target = 'empty', name = 'empty', fallback = 'empty'] = op.operands;
        const member = site.member ?? this.contextMember(site.owner);
        const at = /^arg(\d)$/.exec(name);
        const nameArg = at ? args[Number(at[1])] : undefined;
        const typed = nameArg && member ? this.resolver.typeOf(nameArg, member, site.line) : undefined;
        const stringTyped = typed !== undefined && !('unknown' in typed) && /^(?:java\.lang\.|kotlin\.)?String$/.test(typed.target.external ?? '');
        const names = at ? (stringTyped ? operand(name) : operand(fallback)) : operand(name);
        let classes: Value[];
        const targetArg = /^arg(\d)$/.exec(target);
        if (targetArg) {
          const arg = args[Number(targetArg[1])];
          const t = arg && member ? this.resolver.typeOf(arg, member, site.line) : undefined;
          const entry = t && !('unknown' in t) && !t.isType ? t.target.entry : undefined;
          classes = entry ? literal(entry.qn) : unknown(`the class of ${arg ? exprText(arg) : 'the listener object'}`, { kind: 'expression' });
        } else {
          // A listener reference keeps its class (`setDefaultListenerMethod(m)` on an adapter).
          classes = operand(target).map((v) => {
            const ref = v.pieces.length && v.pieces.every((p) => p.s !== undefined) ? /^([\w.$]+)#[\w$]+$/.exec(render(v)) : null;
            return ref ? literal(ref[1]!)[0]! : { pieces: [{ hole: { origin: 'the listener object', kind: 'expression' as const } }], from: v.from };
          });
        }
        return union(...classes.map((c) => concat([c], concat(literal('#'), names))));
      }
      case 'config': {
        // `config('prefix.{}.name', argN)`: the configuration value at the key the operand completes (a queue
        // registry that names queues by an id). An operand the estate does not state keeps its holes.
        const template = a.slice(1, -1);
        const config = this.configFor(site.owner);
        return union(
          ...operand(b).map((v) => {
            if (v.instance || v.bound !== undefined || v.pieces.some((p) => p.hole)) return [v];
            const key = template.replace('{}', render(v));
            return config?.lookup(key) ?? unknown(`configuration key ${key}, set by no file in the estate`, { kind: 'configuration', at: key });
          }),
        );
      }
      case 'join': {
        // `String.join(sep, a, b, …)`: the arguments from N on, with the separator between them.
        const sep = knownText(operand(a));
        const from = Number(/^args(\d)$/.exec(b)?.[1] ?? NaN);
        if (sep === undefined || Number.isNaN(from)) return unknown(`${expr.k === 'call' ? expr.name : 'join'}(…) with a separator the estate does not state`, { kind: 'expression' });
        return args.slice(from).reduce<Value[] | undefined>((acc, arg) => (acc ? concat(concat(acc, literal(sep)), this.values(arg, site, depth + 1)) : this.values(arg, site, depth + 1)), undefined) ?? literal('');
      }
      case 'strip_suffix':
      case 'strip_prefix': {
        const affix = knownText(operand(b));
        if (affix === undefined) return unknown(`${expr.k === 'call' ? expr.name : op.op}(…) of a text the estate does not state`, { kind: 'expression' });
        const suffix = op.op === 'strip_suffix';
        return editText(operand(a), (t) => (!affix ? t : suffix ? (t.endsWith(affix) ? t.slice(0, -affix.length) : t) : t.startsWith(affix) ? t.slice(affix.length) : t), suffix ? 'end' : 'start');
      }
      case 'replace':
      case 'replace_first':
      case 'replace_text': {
        // Java's regex `replaceAll`/`replaceFirst` (the patterns URLs use read the same in JavaScript) and `replace`,
        // which replaces text as written.
        const [, , c = 'empty'] = op.operands;
        const pattern = knownText(operand(b));
        const replacement = knownText(operand(c));
        if (pattern === undefined || replacement === undefined) return unknown(`${expr.k === 'call' ? expr.name : op.op}(…) with a pattern the estate does not state`, { kind: 'expression' });
        if (op.op === 'replace_text') return editText(operand(a), (t) => t.split(pattern).join(replacement), 'none');
        let regex: RegExp;
        try {
          regex = new RegExp(pattern, op.op === 'replace_first' ? '' : 'g');
        } catch {
          return unknown(`${expr.k === 'call' ? expr.name : op.op}(…) with a pattern JavaScript does not read (${pattern})`, { kind: 'expression' });
        }
        const anchored = pattern.endsWith('$') && !pattern.endsWith('\\$') ? 'end' : pattern.startsWith('^') ? 'start' : 'none';
        return editText(operand(a), (t) => t.replace(regex, replacement), anchored);
      }
      case 'placeholders': {
        // A text whose `{}` are the operands, in order, then its `${…}` placeholders resolved against the service's
        // configuration; an operand the estate does not state keeps its holes, the text around it resolved.
        const parts = a.slice(1, -1).split('{}');
        const config = this.configFor(site.owner);
        const resolve = (text: string): Value[] => (!text ? literal('') : (config?.placeholders(text) ?? literal(text)));
        let combos: Value[][] = [[]];
        for (const o of op.operands.slice(1, parts.length)) combos = combos.flatMap((c) => operand(o).map((v) => [...c, v])).slice(0, MAX_COMBINATIONS);
        return union(
          ...combos.map((values) => {
            const objects = values.find((v) => v.instance || v.bound !== undefined);
            if (objects) return [objects];
            if (values.every((v) => v.pieces.every((p) => p.s !== undefined))) return resolve(parts.map((part, i) => `${part}${values[i] ? render(values[i]!) : ''}`).join(''));
            // An unknown operand that names the key (`System.getenv(name)`): the value is as unknown as the name.
            if (parts.some((part) => part.lastIndexOf('${') > part.lastIndexOf('}'))) return [values.find((v) => v.pieces.some((p) => p.hole))!];
            return parts.reduce<Value[]>((acc, part, i) => concat(concat(acc, resolve(part)), values[i] ? [values[i]!] : literal('')), literal(''));
          }),
        );
      }
      default:
        return unknown(`library operation ${op.op}`, { kind: 'expression' });
    }
  }

  /**
   * Argument `index` of the `super(…)` call in a constructor of the receiver's project class (an Eventuate
   * `AbstractAggregateDomainEventPublisher` subclass passes its aggregate class so).
   */
  private superArgument(expr: CallExpr | Extract<Expr, { k: 'new' }>, index: number, site: Site, depth: number): Value[] {
    const member = site.member ?? this.contextMember(site.owner);
    const typed = expr.k === 'call' && expr.of && member ? this.resolver.typeOf(expr.of, member, site.line) : undefined;
    const type = expr.k === 'call' && !expr.of ? site.owner : typed && !('unknown' in typed) ? typed.target.entry : undefined;
    // The class itself first, then its project ancestors (only classes have super(…) calls).
    for (const t of type ? this.model.ancestors(type).project : []) {
      const sites = t.members.flatMap((m) => (m.facts.kind === 'constructor' ? m.facts.calls.filter((c) => c.kind === 'super_ctor' && !c.implicit && c.values?.[index]).map((c) => ({ m, c })) : []));
      if (sites.length) return union(...sites.map(({ m, c }) => this.values(c.values![index]!, { owner: t, member: m, line: c.line }, depth + 1)));
    }
    return unknown(`the argument ${index + 1} its class passes to super(…)`, { kind: 'call' });
  }

  /**
   * The class (its qualified name) that the receiver's project type gives as type argument `index` of the library type
   * the call lands on, through its project supertypes (`interface OrderEvents extends
   * DomainEventPublisherForAggregate<Order, Long, OrderEvent>`: Order). Library supertypes in the table keep their type
   * parameters in place. A type variable there, or a receiver typed by the library type itself, states no class.
   */
  private typeArgument(expr: CallExpr | Extract<Expr, { k: 'new' }>, index: number, site: Site): Value[] {
    const missing = (): Value[] => unknown(`type argument ${index + 1} of the library type ${expr.k === 'call' ? expr.name : 'new'} is called on, which the receiver's type does not state`, { kind: 'expression' });
    const member = site.member ?? this.contextMember(site.owner);
    if (expr.k !== 'call' || !member) return missing();
    const resolved = this.resolver.resolveCallExpr(member, expr, site.line);
    const first = 'unresolved' in resolved ? undefined : resolved.targets[0];
    const row = first && 'external' in first ? this.library.method(first.external.owner, first.external.name) : undefined;
    if (!row) return missing();
    const typed = expr.of ? this.resolver.typeOf(expr.of, member, site.line) : undefined;
    const start = expr.of ? (typed && !('unknown' in typed) ? typed.target.entry : undefined) : site.owner;
    for (const t of start ? this.model.ancestors(start).project : []) {
      for (const s of t.facts.supertypes) {
        const target = this.model.resolveTypeName(s.type.name, t);
        if (target?.external === undefined || this.library.method(target.external, expr.name) !== row) continue;
        const arg = s.type.args?.[index];
        const found = arg ? this.model.resolveTypeName(arg.name, t) : undefined;
        return found?.entry ? literal(found.entry.qn) : found?.external !== undefined ? literal(found.external) : missing();
      }
    }
    return missing();
  }

  // ---- names, fields, parameters ----

  private nameValues(name: string, site: Site, depth: number): Value[] {
    const bound = site.bindings?.get(name);
    if (bound) return bound;
    const member = site.member;
    if (member) {
      const given = this.lambdaParameter(member, name, site, depth);
      if (given) return given;
      // `val uri = fromUri(uri)…`: inside its own initializer the name is what it shadows (a property, a parameter).
      const keyOf = (line: number): string => `local:${member.qn}:${name}@${line}`;
      const locals = this.localDefinitions(member.facts, name, site.line)?.filter((l) => !this.active.has(keyOf(l.line)) || this.cut(false));
      if (locals?.length) {
        const defined = union(
          ...locals.map((local) => {
            if (!local.value) return unknown(`local ${name}`, { name, kind: 'local', at: name });
            this.active.add(keyOf(local.line));
            try {
              return this.values(local.value, { ...site, line: local.line }, depth + 1);
            } finally {
              this.active.delete(keyOf(local.line));
            }
          }),
        );
        // `JmsTemplate t = new JmsTemplate(cf); t.setDefaultDestinationName(q);`: what the calls after it set.
        const since = Math.max(...locals.map((l) => l.line));
        const steps = this.configuringSteps(member, (e) => e.k === 'name' && e.name === name, (l) => l >= since && l <= site.line);
        return steps.length ? this.configure(defined, steps, site, depth) : defined;
      }
      const index = member.facts.params.findIndex((p) => p.name === name);
      if (index >= 0) return this.paramValues(member, index, depth);
    }
    for (let t: TypeEntry | undefined = site.owner; t; t = t.outer) {
      if (this.model.findField(t, name)) return this.fieldValues(t, name, depth, site.instance);
      // A Kotlin companion object's property, read unqualified in its class.
      const companion = this.model.companionOf(t);
      if (companion && this.model.findField(companion, name)) return this.fieldValues(companion, name, depth);
    }
    const staticOwner = site.owner.file.imports.staticSingle[name];
    const imported = staticOwner ? this.model.typeByQn(staticOwner, site.owner.place) : undefined;
    if (imported && this.model.findField(imported, name)) return this.fieldValues(imported, name, depth);
    // In a Kotlin extension function, a bare name may be a property of the receiver it extends.
    if (site.member?.facts.extensionReceiver && name !== RECEIVER.name) return this.fieldAccess({ k: 'field', of: RECEIVER, name }, site, depth + 1);
    return unknown(`${name}`, { name, kind: 'expression', at: name });
  }

  /**
   * A name used inside a lambda that declares it as a parameter (`opt.ifPresent(url -> client.get(url))`,
   * `Optionals.mapIfAllPresent(a, b, (x, url) -> …)`): what the call the lambda is passed to gives that parameter, as
   * its library row says (`lambda_args`), evaluated where the call is; undefined when no lambda there declares it or no
   * row says (the name is then read as any other).
   */
  private lambdaParameter(member: MemberEntry, name: string, site: Site, depth: number): Value[] | undefined {
    // The lambdas there that declare it, innermost first.
    const enclosing = this.lambdasOf(member)
      .filter((l) => l.lambda.from <= site.line && site.line <= l.lambda.to && l.lambda.params.includes(name))
      .sort((a, b) => a.lambda.to - a.lambda.from - (b.lambda.to - b.lambda.from));
    let found: { call: CallFacts; lambda: LambdaExpr; expr: CallExpr; op: ValueOp } | undefined;
    for (const { call, lambda } of enclosing) {
      if (call.kind !== 'call') return undefined;
      const expr: CallExpr = { k: 'call', name: call.name, argCount: call.argCount, ...(call.receiver ? { of: call.receiver } : {}), ...(call.values ? { args: call.values } : {}), ...(call.argNames ? { names: call.argNames } : {}) };
      const row = this.libraryCall(expr, { ...site, line: call.line });
      const op = row?.lambdaArgs?.[lambda.params.indexOf(name)];
      if (op) {
        found = { call, lambda, expr, op };
        break;
      }
      // Kotlin's implicit `it` in a function given a receiver, not a parameter (`apply { … }`): the `it` of a lambda around it.
      if (!row || name !== 'it' || row.lambdaArgs) return undefined;
    }
    if (!found) return undefined;
    const { call, lambda, expr, op } = found;
    const at: Site = { ...site, line: call.line };
    const key = `lambda:${member.qn}:${lambda.from}:${name}`;
    if (this.active.has(key)) return this.cut(unknown(`parameter ${name} of a function (defined through itself)`, { name, kind: 'expression', at: name }));
    this.active.add(key);
    try {
      return this.apply(op, expr, at, depth + 1);
    } finally {
      this.active.delete(key);
    }
  }

  private readonly lambdaCache = new WeakMap<MemberEntry, { call: CallFacts; lambda: LambdaExpr }[]>();

  /** The lambdas a member passes as arguments of its calls, with the call. */
  private lambdasOf(member: MemberEntry): { call: CallFacts; lambda: LambdaExpr }[] {
    let out = this.lambdaCache.get(member);
    if (!out) {
      out = [];
      for (const call of member.facts.calls) for (const v of call.values ?? []) if (v.k === 'lambda' && v.params.length) out.push({ call, lambda: v });
      this.lambdaCache.set(member, out);
    }
    return out;
  }

  /**
   * The calls in `member` that set the value of an object (rows with `configures`), on the receiver `target` tells,
   * at lines `within` allows, in line order: `t.setDefaultDestinationName(q)`, and a Kotlin property assignment
   * `t.defaultDestinationName = q` as its setter's call. Each as a call on {@link CONFIGURED}, the object before it.
   */
  private configuringSteps(member: MemberEntry, target: (e: Expr) => boolean, within: (line: number) => boolean): { op: ValueOp; expr: CallExpr; line: number }[] {
    const names = this.library.configuringNames();
    if (!names.size) return [];
    const steps: { op: ValueOp; expr: CallExpr; line: number }[] = [];
    for (const c of member.facts.calls) {
      if (c.kind !== 'call' || !names.has(c.name) || !c.receiver || !target(c.receiver) || !within(c.line)) continue;
      const resolved = this.resolver.resolve(member, c);
      const first = resolved && !('unresolved' in resolved) ? resolved.targets[0] : undefined;
      const row = first && 'external' in first ? this.library.method(first.external.owner, first.external.name) : undefined;
      if (row?.configures) steps.push({ op: row.configures, expr: { k: 'call', name: c.name, argCount: c.argCount, of: CONFIGURED, ...(c.values ? { args: c.values } : {}) }, line: c.line });
    }
    for (const a of member.facts.assigns ?? []) {
      if (a.target.k !== 'field' || !target(a.target.of) || !within(a.line) || !a.target.name) continue;
      const setter = `set${a.target.name[0]!.toUpperCase()}${a.target.name.slice(1)}`;
      if (!names.has(setter)) continue;
      const typed = this.resolver.typeOf(a.target.of, member, a.line);
      const row = !('unknown' in typed) && typed.target.external !== undefined ? this.library.method(typed.target.external, setter) : undefined;
      if (row?.configures) steps.push({ op: row.configures, expr: { k: 'call', name: setter, argCount: 1, of: CONFIGURED, args: [a.value] }, line: a.line });
    }
    return steps.sort((x, y) => x.line - y.line);
  }

  /** An object's value after configuring calls (see {@link configuringSteps}), each applied to the value before it. */
  private configure(values: Value[], steps: readonly { op: ValueOp; expr: CallExpr; line: number }[], site: Site, depth: number): Value[] {
    let current = values;
    for (const step of steps) {
      const bindings = new Map(site.bindings ?? []);
      bindings.set(CONFIGURED.name, current);
      current = this.apply(step.op, step.expr, { ...site, line: step.line, bindings }, depth + 1);
    }
    return current;
  }

  /** The definition of a local that reaches `line`: the last assignment or declaration before it. */
  private localDefinition(member: MemberFacts, name: string, line: number): { value?: Expr; line: number } | undefined {
    const all = this.localDefinitions(member, name, line);
    return all?.[all.length - 1];
  }

  /**
   * The definitions of a local that reach `line`: the last one made at the declaration's own level, and those made
   * after it inside `if` branches (`url = a` in one branch, `url = b` in the other: both); when the two branches of
   * one `if` both assign it, what came before no longer reaches.
   */
  private localDefinitions(member: MemberFacts, name: string, line: number): { value?: Expr; line: number }[] | undefined {
    let declared: { value?: Expr; line: number; branch?: string } | undefined;
    for (const l of member.locals) {
      if (l.name !== name) continue;
      if (l.line <= line || !declared) declared = { ...(l.init ? { value: l.init } : {}), line: l.line, ...(l.branch ? { branch: l.branch } : {}) };
    }
    if (!declared) return undefined;
    const level = declared.branch ? `${declared.branch}/` : '';
    let reaching: { value?: Expr; line: number }[] = [declared];
    const sides = new Map<string, Set<string>>();
    for (const a of member.assigns ?? []) {
      if (a.target.k !== 'name' || a.target.name !== name || a.line >= line || a.line < declared.line) continue;
      const branch = a.branch ?? '';
      // A declaration line equal to the use (`String url = url(…)`) reads what was there before: nothing here.
      if (branch === (declared.branch ?? '') || !branch.startsWith(level)) {
        reaching = [{ value: a.value, line: a.line }];
        sides.clear();
        continue;
      }
      reaching.push({ value: a.value, line: a.line });
      const first = branch.slice(level.length).split('/')[0]!;
      const at = first.slice(0, -1);
      (sides.get(at) ?? sides.set(at, new Set()).get(at)!).add(first.slice(-1));
    }
    // Both branches of one `if` assign it: the definition before the `if` is overwritten either way.
    if (reaching.length > 1 && [...sides.values()].some((s) => s.size === 2)) reaching = reaching.slice(1);
    return reaching;
  }

  private paramValues(member: MemberEntry, index: number, depth: number): Value[] {
    const param = member.facts.params[index]!;
    const key = `${member.qn}#${index}`;
    const cached = this.paramCache.get(key);
    if (cached) return cached;
    const cuts = this.cuts;
    const config = this.configOf(member.owner.place.service);
    const injected = annotationValue(param.annotations, 'Value');
    if (injected) return config.placeholders(injected);
    const prefix = this.configurationPrefixOf(param.type.name, member.owner);
    if (prefix !== undefined) return boundObject(prefix);
    // Spring calls a @Bean method with the beans its parameters name.
    if (member.facts.annotations.some((a) => a.name === 'Bean')) {
      const bean = this.injectedBean(member, index, depth);
      if (bean) return bean;
    }
    const open = member.facts.kind === 'method' && !member.facts.modifiers.includes('private') && member.facts.modifiers.includes('public');
    if (open) return unknown(`parameter ${param.name}`, { name: param.name, kind: 'parameter', at: parameterAt(member, param.name) });
    if (this.active.has(key)) return this.cut(unknown(`parameter ${param.name}`, { name: param.name, kind: 'parameter', at: parameterAt(member, param.name) }));
    this.active.add(key);
    try {
      const sites = this.callSitesOf(member);
      let result: Value[];
      if (!sites.length) {
        const bean = member.facts.kind === 'constructor' || member.facts.annotations.some((a) => a.name === 'Bean' || INJECTION.has(a.name));
        result = (bean && this.injectedBean(member, index, depth)) || unknown(bean ? `parameter ${param.name}, injected` : this.methodReferenced().has(member.facts.name) ? `parameter ${param.name} (the method is passed as a method reference, ::${member.facts.name}, whose caller gives it)` : `parameter ${param.name} (no call site in the estate)`, { name: param.name, kind: 'parameter', at: parameterAt(member, param.name), injected: bean });
      } else if (sites.length > MAX_CALL_SITES) result = unknown(`parameter ${param.name} (more than ${MAX_CALL_SITES} call sites)`, { name: param.name, kind: 'limit', at: parameterAt(member, param.name) });
      else {
        result = union(
          ...sites.map(({ caller, call }) => {
            const arg = argumentFor(member, call, index);
            return arg ? this.values(arg, { owner: caller.owner, member: caller, line: call.line }, depth + 1) : unknown(`parameter ${param.name}`, { name: param.name, kind: 'parameter', at: parameterAt(member, param.name) });
          }),
        );
      }
      if (this.cuts === cuts) this.paramCache.set(key, result);
      return result;
    } finally {
      this.active.delete(key);
    }
  }

  /**
   * The value of a bean injected into a parameter: the `@Bean` method of the service that makes it, by the
   * parameter's `@Qualifier` or name, else the only one of its type.
   */
  private injectedBean(member: MemberEntry, index: number, depth: number): Value[] | undefined {
    const param = member.facts.params[index]!;
    const want = this.model.resolveType(param.type, member.owner);
    if (!want.entry && want.external === undefined) return undefined;
    const candidates = this.beanMethodsOf(member.owner.place.service).filter(({ method }) => {
      const made = method.facts.returnType ? this.model.resolveType(method.facts.returnType, method.owner) : undefined;
      return made !== undefined && (want.entry ? made.entry === want.entry : made.external === want.external);
    });
    const name = annotationValue(param.annotations, 'Qualifier') || param.name;
    const chosen = candidates.filter((c) => c.name === name);
    const bean = chosen.length === 1 ? chosen[0] : candidates.length === 1 ? candidates[0] : undefined;
    if (!bean) return undefined;
    return this.projectCall(bean.method, { k: 'call', name: bean.method.facts.name, argCount: bean.method.facts.params.length }, { owner: bean.method.owner, member: bean.method, line: bean.method.facts.line }, depth + 1);
  }

  private beanMethods: Map<string, { name: string; method: MemberEntry }[]> | undefined;

  private beanMethodsOf(service: string): { name: string; method: MemberEntry }[] {
    if (!this.beanMethods) {
      this.beanMethods = new Map();
      for (const t of this.model.types) {
        for (const m of t.members) {
          const bean = m.facts.kind === 'method' ? m.facts.annotations.find((a) => a.name === 'Bean') : undefined;
          if (!bean) continue;
          const name = bean.args.name?.[0]?.value ?? bean.args.value?.[0]?.value ?? m.facts.name;
          const list = this.beanMethods.get(t.place.service) ?? this.beanMethods.set(t.place.service, []).get(t.place.service)!;
          list.push({ name, method: m });
        }
      }
    }
    return this.beanMethods.get(service) ?? [];
  }

  /**
   * Where the estate writes what a stored hole reads back (`Hole.stored`), in `service`: each call that writes it,
   * with the expression written — the setter calls of a project class's property (`entity.setDestination(d)`), the
   * calls the library table says store under a key (`accessor.setHeader("destination", d)`). Several stores of one
   * key are all the values a read can see.
   */
  storedWrites(key: string, service: string | undefined): { writes: { caller: MemberEntry; call: CallFacts; value: Expr }[]; complete: boolean } {
    const out: { caller: MemberEntry; call: CallFacts; value: Expr }[] = [];
    const inService = (m: MemberEntry) => service === undefined || m.owner.place.service === service;
    const property = /^class:(.+)#(\w+)$/.exec(key);
    if (property) {
      const type = this.model.typeByQn(property[1]!);
      const name = property[2]!;
      const setter = type && this.model.findMethods(type, `set${name[0]!.toUpperCase()}${name.slice(1)}`, 1).members[0];
      if (!type || !setter) return { writes: out, complete: false };
      // Writes on objects of that type or a subtype: the receiver's static type says, `this` in the class itself.
      const holds = (entry: TypeEntry | undefined) => !!entry && (entry === type || this.model.ancestors(entry).project.includes(type));
      for (const { caller, call } of this.callSitesOf(setter)) {
        if (!inService(caller) || !call.values?.[0]) continue;
        const typed = call.receiver && call.receiver.k !== 'this' ? this.resolver.typeOf(call.receiver, caller, call.line) : undefined;
        const receiverType = !call.receiver || call.receiver.k === 'this' ? caller.owner : typed && !('unknown' in typed) ? typed.target.entry : undefined;
        if (holds(receiverType)) out.push({ caller, call, value: call.values[0] });
      }
      return { writes: out, complete: settersOnly(type) };
    }
    const at = key.indexOf(':');
    const store = key.slice(0, at);
    const wanted = key.slice(at + 1);
    for (const name of this.library.storingNames()) {
      for (const { caller, call } of this.callsNamed(name)) {
        if (!inService(caller)) continue;
        const resolved = this.resolver.resolve(caller, call);
        const target = resolved && !('unresolved' in resolved) ? resolved.targets.find((t) => 'external' in t) : undefined;
        const row = target && 'external' in target ? this.library.method(target.external.owner, target.external.name) : undefined;
        if (!row?.stores || row.stores.store !== store) continue;
        const expr: CallExpr = { k: 'call', name: call.name, argCount: call.argCount, ...(call.receiver ? { of: call.receiver } : {}), ...(call.values ? { args: call.values } : {}), ...(call.argNames ? { names: call.argNames } : {}) };
        const site: Site = { owner: caller.owner, member: caller, line: call.line };
        const keys = this.apply(row.stores.key, expr, site, 0);
        if (!keys.some((k) => k.pieces.every((p) => p.s !== undefined) && render(k) === wanted)) continue;
        const index = /^arg(\d)$/.exec(row.stores.value.operands[0] ?? '')?.[1];
        const value = index !== undefined ? call.values?.[Number(index)] : undefined;
        if (value) out.push({ caller, call, value });
      }
    }
    return { writes: out, complete: true };
  }

  /** Every call in the estate, by the name called (`<init>:Type` for a `new`, `<init>` for `this(…)`/`super(…)`). */
  private callsNamed(key: string): readonly { caller: MemberEntry; call: CallFacts }[] {
    if (!this.callIndex) {
      this.callIndex = new Map();
      for (const t of this.model.types) {
        for (const m of t.members) {
          for (const call of m.facts.calls) {
            const name = call.kind === 'new' ? `<init>:${(call.type?.name ?? '').split('.').pop()}` : call.kind === 'call' ? call.name : call.kind === 'method_ref' ? '' : '<init>';
            if (name) (this.callIndex.get(name) ?? this.callIndex.set(name, []).get(name)!).push({ caller: m, call });
          }
        }
      }
    }
    return this.callIndex.get(key) ?? [];
  }

  /**
   * The `this(…)` and `super(…)` calls that can land on a type's constructors: those made in the type itself, or in
   * a type that names it as a supertype. (Every such call in the estate, resolved for each constructor asked about,
   * cost more than the rest of finding call sites.)
   */
  private delegationsTo(type: TypeEntry): readonly { caller: MemberEntry; call: CallFacts }[] {
    if (!this.delegations) {
      this.delegations = new Map();
      for (const site of this.callsNamed('<init>')) {
        const owner = site.caller.owner;
        const targets = new Set<TypeEntry>([owner]);
        for (const s of owner.supers) if (s.target.entry) targets.add(s.target.entry);
        for (const t of targets) (this.delegations.get(t) ?? this.delegations.set(t, []).get(t)!).push(site);
      }
    }
    return this.delegations.get(type) ?? [];
  }

  private delegations: Map<TypeEntry, { caller: MemberEntry; call: CallFacts }[]> | undefined;

  /** The project call sites of a member (calls, `new`, `this(…)` / `super(…)`), through call resolution. */
  private callSitesOf(member: MemberEntry): readonly { caller: MemberEntry; call: CallFacts }[] {
    let sites = this.callSites.get(member);
    if (sites) return sites;
    const key = member.facts.kind === 'constructor' ? `<init>:${member.owner.facts.name}` : member.facts.name;
    const candidates = [...this.callsNamed(key), ...(member.facts.kind === 'constructor' ? this.delegationsTo(member.owner) : [])];
    sites = candidates.filter(({ caller, call }) => {
      if (call.argCount >= 0 && call.argCount > member.facts.params.length && !member.facts.params.some((p) => p.varargs)) return false;
      const resolved = this.resolver.resolve(caller, call);
      return !!resolved && !('unresolved' in resolved) && resolved.targets.some((t) => 'member' in t && t.member === member);
    });
    this.callSites.set(member, sites);
    return sites;
  }

  /** callSitesOf answers: a helper's call sites are asked for again by every sink that reaches it. */
  private readonly callSites = new Map<MemberEntry, readonly { caller: MemberEntry; call: CallFacts }[]>();

  private fieldAccess(expr: Extract<Expr, { k: 'field' }>, site: Site, depth: number): Value[] {
    // In a Kotlin extension function, `this` is the receiver it extends (its first parameter).
    if (expr.of.k === 'this' && !expr.of.qualifier && site.member?.facts.extensionReceiver) return this.fieldAccess({ ...expr, of: RECEIVER }, site, depth);
    if (expr.of.k === 'this') return this.fieldValues(site.owner, expr.name, depth, site.instance);
    // `Target.ORDERS.url` (Kotlin): the property of an enum constant, from its constructor arguments.
    const instance = this.enumInstance(expr.of, site);
    if (instance && this.model.findField(instance.type, expr.name)) return this.fieldValues(instance.type, expr.name, depth, instance);
    const member = site.member ?? this.contextMember(site.owner);
    const typed = member ? this.resolver.typeOf(expr.of, member, site.line) : undefined;
    if (typed && !('unknown' in typed)) {
      const entry = typed.target.entry;
      if (entry && typed.isType) {
        if (entry.facts.enumConstants?.includes(expr.name)) return literal(expr.name);
        const companion = this.model.findField(entry, expr.name) ? undefined : this.model.companionOf(entry);
        if (companion && this.model.findField(companion, expr.name)) return this.fieldValues(companion, expr.name, depth);
        return this.model.findField(entry, expr.name) ? this.fieldValues(entry, expr.name, depth) : unknown(`${entry.facts.name}.${expr.name}`, { kind: 'field', at: `${entry.facts.name}.${expr.name}` });
      }
      if (entry && !typed.isType) {
        const receiver = this.values(expr.of, site, depth + 1);
        if (receiver.length && receiver.every((v) => v.bound !== undefined)) return this.boundProperty(receiver, expr.name, entry, depth);
        if (receiver.length && receiver.every((v) => v.instance)) return union(...receiver.map((v) => this.fieldValues(v.instance!.type, expr.name, depth, v.instance)));
        if (receiver.length && receiver.every(fromCaller)) return unknown(exprText(expr), { name: expr.name, kind: 'parameter', at: exprText(expr), stored: `class:${entry.qn}#${expr.name}` });
        return this.model.findField(entry, expr.name) ? readThrough(this.fieldValues(entry, expr.name, depth), entry, expr) : unknown(`${entry.facts.name}.${expr.name}`, { kind: 'field', at: exprText(expr) });
      }
      if (typed.target.external !== undefined && typed.isType) return unknown(`${typed.target.external.split('.').pop()}.${expr.name}`, { kind: 'field', at: `${typed.target.external.split('.').pop()}.${expr.name}` });
    }
    const receiver = this.values(expr.of, site, depth + 1);
    if (receiver.length && receiver.every((v) => v.bound !== undefined)) return this.boundProperty(receiver, expr.name, undefined, depth);
    // Kotlin reads a library getter as a property (`instance.uri` is `getUri()`).
    if (typed && !('unknown' in typed) && typed.target.external !== undefined && !typed.isType && expr.name) {
      const getter = `get${expr.name[0]!.toUpperCase()}${expr.name.slice(1)}`;
      const row = this.library.method(typed.target.external, getter);
      if (row?.value) return this.apply(row.value, { k: 'call', name: getter, argCount: 0, of: expr.of }, site, depth);
    }
    return unknown(`${expr.name}`, { kind: 'expression', at: expr.name });
  }

  /** A property of an object bound from configuration: the configured value, else the class's own default. */
  private boundProperty(receiver: Value[], property: string, type: TypeEntry | undefined, depth: number): Value[] {
    return union(
      ...receiver.map((r) => {
        const key = r.bound ? `${r.bound}.${property}` : property;
        const config = this.configFor(type);
        const found = config?.lookup(key);
        if (found) return found;
        if (type && this.model.findField(type, property)) {
          const defaults = this.fieldValues(type, property, depth, undefined, true);
          if (!defaults.some((v) => v.pieces.some((p) => p.hole))) return defaults;
        }
        return unknown(`configuration key ${key}, set by no file in the estate`, { kind: 'configuration', at: key });
      }),
    );
  }

  private configFor(type: TypeEntry | undefined): ConfigView | undefined {
    return type ? this.configOf(type.place.service) : this.currentConfig;
  }

  /** The configuration of the service being evaluated (for bound objects of library types). */
  private currentConfig: ConfigView | undefined;

  /** Evaluates with a service's configuration current (bound library objects read it). */
  inService<T>(service: string, run: () => T): T {
    const outer = this.currentConfig;
    this.currentConfig = this.configOf(service);
    try {
      return run();
    } finally {
      this.currentConfig = outer;
    }
  }

  /**
   * The configuration lists whose elements Spring binds to objects of a project class: a `List`, `Set`,
   * `Collection` or array field of that class in a `@ConfigurationProperties` class (`service-config.services`).
   */
  private listElementPrefixes(type: TypeEntry): readonly string[] {
    if (!this.elementLists) {
      this.elementLists = new Map();
      for (const t of this.model.types) {
        const prefix = annotationValue(t.facts.annotations, 'ConfigurationProperties', 'prefix', 'value');
        if (!prefix) continue;
        for (const f of t.facts.fields) {
          if (!f.type || f.modifiers.includes('static')) continue;
          const simple = f.type.name.slice(f.type.name.lastIndexOf('.') + 1);
          const element = f.type.array ? { ...f.type, array: f.type.array - 1 } : COLLECTION_TYPES.has(simple) && f.type.args?.length === 1 ? f.type.args[0]! : undefined;
          const target = element && !element.array ? this.model.resolveType(element, t).entry : undefined;
          if (target) this.elementLists.set(target.qn, [...(this.elementLists.get(target.qn) ?? []), `${prefix}.${f.name}`]);
        }
      }
    }
    return this.elementLists.get(type.qn) ?? [];
  }

  /** The prefix a type is bound from: `@ConfigurationProperties` on a project class, or a library table row. */
  private configurationPrefixOf(typeName: string, from: TypeEntry): string | undefined {
    const target = this.model.resolveTypeName(typeName, from);
    if (!target) return undefined;
    if (target.entry) {
      const prefix = annotationValue(target.entry.facts.annotations, 'ConfigurationProperties', 'prefix', 'value');
      return prefix === undefined ? undefined : prefix;
    }
    return this.library.configurationPrefix(target.external);
  }

  /** The values a field can hold: configuration, its initializer, assignments in its type's code, constructor parameters. */
  fieldValues(type: TypeEntry, name: string, depth: number, instance?: Site['instance'], initializerOnly = false): Value[] {
    const found = this.model.findField(type, name);
    if (!found) return unknown(`field ${name}`, { kind: 'field', at: `${type.facts.name}.${name}` });
    const owner = found.owner;
    const facts = owner.facts.fields.find((f) => f.name === name);
    if (!facts) return unknown(`field ${name}`, { kind: 'field', at: `${type.facts.name}.${name}` });
    // An object's field depends on the arguments it was made with, and on where they were evaluated.
    const key = `${owner.qn}#${name}${instance ? `@${JSON.stringify(instance.args)}${instance.at ? `@${instance.at.owner.qn}:${instance.at.line}${instance.at.bindings ? `:${JSON.stringify([...instance.at.bindings])}` : ''}` : ''}` : ''}${initializerOnly ? '!' : ''}`;
    const cached = this.fieldCache.get(key);
    if (cached) return cached;
    if (this.active.has(key)) return this.cut(unknown(`field ${name} (defined through itself)`, { kind: 'field', at: `${owner.facts.name}.${name}` }));
    const cuts = this.cuts;
    this.active.add(key);
    try {
      const result = this.computeField(owner, facts, depth, instance, initializerOnly);
      if (this.cuts === cuts) this.fieldCache.set(key, result);
      return result;
    } finally {
      this.active.delete(key);
    }
  }

  private computeField(owner: TypeEntry, field: FieldFacts, depth: number, instance: Site['instance'], initializerOnly: boolean): Value[] {
    const config = this.configOf(owner.place.service);
    const injected = annotationValue(field.annotations, 'Value');
    if (injected) return config.placeholders(injected);
    const classPrefix = annotationValue(owner.facts.annotations, 'ConfigurationProperties', 'prefix', 'value');
    if (classPrefix && !initializerOnly && !field.modifiers.includes('static')) {
      const configured = config.lookup(`${classPrefix}.${field.name}`);
      if (configured) return configured;
    }
    if (field.type) {
      const prefix = this.configurationPrefixOf(field.type.name, owner);
      if (prefix !== undefined && !field.init) return boundObject(prefix);
    }
    const context = this.contextMember(owner);
    const definitions: Value[][] = [];
    if (field.init) definitions.push(this.values(field.init, { owner, ...(context ? { member: context } : {}), line: field.line, ...(instance ? { instance } : {}) }, depth + 1));
    if (!initializerOnly) {
      const assigned: Value[][] = [];
      const unused: Value[][] = [];
      for (const m of owner.members) {
        // A setter nothing in the estate calls (and no framework annotation invokes) leaves the field as it was.
        const uncalled = m.facts.kind === 'method' && !m.facts.annotations.length && !m.facts.modifiers.includes('abstract') && this.callSitesOf(m).length === 0;
        for (const a of m.facts.assigns ?? []) {
          const target = a.target;
          const assignsField = (target.k === 'field' && target.of.k === 'this' && target.name === field.name) || (target.k === 'name' && target.name === field.name && !m.facts.params.some((p) => p.name === field.name) && !m.facts.locals.some((l) => l.name === field.name));
          if (!assignsField) continue;
          const site: Site = { owner, member: m, line: a.line };
          const into = uncalled ? unused : assigned;
          if (instance && m.facts.kind === 'constructor') into.push(this.values(a.value, { ...site, bindings: this.bindArgs(m, [...instance.args], instance.at ?? { owner: instance.type, line: 0 }, depth) }, depth + 1));
          else into.push(this.values(a.value, site, depth + 1));
        }
      }
      // No code of the estate sets it: an object the binder makes as an element of a configured list has the
      // value each element's configuration gives (`service-config.services[0].transformation-url`, …).
      if (!assigned.length && !field.init && !instance && !field.modifiers.includes('static')) {
        const configured = this.listElementPrefixes(owner).flatMap((list) => config.elements(list).map((element) => config.value(`${element}.${field.name}`) ?? []));
        if (configured.some((v) => v.length)) return union(...configured);
      }
      definitions.push(...assigned);
      if (!definitions.length) definitions.push(...unused);
      if (!definitions.length) {
        // A Kotlin constructor property, a record component, a Lombok constructor: a constructor parameter of that name.
        const ctor = owner.members.find((m) => m.facts.kind === 'constructor' && (m.facts.synthetic !== undefined || owner.file.language === 'kotlin') && m.facts.params.some((p) => p.name === field.name));
        if (ctor) {
          const index = ctor.facts.params.findIndex((p) => p.name === field.name);
          if (instance) definitions.push(this.values(instance.args[index] ?? { k: 'other', text: '' }, instance.at ?? { owner: instance.type, line: 0 }, depth + 1));
          else definitions.push(this.paramValues(ctor, index, depth + 1));
        }
      }
    }
    if (!definitions.length && field.type && this.library.namedBean(this.model.resolveTypeName(field.type.name, owner)?.external)) {
      // An injected bean told apart by its name (`@Autowired MessageChannel output`): that name, or its @Qualifier.
      return literal(annotationValue(field.annotations, 'Qualifier') || field.name);
    }
    const injection = field.annotations.some((a) => INJECTION.has(a.name));
    const defined = definitions.length ? union(...definitions) : unknown(injection ? `field ${field.name}, injected` : `field ${field.name}, never assigned`, { kind: 'field', at: `${owner.facts.name}.${field.name}`, injected: injection });
    return this.configuredField(owner, field, defined, depth, instance);
  }

  /**
   * A field's value after the calls its class makes to configure the object it holds (`@PostConstruct` setting a
   * template's default destination): each configuring call's value (their order across methods is not known).
   */
  private configuredField(owner: TypeEntry, field: FieldFacts, values: Value[], depth: number, instance: Site['instance']): Value[] {
    if (field.modifiers.includes('static') || !this.library.configuringNames().size) return values;
    const results: Value[][] = [];
    for (const m of owner.members) {
      const shadowed = m.facts.params.some((p) => p.name === field.name) || m.facts.locals.some((l) => l.name === field.name);
      const target = (e: Expr): boolean => (e.k === 'field' && e.of.k === 'this' && !e.of.qualifier && e.name === field.name) || (!shadowed && e.k === 'name' && e.name === field.name);
      for (const step of this.configuringSteps(m, target, () => true)) results.push(this.configure(values, [step], { owner, member: m, line: step.line, ...(instance ? { instance } : {}) }, depth));
    }
    return results.length ? union(...results) : values;
  }

  private bindArgs(member: MemberEntry, args: readonly Expr[], site: Site, depth: number, names?: readonly (string | null)[]): Map<string, Value[]> {
    const out = new Map<string, Value[]>();
    const call: CallFacts = { kind: 'call', name: member.facts.name, argCount: args.length, args: [], line: site.line, values: [...args], ...(names ? { argNames: [...names] } : {}) };
    // Spring calls a @Bean method (the bean is injected where it is wanted) with the beans its parameters name.
    const bean = member.facts.annotations.some((a) => a.name === 'Bean');
    member.facts.params.forEach((p, i) => {
      const a = argumentFor(member, call, i);
      out.set(p.name, a ? this.values(a, site, depth + 1) : bean ? this.paramValues(member, i, depth + 1) : unknown(`parameter ${p.name}`, { name: p.name, kind: 'parameter', at: parameterAt(member, p.name) }));
    });
    return out;
  }

  /** A member to type expressions in a type's field initializers with: its primary or first constructor. */
  private contextMember(type: TypeEntry): MemberEntry | undefined {
    return type.members.find((m) => m.facts.synthetic === 'primary_constructor') ?? type.members.find((m) => m.facts.kind === 'constructor') ?? type.members[0];
  }

  // ---- calls ----

  private callValues(expr: CallExpr, site: Site, depth: number): Value[] {
    const member = site.member ?? this.contextMember(site.owner);
    if (!member) return unknown(`${expr.name}(…)`, { kind: 'call', at: `${expr.name}(…)` });
    const resolved = this.resolver.resolveCallExpr(member, expr, site.line);
    if (!('unresolved' in resolved)) {
      const first = resolved.targets[0];
      if (first && 'member' in first) return this.projectCall(first.member, expr, site, depth);
      if (first && 'external' in first) {
        const onType = (): boolean => {
          const typed = expr.of ? this.resolver.typeOf(expr.of, member, site.line) : undefined;
          return !typed || (!('unknown' in typed) && !!typed.isType);
        };
        const row = this.library.method(first.external.owner, first.external.name, onType);
        const receiver = expr.of ? this.values(expr.of, site, depth + 1) : [];
        if (receiver.length && receiver.every((v) => v.bound !== undefined)) {
          // A getter reads the bound property; so does a Kotlin property read, unless the table follows the call (`stream()`).
          const property = propertyOfGetter(expr.name) ?? (expr.argCount === 0 && !row?.value ? expr.name : undefined);
          if (property) return this.boundProperty(receiver, property, undefined, depth);
        }
        if (row?.value) return this.apply(row.value, expr, site, depth);
        return unknown(`${first.external.owner.split('.').pop()}.${expr.name}(…)`, { kind: 'call', at: `${first.external.owner.split('.').pop()}.${expr.name}(…)` });
      }
    }
    // `Target.ORDERS.getUrl()`: the resolver types no enum constant, the enum's own method is called on it.
    const instance = expr.of ? this.enumInstance(expr.of, site) : undefined;
    const onConstant = instance ? this.model.findMethods(instance.type, expr.name, expr.argCount).members[0] : undefined;
    if (onConstant) return this.projectCall(onConstant, expr, site, depth);
    // A receiver no type is written for (a lambda's parameter) whose values are objects: they answer for themselves —
    // a configured object its getter, an object of a project class its method.
    if (expr.of?.k === 'name') {
      const receiver = this.values(expr.of, site, depth + 1);
      const property = propertyOfGetter(expr.name);
      if (property && receiver.length && receiver.every((v) => v.bound !== undefined)) return this.boundProperty(receiver, property, undefined, depth);
      if (receiver.length && receiver.every((v) => v.instance)) return union(...receiver.map((v) => this.onInstance(v.instance!, expr.name, expr.args ?? [], depth, site)));
    }
    return unknown(`${expr.name}(…)`, { kind: 'call', at: `${expr.name}(…)` });
  }

  /** Objects where text is wanted (`"http://" + host`): what their `toString()` gives. */
  private asText(values: Value[], depth: number): Value[] {
    if (!values.some((v) => v.instance)) return values;
    return union(...values.map((v) => (v.instance ? this.onInstance(v.instance, 'toString', [], depth) : [v])));
  }

  /** A method called on an object of a project class: its override for the object's class, with its fields. */
  private onInstance(instance: Instance, name: string, args: readonly Expr[], depth: number, at?: Site): Value[] {
    const method = this.model.findMethods(instance.type, name, args.length).members.find((m) => !m.facts.modifiers.includes('abstract'));
    if (!method) return unknown(`${instance.type.facts.name}.${name}(…)`, { kind: 'call', at: `${instance.type.facts.name}.${name}(…)` });
    return this.projectCall(method, { k: 'call', name, argCount: args.length, ...(args.length ? { args: [...args] } : {}) }, at ?? { owner: instance.type, line: method.facts.line, instance }, depth + 1, instance);
  }

  private projectCall(target: MemberEntry, expr: CallExpr, site: Site, depth: number, on?: Instance): Value[] {
    const facts = target.facts;
    // A @Bean method with @ConfigurationProperties: Spring binds the object it returns from configuration under the prefix.
    if (facts.annotations.some((a) => a.name === 'Bean')) {
      const prefix = annotationValue(facts.annotations, 'ConfigurationProperties', 'prefix', 'value');
      if (prefix) return boundObject(prefix);
    }
    // On an object of a project class (`new ServiceUri(…).toUri()`, a field holding one): that object's method.
    if (!on && expr.of && target.owner.facts.kind === 'class' && OBJECT_RECEIVERS.has(expr.of.k)) {
      const receiver = this.values(expr.of, site, depth + 1);
      if (receiver.length && receiver.every((v) => v.instance)) return union(...receiver.map((v) => this.onInstance(v.instance!, facts.name, expr.args ?? [], depth, site)));
    }
    const property = facts.property ?? (facts.synthetic === 'record_accessor' ? facts.name : undefined) ?? (facts.params.length === 0 ? propertyOfGetter(facts.name) : undefined);
    // On an object bound from configuration, a getter of a bound property reads the configuration; a method that
    // computes its result from others (`getPaymentUri() { return new ServiceUri(…) }`) is evaluated.
    const computed = !!facts.returns?.length && !facts.synthetic && !this.model.findField(target.owner, property ?? '');
    if (property && expr.of && !computed) {
      const receiver = this.values(expr.of, site, depth + 1);
      if (receiver.length && receiver.every((v) => v.bound !== undefined)) return this.boundProperty(receiver, property, target.owner, depth);
      const instance = this.enumInstance(expr.of, site);
      if (instance && this.model.findField(target.owner, property) && !facts.returns) return this.fieldValues(target.owner, property, depth + 1, instance);
      // An object a caller passes in (a request body, a message): what it holds is the caller's, not its class's
      // defaults — the property as read here. Unless the binder makes every object of the class from a configured
      // list: then whichever the caller passes holds what one of the list's elements gives.
      if (receiver.length && receiver.every(fromCaller) && !this.listElementPrefixes(target.owner).length) {
        // Stored on objects of the receiver's own type (a subclass's writes are not another subclass's reads).
        const member = site.member ?? this.contextMember(site.owner);
        const typed = member ? this.resolver.typeOf(expr.of, member, site.line) : undefined;
        const holder = typed && !('unknown' in typed) && !typed.isType && typed.target.entry ? typed.target.entry : target.owner;
        return unknown(exprText(expr), { name: property, kind: 'parameter', at: exprText(expr), stored: `class:${holder.qn}#${property}` });
      }
    }
    if (facts.synthetic === 'property_getter' || facts.synthetic === 'record_accessor' || facts.synthetic === 'lombok_getter') {
      return property ? readThrough(this.fieldValues(target.owner, property, depth + 1), target.owner, expr) : unknown(`${facts.name}()`, { kind: 'call', at: exprText(expr) });
    }
    if (property && expr.of && this.model.findField(target.owner, property) && facts.returns?.length === 1 && facts.returns[0]!.k === 'name' && facts.returns[0]!.name === property) {
      // A written getter that returns its field: an enum constant's, or what the object was given, read where it is read.
      const constant = this.enumInstance(expr.of, site);
      return constant ? this.fieldValues(target.owner, property, depth + 1, constant) : readThrough(this.fieldValues(target.owner, property, depth + 1), target.owner, expr);
    }
    // A Spring Cloud Stream channel declared on an interface (`@Output MessageChannel ordersOut()`): its binding.
    const channel = facts.annotations.find((a) => CHANNEL_ANNOTATIONS.has(a.name));
    if (channel && !facts.returns?.length) return literal(annotationValue([channel], channel.name) || facts.name);
    if (!facts.returns?.length) {
      // An abstract method (a base class's, an interface's) on an object whose class the call does not say: any
      // override the estate's subtypes declare may run, so the value is all of theirs.
      const overrides = this.overridesOf(target);
      if (overrides.length && overrides.length <= MAX_OVERRIDES) return union(...overrides.map((o) => this.projectCall(o, expr, site, depth + 1, on)));
      return unknown(`${target.owner.facts.name}.${facts.name}(…)`, { kind: 'call', at: `${target.owner.facts.name}.${facts.name}(…)` });
    }
    const key = `${target.qn}()`;
    if (this.active.has(key)) return this.cut(unknown(`${facts.name}(…) (recursive)`, { kind: 'call', at: `${target.owner.facts.name}.${facts.name}(…)` }));
    this.active.add(key);
    try {
      const bindings = this.bindArgs(target, expr.args ?? [], site, depth);
      const instance = on ?? (expr.of ? this.enumInstance(expr.of, site) : site.instance);
      return union(...facts.returns.map((r) => this.values(r, { owner: target.owner, member: target, line: facts.endLine, bindings, ...(instance ? { instance } : {}) }, depth + 1)));
    } finally {
      this.active.delete(key);
    }
  }

  /** The methods of the estate's subtypes that override an abstract method with a body: same name and arity, declared there. */
  private overridesOf(target: MemberEntry): MemberEntry[] {
    const facts = target.facts;
    if (facts.kind !== 'method' || !(facts.modifiers.includes('abstract') || target.owner.facts.kind === 'interface')) return [];
    return this.model
      .descendants(target.owner)
      .flatMap((t) => t.members.filter((m) => m.owner === t && m.facts.kind === 'method' && m.facts.name === facts.name && m.facts.params.length === facts.params.length && !!m.facts.returns?.length));
  }

  /** `Topic.ORDERS` as a receiver: the enum constant and its constructor arguments. */
  private enumInstance(expr: Expr, site: Site): Site['instance'] | undefined {
    if (expr.k !== 'field' && expr.k !== 'name') return undefined;
    const member = site.member ?? this.contextMember(site.owner);
    if (!member) return undefined;
    const typed = expr.k === 'field' ? this.resolver.typeOf(expr.of, member, site.line) : undefined;
    const entry = expr.k === 'name' ? site.owner : typed && !('unknown' in typed) && typed.isType ? typed.target.entry : undefined;
    const args = entry?.facts.enumArgs?.[expr.name];
    return entry && args ? { type: entry, args } : undefined;
  }

  private creation(expr: Extract<Expr, { k: 'new' }>, site: Site, depth: number): Value[] {
    const target = this.model.resolveType(expr.type, site.owner);
    if (target.external !== undefined) {
      const row = this.library.method(target.external, '<init>');
      if (row?.value) return this.apply(row.value, expr, site, depth);
    }
    // An object of a project class: what its methods and fields give depends on the arguments it is made with.
    if (target.entry && target.entry.facts.kind === 'class') return [{ pieces: [], from: [], instance: { type: target.entry, args: expr.args ?? [], at: { owner: site.owner, ...(site.member ? { member: site.member } : {}), line: site.line, ...(site.bindings ? { bindings: site.bindings } : {}) } } }];
    return unknown(`new ${expr.type.name}(…)`, { kind: 'call', at: `new ${expr.type.name}(…)` });
  }
}

/** `HttpMethod.POST`, `"POST"`, `RequestMethod.POST` → POST; anything else is ANY. */
function methodNameOf(expr: Expr | undefined): string {
  if (!expr) return 'ANY';
  const name = expr.k === 'field' ? expr.name : expr.k === 'name' ? expr.name : expr.k === 'literal' ? (expr.value ?? '') : expr.k === 'call' && expr.name === 'valueOf' ? methodNameOf(expr.args?.[0]) : '';
  const upper = name.toUpperCase();
  return HTTP_METHODS.has(upper) ? upper : 'ANY';
}
