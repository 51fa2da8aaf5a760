import { readFileSync } from 'node:fs';
import { fileContentHash } from '../../../graph/file-hashes.js';
import type { FileFacts, Language } from './ir.js';
import { extractJava } from './java.js';
import { extractKotlin } from './kotlin.js';
import { parserFor } from './parser.js';

/** One file to read, hash and (unless its hash is `knownHash`) extract. */
export interface ParseJob {
  id: number;
  /** Absolute path, to read. */
  abs: string;
  /** Path relative to the source root, as facts record it. */
  rel: string;
  language: Language;
  knownHash?: string;
}

/** `facts` is absent when the hash matched `knownHash`; `error` when the file could not be read. */
export type ParseResult = { id: number; hash: string; facts?: FileFacts; error?: undefined } | { id: number; error: string; hash?: undefined; facts?: undefined };

const EXTRACTORS: Record<Language, typeof extractJava> = { java: extractJava, kotlin: extractKotlin };

/** Extracts the facts of one file with the right grammar; never throws on bad source. */
export async function extractFile(path: string, language: Language, text: string): Promise<FileFacts> {
  return EXTRACTORS[language](path, text, await parserFor(language));
}

/** Read synchronously: source files are small, and one blocking read is cheaper than four thread-pool round trips. */
export function hashFile(abs: string): { bytes: Buffer; hash: string } {
  const bytes = readFileSync(abs);
  return { bytes, hash: fileContentHash(bytes) };
}

/** The same work as a worker does, on this thread. */
export async function runJob(job: ParseJob): Promise<ParseResult> {
  try {
    const { bytes, hash } = hashFile(job.abs);
    if (hash === job.knownHash) return { id: job.id, hash };
    return { id: job.id, hash, facts: await extractFile(job.rel, job.language, bytes.toString('utf8')) };
  } catch (err) {
    return { id: job.id, error: err instanceof Error ? err.message : String(err) };
  }
}
