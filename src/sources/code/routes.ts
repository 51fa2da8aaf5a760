import type { AnnotationFacts, AnnotationValue } from './ir.js';
import type { CodeModel, MemberEntry, TypeEntry } from './model.js';

/** An HTTP route a controller exposes, with the method that handles it. */
export interface HttpRoute {
  controller: TypeEntry;
  handler: MemberEntry;
  method: string;
  path: string;
  /** False when a path part is not a literal (a constant or placeholder, kept as written). */
  resolved: boolean;
  framework: 'spring_mvc' | 'jax_rs';
}

const SPRING_VERBS: Record<string, string> = { GetMapping: 'GET', PostMapping: 'POST', PutMapping: 'PUT', DeleteMapping: 'DELETE', PatchMapping: 'PATCH' };
const JAX_RS_VERBS = new Set(['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS']);
const HTTP_METHODS = new Set(['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS']);

interface Mapping {
  paths: Part[];
  methods: string[];
  framework: HttpRoute['framework'];
}

/** A path as the source gives it: a literal, or an expression kept as written. */
interface Part {
  text: string;
  literal: boolean;
}

/**
 * The HTTP routes of a controller type: Spring `@Controller`/`@RestController` types (role CONTROLLER) and
 * JAX-RS resources (`@Path`). Mappings are read where Spring and JAX-RS read them: on the type or the nearest
 * supertype for the type-level path, and on the method or the nearest method it overrides (a generated API
 * interface's) for the method-level one. Every handler method the type has, inherited ones included, counts.
 */
export function routesOf(model: CodeModel, entry: TypeEntry, isController: boolean): HttpRoute[] {
  const facts = entry.facts;
  if (facts.kind === 'interface' || facts.kind === 'annotation' || facts.modifiers.includes('abstract') || facts.anonymous) return [];
  const { project } = model.ancestors(entry);
  const typeLevel = firstMapping(project.map((t) => t.facts.annotations));
  const jaxRs = typeLevel?.framework === 'jax_rs';
  if (!isController && !jaxRs) return [];
  const prefixes = typeLevel?.paths.length ? typeLevel.paths : [{ text: '', literal: true }];
  const out: HttpRoute[] = [];
  const seen = new Set<string>();
  for (const handler of handlerCandidates(project)) {
    const mapping = methodMapping(project, handler);
    if (!mapping) continue;
    const paths = mapping.paths.length ? mapping.paths : [{ text: '', literal: true }];
    const methods = mapping.methods.length ? mapping.methods : typeLevel?.methods.length ? typeLevel.methods : ['ANY'];
    for (const prefix of prefixes) {
      for (const part of paths) {
        const path = joinPath(prefix.text, part.text);
        for (const method of methods) {
          const key = `${method} ${path}`;
          if (seen.has(key)) continue;
          seen.add(key);
          out.push({ controller: entry, handler, method, path, resolved: prefix.literal && part.literal, framework: mapping.framework });
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
function methodMapping(project: readonly TypeEntry[], handler: MemberEntry): Mapping | undefined {
  const own = mappingOf(handler.facts.annotations, 'method');
  if (own) return own;
  for (const t of project) {
    if (t === handler.owner) continue;
    const same = t.members.find((m) => m.facts.kind === 'method' && m.signature === handler.signature);
    const found = same && mappingOf(same.facts.annotations, 'method');
    if (found) return found;
  }
  return undefined;
}

function firstMapping(annotationLists: readonly (readonly AnnotationFacts[])[]): Mapping | undefined {
  for (const list of annotationLists) {
    const found = mappingOf(list, 'type');
    if (found) return found;
  }
  return undefined;
}

/** A Spring or JAX-RS mapping among these annotations, if there is one. */
function mappingOf(annotations: readonly AnnotationFacts[], level: 'type' | 'method'): Mapping | undefined {
  for (const a of annotations) {
    const verb = SPRING_VERBS[a.name];
    if (a.name === 'RequestMapping' || verb) {
      const methods = verb ? [verb] : (a.args['method'] ?? []).map((v) => (v.value ?? v.text).split('.').pop()!.toUpperCase()).filter((m) => HTTP_METHODS.has(m));
      return { paths: partsOf([...(a.args['value'] ?? []), ...(a.args['path'] ?? [])]), methods, framework: 'spring_mvc' };
    }
  }
  const path = annotations.find((a) => a.name === 'Path');
  const verbs = annotations.filter((a) => JAX_RS_VERBS.has(a.name)).map((a) => a.name);
  if (level === 'type') return path ? { paths: partsOf(path.args['value'] ?? []), methods: [], framework: 'jax_rs' } : undefined;
  if (!verbs.length) return undefined;
  return { paths: path ? partsOf(path.args['value'] ?? []) : [], methods: verbs, framework: 'jax_rs' };
}

function partsOf(values: readonly AnnotationValue[]): Part[] {
  return values.map((v) => (v.kind === 'string' && v.value !== undefined ? { text: v.value, literal: true } : { text: v.text, literal: false }));
}

/** `/a` + `b/` → `/a/b`: one slash between parts, a leading slash, no trailing one (`/` alone stays). */
export function joinPath(prefix: string, path: string): string {
  const segments = `${prefix}/${path}`.split('/').filter((s) => s.length > 0);
  return `/${segments.join('/')}`;
}

/** `/orders/{id}` → `/orders/{}`: variables without their names or patterns, for matching. */
export function pathPattern(path: string): string {
  return path.replace(/\{[^}]*\}/g, '{}');
}

/** A regular expression a concrete request path of this route matches. */
export function pathRegex(path: string): string {
  const parts = pathPattern(path).split('{}').map((p) => p.replace(/[.*+?^$()|[\]\\]/g, '\\$&'));
  return `^${parts.join('[^/]+')}$`;
}
