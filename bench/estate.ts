/**
 * A synthetic Spring Boot estate on disk, for timing the Java/Kotlin code indexer: N services (`svc-00`…), each a
 * Maven module (every third a Gradle one) with an `application.yml` and packages `web`, `service`, `service.impl`,
 * `repo`, `domain`, `dto`, `config`, `client`, `messaging` and `util`. Per service there are REST controllers,
 * service interfaces and `@Service` implementations (field, constructor and Lombok injection mixed), Spring Data
 * repositories, JPA entities, DTO records and `@Data` classes, a `@Configuration`, a `@FeignClient` to another
 * service (mirroring that service's real endpoints), a `@KafkaListener` on another service's topic, a
 * `KafkaTemplate` producer and utility classes with static overloads; a share of the files are Kotlin (data
 * classes, a `@Service` with primary-constructor injection, top-level and extension functions) under
 * `src/main/kotlin`. Method bodies are realistic (locals, calls through injected fields, chained calls, method
 * references, lambdas, `new`, logging) and files are 40–150 lines so lines per second mean something.
 *
 * Deterministic: a plan is drawn from one seeded PRNG, and every file is rendered from its own PRNG seeded by
 * (seed, path), so the same options always give a byte-identical tree. Nothing is ever deleted from `dir`.
 *
 * CLI: `node dist-bench/bench/estate.js <dir> <services> <filesPerService> [seed] [kotlinShare]` prints the stats JSON.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Rng } from './util.js';

export interface EstateOptions {
  services: number;
  filesPerService: number;
  seed?: number;
  /** 0..1 share of Kotlin files, default 0.1. */
  kotlinShare?: number;
}

/** `files`, `lines` and `bytes` count every file written (sources, build files and application.yml). */
export interface EstateStats {
  files: number;
  javaFiles: number;
  kotlinFiles: number;
  lines: number;
  bytes: number;
  services: string[];
}

const DEFAULT_SEED = 20240917;
const DEFAULT_KOTLIN_SHARE = 0.1;
/** Files written concurrently. */
const WRITE_BATCH = 64;
const MIN_LINES = 40;
const MAX_LINES = 150;
/** Lines of an edit block start/end, so repeated edits replace each other instead of piling up. */
const EDIT_BEGIN = '    // bench-edit:begin';
const EDIT_END = '    // bench-edit:end';

// ------------------------------------------------------------------------------------------------ vocabulary

/** Service domains; service i is DOMAINS[i % n] (suffixed past the first lap). */
const DOMAINS = [
  'order', 'payment', 'billing', 'shipping', 'catalog', 'inventory', 'customer', 'identity', 'pricing', 'notification',
  'loyalty', 'search', 'review', 'reporting', 'ledger', 'fulfillment', 'booking', 'support', 'analytics', 'marketing',
  'partner', 'wallet', 'tracking', 'compliance', 'audit', 'risk', 'tax', 'media', 'content', 'recommendation',
] as const;

/** Entity nouns: none is a Java/Kotlin keyword once lower-cased, nor clashes with java.lang or an imported type. */
const NOUNS = [
  'Order', 'Customer', 'Payment', 'Invoice', 'Shipment', 'Account', 'Product', 'Cart', 'Inventory', 'Price',
  'Discount', 'Coupon', 'Review', 'Notification', 'Report', 'Subscription', 'Plan', 'Refund', 'Ledger', 'Warehouse',
  'Supplier', 'Catalog', 'Category', 'Address', 'Profile', 'Tenant', 'Attachment', 'Ticket', 'Comment', 'Rating',
  'Campaign', 'Promotion', 'Loyalty', 'Reward', 'Wallet', 'Card', 'Transfer', 'Balance', 'Statement', 'Quote',
  'Contract', 'Policy', 'Claim', 'Booking', 'Reservation', 'Schedule', 'Slot', 'Route', 'Delivery', 'Carrier',
  'Tracking', 'Stock', 'Shelf', 'Webhook', 'Feature', 'Metric', 'Alert', 'Incident', 'Device', 'Location',
  'Partner', 'Merchant', 'Fulfillment', 'Settlement', 'Voucher', 'Membership', 'Survey', 'Lead', 'Opportunity', 'Vendor',
  'Parcel', 'Courier', 'Receipt', 'Budget', 'Forecast', 'Asset', 'License', 'Invitation', 'Badge', 'Venue',
] as const;
const MODIFIERS = ['Line', 'Item', 'History', 'Detail', 'Preference', 'Setting', 'Entry', 'Snapshot', 'Template', 'Rule', 'Limit', 'Window'] as const;

type FieldType = 'String' | 'BigDecimal' | 'Instant' | 'Integer' | 'Boolean' | 'Long';
interface Field {
  name: string;
  type: FieldType;
}
const EXTRA_FIELDS: readonly Field[] = [
  { name: 'amount', type: 'BigDecimal' }, { name: 'price', type: 'BigDecimal' }, { name: 'total', type: 'BigDecimal' },
  { name: 'email', type: 'String' }, { name: 'description', type: 'String' }, { name: 'quantity', type: 'Integer' },
  { name: 'priority', type: 'Integer' }, { name: 'score', type: 'Integer' }, { name: 'createdAt', type: 'Instant' },
  { name: 'updatedAt', type: 'Instant' }, { name: 'dueDate', type: 'Instant' }, { name: 'enabled', type: 'Boolean' },
  { name: 'externalId', type: 'String' }, { name: 'tenantId', type: 'Long' }, { name: 'reference', type: 'String' },
  { name: 'note', type: 'String' }, { name: 'code', type: 'String' }, { name: 'region', type: 'String' },
  { name: 'country', type: 'String' }, { name: 'title', type: 'String' },
];
const TRANSITIONS: ReadonlyArray<readonly [verb: string, status: string]> = [
  ['approve', 'APPROVED'], ['cancel', 'CANCELLED'], ['archive', 'ARCHIVED'], ['activate', 'ACTIVE'], ['suspend', 'SUSPENDED'], ['close', 'CLOSED'],
];
const SUPPORT_NAMES = ['TextSupport', 'DateSupport', 'MoneySupport', 'IdSupport', 'CollectionSupport', 'RetrySupport', 'HashSupport', 'CsvSupport'] as const;
const DOC_WORDS = [
  'Handles', 'Coordinates', 'Keeps track of', 'Validates', 'Exposes', 'Maps', 'Persists', 'Publishes', 'Aggregates', 'Resolves',
] as const;
const DOC_TAILS = [
  'for the owning team', 'within a single transaction', 'using the shared conventions', 'as described in the runbook',
  'for downstream consumers', 'with defensive null checks', 'following the domain rules', 'in a thread-safe way',
  'for reporting and audit', 'without leaking persistence details',
] as const;

// ------------------------------------------------------------------------------------------------ plan

type OpKind = 'get' | 'list' | 'create' | 'update' | 'delete' | 'count' | 'search' | 'transition' | 'page' | 'export';
interface Op {
  kind: OpKind;
  verb?: string;
  status?: string;
}
type InjectStyle = 'field' | 'constructor' | 'lombok';

interface Ent {
  name: string;
  v: string;
  plural: string;
  path: string;
  table: string;
  upper: string;
  fields: Field[];
  reqFields: Field[];
  ops: Op[];
  endpoints: Op[];
  inject: InjectStyle;
  /** An entity of the same service (lower index) whose service this one's implementation and controller use. */
  uses?: Ent;
  has: Set<string>;
}

interface Svc {
  index: number;
  dir: string;
  key: string;
  pkg: string;
  domain: string;
  appName: string;
  pascal: string;
  gradle: boolean;
  entities: Ent[];
  files: FileSpec[];
  feign?: { svc: Svc; ent: Ent };
  listenTo?: Svc;
  kotlin: boolean;
}

type FileKind =
  | 'app' | 'config' | 'producer' | 'listener' | 'feign'
  | 'entity' | 'repo' | 'service' | 'impl' | 'controller' | 'dto' | 'request' | 'response'
  | 'mapper' | 'validator' | 'utils' | 'query' | 'support'
  | 'ktViews' | 'ktReport' | 'ktFunctions' | 'ktExtensions';
interface FileSpec {
  kind: FileKind;
  ent?: Ent;
  n?: number;
}

const CORE: readonly FileKind[] = ['entity', 'repo', 'service', 'impl', 'controller', 'dto', 'request', 'response'];
const EXTRAS: readonly FileKind[] = ['mapper', 'utils', 'validator', 'query'];
const KOTLIN_PER_ENTITY: readonly FileKind[] = ['ktViews', 'ktReport', 'ktFunctions'];

function cap(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
function lowerFirst(s: string): string {
  return s.charAt(0).toLowerCase() + s.slice(1);
}
function plural(s: string): string {
  if (/[^aeiou]y$/.test(s)) return `${s.slice(0, -1)}ies`;
  if (/(s|x|ch|sh)$/.test(s)) return `${s}es`;
  return `${s}s`;
}
function an(noun: string): string {
  return `${/^[aeiou]/i.test(noun) ? 'an' : 'a'} ${noun}`;
}
function words(s: string): string[] {
  return s.split(/(?=[A-Z])/).map((w) => w.toLowerCase());
}
function kebab(s: string): string {
  return words(s).join('-');
}
function snake(s: string): string {
  return words(s).join('_');
}
/** FNV-1a, for per-file seeds. */
function hash(seed: number, text: string): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

function makeEntity(rng: Rng, name: string, earlier: readonly Ent[]): Ent {
  const extras = rng.shuffled(EXTRA_FIELDS).slice(0, rng.range(1, 6));
  const fields: Field[] = [{ name: 'name', type: 'String' }, { name: 'status', type: 'String' }, ...extras];
  const reqFields: Field[] = [{ name: 'name', type: 'String' }, ...extras.filter((f) => f.type !== 'Instant').slice(0, 3)];
  const ops: Op[] = [{ kind: 'get' }, { kind: 'create' }, { kind: 'count' }];
  const optional = rng.shuffled<OpKind>(['list', 'update', 'delete', 'search', 'transition', 'page', 'export', 'transition']);
  const transitions = rng.shuffled(TRANSITIONS);
  for (const kind of optional.slice(0, rng.range(1, 4))) {
    if (kind === 'transition') {
      const [verb, status] = transitions.pop()!;
      ops.push({ kind, verb, status });
    } else if (!ops.some((o) => o.kind === kind)) ops.push({ kind });
  }
  const others = rng.shuffled(ops.filter((o) => o.kind !== 'get'));
  const endpoints = [ops[0]!, ...others.slice(0, rng.range(1, Math.min(4, others.length)))];
  const p = plural(name);
  return {
    name,
    v: lowerFirst(name),
    plural: p,
    path: `/api/${kebab(p)}`,
    table: snake(p),
    upper: snake(name).toUpperCase(),
    fields,
    reqFields,
    ops,
    endpoints,
    inject: rng.pick<InjectStyle>(['field', 'constructor', 'lombok']),
    uses: earlier.length > 0 && rng.chance(0.6) ? rng.pick(earlier) : undefined,
    has: new Set(),
  };
}

function plan(options: Required<EstateOptions>): Svc[] {
  const rng = new Rng(options.seed);
  const width = Math.max(2, String(options.services - 1).length);
  const services: Svc[] = [];
  for (let i = 0; i < options.services; i++) {
    const base = DOMAINS[i % DOMAINS.length]!;
    const lap = Math.floor(i / DOMAINS.length);
    const domain = lap === 0 ? base : `${base}${lap + 1}`;
    const num = String(i).padStart(width, '0');
    const svc: Svc = {
      index: i,
      dir: `svc-${num}`,
      key: `svc${num}`,
      pkg: `com.bench.svc${num}`,
      domain,
      appName: `${domain}-service`,
      pascal: cap(domain),
      gradle: i % 3 === 2,
      entities: [],
      files: [],
      kotlin: false,
    };
    const kotlinFiles = Math.min(options.filesPerService, Math.round(options.filesPerService * options.kotlinShare));
    const javaFiles = options.filesPerService - kotlinFiles;
    let entityCount = 0;
    if (javaFiles >= 13) entityCount = Math.max(1, Math.floor(((javaFiles - 5) * 0.8) / CORE.length));
    const nouns = rng.shuffled(NOUNS);
    const modifiers = rng.shuffled(MODIFIERS);
    for (let e = 0; e < entityCount; e++) {
      const noun = nouns[e % nouns.length]!;
      const lap = Math.floor(e / nouns.length);
      const name = lap === 0 ? noun : `${noun}${modifiers[(lap - 1) % modifiers.length]!}${lap > modifiers.length ? Math.floor((lap - 1) / modifiers.length) + 1 : ''}`;
      svc.entities.push(makeEntity(rng, name, svc.entities));
    }
    services.push(svc);
    // Files, Java first.
    const files = svc.files;
    let support = 0;
    if (entityCount > 0) {
      files.push({ kind: 'app' }, { kind: 'config' }, { kind: 'producer' }, { kind: 'listener' }, { kind: 'feign' });
      for (const ent of svc.entities) for (const kind of CORE) files.push({ kind, ent });
      let left = javaFiles - files.length;
      for (const kind of EXTRAS) {
        for (const ent of svc.entities) {
          if (left <= 0) break;
          files.push({ kind, ent });
          ent.has.add(kind);
          left--;
        }
      }
      while (left-- > 0) files.push({ kind: 'support', n: support++ });
    } else if (javaFiles > 0) {
      files.push({ kind: 'app' });
      for (let k = 1; k < javaFiles; k++) files.push({ kind: 'support', n: support++ });
    }
    let kt = kotlinFiles;
    for (const ent of svc.entities) {
      for (const kind of KOTLIN_PER_ENTITY) {
        if (kt <= 0) break;
        files.push({ kind, ent });
        ent.has.add(kind);
        kt--;
      }
    }
    for (let n = 0; kt > 0; kt--) files.push({ kind: 'ktExtensions', n: n++ });
    svc.kotlin = kotlinFiles > 0;
  }
  // Cross-service wiring: a Feign client to, and a Kafka listener on, other services (self when alone).
  const withEntities = services.filter((s) => s.entities.length > 0);
  for (const svc of services) {
    if (svc.entities.length === 0) continue;
    const others = withEntities.filter((s) => s !== svc);
    const target = others.length > 0 ? rng.pick(others) : svc;
    svc.feign = { svc: target, ent: rng.pick(target.entities) };
    svc.listenTo = others.length > 0 ? rng.pick(others) : svc;
  }
  return services;
}

// ------------------------------------------------------------------------------------------------ source builders

type Lines = string[];

function docSentence(rng: Rng, subject: string): string {
  return `${rng.pick(DOC_WORDS)} ${subject} ${rng.pick(DOC_TAILS)}.`;
}

/** A Java compilation unit with one top-level type: members are added until the file reaches a target size. */
class JavaUnit {
  private readonly imports = new Set<string>();
  private readonly members: Lines[] = [];
  private readonly doc: string[] = [];
  private size = 0;
  constructor(
    private readonly pkg: string,
    private readonly annotations: string[],
    private readonly declaration: string,
    private readonly rng: Rng,
    summary: string,
  ) {
    this.doc.push(summary);
  }
  use(...imports: string[]): this {
    for (const i of imports) this.imports.add(i);
    return this;
  }
  add(lines: Lines): this {
    this.members.push(lines);
    this.size += lines.length + 1;
    return this;
  }
  lines(): number {
    return 2 + (this.imports.size > 0 ? this.imports.size + 1 : 0) + (this.doc.length + 2) + this.annotations.length + 1 + this.size + 1;
  }
  /** Adds optional members (in the order given) while under `target`, then pads the type's Javadoc to MIN_LINES. */
  fill(target: number, optional: ReadonlyArray<() => Lines>): this {
    for (const make of optional) {
      if (this.lines() >= target) break;
      const made = make();
      const lines = /^    (public|default|static) /.test(made[0] ?? '') && this.rng.chance(0.5) ? [`    /** ${docSentence(this.rng, 'the input')} */`, ...made] : made;
      if (this.lines() + lines.length + 1 > MAX_LINES) break;
      this.add(lines);
    }
    while (this.lines() < MIN_LINES) this.doc.push(docSentence(this.rng, 'this type'));
    return this;
  }
  render(): string {
    const imports = [...this.imports].sort();
    const out = [`package ${this.pkg};`, ''];
    if (imports.length > 0) out.push(...imports.map((i) => `import ${i};`), '');
    out.push('/**', ...this.doc.map((d) => ` * ${d}`), ' */', ...this.annotations, `${this.declaration} {`);
    for (const m of this.members) out.push('', ...m);
    out.push('}', '');
    return out.join('\n');
  }
}

/** A Kotlin file of top-level declarations. */
class KotlinUnit {
  private readonly imports = new Set<string>();
  private readonly decls: Lines[] = [];
  private size = 0;
  constructor(private readonly pkg: string) {}
  use(...imports: string[]): this {
    for (const i of imports) this.imports.add(i);
    return this;
  }
  add(lines: Lines): this {
    this.decls.push(lines);
    this.size += lines.length + 1;
    return this;
  }
  lines(): number {
    return 2 + (this.imports.size > 0 ? this.imports.size + 1 : 0) + this.size - (this.decls.length > 0 ? 1 : 0);
  }
  fill(target: number, optional: ReadonlyArray<() => Lines>, pad: (i: number) => Lines): this {
    for (const make of optional) {
      if (this.lines() >= target) break;
      const lines = make();
      if (this.lines() + lines.length + 1 > MAX_LINES) break;
      this.add(lines);
    }
    for (let i = 0; this.lines() < MIN_LINES; i++) this.add(pad(i));
    return this;
  }
  render(): string {
    const imports = [...this.imports].sort();
    const out = [`package ${this.pkg}`, ''];
    if (imports.length > 0) out.push(...imports.map((i) => `import ${i}`), '');
    for (let i = 0; i < this.decls.length; i++) {
      if (i > 0) out.push('');
      out.push(...this.decls[i]!);
    }
    out.push('');
    return out.join('\n');
  }
}

const FIELD_IMPORT: Partial<Record<FieldType, string>> = { BigDecimal: 'java.math.BigDecimal', Instant: 'java.time.Instant' };
const KOTLIN_TYPE: Record<FieldType, string> = { String: 'String', BigDecimal: 'BigDecimal', Instant: 'Instant', Integer: 'Int', Boolean: 'Boolean', Long: 'Long' };

function useFields(u: { use(...i: string[]): unknown }, fields: readonly Field[]): void {
  for (const f of fields) {
    const imp = FIELD_IMPORT[f.type];
    if (imp) u.use(imp);
  }
}

function sampleValue(f: Field, round = 0): string {
  switch (f.type) {
    case 'String':
      return `"${f.name}-${round}"`;
    case 'BigDecimal':
      return `BigDecimal.valueOf(${round + 10}L)`;
    case 'Instant':
      return 'Instant.now()';
    case 'Integer':
      return String(round + 1);
    case 'Boolean':
      return 'Boolean.TRUE';
    case 'Long':
      return `${round + 1}L`;
  }
}

interface Names {
  pkg: string;
  E: string;
  e: string;
  Es: string;
  es: string;
  dto: string;
  req: string;
  resp: string;
  repo: string;
  repoVar: string;
  svc: string;
  svcVar: string;
  impl: string;
  mapper: string;
  mapperVar: string;
  validator: string;
  validatorVar: string;
  utils: string;
}
function names(svc: Svc, ent: Ent): Names {
  return {
    pkg: svc.pkg,
    E: ent.name,
    e: ent.v,
    Es: ent.plural,
    es: lowerFirst(ent.plural),
    dto: `${ent.name}Dto`,
    req: `Create${ent.name}Request`,
    resp: `${ent.name}Response`,
    repo: `${ent.name}Repository`,
    repoVar: `${ent.v}Repository`,
    svc: `${ent.name}Service`,
    svcVar: `${ent.v}Service`,
    impl: `${ent.name}ServiceImpl`,
    mapper: `${ent.name}Mapper`,
    mapperVar: `${ent.v}Mapper`,
    validator: `${ent.name}Validator`,
    validatorVar: `${ent.v}Validator`,
    utils: `${ent.name}Utils`,
  };
}

function logger(u: JavaUnit, cls: string): string {
  u.use('org.slf4j.Logger', 'org.slf4j.LoggerFactory');
  return `    private static final Logger log = LoggerFactory.getLogger(${cls}.class);`;
}

function getter(f: Field): string {
  return `get${cap(f.name)}`;
}
function setter(f: Field): string {
  return `set${cap(f.name)}`;
}

// ------------------------------------------------------------------------------------------------ Java: domain

function renderEntity(svc: Svc, ent: Ent, rng: Rng, target: number): string {
  const n = names(svc, ent);
  const u = new JavaUnit(`${svc.pkg}.domain`, ['@Entity', `@Table(name = "${ent.table}")`], `public class ${n.E}`, rng, `A persisted ${n.e} of the ${svc.appName}.`);
  u.use('jakarta.persistence.Column', 'jakarta.persistence.Entity', 'jakarta.persistence.GeneratedValue', 'jakarta.persistence.GenerationType', 'jakarta.persistence.Id', 'jakarta.persistence.Table');
  useFields(u, ent.fields);
  u.add(['    @Id', '    @GeneratedValue(strategy = GenerationType.IDENTITY)', '    private Long id;']);
  for (const f of ent.fields) {
    const col = f.name === 'name' || f.name === 'status' ? `@Column(name = "${snake(f.name)}", nullable = false)` : `@Column(name = "${snake(f.name)}")`;
    u.add([`    ${col}`, `    private ${f.type} ${f.name};`]);
  }
  u.add([`    public ${n.E}() {`, '    }']);
  u.add([`    public ${n.E}(String name, String status) {`, '        this.name = name;', '        this.status = status;', '    }']);
  u.add(['    public Long getId() {', '        return id;', '    }']);
  for (const f of ent.fields) {
    u.add([`    public ${f.type} ${getter(f)}() {`, `        return ${f.name};`, '    }']);
    u.add([`    public void ${setter(f)}(${f.type} ${f.name}) {`, `        this.${f.name} = ${f.name};`, '    }']);
  }
  const hasCreated = ent.fields.some((f) => f.name === 'createdAt');
  const optional: Array<() => Lines> = [
    () => ['    public boolean isActive() {', '        return "ACTIVE".equals(status);', '    }'],
    () => {
      u.use('java.util.Objects');
      return [
        '    @Override',
        '    public boolean equals(Object other) {',
        '        if (this == other) {',
        '            return true;',
        '        }',
        `        if (!(other instanceof ${n.E} that)) {`,
        '            return false;',
        '        }',
        '        return id != null && Objects.equals(id, that.id);',
        '    }',
      ];
    },
    () => ['    @Override', '    public int hashCode() {', '        return getClass().hashCode();', '    }'],
    () => ['    @Override', '    public String toString() {', `        return "${n.E}{id=" + id + ", name=" + name + ", status=" + status + "}";`, '    }'],
  ];
  if (hasCreated) {
    optional.unshift(() => {
      u.use('jakarta.persistence.PrePersist');
      return ['    @PrePersist', '    void onCreate() {', '        if (createdAt == null) {', '            createdAt = Instant.now();', '        }', '    }'];
    });
  }
  return u.fill(target, optional).render();
}

function renderRepo(svc: Svc, ent: Ent, rng: Rng, target: number): string {
  const n = names(svc, ent);
  const u = new JavaUnit(`${svc.pkg}.repo`, ['@Repository'], `public interface ${n.repo} extends JpaRepository<${n.E}, Long>`, rng, `Spring Data access to ${n.es}.`);
  u.use('org.springframework.data.jpa.repository.JpaRepository', 'org.springframework.stereotype.Repository', `${svc.pkg}.domain.${n.E}`, 'java.util.List', 'java.util.Optional');
  u.add([`    List<${n.E}> findByStatus(String status);`]);
  u.add([`    long countByStatus(String status);`]);
  u.add([`    Optional<${n.E}> findByName(String name);`]);
  const optional: Array<() => Lines> = [
    () => [`    /** Case-insensitive name search used by the search endpoint. */`, `    List<${n.E}> findByNameContainingIgnoreCase(String fragment);`],
    () => {
      u.use('org.springframework.data.jpa.repository.Query', 'org.springframework.data.repository.query.Param');
      return [`    @Query("select e from ${n.E} e where e.status = :status order by e.id desc")`, `    List<${n.E}> findLatestByStatus(@Param("status") String status);`];
    },
    () => [`    List<${n.E}> findTop10ByOrderByIdDesc();`],
    () => [`    default List<${n.E}> findActive() {`, '        return findByStatus("ACTIVE");', '    }'],
    () => [`    default boolean isKnown(String name) {`, '        return findByName(name).isPresent();', '    }'],
    ...ent.fields
      .filter((f) => f.name !== 'name' && f.name !== 'status')
      .flatMap((f): Array<() => Lines> => [
        () => {
          useFields(u, [f]);
          return [`    /** Finds ${n.es} by ${words(f.name).join(' ')}. */`, `    List<${n.E}> findBy${cap(f.name)}(${f.type} ${f.name});`];
        },
        () => {
          useFields(u, [f]);
          return [`    boolean existsBy${cap(f.name)}(${f.type} ${f.name});`];
        },
      ]),
    () => {
      u.use('org.springframework.data.jpa.repository.Modifying', 'org.springframework.transaction.annotation.Transactional');
      return ['    @Modifying', '    @Transactional', `    @Query("delete from ${n.E} e where e.status = 'ARCHIVED'")`, '    int purgeArchived();'];
    },
    () => {
      u.use('java.util.Collection');
      return [`    List<${n.E}> findByStatusIn(Collection<String> statuses);`];
    },
    () => {
      u.use('org.springframework.data.domain.Page', 'org.springframework.data.domain.Pageable');
      return [`    Page<${n.E}> findByStatus(String status, Pageable pageable);`];
    },
    () => {
      u.use('org.springframework.data.jpa.repository.Query');
      return [`    @Query(value = "select count(*) from ${ent.table} where status <> 'ARCHIVED'", nativeQuery = true)`, '    long countLive();'];
    },
    () => [`    default ${n.E} getOrCreate(String name) {`, `        return findByName(name).orElseGet(() -> save(new ${n.E}(name, "NEW")));`, '    }'],
  ];
  return u.fill(target, optional).render();
}

// ------------------------------------------------------------------------------------------------ Java: DTOs

function renderDto(svc: Svc, ent: Ent, rng: Rng, target: number): string {
  const n = names(svc, ent);
  const u = new JavaUnit(`${svc.pkg}.dto`, ['@Data', '@Builder', '@NoArgsConstructor', '@AllArgsConstructor'], `public class ${n.dto}`, rng, `Transfer object for ${an(n.e)}.`);
  u.use('lombok.AllArgsConstructor', 'lombok.Builder', 'lombok.Data', 'lombok.NoArgsConstructor');
  useFields(u, ent.fields);
  u.add(['    /** The identifier. */', '    private Long id;']);
  for (const f of ent.fields) u.add([`    /** The ${words(f.name).join(' ')}. */`, `    private ${f.type} ${f.name};`]);
  const optional: Array<() => Lines> = [
    () => ['    public boolean isActive() {', '        return "ACTIVE".equals(status);', '    }'],
    () => ['    public String displayName() {', '        return name == null ? "#" + id : name + " (#" + id + ")";', '    }'],
    () => [
      `    public ${n.dto} copy() {`,
      `        return ${n.dto}.builder()`,
      '                .id(id)',
      ...ent.fields.map((f) => `                .${f.name}(${f.name})`),
      '                .build();',
      '    }',
    ],
    () => [`    public static ${n.dto} empty(Long id) {`, `        ${n.dto} dto = new ${n.dto}();`, '        dto.setId(id);', '        dto.setStatus("UNKNOWN");', '        return dto;', '    }'],
    () => [`    public ${n.dto} withStatus(String newStatus) {`, `        ${n.dto} copy = copy();`, '        copy.setStatus(newStatus);', '        return copy;', '    }'],
    () => {
      u.use('java.util.LinkedHashMap', 'java.util.Map');
      return ['    public Map<String, Object> toMap() {', '        Map<String, Object> map = new LinkedHashMap<>();', '        map.put("id", id);', ...ent.fields.map((f) => `        map.put("${f.name}", ${f.name});`), '        return map;', '    }'];
    },
    () => ['    public boolean matches(String query) {', '        return query == null || (name != null && name.toLowerCase().contains(query.toLowerCase()));', '    }'],
  ];
  return u.fill(target, optional).render();
}

function renderRequest(svc: Svc, ent: Ent, rng: Rng, target: number): string {
  const n = names(svc, ent);
  const comps = ent.reqFields.map((f) => (f.name === 'name' ? `@NotBlank String name` : `${f.type} ${f.name}`)).join(', ');
  const u = new JavaUnit(`${svc.pkg}.dto`, [], `public record ${n.req}(${comps})`, rng, `Request body for creating or updating ${an(n.e)}.`);
  u.use('jakarta.validation.constraints.NotBlank');
  useFields(u, ent.reqFields);
  const all = ent.reqFields.map((f) => f.name);
  u.add([`    public ${n.req} {`, '        name = name == null ? null : name.trim();', '    }']);
  const optional: Array<() => Lines> = [
    () => [`    public static ${n.req} of(String name) {`, `        return new ${n.req}(${all.map((a) => (a === 'name' ? 'name' : 'null')).join(', ')});`, '    }'],
    ...ent.reqFields.map(
      (f) => (): Lines => [
        `    public ${n.req} with${cap(f.name)}(${f.type} ${f.name}) {`,
        `        return new ${n.req}(${all.join(', ')});`,
        '    }',
      ],
    ),
    () => ['    public boolean isComplete() {', `        return ${all.map((a) => `${a} != null`).join(' && ')};`, '    }'],
    () => ['    public String summary() {', `        return ${all.map((a) => `"${a}=" + ${a}`).join(' + ", " + ')};`, '    }'],
    () => {
      u.use('java.util.LinkedHashMap', 'java.util.Map');
      return ['    public Map<String, Object> toMap() {', '        Map<String, Object> map = new LinkedHashMap<>();', ...all.map((a) => `        map.put("${a}", ${a});`), '        return map;', '    }'];
    },
    () => [`    public static ${n.req} sample() {`, `        return new ${n.req}(${ent.reqFields.map((f) => sampleValue(f)).join(', ')});`, '    }'],
    () => [
      `    public ${n.req} normalized() {`,
      '        String trimmed = name == null ? "" : name.strip();',
      `        return new ${n.req}(${all.map((a) => (a === 'name' ? 'trimmed' : a)).join(', ')});`,
      '    }',
    ],
    () => ['    public boolean hasName(String candidate) {', '        return name != null && name.equalsIgnoreCase(candidate);', '    }'],
  ];
  return u.fill(target, optional).render();
}

function renderResponse(svc: Svc, ent: Ent, rng: Rng, target: number): string {
  const n = names(svc, ent);
  const u = new JavaUnit(`${svc.pkg}.dto`, [], `public record ${n.resp}(Long id, String name, String status, Instant generatedAt)`, rng, `What the API returns for ${an(n.e)}.`);
  u.use('java.time.Instant');
  u.add([`    public static ${n.resp} from(${n.dto} dto) {`, `        return new ${n.resp}(dto.getId(), dto.getName(), dto.getStatus(), Instant.now());`, '    }']);
  const optional: Array<() => Lines> = [
    () => [`    public static ${n.resp} empty(Long id) {`, `        return new ${n.resp}(id, null, "UNKNOWN", Instant.now());`, '    }'],
    () => {
      u.use('java.util.Set');
      return ['    public boolean isTerminal() {', '        return Set.of("CLOSED", "CANCELLED", "ARCHIVED").contains(status);', '    }'];
    },
    () => [`    public ${n.resp} withStatus(String newStatus) {`, `        return new ${n.resp}(id, name, newStatus, generatedAt);`, '    }'],
    () => [`    public ${n.resp} withName(String newName) {`, `        return new ${n.resp}(id, newName, status, generatedAt);`, '    }'],
    () => {
      u.use('java.time.Duration');
      return ['    public long ageSeconds() {', '        return Duration.between(generatedAt, Instant.now()).getSeconds();', '    }'];
    },
    () => ['    public String label() {', '        StringBuilder sb = new StringBuilder();', '        sb.append(name).append(" [").append(status).append("]");', '        return sb.toString();', '    }'],
    () => [`    public static ${n.resp} of(Long id, String name) {`, `        return new ${n.resp}(id, name, "NEW", Instant.now());`, '    }'],
    () => [`    public static ${n.resp} from(${n.dto} dto, Instant at) {`, `        return new ${n.resp}(dto.getId(), dto.getName(), dto.getStatus(), at);`, '    }'],
    () => {
      u.use('java.util.Comparator');
      return [`    public static Comparator<${n.resp}> byName() {`, `        return Comparator.comparing(${n.resp}::name, Comparator.nullsLast(String::compareToIgnoreCase));`, '    }'];
    },
    () => {
      u.use('java.util.LinkedHashMap', 'java.util.Map');
      return [
        '    public Map<String, Object> toMap() {',
        '        Map<String, Object> map = new LinkedHashMap<>();',
        '        map.put("id", id);',
        '        map.put("name", name);',
        '        map.put("status", status);',
        '        map.put("generatedAt", String.valueOf(generatedAt));',
        '        return map;',
        '    }',
      ];
    },
    () => ['    public boolean isActive() {', '        return "ACTIVE".equalsIgnoreCase(status);', '    }'],
  ];
  return u.fill(target, optional).render();
}

// ------------------------------------------------------------------------------------------------ Java: services

function serviceSignature(n: Names, op: Op): { ret: string; name: string; params: string; args: string } {
  switch (op.kind) {
    case 'get':
      return { ret: n.dto, name: `get${n.E}`, params: 'Long id', args: 'id' };
    case 'list':
      return { ret: `List<${n.dto}>`, name: `list${n.Es}`, params: 'String status', args: 'status' };
    case 'create':
      return { ret: n.dto, name: `create${n.E}`, params: `${n.req} request`, args: 'request' };
    case 'update':
      return { ret: n.dto, name: `update${n.E}`, params: `Long id, ${n.req} request`, args: 'id, request' };
    case 'delete':
      return { ret: 'void', name: `delete${n.E}`, params: 'Long id', args: 'id' };
    case 'count':
      return { ret: 'long', name: `count${n.Es}`, params: 'String status', args: 'status' };
    case 'search':
      return { ret: `List<${n.dto}>`, name: `search${n.Es}`, params: 'String query, int limit', args: 'query, limit' };
    case 'transition':
      return { ret: n.dto, name: `${op.verb!}${n.E}`, params: 'Long id', args: 'id' };
    case 'page':
      return { ret: `Page<${n.dto}>`, name: `page${n.Es}`, params: 'int page, int size', args: 'page, size' };
    case 'export':
      return { ret: 'String', name: `export${n.Es}`, params: '', args: '' };
  }
}

function useOpTypes(u: JavaUnit | KotlinUnit, n: Names, ops: readonly Op[]): void {
  u.use(`${n.pkg}.dto.${n.dto}`);
  if (ops.some((o) => o.kind === 'list' || o.kind === 'search')) u.use('java.util.List');
  if (ops.some((o) => o.kind === 'create' || o.kind === 'update')) u.use(`${n.pkg}.dto.${n.req}`);
  if (ops.some((o) => o.kind === 'page')) u.use('org.springframework.data.domain.Page');
}

function renderServiceInterface(svc: Svc, ent: Ent, rng: Rng, target: number): string {
  const n = names(svc, ent);
  const u = new JavaUnit(`${svc.pkg}.service`, [], `public interface ${n.svc}`, rng, `Use cases around ${n.es}.`);
  useOpTypes(u, n, ent.ops);
  for (const op of ent.ops) {
    const s = serviceSignature(n, op);
    u.add([`    /**`, `     * ${docSentence(rng, `the ${s.name} use case`)}`, `     */`, `    ${s.ret} ${s.name}(${s.params});`]);
  }
  const optional: Array<() => Lines> = [
    () => [`    default boolean has${n.Es}(String status) {`, `        return count${n.Es}(status) > 0;`, '    }'],
    () => [`    default ${n.dto} require${n.E}(Long id) {`, `        ${n.dto} dto = get${n.E}(id);`, '        if (dto == null) {', `            throw new IllegalStateException("Missing ${n.e} " + id);`, '        }', '        return dto;', '    }'],
    () => [`    default long countActive${n.Es}() {`, `        return count${n.Es}("ACTIVE");`, '    }'],
    () => [`    default String describe${n.E}(Long id) {`, `        ${n.dto} dto = get${n.E}(id);`, '        return dto.getName() + " [" + dto.getStatus() + "]";', '    }'],
    ...ent.ops.flatMap((op): Array<() => Lines> => {
      switch (op.kind) {
        case 'list':
          return [() => [`    default List<${n.dto}> listActive${n.Es}() {`, `        return list${n.Es}("ACTIVE");`, '    }']];
        case 'search':
          return [() => [`    default List<${n.dto}> search${n.Es}(String query) {`, `        return search${n.Es}(query, 20);`, '    }']];
        case 'page':
          return [() => [`    default Page<${n.dto}> firstPage() {`, `        return page${n.Es}(0, 20);`, '    }']];
        case 'transition':
          return [
            () => [
              `    default boolean try${cap(op.verb!)}${n.E}(Long id) {`,
              '        try {',
              `            ${op.verb!}${n.E}(id);`,
              '            return true;',
              '        } catch (RuntimeException ex) {',
              '            return false;',
              '        }',
              '    }',
            ],
          ];
        default:
          return [];
      }
    }),
  ];
  return u.fill(target, optional).render();
}

/** A ServiceImpl method body per operation. */
function implBody(n: Names, ent: Ent, op: Op, ctx: { mapper: boolean; validator: boolean; utils: boolean; related?: Names; remote?: string }): Lines {
  const toDto = 'this::toDto';
  const r = n.repoVar;
  switch (op.kind) {
    case 'get':
      return [
        `        log.debug("Loading ${n.e} {}", id);`,
        `        return ${r}.findById(id).map(${toDto}).orElseThrow(() -> new IllegalArgumentException("${n.E} not found: " + id));`,
      ];
    case 'list':
      return [
        '        String normalized = status == null ? "ACTIVE" : status.trim().toUpperCase();',
        `        List<${n.E}> found = ${r}.findByStatus(normalized);`,
        `        log.info("Found {} ${n.es} with status {}", found.size(), normalized);`,
        '        return found.stream()',
        '                .filter(item -> item.getName() != null)',
        `                .map(${toDto})`,
        '                .collect(Collectors.toList());',
      ];
    case 'create': {
      const out: Lines = [];
      if (ctx.validator) out.push(`        ${n.validatorVar}.validate(request);`);
      if (ctx.mapper) out.push(`        ${n.E} entity = ${n.mapperVar}.toEntity(request);`);
      else out.push(`        ${n.E} entity = new ${n.E}();`, '        applyRequest(entity, request);');
      if (ctx.mapper && ctx.utils) out.push(`        entity.setName(${n.utils}.normalize(entity.getName()));`);
      out.push('        entity.setStatus("NEW");');
      if (ent.fields.some((f) => f.name === 'createdAt')) out.push('        entity.setCreatedAt(Instant.now());');
      if (ctx.related) {
        out.push(`        if (related${ctx.related.Es}() > 10_000L) {`, `            log.warn("Many related ${ctx.related.es} while creating {}", request.name());`, '        }');
      }
      out.push(`        ${n.E} saved = ${r}.save(entity);`);
      if (ctx.remote) out.push(`        String remote = ${ctx.remote}(saved.getId());`, '        log.debug("Remote status for {} is {}", saved.getId(), remote);');
      out.push(`        eventProducer.publish(saved.getId(), "${ent.upper}_CREATED");`, '        return toDto(saved);');
      return out;
    }
    case 'update': {
      const out: Lines = [`        ${n.E} entity = ${r}.findById(id).orElseThrow(() -> new IllegalStateException("Cannot update missing ${n.e} " + id));`];
      if (ctx.validator) out.push(`        ${n.validatorVar}.validate(request);`);
      if (ctx.mapper) out.push(`        ${n.mapperVar}.apply(request, entity);`);
      else out.push('        applyRequest(entity, request);');
      if (ctx.utils) out.push(`        entity.setName(${n.utils}.normalize(request.name()));`);
      if (ent.fields.some((f) => f.name === 'updatedAt')) out.push('        entity.setUpdatedAt(Instant.now());');
      out.push(`        return toDto(${r}.save(entity));`);
      return out;
    }
    case 'delete':
      return [
        `        if (!${r}.existsById(id)) {`,
        `            throw new IllegalArgumentException("${n.E} not found: " + id);`,
        '        }',
        `        ${r}.deleteById(id);`,
        `        eventProducer.publish(id, "${ent.upper}_DELETED");`,
        `        log.info("Deleted ${n.e} {}", id);`,
      ];
    case 'count':
      return [`        long count = ${r}.countByStatus(status);`, `        log.debug("{} ${n.es} with status {}", count, status);`, '        return count;'];
    case 'search':
      return [
        '        String needle = query == null ? "" : query.toLowerCase(Locale.ROOT);',
        `        Comparator<${n.E}> order = Comparator.comparing(${n.E}::getName, Comparator.nullsLast(Comparator.naturalOrder()));`,
        `        return ${r}.findAll().stream()`,
        '                .filter(item -> item.getName() != null && item.getName().toLowerCase(Locale.ROOT).contains(needle))',
        '                .sorted(order)',
        '                .limit(limit)',
        `                .map(${toDto})`,
        '                .toList();',
      ];
    case 'transition':
      return [
        `        ${n.E} entity = ${r}.findById(id).orElseThrow();`,
        '        String previous = entity.getStatus();',
        `        entity.setStatus("${op.status!}");`,
        `        ${r}.save(entity);`,
        `        log.info("${n.E} {} moved from {} to {}", id, previous, entity.getStatus());`,
        `        eventProducer.publish(id, "${ent.upper}_${op.status!}");`,
        '        return toDto(entity);',
      ];
    case 'page':
      return [
        '        Pageable pageable = PageRequest.of(page, size, Sort.by("id").descending());',
        `        return ${r}.findAll(pageable).map(${toDto});`,
      ];
    case 'export':
      return [
        '        StringBuilder csv = new StringBuilder("id,name,status\\n");',
        `        ${r}.findAll().forEach(item -> csv.append(item.getId()).append(',').append(item.getName()).append(',').append(item.getStatus()).append('\\n'));`,
        '        return csv.toString();',
      ];
  }
}

function renderImpl(svc: Svc, ent: Ent, rng: Rng, target: number): string {
  const n = names(svc, ent);
  const lombok = ent.inject === 'lombok';
  const annotations = ['@Service', ...(lombok ? ['@RequiredArgsConstructor'] : [])];
  const u = new JavaUnit(`${svc.pkg}.service.impl`, annotations, `public class ${n.impl} implements ${n.svc}`, rng, `Default ${n.svc}, backed by the ${n.e} repository.`);
  u.use('org.springframework.stereotype.Service', `${svc.pkg}.service.${n.svc}`, `${svc.pkg}.domain.${n.E}`, `${svc.pkg}.repo.${n.repo}`, `${svc.pkg}.messaging.${svc.pascal}EventProducer`);
  if (lombok) u.use('lombok.RequiredArgsConstructor');
  useOpTypes(u, n, ent.ops);
  u.use(`${svc.pkg}.dto.${n.req}`);
  const ctx = {
    mapper: ent.has.has('mapper'),
    validator: ent.has.has('validator'),
    utils: ent.has.has('utils'),
    related: ent.uses ? names(svc, ent.uses) : undefined,
    remote: undefined as string | undefined,
  };
  const deps: Array<[type: string, name: string]> = [[n.repo, n.repoVar], [`${svc.pascal}EventProducer`, 'eventProducer']];
  if (ctx.mapper) {
    deps.push([n.mapper, n.mapperVar]);
    u.use(`${svc.pkg}.service.${n.mapper}`);
  }
  if (ctx.validator) {
    deps.push([n.validator, n.validatorVar]);
    u.use(`${svc.pkg}.service.${n.validator}`);
  }
  if (ctx.utils) u.use(`${svc.pkg}.util.${n.utils}`);
  if (ctx.related) {
    deps.push([ctx.related.svc, ctx.related.svcVar]);
    u.use(`${svc.pkg}.service.${ctx.related.svc}`);
  }
  const feign = svc.feign && ent === svc.entities[0] ? svc.feign : undefined;
  const fn = feign ? names(feign.svc, feign.ent) : undefined;
  const client = feign ? `${feign.svc.pascal}${feign.ent.name}Client` : '';
  if (feign && fn) {
    deps.push([client, lowerFirst(client)]);
    u.use(`${svc.pkg}.client.${client}`);
    ctx.remote = `remote${fn.E}Status`;
  }
  const fields: Lines = [logger(u, n.impl), ''];
  if (ent.inject === 'field') {
    u.use('org.springframework.beans.factory.annotation.Autowired');
    deps.forEach(([t, v], i) => fields.push(...(i > 0 ? [''] : []), '    @Autowired', `    private ${t} ${v};`));
  } else {
    for (const [t, v] of deps) fields.push(`    private final ${t} ${v};`);
  }
  u.add(fields);
  if (ent.inject === 'constructor') {
    u.add([`    public ${n.impl}(${deps.map(([t, v]) => `${t} ${v}`).join(', ')}) {`, ...deps.map(([, v]) => `        this.${v} = ${v};`), '    }']);
  }
  if (ent.ops.some((o) => o.kind === 'list')) u.use('java.util.stream.Collectors');
  if (ent.ops.some((o) => o.kind === 'search')) u.use('java.util.Comparator', 'java.util.Locale');
  if (ent.ops.some((o) => o.kind === 'page')) u.use('org.springframework.data.domain.PageRequest', 'org.springframework.data.domain.Pageable', 'org.springframework.data.domain.Sort');
  if (ent.fields.some((f) => f.name === 'createdAt' || f.name === 'updatedAt')) u.use('java.time.Instant');
  u.use('org.springframework.transaction.annotation.Transactional');
  for (const op of ent.ops) {
    const s = serviceSignature(n, op);
    const tx = op.kind === 'get' || op.kind === 'list' || op.kind === 'count' || op.kind === 'search' || op.kind === 'page' || op.kind === 'export' ? ['    @Transactional(readOnly = true)'] : ['    @Transactional'];
    u.add(['    @Override', ...tx, `    public ${s.ret} ${s.name}(${s.params}) {`, ...implBody(n, ent, op, ctx), '    }']);
  }
  if (ctx.mapper) u.add([`    private ${n.dto} toDto(${n.E} entity) {`, `        return ${n.mapperVar}.toDto(entity);`, '    }']);
  else {
    u.add([
      `    private ${n.dto} toDto(${n.E} entity) {`,
      `        ${n.dto} dto = new ${n.dto}();`,
      '        dto.setId(entity.getId());',
      ...ent.fields.map((f) => `        dto.${setter(f)}(entity.${getter(f)}());`),
      '        return dto;',
      '    }',
    ]);
    u.add([
      `    private void applyRequest(${n.E} entity, ${n.req} request) {`,
      ...ent.reqFields.map((f) => (f.name === 'name' && ctx.utils ? `        entity.setName(${n.utils}.normalize(request.name()));` : `        entity.${setter(f)}(request.${f.name}());`)),
      '    }',
    ]);
  }
  if (ctx.related) {
    const rn = ctx.related;
    u.add([`    private long related${rn.Es}() {`, `        long count = ${rn.svcVar}.count${rn.Es}("ACTIVE");`, `        log.debug("Related ${rn.es}: {}", count);`, '        return count;', '    }']);
  }
  if (feign && fn) {
    u.add([
      `    private String ${ctx.remote!}(Long id) {`,
      `        return ${lowerFirst(client)}.find${fn.E}(id)`,
      `                .map(${client}.Remote${fn.E}::status)`,
      '                .orElse("UNKNOWN");',
      '    }',
    ]);
  }
  const optional: Array<() => Lines> = [
    () => {
      u.use('java.util.Map', 'java.util.TreeMap');
      return [
        '    public Map<String, Long> statusHistogram() {',
        '        Map<String, Long> histogram = new TreeMap<>();',
        `        for (${n.E} item : ${n.repoVar}.findAll()) {`,
        '            histogram.merge(item.getStatus(), 1L, Long::sum);',
        '        }',
        '        return histogram;',
        '    }',
      ];
    },
    () => {
      u.use('java.util.Optional');
      return [`    public Optional<${n.dto}> findByName(String name) {`, `        return ${n.repoVar}.findByName(name).map(this::toDto);`, '    }'];
    },
  ];
  return u.fill(target, optional).render();
}

function renderMapper(svc: Svc, ent: Ent, rng: Rng, target: number): string {
  const n = names(svc, ent);
  const u = new JavaUnit(`${svc.pkg}.service`, ['@Component'], `public class ${n.mapper}`, rng, `Maps ${n.es} between entities and DTOs.`);
  u.use('org.springframework.stereotype.Component', `${svc.pkg}.domain.${n.E}`, `${svc.pkg}.dto.${n.dto}`, `${svc.pkg}.dto.${n.req}`, 'java.util.List', 'java.util.stream.Collectors');
  u.add([
    `    public ${n.dto} toDto(${n.E} entity) {`,
    '        if (entity == null) {',
    '            return null;',
    '        }',
    `        return ${n.dto}.builder()`,
    '                .id(entity.getId())',
    ...ent.fields.map((f) => `                .${f.name}(entity.${getter(f)}())`),
    '                .build();',
    '    }',
  ]);
  u.add([`    public List<${n.dto}> toDto(List<${n.E}> entities) {`, '        return entities.stream().map(this::toDto).collect(Collectors.toList());', '    }']);
  u.add([`    public ${n.E} toEntity(${n.req} request) {`, `        ${n.E} entity = new ${n.E}();`, '        apply(request, entity);', '        return entity;', '    }']);
  u.add([`    public void apply(${n.req} request, ${n.E} entity) {`, ...ent.reqFields.map((f) => `        entity.${setter(f)}(request.${f.name}());`), '    }']);
  const optional: Array<() => Lines> = [
    () => {
      u.use(`${svc.pkg}.dto.${n.resp}`);
      return [`    public ${n.resp} toResponse(${n.dto} dto) {`, `        return ${n.resp}.from(dto);`, '    }'];
    },
    () => {
      u.use(`${svc.pkg}.dto.${n.resp}`);
      return [`    public ${n.resp} toResponse(${n.E} entity) {`, '        return toResponse(toDto(entity));', '    }'];
    },
    () => [`    public ${n.req} toRequest(${n.dto} dto) {`, `        return new ${n.req}(${ent.reqFields.map((f) => `dto.${getter(f)}()`).join(', ')});`, '    }'],
    () => [
      `    public ${n.E} copy(${n.E} source) {`,
      `        ${n.E} copy = new ${n.E}(source.getName(), source.getStatus());`,
      ...ent.fields.filter((f) => f.name !== 'name' && f.name !== 'status').map((f) => `        copy.${setter(f)}(source.${getter(f)}());`),
      '        return copy;',
      '    }',
    ],
    () => {
      u.use('java.util.LinkedHashMap', 'java.util.Map');
      return [
        `    public Map<String, Object> toMap(${n.E} entity) {`,
        '        Map<String, Object> map = new LinkedHashMap<>();',
        '        map.put("id", entity.getId());',
        ...ent.fields.map((f) => `        map.put("${f.name}", entity.${getter(f)}());`),
        '        return map;',
        '    }',
      ];
    },
    () => {
      u.use('java.util.ArrayList');
      return [
        `    public List<${n.dto}> toDto(Iterable<${n.E}> entities) {`,
        `        List<${n.dto}> out = new ArrayList<>();`,
        `        for (${n.E} entity : entities) {`,
        '            out.add(toDto(entity));',
        '        }',
        '        return out;',
        '    }',
      ];
    },
  ];
  return u.fill(target, optional).render();
}

function renderValidator(svc: Svc, ent: Ent, rng: Rng, target: number): string {
  const n = names(svc, ent);
  const u = new JavaUnit(`${svc.pkg}.service`, ['@Component'], `public class ${n.validator}`, rng, `Checks ${n.e} requests before they reach the repository.`);
  u.use('org.springframework.stereotype.Component', `${svc.pkg}.dto.${n.req}`, 'java.util.ArrayList', 'java.util.List');
  useFields(u, ent.reqFields);
  u.add(['    private static final int MAX_NAME_LENGTH = 120;', '    private static final int MAX_TEXT_LENGTH = 255;']);
  u.add([
    `    public void validate(${n.req} request) {`,
    '        List<String> errors = new ArrayList<>();',
    ...ent.reqFields.map((f) => `        check${cap(f.name)}(request.${f.name}(), errors);`),
    '        if (!errors.isEmpty()) {',
    `            throw new IllegalArgumentException("Invalid ${n.e}: " + String.join("; ", errors));`,
    '        }',
    '    }',
  ]);
  for (const f of ent.reqFields) {
    const check =
      f.name === 'name'
        ? ['        if (value == null || value.isBlank()) {', '            errors.add("name is required");', '        } else if (value.length() > MAX_NAME_LENGTH) {', '            errors.add("name is too long");', '        }']
        : f.type === 'String'
          ? ['        if (value != null && value.length() > MAX_TEXT_LENGTH) {', `            errors.add("${f.name} is too long");`, '        }']
          : f.type === 'BigDecimal'
            ? ['        if (value != null && value.signum() < 0) {', `            errors.add("${f.name} must not be negative");`, '        }']
            : f.type === 'Integer' || f.type === 'Long'
              ? ['        if (value != null && value < 0) {', `            errors.add("${f.name} must not be negative");`, '        }']
              : ['        if (value == null) {', `            errors.add("${f.name} is required");`, '        }'];
    u.add([`    private void check${cap(f.name)}(${f.type} value, List<String> errors) {`, ...check, '    }']);
  }
  const optional: Array<() => Lines> = [
    () => [`    public boolean isValid(${n.req} request) {`, '        try {', '            validate(request);', '            return true;', '        } catch (IllegalArgumentException ex) {', '            return false;', '        }', '    }'],
    () => [`    public ${n.req} requireValid(${n.req} request) {`, '        validate(request);', '        return request;', '    }'],
    () => [
      `    public List<String> validateAll(List<${n.req}> requests) {`,
      '        List<String> failures = new ArrayList<>();',
      `        for (${n.req} request : requests) {`,
      '            if (!isValid(request)) {',
      '                failures.add(request.name());',
      '            }',
      '        }',
      '        return failures;',
      '    }',
    ],
  ];
  return u.fill(target, optional).render();
}

function renderQuery(svc: Svc, ent: Ent, rng: Rng, target: number): string {
  const n = names(svc, ent);
  const u = new JavaUnit(`${svc.pkg}.service`, ['@Service', '@RequiredArgsConstructor'], `public class ${n.E}QueryService`, rng, `Read-only queries over ${n.es}.`);
  u.use('org.springframework.stereotype.Service', 'lombok.RequiredArgsConstructor', `${svc.pkg}.domain.${n.E}`, `${svc.pkg}.dto.${n.dto}`, `${svc.pkg}.repo.${n.repo}`);
  const fields = [logger(u, `${n.E}QueryService`), '', `    private final ${n.repo} ${n.repoVar};`];
  if (ent.has.has('mapper')) fields.push(`    private final ${n.mapper} ${n.mapperVar};`);
  u.add(fields);
  u.use('java.util.Map', 'java.util.TreeMap', 'java.util.stream.Collectors');
  u.add([
    '    public Map<String, Long> countByStatus() {',
    `        return ${n.repoVar}.findAll().stream()`,
    `                .collect(Collectors.groupingBy(${n.E}::getStatus, TreeMap::new, Collectors.counting()));`,
    '    }',
  ]);
  u.use('java.util.Optional');
  u.add([`    public Optional<${n.dto}> findFirstByName(String name) {`, `        log.debug("Looking up ${n.e} named {}", name);`, `        return ${n.repoVar}.findByName(name).map(this::toDto);`, '    }']);
  u.add(
    ent.has.has('mapper')
      ? [`    private ${n.dto} toDto(${n.E} entity) {`, `        return ${n.mapperVar}.toDto(entity);`, '    }']
      : [`    private ${n.dto} toDto(${n.E} entity) {`, `        return ${n.dto}.builder().id(entity.getId()).name(entity.getName()).status(entity.getStatus()).build();`, '    }'],
  );
  const optional: Array<() => Lines> = [
    () => {
      u.use('java.util.List', 'java.util.Objects', 'org.springframework.data.domain.Sort');
      return [
        '    public List<String> names(int limit) {',
        `        return ${n.repoVar}.findAll(Sort.by(Sort.Direction.ASC, "name")).stream()`,
        `                .map(${n.E}::getName)`,
        '                .filter(Objects::nonNull)',
        '                .limit(limit)',
        '                .toList();',
        '    }',
      ];
    },
    () => {
      u.use('java.util.List');
      return [
        `    public List<${n.dto}> latest(String status) {`,
        `        List<${n.E}> items = ${n.repoVar}.findByStatus(status);`,
        '        return items.stream()',
        `                .sorted((a, b) -> Long.compare(b.getId(), a.getId()))`,
        '                .limit(10)',
        '                .map(this::toDto)',
        '                .toList();',
        '    }',
      ];
    },
    () => ['    public double activeShare() {', `        long total = ${n.repoVar}.count();`, `        long active = ${n.repoVar}.countByStatus("ACTIVE");`, '        return total == 0 ? 0.0 : (double) active / total;', '    }'],
  ];
  return u.fill(target, optional).render();
}

// ------------------------------------------------------------------------------------------------ Java: web

function handler(n: Names, op: Op): { lines: Lines; imports: string[] } {
  const call = `${n.svcVar}.${serviceSignature(n, op).name}`;
  switch (op.kind) {
    case 'get':
      return {
        imports: ['org.springframework.web.bind.annotation.GetMapping', 'org.springframework.web.bind.annotation.PathVariable', 'org.springframework.http.ResponseEntity'],
        lines: ['    @GetMapping("/{id}")', `    public ResponseEntity<${n.dto}> get(@PathVariable Long id) {`, '        log.info("GET {}/{}", BASE_PATH, id);', `        ${n.dto} dto = ${call}(id);`, '        return ResponseEntity.ok(dto);', '    }'],
      };
    case 'list':
      return {
        imports: ['org.springframework.web.bind.annotation.GetMapping', 'org.springframework.web.bind.annotation.RequestParam', 'java.util.List'],
        lines: ['    @GetMapping', `    public List<${n.dto}> list(@RequestParam(defaultValue = "ACTIVE") String status) {`, `        List<${n.dto}> items = ${call}(status);`, `        log.debug("Listing {} ${n.es}", items.size());`, '        return items;', '    }'],
      };
    case 'create':
      return {
        imports: ['org.springframework.web.bind.annotation.PostMapping', 'org.springframework.web.bind.annotation.RequestBody', 'org.springframework.http.ResponseEntity', 'jakarta.validation.Valid', 'java.net.URI', `${n.pkg}.dto.${n.req}`, `${n.pkg}.dto.${n.resp}`],
        lines: [
          '    @PostMapping',
          `    public ResponseEntity<${n.resp}> create(@Valid @RequestBody ${n.req} request) {`,
          `        ${n.dto} created = ${call}(request);`,
          '        URI location = URI.create(BASE_PATH + "/" + created.getId());',
          `        return ResponseEntity.created(location).body(${n.resp}.from(created));`,
          '    }',
        ],
      };
    case 'update':
      return {
        imports: ['org.springframework.web.bind.annotation.PutMapping', 'org.springframework.web.bind.annotation.PathVariable', 'org.springframework.web.bind.annotation.RequestBody', 'jakarta.validation.Valid', `${n.pkg}.dto.${n.req}`],
        lines: ['    @PutMapping("/{id}")', `    public ${n.dto} update(@PathVariable Long id, @Valid @RequestBody ${n.req} request) {`, `        log.info("PUT {}/{}", BASE_PATH, id);`, `        return ${call}(id, request);`, '    }'],
      };
    case 'delete':
      return {
        imports: ['org.springframework.web.bind.annotation.DeleteMapping', 'org.springframework.web.bind.annotation.PathVariable', 'org.springframework.http.ResponseEntity'],
        lines: ['    @DeleteMapping("/{id}")', '    public ResponseEntity<Void> delete(@PathVariable Long id) {', `        ${call}(id);`, '        return ResponseEntity.noContent().build();', '    }'],
      };
    case 'count':
      return {
        imports: ['org.springframework.web.bind.annotation.GetMapping', 'org.springframework.web.bind.annotation.RequestParam', 'java.util.Map'],
        lines: ['    @GetMapping("/count")', '    public Map<String, Long> count(@RequestParam(defaultValue = "ACTIVE") String status) {', `        long total = ${call}(status);`, '        return Map.of("count", total);', '    }'],
      };
    case 'search':
      return {
        imports: ['org.springframework.web.bind.annotation.GetMapping', 'org.springframework.web.bind.annotation.RequestParam', 'java.util.List'],
        lines: [
          '    @GetMapping("/search")',
          `    public List<${n.dto}> search(@RequestParam("q") String query, @RequestParam(defaultValue = "20") int limit) {`,
          '        int bounded = Math.max(1, Math.min(limit, 200));',
          `        return ${call}(query, bounded);`,
          '    }',
        ],
      };
    case 'transition':
      return {
        imports: ['org.springframework.web.bind.annotation.PostMapping', 'org.springframework.web.bind.annotation.PathVariable'],
        lines: [`    @PostMapping("/{id}/${op.verb!}")`, `    public ${n.dto} ${op.verb!}(@PathVariable Long id) {`, `        log.info("${op.verb!} ${n.e} {}", id);`, `        return ${call}(id);`, '    }'],
      };
    case 'page':
      return {
        imports: ['org.springframework.web.bind.annotation.GetMapping', 'org.springframework.web.bind.annotation.RequestParam', 'org.springframework.data.domain.Page'],
        lines: [
          '    @GetMapping("/page")',
          `    public Page<${n.dto}> page(@RequestParam(defaultValue = "0") int page, @RequestParam(defaultValue = "50") int size) {`,
          `        return ${call}(page, size);`,
          '    }',
        ],
      };
    case 'export':
      return {
        imports: ['org.springframework.web.bind.annotation.GetMapping'],
        lines: ['    @GetMapping(value = "/export", produces = "text/csv")', '    public String export() {', `        String csv = ${call}();`, `        log.info("Exported {} bytes of ${n.es}", csv.length());`, '        return csv;', '    }'],
      };
  }
}

function renderController(svc: Svc, ent: Ent, rng: Rng, target: number): string {
  const n = names(svc, ent);
  const u = new JavaUnit(`${svc.pkg}.web`, ['@RestController', `@RequestMapping("${ent.path}")`], `public class ${n.E}Controller`, rng, `REST endpoints for ${n.es}.`);
  u.use('org.springframework.web.bind.annotation.RestController', 'org.springframework.web.bind.annotation.RequestMapping', `${svc.pkg}.service.${n.svc}`, `${svc.pkg}.dto.${n.dto}`);
  const deps: Array<[string, string]> = [[n.svc, n.svcVar]];
  const rel = ent.uses ? names(svc, ent.uses) : undefined;
  if (rel) {
    deps.push([rel.svc, rel.svcVar]);
    u.use(`${svc.pkg}.service.${rel.svc}`);
  }
  u.add([`    static final String BASE_PATH = "${ent.path}";`, '', logger(u, `${n.E}Controller`), '', ...deps.map(([t, v]) => `    private final ${t} ${v};`)]);
  u.add([`    public ${n.E}Controller(${deps.map(([t, v]) => `${t} ${v}`).join(', ')}) {`, ...deps.map(([, v]) => `        this.${v} = ${v};`), '    }']);
  const endpoints = rel ? ent.endpoints.slice(0, 4) : ent.endpoints;
  for (const op of endpoints) {
    const h = handler(n, op);
    u.use(...h.imports);
    u.add(h.lines);
  }
  if (rel) {
    u.use('org.springframework.web.bind.annotation.GetMapping', 'org.springframework.web.bind.annotation.PathVariable', 'java.util.LinkedHashMap', 'java.util.Map');
    u.add([
      '    @GetMapping("/{id}/summary")',
      '    public Map<String, Object> summary(@PathVariable Long id) {',
      `        ${n.dto} dto = ${n.svcVar}.get${n.E}(id);`,
      '        Map<String, Object> body = new LinkedHashMap<>();',
      `        body.put("${n.e}", dto);`,
      `        body.put("active${rel.Es}", ${rel.svcVar}.count${rel.Es}("ACTIVE"));`,
      '        return body;',
      '    }',
    ]);
  }
  const optional: Array<() => Lines> = [
    () => {
      u.use('org.springframework.web.bind.annotation.ExceptionHandler', 'org.springframework.http.ResponseEntity', 'java.util.Map');
      return [
        '    @ExceptionHandler(IllegalArgumentException.class)',
        '    public ResponseEntity<Map<String, String>> onBadRequest(IllegalArgumentException ex) {',
        `        log.warn("Bad ${n.e} request: {}", ex.getMessage());`,
        '        return ResponseEntity.badRequest().body(Map.of("error", ex.getMessage()));',
        '    }',
      ];
    },
    () => {
      u.use('org.springframework.web.bind.annotation.ExceptionHandler', 'org.springframework.http.HttpStatus', 'org.springframework.http.ResponseEntity', 'java.util.Map');
      return [
        '    @ExceptionHandler(IllegalStateException.class)',
        '    public ResponseEntity<Map<String, String>> onConflict(IllegalStateException ex) {',
        `        log.warn("Conflicting ${n.e} request: {}", ex.getMessage());`,
        '        return ResponseEntity.status(HttpStatus.CONFLICT).body(Map.of("error", String.valueOf(ex.getMessage())));',
        '    }',
      ];
    },
    () => [`    private static String describe(${n.dto} dto) {`, '        return dto.getId() + ":" + dto.getName();', '    }'],
  ];
  return u.fill(target, optional).render();
}

// ------------------------------------------------------------------------------------------------ Java: wiring

function renderApp(svc: Svc, rng: Rng, target: number): string {
  const cls = `${svc.pascal}ServiceApplication`;
  const annotations = ['@SpringBootApplication', ...(svc.feign ? ['@EnableFeignClients'] : [])];
  const u = new JavaUnit(svc.pkg, annotations, `public class ${cls}`, rng, `Entry point of ${svc.appName}.`);
  u.use('org.springframework.boot.SpringApplication', 'org.springframework.boot.autoconfigure.SpringBootApplication');
  if (svc.feign) u.use('org.springframework.cloud.openfeign.EnableFeignClients');
  u.add([logger(u, cls)]);
  u.add(['    public static void main(String[] args) {', `        SpringApplication app = new SpringApplication(${cls}.class);`, '        app.setAdditionalProfiles(defaultProfile());', '        app.run(args);', '    }']);
  u.add(['    static String defaultProfile() {', '        String env = System.getenv("SPRING_PROFILES_ACTIVE");', '        return env == null || env.isBlank() ? "local" : env;', '    }']);
  const optional: Array<() => Lines> = [
    () => {
      u.use('org.springframework.boot.CommandLineRunner', 'org.springframework.context.annotation.Bean');
      return ['    @Bean', '    CommandLineRunner startupBanner() {', `        return args -> log.info("${svc.appName} started with {} argument(s)", args.length);`, '    }'];
    },
    () => {
      u.use('org.springframework.boot.context.event.ApplicationReadyEvent', 'org.springframework.context.event.EventListener');
      return ['    @EventListener(ApplicationReadyEvent.class)', '    public void onReady() {', `        log.info("{} is ready on profile {}", "${svc.appName}", defaultProfile());`, '    }'];
    },
    () => {
      u.use('java.util.LinkedHashMap', 'java.util.Map');
      return [
        '    static Map<String, String> buildInfo() {',
        '        Map<String, String> info = new LinkedHashMap<>();',
        `        info.put("name", "${svc.appName}");`,
        `        info.put("version", String.valueOf(${cls}.class.getPackage().getImplementationVersion()));`,
        '        info.put("java", System.getProperty("java.version"));',
        '        return info;',
        '    }',
      ];
    },
  ];
  return u.fill(target, optional).render();
}

function renderConfig(svc: Svc, rng: Rng, target: number): string {
  const cls = `${svc.pascal}ServiceConfig`;
  const u = new JavaUnit(`${svc.pkg}.config`, ['@Configuration'], `public class ${cls}`, rng, `Bean wiring of ${svc.appName}.`);
  u.use('org.springframework.context.annotation.Bean', 'org.springframework.context.annotation.Configuration', 'org.springframework.beans.factory.annotation.Value');
  u.add([logger(u, cls), '', '    @Value("${spring.application.name}")', '    private String applicationName;']);
  u.use('com.fasterxml.jackson.databind.ObjectMapper', 'com.fasterxml.jackson.databind.SerializationFeature');
  u.add(['    @Bean', '    public ObjectMapper objectMapper() {', '        ObjectMapper mapper = new ObjectMapper();', '        mapper.findAndRegisterModules();', '        mapper.disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);', '        return mapper;', '    }']);
  u.use('org.apache.kafka.clients.producer.ProducerConfig', 'org.apache.kafka.common.serialization.StringSerializer', 'org.springframework.kafka.core.DefaultKafkaProducerFactory', 'org.springframework.kafka.core.KafkaTemplate', 'org.springframework.kafka.core.ProducerFactory', 'java.util.HashMap', 'java.util.Map');
  u.add([
    '    @Bean',
    '    public ProducerFactory<String, String> producerFactory(@Value("${spring.kafka.bootstrap-servers}") String servers) {',
    '        Map<String, Object> props = new HashMap<>();',
    '        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, servers);',
    '        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);',
    '        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);',
    '        props.put(ProducerConfig.CLIENT_ID_CONFIG, applicationName);',
    '        return new DefaultKafkaProducerFactory<>(props);',
    '    }',
  ]);
  u.add(['    @Bean', '    public KafkaTemplate<String, String> kafkaTemplate(ProducerFactory<String, String> producerFactory) {', '        return new KafkaTemplate<>(producerFactory);', '    }']);
  const optional: Array<() => Lines> = [
    () => {
      u.use('java.time.Clock');
      return ['    @Bean', '    public Clock clock() {', '        return Clock.systemUTC();', '    }'];
    },
    () => {
      u.use('org.springframework.web.client.RestTemplate', 'org.springframework.boot.web.client.RestTemplateBuilder', 'java.time.Duration');
      return ['    @Bean', '    public RestTemplate restTemplate(RestTemplateBuilder builder) {', '        return builder.setConnectTimeout(Duration.ofSeconds(5)).setReadTimeout(Duration.ofSeconds(10)).build();', '    }'];
    },
    () => {
      u.use('org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor', 'java.util.concurrent.Executor');
      return [
        '    @Bean(name = "taskExecutor")',
        '    public Executor taskExecutor() {',
        '        ThreadPoolTaskExecutor executor = new ThreadPoolTaskExecutor();',
        '        executor.setCorePoolSize(4);',
        '        executor.setMaxPoolSize(16);',
        `        executor.setThreadNamePrefix("${svc.domain}-");`,
        '        executor.initialize();',
        '        log.info("Task executor ready for {}", applicationName);',
        '        return executor;',
        '    }',
      ];
    },
    () => {
      u.use('org.apache.kafka.clients.admin.NewTopic', `${svc.pkg}.messaging.${svc.pascal}EventProducer`);
      return ['    @Bean', '    public NewTopic eventsTopic() {', `        return new NewTopic(${svc.pascal}EventProducer.TOPIC, 3, (short) 1);`, '    }'];
    },
  ];
  return u.fill(target, optional).render();
}

function renderProducer(svc: Svc, rng: Rng, target: number): string {
  const cls = `${svc.pascal}EventProducer`;
  const u = new JavaUnit(`${svc.pkg}.messaging`, ['@Component'], `public class ${cls}`, rng, `Publishes ${svc.domain} events to Kafka.`);
  u.use('org.springframework.stereotype.Component', 'org.springframework.kafka.core.KafkaTemplate');
  u.add([`    public static final String TOPIC = "${svc.domain}-events";`, '', logger(u, cls), '', '    private final KafkaTemplate<String, String> kafkaTemplate;']);
  u.add([`    public ${cls}(KafkaTemplate<String, String> kafkaTemplate) {`, '        this.kafkaTemplate = kafkaTemplate;', '    }']);
  u.add(['    public void publish(Long id, String type) {', '        publish(TOPIC, id, type);', '    }']);
  u.add([
    '    public void publish(String topic, Long id, String type) {',
    '        String key = String.valueOf(id);',
    '        String payload = type + ":" + id;',
    '        kafkaTemplate.send(topic, key, payload).whenComplete((result, ex) -> {',
    '            if (ex != null) {',
    '                log.warn("Failed to publish {} to {}", type, topic, ex);',
    '            } else {',
    '                log.debug("Published {} to {}", type, topic);',
    '            }',
    '        });',
    '    }',
  ]);
  const optional: Array<() => Lines> = [
    () => {
      u.use('java.util.List');
      return ['    public void publishAll(List<Long> ids, String type) {', '        ids.forEach(id -> publish(id, type));', '    }'];
    },
    () => ['    public void publishHeartbeat() {', `        kafkaTemplate.send(TOPIC, "heartbeat", "HEARTBEAT:" + System.currentTimeMillis());`, '    }'],
    () => {
      u.use('java.util.Map');
      return [
        '    public void publishWithHeaders(Long id, String type, Map<String, String> headers) {',
        '        StringBuilder payload = new StringBuilder(type).append(":").append(id);',
        '        headers.forEach((k, v) -> payload.append(";").append(k).append("=").append(v));',
        '        kafkaTemplate.send(TOPIC, String.valueOf(id), payload.toString());',
        '    }',
      ];
    },
    () => ['    public String topic() {', '        return TOPIC;', '    }'],
  ];
  return u.fill(target, optional).render();
}

function renderListener(svc: Svc, rng: Rng, target: number): string {
  const from = svc.listenTo!;
  const cls = `${from.pascal}EventsListener`;
  const own = names(svc, svc.entities[0]!);
  const u = new JavaUnit(`${svc.pkg}.messaging`, ['@Component'], `public class ${cls}`, rng, `Reacts to events published by ${from.appName}.`);
  u.use('org.springframework.stereotype.Component', 'org.springframework.kafka.annotation.KafkaListener', 'java.util.concurrent.atomic.AtomicLong', `${svc.pkg}.service.${own.svc}`);
  u.add([logger(u, cls), '', `    private final ${own.svc} ${own.svcVar};`, '    private final AtomicLong received = new AtomicLong();']);
  u.add([`    public ${cls}(${own.svc} ${own.svcVar}) {`, `        this.${own.svcVar} = ${own.svcVar};`, '    }']);
  u.add([
    `    @KafkaListener(topics = "${from.domain}-events", groupId = "${svc.appName}")`,
    '    public void onMessage(String payload) {',
    '        long count = received.incrementAndGet();',
    '        String[] parts = payload.split(":", 2);',
    '        String type = parts[0];',
    '        Long id = parts.length > 1 ? Long.valueOf(parts[1]) : null;',
    '        log.info("Received {} for {} (#{})", type, id, count);',
    '        if (type.endsWith("_CREATED")) {',
    '            handleCreated(id);',
    '        } else if (type.endsWith("_DELETED")) {',
    '            handleDeleted(id);',
    '        }',
    '    }',
  ]);
  u.add(['    private void handleCreated(Long id) {', `        long active = ${own.svcVar}.count${own.Es}("ACTIVE");`, `        log.debug("Remote entity {} created; {} active ${own.es}", id, active);`, '    }']);
  u.add(['    private void handleDeleted(Long id) {', `        log.debug("Remote entity {} deleted", id);`, '    }']);
  const optional: Array<() => Lines> = [
    () => ['    public long receivedCount() {', '        return received.get();', '    }'],
    () => [
      `    @KafkaListener(topics = "${svc.domain}-events", groupId = "${svc.appName}-audit")`,
      '    public void onOwnEvent(String payload) {',
      '        if (payload.startsWith("HEARTBEAT")) {',
      '            return;',
      '        }',
      '        log.debug("Audit {}", payload);',
      '    }',
    ],
    () => ['    public void reset() {', '        long previous = received.getAndSet(0);', '        log.info("Reset listener counter from {}", previous);', '    }'],
  ];
  return u.fill(target, optional).render();
}

function feignMethod(fn: Names, op: Op): Lines {
  const remote = `Remote${fn.E}`;
  switch (op.kind) {
    case 'get':
      return ['    @GetMapping("/{id}")', `    ${remote} get${fn.E}(@PathVariable("id") Long id);`];
    case 'list':
      return ['    @GetMapping', `    List<${remote}> list${fn.Es}(@RequestParam("status") String status);`];
    case 'count':
      return ['    @GetMapping("/count")', `    Map<String, Long> count${fn.Es}(@RequestParam("status") String status);`];
    case 'search':
      return ['    @GetMapping("/search")', `    List<${remote}> search${fn.Es}(@RequestParam("q") String query, @RequestParam("limit") int limit);`];
    case 'create':
      return ['    @PostMapping', `    ${remote} create${fn.E}(@RequestBody Map<String, Object> body);`];
    case 'update':
      return ['    @PutMapping("/{id}")', `    ${remote} update${fn.E}(@PathVariable("id") Long id, @RequestBody Map<String, Object> body);`];
    case 'delete':
      return ['    @DeleteMapping("/{id}")', `    void delete${fn.E}(@PathVariable("id") Long id);`];
    case 'transition':
      return [`    @PostMapping("/{id}/${op.verb!}")`, `    ${remote} ${op.verb!}${fn.E}(@PathVariable("id") Long id);`];
    case 'page':
      return ['    @GetMapping("/page")', `    Map<String, Object> page${fn.Es}(@RequestParam("page") int page, @RequestParam("size") int size);`];
    case 'export':
      return ['    @GetMapping("/export")', `    String export${fn.Es}();`];
  }
}

function renderFeign(svc: Svc, rng: Rng, target: number): string {
  const { svc: other, ent } = svc.feign!;
  const fn = names(other, ent);
  const cls = `${other.pascal}${ent.name}Client`;
  const u = new JavaUnit(`${svc.pkg}.client`, [`@FeignClient(name = "${other.appName}", path = "${ent.path}")`], `public interface ${cls}`, rng, `HTTP client for the ${fn.es} of ${other.appName}.`);
  u.use('org.springframework.cloud.openfeign.FeignClient', 'org.springframework.web.bind.annotation.GetMapping', 'org.springframework.web.bind.annotation.PathVariable', 'java.util.Optional');
  u.add([`    /** ${cap(an(fn.e))} as ${other.appName} returns it. */`, `    record Remote${fn.E}(Long id, String name, String status) {`, '    }']);
  const imports: Partial<Record<OpKind, string[]>> = {
    list: ['org.springframework.web.bind.annotation.RequestParam', 'java.util.List'],
    count: ['org.springframework.web.bind.annotation.RequestParam', 'java.util.Map'],
    search: ['org.springframework.web.bind.annotation.RequestParam', 'java.util.List'],
    create: ['org.springframework.web.bind.annotation.PostMapping', 'org.springframework.web.bind.annotation.RequestBody', 'java.util.Map'],
    update: ['org.springframework.web.bind.annotation.PutMapping', 'org.springframework.web.bind.annotation.RequestBody', 'java.util.Map'],
    delete: ['org.springframework.web.bind.annotation.DeleteMapping'],
    transition: ['org.springframework.web.bind.annotation.PostMapping'],
    page: ['org.springframework.web.bind.annotation.RequestParam', 'java.util.Map'],
  };
  for (const op of ent.endpoints) {
    u.use(...(imports[op.kind] ?? []));
    u.add([`    /** ${docSentence(rng, `the remote ${op.verb ?? op.kind} call`)} */`, ...feignMethod(fn, op)]);
  }
  u.add([
    `    default Optional<Remote${fn.E}> find${fn.E}(Long id) {`,
    '        try {',
    `            return Optional.ofNullable(get${fn.E}(id));`,
    '        } catch (RuntimeException ex) {',
    '            return Optional.empty();',
    '        }',
    '    }',
  ]);
  const optional: Array<() => Lines> = [
    () => [`    default String status${fn.E}(Long id) {`, `        return find${fn.E}(id).map(Remote${fn.E}::status).orElse("UNKNOWN");`, '    }'],
    () => [`    default boolean exists${fn.E}(Long id) {`, `        return find${fn.E}(id).isPresent();`, '    }'],
    () => {
      u.use('java.util.List', 'java.util.ArrayList');
      return [
        `    default List<Remote${fn.E}> find${fn.Es}(List<Long> ids) {`,
        `        List<Remote${fn.E}> found = new ArrayList<>();`,
        '        for (Long id : ids) {',
        `            find${fn.E}(id).ifPresent(found::add);`,
        '        }',
        '        return found;',
        '    }',
      ];
    },
  ];
  return u.fill(target, optional).render();
}

// ------------------------------------------------------------------------------------------------ Java: utilities

/** Static helpers with overloads, shared by the per-entity `XUtils` and the generic `XSupport` classes. */
function staticHelpers(u: JavaUnit, prefix: string, rng: Rng): Array<() => Lines> {
  const helpers: Array<() => Lines> = [
    () => ['    public static String normalize(String value) {', '        return normalize(value, Locale.ROOT);', '    }'],
    () => ['    public static String normalize(String value, Locale locale) {', '        if (value == null) {', '            return "";', '        }', '        return value.trim().toLowerCase(locale);', '    }'],
    () => ['    public static String key(Long id) {', `        return "${prefix}:" + id;`, '    }'],
    () => ['    public static String key(Long id, String suffix) {', '        return key(id) + ":" + suffix;', '    }'],
    () => ['    public static int clamp(int value, int min, int max) {', '        return Math.max(min, Math.min(max, value));', '    }'],
    () => ['    public static long clamp(long value, long min, long max) {', '        return Math.max(min, Math.min(max, value));', '    }'],
    () => {
      u.use('java.math.BigDecimal', 'java.util.List', 'java.util.Objects');
      return ['    public static BigDecimal total(List<BigDecimal> amounts) {', '        return amounts.stream().filter(Objects::nonNull).reduce(BigDecimal.ZERO, BigDecimal::add);', '    }'];
    },
    () => {
      u.use('java.math.BigDecimal', 'java.util.Arrays');
      return ['    public static BigDecimal total(BigDecimal... amounts) {', '        return total(Arrays.asList(amounts));', '    }'];
    },
    () => [
      '    public static String slug(String name, int maxLength) {',
      '        String slug = normalize(name).replaceAll("[^a-z0-9]+", "-");',
      '        return slug.length() > maxLength ? slug.substring(0, maxLength) : slug;',
      '    }',
    ],
    () => ['    public static String slug(String name) {', '        return slug(name, 64);', '    }'],
    () => {
      u.use('java.util.Set');
      return ['    public static boolean isTerminal(String status) {', '        return Set.of("CLOSED", "CANCELLED", "ARCHIVED").contains(status);', '    }'];
    },
    () => {
      u.use('java.util.List', 'java.util.ArrayList');
      return [
        '    public static <T> List<List<T>> chunk(List<T> items, int size) {',
        '        List<List<T>> chunks = new ArrayList<>();',
        '        for (int i = 0; i < items.size(); i += size) {',
        '            chunks.add(items.subList(i, Math.min(items.size(), i + size)));',
        '        }',
        '        return chunks;',
        '    }',
      ];
    },
    () => {
      u.use('java.time.Instant', 'java.time.Duration');
      return ['    public static boolean isExpired(Instant at, Duration ttl) {', '        return at != null && at.plus(ttl).isBefore(Instant.now());', '    }'];
    },
    () => {
      u.use('java.util.function.Supplier');
      return [
        '    public static <T> T retry(Supplier<T> action, int attempts) {',
        '        RuntimeException last = null;',
        '        for (int i = 0; i < attempts; i++) {',
        '            try {',
        '                return action.get();',
        '            } catch (RuntimeException ex) {',
        '                last = ex;',
        '                log.warn("Attempt {} failed: {}", i + 1, ex.getMessage());',
        '            }',
        '        }',
        '        throw last == null ? new IllegalStateException("no attempts") : last;',
        '    }',
      ];
    },
  ];
  // Keep overload pairs adjacent but vary which pairs come first.
  const pairs: Array<Array<() => Lines>> = [];
  for (let i = 0; i < helpers.length; i += 2) pairs.push(helpers.slice(i, i + 2));
  return rng.shuffled(pairs).flat();
}

function renderUtils(pkg: string, cls: string, prefix: string, rng: Rng, target: number): string {
  const u = new JavaUnit(`${pkg}.util`, [], `public final class ${cls}`, rng, `Static helpers for ${prefix} handling.`);
  u.use('java.util.Locale');
  u.add([`    public static final String PREFIX = "${prefix}";`, '', logger(u, cls)]);
  u.add([`    private ${cls}() {`, '        throw new UnsupportedOperationException("utility class");', '    }']);
  return u.fill(target, staticHelpers(u, prefix, rng)).render();
}

// ------------------------------------------------------------------------------------------------ Kotlin

function ktPadFunction(prefix: string): (i: number) => Lines {
  return (i) => [`fun ${prefix}Label${i}(value: String?): String {`, '    val text = value?.trim().orEmpty()', `    return if (text.isEmpty()) "${prefix}-${i}" else text.lowercase()`, '}'];
}

function renderKtViews(svc: Svc, ent: Ent, rng: Rng, target: number): string {
  const n = names(svc, ent);
  const u = new KotlinUnit(`${svc.pkg}.dto`);
  u.use(`${svc.pkg}.domain.${n.E}`);
  const extras = ent.fields.filter((f) => f.name !== 'name' && f.name !== 'status').slice(0, 3);
  useFields(u, extras);
  u.add([
    '/**',
    ` * Read model of ${an(n.e)} used by reporting.`,
    ' */',
    `data class ${n.E}View(`,
    '    val id: Long,',
    '    val name: String,',
    '    val status: String = "NEW",',
    ...extras.map((f) => `    val ${f.name}: ${KOTLIN_TYPE[f.type]}? = null,`),
    ') {',
    '    val isActive: Boolean',
    '        get() = status == "ACTIVE"',
    '',
    '    fun label(): String {',
    '        return "$name ($status)"',
    '    }',
    '}',
  ]);
  u.add([
    `data class ${n.E}Stats(`,
    '    val total: Long,',
    '    val byStatus: Map<String, Long> = emptyMap(),',
    ') {',
    '    fun share(status: String): Double {',
    '        val count = byStatus[status] ?: 0L',
    '        return if (total == 0L) 0.0 else count.toDouble() / total',
    '    }',
    '}',
  ]);
  u.add([
    `fun ${n.E}.toView(): ${n.E}View = ${n.E}View(`,
    '    id = id ?: 0L,',
    '    name = name ?: "",',
    '    status = status ?: "NEW",',
    ...extras.map((f) => `    ${f.name} = ${f.name},`),
    ')',
  ]);
  const optional: Array<() => Lines> = [
    () => [`enum class ${n.E}Bucket {`, '    SMALL,', '    MEDIUM,', '    LARGE,', '}'],
    () => [`fun List<${n.E}View>.activeOnly(): List<${n.E}View> = filter { it.isActive }`],
    () => [
      `fun List<${n.E}View>.toStats(): ${n.E}Stats {`,
      '    val byStatus = groupingBy { it.status }.eachCount().mapValues { it.value.toLong() }',
      `    return ${n.E}Stats(total = size.toLong(), byStatus = byStatus)`,
      '}',
    ],
    () => [`sealed interface ${n.E}Change {`, `    data class Renamed(val id: Long, val name: String) : ${n.E}Change`, '', `    data class StatusChanged(val id: Long, val from: String, val to: String) : ${n.E}Change`, '}'],
    () => [`fun ${n.E}View.withStatus(newStatus: String): ${n.E}View = copy(status = newStatus)`],
    () => [
      `object ${n.E}ViewFactory {`,
      `    fun empty(id: Long): ${n.E}View = ${n.E}View(id = id, name = "")`,
      '',
      `    fun named(id: Long, name: String): ${n.E}View {`,
      `        return ${n.E}View(id = id, name = name.trim(), status = "ACTIVE")`,
      '    }',
      '}',
    ],
    () => [
      `fun ${n.E}Stats.merge(other: ${n.E}Stats): ${n.E}Stats {`,
      '    val keys = byStatus.keys + other.byStatus.keys',
      '    val merged = keys.associateWith { (byStatus[it] ?: 0L) + (other.byStatus[it] ?: 0L) }',
      `    return ${n.E}Stats(total = total + other.total, byStatus = merged)`,
      '}',
    ],
    () => [
      `fun bucketOf(view: ${n.E}View, size: Int): ${n.E}Bucket {`,
      '    val weight = size + view.name.length',
      '    return when {',
      `        weight < 10 -> ${n.E}Bucket.SMALL`,
      `        weight < 100 -> ${n.E}Bucket.MEDIUM`,
      `        else -> ${n.E}Bucket.LARGE`,
      '    }',
      '}',
    ],
  ];
  return u.fill(target, optional, ktPadFunction(n.e)).render();
}

function renderKtReport(svc: Svc, ent: Ent, rng: Rng, target: number): string {
  const n = names(svc, ent);
  const cls = `${n.E}ReportService`;
  const u = new KotlinUnit(`${svc.pkg}.service`);
  u.use('org.slf4j.LoggerFactory', 'org.springframework.stereotype.Service', `${svc.pkg}.repo.${n.repo}`, `${svc.pkg}.dto.${n.E}Stats`, `${svc.pkg}.dto.${n.E}View`, `${svc.pkg}.dto.toView`);
  const body: Lines = [
    '@Service',
    `class ${cls}(`,
    `    private val ${n.repoVar}: ${n.repo},`,
    `    private val ${n.svcVar}: ${n.svc},`,
    ') {',
    `    private val log = LoggerFactory.getLogger(${cls}::class.java)`,
    '',
    `    fun stats(): ${n.E}Stats {`,
    `        val all = ${n.repoVar}.findAll()`,
    '        val byStatus = all.groupBy { it.status ?: "UNKNOWN" }.mapValues { (_, items) -> items.size.toLong() }',
    `        log.info("Computed stats for {} ${n.es}", all.size)`,
    `        return ${n.E}Stats(total = all.size.toLong(), byStatus = byStatus)`,
    '    }',
    '',
    `    fun activeViews(): List<${n.E}View> =`,
    `        ${n.repoVar}.findByStatus("ACTIVE")`,
    '            .map { it.toView() }',
    '            .sortedBy { it.name }',
    '',
    '    fun describe(id: Long): String {',
    `        val dto = ${n.svcVar}.get${n.E}(id)`,
    '        return "${dto.name} is ${dto.status}"',
    '    }',
  ];
  const extra: Array<() => Lines> = [
    () => ['    fun countActive(): Long {', `        return ${n.svcVar}.count${n.Es}("ACTIVE")`, '    }'],
    () => [
      '    fun namesByStatus(status: String, limit: Int = 20): List<String> {',
      `        val items = ${n.repoVar}.findByStatus(status)`,
      '        return items.mapNotNull { it.name }',
      '            .distinct()',
      '            .take(limit)',
      '    }',
    ],
    () => [
      '    fun safeDescribe(id: Long): String? =',
      '        try {',
      '            describe(id)',
      '        } catch (ex: IllegalArgumentException) {',
      '            log.warn("Cannot describe {}: {}", id, ex.message)',
      '            null',
      '        }',
    ],
    () => ['    fun statusesOf(ids: List<Long>): Map<Long, String> =', `        ids.associateWith { id -> ${n.svcVar}.get${n.E}(id).status ?: "UNKNOWN" }`],
    () => ['    private fun percent(part: Long, total: Long): Double = if (total == 0L) 0.0 else part * 100.0 / total'],
    () => ['    fun activePercent(): Double {', '        val stats = stats()', '        return percent(stats.byStatus["ACTIVE"] ?: 0L, stats.total)', '    }'],
    () => ['    companion object {', `        const val REPORT_NAME = "${n.e}-report"`, '', '        fun title(day: String): String = "$REPORT_NAME for $day"', '    }'],
  ];
  // The class body grows with members while the file is under target; pads go outside as top-level functions.
  let size = 3 + 8 + body.length + 1;
  for (const make of extra) {
    if (size >= target) break;
    const lines = make();
    body.push('', ...lines);
    size += lines.length + 1;
  }
  body.push('}');
  u.add(body);
  return u.fill(target, [], ktPadFunction(n.e)).render();
}

function renderKtFunctions(svc: Svc, ent: Ent, rng: Rng, target: number): string {
  const n = names(svc, ent);
  const u = new KotlinUnit(`${svc.pkg}.util`);
  u.use(`${svc.pkg}.domain.${n.E}`);
  const money = ent.fields.find((f) => f.type === 'BigDecimal');
  u.add([`const val ${ent.upper}_DEFAULT_STATUS = "NEW"`]);
  u.add([`private val ${ent.upper}_TERMINAL = setOf("CLOSED", "CANCELLED", "ARCHIVED")`]);
  u.add([`fun ${n.E}.isTerminal(): Boolean = status in ${ent.upper}_TERMINAL`]);
  u.add([`fun ${n.e}Key(id: Long): String = "${n.e}:$id"`]);
  u.add([`fun ${n.e}Key(id: Long, suffix: String): String = "\${${n.e}Key(id)}:$suffix"`]);
  const optional: Array<() => Lines> = [
    () => [`fun List<${n.E}>.activeCount(): Int = count { it.status == "ACTIVE" }`],
    () => [
      `fun describe${n.Es}(items: List<${n.E}>): String {`,
      '    val names = items.mapNotNull { it.name }',
      '    return names.joinToString(prefix = "[", postfix = "]", separator = ", ")',
      '}',
    ],
    () => [`object ${n.E}Defaults {`, '    const val PAGE_SIZE = 50', '', '    fun pageSize(requested: Int?): Int {', '        return requested?.coerceIn(1, 500) ?: PAGE_SIZE', '    }', '}'],
    ...(money
      ? [
          (): Lines => {
            u.use('java.math.BigDecimal');
            return [`fun List<${n.E}>.total${cap(money.name)}(): BigDecimal =`, `    mapNotNull { it.${money.name} }.fold(BigDecimal.ZERO) { acc, value -> acc + value }`];
          },
        ]
      : []),
    () => [
      `fun ${n.e}StatusLabel(status: String?): String =`,
      '    when (status) {',
      '        "NEW" -> "New"',
      '        "ACTIVE" -> "Active"',
      '        null -> "Unknown"',
      '        else -> status.lowercase().replaceFirstChar { it.uppercase() }',
      '    }',
    ],
    () => [`fun ${n.e}Slug(name: String?): String =`, `    name.orEmpty().lowercase().replace(Regex("[^a-z0-9]+"), "-").trim('-')`],
    () => [`fun ${n.e}Slug(name: String?, maxLength: Int): String = ${n.e}Slug(name).take(maxLength)`],
    () => [`fun Collection<${n.E}>.byStatus(): Map<String, List<${n.E}>> = groupBy { it.status ?: "UNKNOWN" }`],
    () => [`fun ${n.E}.displayName(): String {`, '    val base = name ?: "unnamed"', '    return if (isTerminal()) "$base (closed)" else base', '}'],
    () => [`inline fun <T> with${n.E}Timing(label: String, block: () -> T): T {`, '    val start = System.nanoTime()', '    try {', '        return block()', '    } finally {', '        println("$label took ${(System.nanoTime() - start) / 1_000_000} ms")', '    }', '}'],
  ];
  return u.fill(target, optional, ktPadFunction(n.e)).render();
}

function renderKtExtensions(svc: Svc, index: number, rng: Rng, target: number): string {
  const u = new KotlinUnit(`${svc.pkg}.util`);
  const p = `${svc.domain}Ext${index}`;
  u.add([`const val ${p.toUpperCase()}_VERSION = ${index + 1}`]);
  const optional: Array<() => Lines> = [
    () => [`fun String.${p}Slug(): String = lowercase().replace(Regex("[^a-z0-9]+"), "-").trim('-')`],
    () => [`fun String?.${p}OrDefault(default: String = "n/a"): String = if (isNullOrBlank()) default else this`],
    () => [`fun <T> List<T>.${p}Chunks(size: Int): List<List<T>> = chunked(size)`],
    () => [`fun ${p}Sum(values: List<Int>): Int = values.fold(0) { acc, v -> acc + v }`, '', `fun ${p}Sum(values: List<Long>, start: Long): Long = values.fold(start) { acc, v -> acc + v }`],
    () => [`class ${cap(p)}Counter {`, '    private var count = 0L', '', '    fun increment(): Long {', '        count += 1', '        return count', '    }', '}'],
  ];
  return u.fill(target, optional, ktPadFunction(p)).render();
}

// ------------------------------------------------------------------------------------------------ build files

function renderPom(svc: Svc): string {
  const kotlin = svc.kotlin
    ? [
        '        <dependency>',
        '            <groupId>org.jetbrains.kotlin</groupId>',
        '            <artifactId>kotlin-stdlib</artifactId>',
        '        </dependency>',
      ]
    : [];
  const deps = ['spring-boot-starter-web', 'spring-boot-starter-data-jpa', 'spring-boot-starter-validation'];
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<project xmlns="http://maven.apache.org/POM/4.0.0" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"',
    '         xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 https://maven.apache.org/xsd/maven-4.0.0.xsd">',
    '    <modelVersion>4.0.0</modelVersion>',
    '    <parent>',
    '        <groupId>org.springframework.boot</groupId>',
    '        <artifactId>spring-boot-starter-parent</artifactId>',
    '        <version>3.2.5</version>',
    '    </parent>',
    '    <groupId>com.bench</groupId>',
    `    <artifactId>${svc.appName}</artifactId>`,
    '    <version>1.0.0-SNAPSHOT</version>',
    `    <name>${svc.appName}</name>`,
    '    <properties>',
    '        <java.version>17</java.version>',
    '    </properties>',
    '    <dependencies>',
    ...deps.flatMap((d) => ['        <dependency>', '            <groupId>org.springframework.boot</groupId>', `            <artifactId>${d}</artifactId>`, '        </dependency>']),
    '        <dependency>',
    '            <groupId>org.springframework.kafka</groupId>',
    '            <artifactId>spring-kafka</artifactId>',
    '        </dependency>',
    '        <dependency>',
    '            <groupId>org.springframework.cloud</groupId>',
    '            <artifactId>spring-cloud-starter-openfeign</artifactId>',
    '        </dependency>',
    '        <dependency>',
    '            <groupId>org.projectlombok</groupId>',
    '            <artifactId>lombok</artifactId>',
    '            <optional>true</optional>',
    '        </dependency>',
    ...kotlin,
    '    </dependencies>',
    '</project>',
    '',
  ].join('\n');
}

function renderGradle(svc: Svc): string {
  return [
    'plugins {',
    '    java',
    ...(svc.kotlin ? ['    kotlin("jvm") version "1.9.23"', '    kotlin("plugin.spring") version "1.9.23"'] : []),
    '    id("org.springframework.boot") version "3.2.5"',
    '    id("io.spring.dependency-management") version "1.1.4"',
    '}',
    '',
    'group = "com.bench"',
    'version = "1.0.0-SNAPSHOT"',
    '',
    'java {',
    '    sourceCompatibility = JavaVersion.VERSION_17',
    '}',
    '',
    'repositories {',
    '    mavenCentral()',
    '}',
    '',
    'dependencies {',
    '    implementation("org.springframework.boot:spring-boot-starter-web")',
    '    implementation("org.springframework.boot:spring-boot-starter-data-jpa")',
    '    implementation("org.springframework.boot:spring-boot-starter-validation")',
    '    implementation("org.springframework.kafka:spring-kafka")',
    '    implementation("org.springframework.cloud:spring-cloud-starter-openfeign")',
    '    compileOnly("org.projectlombok:lombok")',
    '    annotationProcessor("org.projectlombok:lombok")',
    '}',
    '',
  ].join('\n');
}

function renderYaml(svc: Svc): string {
  return [
    'spring:',
    '  application:',
    `    name: ${svc.appName}`,
    '  datasource:',
    `    url: jdbc:postgresql://localhost:5432/${svc.domain}`,
    '  kafka:',
    '    bootstrap-servers: localhost:9092',
    'server:',
    `  port: ${8100 + svc.index}`,
    '',
  ].join('\n');
}

// ------------------------------------------------------------------------------------------------ files

function javaPath(svc: Svc, pkgSuffix: string, cls: string): string {
  return `${svc.dir}/src/main/java/com/bench/${svc.key}${pkgSuffix ? `/${pkgSuffix}` : ''}/${cls}.java`;
}
function kotlinPath(svc: Svc, pkgSuffix: string, name: string): string {
  return `${svc.dir}/src/main/kotlin/com/bench/${svc.key}/${pkgSuffix}/${name}.kt`;
}

/** Relative path and renderer of one planned file. */
function fileOf(svc: Svc, spec: FileSpec): { path: string; render: (rng: Rng, target: number) => string } {
  const ent = spec.ent!;
  const E = ent?.name;
  switch (spec.kind) {
    case 'app':
      return { path: javaPath(svc, '', `${svc.pascal}ServiceApplication`), render: (r, t) => renderApp(svc, r, t) };
    case 'config':
      return { path: javaPath(svc, 'config', `${svc.pascal}ServiceConfig`), render: (r, t) => renderConfig(svc, r, t) };
    case 'producer':
      return { path: javaPath(svc, 'messaging', `${svc.pascal}EventProducer`), render: (r, t) => renderProducer(svc, r, t) };
    case 'listener':
      return { path: javaPath(svc, 'messaging', `${svc.listenTo!.pascal}EventsListener`), render: (r, t) => renderListener(svc, r, t) };
    case 'feign':
      return { path: javaPath(svc, 'client', `${svc.feign!.svc.pascal}${svc.feign!.ent.name}Client`), render: (r, t) => renderFeign(svc, r, t) };
    case 'entity':
      return { path: javaPath(svc, 'domain', E), render: (r, t) => renderEntity(svc, ent, r, t) };
    case 'repo':
      return { path: javaPath(svc, 'repo', `${E}Repository`), render: (r, t) => renderRepo(svc, ent, r, t) };
    case 'service':
      return { path: javaPath(svc, 'service', `${E}Service`), render: (r, t) => renderServiceInterface(svc, ent, r, t) };
    case 'impl':
      return { path: javaPath(svc, 'service/impl', `${E}ServiceImpl`), render: (r, t) => renderImpl(svc, ent, r, t) };
    case 'controller':
      return { path: javaPath(svc, 'web', `${E}Controller`), render: (r, t) => renderController(svc, ent, r, t) };
    case 'dto':
      return { path: javaPath(svc, 'dto', `${E}Dto`), render: (r, t) => renderDto(svc, ent, r, t) };
    case 'request':
      return { path: javaPath(svc, 'dto', `Create${E}Request`), render: (r, t) => renderRequest(svc, ent, r, t) };
    case 'response':
      return { path: javaPath(svc, 'dto', `${E}Response`), render: (r, t) => renderResponse(svc, ent, r, t) };
    case 'mapper':
      return { path: javaPath(svc, 'service', `${E}Mapper`), render: (r, t) => renderMapper(svc, ent, r, t) };
    case 'validator':
      return { path: javaPath(svc, 'service', `${E}Validator`), render: (r, t) => renderValidator(svc, ent, r, t) };
    case 'query':
      return { path: javaPath(svc, 'service', `${E}QueryService`), render: (r, t) => renderQuery(svc, ent, r, t) };
    case 'utils':
      return { path: javaPath(svc, 'util', `${E}Utils`), render: (r, t) => renderUtils(svc.pkg, `${E}Utils`, ent.v, r, t) };
    case 'support': {
      const i = spec.n!;
      const base = SUPPORT_NAMES[i % SUPPORT_NAMES.length]!;
      const cls = i < SUPPORT_NAMES.length ? base : `${base}${Math.floor(i / SUPPORT_NAMES.length) + 1}`;
      return { path: javaPath(svc, 'util', cls), render: (r, t) => renderUtils(svc.pkg, cls, lowerFirst(base.replace('Support', '')), r, t) };
    }
    case 'ktViews':
      return { path: kotlinPath(svc, 'dto', `${E}Views`), render: (r, t) => renderKtViews(svc, ent, r, t) };
    case 'ktReport':
      return { path: kotlinPath(svc, 'service', `${E}ReportService`), render: (r, t) => renderKtReport(svc, ent, r, t) };
    case 'ktFunctions':
      return { path: kotlinPath(svc, 'util', `${E}Functions`), render: (r, t) => renderKtFunctions(svc, ent, r, t) };
    case 'ktExtensions':
      return { path: kotlinPath(svc, 'util', `${cap(svc.domain)}Extensions${spec.n!}`), render: (r, t) => renderKtExtensions(svc, spec.n!, r, t) };
  }
}

function countLines(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** Writes a deterministic synthetic Spring Boot estate into `dir` (created if missing). Same options → byte-identical tree. */
export async function generateEstate(dir: string, options: EstateOptions): Promise<EstateStats> {
  const opts: Required<EstateOptions> = {
    services: Math.max(1, Math.floor(options.services)),
    filesPerService: Math.max(1, Math.floor(options.filesPerService)),
    seed: options.seed ?? DEFAULT_SEED,
    kotlinShare: Math.min(1, Math.max(0, options.kotlinShare ?? DEFAULT_KOTLIN_SHARE)),
  };
  const services = plan(opts);
  const stats: EstateStats = { files: 0, javaFiles: 0, kotlinFiles: 0, lines: 0, bytes: 0, services: services.map((s) => s.appName) };
  for (const svc of services) {
    const files: Array<{ path: string; text: string }> = [
      { path: `${svc.dir}/${svc.gradle ? 'build.gradle.kts' : 'pom.xml'}`, text: svc.gradle ? renderGradle(svc) : renderPom(svc) },
      { path: `${svc.dir}/src/main/resources/application.yml`, text: renderYaml(svc) },
    ];
    for (const spec of svc.files) {
      const f = fileOf(svc, spec);
      const rng = new Rng(hash(opts.seed, f.path));
      // Skewed towards the lower end so the average is ~80 lines within [40, 150].
      const target = Math.round(MIN_LINES + 15 + Math.pow(rng.next(), 1.6) * 90);
      files.push({ path: f.path, text: f.render(rng, target) });
    }
    const dirs = new Set(files.map((f) => dirname(join(dir, f.path))));
    await Promise.all([...dirs].map((d) => mkdir(d, { recursive: true })));
    for (let i = 0; i < files.length; i += WRITE_BATCH) {
      await Promise.all(files.slice(i, i + WRITE_BATCH).map((f) => writeFile(join(dir, f.path), f.text)));
    }
    for (const f of files) {
      stats.files++;
      if (f.path.endsWith('.java')) stats.javaFiles++;
      else if (f.path.endsWith('.kt')) stats.kotlinFiles++;
      stats.lines += countLines(f.text);
      stats.bytes += Buffer.byteLength(f.text);
    }
  }
  return stats;
}

/**
 * Rewrites one generated file in a way that changes its graph (adds a method and a call) but keeps it valid;
 * returns its relative path. Used to time a one-file incremental re-index. `round` makes successive edits differ;
 * each edit replaces the previous one, so the file does not grow.
 */
export async function editOneFile(dir: string, round: number): Promise<string> {
  const rel = await pickEditTarget(dir);
  const file = join(dir, rel);
  const text = (await readFile(file, 'utf8')).replace(new RegExp(`\\n${EDIT_BEGIN}\\n[\\s\\S]*?\\n${EDIT_END}\\n`), '\n');
  const repo = /\b(\w+Repository)\s+(\w+);/.exec(text);
  const count = /public long (count\w+)\(String status\)/.exec(text);
  const r = Math.max(0, Math.floor(round));
  const body =
    repo && count
      ? [
          `    public long benchProbe${r}(String tag) {`,
          `        long total = ${count[1]!}("PROBE_${r}") + ${repo[2]!}.count();`,
          `        log.info("Probe {} round ${r}: {}", tag, total);`,
          `        return total + ${r};`,
          '    }',
        ]
      : [`    public static String benchProbe${r}(String tag) {`, `        return String.valueOf(tag).concat("-${r}");`, '    }'];
  const end = text.lastIndexOf('}');
  if (end < 0) throw new Error(`editOneFile: ${rel} has no closing brace`);
  const block = ['', EDIT_BEGIN, ...body, EDIT_END, ''].join('\n');
  await writeFile(file, `${text.slice(0, end).replace(/\n+$/, '\n')}${block}${text.slice(end)}`);
  return rel;
}

/** The first service implementation of the first service, else the first Java file found (sorted walk). */
async function pickEditTarget(dir: string): Promise<string> {
  const services = (await readdir(dir, { withFileTypes: true })).filter((d) => d.isDirectory() && d.name.startsWith('svc-')).map((d) => d.name).sort();
  for (const svc of services) {
    const impl = join(dir, svc, 'src/main/java/com/bench', svc.replace('-', ''), 'service/impl');
    const names = await readdir(impl).catch(() => [] as string[]);
    const first = names.filter((f) => f.endsWith('.java')).sort()[0];
    if (first) return `${svc}/src/main/java/com/bench/${svc.replace('-', '')}/service/impl/${first}`;
  }
  const walk = async (rel: string): Promise<string | undefined> => {
    const entries = (await readdir(join(dir, rel), { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
    for (const e of entries) {
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (e.isFile() && e.name.endsWith('.java')) return child;
      if (e.isDirectory()) {
        const found = await walk(child);
        if (found) return found;
      }
    }
    return undefined;
  };
  const found = await walk('');
  if (!found) throw new Error(`editOneFile: no Java file under ${dir}`);
  return found;
}

// ------------------------------------------------------------------------------------------------ CLI

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href;
if (invokedDirectly) {
  const [dir, services, filesPerService, seed, kotlinShare] = process.argv.slice(2);
  if (!dir || !services || !filesPerService) {
    process.stderr.write('usage: node dist-bench/bench/estate.js <dir> <services> <filesPerService> [seed] [kotlinShare]\n');
    process.exit(2);
  }
  const started = performance.now();
  const stats = await generateEstate(dir, {
    services: Number(services),
    filesPerService: Number(filesPerService),
    ...(seed !== undefined ? { seed: Number(seed) } : {}),
    ...(kotlinShare !== undefined ? { kotlinShare: Number(kotlinShare) } : {}),
  });
  process.stdout.write(`${JSON.stringify({ ...stats, ms: Math.round(performance.now() - started) }, null, 2)}\n`);
}
