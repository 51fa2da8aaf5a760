import { readFile, realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { FILE_HASHES_ARTIFACT, fileContentHash, parseFileHashes } from '../graph/file-hashes.js';
import type { Store } from '../graph/store.js';
import type { NodeRecord } from '../graph/types.js';

/**
 * A declaration's source, read from the indexed tree when a tool answers: the lines the node spans, its
 * signature (the header up to the body, annotations included) and the first sentence of its doc comment.
 *
 * Each file is checked against the content hash recorded when it was indexed. A file that changed since is still
 * read (`stale: true`, with a note) only when the recorded line still starts the same declaration (its name is in
 * the header there); its extent is then re-measured from the current text. Otherwise nothing is shown: lines that
 * moved would be someone else's code, and an agent acting on them would edit the wrong place.
 */

export const SOURCE_MODES = ['full', 'signature', 'none'] as const;
export type SourceMode = (typeof SOURCE_MODES)[number];
export const DEFAULT_MAX_LINES = 60;
export const MAX_MAX_LINES = 2000;

export type SourceAnswer =
  | {
      available: true;
      /** First and last line of what is shown (`text` or `signature`), 1-based. */
      start_line: number;
      end_line: number;
      text?: string;
      signature?: string;
      /** `full`: lines of the whole declaration, and whether `text` stops before its end. */
      total_lines?: number;
      truncated?: boolean;
      doc?: string;
      /** The file's content differs from what was indexed (or the index recorded no hash for it). */
      stale: boolean;
      note?: string;
    }
  | { available: false; reason: string; stale?: boolean };

/** Files larger than this are not read for an answer (generated sources); the extractor reads them, answers do not. */
const MAX_FILE_BYTES = 8 * 1024 * 1024;
/** How far above a declaration its doc comment may begin. */
const MAX_DOC_LINES = 400;
const MAX_DOC_CHARS = 300;
const MAX_SNIPPET_CHARS = 300;

interface LoadedFile {
  lines: string[];
  stale: boolean;
  /** Why the file counts as stale, when it does. */
  why?: string;
}

type Loaded = LoadedFile | { error: string };

/** Indexed roots and file hashes change only with a write: kept across calls, keyed by source and build time. */
const hashCache = new Map<string, Map<string, string> | undefined>();
const HASH_CACHE_SIZE = 8;

/**
 * Reads declarations for one tool call: each source's root, hash table and file is looked up once, however many
 * nodes share them.
 */
export class SourceReader {
  private sourcesP: Promise<Map<string, { kind: string; origin: string; built_at: string }>> | undefined;
  private readonly files = new Map<string, Promise<Loaded>>();

  constructor(private readonly store: Store) {}

  /** The node's source as asked: its lines (at most `maxLines`) for `full`, its header for `signature`. */
  async declaration(node: NodeRecord, mode: Exclude<SourceMode, 'none'>, maxLines = DEFAULT_MAX_LINES): Promise<SourceAnswer> {
    // Configuration files hold secrets beside ordinary keys: their lines are never quoted.
    if (node.kind === 'config_key') return { available: false, reason: 'configuration lines are not quoted, since configuration files hold secrets; the key\'s file, line, profile and (unless secret) value are its properties.' };
    const where = await this.place(node);
    if ('reason' in where) return { available: false, reason: where.reason };
    const loaded = await this.load(node.source, where.root, where.file);
    if ('error' in loaded) return { available: false, reason: loaded.error };
    const span = locate(node, loaded, await this.ownerEnd(node));
    if ('reason' in span) return { available: false, reason: span.reason, stale: loaded.stale };
    const { lines } = loaded;
    const doc = docSentence(lines, span.start - 1);
    const base = { stale: loaded.stale, ...(span.note || loaded.why ? { note: [loaded.why, span.note].filter(Boolean).join(' ') } : {}) };
    if (mode === 'signature') {
      const sig = span.header;
      if (!sig) return { available: false, reason: span.note ?? `${node.qualified_name} has no header.`, stale: loaded.stale };
      return { available: true, start_line: span.start, end_line: span.start + sig.lines - 1, signature: sig.text, ...(doc ? { doc } : {}), ...base };
    }
    const total = span.end - span.start + 1;
    const shown = Math.min(total, maxLines);
    return {
      available: true,
      start_line: span.start,
      end_line: span.start + shown - 1,
      text: lines.slice(span.start - 1, span.start - 1 + shown).join('\n'),
      total_lines: total,
      truncated: shown < total,
      ...(doc ? { doc } : {}),
      ...base,
    };
  }

  /**
   * A one-line snippet for a search result: the first sentence of the doc comment as a doc comment, then the
   * signature with its whitespace collapsed. Undefined when the source cannot be shown.
   */
  async snippet(node: NodeRecord): Promise<string | undefined> {
    if (node.kind !== 'symbol' || !node.file) return undefined;
    const answer = await this.declaration(node, 'signature');
    if (!answer.available || answer.signature === undefined) return undefined;
    const sig = answer.signature.replace(/\s+/g, ' ').trim();
    const text = answer.doc ? `/** ${answer.doc} */ ${sig}` : sig;
    return text.length <= MAX_SNIPPET_CHARS ? text : `${text.slice(0, MAX_SNIPPET_CHARS - 1).trimEnd()}…`;
  }

  /**
   * A member not written in source (a record accessor, a default or primary constructor, a property getter)
   * arises from a declaration that may span more lines than the member records: its declaring type bounds it.
   */
  private async ownerEnd(node: NodeRecord): Promise<number | undefined> {
    if (typeof node.props.synthetic !== 'string' || SYNTHETIC_FROM[node.props.synthetic] !== 'type_header' || typeof node.props.declaring_type !== 'string' || !node.line) return undefined;
    const owners = await this.store.nodesByName('qualified_name', node.props.declaring_type, { caseInsensitive: false, kinds: ['symbol'], limit: 5 });
    const owner = owners.find((o) => o.source === node.source && o.file === node.file && typeof o.props.end_line === 'number' && typeof o.line === 'number' && o.line <= node.line! && node.line! <= (o.props.end_line as number));
    return owner?.props.end_line as number | undefined;
  }

  private async place(node: NodeRecord): Promise<{ root: string; file: string } | { reason: string }> {
    if (node.kind === 'symbol' && node.props.resolved === false) return { reason: `${node.qualified_name} is a library symbol: its source is not in the indexed tree.` };
    if (!node.file) return { reason: `${node.qualified_name} has no file in the index.` };
    if (!node.line) return { reason: `${node.qualified_name} has no line in the index.` };
    this.sourcesP ??= this.store.sources().then((list) => new Map(list.map((s) => [s.name, s])));
    const source = (await this.sourcesP).get(node.source);
    if (!source) return { reason: `source ${node.source} is not in the index.` };
    if (source.kind !== 'code') return { reason: `source text is read from code sources (Java, Kotlin); ${node.source} is a ${source.kind} source.` };
    if (!isAbsolute(source.origin)) return { reason: `the index does not record where source ${node.source} was read from.` };
    return { root: source.origin, file: node.file };
  }

  private load(source: string, root: string, file: string): Promise<Loaded> {
    const key = `${root}\0${file}`;
    let p = this.files.get(key);
    if (!p) this.files.set(key, (p = this.read(source, root, file)));
    return p;
  }

  private async read(source: string, root: string, file: string): Promise<Loaded> {
    const abs = resolve(root, file);
    if (file.includes('\0') || isAbsolute(file) || !inside(root, abs)) return { error: `${file} is not inside the indexed root ${root}; it is not read.` };
    let real: string;
    let realRoot: string;
    try {
      realRoot = await realpath(root);
    } catch {
      return { error: `the indexed tree ${root} is not there any more (moved or deleted since indexing): re-index it where it is now.` };
    }
    try {
      real = await realpath(abs);
    } catch {
      return { error: `${file} is not in ${root} any more (deleted or renamed since indexing): re-index, or resolve the name again.` };
    }
    // A symbolic link inside the tree may point anywhere: only what resolves inside the root is read.
    if (!inside(realRoot, real)) return { error: `${file} resolves outside the indexed root ${root}; it is not read.` };
    let bytes: Buffer;
    try {
      const info = await stat(real);
      if (!info.isFile()) return { error: `${file} is not a regular file.` };
      if (info.size > MAX_FILE_BYTES) return { error: `${file} is ${info.size} bytes, over the ${MAX_FILE_BYTES}-byte limit for quoting source.` };
      bytes = await readFile(real);
    } catch (err) {
      return { error: `${file} could not be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}.` };
    }
    const recorded = (await this.hashes(source))?.get(file);
    const now = fileContentHash(bytes);
    const lines = bytes.toString('utf8').split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
    if (recorded === now) return { lines, stale: false };
    return {
      lines,
      stale: true,
      why: recorded
        ? `${file} changed since it was indexed (its content hash differs): shown from the file as it is now; re-index (\`sextant index\`, or \`--watch\`) to bring the graph up to date.`
        : `the index records no content hash for ${file} (an index built before Sextant kept them): shown from the file as it is now; re-index to check it.`,
    };
  }

  private async hashes(source: string): Promise<Map<string, string> | undefined> {
    const info = (await this.sourcesP)?.get(source);
    const key = `${this.store.location}\0${source}\0${info?.built_at ?? ''}`;
    if (hashCache.has(key)) return hashCache.get(key);
    const text = await this.store.artifact(source, FILE_HASHES_ARTIFACT);
    const map = text === undefined ? undefined : parseFileHashes(text);
    if (hashCache.size >= HASH_CACHE_SIZE) hashCache.delete(hashCache.keys().next().value!);
    hashCache.set(key, map);
    return map;
  }
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel);
}

/**
 * Where a member not written in source arises from: its type's header (which may span many lines), or its own
 * line (the field or property it accesses).
 */
const SYNTHETIC_FROM: Readonly<Record<string, 'type_header' | 'own_lines'>> = {
  default_constructor: 'type_header',
  record_constructor: 'type_header',
  record_accessor: 'type_header',
  primary_constructor: 'type_header',
  lombok_constructor: 'type_header',
  property_getter: 'own_lines',
  property_setter: 'own_lines',
  lombok_getter: 'own_lines',
  lombok_setter: 'own_lines',
};

interface Span {
  /** 1-based first and last line of the declaration. */
  start: number;
  end: number;
  /** Absent for a Kotlin file facade, which has no header of its own. */
  header?: { text: string; lines: number };
  note?: string;
}

/** Where the node's declaration is in `file`: as indexed, or, in a changed file, re-checked and re-measured. */
function locate(node: NodeRecord, file: LoadedFile, ownerEnd: number | undefined): Span | { reason: string } {
  const { lines } = file;
  let start = node.line!;
  const recordedEnd = typeof node.props.end_line === 'number' && node.props.end_line >= start ? node.props.end_line : start;
  if (start > lines.length) return { reason: `line ${start} is past the end of ${node.file} (${lines.length} lines): the file changed since indexing; re-index, or read the file.` };
  const kotlin = node.props.language === 'kotlin' || /\.kts?$/.test(node.file ?? '');
  const synthetic = typeof node.props.synthetic === 'string' ? node.props.synthetic : undefined;
  // Nothing in these lines names the node for sure, so in a changed file they cannot be checked.
  if ((node.kind !== 'symbol' || synthetic) && file.stale) return unplaced(node);
  if (synthetic) {
    // The declaration it arises from (a record or class header, a field, a property), up to its body or end.
    const bound = SYNTHETIC_FROM[synthetic] === 'type_header' ? Math.max(recordedEnd, ownerEnd ?? 0) : recordedEnd;
    const header = scanDeclaration(lines, start - 1, Math.min(bound, lines.length) - 1, kotlin, false).header;
    return { start, end: start + header.lines - 1, header, note: `${node.qualified_name} is not written in source (${synthetic}): shown is the declaration it arises from.` };
  }
  if (node.kind !== 'symbol') {
    // Not a declaration with a header of its own: the line (or lines) it points at.
    const end = Math.min(recordedEnd, lines.length);
    return { start, end, header: trimmedLines(lines, start - 1, end - 1) };
  }
  if (node.props.flavor === 'facade') {
    const end = file.stale ? lines.length : Math.min(recordedEnd, lines.length);
    return { start, end, note: `${node.qualified_name} is a Kotlin file facade: the file's top-level declarations; it has no header of its own.` };
  }
  const anonymous = typeof node.props.flavor === 'string' && node.props.flavor.includes('anonymous');
  // In a changed file, blank lines that moved in above the declaration are not part of it.
  // In a changed file, blank lines that moved in above the declaration are not part of it, and annotations that
  // moved out above it are.
  if (file.stale) while (start < lines.length && lines[start - 1]!.trim() === '') start++;
  if (file.stale) while (start > 1 && /^\s*@\w/.test(lines[start - 2]!)) start--;
  const scan = scanDeclaration(lines, start - 1, file.stale ? lines.length - 1 : Math.min(recordedEnd, lines.length) - 1, kotlin, file.stale);
  const header = anonymous ? anonymousHeader(lines[start - 1]!, kotlin) : scan.header;
  if (!file.stale) return { start, end: Math.min(recordedEnd, lines.length), header };
  if (anonymous) return unplaced(node);
  // The name must stand in the header itself (not in an argument list), and a Java member with a body must still
  // open one: a call statement on that line now (`taxFor(invoice);`) does not pass for the declaration.
  const abstract = Array.isArray(node.props.modifiers) && node.props.modifiers.some((m) => m === 'abstract' || m === 'native');
  const bodiless = !kotlin && scan.by === ';' && node.props.symbol_kind !== undefined && ['method', 'constructor'].includes(String(node.props.symbol_kind)) && !abstract;
  if (scan.broken || bodiless || !mentions(scan.outer, nameWords(node))) return moved(node, start);
  const end = scan.end ?? Math.min(lines.length, start + (recordedEnd - start));
  return { start, end, header };
}

/** `.body(new TypeReference<List<Vet>>() {` → `new TypeReference<List<Vet>>()` (Kotlin: `object : Foo`). */
function anonymousHeader(line: string, kotlin: boolean): { text: string; lines: number } {
  const at = kotlin ? line.lastIndexOf('object') : line.lastIndexOf('new ');
  const from = at >= 0 ? line.slice(at) : line.trim();
  const brace = from.indexOf('{');
  return { text: (brace >= 0 ? from.slice(0, brace) : from).trim(), lines: 1 };
}

function moved(node: NodeRecord, line: number): { reason: string } {
  return { reason: `${node.file} changed since it was indexed and line ${line} no longer starts ${node.qualified_name}: not shown, since the lines there are other code now. Re-index (\`sextant index\`, or \`--watch\`), or read the file.` };
}

function unplaced(node: NodeRecord): { reason: string } {
  return { reason: `${node.file} changed since it was indexed, and whether line ${node.line} still holds ${node.qualified_name} cannot be checked: not shown. Re-index (\`sextant index\`, or \`--watch\`), or read the file.` };
}

/** The words a declaration's header must contain for the declaration to still start there. */
function nameWords(node: NodeRecord): string[] {
  if (node.name === '<init>') {
    const owner = typeof node.props.declaring_type === 'string' ? node.props.declaring_type : node.qualified_name.split('#')[0]!;
    return [owner.slice(Math.max(owner.lastIndexOf('.'), owner.lastIndexOf('$')) + 1), 'constructor', 'init'];
  }
  if (node.props.flavor === 'companion') return [node.name, 'companion'];
  return [node.name];
}

/** Whether one of `words` stands in `text` as a whole identifier. */
function mentions(text: string, words: string[]): boolean {
  const part = (c: string | undefined) => c !== undefined && /[\w$]/.test(c);
  return words.some((w) => {
    for (let at = w ? text.indexOf(w) : -1; at >= 0; at = text.indexOf(w, at + 1)) if (!part(text[at - 1]) && !part(text[at + w.length])) return true;
    return false;
  });
}

/** Lines `from..to` (0-based, inclusive) without trailing blank lines, dedented. */
function trimmedLines(lines: string[], from: number, to: number): { text: string; lines: number } {
  const picked = lines.slice(from, to + 1).map((l) => l.trimEnd());
  while (picked.length > 1 && picked[picked.length - 1] === '') picked.pop();
  return { text: dedent(picked).join('\n'), lines: picked.length };
}

function dedent(lines: string[]): string[] {
  const indents = lines.filter((l) => l.trim() !== '').map((l) => /^[ \t]*/.exec(l)![0].length);
  const cut = indents.length ? Math.min(...indents) : 0;
  return lines.map((l) => l.slice(Math.min(cut, /^[ \t]*/.exec(l)![0].length)));
}

interface Scanned {
  header: { text: string; lines: number };
  /** 1-based line of the `}` closing the body, or of the `;` ending a bodiless declaration, when `measure` asked. */
  end?: number;
  /** What ended the header (none: the range ended first). */
  by?: '{' | ';' | '=';
  /** The header's code outside brackets, strings and comments: where a declaration's name stands. */
  outer: string;
  /** A `}` or `)` closed something opened before the first line: the lines do not start a declaration. */
  broken?: boolean;
}

/**
 * The declaration's header: its text from the first line up to the body — the `{` that opens it, the `;` of a
 * bodiless Java declaration, or the `=` of a Kotlin expression body — at bracket depth 0 outside strings, chars
 * and comments (so `@RequestMapping({"/a", "/b"})`, default arguments and string templates do not end it). With
 * `measure`, also where the body ends (re-measuring a declaration in a changed file).
 */
export function scanDeclaration(lines: string[], from: number, to: number, kotlin: boolean, measure: boolean): Scanned {
  // Inside strings (with Kotlin templates, whose code may hold strings again) the stack says where we are.
  const stack: ({ t: 'str'; raw: boolean } | { t: 'tpl'; depth: number })[] = [];
  let comment = false;
  let parens = 0;
  let body: { line: number; col: number; by: '{' | ';' | '=' } | undefined;
  let braces = 0;
  let outer = '';
  const last = Math.min(to, lines.length - 1);
  const done = (extra: Partial<Scanned>): Scanned => ({ header: body ? headerText(lines, from, body) : trimmedLines(lines, from, last), outer, ...(body ? { by: body.by } : {}), ...extra });
  for (let li = from; li <= last; li++) {
    const s = lines[li]!;
    // A plain string does not go past its line (an unclosed one in broken source stops there).
    while (stack.length && stack[stack.length - 1]!.t === 'str' && !(stack[stack.length - 1] as { raw: boolean }).raw) stack.pop();
    outer += ' ';
    for (let i = 0; i < s.length; i++) {
      const c = s[i]!;
      const top = stack[stack.length - 1];
      if (comment) {
        if (c === '*' && s[i + 1] === '/') {
          comment = false;
          i++;
        }
        continue;
      }
      if (top?.t === 'str') {
        if (!top.raw && c === '\\') i++;
        else if (top.raw ? s.startsWith('"""', i) : c === '"') {
          stack.pop();
          if (top.raw) i += 2;
        } else if (kotlin && c === '$' && s[i + 1] === '{') {
          stack.push({ t: 'tpl', depth: 0 });
          i++;
        }
        continue;
      }
      if (c === '/' && s[i + 1] === '/') break;
      // The end of a comment that never began here: the first line is inside a comment.
      if (c === '*' && s[i + 1] === '/' && !body) return done({ broken: true });
      if (c === '/' && s[i + 1] === '*') {
        comment = true;
        i++;
        continue;
      }
      if (c === '"') {
        const raw = s.startsWith('"""', i);
        stack.push({ t: 'str', raw });
        if (raw) i += 2;
        continue;
      }
      if (c === "'" || (kotlin && c === '`')) {
        // A char literal or a Kotlin backticked name: to its closing mark on this line.
        let j = i + 1;
        while (j < s.length && s[j] !== c) j += s[j] === '\\' && c === "'" ? 2 : 1;
        i = j;
        continue;
      }
      if (top?.t === 'tpl') {
        if (c === '{') top.depth++;
        else if (c === '}') {
          if (top.depth === 0) stack.pop();
          else top.depth--;
        }
        continue;
      }
      if (body) {
        if (c === '{') braces++;
        else if (c === '}' && --braces === 0) return done({ end: li + 1 });
        continue;
      }
      if (c === '(' || c === '[') parens++;
      else if (c === ')' || c === ']') {
        if (parens === 0) return done({ broken: true });
        parens--;
      } else if (c === '}' && parens === 0) return done({ broken: true });
      else if (parens === 0 && (c === '{' || c === ';' || (kotlin && c === '=' && s[i + 1] !== '=' && s[i - 1] !== '=' && s[i - 1] !== '!' && s[i - 1] !== '<' && s[i - 1] !== '>'))) {
        body = { line: li, col: i, by: c };
        if (c === '{') braces = 1;
        if (c === '{' && measure) continue;
        return done(c === ';' ? { end: li + 1 } : {});
      } else if (parens === 0) outer += c;
    }
  }
  // Without a body the declaration is all header (a Kotlin class without a body, an abstract Kotlin function).
  return done({});
}

function headerText(lines: string[], from: number, body: { line: number; col: number }): { text: string; lines: number } {
  const picked = lines.slice(from, body.line + 1);
  picked[picked.length - 1] = picked[picked.length - 1]!.slice(0, body.col);
  while (picked.length > 1 && picked[picked.length - 1]!.trim() === '') picked.pop();
  return { text: dedent(picked.map((l) => l.trimEnd())).join('\n'), lines: picked.length };
}

/**
 * The first sentence of the Javadoc or KDoc comment just above line `at` (0-based), blank lines allowed between:
 * block tags (`@param`, `@author`) dropped, inline tags (`{@link Foo}`, `{@code x}`) and HTML reduced to their text.
 */
export function docSentence(lines: string[], at: number): string | undefined {
  let i = at - 1;
  while (i >= 0 && lines[i]!.trim() === '') i--;
  if (i < 0 || !lines[i]!.trimEnd().endsWith('*/')) return undefined;
  let j = i;
  while (j >= 0 && i - j < MAX_DOC_LINES && !lines[j]!.includes('/*')) j--;
  if (j < 0 || i - j >= MAX_DOC_LINES) return undefined;
  const open = lines[j]!.indexOf('/*');
  if (!lines[j]!.startsWith('/**', open) || lines[j]!.startsWith('/**/', open)) return undefined;
  const body = lines.slice(j, i + 1);
  body[body.length - 1] = body[body.length - 1]!.slice(0, body[body.length - 1]!.lastIndexOf('*/'));
  body[0] = body[0]!.slice(open + 3);
  const text: string[] = [];
  for (const raw of body) {
    const line = raw.replace(/^\s*\*(?!\/)\s?/, '').trim();
    if (/^@\w/.test(line)) break;
    text.push(line);
  }
  const joined = text.join(' ');
  // An HTML block (a new paragraph, a list, preformatted text) ends the summary as a period does.
  const block = /<(?:p|ul|ol|pre|dl|table|blockquote|div|hr|h[1-6])\b[^>]*>/i.exec(joined);
  const flat = (block && block.index > 0 && joined.slice(0, block.index).trim() ? joined.slice(0, block.index) : joined)
    .replace(/\{@(?:link|linkplain)\s+([^\s}]+)(?:\s+([^}]*))?\}/g, (_, target: string, label?: string) => (label?.trim() ? label.trim() : target.replace(/^#/, '')))
    .replace(/\{@(?:code|literal|value)\s*([^}]*)\}/g, '$1')
    .replace(/\{@inheritDoc\}/g, ' ')
    .replace(/<[^>]{1,40}>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (!flat) return undefined;
  const sentence = /^(.+?[.!?])(?=\s|$)/.exec(flat)?.[1] ?? flat;
  return sentence.length <= MAX_DOC_CHARS ? sentence : `${sentence.slice(0, MAX_DOC_CHARS - 1).trimEnd()}…`;
}
