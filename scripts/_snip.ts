import { parserFor } from '../src/sources/code/parse/parser.js';
const p = await parserFor('kotlin');
const snippets = process.argv.slice(2);
for (const s of snippets) { const t = p.parse(s)!; console.log(t.rootNode.hasError ? 'ERR' : 'ok ', JSON.stringify(s)); }
