/**
 * Configuration a Nacos config server serves, read from the seed an estate keeps of it: the `config_info` rows of
 * a MySQL or PostgreSQL dump (`sql/ry_config_*.sql`), and which of those documents Spring Cloud Alibaba loads for a
 * service, in its precedence. Pure functions: text in, facts out; a row that cannot be read is a warning naming
 * `file:line`, never a crash.
 */
import { quotePattern } from '../../../search/patterns.js';
import { canonicalKey } from '../eval/config.js';
import { resolvePlaceholders } from './spring-config.js';

/** One `config_info` row: a configuration document Nacos stores. */
export interface NacosConfig {
  dataId: string;
  group: string;
  /** The namespace id; absent for the public namespace (`''`). */
  tenant?: string;
  content: string;
  /** The row's `type` column when it names a format, else the data id's extension. */
  format: 'yaml' | 'properties' | 'other';
  file: string;
  /** The line the row starts on (its `(`, or its line of a COPY block). */
  line: number;
}

/** How a service comes to load a document. */
export type NacosLoad = 'import' | 'shared' | 'extension' | 'application';

/** A document Nacos serves a service. */
export interface NacosDocument {
  dataId: string;
  group: string;
  tenant?: string;
  /**
   * The profile the data id carries (`ruoyi-gateway-dev.yml` → `dev`), whether or not the service activates it;
   * null for a document every profile loads.
   */
  profile: string | null;
  /**
   * Whether the service loads it as configured: a null-profile document, or one whose profile
   * `spring.profiles.active` names. An inactive one is what the service would load under its profile.
   */
  active: boolean;
  via: NacosLoad;
  content: string;
  /** How the client parses it: by the extension it asks for (`file-extension` when the data id has none). */
  format: 'yaml' | 'properties';
  file: string;
  line: number;
}

// ---------------------------------------------------------------------------------------------------------------
// The seed: SQL dumps

const TABLE = 'config_info';

/** Files that may be a Nacos seed, by name: SQL dumps. {@link mentionsNacosConfig} decides on the text. */
export const NACOS_SEED_FILES: readonly RegExp[] = [/\.sql$/i];

export function isNacosSeedFile(path: string): boolean {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return NACOS_SEED_FILES.some((re) => re.test(name));
}

/** Whether a SQL file writes Nacos's config table: worth {@link readNacosSeed}. */
export function mentionsNacosConfig(text: string): boolean {
  return /\b(?:INSERT|REPLACE|COPY)\b[^;]{0,200}?\bconfig_info\b/i.test(text);
}

/** Nacos's `config_info` columns in their schema order: the order of an INSERT that lists none (when the file does not create the table). */
const DEFAULT_COLUMNS = ['id', 'data_id', 'group_id', 'content', 'md5', 'gmt_create', 'gmt_modified', 'src_user', 'src_ip', 'app_name', 'tenant_id', 'c_desc', 'c_use', 'effect', 'type', 'c_schema', 'encrypted_data_key'];

/** A row's `type` column, or a data id's extension, to a format. */
const FORMAT_NAMES: Record<string, 'yaml' | 'properties' | 'other'> = {
  yaml: 'yaml',
  yml: 'yaml',
  properties: 'properties',
  json: 'other',
  xml: 'other',
  html: 'other',
  text: 'other',
  txt: 'other',
};

/** Markers of a PostgreSQL dump; without them a dump is read as MySQL's. */
const POSTGRES_MARKERS = [/PostgreSQL database dump/i, /\bpg_catalog\b/i, /\bstandard_conforming_strings\b/i, /^COPY\s[^;\n]*\bFROM\s+stdin\s*;/im];
/** With these, a PostgreSQL dump reads backslashes in plain strings as escapes. */
const POSTGRES_ESCAPES_ON = /\bstandard_conforming_strings\s*(?:=|TO)\s*'?off\b/i;

/** Backslash escapes in a MySQL string; any other escaped character stands for itself. */
const MYSQL_ESCAPES: Record<string, string> = { '0': '\0', "'": "'", '"': '"', b: '\b', n: '\n', r: '\r', t: '\t', Z: '\x1a', '\\': '\\', '%': '\\%', _: '\\_' };
/** Backslash escapes of PostgreSQL `E'…'` strings and COPY text (octal, `x` hex and `u` forms are read apart). */
const POSTGRES_ESCAPES: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };
/** PostgreSQL's numeric escapes: the form, its radix, and how many leading characters are not digits. */
const POSTGRES_CODE_ESCAPES: readonly [RegExp, number, number][] = [[/^[0-7]{1,3}/, 8, 0], [/^x[0-9A-Fa-f]{1,2}/, 16, 1], [/^u[0-9A-Fa-f]{4}/, 16, 1], [/^U[0-9A-Fa-f]{8}/, 16, 1]];

/** Words that open a table constraint, not a column, in CREATE TABLE. */
const CONSTRAINT_WORDS = new Set(['PRIMARY', 'UNIQUE', 'KEY', 'INDEX', 'CONSTRAINT', 'FOREIGN', 'CHECK', 'FULLTEXT', 'SPATIAL', 'EXCLUDE', 'LIKE']);
/** Words between INSERT and the table name. */
const INSERT_MODIFIERS = new Set(['LOW_PRIORITY', 'DELAYED', 'HIGH_PRIORITY', 'IGNORE', 'INTO']);

const WORD = /U&|[A-Za-z_\u0080-\uffff][A-Za-z0-9_$\u0080-\uffff]*/y;
const DOLLAR_TAG = /\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$/y;

interface Dialect {
  postgres: boolean;
  /** Backslash escapes in plain `'…'` strings (MySQL; PostgreSQL with standard_conforming_strings off). */
  backslashes: boolean;
}

/** A value of a row: text (a string literal, or adjacent ones), SQL NULL, or an expression not read (`now()`, 42). */
type SqlValue = { kind: 'text'; text: string } | { kind: 'null' } | { kind: 'expr'; raw: string };

type Part = { kind: 'string'; text: string } | { kind: 'word'; text: string } | { kind: 'ident'; text: string } | { kind: 'other' };

class SqlError extends Error {
  /** `fatal`: a string or quote that never closes, after which nothing in the file can be read reliably. */
  constructor(message: string, readonly at: number, readonly fatal = false) {
    super(message);
  }
}

/**
 * The `config_info` rows of a SQL dump: `INSERT INTO config_info (…) VALUES (…), (…)` (MySQL or PostgreSQL quoting,
 * doubled quotes and backslash escapes, columns in the order listed, else as the file's CREATE TABLE or Nacos's
 * schema orders them) and PostgreSQL `COPY config_info … FROM stdin` blocks. Never throws.
 */
export function readNacosSeed(file: string, text: string): { configs: NacosConfig[]; warnings: string[] } {
  const configs: NacosConfig[] = [];
  const warnings: string[] = [];
  try {
    new SeedReader(file, text, configs, warnings).read();
  } catch (error) {
    // A reader bug must not fail the build: what was read stays, and the file says where it stopped.
    warnings.push(`${file}:1: cannot read the Nacos seed (${error instanceof Error ? error.message : String(error)}); rows after the last one read are skipped`);
  }
  return { configs, warnings };
}

class SeedReader {
  private pos = 0;
  private readonly lineStarts: number[] = [0];
  private readonly dialect: Dialect;
  private columns: string[] | undefined;

  constructor(
    private readonly file: string,
    private readonly text: string,
    private readonly configs: NacosConfig[],
    private readonly warnings: string[],
  ) {
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) this.lineStarts.push(i + 1);
    const postgres = POSTGRES_MARKERS.some((m) => m.test(text));
    this.dialect = { postgres, backslashes: !postgres || POSTGRES_ESCAPES_ON.test(text) };
  }

  read(): void {
    for (;;) {
      this.skipTrivia();
      if (this.pos >= this.text.length) return;
      const start = this.pos;
      const word = this.word()?.toUpperCase();
      try {
        if (word === 'INSERT' || word === 'REPLACE') this.insert(start);
        else if (word === 'CREATE') this.createTable();
        else if (word === 'COPY') {
          this.copy(start);
          continue;
        }
      } catch (error) {
        if (!(error instanceof SqlError)) throw error;
        this.warn(error.at, `${error.message}; the rest of the ${error.fatal ? 'file is not read' : 'statement is skipped'}`);
        if (error.fatal) return;
      }
      this.skipStatement();
    }
  }

  private warn(at: number, message: string): void {
    this.warnings.push(`${this.file}:${this.lineAt(at)}: ${message}`);
  }

  private lineAt(pos: number): number {
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid]! <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }

  // --- statements ---------------------------------------------------------------------------------------------

  private insert(start: number): void {
    let word = this.nextWord();
    while (word !== undefined && INSERT_MODIFIERS.has(word.toUpperCase())) word = this.nextWord();
    const table = word === undefined ? this.qualifiedName() : this.qualifiedNameAfter(word);
    if (table?.toLowerCase() !== TABLE) return;
    this.skipTrivia();
    if (/^AS\b/i.test(this.text.slice(this.pos, this.pos + 3))) {
      this.pos += 2;
      this.nextWord() ?? this.identifier();
      this.skipTrivia();
    }
    let columns = this.columns ?? DEFAULT_COLUMNS;
    if (this.text[this.pos] === '(') {
      this.pos++;
      columns = this.identifierList();
    }
    const keyword = this.nextWord()?.toUpperCase();
    if (keyword !== 'VALUES' && keyword !== 'VALUE') {
      this.warn(start, `INSERT INTO ${TABLE} without VALUES (${keyword ?? 'nothing'}) is not read`);
      return;
    }
    if (!columns.includes('data_id') || !columns.includes('content')) {
      this.warn(start, `INSERT INTO ${TABLE} names no data_id or content column; its rows are not read`);
      return;
    }
    for (;;) {
      this.skipTrivia();
      if (this.text[this.pos] !== '(') return;
      const rowStart = this.pos;
      this.pos++;
      let values: SqlValue[];
      try {
        values = this.row();
      } catch (error) {
        // Warnings name the row, wherever in it reading failed.
        throw error instanceof SqlError ? new SqlError(`${TABLE} row: ${error.message}`, rowStart, error.fatal) : error;
      }
      this.take(columns, values, rowStart);
      this.skipTrivia();
      if (this.text[this.pos] !== ',') return;
      this.pos++;
    }
  }

  /** One row's values, the `(` read; ends past its `)`. */
  private row(): SqlValue[] {
    const values: SqlValue[] = [];
    for (;;) {
      values.push(this.value());
      const c = this.text[this.pos];
      this.pos++;
      if (c === ')') return values;
    }
  }

  /** One value up to a `,` or `)` at its own depth (left at it). */
  private value(): SqlValue {
    const start = this.pos;
    const parts: Part[] = [];
    let depth = 0;
    for (;;) {
      this.skipTrivia();
      const c = this.text[this.pos];
      if (c === undefined) throw new SqlError('the file ends inside it', start, true);
      if (depth === 0 && (c === ',' || c === ')')) break;
      // Outside a string, `;` ends the statement: a row still open there is malformed.
      if (c === ';') throw new SqlError('the statement ends inside it', start);
      if (c === '(') depth++;
      if (c === ')') depth--;
      if (c === ':' && this.text[this.pos + 1] === ':') {
        this.pos += 2;
        this.skipCast();
        continue;
      }
      parts.push(this.part());
    }
    const strings = parts.filter((p): p is Extract<Part, { kind: 'string' }> => p.kind === 'string');
    if (parts.length > 0 && strings.length === parts.length) return { kind: 'text', text: strings.map((p) => p.text).join('') };
    if (parts.length === 1 && parts[0]!.kind === 'word' && parts[0]!.text.toUpperCase() === 'NULL') return { kind: 'null' };
    return { kind: 'expr', raw: this.text.slice(start, this.pos).trim() };
  }

  /** A PostgreSQL cast's type (`::text`, `::character varying(255)[]`), `::` read. */
  private skipCast(): void {
    while (this.nextWord() !== undefined) {
      this.skipTrivia();
      if (!/[A-Za-z_]/.test(this.text[this.pos] ?? '')) break;
    }
    this.skipTrivia();
    if (this.text[this.pos] === '(') this.skipGroup();
    this.skipTrivia();
    while (this.text.startsWith('[]', this.pos)) this.pos += 2;
  }

  private skipGroup(): void {
    let depth = 0;
    for (;;) {
      this.skipTrivia();
      const c = this.text[this.pos];
      if (c === undefined) return;
      if (c === '(') depth++;
      if (c === ')' && --depth === 0) {
        this.pos++;
        return;
      }
      this.part();
    }
  }

  /** One token of a value: a string (with its prefixes), a word, a quoted identifier, or one other character. */
  private part(): Part {
    const c = this.text[this.pos]!;
    if (c === "'") return { kind: 'string', text: this.quoted("'", this.dialect.backslashes) };
    if (c === '"') {
      const text = this.quoted('"', !this.dialect.postgres);
      return this.dialect.postgres ? { kind: 'ident', text } : { kind: 'string', text };
    }
    if (c === '`') return { kind: 'ident', text: this.quoted('`', false) };
    if (c === '$' && this.dialect.postgres) {
      DOLLAR_TAG.lastIndex = this.pos;
      const tag = DOLLAR_TAG.exec(this.text)?.[0];
      if (tag) return { kind: 'string', text: this.dollarQuoted(tag) };
    }
    const word = this.word();
    if (word !== undefined) {
      if (this.text[this.pos] === "'") {
        const prefix = word.toUpperCase();
        if (prefix === 'E') return { kind: 'string', text: this.quoted("'", true, true) };
        if (prefix === 'N' || prefix.startsWith('_')) return { kind: 'string', text: this.quoted("'", this.dialect.backslashes) };
        if (prefix === 'X' || prefix === 'B' || prefix === 'U&') {
          this.quoted("'", false);
          return { kind: 'other' };
        }
      }
      return { kind: 'word', text: word };
    }
    this.pos++;
    return { kind: 'other' };
  }

  /** A quoted string or identifier at `pos`; doubled quotes, and backslash escapes when `escapes`. */
  private quoted(quote: string, escapes: boolean, postgresEscapes = this.dialect.postgres): string {
    const start = this.pos;
    this.pos++;
    let out = '';
    for (;;) {
      const q = this.text.indexOf(quote, this.pos);
      const b = escapes ? this.text.indexOf('\\', this.pos) : -1;
      if (q < 0) throw new SqlError(`a ${quote === "'" ? 'string' : 'quoted name'} is not closed`, start, true);
      if (b >= 0 && b < q) {
        out += this.text.slice(this.pos, b);
        this.pos = b + 1;
        out += postgresEscapes ? this.postgresEscape() : this.mysqlEscape();
        continue;
      }
      out += this.text.slice(this.pos, q);
      this.pos = q + 1;
      if (this.text[this.pos] === quote) {
        out += quote;
        this.pos++;
        continue;
      }
      return out;
    }
  }

  private mysqlEscape(): string {
    const c = this.text[this.pos];
    if (c === undefined) return '';
    this.pos++;
    return MYSQL_ESCAPES[c] ?? c;
  }

  private postgresEscape(): string {
    const { text, end } = postgresEscape(this.text, this.pos);
    this.pos = end;
    return text;
  }

  private dollarQuoted(tag: string): string {
    const start = this.pos;
    const end = this.text.indexOf(tag, start + tag.length);
    if (end < 0) throw new SqlError('a dollar-quoted string is not closed', start, true);
    this.pos = end + tag.length;
    return this.text.slice(start + tag.length, end);
  }

  /** A row's NacosConfig, or a warning saying why it has none. */
  private take(columns: readonly string[], values: readonly SqlValue[], at: number): void {
    if (values.length !== columns.length) {
      this.warn(at, `${TABLE} row has ${values.length} values for ${columns.length} columns; skipped`);
      return;
    }
    const get = (column: string): SqlValue | undefined => {
      const i = columns.indexOf(column);
      return i < 0 ? undefined : values[i];
    };
    const text = (column: string): string | undefined => {
      const v = get(column);
      return v?.kind === 'text' ? v.text : undefined;
    };
    const unreadable = (column: string, v: SqlValue | undefined): string => `${TABLE} row's ${column} is ${v?.kind === 'null' ? 'NULL' : `not a string literal (${v?.kind === 'expr' ? v.raw.slice(0, 40) : 'missing'})`}; skipped`;
    const dataId = get('data_id');
    const content = get('content');
    if (dataId?.kind !== 'text') this.warn(at, unreadable('data_id', dataId));
    else if (!dataId.text) this.warn(at, `${TABLE} row's data_id is empty; skipped`);
    else if (content?.kind !== 'text') this.warn(at, unreadable('content', content));
    else this.push(dataId.text, text('group_id'), text('tenant_id'), text('type'), content.text, at);
  }

  private push(dataId: string, group: string | undefined, tenant: string | undefined, type: string | undefined, content: string, at: number): void {
    const extension = /\.([A-Za-z0-9]+)$/.exec(dataId)?.[1]?.toLowerCase();
    const format = FORMAT_NAMES[type?.trim().toLowerCase() ?? ''] ?? FORMAT_NAMES[extension ?? ''] ?? 'other';
    const config: NacosConfig = { dataId, group: group || 'DEFAULT_GROUP', content, format, file: this.file, line: this.lineAt(at) };
    if (tenant) config.tenant = tenant;
    this.configs.push(config);
  }

  /** `CREATE TABLE config_info (…)`: the column order an INSERT without a column list uses. */
  private createTable(): void {
    let word = this.nextWord()?.toUpperCase();
    while (word !== undefined && word !== 'TABLE') {
      if (!['TEMPORARY', 'TEMP', 'UNLOGGED', 'GLOBAL', 'LOCAL'].includes(word)) return;
      word = this.nextWord()?.toUpperCase();
    }
    if (word !== 'TABLE') return;
    this.skipTrivia();
    if (/^IF\s+NOT\s+EXISTS\b/i.test(this.text.slice(this.pos, this.pos + 40))) {
      this.nextWord();
      this.nextWord();
      this.nextWord();
    }
    if (this.qualifiedName()?.toLowerCase() !== TABLE) return;
    this.skipTrivia();
    if (this.text[this.pos] !== '(') return;
    this.pos++;
    const columns: string[] = [];
    for (;;) {
      this.skipTrivia();
      const first = this.text[this.pos] === ')' ? undefined : this.part();
      if (first && (first.kind === 'ident' || (first.kind === 'word' && !CONSTRAINT_WORDS.has(first.text.toUpperCase())))) columns.push(first.text.toLowerCase());
      if (first) this.value();
      const c = this.text[this.pos];
      this.pos++;
      if (c !== ',') break;
    }
    if (columns.length) this.columns = columns;
  }

  /** PostgreSQL `COPY t (…) FROM stdin;` and its data lines up to `\.`: config_info's read, any other table's passed over. */
  private copy(start: number): void {
    const table = this.qualifiedName()?.toLowerCase();
    this.skipTrivia();
    let columns = this.columns ?? DEFAULT_COLUMNS;
    if (this.text[this.pos] === '(') {
      this.pos++;
      columns = this.identifierList();
    }
    const eol = this.text.indexOf('\n', this.pos);
    if (!/^\s*FROM\s+stdin\b/i.test(this.text.slice(this.pos, eol < 0 ? this.text.length : eol))) {
      this.skipStatement();
      return;
    }
    this.skipStatement();
    const readable = table === TABLE && columns.includes('data_id') && columns.includes('content');
    if (table === TABLE && !readable) this.warn(start, `COPY ${TABLE} names no data_id or content column; its rows are not read`);
    let lineStart = this.text.indexOf('\n', this.pos - 1) + 1;
    if (lineStart <= 0) lineStart = this.text.length;
    while (lineStart < this.text.length) {
      const nl = this.text.indexOf('\n', lineStart);
      const end = nl < 0 ? this.text.length : nl;
      const line = this.text.slice(lineStart, end).replace(/\r$/, '');
      const at = lineStart;
      lineStart = end + 1;
      if (line === '\\.') break;
      if (!readable) continue;
      const values = line.split('\t').map((field): SqlValue => (field === '\\N' ? { kind: 'null' } : { kind: 'text', text: this.copyText(field) }));
      this.take(columns, values, at);
    }
    this.pos = Math.min(lineStart, this.text.length);
  }

  /** A COPY text field: PostgreSQL's backslash escapes. */
  private copyText(field: string): string {
    let out = '';
    let i = 0;
    for (let b = field.indexOf('\\'); b >= 0; b = field.indexOf('\\', i)) {
      const escape = postgresEscape(field, b + 1);
      out += field.slice(i, b) + escape.text;
      i = escape.end;
    }
    return out + field.slice(i);
  }

  // --- tokens -------------------------------------------------------------------------------------------------

  /** Whitespace and comments (`--`, `/* … *\/`, and `#` in MySQL). */
  private skipTrivia(): void {
    const t = this.text;
    for (;;) {
      const c = t[this.pos];
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\ufeff') this.pos++;
      else if ((c === '-' && t[this.pos + 1] === '-') || (c === '#' && !this.dialect.postgres)) {
        const nl = t.indexOf('\n', this.pos);
        this.pos = nl < 0 ? t.length : nl + 1;
      } else if (c === '/' && t[this.pos + 1] === '*') {
        const end = t.indexOf('*/', this.pos + 2);
        this.pos = end < 0 ? t.length : end + 2;
      } else return;
    }
  }

  /** Past the statement's `;` (strings, comments and dollar quotes respected). */
  private skipStatement(): void {
    for (;;) {
      this.skipTrivia();
      const c = this.text[this.pos];
      if (c === undefined) return;
      if (c === ';') {
        this.pos++;
        return;
      }
      try {
        this.part();
      } catch (error) {
        if (!(error instanceof SqlError)) throw error;
        this.warn(error.at, `${error.message}; the rest of the file is not read`);
        this.pos = this.text.length;
        return;
      }
    }
  }

  /** A bare word at `pos` (letters, digits, `_`, `$`; `U&` kept whole), or undefined. */
  private word(): string | undefined {
    WORD.lastIndex = this.pos;
    const m = WORD.exec(this.text);
    if (!m) return undefined;
    this.pos += m[0].length;
    return m[0];
  }

  private nextWord(): string | undefined {
    this.skipTrivia();
    return this.word();
  }

  private identifier(): string | undefined {
    this.skipTrivia();
    const c = this.text[this.pos];
    if (c === '`' || c === '"') return this.quoted(c, false);
    return this.word();
  }

  /** `schema.table` → `table`. */
  private qualifiedName(): string | undefined {
    const first = this.identifier();
    return first === undefined ? undefined : this.qualifiedNameAfter(first);
  }

  private qualifiedNameAfter(first: string): string {
    let name = first;
    for (;;) {
      this.skipTrivia();
      if (this.text[this.pos] !== '.') return name;
      this.pos++;
      name = this.identifier() ?? name;
    }
  }

  /** `a, \`b\`, "c")`, the `(` read; names lower-cased. */
  private identifierList(): string[] {
    const names: string[] = [];
    for (;;) {
      const name = this.identifier();
      if (name !== undefined) names.push(name.toLowerCase());
      this.skipTrivia();
      const c = this.text[this.pos];
      if (c === undefined) return names;
      this.pos++;
      if (c === ')') return names;
    }
  }
}

/** The PostgreSQL escape after a backslash at `pos - 1` (E-strings, COPY text): its text and where it ends. */
function postgresEscape(text: string, pos: number): { text: string; end: number } {
  const rest = text.slice(pos, pos + 10);
  for (const [form, radix, skip] of POSTGRES_CODE_ESCAPES) {
    const m = form.exec(rest);
    if (!m) continue;
    const code = parseInt(m[0].slice(skip), radix);
    return { text: code <= 0x10ffff ? String.fromCodePoint(code) : '', end: pos + m[0].length };
  }
  const c = text[pos];
  if (c === undefined) return { text: '', end: pos };
  return { text: POSTGRES_ESCAPES[c] ?? c, end: pos + 1 };
}

// ---------------------------------------------------------------------------------------------------------------
// What a service loads

/** Client settings under `spring.cloud.nacos.config`, and their defaults (NacosConfigProperties). */
const CONFIG = 'spring.cloud.nacos.config';
const DEFAULT_GROUP = 'DEFAULT_GROUP';
const DEFAULT_FILE_EXTENSION = 'properties';
/** Data id extensions the client parses, by the format it parses them as. */
const CLIENT_FORMATS: Record<string, 'yaml' | 'properties'> = { yml: 'yaml', yaml: 'yaml', properties: 'properties' };
/** The namespace id the client sends as `''`. */
const PUBLIC_NAMESPACE = 'public';
/** Stands for a profile while a data id is resolved: where `${spring.profiles.active}` puts it. */
const PROFILE_SLOT = '\u0000profile\u0000';
/** A profile a data id template may be filled with: one word, so `ruoyi-` + p + `.yml` does not take `ruoyi-gateway-dev.yml`. */
const PROFILE_NAME = /^[A-Za-z0-9_]+$/;

/** A document a service asks for: a data id, or a template with a profile slot (`app-` + p + `.yml`) for the profiles it does not activate. */
interface Want {
  dataId: string | { before: string; after: string };
  /** undefined: the group is not known (a placeholder the configuration does not resolve). */
  group: string | undefined;
  via: NacosLoad;
  /** How the client picks the parser: the extension it is told (`fixed`), else the data id's, else `fallback`. */
  parse: { fixed?: string; fallback: string };
}

/** A service's flattened configuration read with relaxed keys, as `resolvePlaceholders` looks values up. */
class RelaxedMap extends Map<string, string> {
  constructor(values: Readonly<Record<string, string>>) {
    super();
    for (const [key, value] of Object.entries(values)) super.set(canonicalKey(key), value);
  }

  override get(key: string): string | undefined {
    return super.get(canonicalKey(key));
  }

  override has(key: string): boolean {
    return super.has(canonicalKey(key));
  }

  /** A key's value with its placeholders resolved; undefined when unset or unresolvable. */
  resolved(key: string): string | undefined {
    const raw = this.get(key);
    return raw === undefined ? undefined : resolvePlaceholders(raw, this)?.trim();
  }

  /** A list under `key`: `key[0]`, `key[1]`… (each a string, or an object whose `field` holds it), else a comma-separated `key`. */
  list(key: string, field?: string): { index: number; value: string }[] {
    const canonical = canonicalKey(key);
    const indexed: { index: number; value: string }[] = [];
    const pattern = new RegExp(`^${quotePattern(canonical)}\\[(\\d+)\\]${field ? `(?:\\.${quotePattern(canonicalKey(field))})?` : ''}$`);
    for (const [k, value] of this.entries()) {
      const m = pattern.exec(k);
      if (m) indexed.push({ index: Number(m[1]), value });
    }
    if (indexed.length) return indexed.sort((a, b) => a.index - b.index);
    const whole = super.get(canonical);
    return (whole ?? '').split(',').map((v) => v.trim()).filter(Boolean).map((value, index) => ({ index, value }));
  }

  /** The group of entry `index` of a list of Nacos configs, resolved; `fallback` when unset. */
  entryGroup(key: string, index: number, fallback: string): string | undefined {
    const raw = super.get(`${canonicalKey(key)}[${index}].group`);
    return raw === undefined ? fallback : resolvePlaceholders(raw, this)?.trim();
  }

  /** The same values with `spring.profiles.active` standing for a profile slot. */
  withProfileSlot(): RelaxedMap {
    return new RelaxedMap({ ...Object.fromEntries(this.entries()), 'spring.profiles.active': PROFILE_SLOT });
  }
}

/**
 * The documents Nacos serves a service, lowest precedence first, as Spring Cloud Alibaba loads them:
 * - `spring.config.import` `nacos:<data-id>[?group=…]` locations (config data), in the order listed, later ones
 *   winning;
 * - then, when the service configures the Nacos config client (`spring.cloud.nacos.config.*`, its bootstrap
 *   locator), `shared-configs` (and the older `shared-dataids`) in index order, then `extension-configs`
 *   (`ext-config`), then `${prefix}`, `${prefix}.${file-extension}` and `${prefix}-${profile}.${file-extension}` for
 *   each active profile (prefix: `prefix`, else `name`, else `spring.application.name`); the locator's property
 *   sources are put before the application's own, so they rank above the imports.
 * A data id carrying a profile (`-dev` of `ruoyi-gateway-dev.yml`) makes a profile document: `active` when
 * `spring.profiles.active` names the profile; the seed's documents for the profiles it does not name (a profile
 * slot filled from the seed's data ids) come as inactive ones. Documents are found by data id, group and namespace
 * (`spring.cloud.nacos.config.namespace`, public by default); one asked for twice keeps its higher place.
 */
export function nacosConfigFor(service: { name: string; bootstrap: Record<string, string> }, configs: readonly NacosConfig[]): NacosDocument[] {
  const env = new RelaxedMap(service.bootstrap);
  if (env.resolved(`${CONFIG}.enabled`) === 'false') return [];
  const slotted = env.withProfileSlot();
  const active = (env.resolved('spring.profiles.active') ?? '').split(',').map((p) => p.trim()).filter(Boolean);
  const setting = (name: string): string | undefined => env.resolved(`${CONFIG}.${name}`) ?? env.resolved(`spring.cloud.nacos.${name}`);
  const group = env.has(`${CONFIG}.group`) || env.has('spring.cloud.nacos.group') ? setting('group') : DEFAULT_GROUP;
  const extension = setting('file-extension') ?? DEFAULT_FILE_EXTENSION;
  const namespace = env.has(`${CONFIG}.namespace`) || env.has('spring.cloud.nacos.namespace') ? setting('namespace') : '';

  const wants: Want[] = [];
  /** A written data id: as the configuration resolves it, and as a template when it depends on the active profile. */
  const ask = (raw: string, wantGroup: string | undefined, via: NacosLoad, fallback: string): void => {
    const concrete = resolvePlaceholders(raw, env)?.trim();
    if (concrete) wants.push({ dataId: concrete, group: wantGroup, via, parse: { fallback } });
    const template = resolvePlaceholders(raw, slotted)?.trim();
    const slot = template?.indexOf(PROFILE_SLOT) ?? -1;
    if (template && slot >= 0 && template.indexOf(PROFILE_SLOT, slot + 1) < 0) {
      wants.push({ dataId: { before: template.slice(0, slot), after: template.slice(slot + PROFILE_SLOT.length) }, group: wantGroup, via, parse: { fallback } });
    }
  };

  for (const { value: location } of env.list('spring.config.import')) {
    const m = /^(?:optional:)?nacos:\/*([^?]*)(?:\?(.*))?$/.exec(location.trim());
    if (!m || !m[1] || m[1].includes('/')) continue;
    const query = new Map((m[2] ?? '').split('&').map((kv) => kv.split('=')).filter((kv) => kv.length === 2).map(([k, v]) => [k!, v!] as const));
    ask(m[1], query.get('group') ?? group, 'import', extension);
  }

  if (locatorConfigured(env)) {
    const shared: { dataId: string; group: string | undefined }[] = [...env.list(`${CONFIG}.shared-dataids`), ...env.list(`${CONFIG}.refreshable-dataids`)].map(({ value }) => ({ dataId: value, group: DEFAULT_GROUP }));
    for (const { index, value } of env.list(`${CONFIG}.shared-configs`, 'data-id')) shared.push({ dataId: value, group: env.entryGroup(`${CONFIG}.shared-configs`, index, DEFAULT_GROUP) });
    const seen = new Set<string>();
    for (const s of shared) {
      if (seen.has(`${s.group}\0${s.dataId}`)) continue;
      seen.add(`${s.group}\0${s.dataId}`);
      ask(s.dataId, s.group, 'shared', DEFAULT_FILE_EXTENSION);
    }
    for (const key of [`${CONFIG}.extension-configs`, `${CONFIG}.ext-config`]) {
      for (const { index, value } of env.list(key, 'data-id')) ask(value, env.entryGroup(key, index, DEFAULT_GROUP), 'extension', DEFAULT_FILE_EXTENSION);
    }
    const prefix = setting('prefix') || env.resolved(`${CONFIG}.name`) || env.resolved('spring.application.name') || service.name;
    if (prefix) {
      const parse = { fixed: extension, fallback: extension };
      wants.push({ dataId: prefix, group, via: 'application', parse });
      wants.push({ dataId: `${prefix}.${extension}`, group, via: 'application', parse });
      for (const p of active) wants.push({ dataId: `${prefix}-${p}.${extension}`, group, via: 'application', parse });
      wants.push({ dataId: { before: `${prefix}-`, after: `.${extension}` }, group, via: 'application', parse });
    }
  }

  const found: NacosDocument[] = [];
  for (const want of wants) found.push(...serve(want, configs, namespace, active));
  const last = new Map<string, number>();
  found.forEach((d, i) => last.set(`${d.tenant ?? ''}\0${d.group}\0${d.dataId}`, i));
  return found.filter((d, i) => last.get(`${d.tenant ?? ''}\0${d.group}\0${d.dataId}`) === i);
}

/** Whether the bootstrap locator runs: the service configures the Nacos config client. */
function locatorConfigured(env: RelaxedMap): boolean {
  const prefix = `${canonicalKey(CONFIG)}.`;
  return [...env.keys()].some((k) => k.startsWith(prefix)) || env.has('spring.cloud.nacos.server-addr');
}

function serve(want: Want, configs: readonly NacosConfig[], namespace: string | undefined, active: readonly string[]): NacosDocument[] {
  const inScope = (c: NacosConfig): boolean => (want.group === undefined || c.group === want.group) && (namespace === undefined || sameNamespace(c.tenant, namespace));
  if (typeof want.dataId === 'string') {
    const id = want.dataId;
    const matches = configs.filter((c) => c.dataId === id && inScope(c));
    // An unknown group or namespace still finds a document the seed holds once.
    const unknownScope = want.group === undefined || namespace === undefined;
    if (!matches.length || (unknownScope && new Set(matches.map((c) => `${c.tenant ?? ''}\0${c.group}`)).size > 1)) return [];
    const doc = documentOf(matches[matches.length - 1]!, want, profileOf(id, active));
    return doc ? [doc] : [];
  }
  const { before, after } = want.dataId;
  const byProfile = new Map<string, NacosConfig>();
  for (const c of configs) {
    if (!inScope(c) || c.dataId.length <= before.length + after.length || !c.dataId.startsWith(before) || !c.dataId.endsWith(after)) continue;
    const profile = c.dataId.slice(before.length, c.dataId.length - after.length);
    if (PROFILE_NAME.test(profile) && !active.includes(profile)) byProfile.set(profile, c);
  }
  return [...byProfile]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([profile, c]) => documentOf(c, want, profile))
    .filter((d): d is NacosDocument => d !== undefined)
    .map((d) => ({ ...d, active: false }));
}

function documentOf(config: NacosConfig, want: Want, profile: string | null): NacosDocument | undefined {
  const format = CLIENT_FORMATS[(want.parse.fixed ?? extensionOf(config.dataId) ?? want.parse.fallback).toLowerCase()];
  if (!format) return undefined;
  const doc: NacosDocument = { dataId: config.dataId, group: config.group, profile, active: true, via: want.via, content: config.content, format, file: config.file, line: config.line };
  if (config.tenant) doc.tenant = config.tenant;
  return doc;
}

/** A data id's extension as the client reads it (`a.yml` → `yml`; none for `a` or `a.`). */
function extensionOf(dataId: string): string | undefined {
  const dot = dataId.lastIndexOf('.');
  return dot > 0 && dot < dataId.length - 1 ? dataId.slice(dot + 1) : undefined;
}

/** The active profile a data id carries (`…-dev.yml`, `…-dev`), longest first; null when none. */
function profileOf(dataId: string, active: readonly string[]): string | null {
  const extension = extensionOf(dataId);
  const stem = extension !== undefined ? dataId.slice(0, -extension.length - 1) : dataId;
  const carried = active.filter((p) => stem.endsWith(`-${p}`)).sort((a, b) => b.length - a.length);
  return carried[0] ?? null;
}

function sameNamespace(tenant: string | undefined, namespace: string): boolean {
  const norm = (n: string | undefined): string => (!n || n === PUBLIC_NAMESPACE ? '' : n);
  return norm(tenant) === norm(namespace);
}

