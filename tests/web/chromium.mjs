// Debian's Chromium, headless, driven through a page served from 127.0.0.1 (nothing else is
// reachable from it): the browser tests (browser_test.mjs) and the page benchmark
// (bench/web/crowd_chromium.mjs) share these two pieces.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';

const types = { '.html': 'text/html', '.mjs': 'text/javascript', '.wasm': 'application/wasm' };

// Serves the folders of `roots` (URL /NAME/... from roots[NAME]) on a free port of 127.0.0.1;
// resolves with the server, its port and a promise of what the page POSTs to /report (JSON).
export function serveForChromium(roots) {
  let deliver;
  const reported = new Promise((resolve) => { deliver = resolve; });
  const server = createServer((request, response) => {
    if (request.method === 'POST' && request.url === '/report') {
      const chunks = [];
      request.on('data', (chunk) => chunks.push(chunk));
      request.on('end', () => {
        response.end('ok');
        deliver(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      });
      return;
    }
    const [, root, ...rest] = decodeURIComponent(request.url.split('?')[0]).split('/');
    const base = roots[root];
    const path = base && normalize(join(base, ...rest));
    if (!path || !path.startsWith(base) || !existsSync(path)) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'Content-Type': types[extname(path)] ?? 'application/octet-stream' });
    response.end(readFileSync(path));
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve({ server, port: server.address().port, reported }));
  });
}

// Chromium opening `url` with WebGL 2 from SwiftShader, a fresh profile and no network of its own.
export function startChromium(chromium, url) {
  const profile = mkdtempSync(join(tmpdir(), 'marrow-chromium-'));
  return spawn(chromium, [
    '--headless=new', '--no-sandbox', '--enable-unsafe-swiftshader', '--use-angle=swiftshader',
    '--no-first-run', '--disable-background-networking', '--disable-component-update',
    '--disable-sync', '--disable-quic', `--user-data-dir=${profile}`, '--window-size=800,600',
    url,
  ], { stdio: 'ignore' });
}
