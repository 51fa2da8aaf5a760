/**
 * End to end through the real CLI (`node bin/sextant.js …`): exit codes, `call` with JSON arguments, the
 * readable shortcuts, index/status, where the store is found, and how a stale index is reported and fixed.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { childEnv, githubSchemaPath, githubStore, indexInto, jsonOf, killAll, REPO_ROOT, runCli, tempDir, TOOL_NAMES, type CliResult } from './helpers/e2e.js';

const T = { timeout: 60000 };

let store: string;

before(async () => {
  store = await githubStore();
}, { timeout: 120000 });

after(async () => {
  await killAll();
});

/** `sextant call <tool> <json> --store <store>`. */
function call(tool: string, args: unknown, storeDir = store): Promise<CliResult> {
  return runCli(['call', tool, typeof args === 'string' ? args : JSON.stringify(args), '--store', storeDir]);
}

/** A command line run by a shell from the repository root, as a person would type it. */
function inShell(shell: '/bin/sh' | '/bin/bash', command: string): Promise<CliResult> {
  return new Promise<CliResult>((done) => {
    const child = spawn(shell, ['-c', command], { cwd: REPO_ROOT, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code, signal) => done({ code, signal, stdout, stderr }));
  });
}

function okJson(r: CliResult, what: string): Record<string, any> {
  assert.equal(r.code, 0, `${what}: exit ${r.code}\nstdout: ${r.stdout.slice(0, 1000)}\nstderr: ${r.stderr}`);
  const body = jsonOf(r);
  assert.equal(body.ok, true, `${what}: ${JSON.stringify(body.error)}`);
  return body;
}

function errJson(r: CliResult, code: string, what: string): Record<string, any> {
  assert.equal(r.code, 1, `${what}: exit ${r.code}\nstdout: ${r.stdout.slice(0, 1000)}\nstderr: ${r.stderr}`);
  const body = jsonOf(r);
  assert.equal(body.ok, false);
  assert.equal(body.error.code, code, `${what}: ${JSON.stringify(body.error)}`);
  return body.error as Record<string, any>;
}

const SMALL_SDL = `"""The root."""
type Query {
  """A widget by id."""
  widget(id: ID!): Widget
  """Every gadget."""
  gadgets: [Gadget!]!
}

"""A thing we make."""
type Widget {
  id: ID!
  label: String
}

"""A thing we sell."""
type Gadget {
  id: ID!
  price: Float
}
`;

describe('sextant call: exit codes', () => {
  test('a tool that answers → exit 0, JSON with ok true', T, async () => {
    const body = okJson(await call('search', { query: 'pull request' }), 'search');
    assert.ok(body.results.length > 0);
  });

  test('a tool error → exit 1, JSON with ok false and the code', T, async () => {
    const error = errJson(await call('find', { kind: 'type', filter: { parent_type: 'X' } }), 'inapplicable_field', 'find type by parent_type');
    assert.match(error.message, /parent_type/);
  });

  test('an unknown tool → exit 2 (usage), naming the tools', T, async () => {
    const r = await call('nosuchtool', '{}');
    assert.equal(r.code, 2);
    assert.equal(r.stdout, '');
    for (const name of TOOL_NAMES) assert.match(r.stderr, new RegExp(name));
  });

  test('arguments that are not JSON → exit 2', T, async () => {
    const r = await call('search', 'not json');
    assert.equal(r.code, 2);
    assert.match(r.stderr, /JSON/);
  });

  test('an unknown command → exit 2', T, async () => {
    const r = await runCli(['nosuchcommand']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /unknown command/);
  });

  test('--version → exit 0 and the package version', T, async () => {
    const r = await runCli(['--version']);
    assert.equal(r.code, 0);
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    assert.equal(r.stdout.trim(), pkg.version);
  });

  test('a missing option value → exit 2', T, async () => {
    const r = await runCli(['call', 'search', '{"query":"x"}', '--store']);
    assert.equal(r.code, 2);
  });

  test('a bad argument value → exit 1 with out_of_range', T, async () => {
    errJson(await call('search', { query: 'pull request', limit: 9999 }), 'out_of_range', 'limit 9999');
  });
});

describe('sextant call: resolve → describe → neighbors on the GitHub schema', () => {
  let pullRequestId: string;

  test('resolve PullRequest → one type', T, async () => {
    const body = okJson(await call('resolve', { identifier: 'PullRequest' }), 'resolve');
    assert.equal(body.status, 'one');
    assert.equal(body.node.kind, 'type');
    pullRequestId = body.node.id as string;
  });

  test('describe → OBJECT with >50 fields and ≥1 interface', T, async () => {
    const body = okJson(await call('describe', { id: pullRequestId }), 'describe');
    assert.equal(body.node.properties.type_kind, 'OBJECT');
    assert.ok(body.node.edges.HAS_FIELD.out > 50);
    assert.ok(body.node.edges.IMPLEMENTS.out >= 1);
  });

  test('neighbors HAS_FIELD → title, FIELD_TYPE → String', T, async () => {
    const fields = okJson(await call('neighbors', { ids: [pullRequestId], direction: 'out', edge_types: ['HAS_FIELD'], limit: 500 }), 'neighbors HAS_FIELD');
    const title = (fields.edges as { other: Record<string, any> }[]).find((e) => e.other.name === 'title');
    assert.ok(title, 'no title field');
    // edge_types as a lone string and ids as JSON text: lossless-permissive input.
    const typed = okJson(await call('neighbors', { ids: JSON.stringify([title.other.id]), direction: 'out', edge_types: 'FIELD_TYPE' }), 'neighbors FIELD_TYPE');
    assert.equal(typed.edges[0].other.qualified_name, 'String');
  });

  test('find with the filter as JSON text inside the arguments', T, async () => {
    const args = JSON.stringify({ kind: 'field', filter: JSON.stringify({ parent_type: 'PullRequest' }), limit: 500 });
    assert.match(args, /"filter":"\{\\"parent_type\\"/);
    const body = okJson(await call('find', args), 'find field by parent_type');
    assert.ok(body.total > 50);
    assert.equal(body.results.length, body.total);
    for (const r of body.results as Record<string, any>[]) assert.ok(r.attributes?.parent_type === 'PullRequest' || String(r.qualified_name).startsWith('PullRequest.'), r.qualified_name);
  });
});

describe('shortcuts', () => {
  test('search prints readable text', T, async () => {
    const r = await runCli(['search', 'pull', 'request', 'review', 'comments', '--store', store]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /PullRequestReviewComment/);
    assert.throws(() => JSON.parse(r.stdout), 'readable text, not JSON');
    const firstLine = r.stdout.split('\n')[0]!;
    assert.match(firstLine, /type\s+PullRequestReviewComment\s+\[ty_/);
  });

  test('search text says which nodes matched all terms: they rank first, whatever the scores of the rest (issue 24)', T, async () => {
    const json = okJson(await runCli(['search', 'issue', 'comment', 'reaction', '--store', store, '--json']), 'search --json');
    assert.equal(json.match, 'all_terms+some_terms');
    const groups = json.results.map((x: { matched: string }) => x.matched);
    const firstSome = groups.indexOf('some_terms');
    assert.ok(firstSome > 0 && groups.slice(firstSome).every((g: string) => g === 'some_terms'), groups.join());
    const r = await runCli(['search', 'issue', 'comment', 'reaction', '--store', store]);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.split('\n');
    assert.equal(lines[0], 'matching all terms:');
    const someHeader = lines.findIndex((l) => l.startsWith('matching some terms'));
    assert.match(lines[someHeader]!, /ranked after every node matching all 3/);
    // Each group is in score order; the header sits exactly where the JSON's groups change.
    const scored = (from: number, to: number) => lines.slice(from, to).filter((l) => /^\s*[\d.]+\s{2}\S/.test(l)).map((l) => Number(l.trim().split(/\s+/)[0]));
    const all = scored(1, someHeader);
    const some = scored(someHeader + 1, lines.findIndex((l) => l === 'next:'));
    assert.equal(all.length, firstSome);
    assert.equal(all.length + some.length, json.results.length);
    for (const group of [all, some]) for (let i = 1; i < group.length; i++) assert.ok(group[i - 1]! >= group[i]!, `score order within a group: ${group.join()}`);
  });

  test('search --json prints the structured result', T, async () => {
    const r = await runCli(['search', 'pull', 'request', 'review', 'comments', '--store', store, '--json']);
    const body = okJson(r, 'search --json');
    assert.equal(body.results[0].node.qualified_name, 'PullRequestReviewComment');
  });

  test('search --kind narrows; a bad kind is a tool error (exit 1)', T, async () => {
    const body = okJson(await runCli(['search', 'pull', 'request', '--kind', 'field', '--store', store, '--json']), 'search --kind field');
    assert.ok(body.results.every((x: { node: { kind: string } }) => x.node.kind === 'field'));
    const bad = await runCli(['search', 'pull', 'request', '--kind', 'feild', '--store', store]);
    assert.equal(bad.code, 1);
    assert.match(bad.stdout, /unknown_kind/);
    assert.match(bad.stdout, /field/);
  });

  test('find type with a JSON filter and --limit', T, async () => {
    const r = await runCli(['find', 'type', '{"type_kind":"ENUM"}', '--limit', '3', '--store', store]);
    assert.equal(r.code, 0, r.stderr);
    const refs = r.stdout.split('\n').filter((l) => /^\s+type\s+\S+\s+\[ty_/.test(l));
    assert.equal(refs.length, 3, r.stdout);
    const body = okJson(await runCli(['find', 'type', '{"type_kind":"ENUM"}', '--limit', '3', '--store', store, '--json']), 'find --json');
    assert.equal(body.results.length, 3);
    assert.ok(body.results.every((n: Record<string, any>) => n.attributes.type_kind === 'ENUM'));
    assert.ok(body.total > 3);
  });

  test('resolve prints the status and the node', T, async () => {
    const r = await runCli(['resolve', 'PullRequest', '--store', store]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /status: one/);
    assert.match(r.stdout, /PullRequest\s+\[ty_/);
  });

  test('neighbors with --direction and --edge-types', T, async () => {
    const resolved = okJson(await runCli(['resolve', 'PullRequest', '--store', store, '--json']), 'resolve --json');
    const id = resolved.node.id as string;
    const r = await runCli(['neighbors', id, '--direction', 'out', '--edge-types', 'HAS_FIELD', '--store', store]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /-> HAS_FIELD\s+field\s+PullRequest\.\w+\s+\[fd_/);
    const json = okJson(await runCli(['neighbors', id, '--direction', 'out', '--edge-types', 'HAS_FIELD,IMPLEMENTS', '--limit', '500', '--store', store, '--json']), 'neighbors --json');
    const types = new Set((json.edges as { type: string }[]).map((e) => e.type));
    assert.deepEqual([...types].sort(), ['HAS_FIELD', 'IMPLEMENTS']);
  });

  test('neighbors without --direction or --edge-types walks both ways along the edge types the node has (issue 24)', T, async () => {
    const r = await runCli(['neighbors', 'PullRequestReviewComment', '--store', store, '--json']);
    assert.equal(r.code, 0, r.stdout);
    const body = JSON.parse(r.stdout);
    const types = new Set(body.edges.map((e: { type: string }) => e.type));
    const directions = new Set(body.edges.map((e: { direction: string }) => e.direction));
    assert.ok(types.has('HAS_FIELD') && types.has('FIELD_TYPE'), [...types].join());
    assert.deepEqual([...directions].sort(), ['in', 'out']);
    // An unknown node: describe's own error, not a complaint about edge types.
    const unknown = await runCli(['neighbors', 'ty_0000000000000000', '--store', store]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stdout, /not_found/);
  });

  test('describe by qualified name prints properties and edge counts', T, async () => {
    const r = await runCli(['describe', 'PullRequest', '--store', store]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /type_kind: OBJECT/);
    assert.match(r.stdout, /HAS_FIELD in 0 \/ out \d+/);
  });

  test('a tool error in a shortcut → exit 1 with the code in the text', T, async () => {
    const r = await runCli(['find', 'type', '{"parent_type":"PullRequest"}', '--store', store]);
    assert.equal(r.code, 1);
    assert.match(r.stdout, /error \(inapplicable_field\)/);
  });

  test('the printed next calls run as they are (shell-quoted, same store)', T, async () => {
    // A quote in the query must survive into the printed `sextant call … '<json>'` line.
    const r = await runCli(['search', "review's", 'comments', '--limit', '1', '--store', store]);
    assert.equal(r.code, 0, r.stderr);
    const next = r.stdout.split('\n').filter((l) => /^\s+sextant call /.test(l));
    assert.ok(next.length >= 2, `expected describe and next-page hints:\n${r.stdout}`);
    for (const line of next) {
      const command = line.trim().replace(/^sextant /, `${JSON.stringify(process.execPath)} bin/sextant.js `).replace(/\s+#.*$/, '');
      okJson(await inShell('/bin/sh', command), `hint: ${line.trim()}`);
    }
  });
});

describe('a reader that stops early', () => {
  test('`… | head -c 10` closes the pipe: the command ends quietly with exit 0, no EPIPE stack trace', T, async () => {
    // Output far larger than a pipe's buffer, so writes go on after `head` has gone.
    const command = `${JSON.stringify(process.execPath)} bin/sextant.js call find '{"kind":"field","limit":500}' --store ${JSON.stringify(store)} | head -c 10 > /dev/null; echo "exit=\${PIPESTATUS[0]}" >&2`;
    const run = await inShell('/bin/bash', command);
    assert.match(run.stderr, /exit=0\s*$/, run.stderr);
    assert.doesNotMatch(run.stderr, /EPIPE|Unhandled|\n\s+at /, run.stderr);
  });
});

describe('index and status', () => {
  test('status --json reports counts', T, async () => {
    const body = okJson(await runCli(['status', '--store', store, '--json']), 'status --json');
    assert.ok(body.counts.nodes > 5000, `nodes ${body.counts.nodes}`);
    assert.ok(body.counts.edges > 5000);
    assert.ok(body.counts.by_kind.type > 1000);
    assert.ok(body.counts.by_edge_type.HAS_FIELD > 1000);
    assert.equal(body.sources.length, 1);
    assert.equal(body.sources[0].kind, 'graphql');
  });

  test('status (text) names the index and its sources', T, async () => {
    const r = await runCli(['status', '--store', store]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /nodes: .*type \d+/);
  });

  test('status on a dir with no index → exit 1, saying to run `sextant index`', T, async () => {
    const empty = await tempDir('sextant-empty-');
    const r = await runCli(['status', '--store', empty]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /sextant index/);
    assert.ok(!existsSync(join(empty, 'index.db')), 'status must not create an index');
  });

  test('index of a missing path → exit 1 with what it accepts', T, async () => {
    const dir = await tempDir();
    const r = await runCli(['index', join(dir, 'nope.graphql'), '--store', join(dir, 'store')]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /does not exist/);
    assert.match(r.stderr, /sextant\.yaml/);
    assert.match(r.stderr, /\.graphql/);
  });

  test('index of a sextant.yaml with a misspelt key → exit 1 with file:LINE:COL and did-you-mean', T, async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'schema.graphql'), SMALL_SDL);
    await writeFile(join(dir, 'sextant.yaml'), 'sources:\n  - name: api\n    kind: graphql\n    shema: schema.graphql\n');
    const r = await runCli(['index', join(dir, 'sextant.yaml')]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /sextant\.yaml:4:5/);
    assert.match(r.stderr, /did you mean `schema`/i);
    assert.ok(!existsSync(join(dir, '.sextant', 'index.db')), 'a bad config must not create an index');
  });

  test('index without --store writes <dir>/.sextant; status finds it from inside the dir', T, async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'shop.graphql'), SMALL_SDL);
    const r = await runCli(['index', 'shop.graphql'], { cwd: dir });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(existsSync(join(dir, '.sextant', 'index.db')));
    assert.match(r.stdout, /index: .*\.sextant/);

    const deep = join(dir, 'src', 'deeper');
    await mkdir(deep, { recursive: true });
    for (const cwd of [dir, deep]) {
      const status = okJson(await runCli(['status', '--json'], { cwd }), `status in ${cwd}`);
      assert.equal(status.counts.by_kind.type >= 3, true);
      const found = okJson(await runCli(['call', 'resolve', '{"identifier":"Gadget.price"}'], { cwd }), 'resolve in the dir');
      assert.equal(found.status, 'one');
    }
  });

  test('index --json prints the build report', T, async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'shop.graphql'), SMALL_SDL);
    const body = okJson(await runCli(['index', join(dir, 'shop.graphql'), '--store', join(dir, 'idx'), '--json']), 'index --json');
    assert.equal(body.sources.length, 1);
    assert.ok(body.counts.nodes > 0);
  });

  test('SEXTANT_STORE is honoured by index, status and call', T, async () => {
    const dir = await tempDir();
    const envStore = join(dir, 'env-store');
    await writeFile(join(dir, 'shop.graphql'), SMALL_SDL);
    const elsewhere = await tempDir();
    const built = await runCli(['index', join(dir, 'shop.graphql')], { env: { SEXTANT_STORE: envStore }, cwd: elsewhere });
    assert.equal(built.code, 0, built.stderr);
    assert.ok(existsSync(join(envStore, 'index.db')), 'index did not write to SEXTANT_STORE');
    assert.ok(!existsSync(join(dir, '.sextant')), 'index wrote next to the schema despite SEXTANT_STORE');
    okJson(await runCli(['status', '--json'], { env: { SEXTANT_STORE: envStore }, cwd: elsewhere }), 'status via SEXTANT_STORE');
    const body = okJson(await runCli(['call', 'resolve', '{"identifier":"Widget"}'], { env: { SEXTANT_STORE: envStore }, cwd: elsewhere }), 'call via SEXTANT_STORE');
    assert.equal(body.status, 'one');
    // --store wins over SEXTANT_STORE.
    const big = okJson(await runCli(['call', 'resolve', '{"identifier":"PullRequest"}', '--store', store], { env: { SEXTANT_STORE: envStore }, cwd: elsewhere }), '--store over env');
    assert.equal(big.status, 'one');
  });
});

describe('an index built by another ontology version', () => {
  let dir: string;
  let schema: string;
  let idx: string;

  before(async () => {
    dir = await tempDir();
    schema = join(dir, 'shop.graphql');
    idx = join(dir, 'idx');
    await writeFile(schema, SMALL_SDL);
    // A relative target, so the stored root must be made absolute to be useful from elsewhere.
    const r = await runCli(['index', 'shop.graphql', '--store', idx], { cwd: dir });
    assert.equal(r.code, 0, r.stderr);
    const db = new Database(join(idx, 'index.db'));
    try {
      const changed = db.prepare("UPDATE meta SET value = 'old' WHERE key = 'ontology_version'").run();
      assert.equal(changed.changes, 1);
    } finally {
      db.close();
    }
  }, T);

  test('call → ok false, index_unavailable, with the rebuild command', T, async () => {
    const error = errJson(await call('search', { query: 'widget' }, idx), 'index_unavailable', 'search on a stale index');
    assert.match(error.message, /ontology version old/);
    assert.match(error.message, /sextant index/);
    assert.ok(error.message.includes(schema), `the rebuild command names the schema by absolute path: ${error.message}`);
    assert.ok(error.message.includes(idx), 'the rebuild command names the store');
  });

  test('status → exit 1 with the same teaching message', T, async () => {
    const r = await runCli(['status', '--store', idx]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /sextant index/);
  });

  test('running `sextant index` again fixes it', T, async () => {
    await indexInto(schema, idx);
    const body = okJson(await call('resolve', { identifier: 'Widget' }, idx), 'resolve after rebuild');
    assert.equal(body.status, 'one');
    const status = okJson(await runCli(['status', '--store', idx, '--json']), 'status after rebuild');
    assert.notEqual(status.ontology_version, 'old');
  });
});

describe('the GitHub schema file resolves', () => {
  test('from @octokit/graphql-schema', () => {
    assert.match(githubSchemaPath(), /@octokit[\\/]graphql-schema[\\/]schema\.graphql$/);
  });
});
