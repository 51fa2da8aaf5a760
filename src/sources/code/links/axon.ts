/**
 * Axon Framework messaging as links. Command, event and query sends (`CommandGateway.send`, `AggregateLifecycle.apply`,
 * `EventBus.publish`, `QueryGateway.query`, …) are producers of their message class; `@CommandHandler`,
 * `@EventHandler`, `@SagaEventHandler` and `@QueryHandler` methods are routes consuming the class of their payload. A
 * send reaches the handlers its bus delivers to, by Axon's documented rules:
 * - a command or a query reaches the handlers of the sending service, or of any service on the same distributed bus
 *   (Axon Server for both; a Spring Cloud or JGroups DistributedCommandBus, `axon.distributed.enabled`, for commands);
 * - an event reaches each event processor whose source carries it. A handler belongs to the processor named after its
 *   processing group (`@ProcessingGroup`, else its package, a saga's `<Saga>Processor`), configured by
 *   `axon.eventhandling.processors.<name>.source` and `.mode`. The default source is the service's event bus, which
 *   Axon Server shares between the services connected to it (a subscribing processor still sees only its own
 *   service's publications); a Kafka message source reads the topic Kafka publishers send every event to
 *   (`axon.kafka.default-topic`); an AMQP message source reads queues bound to the exchange AMQP publishers send to
 *   (`axon.amqp.exchange`).
 * Whether a service has Axon Server, Kafka, AMQP or a distributed command bus is read from its build (the Axon Server
 * connector comes with `axon-spring-boot-starter` unless excluded) and its configuration. Code of a library module runs
 * in each deployable service whose build includes it (Maven dependencies, nearest declaration first; Gradle project
 * dependencies), so its handlers are a route in each. Services reach each other only within one deployment: the whole
 * estate, unless it holds several deployments side by side (one command handled in two services), which the
 * directory tree then separates.
 */
import { dirname, posix } from 'node:path';
import { nodeId } from '../../../graph/ids.js';
import type { Ontology } from '../../../graph/ontology/index.js';
import type { EdgeRecord, NodeRecord, PropValue } from '../../../graph/types.js';
import { type BuildInput } from '../build/files.js';
import { child, children, childText, type Expr as ScriptExpr, parseScript, parseXml, type Statement, stringText } from '../build/syntax.js';
import type { ServiceInfo } from '../config/layout.js';
import { canonicalKey, ConfigView } from '../eval/config.js';
import { render } from '../eval/value.js';
import type { CallResolver } from '../model/calls.js';
import type { CodeModel, MemberEntry, TypeEntry } from '../model/model.js';
import type { AnnotationValue, CallFacts, Expr, FileFacts, MemberFacts, TypeRef } from '../parse/ir.js';
import { skipWarning } from '../warnings.js';
import { listenersOf } from './messaging.js';
import type { RabbitBinding } from './outbound-messages.js';
import { Constants } from './routes.js';

type MessageKind = 'command' | 'event' | 'query';

/** Handler annotations and what they consume (`@EventSourcingHandler` is the aggregate's own state, not a consumer). */
const HANDLERS: Record<string, MessageKind> = { CommandHandler: 'command', EventHandler: 'event', SagaEventHandler: 'event', QueryHandler: 'query' };

/** Library methods that send a message, by owner simple name: the kind, and which argument is the payload. */
const SENDS: Record<string, Record<string, { kind: MessageKind; payload: number }>> = {
  CommandGateway: { send: { kind: 'command', payload: 0 }, sendAndWait: { kind: 'command', payload: 0 } },
  ReactorCommandGateway: { send: { kind: 'command', payload: 0 } },
  CommandBus: { dispatch: { kind: 'command', payload: 0 } },
  AggregateLifecycle: { apply: { kind: 'event', payload: 0 } },
  AbstractAggregateRoot: { apply: { kind: 'event', payload: 0 } },
  AbstractAnnotatedAggregateRoot: { apply: { kind: 'event', payload: 0 } },
  EventGateway: { publish: { kind: 'event', payload: 0 } },
  ReactorEventGateway: { publish: { kind: 'event', payload: 0 } },
  EventBus: { publish: { kind: 'event', payload: 0 } },
  EventStore: { publish: { kind: 'event', payload: 0 } },
  QueryGateway: { query: { kind: 'query', payload: 0 }, subscriptionQuery: { kind: 'query', payload: 0 }, scatterGather: { kind: 'query', payload: 0 }, streamingQuery: { kind: 'query', payload: 0 } },
  ReactorQueryGateway: { query: { kind: 'query', payload: 0 }, subscriptionQuery: { kind: 'query', payload: 0 }, scatterGather: { kind: 'query', payload: 0 }, streamingQuery: { kind: 'query', payload: 0 } },
  QueryBus: { query: { kind: 'query', payload: 0 }, subscriptionQuery: { kind: 'query', payload: 0 }, scatterGather: { kind: 'query', payload: 0 }, streamingQuery: { kind: 'query', payload: 0 } },
};
const SEND_NAMES = new Set(Object.values(SENDS).flatMap((m) => Object.keys(m)));

/** Calls that wrap a payload in a message (`asEventMessage(x)`, `new GenericCommandMessage<>(x)`): the payload argument. */
const WRAPPERS: Record<string, Record<string, number>> = {
  GenericEventMessage: { asEventMessage: 0, '<init>': 0 },
  GenericCommandMessage: { asCommandMessage: 0, '<init>': 0 },
  GenericQueryMessage: { '<init>': 0 },
  GenericSubscriptionQueryMessage: { '<init>': 0 },
  GenericMessage: { asMessage: 0, '<init>': 0 },
};

/** Handler parameter types that carry the payload as their first type argument (`EventMessage<OrderPlaced>`). */
const MESSAGE_TYPES = new Set(['Message', 'EventMessage', 'DomainEventMessage', 'CommandMessage', 'QueryMessage', 'SubscriptionQueryMessage']);

const AXON_PACKAGE = 'org.axonframework.';
/** Types that say nothing about the message class (a helper's `Object` parameter). */
const UNSPECIFIC = new Set(['java.lang.Object', 'kotlin.Any', 'Object', 'Any']);

/** Build artifacts, by artifactId, and what they bring. */
const ARTIFACTS = {
  axonServer: ['axon-server-connector'],
  kafka: ['axon-kafka-spring-boot-starter', 'axon-kafka-spring-boot-autoconfigure'],
  amqp: ['axon-amqp-spring-boot-starter', 'axon-amqp-spring-boot-autoconfigure'],
  distributed: ['axon-springcloud-spring-boot-starter', 'axon-springcloud-spring-boot-autoconfigure', 'axon-distributed-commandbus-springcloud', 'axon-jgroups-spring-boot-starter', 'axon-jgroups-spring-boot-autoconfigure', 'axon-distributed-commandbus-jgroups'],
};
/** What an artifact brings with it unless excluded: the starter depends on the Axon Server connector. */
const TRANSITIVE: Record<string, string[]> = { 'axon-spring-boot-starter': ['axon-server-connector'] };

/** Spring Boot properties of the Axon starters and extensions. */
const PROPERTY = {
  serverEnabled: 'axon.axonserver.enabled',
  serverContext: 'axon.axonserver.context',
  distributed: 'axon.distributed.enabled',
  kafkaTopic: 'axon.kafka.default-topic',
  kafkaPublisherEnabled: 'axon.kafka.publisher.enabled',
  kafkaProducer: ['axon.kafka.producer', 'axon.kafka.publisher', 'axon.kafka.bootstrap-servers'],
  amqpExchange: 'axon.amqp.exchange',
  processors: 'axon.eventhandling.processors',
};
const KAFKA_DEFAULT_TOPIC = 'Axon.Events';
const AXON_SERVER_DEFAULT_CONTEXT = 'default';

type Transport = 'kafka' | 'amqp';
/** Message source beans the Kafka extension's auto-configuration defines (4.0: kafkaMessageSource; 4.5+: streamable…), reading `axon.kafka.default-topic`. */
const KAFKA_SOURCE_BEANS = ['kafkaMessageSource', 'streamableKafkaMessageSource', 'subscribableKafkaMessageSource'];
/** Message source types, by simple name: what a processor reading a bean of that type receives from. */
const SOURCE_TYPES: Record<string, Transport> = { SpringAMQPMessageSource: 'amqp', KafkaMessageSource: 'kafka', StreamableKafkaMessageSource: 'kafka', SubscribableKafkaMessageSource: 'kafka' };

/** Annotations of a class a Spring Boot application starts from: its service is deployable. */
const DEPLOYABLE = new Set(['SpringBootApplication', 'SpringBootConfiguration', 'EnableAutoConfiguration']);
/** Maven scopes and Gradle configurations that put a dependency on the runtime classpath. */
const RUNTIME_SCOPES = new Set(['', 'compile', 'runtime']);
const GRADLE_CONFIGURATIONS = new Set(['implementation', 'api', 'compile', 'runtime', 'runtimeOnly']);

const CONFIDENCE = { exact: 0.9, supertype: 0.8, unconfirmed: 0.7 };
/** Call sites of a helper that sends its parameter: at most this many are followed. */
const MAX_HELPER_SITES = 50;

export interface AxonGraphInput {
  ontology: Ontology;
  source: string;
  model: CodeModel;
  resolver: CallResolver;
  services: readonly ServiceInfo[];
  memberId: (m: MemberEntry) => string;
  /** Build files (which services include which library modules; Axon Server connector, extensions). Without them each module runs on its own and no service is known to use Axon Server. */
  build?: Pick<BuildInput, 'texts' | 'buildFiles'>;
  /** Rabbit bindings the estate declares: an AMQP message source receives only from exchanges its queue is bound to. */
  bindings?: readonly RabbitBinding[];
}

export interface AxonGraph {
  nodes: NodeRecord[];
  edges: EdgeRecord[];
  warnings: string[];
  /** Per ASYNC_CALLS edge, the service whose process sends (a library's send runs in the services including it) and the one receiving: for the service topology. */
  calls: { from: string; to: string; confidence: number }[];
}

interface Handler {
  member: MemberEntry;
  kind: MessageKind;
  payload: string;
  /** The processor's name (events). */
  group?: string;
}

interface Route {
  id: string;
  handler: Handler;
  host: string;
}

interface Send {
  member: MemberEntry;
  line: number;
  kind: MessageKind;
  payload?: { qn: string; entry?: TypeEntry };
  /** Why the payload class is unknown. */
  unknown?: string;
  written: string;
}

type Source = { transport: 'kafka'; topic?: string } | { transport: 'amqp'; service: string; queues: string[] };

/** How one service is wired to Axon: its buses, publishers and event processors. */
interface Wiring {
  service: string;
  deployment: string;
  /** The Axon Server context it connects to, if it does. */
  axonServer?: string;
  commandBus: 'axon_server' | 'distributed' | 'local';
  /** The Kafka topic it publishes every event to. */
  kafka?: string;
  /** The AMQP exchange it publishes every event to. */
  amqp?: string;
  processors: Map<string, { source?: string; mode?: string }>;
  sources: Map<string, Source>;
}

type Payload = { qn: string; entry?: TypeEntry } | { param: number } | { unknown: string };

/** Producers of Axon sends, routes of Axon handlers, and which handlers each send reaches. */
export function axonGraph(input: AxonGraphInput): AxonGraph {
  return new AxonLinker(input).run();
}

class AxonLinker {
  private readonly warnings: string[] = [];
  private readonly nodes: NodeRecord[] = [];
  private readonly edges: EdgeRecord[] = [];
  private readonly calls: AxonGraph['calls'] = [];
  private readonly used = new Set<string>();
  private readonly serviceByName: Map<string, ServiceInfo>;
  private readonly constants = new Map<string, Constants>();
  private callSites?: Map<string, { member: MemberEntry; call: CallFacts }[]>;

  constructor(private readonly input: AxonGraphInput) {
    this.serviceByName = new Map(input.services.map((s) => [s.name, s]));
  }

  run(): AxonGraph {
    const handlers: Handler[] = [];
    const sends: Send[] = [];
    if (!this.input.model.files.some(mentionsAxon)) return { nodes: [], edges: [], warnings: [], calls: [] };
    for (const entry of this.input.model.types) {
      if (entry.facts.kind === 'annotation') continue;
      for (const member of entry.members) {
        this.guard(member, 'axon handlers and sends', () => {
          const h = this.handlerOf(member);
          if (h) handlers.push(h);
          sends.push(...this.sendsOf(member));
        });
      }
    }
    if (!handlers.length && !sends.length) return { nodes: [], edges: [], warnings: this.warnings, calls: [] };
    const hosting = new Hosting(this.input.model, this.input.services, this.input.build);
    const hostsOf = (m: MemberEntry): string[] => hosting.hostsOf(m.owner.place.service);
    const commandHosts = new Map<string, Set<string>>();
    for (const h of handlers) if (h.kind === 'command') for (const host of hostsOf(h.member)) (commandHosts.get(h.payload) ?? commandHosts.set(h.payload, new Set()).get(h.payload)!).add(host);
    const deployments = deploymentsOf(hosting.hosts(), (s) => this.serviceByName.get(s)?.dir ?? '', commandHosts);
    const wiring = new Map<string, Wiring>();
    const wiringOf = (service: string): Wiring => {
      let w = wiring.get(service);
      if (!w) wiring.set(service, (w = this.wire(service, deployments.get(service) ?? service, hosting)));
      return w;
    };

    const routes: Route[] = [];
    for (const h of handlers) {
      for (const host of hostsOf(h.member)) {
        const id = this.routeNode(h, host);
        routes.push({ id, handler: h, host });
      }
    }
    const byPayload = new Map<string, Route[]>();
    for (const r of routes) (byPayload.get(r.handler.payload) ?? byPayload.set(r.handler.payload, []).get(r.handler.payload)!).push(r);

    for (const s of sends) {
      this.guard(s.member, 'axon send', () => {
        const reached = new Map<Route, { from: string; match: 'cross_service' | 'intra_service'; confidence: number; strategy: string }>();
        if (s.payload) {
          for (const from of hostsOf(s.member)) {
            const sender = wiringOf(from);
            for (const { route, confidence } of this.candidates(s, byPayload)) {
              const how = this.reaches(s.kind, sender, wiringOf(route.host), route, confidence);
              if (!how) continue;
              const match = from === route.host ? 'intra_service' : 'cross_service';
              const before = reached.get(route);
              if (!before || (before.match === 'cross_service' && match === 'intra_service')) reached.set(route, { from, match, ...how });
            }
          }
        }
        const matches = [...reached.values()].map((r) => r.match);
        const producer = this.producerNode(s, matches.includes('cross_service') ? 'cross_service' : matches.length ? 'intra_service' : 'unmatched');
        for (const [route, how] of reached) {
          this.edges.push({ type: 'ASYNC_CALLS', from: producer, to: route.id, attrs: { match: how.match, confidence: how.confidence, strategy: how.strategy } });
          this.calls.push({ from: how.from, to: route.host, confidence: how.confidence });
        }
      });
    }
    return { nodes: this.nodes, edges: this.edges, warnings: this.warnings, calls: this.calls };
  }

  private guard(member: MemberEntry, what: string, step: () => void): void {
    try {
      step();
    } catch (err) {
      this.warnings.push(skipWarning(`${member.owner.file.path}:${member.facts.line}`, what, err));
    }
  }

  // ---- handlers ----------------------------------------------------------------------------------------------

  private handlerOf(member: MemberEntry): Handler | undefined {
    const annotation = member.facts.annotations.find((a) => a.name in HANDLERS && this.isAxon(this.input.model.resolveType({ name: a.written }, member.owner)));
    if (!annotation || member.owner.facts.kind === 'interface') return undefined;
    const kind = HANDLERS[annotation.name]!;
    const declared = annotation.args.payloadType?.[0];
    // A query handler may answer a query name instead of its payload's class.
    const named = kind === 'query' ? annotation.args.queryName?.[0] : undefined;
    const payload = named ? this.constantsOf(member.owner.place.service).part(named, member.owner).text : declared ? this.classLiteral(declared, member.owner) : this.parameterPayload(member);
    if (!payload) {
      this.warnings.push(`${member.owner.file.path}:${member.facts.line}: @${annotation.name} ${member.qn} names no message class; not a route`);
      return undefined;
    }
    return { member, kind, payload, ...(kind === 'event' ? { group: this.processingGroup(member.owner) } : {}) };
  }

  private parameterPayload(member: MemberEntry): string | undefined {
    const first = member.facts.params[0]?.type;
    if (!first) return undefined;
    const simple = first.name.slice(first.name.lastIndexOf('.') + 1);
    const type: TypeRef | undefined = MESSAGE_TYPES.has(simple) && this.isAxon(this.input.model.resolveType(first, member.owner)) ? first.args?.[0] : first;
    return type ? this.qnOf(type, member.owner) : undefined;
  }

  private classLiteral(v: AnnotationValue, owner: TypeEntry): string | undefined {
    const name = v.text.replace(/::class(?:\.java)?$|\.class$/, '').trim();
    return /^[\w.$]+$/.test(name) ? this.qnOf({ name }, owner) : undefined;
  }

  /** The processor an event handler's class belongs to: its processing group, by Axon's default assignment. */
  private processingGroup(entry: TypeEntry): string {
    for (const t of this.input.model.ancestors(entry).project) {
      const a = t.facts.annotations.find((x) => x.name === 'ProcessingGroup');
      const v = a?.args.value?.[0];
      if (v) return this.constantsOf(entry.place.service).part(v, t).text;
    }
    const saga = entry.facts.annotations.some((a) => a.name === 'Saga') || entry.members.some((m) => m.facts.annotations.some((a) => a.name === 'SagaEventHandler'));
    return saga ? `${entry.facts.name}Processor` : entry.file.package;
  }

  // ---- sends ------------------------------------------------------------------------------------------------

  private sendsOf(member: MemberEntry): Send[] {
    const out: Send[] = [];
    for (const call of member.facts.calls) {
      if (call.kind !== 'call' || !SEND_NAMES.has(call.name)) continue;
      const send = this.sendMethod(member, call);
      if (!send) continue;
      const index = send.payload;
      // `queryGateway.query("name", payload, type)`: a query sent by name.
      const first = argExpr(call, 0);
      if (send.kind === 'query' && first?.k === 'literal' && first.type === 'String' && first.value !== undefined && call.argCount > 2) {
        out.push({ member, line: call.line, kind: send.kind, payload: { qn: first.value }, written: call.args[0] ?? '' });
        continue;
      }
      const arg = argExpr(call, index);
      const written = call.args[index] ?? '';
      // A Kotlin scope function (`apply { … }`) takes a lambda, never a message.
      if (arg?.k === 'other' && arg.text.trimStart().startsWith('{')) continue;
      if (!arg) {
        out.push({ member, line: call.line, kind: send.kind, unknown: `${call.name} is called without a message`, written });
        continue;
      }
      const payload = this.payloadOf(arg, member, call.line, 0);
      if ('param' in payload) out.push(...this.helperSends(member, payload.param, send.kind, call, written));
      else if ('unknown' in payload) out.push({ member, line: call.line, kind: send.kind, unknown: payload.unknown, written });
      else out.push({ member, line: call.line, kind: send.kind, payload, written });
    }
    return out;
  }

  /** The Axon send a call makes, if it makes one. */
  private sendMethod(member: MemberEntry, call: CallFacts): { kind: MessageKind; payload: number } | undefined {
    const resolved = this.input.resolver.resolve(member, call);
    if (!resolved || 'unresolved' in resolved) return undefined;
    for (const t of resolved.targets) {
      if (!('external' in t)) continue;
      const owner = t.external.owner;
      const simple = owner.slice(owner.lastIndexOf('.') + 1);
      if (owner !== simple && !owner.startsWith(AXON_PACKAGE)) continue;
      const send = SENDS[simple]?.[t.external.name];
      if (send && call.argCount > send.payload) return send;
    }
    return undefined;
  }

  /**
   * A helper that sends its parameter (`fun dispatch(command: Any) = commandGateway.send(command)`): the message class
   * is chosen by each caller, so each call site is a send of its own.
   */
  private helperSends(helper: MemberEntry, index: number, kind: MessageKind, inner: CallFacts, written: string): Send[] {
    const out: Send[] = [];
    for (const site of this.sitesCalling(helper).slice(0, MAX_HELPER_SITES)) {
      const arg = argExpr(site.call, index, helper.facts.params[index]?.name);
      const payload = arg ? this.payloadOf(arg, site.member, site.call.line, 0) : { unknown: 'no argument' };
      const at = { member: site.member, line: site.call.line, kind, written: site.call.args[index] ?? '' };
      if ('qn' in payload) out.push({ ...at, payload });
      else if ('unknown' in payload) out.push({ ...at, unknown: payload.unknown });
      else out.push({ ...at, unknown: `the message is parameter ${site.member.facts.params[payload.param]?.name ?? '?'} of ${site.member.qn}` });
    }
    if (!out.length) out.push({ member: helper, line: inner.line, kind, written, unknown: `the message is parameter ${helper.facts.params[index]?.name ?? '?'} of ${helper.qn}, and no call site in the estate gives it` });
    return out;
  }

  private sitesCalling(target: MemberEntry): { member: MemberEntry; call: CallFacts }[] {
    if (!this.callSites) {
      this.callSites = new Map();
      for (const t of this.input.model.types) for (const m of t.members) for (const c of m.facts.calls) if (c.kind === 'call') (this.callSites.get(c.name) ?? this.callSites.set(c.name, []).get(c.name)!).push({ member: m, call: c });
    }
    return (this.callSites.get(target.facts.name) ?? []).filter(({ member, call }) => {
      const r = this.input.resolver.resolve(member, call);
      return r !== undefined && !('unresolved' in r) && r.targets.some((t) => 'member' in t && t.member === target);
    });
  }

  /** The class of a message expression: a constructor call, a local, parameter or field, a wrapper's payload. */
  private payloadOf(expr: Expr, member: MemberEntry, line: number, depth: number): Payload {
    if (depth > 8) return { unknown: 'the message expression is nested too deep' };
    const owner = member.owner;
    switch (expr.k) {
      case 'new':
      case 'cast':
        return this.typed(this.qnOf(expr.type, owner));
      case 'cond':
        for (const o of expr.options) {
          const p = this.payloadOf(o, member, line, depth + 1);
          if ('qn' in p) return p;
        }
        return { unknown: 'no branch of the conditional has a known class' };
      case 'name': {
        const local = localAt(member.facts, expr.name, line);
        if (local) {
          if (local.type) return this.typed(this.qnOf(local.type, owner));
          if (local.init) return this.payloadOf(local.init, member, local.line, depth + 1);
          return { unknown: `local ${expr.name} has no declared type or initializer` };
        }
        const index = member.facts.params.findIndex((p) => p.name === expr.name);
        if (index >= 0) {
          const type = this.input.model.resolveType(member.facts.params[index]!.type, owner);
          const qn = type.entry?.qn ?? type.external!;
          // A parameter of a general type is a message its callers choose (a helper); of a concrete class, or of a
          // handler (Axon calls it), it is that class.
          const handler = member.facts.annotations.some((a) => a.name in HANDLERS);
          const general = UNSPECIFIC.has(qn) || isTypeVariable(qn) || (type.entry !== undefined && (type.entry.facts.kind === 'interface' || type.entry.facts.modifiers.includes('abstract') || type.entry.subtypes.length > 0));
          return general && !handler ? { param: index } : this.typed(qn);
        }
        break;
      }
      case 'call': {
        const r = this.input.resolver.resolveCallExpr(member, expr, line);
        if (!('unresolved' in r)) {
          const t = r.targets[0]!;
          if ('member' in t && t.member.facts.kind === 'constructor') return this.typed(t.member.owner.qn);
          if ('external' in t) {
            const simple = t.external.owner.slice(t.external.owner.lastIndexOf('.') + 1);
            const wrapped = WRAPPERS[simple]?.[t.external.name];
            if (wrapped !== undefined) {
              const inner = expr.args?.[wrapped] ?? argExpr(member.facts.calls.find((c) => c.name === expr.name && c.line === line) ?? { kind: 'call', name: '', argCount: 0, args: [], line }, wrapped);
              return inner ? this.payloadOf(inner, member, line, depth + 1) : { unknown: `the payload of ${expr.name} is not written as an expression` };
            }
            if (t.external.name === '<init>') return this.typed(t.external.owner);
          }
        } else if (!expr.of && /^[A-Z]/.test(expr.name)) {
          // Kotlin: calling a class by name is its constructor.
          const type = this.input.model.resolveTypeName(expr.name, owner);
          if (type) return this.typed(type.entry?.qn ?? type.external!);
        }
        break;
      }
      default:
        break;
    }
    const typed = this.input.resolver.typeOf(expr, member, line);
    if ('unknown' in typed) return { unknown: `the class of the message is not known (${typed.unknown})` };
    return this.typed(typed.target.entry?.qn ?? typed.target.external!);
  }

  private typed(qn: string): Payload {
    if (UNSPECIFIC.has(qn) || isTypeVariable(qn)) return { unknown: `the message is typed ${qn}` };
    const entry = this.input.model.typeByQn(qn);
    return entry ? { qn, entry } : { qn };
  }

  private qnOf(ref: TypeRef, from: TypeEntry): string {
    const t = this.input.model.resolveType(ref, from);
    return t.entry?.qn ?? t.external!;
  }

  private isAxon(t: ReturnType<CodeModel['resolveType']>): boolean {
    return t.external !== undefined && (t.external.startsWith(AXON_PACKAGE) || !t.external.includes('.'));
  }

  // ---- routing ----------------------------------------------------------------------------------------------

  /**
   * The routes a send's message class can land on: a command or query handler of that class; an event handler of
   * the class or a supertype, the most specific one per handler class (Axon invokes one handler per component).
   */
  private candidates(s: Send, byPayload: Map<string, Route[]>): { route: Route; confidence: number }[] {
    const payload = s.payload!;
    const kind = s.kind;
    if (kind !== 'event' || !payload.entry) return (byPayload.get(payload.qn) ?? []).filter((r) => r.handler.kind === kind).map((route) => ({ route, confidence: CONFIDENCE.exact }));
    const { project, external } = this.input.model.ancestors(payload.entry);
    const chain = [...project.map((t) => t.qn), ...external];
    const best = new Map<string, { route: Route; rank: number }>();
    chain.forEach((qn, rank) => {
      for (const route of byPayload.get(qn) ?? []) {
        if (route.handler.kind !== 'event') continue;
        const key = `${route.host}\0${route.handler.member.owner.qn}`;
        const before = best.get(key);
        if (!before || rank < before.rank) best.set(key, { route, rank });
        else if (rank === before.rank && before.route !== route) best.set(`${key}\0${route.id}`, { route, rank });
      }
    });
    return [...best.values()].map(({ route, rank }) => ({ route, confidence: rank === 0 ? CONFIDENCE.exact : CONFIDENCE.supertype }));
  }

  /** Whether a message sent in `from` reaches a handler of `to`, and how. */
  private reaches(kind: MessageKind, from: Wiring, to: Wiring, route: Route, confidence: number): { confidence: number; strategy: string } | undefined {
    const local = from.service === to.service;
    const together = from.deployment === to.deployment;
    if (kind === 'command') {
      const distributed = together && from.commandBus !== 'local' && from.commandBus === to.commandBus && (from.commandBus !== 'axon_server' || from.axonServer === to.axonServer);
      return local || distributed ? { confidence, strategy: 'axon_command_bus' } : undefined;
    }
    if (kind === 'query') {
      const shared = together && from.axonServer !== undefined && from.axonServer === to.axonServer;
      return local || shared ? { confidence, strategy: 'axon_query_bus' } : undefined;
    }
    const processor = settingOf(to.processors, route.handler.group ?? '');
    if (processor?.source !== undefined) {
      const source = to.sources.get(processor.source);
      if (!source || !together) return undefined;
      if (source.transport === 'kafka') {
        if (from.kafka === undefined || (source.topic !== undefined && source.topic !== from.kafka)) return undefined;
        return { confidence: source.topic !== undefined ? confidence : Math.min(confidence, CONFIDENCE.unconfirmed), strategy: 'axon_kafka' };
      }
      if (from.amqp === undefined) return undefined;
      const bound = (this.input.bindings ?? []).filter((b) => b.service === source.service && source.queues.includes(b.queue));
      if (bound.length && !bound.some((b) => b.exchange === from.amqp)) return undefined;
      return { confidence: bound.length ? confidence : Math.min(confidence, CONFIDENCE.unconfirmed), strategy: 'axon_amqp' };
    }
    // A subscribing processor is called by the publishing thread: only its own service's events reach it.
    const shared = together && processor?.mode !== 'subscribing' && from.axonServer !== undefined && from.axonServer === to.axonServer;
    return local || shared ? { confidence, strategy: 'axon_event_bus' } : undefined;
  }

  // ---- wiring -----------------------------------------------------------------------------------------------

  private wire(service: string, deployment: string, hosting: Hosting): Wiring {
    const info = this.serviceByName.get(service);
    const config = new ConfigView(info?.config ?? {}, {}, info?.configOrigins ?? {}, info?.configHoles ?? {});
    const setting = (key: string): string | undefined => {
      const v = config.value(key)?.[0];
      return v && !v.pieces.some((p) => p.hole) ? render(v) : undefined;
    };
    const keys = Object.keys(info?.config ?? {});
    const under = (prefix: string): boolean => keys.some((k) => canonicalKey(k) === canonicalKey(prefix) || canonicalKey(k).startsWith(`${canonicalKey(prefix)}.`));
    const artifacts = hosting.artifactsOf(service);
    const has = (names: readonly string[]): boolean => names.some((n) => artifacts?.has(n));
    // Without build files, an extension is known only by its configuration, and Axon Server not at all.
    const axonServer = artifacts !== undefined && has(ARTIFACTS.axonServer) && setting(PROPERTY.serverEnabled) !== 'false' ? (setting(PROPERTY.serverContext) ?? AXON_SERVER_DEFAULT_CONTEXT) : undefined;
    const distributed = setting(PROPERTY.distributed) === 'true' && (artifacts === undefined || has(ARTIFACTS.distributed));
    const kafkaOn = artifacts === undefined ? under('axon.kafka') : has(ARTIFACTS.kafka);
    const amqpOn = artifacts === undefined || has(ARTIFACTS.amqp);
    const topic = setting(PROPERTY.kafkaTopic) ?? KAFKA_DEFAULT_TOPIC;
    const kafka = kafkaOn && setting(PROPERTY.kafkaPublisherEnabled) !== 'false' && PROPERTY.kafkaProducer.some(under) ? topic : undefined;
    const exchange = amqpOn ? setting(PROPERTY.amqpExchange) : undefined;
    const sources = new Map<string, Source>();
    if (kafkaOn) for (const name of KAFKA_SOURCE_BEANS) sources.set(name, { transport: 'kafka', topic });
    for (const [name, source] of this.sourceBeans(service, hosting)) sources.set(name, source);
    return {
      service,
      deployment,
      ...(axonServer !== undefined ? { axonServer } : {}),
      commandBus: distributed ? 'distributed' : axonServer !== undefined ? 'axon_server' : 'local',
      ...(kafka !== undefined ? { kafka } : {}),
      ...(exchange !== undefined ? { amqp: exchange } : {}),
      processors: processorsOf(info, setting),
      sources,
    };
  }

  /** Message source beans the code running in a service defines (`@Bean SpringAMQPMessageSource amqpMessageSource()`). */
  private sourceBeans(service: string, hosting: Hosting): Map<string, Source> {
    const out = new Map<string, Source>();
    for (const bean of this.beans()) {
      if (!hosting.hostsOf(bean.place).includes(service)) continue;
      const queues = bean.transport === 'amqp' ? bean.listeners.flatMap((l) => listenersOf(l, this.constantsOf(service)).filter((x) => x.protocol === 'rabbit' && x.destination.literal).map((x) => x.destination.text)) : [];
      for (const n of bean.names) if (!out.has(n)) out.set(n, bean.transport === 'kafka' ? { transport: 'kafka' } : { transport: 'amqp', service, queues });
    }
    return out;
  }

  private beanList?: { place: string; names: string[]; transport: Transport; listeners: TypeEntry[] }[];

  /** Every message source bean of the estate: `@Bean` methods returning one (an anonymous subclass included), components extending one. */
  private beans(): NonNullable<AxonLinker['beanList']> {
    if (this.beanList) return this.beanList;
    const model = this.input.model;
    const transportOf = (entry: TypeEntry | undefined, ref: TypeRef | undefined): Transport | undefined => {
      const names = [...(ref ? [ref.name.slice(ref.name.lastIndexOf('.') + 1)] : []), ...(entry ? model.ancestors(entry).external.map((x) => x.slice(x.lastIndexOf('.') + 1)) : [])];
      return names.map((n) => SOURCE_TYPES[n]).find((t) => t !== undefined);
    };
    const out: NonNullable<AxonLinker['beanList']> = [];
    for (const entry of model.types) {
      for (const m of entry.members) {
        const bean = m.facts.annotations.find((a) => a.name === 'Bean');
        if (!bean || m.facts.kind !== 'method' || !m.facts.returnType) continue;
        const returned = model.resolveType(m.facts.returnType, entry);
        const created = m.facts.calls.filter((c) => c.kind === 'new' && c.anonymous).map((c) => model.typeByQn(c.anonymous!, entry.place)).filter((t): t is TypeEntry => t !== undefined);
        const transport = transportOf(returned.entry, m.facts.returnType) ?? created.map((c) => transportOf(c, undefined)).find((t) => t !== undefined);
        if (!transport) continue;
        const names = [...beanNames(bean.args.name ?? bean.args.value), ...beanNames(m.facts.annotations.find((a) => a.name === 'Qualifier')?.args.value), m.facts.name];
        out.push({ place: entry.place.service, names, transport, listeners: [...created, ...(returned.entry ? [returned.entry] : [])] });
      }
      const component = entry.facts.annotations.find((a) => a.name === 'Component' || a.name === 'Service');
      const transport = component && transportOf(entry, undefined);
      if (transport) out.push({ place: entry.place.service, names: [...beanNames(component.args.value), entry.facts.name[0]!.toLowerCase() + entry.facts.name.slice(1)], transport, listeners: [entry] });
    }
    return (this.beanList = out);
  }

  private constantsOf(service: string): Constants {
    let c = this.constants.get(service);
    if (!c) {
      const info = this.serviceByName.get(service);
      this.constants.set(service, (c = new Constants(this.input.model, info?.config, info?.profiles)));
    }
    return c;
  }

  // ---- nodes ------------------------------------------------------------------------------------------------

  private allocate(kind: string, identity: string): string {
    let id = nodeId(this.input.ontology, this.input.source, kind, identity);
    for (let n = 2; this.used.has(id); n++) id = nodeId(this.input.ontology, this.input.source, kind, `${identity}~${n}`);
    this.used.add(id);
    return id;
  }

  private routeNode(h: Handler, host: string): string {
    const owner = h.member.owner;
    const id = this.allocate('route', `${owner.file.path}|${h.member.qn}|axon ${h.payload}|${host}`);
    this.nodes.push({
      id,
      kind: 'route',
      name: `axon ${h.payload}`,
      qualified_name: `${host} axon ${h.payload}`,
      source: this.input.source,
      service: host,
      module: owner.place.module,
      file: owner.file.path,
      line: nameLine(h.member.facts),
      props: { protocol: 'axon', destination: h.payload, framework: 'axon', handler: h.member.qn, controller: owner.qn, declared: true, resolved: true },
    });
    this.edges.push({ type: 'EXPOSES', from: this.input.memberId(h.member), to: id });
    return id;
  }

  private producerNode(s: Send, match: 'cross_service' | 'intra_service' | 'unmatched'): string {
    const owner = s.member.owner;
    const destination = s.payload?.qn ?? s.written.trim();
    const id = this.allocate('producer', `${owner.file.path}|${s.member.qn}@${s.line}|axon ${destination}`);
    const props: Record<string, PropValue> = { protocol: 'axon', framework: 'axon', destination, resolved: s.payload !== undefined, caller: s.member.qn, match };
    if (!s.payload) props.unresolved_reason = `the ${s.kind} sent is not known: ${s.unknown ?? 'no message'}`;
    this.nodes.push({
      id,
      kind: 'producer',
      name: `axon ${destination}`,
      qualified_name: `${owner.place.service} -> axon ${destination}`,
      source: this.input.source,
      service: owner.place.service,
      module: owner.place.module,
      file: owner.file.path,
      line: s.line,
      props,
    });
    this.edges.push({ type: 'DECLARES_PRODUCER', from: this.input.memberId(s.member), to: id });
    return id;
  }
}

/** The line of a member's name when the facts give it, else its declaration's first line. */
function nameLine(m: MemberFacts): number {
  return m.nameLine ?? m.line;
}

/** Whether a file names anything of Axon: an estate without Axon costs one look at its imports. */
function mentionsAxon(f: FileFacts): boolean {
  const i = f.imports;
  const axon = (n: string) => n.startsWith(AXON_PACKAGE);
  return Object.values(i.single).some(axon) || Object.values(i.staticSingle).some(axon) || i.wildcard.some(axon) || i.staticWildcard.some(axon) || f.types.some((t) => t.annotations.some((a) => axon(a.written)) || t.members.some((m) => m.annotations.some((a) => axon(a.written))));
}

function isTypeVariable(qn: string): boolean {
  return /^[A-Z][A-Z0-9]?$/.test(qn);
}

/** A call's argument as an expression (`name`: passed by that name in Kotlin): structured when the facts have it, else read from its text. */
function argExpr(call: CallFacts, index: number, name?: string): Expr | undefined {
  const named = name !== undefined ? (call.argNames?.indexOf(name) ?? -1) : -1;
  const at = named >= 0 ? named : call.argNames?.[index] ? -1 : index;
  if (at < 0) return undefined;
  return call.values?.[at] ?? (call.args[at] !== undefined ? exprOfText(call.args[at]) : undefined);
}

/** A name, a dotted name or a constructor call written as text (arguments the extractor kept only as text). */
function exprOfText(text: string): Expr | undefined {
  const t = text.trim();
  const created = /^new\s+([\w.$]+)\s*(?:<[^()]*>)?\s*\(/.exec(t);
  if (created) return { k: 'new', type: { name: created[1]! } };
  const called = /^([\w.$]+)\s*(?:<[^()]*>)?\s*\(/.exec(t);
  if (called) {
    const parts = called[1]!.split('.');
    const name = parts.pop()!;
    return { k: 'call', name, argCount: 1, ...(parts.length ? { of: dotted(parts) } : {}) };
  }
  return /^[\w$]+(?:\.[\w$]+)*$/.test(t) ? dotted(t.split('.')) : undefined;
}

function dotted(parts: string[]): Expr {
  let e: Expr = parts[0] === 'this' ? { k: 'this' } : { k: 'name', name: parts[0]! };
  for (const p of parts.slice(1)) e = { k: 'field', of: e, name: p };
  return e;
}

/** The local a name means at a line: the last declared at or before it. */
function localAt(member: MemberFacts, name: string, line: number): MemberFacts['locals'][number] | undefined {
  let best: MemberFacts['locals'][number] | undefined;
  for (const l of member.locals) if (l.name === name && l.line <= line) best = l;
  return best;
}

function beanNames(values: AnnotationValue[] | undefined): string[] {
  return (values ?? []).map((v) => v.value).filter((v): v is string => !!v);
}

/** `axon.eventhandling.processors.<name>.source|mode` of a service's default profile, by processor name. */
function processorsOf(info: ServiceInfo | undefined, setting: (key: string) => string | undefined): Map<string, { source?: string; mode?: string }> {
  const out = new Map<string, { source?: string; mode?: string }>();
  for (const raw of Object.keys(info?.config ?? {})) {
    // A processor named after a package is written in brackets: `processors[com.acme.query].source`.
    const m = /^([^.[]+)\.([^.[]+)\.([^.[]+)(?:\.?\[([^\]]+)\]|\.([^.[]+))\.([^.[]+)$/.exec(raw);
    if (!m || canonicalKey(`${m[1]}.${m[2]}.${m[3]}`) !== canonicalKey(PROPERTY.processors)) continue;
    const name = m[4] ?? m[5]!;
    const property = canonicalKey(m[6]!);
    if (property !== 'source' && property !== 'mode') continue;
    const value = setting(raw);
    if (value === undefined) continue;
    const p = out.get(name) ?? {};
    if (property === 'source') p.source = value;
    else p.mode = value.toLowerCase();
    out.set(name, p);
  }
  return out;
}

function settingOf<T>(map: Map<string, T>, name: string): T | undefined {
  const exact = map.get(name);
  if (exact !== undefined) return exact;
  for (const [k, v] of map) if (k.toLowerCase() === name.toLowerCase()) return v;
  return undefined;
}

/**
 * Deployments of the hosting services: all of them together, unless one command is handled in two of them (Axon
 * routes a command to one handler, so they are separate deployments side by side); then the directory tree below
 * their common directory separates them, as far as needed.
 */
function deploymentsOf(hosts: readonly string[], dirOf: (s: string) => string, commandHosts: Map<string, Set<string>>): Map<string, string> {
  const out = new Map<string, string>();
  const conflicting = (members: readonly string[]): boolean => {
    const set = new Set(members);
    for (const handled of commandHosts.values()) {
      let n = 0;
      for (const h of handled) if (set.has(h) && ++n > 1) return true;
    }
    return false;
  };
  const segments = (s: string): string[] => dirOf(s).split('/').filter(Boolean);
  const split = (members: string[], prefix: string[]): void => {
    if (members.length < 2 || !conflicting(members)) {
      for (const m of members) out.set(m, prefix.join('/'));
      return;
    }
    const parts = new Map<string, string[]>();
    for (const m of members) {
      const next = segments(m)[prefix.length] ?? '';
      (parts.get(next) ?? parts.set(next, []).get(next)!).push(m);
    }
    for (const [next, ms] of [...parts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      if (next === '') for (const m of ms) out.set(m, `${prefix.join('/')}#${m}`);
      else split(ms, [...prefix, next]);
    }
  };
  split([...hosts].sort(), []);
  return out;
}

// ---- build files: which services run which modules, and what they are built with ----------------------------

interface Declaration {
  artifact: string;
  group?: string;
  scope: string;
  optional: boolean;
  exclusions: string[];
  /** A Gradle project dependency: the project's directory. */
  projectDir?: string;
}

interface BuildUnit {
  file: string;
  tool: 'maven' | 'gradle';
  artifact?: string;
  group?: string;
  parent?: BuildUnit;
  declarations: Declaration[];
}

/** Which deployable services run the code of each service, and the artifacts each deployable is built with. */
class Hosting {
  private readonly deployable = new Set<string>();
  private readonly includes = new Map<string, Set<string>>();
  private readonly artifacts = new Map<string, Set<string>>();
  private readonly hostCache = new Map<string, string[]>();

  constructor(
    model: CodeModel,
    private readonly services: readonly ServiceInfo[],
    build: AxonGraphInput['build'],
  ) {
    for (const t of model.types) if (t.facts.annotations.some((a) => DEPLOYABLE.has(a.name))) this.deployable.add(t.place.service);
    if (!build) return;
    const units = readUnits(build);
    const byArtifact = new Map<string, BuildUnit[]>();
    const byDir = new Map<string, BuildUnit>();
    for (const u of units.values()) {
      if (u.artifact) (byArtifact.get(u.artifact) ?? byArtifact.set(u.artifact, []).get(u.artifact)!).push(u);
      byDir.set(dirOf(u.file), u);
    }
    const serviceOfFile = new Map<string, string>();
    for (const s of services) for (const m of s.modules) if (m.buildFile) serviceOfFile.set(m.buildFile, s.name);
    for (const s of services) {
      if (!this.deployable.has(s.name)) continue;
      const own = s.modules.map((m) => (m.buildFile ? units.get(m.buildFile) : undefined)).filter((u): u is BuildUnit => u !== undefined);
      if (!own.length) continue;
      const { artifacts, units: reached } = classpath(own, byArtifact, byDir);
      this.artifacts.set(s.name, artifacts);
      const included = new Set<string>();
      for (const u of reached) {
        const service = serviceOfFile.get(u.file);
        if (service) included.add(service);
      }
      this.includes.set(s.name, included);
    }
  }

  /** The services whose processes run code placed in `service`: itself when deployable, else the deployables including it. */
  hostsOf(service: string): string[] {
    let found = this.hostCache.get(service);
    if (!found) {
      found = this.deployable.has(service) ? [service] : [...this.includes].filter(([, inc]) => inc.has(service)).map(([s]) => s).sort();
      if (!found.length) found = [service];
      this.hostCache.set(service, found);
    }
    return found;
  }

  hosts(): string[] {
    return [...new Set(this.services.flatMap((s) => this.hostsOf(s.name)))].sort();
  }

  /** The artifacts a deployable is built with; undefined when its build is not known. */
  artifactsOf(service: string): Set<string> | undefined {
    return this.artifacts.get(service);
  }
}

/**
 * The dependencies reachable from a service's build units, breadth first. Maven keeps the nearest declaration of an
 * artifact (so an application's own `axon-spring-boot-starter` with its exclusions wins over a library's), Gradle
 * every path; an exclusion prunes what lies below its declaration.
 */
function classpath(roots: readonly BuildUnit[], byArtifact: Map<string, BuildUnit[]>, byDir: Map<string, BuildUnit>): { artifacts: Set<string>; units: Set<BuildUnit> } {
  const artifacts = new Set<string>();
  const units = new Set<BuildUnit>(roots);
  const seen = new Set<string>();
  type Item = { d: Declaration; excluded: ReadonlySet<string>; depth: number; tool: BuildUnit['tool'] };
  const queue: Item[] = [];
  const enqueue = (u: BuildUnit, excluded: ReadonlySet<string>, depth: number): void => {
    for (let p: BuildUnit | undefined = u, guard = 0; p && guard < 32; p = p.parent, guard++) for (const d of p.declarations) queue.push({ d, excluded, depth, tool: u.tool });
  };
  for (const r of roots) enqueue(r, new Set(), 1);
  for (let i = 0; i < queue.length && i < 100_000; i++) {
    const { d, excluded, depth, tool } = queue[i]!;
    if (!RUNTIME_SCOPES.has(d.scope) || (depth > 1 && d.optional) || excluded.has(d.artifact) || excluded.has('*')) continue;
    const key = tool === 'maven' ? d.artifact : `${d.artifact}\0${[...excluded].sort().join(',')}`;
    if (seen.has(key)) continue;
    seen.add(key);
    artifacts.add(d.artifact);
    const below = new Set([...excluded, ...d.exclusions]);
    const internal = d.projectDir !== undefined ? [byDir.get(d.projectDir)].filter((u): u is BuildUnit => u !== undefined) : (byArtifact.get(d.artifact) ?? []).filter((u) => !d.group || !u.group || d.group.includes('${') || d.group === u.group);
    for (const u of internal) {
      units.add(u);
      enqueue(u, below, depth + 1);
    }
    for (const a of TRANSITIVE[d.artifact] ?? []) queue.push({ d: { artifact: a, scope: '', optional: false, exclusions: [] }, excluded: below, depth: depth + 1, tool });
  }
  return { artifacts, units };
}

function readUnits(build: NonNullable<AxonGraphInput['build']>): Map<string, BuildUnit> {
  const units = new Map<string, BuildUnit>();
  const parents = new Map<BuildUnit, { artifact?: string; path: string }>();
  const settingsDirs = build.buildFiles.filter((f) => /(?:^|\/)settings\.gradle(?:\.kts)?$/.test(f)).map(dirOf);
  for (const file of build.buildFiles) {
    const text = build.texts.get(file);
    if (text === undefined) continue;
    if (file === 'pom.xml' || file.endsWith('/pom.xml')) {
      const { root } = parseXml(text);
      if (!root || root.name !== 'project') continue;
      const parent = child(root, 'parent');
      const unit: BuildUnit = {
        file,
        tool: 'maven',
        ...optional('artifact', childText(root, 'artifactId')),
        ...optional('group', childText(root, 'groupId') ?? childText(parent, 'groupId')),
        declarations: children(child(root, 'dependencies'), 'dependency').flatMap((d) => {
          const artifact = childText(d, 'artifactId');
          if (!artifact) return [];
          return [{ artifact, ...optional('group', childText(d, 'groupId')), scope: childText(d, 'scope') ?? '', optional: childText(d, 'optional') === 'true', exclusions: children(child(d, 'exclusions'), 'exclusion').map((e) => childText(e, 'artifactId') ?? '').filter(Boolean) }];
        }),
      };
      units.set(file, unit);
      if (parent) parents.set(unit, { ...optional('artifact', childText(parent, 'artifactId')), path: posix.normalize(posix.join(dirOf(file), childText(parent, 'relativePath') ?? '../pom.xml')) });
    } else if (/(?:^|\/)build\.gradle(?:\.kts)?$/.test(file)) {
      const root = [...settingsDirs].filter((d) => d === '' || dirOf(file) === d || dirOf(file).startsWith(`${d}/`)).sort((a, b) => b.length - a.length)[0] ?? dirOf(file);
      units.set(file, { file, tool: 'gradle', artifact: posix.basename(dirOf(file)) || 'root', declarations: gradleDeclarations(parseScript(text), root) });
    }
  }
  for (const [unit, p] of parents) {
    const path = p.path.endsWith('.xml') ? p.path : posix.join(p.path, 'pom.xml');
    const found = units.get(path.replace(/^\.\//, '')) ?? [...units.values()].find((u) => u.tool === 'maven' && u.artifact === p.artifact && u !== unit);
    if (found && found !== unit) unit.parent = found;
  }
  return units;
}

/** The runtime dependencies a Gradle script's `dependencies { … }` block declares. */
function gradleDeclarations(statements: readonly Statement[], root: string): Declaration[] {
  const out: Declaration[] = [];
  for (const s of statements) {
    if (s.k !== 'block' || s.head.k !== 'id' || s.head.name !== 'dependencies') continue;
    for (const d of s.body) {
      const call = d.k === 'expr' ? d.expr : d.k === 'block' ? d.head : undefined;
      if (!call || call.k !== 'call' || call.callee.k !== 'id' || !GRADLE_CONFIGURATIONS.has(call.callee.name)) continue;
      const exclusions = d.k === 'block' ? d.body.flatMap((x) => (x.k === 'expr' && x.expr.k === 'call' && x.expr.callee.k === 'id' && x.expr.callee.name === 'exclude' ? x.expr.args.filter((a) => a.name === 'module').map((a) => scriptString(a.value) ?? '') : [])).filter(Boolean) : [];
      const arg = call.args[0]?.value;
      if (!arg) continue;
      if (arg.k === 'call' && arg.callee.k === 'id' && arg.callee.name === 'project') {
        const path = scriptString((arg.args.find((a) => a.name === 'path') ?? arg.args[0])?.value);
        if (path) out.push({ artifact: path.split(':').filter(Boolean).pop() ?? path, scope: '', optional: false, exclusions, projectDir: [root, ...path.split(':').filter(Boolean)].filter(Boolean).join('/') });
        continue;
      }
      const named = call.args.find((a) => a.name === 'name');
      const notation = named ? scriptString(named.value) : scriptString(arg);
      const artifact = named ? notation : notation?.split(':')[1];
      if (artifact) out.push({ artifact, scope: '', optional: false, exclusions });
    }
  }
  return out;
}

function scriptString(e: ScriptExpr | undefined): string | undefined {
  return e?.k === 'str' ? stringText(e.parts) : undefined;
}

function dirOf(file: string): string {
  const d = dirname(file);
  return d === '.' ? '' : d;
}

function optional<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  return (value !== undefined && value !== '' ? { [key]: value } : {}) as { [P in K]?: string };
}
