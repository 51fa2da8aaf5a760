/**
 * The real-estate workload of `npm run bench` (`--only=real`): every estate of `../shared/corpora/`, and all of them
 * side by side (the corpora folder as one tree), indexed by the `sextant` CLI in a child process, as a user runs it:
 *   - cold: a fresh index. Wall and CPU seconds (user + system, every thread), Java/Kotlin files per CPU-second, peak
 *     RSS, nodes and edges, and the seconds per phase (discover, load_cache, parse, configuration, evaluate, link, save_cache,
 *     write) from the build report;
 *   - unchanged: `sextant index` again with nothing changed;
 *   - one file: one method added to one source file, then `sextant index` again (the first re-index, which also
 *     saves the assembler's state); the index it leaves is compared with a fresh index of the edited tree
 *     (`equals_fresh`: same nodes in the same order, same edges);
 *   - one file again: another method added to that file, then `sextant index` again (restoring the state the last
 *     one saved), compared with a fresh index in the same way.
 * Each estate is copied to a temporary folder first and its times set an hour back, as a checkout's are (the corpora
 * are never written). `digest` is a hash of the cold index's nodes and edges: equal digests across two runs of the
 * bench (before and after a change to the indexer) mean identical graphs.
 *
 * SEXTANT_BENCH_ESTATES=a,b picks estates; SEXTANT_BENCH_SIDE_BY_SIDE=0 leaves out the side-by-side run.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dumpIndex } from '../test/helpers/store.js';
import { ageTree, withProbeMethod } from '../test/helpers/estate.js';
import { corporaDir } from './links.js';
import { log, round } from './util.js';

const BIN = fileURLToPath(new URL('./index-bin.js', import.meta.url));

interface RunUsage {
  wall_seconds: number;
  cpu_seconds: number;
  user_seconds: number;
  system_seconds: number;
  peak_rss_mb: number;
}

interface ColdRun extends RunUsage {
  files: number;
  files_per_cpu_second: number;
  nodes: number;
  edges: number;
  /** Seconds per phase of the code build, and the store write. */
  phases_seconds: Record<string, number>;
}

type OneFileRun = RunUsage & { written: string; parsed: number; emitted: number; yaml?: { parsed: number; recalled: number }; equals_fresh: boolean; phases_seconds: Record<string, number> };

export interface RealEstateReport {
  estate: string;
  cold: ColdRun;
  unchanged: RunUsage & { written: string };
  /** The first re-index after a one-file edit: it assembles every file, and saves the assembler's state. */
  one_file: OneFileRun & { file: string };
  /** Another method added to that file: this re-index restores the state the last one saved. */
  one_file_again: OneFileRun;
  /** A call added inside a method body, on the line of the `return` that opens a block (no line moves, no declaration changes): restored too. */
  one_body: OneFileRun & { file: string };
  digest: string;
}

export interface RealReport {
  corpora: string;
  estates: RealEstateReport[];
  side_by_side?: RealEstateReport;
  /** Over the estates one by one (side by side not included). */
  totals: { files: number; cold_cpu_seconds: number; cold_wall_seconds: number; files_per_cpu_second: number; unchanged_wall_seconds_max: number; one_file_wall_seconds_max: number; one_file_again_wall_seconds_max: number; one_body_wall_seconds_max: number };
  errors: number;
}

interface BuildJson {
  write_seconds: number;
  sources: { written?: string; details?: { parsed: number; reused: number; emitted: number; yaml?: { parsed: number; recalled: number }; phases_seconds: Record<string, number> } }[];
  counts: { nodes: number; edges: number };
}

/** Runs `sextant index <tree> --store <store> --json` in a child process; its report and what it used. */
function indexRun(tree: string, store: string): { report: BuildJson; usage: RunUsage } {
  const usageFile = join(store, '..', `usage-${process.hrtime.bigint()}.json`);
  const started = performance.now();
  const child = spawnSync(process.execPath, [BIN, 'index', tree, '--store', store, '--json'], { env: { ...process.env, SEXTANT_BENCH_USAGE: usageFile }, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const wall = (performance.now() - started) / 1000;
  if (child.status !== 0) throw new Error(`sextant index ${tree} failed (${child.status}): ${child.stderr.slice(-2000)}`);
  const used = JSON.parse(readFileSync(usageFile, 'utf8')) as { user_seconds: number; system_seconds: number; max_rss_mb: number };
  rmSync(usageFile, { force: true });
  return {
    report: JSON.parse(child.stdout) as BuildJson,
    usage: { wall_seconds: round(wall, 2), cpu_seconds: round(used.user_seconds + used.system_seconds, 2), user_seconds: round(used.user_seconds, 2), system_seconds: round(used.system_seconds, 2), peak_rss_mb: used.max_rss_mb },
  };
}

/** A hash of every node (in answer order) and edge of an index: equal digests, identical graphs. */
async function digestOf(store: string): Promise<string> {
  const { nodes, edges } = await dumpIndex(store);
  const hash = createHash('sha256');
  for (const n of nodes) hash.update(`${n}\n`);
  hash.update('--\n');
  for (const e of edges) hash.update(`${e}\n`);
  return hash.digest('hex').slice(0, 16);
}

function sourceFiles(dir: string, rel = ''): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(dir, rel), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (e.name.startsWith('.') || e.name === 'node_modules') continue;
    const path = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...sourceFiles(dir, path));
    else if (/\.(java|kt)$/.test(e.name) && path.includes('src/main/')) out.push(path);
  }
  return out;
}

/** Adds one method to the first main source file (in path order) that declares a class; returns its path. */
function addOneMethod(tree: string, name: string): string {
  for (const path of sourceFiles(tree)) {
    const file = join(tree, path);
    const text = readFileSync(file, 'utf8');
    if (!/\bclass\s+\w+/.test(text)) continue;
    const edited = withProbeMethod(text, path.endsWith('.kt'), name);
    if (edited === undefined) continue;
    writeFileSync(file, edited);
    return path;
  }
  throw new Error(`no source file declaring a class in ${tree}`);
}

/** A statement that changes what a method calls, and nothing else: no line moves, no declaration changes. */
const BODY_CALL = 'System.nanoTime(); ';

/**
 * Edits one method body: in the first main source file (in path order) with a block that opens on a `return`
 * statement, a call goes before that `return`, on the same line (valid Java and Kotlin). Returns its path.
 */
function editOneBody(tree: string): string {
  for (const path of sourceFiles(tree)) {
    const file = join(tree, path);
    const text = readFileSync(file, 'utf8');
    const at = /\{[ \t]*\r?\n[ \t]+return\s/.exec(text);
    if (!at) continue;
    const start = at.index + at[0].lastIndexOf('return');
    writeFileSync(file, `${text.slice(0, start)}${BODY_CALL}${text.slice(start)}`);
    return path;
  }
  throw new Error(`no main source file in ${tree} has a block that opens on a return statement`);
}

/** Indexes the edited tree again, then compares the index with a fresh one of the same tree. */
async function oneFileRun(tree: string, store: string, fresh: string): Promise<OneFileRun> {
  const one = indexRun(tree, store);
  indexRun(tree, fresh);
  const equalsFresh = JSON.stringify(await dumpIndex(store)) === JSON.stringify(await dumpIndex(fresh));
  rmSync(fresh, { recursive: true, force: true });
  const details = one.report.sources[0]!.details!;
  return { ...one.usage, written: one.report.sources[0]!.written ?? 'full', parsed: details.parsed, emitted: details.emitted, ...(details.yaml ? { yaml: details.yaml } : {}), equals_fresh: equalsFresh, phases_seconds: { ...details.phases_seconds, write: one.report.write_seconds } };
}

async function benchEstate(name: string, source: string, work: string): Promise<RealEstateReport> {
  const tree = join(work, 'tree', name);
  cpSync(source, tree, { recursive: true });
  ageTree(tree, Date.now() / 1000 - 3600);
  const store = join(work, 'stores', name);
  log(`real ${name}: cold`);
  const cold = indexRun(tree, store);
  const details = cold.report.sources[0]!.details!;
  const files = details.parsed + details.reused;
  const digest = await digestOf(store);
  log(`real ${name}: ${files} files, ${cold.usage.cpu_seconds} CPU s, ${cold.usage.wall_seconds} s; unchanged`);
  const unchanged = indexRun(tree, store);
  const file = addOneMethod(tree, 'sextantBenchProbe');
  log(`real ${name}: one file (${file})`);
  const fresh = join(work, 'stores', `${name}-fresh`);
  const one = await oneFileRun(tree, store, fresh);
  addOneMethod(tree, 'sextantBenchProbeAgain');
  log(`real ${name}: one file again`);
  const again = await oneFileRun(tree, store, fresh);
  const bodyFile = editOneBody(tree);
  log(`real ${name}: one body (${bodyFile})`);
  const body = await oneFileRun(tree, store, fresh);
  rmSync(store, { recursive: true, force: true });
  rmSync(tree, { recursive: true, force: true });
  return {
    estate: name,
    cold: {
      ...cold.usage,
      files,
      files_per_cpu_second: round(files / cold.usage.cpu_seconds, 1),
      nodes: cold.report.counts.nodes,
      edges: cold.report.counts.edges,
      phases_seconds: { ...details.phases_seconds, write: cold.report.write_seconds },
    },
    unchanged: { ...unchanged.usage, written: unchanged.report.sources[0]!.written ?? 'full' },
    one_file: { ...one, file },
    one_file_again: again,
    one_body: { ...body, file: bodyFile },
    digest,
  };
}

export async function runReal(opts: { keep: boolean; estates?: string[]; sideBySide?: boolean }): Promise<RealReport> {
  const corpora = corporaDir();
  const all = readdirSync(corpora, { withFileTypes: true }).filter((d) => d.isDirectory() && !d.name.startsWith('.')).map((d) => d.name).sort();
  const picked = opts.estates?.length ? all.filter((e) => opts.estates!.includes(e)) : all;
  const work = mkdtempSync(join(tmpdir(), 'sextant-bench-real-'));
  const estates: RealEstateReport[] = [];
  let errors = 0;
  let sideBySide: RealEstateReport | undefined;
  try {
    for (const estate of picked) {
      try {
        estates.push(await benchEstate(estate, join(corpora, estate), work));
      } catch (err) {
        errors++;
        log(`real ${estate}: failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    if (opts.sideBySide !== false) {
      try {
        sideBySide = await benchEstate('corpora', corpora, work);
      } catch (err) {
        errors++;
        log(`real side by side: failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  } finally {
    if (!opts.keep) rmSync(work, { recursive: true, force: true });
    else log(`real: kept ${work}`);
  }
  const sum = (f: (e: RealEstateReport) => number) => round(estates.reduce((n, e) => n + f(e), 0), 2);
  const files = sum((e) => e.cold.files);
  const cpu = sum((e) => e.cold.cpu_seconds);
  return {
    corpora,
    estates,
    ...(sideBySide ? { side_by_side: sideBySide } : {}),
    totals: {
      files,
      cold_cpu_seconds: cpu,
      cold_wall_seconds: sum((e) => e.cold.wall_seconds),
      files_per_cpu_second: round(files / Math.max(cpu, 0.001), 1),
      unchanged_wall_seconds_max: Math.max(0, ...estates.map((e) => e.unchanged.wall_seconds), sideBySide?.unchanged.wall_seconds ?? 0),
      one_file_wall_seconds_max: Math.max(0, ...estates.map((e) => e.one_file.wall_seconds), sideBySide?.one_file.wall_seconds ?? 0),
      one_file_again_wall_seconds_max: Math.max(0, ...estates.map((e) => e.one_file_again.wall_seconds), sideBySide?.one_file_again.wall_seconds ?? 0),
      one_body_wall_seconds_max: Math.max(0, ...estates.map((e) => e.one_body.wall_seconds), sideBySide?.one_body.wall_seconds ?? 0),
    },
    errors,
  };
}
