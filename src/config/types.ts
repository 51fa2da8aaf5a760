/** The workspace configuration (`sextant.yaml`), after validation. */

export interface GraphqlSourceConfig {
  kind: 'graphql';
  name: string;
  /** SDL files (.graphql, .graphqls, .gql), introspection JSON files (.json) or directories of them. */
  schema?: string[];
  /** Live endpoint answered with the standard introspection query. */
  endpoint?: string;
  /** Request headers for the endpoint; `${VAR}` already expanded from the environment. */
  headers: Record<string, string>;
  /** Request timeout for the endpoint, in milliseconds. */
  timeout_ms: number;
}

export type SourceConfig = GraphqlSourceConfig;

export interface WorkspaceConfig {
  /** Absolute path of the config file, or undefined for a config inferred from a path. */
  path?: string;
  /** Absolute directory relative paths are resolved against. */
  dir: string;
  /** Absolute store directory when the config names one. */
  store?: string;
  sources: SourceConfig[];
}
