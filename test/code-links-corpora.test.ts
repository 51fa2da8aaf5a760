/**
 * Links on the 18 real estates of ../shared/corpora (read in place, never copied), against the hand-checked files of
 * test/estates (written by reading each estate's source, never from Sextant's output): each estate indexes without an
 * error, and the `links` report of its index differs from its file by exactly the differences its known-gaps file
 * lists — none, for an estate every link of which is right. A fixed gap fails the test as surely as a new one: the
 * gaps file is then regenerated (`npx tsx scripts/estate-links.ts --write-gaps <estate>`) and reviewed.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sextantOntology } from '../src/graph/ontology/index.js';
import { runTool, type ToolContext } from '../src/query/index.js';
import { testStoreLocation } from './helpers/store.js';
import { openStore } from '../src/graph/open.js';
import { type CliResult, jsonOf, killAll, runCli, tempDir } from './helpers/e2e.js';
import { compareLinks, ESTATES_DIR, loadExpected, reportedLinks, serviceDirectories } from './helpers/estate-links.js';
import { sharedDir } from './helpers/index.js';

const CORPORA = join(sharedDir(), 'corpora');
const ESTATES = readdirSync(ESTATES_DIR)
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => f.replace(/\.yaml$/, ''))
  .sort();

/** The differences an estate is known to have, one `kind at text` line each (a missing file: none). */
function knownGaps(estate: string): string[] {
  const file = join(ESTATES_DIR, 'known-gaps', `${estate}.txt`);
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() && !l.startsWith('#')) : [];
}

const stores = new Map<string, string>();
const indexed = new Map<string, CliResult>();

/**
 * The service map (the web page's and `sextant map`'s view) says what the graph and the link report say: every
 * service, each SERVICE_CALLS edge with its protocol and counts, one gateway edge per service a gateway route
 * forwards to, each external host called, and per service the calls that reach no declared route.
 */
async function checkServiceMap(ctx: ToolContext, estate: string): Promise<void> {
  const map = (await runTool(ctx, 'service_map', {})) as Record<string, any>;
  assert.equal(map.ok, true, `${estate}: service_map failed: ${JSON.stringify(map.error)}`);
  const services = (await ctx.store.findNodes({ kinds: ['service'], predicates: [], limit: 10_000, offset: 0 })).nodes;
  assert.deepEqual(map.services.map((s: any) => s.name), services.map((s) => s.name).sort((a, b) => a.localeCompare(b)), `${estate}: services`);
  const names = new Map(services.map((s) => [s.id, s.name]));
  const topology = (await ctx.store.edges({ ids: services.map((s) => s.id), direction: 'out', types: ['SERVICE_CALLS'], limit: 100_000, offset: 0 })).rows.map((r) => `${names.get(r.origin)} -${String(r.attrs.protocol)}-> ${r.other.name} ${String(r.attrs.matched)}/${String(r.attrs.calls)}`);
  assert.deepEqual(map.calls.filter((c: any) => c.protocol !== 'gateway').map((c: any) => `${c.from} -${c.protocol}-> ${c.to} ${c.matched}/${c.calls}`).sort(), topology.sort(), `${estate}: calls`);
  const links = await reportedLinks(ctx);
  const forwarded = [...new Set(links.filter((l) => l.kind === 'gateway' && l.service).flatMap((l) => (l.target_services ?? []).filter((t) => t !== l.service).map((t) => `${l.service} -> ${t}`)))].sort();
  assert.deepEqual(map.calls.filter((c: any) => c.protocol === 'gateway').map((c: any) => `${c.from} -> ${c.to}`).sort(), forwarded, `${estate}: gateway edges`);
  const open = new Map<string, number>();
  for (const l of links) if ((l.kind === 'http' || l.kind === 'message') && l.service && ['unresolved', 'ambiguous', 'unmatched', 'guessed'].includes(l.status)) open.set(`${l.service} ${l.status}`, (open.get(`${l.service} ${l.status}`) ?? 0) + 1);
  assert.deepEqual(Object.fromEntries(map.open.map((o: any) => [`${o.service} ${o.status}`, o.count])), Object.fromEntries([...open].sort()), `${estate}: open calls`);
  const external = links.filter((l) => l.kind === 'http' && l.status === 'external' && l.service).length;
  assert.equal(map.external.reduce((n: number, e: any) => n + e.calls, 0), external, `${estate}: external calls`);
}

describe('links on the 18 real estates (hand-checked, test/estates)', () => {
  before(async () => {
    assert.ok(existsSync(CORPORA), `the corpora are not at ${CORPORA}`);
    assert.equal(ESTATES.length, 18, `one hand-checked file per estate of the corpora: ${ESTATES.join(', ')}`);
    const root = await tempDir('sextant-corpora-');
    // Two at a time: CI has two cores.
    const queue = [...ESTATES];
    const worker = async (): Promise<void> => {
      for (let estate = queue.shift(); estate; estate = queue.shift()) {
        const store = await testStoreLocation(join(root, estate));
        indexed.set(estate, await runCli(['index', join(CORPORA, estate), '--store', store, '--json'], { timeoutMs: 600_000 }));
        stores.set(estate, store);
      }
    };
    await Promise.all([worker(), worker()]);
  });

  after(killAll);

  for (const estate of ESTATES) {
    test(`${estate}: indexes without an error, and its links are the hand-checked ones`, async () => {
      const run = indexed.get(estate)!;
      assert.equal(run.code, 0, `sextant index ${estate} failed:\n${run.stderr}`);
      const report = jsonOf(run);
      const warnings: string[] = (report.sources ?? []).flatMap((s: { warnings?: string[] }) => s.warnings ?? []);
      // A step that failed on code it could not read is skipped with a warning naming file:line: none on these estates.
      assert.deepEqual(warnings.filter((w) => / skipped: /.test(w)), [], 'no file or step skipped on an error');
      const ontology = sextantOntology();
      const store = await openStore(ontology, stores.get(estate)!, 'read');
      try {
        const ctx = { store, ontology };
        const differences = compareLinks(loadExpected(estate), await reportedLinks(ctx), await serviceDirectories(ctx)).map((d) => `${d.kind} ${d.at} ${d.text}`);
        assert.deepEqual(differences, knownGaps(estate));
        await checkServiceMap(ctx, estate);
      } finally {
        await store.close();
      }
    });
  }

  test('the links report over the CLI says per service what resolved, and lists what did not with file and line', async () => {
    const store = stores.get('sock-shop')!;
    const r = await runCli(['call', 'links', '{}', '--store', store]);
    assert.equal(r.code, 0, r.stderr);
    const body = jsonOf(r);
    assert.equal(body.ok, true);
    const orders = body.services.find((s: { service: string }) => s.service === 'orders');
    assert.ok(orders.http.total >= 6, JSON.stringify(orders));
    // The HATEOAS links arrive in the request body: unresolved, grouped by the expression they stop at.
    const atRequest = body.unresolved.filter((g: { unresolved_at: string }) => /^item\./.test(g.unresolved_at ?? ''));
    assert.deepEqual(atRequest.map((g: { unresolved_at: string }) => g.unresolved_at).sort(), ['item.address', 'item.card', 'item.customer', 'item.items']);
    for (const g of atRequest) for (const l of g.links) assert.match(`${l.file}:${l.line}`, /OrdersController\.java:\d+$/);
  });
});
