import type { Ontology } from '../graph/ontology/index.js';
import type { EdgeRecord, NodeRecord } from '../graph/types.js';

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
}

export interface SourceContext {
  ontology: Ontology;
  /** Directory relative paths in the config are resolved against. */
  baseDir: string;
  /** Environment used to expand `${VAR}` in configuration (process.env by default). */
  env: Readonly<Record<string, string | undefined>>;
  onProgress?: (message: string, done?: number, total?: number) => void;
}
