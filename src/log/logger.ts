/**
 * Structured logs: one event per line, JSON (pino) or readable text, written synchronously to stderr or a file,
 * never to stdout (stdout is the MCP protocol channel on stdio, and `sextant call`'s answer). Nothing is logged
 * until `configureLogging` runs; the CLI does that before every command.
 *
 * Two layers keep credentials out: callers log only fields that cannot hold one (names, counts, durations, kinds
 * of identity — never header values, tokens, variables' values, URL user info or query strings), and a final
 * guard removes every credential value this process knows from every line as it is written.
 */
import { closeSync, fstatSync, mkdirSync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type { default as Pino, Logger } from 'pino';

/** pino, loaded by the first event written: a CLI query that logs nothing does not pay for loading it. */
const loadPino = (): typeof Pino => createRequire(import.meta.url)('pino') as typeof Pino;

export const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_FORMATS = ['json', 'text'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface LogSettings {
  level: LogLevel;
  format: LogFormat;
  /** A file to append to; absent: stderr. */
  file?: string;
}

/** Why logging cannot start as asked (a log file that cannot be opened, or that is stdout). */
export class LogSetupError extends Error {}

/** What stands where a credential was taken out of a line. */
const REDACTED = '[redacted]';
/** Shorter values are not treated as credentials: they would redact ordinary words and numbers. */
const MIN_SECRET = 4;

const known = new Set<string>();
let knownSorted: string[] | undefined;
/** Credentials of the event being written now (a caller's bearer token): a line is written synchronously. */
let current: readonly string[] = [];

/**
 * Credential values the final guard removes from every line from now on (header values, tokens, URL
 * credentials). A value like `Bearer abc…` adds its last word too.
 */
export function addLogSecrets(values: Iterable<string | undefined>): void {
  for (const value of values) {
    if (value === undefined) continue;
    const v = value.trim();
    if (v.length >= MIN_SECRET) known.add(v);
    const last = v.split(/\s+/).pop();
    if (last && last.length >= MIN_SECRET && last !== v) known.add(last);
  }
  knownSorted = undefined;
}

function secretsFor(extra: readonly string[]): string[] {
  knownSorted ??= [...known];
  if (extra.length === 0) return knownSorted;
  const all = new Set(knownSorted);
  for (const e of extra) {
    const v = e.trim();
    if (v.length >= MIN_SECRET) all.add(v);
    const last = v.split(/\s+/).pop();
    if (last && last.length >= MIN_SECRET && last !== v) all.add(last);
  }
  return [...all];
}

/** `line` without any credential: as written and as JSON escapes it. Longest first, so a token inside a header value goes too. */
export function redactLine(line: string, extra: readonly string[] = []): string {
  const secrets = secretsFor(extra);
  if (secrets.length === 0) return line;
  const forms = new Set<string>();
  for (const s of secrets) {
    forms.add(s);
    forms.add(JSON.stringify(s).slice(1, -1));
  }
  let out = line;
  for (const s of [...forms].sort((a, b) => b.length - a.length)) if (out.includes(s)) out = out.split(s).join(REDACTED);
  return out;
}

interface Active {
  /** Made when the first event is written. */
  logger: () => Logger<never>;
  level: LogLevel;
  close: () => void;
}

let active: Active | undefined;

/** Starts (or restarts) logging. Throws LogSetupError when the file cannot be opened or is this process's stdout. */
export function configureLogging(settings: LogSettings): void {
  const fd = openTarget(settings.file);
  const render = settings.format === 'text' ? textLine : (line: string) => line;
  let logger: Logger<never> | undefined;
  const make = (): Logger<never> => {
    const pino = loadPino();
    const destination = pino.destination({ dest: fd, sync: true });
    const stream = { write: (line: string) => destination.write(render(redactLine(line, current))) };
    return pino(
      {
        level: settings.level,
        base: { pid: process.pid },
        timestamp: pino.stdTimeFunctions.isoTime,
        formatters: { level: (label) => ({ level: label }) },
      },
      stream,
    );
  };
  closeLogging();
  active = { logger: () => (logger ??= make()), level: settings.level, close: () => (fd === 2 ? undefined : closeSync(fd)) };
}

/** Stops logging and closes a log file. */
export function closeLogging(): void {
  const was = active;
  active = undefined;
  was?.close();
}

function openTarget(file: string | undefined): number {
  if (file === undefined) return 2;
  let fd: number;
  try {
    mkdirSync(dirname(file), { recursive: true });
    fd = openSync(file, 'a');
  } catch (err) {
    throw new LogSetupError(`cannot open the log file ${file}: ${(err as Error).message}. Give --log-file a path Sextant may write, or leave it out to log to stderr.`);
  }
  if (isStdout(fd)) {
    closeSync(fd);
    throw new LogSetupError(`the log file ${file} is this process's stdout, which carries answers (and the MCP protocol on stdio): logs never go there. Log to stderr (leave --log-file out) or to another file.`);
  }
  return fd;
}

function isStdout(fd: number): boolean {
  try {
    const a = fstatSync(fd);
    const b = fstatSync(1);
    return a.dev === b.dev && a.ino === b.ino && !b.isCharacterDevice();
  } catch {
    return false;
  }
}

/** Whether events of `level` are written now (so callers skip work, e.g. printing a document, that would be dropped). */
export function logEnabled(level: LogLevel): boolean {
  // LOG_LEVELS runs from the most severe: a level is written when it is as severe as the one set, or more.
  return active !== undefined && LOG_LEVELS.indexOf(level) <= LOG_LEVELS.indexOf(active.level);
}

export type LogFields = Record<string, string | number | boolean | null | undefined | readonly string[]>;

/**
 * Writes one event. `fields` must hold no credential; `secrets` are credentials of this event alone (a caller's
 * token) that the guard removes besides the ones it knows.
 */
export function logEvent(level: LogLevel, event: string, fields: LogFields, secrets: readonly string[] = []): void {
  if (!active || !logEnabled(level)) return;
  const body: Record<string, unknown> = { event };
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) body[k] = v;
  current = secrets;
  try {
    active.logger()[level](body);
  } finally {
    current = [];
  }
}

const TEXT_HEAD = new Set(['level', 'time', 'pid', 'event']);

/** A JSON line as one readable line: `time LEVEL event key=value …`; values with spaces or quotes are JSON-quoted. */
function textLine(json: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const parts = [String(record['time'] ?? ''), String(record['level'] ?? '').toUpperCase().padEnd(5), String(record['event'] ?? record['msg'] ?? '')];
  for (const [k, v] of Object.entries(record)) {
    if (TEXT_HEAD.has(k) || v === undefined) continue;
    parts.push(`${k}=${textValue(v)}`);
  }
  return `${parts.join(' ')}\n`;
}

const BARE = /^[^\s"'=,\\]+$/;

function textValue(v: unknown): string {
  if (typeof v === 'string') return BARE.test(v) ? v : JSON.stringify(v);
  if (Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string' && BARE.test(x))) return v.join(',');
  return JSON.stringify(v);
}
