/** The page's one way to the index: the same tools the MCP server runs, through `POST /api/tools/<name>`. */
export type Json = Record<string, any>;

export class ToolFailure extends Error {
  constructor(readonly tool: string, readonly error: Json) {
    super(`${tool}: ${String(error.message ?? error.code ?? 'failed')}`);
  }
}

export async function call(tool: string, args: Json = {}): Promise<Json> {
  const res = await fetch(`/api/tools/${tool}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(args) });
  const body = (await res.json()) as Json;
  if (!body.ok) throw new ToolFailure(tool, body.error ?? { message: `HTTP ${res.status}` });
  return body;
}

/** Every page of a paginated tool answer, concatenated under `key`, up to `max` items. */
export async function callAll(tool: string, args: Json, key: string, max = 5000): Promise<Json[]> {
  const out: Json[] = [];
  const limit = Number(args.limit ?? 500);
  for (let offset = 0; out.length < max; offset += limit) {
    const page = await call(tool, { ...args, limit, offset });
    out.push(...((page[key] as Json[] | undefined) ?? []));
    if (!page.has_more) break;
  }
  return out;
}
