import { join } from 'node:path';
import type { CodeSourceConfig } from '../../config/types.js';
import { VERSION } from '../../version.js';
import type { SourceBuild, SourceContext } from '../types.js';
import { EXTRACTOR_VERSION } from './cache.js';
import type { CodeGraphStats } from './emit.js';
import { productStamp } from './product.js';
import { loadStamp, unchangedSince } from './stamp.js';

export interface CodeBuildReport extends Record<string, unknown> {
  stats: CodeGraphStats;
  parsed: number;
  reused: number;
  removed: number;
  lines: number;
  /** Files whose nodes and edges were emitted again (all on a full build; on an update, what it reached). */
  emitted: number;
  /**
   * On a re-index: configuration and deployment YAML files read by parsing them, and recalled from what the last
   * re-index read from the very same text (see config/yaml-recall.ts).
   */
  yaml?: { parsed: number; recalled: number };
  /**
   * On a one-shot build: `recalled` when the files came from the last build's discovery (no directory it listed and no
   * ignore rule changed), `listed` when the tree was walked.
   */
  discovery?: 'recalled' | 'listed';
  /**
   * On an update of an estate with build files: `recalled` when the dependency and config_key nodes were taken from
   * the last assembly (no build or configuration file, service or layout changed), `read` when they were read again.
   */
  build_graph?: 'recalled' | 'read';
  /**
   * On a re-index: `recalled` when the services and their configuration, deployment and proxies were taken from the
   * last re-index (every file and directory their detection read is the same), `read` when read again.
   */
  layout?: 'recalled' | 'read';
  /**
   * On a re-index: `recalled` when the operations of the OpenAPI specs the builds generate code from were taken from
   * the last re-index (the build files, specs and directories they read are the same), `read` when read again.
   */
  openapi_operations?: 'recalled' | 'read';
  /**
   * On an update: how many files' nodes (the estate's services and library symbols counting as one) it hands the
   * store to compare and rewrite: the files emitted again, and those whose nodes or edges the estate-wide passes changed.
   */
  files_rewritten?: number;
  /** Present when the build answered from the stamps of the last one, having listed, read and assembled nothing. */
  from_stamps?: true;
  /**
   * Seconds per phase: listing files, loading the facts cache and the assembler's saved state, parsing, reading
   * configuration, build and deployment files, evaluating files, linking the estate, saving the facts cache and the
   * assembler's state. The store write is the build's.
   */
  phases_seconds: CodePhases;
}

export interface CodePhases {
  /** Checking the stamps of what the last build read (an unchanged build stops there), and loading the extractors. */
  check: number;
  discover: number;
  load_cache: number;
  parse: number;
  configuration: number;
  evaluate: number;
  link: number;
  save_cache: number;
}

/**
 * Indexes a Java / Kotlin tree (`source.ts`), or answers that it is as the index holds it. This module loads little:
 * an unchanged estate is answered from the stamps of what its last build read, before the extractors load.
 */
export async function buildCodeSource(cfg: CodeSourceConfig, ctx: SourceContext): Promise<SourceBuild & { details: CodeBuildReport }> {
  const started = performance.now();
  const root = cfg.path;
  // A one-shot build keeps the stamps of everything it read: when none changed, the index already holds this
  // build's graph, and nothing is listed, read, parsed or written. (A watching process knows what changed.)
  const stampFile = ctx.cacheDir && !ctx.session ? join(ctx.cacheDir, `code-${cfg.name}.stamp`) : undefined;
  const stampKey = JSON.stringify([EXTRACTOR_VERSION, VERSION, productStamp(), ctx.ontology.version, cfg]);
  if (stampFile && ctx.previous?.content_hash) {
    const stamp = await loadStamp(stampFile);
    if (stamp && stamp.key === stampKey && stamp.content_hash === ctx.previous.content_hash && unchangedSince(stamp)) {
      const details = stamp.report.details as CodeBuildReport;
      const files = details.parsed + details.reused;
      ctx.onProgress?.(`unchanged: ${files} files as last indexed`, files, files);
      return {
        name: cfg.name,
        kind: 'code',
        origin: root,
        content_hash: stamp.content_hash,
        nodes: [],
        edges: [],
        unchanged: true,
        warnings: stamp.report.warnings,
        inputs: stamp.report.inputs,
        details: { ...details, parsed: 0, reused: files, removed: 0, emitted: 0, from_stamps: true, phases_seconds: { check: Math.round(performance.now() - started) / 1000, discover: 0, load_cache: 0, parse: 0, configuration: 0, evaluate: 0, link: 0, save_cache: 0 } },
      };
    }
  }
  const { buildCodeTree } = await import('./source.js');
  return buildCodeTree(cfg, ctx, stampFile ? { file: stampFile, discoveryFile: join(ctx.cacheDir!, `code-${cfg.name}.discovery`), key: stampKey } : undefined, started);
}
