/**
 * `sextant setup <client>`: registers this Sextant as an MCP server (stdio, `serve --store <absolute index>`) in
 * an agent's configuration, merged into the file that is there: JSON is parsed and written back with every other
 * entry; Codex's TOML is edited only in the server's own table. A file that cannot be read as its format is never
 * overwritten. `--print` writes nothing.
 */
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { findNodeAtLocation, getNodeValue, type Node as JsonNode, type ParseError, parseTree, printParseErrorCode } from 'jsonc-parser';
import { homedir } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Each client: where its configuration lives and how a stdio server is written there. */
export interface ClientDef {
  name: string;
  label: string;
  /** The file, from the project directory or the home directory. */
  file: (where: { project: string; home: string; env: Record<string, string | undefined> }) => string;
  format: 'json' | 'toml';
  /** JSON: the top-level object holding servers by name. */
  serversKey?: string;
  /** JSON: the entry for a stdio server. */
  entry?: (run: ServerCommand) => Record<string, unknown>;
  /** What the user may need to do after the file is written. */
  note: string;
  /** The client's own command that registers the same server, where it has one (shown by --print). */
  command?: (name: string, run: ServerCommand) => string[];
}

export interface ServerCommand {
  command: string;
  args: string[];
}

export const CLIENTS: readonly ClientDef[] = [
  {
    name: 'claude-code',
    label: 'Claude Code',
    // Project scope: shared with everyone who opens the project (the user and local scopes live in ~/.claude.json,
    // which Claude Code keeps its own state in: `claude mcp add` writes those).
    file: ({ project }) => join(project, '.mcp.json'),
    format: 'json',
    serversKey: 'mcpServers',
    entry: (run) => ({ type: 'stdio', command: run.command, args: run.args, env: {} }),
    note: 'Claude Code asks once to approve the servers a project\'s .mcp.json declares; /mcp shows them.',
    command: (name, run) => ['claude', 'mcp', 'add', '--scope', 'project', name, '--', run.command, ...run.args],
  },
  {
    name: 'cursor',
    label: 'Cursor',
    file: ({ project }) => join(project, '.cursor', 'mcp.json'),
    format: 'json',
    serversKey: 'mcpServers',
    entry: (run) => ({ command: run.command, args: run.args }),
    note: 'Cursor lists it under Settings → MCP; turn it on there if it is off.',
  },
  {
    name: 'vscode',
    label: 'VS Code',
    file: ({ project }) => join(project, '.vscode', 'mcp.json'),
    format: 'json',
    serversKey: 'servers',
    entry: (run) => ({ type: 'stdio', command: run.command, args: run.args }),
    note: 'VS Code starts it from the MCP view or the Start action above the entry in .vscode/mcp.json (agent mode).',
  },
  {
    name: 'codex',
    label: 'Codex',
    file: ({ home, env }) => join(env['CODEX_HOME'] || join(home, '.codex'), 'config.toml'),
    format: 'toml',
    note: 'Codex reads it at start; /mcp in a session lists it.',
    command: (name, run) => ['codex', 'mcp', 'add', name, '--', run.command, ...run.args],
  },
];

/** A setup that cannot be done; `usage` for a wrong argument (exit 2), else a refusal (exit 1). */
export class SetupError extends Error {
  constructor(
    message: string,
    readonly usage = false,
  ) {
    super(message);
  }
}

export interface SetupOptions {
  store?: string;
  print?: boolean;
  project?: string;
  name: string;
  json?: boolean;
}

export interface SetupIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

type Action = 'added' | 'replaced' | 'unchanged';

interface Merge {
  action: Action;
  text: string;
  /** What a replaced entry held, as the file wrote it. */
  previous?: string;
}

/** The command that runs this Sextant: this installation's bin under this Node, or `npx` where npx fetched it. */
export function serverCommand(storeDir: string): ServerCommand {
  const bin = fileURLToPath(new URL('../../../bin/sextant.js', import.meta.url));
  // npx runs a package from a cache it may clear: the registration must name the package, not that path.
  if (bin.split(sep).includes('_npx')) return { command: 'npx', args: ['-y', 'sextant', 'serve', '--store', storeDir] };
  return { command: process.execPath, args: [bin, 'serve', '--store', storeDir] };
}

export async function runSetup(clientName: string, opts: SetupOptions, io: SetupIo, env: Record<string, string | undefined> = process.env): Promise<number> {
  const client = CLIENTS.find((c) => c.name === clientName.trim().toLowerCase());
  if (!client) {
    const { closest } = await import('../../search/similarity.js');
    const near = closest(clientName.toLowerCase(), CLIENTS.map((c) => c.name));
    throw new SetupError(`setup takes one of ${CLIENTS.map((c) => c.name).join(', ')}; got ${JSON.stringify(clientName.slice(0, 100))}.${near.length ? ` Did you mean ${near[0]}?` : ''}`, true);
  }
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(opts.name)) throw new SetupError(`--name takes letters, digits, _ and - (at most 64); got ${JSON.stringify(opts.name.slice(0, 100))}.`, true);
  const { locateStore } = await import('../../graph/open.js');
  const { DB_FILE } = await import('../../graph/sqlite/store.js');
  const storeDir = locateStore(opts.store, env);
  if (!existsSync(join(storeDir, DB_FILE))) io.err(`warning: there is no index at ${storeDir} yet: build it with \`sextant index <dir> --store ${storeDir}\` (the server answers that it is missing until then).`);
  const run = serverCommand(storeDir);
  const file = client.file({ project: resolve(opts.project ?? process.cwd()), home: homedir(), env });
  const existing = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
  const snippet = client.format === 'json' ? jsonSnippet(client, opts.name, run) : tomlTable(opts.name, run);

  let merge: Merge | undefined;
  let problem: string | undefined;
  try {
    merge = client.format === 'json' ? mergeJson(client, file, existing, opts.name, run) : mergeToml(file, existing, opts.name, run);
  } catch (err) {
    if (!(err instanceof SetupError) || !opts.print) throw err;
    problem = err.message;
  }

  const action = merge?.action;
  const own = client.command?.(opts.name, run).map(shellWord).join(' ');
  const report = { ok: true, client: client.name, file, server: opts.name, command: run.command, args: run.args, store: storeDir, ...(action ? { action } : {}), ...(merge?.previous ? { previous: merge.previous } : {}), written: false };
  if (opts.print) {
    if (opts.json) io.out(JSON.stringify({ ...report, print: snippet, ...(own ? { client_command: own } : {}), ...(problem ? { problem } : {}) }, null, 2));
    else {
      const verb = action === 'replaced' ? 'would replace the entry in' : action === 'unchanged' ? 'is already registered in' : 'would be added to';
      io.out(`# ${client.label}: "${opts.name}" ${verb} ${file} (--print: nothing written)`);
      if (problem) io.out(`# ${problem}`);
      if (own) io.out(`# or let ${client.label} write it: ${own}`);
      io.out(snippet);
    }
    return 0;
  }
  if (merge && action !== 'unchanged') writeAtomically(file, merge.text);
  if (opts.json) io.out(JSON.stringify({ ...report, written: action !== 'unchanged' }, null, 2));
  else {
    const what = action === 'added' ? `added server "${opts.name}" to` : action === 'replaced' ? `replaced server "${opts.name}" in` : `server "${opts.name}" is already registered, unchanged, in`;
    io.out(`${client.label}: ${what} ${file}${action === 'added' && existing === undefined ? ' (new file)' : ''}`);
    if (merge?.previous) io.out(`  it was: ${merge.previous.replace(/\s*\n\s*/g, ' ')}`);
    io.out(`  runs: ${[run.command, ...run.args].map(shellWord).join(' ')}`);
    io.out(`  ${client.note}`);
  }
  return 0;
}

function shellWord(text: string): string {
  return /^[A-Za-z0-9_/.:=@%+,-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * Replaces a file's text in one step, as the file it is: through a symbolic link (a dotfiles link stays a link;
 * its target changes), with the permissions it had (a `0600` file holding another server's key stays `0600`).
 */
function writeAtomically(file: string, text: string): void {
  const target = existsSync(file) && lstatSync(file).isSymbolicLink() ? realpathSync(file) : file;
  mkdirSync(dirname(target), { recursive: true });
  const mode = existsSync(target) ? statSync(target).mode & 0o7777 : undefined;
  const temp = `${target}.sextant-${process.pid}.tmp`;
  try {
    writeFileSync(temp, text, mode !== undefined ? { mode } : {});
    if (mode !== undefined) chmodSync(temp, mode);
    renameSync(temp, target);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
}

// ---------------------------------------------------------------- JSON

function jsonSnippet(client: ClientDef, name: string, run: ServerCommand): string {
  return JSON.stringify({ [client.serversKey!]: { [name]: client.entry!(run) } }, null, 2);
}

/**
 * The file with the server's entry set, as an edit of its text: comments, formatting and every other value kept
 * byte for byte (a number JSON cannot hold exactly, `1e400`, a repeated key); SetupError where the file is not a
 * JSON object (comments and trailing commas are read, as the clients read them).
 */
export function mergeJson(client: ClientDef, file: string, existing: string | undefined, name: string, run: ServerCommand): Merge {
  const key = client.serversKey!;
  const entry = client.entry!(run);
  const text = existing !== undefined && existing.trim() !== '' ? existing : '{}\n';
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length || !root) {
    const first = errors[0];
    const where = first ? `${printParseErrorCode(first.error)} at line ${text.slice(0, first.offset).split('\n').length}` : 'no value';
    throw new SetupError(`${file} is not valid JSON (${where}), so it was left as it is. Fix it, or add the entry by hand: \`sextant setup ${client.name} --print\` shows it.`);
  }
  if (root.type !== 'object') throw new SetupError(`${file} holds JSON that is not an object, so it was left as it is. ${client.label} expects {"${key}": {…}}; \`sextant setup ${client.name} --print\` shows the entry.`);
  const servers = findNodeAtLocation(root, [key]);
  if (servers && servers.type !== 'object') throw new SetupError(`"${key}" in ${file} is not an object of servers by name, so the file was left as it is. \`sextant setup ${client.name} --print\` shows the entry to add.`);
  const beforeNode = servers ? findNodeAtLocation(root, [key, name]) : undefined;
  const before: unknown = beforeNode ? getNodeValue(beforeNode) : undefined;
  const action: Action = before === undefined ? 'added' : JSON.stringify(before) === JSON.stringify(entry) ? 'unchanged' : 'replaced';
  if (action === 'unchanged') return { action, text };
  const style = jsonStyle(text);
  let next: string;
  if (beforeNode) next = splice(text, beforeNode.offset, beforeNode.length, jsonValue(entry, style, indentOf(text, beforeNode.parent!.offset)));
  else if (servers) next = addProperty(text, servers, name, entry, style);
  else next = addProperty(text, root, key, { [name]: entry }, style);
  return { action, text: next, ...(action === 'replaced' ? { previous: JSON.stringify(before) } : {}) };
}

interface JsonStyle {
  unit: string;
  eol: string;
}

/** The file's indentation unit and line ending (two spaces and `\n` for a new file). */
function jsonStyle(text: string): JsonStyle {
  return { unit: /\n(\t| +)["}/]/.exec(text)?.[1] ?? '  ', eol: text.includes('\r\n') ? '\r\n' : '\n' };
}

/** The indentation of the line `offset` is on. */
function indentOf(text: string, offset: number): string {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart))![0];
}

/** A value as JSON text in the file's style, its inner lines indented under `indent`. */
function jsonValue(value: unknown, style: JsonStyle, indent: string): string {
  return JSON.stringify(value, null, style.unit).split('\n').join(`${style.eol}${indent}`);
}

function splice(text: string, offset: number, length: number, insert: string): string {
  return `${text.slice(0, offset)}${insert}${text.slice(offset + length)}`;
}

/** `object` with one more property, after its last, every byte before and after kept. */
function addProperty(text: string, object: JsonNode, name: string, value: unknown, style: JsonStyle): string {
  const children = object.children ?? [];
  const last = children[children.length - 1];
  const indent = last ? indentOf(text, last.offset) : `${indentOf(text, object.offset)}${style.unit}`;
  const property = `${JSON.stringify(name)}: ${jsonValue(value, style, indent)}`;
  if (last) {
    const end = last.offset + last.length;
    // After a trailing comma already there, no second one.
    const comma = /^\s*,/.test(text.slice(end, object.offset + object.length - 1)) ? '' : ',';
    const at = comma ? end : end + text.slice(end).indexOf(',') + 1;
    return splice(text, at, 0, `${comma}${style.eol}${indent}${property}`);
  }
  // An empty object: the property on its own line, the closing brace on the object's.
  const close = object.offset + object.length - 1;
  return splice(text, object.offset + 1, close - object.offset - 1, `${style.eol}${indent}${property}${style.eol}${indentOf(text, object.offset)}`);
}

// ---------------------------------------------------------------- TOML (Codex)

/** A TOML basic string. JSON's escapes are TOML's, but for DEL, which TOML wants escaped. */
function tomlString(text: string): string {
  return JSON.stringify(text).replace(/\u007f/g, '\\u007F');
}

function tomlTable(name: string, run: ServerCommand): string {
  return [`[mcp_servers.${name}]`, `command = ${tomlString(run.command)}`, `args = [${run.args.map(tomlString).join(', ')}]`].join('\n');
}

interface TomlStatement {
  kind: 'header' | 'key';
  /** Header: the table's key path; key: the key path as written (relative to its table). */
  path: string[];
  /** `[[array of tables]]`. */
  array?: boolean;
  /** Key: the table it is in. */
  table?: string[];
  /** First and last line (0-based) the statement spans. */
  start: number;
  end: number;
}

class TomlShapeError extends Error {}

const BARE_KEY = /^[A-Za-z0-9_-]+/;

/** Reads a dotted key at `i` of `line`: its parts and where it ends. */
function readKey(line: string, i: number, lineNo: number): { path: string[]; next: number } {
  const path: string[] = [];
  for (;;) {
    while (line[i] === ' ' || line[i] === '\t') i++;
    const c = line[i];
    if (c === '"' || c === "'") {
      const close = c === '"' ? /"/g : /'/g;
      let j = i + 1;
      let part = '';
      for (;;) {
        close.lastIndex = j;
        const m = close.exec(line);
        if (!m) throw new TomlShapeError(`line ${lineNo + 1}: a quoted key is not closed`);
        if (c === '"' && isEscaped(line, m.index)) {
          j = m.index + 1;
          continue;
        }
        part = line.slice(i + 1, m.index);
        i = m.index + 1;
        break;
      }
      path.push(c === '"' ? (JSON.parse(`"${part}"`) as string) : part);
    } else {
      const m = BARE_KEY.exec(line.slice(i));
      if (!m) throw new TomlShapeError(`line ${lineNo + 1}: expected a key`);
      path.push(m[0]);
      i += m[0].length;
    }
    while (line[i] === ' ' || line[i] === '\t') i++;
    if (line[i] !== '.') return { path, next: i };
    i++;
  }
}

function isEscaped(text: string, at: number): boolean {
  let n = 0;
  for (let k = at - 1; k >= 0 && text[k] === '\\'; k--) n++;
  return n % 2 === 1;
}

/**
 * The statements of a TOML document: table headers and key/value pairs with the lines they span (a value may span
 * lines: arrays, inline tables, multi-line strings). Checks the document's shape, not every value's syntax: enough
 * to refuse a file that is not TOML rather than edit it, and to find every place a server is defined.
 */
export function tomlStatements(text: string): TomlStatement[] {
  const lines = text.split(/\r?\n/);
  const out: TomlStatement[] = [];
  let table: string[] = [];
  let n = 0;
  while (n < lines.length) {
    const line = lines[n]!;
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) {
      n++;
      continue;
    }
    if (trimmed.startsWith('[')) {
      const array = trimmed.startsWith('[[');
      const start = line.indexOf('[') + (array ? 2 : 1);
      const { path, next } = readKey(line, start, n);
      const rest = line.slice(next);
      const close = array ? /^\]\]\s*(#.*)?$/ : /^\]\s*(#.*)?$/;
      if (!close.test(rest)) throw new TomlShapeError(`line ${n + 1}: a table header is not closed`);
      out.push({ kind: 'header', path, array, start: n, end: n });
      table = path;
      n++;
      continue;
    }
    const { path, next } = readKey(line, 0, n);
    if (line[next] !== '=') throw new TomlShapeError(`line ${n + 1}: expected \`key = value\``);
    const end = valueEnd(lines, n, next + 1);
    out.push({ kind: 'key', path, table, start: n, end });
    n = end + 1;
  }
  return out;
}

/** The last line of the value starting at `col` of line `n`: brackets and strings closed, nothing but a comment after. */
function valueEnd(lines: string[], n: number, col: number): number {
  let depth = 0;
  let seen = false;
  let line = n;
  let i = col;
  for (;;) {
    const first = lines[line];
    if (first === undefined) throw new TomlShapeError(`line ${n + 1}: a value is not closed by the end of the file`);
    let text: string = first;
    while (i < text.length) {
      const c = text[i]!;
      if (c === '#') break;
      if (c === '"' || c === "'") {
        const triple = text.startsWith(c.repeat(3), i);
        const delim = triple ? c.repeat(3) : c;
        let j = i + delim.length;
        let l = line;
        let t: string = text;
        for (;;) {
          const k = t.indexOf(delim, j);
          if (k >= 0 && !(c === '"' && isEscaped(t, k))) {
            // A multi-line string may end with up to two more quotes of its kind.
            let e = k + delim.length;
            while (triple && t[e] === c && e - k < 5) e++;
            line = l;
            i = e;
            break;
          }
          if (k >= 0) {
            j = k + 1;
            continue;
          }
          if (!triple) throw new TomlShapeError(`line ${l + 1}: a string is not closed`);
          l++;
          if (lines[l] === undefined) throw new TomlShapeError(`line ${n + 1}: a multi-line string is not closed`);
          t = lines[l]!;
          j = 0;
        }
        // A multi-line string may have ended on a later line: go on from there.
        text = t;
        seen = true;
        continue;
      }
      if (c === ' ' || c === '\t') {
        i++;
        continue;
      }
      if (c === '[' || c === '{') depth++;
      else if (c === ']' || c === '}') {
        depth--;
        if (depth < 0) throw new TomlShapeError(`line ${line + 1}: a closing ${c} has no opening one`);
      } else if (c !== ',') {
        if (depth === 0 && seen && /\s/.test(text[i - 1] ?? '')) {
          // A bare value (number, date, boolean) may hold spaces only as a date-time `1979-05-27 07:32:00`.
          if (!/^\d{2}:\d{2}/.test(text.slice(i))) throw new TomlShapeError(`line ${line + 1}: unexpected text after a value`);
        }
      }
      seen = true;
      i++;
    }
    if (depth === 0) {
      if (!seen) throw new TomlShapeError(`line ${n + 1}: a key has no value`);
      return line;
    }
    line++;
    i = 0;
  }
}

function samePath(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((p, i) => p === b[i]);
}

function startsWith(path: readonly string[], prefix: readonly string[]): boolean {
  return prefix.every((p, i) => path[i] === p);
}

/**
 * The Codex config with `[mcp_servers.<name>]` holding this command and args: the table's other keys and every
 * other line kept as they are; a new table is added at the end. SetupError where the file is not TOML, or defines
 * the server in a form this writer does not edit (inline or dotted keys).
 */
export function mergeToml(file: string, existing: string | undefined, name: string, run: ServerCommand): Merge {
  const text = existing ?? '';
  let statements: TomlStatement[];
  try {
    statements = tomlStatements(text);
  } catch (err) {
    if (!(err instanceof TomlShapeError)) throw err;
    throw new SetupError(`${file} cannot be read as TOML (${err.message}), so it was left as it is. Fix it, or add the table by hand: \`sextant setup codex --print\` shows it.`);
  }
  const target = ['mcp_servers', name];
  const full = (s: TomlStatement) => (s.kind === 'header' ? s.path : [...(s.table ?? []), ...s.path]);
  const headers = statements.filter((s) => s.kind === 'header' && samePath(s.path, target));
  // The server (or all of mcp_servers) defined by keys rather than its own table: adding a table would define it twice.
  // (Keys in the server's own table or its sub-tables, `[mcp_servers.<name>.env]`, are the table's.)
  const elsewhere = statements.find((s) => s.kind === 'key' && !startsWith(s.table ?? [], target) && (startsWith(full(s), target) || samePath(full(s), ['mcp_servers'])));
  if (elsewhere || headers.some((h) => h.array) || headers.length > 1) {
    const at = elsewhere ?? headers[0]!;
    throw new SetupError(`${file} defines mcp_servers.${name} on line ${at.start + 1} in a form this command does not edit (a dotted key, an inline table or an array of tables), so it was left as it is. Replace that definition with the table \`sextant setup codex --print --name ${name}\` shows.`);
  }
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = text.split(/\r?\n/);
  const ours = [`command = ${tomlString(run.command)}`, `args = [${run.args.map(tomlString).join(', ')}]`];
  const header = headers[0];
  if (!header) {
    const body = text.replace(/(\r?\n)*$/, '');
    const table = [`[mcp_servers.${name}]`, ...ours].join(eol);
    return { action: 'added', text: `${body}${body ? `${eol}${eol}` : ''}${table}${eol}` };
  }
  // The table's own keys: those after its header and before the next header.
  const nextHeader = statements.find((s) => s.kind === 'header' && s.start > header.start);
  const own = statements.filter((s) => s.kind === 'key' && s.start > header.start && (!nextHeader || s.start < nextHeader.start));
  const replaced = own.filter((s) => s.path.length === 1 && (s.path[0] === 'command' || s.path[0] === 'args'));
  const drop = new Set(replaced.flatMap((s) => Array.from({ length: s.end - s.start + 1 }, (_, k) => s.start + k)));
  const current = replaced.map((s) => lines.slice(s.start, s.end + 1).join('\n').trim()).sort();
  if (current.length === 2 && current[0] === ours[1] && current[1] === ours[0]) return { action: 'unchanged', text };
  const out: string[] = [];
  lines.forEach((l, k) => {
    if (drop.has(k)) return;
    out.push(l);
    if (k === header.start) out.push(...ours);
  });
  return { action: 'replaced', text: out.join(eol), previous: replaced.map((s) => lines.slice(s.start, s.end + 1).join('\n').trim()).join('\n') || '(no command or args)' };
}
