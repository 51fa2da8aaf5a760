import { createHash } from 'node:crypto';
import type { EdgeAttrDef, EdgeTypeDef, FilterOp, NodeKindDef, OntologyModule, PropertyDef, PropertyType } from './types.js';

/** Bumped whenever the on-disk layout changes independently of the ontology declarations. */
export const STORE_FORMAT = 2;

/** Properties every node has. `location` ones apply only to kinds that list them. */
export const CORE_PROPERTIES: readonly PropertyDef[] = [
  { name: 'name', type: 'string', description: 'Simple name.', filter: ['eq', 'prefix', 'contains'] },
  { name: 'qualified_name', type: 'string', description: 'Fully qualified name, unique within a source for most kinds.', filter: ['eq', 'prefix', 'contains'] },
  { name: 'source', type: 'string', description: 'Name of the indexed source (from sextant.yaml, or inferred).', filter: ['eq'] },
];
export const LOCATION_PROPERTIES: readonly PropertyDef[] = [
  { name: 'service', type: 'string', description: 'Deployable service the node belongs to.', filter: ['eq'] },
  { name: 'module', type: 'string', description: 'Module (dotted for data APIs, build module for code).', filter: ['eq', 'prefix'] },
  { name: 'file', type: 'string', description: 'File the node is declared in, relative to the source root.', filter: ['eq', 'contains'] },
  { name: 'line', type: 'integer', description: 'Line of the declaration (1-based).' },
];
export const CORE_COLUMNS = new Set(['name', 'qualified_name', 'source', 'service', 'module', 'file', 'line']);

/** Attributes every inferred edge carries. */
export const INFERRED_EDGE_ATTRS: readonly EdgeAttrDef[] = [
  { name: 'confidence', type: 'number', description: 'How sure the inference is, 0..1.' },
  { name: 'strategy', type: 'string', description: 'How the edge was inferred.', filterable: true },
];

/** One field accepted in a `filter` object, derived from a property and a filter operation. */
export interface FilterField {
  field: string;
  property: string;
  op: 'eq' | 'prefix' | 'contains' | 'exclude' | 'min' | 'max';
  type: PropertyType;
  values?: readonly string[];
  description: string;
}

export function filterFieldsOf(prop: PropertyDef): FilterField[] {
  const out: FilterField[] = [];
  const base = { property: prop.name, type: prop.type, ...(prop.values ? { values: prop.values } : {}) };
  for (const op of prop.filter ?? ([] as FilterOp[])) {
    switch (op) {
      case 'eq':
        out.push({ ...base, field: prop.name, op: 'eq', description: prop.type === 'string_list' ? `has any of these ${prop.name}` : prop.type === 'boolean' ? `${prop.name} is true/false` : `${prop.name} equals (a list means any of them)` });
        break;
      case 'prefix':
        out.push({ ...base, field: `${prop.name}_prefix`, op: 'prefix', description: `${prop.name} starts with (a list means any of them)` });
        break;
      case 'contains':
        out.push({ ...base, field: `${prop.name}_contains`, op: 'contains', description: `${prop.name} contains this text (case-insensitive)` });
        break;
      case 'exclude':
        out.push({ ...base, field: `exclude_${prop.name}`, op: 'exclude', description: `${prop.name} is none of these` });
        break;
      case 'range':
        out.push({ ...base, field: `min_${prop.name}`, op: 'min', description: `${prop.name} ≥ this` });
        out.push({ ...base, field: `max_${prop.name}`, op: 'max', description: `${prop.name} ≤ this` });
        break;
    }
  }
  return out;
}

export interface KindInfo {
  def: NodeKindDef;
  sourceKind: string;
  /** Every property a node of this kind has, core first. */
  properties: PropertyDef[];
  filterFields: Map<string, FilterField>;
}

export class OntologyError extends Error {}

/** The merged ontology of every registered source kind. Immutable once built. */
export class Ontology {
  readonly modules: readonly OntologyModule[];
  readonly version: string;
  private readonly kindsByName = new Map<string, KindInfo>();
  private readonly kindsByPrefix = new Map<string, string>();
  private readonly edgesByName = new Map<string, EdgeTypeDef>();
  /** Non-core scalar properties that can be filtered, by name (one type per name across kinds). */
  readonly indexedProperties = new Map<string, PropertyDef>();
  /** Properties of type string_list that can be filtered; stored as terms. */
  readonly listProperties = new Map<string, PropertyDef>();

  constructor(modules: readonly OntologyModule[]) {
    this.modules = [...modules].sort((a, b) => a.sourceKind.localeCompare(b.sourceKind));
    for (const mod of this.modules) {
      for (const kind of mod.nodeKinds) this.addKind(kind, mod.sourceKind);
      for (const edge of mod.edgeTypes) this.addEdge(edge);
    }
    for (const edge of this.edgesByName.values()) {
      for (const k of [...edge.from, ...edge.to]) {
        if (!this.kindsByName.has(k)) throw new OntologyError(`edge type ${edge.name} names unknown node kind ${k}`);
      }
    }
    this.version = createHash('sha256')
      .update(JSON.stringify({ format: STORE_FORMAT, modules: this.modules }))
      .digest('hex')
      .slice(0, 12);
  }

  private addKind(def: NodeKindDef, sourceKind: string): void {
    if (this.kindsByName.has(def.name)) throw new OntologyError(`node kind ${def.name} is declared twice`);
    if (this.kindsByPrefix.has(def.idPrefix)) throw new OntologyError(`id prefix ${def.idPrefix} is used by ${this.kindsByPrefix.get(def.idPrefix)} and ${def.name}`);
    const location = LOCATION_PROPERTIES.filter((p) => def.location.includes(p.name as never));
    const properties = [...CORE_PROPERTIES, ...location, ...def.properties];
    const filterFields = new Map<string, FilterField>();
    for (const prop of properties) {
      if (!CORE_COLUMNS.has(prop.name) && prop.filter?.length) {
        const table = prop.type === 'string_list' ? this.listProperties : this.indexedProperties;
        const other = this.indexedProperties.get(prop.name) ?? this.listProperties.get(prop.name);
        if (other && other.type !== prop.type) throw new OntologyError(`property ${prop.name} has type ${other.type} in one kind and ${prop.type} in ${def.name}`);
        if (!other) table.set(prop.name, prop);
      }
      for (const f of filterFieldsOf(prop)) filterFields.set(f.field, f);
    }
    this.kindsByName.set(def.name, { def, sourceKind, properties, filterFields });
    this.kindsByPrefix.set(def.idPrefix, def.name);
  }

  private addEdge(def: EdgeTypeDef): void {
    const existing = this.edgesByName.get(def.name);
    if (!existing) {
      this.edgesByName.set(def.name, def);
      return;
    }
    // The same edge type may be declared by several source kinds (IMPLEMENTS in code and GraphQL): merge endpoints.
    this.edgesByName.set(def.name, {
      ...existing,
      from: [...new Set([...existing.from, ...def.from])],
      to: [...new Set([...existing.to, ...def.to])],
      attrs: [...existing.attrs, ...def.attrs.filter((a) => !existing.attrs.some((e) => e.name === a.name))],
      inferred: existing.inferred || def.inferred,
    });
  }

  kindNames(): string[] {
    return [...this.kindsByName.keys()].sort();
  }
  kind(name: string): KindInfo | undefined {
    return this.kindsByName.get(name);
  }
  kinds(): KindInfo[] {
    return this.kindNames().map((n) => this.kindsByName.get(n)!);
  }
  kindOfId(id: string): string | undefined {
    const cut = id.indexOf('_');
    return cut > 0 ? this.kindsByPrefix.get(id.slice(0, cut)) : undefined;
  }
  edgeTypeNames(): string[] {
    return [...this.edgesByName.keys()].sort();
  }
  edgeType(name: string): EdgeTypeDef | undefined {
    return this.edgesByName.get(name);
  }
  edgeTypes(): EdgeTypeDef[] {
    return this.edgeTypeNames().map((n) => this.edgesByName.get(n)!);
  }
  /** Attributes of an edge type, with confidence/strategy for inferred ones. */
  edgeAttrs(def: EdgeTypeDef): EdgeAttrDef[] {
    return def.inferred ? [...INFERRED_EDGE_ATTRS, ...def.attrs] : [...def.attrs];
  }
  /** Edge types that can leave (`out`) or arrive at (`in`) a node of this kind. */
  edgeTypesFor(kind: string, direction: 'in' | 'out'): string[] {
    return this.edgeTypes()
      .filter((e) => (direction === 'out' ? e.from : e.to).includes(kind))
      .map((e) => e.name);
  }
  /** Every filter field any kind accepts (for the tool JSON Schema), with the kinds it applies to. */
  allFilterFields(): Map<string, { field: FilterField; kinds: string[] }> {
    const out = new Map<string, { field: FilterField; kinds: string[] }>();
    for (const info of this.kinds()) {
      for (const f of info.filterFields.values()) {
        const entry = out.get(f.field);
        if (entry) entry.kinds.push(info.def.name);
        else out.set(f.field, { field: f, kinds: [info.def.name] });
      }
    }
    return new Map([...out.entries()].sort(([a], [b]) => a.localeCompare(b)));
  }
}
