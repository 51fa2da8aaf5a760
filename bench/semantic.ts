/**
 * The semantic workload of `npm run bench` (`--only=semantic`): a retrieval eval of `search` in its three modes,
 * with a real embedding model (all-MiniLM-L6-v2 served by test/embedding-server, the tests' OpenAI-compatible
 * server), over five real estates of ../shared/corpora and the Hugr golden schemas of ../shared/fixtures, indexed
 * together in one workspace (every question is asked of the whole index).
 *
 * The questions (bench/eval/questions.json) were written from reading the code and schemas, never from Sextant's
 * answers: intent questions over code and over Hugr, and name queries (hybrid must not lose to lexical on those).
 * For each set and mode: recall@10 (a question counts when one of its expected nodes is in the top 10) and MRR (the
 * first expected node's reciprocal rank, 0 past 10). Also: the embedding throughput, and what embeddings add to the
 * index (seconds, store size), measured against the same workspace indexed without them.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sextantOntology } from '../src/graph/ontology/index.js';
import { SqliteStore } from '../src/graph/sqlite/store.js';
import { buildWorkspace } from '../src/indexer/build.js';
import { embedIndex, type EmbedReport } from '../src/indexer/embed.js';
import { resolveTarget } from '../src/indexer/target.js';
import { runTool } from '../src/query/index.js';
import { startEmbeddingServer } from '../test/helpers/embedding-server.js';
import { latencyStats, log, mb, round, storeBytes, type LatencyStats } from './util.js';

const ESTATES = ['spring-petclinic-microservices', 'piggymetrics', 'eazybank', 'flowing-retail', 'digital-restaurant'];
const GOLDEN = ['cube', 'harness', 'joinview', 'multi', 'structs', 'tfcj', 'unique', 'vector'];
const MODES = ['lexical', 'semantic', 'hybrid'] as const;
const TOP = 10;

interface Question {
  q: string;
  expect: string[];
}

interface SetReport {
  questions: number;
  /** Per mode: share of questions with an expected node in the top 10, and mean reciprocal rank. */
  modes: Record<(typeof MODES)[number], { recall_at_10: number; mrr: number }>;
  /** Questions hybrid misses (no expected node in its top 10), with lexical's and semantic's ranks of the first expected. */
  hybrid_misses: { q: string; lexical_rank: number | null; semantic_rank: number | null }[];
  /** Questions where hybrid ranks the first expected node lower than lexical does. */
  hybrid_below_lexical: { q: string; lexical_rank: number; hybrid_rank: number | null }[];
}

export interface SemanticReport {
  description: string;
  model: string;
  estates: string[];
  hugr_sources: string[];
  nodes: number;
  embedded_nodes: number;
  index: {
    lexical_seconds: number;
    with_embeddings_seconds: number;
    embedding_pass_seconds: number;
    texts_per_second: number;
    store_mb_lexical: number;
    store_mb_with_embeddings: number;
  };
  sets: Record<string, SetReport>;
  search_latency_ms: Record<(typeof MODES)[number], LatencyStats>;
  errors: number;
}

function sharedDir(): string {
  return fileURLToPath(new URL('../../../shared', import.meta.url));
}

function workspaceYaml(embeddingsUrl: string | undefined): string {
  const shared = sharedDir();
  const hugr = join(shared, 'fixtures', 'hugr');
  const scalars = fileURLToPath(new URL('../../test/fixtures/hugr/scalars.graphql', import.meta.url));
  const base = ['base.graphql', 'system_types.graphql', 'gis.graphql', 'query_directives.graphql'].map((f) => join(hugr, 'base', f));
  const lines = ['sources:'];
  for (const e of ESTATES) lines.push(`  - name: ${e}`, '    kind: code', `    path: ${join(shared, 'corpora', e)}`);
  for (const g of GOLDEN) lines.push(`  - name: ${g}`, '    kind: graphql', `    schema: [${[...base, scalars, join(hugr, 'golden', `${g}.graphql`)].join(', ')}]`);
  if (embeddingsUrl) lines.push('embeddings:', `  endpoint: ${embeddingsUrl}`, '  model: all-MiniLM-L6-v2', '  batch_size: 64');
  return `${lines.join('\n')}\n`;
}

export async function runSemantic(opts: { keep: boolean }): Promise<SemanticReport> {
  const questions = JSON.parse(readFileSync(fileURLToPath(new URL('../../bench/eval/questions.json', import.meta.url)), 'utf8')) as Record<string, unknown>;
  const sets = Object.fromEntries(Object.entries(questions).filter(([, v]) => Array.isArray(v))) as Record<string, Question[]>;
  const server = await startEmbeddingServer({ script: fileURLToPath(new URL('../../test/embedding-server/server.py', import.meta.url)) });
  const work = mkdtempSync(join(tmpdir(), 'sextant-bench-semantic-'));
  const ontology = sextantOntology();
  try {
    const index = async (name: string, embeddings: boolean): Promise<{ store: SqliteStore; seconds: number; embed?: EmbedReport; dir: string }> => {
      const file = join(work, `${name}.yaml`);
      writeFileSync(file, workspaceYaml(embeddings ? server.url : undefined));
      const { config } = await resolveTarget(file);
      const dir = join(work, name);
      const store = SqliteStore.open(ontology, dir, { mode: 'write' });
      const t0 = performance.now();
      await buildWorkspace(store, ontology, config, {}, process.env, { cacheDir: join(work, `${name}-cache`) });
      const embed = config.embeddings ? await embedIndex(store, config.embeddings, { progress: (done, total) => done % 512 === 0 && log(`semantic: embedded ${done}/${total}`) }) : undefined;
      const seconds = (performance.now() - t0) / 1000;
      await store.close();
      return { store: SqliteStore.open(ontology, dir, { mode: 'read' }), seconds, ...(embed ? { embed } : {}), dir };
    };
    log('semantic: indexing the workspace without embeddings');
    const lexical = await index('lexical', false);
    log('semantic: indexing it with embeddings (the model runs on this machine\'s CPU)');
    const semantic = await index('semantic', true);
    const embed = semantic.embed!;
    if (embed.error) throw new Error(`the embedding pass failed: ${embed.error}`);
    const ctx = { store: semantic.store, ontology };
    let errors = 0;
    const latency: Record<string, number[]> = { lexical: [], semantic: [], hybrid: [] };
    const rankOf = async (q: Question, mode: string): Promise<number | null> => {
      const t0 = performance.now();
      const r = await runTool(ctx, 'search', { query: q.q, mode, limit: TOP });
      latency[mode]!.push(performance.now() - t0);
      const body = r as unknown as { ok: boolean; results?: { node: { qualified_name: string } }[] };
      if (!body.ok) {
        errors++;
        log(`semantic: search ${mode} ${JSON.stringify(q.q)} failed: ${JSON.stringify(body).slice(0, 300)}`);
        return null;
      }
      const i = (body.results ?? []).findIndex((x) => q.expect.includes(x.node.qualified_name));
      return i < 0 ? null : i + 1;
    };
    const report: Record<string, SetReport> = {};
    for (const [name, list] of Object.entries(sets)) {
      const ranks: Record<string, (number | null)[]> = { lexical: [], semantic: [], hybrid: [] };
      for (const q of list) for (const mode of MODES) ranks[mode]!.push(await rankOf(q, mode));
      const score = (rs: (number | null)[]) => ({ recall_at_10: round(rs.filter((r) => r !== null).length / rs.length, 3), mrr: round(rs.reduce<number>((s, r) => s + (r ? 1 / r : 0), 0) / rs.length, 3) });
      report[name] = {
        questions: list.length,
        modes: { lexical: score(ranks.lexical!), semantic: score(ranks.semantic!), hybrid: score(ranks.hybrid!) },
        hybrid_misses: list.flatMap((q, i) => (ranks.hybrid![i] === null ? [{ q: q.q, lexical_rank: ranks.lexical![i]!, semantic_rank: ranks.semantic![i]! }] : [])),
        hybrid_below_lexical: list.flatMap((q, i) => {
          const l = ranks.lexical![i] ?? null;
          const h = ranks.hybrid![i] ?? null;
          return l !== null && (h === null || h > l) ? [{ q: q.q, lexical_rank: l, hybrid_rank: h }] : [];
        }),
      };
      log(`semantic: ${name}: ${JSON.stringify(report[name]!.modes)}`);
    }
    const meta = await semantic.store.meta();
    const out: SemanticReport = {
      description: 'recall@10 and MRR of search by mode, all-MiniLM-L6-v2 on this CPU; questions written from reading the code (bench/eval/questions.json)',
      model: embed.model,
      estates: ESTATES,
      hugr_sources: GOLDEN,
      nodes: meta.counts.nodes,
      embedded_nodes: embed.nodes,
      index: {
        lexical_seconds: round(lexical.seconds, 2),
        with_embeddings_seconds: round(semantic.seconds, 2),
        embedding_pass_seconds: embed.seconds,
        texts_per_second: embed.texts_per_second ?? 0,
        store_mb_lexical: mb(storeBytes(lexical.dir)),
        store_mb_with_embeddings: mb(storeBytes(semantic.dir)),
      },
      sets: report,
      search_latency_ms: { lexical: latencyStats(latency.lexical!, 0), semantic: latencyStats(latency.semantic!, 0), hybrid: latencyStats(latency.hybrid!, 0) },
      errors,
    };
    await lexical.store.close();
    await semantic.store.close();
    return out;
  } finally {
    await server.close();
    if (!opts.keep) rmSync(work, { recursive: true, force: true });
    else log(`semantic: kept ${work}`);
  }
}
