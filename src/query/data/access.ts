import { Secrets, requestUrl } from '../../config/endpoint.js';
import type { GraphqlDataConfig, WorkspaceConfig } from '../../config/types.js';
import { defaultDataConfig } from '../../config/workspace.js';

/** How a data tool reaches one GraphQL source. */
export interface DataSourceAccess {
  source: string;
  /** Where queries are POSTed (no credentials in it). */
  endpoint: string;
  /** `auto`: Hugr when the index says the schema is a Hugr schema. */
  flavor: 'auto' | 'hugr' | 'generic';
  config: GraphqlDataConfig;
  /**
   * Credentials of the source that are never sent with data requests but must never come back either if a server
   * echoes them: the discovery header values and the credentials in the schema endpoint's URL.
   */
  secrets?: readonly string[];
}

/**
 * Who is asking. On Streamable HTTP: the incoming request's bearer token (and role header); on stdio and the CLI:
 * each source's configured `data.token` and `data.role`. The discovery credentials are never part of it.
 */
export type DataCaller = { transport: 'http'; authorization?: string; headers: Readonly<Record<string, string | string[] | undefined>> } | { transport: 'local' };

export interface DataContext {
  sources: ReadonlyMap<string, DataSourceAccess>;
  caller: DataCaller;
  /** Applies a jq filter here (never on the server: Hugr's server-side jq can run other GraphQL). */
  jq?: (filter: string, input: unknown) => Promise<unknown>;
}

/** The data access of every GraphQL source of a workspace that has an endpoint to query. */
export function dataSourcesOf(config: WorkspaceConfig): Map<string, DataSourceAccess> {
  const out = new Map<string, DataSourceAccess>();
  for (const s of config.sources) {
    if (s.kind !== 'graphql') continue;
    const endpoint = s.data?.endpoint ?? s.endpoint;
    if (!endpoint) continue;
    const data = s.data ?? defaultDataConfig();
    const secrets = new Secrets(Object.values(s.headers ?? {}));
    if (s.endpoint) secrets.addUrl(s.endpoint);
    out.set(s.name, { source: s.name, endpoint: requestUrl(endpoint).href, flavor: s.flavor ?? 'auto', config: data, secrets: secrets.list() });
  }
  return out;
}

/** The identity headers a data request carries for this caller, or why there are none. */
export function identityHeaders(access: DataSourceAccess, caller: DataCaller): { headers: Record<string, string>; who: 'caller' | 'configured' | 'anonymous' } | { refused: string } {
  const headers: Record<string, string> = {};
  const roleHeader = access.config.role_header;
  if (caller.transport === 'http') {
    const auth = caller.authorization;
    const role = caller.headers[roleHeader.toLowerCase()];
    if (typeof role === 'string' && role !== '') headers[roleHeader] = role;
    if (auth && /^Bearer\s+\S/i.test(auth)) return { headers: { ...headers, authorization: auth }, who: 'caller' };
    if (access.config.allow_anonymous) return { headers, who: 'anonymous' };
    return {
      refused:
        `Data tools run as the caller, and this request carries no bearer token. Send \`Authorization: Bearer <token>\` with the MCP request` +
        ` (the service's own credentials are only for indexing), or set \`data.allow_anonymous: true\` for source "${access.source}" in sextant.yaml.`,
    };
  }
  if (access.config.role) headers[roleHeader] = access.config.role;
  if (access.config.token) return { headers: { ...headers, authorization: `Bearer ${access.config.token}` }, who: 'configured' };
  if (access.config.allow_anonymous) return { headers, who: 'anonymous' };
  if (access.config.token_unset?.length) {
    return {
      refused: `Data tools run as the caller: \`data.token\` of source "${access.source}" uses ${access.config.token_unset.map((v) => `\`${v}\``).join(', ')}, which this process's environment does not set. Set it where Sextant runs (the service's own credentials are only for indexing).`,
    };
  }
  return {
    refused:
      `Data tools run as the caller: set \`data.token\` for source "${access.source}" in sextant.yaml (e.g. \`token: \${HUGR_USER_TOKEN}\`), ` +
      'or serve over Streamable HTTP and send the caller\'s bearer token; the service\'s own credentials are only for indexing.',
  };
}
