/**
 * The service map: services as nodes, SERVICE_CALLS and gateway forwards as directed edges labelled by protocol and
 * call count, external hosts and each service's open calls (unresolved, ambiguous, unmatched, guessed) as nodes of
 * their own. Laid out by ELK's layered algorithm (deterministic: the same map gives the same positions) in a Web
 * Worker, so a large estate's layout never freezes the page, and drawn by Cytoscape.js with the positions ELK chose.
 */
import cytoscape, { type Core, type ElementDefinition } from 'cytoscape';
import ELK from 'elkjs/lib/elk-api.js';
import type { Json } from './api.js';

export const PROTOCOL_COLORS: Record<string, string> = { http: '#2563eb', gateway: '#d97706', kafka: '#059669', rabbit: '#db2777', jms: '#7c3aed', sqs: '#0891b2', sns: '#0891b2', servicebus: '#0e7490', axon: '#9333ea', eventuate: '#65a30d' };
const OPEN_LABEL: Record<string, string> = { unresolved: 'unresolved', ambiguous: 'ambiguous', unmatched: 'unmatched', guessed: 'guessed' };

export interface MapData {
  services: Json[];
  calls: Json[];
  external: Json[];
  open: Json[];
}

export interface MapView {
  cy: Core;
  layoutMs: number;
  /** Select a service, center the view on it and its neighbours; false when there is none of that name. */
  focus(name: string | undefined): boolean;
  /** Show only edges of these protocols (external hosts count as http). */
  filter(protocols: ReadonlySet<string>): void;
  positions(): Record<string, { x: number; y: number }>;
}

const CHAR_WIDTH = 7.4;
/** Nodes past which the layout trades straightness for speed. */
const LARGE_MAP = 40;

function serviceLabel(s: Json): string {
  const parts: string[] = [];
  if (s.routes) parts.push(`${s.routes} route${s.routes > 1 ? 's' : ''}`);
  if (s.listeners) parts.push(`${s.listeners} listener${s.listeners > 1 ? 's' : ''}`);
  if (s.gateway_routes) parts.push(`${s.gateway_routes} gateway route${s.gateway_routes > 1 ? 's' : ''}`);
  if (s.clients) parts.push(`${s.clients} client${s.clients > 1 ? 's' : ''}`);
  if (s.producers) parts.push(`${s.producers} producer${s.producers > 1 ? 's' : ''}`);
  return `${s.name}\n${parts.join(' · ') || (s.deployed_only ? 'deployed, no source' : 'no routes or calls')}`;
}

function size(label: string): { width: number; height: number } {
  const lines = label.split('\n');
  return { width: Math.round(Math.max(...lines.map((l) => l.length)) * CHAR_WIDTH + 28), height: 22 + lines.length * 16 };
}

export function elements(data: MapData): ElementDefinition[] {
  const out: ElementDefinition[] = [];
  for (const s of data.services) {
    const label = serviceLabel(s);
    out.push({ group: 'nodes', data: { id: `svc:${s.name}`, name: s.name, label, kind: s.gateway ? 'gateway' : s.deployed_only ? 'deployed' : 'service', ...size(label) } });
  }
  for (const e of data.external) {
    const id = `ext:${e.host}`;
    if (!out.some((x) => x.data.id === id)) {
      const label = `${e.host}\nexternal`;
      out.push({ group: 'nodes', data: { id, label, kind: 'external', ...size(label) } });
    }
    out.push({ group: 'edges', data: { id: `x:${e.from}>${e.host}`, source: `svc:${e.from}`, target: id, protocol: 'http', label: `http ×${e.calls}`, kind: 'external', calls: e.calls } });
  }
  const openBy = new Map<string, Json[]>();
  for (const o of data.open) (openBy.get(o.service) ?? openBy.set(o.service, []).get(o.service)!).push(o);
  for (const [service, list] of openBy) {
    const label = list.map((o) => `${o.count} ${OPEN_LABEL[o.status] ?? o.status}`).join('\n');
    const id = `open:${service}`;
    out.push({ group: 'nodes', data: { id, label, kind: 'open', ...size(label) } });
    out.push({ group: 'edges', data: { id: `o:${service}`, source: `svc:${service}`, target: id, protocol: 'http', label: '', kind: 'open', calls: list.reduce((n, o) => n + o.count, 0) } });
  }
  for (const c of data.calls) {
    const partial = c.matched < c.calls;
    out.push({
      group: 'edges',
      data: { id: `c:${c.from}>${c.to}:${c.protocol}`, source: `svc:${c.from}`, target: `svc:${c.to}`, protocol: c.protocol, label: `${c.protocol} ×${c.calls}${partial ? ` (${c.matched} matched)` : ''}`, kind: partial ? 'partial' : 'call', calls: c.calls, confidence: c.confidence },
    });
  }
  return out;
}

/**
 * Node positions from ELK's layered layout, left to right. A small estate gets network-simplex node placement (the
 * straightest edges); past LARGE_MAP nodes, Brandes-Köpf placement and a lighter crossing minimisation lay 100
 * services out in under two seconds (network simplex took 7 s there; wrapping long chains into rows cost 40% more
 * for little gain in what fits on a screen).
 */
export async function layout(els: readonly ElementDefinition[]): Promise<Map<string, { x: number; y: number }>> {
  const elk = new ELK({ workerUrl: '/assets/elk-worker.js' });
  const nodes = els.filter((e) => e.group === 'nodes');
  const edges = els.filter((e) => e.group === 'edges');
  const graph = await elk
    .layout({
    id: 'root',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': 'RIGHT',
      'elk.spacing.nodeNode': '28',
      'elk.layered.spacing.nodeNodeBetweenLayers': '90',
      'elk.layered.crossingMinimization.strategy': 'LAYER_SWEEP',
      ...(nodes.length > LARGE_MAP
        ? { 'elk.layered.nodePlacement.strategy': 'BRANDES_KOEPF', 'elk.layered.thoroughness': '3' }
        : { 'elk.layered.nodePlacement.strategy': 'NETWORK_SIMPLEX', 'elk.layered.considerModelOrder.strategy': 'NODES_AND_EDGES' }),
      'elk.separateConnectedComponents': 'true',
      'elk.spacing.componentComponent': '50',
      'elk.randomSeed': '1',
    },
    children: nodes.map((n) => ({ id: String(n.data.id), width: Number(n.data.width), height: Number(n.data.height) })),
    edges: edges.map((e) => ({ id: String(e.data.id), sources: [String(e.data.source)], targets: [String(e.data.target)] })),
    })
    .finally(() => elk.terminateWorker());
  const out = new Map<string, { x: number; y: number }>();
  for (const c of graph.children ?? []) out.set(c.id, { x: Math.round((c.x ?? 0) + (c.width ?? 0) / 2), y: Math.round((c.y ?? 0) + (c.height ?? 0) / 2) });
  return out;
}

export async function drawMap(container: HTMLElement, data: MapData, onSelect: (service: string) => void): Promise<MapView> {
  const els = elements(data);
  const started = performance.now();
  const positions = await layout(els);
  const layoutMs = performance.now() - started;
  for (const e of els) if (e.group === 'nodes') e.position = positions.get(String(e.data.id)) ?? { x: 0, y: 0 };
  const cy = cytoscape({
    container,
    elements: els,
    layout: { name: 'preset' },
    minZoom: 0.02,
    maxZoom: 3,
    boxSelectionEnabled: false,
    style: [
      { selector: 'node', style: { shape: 'round-rectangle', width: 'data(width)', height: 'data(height)', label: 'data(label)', 'text-wrap': 'wrap', 'text-valign': 'center', 'text-halign': 'center', 'font-size': 12, 'min-zoomed-font-size': 5, 'font-family': 'system-ui, sans-serif', color: '#0f172a', 'background-color': '#f8fafc', 'border-width': 1.5, 'border-color': '#334155' } },
      { selector: 'node[kind = "gateway"]', style: { shape: 'cut-rectangle', 'background-color': '#fef3c7', 'border-color': '#b45309', 'border-width': 2 } },
      { selector: 'node[kind = "deployed"]', style: { 'border-style': 'dashed', 'background-color': '#f1f5f9' } },
      { selector: 'node[kind = "external"]', style: { shape: 'ellipse', 'background-color': '#e2e8f0', 'border-color': '#64748b', 'border-style': 'dotted', color: '#334155' } },
      { selector: 'node[kind = "open"]', style: { shape: 'round-tag', 'background-color': '#fef2f2', 'border-color': '#dc2626', 'border-style': 'dashed', color: '#991b1b', 'font-size': 11 } },
      { selector: 'node:selected', style: { 'border-width': 4, 'border-color': '#0ea5e9', 'background-color': '#e0f2fe' } },
      { selector: 'node.faded, edge.faded', style: { opacity: 0.18 } },
      { selector: 'edge', style: { 'curve-style': 'bezier', 'target-arrow-shape': 'triangle', 'arrow-scale': 1.1, width: 'mapData(calls, 1, 20, 1.5, 6)', 'line-color': '#2563eb', 'target-arrow-color': '#2563eb', label: 'data(label)', 'font-size': 10, 'min-zoomed-font-size': 6, 'text-background-color': '#ffffff', 'text-background-opacity': 0.85, 'text-background-padding': '2px', 'text-rotation': 'autorotate', color: '#1e293b' } },
      ...Object.entries(PROTOCOL_COLORS).map(([p, c]) => ({ selector: `edge[protocol = "${p}"]`, style: { 'line-color': c, 'target-arrow-color': c } })),
      { selector: 'edge[kind = "partial"]', style: { 'line-style': 'dashed' } },
      { selector: 'edge[kind = "external"]', style: { 'line-style': 'dotted', 'line-color': '#64748b', 'target-arrow-color': '#64748b' } },
      { selector: 'edge[kind = "open"]', style: { 'line-style': 'dashed', 'line-color': '#dc2626', 'target-arrow-color': '#dc2626', 'target-arrow-shape': 'tee' } },
      { selector: 'edge.hidden, node.hidden', style: { display: 'none' } },
    ],
  });
  cy.on('tap', 'node', (evt) => {
    const name = evt.target.data('name');
    if (typeof name === 'string') onSelect(name);
  });
  // An edge stands for calls its origin makes: its service view lists them with their targets.
  cy.on('tap', 'edge', (evt) => {
    const from = evt.target.source().data('name');
    if (typeof from === 'string') onSelect(from);
  });
  cy.fit(undefined, 30);
  return {
    cy,
    layoutMs,
    focus(name) {
      cy.elements().removeClass('faded').unselect();
      if (!name) {
        cy.animate({ fit: { eles: cy.elements(':visible'), padding: 30 } }, { duration: 200 });
        return true;
      }
      const node = cy.getElementById(`svc:${name}`);
      if (node.empty()) return false;
      node.select();
      const around = node.closedNeighborhood();
      cy.elements().not(around).addClass('faded');
      cy.animate({ fit: { eles: around, padding: 60 } }, { duration: 200 });
      return true;
    },
    filter(protocols) {
      cy.batch(() => {
        cy.edges().forEach((e) => {
          e.toggleClass('hidden', !protocols.has(String(e.data('protocol'))));
        });
        cy.nodes('[kind = "external"], [kind = "open"]').forEach((n) => {
          const edges = n.connectedEdges();
          n.toggleClass('hidden', edges.filter('.hidden').length === edges.length);
        });
      });
    },
    positions() {
      const out: Record<string, { x: number; y: number }> = {};
      cy.nodes().forEach((n) => {
        const p = n.position();
        out[n.id()] = { x: Math.round(p.x), y: Math.round(p.y) };
      });
      return out;
    },
  };
}
