/**
 * The per-file facts a Java or Kotlin extractor produces. Extraction is a pure function of one file's text, so
 * these facts are cached by content hash and only changed files are re-parsed; everything that needs more
 * than one file (type resolution, injection, calls, overrides, roles) is computed from the facts of all files.
 * Everything here is plain JSON (and the one table of `BodyUses` codes).
 */

export type Language = 'java' | 'kotlin';

/** A type as written: `java.util.List<Foo>` → `{name: 'java.util.List', args: [{name: 'Foo'}]}`. */
export interface TypeRef {
  /** Head name as written, generics and array brackets stripped (`Map.Entry`, `java.util.List`, `Foo`). */
  name: string;
  args?: TypeRef[];
  /** Array dimensions (Java `Foo[]`, Kotlin `Array<Foo>` is an ordinary generic). */
  array?: number;
  /** Kotlin `Foo?`. */
  nullable?: boolean;
}

/** One annotation argument value. `text` is always the source text; `value` is set for literals. */
/** A piece of a string constant expression: a literal, or a name (dotted or not) to look up as a constant. */
export type ConstPart = { s: string; ref?: undefined } | { ref: string; s?: undefined };

export interface AnnotationValue {
  /** string: a literal (value unquoted); ref: a name or dotted name (constant, enum); class: `Foo.class`;
   * number / boolean: literals; expr: anything else (concatenation, call); annotation: a nested annotation. */
  kind: 'string' | 'ref' | 'class' | 'number' | 'boolean' | 'expr' | 'annotation';
  text: string;
  value?: string;
  /** An `expr` that is a concatenation of string literals and names: its parts, to evaluate against constants. */
  parts?: ConstPart[];
  /** A nested annotation (`bindings = @QueueBinding(…)`): its own facts. */
  annotation?: AnnotationFacts;
}

export interface AnnotationFacts {
  /** Simple name (`RequestMapping`). */
  name: string;
  /** As written (`org.springframework.web.bind.annotation.RequestMapping` or `RequestMapping`). */
  written: string;
  /** Arguments by element name; a single unnamed argument is `value`; arrays give several values. */
  args: Record<string, AnnotationValue[]>;
  line: number;
  /** Kotlin use-site target (`field`, `get`, `set`, `param`, `file`…), when written. */
  target?: string;
}

/**
 * A receiver or argument expression, structured enough to compute its type:
 * `a.b().c` → `{k:'field', of: {k:'call', of: {k:'name', name:'a'}, name:'b', argCount:0}, name:'c'}`.
 */
export type Expr =
  | { k: 'this'; qualifier?: string }
  | { k: 'super'; qualifier?: string }
  | { k: 'name'; name: string }
  | { k: 'field'; of: Expr; name: string }
  | { k: 'call'; of?: Expr; name: string; argCount: number; args?: Expr[]; names?: (string | null)[] }
  | { k: 'new'; type: TypeRef; args?: Expr[] }
  | { k: 'literal'; type: 'String' | 'int' | 'long' | 'double' | 'float' | 'boolean' | 'char' | 'null'; value?: string }
  | { k: 'class_literal'; type: TypeRef }
  | { k: 'cast'; type: TypeRef; of?: Expr }
  /** `a + b + c` (Java), a Kotlin string template `"$a/b"`: its operands in order. */
  | { k: 'concat'; parts: Expr[] }
  /** `c ? a : b`, Kotlin `a ?: b`: the value is one of the options. */
  | { k: 'cond'; options: Expr[] }
  /** A condition: `a == b`, `a != b`, `a && b`, `a || b`, `!a`. */
  | { k: 'test'; op: '==' | '!=' | '&&' | '||' | '!'; args: Expr[] }
  /** A value returned only when `when` holds (a `return` inside `if (when)`, or its `else` with `when` negated). */
  | { k: 'guarded'; when: Expr; value: Expr }
  /**
   * A lambda (`it -> …`, Kotlin `{ … }`): its parameter names (Kotlin's implicit `it`) and what it ends with, at `line`;
   * `from`–`to` are the lines the lambda spans (a name used there may be one of its parameters).
   */
  | { k: 'lambda'; params: string[]; body?: Expr; line: number; from: number; to: number }
  | { k: 'other'; text: string };

/** `x = value` in a body (`this.x = …`, a local reassigned): what the value evaluator reads for fields and locals. */
export interface AssignFacts {
  target: Expr;
  value: Expr;
  line: number;
  /** The `if` branches it sits in (`<if>t` / `<if>e`, outermost first, `/`-separated), when any. */
  branch?: string;
}

export interface CallFacts {
  /** call: `recv.name(...)` or `name(...)`; new: `new T(...)` (name `<init>`); method_ref: `X::name` (`X::new` is
   * name `<init>`); this_ctor / super_ctor: `this(...)` / `super(...)`, also the implicit `super()`. */
  kind: 'call' | 'new' | 'method_ref' | 'this_ctor' | 'super_ctor';
  name: string;
  /** Absent for a bare call `name(...)`; for `new`, the created type is in `type`. */
  receiver?: Expr;
  type?: TypeRef;
  /** Number of arguments; -1 for a method reference. */
  argCount: number;
  /** Source text of the arguments (each cut to 200 characters). */
  args: string[];
  /** The arguments as expressions, for the value evaluator (absent when there are none). */
  values?: Expr[];
  /** Kotlin named arguments: the parameter name each of `values` is passed to (null: by position); absent when none is named. */
  argNames?: (string | null)[];
  line: number;
  /** Inside a lambda (attributed to the enclosing member). */
  inLambda?: boolean;
  /** The implicit `super()` a constructor without an explicit `this(...)`/`super(...)` makes. */
  implicit?: boolean;
  /** Qualified name of the anonymous class this `new` creates, if it has a body. */
  anonymous?: string;
}

export interface VariableFacts {
  name: string;
  /** Declared type, or absent when inferred (`var x = …`, Kotlin `val x = …`). */
  type?: TypeRef;
  /** The initializer: the type when none is written, and the first value the variable holds. */
  init?: Expr;
  line: number;
  /** The `if` branches the declaration sits in, as `AssignFacts.branch`. */
  branch?: string;
}

export interface ParamFacts {
  name: string;
  type: TypeRef;
  annotations: AnnotationFacts[];
  /** Java varargs `T...` / Kotlin `vararg`. */
  varargs?: boolean;
  /** Kotlin: the default value, used where a call leaves the argument out. */
  default?: Expr;
}

export interface MemberFacts {
  /** `<init>` for constructors. */
  name: string;
  kind: 'method' | 'constructor';
  params: ParamFacts[];
  /** Absent for constructors; `void` / `Unit` when nothing is returned. */
  returnType?: TypeRef;
  modifiers: string[];
  annotations: AnnotationFacts[];
  /** Where the declaration starts (its first annotation or modifier). */
  line: number;
  /** The line of its name, when annotations or modifiers put it below `line`: where a link declared by it is. */
  nameLine?: number;
  endLine: number;
  /** How a member that is not written as such arises. */
  synthetic?: 'default_constructor' | 'record_constructor' | 'record_accessor' | 'property_getter' | 'property_setter' | 'primary_constructor' | 'lombok_getter' | 'lombok_setter' | 'lombok_constructor';
  /** Kotlin extension function: the receiver type (on the JVM it is the first parameter). */
  extensionReceiver?: TypeRef;
  /** Kotlin property the accessor belongs to. */
  property?: string;
  locals: VariableFacts[];
  calls: CallFacts[];
  /** The expressions it returns (`return e;`, a Kotlin expression body), outside lambdas and local classes. */
  returns?: Expr[];
  /** Assignments in its body, outside lambdas and local classes. */
  assigns?: AssignFacts[];
  /** Types its body names outside declarations and calls (casts, `instanceof`, class literals, static access, arrays): see `BodyUses`. */
  bodyUses?: BodyUses;
}

/**
 * Type names a body writes where no declaration or call records them, for `USES` edges: one string per member, each
 * name as written preceded by a one-letter code of how it is named and a colon (`c:Foo i:com.x.Bar s:Foo.Inner`),
 * each pair once. One string is the smallest form a worker thread and the facts cache carry; the colon keeps every
 * name an identifier of its own for `namesOf`. Static access names the dotted name before the member (`Foo` of
 * `Foo.BAR`, `Foo.bar()`, `Foo::bar`); what it resolves to is decided with the model.
 */
export type BodyUses = string;

/** The codes of `BodyUses`: the `via` each stands for. */
export const BODY_USE_CODES = { c: 'cast', i: 'instanceof', l: 'class_literal', s: 'static', n: 'new' } as const;
export type BodyUseCode = keyof typeof BODY_USE_CODES;

export interface FieldFacts {
  /** A `static final` String field initialised by literals and other constants: its value's parts. */
  constant?: ConstPart[];
  name: string;
  type?: TypeRef;
  init?: Expr;
  modifiers: string[];
  annotations: AnnotationFacts[];
  line: number;
  /** Kotlin: a property (`val`/`var`), also a primary-constructor property. */
  property?: 'val' | 'var';
}

export interface SupertypeFacts {
  type: TypeRef;
  /** What the syntax says; Kotlin `: Foo()` is a class (extends), `: Foo` is unknown until resolved. */
  relation: 'extends' | 'implements' | 'unknown';
}

export interface TypeFacts {
  /** Simple name; anonymous classes are `Outer$1` style (numbered per top-level type, in source order). */
  name: string;
  /** `pkg.Outer.Inner`, `pkg.Outer$1` for anonymous, `pkg.FileKt` for a Kotlin file facade. */
  qualifiedName: string;
  kind: 'class' | 'interface' | 'enum' | 'record' | 'annotation';
  /** Kotlin flavour: object, companion object, data class, file facade… */
  flavor?: 'object' | 'companion' | 'data' | 'sealed' | 'facade' | 'value';
  /** Qualified name of the lexically enclosing type (nested, local and anonymous types). */
  outer?: string;
  anonymous?: boolean;
  /** Declared inside a method body. */
  local?: boolean;
  modifiers: string[];
  annotations: AnnotationFacts[];
  supertypes: SupertypeFacts[];
  fields: FieldFacts[];
  members: MemberFacts[];
  /** Enum constant names, in order. */
  enumConstants?: string[];
  /** The constructor arguments of enum constants that have them, by constant name. */
  enumArgs?: Record<string, Expr[]>;
  /** Types named by field initializers and initializer blocks (code that belongs to no member node). */
  bodyUses?: BodyUses;
  line: number;
  endLine: number;
}

export interface ImportFacts {
  /** `import a.b.Foo;` → Foo → a.b.Foo (Kotlin `import a.b.Foo as Bar` → Bar → a.b.Foo). */
  single: Record<string, string>;
  /** `import a.b.*;` → a.b (a package or a type whose nested types are imported). */
  wildcard: string[];
  /** `import static a.b.Foo.bar;` → bar → a.b.Foo. */
  staticSingle: Record<string, string>;
  /** `import static a.b.Foo.*;` → a.b.Foo. */
  staticWildcard: string[];
}

export interface FileFacts {
  /** Relative to the source root, `/`-separated. */
  path: string;
  language: Language;
  package: string;
  imports: ImportFacts;
  /** Every type, nested, local and anonymous ones included, in source order (outer before inner). */
  types: TypeFacts[];
  /** Syntax errors and missing tokens tree-sitter recovered from (the rest of the file is still indexed). */
  parseErrors: number;
  /** The first line where the extractor stopped descending: code nested deeper than it reads (an expression or type
   * nested hundreds of levels deep, classes nested in classes hundreds deep). The rest of the file is indexed. */
  deepNesting?: number;
  /** Generator named by a banner comment at the top (`openapi`, `protobuf`, …) when there is one. */
  generatedBanner?: string;
  lines: number;
}
