import type { ChildProcess } from 'node:child_process';

/** Ends a child process: SIGTERM, then SIGKILL after `graceMs`; resolves once it has exited (at once if it had). */
export function stopChild(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    const force = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(force);
      done();
    });
    child.kill('SIGTERM');
  });
}
