import type { OntologyModule, PropertyDef } from './types.js';

export const SYMBOL_KINDS = ['class', 'interface', 'enum', 'record', 'annotation', 'method', 'constructor'] as const;
export const ROLES = ['CONTROLLER', 'SERVICE', 'REPOSITORY', 'COMPONENT', 'CONFIG', 'ENTITY', 'CLIENT', 'MAPPER', 'DTO', 'OTHER'] as const;
export const CAPABILITIES = ['MESSAGE_LISTENER', 'MESSAGE_PRODUCER', 'HTTP_CLIENT', 'SCHEDULED_TASK', 'EXCEPTION_HANDLER'] as const;
export type Role = (typeof ROLES)[number];
export type Capability = (typeof CAPABILITIES)[number];
export const PROTOCOLS = ['http', 'kafka', 'rabbit', 'jms'] as const;
/** Routes, clients and producers: which profile gave a placeholder its value. */
const PROFILE_PROPERTY: PropertyDef = { name: 'profile', type: 'string', description: 'The Spring profile(s) whose configuration gave a ${…} placeholder its value, when the default profile does not set it (application-dev.yml, an on-profile document).', filter: ['eq'] };
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
        { name: 'framework', type: 'enum', values: ['spring_mvc', 'spring_functional', 'jax_rs', 'spring_kafka', 'spring_rabbit', 'spring_jms', 'spring_cloud_stream', 'eventuate_tram', 'spring_cloud_gateway', 'zuul', 'nginx'], description: 'Where the mapping or listener comes from (spring_functional: a RouterFunction bean; spring_cloud_stream: a functional Consumer/Function bean or @StreamListener, bound to its destination by configuration; eventuate_tram: a DomainEventHandlersBuilder or saga command handler, its channel the aggregate type or command channel; spring_cloud_gateway, zuul and nginx: a gateway or reverse-proxy route, which FORWARDS to the routes of its target).', filter: ['eq'] },
        { name: 'exchange', type: 'string', description: 'Rabbit listeners: the exchange their queue is bound to by the listener\'s own declaration (@QueueBinding).', filter: ['eq'] },
        { name: 'binding_keys', type: 'string_list', description: 'Rabbit listeners: the routing keys (topic patterns) their queue is bound with.' },
        { name: 'context_path', type: 'string', description: 'The prefix the service serves every route under (server.servlet.context-path, spring.mvc.servlet.path, spring.webflux.base-path), already part of path.', filter: ['eq'] },
        { name: 'gateway_target', type: 'string', description: 'Gateway routes: where requests go (lb://service, http://host:port), and how the path is rewritten (StripPrefix, PrefixPath, RewritePath).' },
        { name: 'handler', type: 'string', description: 'Qualified name of the handler method.', filter: ['eq'] },
        { name: 'controller', type: 'string', description: 'Qualified name of the controller type whose bean serves the route (the handler may be inherited, e.g. from a generated API interface).', filter: ['eq'] },
        { name: 'path_written', type: 'string', description: 'The mapping values as written, when the path comes from constants or ${…} placeholders (ApiPaths.ORDERS + BY_ID).' },
        { name: 'declared', type: 'boolean', description: 'False for a route no indexed code declares: the target a client names when nothing matches it (its HTTP_CALLS edge says unmatched).', filter: ['eq'] },
        PROFILE_PROPERTY,
        { name: 'resolved', type: 'boolean', description: 'False when part of the path is something the source does not state (an unknown constant, a placeholder without a value or default): that part is kept as written.', filter: ['eq'] },
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
        { name: 'framework', type: 'enum', values: ['feign', 'http_exchange', 'rest_template', 'web_client', 'rest_client'], description: 'How the call is declared.', filter: ['eq'] },
        { name: 'caller', type: 'string', description: 'Qualified name of the method that declares or makes the call.', filter: ['eq'] },
        { name: 'match', type: 'enum', values: ['cross_service', 'intra_service', 'ambiguous', 'unmatched', 'external'], description: 'How the call matched the routes of its target service; external: its host is outside the estate (no indexed service, gateway or deployment name).', filter: ['eq', 'exclude'] },
        { name: 'resolved', type: 'boolean', description: 'False when the target or part of the path is something the source does not state (kept as written).', filter: ['eq'] },
        { name: 'unresolved_reason', type: 'string', description: 'When resolved is false: which value the estate does not determine, and where it comes from (a parameter, an injected bean, a configuration key set by no file).' },
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
        { name: 'exchange', type: 'string', description: 'Rabbit: the exchange a RabbitTemplate sends to; the destination is then the routing key, matched through the bindings the estate declares for that exchange (Binding beans, BindingBuilder, @QueueBinding: strategy exchange_binding), else to the queue of that name (strategy routing_key).' },
        { name: 'framework', type: 'enum', values: ['spring_kafka', 'spring_jms', 'spring_rabbit', 'spring_cloud_stream', 'eventuate_tram', 'debezium'], description: 'The template the call goes through (spring_cloud_stream: StreamBridge.send, or a Supplier/Function bean\'s output binding; eventuate_tram: a domain event publisher, command producer or saga command endpoint; debezium: a change-data-capture connector the estate registers, publishing a table\'s changes).', filter: ['eq'] },
        { name: 'connector', type: 'string', description: 'Change-data-capture producers: the Debezium connector class (io.debezium.connector.postgresql.PostgresConnector).', filter: ['eq'] },
        { name: 'dead_letter_of', type: 'string', description: 'Rabbit: this is the dead-letter flow of the named queue (its x-dead-letter-exchange and routing key): what the queue rejects or lets expire goes here.', filter: ['eq'] },
        { name: 'ttl_ms', type: 'integer', description: 'Rabbit dead-letter flows: the queue\'s message TTL, after which messages are dead-lettered.' },
        { name: 'unresolved_reason', type: 'string', description: 'When resolved is false: which value the estate does not determine, and where it comes from.' },
        { name: 'value_from', type: 'string_list', description: 'The configuration and deployment files (file: key) that gave the destination its value.' },
        { name: 'caller', type: 'string', description: 'Qualified name of the method making the call.', filter: ['eq'] },
        { name: 'match', type: 'enum', values: ['cross_service', 'intra_service', 'unmatched'], description: 'Whether a listener in another service, the same service, or none consumes the destination.', filter: ['eq', 'exclude'] },
        { name: 'resolved', type: 'boolean', description: 'False when the destination is not something the source states (kept as written).', filter: ['eq'] },
        PROFILE_PROPERTY,
        { name: 'pinned', type: 'boolean', description: 'True when sextant.yaml `links.destinations` names the destination (the source does not).', filter: ['eq'] },
      ],
    },
  ],
  edgeTypes: [
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
      attrs: [],
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
      description: 'A producer reaches the listeners of its destination, in every service that consumes it; none leads to an undeclared route (declared: false) with match unmatched.',
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
      name: 'CALLS',
      description: 'A member calls a member (or creates an instance, or references a method). Calls into libraries land on external symbols; calls whose receiver is unknown land on unresolved_call nodes.',
      from: ['symbol'],
      to: ['symbol', 'unresolved_call'],
      attrs: [
        { name: 'line', type: 'integer', description: 'Line of the call site.' },
        { name: 'call', type: 'enum', values: ['call', 'new', 'method_ref', 'this_ctor', 'super_ctor'], description: 'Shape of the call site.', filterable: true },
        { name: 'arg_count', type: 'integer', description: 'Number of arguments (-1 for a method reference).' },
        { name: 'in_lambda', type: 'boolean', description: 'The call is inside a lambda of the caller.' },
      ],
      inferred: true,
    },
  ],
};
