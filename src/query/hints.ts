/** A next call an agent can send verbatim: `args` validate against that tool's own input schema. */
export interface Hint {
  tool: string;
  args: Record<string, unknown>;
  reason: string;
}

export const MAX_HINTS = 5;

export function limitHints(hints: (Hint | undefined | false)[]): Hint[] {
  const seen = new Set<string>();
  const out: Hint[] = [];
  for (const h of hints) {
    if (!h) continue;
    const key = `${h.tool}:${JSON.stringify(h.args)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(h);
    if (out.length === MAX_HINTS) break;
  }
  return out;
}
