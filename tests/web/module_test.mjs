// The WebAssembly module in Node.js, held to the native command line: the same files give the same
// poses (marrow pose, within 1e-5), the same clips and the same error messages, and a bad file
// leaves the module working. Run by `make test-web` (docs/web.md); assets from ../shared, skipped
// with a message when absent.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import zlib from 'node:zlib';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '../..');
const webDir = resolve(process.env.MARROW_WEB_DIR ?? join(repo, 'build-web/web'));
const marrowBin = resolve(process.env.MARROW_BIN ?? join(repo, 'build/bin/marrow'));
const shared = resolve(process.env.MARROW_SHARED_DIR ?? join(repo, '../shared'));
const asset = (path) => join(shared, 'assets', path);

const { createMarrow, MarrowError } = await import(join(webDir, 'marrow.mjs'));
const marrow = await createMarrow({ wasmBinary: readFileSync(join(webDir, 'marrow_wasm.wasm')) });

const file = (path, name = basename(path)) => ({ name, bytes: readFileSync(path) });
const skipUnless = (t, path) => {
  if (existsSync(path)) return false;
  t.skip(`${path} is absent (../shared/assets)`);
  return true;
};

// The model matrices `marrow pose` prints for `clip` at `times`, one array per time of 16 floats
// per joint in the asset's joint order (the command lists nodes in the file's order: the asset's
// info maps each file node to its joint).
function nativePoses(path, clip, times, loaded, extra = []) {
  const out = JSON.parse(execFileSync(marrowBin, ['pose', path, '--clip', clip, '--times',
                                                  times.join(','), '--format', 'json', '--quiet',
                                                  ...extra]));
  const jointOfSource = new Map(loaded.info.nodes.map((n) => [n.source_index, n.joint_index]));
  return out.samples.map((sample) => {
    const matrices = new Float64Array(loaded.jointCount * 16);
    out.nodes.forEach((node, k) => matrices.set(sample.world[k], jointOfSource.get(node.index) * 16));
    return matrices;
  });
}

// The largest difference between the module's matrices and the native ones, over every joint.
function largestDifference(character, native, jointCount) {
  const model = character.modelMatrices();
  assert.equal(model.length, jointCount * 16);
  let largest = 0;
  for (let i = 0; i < model.length; ++i) largest = Math.max(largest, Math.abs(model[i] - native[i]));
  return largest;
}

function expectSamePoses(t, path, clip, times, companions = []) {
  if (skipUnless(t, path)) return;
  const loaded = marrow.load([file(path), ...companions.map((c) => file(c))]);
  const character = loaded.createCharacter();
  const native = nativePoses(path, clip, times, loaded);
  const player = character.play(clip, { loop: false });
  times.forEach((time, k) => {
    character.setTime(player, time);
    character.update(0);
    const difference = largestDifference(character, native[k], loaded.jointCount);
    assert.ok(difference <= 1e-5, `${basename(path)} ${clip} at ${time} s: ${difference}`);
  });
  character.delete();
  loaded.delete();
}

// Issue 35's budget for the runtime and readers (docs/web.md, "Measured", has each build's size).
test('the module stays within 2 MiB', () => {
  const bytes = statSync(join(webDir, 'marrow_wasm.wasm')).size;
  assert.ok(bytes <= 2 * 1024 * 1024, `marrow_wasm.wasm is ${bytes} bytes`);
});

test('Soldier.glb lists the clips the command line lists', (t) => {
  const path = asset('gltf/Soldier.glb');
  if (skipUnless(t, path)) return;
  const loaded = marrow.load([file(path)]);
  const native = JSON.parse(execFileSync(marrowBin, ['info', path, '--format', 'json', '--quiet']));
  assert.deepEqual(loaded.clips.map((c) => c.name), native.clips.map((c) => c.name));
  assert.deepEqual(loaded.clips.map((c) => c.duration), native.clips.map((c) => c.duration));
  assert.equal(loaded.jointCount, native.nodes.length);
  loaded.delete();
});

test("Soldier's Walk has the native poses at fixed times", (t) => {
  expectSamePoses(t, asset('gltf/Soldier.glb'), 'Walk', [0, 0.25, 0.5, 0.8125]);
});

test('a BVH capture has the native poses (numbers parsed without <charconv> floats)', (t) => {
  expectSamePoses(t, asset('bvh/01_01.bvh'), '0', [0, 0.5, 1.25]);
});

test('a .gltf reads its .bin companion from beside it', (t) => {
  const path = asset('gltf/interpolation_test.gltf');
  if (skipUnless(t, path)) return;
  expectSamePoses(t, path, '0', [0, 0.4, 1.1], [asset('gltf/interpolation_test.bin')]);
  assert.throws(() => marrow.load([file(path)]), (e) => e instanceof MarrowError &&
                /interpolation_test\.bin/.test(e.message));
});

test('a .marrow archive written natively loads (its CRC-32 checked without zlib)', (t) => {
  const path = asset('gltf/Soldier.glb');
  if (skipUnless(t, path)) return;
  const archive = join(mkdtempSync(join(tmpdir(), 'marrow-web-')), 'Soldier.marrow');
  execFileSync(marrowBin, ['convert', path, archive, '--quiet']);
  const loaded = marrow.load([file(archive)]);
  assert.ok(loaded.clips.some((c) => c.name === 'Walk'));
  loaded.delete();
  const damaged = readFileSync(archive);
  damaged[damaged.length - 5] ^= 0x40;
  assert.throws(() => marrow.load([{ name: 'damaged.marrow', bytes: damaged }]),
                (e) => e instanceof MarrowError && /damaged\.marrow/.test(e.message));
});

test('a truncated file fails with the command line message, and the next file still loads', (t) => {
  const path = asset('gltf/Soldier.glb');
  if (skipUnless(t, path)) return;
  const dir = mkdtempSync(join(tmpdir(), 'marrow-web-'));
  const truncated = join(dir, 'truncated.glb');
  const bytes = readFileSync(path).subarray(0, 100000);
  execFileSync('sh', ['-c', 'cat > "$0"', truncated], { input: bytes });
  const native = spawnSync(marrowBin, ['info', truncated], { encoding: 'utf8' });
  assert.notEqual(native.status, 0);
  const expected = native.stderr.trim().replace(/^marrow: /, '').replaceAll(`${dir}/`, '');
  assert.throws(() => marrow.load([{ name: 'truncated.glb', bytes }]),
                (e) => e instanceof MarrowError && e.message === expected);
  const loaded = marrow.load([file(path)]);
  assert.ok(loaded.clips.length > 0);
  loaded.delete();
});

// A .X file compressed as DirectX writes them (MSZIP: 'tzip', blocks of raw deflate whose window
// is the data before them), by Node's own zlib here; `finish` Z_SYNC_FLUSH leaves the blocks
// without deflate's final bit, as some writers do.
function mszip(file, block, finish = zlib.constants.Z_FINISH) {
  const header = Buffer.from(file.subarray(0, 16));
  header.write('tzip', 8, 'latin1');
  const parts = [header, Buffer.alloc(4)];
  parts[1].writeUInt32LE(file.length);
  for (let pos = 16; pos < file.length; pos += block) {
    const chunk = file.subarray(pos, Math.min(pos + block, file.length));
    const options = { level: 9, finishFlush: finish };
    if (pos > 16) options.dictionary = file.subarray(Math.max(16, pos - 32768), pos);
    const packed = zlib.deflateRawSync(chunk, options);
    const sizes = Buffer.alloc(6);
    sizes.writeUInt16LE(chunk.length, 0);
    sizes.writeUInt16LE(packed.length + 2, 2);
    sizes.write('CK', 4, 'latin1');
    parts.push(sizes, packed);
  }
  return new Uint8Array(Buffer.concat(parts));
}

test('a compressed .X file loads as the same file uncompressed does, damaged blocks named', (t) => {
  const path = asset('x/anim_test.x');
  if (skipUnless(t, path)) return;
  const plain = readFileSync(path);
  const reference = marrow.load([{ name: 'anim_test.x', bytes: plain }]);
  const poseOf = (loaded) => {
    const character = loaded.createCharacter();
    character.play(0, { loop: false });
    character.update(0.4);
    const model = Array.from(character.modelMatrices());
    character.delete();
    return model;
  };
  const expected = poseOf(reference);
  for (const [block, finish] of [[4096, zlib.constants.Z_FINISH],
                                 [32768, zlib.constants.Z_SYNC_FLUSH]]) {
    const loaded = marrow.load([{ name: 'anim_test.x', bytes: mszip(plain, block, finish) }]);
    assert.deepEqual(loaded.info.nodes, reference.info.nodes);
    assert.deepEqual(loaded.clips, reference.clips);
    assert.deepEqual(poseOf(loaded), expected);
    loaded.delete();
  }
  // A damaged third block: the command line's message up to the inflate's own words.
  const zipped = mszip(plain, 4096);
  let at = 20;
  for (let b = 0; b < 2; ++b) at += 4 + (zipped[at + 2] | (zipped[at + 3] << 8));
  zipped.fill(0xff, at + 8, at + 40);
  const dir = mkdtempSync(join(tmpdir(), 'marrow-web-'));
  writeFileSync(join(dir, 'damaged.x'), zipped);
  const cli = spawnSync(marrowBin, ['info', join(dir, 'damaged.x')], { encoding: 'utf8' });
  const prefix = cli.stderr.trim().replace(/^marrow: /, '').replaceAll(`${dir}/`, '')
    .split(' (inflated')[0];
  assert.match(prefix, /^damaged\.x: byte \d+: compressed block is damaged$/);
  assert.throws(() => marrow.load([{ name: 'damaged.x', bytes: zipped }]),
                (e) => e instanceof MarrowError && e.message.startsWith(`${prefix} (inflated`));
  reference.delete();
});

test('FBX and Collada are refused with a reason, not a crash', () => {
  const fbx = new TextEncoder().encode('; FBX 7.4.0 project file\nFBXHeaderExtension:  {\n}\n');
  assert.throws(() => marrow.load([{ name: 'walk.fbx', bytes: fbx }]),
                (e) => e instanceof MarrowError && /walk\.fbx/.test(e.message) &&
                  /not read in the browser build/.test(e.message));
  const dae = new TextEncoder().encode('<?xml version="1.0"?>\n<COLLADA version="1.4.1"></COLLADA>\n');
  assert.throws(() => marrow.load([{ name: 'walk.dae', bytes: dae }]),
                (e) => e instanceof MarrowError && /^walk\.dae: Collada/.test(e.message));
  assert.throws(() => marrow.load([]), MarrowError);
});

test('a player that was never started is named in the error', (t) => {
  const path = asset('gltf/Soldier.glb');
  if (skipUnless(t, path)) return;
  const loaded = marrow.load([file(path)]);
  const character = loaded.createCharacter();
  assert.throws(() => character.play('NoSuchClip'), (e) => /NoSuchClip/.test(e.message));
  assert.throws(() => character.setWeight(12345, 1), /no such player/);
  character.delete();
  loaded.delete();
});

test('an override layer on the right arm gives the pose marrow pose --layer gives', (t) => {
  const path = asset('gltf/Soldier.glb');
  if (skipUnless(t, path)) return;
  const loaded = marrow.load([file(path)]);
  const character = loaded.createCharacter({ overrideJoint: 'mixamorig:RightArm' });
  const times = [0.2, 0.45];
  const native = nativePoses(path, 'Walk', times, loaded,
                             ['--layer', 'Run:mode=override:mask=mixamorig:RightArm']);
  const walk = character.play('Walk', { loop: false });
  const run = character.play('Run', { loop: false, layer: 1 });
  times.forEach((time, k) => {
    character.setTime(walk, time);
    character.setTime(run, time);
    character.update(0);
    const difference = largestDifference(character, native[k], loaded.jointCount);
    assert.ok(difference <= 1e-5, `Walk with Run over the right arm at ${time} s: ${difference}`);
  });
  // The layer exists only on such a character, and the joint must exist.
  assert.throws(() => character.play('Run', { layer: 2 }), /layer 2 does not exist/);
  assert.throws(() => loaded.createCharacter({ overrideJoint: 'NoSuchJoint' }), /NoSuchJoint/);
  character.delete();
  loaded.delete();
});
