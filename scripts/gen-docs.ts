import { writeFileSync } from 'node:fs';
import { sextantOntology } from '../src/graph/ontology/index.js';
import { renderOntologyDoc } from '../src/graph/ontology/docs.js';

writeFileSync(new URL('../docs/ontology.md', import.meta.url), renderOntologyDoc(sextantOntology()));
console.log('wrote docs/ontology.md');
