import { readFile } from 'node:fs/promises';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListResourcesRequestSchema, ListResourceTemplatesRequestSchema, McpError, ReadResourceRequestSchema } from '@modelcontextprotocol/sdk/types.js';

export const HUGR_GUIDE_URI = 'sextant://guide/hugr';

/** MCP's "resource not found" error code. */
const RESOURCE_NOT_FOUND = -32002;

interface Guide {
  uri: string;
  name: string;
  title: string;
  description: string;
  /** A Markdown file in the package's docs/ (shipped: `docs` is in package.json `files`). */
  file: string;
}

/** Guides are listed whatever the index holds: they cost nothing, and an agent may read one before indexing. */
const GUIDES: readonly Guide[] = [
  {
    uri: HUGR_GUIDE_URI,
    name: 'guide-hugr',
    title: 'Querying Hugr through Sextant',
    description:
      'The Hugr query language as Sextant serves it: paths under the query, mutation, function and mutation-function roots, filters, order_by, nested arguments on relations, aggregations and bucket aggregations, functions, whose identity queries run with, and which tool to use when.',
    file: 'guide-hugr.md',
  },
];

/** docs/ at the package root: three levels above this module, from src/surfaces/mcp (tsx) and dist/surfaces/mcp alike. */
const DOCS_DIR = new URL('../../../docs/', import.meta.url);

const texts = new Map<string, string>();

/** A guide's Markdown, read from the package once per process. */
export async function guideText(uri: string): Promise<string | undefined> {
  const guide = GUIDES.find((g) => g.uri === uri);
  if (!guide) return undefined;
  const cached = texts.get(uri);
  if (cached !== undefined) return cached;
  const url = new URL(guide.file, DOCS_DIR);
  let text: string;
  try {
    text = await readFile(url, 'utf8');
  } catch (err) {
    throw new McpError(RESOURCE_NOT_FOUND, `The guide ${uri} is missing from this installation (${url.pathname}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); reinstall sextant.`, { uri });
  }
  texts.set(uri, text);
  return text;
}

/** Adds resources/list, resources/templates/list and resources/read for the guides (the server must declare `resources`). */
export function registerGuides(server: Server): void {
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: GUIDES.map((g) => ({ uri: g.uri, name: g.name, title: g.title, description: g.description, mimeType: 'text/markdown' })),
  }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: [] }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const { uri } = request.params;
    const text = await guideText(uri);
    if (text === undefined) {
      throw new McpError(RESOURCE_NOT_FOUND, `No resource ${JSON.stringify(uri.slice(0, 200))}. This server has: ${GUIDES.map((g) => g.uri).join(', ')}.`, { uri: uri.slice(0, 200) });
    }
    return { contents: [{ uri, mimeType: 'text/markdown', text }] };
  });
}
