import type { EmbeddingSpace, Predicate, TextHit, VectorHit } from '../../graph/store.js';
import type { NodeRecord } from '../../graph/types.js';
import { identifierParts, indexTokens, queryTerms } from '../../search/tokenize.js';
import { reciprocalRankFusion, RRF_K } from '../../search/vectors.js';
import { asBoolean, asEnum, asInteger, asNumber, asString, asStringList } from '../coerce.js';
import { fail } from '../errors.js';
import { compileFilter } from '../filters.js';
import { limitHints, type Hint } from '../hints.js';
import { listEntry, snippetOf } from '../present.js';
import { SourceReader } from '../source-text.js';
import { filterSchema, limitParam, stringListSchema, type ToolContext, type ToolDef } from '../tool.js';
import { nameSuggestions } from './absence.js';
import { queryEmbedder, type QueryEmbedder } from '../semantic.js';

/** Column weights: a term in the name says much more than one in a description. */
export const SEARCH_WEIGHTS = { name: 10, qualified_name: 3, text: 0.35 } as const;
/** Multiplier when the query's words are exactly the name's (or qualified name's) words (`pull requests` → `PullRequest`). */
const EXACT_NAME_BONUS = 2;
/** Up to this much extra for the share of the name's words the query covers, so `ReviewComment` beats `ReviewCommentEdge`. */
const NAME_COVERAGE_WEIGHT = 0.5;
const MAX_WINDOW = 200;
const MAX_OFFSET = MAX_WINDOW - 1;
/** In the any-term pass, a term matching at least this many nodes is too common to rank by alone. */
const COMMON_TERM_MATCHES = 5000;
export const SEARCH_MODES = ['lexical', 'semantic', 'hybrid'] as const;
type SearchMode = (typeof SEARCH_MODES)[number];

export const searchTool: ToolDef = {
  name: 'search',
  title: 'Ranked text search',
  description: (o) =>
    [
      'Ranked search, the one fuzzy tool: use it to locate, then `describe` / `neighbors` to inspect and walk. Lexical ranking is BM25 over identifier-aware tokens (camelCase, snake_case, dotted names split; whole identifiers kept) with priors by kind; when the index has embeddings, `mode` hybrid (the default then) fuses it with semantic (vector) ranking by reciprocal rank, so a question by intent ("how is an order\'s total computed") finds what its names do not say; `semantic` ranks by vectors alone. The answer says which mode ran.',
      'A code symbol\'s `snippet` is its signature read from the indexed file, after the first sentence of its doc comment (`/** … */`); `describe` gives the whole source.',
      'Nodes matching all terms rank before nodes matching some. `kinds` and `filter` narrow exactly (filter fields must apply to every kind searched). `explain: true` shows each score\'s components.',
      'To query the Hugr data objects and functions you find, read the MCP resource sextant://guide/hugr.',
      `Kinds: ${o.kindNames().join(', ')}.`,
    ].join('\n'),
  params: (o) => [
    { name: 'query', description: 'Words or identifiers, e.g. "pull request review comments" or "getOrderById".', schema: { type: 'string', minLength: 1 }, required: true },
    { name: 'kinds', description: 'Only these node kinds.', schema: stringListSchema({ type: 'string', enum: o.kindNames() }) },
    { name: 'filter', description: 'Exact conditions (fields must apply to every kind searched; pass `kinds` to use kind-specific fields).', schema: filterSchema(o) },
    limitParam(10, 50),
    { name: 'offset', description: `How many results to skip (search ranks at most ${MAX_WINDOW} results; past that, refine the query).`, schema: { type: 'integer', minimum: 0, maximum: MAX_OFFSET, default: 0 } },
    { name: 'explain', description: 'Include score components for each result (hybrid: each list\'s rank and score).', schema: { type: 'boolean', default: false } },
    { name: 'mode', description: '`lexical` (words and identifiers), `semantic` (meaning, by embeddings) or `hybrid` (both, fused). Default: hybrid when the index has embeddings, else lexical.', schema: { type: 'string', enum: [...SEARCH_MODES] } },
    { name: 'fields_query', description: 'For data_object and type results: rank each one\'s fields by this second query and return the best inside the result (`fields`), e.g. query "customer orders" with fields_query "revenue". Ranked the way `mode` ranks.', schema: { type: 'string', minLength: 1 } },
    { name: 'fields_limit', description: 'How many fields `fields_query` returns per result.', schema: { type: 'integer', minimum: 1, maximum: 50, default: 5 } },
    { name: 'min_score', description: 'Semantic and hybrid: leave out vector matches less similar to the query than this (cosine similarity, -1..1; unrelated texts score near 0, close ones above 0.5).', schema: { type: 'number', minimum: -1, maximum: 1 } },
  ],
  run: async (ctx, args) => {
    const o = ctx.ontology;
    const query = asString(args.query, 'query')!;
    const kindList = asStringList(args.kinds, 'kinds');
    const kinds = kindList ? [...new Set(kindList.map((k) => asEnum(k, 'kinds', o.kindNames(), 'kind')!))] : undefined;
    const { predicates, filter } = compileFilter(o, kinds ?? o.kindNames(), args.filter);
    const limit = asInteger(args.limit, 'limit', { min: 1, max: 50 }) ?? 10;
    const offset = asInteger(args.offset, 'offset', { min: 0, max: MAX_OFFSET }) ?? 0;
    const explain = asBoolean(args.explain, 'explain') ?? false;
    const asked = asEnum(args.mode, 'mode', SEARCH_MODES);
    const minScore = asNumber(args.min_score, 'min_score');
    if (minScore !== undefined && (minScore < -1 || minScore > 1)) fail({ code: 'out_of_range', argument: 'min_score', message: `min_score is a cosine similarity, between -1 and 1; got ${minScore}.` });
    if (minScore !== undefined && asked === 'lexical') fail({ code: 'invalid_argument', argument: 'min_score', message: 'min_score bounds the similarity of vector matches, and mode "lexical" has none: leave min_score out, or use mode "semantic" or "hybrid".' });
    const fieldsQuery = asString(args.fields_query, 'fields_query')?.trim() || undefined;
    const fieldsLimit = asInteger(args.fields_limit, 'fields_limit', { min: 1, max: 50 }) ?? 5;
    if (fieldsQuery !== undefined && kinds && !kinds.some((k) => FIELDED_KINDS.includes(k))) fail({ code: 'invalid_argument', argument: 'fields_query', message: `fields_query ranks the fields of ${FIELDED_KINDS.join(' and ')} results, and kinds ${JSON.stringify(kinds)} has neither: add one of them to kinds, or leave fields_query out.` });
    const terms = queryTerms(query);
    if (terms.length === 0 && asked !== 'semantic') fail({ code: 'invalid_argument', argument: 'query', message: 'query has no words or identifiers to search for.' });

    const window = Math.min(MAX_WINDOW, Math.max(50, (offset + limit) * 3));
    const semantic = await semanticSetup(ctx, query, asked);
    const mode = semantic.mode;
    const lexical = mode === 'semantic' ? undefined : await rank(ctx, terms, kinds, predicates, window, offset + limit + 1);
    const vectors =
      mode === 'lexical'
        ? undefined
        : (await ctx.store.searchVectors({ model: semantic.space!.model, vector: semantic.vector!, ...(kinds ? { kinds } : {}), predicates, limit: window })).filter((h) => minScore === undefined || h.similarity >= minScore);
    const ranked = { hits: fuse(mode, query, lexical?.hits ?? [], vectors ?? []) };
    const page = ranked.hits.slice(offset, offset + limit);
    const hasMore = ranked.hits.length > offset + limit;
    // A code symbol's snippet is its doc comment's first sentence and its signature, read from the indexed file.
    const reader = new SourceReader(ctx.store);
    const code = await Promise.all(page.map((h) => reader.snippet(h.hit.node)));
    const fieldRanker = fieldsQuery === undefined ? undefined : await fieldsRanker(ctx, fieldsQuery, mode, semantic, fieldsLimit);
    const fields = fieldRanker ? await Promise.all(page.map((h) => fieldRanker(h.hit.node))) : [];
    const results = page.map((h, i) => {
      const entry: Record<string, unknown> = { node: listEntry(o, h.hit.node), score: mode === 'hybrid' ? h.score : round(h.score), matched: h.matched };
      const snippet = code[i] ?? snippetOf(h.hit.node);
      if (snippet) entry.snippet = snippet;
      entry.why = h.why;
      if (fields[i]) entry.fields = fields[i];
      if (explain) entry.explain = h.explain;
      return entry;
    });
    const hints: (Hint | undefined)[] = [];
    const top = page[0]?.hit.node;
    if (top) hints.push({ tool: 'describe', args: { id: top.id }, reason: `full record of the top result, ${top.qualified_name}` });
    if (hasMore) hints.push({ tool: 'search', args: { query, ...(kinds ? { kinds } : {}), ...(Object.keys(filter).length ? { filter } : {}), ...(asked ? { mode: asked } : {}), ...(minScore !== undefined ? { min_score: minScore } : {}), limit, offset: offset + limit }, reason: 'next page' });
    const result: Record<string, unknown> = { ok: true, query, terms, mode, ...(lexical ? { match: lexical.mode } : {}), ...(vectors ? { semantic_matches: vectors.length } : {}), has_more: hasMore, results };
    if (semantic.advisories.length) result.advisories = semantic.advisories;
    if (results.length === 0) {
      result.absence =
        mode === 'semantic'
          ? { reason: minScore !== undefined ? `no node${kinds || predicates.length ? ' passing the kinds and filter' : ''} has a vector as similar to the query as min_score ${minScore}` : `no node${kinds || predicates.length ? ' passing the kinds and filter' : ''} has a vector` }
          : await searchAbsence(ctx, query, terms, kinds, predicates, offset, hints);
    }
    result.hints = limitHints(hints);
    return result;
  },
};

interface Ranked {
  hit: { node: NodeRecord };
  score: number;
  /** Nodes matching every term rank before those matching some, whatever their scores; `semantic`: by vector only. */
  matched: 'all_terms' | 'some_terms' | 'semantic';
  /** The query's words are exactly the name's. */
  exact?: boolean;
  why: string;
  explain: Record<string, unknown>;
}

interface Advisory {
  code: 'no_vectors' | 'embedding_failed' | 'vectors_incomplete';
  message: string;
}

/** Which mode runs, with the query's vector when one is needed; what stands in the way, as advisories. */
async function semanticSetup(ctx: ToolContext, query: string, asked: SearchMode | undefined): Promise<{ mode: SearchMode; space?: EmbeddingSpace; vector?: Float32Array; advisories: Advisory[] }> {
  const advisories: Advisory[] = [];
  if (asked === 'lexical') return { mode: 'lexical', advisories };
  const space = await ctx.store.embeddingSpace();
  if (!space || space.embedded === 0) {
    if (!asked) return { mode: 'lexical', advisories };
    const why = space ? `its last embedding pass made no vector${space.error ? ` (${space.error})` : ''}` : 'no embedding provider was configured when it was built';
    const message = `mode "${asked}" needs the index's embeddings, and it has none: ${why}. Add an \`embeddings:\` block to sextant.yaml (an OpenAI-compatible endpoint and model; see docs/semantic-search.md) and index again.`;
    if (asked === 'semantic') fail({ code: 'invalid_argument', argument: 'mode', message: `${message} Meanwhile, search with mode "lexical".`, hints: [{ tool: 'search', args: { query, mode: 'lexical' }, reason: 'the same search by words' }] });
    advisories.push({ code: 'no_vectors', message: `${message} These are lexical results.` });
    return { mode: 'lexical', advisories };
  }
  if (space.missing > 0) advisories.push({ code: 'vectors_incomplete', message: `${space.missing} of ${space.embedded + space.missing} embeddable nodes have no vector${space.error ? ` (${space.error})` : ''}: semantic matches cover the others. The next \`sextant index\` embeds the rest.` });
  try {
    const vector = await (ctx.embed ?? defaultEmbedder())(space, query);
    if (vector.length !== space.dimensions) throw new Error(`the endpoint gave ${vector.length} dimensions where the index holds ${space.dimensions}: has the model at ${space.endpoint} changed?`);
    return { mode: asked ?? 'hybrid', space, vector, advisories };
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    if (asked === 'semantic') fail({ code: 'upstream_error', argument: 'mode', message: `the query could not be embedded: ${why}. Search with mode "lexical" meanwhile.`, hints: [{ tool: 'search', args: { query, mode: 'lexical' }, reason: 'the same search by words' }] });
    advisories.push({ code: 'embedding_failed', message: `the query could not be embedded (${why}); these are lexical results.` });
    return { mode: 'lexical', advisories };
  }
}

/** Kinds whose results `fields_query` ranks the fields of. */
const FIELDED_KINDS = ['data_object', 'type'];

/**
 * Ranks a data object's or type's fields by a second query (the Hugr specification's nested field ranking): by
 * vectors, words or both as the search's mode does, over the fields the store holds for that type — through the
 * caller's view, so a field the caller cannot see is never ranked.
 */
async function fieldsRanker(ctx: ToolContext, fieldsQuery: string, mode: SearchMode, semantic: { space?: EmbeddingSpace }, limit: number): Promise<(node: NodeRecord) => Promise<Record<string, unknown>[] | undefined>> {
  const terms = queryTerms(fieldsQuery);
  let vector: Float32Array | undefined;
  if (mode !== 'lexical' && semantic.space) {
    try {
      vector = await (ctx.embed ?? defaultEmbedder())(semantic.space, fieldsQuery);
    } catch {
      vector = undefined; // the words still rank them
    }
  }
  const kindPriors = Object.fromEntries(ctx.ontology.kinds().map((k) => [k.def.name, k.def.searchPrior]));
  return async (node) => {
    const typeName = node.kind === 'data_object' ? node.props['type_name'] : node.kind === 'type' ? node.name : undefined;
    if (typeof typeName !== 'string') return undefined;
    const predicates: Predicate[] = [
      { property: 'source', op: 'in', values: [node.source] },
      { property: 'parent_type', op: 'in', values: [typeName] },
    ];
    const window = Math.max(limit * 3, 20);
    const [lexical, vectors] = await Promise.all([
      mode !== 'semantic' && terms.length ? ctx.store.searchText({ terms, mode: 'or', kinds: ['field'], predicates, weights: SEARCH_WEIGHTS, kindPriors, limit: window }) : Promise.resolve([]),
      vector ? ctx.store.searchVectors({ model: semantic.space!.model, vector, kinds: ['field'], predicates, limit: window }) : Promise.resolve([]),
    ]);
    const fused = reciprocalRankFusion([{ keys: lexical.map((h) => h.node.id) }, { keys: vectors.map((h) => h.node.id) }]);
    const byId = new Map([...lexical, ...vectors].map((h) => [h.node.id, h.node]));
    const similarity = new Map(vectors.map((v) => [v.node.id, v.similarity]));
    return [...fused]
      .sort(([a, x], [b, y]) => y - x || byId.get(a)!.name.localeCompare(byId.get(b)!.name))
      .slice(0, limit)
      .map(([id, score]) => {
        const f = byId.get(id)!;
        const sim = similarity.get(id);
        return { id, name: f.name, ...(typeof f.props['type_signature'] === 'string' ? { type: f.props['type_signature'] } : {}), score: round6(score), ...(sim !== undefined ? { similarity: round(sim) } : {}) };
      });
  };
}

let processEmbedder: QueryEmbedder | undefined;
function defaultEmbedder(): QueryEmbedder {
  return (processEmbedder ??= queryEmbedder());
}

/**
 * One ranked list from the lexical and vector lists. Hybrid: reciprocal-rank fusion, except that a node whose name is
 * exactly the query's words stays first (an identifier typed is not a question to reinterpret).
 */
function fuse(mode: SearchMode, query: string, lexical: readonly Ranked[], vectors: readonly VectorHit[]): Ranked[] {
  const semanticOnly = (v: VectorHit, rank: number): Ranked => ({
    hit: { node: v.node },
    score: v.similarity,
    matched: 'semantic',
    why: `semantic similarity ${round(v.similarity)}`,
    explain: { semantic: { rank, similarity: round(v.similarity) } },
  });
  if (mode === 'lexical') return [...lexical];
  if (mode === 'semantic') return vectors.map((v, i) => semanticOnly(v, i + 1));
  const fused = reciprocalRankFusion([{ keys: lexical.map((r) => r.hit.node.id) }, { keys: vectors.map((v) => v.node.id) }]);
  const lexicalRank = new Map(lexical.map((r, i) => [r.hit.node.id, i + 1]));
  const vectorRank = new Map(vectors.map((v, i) => [v.node.id, { rank: i + 1, hit: v }]));
  const out: Ranked[] = [];
  for (const r of lexical) {
    const v = vectorRank.get(r.hit.node.id);
    out.push({
      ...r,
      score: fused.get(r.hit.node.id)!,
      why: v ? `${r.why}; semantic similarity ${round(v.hit.similarity)}` : r.why,
      explain: { lexical: { rank: lexicalRank.get(r.hit.node.id), ...r.explain }, semantic: v ? { rank: v.rank, similarity: round(v.hit.similarity) } : null },
    });
  }
  vectors.forEach((v, i) => {
    if (lexicalRank.has(v.node.id)) return;
    out.push({ ...semanticOnly(v, i + 1), score: fused.get(v.node.id)!, explain: { lexical: null, semantic: { rank: i + 1, similarity: round(v.similarity) } } });
  });
  const typed = wordSet(query.split(/\s+/));
  const named = (r: Ranked): boolean => {
    if (r.exact) return true;
    const original = r.hit.node.props['original_name'];
    return sameSet(typed, wordSet([r.hit.node.name])) || (typeof original === 'string' && sameSet(typed, wordSet([original])));
  };
  const pinned = new Set(out.filter(named).map((r) => r.hit.node.id));
  for (const r of out) r.explain = { ...r.explain, rrf: { k: RRF_K, score: round6(r.score) }, exact_name_first: pinned.has(r.hit.node.id) };
  // Nodes named exactly what was typed come first, in the lexical order; then the fused order.
  const lexicalOrder = (r: Ranked) => lexicalRank.get(r.hit.node.id) ?? Number.MAX_SAFE_INTEGER;
  const order = (a: Ranked, b: Ranked) => {
    const pa = pinned.has(a.hit.node.id);
    const pb = pinned.has(b.hit.node.id);
    if (pa !== pb) return pa ? -1 : 1;
    if (pa && pb && lexicalOrder(a) !== lexicalOrder(b)) return lexicalOrder(a) - lexicalOrder(b);
    return b.score - a.score || a.hit.node.qualified_name.localeCompare(b.hit.node.qualified_name) || a.hit.node.id.localeCompare(b.hit.node.id);
  };
  return out.sort(order).map((r) => ({ ...r, score: round6(r.score) }));
}

/** The stemmed words of identifiers or text, as a set (`fetchCustomerDetails` → fetch, customer, detail). */
function wordSet(texts: readonly string[]): Set<string> {
  return new Set(texts.flatMap((t) => identifierParts(t)).map((w) => stem(w.toLowerCase())));
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size === 0 || a.size !== b.size) return false;
  for (const x of a) if (!b.has(x)) return false;
  return true;
}

function round6(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}

async function rank(ctx: ToolContext, terms: string[], kinds: string[] | undefined, predicates: Predicate[], window: number, needed: number): Promise<{ hits: Ranked[]; mode: 'all_terms' | 'some_terms' | 'all_terms+some_terms' | 'none' }> {
  const kindPriors = Object.fromEntries(ctx.ontology.kinds().map((k) => [k.def.name, k.def.searchPrior]));
  const base = { ...(kinds ? { kinds } : {}), predicates, weights: SEARCH_WEIGHTS, kindPriors, limit: window };
  const all = await ctx.store.searchText({ ...base, terms, mode: 'and' });
  let some: TextHit[] = [];
  // Matching any term is costly for common words, so it runs only when all terms do not fill the page.
  if (all.length < needed && terms.length > 1) {
    // A term that matches a large share of the graph says little on its own; leaving it out of the any-term pass
    // keeps that pass cheap. All terms still count in the all-terms pass above.
    const counts = await ctx.store.textMatchCounts(terms, COMMON_TERM_MATCHES);
    const rare = terms.filter((_, i) => counts[i]! < COMMON_TERM_MATCHES);
    if (rare.length > 0) {
      const seen = new Set(all.map((h) => h.node.id));
      some = (await ctx.store.searchText({ ...base, terms: rare, mode: 'or' })).filter((h) => !seen.has(h.node.id));
    }
  }
  const queryStems = new Set(terms.map(stem));
  const score = (h: TextHit, matchedAll: boolean): Ranked => {
    const nameStems = identifierParts(h.node.name).map(stem);
    const covered = nameStems.length ? nameStems.filter((p) => queryStems.has(p)).length / nameStems.length : 0;
    const sameWords = (stems: string[]) => stems.length === queryStems.size && stems.every((p) => queryStems.has(p));
    // A Hugr data object is also known by its name in its source's own schema (items for shop_items).
    const original = h.node.props['original_name'];
    const exact = sameWords(nameStems) || sameWords(identifierParts(h.node.qualified_name).map(stem)) || (typeof original === 'string' && sameWords(identifierParts(original).map(stem)));
    const bonus = (1 + NAME_COVERAGE_WEIGHT * covered) * (exact ? EXACT_NAME_BONUS : 1);
    const matched = matchedTerms(terms, h);
    return {
      hit: h,
      score: h.score * bonus,
      matched: matchedAll ? 'all_terms' : 'some_terms',
      exact,
      why: `${matchedAll ? 'all terms' : `${matched.length} of ${terms.length} terms`}${exact ? ', exact name' : ''}${matched.length ? ` (${matched.join(', ')})` : ''}`,
      explain: {
        bm25: { identifier: round(h.components.identifier), text: round(h.components.text) },
        weights: SEARCH_WEIGHTS,
        kind_prior: ctx.ontology.kind(h.node.kind)?.def.searchPrior ?? 1,
        name_coverage: round(covered),
        exact_name: exact,
        name_bonus: round(bonus),
        matched: matchedAll ? 'all_terms' : 'some_terms',
        score: round(h.score * bonus),
      },
    };
  };
  const byScore = (a: Ranked, b: Ranked) => b.score - a.score || a.hit.node.qualified_name.localeCompare(b.hit.node.qualified_name) || a.hit.node.id.localeCompare(b.hit.node.id);
  const hits = [...all.map((h) => score(h, true)).sort(byScore), ...some.map((h) => score(h, false)).sort(byScore)];
  const mode = all.length && some.length ? 'all_terms+some_terms' : all.length ? 'all_terms' : some.length ? 'some_terms' : 'none';
  return { hits, mode };
}

/** Which query terms the node's name or qualified name visibly contains (a readable approximation of the match). */
function matchedTerms(terms: string[], hit: TextHit): string[] {
  const tokens = new Set([...indexTokens(hit.node.name), ...indexTokens(hit.node.qualified_name)]);
  return terms.filter((t) => [...tokens].some((tok) => tok === t || stem(tok) === stem(t)));
}

/** A crude plural fold for comparing words of names and queries (`entries` ~ `entry`, `comments` ~ `comment`). */
function stem(word: string): string {
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  if (word.endsWith('s') && !word.endsWith('ss') && word.length > 3) return word.slice(0, -1);
  return word;
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

async function searchAbsence(ctx: ToolContext, query: string, terms: string[], kinds: string[] | undefined, predicates: Predicate[], offset: number, hints: (Hint | undefined)[]): Promise<Record<string, unknown>> {
  if (offset > 0) return { reason: `no results past offset ${offset}` };
  const absence: Record<string, unknown> = {};
  if (kinds || predicates.length) {
    const kindPriors = Object.fromEntries(ctx.ontology.kinds().map((k) => [k.def.name, k.def.searchPrior]));
    // Every term first (cheap, and what the search ranked first), then any term.
    const unrestricted = { terms, predicates: [], weights: SEARCH_WEIGHTS, kindPriors, limit: 50 };
    let unfiltered = await ctx.store.searchText({ ...unrestricted, mode: 'and' });
    if (!unfiltered.length && terms.length > 1) unfiltered = await ctx.store.searchText({ ...unrestricted, mode: 'or' });
    if (unfiltered.length) {
      const byKind: Record<string, number> = {};
      for (const h of unfiltered) byKind[h.node.kind] = (byKind[h.node.kind] ?? 0) + 1;
      absence.reason = `the words match ${unfiltered.length}${unfiltered.length === 50 ? '+' : ''} nodes, but none pass ${kinds ? 'the kinds' : ''}${kinds && predicates.length ? ' and ' : ''}${predicates.length ? 'the filter' : ''}`;
      absence.without_restrictions = byKind;
      hints.push({ tool: 'search', args: { query }, reason: 'the same search without kinds or filter' });
      return absence;
    }
  }
  absence.reason = `no indexed name, qualified name or description contains ${terms.length === 1 ? 'the term' : 'any of the terms'} ${terms.join(', ')}`;
  const near = await nameSuggestions(ctx, query.replace(/\s+/g, ''), kinds);
  const perTerm = near.length ? near : (await Promise.all(terms.map((t) => nameSuggestions(ctx, t, kinds, 2)))).flat();
  if (perTerm.length) {
    absence.did_you_mean = perTerm.slice(0, 5);
    hints.push({ tool: 'search', args: { query: perTerm[0]!.name }, reason: `closest indexed name (similarity ${perTerm[0]!.similarity})` });
  }
  return absence;
}
