/**
 * The web page: static files built from `page/` (bundled with every script and style at build time; nothing is
 * fetched from the network) and `POST /api/tools/<name>`, which runs the same query tools the MCP server runs. The
 * page is one more surface over `src/query`: it only draws what the tools answer.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isPostgresLocation, shownPostgresLocation } from '../../graph/postgres/location.js';
import { DATA_TOOLS, TOOLS, toolByName, WRITE_TOOLS } from '../../query/index.js';
import { VERSION } from '../../version.js';

/** The subset of the MCP server's store handle the page needs. */
export interface WebToolRunner {
  run(name: string, args: unknown): Promise<unknown>;
  readonly location: string;
}

/** The tools the page may call: the index's read-only tools. Data tools (a GraphQL endpoint) and writes are not on the page. */
export function pageMayCall(name: string): boolean {
  return !WRITE_TOOLS.has(name) && !DATA_TOOLS.has(name) && name !== 'refresh';
}

const MAX_BODY = 256 * 1024;
const TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.png': 'image/png', '.svg': 'image/svg+xml', '.map': 'application/json' };
const SECURITY_HEADERS = {
  'content-security-policy': "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/** Where `npm run build` puts the page: `dist/ui` of this package, found from this module in `src/` or `dist/`. */
export function pageDirectory(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return join(dir, 'dist', 'ui');
}

/** Whether a request path is the page's: `/`, its files under `/assets/`, or its API. */
export function isPagePath(pathname: string): boolean {
  return pathname === '/' || pathname === '/index.html' || pathname.startsWith('/assets/') || pathname.startsWith('/api/');
}

export async function handlePage(runner: WebToolRunner, req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
  if (pathname.startsWith('/api/')) return handleApi(runner, req, res, pathname);
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('The page is read-only: GET only.\n');
    return;
  }
  const root = pageDirectory();
  const file = pathname === '/' ? 'index.html' : pathname.slice(1);
  const full = normalize(join(root, file));
  if (!full.startsWith(root + sep) || !existsSync(full)) {
    const built = existsSync(join(root, 'index.html'));
    res.writeHead(built ? 404 : 503, { 'content-type': 'text/plain; charset=utf-8' }).end(built ? `Not found: ${pathname}\n` : `The web page is not built: run \`npm run build\` in the Sextant package (it writes ${root}).\n`);
    return;
  }
  const ext = full.slice(full.lastIndexOf('.'));
  res.writeHead(200, { 'content-type': TYPES[ext] ?? 'application/octet-stream', 'cache-control': file === 'index.html' ? 'no-cache' : 'public, max-age=300', ...SECURITY_HEADERS });
  res.end(req.method === 'HEAD' ? undefined : readFileSync(full));
}

async function handleApi(runner: WebToolRunner, req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
  const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...SECURITY_HEADERS }).end(JSON.stringify(body));
  if (pathname === '/api/info') {
    // A database URL without its password: the page shows where the index is, never a credential.
    json(200, { ok: true, version: VERSION, index: isPostgresLocation(runner.location) ? shownPostgresLocation(runner.location) : runner.location });
    return;
  }
  const tool = /^\/api\/tools\/([a-z_]+)$/.exec(pathname)?.[1];
  if (!tool) {
    json(404, { ok: false, error: { code: 'not_found', message: `No such API: ${pathname.slice(0, 200)}. The page calls POST /api/tools/<tool> with the tool's JSON arguments.` } });
    return;
  }
  if (req.method !== 'POST') {
    res.setHeader('allow', 'POST');
    json(405, { ok: false, error: { code: 'method_not_allowed', message: 'POST the tool\'s arguments as a JSON object.' } });
    return;
  }
  if (!toolByName(tool)) {
    json(404, { ok: false, error: { code: 'unknown_tool', message: `No tool named ${JSON.stringify(tool)}. The page may call: ${TOOLS.filter((t) => pageMayCall(t.name)).map((t) => t.name).join(', ')}.` } });
    req.resume();
    return;
  }
  if (!pageMayCall(tool)) {
    json(403, { ok: false, error: { code: 'not_on_page', message: `${tool} is not offered to the page, which is read-only over the index; use the MCP endpoint or \`sextant call ${tool}\`.` } });
    req.resume();
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) {
      json(413, { ok: false, error: { code: 'too_large', message: `Arguments over ${MAX_BODY} bytes.` } });
      return;
    }
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  // Arguments go to the tool as sent (object or JSON text): the tools' own coercion and errors apply, as over MCP.
  json(200, await runner.run(tool, text.trim() === '' ? {} : text));
}
