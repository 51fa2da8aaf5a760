/**
 * The facts cache (a keyed cache, as the assembler's saved state is): written whole, then each save's few changed
 * entries appended to its log as one line, read back as the last save left them; a log cut short, or one that
 * extends another whole file, never yields an entry the last save did not write, nor part of one save.
 */
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { type CachedFile, EXTRACTOR_VERSION, loadFactsCache, saveFactsCache } from '../src/sources/code/cache.js';
import { emptyFacts } from '../src/sources/code/parse/common.js';

function entry(path: string, hash: string): CachedFile {
  return { hash, size: hash.length, mtimeMs: 1000, readFrom: 5000, facts: emptyFacts(path, 'java', '') };
}

/** 100 files, src/F0.java … src/F99.java. */
function estate(): Map<string, CachedFile> {
  return new Map(Array.from({ length: 100 }, (_, i) => [`src/F${i}.java`, entry(`src/F${i}.java`, `h${i}`)] as const));
}

function plain(map: ReadonlyMap<string, CachedFile>): [string, CachedFile][] {
  return JSON.parse(JSON.stringify([...map].sort(([a], [b]) => (a < b ? -1 : 1)))) as [string, CachedFile][];
}

/** Runs a case with a cache file (and its log's path) in a fresh folder, removed afterwards. */
async function withCache(run: (paths: { file: string; log: string }) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sextant-facts-cache-'));
  const file = join(dir, 'code-x.facts');
  try {
    await run({ file, log: `${file}.log` });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a few changed entries go to the log; the whole file stays as it was; loading gives what was saved', () =>
  withCache(async ({ file, log }) => {
    await saveFactsCache(file, estate());
    const whole = readFileSync(file, 'utf8');
    const first = await loadFactsCache(file);
    const next = new Map(first);
    next.set('src/F3.java', entry('src/F3.java', 'changed'));
    next.set('src/New.java', entry('src/New.java', 'new'));
    next.delete('src/F7.java');
    await saveFactsCache(file, next, first);
    assert.equal(readFileSync(file, 'utf8'), whole, 'the whole file is not written again');
    assert.ok(existsSync(log));
    assert.equal(readFileSync(log, 'utf8').trim().split('\n').length, 2, 'a header and the save’s line (three entries)');
    const second = await loadFactsCache(file);
    assert.deepEqual(plain(second), plain(next));
    // A later build appends to the same log.
    const third = new Map(second);
    third.set('src/F3.java', entry('src/F3.java', 'again'));
    await saveFactsCache(file, third, second);
    assert.equal(readFileSync(log, 'utf8').trim().split('\n').length, 3);
    assert.deepEqual(plain(await loadFactsCache(file)), plain(third));
  }));

test('once the log would hold more than a tenth of the entries (and more than 50), the whole file is written and the log dropped', () =>
  withCache(async ({ file, log }) => {
    const many = new Map(Array.from({ length: 1000 }, (_, i) => [`src/F${i}.java`, entry(`src/F${i}.java`, `h${i}`)] as const));
    await saveFactsCache(file, many);
    const loaded = await loadFactsCache(file);
    const next = new Map(loaded);
    for (let i = 0; i < 90; i++) next.set(`src/F${i}.java`, entry(`src/F${i}.java`, `c${i}`));
    await saveFactsCache(file, next, loaded);
    assert.ok(existsSync(log), '90 of 1000: logged');
    const again = await loadFactsCache(file);
    const more = new Map(again);
    for (let i = 100; i < 120; i++) more.set(`src/F${i}.java`, entry(`src/F${i}.java`, `d${i}`));
    const before = readFileSync(file, 'utf8');
    await saveFactsCache(file, more, again);
    assert.equal(existsSync(log), false, '110 of 1000: folded into the whole file');
    assert.notEqual(readFileSync(file, 'utf8'), before, 'the whole file is written again');
    assert.deepEqual(plain(await loadFactsCache(file)), plain(more));
  }));

test('a log line cut short ends the log there, and the next save writes the whole file', () =>
  withCache(async ({ file, log }) => {
    await saveFactsCache(file, estate());
    const first = await loadFactsCache(file);
    const next = new Map(first);
    next.set('src/F1.java', entry('src/F1.java', 'one'));
    await saveFactsCache(file, next, first);
    // A process killed while appending a save of two entries: the line holds the first and half of the second.
    const cut = JSON.stringify([['src/F2.java', entry('src/F2.java', 'two')], ['src/F3.java', entry('src/F3.java', 'three')]]);
    appendFileSync(log, cut.slice(0, cut.indexOf('src/F3.java') + 20));
    const read = await loadFactsCache(file);
    assert.equal(read.get('src/F1.java')?.hash, 'one', 'saves before the cut are read');
    assert.equal(read.get('src/F2.java')?.hash, 'h2', 'no entry of the cut save is read, not even a whole one');
    assert.equal(read.get('src/F3.java')?.hash, 'h3');
    const after = new Map(read);
    after.set('src/F5.java', entry('src/F5.java', 'five'));
    await saveFactsCache(file, after, read);
    assert.equal(existsSync(log), false, 'a log cut short is not extended');
    assert.deepEqual(plain(await loadFactsCache(file)), plain(after));
  }));

test('a log that extends another whole file, or another extractor version or log layout, is ignored and replaced', () =>
  withCache(async ({ file, log }) => {
    await saveFactsCache(file, estate());
    const id = (JSON.parse(readFileSync(file, 'utf8')) as { id: string }).id;
    const save = `${JSON.stringify([['src/F1.java', entry('src/F1.java', 'stale')]])}\n`;
    writeFileSync(log, `${JSON.stringify({ version: EXTRACTOR_VERSION, id: 'another-file', log: 2 })}\n${save}`);
    const read = await loadFactsCache(file);
    assert.equal(read.get('src/F1.java')?.hash, 'h1');
    writeFileSync(log, `${JSON.stringify({ version: 'code-facts-0', id, log: 2 })}\n${save}`);
    assert.equal((await loadFactsCache(file)).get('src/F1.java')?.hash, 'h1', 'another extractor version');
    // The one-line-per-entry log of an earlier Sextant.
    writeFileSync(log, `${JSON.stringify({ version: EXTRACTOR_VERSION, id })}\n${JSON.stringify(['src/F1.java', entry('src/F1.java', 'old')])}\n`);
    const again = await loadFactsCache(file);
    assert.equal(again.get('src/F1.java')?.hash, 'h1', 'a log of another layout');
    // The same header, and the save it holds, is read: the cases above differ from it in one thing each.
    writeFileSync(log, `${JSON.stringify({ version: EXTRACTOR_VERSION, id, log: 2 })}\n${save}`);
    assert.equal((await loadFactsCache(file)).get('src/F1.java')?.hash, 'stale');
    const next = new Map(again);
    next.set('src/F9.java', entry('src/F9.java', 'nine'));
    await saveFactsCache(file, next, again);
    assert.equal(readFileSync(log, 'utf8').trim().split('\n').length, 2, 'a fresh log: its header and one entry');
    assert.deepEqual(plain(await loadFactsCache(file)), plain(next));
  }));

test('text past ASCII (accents, an emoji, a lone surrogate) is written escaped and read back the same', () =>
  withCache(async ({ file, log }) => {
    const files = estate();
    const odd = entry('src/Café.java', 'h-é');
    odd.facts.package = 'com.café.😀.\ud800';
    files.set('src/Café.java', odd);
    await saveFactsCache(file, files);
    assert.match(readFileSync(file, 'latin1'), /^[\x00-\x7f]*$/, 'the whole file is ASCII');
    const read = await loadFactsCache(file);
    assert.equal(read.get('src/Café.java')?.facts.package, 'com.café.😀.\ud800');
    const next = new Map(read);
    const again = entry('src/Déjà.java', 'h-à');
    again.facts.package = 'ü';
    next.set('src/Déjà.java', again);
    await saveFactsCache(file, next, read);
    assert.match(readFileSync(log, 'latin1'), /^[\x00-\x7f]*$/, 'the log is ASCII');
    assert.deepEqual(plain(await loadFactsCache(file)), plain(next));
  }));
