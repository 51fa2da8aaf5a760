/**
 * A real Hugr server (v0.3.41, built from source by ../shared/hugr-server/) for end-to-end tests, with:
 *
 * - a DuckDB data source `shop` (prefix `shop`, as a module) whose tables `customers` and `orders` are described by
 *   a Hugr SDL catalog folder, `orders.customer_id` referencing `customers.id` (query `customer`, back `orders`);
 * - a JWT issuer (RS256 key pair made here) and two roles: `admin` (Hugr's own) and `analyst`, who may not see
 *   `shop_customers.email` (hidden and disabled) nor `shop_customers.tier` (hidden);
 * - the secret key for discovery.
 *
 * Needs what ../shared/hugr-server/README.md lists, plus Python's `duckdb` to write the data file; `.ci/run`
 * installs both. A missing prerequisite fails the test with the command that installs it.
 */
import { execFile } from 'node:child_process';
import { createSign, generateKeyPairSync } from 'node:crypto';
import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { tempDir } from './e2e.js';
import { sharedDir } from './index.js';

const run = promisify(execFile);
const HUGR_DIR = join(sharedDir(), 'hugr-server');
export const REAL_SECRET = 'real-hugr-secret-key';
const ISSUER = 'sextant-test-issuer';

export interface RealHugr {
  /** GraphQL endpoint (`…/query`). */
  url: string;
  /** An RS256 bearer token of the test issuer for a role. */
  tokenFor(role: string, user: string): string;
  /** Sends GraphQL with the secret key (setup only). */
  admin(query: string): Promise<Record<string, any>>;
  /** Appends SDL to the shop catalog and reloads the data source (its catalog version changes). */
  extendShop(sdl: string): Promise<void>;
  close(): Promise<void>;
}

const SHOP_SDL = `"""Customers of the shop."""
type customers @table(name: "customers") {
  id: Int! @pk
  name: String!
  "Contact address"
  email: String
  tier: String
}

"""Orders placed by customers."""
type orders @table(name: "orders") {
  id: Int! @pk
  customer_id: Int! @field_references(references_name: "customers", field: "id", query: "customer", references_query: "orders")
  amount: Float
  status: String
  placed_at: Date
}
`;

const SHOP_DATA = `
import duckdb, sys
c = duckdb.connect(sys.argv[1])
c.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name VARCHAR NOT NULL, email VARCHAR, tier VARCHAR)")
c.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL, amount DOUBLE, status VARCHAR, placed_at DATE)")
c.execute("INSERT INTO customers VALUES (1,'Ada','ada@example.com','gold'),(2,'Brook','brook@example.com','silver'),(3,'Cy',NULL,'gold')")
c.execute("INSERT INTO orders VALUES (10,1,120.5,'shipped','2025-01-02'),(11,1,80,'pending','2025-02-03'),(12,2,15.25,'shipped','2025-02-10')")
c.close()
`;

async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => done(port));
    });
  });
}

async function must<T>(what: string, fix: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`${what} failed (${fix}): ${(e.stderr || e.message).slice(-2000)}`);
  }
}

export async function startRealHugr(): Promise<RealHugr> {
  const install = (await must('building the real Hugr (../shared/hugr-server/build.sh)', 'see ../shared/hugr-server/README.md', () => run('bash', [join(HUGR_DIR, 'build.sh')], { maxBuffer: 64 << 20, timeout: 1_800_000 }))).stdout.trim().split('\n').pop()!;
  const dir = await tempDir('sextant-real-hugr-');
  const schemas = join(dir, 'schemas', 'shop');
  await mkdir(schemas, { recursive: true });
  await writeFile(join(schemas, 'schema.graphql'), SHOP_SDL);
  const dataFile = join(dir, 'shop.duckdb');
  await must('writing the shop DuckDB file with Python', 'install it with `python3 -m pip install duckdb==1.5.4`', () => run('python3', ['-c', SHOP_DATA, dataFile]));

  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString().trim();
  const auth = join(dir, 'auth.yaml');
  await writeFile(auth, ['jwt:', '  test_issuer:', `    issuer: "${ISSUER}"`, '    public-key: |', ...pem.split('\n').map((l) => `      ${l}`), '    claims: {role: "x-hugr-role", user-id: "sub", user-name: "name"}', ''].join('\n'));

  const port = await freePort();
  const pid = Number((await must('starting the real Hugr', `see ${join(dir, 'work', 'server.log')}`, () => run('bash', [join(HUGR_DIR, 'start.sh'), install, join(dir, 'work'), String(port), REAL_SECRET, auth], { timeout: 600_000 }))).stdout.trim().split('\n').pop());
  const url = `http://127.0.0.1:${port}/query`;

  const admin = async (query: string): Promise<Record<string, any>> => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-hugr-secret-key': REAL_SECRET }, body: JSON.stringify({ query }) });
    const json = (await res.json()) as Record<string, any>;
    if (json['errors']) throw new Error(`real Hugr setup: ${JSON.stringify(json['errors'])} for ${query}`);
    return json;
  };
  const loadShop = async (): Promise<void> => {
    const loaded = await admin('mutation { function { core { load_data_source(name: "shop") { success message } } } }');
    if (loaded['data'].function.core.load_data_source.success !== true) throw new Error(`loading shop: ${JSON.stringify(loaded)}`);
  };
  const extendShop = async (sdl: string): Promise<void> => {
    await appendFile(join(schemas, 'schema.graphql'), `\n${sdl}\n`);
    await loadShop();
  };
  const close = async (): Promise<void> => {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      /* already gone */
    }
  };
  try {
    await admin(
      `mutation { core { insert_data_sources(data: { name: "shop", prefix: "shop", type: "duckdb", path: ${JSON.stringify(dataFile)}, as_module: true, description: "The shop's customers and their orders", catalogs: [{ name: "shop", type: "localFS", path: ${JSON.stringify(schemas)} }] }) { name } } }`,
    );
    await loadShop();
    await admin(
      'mutation { core { insert_roles(data: { name: "analyst", description: "reads orders, not contacts", permissions: [' +
        '{ type_name: "shop_customers", field_name: "email", hidden: true, disabled: true }, { type_name: "shop_customers", field_name: "tier", hidden: true, disabled: false }] }) { name } } }',
    );
  } catch (err) {
    await close();
    throw err;
  }

  const tokenFor = (role: string, user: string): string => {
    const b64 = (o: unknown): string => Buffer.from(JSON.stringify(o)).toString('base64url');
    const now = Math.floor(Date.now() / 1000);
    const body = `${b64({ alg: 'RS256', typ: 'JWT' })}.${b64({ iss: ISSUER, sub: user, name: user, 'x-hugr-role': role, iat: now, exp: now + 3600 })}`;
    return `${body}.${createSign('RSA-SHA256').update(body).sign(privateKey).toString('base64url')}`;
  };
  return { url, tokenFor, admin, extendShop, close };
}
