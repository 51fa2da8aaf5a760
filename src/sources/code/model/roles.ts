import { own } from './own.js';
import type { AnnotationFacts } from '../parse/ir.js';
import type { CodeModel, TypeEntry } from './model.js';

export type { Capability, Role } from '../../../graph/ontology/code.js';
import type { Capability, Role } from '../../../graph/ontology/code.js';

/** Per-project overrides from sextant.yaml: by annotation simple name, or by type qualified name. */
export interface RoleOverrides {
  roles?: { annotations?: Record<string, Role>; types?: Record<string, Role> };
  capabilities?: { annotations?: Record<string, Capability[]>; types?: Record<string, Capability[]> };
}

const STEREOTYPES: Record<string, Role> = {
  RestController: 'CONTROLLER',
  Controller: 'CONTROLLER',
  Service: 'SERVICE',
  Repository: 'REPOSITORY',
  Component: 'COMPONENT',
  Named: 'COMPONENT',
  ControllerAdvice: 'COMPONENT',
  RestControllerAdvice: 'COMPONENT',
  Configuration: 'CONFIG',
  SpringBootApplication: 'CONFIG',
  AutoConfiguration: 'CONFIG',
  Entity: 'ENTITY',
  MappedSuperclass: 'ENTITY',
  Embeddable: 'ENTITY',
  Document: 'ENTITY',
  FeignClient: 'CLIENT',
  HttpExchange: 'CLIENT',
  Mapper: 'MAPPER',
};
/** Stereotypes whose types Spring instantiates as beans. */
const BEAN_STEREOTYPES = new Set(['RestController', 'Controller', 'Service', 'Repository', 'Component', 'Named', 'ControllerAdvice', 'RestControllerAdvice', 'Configuration', 'SpringBootApplication', 'AutoConfiguration']);
const SPRING_DATA_REPOSITORIES = new Set([
  'Repository',
  'CrudRepository',
  'ListCrudRepository',
  'PagingAndSortingRepository',
  'ListPagingAndSortingRepository',
  'JpaRepository',
  'JpaSpecificationExecutor',
  'QuerydslPredicateExecutor',
  'MongoRepository',
  'ReactiveCrudRepository',
  'ReactiveSortingRepository',
  'R2dbcRepository',
  'ElasticsearchRepository',
  'CoroutineCrudRepository',
  'CoroutineSortingRepository',
  'Neo4jRepository',
  'CassandraRepository',
  'KeyValueRepository',
]);
const LOMBOK_DTO = new Set(['Data', 'Value', 'Builder', 'SuperBuilder', 'Getter', 'Setter', 'EqualsAndHashCode', 'ToString']);
const DTO_SUFFIXES = ['Dto', 'DTO', 'Request', 'Response', 'Payload'];
const LISTENER_ANNOTATIONS = new Set(['KafkaListener', 'KafkaHandler', 'RabbitListener', 'RabbitHandler', 'JmsListener', 'SqsListener', 'StreamListener', 'EventListener', 'TransactionalEventListener']);
const PRODUCER_TYPES = new Set(['KafkaTemplate', 'ReactiveKafkaProducerTemplate', 'RabbitTemplate', 'AmqpTemplate', 'RabbitMessagingTemplate', 'JmsTemplate', 'JmsMessagingTemplate', 'StreamBridge', 'ApplicationEventPublisher', 'KafkaProducer', 'Producer']);
const HTTP_CLIENT_TYPES = new Set(['RestTemplate', 'WebClient', 'RestClient', 'HttpClient', 'OkHttpClient']);
const SCHEDULING_ANNOTATIONS = new Set(['Scheduled', 'Schedules', 'SchedulerLock']);
const GENERATED_FAMILIES: [RegExp, string][] = [
  [/openapitools|swagger/i, 'openapi'],
  [/mapstruct/i, 'mapstruct'],
  [/AutoValue|autovalue/, 'autovalue'],
  [/jooq/i, 'jooq'],
  [/querydsl/i, 'querydsl'],
  [/immutables/i, 'immutables'],
  [/protobuf|protoc/i, 'protobuf'],
  [/jsonschema2pojo/i, 'jsonschema2pojo'],
  [/lombok/i, 'lombok'],
];

export interface TypeTraits {
  role: Role;
  capabilities: Capability[];
  /** Spring instantiates it as a bean (a stereotype, directly or through a meta-annotation). */
  bean: boolean;
  beanNames: string[];
  primary: boolean;
  generatedBy?: string;
}

/** Traits of project types, classified on first use: an update that emits a few files classifies only what they reach. */
export class TypeClassifier {
  private readonly traits = new Map<TypeEntry, TypeTraits>();
  private readonly meta: MetaAnnotations;

  constructor(
    private readonly model: CodeModel,
    private readonly overrides: RoleOverrides = {},
  ) {
    this.meta = new MetaAnnotations(model);
  }

  get(entry: TypeEntry): TypeTraits {
    let found = this.traits.get(entry);
    if (!found) this.traits.set(entry, (found = this.classify(entry)));
    return found;
  }

  private classify(entry: TypeEntry): TypeTraits {
    const stereotypes = entry.facts.annotations.map((a) => ({ a, stereotype: this.meta.stereotypeOf(a, entry) }));
    const bean = stereotypes.some((s) => s.stereotype && BEAN_STEREOTYPES.has(s.stereotype));
    return {
      role: roleOf(this.model, entry, stereotypes, this.overrides),
      capabilities: capabilitiesOf(this.model, entry, this.meta, this.overrides),
      bean,
      beanNames: beanNames(entry),
      primary: entry.facts.annotations.some((a) => a.name === 'Primary'),
      ...generatedBy(entry),
    };
  }
}

function roleOf(model: CodeModel, entry: TypeEntry, stereotypes: { a: AnnotationFacts; stereotype: string | undefined }[], overrides: RoleOverrides): Role {
  const byType = own(overrides.roles?.types, entry.qn);
  if (byType) return byType;
  for (const { a } of stereotypes) {
    const role = own(overrides.roles?.annotations, a.name);
    if (role) return role;
  }
  const facts = entry.facts;
  // An annotation type carrying a stereotype is a meta-annotation: it gives roles, it has none.
  if (facts.kind === 'annotation') return 'OTHER';
  for (const { stereotype } of stereotypes) if (stereotype) return own(STEREOTYPES, stereotype)!;
  if (facts.kind === 'interface' && model.ancestors(entry).external.some((e) => SPRING_DATA_REPOSITORIES.has(simple(e)))) return 'REPOSITORY';
  if (facts.kind === 'record' || facts.flavor === 'data' || facts.annotations.some((a) => LOMBOK_DTO.has(a.name))) return 'DTO';
  if (facts.kind === 'class' && !facts.anonymous && DTO_SUFFIXES.some((s) => facts.name.endsWith(s) && facts.name !== s)) return 'DTO';
  return 'OTHER';
}

function capabilitiesOf(model: CodeModel, entry: TypeEntry, meta: MetaAnnotations, overrides: RoleOverrides): Capability[] {
  const caps = new Set<Capability>(own(overrides.capabilities?.types, entry.qn) ?? []);
  const facts = entry.facts;
  const typeAnnotations = facts.annotations.map((a) => a.name);
  const memberAnnotations = facts.members.flatMap((m) => m.annotations.map((a) => a.name));
  for (const name of [...typeAnnotations, ...memberAnnotations]) for (const c of own(overrides.capabilities?.annotations, name) ?? []) caps.add(c);
  if (memberAnnotations.some((n) => LISTENER_ANNOTATIONS.has(n)) || typeAnnotations.some((n) => n === 'KafkaListener' || n === 'RabbitListener')) caps.add('MESSAGE_LISTENER');
  const dependencyTypes = [...facts.fields.map((f) => f.type?.name), ...facts.members.filter((m) => m.kind === 'constructor').flatMap((m) => m.params.map((p) => p.type.name))].filter((n): n is string => !!n).map(simple);
  if (dependencyTypes.some((t) => PRODUCER_TYPES.has(t))) caps.add('MESSAGE_PRODUCER');
  if (typeAnnotations.includes('FeignClient') || typeAnnotations.includes('HttpExchange') || dependencyTypes.some((t) => HTTP_CLIENT_TYPES.has(t))) caps.add('HTTP_CLIENT');
  if (memberAnnotations.some((n) => SCHEDULING_ANNOTATIONS.has(n)) || model.ancestors(entry).external.some((e) => simple(e) === 'Job' || simple(e) === 'QuartzJobBean')) caps.add('SCHEDULED_TASK');
  if (typeAnnotations.includes('ControllerAdvice') || typeAnnotations.includes('RestControllerAdvice') || memberAnnotations.includes('ExceptionHandler')) caps.add('EXCEPTION_HANDLER');
  // Custom annotations meta-annotated with a listener or scheduling annotation count too.
  for (const m of facts.members) {
    for (const a of m.annotations) {
      const reached = meta.closure(a, entry);
      if (reached.some((n) => LISTENER_ANNOTATIONS.has(n))) caps.add('MESSAGE_LISTENER');
      if (reached.some((n) => SCHEDULING_ANNOTATIONS.has(n))) caps.add('SCHEDULED_TASK');
    }
  }
  return [...caps].sort();
}

/** Bean names Spring would register: the stereotype's value, `@Qualifier` / `@Named` on the class, else the decapitalised simple name. */
function beanNames(entry: TypeEntry): string[] {
  const names = new Set<string>();
  for (const a of entry.facts.annotations) {
    if ((BEAN_STEREOTYPES.has(a.name) || a.name === 'Qualifier') && a.args['value']?.[0]?.value) names.add(a.args['value'][0].value);
  }
  const simpleName = entry.facts.name;
  names.add(simpleName.length > 1 && /[A-Z]/.test(simpleName[1]!) ? simpleName : simpleName[0]!.toLowerCase() + simpleName.slice(1));
  return [...names];
}

// Per file: every type of a file asks, and a file can hold thousands of nested types.
const generatedByFile = new WeakMap<TypeEntry['file'], { generatedBy?: string }>();

function generatedBy(entry: TypeEntry): { generatedBy?: string } {
  let found = generatedByFile.get(entry.file);
  if (!found) generatedByFile.set(entry.file, (found = generatedByFileOf(entry.file)));
  return found;
}

function generatedByFileOf(file: TypeEntry['file']): { generatedBy?: string } {
  if (file.generatedBanner) return { generatedBy: file.generatedBanner };
  const top = file.types.filter((t) => !t.outer);
  for (const t of top) {
    const g = t.annotations.find((a) => a.name === 'Generated' && !/^lombok\./.test(a.written));
    if (!g) continue;
    const text = [g.written, ...Object.values(g.args).flatMap((vs) => vs.map((v) => v.value ?? v.text))].join(' ');
    for (const [pattern, family] of GENERATED_FAMILIES) if (pattern.test(text)) return { generatedBy: family };
    return { generatedBy: 'generated' };
  }
  return {};
}

/** Custom annotations declared in the project, followed to the Spring stereotypes they carry (depth-capped). */
class MetaAnnotations {
  private readonly cache = new Map<string, string[]>();
  constructor(private readonly model: CodeModel) {}

  stereotypeOf(annotation: AnnotationFacts, from: TypeEntry): string | undefined {
    if (own(STEREOTYPES, annotation.name)) return annotation.name;
    return this.closure(annotation, from).find((n) => own(STEREOTYPES, n));
  }

  /** Names of every annotation reachable through project annotation declarations (not including itself). */
  closure(annotation: AnnotationFacts, from: TypeEntry): string[] {
    const target = this.model.resolveTypeName(annotation.written, from)?.entry;
    if (!target || target.facts.kind !== 'annotation') return [];
    return this.expand(target, 0, new Set());
  }

  private expand(decl: TypeEntry, depth: number, seen: Set<TypeEntry>): string[] {
    const cached = this.cache.get(decl.qn);
    if (cached) return cached;
    if (depth > 4 || seen.has(decl)) return [];
    seen.add(decl);
    const out: string[] = [];
    for (const a of decl.facts.annotations) {
      out.push(a.name);
      const next = this.model.resolveTypeName(a.written, decl)?.entry;
      if (next && next.facts.kind === 'annotation') out.push(...this.expand(next, depth + 1, seen));
    }
    if (depth === 0) this.cache.set(decl.qn, out);
    return out;
  }
}

function simple(qn: string): string {
  return qn.slice(qn.lastIndexOf('.') + 1);
}
