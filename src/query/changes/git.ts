import { execFile } from 'node:child_process';
import { relative } from 'node:path';
import { promisify } from 'node:util';
import { fail } from '../errors.js';

const run = promisify(execFile);
/** A revision or range as git writes them: names, hashes, `~`, `^`, `@{…}`, `..` and `...`; never an option. */
const REVISIONS = /^(?!-)[\w./~^@{}+-]+(?:\.\.\.?(?!-)[\w./~^@{}+-]*)?$/;
const MAX_DIFF_BYTES = 32 << 20;

/**
 * Settings that keep a repository's own configuration from running commands while Sextant reads it (the tree may be
 * anyone's: `core.fsmonitor`, hooks, a pager, an external diff; textconv is off by flag): each filter driver its
 * configuration names loses its clean, smudge and process commands. Read with `git config`, which runs none.
 */
async function neutralSettings(root: string): Promise<string[]> {
  const settings = ['-c', 'core.fsmonitor=false', '-c', 'core.hooksPath=/dev/null', '-c', 'core.pager=cat', '-c', 'diff.external='];
  let filters = '';
  try {
    filters = (await run('git', ['-C', root, ...settings, 'config', '--get-regexp', '^filter\\.'], { timeout: 10_000, env: gitEnv() })).stdout;
  } catch {
    // Exit 1: no filter driver is configured.
  }
  const drivers = new Set(filters.split('\n').flatMap((line) => /^filter\.(.+)\.(?:clean|smudge|process|required)(?:\s|$)/.exec(line)?.[1] ?? []));
  for (const d of drivers) settings.push('-c', `filter.${d}.clean=`, '-c', `filter.${d}.smudge=`, '-c', `filter.${d}.process=`, '-c', `filter.${d}.required=false`);
  return settings;
}

/** The environment git runs with: no pager, no external diff, no prompt. */
function gitEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_PAGER: 'cat', GIT_TERMINAL_PROMPT: '0' };
  delete env['GIT_EXTERNAL_DIFF'];
  return env;
}

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
    top = (await run('git', ['-C', root, '-c', 'core.fsmonitor=false', 'rev-parse', '--show-toplevel'], { timeout: 10_000, env: gitEnv() })).stdout.trim();
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
    const settings = await neutralSettings(top);
    const { stdout } = await run('git', ['-C', top, ...settings, 'diff', '--no-color', '--no-ext-diff', '--no-textconv', '-M', '--end-of-options', revisions, '--'], { timeout: 60_000, maxBuffer: MAX_DIFF_BYTES, env: gitEnv() });
    return { text: stdout, top, rootInTop: relative(top, root).split('\\').join('/') };
  } catch (err) {
    const e = err as { stderr?: string; message: string; code?: string };
    if (e.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') fail({ code: 'out_of_range', argument: 'revisions', message: `The diff of ${revisions} is larger than ${MAX_DIFF_BYTES >> 20} MB; ask about a smaller range.` });
    fail({ code: 'invalid_argument', argument: 'revisions', message: `git could not diff ${JSON.stringify(revisions)} in ${top}: ${(e.stderr || e.message).trim().split('\n')[0]}` });
  }
}
