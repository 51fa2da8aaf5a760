import type { AnnotationFacts, ConstPart } from '../parse/ir.js';
import type { MemberEntry, TypeEntry } from '../model/model.js';
import type { Constants, Part } from './routes.js';

export type MessagingProtocol = 'kafka' | 'rabbit' | 'jms' | 'sqs';

/** A destination a listener method consumes. */
export interface Listener {
  handler: MemberEntry;
  protocol: MessagingProtocol;
  framework: 'spring_kafka' | 'spring_rabbit' | 'spring_jms' | 'spring_cloud_aws' | 'spring_cloud_stream';
  /** A topic, queue or destination name, or (Kafka `topicPattern`) a regular expression. */
  destination: Part;
  pattern: boolean;
  /** Rabbit: the exchange the listener's own `@QueueBinding` binds its queue to, and the routing keys. */
  exchange?: string;
  bindingKeys?: string[];
  /** Spring Cloud Stream: the composition the binding feeds (`email|sms`), each function in turn; the handler is its first. */
  composition?: string;
}

interface ListenerAnnotation {
  protocol: MessagingProtocol;
  framework: Listener['framework'];
  /** The arguments that name destinations. */
  names: string[];
  /** The argument that holds a destination pattern. */
  pattern?: string;
  /**
   * Container factories (the `factory` argument) that read the names as ids of a queue registry: the configuration
   * key that names each id's queue (`{}` is the id).
   */
  idFactories?: Readonly<Record<string, string>>;
}

const LISTENERS: Record<string, ListenerAnnotation> = {
  KafkaListener: { protocol: 'kafka', framework: 'spring_kafka', names: ['topics', 'value'], pattern: 'topicPattern' },
  RabbitListener: { protocol: 'rabbit', framework: 'spring_rabbit', names: ['queues', 'value'] },
  JmsListener: { protocol: 'jms', framework: 'spring_jms', names: ['destination'] },
  // Spring Cloud AWS: a queue name, URL or ARN; hmpps-sqs's factory proxy takes its queue ids (hmpps.sqs.queues.<id>).
  SqsListener: { protocol: 'sqs', framework: 'spring_cloud_aws', names: ['value', 'queueNames'], idFactories: { hmppsQueueContainerFactoryProxy: 'hmpps.sqs.queues.{}.queueName' } },
};

/**
 * The destinations a type's listener methods consume: `@KafkaListener` topics or `topicPattern` (on the method,
 * or on the class for `@KafkaHandler` methods), `@RabbitListener` queues, `@JmsListener` destinations. Names
 * resolve through constants and the service's `${…}` placeholders.
 */
export function listenersOf(entry: TypeEntry, constants: Constants): Listener[] {
  if (entry.facts.kind === 'interface' || entry.facts.kind === 'annotation') return [];
  const out: Listener[] = [];
  for (const f of streamFunctionsOf(entry, constants)) {
    if (!f.input) continue;
    const bound = streamBinding(f.input, constants);
    out.push({ handler: f.bean, protocol: bound.protocol, framework: 'spring_cloud_stream', destination: { text: bound.destination, literal: true, written: f.input, derived: true }, pattern: false, ...(f.composition ? { composition: f.composition } : {}) });
  }
  // Legacy @StreamListener(Sink.INPUT): the binding is the annotation's value.
  for (const m of entry.members) {
    const legacy = m.facts.annotations.find((a) => a.name === 'StreamListener');
    const value = legacy?.args.value?.[0] ?? legacy?.args.target?.[0];
    if (!value) continue;
    const binding = value.kind === 'ref' && /^(Sink|Processor)\.INPUT$/.test(value.text) ? 'input' : constants.part(value, entry).text;
    const bound = streamBinding(binding, constants);
    out.push({ handler: m, protocol: bound.protocol, framework: 'spring_cloud_stream', destination: { text: bound.destination, literal: true, written: binding, derived: true }, pattern: false });
  }
  const classLevel = entry.facts.annotations.filter((a) => a.name in LISTENERS);
  for (const m of entry.members) {
    if (m.facts.kind !== 'method') continue;
    const own = m.facts.annotations.filter((a) => a.name in LISTENERS);
    const annotations = own.length ? own : m.facts.annotations.some((a) => a.name === 'KafkaHandler' || a.name === 'RabbitHandler') ? classLevel : [];
    for (const a of annotations) out.push(...destinationsOf(a, m, entry, constants));
  }
  return out;
}

function destinationsOf(a: AnnotationFacts, handler: MemberEntry, entry: TypeEntry, constants: Constants): Listener[] {
  const kind = LISTENERS[a.name]!;
  const base = { handler, protocol: kind.protocol, framework: kind.framework };
  const names = kind.names.flatMap((n) => a.args[n] ?? []);
  const factory = a.args.factory?.[0];
  const registryKey = factory && kind.idFactories?.[constants.part(factory, entry).text];
  const out: Listener[] = names.map((v) => {
    const named = constants.part(v, entry);
    // A queue id: the queue is the one the registry's configuration names for it.
    if (registryKey && named.literal) return { ...base, destination: constants.partOf([{ s: `\${${registryKey.replace('{}', named.text)}}` }], v.text, entry), pattern: false };
    return { ...base, destination: named, pattern: false };
  });
  if (a.name === 'RabbitListener') {
    // `queuesToDeclare = @Queue("q")`; `bindings = @QueueBinding(value = @Queue("q"), exchange = @Exchange("x"), key = "k")`.
    for (const q of a.args.queuesToDeclare ?? []) {
      const name = queueName(q.annotation, entry, constants);
      if (name) out.push({ ...base, destination: name, pattern: false });
    }
    for (const b of a.args.bindings ?? []) {
      const binding = b.annotation;
      const queue = queueName(binding?.args.value?.[0]?.annotation, entry, constants);
      const exchange = binding?.args.exchange?.[0]?.annotation;
      const exchangeName = exchange && (exchange.args.value ?? exchange.args.name)?.[0];
      if (!binding || !queue) continue;
      const type = exchange?.args.type?.[0];
      const fanout = type !== undefined && /fanout/i.test(type.value ?? type.text);
      const keys = (binding.args.key ?? []).map((k) => constants.part(k, entry).text);
      out.push({
        ...base,
        destination: queue,
        pattern: false,
        ...(exchangeName ? { exchange: constants.part(exchangeName, entry).text, bindingKeys: fanout ? ['#'] : keys.length ? keys : [''] } : {}),
      });
    }
  }
  const pattern = kind.pattern ? a.args[kind.pattern]?.[0] : undefined;
  if (pattern) out.push({ ...base, destination: constants.part(pattern, entry), pattern: true });
  return out;
}

/** The name of a `@Queue(…)`: `value` or `name`; an anonymous queue has none to match. */
function queueName(queue: AnnotationFacts | undefined, entry: TypeEntry, constants: Constants): Part | undefined {
  const v = queue && (queue.args.value ?? queue.args.name)?.[0];
  return v ? constants.part(v, entry) : undefined;
}

/**
 * Spring Cloud Stream: the destination a binding is bound to (`spring.cloud.stream.bindings.<binding>.destination`,
 * else the binding's own name) and the messaging system of its binder (`…bindings.<binding>.binder`, else
 * `spring.cloud.stream.default-binder`, else Kafka).
 */
export function streamBinding(binding: string, settings: Constants | ((key: string) => string | undefined), classpathBinder?: MessagingProtocol): { destination: string; protocol: MessagingProtocol; configured: boolean; key: string } {
  const setting = typeof settings === 'function' ? settings : (key: string) => settings.setting(key);
  classpathBinder ??= typeof settings === 'function' ? undefined : settings.streamBinder;
  const key = `spring.cloud.stream.bindings.${binding}.destination`;
  const configured = setting(key);
  const binder = (setting(`spring.cloud.stream.bindings.${binding}.binder`) ?? setting('spring.cloud.stream.default-binder') ?? setting('spring.cloud.stream.defaultBinder') ?? classpathBinder ?? 'kafka').toLowerCase();
  return { destination: configured ?? binding, protocol: binder.includes('rabbit') ? 'rabbit' : 'kafka', configured: configured !== undefined, key };
}

/** The artifacts that bring a Spring Cloud Stream binder, by the messaging system it binds to. */
const BINDER_ARTIFACTS: Readonly<Record<'kafka' | 'rabbit', readonly string[]>> = {
  kafka: ['spring-cloud-starter-stream-kafka', 'spring-cloud-stream-binder-kafka', 'spring-cloud-stream-binder-kafka-streams'],
  rabbit: ['spring-cloud-starter-stream-rabbit', 'spring-cloud-stream-binder-rabbit'],
};

/**
 * The binder a service's build puts on the classpath, which Spring Cloud Stream uses when the configuration names
 * none: the one system whose binder artifact its build files name (none or both: the configuration must say).
 */
export function classpathBinderOf(buildTexts: readonly string[]): 'kafka' | 'rabbit' | undefined {
  const found = (Object.keys(BINDER_ARTIFACTS) as ('kafka' | 'rabbit')[]).filter((system) => buildTexts.some((t) => BINDER_ARTIFACTS[system].some((a) => new RegExp(`\\b${a}\\b`).test(t))));
  return found.length === 1 ? found[0] : undefined;
}

/** A functional Spring Cloud Stream bean: a `@Bean` method returning a Consumer, Function or Supplier. */
export interface StreamFunction {
  bean: MemberEntry;
  name: string;
  /** `<name>-in-0` for a Consumer or Function. */
  input?: string;
  /** `<name>-out-0` for a Supplier or Function. */
  output?: string;
  /** The composition it is part of (`email|sms`), when it has more than one function. */
  composition?: string;
}

const FUNCTION_TYPES: Record<string, { input: boolean; output: boolean }> = { Consumer: { input: true, output: false }, Function: { input: true, output: true }, Supplier: { input: false, output: true } };

/**
 * The functional beans of a type that Spring Cloud Stream binds: `@Bean` methods returning
 * `java.util.function.Consumer`, `Function` or `Supplier` (only those `spring.cloud.function.definition` names,
 * when it is set; none in a service with neither that nor `spring.cloud.stream.*` configuration), with their
 * binding names.
 */
export function streamFunctionsOf(entry: TypeEntry, constants: Constants): StreamFunction[] {
  const definition = constants.setting('spring.cloud.function.definition');
  // Any @Bean Supplier/Function/Consumer is a candidate, but only a service configured for Spring Cloud Stream binds them.
  if (!definition && !constants.hasSettingsUnder('spring.cloud.stream.')) return [];
  // `a;b|c`: functions a and the composition b|c, bound as `a-…` and `bc-…`: input at its first function, output at its last.
  const compositions = definition ? definition.split(/[;,]/).map((d) => d.split('|').map((x) => x.trim()).filter(Boolean)).filter((c) => c.length) : undefined;
  const out: StreamFunction[] = [];
  for (const m of entry.members) {
    const bean = m.facts.annotations.find((a) => a.name === 'Bean');
    const kind = m.facts.returnType && FUNCTION_TYPES[m.facts.returnType.name.replace(/^java\.util\.function\./, '')];
    if (!bean || !kind || m.facts.kind !== 'method') continue;
    const name = bean.args.name?.[0]?.value ?? bean.args.value?.[0]?.value ?? m.facts.name;
    if (!compositions) {
      out.push({ bean: m, name, ...(kind.input ? { input: `${name}-in-0` } : {}), ...(kind.output ? { output: `${name}-out-0` } : {}) });
      continue;
    }
    for (const c of compositions) {
      const at = c.indexOf(name);
      if (at < 0) continue;
      const bound = c.join('');
      const first = at === 0;
      const last = at === c.length - 1;
      out.push({ bean: m, name: bound, ...(first && kind.input ? { input: `${bound}-in-0` } : {}), ...(last && kind.output ? { output: `${bound}-out-0` } : {}), ...(c.length > 1 ? { composition: c.join('|') } : {}) });
    }
  }
  return out;
}

/**
 * A call argument as written, read as a string constant expression: literals, names and `+`
 * (`OrderConfig.ORDER_EVENTS_TOPIC`, `PREFIX + ".events"`); undefined for anything else. In Kotlin source
 * (`kotlin`), a string template's `$name` and `${expression}` are names too (`"/orders/$id"`), and `\$` is a
 * dollar sign.
 */
export function partsOfText(text: string, kotlin = false): ConstPart[] | undefined {
  const parts: ConstPart[] = [];
  let i = 0;
  let expectValue = true;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s|\(|\)/.test(c)) {
      i++;
      continue;
    }
    if (expectValue && c === '"') {
      let value = '';
      const flush = () => {
        if (value) parts.push({ s: value });
        value = '';
      };
      i++;
      while (i < text.length && text[i] !== '"') {
        if (text[i] === '\\') {
          const next = text[i + 1];
          value += next === 'n' ? '\n' : next === 't' ? '\t' : (next ?? '');
          i += 2;
        } else if (kotlin && text[i] === '$' && text[i + 1] === '{') {
          const end = text.indexOf('}', i + 2);
          if (end < 0) return undefined;
          flush();
          parts.push({ ref: text.slice(i + 2, end).trim() });
          i = end + 1;
        } else if (kotlin && text[i] === '$' && /[A-Za-z_]/.test(text[i + 1] ?? '')) {
          const m = /^[A-Za-z_][\w]*/.exec(text.slice(i + 1))!;
          flush();
          parts.push({ ref: m[0] });
          i += 1 + m[0].length;
        } else value += text[i++];
      }
      if (text[i] !== '"') return undefined;
      i++;
      flush();
      expectValue = false;
    } else if (expectValue && /[A-Za-z_$]/.test(c)) {
      const m = /^[A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)*/.exec(text.slice(i))!;
      parts.push({ ref: m[0].replace(/\s+/g, '') });
      i += m[0].length;
      expectValue = false;
    } else if (!expectValue && c === '+') {
      i++;
      expectValue = true;
    } else return undefined;
  }
  return !expectValue ? (parts.length ? parts : [{ s: '' }]) : undefined;
}
