/**
 * A store one may read but not write (an index a CI job published, another user's): a writer that ends alone
 * leaves the file in rollback-journal mode, which SQLite reads without creating anything beside it; readers fall
 * back to a read-only connection; a writer without permission is told what it can do instead. The reads and the
 * refused write run as another user (`nobody`, through runuser) on the real CLI, when this machine lets a test do
 * that (root, runuser, and a clone others may traverse: .ci/run allows it); otherwise those tests say why they skip.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { sharedDir } from './helpers/index.js';
import { BIN, indexInto, killAll, REPO_ROOT, tempDir } from './helpers/e2e.js';

const ESTATE = join(sharedDir(), 'corpora', 'smia-ch10');
let store = '';
let walStore = '';

before(async () => {
  const dir = await tempDir('sextant-readonly-');
  chmodSync(dir, 0o755);
  store = join(dir, 'store');
  await indexInto(ESTATE, store);
  // Indexed again, as a CI job updates what it publishes (a new file's first write is in rollback mode anyway).
  await indexInto(ESTATE, store);
  // The same index as a writer leaves it when readers were connected at its end: in WAL mode.
  walStore = join(dir, 'wal');
  mkdirSync(walStore);
  cpSync(join(store, 'index.db'), join(walStore, 'index.db'));
  const db = new Database(join(walStore, 'index.db'));
  db.pragma('journal_mode = WAL');
  db.close();
}, { timeout: 120_000 });
after(() => killAll());

/** Why a command cannot be run as another user here, or undefined when it can. */
function otherUserUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'the suite does not run as root, so it cannot run a command as another user';
  const probe = spawnSync('runuser', ['-u', 'nobody', '--', process.execPath, '-e', `require('fs').accessSync(${JSON.stringify(BIN)})`], { encoding: 'utf8' });
  if (probe.error) return `runuser is not available (${probe.error.message})`;
  if (probe.status !== 0) return `user nobody cannot reach this clone (${REPO_ROOT}): ${probe.stderr.trim().split('\n').pop()}`;
  return undefined;
}

function asNobody(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync('runuser', ['-u', 'nobody', '--', process.execPath, BIN, ...args], { encoding: 'utf8', cwd: '/' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('a store this user may read but not write', () => {
  test('a writer that ends alone leaves the file in rollback-journal mode, nothing beside it', () => {
    const db = new Database(join(store, 'index.db'), { readonly: true });
    assert.equal(db.pragma('journal_mode', { simple: true }), 'delete');
    db.close();
    assert.equal(existsSync(join(store, 'index.db-wal')), false);
    assert.equal(existsSync(join(store, 'index.db-shm')), false);
  });

  const why = otherUserUnavailable();

  test('another user searches it and reads its status', { skip: why }, () => {
    const search = asNobody('call', 'search', '{"query":"license"}', '--store', store);
    assert.equal(search.code, 0, search.stderr);
    assert.equal(JSON.parse(search.stdout).ok, true);
    const status = asNobody('status', '--json', '--store', store);
    assert.equal(status.code, 0, status.stderr);
    assert.ok(JSON.parse(status.stdout).counts.nodes > 0);
  });

  test('another user cannot index into it: told why and what to do, no stack trace', { skip: why }, () => {
    const r = asNobody('index', ESTATE, '--store', store);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stderr, /Cannot write the index at .*this user may read it.*--store DIR/);
    assert.doesNotMatch(r.stderr, /\n\s+at /);
    // Its own lock was let go: the owner indexes at once.
    execFileSync(process.execPath, [BIN, 'index', ESTATE, '--store', store], { stdio: 'ignore' });
  });

  test('left in WAL mode, it says how to make it readable', { skip: why }, () => {
    const r = asNobody('status', '--store', walStore);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stderr, /write-ahead-log mode.*sextant index/);
  });
});
