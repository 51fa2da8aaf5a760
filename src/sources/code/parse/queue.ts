import type { Language } from './ir.js';
import type { ParseJob } from './job.js';

/**
 * How many files of a language must remain before a thread that has not parsed that language yet takes it up.
 * Each thread compiles and warms up a grammar's code on its own: about 0.7 s of CPU for Java and 1 s for Kotlin
 * on the bench machine (the Kotlin grammar is 3.4 MB of wasm), worth several hundred files of parsing.
 */
export const WARM_UP_FILES = 400;

/**
 * The parse jobs, one queue per language, handed out so that few threads pay a grammar's warm-up: a thread keeps
 * to the languages it has parsed, starts on a language no thread has started yet, and joins another thread's
 * language only while enough of it remains to repay its own warm-up. The thread that must finish the work
 * (`take(…, true)`) takes whatever is left.
 */
export class ParseQueue {
  private readonly queues = new Map<Language, ParseJob[]>();
  private readonly cursors = new Map<Language, number>();

  constructor(jobs: readonly ParseJob[]) {
    for (const job of jobs) {
      let queue = this.queues.get(job.language);
      if (!queue) this.queues.set(job.language, (queue = []));
      queue.push(job);
    }
    for (const language of this.queues.keys()) this.cursors.set(language, 0);
  }

  get remaining(): number {
    let n = 0;
    for (const language of this.queues.keys()) n += this.left(language);
    return n;
  }

  /** The next job for a thread that has parsed `warm` (updated with the language taken); undefined: none fits. */
  take(warm: Set<Language>, finisher = false): ParseJob | undefined {
    for (const language of warm) if (this.left(language) > 0) return this.next(language);
    let best: Language | undefined;
    for (const language of this.queues.keys()) {
      const left = this.left(language);
      if (left === 0) continue;
      const untouched = this.cursors.get(language) === 0;
      if (!untouched && left < WARM_UP_FILES && !finisher) continue;
      // Untouched languages first, then the one with most left.
      const bestUntouched = best !== undefined && this.cursors.get(best) === 0;
      if (best === undefined || (untouched && !bestUntouched) || (untouched === bestUntouched && left > this.left(best))) best = language;
    }
    if (best === undefined) return undefined;
    warm.add(best);
    return this.next(best);
  }

  private left(language: Language): number {
    return this.queues.get(language)!.length - this.cursors.get(language)!;
  }

  private next(language: Language): ParseJob {
    const at = this.cursors.get(language)!;
    this.cursors.set(language, at + 1);
    return this.queues.get(language)![at]!;
  }
}
