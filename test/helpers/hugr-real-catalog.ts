/**
 * catalog.ts against a REAL Hugr v0.3.41 server: the one the real-Hugr suite starts, with the DuckDB source `shop`
 * (prefix shop, as_module) holding `customers` and `orders` (orders.customer_id → customers.id, declared with
 * @field_references(query: "customer", references_query: "orders")). Exported so that suite can call it; the
 * generations test calls it when SEXTANT_REAL_HUGR_URL names such a server.
 */
import assert from 'node:assert/strict';
import { readCoreCatalog, type Ask } from '../../src/sources/graphql/hugr/catalog.js';

/** A side-query function over `url` with the secret key, like the one the endpoint loader has. */
export function askOf(url: string, secret: string): { ask: Ask; sent: string[] } {
  const sent: string[] = [];
  const ask: Ask = async (query) => {
    sent.push(query);
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-hugr-secret-key': secret }, body: JSON.stringify({ query }) });
    const json = (await res.json()) as { data?: unknown };
    return json.data ? json : undefined;
  };
  return { ask, sent };
}

/** Reads the real server's core.catalog and checks what it must say about `shop` (and Hugr's own catalogs). */
export async function assertRealHugrCatalog(url: string, secret: string): Promise<void> {
  const { ask, sent } = askOf(url, secret);
  const objects = new Map([
    ['shop_customers', { catalog: 'shop', kind: 'table' as const }],
    ['shop_orders', { catalog: 'shop', kind: 'table' as const }],
  ]);
  const facts = await readCoreCatalog(ask, objects);
  assert.ok(facts, 'the real server answered no core.catalog.schema_catalogs');
  assert.deepEqual(facts.warnings, []);
  // Every catalog but Hugr's `_system`, with the server's exact attributes ("" read as absent).
  assert.deepEqual(
    facts.dataSources.find((d) => d.name === 'shop'),
    { name: 'shop', inferred: false, engine: 'duckdb', isExtension: false, prefix: 'shop', asModule: true, readOnly: false },
  );
  assert.ok(!facts.dataSources.some((d) => d.name === '_system'));
  assert.deepEqual(
    facts.dataSources.filter((d) => d.name === 'core' || d.name === 'core.ds').map((d) => [d.name, d.prefix, d.asModule]),
    [
      ['core', 'core', true],
      ['core.ds', undefined, false],
    ],
  );
  // From shop's own SDL: original names, keys, both ends of the relation, Hugr's relation name.
  assert.deepEqual(facts.dataObjects.get('shop_orders'), {
    name: 'shop_orders',
    originalName: 'orders',
    primaryKey: ['id'],
    properties: { isM2M: false, isCube: false, isHypertable: false, softDelete: false },
    relations: [{ name: 'shop_customers_customer_id', direction: 'FORWARD', kind: 'FK', fieldName: 'customer', dataObject: 'shop_customers', sourceKeys: ['customer_id'], destinationKeys: ['id'] }],
  });
  assert.deepEqual(facts.dataObjects.get('shop_customers')?.relations, [
    { name: 'shop_customers_customer_id', direction: 'BACK', kind: 'FK', fieldName: 'orders', dataObject: 'shop_orders', sourceKeys: ['id'], destinationKeys: ['customer_id'] },
  ]);
  // A composite key in column order, from core.catalog.fields (is_pk).
  assert.deepEqual(facts.dataObjects.get('core_role_permissions')?.primaryKey, ['role', 'type_name', 'field_name']);
  // Batched: the catalogs, a page of objects, one chunk of keys, the registered sources, one group of SDL.
  assert.equal(sent.length, 5, sent.join('\n'));
}
