/**
 * A one-shot `index` over a tree that did not change answers from the stamps of what the last build read, and writes
 * nothing; any change the build could see (a file edited, added, removed, a directory listing, an ignore rule, a
 * configuration file) makes it build again. Runs on the multi-service estate fixture, copied and aged like a checkout,
 * then on real estates of the corpora (a Java one and a Kotlin one, copied): unchanged, then a method added to one
 * file, then a configuration value changed, each compared with a fresh index of the tree as it is.
 */
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sextantOntology } from '../src/graph/ontology/index.js';
import type { BuildReport } from '../src/indexer/build.js';
import { dumpIndex, openTestStore, testStoreLocation } from './helpers/store.js';
import { ageTree, ESTATE, indexTree, withProbeMethod } from './helpers/estate.js';
import { sharedDir } from './helpers/index.js';

const ontology = sextantOntology();
const APP = 'orders/orders-app/src/main/java/com/acme/orders/';

describe('an unchanged tree is answered from the stamps of what its last build read', () => {
  let work: string;
  let root: string;
  const storeDir = () => join(work, 'store');
  const cacheDir = () => join(work, 'cache');
  const stampFile = () => join(cacheDir(), 'code-estate.stamp');

  const index = (store = storeDir(), cache = cacheDir()): Promise<BuildReport> => indexTree(root, store, { cacheDir: cache });
  const written = (r: BuildReport) => r.sources[0]!.written;
  /** The source was built (its files emitted), not answered from the stamps. (PostgreSQL may still write nothing.) */
  /** The build ran (listed, read and assembled the tree) instead of answering from the stamps. */
  const built = (r: BuildReport) => (r.sources[0]!.details as { from_stamps?: true }).from_stamps === undefined;
  /** Whether the build took its files from the last build's discovery (`recalled`) or walked the tree (`listed`). */
  const discovery = (r: BuildReport) => (r.sources[0]!.details as { discovery?: string }).discovery;
  const qualifiedNames = async () => (await dumpIndex(await testStoreLocation(storeDir()))).nodes.map((n) => (JSON.parse(n) as { qualified_name: string }).qualified_name);
  /** A fresh full build of the tree as it is now, compared with the store the stamps answered for. */
  async function assertEqualsFresh(): Promise<void> {
    const fresh = join(work, `fresh-${Date.now()}`);
    await index(fresh, join(fresh, 'cache'));
    assert.deepEqual(await dumpIndex(await testStoreLocation(storeDir())), await dumpIndex(await testStoreLocation(fresh)));
  }

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'sextant-stamps-'));
    root = join(work, 'estate');
    cpSync(ESTATE, root, { recursive: true });
    ageTree(root, Date.now() / 1000 - 3600);
    assert.equal(written(await index()), 'full');
    assert.ok(existsSync(stampFile()), 'the build saved its stamps');
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  test('nothing changed: unchanged, nothing read or written, the same warnings and figures', async () => {
    const first = JSON.parse(readFileSync(stampFile(), 'utf8')) as { report: { warnings: string[]; details: { stats: unknown } } };
    const updatedAt = async () => {
      const s = await openTestStore(ontology, storeDir(), { mode: 'read' });
      try {
        return (await s.meta()).updated_at;
      } finally {
        await s.close();
      }
    };
    const before = await updatedAt();
    const r = await index();
    assert.equal(written(r), 'unchanged');
    const details = r.sources[0]!.details as { parsed: number; reused: number; stats: unknown; phases_seconds: Record<string, number> };
    assert.equal(details.parsed, 0);
    assert.deepEqual(details.stats, first.report.details.stats);
    assert.deepEqual(r.sources[0]!.warnings, first.report.warnings);
    assert.equal(details.phases_seconds.discover, 0, 'not even listed');
    assert.ok(!built(r), 'the report says it answered from the stamps');
    assert.equal(await updatedAt(), before, 'nothing is written, not even the update time');
  });

  test('a file edited (size and time) is built again', async () => {
    const file = join(root, APP, 'service/OrderBatch.java');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/\n}\s*$/, '\n    public int stampedTwice() {\n        return 2;\n    }\n}\n'));
    const r = await index();
    assert.ok(built(r), 'built again');
    assert.equal(discovery(r), 'recalled', 'no directory changed: the files are the last discovery\'s');
    assert.ok((await qualifiedNames()).some((q) => q.endsWith('#stampedTwice()')));
    assert.equal(written(await index()), 'unchanged', 'and then stamped again');
  });

  test('an edit that keeps the size and the time a coarse clock gave is caught by content (the file was racy)', async () => {
    const file = join(root, APP, 'service/OrderBatch.java');
    // A whole-second time inside the racy window of the next build, as a coarse clock would leave it. It is set ahead
    // of the clock so that it stays inside that window however long a busy machine takes to start the build: a time
    // just before now was racy only if the build began within a second or two (CI once took longer, on PostgreSQL).
    const tick = Math.floor(Date.now() / 1000) + 60;
    writeFileSync(file, readFileSync(file, 'utf8').replace('stampedTwice', 'stampedThree'));
    utimesSync(file, tick, tick);
    assert.ok(built(await index()), 'built again');
    const stamp = JSON.parse(readFileSync(stampFile(), 'utf8')) as { files: unknown[][] };
    const entry = stamp.files.find((f) => f[0] === file)!;
    assert.equal(entry.length, 5, 'a racy file is stamped with its content hash');
    writeFileSync(file, readFileSync(file, 'utf8').replace('stampedThree', 'stampedFours'));
    utimesSync(file, tick, tick);
    assert.equal(statSync(file).size, entry[1], 'same size');
    assert.equal(statSync(file).mtimeMs, entry[2], 'same time');
    assert.ok(built(await index()), 'built again');
    assert.ok((await qualifiedNames()).some((q) => q.endsWith('#stampedFours()')));
    await assertEqualsFresh();
  });

  test('a new file in a directory already read, and a file removed', async () => {
    ageTree(root, Date.now() / 1000 - 1800);
    await index();
    assert.equal(written(await index()), 'unchanged');
    const added = join(root, APP, 'service/StampProbe.java');
    writeFileSync(added, 'package com.acme.orders.service;\n\npublic class StampProbe {\n}\n');
    const r = await index();
    assert.ok(built(r), 'built again');
    assert.equal(discovery(r), 'listed', 'a directory lists another file: the tree is walked');
    assert.ok((await qualifiedNames()).includes('com.acme.orders.service.StampProbe'));
    unlinkSync(added);
    assert.ok(built(await index()), 'built again');
    assert.ok(!(await qualifiedNames()).includes('com.acme.orders.service.StampProbe'));
    await assertEqualsFresh();
  });

  test('a directory changed within seconds of a build leaves no stamps: the next build runs in full', async () => {
    writeFileSync(join(root, APP, 'service/StampProbe2.java'), 'package com.acme.orders.service;\n\npublic class StampProbe2 {\n}\n');
    await index();
    assert.ok(!existsSync(stampFile()), 'no stamps saved over a racy directory');
    assert.ok(built(await index()), 'built again');
  });

  test('a directory whose time proves nothing (racy, or changed by a file renamed over another) is listed and compared', async () => {
    const dir = join(root, APP, 'service');
    ageTree(root, Date.now() / 1000 - 1000);
    await index();
    assert.equal(written(await index()), 'unchanged');
    // An editor that saves by renaming a new file over the old one changes the directory's time, not its listing.
    const file = join(dir, 'OrderBatch.java');
    writeFileSync(`${file}.swp`, readFileSync(file, 'utf8').replace('stampedFours', 'stampedFives'));
    renameSync(`${file}.swp`, file);
    let r = await index();
    assert.equal(discovery(r), 'recalled', 'the same names in the directory: the last discovery holds');
    assert.ok((await qualifiedNames()).some((q) => q.endsWith('#stampedFives()')));
    // A racy directory keeps its listing's digest; a file added under the same directory time is still found.
    writeFileSync(join(dir, 'StampProbe3.java'), 'package com.acme.orders.service;\n\npublic class StampProbe3 {\n}\n');
    // A whole second ahead of the clock, as a coarse clock would leave it (and inside the next build's racy window).
    const tick = Math.floor(Date.now() / 1000) + 60;
    utimesSync(dir, tick, tick);
    await index();
    assert.ok((await qualifiedNames()).includes('com.acme.orders.service.StampProbe3'));
    writeFileSync(join(dir, 'StampProbe4.java'), 'package com.acme.orders.service;\n\npublic class StampProbe4 {\n}\n');
    utimesSync(dir, tick, tick);
    r = await index();
    assert.equal(discovery(r), 'listed', 'the listing differs: the tree is walked');
    assert.ok((await qualifiedNames()).includes('com.acme.orders.service.StampProbe4'));
    await assertEqualsFresh();
  });

  test('an ignore rule and a configuration file the last build looked for are changes too', async () => {
    ageTree(root, Date.now() / 1000 - 1200);
    await index();
    assert.equal(written(await index()), 'unchanged');
    writeFileSync(join(root, '.gitignore'), `${readFileSync(join(root, '.gitignore'), 'utf8')}\norders/orders-app/src/main/java/com/acme/orders/service/StampProbe2.java\n`);
    const r = await index();
    assert.ok(built(r), 'built again');
    assert.equal(discovery(r), 'listed', 'an ignore rule discovery read changed: the tree is walked');
    assert.ok(!(await qualifiedNames()).includes('com.acme.orders.service.StampProbe2'));
    ageTree(root, Date.now() / 1000 - 600);
    await index();
    assert.equal(written(await index()), 'unchanged');
    const config = join(root, 'orders/orders-app/src/main/resources/application-stamp.yml');
    writeFileSync(config, 'spring:\n  application:\n    name: orders-stamped\n');
    assert.ok(built(await index()), 'built again');
    await assertEqualsFresh();
  });

  test('a stamp file that is not what Sextant writes (garbled entries, or not JSON) is no answer: the build runs and stamps again', async () => {
    ageTree(root, Date.now() / 1000 - 450);
    await index();
    const good = JSON.parse(readFileSync(stampFile(), 'utf8')) as Record<string, unknown>;
    writeFileSync(stampFile(), JSON.stringify({ ...good, dirs: [7, null], files: [{ path: 1 }] }));
    assert.ok(built(await index()), 'garbled entries: built');
    assert.equal(written(await index()), 'unchanged', 'stamped again');
    writeFileSync(stampFile(), '{"key": "trunc');
    assert.ok(built(await index()), 'not JSON: built');
    assert.equal(written(await index()), 'unchanged');
    // What discovery kept, garbled or not JSON: the tree is walked, and nothing is lost.
    const discoveryFile = join(cacheDir(), 'code-estate.discovery');
    const kept = JSON.parse(readFileSync(discoveryFile, 'utf8')) as Record<string, unknown>;
    for (const bad of [JSON.stringify({ ...kept, dirs: [[7, 'x', null]], found: { files: [{ path: 3 }] } }), '{"key": "trunc']) {
      const file = join(root, APP, 'service/OrderBatch.java');
      writeFileSync(file, `${readFileSync(file, 'utf8')}\n`);
      writeFileSync(discoveryFile, bad);
      const r = await index();
      assert.equal(discovery(r), 'listed', bad.slice(0, 40));
      assert.ok((await qualifiedNames()).includes('com.acme.orders.service.OrderBatch'));
    }
  });

  test('a store that does not hold the stamped build (another index, same cache) is built in full', async () => {
    ageTree(root, Date.now() / 1000 - 300);
    await index();
    assert.equal(written(await index()), 'unchanged');
    const other = join(work, 'other-store');
    const r = await index(other, cacheDir());
    assert.equal(written(r), 'full');
    assert.equal((r.sources[0]!.details as { parsed: number }).parsed, 0, 'its facts still come from the cache');
  });
});

for (const [estate, source, config] of [
  ['piggymetrics', 'account-service/src/main/java/com/piggymetrics/account/service/AccountServiceImpl.java', 'config/src/main/resources/shared/account-service.yml'],
  ['digital-restaurant', 'drestaurant-libs/drestaurant-restaurant/src/main/kotlin/com/drestaurant/restaurant/domain/Restaurant.kt', 'drestaurant-apps/drestaurant-microservices/drestaurant-microservices-command-order/src/main/resources/application.yml'],
] as const) {
  describe(`${estate} (real estate): unchanged, a method added, a configuration value changed — each equal to a fresh index`, () => {
    let work: string;
    let root: string;
    const index = (store: string, cache: string): Promise<BuildReport> => indexTree(root, store, { cacheDir: cache, name: estate });
    async function assertEqualsFresh(step: string): Promise<void> {
      const fresh = join(work, `fresh-${step}`);
      await index(fresh, join(fresh, 'cache'));
      const a = await dumpIndex(await testStoreLocation(join(work, 'store')));
      const b = await dumpIndex(await testStoreLocation(fresh));
      assert.equal(a.nodes.length, b.nodes.length, `${step}: node count`);
      assert.deepEqual(a.nodes, b.nodes, `${step}: nodes and their order`);
      assert.deepEqual(a.edges, b.edges, `${step}: edges`);
      rmSync(fresh, { recursive: true, force: true });
    }
    const again = () => index(join(work, 'store'), join(work, 'cache'));

    before(async () => {
      work = mkdtempSync(join(tmpdir(), `sextant-stamps-${estate}-`));
      root = join(work, estate);
      cpSync(join(sharedDir(), 'corpora', estate), root, { recursive: true });
      ageTree(root, Date.now() / 1000 - 3600);
      await again();
    });
    after(() => rmSync(work, { recursive: true, force: true }));

    test('nothing changed: answered from the stamps', async () => {
      assert.equal((await again()).sources[0]!.written, 'unchanged');
      await assertEqualsFresh('unchanged');
    });

    test('a method added to one file', async () => {
      const file = join(root, source);
      const text = readFileSync(file, 'utf8');
      writeFileSync(file, withProbeMethod(text, source.endsWith('.kt'), 'stampProbe')!);
      const r = await again();
      assert.ok((r.sources[0]!.details as { emitted: number }).emitted > 0, 'built again');
      assert.equal((r.sources[0]!.details as { parsed: number }).parsed, 1, 'one file parsed again');
      await assertEqualsFresh('method');
    });

    test('a configuration value changed', async () => {
      const file = join(root, config);
      writeFileSync(file, `${readFileSync(file, 'utf8')}\nstamp-probe:\n  url: http://stamp-probe:8080\n`);
      const r = await again();
      assert.ok((r.sources[0]!.details as { emitted: number }).emitted > 0, 'built again');
      assert.equal((r.sources[0]!.details as { parsed: number }).parsed, 0, 'no source parsed again');
      await assertEqualsFresh('configuration');
    });
  });
}
