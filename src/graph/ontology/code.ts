import type { OntologyModule, PropertyDef } from './types.js';

export const SYMBOL_KINDS = ['class', 'interface', 'enum', 'record', 'annotation', 'method', 'constructor'] as const;
export const ROLES = ['CONTROLLER', 'SERVICE', 'REPOSITORY', 'COMPONENT', 'CONFIG', 'ENTITY', 'CLIENT', 'MAPPER', 'DTO', 'OTHER'] as const;
export const CAPABILITIES = ['MESSAGE_LISTENER', 'MESSAGE_PRODUCER', 'HTTP_CLIENT', 'SCHEDULED_TASK', 'EXCEPTION_HANDLER'] as const;
export type Role = (typeof ROLES)[number];
export type Capability = (typeof CAPABILITIES)[number];
export const PROTOCOLS = ['http', 'kafka', 'rabbit', 'jms', 'sqs', 'sns', 'servicebus', 'axon', 'eventuate'] as const;
/**
 * What an unresolved value stopped at: a configuration key no file sets (`configuration`), one the deployment
 * leaves to the environment it runs in (`environment`), a method parameter no call site in the estate binds, a
 * field, a local, a call whose result cannot be followed, another expression, or a bound on the work (`limit`).
 */
/** Route frameworks whose routes forward what they accept to other services' routes (FORWARDS) rather than serve it. */
export const FORWARDING_FRAMEWORKS: ReadonlySet<string> = new Set(['spring_cloud_gateway', 'zuul', 'nginx', 'httpd']);

export const HOLE_KINDS = ['configuration', 'environment', 'parameter', 'field', 'local', 'call', 'expression', 'limit'] as const;
/** Routes, clients and producers: which profile gave a placeholder its value. */
const PROFILE_PROPERTY: PropertyDef = { name: 'profile', type: 'string', description: 'The Spring profile(s) whose configuration gave a ${…} placeholder its value, when the default profile does not set it (application-dev.yml, an on-profile document).', filter: ['eq'] };
/** How a member or type names a type it USES (see the edge's description). */
export const USE_VIAS = ['field', 'parameter', 'return', 'type_argument', 'local', 'new', 'cast', 'instanceof', 'class_literal', 'static', 'annotation', 'pointcut'] as const;
export type UseVia = (typeof USE_VIAS)[number];
/** How a build declares a dependency, Maven's scopes and Gradle's configurations mapped onto one list. */
export const DEPENDENCY_SCOPES = ['compile', 'provided', 'runtime', 'test', 'system', 'import', 'parent', 'annotation_processor', 'development', 'other'] as const;
/** HTTP methods a route or client names; ANY when a mapping names none. */
export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS', 'ANY'] as const;

/** A path variable: the text between its braces (`id`, `id:[0-9]+`, JAX-RS `id: \\d+`). */
export interface PathVariable {
  inner: string;
}

/**
 * A route or client path as literal text and variables, in one linear pass. Braces nest (`{id:[0-9]{3}}` is one
 * variable) and a backslash inside a variable escapes the next character; a `{` that is never closed is text.
 */
export function pathTokens(path: string): (string | PathVariable)[] {
  // Each `{` paired with its `}` by a stack, then the outermost pairs are the variables.
  const closing = new Map<number, number>();
  const open: number[] = [];
  for (let i = 0; i < path.length; i++) {
    const c = path[i];
    if (c === '\\' && open.length) i++;
    else if (c === '{') open.push(i);
    else if (c === '}' && open.length) closing.set(open.pop()!, i);
  }
  const out: (string | PathVariable)[] = [];
  let literal = '';
  for (let i = 0; i < path.length; i++) {
    const end = path[i] === '{' ? closing.get(i) : undefined;
    if (end === undefined) {
      literal += path[i];
      continue;
    }
    if (literal) out.push(literal);
    literal = '';
    out.push({ inner: path.slice(i + 1, end) });
    i = end;
  }
  if (literal) out.push(literal);
  return out;
}

/**
 * What `path_pattern` holds: the path with every variable written `{}` (`/orders/{id}` → `/orders/{}`, and
 * `/{id:[0-9]{3}}` → `/{}`). An unclosed `{` stays as written.
 */
export function pathPattern(path: string): string {
  return pathTokens(path).map((t) => (typeof t === 'string' ? t : '{}')).join('');
}

/** How many segments of a path pattern are literal, neither a variable nor a wildcard: how specific a mapping is. */
export function literalSegmentCount(pattern: string): number {
  return pattern.split('/').filter((seg) => seg && !seg.includes('{') && !seg.includes('*')).length;
}

/** What routes and clients both say of an HTTP call: protocol, method and path (as composed, and as matched). */
function httpProperties(pathDescription: string): PropertyDef[] {
  return [
    { name: 'protocol', type: 'enum', values: PROTOCOLS, description: 'What kind of endpoint or call.', filter: ['eq'] },
    { name: 'http_method', type: 'enum', values: HTTP_METHODS, description: 'HTTP method (ANY when the mapping names none).', filter: ['eq', 'exclude'] },
    { name: 'path', type: 'string', description: pathDescription, filter: ['eq', 'prefix'], searchable: true },
    { name: 'path_pattern', type: 'string', description: 'The path with every variable written {} (what matching compares).', filter: ['eq', 'prefix'] },
  ];
}

/** The code ontology (DESIGN.md §5): services, symbols, routes and the edges between them. */
/** Where an unresolved client, producer or listener stopped: what to fix or pin (the coverage report groups by them). */
const UNRESOLVED_PROPERTIES: PropertyDef[] = [
  { name: 'unresolved_kind', type: 'enum', values: HOLE_KINDS, description: 'When resolved is false: what kind of value the evaluation stopped at (configuration: a key no file in the estate sets; environment: a key the deployment leaves to the environment it runs in; parameter, field, local, call, expression; limit: a bound on the work).', filter: ['eq', 'exclude'] },
  { name: 'unresolved_at', type: 'string', description: 'When resolved is false: the configuration key, variable, parameter (Type#method(param)) or expression the value stopped at.', filter: ['eq', 'prefix'] },
];

export const CODE_ONTOLOGY: OntologyModule = {
  sourceKind: 'code',
  description: 'Java and Kotlin source trees (Spring first): services, types, members, injection, calls and HTTP routes.',
  nodeKinds: [
    {
      name: 'service',
      idPrefix: 'sv',
      description: 'A deployable: named by spring.application.name when the configuration has one, else by its build unit directory.',
      qualifiedNameFormat: 'the service name, e.g. order-service',
      location: ['service', 'file'],
      searchPrior: 1.2,
      properties: [
        { name: 'name_from', type: 'enum', values: ['spring.application.name', 'directory', 'deployment'], description: 'Where the name comes from (deployment: a reverse proxy the estate runs, named by its compose service or Kubernetes workload).', filter: ['eq'] },
        { name: 'build_tool', type: 'enum', values: ['maven', 'gradle', 'none'], description: 'Build tool of the service root.', filter: ['eq'] },
        { name: 'directory', type: 'string', description: 'Directory of the service, relative to the source root (empty for the root).', filter: ['eq', 'prefix'] },
        { name: 'modules', type: 'string_list', description: 'Build modules grouped under the service.', filter: ['eq'] },
        { name: 'files', type: 'integer', description: 'Number of indexed source files.', filter: ['range'] },
        { name: 'hosts', type: 'string_list', description: 'Host names the estate\'s deployment files address it by (compose service, container_name, hostname, aliases, Kubernetes workload and Service names); clients calling these hosts reach it.', filter: ['eq'] },
      ],
    },
    {
      name: 'symbol',
      idPrefix: 'sy',
      description: 'A type (class, interface, enum, record, annotation) or a member (method, constructor) of Java or Kotlin code; library types and methods the code uses are external symbols with resolved = false.',
      qualifiedNameFormat: 'types pkg.Outer.Inner (anonymous pkg.Outer$1, Kotlin file facade pkg.FileKt); members pkg.Type#name(SimpleParamType,…), constructors pkg.Type#<init>(…)',
      location: ['service', 'module', 'file', 'line'],
      searchPrior: 1,
      properties: [
        { name: 'symbol_kind', type: 'enum', values: SYMBOL_KINDS, description: 'What the symbol is.', filter: ['eq', 'exclude'] },
        { name: 'language', type: 'enum', values: ['java', 'kotlin'], description: 'Source language.', filter: ['eq'] },
        { name: 'package', type: 'string', description: 'Package.', filter: ['eq', 'prefix'] },
        { name: 'declaring_type', type: 'string', description: 'Qualified name of the declaring type (members, nested types).', filter: ['eq'] },
        { name: 'inherited_from', type: 'string', description: 'A method a project type inherits from a library type and the estate calls on it (`ownerRepository.save(…)`: OwnerRepository#save, from JpaRepository): that library type. Calls land here, so callers and impact of the project type see them.', filter: ['eq'] },
        { name: 'signature', type: 'string', description: 'Members: name(SimpleParamType,…).' },
        { name: 'return_type', type: 'string', description: 'Methods: the declared return type as written (generics kept).' },
        { name: 'parameters', type: 'json', description: 'Members: [{name, type}] with types as written.' },
        { name: 'modifiers', type: 'string_list', description: 'Java modifiers (Kotlin mapped to their Java meaning, plus Kotlin ones such as suspend).', filter: ['eq'] },
        { name: 'annotations', type: 'string_list', description: 'Simple names of the annotations on the declaration.', filter: ['eq'], searchable: true },
        { name: 'annotation_args', type: 'json', description: 'Annotations with their arguments: [{name, written, args: {element: [{kind, text, value?}]}}].' },
        { name: 'role', type: 'enum', values: ROLES, description: 'Architectural role of a type (Spring stereotypes, meta-annotations, Spring Data, JPA, DTO conventions, sextant.yaml overrides).', filter: ['eq', 'exclude'] },
        { name: 'capabilities', type: 'string_list', values: CAPABILITIES, description: 'What a type does besides its role.', filter: ['eq'] },
        { name: 'flavor', type: 'string', description: 'Kotlin flavour (object, companion, data, sealed, facade, value), anonymous or local.', filter: ['eq'] },
        { name: 'generated', type: 'boolean', description: 'Generated source (@Generated, a generator banner, or sextant.yaml patterns).', filter: ['eq'] },
        { name: 'generated_by', type: 'string', description: 'Generator when known (openapi, protobuf, mapstruct, lombok, …).', filter: ['eq'] },
        { name: 'synthetic', type: 'string', description: 'How a member not written in source arises (default_constructor, record_accessor, property_getter, …).', filter: ['eq'] },
        { name: 'resolved', type: 'boolean', description: 'False for an external symbol: a library type or method the code refers to, outside the indexed sources.', filter: ['eq'] },
        { name: 'end_line', type: 'integer', description: 'Last line of the declaration.' },
        { name: 'parse_errors', type: 'integer', description: 'Syntax errors tree-sitter recovered from in the file (types only).', filter: ['range'] },
      ],
    },
    {
      name: 'unresolved_call',
      idPrefix: 'uc',
      description: 'A call site whose receiver type could not be determined statically: kept so callers can see it, never guessed onto a method.',
      qualifiedNameFormat: 'Caller#method(…)@line:receiver.callee',
      location: ['service', 'module', 'file', 'line'],
      searchPrior: 0.3,
      properties: [
        { name: 'callee', type: 'string', description: 'Name of the method called.', filter: ['eq'] },
        { name: 'receiver', type: 'string', description: 'The receiver expression as written (structured).' },
        { name: 'arg_count', type: 'integer', description: 'Number of arguments (-1 for a method reference).' },
        { name: 'reason', type: 'enum', values: ['unknown_receiver', 'unknown_member', 'untyped_lambda_parameter', 'unknown_return_type'], description: 'Why the call could not be resolved.', filter: ['eq'] },
      ],
    },
    {
      name: 'route',
      idPrefix: 'rt',
      description: 'An inbound endpoint a service exposes, with the handler method that serves it: an HTTP route (method and path template) from Spring MVC/WebFlux mappings, functional RouterFunction beans or JAX-RS, or a message destination a listener consumes (Kafka topic, Rabbit queue, JMS destination, Spring Cloud Stream binding).',
      qualifiedNameFormat: 'service METHOD /path/{var} (order-service GET /orders/{id}), or service protocol destination (billing-service kafka orders.events)',
      location: ['service', 'module', 'file', 'line'],
      searchPrior: 1.1,
      properties: [
        ...httpProperties('The path as composed from the type-level and method-level mappings, variables named as written.'),
        { name: 'path_regex', type: 'string', description: 'A regular expression (RE2/J syntax, matched whole) a concrete request path matches, with the path variables\' own regexes.' },
        { name: 'destination', type: 'string', description: 'Messaging: the topic, queue or destination consumed.', filter: ['eq', 'prefix'], searchable: true },
        { name: 'destination_regex', type: 'string', description: 'Messaging: the topic pattern consumed (Kafka topicPattern), when given instead of names.' },
        { name: 'framework', type: 'enum', values: ['spring_mvc', 'spring_functional', 'jax_rs', 'spring_data_rest', 'actuator', 'spring_kafka', 'spring_rabbit', 'spring_jms', 'spring_cloud_aws', 'azure_servicebus', 'spring_cloud_stream', 'eventuate_tram', 'axon', 'spring_cloud_gateway', 'zuul', 'nginx', 'httpd'], description: 'Where the mapping or listener comes from (spring_functional: a RouterFunction bean; azure_servicebus: a ServiceBusProcessorClient\'s message handler; spring_cloud_stream: a functional Consumer/Function bean or @StreamListener, bound to its destination by configuration; eventuate_tram: a DomainEventHandlersBuilder or command handlers builder, or an @EventuateDomainEventHandler or @EventuateCommandHandler method, its channel the aggregate type or command channel; spring_cloud_gateway, zuul, nginx and httpd: a gateway or reverse-proxy route, which FORWARDS to the routes of its target; spring_data_rest and actuator: routes a framework serves for the service).', filter: ['eq'] },
        { name: 'exchange', type: 'string', description: 'Rabbit listeners: the exchange their queue is bound to by the listener\'s own declaration (@QueueBinding).', filter: ['eq'] },
        { name: 'binding_keys', type: 'string_list', description: 'Rabbit listeners: the routing keys (topic patterns) their queue is bound with.' },
        { name: 'context_path', type: 'string', description: 'The prefix the service serves every route under (server.servlet.context-path, spring.mvc.servlet.path, spring.webflux.base-path), already part of path.', filter: ['eq'] },
        { name: 'management_port', type: 'string', description: 'Actuator routes served on management.server.port, not on the service\'s main port: gateways, proxies and clients of the main port do not reach them.' },
        { name: 'gateway_target', type: 'string', description: 'Gateway routes: where requests go (lb://service, http://host:port), and how the path is rewritten (StripPrefix, PrefixPath, RewritePath).' },
        { name: 'target_services', type: 'string_list', description: 'Gateway and proxy routes: the services of the estate they forward to (whether or not a route of theirs accepts the forwarded path).', filter: ['eq'] },
        { name: 'handler', type: 'string', description: 'Qualified name of the handler method.', filter: ['eq'] },
        { name: 'function_composition', type: 'string', description: 'A Spring Cloud Stream listener fed to a function composition (a `spring.cloud.function.definition` entry that joins functions with a bar, `email` then `sms`): the composition as written, each function taking the previous one\'s result; `handler` is its first function, and the last one\'s output binding is a producer.', filter: ['eq'] },
        { name: 'message_type', type: 'string', description: 'Messaging dispatched by message class (Eventuate Tram): the qualified class name of the event or command the handler takes (DomainEventEnvelope<E>, CommandMessage<C>, onEvent(E.class, …)); a send on its destination reaches it only when it can carry that class.', filter: ['eq'] },
        { name: 'controller', type: 'string', description: 'Qualified name of the controller type whose bean serves the route (the handler may be inherited, e.g. from a generated API interface).', filter: ['eq'] },
        { name: 'path_written', type: 'string', description: 'The mapping values as written, when the path comes from constants or ${…} placeholders (ApiPaths.ORDERS + BY_ID).' },
        { name: 'declared', type: 'boolean', description: 'False for a route no indexed code declares: the target a client names when nothing matches it (its HTTP_CALLS edge says unmatched).', filter: ['eq'] },
        PROFILE_PROPERTY,
        { name: 'resolved', type: 'boolean', description: 'False when part of the path is something the source does not state (an unknown constant, a placeholder without a value or default): that part is kept as written.', filter: ['eq'] },
        { name: 'unresolved_reason', type: 'string', description: 'When resolved is false: which value the estate does not determine, and where it comes from.' },
        ...UNRESOLVED_PROPERTIES,
      ],
    },
    {
      name: 'client',
      idPrefix: 'cl',
      description: 'An outbound HTTP call a service declares: a method of a Feign client or @HttpExchange interface, or a RestTemplate, WebClient or RestClient call site, with the service and path it calls.',
      qualifiedNameFormat: 'service -> target-service METHOD /path, e.g. order-service -> billing-service POST /invoices',
      location: ['service', 'module', 'file', 'line'],
      searchPrior: 1,
      properties: [
        ...httpProperties('The path called, composed from the client-level and method-level mappings.'),
        { name: 'path_written', type: 'string', description: 'The mapping values as written, when constants or placeholders were involved.' },
        { name: 'target_service', type: 'string', description: 'The service called: the Feign client name, or the host of the URL (a discovery name: http://billing-service/…); absent when the source does not name it (a relative URL).', filter: ['eq'] },
        { name: 'target_url', type: 'string', description: 'The base URL the client is configured with, when it has one (Feign url, @HttpExchange url, a WebClient/RestTemplate builder baseUrl/rootUri in the calling class).' },
        { name: 'target_port', type: 'integer', description: 'The port of a loopback URL (http://localhost:8099/…): the service of the estate listening there (server.port, a published compose port) whose routes fit the call is its target (strategy local_port).' },
        { name: 'framework', type: 'enum', values: ['feign', 'http_exchange', 'rest_template', 'web_client', 'rest_client', 'java_http_client'], description: 'How the call is declared (java_http_client: the JDK\'s java.net.http.HttpClient).', filter: ['eq'] },
        { name: 'caller', type: 'string', description: 'Qualified name of the method that declares or makes the call.', filter: ['eq'] },
        { name: 'match', type: 'enum', values: ['cross_service', 'intra_service', 'ambiguous', 'unmatched', 'external'], description: 'How the call matched the routes of its target service; external: its host is outside the estate (no indexed service, gateway or deployment name).', filter: ['eq', 'exclude'] },
        { name: 'resolved', type: 'boolean', description: 'False when the target or part of the path is something the source does not state (kept as written).', filter: ['eq'] },
        { name: 'unresolved_reason', type: 'string', description: 'When resolved is false: which value the estate does not determine, and where it comes from (a parameter, an injected bean, a configuration key set by no file).' },
        ...UNRESOLVED_PROPERTIES,
        { name: 'value_from', type: 'string_list', description: 'The configuration and deployment files (file: key) that gave the target or path its value.' },
        PROFILE_PROPERTY,
        { name: 'pinned', type: 'boolean', description: 'True when sextant.yaml `links.clients` names the target service (the source does not).', filter: ['eq'] },
      ],
    },
    {
      name: 'producer',
      idPrefix: 'pr',
      description: 'An outbound message send a service makes: a KafkaTemplate, RabbitTemplate, JmsTemplate or StreamBridge call site, or the output binding of a Spring Cloud Stream Supplier/Function bean, with the destination it sends to.',
      qualifiedNameFormat: 'service -> protocol destination, e.g. order-service -> kafka orders.events',
      location: ['service', 'module', 'file', 'line'],
      searchPrior: 1,
      properties: [
        { name: 'protocol', type: 'enum', values: PROTOCOLS, description: 'Messaging system.', filter: ['eq'] },
        { name: 'destination', type: 'string', description: 'The topic or destination sent to.', filter: ['eq', 'prefix'], searchable: true },
        { name: 'destination_written', type: 'string', description: 'The destination argument as written, when it is not a plain literal.' },
        { name: 'relayed_by', type: 'string', description: 'A message another send carries on (`Type#method (file:line)` of that send): the destination is chosen here and stored with the message — a header, an outbox row — and the relay reads it back and sends to it. The producer sits where the destination is chosen; the relay itself is not a producer of its own.', filter: ['eq'] },
        { name: 'exchange', type: 'string', description: 'Rabbit: the exchange a RabbitTemplate sends to; the destination is then the routing key, matched through the bindings the estate declares for that exchange (Binding beans, BindingBuilder, @QueueBinding: strategy exchange_binding), else to the queue of that name (strategy routing_key).' },
        { name: 'framework', type: 'enum', values: ['spring_kafka', 'spring_jms', 'spring_rabbit', 'spring_cloud_aws', 'aws_sdk', 'azure_servicebus', 'spring_cloud_stream', 'eventuate_tram', 'axon', 'debezium'], description: 'The template the call goes through (spring_cloud_aws: SqsTemplate; aws_sdk: the AWS SDK\'s SqsClient/SqsAsyncClient; azure_servicebus: the Azure SDK\'s ServiceBusSenderClient; spring_cloud_stream: StreamBridge.send, or a Supplier/Function bean\'s output binding; eventuate_tram: a domain event publisher, command producer or saga command endpoint; debezium: a change-data-capture connector the estate registers, publishing a table\'s changes).', filter: ['eq'] },
        { name: 'connector', type: 'string', description: 'Change-data-capture producers: the Debezium connector class (io.debezium.connector.postgresql.PostgresConnector).', filter: ['eq'] },
        { name: 'dead_letter_of', type: 'string', description: 'Rabbit: this is the dead-letter flow of the named queue (its x-dead-letter-exchange and routing key): what the queue rejects or lets expire goes here.', filter: ['eq'] },
        { name: 'ttl_ms', type: 'integer', description: 'Rabbit dead-letter flows: the queue\'s message TTL, after which messages are dead-lettered.' },
        { name: 'unresolved_reason', type: 'string', description: 'When resolved is false: which value the estate does not determine, and where it comes from.' },
        { name: 'value_from', type: 'string_list', description: 'The configuration and deployment files (file: key) that gave the destination its value.' },
        ...UNRESOLVED_PROPERTIES,
        { name: 'caller', type: 'string', description: 'Qualified name of the method making the call.', filter: ['eq'] },
        { name: 'message_types', type: 'string_list', description: 'Messaging dispatched by message class (Eventuate Tram): the project classes the send can carry, when the estate determines them (the class created at the call, a class literal, or the concrete project classes of the argument\'s static type); it reaches a listener that names its message_type only when that class is one of them.' },
        { name: 'match', type: 'enum', values: ['cross_service', 'intra_service', 'unmatched'], description: 'Whether a listener in another service, the same service, or none consumes the destination.', filter: ['eq', 'exclude'] },
        { name: 'resolved', type: 'boolean', description: 'False when the destination is not something the source states (kept as written).', filter: ['eq'] },
        PROFILE_PROPERTY,
        { name: 'pinned', type: 'boolean', description: 'True when sextant.yaml `links.destinations` names the destination (the source does not).', filter: ['eq'] },
      ],
    },
    {
      name: 'dependency',
      idPrefix: 'dp',
      description:
        'A library a build file declares: a Maven <dependency> (annotation processor paths of the compiler plugin included), a BOM import or an external <parent>; a Gradle dependency (string, map or named notation, version catalog alias, platform, project) or a dependency-management BOM. The version is what the estate determines: written in place, from properties (${spring-cloud.version}, gradle.properties, ext/extra), the estate\'s parent and dependencyManagement, imported BOMs and platforms in the estate, or the version catalog; nothing is downloaded. The services whose builds include it DEPENDS_ON it.',
      qualifiedNameFormat: 'group:artifact, e.g. org.springframework.kafka:spring-kafka',
      location: ['service', 'module', 'file', 'line'],
      searchPrior: 1.25,
      properties: [
        { name: 'group', type: 'string', description: 'Group id (as written when the estate does not determine it).', filter: ['eq', 'prefix', 'contains'] },
        { name: 'artifact', type: 'string', description: 'Artifact id (Gradle: module name).', filter: ['eq', 'prefix', 'contains'] },
        { name: 'version', type: 'string', description: 'The version, when the estate determines it; absent otherwise (see version_unresolved_reason).', filter: ['eq', 'prefix'] },
        { name: 'version_written', type: 'string', description: 'The version as written, when it is not a literal (${spring-cloud.version}, $kotlinVersion, libs.versions.spring).' },
        { name: 'version_from', type: 'string_list', description: 'Where the version comes from when not written in place (file:line of the property, dependencyManagement entry, constraint or catalog entry).' },
        { name: 'version_unresolved_reason', type: 'string', description: 'Why the version is absent: managed by a parent or BOM outside the estate (see managed_by), a property set by no file in the estate, or no version anywhere.' },
        { name: 'managed_by', type: 'string_list', description: 'When the version is absent: the parents, BOMs and platforms outside the estate that may set it (group:artifact:version).' },
        { name: 'scope', type: 'enum', values: DEPENDENCY_SCOPES, description: 'Maven scope, or the Gradle configuration mapped onto it (implementation/api → compile, compileOnly → provided, runtimeOnly → runtime, test* → test, annotationProcessor/kapt/ksp → annotation_processor, developmentOnly → development); import: a BOM; parent: the external <parent> of a pom.', filter: ['eq', 'exclude'] },
        { name: 'configuration', type: 'string', description: 'Gradle: the configuration as written (implementation, testRuntimeOnly, mavenBom, …).', filter: ['eq'] },
        { name: 'classifier', type: 'string', description: 'Classifier, when one is given.' },
        { name: 'optional', type: 'boolean', description: 'Maven <optional>true</optional>.', filter: ['eq'] },
        { name: 'platform', type: 'boolean', description: 'A BOM or platform: it manages versions and adds no classes (Maven import scope or parent, Gradle platform/enforcedPlatform, mavenBom).', filter: ['eq'] },
        { name: 'internal', type: 'boolean', description: 'The artifact is built by a module of the estate (see built_by).', filter: ['eq'] },
        { name: 'built_by', type: 'string', description: 'The service whose module builds the artifact, when it is internal.', filter: ['eq'] },
        { name: 'build_tool', type: 'enum', values: ['maven', 'gradle'], description: 'Build tool of the declaring file.', filter: ['eq'] },
        { name: 'profile', type: 'string', description: 'Maven: the build profile (<profiles><profile><id>) that declares it.', filter: ['eq'] },
      ],
    },
    {
      name: 'config_key',
      idPrefix: 'ck',
      description:
        'A configuration key a service\'s configuration sets: a key of its application or bootstrap files (YAML or properties, each profile document apart), of a file a config server in the estate serves it (origin config_server), or an environment variable its deployment sets (origin deployment, key in relaxed form). The value is kept only when it is not secret-looking: a key naming a password, secret, token, credential or key, and a value that looks like a credential, are never stored (secret: true says which rule held). The services whose configuration includes it READS_CONFIG it.',
      qualifiedNameFormat: 'file: key (file [profile]: key for a profile document; file unit: ENV_NAME for a deployment variable)',
      location: ['service', 'module', 'file', 'line'],
      searchPrior: 0.9,
      properties: [
        { name: 'key', type: 'string', description: 'The key as written (flattened: a.b.c, lists a.b[0]); a deployment variable in relaxed form (SPRING_DATA_REDIS_HOST → spring.data.redis.host).', filter: ['eq', 'prefix', 'contains'] },
        { name: 'value', type: 'string', description: 'The value as written (placeholders kept), absent when secret.', filter: ['eq', 'contains'] },
        { name: 'secret', type: 'boolean', description: 'True when the value is withheld because the key or the value looks like a credential.', filter: ['eq'] },
        { name: 'secret_reason', type: 'string', description: 'Which rule withheld the value.' },
        { name: 'references', type: 'string_list', description: 'The keys and environment variables the value refers to (${NAME}, $NAME), defaults dropped; kept for secrets too.', filter: ['eq'] },
        { name: 'profile', type: 'string', description: 'The Spring profile that sets it (application-dev.yml, an on-profile document); absent for the default profile.', filter: ['eq'] },
        { name: 'origin', type: 'enum', values: ['service_file', 'config_server', 'deployment'], description: 'Where the value comes from: the service\'s own files, a config server in the estate, or the deployment\'s environment.', filter: ['eq'] },
        { name: 'env_var', type: 'string', description: 'Deployment: the environment variable as written.', filter: ['eq'] },
        { name: 'for_services', type: 'string_list', description: 'The services whose configuration it is part of (several for a config server\'s shared application.yml).', filter: ['eq'] },
        { name: 'unresolved_reason', type: 'string', description: 'Deployment: why the value is not known (left to the environment the deployment runs in).' },
      ],
    },
  ],
  edgeTypes: [
    {
      name: 'DEPENDS_ON',
      description: 'A service\'s build includes a dependency: declared by one of its modules\' build files (via declared), or inherited from a parent pom, a Gradle subprojects/allprojects block or project(…) block outside them (via parent).',
      from: ['service'],
      to: ['dependency'],
      attrs: [
        { name: 'scope', type: 'enum', values: DEPENDENCY_SCOPES, description: 'The dependency\'s scope.', filterable: true },
        { name: 'via', type: 'enum', values: ['declared', 'parent'], description: 'Declared by the service\'s own build files, or inherited.', filterable: true },
      ],
      inferred: false,
    },
    {
      name: 'READS_CONFIG',
      description: 'A service\'s configuration includes a key: from its own files, a config server in the estate, or its deployment\'s environment.',
      from: ['service'],
      to: ['config_key'],
      attrs: [{ name: 'overridden_by', type: 'string', description: 'Default profile: the file (or deployment file:line) whose value for this key wins for the service instead (remote configuration over local, environment over both).' }],
      inferred: false,
    },
    { name: 'EXTENDS', description: 'A class extends a class, or an interface extends an interface.', from: ['symbol'], to: ['symbol'], attrs: [], inferred: false },
    { name: 'IMPLEMENTS', description: 'A class (anonymous ones included) implements an interface.', from: ['symbol'], to: ['symbol'], attrs: [], inferred: false },
    { name: 'DECLARES', description: 'A type declares a member or a nested type.', from: ['symbol'], to: ['symbol'], attrs: [], inferred: false },
    { name: 'OVERRIDES', description: 'A method overrides (or implements) the nearest declaration of the same signature on each path up its supertype chain.', from: ['symbol'], to: ['symbol'], attrs: [], inferred: false },
    {
      name: 'INJECTS',
      description:
        'A bean type gets another injected. One edge to the declared type (strategy declared_type), and edges to the beans it resolves to: bean classes implementing an interface or abstract declared type, and @Bean methods returning the declared type or a subtype (unique_bean, qualifier, primary, bean_name, collection for List/Set/Map of beans, ambiguous).',
      from: ['symbol'],
      to: ['symbol'],
      attrs: [
        { name: 'mechanism', type: 'enum', values: ['field', 'constructor', 'setter', 'lombok'], description: 'How the dependency is injected.', filterable: true },
        { name: 'member', type: 'string', description: 'Field or parameter name.' },
        { name: 'declared_type', type: 'string', description: 'The type as written at the injection point (List<Foo>, Optional<Foo>, …).' },
        { name: 'qualifier', type: 'string', description: '@Qualifier / @Named / @Resource(name) value, when given.' },
      ],
      inferred: true,
    },
    {
      name: 'EXPOSES',
      description: 'A handler method serves a route. A method inherited by several controllers serves a route of each.',
      from: ['symbol'],
      to: ['route'],
      attrs: [],
      inferred: false,
    },
    {
      name: 'DECLARES_CLIENT',
      description: 'A method declares an outbound HTTP call (a Feign client method).',
      from: ['symbol'],
      to: ['client'],
      attrs: [],
      inferred: false,
    },
    {
      name: 'FORWARDS',
      description: 'A gateway or reverse-proxy route forwards to the routes of its target service it can reach: the request path rewritten as its filters say (StripPrefix, PrefixPath, a RewritePath prefix swap; nginx proxy_pass with or without a URI, and the location nginx would pick), matched by path pattern in the target service.',
      from: ['route'],
      to: ['route'],
      attrs: [
        { name: 'request_path', type: 'string', description: 'The path a request sent to the gateway or proxy has when it lands on this route (variables written {}), before rewriting.' },
        { name: 'request_regex', type: 'string', description: 'The concrete request paths sent to the gateway or proxy that land on this route (RE2/J syntax, matched whole): how `resolve` follows a URL through it.' },
      ],
      inferred: true,
    },
    {
      name: 'HTTP_CALLS',
      description: 'A client calls a route: matched by target service, HTTP method and path pattern (strategy service_method_path); a client whose target the source does not name (a relative URL, an HTTP interface without a URL) by method and path in any service (strategy method_path, confidence 0.5); a client whose path matches no route of its target but a gateway or proxy route of it (a call through the gateway host) reaches that route (strategy gateway_path), which FORWARDS on. Several matches are each ambiguous; none leads to an undeclared route (declared: false) with match unmatched.',
      from: ['client'],
      to: ['route'],
      attrs: [{ name: 'match', type: 'enum', values: ['cross_service', 'intra_service', 'ambiguous', 'unmatched', 'external'], description: 'How the call matched.', filterable: true }],
      inferred: true,
    },
    {
      name: 'DECLARES_PRODUCER',
      description: 'A method sends messages (a KafkaTemplate or JmsTemplate call site).',
      from: ['symbol'],
      to: ['producer'],
      attrs: [],
      inferred: false,
    },
    {
      name: 'ASYNC_CALLS',
      description: 'A producer reaches the listeners of its destination, in every service that consumes it; none leads to an undeclared route (declared: false) with match unmatched. Where dispatch is by message class (Eventuate Tram), a send whose classes the estate states (message_types) reaches only the handlers of one of them (strategy destination_message_type); one whose classes it does not state reaches every handler of the channel, at confidence 0.6 at most.',
      from: ['producer'],
      to: ['route'],
      attrs: [{ name: 'match', type: 'enum', values: ['cross_service', 'intra_service', 'unmatched'], description: 'How the send matched.', filterable: true }],
      inferred: true,
    },
    {
      name: 'SERVICE_CALLS',
      description: 'A service calls another: one edge per protocol, summing its clients\' calls to the other\'s routes (matched or not) and its producers\' sends to the other\'s listeners, so the topology is one hop away.',
      from: ['service'],
      to: ['service'],
      attrs: [
        { name: 'protocol', type: 'enum', values: PROTOCOLS, description: 'How the services talk.', filterable: true },
        { name: 'calls', type: 'integer', description: 'Client calls or message sends from one service to the other.' },
        { name: 'matched', type: 'integer', description: 'How many of them match a declared route.' },
      ],
      inferred: true,
    },
    {
      name: 'USES',
      description:
        'A member names a project type, and its type (rolled up) does too: one edge per way it is named (`via`). field: a field\'s declared type (from the type); parameter and return: a member\'s declared types; type_argument: a generic argument of a supertype (`extends JpaRepository<Owner, Integer>`); local: a local variable, lambda, loop, catch or pattern variable; new: an instance or array created (`new Foo()`, Kotlin `Foo()`, `Foo::new`, `object : Foo`); cast and instanceof (Kotlin `as`, `is`); class_literal (`Foo.class`, `Foo::class`); static: a member reached through the type\'s name (`Foo.BAR`, `Foo.of()`, `Foo::bar`); annotation: a project annotation type, or a class an annotation names (`@Import(Foo.class)`); pointcut: a type an AspectJ pointcut names exactly (`execution(* com.x.ProductService.*(..))`, `within(com.x.ProductService+)`, `@annotation(com.x.Audited)`, args and return types), never a wildcard pattern (`within(com.x..*)` names a package, no type). Generic arguments count where they are written (`List<Foo> items` is field). Library types and a type\'s own name are no edge; code in field initializers and initializer blocks counts for the type.',
      from: ['symbol'],
      to: ['symbol'],
      attrs: [{ name: 'via', type: 'enum', values: USE_VIAS, description: 'How the type is named.', filterable: true }],
      inferred: false,
    },
    {
      name: 'CALLS',
      description: 'A member calls a member (or creates an instance, or references a method). Calls into libraries land on external symbols; calls whose receiver is unknown land on unresolved_call nodes.',
      from: ['symbol'],
      to: ['symbol', 'unresolved_call'],
      attrs: [
        { name: 'line', type: 'integer', description: 'Line of the call site.' },
        { name: 'call', type: 'enum', values: ['call', 'new', 'method_ref', 'this_ctor', 'super_ctor'], description: 'Shape of the call site.', filterable: true },
        { name: 'arg_count', type: 'integer', description: 'Number of arguments (-1 for a method reference).' },
        { name: 'in_lambda', type: 'boolean', description: 'The call is inside a lambda of the caller.' },
        { name: 'receiver_type', type: 'string', description: 'A call on a project type that lands on a method the type inherits from a library (`visitRepository.save(…)` → JpaRepository#save): the qualified name of that project type, which `trace` reaches through the call.' },
      ],
      inferred: true,
    },
  ],
};
