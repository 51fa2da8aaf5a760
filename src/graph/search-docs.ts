import { searchTerms } from '../search/tokenize.js';
import type { Ontology } from './ontology/index.js';
import type { NodeRecord } from './types.js';

/**
 * What `search` matches a node by, as search terms (see search/tokenize): its name, its qualified name, and the
 * text of its searchable properties. Both stores index exactly these, so they match and rank alike.
 */
export interface SearchDoc {
  name: string[];
  qualifiedName: string[];
  /** Empty when the node has no searchable text. */
  text: string[];
}

export function searchDocOf(ontology: Ontology, node: NodeRecord): SearchDoc {
  const info = ontology.kind(node.kind)!;
  const parts: string[] = [];
  for (const prop of info.properties) {
    if (!prop.searchable) continue;
    const value = node.props[prop.name];
    if (typeof value === 'string') parts.push(value);
    else if (Array.isArray(value)) parts.push(value.filter((v) => typeof v === 'string').join(' '));
  }
  return { name: searchTerms(node.name), qualifiedName: searchTerms(node.qualified_name), text: searchTerms(parts.join(' ')) };
}

/** BM25's parameters, as SQLite's FTS5 fixes them (the PostgreSQL store computes the same formula). */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;
