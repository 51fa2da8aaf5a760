import { looksLikeNodeId } from '../graph/ids.js';
import type { NodeRecord } from '../graph/types.js';
import { asString, asStringList } from './coerce.js';
import { excerpt, fail } from './errors.js';
import { limitHints, MAX_HINTS, type Hint } from './hints.js';
import { stringListSchema, type ParamDef, type ToolContext } from './tool.js';
import { lookupIdentifier } from './tools/resolve.js';

/**
 * The identity contract every tool that takes nodes shares (DESIGN.md §2): a node is named by its id or, as a
 * lossless alias, by an exact qualified name that names exactly one node. Anything else is refused with the
 * candidates `resolve` finds for it, each as a hint that repeats the same call with that candidate's id.
 */

/** The `id` and `ids` parameters, declared alike by every tool that takes node ids. */
export function nodeIdParams(tool: string, max: number): ParamDef[] {
  return [
    { name: 'id', description: `One node: its id, or its exact qualified name. Pass \`id\` or \`ids\`, not both.`, schema: { type: 'string', minLength: 1 } },
    { name: 'ids', description: `Several nodes (at most ${max}): ids or exact qualified names. Pass \`id\` or \`ids\`, not both; ${tool} takes either.`, schema: stringListSchema() },
  ];
}

export interface NamedNodes {
  /** Which parameter named them. */
  argument: 'id' | 'ids';
  /** The ids, in the order given (one per given name). */
  ids: string[];
  /** The nodes found, in the order given. */
  nodes: NodeRecord[];
  /** Given ids that name no node (only with `partial`). */
  missing: string[];
}

/**
 * The nodes a tool call names through `id` or `ids`. Exactly one of the two must be given. With `partial`, ids
 * that name no node are returned as `missing` as long as one node is found; otherwise each must name a node.
 */
export async function namedNodes(ctx: ToolContext, tool: string, args: Record<string, unknown>, opts: { max: number; partial?: boolean }): Promise<NamedNodes> {
  const single = oneOrList(args.id);
  const many = asStringList(args.ids, 'ids');
  if (single !== undefined && many !== undefined) fail({ code: 'invalid_argument', argument: 'ids', message: `${tool} takes \`id\` (one node) or \`ids\` (several), not both: put them all in \`ids\`.` });
  if (single === undefined && many === undefined) {
    fail({ code: 'missing_argument', argument: 'id', message: `${tool} needs \`id\` (one node) or \`ids\` (several): node ids, or exact qualified names. Find them with \`resolve\`, \`search\` or \`find\`.` });
  }
  const argument = many ? 'ids' : 'id';
  const given = many ?? [single!];
  if (given.length > opts.max) fail({ code: 'out_of_range', argument, message: `${tool} takes at most ${opts.max} ids at once; got ${given.length}. Split the list.`, size: given.length, limit: opts.max, unit: 'items' });

  const byId = new Map((await ctx.store.getNodes(given.filter((g) => looksLikeNodeId(g) && ctx.ontology.kindOfId(g)))).map((n) => [n.id, n]));
  const ids: string[] = [];
  const nodes: NodeRecord[] = [];
  const missing: string[] = [];
  for (const [index, name] of given.entries()) {
    const node = byId.get(name) ?? (await byExactQualifiedName(ctx, tool, args, argument, given, index));
    if (node) {
      ids.push(node.id);
      nodes.push(node);
    } else missing.push(name);
  }
  if (missing.length && (!opts.partial || nodes.length === 0)) {
    const first = missing[0]!;
    fail({
      code: 'not_found',
      argument,
      message: `No node has id ${missing.slice(0, 5).map((m) => excerpt(m)).join(', ')}${missing.length > 5 ? ` (and ${missing.length - 5} more)` : ''}. Ids change only when what they name changes; look the name up again with \`resolve\`.`,
      hints: limitHints([{ tool: 'resolve', args: { identifier: first }, reason: 'if that is a name, look it up' }]),
    });
  }
  return { argument, ids, nodes, missing };
}

/** The one node an argument such as trace's `from` names: an id, an exact qualified name or, with `resolveForms`, anything `resolve` finds exactly one node for. */
export async function namedNode(ctx: ToolContext, tool: string, args: Record<string, unknown>, argument: string, opts: { resolveForms?: boolean } = {}): Promise<NodeRecord> {
  const given = asString(args[argument], argument)!;
  if (looksLikeNodeId(given) && ctx.ontology.kindOfId(given)) {
    const [node] = await ctx.store.getNodes([given]);
    if (node) return node;
  }
  const exact = await ctx.store.nodesByName('qualified_name', given, { caseInsensitive: false, limit: MAX_CANDIDATES + 1 });
  if (exact.length === 1) return exact[0]!;
  const retry = (id: string): Record<string, unknown> => ({ ...args, [argument]: id });
  if (exact.length > 1) ambiguous(tool, given, argument, exact, 'exact qualified name', retry);
  const match = await lookupIdentifier(ctx, given, undefined);
  if (opts.resolveForms && match?.matches.length === 1) return match.matches[0]!.node;
  refuse(tool, given, argument, match, retry, opts.resolveForms ?? false);
}

const MAX_CANDIDATES = 20;

/** A lone string, or a one-element list of one (the same value); a longer list belongs in `ids`. */
function oneOrList(value: unknown): string | undefined {
  if (Array.isArray(value)) {
    if (value.length !== 1) fail({ code: 'invalid_argument', argument: 'id', message: `\`id\` names one node; got a list of ${value.length}. Pass several as \`ids\`.` });
    return asString(value[0], 'id');
  }
  return asString(value, 'id');
}

/** The node of a given name that is not an id: an exact qualified name, or a teaching error. */
async function byExactQualifiedName(ctx: ToolContext, tool: string, args: Record<string, unknown>, argument: 'id' | 'ids', given: string[], index: number): Promise<NodeRecord | undefined> {
  const name = given[index]!;
  const exact = await ctx.store.nodesByName('qualified_name', name, { caseInsensitive: false, limit: MAX_CANDIDATES + 1 });
  if (exact.length === 1) return exact[0];
  // An id that names no node is reported as missing (describe lists them); a name is taught.
  if (exact.length === 0 && looksLikeNodeId(name) && ctx.ontology.kindOfId(name)) return undefined;
  const retry = (id: string): Record<string, unknown> =>
    argument === 'id' ? { ...args, id } : { ...args, ids: given.map((g, i) => (i === index ? id : g)) };
  if (exact.length > 1) ambiguous(tool, name, argument, exact, 'exact qualified name', retry);
  refuse(tool, name, argument, await lookupIdentifier(ctx, name, undefined), retry, false);
}

function label(n: NodeRecord): string {
  return `${n.kind} ${n.qualified_name}${n.service ? ` (${n.service})` : n.source ? ` (${n.source})` : ''}`;
}

/** Hints: `resolve` first (every candidate, with reasons), then the same call with each candidate's id. */
function candidateHints(given: string, candidates: { node: NodeRecord; reason: string }[], retry: (id: string) => Record<string, unknown>, tool: string): Hint[] {
  return limitHints([
    { tool: 'resolve', args: { identifier: given }, reason: 'see every candidate with its id' },
    ...candidates.slice(0, MAX_HINTS - 1).map((c) => ({ tool, args: retry(c.node.id), reason: `${label(c.node)}: ${c.reason}` })),
  ]);
}

function ambiguous(tool: string, given: string, argument: string, nodes: NodeRecord[], reason: string, retry: (id: string) => Record<string, unknown>): never {
  fail({
    code: 'ambiguous',
    argument,
    message: `${excerpt(given)} names ${nodes.length > MAX_CANDIDATES ? `more than ${MAX_CANDIDATES}` : nodes.length} nodes (${reason}): ${nodes.slice(0, 5).map(label).join('; ')}${nodes.length > 5 ? '; …' : ''}. ${tool} needs one: pass an id (the hints repeat this call with each).`,
    hints: candidateHints(given, nodes.map((node) => ({ node, reason })), retry, tool),
  });
}

function refuse(tool: string, given: string, argument: string, match: Awaited<ReturnType<typeof lookupIdentifier>>, retry: (id: string) => Record<string, unknown>, resolveForms: boolean): never {
  if (!match) {
    fail({
      code: 'not_found',
      argument,
      message: `Nothing is named ${excerpt(given)}: it is neither a node id nor a qualified name${resolveForms ? ', nor anything else `resolve` understands' : ''}. Use \`resolve\` (did-you-mean) or \`search\` to find the node.`,
      hints: limitHints([
        { tool: 'resolve', args: { identifier: given }, reason: 'did-you-mean for this name' },
        { tool: 'search', args: { query: given }, reason: 'ranked text search' },
      ]),
    });
  }
  const { matches } = match;
  if (resolveForms) {
    fail({
      code: 'ambiguous',
      argument,
      message: `${excerpt(given)} names ${matches.length > MAX_CANDIDATES ? `more than ${MAX_CANDIDATES}` : matches.length} nodes (${matches[0]!.reason}): ${matches.slice(0, 5).map((m) => label(m.node)).join('; ')}${matches.length > 5 ? '; …' : ''}. ${tool} needs one: pass an id (the hints repeat this call with each).`,
      hints: candidateHints(given, matches, retry, tool),
    });
  }
  const what = matches.length === 1 ? `\`resolve\` finds one node for it: ${label(matches[0]!.node)} (${matches[0]!.reason})` : `\`resolve\` finds ${matches.length > MAX_CANDIDATES ? `more than ${MAX_CANDIDATES}` : matches.length} candidates: ${matches.slice(0, 5).map((m) => label(m.node)).join('; ')}${matches.length > 5 ? '; …' : ''}`;
  fail({
    code: 'not_found',
    argument,
    message: `${excerpt(given)} is neither a node id nor an exact qualified name, which is what ${tool} takes. ${what}. The hints repeat this call with ${matches.length === 1 ? 'its id' : 'each candidate\'s id'}.`,
    hints: candidateHints(given, matches, retry, tool),
  });
}
