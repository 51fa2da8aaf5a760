/**
 * One CLI process's access to an index: open it read-only, run tools on it through the same path the MCP server
 * takes (`runToolIn`), log each call. A code tool loads only the store and the code tools; the full registry
 * (GraphQL data tools, their parser, the Arrow decoder, HTTP) and the workspace's data sources are loaded only for
 * a tool this module does not list, or where the index or `--config` has a GraphQL source.
 */
import { sextantOntology, type Ontology } from '../../graph/ontology/index.js';
import { locateStore, openStore } from '../../graph/open.js';
import { isPostgresLocation } from '../../graph/postgres/location.js';
import { StoreError, type Store } from '../../graph/store.js';
import type { DataContext } from '../../query/data/access.js';
import { runToolIn, type ToolResult } from '../../query/run.js';
import type { ToolDef } from '../../query/tool.js';
import { logToolCall } from '../tool-log.js';

/**
 * Tools that read only the index, each loaded when first run: the same definitions the registry lists (a test
 * checks), without its data tools.
 */
export const QUICK_TOOLS: Readonly<Record<string, () => Promise<ToolDef>>> = {
  search: async () => (await import('../../query/tools/search.js')).searchTool,
  find: async () => (await import('../../query/tools/find.js')).findTool,
  describe: async () => (await import('../../query/tools/describe.js')).describeTool,
  neighbors: async () => (await import('../../query/tools/neighbors.js')).neighborsTool,
  resolve: async () => (await import('../../query/tools/resolve.js')).resolveTool,
  trace: async () => (await import('../../query/tools/trace.js')).traceTool,
  impact: async () => (await import('../../query/tools/impact.js')).impactTool,
  changes: async () => (await import('../../query/tools/changes.js')).changesTool,
  links: async () => (await import('../../query/tools/links.js')).linksTool,
};

export interface SessionIo {
  err: (text: string) => void;
}

/** Thrown for a tool name no registry has; the CLI shows it as a usage error. */
export class UnknownToolError extends Error {}

/** The tools a call to `name` runs among: that quick tool alone when it is one, else the full registry. */
async function registryFor(name: string): Promise<{ tools: readonly ToolDef[]; data: boolean }> {
  const quick = Object.hasOwn(QUICK_TOOLS, name) ? QUICK_TOOLS[name] : undefined;
  if (quick) return { tools: [await quick()], data: false };
  const full = await import('../../query/index.js');
  if (!full.toolByName(name)) throw new UnknownToolError(`unknown tool ${JSON.stringify(name)}; tools: ${full.TOOLS.map((t) => t.name).join(', ')}`);
  return { tools: full.TOOLS, data: full.DATA_TOOLS.has(name) };
}

export class CliSession {
  private constructor(
    readonly location: string,
    readonly ontology: Ontology,
    private readonly store: Store | undefined,
    /** Why the index could not be opened: every tool then answers `index_unavailable` with it. */
    private readonly openError: string | undefined,
    private readonly configTarget: string | undefined,
    private readonly io: SessionIo,
  ) {}

  static async open(storeOpt: string | undefined, configTarget: string | undefined, io: SessionIo): Promise<CliSession> {
    const location = locateStore(storeOpt);
    if (isPostgresLocation(location)) (await import('./log-options.js')).knowStoreSecrets(location);
    const ontology = sextantOntology();
    try {
      return new CliSession(location, ontology, await openStore(ontology, location, 'read'), undefined, configTarget, io);
    } catch (err) {
      const message = err instanceof StoreError ? err.message : `Cannot open the index at ${location}: ${(err as Error).message}`;
      return new CliSession(location, ontology, undefined, message, configTarget, io);
    }
  }

  private data: DataContext | undefined;
  private dataLoaded = false;

  /**
   * The data sources this process may query, from `--config` or the workspace the index was built from; read
   * only where one can exist (a data tool, `--config`, or a GraphQL source in the index): for a code index the
   * answer is none, without reading the workspace again.
   */
  private async dataContext(forDataTool: boolean): Promise<DataContext> {
    if (this.data && (this.dataLoaded || !forDataTool)) return this.data;
    const graphqlIndexed = this.store ? (await this.store.sources()).some((s) => s.kind === 'graphql') : false;
    if (!forDataTool && this.configTarget === undefined && !graphqlIndexed) {
      this.data = { sources: new Map(), caller: { transport: 'local' } };
      return this.data;
    }
    const [{ loadDataSources }, { knowDataSecrets }, { localJq }] = await Promise.all([import('../data.js'), import('./log-options.js'), import('../../query/data/jq.js')]);
    const { sources, warning } = await loadDataSources(this.store, this.configTarget);
    knowDataSecrets(sources);
    // A warning about data access concerns data tools; other answers do not depend on it.
    if (warning && forDataTool) this.io.err(`warning: ${warning}`);
    this.data = { sources, caller: { transport: 'local' }, jq: localJq };
    this.dataLoaded = true;
    return this.data;
  }

  /** Runs a tool as `sextant call` does; UnknownToolError for a name no registry has. */
  async run(name: string, args: unknown): Promise<ToolResult> {
    const { tools, data: forDataTool } = await registryFor(name);
    if (!this.store) return { ok: false, error: { code: 'index_unavailable', message: this.openError ?? `Cannot open the index at ${this.location}.` } };
    const data = await this.dataContext(forDataTool);
    const started = performance.now();
    const result = await runToolIn(tools, { store: this.store, ontology: this.ontology, data }, name, args);
    logToolCall({ tool: name, surface: 'cli', started, result: result as { ok: boolean; error?: { code: string } }, answerBytes: () => Buffer.byteLength(JSON.stringify(result)), caller: data.caller, args, sources: data.sources });
    return result;
  }

  async close(): Promise<void> {
    await this.store?.close();
  }
}
