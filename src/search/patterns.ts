import { createRequire } from 'node:module';
import type { RE2JS as RE2JSType } from 're2js';

/** re2js, loaded by the first pattern compiled: most queries compile none. */
let re2: typeof RE2JSType | undefined;
const loadRe2 = (): typeof RE2JSType => (re2 ??= (createRequire(import.meta.url)('re2js') as { RE2JS: typeof RE2JSType }).RE2JS);

/**
 * Regular expressions written by someone else — in the indexed source (a Kafka `topicPattern`, a path variable's
 * `{id:[0-9]+}`) or by a caller — matched in time linear in the text, never by a backtracking engine: a pattern
 * like `(a+)+$` must not stall the indexer or the server. The dialect is RE2/J's, which is java.util.regex
 * without backreferences, lookaround, possessive quantifiers and atomic groups; a pattern using those (or an
 * invalid one) cannot be evaluated and says why.
 */
export type CompiledPattern = { readonly accepts: (text: string) => boolean } | { readonly error: string };

/** Enough for every distinct pattern of a large estate; a long-running server never grows past it. */
const CACHE_LIMIT = 10_000;
const cache = new Map<string, CompiledPattern>();

/** The pattern compiled once for whole-text matching (as Java's `Pattern.matches`), or why it cannot be. */
export function compilePattern(pattern: string): CompiledPattern {
  let compiled = cache.get(pattern);
  if (!compiled) {
    compiled = compileUncached(pattern);
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
    cache.set(pattern, compiled);
  }
  return compiled;
}

function compileUncached(pattern: string): CompiledPattern {
  try {
    const re = loadRe2().compile(pattern);
    return { accepts: (text) => re.testExact(text) };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

/** Whether the pattern accepts the whole text; false for a pattern that cannot be evaluated. */
export function patternAccepts(pattern: string, text: string): boolean {
  const compiled = compilePattern(pattern);
  return 'accepts' in compiled && compiled.accepts(text);
}

/** Literal text as a pattern that matches exactly it (valid for RE2 and JavaScript alike). */
export function quotePattern(text: string): string {
  return text.replace(/[.*+?^$()|[\]{}\\]/g, '\\$&');
}
