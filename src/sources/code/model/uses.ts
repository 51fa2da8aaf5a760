import { USE_VIAS, type UseVia } from '../../../graph/ontology/code.js';
import { BODY_USE_CODES, type AnnotationFacts, type AnnotationValue, type BodyUseCode, type BodyUses, type TypeRef } from '../parse/ir.js';
import type { CodeModel, MemberEntry, TypeEntry } from './model.js';

/**
 * Type usages: every project type a member names, and its type with them (rolled up), each with how it is named
 * (`via`, see the USES edge in the ontology). Names resolve as the rest of the model resolves types (imports, the
 * package, nested and inherited nested types); a name that is a library type, or no type, gives nothing.
 */

/** What one type and its members use: targets with a bit per via (`USE_VIAS` order), in the order first named. */
export interface TypeUses {
  type: Map<TypeEntry, number>;
  members: [MemberEntry, Map<TypeEntry, number>][];
}

const BIT = new Map<UseVia, number>(USE_VIAS.map((v, i) => [v, 1 << i]));

/** The vias of a bit set, in `USE_VIAS` order. */
export function viasOf(bits: number): UseVia[] {
  return USE_VIAS.filter((_, i) => bits & (1 << i));
}

/** AspectJ advice and pointcut annotations, and the elements that hold a pointcut expression. */
const POINTCUT_ANNOTATIONS: Record<string, readonly string[]> = {
  Pointcut: ['value'],
  Before: ['value', 'pointcut'],
  After: ['value', 'pointcut'],
  Around: ['value', 'pointcut'],
  AfterReturning: ['value', 'pointcut'],
  AfterThrowing: ['value', 'pointcut'],
  DeclareParents: ['value'],
};

/** A dotted-name segment that can name a type (`Foo`, `OrderDTO`; not `MAX` or `of`). */
const TYPE_LIKE = /^[A-Z][\w$]*[a-z][\w$]*$/;

export function usesOf(model: CodeModel, entry: TypeEntry): TypeUses {
  const typeLevel = new Map<TypeEntry, number>();
  const add = (into: Map<TypeEntry, number>, target: TypeEntry | undefined, via: UseVia): void => {
    if (!target || target === entry) return;
    into.set(target, (into.get(target) ?? 0) | BIT.get(via)!);
  };
  // Each name once per type, and kept no longer: the model's cache would hold an entry per type and name.
  // A project type, null for a library type, undefined for no type at all.
  const seen = new Map<string, TypeEntry | null | undefined>();
  const lookup = (name: string): TypeEntry | null | undefined => {
    if (seen.has(name)) return seen.get(name);
    const found = model.lookupTypeNameOnce(name, entry);
    const answer = found ? (found.entry ?? null) : undefined;
    seen.set(name, answer);
    return answer;
  };
  const resolve = (name: string): TypeEntry | undefined => (name ? (lookup(name) ?? undefined) : undefined);
  const addRef = (into: Map<TypeEntry, number>, ref: TypeRef | undefined, via: UseVia): void => {
    if (!ref) return;
    const pending: TypeRef[] = [ref];
    for (let r = pending.pop(), n = 0; r && n < 64; r = pending.pop(), n++) {
      add(into, resolve(r.name), via);
      if (r.args) pending.push(...r.args);
    }
  };
  const addAnnotations = (into: Map<TypeEntry, number>, annotations: readonly AnnotationFacts[]): void => {
    const pending = [...annotations];
    for (let a = pending.pop(), n = 0; a && n < 256; a = pending.pop(), n++) {
      add(into, resolve(a.written), 'annotation');
      const pointcut = POINTCUT_ANNOTATIONS[a.name];
      for (const [element, values] of Object.entries(a.args)) {
        for (const v of values) {
          if (v.kind === 'class' && v.value) add(into, resolve(v.value), 'annotation');
          else if (v.kind === 'annotation' && v.annotation) pending.push(v.annotation);
          else if (pointcut?.includes(element)) {
            const text = stringOf(v);
            if (text !== undefined) for (const name of pointcutTypes(text)) add(into, resolve(name), 'pointcut');
          }
        }
      }
    }
  };
  const addBody = (into: Map<TypeEntry, number>, uses: BodyUses | undefined): void => {
    if (!uses) return;
    for (const item of uses.split(' ')) {
      const code = item[0] as BodyUseCode;
      const name = item.slice(2);
      add(into, code === 's' ? resolveQualifier(name) : resolve(name), BODY_USE_CODES[code]);
    }
  };
  /** `Foo.Inner` of `Foo.Inner.X`, else a shorter prefix (`Color` of `Color.Red`): the longest that is a type. */
  const resolveQualifier = (chain: string): TypeEntry | undefined => {
    const parts = chain.split('.');
    for (let end = parts.length; end > 0; end--) {
      if (!TYPE_LIKE.test(parts[end - 1]!)) continue;
      const found = lookup(parts.slice(0, end).join('.'));
      if (found !== undefined) return found ?? undefined;
    }
    return undefined;
  };

  const facts = entry.facts;
  for (const f of facts.fields) {
    addRef(typeLevel, f.type, 'field');
    addAnnotations(typeLevel, f.annotations);
  }
  for (const s of facts.supertypes) for (const a of s.type.args ?? []) addRef(typeLevel, a, 'type_argument');
  addAnnotations(typeLevel, facts.annotations);
  addBody(typeLevel, facts.bodyUses);

  const kotlin = entry.file.language === 'kotlin';
  const members: [MemberEntry, Map<TypeEntry, number>][] = [];
  for (const member of entry.members) {
    const m = member.facts;
    const own = new Map<TypeEntry, number>();
    for (const p of m.params) {
      addRef(own, p.type, 'parameter');
      addAnnotations(own, p.annotations);
    }
    addRef(own, m.returnType, 'return');
    addAnnotations(own, m.annotations);
    for (const l of m.locals) addRef(own, l.type, 'local');
    for (const c of m.calls) {
      if (c.type && (c.kind === 'new' || c.kind === 'method_ref')) addRef(own, c.type, 'new');
      // Kotlin creates with a bare call of the type's name (`Foo(…)`).
      else if (kotlin && c.kind === 'call' && !c.receiver && TYPE_LIKE.test(c.name)) add(own, resolve(c.name), 'new');
    }
    addBody(own, m.bodyUses);
    if (!own.size) continue;
    members.push([member, own]);
    for (const [target, bits] of own) typeLevel.set(target, (typeLevel.get(target) ?? 0) | bits);
  }
  return { type: typeLevel, members };
}

function stringOf(v: AnnotationValue): string | undefined {
  if (v.kind === 'string') return v.value;
  if (v.kind === 'expr' && v.parts?.every((p) => p.s !== undefined)) return v.parts.map((p) => p.s).join('');
  return undefined;
}

const POINTCUT_TOKEN = /[\w$*.+]/;

/**
 * The types an AspectJ pointcut expression names exactly: a qualified or simple type name, with `+` (subtypes)
 * dropped, wherever it is written (within, this, target, args, @annotation, @within, return and parameter types),
 * and the declaring type of a method pattern or named pointcut (`com.x.ProductService.*(..)`,
 * `com.x.Arch.inService()`). A pattern with a wildcard in the type (`com.x..*`, `com.x.*Service`, `*..Foo`) names no
 * type: it matches types without naming one. Linear in the expression's length.
 */
export function pointcutTypes(expression: string): string[] {
  const out: string[] = [];
  const text = expression.length > 10_000 ? expression.slice(0, 10_000) : expression;
  for (let i = 0; i < text.length; ) {
    if (!POINTCUT_TOKEN.test(text[i]!)) {
      i++;
      continue;
    }
    let j = i;
    while (j < text.length && POINTCUT_TOKEN.test(text[j]!)) j++;
    let token = text.slice(i, j);
    let k = j;
    while (k < text.length && (text[k] === ' ' || text[k] === '\t' || text[k] === '\n')) k++;
    const called = text[k] === '(';
    i = j;
    token = token.replace(/\++$/, '');
    if (token.includes('..')) continue;
    if (called) {
      // A designator (`execution(`), a method pattern or a named pointcut: the type is what precedes the member.
      const dot = token.lastIndexOf('.');
      if (dot <= 0) continue;
      token = token.slice(0, dot);
    }
    if (token.includes('*') || token.startsWith('.') || token.endsWith('.')) continue;
    if (TYPE_LIKE.test(token.slice(token.lastIndexOf('.') + 1))) out.push(token);
  }
  return out;
}

/** Each via's edge attributes, one shared (frozen) object per via: a large estate has hundreds of thousands of USES edges. */
export const USE_ATTRS = Object.fromEntries(USE_VIAS.map((v) => [v, Object.freeze({ via: v })])) as Readonly<Record<UseVia, Readonly<{ via: UseVia }>>>;
