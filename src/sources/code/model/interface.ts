import { createHash } from 'node:crypto';
import type { FileFacts } from '../parse/ir.js';
import type { CodeModel, TypeEntry } from './model.js';
import type { TypeClassifier } from './roles.js';
import { Constants } from '../links/routes.js';

/**
 * What other files can observe of a file, as items: each item's key is a digest of its full shape (kept across
 * processes, so kept small), and its value the names through which another file can depend on it. When a file changes, the items that appear or vanish say which
 * names changed meaning; only files that mention one of those names can emit anything different.
 *
 * Bodies (calls, locals) and line numbers are left out: no other file's edges read them.
 */
export type InterfaceItems = Map<string, string[]>;

const BODY_AND_LINES = new Set(['calls', 'locals', 'returns', 'assigns', 'bodyUses', 'line', 'endLine']);

function shape(value: unknown): string {
  return JSON.stringify(value, (key, v: unknown) => (BODY_AND_LINES.has(key) ? undefined : v));
}

/** An item's key: the digest of its shape, as unlikely to collide as SHA-1. */
function itemKey(shapeText: string): string {
  return createHash('sha1').update(shapeText).digest('base64');
}

function simple(qn: string): string {
  return qn.slice(Math.max(qn.lastIndexOf('.'), qn.lastIndexOf('#')) + 1);
}

/** The getter or setter's property (`getOrderId` → `orderId`), which Kotlin code names instead of the accessor. */
function propertyOf(name: string): string | undefined {
  const m = /^(?:get|set|is)([A-Z]\w*)$/.exec(name);
  return m ? m[1]![0]!.toLowerCase() + m[1]!.slice(1) : undefined;
}

export function interfaceOf(model: CodeModel, classifier: TypeClassifier, entries: readonly TypeEntry[]): InterfaceItems {
  const items: InterfaceItems = new Map();
  // A constant's value, not just its expression: `ORDERS = Base.BASE + "/orders"` changes when Base.BASE does,
  // and that must reach the files using ORDERS.
  const constants = new Constants(model);
  for (const entry of entries) {
    const { members: _members, fields, ...own } = entry.facts;
    const { project, external } = model.ancestors(entry);
    // A type's shape decides what its subtypes inherit and which beans fit an injection point: a change reaches
    // every name along its supertype chain.
    const exposure = new Set<string>([entry.facts.name, simple(entry.qn), ...external.map(simple)]);
    for (const t of project) {
      exposure.add(t.facts.name);
      for (const m of t.members) exposure.add(m.facts.name);
      for (const f of t.facts.fields) exposure.add(f.name);
    }
    const supers = entry.supers.map((s) => `${s.relation}:${s.target.entry?.qn ?? s.target.external}`);
    items.set(itemKey(`T\0${entry.qn}\0${shape(own)}\0${shape(classifier.get(entry))}\0${supers.join(',')}\0${project.map((t) => t.qn).join(',')}`), [...exposure]);
    for (const m of entry.members) {
      const names = [m.facts.name, entry.facts.name];
      const property = m.facts.property ?? propertyOf(m.facts.name);
      if (property) names.push(property);
      // A `@Bean` method is a candidate wherever its return type is injected.
      if (m.facts.returnType && m.facts.annotations.some((a) => a.name === 'Bean')) names.push(simple(m.facts.returnType.name));
      items.set(itemKey(`M\0${m.qn}\0${shape(m.facts)}`), names);
    }
    for (const f of fields) items.set(itemKey(`F\0${entry.qn}\0${shape(f)}\0${f.constant ? (constants.evaluate(f.constant, entry, 0) ?? '?') : ''}`), [f.name, entry.facts.name]);
  }
  return items;
}

const IDENTIFIER = /[\p{L}_$][\p{L}\p{N}_$]*/gu;

/** Every identifier a file's facts mention (names, types, calls, imports, annotations), split at dots. */
export function namesOf(file: FileFacts): Set<string> {
  return new Set(JSON.stringify(file).match(IDENTIFIER));
}

/**
 * Whether a file's facts mention one of `names` (as `namesOf` finds them), reading them only when it can: a name
 * that is not even a substring of the facts' text is not one of their identifiers.
 */
export function mentionsAny(file: FileFacts, names: ReadonlySet<string>): boolean {
  const text = JSON.stringify(file);
  let candidate = false;
  for (const n of names) {
    if (text.includes(n)) {
      candidate = true;
      break;
    }
  }
  if (!candidate) return false;
  const own = new Set(text.match(IDENTIFIER));
  for (const n of names) if (own.has(n)) return true;
  return false;
}
