/**
 * `sextant setup <client>` (issue 15, item 9): the exact file written for Claude Code, Cursor, VS Code and Codex in
 * a temporary HOME and project, merged without losing other entries, `--print` writing nothing, and files that
 * cannot be read as their format refused and left as they were.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, indexInto, jsonOf, killAll, runCli, tempDir } from './helpers/e2e.js';
import { sharedDir } from './helpers/index.js';
import { CLIENTS, mergeToml, tomlStatements } from '../src/surfaces/cli/setup.js';

const PETCLINIC = join(sharedDir(), 'corpora', 'spring-petclinic-microservices');
let store: string;

before(async () => {
  store = join(await tempDir('sextant-setup-store-'), 'index');
  await indexInto(PETCLINIC, store);
});
after(killAll);

/** A fresh project directory and HOME, and `sextant setup` run from the project with that HOME. */
async function place(): Promise<{ project: string; home: string; setup: (...args: string[]) => ReturnType<typeof runCli> }> {
  const project = await tempDir('sextant-setup-project-');
  const home = await tempDir('sextant-setup-home-');
  return { project, home, setup: (...args) => runCli(['setup', ...args], { cwd: project, env: { HOME: home, CODEX_HOME: undefined } }) };
}

/** What every client runs: this Node, this bin, `serve --store <absolute index>`. */
const ARGS = () => [BIN, 'serve', '--store', store];

const EXPECTED_JSON: Record<string, { file: string[]; doc: () => unknown }> = {
  'claude-code': { file: ['.mcp.json'], doc: () => ({ mcpServers: { sextant: { type: 'stdio', command: process.execPath, args: ARGS(), env: {} } } }) },
  cursor: { file: ['.cursor', 'mcp.json'], doc: () => ({ mcpServers: { sextant: { command: process.execPath, args: ARGS() } } }) },
  vscode: { file: ['.vscode', 'mcp.json'], doc: () => ({ servers: { sextant: { type: 'stdio', command: process.execPath, args: ARGS() } } }) },
};

const codexTable = () => `[mcp_servers.sextant]\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${ARGS().map((a) => JSON.stringify(a)).join(', ')}]\n`;

describe('sextant setup writes each client\'s registration', () => {
  for (const [client, expected] of Object.entries(EXPECTED_JSON)) {
    it(`${client}: ${expected.file.join('/')} in the project, and says what it did`, async () => {
      const { project, home, setup } = await place();
      const r = await setup(client, '--store', store);
      assert.equal(r.code, 0, r.stderr);
      const file = join(project, ...expected.file);
      assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), expected.doc());
      assert.match(r.stdout, new RegExp(`: added server "sextant" to ${file.replace(/[.*+?^$()|[\]{}\\]/g, '\\$&')} \\(new file\\)`));
      assert.ok(r.stdout.includes(`runs: ${process.execPath} ${BIN} serve --store ${store}`), r.stdout);
      assert.deepEqual(readdirSync(home), [], 'nothing is written in HOME');
      // Run again: unchanged, byte for byte.
      const before = readFileSync(file, 'utf8');
      const again = await setup(client, '--store', store);
      assert.match(again.stdout, /already registered, unchanged/);
      assert.equal(readFileSync(file, 'utf8'), before);
    });
  }

  it('codex: [mcp_servers.sextant] in ~/.codex/config.toml (or $CODEX_HOME), nothing in the project', async () => {
    const { project, home, setup } = await place();
    const r = await setup('codex', '--store', store);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(readFileSync(join(home, '.codex', 'config.toml'), 'utf8'), codexTable());
    assert.deepEqual(readdirSync(project), []);
    const codexHome = join(home, 'elsewhere');
    const other = await runCli(['setup', 'codex', '--store', store], { cwd: project, env: { HOME: home, CODEX_HOME: codexHome } });
    assert.equal(other.code, 0, other.stderr);
    assert.equal(readFileSync(join(codexHome, 'config.toml'), 'utf8'), codexTable());
  });

  it('a relative --store is written absolute; a store with no index yet is written with a warning', async () => {
    const { project, setup } = await place();
    const r = await setup('cursor', '--store', 'idx', '--json');
    assert.equal(r.code, 0);
    assert.equal(jsonOf(r).store, join(project, 'idx'));
    assert.deepEqual(JSON.parse(readFileSync(join(project, '.cursor', 'mcp.json'), 'utf8')).mcpServers.sextant.args, [BIN, 'serve', '--store', join(project, 'idx')]);
    assert.match(r.stderr, /warning: there is no index at .*idx yet/);
  });
});

describe('merging into a file that is there', () => {
  it('JSON: other servers and keys are kept, the file\'s indentation too; a different sextant entry is replaced and shown', async () => {
    const { project, setup } = await place();
    mkdirSync(join(project, '.cursor'));
    const file = join(project, '.cursor', 'mcp.json');
    const other = { command: 'npx', args: ['-y', 'other-mcp'], env: { TOKEN: 'x' } };
    writeFileSync(file, JSON.stringify({ mcpServers: { other, sextant: { command: 'old-sextant' } }, extra: [1, 2] }, null, 4));
    const r = await setup('cursor', '--store', store);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /replaced server "sextant" in/);
    assert.match(r.stdout, /it was: \{"command":"old-sextant"\}/);
    const text = readFileSync(file, 'utf8');
    assert.deepEqual(JSON.parse(text), { mcpServers: { other, sextant: { command: process.execPath, args: ARGS() } }, extra: [1, 2] });
    assert.match(text, /^\{\n {4}"mcpServers"/);
  });

  it('TOML: only the sextant table\'s command and args change; its other keys, sub-tables, comments and other tables stay', async () => {
    const { home, setup } = await place();
    mkdirSync(join(home, '.codex'));
    const file = join(home, '.codex', 'config.toml');
    const head = ['# my settings', 'model = "o3"', 'notes = """', '[not a table]', '"""', '', '[mcp_servers.other]', 'command = "npx"', 'args = [', '  "-y",  # the package', '  "other-mcp",', ']', ''];
    const ours = ['[mcp_servers.sextant]', 'command = "old"', 'startup_timeout_sec = 20', "args = ['a', 'b']", ''];
    const tail = ['[mcp_servers.sextant.env]', 'SEXTANT_LOG_LEVEL = "info"', ''];
    writeFileSync(file, [...head, ...ours, ...tail].join('\n'));
    const r = await setup('codex', '--store', store);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /replaced server "sextant" in .*config\.toml/);
    assert.match(r.stdout, /it was: command = "old" args = \['a', 'b'\]/);
    const [, command, args] = codexTable().split('\n');
    assert.equal(readFileSync(file, 'utf8'), [...head, '[mcp_servers.sextant]', command, args, 'startup_timeout_sec = 20', '', ...tail].join('\n'));
  });

  it('TOML: a new table is added after what is there', async () => {
    const { home, setup } = await place();
    mkdirSync(join(home, '.codex'));
    const file = join(home, '.codex', 'config.toml');
    writeFileSync(file, 'model = "o3"\n\n[mcp_servers.other]\ncommand = "x"\n\n\n');
    assert.equal((await setup('codex', '--store', store)).code, 0);
    assert.equal(readFileSync(file, 'utf8'), `model = "o3"\n\n[mcp_servers.other]\ncommand = "x"\n\n${codexTable()}`);
  });
});

describe('--print writes nothing', () => {
  it('prints the entry, where it would go and the client\'s own command, and creates no file', async () => {
    const { project, home, setup } = await place();
    for (const client of CLIENTS) {
      const r = await setup(client.name, '--store', store, '--print');
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /\(--print: nothing written\)/);
      if (client.format === 'json') {
        const snippet = r.stdout.slice(r.stdout.indexOf('\n{') + 1);
        assert.deepEqual(JSON.parse(snippet), EXPECTED_JSON[client.name]!.doc());
      } else assert.ok(r.stdout.endsWith(codexTable()), r.stdout);
    }
    assert.match((await setup('claude-code', '--store', store, '--print')).stdout, /# or let Claude Code write it: claude mcp add --scope project sextant -- /);
    assert.deepEqual(readdirSync(project), []);
    assert.deepEqual(readdirSync(home), []);
  });

  it('leaves an existing file as it is, even one it could not merge into', async () => {
    const { project, setup } = await place();
    mkdirSync(join(project, '.vscode'));
    const file = join(project, '.vscode', 'mcp.json');
    writeFileSync(file, '{ "servers": {} }');
    const r = await setup('vscode', '--store', store, '--print');
    assert.match(r.stdout, /would be added to/);
    assert.equal(readFileSync(file, 'utf8'), '{ "servers": {} }');
    writeFileSync(file, '{ "servers": {');
    const bad = await setup('vscode', '--store', store, '--print');
    assert.equal(bad.code, 0);
    assert.match(bad.stdout, /is not valid JSON/);
    assert.equal(readFileSync(file, 'utf8'), '{ "servers": {');
  });
});

describe('a file that cannot be read is refused, not overwritten', () => {
  const refusals: [string, string[], string, RegExp][] = [
    ['vscode', ['.vscode', 'mcp.json'], '{\n  "servers": {}\n', /is not valid JSON \(CloseBraceExpected at line 3\).*`sextant setup vscode --print` shows it/],
    ['cursor', ['.cursor', 'mcp.json'], '[1, 2]', /holds JSON that is not an object/],
    ['claude-code', ['.mcp.json'], '{"mcpServers": ["a"]}', /"mcpServers" in .* is not an object of servers by name/],
  ];
  for (const [client, path, content, message] of refusals) {
    it(`${client}: ${JSON.stringify(content).slice(0, 40)}`, async () => {
      const { project, setup } = await place();
      mkdirSync(join(project, ...path.slice(0, -1)), { recursive: true });
      const file = join(project, ...path);
      writeFileSync(file, content);
      const r = await setup(client, '--store', store);
      assert.equal(r.code, 1);
      assert.match(r.stderr, message);
      assert.equal(readFileSync(file, 'utf8'), content);
      assert.deepEqual(readdirSync(join(project, ...path.slice(0, -1))), [path[path.length - 1]], 'no temporary or backup file is left');
    });
  }

  for (const [what, content, message] of [
    ['an unclosed string', 'model = "o3\n', /cannot be read as TOML \(line 1: a string is not closed\)/],
    ['an unclosed header', '[mcp_servers.x\n', /cannot be read as TOML \(line 1: a table header is not closed\)/],
    ['a line that is no key', 'model "o3"\n', /cannot be read as TOML \(line 1: expected `key = value`\)/],
    ['the server as dotted keys', 'mcp_servers.sextant.command = "x"\n', /defines mcp_servers\.sextant on line 1 in a form this command does not edit/],
    ['the server as an inline table', '[mcp_servers]\nsextant = { command = "x" }\n', /defines mcp_servers\.sextant on line 2/],
  ] as const) {
    it(`codex: ${what}`, async () => {
      const { home, setup } = await place();
      mkdirSync(join(home, '.codex'));
      const file = join(home, '.codex', 'config.toml');
      writeFileSync(file, content);
      const r = await setup('codex', '--store', store);
      assert.equal(r.code, 1);
      assert.match(r.stderr, message);
      assert.equal(readFileSync(file, 'utf8'), content);
    });
  }

  it('an unknown client or a bad --name is a usage error', async () => {
    const { setup } = await place();
    const r = await setup('cursr');
    assert.equal(r.code, 2);
    assert.match(r.stderr, /setup takes one of claude-code, cursor, vscode, codex; got "cursr"\. Did you mean cursor\?/);
    const name = await setup('cursor', '--name', 'a b');
    assert.equal(name.code, 2);
    assert.match(name.stderr, /--name takes letters, digits, _ and -/);
  });
});

describe('the TOML reader', () => {
  it('finds statements across multi-line strings, arrays with comments, inline tables and quoted keys', () => {
    const text = ['a = """x', '[no]', 'y"""', "b = '''", "'''", 'c = [', '  1, # one', '  [2, 3],', ']', 'd = { e = "}", f = [1] }', '"q.k" = 1', "t = 1979-05-27 07:32:00Z", '[[arr]]', 'x = 1', "[ 'sp ace' . \"k\" ]"].join('\n');
    assert.deepEqual(
      tomlStatements(text).map((s) => [s.kind, s.path.join('/'), s.start, s.end]),
      [
        ['key', 'a', 0, 2],
        ['key', 'b', 3, 4],
        ['key', 'c', 5, 8],
        ['key', 'd', 9, 9],
        ['key', 'q.k', 10, 10],
        ['key', 't', 11, 11],
        ['header', 'arr', 12, 12],
        ['key', 'x', 13, 13],
        ['header', 'sp ace/k', 14, 14],
      ],
    );
  });

  it('keeps CRLF line ends and refuses [[mcp_servers.sextant]]', () => {
    const run = { command: '/n', args: ['s'] };
    assert.equal(mergeToml('f', 'a = 1\r\n', 'sextant', run).text, 'a = 1\r\n\r\n[mcp_servers.sextant]\r\ncommand = "/n"\r\nargs = ["s"]\r\n');
    assert.throws(() => mergeToml('f', '[[mcp_servers.sextant]]\ncommand = "x"\n', 'sextant', run), /in a form this command does not edit/);
  });

  it('a file that no server name reached is written with the exact table', () => {
    assert.equal(mergeToml('f', undefined, 'sx', { command: 'C:\\node "x"', args: [] }).text, '[mcp_servers.sx]\ncommand = "C:\\\\node \\"x\\""\nargs = []\n');
    assert.ok(existsSync(BIN));
  });
});

describe('setup edits the files it merges into as they are (issue 24 item 6)', () => {
  it('JSON: other servers\' values, comments, formatting and repeated keys are kept byte for byte; only the entry is added', async () => {
    const { project, setup } = await place();
    const file = join(project, '.mcp.json');
    const original = '{\n  // servers I use\n  "mcpServers": {\n    "other": { "command": "x", "args": [], "env": { "BIG": 12345678901234567890123, "HUGE": 1e400, "K": "v", "K": "w" } }\n  }\n}\n';
    writeFileSync(file, original);
    const r = await setup('claude-code', '--store', store);
    assert.equal(r.code, 0, r.stderr);
    const text = readFileSync(file, 'utf8');
    assert.ok(text.startsWith('{\n  // servers I use\n  "mcpServers": {\n    "other": { "command": "x", "args": [], "env": { "BIG": 12345678901234567890123, "HUGE": 1e400, "K": "v", "K": "w" } },'), text);
    assert.match(text, /"sextant": \{\n\s+"type": "stdio"/);
  });

  it('a symbolic link stays a link (its target is edited) and the file keeps its permissions', async () => {
    const { home, setup } = await place();
    const dotfiles = await tempDir('sextant-setup-dotfiles-');
    const target = join(dotfiles, 'codex-config.toml');
    writeFileSync(target, '[mcp_servers.other]\ncommand = "x"\nenv = { API_KEY = "secret" }\n', { mode: 0o600 });
    mkdirSync(join(home, '.codex'));
    symlinkSync(target, join(home, '.codex', 'config.toml'));
    const r = await setup('codex', '--store', store);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(lstatSync(join(home, '.codex', 'config.toml')).isSymbolicLink(), 'still a link');
    assert.match(readFileSync(target, 'utf8'), /^\[mcp_servers\.other\]\ncommand = "x"\nenv = \{ API_KEY = "secret" \}\n\n\[mcp_servers\.sextant\]/);
    assert.equal(statSync(target).mode & 0o777, 0o600);
  });

  it('JSON with comments (as VS Code and Cursor read it): the comments stay', async () => {
    const { project, setup } = await place();
    mkdirSync(join(project, '.vscode'));
    const file = join(project, '.vscode', 'mcp.json');
    writeFileSync(file, '{\n  // my servers\n  "servers": {},\n}\n');
    const r = await setup('vscode', '--store', store);
    assert.equal(r.code, 0, r.stderr);
    const text = readFileSync(file, 'utf8');
    assert.ok(text.startsWith('{\n  // my servers\n  "servers": {\n    "sextant": {\n      "type": "stdio",'), text);
    assert.ok(text.endsWith('\n  },\n}\n'), text);
  });

  it('JSON keeps its mode too', async () => {
    const { project, setup } = await place();
    const file = join(project, '.mcp.json');
    writeFileSync(file, '{"mcpServers": {}}\n', { mode: 0o600 });
    const r = await setup('claude-code', '--store', store);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(JSON.parse(readFileSync(file, 'utf8')).mcpServers.sextant.type, 'stdio');
  });
});
