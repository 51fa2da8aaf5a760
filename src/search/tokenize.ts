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
  for (const match of text.matchAll(WORD)) {
    const parts = identifierParts(match[0]);
    if (parts.length === 0) continue;
    if (parts.length > 1) out.push(parts.join(''));
    out.push(...parts);
  }
  return out;
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
  let term = TERM_CACHE.get(token);
  if (term !== undefined) return term;
  term = token.toLowerCase();
  if (/[^\x00-\x7f]/.test(term)) term = term.normalize('NFD').replace(/\p{M}/gu, '');
  if (term.length >= MIN_STEMMED && Buffer.byteLength(term) <= MAX_STEMMED_BYTES) term = stemmer(term);
  if (TERM_CACHE.size >= TERM_CACHE_MAX) TERM_CACHE.clear();
  TERM_CACHE.set(token, term);
  return term;
}

/** Tokens repeat across an estate's names, so their terms are remembered (bounded). */
const TERM_CACHE = new Map<string, string>();
const TERM_CACHE_MAX = 200_000;

/** `indexTokens` of a text as search terms. */
export function searchTerms(text: string | null | undefined): string[] {
  return indexTokens(text).map(searchTerm);
}
