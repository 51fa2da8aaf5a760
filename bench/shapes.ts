/**
 * The shapes workload of `npm run bench`: source shapes that once made indexing quadratic or worse, each indexed
 * at half and at full size through the code source (one file, one service, parse in this thread). A linear step
 * doubles its time when the input doubles; `scaling` is t(full) / t(half), and its budget (SHAPE_SCALING_MAX)
 * flags a super-linear step coming back (a shape whose answer is itself quadratic has its own budget). Correctness of the same shapes is asserted in
 * test/reliability-code.test.ts, with no time limit but a hang guard.
 *
 *   - huge_class: one class with n methods (each calling the next and a field's method), n fields and n/4
 *     overloads spread over 400 names (20,000 members once took 8 s when each call scanned every member);
 *   - deep_chain: n nested classes, each extending the previous and calling `super.m()`;
 *   - long_line: n calls of one method on one line (edge keys).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sextantOntology } from '../src/graph/ontology/index.js';
import { buildCodeSource } from '../src/sources/code/index.js';
import { gc, log, round } from './util.js';

/** t(full) / t(half) above this is a super-linear step (linear is 2, quadratic 4). */
export const SHAPE_SCALING_MAX = 3;

interface Shape {
  name: string;
  full: number;
  /** Its own scaling budget, when the answer itself grows faster than the input. */
  scalingMax?: number;
  source(n: number): string;
}

const SHAPES: readonly Shape[] = [
  {
    name: 'huge_class',
    full: 30_000,
    source(n) {
      const body: string[] = [];
      for (let i = 0; i < n; i++) {
        body.push(`  Huge f${i};\n  void m${i}() { m${i + 1}(); f${i}.m${i}(); }\n`);
        if (i % 4 === 0) body.push(`  void o${i % 400}(T${i} a) { o${i % 400}(a); }\n`);
      }
      return `package p;\nclass Huge {\n${body.join('')}  void m${n}() {}\n}\n`;
    },
  },
  {
    name: 'deep_chain',
    full: 6_000,
    // Each class has every class above it as an ancestor: the ancestor lists are quadratic in size by nature
    // (realistic chains are a few deep). The budget catches a cubic step (8) coming back.
    scalingMax: 4.5,
    source(n) {
      const body = ['  static class C0 { void m() {} }\n'];
      for (let i = 1; i < n; i++) body.push(`  static class C${i} extends C${i - 1} { void m() { super.m(); } }\n`);
      return `package p;\nclass Huge {\n${body.join('')}}\n`;
    },
  },
  {
    name: 'long_line',
    full: 20_000,
    source: (n) => `package p;\nclass Huge {\n  void g() {}\n  void f() { ${'g(); '.repeat(n)} }\n}\n`,
  },
];

interface ShapeReport {
  n: number;
  half_seconds: number;
  full_seconds: number;
  nodes: number;
  edges: number;
  scaling: number;
  scaling_max: number;
  within_budget: boolean;
}

export interface ShapesReport {
  shapes: Record<string, ShapeReport>;
  all_within_budget: boolean;
}

async function indexOnce(dir: string, source: string): Promise<{ seconds: number; nodes: number; edges: number }> {
  const file = join(dir, 'src/main/java/p/Huge.java');
  mkdirSync(join(dir, 'src/main/java/p'), { recursive: true });
  writeFileSync(file, source);
  gc();
  const t0 = performance.now();
  const built = await buildCodeSource(
    { kind: 'code', name: 'shape', path: dir, include_tests: false, exclude: [], roles: { annotations: {}, types: {} }, capabilities: { annotations: {}, types: {} }, links: { clients: {}, destinations: {} } },
    { ontology: sextantOntology(), baseDir: dir, env: { SEXTANT_PARSE_WORKERS: '0' } },
  );
  return { seconds: (performance.now() - t0) / 1000, nodes: built.nodes.length, edges: built.edges.length };
}

export async function runShapes(): Promise<ShapesReport> {
  const shapes: Record<string, ShapeReport> = {};
  const root = mkdtempSync(join(tmpdir(), 'sextant-bench-shapes-'));
  try {
    for (const shape of SHAPES) {
      const half = await indexOnce(join(root, `${shape.name}-half`), shape.source(shape.full / 2));
      const full = await indexOnce(join(root, `${shape.name}-full`), shape.source(shape.full));
      const scaling = round(full.seconds / half.seconds, 2);
      shapes[shape.name] = { n: shape.full, half_seconds: round(half.seconds, 2), full_seconds: round(full.seconds, 2), nodes: full.nodes, edges: full.edges, scaling, scaling_max: shape.scalingMax ?? SHAPE_SCALING_MAX, within_budget: scaling <= (shape.scalingMax ?? SHAPE_SCALING_MAX) };
      log(`shapes ${shape.name}: n=${shape.full} in ${round(full.seconds, 2)} s, n/2 in ${round(half.seconds, 2)} s (scaling ${scaling})`);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return { shapes, all_within_budget: Object.values(shapes).every((s) => s.within_budget) };
}
