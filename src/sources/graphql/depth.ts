/**
 * Depth limits of what a schema may nest. GraphQL allows type references (`[[[String!]]]`) and values of any
 * depth, but the standard introspection query reads about eight wrappers, real schemas use two or three, and
 * graphql-js (like most code over a schema) walks them by recursion: a schema nested thousands deep would end a
 * build with a bare stack overflow. These checks walk without recursion and refuse such a schema with a message
 * that names the file, the type and the field.
 */
import { Kind, type ASTNode, type DefinitionNode, type TypeNode } from 'graphql';
import { GraphqlSourceError } from './errors.js';

/** Most list and non-null wrappers a type reference may have. */
export const MAX_TYPE_WRAPPERS = 32;
/** Deepest a definition's syntax tree may nest (values in default values and directive arguments included). */
export const MAX_AST_DEPTH = 256;

function typeWrappers(type: TypeNode): number {
  let n = 0;
  let cur = type;
  while (cur.kind !== Kind.NAMED_TYPE) {
    n++;
    cur = cur.type;
  }
  return n;
}

function lineOf(node: ASTNode): string {
  return node.loc ? `:${node.loc.startToken.line}` : '';
}

function nameOf(node: unknown): string | undefined {
  const name = (node as { name?: { value?: unknown } } | undefined)?.name?.value;
  return typeof name === 'string' ? name : undefined;
}

/**
 * Refuses a definition of SDL `file` whose type references wrap more than MAX_TYPE_WRAPPERS times, or whose syntax
 * nests deeper than MAX_AST_DEPTH. Iterative: safe on any depth the parser accepted.
 */
export function checkSdlDepth(definitions: readonly DefinitionNode[], file: string): void {
  for (const def of definitions) {
    const typeName = nameOf(def) ?? (def.kind === Kind.SCHEMA_DEFINITION || def.kind === Kind.SCHEMA_EXTENSION ? 'schema' : def.kind);
    // Depth-first over the definition's syntax tree, with the field (or argument) each node is under.
    const stack: { node: ASTNode; depth: number; field?: string }[] = [{ node: def, depth: 0 }];
    while (stack.length) {
      const { node, depth, field } = stack.pop()!;
      if (depth > MAX_AST_DEPTH) {
        throw new GraphqlSourceError(
          'TOO_DEEP',
          `Schema file ${file}${lineOf(node)}: ${field ? `${typeName}.${field}` : typeName} nests more than ${MAX_AST_DEPTH} levels deep (lists or objects in a value), more than Sextant reads. ` +
            'Flatten it, or remove the definition from the schema files of this source.',
        );
      }
      const here = node.kind === Kind.FIELD_DEFINITION || node.kind === Kind.INPUT_VALUE_DEFINITION ? (field ? `${field}(${nameOf(node)})` : nameOf(node)) : field;
      if ((node.kind === Kind.LIST_TYPE || node.kind === Kind.NON_NULL_TYPE)) {
        // Checked from its outermost wrapper; the inner ones are never pushed.
        const wrappers = typeWrappers(node);
        if (wrappers > MAX_TYPE_WRAPPERS) {
          throw new GraphqlSourceError(
            'TOO_DEEP',
            `Schema file ${file}${lineOf(node)}: the type of ${here ? `${typeName}.${here}` : typeName} wraps ${wrappers} lists and non-nulls (like [[[String!]]] ${wrappers} levels deep); Sextant reads at most ${MAX_TYPE_WRAPPERS} ` +
              '(introspection itself reads about 8). Simplify that type reference, or remove the field from the schema files of this source.',
          );
        }
        continue; // a type reference holds nothing else to check
      }
      for (const [key, value] of Object.entries(node)) {
        if (key === 'loc') continue;
        if (Array.isArray(value)) {
          for (const child of value) if (isNode(child)) stack.push({ node: child, depth: depth + 1, ...(here ? { field: here } : {}) });
        } else if (isNode(value)) stack.push({ node: value, depth: depth + 1, ...(here ? { field: here } : {}) });
      }
    }
  }
}

function isNode(v: unknown): v is ASTNode {
  return typeof v === 'object' && v !== null && typeof (v as { kind?: unknown }).kind === 'string';
}

/** Structural view of an introspection type reference. */
interface RawRef {
  kind?: unknown;
  name?: unknown;
  ofType?: unknown;
}

function refWrappers(ref: unknown): number {
  let n = 0;
  let cur = ref as RawRef | null | undefined;
  while (cur && typeof cur === 'object' && cur.ofType && typeof cur.ofType === 'object') {
    n++;
    if (n > MAX_TYPE_WRAPPERS) return n;
    cur = cur.ofType as RawRef;
  }
  return n;
}

/**
 * Refuses an introspection result (`what`: "Schema file x.json", "The answer of https://…") with a type reference
 * (an `ofType` chain) longer than MAX_TYPE_WRAPPERS. Iterative: safe on any depth JSON.parse accepted.
 */
export function checkIntrospectionDepth(rawSchema: Record<string, unknown>, what: string): void {
  const refuse = (where: string): never => {
    throw new GraphqlSourceError(
      'TOO_DEEP',
      `${what}: the type of ${where} is nested more than ${MAX_TYPE_WRAPPERS} levels deep (an ofType chain of lists and non-nulls); Sextant reads at most ${MAX_TYPE_WRAPPERS} ` +
        '(the standard introspection query reads about 8). The result is malformed or hostile: produce it again with the standard introspection query.',
    );
  };
  const check = (ref: unknown, where: () => string): void => {
    if (refWrappers(ref) > MAX_TYPE_WRAPPERS) refuse(where());
  };
  const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
  const obj = (v: unknown): Record<string, unknown> => (typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {});
  for (const t of list(rawSchema['types'])) {
    const type = obj(t);
    const name = typeof type['name'] === 'string' ? type['name'] : '(unnamed type)';
    for (const f of list(type['fields'])) {
      const field = obj(f);
      check(field['type'], () => `${name}.${String(field['name'])}`);
      for (const a of list(field['args'])) check(obj(a)['type'], () => `${name}.${String(field['name'])}(${String(obj(a)['name'])})`);
    }
    for (const f of list(type['inputFields'])) check(obj(f)['type'], () => `${name}.${String(obj(f)['name'])}`);
    for (const i of list(type['interfaces'])) check(i, () => `an interface of ${name}`);
    for (const p of list(type['possibleTypes'])) check(p, () => `a member of ${name}`);
  }
  for (const d of list(rawSchema['directives'])) {
    for (const a of list(obj(d)['args'])) check(obj(a)['type'], () => `@${String(obj(d)['name'])}(${String(obj(a)['name'])})`);
  }
  for (const root of ['queryType', 'mutationType', 'subscriptionType']) check(rawSchema[root], () => root);
}
