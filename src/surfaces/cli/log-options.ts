/**
 * The CLI's logging options (`--log-level`, `--log-format`, `--log-file`, or SEXTANT_LOG_LEVEL / SEXTANT_LOG_FORMAT /
 * SEXTANT_LOG_FILE), resolved before a command runs, and the credentials the log's final guard must know.
 */
import { Option } from 'commander';
import { Secrets } from '../../config/endpoint.js';
import type { WorkspaceConfig } from '../../config/types.js';
import { addLogSecrets, configureLogging, LOG_FORMATS, LOG_LEVELS, LogSetupError, type LogFormat, type LogLevel, type LogSettings } from '../../log/logger.js';
import type { DataSourceAccess } from '../../query/data/access.js';
import { closest } from '../../search/similarity.js';

/**
 * The level a command logs at when neither a flag nor the environment says: a server logs what its operator must
 * see (upstream failures, Sextant bugs); a one-shot command, whose problems are already printed for its user, logs
 * only Sextant bugs, so its output stays what it was.
 */
const DEFAULT_LEVEL: Readonly<Record<string, LogLevel>> = { serve: 'warn' };
const FALLBACK_LEVEL: LogLevel = 'error';

export interface LogFlags {
  logLevel?: string;
  logFormat?: string;
  logFile?: string;
}

/** Thrown for a value the options do not take; the CLI shows it as a usage error. */
export class LogOptionError extends Error {}

export function logOptions(): Option[] {
  return [
    new Option('--log-level <level>', `what to log: ${LOG_LEVELS.join(', ')} (default: SEXTANT_LOG_LEVEL, else warn for serve and error for other commands)`),
    new Option('--log-format <format>', `log lines as ${LOG_FORMATS.join(' or ')} (default: SEXTANT_LOG_FORMAT, else json)`),
    new Option('--log-file <path>', 'append logs to this file instead of stderr (default: SEXTANT_LOG_FILE); never stdout'),
  ];
}

/** The settings the flags and environment ask for; LogOptionError for a value that is not one the option takes. */
export function logSettings(flags: LogFlags, command: string, env: Record<string, string | undefined> = process.env): LogSettings {
  const level = pick('--log-level', 'SEXTANT_LOG_LEVEL', flags.logLevel, env['SEXTANT_LOG_LEVEL'], LOG_LEVELS) ?? DEFAULT_LEVEL[command] ?? FALLBACK_LEVEL;
  const format: LogFormat = pick('--log-format', 'SEXTANT_LOG_FORMAT', flags.logFormat, env['SEXTANT_LOG_FORMAT'], LOG_FORMATS) ?? 'json';
  const file = flags.logFile ?? (env['SEXTANT_LOG_FILE'] || undefined);
  if (file !== undefined && file.trim() === '') throw new LogOptionError('--log-file takes a path; got an empty one. Leave it out to log to stderr.');
  return { level, format, ...(file !== undefined ? { file } : {}) };
}

function pick<T extends string>(flag: string, variable: string, fromFlag: string | undefined, fromEnv: string | undefined, allowed: readonly T[]): T | undefined {
  const [value, where] = fromFlag !== undefined ? [fromFlag, flag] : fromEnv ? [fromEnv, variable] : [undefined, ''];
  if (value === undefined) return undefined;
  const normalized = value.trim().toLowerCase();
  if ((allowed as readonly string[]).includes(normalized)) return normalized as T;
  const near = closest(normalized, allowed);
  throw new LogOptionError(`${where} takes one of ${allowed.join(', ')}; got ${JSON.stringify(value.slice(0, 100))}.${near.length ? ` Did you mean ${near[0]}?` : ''}`);
}

/** Starts logging for `command`; LogOptionError when the options cannot be honoured (bad value, unwritable file, stdout). */
export function startLogging(flags: LogFlags, command: string): void {
  const settings = logSettings(flags, command);
  try {
    configureLogging(settings);
  } catch (err) {
    if (err instanceof LogSetupError) throw new LogOptionError(err.message);
    throw err;
  }
}

/** Tells the log's guard every credential a workspace configures: header values, tokens, URL credentials. */
export function knowWorkspaceSecrets(config: WorkspaceConfig): void {
  const secrets = new Secrets();
  for (const s of config.sources) {
    if (s.kind !== 'graphql') continue;
    for (const v of Object.values(s.headers ?? {})) secrets.add(v);
    if (s.endpoint) secrets.addUrl(s.endpoint);
    if (s.data?.endpoint) secrets.addUrl(s.data.endpoint);
    if (s.data?.token) secrets.add(s.data.token);
  }
  const e = config.embeddings;
  if (e) {
    if (e.api_key) secrets.add(e.api_key);
    for (const v of Object.values(e.headers)) secrets.add(v);
    secrets.addUrl(e.url);
  }
  addLogSecrets(secrets.list());
}

/** Tells the log's guard the credentials a store URL carries: its password (in the user info or the query). */
export function knowStoreSecrets(url: string): void {
  const secrets = new Secrets();
  try {
    const u = new URL(url);
    for (const v of [u.password, decodeURIComponent(u.password), u.searchParams.get('password'), u.searchParams.get('sslpassword')]) if (v) secrets.add(v);
  } catch {
    // A URL that does not parse is never shown (see shownPostgresLocation).
  }
  addLogSecrets(secrets.list());
}

/** Tells the log's guard the credentials of the data sources a server or call may query. */
export function knowDataSecrets(sources: ReadonlyMap<string, DataSourceAccess>): void {
  for (const access of sources.values()) {
    const secrets = new Secrets(access.secrets ?? []).addUrl(access.endpoint);
    if (access.config.token) secrets.add(access.config.token);
    addLogSecrets(secrets.list());
  }
}
