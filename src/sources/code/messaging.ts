import type { AnnotationFacts, ConstPart } from './ir.js';
import type { MemberEntry, TypeEntry } from './model.js';
import type { Constants, Part } from './routes.js';

export type MessagingProtocol = 'kafka' | 'rabbit' | 'jms';

/** A destination a listener method consumes. */
export interface Listener {
  handler: MemberEntry;
  protocol: MessagingProtocol;
  framework: 'spring_kafka' | 'spring_rabbit' | 'spring_jms';
  /** A topic, queue or destination name, or (Kafka `topicPattern`) a regular expression. */
  destination: Part;
  pattern: boolean;
}

const LISTENERS: Record<string, { protocol: MessagingProtocol; framework: Listener['framework']; names: string[]; pattern?: string }> = {
  KafkaListener: { protocol: 'kafka', framework: 'spring_kafka', names: ['topics', 'value'], pattern: 'topicPattern' },
  RabbitListener: { protocol: 'rabbit', framework: 'spring_rabbit', names: ['queues', 'value'] },
  JmsListener: { protocol: 'jms', framework: 'spring_jms', names: ['destination'] },
};

/**
 * The destinations a type's listener methods consume: `@KafkaListener` topics or `topicPattern` (on the method,
 * or on the class for `@KafkaHandler` methods), `@RabbitListener` queues, `@JmsListener` destinations. Names
 * resolve through constants and the service's `${…}` placeholders.
 */
export function listenersOf(entry: TypeEntry, constants: Constants): Listener[] {
  if (entry.facts.kind === 'interface' || entry.facts.kind === 'annotation') return [];
  const out: Listener[] = [];
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
  const out: Listener[] = names.map((v) => ({ ...base, destination: constants.part(v, entry), pattern: false }));
  const pattern = kind.pattern ? a.args[kind.pattern]?.[0] : undefined;
  if (pattern) out.push({ ...base, destination: constants.part(pattern, entry), pattern: true });
  return out;
}

/** Send methods whose first argument is the destination, by the qualified name of the template. */
const SENDERS: Record<string, { protocol: MessagingProtocol; framework: 'spring_kafka' | 'spring_jms'; methods: Set<string> }> = {
  'org.springframework.kafka.core.KafkaTemplate': { protocol: 'kafka', framework: 'spring_kafka', methods: new Set(['send']) },
  'org.springframework.kafka.core.KafkaOperations': { protocol: 'kafka', framework: 'spring_kafka', methods: new Set(['send']) },
  'org.springframework.jms.core.JmsTemplate': { protocol: 'jms', framework: 'spring_jms', methods: new Set(['send', 'convertAndSend']) },
};

/** The messaging system of a library method that sends to the destination in its first argument, if it is one. */
export function senderOf(owner: string, method: string): { protocol: MessagingProtocol; framework: 'spring_kafka' | 'spring_jms' } | undefined {
  const sender = SENDERS[owner];
  return sender && sender.methods.has(method) ? sender : undefined;
}

/**
 * A call argument as written, read as a string constant expression: literals, names and `+`
 * (`OrderConfig.ORDER_EVENTS_TOPIC`, `PREFIX + ".events"`); undefined for anything else.
 */
export function partsOfText(text: string): ConstPart[] | undefined {
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
      i++;
      while (i < text.length && text[i] !== '"') {
        if (text[i] === '\\') {
          const next = text[i + 1];
          value += next === 'n' ? '\n' : next === 't' ? '\t' : (next ?? '');
          i += 2;
        } else value += text[i++];
      }
      if (text[i] !== '"') return undefined;
      i++;
      parts.push({ s: value });
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
  return parts.length && !expectValue ? parts : undefined;
}
