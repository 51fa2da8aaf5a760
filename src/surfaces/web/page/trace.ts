/**
 * A request's path across services, drawn as a sequence: one lane per service, the entry route and its handler, then
 * each crossing (client or producer → route in another service, with the handler there and the hop's confidence) in
 * the order `trace` walks them.
 */
import { call, type Json } from './api.js';
import { confidence, h, place } from './dom.js';
import { PROTOCOL_COLORS } from './map.js';
import { shortHandler } from './service.js';

interface Step {
  from: string;
  to: string;
  label: string;
  detail: HTMLElement[];
  confidence?: number;
  protocol: string;
  depth: number;
}

export async function traceView(id: string): Promise<HTMLElement> {
  const t = await call('trace', { from: id });
  const from: Json = t.from;
  const lanes: string[] = [];
  const lane = (s: string | undefined) => {
    const name = s ?? '(no service)';
    if (!lanes.includes(name)) lanes.push(name);
    return name;
  };
  lane(from.service);
  const steps: Step[] = [];
  steps.push({ from: lane(from.service), to: lane(from.service), label: from.name, protocol: 'http', depth: 0, detail: [h('div', { class: 'code' }, t.from_handler ? shortHandler(t.from_handler) : ''), h('div', { class: 'where' }, place(from))] });
  for (const c of t.crossings ?? []) {
    const route: Json = c.route ?? {};
    const via: Json = c.via ?? {};
    const isGateway = c.edge_type === 'FORWARDS';
    steps.push({
      from: lane(c.from_service),
      to: lane(c.to_service ?? route.service ?? `${String(route.qualified_name ?? '?').split(' ')[0]} (external)`),
      label: `${route.name ?? route.qualified_name ?? '?'}`,
      protocol: isGateway ? 'gateway' : String(via.protocol ?? route.protocol ?? 'http'),
      depth: c.depth,
      confidence: c.confidence,
      detail: [
        h('div', {}, isGateway ? 'gateway route ' : `${via.kind ?? 'call'} `, h('span', { class: 'code' }, via.name ?? ''), c.caller ? h('span', { class: 'muted' }, ` in ${shortHandler(c.caller)}`) : null),
        h('div', { class: 'where' }, place(via)),
        h('div', {}, '→ ', route.id && route.declared !== false ? h('a', { href: `#/route/${encodeURIComponent(route.id)}` }, route.qualified_name) : h('span', {}, route.qualified_name ?? ''), c.handler ? h('span', { class: 'code' }, ` · ${shortHandler(c.handler)}`) : null),
        h('div', { class: 'muted' }, `confidence ${confidence(c.confidence)} · ${c.strategy ?? ''} · ${c.match ?? c.edge_type}`),
      ],
    });
  }
  const grid = h('div', { class: 'sequence', style: `grid-template-columns: repeat(${lanes.length}, minmax(220px, 1fr))` });
  lanes.forEach((l, i) => grid.appendChild(h('div', { class: 'lane-head', style: `grid-column: ${i + 1}; grid-row: 1` }, h('a', { href: `#/service/${encodeURIComponent(l)}` }, l))));
  steps.forEach((s, row) => {
    const a = lanes.indexOf(s.from);
    const b = lanes.indexOf(s.to);
    const [lo, hi] = a <= b ? [a, b] : [b, a];
    const color = PROTOCOL_COLORS[s.protocol] ?? '#475569';
    grid.appendChild(
      h(
        'div',
        { class: `step ${a === b ? 'self' : a < b ? 'right' : 'left'}`, 'data-step': row, 'data-from': s.from, 'data-to': s.to, style: `grid-column: ${lo + 1} / ${hi + 2}; grid-row: ${row + 2}; --hop: ${color}` },
        h('div', { class: 'arrow' }, h('span', { class: 'proto' }, a === b ? 'request' : s.protocol), s.confidence !== undefined ? h('span', { class: 'conf' }, confidence(s.confidence)) : null),
        h('div', { class: 'label' }, s.label),
        ...s.detail,
      ),
    );
  });
  const services: Json[] = t.services ?? [];
  return h(
    'div',
    { class: 'trace', 'data-trace': id },
    h('h2', {}, 'Request ', h('span', { class: 'code' }, from.qualified_name)),
    h('p', { class: 'muted' }, `${services.length} service${services.length === 1 ? '' : 's'}, ${(t.crossings ?? []).length} hop${(t.crossings ?? []).length === 1 ? '' : 's'} across services${t.truncated ? ' (the walk stopped at its bound)' : ''}.`, ' ', h('a', { href: `#/route/${encodeURIComponent(from.id)}` }, 'route details')),
    grid,
    (t.crossings ?? []).length ? null : h('p', { class: 'empty' }, t.absence?.message ?? 'This request stays in its service: no client or producer on its path reaches another service.'),
  );
}
