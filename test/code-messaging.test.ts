/**
 * Messaging through the value evaluator, on test/fixtures/messaging (one rule per send or listener):
 * order-service sends to Kafka topics named by an enum getter, by a local read inside a lambda, by a
 * @ConfigurationProperties getter, to a Rabbit exchange with routing keys, through StreamBridge, and publishes
 * Eventuate domain events (an AbstractAggregateDomainEventPublisher subclass) and saga commands (`send(…).to(…)`, a
 * CommandEndpoint in a field initializer);
 * billing-service declares a topic exchange binding, a dead-letter queue with a TTL, and a @QueueBinding listener;
 * kitchen-service has Eventuate event and command handlers; audit-service (Kotlin) has a Stream consumer, a
 * @QueueBinding listener with a topic pattern and sends through an enum property and a template; a Debezium connector
 * registration publishes its tables' changes, which kitchen-service listens to. Exact sets through
 * `sextant call`.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { indexInto, jsonOf, killAll, runCli, tempDir } from './helpers/e2e.js';

const MESSAGING = fileURLToPath(new URL('./fixtures/messaging', import.meta.url));
let storeDir: string;

before(async () => {
  storeDir = await tempDir('sextant-messaging-');
  await indexInto(MESSAGING, storeDir);
});
after(killAll);

async function cli(tool: string, args: Record<string, unknown>): Promise<Record<string, any>> {
  const r = await runCli(['call', tool, JSON.stringify(args), '--store', storeDir]);
  assert.equal(r.code, 0, r.stderr + r.stdout);
  return jsonOf(r);
}

describe('messaging through the evaluator', () => {
  test('every send is a producer with the destination the code reaches it through', async () => {
    const found = await cli('find', { kind: 'producer', limit: 100 });
    const got = found.results
      .map((n: any) => {
        const a = n.attributes;
        const extra = [a.exchange !== undefined ? `exchange=${a.exchange}` : '', a.dead_letter_of ? `dead_letter_of=${a.dead_letter_of} ttl=${a.ttl_ms}` : '', a.resolved ? '' : `unresolved: ${a.unresolved_reason}`].filter(Boolean).join(' ');
        return `${n.qualified_name} [${a.framework}] ${a.caller?.replace(/^com\.acme\./, '') ?? a.connector}${extra ? ` ${extra}` : ''}`;
      })
      .sort();
    assert.deepEqual(got, [
      'audit-service -> kafka audit.archived [spring_kafka] audit.AuditPublisher#archived(Any)',
      'audit-service -> kafka audit.replayed [spring_kafka] audit.AuditPublisher#replayed(Any)',
      'billing-service -> rabbit billing.order-paid.dlq [spring_rabbit] billing.RabbitConfig#paidQueue() exchange=billing.dlx dead_letter_of=billing.order-paid ttl=60000',
      // A saga command endpoint declared in a field initializer: sent from the constructor that runs it.
      'order-service -> eventuate accountingService [eventuate_tram] order.AccountingServiceProxy#<init>()',
      'order-service -> eventuate com.acme.order.Order [eventuate_tram] order.OrderService#createOrder(List)',
      'order-service -> eventuate kitchenService [eventuate_tram] order.CreateOrderSaga#makeCreateTicketCommand(Object)',
      'order-service -> kafka audit.events [spring_cloud_stream] order.OrderEvents#audit(Object)',
      'order-service -> kafka orders.cancelled [spring_kafka] order.OrderEvents#cancelled(Object)',
      'order-service -> kafka orders.created [spring_kafka] order.OrderEvents#created(Object)',
      'order-service -> kafka payments.requested [spring_kafka] order.OrderEvents#paymentRequested(Object)',
      // OrderEvents#unknown(topic, event) sends to its parameter and nothing in the estate calls it: it chooses nothing, so no producer.
      'order-service -> rabbit order.paid [spring_rabbit] order.OrderEvents#paid(Object) exchange=payments',
      'order-service -> rabbit refund.issued [spring_rabbit] order.OrderEvents#refunded(Object) exchange=payments',
      // Change data capture: the Debezium connector debezium/register-orders.json registers, one topic per table.
      'orders-connector -> kafka ordersdb.public.order_lines [debezium] io.debezium.connector.postgresql.PostgresConnector',
      'orders-connector -> kafka ordersdb.public.orders [debezium] io.debezium.connector.postgresql.PostgresConnector',
    ]);
    const fromConfig = found.results.filter((n: any) => n.attributes.value_from).map((n: any) => `${n.name}: ${n.attributes.value_from.join(', ')}`).sort();
    assert.deepEqual(fromConfig, [
      'kafka audit.events: order-service/src/main/resources/application.yml: spring.cloud.stream.bindings.audit-out-0.destination',
      'kafka payments.requested: order-service/src/main/resources/application.yml: app.messaging.payments-topic',
    ]);
  });

  test('listeners: annotations, @QueueBinding (Java and Kotlin), Stream consumers, Eventuate handlers', async () => {
    const found = await cli('find', { kind: 'route', filter: { declared: true }, limit: 100 });
    const got = found.results
      .map((n: any) => {
        const a = n.attributes;
        return `${n.qualified_name} [${a.framework}] ${a.handler.replace(/^com\.acme\./, '')}${a.exchange ? ` exchange=${a.exchange} keys=${a.binding_keys.join('|')}` : ''}`;
      })
      .sort();
    assert.deepEqual(got, [
      'audit-service kafka audit.events [spring_cloud_stream] audit.AuditConsumers#audit()',
      'audit-service rabbit audit.refunds [spring_rabbit] audit.AuditConsumers#onRefund(Any) exchange=payments keys=refund.#',
      'billing-service kafka payments.requested [spring_kafka] billing.BillingListeners#onPaymentRequested(Object)',
      'billing-service rabbit billing.order-paid [spring_rabbit] billing.BillingListeners#onPaid(Object)',
      'billing-service rabbit billing.order-paid.dlq [spring_rabbit] billing.BillingListeners#onDeadLetter(Object) exchange=billing.dlx keys=billing.order-paid.dlq',
      'kitchen-service eventuate com.acme.order.Order [eventuate_tram] kitchen.KitchenEventConsumer#handleOrderCreated(DomainEventEnvelope)',
      'kitchen-service eventuate kitchenService [eventuate_tram] kitchen.KitchenCommandHandler#createTicket(CommandMessage)',
      'kitchen-service kafka orders.cancelled [spring_kafka] kitchen.KitchenEventConsumer#onOrderTopic(Object)',
      'kitchen-service kafka orders.created [spring_kafka] kitchen.KitchenEventConsumer#onOrderTopic(Object)',
      'kitchen-service kafka ordersdb.public.orders [spring_kafka] kitchen.KitchenEventConsumer#onOrderRow(Object)',
    ]);
  });

  test('every producer reaches the listeners its destination, exchange and bindings lead to', async () => {
    const producers = await cli('find', { kind: 'producer', limit: 100 });
    const r = await cli('neighbors', { ids: producers.results.map((n: any) => n.id), direction: 'out', edge_types: ['ASYNC_CALLS'], limit: 500 });
    const byId = new Map(producers.results.map((n: any) => [n.id, n]));
    const got = r.edges.map((e: any) => `${(byId.get(e.from) as any).qualified_name} => ${e.other.qualified_name} (${e.attrs.match}, ${e.attrs.strategy}, ${e.attrs.confidence})`).sort();
    assert.deepEqual(got, [
      'audit-service -> kafka audit.archived => kafka audit.archived (unmatched, destination, 0)',
      'audit-service -> kafka audit.replayed => kafka audit.replayed (unmatched, destination, 0)',
      // The dead-letter flow goes through billing.dlx to the queue bound there.
      'billing-service -> rabbit billing.order-paid.dlq => billing-service rabbit billing.order-paid.dlq (intra_service, exchange_binding, 0.9)',
      'order-service -> eventuate accountingService => eventuate accountingService (unmatched, destination, 0)',
      // A list of events of no stated class: every handler of the aggregate's channel, less surely.
      'order-service -> eventuate com.acme.order.Order => kitchen-service eventuate com.acme.order.Order (cross_service, destination, 0.6)',
      // Eventuate dispatches by class: the saga's CreateTicket command reaches the handler of that class.
      'order-service -> eventuate kitchenService => kitchen-service eventuate kitchenService (cross_service, destination_message_type, 0.9)',
      'order-service -> kafka audit.events => audit-service kafka audit.events (cross_service, destination, 0.9)',
      'order-service -> kafka orders.cancelled => kitchen-service kafka orders.cancelled (cross_service, destination, 0.9)',
      'order-service -> kafka orders.created => kitchen-service kafka orders.created (cross_service, destination, 0.9)',
      'order-service -> kafka payments.requested => billing-service kafka payments.requested (cross_service, destination, 0.9)',
      // order.paid matches the billing binding `order.*` on exchange payments, not audit's `refund.#`.
      'order-service -> rabbit order.paid => billing-service rabbit billing.order-paid (cross_service, exchange_binding, 0.9)',
      'order-service -> rabbit refund.issued => audit-service rabbit audit.refunds (cross_service, exchange_binding, 0.9)',
      'orders-connector -> kafka ordersdb.public.order_lines => kafka ordersdb.public.order_lines (unmatched, destination, 0)',
      'orders-connector -> kafka ordersdb.public.orders => kitchen-service kafka ordersdb.public.orders (cross_service, destination, 0.9)',
    ]);
  });
});
