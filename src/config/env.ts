/** `${VAR}` / `${VAR:-default}` expansion for config values. Never reports the text it expands. */

export type Env = Record<string, string | undefined>;

export type Expansion =
  | { ok: true; value: string }
  /** `unset`: variables referenced without a default that the environment does not define (in order, once each). */
  | { ok: false; unset: string[]; syntax?: undefined }
  /** `syntax`: what is malformed, phrased without quoting the template. */
  | { ok: false; syntax: string; unset?: undefined };

const VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Expands `${VAR}` (the variable's value; an error when unset) and `${VAR:-default}` (the default when the
 * variable is unset or empty, as in POSIX shells). `$${` stands for a literal `${`; a `$` not followed by `{`
 * is kept as is.
 */
export function expandEnv(template: string, env: Env): Expansion {
  let out = '';
  const unset: string[] = [];
  let i = 0;
  while (i < template.length) {
    const dollar = template.indexOf('$', i);
    if (dollar < 0) {
      out += template.slice(i);
      break;
    }
    out += template.slice(i, dollar);
    if (template.startsWith('$${', dollar)) {
      out += '${';
      i = dollar + 3;
      continue;
    }
    if (template[dollar + 1] !== '{') {
      out += '$';
      i = dollar + 1;
      continue;
    }
    const close = template.indexOf('}', dollar + 2);
    if (close < 0) {
      return { ok: false, syntax: '`${` is never closed by `}`' };
    }
    const body = template.slice(dollar + 2, close);
    const sep = body.indexOf(':-');
    const name = sep < 0 ? body : body.slice(0, sep);
    if (!VAR_NAME.test(name)) {
      const shown = /^[A-Za-z_][A-Za-z0-9_]*/.exec(body)?.[0];
      return {
        ok: false,
        syntax: shown
          ? `\`\${${shown}…}\` is not \`\${VAR}\` or \`\${VAR:-default}\``
          : 'a `${…}` does not start with a variable name (letters, digits and `_`, not starting with a digit)',
      };
    }
    const value = env[name];
    if (sep >= 0) {
      out += value === undefined || value === '' ? body.slice(sep + 2) : value;
    } else if (value === undefined) {
      if (!unset.includes(name)) unset.push(name);
    } else {
      out += value;
    }
    i = close + 1;
  }
  return unset.length > 0 ? { ok: false, unset } : { ok: true, value: out };
}
