import type { Hint } from './hints.js';

export type ErrorCode =
  | 'missing_argument'
  | 'unknown_argument'
  | 'invalid_argument'
  | 'unknown_field'
  | 'inapplicable_field'
  | 'bad_enum_value'
  | 'wildcard_in_filter'
  | 'out_of_range'
  | 'unknown_kind'
  | 'unknown_edge_type'
  | 'inapplicable_edge_type'
  | 'not_found'
  | 'ambiguous'
  | 'unknown_tool'
  | 'index_unavailable'
  | 'invalid_query'
  | 'not_read_only'
  | 'mutations_disabled'
  | 'no_data_access'
  | 'no_identity'
  | 'unauthorized'
  | 'upstream_error'
  | 'refresh_failed'
  | 'internal';

export interface ToolErrorBody {
  code: ErrorCode;
  message: string;
  /** The argument (or `filter.field`) at fault. */
  argument?: string;
  /** Valid alternatives at that place. */
  allowed?: string[];
  did_you_mean?: string[];
  hints?: Hint[];
  /** For a value over a size limit: its size, the limit (characters, items or bytes) and the unit. */
  size?: number;
  limit?: number;
  unit?: 'characters' | 'items' | 'bytes';
  /** The start of an over-long value, never the whole of it. */
  excerpt?: string;
}

/** A failure the caller can fix; its text teaches what would have worked. */
export class ToolError extends Error {
  constructor(readonly body: ToolErrorBody) {
    super(body.message);
  }
}

export function fail(body: ToolErrorBody): never {
  throw new ToolError(body);
}

/** How much of a value an error message may quote. */
const EXCERPT_CHARS = 80;

/**
 * A value as an error message may quote it: a string as JSON text, cut to its first `max` characters with "…"
 * and its full length when longer, so no message ever echoes a huge input.
 */
export function excerpt(value: string, max = EXCERPT_CHARS, withSize = true): string {
  if (value.length <= max) return JSON.stringify(value);
  // Never split a surrogate pair: the cut text must stay valid Unicode.
  let end = max;
  const last = value.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${JSON.stringify(value.slice(0, end))}…${withSize ? ` (${value.length} characters)` : ''}`;
}

/** Longest string an error body may carry; anything longer is cut (see `capErrorBody`). */
export const MAX_ERROR_STRING = 4096;

function cutString(s: string, max: number): string {
  if (s.length <= max) return s;
  const keep = max - 48;
  const code = s.charCodeAt(keep - 1);
  const end = code >= 0xd800 && code <= 0xdbff ? keep - 1 : keep;
  return `${s.slice(0, end)}… [cut: ${s.length} characters in all]`;
}

function capValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return cutString(value, MAX_ERROR_STRING);
  if (depth > 8 || value === null || typeof value !== 'object') return depth > 8 ? '[cut: nested too deeply]' : value;
  if (Array.isArray(value)) return value.slice(0, 200).map((v) => capValue(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value).slice(0, 200)) out[cutString(k, 256)] = capValue(v, depth + 1);
  return out;
}

/**
 * The last line of defence: no error body leaves with a string over MAX_ERROR_STRING characters (or lists and
 * objects over 200 entries), whatever a tool put in it. Cut strings keep their start and say their full length.
 */
export function capErrorBody(body: ToolErrorBody): ToolErrorBody {
  return capValue(body, 0) as ToolErrorBody;
}
