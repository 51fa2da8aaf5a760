import { createHash } from 'node:crypto';
import type { WorkspaceConfig } from '../config/types.js';
import type { Ontology } from '../graph/ontology/index.js';
import type { SourceInfo, Store, WriteProgress } from '../graph/store.js';
import { validateGraph } from '../graph/validate.js';
import { buildSource } from './sources.js';

export interface BuildEvents {
  sourceStart?: (name: string, index: number, total: number) => void;
  message?: (source: string, message: string) => void;
  write?: (source: string, p: WriteProgress) => void;
  warning?: (source: string, warning: string) => void;
}

export interface BuildReport {
  sources: (SourceInfo & { seconds: number; warnings: string[] })[];
  removed: string[];
  seconds: number;
}

export class BuildError extends Error {
  constructor(
    readonly source: string,
    message: string,
  ) {
    super(message);
  }
}

/** Builds every source of a workspace into the store; sources no longer configured are removed. */
export async function buildWorkspace(store: Store, ontology: Ontology, config: WorkspaceConfig, events: BuildEvents = {}, env: Record<string, string | undefined> = process.env): Promise<BuildReport> {
  const started = performance.now();
  const report: BuildReport = { sources: [], removed: [], seconds: 0 };
  const configured = new Set(config.sources.map((s) => s.name));
  for (const old of (await store.meta()).sources) {
    if (!configured.has(old.name) && (await store.removeSource(old.name))) report.removed.push(old.name);
  }
  for (const [i, cfg] of config.sources.entries()) {
    const t0 = performance.now();
    events.sourceStart?.(cfg.name, i, config.sources.length);
    const built = await buildSource(cfg, {
      ontology,
      baseDir: config.dir,
      env,
      onProgress: (message) => events.message?.(cfg.name, message),
    });
    for (const w of built.warnings) events.warning?.(cfg.name, w);
    const problems = validateGraph(ontology, built.nodes, built.edges);
    if (problems.length) throw new BuildError(cfg.name, `source ${cfg.name} produced an invalid graph (a Sextant bug; nothing was written):\n  ${problems.slice(0, 10).join('\n  ')}`);
    const info = await store.replaceSource(
      { name: cfg.name, kind: cfg.kind, origin: built.origin, built_at: new Date().toISOString(), content_hash: built.content_hash || hashOf(built) },
      built.nodes,
      built.edges,
      (p) => events.write?.(cfg.name, p),
    );
    report.sources.push({ ...info, seconds: round((performance.now() - t0) / 1000), warnings: built.warnings });
  }
  report.seconds = round((performance.now() - started) / 1000);
  return report;
}

function hashOf(built: { nodes: unknown[]; edges: unknown[] }): string {
  return createHash('sha256').update(JSON.stringify([built.nodes.length, built.edges.length])).digest('hex').slice(0, 16);
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
