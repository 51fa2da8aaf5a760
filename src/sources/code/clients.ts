import type { CodeModel, MemberEntry, TypeEntry } from './model.js';
import { type Constants, EMPTY, joinPath, mappingOf, type Part } from './routes.js';

/** An outbound HTTP call a client interface declares. */
export interface HttpClientCall {
  method: MemberEntry;
  httpMethod: string;
  path: string;
  targetService: string;
  targetUrl?: string;
  /** False when the target or a path part is not stated by the source (kept as written). */
  resolved: boolean;
  /** The values as written, when constants or placeholders were involved. */
  written?: string;
}

/**
 * The calls of a Feign client interface (`@FeignClient`): its target from `name`/`value`/`serviceId`, or the
 * host of `url`; its paths from `path`, the path of `url`, a type-level `@RequestMapping` and each method's
 * Spring mapping (inherited from super-interfaces too). Placeholders resolve against the service's configuration.
 */
export function feignClientsOf(model: CodeModel, entry: TypeEntry, constants: Constants): HttpClientCall[] {
  const feign = entry.facts.annotations.find((a) => a.name === 'FeignClient');
  if (!feign || entry.facts.kind !== 'interface') return [];
  const arg = (...names: string[]): Part | undefined => {
    for (const n of names) {
      const v = feign.args[n]?.[0];
      if (v) return constants.part(v, entry);
    }
    return undefined;
  };
  const name = arg('name', 'value', 'serviceId');
  const url = arg('url');
  const base = url?.literal ? parseUrl(url.text) : undefined;
  const target = base?.host ?? name?.text ?? '';
  const targetResolved = base ? true : (name?.literal ?? false);
  const { project } = model.ancestors(entry);
  const typeLevel = project.map((t) => mappingOf(t.facts.annotations, 'type', (v) => constants.part(v, t))).find((m) => m && m.framework === 'spring_mvc');
  const prefixes: Part[] = [arg('path') ?? EMPTY, base ? { text: base.path, literal: true, written: url!.written, derived: url!.derived } : EMPTY, ...(typeLevel?.paths.length ? [typeLevel.paths[0]!] : [])];
  const prefix = prefixes.reduce<Part>((a, b) => ({ text: joinPath(a.text, b.text), literal: a.literal && b.literal, written: [a.written, b.written].filter((w) => w).join(' + '), derived: a.derived || b.derived }), EMPTY);
  const out: HttpClientCall[] = [];
  const signatures = new Set<string>();
  for (const t of project) {
    for (const m of t.members) {
      if (m.facts.kind !== 'method' || m.facts.modifiers.includes('static') || m.facts.modifiers.includes('default') || signatures.has(m.signature)) continue;
      signatures.add(m.signature);
      const mapping = mappingOf(m.facts.annotations, 'method', (v) => constants.part(v, t));
      if (!mapping || mapping.framework !== 'spring_mvc') continue;
      for (const part of mapping.paths.length ? mapping.paths : [EMPTY]) {
        for (const httpMethod of mapping.methods.length ? mapping.methods : ['ANY']) {
          const derived = prefix.derived || part.derived || !targetResolved;
          out.push({
            method: m,
            httpMethod,
            path: joinPath(prefix.text, part.text),
            targetService: target,
            ...(url ? { targetUrl: url.text } : {}),
            resolved: targetResolved && prefix.literal && part.literal,
            ...(derived ? { written: [name?.written ? `name=${name.written}` : '', url ? `url=${url.written}` : '', prefix.written, part.written].filter((w) => w).join(' ') } : {}),
          });
        }
      }
    }
  }
  return out;
}

/** `http://billing-service:8080/api` → host `billing-service`, path `/api`; undefined for anything else. */
function parseUrl(text: string): { host: string; path: string } | undefined {
  const m = /^(?:https?:)?\/\/([^/:?#]+)(?::\d+)?([^?#]*)/i.exec(text.trim());
  return m ? { host: m[1]!, path: m[2] ?? '' } : undefined;
}
