import { StoreError } from '../store.js';

/** Whether a store location names a PostgreSQL database (`postgres://…` or `postgresql://…`) rather than a directory. */
export function isPostgresLocation(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location.trim());
}

/** Query parameters that carry a secret, never shown. */
const SECRET_PARAMS = new Set(['password', 'sslpassword', 'sslkey']);

/**
 * A connection URL as messages, logs, hints and the index show it: without its password (in the user info, or a
 * `password=` / `sslpassword=` parameter); `postgres://ci@db.internal:5432/sextant?sslmode=require`. The password
 * comes from PGPASSWORD or ~/.pgpass where a shown URL is used again.
 */
export function shownPostgresLocation(url: string): string {
  let u: URL;
  try {
    u = new URL(url.trim());
  } catch {
    return 'postgres://(a URL that does not parse, not shown)';
  }
  const user = u.username ? `${u.username}@` : '';
  const query = [...u.searchParams].filter(([k]) => !SECRET_PARAMS.has(k.toLowerCase()));
  const search = query.length ? `?${new URLSearchParams(query).toString()}` : '';
  return `${u.protocol}//${user}${u.host}${u.pathname}${search}`;
}

/**
 * The connection settings for `pg`: the URL as given (libpq parameters included: sslmode, sslrootcert, options…)
 * with `settings` added to its startup `options` (a URL's own `options` would otherwise replace them).
 */
export function connectionSettings(url: string, settings: Record<string, string | number>): { connectionString: string; options?: string } {
  const u = new URL(url.trim());
  const own = u.searchParams.get('options');
  u.searchParams.delete('options');
  const options = [own, ...Object.entries(settings).map(([k, v]) => `-c ${k}=${v}`)].filter(Boolean).join(' ');
  return { connectionString: u.toString(), ...(options ? { options } : {}) };
}

/** Where a connection goes, for messages: host and port (or the socket directory) and database. */
function target(url: string): { where: string; database: string; user: string } {
  try {
    const u = new URL(url);
    const host = u.hostname || u.searchParams.get('host') || 'localhost';
    return { where: `${host}:${u.port || '5432'}`, database: decodeURIComponent(u.pathname.slice(1)) || '(the user name)', user: decodeURIComponent(u.username) || '(the OS user)' };
  } catch {
    return { where: '(unparsable URL)', database: '?', user: '?' };
  }
}

/** PostgreSQL's SQLSTATE (or Node's error code) of an error, when it has one. */
export function errorCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * A failure to reach or log in to the server as an error that says which server and what to check. Never
 * includes the password: only the shown location and the server's own message (which never echoes one).
 */
export function connectionError(err: unknown, url: string): StoreError {
  const { where, database, user } = target(url);
  const shown = shownPostgresLocation(url);
  const code = errorCode(err);
  const detail = (err as Error)?.message?.split('\n')[0] ?? String(err);
  const hint: Record<string, string> = {
    ECONNREFUSED: `nothing accepts connections at ${where}: is PostgreSQL running there, and listening on that address and port (listen_addresses, port)?`,
    ENOTFOUND: `the host in ${where} does not resolve: check its spelling, or the DNS of this machine.`,
    EAI_AGAIN: `the host in ${where} could not be resolved just now (DNS): try again, or use its address.`,
    ETIMEDOUT: `${where} did not answer in time: check the address, the port and any firewall between here and there.`,
    EHOSTUNREACH: `${where} is unreachable from this machine: check the address and the network.`,
    '28P01': `the server at ${where} refused the password of user ${user}: check the password (in the URL, SEXTANT_STORE, \${VAR} in sextant.yaml's store:, PGPASSWORD or ~/.pgpass).`,
    '28000': `the server at ${where} does not let user ${user} connect to database ${database} from here (pg_hba.conf, or no such role): ask its administrator.`,
    '3D000': `database ${database} does not exist on ${where}: create it (\`createdb ${database}\`, or CREATE DATABASE) and index into it.`,
    '42501': `user ${user} may not connect to database ${database} on ${where} (GRANT CONNECT).`,
    '53300': `the server at ${where} has no connection slots left (max_connections): try again, or ask its administrator.`,
    '57P03': `the server at ${where} is starting up or shutting down: try again in a moment.`,
  };
  const why = (code && hint[code]) ?? (/SSL|ssl|certificate/.test(detail) ? `TLS to ${where} failed: check sslmode (and sslrootcert) in the URL against the server's settings.` : `check the host, port, database, user and password in the URL.`);
  return new StoreError('store_unreachable', `Cannot connect to the index at ${shown} (${detail}): ${why}`);
}

/** Whether an error is one of connecting (not of a statement): the pool reports these before any query runs. */
export function isConnectionFailure(err: unknown): boolean {
  const code = errorCode(err);
  if (!code) return /Connection terminated|connect|timeout/i.test((err as Error)?.message ?? '');
  return /^(E[A-Z]+|28|3D|53300|57P0|08)/.test(code);
}
