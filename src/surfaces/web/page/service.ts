/** Details of a service and of a route: from `find`, `links` and `describe`, the tools agents call. */
import { call, callAll, type Json } from './api.js';
import { confidence, copyButton, h, place } from './dom.js';

const STATUS_CLASS: Record<string, string> = { linked: 'ok', deployed: 'ok', external: 'muted', no_consumer: 'muted', resolved: 'ok', guessed: 'warn', ambiguous: 'warn', unmatched: 'bad', unresolved: 'bad' };

function status(s: string): HTMLElement {
  return h('span', { class: `status ${STATUS_CLASS[s] ?? ''}` }, s);
}

function routeLink(r: Json): HTMLElement {
  return h('a', { href: `#/route/${encodeURIComponent(r.id)}` }, r.name ?? r.qualified_name);
}

function targetCell(t: Json): HTMLElement {
  return h(
    'div',
    { class: 't' },
    t.declared && t.id ? h('a', { href: `#/route/${encodeURIComponent(t.id)}` }, t.qualified_name) : h('span', {}, t.qualified_name),
    t.via ? h('span', { class: 'muted' }, ` via ${t.via}`) : null,
    t.confidence !== undefined ? h('span', { class: 'conf', title: t.strategy ?? '' }, ` ${confidence(t.confidence)}`) : null,
  );
}

export async function servicePanel(name: string, map: { services: Json[]; calls: Json[] }): Promise<HTMLElement> {
  const svc = map.services.find((s) => s.name === name);
  if (!svc) return h('div', { class: 'empty' }, `No service named ${name} in this index.`);
  const [routes, links] = await Promise.all([callAll('find', { kind: 'route', filter: { service: name }, limit: 500 }, 'results'), callAll('links', { service: [name], include: 'all', limit: 2000 }, 'links')]);
  const attr = (r: Json, k: string) => r.attributes?.[k] ?? r[k];
  const all = routes.filter((r) => attr(r, 'declared') !== false && attr(r, 'framework') !== 'spring_cloud_gateway' && attr(r, 'framework') !== 'zuul');
  const declared = all.filter((r) => attr(r, 'framework') !== 'actuator');
  const actuator = all.length - declared.length;
  const outbound = links.filter((l) => l.kind === 'http' || l.kind === 'message');
  const gateway = links.filter((l) => l.kind === 'gateway');
  const callers = map.calls.filter((c) => c.to === name);
  return h(
    'div',
    { class: 'details', 'data-service': name },
    h('h2', {}, name, svc.gateway ? h('span', { class: 'badge gateway' }, 'gateway') : null),
    h('p', { class: 'muted' }, [svc.directory ? `directory ${svc.directory}` : '', svc.modules?.length ? `modules ${svc.modules.join(', ')}` : ''].filter(Boolean).join(' · ')),
    h('h3', {}, `Routes (${declared.length})`),
    declared.length
      ? h('table', { class: 'routes' }, h('thead', {}, h('tr', {}, h('th', {}, 'Route'), h('th', {}, 'Handler'))), h('tbody', {}, declared.map((r) => h('tr', {}, h('td', {}, routeLink(r)), h('td', {}, sourceToggle(attr(r, 'handler')), h('div', { class: 'where' }, place(r)))))))
      : h('p', { class: 'muted' }, 'No routes.'),
    actuator ? h('p', { class: 'muted' }, `and ${actuator} Actuator route${actuator > 1 ? 's' : ''}`) : null,
    gateway.length ? [h('h3', {}, `Gateway routes (${gateway.length})`), h('table', {}, h('tbody', {}, gateway.map((g) => h('tr', {}, h('td', {}, h('a', { href: `#/route/${encodeURIComponent(g.id)}` }, g.name), h('div', { class: 'where' }, place(g))), h('td', {}, status(g.status)), h('td', {}, (g.target_services ?? []).join(', '))))))] : null,
    h('h3', {}, `Clients and producers (${outbound.length})`),
    outbound.length
      ? h('table', { class: 'links' }, h('thead', {}, h('tr', {}, h('th', {}, 'Call'), h('th', {}, 'Status'), h('th', {}, 'Targets (confidence)'))), h('tbody', {}, outbound.map((l) => h('tr', {}, h('td', {}, h('div', {}, l.kind === 'message' ? `${l.protocol} ${l.destination ?? l.name}` : l.name), sourceToggle(l.member), h('div', { class: 'where' }, place(l))), h('td', {}, status(l.status), l.reason ? h('div', { class: 'reason' }, l.reason) : null), h('td', {}, l.targets.map(targetCell))))))
      : h('p', { class: 'muted' }, 'No clients or producers.'),
    h('h3', {}, `Called by (${callers.length})`),
    callers.length ? h('ul', {}, callers.map((c) => h('li', {}, h('a', { href: `#/service/${encodeURIComponent(c.from)}` }, c.from), ` — ${c.protocol} ×${c.calls}`))) : h('p', { class: 'muted' }, 'No service calls it.'),
  );
}

/** A method's short name that opens to its source (read by `describe` when first opened). */
function sourceToggle(qn: unknown): HTMLElement {
  if (typeof qn !== 'string' || !qn) return h('span', {});
  const pre = h('pre', { class: 'source' }, 'Loading…');
  const box = h('details', { class: 'declaration' }, h('summary', { class: 'code', title: qn }, shortHandler(qn)), pre);
  box.addEventListener('toggle', () => {
    if (!box.open || pre.dataset.loaded) return;
    pre.dataset.loaded = 'yes';
    void call('describe', { id: qn, source: 'full', max_lines: 40 }).then(
      (d) => (pre.textContent = d.node?.code?.available ? codeText(d.node.code) : `(source not available: ${String(d.node?.code?.reason ?? 'not recorded')})`),
      (err: Error) => (pre.textContent = err.message),
    );
  });
  return box;
}

/** `pkg.Type#method(Args)` as `Type#method(Args)`. */
export function shortHandler(qn: unknown): string {
  if (typeof qn !== 'string') return '';
  const hash = qn.indexOf('#');
  const type = hash < 0 ? qn : qn.slice(0, hash);
  return type.slice(type.lastIndexOf('.') + 1) + (hash < 0 ? '' : qn.slice(hash));
}

export async function routePanel(id: string): Promise<HTMLElement> {
  const { node } = await call('describe', { id, source: 'none' });
  const props = node.properties ?? {};
  const handler = typeof props.handler === 'string' ? props.handler : undefined;
  const code = handler ? await call('describe', { id: handler, source: 'full', max_lines: 40 }).then((d) => d.node?.code as Json | undefined, () => undefined) : undefined;
  const callers: Json[] = node.callers ?? [];
  const forwards = (await call('neighbors', { ids: [id], direction: 'both', edge_types: ['FORWARDS'], limit: 100 }).catch(() => ({ edges: [] }))).edges as Json[];
  return h(
    'div',
    { class: 'details', 'data-route': id, 'data-in-service': node.service },
    h('h2', {}, node.name),
    h('p', { class: 'muted' }, `${node.service ?? ''} · ${place(node)}`),
    h('p', {}, h('a', { class: 'button', href: `#/trace/${encodeURIComponent(id)}` }, 'Trace this request →'), ' ', node.service ? h('a', { href: `#/service/${encodeURIComponent(node.service)}` }, `back to ${node.service}`) : null),
    handler ? h('p', {}, 'Handler ', h('code', {}, handler)) : null,
    h('h3', {}, `Callers (${callers.length})`),
    callers.length
      ? h('table', {}, h('tbody', {}, callers.map((c) => h('tr', {}, h('td', {}, c.service ?? ''), h('td', {}, h('div', {}, c.via?.name ?? ''), h('div', { class: 'code muted' }, shortHandler(c.caller)), h('div', { class: 'where' }, place(c.via))), h('td', {}, c.match ?? c.edge ?? ''), h('td', { class: 'conf' }, confidence(c.confidence))))))
      : h('p', { class: 'muted' }, 'No client, producer or gateway route in the index reaches it.'),
    forwards.length ? [h('h3', {}, 'Gateway'), h('ul', {}, forwards.map((f) => h('li', {}, f.direction === 'out' ? 'forwards to ' : 'forwarded from ', h('a', { href: `#/route/${encodeURIComponent(f.other.id)}` }, f.other.qualified_name))))] : null,
    code?.available ? [h('h3', {}, 'Source ', copyButton(codeText(code))), h('pre', { class: 'source' }, codeText(code))] : null,
  );
}

function codeText(code: Json): string {
  return typeof code.text === 'string' ? code.text : typeof code.signature === 'string' ? code.signature : '';
}
