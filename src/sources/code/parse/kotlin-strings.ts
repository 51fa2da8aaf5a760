/**
 * Kotlin 2.2 multi-dollar strings (`$$"${spring.key}"`, `$$"""…"""`): a run of N dollars before the quote means
 * only N dollars start a template; fewer are literal text. The grammar predates them, and a file that uses one
 * fails to parse from there on, so they are rewritten into the strings every Kotlin version reads: the prefix
 * dropped, literal dollars escaped (`\$`, or `${'$'}` in a raw string, which has no escapes), N dollars made one.
 * Newlines are never added or removed, so every line stays where it was.
 */
export function rewriteMultiDollarStrings(text: string): string {
  if (!/\$\$+"/.test(text)) return text;
  let out = '';
  let i = 0;
  const n = text.length;

  const identStart = (c: string | undefined): boolean => c !== undefined && /[A-Za-z_`]/.test(c);

  /** Copies code from `i` until an unmatched `}` (inside a template) or the end; returns with `i` at that brace. */
  const code = (inTemplate: boolean): void => {
    let depth = 0;
    while (i < n) {
      const c = text[i]!;
      if (c === '/' && text[i + 1] === '/') {
        const end = text.indexOf('\n', i);
        const stop = end < 0 ? n : end;
        out += text.slice(i, stop);
        i = stop;
      } else if (c === '/' && text[i + 1] === '*') {
        let nest = 0;
        const start = i;
        while (i < n) {
          if (text[i] === '/' && text[i + 1] === '*') {
            nest++;
            i += 2;
          } else if (text[i] === '*' && text[i + 1] === '/') {
            nest--;
            i += 2;
            if (nest === 0) break;
          } else i++;
        }
        out += text.slice(start, i);
      } else if (c === "'") {
        const start = i++;
        while (i < n && text[i] !== "'" && text[i] !== '\n') i += text[i] === '\\' ? 2 : 1;
        i = Math.min(n, i + 1);
        out += text.slice(start, i);
      } else if (c === '$' && text[i + 1] === '$' && (i === 0 || !/[\w$]/.test(text[i - 1]!))) {
        let dollars = 0;
        while (text[i + dollars] === '$') dollars++;
        if (text[i + dollars] === '"') {
          i += dollars;
          string(dollars);
        } else {
          out += text.slice(i, i + dollars);
          i += dollars;
        }
      } else if (c === '"') string(1);
      else if (c === '{') {
        depth++;
        out += c;
        i++;
      } else if (c === '}') {
        if (inTemplate && depth === 0) return;
        depth--;
        out += c;
        i++;
      } else {
        out += c;
        i++;
      }
    }
  };

  /** A string literal at `i` (its opening quote) whose templates start with `dollars` dollars. */
  const string = (dollars: number): void => {
    const raw = text.startsWith('"""', i);
    const quote = raw ? '"""' : '"';
    out += quote;
    i += quote.length;
    while (i < n) {
      if (raw ? text.startsWith('"""', i) : text[i] === '"') {
        // A raw string ends at the last of a run of quotes.
        let end = i + quote.length;
        if (raw) while (text[end] === '"') end++;
        out += text.slice(i, end);
        i = end;
        return;
      }
      const c = text[i]!;
      if (!raw && c === '\\') {
        out += text.slice(i, i + 2);
        i += 2;
      } else if (c === '$') {
        let run = 0;
        while (text[i + run] === '$') run++;
        const after = text[i + run];
        const templated = after === '{' || identStart(after);
        const escaped = raw ? "${'$'}" : '\\$';
        if (!templated || run < dollars) {
          // Literal dollars: as written in an ordinary string, escaped in a multi-dollar one.
          out += dollars === 1 ? text.slice(i, i + run) : escaped.repeat(run);
          i += run;
          continue;
        }
        // The dollars before the last `dollars` of the run are literal; those start one template.
        out += dollars === 1 ? text.slice(i, i + run) : `${escaped.repeat(run - dollars)}$`;
        i += run;
        if (text[i] === '{') {
          out += '{';
          i++;
          code(true);
          if (text[i] === '}') {
            out += '}';
            i++;
          }
        }
      } else if (!raw && c === '\n') {
        // An unterminated string: leave the rest to the grammar.
        return;
      } else {
        out += c;
        i++;
      }
    }
  };

  code(false);
  return out;
}
