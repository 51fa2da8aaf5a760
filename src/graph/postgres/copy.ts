import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** A value of one COPY column: text, a number, a boolean, a text array, or null. */
export type CopyValue = string | number | boolean | null | undefined | readonly string[];

/** PostgreSQL text never holds NUL; such a character (only ever in malformed input) is stored as U+FFFD. */
function safeText(text: string): string {
  return text.includes('\0') ? text.replace(/\0/g, '\uFFFD') : text;
}

/** A string as COPY's text format writes it: backslash, tab, newline and carriage return escaped. */
function escapeCopy(text: string): string {
  return /[\\\t\n\r]/.test(text) ? text.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r')) : text;
}

/** A text array's literal (`{"a","b\"c"}`), every element quoted. */
function arrayLiteral(items: readonly string[]): string {
  return `{${items.map((i) => `"${safeText(i).replace(/[\\"]/g, (c) => `\\${c}`)}"`).join(',')}}`;
}

function copyField(v: CopyValue): string {
  if (v === null || v === undefined) return '\\N';
  if (typeof v === 'string') return escapeCopy(safeText(v));
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : '\\N';
  if (typeof v === 'boolean') return v ? 't' : 'f';
  return escapeCopy(arrayLiteral(v));
}

/**
 * Streams rows into a table with COPY … FROM STDIN (text format) on the client's open transaction: rows are
 * encoded as they are pulled, a chunk at a time, with the socket's backpressure, never one round trip per row.
 */
export async function copyRows(client: PoolClient, table: string, columns: readonly string[], rows: Iterable<readonly CopyValue[]>, onRows?: (done: number) => void): Promise<number> {
  let count = 0;
  function* chunks(): Generator<string> {
    let chunk = '';
    for (const row of rows) {
      chunk += row.map(copyField).join('\t') + '\n';
      count++;
      if (chunk.length >= 1 << 16) {
        yield chunk;
        chunk = '';
        onRows?.(count);
      }
    }
    if (chunk) yield chunk;
  }
  const stream = client.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN`));
  await pipeline(Readable.from(chunks()), stream);
  onRows?.(count);
  return count;
}
