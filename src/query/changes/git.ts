import { execFile } from 'node:child_process';
import { relative } from 'node:path';
import { promisify } from 'node:util';
import { fail } from '../errors.js';

const run = promisify(execFile);
/** A revision or range as git writes them: names, hashes, `~`, `^`, `@{…}`, `..` and `...`; never an option. */
const REVISIONS = /^(?!-)[\w./~^@{}+-]+(?:\.\.\.?(?!-)[\w./~^@{}+-]*)?$/;
const MAX_DIFF_BYTES = 32 << 20;

export interface GitDiff {
  text: string;
  /** The work tree's top level; diff paths are relative to it. */
  top: string;
  /** The indexed root relative to `top` ('' when they are the same), forward slashes. */
  rootInTop: string;
}

/**
 * `git diff` of a revision or range in the work tree that holds `root` (read-only: git never writes here). A
 * single revision means "from it to the work tree", as `git diff REV` does.
 */
export async function gitDiff(root: string, revisions: string): Promise<GitDiff> {
  if (!REVISIONS.test(revisions) || revisions.length > 256) {
    fail({ code: 'invalid_argument', argument: 'revisions', message: `\`revisions\` takes a git revision or range such as \`main..HEAD\`, \`HEAD~3\` or \`a1b2c3d\`; got ${JSON.stringify(revisions.slice(0, 80))}.` });
  }
  let top: string;
  try {
    top = (await run('git', ['-C', root, 'rev-parse', '--show-toplevel'], { timeout: 10_000 })).stdout.trim();
  } catch (err) {
    const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
    fail({
      code: 'invalid_argument',
      argument: 'revisions',
      message: missing
        ? 'git is not installed where Sextant runs, so a revision range cannot be read; pass the unified diff as `diff` instead.'
        : `The indexed tree (${root}) is not a git work tree, so a revision range means nothing there; pass the unified diff as \`diff\` instead.`,
    });
  }
  try {
    const { stdout } = await run('git', ['-C', top, 'diff', '--no-color', '--no-ext-diff', '--no-textconv', '-M', '--end-of-options', revisions, '--'], { timeout: 60_000, maxBuffer: MAX_DIFF_BYTES });
    return { text: stdout, top, rootInTop: relative(top, root).split('\\').join('/') };
  } catch (err) {
    const e = err as { stderr?: string; message: string; code?: string };
    if (e.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') fail({ code: 'out_of_range', argument: 'revisions', message: `The diff of ${revisions} is larger than ${MAX_DIFF_BYTES >> 20} MB; ask about a smaller range.` });
    fail({ code: 'invalid_argument', argument: 'revisions', message: `git could not diff ${JSON.stringify(revisions)} in ${top}: ${(e.stderr || e.message).trim().split('\n')[0]}` });
  }
}
