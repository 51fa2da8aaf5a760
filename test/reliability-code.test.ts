/**
 * Pathological Java and Kotlin through the real code pipeline (discovery, tree-sitter extraction, model, calls,
 * graph): code nested thousands deep is indexed (up to a stated depth, with a warning naming the file and line)
 * instead of being dropped as unreadable, and one class with tens of thousands of members indexes in linear time.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, test } from 'node:test';
import { sextantOntology } from '../src/graph/ontology/index.js';
import { buildCodeSource } from '../src/sources/code/index.js';
import { estateSource } from './helpers/estate.js';

const ontology = sextantOntology();
const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'sextant-reliability-code-'));
  dirs.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

/** Writes `files` (path → text) into a fresh tree and indexes it on this thread. */
async function index(files: Record<string, string>) {
  const dir = tree(files);
  const built = await buildCodeSource(estateSource(dir), { ontology, baseDir: dir, env: { SEXTANT_PARSE_WORKERS: '0' } });
  const symbols = new Set(built.nodes.filter((n) => n.kind === 'symbol').map((n) => n.qualified_name));
  return { ...built, symbols };
}

const J = 'src/main/java/p/';
const K = 'src/main/kotlin/p/';
const N = 10_000;
const terms = (term: string, n = N) => Array.from({ length: n }, () => term).join(' + ');

function assertNotUnreadable(warnings: string[]): void {
  for (const w of warnings) assert.doesNotMatch(w, /could not be read/, w);
}

describe('deep nesting', () => {
  test('Java: 10,000-deep expressions leave the file, its types and members indexed; calls inside are all kept', async () => {
    const built = await index({
      [`${J}Parens.java`]: `package p;\nclass Parens {\n  int x = ${'('.repeat(N)}1${')'.repeat(N)};\n  void after() { helper(); }\n  void helper() {}\n}\n`,
      [`${J}Plus.java`]: `package p;\nclass Plus {\n  int a;\n  static final String S = ${terms('"a"')};\n  int f() { return ${terms('a')}; }\n  void after() { f(); }\n}\n`,
      [`${J}Calls.java`]: `package p;\nclass Calls {\n  int g(int x) { return x; }\n  int f() {\n    return ${'g('.repeat(N)}1${')'.repeat(N)};\n  }\n  void after() { f(); }\n}\n`,
      [`${J}Chain.java`]: `package p;\nclass Chain {\n  Chain g() { return this; }\n  void f() {\n    this${'.g()'.repeat(N)};\n  }\n}\n`,
    });
    assertNotUnreadable(built.warnings);
    for (const qn of ['p.Parens', 'p.Parens#after()', 'p.Parens#helper()', 'p.Plus', 'p.Plus#f()', 'p.Plus#after()', 'p.Calls#g(int)', 'p.Calls#f()', 'p.Calls#after()', 'p.Chain#f()']) {
      assert.ok(built.symbols.has(qn), `${qn} is indexed`);
    }
    const calls = (from: string) => built.edges.filter((e) => e.type === 'CALLS' && built.nodes.find((n) => n.id === e.from)?.qualified_name === from);
    assert.equal(calls('p.Calls#f()').length, N, 'every nested call of g is a CALLS edge');
    assert.equal(calls('p.Parens#after()').length, 1);
    // The receiver of the deepest calls is read only so deep: said, with the file and the line it stopped at.
    const deep = built.warnings.find((w) => /nest code deeper/.test(w));
    assert.ok(deep, built.warnings.join('\n'));
    assert.match(deep, /src\/main\/java\/p\/Chain\.java:5\b/);
  });

  test('Java: 3,000 nested classes index the outer class, the first 200 levels, and the outer members after them', async () => {
    const depth = 3000;
    let nested = '';
    for (let i = 0; i < depth; i++) nested += `class C${i} {\n void m${i}() { new Object() { void r() {} }; }\n`;
    nested += '}\n'.repeat(depth);
    const built = await index({ [`${J}Nested.java`]: `package p;\nclass Nested {\n${nested}  void after() {}\n}\n` });
    assertNotUnreadable(built.warnings);
    assert.ok(built.symbols.has('p.Nested'));
    assert.ok(built.symbols.has('p.Nested#after()'), 'members after the nested classes are indexed');
    assert.ok(built.symbols.has('p.Nested.C0'));
    assert.ok(built.symbols.has('p.Nested.C0#m0()'));
    assert.ok(built.symbols.has(`p.Nested${Array.from({ length: 100 }, (_, i) => `.C${i}`).join('')}`), 'a class 100 deep');
    const deep = built.warnings.find((w) => /nest code deeper/.test(w));
    assert.ok(deep, built.warnings.join('\n'));
    assert.match(deep, /src\/main\/java\/p\/Nested\.java:\d+/);
  });

  test('Kotlin: deep expressions and 3,000 nested classes keep the file, its types and members', async () => {
    const depth = 3000;
    let nested = '';
    for (let i = 0; i < depth; i++) nested += `class C${i} {\nfun m${i}() {}\n`;
    nested += '}\n'.repeat(depth);
    const built = await index({
      [`${K}KParens.kt`]: `package p\nclass KParens {\n  val x = ${'('.repeat(N)}1${')'.repeat(N)}\n  fun after() { helper() }\n  fun helper() {}\n}\n`,
      [`${K}KPlus.kt`]: `package p\nclass KPlus {\n  val a = 1\n  fun f(): Int = ${terms('a')}\n  fun after() { f() }\n}\n`,
      [`${K}KCalls.kt`]: `package p\nclass KCalls {\n  fun g(x: Int) = x\n  fun f() = ${'g('.repeat(N)}1${')'.repeat(N)}\n  fun after() { f() }\n}\n`,
      [`${K}KNested.kt`]: `package p\nclass KNested {\n${nested}\n  fun after() {}\n}\n`,
    });
    assertNotUnreadable(built.warnings);
    for (const qn of ['p.KParens#getX()', 'p.KParens#after()', 'p.KParens#helper()', 'p.KPlus#f()', 'p.KPlus#after()', 'p.KCalls#f()', 'p.KCalls#after()', 'p.KNested', 'p.KNested#after()', 'p.KNested.C0#m0()']) {
      assert.ok(built.symbols.has(qn), `${qn} is indexed`);
    }
    const f = built.nodes.find((n) => n.qualified_name === 'p.KCalls#f()')!;
    assert.equal(built.edges.filter((e) => e.type === 'CALLS' && e.from === f.id).length, N, 'every nested call of g is a CALLS edge');
    const deep = built.warnings.find((w) => /nest code deeper/.test(w));
    assert.ok(deep, built.warnings.join('\n'));
    assert.match(deep, /src\/main\/kotlin\/p\/KNested\.kt:\d+/);
    assert.match(deep, /src\/main\/kotlin\/p\/KParens\.kt:3\b/);
  });
});

const REPO = fileURLToPath(new URL('..', import.meta.url));

/**
 * Indexes `files` in a child process that is killed after HANG_GUARD_MS (indexing is synchronous: a timeout inside
 * this process could not interrupt it). Resolves to the CALLS edges between symbols, as `from -> to` names. The
 * guard only stops a run that hangs; how the time grows with the input is measured by `npm run bench` (shapes).
 */
const HANG_GUARD_MS = 180_000;

function indexWithin(files: Record<string, string>, timeoutMs = HANG_GUARD_MS): Promise<{ symbols: number; calls: string[] }> {
  const dir = tree(files);
  const script = `
    import { buildCodeSource } from ${JSON.stringify(new URL('../src/sources/code/index.ts', import.meta.url).href)};
    import { sextantOntology } from ${JSON.stringify(new URL('../src/graph/ontology/index.ts', import.meta.url).href)};
    import { estateSource } from ${JSON.stringify(new URL('./helpers/estate.ts', import.meta.url).href)};
    const dir = ${JSON.stringify(dir)};
    const built = await buildCodeSource(estateSource(dir), { ontology: sextantOntology(), baseDir: dir, env: { SEXTANT_PARSE_WORKERS: '0' } });
    const name = new Map(built.nodes.map((n) => [n.id, n.qualified_name]));
    const calls = built.edges.filter((e) => e.type === 'CALLS').map((e) => name.get(e.from) + ' -> ' + name.get(e.to));
    process.stdout.write(JSON.stringify({ symbols: built.nodes.filter((n) => n.kind === 'symbol').length, calls }));
  `;
  return new Promise((done, fail) => {
    execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: REPO, timeout: timeoutMs, maxBuffer: 1 << 28 }, (error, stdout, stderr) => {
      if (error) fail(new Error(error.killed ? `indexing did not end within ${timeoutMs} ms (hung?)` : `${error.message}\n${stderr}`));
      else done(JSON.parse(stdout) as { symbols: number; calls: string[] });
    });
  });
}

describe('one huge class', () => {
  // 20,000 members of one class took ~8 s when each call looked its target up among all members (and over 30 s
  // at 44,000). The same shapes at half and full size are timed by `npm run bench` (bench/shapes.ts): a
  // super-linear step coming back shows there, not as a flaky timeout here.
  test('30,000 methods (each calling the next, overloads of one name) and 30,000 fields index, every call resolved', async () => {
    const n = 30_000;
    let body = '';
    for (let i = 0; i < n; i++) {
      body += `  Huge f${i};\n  void m${i}() { m${i + 1}(); f${i}.m${i}(); }\n`;
      // Overloads of one name, 50 to a name: o0(T0 a), o0(T1 a) …, each calling its name.
      if (i % 4 === 0) body += `  void o${i % 400}(T${i} a) { o${i % 400}(a); }\n`;
    }
    const built = await indexWithin({ [`${J}Huge.java`]: `package p;\nclass Huge {\n${body}  void m${n}() {}\n}\n` });
    assert.equal(built.symbols, 1 + (n + 1) + n / 4 + 1, 'the class, its methods, the overloads and the default constructor');
    const calls = new Set(built.calls);
    assert.ok(calls.has('p.Huge#m0() -> p.Huge#m1()'));
    assert.ok(calls.has(`p.Huge#m${n - 1}() -> p.Huge#m${n}()`));
    assert.ok(calls.has('p.Huge#m7() -> p.Huge#m7()'), 'f7.m7() resolves through the field');
    assert.ok(calls.has('p.Huge#o0(T0) -> p.Huge#o0(T0)') || calls.has('p.Huge#o0(T0) -> p.Huge#o0(T400)'), 'an overload call lands on an overload');
  });

  test('an inheritance chain 6,000 classes deep indexes, super calls resolved', async () => {
    // Each class walked its whole chain of superclasses through a list lookup (quadratic per class); bench/shapes.ts times it.
    const n = 6_000;
    let body = '  static class C0 { void m() {} }\n';
    for (let i = 1; i < n; i++) body += `  static class C${i} extends C${i - 1} { void m() { super.m(); } }\n`;
    const built = await indexWithin({ [`${J}Chain.java`]: `package p;\nclass Chain {\n${body}}\n` });
    const calls = new Set(built.calls);
    assert.ok(calls.has('p.Chain.C1#m() -> p.Chain.C0#m()'));
    assert.ok(calls.has(`p.Chain.C${n - 1}#m() -> p.Chain.C${n - 2}#m()`));
  });

  test('thousands of calls on one line to the same method are each an edge (edge keys)', async () => {
    const built = await indexWithin({ [`${J}Line.java`]: `package p;\nclass Line {\n  void g() {}\n  void f() { ${'g(); '.repeat(20_000)} }\n}\n` });
    assert.equal(built.calls.filter((c) => c === 'p.Line#f() -> p.Line#g()').length, 20_000);
  });
});
