/** Why a GraphQL source could not be loaded. `code` is stable; `message` teaches what to do about it. */
export type GraphqlSourceErrorCode =
  | 'NO_SCHEMA_INPUT'
  | 'FILE_NOT_FOUND'
  | 'UNSUPPORTED_FILE'
  | 'NO_SCHEMA_FILES'
  | 'MIXED_SCHEMA_FORMATS'
  | 'SDL_SYNTAX_ERROR'
  | 'INVALID_JSON'
  | 'NOT_INTROSPECTION'
  | 'SCHEMA_BUILD_ERROR'
  | 'INVALID_ENDPOINT'
  | 'HTTP_ERROR'
  | 'TIMEOUT'
  | 'NETWORK_ERROR'
  | 'BAD_RESPONSE'
  | 'GRAPHQL_ERRORS'
  | 'ANSWER_TOO_LARGE'
  | 'TOO_DEEP';

export class GraphqlSourceError extends Error {
  readonly code: GraphqlSourceErrorCode;
  constructor(code: GraphqlSourceErrorCode, message: string) {
    super(message);
    this.name = 'GraphqlSourceError';
    this.code = code;
  }
}
