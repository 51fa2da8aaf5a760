/**
 * The `upstream_request` event: one per HTTP request Sextant sends to a GraphQL endpoint (data tools and
 * indexing). What it records cannot hold a credential: the shown endpoint (no user info, no query string), the
 * operation's name, the HTTP status, how long it took, the answer's size and the kind of identity it carried.
 * At debug level the document is added with every literal value replaced; variables are never logged.
 */
import { Kind, parse, print, visit, type DocumentNode, type OperationDefinitionNode } from 'graphql';
import { logEnabled, logEvent, type LogLevel } from './logger.js';

/** Whose identity a request carried, never the credential itself. */
export type IdentityKind = 'secret' | 'caller_bearer' | 'configured_token' | 'anonymous';

export interface UpstreamRequest {
  source: string;
  /** As `shownUrl` shows it: scheme, host, port, path. */
  endpoint: string;
  identity: IdentityKind;
  /** The GraphQL document sent: its operation name is logged, and at debug level the document with literals replaced. */
  query: string;
  /** The request's operationName, when it has one. */
  operationName?: string;
  /** A fixed name for Sextant's own requests (`introspection`, `probe`, `meta`) instead of the document's. */
  operation?: string;
  /** Credentials this request sent: removed from the line should any appear. */
  secrets?: readonly string[];
}

/** How a request ended without an HTTP answer (or with one too large to read). */
export type UpstreamFailure = 'timeout' | 'unreachable' | 'too_large';

/** How a request that threw ended: `too_large` when the answer was over the cap, `timeout` when its time ran out. */
export function failureOf(err: unknown, tooLarge: boolean): UpstreamFailure {
  if (tooLarge) return 'too_large';
  const name = err instanceof Error ? err.name : undefined;
  return name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'unreachable';
}

/**
 * Starts timing a request; call `done` with its status and the answer's size (null when it was not read), or
 * `failed` when no answer came. The first call logs; later ones are ignored.
 */
export function upstreamRequest(request: UpstreamRequest): { done: (status: number, bytes: number | null) => void; failed: (failure: UpstreamFailure) => void } {
  const started = performance.now();
  let logged = false;
  const write = (level: LogLevel, fields: Record<string, string | number | null>) => {
    if (logged) return;
    logged = true;
    if (!logEnabled(level)) return;
    const parsed = logEnabled('debug') || request.operation === undefined ? parseDocument(request.query) : undefined;
    logEvent(
      level,
      'upstream_request',
      {
        source: request.source,
        endpoint: request.endpoint,
        operation: request.operation ?? operationNameOf(parsed, request.operationName),
        identity: request.identity,
        duration_ms: Math.round(performance.now() - started),
        ...fields,
        ...(logEnabled('debug') ? { document: parsed ? redactedDocument(parsed) : '(not parseable; not logged)' } : {}),
      },
      request.secrets,
    );
  };
  return {
    done: (status, bytes) => write(status >= 500 ? 'warn' : 'info', { status, bytes }),
    failed: (failure) => write('warn', { status: null, bytes: null, failure }),
  };
}

function parseDocument(query: string): DocumentNode | undefined {
  try {
    return parse(query, { noLocation: true });
  } catch {
    return undefined; // a syntax error, or nesting deeper than the parser's stack
  }
}

/** The name of the operation a document runs: `operationName` when given, else its one operation's name; null when anonymous. */
function operationNameOf(document: DocumentNode | undefined, operationName: string | undefined): string | null {
  if (operationName) return operationName.slice(0, 200);
  const operations = document?.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION) ?? [];
  return operations.length === 1 ? (operations[0]!.name?.value ?? null) : null;
}

/** Longest document logged; past it, the end is cut. */
const MAX_DOCUMENT = 64 * 1024;

/**
 * The document as printed by graphql-js with every string, int and float literal replaced by a placeholder
 * (`"<string>"`, `<int>`, `<float>`); printing drops comments too. Names, enum values, booleans and nulls stay.
 */
export function redactedDocument(document: DocumentNode): string {
  const redacted = visit(document, {
    StringValue: () => ({ kind: Kind.STRING, value: '<string>', block: false }),
    IntValue: () => ({ kind: Kind.INT, value: '<int>' }),
    FloatValue: () => ({ kind: Kind.FLOAT, value: '<float>' }),
  });
  const text = print(redacted);
  return text.length > MAX_DOCUMENT ? `${text.slice(0, MAX_DOCUMENT)}…` : text;
}

/** `redactedDocument` of a document's text; undefined when it does not parse. */
export function redactedQuery(query: string): string | undefined {
  const document = parseDocument(query);
  return document ? redactedDocument(document) : undefined;
}
