// The JavaScript characters' setup and commands (blend spaces with their feet in step, layers,
// state machines from JSON, IK, morph weights), held to `marrow play` on the same script and to
// values that follow from the specifications: an IK target reached, a state machine's transition
// taken, a morph target's deltas read from the glTF file itself. Run by `make test-web`.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '../..');
const webDir = resolve(process.env.MARROW_WEB_DIR ?? join(repo, 'build-web/web'));
const marrowBin = resolve(process.env.MARROW_BIN ?? join(repo, 'build/bin/marrow'));
const shared = resolve(process.env.MARROW_SHARED_DIR ?? join(repo, '../shared'));
const soldierPath = join(shared, 'assets/gltf/Soldier.glb');
const cubePath = join(shared, 'assets/gltf/morph/AnimatedMorphCube.gltf');

const { createMarrow, MarrowError } = await import(join(webDir, 'marrow.mjs'));
const marrow = await createMarrow({ wasmBinary: readFileSync(join(webDir, 'marrow_wasm.wasm')) });

const absent = (t, path) => {
  if (existsSync(path)) return false;
  t.skip(`${path} is absent (../shared/assets)`);
  return true;
};
const loadSoldier = () => marrow.load([{ name: 'Soldier.glb', bytes: readFileSync(soldierPath) }]);
const jointOf = (asset, name) => asset.info.nodes.find((n) => n.name === name).joint_index;
const positionOf = (character, joint) => {
  const m = character.modelMatrices();
  return [m[joint * 16 + 12], m[joint * 16 + 13], m[joint * 16 + 14]];
};

const setup = {
  fps: 30,
  layers: [{ name: 'base' }, { name: 'arm', mode: 'override', mask: 'arm' }],
  masks: { arm: { subtree: 'mixamorig:RightShoulder' } },
  sync_groups: ['markers'],
  foot_markers: { left_foot: 'mixamorig:LeftFoot', right_foot: 'mixamorig:RightFoot',
                  left_toe: 'mixamorig:LeftToeBase', right_toe: 'mixamorig:RightToeBase',
                  clips: ['Walk', 'Run'] },
  blend_spaces: [{ name: 'gait', samples: [{ clip: 'Walk', x: 1 }, { clip: 'Run', x: 3 }] }],
};
// [frame, command]: each runs at its frame's time, as the script's timeline entry of that time.
const commands = [
  [0, { play_blend_space: { blend_space: 'gait', id: 'legs', x: 1, sync_group: 0 } }],
  [15, { set_blend: { id: 'legs', x: 2.4 } }],
  [15, { play: { clip: 'Idle', id: 'arm', layer: 'arm', fade_in: 0.2 } }],
  [30, { ik: { id: 'reach', solver: 'two_bone', joint: 'mixamorig:LeftHand',
               target: { joint: 'mixamorig:LeftHand', offset: [0, 5, 5] }, fade: 0.2 } }],
  [40, { release_ik: { id: 'reach', duration: 0.1 } }],
];

test('a character set up and commanded from JavaScript moves as `marrow play` runs the script', (t) => {
  if (absent(t, soldierPath)) return;
  const frames = 50;
  const script = { ...setup, compile: false, duration: (frames - 1) / 30,
                   timeline: commands.map(([frame, c]) => ({ t: frame / 30, ...c })) };
  const dir = mkdtempSync(join(tmpdir(), 'marrow-web-'));
  writeFileSync(join(dir, 'script.json'), JSON.stringify(script));
  const native = JSON.parse(execFileSync(marrowBin, ['play', soldierPath, '--script',
    join(dir, 'script.json'), '--pose', '--format', 'json', '--quiet'], { maxBuffer: 1 << 28 }));
  assert.equal(native.frames.length, frames);

  const soldier = loadSoldier();
  const character = soldier.createCharacter({ setup });
  const jointOfSource = new Map(soldier.info.nodes.map((n) => [n.source_index, n.joint_index]));
  let largest = 0;
  for (let k = 0; k < frames; ++k) {
    character.update(k === 0 ? 0 : 1 / 30);
    const due = commands.filter(([frame]) => frame === k);
    if (due.length > 0) {
      for (const [, c] of due) character.command(c);
      character.update(0);
    }
    const model = character.modelMatrices();
    native.nodes.forEach((node, n) => {
      const joint = jointOfSource.get(node.index);
      for (let e = 0; e < 16; ++e) {
        largest = Math.max(largest, Math.abs(model[joint * 16 + e] - native.frames[k].world[n][e]));
      }
    });
  }
  // Both run the same float arithmetic in another order of updates: far below a thousandth of a
  // centimetre on a character 180 units tall.
  assert.ok(largest < 1e-4, `largest difference ${largest}`);
  character.delete();
  soldier.delete();
});

test('an IK constraint set from JavaScript brings the hand to its target', (t) => {
  if (absent(t, soldierPath)) return;
  const soldier = loadSoldier();
  const character = soldier.createCharacter();
  character.play('Idle');
  character.update(0);
  const hand = jointOf(soldier, 'mixamorig:LeftHand');
  const [x, y, z] = positionOf(character, hand);
  // Four fifths of the way from the shoulder to the hand: within the arm's reach, by bending it.
  const shoulder = positionOf(character, jointOf(soldier, 'mixamorig:LeftArm'));
  const target = [x, y, z].map((v, i) => shoulder[i] + 0.8 * (v - shoulder[i]));
  character.setIk('reach', { solver: 'two_bone', joint: 'mixamorig:LeftHand', target });
  character.update(0);
  const reached = positionOf(character, hand);
  const distance = Math.hypot(...reached.map((v, i) => v - target[i]));
  assert.ok(distance < 1e-2, `hand ${distance} from its target`);
  assert.deepEqual(character.ik.map((c) => [c.id, c.weight, c.reached]), [['reach', 1, true]]);
  character.releaseIk('reach');
  character.update(0);
  assert.deepEqual(character.ik, []);
  assert.ok(Math.hypot(...positionOf(character, hand).map((v, i) => v - [x, y, z][i])) < 1e-4);
  assert.throws(() => character.setIk('bad', { solver: 'aim', joint: 'Nose', target: [0, 1, 0] }),
                (e) => e instanceof MarrowError && /ik\.joint: no joint named 'Nose'/.test(e.message));
  character.delete();
  soldier.delete();
});

test('a state machine given as JSON takes its transitions from the parameters JavaScript sets', (t) => {
  if (absent(t, soldierPath)) return;
  const soldier = loadSoldier();
  const machine = {
    parameters: [{ name: 'speed' }, { name: 'wave', type: 'trigger' }],
    states: [{ name: 'Walk', clip: 'Walk' }, { name: 'Run', clip: 'Run' },
             { name: 'Stand', clip: 'Idle' }],
    transitions: [
      { from: 'Walk', to: 'Run', when: [{ parameter: 'speed', op: '>', value: 1.5 }], duration: 0.2 },
      { from: '*', to: 'Stand', when: [{ parameter: 'wave', op: 'triggered' }], duration: 0 },
    ],
  };
  const character = soldier.createCharacter({ setup: { state_machine: machine } });
  character.update(1 / 30);
  assert.equal(character.state, 'Walk');
  character.setParameter('speed', 1);
  character.update(1 / 30);
  assert.equal(character.state, 'Walk');
  character.setParameter('speed', 2);
  character.update(1 / 30);
  assert.equal(character.state, 'Run');
  for (let k = 0; k < 10; ++k) character.update(1 / 30);  // past the 0.2 s fade
  character.trigger('wave');
  character.update(1 / 30);
  assert.equal(character.state, 'Stand');
  assert.throws(() => character.setParameter('sped', 1),
                (e) => e instanceof MarrowError && /sped/.test(e.message));
  character.delete();
  assert.throws(() => soldier.createCharacter({ setup: { state_machine: {
    states: [{ name: 'Jog', clip: 'Jog' }] } } }),
  (e) => e instanceof MarrowError &&
         /^setup: state_machine\.states\[0\]\.clip: clip 'Jog': no such clip/.test(e.message));
  assert.throws(() => soldier.createCharacter({ setup: { timeline: [] , layers: 3 } }),
                (e) => e instanceof MarrowError && /setup: layers: /.test(e.message));
  soldier.delete();
});

test('a blend space plays its first clip alone at its first sample', (t) => {
  if (absent(t, soldierPath)) return;
  const soldier = loadSoldier();
  const blended = soldier.createCharacter({ setup });
  const alone = soldier.createCharacter();
  const space = blended.playBlendSpace('gait', { x: 0 });  // clamped to Walk's sample (x = 1)
  alone.play('Walk');
  for (let k = 0; k < 20; ++k) {
    blended.update(1 / 30);
    alone.update(1 / 30);
  }
  const a = blended.modelMatrices(), b = alone.modelMatrices();
  let largest = 0;
  for (let i = 0; i < a.length; ++i) largest = Math.max(largest, Math.abs(a[i] - b[i]));
  assert.ok(largest < 1e-4, `largest difference ${largest}`);
  blended.setBlend(space, 2);
  blended.update(1 / 30);
  assert.throws(() => blended.setBlend(12345, 1), MarrowError);
  assert.equal(soldier.humanoid().left_foot, 'mixamorig:LeftFoot');
  // Events: a user's event at 0.25 s of Walk, then its loop seam, in the update that crosses them.
  const timed = soldier.createCharacter({ setup: { events: { Walk: [{ time: 0.25, name: 'step' }] } } });
  const walk = timed.play('Walk');
  const duration = soldier.clips.find((c) => c.name === 'Walk').duration;
  timed.update(0.2);
  assert.deepEqual(timed.events(), []);
  timed.update(0.1);
  assert.deepEqual(timed.events().map((e) => [e.type, e.name, e.player]), [['event', 'step', walk]]);
  assert.ok(Math.abs(timed.events()[0].time - 0.05) < 1e-5, 'reached 0.05 s into the update');
  timed.update(duration - 0.3 + 0.01);
  assert.deepEqual(timed.events().map((e) => e.type), ['looped']);
  timed.delete();
  blended.delete();
  alone.delete();
  soldier.delete();
});

// The glTF file's own target deltas (accessor data read here from its .bin), against the module's
// morphed vertices: base + weight * delta, per the glTF specification's morph target formula.
function targetDeltas(gltfPath, mesh, target) {
  const gltf = JSON.parse(readFileSync(gltfPath, 'utf8'));
  const bin = readFileSync(join(dirname(gltfPath), gltf.buffers[0].uri));
  const accessor = gltf.accessors[gltf.meshes[mesh].primitives[0].targets[target].POSITION];
  const view = gltf.bufferViews[accessor.bufferView];
  const offset = (view.byteOffset ?? 0) + (accessor.byteOffset ?? 0);
  const stride = view.byteStride ?? 12;
  const out = [];
  for (let v = 0; v < accessor.count; ++v) {
    for (let c = 0; c < 3; ++c) out.push(bin.readFloatLE(offset + v * stride + c * 4));
  }
  return out;
}

test('morph weights set from JavaScript reach the weights and the morphed vertices', (t) => {
  if (absent(t, cubePath)) return;
  const binPath = join(dirname(cubePath), 'AnimatedMorphCube.bin');
  const cube = marrow.load([{ name: basename(cubePath), bytes: readFileSync(cubePath) },
                            { name: basename(binPath), bytes: readFileSync(binPath) }]);
  const character = cube.createCharacter();
  const base = cube.mesh(0).positions;
  character.setMorphWeight('#0', 0.5);
  character.setMorphWeight('#1', 0.25);
  character.update(0);
  assert.deepEqual([...character.morphWeights()], [0.5, 0.25]);
  const d0 = targetDeltas(cubePath, 0, 0), d1 = targetDeltas(cubePath, 0, 1);
  const morphed = character.morphedMesh(0).positions;
  assert.equal(morphed.length, base.length);
  let largest = 0;
  for (let i = 0; i < base.length; ++i) {
    largest = Math.max(largest, Math.abs(morphed[i] - (base[i] + 0.5 * d0[i] + 0.25 * d1[i])));
  }
  assert.ok(largest < 1e-6, `largest difference ${largest}`);
  assert.ok(d0.some((d) => d !== 0), 'the target moves vertices');
  character.setMorphWeight('#0', 1, { seconds: 0.5 });
  character.update(0.25);
  assert.ok(Math.abs(character.morphWeights()[0] - 0.75) < 1e-5);
  assert.throws(() => character.setMorphWeight('smile', 1),
                (e) => e instanceof MarrowError && /smile/.test(e.message));
  character.delete();
  cube.delete();
});

// glTF nodes need no name (Khronos' CesiumMan names none): its clip binds to its own joints by
// place, and the character's pose follows ../shared/reference's three.js poses by the reference's
// criterion (positions within 1e-3 of the extent of its node positions, 3x3 parts within 1e-3).
test('a character of a file without joint names plays as the independent reference poses it', (t) => {
  const gltf = join(shared, 'assets/gltf/cesium_man.gltf');
  const refPath = join(shared, 'reference/gltf/cesium_man.gltf.clip0.json');
  if (absent(t, gltf) || absent(t, refPath)) return;
  const ref = JSON.parse(readFileSync(refPath, 'utf8'));
  // Its buffers are data: URIs inside the file; an image beside it, if any, is not needed here.
  const cesium = marrow.load([{ name: 'cesium_man.gltf', bytes: readFileSync(gltf) }]);
  const character = cesium.createCharacter();
  const jointOfSource = new Map(cesium.info.nodes.map((n) => [n.source_index, n.joint_index]));
  const extent = Math.max(...[0, 1, 2].map((k) => {
    const values = ref.samples.flatMap((s) => s.world.map((w) => w[12 + k]));
    return Math.max(...values) - Math.min(...values);
  }));
  character.command({ play: { clip: ref.clip } });
  let time = 0;
  for (const sample of ref.samples) {
    character.update(sample.t - time);
    time = sample.t;
    const model = character.modelMatrices();
    ref.nodes.forEach((node, n) => {
      const joint = jointOfSource.get(node.index);
      const expected = sample.world[n];
      const at = `node ${node.index} at t=${sample.t}`;
      const position = Math.hypot(...[12, 13, 14].map((e) => model[joint * 16 + e] - expected[e]));
      assert.ok(position <= 1e-3 * extent, `${at}: position off by ${position}`);
      for (let c = 0; c < 3; ++c) {
        const norm = Math.hypot(...[0, 1, 2].map((r) => expected[c * 4 + r]));
        for (let r = 0; r < 3; ++r) {
          const off = Math.abs(model[joint * 16 + c * 4 + r] - expected[c * 4 + r]);
          assert.ok(off <= 1e-3 * Math.max(norm, 1e-6), `${at}: column ${c} off by ${off}`);
        }
      }
    });
  }
  character.delete();
  cesium.delete();
});

// A refusal that names the file names it as the page gave it, not by the module's in-memory folder.
// glTF does not ask animation names to be unique; a clip set does, and says which file repeats one.
test('a character refused for its file names the file as it was given', (t) => {
  const gltf = join(shared, 'assets/gltf/box_animated.gltf');
  if (absent(t, gltf)) return;
  const doc = JSON.parse(readFileSync(gltf, 'utf8'));
  doc.animations[0].name = 'Spin';
  doc.animations.push(structuredClone(doc.animations[0]));
  const bytes = new TextEncoder().encode(JSON.stringify(doc));
  const box = marrow.load([{ name: 'two_spins.gltf', bytes }]);
  assert.throws(() => box.createCharacter(),
                (error) => error instanceof MarrowError &&
                  /^two_spins\.gltf: clip 'Spin': /.test(error.message));
  box.delete();
});
