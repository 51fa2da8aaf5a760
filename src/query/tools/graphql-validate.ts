import { GraphQLError, Kind, parse, type OperationDefinitionNode } from 'graphql';
import { asString } from '../coerce.js';
import { fail } from '../errors.js';
import { validationProblems, type QueryProblem } from '../data/operation.js';
import { indexedSchema } from '../data/schema.js';
import { chooseSource } from '../data/source.js';
import type { ToolDef } from '../tool.js';

export const graphqlValidateTool: ToolDef = {
  name: 'graphql_validate',
  title: 'Validate a GraphQL document',
  description: () =>
    'Checks a GraphQL document against the indexed schema of a source, without running it: `valid`, and every problem with its line and column and the names GraphQL suggests instead. Nothing is sent to the server. How Hugr queries are shaped: the MCP resource sextant://guide/hugr.',
  params: () => [
    { name: 'query', description: 'The GraphQL document to check.', schema: { type: 'string', minLength: 1 }, required: true },
    { name: 'source', description: 'The GraphQL source whose schema to check against (needed when several are indexed).', schema: { type: 'string' } },
  ],
  run: async (ctx, args) => {
    const query = asString(args['query'], 'query')!;
    const sources = (await ctx.store.sources()).filter((s) => s.kind === 'graphql').map((s) => s.name).sort();
    if (sources.length === 0) fail({ code: 'not_found', message: 'The index has no GraphQL source to validate against. Index one (`sextant index <schema or endpoint>`).' });
    const source = chooseSource('graphql_validate', sources, asString(args['source'], 'source'), { one: 'is indexed', many: 'are indexed' });
    const schema = await indexedSchema(ctx.store, source);
    if (!schema) fail({ code: 'index_unavailable', message: `The index does not keep the schema of "${source}" (it was written by an older Sextant): re-index it.` });
    let problems: QueryProblem[];
    let operations: { type: string; name?: string }[] = [];
    try {
      const doc = parse(query);
      operations = doc.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION).map((o) => ({ type: o.operation, ...(o.name ? { name: o.name.value } : {}) }));
      problems = validationProblems(schema, doc);
    } catch (err) {
      const e = err as GraphQLError;
      problems = [{ message: e.message, ...(e.locations?.length ? { locations: e.locations.map((l) => ({ line: l.line, column: l.column })) } : {}) }];
    }
    return { ok: true, source, valid: problems.length === 0, operations, problems };
  },
};
