import type { AnnotationFacts, TypeRef } from '../parse/ir.js';
import { type CodeModel, type MemberEntry, type TypeEntry, type TypeTarget, typeText } from './model.js';
import type { TypeTraits } from './roles.js';

/** Traits by type: a classifier, or any map of them. */
export interface TraitsOf {
  get(entry: TypeEntry): TypeTraits | undefined;
}

export type InjectMechanism = 'field' | 'constructor' | 'setter' | 'lombok';
export type InjectStrategy = 'declared_type' | 'unique_bean' | 'qualifier' | 'bean_name' | 'primary' | 'collection' | 'ambiguous';

export interface Injection {
  from: TypeEntry;
  /** The declared type, a bean class, or a `@Bean` method that produces the bean. */
  to: TypeTarget | { member: MemberEntry; entry?: undefined; external?: undefined };
  mechanism: InjectMechanism;
  member: string;
  declaredType: string;
  qualifier?: string;
  strategy: InjectStrategy;
  confidence: number;
}

const INJECT_ANNOTATIONS = new Set(['Autowired', 'Inject', 'Resource', 'Value']);
/** Wrappers whose element type is what gets injected. */
const SINGLE_WRAPPERS = new Set(['Optional', 'Provider', 'ObjectProvider', 'ObjectFactory', 'Lazy']);
const COLLECTION_WRAPPERS = new Set(['List', 'Set', 'Collection', 'Iterable', 'SortedSet', 'MutableList', 'MutableSet', 'Map', 'MutableMap']);

interface InjectionPoint {
  mechanism: InjectMechanism;
  member: string;
  type: TypeRef;
  annotations: AnnotationFacts[];
}

/** Dependency injection edges of every bean (of `types`, all by default): fields, constructors (explicit or implicit), setters, Lombok. */
export function resolveInjections(model: CodeModel, traits: TraitsOf, types: readonly TypeEntry[] = model.types): Injection[] {
  const out: Injection[] = [];
  for (const entry of types) {
    if (entry.facts.kind === 'interface' || entry.facts.kind === 'annotation') continue;
    const bean = traits.get(entry)?.bean ?? false;
    for (const point of injectionPoints(entry, bean)) out.push(...resolvePoint(model, traits, entry, point));
  }
  return out;
}

function injectionPoints(entry: TypeEntry, bean: boolean): InjectionPoint[] {
  const points: InjectionPoint[] = [];
  const facts = entry.facts;
  for (const f of facts.fields) {
    if (f.type && f.annotations.some((a) => INJECT_ANNOTATIONS.has(a.name) && a.name !== 'Value')) points.push({ mechanism: 'field', member: f.name, type: f.type, annotations: f.annotations });
  }
  for (const m of facts.members) {
    if (m.kind === 'method' && m.params.length === 1 && m.annotations.some((a) => a.name === 'Autowired' || a.name === 'Inject')) {
      const p = m.params[0]!;
      points.push({ mechanism: 'setter', member: m.name, type: p.type, annotations: [...m.annotations.filter((a) => a.name === 'Qualifier'), ...p.annotations] });
    }
  }
  if (!bean) return points;
  const ctors = facts.members.filter((m) => m.kind === 'constructor' && m.synthetic !== 'default_constructor');
  const chosen = ctors.find((c) => c.annotations.some((a) => a.name === 'Autowired' || a.name === 'Inject')) ?? (ctors.length === 1 ? ctors[0] : undefined);
  if (chosen) {
    for (const p of chosen.params) if (!p.annotations.some((a) => a.name === 'Value')) points.push({ mechanism: 'constructor', member: p.name, type: p.type, annotations: p.annotations });
  } else if (!ctors.length) {
    const required = facts.annotations.some((a) => a.name === 'RequiredArgsConstructor');
    const all = facts.annotations.some((a) => a.name === 'AllArgsConstructor');
    if (required || all) {
      for (const f of facts.fields) {
        if (!f.type || f.modifiers.includes('static')) continue;
        if (required && !(f.modifiers.includes('final') && !f.init) && !f.annotations.some((a) => a.name === 'NonNull')) continue;
        points.push({ mechanism: 'lombok', member: f.name, type: f.type, annotations: f.annotations });
      }
    }
  }
  return points;
}

/** A bean that could fill an injection point: a bean class or a `@Bean` method. */
interface Candidate {
  to: Injection['to'];
  names: readonly string[];
  primary: boolean;
}

function resolvePoint(model: CodeModel, traits: TraitsOf, entry: TypeEntry, point: InjectionPoint): Injection[] {
  const { element, collection } = unwrap(point.type);
  const declared = model.resolveType(element, entry);
  const qualifier = qualifierOf(point.annotations);
  const base = { from: entry, mechanism: point.mechanism, member: point.member, declaredType: typeText(point.type), ...(qualifier ? { qualifier } : {}) };
  const out: Injection[] = [{ ...base, to: declared, strategy: 'declared_type', confidence: 1 }];
  const target = declared.entry;
  const fits = target ? new Set([target, ...model.descendants(target)]) : undefined;
  const methods: Candidate[] = beanMethods(model)
    .filter((b) => (fits && b.returns.entry ? fits.has(b.returns.entry) : !target && b.returns.external === declared.external))
    .map((b) => ({ to: { member: b.method }, names: b.names, primary: b.primary }));
  let classes: Candidate[] = [];
  if (target && (collection || target.facts.kind === 'interface' || target.facts.modifiers.includes('abstract'))) {
    const implementations = [...fits!].filter((t) => t.facts.kind !== 'interface' && !t.facts.modifiers.includes('abstract') && !t.facts.anonymous && !t.facts.local);
    const beans = implementations.filter((t) => traits.get(t)?.bean);
    // Without any bean (class or method), every implementation is a guess worth showing.
    const chosen = beans.length || methods.length ? beans : implementations;
    classes = chosen.map((t) => ({ to: { entry: t }, names: traits.get(t)?.beanNames ?? [], primary: traits.get(t)?.primary ?? false }));
  }
  const candidates = [...classes, ...methods];
  const toBeans = (list: Candidate[], strategy: InjectStrategy, confidence: number): Injection[] => list.filter((c) => c.to.entry !== target || !target).map((c) => ({ ...base, to: c.to, strategy, confidence }));
  if (!candidates.length) return out;
  if (collection) return [...out, ...toBeans(candidates, 'collection', 0.9)];
  if (qualifier) {
    const named = candidates.filter((c) => c.names.includes(qualifier));
    if (named.length === 1) return [...out, ...toBeans(named, 'qualifier', 0.95)];
  }
  if (candidates.length === 1) return [...out, ...toBeans(candidates, 'unique_bean', 0.95)];
  const primary = candidates.filter((c) => c.primary);
  if (primary.length === 1) return [...out, ...toBeans(primary, 'primary', 0.9)];
  const byName = candidates.filter((c) => c.names.includes(point.member));
  if (byName.length === 1) return [...out, ...toBeans(byName, 'bean_name', 0.8)];
  return [...out, ...toBeans(candidates, 'ambiguous', 0.4)];
}

interface BeanMethod {
  method: MemberEntry;
  returns: TypeTarget;
  names: string[];
  primary: boolean;
}

const BEAN_METHODS = new WeakMap<CodeModel, BeanMethod[]>();

/** The project's `@Bean` methods, with what they return and the names and precedence they give their bean. */
function beanMethods(model: CodeModel): BeanMethod[] {
  let found = BEAN_METHODS.get(model);
  if (found) return found;
  found = [];
  for (const t of model.types) {
    for (const m of t.members) {
      const bean = m.facts.annotations.find((a) => a.name === 'Bean');
      if (!bean || m.facts.kind !== 'method' || !m.facts.returnType) continue;
      const named = [...(bean.args['value'] ?? []), ...(bean.args['name'] ?? [])].map((v) => v.value).filter((v): v is string => !!v);
      const qualifier = qualifierOf(m.facts.annotations);
      found.push({
        method: m,
        returns: model.resolveType(m.facts.returnType, t),
        names: [...(named.length ? named : [m.facts.name]), ...(qualifier ? [qualifier] : [])],
        primary: m.facts.annotations.some((a) => a.name === 'Primary'),
      });
    }
  }
  BEAN_METHODS.set(model, found);
  return found;
}

function unwrap(type: TypeRef): { element: TypeRef; collection: boolean } {
  const head = type.name.slice(type.name.lastIndexOf('.') + 1);
  const args = type.args ?? [];
  if (SINGLE_WRAPPERS.has(head) && args.length === 1) return unwrap(args[0]!);
  if (COLLECTION_WRAPPERS.has(head) && args.length >= 1) return { element: args[args.length - 1]!, collection: true };
  if ((type.array ?? 0) > 0) return { element: { name: type.name }, collection: true };
  return { element: type, collection: false };
}

function qualifierOf(annotations: AnnotationFacts[]): string | undefined {
  for (const a of annotations) {
    if (a.name === 'Qualifier' || a.name === 'Named') {
      const v = a.args['value']?.[0]?.value;
      if (v) return v;
    }
    if (a.name === 'Resource') {
      const v = a.args['name']?.[0]?.value;
      if (v) return v;
    }
  }
  return undefined;
}
