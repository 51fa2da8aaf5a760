// Builds the web page (src/surfaces/web/page) into dist/ui: one script bundling Cytoscape.js and ELK from their npm
// packages, its stylesheet and index.html. Nothing on the page is fetched from the network at run time.
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
copyFileSync(join(page, 'index.html'), join(out, 'index.html'));
