import type { ServiceInfo } from '../config/layout.js';
import { inputDigest, recordedOnce, type RecordedResult } from '../recorded.js';
import type { BuildGraph, BuildInput } from './files.js';

/**
 * The build graph of the last assembly with what it was made from (see recorded.ts), kept across assemblies and
 * processes: a source edit leaves the estate's build and configuration files as they were, and the graph of their
 * dependency and config_key nodes is then the same (a third of a second on the corpora side by side), so it is
 * taken again instead of being read again. Its key digests every input but where files are placed; each place it
 * located is asked again of the new assembly's layout.
 */
export type RecalledBuildGraph = RecordedResult<BuildGraph>;

type Locate = (path: string) => { service: string; module: string };

/** The build graph for these inputs: `recalled`'s when made from the same, else made now (`make`, given a recording `locate`). */
export function buildGraphOnce(
  recalled: unknown,
  inputs: { source: string; services: readonly ServiceInfo[]; locate: Locate; build: BuildInput },
  make: (locate: Locate) => BuildGraph,
): { graph: BuildGraph; recall: RecalledBuildGraph; reused: boolean } {
  const { build } = inputs;
  const key = inputDigest(inputs.source, inputs.services, build.buildFiles, build.deployments, ...[...build.texts].flat());
  const { value, kept, reused } = recordedOnce(recalled, key, { locate: inputs.locate as (path: string) => unknown }, (readers) => make(readers.locate as Locate), isBuildGraph);
  return { graph: value, recall: kept, reused };
}

function isBuildGraph(value: unknown): value is BuildGraph {
  const v = value as Partial<BuildGraph> | undefined;
  return Array.isArray(v?.nodes) && Array.isArray(v.edges) && Array.isArray(v.warnings);
}
