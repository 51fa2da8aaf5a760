/**
 * The page's router: every view has a URL (`#/`, `#/service/<name>`, `#/route/<id>`, `#/trace/<id>`, `#/data`,
 * `#/data/<id>`) a person can paste in a review or chat. The map is drawn once and kept while the views beside it
 * change; `window.sextant` tells tests and the bench when a view is ready and where the map put each node.
 */
import { call, ToolFailure, type Json } from './api.js';
import { moduleTree, dataObjectPanel } from './data.js';
import { clear, h } from './dom.js';
import { drawMap, PROTOCOL_COLORS, type MapData, type MapView } from './map.js';
import { routePanel, servicePanel } from './service.js';
import type { PageState } from './state.js';
import { traceView } from './trace.js';

const state: PageState = { ready: false, view: '' };
(window as unknown as { sextant: PageState }).sextant = state;

const canvas = document.getElementById('canvas')!;
const panel = document.getElementById('panel')!;
const mapHost = h('div', { id: 'map', 'aria-label': 'service map' });
const toolbar = document.getElementById('toolbar')!;
let mapData: MapData | undefined;
let mapView: MapView | undefined;
let mapping: Promise<MapView | undefined> | undefined;
const protocols = new Set<string>();

function route(): { view: string; arg?: string } {
  const [, view = '', ...rest] = location.hash.replace(/^#/, '').split('/');
  const arg = rest.length ? decodeURIComponent(rest.join('/')) : undefined;
  return { view, ...(arg !== undefined ? { arg } : {}) };
}

async function ensureMap(): Promise<MapView | undefined> {
  mapping ??= (async () => {
    const started = performance.now();
    mapData = (await call('service_map', {})) as unknown as MapData;
    if (!mapData.services.length) return undefined;
    canvas.appendChild(mapHost);
    const view = await drawMap(mapHost, mapData, (name) => (location.hash = `#/service/${encodeURIComponent(name)}`));
    state.layoutMs = view.layoutMs;
    state.firstMapMs = performance.now() - started;
    state.positions = view.positions;
    state.visibleEdges = () => view.cy.edges().filter((e) => e.visible()).map((e) => e.id()).sort();
    state.nodePoint = (id) => {
      const n = view.cy.getElementById(id);
      if (n.empty()) return undefined;
      const box = mapHost.getBoundingClientRect();
      const p = n.renderedPosition();
      return { x: box.left + p.x, y: box.top + p.y };
    };
    buildToolbar(mapData, view);
    return view;
  })();
  return mapping;
}

function buildToolbar(data: MapData, view: MapView): void {
  const present = [...new Set([...data.calls.map((c) => String(c.protocol)), ...(data.external.length || data.open.length ? ['http'] : [])])].sort();
  for (const p of present) protocols.add(p);
  const names = data.services.map((s) => String(s.name));
  const list = h('datalist', { id: 'service-names' }, names.map((n) => h('option', { value: n })));
  const search = h('input', { id: 'focus', type: 'search', list: 'service-names', placeholder: 'Find a service…', 'aria-label': 'find a service' });
  search.addEventListener('change', () => {
    const v = search.value.trim();
    const hit = names.find((n) => n === v) ?? names.find((n) => n.toLowerCase().includes(v.toLowerCase()));
    if (hit) location.hash = `#/service/${encodeURIComponent(hit)}`;
  });
  const chips = present.map((p) => {
    const box = h('input', { type: 'checkbox', checked: true, 'data-protocol': p });
    box.addEventListener('change', () => {
      if (box.checked) protocols.add(p);
      else protocols.delete(p);
      view.filter(protocols);
    });
    return h('label', { class: 'chip', style: `--c: ${PROTOCOL_COLORS[p] ?? '#475569'}` }, box, p);
  });
  clear(toolbar, search, list, h('span', { class: 'chips' }, chips));
}

function showMap(visible: boolean): void {
  mapHost.style.display = visible ? '' : 'none';
  toolbar.style.display = visible ? '' : 'none';
  for (const el of canvas.querySelectorAll(':scope > :not(#map)')) el.remove();
}

function overview(data: MapData | undefined): HTMLElement {
  if (!data?.services.length) return h('div', { class: 'empty' }, 'No services in this index. ', h('a', { href: '#/data' }, 'See the data platform'), ' or index a Java or Kotlin estate.');
  const calls = data.calls.filter((c) => c.protocol !== 'gateway');
  const open = data.open.reduce((n, o) => n + Number(o.count), 0);
  return h(
    'div',
    { class: 'details' },
    h('h2', {}, 'Service map'),
    h('p', {}, `${data.services.length} services, ${calls.length} service-to-service edges, ${data.calls.length - calls.length} gateway edges, ${data.external.length} external hosts, ${open} calls that reach no declared route.`),
    h('p', { class: 'muted' }, 'Click a service for its routes, clients and producers; a route for its callers and its path across services. Dashed edges: some calls did not match a route; red tags: unresolved, ambiguous or unmatched calls; dotted: hosts outside the estate.'),
    h('ul', { class: 'legend' }, Object.entries(PROTOCOL_COLORS).filter(([p]) => protocols.has(p)).map(([p, c]) => h('li', {}, h('span', { class: 'swatch', style: `background: ${c}` }), p))),
  );
}

async function render(): Promise<void> {
  const { view, arg } = route();
  state.ready = false;
  state.view = view || 'map';
  delete state.error;
  document.querySelectorAll('nav a').forEach((a) => a.classList.toggle('active', (a.getAttribute('data-view') ?? '') === (view === 'data' ? 'data' : 'map')));
  clear(panel, h('p', { class: 'muted' }, 'Loading…'));
  try {
    if (view === 'trace' && arg) {
      showMap(false);
      const el = await traceView(arg);
      canvas.appendChild(el);
      clear(panel, h('div', { class: 'details' }, h('h2', {}, 'Reading a trace'), h('p', { class: 'muted' }, 'Each row is a step of the request: the route it arrives at, then each call from one service to another — the client or producer, the route it reaches, the handler there, and how sure the link is (confidence and the strategy that made it).')));
    } else if (view === 'data') {
      showMap(false);
      canvas.appendChild(await moduleTree(arg));
      clear(panel, arg ? await dataObjectPanel(arg) : h('div', { class: 'details' }, h('h2', {}, 'Data platform'), h('p', { class: 'muted' }, 'Open a module, then a data object or function for its path, fields, relations and query skeleton.')));
    } else {
      showMap(true);
      const map = await ensureMap();
      if (view === 'service' && arg) {
        if (!map?.focus(arg)) throw new Error(`No service named ${arg} in this index.`);
        clear(panel, await servicePanel(arg, mapData!));
      } else if (view === 'route' && arg) {
        const el = await routePanel(arg);
        map?.focus(el.dataset.inService || undefined);
        clear(panel, el);
      } else {
        map?.focus(undefined);
        clear(panel, overview(mapData));
        if (!map) clear(canvas, overview(mapData));
      }
    }
  } catch (err) {
    state.error = err instanceof ToolFailure ? err.message : String((err as Error).message ?? err);
    clear(panel, h('div', { class: 'error' }, h('h2', {}, 'Could not show this view'), h('p', {}, state.error), h('p', {}, h('a', { href: '#/' }, 'Back to the map'))));
  }
  state.ready = true;
}

async function header(): Promise<void> {
  const info = (await fetch('/api/info').then((r) => r.json()).catch(() => ({}))) as Json;
  const el = document.getElementById('index');
  if (el && info.index) el.textContent = `${info.index} · v${info.version}`;
}

window.addEventListener('hashchange', () => void render());
void header();
void render();
