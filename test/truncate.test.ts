import assert from 'node:assert/strict';
import { test } from 'node:test';
import { truncateJson } from '../src/query/data/truncate.js';

const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v));

test('a list keeps its longest prefix that fits; the cut says where and how much', () => {
  const v = { data: { orders: Array.from({ length: 500 }, (_, i) => ({ id: i, note: 'n'.repeat(20) })) } };
  const t = truncateJson(v, 2000);
  assert.ok(t.fits && bytes(t.value) <= 2000);
  const kept = (t.value as typeof v).data.orders.length;
  assert.deepEqual(t.cuts, [{ path: 'data.orders', kept, total: 500 }]);
  // Maximal: one more element would not fit.
  assert.ok(bytes({ data: { orders: v.data.orders.slice(0, kept + 1) } }) > 2000);
  assert.deepEqual(truncateJson(v, 2000), t);
  assert.deepEqual(truncateJson(v, 1_000_000), { value: v, cuts: [], fits: true });
});

test('a long string is shortened and marked; the lists beside it are cut only as needed', () => {
  const v = { s: 'z'.repeat(5000), rows: Array.from({ length: 50 }, (_, i) => i) };
  const t = truncateJson(v, 300);
  assert.ok(t.fits && bytes(t.value) <= 300, `${bytes(t.value)}`);
  const out = t.value as typeof v;
  assert.ok(out.s.endsWith('…') && out.s.length >= 200);
  assert.ok(t.cuts.some((c) => c.path === 's' && c.total === 5000));
});

test('many long strings in one object and wide objects are cut in bulk, and fit', () => {
  const wide = Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`k${i}`, 'x'.repeat(300)]));
  const t = truncateJson(wide, 20000);
  assert.ok(t.fits && bytes(t.value) <= 20000, `${bytes(t.value)}`);
  assert.ok(t.cuts.some((c) => c.path === '.' && c.total === 3000 && c.kept < 3000));
  const small = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`key${i}`, i]));
  const s = truncateJson(small, 100);
  assert.ok(s.fits && bytes(s.value) <= 100 && s.cuts.length === 1);
});

test('what cannot be cut says so', () => {
  const t = truncateJson(123456789, 5);
  assert.equal(t.fits, false);
});
