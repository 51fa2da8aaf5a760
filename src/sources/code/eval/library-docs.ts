import type { Library, LibraryMethod } from './library.js';

export const LIBRARY_TABLE_START = '<!-- library-table:start (npm run docs) -->';
export const LIBRARY_TABLE_END = '<!-- library-table:end -->';

function mark(row: LibraryMethod): string {
  if (row.http) return '*';
  if (row.message) return '†';
  if (row.declares) return '‡';
  return '';
}

/** The library table as docs/links.md shows it: per type, its methods, marked by what a call to them does. */
export function renderLibraryTable(library: Library): string {
  const byType = new Map<string, Set<string>>();
  for (const row of library.rows()) (byType.get(row.owner) ?? byType.set(row.owner, new Set()).get(row.owner)!).add(`${row.name}${mark(row)}`);
  const lines = ['| Type | Methods (`*` sends a request, `†` sends a message, `‡` declares a binding, queue, listener, gateway route or client base URL) |', '|---|---|'];
  for (const type of [...byType.keys()].sort()) lines.push(`| \`${type}\` | ${[...byType.get(type)!].sort().map((m) => `\`${m}\``).join(', ')} |`);
  lines.push('', 'Handler annotations (a method so annotated listens on the destination the argument names, for the class its parameter takes):', '', '| Annotation | Destination argument | Protocol | Message class |', '|---|---|---|---|');
  for (const h of [...library.handlerAnnotationRows()].sort((a, b) => (a.annotation < b.annotation ? -1 : a.annotation > b.annotation ? 1 : 0))) lines.push(`| \`${h.annotation}\` | \`${h.destination}\` | ${h.protocol} | \`${h.message_type ?? 'param0'}\` |`);
  lines.push('', 'Library classes bound from configuration:', '', '| Type | Prefix |', '|---|---|');
  for (const { type, prefix } of library.configurationRows()) lines.push(`| \`${type}\` | \`${prefix}\` |`);
  return lines.join('\n');
}

/** `text` with the part between the markers replaced by the table. */
export function withLibraryTable(text: string, table: string): string {
  const start = text.indexOf(LIBRARY_TABLE_START);
  const end = text.indexOf(LIBRARY_TABLE_END);
  if (start < 0 || end < start) throw new Error('docs/links.md has no library-table markers');
  return `${text.slice(0, start + LIBRARY_TABLE_START.length)}\n${table}\n${text.slice(end)}`;
}
