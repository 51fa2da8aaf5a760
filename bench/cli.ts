/**
 * The CLI's per-call time: `sextant call find`, `sextant call resolve` and the `sextant callers` shortcut, each
 * spawned as a real process against an index of the petclinic estate (the shared corpora), as an agent or a person
 * runs them. What is timed is all of it: Node's start, loading the modules the command needs, opening the index,
 * the query and printing the answer. `node -e 0` is timed the same way, as the floor no command can go under.
 *
 * The launcher (`cli-bin.ts`) is bin/sextant.js compiled with the bench, so the bench times the JavaScript it built.
 * Calls per command: SEXTANT_BENCH_CLI_CALLS (default 30, after 3 untimed).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { latencyStats, log, type LatencyStats } from './util.js';

/** p50 budget of one CLI query, in milliseconds (issue 15: MCP answers in 1–10 ms; a CLI call must not cost 0.5 s). */
export const CLI_BUDGET_P50_MS = 150;
const WARMUP = 3;

/** The commands timed, as a user types them (after `sextant`). */
const COMMANDS: readonly { name: string; args: readonly string[] }[] = [
  { name: 'call_find', args: ['call', 'find', '{"kind":"service"}'] },
  { name: 'call_resolve', args: ['call', 'resolve', '{"identifier":"VisitsServiceClient"}'] },
  { name: 'callers', args: ['callers', 'VisitsServiceClient#getVisitsForPets'] },
];

export interface CliReport {
  corpus: string;
  calls_per_command: number;
  /** `node -e 0`: Node's own start-up on this machine. */
  node_floor: LatencyStats;
  commands: Record<string, LatencyStats & { command: string }>;
  budgets: { p50_ms_max: number };
  within_budget: Record<string, unknown>;
  errors: number;
  error_samples?: { command: string; code: number | null; stderr: string }[];
}

function shared(): string {
  const beside = fileURLToPath(new URL('../../../shared', import.meta.url));
  return existsSync(join(beside, 'corpora')) ? beside : '/work/shared';
}

/** Runs a process to its end: wall time in ms, exit code, stderr. */
function timed(command: string, args: readonly string[]): Promise<{ ms: number; code: number | null; stderr: string }> {
  return new Promise((done, fail) => {
    const t0 = performance.now();
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stdout.resume();
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 2000) stderr += chunk.toString();
    });
    child.on('error', fail);
    child.on('close', (code) => done({ ms: performance.now() - t0, code, stderr }));
  });
}

export async function runCli(opts: { calls: number; keep: boolean }): Promise<CliReport> {
  const corpus = join(shared(), 'corpora', 'spring-petclinic-microservices');
  if (!existsSync(corpus)) throw new Error(`the CLI bench needs the petclinic corpus at ${corpus}`);
  const bin = fileURLToPath(new URL('./cli-bin.js', import.meta.url));
  const dir = mkdtempSync(join(tmpdir(), 'sextant-bench-cli-'));
  const store = join(dir, 'index');
  try {
    log(`cli: indexing ${corpus}`);
    const built = await timed(process.execPath, [bin, 'index', corpus, '--store', store]);
    if (built.code !== 0) throw new Error(`indexing the corpus failed (exit ${built.code}): ${built.stderr}`);

    const floorSamples: number[] = [];
    for (let i = 0; i < WARMUP + opts.calls; i++) {
      const r = await timed(process.execPath, ['-e', '0']);
      if (i >= WARMUP) floorSamples.push(r.ms);
    }
    const nodeFloor = latencyStats(floorSamples, 0);
    log(`cli: node -e 0 median ${nodeFloor.median_ms} ms`);

    const commands: CliReport['commands'] = {};
    const within: Record<string, unknown> = {};
    const errorSamples: NonNullable<CliReport['error_samples']> = [];
    let errors = 0;
    let all = true;
    for (const c of COMMANDS) {
      const args = [bin, ...c.args, '--store', store];
      const samples: number[] = [];
      let failed = 0;
      for (let i = 0; i < WARMUP + opts.calls; i++) {
        const r = await timed(process.execPath, args);
        if (r.code !== 0) {
          failed++;
          if (errorSamples.length < 5) errorSamples.push({ command: `sextant ${c.args.join(' ')}`, code: r.code, stderr: r.stderr });
        }
        if (i >= WARMUP) samples.push(r.ms);
      }
      const stats = latencyStats(samples, failed);
      commands[c.name] = { command: `sextant ${c.args.join(' ')}`, ...stats };
      const pass = stats.median_ms <= CLI_BUDGET_P50_MS;
      all &&= pass;
      within[`${c.name}_p50_ms`] = { value: stats.median_ms, max: CLI_BUDGET_P50_MS, pass };
      errors += failed;
      log(`cli ${c.name}: median ${stats.median_ms} ms, p95 ${stats.p95_ms} ms, max ${stats.max_ms} ms, errors ${failed}`);
    }
    within.all = all;
    return {
      corpus: 'spring-petclinic-microservices',
      calls_per_command: opts.calls,
      node_floor: nodeFloor,
      commands,
      budgets: { p50_ms_max: CLI_BUDGET_P50_MS },
      within_budget: within,
      errors,
      ...(errorSamples.length ? { error_samples: errorSamples } : {}),
    };
  } finally {
    if (!opts.keep) rmSync(dir, { recursive: true, force: true });
    else log(`cli: store kept at ${store}`);
  }
}

export function cliCalls(env: Record<string, string | undefined>): number {
  const raw = env['SEXTANT_BENCH_CLI_CALLS'];
  if (raw === undefined || raw === '') return 30;
  if (!/^\d+$/.test(raw)) throw new Error(`SEXTANT_BENCH_CLI_CALLS must be a whole number; got ${JSON.stringify(raw)}`);
  return Math.max(1, Number(raw));
}
