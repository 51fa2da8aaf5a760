import { looksLikeNodeId } from '../../graph/ids.js';
import { HTTP_METHODS, pathPattern } from '../../graph/ontology/code.js';
import type { NodeRecord } from '../../graph/types.js';
import { asEnum, asString } from '../coerce.js';
import { limitHints, type Hint } from '../hints.js';
import { listEntry } from '../present.js';
import type { ToolContext, ToolDef } from '../tool.js';
import { nameSuggestions } from './absence.js';
import { patternAccepts } from '../../search/patterns.js';

const MAX_CANDIDATES = 20;

interface Tier {
  reason: string;
  score: number;
  lookup: (ctx: ToolContext, identifier: string, kinds: string[] | undefined) => Promise<NodeRecord[]>;
}


/** Lookups from most to least exact; the first tier with any match decides. */
const TIERS: Tier[] = [
  { reason: 'exact id', score: 1, lookup: async (ctx, s, kinds) => (looksLikeNodeId(s) ? (await ctx.store.getNodes([s])).filter((n) => !kinds || kinds.includes(n.kind)) : []) },
  { reason: 'exact qualified name', score: 0.95, lookup: (ctx, s, kinds) => ctx.store.nodesByName('qualified_name', s, { caseInsensitive: false, ...(kinds ? { kinds } : {}), limit: MAX_CANDIDATES + 1 }) },
  { reason: 'exact name', score: 0.9, lookup: (ctx, s, kinds) => ctx.store.nodesByName('name', s, { caseInsensitive: false, ...(kinds ? { kinds } : {}), limit: MAX_CANDIDATES + 1 }) },
  { reason: 'qualified name, ignoring case', score: 0.8, lookup: (ctx, s, kinds) => ctx.store.nodesByName('qualified_name', s, { caseInsensitive: true, ...(kinds ? { kinds } : {}), limit: MAX_CANDIDATES + 1 }) },
  { reason: 'name, ignoring case', score: 0.75, lookup: (ctx, s, kinds) => ctx.store.nodesByName('name', s, { caseInsensitive: true, ...(kinds ? { kinds } : {}), limit: MAX_CANDIDATES + 1 }) },
  { reason: 'route by method and path', score: 0.85, lookup: (ctx, s, kinds) => routesByPath(ctx, s, kinds) },
  { reason: 'route by destination', score: 0.85, lookup: (ctx, s, kinds) => routesByDestination(ctx, s, kinds) },
  { reason: 'end of qualified name', score: 0.6, lookup: (ctx, s, kinds) => ctx.store.nodesByQualifiedNameSuffix(s, { ...(kinds ? { kinds } : {}), limit: MAX_CANDIDATES + 1 }) },
];

/** Longer than any URL a server accepts: such an identifier is not a route, and matching it would only cost time. */
const MAX_ROUTE_IDENTIFIER = 8192;

/** `[service] [METHOD] /path`: a route as people write it, with any variable names or a concrete path. */
const ROUTE_IDENTIFIER = /^(?:(\S+)\s+)??(?:([A-Za-z]+)\s+)?(\/\S*)$/;

/**
 * Declared HTTP routes an identifier like `GET /owners/{id}`, `order-service GET /owners/42` or `/owners/{ownerId}`
 * names: same method (or any, when none is given), and a path whose pattern equals the identifier's or whose
 * regex accepts it as a concrete request path.
 */
async function routesByPath(ctx: ToolContext, identifier: string, kinds: string[] | undefined): Promise<NodeRecord[]> {
  if ((kinds && !kinds.includes('route')) || identifier.length > MAX_ROUTE_IDENTIFIER || !hasRouteProperty(ctx, 'path_pattern')) return [];
  const m = ROUTE_IDENTIFIER.exec(identifier.trim());
  if (!m) return [];
  const [, service, rawMethod, path] = m;
  const method = rawMethod?.toUpperCase();
  if (method && !(HTTP_METHODS as readonly string[]).includes(method)) return [];
  const pattern = pathPattern(path!);
  const predicates = [
    { property: 'protocol', op: 'in' as const, values: ['http'] },
    { property: 'declared', op: 'in' as const, values: [true] },
    ...(method && method !== 'ANY' ? [{ property: 'http_method', op: 'in' as const, values: [method, 'ANY'] }] : []),
    ...(service ? [{ property: 'service', op: 'in' as const, values: [service] }] : []),
  ];
  const { nodes } = await ctx.store.findNodes({ kinds: ['route'], predicates, limit: 2000, offset: 0 });
  const exact = nodes.filter((n) => n.props.path_pattern === pattern);
  if (exact.length) return exact;
  return nodes.filter((n) => typeof n.props.path_regex === 'string' && patternAccepts(n.props.path_regex, path!));
}

/** Listener routes of a topic, queue or destination, written bare (`orders.events`). */
async function routesByDestination(ctx: ToolContext, identifier: string, kinds: string[] | undefined): Promise<NodeRecord[]> {
  if ((kinds && !kinds.includes('route')) || /\s/.test(identifier.trim()) || !hasRouteProperty(ctx, 'destination')) return [];
  const { nodes } = await ctx.store.findNodes({ kinds: ['route'], predicates: [{ property: 'destination', op: 'in', values: [identifier.trim()] }], limit: MAX_CANDIDATES + 1, offset: 0 });
  return nodes;
}

/** Whether this index's ontology has routes with that property (an ontology without the code kinds has none). */
export function hasRouteProperty(ctx: ToolContext, property: string): boolean {
  return ctx.ontology.kind('route')?.properties.some((p) => p.name === property) ?? false;
}

/** The first tier with any match, and its matches. */
export async function lookupIdentifier(ctx: ToolContext, identifier: string, kinds: string[] | undefined): Promise<{ tier: Tier; found: NodeRecord[] } | undefined> {
  for (const tier of TIERS) {
    const found = await tier.lookup(ctx, identifier, kinds);
    if (found.length > 0) return { tier, found };
  }
  return undefined;
}

export const resolveTool: ToolDef = {
  name: 'resolve',
  title: 'Resolve a name to a node',
  description: (o) =>
    [
      'Map what a person or agent types (a name, a qualified name like `PullRequest.title`, an id, a route like `GET /owners/{id}`, `order-service GET /owners/42` or `/owners/{ownerId}`, a topic like `orders.events`) to node ids.',
      'Answers `status: one` with the node, `many` with ranked candidates and the reason each matched, or `none` with a diagnosis (did-you-mean). It never picks among several for you: narrow with `kind` or a more qualified identifier.',
      `Kinds: ${o.kindNames().join(', ')}.`,
    ].join('\n'),
  params: (o) => [
    { name: 'identifier', description: 'Name, qualified name or id to look up.', schema: { type: 'string', minLength: 1 }, required: true },
    { name: 'kind', description: 'Only consider nodes of this kind.', schema: { type: 'string', enum: o.kindNames() } },
  ],
  run: async (ctx, args) => {
    const identifier = asString(args.identifier, 'identifier')!;
    const kind = asEnum(args.kind, 'kind', ctx.ontology.kindNames(), 'kind');
    const kinds = kind ? [kind] : undefined;
    const match = await lookupIdentifier(ctx, identifier, kinds);
    if (match) {
      const { tier, found } = match;
      if (found.length === 1) {
        const node = found[0]!;
        return {
          ok: true,
          status: 'one',
          identifier,
          node: listEntry(ctx.ontology, node),
          reason: tier.reason,
          hints: limitHints([{ tool: 'describe', args: { id: node.id }, reason: `full record and edge counts of ${node.qualified_name}` }]),
        };
      }
      const truncated = found.length > MAX_CANDIDATES;
      const candidates = found.slice(0, MAX_CANDIDATES).map((n) => ({ node: listEntry(ctx.ontology, n), reason: tier.reason, score: tier.score }));
      const kindsSeen = [...new Set(found.map((n) => n.kind))];
      const hints: Hint[] = [];
      if (!kind && kindsSeen.length > 1) for (const k of kindsSeen.slice(0, 2)) hints.push({ tool: 'resolve', args: { identifier, kind: k }, reason: `only ${k} candidates` });
      hints.push({ tool: 'describe', args: { ids: found.slice(0, 5).map((n) => n.id) }, reason: 'compare the first candidates' });
      return { ok: true, status: 'many', identifier, candidates, truncated, hints: limitHints(hints) };
    }
    return noneAnswer(ctx, identifier, kind);
  },
};

async function noneAnswer(ctx: ToolContext, identifier: string, kind: string | undefined): Promise<Record<string, unknown>> {
  const hints: Hint[] = [];
  const absence: Record<string, unknown> = { reason: `nothing is named ${JSON.stringify(identifier)}${kind ? ` among ${kind} nodes` : ''}` };
  if (kind) {
    const other = await lookupIdentifier(ctx, identifier, undefined);
    if (other) {
      absence.other_kinds = other.found.slice(0, MAX_CANDIDATES).map((n) => listEntry(ctx.ontology, n));
      hints.push({ tool: 'resolve', args: { identifier }, reason: 'the name exists under another kind' });
    }
  }
  const last = identifier.split(/[.#/]/).filter(Boolean).pop() ?? identifier;
  const near = await nameSuggestions(ctx, last, kind ? [kind] : undefined);
  if (near.length) {
    absence.did_you_mean = near;
    hints.push({ tool: 'resolve', args: { identifier: near[0]!.name, ...(kind ? { kind } : {}) }, reason: `closest name (similarity ${near[0]!.similarity})` });
  }
  hints.push({ tool: 'search', args: { query: identifier, ...(kind ? { kinds: [kind] } : {}) }, reason: 'ranked text search instead of exact names' });
  return { ok: true, status: 'none', identifier, absence, hints: limitHints(hints) };
}
