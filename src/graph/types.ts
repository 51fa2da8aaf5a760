/** Records as stored and returned by a Store. */

export type PropValue = string | number | boolean | null | string[] | unknown[] | Record<string, unknown>;

export interface NodeRecord {
  id: string;
  kind: string;
  name: string;
  qualified_name: string;
  source: string;
  service?: string | null;
  module?: string | null;
  file?: string | null;
  line?: number | null;
  /** Kind-specific properties, as declared by the ontology. */
  props: Record<string, PropValue>;
}

export interface EdgeRecord {
  type: string;
  from: string;
  to: string;
  /** Disambiguates several edges of one type between the same two nodes (e.g. two call sites). */
  key?: string;
  /** Attributes declared by the edge type (confidence and strategy for inferred edges). */
  attrs?: Record<string, PropValue>;
}

/** A node reference as every answer carries it: enough to read and to locate. */
export interface NodeRef {
  id: string;
  kind: string;
  name: string;
  qualified_name: string;
  source: string;
  service?: string;
  module?: string;
  file?: string;
  line?: number;
}

export function toRef(node: NodeRecord): NodeRef {
  const ref: NodeRef = { id: node.id, kind: node.kind, name: node.name, qualified_name: node.qualified_name, source: node.source };
  if (node.service != null) ref.service = node.service;
  if (node.module != null) ref.module = node.module;
  if (node.file != null) ref.file = node.file;
  if (node.line != null) ref.line = node.line;
  return ref;
}

/** A node as both stores read it back: the core columns, its properties' JSON text, no null location fields. */
export function nodeFromRow(row: Record<string, unknown>): NodeRecord {
  const node: NodeRecord = {
    id: row.id as string,
    kind: row.kind as string,
    name: row.name as string,
    qualified_name: row.qualified_name as string,
    source: row.source as string,
    props: JSON.parse(row.props as string) as Record<string, PropValue>,
  };
  if (row.service != null) node.service = row.service as string;
  if (row.module != null) node.module = row.module as string;
  if (row.file != null) node.file = row.file as string;
  if (row.line != null) node.line = row.line as number;
  return node;
}
