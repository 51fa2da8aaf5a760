import { fail } from '../errors.js';
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

/** Hugr serves jq over `/jq-query` beside `/query`. */
export function jqEndpointOf(endpoint: string): string {
  const url = new URL(endpoint);
  url.pathname = url.pathname.replace(/\/query\/?$/, '') + '/jq-query';
  return url.href;
}

/**
 * POSTs a GraphQL request (or, with `jq`, a Hugr `/jq-query` request) as the caller. Refusals and transport
 * failures become teaching errors; GraphQL errors in a 200 answer are the caller's to read and are returned.
 */
export async function sendGraphql(access: DataSourceAccess, caller: DataCaller, request: GraphqlRequest, opts: { jq?: string } = {}): Promise<GraphqlAnswer> {
  const identity = identityHeaders(access, caller);
  if ('refused' in identity) fail({ code: 'no_identity', message: identity.refused });
  const url = opts.jq ? jqEndpointOf(access.endpoint) : access.endpoint;
  const body = opts.jq ? { jq: opts.jq, query: request } : request;
  const signal = AbortSignal.timeout(access.config.timeout_ms);
  let res: Response;
  let text: string;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json', ...identity.headers },
      body: JSON.stringify(body),
      redirect: 'manual',
      signal,
    });
    text = await res.text();
  } catch (err) {
    if (signal.aborted) {
      fail({ code: 'upstream_error', message: `${access.source} (${access.endpoint}) did not answer within ${access.config.timeout_ms} ms. Narrow the query (filter, limit), or raise \`data.timeout_ms\` for this source in sextant.yaml.` });
    }
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    fail({ code: 'upstream_error', message: `Cannot reach ${access.source} at ${access.endpoint}: ${cause?.message ?? (err as Error).message}. Check that the server is running and reachable.` });
  }
  const snippet = text.length > 300 ? `${text.slice(0, 300)}…` : text;
  if (res.status === 401 || res.status === 403) {
    fail({
      code: 'unauthorized',
      message: `${access.source} refused the ${identity.who === 'caller' ? "caller's token" : identity.who === 'configured' ? 'configured data.token' : 'anonymous request'} (HTTP ${res.status}): ${snippet}. Queries run with the caller's own identity; ask for access, or use a token that has it.`,
    });
  }
  if (opts.jq && (res.status === 404 || res.status === 501)) {
    fail({ code: 'upstream_error', message: `${access.source} has no jq endpoint (${jqEndpointOf(access.endpoint)} answered HTTP ${res.status}). Run the query without \`jq\` and reshape the answer yourself.` });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    fail({ code: 'upstream_error', message: `${access.source} answered HTTP ${res.status} with a body that is not JSON: ${snippet}` });
  }
  if (!res.ok && !(typeof json === 'object' && json !== null && 'errors' in json)) {
    fail({ code: 'upstream_error', message: `${access.source} answered HTTP ${res.status}: ${snippet}` });
  }
  return { json, bytes: Buffer.byteLength(text), as: identity.who };
}
