/**
 * A process that parses few files compiles tree-sitter's WebAssembly with V8's baseline compiler only
 * (`compileParsersForFewFiles`). It must read every file as the optimized code does: the facts of real Java and Kotlin
 * files from a child process that set it equal those of this process, which did not.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { extractFile } from '../src/sources/code/parse/job.js';

const FILES = [
  'estate/billing/billing-web/src/main/kotlin/com/acme/billing/web/InvoiceController.kt',
  'estate/billing/billing-web/src/main/kotlin/com/acme/billing/web/OrderEventsConsumer.kt',
  'estate/orders/orders-api/src/main/java/com/acme/orders/api/generated/OrdersApi.java',
  'estate/orders/orders-app/src/main/java/com/acme/orders/service/OrderBatch.java',
].map((rel) => fileURLToPath(new URL(`./fixtures/${rel}`, import.meta.url)));

const CHILD = `
import { compileParsersForFewFiles } from ${JSON.stringify(new URL('../src/sources/code/parse/parser.ts', import.meta.url).href)};
import { extractFile } from ${JSON.stringify(new URL('../src/sources/code/parse/job.ts', import.meta.url).href)};
import { readFileSync } from 'node:fs';
compileParsersForFewFiles();
const out = [];
for (const path of JSON.parse(process.argv[1])) out.push(await extractFile(path, path.endsWith('.kt') ? 'kotlin' : 'java', readFileSync(path, 'utf8')));
process.stdout.write(JSON.stringify(out));
`;

test('the baseline-compiled parsers give the same facts as the optimized ones', async () => {
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHILD, JSON.stringify(FILES)], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  assert.equal(child.status, 0, child.stderr);
  const baseline = JSON.parse(child.stdout) as unknown[];
  const optimized = [];
  for (const path of FILES) optimized.push(JSON.parse(JSON.stringify(await extractFile(path, path.endsWith('.kt') ? 'kotlin' : 'java', readFileSync(path, 'utf8')))));
  assert.equal(baseline.length, FILES.length);
  for (const [i, facts] of optimized.entries()) {
    assert.ok((facts as { types: unknown[] }).types.length > 0, `${FILES[i]} declares types`);
    assert.deepEqual(baseline[i], facts, FILES[i]);
  }
});
