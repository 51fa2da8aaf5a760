/**
 * The syntax build files are written in, read far enough to find what a service is built on: XML elements with
 * their lines (Maven), a TOML subset (Gradle version catalogs), and Groovy or Kotlin build scripts as statements
 * and blocks of simple expressions. Each reader is linear in its input, never throws on bad input, and says what
 * it could not read.
 */

// ---------------------------------------------------------------------------------------------------------------
// Lines

/** 1-based line of an offset, by binary search over line starts. */
export function lineIndex(text: string): (offset: number) => number {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}

// ---------------------------------------------------------------------------------------------------------------
// XML

export interface XmlElement {
  /** Local name (a namespace prefix dropped). */
  name: string;
  line: number;
  children: XmlElement[];
  /** Text and CDATA directly inside, entities decoded. */
  text: string;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-zA-Z]{2,8});/g, (whole, body: string) => {
    if (body[0] === '#') {
      const code = body[1] === 'x' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[body] ?? whole;
  });
}

/** The document element of an XML text, or the first problem that stopped the read. */
export function parseXml(text: string): { root?: XmlElement; error?: string } {
  const lineOf = lineIndex(text);
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  let i = 0;
  const fail = (what: string, at: number) => ({ ...(root ? { root } : {}), error: `${what} at line ${lineOf(at)}` });
  while (i < text.length) {
    const lt = text.indexOf('<', i);
    const chunk = lt < 0 ? text.slice(i) : text.slice(i, lt);
    if (stack.length && chunk) stack[stack.length - 1]!.text += decodeEntities(chunk);
    if (lt < 0) break;
    if (text.startsWith('<!--', lt)) {
      const end = text.indexOf('-->', lt + 4);
      if (end < 0) return fail('unclosed comment', lt);
      i = end + 3;
    } else if (text.startsWith('<![CDATA[', lt)) {
      const end = text.indexOf(']]>', lt + 9);
      if (end < 0) return fail('unclosed CDATA section', lt);
      if (stack.length) stack[stack.length - 1]!.text += text.slice(lt + 9, end);
      i = end + 3;
    } else if (text.startsWith('<?', lt)) {
      const end = text.indexOf('?>', lt + 2);
      if (end < 0) return fail('unclosed processing instruction', lt);
      i = end + 2;
    } else if (text.startsWith('<!', lt)) {
      // DOCTYPE: an internal subset in brackets may hold '>'.
      let depth = 0;
      let j = lt + 2;
      for (; j < text.length; j++) {
        if (text[j] === '[') depth++;
        else if (text[j] === ']') depth--;
        else if (text[j] === '>' && depth <= 0) break;
      }
      i = j + 1;
    } else if (text[lt + 1] === '/') {
      const end = text.indexOf('>', lt);
      if (end < 0) return fail('unclosed end tag', lt);
      const name = localName(text.slice(lt + 2, end).trim());
      const open = stack.pop();
      if (!open || open.name !== name) return fail(`end tag </${name}> does not close ${open ? `<${open.name}>` : 'any element'}`, lt);
      i = end + 1;
    } else {
      const end = tagEnd(text, lt + 1);
      if (end < 0) return fail('unclosed tag', lt);
      const body = text.slice(lt + 1, end);
      const selfClosing = body.endsWith('/');
      const nameMatch = /^[^\s/>]+/.exec(body);
      if (!nameMatch) return fail('a tag without a name', lt);
      const element: XmlElement = { name: localName(nameMatch[0]), line: lineOf(lt), children: [], text: '' };
      if (stack.length) stack[stack.length - 1]!.children.push(element);
      else if (!root) root = element;
      else return fail('a second document element', lt);
      if (!selfClosing) stack.push(element);
      i = end + 1;
    }
  }
  if (stack.length) return fail(`<${stack[stack.length - 1]!.name}> is never closed`, text.length);
  return root ? { root } : { error: 'no document element' };
}

/** The `>` ending a start tag, skipping quoted attribute values. */
function tagEnd(text: string, from: number): number {
  let quote = '';
  for (let i = from; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '>') return i;
  }
  return -1;
}

function localName(name: string): string {
  return name.slice(name.indexOf(':') + 1);
}

export function child(element: XmlElement | undefined, name: string): XmlElement | undefined {
  return element?.children.find((c) => c.name === name);
}

export function children(element: XmlElement | undefined, name: string): XmlElement[] {
  return element ? element.children.filter((c) => c.name === name) : [];
}

/** Trimmed text of a child element, undefined when absent. */
export function childText(element: XmlElement | undefined, name: string): string | undefined {
  const c = child(element, name);
  return c ? c.text.trim() : undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// TOML (the subset version catalogs use: tables, keys, strings, inline tables, arrays, bare scalars)

export type TomlValue = string | TomlValue[] | TomlTable;
export interface TomlTable {
  [key: string]: TomlEntry;
}
export interface TomlEntry {
  value: TomlValue;
  line: number;
}

/** Top-level tables by header (`versions`, `libraries`, …; keys before any header under ''), with the problems met. */
export function parseToml(text: string): { tables: Map<string, TomlTable>; errors: string[] } {
  const lineOf = lineIndex(text);
  const tables = new Map<string, TomlTable>([['', {}]]);
  const errors: string[] = [];
  let current = tables.get('')!;
  let i = 0;
  const skipSpace = (newlines: boolean): void => {
    while (i < text.length) {
      const c = text[i]!;
      if (c === ' ' || c === '\t' || c === '\r' || (newlines && c === '\n')) i++;
      else if (c === '#') while (i < text.length && text[i] !== '\n') i++;
      else break;
    }
  };
  const skipLine = (): void => {
    while (i < text.length && text[i] !== '\n') i++;
  };
  const key = (): string[] | undefined => {
    const parts: string[] = [];
    for (;;) {
      skipSpace(false);
      const c = text[i];
      if (c === '"' || c === "'") {
        const s = string();
        if (s === undefined) return undefined;
        parts.push(s);
      } else {
        const m = /^[A-Za-z0-9_-]+/.exec(text.slice(i, i + 200));
        if (!m) return undefined;
        parts.push(m[0]);
        i += m[0].length;
      }
      skipSpace(false);
      if (text[i] !== '.') return parts;
      i++;
    }
  };
  const string = (): string | undefined => {
    const q = text[i]!;
    const triple = text.startsWith(q.repeat(3), i);
    const close = triple ? q.repeat(3) : q;
    let j = i + (triple ? 3 : 1);
    if (triple && text[j] === '\n') j++;
    let out = '';
    while (j < text.length) {
      if (text.startsWith(close, j)) {
        i = j + close.length;
        return out;
      }
      const c = text[j]!;
      if (!triple && c === '\n') return undefined;
      if (c === '\\' && q === '"') {
        const n = text[j + 1];
        const esc: Record<string, string> = { n: '\n', t: '\t', r: '\r', '"': '"', '\\': '\\', b: '\b', f: '\f' };
        if (n === 'u' || n === 'U') {
          const len = n === 'u' ? 4 : 8;
          const code = parseInt(text.slice(j + 2, j + 2 + len), 16);
          out += Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : '';
          j += 2 + len;
        } else {
          out += esc[n ?? ''] ?? n ?? '';
          j += 2;
        }
        continue;
      }
      out += c;
      j++;
    }
    return undefined;
  };
  const value = (depth: number): TomlValue | undefined => {
    skipSpace(false);
    const c = text[i];
    if (c === '"' || c === "'") return string();
    if (depth > 16) return undefined;
    if (c === '[') {
      i++;
      const out: TomlValue[] = [];
      for (;;) {
        skipSpace(true);
        if (text[i] === ']') {
          i++;
          return out;
        }
        const v = value(depth + 1);
        if (v === undefined) return undefined;
        out.push(v);
        skipSpace(true);
        if (text[i] === ',') i++;
        else if (text[i] !== ']') return undefined;
      }
    }
    if (c === '{') {
      i++;
      const out: TomlTable = {};
      for (;;) {
        skipSpace(false);
        if (text[i] === '}') {
          i++;
          return out;
        }
        const line = lineOf(i);
        const k = key();
        if (!k || text[i] !== '=') return undefined;
        i++;
        const v = value(depth + 1);
        if (v === undefined) return undefined;
        setDotted(out, k, { value: v, line });
        skipSpace(false);
        if (text[i] === ',') i++;
        else if (text[i] !== '}') return undefined;
      }
    }
    const m = /^[A-Za-z0-9_.:+-]+/.exec(text.slice(i, i + 200));
    if (!m) return undefined;
    i += m[0].length;
    return m[0];
  };
  while (i < text.length) {
    skipSpace(true);
    if (i >= text.length) break;
    const line = lineOf(i);
    if (text[i] === '[') {
      const array = text[i + 1] === '[';
      i += array ? 2 : 1;
      const k = key();
      if (!k || text[i] !== ']') {
        errors.push(`line ${line}: malformed table header`);
        skipLine();
        continue;
      }
      i += array ? 2 : 1;
      const name = k.join('.');
      current = tables.get(name) ?? {};
      tables.set(name, current);
      skipLine();
      continue;
    }
    const k = key();
    if (!k || text[i] !== '=') {
      errors.push(`line ${line}: expected key = value`);
      skipLine();
      continue;
    }
    i++;
    const v = value(0);
    if (v === undefined) {
      errors.push(`line ${line}: unreadable value of ${k.join('.')}`);
      skipLine();
      continue;
    }
    setDotted(current, k, { value: v, line });
  }
  return { tables, errors };
}

function setDotted(table: TomlTable, key: string[], entry: TomlEntry): void {
  let t = table;
  for (const part of key.slice(0, -1)) {
    const next = t[part];
    if (next && typeof next.value === 'object' && !Array.isArray(next.value)) t = next.value;
    else {
      const fresh: TomlTable = {};
      t[part] = { value: fresh, line: entry.line };
      t = fresh;
    }
  }
  t[key[key.length - 1]!] = entry;
}

// ---------------------------------------------------------------------------------------------------------------
// Groovy and Kotlin build scripts

type TokenKind = 'id' | 'str' | 'num' | 'punct' | 'nl';
interface Token {
  kind: TokenKind;
  text: string;
  line: number;
  /** Strings: literal text and `${…}` / `$name` interpolations (raw expression source). */
  parts?: StringPart[];
}
export type StringPart = string | { expr: string };

/** Tokens of a Groovy or Kotlin script: comments dropped, strings with their interpolations, newlines kept. */
function tokenize(text: string, firstLine = 1): Token[] {
  const out: Token[] = [];
  // Looking for the end of interpolations may rescan text; past this much work they are read as plain text.
  const budget = { steps: 16 * text.length + 4096 };
  let line = firstLine;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (c === '\n') {
      out.push({ kind: 'nl', text: '\n', line });
      line++;
      i++;
    } else if (c === ' ' || c === '\t' || c === '\r' || c === '\f') i++;
    else if (c === '/' && text[i + 1] === '/') {
      while (i < n && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end < 0 ? n : end + 2;
      for (let j = i; j < stop; j++) if (text[j] === '\n') line++;
      i = stop;
    } else if (c === '"' || c === "'") {
      const start = line;
      const { parts, end, lines } = readString(text, i, 0, budget);
      out.push({ kind: 'str', text: text.slice(i, end), line: start, parts });
      line += lines;
      i = end;
    } else if (/[A-Za-z_$]/.test(c)) {
      let j = i + 1;
      while (j < n && /[A-Za-z0-9_$]/.test(text[j]!)) j++;
      out.push({ kind: 'id', text: text.slice(i, j), line });
      i = j;
    } else if (c === '`') {
      const end = text.indexOf('`', i + 1);
      const stop = end < 0 || text.slice(i, end).includes('\n') ? i + 1 : end + 1;
      out.push({ kind: 'id', text: text.slice(i + 1, stop - 1), line });
      i = stop;
    } else if (/[0-9]/.test(c)) {
      let j = i + 1;
      while (j < n && /[0-9A-Za-z_.]/.test(text[j]!) && !(text[j] === '.' && !/[0-9]/.test(text[j + 1] ?? ''))) j++;
      out.push({ kind: 'num', text: text.slice(i, j), line });
      i = j;
    } else {
      const two = text.slice(i, i + 2);
      const p = ['?.', '==', '!=', '->', '::', '+=', '..', '&&', '||', '<=', '>='].includes(two) ? two : c;
      out.push({ kind: 'punct', text: p, line });
      i += p.length;
    }
  }
  return out;
}

/** Strings inside interpolations inside strings deeper than this are read as plain text. */
const MAX_STRING_NESTING = 16;

/** A quoted string at `start`: its parts (single quotes never interpolate), where it ends, how many newlines it spans. */
function readString(text: string, start: number, depth: number, budget: { steps: number }): { parts: StringPart[]; end: number; lines: number } {
  const q = text[start]!;
  const triple = text.startsWith(q.repeat(3), start);
  const close = triple ? q.repeat(3) : q;
  const interpolates = q === '"';
  const parts: StringPart[] = [];
  let literal = '';
  let lines = 0;
  let i = start + close.length;
  while (i < text.length) {
    if (text.startsWith(close, i)) {
      if (literal) parts.push(literal);
      return { parts, end: i + close.length, lines };
    }
    const c = text[i]!;
    if (c === '\n') {
      if (!triple) break;
      lines++;
    }
    if (c === '\\' && i + 1 < text.length) {
      const next = text[i + 1]!;
      literal += ({ n: '\n', t: '\t', r: '\r' } as Record<string, string>)[next] ?? next;
      i += 2;
      continue;
    }
    if (interpolates && c === '$' && text[i + 1] === '{' && depth < MAX_STRING_NESTING && budget.steps > 0) {
      const end = closingBrace(text, i + 2, depth + 1, budget);
      if (end < 0) break;
      if (literal) parts.push(literal);
      literal = '';
      const body = text.slice(i + 2, end);
      for (const ch of body) if (ch === '\n') lines++;
      parts.push({ expr: body });
      i = end + 1;
      continue;
    }
    if (interpolates && c === '$' && /[A-Za-z_]/.test(text[i + 1] ?? '')) {
      let j = i + 2;
      while (j < text.length && /[A-Za-z0-9_]/.test(text[j]!)) j++;
      if (literal) parts.push(literal);
      literal = '';
      parts.push({ expr: text.slice(i + 1, j) });
      i = j;
      continue;
    }
    literal += c;
    i++;
  }
  // Unterminated: the rest of the line is the string.
  if (literal) parts.push(literal);
  return { parts, end: i, lines };
}

/** The `}` closing an interpolation body starting at `from`, skipping nested braces and strings. */
function closingBrace(text: string, from: number, nesting: number, budget: { steps: number }): number {
  let depth = 0;
  for (let i = from; i < text.length; i++) {
    if (--budget.steps < 0) return -1;
    const c = text[i]!;
    if (c === '"' || c === "'") {
      i = readString(text, i, nesting, budget).end - 1;
    } else if (c === '{') depth++;
    else if (c === '}') {
      if (depth === 0) return i;
      depth--;
    }
  }
  return -1;
}

export type Expr =
  | { k: 'str'; parts: StringPart[]; line: number; raw?: string }
  | { k: 'num'; text: string }
  | { k: 'id'; name: string; line: number }
  | { k: 'member'; obj: Expr; name: string }
  | { k: 'index'; obj: Expr; index: Expr }
  | { k: 'call'; callee: Expr; args: readonly Arg[]; line: number }
  | { k: 'other' };
export interface Arg {
  name?: string;
  value: Expr;
}

/** A statement of a script: a block (`head { … }`), an assignment, a declaration or an expression. */
export type Statement =
  | { k: 'block'; head: Expr; body: Statement[]; line: number }
  | { k: 'assign'; target: Expr; value: Expr; line: number }
  | { k: 'decl'; name: string; value?: Expr; by?: Expr; line: number }
  | { k: 'expr'; expr: Expr; line: number };

const MAX_NESTING = 64;

/** The statements of a build script. Anything the reader does not understand becomes `other` and is skipped. */
export function parseScript(text: string): Statement[] {
  const tokens = tokenize(text);
  const p = new ScriptParser(tokens);
  const out: Statement[] = [];
  // A stray `}` at the top level ends nothing.
  for (let guard = 0; guard <= tokens.length && p.more(); guard++) {
    out.push(...p.statements(0));
    p.skipOne();
  }
  return out;
}

/** One expression from its source (a string interpolation body). */
export function parseExpression(text: string, line: number): Expr {
  const p = new ScriptParser(tokenize(text, line));
  return p.expression(0);
}

class ScriptParser {
  private i = 0;
  constructor(private readonly t: Token[]) {}

  more(): boolean {
    return this.i < this.t.length;
  }

  skipOne(): void {
    this.i++;
  }

  private peek(offset = 0): Token | undefined {
    return this.t[this.i + offset];
  }

  private is(text: string, offset = 0): boolean {
    const tok = this.peek(offset);
    return tok !== undefined && tok.kind !== 'str' && tok.text === text;
  }

  private skipNewlines(): void {
    while (this.peek()?.kind === 'nl' || this.is(';')) this.i++;
  }

  statements(depth: number): Statement[] {
    const out: Statement[] = [];
    for (;;) {
      this.skipNewlines();
      const tok = this.peek();
      if (!tok || this.is('}')) return out;
      const before = this.i;
      const s = this.statement(depth);
      if (s) out.push(s);
      // Whatever is left of the line is not understood: skip it (a nested block is skipped whole).
      while (this.peek() && this.peek()!.kind !== 'nl' && !this.is(';') && !this.is('}')) {
        if (this.is('{')) this.skipBalanced('{', '}');
        else if (this.is('(')) this.skipBalanced('(', ')');
        else this.i++;
      }
      if (this.i === before) this.i++;
    }
  }

  private statement(depth: number): Statement | undefined {
    const line = this.peek()!.line;
    if ((this.is('val') || this.is('var') || this.is('def')) && this.peek(1)?.kind === 'id') {
      this.i++;
      const name = this.peek()!.text;
      this.i++;
      if (this.is(':')) {
        // A Kotlin type: up to `=` or `by`.
        this.i++;
        while (this.peek() && this.peek()!.kind !== 'nl' && !this.is('=') && !this.is('by')) this.i++;
      }
      if (this.is('by')) {
        this.i++;
        return { k: 'decl', name, by: this.expression(depth + 1), line };
      }
      if (this.is('=')) {
        this.i++;
        return { k: 'decl', name, value: this.expression(depth + 1), line };
      }
      return { k: 'decl', name, line };
    }
    const expr = this.expression(depth + 1);
    if (this.is('=')) {
      this.i++;
      return { k: 'assign', target: expr, value: this.expression(depth + 1), line };
    }
    if (this.is('{')) {
      this.i++;
      const body = depth < MAX_NESTING ? this.statements(depth + 1) : (this.skipTo('}'), []);
      if (this.is('}')) this.i++;
      return { k: 'block', head: expr, body, line };
    }
    return { k: 'expr', expr, line };
  }

  /** Up to the `close` of the current nesting level (brackets of every kind counted). */
  private skipTo(close: string): void {
    let depth = 0;
    while (this.peek()) {
      if (depth === 0 && this.is(close)) return;
      if (this.is('{') || this.is('(') || this.is('[')) depth++;
      else if (this.is('}') || this.is(')') || this.is(']')) {
        if (depth === 0) return;
        depth--;
      }
      this.i++;
    }
  }

  private skipBalanced(open: string, close: string): void {
    let depth = 0;
    while (this.peek()) {
      if (this.is(open)) depth++;
      else if (this.is(close)) {
        depth--;
        if (depth === 0) {
          this.i++;
          return;
        }
      }
      this.i++;
    }
  }

  /** Can this token start a command argument (`implementation 'x'`, `id 'x' version 'y'`)? */
  private startsArgument(tok: Token | undefined): boolean {
    if (!tok) return false;
    return tok.kind === 'str' || tok.kind === 'id' || tok.kind === 'num' || (tok.kind === 'punct' && tok.text === '[');
  }

  expression(depth: number): Expr {
    if (depth > MAX_NESTING) return { k: 'other' };
    let e = this.postfix(this.primary(depth), depth);
    // Groovy command calls (`implementation 'x'`, `group: 'g', name: 'a'`) and infix calls (`id("x") version "y"`).
    for (let guard = 0; guard < 16; guard++) {
      const tok = this.peek();
      if (!tok) break;
      if (e.k === 'id' || e.k === 'member') {
        if (this.startsArgument(tok) && !(tok.kind === 'id' && ['by', 'in', 'as', 'is'].includes(tok.text))) {
          const args = this.commandArgs(depth);
          e = this.postfix({ k: 'call', callee: e, args, line: tok.line }, depth);
          continue;
        }
      } else if (tok.kind === 'id' && this.startsArgument(this.peek(1)) && !['by', 'in', 'as', 'is'].includes(tok.text)) {
        this.i++;
        const arg = this.postfix(this.primary(depth + 1), depth + 1);
        e = { k: 'call', callee: { k: 'member', obj: e, name: tok.text }, args: [{ value: arg }], line: tok.line };
        continue;
      }
      break;
    }
    return e;
  }

  private commandArgs(depth: number): Arg[] {
    const args: Arg[] = [];
    for (;;) {
      args.push(this.argument(depth));
      if (!this.is(',')) return args;
      this.i++;
      while (this.peek()?.kind === 'nl') this.i++;
    }
  }

  private argument(depth: number): Arg {
    const tok = this.peek();
    if (tok && (tok.kind === 'id' || tok.kind === 'str') && (this.is(':', 1) || (this.is('=', 1) && !this.is('==', 1)))) {
      this.i += 2;
      const name = tok.kind === 'str' ? stringText(tok.parts ?? []) ?? tok.text : tok.text;
      return { name, value: this.expression(depth + 1) };
    }
    return { value: this.expression(depth + 1) };
  }

  private primary(depth: number): Expr {
    const tok = this.peek();
    if (!tok) return { k: 'other' };
    if (tok.kind === 'str') {
      this.i++;
      const q = /^('''|"""|'|")/.exec(tok.text)?.[1] ?? '';
      const raw = tok.text.endsWith(q) && tok.text.length >= 2 * q.length ? tok.text.slice(q.length, tok.text.length - q.length) : tok.text.slice(q.length);
      return { k: 'str', parts: tok.parts ?? [], line: tok.line, raw };
    }
    if (tok.kind === 'num') {
      this.i++;
      return { k: 'num', text: tok.text };
    }
    if (tok.kind === 'id') {
      this.i++;
      return { k: 'id', name: tok.text, line: tok.line };
    }
    if (this.is('(')) {
      this.i++;
      const e = this.expression(depth + 1);
      this.skipTo(')');
      if (this.is(')')) this.i++;
      return e;
    }
    if (this.is('[')) {
      this.skipBalanced('[', ']');
      return { k: 'other' };
    }
    if (this.is('{')) {
      this.skipBalanced('{', '}');
      return { k: 'other' };
    }
    return { k: 'other' };
  }

  private postfix(e: Expr, depth: number): Expr {
    for (;;) {
      if ((this.is('.') || this.is('?.')) && this.peek(1)?.kind === 'id') {
        this.i++;
        e = { k: 'member', obj: e, name: this.peek()!.text };
        this.i++;
      } else if ((this.is('.') || this.is('?.')) && this.peek(1)?.kind === 'nl') {
        break;
      } else if (this.peek()?.kind === 'nl' && this.lineContinuesWithDot()) {
        while (this.peek()?.kind === 'nl') this.i++;
      } else if (this.is('(')) {
        const line = this.peek()!.line;
        this.i++;
        const args: Arg[] = [];
        for (;;) {
          while (this.peek()?.kind === 'nl') this.i++;
          if (!this.peek() || this.is(')')) break;
          args.push(this.argument(depth + 1));
          while (this.peek()?.kind === 'nl') this.i++;
          if (this.is(',')) this.i++;
          else {
            this.skipTo(')');
            break;
          }
        }
        if (this.is(')')) this.i++;
        e = { k: 'call', callee: e, args, line };
        // A trailing lambda (`configure(x) { … }`) is a block head only at statement level, which sees the `{`.
      } else if (this.is('[')) {
        this.i++;
        const index = this.expression(depth + 1);
        this.skipTo(']');
        if (this.is(']')) this.i++;
        e = { k: 'index', obj: e, index };
      } else break;
    }
    return e;
  }

  private lineContinuesWithDot(): boolean {
    let j = this.i;
    while (this.t[j]?.kind === 'nl') j++;
    const tok = this.t[j];
    return tok !== undefined && tok.kind === 'punct' && (tok.text === '.' || tok.text === '?.');
  }
}

/** A string's text when it has no interpolation. */
export function stringText(parts: readonly StringPart[]): string | undefined {
  let out = '';
  for (const p of parts) {
    if (typeof p !== 'string') return undefined;
    out += p;
  }
  return out;
}

/** `a.b.c` of a chain of names, else undefined. */
export function dottedName(e: Expr): string | undefined {
  if (e.k === 'id') return e.name;
  if (e.k === 'member') {
    const left = dottedName(e.obj);
    return left === undefined ? undefined : `${left}.${e.name}`;
  }
  return undefined;
}
