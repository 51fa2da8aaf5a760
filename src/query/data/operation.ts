import { GraphQLError, Kind, parse, validate, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { closest } from '../../search/similarity.js';
import { fail } from '../errors.js';

export interface QueryProblem {
  message: string;
  locations?: { line: number; column: number }[];
  did_you_mean?: string[];
}

/** Parses a GraphQL document; a syntax error becomes `invalid_query` with its line and column. */
export function parseQuery(text: string, argument = 'query'): DocumentNode {
  try {
    return parse(text);
  } catch (err) {
    if (err instanceof RangeError) fail({ code: 'invalid_query', argument, message: `\`${argument}\` nests too deeply to parse (thousands of levels of selections, lists or objects): flatten it.` });
    const e = err as GraphQLError;
    const at = e.locations?.[0];
    fail({ code: 'invalid_query', argument, message: `\`${argument}\` is not valid GraphQL${at ? ` (line ${at.line}, column ${at.column})` : ''}: ${e.message.replace(/^Syntax Error: /, '')}` });
  }
}

/** The operation to run: the only one, or the one `operation_name` names (with did-you-mean when it names none). */
export function pickOperation(doc: DocumentNode, operationName: string | undefined): OperationDefinitionNode {
  const ops = doc.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (ops.length === 0) fail({ code: 'invalid_query', argument: 'query', message: 'The document has no operation: write `query { … }` (fragments alone cannot run).' });
  const named = ops.map((o) => o.name?.value).filter((n): n is string => !!n);
  const twice = named.find((n, i) => named.indexOf(n) !== i);
  if (twice) fail({ code: 'invalid_query', argument: 'query', message: `Two operations are named \`${twice}\`: GraphQL needs each operation name once.` });
  if (ops.length > 1 && named.length < ops.length) fail({ code: 'invalid_query', argument: 'query', message: 'An anonymous operation must be the only one in the document: name every operation.' });
  if (operationName === undefined) {
    if (ops.length === 1) return ops[0]!;
    const names = ops.map((o) => o.name?.value ?? '(anonymous)');
    fail({ code: 'invalid_query', argument: 'operation_name', message: `The document has ${ops.length} operations (${names.join(', ')}): name the one to run in \`operation_name\`.`, allowed: names });
  }
  const op = ops.find((o) => o.name?.value === operationName);
  if (op) return op;
  const names = ops.map((o) => o.name?.value).filter((n): n is string => !!n);
  const near = closest(operationName, names);
  fail({ code: 'invalid_query', argument: 'operation_name', message: `No operation named \`${operationName}\` in the document.${near.length ? ` Did you mean ${near.map((n) => `\`${n}\``).join(' or ')}?` : ''} Operations: ${names.join(', ') || '(anonymous only)'}.`, allowed: names, ...(near.length ? { did_you_mean: near } : {}) });
}

/** Validation problems of a document against a schema, each with its locations and the names graphql-js suggests. */
export function validationProblems(schema: GraphQLSchema, doc: DocumentNode): QueryProblem[] {
  return validate(schema, doc).map((e) => {
    const suggestions = [...e.message.matchAll(/Did you mean (.*)\?/g)].flatMap((m) => [...m[1]!.matchAll(/"([^"]+)"/g)].map((x) => x[1]!));
    return {
      message: e.message,
      ...(e.locations?.length ? { locations: e.locations.map((l) => ({ line: l.line, column: l.column })) } : {}),
      ...(suggestions.length ? { did_you_mean: suggestions } : {}),
    };
  });
}

/**
 * Refuses numbers JSON cannot carry exactly (integers beyond 2^53): they would reach the server changed. BigInt
 * scalars take their values as strings.
 */
export function refuseUnsafeIntegers(value: unknown, argument: string, path = argument): void {
  if (typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value)) {
    fail({ code: 'invalid_argument', argument, message: `\`${path}\` is ${value}, an integer too large to pass exactly as a JSON number (beyond 2^53): pass it as a string, e.g. "12345678901234567891".` });
  }
  if (Array.isArray(value)) value.forEach((v, i) => refuseUnsafeIntegers(v, argument, `${path}[${i}]`));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) refuseUnsafeIntegers(v, argument, `${path}.${k}`);
}
