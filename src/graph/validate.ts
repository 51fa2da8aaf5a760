import type { Ontology } from './ontology/index.js';
import type { EdgeRecord, NodeRecord } from './types.js';

/**
 * Checks what a source produced against the ontology before anything is written: known kinds, declared
 * properties of the right type, unique ids, edge endpoints that exist and fit the edge type. A violation is a
 * bug in a source, so it is reported with enough detail to find it.
 */
export function validateGraph(ontology: Ontology, nodes: readonly NodeRecord[], edges: readonly EdgeRecord[], existingKindOf?: (id: string) => string | undefined): string[] {
  const problems: string[] = [];
  const kindOf = new Map<string, string>();
  const propsByKind = new Map(ontology.kinds().map((k) => [k.def.name, new Map(k.properties.map((p) => [p.name, p]))]));
  for (const n of nodes) {
    const info = ontology.kind(n.kind);
    if (!info) {
      problems.push(`node ${n.id}: unknown kind ${n.kind}`);
      continue;
    }
    if (kindOf.has(n.id)) problems.push(`node ${n.id}: duplicate id (${n.kind} ${n.qualified_name})`);
    kindOf.set(n.id, n.kind);
    if (ontology.kindOfId(n.id) !== n.kind) problems.push(`node ${n.id}: id prefix does not match kind ${n.kind}`);
    for (const [key, value] of Object.entries(n.props)) {
      const prop = propsByKind.get(n.kind)!.get(key);
      if (!prop) {
        problems.push(`node ${n.kind} ${n.qualified_name}: property ${key} is not declared for kind ${n.kind}`);
        continue;
      }
      if (value === null) continue;
      const ok =
        prop.type === 'string' ? typeof value === 'string'
        : prop.type === 'integer' ? Number.isInteger(value)
        : prop.type === 'number' ? typeof value === 'number'
        : prop.type === 'boolean' ? typeof value === 'boolean'
        : prop.type === 'enum' ? typeof value === 'string' && (prop.values ?? []).includes(value)
        : prop.type === 'string_list' ? Array.isArray(value) && value.every((v) => typeof v === 'string')
        : true;
      if (!ok) problems.push(`node ${n.kind} ${n.qualified_name}: property ${key} should be ${prop.type}${prop.values ? ` (${prop.values.join(', ')})` : ''}, got ${JSON.stringify(value)}`);
    }
    if (problems.length > 50) break;
  }
  for (const e of edges) {
    const def = ontology.edgeType(e.type);
    if (!def) {
      problems.push(`edge ${e.from} -${e.type}-> ${e.to}: unknown edge type`);
      continue;
    }
    const fromKind = kindOf.get(e.from) ?? existingKindOf?.(e.from);
    const toKind = kindOf.get(e.to) ?? existingKindOf?.(e.to);
    if (!fromKind) problems.push(`edge ${e.type} from ${e.from}: no such node`);
    else if (!def.from.includes(fromKind)) problems.push(`edge ${e.type} cannot start at a ${fromKind} (allowed: ${def.from.join(', ')})`);
    if (!toKind) problems.push(`edge ${e.type} to ${e.to}: no such node`);
    else if (!def.to.includes(toKind)) problems.push(`edge ${e.type} cannot end at a ${toKind} (allowed: ${def.to.join(', ')})`);
    if (problems.length > 50) break;
  }
  return problems;
}
