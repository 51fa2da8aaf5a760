import { inputSchema, type JsonSchema, type ToolContext, type ToolDef } from './tool.js';
import { runToolIn, type ToolResult } from './run.js';
import { describeTool } from './tools/describe.js';
import { findTool } from './tools/find.js';
import { impactTool } from './tools/impact.js';
import { neighborsTool } from './tools/neighbors.js';
import { resolveTool } from './tools/resolve.js';
import { searchTool } from './tools/search.js';
import { traceTool } from './tools/trace.js';
import { fieldValuesTool } from './tools/field-values.js';
import { graphqlMutateTool, graphqlQueryTool } from './tools/graphql-query.js';
import { graphqlValidateTool } from './tools/graphql-validate.js';
import { changesTool } from './tools/changes.js';
import { linksTool } from './tools/links.js';
import { serviceMapTool } from './tools/service-map.js';
import type { Ontology } from '../graph/ontology/index.js';

export type { ToolContext, ToolDef } from './tool.js';
export { ToolError } from './errors.js';

/** Every query tool, in the order they are presented. */
export const TOOLS: readonly ToolDef[] = [searchTool, findTool, describeTool, neighborsTool, resolveTool, traceTool, impactTool, changesTool, linksTool, serviceMapTool, graphqlQueryTool, graphqlValidateTool, fieldValuesTool, graphqlMutateTool];

/** Tools that change data: listed only where some source allows them. */
export const WRITE_TOOLS = new Set(['graphql_mutate']);
/** Tools that reach outside the index (a GraphQL endpoint). */
export const DATA_TOOLS = new Set(['graphql_query', 'field_values', 'graphql_mutate']);

export type { ToolResult } from './run.js';

export interface ToolListing {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
}

export function listTools(ontology: Ontology, opts: { mutations?: boolean } = {}): ToolListing[] {
  return TOOLS.filter((t) => opts.mutations || !WRITE_TOOLS.has(t.name)).map((t) => ({ name: t.name, title: t.title, description: t.description(ontology), inputSchema: inputSchema(t, ontology) }));
}

export function toolByName(name: string): ToolDef | undefined {
  return TOOLS.find((t) => t.name === name);
}

/**
 * Runs a tool on raw arguments (an object or its JSON text). Never throws: a caller mistake becomes
 * `{ok: false, error}` with a teaching message; an unexpected failure becomes an `internal` error.
 */
export async function runTool(ctx: ToolContext, name: string, rawArgs: unknown): Promise<ToolResult> {
  return runToolIn(TOOLS, ctx, name, rawArgs);
}
