import { logEnabled, logEvent } from '../log/logger.js';
import type { DataCaller, DataSourceAccess } from '../query/data/access.js';

/** Where a tool call came in. */
export type ToolSurface = 'stdio' | 'http' | 'cli';

export interface ToolCallRecord {
  tool: string;
  surface: ToolSurface;
  /** `performance.now()` when the call arrived. */
  started: number;
  /** The answer's `ok` and error code. */
  result: { ok: boolean; error?: { code: string } };
  /** The answer as sent: the JSON text's size in bytes (a function: measured only when the event is written). */
  answerBytes: number | (() => number);
  caller: DataCaller;
  /** The data sources this server offers (their configured role, and the role header a caller may send). */
  sources?: ReadonlyMap<string, DataSourceAccess>;
  /** The MCP session id an HTTP request carried, if any. */
  sessionId?: string;
  /** The arguments as sent: at debug level their names are logged, never their values. */
  args?: unknown;
}

/** Caller-supplied text logged as it is (a role name, a session id) is cut here. */
const MAX_LOGGED_TEXT = 100;

/**
 * The `tool_call` event: tool, surface, duration, outcome (`ok` or the error code), answer size, and who called:
 * the role asked for and whether a bearer token was present, never the token. A Sextant bug (`internal`) is
 * logged at error level, everything else at info.
 */
export function logToolCall(record: ToolCallRecord): void {
  const outcome = record.result.ok ? 'ok' : (record.result.error?.code ?? 'error');
  const level = outcome === 'internal' ? 'error' : 'info';
  if (!logEnabled(level)) return;
  const { caller } = record;
  const authorization = caller.transport === 'http' ? caller.authorization : undefined;
  const bearer = caller.transport === 'http' ? /^Bearer\s+\S/i.test(authorization ?? '') : [...(record.sources?.values() ?? [])].some((s) => Boolean(s.config.token));
  const roles = rolesOf(caller, record.sources);
  logEvent(
    level,
    'tool_call',
    {
      tool: record.tool.slice(0, MAX_LOGGED_TEXT),
      surface: record.surface,
      duration_ms: Math.round(performance.now() - record.started),
      outcome,
      answer_bytes: typeof record.answerBytes === 'function' ? record.answerBytes() : record.answerBytes,
      role: roles.length === 0 ? undefined : roles.length === 1 ? roles[0] : roles,
      bearer,
      session_id: record.sessionId?.slice(0, MAX_LOGGED_TEXT),
      ...(logEnabled('debug') ? { arguments: argumentNames(record.args).slice(0, 50).map((n) => n.slice(0, MAX_LOGGED_TEXT)) } : {}),
    },
    authorization ? [authorization] : [],
  );
}

/** The roles the call runs as: the role header an HTTP caller sent (per source's role_header), or the configured `data.role`s. */
function rolesOf(caller: DataCaller, sources: ReadonlyMap<string, DataSourceAccess> | undefined): string[] {
  const roles = new Set<string>();
  for (const s of sources?.values() ?? []) {
    if (caller.transport === 'http') {
      const sent = caller.headers[s.config.role_header.toLowerCase()];
      if (typeof sent === 'string' && sent !== '') roles.add(sent.slice(0, MAX_LOGGED_TEXT));
    } else if (s.config.role) roles.add(s.config.role);
  }
  return [...roles].sort();
}

/** The argument names of a raw argument value (an object, or its JSON text); empty when it is neither. */
function argumentNames(args: unknown): string[] {
  let value = args;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value) as unknown;
    } catch {
      return [];
    }
  }
  return value && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value).sort() : [];
}
