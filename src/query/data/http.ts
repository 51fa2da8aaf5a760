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

/** Largest answer read from a server; a larger one is refused before it fills memory. */
export const MAX_ANSWER_BYTES = 32 * 1024 * 1024;

class TooLarge extends Error {}

async function readCapped(res: Response, cap: number): Promise<string> {
  if (!res.body) return '';
  const chunks: Buffer[] = [];
  let total = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > cap) {
      await reader.cancel();
      throw new TooLarge();
    }
    chunks.push(Buffer.from(value));
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The endpoint as messages show it: no query string (it may hold a key). */
function shown(endpoint: string): string {
  const url = new URL(endpoint);
  return `${url.protocol}//${url.host}${url.pathname}`;
}

/**
 * POSTs a GraphQL request as the caller. Refusals and transport failures become teaching errors; GraphQL errors
 * in a 200 answer are the caller's to read and are returned.
 */
export async function sendGraphql(access: DataSourceAccess, caller: DataCaller, request: GraphqlRequest): Promise<GraphqlAnswer> {
  const identity = identityHeaders(access, caller);
  if ('refused' in identity) fail({ code: 'no_identity', message: identity.refused });
  const signal = AbortSignal.timeout(access.config.timeout_ms);
  const where = shown(access.endpoint);
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
    if (err instanceof TooLarge) {
      fail({ code: 'upstream_error', message: `${access.source} answered with more than ${MAX_ANSWER_BYTES / 1024 / 1024} MB; Sextant stopped reading. Ask for less: a filter, a smaller limit, fewer fields, or an aggregation.` });
    }
    if (signal.aborted) {
      fail({ code: 'upstream_error', message: `${access.source} (${where}) did not answer within ${access.config.timeout_ms} ms. Narrow the query (filter, limit), or raise \`data.timeout_ms\` for this source in sextant.yaml.` });
    }
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    fail({ code: 'upstream_error', message: `Cannot reach ${access.source} at ${where}: ${cause?.message ?? (err as Error).message}. Check that the server is running and reachable.` });
  }
  const snippet = text.length > 300 ? `${text.slice(0, 300)}…` : text;
  if (res.status === 401 || res.status === 403) {
    fail({
      code: 'unauthorized',
      message: `${access.source} refused the ${identity.who === 'caller' ? "caller's token" : identity.who === 'configured' ? 'configured data.token' : 'anonymous request'} (HTTP ${res.status}): ${snippet}. Queries run with the caller's own identity; ask for access, or use a token that has it.`,
    });
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
