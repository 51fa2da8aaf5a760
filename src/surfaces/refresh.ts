/**
 * The `refresh` tool: re-reads a GraphQL source from its server with the service credential (the source's
 * `headers`, read from this process's environment) and writes what changed. Offered over MCP only by a server
 * started with `--allow-refresh`, because only such a server holds the discovery credential.
 */
import type { Ontology } from '../graph/ontology/index.js';
import { openStore } from '../graph/open.js';
import type { Store } from '../graph/store.js';
import type { NodeRecord } from '../graph/types.js';
import { buildWorkspace } from '../indexer/build.js';
import { embedIndex } from '../indexer/embed.js';
import { resolveTarget } from '../indexer/target.js';
import { asString } from '../query/coerce.js';
import { fail, ToolError } from '../query/errors.js';
import type { ParamDef, ToolDef } from '../query/tool.js';

const PARAMS: ParamDef[] = [
  { name: 'source', description: 'The GraphQL source to refresh (needed when several have an endpoint).', schema: { type: 'string' } },
  { name: 'data_source', description: 'A Hugr data source to read again (its name, e.g. shop).', schema: { type: 'string' } },
  { name: 'module', description: 'A module (a.b.c) whose data sources to read again.', schema: { type: 'string' } },
  { name: 'data_object', description: 'A data object (path sales.orders, or type name) whose data source to read again.', schema: { type: 'string' } },
];

const DESCRIPTION = [
  "Re-reads a GraphQL source's schema from its server with the service's own credential and writes what changed into the index; every later answer sees it.",
  'On a Hugr v0.3 server only the data sources whose catalog version changed are read again (their types, the types that depend on them and the module roots); `data_source`, `module` or `data_object` names a part to read again whatever its version says. Other servers are read whole; an unchanged schema is not rewritten.',
  'Answers what changed: `written` (unchanged, patch or full), the data sources read again, the types read, added and removed, and the node and edge counts.',
].join('\n');

export interface RefreshContext {
  ontology: Ontology;
  storeDir: string;
  /** The workspace to read sources from (`--config`), else what the index was built from. */
  configTarget?: string;
  env?: Record<string, string | undefined>;
}

/**
 * The `refresh` tool bound to one index: run through the same path as every tool (argument checks, limits, the
 * answer envelope), with the store it reads names from as its context.
 */
export function refreshTool(rc: RefreshContext): ToolDef {
  return {
    name: 'refresh',
    title: 'Refresh a GraphQL source',
    description: () => DESCRIPTION,
    params: () => PARAMS,
    run: async (ctx, args) => {
      try {
        return await refresh(rc, ctx.store, args);
      } catch (err) {
        if (err instanceof ToolError) throw err;
        throw new ToolError({ code: 'refresh_failed', message: `The refresh failed and the index is unchanged: ${(err as Error).message}` });
      }
    },
  };
}

async function refresh(rc: RefreshContext, reader: Store, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const named = asString(args['source'], 'source');
  const scopes = (['data_source', 'module', 'data_object'] as const).filter((k) => asString(args[k], k) !== undefined);
  if (scopes.length > 1) fail({ code: 'invalid_argument', argument: scopes[1], message: `Pass at most one of data_source, module and data_object; got ${scopes.join(' and ')}.` });
  const scope = scopes[0];
  const scoped = scope ? await dataSourcesOf(reader, scope, asString(args[scope], scope)!) : undefined;
  const configTarget = rc.configTarget ?? (await reader.meta()).root;
  if (!configTarget) fail({ code: 'not_found', message: 'The index does not record what it was built from: start the server with `--config <sextant.yaml>`.' });
  const env = rc.env ?? process.env;
  const { config } = await resolveTarget(configTarget, env);
  const endpoints = config.sources.filter((s) => s.kind === 'graphql' && s.endpoint).map((s) => s.name).sort();
  const wanted = named ?? scoped?.source;
  if (wanted !== undefined && !endpoints.includes(wanted)) {
    fail({ code: 'invalid_argument', argument: 'source', allowed: endpoints, message: `No GraphQL source named \`${wanted}\` with an endpoint to refresh from. Sources with an endpoint: ${endpoints.join(', ') || '(none)'}.` });
  }
  if (wanted === undefined && endpoints.length !== 1) {
    fail({
      code: endpoints.length ? 'missing_argument' : 'not_found',
      argument: 'source',
      allowed: endpoints,
      message: endpoints.length ? `refresh needs \`source\`: several GraphQL sources have an endpoint (${endpoints.join(', ')}).` : 'No GraphQL source of this workspace has an endpoint to refresh from; SDL files are re-read by `sextant index`.',
    });
  }
  const source = wanted ?? endpoints[0]!;
  if (scoped && scoped.source !== source) fail({ code: 'invalid_argument', argument: scope!, message: `${scope} \`${String(args[scope!])}\` belongs to source ${scoped.source}, not ${source}.` });
  const dataSources = scoped?.dataSources;
  const writer = await openStore(rc.ontology, rc.storeDir, 'write');
  try {
    const report = await buildWorkspace(writer, rc.ontology, config, {}, env, { only: [source], ...(dataSources ? { refreshDataSources: dataSources } : {}) });
    const r = report.sources.find((s) => s.name === source)!;
    const details = (r.details?.['refresh'] ?? {}) as Record<string, unknown>;
    const warnings = [...r.warnings];
    // What the refresh added is embedded like any index run's (only texts the index has no vector for).
    const embedded = config.embeddings && r.written !== 'unchanged' ? await embedIndex(writer, config.embeddings, { warning: (w) => warnings.push(w) }) : undefined;
    return {
      ok: true,
      source,
      written: r.written ?? 'full',
      ...details,
      ...(dataSources ? { asked: dataSources } : {}),
      nodes: r.nodes,
      edges: r.edges,
      ...(embedded ? { embeddings: { embedded: embedded.embedded, missing: embedded.missing } } : {}),
      seconds: report.seconds,
      warnings,
    };
  } finally {
    await writer.close();
  }
}

/** The data sources a scope names, and the source they belong to. */
async function dataSourcesOf(store: Store, scope: 'data_source' | 'module' | 'data_object', value: string): Promise<{ source: string; dataSources: string[] }> {
  const kind = scope;
  const byName = async (field: 'qualified_name' | 'name'): Promise<NodeRecord[]> => store.nodesByName(field, value, { caseInsensitive: false, kinds: [kind], limit: 5 });
  let nodes = await byName('qualified_name');
  if (nodes.length === 0 && scope === 'data_object') nodes = (await store.findNodes({ kinds: ['data_object'], predicates: [{ property: 'type_name', op: 'in', values: [value] }], limit: 5, offset: 0 })).nodes;
  if (nodes.length === 0) {
    const near = (await store.similarNames(value, { kinds: [kind], limit: 3 })).map((s) => s.name);
    fail({ code: 'not_found', argument: scope, ...(near.length ? { did_you_mean: near } : {}), message: `No ${kind.replace('_', ' ')} named \`${value.slice(0, 200)}\` in the index.${near.length ? ` Did you mean ${near.map((n) => `\`${n}\``).join(' or ')}?` : ''}` });
  }
  if (nodes.length > 1) fail({ code: 'invalid_argument', argument: scope, message: `\`${value.slice(0, 200)}\` names ${nodes.length} ${kind}s (in ${[...new Set(nodes.map((n) => n.source))].join(', ')}); pass \`source\` too.` });
  const node = nodes[0]!;
  if (scope === 'data_source') return { source: node.source, dataSources: [node.qualified_name] };
  if (scope === 'data_object') {
    const ds = node.props['data_source'];
    if (typeof ds !== 'string') fail({ code: 'invalid_argument', argument: scope, message: `Data object ${node.qualified_name} has no known data source to read again; refresh the whole source instead.` });
    return { source: node.source, dataSources: [ds as string] };
  }
  const names = new Set<string>();
  const { nodes: inside } = await store.findNodes({ kinds: ['data_object', 'function'], predicates: [{ property: 'source', op: 'in', values: [node.source] }, { property: 'module', op: 'prefix', values: [node.qualified_name] }], limit: 5000, offset: 0 });
  for (const n of inside) if (typeof n.props['data_source'] === 'string' && (n.module === node.qualified_name || n.module?.startsWith(`${node.qualified_name}.`))) names.add(n.props['data_source'] as string);
  if (names.size === 0) fail({ code: 'invalid_argument', argument: scope, message: `Module ${node.qualified_name} has no data objects or functions with a known data source; refresh the whole source instead.` });
  return { source: node.source, dataSources: [...names].sort() };
}
