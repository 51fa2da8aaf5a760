/**
 * The README's picture of the service map: indexes ../shared/corpora/spring-petclinic-microservices, serves the page
 * with `sextant ui`, and saves the map as docs/images/service-map.png from Debian's headless Chromium (through
 * playwright-core). Part of `npm run docs`; needs `npm run build` first. Skipped, with a note, where there is no
 * Chromium or no corpus.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_CHROMIUM, launchChromium, startUi } from '../test/helpers/web.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CHROMIUM = process.env.SEXTANT_CHROMIUM ?? DEFAULT_CHROMIUM;
const SHARED = existsSync(join(ROOT, '../shared')) ? join(ROOT, '../shared') : '/work/shared';
const CORPUS = join(SHARED, 'corpora/spring-petclinic-microservices');
const OUT = join(ROOT, 'docs/images/service-map.png');
const BIN = join(ROOT, 'bin/sextant.js');

export async function screenshotServiceMap(): Promise<string | undefined> {
  if (!existsSync(CHROMIUM)) return `skipped docs/images/service-map.png: no Chromium at ${CHROMIUM} (apt-get install chromium)`;
  if (!existsSync(CORPUS)) return `skipped docs/images/service-map.png: no corpus at ${CORPUS}`;
  if (!existsSync(join(ROOT, 'dist/ui/index.html'))) return 'skipped docs/images/service-map.png: run `npm run build` first';
  // A fixed path: the page's header shows it, and the picture should not change from one run to the next.
  const store = join(tmpdir(), 'sextant-docs-petclinic');
  rmSync(store, { recursive: true, force: true });
  const indexed = spawnSync(process.execPath, [BIN, 'index', CORPUS, '--store', store], { encoding: 'utf8' });
  if (indexed.status !== 0) throw new Error(`indexing ${CORPUS} failed:\n${indexed.stderr}`);
  const ui = await startUi(BIN, ['--store', store]);
  try {
    const browser = await launchChromium(CHROMIUM);
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 720 }, deviceScaleFactor: 1 });
      await page.goto(`${ui.url}#/service/api-gateway`);
      await page.waitForFunction(() => (globalThis as unknown as { sextant?: { ready: boolean } }).sextant?.ready === true, null, { timeout: 60_000 });
      await page.waitForTimeout(400); // the focus animation
      mkdirSync(dirname(OUT), { recursive: true });
      await page.screenshot({ path: OUT });
    } finally {
      await browser.close();
    }
  } finally {
    await ui.stop();
    rmSync(store, { recursive: true, force: true });
  }
  return 'wrote docs/images/service-map.png';
}
