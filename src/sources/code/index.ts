import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { CodeSourceConfig } from '../../config/types.js';
import type { SourceBuild, SourceContext } from '../types.js';
import { type CachedFile, loadFactsCache, saveFactsCache } from './cache.js';
import { discover } from './discover.js';
import { CodeGraphAssembler, type CodeGraphStats } from './emit.js';
import type { FileFacts, Language } from './ir.js';
import { detectLayout } from './layout.js';
import { extractJava } from './parse/java.js';
import { extractKotlin } from './parse/kotlin.js';
import { parserFor } from './parse/parser.js';

export interface CodeBuildReport extends Record<string, unknown> {
  stats: CodeGraphStats;
  parsed: number;
  reused: number;
  removed: number;
  lines: number;
  /** Files whose nodes and edges were emitted again (all on a full build; on an update, what it reached). */
  emitted: number;
}

/** What a code source keeps between builds of one process: every file's facts and the per-file graph. */
interface CodeSession {
  files: Map<string, CachedFile>;
  assembler: CodeGraphAssembler;
  /** Configuration and service layout of the last build: when they change, everything is emitted again. */
  layoutKey: string;
  contentHash: string;
}

const EXTRACTORS: Record<Language, typeof extractJava> = { java: extractJava, kotlin: extractKotlin };

/** Extracts the facts of one file with the right grammar; never throws on bad source. */
export async function extractFile(path: string, language: Language, text: string): Promise<FileFacts> {
  return EXTRACTORS[language](path, text, await parserFor(language));
}

/**
 * Indexes a Java / Kotlin tree: discovers files, extracts facts (reusing cached facts of unchanged files),
 * places files in services and modules, and assembles the code graph.
 */
export async function buildCodeSource(cfg: CodeSourceConfig, ctx: SourceContext): Promise<SourceBuild & { details: CodeBuildReport }> {
  const root = cfg.path;
  const found = await discover(root, { includeTests: cfg.include_tests, exclude: cfg.exclude });
  const cacheFile = ctx.cacheDir ? join(ctx.cacheDir, `code-${cfg.name}.facts`) : undefined;
  const session = ctx.session?.get(`code:${cfg.name}`) as CodeSession | undefined;
  const cache = session?.files ?? (cacheFile ? await loadFactsCache(cacheFile) : new Map<string, CachedFile>());
  const next = new Map<string, CachedFile>();
  let parsed = 0;
  let done = 0;
  for (const file of found.files) {
    const cached = cache.get(file.path);
    if (cached && cached.size === file.size && cached.mtimeMs === file.mtimeMs) {
      next.set(file.path, cached);
    } else {
      const bytes = await readFile(join(root, file.path));
      const hash = createHash('sha1').update(bytes).digest('hex');
      const stamp = { size: file.size, mtimeMs: file.mtimeMs };
      if (cached && cached.hash === hash) next.set(file.path, { ...cached, ...stamp });
      else {
        next.set(file.path, { hash, ...stamp, facts: await extractFile(file.path, file.language, bytes.toString('utf8')) });
        parsed++;
      }
    }
    done++;
    if (done % 200 === 0 || done === found.files.length) ctx.onProgress?.(`parsing ${done}/${found.files.length} files`, done, found.files.length);
  }
  const facts = [...next.values()].map((c) => c.facts);
  const deployable = new Set(facts.filter((f) => f.types.some((t) => t.annotations.some((a) => a.name === 'SpringBootApplication'))).map((f) => dirname(f.path)));
  const auxiliary = new Map<string, string>();
  const layout = detectLayout(
    found,
    (rel) => {
      try {
        const text = readFileSync(join(root, rel), 'utf8');
        auxiliary.set(rel, text);
        return text;
      } catch {
        return undefined;
      }
    },
    deployable,
  );
  const layoutKey = JSON.stringify([{ ...cfg, path: undefined }, layout.services]);
  const assembler = session?.assembler ?? new CodeGraphAssembler(ctx.ontology, cfg.name, ctx.session !== undefined);
  const changed = new Set([...next].filter(([p, c]) => cache.get(p)?.facts !== c.facts).map(([p]) => p));
  for (const p of cache.keys()) if (!next.has(p)) changed.add(p);
  const graph = assembler.assemble(
    { source: cfg.name, files: facts, services: layout.services, locate: (p) => layout.locate(p), overrides: { roles: cfg.roles, capabilities: cfg.capabilities } },
    session && session.layoutKey === layoutKey ? changed : undefined,
  );
  const removed = [...cache.keys()].filter((p) => !next.has(p)).length;
  // A watching process keeps facts in memory and writes the cache once; a later one-shot build re-checks files by hash anyway.
  if (cacheFile && !session && (changed.size > 0 || [...next].some(([p, c]) => cache.get(p) !== c))) await saveFactsCache(cacheFile, next);
  const warnings = [...found.warnings, ...layout.warnings];
  const broken = facts.filter((f) => f.parseErrors > 0);
  if (broken.length) warnings.push(`${broken.length} file(s) have syntax errors; indexed as far as they parse: ${broken.slice(0, 5).map((f) => `${f.path} (${f.parseErrors})`).join(', ')}${broken.length > 5 ? ', …' : ''}`);
  const hash = createHash('sha256').update(JSON.stringify({ cfg: { ...cfg, path: undefined } }));
  for (const [path, c] of next) hash.update(`${path}\0${c.hash}\n`);
  for (const [path, text] of [...auxiliary].sort(([a], [b]) => a.localeCompare(b))) hash.update(`${path}\0${text}\n`);
  const contentHash = hash.digest('hex');
  ctx.session?.set(`code:${cfg.name}`, { files: next, assembler, layoutKey, contentHash } satisfies CodeSession);
  return {
    name: cfg.name,
    kind: 'code',
    origin: root,
    content_hash: contentHash,
    nodes: graph.nodes,
    edges: graph.edges,
    warnings,
    details: { stats: graph.stats, parsed, reused: next.size - parsed, removed, lines: facts.reduce((n, f) => n + f.lines, 0), emitted: graph.emitted },
    ...(session && graph.changedGroups ? { changed: { since: session.contentHash, groups: graph.changedGroups } } : {}),
  };
}
