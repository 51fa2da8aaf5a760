/**
 * The links workload of `npm run bench`: every real estate of `../shared/corpora/` indexed cold as `sextant index`
 * indexes it (in this process, one after another), then its `links` report: per kind of link (HTTP clients,
 * message sends, listeners, gateway routes) how many there are, their statuses and the share with a known outcome;
 * and, where the estate has a hand-checked file in `test/estates/`, how many of its entries the report gets right
 * (the same comparison the suite makes, `test/helpers/estate-links.ts`).
 *
 * The index time per estate is wall time of `buildWorkspace` on a fresh store, with parse workers as configured
 * (SEXTANT_PARSE_WORKERS). `--only=links` runs it alone; SEXTANT_BENCH_ESTATES=a,b picks estates.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sextantOntology } from '../src/graph/ontology/index.js';
import { SqliteStore } from '../src/graph/sqlite/store.js';
import { buildWorkspace } from '../src/indexer/build.js';
import { resolveTarget } from '../src/indexer/target.js';
import { runTool } from '../src/query/index.js';
import { KNOWN_STATUSES, LINK_KINDS } from '../src/query/tools/links.js';
import { compareLinks, ESTATES_DIR, loadExpected, reportedLinks, serviceDirectories } from '../test/helpers/estate-links.js';
import { log, round } from './util.js';

interface KindReport {
  total: number;
  by_status: Record<string, number>;
  /** Share with a known outcome (linked, external, deployed, no consumer, resolved), from the report itself. */
  resolved_share: number;
  /** Hand-checked entries of this kind, and how many the report gets exactly right. */
  expected?: number;
  right?: number;
}

interface EstateLinks {
  estate: string;
  index_seconds: number;
  nodes: number;
  edges: number;
  warnings: number;
  kinds: Record<string, KindReport>;
  /** All kinds together: hand-checked entries, right, missing, wrong, extra. */
  checked?: { expected: number; right: number; missing: number; wrong: number; extra: number; share_right: number };
}

export interface LinksReport {
  corpora: string;
  estates: EstateLinks[];
  totals: {
    index_seconds: number;
    kinds: Record<string, { total: number; known: number; resolved_share: number; expected: number; right: number; share_right: number }>;
    checked: { expected: number; right: number; missing: number; wrong: number; extra: number; share_right: number };
  };
  errors: number;
}

export function corporaDir(): string {
  const beside = fileURLToPath(new URL('../../../shared/corpora', import.meta.url));
  return existsSync(beside) ? beside : '/work/shared/corpora';
}

export async function runLinks(opts: { keep: boolean; estates?: string[] }): Promise<LinksReport> {
  const corpora = corporaDir();
  const all = readdirSync(corpora, { withFileTypes: true }).filter((d) => d.isDirectory() && !d.name.startsWith('.')).map((d) => d.name).sort();
  const estates = opts.estates?.length ? all.filter((e) => opts.estates!.includes(e)) : all;
  const ontology = sextantOntology();
  const root = mkdtempSync(join(tmpdir(), 'sextant-bench-links-'));
  const out: EstateLinks[] = [];
  let errors = 0;
  try {
    for (const estate of estates) {
      const storeDir = join(root, estate);
      const t0 = performance.now();
      const writer = SqliteStore.open(ontology, storeDir, { mode: 'write' });
      const { config } = await resolveTarget(join(corpora, estate));
      const built = await buildWorkspace(writer, ontology, config);
      await writer.close();
      const seconds = (performance.now() - t0) / 1000;
      const reader = SqliteStore.open(ontology, storeDir, { mode: 'read' });
      const ctx = { store: reader, ontology };
      const summary = (await runTool(ctx, 'links', { limit: 1 })) as Record<string, any>;
      if (!summary.ok) {
        errors++;
        log(`links ${estate}: the links tool failed: ${JSON.stringify(summary.error)}`);
        await reader.close();
        continue;
      }
      const kinds: Record<string, KindReport> = {};
      for (const kind of LINK_KINDS) {
        const c = summary.summary[kind] as { total: number; by_status: Record<string, number>; resolved_share: number };
        kinds[kind] = { total: c.total, by_status: c.by_status, resolved_share: c.resolved_share };
      }
      const entry: EstateLinks = {
        estate,
        index_seconds: round(seconds, 2),
        nodes: built.sources.reduce((n, s) => n + s.nodes, 0),
        edges: built.sources.reduce((n, s) => n + s.edges, 0),
        warnings: built.sources.reduce((n, s) => n + s.warnings.length, 0),
        kinds,
      };
      if (existsSync(join(ESTATES_DIR, `${estate}.yaml`))) {
        const expected = loadExpected(estate);
        const diffs = compareLinks(expected, await reportedLinks(ctx), await serviceDirectories(ctx));
        const count = (k: string, kind?: string) => diffs.filter((d) => d.kind === k && (!kind || d.text.startsWith(`${kind} `))).length;
        for (const kind of LINK_KINDS) {
          const want = expected.links.filter((l) => l.kind === kind).length;
          kinds[kind]!.expected = want;
          kinds[kind]!.right = want - count('missing', kind) - count('wrong', kind);
        }
        const right = expected.links.length - count('missing') - count('wrong');
        entry.checked = { expected: expected.links.length, right, missing: count('missing'), wrong: count('wrong'), extra: count('extra'), share_right: expected.links.length ? round(right / expected.links.length, 3) : 1 };
      }
      await reader.close();
      out.push(entry);
      log(`links ${estate}: indexed in ${entry.index_seconds} s${entry.checked ? `, ${entry.checked.right}/${entry.checked.expected} hand-checked links right` : ''}`);
    }
  } finally {
    if (!opts.keep) rmSync(root, { recursive: true, force: true });
    else log(`links: stores kept under ${root}`);
  }
  const kindTotals: LinksReport['totals']['kinds'] = {};
  for (const kind of LINK_KINDS) {
    let total = 0;
    let known = 0;
    let expected = 0;
    let right = 0;
    for (const e of out) {
      const k = e.kinds[kind]!;
      total += k.total;
      known += KNOWN_STATUSES.reduce((n, status) => n + (k.by_status[status] ?? 0), 0);
      expected += k.expected ?? 0;
      right += k.right ?? 0;
    }
    kindTotals[kind] = { total, known, resolved_share: total ? round(known / total, 3) : 1, expected, right, share_right: expected ? round(right / expected, 3) : 1 };
  }
  const sum = (f: (c: NonNullable<EstateLinks['checked']>) => number) => out.reduce((n, e) => n + (e.checked ? f(e.checked) : 0), 0);
  const expected = sum((c) => c.expected);
  const right = sum((c) => c.right);
  return {
    corpora,
    estates: out,
    totals: {
      index_seconds: round(out.reduce((n, e) => n + e.index_seconds, 0), 1),
      kinds: kindTotals,
      checked: { expected, right, missing: sum((c) => c.missing), wrong: sum((c) => c.wrong), extra: sum((c) => c.extra), share_right: expected ? round(right / expected, 3) : 1 },
    },
    errors,
  };
}
