import { createRequire } from 'node:module';

/**
 * The library table (`library.json`): what the evaluator knows of library methods and classes, as data. A row
 * names a method by its declaring type (qualified, nested types with dots) and says what it returns, how the
 * string value of its result follows from its receiver and arguments, and whether it sends an HTTP request.
 */
export interface LibraryMethod {
  owner: string;
  name: string;
  static?: boolean;
  /** Qualified return type; `$0` is the receiver's first type argument, `$arg0` the first argument's type, `$classN` the class a class-literal argument N names. */
  returns?: string;
  /** How the result's value follows (see `ValueOp`). */
  value?: ValueOp;
  /** The HTTP method a request started here will send: a method name, or `arg0`/`arg1` (an `HttpMethod.X` argument). */
  httpMethod?: string;
  /** This call sends an HTTP request: its method (a name, `receiver` for the chain's start, or `argN`) and URL. */
  http?: { method: string; url: ValueOp };
  /** This call sends a message. */
  message?: MessageSink;
  /** What this call contributes to a declaration built as a chain (`BindingBuilder.bind(q).to(x).with(k)`): role → value. */
  roles?: Record<string, ValueOp>;
  /**
   * The chain ends here and declares a Rabbit `binding` or `queue`, a `listener` (with its messaging system), or a
   * gateway route (`RouteLocatorBuilder`). A listener's `handler` role is a method reference, a lambda (the method it
   * calls), a listener reference a value operation made (`method(…)`), or an object of a project class whose method
   * `calls` the framework calls (`onMessage`); `at: 'handler'` places the listener at its handler, not at the call.
   */
  declares?: { what: 'binding' | 'queue' | 'listener' | 'gateway_route' | 'client_base'; protocol?: string; framework?: string; key?: 'queue' | 'any'; calls?: string; at?: 'handler' };
  /**
   * This call sets the value its receiver object holds from then on (`jmsTemplate.setDefaultDestinationName(q)`: a
   * template's value is its default destination); a Kotlin property assignment (`t.defaultDestinationName = q`) is its
   * setter's call. `receiver` is the object's value before the call.
   */
  configures?: ValueOp;
  /**
   * The type of the object a function argument of this call is given (`uri(b -> b.path("/x").build())`: a
   * UriBuilder): the value of such an argument is its body's, a chain of this type's rows from an empty value.
   */
  lambda?: string;
  /**
   * What the parameters of a function argument of this call are given, in order (`opt.map(url -> …)`: `receiver`, the
   * Optional's value; `Optionals.mapIfAllPresent(a, b, (x, y) -> …)`: `arg0`, `arg1`): a lambda's parameters hold
   * those values, and a method reference (`Mapping::getUrl`, `this::load`) is called with them.
   */
  lambdaArgs?: ValueOp[];
  /**
   * This call stores a value where another part of the estate reads it back (`accessor.setHeader(name, value)`: the
   * message header `name`): the store (`header`), the key's value and the value stored. A `stored(header, key)`
   * value operation reads it.
   */
  stores?: { store: string; key: ValueOp; value: ValueOp };
}

/**
 * A message send: the destination's value; `protocol` `binding` for Spring Cloud Stream (the destination is a binding
 * name, bound by configuration). Rabbit's `routed` form: with at least `min_args` arguments and a string in the
 * routing key's place, the exchange and the routing key.
 */
export interface MessageSink {
  protocol: string;
  framework: string;
  destination: ValueOp;
  minArgs?: number;
  /** With fewer than `minArgs` arguments, the message goes here instead (`convertAndSend(payload)`: the template's default destination, `receiver`). */
  defaultDestination?: ValueOp;
  /**
   * Where the class of the message sent is (dispatch by class, Eventuate Tram): `argN` (an object or a class literal),
   * or `chain` (the `message_type` role of the nearest call up the receiver chain: `send(command).to(channel)`).
   */
  messageType?: string;
  routed?: { minArgs: number; exchange: ValueOp; key: ValueOp };
}

/**
 * A value operation: `receiver`, `empty`, `'text'` (that text), `argN`, `argN:name` (the Kotlin named argument `name`,
 * else argument N), `argsN` (arguments from N on), `superN` (argument N of the
 * `super(…)` call in the constructor of the receiver's project class), `typeargN` (the class, by qualified name, that
 * the receiver's project type gives as type argument N of the library type the call lands on:
 * `interface OrderEvents extends DomainEventPublisherForAggregate<Order, …>`), or `op(operand, …)` with op one of `concat`,
 * `path`, `segments`, `resolve`, `scheme`, `host`, `port`, `service`, `format`, `simple_name`, `config` (`config('a.{}.b',
 * argN)`: the configuration value at the key the operand completes), `placeholders` (`placeholders('${ENV:folio}.{}.{}',
 * arg1, arg0)`: the text with each `{}` the next operand, then its `${…}` placeholders resolved as Spring would
 * against the service's configuration and environment: `System.getenv(name)` is `placeholders('${{}}', arg0)`), `join` (`join(arg0, args1)`: the arguments from 1 on with argument 0 between them), `strip_suffix` and
 * `strip_prefix` (`removeSuffix("/")`), `replace`, `replace_first` (a Java regex and its replacement) and
 * `replace_text` (text as written), applied to what is known of the receiver, `method` (`method(target, name, 'default')`: a
 * listener reference `pkg.Type#name` to the method `name` of the target's project class, the target an argument of
 * that class or a listener reference whose class it keeps; `name` counts when the call has it and it is a String,
 * else the default), `any` (`any(receiver, arg0)`: any of the operands' values, `Optional.orElse`), `stored`
 * (`stored('header', arg0)`: the value stored under that key, a hole that says where, see `LibraryMethod.stores`),
 * `bean_names` (`bean_names('org.springframework.messaging.MessageChannel')`: the names of the service's `@Bean`
 * methods of that type, the beans an object of the type the framework passes in can be);
 * `a|b` takes the first operand the call has.
 */
export type ValueOp = { op: string; operands: string[] };

/**
 * An annotation that makes a method a message listener whose destination is an annotation argument
 * (`@EventuateDomainEventHandler(subscriberId = …, channel = …)`), dispatched by the class of the message: the
 * handler's parameter (`param0`), or a type argument of it (`param0.typearg0`: `DomainEventEnvelope<E>` gives E).
 */
export interface HandlerAnnotation {
  /** Qualified name of the annotation. */
  annotation: string;
  protocol: string;
  framework: string;
  /** The annotation argument that names the destination. */
  destination: string;
  message_type?: string;
}

export interface ConfigurationPropertiesRow {
  type: string;
  prefix: string;
}

interface MessageRow {
  protocol: string;
  framework: string;
  destination: string;
  min_args?: number;
  default_destination?: string;
  message_type?: string;
  routed?: { min_args: number; exchange: string; key: string };
}

interface LibraryFile {
  supertypes: Record<string, string[]>;
  methods: (Omit<LibraryMethod, 'value' | 'http' | 'httpMethod' | 'message' | 'roles' | 'configures' | 'lambdaArgs' | 'stores'> & {
    stores?: { store: string; key: string; value: string };
    value?: string;
    lambda_args?: string[];
    configures?: string;
    http_method?: string;
    http?: { method: string; url: string };
    message?: MessageRow;
    roles?: Record<string, string>;
    note?: string;
  })[];
  configuration_properties: (ConfigurationPropertiesRow & { note?: string })[];
  /** Types whose injected instances are told apart by bean name (a Stream channel is the binding of its name). */
  named_beans?: { type: string; note?: string }[];
  handler_annotations?: (HandlerAnnotation & { note?: string })[];
}

const OPS = new Set(['concat', 'path', 'segments', 'resolve', 'scheme', 'host', 'port', 'service', 'format', 'simple_name', 'config', 'placeholders', 'join', 'strip_suffix', 'strip_prefix', 'replace', 'replace_first', 'replace_text', 'method', 'any', 'stored', 'bean_names']);
/** `argN:name`: the Kotlin named argument `name`, else argument N (a library function called with named arguments). */
const OPERAND = /^(receiver|empty|args?\d|arg\d:[A-Za-z_]\w*|super\d|typearg\d|'[^'|(),]*')$/;

export function parseValueOp(text: string): ValueOp {
  if (text.includes('|')) {
    const operands = text.split('|');
    for (const o of operands) if (!OPERAND.test(o)) throw new Error(`library.json: bad operand ${JSON.stringify(o)} in ${JSON.stringify(text)}`);
    return { op: 'either', operands };
  }
  const call = /^(\w+)\(([^()]*)\)$/.exec(text);
  if (!call) {
    if (!OPERAND.test(text)) throw new Error(`library.json: bad value operation ${JSON.stringify(text)}`);
    return { op: 'id', operands: [text] };
  }
  const operands = call[2]!.split(',').map((s) => s.trim());
  if (!OPS.has(call[1]!) || operands.some((o) => !OPERAND.test(o))) throw new Error(`library.json: bad value operation ${JSON.stringify(text)}`);
  return { op: call[1]!, operands };
}

function messageTypeSpec(text: string): string {
  if (!/^(arg\d|chain)$/.test(text)) throw new Error(`library.json: bad message_type ${JSON.stringify(text)}`);
  return text;
}

function messageSink(row: MessageRow): MessageSink {
  return {
    protocol: row.protocol,
    framework: row.framework,
    destination: parseValueOp(row.destination),
    ...(row.min_args !== undefined ? { minArgs: row.min_args } : {}),
    ...(row.default_destination !== undefined ? { defaultDestination: parseValueOp(row.default_destination) } : {}),
    ...(row.message_type !== undefined ? { messageType: messageTypeSpec(row.message_type) } : {}),
    ...(row.routed ? { routed: { minArgs: row.routed.min_args, exchange: parseValueOp(row.routed.exchange), key: parseValueOp(row.routed.key) } } : {}),
  };
}

/** The root type every library and project type extends, as the table names it. */
const ANY = 'kotlin.Any';

export class Library {
  private readonly methods = new Map<string, LibraryMethod[]>();
  private readonly supers: Map<string, string[]>;
  private readonly configTypes: Map<string, string>;
  private readonly namedBeans: Set<string>;
  private readonly handlers: Map<string, HandlerAnnotation[]>;

  constructor(file: LibraryFile) {
    this.supers = new Map(Object.entries(file.supertypes));
    this.namedBeans = new Set((file.named_beans ?? []).map((b) => b.type));
    this.handlers = new Map();
    for (const row of file.handler_annotations ?? []) {
      if (!/^param\d(\.typearg\d)?$/.test(row.message_type ?? 'param0')) throw new Error(`library.json: bad message_type ${JSON.stringify(row.message_type)} of ${row.annotation}`);
      const { note: _note, ...annotation } = row;
      const simple = row.annotation.slice(row.annotation.lastIndexOf('.') + 1);
      this.handlers.set(simple, [...(this.handlers.get(simple) ?? []), annotation]);
    }
    for (const row of file.methods) {
      const method: LibraryMethod = { owner: row.owner, name: row.name };
      if (row.static) method.static = true;
      if (row.returns) method.returns = row.returns;
      if (row.value) method.value = parseValueOp(row.value);
      if (row.http_method) method.httpMethod = row.http_method;
      if (row.http) method.http = { method: row.http.method, url: parseValueOp(row.http.url) };
      if (row.message) method.message = messageSink(row.message);
      if (row.roles) method.roles = Object.fromEntries(Object.entries(row.roles).map(([k, v]) => [k, parseValueOp(v)]));
      if (row.declares) method.declares = row.declares;
      if (row.configures) method.configures = parseValueOp(row.configures);
      if (row.lambda) method.lambda = row.lambda;
      if (row.lambda_args) method.lambdaArgs = row.lambda_args.map(parseValueOp);
      if (row.stores) method.stores = { store: row.stores.store, key: parseValueOp(row.stores.key), value: parseValueOp(row.stores.value) };
      const key = `${row.owner}#${row.name}`;
      this.methods.set(key, [...(this.methods.get(key) ?? []), method]);
    }
    this.configTypes = new Map(file.configuration_properties.map((r) => [r.type, r.prefix]));
  }

  /**
   * The row for `owner#name`, looked up on the type and then its library supertypes (breadth first), and last on
   * `kotlin.Any` (the root of every type: Kotlin's scope functions `let`, `also` … extend it); with several rows of
   * that name, `onType` says whether the call is made on the type (a static row) or on an instance.
   */
  method(owner: string, name: string, onType?: () => boolean): LibraryMethod | undefined {
    const seen = new Set<string>();
    const queue = [owner];
    for (let t = queue.shift(); t !== undefined; t = queue.shift() ?? (seen.has(ANY) ? undefined : ANY)) {
      if (seen.has(t)) continue;
      seen.add(t);
      const rows = this.methods.get(`${t}#${name}`);
      // Kotlin's `String.format(f, x)` and `f.format(x)`: a static row and an instance row of one name.
      if (rows && rows.length > 1 && onType) {
        const isStatic = onType();
        return rows.find((r) => !!r.static === isStatic) ?? rows[0];
      }
      if (rows) return rows[0];
      queue.push(...(this.supers.get(t) ?? []));
    }
    return undefined;
  }

  /** Whether a library type is `ancestor` or extends it, as the table's supertypes say. */
  isA(type: string, ancestor: string): boolean {
    const seen = new Set<string>();
    for (const queue = [type]; queue.length; ) {
      const t = queue.shift()!;
      if (t === ancestor) return true;
      if (seen.has(t)) continue;
      seen.add(t);
      queue.push(...(this.supers.get(t) ?? []));
    }
    return false;
  }

  /** Whether an injected instance of this type is the bean of its name (`@Autowired MessageChannel output` is binding `output`). */
  namedBean(type: string | undefined): boolean {
    return type !== undefined && this.namedBeans.has(type);
  }

  /** The configuration prefix a library class is bound from, when the table lists it. */
  configurationPrefix(type: string): string | undefined {
    return this.configTypes.get(type);
  }

  /** Names of the methods whose calls send a request or a message (a cheap test before resolving a call). */
  sendingNames(): ReadonlySet<string> {
    this.sending ??= new Set(this.rows().filter((r) => r.http || r.message).map((r) => r.name));
    return this.sending;
  }

  private sending: Set<string> | undefined;

  /** Names of the methods whose calls set the value of their receiver object (a cheap test before resolving a call). */
  configuringNames(): ReadonlySet<string> {
    this.configuring ??= new Set(this.rows().filter((r) => r.configures).map((r) => r.name));
    return this.configuring;
  }

  private configuring: Set<string> | undefined;

  /** Names of the methods whose calls store a value another part of the estate reads back (`setHeader`). */
  storingNames(): ReadonlySet<string> {
    this.storing ??= new Set(this.rows().filter((r) => r.stores).map((r) => r.name));
    return this.storing;
  }

  private storing: Set<string> | undefined;

  /** The handler annotations of a simple name (an annotation on a method that makes it a message listener). */
  handlerAnnotations(simpleName: string): readonly HandlerAnnotation[] {
    return this.handlers.get(simpleName) ?? [];
  }

  /** Every handler annotation, for documentation. */
  handlerAnnotationRows(): HandlerAnnotation[] {
    return [...this.handlers.values()].flat();
  }

  /** Library classes bound from configuration, for documentation. */
  configurationRows(): { type: string; prefix: string }[] {
    return [...this.configTypes].map(([type, prefix]) => ({ type, prefix }));
  }

  /** Every row, for documentation. */
  rows(): LibraryMethod[] {
    return [...this.methods.values()].flat();
  }
}

const require = createRequire(import.meta.url);

/** The table shipped with Sextant. */
export const LIBRARY = new Library(require('./library.json') as LibraryFile);
