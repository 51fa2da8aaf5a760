/**
 * A synthetic code estate for the benchmark: services, classes and methods with realistic identifiers made from a
 * vocabulary, and CALLS / DECLARES / INJECTS / IMPLEMENTS edges whose targets are Zipf-skewed (a few hub methods
 * receive a large share of calls, as loggers, mappers and repositories do in real code). Deterministic: the same
 * seed yields the same nodes, edges and order. It has its own small ontology module so it does not depend on the
 * code ontology's progress.
 */
import { nodeId } from '../src/graph/ids.js';
import { Ontology, type OntologyModule } from '../src/graph/ontology/index.js';
import type { EdgeRecord, NodeRecord, PropValue } from '../src/graph/types.js';
import { Rng, Zipf, type ToolCall } from './util.js';

export const BENCH_SOURCE = 'estate';

export const ROLES = ['CONTROLLER', 'SERVICE', 'REPOSITORY', 'COMPONENT', 'CONFIG', 'ENTITY', 'CLIENT', 'MAPPER', 'DTO', 'OTHER'] as const;
export type Role = (typeof ROLES)[number];
export const CLASS_KINDS = ['class', 'interface', 'enum', 'record', 'annotation'] as const;
type ClassKind = (typeof CLASS_KINDS)[number];
export const VISIBILITIES = ['public', 'protected', 'package', 'private'] as const;
export const CALL_STRATEGIES = ['static_type', 'receiver_field', 'this_call', 'name_only', 'lambda', 'reflection'] as const;
const STRATEGY_CONFIDENCE: Record<(typeof CALL_STRATEGIES)[number], number> = {
  static_type: 0.95,
  receiver_field: 0.9,
  this_call: 1,
  name_only: 0.5,
  lambda: 0.7,
  reflection: 0.3,
};
export const INJECT_MECHANISMS = ['constructor', 'field', 'lombok', 'setter'] as const;

export const BENCH_ONTOLOGY: OntologyModule = {
  sourceKind: 'bench',
  description: 'Synthetic code estate used by `npm run bench` (services, classes, methods).',
  nodeKinds: [
    {
      name: 'service',
      idPrefix: 'sv',
      description: 'A deployable service.',
      qualifiedNameFormat: 'the service name, e.g. order-service',
      location: ['service', 'module'],
      searchPrior: 1.2,
      properties: [
        { name: 'language', type: 'enum', values: ['java', 'kotlin'], description: 'Main language.', filter: ['eq', 'exclude'] },
        { name: 'team', type: 'string', description: 'Owning team.', filter: ['eq'] },
        { name: 'tags', type: 'string_list', description: 'Free tags.', filter: ['eq'] },
        { name: 'description', type: 'string', description: 'What the service does.', searchable: true },
      ],
    },
    {
      name: 'class',
      idPrefix: 'cl',
      description: 'A class, interface, enum, record or annotation.',
      qualifiedNameFormat: 'package.ClassName',
      location: ['service', 'module', 'file', 'line'],
      searchPrior: 1.15,
      properties: [
        { name: 'class_kind', type: 'enum', values: CLASS_KINDS, description: 'What kind of type.', filter: ['eq', 'exclude'] },
        { name: 'role', type: 'enum', values: ROLES, description: 'Architectural role.', filter: ['eq', 'exclude'] },
        { name: 'annotations', type: 'string_list', description: 'Annotations on the declaration.', filter: ['eq'] },
        { name: 'generated', type: 'boolean', description: 'Generated code.', filter: ['eq'] },
        { name: 'method_count', type: 'integer', description: 'Number of declared methods.', filter: ['range'] },
        { name: 'description', type: 'string', description: 'Javadoc summary.', searchable: true },
      ],
    },
    {
      name: 'method',
      idPrefix: 'mt',
      description: 'A method or constructor.',
      qualifiedNameFormat: 'package.ClassName#name(ParamTypes)',
      location: ['service', 'module', 'file', 'line'],
      searchPrior: 0.9,
      properties: [
        { name: 'declaring_type', type: 'string', description: 'Qualified name of the declaring class.', filter: ['eq'] },
        { name: 'visibility', type: 'enum', values: VISIBILITIES, description: 'Access modifier.', filter: ['eq', 'exclude'] },
        { name: 'is_static', type: 'boolean', description: 'Static method.', filter: ['eq'] },
        { name: 'param_count', type: 'integer', description: 'Number of parameters.', filter: ['eq', 'range'] },
        { name: 'return_type', type: 'string', description: 'Declared return type.', filter: ['eq'] },
        { name: 'signature', type: 'string', description: 'Full signature.' },
        { name: 'annotations', type: 'string_list', description: 'Annotations on the declaration.', filter: ['eq'] },
        { name: 'description', type: 'string', description: 'Javadoc summary.', searchable: true },
      ],
    },
  ],
  edgeTypes: [
    { name: 'DECLARES', description: 'A service declares a class; a class declares a method.', from: ['service', 'class'], to: ['class', 'method'], attrs: [], inferred: false },
    {
      name: 'CALLS',
      description: 'A method calls another method.',
      from: ['method'],
      to: ['method'],
      attrs: [{ name: 'line', type: 'integer', description: 'Line of the call site.' }],
      inferred: true,
    },
    {
      name: 'INJECTS',
      description: 'A class receives another by dependency injection.',
      from: ['class'],
      to: ['class'],
      attrs: [{ name: 'mechanism', type: 'enum', values: INJECT_MECHANISMS, description: 'How it is injected.', filterable: true }],
      inferred: false,
    },
    { name: 'IMPLEMENTS', description: 'A class implements an interface.', from: ['class'], to: ['class'], attrs: [], inferred: false },
  ],
};

export function benchOntology(): Ontology {
  return new Ontology([BENCH_ONTOLOGY]);
}

// ------------------------------------------------------------------------------------------------ vocabulary

export const NOUNS = [
  'Order', 'Customer', 'Payment', 'Invoice', 'Shipment', 'Account', 'User', 'Product', 'Cart', 'Inventory',
  'Price', 'Discount', 'Coupon', 'Review', 'Notification', 'Email', 'Report', 'Audit', 'Session', 'Token',
  'Subscription', 'Plan', 'Refund', 'Transaction', 'Ledger', 'Warehouse', 'Supplier', 'Catalog', 'Category', 'Address',
  'Profile', 'Role', 'Permission', 'Tenant', 'Document', 'Attachment', 'Message', 'Ticket', 'Comment', 'Rating',
  'Recommendation', 'Campaign', 'Promotion', 'Loyalty', 'Reward', 'Wallet', 'Card', 'Transfer', 'Balance', 'Statement',
  'Tax', 'Currency', 'Quote', 'Contract', 'Policy', 'Claim', 'Booking', 'Reservation', 'Schedule', 'Slot',
  'Route', 'Delivery', 'Carrier', 'Tracking', 'Return', 'Stock', 'Batch', 'Job', 'Task', 'Webhook',
  'Feature', 'Metric', 'Alert', 'Incident', 'Device', 'Location', 'Partner', 'Merchant', 'Fulfillment', 'Settlement',
] as const;
const MODIFIERS = ['Line', 'Item', 'Status', 'History', 'Summary', 'Detail', 'Preference', 'Setting', 'Method', 'Entry', 'Snapshot', 'Template', 'Rule', 'Limit'] as const;
export const VERBS = [
  'get', 'find', 'create', 'update', 'delete', 'save', 'load', 'validate', 'process', 'handle', 'build', 'compute',
  'send', 'publish', 'fetch', 'sync', 'parse', 'map', 'convert', 'check', 'apply', 'resolve', 'register', 'schedule',
  'cancel', 'refund', 'approve', 'reject', 'import', 'export', 'calculate', 'reconcile', 'notify', 'archive', 'restore', 'merge',
] as const;
const FIELDS = [
  'id', 'name', 'status', 'createdAt', 'updatedAt', 'amount', 'currency', 'email', 'description', 'quantity', 'price', 'total',
  'version', 'type', 'code', 'reference', 'externalId', 'tenantId', 'userId', 'customerId', 'orderId', 'title', 'note', 'priority',
  'dueDate', 'expiresAt', 'country', 'region', 'phone', 'enabled', 'score', 'label',
] as const;
const QUALIFIERS = ['ById', 'ByCustomer', 'ByStatus', 'ForTenant', 'Async', 'InBatch', 'IfPresent', 'WithRetry', 'ByExternalId', 'ForUser', 'Later', 'Now'] as const;
const TEAMS = ['checkout', 'payments', 'platform', 'growth', 'logistics', 'identity', 'data', 'support', 'finance', 'catalog'] as const;
const TAGS = ['tier-1', 'tier-2', 'pci', 'gdpr', 'batch', 'realtime', 'legacy', 'public-api', 'internal', 'kafka'] as const;
const PARAM_TYPES = ['String', 'Long', 'UUID', 'int', 'boolean', 'Pageable', 'Instant', 'BigDecimal', 'Locale'] as const;
const METHOD_ANNOTATIONS = ['Override', 'Transactional', 'GetMapping', 'PostMapping', 'PutMapping', 'DeleteMapping', 'Async', 'Scheduled', 'KafkaListener', 'Cacheable', 'PreAuthorize', 'Retryable', 'Timed', 'EventListener'] as const;

/** Class patterns: template over an entity name, role, package layer, kind, and how often a (service, entity) pair has one. */
interface ClassPattern {
  name: (e: string) => string;
  role: Role;
  layer: string;
  kind: ClassKind;
  p: number;
  annotations: readonly string[];
}
const PATTERNS: readonly ClassPattern[] = [
  { name: (e) => `${e}Controller`, role: 'CONTROLLER', layer: 'api', kind: 'class', p: 0.75, annotations: ['RestController', 'RequestMapping'] },
  { name: (e) => `${e}AdminController`, role: 'CONTROLLER', layer: 'api.admin', kind: 'class', p: 0.2, annotations: ['RestController', 'PreAuthorize'] },
  { name: (e) => `${e}Dto`, role: 'DTO', layer: 'api.dto', kind: 'class', p: 0.85, annotations: ['Data'] },
  { name: (e) => `Create${e}Request`, role: 'DTO', layer: 'api.dto', kind: 'record', p: 0.6, annotations: ['Validated'] },
  { name: (e) => `Update${e}Request`, role: 'DTO', layer: 'api.dto', kind: 'record', p: 0.5, annotations: ['Validated'] },
  { name: (e) => `${e}Response`, role: 'DTO', layer: 'api.dto', kind: 'record', p: 0.6, annotations: [] },
  { name: (e) => `${e}Summary`, role: 'DTO', layer: 'api.dto', kind: 'record', p: 0.35, annotations: [] },
  { name: (e) => `${e}Service`, role: 'SERVICE', layer: 'service', kind: 'interface', p: 0.9, annotations: [] },
  { name: (e) => `${e}ServiceImpl`, role: 'SERVICE', layer: 'service.impl', kind: 'class', p: 0.8, annotations: ['Service', 'Transactional'] },
  { name: (e) => `${e}QueryService`, role: 'SERVICE', layer: 'service', kind: 'class', p: 0.3, annotations: ['Service'] },
  { name: (e) => `${e}CommandHandler`, role: 'SERVICE', layer: 'service', kind: 'class', p: 0.25, annotations: ['Service'] },
  { name: (e) => `${e}Repository`, role: 'REPOSITORY', layer: 'repository', kind: 'interface', p: 0.8, annotations: ['Repository'] },
  { name: (e) => `${e}CustomRepository`, role: 'REPOSITORY', layer: 'repository', kind: 'interface', p: 0.2, annotations: [] },
  { name: (e) => `${e}CustomRepositoryImpl`, role: 'REPOSITORY', layer: 'repository', kind: 'class', p: 0.2, annotations: ['Repository'] },
  { name: (e) => `${e}`, role: 'ENTITY', layer: 'domain', kind: 'class', p: 0.85, annotations: ['Entity', 'Table'] },
  { name: (e) => `${e}Status`, role: 'ENTITY', layer: 'domain', kind: 'enum', p: 0.5, annotations: [] },
  { name: (e) => `${e}Type`, role: 'ENTITY', layer: 'domain', kind: 'enum', p: 0.3, annotations: [] },
  { name: (e) => `${e}Id`, role: 'ENTITY', layer: 'domain', kind: 'record', p: 0.3, annotations: ['Embeddable'] },
  { name: (e) => `${e}Client`, role: 'CLIENT', layer: 'client', kind: 'interface', p: 0.35, annotations: ['FeignClient'] },
  { name: (e) => `${e}Gateway`, role: 'CLIENT', layer: 'client', kind: 'class', p: 0.2, annotations: ['Component'] },
  { name: (e) => `${e}Config`, role: 'CONFIG', layer: 'config', kind: 'class', p: 0.3, annotations: ['Configuration'] },
  { name: (e) => `${e}Properties`, role: 'CONFIG', layer: 'config', kind: 'class', p: 0.25, annotations: ['ConfigurationProperties'] },
  { name: (e) => `${e}Mapper`, role: 'MAPPER', layer: 'mapper', kind: 'interface', p: 0.6, annotations: ['Mapper'] },
  { name: (e) => `${e}MapperImpl`, role: 'MAPPER', layer: 'mapper', kind: 'class', p: 0.5, annotations: ['Generated', 'Component'] },
  { name: (e) => `${e}Validator`, role: 'COMPONENT', layer: 'validation', kind: 'class', p: 0.45, annotations: ['Component'] },
  { name: (e) => `${e}EventListener`, role: 'COMPONENT', layer: 'messaging', kind: 'class', p: 0.35, annotations: ['Component'] },
  { name: (e) => `${e}EventPublisher`, role: 'COMPONENT', layer: 'messaging', kind: 'class', p: 0.35, annotations: ['Component'] },
  { name: (e) => `${e}CreatedEvent`, role: 'DTO', layer: 'messaging.events', kind: 'record', p: 0.35, annotations: [] },
  { name: (e) => `${e}Scheduler`, role: 'COMPONENT', layer: 'jobs', kind: 'class', p: 0.15, annotations: ['Component'] },
  { name: (e) => `${e}Factory`, role: 'COMPONENT', layer: 'service.support', kind: 'class', p: 0.2, annotations: ['Component'] },
  { name: (e) => `${e}Processor`, role: 'COMPONENT', layer: 'service.support', kind: 'class', p: 0.2, annotations: ['Component'] },
  { name: (e) => `${e}Utils`, role: 'OTHER', layer: 'util', kind: 'class', p: 0.25, annotations: [] },
  { name: (e) => `${e}NotFoundException`, role: 'OTHER', layer: 'exception', kind: 'class', p: 0.5, annotations: ['ResponseStatus'] },
  { name: (e) => `${e}Constants`, role: 'OTHER', layer: 'util', kind: 'class', p: 0.15, annotations: [] },
  { name: (e) => `Audited${e}`, role: 'OTHER', layer: 'annotation', kind: 'annotation', p: 0.05, annotations: ['Retention'] },
];

// ------------------------------------------------------------------------------------------------ the graph

export interface SynthClass {
  id: string;
  name: string;
  qualifiedName: string;
  role: Role;
  kind: ClassKind;
  service: number;
  entity: string;
  methods: number[];
}

export interface SynthMethod {
  id: string;
  name: string;
  qualifiedName: string;
  cls: number;
}

export interface SyntheticGraph {
  ontology: Ontology;
  nodes: NodeRecord[];
  edges: EdgeRecord[];
  services: { id: string; name: string; pkg: string; team: string }[];
  classes: SynthClass[];
  methods: SynthMethod[];
  /** CALLS in-degree and out-degree per method index. */
  callsIn: Uint32Array;
  callsOut: Uint32Array;
  counts: { by_kind: Record<string, number>; by_edge_type: Record<string, number> };
}

export interface SyntheticOptions {
  seed: number;
  services: number;
  /** Approximate CALLS edges to generate. */
  calls: number;
}

export const DEFAULT_SYNTHETIC: SyntheticOptions = { seed: 20261122, services: 104, calls: 820_000 };

function kebab(s: string): string {
  return s.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
}
function plural(s: string): string {
  return /(s|x|ch|sh)$/.test(s) ? `${s}es` : /[^aeiou]y$/.test(s) ? `${s.slice(0, -1)}ies` : `${s}s`;
}
function upperFirst(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** Method names a class of this role would declare, about `n` of them, for entity `e`. */
function methodNames(rng: Rng, role: Role, kind: ClassKind, e: string, n: number): { name: string; params: string[]; ret: string; annotations: string[] }[] {
  const out: { name: string; params: string[]; ret: string; annotations: string[] }[] = [];
  const field = () => rng.pick(FIELDS);
  const param = () => rng.pick(PARAM_TYPES);
  const dto = `${e}Dto`;
  for (let i = 0; i < n; i++) {
    switch (role) {
      case 'DTO':
      case 'ENTITY': {
        if (kind === 'enum') {
          out.push(rng.pick([{ name: 'values', params: [], ret: `${e}[]`, annotations: [] }, { name: 'valueOf', params: ['String'], ret: e, annotations: [] }, { name: 'isTerminal', params: [], ret: 'boolean', annotations: [] }, { name: 'fromCode', params: ['String'], ret: e, annotations: [] }]));
          break;
        }
        const f = upperFirst(field());
        if (rng.chance(0.5)) out.push({ name: `get${f}`, params: [], ret: 'String', annotations: [] });
        else out.push({ name: `set${f}`, params: [param()], ret: 'void', annotations: [] });
        if (rng.chance(0.05)) out.push(rng.pick([{ name: 'equals', params: ['Object'], ret: 'boolean', annotations: ['Override'] }, { name: 'hashCode', params: [], ret: 'int', annotations: ['Override'] }, { name: 'toString', params: [], ret: 'String', annotations: ['Override'] }]));
        break;
      }
      case 'REPOSITORY': {
        const f = upperFirst(field());
        const g = upperFirst(field());
        out.push(
          rng.pick([
            { name: `findBy${f}`, params: [param()], ret: `Optional<${e}>`, annotations: [] },
            { name: `findAllBy${f}`, params: [param(), 'Pageable'], ret: `Page<${e}>`, annotations: [] },
            { name: `findBy${f}And${g}`, params: [param(), param()], ret: `List<${e}>`, annotations: [] },
            { name: `existsBy${f}`, params: [param()], ret: 'boolean', annotations: [] },
            { name: `countBy${f}`, params: [param()], ret: 'long', annotations: [] },
            { name: `deleteBy${f}`, params: [param()], ret: 'void', annotations: ['Modifying'] },
            { name: 'save', params: [e], ret: e, annotations: [] },
            { name: 'findById', params: ['Long'], ret: `Optional<${e}>`, annotations: [] },
          ]),
        );
        break;
      }
      case 'CONTROLLER': {
        const [name, ann, params, ret] = rng.pick([
          [`get${e}`, 'GetMapping', ['Long'], dto],
          [`list${plural(e)}`, 'GetMapping', ['Pageable'], `Page<${dto}>`],
          [`create${e}`, 'PostMapping', [`Create${e}Request`], dto],
          [`update${e}`, 'PutMapping', ['Long', `Update${e}Request`], dto],
          [`delete${e}`, 'DeleteMapping', ['Long'], 'void'],
          [`search${plural(e)}`, 'GetMapping', ['String', 'Pageable'], `Page<${dto}>`],
          [`get${e}${rng.pick(MODIFIERS)}`, 'GetMapping', ['Long'], 'List<String>'],
          [`export${plural(e)}`, 'GetMapping', ['String'], 'byte[]'],
          [`${rng.pick(VERBS)}${e}`, 'PostMapping', ['Long'], dto],
        ] as const);
        out.push({ name, params: [...params], ret, annotations: [ann, ...(rng.chance(0.3) ? ['PreAuthorize'] : []), ...(rng.chance(0.2) ? ['Timed'] : [])] });
        break;
      }
      case 'MAPPER':
        out.push(rng.pick([
          { name: `to${upperFirst(dto)}`, params: [e], ret: dto, annotations: [] },
          { name: `to${e}`, params: [dto], ret: e, annotations: [] },
          { name: `to${e}Response`, params: [e], ret: `${e}Response`, annotations: [] },
          { name: `update${e}From${upperFirst(dto)}`, params: [dto, e], ret: 'void', annotations: [] },
          { name: `map${e}${rng.pick(MODIFIERS)}`, params: [e], ret: 'String', annotations: [] },
        ]));
        break;
      default: {
        // services, components, clients, configs and others: verb + noun (+ qualifier)
        const verb = rng.pick(VERBS);
        const noun = rng.chance(0.6) ? e : rng.chance(0.5) ? `${e}${rng.pick(MODIFIERS)}` : rng.pick(NOUNS);
        const qualifier = rng.chance(0.35) ? rng.pick(QUALIFIERS) : '';
        const annotations: string[] = [];
        if (role === 'SERVICE' && rng.chance(0.4)) annotations.push('Transactional');
        if (role === 'SERVICE' && rng.chance(0.1)) annotations.push('Cacheable');
        if (role === 'COMPONENT' && rng.chance(0.3)) annotations.push(rng.pick(['KafkaListener', 'EventListener', 'Scheduled', 'Async']));
        if (role === 'CLIENT' && rng.chance(0.3)) annotations.push(rng.pick(['Retryable', 'GetMapping', 'PostMapping']));
        if (kind === 'class' && rng.chance(0.2)) annotations.push('Override');
        const params = Array.from({ length: rng.range(0, 4) }, (_, j) => (j === 0 && rng.chance(0.5) ? dto : param()));
        out.push({ name: `${verb}${noun}${qualifier}`, params, ret: rng.pick(['void', dto, `List<${dto}>`, 'boolean', `Optional<${e}>`, 'String', 'CompletableFuture<Void>']), annotations });
      }
    }
  }
  return out;
}

/** How many methods a class of this role declares (skewed: most classes are small, a few are large). */
function methodCount(rng: Rng, role: Role, kind: ClassKind): number {
  const base: Record<Role, number> = { CONTROLLER: 6, SERVICE: 9, REPOSITORY: 5, COMPONENT: 5, CONFIG: 3, ENTITY: 12, CLIENT: 4, MAPPER: 5, DTO: 10, OTHER: 3 };
  if (kind === 'enum') return rng.range(2, 4);
  if (kind === 'annotation') return rng.range(0, 2);
  const pareto = 1 / Math.pow(1 - rng.next() * 0.999, 1 / 2.5); // ≥ 1, heavy tail
  return Math.max(1, Math.min(120, Math.round(base[role] * pareto * 0.65)));
}

const JAVADOC_OPENERS = ['Returns', 'Creates', 'Loads', 'Validates', 'Sends', 'Computes', 'Updates', 'Publishes', 'Resolves', 'Handles'] as const;
const JAVADOC_TAILS = ['for the given tenant', 'by its external reference', 'and records an audit entry', 'in a single transaction', 'from the upstream partner API', 'with retries and backoff', 'for the current user', 'when the status changes', 'in batches of one hundred', 'using the cached snapshot'] as const;

function javadoc(rng: Rng, e: string): string {
  const noun = rng.chance(0.5) ? e.toLowerCase() : rng.pick(NOUNS).toLowerCase();
  return `${rng.pick(JAVADOC_OPENERS)} the ${noun} ${rng.pick(MODIFIERS).toLowerCase()} ${rng.pick(JAVADOC_TAILS)}.`;
}

export function generateSynthetic(opts: SyntheticOptions = DEFAULT_SYNTHETIC): SyntheticGraph {
  const ontology = benchOntology();
  const rng = new Rng(opts.seed);
  const source = BENCH_SOURCE;
  const nodes: NodeRecord[] = [];
  const edges: EdgeRecord[] = [];
  const services: SyntheticGraph['services'] = [];
  const classes: SynthClass[] = [];
  const methods: SynthMethod[] = [];
  const idOf = (kind: string, qn: string) => nodeId(ontology, source, kind, qn);

  // Services: one home noun each; entities drawn with a Zipf skew so User, Account, Order... recur across services.
  const nounOrder = rng.shuffled(NOUNS);
  const entityZipf = new Zipf(nounOrder.length, 0.8);
  const suffixes = ['service', 'api', 'worker', 'gateway', 'sync'];
  for (let s = 0; s < opts.services; s++) {
    const home = nounOrder[s % nounOrder.length]!;
    const round = Math.floor(s / nounOrder.length);
    const name = `${kebab(home)}-${suffixes[round % suffixes.length]}`;
    const pkg = `com.acme.${home.toLowerCase()}${round ? `.${suffixes[round % suffixes.length]}` : ''}`;
    const team = rng.pick(TEAMS);
    const id = idOf('service', name);
    services.push({ id, name, pkg, team });
    const props: Record<string, PropValue> = {
      language: rng.chance(0.75) ? 'java' : 'kotlin',
      team,
      tags: [...new Set([rng.pick(TAGS), rng.pick(TAGS)])].sort(),
      description: `Owns ${home.toLowerCase()} ${rng.pick(MODIFIERS).toLowerCase()} data and ${rng.pick(VERBS)} workflows for the ${team} team.`,
    };
    nodes.push({ id, kind: 'service', name, qualified_name: name, source, service: name, module: pkg, props });
  }

  // Classes per service.
  for (let s = 0; s < services.length; s++) {
    const svc = services[s]!;
    const entities = new Set<string>([nounOrder[s % nounOrder.length]!]);
    while (entities.size < 13) entities.add(nounOrder[entityZipf.sample(rng)]!);
    for (let i = 0; i < 4; i++) entities.add(`${rng.pick([...entities])}${rng.pick(MODIFIERS)}`);
    const seen = new Set<string>();
    for (const e of entities) {
      for (const pattern of PATTERNS) {
        if (!rng.chance(Math.min(1, pattern.p * 1.05))) continue;
        const name = pattern.name(e);
        const qn = `${svc.pkg}.${pattern.layer}.${name}`;
        if (seen.has(qn)) continue;
        seen.add(qn);
        classes.push({ id: idOf('class', qn), name, qualifiedName: qn, role: pattern.role, kind: pattern.kind, service: s, entity: e, methods: [] });
      }
    }
  }

  // Methods per class, and the class and method nodes.
  for (let c = 0; c < classes.length; c++) {
    const cls = classes[c]!;
    const svc = services[cls.service]!;
    const pattern = PATTERNS.find((p) => p.role === cls.role && cls.qualifiedName.endsWith(`.${p.layer}.${p.name(cls.entity)}`));
    const module = cls.qualifiedName.slice(0, cls.qualifiedName.lastIndexOf('.'));
    const file = `${svc.name}/src/main/java/${module.replace(/\./g, '/')}/${cls.name}.java`;
    const wanted = methodCount(rng, cls.role, cls.kind);
    const seen = new Set<string>();
    let line = rng.range(12, 30);
    for (const m of methodNames(rng, cls.role, cls.kind, cls.entity, wanted)) {
      const qn = `${cls.qualifiedName}#${m.name}(${m.params.join(',')})`;
      if (seen.has(qn)) continue;
      seen.add(qn);
      const id = idOf('method', qn);
      const props: Record<string, PropValue> = {
        declaring_type: cls.qualifiedName,
        visibility: cls.kind === 'interface' ? 'public' : rng.chance(0.7) ? 'public' : rng.pick(['protected', 'package', 'private']),
        is_static: cls.role === 'OTHER' && rng.chance(0.7),
        param_count: m.params.length,
        return_type: m.ret,
        signature: `${m.ret} ${m.name}(${m.params.map((p, i) => `${p} ${p === 'Pageable' ? 'pageable' : `arg${i}`}`).join(', ')})`,
        annotations: m.annotations,
      };
      if (rng.chance(0.25)) props.description = javadoc(rng, cls.entity);
      line += rng.range(3, 25);
      cls.methods.push(methods.length);
      methods.push({ id, name: m.name, qualifiedName: qn, cls: c });
      nodes.push({ id, kind: 'method', name: m.name, qualified_name: qn, source, service: svc.name, module, file, line, props });
    }
    const props: Record<string, PropValue> = {
      class_kind: cls.kind,
      role: cls.role,
      annotations: [...(pattern?.annotations ?? [])],
      generated: (pattern?.annotations ?? []).includes('Generated'),
      method_count: cls.methods.length,
    };
    if (rng.chance(0.4)) props.description = javadoc(rng, cls.entity);
    nodes.push({ id: cls.id, kind: 'class', name: cls.name, qualified_name: cls.qualifiedName, source, service: svc.name, module, file, line: rng.range(5, 20), props });
  }

  // DECLARES: service → class, class → method.
  for (const cls of classes) {
    edges.push({ type: 'DECLARES', from: services[cls.service]!.id, to: cls.id });
    for (const m of cls.methods) edges.push({ type: 'DECLARES', from: cls.id, to: methods[m]!.id });
  }

  // IMPLEMENTS: XServiceImpl → XService, XMapperImpl → XMapper, XCustomRepositoryImpl → XCustomRepository, XGateway → XClient.
  const byQn = new Map(classes.map((c, i) => [c.qualifiedName, i]));
  const classesOfService: number[][] = services.map(() => []);
  classes.forEach((c, i) => classesOfService[c.service]!.push(i));
  for (let i = 0; i < classes.length; i++) {
    const cls = classes[i]!;
    const svc = services[cls.service]!;
    const target =
      cls.name.endsWith('ServiceImpl') ? `${svc.pkg}.service.${cls.name.slice(0, -4)}`
      : cls.name.endsWith('MapperImpl') ? `${svc.pkg}.mapper.${cls.name.slice(0, -4)}`
      : cls.name.endsWith('CustomRepositoryImpl') ? `${svc.pkg}.repository.${cls.name.slice(0, -4)}`
      : cls.name.endsWith('Gateway') ? `${svc.pkg}.client.${cls.name.slice(0, -'Gateway'.length)}Client`
      : undefined;
    const j = target ? byQn.get(target) : undefined;
    if (j !== undefined) edges.push({ type: 'IMPLEMENTS', from: cls.id, to: classes[j]!.id });
  }

  // INJECTS: controllers, services, components and gateways receive services, repositories, clients, mappers and configs.
  const injectable = new Set<Role>(['SERVICE', 'REPOSITORY', 'CLIENT', 'MAPPER', 'CONFIG', 'COMPONENT']);
  const injectors = new Set<Role>(['CONTROLLER', 'SERVICE', 'COMPONENT', 'CLIENT']);
  for (let s = 0; s < services.length; s++) {
    const pool = rng.shuffled(classesOfService[s]!.filter((i) => injectable.has(classes[i]!.role) && classes[i]!.kind !== 'record'));
    if (pool.length === 0) continue;
    const zipf = new Zipf(pool.length, 0.9);
    for (const i of classesOfService[s]!) {
      const cls = classes[i]!;
      if (!injectors.has(cls.role) || cls.kind !== 'class') continue;
      const k = rng.range(1, 6);
      const chosen = new Set<number>();
      for (let t = 0; t < k * 2 && chosen.size < k; t++) {
        const j = pool[zipf.sample(rng)]!;
        if (j !== i) chosen.add(j);
      }
      for (const j of [...chosen].sort((a, b) => a - b)) {
        const r = rng.next();
        const mechanism = r < 0.6 ? 'constructor' : r < 0.85 ? 'field' : r < 0.95 ? 'lombok' : 'setter';
        edges.push({ type: 'INJECTS', from: cls.id, to: classes[j]!.id, attrs: { mechanism } });
      }
    }
  }

  // CALLS: callers weighted by role with a heavy tail; callees 45% global Zipf (hubs), 40% within the service
  // (Zipf), 15% uniform. Pairs are unique.
  const n = methods.length;
  const callerBase: Record<Role, number> = { CONTROLLER: 6, SERVICE: 9, COMPONENT: 6, CLIENT: 3, MAPPER: 3, CONFIG: 2, REPOSITORY: 0.4, ENTITY: 0.3, DTO: 0.2, OTHER: 1.5 };
  const weights = new Float64Array(n);
  let total = 0;
  for (let i = 0; i < n; i++) {
    const w = callerBase[classes[methods[i]!.cls]!.role] / Math.pow(1 - rng.next() * 0.999, 1 / 2.2);
    weights[i] = w;
    total += w;
  }
  const scale = opts.calls / total;
  const globalOrder = rng.shuffled(Array.from({ length: n }, (_, i) => i));
  const globalZipf = new Zipf(n, 1.0);
  const methodsOfService: number[][] = services.map(() => []);
  for (let i = 0; i < n; i++) methodsOfService[classes[methods[i]!.cls]!.service]!.push(i);
  const localOrder = methodsOfService.map((list) => rng.shuffled(list));
  const localZipf = localOrder.map((list) => new Zipf(Math.max(1, list.length), 0.8));
  const callsIn = new Uint32Array(n);
  const callsOut = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    const want = Math.min(400, Math.floor(weights[i]! * scale + rng.next()));
    if (want === 0) continue;
    const s = classes[methods[i]!.cls]!.service;
    const targets = new Set<number>();
    for (let t = 0; t < want * 3 && targets.size < want; t++) {
      const r = rng.next();
      const j = r < 0.45 ? globalOrder[globalZipf.sample(rng)]! : r < 0.85 ? localOrder[s]![localZipf[s]!.sample(rng)]! : rng.int(n);
      if (j !== i) targets.add(j);
    }
    for (const j of [...targets].sort((a, b) => a - b)) {
      const strategy = CALL_STRATEGIES[Math.min(CALL_STRATEGIES.length - 1, Math.floor(Math.pow(rng.next(), 1.6) * CALL_STRATEGIES.length))]!;
      edges.push({ type: 'CALLS', from: methods[i]!.id, to: methods[j]!.id, attrs: { confidence: STRATEGY_CONFIDENCE[strategy], strategy, line: rng.range(1, 2000) } });
      callsOut[i]!++;
      callsIn[j]!++;
    }
  }

  const byKind: Record<string, number> = {};
  for (const node of nodes) byKind[node.kind] = (byKind[node.kind] ?? 0) + 1;
  const byType: Record<string, number> = {};
  for (const e of edges) byType[e.type] = (byType[e.type] ?? 0) + 1;
  return { ontology, nodes, edges, services, classes, methods, callsIn, callsOut, counts: { by_kind: byKind, by_edge_type: byType } };
}


// ------------------------------------------------------------------------------------------------ workload

export type Workload = Record<'search' | 'find' | 'describe' | 'neighbors' | 'resolve', ToolCall[]>;

/** One kind of call in a tool's mix: its label in the report, its share of calls, and how to make its arguments. */
interface Case {
  label: string;
  weight: number;
  args: () => Record<string, unknown>;
}

/** `n` calls drawn from weighted cases (deterministic for the generator's state). */
function draw(rng: Rng, tool: string, cases: readonly Case[], n: number): ToolCall[] {
  const total = cases.reduce((a, c) => a + c.weight, 0);
  return Array.from({ length: n }, () => {
    let r = rng.next() * total;
    const c = cases.find((x) => (r -= x.weight) < 0) ?? cases[cases.length - 1]!;
    return { tool, label: c.label, args: c.args() };
  });
}

/** Misspell a name the way people do: drop, swap or double a letter. */
function typo(rng: Rng, s: string): string {
  if (s.length < 4) return `${s}x`;
  const i = rng.range(1, s.length - 3);
  const r = rng.next();
  if (r < 0.4) return s.slice(0, i) + s.slice(i + 1);
  if (r < 0.8) return s.slice(0, i) + s[i + 1] + s[i] + s.slice(i + 2);
  return s.slice(0, i) + s[i] + s.slice(i);
}

/**
 * Realistic, varied tool arguments over the synthetic graph: what an agent exploring a code estate would send,
 * labelled by case so the report can say which kind of call is slow. `calls` per tool; deterministic for a seed.
 */
export function syntheticWorkload(g: SyntheticGraph, seed: number, calls: number): Workload {
  const rng = new Rng(seed);
  const pickClass = () => rng.pick(g.classes);
  const pickMethod = () => rng.pick(g.methods);
  const pickService = () => rng.pick(g.services);
  const byIn = Array.from(g.callsIn.keys()).sort((a, b) => g.callsIn[b]! - g.callsIn[a]! || a - b);
  const byOut = Array.from(g.callsOut.keys()).sort((a, b) => g.callsOut[b]! - g.callsOut[a]! || a - b);
  const hubsIn = byIn.slice(0, 50).map((i) => g.methods[i]!);
  const hubsOut = byOut.slice(0, 50).map((i) => g.methods[i]!);
  const leaves = byIn.filter((i) => g.callsIn[i]! <= 2 && g.callsOut[i]! <= 3 && g.callsOut[i]! > 0).map((i) => g.methods[i]!);
  const lowerWords = [...NOUNS.map((x) => x.toLowerCase()), ...VERBS, ...MODIFIERS.map((x) => x.toLowerCase())];
  const noun = () => rng.pick(NOUNS).toLowerCase();
  const withLimit = (args: Record<string, unknown>) => (rng.chance(0.2) ? { ...args, limit: 20 } : args);

  const search = draw(rng, 'search', [
    { label: 'one word', weight: 20, args: () => withLimit({ query: noun() }) },
    { label: 'verb noun', weight: 25, args: () => withLimit({ query: `${rng.pick(VERBS)} ${noun()}` }) },
    { label: 'three words', weight: 15, args: () => withLimit({ query: `${noun()} ${rng.pick(MODIFIERS).toLowerCase()} ${rng.pick(['service', 'controller', 'repository', 'mapper', 'listener', 'client'])}` }) },
    { label: 'class name', weight: 15, args: () => withLimit({ query: pickClass().name }) },
    { label: 'method name', weight: 10, args: () => withLimit({ query: pickMethod().name }) },
    { label: 'class name, kinds=class', weight: 5, args: () => ({ query: pickClass().name, kinds: ['class'] }) },
    { label: 'words, kinds=method', weight: 5, args: () => ({ query: `${rng.pick(VERBS)} ${noun()}`, kinds: ['method'] }) },
    { label: 'words, kinds=class + role filter', weight: 5, args: () => ({ query: noun(), kinds: ['class'], filter: { role: rng.pick(['SERVICE', 'CONTROLLER', 'REPOSITORY']) } }) },
    { label: 'words, service filter', weight: 5, args: () => ({ query: `${rng.pick(VERBS)} ${noun()}`, filter: { service: pickService().name } }) },
    { label: 'random words', weight: 5, args: () => ({ query: `${rng.pick(lowerWords)} ${rng.pick(lowerWords)} ${rng.pick(lowerWords)}` }) },
    { label: 'misspelled class name', weight: 5, args: () => ({ query: typo(rng, pickClass().name) }) },
  ], calls);

  const find = draw(rng, 'find', [
    { label: 'class role', weight: 10, args: () => ({ kind: 'class', filter: { role: rng.pick(ROLES) } }) },
    { label: 'class role + service', weight: 12, args: () => ({ kind: 'class', filter: { role: rng.pick(ROLES), service: pickService().name } }) },
    { label: 'class qualified_name_prefix', weight: 10, args: () => ({ kind: 'class', filter: { qualified_name_prefix: `${pickService().pkg}.${rng.pick(['api', 'service', 'domain', 'repository'])}.` } }) },
    { label: 'class roles + exclude_class_kind + module_prefix', weight: 8, args: () => ({ kind: 'class', filter: { role: [rng.pick(ROLES), rng.pick(ROLES)], exclude_class_kind: ['interface'], module_prefix: pickService().pkg } }) },
    { label: 'class annotations + service', weight: 8, args: () => ({ kind: 'class', filter: { annotations: rng.pick(['RestController', 'Service', 'Repository', 'FeignClient', 'Entity', 'Configuration']), service: pickService().name } }) },
    { label: 'class name_prefix', weight: 8, args: () => ({ kind: 'class', filter: { name_prefix: rng.pick(NOUNS) } }) },
    { label: 'method declaring_type', weight: 12, args: () => ({ kind: 'method', filter: { declaring_type: pickClass().qualifiedName } }) },
    { label: 'method visibility + service + name_prefix', weight: 8, args: () => ({ kind: 'method', filter: { visibility: 'public', service: pickService().name, name_prefix: rng.pick(VERBS) } }) },
    { label: 'method annotations + service', weight: 7, args: () => ({ kind: 'method', filter: { annotations: rng.pick(METHOD_ANNOTATIONS), service: pickService().name } }) },
    { label: 'method min_param_count + exclude_visibility + service', weight: 5, args: () => ({ kind: 'method', filter: { min_param_count: 3, exclude_visibility: ['private'], service: pickService().name } }) },
    { label: 'service team', weight: 4, args: () => ({ kind: 'service', filter: { team: rng.pick(TEAMS) } }) },
    { label: 'class role + min_method_count', weight: 3, args: () => ({ kind: 'class', filter: { role: 'SERVICE', min_method_count: 20 } }) },
    { label: 'method name', weight: 5, args: () => ({ kind: 'method', filter: { name: pickMethod().name } }) },
  ], calls).map((c) => (rng.chance(0.15) ? { ...c, args: { ...c.args, offset: 25 } } : c));

  const describe = draw(rng, 'describe', [
    { label: 'method', weight: 45, args: () => ({ id: pickMethod().id }) },
    { label: 'class', weight: 25, args: () => ({ id: pickClass().id }) },
    { label: 'hub method', weight: 10, args: () => ({ id: rng.pick(hubsIn).id }) },
    { label: 'service', weight: 5, args: () => ({ id: pickService().id }) },
    { label: 'several ids', weight: 8, args: () => ({ ids: Array.from({ length: rng.range(2, 10) }, () => pickMethod().id) }) },
    { label: 'by qualified name', weight: 7, args: () => ({ id: pickClass().qualifiedName }) },
  ], calls);

  const neighbors = draw(rng, 'neighbors', [
    { label: 'CALLS in, top-50 hub', weight: 15, args: () => ({ ids: [rng.pick(hubsIn).id], direction: 'in', edge_types: ['CALLS'], limit: 50 }) },
    { label: 'CALLS out, top-50 caller', weight: 10, args: () => ({ ids: [rng.pick(hubsOut).id], direction: 'out', edge_types: ['CALLS'], limit: 50 }) },
    { label: 'CALLS in/out, leaf', weight: 15, args: () => ({ ids: [rng.pick(leaves).id], direction: rng.pick(['in', 'out']), edge_types: ['CALLS'], limit: 50 }) },
    { label: 'CALLS any direction, random method', weight: 15, args: () => ({ ids: [pickMethod().id], direction: rng.pick(['in', 'out', 'both']), edge_types: ['CALLS'], limit: 50 }) },
    { label: 'DECLARES out, class', weight: 10, args: () => ({ ids: [pickClass().id], direction: 'out', edge_types: ['DECLARES'], limit: 50 }) },
    { label: 'INJECTS, class', weight: 7, args: () => ({ ids: [pickClass().id], direction: rng.pick(['in', 'out']), edge_types: ['INJECTS'], limit: 50 }) },
    { label: 'IMPLEMENTS+INJECTS both, class', weight: 5, args: () => ({ ids: [pickClass().id], direction: 'both', edge_types: ['IMPLEMENTS', 'INJECTS'], limit: 50 }) },
    { label: 'CALLS in, hub, min_confidence 0.9', weight: 8, args: () => ({ ids: [rng.pick(hubsIn).id], direction: 'in', edge_types: ['CALLS'], edge_filter: { min_confidence: 0.9 }, limit: 50 }) },
    { label: 'CALLS out, filter visibility', weight: 5, args: () => ({ ids: [pickMethod().id], direction: 'out', edge_types: ['CALLS'], filter: { visibility: 'public' }, limit: 50 }) },
    { label: 'CALLS out, 5 origins', weight: 5, args: () => ({ ids: Array.from({ length: 5 }, () => pickMethod().id), direction: 'out', edge_types: ['CALLS'], limit: 50 }) },
    { label: 'CALLS in, hub, page 2', weight: 5, args: () => ({ ids: [rng.pick(hubsIn).id], direction: 'in', edge_types: ['CALLS'], limit: 50, offset: 50 }) },
  ], calls);

  const resolve = draw(rng, 'resolve', [
    { label: 'class simple name (often many)', weight: 20, args: () => ({ identifier: pickClass().name }) },
    { label: 'class simple name, kind=class', weight: 10, args: () => ({ identifier: pickClass().name, kind: 'class' }) },
    { label: 'class qualified name', weight: 15, args: () => ({ identifier: pickClass().qualifiedName }) },
    { label: 'method qualified name', weight: 15, args: () => ({ identifier: pickMethod().qualifiedName }) },
    {
      label: 'Class#method(...) suffix',
      weight: 10,
      args: () => {
        const qn = pickMethod().qualifiedName;
        return { identifier: qn.slice(qn.lastIndexOf('.', qn.indexOf('#')) + 1) };
      },
    },
    { label: 'method name, kind=method', weight: 8, args: () => ({ identifier: pickMethod().name, kind: 'method' }) },
    { label: 'class name, lower case', weight: 7, args: () => ({ identifier: pickClass().name.toLowerCase() }) },
    { label: 'miss: misspelled class name', weight: 10, args: () => ({ identifier: typo(rng, pickClass().name) }) },
    { label: 'miss: misspelled qualified name, kind=class', weight: 5, args: () => ({ identifier: `com.acme.${typo(rng, pickClass().name)}`, kind: 'class' }) },
  ], calls);
  return { search, find, describe, neighbors, resolve };
}
