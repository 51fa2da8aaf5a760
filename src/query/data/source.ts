import type { ToolContext } from '../tool.js';
import { closest } from '../../search/similarity.js';
import { fail } from '../errors.js';
import type { DataSourceAccess } from './access.js';

/**
 * The GraphQL source a data tool talks to: the one named, or the only one with data access. `implied` says the
 * name came from something else the caller passed (a data object's source), not from a `source` argument.
 */
export function dataSourceFor(ctx: ToolContext, tool: string, named: string | undefined, implied?: string): DataSourceAccess {
  const sources = ctx.data?.sources ?? new Map<string, DataSourceAccess>();
  const names = [...sources.keys()].sort();
  if (names.length === 0) {
    fail({
      code: 'no_data_access',
      message:
        `${tool} needs a GraphQL source with an endpoint to query, and this server has none: index a source with \`endpoint\` (or give it \`data.endpoint\`) in sextant.yaml, ` +
        'and start `sextant serve` where it finds that sextant.yaml (or pass `--config`).',
    });
  }
  if (implied && named !== undefined && !sources.has(named)) {
    fail({ code: 'no_data_access', message: `${implied} comes from source "${named}", which has no endpoint this server can query: give it \`endpoint\` (or \`data.endpoint\`) in sextant.yaml. Sources that can be queried: ${names.join(', ')}.` });
  }
  return sources.get(chooseSource(tool, names, named, { one: 'can be queried', many: 'can be queried' }))!;
}

/** The `source` argument's choice among `names`: the one named, or the only one; teaching errors otherwise. */
export function chooseSource(tool: string, names: readonly string[], named: string | undefined, what: { one: string; many: string }): string {
  if (named === undefined) {
    if (names.length === 1) return names[0]!;
    fail({ code: 'missing_argument', argument: 'source', message: `${tool} needs \`source\`: several GraphQL sources ${what.many} (${names.join(', ')}).`, allowed: [...names] });
  }
  if (names.includes(named)) return named;
  const near = closest(named, [...names]);
  fail({ code: 'invalid_argument', argument: 'source', message: `No GraphQL source named \`${named}\` ${what.one}.${near.length ? ` Did you mean ${near.map((n) => `\`${n}\``).join(' or ')}?` : ''} Sources: ${names.join(', ')}.`, allowed: [...names], ...(near.length ? { did_you_mean: near } : {}) });
}

/** Whether the source was indexed as a Hugr platform (its root module says what its model was read from). */
export async function isHugrSource(ctx: ToolContext, access: DataSourceAccess): Promise<boolean> {
  if (access.flavor !== 'auto') return access.flavor === 'hugr';
  const { nodes } = await ctx.store.findNodes({ kinds: ['module'], predicates: [{ property: 'source', op: 'in', values: [access.source] }, { property: 'is_root', op: 'in', values: [true] }], limit: 1, offset: 0 });
  return nodes[0]?.props['hugr_model_from'] !== undefined;
}
