/**
 * Eventuate Tram as links (src/sources/code/links/eventuate.ts, the Eventuate rows of eval/library.json), on a small
 * estate written here and indexed in process, one rule per test, each asserting the exact set of what it is about:
 *
 * - `@EventuateCommandHandler` / `@EventuateDomainEventHandler` methods are listeners of `eventuate <channel>` (the
 *   annotation's channel, constants resolved), taking the class their `CommandMessage<C>` / `DomainEventEnvelope<E>`
 *   names; a same-named annotation of another package is not one;
 * - `publish(aggregate, event)` on a `DomainEventPublisherForAggregate<A, …>` subtype (an interface extending it, or an
 *   `AbstractDomainEventPublisherForAggregateImpl` subclass) sends on the channel of A's qualified name; a type
 *   variable in A's place states no channel;
 * - dispatch by class: a send reaches only the handlers of a class it can carry (the class created, or the concrete
 *   project classes of the argument's static type); one whose class the estate does not state (a list of events,
 *   `DomainEventPublisher.publish(Aggregate.class, id, events)`) reaches every handler of the channel, less surely;
 * - saga commands (`send(new C(…)).to(channel)`, `forCommand(C.class).withChannel(…)`) reach the handler of C on the
 *   channel, from an annotation or a builder; a command no handler takes reaches none;
 * - an HTTP call to a host of a service the deployment runs without source, named by its own configuration
 *   (`spring.application.name` beside its Dockerfile), is `deployed` to that service.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sextantOntology } from '../src/graph/ontology/index.js';
import { openTestStore } from './helpers/store.js';
import { buildWorkspace } from '../src/indexer/build.js';
import { resolveTarget } from '../src/indexer/target.js';
import type { LinkEntry } from '../src/query/tools/links.js';
import { reportedLinks } from './helpers/estate-links.js';

const O = 'order-service/src/main/java/com/acme/';
const K = 'kitchen-service/src/main/java/com/acme/';

const FILES: Record<string, string> = {
  // ---- order-service: the Order aggregate, its events and publishers, a saga's command sends
  [`${O}order/Order.java`]: 'package com.acme.order;\n\npublic class Order {\n  public Long getId() { return 1L; }\n}\n',
  [`${O}order/OrderEvent.java`]: 'package com.acme.order;\n\nimport io.eventuate.tram.events.common.DomainEvent;\n\npublic interface OrderEvent extends DomainEvent {\n}\n',
  [`${O}order/OrderCreated.java`]: 'package com.acme.order;\n\npublic record OrderCreated(Long id) implements OrderEvent {\n}\n',
  [`${O}order/OrderCancelled.java`]: 'package com.acme.order;\n\npublic class OrderCancelled implements OrderEvent {\n}\n',
  [`${O}order/OrderShipped.java`]: 'package com.acme.order;\n\npublic class OrderShipped implements OrderEvent {\n}\n',
  [`${O}order/OrderEventPublisher.java`]: [
    'package com.acme.order;',
    '',
    'import io.eventuate.tram.events.publisher.DomainEventPublisherForAggregate;',
    '',
    'public interface OrderEventPublisher extends DomainEventPublisherForAggregate<Order, Long, OrderEvent> {',
    '}',
    '',
  ].join('\n'),
  [`${O}order/OrderEventPublisherImpl.java`]: [
    'package com.acme.order;',
    '',
    'import io.eventuate.tram.events.publisher.AbstractDomainEventPublisherForAggregateImpl;',
    'import io.eventuate.tram.events.publisher.DomainEventPublisher;',
    '',
    'public class OrderEventPublisherImpl extends AbstractDomainEventPublisherForAggregateImpl<Order, Long, OrderEvent> implements OrderEventPublisher {',
    '  public OrderEventPublisherImpl(DomainEventPublisher publisher) {',
    '    super(Order.class, Order::getId, publisher, OrderEvent.class);',
    '  }',
    '}',
    '',
  ].join('\n'),
  [`${O}billing/Invoice.java`]: 'package com.acme.billing;\n\npublic class Invoice {\n  public Long getId() { return 1L; }\n}\n',
  [`${O}billing/InvoiceIssued.java`]: 'package com.acme.billing;\n\nimport io.eventuate.tram.events.common.DomainEvent;\n\npublic class InvoiceIssued implements DomainEvent {\n}\n',
  [`${O}billing/InvoicePublisher.java`]: [
    'package com.acme.billing;',
    '',
    'import io.eventuate.tram.events.common.DomainEvent;',
    'import io.eventuate.tram.events.publisher.AbstractDomainEventPublisherForAggregateImpl;',
    'import io.eventuate.tram.events.publisher.DomainEventPublisher;',
    '',
    'public class InvoicePublisher extends AbstractDomainEventPublisherForAggregateImpl<Invoice, Long, DomainEvent> {',
    '  public InvoicePublisher(DomainEventPublisher publisher) {',
    '    super(Invoice.class, Invoice::getId, publisher, DomainEvent.class);',
    '  }',
    '}',
    '',
  ].join('\n'),
  [`${O}billing/BasePublisher.java`]: [
    'package com.acme.billing;',
    '',
    'import io.eventuate.tram.events.common.DomainEvent;',
    'import io.eventuate.tram.events.publisher.AbstractDomainEventPublisherForAggregateImpl;',
    'import io.eventuate.tram.events.publisher.DomainEventPublisher;',
    '',
    'public abstract class BasePublisher<A> extends AbstractDomainEventPublisherForAggregateImpl<A, Long, DomainEvent> {',
    '  protected BasePublisher(Class<A> type, DomainEventPublisher publisher) {',
    '    super(type, a -> 1L, publisher, DomainEvent.class);',
    '  }',
    '}',
    '',
  ].join('\n'),
  [`${O}billing/GenericInvoicePublisher.java`]: [
    'package com.acme.billing;',
    '',
    'import io.eventuate.tram.events.publisher.DomainEventPublisher;',
    '',
    'public class GenericInvoicePublisher extends BasePublisher<Invoice> {',
    '  public GenericInvoicePublisher(DomainEventPublisher publisher) {',
    '    super(Invoice.class, publisher);',
    '  }',
    '}',
    '',
  ].join('\n'),
  [`${O}order/OrderService.java`]: [
    'package com.acme.order;',
    '',
    'import com.acme.billing.GenericInvoicePublisher;',
    'import com.acme.billing.Invoice;',
    'import com.acme.billing.InvoiceIssued;',
    'import com.acme.billing.InvoicePublisher;',
    'import io.eventuate.tram.events.publisher.DomainEventPublisher;',
    'import java.util.Collections;',
    'import java.util.List;',
    '',
    'public class OrderService {',
    '  private final OrderEventPublisher orderEventPublisher;',
    '  private final InvoicePublisher invoicePublisher;',
    '  private final GenericInvoicePublisher genericInvoicePublisher;',
    '  private final DomainEventPublisher domainEventPublisher;',
    '',
    '  public OrderService(OrderEventPublisher o, InvoicePublisher i, GenericInvoicePublisher g, DomainEventPublisher d) {',
    '    this.orderEventPublisher = o;',
    '    this.invoicePublisher = i;',
    '    this.genericInvoicePublisher = g;',
    '    this.domainEventPublisher = d;',
    '  }',
    '',
    '  public void create(Order order) {',
    '    orderEventPublisher.publish(order, new OrderCreated(order.getId()));',
    '  }',
    '',
    '  public void change(Order order, OrderEvent event) {',
    '    orderEventPublisher.publish(order, event);',
    '  }',
    '',
    '  public void replay(Order order, List<OrderEvent> events) {',
    '    orderEventPublisher.publish(order, events);',
    '  }',
    '',
    '  public void raw(Order order) {',
    '    domainEventPublisher.publish(Order.class, order.getId(), Collections.singletonList(new OrderCreated(1L)));',
    '  }',
    '',
    '  public void invoice(Invoice invoice) {',
    '    invoicePublisher.publish(invoice, new InvoiceIssued());',
    '  }',
    '',
    '  public void invoiceGeneric(Invoice invoice) {',
    '    genericInvoicePublisher.publish(invoice, new InvoiceIssued());',
    '  }',
    '}',
    '',
  ].join('\n'),
  // Command classes: the saga's copies, with the qualified names the kitchen dispatches on.
  [`${O}kitchen/api/CreateTicket.java`]: 'package com.acme.kitchen.api;\n\npublic record CreateTicket(Long orderId) {\n}\n',
  [`${O}kitchen/api/CancelTicket.java`]: 'package com.acme.kitchen.api;\n\npublic record CancelTicket(Long orderId) {\n}\n',
  [`${O}kitchen/api/ApproveTicket.java`]: 'package com.acme.kitchen.api;\n\npublic record ApproveTicket(Long orderId) {\n}\n',
  [`${O}order/saga/KitchenProxy.java`]: [
    'package com.acme.order.saga;',
    '',
    'import com.acme.kitchen.api.ApproveTicket;',
    'import com.acme.kitchen.api.CancelTicket;',
    'import com.acme.kitchen.api.CreateTicket;',
    'import io.eventuate.tram.commands.consumer.CommandWithDestination;',
    'import io.eventuate.tram.commands.consumer.CommandWithDestinationBuilder;',
    'import io.eventuate.tram.sagas.simpledsl.CommandEndpoint;',
    'import io.eventuate.tram.sagas.simpledsl.CommandEndpointBuilder;',
    '',
    'public class KitchenProxy {',
    '  public static final String CHANNEL = "kitchenService";',
    '',
    '  public final CommandEndpoint<ApproveTicket> approve = CommandEndpointBuilder',
    '      .forCommand(ApproveTicket.class)',
    '      .withChannel(CHANNEL)',
    '      .withReply(Object.class)',
    '      .build();',
    '',
    '  public CommandWithDestination create(Long orderId) {',
    '    return CommandWithDestinationBuilder.send(new CreateTicket(orderId))',
    '        .to(CHANNEL)',
    '        .build();',
    '  }',
    '',
    '  public CommandWithDestination cancel(Long orderId) {',
    '    return CommandWithDestinationBuilder.send(new CancelTicket(orderId))',
    '        .to(CHANNEL)',
    '        .build();',
    '  }',
    '}',
    '',
  ].join('\n'),
  [`${O}order/auth/TokenClient.java`]: [
    'package com.acme.order.auth;',
    '',
    'import org.springframework.web.client.RestTemplate;',
    '',
    'public class TokenClient {',
    '  private final RestTemplate restTemplate = new RestTemplate();',
    '',
    '  public String token() {',
    '    return restTemplate.postForObject("http://acme-auth:9000/oauth2/token", null, String.class);',
    '  }',
    '}',
    '',
  ].join('\n'),
  // ---- kitchen-service: handlers by annotation and by builder, with copies of the classes it takes
  [`${K}kitchen/api/CreateTicket.java`]: 'package com.acme.kitchen.api;\n\npublic record CreateTicket(Long orderId) {\n}\n',
  [`${K}kitchen/api/ApproveTicket.java`]: 'package com.acme.kitchen.api;\n\npublic record ApproveTicket(Long orderId) {\n}\n',
  [`${K}order/OrderCreated.java`]: 'package com.acme.order;\n\npublic record OrderCreated(Long id) {\n}\n',
  [`${K}order/OrderCancelled.java`]: 'package com.acme.order;\n\npublic class OrderCancelled {\n}\n',
  [`${K}billing/InvoiceIssued.java`]: 'package com.acme.billing;\n\npublic class InvoiceIssued {\n}\n',
  [`${K}kitchen/KitchenChannels.java`]: 'package com.acme.kitchen;\n\npublic final class KitchenChannels {\n  public static final String COMMANDS = "kitchenService";\n  public static final String ORDERS = "com.acme.order.Order";\n}\n',
  [`${K}kitchen/KitchenCommandHandler.java`]: [
    'package com.acme.kitchen;',
    '',
    'import com.acme.kitchen.api.CreateTicket;',
    'import io.eventuate.tram.commands.consumer.CommandMessage;',
    'import io.eventuate.tram.commands.consumer.annotations.EventuateCommandHandler;',
    '',
    'public class KitchenCommandHandler {',
    '  @EventuateCommandHandler(subscriberId = "kitchenCommandDispatcher", channel = KitchenChannels.COMMANDS)',
    '  public Object createTicket(CommandMessage<CreateTicket> cm) {',
    '    return null;',
    '  }',
    '}',
    '',
  ].join('\n'),
  [`${K}kitchen/KitchenSagaHandlers.java`]: [
    'package com.acme.kitchen;',
    '',
    'import com.acme.kitchen.api.ApproveTicket;',
    'import io.eventuate.tram.commands.consumer.CommandHandlers;',
    'import io.eventuate.tram.commands.consumer.CommandMessage;',
    'import io.eventuate.tram.sagas.participant.SagaCommandHandlersBuilder;',
    '',
    'public class KitchenSagaHandlers {',
    '  public CommandHandlers commandHandlers() {',
    '    return SagaCommandHandlersBuilder',
    '        .fromChannel("kitchenService")',
    '        .onMessage(ApproveTicket.class, this::approve)',
    '        .build();',
    '  }',
    '',
    '  public Object approve(CommandMessage<ApproveTicket> cm) {',
    '    return null;',
    '  }',
    '}',
    '',
  ].join('\n'),
  [`${K}kitchen/OrderEventConsumer.java`]: [
    'package com.acme.kitchen;',
    '',
    'import com.acme.billing.InvoiceIssued;',
    'import com.acme.order.OrderCancelled;',
    'import com.acme.order.OrderCreated;',
    'import io.eventuate.tram.events.subscriber.DomainEventEnvelope;',
    'import io.eventuate.tram.events.subscriber.annotations.EventuateDomainEventHandler;',
    '',
    'public class OrderEventConsumer {',
    '  @EventuateDomainEventHandler(subscriberId = "kitchenEvents", channel = KitchenChannels.ORDERS)',
    '  public void onCreated(DomainEventEnvelope<OrderCreated> envelope) {',
    '  }',
    '',
    '  @EventuateDomainEventHandler(subscriberId = "kitchenEvents", channel = "com.acme.order.Order")',
    '  public void onCancelled(DomainEventEnvelope<OrderCancelled> envelope) {',
    '  }',
    '',
    '  @EventuateDomainEventHandler(subscriberId = "kitchenEvents", channel = "com.acme.billing.Invoice")',
    '  public void onInvoiced(DomainEventEnvelope<InvoiceIssued> envelope) {',
    '  }',
    '}',
    '',
  ].join('\n'),
  // A project annotation that shares the library annotation's simple name declares no listener.
  [`${K}kitchen/legacy/EventuateDomainEventHandler.java`]: 'package com.acme.kitchen.legacy;\n\npublic @interface EventuateDomainEventHandler {\n  String subscriberId();\n  String channel();\n}\n',
  [`${K}kitchen/legacy/LegacyConsumer.java`]: [
    'package com.acme.kitchen.legacy;',
    '',
    'public class LegacyConsumer {',
    '  @EventuateDomainEventHandler(subscriberId = "legacy", channel = "com.acme.order.Order")',
    '  public void onAnything(Object event) {',
    '  }',
    '}',
    '',
  ].join('\n'),
  // ---- the deployment: an authorization server built from a Dockerfile and its own configuration, no source
  'auth/Dockerfile': 'FROM eclipse-temurin:21\nCOPY application.yml /app/application.yml\n',
  'auth/application.yml': 'spring:\n  application:\n    name: auth-service\nserver:\n  port: 9000\n',
  'docker-compose.yml': [
    'services:',
    '  acme-auth:',
    '    build:',
    '      context: ./auth',
    '    ports:',
    '      - "9000:9000"',
    '  order-service:',
    '    build:',
    '      context: ./order-service',
    '  kitchen-service:',
    '    build:',
    '      context: ./kitchen-service',
    '',
  ].join('\n'),
};

let root = '';
let links: LinkEntry[] = [];

before(async () => {
  root = mkdtempSync(join(tmpdir(), 'sextant-eventuate-'));
  const estate = join(root, 'estate');
  for (const [path, text] of Object.entries(FILES)) {
    mkdirSync(dirname(join(estate, path)), { recursive: true });
    writeFileSync(join(estate, path), text);
  }
  const ontology = sextantOntology();
  const storeDir = join(root, 'store');
  const writer = await openTestStore(ontology, storeDir, { mode: 'write' });
  const { config } = await resolveTarget(estate);
  await buildWorkspace(writer, ontology, config);
  await writer.close();
  const store = await openTestStore(ontology, storeDir, { mode: 'read' });
  links = await reportedLinks({ store, ontology });
  await store.close();
});

after(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

const short = (qn: string | undefined): string => (qn ?? '').replace(/^.*\.([\w$]+#[\w<>]+).*$/, '$1');

/** Listeners as `service Type#handler: protocol destination`. */
function listeners(filter: (l: LinkEntry) => boolean = () => true): string[] {
  return links
    .filter((l) => l.kind === 'listener' && filter(l))
    .map((l) => `${l.service} ${short(l.member)}: ${l.status} ${l.protocol} ${l.destination}`)
    .sort();
}

/** Sends of one calling type as `Type#method: status protocol destination -> service Type#handler [strategy confidence]`. */
function sends(type: string): string[] {
  return links
    .filter((l) => l.kind === 'message' && short(l.member).startsWith(`${type}#`))
    .map((l) => `${short(l.member)}: ${l.status} ${l.protocol} ${l.destination}${l.targets.length ? ' ->' : ''}${l.targets.map((t) => ` ${t.service} ${short(t.handler)} [${t.strategy} ${t.confidence}]`).sort().join(',')}${l.reason ? ` (${l.reason})` : ''}`)
    .sort();
}

describe('Eventuate Tram links', () => {
  test('@EventuateCommandHandler and @EventuateDomainEventHandler methods are listeners of their channel (constants resolved); a same-named annotation of another package is not', () => {
    assert.deepEqual(listeners((l) => l.service === 'kitchen-service'), [
      'kitchen-service KitchenCommandHandler#createTicket: resolved eventuate kitchenService',
      // Declared by a builder (SagaCommandHandlersBuilder), for comparison: the same protocol and channel.
      'kitchen-service KitchenSagaHandlers#approve: resolved eventuate kitchenService',
      'kitchen-service OrderEventConsumer#onCancelled: resolved eventuate com.acme.order.Order',
      'kitchen-service OrderEventConsumer#onCreated: resolved eventuate com.acme.order.Order',
      'kitchen-service OrderEventConsumer#onInvoiced: resolved eventuate com.acme.billing.Invoice',
    ]);
  });

  test('publish(aggregate, new Event(…)) on a DomainEventPublisherForAggregate subinterface: the aggregate class\'s channel, the handler of that event class only', () => {
    assert.deepEqual(sends('OrderService').filter((s) => s.startsWith('OrderService#create:')), [
      'OrderService#create: linked eventuate com.acme.order.Order -> kitchen-service OrderEventConsumer#onCreated [destination_message_type 0.9]',
    ]);
  });

  test('an event of an interface type: the handlers of its concrete project classes (none takes OrderShipped)', () => {
    assert.deepEqual(sends('OrderService').filter((s) => s.startsWith('OrderService#change:')), [
      'OrderService#change: linked eventuate com.acme.order.Order -> kitchen-service OrderEventConsumer#onCancelled [destination_message_type 0.9], kitchen-service OrderEventConsumer#onCreated [destination_message_type 0.9]',
    ]);
  });

  test('a send whose event class the estate does not state (a list; DomainEventPublisher.publish(Order.class, id, events)) reaches every handler of the channel, less surely', () => {
    assert.deepEqual(sends('OrderService').filter((s) => /^OrderService#(replay|raw):/.test(s)), [
      'OrderService#raw: linked eventuate com.acme.order.Order -> kitchen-service OrderEventConsumer#onCancelled [destination 0.6], kitchen-service OrderEventConsumer#onCreated [destination 0.6]',
      'OrderService#replay: linked eventuate com.acme.order.Order -> kitchen-service OrderEventConsumer#onCancelled [destination 0.6], kitchen-service OrderEventConsumer#onCreated [destination 0.6]',
    ]);
  });

  test('an AbstractDomainEventPublisherForAggregateImpl subclass injected as such: its aggregate class\'s channel; a type variable in the aggregate\'s place states none', () => {
    assert.deepEqual(sends('OrderService').filter((s) => /^OrderService#invoice/.test(s)), [
      'OrderService#invoice: linked eventuate com.acme.billing.Invoice -> kitchen-service OrderEventConsumer#onInvoiced [destination_message_type 0.9]',
      "OrderService#invoiceGeneric: unresolved eventuate {value} (the destination depends on type argument 1 of the library type publish is called on, which the receiver's type does not state)",
    ]);
  });

  test('saga commands reach the handler of their class on the channel (annotation or builder); a command no handler takes reaches none', () => {
    assert.deepEqual(sends('KitchenProxy'), [
      // The command endpoint is a field initializer: it is sent from the constructor that runs it.
      'KitchenProxy#<init>: linked eventuate kitchenService -> kitchen-service KitchenSagaHandlers#approve [destination_message_type 0.9]',
      'KitchenProxy#cancel: no_consumer eventuate kitchenService',
      'KitchenProxy#create: linked eventuate kitchenService -> kitchen-service KitchenCommandHandler#createTicket [destination_message_type 0.9]',
    ]);
  });

  test('an HTTP call to the host of a service the deployment runs without source, named by its own configuration, is deployed there', () => {
    const http = links.filter((l) => l.kind === 'http').map((l) => `${short(l.member)}: ${l.status} ${l.targets.map((t) => `${t.service} ${t.method} ${t.path}`).join(', ')}`);
    assert.deepEqual(http, ['TokenClient#token: deployed auth-service POST /oauth2/token']);
  });
});
