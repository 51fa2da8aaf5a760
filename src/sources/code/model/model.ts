import { own } from './own.js';
import type { FileFacts, MemberFacts, TypeFacts, TypeRef } from '../parse/ir.js';

/** Where a file sits in the estate. */
export interface Placement {
  service: string;
  module: string;
}

export interface TypeEntry {
  facts: TypeFacts;
  file: FileFacts;
  place: Placement;
  qn: string;
  members: MemberEntry[];
  supers: SuperLink[];
  /** Direct project subtypes (filled once every type's supertypes are resolved). */
  subtypes: TypeEntry[];
  outer?: TypeEntry;
}

export interface MemberEntry {
  owner: TypeEntry;
  facts: MemberFacts;
  /** `name(SimpleT1,SimpleT2)`. */
  signature: string;
  qn: string;
}

/** A type's members and fields by name (see `CodeModel.methodsNamed`). */
interface MemberIndex {
  methods: Map<string, MemberEntry[]>;
  constructors: MemberEntry[];
  fields: Map<string, import('../parse/ir.js').FieldFacts>;
}

/** A type the code names: one of the project's, or an external (library) one by its best-guess qualified name. */
export type TypeTarget = { entry: TypeEntry; external?: undefined } | { external: string; entry?: undefined };

export interface SuperLink {
  target: TypeTarget;
  relation: 'extends' | 'implements';
}

const PRIMITIVES = new Set(['int', 'long', 'short', 'byte', 'char', 'boolean', 'float', 'double', 'void']);
/** Library collections of elements (not maps), by simple name: what Spring binds a configured list to, Java and Kotlin. */
export const COLLECTION_TYPES: ReadonlySet<string> = new Set(['List', 'Set', 'Collection', 'Iterable', 'SortedSet', 'MutableList', 'MutableSet', 'MutableCollection', 'ArrayList', 'LinkedList', 'HashSet', 'LinkedHashSet', 'TreeSet']);

const JAVA_LANG = new Set(
  'String Object Integer Long Double Float Short Byte Character Boolean Number Math StrictMath System Thread Runnable Exception RuntimeException Error Throwable IllegalArgumentException IllegalStateException NullPointerException UnsupportedOperationException IndexOutOfBoundsException ClassCastException ArithmeticException NumberFormatException InterruptedException CloneNotSupportedException ReflectiveOperationException ClassNotFoundException SecurityException Iterable Comparable CharSequence StringBuilder StringBuffer Class Enum Record Override Deprecated FunctionalInterface SuppressWarnings SafeVarargs Void AutoCloseable Cloneable Process ProcessBuilder Runtime ThreadLocal InheritableThreadLocal'.split(
    ' ',
  ),
);

const KOTLIN_DEFAULTS: Record<string, string> = {
  Any: 'kotlin.Any',
  Unit: 'kotlin.Unit',
  Nothing: 'kotlin.Nothing',
  String: 'kotlin.String',
  Int: 'kotlin.Int',
  Long: 'kotlin.Long',
  Short: 'kotlin.Short',
  Byte: 'kotlin.Byte',
  Double: 'kotlin.Double',
  Float: 'kotlin.Float',
  Boolean: 'kotlin.Boolean',
  Char: 'kotlin.Char',
  Array: 'kotlin.Array',
  Pair: 'kotlin.Pair',
  Triple: 'kotlin.Triple',
  Throwable: 'kotlin.Throwable',
  Exception: 'kotlin.Exception',
  RuntimeException: 'kotlin.RuntimeException',
  IllegalArgumentException: 'kotlin.IllegalArgumentException',
  IllegalStateException: 'kotlin.IllegalStateException',
  Comparable: 'kotlin.Comparable',
  Lazy: 'kotlin.Lazy',
  List: 'kotlin.collections.List',
  MutableList: 'kotlin.collections.MutableList',
  Set: 'kotlin.collections.Set',
  MutableSet: 'kotlin.collections.MutableSet',
  Map: 'kotlin.collections.Map',
  MutableMap: 'kotlin.collections.MutableMap',
  Collection: 'kotlin.collections.Collection',
  Iterable: 'kotlin.collections.Iterable',
  Sequence: 'kotlin.sequences.Sequence',
  Regex: 'kotlin.text.Regex',
  StringBuilder: 'kotlin.text.StringBuilder',
};

/** A simple type name for signatures: `java.util.List<Foo>` → `List`, `Map.Entry` stays, arrays keep `[]`. */
export function simpleTypeName(ref: TypeRef): string {
  const parts = ref.name.split('.');
  let i = 0;
  while (i < parts.length - 1 && /^[a-z_]/.test(parts[i]!)) i++;
  return parts.slice(i).join('.') + '[]'.repeat(ref.array ?? 0);
}

export function signatureOf(member: MemberFacts): string {
  return `${member.name}(${member.params.map((p) => simpleTypeName(p.type)).join(',')})`;
}

/** `java.util.List<com.x.Foo>` as written, for display. */
export function typeText(ref: TypeRef): string {
  const args = ref.args?.length ? `<${ref.args.map(typeText).join(', ')}>` : '';
  return `${ref.name}${args}${'[]'.repeat(ref.array ?? 0)}${ref.nullable ? '?' : ''}`;
}

export function isPrimitive(name: string): boolean {
  return PRIMITIVES.has(name);
}

/**
 * Every project type and member of a build, and the name resolution over them. Built from the facts of all
 * files; pure and deterministic (files and types are visited in path and source order).
 */
export class CodeModel {
  readonly types: TypeEntry[] = [];
  private readonly byQn = new Map<string, TypeEntry[]>();
  private readonly packages = new Set<string>();
  private readonly facadesByPackage = new Map<string, TypeEntry[]>();
  private readonly extensionsByName = new Map<string, MemberEntry[]>();
  /** Per type, by name: one small map per type holds far less than a key string per (file, type, name). */
  private readonly resolveCache = new Map<TypeEntry, Map<string, TypeTarget | null>>();
  /** Supertypes never change once the model is built, so each type's are walked once (calls ask for them per call site). */
  private readonly ancestorCache = new Map<TypeEntry, { project: TypeEntry[]; external: string[] }>();
  private readonly companions = new Map<TypeEntry, TypeEntry>();
  private readonly memberIndexes = new Map<TypeEntry, MemberIndex>();

  constructor(
    readonly files: readonly FileFacts[],
    placeOf: (path: string) => Placement,
  ) {
    for (const file of files) {
      const place = placeOf(file.path);
      this.packages.add(file.package);
      const local = new Map<string, TypeEntry>();
      for (const facts of file.types) {
        const entry: TypeEntry = { facts, file, place, qn: facts.qualifiedName, members: [], supers: [], subtypes: [] };
        if (facts.outer) entry.outer = local.get(facts.outer);
        local.set(facts.qualifiedName, entry);
        const seen = new Set<string>();
        for (const m of [...facts.members, ...lombokMembers(facts)]) {
          const signature = signatureOf(m);
          if (seen.has(signature)) continue;
          seen.add(signature);
          const member: MemberEntry = { owner: entry, facts: m, signature, qn: `${entry.qn}#${signature}` };
          entry.members.push(member);
          if (m.extensionReceiver) push(this.extensionsByName, m.name, member);
        }
        this.types.push(entry);
        push(this.byQn, entry.qn, entry);
        if (facts.flavor === 'facade') push(this.facadesByPackage, file.package, entry);
      }
    }
    for (const entry of this.types) {
      entry.supers = entry.facts.supertypes.map((s) => {
        const target = this.resolveType(s.type, entry);
        return { target, relation: this.relationOf(entry, s.relation, target) };
      });
    }
    for (const entry of this.types) {
      for (const s of entry.supers) if (s.target.entry && s.target.entry !== entry) s.target.entry.subtypes.push(entry);
      if (entry.outer && entry.facts.flavor === 'companion' && !this.companions.has(entry.outer)) this.companions.set(entry.outer, entry);
    }
  }

  private relationOf(entry: TypeEntry, written: 'extends' | 'implements' | 'unknown', target: TypeTarget): 'extends' | 'implements' {
    if (written !== 'unknown') return written;
    if (entry.facts.kind === 'interface') return 'extends';
    if (target.entry) return target.entry.facts.kind === 'interface' ? 'implements' : 'extends';
    // A Kotlin supertype written without a constructor call is an interface; so is the usual anonymous `new Runnable() {}`.
    return entry.file.language === 'kotlin' || KNOWN_EXTERNAL_INTERFACES.has(target.external.slice(target.external.lastIndexOf('.') + 1)) ? 'implements' : 'extends';
  }

  /** The project type with this qualified name, preferring one in the same module, then the same service. */
  typeByQn(qn: string, from?: Placement): TypeEntry | undefined {
    const all = this.byQn.get(qn);
    if (!all) return undefined;
    if (all.length === 1 || !from) return all[0];
    return all.find((e) => e.place.service === from.service && e.place.module === from.module) ?? all.find((e) => e.place.service === from.service) ?? all[0];
  }

  isPackage(name: string): boolean {
    return this.packages.has(name);
  }

  facadesIn(pkg: string): readonly TypeEntry[] {
    return this.facadesByPackage.get(pkg) ?? [];
  }

  extensions(name: string): readonly MemberEntry[] {
    return this.extensionsByName.get(name) ?? [];
  }

  /** Resolves a type as written inside `from` (its file's imports, package, enclosing types), Java rules first. */
  resolveType(ref: TypeRef, from: TypeEntry): TypeTarget {
    return this.resolveTypeName(ref.name, from) ?? { external: this.externalGuess(ref.name, from.file) };
  }

  /** Like resolveType, but undefined when the name is not a type the file can see (a variable, a package…). */
  resolveTypeName(name: string, from: TypeEntry): TypeTarget | undefined {
    let cache = this.resolveCache.get(from);
    if (!cache) this.resolveCache.set(from, (cache = new Map()));
    const cached = cache.get(name);
    if (cached !== undefined) return cached ?? undefined;
    const found = this.lookupTypeName(name, from);
    cache.set(name, found ?? null);
    return found;
  }

  /**
   * Like resolveTypeName, without keeping the answer: for passes that resolve every name once (type usages), where a
   * cache entry per type and name would only grow the model (tens of MB on a 10,000-file estate).
   */
  lookupTypeNameOnce(name: string, from: TypeEntry): TypeTarget | undefined {
    const cached = this.resolveCache.get(from)?.get(name);
    return cached !== undefined ? (cached ?? undefined) : this.lookupTypeName(name, from);
  }

  private lookupTypeName(name: string, from: TypeEntry): TypeTarget | undefined {
    if (!name || PRIMITIVES.has(name)) return undefined;
    const file = from.file;
    const dot = name.indexOf('.');
    if (dot > 0) {
      const exact = this.typeByQn(name, from.place);
      if (exact) return { entry: exact };
      const head = this.lookupTypeName(name.slice(0, dot), from);
      if (head?.entry) {
        const nested = this.typeByQn(`${head.entry.qn}${name.slice(dot)}`, from.place);
        if (nested) return { entry: nested };
      }
      if (head?.external) return { external: `${head.external}${name.slice(dot)}` };
      // A dotted name that starts with a package is a fully qualified external name.
      return /^[a-z]/.test(name) ? { external: name } : undefined;
    }
    for (let t: TypeEntry | undefined = from; t; t = t.outer) {
      if (t.facts.name === name && !t.facts.anonymous) return { entry: t };
      const nested = this.typeByQn(`${t.qn}.${name}`, from.place);
      if (nested) return { entry: nested };
      const inherited = this.inheritedNested(t, name, new Set());
      if (inherited) return { entry: inherited };
    }
    const imported = own(file.imports.single, name);
    if (imported) {
      const entry = this.typeByQn(imported, from.place);
      return entry ? { entry } : { external: imported };
    }
    const samePackage = this.typeByQn(file.package ? `${file.package}.${name}` : name, from.place);
    if (samePackage) return { entry: samePackage };
    for (const w of file.imports.wildcard) {
      const entry = this.typeByQn(`${w}.${name}`, from.place);
      if (entry) return { entry };
    }
    if (file.language === 'kotlin' && own(KOTLIN_DEFAULTS, name)) return { external: own(KOTLIN_DEFAULTS, name)! };
    if (JAVA_LANG.has(name)) return { external: `java.lang.${name}` };
    return undefined;
  }

  private inheritedNested(t: TypeEntry, name: string, seen: Set<TypeEntry>): TypeEntry | undefined {
    for (const s of t.supers) {
      const sup = s.target.entry;
      if (!sup || seen.has(sup)) continue;
      seen.add(sup);
      const nested = this.typeByQn(`${sup.qn}.${name}`, sup.place) ?? this.inheritedNested(sup, name, seen);
      if (nested) return nested;
    }
    return undefined;
  }

  /** Best guess at the qualified name of a type outside the project: one external wildcard import, else the bare name. */
  externalGuess(name: string, file: FileFacts): string {
    if (name.includes('.') && /^[a-z]/.test(name)) return name;
    const head = name.split('.')[0]!;
    const imported = own(file.imports.single, head);
    if (imported) return imported + name.slice(head.length);
    const externalWildcards = file.imports.wildcard.filter((w) => !this.packages.has(w));
    if (externalWildcards.length === 1) return `${externalWildcards[0]}.${name}`;
    return name;
  }

  /** Supertypes breadth-first (the type itself first), project ones only; external ones are reported separately. */
  ancestors(entry: TypeEntry): { project: TypeEntry[]; external: string[] } {
    let found = this.ancestorCache.get(entry);
    if (!found) this.ancestorCache.set(entry, (found = this.walkAncestors(entry)));
    return found;
  }

  /** The Kotlin companion object of a type, if it has one. */
  companionOf(entry: TypeEntry): TypeEntry | undefined {
    return this.companions.get(entry);
  }

  private walkAncestors(entry: TypeEntry): { project: TypeEntry[]; external: string[] } {
    const project: TypeEntry[] = [];
    const external: string[] = [];
    const seen = new Set<TypeEntry>([entry]);
    const queue: TypeEntry[] = [entry];
    while (queue.length) {
      const t = queue.shift()!;
      project.push(t);
      for (const s of t.supers) {
        if (s.target.entry) {
          if (!seen.has(s.target.entry)) {
            seen.add(s.target.entry);
            queue.push(s.target.entry);
          }
        } else if (!external.includes(s.target.external)) external.push(s.target.external);
      }
    }
    return { project, external };
  }

  /** Every project type that extends or implements `entry`, transitively. */
  descendants(entry: TypeEntry): TypeEntry[] {
    const out: TypeEntry[] = [];
    const seen = new Set<TypeEntry>([entry]);
    const queue = [...entry.subtypes];
    while (queue.length) {
      const t = queue.shift()!;
      if (seen.has(t)) continue;
      seen.add(t);
      out.push(t);
      queue.push(...t.subtypes);
    }
    return out;
  }

  /**
   * Methods named `name` callable on `entry` with `argCount` arguments (-1: any, for method references), from
   * the nearest type up the supertype chain that declares one. Exact arity first, else any arity.
   */
  findMethods(entry: TypeEntry, name: string, argCount: number): { members: MemberEntry[]; exact: boolean } {
    const { project } = this.ancestors(entry);
    let loose: MemberEntry[] = [];
    for (const t of project) {
      const named = this.methodsNamed(t, name);
      if (!named.length) continue;
      const exact = argCount < 0 ? [...named] : named.filter((m) => arityAccepts(m.facts, argCount));
      if (exact.length) return { members: exact, exact: argCount >= 0 };
      if (!loose.length) loose = [...named];
    }
    return { members: loose, exact: false };
  }

  /**
   * The methods a type declares named `name`, in declaration order. Indexed per type on first use: call sites ask
   * per call, and scanning every member each time is quadratic in a type with thousands of methods.
   */
  methodsNamed(entry: TypeEntry, name: string): readonly MemberEntry[] {
    return this.memberIndex(entry).methods.get(name) ?? [];
  }

  private memberIndex(entry: TypeEntry): MemberIndex {
    let index = this.memberIndexes.get(entry);
    if (!index) {
      index = { methods: new Map(), constructors: [], fields: new Map() };
      for (const m of entry.members) {
        if (m.facts.kind === 'constructor') index.constructors.push(m);
        else push(index.methods, m.facts.name, m);
      }
      // The first field of a name, as `fields.find` would give.
      for (const f of entry.facts.fields) if (!index.fields.has(f.name)) index.fields.set(f.name, f);
      this.memberIndexes.set(entry, index);
    }
    return index;
  }

  constructors(entry: TypeEntry, argCount: number): MemberEntry[] {
    const all = this.memberIndex(entry).constructors;
    if (argCount < 0) return [...all];
    const exact = all.filter((m) => arityAccepts(m.facts, argCount));
    return exact.length ? exact : [...all];
  }

  /** A field visible in `entry`: its own, then inherited ones (breadth-first). */
  findField(entry: TypeEntry, name: string): { owner: TypeEntry; type?: TypeRef; init?: import('../parse/ir.js').Expr; line: number } | undefined {
    for (const t of this.ancestors(entry).project) {
      const f = this.memberIndex(t).fields.get(name);
      if (f) return { owner: t, ...(f.type ? { type: f.type } : {}), ...(f.init ? { init: f.init } : {}), line: f.line };
    }
    return undefined;
  }
}

const LOMBOK_GETTERS = new Set(['Data', 'Value', 'Getter']);
const LOMBOK_SETTERS = new Set(['Data', 'Setter']);

/** Accessors and constructors Lombok generates, so calls to them resolve (never written back into the facts). */
function lombokMembers(facts: TypeFacts): MemberFacts[] {
  const names = new Set(facts.annotations.map((a) => a.name));
  if (facts.kind !== 'class' && facts.kind !== 'enum') return [];
  const out: MemberFacts[] = [];
  const make = (name: string, params: MemberFacts['params'], returnType: TypeRef | undefined, synthetic: MemberFacts['synthetic'], line: number): MemberFacts => ({
    name,
    kind: name === '<init>' ? 'constructor' : 'method',
    params,
    ...(returnType ? { returnType } : {}),
    modifiers: ['public'],
    annotations: [],
    line,
    endLine: line,
    synthetic,
    locals: [],
    calls: [],
  });
  for (const f of facts.fields) {
    if (!f.type || f.modifiers.includes('static')) continue;
    const fieldNames = new Set(f.annotations.map((a) => a.name));
    const cap = f.name[0]!.toUpperCase() + f.name.slice(1);
    const getter = (f.type.name === 'boolean' ? 'is' : 'get') + cap;
    if ([...LOMBOK_GETTERS].some((n) => names.has(n) || fieldNames.has(n))) out.push(make(getter, [], f.type, 'lombok_getter', f.line));
    if (!f.modifiers.includes('final') && !names.has('Value') && [...LOMBOK_SETTERS].some((n) => names.has(n) || fieldNames.has(n))) out.push(make(`set${cap}`, [{ name: f.name, type: f.type, annotations: [] }], { name: 'void' }, 'lombok_setter', f.line));
  }
  if (!facts.members.some((m) => m.kind === 'constructor' && !m.synthetic)) {
    const instance = facts.fields.filter((f) => f.type && !f.modifiers.includes('static'));
    const ctor = (fields: typeof instance): MemberFacts => make('<init>', fields.map((f) => ({ name: f.name, type: f.type!, annotations: [] })), undefined, 'lombok_constructor', facts.line);
    if (names.has('AllArgsConstructor') || names.has('Value')) out.push(ctor(instance));
    if (names.has('RequiredArgsConstructor') || (names.has('Data') && !names.has('AllArgsConstructor') && !names.has('NoArgsConstructor'))) out.push(ctor(instance.filter((f) => f.modifiers.includes('final') && !f.init)));
    if (names.has('NoArgsConstructor')) out.push(ctor([]));
  }
  return out;
}

/** Whether a call with `argCount` arguments can land on `m`: varargs take any number, Kotlin defaults may be left out. */
export function arityAccepts(m: MemberFacts, argCount: number): boolean {
  const n = m.params.length;
  const varargs = n > 0 && m.params[n - 1]!.varargs;
  const required = m.params.filter((p, i) => !p.default && !(varargs && i === n - 1)).length;
  return varargs ? argCount >= required : argCount >= required && argCount <= n;
}

/** Library interfaces anonymous classes commonly implement (so `new X() {}` on them is IMPLEMENTS, not EXTENDS). */
const KNOWN_EXTERNAL_INTERFACES = new Set(
  'Runnable Callable Comparator Comparable Iterable Iterator Supplier Consumer BiConsumer Function BiFunction Predicate BiPredicate UnaryOperator BinaryOperator AutoCloseable Closeable Serializable InvocationHandler ThreadFactory Executor RowMapper ResultSetExtractor TransactionCallback ApplicationListener CommandLineRunner ApplicationRunner HandlerInterceptor WebMvcConfigurer Filter Converter InitializingBean DisposableBean'.split(
    ' ',
  ),
);

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
