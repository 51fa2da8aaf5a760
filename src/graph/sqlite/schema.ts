import type { Ontology } from '../ontology/index.js';

/** Column holding an indexed (filterable, scalar, non-core) property. */
export function propertyColumn(name: string): string {
  return `p_${name}`;
}

/** Indexed properties in column order. */
export function propertyNames(ontology: Ontology): string[] {
  return [...ontology.indexedProperties.keys()].sort();
}

/**
 * The partial index of one property's column. Created once a written node has the property (a code-only index
 * has no use for the GraphQL properties' indexes, and each costs a table scan to build).
 */
export function propertyIndexDdl(name: string): string {
  const col = propertyColumn(name);
  return `CREATE INDEX IF NOT EXISTS nodes_${col} ON nodes(${col}, kind) WHERE ${col} IS NOT NULL;`;
}

/**
 * DDL derived from the ontology: core columns (the properties' JSON in a table of its own, so the nodes table
 * stays narrow for the scans that build and use its indexes), one column per filterable scalar property (written
 * from the record at insert: indexing a JSON-extracted column would parse every row's properties once per
 * index; its partial index is `propertyIndexDdl`), list properties as terms, edges indexed both ways by type,
 * FTS5 for search over the terms `searchDocOf` gives (identifiers and descriptions apart, so a long description does not dilute a name match) and
 * trigram names for did-you-mean.
 *
 * The search tables index the token texts their `_docs` tables keep, so a row is removed with FTS5's 'delete'
 * command and the very tokens it was indexed with: BM25's statistics (documents, total tokens per column) stay
 * those of a fresh index however often rows are patched. (A contentless_delete table cannot take the tokens
 * back out of its totals: its scores drifted with every incremental write.)
 */
export function schemaDdl(ontology: Ontology): string {
  const columns = propertyNames(ontology).map((p) => `  ${propertyColumn(p)}`);
  return `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE sources (
  name TEXT PRIMARY KEY, kind TEXT NOT NULL, origin TEXT NOT NULL, built_at TEXT NOT NULL,
  nodes INTEGER NOT NULL, edges INTEGER NOT NULL, content_hash TEXT
);
CREATE TABLE nodes (
  rid INTEGER PRIMARY KEY,
  id TEXT NOT NULL,
  kind TEXT NOT NULL,
  name TEXT NOT NULL,
  qualified_name TEXT NOT NULL,
  source TEXT NOT NULL,
  service TEXT,
  module TEXT,
  file TEXT,
  line INTEGER,
  name_lc TEXT NOT NULL,
  qn_lc TEXT NOT NULL,
  qn_rev TEXT NOT NULL${columns.length ? ',\n' + columns.join(',\n') : ''}
);
CREATE UNIQUE INDEX nodes_id ON nodes(id);
CREATE INDEX nodes_kind_qn ON nodes(kind, qualified_name, id);
CREATE INDEX nodes_order ON nodes(rid, kind, qualified_name, id);
CREATE INDEX nodes_name_lc ON nodes(name_lc);
CREATE INDEX nodes_qn_lc ON nodes(qn_lc);
CREATE INDEX nodes_qn_rev ON nodes(qn_rev);
CREATE INDEX nodes_source ON nodes(source, kind);
CREATE INDEX nodes_service ON nodes(service, kind);
CREATE INDEX nodes_module ON nodes(module, kind);
CREATE INDEX nodes_file ON nodes(file, kind);
CREATE TABLE node_props (rid INTEGER PRIMARY KEY, props TEXT NOT NULL);
CREATE TABLE node_terms (prop TEXT NOT NULL, value TEXT NOT NULL, rid INTEGER NOT NULL, PRIMARY KEY (prop, value, rid)) WITHOUT ROWID;
CREATE INDEX node_terms_rid ON node_terms(rid);
CREATE TABLE edges (
  src INTEGER NOT NULL,
  type TEXT NOT NULL,
  dst INTEGER NOT NULL,
  key TEXT NOT NULL DEFAULT '',
  source TEXT NOT NULL,
  confidence REAL,
  attrs TEXT,
  PRIMARY KEY (src, type, dst, key)
) WITHOUT ROWID;
CREATE INDEX edges_in ON edges(dst, type, src);
CREATE INDEX edges_source ON edges(source);
CREATE TABLE search_id_docs (rid INTEGER PRIMARY KEY, name_t TEXT NOT NULL, qn_t TEXT NOT NULL);
CREATE TABLE search_text_docs (rid INTEGER PRIMARY KEY, text_t TEXT NOT NULL);
CREATE VIRTUAL TABLE search_id USING fts5(name_t, qn_t, content='search_id_docs', content_rowid='rid', tokenize='unicode61 remove_diacritics 0');
CREATE VIRTUAL TABLE search_text USING fts5(text_t, content='search_text_docs', content_rowid='rid', tokenize='unicode61 remove_diacritics 0');
CREATE VIRTUAL TABLE names USING fts5(name, tokenize='trigram', detail='none');
CREATE VIRTUAL TABLE names_vocab USING fts5vocab(names, 'row');
CREATE TABLE name_kinds (nid INTEGER NOT NULL, kind TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (nid, kind)) WITHOUT ROWID;
CREATE TABLE name_ids (nid INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE source_artifacts (source TEXT NOT NULL, name TEXT NOT NULL, content TEXT NOT NULL, PRIMARY KEY (source, name)) WITHOUT ROWID;
CREATE TABLE source_groups (source TEXT NOT NULL, grp TEXT NOT NULL, hash TEXT NOT NULL, PRIMARY KEY (source, grp)) WITHOUT ROWID;
`;
}
