import { getNamedType, isInterfaceType, isNonNullType, isObjectType, type GraphQLSchema } from 'graphql';
import { isLeafType } from './derive.js';
import type { HugrArgument } from './model.js';

/** Columns a skeleton selects at most; the rest are named in a comment. */
export const SKELETON_MAX_FIELDS = 40;
/** Page size the skeleton's `$limit` defaults to. */
export const SKELETON_PAGE = 10;

/** The arguments a data object's select skeleton passes, besides the required ones. */
export const DATA_OBJECT_SKELETON_ARGUMENTS = ['filter', 'order_by', 'limit', 'offset'];

export interface SkeletonInput {
  operation: 'query' | 'mutation';
  /** Fields from the operation root to the called field. */
  path: string[];
  arguments: HugrArgument[];
  /** Which arguments to pass as variables: required ones always, plus these when the field has them. */
  pass: readonly string[];
  /** Named return type, for the selection. */
  returnType: string;
  /** Which fields of the return type may be selected (not hidden by mcp_exclude; columns of a data object). */
  selectable?: (field: string) => boolean;
}

function required(arg: HugrArgument): boolean {
  return arg.type.endsWith('!') && arg.default_value === undefined;
}

/**
 * A GraphQL document that calls the field at `path` with variables for its arguments and selects the return
 * type's leaf fields (scalars and enums without required arguments), e.g.
 *
 *     query ($filter: orders_filter, $limit: Int = 10) {
 *       sales {
 *         orders(filter: $filter, limit: $limit) {
 *           id
 *         }
 *       }
 *     }
 */
export function skeletonOf(schema: GraphQLSchema, input: SkeletonInput): string {
  const passed = input.arguments.filter((a) => required(a) || input.pass.includes(a.name));
  const variables = passed.map((a) => {
    const dflt = a.name === 'limit' && !a.type.endsWith('!') ? ` = ${SKELETON_PAGE}` : a.name === 'offset' && !a.type.endsWith('!') ? ' = 0' : '';
    return `$${a.name}: ${a.type}${dflt}`;
  });
  const call = `${input.path[input.path.length - 1]}${passed.length ? `(${passed.map((a) => `${a.name}: $${a.name}`).join(', ')})` : ''}`;
  const selection = selectionOf(schema, input.returnType, input.selectable);
  const lines: string[] = [`${input.operation}${variables.length ? ` (${variables.join(', ')})` : ''} {`];
  const depth = input.path.length;
  input.path.slice(0, -1).forEach((segment, i) => lines.push(`${'  '.repeat(i + 1)}${segment} {`));
  const indent = '  '.repeat(depth);
  if (selection) {
    lines.push(`${indent}${call} {`);
    for (const s of selection) lines.push(`${indent}  ${s}`);
    lines.push(`${indent}}`);
  } else lines.push(`${indent}${call}`);
  for (let i = depth - 1; i >= 1; i--) lines.push(`${'  '.repeat(i)}}`);
  lines.push('}');
  return lines.join('\n');
}

/** The lines selecting a type's leaf fields; undefined for a leaf type (nothing to select). */
function selectionOf(schema: GraphQLSchema, typeName: string, selectable: ((field: string) => boolean) | undefined): string[] | undefined {
  const type = schema.getType(typeName);
  if (!type || !(isObjectType(type) || isInterfaceType(type))) return undefined;
  const leaves = Object.values(type.getFields()).filter(
    (f) => !f.name.startsWith('_') && (selectable?.(f.name) ?? true) && isLeafType(getNamedType(f.type)) && f.args.every((a) => !isNonNullType(a.type) || a.defaultValue !== undefined),
  );
  if (leaves.length === 0) return ['__typename'];
  const shown = leaves.slice(0, SKELETON_MAX_FIELDS).map((f) => f.name);
  if (leaves.length > shown.length) shown.push(`# … ${leaves.length - shown.length} more: ${leaves.slice(SKELETON_MAX_FIELDS).map((f) => f.name).join(', ')}`);
  return shown;
}
