/**
 * A re-index recalls what reading each configuration and deployment YAML file gave the last re-index, instead of
 * parsing it again, when the file's text is the same. Checked two ways:
 * - on every YAML file of every corpora estate, read by the Spring and the deployment readers: what a recall gives
 *   back, after the round trip through JSON the cache file makes, equals what parsing gives (values, lines, warnings);
 * - end to end on a copied estate: a second re-index parses no YAML, an edited file is parsed alone, and a garbled
 *   cache is not used; each index equals a fresh one.
 */
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { BuildReport } from '../src/indexer/build.js';
import { deploymentFileKind, readDeployment } from '../src/sources/code/config/deployment.js';
import { flatYamlDocuments } from '../src/sources/code/config/yaml.js';
import { type RecalledYaml, withYamlRecall, YamlRecall } from '../src/sources/code/config/yaml-recall.js';
import { ageTree, ESTATE, indexTree } from './helpers/estate.js';
import { sharedDir } from './helpers/index.js';
import { dumpIndex, testStoreLocation } from './helpers/store.js';

const SKIP_DIRS = new Set(['.git', 'node_modules', 'target', 'build', '.sextant']);

function filesUnder(root: string, dir = root): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) {
      if (!SKIP_DIRS.has(e.name)) out.push(...filesUnder(root, join(dir, e.name)));
    } else if (e.isFile()) out.push(relative(root, join(dir, e.name)));
  }
  return out.sort();
}

/** A recall's entries as the cache file gives them back to the next process. */
function throughJson(recall: YamlRecall): Map<string, RecalledYaml> {
  return new Map(JSON.parse(JSON.stringify([...recall.kept])) as [string, RecalledYaml][]);
}

describe('YAML read results recalled across processes', () => {
  const corpora = join(sharedDir(), 'corpora');
  const estates = readdirSync(corpora, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);

  test('on every corpora estate, a recalled read equals a parsed one: the deployment, and each YAML file flattened', () => {
    let yamlFiles = 0;
    let deploymentFiles = 0;
    for (const estate of estates) {
      const root = join(corpora, estate);
      const files = filesUnder(root);
      const readText = (rel: string): string | undefined => {
        try {
          return readFileSync(join(root, rel), 'utf8');
        } catch {
          return undefined;
        }
      };
      const yaml = files.filter((f) => /\.ya?ml$/.test(f));
      const deployment = files.filter((f) => deploymentFileKind(f) !== undefined);
      yamlFiles += yaml.length;
      deploymentFiles += deployment.length;
      const flatAll = (): unknown[] =>
        yaml.map((f) => {
          const warnings: string[] = [];
          // A path of its own per read: the in-process memo by path must not answer instead of the recall.
          return { docs: flatYamlDocuments(f, readText(f)!, warnings), warnings };
        });
      const parsed = { deployment: readDeployment(deployment, readText), flat: flatAll() };
      const first = new YamlRecall(new Map());
      const recorded = withYamlRecall(first, () => ({ deployment: readDeployment(deployment, readText), flat: flatAll() }));
      assert.deepEqual(recorded, parsed, `${estate}: reading with an empty recall changes nothing`);
      const second = new YamlRecall(throughJson(first));
      const recalled = withYamlRecall(second, () => ({ deployment: readDeployment(deployment, readText), flat: flatAll() }));
      assert.deepEqual(recalled, parsed, `${estate}: a recalled read equals a parsed one`);
      assert.equal(second.parsed, 0, `${estate}: nothing parsed again`);
      assert.equal(second.recalled, first.parsed + first.recalled, `${estate}: every read recalled`);
      assert.deepEqual([...second.kept.keys()].sort(), [...first.kept.keys()].sort(), `${estate}: the same entries kept for the next build`);
    }
    assert.ok(yamlFiles > 400 && deploymentFiles > 100, `the corpora's YAML was read (${yamlFiles} YAML files, ${deploymentFiles} deployment files)`);
  });

  test('a text that changed is parsed again; an entry that does not decode is parsed again', () => {
    const text = 'spring:\n  application:\n    name: one\n';
    const first = new YamlRecall(new Map());
    withYamlRecall(first, () => flatYamlDocuments('probe/application.yml', text, []));
    const stored = throughJson(first);
    const changed = new YamlRecall(stored);
    const docs = withYamlRecall(changed, () => flatYamlDocuments('probe/application.yml', text.replace('one', 'two'), []));
    assert.equal(docs[0]!.values.get('spring.application.name'), 'two');
    assert.deepEqual([changed.parsed, changed.recalled], [1, 0]);
    const garbled = new Map([...stored].map(([k, v]) => [k, { ...v, value: [{ line: 'x' }] }]));
    const broken = new YamlRecall(garbled);
    const again = withYamlRecall(broken, () => flatYamlDocuments('probe/application.yml', text, []));
    assert.equal(again[0]!.values.get('spring.application.name'), 'one');
    assert.deepEqual([broken.parsed, broken.recalled], [1, 0]);
  });
});

describe('a re-index recalls the YAML the last one read', () => {
  let work: string;
  let root: string;
  const cache = () => join(work, 'cache');
  const yamlCache = () => join(cache(), 'code-estate.yaml');
  const CONFIG = 'orders/orders-app/src/main/resources/application.yml';
  const HANDLER = 'orders/orders-app/src/main/java/com/acme/orders/payment/CardPaymentHandler.java';
  let edits = 0;

  const index = (dir: string, cacheDir?: string): Promise<BuildReport> => indexTree(root, dir, cacheDir ? { cacheDir } : {});

  /** Edits a file, re-indexes, checks the index against a fresh one; what the build says of the YAML it read. */
  async function editAndIndex(file: string, edit: (text: string) => string): Promise<({ parsed: number; recalled: number } & { layout?: string }) | undefined> {
    edits++;
    const path = join(root, file);
    writeFileSync(path, edit(readFileSync(path, 'utf8')));
    const report = await index(join(work, 'incremental'), cache());
    const fresh = join(work, `fresh-${edits}`);
    await index(fresh);
    assert.deepEqual(await dumpIndex(await testStoreLocation(join(work, 'incremental'))), await dumpIndex(await testStoreLocation(fresh)), 'the index equals a fresh one');
    rmSync(fresh, { recursive: true, force: true });
    const details = report.sources[0]!.details as { yaml?: { parsed: number; recalled: number }; layout?: string };
    return details.yaml && { ...details.yaml, ...(details.layout ? { layout: details.layout } : {}) };
  }
  const bodyEdit = (text: string) => text.replace(/return "card[\w-]*"\.equals\(/, `return "card-${edits}".equals(`);

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'sextant-yaml-recall-'));
    root = join(work, 'estate');
    cpSync(ESTATE, root, { recursive: true });
    ageTree(root, Date.now() / 1000 - 3600);
    const first = await index(join(work, 'incremental'), cache());
    assert.equal((first.sources[0]!.details as { yaml?: unknown }).yaml, undefined, 'a first build neither recalls nor saves');
    assert.ok(!existsSync(yamlCache()));
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  test('the first re-index parses and saves; the next takes the layout whole; a configuration edit parses that file alone', async () => {
    const first = await editAndIndex(HANDLER, bodyEdit);
    assert.ok(first && first.parsed >= 3 && first.recalled === 0 && first.layout === 'read', `the first re-index parses the YAML (${JSON.stringify(first)})`);
    assert.ok(existsSync(yamlCache()));
    const second = await editAndIndex(HANDLER, bodyEdit);
    assert.deepEqual(second, { parsed: 0, recalled: 0, layout: 'recalled' }, 'the next one takes the layout as the last one read it: no YAML is asked for');
    const third = await editAndIndex(CONFIG, (text) => `${text}\nrecall:\n  probe: ${edits}\n`);
    assert.deepEqual(third, { parsed: 1, recalled: first.parsed - 1, layout: 'read' }, 'an edited file is parsed alone, the others recalled (kept through the build that asked for none)');
  });

  test('a garbled cache is not used: every file is parsed, and the next re-index recalls again', async () => {
    writeFileSync(yamlCache(), '{"version": "yaml-1:x", "entries": [[');
    const garbled = await editAndIndex(HANDLER, bodyEdit);
    assert.ok(garbled && garbled.recalled === 0 && garbled.parsed >= 3 && garbled.layout === 'read');
    assert.deepEqual(await editAndIndex(HANDLER, bodyEdit), { parsed: 0, recalled: 0, layout: 'recalled' });
    assert.deepEqual(await editAndIndex(CONFIG, (text) => `${text}\nrecall:\n  again: ${edits}\n`), { parsed: 1, recalled: garbled.parsed - 1, layout: 'read' });
  });
});
