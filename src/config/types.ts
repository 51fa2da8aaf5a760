/** The workspace configuration (`sextant.yaml`), after validation. */

import type { Capability, Role } from '../graph/ontology/code.js';

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
  /** With `endpoint`: seconds between re-reads of the schema under `sextant index --watch`. */
  refresh_seconds?: number;
  /** How data tools (graphql_query, field_values, …) reach the API; absent: they use `endpoint` with defaults. */
  data?: GraphqlDataConfig;
  /** `hugr` reads the schema as a Hugr data platform, `generic` as any GraphQL API, `auto` (absent) decides by its content. */
  flavor?: 'auto' | 'hugr' | 'generic';
}

/** One repository of an estate built as one tree: its directory appears as the folder `name`. */
export interface CodeMount {
  name: string;
  path: string;
  include_tests: boolean;
  exclude: string[];
}

export interface CodeSourceConfig {
  kind: 'code';
  name: string;
  /** Absolute root directory of the Java / Kotlin tree. */
  path: string;
  /**
   * Set by the indexer, never by a config file: the tree is these directories side by side, each under its name
   * (the repositories of one estate, see indexer/estate.ts), each discovered with its own options; `path` is unused.
   */
  mounts?: readonly CodeMount[];
  /** Index test source sets (src/test, …) too. Default false. */
  include_tests: boolean;
  /** Extra gitignore-style patterns, relative to `path`. */
  exclude: string[];
  /** Role overrides: by annotation simple name, or by type qualified name. */
  roles: { annotations: Record<string, Role>; types: Record<string, Role> };
  /** Capability overrides (added to the detected ones): by annotation simple name, or by type qualified name. */
  capabilities: { annotations: Record<string, Capability[]>; types: Record<string, Capability[]> };
  /**
   * Links the source cannot reveal, pinned: `clients` maps a calling method or a type (qualified name) to the
   * service its HTTP calls go to; `destinations` maps one to the topic or queue its sends go to.
   */
  links: CodeLinkPins;
}

export interface CodeLinkPins {
  clients: Record<string, string>;
  destinations: Record<string, string>;
}

export type SourceConfig = GraphqlSourceConfig | CodeSourceConfig;

/** Where semantic search gets its vectors: an OpenAI-compatible `/v1/embeddings` endpoint (`embeddings:`). */
export interface EmbeddingsConfig {
  /** The embeddings URL requests go to (`…/v1/embeddings`), derived from what the file gives. */
  url: string;
  model: string;
  /** Asked of the model and checked against its vectors. */
  dimensions?: number;
  /** `${VAR}` already expanded. */
  api_key?: string;
  /** The variable `api_key` was read from, when it was written as exactly `${VAR}` (recorded, so servers can read it too). */
  api_key_env?: string;
  headers: Record<string, string>;
  batch_size: number;
  timeout_ms: number;
}

export interface WorkspaceConfig {
  /** Absolute path of the config file, or undefined for a config inferred from a path. */
  path?: string;
  /** Absolute directory relative paths are resolved against. */
  dir: string;
  /** Absolute store directory, or a postgres:// URL (its ${VAR} expanded), when the config names one. */
  store?: string;
  sources: SourceConfig[];
  /** Semantic search's embedding provider; absent: search is lexical only. */
  embeddings?: EmbeddingsConfig;
}

/**
 * Data access of a GraphQL source. Queries run as the caller: on Streamable HTTP with the bearer token of the
 * incoming request, elsewhere (stdio, CLI) with `token`. The discovery `headers` are never sent with them.
 */
export interface GraphqlDataConfig {
  /** Where queries go; default: the source's `endpoint`. */
  endpoint?: string;
  /** The caller's bearer token for stdio and the CLI (`${VAR}` expanded). */
  token?: string;
  /** Variables `token` names that this process's environment does not set (so it has no token). */
  token_unset?: string[];
  /** A role to ask for, sent in `role_header`. */
  role?: string;
  /** Header a role travels in (default `x-hugr-role`); on HTTP the incoming request's value is forwarded. */
  role_header: string;
  /** Offer graphql_mutate (off by default). */
  allow_mutations: boolean;
  /** Send queries with no identity when the caller has none (off by default: such a query is refused). */
  allow_anonymous: boolean;
  timeout_ms: number;
  /** Default answer size limit of graphql_query, in bytes. */
  max_bytes: number;
}
