/**
 * Apache httpd reverse-proxy rules (mod_proxy: `ProxyPass`, `ProxyPassMatch`, `<Location>` blocks, balancers) as
 * {@link ProxyRule}s, from configuration files and from consul-template templates that render them
 * (`{{range services}}`). Pure: text in, rules out; what cannot be read is a warning naming `file:line`.
 */
import { patternAccepts } from '../../../search/patterns.js';
import type { LocationKind, ProxyRule } from './deployment.js';

// ---------------------------------------------------------------------------------------------------------------
// Which files

export interface HttpdFileRule {
  /** The file name (last path segment). */
  name: RegExp;
  /** When set, some directory above the file must have one of these names. */
  under?: readonly string[];
  what: string;
}

/**
 * Paths that may hold httpd configuration. Several are shared with nginx (`conf.d`, `sites-enabled`) or are
 * templates of any format (`.ctmpl`): {@link mentionsHttpdProxy} decides on the text.
 */
export const HTTPD_FILES: readonly HttpdFileRule[] = [
  { name: /^(?:httpd|apache2?)\.conf$/, what: 'the main server configuration' },
  { name: /^httpd-[\w.-]+\.conf$/, what: "httpd's extra configuration (httpd-vhosts.conf, httpd-proxy.conf)" },
  { name: /\.ctmpl$/, what: 'a consul-template template' },
  { name: /\.conf$/, under: ['apache', 'apache2', 'httpd', 'conf.d', 'conf-available', 'conf-enabled', 'sites-available', 'sites-enabled', 'vhosts.d', 'extra'], what: 'configuration in an httpd directory' },
  { name: /^[^.]+$/, under: ['sites-available', 'sites-enabled'], what: 'a Debian site file without extension (000-default)' },
];

/** Whether a path (posix, relative) is one {@link HTTPD_FILES} names. */
export function isHttpdFile(path: string): boolean {
  const segments = path.split('/');
  const name = segments[segments.length - 1] ?? '';
  const dirs = segments.slice(0, -1);
  return HTTPD_FILES.some((rule) => rule.name.test(name) && (!rule.under || dirs.some((d) => rule.under!.includes(d))));
}

/** Whether a candidate's text proxies as httpd does: worth {@link readHttpd}. */
export function mentionsHttpdProxy(text: string): boolean {
  return /^[ \t]*(?:ProxyPass(?:Match)?|BalancerMember)[ \t]/im.test(text);
}

// ---------------------------------------------------------------------------------------------------------------
// consul-template

/** What `.` is inside a template: a catalog service (`range services`), an instance of one (`range service "x"`), or nothing known. */
type Dot = { kind: 'service'; name: string } | { kind: 'instance'; service: string } | { kind: 'none' };

/** Fields of a catalog service (`range services`) the estate determines. */
const SERVICE_FIELDS: Record<string, (service: { name: string }) => string> = { Name: (s) => s.name };
/**
 * Fields of a service instance (`range service "x"`) the estate determines. Its `.Address` becomes the service's
 * name, which is how the estate's other files address it; its port, node and id stay unknown.
 */
const INSTANCE_FIELDS: Record<string, (instance: { service: string }) => string> = { Name: (i) => i.service, Service: (i) => i.service, Address: (i) => i.service };

function fieldOf(dot: Dot, field: string): string | undefined {
  if (dot.kind === 'service') return SERVICE_FIELDS[field]?.(dot);
  if (dot.kind === 'instance') return INSTANCE_FIELDS[field]?.(dot);
  return undefined;
}

/** Template functions over strings. */
const STRING_FUNCTIONS: Record<string, (s: string) => string> = {
  toLower: (s) => s.toLowerCase(),
  toUpper: (s) => s.toUpperCase(),
  trimSpace: (s) => s.trim(),
  toTitle: (s) => s.replace(/\b\w/g, (c) => c.toUpperCase()),
};

/** Comparisons `{{if}}` can decide when both sides are known. */
const COMPARISONS: Record<string, (a: string, b: string) => boolean> = { eq: (a, b) => a === b, ne: (a, b) => a !== b };

const MAX_RENDERED = 2_000_000;
const MAX_TEMPLATE_DEPTH = 32;

type TNode =
  | { kind: 'text'; start: number; end: number }
  | { kind: 'action'; expr: string; at: number }
  | { kind: 'block'; keyword: string; expr: string; at: number; body: TNode[]; alt: TNode[] };

interface Scope {
  dot: Dot;
  vars: Map<string, Dot | string>;
}

/** Rendered text with, for each character, the offset in the template it comes from. */
interface Rendered {
  text: string[];
  origin: number[];
  size: number;
  truncated: boolean;
}

class Template {
  private readonly warned = new Set<string>();

  constructor(
    private readonly file: string,
    private readonly source: string,
    private readonly lineAt: (offset: number) => number,
    private readonly services: readonly string[],
    private readonly warnings: string[],
  ) {}

  render(): Rendered {
    const out: Rendered = { text: [], origin: [], size: 0, truncated: false };
    this.renderNodes(this.parse(), { dot: { kind: 'none' }, vars: new Map() }, out, 0);
    if (out.truncated) this.warn(0, `renders more than ${MAX_RENDERED} characters; the rest is not read`);
    return out;
  }

  private warn(offset: number, message: string): void {
    const text = `${this.file}:${this.lineAt(offset)}: ${message}`;
    if (this.warned.has(text)) return;
    this.warned.add(text);
    this.warnings.push(text);
  }

  /** Text and actions, blocks nested (`{{range}}`/`{{if}}`/`{{with}}` … `{{else}}` … `{{end}}`), trim markers applied. */
  private parse(): TNode[] {
    const src = this.source;
    const root: TNode[] = [];
    const stack: { node: Extract<TNode, { kind: 'block' }>; inAlt: boolean }[] = [];
    const into = (): TNode[] => {
      const top = stack[stack.length - 1];
      return top ? (top.inAlt ? top.node.alt : top.node.body) : root;
    };
    let pos = 0;
    let trimNext = false;
    for (;;) {
      const open = src.indexOf('{{', pos);
      let textEnd = open < 0 ? src.length : open;
      let textStart = pos;
      if (trimNext) while (textStart < textEnd && /\s/.test(src[textStart]!)) textStart++;
      const close = open < 0 ? -1 : actionEnd(src, open + 2);
      if (open >= 0 && close < 0) {
        this.warn(open, 'a consul-template action is not closed ({{ without }}); the rest is read as text');
        textEnd = src.length;
      }
      const trimBefore = open >= 0 && close >= 0 && /^-\s/.test(src.slice(open + 2, open + 4));
      if (trimBefore) while (textEnd > textStart && /\s/.test(src[textEnd - 1]!)) textEnd--;
      if (textEnd > textStart) into().push({ kind: 'text', start: textStart, end: textEnd });
      if (open < 0 || close < 0) break;
      let inner = src.slice(open + 2, close);
      trimNext = /\s-$/.test(inner);
      inner = inner.replace(/^-\s/, '').replace(/\s-$/, '').trim();
      pos = close + 2;
      if (inner.startsWith('/*')) continue;
      const keyword = /^[A-Za-z]+/.exec(inner)?.[0] ?? '';
      const rest = inner.slice(keyword.length).trim();
      if (keyword === 'range' || keyword === 'if' || keyword === 'with' || keyword === 'define' || keyword === 'block') {
        const node: Extract<TNode, { kind: 'block' }> = { kind: 'block', keyword, expr: rest, at: open, body: [], alt: [] };
        into().push(node);
        stack.push({ node, inAlt: false });
      } else if (keyword === 'else') {
        const top = stack[stack.length - 1];
        if (top) top.inAlt = true;
        else this.warn(open, '{{else}} outside a block; ignored');
      } else if (keyword === 'end') {
        if (!stack.pop()) this.warn(open, '{{end}} without a block; ignored');
      } else into().push({ kind: 'action', expr: inner, at: open });
    }
    if (stack.length) this.warn(stack[stack.length - 1]!.node.at, `{{${stack[stack.length - 1]!.node.keyword}}} is not closed with {{end}}; it runs to the end of the file`);
    return root;
  }

  private renderNodes(nodes: readonly TNode[], scope: Scope, out: Rendered, depth: number): void {
    for (const node of nodes) {
      if (out.truncated) return;
      if (node.kind === 'text') emit(out, this.source.slice(node.start, node.end), node.start, true);
      else if (node.kind === 'action') {
        const assignment = /^(\$\w+)\s*:?=\s*([\s\S]*)$/.exec(node.expr);
        if (assignment) {
          // `{{ $x := … }}` prints nothing; an unknown value leaves the variable unknown.
          const value = this.evaluate(assignment[2]!, scope) ?? this.operand(assignment[2]!.trim(), scope);
          if (value === undefined) scope.vars.delete(assignment[1]!);
          else scope.vars.set(assignment[1]!, value);
          continue;
        }
        const value = this.evaluate(node.expr, scope);
        // An unknown value stays visible, as one token, so the directive around it keeps its arguments.
        emit(out, typeof value === 'string' ? value : `{{${node.expr.replace(/\s+/g, '')}}}`, node.at, false);
      } else if (depth >= MAX_TEMPLATE_DEPTH) this.warn(node.at, `blocks nested deeper than ${MAX_TEMPLATE_DEPTH}; not rendered`);
      else this.renderBlock(node, scope, out, depth + 1);
    }
  }

  private renderBlock(node: Extract<TNode, { kind: 'block' }>, scope: Scope, out: Rendered, depth: number): void {
    switch (node.keyword) {
      case 'range': {
        const range = this.rangeOf(node.expr, scope);
        if (range === undefined) {
          this.warn(node.at, `{{range ${node.expr}}} is not evaluated; its body is not read`);
          return;
        }
        if (!range.items.length) this.renderNodes(node.alt, scope, out, depth);
        range.items.forEach((item, i) => {
          const vars = new Map(scope.vars);
          if (range.index) vars.set(range.index, String(i));
          if (range.element) vars.set(range.element, item);
          this.renderNodes(node.body, { dot: item, vars }, out, depth);
        });
        return;
      }
      case 'if': {
        const decided = this.condition(node.expr, scope);
        if (decided === undefined) this.warn(node.at, `{{if ${node.expr}}} is not evaluated; read as true`);
        this.renderNodes(decided === false ? node.alt : node.body, scope, out, depth);
        return;
      }
      case 'with':
        this.warn(node.at, `{{with ${node.expr}}} is not evaluated; its body is read once`);
        this.renderNodes(node.body, { dot: { kind: 'none' }, vars: scope.vars }, out, depth);
        return;
      case 'block':
        this.renderNodes(node.body, scope, out, depth);
        return;
      default:
        return;
    }
  }

  /** `services`, `service "name"` (with `$v :=` / `$i, $v :=`): the dots a range runs over; undefined when not known. */
  private rangeOf(expr: string, scope: Scope): { items: Dot[]; index?: string; element?: string } | undefined {
    const decl = /^(\$\w+)(?:\s*,\s*(\$\w+))?\s*:=\s*(.*)$/.exec(expr);
    const pipeline = decl ? decl[3]! : expr;
    const names = decl ? (decl[2] ? { index: decl[1]!, element: decl[2] } : { element: decl[1]! }) : {};
    const words = splitWords(pipeline);
    if (words.length === 1 && words[0] === 'services') return { items: this.services.map((name) => ({ kind: 'service', name })), ...names };
    if (words.length === 2 && words[0] === 'service') {
      const arg = this.operand(words[1]!, scope);
      if (typeof arg !== 'string') return undefined;
      return { items: [{ kind: 'instance', service: serviceQueryName(arg) }], ...names };
    }
    return undefined;
  }

  private condition(expr: string, scope: Scope): boolean | undefined {
    const words = splitWords(expr);
    const compare = COMPARISONS[words[0] ?? ''];
    if (compare && words.length === 3) {
      const a = this.operand(words[1]!, scope);
      const b = this.operand(words[2]!, scope);
      return typeof a === 'string' && typeof b === 'string' ? compare(a, b) : undefined;
    }
    return undefined;
  }

  /** A pipeline's string value (`.Name`, `$s.Name | toLower`, `"x"`), or undefined. */
  private evaluate(expr: string, scope: Scope): string | undefined {
    const stages = splitPipes(expr);
    let value: string | undefined;
    for (const [i, stage] of stages.entries()) {
      const words = splitWords(stage);
      if (!words.length) return undefined;
      const fn = STRING_FUNCTIONS[words[0]!];
      if (fn) {
        const arg = i === 0 ? (words.length === 2 ? this.operand(words[1]!, scope) : undefined) : words.length === 1 ? value : undefined;
        if (typeof arg !== 'string') return undefined;
        value = fn(arg);
      } else if (i === 0 && words.length === 1) {
        const v = this.operand(words[0]!, scope);
        if (typeof v !== 'string') return undefined;
        value = v;
      } else return undefined;
    }
    return value;
  }

  /** One operand: a string literal, `.Field`, `$var`, `$var.Field`; a Dot when it names one, undefined when not known. */
  private operand(word: string, scope: Scope): string | Dot | undefined {
    if (/^"(?:[^"\\]|\\.)*"$/.test(word)) return word.slice(1, -1).replace(/\\(.)/g, '$1');
    if (/^`[^`]*`$/.test(word)) return word.slice(1, -1);
    const m = /^(\$\w*|)((?:\.\w+)*|\.)$/.exec(word);
    if (!m) return undefined;
    let base: string | Dot | undefined = m[1] ? (m[1] === '$' ? undefined : scope.vars.get(m[1])) : scope.dot;
    const fields = m[2] === '.' ? [] : m[2]!.split('.').filter(Boolean);
    for (const field of fields) {
      if (base === undefined || typeof base === 'string') return undefined;
      base = fieldOf(base, field);
    }
    return base;
  }
}

/** Where an action's `}}` is, past quoted strings; -1 when it has none. */
function actionEnd(src: string, from: number): number {
  let i = from;
  while (i < src.length) {
    const c = src[i];
    if (c === '}' && src[i + 1] === '}') return i;
    if (c === '"') {
      i++;
      while (i < src.length && src[i] !== '"' && src[i] !== '\n') i += src[i] === '\\' ? 2 : 1;
    } else if (c === '`') {
      const end = src.indexOf('`', i + 1);
      if (end < 0) return -1;
      i = end;
    }
    i++;
  }
  return -1;
}

/** Words of a command, quoted strings kept whole. */
function splitWords(text: string): string[] {
  return text.match(/"(?:[^"\\]|\\.)*"|`[^`]*`|[^\s"`]+/g) ?? [];
}

/** Stages of a pipeline (`a | b`), outside quotes. */
function splitPipes(text: string): string[] {
  return (text.match(/(?:"(?:[^"\\]|\\.)*"|`[^`]*`|[^|"`])+/g) ?? []).map((s) => s.trim());
}

/** consul-template's service query `[tag.]name[@datacenter][|filter]` → the name. */
function serviceQueryName(query: string): string {
  const bare = query.split('|')[0]!.split('@')[0]!.trim();
  const dot = bare.indexOf('.');
  return dot >= 0 ? bare.slice(dot + 1) : bare;
}

/** Appends text: template text keeps each character's own offset (`spread`), an action's value takes the action's. */
function emit(out: Rendered, text: string, origin: number, spread: boolean): void {
  if (out.size + text.length > MAX_RENDERED) {
    out.truncated = true;
    return;
  }
  out.text.push(text);
  out.size += text.length;
  for (let i = 0; i < text.length; i++) out.origin.push(spread ? origin + i : origin);
}

// ---------------------------------------------------------------------------------------------------------------
// httpd configuration

/**
 * Sections mod_proxy does not take ProxyPass in. Any other section (`<IfModule>`, `<IfDefine>`, …) is read as if
 * its contents were written around it: its condition is not evaluated.
 */
const NO_PROXYPASS_SECTIONS = new Set(['directory', 'directorymatch', 'files', 'filesmatch', 'if', 'elseif', 'else']);
/** ProxyPass keywords that may follow its URL (besides `key=value` parameters). */
const PROXYPASS_FLAGS = new Set(['nocanon', 'interpolate', 'noquery']);

interface Line {
  text: string;
  line: number;
}

interface Server {
  line: number;
  names: string[];
  listen: string[];
}

interface Section {
  name: string;
  line: number;
  location?: ProxyRule['location'] & { match: boolean };
  balancer?: string;
  server?: Server;
}

/**
 * The proxy rules of one httpd file, after consul-template renders it when it is a template: `{{range services}}`
 * runs over `serviceNames` (the services a Consul catalog would hold), one rule per expansion, each at the line of
 * the template's directive. `ProxyPass [path] url` is a prefix location whose prefix the URL's path replaces (mod_proxy
 * always replaces it); `ProxyPassMatch regex url` a regex location (its path passed on when the URL has neither a
 * path nor `$n` references, else not evaluated); `<Location>`/`<LocationMatch>` give the path of a ProxyPass
 * inside. A `balancer://name` target goes to the hosts of that balancer's `BalancerMember`s in the file.
 */
export function readHttpd(file: string, text: string, serviceNames: readonly string[]): { rules: ProxyRule[]; warnings: string[] } {
  const warnings: string[] = [];
  try {
    return { rules: readRules(file, text, serviceNames, warnings), warnings };
  } catch (error) {
    warnings.push(`${file}:1: cannot read httpd configuration (${error instanceof Error ? error.message : String(error)}); skipped`);
    return { rules: [], warnings };
  }
}

function readRules(file: string, text: string, serviceNames: readonly string[], warnings: string[]): ProxyRule[] {
  const lineStarts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lineStarts.push(i + 1);
  const lineAt = (offset: number): number => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
  let lines: Line[];
  if (text.includes('{{')) {
    const services = [...new Set(serviceNames)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    lines = renderedLines(new Template(file, text, lineAt, services, warnings).render(), lineAt);
  } else lines = text.split('\n').map((t, i) => ({ text: t, line: i + 1 }));
  return directives(file, logicalLines(lines), warnings);
}

/** Rendered text split in lines, each at the template line of its first non-blank character. */
function renderedLines(rendered: Rendered, lineAt: (offset: number) => number): Line[] {
  const text = rendered.text.join('');
  const out: Line[] = [];
  let start = 0;
  while (start <= text.length) {
    const nl = text.indexOf('\n', start);
    const end = nl < 0 ? text.length : nl;
    let first = start;
    while (first < end && /\s/.test(text[first]!)) first++;
    out.push({ text: text.slice(start, end), line: lineAt(rendered.origin[first < end ? first : start] ?? 0) });
    if (nl < 0) break;
    start = nl + 1;
  }
  return out;
}

/** Lines with `\` continuations joined, blank and `#` comment lines dropped. */
function logicalLines(lines: readonly Line[]): Line[] {
  const out: Line[] = [];
  let current: Line | undefined;
  for (const raw of lines) {
    const t = raw.text.replace(/\r$/, '');
    const continues = /\\$/.test(t);
    const body = continues ? t.slice(0, -1) : t;
    current = current ? { text: `${current.text} ${body.trim()}`, line: current.line } : { text: body.trim(), line: raw.line };
    if (continues) continue;
    if (current.text && !current.text.startsWith('#')) out.push(current);
    current = undefined;
  }
  if (current?.text && !current.text.startsWith('#')) out.push(current);
  return out;
}

/** A directive's arguments: whitespace-separated, `"…"` or `'…'` quoted (httpd unescapes only the quote itself: `\.` stays). */
function argumentsOf(text: string): string[] {
  const out: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|(\S+)/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[3] !== undefined) out.push(m[3]);
    else if (m[1] !== undefined) out.push(m[1].replace(/\\"/g, '"'));
    else out.push((m[2] ?? '').replace(/\\'/g, "'"));
  }
  return out;
}

function directives(file: string, lines: readonly Line[], warnings: string[]): ProxyRule[] {
  const rules: { rule: ProxyRule; server: Server }[] = [];
  const members = new Map<string, string[]>();
  const defines = new Map<string, string>();
  const topListen: string[] = [];
  /** The main server: directives outside any <VirtualHost> (line 0 stands for it). */
  const main: Server = { line: 0, names: [], listen: topListen };
  const stack: Section[] = [];
  const addMember = (balancer: string, url: string | undefined): void => {
    const host = url === undefined ? undefined : targetOf(url).host;
    const list = members.get(balancer) ?? [];
    if (host && !list.includes(host)) list.push(host);
    members.set(balancer, list);
  };
  const innermost = <K extends keyof Section>(key: K): Section[K] | undefined => {
    for (let i = stack.length - 1; i >= 0; i--) if (stack[i]![key] !== undefined) return stack[i]![key];
    return undefined;
  };

  for (const { text, line } of lines) {
    const close = /^<\/\s*([A-Za-z][\w:-]*)\s*>$/.exec(text);
    if (close) {
      const name = close[1]!.toLowerCase();
      const at = stack.map((s) => s.name).lastIndexOf(name);
      if (at < 0) warnings.push(`${file}:${line}: </${close[1]}> closes no open section; ignored`);
      else stack.length = at;
      continue;
    }
    const open = text.startsWith('<') && text.endsWith('>') ? /^\s*([A-Za-z][\w:-]*)/.exec(text.slice(1, -1)) : null;
    if (open) {
      stack.push(section(open[1]!.toLowerCase(), argumentsOf(substitute(text.slice(1 + open[0].length, -1), defines)), line));
      continue;
    }
    const [rawName, ...rawArgs] = argumentsOf(text);
    const name = rawName?.toLowerCase();
    const args = rawArgs.map((a) => substitute(a, defines));
    switch (name) {
      case 'define':
        if (args[0]) defines.set(args[0], args[1] ?? '');
        break;
      case 'listen':
        if (!stack.some((s) => s.server)) for (const a of args) if (/^(?:.*:)?(\d+)$/.test(a)) topListen.push(/(\d+)$/.exec(a)![1]!);
        break;
      case 'servername':
      case 'serveralias': {
        const server = innermost('server') ?? main;
        for (const a of name === 'servername' ? args.slice(0, 1) : args) server.names.push(a.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').replace(/:\d+$/, '').toLowerCase());
        break;
      }
      case 'balancermember': {
        const inside = innermost('balancer');
        if (inside && !/^balancer:\/\//i.test(args[0] ?? '')) addMember(inside, args[0]);
        else if (/^balancer:\/\//i.test(args[0] ?? '')) addMember(targetOf(args[0]!).host ?? '', args[1]);
        else warnings.push(`${file}:${line}: BalancerMember outside a <Proxy balancer://…> names no balancer; ignored`);
        break;
      }
      case 'proxypass':
      case 'proxypassmatch': {
        const barred = stack.find((s) => NO_PROXYPASS_SECTIONS.has(s.name));
        if (barred) {
          warnings.push(`${file}:${line}: ${rawName} is not allowed in <${barred.name}> (line ${barred.line}); skipped`);
          break;
        }
        const server = innermost('server') ?? main;
        const made = proxyPass(file, line, name === 'proxypassmatch', args, innermost('location'), server, warnings);
        if (made) rules.push({ rule: made, server });
        break;
      }
      default:
        break;
    }
  }
  for (const s of stack.slice().reverse()) warnings.push(`${file}:${s.line}: <${s.name}> is not closed`);

  return rules.map(({ rule, server }) => {
    const out: ProxyRule = { ...rule, serverNames: [...new Set(server.names)], listen: [...new Set(server.listen)] };
    if (!out.upstream) return out;
    const hosts = members.get(out.upstream);
    if (hosts?.length) out.targetHosts = [...hosts].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    else out.unresolved = `balancer://${out.upstream} has no BalancerMember in ${file}`;
    return out;
  });
}

function section(name: string, args: string[], line: number): Section {
  const out: Section = { name, line };
  if (name === 'virtualhost') {
    const listen = args.map((a) => /:(\d+)$/.exec(a)?.[1]).filter((p): p is string => !!p);
    out.server = { line, names: [], listen: [...new Set(listen)] };
  } else if (name === 'location' || name === 'locationmatch') {
    const regex = name === 'locationmatch' || args[0] === '~';
    const path = args[0] === '~' ? args[1] : args[0];
    if (path !== undefined) out.location = { kind: regex ? 'regex' : 'prefix', path, line, match: name === 'locationmatch' || regex };
  } else if (name === 'proxy' || name === 'proxymatch') {
    const target = args[0] ?? '';
    if (/^balancer:\/\//i.test(target)) out.balancer = targetOf(target).host ?? '';
  }
  return out;
}

/** `${NAME}` from `Define`; others (the environment httpd starts in) stay as written. */
function substitute(text: string, defines: ReadonlyMap<string, string>): string {
  return text.includes('${') ? text.replace(/\$\{(\w+)\}/g, (whole, name: string) => defines.get(name) ?? whole) : text;
}

/** `scheme://user@host:port/path` → host (lower case, no port), path and scheme; a unix socket or non-URL → no host. */
function targetOf(url: string): { scheme?: string; host?: string; path?: string; why?: string } {
  if (/^unix:/i.test(url)) return { why: `${url} goes to a unix socket` };
  const m = /^([a-z][a-z0-9+.-]*):\/\/([^/]*)(\/.*)?$/i.exec(url);
  if (!m) return { why: `${url} is not a URL` };
  const authority = m[2]!.slice(m[2]!.lastIndexOf('@') + 1);
  const host = (authority.startsWith('[') ? authority.slice(1, authority.indexOf(']')) : authority.replace(/:[^:]*$/, '')).toLowerCase();
  if (!host) return { scheme: m[1]!.toLowerCase(), why: `${url} names no host` };
  const out: { scheme?: string; host?: string; path?: string; why?: string } = { scheme: m[1]!.toLowerCase(), host };
  if (m[3] !== undefined) out.path = m[3];
  if (host.includes('{{') || host.includes('${')) return { ...out, host: undefined, why: `the host of ${url} is left to ${host.includes('{{') ? 'the template that renders the file' : 'the environment httpd runs in'}` };
  return out;
}

function proxyPass(file: string, line: number, match: boolean, args: readonly string[], inLocation: Section['location'], server: Server, warnings: string[]): ProxyRule | undefined {
  const directive = match ? 'ProxyPassMatch' : 'ProxyPass';
  const positional = args.filter((a) => !a.includes('=') && !PROXYPASS_FLAGS.has(a.toLowerCase()));
  let location: ProxyRule['location'];
  let url: string | undefined;
  if (inLocation) {
    if (positional.length > 1) {
      warnings.push(`${file}:${line}: ${directive} inside <Location> takes no path (${positional[0]}); skipped`);
      return undefined;
    }
    if (inLocation.match && !match) {
      warnings.push(`${file}:${line}: ProxyPass inside <LocationMatch> reads the regular expression as a literal path; use ProxyPassMatch; skipped`);
      return undefined;
    }
    // The section's argument is the directive's first one, verbatim: ProxyPassMatch reads it as a regex.
    location = { kind: match ? 'regex' : inLocation.kind, path: inLocation.path, line: inLocation.line };
    url = positional[0];
  } else {
    if (positional.length < 2) {
      if (positional[0] !== '!') warnings.push(`${file}:${line}: ${directive} needs a path and a URL outside <Location>; skipped`);
      return undefined;
    }
    const kind: LocationKind = match ? 'regex' : 'prefix';
    location = { kind, path: positional[0]!, line };
    url = positional[1];
  }
  if (url === undefined || url === '!') return undefined;
  // Server names and ports are filled in once the whole file is read: ServerName may follow the rule.
  const rule: ProxyRule = { file, line, serverLine: server.line, serverNames: [], listen: [], location, proxyPass: url, targetHosts: [], pathMode: 'unknown' };
  const target = targetOf(url);
  if (target.path !== undefined) rule.targetPath = target.path;
  if (target.why) {
    rule.unresolved = target.why;
    return rule;
  }
  if (target.scheme === 'balancer') rule.upstream = target.host!;
  else rule.targetHosts = [target.host!];
  if (!match) rule.pathMode = 'replace_prefix';
  // ProxyPassMatch appends the whole request path to a URL without `$n` references.
  else if (!/\$(?:\d|\{\d+\})/.test(url) && (target.path === undefined || target.path === '')) rule.pathMode = 'pass';
  return rule;
}

// ---------------------------------------------------------------------------------------------------------------
// Which requests a rule takes

/**
 * Whether a rule's location takes a request path as mod_proxy matches it: a ProxyPass path by whole segments
 * (`/app` takes `/app` and `/app/x`, not `/apple`; `/app/` only what starts with it), a ProxyPassMatch regex
 * anywhere in the path (read as RE2, in linear time; a pattern RE2 cannot read takes nothing). Among a server's
 * rules, the first that takes a request is the one used.
 */
export function httpdAccepts(location: Pick<ProxyRule['location'], 'kind' | 'path'>, requestPath: string): boolean {
  const { kind, path } = location;
  if (kind === 'regex') return patternAccepts(`(?s:.*)(?:${path})(?s:.*)`, requestPath);
  if (kind !== 'prefix') return false;
  if (path.endsWith('/')) return requestPath.startsWith(path);
  return requestPath === path || requestPath.startsWith(`${path}/`);
}
