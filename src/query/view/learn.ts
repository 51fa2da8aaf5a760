import { createHash } from 'node:crypto';
import { buildClientSchema, getIntrospectionQuery, type IntrospectionQuery } from 'graphql';
import type { Store } from '../../graph/store.js';
import { identityHeaders, type DataCaller, type DataSourceAccess } from '../data/access.js';
import { sendGraphql } from '../data/http.js';
import { ToolError } from '../errors.js';
import { SchemaView } from './visibility.js';

/** How long a role's view is kept before it is learned again (a refresh of the source drops it at once). */
export const VIEW_TTL_MS = 5 * 60_000;
/** Views kept at most (per store, source and role or identity); the oldest go first. */
const MAX_VIEWS = 64;

/** Which view of a source an answer was made from, as answers report it. */
export interface ViewReport {
  source: string;
  /** `caller`: what the caller's role may see; `full`: everything indexed; `none`: nothing (no identity to ask with). */
  view: 'caller' | 'full' | 'none';
  role?: string;
  reason?: string;
}

export interface SourceView {
  report: ViewReport;
  /** Present for `caller`. */
  schema?: SchemaView;
}

const INTROSPECTION = getIntrospectionQuery({ descriptions: false });
/** Hugr names the caller's role; other servers do not, and their views are kept per identity instead. */
const WHO_AM_I = '{ function { core { auth { me { role } } } } }';

interface Cached {
  view: SourceView;
  expires: number;
  build: string;
}

const byRole = new Map<string, Cached>();
const roleOfIdentity = new Map<string, { role: string | undefined; expires: number; build: string }>();

function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  while (map.size > MAX_VIEWS) map.delete(map.keys().next().value as string);
}

/** Forgets every learned view (tests; a store rebuilt in place is also caught by its build stamp). */
export function forgetViews(): void {
  byRole.clear();
  roleOfIdentity.clear();
}

/**
 * The caller's view of a Hugr source, learned from the server with the caller's own identity (never the
 * discovery secret) and kept per role for VIEW_TTL_MS or until the source is indexed again. Without an identity
 * the full structure is shown only where `data.allow_anonymous` says so; otherwise nothing of the source is.
 */
export async function learnView(store: Store, access: DataSourceAccess, caller: DataCaller): Promise<SourceView> {
  const source = access.source;
  const identity = identityHeaders(access, caller);
  if ('refused' in identity) return { report: { source, view: 'none', reason: `no caller identity to ask the server what it may see: ${identity.refused}` } };
  if (identity.who === 'anonymous') return { report: { source, view: 'full', reason: 'no caller identity; data.allow_anonymous is true, so the whole indexed structure is shown' } };

  const info = (await store.sources()).find((s) => s.name === source);
  const build = `${info?.content_hash ?? ''}\u0000${info?.built_at ?? ''}`;
  const now = Date.now();
  const identityKey = `${store.location}\u0000${source}\u0000${createHash('sha256').update(JSON.stringify(Object.entries(identity.headers).sort())).digest('hex')}`;

  let known = roleOfIdentity.get(identityKey);
  if (!known || known.expires <= now || known.build !== build) {
    known = { role: await roleOf(access, caller), expires: now + VIEW_TTL_MS, build };
    remember(roleOfIdentity, identityKey, known);
  }
  const viewKey = known.role !== undefined ? `${store.location}\u0000${source}\u0000role:${known.role}` : identityKey;
  const hit = byRole.get(viewKey);
  if (hit && hit.expires > now && hit.build === build) return hit.view;

  let view: SourceView;
  try {
    const answer = await sendGraphql(access, caller, { query: INTROSPECTION });
    const raw = (answer.json as { data?: { __schema?: unknown } } | null)?.data?.__schema;
    if (!raw || typeof raw !== 'object') throw new Error('the server answered the introspection query without a schema');
    const schema = buildClientSchema({ __schema: raw } as IntrospectionQuery, { assumeValid: true });
    view = { report: { source, view: 'caller', ...(known.role !== undefined ? { role: known.role } : {}) }, schema: new SchemaView(schema) };
  } catch (err) {
    // Fails closed: an answer must never show what the caller's role may not see.
    const why = err instanceof ToolError ? err.body.message : (err as Error).message;
    return { report: { source, view: 'none', reason: `could not learn what the caller may see: ${why}` } };
  }
  remember(byRole, viewKey, { view, expires: now + VIEW_TTL_MS, build });
  return view;
}

async function roleOf(access: DataSourceAccess, caller: DataCaller): Promise<string | undefined> {
  try {
    const answer = await sendGraphql(access, caller, { query: WHO_AM_I });
    const role = (answer.json as { data?: { function?: { core?: { auth?: { me?: { role?: unknown } } } } } } | null)?.data?.function?.core?.auth?.me?.role;
    return typeof role === 'string' && role !== '' ? role : undefined;
  } catch {
    return undefined;
  }
}
