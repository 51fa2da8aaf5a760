/**
 * The ontology is declared as data: node kinds with typed properties and how each can be filtered, edge types
 * with their endpoints and attributes. Everything else (store schema, tool schemas, validation, error texts,
 * hints, docs/ontology.md) derives from these declarations.
 */

export type PropertyType = 'string' | 'integer' | 'number' | 'boolean' | 'enum' | 'string_list' | 'json';

/**
 * How a property can be filtered. Each operation yields one filter field:
 * - `eq`       → `<name>`: equality; a list means set membership (OR). For `string_list`: the node has any of them.
 * - `prefix`   → `<name>_prefix`: starts with (a list means any of them).
 * - `contains` → `<name>_contains`: case-insensitive substring.
 * - `exclude`  → `exclude_<name>`: the value is none of these (enum properties only).
 * - `range`    → `min_<name>` / `max_<name>`: inclusive bounds (integer and number properties only).
 */
export type FilterOp = 'eq' | 'prefix' | 'contains' | 'exclude' | 'range';

export interface PropertyDef {
  name: string;
  type: PropertyType;
  description: string;
  /** Allowed values for `enum` (and optionally for `string_list`). */
  values?: readonly string[];
  filter?: readonly FilterOp[];
  /** Whether the value's text is indexed for `search` (besides name and qualified name, which always are). */
  searchable?: boolean;
}

export interface NodeKindDef {
  name: string;
  /** Short prefix of ids of this kind, e.g. `ty` → `ty_3k9…`. Unique across the registry. */
  idPrefix: string;
  description: string;
  /** Kind-specific properties (the core ones — name, qualified_name, source, … — are declared by the registry). */
  properties: readonly PropertyDef[];
  /** Which location properties apply to this kind (all kinds have name, qualified_name and source). */
  location: readonly ('service' | 'module' | 'file' | 'line')[];
  /** Multiplier applied to lexical search scores of this kind (1 = neutral). */
  searchPrior: number;
  /** How the qualified name is formed, for docs and error texts. */
  qualifiedNameFormat: string;
}

export interface EdgeAttrDef {
  name: string;
  type: Exclude<PropertyType, 'string_list'>;
  description: string;
  values?: readonly string[];
  /** Whether `edge_filter` accepts an equality (or set) condition on this attribute. */
  filterable?: boolean;
}

export interface EdgeTypeDef {
  name: string;
  description: string;
  from: readonly string[];
  to: readonly string[];
  attrs: readonly EdgeAttrDef[];
  /** Inferred edges carry `confidence` (0..1) and `strategy`; structural ones do not. */
  inferred: boolean;
}

/** One source kind's contribution to the ontology (e.g. `graphql`, `code`). */
export interface OntologyModule {
  sourceKind: string;
  description: string;
  nodeKinds: readonly NodeKindDef[];
  edgeTypes: readonly EdgeTypeDef[];
}
