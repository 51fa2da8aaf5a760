import { buildASTSchema, buildClientSchema, parse, type GraphQLSchema, type IntrospectionQuery } from 'graphql';
import type { Store } from '../../graph/store.js';
import { fail } from '../errors.js';
import { hasCallerSchemas } from '../view/store.js';

const cache = new Map<string, { hash: string; schema: GraphQLSchema }>();

/**
 * The schema a GraphQL source was indexed from, rebuilt from the text the index keeps (merged SDL or
 * introspection JSON); undefined for an index written before sources kept it. Cached per source and content hash.
 */
export async function indexedSchema(store: Store, source: string): Promise<GraphQLSchema | undefined> {
  // A caller's view: what the caller's role may query, never the schema the service credential saw.
  const viewed = hasCallerSchemas(store) ? await store.viewSchema(source) : undefined;
  if (viewed) {
    if (viewed.schema) return viewed.schema;
    fail({ code: 'no_identity', message: `Source "${source}" is shown as each caller may see it, and this request has no view: ${viewed.report.reason ?? 'no caller identity'}.` });
  }
  const info = (await store.sources()).find((s) => s.name === source);
  if (!info) return undefined;
  const key = `${store.location}\u0000${source}`;
  const hash = `${info.content_hash ?? ''}\u0000${info.built_at}`;
  const hit = cache.get(key);
  if (hit && hit.hash === hash) return hit.schema;
  const sdl = await store.artifact(source, 'schema.graphql');
  const json = sdl === undefined ? await store.artifact(source, 'schema.json') : undefined;
  let schema: GraphQLSchema | undefined;
  // assumeValid: a schema the indexer accepted (duplicate interfaces, no Query in a partial file) still checks queries.
  if (sdl !== undefined) schema = buildASTSchema(parse(sdl), { assumeValidSDL: true, assumeValid: true });
  else if (json !== undefined) schema = buildClientSchema(JSON.parse(json) as IntrospectionQuery, { assumeValid: true });
  if (schema) cache.set(key, { hash, schema });
  return schema;
}
