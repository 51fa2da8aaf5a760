import type { Ontology } from '../graph/ontology/index.js';
import type { EdgeRecord, NodeRecord } from '../graph/types.js';
import type { ChangedGroups } from '../graph/store.js';

/** What any source contributes to one build: its nodes and edges, nothing formatted. */
export interface SourceBuild {
  name: string;
  kind: string;
  /** Where it was read from (path or URL), never with credentials. */
  origin: string;
  /** Hash of the input, stable across builds of the same input. */
  content_hash: string;
  nodes: NodeRecord[];
  edges: EdgeRecord[];
  /** Non-fatal problems worth telling the user (e.g. a file skipped). */
  warnings: string[];
  /** Skip writing when the index already holds this source with the same content hash. */
  skipIfUnchanged?: boolean;
  /**
   * The source found its input as its last build read it, and left its nodes and edges out: the index holds them
   * (its content hash is `previous.content_hash`).
   */
  unchanged?: boolean;
  /** Named texts to keep with the source in the index (a GraphQL source's schema as SDL, for validating queries). */
  artifacts?: Record<string, string>;
  /** The files the build read (paths relative to its tree): what the tree must hold to build the same again. */
  inputs?: string[];
  /** Source-specific figures for the build report (files parsed, reused, …). */
  details?: Record<string, unknown>;
  /**
   * Set when the source knows exactly what changed since its previous build in this process (whose content
   * hash is `since`): only these file groups can differ, so the store and validation can skip the rest.
   */
  changed?: ChangedGroups;
}

export interface SourceContext {
  ontology: Ontology;
  /** Directory relative paths in the config are resolved against. */
  baseDir: string;
  /** Environment used to expand `${VAR}` in configuration (process.env by default). */
  env: Readonly<Record<string, string | undefined>>;
  onProgress?: (message: string, done?: number, total?: number) => void;
  /** Directory a source may keep derived data in between builds (e.g. parsed facts by content hash). */
  cacheDir?: string;
  /**
   * State a source may keep in memory between builds of one long-running process (`index --watch`), private to
   * the source of this name. Absent for a one-shot build.
   */
  session?: Map<string, unknown>;
  /** What the index holds of this source from its last build (its named texts), for reading only what changed. */
  previous?: { content_hash?: string; artifact(name: string): Promise<string | undefined> };
  /** Parts to read again whatever the server says changed (a refresh asked for these data sources). */
  refreshDataSources?: readonly string[];
}
