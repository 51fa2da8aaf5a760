/** What the page tells tests and the bench on `window.sextant` (no DOM types: Node code imports it too). */
export interface PageState {
  /** The current view is drawn (or has shown its error). */
  ready: boolean;
  view: string;
  /** ELK's layout of the map, and the whole first map (service_map call, layout, draw), in ms. */
  layoutMs?: number;
  firstMapMs?: number;
  positions?: () => Record<string, { x: number; y: number }>;
  /** Ids of the map's edges on screen (`c:<from>><to>:<protocol>`, `x:…` external, `o:…` open calls). */
  visibleEdges?: () => string[];
  /** Where a map node is on the page, in CSS pixels (for a click). */
  nodePoint?: (id: string) => { x: number; y: number } | undefined;
  error?: string;
}
