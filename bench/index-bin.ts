/**
 * `sextant` as the real-estate bench runs it: the CLI, which on exit writes what the process used (CPU seconds of
 * every thread, user and system, and peak RSS) to the file SEXTANT_BENCH_USAGE names.
 */
import { writeFileSync } from 'node:fs';
import { main } from '../src/surfaces/cli/main.js';

const usageFile = process.env.SEXTANT_BENCH_USAGE;
if (usageFile) {
  process.on('exit', () => {
    const u = process.resourceUsage();
    writeFileSync(usageFile, JSON.stringify({ user_seconds: u.userCPUTime / 1e6, system_seconds: u.systemCPUTime / 1e6, max_rss_mb: Math.round(u.maxRSS / 1024) }));
  });
}

void main(process.argv).then((code) => {
  process.exitCode = code;
});
