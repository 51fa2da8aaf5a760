import { readFile } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { NodeRecord } from '../../graph/types.js';
import { gitDiff } from '../changes/git.js';
import { readDiff, type DiffFile } from '../changes/diff.js';
import { asEnum, asInteger, asString } from '../coerce.js';
import { fail } from '../errors.js';
import { limitHints, type Hint } from '../hints.js';
import { listEntry } from '../present.js';
import type { ToolContext, ToolDef } from '../tool.js';
import { edgesAround } from '../walk.js';
import { impactTool } from './impact.js';

const MAX_FILES = 500;
const MAX_SHOWN = 50;
/** Nodes in one file read at once (a file rarely declares more). */
const FILE_NODES = 5000;

/** What a file of the diff became in the answer. */
interface FileReport {
  path: string;
  status: DiffFile['status'];
  indexed_as?: string;
  declarations?: number;
  note?: string;
}

/** The edge out of a changed declaration that makes it a route, a client or a producer. */
const DECLARED = ['EXPOSES', 'DECLARES_CLIENT', 'DECLARES_PRODUCER'] as const;

export const changesTool: ToolDef = {
  name: 'changes',
  title: 'What does this change break',
  description: () =>
    [
      'Maps a change onto the index and answers its impact by service: the declarations whose lines it touches, the routes, clients and producers among them, what depends on them (callers, injections, overrides, type usages…), and the other services that call those routes or consume those topics, with a risk summary.',
      'Pass a unified diff as `diff`, or `revisions` (`main..HEAD`, `HEAD~1`, a hash: git diffs it in the indexed work tree). `indexed` says which side of the diff the index holds: `old` (default: the index is the base the change applies to) or `new`.',
      'Binary, added and deleted files, renames, files outside the index and hunks that do not match the indexed files are listed with what was done about them, never fatal.',
    ].join('\n'),
  params: () => [
    { name: 'diff', description: 'A unified diff (git diff, diff -u).', schema: { type: 'string', minLength: 1 } },
    { name: 'revisions', description: 'A git revision or range, diffed in the indexed work tree (instead of `diff`).', schema: { type: 'string', minLength: 1 } },
    { name: 'source', description: 'The code source the change is to (needed when several are indexed).', schema: { type: 'string' } },
    { name: 'indexed', description: 'Which side of the diff the index holds: `old` (default) or `new`.', schema: { type: 'string', enum: ['old', 'new'], default: 'old' } },
    { name: 'depth', description: 'How many hops of dependents to follow (default 2, at most 5).', schema: { type: 'integer', minimum: 1, maximum: 5, default: 2 } },
  ],
  run: async (ctx, args) => {
    const diffText = asString(args.diff, 'diff');
    const revisions = asString(args.revisions, 'revisions');
    if ((diffText === undefined) === (revisions === undefined)) {
      fail({ code: diffText === undefined ? 'missing_argument' : 'invalid_argument', argument: 'diff', message: 'changes needs exactly one of `diff` (a unified diff) and `revisions` (a git range such as `main..HEAD`).' });
    }
    const side = (asEnum(args.indexed, 'indexed', ['old', 'new'], 'side') ?? 'old') as 'old' | 'new';
    const depth = asInteger(args.depth, 'depth', { min: 1, max: 5 }) ?? 2;
    const code = (await ctx.store.sources()).filter((s) => s.kind === 'code');
    if (code.length === 0) fail({ code: 'not_found', message: 'The index has no code source to map a change onto. Index a Java or Kotlin tree first (`sextant index <dir>`).' });
    const named = asString(args.source, 'source');
    const chosen = named !== undefined ? code.find((s) => s.name === named) : code.length === 1 ? code[0] : undefined;
    if (!chosen) {
      fail({ code: named === undefined ? 'missing_argument' : 'invalid_argument', argument: 'source', message: `${named === undefined ? 'Several code sources are indexed' : `No code source named \`${named}\``}: pass \`source\`, one of ${code.map((s) => s.name).join(', ')}.`, allowed: code.map((s) => s.name) });
    }
    const root = chosen.origin;

    let text = diffText ?? '';
    let rootInTop: string | undefined;
    if (revisions !== undefined) {
      const git = await gitDiff(root, revisions);
      text = git.text;
      rootInTop = git.rootInTop;
    }
    const files = readDiff(text);
    if (files.length === 0) {
      return { ok: true, source: chosen.name, files: [], changed: { declarations: [] }, services: [], risk: { level: 'none', reasons: [] }, absence: { reason: 'empty_diff', message: revisions !== undefined ? `git diff ${revisions} has no changes.` : 'The text holds no unified diff (no `--- a/…` / `+++ b/…` file headers with `@@` hunks).' } };
    }
    if (files.length > MAX_FILES) fail({ code: 'out_of_range', argument: revisions !== undefined ? 'revisions' : 'diff', message: `The change touches ${files.length} files; changes maps at most ${MAX_FILES}. Ask about a smaller range.` });

    const reports: FileReport[] = [];
    const touched = new Map<string, NodeRecord>();
    for (const f of files) {
      const path = side === 'old' ? f.oldPath : f.newPath;
      const shown = f.newPath ?? f.oldPath ?? '?';
      const report: FileReport = { path: shown, status: f.status };
      reports.push(report);
      if (f.status === 'binary') {
        report.note = 'binary: no lines to map';
        continue;
      }
      if (!path) {
        report.note = side === 'old' ? 'added by the change: not in the index yet, so nothing depends on it' : 'deleted by the change: the index holds the new side, where it is gone';
        continue;
      }
      const located = await locate(ctx, chosen.name, path, rootInTop);
      if (!located) {
        report.note = rootInTop !== undefined && !`${path}/`.startsWith(rootInTop === '' ? '' : `${rootInTop}/`) ? `outside the indexed tree (${root})` : 'no indexed declaration lives in this file (not Java or Kotlin, excluded, or not indexed)';
        continue;
      }
      report.indexed_as = located.file;
      const lines = side === 'old' ? f.oldLines : f.newLines;
      const expect = side === 'old' ? f.oldExpect : f.newExpect;
      // The diff must apply to the tree the index was built from. The files on disk may have moved on since (a
      // commit after indexing): when they read as the diff's other side, the indexed side's lines still hold.
      const mismatch = await firstMismatch(root, located.file, expect);
      if (mismatch) {
        const other = side === 'old' ? f.newExpect : f.oldExpect;
        if ((await firstMismatch(root, located.file, other)) !== undefined) {
          report.note = `does not apply to the indexed tree: ${mismatch}; nothing was mapped for this file (was it indexed from another revision? try \`indexed: "${side === 'old' ? 'new' : 'old'}"\`)`;
          continue;
        }
        report.note = `the file on disk already reads as the ${side === 'old' ? 'new' : 'old'} side; mapped by the ${side} side's lines, as indexed`;
      }
      const hit = f.status === 'deleted' && side === 'old' ? located.nodes.filter((n) => n.kind === 'symbol') : declarationsAt(located.nodes, lines);
      report.declarations = hit.length;
      if (f.status === 'renamed' && hit.length === 0) report.note = 'renamed without changes inside a declaration';
      for (const n of hit) touched.set(n.id, n);
    }

    // Routes, clients and producers the changed declarations declare, and what depends on the declarations.
    const declared = await edgesAround(ctx, [...touched.keys()], 'out', [...DECLARED], 0);
    const routes = new Map<string, NodeRecord>();
    const outbound = new Map<string, NodeRecord>();
    for (const r of declared) (r.type === 'EXPOSES' ? routes : outbound).set(r.other.id, r.other);
    for (const n of touched.values()) if (n.kind === 'route') routes.set(n.id, n);
    const symbols = [...touched.values()].filter((n) => n.kind === 'symbol');

    // Impact's own entries carry what the answer shows (reference, service): nothing is read again.
    type Entry = Record<string, unknown> & { id: string; qualified_name: string; service?: string };
    const dependents = new Map<string, { entry: Entry; depth: number; via: unknown }>();
    for (let i = 0; i < symbols.length; i += 100) {
      // Other services are answered below, by route and topic: dependents stay within code.
      const answer = (await impactTool.run(ctx, { ids: symbols.slice(i, i + 100).map((n) => n.id), depth, limit: 2000, across_services: false })) as { groups: { depth: number; nodes: (Entry & { via: unknown })[] }[] };
      for (const g of answer.groups) {
        for (const { via, ...entry } of g.nodes) {
          if (touched.has(entry.id)) continue;
          const prev = dependents.get(entry.id);
          if (!prev || prev.depth > g.depth) dependents.set(entry.id, { entry: entry as Entry, depth: g.depth, via });
        }
      }
    }

    // Across services: who calls the changed routes (directly or through a gateway), who consumes what changed producers send.
    const crossings: { route: NodeRecord; from: NodeRecord; edge: string; caller?: unknown }[] = [];
    const inbound = await edgesAround(ctx, [...routes.keys()], 'in', ['HTTP_CALLS', 'ASYNC_CALLS', 'FORWARDS'], 0);
    for (const r of inbound) crossings.push({ route: routes.get(r.origin)!, from: r.other, edge: r.type, ...(r.other.props['caller'] !== undefined ? { caller: r.other.props['caller'] } : {}) });
    const sent = await edgesAround(ctx, [...outbound.values()].filter((n) => n.kind === 'producer').map((n) => n.id), 'out', ['ASYNC_CALLS'], 0);
    const consumers = sent.map((r) => ({ producer: r.origin, topic: r.other }));

    const byService = new Map<string, { changed: NodeRecord[]; routes: NodeRecord[]; dependents: number; called_by: Set<string> }>();
    const serviceOf = (n: NodeRecord): string => n.service ?? '(no service)';
    const entry = (s: string) => {
      let e = byService.get(s);
      if (!e) byService.set(s, (e = { changed: [], routes: [], dependents: 0, called_by: new Set() }));
      return e;
    };
    for (const n of symbols) entry(serviceOf(n)).changed.push(n);
    for (const n of routes.values()) entry(serviceOf(n)).routes.push(n);
    for (const d of dependents.values()) entry(d.entry.service ?? '(no service)').dependents++;
    for (const c of crossings) entry(serviceOf(c.route)).called_by.add(serviceOf(c.from));

    const otherServices = new Set(crossings.filter((c) => serviceOf(c.from) !== serviceOf(c.route)).map((c) => serviceOf(c.from)));
    const consumerServices = new Set(consumers.map((c) => serviceOf(c.topic)));
    const reasons: string[] = [];
    if (otherServices.size) reasons.push(`${routes.size} changed route${routes.size === 1 ? '' : 's'} called from ${otherServices.size} other service${otherServices.size === 1 ? '' : 's'} (${[...otherServices].sort().join(', ')})`);
    if (consumers.length) reasons.push(`changed producers reach ${consumers.length} destination${consumers.length === 1 ? '' : 's'} consumed in ${[...consumerServices].sort().join(', ')}`);
    if (dependents.size) reasons.push(`${dependents.size} dependent declaration${dependents.size === 1 ? '' : 's'} within ${depth} hop${depth === 1 ? '' : 's'}`);
    const level = otherServices.size > 0 || consumers.length > 0 ? 'high' : dependents.size >= 20 || routes.size > 0 ? 'medium' : touched.size > 0 ? 'low' : 'none';

    const o = ctx.ontology;
    const cap = <T>(xs: T[]): T[] => xs.slice(0, MAX_SHOWN);
    const hints: (Hint | undefined)[] = [];
    const firstRoute = [...routes.values()][0];
    if (firstRoute) hints.push({ tool: 'trace', args: { from: firstRoute.id }, reason: `the request flow through ${firstRoute.qualified_name}` });
    const firstSymbol = symbols[0];
    if (firstSymbol) hints.push({ tool: 'impact', args: { ids: symbols.slice(0, 100).map((n) => n.id), depth: Math.min(10, depth + 1) }, reason: 'dependents one hop further' });
    const result: Record<string, unknown> = {
      ok: true,
      source: chosen.name,
      indexed: side,
      files: reports,
      changed: {
        declarations: cap(symbols.map((n) => listEntry(o, n))),
        declarations_total: symbols.length,
        routes: cap([...routes.values()].map((n) => listEntry(o, n))),
        clients_and_producers: cap([...outbound.values()].map((n) => listEntry(o, n))),
      },
      dependents: cap([...dependents.values()].sort((a, b) => a.depth - b.depth || (a.entry.qualified_name < b.entry.qualified_name ? -1 : 1)).map((d) => ({ ...d.entry, depth: d.depth, via: d.via }))),
      dependents_total: dependents.size,
      callers_of_changed_routes: cap(crossings.map((c) => ({ route: c.route.qualified_name, edge: c.edge, from: listEntry(o, c.from), service: serviceOf(c.from), ...(c.caller !== undefined ? { caller: c.caller } : {}) }))),
      consumers_of_changed_producers: cap(consumers.map((c) => ({ producer: c.producer, destination: listEntry(o, c.topic), service: serviceOf(c.topic) }))),
      services: [...byService.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([service, e]) => ({ service, changed: e.changed.length, routes_changed: e.routes.map((r) => r.qualified_name).sort(), dependents: e.dependents, called_by: [...e.called_by].sort() })),
      risk: { level, reasons },
      hints: limitHints(hints),
    };
    if (touched.size === 0) result['absence'] = { reason: 'nothing_mapped', message: 'No line of the change falls inside an indexed declaration; each file says why.' };
    return result;
  },
};

/**
 * The indexed file a diff path names, with its nodes. Diff paths are relative to the repository's top, which may
 * sit above the indexed root: with git the offset is known, otherwise the longest tail of the path the index holds.
 */
async function locate(ctx: ToolContext, source: string, path: string, rootInTop: string | undefined): Promise<{ file: string; nodes: NodeRecord[] } | undefined> {
  const clean = path.replace(/^\.\//, '');
  let candidates: string[];
  if (rootInTop !== undefined) {
    if (rootInTop !== '' && !clean.startsWith(`${rootInTop}/`)) return undefined;
    candidates = [rootInTop === '' ? clean : clean.slice(rootInTop.length + 1)];
  } else {
    const parts = clean.split('/');
    candidates = parts.map((_, i) => parts.slice(i).join('/'));
  }
  for (const file of candidates) {
    const { nodes } = await ctx.store.findNodes({ predicates: [{ property: 'source', op: 'in', values: [source] }, { property: 'file', op: 'in', values: [file] }], limit: FILE_NODES, offset: 0 });
    if (nodes.length) return { file, nodes };
  }
  return undefined;
}

/** The innermost declarations (and routes, clients, producers declared on a line) the lines fall in. */
function declarationsAt(nodes: readonly NodeRecord[], lines: readonly number[]): NodeRecord[] {
  const spans = nodes
    .filter((n) => n.kind === 'symbol' && typeof n.line === 'number')
    .map((n) => ({ node: n, start: n.line!, end: typeof n.props['end_line'] === 'number' ? (n.props['end_line'] as number) : n.line! }));
  const out = new Map<string, NodeRecord>();
  const outermost = spans.filter((s) => !spans.some((o) => o !== s && o.start <= s.start && o.end >= s.end && (o.start < s.start || o.end > s.end)));
  for (const line of lines) {
    const inside = spans.filter((s) => s.start <= line && line <= s.end).sort((a, b) => a.end - a.start - (b.end - b.start));
    // A line outside every declaration (imports, the package line) changes what the file's top-level types see.
    for (const s of inside.length ? [inside[0]!] : outermost) out.set(s.node.id, s.node);
    for (const n of nodes) if (n.kind !== 'symbol' && n.line === line) out.set(n.id, n);
  }
  return [...out.values()];
}

/** Where the indexed file disagrees with what the diff expects there, or undefined when it applies. */
async function firstMismatch(root: string, file: string, expect: ReadonlyMap<number, string>): Promise<string | undefined> {
  const abs = resolve(root, file);
  const rel = relative(resolve(root), abs);
  if (rel.startsWith('..') || isAbsolute(rel)) return `${file} is outside the indexed root`;
  let text: string;
  try {
    text = await readFile(join(root, file), 'utf8');
  } catch {
    return `${file} cannot be read from the indexed tree`;
  }
  const lines = text.split(/\r?\n/);
  for (const [n, want] of [...expect.entries()].sort((a, b) => a[0] - b[0])) {
    const got = lines[n - 1];
    if (got === undefined) return `line ${n} is past the end of ${file} (${lines.length} lines)`;
    if (got.trimEnd() !== want.trimEnd()) return `line ${n} of ${file} reads ${JSON.stringify(got.trim().slice(0, 80))}, the diff expects ${JSON.stringify(want.trim().slice(0, 80))}`;
  }
  return undefined;
}
