/** bin/sextant.js, compiled with the bench (dist-bench/), so the CLI bench spawns the JavaScript it built. */
import { main } from '../src/surfaces/cli/main.js';

void main(process.argv).then((code) => {
  process.exitCode = code;
});
