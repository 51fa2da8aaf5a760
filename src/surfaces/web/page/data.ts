/**
 * The data platform: each GraphQL/Hugr source's module tree (any depth, from SUBMODULE edges), the data objects and
 * functions each module contains (CONTAINS), and a data object's or function's path, fields, relations and query
 * skeleton.
 */
import { call, callAll, type Json } from './api.js';
import { copyButton, h } from './dom.js';

export async function moduleTree(selected: string | undefined): Promise<HTMLElement> {
  const modules = await callAll('find', { kind: 'module', limit: 500 }, 'results');
  if (!modules.length) return h('div', { class: 'empty' }, 'No GraphQL or Hugr source in this index: index a schema (sextant index schema.graphql) or a Hugr endpoint to see its modules here.');
  const edges = await callAll('neighbors', { ids: modules.map((m) => m.id).slice(0, 500), direction: 'out', edge_types: ['SUBMODULE'], limit: 500 }, 'edges');
  const children = new Map<string, Json[]>();
  const hasParent = new Set<string>();
  for (const e of edges) {
    (children.get(e.from) ?? children.set(e.from, []).get(e.from)!).push(e.other);
    hasParent.add(e.other.id);
  }
  // A deep link to an object opens the modules down to the one holding it.
  const holder = selected ? ((await call('describe', { id: selected, source: 'none' }).catch(() => undefined))?.node as Json | undefined) : undefined;
  const openTo = holder ? { source: String(holder.source), module: String(holder.module ?? '') } : undefined;
  const roots = modules.filter((m) => !hasParent.has(m.id)).sort((a, b) => `${a.source}\0${a.qualified_name}`.localeCompare(`${b.source}\0${b.qualified_name}`));
  const tree = h('ul', { class: 'tree' });
  for (const r of roots) tree.appendChild(moduleItem(r, children, selected, 0, openTo));
  return h('div', { class: 'data' }, h('h2', {}, 'Data platform'), tree);
}

function moduleItem(m: Json, children: Map<string, Json[]>, selected: string | undefined, depth: number, openTo?: { source: string; module: string }): HTMLElement {
  const kids = (children.get(m.id) ?? []).sort((a, b) => a.name.localeCompare(b.name));
  const attrs = m.attributes ?? {};
  const count = `${attrs.data_object_count ?? 0} objects · ${attrs.function_count ?? 0} functions`;
  const body = h('ul', { class: 'contents' });
  const onPath = openTo !== undefined && openTo.source === m.source && (depth === 0 || openTo.module === m.qualified_name || openTo.module.startsWith(`${m.qualified_name}.`));
  const details = h('details', { 'data-module': m.qualified_name, open: depth === 0 || onPath }, h('summary', {}, h('span', { class: 'module' }, depth === 0 ? `${m.source} (root)` : m.name), h('span', { class: 'muted' }, ` ${count}`)), body);
  let loaded = false;
  const load = async () => {
    if (loaded) return;
    loaded = true;
    const contained = await callAll('neighbors', { ids: [m.id], direction: 'out', edge_types: ['CONTAINS'], limit: 500 }, 'edges');
    for (const e of contained.sort((a, b) => a.other.name.localeCompare(b.other.name))) {
      const o = e.other;
      body.appendChild(h('li', { class: o.kind }, h('a', { href: `#/data/${encodeURIComponent(o.id)}`, 'data-object': o.qualified_name, class: o.id === selected ? 'selected' : undefined }, o.name), h('span', { class: 'muted' }, ` ${o.kind === 'function' ? 'function' : (o.attributes?.object_kind ?? 'data object')}`)));
    }
    for (const k of kids) body.appendChild(h('li', {}, moduleItem(k, children, selected, depth + 1, openTo)));
  };
  details.addEventListener('toggle', () => void load());
  if (depth === 0 || onPath) void load();
  return details;
}

export async function dataObjectPanel(id: string): Promise<HTMLElement> {
  const { node } = await call('describe', { id, source: 'none' });
  const p = node.properties ?? {};
  const typeEdges = await call('neighbors', { ids: [id], direction: 'out', edge_types: [node.kind === 'function' ? 'RETURNS' : 'OBJECT_TYPE'], limit: 5 }).catch(() => ({ edges: [] }));
  const type: Json | undefined = typeEdges.edges?.[0]?.other;
  const fields = type ? await callAll('neighbors', { ids: [type.id], direction: 'out', edge_types: ['HAS_FIELD'], limit: 500 }, 'edges').catch(() => []) : [];
  const relations = node.kind === 'data_object' ? await callAll('neighbors', { ids: [id], direction: 'both', edge_types: ['REFERENCES'], limit: 200 }, 'edges').catch(() => []) : [];
  const skeleton = typeof p.skeleton === 'string' ? p.skeleton : undefined;
  return h(
    'div',
    { class: 'details', 'data-object': node.qualified_name },
    h('h2', {}, node.name, h('span', { class: 'badge' }, node.kind === 'function' ? 'function' : String(p.object_kind ?? 'data object'))),
    h('p', {}, 'Path ', h('code', {}, String(p.graphql_path ?? node.qualified_name)), p.graphql_path ? copyButton(String(p.graphql_path)) : null),
    p.description ? h('p', { class: 'muted' }, String(p.description)) : null,
    skeleton ? [h('h3', {}, 'Query skeleton ', copyButton(skeleton)), h('pre', { class: 'skeleton' }, skeleton)] : null,
    h('h3', {}, `Fields (${fields.length})`),
    fields.length ? h('table', { class: 'fields' }, h('tbody', {}, [...fields].sort(byFieldKind).map((f) => h('tr', {}, h('td', { class: 'code' }, f.other.name), h('td', { class: 'code muted' }, String(f.other.attributes?.type_signature ?? f.attrs?.signature ?? '')), h('td', { class: 'muted' }, String(f.other.attributes?.field_kind ?? '')), h('td', { class: 'muted' }, String(f.other.attributes?.description ?? '')))))) : h('p', { class: 'muted' }, 'No fields recorded.'),
    relations.length ? [h('h3', {}, `Relations (${relations.length})`), h('ul', {}, relations.map((r) => h('li', {}, r.direction === 'out' ? '→ ' : '← ', h('a', { href: `#/data/${encodeURIComponent(r.other.id)}` }, r.other.qualified_name), h('span', { class: 'muted' }, ` ${r.attrs?.field ?? ''} ${r.attrs?.relation_kind ?? ''}`))))] : null,
  );
}

/** Columns first, then relations, then what Hugr generates (aggregations, joins), each by name. */
const FIELD_KIND_ORDER = ['column', 'relation', 'function', 'extra'];
function byFieldKind(a: Json, b: Json): number {
  const rank = (f: Json) => {
    const i = FIELD_KIND_ORDER.indexOf(String(f.other.attributes?.field_kind ?? ''));
    return i < 0 ? FIELD_KIND_ORDER.length : i;
  };
  return rank(a) - rank(b) || String(a.other.name).localeCompare(String(b.other.name));
}
