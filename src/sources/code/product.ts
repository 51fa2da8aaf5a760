import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Sextant's own modules (`dist/`, or `src/` under tsx), as what a saved state holds against: a Sextant built again
 * from changed sources, without a new version, must not trust what its previous build saved.
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Module files under the product's root (or one folder of it), in a stable order. */
function modulesUnder(dir: string): string[] {
  const out: string[] = [];
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory()) out.push(...modulesUnder(path));
    else if (/\.(js|ts|json)$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

let stamp: string | undefined;

/** The newest modification time of the product's modules: about 300 stats, once. Cheap enough for the stamps' check. */
export function productStamp(): string {
  if (stamp !== undefined) return stamp;
  try {
    stamp = String(Math.max(0, ...modulesUnder(ROOT).map((path) => statSync(path).mtimeMs)));
  } catch {
    stamp = '-1';
  }
  return stamp;
}

let digest: string | undefined;

/**
 * A digest of the content of the modules that extract, emit and link code and define the graph (`sources/`,
 * `graph/`): what state derived from them (the assembler's) is keyed on. A copy with old times cannot fool it.
 */
export function productDigest(): string {
  if (digest !== undefined) return digest;
  const hash = createHash('sha256');
  for (const dir of ['sources', 'graph']) {
    for (const path of modulesUnder(join(ROOT, dir))) hash.update(`${path.slice(ROOT.length)}\0`).update(readFileSync(path)).update('\0');
  }
  return (digest = hash.digest('hex').slice(0, 32));
}
