/**
 * Developer tool: index estates of ../shared/corpora (or reuse an index) and print how the `links` report differs
 * from the hand-checked expectations in test/estates. `tsx scripts/estate-links.ts [--summary] [--write-gaps] [--reuse DIR] [estate…]`; indexes go to $ESTATE_LINKS_DIR (default /tmp/estate-links).
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { sextantOntology } from '../src/graph/ontology/index.js';
import { SqliteStore } from '../src/graph/sqlite/store.js';
import { buildWorkspace } from '../src/indexer/build.js';
import { resolveTarget } from '../src/indexer/target.js';
import { compareLinks, ESTATES_DIR, loadExpected, reportedLinks, serviceDirectories } from '../test/helpers/estate-links.js';

const args = process.argv.slice(2);
const reuseAt = args.indexOf('--reuse');
const storeRoot = reuseAt >= 0 ? args.splice(reuseAt, 2)[1]! : (process.env.ESTATE_LINKS_DIR ?? '/tmp/estate-links');
const quiet = args.includes('--summary');
// Write test/estates/known-gaps/<estate>.txt: the differences the suite then expects (none: the file is removed).
const writeGaps = args.includes('--write-gaps');
const names = args.filter((a) => !a.startsWith('--'));
const corpora = join(import.meta.dirname, '..', '..', 'shared', 'corpora');
const estates = names.length ? names : readdirSync(ESTATES_DIR).filter((f) => f.endsWith('.yaml')).map((f) => f.replace(/\.yaml$/, ''));
const ontology = sextantOntology();
let totals = { expected: 0, missing: 0, extra: 0, wrong: 0 };
for (const estate of estates) {
  const store = join(storeRoot, estate);
  if (reuseAt < 0 || !existsSync(store)) {
    // Indexed in this process from the TypeScript sources (no build needed), from scratch.
    rmSync(store, { recursive: true, force: true });
    const writer = SqliteStore.open(ontology, store, { mode: 'write' });
    const { config } = await resolveTarget(join(corpora, estate));
    const report = await buildWorkspace(writer, ontology, config);
    await writer.close();
    if (process.env.SHOW_WARNINGS) for (const s of report.sources) for (const w of (s as { warnings?: string[] }).warnings ?? []) console.log(`  warning ${w}`);
  }
  const s = SqliteStore.open(ontology, store, { mode: 'read' });
  const ctx = { store: s, ontology };
  const expected = loadExpected(estate);
  const diffs = compareLinks(expected, await reportedLinks(ctx), await serviceDirectories(ctx));
  await s.close();
  const count = (k: string) => diffs.filter((d) => d.kind === k).length;
  totals = { expected: totals.expected + expected.links.length, missing: totals.missing + count('missing'), extra: totals.extra + count('extra'), wrong: totals.wrong + count('wrong') };
  console.log(`${estate}: ${expected.links.length} expected, ${count('missing')} missing, ${count('wrong')} wrong, ${count('extra')} extra`);
  if (writeGaps) {
    const file = join(ESTATES_DIR, 'known-gaps', `${estate}.txt`);
    if (diffs.length) {
      mkdirSync(join(ESTATES_DIR, 'known-gaps'), { recursive: true });
      writeFileSync(file, `# Known differences of ${estate}'s links from test/estates/${estate}.yaml (written by scripts/estate-links.ts --write-gaps)\n${diffs.map((d) => `${d.kind} ${d.at} ${d.text}`).join('\n')}\n`);
    } else rmSync(file, { force: true });
  }
  if (!quiet) for (const d of diffs) console.log(`  ${d.kind.padEnd(7)} ${d.at}  ${d.text}`);
}
console.log(`total: ${JSON.stringify(totals)}, right: ${totals.expected - totals.missing - totals.wrong}`);
