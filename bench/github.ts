/**
 * Benchmark on a real schema: GitHub's public GraphQL schema (the `@octokit/graphql-schema` devDependency), indexed
 * with the real Sextant ontology, then queried through a fresh read-mode store the way a server would.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { GraphqlSourceConfig } from '../src/config/types.js';
import { sextantOntology } from '../src/graph/ontology/index.js';
import { SqliteStore } from '../src/graph/sqlite/store.js';
import { validateGraph } from '../src/graph/validate.js';
import { buildGraphqlSource } from '../src/sources/graphql/index.js';
import { Rng, gc, log, mb, round, storeBytes, timeTool, type IndexStats, type ToolCall, type ToolReport } from './util.js';

/** Where the installed package keeps `schema.graphql` (its `exports` map hides the file from `require.resolve`). */
export function githubSchemaPath(): string {
  const candidates: string[] = [];
  try {
    candidates.push(join(dirname(fileURLToPath(import.meta.resolve('@octokit/graphql-schema'))), 'schema.graphql'));
  } catch {
    /* not resolvable from here; fall back to walking up from this file and the working directory */
  }
  for (const start of [dirname(fileURLToPath(import.meta.url)), process.cwd()]) {
    let dir = start;
    for (;;) {
      candidates.push(join(dir, 'node_modules', '@octokit', 'graphql-schema', 'schema.graphql'));
      const up = dirname(dir);
      if (up === dir) break;
      dir = up;
    }
  }
  const found = candidates.find((c) => existsSync(c));
  if (!found) throw new Error('GitHub schema not found: install devDependencies (`npm install`) so @octokit/graphql-schema is present.');
  return found;
}

const SEARCH_QUERIES = [
  'pull request review comments',
  'issue labels',
  'repository collaborators',
  'merge pull request',
  'branch protection rule',
  'commit status checks',
  'release assets',
  'discussion category',
  'organization members',
  'team repositories',
  'workflow run',
  'sponsorship tier',
  'project v2 item field value',
  'deploy key',
  'star gazers',
  'gist files',
  'milestone issues',
  'reaction content',
  'check suite conclusion',
  'enterprise administrator invitation',
  'createIssue',
  'addComment',
] as const;

const RESOLVE_NAMES = [
  'PullRequest', 'Issue', 'Repository', 'User', 'Organization', 'Commit', 'Release', 'Team', 'Discussion', 'Label',
  'Milestone', 'Reaction', 'CheckRun', 'Workflow', 'Gist', 'PullRequest.title', 'Repository.issues', 'Query.repository',
  'Mutation.createIssue', 'IssueState', 'repository', 'pullrequest', 'title', 'createdAt',
] as const;
const RESOLVE_MISSES = ['PullRequets', 'Repositry', 'Isue', 'Organisation', 'Comitt', 'MergeRequest', 'Pipeline', 'Query.repo'] as const;

export interface GithubReport {
  schema: string;
  index: IndexStats & { load_extract_seconds: number; write_seconds: number };
  tools: Record<string, ToolReport>;
  errors: number;
}

/** Repeat a list until it has `n` entries. */
function cycle<T>(items: readonly T[], n: number): T[] {
  return Array.from({ length: n }, (_, i) => items[i % items.length]!);
}

export async function runGithub(opts: { calls: number; warmup: number; keep?: boolean }): Promise<GithubReport> {
  const ontology = sextantOntology();
  const schema = githubSchemaPath();
  const dir = mkdtempSync(join(tmpdir(), 'sextant-bench-github-'));
  try {
    log(`github: indexing ${schema} into ${dir}`);
    const t0 = performance.now();
    const cfg: GraphqlSourceConfig = { kind: 'graphql', name: 'github', schema: [schema], headers: {}, timeout_ms: 30_000 };
    const built = await buildGraphqlSource(cfg, { ontology, baseDir: dirname(schema), env: {} });
    const t1 = performance.now();
    const problems = validateGraph(ontology, built.nodes, built.edges);
    if (problems.length) throw new Error(`the GitHub schema produced an invalid graph:\n  ${problems.slice(0, 5).join('\n  ')}`);
    const t2 = performance.now();
    const writer = SqliteStore.open(ontology, dir, { mode: 'write' });
    await writer.replaceSource({ name: built.name, kind: built.kind, origin: built.origin, built_at: new Date().toISOString(), content_hash: built.content_hash }, built.nodes, built.edges);
    await writer.close();
    const t3 = performance.now();
    const seconds = (t3 - t0 - (t2 - t1)) / 1000;
    const bytes = storeBytes(dir);
    const byKind: Record<string, number> = {};
    for (const n of built.nodes) byKind[n.kind] = (byKind[n.kind] ?? 0) + 1;
    log(`github: ${built.nodes.length} nodes, ${built.edges.length} edges in ${round(seconds, 2)} s, ${mb(bytes)} MB`);

    const nodes = built.nodes;
    const edges = built.edges;
    gc();

    // Workload from the indexed graph.
    const rng = new Rng(7);
    const types = nodes.filter((n) => n.kind === 'type');
    const objects = types.filter((n) => n.props.type_kind === 'OBJECT');
    const fields = nodes.filter((n) => n.kind === 'field');
    const fieldTypeIn = new Map<string, number>();
    for (const e of edges) if (e.type === 'FIELD_TYPE') fieldTypeIn.set(e.to, (fieldTypeIn.get(e.to) ?? 0) + 1);
    const popularTypes = [...types].sort((a, b) => (fieldTypeIn.get(b.id) ?? 0) - (fieldTypeIn.get(a.id) ?? 0) || a.id.localeCompare(b.id)).slice(0, 30);
    const describeIds = [...rng.shuffled(objects).slice(0, 25), ...rng.shuffled(fields).slice(0, 20), ...popularTypes.slice(0, 5)].map((n) => n.id);
    const parents = [...new Set(fields.map((f) => f.props.parent_type as string))].sort();
    const n = opts.calls + opts.warmup;
    const call = (tool: string, label: string, args: Record<string, unknown>): ToolCall => ({ tool, label, args });

    const workload: Record<string, ToolCall[]> = {
      search: cycle(SEARCH_QUERIES, n).map((query, i) =>
        i % 5 === 1 ? call('search', 'words, kinds=type', { query, kinds: ['type'] }) : i % 5 === 2 ? call('search', 'words, kinds=field', { query, kinds: ['field'] }) : call('search', 'words', { query }),
      ),
      resolve: cycle([...RESOLVE_NAMES, ...RESOLVE_MISSES], n).map((identifier, i) => {
        const miss = (RESOLVE_MISSES as readonly string[]).includes(identifier);
        const kind = i % 7 === 3;
        return call('resolve', `${miss ? 'miss' : 'name'}${kind ? ', kind=type' : ''}`, { identifier, ...(kind ? { kind: 'type' } : {}) });
      }),
      describe: cycle(describeIds, n).map((id, i) => (i % 10 === 9 ? call('describe', 'several ids', { ids: describeIds.slice(i % 40, (i % 40) + 8) }) : call('describe', 'one id', { id }))),
      neighbors: Array.from({ length: n }, (_, i) => {
        if (i % 2 === 0) return call('neighbors', 'HAS_FIELD out, object type', { ids: [rng.pick(objects).id], direction: 'out', edge_types: ['HAS_FIELD'], limit: 50 });
        if (i % 6 === 1) return call('neighbors', 'FIELD_TYPE in, popular type', { ids: [rng.pick(popularTypes).id], direction: 'in', edge_types: ['FIELD_TYPE'], limit: 50 });
        return call('neighbors', 'FIELD_TYPE in, any type', { ids: [rng.pick(types).id], direction: 'in', edge_types: ['FIELD_TYPE'], limit: 50 });
      }),
      find: Array.from({ length: n }, (_, i) => {
        if (i % 3 === 0) return call('find', 'type type_kind=OBJECT (paged)', { kind: 'type', filter: { type_kind: 'OBJECT' }, limit: 25, offset: (i * 25) % 500 });
        if (i % 3 === 1) return call('find', 'field parent_type', { kind: 'field', filter: { parent_type: rng.pick(parents) } });
        return call('find', 'field parent_type + deprecated', { kind: 'field', filter: { parent_type: rng.pick(objects).name, deprecated: false } });
      }),
    };

    const reader = SqliteStore.open(ontology, dir, { mode: 'read' });
    const ctx = { store: reader, ontology };
    const tools: Record<string, ToolReport> = {};
    let errors = 0;
    for (const tool of ['search', 'find', 'describe', 'neighbors', 'resolve']) {
      const report = await timeTool(ctx, tool, workload[tool]!, opts.warmup);
      tools[tool] = report;
      errors += report.errors;
      log(`github ${tool}: ${report.calls} calls, median ${report.median_ms} ms, p95 ${report.p95_ms} ms, max ${report.max_ms} ms, errors ${report.errors}`);
    }
    await reader.close();
    return {
      schema: 'GitHub public GraphQL schema (@octokit/graphql-schema)',
      index: {
        seconds: round(seconds),
        load_extract_seconds: round((t1 - t0) / 1000),
        write_seconds: round((t3 - t2) / 1000),
        nodes: nodes.length,
        edges: edges.length,
        nodes_per_s: Math.round(nodes.length / seconds),
        edges_per_s: Math.round(edges.length / seconds),
        store_bytes: bytes,
        store_mb: mb(bytes),
        by_kind: byKind,
      },
      tools,
      errors,
    };
  } finally {
    if (!opts.keep) rmSync(dir, { recursive: true, force: true });
    else log(`github: store kept at ${dir}`);
  }
}
