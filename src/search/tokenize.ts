import { stemmer } from 'stemmer';

/**
 * Identifier-aware tokens. `getOrderById` → `getorderbyid get order by id`; `pull_request.review-comments`
 * → its parts plus each whole identifier. The indexed text and the query go through the same splitter, and
 * `searchTerm` then folds plurals and tenses on both sides, the one place both stores take their terms from.
 */

const WORD = /[\p{L}\p{N}_$]+(?:[.\-/#:][\p{L}\p{N}_$]+)*/gu;

/** Parts of one identifier: camelCase, PascalCase with acronyms, snake_case, dotted, dashed and path segments. */
export function identifierParts(identifier: string): string[] {
  const parts: string[] = [];
  for (const segment of identifier.split(/[^\p{L}\p{N}]+/u)) {
    if (!segment) continue;
    for (const p of segmentParts(segment)) parts.push(p);
  }
  return parts;
}

/** Segments repeat across an estate's names (packages, type names), so their parts are remembered (bounded). */
const SEGMENT_CACHE = new Map<string, readonly string[]>();
const SEGMENT_CACHE_MAX = 100_000;

function segmentParts(segment: string): readonly string[] {
  let parts = SEGMENT_CACHE.get(segment);
  if (parts) return parts;
  parts = segment
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
    .split(' ')
    .filter((p) => p)
    .map((p) => p.toLowerCase());
  if (SEGMENT_CACHE.size >= SEGMENT_CACHE_MAX) SEGMENT_CACHE.clear();
  SEGMENT_CACHE.set(segment, parts);
  return parts;
}

/** Tokens to index for a text: each identifier whole (separators removed) and its parts. */
export function indexTokens(text: string | null | undefined): string[] {
  if (!text) return [];
  const out: string[] = [];
  for (const match of text.matchAll(WORD)) for (const token of identifierTokens(match[0])) out.push(token);
  return out;
}

/** One identifier's tokens: the whole (separators removed, when it has several parts), then its parts. */
function identifierTokens(identifier: string): readonly string[] {
  const parts = identifierParts(identifier);
  return parts.length > 1 ? [parts.join(''), ...parts] : parts;
}

const STOP_WORDS = new Set(['a', 'an', 'and', 'are', 'as', 'at', 'for', 'from', 'how', 'in', 'is', 'of', 'on', 'or', 'the', 'to', 'what', 'where', 'which', 'who', 'with']);

/** Terms of a search query: identifier parts, without duplicates, stop words dropped when others remain. */
export function queryTerms(query: string): string[] {
  const parts: string[] = [];
  for (const match of query.matchAll(WORD)) parts.push(...identifierParts(match[0]));
  const unique = [...new Set(parts)];
  const content = unique.filter((t) => !STOP_WORDS.has(t));
  return content.length > 0 ? content : unique;
}

/** Porter's algorithm leaves shorter words alone, and (as SQLite's porter tokenizer did) longer ones: identifiers. */
const MIN_STEMMED = 3;
const MAX_STEMMED_BYTES = 64;

/**
 * The term a token is indexed and searched under: diacritics folded (`måned` → `maned`) and the Porter stem
 * (`services` → `servic`). Both stores index and match these terms, so their matches and BM25 statistics agree.
 */
export function searchTerm(token: string): string {
  // Past the stemming limit in characters, it is past it in bytes too: a long token (a whole qualified identifier,
  // most of them unique) is only folded, and not kept, so it does not push out the terms that do repeat.
  if (token.length > MAX_STEMMED_BYTES) return foldDiacritics(token.toLowerCase());
  let term = TERM_CACHE.get(token);
  if (term !== undefined) return term;
  term = foldDiacritics(token.toLowerCase());
  if (term.length >= MIN_STEMMED && Buffer.byteLength(term) <= MAX_STEMMED_BYTES) term = stemmer(term);
  if (TERM_CACHE.size >= TERM_CACHE_MAX) TERM_CACHE.clear();
  TERM_CACHE.set(token, term);
  return term;
}

function foldDiacritics(text: string): string {
  return /[^\x00-\x7f]/.test(text) ? text.normalize('NFD').replace(/\p{M}/gu, '') : text;
}

/** Tokens repeat across an estate's names, so their terms are remembered (bounded). */
const TERM_CACHE = new Map<string, string>();
const TERM_CACHE_MAX = 200_000;

/** `indexTokens` of a text as search terms. */
export function searchTerms(text: string | null | undefined): string[] {
  if (!text) return [];
  const out: string[] = [];
  for (const match of text.matchAll(WORD)) for (const term of identifierTerms(match[0])) out.push(term);
  return out;
}

/**
 * An identifier's search terms. A node's qualified name repeats its package and its type's name, and its members'
 * parameter types repeat across the estate: three identifiers in four of an estate's names were seen before.
 */
function identifierTerms(identifier: string): readonly string[] {
  let terms = IDENTIFIER_TERMS.get(identifier);
  if (terms) return terms;
  terms = identifierTokens(identifier).map(searchTerm);
  if (IDENTIFIER_TERMS.size >= IDENTIFIER_TERMS_MAX) IDENTIFIER_TERMS.clear();
  IDENTIFIER_TERMS.set(identifier, terms);
  return terms;
}

const IDENTIFIER_TERMS = new Map<string, readonly string[]>();
const IDENTIFIER_TERMS_MAX = 100_000;
