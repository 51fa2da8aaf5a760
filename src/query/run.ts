/**
 * The one path every surface takes to run a tool (MCP stdio, MCP HTTP, the CLI): decode, check sizes and names,
 * run, add the index's freshness. Kept apart from the tool registry (`index.ts`) so a caller that needs only the
 * code tools (a CLI query) does not load the GraphQL data tools, their parser and the Arrow decoder with it.
 */
import { capErrorBody, excerpt, ToolError, type ToolErrorBody } from './errors.js';
import { checkArguments, MAX_ARGUMENT_NAME, type ToolContext, type ToolDef } from './tool.js';
import { closest } from '../search/similarity.js';
import { asObject } from './coerce.js';

export type ToolResult = ({ ok: true } & Record<string, unknown>) | { ok: false; error: ToolErrorBody };

/**
 * Runs the tool `name` of `tools` on raw arguments (an object or its JSON text). Never throws: a caller mistake
 * becomes `{ok: false, error}` with a teaching message; an unexpected failure becomes an `internal` error.
 */
export async function runToolIn(tools: readonly ToolDef[], ctx: ToolContext, name: string, rawArgs: unknown): Promise<ToolResult> {
  const result = await runUnchecked(tools, ctx, name, rawArgs);
  // Whatever a tool put in an error, no huge value leaves here (an answer is bounded by its limit instead).
  return result.ok ? result : { ok: false, error: capErrorBody(result.error) };
}

async function runUnchecked(tools: readonly ToolDef[], ctx: ToolContext, name: string, rawArgs: unknown): Promise<ToolResult> {
  try {
    const tool = tools.find((t) => t.name === name);
    if (!tool) {
      const names = tools.map((t) => t.name);
      const suggestions = name.length <= MAX_ARGUMENT_NAME ? closest(name, names) : [];
      return { ok: false, error: { code: 'unknown_tool', message: `No tool named ${excerpt(name)}.${suggestions.length ? ` Did you mean ${suggestions.join(' or ')}?` : ''} Tools: ${names.join(', ')}.`, allowed: names } };
    }
    const args = asObject(rawArgs, 'arguments') ?? {};
    checkArguments(tool, ctx.ontology, args);
    // Every answer about a Hugr source this server can query is made from what the caller's role may see. The view
    // (and GraphQL with it) is loaded only where some data source is configured.
    const viewed = ctx.data && ctx.data.sources.size > 0 ? new (await import('./view/store.js')).ViewStore(ctx.store, ctx.data) : undefined;
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
