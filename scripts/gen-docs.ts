import { readFileSync, writeFileSync } from 'node:fs';
import { LIBRARY } from '../src/sources/code/eval/library.js';
import { renderLibraryTable, withLibraryTable } from '../src/sources/code/eval/library-docs.js';
import { sextantOntology } from '../src/graph/ontology/index.js';
import { renderOntologyDoc } from '../src/graph/ontology/docs.js';

writeFileSync(new URL('../docs/ontology.md', import.meta.url), renderOntologyDoc(sextantOntology()));
console.log('wrote docs/ontology.md');

const links = new URL('../docs/links.md', import.meta.url);
writeFileSync(links, withLibraryTable(readFileSync(links, 'utf8'), renderLibraryTable(LIBRARY)));
console.log('wrote the library table in docs/links.md');

const { screenshotServiceMap } = await import('./screenshot-map.js');
console.log(await screenshotServiceMap());
