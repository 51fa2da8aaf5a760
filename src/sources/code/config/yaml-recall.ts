import { createHash } from 'node:crypto';

/**
 * What reading each YAML file gave, kept across processes: a re-index after an edit reads the estate's
 * configuration and deployment files again, and parsing YAML was most of that (about a second on the corpora side
 * by side). An entry is a reader's result for one path, with the hash of the text it came from; a text that hashes
 * otherwise is parsed again (and both are kept when one build reads both). The results are plain data (documents, lines, warnings), encoded by each reader.
 *
 * A recall is active only while one build reads its configuration (synchronous code: nothing else runs meanwhile);
 * what it was asked for is what the build keeps for the next one.
 */
export interface RecalledYaml {
  /** Hash of the text the result was read from. */
  hash: string;
  value: unknown;
  warnings: string[];
}

/** How one reader's result becomes plain data and back; `decode` must make new objects each time (callers own them). */
export interface YamlCodec<T> {
  encode(value: T): unknown;
  decode(value: unknown): T;
}

export class YamlRecall {
  /** What this build read, by reader and path: the entries to save for the next build. */
  readonly kept = new Map<string, RecalledYaml>();
  recalled = 0;
  parsed = 0;

  constructor(private readonly stored: ReadonlyMap<string, RecalledYaml>) {}

  /** What the last build kept under `name` besides YAML (a result recorded with its reads: see recorded.ts), as read. */
  recorded(name: string): unknown {
    return this.stored.get(RECORDED + name)?.value;
  }

  /** Keeps every entry the last build kept (what a result taken again read is as it was: see recorded.ts). */
  keepStored(): void {
    for (const [key, entry] of this.stored) if (!this.kept.has(key)) this.kept.set(key, entry);
  }

  /** Keeps a recorded result for the next build: the very entry read when it is the one taken again. */
  keepRecorded(name: string, value: unknown): void {
    const old = this.stored.get(RECORDED + name);
    this.kept.set(RECORDED + name, old && old.value === value ? old : { hash: '', value, warnings: [] });
  }

  read<T>(reader: string, path: string, text: string, codec: YamlCodec<T>, parse: (warnings: string[]) => T): { value: T; warnings: string[] } {
    const hash = textHash(text);
    // The text's hash is part of the key: a build may read one path as two texts (a template, then what it renders).
    const key = `${reader}\0${path}\0${hash}`;
    const known = this.kept.get(key) ?? this.stored.get(key);
    if (known?.hash === hash && Array.isArray(known.warnings)) {
      try {
        const value = codec.decode(known.value);
        this.kept.set(key, known);
        this.recalled++;
        return { value, warnings: [...known.warnings] };
      } catch {
        // An entry that does not decode is read again.
      }
    }
    const warnings: string[] = [];
    const value = parse(warnings);
    this.kept.set(key, { hash, value: codec.encode(value), warnings: [...warnings] });
    this.parsed++;
    return { value, warnings };
  }
}

/** Before the name of a recorded result: no reader's key starts so. */
const RECORDED = '\u0000recorded\u0000';

let active: YamlRecall | undefined;

/** Runs `read` (synchronous) with `recall` answering the YAML readers; without one, they parse. */
export function withYamlRecall<T>(recall: YamlRecall | undefined, read: () => T): T {
  const outer = active;
  active = recall;
  try {
    return read();
  } finally {
    active = outer;
  }
}

/** Whether the active recall, if any, already keeps this reader's result for the text (one more read is not needed). */
export function yamlRecallKeeps(reader: string, path: string, text: string): boolean {
  return !active || active.kept.has(`${reader}\0${path}\0${textHash(text)}`);
}

/** A reader's result for a YAML text: recalled when the active recall has it for this very text, else parsed. */
export function readYaml<T>(reader: string, path: string, text: string, codec: YamlCodec<T>, parse: (warnings: string[]) => T): { value: T; warnings: string[] } {
  if (active) return active.read(reader, path, text, codec, parse);
  const warnings: string[] = [];
  return { value: parse(warnings), warnings };
}

function textHash(text: string): string {
  return createHash('sha1').update(text).digest('base64');
}
