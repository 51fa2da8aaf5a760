import { CODE_ONTOLOGY } from './code.js';
import { GRAPHQL_ONTOLOGY } from './graphql.js';
import { Ontology } from './registry.js';

export { CORE_COLUMNS, Ontology, OntologyError, STORE_FORMAT } from './registry.js';
export type { FilterField, KindInfo } from './registry.js';
export type * from './types.js';

/** Every source kind Sextant knows, registered once. */
export const ONTOLOGY_MODULES = [CODE_ONTOLOGY, GRAPHQL_ONTOLOGY] as const;

let defaultOntology: Ontology | undefined;
export function sextantOntology(): Ontology {
  defaultOntology ??= new Ontology(ONTOLOGY_MODULES);
  return defaultOntology;
}
