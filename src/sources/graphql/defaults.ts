import { astFromValue, isInputObjectType, isListType, isNonNullType, Kind, print, type ConstObjectFieldNode, type ConstValueNode, type GraphQLArgument, type GraphQLInputField, type GraphQLInputType } from 'graphql';

/**
 * A default value as GraphQL text: as written in the SDL when there is SDL (exact even where the type is only a
 * placeholder), otherwise printed from the value.
 */
export function defaultText(input: GraphQLArgument | GraphQLInputField): string | undefined {
  if (input.astNode?.defaultValue) return print(inDefinitionOrder(input.astNode.defaultValue, input.type));
  if (input.defaultValue === undefined) return undefined;
  try {
    const ast = astFromValue(input.defaultValue, input.type as GraphQLInputType);
    return ast ? print(ast) : undefined;
  } catch {
    return JSON.stringify(input.defaultValue);
  }
}

/**
 * The literal with the fields of input objects in the order the input type declares them, as printing a value
 * from introspection yields them: SDL and introspection of one schema give the same text.
 */
function inDefinitionOrder(node: ConstValueNode, type: GraphQLInputType): ConstValueNode {
  const t = isNonNullType(type) ? type.ofType : type;
  if (node.kind === Kind.LIST && isListType(t)) return { ...node, values: node.values.map((v) => inDefinitionOrder(v, t.ofType)) };
  if (node.kind === Kind.OBJECT && isInputObjectType(t)) {
    const fields = t.getFields();
    const order = new Map(Object.keys(fields).map((name, i) => [name, i]));
    const rank = (f: ConstObjectFieldNode): number => order.get(f.name.value) ?? Number.MAX_SAFE_INTEGER;
    const sorted = [...node.fields].sort((a, b) => rank(a) - rank(b));
    return {
      ...node,
      fields: sorted.map((f) => {
        const def = fields[f.name.value];
        return def ? { ...f, value: inDefinitionOrder(f.value, def.type) } : f;
      }),
    };
  }
  return node;
}

