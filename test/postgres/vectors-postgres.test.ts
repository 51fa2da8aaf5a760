/**
 * Vector search on PostgreSQL answers as on SQLite: through pgvector's HNSW index where the extension serves the
 * database (CI installs it: ../shared/pgvector), exactly in the process where it does not (a role that may not
 * create extensions). The graph is a real estate's (spring-petclinic-microservices); the vectors are made here,
 * deterministically from each node's embedding text, so the three stores hold the very same vectors and no model is
 * needed (test/semantic.test.ts runs the real one).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { EMBEDDED_KINDS, embedHash, embedTextOf } from '../../src/graph/embed-docs.js';
import { sextantOntology } from '../../src/graph/ontology/index.js';
import { openStore } from '../../src/graph/open.js';
import type { Predicate, Store, VectorHit } from '../../src/graph/store.js';
import { buildWorkspace } from '../../src/indexer/build.js';
import { resolveTarget } from '../../src/indexer/target.js';
import { normalized } from '../../src/search/embeddings.js';
import { sharedDir } from '../helpers/index.js';
import { adminQuery, databaseUrl, newTestDatabase } from '../helpers/store.js';

const ontology = sextantOntology();
const PETCLINIC = join(sharedDir(), 'corpora', 'spring-petclinic-microservices');
const DIMS = 24;
const MODEL = 'test-model';

/** A unit vector drawn from a seed: the same seed, the same vector, on every store. */
function vectorOf(seed: string): Float32Array {
  const v = new Float32Array(DIMS);
  for (let i = 0; i < DIMS; i++) {
    const h = createHash('sha256').update(`${seed}#${i}`).digest();
    v[i] = h.readInt32LE(0) / 2 ** 31;
  }
  return normalized(v);
}

const stores: Record<'sqlite' | 'hnsw' | 'exact', Store> = {} as never;

before(async () => {
  const { config } = await resolveTarget(PETCLINIC);
  const role = { name: `sx_owner_${Date.now().toString(36)}`, password: 'owner-pw-4d1e' };
  await adminQuery(`CREATE ROLE ${role.name} LOGIN PASSWORD '${role.password}'`);
  const ownedName = `sx_vec_${Date.now().toString(36)}`;
  await adminQuery(`CREATE DATABASE ${ownedName} OWNER ${role.name}`);
  const locations = { sqlite: mkdtempSync(join(tmpdir(), 'sextant-vectors-')), hnsw: await newTestDatabase(), exact: databaseUrl(ownedName, role) };
  for (const [name, location] of Object.entries(locations) as [keyof typeof stores, string][]) {
    const w = await openStore(ontology, location, 'write');
    await buildWorkspace(w, ontology, config, {}, { ...process.env, SEXTANT_PARSE_WORKERS: '0' });
    const assign: { id: string; hash: string }[] = [];
    const vectors = new Map<string, Float32Array>();
    for (const kind of EMBEDDED_KINDS) {
      const { nodes } = await w.findNodes({ kinds: [kind], predicates: [], limit: 100_000, offset: 0 });
      for (const n of nodes) {
        const text = embedTextOf(n);
        if (!text) continue;
        const hash = embedHash(text);
        assign.push({ id: n.id, hash });
        vectors.set(hash, vectorOf(hash));
      }
    }
    await w.writeVectors({
      model: MODEL,
      vectors: [...vectors].map(([hash, vector]) => ({ hash, vector })),
      assign,
      space: { model: MODEL, dimensions: DIMS, endpoint: 'http://127.0.0.1:1/v1/embeddings', updated_at: '2026-01-01T00:00:00Z', embedded: assign.length, missing: 0 },
      prune: true,
    });
    await w.close();
    stores[name] = await openStore(ontology, location, 'read');
  }
});

after(async () => {
  for (const s of Object.values(stores)) await s?.close();
});

const shown = (hits: VectorHit[]) => hits.map((h) => `${h.node.id} ${h.similarity.toFixed(5)}`);

describe('vector search on PostgreSQL', { timeout: 180_000 }, () => {
  test('pgvector serves a database where it is installed; a role that may not install it gets exact search', async () => {
    assert.equal((await stores.hnsw.embeddingSpace())?.index, 'hnsw');
    assert.equal((await stores.exact.embeddingSpace())?.index, undefined);
    assert.equal((await stores.sqlite.embeddingSpace())?.index, undefined);
  });

  test('the nearest nodes are the same on SQLite, PostgreSQL with HNSW and PostgreSQL without it, filters applied first', async () => {
    const filters: { kinds?: string[]; predicates?: Predicate[] }[] = [
      {},
      { kinds: ['route'] },
      { kinds: ['symbol'], predicates: [{ property: 'service', op: 'in', values: ['customers-service'] }] },
      { kinds: ['symbol'], predicates: [{ property: 'symbol_kind', op: 'in', values: ['interface'] }] },
    ];
    let compared = 0;
    for (let i = 0; i < 12; i++) {
      const vector = vectorOf(`query-${i}`);
      for (const f of filters) {
        const q = { model: MODEL, vector, limit: 10, ...f };
        const [sqlite, hnsw, exact] = await Promise.all([stores.sqlite.searchVectors(q), stores.hnsw.searchVectors(q), stores.exact.searchVectors(q)]);
        assert.ok(sqlite.length > 0, `no hit for ${JSON.stringify(f)}`);
        assert.deepEqual(shown(exact), shown(sqlite), `exact PostgreSQL differs from SQLite for ${JSON.stringify(f)}`);
        assert.deepEqual(shown(hnsw), shown(sqlite), `HNSW differs from exact for ${JSON.stringify(f)}`);
        for (const h of sqlite) {
          if (f.kinds) assert.ok(f.kinds.includes(h.node.kind));
          if (f.predicates?.[0]?.property === 'service') assert.equal(h.node.service, 'customers-service');
        }
        compared++;
      }
    }
    assert.equal(compared, 48);
  });
});
