import type { SourceConfig } from '../config/types.js';
import { buildCodeSource } from '../sources/code/index.js';
import { buildGraphqlSource } from '../sources/graphql/index.js';
import type { SourceBuild, SourceContext } from '../sources/types.js';

/** The builder of each source kind. Adding a source kind is one entry here and one ontology module. */
const BUILDERS: Record<SourceConfig['kind'], (cfg: SourceConfig, ctx: SourceContext) => Promise<SourceBuild>> = {
  graphql: (cfg, ctx) => buildGraphqlSource(cfg as Extract<SourceConfig, { kind: 'graphql' }>, ctx),
  code: (cfg, ctx) => buildCodeSource(cfg as Extract<SourceConfig, { kind: 'code' }>, ctx),
};

export function buildSource(cfg: SourceConfig, ctx: SourceContext): Promise<SourceBuild> {
  return BUILDERS[cfg.kind](cfg, ctx);
}
