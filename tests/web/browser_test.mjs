// The viewer in a real browser: Debian's Chromium, headless, with WebGL 2 from SwiftShader, opens
// tests/web/browser/viewer_page.html from a server on 127.0.0.1 (nothing else is reachable). The
// page loads Soldier.glb into the viewer and posts back joint matrices, pixels and messages; here
// they are held to `marrow pose` (1e-5), to what a drawn character must look like, and to the
// command line's error text. Skipped, saying why, without Chromium or the asset.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveForChromium, startChromium } from './chromium.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '../..');
const webDir = resolve(process.env.MARROW_WEB_DIR ?? join(repo, 'build-web/web'));
const marrowBin = resolve(process.env.MARROW_BIN ?? join(repo, 'build/bin/marrow'));
const shared = resolve(process.env.MARROW_SHARED_DIR ?? join(repo, '../shared'));
const chromium = process.env.MARROW_CHROMIUM ?? '/usr/bin/chromium';
const soldier = join(shared, 'assets/gltf/Soldier.glb');

const roots = { web: webDir, assets: join(shared, 'assets'), test: join(here, 'browser') };
const serve = () => serveForChromium(roots);
const runChromium = (url) => startChromium(chromium, url);

// Joints' model matrices from the command line, in the asset's joint order (see module_test.mjs).
function nativePoses(times) {
  const info = JSON.parse(execFileSync(marrowBin, ['info', soldier, '--format', 'json', '--quiet']));
  const out = JSON.parse(execFileSync(marrowBin, ['pose', soldier, '--clip', 'Walk', '--times',
                                                  times.join(','), '--format', 'json', '--quiet']));
  const jointOfSource = new Map(info.nodes.map((n) => [n.source_index, n.joint_index]));
  return out.samples.map((sample) => {
    const matrices = new Array(info.nodes.length * 16);
    out.nodes.forEach((node, k) => {
      sample.world[k].forEach((v, i) => { matrices[jointOfSource.get(node.index) * 16 + i] = v; });
    });
    return matrices;
  });
}

const differing = (a, b) => {
  let count = 0;
  for (let i = 0; i < a.length; i += 4) {
    if (Math.abs(a[i] - b[i]) + Math.abs(a[i + 1] - b[i + 1]) + Math.abs(a[i + 2] - b[i + 2]) > 24)
      ++count;
  }
  return count;
};

test('the viewer in headless Chromium draws, poses and refuses as the command line does',
     { timeout: 120000 }, async (t) => {
  if (!existsSync(chromium)) return t.skip(`${chromium} is absent (make deps installs chromium)`);
  if (!existsSync(soldier)) return t.skip(`${soldier} is absent (../shared/assets)`);
  const { server, port, reported } = await serve();
  const browser = runChromium(`http://127.0.0.1:${port}/test/viewer_page.html`);
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error('the page sent no report within 90 s')), 90000);
  });
  try {
    const report = await Promise.race([reported, timeout]);
    assert.equal(report.failure, undefined, report.failure);

    const native = nativePoses(report.times);
    report.poses.forEach((pose, k) => {
      const largest = Math.max(...pose.map((v, i) => Math.abs(v - native[k][i])));
      assert.ok(largest <= 1e-5, `Walk at ${report.times[k]} s: ${largest}`);
    });

    const { character, ground, later } = report.frames;
    const pixels = character.length / 4;
    const drawn = differing(character, ground);
    assert.ok(drawn > pixels * 0.01, `the character covers ${drawn} of ${pixels} pixels`);
    let grid = 0;
    for (let i = 0; i < ground.length; i += 4) {
      const [r, g, b] = [ground[i], ground[i + 1], ground[i + 2]];
      if (Math.abs(r - g) < 6 && Math.abs(g - b) < 6 && r < 225 && r > 100) ++grid;
    }
    assert.ok(grid > pixels * 0.002, `the ground's grid covers ${grid} pixels`);
    const moved = differing(character, later);
    assert.ok(moved > pixels * 0.002, `between 0.25 s and 0.5 s, ${moved} pixels changed`);

    // The heat map of the left arm: some vertices mostly its own, drawn hot (red, little blue)
    // where the textured frame was not; every vertex's weights over all joints add up to 1.
    assert.ok(report.heat.armVertices.some((n) => n > 50), `${report.heat.armVertices}`);
    assert.ok(report.heat.worstTotal < 1e-5, `weights add up to 1 within ${report.heat.worstTotal}`);
    let hot = 0;
    for (let i = 0; i < report.frames.heat.length; i += 4) {
      if (report.frames.heat[i] > 200 && report.frames.heat[i + 2] < 90) ++hot;
    }
    assert.ok(hot > 200, `${hot} hot pixels`);
    assert.ok(differing(report.frames.heat, character) > pixels * 0.005);

    // The crowd: 100 characters spread over the canvas (cells of a 4 x 4 split where the meshes
    // change the frame), where the first one alone, seen from the same place, covers a few.
    const cellsDrawn = (frame, background) => {
      const counts = new Map();
      for (let i = 0; i < frame.length; i += 4) {
        if (Math.abs(frame[i] - background[i]) + Math.abs(frame[i + 1] - background[i + 1]) +
            Math.abs(frame[i + 2] - background[i + 2]) <= 24) continue;
        const p = i / 4, cell = `${Math.floor((p % 640) / 160)},${Math.floor(p / 640 / 120)}`;
        counts.set(cell, (counts.get(cell) ?? 0) + 1);
      }
      return [...counts.values()].filter((n) => n > 50).length;
    };
    const { crowd } = report;
    assert.equal(crowd.count, 100);
    const crowdCells = cellsDrawn(crowd.frame, crowd.ground);
    const singleCells = cellsDrawn(crowd.alone, crowd.ground);
    assert.ok(crowdCells >= 6 && crowdCells >= singleCells + 4,
              `crowd ${crowdCells}, one ${singleCells}`);
    assert.ok(crowd.medianMs > 0 && crowd.medianMs < 1000, `${crowd.medianMs} ms`);

    const dir = mkdtempSync(join(tmpdir(), 'marrow-web-'));
    writeFileSync(join(dir, 'truncated.glb'), readFileSync(soldier).subarray(0, 100000));
    const cli = spawnSync(marrowBin, ['info', join(dir, 'truncated.glb')], { encoding: 'utf8' });
    assert.equal(report.truncated, cli.stderr.trim().replace(/^marrow: /, '').replaceAll(`${dir}/`, ''));
    assert.equal(report.stillShows, 'Soldier.glb');
    assert.ok(report.reloaded.includes('Walk'));
    // The page, driven through its file input: the file's summary, its clips, marrow's time per
    // frame; then the refusal in its notes, with the good file still shown.
    assert.match(report.page.status, /^Soldier\.glb: \d+ joints, 4 clips, \d+ meshes/);
    assert.deepEqual(report.page.clips, report.reloaded);
    assert.match(report.page.timing, /^marrow [0-9.]+ ms per frame/);
    assert.ok(report.page.overridePlayer >= 0, 'the override control started a player');
    assert.equal(report.page.blendSync, 'markers: feet down');
    assert.ok(report.page.blendPlayer >= 0, 'the blend control started a blend-space player');
    assert.deepEqual(report.page.errorsBeforeBad, []);
    const cubeOf = `AnimatedMorphCube's first target at weight 1`;
    assert.equal(report.morph.weights[0], 1, cubeOf);
    assert.ok(report.morph.drawn > 1000, `the cube covers ${report.morph.drawn} pixels`);
    assert.ok(report.morph.changed > 500, `${cubeOf} changes ${report.morph.changed} pixels`);
    assert.match(report.page.crowdTiming, /^marrow [0-9.]+ ms per frame .* for 100 characters/);
    assert.deepEqual(report.page.errors, [report.truncated]);
    assert.equal(report.page.statusAfterError, report.page.status);
    // The last frame (skeleton drawn over the character), for a person to look at.
    const screenshot = join(dirname(webDir), 'viewer_test.png');
    writeFileSync(screenshot, Buffer.from(report.screenshot.split(',')[1], 'base64'));
    t.diagnostic(`screenshot: ${screenshot}`);
    t.diagnostic(`drop to first drawn frame: ${report.firstFrameMs.toFixed(0)} ms; character ` +
                 `${drawn} pixels, grid ${grid}, moved ${moved}`);
    t.diagnostic(`100 characters: marrow ${crowd.medianMs.toFixed(2)} ms per frame (median of ` +
                 `30), the whole frame on this software GL ${crowd.frameMs.toFixed(0)} ms ` +
                 `(median of 3), over ${crowdCells} of 16 cells (one character: ${singleCells})`);
  } finally {
    clearTimeout(timer);
    browser.kill();
    server.close();
  }
});
