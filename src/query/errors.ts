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
