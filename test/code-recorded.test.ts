/**
 * A result kept with the reads that made it (src/sources/code/recorded.ts): taken again only while every reader
 * answers the same, asked in the same order; otherwise made again, asking no question a fresh making would not.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { inputDigest, recordedOnce } from '../src/sources/code/recorded.js';

/** A function of a key and of two files it reads through a reader, the second named by the first. */
function make(readers: { read: (arg: string) => unknown }): string {
  const first = String(readers.read('a.txt'));
  return `${first}+${String(readers.read(first))}`;
}
const isString = (v: unknown): v is string => typeof v === 'string';

describe('a result recorded with its reads', () => {
  const files = new Map([['a.txt', 'b.txt'], ['b.txt', 'B'], ['c.txt', 'C']]);
  const asked: string[] = [];
  const readers = { read: (arg: string) => (asked.push(arg), files.get(arg)) };

  test('made once, then taken again while the key and every answer are the same; the readers are asked again', () => {
    const first = recordedOnce(undefined, 'k', readers, make, isString);
    assert.deepEqual([first.value, first.reused], ['b.txt+B', false]);
    assert.deepEqual(first.kept.reads.map(([r, a]) => [r, a]), [['read', 'a.txt'], ['read', 'b.txt']]);
    asked.length = 0;
    const again = recordedOnce(JSON.parse(JSON.stringify(first.kept)), 'k', readers, make, isString);
    assert.deepEqual([again.value, again.reused], ['b.txt+B', true]);
    assert.deepEqual(asked, ['a.txt', 'b.txt'], 'what asking records is recorded again');
  });

  test('another key, or an answer that changed, makes it again, asking only what making asks', () => {
    const kept = recordedOnce(undefined, 'k', readers, make, isString).kept;
    assert.equal(recordedOnce(kept, 'other', readers, make, isString).reused, false);
    files.set('a.txt', 'c.txt');
    asked.length = 0;
    const changed = recordedOnce(kept, 'k', readers, make, isString);
    assert.deepEqual([changed.value, changed.reused], ['c.txt+C', false]);
    // The check stops at the first answer that differs: b.txt is never read, by the check or the making.
    assert.deepEqual(asked, ['a.txt', 'a.txt', 'c.txt']);
    files.set('a.txt', 'b.txt');
  });

  test('a reader that throws is recorded as throwing; garbage or a value of another shape is not taken', () => {
    const throwing = { read: (arg: string): unknown => { if (arg === 'b.txt') throw new Error('gone'); return files.get(arg); } };
    const safe = (r: { read: (arg: string) => unknown }) => { try { return make(r); } catch { return 'none'; } };
    const first = recordedOnce(undefined, 'k', throwing, safe, isString);
    assert.equal(first.value, 'none');
    assert.equal(recordedOnce(first.kept, 'k', throwing, safe, isString).reused, true);
    assert.equal(recordedOnce(first.kept, 'k', readers, safe, isString).reused, false, 'it answers now');
    for (const garbage of [null, 42, 'x', { key: 'k' }, { key: 'k', reads: [[1, 2]], value: 'v' }, { key: 'k', reads: [], value: 7 }]) assert.equal(recordedOnce(garbage, 'k', readers, make, isString).reused, false);
  });

  test('digests tell strings from JSON of the same text, and parts apart', () => {
    assert.notEqual(inputDigest('1'), inputDigest(1));
    assert.notEqual(inputDigest('ab', 'c'), inputDigest('a', 'bc'));
    assert.equal(inputDigest({ a: [1] }, 'x'), inputDigest({ a: [1] }, 'x'));
  });
});
