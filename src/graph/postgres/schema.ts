import { createHash } from 'node:crypto';
import type { Ontology } from '../ontology/index.js';
import { propertyColumn, propertyNames } from '../sqlite/schema.js';

/** Text compared byte by byte, as SQLite compares it: answers come in the same order whatever the database's locale. */
const TEXT = 'text COLLATE "C"';

/** The tables this store owns, in the order `DROP` takes them (a rebuild drops exactly these). */
export const PG_TABLES = ['node_embeddings', 'embedding_vectors', 'source_names', 'name_grams', 'search_df', 'search_postings', 'node_terms', 'edges', 'nodes', 'source_artifacts', 'sources', 'meta'] as const;
export const PG_SEQUENCES = ['rid_blocks'] as const;

function columnType(ontology: Ontology, property: string): string {
  switch (ontology.indexedProperties.get(property)?.type) {
    case 'integer':
    case 'number':
      return 'double precision';
    case 'boolean':
      return 'boolean';
    default:
      return TEXT;
  }
}

/**
 * DDL derived from the ontology, the same relations the SQLite store keeps with PostgreSQL's means:
 *
 * - nodes with one typed column per filterable property (partial index each) and their properties' JSON as text
 *   (kept byte for byte, key order included, as written);
 * - edges by row id, as on SQLite: walking an edge index in row-id order is the order answers come in, so a page of
 *   a hub's callers stops after the page; an edge goes with either end's source when that is written again (as
 *   on SQLite), so no edge outlives the row ids it holds;
 * - search: a posting per node and term (`searchDocOf`) with the term's occurrences in the name, the qualified
 *   name and the text and the node's lengths, and per source the document frequency of every term and its token
 *   totals, so BM25 is computed as SQLite's FTS5 computes it, from one range of a covering index per query term
 *   (the node's kind is there too, for the prior and a kinds filter), with no table shared between concurrent
 *   writers of different sources;
 * - did-you-mean: per source, its distinct names with their kinds (under a trigram index), and how many of them hold
 *   each trigram (to pick a misspelling's rarest);
 * - every row carries its source, so replacing one source deletes by an index.
 */
export function pgSchemaDdl(ontology: Ontology): string {
  const props = propertyNames(ontology);
  const columns = props.map((p) => `  ${propertyColumn(p)} ${columnType(ontology, p)}`);
  const indexes = props.map((p) => `CREATE INDEX nodes_${propertyColumn(p)} ON nodes(${propertyColumn(p)}, kind) WHERE ${propertyColumn(p)} IS NOT NULL;`);
  return `
CREATE TABLE meta (key ${TEXT} PRIMARY KEY, value text NOT NULL);
CREATE TABLE sources (
  name ${TEXT} PRIMARY KEY, kind ${TEXT} NOT NULL, origin text NOT NULL, built_at text NOT NULL,
  nodes integer NOT NULL, edges integer NOT NULL, content_hash text, graph_hash text,
  id_docs bigint NOT NULL DEFAULT 0, id_tokens bigint NOT NULL DEFAULT 0, text_docs bigint NOT NULL DEFAULT 0, text_tokens bigint NOT NULL DEFAULT 0
);
CREATE SEQUENCE rid_blocks;
CREATE TABLE nodes (
  rid bigint PRIMARY KEY,
  id ${TEXT} NOT NULL UNIQUE,
  kind ${TEXT} NOT NULL,
  name ${TEXT} NOT NULL,
  qualified_name ${TEXT} NOT NULL,
  source ${TEXT} NOT NULL,
  service ${TEXT},
  module ${TEXT},
  file ${TEXT},
  line integer,
  name_lc ${TEXT} NOT NULL,
  qn_lc ${TEXT} NOT NULL,
  qn_rev ${TEXT} NOT NULL,
  props text NOT NULL${columns.length ? ',\n' + columns.join(',\n') : ''}
);
CREATE INDEX nodes_kind_qn ON nodes(kind, qualified_name, id);
CREATE INDEX nodes_name_lc ON nodes(name_lc);
CREATE INDEX nodes_qn_lc ON nodes(qn_lc);
CREATE INDEX nodes_qn_rev ON nodes(qn_rev);
CREATE INDEX nodes_source ON nodes(source, kind);
CREATE INDEX nodes_service ON nodes(service, kind);
CREATE INDEX nodes_module ON nodes(module, kind);
CREATE INDEX nodes_file ON nodes(file, kind);
${indexes.join('\n')}
CREATE TABLE node_terms (prop ${TEXT} NOT NULL, value ${TEXT} NOT NULL, rid bigint NOT NULL, source ${TEXT} NOT NULL, PRIMARY KEY (prop, value, rid));
CREATE INDEX node_terms_rid ON node_terms(rid);
CREATE INDEX node_terms_source ON node_terms(source);
CREATE TABLE edges (
  src bigint NOT NULL,
  type ${TEXT} NOT NULL,
  dst bigint NOT NULL,
  key ${TEXT} NOT NULL DEFAULT '',
  source ${TEXT} NOT NULL,
  confidence double precision,
  attrs text,
  PRIMARY KEY (src, type, dst, key)
);
CREATE INDEX edges_in ON edges(dst, type, src);
CREATE INDEX edges_source ON edges(source);
CREATE TABLE search_postings (
  term ${TEXT} NOT NULL, rid bigint NOT NULL, source ${TEXT} NOT NULL, kind ${TEXT} NOT NULL,
  in_name integer NOT NULL, in_qn integer NOT NULL, id_len integer NOT NULL, in_text integer NOT NULL, text_len integer NOT NULL,
  PRIMARY KEY (term, rid) INCLUDE (kind, in_name, in_qn, id_len, in_text, text_len)
);
CREATE INDEX search_postings_source ON search_postings(source);
CREATE TABLE search_df (term ${TEXT} NOT NULL, source ${TEXT} NOT NULL, id_docs integer NOT NULL, text_docs integer NOT NULL, PRIMARY KEY (term, source));
CREATE INDEX search_df_source ON search_df(source);
CREATE TABLE source_names (name ${TEXT} NOT NULL, source ${TEXT} NOT NULL, kinds text[] NOT NULL, PRIMARY KEY (name, source));
CREATE INDEX source_names_source ON source_names(source);
CREATE TABLE name_grams (gram ${TEXT} NOT NULL, source ${TEXT} NOT NULL, names integer NOT NULL, PRIMARY KEY (gram, source));
CREATE INDEX name_grams_source ON name_grams(source);
CREATE TABLE source_artifacts (source ${TEXT} NOT NULL, name ${TEXT} NOT NULL, content text NOT NULL, PRIMARY KEY (source, name));
`;
}

/** Did-you-mean's trigram index, where the server has pg_trgm (without it, names are compared by a bounded scan). */
export const TRIGRAM_DDL = 'CREATE INDEX IF NOT EXISTS source_names_trgm ON source_names USING gin (name gin_trgm_ops);';

/** Hash of the DDL, so a database written by a different layout is refused rather than misread. */
export function pgSchemaHash(ontology: Ontology): string {
  return createHash('sha256').update(pgSchemaDdl(ontology)).digest('hex').slice(0, 12);
}

/**
 * Vectors by model and text hash, and which text each node's vector is made from (see graph/embed-docs): created by
 * the first embedding pass. `vector` keeps the floats as bytes for exact search; with pgvector, `embedding` holds
 * them again as its type, under an HNSW index per model (`vectorIndexDdl`).
 */
export const VECTOR_DDL = `
CREATE TABLE IF NOT EXISTS embedding_vectors (model ${TEXT} NOT NULL, hash ${TEXT} NOT NULL, vector bytea NOT NULL, PRIMARY KEY (model, hash));
CREATE TABLE IF NOT EXISTS node_embeddings (model ${TEXT} NOT NULL, id ${TEXT} NOT NULL, hash ${TEXT} NOT NULL, PRIMARY KEY (model, id));
CREATE INDEX IF NOT EXISTS node_embeddings_hash ON node_embeddings(model, hash);
`;

/** pgvector's HNSW index for one model's vectors: an expression index, since one column holds every model's. */
export function vectorIndexDdl(model: string, dimensions: number): { name: string; ddl: string } {
  const name = `embedding_vectors_hnsw_${createHash('sha256').update(model).digest('hex').slice(0, 12)}`;
  const literal = model.replace(/'/g, "''");
  return { name, ddl: `CREATE INDEX IF NOT EXISTS ${name} ON embedding_vectors USING hnsw ((embedding::vector(${dimensions})) vector_cosine_ops) WHERE model = '${literal}'` };
}
