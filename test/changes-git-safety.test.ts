/**
 * `changes` reads a revision range with the real git, in a tree someone else controls: the repository's own
 * configuration must not run commands here. A repository whose `core.fsmonitor` and filter drivers (a clean
 * command, a long-running process filter) each leave a marker file when run is diffed; no marker appears, and the
 * diff is still right.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { promisify } from 'node:util';
import { gitDiff } from '../src/query/changes/git.js';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'sextant-git-safety-'));
const markers = mkdtempSync(join(tmpdir(), 'sextant-git-markers-'));
after(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(markers, { recursive: true, force: true });
});

async function git(...args: string[]): Promise<void> {
  await run('git', ['-C', dir, '-c', 'user.email=test@example.com', '-c', 'user.name=test', ...args]);
}

test("the repository's fsmonitor, clean and process filters never run; the diff is the work tree's", async () => {
  const marker = (name: string) => join(markers, name);
  await git('init', '-q');
  writeFileSync(join(dir, 'A.java'), 'class A {}\n');
  writeFileSync(join(dir, 'B.kt'), 'class B\n');
  writeFileSync(join(dir, '.gitattributes'), '*.java filter=clean-cmd\n*.kt filter=process-cmd\n');
  await git('add', '-A');
  await git('commit', '-qm', 'base');
  // Set after the commit, so only Sextant's diff could run them.
  await git('config', 'core.fsmonitor', `touch ${marker('fsmonitor')}; echo`);
  await git('config', 'filter.clean-cmd.clean', `touch ${marker('clean')}; cat`);
  await git('config', 'filter.process-cmd.process', `touch ${marker('process')}`);
  writeFileSync(join(dir, 'A.java'), 'class A { int x; }\n');
  writeFileSync(join(dir, 'B.kt'), 'class B(val y: Int)\n');

  const diff = await gitDiff(dir, 'HEAD');
  assert.deepEqual(['fsmonitor', 'clean', 'process'].filter((name) => existsSync(marker(name))), [], "the repository's own commands ran");
  assert.match(diff.text, /\+class A \{ int x; \}/);
  assert.match(diff.text, /\+class B\(val y: Int\)/);
});
