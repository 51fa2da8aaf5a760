import { createHash } from 'node:crypto';
import { identifierParts } from '../search/tokenize.js';
import type { NodeRecord, PropValue } from './types.js';

/**
 * What a node is embedded by, for semantic search: the text an agent would search it by — its name's words, what
 * it is, where it lives (service, module path), its description, signature and annotations — one short paragraph
 * per node. Which nodes are embedded, and from which properties, is the table below; a node of another kind, or
 * one the table passes over (a private method, a library type, a filter input field), has no text and no vector.
 *
 * Vectors are cached by the hash of this text (`embedHash`): a re-index embeds only nodes whose text changed.
 * Changing what a text says changes `EMBED_RECIPE`, so every vector is made again.
 */

export const EMBED_RECIPE = 'embed-text-4';
/** Longest text sent for one node: models cut their input anyway (all-MiniLM-L6-v2 at 256 tokens). */
const MAX_CHARS = 1200;
/** At most this many names of a list property (an enum's values) are written out. */
const MAX_LIST = 40;

type Recipe = (n: NodeRecord) => string | undefined;

const str = (v: PropValue | undefined): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);
const list = (v: PropValue | undefined): string[] => (Array.isArray(v) ? (v as unknown[]).filter((x): x is string => typeof x === 'string') : []);
/** An identifier as words: `getFinalPrice` → `get final price`. */
const words = (id: string): string => identifierParts(id).join(' ');
/** A qualified name's last segment (`a.b.Type` → `Type`, `a.b.Type#m(int)` → `Type`). */
const simpleType = (qn: string | undefined): string | undefined => qn?.split('#')[0]?.split('.').pop();
const sentence = (...parts: (string | undefined | false)[]): string => parts.filter((p): p is string => typeof p === 'string' && p !== '').join(' ');

const TYPE_KINDS = new Set(['class', 'interface', 'enum', 'record', 'annotation']);
/** Members that are not written in source (accessors, default constructors) say nothing their type does not. */
const SKIPPED_MEMBER_VISIBILITY = ['private', 'protected'];

const RECIPES: Record<string, Recipe> = {
  service: (n) => sentence(`service ${n.name}:`, words(n.name), list(n.props.modules).length ? `modules ${list(n.props.modules).join(', ')}` : undefined),
  symbol: (n) => {
    const p = n.props;
    if (p.resolved === false || p.synthetic !== undefined) return undefined;
    const symbolKind = str(p.symbol_kind) ?? 'symbol';
    const role = str(p.role);
    const annotations = list(p.annotations);
    const where = sentence(n.service ? `in service ${n.service}` : undefined, str(p.package) ? `package ${str(p.package)}` : undefined);
    if (TYPE_KINDS.has(symbolKind)) {
      return sentence(
        `${symbolKind} ${n.name}${role && role !== 'OTHER' ? ` (${role.toLowerCase()})` : ''}:`,
        `${words(n.name)}.`,
        str(p.declaring_type) ? `nested in ${simpleType(str(p.declaring_type))}.` : undefined,
        annotations.length ? `annotations ${annotations.join(', ')}.` : undefined,
        where,
      );
    }
    if (symbolKind !== 'method') return undefined;
    if (list(p.modifiers).some((m) => SKIPPED_MEMBER_VISIBILITY.includes(m))) return undefined;
    const owner = simpleType(str(p.declaring_type) ?? n.qualified_name);
    return sentence(
      `method ${owner ? `${owner}.` : ''}${str(p.signature) ?? n.name}:`,
      `${words(n.name)}${owner ? ` of ${words(owner)}` : ''}.`,
      str(p.return_type) ? `returns ${str(p.return_type)}.` : undefined,
      annotations.length ? `annotations ${annotations.join(', ')}.` : undefined,
      where,
    );
  },
  route: (n) => {
    const p = n.props;
    // Routes every service gets from its framework (Actuator) say nothing of what the service does.
    if (p.framework === 'actuator') return undefined;
    const handler = str(p.handler);
    const target = str(p.destination) ?? n.name;
    return sentence(
      `${str(p.protocol) && str(p.protocol) !== 'http' ? `${str(p.protocol)} listener of` : 'endpoint'} ${target}:`,
      words(target.replace(/[{}]/g, ' ')),
      handler ? `handled by ${simpleType(handler)}.${handler.split('#')[1]?.split('(')[0] ?? ''}` : undefined,
      n.service ? `in service ${n.service}` : undefined,
    );
  },
  client: (n) => {
    const p = n.props;
    return sentence(
      `HTTP call ${n.name}${str(p.target_service) ? ` to service ${str(p.target_service)}` : ''}:`,
      words(n.name.replace(/[{}]/g, ' ')),
      str(p.caller) ? `made by ${simpleType(str(p.caller))}.${str(p.caller)!.split('#')[1]?.split('(')[0] ?? ''}` : undefined,
      n.service ? `in service ${n.service}` : undefined,
    );
  },
  producer: (n) => {
    const p = n.props;
    const destination = str(p.destination) ?? n.name;
    return sentence(
      `${str(p.protocol) ?? 'message'} send to ${destination}:`,
      words(destination),
      str(p.caller) ? `sent by ${simpleType(str(p.caller))}.${str(p.caller)!.split('#')[1]?.split('(')[0] ?? ''}` : undefined,
      n.service ? `in service ${n.service}` : undefined,
    );
  },
  data_source: (n) => sentence(`data source ${n.name}${str(n.props.engine) ? ` (${str(n.props.engine)})` : ''}:`, words(n.name), str(n.props.description)),
  module: (n) => sentence(`module ${n.qualified_name}:`, words(n.qualified_name), str(n.props.description)),
  // Not its field names: a caller's role may hide some, and a vector made from them would rank by what the caller
  // may not see. Fields are embedded themselves, and `fields_query` ranks them inside a result.
  data_object: (n) => {
    const p = n.props;
    return sentence(
      `${str(p.object_kind) ?? 'table'} ${n.name}${n.module ? ` in module ${n.module}` : ''}${str(p.data_source) ? ` of data source ${str(p.data_source)}` : ''}:`,
      `${words(str(p.original_name) ?? n.name)}.`,
      str(p.description),
    );
  },
  function: (n) => {
    const p = n.props;
    const args = list(p.argument_names);
    return sentence(
      `${p.is_mutation === true ? 'mutation function' : 'function'} ${n.name}${n.module ? ` in module ${n.module}` : ''}:`,
      `${words(n.name)}.`,
      str(p.description),
      args.length ? `arguments ${args.join(', ')}.` : undefined,
      str(p.return_type) ? `returns ${str(p.return_type)}` : undefined,
    );
  },
  type: (n) => {
    const p = n.props;
    const kind = str(p.type_kind);
    // Input, scalar and Hugr's generated helper types (filters, aggregations, inputs) are how to ask, not what there is.
    if (p.builtin === true || p.resolved === false || kind === 'INPUT_OBJECT' || kind === 'SCALAR' || str(p.root_operation) || n.name.startsWith('_')) return undefined;
    if (str(p.hugr_type) && !['table', 'view', 'module'].includes(str(p.hugr_type)!)) return undefined;
    const values = list(p.enum_values);
    return sentence(`${(kind ?? 'type').toLowerCase()} type ${n.name}:`, `${words(n.name)}.`, str(p.description), values.length ? `values ${values.slice(0, MAX_LIST).join(', ')}` : undefined);
  },
  field: (n) => {
    const p = n.props;
    // Filter inputs, Hugr's generated query fields (aggregations, joins, function-call fields) and fields of its
    // generated types say how to ask, not what there is.
    if (p.parent_kind === 'INPUT_OBJECT' || str(p.hugr_type) || n.name.startsWith('_') || String(p.parent_type ?? '').startsWith('_') || String(p.type_name ?? '').startsWith('_') || list(p.directives).includes('aggregation_query')) return undefined;
    return sentence(
      `field ${n.qualified_name}${str(p.type_signature) ? ` (${str(p.type_signature)})` : ''}:`,
      `${words(n.name)} of ${words(String(p.parent_type ?? ''))}.`,
      str(p.description),
    );
  },
};

/** The text `node` is embedded by, or undefined when it is not embedded. */
export function embedTextOf(node: NodeRecord): string | undefined {
  const text = RECIPES[node.kind]?.(node);
  if (!text) return undefined;
  return text.length > MAX_CHARS ? text.slice(0, MAX_CHARS) : text;
}

/** The kinds the table embeds (some of their nodes). */
export const EMBEDDED_KINDS: readonly string[] = Object.keys(RECIPES).sort();

/** What a vector is cached by: the recipe and the text (the model is kept beside it). */
export function embedHash(text: string): string {
  return createHash('sha256').update(EMBED_RECIPE).update('\0').update(text).digest('base64url').slice(0, 32);
}
