import { AnswerTooLarge, MAX_ANSWER_BYTES, Secrets, megabytes, readCapped, shownUrl } from '../../config/endpoint.js';
import { fail, type ErrorCode } from '../errors.js';
import { identityHeaders, type DataCaller, type DataSourceAccess } from './access.js';

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
  const identity = identityHeaders(access, caller);
  if ('refused' in identity) fail({ code: 'no_identity', message: identity.refused });
  // The one boundary where upstream content enters a tool answer: every message and the answer itself are
  // redacted of what was sent (a server may echo request headers in an error, or in data).
  const secrets = secretsOf(access, identity.headers);
  const refuse: (code: ErrorCode, message: string) => never = (code, message) => fail({ code, message: secrets.redact(message) });
  const signal = AbortSignal.timeout(access.config.timeout_ms);
  const where = shownUrl(access.endpoint);
  let res: Response;
  let text: string;
  try {
    res = await fetch(access.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json', ...identity.headers },
      body: JSON.stringify(request),
      redirect: 'manual',
      signal,
    });
    text = await readCapped(res, MAX_ANSWER_BYTES);
  } catch (err) {
    if (err instanceof AnswerTooLarge) {
      refuse('upstream_error', `${access.source} answered with more than ${megabytes(MAX_ANSWER_BYTES)}; Sextant stopped reading. Ask for less: a filter, a smaller limit, fewer fields, or an aggregation.`);
    }
    if (signal.aborted) {
      refuse('upstream_error', `${access.source} (${where}) did not answer within ${access.config.timeout_ms} ms. Narrow the query (filter, limit), or raise \`data.timeout_ms\` for this source in sextant.yaml.`);
    }
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    refuse('upstream_error', `Cannot reach ${access.source} at ${where}: ${cause?.message ?? (err as Error).message}. Check that the server is running and reachable.`);
  }
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
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    refuse('upstream_error', `${access.source} answered HTTP ${res.status} with a body that is not JSON: ${snippet()}`);
  }
  if (!res.ok && !(typeof json === 'object' && json !== null && 'errors' in json)) {
    refuse('upstream_error', `${access.source} answered HTTP ${res.status}: ${snippet()}`);
  }
  return { json: secrets.redactJson(json), bytes: Buffer.byteLength(text), as: identity.who };
}
