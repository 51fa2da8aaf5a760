/**
 * Configured endpoints, handled without leaking what they carry: how a URL is shown (never its user info or query
 * string), which values Sextant sent that must never come back in what it shows (tokens, header values, URL
 * credentials), and how an answer is read without letting a server fill memory. The indexer and the data tools
 * both use these; there is one of each.
 */

/** What stands where something was taken out. */
const REDACTED = '[redacted]';
/** What stands in a shown URL for its user info or query string: the user must supply them again. */
const URL_REDACTED = '<redacted>';

/**
 * A URL as it may be shown or stored: scheme, host, port and path. User info and the query string may hold
 * credentials and are never shown; with `mark`, each one that was there is replaced by `<redacted>`
 * (`https://<redacted>@host/graphql?<redacted>`), so a message that asks to run a command again with the URL says
 * that part must be supplied. Text that is not a URL is not shown at all.
 */
export function shownUrl(url: string | URL, options: { mark?: boolean } = {}): string {
  let u: URL;
  try {
    u = typeof url === 'string' ? new URL(url) : url;
  } catch {
    return '(an invalid URL, not shown)';
  }
  const mark = options.mark === true;
  const user = mark && (u.username !== '' || u.password !== '') ? `${URL_REDACTED}@` : '';
  const query = mark && u.search !== '' ? `?${URL_REDACTED}` : '';
  return `${u.protocol}//${user}${u.host}${u.pathname}${query}`;
}

/** Whether a shown URL had parts taken out (so it cannot be used as it is). */
export function hasRedactedParts(text: string): boolean {
  return text.includes(URL_REDACTED) || text.includes(encodeURIComponent(URL_REDACTED));
}

/** Shortest value treated as a secret: shorter ones would redact ordinary words and numbers. */
const MIN_SECRET = 4;

/**
 * The values Sextant sent that must not come back: a header value (`Bearer abc…` also gives `abc…`), a URL's
 * user name, password, their basic-auth form and its query values. `redact` replaces each in text; `redactJson`
 * in every string and key of a JSON value.
 */
export class Secrets {
  private readonly values = new Set<string>();
  private sorted: string[] | undefined;

  constructor(values: Iterable<string | undefined> = []) {
    for (const v of values) if (v !== undefined) this.add(v);
  }


  /** A credential value as sent (a header value, a token); its last word too (`Bearer abc` → `abc`). */
  add(value: string): this {
    const v = value.trim();
    if (v.length >= MIN_SECRET) this.values.add(v);
    const last = v.split(/\s+/).pop();
    if (last && last.length >= MIN_SECRET && last !== v) this.values.add(last);
    this.sorted = undefined;
    return this;
  }

  /** The credentials a URL carries: user info (as written, decoded and as basic auth) and query values. */
  addUrl(url: string | URL): this {
    let u: URL;
    try {
      u = typeof url === 'string' ? new URL(url) : url;
    } catch {
      return this;
    }
    const basic = basicAuth(u);
    if (basic) for (const v of [u.username, u.password, safeDecode(u.username), safeDecode(u.password), basic]) this.add(v);
    for (const [, value] of u.searchParams) this.add(value);
    return this;
  }

  /** The secrets, longest first. */
  list(): string[] {
    this.sorted ??= [...this.values].sort((a, b) => b.length - a.length || (a < b ? -1 : a > b ? 1 : 0));
    return this.sorted;
  }

  /** `text` with every secret replaced by `[redacted]` (longest first, so a token inside a header value goes too). */
  redact(text: string): string {
    let out = text;
    for (const s of this.list()) if (out.includes(s)) out = out.split(s).join(REDACTED);
    return out;
  }

  /** Whether `text` holds any secret. */
  occursIn(text: string): boolean {
    return this.list().some((s) => text.includes(s));
  }

  /**
   * A JSON value with every secret in its strings and keys replaced, walked without recursion (an answer may nest
   * deeper than the stack). The value is changed in place where it holds one; it is returned for convenience.
   */
  redactJson<T>(value: T): T {
    if (this.values.size === 0) return value;
    if (typeof value === 'string') return this.redact(value) as T;
    const stack: unknown[] = [value];
    while (stack.length) {
      const v = stack.pop();
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) {
          const x: unknown = v[i];
          if (typeof x === 'string') v[i] = this.redact(x);
          else if (x && typeof x === 'object') stack.push(x);
        }
      } else if (v && typeof v === 'object') {
        const o = v as Record<string, unknown>;
        for (const key of Object.keys(o)) {
          const x = o[key];
          let k = key;
          if (this.occursIn(key)) {
            k = this.redact(key);
            delete o[key];
          }
          o[k] = typeof x === 'string' ? this.redact(x) : x;
          if (x && typeof x === 'object') stack.push(x);
        }
      }
    }
    return value;
  }
}

/** The credentials of a URL's user info as HTTP basic auth sends them (base64 of `user:pass`); undefined without. */
export function basicAuth(url: URL): string | undefined {
  if (!url.username && !url.password) return undefined;
  return Buffer.from(`${safeDecode(url.username)}:${safeDecode(url.password)}`).toString('base64');
}

/** The URL a request is sent to: without user info (that goes in a header) and fragment. */
export function requestUrl(url: string | URL): URL {
  const u = new URL(url);
  u.username = '';
  u.password = '';
  u.hash = '';
  return u;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Largest answer read from a server (a schema or a data answer); a larger one is refused before it fills memory. */
export const MAX_ANSWER_BYTES = 32 * 1024 * 1024;

/** An answer was longer than the cap; reading stopped there. */
export class AnswerTooLarge extends Error {
  constructor(cap: number) {
    super(`the answer is larger than ${megabytes(cap)}`);
  }
}

/** `32 MB`, `512 KB`: a byte count as messages say it. */
export function megabytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB` : `${Math.round(bytes / 1024)} KB`;
}

/**
 * The body of a response as text, read up to `cap` bytes: past it, reading stops, the connection is released and
 * AnswerTooLarge is thrown, so an endless or huge body never fills memory. A declared Content-Length over the cap
 * is refused before reading.
 */
export async function readCapped(res: Response, cap: number): Promise<string> {
  return (await readCappedBytes(res, cap)).toString('utf8');
}

/** As `readCapped`, for a binary body (an Arrow IPC answer). */
export async function readCappedBytes(res: Response, cap: number): Promise<Buffer> {
  if (!res.body) return Buffer.alloc(0);
  const declared = Number(res.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > cap) {
    await res.body.cancel().catch(() => undefined);
    throw new AnswerTooLarge(cap);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > cap) {
      await reader.cancel().catch(() => undefined);
      throw new AnswerTooLarge(cap);
    }
    chunks.push(Buffer.from(value));
  }
  return Buffer.concat(chunks);
}
