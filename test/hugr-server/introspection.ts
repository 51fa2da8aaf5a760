/**
 * Introspection with Hugr's extension fields for the test server. graphql-js's own introspection types cannot
 * gain fields, so an operation that asks for `__schema` / `__type` is rewritten onto a shadow schema (`IntroType`
 * for `__Type`, …) whose data is a precomputed introspection JSON carrying the extensions.
 */
import { buildSchema, execute, Kind, parse, TypeInfo, visit, visitWithTypeInfo, type DocumentNode, type ExecutionResult, type FieldNode, type GraphQLError } from 'graphql';

const SHADOW_SDL = `
type Query { schema_: IntroSchema! type_(name: String!): IntroType }
type IntroSchema { description: String types: [IntroType!]! queryType: IntroType! mutationType: IntroType subscriptionType: IntroType directives: [IntroDirective!]! }
type IntroType {
  kind: String! name: String description: String specifiedByURL: String isOneOf: Boolean
  fields(includeDeprecated: Boolean = false): [IntroField!]
  interfaces: [IntroType!] possibleTypes: [IntroType!]
  enumValues(includeDeprecated: Boolean = false): [IntroEnumValue!]
  inputFields(includeDeprecated: Boolean = false): [IntroInputValue!]
  ofType: IntroType
  hugr_type: String module: String catalog: String
}
type IntroField {
  name: String! description: String args(includeDeprecated: Boolean = false): [IntroInputValue!]! type: IntroType!
  isDeprecated: Boolean! deprecationReason: String
  hugr_type: String catalog: String mcp_exclude: Boolean field_kind: String
}
type IntroInputValue { name: String! description: String type: IntroType! defaultValue: String isDeprecated: Boolean deprecationReason: String hugr_type: String }
type IntroEnumValue { name: String! description: String isDeprecated: Boolean! deprecationReason: String }
type IntroDirective { name: String! description: String locations: [String!]! args(includeDeprecated: Boolean = false): [IntroInputValue!]! isRepeatable: Boolean }
`;
const SHADOW = buildSchema(SHADOW_SDL);
const RENAME: Record<string, string> = { __Schema: 'IntroSchema', __Type: 'IntroType', __Field: 'IntroField', __InputValue: 'IntroInputValue', __EnumValue: 'IntroEnumValue', __Directive: 'IntroDirective' };

type Json = Record<string, unknown>;

/** Whether an operation's top-level selections are introspection only. */
export function isIntrospection(doc: DocumentNode, operationName?: string): boolean {
  const ops = doc.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  const op = operationName ? ops.find((o) => o.name?.value === operationName) : ops[0];
  if (!op || op.kind !== Kind.OPERATION_DEFINITION) return false;
  const names = op.selectionSet.selections.filter((s): s is FieldNode => s.kind === Kind.FIELD).map((s) => s.name.value);
  return names.length > 0 && names.every((n) => n === '__schema' || n === '__type' || n === '__typename') && names.some((n) => n !== '__typename');
}

/** Answers an introspection operation from `json` (an introspection result's `__schema` with extension fields). */
export function answerIntrospection(json: Json, doc: DocumentNode, variables: Record<string, unknown> | undefined, operationName: string | undefined): ExecutionResult {
  const byName = new Map<string, Json>((json['types'] as Json[]).map((t) => [t['name'] as string, t]));
  const full = (ref: Json | null | undefined): Json | null | undefined => (ref && typeof ref['name'] === 'string' && byName.get(ref['name'] as string)) || ref;
  const deprecatedFilter = (list: unknown, args: { includeDeprecated?: boolean }): unknown => (Array.isArray(list) && !args.includeDeprecated ? list.filter((x: Json) => !x['isDeprecated']) : list);
  const rewritten = visit(doc, {
    Field(node) {
      if (node.name.value !== '__schema' && node.name.value !== '__type') return undefined;
      return { ...node, alias: node.alias ?? { kind: Kind.NAME, value: node.name.value }, name: { kind: Kind.NAME, value: node.name.value === '__schema' ? 'schema_' : 'type_' } };
    },
    NamedType(node) {
      const to = RENAME[node.name.value];
      return to ? { ...node, name: { kind: Kind.NAME, value: to } } : undefined;
    },
  });
  // As Hugr v0.3.41 does: these fields are listed but have no resolver, and asking for one fails the whole query.
  const unresolved: { message: string; locations: GraphQLError['locations'] }[] = [];
  const info = new TypeInfo(SHADOW);
  visit(
    rewritten,
    visitWithTypeInfo(info, {
      Field(node) {
        const parent = info.getParentType()?.name;
        if ((parent === 'IntroInputValue' && node.name.value === 'isDeprecated') || (parent === 'IntroType' && node.name.value === 'isOneOf')) {
          unresolved.push({ message: `${node.name.value}: couldn't find field resolver`, locations: node.loc ? [{ line: node.loc.startToken.line, column: node.loc.startToken.column }] : [] });
        }
      },
    }),
  );
  if (unresolved.length) return { errors: unresolved.slice(0, 1) } as unknown as ExecutionResult;
  const schemaRoot: Json = {
    ...json,
    queryType: full(json['queryType'] as Json),
    mutationType: full(json['mutationType'] as Json | null),
    subscriptionType: full(json['subscriptionType'] as Json | null),
  };
  return execute({
    schema: SHADOW,
    document: rewritten,
    rootValue: { schema_: schemaRoot, type_: ({ name }: { name: string }) => byName.get(name) ?? null },
    ...(variables ? { variableValues: variables } : {}),
    ...(operationName ? { operationName } : {}),
    fieldResolver: (source: Json, args: Record<string, unknown>, _ctx, info) => {
      const value = source[info.fieldName];
      const parent = info.parentType.name;
      if (parent === 'IntroType') {
        const t = full(source) ?? source;
        const v = t[info.fieldName];
        if (info.fieldName === 'fields' || info.fieldName === 'enumValues' || info.fieldName === 'inputFields') return deprecatedFilter(v, args);
        if (info.fieldName === 'interfaces' || info.fieldName === 'possibleTypes') return Array.isArray(v) ? v.map((x: Json) => full(x)) : v;
        return v;
      }
      if (parent === 'IntroField' || parent === 'IntroDirective') {
        if (info.fieldName === 'args') return deprecatedFilter(value, args);
      }
      return typeof value === 'function' ? (value as (a: unknown) => unknown)(args) : value;
    },
  }) as ExecutionResult;
}

export { parse };
