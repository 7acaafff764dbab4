// docs/web.md's examples, run as written: each `<!-- web-example: NAME -->` block is saved beside
// the module and run with Node.js; what it prints is checked against the native command line.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '../..');
const webDir = resolve(process.env.MARROW_WEB_DIR ?? join(repo, 'build-web/web'));
const marrowBin = resolve(process.env.MARROW_BIN ?? join(repo, 'build/bin/marrow'));
const shared = resolve(process.env.MARROW_SHARED_DIR ?? join(repo, '../shared'));

function example(name) {
  const doc = readFileSync(join(repo, 'docs/web.md'), 'utf8');
  const marker = `<!-- web-example: ${name} -->`;
  const at = doc.indexOf(marker);
  assert.ok(at >= 0, `docs/web.md has no ${marker}`);
  const block = doc.slice(at + marker.length).match(/```js\n([\s\S]*?)```/);
  assert.ok(block, `no js block after ${marker}`);
  const path = join(webDir, `docs_example_${name}.mjs`);
  writeFileSync(path, block[1]);
  return path;
}

test('play_soldier prints the clips, the joints and the refusal the command line gives', (t) => {
  const soldier = join(shared, 'assets/gltf/Soldier.glb');
  if (!existsSync(soldier)) return t.skip(`${soldier} is absent (../shared/assets)`);
  const output = execFileSync('node', [example('play_soldier'), soldier], { encoding: 'utf8' });
  const info = JSON.parse(execFileSync(marrowBin, ['info', soldier, '--format', 'json', '--quiet']));
  const broken = join(mkdtempSync(join(tmpdir(), 'marrow-web-')), 'broken.glb');
  writeFileSync(broken, new Uint8Array([0x67, 0x6c, 0x54, 0x46]));
  const refusal = spawnSync(marrowBin, ['info', broken], { encoding: 'utf8' }).stderr.trim()
    .replace(/^marrow: /, '').replaceAll(`${dirname(broken)}/`, '');
  assert.equal(output, [
    `clips: ${info.clips.map((clip) => clip.name).join(' ')}`,
    `joints: ${info.nodes.length} skin joints: ${info.skins[0].joints.length}`,
    `refused: ${refusal}`,
    '',
  ].join('\n'));
});

test('soldier_setup runs its state machine over the blend space and sets its IK', (t) => {
  const soldier = join(shared, 'assets/gltf/Soldier.glb');
  if (!existsSync(soldier)) return t.skip(`${soldier} is absent (../shared/assets)`);
  const output = execFileSync('node', [example('soldier_setup'), soldier], { encoding: 'utf8' });
  // Speed 1 starts in Stand (its condition to move is > 1.5); 2.5 moves; the constraint's weight
  // is 1 at once (no fade given), and a point before the face is within the arm's reach.
  assert.equal(output, ['state: Stand', 'state: Move', 'reach: reach weight 1, reached true', ''].join('\n'));
});
