// The WebAssembly side of the crowd benchmark in a headless Chromium page (bench/web/run.sh): the
// same loop as crowd_walk.mjs runs under Node.js, here in the browser's own engine and page.
// Prints chromium/LEVEL,NS per character-frame.
//   node bench/web/crowd_chromium.mjs WEB_DIR ASSETS_DIR [SECONDS]
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveForChromium, startChromium } from '../../tests/web/chromium.mjs';

const [webDir, assets, seconds = '1'] = process.argv.slice(2);
const here = dirname(fileURLToPath(import.meta.url));
const { server, port, reported } = await serveForChromium({
  web: resolve(webDir), assets: resolve(assets), bench: here });
const browser = startChromium(process.env.MARROW_CHROMIUM ?? '/usr/bin/chromium',
                              `http://127.0.0.1:${port}/bench/crowd_page.html?seconds=${seconds}`);
const timeout = setTimeout(() => {
  console.error('crowd_chromium: the page sent no report within 120 s');
  process.exit(1);
}, 120000);
const report = await reported;
clearTimeout(timeout);
browser.kill();
server.close();
if (report.failure) {
  console.error(`crowd_chromium: ${report.failure}`);
  process.exit(1);
}
for (const level of ['wasm128', 'scalar']) console.log(`chromium/${level},${report[level].toFixed(1)}`);
