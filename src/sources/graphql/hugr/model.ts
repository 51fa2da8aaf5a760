/**
 * Hugr's logical model of a data platform, as Sextant reads it from a schema: data sources, nested modules, data
 * objects (tables and views) with their generated queries, and functions. Independent of where it was read from
 * (generated SDL directives, introspection extensions, meta queries).
 */

/** The four roots a Hugr module hangs under. */
export type RootKind = 'query' | 'mutation' | 'function' | 'mut_function';
export type QueryKind = 'select' | 'select_one' | 'aggregate' | 'bucket_aggregate';
export type MutationKind = 'insert' | 'update' | 'delete';
export type HugrModelFrom = 'directives' | 'introspection';
export type HugrServerGeneration = 'v0.1' | 'v0.3' | 'v0.3.42';

export interface HugrArgument {
  name: string;
  /** Type with wrappers, as GraphQL writes it (`Int!`, `[OrderByField]`). */
  type: string;
  default_value?: string;
  description?: string;
}

/** A generated field that reads or changes a data object (or aggregates a table function). */
export interface HugrOperation {
  name: string;
  kind: QueryKind | MutationKind;
  operation: 'query' | 'mutation';
  /** Fields from the operation root to this field, e.g. ['sales', 'reports', 'sales_by_country']. */
  path: string[];
  arguments: HugrArgument[];
  /** Return type with wrappers. */
  returns: string;
}

export interface HugrModule {
  /** Dotted module name; '' for the root module. */
  name: string;
  /** Fields from the query root to the module: name.split('.'). */
  path: string[];
  roots: Partial<Record<RootKind, string>>;
  description?: string;
  dataSources: string[];
}

export type ReferenceKind = 'many_to_one' | 'one_to_many' | 'many_to_many' | 'function_join' | 'join';

export interface HugrReference {
  /** The field on the source object that navigates the relation. */
  field: string;
  /** Type name of the target data object. */
  target: string;
  kind: ReferenceKind;
  relation?: string;
  through?: string;
  sourceFields?: string[];
  targetFields?: string[];
}

export interface HugrDataObject {
  /** GraphQL type name of a row (prefixed for prefixed sources). */
  typeName: string;
  /** Its name in its data source's own schema, when Hugr prefixed it (shop_items ← items). */
  originalName?: string;
  kind: 'table' | 'view';
  /** Dotted module name; '' for the root module. */
  module: string;
  /** Name of the select query field. */
  queryName: string;
  /** Fields from the query root to the select query. */
  path: string[];
  /** The select query was found at `path` in the schema (false: placed by its directives in a partial schema). */
  pathVerified: boolean;
  dataSource?: string;
  description?: string;
  primaryKey: string[];
  filterType?: string;
  argsType?: string;
  argsRequired: boolean;
  aggregationType?: string;
  bucketAggregationType?: string;
  queries: HugrOperation[];
  mutations: HugrOperation[];
  references: HugrReference[];
  isM2m: boolean;
  isCube: boolean;
  isHypertable: boolean;
  softDelete: boolean;
  hasGeometry: boolean;
  hasVectors: boolean;
}

export interface HugrFunction {
  name: string;
  /** Dotted module name; '' for root functions. */
  module: string;
  isMutation: boolean;
  /** Fields from the operation root to the function, starting with 'function'. */
  path: string[];
  dataSource?: string;
  description?: string;
  arguments: HugrArgument[];
  /** Return type with wrappers. */
  returns: string;
  /** Named return type. */
  returnType: string;
  returnsList: boolean;
  /** Returns rows of a data object. */
  isTable: boolean;
  /** Aggregation companions of a table function. */
  queries: HugrOperation[];
  deprecated: boolean;
}

export interface HugrDataSource {
  name: string;
  engine?: string;
  prefix?: string;
  asModule?: boolean;
  readOnly?: boolean;
  isExtension?: boolean;
  description?: string;
  /** Attributes inferred from generated names and directives rather than read from the server. */
  inferred: boolean;
}

export interface HugrModel {
  /** What the model was read from. */
  from: HugrModelFrom;
  /** Which Hugr generation the schema comes from, when its roots tell. */
  generation?: HugrServerGeneration;
  modules: HugrModule[];
  dataObjects: HugrDataObject[];
  functions: HugrFunction[];
  dataSources: HugrDataSource[];
  /** `Type.field` of fields hidden by `@exclude_mcp` / `mcp_exclude`: never indexed. */
  excludedFields: Set<string>;
  /** Hugr classification of types and fields (`hugr_type`), read or derived. */
  typeHugrType: Map<string, string>;
  fieldHugrType: Map<string, string>;
  fieldKind: Map<string, 'column' | 'relation' | 'extra'>;
  warnings: string[];
}

/** Hugr's introspection extensions (`__Type.hugr_type`, `__Field.mcp_exclude`, …), by type and by `Type.field`. */
export interface HugrExtensions {
  types: Map<string, { hugr_type?: string; module?: string; catalog?: string }>;
  fields: Map<string, { hugr_type?: string; catalog?: string; mcp_exclude?: boolean; field_kind?: string }>;
}

/**
 * A data object as the server describes it (v0.3.42+ `_dataObject`, the v0.3 `core.catalog`, v0.1
 * `schema_summary`, each with the source's own SDL): exact where names can only suggest.
 */
export interface HugrMetaObject {
  name: string;
  /** Its name in its data source's own schema, when Hugr prefixed it (shop_items ← items). */
  originalName?: string;
  primaryKey: string[];
  properties: { isM2M?: boolean; isCube?: boolean; isHypertable?: boolean; softDelete?: boolean; hasVectors?: boolean };
  relations: { name?: string; direction?: string; kind?: string; fieldName?: string; dataObject?: string; through?: string; sourceKeys?: string[]; destinationKeys?: string[] }[];
}

/** What a Hugr server says about itself beyond introspection. */
export interface HugrServerFacts {
  dataSources?: HugrDataSource[];
  dataObjects?: ReadonlyMap<string, HugrMetaObject>;
}
