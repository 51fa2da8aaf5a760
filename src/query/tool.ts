import type { Ontology } from '../graph/ontology/index.js';
import type { Store } from '../graph/store.js';
import type { DataContext } from './data/access.js';
import { closest } from '../search/similarity.js';
import { isBlank } from './coerce.js';
import { fail } from './errors.js';

export type JsonSchema = Record<string, unknown>;

export interface ToolContext {
  store: Store;
  ontology: Ontology;
  /** How data tools reach GraphQL endpoints, and as whom; absent where no workspace configures any. */
  data?: DataContext;
}

export interface ParamDef {
  name: string;
  description: string;
  schema: JsonSchema;
  required?: boolean;
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
    properties: Object.fromEntries(params.map((p) => [p.name, { ...p.schema, description: p.description }])),
    ...(required.length ? { required } : {}),
    additionalProperties: false,
  };
}

/** Rejects unknown arguments (with the nearest spelling) and missing required ones. Blank strings are absent. */
export function checkArguments(tool: ToolDef, ontology: Ontology, args: Record<string, unknown>): void {
  const params = tool.params(ontology);
  const names = params.map((p) => p.name);
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
