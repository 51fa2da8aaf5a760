import { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';
import { Language as TsLanguage, Parser } from 'web-tree-sitter';
import type { Language } from './ir.js';

const require = createRequire(import.meta.url);

/** Where each grammar's wasm ships (inside its npm package; nothing is downloaded at run time). */
const GRAMMARS: Record<Language, string> = {
  java: 'tree-sitter-java/tree-sitter-java.wasm',
  kotlin: '@tree-sitter-grammars/tree-sitter-kotlin/tree-sitter-kotlin.wasm',
};

let initialised: Promise<void> | undefined;
const parsers = new Map<Language, Promise<Parser>>();

/**
 * Below this many files to parse, a process compiles the parsers with V8's baseline compiler only. Measured
 * round-robin on cold indexes (median CPU): train-ticket (507 files) 6.82 → 6.70 s, nav-familie-ef (866) 14.17 →
 * 12.88, hmpps-nomis-sync (1,268 Kotlin) 23.92 → 22.07; not measured past that, so larger estates keep the default.
 */
export const FEW_FILES = 2000;

/**
 * Compiles tree-sitter's WebAssembly (its runtime and the grammars) with V8's baseline compiler only (Liftoff), for a
 * process that parses few files: optimizing the grammars costs about a CPU second, during which the main thread
 * waits, and pays off only over thousands of files, if at all (measured here: 10 Kotlin files 1.8 → 0.5 CPU s, 50 Java
 * files 0.9 → 0.4; 1,268 Kotlin or 2,600 Java files parsed alone, the same either way). The same code runs either way, so the
 * facts are the same. Effective only before the first parser is made (a process-wide V8 flag); later, it changes nothing.
 */
export function compileParsersForFewFiles(): void {
  if (initialised) return;
  setFlagsFromString('--liftoff-only');
}

/** A parser for the language, created once per process (tree-sitter's runtime and grammars load in ~50 ms). */
export function parserFor(language: Language): Promise<Parser> {
  let parser = parsers.get(language);
  if (!parser) {
    initialised ??= Parser.init();
    parser = initialised.then(async () => {
      const lang = await TsLanguage.load(require.resolve(GRAMMARS[language]));
      const p = new Parser();
      p.setLanguage(lang);
      return p;
    });
    parsers.set(language, parser);
  }
  return parser;
}

export function languageOfPath(path: string): Language | undefined {
  if (path.endsWith('.java')) return 'java';
  if (path.endsWith('.kt')) return 'kotlin';
  return undefined;
}
