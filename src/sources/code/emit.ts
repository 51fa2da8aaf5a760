import { nodeId } from '../../graph/ids.js';
import type { Ontology } from '../../graph/ontology/index.js';
import type { EdgeRecord, NodeRecord, PropValue } from '../../graph/types.js';
import { CallResolver, exprText, type ResolvedCall } from './calls.js';
import { resolveInjections } from './inject.js';
import type { AnnotationFacts, FileFacts, MemberFacts } from './ir.js';
import type { ServiceInfo } from './layout.js';
import { CodeModel, type MemberEntry, type Placement, simpleTypeName, type TypeEntry, type TypeTarget, typeText } from './model.js';
import { classifyTypes, type RoleOverrides, type TypeTraits } from './roles.js';

export interface CodeGraphInput {
  source: string;
  files: readonly FileFacts[];
  services: readonly ServiceInfo[];
  locate: (path: string) => Placement;
  overrides?: RoleOverrides;
}

export interface CodeGraphStats {
  files: number;
  files_with_errors: number;
  types: number;
  members: number;
  external_symbols: number;
  calls: number;
  calls_external: number;
  calls_unresolved: number;
  injects: number;
}

export interface CodeGraph {
  nodes: NodeRecord[];
  edges: EdgeRecord[];
  stats: CodeGraphStats;
}

/** Turns the facts of every file into the code graph: symbols, services, and the edges the resolvers find. */
export function assembleCodeGraph(ontology: Ontology, input: CodeGraphInput): CodeGraph {
  return new GraphAssembler(ontology, input).run();
}

class GraphAssembler {
  private readonly nodes: NodeRecord[] = [];
  private readonly edges: EdgeRecord[] = [];
  private readonly nodeIds = new Set<string>();
  private readonly typeIds = new Map<TypeEntry, string>();
  private readonly memberIds = new Map<MemberEntry, string>();
  private readonly externals = new Map<string, string>();
  private readonly edgeKeys = new Set<string>();
  private readonly model: CodeModel;
  private traits!: Map<TypeEntry, TypeTraits>;
  private readonly stats: CodeGraphStats;

  constructor(
    private readonly ontology: Ontology,
    private readonly input: CodeGraphInput,
  ) {
    this.model = new CodeModel(input.files, input.locate);
    this.stats = { files: input.files.length, files_with_errors: input.files.filter((f) => f.parseErrors > 0).length, types: 0, members: 0, external_symbols: 0, calls: 0, calls_external: 0, calls_unresolved: 0, injects: 0 };
  }

  run(): CodeGraph {
    this.traits = classifyTypes(this.model, this.input.overrides);
    this.emitServices();
    for (const entry of this.model.types) this.emitType(entry);
    for (const entry of this.model.types) this.emitHierarchy(entry);
    for (const entry of this.model.types) this.emitOverrides(entry);
    this.emitInjections();
    const resolver = new CallResolver(this.model);
    for (const entry of this.model.types) for (const member of entry.members) this.emitCalls(resolver, member);
    return { nodes: this.nodes, edges: this.edges, stats: this.stats };
  }

  private id(kind: string, identity: string): string {
    let id = nodeId(this.ontology, this.input.source, kind, identity);
    for (let n = 2; this.nodeIds.has(id); n++) id = nodeId(this.ontology, this.input.source, kind, `${identity}~${n}`);
    this.nodeIds.add(id);
    return id;
  }

  private emitServices(): void {
    // A module is a build unit that owns sources: aggregator POMs and root Gradle builds are not listed.
    const files = new Map<string, number>();
    const modules = new Map<string, Set<string>>();
    for (const f of this.input.files) {
      const { service: s, module: m } = this.input.locate(f.path);
      files.set(s, (files.get(s) ?? 0) + 1);
      (modules.get(s) ?? modules.set(s, new Set()).get(s)!).add(m);
    }
    for (const s of this.input.services) {
      this.nodes.push({
        id: this.id('service', s.name),
        kind: 'service',
        name: s.name,
        qualified_name: s.name,
        source: this.input.source,
        service: s.name,
        ...(s.applicationNameFile ? { file: s.applicationNameFile } : s.modules[0]?.buildFile ? { file: s.modules[0].buildFile } : {}),
        props: { name_from: s.nameFrom, build_tool: s.buildTool, directory: s.dir, modules: [...(modules.get(s.name) ?? [])].sort(), files: files.get(s.name) ?? 0 },
      });
    }
  }

  private emitType(entry: TypeEntry): void {
    const facts = entry.facts;
    const traits = this.traits.get(entry)!;
    const id = this.id('symbol', `${entry.file.path}|${entry.qn}`);
    this.typeIds.set(entry, id);
    this.stats.types++;
    const generated: Record<string, PropValue> = traits.generatedBy ? { generated: true, generated_by: traits.generatedBy } : { generated: false };
    const flavor = facts.flavor ?? (facts.anonymous ? 'anonymous' : facts.local ? 'local' : undefined);
    this.nodes.push({
      id,
      kind: 'symbol',
      name: facts.name,
      qualified_name: entry.qn,
      source: this.input.source,
      ...this.location(entry, facts.line),
      props: {
        symbol_kind: facts.kind,
        language: entry.file.language,
        package: entry.file.package,
        ...(facts.outer ? { declaring_type: facts.outer } : {}),
        modifiers: facts.modifiers,
        annotations: annotationNames(facts.annotations),
        ...(facts.annotations.length ? { annotation_args: annotationArgs(facts.annotations) } : {}),
        role: traits.role,
        capabilities: traits.capabilities,
        ...(flavor ? { flavor } : {}),
        ...generated,
        resolved: true,
        end_line: facts.endLine,
        ...(entry.file.parseErrors ? { parse_errors: entry.file.parseErrors } : {}),
      },
    });
    if (entry.outer) this.edge('DECLARES', this.typeIds.get(entry.outer)!, id);
    for (const member of entry.members) this.emitMember(entry, member, id, generated);
  }

  private emitMember(entry: TypeEntry, member: MemberEntry, typeId: string, generated: Record<string, PropValue>): void {
    const m = member.facts;
    const id = this.id('symbol', `${entry.file.path}|${member.qn}`);
    this.memberIds.set(member, id);
    this.stats.members++;
    this.nodes.push({
      id,
      kind: 'symbol',
      name: m.name,
      qualified_name: member.qn,
      source: this.input.source,
      ...this.location(entry, m.line),
      props: {
        symbol_kind: m.kind,
        language: entry.file.language,
        package: entry.file.package,
        declaring_type: entry.qn,
        signature: member.signature,
        ...(m.returnType ? { return_type: typeText(m.returnType) } : {}),
        parameters: m.params.map((p) => ({ name: p.name, type: typeText(p.type) })),
        modifiers: m.modifiers,
        annotations: annotationNames(m.annotations),
        ...(m.annotations.length ? { annotation_args: annotationArgs(m.annotations) } : {}),
        ...(m.synthetic ? { synthetic: m.synthetic } : {}),
        ...generated,
        resolved: true,
        end_line: m.endLine,
      },
    });
    this.edge('DECLARES', typeId, id);
  }

  private location(entry: TypeEntry, line: number): Pick<NodeRecord, 'service' | 'module' | 'file' | 'line'> {
    return { service: entry.place.service, module: entry.place.module, file: entry.file.path, ...(line > 0 ? { line } : {}) };
  }

  private emitHierarchy(entry: TypeEntry): void {
    const from = this.typeIds.get(entry)!;
    for (const s of entry.supers) {
      const to = this.typeTarget(s.target, s.relation === 'implements' || entry.facts.kind === 'interface' ? 'interface' : 'class');
      this.edge(s.relation === 'implements' ? 'IMPLEMENTS' : 'EXTENDS', from, to);
    }
  }

  /** Each method overrides the nearest same-signature declaration on every path up its supertype chain. */
  private emitOverrides(entry: TypeEntry): void {
    for (const member of entry.members) {
      const m = member.facts;
      if (m.kind !== 'method' || m.modifiers.includes('static') || m.modifiers.includes('private')) continue;
      const found = new Set<MemberEntry>();
      const visit = (t: TypeEntry, seen: Set<TypeEntry>): void => {
        for (const s of t.supers) {
          const sup = s.target.entry;
          if (!sup || seen.has(sup)) continue;
          seen.add(sup);
          const match = sup.members.find((o) => o.facts.kind === 'method' && o.facts.name === m.name && !o.facts.modifiers.includes('static') && !o.facts.modifiers.includes('private') && paramsMatch(m, o.facts));
          if (match) found.add(match);
          else visit(sup, seen);
        }
      };
      visit(entry, new Set([entry]));
      for (const target of found) this.edge('OVERRIDES', this.memberIds.get(member)!, this.memberIds.get(target)!);
    }
    this.emitInheritedImplementations(entry);
  }

  /** `class C extends B implements I`: a method of I that C does not declare is implemented by the nearest one in B's chain. */
  private emitInheritedImplementations(entry: TypeEntry): void {
    if (entry.facts.kind === 'interface') return;
    const superclasses: TypeEntry[] = [];
    for (let t = entry.supers.find((s) => s.relation === 'extends')?.target.entry; t && !superclasses.includes(t); t = t.supers.find((s) => s.relation === 'extends')?.target.entry) superclasses.push(t);
    if (!superclasses.length) return;
    for (const s of entry.supers) {
      const iface = s.target.entry;
      if (s.relation !== 'implements' || !iface) continue;
      for (const abstract of iface.members) {
        if (abstract.facts.kind !== 'method' || abstract.facts.modifiers.includes('static')) continue;
        if (entry.members.some((m) => m.facts.name === abstract.facts.name && paramsMatch(m.facts, abstract.facts))) continue;
        for (const sup of superclasses) {
          const impl = sup.members.find((m) => m.facts.kind === 'method' && m.facts.name === abstract.facts.name && !m.facts.modifiers.includes('static') && paramsMatch(m.facts, abstract.facts));
          if (impl) {
            this.edge('OVERRIDES', this.memberIds.get(impl)!, this.memberIds.get(abstract)!);
            break;
          }
        }
      }
    }
  }

  private emitInjections(): void {
    for (const inj of resolveInjections(this.model, this.traits)) {
      const from = this.typeIds.get(inj.from)!;
      const to = this.typeTarget(inj.to, 'class');
      this.stats.injects++;
      this.edge('INJECTS', from, to, `${inj.mechanism}:${inj.member}`, {
        confidence: inj.confidence,
        strategy: inj.strategy,
        mechanism: inj.mechanism,
        member: inj.member,
        declared_type: inj.declaredType,
        ...(inj.qualifier ? { qualifier: inj.qualifier } : {}),
      });
    }
  }

  private emitCalls(resolver: CallResolver, caller: MemberEntry): void {
    const from = this.memberIds.get(caller)!;
    for (const call of caller.facts.calls) {
      const resolved = resolver.resolve(caller, call);
      if (!resolved) continue;
      this.stats.calls++;
      const attrs = { line: call.line, call: call.kind, arg_count: call.argCount, ...(call.inLambda ? { in_lambda: true } : {}) };
      if ('unresolved' in resolved) {
        this.stats.calls_unresolved++;
        const to = this.unresolvedCall(caller, resolved);
        this.edge('CALLS', from, to, `${call.line}:${call.name}`, { confidence: 0, strategy: 'unresolved', ...attrs });
        continue;
      }
      for (const target of resolved.targets) {
        let to: string;
        if ('member' in target) to = this.memberIds.get(target.member)!;
        else {
          this.stats.calls_external++;
          to = this.externalMethod(target.external.owner, target.external.name);
        }
        this.edge('CALLS', from, to, `${call.line}`, { confidence: resolved.confidence, strategy: resolved.strategy, ...attrs });
      }
    }
  }

  private unresolvedCall(caller: MemberEntry, resolved: Extract<ResolvedCall, { unresolved: string }>): string {
    const call = resolved.call;
    const receiver = call.receiver ? exprText(call.receiver) : resolved.receiver;
    const qn = `${caller.qn}@${call.line}:${receiver ? `${receiver}.` : ''}${call.name}`;
    const key = `${caller.owner.file.path}|${qn}`;
    const existing = this.externals.get(`uc|${key}`);
    if (existing) return existing;
    const id = this.id('unresolved_call', key);
    this.externals.set(`uc|${key}`, id);
    this.nodes.push({
      id,
      kind: 'unresolved_call',
      name: call.name,
      qualified_name: qn,
      source: this.input.source,
      ...this.location(caller.owner, call.line),
      props: { callee: call.name, receiver, arg_count: call.argCount, reason: resolved.unresolved },
    });
    return id;
  }

  private typeTarget(target: TypeTarget, guess: 'class' | 'interface'): string {
    return target.entry ? this.typeIds.get(target.entry)! : this.externalType(target.external, guess);
  }

  private externalType(qn: string, kind: 'class' | 'interface'): string {
    const existing = this.externals.get(qn);
    if (existing) return existing;
    const id = this.id('symbol', `ext|${qn}`);
    this.externals.set(qn, id);
    this.stats.external_symbols++;
    const cut = qn.lastIndexOf('.');
    this.nodes.push({
      id,
      kind: 'symbol',
      name: qn.slice(cut + 1),
      qualified_name: qn,
      source: this.input.source,
      props: { symbol_kind: kind, package: packageGuess(qn), resolved: false, modifiers: [], annotations: [], capabilities: [] },
    });
    return id;
  }

  private externalMethod(owner: string, name: string): string {
    const qn = `${owner}#${name}(?)`;
    const existing = this.externals.get(qn);
    if (existing) return existing;
    const ownerId = this.externalType(owner, 'class');
    const id = this.id('symbol', `ext|${qn}`);
    this.externals.set(qn, id);
    this.stats.external_symbols++;
    this.nodes.push({
      id,
      kind: 'symbol',
      name,
      qualified_name: qn,
      source: this.input.source,
      props: { symbol_kind: name === '<init>' ? 'constructor' : 'method', package: packageGuess(owner), declaring_type: owner, resolved: false, modifiers: [], annotations: [] },
    });
    this.edge('DECLARES', ownerId, id);
    return id;
  }

  private edge(type: string, from: string, to: string, key?: string, attrs?: Record<string, PropValue>): void {
    let k = key;
    const base = `${from}\0${type}\0${to}\0`;
    if (this.edgeKeys.has(base + (k ?? ''))) {
      if (k === undefined) return;
      let n = 2;
      while (this.edgeKeys.has(`${base}${key}#${n}`)) n++;
      k = `${key}#${n}`;
    }
    this.edgeKeys.add(base + (k ?? ''));
    this.edges.push({ type, from, to, ...(k !== undefined ? { key: k } : {}), ...(attrs ? { attrs } : {}) });
  }
}

function paramsMatch(sub: MemberFacts, sup: MemberFacts): boolean {
  if (sub.params.length !== sup.params.length) return false;
  return sub.params.every((p, i) => {
    const a = simpleTypeName(p.type);
    const b = simpleTypeName(sup.params[i]!.type);
    return a === b || /^[A-Z][A-Z0-9]?(\[\])*$/.test(b) || a.split('.').pop() === b.split('.').pop();
  });
}

function annotationNames(annotations: readonly AnnotationFacts[]): string[] {
  return [...new Set(annotations.map((a) => a.name))];
}

function annotationArgs(annotations: readonly AnnotationFacts[]): unknown[] {
  return annotations.map((a) => ({ name: a.name, written: a.written, args: a.args }));
}

function packageGuess(qn: string): string {
  const parts = qn.split('.');
  const pkg: string[] = [];
  for (const p of parts.slice(0, -1)) {
    if (!/^[a-z]/.test(p)) break;
    pkg.push(p);
  }
  return pkg.join('.');
}
