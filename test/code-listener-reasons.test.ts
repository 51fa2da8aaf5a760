/**
 * A listener whose destination the estate does not state says why, as clients and producers do, on a small estate
 * written here and indexed on this thread: an annotation's placeholder no file sets names its configuration key; a
 * listener registered through a library builder (an Azure Service Bus processor) names the hole its queue stops at.
 * The links report groups them by that key instead of "unknown".
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { NodeRecord } from '../src/graph/types.js';
import { buildEstate, writeEstate } from './helpers/estate.js';

let dir = '';
let nodes: readonly NodeRecord[] = [];

const J = 'src/main/java/p/';

before(async () => {
  dir = writeEstate(
    {
      'intake/build.gradle.kts': 'plugins { id("org.springframework.boot") }\n',
      'intake/src/main/resources/application.yml': 'spring.application.name: intake\nqueues:\n  envelopes: ${ENVELOPES_QUEUE}\n',
      [`intake/${J}App.java`]: 'package p;\n@org.springframework.boot.autoconfigure.SpringBootApplication\npublic class App {}\n',
      [`intake/${J}OrdersListener.java`]: `package p;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;
@Component
public class OrdersListener {
  @KafkaListener(topics = "\${orders.topic}")
  public void onOrder(String payload) {}

  @KafkaListener(topics = "orders.audit")
  public void onAudit(String payload) {}
}
`,
      [`intake/${J}Envelopes.java`]: `package p;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusProcessorClient;
import com.azure.messaging.servicebus.ServiceBusReceivedMessageContext;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
@Configuration
public class Envelopes {
  @Bean
  public ServiceBusProcessorClient envelopesProcessor(@Value("\${queues.envelopes}") String queue, EnvelopeHandler handler) {
    return new ServiceBusClientBuilder()
      .processor()
      .queueName(queue)
      .processMessage(handler::process)
      .processError(c -> {})
      .buildProcessorClient();
  }
}
`,
      [`intake/${J}EnvelopeHandler.java`]: `package p;
import com.azure.messaging.servicebus.ServiceBusReceivedMessageContext;
import org.springframework.stereotype.Component;
@Component
public class EnvelopeHandler {
  public void process(ServiceBusReceivedMessageContext context) {}
}
`,
    },
    'sextant-listener-reasons-',
  );
  nodes = (await buildEstate(dir)).nodes;
});
after(() => rmSync(dir, { recursive: true, force: true }));

function listener(handler: string): NodeRecord {
  const found = nodes.filter((n) => n.kind === 'route' && String(n.props.handler).endsWith(`#${handler}`) || (n.kind === 'route' && String(n.props.handler).includes(`#${handler}(`)));
  assert.equal(found.length, 1, `one listener for ${handler}: ${found.map((n) => n.qualified_name).join(', ')}`);
  return found[0]!;
}

describe('why a listener destination is unknown', () => {
  test('an annotation placeholder no file sets: its configuration key', () => {
    const n = listener('onOrder');
    assert.equal(n.props.resolved, false);
    assert.equal(n.props.unresolved_kind, 'configuration');
    assert.equal(n.props.unresolved_at, 'orders.topic');
    assert.match(String(n.props.unresolved_reason), /orders\.topic/);
    const known = listener('onAudit');
    assert.equal(known.props.resolved, true);
    assert.equal(known.props.unresolved_reason, undefined);
  });

  test('a processor a library builder registers: the key its queue stops at', () => {
    const n = listener('process');
    assert.equal(n.props.protocol, 'servicebus');
    assert.equal(n.props.resolved, false);
    assert.ok(n.props.unresolved_kind, `a kind: ${JSON.stringify(n.props)}`);
    assert.match(String(n.props.unresolved_reason), /ENVELOPES_QUEUE/);
  });
});
