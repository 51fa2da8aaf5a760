import { fileURLToPath } from 'node:url';
import type { CodeSourceConfig } from '../../src/config/types.js';

/** The multi-service estate fixture (see its EXPECTED.md). */
export const ESTATE = fileURLToPath(new URL('../fixtures/estate', import.meta.url));

export function estateSource(path = ESTATE): CodeSourceConfig {
  return { kind: 'code', name: 'estate', path, include_tests: false, exclude: [], roles: { annotations: {}, types: {} }, capabilities: { annotations: {}, types: {} }, links: { clients: {}, destinations: {} } };
}

const O = 'com.acme.orders.';
const B = 'com.acme.billing.';
const sorted = (xs: string[]) => [...xs].sort();

/** `{service: {depth: [qualified names]}}` from an impact answer. */
export function impactSets(answer: any): Record<string, Record<number, string[]>> {
  const out: Record<string, Record<number, string[]>> = {};
  for (const g of answer.groups) ((out[g.service] ??= {})[g.depth] = g.nodes.map((n: any) => n.qualified_name).sort());
  return out;
}

export const IMPACT_CASES: [string, Record<string, Record<number, string[]>>][] = [
  [
    `${O}repo.OrderRepository#findByStatus(OrderStatus)`,
    {
      'order-service': {
        1: sorted([`${O}service.OrderService#findOpen()`, `${O}jobs.OrderCleanupJob#sweep(Duration)`]),
        2: sorted([`${O}service.OrderService#openTotal()`, `${O}web.OrderController#listOpen()`, `${O}jobs.OrderCleanupJob$1#run()`, `${O}jobs.OrderCleanupJob#nightly()`]),
        3: [`${O}web.OrderController#openTotal()`],
      },
    },
  ],
  [
    `${O}api.OrderDto#total()`,
    {
      'order-service': {
        1: sorted([`${O}service.OrderService#quote(OrderDto)`, `${O}payment.InvoicePaymentHandler#handle(OrderDto)`, `${O}pricing.DiscountPricer#price(OrderDto)`, `${O}jobs.OrderCleanupJob$2#price(OrderDto)`]),
        2: [`${O}pricing.SeasonalPricer#price(OrderDto)`],
      },
      'billing-service': { 1: [`${B}web.OrderEventsConsumer#onOrderPaid(OrderDto)`] },
    },
  ],
];

