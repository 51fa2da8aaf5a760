import type { BodyUseCode, MemberFacts, TypeFacts, TypeRef } from './ir.js';

const PRIMITIVES = new Set(['int', 'long', 'short', 'byte', 'char', 'boolean', 'float', 'double', 'void', 'var', '?', '']);
/** A segment that can name a type in a dotted name: capitalised with a lower-case letter (`Foo`, `OrderDTO`; not `MAX`, `LOG`). */
const TYPE_LIKE = /^[A-Z][\w$]*[a-z][\w$]*$/;

/**
 * Collects the type names one file's bodies write (`MemberFacts.bodyUses`, `TypeFacts.bodyUses`), each (code, name) once per
 * holder, and writes them as one string per holder when the file is done.
 */
export class BodyUseRecorder {
  private readonly sets = new Map<MemberFacts | TypeFacts, Set<string>>();

  /** Every name in a written type (`Map<Foo, List<Bar>>`: Map, Foo, List, Bar). */
  type(holder: MemberFacts | TypeFacts, code: BodyUseCode, ref: TypeRef): void {
    const pending: TypeRef[] = [ref];
    for (let r = pending.pop(), n = 0; r && n < 64; r = pending.pop(), n++) {
      this.name(holder, code, r.name);
      if (r.args) pending.push(...r.args);
    }
  }

  /**
   * A dotted name written before a member (`Foo.BAR`, `com.x.Foo.bar()`, `Foo::bar`): kept up to its last segment
   * that looks like a type, nothing when none does (`order.items`, `LOG.info`).
   */
  qualifier(holder: MemberFacts | TypeFacts, chain: string): void {
    const parts = chain.split('.');
    let end = parts.length;
    while (end > 0 && !TYPE_LIKE.test(parts[end - 1]!)) end--;
    if (end > 0) this.name(holder, 's', parts.slice(0, end).join('.'));
  }

  name(holder: MemberFacts | TypeFacts, code: BodyUseCode, name: string): void {
    if (PRIMITIVES.has(name)) return;
    let set = this.sets.get(holder);
    if (!set) this.sets.set(holder, (set = new Set()));
    set.add(`${code}:${name}`);
  }

  /** What was recorded for one holder now belongs to another (Kotlin initializers merged into a constructor). */
  move(from: MemberFacts | TypeFacts, to: MemberFacts | TypeFacts): void {
    const set = this.sets.get(from);
    if (!set) return;
    this.sets.delete(from);
    for (const s of set) {
      let target = this.sets.get(to);
      if (!target) this.sets.set(to, (target = new Set()));
      target.add(s);
    }
  }

  finish(): void {
    for (const [holder, set] of this.sets) holder.bodyUses = holder.bodyUses ? `${holder.bodyUses} ${[...set].join(' ')}` : [...set].join(' ');
    this.sets.clear();
  }
}

/** The member a body's code belongs to, or its type for initializer code (walked under a throwaway `<clinit>`). */
export function useHolder(member: MemberFacts, type: TypeFacts): MemberFacts | TypeFacts {
  return member.name === '<clinit>' ? type : member;
}
