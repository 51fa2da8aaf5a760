import type { GraphqlSourceConfig } from '../../config/types.js';
import type { SourceBuild, SourceContext } from '../types.js';
import { createHash } from 'node:crypto';
import { VERSION } from '../../version.js';
import { shownUrl } from '../../config/endpoint.js';
import { GraphqlSourceError } from './errors.js';
import { extractGraphql } from './extract.js';
import { deriveHugrModel, looksLikeHugr } from './hugr/derive.js';
import { loadGraphqlSchema } from './load.js';

export { GraphqlSourceError } from './errors.js';
export type { GraphqlSourceErrorCode } from './errors.js';
export { extractGraphql } from './extract.js';
export type { AppliedDirective, ExtractGraphqlOptions } from './extract.js';
export { loadGraphqlSchema } from './load.js';
export type { FileOf, LoadedGraphqlSchema, SchemaLocation } from './load.js';

/** Changes with every release, so a new Sextant reads an unchanged schema again. */
const GRAPHQL_EXTRACTOR_VERSION = `graphql-${VERSION}-hugr-2`;

/** Indexes one GraphQL source (SDL files, introspection JSON or a live endpoint) into nodes and edges. */
export async function buildGraphqlSource(cfg: GraphqlSourceConfig, ctx: SourceContext): Promise<SourceBuild> {
  try {
    return await buildSource(cfg, ctx);
  } catch (err) {
    // What the depth checks did not foresee (a value nested deep in an introspection's default value, say):
    // never a bare stack overflow, always which source.
    if (err instanceof RangeError) {
      const where = cfg.schema?.length ? cfg.schema.join(', ') : cfg.endpoint ? shownUrl(cfg.endpoint) : '(no input)';
      throw new GraphqlSourceError('TOO_DEEP', `GraphQL source "${cfg.name}" (${where}) nests too deeply to be read (${err.message}); remove the deeply nested type or value from its schema.`);
    }
    throw err;
  }
}

async function buildSource(cfg: GraphqlSourceConfig, ctx: SourceContext): Promise<SourceBuild> {
  ctx.onProgress?.('loading schema');
  const loaded = await loadGraphqlSchema(cfg, ctx);
  ctx.onProgress?.('extracting');
  const flavor = cfg.flavor ?? 'auto';
  const isHugr = flavor === 'hugr' || (flavor === 'auto' && looksLikeHugr(loaded.schema, loaded.hugrExtensions));
  const server = { ...(loaded.hugrDataSources ? { dataSources: loaded.hugrDataSources } : {}), ...(loaded.hugrDataObjects ? { dataObjects: loaded.hugrDataObjects } : {}) };
  const hugr = isHugr ? deriveHugrModel(loaded.schema, loaded.hugrExtensions, server) : undefined;
  if (hugr && flavor === 'hugr' && hugr.dataObjects.length === 0 && hugr.functions.length === 0) {
    hugr.warnings.push('flavor is hugr, but the schema has no Hugr data objects or functions (no @table/@view/@function directives, no hugr_type in its introspection)');
  }
  const { nodes, edges } = extractGraphql(loaded.schema, { ontology: ctx.ontology, source: cfg.name, fileOf: loaded.fileOf, placeholders: loaded.placeholders, ...(hugr ? { hugr } : {}) });
  ctx.onProgress?.('extracted', nodes.length, nodes.length);
  return {
    name: cfg.name,
    kind: 'graphql',
    origin: loaded.origin,
    // The schema, and what changes its reading: the flavor, this extractor, the server's data sources.
    content_hash: createHash('sha256').update(`${loaded.contentHash}\u0000${flavor}\u0000${GRAPHQL_EXTRACTOR_VERSION}\u0000${JSON.stringify(loaded.hugrDataSources ?? null)}\u0000${JSON.stringify([...(loaded.hugrDataObjects ?? [])])}`).digest('hex'),
    skipIfUnchanged: true,
    nodes,
    edges,
    warnings: [...loaded.warnings, ...(hugr?.warnings ?? [])],
    // The schema as text: data tools validate queries against it without asking the server.
    artifacts: { [loaded.artifact.name]: loaded.artifact.text, ...loaded.extraArtifacts },
    ...(loaded.refresh ? { details: { refresh: loaded.refresh } } : {}),
  };
}
