import { hash } from 'node:crypto';
import type { Ontology } from './ontology/index.js';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/** Crockford-style base32 of the first bytes of a digest: short, case-insensitive, unambiguous. */
function base32(bytes: Uint8Array, chars: number): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5 && out.length < chars) {
      out += ALPHABET[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
    if (out.length >= chars) break;
  }
  return out;
}

/**
 * Deterministic, opaque node id: the kind's prefix plus a hash of the node's natural identity
 * (source, kind, qualified name, and whatever disambiguates overloads or duplicates).
 */
export function nodeId(ontology: Ontology, source: string, kind: string, identity: string): string {
  const info = ontology.kind(kind);
  if (!info) throw new Error(`unknown node kind ${kind}`);
  const digest = hash('sha256', `${source}\u0000${kind}\u0000${identity}`, 'buffer');
  return `${info.def.idPrefix}_${base32(digest, 16)}`;
}

/** Whether a string has the shape of a node id (a kind prefix, `_`, 16 base32 characters). */
export function looksLikeNodeId(text: string): boolean {
  return /^[a-z]{2,3}_[0-9a-z]{16}$/.test(text);
}
