import { rewriteMultiDollarStrings } from './kotlin-strings.js';
import type { Node, Parser, Tree } from 'web-tree-sitter';
import type { AnnotationFacts, AnnotationValue, CallFacts, Expr, FieldFacts, FileFacts, ImportFacts, MemberFacts, ParamFacts, SupertypeFacts, TypeFacts, TypeRef, VariableFacts } from './ir.js';
import { countParseErrors, emptyFacts, keepsValues, lambdaBody, lineOf, MAX_EXPR_DEPTH, MAX_TYPE_DEPTH, sharedExpr, STRING_VALUE_LIMIT, stripGenerics, tooDeep, VALUE_DEPTH, withExprMemo, withNameLine, withNestingLimits } from './common.js';
import { BodyUseRecorder, useHolder } from './uses.js';

/**
 * Kotlin extraction, in the JVM view Java code has of it: a file's top-level functions and properties sit on a
 * `<File>Kt` facade class, properties are fields plus `getX`/`setX` accessors, extension functions take their
 * receiver as a first `$receiver` parameter, and the primary constructor is a constructor. Calls and locals are
 * kept as written (`Foo(1)` is a call of `Foo`; the resolver knows which names are types).
 */

const ARG_TEXT_LIMIT = 200;
const TYPE_NODES = new Set(['user_type', 'nullable_type', 'non_nullable_type', 'parenthesized_type', 'function_type', 'dynamic']);
const TYPE = Symbol('type');

/** `node.type` crosses into wasm on every read, and the extractor reads it often: it is kept on the node. */
function ty(node: Node): string {
  const slot = node as unknown as Record<symbol, string | undefined>;
  return (slot[TYPE] ??= node.type);
}

const COMMENTS = new Set(['line_comment', 'block_comment']);
const LEAVES = new Set([
  'identifier', 'string_content', 'escape_sequence', 'number_literal', 'float_literal', 'character_literal', 'label', 'line_comment', 'block_comment',
  'this_expression', 'super_expression', 'type_arguments', 'type_test', 'modifiers', 'annotation', ...TYPE_NODES,
]);
/** Property modifiers that carry over to the accessors Java sees. */
const ACCESSOR_MODIFIERS = new Set(['override', 'open', 'abstract', 'final', 'inline', 'external', 'expect', 'actual']);
const ARRAY_OF = /^(array|intArray|longArray|shortArray|byteArray|charArray|booleanArray|floatArray|doubleArray)Of$/;

/** Extracts the facts of one Kotlin file. Never throws on bad input: what parses is kept, errors are counted. */
export function extractKotlin(path: string, source: string, parser: Parser): FileFacts {
  const facts = emptyFacts(path, 'kotlin', source);
  const text = rewriteMultiDollarStrings(source);
  return withNestingLimits(facts, () => extractKotlinFacts(facts, path, text, parser));
}

function extractKotlinFacts(facts: FileFacts, path: string, text: string, parser: Parser): FileFacts {
  const extractor = new KotlinExtractor(facts, path);
  const whole = parse(parser, text);
  if (whole) extractTree(parser, text, whole, extractor);
  else {
    // Parsing gave up (see PARSE_BUDGET_MS): each top-level declaration is parsed on its own, so only the one
    // the grammar cannot get through is lost. Lines stay where they were (each piece is preceded by newlines).
    const deadline = performance.now() + 2 * parseBudget(text);
    for (const piece of topLevelPieces(text)) {
      const padded = '\n'.repeat(piece.line) + text.slice(piece.from, piece.to);
      const tree = performance.now() < deadline ? parse(parser, padded) : null;
      if (tree) extractTree(parser, padded, tree, extractor);
      else facts.parseErrors++;
    }
  }
  try {
    extractor.finish();
  } catch {
    // Nothing more to add.
  }
  return facts;
}

/** Extracts one parsed tree (the file, or a piece of it) into the file's facts, then frees the tree. */
function extractTree(parser: Parser, text: string, tree: Tree, extractor: KotlinExtractor): void {
  let current = tree;
  try {
    extractor.misread = new Map();
    try {
      const fixed = reparseMisreadAnnotations(parser, text, current);
      if (fixed) {
        current.delete();
        current = fixed.tree;
        extractor.misread = fixed.annotations;
      }
    } catch {
      // Keep the first reading.
    }
    const root = current.rootNode;
    extractor.file.parseErrors += countParseErrors(root);
    withExprMemo(() => {
      try {
        // When recovery fails badly the root itself is the ERROR node.
        if (ty(root) === 'ERROR') extractor.recover(root, undefined);
        else for (const child of root.namedChildren) extractor.topLevel(child);
      } catch {
        // A shape this extractor did not foresee: keep what was extracted before it.
      }
    });
  } finally {
    current.delete();
  }
}

/**
 * Parse time allowed before giving up. On some broken input the grammar's error recovery takes seconds or
 * minutes (one stray character before a long chain of lambdas); ordinary code parses in a few milliseconds.
 */
const PARSE_BUDGET_MS = 1000;

function parseBudget(text: string): number {
  return PARSE_BUDGET_MS + text.length / 1000;
}

/** A tree, or null when the text could not be parsed within its budget (the parser is then reset). */
function parse(parser: Parser, text: string): Tree | null {
  // The grammar's scanner loops forever on an annotation that runs into the end of the file (`val x = 1\n@A`):
  // it skips to the next whitespace, which never comes (and no budget can stop it). A final newline ends that skip.
  const source = text.endsWith('\n') ? text : `${text}\n`;
  const started = performance.now();
  const budget = parseBudget(source);
  let tree: Tree | null = null;
  try {
    tree = parser.parse(source, null, { progressCallback: () => performance.now() - started > budget });
  } catch {
    tree = null;
  }
  // A cancelled parse would otherwise resume on the next call, whatever its text.
  if (!tree) parser.reset();
  return tree;
}

/** Where each top-level declaration starts (with the annotations and comments just before it), and ends. */
function topLevelPieces(text: string): { from: number; to: number; line: number }[] {
  const starts: { from: number; line: number }[] = [];
  let offset = 0;
  let line = 0;
  let attached = false;
  for (const content of text.split('\n')) {
    const head = /^(@|import\b|package\b)/.test(content) || DECLARATION_START.test(content);
    if (head && !attached) starts.push({ from: offset, line });
    attached = head && content.startsWith('@');
    offset += content.length + 1;
    line++;
  }
  if (starts.length === 0 || starts[0]!.from > 0) starts.unshift({ from: 0, line: 0 });
  return starts.map((s, i) => ({ ...s, to: i + 1 < starts.length ? starts[i + 1]!.from : text.length }));
}

const DECLARATION_NODES = new Set(['class_declaration', 'object_declaration', 'function_declaration', 'property_declaration', 'type_alias', 'import', 'package_header', 'file_annotation']);
const DECLARATION_START =
  /^(?:(?:public|private|internal|protected|open|abstract|final|sealed|data|enum|annotation|inner|value|inline|expect|actual|external|const|lateinit|override|suspend|tailrec|operator|infix|companion|fun)\s+)*(?:class|interface|object|fun|val|var|typealias)\b/;

/**
 * At the top level the grammar sometimes reads `@A @B("x")\nannotation class X` (or `enum class`, or even a plain
 * class, depending on what follows in the file) as an annotated expression, losing the declaration or its
 * annotations. Such a file is parsed again with those annotations blanked out (same length, same lines), and the
 * annotations, read from a snippet of their own, are handed to the declaration they precede (keyed by its offset).
 */
function reparseMisreadAnnotations(parser: Parser, text: string, tree: Tree): { tree: Tree; annotations: Map<number, AnnotationFacts[]> } | undefined {
  const root = tree.rootNode;
  if (ty(root) === 'ERROR') return undefined;
  const found: { spans: [number, number][]; declaration: number }[] = [];
  for (const node of root.namedChildren) {
    if (DECLARATION_NODES.has(ty(node)) || text[node.startIndex] !== '@') continue;
    const spans = annotationSpans(text, node.startIndex);
    if (spans.length === 0) continue;
    const declaration = skipBlank(text, spans[spans.length - 1]![1]);
    if (DECLARATION_START.test(text.slice(declaration, declaration + 200))) found.push({ spans, declaration });
  }
  if (found.length === 0) return undefined;
  let blanked = text;
  for (const { spans } of found) {
    for (const [from, to] of spans) blanked = blanked.slice(0, from) + text.slice(from, to).replace(/[^\r\n]/g, ' ') + blanked.slice(to);
  }
  const again = parse(parser, blanked);
  if (!again) return undefined;
  if (countParseErrors(again.rootNode) > countParseErrors(root)) {
    again.delete();
    return undefined;
  }
  try {
    const annotations = new Map<number, AnnotationFacts[]>();
    for (const { spans, declaration } of found) {
      const from = spans[0]![0];
      const to = spans[spans.length - 1]![1];
      const line = text.slice(0, from).split('\n').length - 1;
      const snippet = parse(parser, `${'\n'.repeat(line)}${text.slice(from, to)}\nclass Sextant`);
      if (!snippet) continue;
      try {
        const declared = snippet.rootNode.namedChildren.find((c) => ty(c) === 'class_declaration');
        const mods = readModifiers(declared?.namedChildren.find((c) => ty(c) === 'modifiers'));
        if (mods.annotations.length > 0) annotations.set(declaration, mods.annotations);
      } finally {
        snippet.delete();
      }
    }
    return { tree: again, annotations };
  } catch (error) {
    again.delete();
    throw error;
  }
}

/** Where the annotations written from `at` on are: `@Name`, `@target:Name`, `@[A B]`, each with its `(…)`. */
function annotationSpans(text: string, at: number): [number, number][] {
  const spans: [number, number][] = [];
  let i = skipBlank(text, at);
  while (text[i] === '@') {
    const start = i;
    i++;
    const target = /^[a-z]+:(?!:)/.exec(text.slice(i, i + 20));
    if (target) i += target[0].length;
    if (text[i] === '[') i = skipBalanced(text, i, '[', ']');
    else {
      const name = /^[\w`.]+/.exec(text.slice(i, i + 500));
      if (!name) return spans;
      i += name[0].length;
      if (text[i] === '<') i = skipBalanced(text, i, '<', '>');
      if (text[i] === '(') i = skipBalanced(text, i, '(', ')');
    }
    spans.push([start, i]);
    i = skipBlank(text, i);
  }
  return spans;
}

/** Past whitespace and comments. */
function skipBlank(text: string, at: number): number {
  let i = at;
  for (;;) {
    while (i < text.length && /\s/.test(text[i]!)) i++;
    if (text.startsWith('//', i)) {
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end;
    } else if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
    } else return i;
  }
}

/** Past a bracketed group starting at `at`, skipping string and character literals inside. */
function skipBalanced(text: string, at: number, open: string, close: string): number {
  let depth = 0;
  let i = at;
  while (i < text.length) {
    const ch = text[i]!;
    if (text.startsWith('"""', i)) {
      const end = text.indexOf('"""', i + 3);
      i = end < 0 ? text.length : end + 3;
      continue;
    }
    if (ch === '"' || ch === "'") {
      i++;
      while (i < text.length && text[i] !== ch && text[i] !== '\n') i += text[i] === '\\' ? 2 : 1;
      i++;
      continue;
    }
    if (ch === open) depth++;
    else if (ch === close && --depth === 0) return i + 1;
    i++;
  }
  return text.length;
}

function addImport(imports: ImportFacts, node: Node): void {
  let name = '';
  let alias: string | undefined;
  let wildcard = false;
  let afterAs = false;
  for (const c of node.children) {
    if (ty(c) === 'qualified_identifier' || (ty(c) === 'identifier' && !afterAs && !name)) name = ident(c);
    else if (ty(c) === 'as') afterAs = true;
    else if (ty(c) === 'identifier' && afterAs) alias = ident(c);
    else if (ty(c) === '*') wildcard = true;
  }
  if (!name) return;
  if (wildcard) {
    imports.wildcard.push(name);
    return;
  }
  imports.single[alias ?? name.slice(name.lastIndexOf('.') + 1)] = name;
}

/** An identifier or dotted name as written, without backticks and whitespace. */
function ident(node: Node | null | undefined): string {
  return node ? node.text.replace(/[`\s]/g, '') : '';
}

function cut(text: string): string {
  return text.length > ARG_TEXT_LIMIT ? text.slice(0, ARG_TEXT_LIMIT) : text;
}

function endLineOf(node: Node): number {
  return node.endPosition.row + 1;
}

/** `billing-utils.kt` → `Billing_utilsKt`, as kotlinc names a file facade. */
function facadeName(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1).replace(/\.kts?$/, '');
  const safe = base.replace(/[^A-Za-z0-9_$]/g, '_');
  return `${safe.charAt(0).toUpperCase()}${safe.slice(1)}Kt`;
}

function capitalize(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

/** `isActive` → `isActive`, `name` → `getName`. */
function getterName(property: string): string {
  return /^is[A-Z]/.test(property) ? property : `get${capitalize(property)}`;
}

/** `isActive` → `setActive`, `name` → `setName`. */
function setterName(property: string): string {
  return /^is[A-Z]/.test(property) ? `set${property.slice(2)}` : `set${capitalize(property)}`;
}

interface Top {
  qualifiedName: string;
  name: string;
  anonymous: number;
}

type Role = 'class' | 'enum' | 'interface' | 'annotation' | 'object' | 'facade' | 'anonymous';

interface TypeScope {
  facts: TypeFacts;
  /** The top-level type (or the file facade) anonymous objects are numbered under. */
  top: Top;
  role: Role;
  /** Where property initializers and `init` blocks go: the primary (or default) constructor, else a throwaway. */
  init: BodyScope;
  /** Class with secondary constructors only: initializer facts wait here for the first of them. */
  pendingInit?: MemberFacts;
  firstSecondary?: MemberFacts;
}

/** What a type declaration is made of; a declaration tree-sitter flattened into an ERROR node has some of it. */
interface TypeShape {
  nodeType: string;
  mods: Node | undefined;
  /** Its keyword tokens (`class`, `interface`, `object`, `companion`). */
  keywords: Set<string>;
  specifiers: Node | undefined;
  primary: Node | undefined;
  body: Node[];
  at: Node;
  endLine: number;
  /** Annotations written before it that the grammar read apart from it. */
  misread?: AnnotationFacts[] | undefined;
}

interface BodyScope {
  member: MemberFacts;
  type: TypeScope;
  inLambda: boolean;
}

/** Work left in a body walk: a node to visit (in a scope), or a step to take once the nodes before it are visited. */
type BodyTask = { node: Node; scope: BodyScope } | (() => void);
/** Adds a node to walk after what the current node has added before it. */
type Later = (node: Node, scope: BodyScope) => void;

interface Modifiers {
  visibility?: string;
  /** Every other modifier keyword, as written. */
  written: string[];
  annotations: AnnotationFacts[];
}

function newMember(name: string, kind: MemberFacts['kind'], line: number, endLine: number): MemberFacts {
  return { name, kind, params: [], modifiers: [], annotations: [], line, endLine, locals: [], calls: [] };
}

class KotlinExtractor {
  private jvmName: string | undefined;
  private facade: TypeScope | undefined;
  /** The top-level type just declared, when tree-sitter left its body out (an ERROR node may follow with it). */
  private bodiless: TypeScope | undefined;
  /** Local and anonymous types of top-level functions: listed after the facade, which comes last. */
  private readonly facadeTypes: TypeFacts[] = [];

  /** Annotations the grammar misread, by the offset of the top-level declaration they belong to (in this tree). */
  misread = new Map<number, AnnotationFacts[]>();
  /** Types (and ERROR nodes pieced back into types) being read, one inside the other. */
  private typeDepth = 0;
  private readonly uses = new BodyUseRecorder();

  constructor(
    readonly file: FileFacts,
    private readonly path: string,
  ) {}

  topLevel(node: Node): void {
    const host = this.bodiless;
    this.bodiless = undefined;
    switch (ty(node)) {
      case 'file_annotation':
        this.fileAnnotation(node);
        break;
      case 'package_header': {
        const name = node.namedChildren.find((c) => ty(c) === 'qualified_identifier' || ty(c) === 'identifier');
        this.file.package = ident(name);
        break;
      }
      case 'import':
        addImport(this.file.imports, node);
        break;
      case 'class_declaration':
      case 'object_declaration': {
        const name = ident(node.childForFieldName('name'));
        if (!name) break;
        const qualifiedName = this.file.package ? `${this.file.package}.${name}` : name;
        const scope = this.declareType(node, name, qualifiedName, { qualifiedName, name, anonymous: 0 }, undefined, false, this.misread.get(node.startIndex));
        if (!node.namedChildren.some((c) => ty(c) === 'class_body' || ty(c) === 'enum_class_body')) this.bodiless = scope;
        break;
      }
      case 'function_declaration':
        this.method(node, this.facadeScope(), this.misread.get(node.startIndex));
        break;
      case 'property_declaration':
        this.property(node, this.facadeScope(), this.misread.get(node.startIndex));
        break;
      case 'ERROR':
        this.recover(node, undefined, host);
        break;
    }
  }

  /** Emits the facade (when anything is on it) after every other type, then the types declared inside it. */
  finish(): void {
    this.uses.finish();
    const facade = this.facade?.facts;
    if (!facade || (facade.members.length === 0 && facade.fields.length === 0)) return;
    this.file.types.push(facade, ...this.facadeTypes);
  }

  /**
   * An ERROR node: declarations tree-sitter kept whole are extracted as usual; a declaration it flattened into
   * loose tokens (`class` `Name` `:` delegation_specifiers `{` `fun` `name` parameters … statements) is pieced
   * back together as far as it goes: the type, its supertypes, its functions and the code following each.
   */
  recover(node: Node, outer: TypeScope | undefined, host?: TypeScope): void {
    if (this.typeDepth >= MAX_TYPE_DEPTH) return tooDeep(node);
    this.typeDepth++;
    try {
      this.recoverWithin(node, outer, host);
    } finally {
      this.typeDepth--;
    }
  }

  private recoverWithin(node: Node, outer: TypeScope | undefined, host?: TypeScope): void {
    const children = node.children;
    let mods: Node | undefined;
    // Braces say where a flattened type or function ends.
    let depth = 0;
    const open: { type: TypeScope; depth: number }[] = [];
    // `class A(…) : B` parsed whole, then its body in the ERROR that follows: the body is still A's.
    const first = children[0];
    if (host && first !== undefined && ty(first) === '{') open.push({ type: host, depth: 0 });
    let body: { scope: BodyScope; depth: number } | undefined;
    const current = (): TypeScope | undefined => open[open.length - 1]?.type ?? outer;
    for (let i = 0; i < children.length; i++) {
      const c = children[i]!;
      const next = children[i + 1];
      const type = current();
      switch (ty(c)) {
        case 'modifiers':
          mods = c;
          continue;
        case '{':
          depth++;
          continue;
        case '}':
          depth--;
          if (body && depth <= body.depth) {
            body.scope.member.endLine = lineOf(c);
            body = undefined;
          }
          while (open.length > 0 && depth <= open[open.length - 1]!.depth) open.pop()!.type.facts.endLine = lineOf(c);
          continue;
        case 'class':
        case 'interface':
        case 'object': {
          const previous = children[i - 1];
          const companion = ty(c) === 'object' && previous !== undefined && ty(previous) === 'companion';
          const named = next !== undefined && ty(next) === 'identifier';
          if (!named && !companion) break;
          const name = named ? ident(next) : 'Companion';
          if (named) i++;
          const keywords = new Set([ty(c)]);
          const nodeType = companion ? 'companion_object' : ty(c) === 'object' ? 'object_declaration' : 'class_declaration';
          const shape: TypeShape = { nodeType, mods, keywords, specifiers: undefined, primary: undefined, body: [], at: c, endLine: endLineOf(node) };
          // The header's own parts, when they follow.
          while (i + 1 < children.length && (ty(children[i + 1]!) === 'primary_constructor' || ty(children[i + 1]!) === 'type_parameters' || ty(children[i + 1]!) === ':' || ty(children[i + 1]!) === 'delegation_specifiers')) {
            const part = children[++i]!;
            if (ty(part) === 'primary_constructor') shape.primary = part;
            else if (ty(part) === 'delegation_specifiers') shape.specifiers = part;
          }
          let declared: TypeScope;
          if (type) declared = this.declareShape(shape, name, `${type.facts.qualifiedName}.${name}`, type.top, type, false);
          else {
            const qualifiedName = this.file.package ? `${this.file.package}.${name}` : name;
            declared = this.declareShape(shape, name, qualifiedName, { qualifiedName, name, anonymous: 0 }, undefined, false);
          }
          open.push({ type: declared, depth });
          body = undefined;
          mods = undefined;
          continue;
        }
        case 'fun': {
          if (next === undefined || ty(next) !== 'identifier') break;
          const scope = type ?? this.facadeScope();
          const member = newMember(ident(next), 'method', lineOf(c), endLineOf(node));
          const m = readModifiers(mods);
          member.annotations = m.annotations;
          member.modifiers = memberModifiers(m, scope, true, m.annotations.some((a) => a.name === 'JvmStatic'));
          i++;
          const paramList = children[i + 1];
          if (paramList !== undefined && ty(paramList) === 'function_value_parameters') {
            member.params = readParams(paramList).params;
            i++;
          }
          const colon = children[i + 1];
          const returnType = children[i + 2];
          if (colon !== undefined && ty(colon) === ':' && returnType !== undefined && TYPE_NODES.has(ty(returnType))) {
            member.returnType = typeRef(returnType);
            i += 2;
          } else if (colon !== undefined && ty(colon) === '{') member.returnType = { name: 'Unit' };
          scope.facts.members.push(member);
          body = { scope: { member, type: scope, inLambda: false }, depth };
          mods = undefined;
          continue;
        }
        case 'ERROR':
          if (body) this.walk(c, body.scope);
          else this.recover(c, type);
          continue;
        case 'import':
        case 'package_header':
        case 'file_annotation':
          if (!type) this.topLevel(c);
          continue;
        case 'class_declaration':
        case 'object_declaration':
        case 'function_declaration':
        case 'property_declaration':
        case 'companion_object':
        case 'secondary_constructor':
        case 'anonymous_initializer':
        case 'enum_entry':
          // Inside a flattened function these are its statements (locals, local functions and classes).
          if (body) {
            this.walk(c, body.scope);
            continue;
          }
          if (type) this.typeBody([c], type);
          else this.topLevel(c);
          body = undefined;
          mods = undefined;
          continue;
      }
      if (c.isNamed && body && !COMMENTS.has(ty(c))) this.walk(c, body.scope);
    }
  }

  private fileAnnotation(node: Node): void {
    for (const c of node.namedChildren) {
      if (ty(c) !== 'constructor_invocation') continue;
      const type = c.namedChildren.find((x) => ty(x) === 'user_type');
      if (!type || !/(^|\.)JvmName$/.test(ident(type))) continue;
      const arg = c.namedChildren.find((x) => ty(x) === 'value_arguments')?.namedChildren.find((x) => ty(x) === 'value_argument');
      const literal = arg?.namedChildren[arg.namedChildren.length - 1];
      const value = literal ? stringValue(literal) : undefined;
      if (value) this.jvmName = value;
    }
  }

  private facadeScope(): TypeScope {
    if (this.facade) return this.facade;
    const name = this.jvmName ?? facadeName(this.path);
    const qualifiedName = this.file.package ? `${this.file.package}.${name}` : name;
    const facts: TypeFacts = {
      name,
      qualifiedName,
      kind: 'class',
      flavor: 'facade',
      modifiers: ['public', 'final'],
      annotations: [],
      supertypes: [],
      fields: [],
      members: [],
      line: 1,
      endLine: Math.max(1, this.file.lines),
    };
    const scope: TypeScope = { facts, top: { qualifiedName, name, anonymous: 0 }, role: 'facade', init: undefined as unknown as BodyScope };
    scope.init = throwaway(scope);
    this.facade = scope;
    return scope;
  }

  private pushType(facts: TypeFacts, top: Top): void {
    if (this.facade && top === this.facade.top) this.facadeTypes.push(facts);
    else this.file.types.push(facts);
  }

  // ---- types ----

  /** Declares a type and reads its body; recursive (member, local, anonymous classes), so bounded: undefined beyond. */
  private declareType(node: Node, name: string, qualifiedName: string, top: Top, outer: TypeScope | undefined, local: boolean, misread?: AnnotationFacts[]): TypeScope | undefined {
    if (this.typeDepth >= MAX_TYPE_DEPTH) {
      tooDeep(node);
      return undefined;
    }
    this.typeDepth++;
    try {
      return this.declareTypeWithin(node, name, qualifiedName, top, outer, local, misread);
    } finally {
      this.typeDepth--;
    }
  }

  private declareTypeWithin(node: Node, name: string, qualifiedName: string, top: Top, outer: TypeScope | undefined, local: boolean, misread?: AnnotationFacts[]): TypeScope {
    const children = node.children;
    const body = children.find((c) => ty(c) === 'class_body' || ty(c) === 'enum_class_body');
    return this.declareShape(
      {
        nodeType: ty(node),
        mods: children.find((c) => ty(c) === 'modifiers'),
        keywords: new Set(children.filter((c) => !c.isNamed).map((c) => ty(c))),
        specifiers: children.find((c) => ty(c) === 'delegation_specifiers'),
        primary: children.find((c) => ty(c) === 'primary_constructor'),
        body: body ? body.namedChildren : [],
        at: node,
        endLine: endLineOf(node),
        misread,
      },
      name,
      qualifiedName,
      top,
      outer,
      local,
    );
  }

  private declareShape(shape: TypeShape, name: string, qualifiedName: string, top: Top, outer: TypeScope | undefined, local: boolean): TypeScope {
    const mods = readModifiers(shape.mods);
    if (shape.misread) mods.annotations.unshift(...shape.misread);
    const written = new Set(mods.written);
    let kind: TypeFacts['kind'] = 'class';
    let role: Role = 'class';
    let flavor: TypeFacts['flavor'];
    if (shape.nodeType === 'object_declaration') {
      role = 'object';
      flavor = 'object';
    } else if (shape.nodeType === 'companion_object') {
      role = 'object';
      flavor = 'companion';
    } else if (shape.keywords.has('interface')) {
      kind = 'interface';
      role = 'interface';
    } else if (written.has('enum')) {
      kind = 'enum';
      role = 'enum';
    } else if (written.has('annotation')) {
      kind = 'annotation';
      role = 'annotation';
    }
    if (!flavor) {
      if (written.has('data')) flavor = 'data';
      else if (written.has('sealed')) flavor = 'sealed';
      else if (written.has('value') || (written.has('inline') && kind === 'class')) flavor = 'value';
    }
    const modifiers = [mods.visibility ?? 'public', ...mods.written.filter((m) => m !== 'enum' && m !== 'annotation')];
    if (shape.nodeType === 'companion_object') modifiers.push('companion');
    if (written.has('sealed') && kind === 'class') modifiers.push('abstract');
    const extendable = written.has('open') || written.has('abstract') || written.has('sealed') || written.has('final');
    if ((kind === 'class' || kind === 'enum') && !extendable) modifiers.push('final');

    const facts: TypeFacts = {
      name,
      qualifiedName,
      kind,
      modifiers,
      annotations: mods.annotations,
      supertypes: [],
      fields: [],
      members: [],
      line: Math.min(lineOf(shape.at), ...(shape.misread ?? []).map((a) => a.line)),
      endLine: shape.endLine,
    };
    if (flavor) facts.flavor = flavor;
    if (outer) facts.outer = outer.facts.qualifiedName;
    if (local) facts.local = true;
    this.pushType(facts, top);

    const scope: TypeScope = { facts, top, role, init: undefined as unknown as BodyScope };
    scope.init = throwaway(scope);
    const supers = readSupertypes(shape.specifiers, role);
    facts.supertypes = supers.supertypes;

    if (role === 'class' || role === 'enum') {
      if (shape.primary || !shape.body.some((c) => ty(c) === 'secondary_constructor')) {
        const ctor = this.primaryConstructor(shape.primary, scope, supers.superCall);
        scope.init = { member: ctor, type: scope, inLambda: false };
      } else {
        scope.pendingInit = newMember('<init>', 'constructor', 0, 0);
        scope.init = { member: scope.pendingInit, type: scope, inLambda: false };
      }
    } else if (role === 'annotation') {
      this.annotationElements(shape.primary, scope);
    }
    // Supertype constructor arguments and `by` delegates are evaluated by the constructor.
    if (shape.specifiers) this.walk(shape.specifiers, scope.init);
    this.typeBody(shape.body, scope);
    if (scope.pendingInit && scope.firstSecondary) {
      const target = scope.firstSecondary;
      const head = target.calls.length > 0 && (target.calls[0]!.kind === 'this_ctor' || target.calls[0]!.kind === 'super_ctor') ? 1 : 0;
      target.calls.splice(head, 0, ...scope.pendingInit.calls);
      target.locals.unshift(...scope.pendingInit.locals);
      this.uses.move(scope.pendingInit, target);
      scope.pendingInit = undefined;
    }
    return scope;
  }

  /** `annotation class A(val value: String)`: Java sees the parameters as the annotation's elements (methods). */
  private annotationElements(primary: Node | undefined, scope: TypeScope): void {
    const list = primary?.children.find((c) => ty(c) === 'class_parameters');
    for (const p of list?.namedChildren ?? []) {
      if (p.type !== 'class_parameter') continue;
      const name = ident(p.namedChildren.find((c) => ty(c) === 'identifier'));
      if (!name) continue;
      const member = newMember(name, 'method', lineOf(p), endLineOf(p));
      member.returnType = typeRef(p.namedChildren.find((c) => TYPE_NODES.has(ty(c))));
      member.modifiers = ['public', 'abstract'];
      member.annotations = readModifiers(p.namedChildren.find((c) => ty(c) === 'modifiers')).annotations;
      scope.facts.members.push(member);
    }
  }

  private primaryConstructor(primary: Node | undefined, scope: TypeScope, superCall: CallFacts | undefined): MemberFacts {
    const line = primary ? lineOf(primary) : scope.facts.line;
    const ctor = newMember('<init>', 'constructor', line, primary ? endLineOf(primary) : line);
    ctor.synthetic = primary ? 'primary_constructor' : 'default_constructor';
    const mods = readModifiers(primary?.children.find((c) => ty(c) === 'modifiers'));
    ctor.modifiers = scope.role === 'enum' ? ['private'] : [mods.visibility ?? 'public', ...mods.written];
    ctor.annotations = mods.annotations;
    if (superCall) ctor.calls.push(superCall);
    else if (scope.role !== 'enum') ctor.calls.push({ kind: 'super_ctor', name: '<init>', argCount: 0, args: [], line, implicit: true });
    scope.facts.members.push(ctor);
    const ctorScope: BodyScope = { member: ctor, type: scope, inLambda: false };
    const list = primary?.children.find((c) => ty(c) === 'class_parameters');
    for (const p of list?.namedChildren ?? []) {
      if (p.type !== 'class_parameter') continue;
      this.classParameter(p, scope, ctor, ctorScope);
    }
    return ctor;
  }

  /** A primary-constructor parameter; `val`/`var` ones are properties too (field and accessors). */
  private classParameter(node: Node, scope: TypeScope, ctor: MemberFacts, ctorScope: BodyScope): void {
    let mods: Modifiers = { written: [], annotations: [] };
    let kind: 'val' | 'var' | undefined;
    let name = '';
    let typeNode: Node | undefined;
    let defaultValue: Node | undefined;
    let afterEq = false;
    for (const c of node.children) {
      if (ty(c) === 'modifiers') mods = readModifiers(c);
      else if (ty(c) === 'val' || ty(c) === 'var') kind = ty(c) as 'val' | 'var';
      else if (ty(c) === 'identifier' && !name) name = ident(c);
      else if (ty(c) === '=') afterEq = true;
      else if (TYPE_NODES.has(ty(c)) && !afterEq && !typeNode) typeNode = c;
      else if (afterEq && c.isNamed && !COMMENTS.has(ty(c))) defaultValue = c;
    }
    if (!name) return;
    const type = typeRef(typeNode);
    const varargs = mods.written.includes('vararg');
    const paramAnnotations = kind ? mods.annotations.filter((a) => a.target === undefined || a.target === 'param') : mods.annotations;
    const param: ParamFacts = { name, type: varargs ? { ...type, array: (type.array ?? 0) + 1 } : type, annotations: paramAnnotations };
    if (varargs) param.varargs = true;
    if (defaultValue) param.default = toExpr(defaultValue, 0, VALUE_DEPTH);
    ctor.params.push(param);
    if (defaultValue) this.walk(defaultValue, ctorScope);
    if (!kind) return;
    const propertyMods: Modifiers = { written: mods.written.filter((m) => m !== 'vararg'), annotations: mods.annotations.filter((a) => a.target !== undefined && a.target !== 'param') };
    if (mods.visibility) propertyMods.visibility = mods.visibility;
    this.declareProperty(scope, {
      name,
      kind,
      mods: propertyMods,
      type: param.type,
      line: lineOf(node),
      endLine: endLineOf(node),
    });
  }

  private typeBody(children: Node[], scope: TypeScope): void {
    for (const child of children) {
      switch (ty(child)) {
        case 'function_declaration':
          this.method(child, scope);
          break;
        case 'property_declaration':
          this.property(child, scope);
          break;
        case 'secondary_constructor':
          this.secondaryConstructor(child, scope);
          break;
        case 'anonymous_initializer':
          this.walk(child, scope.init);
          break;
        case 'class_declaration':
        case 'object_declaration':
        case 'companion_object': {
          const name = ident(child.childForFieldName('name')) || (ty(child) === 'companion_object' ? 'Companion' : '');
          if (name) this.declareType(child, name, `${scope.facts.qualifiedName}.${name}`, scope.top, scope, false);
          break;
        }
        case 'enum_entry':
          this.enumEntry(child, scope);
          break;
        case 'ERROR':
          this.recover(child, scope);
          break;
      }
    }
  }

  private enumEntry(node: Node, scope: TypeScope): void {
    const name = ident(node.namedChildren.find((c) => ty(c) === 'identifier'));
    if (name) (scope.facts.enumConstants ??= []).push(name);
    const args = node.namedChildren.find((c) => ty(c) === 'value_arguments');
    const values = valueExprs(args);
    if (name && values) (scope.facts.enumArgs ??= {})[name] = values;
    if (args) this.walk(args, throwaway(scope));
    const body = node.namedChildren.find((c) => ty(c) === 'class_body');
    if (body) this.anonymous(body, [{ type: { name: scope.facts.qualifiedName }, relation: 'unknown' }], scope, undefined);
  }

  /** An object expression or an enum constant's body: an anonymous class numbered under the top-level type. */
  private anonymous(body: Node | undefined, supertypes: SupertypeFacts[], outer: TypeScope, creation: CallFacts | undefined, at?: Node): void {
    if (this.typeDepth >= MAX_TYPE_DEPTH) return tooDeep((at ?? body)!);
    this.typeDepth++;
    try {
      this.anonymousWithin(body, supertypes, outer, creation, at);
    } finally {
      this.typeDepth--;
    }
  }

  private anonymousWithin(body: Node | undefined, supertypes: SupertypeFacts[], outer: TypeScope, creation: CallFacts | undefined, at?: Node): void {
    const top = outer.top;
    top.anonymous++;
    const name = `${top.name}$${top.anonymous}`;
    const qualifiedName = `${top.qualifiedName}$${top.anonymous}`;
    if (creation) creation.anonymous = qualifiedName;
    const where = at ?? body!;
    const facts: TypeFacts = {
      name,
      qualifiedName,
      kind: 'class',
      anonymous: true,
      outer: outer.facts.qualifiedName,
      modifiers: ['final'],
      annotations: [],
      supertypes,
      fields: [],
      members: [],
      line: lineOf(where),
      endLine: endLineOf(where),
    };
    this.pushType(facts, top);
    const scope: TypeScope = { facts, top, role: 'anonymous', init: undefined as unknown as BodyScope };
    scope.init = throwaway(scope);
    if (body) this.typeBody(body.namedChildren, scope);
  }

  // ---- members ----

  private method(node: Node, scope: TypeScope, misread: AnnotationFacts[] = []): void {
    let mods: Modifiers = { written: [], annotations: [] };
    let name = '';
    let nameNode: Node | undefined;
    let receiver: Node | undefined;
    let returnNode: Node | undefined;
    let paramsNode: Node | undefined;
    let body: Node | undefined;
    for (const c of node.children) {
      if (ty(c) === 'modifiers') mods = readModifiers(c);
      else if (ty(c) === 'identifier' && !name) {
        name = ident(c);
        nameNode = c;
      }
      else if (TYPE_NODES.has(ty(c))) {
        if (!name) receiver = c;
        else returnNode = c;
      } else if (ty(c) === 'function_value_parameters') paramsNode = c;
      else if (ty(c) === 'function_body') body = c;
    }
    if (!name) return;
    mods.annotations.unshift(...misread);
    const member = newMember(name, 'method', Math.min(lineOf(node), ...misread.map((a) => a.line)), endLineOf(node));
    withNameLine(member, nameNode);
    member.annotations = mods.annotations;
    member.modifiers = memberModifiers(mods, scope, !!body, mods.annotations.some((a) => a.name === 'JvmStatic'));
    const { params, defaults } = readParams(paramsNode);
    if (receiver) {
      const type = typeRef(receiver);
      member.extensionReceiver = type;
      params.unshift({ name: '$receiver', type, annotations: [] });
    }
    member.params = params;
    if (returnNode) member.returnType = typeRef(returnNode);
    else if (!body || body.namedChildren.some((c) => ty(c) === 'block')) member.returnType = { name: 'Unit' };
    scope.facts.members.push(member);
    const bodyScope: BodyScope = { member, type: scope, inLambda: false };
    for (const d of defaults) this.walk(d, bodyScope);
    if (body) this.walk(body, bodyScope);
  }

  private secondaryConstructor(node: Node, scope: TypeScope): void {
    let mods: Modifiers = { written: [], annotations: [] };
    let paramsNode: Node | undefined;
    let delegation: Node | undefined;
    let body: Node | undefined;
    for (const c of node.namedChildren) {
      if (ty(c) === 'modifiers') mods = readModifiers(c);
      else if (ty(c) === 'function_value_parameters') paramsNode = c;
      else if (ty(c) === 'constructor_delegation_call') delegation = c;
      else if (ty(c) === 'block') body = c;
    }
    const member = newMember('<init>', 'constructor', lineOf(node), endLineOf(node));
    withNameLine(member, node.children.find((c) => ty(c) === 'constructor'));
    member.modifiers = scope.role === 'enum' ? ['private'] : [mods.visibility ?? 'public', ...mods.written];
    member.annotations = mods.annotations;
    const { params, defaults } = readParams(paramsNode);
    member.params = params;
    scope.facts.members.push(member);
    scope.firstSecondary ??= member;
    const bodyScope: BodyScope = { member, type: scope, inLambda: false };
    if (delegation) {
      const args = delegation.namedChildren.find((c) => ty(c) === 'value_arguments');
      const texts = argumentTexts(args);
      const isThis = delegation.children.some((c) => ty(c) === 'this');
      const values = valueExprs(args);
      const names = args ? argumentNames(args) : undefined;
      member.calls.push({ kind: isThis ? 'this_ctor' : 'super_ctor', name: '<init>', argCount: texts.length, args: texts, line: lineOf(delegation), ...(values ? { values } : {}), ...(names ? { argNames: names } : {}) });
      if (args) this.walk(args, bodyScope);
    } else if (scope.role !== 'enum') {
      member.calls.push({ kind: 'super_ctor', name: '<init>', argCount: 0, args: [], line: member.line, implicit: true });
    }
    for (const d of defaults) this.walk(d, bodyScope);
    if (body) this.walk(body, bodyScope);
  }

  /** A `val`/`var` in a class body or at the top level. */
  private property(node: Node, scope: TypeScope, misread: AnnotationFacts[] = []): void {
    let mods: Modifiers = { written: [], annotations: [] };
    let kind: 'val' | 'var' = 'val';
    let receiver: Node | undefined;
    let declaration: Node | undefined;
    let init: Node | undefined;
    let delegate: Node | undefined;
    let getter: Node | undefined;
    let setter: Node | undefined;
    let afterEq = false;
    for (const c of node.children) {
      switch (ty(c)) {
        case 'modifiers':
          mods = readModifiers(c);
          break;
        case 'val':
        case 'var':
          kind = ty(c) as 'val' | 'var';
          break;
        case 'variable_declaration':
        case 'multi_variable_declaration':
          declaration = c;
          break;
        case '=':
          afterEq = true;
          break;
        case 'property_delegate':
          delegate = c;
          break;
        case 'getter':
          getter = c;
          break;
        case 'setter':
          setter = c;
          break;
        default:
          if (TYPE_NODES.has(ty(c)) && !declaration) receiver = c;
          else if (afterEq && !init && c.isNamed && !COMMENTS.has(ty(c))) init = c;
      }
    }
    if (!declaration || ty(declaration) !== 'variable_declaration') {
      if (init) this.walk(init, scope.init);
      return;
    }
    mods.annotations.unshift(...misread);
    const name = ident(declaration.namedChildren.find((c) => ty(c) === 'identifier'));
    if (!name) return;
    const typeNode = declaration.namedChildren.find((c) => TYPE_NODES.has(ty(c)));
    const accessors = this.declareProperty(scope, {
      name,
      kind,
      mods,
      type: typeNode ? typeRef(typeNode) : undefined,
      init: init ?? lazyValue(delegate),
      receiver: receiver ? typeRef(receiver) : undefined,
      getter,
      setter,
      line: lineOf(declaration),
      endLine: endLineOf(node),
    });
    if (init) this.walk(init, scope.init);
    if (delegate) this.walk(delegate, scope.init);
    const getterBody = getter?.namedChildren.find((c) => ty(c) === 'function_body');
    if (getterBody) this.walk(getterBody, accessors.getter ? { member: accessors.getter, type: scope, inLambda: false } : throwaway(scope));
    const setterBody = setter?.namedChildren.find((c) => ty(c) === 'function_body');
    if (setterBody) this.walk(setterBody, accessors.setter ? { member: accessors.setter, type: scope, inLambda: false } : throwaway(scope));
  }

  /** The field and the accessors Java sees for one property. */
  private declareProperty(
    scope: TypeScope,
    p: { name: string; kind: 'val' | 'var'; mods: Modifiers; type?: TypeRef; init?: Node; receiver?: TypeRef; getter?: Node; setter?: Node; line: number; endLine: number },
  ): { getter?: MemberFacts; setter?: MemberFacts } {
    const { mods } = p;
    const byTarget = (...targets: (string | undefined)[]): AnnotationFacts[] => mods.annotations.filter((a) => targets.includes(a.target));
    const getterMods = readModifiers(p.getter?.namedChildren.find((c) => ty(c) === 'modifiers'));
    const setterMods = readModifiers(p.setter?.namedChildren.find((c) => ty(c) === 'modifiers'));
    const getterBody = p.getter?.namedChildren.find((c) => ty(c) === 'function_body');
    const setterBody = p.setter?.namedChildren.find((c) => ty(c) === 'function_body');
    const visibility = mods.visibility ?? 'public';
    const setterVisibility = setterMods.visibility ?? visibility;
    const noAccessors = mods.written.includes('const') || mods.annotations.some((a) => a.name === 'JvmField' && (a.target === undefined || a.target === 'field'));
    const emitGetter = !noAccessors && (visibility !== 'private' || !!getterBody);
    const emitSetter = p.kind === 'var' && !noAccessors && (setterVisibility !== 'private' || !!setterBody);
    const jvmStatic = mods.annotations.some((a) => a.name === 'JvmStatic');

    // The field: extension properties have none (there is nowhere to keep it).
    if (!p.receiver) {
      const modifiers = [visibility, ...mods.written];
      const abstract = modifiers.includes('abstract') || (scope.role === 'interface' && !getterBody);
      if (abstract && !modifiers.includes('abstract')) modifiers.push('abstract');
      if (p.kind === 'val' && !abstract && !modifiers.includes('final')) modifiers.push('final');
      if (scope.role === 'facade' || scope.role === 'object') modifiers.push('static');
      const annotations = mods.annotations.filter((a) => {
        if (a.target === 'get') return !emitGetter;
        if (a.target === 'set' || a.target === 'setparam') return !emitSetter;
        return true;
      });
      const field: FieldFacts = { name: p.name, modifiers, annotations, line: p.line, property: p.kind };
      if (p.type) field.type = p.type;
      const from = p.init ?? getterBody?.namedChildren.find((c) => !COMMENTS.has(ty(c)) && ty(c) !== 'block');
      if (from) field.init = toExpr(from, 0, p.type ? VALUE_DEPTH : MAX_EXPR_DEPTH);
      scope.facts.fields.push(field);
    }

    const accessorWritten: Modifiers = { written: mods.written.filter((m) => ACCESSOR_MODIFIERS.has(m)), annotations: [] };
    const receiverParams = (): ParamFacts[] => (p.receiver ? [{ name: '$receiver', type: p.receiver, annotations: [] }] : []);
    const out: { getter?: MemberFacts; setter?: MemberFacts } = {};
    // An interface property's accessors are abstract unless a getter body is written.
    const hasBody = scope.role !== 'interface' || !!getterBody;
    if (emitGetter) {
      const where = p.getter;
      const getter = newMember(getterName(p.name), 'method', where ? lineOf(where) : p.line, where ? endLineOf(where) : p.line);
      getter.synthetic = 'property_getter';
      getter.property = p.name;
      getter.modifiers = memberModifiers({ ...accessorWritten, visibility }, scope, hasBody, jvmStatic);
      getter.annotations = [...byTarget('get'), ...getterMods.annotations];
      getter.params = receiverParams();
      const declared = p.getter?.namedChildren.find((c) => TYPE_NODES.has(ty(c)));
      const type = declared ? typeRef(declared) : p.type;
      if (type) getter.returnType = type;
      if (p.receiver) getter.extensionReceiver = p.receiver;
      scope.facts.members.push(getter);
      out.getter = getter;
    }
    if (emitSetter) {
      const where = p.setter;
      const setter = newMember(setterName(p.name), 'method', where ? lineOf(where) : p.line, where ? endLineOf(where) : p.line);
      setter.synthetic = 'property_setter';
      setter.property = p.name;
      setter.modifiers = memberModifiers({ ...accessorWritten, visibility: setterVisibility }, scope, scope.role !== 'interface' || !!setterBody, jvmStatic);
      setter.annotations = [...byTarget('set'), ...setterMods.annotations];
      const valueName = ident(p.setter?.namedChildren.find((c) => ty(c) === 'identifier')) || 'value';
      const valueType = p.type ?? inferredType(p.init) ?? { name: 'Any' };
      setter.params = [...receiverParams(), { name: valueName, type: valueType, annotations: byTarget('setparam') }];
      setter.returnType = { name: 'Unit' };
      if (p.receiver) setter.extensionReceiver = p.receiver;
      scope.facts.members.push(setter);
      out.setter = setter;
    }
    return out;
  }

  // ---- bodies ----

  /**
   * Walks code: locals, calls, lambdas; object expressions and local classes become types of their own. Iterative
   * (an expression can nest thousands deep): each node's children, and any step to take after them, go on a stack
   * in reverse, so nodes are visited, and facts recorded, in the order of a depth-first recursive walk.
   */
  private walk(root: Node, rootScope: BodyScope): void {
    const stack: BodyTask[] = [{ node: root, scope: rootScope }];
    const next: BodyTask[] = [];
    const later: Later = (node, scope) => {
      next.push({ node, scope });
    };
    for (let task = stack.pop(); task; task = stack.pop()) {
      if (typeof task === 'function') task();
      else this.visit(task.node, task.scope, later, next);
      for (let i = next.length - 1; i >= 0; i--) stack.push(next[i]!);
      next.length = 0;
    }
  }

  /** One node of code: records what it says, and adds what to walk next (its children, in order) with `walk`. */
  private visit(node: Node, scope: BodyScope, walk: Later, next: BodyTask[]): void {
    switch (ty(node)) {
      case 'call_expression':
        this.call(node, scope, walk);
        return;
      case 'navigation_expression': {
        const children = node.children;
        if (children.some((c) => ty(c) === '::')) {
          const target = children[children.length - 1];
          const left = children[0];
          if (target && target.text !== 'class' && left) {
            this.addCall(scope, { kind: 'method_ref', name: ident(target), receiver: toExpr(left), argCount: -1, args: [], line: lineOf(node) });
          }
          // `Foo::class` names Foo as a class literal; `Foo::bar` reaches a member through it.
          const chain = left ? dottedName(left) : undefined;
          if (chain !== undefined) {
            if (target?.text === 'class') this.uses.name(useHolder(scope.member, scope.type.facts), 'l', chain);
            else this.uses.qualifier(useHolder(scope.member, scope.type.facts), chain);
          } else if (left) walk(left, scope);
          return;
        }
        const chain = dottedName(node);
        if (chain !== undefined) {
          this.uses.qualifier(useHolder(scope.member, scope.type.facts), chain);
          return;
        }
        break;
      }
      case 'as_expression': {
        const type = node.childForFieldName('right');
        if (type) this.uses.type(useHolder(scope.member, scope.type.facts), 'c', typeRef(type));
        break;
      }
      case 'is_expression': {
        const type = node.childForFieldName('right');
        if (type) this.uses.type(useHolder(scope.member, scope.type.facts), 'i', typeRef(type));
        break;
      }
      case 'type_test': {
        const type = node.namedChildren.find((c) => TYPE_NODES.has(ty(c)));
        if (type) this.uses.type(useHolder(scope.member, scope.type.facts), 'i', typeRef(type));
        return;
      }
      case 'callable_reference': {
        const children = node.namedChildren;
        const target = children[children.length - 1];
        const call: CallFacts = { kind: 'method_ref', name: ident(target), argCount: -1, args: [], line: lineOf(node) };
        const on = children.length > 1 ? children[0] : undefined;
        if (on && TYPE_NODES.has(ty(on))) call.receiver = { k: 'name', name: stripGenerics(on.text) };
        // `List<Foo>::class` (the generic form is a callable reference); `Foo<T>::bar`.
        const first = children[0];
        if (first && TYPE_NODES.has(ty(first))) {
          if (node.children.some((c) => ty(c) === 'class')) this.uses.type(useHolder(scope.member, scope.type.facts), 'l', typeRef(first));
          else if (on) this.uses.qualifier(useHolder(scope.member, scope.type.facts), stripGenerics(on.text));
        }
        this.addCall(scope, call);
        return;
      }
      case 'lambda_literal':
      case 'anonymous_function': {
        const inner: BodyScope = { ...scope, inLambda: true };
        for (const c of node.namedChildren) {
          if (ty(c) === 'lambda_parameters') {
            next.push(() => {
              for (const v of c.namedChildren) if (ty(v) === 'variable_declaration') this.typedLocal(v, scope.member);
            });
          } else if (ty(c) === 'function_value_parameters') {
            next.push(() => {
              for (const p of readParams(c).params) scope.member.locals.push({ name: p.name, type: p.type, line: lineOf(c) });
            });
          } else walk(c, inner);
        }
        return;
      }
      case 'object_literal':
        this.objectLiteral(node, scope, walk);
        return;
      case 'property_declaration':
        this.localProperty(node, scope, walk, next);
        return;
      case 'return_expression': {
        const value = node.namedChildren.find((c) => !COMMENTS.has(ty(c)) && ty(c) !== 'label');
        if (value && !scope.inLambda) (scope.member.returns ??= []).push(toExpr(value, 0, VALUE_DEPTH));
        break;
      }
      case 'function_body': {
        // `fun f() = expr`: the expression is what it returns.
        const value = node.namedChildren.find((c) => !COMMENTS.has(ty(c)));
        if (value && ty(value) !== 'block' && node.children.some((c) => ty(c) === '=') && !scope.inLambda) (scope.member.returns ??= []).push(toExpr(value, 0, VALUE_DEPTH));
        break;
      }
      case 'assignment': {
        const [left, op, right] = node.children;
        // `url += "/x"` is `url = url + "/x"`.
        const value = op && ty(op) === '+=' && left && right ? { k: 'concat' as const, parts: [toExpr(left, 0, VALUE_DEPTH), toExpr(right, 0, VALUE_DEPTH)] } : right ? toExpr(right, 0, VALUE_DEPTH) : undefined;
        if (left && value && op && (ty(op) === '=' || ty(op) === '+=') && !scope.inLambda) (scope.member.assigns ??= []).push({ target: toExpr(left, 0, VALUE_DEPTH), value, line: lineOf(node) });
        break;
      }
      case 'function_declaration': {
        // A local function: its code runs later, like a lambda's.
        const inner: BodyScope = { ...scope, inLambda: true };
        for (const c of node.namedChildren) {
          if (ty(c) === 'function_value_parameters') {
            const { params, defaults } = readParams(c);
            next.push(() => {
              for (const p of params) scope.member.locals.push({ name: p.name, type: p.type, line: lineOf(c) });
            });
            for (const d of defaults) walk(d, inner);
          } else if (ty(c) === 'function_body') walk(c, inner);
        }
        return;
      }
      case 'class_declaration':
      case 'object_declaration': {
        const name = ident(node.childForFieldName('name'));
        if (name) this.declareType(node, name, `${scope.type.facts.qualifiedName}.${name}`, scope.type.top, scope.type, true);
        return;
      }
      case 'for_statement':
        for (const c of node.namedChildren) if (ty(c) === 'variable_declaration') this.typedLocal(c, scope.member);
        break;
      case 'catch_block': {
        const name = ident(node.namedChildren.find((c) => ty(c) === 'identifier'));
        const type = node.namedChildren.find((c) => TYPE_NODES.has(ty(c)));
        if (name && type) scope.member.locals.push({ name, type: typeRef(type), line: lineOf(node) });
        break;
      }
      case 'when_subject': {
        const v = node.namedChildren.find((c) => ty(c) === 'variable_declaration');
        if (v) {
          const name = ident(v.namedChildren.find((c) => ty(c) === 'identifier'));
          const type = v.namedChildren.find((c) => TYPE_NODES.has(ty(c)));
          const value = node.namedChildren.find((c) => c !== v && ty(c) !== 'annotation');
          const local: VariableFacts = { name, line: lineOf(v) };
          if (type) local.type = typeRef(type);
          else if (value) local.init = toExpr(value);
          if (name) scope.member.locals.push(local);
        }
        break;
      }
      case 'binary_expression': {
        const generic = genericCall(node);
        if (generic) {
          const call: CallFacts = { kind: 'call', name: generic.name, argCount: 1, args: [cut(generic.arg.text)], line: lineOf(node) };
          if (generic.receiver) call.receiver = toExpr(generic.receiver);
          this.addCall(scope, call);
          if (generic.receiver) walk(generic.receiver, scope);
          walk(generic.arg, scope);
          return;
        }
        break;
      }
      default:
        // Leaves and types hold no code.
        if (LEAVES.has(ty(node))) return;
    }
    for (const child of node.namedChildren) next.push({ node: child, scope });
  }

  private call(node: Node, scope: BodyScope, walk: Later): void {
    const { callee, valueArgs, lambdas } = callParts(node);
    if (!callee) return;
    const args = [...argumentTexts(valueArgs), ...lambdas.map((l) => cut(l.text))];
    const target = calleeOf(callee);
    const call: CallFacts = { kind: 'call', name: target.name, argCount: args.length, args, line: lineOf(node) };
    // Trailing lambdas are the last arguments.
    const values = [...(valueExprs(valueArgs) ?? []), ...lambdas.map((l) => toExpr(l, 0, VALUE_DEPTH))];
    if (values.length) call.values = values;
    const names = valueArgs ? argumentNames(valueArgs) : undefined;
    if (names) call.argNames = [...names, ...lambdas.map(() => null)];
    if (target.receiver) call.receiver = toExpr(target.receiver);
    this.addCall(scope, call);
    // A dotted receiver is a navigation_expression, visited when walked.
    if (target.receiver && ty(target.receiver) === 'identifier') this.uses.qualifier(useHolder(scope.member, scope.type.facts), target.receiver.text);
    if (target.receiver) walk(target.receiver, scope);
    if (valueArgs) walk(valueArgs, scope);
    for (const l of lambdas) walk(l, scope);
  }

  private objectLiteral(node: Node, scope: BodyScope, walk: Later): void {
    const specifiers = node.namedChildren.find((c) => ty(c) === 'delegation_specifiers');
    const supers = readSupertypes(specifiers, 'class');
    const first = supers.supertypes[0];
    const creation: CallFacts = {
      kind: 'new',
      name: '<init>',
      type: first ? first.type : { name: 'Any' },
      argCount: supers.superCall?.argCount ?? 0,
      args: supers.superCall?.args ?? [],
      line: lineOf(node),
    };
    this.addCall(scope, creation);
    const body = node.namedChildren.find((c) => ty(c) === 'class_body');
    this.anonymous(body, supers.supertypes, scope.type, creation, node);
    if (specifiers) walk(specifiers, scope);
  }

  private localProperty(node: Node, scope: BodyScope, walk: Later, next: BodyTask[]): void {
    let declaration: Node | undefined;
    let init: Node | undefined;
    let afterEq = false;
    for (const c of node.children) {
      if (ty(c) === 'variable_declaration' || ty(c) === 'multi_variable_declaration') declaration = c;
      else if (ty(c) === '=') afterEq = true;
      else if (ty(c) === 'property_delegate') walk(c, scope);
      else if (afterEq && !init && c.isNamed && !COMMENTS.has(ty(c))) init = c;
    }
    // The locals are declared after the delegate's code is walked, and before the initializer's.
    next.push(() => this.declareLocals(declaration, init, scope));
    if (init) walk(init, scope);
  }

  private declareLocals(declaration: Node | undefined, init: Node | undefined, scope: BodyScope): void {
    if (declaration !== undefined && ty(declaration) === 'variable_declaration') {
      const name = ident(declaration.namedChildren.find((c) => ty(c) === 'identifier'));
      const type = declaration.namedChildren.find((c) => TYPE_NODES.has(ty(c)));
      const local: VariableFacts = { name, line: lineOf(declaration) };
      if (type) local.type = typeRef(type);
      if (init) local.init = toExpr(init, 0, type ? VALUE_DEPTH : MAX_EXPR_DEPTH);
      if (name) scope.member.locals.push(local);
    } else if (declaration) {
      // `val (a, b) = pair`: component types are not written unless declared.
      for (const v of declaration.namedChildren) {
        if (ty(v) !== 'variable_declaration') continue;
        const name = ident(v.namedChildren.find((c) => ty(c) === 'identifier'));
        const type = v.namedChildren.find((c) => TYPE_NODES.has(ty(c)));
        const local: VariableFacts = { name, line: lineOf(v) };
        if (type) local.type = typeRef(type);
        if (name) scope.member.locals.push(local);
      }
    }
  }

  /** A lambda or loop variable, kept when its type is written. */
  private typedLocal(v: Node, member: MemberFacts): void {
    const name = ident(v.namedChildren.find((c) => ty(c) === 'identifier'));
    const type = v.namedChildren.find((c) => TYPE_NODES.has(ty(c)));
    if (name && type) member.locals.push({ name, type: typeRef(type), line: lineOf(v) });
  }

  private addCall(scope: BodyScope, call: CallFacts): void {
    if (scope.inLambda) call.inLambda = true;
    scope.member.calls.push(call);
  }
}

/** `a.b.C` written as names only (an identifier, or `.` navigations on one), else undefined (`this.x`, `f().x`, `a?.b`). */
function dottedName(node: Node): string | undefined {
  let text = '';
  let n: Node | undefined = node;
  for (let depth = 0; n && depth < MAX_EXPR_DEPTH; depth++) {
    if (ty(n) === 'identifier') return n.text + text;
    if (ty(n) !== 'navigation_expression') return undefined;
    const c: Node[] = n.children;
    if (c.length !== 3 || ty(c[1]!) !== '.' || ty(c[2]!) !== 'identifier') return undefined;
    text = `.${c[2]!.text}${text}`;
    n = c[0];
  }
  return undefined;
}

/** Initializers of objects, interfaces and the facade: walked for their types, their facts dropped (as Java's). */
function throwaway(type: TypeScope): BodyScope {
  return { member: newMember('<clinit>', 'method', 0, 0), type, inLambda: false };
}

function readModifiers(node: Node | null | undefined): Modifiers {
  const mods: Modifiers = { written: [], annotations: [] };
  if (!node) return mods;
  for (const c of node.namedChildren) {
    if (ty(c) === 'annotation') mods.annotations.push(...readAnnotations(c));
    else if (ty(c) === 'visibility_modifier') mods.visibility = c.text;
    else if (!COMMENTS.has(ty(c))) mods.written.push(c.text);
  }
  return mods;
}

/** Java words for a member: visibility, what is written, then abstract/default/final/static as the JVM sees it. */
function memberModifiers(mods: Modifiers, scope: TypeScope, hasBody: boolean, jvmStatic: boolean): string[] {
  const visibility = mods.visibility ?? 'public';
  const out = [visibility, ...mods.written];
  if (scope.role === 'interface' || scope.role === 'annotation') {
    if (!hasBody) {
      if (!out.includes('abstract')) out.push('abstract');
    } else if (visibility !== 'private') out.push('default');
  } else if (!out.some((m) => m === 'open' || m === 'abstract' || m === 'override' || m === 'final')) {
    out.push('final');
  }
  if (scope.role === 'facade' || (jvmStatic && scope.role === 'object')) out.push('static');
  return out;
}

function readAnnotations(node: Node): AnnotationFacts[] {
  let target: string | undefined;
  const out: AnnotationFacts[] = [];
  const line = lineOf(node);
  for (const c of node.namedChildren) {
    if (ty(c) === 'use_site_target') target = c.text.replace(/[:\s]/g, '');
    else if (ty(c) === 'user_type') out.push(annotation(c, undefined, line));
    else if (ty(c) === 'constructor_invocation') {
      const type = c.namedChildren.find((x) => TYPE_NODES.has(ty(x)));
      if (type) out.push(annotation(type, c.namedChildren.find((x) => ty(x) === 'value_arguments'), line));
    }
  }
  if (target) for (const a of out) a.target = target;
  return out;
}

function annotation(type: Node, args: Node | undefined, line: number): AnnotationFacts {
  const written = typeRef(type).name;
  const facts: AnnotationFacts = { name: written.slice(written.lastIndexOf('.') + 1), written, args: {}, line };
  for (const arg of args?.namedChildren ?? []) {
    if (ty(arg) !== 'value_argument') continue;
    const { name, value } = splitArgument(arg);
    if (!value) continue;
    const key = name ?? 'value';
    (facts.args[key] ??= []).push(...annotationValues(value));
  }
  return facts;
}

function splitArgument(arg: Node): { name?: string; value?: Node } {
  const children = arg.children;
  const eq = children.findIndex((c) => ty(c) === '=');
  const named = children.filter((c) => c.isNamed && !COMMENTS.has(ty(c)));
  if (eq < 0) return { value: named[named.length - 1] };
  const name = children.slice(0, eq).find((c) => ty(c) === 'identifier');
  const value = children.slice(eq + 1).find((c) => c.isNamed && !COMMENTS.has(ty(c)));
  return name ? { name: ident(name), value } : { value };
}

function annotationValues(node: Node, depth = 0): AnnotationValue[] {
  if (depth > MAX_EXPR_DEPTH) {
    tooDeep(node);
    return [{ kind: 'expr', text: cut(node.text) }];
  }
  if (ty(node) === 'collection_literal') return node.namedChildren.filter((c) => !COMMENTS.has(ty(c))).flatMap((c) => annotationValues(c, depth + 1));
  if (ty(node) === 'call_expression') {
    const callee = node.namedChildren[0];
    if (callee !== undefined && ty(callee) === 'identifier' && ARRAY_OF.test(callee.text)) {
      const args = node.namedChildren.find((c) => ty(c) === 'value_arguments');
      return (args?.namedChildren ?? []).flatMap((a) => {
        const value = ty(a) === 'value_argument' ? splitArgument(a).value : undefined;
        return value ? annotationValues(value, depth + 1) : [];
      });
    }
  }
  return [annotationValue(node)];
}

function annotationValue(node: Node): AnnotationValue {
  const text = node.text;
  switch (ty(node)) {
    case 'string_literal':
    case 'multiline_string_literal': {
      const value = stringValue(node);
      return value === undefined ? { kind: 'expr', text } : { kind: 'string', text, value };
    }
    case 'identifier':
      if (text === 'true' || text === 'false') return { kind: 'boolean', text, value: text };
      if (text === 'null') return { kind: 'expr', text };
      return { kind: 'ref', text: ident(node) };
    case 'navigation_expression': {
      const children = node.children;
      const op = children.find((c) => ty(c) === '::' || ty(c) === '.' || ty(c) === '?.');
      const last = children[children.length - 1];
      if (op !== undefined && ty(op) === '::' && last?.text === 'class' && children[0]) return { kind: 'class', text, value: stripGenerics(children[0].text) };
      if (op !== undefined && ty(op) === '.' && /^[\w.`\s]+$/.test(text)) return { kind: 'ref', text: ident(node) };
      return { kind: 'expr', text };
    }
    case 'number_literal':
    case 'float_literal':
      return { kind: 'number', text, value: text };
    case 'unary_expression': {
      const operand = node.namedChildren[0];
      if (operand !== undefined && (ty(operand) === 'number_literal' || ty(operand) === 'float_literal') && /^[-+]/.test(text)) return { kind: 'number', text, value: text.replace(/\s+/g, '') };
      return { kind: 'expr', text };
    }
    case 'call_expression': {
      // Nested annotations are written as constructor calls: `@A(b = B("x"))`.
      const callee = node.namedChildren[0];
      const name = callee && (ty(callee) === 'identifier' || ty(callee) === 'navigation_expression') ? ident(callee) : '';
      if (/^([\w]+\.)*[A-Z]\w*$/.test(name)) return { kind: 'annotation', text, annotation: annotation(callee!, node.namedChildren.find((c) => ty(c) === 'value_arguments'), lineOf(node)) };
      return { kind: 'expr', text };
    }
    case 'annotated_expression':
      return { kind: 'annotation', text };
    default:
      return { kind: 'expr', text };
  }
}

/** The value of a string literal without templates (`"a\n"` → `a` newline); undefined for `"$x"` or `"${x}"`. */
function stringValue(node: Node): string | undefined {
  if (ty(node) !== 'string_literal' && ty(node) !== 'multiline_string_literal') return undefined;
  if (node.namedChildren.some((c) => ty(c) === 'interpolation')) return undefined;
  const raw = ty(node) === 'multiline_string_literal';
  const text = node.text;
  const quote = raw ? 3 : 1;
  if (text.length < quote * 2) return undefined;
  const inner = text.slice(quote, text.length - quote);
  let out = '';
  for (let i = 0; i < inner.length; i++) {
    const ch = inner[i]!;
    if (ch === '\\' && !raw) {
      const next = inner[i + 1] ?? '';
      if (next === 'u' && /^[0-9a-fA-F]{4}$/.test(inner.slice(i + 2, i + 6))) {
        out += String.fromCharCode(parseInt(inner.slice(i + 2, i + 6), 16));
        i += 5;
      } else {
        out += ({ n: '\n', t: '\t', r: '\r', b: '\b', '0': '\0' } as Record<string, string>)[next] ?? next;
        i += 1;
      }
    } else if (ch === '$' && /[A-Za-z_{`]/.test(inner[i + 1] ?? '')) {
      return undefined;
    } else out += ch;
  }
  return out;
}

function readSupertypes(node: Node | undefined, role: Role): { supertypes: SupertypeFacts[]; superCall?: CallFacts } {
  const supertypes: SupertypeFacts[] = [];
  let superCall: CallFacts | undefined;
  // An interface's supertypes are interfaces, an enum's too; a class's are known only when invoked (`Base()`).
  const plain: SupertypeFacts['relation'] = role === 'interface' ? 'extends' : role === 'enum' ? 'implements' : 'unknown';
  for (const spec of node?.namedChildren ?? []) {
    if (ty(spec) !== 'delegation_specifier') continue;
    for (const c of spec.namedChildren) {
      if (ty(c) === 'constructor_invocation') {
        const type = c.namedChildren.find((x) => TYPE_NODES.has(ty(x)));
        supertypes.push({ type: typeRef(type), relation: 'extends' });
        const argNode = c.namedChildren.find((x) => ty(x) === 'value_arguments');
        const args = argumentTexts(argNode);
        const values = valueExprs(argNode);
        const names = argNode ? argumentNames(argNode) : undefined;
        superCall ??= { kind: 'super_ctor', name: '<init>', argCount: args.length, args, line: lineOf(c), ...(values ? { values } : {}), ...(names ? { argNames: names } : {}) };
      } else if (ty(c) === 'explicit_delegation') {
        const type = c.namedChildren.find((x) => TYPE_NODES.has(ty(x)));
        supertypes.push({ type: typeRef(type), relation: 'unknown' });
      } else if (TYPE_NODES.has(ty(c))) {
        supertypes.push({ type: typeRef(c), relation: plain });
      }
    }
  }
  return superCall ? { supertypes, superCall } : { supertypes };
}

function readParams(node: Node | undefined): { params: ParamFacts[]; defaults: Node[] } {
  const params: ParamFacts[] = [];
  const defaults: Node[] = [];
  if (!node) return { params, defaults };
  let pending: Modifiers | undefined;
  for (const c of node.namedChildren) {
    if (ty(c) === 'parameter_modifiers') pending = readModifiers(c);
    else if (ty(c) === 'parameter') {
      const name = ident(c.namedChildren.find((x) => ty(x) === 'identifier'));
      const type = typeRef(c.namedChildren.find((x) => TYPE_NODES.has(ty(x))));
      const varargs = pending?.written.includes('vararg') ?? false;
      const param: ParamFacts = { name, type: varargs ? { ...type, array: (type.array ?? 0) + 1 } : type, annotations: pending?.annotations ?? [] };
      if (varargs) param.varargs = true;
      params.push(param);
      pending = undefined;
    } else if (!COMMENTS.has(ty(c))) {
      defaults.push(c);
      const last = params[params.length - 1];
      if (last && !last.default) last.default = toExpr(c, 0, VALUE_DEPTH);
    }
  }
  return { params, defaults };
}

/** A type as written; type arguments nested deeper than MAX_EXPR_DEPTH are left out. */
export function typeRef(node: Node | null | undefined, depth = 0): TypeRef {
  if (!node) return { name: '?' };
  if (depth > MAX_EXPR_DEPTH) {
    tooDeep(node);
    return { name: stripGenerics(node.text).replace(/`/g, '') || '?' };
  }
  const sub = (n: Node | null | undefined): TypeRef => typeRef(n, depth + 1);
  switch (ty(node)) {
    case 'user_type': {
      const parts: string[] = [];
      let args: Node | undefined;
      for (const c of node.namedChildren) {
        if (ty(c) === 'identifier') parts.push(ident(c));
        else if (ty(c) === 'type_arguments') args = c;
      }
      const ref: TypeRef = { name: parts.join('.') };
      const list = args?.namedChildren.filter((c) => ty(c) === 'type_projection').map((c) => typeProjection(c, depth + 1)) ?? [];
      if (list.length) ref.args = list;
      return ref;
    }
    case 'nullable_type':
      return { ...sub(node.namedChildren.find((c) => TYPE_NODES.has(ty(c)))), nullable: true };
    case 'non_nullable_type':
    case 'parenthesized_type':
      return sub(node.namedChildren.find((c) => TYPE_NODES.has(ty(c))));
    case 'function_type': {
      // `A.(B) -> C` is `Function2<A, B, C>`.
      const parts = node.namedChildren.filter((c) => ty(c) !== 'type_modifiers' && !COMMENTS.has(ty(c)));
      const params = parts.find((c) => ty(c) === 'function_type_parameters');
      const receiver = parts[0] !== params ? parts[0] : undefined;
      const result = parts[parts.length - 1];
      const args: TypeRef[] = [];
      if (receiver) args.push(sub(receiver));
      for (const p of params?.namedChildren ?? []) {
        if (p.type === 'parameter') args.push(sub(p.namedChildren.find((x) => TYPE_NODES.has(ty(x)))));
        else if (TYPE_NODES.has(p.type)) args.push(sub(p));
      }
      const arity = args.length;
      args.push(result && result !== params ? sub(result) : { name: 'Unit' });
      return { name: `Function${arity}`, args };
    }
    default:
      return { name: stripGenerics(node.text).replace(/`/g, '') || '?' };
  }
}

/** `out T` → T; `in T` and `*` → `?` (as Java's `? super T` and `?`). */
function typeProjection(node: Node, depth: number): TypeRef {
  const type = node.namedChildren.find((c) => TYPE_NODES.has(ty(c)));
  if (!type) return { name: '?' };
  if (node.namedChildren.some((c) => ty(c) === 'variance_modifier' && c.text === 'in')) return { name: '?' };
  return typeRef(type, depth);
}

function argumentTexts(node: Node | null | undefined): string[] {
  const out: string[] = [];
  for (const a of node?.namedChildren ?? []) {
    if (ty(a) !== 'value_argument') continue;
    const { name, value } = splitArgument(a);
    out.push(cut(name !== undefined && value ? value.text : a.text));
  }
  return out;
}

/**
 * A call's callee, value arguments and trailing lambdas. The grammar nests `f(x) { … }` as a call of `f(x)` with
 * the lambda; that is one call of `f` with both.
 */
function callParts(node: Node, depth = 0): { callee?: Node; valueArgs?: Node; lambdas: Node[] } {
  let callee: Node | undefined;
  let valueArgs: Node | undefined;
  const lambdas: Node[] = [];
  for (const c of node.namedChildren) {
    if (ty(c) === 'value_arguments') valueArgs = c;
    else if (ty(c) === 'annotated_lambda') lambdas.push(c);
    else if (ty(c) === 'type_arguments' || COMMENTS.has(ty(c))) continue;
    else callee ??= c;
  }
  if (callee !== undefined && ty(callee) === 'call_expression' && !valueArgs && lambdas.length > 0 && depth < MAX_EXPR_DEPTH) {
    const inner = callParts(callee, depth + 1);
    if (inner.callee && inner.valueArgs && inner.lambdas.length === 0) return { callee: inner.callee, valueArgs: inner.valueArgs, lambdas };
  }
  return valueArgs ? { callee, valueArgs, lambdas } : { callee, lambdas };
}

/** What a call calls: `f(…)` → f; `a.f(…)` / `a?.f(…)` → f on a; anything else is `invoke` on it. */
function calleeOf(callee: Node): { name: string; receiver?: Node } {
  if (ty(callee) === 'identifier') return { name: ident(callee) };
  if (ty(callee) === 'navigation_expression') {
    const children = callee.children;
    const op = children.find((c) => ty(c) === '.' || ty(c) === '?.');
    const last = children[children.length - 1];
    const left = children[0];
    if (op && last !== undefined && ty(last) === 'identifier' && left) return { name: ident(last), receiver: left };
  }
  return { name: 'invoke', receiver: callee };
}

/**
 * The grammar reads `ArrayList<String>(10)` as `(ArrayList < String) > (10)`; a comparison whose right side is a
 * parenthesized expression and whose middle is a capitalised name is taken for the generic call it almost always is.
 */
function genericCall(node: Node): { name: string; receiver?: Node; arg: Node } | undefined {
  const [left, op, right] = node.children;
  if (!op || ty(op) !== '>' || !right || ty(right) !== 'parenthesized_expression' || !left || ty(left) !== 'binary_expression') return undefined;
  const [head, lt, typeArg] = left.children;
  if (!lt || ty(lt) !== '<' || !head || !typeArg || !/^[A-Z][\w.]*$/.test(typeArg.text.replace(/\s+/g, ''))) return undefined;
  if (ty(typeArg) !== 'identifier' && ty(typeArg) !== 'navigation_expression') return undefined;
  const arg = right.namedChildren.find((c) => !COMMENTS.has(ty(c)));
  if (!arg) return undefined;
  if (ty(head) === 'identifier') return { name: ident(head), arg };
  if (ty(head) === 'navigation_expression') {
    const target = calleeOf(head);
    if (target.receiver && target.name !== 'invoke') return { name: target.name, receiver: target.receiver, arg };
  }
  return undefined;
}

/** The type of a few obvious initializers (`0`, `"x"`, `true`), for a setter's parameter when none is written. */
function inferredType(node: Node | undefined): TypeRef | undefined {
  if (!node) return undefined;
  const e = toExpr(node);
  if (e.k !== 'literal') return undefined;
  const map: Record<string, string> = { String: 'String', int: 'Int', long: 'Long', double: 'Double', float: 'Float', boolean: 'Boolean', char: 'Char' };
  const name = map[e.type];
  return name ? { name } : undefined;
}

/** A receiver or value expression; what is nested deeper than MAX_EXPR_DEPTH is `other` (its text). */
export function toExpr(node: Node, depth = 0, limit = MAX_EXPR_DEPTH): Expr {
  return sharedExpr(node, depth, limit, toExprUncached);
}

function toExprUncached(node: Node, depth: number, limit: number): Expr {
  if (depth > limit) {
    if (limit === MAX_EXPR_DEPTH) tooDeep(node);
    return other(node);
  }
  const sub = (n: Node): Expr => toExpr(n, depth + 1, limit);
  switch (ty(node)) {
    case 'identifier': {
      const text = node.text;
      if (text === 'true' || text === 'false') return { k: 'literal', type: 'boolean' };
      if (text === 'null') return { k: 'literal', type: 'null' };
      return { k: 'name', name: ident(node) };
    }
    case 'this_expression':
    case 'super_expression': {
      const label = node.namedChildren.find((c) => ty(c) === 'identifier');
      const e: Expr = ty(node) === 'this_expression' ? { k: 'this' } : { k: 'super' };
      if (label) e.qualifier = ident(label);
      return e;
    }
    case 'navigation_expression': {
      const children = node.children;
      const op = children.find((c) => ty(c) === '.' || ty(c) === '?.' || ty(c) === '::');
      const left = children[0];
      const last = children[children.length - 1];
      if (op && left && last !== undefined && ty(last) === 'identifier' && left !== last) {
        if (ty(op) === '::') return last.text === 'class' ? { k: 'class_literal', type: { name: stripGenerics(left.text) || '?' } } : other(node);
        return { k: 'field', of: sub(left), name: ident(last) };
      }
      return other(node);
    }
    case 'call_expression': {
      const { callee, valueArgs, lambdas } = callParts(node, depth);
      if (!callee) return other(node);
      const argCount = (valueArgs?.namedChildren.filter((a) => ty(a) === 'value_argument').length ?? 0) + lambdas.length;
      const target = calleeOf(callee);
      const e: Expr = { k: 'call', name: target.name, argCount };
      if (target.receiver) e.of = sub(target.receiver);
      if ((valueArgs || lambdas.length) && keepsValues(depth)) {
        const args = [...(valueArgs ? valueArgNodes(valueArgs) : []), ...lambdas].map((a) => toExpr(a, depth + 1, Math.min(limit, VALUE_DEPTH)));
        if (args.length) e.args = args;
        const names = valueArgs ? argumentNames(valueArgs) : undefined;
        if (names) e.names = [...names, ...lambdas.map(() => null)];
      }
      return e;
    }
    case 'string_literal':
    case 'multiline_string_literal':
      return keepsValues(depth) ? templateExpr(node, (n) => toExpr(n, depth + 1, Math.min(limit, VALUE_DEPTH))) : { k: 'literal', type: 'String' };
    case 'number_literal':
      return { k: 'literal', type: /[lL]$/.test(node.text) ? 'long' : 'int', value: node.text.replace(/[lL]$/, '') };
    case 'float_literal':
      return { k: 'literal', type: /[fF]$/.test(node.text) ? 'float' : 'double' };
    case 'character_literal':
      return { k: 'literal', type: 'char' };
    case 'annotated_lambda':
    case 'lambda_literal':
      return lambdaExpr(node, (n) => lambdaBody(n, toExpr));
    case 'as_expression': {
      const type = node.namedChildren.find((c, i) => i > 0 && TYPE_NODES.has(ty(c)));
      const ref = typeRef(type, depth + 1);
      const of = node.namedChildren[0];
      return { k: 'cast', type: node.children.some((c) => ty(c) === 'as?') ? { ...ref, nullable: true } : ref, ...(of && of !== type ? { of: sub(of) } : {}) };
    }
    case 'parenthesized_expression':
    case 'annotated_expression': {
      const inner = node.namedChildren.filter((c) => ty(c) !== 'annotation' && !COMMENTS.has(ty(c)));
      return inner.length === 1 ? sub(inner[0]!) : other(node);
    }
    case 'unary_expression': {
      // `x!!` has x's type.
      const operand = node.namedChildren[0];
      if (operand && node.children.some((c) => ty(c) === '!!')) return sub(operand);
      return other(node);
    }
    case 'object_literal': {
      const specifiers = node.namedChildren.find((c) => ty(c) === 'delegation_specifiers');
      const first = readSupertypes(specifiers, 'class').supertypes[0];
      return { k: 'new', type: first ? first.type : { name: 'Any' } };
    }
    case 'binary_expression': {
      const generic = genericCall(node);
      if (generic) {
        const e: Expr = { k: 'call', name: generic.name, argCount: 1 };
        if (generic.receiver) e.of = sub(generic.receiver);
        return e;
      }
      const op = node.children[1] ? ty(node.children[1]) : '';
      if (depth >= VALUE_DEPTH || (op !== '+' && op !== '?:')) return other(node);
      // A chain of `+` (or of `?:`) is one flat list of operands.
      const operands: Expr[] = [];
      const pending: Node[] = [node];
      for (let n = pending.pop(); n; n = pending.pop()) {
        const [left, o, right] = n.children;
        if (ty(n) === 'binary_expression' && o && ty(o) === op && left && right && operands.length + pending.length < 10_000) pending.push(right, left);
        else operands.push(sub(n));
      }
      return op === '+' ? { k: 'concat', parts: operands } : { k: 'cond', options: operands };
    }
    case 'index_expression': {
      // `xs[0]`, `map["k"]`: the operator `get` of the JVM view.
      const [of, ...indexes] = node.namedChildren.filter((c) => !COMMENTS.has(ty(c)));
      if (!of || indexes.length !== 1) return other(node);
      return { k: 'call', name: 'get', argCount: 1, of: sub(of), ...(keepsValues(depth) ? { args: [toExpr(indexes[0]!, depth + 1, Math.min(limit, VALUE_DEPTH))] } : {}) };
    }
    case 'if_expression': {
      // `if (c) a else b` as a value: one of its branches, when each is a single expression.
      const branches = node.namedChildren.slice(1).filter((c) => !COMMENTS.has(ty(c)));
      if (depth >= VALUE_DEPTH || branches.length !== 2 || branches.some((b) => ty(b) === 'block')) return other(node);
      return { k: 'cond', options: branches.map(sub) };
    }
    default:
      return other(node);
  }
}

function valueArgNodes(args: Node): Node[] {
  const out: Node[] = [];
  for (const a of args.namedChildren) {
    if (ty(a) !== 'value_argument') continue;
    const { value } = splitArgument(a);
    if (value) out.push(value);
  }
  return out;
}

/** The parameter names of a call's named arguments, by position among its values; undefined when none is named. */
function argumentNames(args: Node): (string | null)[] | undefined {
  const out: (string | null)[] = [];
  for (const a of args.namedChildren) {
    if (ty(a) !== 'value_argument') continue;
    const { name, value } = splitArgument(a);
    if (value) out.push(name ?? null);
  }
  return out.some((n) => n !== null) ? out : undefined;
}

/** A call's value arguments as value expressions (trailing lambdas are not values). */
function valueExprs(args: Node | undefined): Expr[] | undefined {
  if (!args) return undefined;
  const out = valueArgNodes(args).map((a) => toExpr(a, 0, VALUE_DEPTH));
  return out.length ? out : undefined;
}

const KOTLIN_ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', '0': '\0' };

/**
 * A string literal as a value: its text, or for a template (`"$base/orders/${id}"`) the concatenation of its
 * pieces and interpolated expressions. The grammar leaves `$name` inside the string content; it is split out here.
 */
function templateExpr(node: Node, sub: (n: Node) => Expr): Expr {
  const raw = ty(node) === 'multiline_string_literal';
  const parts: Expr[] = [];
  let text = '';
  let content = '';
  const flushContent = (): void => {
    let at = 0;
    for (const m of content.matchAll(/\$([A-Za-z_][A-Za-z0-9_]*)/g)) {
      text += content.slice(at, m.index);
      if (text) parts.push({ k: 'literal', type: 'String', value: text });
      text = '';
      parts.push({ k: 'name', name: m[1]! });
      at = m.index + m[0].length;
    }
    text += content.slice(at);
    content = '';
  };
  for (const c of node.children) {
    const t = ty(c);
    if (t === 'string_content') content += c.text;
    else if (t === 'escape_sequence' && !raw) {
      flushContent();
      const e = c.text;
      text += e.startsWith('\\u') ? String.fromCharCode(parseInt(e.slice(2), 16)) : (KOTLIN_ESCAPES[e.slice(1)] ?? e.slice(1));
    } else if (t === 'interpolation') {
      flushContent();
      const inner = c.namedChildren.find((x) => !COMMENTS.has(ty(x)));
      if (text) parts.push({ k: 'literal', type: 'String', value: text });
      text = '';
      parts.push(inner ? sub(inner) : other(c));
    } else if (t === 'escape_sequence') content += c.text;
  }
  flushContent();
  if (!parts.length) return { k: 'literal', type: 'String', value: text.slice(0, STRING_VALUE_LIMIT) };
  if (text) parts.push({ k: 'literal', type: 'String', value: text });
  return { k: 'concat', parts };
}

function other(node: Node): Expr {
  return { k: 'other', text: cut(node.text) };
}

/** `by lazy { … }`: the expression the lambda ends with is the property's value (computed once, on first read). */
function lazyValue(delegate: Node | undefined): Node | undefined {
  const call = delegate?.namedChildren.find((c) => ty(c) === 'call_expression');
  if (!call || ident(call.namedChildren[0]) !== 'lazy') return undefined;
  const lambda = call.namedChildren.find((c) => ty(c) === 'annotated_lambda')?.namedChildren.find((c) => ty(c) === 'lambda_literal');
  const statements = lambda?.namedChildren.filter((c) => !COMMENTS.has(ty(c)) && ty(c) !== 'lambda_parameters');
  return statements?.[statements.length - 1];
}

/** A lambda as a value: its parameters (`it` when it names none) and the expression its body ends with; nested too deep, its text. */
function lambdaExpr(node: Node, read: (n: Node) => Expr | undefined): Expr {
  const literal = ty(node) === 'annotated_lambda' ? node.namedChildren.find((c) => ty(c) === 'lambda_literal') : node;
  if (!literal) return other(node);
  const declared = literal.namedChildren.find((c) => ty(c) === 'lambda_parameters');
  const params = declared ? declared.namedChildren.filter((c) => ty(c) === 'variable_declaration').map((v) => ident(v.namedChildren.find((c) => ty(c) === 'identifier'))) : ['it'];
  let statements = literal.namedChildren.filter((c) => !COMMENTS.has(ty(c)) && ty(c) !== 'lambda_parameters');
  if (statements.length === 1 && ty(statements[0]!) === 'statements') statements = statements[0]!.namedChildren.filter((c) => !COMMENTS.has(ty(c)));
  let last = statements[statements.length - 1];
  // `{ url = it.path("/x").build(); url }`: a variable the lambda ends with has the value it was just given there.
  if (last && ty(last) === 'identifier') {
    const assigned = statements.slice(0, -1).reverse().find((st) => ty(st) === 'assignment' && st.children[0]?.text === last!.text && ty(st.children[1]!) === '=');
    if (assigned?.children[2]) last = assigned.children[2];
  }
  const value = last !== undefined && !/declaration|assignment/.test(ty(last)) ? last : undefined;
  const expr = value ? read(value) : undefined;
  if (value && !expr) return other(node);
  return { k: 'lambda', params, ...(expr ? { body: expr } : {}), line: last ? lineOf(last) : lineOf(literal), from: lineOf(literal), to: literal.endPosition.row + 1 };
}
