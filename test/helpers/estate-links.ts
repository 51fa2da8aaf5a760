/**
 * Compares an estate's hand-checked links (`test/estates/<estate>.yaml`, read from the source by people, never from
 * Sextant) with what the `links` tool reports for its index. The rules are in `test/estates/README.md`: an entry
 * and a reported link are the same when they sit in the same file and method within 3 lines; then their outcomes
 * must agree. What is left on either side is a difference.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import type { ToolContext } from '../../src/query/tool.js';
import { runTool } from '../../src/query/index.js';
import type { LinkEntry } from '../../src/query/tools/links.js';

// Beside this file in test/helpers, or from the bench's compiled copy in dist-bench/test/helpers.
export const ESTATES_DIR = [join(dirname(fileURLToPath(import.meta.url)), '..', 'estates'), join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'test', 'estates')].find((d) => existsSync(d)) ?? join(dirname(fileURLToPath(import.meta.url)), '..', 'estates');

export interface ExpectedLink {
  kind: 'http' | 'message' | 'listener' | 'gateway';
  at: string;
  in?: string;
  what?: string;
  to?: string[];
  via?: string;
  external?: string;
  deployed?: string;
  unresolved?: string;
  stops_at?: string;
  destination?: string;
}

export interface ExpectedEstate {
  estate: string;
  services: Record<string, string | null>;
  links: ExpectedLink[];
}

export function loadExpected(estate: string): ExpectedEstate {
  const data = YAML.parse(readFileSync(join(ESTATES_DIR, `${estate}.yaml`), 'utf8')) as ExpectedEstate;
  return { estate: data.estate ?? estate, services: data.services ?? {}, links: data.links ?? [] };
}

/** Every link the index reports, through the `links` tool (every page). */
export async function reportedLinks(ctx: ToolContext): Promise<LinkEntry[]> {
  const out: LinkEntry[] = [];
  for (let offset = 0; ; offset += 2000) {
    const r = (await runTool(ctx, 'links', { include: 'all', limit: 2000, offset })) as Record<string, any>;
    if (!r.ok) throw new Error(`links failed: ${JSON.stringify(r.error)}`);
    out.push(...(r.links as LinkEntry[]));
    if (!r.has_more) break;
  }
  return out;
}

/** `pkg.Outer.Inner#method(A,B)` → `Outer.Inner#method`; `pkg.FooKt#f(…)` → `FooKt#f`. */
function memberName(qn: string | undefined): string {
  if (!qn) return '';
  const [type = '', rest = ''] = qn.split('#');
  const method = rest.replace(/\(.*$/, '');
  const parts = type.split('.');
  // Keep the nested type path: the first capitalised segment on.
  const first = parts.findIndex((p) => /^[A-Z$]/.test(p));
  return `${(first >= 0 ? parts.slice(first) : parts.slice(-1)).join('.')}#${method}`;
}

/** An expected `in` (`Inner#m`, `Outer.Inner#m`) names an actual member when it is a dotted suffix of it. */
function sameMember(expected: string | undefined, actual: string | undefined): boolean {
  if (!expected) return true;
  const a = memberName(actual);
  const e = expected.replace(/\(.*$/, '');
  return a === e || a.endsWith(`.${e}`) || a.replace(/\$\d+/g, '') === e.replace(/\$\d+/g, '');
}

function pattern(path: string): string {
  return (path.startsWith('/') ? path : `/${path}`).replace(/\{[^}]*\}/g, '{}').replace(/\/+$/, '') || '/';
}

interface Context {
  /** Service name (as the estate file or the index names it, lower case) → directory, or `name:<n>` for one without source. */
  dirOf: (name: string | undefined) => string;
}

/** The canonical form of one expected route (`svc METHOD /path`) or listener (`svc Type#handler`). */
function expectedTarget(kind: ExpectedLink['kind'], text: string, ctx: Context): string {
  if (kind === 'http') {
    const m = /^(.*\S)\s+([A-Z]+)\s+(\S+)$/.exec(text.trim());
    if (!m) return `?${text}`;
    return `${ctx.dirOf(m[1])} ${m[2]} ${pattern(m[3]!)}`;
  }
  if (kind === 'message') {
    const m = /^(.*\S)\s+(\S+#\S+)$/.exec(text.trim());
    if (!m) return `?${text}`;
    return `${ctx.dirOf(m[1])} ${m[2]!.replace(/\(.*$/, '')}`;
  }
  return ctx.dirOf(text.trim());
}

function actualTargets(e: LinkEntry, ctx: Context): string[] {
  if (e.kind === 'http') return [...new Set(e.targets.map((t) => `${ctx.dirOf(t.service)} ${t.method ?? 'ANY'} ${pattern(t.path ?? '')}`))].sort();
  if (e.kind === 'message') return [...new Set(e.targets.map((t) => `${ctx.dirOf(t.service)} ${memberName(t.handler)}`))].sort();
  return [...new Set([...(e.target_services ?? []), ...e.targets.map((t) => t.service ?? '')].filter(Boolean).map((s) => ctx.dirOf(s)))].sort();
}

function sameHandler(expected: string, actual: string): boolean {
  const [eDir, eMember] = [expected.slice(0, expected.lastIndexOf(' ')), expected.slice(expected.lastIndexOf(' ') + 1)];
  const [aDir, aMember] = [actual.slice(0, actual.lastIndexOf(' ')), actual.slice(actual.lastIndexOf(' ') + 1)];
  return eDir === aDir && (aMember === eMember || aMember.endsWith(`.${eMember}`));
}

/** Why an actual link's outcome differs from the entry's, or undefined when they agree. */
function outcomeDifference(x: ExpectedLink, a: LinkEntry, ctx: Context): string | undefined {
  const got = `${a.status}${a.targets.length ? ` ${JSON.stringify(actualTargets(a, ctx))}` : ''}${a.reason ? ` (${a.reason})` : ''}`;
  if (x.kind === 'listener') {
    if (x.unresolved !== undefined) return a.status === 'unresolved' ? undefined : `expected unresolved, got ${a.status} ${a.protocol} ${a.destination}`;
    const want = (x.destination ?? '').trim();
    const have = `${a.protocol ?? ''} ${a.destination ?? ''}`.trim();
    return a.status === 'resolved' && sameDestination(want, have) ? undefined : `expected destination ${want}, got ${a.status} ${have}`;
  }
  if (x.external !== undefined) return a.status === 'external' ? undefined : `expected external (${x.external}), got ${got}`;
  if (x.deployed !== undefined) return a.status === 'deployed' && (!a.targets.length || actualTargets(a, ctx).every((t) => t.startsWith(ctx.dirOf(x.deployed)))) ? undefined : `expected deployed ${x.deployed}, got ${got}`;
  if (x.unresolved !== undefined) {
    // A client whose target the estate leaves open may still be matched by method and path, as a guess.
    if (a.status !== 'unresolved' && a.status !== 'guessed') return `expected unresolved (${x.unresolved}), got ${got}`;
    if (x.stops_at && !`${a.unresolved_at ?? ''} ${a.reason ?? ''}`.includes(x.stops_at)) return `expected unresolved at ${x.stops_at}, got unresolved at ${a.unresolved_at ?? '?'} (${a.reason ?? ''})`;
    return undefined;
  }
  const want = (x.to ?? []).map((t) => expectedTarget(x.kind, t, ctx)).sort();
  if (!want.length) {
    const empty = x.kind === 'message' ? 'no_consumer' : x.kind === 'gateway' ? 'unmatched' : 'unmatched';
    return a.status === empty ? undefined : `expected a known target with nothing declared there (${empty}), got ${got}`;
  }
  const have = actualTargets(a, ctx);
  const ok = a.status === 'linked' && want.length === have.length && (x.kind === 'message' ? want.every((w) => have.some((h) => sameHandler(w, h))) : want.every((w, i) => w === have[i]));
  return ok ? undefined : `expected ${JSON.stringify(want)}, got ${got}`;
}

/**
 * The same destination: equal ignoring case, or a message class written by its simple name (`axon OrderCreated`) where
 * the index names it in full (`axon com.acme.OrderCreated`).
 */
function sameDestination(want: string, have: string): boolean {
  const [wp = '', ...wn] = want.split(' ');
  const [hp = '', ...hn] = have.split(' ');
  const w = wn.join(' ');
  const h = hn.join(' ');
  return wp.toLowerCase() === hp.toLowerCase() && (w === h || (!w.includes('.') && h.endsWith(`.${w}`)));
}

export interface Difference {
  kind: 'missing' | 'extra' | 'wrong';
  at: string;
  text: string;
}

/** Every difference between the estate file and the report, in file order. */
export function compareLinks(expected: ExpectedEstate, actual: readonly LinkEntry[], serviceDirs: ReadonlyMap<string, string>): Difference[] {
  const aliases = new Map<string, string>();
  for (const [name, dir] of Object.entries(expected.services)) aliases.set(name.toLowerCase(), dir ?? `name:${name.toLowerCase()}`);
  for (const [name, dir] of serviceDirs) if (!aliases.has(name.toLowerCase())) aliases.set(name.toLowerCase(), dir || `name:${name.toLowerCase()}`);
  const ctx: Context = { dirOf: (name) => (name ? (aliases.get(name.toLowerCase()) ?? `name:${name.toLowerCase()}`) : '?') };
  const out: Difference[] = [];
  const used = new Set<LinkEntry>();
  const pending: ExpectedLink[] = [];
  const locate = (x: ExpectedLink): { file: string; line: number } => {
    const cut = x.at.lastIndexOf(':');
    return { file: x.at.slice(0, cut), line: Number(x.at.slice(cut + 1)) };
  };
  const candidates = (x: ExpectedLink): LinkEntry[] => {
    const { file, line } = locate(x);
    return actual
      .filter((a) => !used.has(a) && a.kind === x.kind && a.file === file && Math.abs((a.line ?? 0) - line) <= 3 && (x.kind === 'gateway' || sameMember(x.in, a.member)))
      .sort((p, q) => Math.abs((p.line ?? 0) - line) - Math.abs((q.line ?? 0) - line));
  };
  // One declaration the index reports once per service that includes it (a handler in a shared library): one entry.
  const copiesOf = (a: LinkEntry): LinkEntry[] => actual.filter((b) => b !== a && b.kind === a.kind && b.name === a.name && b.file === a.file && b.line === a.line && b.member === a.member && b.status === a.status && b.destination === a.destination);
  // First the pairs that agree, then the pairs that only sit together (their outcomes differ).
  for (const x of expected.links) {
    const near = candidates(x);
    const agreeing = near.find((a) => outcomeDifference(x, a, ctx) === undefined);
    if (agreeing) {
      used.add(agreeing);
      for (const c of copiesOf(agreeing)) if (outcomeDifference(x, c, ctx) === undefined) used.add(c);
      continue;
    }
    // One call whose URL can take several values is one link per value in the index, one entry with all of them here.
    const group = near.filter((a) => a.line === near[0]?.line && a.member === near[0]?.member && a.status === 'linked');
    if (group.length > 1 && x.to?.length && outcomeDifference(x, { ...group[0]!, targets: group.flatMap((a) => a.targets) }, ctx) === undefined) {
      for (const a of group) used.add(a);
      continue;
    }
    pending.push(x);
  }
  // One send whose destination takes several values (a base class's queue, per subclass) is one link per call site in
  // the report, with every listener reached; here it is one entry per destination.
  const bySite = new Map<string, ExpectedLink[]>();
  for (const x of pending) if (x.kind === 'message' && x.to?.length) (bySite.get(`${x.at}\0${x.in ?? ''}`) ?? bySite.set(`${x.at}\0${x.in ?? ''}`, []).get(`${x.at}\0${x.in ?? ''}`)!).push(x);
  const combined = new Set<ExpectedLink>();
  for (const group of bySite.values()) {
    if (group.length < 2) continue;
    const all: ExpectedLink = { ...group[0]!, to: [...new Set(group.flatMap((x) => x.to ?? []))] };
    const agreeing = candidates(all).find((a) => outcomeDifference(all, a, ctx) === undefined);
    if (!agreeing) continue;
    used.add(agreeing);
    for (const x of group) combined.add(x);
  }
  for (const x of pending) {
    if (combined.has(x)) continue;
    const near = candidates(x)[0];
    if (!near) {
      out.push({ kind: 'missing', at: x.at, text: `${x.kind} ${x.in ?? ''} ${x.what ?? ''}`.replace(/\s+/g, ' ').trim() });
      continue;
    }
    used.add(near);
    out.push({ kind: 'wrong', at: x.at, text: `${x.kind} ${x.in ?? ''}: ${outcomeDifference(x, near, ctx)}` });
  }
  for (const a of actual) {
    if (used.has(a)) continue;
    out.push({ kind: 'extra', at: `${a.file ?? '?'}:${a.line ?? 0}`, text: `${a.kind} ${memberName(a.member)} ${a.name} → ${a.status}${a.targets.length ? ` ${JSON.stringify(actualTargets(a, ctx))}` : ''}` });
  }
  return out.sort((p, q) => p.at.localeCompare(q.at, undefined, { numeric: true }) || p.kind.localeCompare(q.kind));
}

/** Service name → directory, from the index's service nodes. */
export async function serviceDirectories(ctx: ToolContext): Promise<Map<string, string>> {
  const r = (await runTool(ctx, 'find', { kind: 'service', limit: 500 })) as Record<string, any>;
  const out = new Map<string, string>();
  for (const s of r.results ?? []) {
    const full = (await runTool(ctx, 'describe', { id: s.id })) as Record<string, any>;
    const files = Number(full.node?.properties?.files ?? 0);
    out.set(s.name, files > 0 ? String(full.node?.properties?.directory ?? '') : '');
  }
  return out;
}
