import { capErrorBody, excerpt, ToolError, type ToolErrorBody } from './errors.js';
import { checkArguments, inputSchema, MAX_ARGUMENT_NAME, type JsonSchema, type ToolContext, type ToolDef } from './tool.js';
import { closest } from '../search/similarity.js';
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
import { asObject } from './coerce.js';
import type { Ontology } from '../graph/ontology/index.js';
import { ViewStore } from './view/store.js';

export type { ToolContext, ToolDef } from './tool.js';
export { ToolError } from './errors.js';

/** Every query tool, in the order they are presented. */
export const TOOLS: readonly ToolDef[] = [searchTool, findTool, describeTool, neighborsTool, resolveTool, traceTool, impactTool, graphqlQueryTool, graphqlValidateTool, fieldValuesTool, graphqlMutateTool];

/** Tools that change data: listed only where some source allows them. */
export const WRITE_TOOLS = new Set(['graphql_mutate']);
/** Tools that reach outside the index (a GraphQL endpoint). */
export const DATA_TOOLS = new Set(['graphql_query', 'field_values', 'graphql_mutate']);

export type ToolResult = ({ ok: true } & Record<string, unknown>) | { ok: false; error: ToolErrorBody };

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
  const result = await runUnchecked(ctx, name, rawArgs);
  // Whatever a tool put in an error, no huge value leaves here (an answer is bounded by its limit instead).
  return result.ok ? result : { ok: false, error: capErrorBody(result.error) };
}

/** The one path every surface takes (MCP stdio, MCP HTTP, CLI): decode, check sizes and names, run. */
async function runUnchecked(ctx: ToolContext, name: string, rawArgs: unknown): Promise<ToolResult> {
  try {
    const tool = toolByName(name);
    if (!tool) {
      const names = TOOLS.map((t) => t.name);
      const suggestions = name.length <= MAX_ARGUMENT_NAME ? closest(name, names) : [];
      return { ok: false, error: { code: 'unknown_tool', message: `No tool named ${excerpt(name)}.${suggestions.length ? ` Did you mean ${suggestions.join(' or ')}?` : ''} Tools: ${names.join(', ')}.`, allowed: names } };
    }
    const args = asObject(rawArgs, 'arguments') ?? {};
    checkArguments(tool, ctx.ontology, args);
    // Every answer about a Hugr source this server can query is made from what the caller's role may see.
    const viewed = ctx.data && ctx.data.sources.size > 0 ? new ViewStore(ctx.store, ctx.data) : undefined;
    const result = await tool.run(viewed ? { ...ctx, store: viewed } : ctx, args);
    const views = viewed && viewed.used.size > 0 ? { views: [...viewed.used.values()].sort((a, b) => (a.source < b.source ? -1 : 1)) } : {};
    return { ...result, ...views, index: await freshnessOf(ctx) } as unknown as ToolResult;
  } catch (err) {
    if (err instanceof ToolError) return { ok: false, error: err.body };
    const message = err instanceof Error ? err.message : String(err);
    return { ok: false, error: { code: 'internal', message: `Internal error in ${name.length <= 40 ? name : excerpt(name, 40)}: ${message}. This is a Sextant bug; the index is unchanged.` } };
  }
}

/** How fresh the answer is: when the index was written, how long ago, and whether changes are waiting. */
async function freshnessOf(ctx: ToolContext): Promise<Record<string, unknown>> {
  const f = await ctx.store.freshness();
  const age = f.updated_at ? Math.max(0, Math.round((Date.now() - Date.parse(f.updated_at)) / 1000)) : null;
  return { updated_at: f.updated_at, age_seconds: age, ...(f.pending_since ? { changes_pending_since: f.pending_since } : {}) };
}
