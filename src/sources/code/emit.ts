import { nodeId } from '../../graph/ids.js';
import type { Ontology } from '../../graph/ontology/index.js';
import type { EdgeRecord, NodeRecord, PropValue } from '../../graph/types.js';
import { CallResolver, exprText, type ResolvedCall } from './model/calls.js';
import { resolveInjections } from './model/inject.js';
import { interfaceOf, mentionsAny, namesOf, type InterfaceItems } from './model/interface.js';
import type { AnnotationFacts, CallFacts, Expr, FileFacts, MemberFacts } from './parse/ir.js';
import { type DeploymentOnly, hostIndex, isOutsideHostTemplate, type LayoutProxy, type ServiceInfo } from './config/layout.js';
import type { CdcConnector, NginxServer } from './config/deployment.js';
import { cdcGraph } from './links/cdc.js';
import { proxyGraph } from './links/proxies.js';
import { CodeModel, type MemberEntry, type Placement, simpleTypeName, type TypeEntry, type TypeTarget, typeText } from './model/model.js';
import { type RoleOverrides, TypeClassifier } from './model/roles.js';
import type { CodeLinkPins } from '../../config/types.js';
import { feignClientsOf, httpExchangeClientsOf, requestLineClientsOf, type UrlOf } from './links/clients.js';
import { ConfigView } from './eval/config.js';
import { render } from './eval/value.js';
import type { HttpTarget } from './links/http-calls.js';
import { LIBRARY } from './eval/library.js';
import { outboundGraph, type OutboundSink, urlTarget, withClientBase } from './links/outbound.js';
import { gatewayGraph } from './links/gateways.js';
import { axonGraph } from './links/axon.js';
import { type GeneratedApiOperation, generatedRoutesOf, operationsByInterface } from './links/openapi.js';
import { listenersOf, streamBinding, streamFunctionsOf } from './links/messaging.js';
import { annotatedHandlersOf } from './links/eventuate.js';
import { pathPattern } from '../../graph/ontology/code.js';
import { Constants, functionalRoutesOf, joinPath, type Part, pathRegex, routesOf, unresolvedPart } from './links/routes.js';
import { type BuildGraph, type BuildInput, buildGraph } from './build/files.js';
import { buildGraphOnce, type RecalledBuildGraph } from './build/recall.js';
import { passDigests } from './pass-digests.js';
import { buildFactsOf, type FrameworkRoute, frameworkRoutes } from './links/framework-routes.js';
import { USE_ATTRS, usesOf, viasOf } from './model/uses.js';
import { skipWarning } from './warnings.js';
import { matchClients, matchProducers, pinLinks, routePatternWarnings, Topology } from './links/match.js';

export interface CodeGraphInput {
  source: string;
  files: readonly FileFacts[];
  services: readonly ServiceInfo[];
  locate: (path: string) => Placement;
  overrides?: RoleOverrides;
  /** sextant.yaml `links`: targets and destinations the source cannot reveal. */
  links?: CodeLinkPins;
  /** nginx proxy rules of the estate's deployment, and their server blocks. */
  proxies?: readonly LayoutProxy[];
  proxyServers?: readonly NginxServer[];
  /** Debezium connectors of the estate's deployment. */
  connectors?: readonly CdcConnector[];
  /** Build files and configuration texts: dependency and config_key nodes. */
  build?: BuildInput;
  /** Operations of the OpenAPI specs the estate's builds generate server interfaces from. */
  generatedApis?: readonly GeneratedApiOperation[];
  /** Images the estate's deployment runs without their source here: services once something calls them. */
  deploymentOnly?: readonly DeploymentOnly[];
}

export interface CodeGraphStats {
  files: number;
  files_with_errors: number;
  types: number;
  members: number;
  external_symbols: number;
  calls: number;
  calls_external: number;
  calls_unresolved: number;
  injects: number;
  /** USES edges (member and type level). */
  uses: number;
  routes: number;
  clients: number;
  producers: number;
}

export interface CodeGraph {
  nodes: NodeRecord[];
  edges: EdgeRecord[];
  stats: CodeGraphStats;
  /** After an update: the only file groups (node `file`, '' for none) whose nodes or edges may differ from the last assembly. */
  changedGroups?: Set<string>;
  /**
   * After an update that left files' rows unread (restored emissions, see {@link FileEmission.rows}): `nodes` and
   * `edges` hold only what writing `changedGroups` needs, and this makes the whole graph.
   */
  whole?: { nodes: number; edges: number; make: () => { nodes: NodeRecord[]; edges: EdgeRecord[] } };
  /** Files emitted by this assembly (all of them on a full one). */
  emitted: number;
  /** What the user should know (a pinned link that matches nothing). */
  warnings: string[];
  /** Seconds spent evaluating files (model, per-file emission) and linking the estate (its estate-wide passes). */
  seconds: { evaluate: number; link: number };
}

type EmissionStats = Pick<CodeGraphStats, 'types' | 'members' | 'calls' | 'calls_external' | 'calls_unresolved' | 'injects' | 'uses' | 'routes' | 'clients' | 'producers'>;

/** What one file contributes to the graph. Plain data, so it stays valid when the model is rebuilt. */
interface FileEmission {
  /** With `rows`: only the nodes the estate-wide passes read (routes, clients, producers: not {@link ROW_KINDS}). */
  nodes: NodeRecord[];
  /** Edges leaving this file's nodes (with `rows`: none, they are there). */
  edges: EdgeRecord[];
  /**
   * Of an emission restored from another process: its symbols and unresolved calls and its edges, as JSON text
   * (`{"nodes", "edges"}`) read and parsed only when they are written (see {@link rowsOf}), with their ids and the
   * edge count. No estate-wide pass reads them, and an update writes few files. The text is `json`, or what `text`
   * reads (from where the assembly cache keeps it, `at`).
   */
  rows?: StoredRows & { text?: () => string; parsed?: { nodes: NodeRecord[]; edges: EdgeRecord[] } };
  /** Edges leaving another file's node (an implementation inherited from a superclass), with that file. */
  foreign: { group: string; edge: EdgeRecord }[];
  /** Library types referred to, and whether as an interface. */
  externalTypes: Map<string, boolean>;
  /** Library methods called: `owner#name` → [owner, name]. */
  externalMethods: Map<string, [string, string]>;
  /** Library methods called on a project type that inherits them: `type#name` → the type and the library method. */
  inheritedMethods: Map<string, { type: RecordedType; owner: string; name: string }>;
  stats: EmissionStats;
  /** Call sites that send HTTP requests: their clients are evaluated for the whole estate after every file is emitted. */
  sinks: OutboundSink[];
  /** What other files can observe of this one (kept only by an assembler that updates). */
  items?: InterfaceItems;
  /** Steps skipped on code they could not read, each naming `file:line`. */
  warnings: string[];
}

/** Node kinds an emission keeps as text when stored (see {@link FileEmission.rows}): most of its bytes. */
const ROW_KINDS: ReadonlySet<string> = new Set(['symbol', 'unresolved_call']);

/** A stored emission's rows: their JSON text, or its place in a file the cache keeps ([offset, length]). */
export interface StoredRows {
  json?: string;
  at?: [number, number];
  ids: string[];
  edges: number;
}

/** An emission's nodes kept as text (none when it keeps none) and its edges, parsed once. */
function rowsOf(e: FileEmission): { nodes: readonly NodeRecord[]; edges: readonly EdgeRecord[] } {
  if (!e.rows) return { nodes: [], edges: e.edges };
  return (e.rows.parsed ??= JSON.parse(rowsText(e.rows)) as { nodes: NodeRecord[]; edges: EdgeRecord[] });
}

function rowsText(rows: NonNullable<FileEmission['rows']>): string {
  const text = rows.json ?? rows.text?.();
  if (text === undefined) throw new Error('an emission restored without its rows (a Sextant bug)');
  return text;
}

/** A file's emission as JSON-ready data, its symbols, unresolved calls and edges as text (see {@link FileEmission.rows}). */
export interface StoredEmission extends Omit<FileEmission, 'externalTypes' | 'externalMethods' | 'inheritedMethods' | 'items'> {
  externalTypes: [string, boolean][];
  externalMethods: [string, [string, string]][];
  inheritedMethods: [string, { type: RecordedType; owner: string; name: string }][];
  items?: [string, string[]][];
}

/** What an assembler keeps across assemblies besides the emissions. */
export interface StoredAssemblyState {
  packages: string[];
  outboundFiles: string[];
  buildFiles: string[];
}

/** A project type as an emission records it: what places a node on it, should the model no longer have it. */
interface RecordedType {
  qn: string;
  place: Placement;
  line: number;
  path: string;
  language: FileFacts['language'];
  package: string;
}

/** Ids of one file's nodes: identities include the file path, so duplicates can only collide within a file. */
class FileIds {
  readonly used = new Set<string>();
  readonly types = new Map<TypeEntry, string>();
  readonly members = new Map<MemberEntry, string>();
}

/** Turns the facts of every file into the code graph: symbols, services, and the edges the resolvers find. */
export function assembleCodeGraph(ontology: Ontology, input: CodeGraphInput): CodeGraph {
  return new CodeGraphAssembler(ontology, input.source).assemble(input);
}

/**
 * Assembles the code graph file by file. Kept across builds (`index --watch`), it re-emits only the files an
 * update can change: the changed ones, then every file that names something whose observable shape (type,
 * supertypes, traits, member signature, field) changed, until nothing more changes. The result equals a full
 * assembly of the same files.
 */
export class CodeGraphAssembler {
  private readonly emissions = new Map<string, FileEmission>();
  private readonly names = new WeakMap<FileFacts, Set<string>>();
  /** Packages of the last assembly. */
  private packages = new Set<string>();
  private assembled = false;
  /** Files that held clients of outbound call sites in any assembly so far: an update re-writes them all. */
  private outboundFiles = new Set<string>();
  /** Build and configuration files that held dependency or config_key nodes in any assembly so far: rewritten on every update that reads them again. */
  private buildFiles = new Set<string>();
  /** The last assembly's build graph and what it was made from (see build/recall.ts). */
  private buildRecall: RecalledBuildGraph | undefined;
  /** The build graph a restored state holds, as read: taken only when it checks out (see build/recall.ts). */
  private restoredBuildGraph: unknown;
  /** Whether the last assembly took its build graph from the one before (its nodes are then as written). */
  private buildReused = false;
  /** What the estate-wide passes left in each group at the last assembly (see pass-digests.ts), when known. */
  private digests: Map<string, string> | undefined;

  /** How the last assembly got its build graph: taken from the one before, read again, or none (no build files). */
  get buildGraphFrom(): 'recalled' | 'read' | undefined {
    return this.buildRecall ? (this.buildReused ? 'recalled' : 'read') : undefined;
  }

  constructor(
    private readonly ontology: Ontology,
    private readonly source: string,
    /** Keep what each file exposes, so later updates can be partial. */
    private readonly tracking = false,
    /** Updates will come in this process: what each file names is read ahead, so the first costs what any other does. */
    private readonly warm = tracking,
  ) {}

  /** Files the last assembly emitted (or dropped, when gone). */
  readonly emittedPaths = new Set<string>();
  /** The last assembly's context: its model reads what a file shows others when that is asked for later. */
  private last: EmitContext | undefined;

  hasEmission(path: string): boolean {
    return this.emissions.has(path);
  }

  /**
   * A file's emission as JSON-ready data (maps as entry lists), to restore in another process, with what the file
   * shows other files (read now from the last assembly's model when that assembly did not keep it).
   */
  storedEmission(path: string): StoredEmission | undefined {
    const e = this.emissions.get(path);
    if (!e) return undefined;
    const { externalTypes, externalMethods, inheritedMethods, items: kept, ...rest } = e;
    const ctx = this.last;
    const items = kept ?? (this.tracking && ctx ? interfaceOf(ctx.model, ctx.classifier, ctx.byFile.get(path) ?? []) : undefined);
    if (rest.rows) rest.rows = { json: rowsText(rest.rows), ids: rest.rows.ids, edges: rest.rows.edges };
    else {
      const rows = rest.nodes.filter((n) => ROW_KINDS.has(n.kind));
      rest.rows = { json: JSON.stringify({ nodes: rows, edges: rest.edges }), ids: rows.map((n) => n.id), edges: rest.edges.length };
      rest.nodes = rest.nodes.filter((n) => !ROW_KINDS.has(n.kind));
      rest.edges = [];
    }
    return { ...rest, externalTypes: [...externalTypes], externalMethods: [...externalMethods], inheritedMethods: [...inheritedMethods], ...(items ? { items: [...items] } : {}) };
  }

  /** The build graph of the last assembly and what it was made from, JSON-ready: the very object restored when it was reused. */
  storedBuildGraph(): RecalledBuildGraph | undefined {
    return this.buildRecall;
  }

  /** What the estate-wide passes left in each group at the last assembly, digested, when known. */
  storedDigests(): ReadonlyMap<string, string> | undefined {
    return this.digests;
  }

  /** What the assembler keeps besides emissions, JSON-ready. */
  storedState(): StoredAssemblyState {
    return { packages: [...this.packages].sort(), outboundFiles: [...this.outboundFiles].sort(), buildFiles: [...this.buildFiles].sort() };
  }

  /**
   * Takes up where an assembler of another process left off (its emissions of every file and its state), so the
   * next `assemble` with the changed paths updates it as an assembler kept in memory would.
   */
  restore(emissions: ReadonlyMap<string, StoredEmission>, state: StoredAssemblyState, readRows?: (at: [number, number]) => string, buildGraph?: unknown, digests?: ReadonlyMap<string, string>): void {
    if (!this.tracking) throw new Error('only a tracking assembler can be restored');
    this.emissions.clear();
    for (const [path, e] of emissions) {
      const { externalTypes, externalMethods, inheritedMethods, items, rows, ...rest } = e;
      // Its own rows object: parsing fills it in, and the stored entry, saved again as it is, must stay text.
      const at = rows?.at;
      this.emissions.set(path, { ...rest, ...(rows ? { rows: { ...rows, ...(at && readRows ? { text: () => readRows(at) } : {}) } } : {}), externalTypes: new Map(externalTypes), externalMethods: new Map(externalMethods), inheritedMethods: new Map(inheritedMethods), ...(items ? { items: new Map(items) } : {}) });
    }
    this.packages = new Set(state.packages);
    this.outboundFiles = new Set(state.outboundFiles);
    this.buildFiles = new Set(state.buildFiles);
    this.buildRecall = undefined;
    this.restoredBuildGraph = buildGraph;
    this.digests = digests ? new Map(digests) : undefined;
    this.assembled = true;
  }

  /** Everything when `changed` is absent (or on the first call); else an update after these paths changed or vanished. */
  assemble(input: CodeGraphInput, changed?: ReadonlySet<string>): CodeGraph {
    const started = performance.now();
    const model = new CodeModel(input.files, input.locate);
    const byFile = new Map<string, TypeEntry[]>();
    for (const f of input.files) byFile.set(f.path, []);
    for (const entry of model.types) byFile.get(entry.file.path)!.push(entry);
    const ctx: EmitContext = { ontology: this.ontology, input, generatedApis: operationsByInterface(input.generatedApis ?? []), model, classifier: new TypeClassifier(model, input.overrides), resolver: new CallResolver(model), ids: new Map(), byFile, constants: new Map() };
    const present = new Set(byFile.keys());
    const partial = this.tracking && this.assembled && changed !== undefined;
    const groups = new Set<string>();
    let emitted = 0;
    this.emittedPaths.clear();
    this.last = this.warm ? undefined : ctx;
    const emit = (path: string): { before?: InterfaceItems; after?: InterfaceItems } => {
      this.emittedPaths.add(path);
      const old = this.emissions.get(path);
      if (old) for (const f of old.foreign) groups.add(f.group);
      groups.add(path);
      emitted++;
      if (!present.has(path)) {
        this.emissions.delete(path);
        return old?.items ? { before: old.items } : {};
      }
      let next: FileEmission;
      try {
        next = new FileEmitter(ctx, byFile.get(path)!).run();
      } catch (err) {
        next = emptyEmission(skipWarning(`${path}:${byFile.get(path)![0]?.facts.line ?? 0}`, 'the file', err));
      }
      // A full assembly in a process that will not update again leaves it to be read when saved (storedEmission).
      if (this.tracking && (partial || this.warm)) next.items = interfaceOf(ctx.model, ctx.classifier, byFile.get(path)!);
      for (const f of next.foreign) groups.add(f.group);
      this.emissions.set(path, next);
      return { ...(old?.items ? { before: old.items } : {}), ...(next.items ? { after: next.items } : {}) };
    };
    if (!partial) {
      this.emissions.clear();
      for (const path of present) emit(path);
      // Ready for the first update, which then costs what any other does.
      if (this.warm) for (const f of input.files) if (!this.names.has(f)) this.names.set(f, namesOf(f));
    } else {
      const done = new Set<string>();
      let queue = [...new Set([...changed, ...[...this.emissions.keys()].filter((p) => !present.has(p))])].filter((p) => present.has(p) || this.emissions.has(p));
      // A package that appears or vanishes changes how other files read imports of it (project or library).
      const packages = new Set(input.files.map((f) => f.package));
      let touched = new Set<string>();
      for (const p of [...packages].filter((x) => !this.packages.has(x)).concat([...this.packages].filter((x) => !packages.has(x)))) touched.add(p.slice(p.lastIndexOf('.') + 1));
      while (queue.length) {
        for (const path of queue) {
          done.add(path);
          const { before, after } = emit(path);
          for (const name of changedNames(before, after)) touched.add(name);
        }
        queue = touched.size ? input.files.filter((f) => !done.has(f.path) && this.mentions(f, touched)).map((f) => f.path) : [];
        touched = new Set<string>();
      }
    }
    this.packages = new Set(input.files.map((f) => f.package));
    this.assembled = true;
    const evaluated = performance.now();
    const { unread, rest, span, ...graph } = this.flatten(ctx, partial);
    // What the passes left in each group, to tell next time which groups they changed (an assembler that updates).
    const known = this.digests;
    if (this.tracking) {
      const rowGroups = new Map<string, string>();
      for (const path of unread) for (const id of this.emissions.get(path)!.rows?.ids ?? []) rowGroups.set(id, path);
      const passNode = (n: NodeRecord, i: number): boolean => i < span[0] || i >= span[1] || !ROW_KINDS.has(n.kind);
      this.digests = passDigests(graph, passNode, rest, (id) => rowGroups.get(id), known?.keys() ?? []);
    }
    const seconds = { evaluate: (evaluated - started) / 1000, link: (performance.now() - evaluated) / 1000 };
    if (partial && known && this.digests) {
      // The groups the passes left as they were are as written, unless their file was emitted again.
      for (const [g, digest] of this.digests) if (known.get(g) !== digest) groups.add(g);
      if (unread.length) return { ...graph, ...this.withRows(graph, input.files, unread, groups, rest), emitted, seconds, changedGroups: groups };
    } else if (partial) {
      // Service nodes (file counts) and library symbols are recomputed from every file on each assembly.
      groups.add('');
      // Service nodes (file counts) and the matching of clients and producers to routes are recomputed on every assembly.
      for (const n of graph.nodes) if (n.kind === 'service' || n.kind === 'client' || n.kind === 'producer') groups.add(n.file ?? '');
      // So are members types inherit from libraries, which any caller's file can add (in the declaring type's group).
      for (const n of graph.nodes) if (n.props.inherited_from !== undefined) groups.add(n.file ?? '');
      for (const f of this.outboundFiles) groups.add(f);
      if (!this.buildReused) for (const f of this.buildFiles) groups.add(f);
      if (unread.length) return { ...graph, ...this.withRows(graph, input.files, unread, groups, rest), emitted, seconds, changedGroups: groups };
    }
    return { ...graph, emitted, seconds, ...(partial ? { changedGroups: groups } : {}) };
  }

  /**
   * The graph of an update whose flatten left restored emissions' rows unread (`unread`): the rows of the groups it
   * writes added, edges from the others' nodes dropped (those groups are not written), and the whole graph made when
   * a store asks for it. `rest`: the edges after every emission's own, in `graph.edges`.
   */
  private withRows(graph: { nodes: NodeRecord[]; edges: EdgeRecord[] }, files: readonly FileFacts[], unread: readonly string[], groups: ReadonlySet<string>, rest: number): Pick<CodeGraph, 'nodes' | 'edges' | 'whole'> {
    const nodes = [...graph.nodes];
    const head: EdgeRecord[] = [];
    const elsewhere = new Set<string>();
    const size = { nodes: graph.nodes.length, edges: graph.edges.length };
    for (const path of unread) {
      const e = this.emissions.get(path)!;
      if (!e.rows) continue;
      size.nodes += e.rows.ids.length;
      size.edges += e.rows.edges;
      if (groups.has(path)) {
        const rows = rowsOf(e);
        nodes.push(...rows.nodes);
        head.push(...rows.edges);
      } else for (const id of e.rows.ids) elsewhere.add(id);
    }
    let made: { nodes: NodeRecord[]; edges: EdgeRecord[] } | undefined;
    // Every node, and the edges in the order a full assembly gives them: each file's own, in file order, then the rest.
    const make = (): { nodes: NodeRecord[]; edges: EdgeRecord[] } => {
      if (made) return made;
      const all = [...nodes];
      for (const path of unread) if (!groups.has(path)) all.push(...rowsOf(this.emissions.get(path)!).nodes);
      const edges: EdgeRecord[] = [];
      for (const f of files) for (const x of rowsOf(this.emissions.get(f.path)!).edges) edges.push(x);
      for (let i = rest; i < graph.edges.length; i++) edges.push(graph.edges[i]!);
      return (made = { nodes: all, edges });
    };
    return { nodes, edges: [...head, ...graph.edges.filter((x) => !elsewhere.has(x.from))], whole: { ...size, make } };
  }

  private mentions(file: FileFacts, names: ReadonlySet<string>): boolean {
    let own = this.names.get(file);
    // A process that will not update again reads a file's names only when it may mention one of these.
    if (!own && !this.warm) return mentionsAny(file, names);
    if (!own) this.names.set(file, (own = namesOf(file)));
    for (const n of names) if (own.has(n)) return true;
    return false;
  }

  /**
   * Services, every file's emission, and the library symbols they refer to, in file order. With `partial` (an update,
   * which writes only some groups), restored emissions' rows stay unread: their paths are `unread`, and `rest` is where
   * the edges after every emission's own begin. `span`: where the emissions' nodes lie in `nodes` (the services come
   * before, what the estate-wide passes make after).
   */
  private flatten(ctx: EmitContext, partial = false): Omit<CodeGraph, 'emitted' | 'changedGroups' | 'warnings' | 'seconds'> & { warnings: string[]; unread: string[]; rest: number; span: [number, number] } {
    const { input } = ctx;
    const nodes: NodeRecord[] = emitServices(ctx);
    const edges: EdgeRecord[] = [];
    const stats: CodeGraphStats = { files: input.files.length, files_with_errors: input.files.filter((f) => f.parseErrors > 0).length, types: 0, members: 0, external_symbols: 0, calls: 0, calls_external: 0, calls_unresolved: 0, injects: 0, uses: 0, routes: 0, clients: 0, producers: 0 };
    const externalTypes = new Map<string, boolean>();
    const externalMethods = new Map<string, [string, string]>();
    const inheritedMethods = new Map<string, { type: RecordedType; owner: string; name: string }>();
    const foreign = new Map<string, { group: string; edge: EdgeRecord }>();
    const sinks: OutboundSink[] = [];
    const warnings: string[] = [];
    const unread: string[] = [];
    const servicesEnd = nodes.length;
    for (const f of input.files) {
      const e = this.emissions.get(f.path)!;
      warnings.push(...e.warnings);
      sinks.push(...e.sinks);
      for (const n of e.nodes) nodes.push(n);
      if (e.rows && partial) unread.push(f.path);
      else {
        const rows = rowsOf(e);
        for (const n of rows.nodes) nodes.push(n);
        for (const x of rows.edges) edges.push(x);
      }
      for (const x of e.foreign) foreign.set(`${x.edge.from}\0${x.edge.type}\0${x.edge.to}`, x);
      for (const [qn, iface] of e.externalTypes) externalTypes.set(qn, (externalTypes.get(qn) ?? false) || iface);
      for (const [k, v] of e.externalMethods) externalMethods.set(k, v);
      for (const [k, v] of e.inheritedMethods) inheritedMethods.set(k, v);
      for (const k of Object.keys(e.stats) as (keyof EmissionStats)[]) stats[k] += e.stats[k];
    }
    const rest = edges.length;
    const span: [number, number] = [servicesEnd, nodes.length];
    if (foreign.size) {
      // An inherited implementation can be found from several subclasses, or by the superclass itself.
      const keyless = new Map<string, Set<string>>();
      for (const { group, edge } of foreign.values()) {
        let own = keyless.get(group);
        const target = this.emissions.get(group);
        if (!own) keyless.set(group, (own = new Set((target ? rowsOf(target).edges : []).filter((x) => x.key === undefined).map((x) => `${x.from}\0${x.type}\0${x.to}`))));
        if (!own.has(`${edge.from}\0${edge.type}\0${edge.to}`)) edges.push(edge);
      }
    }
    for (const [owner] of externalMethods.values()) if (!externalTypes.has(owner)) externalTypes.set(owner, false);
    const externalIds = new Map<string, string>();
    for (const qn of [...externalTypes.keys()].sort()) {
      const id = nodeId(this.ontology, input.source, 'symbol', `ext|${qn}`);
      externalIds.set(qn, id);
      const cut = qn.lastIndexOf('.');
      nodes.push({
        id,
        kind: 'symbol',
        name: qn.slice(cut + 1),
        qualified_name: qn,
        source: input.source,
        props: { symbol_kind: externalTypes.get(qn) ? 'interface' : 'class', package: packageGuess(qn), resolved: false, modifiers: [], annotations: [], capabilities: [] },
      });
    }
    for (const key of [...externalMethods.keys()].sort()) {
      const [owner, name] = externalMethods.get(key)!;
      const id = externalMethodId(this.ontology, input.source, owner, name);
      nodes.push({
        id,
        kind: 'symbol',
        name,
        qualified_name: `${owner}#${name}(?)`,
        source: input.source,
        props: { symbol_kind: name === '<init>' ? 'constructor' : 'method', package: packageGuess(owner), declaring_type: owner, resolved: false, modifiers: [], annotations: [] },
      });
      edges.push({ type: 'DECLARES', from: externalIds.get(owner)!, to: id });
    }
    // A library method the estate calls on a project type is that type's member too (`OwnerRepository#save(?)`):
    // its callers are the type's callers, in every walk.
    for (const key of [...inheritedMethods.keys()].sort()) {
      const { type: recorded, owner, name } = inheritedMethods.get(key)!;
      // An emission kept from an earlier build holds that build's type: the one the model has now, if it still does.
      const current = ctx.model.typeByQn(recorded.qn, recorded.place);
      const type: RecordedType = current ? { qn: current.qn, place: current.place, line: current.facts.line, path: current.file.path, language: current.file.language, package: current.file.package } : recorded;
      const id = inheritedMethodId(this.ontology, input.source, type.qn, name);
      nodes.push({
        id,
        kind: 'symbol',
        name,
        qualified_name: `${type.qn}#${name}(?)`,
        source: input.source,
        service: type.place.service,
        module: type.place.module,
        file: type.path,
        ...(type.line > 0 ? { line: type.line } : {}),
        props: { symbol_kind: 'method', language: type.language, package: type.package, declaring_type: type.qn, inherited_from: owner, resolved: false, modifiers: [], annotations: [] },
      });
      const declaring = current ? fileIds(ctx, current.file.path).types.get(current) : undefined;
      if (declaring) edges.push({ type: 'DECLARES', from: declaring, to: id });
    }
    stats.external_symbols = externalTypes.size + externalMethods.size;
    const hosts = hostIndex([...input.services, ...(input.deploymentOnly ?? [])]);
    const knownHost = (host: string): boolean => hosts.has(host);
    const owners = [...input.services, ...(input.deploymentOnly ?? [])];
    const outsideHost = (template: string): boolean => isOutsideHostTemplate(template, owners);
    const outbound = outboundGraph({ ontology: this.ontology, source: input.source, model: ctx.model, resolver: ctx.resolver, services: input.services, sinks, memberId: (m) => memberId(ctx, m), knownHost, outsideHost });
    warnings.push(...outbound.warnings);
    // An estate-wide pass that fails on something it cannot read loses its own facts, said, never the index.
    const pass = <T>(what: string, run: () => T, fallback: T): T => {
      try {
        return run();
      } catch (err) {
        warnings.push(skipWarning(input.source, what, err));
        return fallback;
      }
    };
    // Interfaces whose proxies code builds on a base URL (HttpServiceProxyFactory, Feign builders) call there; the
    // others say why their target is unknown.
    nodes.forEach((n, i) => {
      if (n.kind !== 'client' || n.props.target_service !== undefined || (n.props.framework !== 'http_exchange' && n.props.framework !== 'feign')) return;
      const bases = outbound.clientBases.get(String(n.props.caller).split('#')[0]!);
      if (bases) nodes[i] = withClientBase(n, bases, knownHost, outsideHost);
      else if (n.props.unresolved_reason === undefined) nodes[i] = { ...n, props: { ...n.props, unresolved_reason: 'the interface names no URL, and no code in the estate builds it on a base URL' } };
    });
    nodes.push(...outbound.nodes);
    edges.push(...outbound.edges);
    const axon = pass('axon messaging', () => axonGraph({ ontology: this.ontology, source: input.source, model: ctx.model, resolver: ctx.resolver, services: input.services, memberId: (m) => memberId(ctx, m), ...(input.build ? { build: input.build } : {}), bindings: outbound.bindings }), { nodes: [], edges: [], warnings: [], calls: [] });
    nodes.push(...axon.nodes);
    edges.push(...axon.edges);
    warnings.push(...axon.warnings);
    for (const n of [...outbound.nodes, ...axon.nodes]) {
      if (n.kind === 'client') stats.clients++;
      else if (n.kind === 'producer') stats.producers++;
      else if (n.kind === 'route') stats.routes++;
    }
    this.outboundFiles = new Set([...this.outboundFiles, ...outbound.files]);
    // Build files before gateways and proxies: what a service depends on says which routes frameworks serve for it
    // (Actuator, Data REST), and those are routes a gateway forwards to like any other.
    const build = input.build;
    let built: BuildGraph | undefined;
    this.buildReused = false;
    if (build) {
      const once = buildGraphOnce(this.buildRecall ?? this.restoredBuildGraph, { source: input.source, services: input.services, locate: input.locate, build }, (locate) => {
        try {
          return buildGraph(this.ontology, input.source, input.services, locate, build);
        } catch (err) {
          return { nodes: [], edges: [], warnings: [skipWarning(input.source, 'build files', err)] };
        }
      });
      built = once.graph;
      this.buildRecall = once.recall;
      this.buildReused = once.reused;
    } else this.buildRecall = undefined;
    this.restoredBuildGraph = undefined;
    const facts = built && build ? buildFactsOf(built, this.ontology, input.source, input.services, build.texts) : undefined;
    const framework = pass('framework routes', () => frameworkRoutes({ model: ctx.model, services: input.services, dependencies: facts?.dependencies ?? (() => []), ...(facts ? { declaredAt: facts.declaredAt, bootVersion: facts.bootVersion } : {}) }), { routes: [], warnings: [] });
    warnings.push(...framework.warnings);
    for (const r of framework.routes) {
      const node = frameworkRouteNode(this.ontology, input, ctx, r);
      nodes.push(node);
      if (r.handler) edges.push({ type: 'EXPOSES', from: memberId(ctx, r.handler), to: node.id });
      stats.routes++;
    }
    const gateways = pass('gateway routes', () => gatewayGraph(this.ontology, input.source, input.services, nodes, outbound.gatewayRoutes), { nodes: [], edges: [] });
    nodes.push(...gateways.nodes);
    edges.push(...gateways.edges);
    const proxies = pass('proxy routes', () => proxyGraph(this.ontology, input.source, input.proxies ?? [], input.proxyServers ?? [], input.services, nodes, input.deploymentOnly ?? []), { nodes: [], edges: [] });
    nodes.push(...proxies.nodes);
    edges.push(...proxies.edges);
    const cdc = pass('change data capture', () => cdcGraph(this.ontology, input.source, input.connectors ?? [], input.services), []);
    nodes.push(...cdc);
    stats.producers += cdc.filter((n) => n.kind === 'producer').length;
    // Routes frameworks serve sit in build, configuration and source files whose own content may not have changed.
    const frameworkFiles = framework.routes.map((r) => r.file);
    this.outboundFiles = new Set([...this.outboundFiles, ...gateways.nodes.map((n) => n.file ?? ''), ...proxies.nodes.map((n) => n.file ?? ''), ...cdc.map((n) => n.file ?? ''), ...frameworkFiles]);
    warnings.push(...pinLinks(nodes, input.links));
    const topology = new Topology();
    matchClients(this.ontology, input.source, nodes, edges, topology, input.services, input.deploymentOnly ?? []);
    for (const c of axon.calls) topology.add(c.from, c.to, 'axon', true, c.confidence);
    warnings.push(...matchProducers(this.ontology, input.source, nodes, edges, topology, outbound.bindings), ...routePatternWarnings(nodes));
    topology.emit(nodes, edges);
    if (built) {
      nodes.push(...built.nodes);
      edges.push(...built.edges);
      warnings.push(...built.warnings);
      this.buildFiles = new Set([...this.buildFiles, ...built.nodes.map((n) => n.file ?? '')]);
    }
    return { nodes, edges, stats, warnings, unread, rest, span };
  }
}

function emptyEmission(warning: string): FileEmission {
  return { nodes: [], edges: [], foreign: [], externalTypes: new Map(), externalMethods: new Map(), inheritedMethods: new Map(), stats: { types: 0, members: 0, calls: 0, calls_external: 0, calls_unresolved: 0, injects: 0, uses: 0, routes: 0, clients: 0, producers: 0 }, sinks: [], warnings: [warning] };
}

/** Names whose meaning for other files changed between two snapshots of a file's interface. */
function changedNames(before: InterfaceItems | undefined, after: InterfaceItems | undefined): string[] {
  const out: string[] = [];
  for (const [key, names] of before ?? []) if (!after?.has(key)) out.push(...names);
  for (const [key, names] of after ?? []) if (!before?.has(key)) out.push(...names);
  return out;
}

function externalTypeId(ontology: Ontology, source: string, qn: string): string {
  return nodeId(ontology, source, 'symbol', `ext|${qn}`);
}

function externalMethodId(ontology: Ontology, source: string, owner: string, name: string): string {
  return nodeId(ontology, source, 'symbol', `ext|${owner}#${name}(?)`);
}

function inheritedMethodId(ontology: Ontology, source: string, type: string, name: string): string {
  return nodeId(ontology, source, 'symbol', `inh|${type}#${name}(?)`);
}

interface EmitContext {
  ontology: Ontology;
  input: CodeGraphInput;
  /** Generated API operations by the interface name a controller implements. */
  generatedApis: ReadonlyMap<string, readonly GeneratedApiOperation[]>;
  model: CodeModel;
  classifier: TypeClassifier;
  resolver: CallResolver;
  ids: Map<string, FileIds>;
  /** Each file's types, in source order. */
  byFile: Map<string, TypeEntry[]>;
  /** Per service, where a URL with placeholders goes (made when first asked). */
  urlOf?: Map<string, UrlOf>;
  /** Per service, constant evaluation with its configuration (made when first asked; every file of it shares one). */
  constants: Map<string, Constants>;
}

/** At most this many configured values of one URL are read. */
const MAX_CONFIGURED_URLS = 16;

/**
 * A service's URL templates (`${payment-processor.url}`) read as the evaluator reads configuration (deployment holes,
 * profiles), each value's host named as outbound calls name it: a host template a service is known by, one outside
 * the estate, or the host as written.
 */
function urlOfService(ctx: EmitContext, service: string): UrlOf {
  const cache = (ctx.urlOf ??= new Map());
  let found = cache.get(service);
  if (found) return found;
  const info = ctx.input.services.find((s) => s.name === service);
  const view = new ConfigView(info?.config ?? {}, info?.profiles ?? {}, info?.configOrigins ?? {}, info?.configHoles ?? {});
  const owners = [...ctx.input.services, ...(ctx.input.deploymentOnly ?? [])];
  const hosts = hostIndex(owners);
  found = (template: string) =>
    view
      .placeholders(template)
      .slice(0, MAX_CONFIGURED_URLS)
      .map((v) => {
        const t = urlTarget(v, (h) => hosts.has(h), (h) => isOutsideHostTemplate(h, owners));
        return { text: render(v), host: t.targetService, path: t.path, resolved: t.resolved, ...(t.profile ? { profile: t.profile } : {}) };
      });
  cache.set(service, found);
  return found;
}

/** Ids of a file's types and members, allocated in source order the first time any of them is needed. */
function fileIds(ctx: EmitContext, path: string): FileIds {
  let ids = ctx.ids.get(path);
  if (ids) return ids;
  ctx.ids.set(path, (ids = new FileIds()));
  for (const entry of ctx.byFile.get(path) ?? []) {
    ids.types.set(entry, allocate(ctx, ids, 'symbol', `${path}|${entry.qn}`));
    for (const member of entry.members) ids.members.set(member, allocate(ctx, ids, 'symbol', `${path}|${member.qn}`));
  }
  return ids;
}

function allocate(ctx: EmitContext, ids: FileIds, kind: string, identity: string): string {
  let id = nodeId(ctx.ontology, ctx.input.source, kind, identity);
  for (let n = 2; ids.used.has(id); n++) id = nodeId(ctx.ontology, ctx.input.source, kind, `${identity}~${n}`);
  ids.used.add(id);
  return id;
}

function typeId(ctx: EmitContext, entry: TypeEntry): string {
  return fileIds(ctx, entry.file.path).types.get(entry)!;
}

function memberId(ctx: EmitContext, member: MemberEntry): string {
  return fileIds(ctx, member.owner.file.path).members.get(member)!;
}

function emitServices(ctx: EmitContext): NodeRecord[] {
  // A module is a build unit that owns sources: aggregator POMs and root Gradle builds are not listed.
  const { input } = ctx;
  const files = new Map<string, number>();
  const modules = new Map<string, Set<string>>();
  for (const f of input.files) {
    const { service: s, module: m } = input.locate(f.path);
    files.set(s, (files.get(s) ?? 0) + 1);
    (modules.get(s) ?? modules.set(s, new Set()).get(s)!).add(m);
  }
  return input.services.map((s) => ({
    id: nodeId(ctx.ontology, input.source, 'service', s.name),
    kind: 'service',
    name: s.name,
    qualified_name: s.name,
    source: input.source,
    service: s.name,
    ...(s.applicationNameFile ? { file: s.applicationNameFile } : s.modules[0]?.buildFile ? { file: s.modules[0].buildFile } : {}),
    props: { name_from: s.nameFrom, build_tool: s.buildTool, directory: s.dir, modules: [...(modules.get(s.name) ?? [])].sort(), files: files.get(s.name) ?? 0, ...(s.hosts?.length ? { hosts: s.hosts } : {}) },
  }));
}

/** The nodes and edges of one file's types, in source order. */
class FileEmitter {
  private readonly out: FileEmission = {
    nodes: [],
    edges: [],
    foreign: [],
    externalTypes: new Map(),
    externalMethods: new Map(),
    inheritedMethods: new Map(),
    stats: { types: 0, members: 0, calls: 0, calls_external: 0, calls_unresolved: 0, injects: 0, uses: 0, routes: 0, clients: 0, producers: 0 },
    sinks: [],
    warnings: [],
  };
  private readonly edgeKeys = new Set<string>();
  /** Per repeated edge key, the next `#n` suffix to try: a line calling the same method thousands of times stays linear. */
  private readonly edgeSuffixes = new Map<string, number>();
  private readonly unresolved = new Map<string, string>();
  private readonly ids: FileIds | undefined;

  constructor(
    private readonly ctx: EmitContext,
    private readonly types: readonly TypeEntry[],
  ) {
    this.ids = types[0] && fileIds(ctx, types[0].file.path);
  }

  /**
   * Symbols first (a failure there skips the file: its edges would name nodes that are not there), then each
   * type's and member's edges, routes, clients and listeners, each step on its own: code one step cannot read
   * loses that step's facts for that declaration, with a warning naming it, and never the rest of the estate.
   */
  run(): FileEmission {
    for (const entry of this.types) this.emitType(entry);
    this.each((entry) => this.emitHierarchy(entry));
    this.each((entry) => this.emitOverrides(entry));
    this.guard(this.types[0]?.facts.line ?? 0, 'injection', () => this.emitInjections());
    for (const entry of this.types) for (const member of entry.members) this.guard(member.facts.line, 'calls', () => this.emitCalls(member));
    this.each((entry) => this.emitUses(entry), 'type usages');
    this.each((entry) => this.emitRoutes(entry), 'routes');
    this.each((entry) => this.emitClients(entry), 'clients');
    this.each((entry) => this.emitFieldSinks(entry), 'sends');
    this.each((entry) => this.emitStreamOutputs(entry), 'stream outputs');
    this.each((entry) => this.emitListeners(entry), 'listeners');
    return this.out;
  }

  private each(step: (entry: TypeEntry) => void, what = 'hierarchy'): void {
    for (const entry of this.types) this.guard(entry.facts.line, what, () => step(entry));
  }

  private guard(line: number, what: string, step: () => void): void {
    try {
      step();
    } catch (err) {
      this.out.warnings.push(skipWarning(`${this.types[0]?.file.path ?? '?'}:${line}`, what, err));
    }
  }

  /** Constant evaluation for a type, with its service's configuration for placeholders (one per service). */
  private constantsOf(entry: TypeEntry): Constants {
    const { constants } = this.ctx;
    let found = constants.get(entry.place.service);
    if (!found) {
      const service = this.ctx.input.services.find((s) => s.name === entry.place.service);
      constants.set(entry.place.service, (found = new Constants(this.ctx.model, service?.config, service?.profiles, service?.streamBinder)));
    }
    return found;
  }

  /** A keyless edge from a member, which may be declared in another file (then it belongs to that file's group). */
  private linkFrom(type: string, member: MemberEntry, to: string, inFile: boolean): void {
    const from = memberId(this.ctx, member);
    if (inFile) this.edge(type, from, to);
    else this.out.foreign.push({ group: member.owner.file.path, edge: { type, from, to } });
  }

  /** Outbound HTTP calls a client interface declares; which routes they reach is matched across the estate later. */
  private emitClients(entry: TypeEntry): void {
    const constants = this.constantsOf(entry);
    for (const c of [...feignClientsOf(this.ctx.model, entry, constants, urlOfService(this.ctx, entry.place.service)), ...httpExchangeClientsOf(entry, constants), ...requestLineClientsOf(entry, constants)]) {
      const id = allocate(this.ctx, this.ids!, 'client', `${entry.file.path}|${c.method.qn}|${c.httpMethod} ${c.path}`);
      this.out.stats.clients++;
      const inFile = c.method.owner.file === entry.file;
      this.out.nodes.push(this.clientNode(id, entry, inFile ? nameLine(c.method) : entry.facts.line, c.httpMethod, c.framework, c.method.qn, c));
      this.linkFrom('DECLARES_CLIENT', c.method, id, inFile);
    }
  }

  /** A client node: an HTTP call declared by `callerQn` in `owner`'s file, unmatched until matching runs. */
  private clientNode(id: string, owner: TypeEntry, line: number, httpMethod: string, framework: string, callerQn: string, target: HttpTarget): NodeRecord {
    return {
      id,
      kind: 'client',
      name: `${httpMethod} ${target.path}`,
      qualified_name: `${owner.place.service} -> ${target.targetService || '?'} ${httpMethod} ${target.path}`,
      source: this.source,
      ...location(owner, line),
      props: {
        protocol: 'http',
        http_method: httpMethod,
        path: target.path,
        path_pattern: pathPattern(target.path),
        ...(target.written ? { path_written: target.written } : {}),
        ...(target.targetService ? { target_service: target.targetService } : {}),
        ...(target.targetUrl ? { target_url: target.targetUrl } : {}),
        framework,
        caller: callerQn,
        match: 'unmatched',
        resolved: target.resolved,
        ...(target.profile ? { profile: target.profile } : {}),
      },
    };
  }

  /**
   * Sends and declarations in field initializers (`CommandEndpoint<…> create = CommandEndpointBuilder…withChannel(…)`),
   * which run in the constructor: sinks of its context member.
   */
  private emitFieldSinks(entry: TypeEntry): void {
    const context = entry.members.find((m) => m.facts.synthetic === 'primary_constructor') ?? entry.members.find((m) => m.facts.kind === 'constructor');
    if (!context) return;
    for (const field of entry.facts.fields) {
      if (!field.init) continue;
      const pending: Expr[] = [field.init];
      for (let e = pending.pop(), seen = 0; e && seen < 200; e = pending.pop(), seen++) {
        if (e.k === 'call') {
          if (e.of) pending.push(e.of);
          if (e.args) pending.push(...e.args);
          if (!LIBRARY.sendingNames().has(e.name)) continue;
          const resolved = this.ctx.resolver.resolveCallExpr(context, e, field.line);
          const first = 'unresolved' in resolved ? undefined : resolved.targets[0];
          const row = first && 'external' in first ? LIBRARY.method(first.external.owner, first.external.name) : undefined;
          if (!row || !first || !('external' in first)) continue;
          const sink = { file: entry.file.path, member: context.qn, call: -1, owner: first.external.owner, expr: e, line: field.line };
          if (row.http) this.out.sinks.push({ kind: 'http', ...sink });
          if (row.message) this.out.sinks.push({ kind: 'message', ...sink });
        } else if (e.k === 'concat') pending.push(...e.parts);
        else if (e.k === 'cond') pending.push(...e.options);
        else if (e.k === 'new' && e.args) pending.push(...e.args);
      }
    }
  }

  /**
   * Output bindings of functional Spring Cloud Stream beans (Supplier, Function), each a producer of its bean; and a
   * listener's `@SendTo` (its return value is sent on): a Stream binding for a `@StreamListener`, else a topic.
   */
  private emitStreamOutputs(entry: TypeEntry): void {
    const constants = this.constantsOf(entry);
    for (const f of streamFunctionsOf(entry, constants)) {
      if (!f.output) continue;
      const bound = streamBinding(f.output, constants);
      this.producer(f.bean, nameLine(f.bean), bound.protocol, 'spring_cloud_stream', { text: bound.destination, literal: true, written: f.output, derived: true }, f.output);
    }
    for (const m of entry.members) {
      const sendTo = m.facts.annotations.find((a) => a.name === 'SendTo')?.args.value?.[0];
      if (!sendTo) continue;
      const target = constants.part(sendTo, entry);
      if (m.facts.annotations.some((a) => a.name === 'StreamListener')) {
        const bound = streamBinding(target.text, constants);
        this.producer(m, nameLine(m), bound.protocol, 'spring_cloud_stream', { ...target, text: bound.destination, derived: true }, target.text);
      } else if (m.facts.annotations.some((a) => a.name === 'KafkaListener')) this.producer(m, nameLine(m), 'kafka', 'spring_kafka', target, target.written ?? target.text);
    }
  }

  private producer(caller: MemberEntry, line: number, protocol: string, framework: string, destination: Part, written: string, exchange?: string): void {
    const id = allocate(this.ctx, this.ids!, 'producer', `${caller.owner.file.path}|${caller.qn}@${line}|${protocol} ${destination.text}`);
    this.out.stats.producers++;
    this.out.nodes.push({
      id,
      kind: 'producer',
      name: `${protocol} ${destination.text}`,
      qualified_name: `${caller.owner.place.service} -> ${protocol} ${destination.text}`,
      source: this.source,
      ...location(caller.owner, line),
      props: {
        protocol,
        destination: destination.text,
        ...(destination.derived ? { destination_written: written } : {}),
        ...(exchange !== undefined ? { exchange } : {}),
        framework,
        caller: caller.qn,
        match: 'unmatched',
        resolved: destination.literal,
        ...(destination.profile ? { profile: destination.profile } : {}),
      },
    });
    this.edge('DECLARES_PRODUCER', memberId(this.ctx, caller), id);
  }

  /** Destinations the type's listener methods consume, each a route its listener exposes. */
  private emitListeners(entry: TypeEntry): void {
    for (const l of listenersOf(entry, this.constantsOf(entry))) {
      const id = allocate(this.ctx, this.ids!, 'route', `${entry.file.path}|${l.handler.qn}|${l.protocol} ${l.destination.text}`);
      this.out.stats.routes++;
      this.out.nodes.push({
        id,
        kind: 'route',
        name: `${l.protocol} ${l.destination.text}`,
        qualified_name: `${entry.place.service} ${l.protocol} ${l.destination.text}`,
        source: this.source,
        ...location(entry, nameLine(l.handler)),
        props: {
          protocol: l.protocol,
          ...(l.pattern ? { destination_regex: l.destination.text } : { destination: l.destination.text }),
          ...(l.destination.derived ? { path_written: l.destination.written } : {}),
          ...(l.destination.profile ? { profile: l.destination.profile } : {}),
          ...(l.exchange !== undefined ? { exchange: l.exchange, binding_keys: l.bindingKeys ?? [] } : {}),
          ...(l.composition ? { function_composition: l.composition } : {}),
          framework: l.framework,
          handler: l.handler.qn,
          controller: entry.qn,
          declared: true,
          resolved: l.destination.literal,
          ...unresolvedPart(l.destination, 'destination'),
        },
      });
      this.linkFrom('EXPOSES', l.handler, id, true);
    }
    // Handlers an annotation of the library table declares (Eventuate Tram), dispatched by the class they take.
    for (const h of annotatedHandlersOf(entry, this.constantsOf(entry), this.ctx.model)) {
      const id = allocate(this.ctx, this.ids!, 'route', `${entry.file.path}|${h.handler.qn}|${h.protocol} ${h.destination.text}`);
      this.out.stats.routes++;
      this.out.nodes.push({
        id,
        kind: 'route',
        name: `${h.protocol} ${h.destination.text}`,
        qualified_name: `${entry.place.service} ${h.protocol} ${h.destination.text}`,
        source: this.source,
        ...location(entry, nameLine(h.handler)),
        props: {
          protocol: h.protocol,
          destination: h.destination.text,
          ...(h.destination.derived ? { path_written: h.destination.written } : {}),
          ...(h.destination.profile ? { profile: h.destination.profile } : {}),
          framework: h.framework,
          handler: h.handler.qn,
          controller: entry.qn,
          ...(h.messageType ? { message_type: h.messageType } : {}),
          declared: true,
          resolved: h.destination.literal,
          ...unresolvedPart(h.destination, 'destination'),
        },
      });
      this.linkFrom('EXPOSES', h.handler, id, true);
    }
  }

  /** HTTP routes the type serves, each exposed by its handler (which may be inherited from another file). */


  private emitRoutes(entry: TypeEntry): void {
    const constants = this.constantsOf(entry);
    const declared = [...routesOf(this.ctx.model, entry, this.ctx.classifier.get(entry).role === 'CONTROLLER', constants), ...functionalRoutesOf(entry, constants, (m, w) => this.ctx.resolver.methodRef(m, w))];
    const written = new Set(declared.map((r) => `${r.method} ${r.path}`));
    const generated = generatedRoutesOf(this.ctx.model, entry, constants, this.ctx.generatedApis, (p) => this.ctx.input.locate(p).service).filter((r) => !written.has(`${r.method} ${r.path}`));
    const routes = [...declared, ...generated];
    const contextPath = routes.length ? contextPathOf(constants) : '';
    for (const route of routes) {
      const r = contextPath ? { ...route, path: joinPath(contextPath, route.path) } : route;
      const id = allocate(this.ctx, this.ids!, 'route', `${entry.file.path}|${entry.qn}|${r.method} ${r.path}`);
      this.out.stats.routes++;
      const inFile = r.handler.owner.file === entry.file;
      this.out.nodes.push({
        id,
        kind: 'route',
        name: `${r.method} ${r.path}`,
        qualified_name: `${entry.place.service} ${r.method} ${r.path}`,
        source: this.source,
        ...location(entry, inFile ? nameLine(r.handler) : entry.facts.line),
        props: {
          protocol: 'http',
          http_method: r.method,
          path: r.path,
          path_pattern: pathPattern(r.path),
          path_regex: pathRegex(r.path),
          framework: r.framework,
          handler: r.handler.qn,
          controller: entry.qn,
          declared: true,
          resolved: r.resolved,
          ...(r.written ? { path_written: r.written } : {}),
          ...(r.profile ? { profile: r.profile } : {}),
          ...(contextPath ? { context_path: contextPath } : {}),
        },
      });
      this.linkFrom('EXPOSES', r.handler, id, inFile);
    }
  }

  private get source(): string {
    return this.ctx.input.source;
  }

  private emitType(entry: TypeEntry): void {
    const facts = entry.facts;
    const traits = this.ctx.classifier.get(entry);
    const id = typeId(this.ctx, entry);
    this.out.stats.types++;
    const generated: Record<string, PropValue> = traits.generatedBy ? { generated: true, generated_by: traits.generatedBy } : { generated: false };
    const flavor = facts.flavor ?? (facts.anonymous ? 'anonymous' : facts.local ? 'local' : undefined);
    this.out.nodes.push({
      id,
      kind: 'symbol',
      name: facts.name,
      qualified_name: entry.qn,
      source: this.source,
      ...location(entry, facts.line),
      props: {
        symbol_kind: facts.kind,
        language: entry.file.language,
        package: entry.file.package,
        ...(facts.outer ? { declaring_type: facts.outer } : {}),
        modifiers: facts.modifiers,
        annotations: annotationNames(facts.annotations),
        ...(facts.annotations.length ? { annotation_args: annotationArgs(facts.annotations) } : {}),
        role: traits.role,
        capabilities: traits.capabilities,
        ...(flavor ? { flavor } : {}),
        ...generated,
        resolved: true,
        end_line: facts.endLine,
        ...(entry.file.parseErrors ? { parse_errors: entry.file.parseErrors } : {}),
      },
    });
    if (entry.outer) this.edge('DECLARES', typeId(this.ctx, entry.outer), id);
    for (const member of entry.members) this.emitMember(entry, member, id, generated);
  }

  private emitMember(entry: TypeEntry, member: MemberEntry, typeId: string, generated: Record<string, PropValue>): void {
    const m = member.facts;
    const id = memberId(this.ctx, member);
    this.out.stats.members++;
    this.out.nodes.push({
      id,
      kind: 'symbol',
      name: m.name,
      qualified_name: member.qn,
      source: this.source,
      ...location(entry, m.line),
      props: {
        symbol_kind: m.kind,
        language: entry.file.language,
        package: entry.file.package,
        declaring_type: entry.qn,
        signature: member.signature,
        ...(m.returnType ? { return_type: typeText(m.returnType) } : {}),
        parameters: m.params.map((p) => ({ name: p.name, type: typeText(p.type) })),
        modifiers: m.modifiers,
        annotations: annotationNames(m.annotations),
        ...(m.annotations.length ? { annotation_args: annotationArgs(m.annotations) } : {}),
        ...(m.synthetic ? { synthetic: m.synthetic } : {}),
        ...generated,
        resolved: true,
        end_line: m.endLine,
      },
    });
    this.edge('DECLARES', typeId, id);
  }

  private emitHierarchy(entry: TypeEntry): void {
    const from = typeId(this.ctx, entry);
    for (const s of entry.supers) {
      const to = this.typeTarget(s.target, s.relation === 'implements' || entry.facts.kind === 'interface' ? 'interface' : 'class');
      this.edge(s.relation === 'implements' ? 'IMPLEMENTS' : 'EXTENDS', from, to);
    }
  }

  /** Each method overrides the nearest same-signature declaration on every path up its supertype chain. */
  private emitOverrides(entry: TypeEntry): void {
    for (const member of entry.members) {
      const m = member.facts;
      if (m.kind !== 'method' || m.modifiers.includes('static') || m.modifiers.includes('private')) continue;
      const found = new Set<MemberEntry>();
      const visit = (t: TypeEntry, seen: Set<TypeEntry>): void => {
        for (const s of t.supers) {
          const sup = s.target.entry;
          if (!sup || seen.has(sup)) continue;
          seen.add(sup);
          const match = this.ctx.model.methodsNamed(sup, m.name).find((o) => !o.facts.modifiers.includes('static') && !o.facts.modifiers.includes('private') && paramsMatch(m, o.facts));
          if (match) found.add(match);
          else visit(sup, seen);
        }
      };
      visit(entry, new Set([entry]));
      for (const target of found) this.edge('OVERRIDES', memberId(this.ctx, member), memberId(this.ctx, target));
    }
    this.emitInheritedImplementations(entry);
  }

  /** `class C extends B implements I`: a method of I that C does not declare is implemented by the nearest one in B's chain. */
  private emitInheritedImplementations(entry: TypeEntry): void {
    if (entry.facts.kind === 'interface' || !entry.supers.some((s) => s.relation === 'implements' && s.target.entry)) return;
    // A Set, not the list, guards against cycles: a chain thousands of classes deep stays linear per class.
    const seen = new Set<TypeEntry>();
    for (let t = entry.supers.find((s) => s.relation === 'extends')?.target.entry; t && !seen.has(t); t = t.supers.find((s) => s.relation === 'extends')?.target.entry) seen.add(t);
    const superclasses = [...seen];
    if (!superclasses.length) return;
    for (const s of entry.supers) {
      const iface = s.target.entry;
      if (s.relation !== 'implements' || !iface) continue;
      for (const abstract of iface.members) {
        if (abstract.facts.kind !== 'method' || abstract.facts.modifiers.includes('static')) continue;
        if (this.ctx.model.methodsNamed(entry, abstract.facts.name).some((m) => paramsMatch(m.facts, abstract.facts))) continue;
        for (const sup of superclasses) {
          const impl = this.ctx.model.methodsNamed(sup, abstract.facts.name).find((m) => !m.facts.modifiers.includes('static') && paramsMatch(m.facts, abstract.facts));
          if (impl) {
            this.out.foreign.push({ group: impl.owner.file.path, edge: { type: 'OVERRIDES', from: memberId(this.ctx, impl), to: memberId(this.ctx, abstract) } });
            break;
          }
        }
      }
    }
  }

  private emitInjections(): void {
    for (const inj of resolveInjections(this.ctx.model, this.ctx.classifier, this.types)) {
      const from = typeId(this.ctx, inj.from);
      const to = 'member' in inj.to ? memberId(this.ctx, inj.to.member) : this.typeTarget(inj.to, 'class');
      this.out.stats.injects++;
      this.edge('INJECTS', from, to, `${inj.mechanism}:${inj.member}`, {
        confidence: inj.confidence,
        strategy: inj.strategy,
        mechanism: inj.mechanism,
        member: inj.member,
        declared_type: inj.declaredType,
        ...(inj.qualifier ? { qualifier: inj.qualifier } : {}),
      });
    }
  }

  /** USES edges of each member, then of the type (its own and its members' rolled up), one per via. */
  private emitUses(entry: TypeEntry): void {
    const uses = usesOf(this.ctx.model, entry);
    for (const [member, targets] of uses.members) this.useEdges(memberId(this.ctx, member), targets);
    this.useEdges(typeId(this.ctx, entry), uses.type);
  }

  private useEdges(from: string, targets: ReadonlyMap<TypeEntry, number>): void {
    for (const [target, bits] of targets) {
      const to = typeId(this.ctx, target);
      // Each (from, to, via) once by construction: no key bookkeeping through edge().
      for (const via of viasOf(bits)) this.out.edges.push({ type: 'USES', from, to, key: via, attrs: USE_ATTRS[via] });
      this.out.stats.uses += viasOf(bits).length;
    }
  }

  private emitCalls(caller: MemberEntry): void {
    const from = memberId(this.ctx, caller);
    caller.facts.calls.forEach((call, index) => {
      this.emitCall(caller, from, call, index);
    });
  }

  private emitCall(caller: MemberEntry, from: string, call: CallFacts, index: number): void {
    {
      const resolved = this.ctx.resolver.resolve(caller, call);
      if (!resolved) return;
      this.out.stats.calls++;
      const attrs = { line: call.line, call: call.kind, arg_count: call.argCount, ...(call.inLambda ? { in_lambda: true } : {}) };
      if ('unresolved' in resolved) {
        this.out.stats.calls_unresolved++;
        const to = this.unresolvedCall(caller, resolved);
        this.edge('CALLS', from, to, `${call.line}:${call.name}`, { confidence: 0, strategy: 'unresolved', ...attrs });
        return;
      }
      for (const target of resolved.targets) {
        let to: string;
        if ('member' in target) to = memberId(this.ctx, target.member);
        else {
          this.out.stats.calls_external++;
          to = resolved.receiverType ? this.inheritedMethod(resolved.receiverType, target.external.owner, target.external.name) : this.externalMethod(target.external.owner, target.external.name);
          const row = LIBRARY.method(target.external.owner, target.external.name);
          const sink = { file: caller.owner.file.path, member: caller.qn, call: index, owner: target.external.owner };
          if (row?.http) this.out.sinks.push({ kind: 'http', ...sink });
          if (row?.message) this.out.sinks.push({ kind: 'message', ...sink });
          if (row?.declares) this.out.sinks.push({ kind: 'declares', ...sink });
        }
        const receiver: Record<string, PropValue> = resolved.receiverType && !('member' in target) ? { receiver_type: resolved.receiverType.qn } : {};
        this.edge('CALLS', from, to, `${call.line}`, { confidence: resolved.confidence, strategy: resolved.strategy, ...attrs, ...receiver });
      }
    }
  }

  private unresolvedCall(caller: MemberEntry, resolved: Extract<ResolvedCall, { unresolved: string }>): string {
    const call = resolved.call;
    const receiver = call.receiver ? exprText(call.receiver) : resolved.receiver;
    const qn = `${caller.qn}@${call.line}:${receiver ? `${receiver}.` : ''}${call.name}`;
    const key = `${caller.owner.file.path}|${qn}`;
    const existing = this.unresolved.get(key);
    if (existing) return existing;
    const id = allocate(this.ctx, this.ids!, 'unresolved_call', key);
    this.unresolved.set(key, id);
    this.out.nodes.push({
      id,
      kind: 'unresolved_call',
      name: call.name,
      qualified_name: qn,
      source: this.source,
      ...location(caller.owner, call.line),
      props: { callee: call.name, receiver, arg_count: call.argCount, reason: resolved.unresolved },
    });
    return id;
  }

  private typeTarget(target: TypeTarget, guess: 'class' | 'interface'): string {
    if (target.entry) return typeId(this.ctx, target.entry);
    const qn = target.external;
    this.out.externalTypes.set(qn, (this.out.externalTypes.get(qn) ?? false) || guess === 'interface');
    return externalTypeId(this.ctx.ontology, this.source, qn);
  }

  private inheritedMethod(type: TypeEntry, owner: string, name: string): string {
    this.out.inheritedMethods.set(`${type.qn}#${name}`, { type: { qn: type.qn, place: type.place, line: type.facts.line, path: type.file.path, language: type.file.language, package: type.file.package }, owner, name });
    return inheritedMethodId(this.ctx.ontology, this.source, type.qn, name);
  }

  private externalMethod(owner: string, name: string): string {
    this.out.externalMethods.set(`${owner}#${name}`, [owner, name]);
    return externalMethodId(this.ctx.ontology, this.source, owner, name);
  }

  private edge(type: string, from: string, to: string, key?: string, attrs?: Record<string, PropValue>): void {
    let k = key;
    const base = `${from}\0${type}\0${to}\0`;
    if (this.edgeKeys.has(base + (k ?? ''))) {
      if (k === undefined) return;
      const repeated = base + key;
      let n = this.edgeSuffixes.get(repeated) ?? 2;
      while (this.edgeKeys.has(`${repeated}#${n}`)) n++;
      this.edgeSuffixes.set(repeated, n + 1);
      k = `${key}#${n}`;
    }
    this.edgeKeys.add(base + (k ?? ''));
    this.out.edges.push({ type, from, to, ...(k !== undefined ? { key: k } : {}), ...(attrs ? { attrs } : {}) });
  }
}

/**
 * Applies sextant.yaml `links`: a client whose calling method, or that method's type, is pinned gets that target
 * service; a producer so pinned gets that destination. Both say `pinned: true`. Returns a warning per pin that
 * matched nothing. Idempotent (an update re-applies pins to nodes it did not emit again).
 */
/** A route a framework serves for a service (Actuator, Spring Data REST), under its context path unless on a management port. */
function frameworkRouteNode(ontology: Ontology, input: CodeGraphInput, ctx: EmitContext, r: FrameworkRoute): NodeRecord {
  const info = input.services.find((s) => s.name === r.service);
  const contextPath = r.managementPort || !info ? '' : contextPathOf(new Constants(ctx.model, info.config, info.profiles));
  const path = contextPath ? joinPath(contextPath, r.path) : r.path;
  const id = nodeId(ontology, input.source, 'route', `${r.service}|${r.file}|${r.framework}|${r.managementPort ?? ''}|${r.method} ${path}`);
  return {
    id,
    kind: 'route',
    name: `${r.method} ${path}`,
    qualified_name: `${r.service} ${r.method} ${path}`,
    source: input.source,
    service: r.service,
    module: input.locate(r.file).module,
    file: r.file,
    ...(r.line > 0 ? { line: r.line } : {}),
    props: {
      protocol: 'http',
      http_method: r.method,
      path,
      path_pattern: pathPattern(path),
      path_regex: pathRegex(path),
      framework: r.framework,
      ...(r.handler ? { handler: r.handler.qn } : r.type ? { handler: r.type.qn } : {}),
      ...(r.type ? { controller: r.type.qn } : {}),
      declared: true,
      resolved: r.resolved,
      ...(r.written ? { path_written: r.written } : {}),
      ...(contextPath ? { context_path: contextPath } : {}),
      ...(r.managementPort ? { management_port: r.managementPort } : {}),
    },
  };
}

/** Where a service serves its HTTP routes: the servlet context path (Boot 2+ or 1.x key), servlet path, WebFlux base path. */
const CONTEXT_PATH_KEYS = [['server.servlet.context-path', 'server.context-path'], ['spring.mvc.servlet.path'], ['spring.webflux.base-path']];

function contextPathOf(constants: Constants): string {
  let prefix = '';
  for (const keys of CONTEXT_PATH_KEYS) {
    const value = keys.map((k) => constants.setting(k)).find((v) => v !== undefined)?.trim();
    if (value && !value.includes('${') && value !== '/') prefix = joinPath(prefix, value);
  }
  return prefix;
}

/** Where a link a member declares is: the line of its name (below its annotations). */
function nameLine(member: MemberEntry): number {
  return member.facts.nameLine ?? member.facts.line;
}

function location(entry: TypeEntry, line: number): Pick<NodeRecord, 'service' | 'module' | 'file' | 'line'> {
  return { service: entry.place.service, module: entry.place.module, file: entry.file.path, ...(line > 0 ? { line } : {}) };
}

function paramsMatch(sub: MemberFacts, sup: MemberFacts): boolean {
  if (sub.params.length !== sup.params.length) return false;
  return sub.params.every((p, i) => {
    const a = simpleTypeName(p.type);
    const b = simpleTypeName(sup.params[i]!.type);
    return a === b || /^[A-Z][A-Z0-9]?(\[\])*$/.test(b) || a.split('.').pop() === b.split('.').pop();
  });
}

function annotationNames(annotations: readonly AnnotationFacts[]): string[] {
  return [...new Set(annotations.map((a) => a.name))];
}

function annotationArgs(annotations: readonly AnnotationFacts[]): unknown[] {
  return annotations.map((a) => ({ name: a.name, written: a.written, args: a.args }));
}

function packageGuess(qn: string): string {
  const parts = qn.split('.');
  const pkg: string[] = [];
  for (const p of parts.slice(0, -1)) {
    if (!/^[a-z]/.test(p)) break;
    pkg.push(p);
  }
  return pkg.join('.');
}
