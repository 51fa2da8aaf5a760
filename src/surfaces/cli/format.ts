/** Readable text for the CLI shortcuts; `--json` prints the structured result instead. */

import { isPostgresLocation, shownPostgresLocation } from '../../graph/postgres/location.js';
import { serviceMapText, traceText } from './topology-text.js';

type Json = Record<string, unknown>;

export function ref(node: Json): string {
  const where = [node.source, node.file ? `${String(node.file)}${node.line ? `:${String(node.line)}` : ''}` : undefined].filter(Boolean).join(' ');
  return `${String(node.kind).padEnd(8)} ${String(node.qualified_name)}  [${String(node.id)}]${where ? `  ${where}` : ''}`;
}

/** A member's qualified name with its package cut: `Type#method(int)` reads better than the whole path. */
export function short(qualifiedName: string): string {
  const hash = qualifiedName.indexOf('#');
  const head = hash >= 0 ? qualifiedName.slice(0, hash) : qualifiedName;
  const tail = hash >= 0 ? qualifiedName.slice(hash) : '';
  if (/\s/.test(head)) return qualifiedName;
  return `${head.split('.').pop() ?? head}${tail}`;
}

/** One POSIX shell word: single-quoted unless plainly safe, so a printed hint runs as it is. */
export function shellQuote(text: string): string {
  return /^[A-Za-z0-9_/.:=@%+,-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

export interface FormatOptions {
  /** The `--store` the command was given, repeated in printed hints so they query the same index. */
  store?: string;
}

/** ` --store <location>` for a printed command, a database URL without its password (PGPASSWORD supplies it). */
export function storeFlag(store: string | undefined): string {
  return store ? ` --store ${shellQuote(isPostgresLocation(store) ? shownPostgresLocation(store) : store)}` : '';
}

export function hintsText(result: Json, opts: FormatOptions): string[] {
  const hints = (result.hints as { tool: string; args: unknown; reason: string }[] | undefined) ?? [];
  const store = storeFlag(opts.store);
  return hints.length ? ['', 'next:', ...hints.map((h) => `  sextant call ${h.tool} ${shellQuote(JSON.stringify(h.args))}${store}   # ${h.reason}`)] : [];
}

export function absenceText(result: Json): string[] {
  const absence = result.absence as Json | undefined;
  if (!absence) return [];
  const lines = [`(empty) ${String(absence.reason ?? '')}`];
  const dym = absence.did_you_mean;
  if (Array.isArray(dym) && dym.length) lines.push(`did you mean: ${dym.map((d) => (typeof d === 'object' && d ? String((d as Json).name) : String(d))).join(', ')}`);
  else if (dym && typeof dym === 'object') for (const [field, list] of Object.entries(dym)) lines.push(`did you mean (${field}): ${(list as Json[]).map((d) => String(d.name)).join(', ')}`);
  if (absence.emptied_by) lines.push(`emptied by: ${String(absence.emptied_by)}`);
  return lines;
}

/** A describe answer's `code`: where it is, the doc sentence, the text or signature, and what was cut or changed. */
function codeText(code: Json): string[] {
  if (!code.available) return [`  code: not shown (${String(code.reason)})`];
  const out = [`  code (lines ${String(code.start_line)}-${String(code.end_line)}${code.truncated ? ` of ${String(code.total_lines)}, truncated` : ''}${code.stale ? ', file changed since indexing' : ''}):`];
  if (code.doc) out.push(`    /** ${String(code.doc)} */`);
  for (const line of String(code.text ?? code.signature ?? '').split('\n')) out.push(`    ${line}`);
  if (code.note) out.push(`  note: ${String(code.note)}`);
  return out;
}

/** Edges the index infers between services, clients, producers and routes: their text says how sure it is. */
const LINK_EDGES = new Set(['HTTP_CALLS', 'ASYNC_CALLS', 'SERVICE_CALLS', 'FORWARDS']);
/** Below this confidence a link is a guess (a path matched in any service, a send to a channel of unknown class). */
const GUESS_BELOW = 0.6;

/** `  [guess: method_path, confidence 0.5]` for a link edge, from its attributes; '' for any other edge. */
export function linkNote(type: unknown, attrs: Json | undefined): string {
  if (!LINK_EDGES.has(String(type)) || !attrs) return '';
  const confidence = typeof attrs.confidence === 'number' ? attrs.confidence : undefined;
  const parts = [typeof attrs.strategy === 'string' ? attrs.strategy : '', confidence !== undefined ? `confidence ${confidence}` : ''].filter(Boolean);
  if (!parts.length) return '';
  return `  [${confidence !== undefined && confidence < GUESS_BELOW ? 'guess: ' : ''}${parts.join(', ')}]`;
}

export function formatResult(tool: string, result: Json, opts: FormatOptions = {}): string {
  if (!result.ok) {
    const error = result.error as Json;
    return [`error (${String(error.code)}): ${String(error.message)}`, ...hintsText(error, opts)].join('\n');
  }
  const lines: string[] = [];
  switch (tool) {
    case 'service_map':
      lines.push(...serviceMapText(result));
      break;
    case 'trace':
      lines.push(...traceText(result));
      break;
    case 'search': {
      // Scores order each group; every node matching all terms ranks before any matching only some.
      const results = result.results as Json[];
      for (const a of (result.advisories as Json[] | undefined) ?? []) lines.push(`note: ${String(a.message)}`);
      if (result.mode && result.mode !== 'lexical') lines.push(result.mode === 'hybrid' ? 'hybrid (words and meaning, fused):' : 'semantic (by meaning):');
      const grouped = result.mode === 'lexical' && results.some((r) => r.matched === 'some_terms');
      let group: unknown;
      for (const r of results) {
        if (grouped && r.matched !== group) {
          group = r.matched;
          lines.push(group === 'all_terms' ? 'matching all terms:' : `matching some terms (ranked after every node matching all ${(result.terms as string[]).length}):`);
        }
        lines.push(`${String(r.score).padStart(8)}  ${ref(r.node as Json)}`);
        if (r.snippet) lines.push(`          ${String(r.snippet)}`);
        const fields = r.fields as Json[] | undefined;
        if (fields?.length) lines.push(`          fields: ${fields.map((f) => `${String(f.name)}${f.type ? `: ${String(f.type)}` : ''}`).join(', ')}`);
      }
      break;
    }
    case 'find':
      lines.push(`${String(result.total)} ${String(result.kind)} node(s)${result.has_more ? ' (more: use --offset)' : ''}`);
      for (const n of result.results as Json[]) lines.push(`  ${ref(n)}`);
      break;
    case 'describe':
      for (const n of (result.nodes as Json[] | undefined) ?? [result.node as Json]) {
        lines.push(ref(n));
        for (const [k, v] of Object.entries((n.properties as Json) ?? {})) lines.push(`  ${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`);
        const edges = Object.entries((n.edges as Record<string, { in: number; out: number }>) ?? {});
        if (edges.length) lines.push(`  edges: ${edges.map(([t, c]) => `${t} in ${c.in} / out ${c.out}`).join(', ')}`);
        const code = n.code as Json | undefined;
        if (code) lines.push(...codeText(code));
      }
      break;
    case 'changes': {
      const risk = result.risk as { level: string; reasons: string[] };
      lines.push(`risk: ${risk.level}${risk.reasons.length ? ` (${risk.reasons.join('; ')})` : ''}`);
      for (const f of result.files as Json[]) lines.push(`  ${String(f.status).padEnd(8)} ${String(f.path)}${f.declarations !== undefined ? `: ${String(f.declarations)} declaration(s)` : ''}${f.note ? ` — ${String(f.note)}` : ''}`);
      const changed = result.changed as Json;
      for (const n of (changed.declarations as Json[]) ?? []) lines.push(`  changed  ${ref(n)}`);
      for (const n of (changed.routes as Json[]) ?? []) lines.push(`  route    ${ref(n)}`);
      for (const c of (result.callers_of_changed_routes as Json[]) ?? []) lines.push(`  called   ${String(c.route)} ← ${String(c.service)}: ${ref(c.from as Json)}${c.caller ? ` (${String(c.caller)})` : ''}`);
      for (const c of (result.consumers_of_changed_producers as Json[]) ?? []) lines.push(`  consumed ${ref(c.destination as Json)} in ${String(c.service)}`);
      for (const s of (result.services as Json[]) ?? []) lines.push(`  service  ${String(s.service)}: ${String(s.changed)} changed, ${(s.routes_changed as string[]).length} route(s), ${String(s.dependents)} dependent(s)${(s.called_by as string[]).length ? `, called by ${(s.called_by as string[]).join(', ')}` : ''}`);
      if (result.dependents_total) lines.push(`  ${String(result.dependents_total)} dependent declaration(s) (--json lists them)`);
      break;
    }
    case 'neighbors':
      lines.push(`${String(result.total)} edge(s)${result.has_more ? ' (more: use --offset)' : ''}`);
      for (const e of result.edges as Json[]) lines.push(`  ${e.direction === 'out' ? '->' : '<-'} ${String(e.type).padEnd(14)} ${ref(e.other as Json)}${linkNote(e.type, e.attrs as Json | undefined)}`);
      break;
    case 'resolve':
      lines.push(`status: ${String(result.status)}`);
      if (result.node) lines.push(`  ${ref(result.node as Json)}`);
      for (const f of (result.forwards_to as Json[] | undefined) ?? []) lines.push(`  forwards to ${nodeLine(f.node as Json)}${typeof f.confidence === 'number' ? `  [confidence ${f.confidence}]` : ''}${(f.node as Json).file ? `  ${String((f.node as Json).file)}:${String((f.node as Json).line ?? '')}` : ''}`);
      for (const c of (result.candidates as Json[] | undefined) ?? []) lines.push(`  ${ref(c.node as Json)}  (${String(c.reason)})`);
      break;
    case 'links':
      lines.push(...linksText(result));
      break;
    case 'impact':
      lines.push(...impactText(result));
      break;
    default:
      lines.push(JSON.stringify(result, null, 2));
  }
  return [...lines, ...absenceText(result), ...hintsText(result, opts)].join('\n');
}

const LINK_KIND_NAMES: Record<string, string> = { http: 'HTTP clients', message: 'sends', listener: 'listeners', gateway: 'gateway routes' };

/** `12/14 (86%): linked 10, external 2, unresolved 2` for one kind of link. */
function countsText(counts: Json): string {
  const by = Object.entries((counts.by_status as Record<string, number>) ?? {}).map(([k, v]) => `${k} ${v}`);
  const total = Number(counts.total);
  const known = Math.round(Number(counts.resolved_share) * total);
  return `${known}/${total} resolved (${Math.round(Number(counts.resolved_share) * 100)}%)${by.length ? `: ${by.join(', ')}` : ''}`;
}

/** The links report: each service's counts, then what did not resolve, grouped by where it stopped, or every link. */
function linksText(result: Json): string[] {
  const out: string[] = [];
  const summary = result.summary as Record<string, Json>;
  out.push('estate:');
  for (const [kind, counts] of Object.entries(summary)) if (Number(counts.total)) out.push(`  ${LINK_KIND_NAMES[kind] ?? kind}: ${countsText(counts)}`);
  for (const s of (result.services as Json[]) ?? []) {
    const kinds = Object.entries(s).filter(([k, v]) => k !== 'service' && typeof v === 'object' && v !== null && Number((v as Json).total) > 0);
    if (!kinds.length) continue;
    out.push(`${String(s.service ?? '(no service)')}:`);
    for (const [kind, counts] of kinds) out.push(`  ${LINK_KIND_NAMES[kind] ?? kind}: ${countsText(counts as Json)}`);
  }
  if (Array.isArray(result.unresolved)) {
    out.push(result.unresolved.length ? `unresolved (${String(result.unresolved_total)}), by what they stop at:` : 'nothing unresolved');
    for (const g of result.unresolved as Json[]) {
      out.push(`  ${String(g.unresolved_kind ?? 'unknown')} ${String(g.unresolved_at ?? '')} (${String(g.count)})`.replace(/\s+\(/, ' ('));
      for (const l of (g.links as Json[]) ?? []) out.push(`    ${String(l.file)}:${String(l.line)}  ${String(l.kind)} ${String(l.name)}${l.reason ? ` — ${String(l.reason)}` : ''}`);
    }
  }
  if (Array.isArray(result.links)) {
    for (const l of result.links as Json[]) {
      const targets = ((l.targets as Json[]) ?? []).map((t) => `${String(t.qualified_name)}${t.strategy ? ` [${String(t.strategy)}${t.confidence !== undefined ? ` ${String(t.confidence)}` : ''}]` : ''}`);
      out.push(`  ${String(l.status).padEnd(11)} ${String(l.kind).padEnd(8)} ${String(l.service ?? '')} ${String(l.name)}  ${String(l.file)}:${String(l.line)}${targets.length ? ` -> ${targets.join(', ')}` : ''}${l.reason ? ` — ${String(l.reason)}` : ''}`);
    }
    if (result.has_more) out.push('  (more: use --offset)');
  }
  return out;
}

/** `, then sms (the composition email|sms)` after a Spring Cloud Stream listener's first function. */
export function compositionNote(attrs: Json): string {
  const composition = attrs.function_composition;
  if (typeof composition !== 'string') return '';
  const rest = composition.split('|').slice(1);
  return rest.length ? `, then ${rest.join(', then ')} (the composition ${composition})` : '';
}

/** What a node is, in a word: a symbol's kind (method, class…), else its node kind. */
function shapeOf(node: Json): string {
  const kind = (node.attributes as Json | undefined)?.symbol_kind;
  return typeof kind === 'string' ? kind : String(node.kind);
}

/** A node on one line: its short name, what it is, and (a route) the method handling it. */
function nodeLine(node: Json): string {
  const attrs = (node.attributes as Json | undefined) ?? {};
  const handler = typeof attrs.handler === 'string' ? `  handled by ${short(attrs.handler)}${compositionNote(attrs)}` : '';
  const target = typeof attrs.gateway_target === 'string' ? `  → ${attrs.gateway_target}` : '';
  return `${shapeOf(node).padEnd(11)} ${short(String(node.qualified_name))}${handler}${target}`;
}

/** The impact answer: by depth, then service, each dependent with the edge that carried it and how sure that is. */
function impactText(result: Json): string[] {
  const origins = (result.origins as Json[]).map((o) => short(String(o.qualified_name)));
  const services = Object.entries((result.by_service as Record<string, number>) ?? {}).map(([s, n]) => `${s} ${n}`);
  const out = [`impact of ${origins.join(', ')}: ${String(result.total)} affected${services.length ? ` in ${services.length} service${services.length === 1 ? '' : 's'} (${services.join(', ')})` : ''}${result.has_more ? ' (more: raise --limit)' : ''}`];
  let depth: unknown;
  for (const g of (result.groups as Json[]) ?? []) {
    if (g.depth !== depth) out.push(`depth ${String((depth = g.depth))}`);
    out.push(`  ${String(g.service)}:`);
    for (const n of g.nodes as Json[]) {
      const via = n.via as Json;
      const from = [typeof via.from_name === 'string' ? short(via.from_name) : String(via.from), ...((via.also_from as string[] | undefined) ?? []).map(short)].join(', ');
      const where = n.file ? `  ${String(n.file)}${n.line ? `:${String(n.line)}` : ''}` : '';
      const dispatch = typeof via.dispatch_to === 'string' ? ` (runs ${short(via.dispatch_to)})` : '';
      out.push(`    ${nodeLine(n)}  ← ${String(via.edge_type)} ${from}${dispatch}${linkNote(via.edge_type, via)}${where}`);
    }
  }
  return out;
}
