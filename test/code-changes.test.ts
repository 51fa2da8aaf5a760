/**
 * `changes` on the real petclinic estate: a copy of it becomes a git work tree, is indexed at its first commit, and
 * a second commit edits a controller handler in customers-service. Through the official MCP client (stdio) and
 * `sextant call`, from the revision range and from the diff text, the answer names the handler, its route, and
 * the api-gateway client and gateway route that reach it. Binary, added, deleted and renamed files, files outside
 * the index and hunks that do not apply are explained, never fatal.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { callTool, connectStdio, indexInto, jsonOf, killAll, runCli, tempDir, type Connection } from './helpers/e2e.js';
import { sharedDir } from './helpers/index.js';

const run = promisify(execFile);
const T = { timeout: 120_000 };
const OWNER = 'spring-petclinic-customers-service/src/main/java/org/springframework/samples/petclinic/customers/web/OwnerResource.java';

async function git(dir: string, ...args: string[]): Promise<string> {
  return (await run('git', ['-C', dir, '-c', 'user.email=test@example.com', '-c', 'user.name=test', ...args])).stdout;
}

describe('changes on petclinic', () => {
  let tree: string;
  let store: string;
  let conn: Connection;

  before(async () => {
    tree = join(await tempDir('sextant-changes-'), 'petclinic');
    await cp(join(sharedDir(), 'corpora', 'spring-petclinic-microservices'), tree, { recursive: true });
    await git(tree, 'init', '-q');
    await git(tree, 'add', '-A');
    await git(tree, 'commit', '-qm', 'base');
    store = join(tree, '..', 'index');
    const r = await indexInto(tree, store);
    assert.equal(r.code, 0, r.stderr);
    const file = join(tree, OWNER);
    const text = await readFile(file, 'utf8');
    assert.ok(text.includes('        return ownerRepository.findById(ownerId);\n'));
    await writeFile(file, text.replace('        return ownerRepository.findById(ownerId);\n', '        return ownerRepository.findById(ownerId).filter(owner -> owner.getId() != null);\n'));
    await git(tree, 'commit', '-qam', 'findOwner checks the id');
    conn = await connectStdio(store);
  }, { timeout: 180_000 });

  after(async () => {
    await conn?.close();
    await killAll();
  });

  const expectHandlerChange = (body: Record<string, any>): void => {
    assert.equal(body['ok'], true, JSON.stringify(body));
    assert.deepEqual(body['changed'].declarations.map((d: any) => d.qualified_name), ['org.springframework.samples.petclinic.customers.web.OwnerResource#findOwner(int)']);
    assert.deepEqual(body['changed'].routes.map((r: any) => r.qualified_name), ['customers-service GET /owners/{ownerId}']);
    assert.deepEqual(
      body['callers_of_changed_routes'].map((c: any) => [c.edge, c.service, c.from.qualified_name, c.caller ?? null]).sort(),
      [
        ['FORWARDS', 'api-gateway', 'api-gateway ANY /api/customer/**', null],
        ['HTTP_CALLS', 'api-gateway', 'api-gateway -> customers-service GET /owners/{ownerId}', 'org.springframework.samples.petclinic.api.application.CustomersServiceClient#getOwner(int)'],
      ],
    );
    assert.deepEqual(body['services'], [{ service: 'customers-service', changed: 1, routes_changed: ['customers-service GET /owners/{ownerId}'], dependents: 0, called_by: ['api-gateway'] }]);
    assert.equal(body['risk'].level, 'high');
    assert.match(body['risk'].reasons[0], /called from 1 other service \(api-gateway\)/);
  };

  test('a revision range: the handler, its route, and the gateway client that calls it', T, async () => {
    const r = await callTool(conn.client, 'changes', { revisions: 'HEAD~1..HEAD' });
    expectHandlerChange(r.body);
    // The work tree already holds the new side; the index the old one, whose lines were used.
    assert.match(r.body['files'][0].note, /already reads as the new side/);
  });

  test('the same change as diff text, through sextant call', T, async () => {
    const diff = await git(tree, 'diff', 'HEAD~1..HEAD');
    const cli = await runCli(['call', 'changes', JSON.stringify({ diff }), '--store', store]);
    assert.equal(cli.code, 0, cli.stderr);
    expectHandlerChange(jsonOf(cli));
    // `sextant changes`: a diff file, or a revision range; text by default.
    const file = join(tree, '..', 'change.diff');
    await writeFile(file, diff);
    const fromFile = await runCli(['changes', file, '--json', '--store', store]);
    expectHandlerChange(jsonOf(fromFile));
    const text = await runCli(['changes', '--rev', 'HEAD~1..HEAD', '--store', store]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^risk: high \(1 changed route called from 1 other service \(api-gateway\)\)/);
    assert.match(text.stdout, /called   customers-service GET \/owners\/\{ownerId\} ← api-gateway: .*CustomersServiceClient#getOwner\(int\)/);
    const both = await runCli(['changes', file, '--rev', 'HEAD', '--store', store]);
    assert.equal(both.code, 2);
  });

  test('every kind of file is explained: binary, added, deleted, renamed, outside the index, not applying', T, async () => {
    const diff = [
      'diff --git a/docs/logo.png b/docs/logo.png',
      'index 1111111..2222222 100644',
      'Binary files a/docs/logo.png and b/docs/logo.png differ',
      'diff --git a/NewThing.java b/NewThing.java',
      'new file mode 100644',
      '--- /dev/null',
      '+++ b/NewThing.java',
      '@@ -0,0 +1 @@',
      '+class NewThing {}',
      'diff --git a/README.md b/README.md',
      '--- a/README.md',
      '+++ b/README.md',
      '@@ -1 +1 @@',
      '-old',
      '+new',
      `diff --git a/${OWNER} b/${OWNER}`,
      `--- a/${OWNER}`,
      `+++ b/${OWNER}`,
      '@@ -69,1 +69,1 @@',
      '-        return somethingElse();',
      '+        return ownerRepository.findById(ownerId);',
      '',
    ].join('\n');
    const r = await callTool(conn.client, 'changes', { diff });
    assert.equal(r.body['ok'], true);
    const notes = Object.fromEntries(r.body['files'].map((f: any) => [f.path, [f.status, f.note]]));
    assert.deepEqual(notes['docs/logo.png'], ['binary', 'binary: no lines to map']);
    assert.equal(notes['NewThing.java'][0], 'added');
    assert.match(notes['NewThing.java'][1], /not in the index yet/);
    assert.match(notes['README.md'][1], /no indexed declaration lives in this file/);
    assert.match(notes[OWNER][1], /does not apply to the indexed tree: line 69 .* reads .*, the diff expects "return somethingElse\(\);"/);
    assert.equal(r.body['risk'].level, 'none');
    assert.equal(r.body['absence'].reason, 'nothing_mapped');

    // A deleted file: every declaration in it changed; a rename without inner changes says so.
    const visits = 'spring-petclinic-visits-service/src/main/java/org/springframework/samples/petclinic/visits/web/VisitResource.java';
    const lines = (await readFile(join(tree, visits), 'utf8')).split('\n');
    const deleted = [`diff --git a/${visits} b/${visits}`, 'deleted file mode 100644', `--- a/${visits}`, '+++ /dev/null', `@@ -1,${lines.length} +0,0 @@`, ...lines.map((l) => `-${l}`), ''].join('\n');
    const d = await callTool(conn.client, 'changes', { diff: deleted });
    assert.ok(d.body['changed'].declarations.some((n: any) => n.qualified_name === 'org.springframework.samples.petclinic.visits.web.VisitResource'));
    assert.ok(d.body['changed'].routes.length >= 2, JSON.stringify(d.body['changed'].routes));
    const renamed = await callTool(conn.client, 'changes', { diff: `diff --git a/${visits} b/${visits.replace('VisitResource', 'VisitsResource')}\nsimilarity index 100%\nrename from ${visits}\nrename to ${visits.replace('VisitResource', 'VisitsResource')}\n` });
    assert.deepEqual([renamed.body['files'][0].status, renamed.body['files'][0].note], ['renamed', 'renamed without changes inside a declaration']);
  });

  test('bad input gets teaching errors', T, async () => {
    const both = await callTool(conn.client, 'changes', { diff: 'x', revisions: 'HEAD' });
    assert.match(both.body['error'].message, /exactly one of `diff`.*and `revisions`/);
    const option = await callTool(conn.client, 'changes', { revisions: '--output=/tmp/x' });
    assert.deepEqual([option.body['error'].code, option.body['error'].argument], ['invalid_argument', 'revisions']);
    const unknown = await callTool(conn.client, 'changes', { revisions: 'no-such-branch..HEAD' });
    assert.match(unknown.body['error'].message, /git could not diff/);
    const notDiff = await callTool(conn.client, 'changes', { diff: 'just some words' });
    assert.equal(notDiff.body['absence'].reason, 'empty_diff');
    const side = await callTool(conn.client, 'changes', { diff: 'x', indexed: 'middle' });
    assert.equal(side.body['error'].argument, 'indexed');
  });
});

describe('changes where the index is no git work tree', () => {
  test('a revision range is refused with what to pass instead', T, async () => {
    const dir = await tempDir('sextant-changes-nogit-');
    await cp(join(sharedDir(), 'corpora', 'piggymetrics', 'statistics-service'), join(dir, 'statistics-service'), { recursive: true });
    const store = join(dir, '.sextant');
    assert.equal((await indexInto(dir, store)).code, 0);
    const r = jsonOf(await runCli(['call', 'changes', JSON.stringify({ revisions: 'HEAD~1' }), '--store', store]));
    assert.match(r['error'].message, /not a git work tree.*pass the unified diff as `diff`/);
    await rm(dir, { recursive: true, force: true });
  });
});
