/**
 * Headless Chromium and `sextant ui` for whatever drives the web page: the browser tests, the bench's web section and
 * the docs screenshot. Chromium is Debian's package (`/usr/bin/chromium`), driven through playwright-core; nothing
 * downloads a browser.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chromium, type Browser } from 'playwright-core';
import { stopChild } from './child.js';

export const DEFAULT_CHROMIUM = '/usr/bin/chromium';

/**
 * Flags for this machine: no sandbox as root, no GPU, and none of Chromium's background connections (refused on a
 * closed network, many at a time, and a failed lookup of Google's hosts at every start).
 */
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'];

export function launchChromium(executablePath: string = DEFAULT_CHROMIUM): Promise<Browser> {
  return chromium.launch({ executablePath, args: CHROMIUM_ARGS });
}

export interface UiProcess {
  child: ChildProcess;
  /** The page's URL, as `sextant ui` printed it (`http://127.0.0.1:<port>/`). */
  url: string;
  /** What the process wrote so far. */
  stdout: () => string;
  stderr: () => string;
  /** SIGTERM, then SIGKILL after 5 s; resolves when it has exited. */
  stop: () => Promise<void>;
}

/** `node <bin> ui --port 0 <args…>`: resolves once it prints its URL; fails, with what it wrote, if it exits first. */
export function startUi(bin: string, args: readonly string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<UiProcess> {
  const child = spawn(process.execPath, [bin, 'ui', '--port', '0', ...args], { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const stop = (): Promise<void> => stopChild(child, 5000);
  return new Promise((done, fail) => {
    const timer = setTimeout(() => {
      void stop();
      fail(new Error(`sextant ui printed no URL in ${opts.timeoutMs ?? 30_000} ms: ${out}${err}`));
    }, opts.timeoutMs ?? 30_000);
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      if (err.length < 16_000) err += d;
    });
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const url = /sextant web page on (http:\/\/\S+\/)/.exec(out)?.[1];
      if (url) {
        clearTimeout(timer);
        done({ child, url, stdout: () => out, stderr: () => err, stop });
      }
    });
    child.once('error', (e) => {
      clearTimeout(timer);
      fail(e);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`sextant ui exited (${code}) before serving: ${out}${err.trim()}`));
    });
  });
}
