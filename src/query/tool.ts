import type { Ontology } from '../graph/ontology/index.js';
import type { Store } from '../graph/store.js';
import type { DataContext } from './data/access.js';
import type { QueryEmbedder } from './semantic.js';
import { closest } from '../search/similarity.js';
import { decodeJsonText, isBlank, parsePythonStringList } from './coerce.js';
import { excerpt, fail } from './errors.js';

export type JsonSchema = Record<string, unknown>;

export interface ToolContext {
  store: Store;
  ontology: Ontology;
  /** How data tools reach GraphQL endpoints, and as whom; absent where no workspace configures any. */
  data?: DataContext;
  /** How `search` embeds a query (absent: from the index's recorded endpoint and this process's environment). */
  embed?: QueryEmbedder;
}

export interface ParamDef {
  name: string;
  description: string;
  schema: JsonSchema;
  required?: boolean;
}

/**
 * How big one argument may be. Declared here once: `inputSchema` writes them into every tool's JSON Schema
 * (`maxLength`, `maxItems`, `maxProperties`), and `checkArguments` enforces the same numbers, anywhere inside
 * the argument, before a tool (or any did-you-mean) sees it.
 */
export interface InputLimits {
  /** Characters of any one string inside the argument (object keys included). */
  maxLength: number;
  /** Items of any one list, and keys of any one object, inside the argument. */
  maxItems: number;
  /** Characters of the whole argument as JSON (and of its JSON text, where it may be sent as text). */
  maxTotal: number;
}

/** Identifiers, names, kinds, enum values, filter values, search text; short lists; filters as objects. */
export const DEFAULT_LIMITS: InputLimits = { maxLength: 4096, maxItems: 500, maxTotal: 64 * 1024 };

/** A GraphQL document, its variables, a jq program: larger texts. */
const DOCUMENT_LIMITS: InputLimits = { maxLength: 256 * 1024, maxItems: 1000, maxTotal: 256 * 1024 };

/** Where a tool's parameter takes more (or less) than DEFAULT_LIMITS, keyed `tool.param`. */
const PARAM_LIMITS: Readonly<Record<string, Partial<InputLimits>>> = {
  'graphql_query.query': DOCUMENT_LIMITS,
  'graphql_query.variables': DOCUMENT_LIMITS,
  'graphql_query.jq': { maxLength: 16 * 1024, maxTotal: 16 * 1024 },
  'graphql_mutate.query': DOCUMENT_LIMITS,
  'graphql_mutate.variables': DOCUMENT_LIMITS,
  'graphql_mutate.jq': { maxLength: 16 * 1024, maxTotal: 16 * 1024 },
  'graphql_validate.query': DOCUMENT_LIMITS,
  'changes.diff': { maxLength: 4 * 1024 * 1024, maxItems: 1000, maxTotal: 4 * 1024 * 1024 },
  'field_values.filter': { maxLength: 16 * 1024, maxTotal: 64 * 1024 },
  'field_values.args': { maxLength: 16 * 1024, maxTotal: 64 * 1024 },
};

/** Argument names are short; a longer key is refused without a did-you-mean. */
export const MAX_ARGUMENT_NAME = 128;
/** How deep lists and objects may nest inside one argument. */
const MAX_DEPTH = 32;

function paramLimits(tool: ToolDef, param: ParamDef): InputLimits {
  return { ...DEFAULT_LIMITS, ...PARAM_LIMITS[`${tool.name}.${param.name}`] };
}

/** The parameter's schema with its limits written in: every string, list and free-form object inside it. */
function limitedSchema(schema: JsonSchema, limits: InputLimits, top: boolean): JsonSchema {
  const out: JsonSchema = { ...schema };
  const branches = Array.isArray(schema.anyOf) ? (schema.anyOf as JsonSchema[]) : undefined;
  // A string beside an object or list branch is that value's JSON text: it may be as long as the whole argument.
  const textForm = top && takesStructure(schema);
  if (branches) out.anyOf = branches.map((b) => (b.type === 'string' && textForm ? { ...limitedSchema(b, limits, false), maxLength: limits.maxTotal } : limitedSchema(b, limits, false)));
  if (schema.type === 'string') out.maxLength = Math.min(limits.maxLength, typeof schema.maxLength === 'number' ? schema.maxLength : Infinity);
  if (schema.type === 'array') out.maxItems = Math.min(limits.maxItems, typeof schema.maxItems === 'number' ? schema.maxItems : Infinity);
  if (schema.items && typeof schema.items === 'object') out.items = limitedSchema(schema.items as JsonSchema, limits, false);
  if (schema.type === 'object') {
    if (schema.properties && typeof schema.properties === 'object') {
      out.properties = Object.fromEntries(Object.entries(schema.properties as Record<string, JsonSchema>).map(([k, v]) => [k, limitedSchema(v, limits, false)]));
    }
    if (schema.additionalProperties !== false) out.maxProperties = limits.maxItems;
  }
  return out;
}

export interface ToolDef {
  name: string;
  title: string;
  description: (ontology: Ontology) => string;
  params: (ontology: Ontology) => ParamDef[];
  run: (ctx: ToolContext, args: Record<string, unknown>) => Promise<Record<string, unknown>>;
}

/** The tool's input JSON Schema, derived from its parameter declarations (and through them, the ontology). */
export function inputSchema(tool: ToolDef, ontology: Ontology): JsonSchema {
  const params = tool.params(ontology);
  const required = params.filter((p) => p.required).map((p) => p.name);
  return {
    type: 'object',
    properties: Object.fromEntries(params.map((p) => [p.name, { ...limitedSchema(p.schema, paramLimits(tool, p), true), description: p.description }])),
    ...(required.length ? { required } : {}),
    additionalProperties: false,
  };
}

/**
 * Rejects over-long values, unknown arguments (with the nearest spelling) and missing required ones. Blank
 * strings are absent. Sizes come first, so no did-you-mean or tool ever works on a huge value.
 */
export function checkArguments(tool: ToolDef, ontology: Ontology, args: Record<string, unknown>): void {
  const params = tool.params(ontology);
  const names = params.map((p) => p.name);
  for (const key of Object.keys(args)) {
    if (key.length > MAX_ARGUMENT_NAME && !names.includes(key)) {
      fail({
        code: 'unknown_argument',
        argument: excerpt(key, 40, false),
        message: `${tool.name} has no argument ${excerpt(key)}: argument names are at most ${MAX_ARGUMENT_NAME} characters. Arguments: ${names.join(', ')}.`,
        allowed: names,
        size: key.length,
        limit: MAX_ARGUMENT_NAME,
        unit: 'characters',
        excerpt: excerpt(key, undefined, false),
      });
    }
  }
  for (const p of params) {
    if (Object.hasOwn(args, p.name)) checkSize(args[p.name], p.name, paramLimits(tool, p), p);
  }
  for (const key of Object.keys(args)) {
    if (names.includes(key)) continue;
    const suggestions = closest(key, names);
    fail({
      code: 'unknown_argument',
      argument: key,
      message: `${tool.name} has no argument \`${key}\`.${suggestions.length ? ` Did you mean ${suggestions.map((s) => `\`${s}\``).join(' or ')}?` : ''} Arguments: ${names.join(', ')}.`,
      allowed: names,
      ...(suggestions.length ? { did_you_mean: suggestions } : {}),
    });
  }
  for (const p of params) {
    if (p.required && isBlank(args[p.name])) {
      fail({ code: 'missing_argument', argument: p.name, message: `${tool.name} needs \`${p.name}\`: ${p.description}` });
    }
  }
}

function codePoints(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** Characters as JSON Schema counts them (code points); the quick test first, since most strings are short. */
function tooLong(s: string, max: number): boolean {
  return s.length > max && codePoints(s) > max;
}

function tooBig(argument: string, what: string, size: number, limit: number, unit: 'characters' | 'items', shown: string | undefined, advice: string): never {
  return fail({
    code: 'out_of_range',
    argument,
    message: `${argument} is too long: ${what} of ${size} ${unit}${shown ? ` (${shown})` : ''}, over the limit of ${limit} ${unit}. ${advice}`,
    size,
    limit,
    unit,
    ...(shown ? { excerpt: shown } : {}),
  });
}

function advice(limits: InputLimits): string {
  return limits.maxLength > DEFAULT_LIMITS.maxLength
    ? 'Send a smaller document, or split the work into several calls.'
    : 'Identifiers, names and filter values are short: look a long name up by a part of it with `search`, or narrow with a prefix field.';
}

/** Every string, list and object inside one argument within its limits, depth-first; the first excess fails. */
function walkSize(value: unknown, path: string, limits: InputLimits, depth: number): void {
  if (typeof value === 'string') {
    if (tooLong(value, limits.maxLength)) tooBig(path, 'a string', codePoints(value), limits.maxLength, 'characters', excerpt(value, undefined, false), advice(limits));
    return;
  }
  if (value === null || typeof value !== 'object') return;
  if (depth >= MAX_DEPTH) fail({ code: 'out_of_range', argument: path, message: `${path} nests lists and objects more than ${MAX_DEPTH} levels deep.`, limit: MAX_DEPTH });
  if (Array.isArray(value)) {
    if (value.length > limits.maxItems) tooBig(path, 'a list', value.length, limits.maxItems, 'items', undefined, 'Split it over several calls.');
    value.forEach((item, i) => walkSize(item, `${path}[${i}]`, limits, depth + 1));
    return;
  }
  const keys = Object.keys(value);
  if (keys.length > limits.maxItems) tooBig(path, 'an object', keys.length, limits.maxItems, 'items', undefined, 'Send fewer keys.');
  for (const key of keys) {
    const at = `${path}.${key.length > 40 ? excerpt(key, 40, false) : key}`;
    if (tooLong(key, limits.maxLength)) tooBig(at, 'a key', codePoints(key), limits.maxLength, 'characters', excerpt(key, undefined, false), advice(limits));
    walkSize((value as Record<string, unknown>)[key], at, limits, depth + 1);
  }
}

/** Whether a parameter's schema takes an object or a list, so that a string may be that value's JSON text. */
function takesStructure(schema: JsonSchema): boolean {
  if (schema.type === 'object' || schema.type === 'array') return true;
  return Array.isArray(schema.anyOf) && (schema.anyOf as JsonSchema[]).some((b) => b.type === 'object' || b.type === 'array');
}

/**
 * One argument within its declared limits (see InputLimits), in every form it may come in: as a value, or as the
 * JSON text (or list literal) of one, whose decoded value is checked the same way.
 */
function checkSize(value: unknown, argument: string, limits: InputLimits, param: ParamDef): void {
  if (typeof value === 'string' && takesStructure(param.schema)) {
    if (tooLong(value, limits.maxTotal)) tooBig(argument, 'text', codePoints(value), limits.maxTotal, 'characters', excerpt(value, undefined, false), advice(limits));
    const trimmed = value.trim();
    if (/^[[{]/.test(trimmed)) {
      const decoded = decodeJsonText(trimmed) ?? parsePythonStringList(trimmed);
      if (decoded !== undefined && typeof decoded === 'object') walkSize(decoded, argument, limits, 0);
      return;
    }
    walkSize(value, argument, limits, 0);
    return;
  }
  walkSize(value, argument, limits, 0);
  if (value !== null && typeof value === 'object') {
    const total = JSON.stringify(value).length;
    if (total > limits.maxTotal) tooBig(argument, Array.isArray(value) ? 'a list' : 'an object', total, limits.maxTotal, 'characters', undefined, `${advice(limits)} (Size counted as JSON text.)`);
  }
}

export const stringListSchema = (items: JsonSchema = { type: 'string' }): JsonSchema => ({
  anyOf: [{ type: 'array', items, minItems: 1 }, { type: 'string' }],
});

export const limitParam = (def: number, max: number): ParamDef => ({
  name: 'limit',
  description: `Page size (default ${def}, at most ${max}).`,
  schema: { type: 'integer', minimum: 1, maximum: max, default: def },
});

export const offsetParam: ParamDef = {
  name: 'offset',
  description: 'How many results to skip (for the next page, use the previous offset + limit).',
  schema: { type: 'integer', minimum: 0, maximum: 100000, default: 0 },
};

/** JSON Schema of a `filter` object: the union of every filter field of `kinds`, each saying where it applies. */
export function filterSchema(ontology: Ontology, kinds?: readonly string[]): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const [name, { field, kinds: owners }] of ontology.allFilterFields()) {
    const applies = kinds ? owners.filter((k) => kinds.includes(k)) : owners;
    if (applies.length === 0) continue;
    let schema: JsonSchema;
    const scalar: JsonSchema =
      field.type === 'enum' ? { type: 'string', enum: [...(field.values ?? [])] }
      : field.type === 'boolean' ? { type: 'boolean' }
      : field.type === 'integer' ? { type: 'integer' }
      : field.type === 'number' ? { type: 'number' }
      : { type: 'string' };
    if (field.op === 'min' || field.op === 'max' || field.op === 'contains' || field.type === 'boolean') schema = scalar;
    else if (field.op === 'exclude') schema = { type: 'array', items: scalar, minItems: 1 };
    else schema = { anyOf: [scalar, { type: 'array', items: scalar, minItems: 1 }] };
    const everywhere = applies.length === ontology.kindNames().length;
    properties[name] = { ...schema, description: `${field.description}${everywhere ? '' : ` (kinds: ${applies.join(', ')})`}` };
  }
  return { type: 'object', properties, additionalProperties: false };
}
