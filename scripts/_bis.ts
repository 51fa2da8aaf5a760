import { readFileSync } from 'node:fs';
import { parserFor } from '../src/sources/code/parse/parser.js';
const p = await parserFor('kotlin');
const [path, indentArg] = process.argv.slice(2);
const lines = readFileSync(path, 'utf8').split('\n');
const ind = ' '.repeat(Number(indentArg ?? 2));
const starts: number[] = [];
lines.forEach((l, i) => { if (l.startsWith(ind) && !l.startsWith(ind + ' ') && /^\s*(suspend |private |override |fun |val |var |data |companion|internal |@)/.test(l)) starts.push(i); });
let prev = false;
for (const s of starts) {
  const chunk = lines.slice(0, s).join('\n') + '\n}\n';
  const err = p.parse(chunk)!.rootNode.hasError;
  if (err && !prev) { console.log('first error before line', s + 1); break; }
  prev = err;
}
