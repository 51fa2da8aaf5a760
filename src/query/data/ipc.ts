/**
 * Reads Hugr's Arrow IPC answers (`POST /ipc`, same JSON request as `/query`), as query-engine v0.3.41 writes them
 * (ipc-query.go) and its Python client (hugr-client) reads them:
 *
 * - HTTP 200, `Content-Type: multipart/mixed; boundary=HUGR`; Go's mime/multipart framing (`--HUGR\r\n`, header
 *   lines, a blank line, the body; `\r\n--HUGR\r\n` between parts; `\r\n--HUGR--\r\n` to close). An answer whose
 *   lists are all empty has no part at all: the body is only the closing line.
 * - Every part: `X-Hugr-Part-Type` (`data`, `errors`, `extensions`), `X-Hugr-Format` (`table` | `object`) and
 *   `X-Hugr-Path`: `data.` and the response keys from the root to the query, modules included
 *   (`data.shop.customers`); an errors part carries the operation name there, or no path.
 * - `table` (`application/vnd.apache.arrow.stream`): one Arrow IPC stream (schema metadata `chunk`, record batches,
 *   end-of-stream) holding a list query's rows; nested objects are structs, nested lists are lists. An empty list
 *   writes no part (or an empty body with `X-Hugr-Empty: true`).
 * - `object` (`application/json`): one JSON value and a newline: a single-object query (by_pk, aggregation,
 *   function) or `null`.
 * - `errors`: a JSON array of GraphQL errors; when the operation fails it is the only part.
 * - `X-Hugr-Geometry: true` with `X-Hugr-Geometry-Fields: {"geom": {"srid": "4326", "format": "WKB"},
 *   "parent.geom": {"srid": "4326", "format": "GeoJSONString"}}`: dotted paths in a row (a list adds no segment).
 *   A table's own geometry columns are WKB binaries (tagged `ARROW:extension:name: geoarrow.wkb`), nested ones are
 *   GeoJSON text (tagged `hugr.geojson` inside structs); in `object` parts geometry is GeoJSON already.
 *
 * Cells come out as Hugr's JSON endpoint answers them (query-engine types/record_json.go): dates `2025-01-02`,
 * timestamps RFC 3339 with trailing fraction zeros trimmed and `Z` for UTC or no zone, times
 * `15:04:05.000000000`, intervals ISO 8601 durations, maps as `[{key, value}]`, binaries base64, geometry as
 * GeoJSON objects, NaN and infinities as null, float32 in its shortest form. Integers beyond 2^53 and decimals with
 * more than 15 significant digits are strings, where JSON would change them.
 */
import { Data, Field, Type, makeVector, tableFromIPC, util, type DataType } from 'apache-arrow';

/** One part of a multipart answer, its header names lowercased. */
export interface IpcPart {
  headers: ReadonlyMap<string, string>;
  body: Buffer;
}

/** What an /ipc answer holds; paths are without the leading `data.`. */
export interface IpcAnswer {
  tables: { path: string; columns: string[]; rows: unknown[][] }[];
  objects: { path: string; value: unknown }[];
  errors: unknown[];
  extensions?: Record<string, unknown>;
  /** Whether any data part came back (an answer with errors only has none). */
  hasData: boolean;
}

export interface IpcDecodeOptions {
  /** Dotted paths, within the rows of the table at `path`, of fields whose GraphQL type is the JSON scalar. */
  jsonFields?: (path: string) => ReadonlySet<string>;
}

export class IpcFormatError extends Error {}

const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');

/** The boundary of a `multipart/…; boundary=X` content type. */
export function multipartBoundary(contentType: string): string | undefined {
  if (!/^\s*multipart\//i.test(contentType)) return undefined;
  const m = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return m ? (m[1] ?? m[2]) : undefined;
}

/** Splits a MIME multipart body into its parts (RFC 2046: preamble and epilogue ignored, CRLF before each delimiter). */
export function splitMultipart(body: Buffer, boundary: string): IpcPart[] {
  const delimiter = Buffer.from(`--${boundary}`);
  const next = Buffer.from(`\r\n--${boundary}`);
  let at = body.subarray(0, delimiter.length).equals(delimiter) ? 0 : body.indexOf(next);
  if (at < 0) throw new IpcFormatError(`no multipart delimiter --${boundary} in the answer`);
  if (at > 0 || body[0] === 0x0d) at += 2;
  const parts: IpcPart[] = [];
  for (;;) {
    let p = at + delimiter.length;
    if (body[p] === 0x2d && body[p + 1] === 0x2d) return parts;
    const eol = body.indexOf(CRLF, p);
    if (eol < 0) throw new IpcFormatError('a multipart delimiter line does not end');
    p = eol + 2;
    const end = body.indexOf(next, p);
    if (end < 0) throw new IpcFormatError(`the multipart answer is not closed with --${boundary}--`);
    const part = body.subarray(p, end);
    let headerText = '';
    let content = part;
    if (part.subarray(0, 2).equals(CRLF)) content = part.subarray(2);
    else {
      const h = part.indexOf(HEADER_END);
      if (h < 0) throw new IpcFormatError('a multipart part has no blank line after its headers');
      headerText = part.subarray(0, h).toString('latin1');
      content = part.subarray(h + 4);
    }
    const headers = new Map<string, string>();
    for (const line of headerText.split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    parts.push({ headers, body: content });
    at = end + 2;
  }
}

/** Decodes a whole /ipc answer. Throws IpcFormatError (or Arrow's own error) when it is not one. */
export function decodeIpc(body: Buffer, contentType: string, options: IpcDecodeOptions = {}): IpcAnswer {
  const boundary = multipartBoundary(contentType);
  if (!boundary) throw new IpcFormatError(`the answer is ${contentType || 'without a content type'}, not multipart/mixed`);
  const out: IpcAnswer = { tables: [], objects: [], errors: [], hasData: false };
  for (const part of splitMultipart(body, boundary)) {
    const type = part.headers.get('x-hugr-part-type');
    const format = part.headers.get('x-hugr-format');
    const rawPath = part.headers.get('x-hugr-path') ?? '';
    const path = rawPath.startsWith('data.') ? rawPath.slice(5) : rawPath;
    if (type === 'errors' || type === 'error') {
      const value = parseJson(part.body, 'errors');
      if (Array.isArray(value)) out.errors.push(...(value as unknown[]));
      else out.errors.push(value);
    } else if (type === 'extensions') {
      const value = parseJson(part.body, 'extensions');
      out.extensions ??= {};
      if (value && typeof value === 'object' && !Array.isArray(value) && (path === '' || path === 'extensions')) Object.assign(out.extensions, value);
      else out.extensions[path || 'extensions'] = value;
    } else if (type === 'data' && format === 'table') {
      out.hasData = true;
      if (part.headers.get('x-hugr-empty') === 'true' || part.body.length === 0) {
        out.tables.push({ path, columns: [], rows: [] });
        continue;
      }
      const geometry = geometryFields(part.headers.get('x-hugr-geometry-fields'));
      out.tables.push({ path, ...decodeArrowTable(part.body, { geometry, json: options.jsonFields?.(path) ?? new Set() }) });
    } else if (type === 'data') {
      out.hasData = true;
      out.objects.push({ path, value: part.body.length ? parseJson(part.body, path) : null });
    }
  }
  return out;
}

function parseJson(body: Buffer, what: string): unknown {
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    throw new IpcFormatError(`the ${what} part is not JSON`);
  }
}

type GeometryFormat = 'wkb' | 'geojson-text' | 'as-is';
const GEOMETRY_FORMATS: Record<string, GeometryFormat> = { wkb: 'wkb', geojsonstring: 'geojson-text', geojson: 'as-is', h3cell: 'as-is' };
const GEOMETRY_EXTENSIONS: Record<string, GeometryFormat> = { 'geoarrow.wkb': 'wkb', 'hugr.geojson': 'geojson-text', 'hugr.h3cell': 'as-is' };

function geometryFields(header: string | undefined): Map<string, GeometryFormat> {
  const out = new Map<string, GeometryFormat>();
  if (!header) return out;
  let parsed: unknown;
  try {
    parsed = JSON.parse(header);
  } catch {
    throw new IpcFormatError('X-Hugr-Geometry-Fields is not JSON');
  }
  for (const [field, info] of Object.entries((parsed ?? {}) as Record<string, { format?: unknown }>)) {
    const format = GEOMETRY_FORMATS[String(info?.format ?? 'wkb').toLowerCase()];
    if (format) out.set(field, format);
  }
  return out;
}

interface CellContext {
  geometry: ReadonlyMap<string, GeometryFormat>;
  json: ReadonlySet<string>;
}

/** The rows of one Arrow IPC stream, cells as Hugr's JSON endpoint writes them. */
export function decodeArrowTable(stream: Uint8Array, ctx: CellContext): { columns: string[]; rows: unknown[][] } {
  const table = tableFromIPC(stream);
  const fields = table.schema.fields;
  const rows: unknown[][] = [];
  for (const batch of table.batches) {
    const columns = batch.data.children;
    for (let i = 0; i < batch.numRows; i++) rows.push(fields.map((f, j) => cell(columns[j]!, i, f.name, f, ctx, 0)));
  }
  return { columns: fields.map((f) => f.name), rows };
}

/** Deepest nesting of structs and lists read; deeper is refused rather than risking the stack. */
const MAX_NESTING = 64;

function isValid(d: Data, i: number): boolean {
  if (d.typeId === Type.Null) return false;
  const bitmap = d.nullBitmap;
  if (!bitmap || bitmap.length === 0) return true;
  const j = d.offset + i;
  return (bitmap[j >> 3]! & (1 << (j & 7))) !== 0;
}

function extensionOf(field: Field | undefined): GeometryFormat | undefined {
  const name = field?.metadata.get('ARROW:extension:name');
  return name ? GEOMETRY_EXTENSIONS[name] : undefined;
}

function cell(d: Data, i: number, path: string, field: Field | undefined, ctx: CellContext, depth: number): unknown {
  if (depth > MAX_NESTING) throw new IpcFormatError(`the Arrow data nests deeper than ${MAX_NESTING} levels`);
  if (!isValid(d, i)) return null;
  const geometry = ctx.geometry.get(path) ?? extensionOf(field);
  const type = d.type as DataType;
  const j = d.offset + i;
  switch (type.typeId) {
    case Type.Int: {
      const v = (d.values as ArrayLike<number | bigint>)[j]!;
      return typeof v === 'bigint' ? bigintValue(v) : v;
    }
    case Type.Float: {
      const precision = (type as unknown as { precision: number }).precision;
      const raw = (d.values as ArrayLike<number>)[j]!;
      const v = precision === 0 ? util.uint16ToFloat64(raw) : raw;
      if (!Number.isFinite(v)) return null;
      return precision === 1 ? shortestFloat32(v) : v;
    }
    case Type.Bool:
      return ((d.values as Uint8Array)[j >> 3]! & (1 << (j & 7))) !== 0;
    case Type.Utf8:
    case Type.LargeUtf8: {
      const text = Buffer.from(bytesAt(d, j)).toString('utf8');
      if (geometry === 'geojson-text' || ctx.json.has(path)) return embeddedJson(text);
      return text;
    }
    case Type.Binary:
    case Type.LargeBinary:
    case Type.FixedSizeBinary: {
      const bytes = type.typeId === Type.FixedSizeBinary ? fixedBytesAt(d, j) : bytesAt(d, j);
      if (geometry === 'wkb') return wkbToGeoJson(bytes);
      return Buffer.from(bytes).toString('base64');
    }
    case Type.Decimal:
      return decimalValue(d, j);
    case Type.Date: {
      const ms = (type as unknown as { unit: number }).unit === 0 ? (d.values as Int32Array)[j]! * 86_400_000 : Number((d.values as BigInt64Array)[j]!);
      return new Date(ms).toISOString().slice(0, 10);
    }
    case Type.Time: {
      const unit = (type as unknown as { unit: number }).unit;
      const raw = (d.values as ArrayLike<number | bigint>)[j]!;
      return timeOfDay(BigInt(raw) * NANOS_PER_UNIT[unit]!);
    }
    case Type.Timestamp: {
      const t = type as unknown as { unit: number; timezone?: string | null };
      return timestampText((d.values as BigInt64Array)[j]!, t.unit, t.timezone ?? '');
    }
    case Type.Interval:
      return intervalText(d, j, (type as unknown as { unit: number }).unit);
    case Type.Duration:
      return bigintValue((d.values as BigInt64Array)[j]!);
    case Type.Struct: {
      const children = (type as unknown as { children: Field[] }).children;
      const out: Record<string, unknown> = {};
      children.forEach((f, k) => {
        out[f.name] = cell(d.children[k]!, i, `${path}.${f.name}`, f, ctx, depth + 1);
      });
      return out;
    }
    case Type.List:
    case Type.LargeList:
    case Type.Map: {
      const offsets = d.valueOffsets as ArrayLike<number | bigint>;
      const start = Number(offsets[j]!);
      const end = Number(offsets[j + 1]!);
      const child = d.children[0]!;
      const childField = (type as unknown as { children: Field[] }).children[0];
      const out: unknown[] = [];
      for (let k = start; k < end; k++) out.push(cell(child, k, path, childField, ctx, depth + 1));
      return out;
    }
    case Type.FixedSizeList: {
      const size = (type as unknown as { listSize: number }).listSize;
      const childField = (type as unknown as { children: Field[] }).children[0];
      const out: unknown[] = [];
      for (let k = j * size; k < (j + 1) * size; k++) out.push(cell(d.children[0]!, k, path, childField, ctx, depth + 1));
      return out;
    }
    case Type.Dictionary: {
      const key = Number((d.values as ArrayLike<number | bigint>)[j]!);
      const dictionary = d.dictionary;
      if (!dictionary) throw new IpcFormatError('a dictionary column has no dictionary');
      let k = key;
      for (const chunk of dictionary.data) {
        if (k < chunk.length) return cell(chunk, k, path, field, ctx, depth + 1);
        k -= chunk.length;
      }
      throw new IpcFormatError('a dictionary key is out of range');
    }
    default:
      // Unions, string and binary views: through Arrow's own accessors.
      return toJsonValue(makeVector(d).get(i), depth);
  }
}

function toJsonValue(v: unknown, depth: number): unknown {
  if (depth > MAX_NESTING) throw new IpcFormatError(`the Arrow data nests deeper than ${MAX_NESTING} levels`);
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint') return bigintValue(v);
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (v instanceof Uint8Array) return Buffer.from(v).toString('base64');
  if (typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') return toJsonValue((v as { toJSON: () => unknown }).toJSON(), depth + 1);
  if (Array.isArray(v)) return v.map((x) => toJsonValue(x, depth + 1));
  if (typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toJsonValue(x, depth + 1)]));
  return v;
}

function bigintValue(v: bigint): number | string {
  return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString();
}

/** The shortest decimal that reads back as the same float32 (what Go writes for a float32). */
function shortestFloat32(v: number): number {
  for (let p = 1; p <= 9; p++) {
    const s = Number(v.toPrecision(p));
    if (Math.fround(s) === v) return s;
  }
  return v;
}

function bytesAt(d: Data, j: number): Uint8Array {
  const offsets = d.valueOffsets as ArrayLike<number | bigint>;
  return (d.values as Uint8Array).subarray(Number(offsets[j]!), Number(offsets[j + 1]!));
}

function fixedBytesAt(d: Data, j: number): Uint8Array {
  const width = (d.type as unknown as { byteWidth: number }).byteWidth;
  return (d.values as Uint8Array).subarray(j * width, (j + 1) * width);
}

/** Hugr's JSON-typed text cells: embedded as JSON when they are an object, a list or null, else kept as text. */
function embeddedJson(text: string): unknown {
  const t = text.trim();
  if (t === 'null') return null;
  if (t.startsWith('{') || t.startsWith('[')) {
    try {
      return JSON.parse(t) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

function decimalValue(d: Data, j: number): number | string {
  const type = d.type as unknown as { scale: number; bitWidth?: number };
  const words = (type.bitWidth ?? 128) / 32;
  const values = d.values as Uint32Array;
  let v = 0n;
  for (let w = words - 1; w >= 0; w--) v = (v << 32n) | BigInt(values[j * words + w]!);
  if (values[j * words + words - 1]! & 0x80000000) v -= 1n << BigInt(words * 32);
  const negative = v < 0n;
  let digits = (negative ? -v : v).toString();
  let text: string;
  if (type.scale <= 0) text = digits + '0'.repeat(-type.scale);
  else {
    if (digits.length <= type.scale) digits = '0'.repeat(type.scale - digits.length + 1) + digits;
    text = `${digits.slice(0, digits.length - type.scale)}.${digits.slice(digits.length - type.scale)}`;
  }
  if (negative) text = `-${text}`;
  const significant = text.replace(/[-.]/g, '').replace(/^0+/, '').replace(/0+$/, '');
  return significant.length <= 15 ? Number(text) : text;
}

const NANOS_PER_UNIT = [1_000_000_000n, 1_000_000n, 1_000n, 1n];

/** `15:04:05.000000000`, as Go formats a time of day. */
function timeOfDay(nanos: bigint): string {
  const day = 86_400_000_000_000n;
  const n = ((nanos % day) + day) % day;
  const secs = Number(n / 1_000_000_000n);
  const pad = (x: number) => String(x).padStart(2, '0');
  return `${pad(Math.floor(secs / 3600))}:${pad(Math.floor(secs / 60) % 60)}:${pad(secs % 60)}.${(n % 1_000_000_000n).toString().padStart(9, '0')}`;
}

const zoneFormats = new Map<string, Intl.DateTimeFormat>();

/** Minutes east of UTC in zone `tz` at `ms` (an IANA name or a fixed `+03:00`). */
function zoneOffsetMinutes(tz: string, ms: number): number {
  const fixed = /^([+-])(\d{2}):?(\d{2})$/.exec(tz);
  if (fixed) return (fixed[1] === '-' ? -1 : 1) * (Number(fixed[2]) * 60 + Number(fixed[3]));
  let format = zoneFormats.get(tz);
  if (!format) {
    try {
      format = new Intl.DateTimeFormat('en-US', { timeZone: tz, timeZoneName: 'longOffset' });
    } catch {
      throw new IpcFormatError(`a timestamp column has the unknown time zone ${JSON.stringify(tz)}`);
    }
    zoneFormats.set(tz, format);
  }
  const name = format.formatToParts(new Date(ms)).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  const m = /GMT([+-])(\d{2}):(\d{2})/.exec(name);
  return m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : 0;
}

/** RFC 3339 with nanoseconds, trailing zeros trimmed; `Z` for UTC and for a timestamp without zone (Go's RFC3339Nano). */
function timestampText(value: bigint, unit: number, tz: string): string {
  const perSecond = 1_000_000_000n / NANOS_PER_UNIT[unit]!;
  let seconds = value / perSecond;
  let rest = value % perSecond;
  if (rest < 0n) {
    rest += perSecond;
    seconds -= 1n;
  }
  const nanos = rest * NANOS_PER_UNIT[unit]!;
  const offset = tz ? zoneOffsetMinutes(tz, Number(seconds) * 1000) : 0;
  const local = new Date((Number(seconds) + offset * 60) * 1000).toISOString().slice(0, 19);
  const fraction = nanos === 0n ? '' : `.${nanos.toString().padStart(9, '0').replace(/0+$/, '')}`;
  const abs = Math.abs(offset);
  const zone = offset === 0 ? 'Z' : `${offset < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  return `${local}${fraction}${zone}`;
}

function intervalText(d: Data, j: number, unit: number): string {
  const v = d.values as Int32Array;
  if (unit === 0) return isoDuration(v[j]!, 0, 0n);
  if (unit === 1) return isoDuration(0, v[j * 2]!, BigInt(v[j * 2 + 1]!) * 1_000_000n);
  const lo = BigInt(v[j * 4 + 2]! >>> 0);
  const hi = BigInt(v[j * 4 + 3]!);
  return isoDuration(v[j * 4]!, v[j * 4 + 1]!, (hi << 32n) | lo);
}

/** ISO 8601 duration as Hugr writes one: zero parts left out, the time part normalised to hours, minutes, seconds. */
function isoDuration(months: number, days: number, nanos: bigint): string {
  if (months === 0 && days === 0 && nanos === 0n) return 'PT0S';
  let out = 'P';
  if (months) out += `${months}M`;
  if (days) out += `${days}D`;
  if (nanos !== 0n) {
    out += 'T';
    let n = nanos;
    if (n < 0n) {
      out += '-';
      n = -n;
    }
    const hours = n / 3_600_000_000_000n;
    n %= 3_600_000_000_000n;
    const minutes = n / 60_000_000_000n;
    n %= 60_000_000_000n;
    const secs = n / 1_000_000_000n;
    const frac = n % 1_000_000_000n;
    if (hours) out += `${hours}H`;
    if (minutes) out += `${minutes}M`;
    if (secs || frac) out += frac ? `${secs}.${frac.toString().padStart(9, '0').replace(/0+$/, '')}S` : `${secs}S`;
  }
  return out;
}

// --------------------------------------------------------------------------------------------------- WKB

const WKB_TYPES = ['', 'Point', 'LineString', 'Polygon', 'MultiPoint', 'MultiLineString', 'MultiPolygon', 'GeometryCollection'] as const;
/** Deepest nesting of geometry collections read. */
const MAX_WKB_NESTING = 32;

/**
 * GeoJSON of a WKB geometry (OGC and ISO WKB, and PostGIS EWKB: Z and M flags, an embedded SRID): points, line
 * strings, polygons, their multi forms and collections, 2D and with Z (an M ordinate is dropped: GeoJSON has none).
 * An empty point has no coordinates.
 */
export function wkbToGeoJson(bytes: Uint8Array): Record<string, unknown> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  const need = (n: number): void => {
    if (at + n > bytes.byteLength) throw new IpcFormatError('a WKB geometry ends early');
  };
  const geometry = (depth: number): Record<string, unknown> => {
    if (depth > MAX_WKB_NESTING) throw new IpcFormatError(`a WKB geometry nests deeper than ${MAX_WKB_NESTING} levels`);
    need(5);
    const little = view.getUint8(at) === 1;
    const code = view.getUint32(at + 1, little);
    at += 5;
    let hasZ = (code & 0x80000000) !== 0;
    let hasM = (code & 0x40000000) !== 0;
    if (code & 0x20000000) {
      need(4);
      at += 4;
    }
    const iso = code & 0x0fffffff;
    const kind = iso % 1000;
    const dims = Math.floor(iso / 1000);
    if (dims === 1 || dims === 3) hasZ = true;
    if (dims === 2 || dims === 3) hasM = true;
    const name = WKB_TYPES[kind];
    if (!name || dims > 3) throw new IpcFormatError(`WKB geometry type ${code} is not supported`);
    const size = 2 + (hasZ ? 1 : 0) + (hasM ? 1 : 0);
    const count = (each: number): number => {
      need(4);
      const n = view.getUint32(at, little);
      at += 4;
      if (n * each > bytes.byteLength - at) throw new IpcFormatError('a WKB geometry counts more elements than it holds');
      return n;
    };
    const point = (): number[] => {
      need(size * 8);
      const c: number[] = [];
      for (let k = 0; k < size; k++) c.push(view.getFloat64(at + k * 8, little));
      at += size * 8;
      return hasZ ? c.slice(0, 3) : c.slice(0, 2);
    };
    const points = (): number[][] => Array.from({ length: count(size * 8) }, point);
    const rings = (): number[][][] => Array.from({ length: count(4) }, points);
    switch (name) {
      case 'Point': {
        const c = point();
        return { type: name, coordinates: c.every((x) => Number.isNaN(x)) ? [] : c };
      }
      case 'LineString':
        return { type: name, coordinates: points() };
      case 'Polygon':
        return { type: name, coordinates: rings() };
      case 'GeometryCollection':
        return { type: name, geometries: Array.from({ length: count(5) }, () => geometry(depth + 1)) };
      default: {
        // Multi*: each member is a whole WKB geometry of the single kind.
        const members = Array.from({ length: count(5) }, () => geometry(depth + 1)['coordinates']);
        return { type: name, coordinates: name === 'MultiPoint' ? members.filter((c) => (c as number[]).length > 0) : members };
      }
    }
  };
  return geometry(0);
}
