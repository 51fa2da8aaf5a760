import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sharedDir } from '../helpers/index.js';
import type { Row } from './data.js';
import { startHugrTestServer, type HugrTestServer, type HugrTestServerOptions } from './server.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const HUGR = path.join(sharedDir(), 'fixtures/hugr');

export const SECRET = 'svc-secret-3c1f9e';
export const ANALYST_TOKEN = 'user-token-analyst-77a2';
export const ADMIN_TOKEN = 'user-token-admin-5d0b';

/** The SDL of the harness platform as a server would load it: our scalar types, Hugr's base SDL, the golden file. */
export const HARNESS_FILES = [
  path.join(ROOT, 'test/fixtures/hugr/scalars.graphql'),
  ...['base.graphql', 'system_types.graphql', 'gis.graphql', 'query_directives.graphql'].map((f) => path.join(HUGR, 'base', f)),
  path.join(HUGR, 'golden/harness.graphql'),
];

export const HARNESS_ROWS: Record<string, Row[]> = {
  customers: [
    { id: 1, name: 'Ada' },
    { id: 2, name: 'Grace' },
    { id: 3, name: 'Linus' },
  ],
  orders: [
    { id: 10, customer_id: 1, amount: 120.5, total_with_tax: 132.55, created_at: '2026-01-05T10:00:00Z' },
    { id: 11, customer_id: 1, amount: 40, total_with_tax: 44, created_at: '2026-01-06T10:00:00Z' },
    { id: 12, customer_id: 2, amount: 75.25, total_with_tax: 82.78, created_at: '2026-02-01T09:30:00Z' },
    { id: 13, customer_id: 3, amount: 10, total_with_tax: 11, created_at: '2026-02-03T12:00:00Z' },
    { id: 14, customer_id: 1, amount: 300, total_with_tax: 330, created_at: '2026-03-01T08:00:00Z' },
  ],
  tags: [{ name: 'gift' }, { name: 'priority' }],
  sales_by_country: [
    { country: 'DE', total: 1200 },
    { country: 'FR', total: 800 },
  ],
};

/** The harness platform: `analyst` may not see customer names nor orders' total with tax; the secret is the service's (admin). */
export function startHarnessServer(over: Partial<HugrTestServerOptions> = {}): Promise<HugrTestServer> {
  return startHugrTestServer({
    files: HARNESS_FILES,
    rows: HARNESS_ROWS,
    secret: SECRET,
    tokens: { [ANALYST_TOKEN]: 'analyst', [ADMIN_TOKEN]: 'admin' },
    hidden: { analyst: ['customers.name', 'orders.total_with_tax'] },
    dataSources: [{ name: 'test', engine: 'duckdb', description: 'The harness test source', readOnly: false, asModule: false, isExtension: false }],
    ...over,
  });
}
