/**
 * `collectGarbage` runs a full collection without `--expose-gc` on the command line: memory a build just dropped is
 * returned before the next phase allocates (the 10,000-file bench index peaks ~70 MB lower with it), and the
 * process's own global scope gains no `gc`.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { collectGarbage } from '../src/indexer/memory.js';

test('collectGarbage frees what was dropped, without exposing gc to the process', () => {
  const hadGc = typeof (globalThis as { gc?: unknown }).gc === 'function';
  let big: number[][] | undefined = Array.from({ length: 200 }, () => Array.from({ length: 50_000 }, (_, i) => i + 0.5));
  const before = process.memoryUsage().heapUsed;
  assert.ok(big.length === 200);
  big = undefined;
  collectGarbage();
  const after = process.memoryUsage().heapUsed;
  // 200 × 50,000 doubles ≈ 80 MB dropped; a full collection returns most of it.
  assert.ok(before - after > 50 * 1024 * 1024, `freed ${Math.round((before - after) / 1048576)} MB`);
  assert.equal(typeof (globalThis as { gc?: unknown }).gc === 'function', hadGc, 'gc is not added to the global scope');
});
