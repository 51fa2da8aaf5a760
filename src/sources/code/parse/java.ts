import type { Node, Parser } from 'web-tree-sitter';
import type { AnnotationFacts, AnnotationValue, AssignFacts, CallFacts, ConstPart, Expr, FieldFacts, FileFacts, ImportFacts, MemberFacts, ParamFacts, SupertypeFacts, TypeFacts, TypeRef, VariableFacts } from './ir.js';
import { countParseErrors, emptyFacts, keepsValues, lambdaBody, lineOf, MAX_EXPR_DEPTH, MAX_TYPE_DEPTH, sharedExpr, STRING_VALUE_LIMIT, stripGenerics, tooDeep, VALUE_DEPTH, withExprMemo, withNameLine, withNestingLimits } from './common.js';
import { BodyUseRecorder, useHolder } from './uses.js';

/** Node types inside a body that never hold a call, a local or a type: the walker does not descend into them. */
const BODY_LEAVES = new Set([
  'identifier',
  'type_identifier',
  'decimal_integer_literal',
  'hex_integer_literal',
  'octal_integer_literal',
  'binary_integer_literal',
  'decimal_floating_point_literal',
  'hex_floating_point_literal',
  'true',
  'false',
  'null_literal',
  'character_literal',
  'line_comment',
  'block_comment',
  'integral_type',
  'floating_point_type',
  'boolean_type',
  'void_type',
  'this',
  'super',
]);

const TYPE_DECLARATIONS: Record<string, TypeFacts['kind']> = {
  class_declaration: 'class',
  interface_declaration: 'interface',
  enum_declaration: 'enum',
  record_declaration: 'record',
  annotation_type_declaration: 'annotation',
};
const LOMBOK_CONSTRUCTORS = new Set(['RequiredArgsConstructor', 'AllArgsConstructor']);
const ARG_TEXT_LIMIT = 200;

/** Extracts the facts of one Java file. Never throws on bad input: what parses is kept, errors are counted. */
export function extractJava(path: string, text: string, parser: Parser): FileFacts {
  const tree = parser.parse(text);
  const facts = emptyFacts(path, 'java', text);
  if (!tree) return { ...facts, parseErrors: 1 };
  try {
    const root = tree.rootNode;
    facts.parseErrors = countParseErrors(root);
    const extractor = new JavaExtractor(facts);
    withExprMemo(() => withNestingLimits(facts, () => {
      for (const child of root.namedChildren) {
        if (!child) continue;
        if (child.type === 'package_declaration') facts.package = packageName(child);
        else if (child.type === 'import_declaration') addImport(facts.imports, child.text);
        else if (child.type in TYPE_DECLARATIONS) extractor.topLevel(child);
        else if (child.type === 'ERROR') extractor.recover(child);
      }
    }));
    extractor.uses.finish();
    return facts;
  } finally {
    tree.delete();
  }
}

function packageName(node: Node): string {
  const name = node.namedChildren.find((c) => c && (c.type === 'scoped_identifier' || c.type === 'identifier'));
  return name ? name.text.replace(/\s+/g, '') : '';
}

function addImport(imports: ImportFacts, text: string): void {
  const body = text
    .replace(/^import\s+/, '')
    .replace(/;\s*$/, '')
    .replace(/\s+/g, '');
  const isStatic = /^import\s+static\s/.test(text);
  const name = isStatic ? body.replace(/^static/, '') : body;
  if (name.endsWith('.*')) {
    (isStatic ? imports.staticWildcard : imports.wildcard).push(name.slice(0, -2));
    return;
  }
  const cut = name.lastIndexOf('.');
  if (cut <= 0) return;
  if (isStatic) imports.staticSingle[name.slice(cut + 1)] = name.slice(0, cut);
  else imports.single[name.slice(cut + 1)] = name;
}

interface TypeScope {
  facts: TypeFacts;
  /** The top-level type anonymous classes are numbered under. */
  top: { qualifiedName: string; name: string; anonymous: number };
}

interface BodyScope {
  member: MemberFacts;
  type: TypeScope;
  inLambda: boolean;
}

/** Work left in a body walk: a node to visit (in a scope), or a step to take once the nodes before it are visited. */
type BodyTask = { node: Node; scope: BodyScope; type: string } | (() => void);

class JavaExtractor {
  /** Types being declared, one inside the other (member, local and anonymous classes). */
  private typeDepth = 0;
  readonly uses = new BodyUseRecorder();

  constructor(private readonly file: FileFacts) {}

  topLevel(node: Node): void {
    const name = node.childForFieldName('name')?.text ?? '';
    if (!name) return;
    const qualifiedName = this.file.package ? `${this.file.package}.${name}` : name;
    this.declareType(node, name, qualifiedName, { qualifiedName, name, anonymous: 0 }, undefined, false);
  }

  /** A top-level ERROR node can still hold whole declarations tree-sitter recovered; keep them. */
  recover(node: Node): void {
    for (const child of node.namedChildren) {
      if (child && child.type in TYPE_DECLARATIONS) this.topLevel(child);
    }
  }

  private declareType(node: Node, name: string, qualifiedName: string, top: TypeScope['top'], outer: string | undefined, local: boolean): void {
    // Declaring a type recurses (its body's members, their local and anonymous classes): bounded, deterministically.
    if (this.typeDepth >= MAX_TYPE_DEPTH) return tooDeep(node);
    this.typeDepth++;
    try {
      this.declareTypeWithin(node, name, qualifiedName, top, outer, local);
    } finally {
      this.typeDepth--;
    }
  }

  private declareTypeWithin(node: Node, name: string, qualifiedName: string, top: TypeScope['top'], outer: string | undefined, local: boolean): void {
    const kind = TYPE_DECLARATIONS[node.type]!;
    const { modifiers, annotations } = readModifiers(node);
    const facts: TypeFacts = {
      name,
      qualifiedName,
      kind,
      modifiers,
      annotations,
      supertypes: supertypesOf(node, kind),
      fields: [],
      members: [],
      line: lineOf(node),
      endLine: node.endPosition.row + 1,
    };
    if (outer) facts.outer = outer;
    if (local) facts.local = true;
    this.file.types.push(facts);
    const scope: TypeScope = { facts, top };
    if (kind === 'record') this.recordComponents(node, scope);
    const body = node.childForFieldName('body');
    if (body) this.typeBody(body, scope);
    this.synthesizeConstructor(node, scope);
  }

  private typeBody(body: Node, scope: TypeScope): void {
    // `enum_body_declarations` and ERROR nodes hold more of the same body: read in place, in order, without recursion.
    const pending: Node[] = [];
    const later = (node: Node): void => {
      const children = node.namedChildren;
      for (let i = children.length - 1; i >= 0; i--) if (children[i]) pending.push(children[i]!);
    };
    later(body);
    for (let child = pending.pop(); child; child = pending.pop()) {
      switch (child.type) {
        case 'enum_constant':
          this.enumConstant(child, scope);
          break;
        case 'enum_body_declarations':
          later(child);
          break;
        case 'field_declaration':
        case 'constant_declaration':
          this.field(child, scope);
          break;
        case 'method_declaration':
        case 'annotation_type_element_declaration':
          this.method(child, scope);
          break;
        case 'constructor_declaration':
        case 'compact_constructor_declaration':
          this.ctor(child, scope);
          break;
        case 'static_initializer':
        case 'block':
          this.initializer(child, scope);
          break;
        default:
          if (child.type in TYPE_DECLARATIONS) {
            const name = child.childForFieldName('name')?.text;
            if (name) this.declareType(child, name, `${scope.facts.qualifiedName}.${name}`, scope.top, scope.facts.qualifiedName, false);
          } else if (child.type === 'ERROR') {
            later(child);
          }
      }
    }
  }

  private enumConstant(node: Node, scope: TypeScope): void {
    const name = node.childForFieldName('name')?.text;
    if (name) (scope.facts.enumConstants ??= []).push(name);
    const body = node.childForFieldName('body');
    if (body) this.anonymous(body, { name: scope.facts.qualifiedName }, scope, undefined);
    const args = node.childForFieldName('arguments');
    const values = valueExprs(args);
    if (name && values) (scope.facts.enumArgs ??= {})[name] = values;
    if (args) this.walk(args, this.initializerScope(scope));
  }

  private field(node: Node, scope: TypeScope): void {
    const { modifiers, annotations } = readModifiers(node);
    const type = typeRef(node.childForFieldName('type'));
    if (scope.facts.kind === 'interface' || scope.facts.kind === 'annotation') {
      for (const m of ['public', 'static', 'final']) if (!modifiers.includes(m)) modifiers.push(m);
    }
    for (const declarator of node.childrenForFieldName('declarator')) {
      if (!declarator) continue;
      const name = declarator.childForFieldName('name')?.text;
      if (!name) continue;
      const dims = declarator.childForFieldName('dimensions');
      const field: FieldFacts = { name, type: dims ? { ...type, array: (type.array ?? 0) + countDims(dims) } : type, modifiers: [...modifiers], annotations, line: lineOf(declarator) };
      const value = declarator.childForFieldName('value');
      if (value) {
        field.init = toExpr(value);
        if (field.modifiers.includes('static') && field.modifiers.includes('final')) {
          const parts = constantParts(value);
          if (parts) field.constant = parts;
        }
        this.walk(value, this.initializerScope(scope));
      }
      scope.facts.fields.push(field);
    }
  }

  /** Field initializers and initializer blocks: their anonymous classes and lambdas are still types to index. */
  private initializerScope(scope: TypeScope): BodyScope {
    return { member: { name: '<clinit>', kind: 'method', params: [], modifiers: [], annotations: [], line: 0, endLine: 0, locals: [], calls: [] }, type: scope, inLambda: false };
  }

  private initializer(node: Node, scope: TypeScope): void {
    this.walk(node, this.initializerScope(scope));
  }

  private method(node: Node, scope: TypeScope): void {
    const name = node.childForFieldName('name')?.text;
    if (!name) return;
    const { modifiers, annotations } = readModifiers(node);
    const iface = scope.facts.kind === 'interface' || scope.facts.kind === 'annotation';
    if (iface) {
      if (!modifiers.includes('public') && !modifiers.includes('private')) modifiers.unshift('public');
      if (!node.childForFieldName('body') && !modifiers.includes('static') && !modifiers.includes('default')) modifiers.push('abstract');
    }
    const dims = node.childForFieldName('dimensions');
    const returnType = typeRef(node.childForFieldName('type'));
    const member: MemberFacts = {
      name,
      kind: 'method',
      params: paramsOf(node.childForFieldName('parameters')),
      returnType: dims ? { ...returnType, array: (returnType.array ?? 0) + countDims(dims) } : returnType,
      modifiers,
      annotations,
      line: lineOf(node),
      endLine: node.endPosition.row + 1,
      locals: [],
      calls: [],
    };
    withNameLine(member, node.childForFieldName('name'));
    scope.facts.members.push(member);
    const body = node.childForFieldName('body');
    if (body) this.walk(body, { member, type: scope, inLambda: false });
  }

  private ctor(node: Node, scope: TypeScope): void {
    const { modifiers, annotations } = readModifiers(node);
    const compact = node.type === 'compact_constructor_declaration';
    const params = compact ? this.recordParams(scope) : paramsOf(node.childForFieldName('parameters'));
    if (compact) {
      const canonical = scope.facts.members.findIndex((m) => m.synthetic === 'record_constructor');
      if (canonical >= 0) scope.facts.members.splice(canonical, 1);
    }
    const member: MemberFacts = { name: '<init>', kind: 'constructor', params, modifiers, annotations, line: lineOf(node), endLine: node.endPosition.row + 1, locals: [], calls: [] };
    withNameLine(member, node.childForFieldName('name'));
    scope.facts.members.push(member);
    const body = node.childForFieldName('body');
    if (body) this.walk(body, { member, type: scope, inLambda: false });
    const first = body?.namedChildren.find((c) => c && c.type !== 'line_comment' && c.type !== 'block_comment');
    if (!compact && scope.facts.kind !== 'enum' && first?.type !== 'explicit_constructor_invocation') {
      member.calls.unshift({ kind: 'super_ctor', name: '<init>', argCount: 0, args: [], line: member.line, implicit: true });
    }
    // An explicit canonical constructor replaces the synthesized one.
    if (scope.facts.kind === 'record' && !compact) {
      const sig = params.map((p) => p.type.name).join(',');
      const canonical = scope.facts.members.findIndex((m) => m.synthetic === 'record_constructor' && m.params.map((p) => p.type.name).join(',') === sig);
      if (canonical >= 0) scope.facts.members.splice(canonical, 1);
    }
  }

  private recordParams(scope: TypeScope): ParamFacts[] {
    return scope.facts.fields.filter((f) => f.modifiers.includes('final') && !f.modifiers.includes('static') && f.property === undefined).map((f) => ({ name: f.name, type: f.type!, annotations: f.annotations }));
  }

  private recordComponents(node: Node, scope: TypeScope): void {
    const params = paramsOf(node.childForFieldName('parameters'));
    const line = lineOf(node);
    for (const p of params) {
      scope.facts.fields.push({ name: p.name, type: p.type, modifiers: ['private', 'final'], annotations: p.annotations, line });
      scope.facts.members.push({ name: p.name, kind: 'method', params: [], returnType: p.type, modifiers: ['public'], annotations: [], line, endLine: line, synthetic: 'record_accessor', locals: [], calls: [] });
    }
    scope.facts.members.push({ name: '<init>', kind: 'constructor', params, modifiers: ['public'], annotations: [], line, endLine: line, synthetic: 'record_constructor', locals: [], calls: [] });
  }

  /** Records drop accessors the body declares itself; classes without constructors get the default one. */
  private synthesizeConstructor(node: Node, scope: TypeScope): void {
    const t = scope.facts;
    if (t.kind === 'record') {
      const declared = new Set(t.members.filter((o) => !o.synthetic && o.params.length === 0).map((o) => o.name));
      t.members = t.members.filter((m) => m.synthetic !== 'record_accessor' || !declared.has(m.name));
      return;
    }
    if (t.kind !== 'class' && t.kind !== 'enum') return;
    if (t.members.some((m) => m.kind === 'constructor')) return;
    if (t.annotations.some((a) => LOMBOK_CONSTRUCTORS.has(a.name)) && !t.annotations.some((a) => a.name === 'NoArgsConstructor')) return;
    const line = lineOf(node);
    const modifiers = t.kind === 'enum' ? ['private'] : t.modifiers.filter((m) => m === 'public' || m === 'protected' || m === 'private');
    const calls: CallFacts[] = t.kind === 'enum' ? [] : [{ kind: 'super_ctor', name: '<init>', argCount: 0, args: [], line, implicit: true }];
    t.members.push({ name: '<init>', kind: 'constructor', params: [], modifiers, annotations: [], line, endLine: line, synthetic: 'default_constructor', locals: [], calls });
  }

  private anonymous(body: Node, superType: TypeRef, outer: TypeScope, creation: CallFacts | undefined): void {
    if (this.typeDepth >= MAX_TYPE_DEPTH) return tooDeep(body);
    this.typeDepth++;
    try {
      this.anonymousWithin(body, superType, outer, creation);
    } finally {
      this.typeDepth--;
    }
  }

  private anonymousWithin(body: Node, superType: TypeRef, outer: TypeScope, creation: CallFacts | undefined): void {
    const top = outer.top;
    top.anonymous++;
    const name = `${top.name}$${top.anonymous}`;
    const qualifiedName = `${top.qualifiedName}$${top.anonymous}`;
    if (creation) creation.anonymous = qualifiedName;
    const facts: TypeFacts = {
      name,
      qualifiedName,
      kind: 'class',
      anonymous: true,
      outer: outer.facts.qualifiedName,
      modifiers: ['final'],
      annotations: [],
      supertypes: [{ type: superType, relation: 'unknown' }],
      fields: [],
      members: [],
      line: lineOf(body),
      endLine: body.endPosition.row + 1,
    };
    this.file.types.push(facts);
    this.typeBody(body, { facts, top });
  }

  /**
   * Walks a member body: locals, calls, lambdas; nested type declarations become types of their own. Iterative (an
   * expression can nest thousands deep): each node's children, and any step to take after them, go on a stack in
   * reverse, so nodes are visited, and facts recorded, in the order of a depth-first recursive walk.
   */
  private walk(root: Node, rootScope: BodyScope): void {
    const stack: BodyTask[] = [{ node: root, scope: rootScope, type: root.type }];
    const next: BodyTask[] = [];
    for (let task = stack.pop(); task; task = stack.pop()) {
      if (typeof task === 'function') task();
      else this.visit(task.node, task.scope, task.type, next);
      for (let i = next.length - 1; i >= 0; i--) stack.push(next[i]!);
      next.length = 0;
    }
  }

  /** One node of a body: records what it says, and adds what to walk next (its children, in order) to `next`. */
  private visit(node: Node, scope: BodyScope, type: string, next: BodyTask[]): void {
    const walk = (child: Node, in_: BodyScope = scope): void => {
      next.push({ node: child, scope: in_, type: child.type });
    };
    switch (type) {
      case 'lambda_expression': {
        const params = node.childForFieldName('parameters');
        if (params?.type === 'formal_parameters') for (const p of paramsOf(params)) scope.member.locals.push({ name: p.name, type: p.type, line: lineOf(params) });
        const body = node.childForFieldName('body');
        if (body) walk(body, { ...scope, inLambda: true });
        return;
      }
      case 'local_variable_declaration': {
        const type = typeRef(node.childForFieldName('type'));
        const inferred = type.name === 'var';
        for (const d of node.childrenForFieldName('declarator')) {
          const name = d?.childForFieldName('name')?.text;
          if (!d || !name) continue;
          const value = d.childForFieldName('value');
          const local: VariableFacts = { name, line: lineOf(d) };
          const branch = branchOf(node);
          if (branch) local.branch = branch;
          if (!inferred) local.type = type;
          if (value) local.init = toExpr(value, 0, inferred ? MAX_EXPR_DEPTH : VALUE_DEPTH);
          // After the locals of the declarators before it (and theirs), as the recursive walk had it.
          next.push(() => scope.member.locals.push(local));
          if (value) walk(value);
        }
        return;
      }
      case 'enhanced_for_statement': {
        const name = node.childForFieldName('name')?.text;
        const type = typeRef(node.childForFieldName('type'));
        if (name) scope.member.locals.push(type.name === 'var' ? { name, line: lineOf(node) } : { name, type, line: lineOf(node) });
        break;
      }
      case 'catch_formal_parameter': {
        const name = node.childForFieldName('name')?.text;
        const types = node.namedChildren.find((c) => c?.type === 'catch_type');
        const first = types?.namedChildren[0];
        if (name && first) scope.member.locals.push({ name, type: typeRef(first), line: lineOf(node) });
        break;
      }
      case 'resource': {
        const name = node.childForFieldName('name')?.text;
        const type = node.childForFieldName('type');
        if (name && type) scope.member.locals.push({ name, type: typeRef(type), line: lineOf(node) });
        break;
      }
      case 'type_pattern':
      case 'record_pattern_component': {
        const type = node.namedChildren.find((c) => c && c.type !== 'identifier' && c.type !== 'modifiers');
        const name = node.namedChildren.find((c) => c?.type === 'identifier')?.text;
        if (type && name) scope.member.locals.push({ name, type: typeRef(type), line: lineOf(node) });
        break;
      }
      case 'instanceof_expression': {
        const name = node.childForFieldName('name')?.text;
        const type = node.childForFieldName('right');
        if (name && type) scope.member.locals.push({ name, type: typeRef(type), line: lineOf(node) });
        const tested = type ?? node.childForFieldName('pattern');
        const written = tested?.type === 'record_pattern' ? tested.namedChildren.find((c) => c && c.type !== 'record_pattern_body') : tested;
        if (written) this.uses.type(useHolder(scope.member, scope.type.facts), 'i', typeRef(written));
        break;
      }
      case 'cast_expression': {
        // `(A & B) x` has a type field per bound.
        const holder = useHolder(scope.member, scope.type.facts);
        for (const type of node.childrenForFieldName('type')) if (type) this.uses.type(holder, 'c', typeRef(type));
        break;
      }
      case 'class_literal': {
        const type = node.namedChildren[0];
        if (type) this.uses.type(useHolder(scope.member, scope.type.facts), 'l', typeRef(type));
        return;
      }
      case 'array_creation_expression': {
        const type = node.childForFieldName('type');
        if (type) this.uses.type(useHolder(scope.member, scope.type.facts), 'n', typeRef(type));
        break;
      }
      case 'field_access': {
        const chain = dottedName(node);
        if (chain === undefined) break;
        this.uses.qualifier(useHolder(scope.member, scope.type.facts), chain);
        return;
      }
      case 'return_statement': {
        const value = node.namedChildren.find((c) => c && c.type !== 'line_comment' && c.type !== 'block_comment');
        if (value && !scope.inLambda) (scope.member.returns ??= []).push(guardedReturn(node, toExpr(value, 0, VALUE_DEPTH)));
        break;
      }
      case 'assignment_expression': {
        const left = node.childForFieldName('left');
        const right = node.childForFieldName('right');
        const operator = node.childForFieldName('operator')?.type;
        if (left && right && !scope.inLambda && (operator === '=' || operator === '+=')) {
          // `url += "/x"` is `url = url + "/x"`.
          const value = toExpr(right, 0, VALUE_DEPTH);
          const assign: AssignFacts = { target: toExpr(left, 0, VALUE_DEPTH), value: operator === '+=' ? { k: 'concat', parts: [toExpr(left, 0, VALUE_DEPTH), value] } : value, line: lineOf(node) };
          const branch = branchOf(node);
          if (branch) assign.branch = branch;
          (scope.member.assigns ??= []).push(assign);
        }
        break;
      }
      case 'method_invocation': {
        const object = node.childForFieldName('object');
        const argsNode = node.childForFieldName('arguments');
        const args = argumentTexts(argsNode);
        const nameNode = node.childForFieldName('name');
        const call: CallFacts = { kind: 'call', name: nameNode?.text ?? '', argCount: args.length, args, line: lineOf(nameNode ?? node) };
        const values = valueExprs(argsNode);
        if (values) call.values = values;
        if (object) call.receiver = toExpr(object);
        this.addCall(scope, call);
        // A dotted receiver is a field_access, visited below.
        if (object?.type === 'identifier') this.uses.qualifier(useHolder(scope.member, scope.type.facts), object.text);
        break;
      }
      case 'object_creation_expression': {
        const type = typeRef(node.childForFieldName('type'));
        const argsNode = node.childForFieldName('arguments');
        const args = argumentTexts(argsNode);
        const call: CallFacts = { kind: 'new', name: '<init>', type, argCount: args.length, args, line: lineOf(node) };
        const values = valueExprs(argsNode);
        if (values) call.values = values;
        this.addCall(scope, call);
        for (const child of node.namedChildren) {
          if (!child) continue;
          // The anonymous class is numbered after those in the arguments before it.
          if (child.type === 'class_body') next.push(() => this.anonymous(child, type, scope.type, call));
          else walk(child);
        }
        return;
      }
      case 'method_reference': {
        const parts = node.namedChildren.filter((c): c is Node => !!c && c.type !== 'type_arguments');
        const target = parts[0];
        const isNew = node.text.trimEnd().endsWith('::new');
        const name = isNew ? '<init>' : (parts[parts.length - 1]?.text ?? '');
        if (!target) break;
        const call: CallFacts = { kind: 'method_ref', name, argCount: -1, args: [], line: lineOf(node) };
        if (isNew) call.type = typeRef(target);
        else call.receiver = toExpr(target);
        this.addCall(scope, call);
        if (!isNew && target.type !== 'this' && target.type !== 'super') {
          const written = target.type === 'field_access' || target.type === 'identifier' ? dottedName(target) : stripGenerics(target.text);
          if (written !== undefined) this.uses.qualifier(useHolder(scope.member, scope.type.facts), written);
        }
        break;
      }
      case 'explicit_constructor_invocation': {
        const ctor = node.childForFieldName('constructor');
        const argsNode = node.childForFieldName('arguments');
        const args = argumentTexts(argsNode);
        const values = valueExprs(argsNode);
        this.addCall(scope, { kind: ctor?.type === 'this' ? 'this_ctor' : 'super_ctor', name: '<init>', argCount: args.length, args, line: lineOf(node), ...(values ? { values } : {}) });
        break;
      }
      default:
        if (type in TYPE_DECLARATIONS) {
          const name = node.childForFieldName('name')?.text;
          if (name) this.declareType(node, name, `${scope.type.facts.qualifiedName}.${name}`, scope.type.top, scope.type.facts.qualifiedName, true);
          return;
        }
    }
    // Each child's type is read once here; leaves (names, literals, comments) hold nothing to record.
    for (const child of node.namedChildren) {
      if (!child) continue;
      const childType = child.type;
      if (!BODY_LEAVES.has(childType)) next.push({ node: child, scope, type: childType });
    }
  }

  private addCall(scope: BodyScope, call: CallFacts): void {
    if (scope.inLambda) call.inLambda = true;
    scope.member.calls.push(call);
  }
}

/** `a.b.C` written as names only (an identifier, or field accesses on one), else undefined (`this.x`, `f().x`). */
function dottedName(node: Node): string | undefined {
  let text = '';
  let n: Node | null = node;
  for (let depth = 0; n && depth < MAX_EXPR_DEPTH; depth++) {
    if (n.type === 'identifier') return n.text + text;
    if (n.type !== 'field_access') return undefined;
    const field = n.childForFieldName('field');
    if (field?.type !== 'identifier') return undefined;
    text = `.${field.text}${text}`;
    n = n.childForFieldName('object');
  }
  return undefined;
}

function readModifiers(node: Node): { modifiers: string[]; annotations: AnnotationFacts[] } {
  const modifiers: string[] = [];
  const annotations: AnnotationFacts[] = [];
  // `modifiers` comes first when present (after any comment): no need to marshal every child to find it.
  let mods = node.firstNamedChild;
  while (mods && (mods.type === 'line_comment' || mods.type === 'block_comment')) mods = mods.nextNamedSibling;
  if (!mods || mods.type !== 'modifiers') return { modifiers, annotations };
  for (const child of mods.children) {
    if (!child) continue;
    if (child.type === 'annotation' || child.type === 'marker_annotation') annotations.push(readAnnotation(child));
    else if (!child.isNamed || child.type === 'line_comment' || child.type === 'block_comment') {
      if (!child.isNamed) modifiers.push(child.type);
    }
  }
  return { modifiers, annotations };
}

export function readAnnotation(node: Node): AnnotationFacts {
  const written = (node.childForFieldName('name')?.text ?? '').replace(/\s+/g, '');
  const annotation: AnnotationFacts = { name: written.slice(written.lastIndexOf('.') + 1), written, args: {}, line: lineOf(node) };
  const list = node.childForFieldName('arguments');
  if (!list) return annotation;
  for (const arg of list.namedChildren) {
    if (!arg || arg.type === 'line_comment' || arg.type === 'block_comment') continue;
    if (arg.type === 'element_value_pair') {
      const key = arg.childForFieldName('key')?.text;
      const value = arg.childForFieldName('value');
      if (key && value) annotation.args[key] = annotationValues(value);
    } else {
      annotation.args['value'] = annotationValues(arg);
    }
  }
  return annotation;
}

/** The values of an annotation argument, arrays (nested ones too) flattened in order. */
function annotationValues(node: Node): AnnotationValue[] {
  const out: AnnotationValue[] = [];
  const pending: Node[] = [node];
  for (let n = pending.pop(); n; n = pending.pop()) {
    if (n.type !== 'element_value_array_initializer') {
      out.push(annotationValue(n));
      continue;
    }
    const children = n.namedChildren;
    for (let i = children.length - 1; i >= 0; i--) {
      const c = children[i];
      if (c && c.type !== 'line_comment' && c.type !== 'block_comment') pending.push(c);
    }
  }
  return out;
}

function annotationValue(node: Node): AnnotationValue {
  const text = node.text;
  switch (node.type) {
    case 'string_literal':
    case 'text_block': {
      const value = stringLiteralValue(node);
      return value === undefined ? { kind: 'expr', text } : { kind: 'string', text, value };
    }
    case 'identifier':
    case 'field_access':
    case 'scoped_identifier':
      return { kind: 'ref', text: text.replace(/\s+/g, '') };
    case 'class_literal':
      return { kind: 'class', text, value: stripGenerics(text.replace(/\.class$/, '')) };
    case 'true':
    case 'false':
      return { kind: 'boolean', text, value: text };
    case 'annotation':
    case 'marker_annotation':
      return { kind: 'annotation', text, annotation: readAnnotation(node) };
    default: {
      if (/_literal$/.test(node.type)) return { kind: 'number', text, value: text };
      const parts = constantParts(node);
      return parts ? { kind: 'expr', text, parts } : { kind: 'expr', text };
    }
  }
}

/**
 * `"/a" + Paths.B + ("/" + C)` → its parts; undefined for anything else (a call, a ternary, arithmetic). Iterative:
 * a generated constant can concatenate thousands of pieces (a left-deep tree as deep).
 */
function constantParts(node: Node): ConstPart[] | undefined {
  const parts: ConstPart[] = [];
  const pending: Node[] = [node];
  for (let n = pending.pop(); n; n = pending.pop()) {
    switch (n.type) {
      case 'string_literal': {
        const value = stringLiteralValue(n);
        if (value === undefined) return undefined;
        parts.push({ s: value });
        break;
      }
      case 'identifier':
      case 'field_access':
      case 'scoped_identifier':
        parts.push({ ref: n.text.replace(/\s+/g, '') });
        break;
      case 'parenthesized_expression': {
        const inner = n.namedChildren.find((c) => c && c.type !== 'line_comment' && c.type !== 'block_comment');
        if (!inner) return undefined;
        pending.push(inner);
        break;
      }
      case 'binary_expression': {
        if (n.childForFieldName('operator')?.type !== '+') return undefined;
        const left = n.childForFieldName('left');
        const right = n.childForFieldName('right');
        if (!left || !right) return undefined;
        pending.push(right, left);
        break;
      }
      default:
        return undefined;
    }
  }
  return parts;
}

function stringLiteralValue(node: Node): string | undefined {
  // tree-sitter-java reads a text block as a string_literal of `"""` and a multiline_string_fragment.
  if (node.type === 'text_block' || node.text.startsWith('"""')) return textBlockValue(node.text);
  let out = '';
  for (const part of node.namedChildren) {
    if (!part) continue;
    if (part.type === 'string_fragment') out += part.text;
    else if (part.type === 'escape_sequence') out += unescape(part.text);
    else return undefined;
  }
  return out;
}

function unescape(seq: string): string {
  const map: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', s: ' ', '"': '"', "'": "'", '\\': '\\' };
  if (seq.startsWith('\\u')) return String.fromCharCode(parseInt(seq.slice(2).replace(/^u+/, ''), 16));
  return map[seq.slice(1)] ?? seq.slice(1);
}

function supertypesOf(node: Node, kind: TypeFacts['kind']): SupertypeFacts[] {
  const out: SupertypeFacts[] = [];
  const superclass = node.childForFieldName('superclass');
  if (superclass) for (const t of superclass.namedChildren) if (t) out.push({ type: typeRef(t), relation: 'extends' });
  const interfaces = node.childForFieldName('interfaces');
  const list = (n: Node | null | undefined, relation: SupertypeFacts['relation']): void => {
    const typeList = n?.namedChildren.find((c) => c?.type === 'type_list');
    for (const t of typeList?.namedChildren ?? []) if (t) out.push({ type: typeRef(t), relation });
  };
  list(interfaces, 'implements');
  // `interface A extends B, C` — for an interface, `extends` names interfaces.
  list(
    node.namedChildren.find((c) => c?.type === 'extends_interfaces'),
    kind === 'interface' ? 'extends' : 'implements',
  );
  return out;
}

function paramsOf(node: Node | null): ParamFacts[] {
  if (!node) return [];
  const out: ParamFacts[] = [];
  for (const p of node.namedChildren) {
    if (!p) continue;
    if (p.type === 'formal_parameter') {
      const name = p.childForFieldName('name')?.text ?? '';
      const dims = p.childForFieldName('dimensions');
      const type = typeRef(p.childForFieldName('type'));
      out.push({ name, type: dims ? { ...type, array: (type.array ?? 0) + countDims(dims) } : type, annotations: readModifiers(p).annotations });
    } else if (p.type === 'spread_parameter') {
      const typeNode = p.namedChildren.find((c) => c && c.type !== 'modifiers' && c.type !== 'variable_declarator');
      const declarator = p.namedChildren.find((c) => c?.type === 'variable_declarator');
      const type = typeRef(typeNode ?? null);
      out.push({ name: declarator?.childForFieldName('name')?.text ?? '', type: { ...type, array: (type.array ?? 0) + 1 }, annotations: readModifiers(p).annotations, varargs: true });
    }
  }
  return out;
}

function countDims(node: Node): number {
  return (node.text.match(/\[/g) ?? []).length;
}

/** A type as written; type arguments nested deeper than MAX_EXPR_DEPTH are left out. */
export function typeRef(node: Node | null | undefined, depth = 0): TypeRef {
  if (!node) return { name: '?' };
  if (depth > MAX_EXPR_DEPTH) {
    tooDeep(node);
    return { name: stripGenerics(node.text) };
  }
  switch (node.type) {
    case 'generic_type': {
      const head = node.namedChildren.find((c) => c && c.type !== 'type_arguments');
      const args = node.namedChildren.find((c) => c?.type === 'type_arguments');
      const ref: TypeRef = { name: head ? stripGenerics(head.text) : '?' };
      const list = args?.namedChildren.filter((c): c is Node => !!c && c.type !== 'annotation' && c.type !== 'marker_annotation').map((c) => typeArg(c, depth + 1)) ?? [];
      if (list.length) ref.args = list;
      return ref;
    }
    case 'array_type': {
      const element = typeRef(node.childForFieldName('element'), depth + 1);
      const dims = node.childForFieldName('dimensions');
      return { ...element, array: (element.array ?? 0) + (dims ? countDims(dims) : 1) };
    }
    case 'annotated_type': {
      const inner = node.namedChildren.find((c) => c && c.type !== 'annotation' && c.type !== 'marker_annotation');
      return typeRef(inner, depth + 1);
    }
    default:
      return { name: stripGenerics(node.text) };
  }
}

function typeArg(node: Node, depth: number): TypeRef {
  if (node.type === 'wildcard') {
    const bound = node.namedChildren.find((c) => c && c.type !== 'super' && c.type !== 'extends' && c.type !== 'annotation' && c.type !== 'marker_annotation');
    return bound && /extends/.test(node.text) ? typeRef(bound, depth) : { name: '?' };
  }
  return typeRef(node, depth);
}

function argumentTexts(node: Node | null): string[] {
  if (!node) return [];
  const out: string[] = [];
  for (const a of node.namedChildren) {
    if (!a || a.type === 'line_comment' || a.type === 'block_comment') continue;
    const text = a.text;
    out.push(text.length > ARG_TEXT_LIMIT ? text.slice(0, ARG_TEXT_LIMIT) : text);
  }
  return out;
}

const LITERAL_TYPES: Record<string, Extract<Expr, { k: 'literal' }>['type']> = {
  string_literal: 'String',
  text_block: 'String',
  decimal_integer_literal: 'int',
  hex_integer_literal: 'int',
  octal_integer_literal: 'int',
  binary_integer_literal: 'int',
  decimal_floating_point_literal: 'double',
  hex_floating_point_literal: 'double',
  true: 'boolean',
  false: 'boolean',
  character_literal: 'char',
  null_literal: 'null',
};

/**
 * A receiver or value expression; what is nested deeper than `limit` is `other` (its text). Only the receiver limit
 * (MAX_EXPR_DEPTH) is reported as deep nesting; value expressions stop quietly at VALUE_DEPTH.
 */
export function toExpr(node: Node, depth = 0, limit = MAX_EXPR_DEPTH): Expr {
  return sharedExpr(node, depth, limit, toExprUncached);
}

function toExprUncached(node: Node, depth: number, limit: number): Expr {
  if (depth > limit) {
    if (limit === MAX_EXPR_DEPTH) tooDeep(node);
    return otherExpr(node);
  }
  const sub = (n: Node): Expr => toExpr(n, depth + 1, limit);
  switch (node.type) {
    case 'lambda_expression':
      return lambdaExpr(node, (n) => lambdaBody(n, toExpr));
    case 'this':
      return { k: 'this' };
    case 'super':
      return { k: 'super' };
    case 'identifier':
      return { k: 'name', name: node.text };
    case 'field_access': {
      const object = node.childForFieldName('object');
      const field = node.childForFieldName('field')?.text ?? '';
      if (object && (object.type === 'this' || object.type === 'super') && field === '') return sub(object);
      if (node.namedChildren.some((c) => c?.type === 'super') && object && object.type !== 'super') return { k: 'super', qualifier: object.text };
      return object ? { k: 'field', of: sub(object), name: field } : { k: 'name', name: field };
    }
    case 'scoped_identifier': {
      const scope = node.childForFieldName('scope');
      const name = node.childForFieldName('name')?.text ?? '';
      return scope ? { k: 'field', of: sub(scope), name } : { k: 'name', name };
    }
    case 'method_invocation': {
      const object = node.childForFieldName('object');
      const args = argumentNodes(node.childForFieldName('arguments'));
      const call: Expr = { k: 'call', name: node.childForFieldName('name')?.text ?? '', argCount: args.length };
      if (object) call.of = sub(object);
      if (args.length && keepsValues(depth)) call.args = args.map((a) => toExpr(a, depth + 1, Math.min(limit, VALUE_DEPTH)));
      return call;
    }
    case 'object_creation_expression': {
      const args = argumentNodes(node.childForFieldName('arguments'));
      const created: Expr = { k: 'new', type: typeRef(node.childForFieldName('type')) };
      if (args.length && keepsValues(depth)) created.args = args.map((a) => toExpr(a, depth + 1, Math.min(limit, VALUE_DEPTH)));
      return created;
    }
    case 'parenthesized_expression': {
      const inner = node.namedChildren[0];
      return inner ? sub(inner) : otherExpr(node);
    }
    case 'cast_expression': {
      const value = node.childForFieldName('value');
      const cast: Expr = { k: 'cast', type: typeRef(node.childForFieldName('type')) };
      if (value && depth < VALUE_DEPTH) cast.of = sub(value);
      return cast;
    }
    case 'class_literal':
      return { k: 'class_literal', type: typeRef(node.namedChildren[0]) };
    case 'unary_expression': {
      const operand = node.childForFieldName('operand');
      return node.childForFieldName('operator')?.type === '!' && operand && depth < VALUE_DEPTH ? { k: 'test', op: '!', args: [sub(operand)] } : otherExpr(node);
    }
    case 'ternary_expression': {
      const options = [node.childForFieldName('consequence'), node.childForFieldName('alternative')].filter((n): n is Node => !!n);
      return depth < VALUE_DEPTH ? { k: 'cond', options: options.map(sub) } : otherExpr(node);
    }
    case 'binary_expression': {
      const op = node.childForFieldName('operator')?.type;
      if ((op === '==' || op === '!=' || op === '&&' || op === '||') && depth < VALUE_DEPTH) {
        const left = node.childForFieldName('left');
        const right = node.childForFieldName('right');
        return left && right ? { k: 'test', op, args: [sub(left), sub(right)] } : otherExpr(node);
      }
      if (op !== '+' || depth >= VALUE_DEPTH) return otherExpr(node);
      // A left-deep chain of thousands of `+` (a generated constant) is one flat list, not a deep tree.
      const parts: Expr[] = [];
      const pending: Node[] = [node];
      for (let n = pending.pop(); n; n = pending.pop()) {
        const operator = n.type === 'binary_expression' ? n.childForFieldName('operator')?.type : undefined;
        const left = n.childForFieldName('left');
        const right = n.childForFieldName('right');
        if (operator === '+' && left && right && parts.length + pending.length < 10_000) pending.push(right, left);
        else parts.push(sub(n));
      }
      return { k: 'concat', parts };
    }
    case 'string_literal':
    case 'text_block': {
      const value = node.type === 'text_block' ? textBlockValue(node.text) : stringLiteralValue(node);
      return value === undefined ? { k: 'literal', type: 'String' } : { k: 'literal', type: 'String', value: value.slice(0, STRING_VALUE_LIMIT) };
    }
    default: {
      const literal = LITERAL_TYPES[node.type];
      if (literal) return literal === 'int' || literal === 'long' || literal === 'double' || literal === 'boolean' ? { k: 'literal', type: literal, value: node.text } : { k: 'literal', type: literal };
      return otherExpr(node);
    }
  }
}

/** The `if` branches a statement sits in within its method (`<if start>t` / `<if start>e`, outermost first). */
function branchOf(node: Node): string | undefined {
  const path: string[] = [];
  for (let child: Node = node, parent = node.parent; parent; child = parent, parent = parent.parent) {
    const t = parent.type;
    if (t === 'method_declaration' || t === 'constructor_declaration' || t === 'lambda_expression' || t === 'class_body') break;
    if (t !== 'if_statement') continue;
    if (parent.childForFieldName('consequence')?.id === child.id) path.push(`${parent.startIndex}t`);
    else if (parent.childForFieldName('alternative')?.id === child.id) path.push(`${parent.startIndex}e`);
  }
  return path.length ? path.reverse().join('/') : undefined;
}

/** Up to this many enclosing `if`s guard a returned value; deeper ones are left out (the value may then be one more). */
const MAX_GUARDS = 4;

/** A returned value with the conditions of the `if` statements it sits in (`else`: the condition negated). */
function guardedReturn(node: Node, value: Expr): Expr {
  const guards: Expr[] = [];
  for (let child: Node = node, parent = node.parent; parent && guards.length < MAX_GUARDS; child = parent, parent = parent.parent) {
    const t = parent.type;
    if (t === 'method_declaration' || t === 'constructor_declaration' || t === 'lambda_expression' || t === 'class_body') break;
    if (t !== 'if_statement') continue;
    const condition = parent.childForFieldName('condition');
    if (!condition) continue;
    const test = toExpr(condition, 0, VALUE_DEPTH);
    if (parent.childForFieldName('consequence')?.id === child.id) guards.push(test);
    else if (parent.childForFieldName('alternative')?.id === child.id) guards.push({ k: 'test', op: '!', args: [test] });
  }
  if (!guards.length) return value;
  const when = guards.reduce((a, b) => ({ k: 'test', op: '&&', args: [b, a] }));
  return { k: 'guarded', when, value };
}

function otherExpr(node: Node): Expr {
  const text = node.text;
  return { k: 'other', text: text.length > ARG_TEXT_LIMIT ? text.slice(0, ARG_TEXT_LIMIT) : text };
}

function argumentNodes(node: Node | null): Node[] {
  return node ? node.namedChildren.filter((c): c is Node => !!c && c.type !== 'line_comment' && c.type !== 'block_comment') : [];
}

/** A call's arguments as value expressions. */
function valueExprs(node: Node | null): Expr[] | undefined {
  const args = argumentNodes(node);
  return args.length ? args.map((a) => toExpr(a, 0, VALUE_DEPTH)) : undefined;
}

/** A text block's content: the lines after the opening quotes, their common indentation removed. */
function textBlockValue(text: string): string | undefined {
  const body = /^"""[ \t\f]*\r?\n([\s\S]*)"""$/.exec(text)?.[1];
  if (body === undefined || body.includes('\\')) return undefined;
  const lines = body.split(/\r?\n/);
  const indents = lines.filter((l, i) => l.trim() !== '' || i === lines.length - 1).map((l) => /^[ \t]*/.exec(l)![0].length);
  const cut = indents.length ? Math.min(...indents) : 0;
  return lines.map((l) => l.slice(cut).replace(/[ \t]+$/, '')).join('\n');
}

/** A lambda as a value: its parameter names and the expression it returns (its body, or a block's last `return`); nested too deep, its text. */
function lambdaExpr(node: Node, read: (n: Node) => Expr | undefined): Expr {
  const declared = node.childForFieldName('parameters');
  const params = !declared ? [] : declared.type === 'identifier' ? [declared.text] : declared.namedChildren.map((c) => (c?.type === 'identifier' ? c.text : (c?.childForFieldName('name')?.text ?? ''))).filter((n) => n !== '');
  const body = node.childForFieldName('body');
  if (!body) return otherExpr(node);
  const returned = body.type === 'block' ? body.namedChildren.filter((c): c is Node => c?.type === 'return_statement').pop() : undefined;
  const value = body.type !== 'block' ? body : returned?.namedChildren.find((c) => c && c.type !== 'line_comment' && c.type !== 'block_comment');
  const expr = value ? read(value) : undefined;
  if (value && !expr) return otherExpr(node);
  return { k: 'lambda', params, ...(expr ? { body: expr } : {}), line: lineOf(value ?? returned ?? body), from: lineOf(node), to: node.endPosition.row + 1 };
}
