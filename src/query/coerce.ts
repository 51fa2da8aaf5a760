import { closest } from '../search/similarity.js';
import { excerpt, fail } from './errors.js';

/**
 * Lossless-permissive input (DESIGN.md §1.2): every form that decodes to exactly one value is accepted, and
 * anything that cannot be decoded exactly is an error — never a guess.
 */

export function isBlank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : typeof value === 'string' ? `string ${excerpt(value)}` : `${typeof value} ${JSON.stringify(value)}`;
}

/** JSON text (`'{"a":1}'`, `'["x"]'`) decoded when the text is a JSON object or array. */
export function decodeJsonText(text: string): unknown {
  const trimmed = text.trim();
  if (!/^[[{]/.test(trimmed)) return undefined;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * A Python-style list literal of quoted strings: `['a', "b"]`. Parsed by a strict literal parser (single or
 * double quotes, backslash escapes, commas, optional trailing comma); anything else is not a literal.
 */
export function parsePythonStringList(text: string): string[] | undefined {
  const s = text.trim();
  if (!s.startsWith('[') || !s.endsWith(']')) return undefined;
  const out: string[] = [];
  let i = 1;
  const skipSpace = () => {
    while (i < s.length - 1 && /\s/.test(s[i]!)) i++;
  };
  skipSpace();
  while (i < s.length - 1) {
    const quote = s[i];
    if (quote !== "'" && quote !== '"') return undefined;
    i++;
    let value = '';
    let closed = false;
    while (i < s.length - 1) {
      const c = s[i]!;
      if (c === '\\') {
        const next = s[i + 1];
        const escapes: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"' };
        if (next === undefined || escapes[next] === undefined) return undefined;
        value += escapes[next];
        i += 2;
        continue;
      }
      if (c === quote) {
        closed = true;
        i++;
        break;
      }
      value += c;
      i++;
    }
    if (!closed) return undefined;
    out.push(value);
    skipSpace();
    if (i < s.length - 1) {
      if (s[i] !== ',') return undefined;
      i++;
      skipSpace();
    }
  }
  return out;
}

export function asObject(value: unknown, argument: string): Record<string, unknown> | undefined {
  if (isBlank(value)) return undefined;
  let v = value;
  if (typeof v === 'string') {
    v = decodeJsonText(v);
    if (v === undefined || Array.isArray(v)) fail({ code: 'invalid_argument', argument, message: `${argument} must be an object (or its JSON text), e.g. {"name": "Foo"}; got text that is not a JSON object.` });
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) fail({ code: 'invalid_argument', argument, message: `${argument} must be an object (or its JSON text); got ${describeType(value)}.` });
  return v as Record<string, unknown>;
}

/** A list of strings from a list, its JSON text, a Python-style list literal, or a lone string. */
export function asStringList(value: unknown, argument: string): string[] | undefined {
  if (isBlank(value)) return undefined;
  let v = value;
  if (typeof v === 'string') {
    const trimmed = v.trim();
    if (trimmed.startsWith('[')) {
      const decoded = decodeJsonText(trimmed);
      v = Array.isArray(decoded) ? decoded : parsePythonStringList(trimmed);
      if (v === undefined) fail({ code: 'invalid_argument', argument, message: `${argument}: ${excerpt(trimmed)} looks like a list but is neither JSON nor a list literal of quoted strings. Send a list, e.g. ["a", "b"].` });
    } else {
      v = [trimmed];
    }
  }
  if (!Array.isArray(v)) fail({ code: 'invalid_argument', argument, message: `${argument} must be a list of strings (or one string); got ${describeType(value)}.` });
  if (v.length === 0) fail({ code: 'invalid_argument', argument, message: `${argument} is an empty list, which would match nothing; give at least one value, or leave ${argument} out where it is optional.` });
  const out: string[] = [];
  for (const item of v) {
    if (typeof item !== 'string' || item.trim() === '') fail({ code: 'invalid_argument', argument, message: `${argument} must hold non-empty strings; got ${describeType(item)} in the list.` });
    out.push(item.trim());
  }
  return out;
}

export function asString(value: unknown, argument: string): string | undefined {
  if (isBlank(value)) return undefined;
  if (typeof value !== 'string') fail({ code: 'invalid_argument', argument, message: `${argument} must be a string; got ${describeType(value)}.` });
  return value.trim();
}

export function asInteger(value: unknown, argument: string, range: { min: number; max: number }): number | undefined {
  if (isBlank(value)) return undefined;
  let v = value;
  if (typeof v === 'string' && /^\s*-?\d+\s*$/.test(v)) v = Number(v);
  if (typeof v !== 'number' || !Number.isInteger(v)) fail({ code: 'invalid_argument', argument, message: `${argument} must be an integer; got ${describeType(value)}.` });
  if (v < range.min || v > range.max) fail({ code: 'out_of_range', argument, message: `${argument} must be between ${range.min} and ${range.max}; got ${v}.` });
  return v;
}

export function asNumber(value: unknown, argument: string): number | undefined {
  if (isBlank(value)) return undefined;
  let v = value;
  if (typeof v === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(v)) v = Number(v);
  if (typeof v !== 'number' || !Number.isFinite(v)) fail({ code: 'invalid_argument', argument, message: `${argument} must be a number; got ${describeType(value)}.` });
  return v;
}

export function asBoolean(value: unknown, argument: string): boolean | undefined {
  if (isBlank(value)) return undefined;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value.trim())) return value.trim().toLowerCase() === 'true';
  return fail({ code: 'invalid_argument', argument, message: `${argument} must be true or false; got ${describeType(value)}.` });
}

/** One of `values`; a case-insensitive spelling is accepted when it names exactly one value. */
export function asEnum<T extends string>(value: unknown, argument: string, values: readonly T[], what = 'value'): T | undefined {
  const s = asString(value, argument);
  if (s === undefined) return undefined;
  if ((values as readonly string[]).includes(s)) return s as T;
  const folded = values.filter((v) => v.toLowerCase() === s.toLowerCase());
  if (folded.length === 1) return folded[0];
  const suggestions = closest(s, values);
  return fail({
    code: what === 'kind' ? 'unknown_kind' : what === 'edge type' ? 'unknown_edge_type' : 'bad_enum_value',
    argument,
    message: `${argument}: unknown ${what} ${excerpt(s)}.${suggestions.length ? ` Did you mean ${suggestions.map((x) => JSON.stringify(x)).join(' or ')}?` : ''} Allowed: ${values.join(', ')}.`,
    allowed: [...values],
    ...(suggestions.length ? { did_you_mean: suggestions } : {}),
  });
}
