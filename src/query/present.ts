import type { Ontology } from '../graph/ontology/index.js';
import { toRef, type NodeRecord, type NodeRef, type PropValue } from '../graph/types.js';

/** A node reference plus its short scalar properties (no descriptions, no JSON blobs), for result lists. */
export function listEntry(ontology: Ontology, node: NodeRecord): NodeRef & { attributes?: Record<string, PropValue> } {
  const info = ontology.kind(node.kind);
  const attributes: Record<string, PropValue> = {};
  for (const prop of info?.properties ?? []) {
    const value = node.props[prop.name];
    if (value === undefined || value === null || prop.type === 'json' || prop.searchable) continue;
    if (prop.type === 'string_list' && Array.isArray(value) && value.length > 8) continue;
    // Long text (a description, an expression as written) is for describe; a qualified name (caller, handler) always fits.
    if (typeof value === 'string' && value.length > 300) continue;
    attributes[prop.name] = value;
  }
  const ref = toRef(node);
  return Object.keys(attributes).length ? { ...ref, attributes } : ref;
}

/** First sentence-ish of a description, for search snippets. */
export function snippetOf(node: NodeRecord, max = 160): string | undefined {
  const text = node.props.description;
  if (typeof text !== 'string' || !text.trim()) return undefined;
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1).trimEnd()}…`;
}
