/**
 * Relays (issue 23, folio-mgr's outbox): a send whose destination it reads back from the message it forwards — a
 * message header, a property of a row loaded from a table — sends wherever the estate stored one. Its producers
 * sit where each stored destination is chosen, with `relayed_by` naming the relay; the relay is no producer of its
 * own. One rule per test, on a small estate written here; folio-mgr's expected links prove it on a real one.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { NodeRecord } from '../src/graph/types.js';
import { buildEstate, writeEstate } from './helpers/estate.js';

let dir = '';
let nodes: readonly NodeRecord[] = [];

const BUILD = 'plugins { id("org.springframework.boot") }\ndependencies { implementation("org.springframework.boot:spring-boot-starter-web") }\n';
const J = 'src/main/java/p/';

const FILES: Record<string, string> = {
  'relay/build.gradle.kts': BUILD,
  'relay/src/main/resources/application.yml': 'spring.application.name: relay\n',
  [`relay/${J}App.java`]: 'package p;\n@org.springframework.boot.autoconfigure.SpringBootApplication\npublic class App {}\n',
  // The header is named by a constant and written through a helper whose parameter its callers choose.
  [`relay/${J}Headers.java`]: `package p;
import org.springframework.messaging.support.MessageHeaderAccessor;
public class Headers extends MessageHeaderAccessor {
  public static final String DESTINATION = "destination";
  public void setDestination(String destination) { setHeader(DESTINATION, destination); }
  public String getDestination() { return (String) getHeader(DESTINATION); }
}
`,
  [`relay/${J}OrderEvents.java`]: `package p;
import org.springframework.messaging.support.MessageBuilder;
public class OrderEvents {
  private final Outbox outbox;
  public OrderEvents(Outbox outbox) { this.outbox = outbox; }
  public void placed(String id) { publish("orders.placed", id); }
  public void cancelled(String id) { publish("orders.cancelled", id); }
  private void publish(String destination, String id) {
    var headers = new Headers();
    headers.setDestination(destination);
    outbox.store(MessageBuilder.createMessage(id, headers.getMessageHeaders()));
  }
}
`,
  // What the outbox stores (an entity the relay loads back) and the relay that sends it.
  [`relay/${J}OutboxRow.java`]: `package p;
@lombok.Data
@jakarta.persistence.Entity
public class OutboxRow {
  @jakarta.persistence.Id private Long id;
  private String topic;
  private String payload;
}
`,
  [`relay/${J}Outbox.java`]: `package p;
import org.springframework.messaging.Message;
public class Outbox {
  private final OutboxRepository rows;
  public Outbox(OutboxRepository rows) { this.rows = rows; }
  public void store(Message<?> message) {
    var row = new OutboxRow();
    row.setTopic(message.getHeaders().get(Headers.DESTINATION, String.class));
    row.setPayload(String.valueOf(message.getPayload()));
    rows.save(row);
  }
}
`,
  [`relay/${J}OutboxRepository.java`]: 'package p;\npublic interface OutboxRepository extends org.springframework.data.jpa.repository.JpaRepository<OutboxRow, Long> {}\n',
  [`relay/${J}OutboxPoller.java`]: `package p;
import org.springframework.kafka.core.KafkaTemplate;
public class OutboxPoller {
  private final OutboxRepository rows;
  private final KafkaTemplate<String, String> kafka;
  public OutboxPoller(OutboxRepository rows, KafkaTemplate<String, String> kafka) { this.rows = rows; this.kafka = kafka; }
  @org.springframework.scheduling.annotation.Scheduled(fixedDelay = 1000)
  public void poll() { rows.findAll().forEach(this::send); }
  private void send(OutboxRow row) { kafka.send("prod." + row.getTopic(), row.getPayload()); }
}
`,
  // A relay on a header nothing in the estate writes: it stays a relay with an unknown destination.
  [`relay/${J}Forwarder.java`]: `package p;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.messaging.Message;
public class Forwarder implements org.springframework.messaging.MessageHandler {
  private final KafkaTemplate<String, Object> kafka;
  public Forwarder(KafkaTemplate<String, Object> kafka) { this.kafka = kafka; }
  @Override public void handleMessage(Message<?> message) { kafka.send((String) message.getHeaders().get("reply_to"), message.getPayload()); }
}
`,
  // A listener's message comes from another service: a header this service sets on its own messages says nothing of it.
  [`relay/${J}Replies.java`]: `package p;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.messaging.Message;
import org.springframework.messaging.support.MessageBuilder;
public class Replies {
  private final KafkaTemplate<String, Object> kafka;
  public Replies(KafkaTemplate<String, Object> kafka) { this.kafka = kafka; }
  public Message<String> request(String body) { return MessageBuilder.withPayload(body).setHeader("reply_topic", "replies.mine").build(); }
  @org.springframework.kafka.annotation.KafkaListener(topics = "requests")
  public void answer(Message<String> message) { kafka.send((String) message.getHeaders().get("reply_topic"), "done"); }
}
`,
  // Events of two classes share a property declared once; a relay of one class reads only what is written on it. The
  // audit event is also made with its topic by a constructor, which setters do not show: its relay keeps its hole.
  [`relay/${J}Event.java`]: `package p;
public abstract class Event {
  private String topic;
  public String getTopic() { return topic; }
  public void setTopic(String topic) { this.topic = topic; }
}
`,
  [`relay/${J}ShipEvent.java`]: 'package p;\npublic class ShipEvent extends Event {}\n',
  [`relay/${J}AuditEvent.java`]: `package p;
public class AuditEvent {
  private String topic;
  public AuditEvent() {}
  public AuditEvent(String topic) { this.topic = topic; }
  public String getTopic() { return topic; }
  public void setTopic(String topic) { this.topic = topic; }
}
`,
  [`relay/${J}Events.java`]: `package p;
public class Events {
  private final EventRelay relay;
  public Events(EventRelay relay) { this.relay = relay; }
  public void shipped() { var e = new ShipEvent(); e.setTopic("ships"); relay.ship(e); }
  public void other(ReturnEvent e) { e.setTopic("returns"); }
  public void audited() { var a = new AuditEvent(); a.setTopic("audit.manual"); relay.audit(a); relay.audit(new AuditEvent("audit.auto")); }
}
`,
  [`relay/${J}ReturnEvent.java`]: 'package p;\npublic class ReturnEvent extends Event {}\n',
  [`relay/${J}EventRelay.java`]: `package p;
import org.springframework.kafka.core.KafkaTemplate;
public class EventRelay {
  private final KafkaTemplate<String, Object> kafka;
  public EventRelay(KafkaTemplate<String, Object> kafka) { this.kafka = kafka; }
  public void ship(ShipEvent e) { kafka.send(e.getTopic(), e); }
  public void audit(AuditEvent a) { kafka.send(a.getTopic(), a); }
}
`,
  // Not a relay: a helper that calls itself with another destination (its dead-letter retry) chooses that one too.
  [`relay/${J}Retrying.java`]: `package p;
import org.springframework.kafka.core.KafkaTemplate;
public class Retrying {
  private final KafkaTemplate<String, Object> kafka;
  public Retrying(KafkaTemplate<String, Object> kafka) { this.kafka = kafka; }
  public void order(String id) { publish("orders", id, 3); }
  private void publish(String topic, String id, int left) {
    try { kafka.send(topic, id); } catch (RuntimeException e) { if (left > 0) publish(topic, id, left - 1); else publish("dead-letter", id, 0); }
  }
}
`,
};

before(async () => {
  dir = writeEstate(FILES, 'sextant-relay-');
  nodes = (await buildEstate(dir)).nodes;
});
after(() => rmSync(dir, { recursive: true, force: true }));

const producers = () =>
  nodes
    .filter((n) => n.kind === 'producer')
    .map((n) => `${String(n.props.caller).split('.').pop()}:${n.line} ${n.name}${n.props.relayed_by ? ` via ${String(n.props.relayed_by).split(' ')[0]!.split('.').pop()}` : ''}${n.props.resolved === false ? ` unresolved (${String(n.props.unresolved_at)})` : ''}`)
    .sort();

const of = (...callers: string[]) => producers().filter((p) => callers.some((c) => p.startsWith(c)));

describe('a send that forwards a destination stored with its message', () => {
  test('each destination stored in a header, then in an outbox row, is a producer where it is chosen; the relay is none', () => {
    assert.deepEqual(of('Forwarder', 'OrderEvents', 'OutboxPoller', 'Outbox'), [
      'Forwarder#handleMessage(Message):7 kafka {reply_to} unresolved (header reply_to)',
      'OrderEvents#cancelled(String):7 kafka prod.orders.cancelled via OutboxPoller#send(OutboxRow)',
      'OrderEvents#placed(String):6 kafka prod.orders.placed via OutboxPoller#send(OutboxRow)',
    ]);
  });

  test("a broker listener's header is another service's: the listener keeps its unknown destination", () => {
    assert.deepEqual(of('Replies'), ['Replies#answer(Message):10 kafka {reply_topic} unresolved (header reply_topic)']);
  });

  test("a property is read from what is written on the reader's own class (ShipEvent, not ReturnEvent)", () => {
    assert.deepEqual(of('Events#shipped', 'Events#other', 'EventRelay#ship'), ['Events#shipped():5 kafka ships via EventRelay#ship(ShipEvent)']);
  });

  test('a method calling itself: passing its destination on chooses nothing new; passing another one chooses it', () => {
    assert.deepEqual(of('Retrying'), ['Retrying#order(String):6 kafka orders', 'Retrying#publish(String,String,int):8 kafka dead-letter']);
  });

  test('a class a constructor also fills: the setter writes are producers, and the relay keeps its unknown destination', () => {
    assert.deepEqual(of('Events#audited', 'EventRelay#audit'), [
      'EventRelay#audit(AuditEvent):7 kafka {topic} unresolved (a.getTopic())',
      'Events#audited():7 kafka audit.manual via EventRelay#audit(AuditEvent)',
    ]);
  });
});
