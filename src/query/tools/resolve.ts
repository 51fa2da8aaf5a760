import { looksLikeNodeId } from '../../graph/ids.js';
import { HTTP_METHODS, literalSegmentCount, pathPattern } from '../../graph/ontology/code.js';
import type { Predicate } from '../../graph/store.js';
import type { NodeRecord } from '../../graph/types.js';
import { asEnum, asString } from '../coerce.js';
import { limitHints, type Hint } from '../hints.js';
import { listEntry } from '../present.js';
import type { ToolContext, ToolDef } from '../tool.js';
import { isCodeType } from '../walk.js';
import { nameSuggestions } from './absence.js';
import { patternAccepts } from '../../search/patterns.js';
import { closest } from '../../search/similarity.js';

const MAX_CANDIDATES = 20;

/** One node an identifier names, and why. */
export interface Match {
  node: NodeRecord;
  reason: string;
  score: number;
}

type Lookup = (ctx: ToolContext, identifier: string, kinds: string[] | undefined) => Promise<Match[]>;

interface Tier {
  /** Tiers of one level are equally exact: their matches are answered together. */
  level: number;
  lookup: Lookup;
}

const as = (reason: string, score: number, find: (ctx: ToolContext, identifier: string, kinds: string[] | undefined) => Promise<NodeRecord[]>): Lookup => async (ctx, s, kinds) =>
  (await find(ctx, s, kinds)).map((node) => ({ node, reason, score }));

const byName = (field: 'qualified_name' | 'name', caseInsensitive: boolean) => (ctx: ToolContext, s: string, kinds: string[] | undefined) =>
  ctx.store.nodesByName(field, s, { caseInsensitive, ...(kinds ? { kinds } : {}), limit: MAX_CANDIDATES + 1 });

/**
 * Lookups from most to least exact; the first level with any match decides, and every match of that level is
 * answered (a name that is both a method and a service directory is both).
 */
const TIERS: Tier[] = [
  { level: 0, lookup: as('exact id', 1, async (ctx, s, kinds) => (looksLikeNodeId(s) ? (await ctx.store.getNodes([s])).filter((n) => !kinds || kinds.includes(n.kind)) : [])) },
  { level: 1, lookup: as('exact qualified name', 0.95, byName('qualified_name', false)) },
  { level: 2, lookup: as('exact name', 0.9, byName('name', false)) },
  { level: 2, lookup: (ctx, s, kinds) => membersNamed(ctx, s, kinds) },
  { level: 2, lookup: (ctx, s, kinds) => servicesNamed(ctx, s, kinds) },
  { level: 2, lookup: (ctx, s, kinds) => declaredInFile(ctx, s, kinds) },
  { level: 2, lookup: as('route by method and path', 0.85, (ctx, s, kinds) => routesByPath(ctx, s, kinds)) },
  { level: 2, lookup: as('route by destination', 0.85, (ctx, s, kinds) => routesByDestination(ctx, s, kinds)) },
  { level: 3, lookup: as('qualified name, ignoring case', 0.8, byName('qualified_name', true)) },
  { level: 3, lookup: as('name, ignoring case', 0.75, byName('name', true)) },
  { level: 4, lookup: as('end of qualified name', 0.6, (ctx, s, kinds) => ctx.store.nodesByQualifiedNameSuffix(s, { ...(kinds ? { kinds } : {}), limit: MAX_CANDIDATES + 1 })) },
];

// ------------------------------------------------------------------------------------------- members

/** `Type#member`, `Type.member` or `Type::member`, with or without a parameter list, as people and stack traces write them. */
export interface MemberRef {
  type: string;
  member: string;
  /** Parameter types as the index writes them (simple names, no generics, varargs as `[]`); absent when none was given. */
  params?: string[];
  /** A stack frame's `(File.java:52)`: the line the member spans. */
  line?: number;
}

const IDENT = String.raw`[\p{L}_$][\p{L}\p{N}_$]*`;
const TYPE_PART = new RegExp(`^${IDENT}(?:\\.${IDENT})*$`, 'u');
const MEMBER_PART = new RegExp(`^(?:${IDENT}|<init>|<clinit>)$`, 'u');
const FRAME_LOCATION = /^[\w$.-]+\.(?:java|kt|kts|groovy|scala):(\d+)$/;
const SYMBOL_TYPE_KINDS = ['class', 'interface', 'enum', 'record', 'annotation'];

/** Removes `<…>` (nested) from a type as written. */
function eraseGenerics(text: string): string {
  let out = '';
  let depth = 0;
  for (const c of text) {
    if (c === '<') depth++;
    else if (c === '>') depth = Math.max(0, depth - 1);
    else if (depth === 0) out += c;
  }
  return out;
}

/** Splits a parameter list at its top-level commas (commas inside generics belong to the type). */
function splitParams(inner: string): string[] {
  if (!inner.trim()) return [];
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const c of inner) {
    if (c === '<' || c === '(' || c === '[') depth++;
    if (c === '>' || c === ')' || c === ']') depth--;
    if (c === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out;
}

/**
 * One parameter as the index writes it in signatures: `final @PathVariable int ownerId` → `int`,
 * `java.util.List<Foo>` → `List`, `String...` → `String[]`, `ownerId: Int?` (Kotlin) → `Int`; `Map.Entry` stays.
 */
export function normalizeParam(written: string): string | undefined {
  let s = written.replace(/@[\w.]+(?:\([^)]*\))?/g, ' ').replace(/\b(?:final|vararg)\b/g, ' ').trim();
  const colon = s.indexOf(':');
  if (colon >= 0) s = s.slice(colon + 1);
  s = eraseGenerics(s).replace(/\.\.\./g, '[]').replace(/\s*\[\s*\]/g, '[]').replace(/\?/g, '').trim();
  const type = s.split(/\s+/)[0] ?? '';
  const m = /^([\p{L}_$][\p{L}\p{N}_$.]*)((?:\[\])*)$/u.exec(type);
  if (!m) return undefined;
  const parts = m[1]!.split('.');
  let i = 0;
  while (i < parts.length - 1 && /^[a-z_]/.test(parts[i]!)) i++;
  return parts.slice(i).join('.') + m[2]!;
}

/** Compared by last segment, so `Entry` and `Map.Entry`, `Order` and `com.x.Order` are the same parameter. */
function paramKey(p: string): string {
  const base = p.replace(/(\[\])+$/, '');
  return base.slice(base.lastIndexOf('.') + 1) + p.slice(base.length);
}

/** The member reference an identifier writes, if it writes one. */
export function parseMemberRef(identifier: string): MemberRef | undefined {
  let s = identifier.trim().replace(/^at\s+/, '');
  if (s.length > 1024) return undefined;
  let params: string[] | undefined;
  let line: number | undefined;
  if (s.endsWith(')')) {
    const open = s.indexOf('(');
    if (open <= 0) return undefined;
    const inner = s.slice(open + 1, -1).trim();
    s = s.slice(0, open).trim();
    const frame = FRAME_LOCATION.exec(inner);
    if (frame) line = Number(frame[1]);
    else if (inner !== 'Unknown Source' && inner !== 'Native Method') {
      const written = splitParams(inner).map(normalizeParam);
      if (written.some((p) => p === undefined)) return undefined;
      params = written as string[];
    }
  }
  const hash = s.lastIndexOf('#');
  const colons = s.lastIndexOf('::');
  const at = colons > hash ? colons : hash > 0 ? hash : s.lastIndexOf('.');
  if (at <= 0) return undefined;
  const width = at === colons ? 2 : 1;
  // A stack trace writes nested types `Outer$Inner`; the index writes `Outer.Inner` (anonymous ones stay `Outer$1`).
  const type = eraseGenerics(s.slice(0, at)).trim().replace(/\$(?=\p{L})/gu, '.');
  const member = s.slice(at + width).trim();
  if (!TYPE_PART.test(type) || !MEMBER_PART.test(member)) return undefined;
  return { type, member, ...(params ? { params } : {}), ...(line ? { line } : {}) };
}

/** Code types (project or library) a written type names: its exact qualified name, else the types whose qualified name ends with it. */
export async function typesNamed(ctx: ToolContext, written: string): Promise<NodeRecord[]> {
  const exact = (await ctx.store.nodesByName('qualified_name', written, { caseInsensitive: false, kinds: ['symbol'], limit: 50 })).filter(isCodeType);
  if (exact.length) return exact;
  const bySuffix = await ctx.store.nodesByQualifiedNameSuffix(written, { kinds: ['symbol'], limit: 200 });
  return bySuffix.filter((n) => isCodeType(n) && n.qualified_name.endsWith(written) && /[.$]/.test(n.qualified_name.charAt(n.qualified_name.length - written.length - 1)));
}

/** The parameter types a member's qualified name writes (`pkg.T#m(int,String)` → ['int', 'String']); undefined when unknown (library methods). */
function paramsOf(node: NodeRecord): string[] | undefined {
  const qn = node.qualified_name;
  const open = qn.indexOf('(', qn.indexOf('#'));
  if (open < 0 || !qn.endsWith(')')) return undefined;
  const inner = qn.slice(open + 1, -1);
  if (inner === '?') return undefined;
  return inner ? inner.split(',') : [];
}

export function signatureOf(node: NodeRecord): string | undefined {
  if (node.kind !== 'symbol' || isCodeType(node)) return undefined;
  if (typeof node.props.signature === 'string') return node.props.signature;
  const hash = node.qualified_name.indexOf('#');
  return hash >= 0 ? node.qualified_name.slice(hash + 1) : undefined;
}

function hasSymbolProperty(ctx: ToolContext, property: string): boolean {
  return ctx.ontology.kind('symbol')?.properties.some((p) => p.name === property) ?? false;
}

/** Members of these types named `name` (a constructor also as `Type#Type`, `Type::new` or `Type#<init>`). */
async function declaredMembers(ctx: ToolContext, types: readonly NodeRecord[], name: string): Promise<NodeRecord[]> {
  if (!types.length) return [];
  const names = [name];
  if (name === 'new' || types.some((t) => t.name === name)) names.push('<init>');
  const { nodes } = await ctx.store.findNodes({
    kinds: ['symbol'],
    predicates: [
      { property: 'declaring_type', op: 'in', values: types.map((t) => t.qualified_name) },
      { property: 'name', op: 'in', values: names },
      { property: 'symbol_kind', op: 'in', values: ['method', 'constructor'] },
    ],
    limit: 500,
    offset: 0,
  });
  return nodes;
}

const MAX_SUPERTYPE_LEVELS = 8;

/**
 * What a member reference names: the members of the named type(s) with that name, or, when a type declares none,
 * the nearest supertypes' (project or library) it inherits; narrowed by the parameter types given, and by the line
 * of a stack frame. Several overloads are all answered.
 */
export async function resolveMemberRef(ctx: ToolContext, ref: MemberRef): Promise<{ types: NodeRecord[]; matches: Match[]; byName: NodeRecord[] }> {
  const types = await typesNamed(ctx, ref.type);
  let byName: NodeRecord[] = [];
  let reason = ref.params ? 'type, member name and parameter types' : 'type and member name';
  let level = types;
  const seen = new Set(types.map((t) => t.id));
  for (let depth = 0; level.length && depth <= MAX_SUPERTYPE_LEVELS; depth++) {
    byName = await declaredMembers(ctx, level, ref.member);
    if (byName.length) break;
    const supers = await ctx.store.edges({ ids: level.map((t) => t.id), direction: 'out', types: ['EXTENDS', 'IMPLEMENTS'], limit: 200, offset: 0 });
    level = supers.rows.map((r) => r.other).filter((t) => !seen.has(t.id) && (seen.add(t.id), true));
    if (level.length) reason = `inherited from ${level.map((t) => t.name).join(', ')}${ref.params ? ', parameter types' : ''}`;
  }
  let found = byName;
  if (ref.params) {
    const want = ref.params.map(paramKey).join(',');
    found = found.filter((n) => {
      const have = paramsOf(n);
      return have === undefined || have.map(paramKey).join(',') === want;
    });
  }
  if (ref.line !== undefined && found.length > 1) {
    const at = found.filter((n) => n.line != null && n.line <= ref.line! && typeof n.props.end_line === 'number' && n.props.end_line >= ref.line!);
    if (at.length) {
      found = at;
      reason += ', line of the stack frame';
    }
  }
  return { types, matches: found.map((node) => ({ node, reason: paramsOf(node) === undefined && ref.params ? `${reason} (a library method: its parameters are not known)` : reason, score: 0.9 })), byName };
}

async function membersNamed(ctx: ToolContext, identifier: string, kinds: string[] | undefined): Promise<Match[]> {
  if ((kinds && !kinds.includes('symbol')) || !hasSymbolProperty(ctx, 'declaring_type')) return [];
  const ref = parseMemberRef(identifier);
  return ref ? (await resolveMemberRef(ctx, ref)).matches : [];
}

// ------------------------------------------------------------------------------------------- services

/** Service properties that name it besides its name (`spring.application.name`), as people refer to a service. */
const SERVICE_ALIASES: readonly { property: string; reason: string }[] = [
  { property: 'directory', reason: 'service directory' },
  { property: 'modules', reason: 'build module (artifact) of the service' },
  { property: 'hosts', reason: 'host name the deployment gives the service' },
];

async function servicesNamed(ctx: ToolContext, identifier: string, kinds: string[] | undefined): Promise<Match[]> {
  const service = ctx.ontology.kind('service');
  if ((kinds && !kinds.includes('service')) || !service) return [];
  const written = identifier.trim().replace(/\\/g, '/').replace(/^\.\//, '').replace(/\/+$/, '');
  if (!written || /\s/.test(written)) return [];
  const out: Match[] = [];
  for (const alias of SERVICE_ALIASES) {
    if (!service.properties.some((p) => p.name === alias.property)) continue;
    const predicate: Predicate = ctx.ontology.listProperties.has(alias.property) ? { property: alias.property, op: 'has_any', values: [written] } : { property: alias.property, op: 'in', values: [written] };
    const { nodes } = await ctx.store.findNodes({ kinds: ['service'], predicates: [predicate], limit: MAX_CANDIDATES + 1, offset: 0 });
    for (const node of nodes) if (!out.some((m) => m.node.id === node.id)) out.push({ node, reason: alias.reason, score: 0.9 });
  }
  return out;
}

// ------------------------------------------------------------------------------------------- files

/** A file as written (`src/main/java/…/Foo.java`, absolute, relative to the root or a service), with an optional `:line`. */
export interface FileRef {
  path: string;
  line?: number;
}

const FILE_EXTENSION = /\.(?:java|kt|kts|groovy|scala|ya?ml|properties|xml|gradle|graphqls?|gql|json|sdl|conf)$/i;

export function parseFileRef(identifier: string): FileRef | undefined {
  const s = identifier.trim();
  if (s.length > 2048 || /\s/.test(s)) return undefined;
  const m = /^(.*?)(?::(\d+)(?::\d+)?|#L(\d+)(?:-L?\d+)?)?$/.exec(s);
  if (!m) return undefined;
  let path = m[1]!.replace(/\\/g, '/').replace(/\/{2,}/g, '/');
  if (path.startsWith('file:')) path = path.slice(5);
  while (path.startsWith('./')) path = path.slice(2);
  if (!path || path.endsWith('/')) return undefined;
  if (!path.includes('/') && !FILE_EXTENSION.test(path)) return undefined;
  if (!FILE_EXTENSION.test(path) && !/\.[A-Za-z0-9]+$/.test(path)) return undefined;
  const line = m[2] ?? m[3];
  return { path, ...(line ? { line: Number(line) } : {}) };
}

const MAX_FILE_NODES = 5000;

async function nodesInFiles(ctx: ToolContext, files: readonly string[], kinds: readonly string[] | undefined, extra: Predicate[] = []): Promise<NodeRecord[]> {
  if (!files.length) return [];
  const { nodes } = await ctx.store.findNodes({ ...(kinds ? { kinds } : {}), predicates: [{ property: 'file', op: 'in', values: [...files] }, ...extra], limit: MAX_FILE_NODES, offset: 0 });
  return nodes;
}

/**
 * The indexed files a written path names: the path relative to the root; relative to a service's directory;
 * absolute under a source's root; else any indexed file ending with it (found through the types named like the
 * file, so no scan).
 */
export async function filesNamed(ctx: ToolContext, path: string): Promise<string[]> {
  const tries = new Set<string>();
  if (/^(?:\/|[A-Za-z]:\/)/.test(path)) {
    for (const s of await ctx.store.sources()) {
      const root = s.origin.replace(/\\/g, '/').replace(/\/+$/, '');
      if (root && path.startsWith(`${root}/`)) tries.add(path.slice(root.length + 1));
    }
  } else {
    tries.add(path);
    if (ctx.ontology.kind('service')?.properties.some((p) => p.name === 'directory')) {
      const { nodes: services } = await ctx.store.findNodes({ kinds: ['service'], predicates: [], limit: 2000, offset: 0 });
      for (const s of services) if (typeof s.props.directory === 'string' && s.props.directory) tries.add(`${s.props.directory}/${path}`);
    }
  }
  const direct: string[] = [];
  for (const file of tries) if ((await ctx.store.findNodes({ predicates: [{ property: 'file', op: 'in', values: [file] }], limit: 1, offset: 0 })).nodes.length) direct.push(file);
  if (direct.length) return direct.sort();
  // Any file ending with the path: its declarations are named like the file (Foo.java declares Foo; Foo.kt may be FooKt).
  const base = path.slice(path.lastIndexOf('/') + 1).replace(/\.[^.]+$/, '');
  if (!base) return [];
  const named = [
    ...(await ctx.store.nodesByName('name', base, { caseInsensitive: false, limit: 500 })),
    ...(await ctx.store.nodesByName('name', `${base}Kt`, { caseInsensitive: false, kinds: ['symbol'], limit: 50 })),
  ];
  const tail = path.replace(/^\/+/, '');
  return [...new Set(named.map((n) => n.file).filter((f): f is string => !!f && (f === tail || f.endsWith(`/${tail}`))))].sort();
}

/** What a file path names: its top-level types (else its services, else what it declares); with `:line`, the innermost declaration spanning that line. */
async function declaredInFile(ctx: ToolContext, identifier: string, kinds: string[] | undefined): Promise<Match[]> {
  const ref = parseFileRef(identifier);
  if (!ref) return [];
  const files = await filesNamed(ctx, ref.path);
  if (!files.length) return [];
  if (ref.line !== undefined) return (await declarationsAt(ctx, files, ref.line, kinds)).map((node) => ({ node, reason: `innermost declaration at line ${ref.line}`, score: 0.9 }));
  const symbolKinds = !kinds || kinds.includes('symbol');
  const types = symbolKinds && hasSymbolProperty(ctx, 'symbol_kind') ? (await nodesInFiles(ctx, files, ['symbol'], [{ property: 'symbol_kind', op: 'in', values: SYMBOL_TYPE_KINDS }])).filter((t) => !t.props.declaring_type) : [];
  if (types.length) return types.map((node) => ({ node, reason: 'top-level type of the file', score: 0.9 }));
  const services = !kinds || kinds.includes('service') ? await nodesInFiles(ctx, files, ['service']) : [];
  if (services.length) return services.map((node) => ({ node, reason: 'service configured by the file', score: 0.9 }));
  return (await nodesInFiles(ctx, files, kinds)).slice(0, MAX_CANDIDATES + 1).map((node) => ({ node, reason: 'declared in the file', score: 0.85 }));
}

/** The innermost symbols spanning `line` (one per file); in a file without symbols, what is declared on that line. */
export async function declarationsAt(ctx: ToolContext, files: readonly string[], line: number, kinds?: readonly string[]): Promise<NodeRecord[]> {
  const out: NodeRecord[] = [];
  for (const file of files) {
    const before = await nodesInFiles(ctx, [file], undefined, [{ property: 'line', op: 'lte', value: line }]);
    const spanning = before.filter((n) => n.kind === 'symbol' && typeof n.props.end_line === 'number' && n.props.end_line >= line);
    spanning.sort((a, b) => b.line! - a.line! || (a.props.end_line as number) - (b.props.end_line as number) || (a.id < b.id ? -1 : 1));
    const innermost = spanning[0];
    if (innermost) {
      // Members declared on the same lines (a record's accessors, a default constructor) go with their type.
      const same = spanning.filter((n) => n.line === innermost.line && n.props.end_line === innermost.props.end_line);
      const chosen = same.length > 1 ? same.filter(isCodeType) : [innermost];
      out.push(...(chosen.length ? chosen : [innermost]));
    } else if (!before.some((n) => n.kind === 'symbol')) out.push(...before.filter((n) => n.line === line));
  }
  return out.filter((n) => !kinds || kinds.includes(n.kind));
}

// ------------------------------------------------------------------------------------------- routes

/** Longer than any URL a server accepts: such an identifier is not a route, and matching it would only cost time. */
const MAX_ROUTE_IDENTIFIER = 8192;

/** `[service] [METHOD] /path`: a route as people write it, with any variable names or a concrete path. */
const ROUTE_IDENTIFIER = /^(?:(\S+)\s+)??(?:([A-Za-z]+)\s+)?(\/\S*)$/;

/**
 * Declared HTTP routes an identifier like `GET /owners/{id}`, `order-service GET /owners/42` or `/owners/{ownerId}`
 * names: same method (or any, when none is given), and a path whose pattern equals the identifier's or whose
 * regex accepts it as a concrete request path.
 */
async function routesByPath(ctx: ToolContext, identifier: string, kinds: string[] | undefined): Promise<NodeRecord[]> {
  if ((kinds && !kinds.includes('route')) || identifier.length > MAX_ROUTE_IDENTIFIER || !hasRouteProperty(ctx, 'path_pattern')) return [];
  const m = ROUTE_IDENTIFIER.exec(identifier.trim());
  if (!m) return [];
  const [, service, rawMethod, path] = m;
  const method = rawMethod?.toUpperCase();
  if (method && !(HTTP_METHODS as readonly string[]).includes(method)) return [];
  const pattern = pathPattern(path!);
  const predicates = [
    { property: 'protocol', op: 'in' as const, values: ['http'] },
    { property: 'declared', op: 'in' as const, values: [true] },
    ...(method && method !== 'ANY' ? [{ property: 'http_method', op: 'in' as const, values: [method, 'ANY'] }] : []),
    ...(service ? [{ property: 'service', op: 'in' as const, values: [service] }] : []),
  ];
  const { nodes } = await ctx.store.findNodes({ kinds: ['route'], predicates, limit: 2000, offset: 0 });
  const exact = nodes.filter((n) => n.props.path_pattern === pattern);
  if (exact.length) return exact;
  return nodes.filter((n) => typeof n.props.path_regex === 'string' && patternAccepts(n.props.path_regex, path!));
}

/**
 * Where a concrete request to a gateway or proxy route goes (`GET /api/customer/owners/7/pets/3`): the routes its
 * FORWARDS edges reach whose request regex accepts the path, of the request's method (or any).
 */
export async function forwardsOf(ctx: ToolContext, route: NodeRecord, identifier: string): Promise<{ node: NodeRecord; requestPath: string; confidence?: number }[]> {
  const m = identifier.length <= MAX_ROUTE_IDENTIFIER ? ROUTE_IDENTIFIER.exec(identifier.trim()) : null;
  if (!m || !ctx.ontology.edgeType('FORWARDS')) return [];
  const method = m[2]?.toUpperCase();
  const path = m[3]!;
  const { rows } = await ctx.store.edges({ ids: [route.id], direction: 'out', types: ['FORWARDS'], limit: 2000, offset: 0 });
  const landing = rows
    .filter((r) => typeof r.attrs.request_regex === 'string' && patternAccepts(r.attrs.request_regex, path))
    .filter((r) => !method || method === 'ANY' || r.other.props.http_method === method || r.other.props.http_method === 'ANY');
  // Spring picks the most specific mapping (`/owners/new` before `/owners/{id}`): the most literal segments win.
  const literal = (n: NodeRecord) => literalSegmentCount(String(n.props.path_pattern ?? ''));
  const best = Math.max(0, ...landing.map((r) => literal(r.other)));
  return landing.filter((r) => literal(r.other) === best).map((r) => ({ node: r.other, requestPath: String(r.attrs.request_path ?? ''), ...(typeof r.attrs.confidence === 'number' ? { confidence: r.attrs.confidence } : {}) }));
}

/** Listener routes of a topic, queue or destination, written bare (`orders.events`). */
async function routesByDestination(ctx: ToolContext, identifier: string, kinds: string[] | undefined): Promise<NodeRecord[]> {
  if ((kinds && !kinds.includes('route')) || /\s/.test(identifier.trim()) || !hasRouteProperty(ctx, 'destination')) return [];
  const { nodes } = await ctx.store.findNodes({ kinds: ['route'], predicates: [{ property: 'destination', op: 'in', values: [identifier.trim()] }], limit: MAX_CANDIDATES + 1, offset: 0 });
  return nodes;
}

/** Whether this index's ontology has routes with that property (an ontology without the code kinds has none). */
export function hasRouteProperty(ctx: ToolContext, property: string): boolean {
  return ctx.ontology.kind('route')?.properties.some((p) => p.name === property) ?? false;
}

// ------------------------------------------------------------------------------------------- the tool

/** The first level of lookups with any match, and its matches (each node once, with the first reason found). */
export async function lookupIdentifier(ctx: ToolContext, identifier: string, kinds: string[] | undefined): Promise<{ level: number; matches: Match[] } | undefined> {
  const levels = [...new Set(TIERS.map((t) => t.level))];
  for (const level of levels) {
    const matches: Match[] = [];
    const seen = new Set<string>();
    for (const tier of TIERS.filter((t) => t.level === level)) {
      for (const m of await tier.lookup(ctx, identifier, kinds)) {
        if (seen.has(m.node.id)) continue;
        seen.add(m.node.id);
        matches.push(m);
      }
    }
    if (matches.length) return { level, matches };
  }
  return undefined;
}

/** A node as resolve lists it: the list entry, plus a member's signature (what tells overloads apart). */
function entry(ctx: ToolContext, node: NodeRecord): Record<string, unknown> {
  const signature = signatureOf(node);
  return { ...listEntry(ctx.ontology, node), ...(signature ? { signature } : {}) };
}

export const resolveTool: ToolDef = {
  name: 'resolve',
  title: 'Resolve a name to a node',
  description: (o) =>
    [
      'Map what a person or agent types to node ids: a name, a qualified name, an id; a member as `Type#method`, `Type.method` or `Type::method`, the type simple, partly or fully qualified, with or without parameter types (`OwnerResource#findOwner(int)`, `(Order, String)`); a file path (relative to the root or a service, or absolute) and `path:line` (the innermost declaration there); a service by name, directory, build module or host; a route like `GET /owners/{id}`, `order-service GET /owners/42` or `/owners/{ownerId}` (a concrete request to a gateway or proxy route also says where it is forwarded: `forwards_to`); a topic like `orders.events`; a GraphQL field like `PullRequest.title`.',
      'Answers `status: one` with the node, `many` with ranked candidates and the reason each matched (overloads each with its `signature`), or `none` with a diagnosis (did-you-mean with kind and qualified name). It never picks among several for you: narrow with `kind`, parameter types or a more qualified identifier.',
      `Kinds: ${o.kindNames().join(', ')}.`,
    ].join('\n'),
  params: (o) => [
    { name: 'identifier', description: 'Name, qualified name, `Type#member(params)`, file path or `path:line`, service, route or id to look up.', schema: { type: 'string', minLength: 1 }, required: true },
    { name: 'kind', description: 'Only consider nodes of this kind.', schema: { type: 'string', enum: o.kindNames() } },
  ],
  run: async (ctx, args) => {
    const identifier = asString(args.identifier, 'identifier')!;
    const kind = asEnum(args.kind, 'kind', ctx.ontology.kindNames(), 'kind');
    const kinds = kind ? [kind] : undefined;
    const match = await lookupIdentifier(ctx, identifier, kinds);
    if (match) {
      const { matches } = match;
      if (matches.length === 1) {
        const { node, reason } = matches[0]!;
        const forwards = node.kind === 'route' ? await forwardsOf(ctx, node, identifier) : [];
        const hints: Hint[] = [{ tool: 'describe', args: { id: node.id }, reason: `full record and edge counts of ${node.qualified_name}` }];
        if (forwards[0]) hints.unshift({ tool: 'describe', args: { id: forwards[0].node.id }, reason: `the route the request lands on, ${forwards[0].node.qualified_name}` });
        return {
          ok: true,
          status: 'one',
          identifier,
          node: entry(ctx, node),
          reason,
          ...(forwards.length ? { forwards_to: forwards.map((f) => ({ node: entry(ctx, f.node), request_path: f.requestPath, ...(f.confidence !== undefined ? { confidence: f.confidence } : {}) })) } : {}),
          hints: limitHints(hints),
        };
      }
      const truncated = matches.length > MAX_CANDIDATES;
      const shown = matches.slice(0, MAX_CANDIDATES);
      const candidates = shown.map((m) => ({ node: entry(ctx, m.node), reason: m.reason, score: m.score }));
      const kindsSeen = [...new Set(matches.map((m) => m.node.kind))];
      const hints: Hint[] = [];
      if (!kind && kindsSeen.length > 1) for (const k of kindsSeen.slice(0, 2)) hints.push({ tool: 'resolve', args: { identifier, kind: k }, reason: `only ${k} candidates` });
      hints.push({ tool: 'describe', args: { ids: shown.slice(0, 5).map((m) => m.node.id) }, reason: 'compare the first candidates' });
      for (const m of shown.slice(0, 2)) hints.push({ tool: 'describe', args: { id: m.node.id }, reason: `${m.node.kind} ${m.node.qualified_name}` });
      return { ok: true, status: 'many', identifier, candidates, truncated, hints: limitHints(hints) };
    }
    return noneAnswer(ctx, identifier, kind);
  },
};

const MAX_SUGGESTIONS = 10;

interface Suggestion {
  id: string;
  kind: string;
  name: string;
  qualified_name: string;
  signature?: string;
  similarity?: number;
}

function suggestion(node: NodeRecord, similarity?: number): Suggestion {
  const signature = signatureOf(node);
  return { id: node.id, kind: node.kind, name: node.name, qualified_name: node.qualified_name, ...(signature ? { signature } : {}), ...(similarity !== undefined ? { similarity } : {}) };
}

/** Did-you-mean nodes for a near name: each name's nodes, with their kind and qualified name. */
async function nearNodes(ctx: ToolContext, text: string, kinds: string[] | undefined): Promise<Suggestion[]> {
  const near = await nameSuggestions(ctx, text, kinds);
  // Looked up together (a server store answers them on several connections), kept in the names' order.
  const nodesOf = await Promise.all(near.map((n) => ctx.store.nodesByName('name', n.name, { caseInsensitive: false, ...(kinds ? { kinds } : {}), limit: 3 })));
  const out: Suggestion[] = [];
  near.forEach((n, i) => {
    for (const node of nodesOf[i]!) if (out.length < MAX_SUGGESTIONS) out.push(suggestion(node, n.similarity));
  });
  return out;
}

/** Why a member reference named nothing: no such type, no member of that name (with the nearest), or no overload with those parameters. */
async function memberAbsence(ctx: ToolContext, ref: MemberRef): Promise<{ reason: string; did_you_mean: Suggestion[] } | undefined> {
  const { types, byName } = await resolveMemberRef(ctx, ref);
  if (!types.length) return undefined;
  const typeNames = types.slice(0, 3).map((t) => t.qualified_name).join(', ');
  if (byName.length) {
    return {
      reason: `${typeNames} has ${ref.member} only as ${byName.map((n) => signatureOf(n)).join(', ')}: no overload takes (${(ref.params ?? []).join(', ')})`,
      did_you_mean: byName.slice(0, MAX_SUGGESTIONS).map((n) => suggestion(n)),
    };
  }
  const { nodes: members } = await ctx.store.findNodes({ kinds: ['symbol'], predicates: [{ property: 'declaring_type', op: 'in', values: types.map((t) => t.qualified_name) }], limit: 2000, offset: 0 });
  const names = closest(ref.member, [...new Set(members.map((m) => m.name))], 3);
  return {
    reason: `${typeNames} ${types.length > 1 ? 'declare' : 'declares'} no member named ${ref.member}${names.length ? '' : ' (nor do its supertypes in the index)'}`,
    did_you_mean: members.filter((m) => names.includes(m.name)).sort((a, b) => names.indexOf(a.name) - names.indexOf(b.name)).slice(0, MAX_SUGGESTIONS).map((n) => suggestion(n)),
  };
}

/**
 * Why a route identifier (`chat-core GET /api/v1/chat/sessions/{id}`) named no route, and the routes nearest it: the
 * same path in another service (the service was wrong), then the service's routes whose path is the end of the one
 * written (a gateway or context-path prefix it does not have), then those sharing most of its literal segments.
 */
async function routeAbsence(ctx: ToolContext, identifier: string): Promise<{ reason: string; did_you_mean: Suggestion[]; retry?: string } | undefined> {
  if (identifier.length > MAX_ROUTE_IDENTIFIER || !hasRouteProperty(ctx, 'path_pattern')) return undefined;
  const m = ROUTE_IDENTIFIER.exec(identifier.trim());
  if (!m) return undefined;
  const [, service, rawMethod, path] = m;
  const method = rawMethod?.toUpperCase();
  if (method && !(HTTP_METHODS as readonly string[]).includes(method)) return undefined;
  if (service) {
    const elsewhere = await routesByPath(ctx, `${method ? `${method} ` : ''}${path}`, ['route']);
    if (elsewhere.length) {
      return { reason: `${service} has no route ${method ? `${method} ` : ''}${path}; ${elsewhere.length === 1 ? 'one' : elsewhere.length} of other services ${elsewhere.length === 1 ? 'matches' : 'match'}`, did_you_mean: elsewhere.slice(0, MAX_SUGGESTIONS).map((n) => suggestion(n)), retry: `${method ? `${method} ` : ''}${path}` };
    }
  }
  const predicates = [{ property: 'protocol', op: 'in' as const, values: ['http'] }, { property: 'declared', op: 'in' as const, values: [true] }, ...(service ? [{ property: 'service', op: 'in' as const, values: [service] }] : [])];
  const { nodes } = await ctx.store.findNodes({ kinds: ['route'], predicates, limit: 5000, offset: 0 });
  if (!nodes.length) return service ? { reason: `no HTTP route is declared by a service named ${service}`, did_you_mean: [] } : undefined;
  const written = segmentsOf(pathPattern(path!));
  const scored = nodes
    .map((n) => {
      const route = segmentsOf(String(n.props.path_pattern ?? ''));
      const suffix = route.length > 0 && route.length <= written.length && route.every((seg, i) => segmentFits(seg, written[written.length - route.length + i]!));
      const shared = route.filter((seg) => seg !== '{}' && written.includes(seg)).length;
      const sameMethod = !method || n.props.http_method === method || n.props.http_method === 'ANY';
      return { n, score: (suffix ? 1000 : 0) + shared * 10 + (sameMethod ? 1 : 0) - Math.abs(route.length - written.length) / 100 };
    })
    .filter((x) => x.score >= 10)
    .sort((a, b) => b.score - a.score || (a.n.qualified_name < b.n.qualified_name ? -1 : 1));
  return {
    reason: `no route${service ? ` of ${service}` : ''} matches ${method ? `${method} ` : ''}${path}${scored.length ? `; the nearest by path are listed` : ''}`,
    did_you_mean: scored.slice(0, MAX_SUGGESTIONS).map((x) => suggestion(x.n)),
  };
}

/** `/api/{}/chat` → ['api', '{}', 'chat']. */
function segmentsOf(pattern: string): string[] {
  return pattern.split('/').filter(Boolean);
}

function segmentFits(route: string, written: string): boolean {
  return route === written || route === '{}' || written === '{}';
}

async function noneAnswer(ctx: ToolContext, identifier: string, kind: string | undefined): Promise<Record<string, unknown>> {
  const hints: Hint[] = [];
  const absence: Record<string, unknown> = { reason: `nothing is named ${JSON.stringify(identifier)}${kind ? ` among ${kind} nodes` : ''}` };
  if (kind) {
    const other = await lookupIdentifier(ctx, identifier, undefined);
    if (other) {
      absence.other_kinds = other.matches.slice(0, MAX_CANDIDATES).map((m) => entry(ctx, m.node));
      hints.push({ tool: 'resolve', args: { identifier }, reason: 'the name exists under another kind' });
    }
  }
  const route = !kind || kind === 'route' ? await routeAbsence(ctx, identifier) : undefined;
  const ref = !route && (!kind || kind === 'symbol') && hasSymbolProperty(ctx, 'declaring_type') ? parseMemberRef(identifier) : undefined;
  const member = ref ? await memberAbsence(ctx, ref) : undefined;
  const file = parseFileRef(identifier);
  if (route) {
    absence.reason = route.reason;
    if (route.did_you_mean.length) absence.did_you_mean = route.did_you_mean;
    if (route.retry) hints.push({ tool: 'resolve', args: { identifier: route.retry, kind: 'route' }, reason: 'the same route in any service' });
  } else if (member) {
    absence.reason = member.reason;
    if (member.did_you_mean.length) absence.did_you_mean = member.did_you_mean;
  } else if (file?.line !== undefined && (await filesNamed(ctx, file.path)).length) {
    absence.reason = `no declaration spans line ${file.line} of ${file.path}`;
    hints.push({ tool: 'resolve', args: { identifier: file.path, ...(kind ? { kind } : {}) }, reason: 'what the file declares' });
  } else {
    const last = ref?.member ?? identifier.split(/[.#/:]/).filter(Boolean).pop() ?? identifier;
    const near = await nearNodes(ctx, ref && !(await typesNamed(ctx, ref.type)).length ? ref.type.split('.').pop()! : last, kind ? [kind] : undefined);
    if (near.length) absence.did_you_mean = near;
  }
  const first = (absence.did_you_mean as Suggestion[] | undefined)?.[0];
  if (first) hints.push({ tool: 'describe', args: { id: first.id }, reason: `closest: ${first.kind} ${first.qualified_name}` });
  hints.push({ tool: 'search', args: { query: identifier, ...(kind ? { kinds: [kind] } : {}) }, reason: 'ranked text search instead of exact names' });
  return { ok: true, status: 'none', identifier, absence, hints: limitHints(hints) };
}
