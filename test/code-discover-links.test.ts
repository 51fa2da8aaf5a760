/**
 * Symbolic links in an indexed tree (on a small estate written here, indexed on this thread): a file link whose
 * target lies outside the root is skipped with a warning naming it, so nothing of what it points at reaches the
 * index; a link to a file inside the root is indexed as before.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { buildEstate, writeEstate } from './helpers/estate.js';

const outside = mkdtempSync(join(tmpdir(), 'sextant-outside-'));
const dir = writeEstate(
  {
    'svc/build.gradle.kts': 'plugins { id("org.springframework.boot") }\n',
    'svc/src/main/java/p/App.java': 'package p;\npublic class App {}\n',
    '.shared/Inner.java': 'package p;\npublic class Inner { static final String NOTE = "inside"; }\n',
  },
  'sextant-links-root-',
);
after(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

test('a file link out of the root is skipped with a warning; a link inside it is indexed', async () => {
  writeFileSync(join(outside, 'Secret.java'), 'package p;\npublic class Secret { static final String KEY = "hunter2"; }\n');
  mkdirSync(join(dir, 'svc/src/main/java/p'), { recursive: true });
  symlinkSync(join(outside, 'Secret.java'), join(dir, 'svc/src/main/java/p/Secret.java'));
  symlinkSync(join(dir, '.shared/Inner.java'), join(dir, 'svc/src/main/java/p/Inner.java'));
  const built = await buildEstate(dir);
  const names = built.nodes.filter((n) => n.kind === 'symbol').map((n) => n.qualified_name);
  assert.ok(names.includes('p.Inner'), 'the link inside the root is indexed');
  assert.ok(!names.some((n) => n.startsWith('p.Secret')), `nothing of the outside file: ${names.filter((n) => n.includes('Secret'))}`);
  assert.ok(!JSON.stringify(built.nodes).includes('hunter2'));
  const warning = built.warnings.find((w) => String(typeof w === 'string' ? w : JSON.stringify(w)).includes('svc/src/main/java/p/Secret.java'));
  assert.ok(warning, `a warning names the link: ${JSON.stringify(built.warnings)}`);
  assert.match(typeof warning === 'string' ? warning : JSON.stringify(warning), /outside the indexed root/);
});
