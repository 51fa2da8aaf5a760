import { valueFromASTUntyped, type ConstDirectiveNode } from 'graphql';

export interface AppliedDirective {
  name: string;
  args: Record<string, unknown>;
}

/** Directives applied to a type or field: from its SDL nodes, or from `extensions.directives` (code-first schemas). */
export function appliedDirectivesOf(
  nodes: readonly ({ readonly directives?: readonly ConstDirectiveNode[] | undefined } | null | undefined)[],
  extensions: Readonly<Record<string, unknown>> | null | undefined,
): AppliedDirective[] {
  const out: AppliedDirective[] = [];
  for (const node of nodes) {
    for (const d of node?.directives ?? []) {
      const args: Record<string, unknown> = {};
      for (const a of d.arguments ?? []) args[a.name.value] = valueFromASTUntyped(a.value);
      out.push({ name: d.name.value, args });
    }
  }
  // Code-first schemas (graphql-compose, Pothos, …) keep applied directives in `extensions.directives`.
  const ext = extensions?.['directives'];
  if (Array.isArray(ext)) {
    for (const d of ext) {
      if (typeof d === 'object' && d !== null && typeof (d as { name?: unknown }).name === 'string') {
        const args = (d as { args?: unknown }).args;
        out.push({ name: (d as { name: string }).name, args: typeof args === 'object' && args !== null ? { ...(args as Record<string, unknown>) } : {} });
      }
    }
  } else if (typeof ext === 'object' && ext !== null) {
    for (const [name, args] of Object.entries(ext as Record<string, unknown>)) {
      for (const one of Array.isArray(args) ? args : [args]) {
        out.push({ name, args: typeof one === 'object' && one !== null ? { ...(one as Record<string, unknown>) } : {} });
      }
    }
  }
  return out;
}

