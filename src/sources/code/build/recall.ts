import { createHash } from 'node:crypto';
import type { ServiceInfo } from '../config/layout.js';
import type { BuildGraph, BuildInput } from './files.js';

/**
 * The build graph of the last assembly with what it was made from, kept across assemblies and processes: a source
 * edit leaves the estate's build and configuration files as they were, and the graph of their dependency and
 * config_key nodes is then the same (a third of a second on the corpora side by side), so it is taken again instead
 * of being read again.
 *
 * `key` digests every input but where files are placed; `located` is each place the graph asked for, checked
 * again against the layout of the new assembly.
 */
export interface RecalledBuildGraph {
  key: string;
  /** Each path the build graph located, with its service and module. */
  located: [string, string, string][];
  graph: BuildGraph;
}

/**
 * The build graph for these inputs: `recalled`'s when it was made from the same, else made now (`make`, given a
 * `locate` that records what it answers). `reused` says which; `recall` is what to keep for the next assembly.
 */
export function buildGraphOnce(
  recalled: RecalledBuildGraph | undefined,
  inputs: { source: string; services: readonly ServiceInfo[]; locate: (path: string) => { service: string; module: string }; build: BuildInput },
  make: (locate: (path: string) => { service: string; module: string }) => BuildGraph,
): { graph: BuildGraph; recall: RecalledBuildGraph; reused: boolean } {
  const key = buildKey(inputs.source, inputs.services, inputs.build);
  if (recalled?.key === key && recalled.located.every(([path, service, module]) => sameLocation(inputs.locate(path), service, module))) return { graph: recalled.graph, recall: recalled, reused: true };
  const located = new Map<string, { service: string; module: string }>();
  const locate = (path: string): { service: string; module: string } => {
    const at = inputs.locate(path);
    located.set(path, at);
    return at;
  };
  const graph = make(locate);
  return { graph, recall: { key, located: [...located].map(([path, at]) => [path, at.service, at.module]), graph }, reused: false };
}

/** Whether a value read back from a saved state is a recalled build graph (anything else is not used). */
export function isRecalledBuildGraph(value: unknown): value is RecalledBuildGraph {
  const v = value as Partial<RecalledBuildGraph> | undefined;
  return typeof v?.key === 'string' && Array.isArray(v.located) && Array.isArray(v.graph?.nodes) && Array.isArray(v.graph.edges) && Array.isArray(v.graph.warnings);
}

function sameLocation(at: { service: string; module: string }, service: string, module: string): boolean {
  return at.service === service && at.module === module;
}

function buildKey(source: string, services: readonly ServiceInfo[], build: BuildInput): string {
  const hash = createHash('sha1').update(JSON.stringify([source, services, build.buildFiles, build.deployments]));
  for (const [path, text] of build.texts) hash.update(`\0${path}\0${text.length}\0`).update(text);
  return hash.digest('base64');
}
