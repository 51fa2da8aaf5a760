import { readFileSync } from 'node:fs';
import { parserFor } from '../src/sources/code/parse/parser.js';
const [path] = process.argv.slice(2);
const p = await parserFor(path.endsWith('.kt') ? 'kotlin' : 'java');
const text = readFileSync(path, 'utf8');
const tree = p.parse(text)!;
const lines = text.split('\n');
function walk(n: any) { if (n.type === 'ERROR' || n.isMissing) { console.log(n.type, n.isMissing ? 'MISSING' : '', n.startPosition.row + 1, JSON.stringify(lines[n.startPosition.row]?.slice(0, 140))); } for (const c of n.children) walk(c); }
walk(tree.rootNode);
