/**
 * Routes a framework serves for a service without a controller of the estate declaring them, read as each framework
 * documents them:
 *
 * - Spring Data REST (`spring-boot-starter-data-rest`, `spring-data-rest-webmvc`): the collection, item, search,
 *   query-method and association resources of every repository its detection strategy exports, under its base path,
 *   plus the root and ALPS profile resources. An HTTP method exists only when the repository exposes the CRUD method
 *   behind it (declared or inherited, not `@RestResource(exported = false)`), which is then its handler when the
 *   estate declares it.
 * - Spring Boot Actuator (`spring-boot-starter-actuator`, or code compiled against it): the web endpoints that are
 *   available (enabled, and their condition met: a dependency, a bean, a setting) and exposed
 *   (`management.endpoints.web.exposure.*`), under the management base path, on `management.server.port` when the
 *   service sets one; the estate's own `@Endpoint`s too.
 *
 * Both frameworks are tables below (data, not code). What differs between Spring Boot generations is gated on the
 * service's Boot version (`BootVersion`), and what the estate does not determine is left out, never guessed: the
 * routes are a lower bound.
 */
import { nodeId } from '../../../graph/ids.js';
import type { Ontology } from '../../../graph/ontology/index.js';
import type { EdgeRecord, NodeRecord } from '../../../graph/types.js';
import type { BuildInput } from '../build/files.js';
import type { ServiceInfo } from '../config/layout.js';
import { resolvePlaceholders } from '../config/spring-config.js';
import { canonicalKey, environmentForm } from '../eval/config.js';
import { COLLECTION_TYPES, type CodeModel, type MemberEntry, type TypeEntry } from '../model/model.js';
import { own } from '../model/own.js';
import type { AnnotationFacts, AnnotationValue, TypeRef } from '../parse/ir.js';
import { Constants, joinPath, mappingOf, type Part } from './routes.js';

export interface FrameworkRoute {
  service: string;
  framework: 'spring_data_rest' | 'actuator';
  method: string;
  /** The path on the service, before its context path (`server.servlet.context-path`…), which emit applies; see `managementPort`. */
  path: string;
  /** The handler member when one exists: the repository method that serves it, a custom endpoint's operation. */
  handler?: MemberEntry;
  /** Where it is declared: the repository type's file and line, or the build file / config key line that enables it (0: unknown). */
  file: string;
  line: number;
  /** The type that declares it: the repository interface, a custom endpoint's class. */
  type?: TypeEntry;
  /** What serves it, for display: `findAll(Pageable)`, `query method findByName`, `endpoint health`… */
  serves: string;
  /**
   * The actuator is on `management.server.port` (as configured) and not on the service's main port. The path is then
   * complete (under `management.server.base-path`): the service's context path does not apply.
   */
  managementPort?: string;
  /** False when part of the path is not determined by the estate (kept as written). */
  resolved: boolean;
  /** The path part as written, when it is not one literal (a constant, a placeholder). */
  written?: string;
}

/** The Spring Boot versions a service may run (`from` and `to` inclusive, as [major, minor]), and what says so. */
export interface BootVersion {
  from: readonly [number, number];
  to: readonly [number, number];
  why: string;
}

export interface FrameworkRoutesInput {
  model: CodeModel;
  services: readonly ServiceInfo[];
  /** group:artifact of the service's build, direct and from parents in the estate (runtime classpath only). */
  dependencies: (service: string) => readonly string[];
  /** Where the service's build declares a dependency (for routes a dependency enables). */
  declaredAt?: (service: string, dependency: string) => { file: string; line: number } | undefined;
  /** The Spring Boot version the build determines; else the Jakarta / javax imports of the service's code decide the generation. */
  bootVersion?: (service: string) => BootVersion | undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// Tables

/** Artifacts that make a service export its repositories. */
const DATA_REST_ARTIFACTS = ['org.springframework.boot:spring-boot-starter-data-rest', 'org.springframework.data:spring-data-rest-webmvc'];
/** Artifacts that put Actuator's web endpoints in a service. */
const ACTUATOR_ARTIFACTS = ['org.springframework.boot:spring-boot-starter-actuator', 'org.springframework.boot:spring-boot-actuator-autoconfigure'];
const ACTUATOR_PACKAGE = 'org.springframework.boot.actuate.';
/** Artifacts that make a service a servlet web application, and the ones that make it a reactive one. */
const SERVLET_ARTIFACTS = [
  'org.springframework.boot:spring-boot-starter-web',
  'org.springframework.boot:spring-boot-starter-jersey',
  'org.springframework.boot:spring-boot-starter-websocket',
  'org.springframework.boot:spring-boot-starter-data-rest',
  'org.springframework:spring-webmvc',
  'org.springframework.data:spring-data-rest-webmvc',
  'org.springframework.cloud:spring-cloud-starter-netflix-eureka-server',
  'org.springframework.cloud:spring-cloud-config-server',
  'org.springframework.cloud:spring-cloud-starter-gateway-mvc',
  'org.springframework.cloud:spring-cloud-starter-gateway-server-webmvc',
  'de.codecentric:spring-boot-admin-starter-server',
];
const REACTIVE_ARTIFACTS = ['org.springframework.boot:spring-boot-starter-webflux', 'org.springframework:spring-webflux', 'org.springframework.cloud:spring-cloud-starter-gateway', 'org.springframework.cloud:spring-cloud-starter-gateway-server-webflux'];
/** Code that only runs in a web application: controllers, and the web frameworks' own types. */
const WEB_ANNOTATIONS = new Set(['RestController', 'Controller', 'ControllerAdvice', 'RestControllerAdvice']);
const WEB_PACKAGES = /^(?:org\.springframework\.web\.(?:servlet|reactive|bind\.annotation)|jakarta\.servlet|javax\.servlet)\b/;

type Crud = 'findAll(Pageable)' | 'findAll(Sort)' | 'findAll()' | 'findById(ID)' | 'save(T)' | 'delete(T)' | 'deleteById(ID)' | 'delete(Iterable)';
const CRUD: readonly Crud[] = ['findAll()', 'findById(ID)', 'save(T)', 'delete(T)', 'deleteById(ID)'];
const PAGING: readonly Crud[] = ['findAll(Sort)', 'findAll(Pageable)'];

/**
 * Spring Data repository interfaces by simple name: the CRUD methods they give a repository (`before3`: what they gave
 * before Spring Data 3, Spring Boot 3, when PagingAndSortingRepository stopped extending CrudRepository). Reactive
 * repositories are not exported by Spring Data REST.
 */
const REPOSITORY_BASES: Readonly<Record<string, { methods: readonly Crud[]; before3?: readonly Crud[] } | 'reactive'>> = {
  Repository: { methods: [] },
  CrudRepository: { methods: CRUD },
  ListCrudRepository: { methods: CRUD },
  PagingAndSortingRepository: { methods: PAGING, before3: [...CRUD, ...PAGING] },
  ListPagingAndSortingRepository: { methods: PAGING },
  JpaRepository: { methods: [...CRUD, ...PAGING] },
  JpaRepositoryImplementation: { methods: [...CRUD, ...PAGING] },
  MongoRepository: { methods: [...CRUD, ...PAGING] },
  Neo4jRepository: { methods: [...CRUD, ...PAGING] },
  ElasticsearchRepository: { methods: [...CRUD, ...PAGING] },
  CassandraRepository: { methods: CRUD },
  CouchbaseRepository: { methods: [...CRUD, ...PAGING] },
  KeyValueRepository: { methods: [...CRUD, ...PAGING] },
  SolrCrudRepository: { methods: [...CRUD, ...PAGING] },
  GemfireRepository: { methods: CRUD },
  ReactiveCrudRepository: 'reactive',
  ReactiveSortingRepository: 'reactive',
  ReactiveMongoRepository: 'reactive',
  ReactiveCassandraRepository: 'reactive',
  ReactiveCouchbaseRepository: 'reactive',
  ReactiveElasticsearchRepository: 'reactive',
  ReactiveNeo4jRepository: 'reactive',
  R2dbcRepository: 'reactive',
  CoroutineCrudRepository: 'reactive',
  CoroutineSortingRepository: 'reactive',
};

/** Methods of the Spring Data base interfaces: a repository redeclaring one declares no query method. */
const BASE_METHOD_NAMES = new Set(
  'save saveAll findById findOne existsById exists findAll findAllById count deleteById delete deleteAllById deleteAll flush saveAndFlush saveAllAndFlush deleteInBatch deleteAllInBatch deleteAllByIdInBatch getOne getById getReferenceById findBy insert findLastChangeRevision findRevisions findRevision'.split(' '),
);

/**
 * The resources of an exported repository (repository-resources in the Spring Data REST reference): each HTTP method
 * with the CRUD methods that back it, preferred first, and what must also be present (DELETE looks the item up first,
 * as CrudMethodsSupportedHttpMethods requires). HEAD, which the framework answers wherever GET is, is left out as it is
 * for controller routes.
 */
const REPOSITORY_RESOURCES: readonly { resource: 'collection' | 'item'; method: string; backedBy: readonly Crud[]; needs?: Crud }[] = [
  { resource: 'collection', method: 'GET', backedBy: ['findAll(Pageable)', 'findAll(Sort)', 'findAll()'] },
  { resource: 'collection', method: 'POST', backedBy: ['save(T)'] },
  { resource: 'item', method: 'GET', backedBy: ['findById(ID)'] },
  { resource: 'item', method: 'PUT', backedBy: ['save(T)'] },
  { resource: 'item', method: 'PATCH', backedBy: ['save(T)'] },
  { resource: 'item', method: 'DELETE', backedBy: ['delete(T)', 'deleteById(ID)', 'delete(Iterable)'], needs: 'findById(ID)' },
];
/**
 * Association resources (`/{repository}/{id}/{property}`): GET; PUT, PATCH and DELETE where the item takes PUT; POST
 * for a collection-valued association (the reference lists GET, PUT, POST and DELETE; the framework serves PATCH too).
 */
const ASSOCIATION_METHODS: readonly { method: string; when: 'always' | 'item-put' | 'collection' }[] = [
  { method: 'GET', when: 'always' },
  { method: 'PUT', when: 'item-put' },
  { method: 'PATCH', when: 'item-put' },
  { method: 'DELETE', when: 'item-put' },
  { method: 'POST', when: 'collection' },
];
const ASSOCIATION_ANNOTATIONS = new Set(['OneToOne', 'OneToMany', 'ManyToOne', 'ManyToMany', 'DBRef', 'DocumentReference', 'Reference', 'Relationship']);
/** spring.data.rest.detection-strategy / RepositoryDetectionStrategies. */
const DETECTION_STRATEGIES = ['default', 'all', 'annotated', 'visibility'] as const;
type DetectionStrategy = (typeof DETECTION_STRATEGIES)[number];

/** What an actuator endpoint needs besides being enabled and exposed; all must hold. */
type Requirement =
  /** One of these group:artifact on the classpath (`group:*` for any artifact of the group). */
  | { dependency: readonly string[] }
  /** A bean of one of these types in the service (a `@Bean` method returning it, a component implementing it). */
  | { bean: readonly string[] }
  /** The service's code creates one of these (`new BufferingApplicationStartup(…)`). */
  | { creates: readonly string[] }
  /** One of these configuration keys set. */
  | { setting: readonly string[] }
  /** A servlet web application (Spring MVC, Jersey) before this Boot version. */
  | { servletBefore: readonly [number, number] };

interface Operation {
  method: 'GET' | 'POST' | 'DELETE';
  /** Below the endpoint's path; `{*name}` for any number of segments. */
  path: string;
  since?: readonly [number, number];
}

interface EndpointRow {
  id: string;
  operations: readonly Operation[];
  requires?: readonly Requirement[];
  since?: readonly [number, number];
  /** The last Boot line that has it. */
  until?: readonly [number, number];
  /** Disabled unless the configuration enables it. */
  off?: true;
}

const op = (method: Operation['method'], path = '', since?: readonly [number, number]): Operation => ({ method, path, ...(since ? { since } : {}) });

/** Spring Boot's documented web endpoints (reference: actuator/endpoints; API: rest/actuator), Boot 2.0 and later. */
const ACTUATOR_ENDPOINTS: readonly EndpointRow[] = [
  { id: 'auditevents', operations: [op('GET')], requires: [{ bean: ['AuditEventRepository', 'InMemoryAuditEventRepository'] }] },
  { id: 'beans', operations: [op('GET')] },
  { id: 'caches', operations: [op('GET'), op('GET', '/{cache}'), op('DELETE'), op('DELETE', '/{cache}')], since: [2, 1] },
  { id: 'conditions', operations: [op('GET')] },
  { id: 'configprops', operations: [op('GET'), op('GET', '/{prefix}', [2, 6])] },
  { id: 'env', operations: [op('GET'), op('GET', '/{toMatch}')] },
  { id: 'flyway', operations: [op('GET')], requires: [{ dependency: ['org.flywaydb:flyway-core', 'org.springframework.boot:spring-boot-starter-flyway'] }] },
  { id: 'health', operations: [op('GET'), op('GET', '/{*path}')] },
  { id: 'heapdump', operations: [op('GET')] },
  { id: 'httptrace', operations: [op('GET')], until: [2, 7], requires: [{ bean: ['HttpTraceRepository', 'InMemoryHttpTraceRepository'] }] },
  { id: 'httpexchanges', operations: [op('GET')], since: [3, 0], requires: [{ bean: ['HttpExchangeRepository', 'InMemoryHttpExchangeRepository'] }] },
  { id: 'info', operations: [op('GET')] },
  { id: 'integrationgraph', operations: [op('GET'), op('POST')], since: [2, 1], requires: [{ dependency: ['org.springframework.integration:spring-integration-core', 'org.springframework.boot:spring-boot-starter-integration'] }] },
  { id: 'jolokia', operations: [op('GET', '/{*path}'), op('POST', '/{*path}')], until: [2, 7], requires: [{ dependency: ['org.jolokia:jolokia-core'] }, { servletBefore: [99, 0] }] },
  { id: 'liquibase', operations: [op('GET')], requires: [{ dependency: ['org.liquibase:liquibase-core', 'org.springframework.boot:spring-boot-starter-liquibase'] }] },
  { id: 'logfile', operations: [op('GET')], requires: [{ setting: ['logging.file.name', 'logging.file.path', 'logging.file', 'logging.path', 'management.endpoint.logfile.external-file'] }] },
  { id: 'loggers', operations: [op('GET'), op('GET', '/{name}'), op('POST', '/{name}')] },
  { id: 'mappings', operations: [op('GET')] },
  { id: 'metrics', operations: [op('GET'), op('GET', '/{name}')] },
  { id: 'prometheus', operations: [op('GET')], requires: [{ dependency: ['io.micrometer:micrometer-registry-prometheus', 'io.micrometer:micrometer-registry-prometheus-simpleclient'] }] },
  {
    id: 'quartz',
    operations: [op('GET'), op('GET', '/jobs'), op('GET', '/triggers'), op('GET', '/jobs/{group}'), op('GET', '/triggers/{group}'), op('GET', '/jobs/{group}/{name}'), op('GET', '/triggers/{group}/{name}'), op('POST', '/jobs/{group}/{name}', [3, 5])],
    since: [2, 5],
    requires: [{ dependency: ['org.quartz-scheduler:quartz', 'org.springframework.boot:spring-boot-starter-quartz'] }],
  },
  { id: 'sbom', operations: [op('GET'), op('GET', '/{id}')], since: [3, 3] },
  { id: 'scheduledtasks', operations: [op('GET')] },
  { id: 'sessions', operations: [op('GET'), op('GET', '/{sessionId}'), op('DELETE', '/{sessionId}')], requires: [{ dependency: ['org.springframework.session:*'] }, { servletBefore: [3, 3] }] },
  { id: 'shutdown', operations: [op('POST')], off: true },
  { id: 'startup', operations: [op('POST'), op('GET', '', [2, 5])], since: [2, 4], requires: [{ creates: ['BufferingApplicationStartup'] }] },
  { id: 'threaddump', operations: [op('GET')] },
];

/** Web endpoints exposed when `management.endpoints.web.exposure.include` is not set: `info` too before Boot 2.5. */
const DEFAULT_EXPOSURE: readonly { before?: readonly [number, number]; ids: readonly string[] }[] = [
  { before: [2, 5], ids: ['health', 'info'] },
  { ids: ['health'] },
];

const CUSTOM_ENDPOINT_ANNOTATIONS = new Set(['Endpoint', 'WebEndpoint']);
const CONTROLLER_ENDPOINT_ANNOTATIONS = new Set(['RestControllerEndpoint', 'ControllerEndpoint']);
const OPERATION_METHODS: Readonly<Record<string, Operation['method']>> = { ReadOperation: 'GET', WriteOperation: 'POST', DeleteOperation: 'DELETE' };
const STEREOTYPES = new Set(['Component', 'Service', 'Repository', 'Controller', 'RestController', 'Configuration']);

/**
 * Spring Cloud release trains and the Spring Boot lines each supports (Spring Cloud's compatibility table), for a
 * build that names a train but no Boot version.
 */
const SPRING_CLOUD_TRAINS: readonly [prefix: string, from: [number, number], to: [number, number]][] = [
  ['angel', [1, 2], [1, 2]],
  ['brixton', [1, 3], [1, 3]],
  ['camden', [1, 4], [1, 5]],
  ['dalston', [1, 5], [1, 5]],
  ['edgware', [1, 5], [1, 5]],
  ['finchley', [2, 0], [2, 0]],
  ['greenwich', [2, 1], [2, 1]],
  ['hoxton', [2, 2], [2, 3]],
  ['2020.0', [2, 4], [2, 5]],
  ['2021.0', [2, 6], [2, 7]],
  ['2022.0', [3, 0], [3, 1]],
  ['2023.0', [3, 2], [3, 3]],
  ['2024.0', [3, 4], [3, 4]],
  ['2025.0', [3, 5], [3, 5]],
];
/** Jakarta EE packages only Spring Boot 3 applications import, and the javax ones only earlier ones do. */
const JAKARTA = /^jakarta\.(?:persistence|servlet|validation|annotation|transaction)\b/;
const JAVAX = /^javax\.(?:persistence|servlet|validation|transaction)\b|^javax\.annotation\.(?:PostConstruct|PreDestroy|Resource)\b/;
/** When nothing says which Boot a service runs: Boot 2 or later (Boot 1's actuator is not modelled). */
const UNKNOWN_BOOT: BootVersion = { from: [2, 0], to: [99, 0], why: 'not stated by the build or the code' };

// ---------------------------------------------------------------------------------------------------------------
// Entry point

export function frameworkRoutes(input: FrameworkRoutesInput): { routes: FrameworkRoute[]; warnings: string[] } {
  const routes: FrameworkRoute[] = [];
  const warnings: string[] = [];
  const byService = new Map<string, TypeEntry[]>();
  for (const t of input.model.types) (byService.get(t.place.service) ?? byService.set(t.place.service, []).get(t.place.service)!).push(t);
  const notes: Notes = { boot1: [], noWeb: [] };
  for (const info of input.services) {
    try {
      const ctx = new ServiceContext(input, info, byService.get(info.name) ?? []);
      if (ctx.settings.get('spring.main.web-application-type')?.value.toLowerCase() === 'none') continue;
      const found = [...dataRestRoutes(ctx, warnings), ...actuatorRoutes(ctx, notes, warnings)];
      const seen = new Set<string>();
      for (const r of found) {
        const key = `${r.managementPort ?? ''} ${r.method} ${r.path}`;
        if (seen.has(key)) {
          warnings.push(`${r.file}:${r.line}: ${info.name} serves ${r.method} ${r.path} twice (${r.framework} ${r.serves}); the first is kept`);
          continue;
        }
        seen.add(key);
        routes.push(r);
      }
    } catch (err) {
      warnings.push(`framework routes of service ${info.name} skipped: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  const some = (xs: string[]) => `${xs.slice(0, 5).join(', ')}${xs.length > 5 ? ', …' : ''}`;
  if (notes.boot1.length) warnings.push(`Spring Boot 1 actuator endpoints are not modelled: ${notes.boot1.length} service(s) run Spring Boot 1 with the actuator (${some(notes.boot1)})`);
  if (notes.noWeb.length) warnings.push(`no actuator web endpoints for ${notes.noWeb.length} service(s) with the actuator but no web server in their build or code (${some(notes.noWeb)})`);
  return { routes, warnings };
}

/**
 * The base path Spring Data REST serves a service under ('' for the root), undefined when the service does not run it:
 * what `@BasePathAwareController` and `@RepositoryRestController` mappings are prefixed with.
 */
export function springDataRestBasePath(input: FrameworkRoutesInput, service: ServiceInfo): string | undefined {
  try {
    const ctx = new ServiceContext(input, service, input.model.types.filter((t) => t.place.service === service.name));
    if (!ctx.has(DATA_REST_ARTIFACTS)) return undefined;
    const base = dataRestConfiguration(ctx, []).basePath.path;
    return base === '' ? '' : joinPath(base, '');
  } catch {
    return undefined;
  }
}

/** What is said once for all services. */
interface Notes {
  boot1: string[];
  noWeb: string[];
}

// ---------------------------------------------------------------------------------------------------------------
// A service: its configuration, classpath, code and Boot version

interface Located {
  value: string;
  key: string;
  file: string;
  line: number;
  /** The estate leaves part of the value unknown (a placeholder without value, a deployment hole). */
  unresolved?: boolean;
}

/** A service's default-profile configuration, keys in any relaxed form, with the file and line each is set on. */
class Settings {
  private readonly keys = new Map<string, string>();
  private readonly values: ReadonlyMap<string, string>;

  constructor(private readonly info: ServiceInfo) {
    for (const k of Object.keys(info.config).sort()) if (!this.keys.has(canonicalKey(k))) this.keys.set(canonicalKey(k), k);
    this.values = new Map(Object.entries(info.config));
  }

  private rawKey(key: string): string | undefined {
    return this.keys.get(canonicalKey(key)) ?? this.keys.get(canonicalKey(environmentForm(key)));
  }

  get(key: string): Located | undefined {
    const k = this.rawKey(key);
    if (k === undefined) return undefined;
    const raw = own(this.info.config, k) ?? '';
    const hole = own(this.info.configHoles, k) !== undefined;
    const value = hole ? undefined : resolvePlaceholders(raw, this.values);
    return { value: (value ?? raw).trim(), key: k, ...this.where(k), ...(value === undefined ? { unresolved: true } : {}) };
  }

  /** A list setting: comma-separated, or YAML list items (`key[0]`, `key[1]`…). */
  list(key: string): { values: string[]; at: Located } | undefined {
    const single = this.get(key);
    if (single) return { values: splitList(single.value), at: single };
    const prefix = `${canonicalKey(key)}[`;
    const items = [...this.keys].filter(([c]) => c.startsWith(prefix) && /^\d+\]$/.test(c.slice(prefix.length))).sort(([a], [b]) => indexOf(a) - indexOf(b));
    if (!items.length) return undefined;
    const located = items.map(([, k]) => this.get(k)!);
    return { values: located.flatMap((l) => splitList(l.value)), at: located[0]! };
  }

  /** The keys set under a prefix, as `[rest of the key, located value]`. */
  under(prefix: string): [string, Located][] {
    const p = `${canonicalKey(prefix)}.`;
    return [...this.keys].filter(([c]) => c.startsWith(p)).map(([c, k]) => [c.slice(p.length), this.get(k)!]);
  }

  private where(key: string): { file: string; line: number } {
    const origin = own(this.info.configOrigins, key);
    const m = origin ? /^(.*):(\d+)$/.exec(origin) : null;
    if (m) return { file: m[1]!, line: Number(m[2]) };
    return { file: origin ?? this.info.applicationNameFile ?? this.info.configFiles[0] ?? this.info.dir, line: own(this.info.configLines, key) ?? 0 };
  }
}

function splitList(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

function indexOf(canonical: string): number {
  return Number(/\[(\d+)\]$/.exec(canonical)?.[1] ?? 0);
}

class ServiceContext {
  readonly name: string;
  readonly settings: Settings;
  readonly constants: Constants;
  readonly deps: ReadonlySet<string>;
  readonly boot: BootVersion;
  private beans?: Set<string>;

  constructor(
    readonly input: FrameworkRoutesInput,
    readonly info: ServiceInfo,
    readonly types: readonly TypeEntry[],
  ) {
    this.name = info.name;
    this.settings = new Settings(info);
    this.constants = new Constants(input.model, info.config, info.profiles);
    this.deps = new Set(input.dependencies(info.name));
    this.boot = input.bootVersion?.(info.name) ?? bootFromImports(types) ?? UNKNOWN_BOOT;
  }

  has(artifacts: readonly string[]): string | undefined {
    return artifacts.find((a) => (a.endsWith(':*') ? [...this.deps].some((d) => d.startsWith(a.slice(0, -1))) : this.deps.has(a)));
  }

  /** Where the build declares a dependency; the service's first build file when not known. */
  declared(dependency: string): { file: string; line: number } {
    return this.input.declaredAt?.(this.name, dependency) ?? { file: this.info.modules.find((m) => m.buildFile)?.buildFile ?? this.info.dir, line: 0 };
  }

  /** Simple names of the types the service's beans have: `@Bean` method return types, components and their supertypes. */
  beanTypes(): ReadonlySet<string> {
    if (this.beans) return this.beans;
    const out = new Set<string>();
    for (const t of this.types) {
      for (const m of t.members) if (m.facts.returnType && m.facts.annotations.some((a) => a.name === 'Bean')) out.add(simple(m.facts.returnType.name));
      if (t.facts.kind === 'class' && !t.facts.modifiers.includes('abstract') && t.facts.annotations.some((a) => STEREOTYPES.has(a.name))) {
        const { project, external } = this.input.model.ancestors(t);
        for (const p of project) out.add(p.facts.name);
        for (const e of external) out.add(simple(e));
      }
    }
    return (this.beans = out);
  }

  creates(names: readonly string[]): boolean {
    return this.types.some((t) => t.members.some((m) => m.facts.calls.some((c) => c.kind === 'new' && c.type !== undefined && names.includes(simple(c.type.name)))));
  }

  servlet(): boolean {
    return this.has(SERVLET_ARTIFACTS) !== undefined;
  }

  /** Whether the service runs a web server: a web starter in its build, or code only a web application has. */
  web(): boolean {
    if (this.has(SERVLET_ARTIFACTS) || this.has(REACTIVE_ARTIFACTS)) return true;
    return this.types.some((t) => t.facts.annotations.some((a) => WEB_ANNOTATIONS.has(a.name)) || [...Object.values(t.file.imports.single), ...t.file.imports.wildcard].some((q) => WEB_PACKAGES.test(q)));
  }
}

function bootFromImports(types: readonly TypeEntry[]): BootVersion | undefined {
  let jakarta = false;
  let javax = false;
  const files = new Set(types.map((t) => t.file));
  for (const f of files) {
    for (const qn of [...Object.values(f.imports.single), ...f.imports.wildcard]) {
      if (JAKARTA.test(qn)) jakarta = true;
      else if (JAVAX.test(qn)) javax = true;
    }
  }
  if (jakarta === javax) return undefined;
  return jakarta ? { from: [3, 0], to: [99, 0], why: 'the code imports Jakarta EE packages' } : { from: [2, 0], to: [2, 7], why: 'the code imports javax EE packages' };
}

const cmp = (a: readonly [number, number], b: readonly [number, number]): number => a[0] - b[0] || a[1] - b[1];
/** Surely at least this version. */
const atLeast = (v: BootVersion, x: readonly [number, number]): boolean => cmp(v.from, x) >= 0;
/** Surely at most this version. */
const atMost = (v: BootVersion, x: readonly [number, number]): boolean => cmp(v.to, x) <= 0;

function simple(name: string): string {
  return name.slice(name.lastIndexOf('.') + 1);
}

// ---------------------------------------------------------------------------------------------------------------
// Spring Data REST

interface Repository {
  entry: TypeEntry;
  annotation?: AnnotationFacts;
  path: Part;
  domain?: TypeEntry;
  domainName?: string;
  /** The CRUD methods it has: the member when the estate declares it, with whether it is exported. */
  crud: Map<Crud, { member?: MemberEntry; exported: boolean }>;
  queryMethods: MemberEntry[];
}

function dataRestRoutes(ctx: ServiceContext, warnings: string[]): FrameworkRoute[] {
  const artifact = ctx.has(DATA_REST_ARTIFACTS);
  const candidates = ctx.types.filter((t) => t.facts.kind === 'interface' && !hasAnnotation(t.facts.annotations, 'NoRepositoryBean'));
  if (!artifact) {
    for (const t of candidates) {
      const a = restAnnotation(t.facts.annotations);
      if (a && repositoryBase(ctx, t) !== undefined) warnings.push(`${t.file.path}:${t.facts.line}: ${t.qn} is annotated @${a.name}, but the build of service ${ctx.name} has no ${DATA_REST_ARTIFACTS.join(' or ')}: not exported`);
    }
    return [];
  }
  const config = dataRestConfiguration(ctx, warnings);
  const repositories: Repository[] = [];
  for (const t of candidates) {
    const base = repositoryBase(ctx, t);
    if (base === undefined) continue;
    const annotation = restAnnotation(t.facts.annotations);
    if (base === 'reactive') {
      if (annotation) warnings.push(`${t.file.path}:${t.facts.line}: ${t.qn} is a reactive repository, which Spring Data REST does not export`);
      continue;
    }
    if (!exportedBy(config.strategy, t, annotation)) continue;
    const repo = describeRepository(ctx, t, base, annotation, warnings);
    if (repo) repositories.push(repo);
  }
  const out: FrameworkRoute[] = [];
  const declared = ctx.declared(artifact);
  const at = (r: Repository) => ({ file: r.entry.file.path, line: r.entry.facts.line, type: r.entry });
  const base = config.basePath;
  const route = (method: string, path: string, serves: string, where: { file: string; line: number; type?: TypeEntry }, handler?: MemberEntry, part?: Part): FrameworkRoute => {
    const resolved = (part?.literal ?? true) && !base.unresolved;
    const written = [base.written, part?.derived ? part.written : undefined].filter((w): w is string => !!w).join(' + ');
    return { service: ctx.name, framework: 'spring_data_rest', method, path, ...(handler ? { handler } : {}), ...where, serves, resolved, ...(written ? { written } : {}) };
  };
  out.push(route('GET', joinPath(base.path, ''), 'root resource', declared));
  out.push(route('GET', joinPath(base.path, 'profile'), 'ALPS profile', declared));
  const byDomain = new Map<TypeEntry, Repository>();
  for (const r of repositories) if (r.domain && !byDomain.has(r.domain)) byDomain.set(r.domain, r);
  for (const r of repositories) {
    const collection = joinPath(base.path, r.path.text);
    const item = joinPath(collection, '{id}');
    for (const res of REPOSITORY_RESOURCES) {
      const backing = res.backedBy.find((c) => r.crud.has(c));
      const found = backing && r.crud.get(backing);
      if (!backing || !found?.exported || (res.needs && !r.crud.has(res.needs))) continue;
      out.push(route(res.method, res.resource === 'collection' ? collection : item, backing, at(r), found.member, r.path));
    }
    const queries = r.queryMethods.filter((m) => restExported(m.facts.annotations));
    if (queries.length) {
      out.push(route('GET', joinPath(collection, 'search'), 'search resource', at(r), undefined, r.path));
      for (const m of queries) {
        const p = restPath(ctx, m.facts.annotations, m.owner) ?? { text: m.facts.name, literal: true, written: m.facts.name, derived: false };
        out.push(route('GET', joinPath(joinPath(collection, 'search'), p.text), `query method ${m.facts.name}`, { file: m.owner.file.path, line: m.facts.nameLine ?? m.facts.line, type: r.entry }, m, r.path));
      }
    }
    out.push(route('GET', joinPath(joinPath(base.path, 'profile'), r.path.text), 'ALPS profile', at(r), undefined, r.path));
    const itemPut = r.crud.get('save(T)')?.exported === true;
    for (const a of associations(ctx, r, byDomain)) {
      for (const { method, when } of ASSOCIATION_METHODS) {
        if ((when === 'item-put' && !itemPut) || (when === 'collection' && !a.collection)) continue;
        out.push(route(method, joinPath(item, a.path.text), `association ${a.name}`, { file: r.domain!.file.path, line: a.line, type: r.entry }, undefined, r.path));
      }
    }
  }
  return out;
}

interface DataRestConfig {
  strategy: DetectionStrategy;
  basePath: { path: string; unresolved?: boolean; written?: string };
}

/** Base path and detection strategy: Spring Boot's properties, then what a RepositoryRestConfigurer sets (it runs after them). */
function dataRestConfiguration(ctx: ServiceContext, warnings: string[]): DataRestConfig {
  const setting = ctx.settings.get('spring.data.rest.base-path');
  let basePath: DataRestConfig['basePath'] = setting ? { path: setting.value, ...(setting.unresolved ? { unresolved: true, written: `\${${setting.key}}` } : {}) } : { path: '' };
  const strategySetting = ctx.settings.get('spring.data.rest.detection-strategy')?.value.toLowerCase();
  let strategy: DetectionStrategy = DETECTION_STRATEGIES.find((s) => s === strategySetting) ?? 'default';
  for (const t of ctx.types) {
    for (const m of t.members) {
      const configures = m.facts.params.some((p) => simple(p.type.name) === 'RepositoryRestConfiguration') || simple(m.facts.returnType?.name ?? '') === 'RepositoryRestConfigurer';
      if (!configures) continue;
      for (const c of m.facts.calls) {
        if (c.name === 'setBasePath' && c.argCount === 1) {
          const v = c.values?.[0];
          const part = v?.k === 'literal' && v.value !== undefined ? { text: v.value, literal: true } : ctx.constants.partOf([{ ref: c.args[0] ?? '' }], c.args[0] ?? '', t);
          if (part.literal) basePath = { path: part.text };
          else {
            basePath = { path: c.args[0] ?? '', unresolved: true, written: c.args[0] ?? '' };
            warnings.push(`${t.file.path}:${c.line}: the Spring Data REST base path ${c.args[0] ?? ''} is not determined by the estate`);
          }
        } else if (c.name === 'setRepositoryDetectionStrategy' && c.argCount === 1) {
          const named = DETECTION_STRATEGIES.find((s) => (c.args[0] ?? '').toLowerCase().endsWith(s));
          if (named) strategy = named;
          else warnings.push(`${t.file.path}:${c.line}: a custom repository detection strategy (${c.args[0] ?? ''}) is not modelled; the default one is applied`);
        } else if (c.name === 'getExposureConfiguration' || c.name === 'disableDefaultExposure') {
          warnings.push(`${t.file.path}:${c.line}: HTTP methods disabled through the exposure configuration are not modelled; the repositories' routes may include some it disables`);
        }
      }
    }
  }
  return { strategy, basePath };
}

/** The Spring Data base of a repository interface: its CRUD methods, 'reactive', or undefined when it is not a repository. */
function repositoryBase(ctx: ServiceContext, t: TypeEntry): { methods: readonly Crud[] } | 'reactive' | undefined {
  if (hasAnnotation(t.facts.annotations, 'RepositoryDefinition')) return { methods: [] };
  const { external } = ctx.input.model.ancestors(t);
  let found: { methods: readonly Crud[] } | undefined;
  for (const qn of external) {
    if (qn.includes('.') && !qn.startsWith('org.springframework.data.')) continue;
    const base = own(REPOSITORY_BASES, simple(qn));
    if (base === 'reactive') return 'reactive';
    if (!base) continue;
    // Not surely before Boot 3: the lower bound, Spring Data 3's hierarchy.
    const methods = base.before3 && atMost(ctx.boot, [2, 99]) ? base.before3 : base.methods;
    found = { methods: [...new Set([...(found?.methods ?? []), ...methods])] };
  }
  return found;
}

function exportedBy(strategy: DetectionStrategy, t: TypeEntry, annotation: AnnotationFacts | undefined): boolean {
  const exported = annotation ? booleanArg(annotation, 'exported') !== false : false;
  const visible = isPublic(t);
  switch (strategy) {
    case 'all':
      return true;
    case 'visibility':
      return visible;
    case 'annotated':
      return exported;
    default:
      return annotation ? exported : visible;
  }
}

function isPublic(t: TypeEntry): boolean {
  const m = t.facts.modifiers;
  if (t.file.language === 'kotlin') return !m.includes('private') && !m.includes('protected');
  return m.includes('public') || t.outer?.facts.kind === 'interface';
}

function describeRepository(ctx: ServiceContext, t: TypeEntry, base: { methods: readonly Crud[] }, annotation: AnnotationFacts | undefined, warnings: string[]): Repository | undefined {
  const { project } = ctx.input.model.ancestors(t);
  const domainRef = domainRefOf(ctx.input.model, t);
  const domainTarget = domainRef ? ctx.input.model.resolveType(domainRef.ref, domainRef.from) : undefined;
  const domain = domainTarget?.entry;
  const domainName = domain?.facts.name ?? (domainTarget?.external ? simple(domainTarget.external) : undefined);
  const pathValue = annotation ? firstArg(annotation, 'path') : undefined;
  let path: Part;
  if (pathValue) path = ctx.constants.part(pathValue, t);
  else if (domainName) path = { text: plural(uncapitalize(domainName)), literal: true, written: '', derived: false };
  else {
    warnings.push(`${t.file.path}:${t.facts.line}: the domain type of repository ${t.qn} is not known, so neither is its path: not exported`);
    return undefined;
  }
  const crud = new Map<Crud, { member?: MemberEntry; exported: boolean }>();
  for (const c of base.methods) crud.set(c, { exported: true });
  const queryMethods: MemberEntry[] = [];
  const seen = new Set<string>();
  // Nearest declaration first: a redeclaration in the repository overrides its base interfaces'.
  for (const p of project) {
    if (p.facts.kind !== 'interface' || (p !== t && !declaresRepositoryMethods(ctx, p))) continue;
    for (const m of p.members) {
      if (m.facts.kind !== 'method' || m.facts.synthetic || m.facts.modifiers.includes('static') || m.facts.modifiers.includes('default') || seen.has(m.signature)) continue;
      seen.add(m.signature);
      const kind = crudKind(m, domainName);
      if (kind) {
        if (!crud.has(kind) || !crud.get(kind)!.member) crud.set(kind, { member: m, exported: restExported(m.facts.annotations) });
      } else if (!BASE_METHOD_NAMES.has(m.facts.name) && !hasBody(m)) queryMethods.push(m);
    }
  }
  if (!crud.has('findById(ID)') && pagingGenerationUnknown(ctx, t)) {
    warnings.push(`${t.file.path}:${t.facts.line}: ${t.qn} extends PagingAndSortingRepository, which extends CrudRepository only before Spring Boot 3; service ${ctx.name}'s Spring Boot version is not known, so its item resource and POST are left out`);
  }
  return { entry: t, ...(annotation ? { annotation } : {}), path, ...(domain ? { domain } : {}), ...(domainName ? { domainName } : {}), crud, queryMethods };
}

/** A PagingAndSortingRepository whose Spring Data generation is not known (neither surely 3 nor surely before). */
function pagingGenerationUnknown(ctx: ServiceContext, t: TypeEntry): boolean {
  if (atLeast(ctx.boot, [3, 0]) || atMost(ctx.boot, [2, 99])) return false;
  return ctx.input.model.ancestors(t).external.some((e) => simple(e) === 'PagingAndSortingRepository');
}

/** A project interface whose methods are repository methods: a repository base (@NoRepositoryBean) or a Spring Data subtype, not a fragment an implementation class backs. */
function declaresRepositoryMethods(ctx: ServiceContext, p: TypeEntry): boolean {
  return hasAnnotation(p.facts.annotations, 'NoRepositoryBean') || repositoryBase(ctx, p) !== undefined;
}

/** Kotlin interface members with a body are not query methods (Java ones say `default`). */
function hasBody(m: MemberEntry): boolean {
  return m.owner.file.language === 'kotlin' && (m.facts.calls.length > 0 || (m.facts.returns?.length ?? 0) > 0 || m.facts.locals.length > 0);
}

/** Which CRUD method a repository's own declaration redeclares, by name and parameter. */
function crudKind(m: MemberEntry, domainName: string | undefined): Crud | undefined {
  const params = m.facts.params;
  const t = params[0] ? simple(params[0].type.name) : undefined;
  switch (m.facts.name) {
    case 'findAll':
      return params.length === 0 ? 'findAll()' : params.length === 1 && t === 'Pageable' ? 'findAll(Pageable)' : params.length === 1 && t === 'Sort' ? 'findAll(Sort)' : undefined;
    case 'findById':
    case 'findOne':
      return params.length === 1 && t !== 'Example' && t !== 'Predicate' && t !== 'Specification' ? 'findById(ID)' : undefined;
    case 'save':
      return params.length === 1 ? 'save(T)' : undefined;
    case 'deleteById':
      return params.length === 1 ? 'deleteById(ID)' : undefined;
    case 'delete':
      if (params.length !== 1 || t === undefined || t === 'Specification') return undefined;
      if (COLLECTION_TYPES.has(t)) return 'delete(Iterable)';
      return t === domainName || /^[A-Z]$/.test(t) || /^[A-Z]$/.test(params[0]!.type.name) ? 'delete(T)' : 'deleteById(ID)';
    default:
      return undefined;
  }
}

/** The domain type argument of the Spring Data interface a repository extends, through project base interfaces. */
function domainRefOf(model: CodeModel, t: TypeEntry): { ref: TypeRef; from: TypeEntry } | undefined {
  const queue: { entry: TypeEntry; childArg?: { ref: TypeRef; from: TypeEntry } }[] = [{ entry: t }];
  const seen = new Set<TypeEntry>();
  while (queue.length) {
    const { entry, childArg } = queue.shift()!;
    if (seen.has(entry)) continue;
    seen.add(entry);
    for (const [i, s] of entry.facts.supertypes.entries()) {
      const target = entry.supers[i]?.target;
      const arg0 = s.type.args?.[0];
      // A type variable (`T` of a generic base) stands for what the subtype passes.
      const arg = arg0 && model.resolveTypeName(arg0.name, entry) === undefined && childArg ? childArg : arg0 ? { ref: arg0, from: entry } : childArg;
      if (target?.external !== undefined && own(REPOSITORY_BASES, simple(target.external)) && arg) return arg;
      if (target?.entry) queue.push({ entry: target.entry, ...(arg ? { childArg: arg } : {}) });
    }
  }
  return undefined;
}

interface Association {
  name: string;
  path: Part;
  collection: boolean;
  line: number;
}

/** Properties of the domain type that reference another exported repository's domain type: association resources. */
function associations(ctx: ServiceContext, r: Repository, byDomain: ReadonlyMap<TypeEntry, Repository>): Association[] {
  if (!r.domain) return [];
  const out: Association[] = [];
  const seen = new Set<string>();
  for (const owner of ctx.input.model.ancestors(r.domain).project) {
    for (const f of owner.facts.fields) {
      if (seen.has(f.name) || f.modifiers.includes('static') || !f.type || !f.annotations.some((a) => ASSOCIATION_ANNOTATIONS.has(a.name))) continue;
      seen.add(f.name);
      const collection = COLLECTION_TYPES.has(simple(f.type.name)) && !!f.type.args?.length;
      const ref = collection ? f.type.args![0]! : f.type;
      const target = ctx.input.model.resolveType(ref, owner).entry;
      if (!target || !byDomain.has(target) || !restExported(f.annotations)) continue;
      const path = restPath(ctx, f.annotations, owner) ?? { text: f.name, literal: true, written: f.name, derived: false };
      out.push({ name: f.name, path, collection, line: f.line });
    }
  }
  return out;
}

function restAnnotation(annotations: readonly AnnotationFacts[]): AnnotationFacts | undefined {
  return annotations.find((a) => a.name === 'RepositoryRestResource') ?? annotations.find((a) => a.name === 'RestResource');
}

function restExported(annotations: readonly AnnotationFacts[]): boolean {
  const a = annotations.find((x) => x.name === 'RestResource');
  return !a || booleanArg(a, 'exported') !== false;
}

function restPath(ctx: ServiceContext, annotations: readonly AnnotationFacts[], from: TypeEntry): Part | undefined {
  const a = annotations.find((x) => x.name === 'RestResource');
  const v = a && firstArg(a, 'path');
  const part = v && ctx.constants.part(v, from);
  return part && part.text !== '' ? part : undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// Spring Boot Actuator

type Access = 'none' | 'read-only' | 'unrestricted';
const ACCESS_LEVELS: readonly Access[] = ['none', 'read-only', 'unrestricted'];

interface Endpoint {
  id: string;
  operations: { method: string; path: string; handler?: MemberEntry; line?: number }[];
  off: boolean;
  type?: TypeEntry;
}

function actuatorRoutes(ctx: ServiceContext, notes: Notes, warnings: string[]): FrameworkRoute[] {
  const artifact = ctx.has(ACTUATOR_ARTIFACTS);
  // Code compiled against the actuator has it on its classpath, through a dependency the build files do not show.
  const importer = artifact ? undefined : ctx.types.find((t) => [...Object.values(t.file.imports.single), ...t.file.imports.wildcard].some((q) => q.startsWith(ACTUATOR_PACKAGE)));
  if (!artifact && !importer) return [];
  const present = artifact ? ctx.declared(artifact) : { file: importer!.file.path, line: importer!.facts.line };
  if (atMost(ctx.boot, [1, 99])) {
    notes.boot1.push(ctx.name);
    return [];
  }
  if (!ctx.web()) {
    notes.noWeb.push(ctx.name);
    return [];
  }
  const s = ctx.settings;
  const port = s.get('management.server.port');
  if (port?.value === '-1') return [];
  const mainPort = s.get('server.port')?.value ?? '8080';
  const separate = port && port.value !== mainPort ? port : undefined;
  const serverBase = separate ? (s.get('management.server.base-path') ?? s.get('management.server.servlet.context-path')) : undefined;
  const basePath = s.get('management.endpoints.web.base-path');
  const base = joinPath(serverBase?.value ?? '', basePath?.value ?? '/actuator');
  const unresolvedBase = [serverBase, basePath].filter((l): l is Located => !!l?.unresolved).map((l) => `\${${l.key}}`);

  const include = s.list('management.endpoints.web.exposure.include');
  const exclude = s.list('management.endpoints.web.exposure.exclude');
  const defaults = DEFAULT_EXPOSURE.find((d) => !d.before || atMost(ctx.boot, [d.before[0], d.before[1] - 1]))!.ids;
  const included = include ? include.values.map(endpointKey) : defaults.map(endpointKey);
  const excluded = (exclude?.values ?? []).map(endpointKey);
  const exposed = (id: string) => (included.includes('*') || included.includes(endpointKey(id))) && !excluded.includes('*') && !excluded.includes(endpointKey(id));
  const enabler = include?.at ?? present;

  const out: FrameworkRoute[] = [];
  const route = (method: string, path: string, serves: string, where: { file: string; line: number }, extra: Partial<FrameworkRoute> = {}): FrameworkRoute => ({
    service: ctx.name,
    framework: 'actuator',
    method,
    path,
    file: where.file,
    line: where.line,
    serves,
    ...(separate ? { managementPort: separate.value } : {}),
    resolved: unresolvedBase.length === 0,
    ...(unresolvedBase.length ? { written: unresolvedBase.join(' + ') } : {}),
    ...extra,
  });
  const discovery = s.get('management.endpoints.web.discovery.enabled')?.value.toLowerCase() !== 'false';
  if (discovery && base !== '/') out.push(route('GET', base, 'discovery page', enabler));

  const mappings = new Map(s.under('management.endpoints.web.path-mapping').map(([id, at]) => [endpointKey(id), at.value]));
  const exposedHealth: Endpoint[] = [];
  for (const e of [...builtInEndpoints(ctx), ...customEndpoints(ctx, warnings)]) {
    const access = accessOf(ctx, e);
    if (access === 'none' || !exposed(e.id)) continue;
    if (e.id === 'health') exposedHealth.push(e);
    const path = joinPath(base, mappings.get(endpointKey(e.id)) ?? e.id);
    for (const o of e.operations) {
      if (access === 'read-only' && o.method !== 'GET') continue;
      const where = o.handler && e.type ? { file: e.type.file.path, line: o.line ?? 0 } : enabler;
      out.push(route(o.method, joinPath(path, o.path), `endpoint ${e.id}`, where, { ...(o.handler ? { handler: o.handler } : {}), ...(e.type ? { type: e.type } : {}) }));
    }
  }
  if (exposedHealth.length && atLeast(ctx.boot, [2, 6])) out.push(...healthAdditionalPaths(ctx, route, separate !== undefined, serverBase?.value ?? ''));
  return out;
}

/** Endpoint ids compare without case, dashes or dots (Boot's EndpointId). */
function endpointKey(id: string): string {
  return id === '*' ? '*' : id.toLowerCase().replace(/[^a-z0-9]/g, '');
}

function builtInEndpoints(ctx: ServiceContext): Endpoint[] {
  const out: Endpoint[] = [];
  for (const row of ACTUATOR_ENDPOINTS) {
    if ((row.since && !atLeast(ctx.boot, row.since)) || (row.until && !atMost(ctx.boot, row.until))) continue;
    if (!(row.requires ?? []).every((r) => meets(ctx, r))) continue;
    const operations = row.operations.filter((o) => !o.since || atLeast(ctx.boot, o.since)).map((o) => ({ method: o.method, path: o.path }));
    out.push({ id: row.id, operations, off: row.off === true });
  }
  return out;
}

function meets(ctx: ServiceContext, r: Requirement): boolean {
  if ('dependency' in r) return ctx.has(r.dependency) !== undefined;
  if ('bean' in r) return r.bean.some((b) => ctx.beanTypes().has(b));
  if ('creates' in r) return ctx.creates(r.creates);
  if ('setting' in r) return r.setting.some((k) => ctx.settings.get(k) !== undefined);
  return ctx.servlet() || atLeast(ctx.boot, r.servletBefore);
}

/**
 * Whether an endpoint is available and which operations: `management.endpoint.<id>.access` (Boot 3.4) or `.enabled`,
 * else the default (`management.endpoints.access.default`, `management.endpoints.enabled-by-default`, the endpoint's
 * own), capped by `management.endpoints.access.max-permitted`.
 */
function accessOf(ctx: ServiceContext, e: Endpoint): Access {
  const s = ctx.settings;
  const level = (v: string | undefined): Access | undefined => ACCESS_LEVELS.find((a) => a === v?.toLowerCase().replace('_', '-'));
  const flag = (v: string | undefined): Access | undefined => (v === undefined ? undefined : v.toLowerCase() === 'false' ? 'none' : v.toLowerCase() === 'true' ? 'unrestricted' : undefined);
  const prefix = `management.endpoint.${e.id}`;
  const chosen =
    level(s.get(`${prefix}.access`)?.value) ??
    flag(s.get(`${prefix}.enabled`)?.value) ??
    level(s.get('management.endpoints.access.default')?.value) ??
    flag(s.get('management.endpoints.enabled-by-default')?.value) ??
    (e.off ? 'none' : 'unrestricted');
  const max = level(s.get('management.endpoints.access.max-permitted')?.value);
  return max && ACCESS_LEVELS.indexOf(max) < ACCESS_LEVELS.indexOf(chosen) ? max : chosen;
}

/** The estate's own endpoints: `@Endpoint` / `@WebEndpoint` operations (`@Selector` parameters are path segments) and controller endpoints' mappings. */
function customEndpoints(ctx: ServiceContext, warnings: string[]): Endpoint[] {
  const out: Endpoint[] = [];
  for (const t of ctx.types) {
    const a = t.facts.annotations.find((x) => CUSTOM_ENDPOINT_ANNOTATIONS.has(x.name) || CONTROLLER_ENDPOINT_ANNOTATIONS.has(x.name));
    if (!a || t.facts.kind !== 'class') continue;
    if (!t.facts.annotations.some((x) => STEREOTYPES.has(x.name)) && !ctx.beanTypes().has(t.facts.name)) continue;
    const idValue = firstArg(a, 'id') ?? firstArg(a, 'value');
    const id = idValue ? ctx.constants.part(idValue, t) : undefined;
    if (!id?.literal || !id.text) {
      warnings.push(`${t.file.path}:${t.facts.line}: the id of actuator endpoint ${t.qn} is not determined by the estate`);
      continue;
    }
    const off = booleanArg(a, 'enableByDefault') === false || /(^|\.)NONE$/.test(firstArg(a, 'defaultAccess')?.text ?? '');
    const operations: Endpoint['operations'] = [];
    for (const m of t.members) {
      if (m.facts.kind !== 'method') continue;
      const line = m.facts.nameLine ?? m.facts.line;
      if (CONTROLLER_ENDPOINT_ANNOTATIONS.has(a.name)) {
        const mapping = mappingOf(m.facts.annotations, 'method', (v) => ctx.constants.part(v, t));
        if (!mapping) continue;
        for (const p of mapping.paths.length ? mapping.paths.map((x) => x.text) : ['']) for (const method of mapping.methods.length ? mapping.methods : ['GET']) operations.push({ method, path: p, handler: m, line });
        continue;
      }
      const verb = m.facts.annotations.map((x) => own(OPERATION_METHODS, x.name)).find((v) => v !== undefined);
      if (!verb) continue;
      const selectors = m.facts.params.filter((p) => p.annotations.some((x) => x.name === 'Selector'));
      const path = selectors.map((p) => (/ALL_REMAINING/.test(p.annotations.find((x) => x.name === 'Selector')!.args['match']?.[0]?.text ?? '') ? `{*${p.name}}` : `{${p.name}}`)).join('/');
      operations.push({ method: verb, path, handler: m, line });
    }
    out.push({ id: id.text, operations, off, type: t });
  }
  return out;
}

/**
 * Health groups served at an additional path (`management.endpoint.health.group.<g>.additional-path` =
 * `server:/path` or `management:/path`; `probes.add-additional-paths` puts liveness and readiness at /livez and /readyz
 * on the main port).
 */
function healthAdditionalPaths(ctx: ServiceContext, route: (method: string, path: string, serves: string, where: { file: string; line: number }) => FrameworkRoute, separate: boolean, managementBase: string): FrameworkRoute[] {
  const out: FrameworkRoute[] = [];
  const groups = new Map<string, Located>();
  for (const [rest, at] of ctx.settings.under('management.endpoint.health.group')) {
    const m = /^([^.]+)\.additionalpath$/.exec(rest);
    if (m) groups.set(m[1]!, at);
  }
  const probes = ctx.settings.get('management.endpoint.health.probes.add-additional-paths');
  if (probes?.value.toLowerCase() === 'true') {
    for (const [g, p] of [['liveness', '/livez'], ['readiness', '/readyz']] as const) if (!groups.has(g)) groups.set(g, { ...probes, value: `server:${p}` });
  }
  for (const [group, at] of [...groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const m = /^(server|management):(.+)$/.exec(at.value);
    if (!m) continue;
    const onManagement = m[1] === 'management';
    const r = route('GET', joinPath(onManagement && separate ? managementBase : '', m[2]!), `health group ${group}`, at);
    // `server:` is the main port, where the service's context path applies.
    if (!onManagement) delete r.managementPort;
    out.push(r);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Annotations

function hasAnnotation(annotations: readonly AnnotationFacts[], name: string): boolean {
  return annotations.some((a) => a.name === name);
}

function firstArg(a: AnnotationFacts, name: string): AnnotationValue | undefined {
  return a.args[name]?.[0];
}

function booleanArg(a: AnnotationFacts, name: string): boolean | undefined {
  const v = firstArg(a, name);
  const text = (v?.value ?? v?.text)?.trim();
  return text === 'true' ? true : text === 'false' ? false : undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// Default repository paths: Spring Data REST uncapitalises the domain type's simple name and pluralises it with the
// Evo Inflector, which follows Conway's "An Algorithmic Approach to English Pluralization" (anglicised plurals). The
// rules apply to the end of the name, case-insensitively, first match wins.

function uncapitalize(name: string): string {
  return name ? name[0]!.toLowerCase() + name.slice(1) : name;
}

/** Words (as endings) and what to do with them: keep, or cut `cut` letters and add `add`. */
type PluralRule = { endings: readonly string[]; cut: number; add: string } | { pattern: RegExp; add: string; cut: number };

const words = (s: string): string[] => s.split(' ');
const PLURAL_RULES: readonly PluralRule[] = [
  { pattern: /(?:fish|ois|sheep|deer|pox|itis)$/i, cut: 0, add: '' },
  {
    endings: words(
      'bison flounder pliers bream gallows proceedings breeches graffiti rabies britches headquarters salmon carp herpes scissors chassis high-jinks sea-bass clippers homework series cod innings shears contretemps jackanapes species corps mackerel swine debris measles trout diabetes mews tuna djinn mumps whiting eland news wildebeest elk pincers sugar',
    ),
    cut: 0,
    add: '',
  },
  { endings: ['child'], cut: 0, add: 'ren' },
  { endings: ['ephemeris'], cut: 2, add: 'ides' },
  { endings: ['mongoose'], cut: 0, add: '' },
  { endings: ['mythos'], cut: 2, add: 'oi' },
  { endings: ['soliloquy'], cut: 1, add: 'ies' },
  { endings: ['genus'], cut: 2, add: 'era' },
  { endings: ['quiz'], cut: 0, add: 'zes' },
  { endings: words('trilby beef brother cow genie money'), cut: 0, add: 's' },
  { endings: words('octopus opus'), cut: 0, add: 'es' },
  { endings: words('human alabaman bahaman burman german hiroshiman liman nakayaman oklahoman panaman selman sonaman tacoman yakiman yokohaman yuman'), cut: 0, add: 's' },
  { pattern: /man$/i, cut: 2, add: 'en' },
  { pattern: /[lm]ouse$/i, cut: 4, add: 'ice' },
  { pattern: /tooth$/i, cut: 4, add: 'eeth' },
  { pattern: /goose$/i, cut: 4, add: 'eese' },
  { pattern: /foot$/i, cut: 3, add: 'eet' },
  { pattern: /zoon$/i, cut: 2, add: 'a' },
  { pattern: /[csx]is$/i, cut: 2, add: 'es' },
  { endings: words('codex murex silex'), cut: 2, add: 'ices' },
  { endings: words('radix helix'), cut: 2, add: 'ices' },
  { endings: words('bacterium agendum desideratum erratum stratum datum ovum extremum candelabrum'), cut: 2, add: 'a' },
  { endings: words('criterion perihelion aphelion phenomenon prolegomenon noumenon organon asyndeton hyperbaton'), cut: 2, add: 'a' },
  { endings: words('alumna alga vertebra persona'), cut: 0, add: 'e' },
  { endings: words('alumnus alveolus bacillus bronchus locus nucleus stimulus meniscus thesaurus'), cut: 2, add: 'i' },
  { pattern: /(?:[cs]h|[zx])$/i, cut: 0, add: 'es' },
  {
    endings: words(
      'acropolis chaos lens aegis cosmos mantis alias dais marquis asbestos digitalis metropolis atlas epidermis pathos bathos ethos pelvis bias gas polis caddis glottis rhinoceros cannabis sassafras canvas ibis trellis iris clitoris apparatus impetus prospectus cantus nexus sinus coitus plexus status hiatus',
    ),
    cut: 0,
    add: 'es',
  },
  { endings: words('anathema enema oedema bema enigma sarcoma carcinoma gumma schema charisma lemma soma diploma lymphoma stigma dogma magma stoma drama melisma trauma edema miasma'), cut: 0, add: 's' },
  { pattern: /ss$/i, cut: 0, add: 'es' },
  { pattern: /(?:[aeo]lf|[^d]eaf|arf)$/i, cut: 1, add: 'ves' },
  { pattern: /[nlw]ife$/i, cut: 2, add: 'ves' },
  { pattern: /[aeiou]y$/i, cut: 0, add: 's' },
  { pattern: /y$/i, cut: 1, add: 'ies' },
  {
    endings: words(
      'solo soprano basso alto contralto tempo piano virtuoso albino archipelago armadillo commando crescendo fiasco ditto dynamo embryo ghetto guano inferno jumbo lumbago magneto manifesto medico octavo photo pro quarto canto lingo generalissimo stylo rhino casino auto macro zero',
    ),
    cut: 0,
    add: 's',
  },
  { pattern: /[aeiou]o$/i, cut: 0, add: 's' },
  { pattern: /o$/i, cut: 0, add: 'es' },
];

export function plural(word: string): string {
  const lower = word.toLowerCase();
  for (const rule of PLURAL_RULES) {
    const hit = 'pattern' in rule ? rule.pattern.test(word) : rule.endings.some((e) => lower.endsWith(e));
    if (hit) return word.slice(0, word.length - rule.cut) + rule.add;
  }
  return `${word}s`;
}

// ---------------------------------------------------------------------------------------------------------------
// Adapter: what the build files say, from the build graph (`buildGraph` in build/files.ts)

export interface BuildFacts {
  dependencies(service: string): readonly string[];
  declaredAt(service: string, dependency: string): { file: string; line: number } | undefined;
  bootVersion(service: string): BootVersion | undefined;
}

/** Scopes that put a dependency on the running service's classpath (Maven `provided` is packaged by Boot; Gradle compileOnly is not). */
const RUNTIME_SCOPES = new Set(['compile', 'runtime', 'system']);
/**
 * The Spring Boot Gradle plugin's version, which the build graph does not record: the plugins block, the buildscript
 * classpath, or the conventional property that holds it.
 */
const BOOT_PLUGIN = [
  /id\s*\(?\s*["']org\.springframework\.boot["']\s*\)?\s*version\s*\(?\s*["']([0-9][^"'$]*)["']/,
  /spring-boot-gradle-plugin:([0-9][^"'$)\s]*)/,
  /\bspring[-_.]?boot[-_.]?version\b["']?\s*[=:]\s*["']?([0-9]+\.[0-9][^"'\s]*)/i,
];
const GRADLE_FILES = /(?:^|\/)(?:build\.gradle(?:\.kts)?|settings\.gradle(?:\.kts)?|gradle\.properties)$/;

/**
 * The dependencies, their declarations and the Spring Boot version of each service, from the DEPENDS_ON edges of the
 * build graph; `texts` (the build input's) adds the Boot Gradle plugin's version.
 */
export function buildFactsOf(graph: { nodes: readonly NodeRecord[]; edges: readonly EdgeRecord[] }, ontology: Ontology, source: string, services: readonly ServiceInfo[], texts?: BuildInput['texts']): BuildFacts {
  const nodes = new Map(graph.nodes.map((n) => [n.id, n]));
  const byId = new Map(services.map((s) => [nodeId(ontology, source, 'service', s.name), s.name]));
  const declared = new Map<string, NodeRecord[]>();
  for (const e of graph.edges) {
    if (e.type !== 'DEPENDS_ON') continue;
    const service = byId.get(e.from);
    const dep = nodes.get(e.to);
    if (service !== undefined && dep) (declared.get(service) ?? declared.set(service, []).get(service)!).push(dep);
  }
  const onClasspath = (n: NodeRecord): boolean => RUNTIME_SCOPES.has(String(n.props.scope)) || (n.props.scope === 'provided' && n.props.build_tool === 'maven');
  const boot = new Map<string, BootVersion | undefined>();
  const bootOf = (service: string): BootVersion | undefined => {
    if (boot.has(service)) return boot.get(service);
    const found = bootVersionOf(declared.get(service) ?? [], services.find((s) => s.name === service), texts);
    boot.set(service, found);
    return found;
  };
  return {
    dependencies: (service) => [...new Set((declared.get(service) ?? []).filter(onClasspath).map((n) => n.qualified_name))],
    declaredAt: (service, dependency) => {
      const n = (declared.get(service) ?? []).find((d) => d.qualified_name === dependency && onClasspath(d));
      return n?.file ? { file: n.file, line: n.line ?? 0 } : undefined;
    },
    bootVersion: bootOf,
  };
}

function bootVersionOf(deps: readonly NodeRecord[], info: ServiceInfo | undefined, texts: BuildInput['texts'] | undefined): BootVersion | undefined {
  const versioned = (group: string) => deps.filter((d) => d.qualified_name.startsWith(`${group}:`) && typeof d.props.version === 'string');
  const rank = (d: NodeRecord) => (d.props.scope === 'parent' ? 0 : d.props.scope === 'import' || d.props.platform === true ? 1 : 2);
  const bootDep = versioned('org.springframework.boot').sort((a, b) => rank(a) - rank(b))[0];
  if (bootDep) {
    const v = versionOf(String(bootDep.props.version));
    if (v) return { from: v, to: v, why: `${bootDep.qualified_name} ${String(bootDep.props.version)}` };
  }
  for (const m of info?.modules ?? []) {
    if (m.buildTool !== 'gradle' || !texts) continue;
    // The module's own files first, then those of the directories above it (a root build applying the plugin to subprojects).
    const files = [...texts.keys()].filter((f) => GRADLE_FILES.test(f) && isWithin(m.dir, parentOf(f))).sort((a, b) => parentOf(b).length - parentOf(a).length || (a < b ? -1 : 1));
    for (const file of files) {
      const text = texts.get(file)!;
      const written = BOOT_PLUGIN.map((re) => re.exec(text)?.[1]).find((x) => x);
      const v = written ? versionOf(written) : undefined;
      if (v) return { from: v, to: v, why: `Spring Boot ${written} in ${file}` };
    }
  }
  const train = versioned('org.springframework.cloud').sort((a, b) => rank(a) - rank(b))[0];
  const version = train ? String(train.props.version).toLowerCase() : '';
  const row = SPRING_CLOUD_TRAINS.find(([prefix]) => version.startsWith(prefix));
  return row ? { from: row[1], to: row[2], why: `Spring Cloud ${String(train!.props.version)} (${train!.qualified_name})` } : undefined;
}

function parentOf(file: string): string {
  const i = file.lastIndexOf('/');
  return i < 0 ? '' : file.slice(0, i);
}

/** Whether `dir` is `ancestor` or below it ('' is the root). */
function isWithin(dir: string, ancestor: string): boolean {
  return ancestor === '' || dir === ancestor || dir.startsWith(`${ancestor}/`);
}

function versionOf(text: string): [number, number] | undefined {
  const m = /^(\d+)\.(\d+)/.exec(text);
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}
