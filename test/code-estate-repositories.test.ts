/**
 * An estate whose services live in separate repositories, each published as its own source by its own job
 * (`sextant index <repo> --source <name>`), in any order, by concurrent writers, answers as the single-source build
 * of all of them side by side: the same links, traces and impact. Re-publishing a repository re-links the others
 * against what it has now; `sextant remove` retires one. Runs on the store under test (helpers/store.ts).
 *
 * Real: the CLI as built (bin/sextant.js, several processes at once), the polyrepo estates of ../shared/corpora
 * read in place, the store. The small estate below proves one rule each (a link that goes when its route goes).
 */
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { sextantOntology } from '../src/graph/ontology/index.js';
import { openStore } from '../src/graph/open.js';
import type { Store } from '../src/graph/store.js';
import { runTool } from '../src/query/index.js';
import { writeEstate } from './helpers/estate.js';
import { reportedLinks } from './helpers/estate-links.js';
import { jsonOf, killAll, runCli, tempDir, tempStore } from './helpers/e2e.js';
import { sharedDir } from './helpers/index.js';

const CORPORA = join(sharedDir(), 'corpora');
const ontology = sextantOntology();

after(killAll);

/** A deterministic shuffle (the order differs from the folders' own, the same every run). */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Publishes each repository as its own source, `writers` CLI processes at a time. */
async function publishAll(store: string, repositories: { name: string; path: string }[], writers = 2): Promise<void> {
  const queue = [...repositories];
  const worker = async () => {
    for (let r = queue.shift(); r; r = queue.shift()) {
      const run = await runCli(['index', r.path, '--source', r.name, '--store', store, '--json'], { timeoutMs: 600_000 });
      assert.equal(run.code, 0, `publishing ${r.name} failed:\n${run.stderr}`);
    }
  };
  await Promise.all(Array.from({ length: writers }, worker));
}

const ID = /^[a-z]{2}_[0-9a-z]{16}$/;

/**
 * An answer as compared across the two builds: a node id (which hashes the source the node was built under) as
 * the node's kind and qualified name, hints and sources left out, and a file path of the single-source build made
 * relative to its repository, as each repository's source records it.
 */
async function normalizer(store: Store, repositories: ReadonlySet<string>, fromSingle: boolean): Promise<(value: unknown) => Promise<unknown>> {
  const names = new Map<string, string>();
  const collect = (value: unknown, into: Set<string>): void => {
    if (typeof value === 'string' && ID.test(value) && !names.has(value)) into.add(value);
    else if (Array.isArray(value)) for (const v of value) collect(v, into);
    else if (value && typeof value === 'object') for (const v of Object.values(value)) collect(v, into);
  };
  const rewrite = (value: unknown): unknown => {
    if (typeof value === 'string' && ID.test(value)) return names.get(value) ?? value;
    if (Array.isArray(value)) return value.map(rewrite);
    if (value && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        if (k === 'hints' || k === 'source' || k === 'index') continue;
        if (k === 'file' && typeof v === 'string' && fromSingle) {
          const slash = v.indexOf('/');
          out[k] = slash > 0 && repositories.has(v.slice(0, slash)) ? v.slice(slash + 1) : v;
        } else out[k] = rewrite(v);
      }
      return out;
    }
    return value;
  };
  return async (value) => {
    const ids = new Set<string>();
    collect(value, ids);
    for (const n of await store.getNodes([...ids])) names.set(n.id, `${n.kind}:${n.qualified_name}`);
    return rewrite(value);
  };
}

const sortJson = (xs: unknown[]) => xs.map((x) => JSON.stringify(x)).sort();

/** Links, the trace from every service, and the impact of every linked route, of one index. */
async function answers(store: Store, repositories: ReadonlySet<string>, fromSingle: boolean): Promise<{ links: string[]; traces: Record<string, unknown>; impacts: Record<string, unknown> }> {
  const ctx = { store, ontology };
  const normalize = await normalizer(store, repositories, fromSingle);
  const links = await reportedLinks(ctx);
  const services = ((await runTool(ctx, 'find', { kind: 'service', limit: 500 })) as Record<string, any>).results.map((s: { name: string }) => s.name).sort();
  const traces: Record<string, unknown> = {};
  for (const s of services) traces[s] = await normalize(await runTool(ctx, 'trace', { from: s }));
  const routes = [...new Set(links.filter((l: any) => l.status === 'linked').flatMap((l: any) => (l.targets ?? []).map((t: any) => t.qualified_name as string)))].sort().slice(0, 12);
  const impacts: Record<string, unknown> = {};
  for (const r of routes) impacts[r] = await normalize(await runTool(ctx, 'impact', { id: r }));
  return { links: sortJson((await normalize(links)) as unknown[]), traces, impacts };
}

async function compareBuilds(single: string, multi: string, repositories: ReadonlySet<string>): Promise<void> {
  const [a, b] = [await openStore(ontology, single, 'read'), await openStore(ontology, multi, 'read')];
  try {
    const [one, many] = [await answers(a, repositories, true), await answers(b, repositories, false)];
    assert.ok(one.links.length > 0, 'the estate has links');
    assert.deepEqual(many.links, one.links, 'links');
    assert.deepEqual(many.traces, one.traces, 'traces from every service');
    assert.deepEqual(many.impacts, one.impacts, 'impact of the linked routes');
  } finally {
    await a.close();
    await b.close();
  }
}

const POLYREPOS = ['sock-shop', 'hmcts-bulk-scan', 'hmpps-nomis-sync', 'folio-mgr', 'nav-familie-ef'];
const REPOSITORIES: Record<string, string[]> = {
  'sock-shop': ['carts', 'microservices-demo', 'orders', 'queue-master', 'shipping'],
  'hmcts-bulk-scan': ['bulk-scan-orchestrator', 'bulk-scan-payment-processor', 'bulk-scan-processor'],
  'hmpps-nomis-sync': ['hmpps-nomis-mapping-service', 'hmpps-nomis-prisoner-api', 'hmpps-prisoner-to-nomis-update'],
  'folio-mgr': ['mgr-applications', 'mgr-tenant-entitlements', 'mgr-tenants'],
  'nav-familie-ef': ['familie-ef-iverksett', 'familie-ef-mottak', 'familie-ef-personhendelse', 'familie-ef-sak'],
};

describe('an estate published one repository at a time answers as its single-source build', () => {
  for (const [i, estate] of POLYREPOS.entries()) {
    test(`${estate}: each repository its own source, in a shuffled order, two writers at once`, async () => {
      const root = join(CORPORA, estate);
      const names = REPOSITORIES[estate]!;
      const single = await tempStore(`sextant-repos-one-${estate}-`);
      const built = await runCli(['index', root, '--store', single, '--json'], { timeoutMs: 600_000 });
      assert.equal(built.code, 0, built.stderr);
      const multi = await tempStore(`sextant-repos-many-${estate}-`);
      await publishAll(multi, shuffled(names, 7 + i).map((name) => ({ name, path: join(root, name) })));
      const status = jsonOf(await runCli(['status', '--store', multi, '--json']));
      assert.deepEqual(status.sources.map((s: { name: string }) => s.name).sort(), ['@estate', ...names].sort(), 'one source per repository, and the estate\'s own');
      await compareBuilds(single, multi, new Set(names));
    });
  }

  test('piggymetrics: one source per service directory', async () => {
    const root = join(CORPORA, 'piggymetrics');
    const names = ['account-service', 'auth-service', 'config', 'gateway', 'monitoring', 'notification-service', 'registry', 'statistics-service', 'turbine-stream-service'];
    // The single-source build of the same tree: the service directories, without the files at the root.
    const work = await tempDir('sextant-repos-piggy-');
    writeFileSync(join(work, 'sextant.yaml'), `version: 1\nsources:\n  - name: piggymetrics\n    kind: code\n    path: ${root}\n    exclude: [/pom.xml, /docker-compose*.yml, /LICENCE]\n`);
    const single = await tempStore('sextant-repos-one-piggy-');
    const built = await runCli(['index', join(work, 'sextant.yaml'), '--store', single, '--json'], { timeoutMs: 600_000 });
    assert.equal(built.code, 0, built.stderr);
    const multi = await tempStore('sextant-repos-many-piggy-');
    await publishAll(multi, shuffled(names, 3).map((name) => ({ name, path: join(root, name) })), 3);
    await compareBuilds(single, multi, new Set(names));
  });
});

// ------------------------------------------------------------------------------------ re-publish, retire

const BILLING_POM = `<project><modelVersion>4.0.0</modelVersion><groupId>com.acme</groupId><artifactId>billing</artifactId><version>1</version>
<parent><groupId>org.springframework.boot</groupId><artifactId>spring-boot-starter-parent</artifactId><version>3.2.0</version></parent>
<dependencies><dependency><groupId>org.springframework.boot</groupId><artifactId>spring-boot-starter-web</artifactId></dependency></dependencies></project>`;
const ORDERS_POM = BILLING_POM.replace('<artifactId>billing</artifactId>', '<artifactId>orders</artifactId>');

function twoRepositories(withInvoices: boolean): string {
  return writeEstate({
    'billing/pom.xml': BILLING_POM,
    'billing/src/main/resources/application.yml': 'spring:\n  application:\n    name: billing-service\n',
    'billing/src/main/java/com/acme/billing/BillingApp.java': 'package com.acme.billing;\n@org.springframework.boot.autoconfigure.SpringBootApplication\npublic class BillingApp {}\n',
    'billing/src/main/java/com/acme/billing/InvoiceController.java': `package com.acme.billing;
import org.springframework.web.bind.annotation.*;
@RestController
public class InvoiceController {
${withInvoices ? '    @GetMapping("/invoices/{id}")\n    public String invoice(@PathVariable String id) { return id; }\n' : ''}    @GetMapping("/health-check")
    public String ok() { return "ok"; }
}
`,
    'orders/pom.xml': ORDERS_POM,
    'orders/src/main/resources/application.yml': 'spring:\n  application:\n    name: order-service\n',
    'orders/src/main/java/com/acme/orders/OrdersApp.java': 'package com.acme.orders;\n@org.springframework.boot.autoconfigure.SpringBootApplication\npublic class OrdersApp {}\n',
    'orders/src/main/java/com/acme/orders/BillingClient.java': `package com.acme.orders;
import org.springframework.cloud.openfeign.FeignClient;
import org.springframework.web.bind.annotation.*;
@FeignClient(name = "billing-service")
public interface BillingClient {
    @GetMapping("/invoices/{id}")
    String invoice(@PathVariable("id") String id);
}
`,
  });
}

describe('re-publishing and retiring a repository', () => {
  test('a route a repository no longer has takes the other repository\'s link with it; removing a repository re-links the rest', async () => {
    const before = twoRepositories(true);
    const afterEdit = twoRepositories(false);
    try {
      const multi = await tempStore('sextant-repos-edit-');
      await publishAll(multi, [{ name: 'orders', path: join(before, 'orders') }, { name: 'billing', path: join(before, 'billing') }], 1);
      const linked = await linkOf(multi);
      assert.equal(linked.status, 'linked', JSON.stringify(linked));
      assert.equal(linked.targets[0].qualified_name, 'billing-service GET /invoices/{id}');

      // billing's job publishes a version without the route: orders' client is re-linked, as in the single build.
      const republish = await runCli(['index', join(afterEdit, 'billing'), '--source', 'billing', '--store', multi, '--json']);
      assert.equal(republish.code, 0, republish.stderr);
      const single = await tempStore('sextant-repos-edit-one-');
      assert.equal((await runCli(['index', afterEdit, '--store', single])).code, 0);
      await compareBuilds(single, multi, new Set(['orders', 'billing']));
      const dropped = await linkOf(multi);
      assert.notEqual(dropped.status, 'linked', 'no link to a route billing no longer has');

      // Retiring billing: orders alone, as its single build; @estate stays while a repository does.
      const removed = await runCli(['remove', 'billing', '--store', multi, '--json']);
      assert.equal(removed.code, 0, removed.stderr);
      assert.deepEqual(jsonOf(removed).sources.sort(), ['@estate', 'orders']);
      const alone = await tempStore('sextant-repos-edit-alone-');
      assert.equal((await runCli(['index', join(before, 'orders'), '--source', 'orders', '--store', alone])).code, 0);
      await compareBuilds(alone, multi, new Set(['orders']));
      const refused = await runCli(['remove', '@estate', '--store', multi]);
      assert.notEqual(refused.code, 0);
      assert.match(refused.stderr, /@estate holds what the estate's repositories share \(orders\)/);
      const last = await runCli(['remove', 'orders', '--store', multi, '--json']);
      assert.equal(last.code, 0, last.stderr);
      assert.deepEqual(jsonOf(last).sources, [], 'the estate\'s own source goes with its last repository');
    } finally {
      rmSync(before, { recursive: true, force: true });
      rmSync(afterEdit, { recursive: true, force: true });
    }
  });

  test('publishing needs one code tree, and a name that is not the estate\'s own', async () => {
    const store = await tempStore('sextant-repos-bad-');
    const tree = twoRepositories(true);
    try {
      const reserved = await runCli(['index', join(tree, 'orders'), '--source', '@estate', '--store', store]);
      assert.notEqual(reserved.code, 0);
      assert.match(reserved.stderr, /a source name is letters, digits/);
      const watch = await runCli(['index', join(tree, 'orders'), '--source', 'orders', '--watch', '--store', store]);
      assert.notEqual(watch.code, 0);
      assert.match(watch.stderr, /--source publishes a repository once/);
      const missing = await runCli(['remove', 'nothing-here', '--store', store]);
      assert.notEqual(missing.code, 0);
    } finally {
      rmSync(tree, { recursive: true, force: true });
    }
  });
});

async function linkOf(store: string): Promise<any> {
  const s = await openStore(ontology, store, 'read');
  try {
    const links = await reportedLinks({ store: s, ontology });
    return links.find((l: any) => l.kind === 'http' && String(l.member ?? '').includes('BillingClient#invoice'));
  } finally {
    await s.close();
  }
}
