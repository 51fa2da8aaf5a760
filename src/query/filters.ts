import type { FilterField, Ontology } from '../graph/ontology/index.js';
import type { Predicate } from '../graph/store.js';
import { closest } from '../search/similarity.js';
import { asBoolean, asEnum, asNumber, asObject, isBlank } from './coerce.js';
import { excerpt, fail } from './errors.js';

/** Filter fields that apply to every one of `kinds`. */
export function commonFilterFields(ontology: Ontology, kinds: readonly string[]): Map<string, FilterField> {
  const [first, ...rest] = kinds.map((k) => ontology.kind(k)!.filterFields);
  const out = new Map<string, FilterField>();
  for (const [name, f] of first ?? new Map<string, FilterField>()) if (rest.every((m) => m.has(name))) out.set(name, f);
  return out;
}

function kindsWithField(ontology: Ontology, field: string): string[] {
  return ontology.kinds().filter((k) => k.filterFields.has(field)).map((k) => k.def.name);
}

function scalarList(raw: unknown, argument: string): unknown[] {
  if (Array.isArray(raw)) {
    if (raw.length === 0) fail({ code: 'invalid_argument', argument, message: `${argument}: an empty list matches nothing; leave the field out instead.` });
    return raw;
  }
  if (typeof raw === 'string' && raw.trim().startsWith('[')) {
    try {
      const decoded = JSON.parse(raw) as unknown;
      if (Array.isArray(decoded)) return scalarList(decoded, argument);
    } catch {
      /* a plain string that starts with [ */
    }
  }
  return [raw];
}

function stringValue(raw: unknown, argument: string, f: FilterField, fields: Map<string, FilterField>): string {
  if (typeof raw !== 'string' || raw.trim() === '') fail({ code: 'invalid_argument', argument, message: `${argument} takes a non-empty string${f.op === 'eq' || f.op === 'prefix' ? ' or a list of them' : ''}; got ${typeof raw === 'string' ? excerpt(raw) : Array.isArray(raw) ? 'a list' : raw !== null && typeof raw === 'object' ? 'an object' : String(raw)}.` });
  if (/[*?]/.test(raw)) {
    const prefixField = fields.has(`${f.property}_prefix`) ? `${f.property}_prefix` : undefined;
    const containsField = fields.has(`${f.property}_contains`) ? `${f.property}_contains` : undefined;
    const alternatives = [prefixField && `\`${prefixField}\` for "starts with"`, containsField && `\`${containsField}\` for "contains"`, '`search` for ranked text'].filter(Boolean);
    fail({
      code: 'wildcard_in_filter',
      argument,
      message: `${argument}: filters match exact values, so ${excerpt(raw)} would look for a literal * or ?. Use ${alternatives.join(', or ')}.`,
      allowed: [prefixField, containsField].filter((x): x is string => !!x),
    });
  }
  return raw;
}

/**
 * Turns a `filter` argument into store predicates for nodes of `kinds`. Every field must apply to every kind;
 * an unknown field, a field of another kind, a bad enum value or a wildcard is a teaching error.
 */
export function compileFilter(ontology: Ontology, kinds: readonly string[], rawFilter: unknown, argument = 'filter'): { predicates: Predicate[]; filter: Record<string, unknown> } {
  const filter = asObject(rawFilter, argument) ?? {};
  const fields = commonFilterFields(ontology, kinds);
  const predicates: Predicate[] = [];
  const normalized: Record<string, unknown> = {};
  const kindText = kinds.length === 1 ? `kind ${kinds[0]}` : `kinds ${kinds.join(', ')}`;
  for (const [name, raw] of Object.entries(filter).sort(([a], [b]) => a.localeCompare(b))) {
    const arg = `${argument}.${name}`;
    if (isBlank(raw)) continue;
    const f = fields.get(name);
    if (!f) {
      const allowed = [...fields.keys()].sort();
      const owners = kindsWithField(ontology, name);
      if (owners.length > 0) {
        fail({
          code: 'inapplicable_field',
          argument: arg,
          message: `Filter field \`${name}\` does not apply to ${kindText} (it applies to ${owners.join(', ')}). Fields that apply: ${allowed.join(', ')}.`,
          allowed,
        });
      }
      const suggestions = closest(name, allowed);
      fail({
        code: 'unknown_field',
        argument: arg,
        message: `Unknown filter field \`${name}\` for ${kindText}.${suggestions.length ? ` Did you mean ${suggestions.map((s) => `\`${s}\``).join(' or ')}?` : ''} Fields that apply: ${allowed.join(', ')}.`,
        allowed,
        ...(suggestions.length ? { did_you_mean: suggestions } : {}),
      });
    }
    switch (f.op) {
      case 'eq': {
        if (f.type === 'boolean') {
          const b = asBoolean(raw, arg)!;
          predicates.push({ property: f.property, op: 'in', values: [b] });
          normalized[name] = b;
        } else if (f.type === 'integer' || f.type === 'number') {
          const values = scalarList(raw, arg).map((v) => asNumber(v, arg)!);
          predicates.push({ property: f.property, op: 'in', values });
          normalized[name] = values.length === 1 ? values[0] : values;
        } else if (f.type === 'enum') {
          const values = scalarList(raw, arg).map((v) => asEnum(v, arg, f.values ?? [])!);
          predicates.push({ property: f.property, op: 'in', values });
          normalized[name] = values.length === 1 ? values[0] : values;
        } else {
          const values = scalarList(raw, arg).map((v) => stringValue(v, arg, f, fields));
          predicates.push(f.type === 'string_list' ? { property: f.property, op: 'has_any', values } : { property: f.property, op: 'in', values });
          normalized[name] = values.length === 1 ? values[0] : values;
        }
        break;
      }
      case 'prefix': {
        const values = scalarList(raw, arg).map((v) => stringValue(v, arg, f, fields));
        predicates.push({ property: f.property, op: 'prefix', values });
        normalized[name] = values.length === 1 ? values[0] : values;
        break;
      }
      case 'contains': {
        const value = stringValue(raw, arg, f, fields);
        predicates.push({ property: f.property, op: 'contains', value });
        normalized[name] = value;
        break;
      }
      case 'exclude': {
        const values = scalarList(raw, arg).map((v) => asEnum(v, arg, f.values ?? [])!);
        predicates.push({ property: f.property, op: 'not_in', values });
        normalized[name] = values;
        break;
      }
      case 'min':
      case 'max': {
        const value = asNumber(raw, arg)!;
        predicates.push({ property: f.property, op: f.op === 'min' ? 'gte' : 'lte', value });
        normalized[name] = value;
        break;
      }
    }
  }
  return { predicates, filter: normalized };
}
