import { LIBRARY } from '../eval/library.js';
import { own } from './own.js';
import type { CallFacts, Expr, TypeRef, VariableFacts } from '../parse/ir.js';
import { arityAccepts, type CodeModel, isPrimitive, type MemberEntry, simpleTypeName, type TypeEntry, type TypeTarget } from './model.js';

export type CallStrategy =
  | 'local'
  | 'parameter'
  | 'field'
  | 'this_super'
  | 'chained'
  | 'static_import'
  | 'static_import_wildcard'
  | 'import'
  | 'same_package'
  | 'qualified_name'
  | 'constructor'
  | 'method_reference'
  | 'implicit_super'
  | 'extension'
  | 'overload_ambiguous';

const CONFIDENCE: Record<CallStrategy, number> = {
  local: 0.95,
  parameter: 0.95,
  field: 0.95,
  this_super: 0.95,
  static_import: 0.95,
  import: 0.95,
  qualified_name: 0.95,
  constructor: 0.95,
  same_package: 0.9,
  method_reference: 0.9,
  implicit_super: 0.9,
  chained: 0.85,
  static_import_wildcard: 0.85,
  extension: 0.8,
  overload_ambiguous: 0.5,
};

/** A call's landing: a project member, or an external (library) method or constructor. */
export type CallTarget = { member: MemberEntry } | { external: { owner: string; name: string } };

export type ResolvedCall =
  /** `receiverType`: the project type a library method is called on (`visitRepository.save` lands on JpaRepository#save). */
  | { call: CallFacts; targets: CallTarget[]; strategy: CallStrategy; confidence: number; receiverType?: TypeEntry }
  | { call: CallFacts; unresolved: 'unknown_receiver' | 'unknown_member' | 'unknown_return_type'; receiver: string };

/** The static type of an expression, and how it was found. `isType`: the expression names a type (static access). */
type Typed = { target: TypeTarget; strategy: CallStrategy; isType?: boolean; typeArgs?: string[] } | { unknown: 'unknown_receiver' | 'unknown_return_type' };

const OBJECT_METHODS = new Set(['toString', 'equals', 'hashCode', 'getClass', 'notify', 'notifyAll', 'wait', 'clone', 'finalize']);
const BOXES: Record<string, string> = { int: 'Integer', long: 'Long', double: 'Double', float: 'Float', boolean: 'Boolean', char: 'Character', short: 'Short', byte: 'Byte' };

/** Resolves the call sites of members to their targets: the receiver cascade, chained calls, overloads. */
export class CallResolver {
  /** Locals whose initializer is being typed. */
  private readonly typing = new Set<VariableFacts>();

  constructor(private readonly model: CodeModel) {}

  resolve(caller: MemberEntry, call: CallFacts): ResolvedCall | undefined {
    switch (call.kind) {
      case 'new':
        return this.creation(caller, call);
      case 'this_ctor':
        return this.landOn(call, this.model.constructors(caller.owner, call.argCount).filter((m) => m !== caller), 'constructor');
      case 'super_ctor':
        return this.superConstructor(caller, call);
      case 'method_ref':
        return this.methodReference(caller, call);
      case 'call':
        return call.receiver ? this.qualifiedCall(caller, call, call.receiver) : this.bareCall(caller, call);
    }
  }

  private creation(caller: MemberEntry, call: CallFacts): ResolvedCall | undefined {
    if (!call.type) return undefined;
    const target = this.model.resolveType(call.type, caller.owner);
    if (call.anonymous) {
      // `new I() {…}` creates an anonymous class implementing I: there is no constructor of I to call.
      const anonymous = this.model.typeByQn(call.anonymous, caller.owner.place);
      if (anonymous?.supers[0]?.relation === 'implements') return undefined;
    }
    if (target.external !== undefined) return this.external(call, target.external, '<init>', 'constructor');
    if (target.entry.facts.kind === 'interface') return undefined;
    return this.landOn(call, this.model.constructors(target.entry, call.argCount), 'constructor');
  }

  private superConstructor(caller: MemberEntry, call: CallFacts): ResolvedCall | undefined {
    const owner = caller.owner;
    const parent = owner.supers.find((s) => s.relation === 'extends' && owner.facts.kind !== 'interface');
    if (!parent) return undefined;
    if (parent.target.external !== undefined) return call.implicit ? undefined : this.external(call, parent.target.external, '<init>', 'constructor');
    const ctors = this.model.constructors(parent.target.entry, call.argCount);
    return this.landOn(call, ctors, call.implicit ? 'implicit_super' : 'constructor');
  }

  private methodReference(caller: MemberEntry, call: CallFacts): ResolvedCall | undefined {
    if (call.type) {
      const target = this.model.resolveType(call.type, caller.owner);
      if (target.external !== undefined) return this.external(call, target.external, '<init>', 'method_reference');
      return this.landOn(call, this.model.constructors(target.entry, -1), 'method_reference');
    }
    // Kotlin `::handle`: a function of this class, its outer classes or the package.
    if (!call.receiver) {
      const bare = this.bareCall(caller, call);
      return 'unresolved' in bare ? bare : { ...bare, strategy: 'method_reference', confidence: Math.min(bare.confidence, CONFIDENCE.method_reference) };
    }
    const typed = this.typeOf(call.receiver, caller, call.line);
    if ('unknown' in typed) return { call, unresolved: typed.unknown, receiver: exprText(call.receiver) };
    if (typed.target.external !== undefined) return this.external(call, typed.target.external, call.name, 'method_reference');
    const found = this.model.findMethods(typed.target.entry, call.name, -1).members;
    if (found.length) return this.landOn(call, found, 'method_reference');
    return this.onExternalSupertypes(call, typed.target.entry, 'method_reference', true) ?? { call, unresolved: 'unknown_member', receiver: exprText(call.receiver) };
  }

  /** Where a call expression (a receiver or an argument, not a call site of its own) lands. */
  resolveCallExpr(caller: MemberEntry, expr: Extract<Expr, { k: 'call' }>, line: number): ResolvedCall {
    const call = syntheticCall(expr, line);
    return expr.of ? this.qualifiedCall(caller, call, expr.of) : this.bareCall(caller, call);
  }

  private qualifiedCall(caller: MemberEntry, call: CallFacts, receiver: Expr, depth = 0): ResolvedCall {
    const typed = this.typeOf(receiver, caller, call.line, depth);
    if ('unknown' in typed) return { call, unresolved: typed.unknown, receiver: exprText(receiver) };
    if (typed.target.external !== undefined) {
      // A Kotlin extension the estate declares on the library type, when it takes these arguments (a library member
      // would win, but its name and arity fitting the estate's own extension is what the estate wrote it for).
      const extension = typed.isType ? undefined : this.extensionFor(caller, call, new Set([typed.target.external.split('.').pop()!]));
      return extension ?? this.external(call, typed.target.external, call.name, typed.strategy);
    }
    const entry = typed.target.entry;
    const found = this.model.findMethods(entry, call.name, call.argCount);
    // No project method takes this many arguments, a library supertype may: its method, not a project one of another arity.
    const inherited = found.exact || call.argCount < 0 || !found.members.length ? undefined : this.onExternalSupertypes(call, entry, typed.strategy, true);
    if (inherited) return inherited;
    if (found.members.length) return this.pick(caller, call, found.members, typed.strategy);
    if (typed.isType) {
      const companion = this.model.companionOf(entry);
      const onCompanion = companion ? this.model.findMethods(companion, call.name, call.argCount).members : [];
      if (onCompanion.length) return this.pick(caller, call, onCompanion, typed.strategy);
    }
    const extension = this.extensionFor(caller, call, new Set(this.model.ancestors(entry).project.map((t) => t.facts.name)));
    if (extension) return extension;
    return this.onExternalSupertypes(call, entry, typed.strategy, true) ?? { call, unresolved: 'unknown_member', receiver: exprText(receiver) };
  }

  private bareCall(caller: MemberEntry, call: CallFacts): ResolvedCall {
    const owner = caller.owner;
    const file = owner.file;
    const staticOwner = own(file.imports.staticSingle, call.name);
    if (staticOwner) {
      const entry = this.model.typeByQn(staticOwner, owner.place);
      if (!entry) return this.external(call, staticOwner, call.name, 'static_import');
      const found = this.model.findMethods(entry, call.name, call.argCount).members;
      if (found.length) return this.pick(caller, call, found, 'static_import');
    }
    // In a Kotlin extension function, a bare call is first a call on the receiver it extends (`this`).
    const extended = caller.facts.extensionReceiver;
    if (extended) {
      const onReceiver = this.onExtendedReceiver(caller, call, extended);
      if (onReceiver) return onReceiver;
    }
    for (let t: TypeEntry | undefined = owner; t; t = t.outer) {
      // An extension function needs a receiver of its type: a bare call reaches one only from an extension of the same type.
      const methods = this.model.findMethods(t, call.name, call.argCount);
      const found = methods.members.filter((m) => !m.facts.extensionReceiver || (extended !== undefined && sameSimpleType(m.facts.extensionReceiver, extended) && arityAccepts(m.facts, call.argCount + 1)));
      // No project method takes this many arguments, a library supertype may (`getHeader(key)` inside an overload `getHeader(key, type)`).
      const inherited = methods.exact || call.argCount < 0 || !found.length || !this.model.ancestors(t).external.length ? undefined : this.onExternalSupertypes(call, t, 'this_super');
      if (inherited) return inherited;
      if (found.length) return this.pick(caller, call, found, 'this_super');
    }
    for (const w of file.imports.staticWildcard) {
      const entry = this.model.typeByQn(w, owner.place);
      const found = entry ? this.model.findMethods(entry, call.name, call.argCount).members : [];
      if (found.length) return this.pick(caller, call, found, 'static_import_wildcard');
    }
    if (file.language === 'kotlin') {
      const kotlin = this.kotlinBareCall(caller, call);
      if (kotlin) return kotlin;
    }
    const externalStatic = file.imports.staticWildcard.filter((w) => !this.model.typeByQn(w, owner.place));
    if (externalStatic.length === 1) return this.external(call, externalStatic[0]!, call.name, 'static_import_wildcard');
    for (let t: TypeEntry | undefined = owner; t; t = t.outer) {
      const inherited = this.onExternalSupertypes(call, t, 'this_super');
      if (inherited) return inherited;
    }
    if (OBJECT_METHODS.has(call.name)) return this.external(call, file.language === 'kotlin' ? 'kotlin.Any' : 'java.lang.Object', call.name, 'this_super');
    return { call, unresolved: 'unknown_member', receiver: '' };
  }

  /** Kotlin: `Foo(…)` is a constructor call; top-level functions are found through imports and the package. */
  private kotlinBareCall(caller: MemberEntry, call: CallFacts): ResolvedCall | undefined {
    const owner = caller.owner;
    const asType = /^[A-Z]/.test(call.name) ? this.model.resolveTypeName(call.name, owner) : undefined;
    if (asType?.entry) return this.landOn(call, this.model.constructors(asType.entry, call.argCount), 'constructor');
    if (asType?.external) return this.external(call, asType.external, '<init>', 'constructor');
    const imported = own(owner.file.imports.single, call.name);
    const packages = imported ? [imported.slice(0, imported.lastIndexOf('.'))] : [owner.file.package];
    for (const pkg of packages) {
      const found = this.model.facadesIn(pkg).flatMap((f) => f.members.filter((m) => m.facts.name === call.name && !m.facts.extensionReceiver));
      if (found.length) return this.pick(caller, call, found, imported ? 'import' : 'same_package');
    }
    if (imported) return this.external(call, imported.slice(0, imported.lastIndexOf('.')), call.name, 'import');
    return undefined;
  }

  /** Kotlin extension functions visible here on a receiver of these simple type names that take the call's arguments. */
  private extensionFor(caller: MemberEntry, call: CallFacts, names: ReadonlySet<string>): ResolvedCall | undefined {
    const candidates = this.model.extensions(call.name).filter((m) => {
      const visible = m.owner.file.package === caller.owner.file.package || Object.values(caller.owner.file.imports.single).includes(`${m.owner.file.package}.${call.name}`) || caller.owner.file.imports.wildcard.includes(m.owner.file.package);
      // Its parameters start with the receiver.
      return visible && names.has(simpleTypeName(m.facts.extensionReceiver!).split('.').pop()!) && arityAccepts(m.facts, call.argCount + 1);
    });
    return candidates.length ? this.pick(caller, call, candidates, 'extension') : undefined;
  }

  /** A bare call in an extension function, on the type it extends: a project type's methods, or a library row of a library type's. */
  private onExtendedReceiver(caller: MemberEntry, call: CallFacts, extended: TypeRef): ResolvedCall | undefined {
    const target = this.typeVariableSafe(extended, caller.owner);
    if (!target) return undefined;
    if (target.entry) {
      const found = this.model.findMethods(target.entry, call.name, call.argCount);
      return found.exact ? this.pick(caller, call, found.members, 'this_super') : undefined;
    }
    return LIBRARY.method(target.external, call.name) ? this.external(call, target.external, call.name, 'this_super') : undefined;
  }

  /** A method the project type does not declare may come from a library supertype: land on the first one. */
  private onExternalSupertypes(call: CallFacts, entry: TypeEntry, strategy: CallStrategy, onReceiver = false): ResolvedCall | undefined {
    const { external } = this.model.ancestors(entry);
    if (external.length) return { ...this.external(call, external[0]!, call.name, strategy), ...(onReceiver ? { receiverType: entry } : {}) };
    if (OBJECT_METHODS.has(call.name)) return this.external(call, entry.file.language === 'kotlin' ? 'kotlin.Any' : 'java.lang.Object', call.name, strategy);
    // An extension of every type the library table knows (Kotlin's `let`, `also`, `takeIf` …), on a receiver, not bare.
    if (onReceiver && LIBRARY.method('kotlin.Any', call.name)) return { ...this.external(call, 'kotlin.Any', call.name, strategy), receiverType: entry };
    return undefined;
  }

  private external(call: CallFacts, owner: string, name: string, strategy: CallStrategy): ResolvedCall {
    return { call, targets: [{ external: { owner, name } }], strategy, confidence: CONFIDENCE[strategy] };
  }

  private landOn(call: CallFacts, members: MemberEntry[], strategy: CallStrategy): ResolvedCall | undefined {
    if (!members.length) return undefined;
    if (members.length === 1) return { call, targets: [{ member: members[0]! }], strategy, confidence: CONFIDENCE[strategy] };
    return { call, targets: members.map((member) => ({ member })), strategy: 'overload_ambiguous', confidence: Math.min(CONFIDENCE[strategy], CONFIDENCE.overload_ambiguous) };
  }

  /** Several overloads with the right arity: keep those whose parameter types fit the arguments' known types. */
  private pick(caller: MemberEntry, call: CallFacts, members: MemberEntry[], strategy: CallStrategy): ResolvedCall {
    let chosen = members;
    if (members.length > 1 && call.argCount > 0) {
      const argTypes = call.args.map((a) => this.argType(a, caller, call.line));
      const fitting = members.filter((m) => m.facts.params.every((p, i) => fits(argTypes[i], simpleTypeName(p.type))));
      if (fitting.length >= 1) chosen = fitting;
    }
    return this.landOn(call, chosen, call.kind === 'method_ref' ? 'method_reference' : strategy)!;
  }

  private argType(text: string, caller: MemberEntry, line: number): string | undefined {
    const t = text.trim();
    if (/^"/.test(t)) return 'String';
    if (/^-?\d+[lL]$/.test(t)) return 'long';
    if (/^-?\d+$/.test(t)) return 'int';
    if (/^-?\d*\.\d+[dD]?$/.test(t)) return 'double';
    if (/^-?\d*\.?\d+[fF]$/.test(t)) return 'float';
    if (t === 'true' || t === 'false') return 'boolean';
    if (/^'.'$/.test(t)) return 'char';
    const created = /^new\s+([\w.]+)/.exec(t);
    if (created) return created[1]!.split('.').pop();
    if (/^[a-z_$][\w$]*$/i.test(t)) {
      const named = this.declaredTypeOf(t, caller, line);
      return named ? simpleTypeName(named) : undefined;
    }
    return undefined;
  }

  private declaredTypeOf(name: string, caller: MemberEntry, line: number): TypeRef | undefined {
    const local = findLocal(caller, name, line);
    if (local?.type) return local.type;
    const param = caller.facts.params.find((p) => p.name === name);
    if (param) return param.type;
    for (let t: TypeEntry | undefined = caller.owner; t; t = t.outer) {
      const field = this.model.findField(t, name);
      if (field?.type) return field.type;
    }
    return undefined;
  }

  /** The project method a method reference written as an argument (`handler::get`, `this::onEvent`) names, if any. */
  methodRef(member: MemberEntry, written: string): MemberEntry | undefined {
    const m = /^\s*([\w$.]+)\s*::\s*([\w$]+)\s*$/.exec(written);
    const call = m && member.facts.calls.find((c) => c.kind === 'method_ref' && c.name === m[2] && c.receiver && exprText(c.receiver) === m[1]);
    const resolved = call ? this.resolve(member, call) : undefined;
    if (!resolved || 'unresolved' in resolved) return undefined;
    for (const t of resolved.targets) if ('member' in t) return t.member;
    return undefined;
  }

  /** The static type of a receiver expression (the receiver-resolution cascade). */
  typeOf(expr: Expr, caller: MemberEntry, line: number, depth = 0): Typed {
    if (depth > 12) return { unknown: 'unknown_receiver' };
    const owner = caller.owner;
    switch (expr.k) {
      case 'this': {
        // In a Kotlin extension function, `this` is the receiver it extends.
        const extended = expr.qualifier ? undefined : caller.facts.extensionReceiver;
        if (extended) {
          const target = this.typeVariableSafe(extended, owner);
          return target ? { target, strategy: 'this_super' } : { unknown: 'unknown_receiver' };
        }
        if (!expr.qualifier) return { target: { entry: owner }, strategy: 'this_super' };
        for (let t: TypeEntry | undefined = owner; t; t = t.outer) if (t.facts.name === expr.qualifier) return { target: { entry: t }, strategy: 'this_super' };
        return { unknown: 'unknown_receiver' };
      }
      case 'super': {
        if (expr.qualifier) {
          const iface = this.model.resolveTypeName(expr.qualifier, owner);
          if (iface) return { target: iface, strategy: 'this_super' };
        }
        const parent = owner.supers.find((s) => s.relation === 'extends') ?? owner.supers[0];
        if (parent) return { target: parent.target, strategy: 'this_super' };
        return { target: { external: owner.file.language === 'kotlin' ? 'kotlin.Any' : 'java.lang.Object' }, strategy: 'this_super' };
      }
      case 'name':
        return this.typeOfName(expr.name, caller, line, depth);
      case 'field': {
        const dotted = dottedName(expr);
        if (dotted && /^[a-z]/.test(dotted) && !this.isVariable(dotted.split('.')[0]!, caller, line)) {
          const asType = this.model.resolveTypeName(dotted, owner);
          if (asType) return { target: asType, strategy: 'qualified_name', isType: true };
        }
        const of = this.typeOf(expr.of, caller, line, depth + 1);
        if ('unknown' in of) return of;
        if (of.target.external !== undefined && !of.isType) {
          // Kotlin reads a library getter as a property (`queue.sqsClient` is `getSqsClient()`).
          const getter = `get${expr.name[0]!.toUpperCase()}${expr.name.slice(1)}`;
          if (LIBRARY.method(of.target.external, getter)?.returns) return this.libraryReturn(of.target.external, getter, { k: 'call', name: getter, argCount: 0, of: expr.of }, caller, line, depth);
        }
        if (of.target.external !== undefined) {
          // `Outer.Inner` of an external type, or a static field of a library type: both unknown statically.
          return /^[A-Z]/.test(expr.name) && of.isType ? { target: { external: `${of.target.external}.${expr.name}` }, strategy: of.strategy, isType: true } : { unknown: 'unknown_return_type' };
        }
        // Java sees a Kotlin object through its INSTANCE field.
        if (of.isType && expr.name === 'INSTANCE' && of.target.entry.facts.flavor === 'object') return { target: of.target, strategy: of.strategy };
        // An enum constant has its enum's type.
        if (of.isType && of.target.entry.facts.enumConstants?.includes(expr.name)) return { target: of.target, strategy: of.strategy };
        const field = this.model.findField(of.target.entry, expr.name);
        if (field) return this.typeOfField(field, caller, line, depth, of.strategy === 'this_super' ? 'field' : 'chained');
        const nested = this.model.typeByQn(`${of.target.entry.qn}.${expr.name}`, owner.place);
        if (nested) return { target: { entry: nested }, strategy: of.strategy, isType: true };
        return { unknown: 'unknown_receiver' };
      }
      case 'call': {
        const resolved = expr.of ? this.qualifiedCall(caller, syntheticCall(expr, line), expr.of, depth + 1) : this.bareCall(caller, syntheticCall(expr, line));
        if ('unresolved' in resolved) return { unknown: resolved.unresolved === 'unknown_member' ? 'unknown_return_type' : resolved.unresolved };
        const first = resolved.targets[0]!;
        // Kotlin's `Foo(…)`: a constructor call makes a Foo.
        if (!('member' in first)) return first.external.name === '<init>' ? { target: { external: first.external.owner }, strategy: 'constructor' } : this.libraryReturn(first.external.owner, first.external.name, expr, caller, line, depth);
        if (first.member.facts.kind === 'constructor') return { target: { entry: first.member.owner }, strategy: 'constructor' };
        const ret = first.member.facts.returnType;
        if (!ret || isPrimitive(ret.name) || ret.name === 'Unit') return { unknown: 'unknown_return_type' };
        const target = this.typeVariableSafe(ret, first.member.owner);
        return target ? { target, strategy: 'chained' } : { unknown: 'unknown_return_type' };
      }
      case 'new': {
        const target = this.typeVariableSafe(expr.type, owner);
        return target ? { target, strategy: 'constructor' } : { unknown: 'unknown_receiver' };
      }
      case 'cast': {
        const target = this.typeVariableSafe(expr.type, owner);
        return target ? { target, strategy: 'local' } : { unknown: 'unknown_receiver' };
      }
      case 'literal':
        return expr.type === 'String' ? { target: { external: owner.file.language === 'kotlin' ? 'kotlin.String' : 'java.lang.String' }, strategy: 'local' } : { unknown: 'unknown_receiver' };
      case 'class_literal':
        return { target: { external: 'java.lang.Class' }, strategy: 'local' };
      case 'concat':
        return { target: { external: owner.file.language === 'kotlin' ? 'kotlin.String' : 'java.lang.String' }, strategy: 'local' };
      case 'cond': {
        for (const option of expr.options) {
          const typed = this.typeOf(option, caller, line, depth + 1);
          if (!('unknown' in typed)) return typed;
        }
        return { unknown: 'unknown_receiver' };
      }
      case 'guarded':
        return this.typeOf(expr.value, caller, line, depth + 1);
      case 'test':
      case 'lambda':
      case 'other':
        return { unknown: 'unknown_receiver' };
    }
  }

  /** A library method's return type, from the library table (`$0`: the receiver's first type argument). */
  private libraryReturn(owner: string, name: string, expr: Extract<Expr, { k: 'call' }>, caller: MemberEntry, line: number, depth: number): Typed {
    const returns = LIBRARY.method(owner, name)?.returns;
    if (!returns) return { unknown: 'unknown_return_type' };
    const classArg = /^\$class(\d)$/.exec(returns);
    if (classArg) {
      // `createClient(OrdersApi.class)`: an instance of the class the literal (argument N) names.
      const arg = expr.args?.[Number(classArg[1])];
      const target = arg?.k === 'class_literal' ? this.typeVariableSafe(arg.type, caller.owner) : undefined;
      return target ? { target, strategy: 'chained' } : { unknown: 'unknown_return_type' };
    }
    if (returns === '$0' || returns === '$arg0') {
      const from = returns === '$0' ? expr.of : expr.args?.[0];
      const typed = from ? this.typeOf(from, caller, line, depth + 1) : undefined;
      if (!typed || 'unknown' in typed) return { unknown: 'unknown_return_type' };
      if (returns === '$arg0') return { target: typed.target, strategy: 'chained' };
      const arg = typed.typeArgs?.[0];
      const entry = arg ? this.model.typeByQn(arg, caller.owner.place) : undefined;
      return arg ? { target: entry ? { entry } : { external: arg }, strategy: 'chained' } : { unknown: 'unknown_return_type' };
    }
    const generic = /^([^<]+)<(.+)>$/.exec(returns);
    if (!generic) return { target: { external: returns }, strategy: 'chained' };
    // `Stream<$0>`: the receiver's element type carried on (`list.stream().findFirst()` is an Optional of the list's).
    let typeArgs = generic[2]!.split(',').map((a) => a.trim());
    if (typeArgs.includes('$0')) {
      const typed = expr.of ? this.typeOf(expr.of, caller, line, depth + 1) : undefined;
      const first = typed && !('unknown' in typed) ? typed.typeArgs?.[0] : undefined;
      if (!first) return { target: { external: generic[1]! }, strategy: 'chained' };
      typeArgs = typeArgs.map((a) => (a === '$0' ? first : a));
    }
    return { target: { external: generic[1]! }, strategy: 'chained', typeArgs };
  }

  private isVariable(name: string, caller: MemberEntry, line: number): boolean {
    return !!this.declaredTypeOf(name, caller, line) || !!findLocal(caller, name, line);
  }

  private typeOfName(name: string, caller: MemberEntry, line: number, depth: number): Typed {
    let local = findLocal(caller, name, line);
    // `val request = request.copy(…)`: in its own initializer the name is what it shadows, not the new local.
    if (local && this.typing.has(local)) local = findLocal(caller, name, local.line - 1, local);
    if (local) {
      this.typing.add(local);
      try {
        return this.typeOfDeclared(local.type, local.init, caller.owner, caller, line, depth, 'local');
      } finally {
        this.typing.delete(local);
      }
    }
    const param = caller.facts.params.find((p) => p.name === name);
    if (param) return this.typeOfDeclared(param.type, undefined, caller.owner, caller, line, depth, 'parameter');
    for (let t: TypeEntry | undefined = caller.owner; t; t = t.outer) {
      const field = this.model.findField(t, name);
      if (field) return this.typeOfField(field, caller, line, depth, 'field');
    }
    // In a Kotlin extension function, a bare name may be a property of the receiver it extends.
    if (caller.facts.extensionReceiver && /^[a-z]/.test(name)) {
      const viaThis = this.typeOf({ k: 'field', of: { k: 'this' }, name }, caller, line, depth + 1);
      if (!('unknown' in viaThis)) return viaThis;
    }
    const asType = this.model.resolveTypeName(name, caller.owner);
    if (asType) {
      const file = caller.owner.file;
      const strategy: CallStrategy = own(file.imports.single, name) ? 'import' : asType.entry && asType.entry.file.package === file.package ? 'same_package' : 'import';
      return { target: asType, strategy, isType: true };
    }
    return { unknown: 'unknown_receiver' };
  }

  /** A field's type: declared, else inferred from its initializer where it is written (a Kotlin property built from a constructor parameter). */
  private typeOfField(field: NonNullable<ReturnType<CodeModel['findField']>>, caller: MemberEntry, line: number, depth: number, strategy: CallStrategy): Typed {
    if (field.type || !field.init || field.owner === caller.owner && caller.facts.kind === 'constructor') return this.typeOfDeclared(field.type, field.init, field.owner, caller, line, depth, strategy);
    const context = field.owner.members.find((m) => m.facts.synthetic === 'primary_constructor') ?? field.owner.members.find((m) => m.facts.kind === 'constructor');
    return this.typeOfDeclared(field.type, field.init, field.owner, context ?? caller, context ? field.line : line, depth, strategy);
  }

  private typeOfDeclared(type: TypeRef | undefined, init: Expr | undefined, declaredIn: TypeEntry, caller: MemberEntry, line: number, depth: number, strategy: CallStrategy): Typed {
    if (type) {
      const target = this.typeVariableSafe(type, declaredIn);
      if (!target) return { unknown: 'unknown_receiver' };
      // `List<ServiceInstance> instances`: what `instances.get(0)` is (a library row's `$0`).
      const typeArgs = (type.args ?? []).map((a) => {
        const t = this.typeVariableSafe(a, declaredIn);
        return t?.entry ? t.entry.qn : t?.external;
      });
      return typeArgs.length && typeArgs.every((a) => a !== undefined) ? { target, strategy, typeArgs: typeArgs as string[] } : { target, strategy };
    }
    if (init) {
      const inferred = this.typeOf(init, caller, line, depth + 1);
      return 'unknown' in inferred ? inferred : { target: inferred.target, strategy, ...(inferred.typeArgs ? { typeArgs: inferred.typeArgs } : {}) };
    }
    return { unknown: 'unknown_receiver' };
  }

  /** Resolves a declared type, treating an unresolvable short upper-case name (`T`, `E`, `ID`) as a type variable. */
  private typeVariableSafe(ref: TypeRef, from: TypeEntry): TypeTarget | undefined {
    if (isPrimitive(ref.name) || (ref.array ?? 0) > 0) return undefined;
    const found = this.model.resolveTypeName(ref.name, from);
    if (found) return found;
    if (/^[A-Z][A-Z0-9]?$/.test(ref.name)) return undefined;
    return { external: this.model.externalGuess(ref.name, from.file) };
  }
}

/** The local a name means at a line: the last declared at or before it, else the first (a lambda's parameter declared later). */
function findLocal(caller: MemberEntry, name: string, line: number, except?: VariableFacts): VariableFacts | undefined {
  let best: VariableFacts | undefined;
  for (const l of caller.facts.locals) {
    if (l.name !== name || l === except) continue;
    if (l.line <= line) best = l;
    else if (!except) best ??= l;
  }
  return best;
}

function syntheticCall(expr: Extract<Expr, { k: 'call' }>, line: number): CallFacts {
  return { kind: 'call', name: expr.name, argCount: expr.argCount, args: [], line };
}

function dottedName(expr: Expr): string | undefined {
  if (expr.k === 'name') return expr.name;
  if (expr.k === 'field') {
    const of = dottedName(expr.of);
    return of ? `${of}.${expr.name}` : undefined;
  }
  return undefined;
}

function fits(arg: string | undefined, param: string): boolean {
  if (!arg) return true;
  if (arg === param || BOXES[arg] === param || BOXES[param] === arg) return true;
  if (param === 'Object' || param === 'Any') return true;
  if ((arg === 'int' && (param === 'long' || param === 'double' || param === 'float')) || (arg === 'long' && param === 'double')) return true;
  return /^[A-Z][A-Z0-9]?$/.test(param);
}

/** The receiver as written, for unresolved call sites. */
export function exprText(expr: Expr): string {
  switch (expr.k) {
    case 'this':
      return expr.qualifier ? `${expr.qualifier}.this` : 'this';
    case 'super':
      return expr.qualifier ? `${expr.qualifier}.super` : 'super';
    case 'name':
      return expr.name;
    case 'field':
      return `${exprText(expr.of)}.${expr.name}`;
    case 'call':
      return `${expr.of ? `${exprText(expr.of)}.` : ''}${expr.name}(${expr.argCount ? '…' : ''})`;
    case 'new':
      return `new ${expr.type.name}(…)`;
    case 'literal':
      return expr.type === 'String' ? '"…"' : expr.type;
    case 'class_literal':
      return `${expr.type.name}.class`;
    case 'cast':
      return `(${expr.type.name}) …`;
    case 'concat':
      return expr.parts.map(exprText).join(' + ');
    case 'cond':
      return expr.options.map(exprText).join(' | ');
    case 'test':
      return expr.op === '!' ? `!${exprText(expr.args[0]!)}` : expr.args.map(exprText).join(` ${expr.op} `);
    case 'guarded':
      return exprText(expr.value);
    case 'lambda':
      return `{ ${expr.params.join(', ')} -> ${expr.body ? exprText(expr.body) : '…'} }`;
    case 'other':
      return expr.text.length > 60 ? `${expr.text.slice(0, 57)}…` : expr.text;
  }
}

export function confidenceOf(strategy: CallStrategy): number {
  return CONFIDENCE[strategy];
}

function sameSimpleType(a: TypeRef, b: TypeRef): boolean {
  return simpleTypeName(a).split('.').pop() === simpleTypeName(b).split('.').pop();
}
