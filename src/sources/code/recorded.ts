import { createHash } from 'node:crypto';

/**
 * A result kept with what making it read, for a later build to take again instead of making it: a pure function of
 * its explicit inputs (digested in `key`) and of what it asked its readers (each question, and a digest of the
 * answer). It is taken again when the key is the same and every reader, asked the same questions again in the same
 * order, answers the same; asking them again also leaves what asking records (files read, directories listed) as
 * making it would.
 */
export interface RecordedResult<T> {
  key: string;
  /** Each question in the order asked: the reader's name, its argument, and a digest of the answer. */
  reads: [string, string, string][];
  value: T;
}

export type Readers = Record<string, (arg: string) => unknown>;

/**
 * `stored`'s value when it was made from the same (see {@link RecordedResult}), else `make`'s, given readers that
 * record what they answer. `kept` is what to keep for the next build; `reused` says which it was.
 */
export function recordedOnce<T, R extends Readers>(stored: unknown, key: string, readers: R, make: (readers: R) => T, isValue: (value: unknown) => value is T): { value: T; kept: RecordedResult<T>; reused: boolean } {
  if (isRecorded(stored) && stored.key === key && isValue(stored.value) && stored.reads.every(([reader, arg, digest]) => readers[reader] !== undefined && ask(readers[reader]!, arg).digest === digest)) return { value: stored.value, kept: stored as RecordedResult<T>, reused: true };
  const reads: [string, string, string][] = [];
  const recording = Object.fromEntries(
    Object.entries(readers).map(([name, read]) => [
      name,
      (arg: string): unknown => {
        const { answer, digest, thrown } = ask(read, arg);
        reads.push([name, arg, digest]);
        if (thrown) throw answer;
        return answer;
      },
    ]),
  ) as R;
  const value = make(recording);
  return { value, kept: { key, reads, value }, reused: false };
}

/** A digest of text and what JSON can say (a string is digested as it is, so a file's text is not copied again). */
export function inputDigest(...parts: unknown[]): string {
  const hash = createHash('sha1');
  for (const p of parts) hash.update(typeof p === 'string' ? `s${p.length}:` : 'j').update(typeof p === 'string' ? p : (JSON.stringify(p) ?? 'undefined')).update('\0');
  return hash.digest('base64');
}

/** A reader's answer and its digest; one that throws is recorded as such (and throws again when asked to make). */
function ask(read: (arg: string) => unknown, arg: string): { answer: unknown; digest: string; thrown?: true } {
  try {
    const answer = read(arg);
    return { answer, digest: inputDigest(answer) };
  } catch (err) {
    return { answer: err, digest: `thrown ${inputDigest(String(err))}`, thrown: true };
  }
}

function isRecorded(value: unknown): value is RecordedResult<unknown> {
  const v = value as Partial<RecordedResult<unknown>> | undefined;
  return typeof v?.key === 'string' && Array.isArray(v.reads) && v.reads.every((r) => Array.isArray(r) && r.length === 3 && r.every((x) => typeof x === 'string')) && 'value' in v;
}
