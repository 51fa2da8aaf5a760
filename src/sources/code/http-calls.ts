import type { AnnotationFacts } from './ir.js';
import { partsOfText } from './messaging.js';
import type { MemberEntry, TypeEntry } from './model.js';
import type { Constants } from './routes.js';

/** Where an HTTP call goes: the service (URL host, a discovery name) and the path template. */
export interface HttpTarget {
  targetService: string;
  path: string;
  targetUrl?: string;
  /** False when the target or part of the path is not something the source states. */
  resolved: boolean;
  /** The URL expression as written, when it is not one literal. */
  written?: string;
  /** The Spring profile(s) a placeholder took its value from, when the default profile does not set it. */
  profile?: string;
}

/** `http://billing-service:8080/api?x` → host and path; also `lb://name` and `//name`. */
export function parseUrl(text: string): { host: string; path: string } | undefined {
  const m = /^(?:[a-z][a-z0-9+.-]*:)?\/\/([^/:?#]+)(?::\d+)?([^?#]*)/i.exec(text.trim());
  return m ? { host: m[1]!, path: m[2] ?? '' } : undefined;
}

/** A `@Value("${…}")` on a field of the type or a parameter of the member named `name`: its expression. */
function valueAnnotation(name: string, member: MemberEntry | undefined, owner: TypeEntry): string | undefined {
  const fromAnnotations = (annotations: readonly AnnotationFacts[]) => annotations.find((a) => a.name === 'Value')?.args.value?.[0]?.value;
  const param = member?.facts.params.find((p) => p.name === name);
  if (param) return fromAnnotations(param.annotations);
  const field = owner.facts.fields.find((f) => f.name === name);
  return field ? fromAnnotations(field.annotations) : undefined;
}

/**
 * A URL expression's value: literals, constants (also from other files), `@Value("${…}")` fields and
 * parameters resolved against the service's configuration; any other name (a local, a parameter) becomes a
 * path variable `{name}`. `base` (a client's configured base URL) goes in front of a relative URL.
 */
/** Also what a message destination argument says (then `variables` must be 0). */
export function urlValue(written: string, member: MemberEntry | undefined, owner: TypeEntry, constants: Constants): { text: string; resolved: boolean; derived: boolean; variables: number; profile?: string } | undefined {
  const parts = partsOfText(written, owner.file.language === 'kotlin');
  if (!parts) return undefined;
  let text = '';
  let resolved = true;
  let variables = 0;
  let profile: string | undefined;
  for (const p of parts) {
    if (p.s !== undefined) {
      text += p.s;
      continue;
    }
    const constant = constants.evaluate([{ ref: p.ref }], owner, 0);
    const injected = constant === undefined ? valueAnnotation(p.ref, member, owner) : undefined;
    const raw = constant ?? injected;
    if (raw !== undefined) {
      const value = constants.resolve(raw);
      if (value === undefined) resolved = false;
      profile ??= value?.profile;
      text += value?.text ?? raw;
    } else {
      text += `{${p.ref.split('.').pop()}}`;
      variables++;
    }
  }
  return { text, resolved, derived: !(parts.length === 1 && parts[0]!.s !== undefined), variables, ...(profile ? { profile } : {}) };
}
