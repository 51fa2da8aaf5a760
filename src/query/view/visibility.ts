import { getNamedType, isInputObjectType, isInterfaceType, isObjectType, type GraphQLSchema } from 'graphql';
import type { NodeRecord, PropValue } from '../../graph/types.js';

/** The GraphQL node kinds a caller's view governs (code nodes are never filtered). */
export const VIEWED_KINDS: ReadonlySet<string> = new Set(['module', 'data_source', 'data_object', 'function', 'type', 'field']);

/**
 * What one caller may see of a GraphQL source: the schema the server showed that caller (its introspection under
 * the caller's identity). A node of the index is visible when the coordinates it stands for exist there; a
 * visible node's properties lose what names hidden fields (field lists, skeleton columns, generated queries).
 */
export class SchemaView {
  private readonly paths = new Map<string, boolean>();
  /**
   * Companion types of data objects (filter, aggregation, mutation inputs) → the object's columns this caller
   * cannot see. Hugr hides a field on the object type only; its name would still show in the companions.
   */
  private hiddenColumns = new Map<string, Set<string>>();

  constructor(readonly schema: GraphQLSchema) {}

  /** Learns which columns of each data object are hidden, from the object's full field list in the index. */
  hideColumns(objects: readonly { typeName: string; fields: readonly string[]; companions: readonly string[] }[]): void {
    const hidden = new Map<string, Set<string>>();
    for (const o of objects) {
      const gone = o.fields.filter((f) => !this.hasField(o.typeName, f));
      if (gone.length === 0 || !this.hasType(o.typeName)) continue;
      for (const c of o.companions) {
        let set = hidden.get(c);
        if (!set) hidden.set(c, (set = new Set()));
        for (const f of gone) set.add(f);
      }
    }
    this.hiddenColumns = hidden;
  }

  hasType(name: string): boolean {
    return this.schema.getType(name) !== undefined;
  }

  hasField(typeName: string, field: string): boolean {
    const type = this.schema.getType(typeName);
    if (!type) return false;
    if (!(isObjectType(type) || isInterfaceType(type) || isInputObjectType(type))) return false;
    return Object.hasOwn(type.getFields(), field) && !this.hiddenColumns.get(typeName)?.has(field);
  }

  /** Whether a type has fields to select (an object or interface). */
  hasFields(typeName: string): boolean {
    const type = this.schema.getType(typeName);
    return !!type && (isObjectType(type) || isInterfaceType(type));
  }

  /** Whether a dotted field path resolves from the query (or mutation) root, field by field. */
  reaches(path: string, operation: 'query' | 'mutation' = 'query'): boolean {
    const key = `${operation}:${path}`;
    let hit = this.paths.get(key);
    if (hit !== undefined) return hit;
    let type = operation === 'query' ? this.schema.getQueryType() : this.schema.getMutationType();
    hit = !!type;
    for (const segment of path === '' ? [] : path.split('.')) {
      const fields: Record<string, { type: Parameters<typeof getNamedType>[0] }> | undefined = type && (isObjectType(type) || isInterfaceType(type)) ? type.getFields() : undefined;
      const field = fields?.[segment];
      if (!field) {
        hit = false;
        break;
      }
      const named = getNamedType(field.type);
      type = isObjectType(named) ? named : undefined;
    }
    this.paths.set(key, hit);
    return hit;
  }

  /** Whether a node of the governed kinds is visible (data sources are decided by what they feed: see ViewStore). */
  sees(node: NodeRecord): boolean {
    const p = node.props;
    switch (node.kind) {
      case 'type':
        return p['builtin'] === true || this.hasType(node.qualified_name);
      case 'field':
        return typeof p['parent_type'] === 'string' && this.hasField(p['parent_type'], node.name);
      case 'data_object':
        return typeof p['type_name'] === 'string' && this.hasType(p['type_name']) && (typeof p['graphql_path'] !== 'string' || p['path_verified'] === false || this.reaches(p['graphql_path']));
      case 'function':
        return typeof p['graphql_path'] !== 'string' || this.reaches(p['graphql_path'], p['is_mutation'] === true ? 'mutation' : 'query');
      case 'module': {
        if (p['is_root'] === true) return true;
        const roots = ['query_root', 'mutation_root', 'function_root', 'mutation_function_root'].map((k) => p[k]).filter((r): r is string => typeof r === 'string');
        return roots.length === 0 || roots.some((r) => this.hasType(r));
      }
      default:
        return true;
    }
  }

  /** The node as this caller may read it: properties that list fields keep only visible ones. */
  project(node: NodeRecord): NodeRecord {
    const p = node.props;
    const props: Record<string, PropValue> = { ...p };
    let changed = false;
    const set = (key: string, value: PropValue): void => {
      if (JSON.stringify(value) === JSON.stringify(p[key])) return;
      props[key] = value;
      changed = true;
    };
    if (node.kind === 'data_object' && typeof p['type_name'] === 'string') {
      const type = p['type_name'];
      const keep = (f: unknown): boolean => typeof f === 'string' && this.hasField(type, f);
      if (Array.isArray(p['field_names'])) set('field_names', p['field_names'].filter(keep) as string[]);
      if (Array.isArray(p['primary_key'])) set('primary_key', p['primary_key'].filter(keep) as string[]);
      for (const key of ['queries', 'mutations'] as const) {
        if (!Array.isArray(p[key])) continue;
        const ops = (p[key] as Record<string, unknown>[]).filter((op) => typeof op['graphql_path'] !== 'string' || this.reaches(op['graphql_path'], key === 'mutations' ? 'mutation' : 'query'));
        set(key, ops);
        if (key === 'queries' && Array.isArray(p['query_kinds'])) set('query_kinds', [...new Set(ops.map((o) => o['kind']).filter((k): k is string => typeof k === 'string'))].sort());
      }
      if (typeof p['skeleton'] === 'string') set('skeleton', visibleSkeleton(p['skeleton'], (f) => this.hasField(type, f)));
    }
    if (node.kind === 'function') {
      const returned = typeof p['return_type'] === 'string' ? p['return_type'].replace(/[[\]!]/g, '') : undefined;
      const selectsFields = returned !== undefined && this.hasFields(returned);
      if (selectsFields && typeof p['skeleton'] === 'string') set('skeleton', visibleSkeleton(p['skeleton'], (f) => this.hasField(returned, f)));
      if (Array.isArray(p['queries'])) set('queries', (p['queries'] as Record<string, unknown>[]).filter((op) => typeof op['graphql_path'] !== 'string' || this.reaches(op['graphql_path'])));
    }
    if (node.kind === 'type') {
      const type = this.schema.getType(node.qualified_name);
      if (type && (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) && typeof p['field_count'] === 'number') {
        set('field_count', Object.keys(type.getFields()).filter((f) => this.hasField(type.name, f)).length);
      }
      for (const key of ['possible_types', 'interfaces'] as const) if (Array.isArray(p[key])) set(key, (p[key] as unknown[]).filter((t) => typeof t === 'string' && this.hasType(t)) as string[]);
    }
    return changed ? { ...node, props } : node;
  }
}

/**
 * A skeleton (see sources/graphql/hugr/skeleton.ts: one selected column per line in the innermost block, the rest
 * named in a `# … N more: a, b` comment) without the columns this caller cannot see.
 */
export function visibleSkeleton(skeleton: string, visible: (field: string) => boolean): string {
  const lines = skeleton.split('\n');
  const open = lines.findLastIndex((l) => l.trimEnd().endsWith('{'));
  if (open < 0) return skeleton;
  const indent = /^\s*/.exec(lines[open]!)![0].length + 2;
  const out: string[] = [];
  let columns = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const inner = i > open && /^\s*/.exec(line)![0].length === indent;
    if (!inner) {
      if (i > open && columns === 0 && line.trim() === '}' && /^\s*/.exec(line)![0].length === indent - 2) {
        out.push(`${' '.repeat(indent)}__typename`);
        columns = 1;
      }
      out.push(line);
      continue;
    }
    const text = line.trim();
    const more = /^# … \d+ more: (.*)$/.exec(text);
    if (more) {
      const names = more[1]!.split(', ').filter(visible);
      if (names.length) out.push(`${' '.repeat(indent)}# … ${names.length} more: ${names.join(', ')}`);
      continue;
    }
    if (text === '__typename' || visible(text)) {
      out.push(line);
      columns++;
    }
  }
  return out.join('\n');
}
