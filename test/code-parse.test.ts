/**
 * Parsing on worker threads gives exactly what parsing on the main thread gives, a file that cannot be read is
 * reported instead of failing the build, and the worker count setting teaches its valid values.
 * Real worker threads, real tree-sitter grammars, the real estate fixture.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { sextantOntology } from '../src/graph/ontology/index.js';
import { buildCodeSource } from '../src/sources/code/index.js';
import type { ParseJob, ParseResult } from '../src/sources/code/parse/job.js';
import { parseWorkerCount, runParseJobs } from '../src/sources/code/parse/pool.js';
import { ParseQueue, WARM_UP_FILES } from '../src/sources/code/parse/queue.js';
import type { Language } from '../src/sources/code/parse/ir.js';
import { ESTATE, estateSource } from './helpers/estate.js';

const ontology = sextantOntology();

async function build(workers: string, path = ESTATE) {
  return buildCodeSource(estateSource(path), { ontology, baseDir: path, env: { SEXTANT_PARSE_WORKERS: workers } });
}

describe('parse workers', () => {
  test('two workers and the main thread build the same graph as the main thread alone', async () => {
    const alone = await build('0');
    const pooled = await build('2');
    const key = (x: unknown) => JSON.stringify(x);
    assert.equal(pooled.nodes.length, alone.nodes.length);
    assert.deepEqual(pooled.nodes.map(key).sort(), alone.nodes.map(key).sort());
    assert.deepEqual(pooled.edges.map(key).sort(), alone.edges.map(key).sort());
    assert.equal(pooled.details.parsed, 53);
  });

  test('every job gets one result, in either mode; a missing file is an error result, not a crash', async () => {
    const jobs: ParseJob[] = [
      { id: 0, abs: join(ESTATE, 'orders/orders-app/src/main/java/com/acme/orders/service/OrderBatch.java'), rel: 'a/OrderBatch.java', language: 'java' },
      { id: 1, abs: join(ESTATE, 'no/such/File.java'), rel: 'no/such/File.java', language: 'java' },
      { id: 2, abs: join(ESTATE, 'billing/billing-core/src/main/kotlin/com/acme/billing/core/Invoice.kt'), rel: 'b/Invoice.kt', language: 'kotlin' },
    ];
    for (const workers of [0, 2]) {
      const results = new Map<number, ParseResult>();
      await runParseJobs(jobs, workers, (job, result) => results.set(job.id, result));
      assert.equal(results.size, 3, `workers=${workers}`);
      assert.equal(results.get(0)!.facts?.types[0]?.name, 'OrderBatch');
      assert.match(results.get(1)!.error ?? '', /ENOENT/);
      assert.ok(results.get(2)!.facts?.types.some((t) => t.name === 'Invoice'));
    }
  });

  test('a file whose hash is already known is not parsed again', async () => {
    const job: ParseJob = { id: 0, abs: join(ESTATE, 'orders/orders-app/src/main/java/com/acme/orders/service/OrderBatch.java'), rel: 'x.java', language: 'java' };
    let hash = '';
    await runParseJobs([job], 0, (_, r) => (hash = r.hash ?? ''));
    assert.match(hash, /^[0-9a-f]{40}$/);
    let again: ParseResult | undefined;
    await runParseJobs([{ ...job, knownHash: hash }], 0, (_, r) => (again = r));
    assert.equal(again?.hash, hash);
    assert.equal(again?.facts, undefined);
  });

  test('a file that vanishes after discovery gives an error result for that file alone, with workers', async () => {
    const work = mkdtempSync(join(tmpdir(), 'sextant-parse-'));
    try {
      cpSync(ESTATE, work, { recursive: true });
      const gone = 'orders/orders-app/src/main/java/com/acme/orders/service/OrderBatch.java';
      const { discover } = await import('../src/sources/code/discover.js');
      const found = await discover(work, { includeTests: false, exclude: [] });
      assert.ok(found.files.some((f) => f.path === gone));
      const jobs: ParseJob[] = found.files.map((f, id) => ({ id, abs: join(work, f.path), rel: f.path, language: f.language }));
      rmSync(join(work, gone));
      const errors: string[] = [];
      await runParseJobs(jobs, 2, (job, r) => r.error !== undefined && errors.push(job.rel));
      assert.deepEqual(errors, [gone]);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  test('the queue spreads languages over threads so that few threads warm up a grammar, and leaves nothing behind', () => {
    const jobs: ParseJob[] = [];
    for (let i = 0; i < WARM_UP_FILES + 100; i++) jobs.push({ id: jobs.length, abs: `/j${i}`, rel: `j${i}.java`, language: 'java' });
    for (let i = 0; i < 10; i++) jobs.push({ id: jobs.length, abs: `/k${i}`, rel: `k${i}.kt`, language: 'kotlin' });
    const queue = new ParseQueue(jobs);
    const main = new Set<Language>();
    const worker = new Set<Language>();
    assert.equal(queue.take(main)?.language, 'java', 'the first thread starts on the language with most files');
    assert.equal(queue.take(worker)?.language, 'kotlin', 'the next thread starts on a language no thread has started');
    for (let i = 0; i < 9; i++) assert.equal(queue.take(worker)?.language, 'kotlin', 'a thread keeps to its language');
    assert.equal(queue.take(worker)?.language, 'java', 'with enough left to repay its warm-up, a thread joins another language');
    assert.deepEqual([...worker].sort(), ['java', 'kotlin']);
    while (queue.remaining > WARM_UP_FILES - 1) queue.take(main);
    assert.equal(queue.take(new Set()), undefined, 'too little left for a cold thread');
    const finisher = new Set<Language>();
    let taken = 0;
    while (queue.take(finisher, true)) taken++;
    assert.equal(taken, WARM_UP_FILES - 1, 'the finishing thread takes whatever is left');
    assert.equal(queue.remaining, 0);
  });

  test('SEXTANT_PARSE_WORKERS: a count, 0 for none, and a teaching error otherwise', () => {
    assert.equal(parseWorkerCount(5000, { SEXTANT_PARSE_WORKERS: '0' }), 0);
    assert.equal(parseWorkerCount(3, { SEXTANT_PARSE_WORKERS: '2' }), 2);
    assert.equal(parseWorkerCount(10, {}), 0, 'a small batch parses on the main thread');
    assert.throws(() => parseWorkerCount(10, { SEXTANT_PARSE_WORKERS: 'many' }), /SEXTANT_PARSE_WORKERS must be a whole number.*"many"/);
  });
});
