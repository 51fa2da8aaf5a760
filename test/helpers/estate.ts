import { mkdirSync, mkdtempSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CodeSourceConfig } from '../../src/config/types.js';
import { sextantOntology } from '../../src/graph/ontology/index.js';
import { buildCodeSource } from '../../src/sources/code/index.js';
import { buildWorkspace, type BuildReport } from '../../src/indexer/build.js';
import { openTestStore } from './store.js';

/** The multi-service estate fixture (see its EXPECTED.md). */
export const ESTATE = fileURLToPath(new URL('../fixtures/estate', import.meta.url));

export function estateSource(path = ESTATE): CodeSourceConfig {
  return { kind: 'code', name: 'estate', path, include_tests: false, exclude: [], roles: { annotations: {}, types: {} }, capabilities: { annotations: {}, types: {} }, links: { clients: {}, destinations: {} } };
}

/** Writes a small estate (relative path → text) to a new temporary directory, which the caller removes. */
export function writeEstate(files: Readonly<Record<string, string>>, prefix = 'sextant-estate-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

/** Sets the times of every file and directory under `dir`, deepest first (a directory's own time last). */
export function ageTree(dir: string, seconds: number): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) ageTree(path, seconds);
    else utimesSync(path, seconds, seconds);
  }
  utimesSync(dir, seconds, seconds);
}

/**
 * A source file's text with one method added: a top-level function in Kotlin, a method before the class's last brace
 * in Java (undefined when there is none).
 */
export function withProbeMethod(text: string, kotlin: boolean, name: string): string | undefined {
  if (kotlin) return `${text}\nfun ${name}(): Int = 1\n`;
  const end = text.lastIndexOf('}');
  return end < 0 ? undefined : `${text.slice(0, end)}\n    public int ${name}() {\n        return 1;\n    }\n${text.slice(end)}`;
}

/** Indexes the code of a directory on this thread (no parse workers). */
export function buildEstate(dir: string): ReturnType<typeof buildCodeSource> {
  return buildCodeSource(estateSource(dir), { ontology: sextantOntology(), baseDir: dir, env: { SEXTANT_PARSE_WORKERS: '0' } });
}

/**
 * Indexes a code tree as one source (`estate`, or `name`) into the store under test at `storeDir`, with a cache
 * directory when given (a one-shot re-index), on this thread unless `env` says otherwise.
 */
export async function indexTree(root: string, storeDir: string, opts: { cacheDir?: string; name?: string; env?: Readonly<Record<string, string | undefined>> } = {}): Promise<BuildReport> {
  const ontology = sextantOntology();
  const store = await openTestStore(ontology, storeDir, { mode: 'write' });
  try {
    const source = { ...estateSource(root), ...(opts.name ? { name: opts.name } : {}) };
    return await buildWorkspace(store, ontology, { dir: root, sources: [source] }, {}, opts.env ?? { SEXTANT_PARSE_WORKERS: '0' }, opts.cacheDir ? { cacheDir: opts.cacheDir } : {});
  } finally {
    await store.close();
  }
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
        // A handler's routes are affected with it, at its depth (and, across services, what calls them: nothing here).
        2: sorted([`${O}service.OrderService#openTotal()`, `${O}web.OrderController#listOpen()`, `${O}jobs.OrderCleanupJob$1#run()`, `${O}jobs.OrderCleanupJob#nightly()`, 'order-service GET /orders/open']),
        3: sorted([`${O}web.OrderController#openTotal()`, 'order-service GET /orders/open/total']),
      },
    },
  ],
  [
    `${O}api.OrderDto#total()`,
    {
      'order-service': {
        1: sorted([`${O}service.OrderService#quote(OrderDto)`, `${O}payment.InvoicePaymentHandler#handle(OrderDto)`, `${O}pricing.DiscountPricer#price(OrderDto)`, `${O}jobs.OrderCleanupJob$2#price(OrderDto)`]),
        // Across services, one hop from the billing listener's topic (depth 1): the producer sending to it and the
        // method declaring that producer. PaymentHandler's callers call the interface, which runs InvoicePaymentHandler's.
        2: sorted([
          `${O}pricing.SeasonalPricer#price(OrderDto)`,
          `${O}api.PaymentHandler#handle(OrderDto,int)`,
          `${O}service.OrderService#place(CreateOrderRequest,String)`,
          'order-service -> kafka orders.events',
          `${O}messaging.OrderEventsPublisher#publishPaid(OrderDto)`,
        ]),
        3: sorted([`${O}payment.PaymentRouter#payWithRetry(OrderDto,int)`, `${O}service.OrderService#place(CreateOrderRequest)`]),
        4: sorted([`${O}web.OrderController#createOrder(CreateOrderRequest)`, 'order-service POST /orders']),
      },
      'billing-service': { 1: sorted([`${B}web.OrderEventsConsumer#onOrderPaid(OrderDto)`, 'billing-service kafka orders.events']) },
    },
  ],
];

