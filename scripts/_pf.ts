import { readFileSync } from 'node:fs';
import { extractFile } from '../src/sources/code/parse/job.js';
const [path] = process.argv.slice(2);
const f = await extractFile(path, path.endsWith('.kt') ? 'kotlin' : 'java', readFileSync(path, 'utf8'));
console.log('parseErrors', f.parseErrors, 'deep', f.deepNesting, 'types', f.types.length);
for (const t of f.types) console.log(t.qualifiedName, t.members.length, t.members.map(m=>`${m.name}:${m.line}:${m.calls.length}`).slice(0,8).join(' '));
