import { AnswerTooLarge, MAX_ANSWER_BYTES, Secrets, megabytes, readCappedBytes, shownUrl } from '../../config/endpoint.js';
import { fail, type ErrorCode } from '../errors.js';
import { identityHeaders, type DataCaller, type DataSourceAccess } from './access.js';
import { decodeIpc, multipartBoundary, type IpcAnswer, type IpcDecodeOptions } from './ipc.js';
import { failureOf, upstreamRequest, type IdentityKind } from '../../log/upstream.js';

const IDENTITY_KIND: Record<GraphqlAnswer['as'], IdentityKind> = { caller: 'caller_bearer', configured: 'configured_token', anonymous: 'anonymous' };

export interface GraphqlRequest {
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
}

export interface GraphqlAnswer {
  /** The parsed JSON answer: a GraphQL envelope, or whatever a jq filter made of it. */
  json: unknown;
  bytes: number;
  /** Whose identity the request carried. */
  as: 'caller' | 'configured' | 'anonymous';
}


/**
 * Everything this request sent that must not come back in a tool answer: the identity's header values (the
 * token, the whole Authorization value and its bearer part, a forwarded caller's token), the source's configured
 * header values and the credentials its endpoint URL carries.
 */
function secretsOf(access: DataSourceAccess, sent: Readonly<Record<string, string>>): Secrets {
  const secrets = new Secrets(access.secrets ?? []).addUrl(access.endpoint);
  if (access.config.token) secrets.add(access.config.token);
  for (const [name, value] of Object.entries(sent)) if (name.toLowerCase() !== access.config.role_header.toLowerCase()) secrets.add(value);
  return secrets;
}

/**
 * POSTs a GraphQL request as the caller. Refusals and transport failures become teaching errors; GraphQL errors
 * in a 200 answer are the caller's to read and are returned.
 */
export async function sendGraphql(access: DataSourceAccess, caller: DataCaller, request: GraphqlRequest): Promise<GraphqlAnswer> {
  const { res, text, secrets, refuse, snippet, who } = await post(access, caller, request, { url: access.endpoint, accept: 'application/graphql-response+json, application/json' });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    refuse('upstream_error', `${access.source} answered HTTP ${res.status} with a body that is not JSON: ${snippet()}`);
  }
  if (!res.ok && !(typeof json === 'object' && json !== null && 'errors' in json)) {
    refuse('upstream_error', `${access.source} answered HTTP ${res.status}: ${snippet()}`);
  }
  return { json: secrets.redactJson(json), bytes: Buffer.byteLength(text), as: who };
}

/** Hugr's Arrow IPC endpoint next to its GraphQL endpoint: `…/query` → `…/ipc` (the last path segment replaced). */
export function ipcEndpoint(endpoint: string): string {
  const u = new URL(endpoint);
  u.pathname = u.pathname.replace(/[^/]*$/, 'ipc');
  return u.href;
}

export interface IpcResult {
  answer: IpcAnswer;
  /** Bytes of the multipart answer as read. */
  bytes: number;
  as: GraphqlAnswer['as'];
}

/**
 * POSTs a GraphQL request as the caller to Hugr's `/ipc` endpoint (see ipc.ts) and decodes its answer, with the
 * same identity, bounds, refusals and redaction as `sendGraphql`.
 */
export async function sendIpc(access: DataSourceAccess, caller: DataCaller, request: GraphqlRequest, options: IpcDecodeOptions = {}): Promise<IpcResult> {
  const url = ipcEndpoint(access.endpoint);
  const { res, body, secrets, refuse, snippet, who } = await post(access, caller, request, { url, accept: 'multipart/mixed' });
  const type = res.headers.get('content-type') ?? '';
  if (!res.ok || !multipartBoundary(type)) {
    refuse('upstream_error', `${access.source} answered HTTP ${res.status} at ${shownUrl(url)} with ${type || 'no content type'}, not Hugr's multipart Arrow answer: ${snippet()}. Ask for \`format: json\` instead.`);
  }
  let answer: IpcAnswer;
  try {
    answer = decodeIpc(body, type, options);
  } catch (err) {
    return refuse('upstream_error', `${access.source}'s answer at ${shownUrl(url)} is not a Hugr Arrow answer Sextant can read (${(err as Error).message}). Ask for \`format: json\` instead.`);
  }
  return { answer: secrets.redactJson(answer), bytes: body.length, as: who };
}

/** How a request goes out: where to, and what it accepts back. */
interface Wire {
  url: string;
  accept: string;
}

interface Posted {
  res: Response;
  body: Buffer;
  text: string;
  secrets: Secrets;
  refuse: (code: ErrorCode, message: string) => never;
  /** The start of the answer, redacted, for a message. */
  snippet: () => string;
  who: GraphqlAnswer['as'];
}

/** POSTs as the caller and reads the answer within bounds; transport failures and refusals become teaching errors. */
async function post(access: DataSourceAccess, caller: DataCaller, request: GraphqlRequest, wire: Wire): Promise<Posted> {
  const identity = identityHeaders(access, caller);
  if ('refused' in identity) fail({ code: 'no_identity', message: identity.refused });
  // The one boundary where upstream content enters a tool answer: every message and the answer itself are
  // redacted of what was sent (a server may echo request headers in an error, or in data).
  const secrets = secretsOf(access, identity.headers);
  const refuse: (code: ErrorCode, message: string) => never = (code, message) => fail({ code, message: secrets.redact(message) });
  const signal = AbortSignal.timeout(access.config.timeout_ms);
  const where = shownUrl(wire.url);
  const logged = upstreamRequest({ source: access.source, endpoint: where, identity: IDENTITY_KIND[identity.who], query: request.query, ...(request.operationName ? { operationName: request.operationName } : {}), secrets: secrets.list() });
  let res: Response;
  let body: Buffer;
  let text: string;
  try {
    res = await fetch(wire.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: wire.accept, ...identity.headers },
      body: JSON.stringify(request),
      redirect: 'manual',
      signal,
    });
    body = await readCappedBytes(res, MAX_ANSWER_BYTES);
    text = body.toString('utf8');
  } catch (err) {
    logged.failed(signal.aborted ? 'timeout' : failureOf(err, err instanceof AnswerTooLarge));
    if (err instanceof AnswerTooLarge) {
      refuse('upstream_error', `${access.source} answered with more than ${megabytes(MAX_ANSWER_BYTES)}; Sextant stopped reading. Ask for less: a filter, a smaller limit, fewer fields, or an aggregation.`);
    }
    if (signal.aborted) {
      refuse('upstream_error', `${access.source} (${where}) did not answer within ${access.config.timeout_ms} ms. Narrow the query (filter, limit), or raise \`data.timeout_ms\` for this source in sextant.yaml.`);
    }
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    refuse('upstream_error', `Cannot reach ${access.source} at ${where}: ${cause?.message ?? (err as Error).message}. Check that the server is running and reachable.`);
  }
  logged.done(res.status, Buffer.byteLength(text));
  // Redacted before it is cut short: a cut must not leave half a token behind.
  const snippet = (): string => {
    const t = secrets.redact(text);
    return t.length > 300 ? `${t.slice(0, 300)}…` : t;
  };
  if (res.status === 401 || res.status === 403) {
    refuse(
      'unauthorized',
      `${access.source} refused the ${identity.who === 'caller' ? "caller's token" : identity.who === 'configured' ? 'configured data.token' : 'anonymous request'} (HTTP ${res.status}): ${snippet()}. Queries run with the caller's own identity; ask for access, or use a token that has it.`,
    );
  }
  return { res, body, text, secrets, refuse, snippet, who: identity.who };
}
