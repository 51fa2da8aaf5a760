import type { SourceConfig } from '../config/types.js';
import type { SourceBuild, SourceContext } from '../sources/types.js';

/**
 * The builder of each source kind, loaded when a source of that kind is built (a code estate never loads the GraphQL
 * reader, and an unchanged one answers before most of its own). Adding a source kind is one entry here and one
 * ontology module.
 */
const BUILDERS: Record<SourceConfig['kind'], (cfg: SourceConfig, ctx: SourceContext) => Promise<SourceBuild>> = {
  graphql: async (cfg, ctx) => (await import('../sources/graphql/index.js')).buildGraphqlSource(cfg as Extract<SourceConfig, { kind: 'graphql' }>, ctx),
  code: async (cfg, ctx) => (await import('../sources/code/index.js')).buildCodeSource(cfg as Extract<SourceConfig, { kind: 'code' }>, ctx),
};

export function buildSource(cfg: SourceConfig, ctx: SourceContext): Promise<SourceBuild> {
  return BUILDERS[cfg.kind](cfg, ctx);
}
