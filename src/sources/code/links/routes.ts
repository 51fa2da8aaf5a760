import { HTTP_METHODS, pathTokens, type PathVariable } from '../../../graph/ontology/code.js';
import { compilePattern, quotePattern } from '../../../search/patterns.js';
import type { AnnotationFacts, AnnotationValue, ConstPart } from '../parse/ir.js';
import type { CodeModel, MemberEntry, TypeEntry } from '../model/model.js';
import { partsOfText } from './messaging.js';
import { own } from '../model/own.js';
import { resolvePlaceholders } from '../config/spring-config.js';

/** An HTTP route a controller exposes, with the method that handles it. */
export interface HttpRoute {
  controller: TypeEntry;
  handler: MemberEntry;
  method: string;
  path: string;
  /** False when a path part is not a literal (a constant or placeholder, kept as written). */
  resolved: boolean;
  /** The mapping values as written, when the path is not plain literals (`ApiPaths.ORDERS + BY_ID`). */
  written?: string;
  framework: 'spring_mvc' | 'jax_rs' | 'spring_functional';
  profile?: string;
}

const SPRING_VERBS: Record<string, string> = { GetMapping: 'GET', PostMapping: 'POST', PutMapping: 'PUT', DeleteMapping: 'DELETE', PatchMapping: 'PATCH' };
/** Methods a mapping can name (JAX-RS verbs are annotations of these names). */
const EXPLICIT_METHODS = new Set<string>(HTTP_METHODS.filter((m) => m !== 'ANY'));

export interface Mapping {
  paths: Part[];
  methods: string[];
  framework: 'spring_mvc' | 'jax_rs';
}

const PREDICATE_START = /^\s*(?:RequestPredicates\s*\.\s*)?(GET|POST|PUT|DELETE|PATCH|HEAD|OPTIONS)\s*\(/;
const BUILDER_VERBS = new Set(['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS']);

/** `GET("/orders/{id}")…` as written: the method and the path argument (a balanced scan, so `.and(accept(…))` after it is left out). */
function predicateOf(text: string): { method: string; path: string } | undefined {
  const m = PREDICATE_START.exec(text);
  if (!m) return undefined;
  let depth = 1;
  let quoted = false;
  for (let i = m[0].length; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '\\') i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return { method: m[1]!, path: text.slice(m[0].length, i) };
  }
  return undefined;
}

/**
 * Functional WebFlux / WebMvc routes (`RouterFunction` beans) whose path the source states: builder calls
 * `route().GET("/orders/{id}", handler::get)` and `route(GET("/orders"), handler::list)` / `.andRoute(…)`.
 * The handler is the method the handler argument references (`handlerRef` resolves `handler::get`), else the
 * router method itself (a lambda). A router that nests (`path(…)`, `nest(…)`) applies prefixes Sextant does not
 * follow: its routes say `resolved: false`.
 */
export function functionalRoutesOf(entry: TypeEntry, constants: Constants, handlerRef: (member: MemberEntry, written: string) => MemberEntry | undefined): HttpRoute[] {
  const out: HttpRoute[] = [];
  for (const m of entry.members) {
    if (m.facts.kind !== 'method' || !/(^|\.)RouterFunction$/.test(m.facts.returnType?.name ?? '')) continue;
    const nested = m.facts.calls.some((c) => c.name === 'path' || c.name === 'nest');
    for (const call of m.facts.calls) {
      let method: string | undefined;
      let pathArg: string | undefined;
      let handlerArg: string | undefined;
      if (BUILDER_VERBS.has(call.name) && call.args.length >= 2) [method, pathArg, handlerArg] = [call.name, call.args[0], call.args[call.args.length - 1]];
      else if ((call.name === 'route' || call.name === 'andRoute') && call.args.length === 2) {
        const p = predicateOf(call.args[0]!);
        if (p) [method, pathArg, handlerArg] = [p.method, p.path, call.args[1]];
      }
      if (!method || !pathArg || !handlerArg) continue;
      // A request predicate in place of a path (`GET(accept(JSON), …)`) states no path.
      const parts = partsOfText(pathArg);
      if (!parts) continue;
      const part = constants.partOf(parts, pathArg, entry);
      const handler = handlerRef(m, handlerArg) ?? m;
      out.push({ controller: entry, handler, method, path: joinPath('', part.text), resolved: part.literal && !nested, ...(part.derived || nested ? { written: part.written } : {}), framework: 'spring_functional', ...profileOf(part) });
    }
  }
  return out;
}

/** A path as the source gives it: its value (or, unresolved, the expression as written) and how it is written. */
export interface Part {
  text: string;
  literal: boolean;
  written: string;
  /** Built from constants or placeholders rather than one literal. */
  derived: boolean;
  /** The Spring profile(s) whose configuration gave a placeholder its value, when the default profile does not. */
  profile?: string;
  /** The value with its `${…}` placeholders still in it (constants evaluated), when it has any. */
  template?: string;
}

/**
 * Why a value the source does not state is unknown, as a links report groups it: the configuration keys of its
 * placeholders (none of the service's files sets them all), else the expression as written.
 */
export function unresolvedPart(part: Part, what: string): { unresolved_reason?: string; unresolved_kind?: 'configuration' | 'expression'; unresolved_at?: string } {
  if (part.literal) return {};
  const keys = [...(part.template ?? '').matchAll(/\$\{([^}:]+)/g)].map((m) => m[1]!.trim());
  if (keys.length) return { unresolved_reason: `the ${what} is ${part.template}, and no file of the service sets ${keys.length === 1 ? keys[0] : `all of ${keys.join(', ')}`}`, unresolved_kind: 'configuration', unresolved_at: keys[0]! };
  return { unresolved_reason: `the ${what} is ${part.written}, which the source does not state`, unresolved_kind: 'expression', unresolved_at: part.written };
}

/** The first profile any of these parts took a value from. */
export function profileOf(...parts: readonly (Part | undefined)[]): { profile?: string } {
  const found = parts.find((p) => p?.profile)?.profile;
  return found ? { profile: found } : {};
}

export const EMPTY: Part = { text: '', literal: true, written: '', derived: false };

/**
 * The HTTP routes of a controller type: Spring `@Controller`/`@RestController` types (role CONTROLLER) and
 * JAX-RS resources (`@Path`). Mappings are read where Spring and JAX-RS read them: on the type or the nearest
 * supertype for the type-level path, and on the method or the nearest method it overrides (a generated API
 * interface's) for the method-level one. Every handler method the type has, inherited ones included, counts.
 */
export function routesOf(model: CodeModel, entry: TypeEntry, isController: boolean, constants: Constants = new Constants(model)): HttpRoute[] {
  const facts = entry.facts;
  if (facts.kind === 'interface' || facts.kind === 'annotation' || facts.modifiers.includes('abstract') || facts.anonymous) return [];
  const { project } = model.ancestors(entry);
  const typeLevel = firstMapping(project, constants);
  const jaxRs = typeLevel?.framework === 'jax_rs';
  if (!isController && !jaxRs) return [];
  const prefixes = typeLevel?.paths.length ? typeLevel.paths : [EMPTY];
  const out: HttpRoute[] = [];
  const seen = new Set<string>();
  for (const handler of handlerCandidates(project)) {
    const mapping = methodMapping(project, handler, constants);
    if (!mapping) continue;
    const paths = mapping.paths.length ? mapping.paths : [EMPTY];
    const methods = mapping.methods.length ? mapping.methods : typeLevel?.methods.length ? typeLevel.methods : ['ANY'];
    for (const prefix of prefixes) {
      for (const part of paths) {
        const path = joinPath(prefix.text, part.text);
        for (const method of methods) {
          const key = `${method} ${path}`;
          if (seen.has(key)) continue;
          seen.add(key);
          const written = prefix.derived || part.derived ? [prefix.written, part.written].filter((w) => w).join(' + ') : undefined;
          out.push({ controller: entry, handler, method, path, resolved: prefix.literal && part.literal, ...(written ? { written } : {}), framework: mapping.framework, ...profileOf(prefix, part) });
        }
      }
    }
  }
  return out;
}

/** Methods callable on instances of the first type: its own, then inherited ones no nearer type overrides. */
function handlerCandidates(project: readonly TypeEntry[]): MemberEntry[] {
  const out: MemberEntry[] = [];
  const signatures = new Set<string>();
  for (const t of project) {
    for (const m of t.members) {
      if (m.facts.kind !== 'method' || m.facts.modifiers.includes('static') || signatures.has(m.signature)) continue;
      signatures.add(m.signature);
      out.push(m);
    }
  }
  return out;
}

/** The mapping of a handler: on itself, else on the nearest method of the same signature up the chain. */
function methodMapping(project: readonly TypeEntry[], handler: MemberEntry, constants: Constants): Mapping | undefined {
  const own = mappingOf(handler.facts.annotations, 'method', (v) => constants.part(v, handler.owner));
  if (own) return own;
  for (const t of project) {
    if (t === handler.owner) continue;
    const same = t.members.find((m) => m.facts.kind === 'method' && m.signature === handler.signature);
    const found = same && mappingOf(same.facts.annotations, 'method', (v) => constants.part(v, t));
    if (found) return found;
  }
  return undefined;
}

function firstMapping(project: readonly TypeEntry[], constants: Constants): Mapping | undefined {
  for (const t of project) {
    const found = mappingOf(t.facts.annotations, 'type', (v) => constants.part(v, t));
    if (found) return found;
  }
  return undefined;
}

/** A Spring or JAX-RS mapping among these annotations, if there is one; `part` reads a path value. */
export function mappingOf(annotations: readonly AnnotationFacts[], level: 'type' | 'method', part: (v: AnnotationValue) => Part): Mapping | undefined {
  for (const a of annotations) {
    const verb = SPRING_VERBS[a.name];
    if (a.name === 'RequestMapping' || verb) {
      const methods = verb ? [verb] : (a.args['method'] ?? []).map((v) => (v.value ?? v.text).split('.').pop()!.toUpperCase()).filter((m) => EXPLICIT_METHODS.has(m));
      return { paths: [...(a.args['value'] ?? []), ...(a.args['path'] ?? [])].map(part), methods, framework: 'spring_mvc' };
    }
  }
  const path = annotations.find((a) => a.name === 'Path');
  const verbs = annotations.filter((a) => EXPLICIT_METHODS.has(a.name)).map((a) => a.name);
  if (level === 'type') return path ? { paths: (path.args['value'] ?? []).map(part), methods: [], framework: 'jax_rs' } : undefined;
  if (!verbs.length) return undefined;
  return { paths: path ? (path.args['value'] ?? []).map(part) : [], methods: verbs, framework: 'jax_rs' };
}

/**
 * String constants as the source states them: `static final String` fields initialised with literals and other
 * constants (concatenation included), found the way Java finds a name — qualified by a type (imports, same
 * package, nested), or bare: the type, its supertypes (interface constants included), enclosing types, static
 * imports.
 */
export class Constants {
  private readonly config: ReadonlyMap<string, string>;
  /** Each profile's configuration over the default one, by profile name in order. */
  private readonly profiles: [string, ReadonlyMap<string, string>][];

  constructor(
    private readonly model: CodeModel,
    config: Readonly<Record<string, string>> = {},
    profiles: Readonly<Record<string, Readonly<Record<string, string>>>> = {},
    /** The Spring Cloud Stream binder the service's build brings (the default binder when configuration names none). */
    readonly streamBinder?: 'kafka' | 'rabbit',
  ) {
    this.config = new Map(Object.entries(config));
    this.profiles = Object.keys(profiles)
      .sort()
      .map((name) => [name, new Map([...this.config, ...Object.entries(profiles[name]!)])]);
  }

  /**
   * `${…}` placeholders against the default profile; when it leaves one without a value, against each other
   * profile (`application-dev.yml`, `on-profile` documents) in name order, saying which profile(s) gave the value.
   */
  resolve(value: string): { text: string; profile?: string } | undefined {
    if (!value.includes('${')) return { text: value };
    const text = resolvePlaceholders(value, this.config);
    if (text !== undefined) return { text };
    const found: [string, string][] = [];
    for (const [name, config] of this.profiles) {
      const v = resolvePlaceholders(value, config);
      if (v !== undefined) found.push([name, v]);
    }
    if (!found.length) return undefined;
    const first = found[0]![1];
    return { text: first, profile: found.filter(([, v]) => v === first).map(([n]) => n).join(',') };
  }

  /**
   * A path value: its string when the source states it (a literal, constants, `${…}` placeholders from the
   * service's configuration or their defaults), else the expression as written, unresolved.
   */
  part(v: AnnotationValue, from: TypeEntry): Part {
    const parts: ConstPart[] | undefined = v.kind === 'string' && v.value !== undefined ? [{ s: v.value }] : v.kind === 'ref' ? [{ ref: v.text }] : v.parts;
    return this.partOf(parts, v.text, from);
  }

  /** The value of a constant expression's parts (`written`: the expression as written, kept when unresolved). */
  partOf(parts: readonly ConstPart[] | undefined, written: string, from: TypeEntry): Part {
    const value = parts && this.evaluate(parts, from, 0);
    const placeholders = value?.includes('${') ?? false;
    const resolved = value === undefined ? undefined : this.resolve(value);
    const derived = !(parts?.length === 1 && parts[0]!.s !== undefined) || placeholders;
    const template = placeholders ? { template: value! } : {};
    return resolved === undefined ? { text: value ?? written, literal: false, written, derived: true, ...template } : { text: resolved.text, literal: true, written, derived, ...(resolved.profile ? { profile: resolved.profile } : {}), ...template };
  }

  /** Whether the service's configuration (any profile) has a key under this prefix. */
  hasSettingsUnder(prefix: string): boolean {
    let found = this.prefixes.get(prefix);
    if (found === undefined) {
      found = [this.config, ...this.profiles.map(([, c]) => c)].some((config) => [...config.keys()].some((key) => key.startsWith(prefix)));
      this.prefixes.set(prefix, found);
    }
    return found;
  }

  /** hasSettingsUnder answers, asked once per type. */
  private readonly prefixes = new Map<string, boolean>();

  /** A configuration key's value in the service's default profile (placeholders resolved), if set. */
  setting(key: string): string | undefined {
    const raw = this.config.get(key);
    return raw === undefined ? undefined : (this.resolve(raw)?.text ?? raw);
  }

  evaluate(parts: readonly ConstPart[], from: TypeEntry, depth: number): string | undefined {
    let out = '';
    for (const p of parts) {
      const value = p.ref === undefined ? p.s : this.lookup(p.ref, from, depth);
      if (value === undefined) return undefined;
      out += value;
    }
    return out;
  }

  private lookup(ref: string, from: TypeEntry, depth: number): string | undefined {
    // A constant defined through itself (or too deep a chain) has no value.
    if (depth > 8) return undefined;
    const dot = ref.lastIndexOf('.');
    if (dot > 0) {
      const owner = this.model.resolveTypeName(ref.slice(0, dot), from)?.entry;
      return owner ? this.fieldValue(owner, ref.slice(dot + 1), depth) : undefined;
    }
    for (let t: TypeEntry | undefined = from; t; t = t.outer) {
      const value = this.fieldValue(t, ref, depth);
      if (value !== undefined) return value;
    }
    const imports = from.file.imports;
    for (const ownerQn of [own(imports.staticSingle, ref), ...imports.staticWildcard]) {
      const owner = ownerQn ? this.model.typeByQn(ownerQn, from.place) : undefined;
      const value = owner && this.fieldValue(owner, ref, depth);
      if (value !== undefined) return value;
    }
    return undefined;
  }

  private fieldValue(type: TypeEntry, name: string, depth: number): string | undefined {
    for (const t of this.model.ancestors(type).project) {
      const field = t.facts.fields.find((f) => f.name === name);
      if (field) return field.constant ? this.evaluate(field.constant, t, depth + 1) : undefined;
    }
    return undefined;
  }
}

/** `/a` + `b/` → `/a/b`: one slash between parts, a leading slash, no trailing one (`/` alone stays). */
export function joinPath(prefix: string, path: string): string {
  const segments = `${prefix}/${path}`.split('/').filter((s) => s.length > 0);
  return `/${segments.join('/')}`;
}


/** RE2's largest repetition count. */
const MAX_REPEAT = 1000;

/**
 * The regular expression (RE2/J syntax, matched whole) a concrete request path of this route matches: literal text
 * quoted, a variable any text within its segment, a variable with its own regex (`{id:[0-9]+}`, JAX-RS
 * `{id: \\d+}`) that regex. Adjacent variables collapse into one bounded class (`{a}{b}` → `[^/]{2,}`), so the
 * pattern offers a matcher no ambiguous splits. A variable regex RE2/J cannot evaluate counts as a plain variable.
 * Spring's wildcards are what Spring makes of them: `*` any text within a segment, `**` any number of segments, and
 * `{*rest}` the rest of the path, none included (`/health/{*path}` accepts `/health`).
 */
export function pathRegex(path: string): string {
  let out = '';
  let run = 0;
  const flushRun = () => {
    if (run) out += run === 1 ? '[^/]+' : `[^/]{${Math.min(run, MAX_REPEAT)},}`;
    run = 0;
  };
  for (const token of pathTokens(path)) {
    if (typeof token === 'string') {
      flushRun();
      out += wildcardRegex(token);
      continue;
    }
    if (token.inner.startsWith('*')) {
      flushRun();
      out = `${out.endsWith('/') ? out.slice(0, -1) : out}(?:/.*)?`;
      continue;
    }
    const regex = regexOf(token);
    if (regex !== undefined && 'accepts' in compilePattern(regex)) {
      flushRun();
      out += `(?:${regex})`;
    } else run++;
  }
  flushRun();
  return `^${out}$`;
}

/** Literal path text as a regex, Spring's `*` (within a segment) and `**` (across segments, `/**` none too) included. */
function wildcardRegex(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; ) {
    if (text.startsWith('/**', i) && (i + 3 === text.length || text[i + 3] === '/')) {
      out += '(?:/.*)?';
      i += 3;
    } else if (text.startsWith('**', i)) {
      out += '.*';
      i += 2;
    } else if (text[i] === '*') {
      out += '[^/]*';
      i++;
    } else {
      out += quotePattern(text[i]!);
      i++;
    }
  }
  return out;
}

/** The variable regexes of a route path that RE2/J cannot evaluate, each with why. */
export function unsupportedPathRegexes(path: string): { regex: string; error: string }[] {
  const out: { regex: string; error: string }[] = [];
  for (const token of pathTokens(path)) {
    const regex = typeof token === 'string' ? undefined : regexOf(token);
    if (regex === undefined) continue;
    const compiled = compilePattern(regex);
    if ('error' in compiled) out.push({ regex, error: compiled.error });
  }
  return out;
}

/** A variable's own regex, when it states one (`{id:[0-9]+}`, `{id: \\d+}`). */
function regexOf(variable: PathVariable): string | undefined {
  const colon = variable.inner.indexOf(':');
  const regex = colon < 0 ? '' : variable.inner.slice(colon + 1).trim();
  return regex || undefined;
}
