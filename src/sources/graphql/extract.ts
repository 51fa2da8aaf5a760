import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isIntrospectionType,
  isListType,
  isNonNullType,
  isObjectType,
  isSpecifiedScalarType,
  isUnionType,
  specifiedScalarTypes,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type GraphQLType,
} from 'graphql';
import type { Ontology } from '../../graph/ontology/index.js';
import { nodeId } from '../../graph/ids.js';
import type { EdgeRecord, NodeRecord, PropValue } from '../../graph/types.js';
import { defaultText } from './defaults.js';
import { appliedDirectivesOf, type AppliedDirective } from './directives.js';
import { emitHugrModel, hugrRootModuleProps } from './hugr/emit.js';
import type { HugrModel } from './hugr/model.js';
import type { FileOf } from './load.js';

export type { AppliedDirective } from './directives.js';

export interface ExtractGraphqlOptions {
  ontology: Ontology;
  /** Source name: names the root module and is part of every id. */
  source: string;
  /** Where types (and fields) are written, for schemas read from SDL. */
  fileOf?: FileOf;
  /** Names of types that are placeholders for undefined references: indexed with `resolved: false`. */
  placeholders?: readonly string[];
  /** The Hugr model of the schema, when it is a Hugr schema: adds data sources, modules, data objects, functions. */
  hugr?: HugrModel;
}


type Operation = 'query' | 'mutation' | 'subscription';
type Props = Record<string, PropValue>;

/** The built-in scalars every GraphQL schema has, whether or not it uses them. */
const BUILTIN_SCALARS = ['Boolean', 'Float', 'ID', 'Int', 'String'] as const;

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Maps a generic GraphQL API onto the GraphQL ontology: one root module named after the source, a `type` node per
 * named type (introspection types excluded, the five built-in scalars always included), a `field` node per field
 * of object, interface and input object types, and the edges between them. Deterministic: nodes sorted by
 * (kind, qualified_name), edges by (type, from, to, key).
 */
export function extractGraphql(schema: GraphQLSchema, opts: ExtractGraphqlOptions): { nodes: NodeRecord[]; edges: EdgeRecord[] } {
  const { ontology, source, fileOf } = opts;
  const placeholders = new Set(opts.placeholders ?? []);
  const declared = new Map<string, Set<string>>();
  const declaredProps = (kind: string): Set<string> => {
    let set = declared.get(kind);
    if (!set) {
      const info = ontology.kind(kind);
      if (!info) throw new Error(`the ontology has no node kind "${kind}"`);
      set = new Set(info.properties.map((p) => p.name));
      declared.set(kind, set);
    }
    return set;
  };
  const nodes: NodeRecord[] = [];
  const edges: EdgeRecord[] = [];
  const addNode = (kind: string, name: string, qualifiedName: string, props: Props, location?: { file: string; line: number }, place: { module?: string; identity?: string } = {}): string => {
    const allowed = declaredProps(kind);
    for (const key of Object.keys(props)) {
      if (!allowed.has(key)) throw new Error(`GraphQL extraction produced property "${key}" that the ontology does not declare for kind "${kind}"`);
    }
    const id = nodeId(ontology, source, kind, place.identity ?? qualifiedName);
    const node: NodeRecord = { id, kind, name, qualified_name: qualifiedName, source, module: place.module ?? source, props };
    if (location) {
      node.file = location.file;
      node.line = location.line;
    }
    nodes.push(node);
    return id;
  };
  const typeId = (name: string): string => nodeId(ontology, source, 'type', name);

  // The root module.
  const hugr = opts.hugr;
  const moduleProps: Props = { is_root: true, depth: 0, ...(hugr ? hugrRootModuleProps(hugr) : {}) };
  if (schema.description) moduleProps['description'] = schema.description;
  const moduleId = addNode('module', source, source, moduleProps);

  const roots = new Map<string, Operation[]>();
  const rootPairs: [Operation, GraphQLNamedType | null | undefined][] = [
    ['query', schema.getQueryType()],
    ['mutation', schema.getMutationType()],
    ['subscription', schema.getSubscriptionType()],
  ];
  for (const [op, type] of rootPairs) {
    if (!type) continue;
    const list = roots.get(type.name) ?? [];
    list.push(op);
    roots.set(type.name, list);
  }

  const typeMap = schema.getTypeMap();
  const names = new Set(Object.keys(typeMap).filter((n) => !n.startsWith('__')));
  for (const b of BUILTIN_SCALARS) names.add(b);
  // Introspection types are left out, unless the API's own fields or arguments use them (Hugr's `_Module` has
  // fields of type __Type): then they and what they reference are included, so no edge dangles.
  const pending = [...names];
  while (pending.length) {
    const type = typeMap[pending.pop()!];
    if (!type || !(isObjectType(type) || isInterfaceType(type) || isInputObjectType(type))) continue;
    for (const field of Object.values(type.getFields())) {
      const args: readonly GraphQLArgument[] = 'args' in field ? field.args : [];
      const used = [field.type, ...args.map((a) => a.type)].map((t) => getNamedType(t as GraphQLType));
      for (const t of used) {
        if (!names.has(t.name)) {
          names.add(t.name);
          pending.push(t.name);
        }
      }
    }
  }
  const builtinScalar = (name: string): GraphQLNamedType | undefined => {
    const t = typeMap[name];
    if (t) return t;
    // A schema that never uses, say, Float still has it.
    return BUILTIN_SCALAR_TYPES.find((s) => s.name === name);
  };

  for (const name of [...names].sort(cmp)) {
    const type = builtinScalar(name);
    if (!type) continue;
    const props: Props = { type_kind: typeKind(type), builtin: isSpecifiedScalarType(type) || isIntrospectionType(type), resolved: !placeholders.has(name) };
    if (type.description) props['description'] = type.description;
    const ops = roots.get(name);
    if (ops?.[0]) props['root_operation'] = ops[0];

    if (isObjectType(type) || isInterfaceType(type)) {
      props['field_count'] = Object.keys(type.getFields()).length;
      props['interfaces'] = unique(type.getInterfaces().map((i) => i.name));
    } else if (isInputObjectType(type)) {
      props['field_count'] = Object.keys(type.getFields()).length;
    } else if (isEnumType(type)) {
      props['enum_values'] = type.getValues().map((v) => v.name);
    }
    if (isUnionType(type)) props['possible_types'] = unique(type.getTypes().map((t) => t.name));
    if (isInterfaceType(type)) {
      const impl = schema.getImplementations(type);
      props['possible_types'] = unique([...impl.objects, ...impl.interfaces].map((t) => t.name)).sort(cmp);
    }
    Object.assign(props, directiveProps(appliedDirectivesOf([type.astNode, ...(type.extensionASTNodes ?? [])], type.extensions)));
    const hugrType = hugr?.typeHugrType.get(name);
    if (hugrType) props['hugr_type'] = hugrType;

    const id = addNode('type', name, name, props, fileOf?.(name));

    for (const op of ops ?? []) {
      edges.push({ type: 'ROOT_TYPE', from: moduleId, to: id, ...(ops && ops.length > 1 ? { key: op } : {}), attrs: { operation: op } });
    }
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const i of type.getInterfaces()) edges.push({ type: 'IMPLEMENTS', from: id, to: typeId(i.name) });
    }
    if (isUnionType(type)) {
      for (const m of type.getTypes()) edges.push({ type: 'UNION_MEMBER', from: id, to: typeId(m.name) });
    }
    if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) {
      const parentKind = typeKind(type);
      for (const field of Object.values(type.getFields())) {
        if (hugr?.excludedFields.has(`${name}.${field.name}`)) continue;
        const fieldId = extractField(field, name, parentKind);
        edges.push({ type: 'HAS_FIELD', from: id, to: fieldId });
      }
    }
  }

  function extractField(field: GraphQLField<unknown, unknown> | GraphQLInputField, parent: string, parentKind: string): string {
    const qualifiedName = `${parent}.${field.name}`;
    const named = getNamedType(field.type);
    const signature = String(field.type);
    const args: readonly GraphQLArgument[] = 'args' in field ? field.args : [];
    const props: Props = {
      parent_type: parent,
      parent_kind: parentKind,
      type_name: named.name,
      type_signature: signature,
      is_list: isListType(isNonNullType(field.type) ? field.type.ofType : field.type),
      non_null: isNonNullType(field.type),
      arguments: args.map(argumentJson),
      argument_names: args.map((a) => a.name),
      deprecated: field.deprecationReason != null,
    };
    if (!('args' in field)) {
      const dv = defaultText(field);
      if (dv !== undefined) props['default_value'] = dv;
    }
    if (field.deprecationReason != null) props['deprecation_reason'] = field.deprecationReason;
    if (field.description) props['description'] = field.description;
    Object.assign(props, directiveProps(appliedDirectivesOf([field.astNode], field.extensions)));
    const hugrType = hugr?.fieldHugrType.get(qualifiedName);
    if (hugrType) props['hugr_type'] = hugrType;
    const fieldKind = hugr?.fieldKind.get(qualifiedName);
    if (fieldKind) props['field_kind'] = fieldKind;

    const id = addNode('field', field.name, qualifiedName, props, fileOf?.(parent, field.name));
    edges.push({ type: 'FIELD_TYPE', from: id, to: typeId(named.name), attrs: { signature } });
    for (const arg of args) {
      const argType = getNamedType(arg.type);
      edges.push({ type: 'ARGUMENT_TYPE', from: id, to: typeId(argType.name), key: arg.name, attrs: { argument: arg.name, signature: String(arg.type) } });
    }
    return id;
  }

  if (hugr) emitHugrModel(hugr, schema, { source, rootModuleId: moduleId, addNode, typeId, edges, ...(fileOf ? { fileOf } : {}) });

  nodes.sort((a, b) => cmp(a.kind, b.kind) || cmp(a.qualified_name, b.qualified_name) || cmp(a.id, b.id));
  edges.sort((a, b) => cmp(a.type, b.type) || cmp(a.from, b.from) || cmp(a.to, b.to) || cmp(a.key ?? '', b.key ?? ''));
  // Invalid-but-accepted SDL (`implements A & A`, a union listing a member twice) must not yield duplicate edges.
  const deduped = edges.filter((e, i) => {
    const prev = edges[i - 1];
    return !prev || prev.type !== e.type || prev.from !== e.from || prev.to !== e.to || (prev.key ?? '') !== (e.key ?? '');
  });
  return { nodes, edges: deduped };
}

// The specified scalars, taken from graphql-js so their descriptions match what a schema would carry.
const BUILTIN_SCALAR_TYPES: readonly GraphQLNamedType[] = specifiedScalarTypes;

function typeKind(type: GraphQLNamedType): string {
  if (isObjectType(type)) return 'OBJECT';
  if (isInterfaceType(type)) return 'INTERFACE';
  if (isUnionType(type)) return 'UNION';
  if (isEnumType(type)) return 'ENUM';
  if (isInputObjectType(type)) return 'INPUT_OBJECT';
  return 'SCALAR';
}

function unique(names: string[]): string[] {
  return [...new Set(names)];
}

function argumentJson(arg: GraphQLArgument): Record<string, unknown> {
  const out: Record<string, unknown> = { name: arg.name, type: String(arg.type) };
  const dv = defaultText(arg);
  if (dv !== undefined) out['default_value'] = dv;
  if (arg.description) out['description'] = arg.description;
  if (arg.deprecationReason != null) out['deprecation_reason'] = arg.deprecationReason;
  return out;
}

function directiveProps(applied: AppliedDirective[]): Props {
  if (applied.length === 0) return {};
  return { directives: unique(applied.map((d) => d.name)), applied_directives: applied as unknown as PropValue };
}
