/**
 * Eventuate Tram: dispatch by message class. A channel (`eventuate <channel>`: a command channel, or the aggregate
 * type's qualified class name for domain events) carries messages of several classes, and each handler takes one:
 * the command dispatcher picks the handler by the command's class name (the `command_type` header), the domain event
 * dispatcher by the event's class name (`DefaultDomainEventNameMapping`: `event.getClass().getName()`). So a send
 * reaches a handler of its channel only when it can carry the handler's class.
 *
 * - Handlers declared by an annotation of the library table's `handler_annotations` (`@EventuateCommandHandler`,
 *   `@EventuateDomainEventHandler`): the channel is an annotation argument, the class a type argument of the
 *   handler's parameter (`CommandMessage<C>`, `DomainEventEnvelope<E>`).
 * - Handlers declared by a builder (`onEvent(E.class, handler)`, `onMessage(C.class, handler)`) and sends
 *   (`publish(aggregate, event)`, `send(command).to(channel)`, `forCommand(C.class).withChannel(…)`): the class is an
 *   argument, or the `message_type` role of a call up the chain, as the library table says.
 *
 * What class an argument is: the class a `new` creates or a class literal names, exactly; else the concrete project
 * classes of its static type (the estate declares no others). A list of events, a library type or a type the estate
 * does not state names no class: such a send reaches every handler of its channel.
 */
import type { Evaluator, Site } from '../eval/evaluator.js';
import { type HandlerAnnotation, LIBRARY } from '../eval/library.js';
import type { CallResolver } from '../model/calls.js';
import type { CodeModel, MemberEntry, TypeEntry } from '../model/model.js';
import type { AnnotationFacts, CallFacts, Expr, TypeRef } from '../parse/ir.js';
import type { Constants, Part } from './routes.js';

/** At most this many classes are listed for a send whose static type has many concrete subclasses; more names none. */
const MAX_MESSAGE_TYPES = 32;

/** A listener method an annotation of the library table declares. */
export interface AnnotatedHandler {
  handler: MemberEntry;
  protocol: string;
  framework: string;
  destination: Part;
  /** The qualified class name of the message it takes, when its parameter states one. */
  messageType?: string;
}

/** The listener methods of a type that a handler annotation of the library table declares. */
export function annotatedHandlersOf(entry: TypeEntry, constants: Constants, model: CodeModel): AnnotatedHandler[] {
  if (entry.facts.kind === 'interface' || entry.facts.kind === 'annotation') return [];
  const out: AnnotatedHandler[] = [];
  for (const m of entry.members) {
    if (m.facts.kind !== 'method') continue;
    for (const a of m.facts.annotations) {
      const row = LIBRARY.handlerAnnotations(a.name).find((r) => isAnnotation(a, r.annotation, entry, model));
      const value = row && a.args[row.destination]?.[0];
      if (!row || !value) continue;
      const messageType = handlerMessageType(m, row, model);
      out.push({ handler: m, protocol: row.protocol, framework: row.framework, destination: constants.part(value, entry), ...(messageType ? { messageType } : {}) });
    }
  }
  return out;
}

/** Whether an annotation as written is the library's `qualified` one: imported, written in full, or from a wildcard import of its package. */
function isAnnotation(a: AnnotationFacts, qualified: string, entry: TypeEntry, model: CodeModel): boolean {
  if (a.written === qualified) return true;
  const resolved = model.resolveTypeName(a.written, entry);
  if (resolved) return resolved.external === qualified;
  return entry.file.imports.wildcard.includes(qualified.slice(0, qualified.lastIndexOf('.')));
}

/** The class a handler takes: its parameter's type, or a type argument of it (`param0.typearg0`). */
function handlerMessageType(m: MemberEntry, row: HandlerAnnotation, model: CodeModel): string | undefined {
  const spec = /^param(\d)(?:\.typearg(\d))?$/.exec(row.message_type ?? 'param0');
  if (!spec) return undefined;
  let ref: TypeRef | undefined = m.facts.params[Number(spec[1])]?.type;
  if (spec[2] !== undefined) ref = ref?.args?.[Number(spec[2])];
  return ref ? className(ref, m.owner, model) : undefined;
}

/** A type reference's class by qualified name, when the file states one (not a type variable or wildcard). */
function className(ref: TypeRef, from: TypeEntry, model: CodeModel): string | undefined {
  if ((ref.array ?? 0) > 0) return undefined;
  const found = model.resolveTypeName(ref.name, from);
  return found?.entry ? found.entry.qn : found?.external;
}

/**
 * The classes a message expression can be: exactly the class a `new` creates or a class literal names; else the
 * concrete project classes of its static type; undefined when the estate does not say.
 */
export function messageClassesOf(expr: Expr | undefined, member: MemberEntry, line: number, model: CodeModel, resolver: CallResolver, depth = 0): string[] | undefined {
  if (!expr || depth > 4) return undefined;
  switch (expr.k) {
    case 'new':
    case 'class_literal': {
      const name = className(expr.type, member.owner, model);
      return name ? [name] : undefined;
    }
    case 'cast':
      return messageClassesOf(expr.of, member, line, model, resolver, depth + 1);
    case 'cond': {
      const all = expr.options.map((o) => messageClassesOf(o, member, line, model, resolver, depth + 1));
      return all.every((x) => x !== undefined) ? [...new Set(all.flat() as string[])].sort() : undefined;
    }
    default: {
      const typed = resolver.typeOf(expr, member, line);
      const type = 'unknown' in typed ? undefined : typed.target.entry;
      if (!type) return undefined;
      const concrete = [type, ...model.descendants(type)].filter((t) => (t.facts.kind === 'class' || t.facts.kind === 'record') && !t.facts.anonymous && !t.facts.modifiers.includes('abstract') && t.facts.flavor !== 'sealed');
      return concrete.length && concrete.length <= MAX_MESSAGE_TYPES ? concrete.map((t) => t.qn).sort() : undefined;
    }
  }
}

/**
 * The classes a send carries, as its library row says: `argN` of the call, or `chain`: the argument that the nearest
 * call up the receiver chain gives its `message_type` role (`send(command).to(channel)`).
 */
export function sentClassesOf(spec: string, call: CallFacts, member: MemberEntry, evaluator: Evaluator, model: CodeModel, resolver: CallResolver): string[] | undefined {
  const arg = /^arg(\d)$/.exec(spec);
  if (arg) return messageClassesOf(call.values?.[Number(arg[1])], member, call.line, model, resolver);
  const site: Site = { owner: member.owner, member, line: call.line };
  for (let e = call.receiver; e && e.k === 'call'; e = e.of) {
    const role = evaluator.libraryCall(e, site)?.roles?.message_type?.operands[0];
    const index = role ? /^arg(\d)$/.exec(role) : undefined;
    if (index) return messageClassesOf(e.args?.[Number(index[1])], member, call.line, model, resolver);
  }
  return undefined;
}

/** The one class a builder-declared handler takes (`onEvent(E.class, handler)`): the `message_type` role of the call. */
export function declaredClassOf(role: string | undefined, call: CallFacts, member: MemberEntry, model: CodeModel, resolver: CallResolver): string | undefined {
  const index = role ? /^arg(\d)$/.exec(role) : undefined;
  const classes = index ? messageClassesOf(call.values?.[Number(index[1])], member, call.line, model, resolver) : undefined;
  return classes?.length === 1 ? classes[0] : undefined;
}
