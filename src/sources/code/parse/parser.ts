import { createRequire } from 'node:module';
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
