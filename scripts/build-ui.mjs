// Builds the web page (src/surfaces/web/page) into dist/ui: one script bundling Cytoscape.js and elkjs's API from their
// npm packages, elkjs's worker, the stylesheet and index.html. Nothing on the page is fetched from the network at run time.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const page = join(root, 'src/surfaces/web/page');
const out = join(root, 'dist/ui');
mkdirSync(join(out, 'assets'), { recursive: true });
await build({
  entryPoints: [join(page, 'main.ts')],
  outfile: join(out, 'assets/app.js'),
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['es2022'],
  minify: true,
  legalComments: 'linked',
  logLevel: 'warning',
});
copyFileSync(join(page, 'style.css'), join(out, 'assets/app.css'));
// ELK runs in a Web Worker (the page stays responsive while a large estate is laid out): elkjs's own worker build.
copyFileSync(join(root, 'node_modules/elkjs/lib/elk-worker.min.js'), join(out, 'assets/elk-worker.js'));
copyFileSync(join(page, 'index.html'), join(out, 'index.html'));
