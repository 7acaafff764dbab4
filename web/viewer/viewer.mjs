// The viewer page (docs/web.md): open files by picker or drop (several at once, or a folder, for
// files with companions), pick a clip, play, pause, scrub, change speed and loop mode, cross-fade
// to a second clip, see the skeleton with joint names on hover, the reader's notes and errors,
// and marrow's own time per frame. The page keeps working after a bad file.
import { createMarrow, MarrowError } from './marrow.mjs';
import { Renderer, viewProjection } from './renderer.mjs';

export class Viewer {
  constructor(marrow, canvas) {
    this.marrow = marrow;
    this.canvas = canvas;
    this.renderer = new Renderer(canvas);
    this.selectedJoint = null;
    this.asset = null;
    this.character = null;
    this.player = -1;
    this.clip = null;
    this.speed = 1;
    this.loop = true;
    this.playing = true;
    this.camera = { target: [0, 1, 0], distance: 4, yaw: 0.5, pitch: 0.25, fov: 0.8 };
    this.radius = 1;
    this.updateMs = 0;
    this.frameMs = 16;
    // More characters playing the shown clip on a grid behind the first (setCrowd).
    this.crowd = [];
    this.crowdSize = 1;
    // Morph weights set by the sliders (slot -> weight), kept when the character is made again.
    this.morphWeights = new Map();
    this.blendPlayer = -1;
  }

  // Loads `files` ({name, bytes}; the first readable one is the file, the rest its companions).
  // Throws a MarrowError when the file is refused; the asset shown before stays.
  open(files) {
    const asset = this.marrow.load(files);
    let character;
    try {
      character = asset.createCharacter();
    } catch (error) {
      asset.delete();  // refused: the asset shown before stays, and nothing is left behind
      throw error;
    }
    this.deleteCrowd();
    this.character?.delete();
    this.asset?.delete();
    this.asset = asset;
    this.character = character;
    this.renderer.setAsset(asset);
    this.showWeightsOf(null);
    this.player = -1;
    this.overridePlayer = -1;
    this.blendPlayer = -1;
    this.morphWeights.clear();
    if (asset.clips.length > 0) this.play(asset.clips[0].name);
    this.character.update(0);
    this.frame();
    if (this.crowdSize > 1) this.setCrowd(this.crowdSize);
    return asset;
  }

  play(clip) {
    if (this.player >= 0) this.character.stop(this.player);
    this.blendPlayer = -1;
    this.clip = clip;
    this.player = this.character.play(clip, { loop: this.loop });
    this.character.setTimeScale(this.player, this.speed);
    if (this.crowd.length > 0) this.setCrowd(this.crowdSize);
  }

  // Shows `count` characters in all (1 to 400): the others play the shown clip, looping, from
  // staggered times, on a square grid behind the first, each with its own Animator over the
  // asset's one clip set; the camera pulls back to frame them. updateMs covers all of them.
  setCrowd(count) {
    this.crowdSize = Math.max(1, Math.min(400, Math.floor(Number(count) || 1)));
    this.deleteCrowd();
    if (!this.asset) return;
    const columns = Math.ceil(Math.sqrt(this.crowdSize));
    const spacing = this.radius * 1.5;
    const duration = this.asset.clips.find((c) => c.name === this.clip)?.duration ?? 0;
    for (let i = 1; i < this.crowdSize; ++i) {
      const character = this.asset.createCharacter();
      if (this.clip !== null) {
        const player = character.play(this.clip, { loop: true });
        character.setTimeScale(player, this.speed);
        if (duration > 0) character.setTime(player, (i * 0.37) % duration);
      }
      character.update(0);
      const row = Math.floor(i / columns), column = i % columns;
      this.crowd.push({ character, offset: [column * spacing, 0, -row * spacing] });
    }
    this.frame();
    if (columns > 1) {
      const across = (columns - 1) * spacing;
      this.camera.target = [this.camera.target[0] + across / 2, this.camera.target[1],
                            this.camera.target[2] - across / 2];
      this.camera.distance = (this.radius + across * 0.75) * 2.4;
    }
  }

  deleteCrowd() {
    for (const other of this.crowd) other.character.delete();
    this.crowd = [];
  }

  // A masked override layer: `clip` on layer 1 moves `joint` and everything below it over the
  // playing clip (wave with the right arm while walking); joint null turns it off. The character
  // is made again (its clip set holds the mask), at the playing clip's time.
  setOverride(joint, clip) {
    const character = this.asset.createCharacter({ overrideJoint: joint ?? '' });
    const time = this.player >= 0 ? this.character.playerTime(this.player) : 0;
    this.replaceCharacter(character);
    if (this.clip !== null) {
      this.play(this.clip);
      this.character.setTime(this.player, time);
    }
    if (joint !== null) {
      this.overridePlayer = this.character.play(clip, { loop: this.loop, layer: 1 });
      this.character.setTimeScale(this.overridePlayer, this.speed);
    }
    this.character.update(0);
  }

  // A 1-D blend between the shown clip and `other` with their feet in step: a character whose
  // clip set marks both clips' foot-down markers (from the feet marrow's humanoid matching finds)
  // and plays them as a blend space, synced marker to marker; `amount` 0 is the shown clip alone,
  // 1 the other. Without feet to mark (not a humanoid), the two are synced by normalized time.
  // Returns what the sync follows.
  blend(other, amount) {
    const setup = { blend_spaces: [{ name: 'blend', samples: [{ clip: this.clip, x: 0 },
                                                               { clip: other, x: 1 }] }] };
    let sync = 'markers: feet down';
    try {
      const rig = this.asset.humanoid();
      const known = (part) => (rig[part] && rig[part] !== '?' ? rig[part] : undefined);
      setup.foot_markers = { left_foot: known('left_foot'), right_foot: known('right_foot'),
                             left_toe: known('left_toe'), right_toe: known('right_toe'),
                             clips: [...new Set([this.clip, other])] };
      // Both clips must be marked; a clip where the feet never come down cannot be.
      this.asset.createCharacter({ setup }).delete();
    } catch (error) {
      delete setup.foot_markers;
      sync = `phase (no foot markers: ${error.message})`;
    }
    const time = this.player >= 0 ? this.character.playerTime(this.player) : 0;
    this.replaceCharacter(this.asset.createCharacter({ setup }));
    this.player = this.character.playBlendSpace('blend', { x: amount, loop: this.loop });
    this.blendPlayer = this.player;
    this.character.setTimeScale(this.player, this.speed);
    this.character.setTime(this.player, time);
    this.character.update(0);
    return sync;
  }

  setBlendAmount(amount) {
    if (this.blendPlayer >= 0) this.character.setBlend(this.blendPlayer, amount);
  }

  // Morph slot `slot`'s weight (the asset's info.morph_slots), held until changed.
  setMorph(slot, weight) {
    this.morphWeights.set(slot, weight);
    this.character.setMorphWeight(`#${slot}`, weight);
  }

  // Makes `character` the shown one, with the morph weights the sliders set.
  replaceCharacter(character) {
    this.character.delete();
    this.character = character;
    this.player = -1;
    this.overridePlayer = -1;
    this.blendPlayer = -1;
    for (const [slot, weight] of this.morphWeights) character.setMorphWeight(`#${slot}`, weight);
  }

  crossFade(clip, seconds) {
    const next = this.character.play(clip, { loop: this.loop, weight: 0 });
    this.character.crossFade(this.player, next, seconds);
    this.character.setTimeScale(next, this.speed);
    this.player = next;
    this.clip = clip;
  }

  setSpeed(speed) {
    this.speed = speed;
    if (this.player >= 0) this.character.setTimeScale(this.player, speed);
  }

  setLoop(loop) {
    this.loop = loop;
    if (this.clip !== null) this.play(this.clip);
  }

  setTime(seconds) {
    if (this.player < 0) return;
    this.character.setTime(this.player, seconds);
    this.character.update(0);
  }

  // Frames the character: the box around its joints, as last evaluated, and its meshes' bind
  // poses (a rigid mesh's box moved by its node), so that a file of one node is framed too.
  frame() {
    const model = this.character.modelMatrices();
    const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
    const add = (p) => {
      for (let k = 0; k < 3; ++k) {
        lo[k] = Math.min(lo[k], p[k]);
        hi[k] = Math.max(hi[k], p[k]);
      }
    };
    for (let j = 0; j < model.length / 16; ++j) add(model.subarray(j * 16 + 12, j * 16 + 15));
    for (const mesh of this.renderer.meshes) {
      const [a, b] = mesh.bounds;
      if (!Number.isFinite(a[0])) continue;
      const m = !mesh.skinned && mesh.node >= 0 ? model.subarray(mesh.node * 16, mesh.node * 16 + 16)
                                                 : null;
      for (let c = 0; c < 8; ++c) {
        const p = [c & 1 ? b[0] : a[0], c & 2 ? b[1] : a[1], c & 4 ? b[2] : a[2]];
        add(m ? [0, 1, 2].map((r) => m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r])
              : p);
      }
    }
    if (!Number.isFinite(lo[0])) return;
    this.radius = Math.max(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2], 1e-6) * 0.75;
    this.camera.target = [(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, (lo[2] + hi[2]) / 2];
    this.camera.distance = this.radius * 2.4;
  }

  // The root joint's ground point, for the shadow and the grid's centre.
  root() {
    const model = this.character.modelMatrices();
    const j = model.length >= 32 ? 1 : 0;
    return [model[j * 16 + 12], 0, model[j * 16 + 14]];
  }

  // Advances by dt seconds (when playing) and draws.
  tick(dt) {
    if (!this.character) return;
    const start = performance.now();
    this.character.update(this.playing ? dt : 0);
    for (const other of this.crowd) other.character.update(this.playing ? dt : 0);
    this.updateMs = performance.now() - start;
    this.viewProjection = this.renderer.draw(this.character, this.camera, this.radius, this.root(),
                                             this.crowd);
  }

  // Shows skeleton joint `joint`'s skin weights as a heat map (null: the materials again).
  showWeightsOf(joint) {
    this.selectedJoint = joint;
    this.renderer.showHeat = joint !== null;
    return joint === null ? [] : this.renderer.setHeatJoint(joint);
  }

  // The index of the joint drawn nearest the canvas point (x, y) within `pixels`, or -1.
  jointIndexAt(x, y, pixels = 8) {
    const name = this.jointAt(x, y, pixels);
    return name === null ? -1 : this.asset.info.nodes.findIndex((n) => n.name === name);
  }

  // The joint drawn nearest the canvas point (x, y) within `pixels`, or null.
  jointAt(x, y, pixels = 8) {
    if (!this.character || !this.viewProjection) return null;
    const model = this.character.modelMatrices();
    const m = this.viewProjection;
    let best = null, bestDistance = pixels;
    for (let j = 0; j < model.length / 16; ++j) {
      const p = [model[j * 16 + 12], model[j * 16 + 13], model[j * 16 + 14]];
      const w = m[3] * p[0] + m[7] * p[1] + m[11] * p[2] + m[15];
      if (w <= 0) continue;
      const sx = ((m[0] * p[0] + m[4] * p[1] + m[8] * p[2] + m[12]) / w * 0.5 + 0.5) *
                 this.canvas.clientWidth;
      const sy = (0.5 - (m[1] * p[0] + m[5] * p[1] + m[9] * p[2] + m[13]) / w * 0.5) *
                 this.canvas.clientHeight;
      const d = Math.hypot(sx - x, sy - y);
      if (d < bestDistance) bestDistance = d, best = this.asset.info.nodes[j].name;
    }
    return best;
  }
}

// Reads dropped or picked files (and folders, as a drop gives them) into {name, bytes}, the file
// to show first: the first whose extension marrow reads as a model or clip (companions such as
// .bin buffers and images follow it).
const readable = ['.glb', '.gltf', '.bvh', '.x', '.md5mesh', '.md5anim', '.smd', '.obj', '.marrow',
                  '.fbx', '.dae'];
export async function readFiles(list) {
  const files = await Promise.all(list.map(async ({ file, path }) => ({
    name: path || file.webkitRelativePath || file.name,
    bytes: new Uint8Array(await file.arrayBuffer()),
  })));
  for (const f of files) f.name = f.name.replace(/^\/+/, '');
  const main = files.findIndex((f) => readable.some((e) => f.name.toLowerCase().endsWith(e)));
  if (main > 0) files.unshift(...files.splice(main, 1));
  return files;
}

async function entriesOf(entry, prefix = '') {
  if (entry.isFile) {
    const file = await new Promise((resolve, reject) => entry.file(resolve, reject));
    return [{ file, path: prefix + entry.name }];
  }
  const reader = entry.createReader();
  const children = [];
  for (;;) {
    const batch = await new Promise((resolve, reject) => reader.readEntries(resolve, reject));
    if (batch.length === 0) break;
    children.push(...batch);
  }
  const nested = await Promise.all(children.map((c) => entriesOf(c, `${prefix}${entry.name}/`)));
  return nested.flat();
}

// Wires the page's controls (index.html) to a viewer.
export async function startPage(document) {
  const $ = (id) => document.getElementById(id);
  const status = $('status');
  const notes = $('notes');
  const show = (text, kind) => {
    const line = document.createElement('li');
    line.textContent = text;
    line.className = kind;
    notes.prepend(line);
  };
  let viewer;
  try {
    viewer = new Viewer(await createMarrow(), $('canvas'));
    viewer.renderer.onNote = (text) => show(text, 'note');
  } catch (error) {
    status.textContent = `marrow could not start: ${error.message}`;
    return null;
  }
  status.textContent = `marrow ${viewer.marrow.version}: open or drop a file`;

  const fillClips = () => {
    $('override-joint').replaceChildren(...viewer.asset.info.nodes.map((node) => {
      const option = document.createElement('option');
      option.value = option.textContent = node.name;
      return option;
    }));
    for (const select of [$('clip'), $('fade-to'), $('override-clip')]) {
      select.replaceChildren(...viewer.asset.clips.map((clip) => {
        const option = document.createElement('option');
        option.value = option.textContent = clip.name;
        return option;
      }));
    }
    $('time').max = String(viewer.asset.clips[0]?.duration ?? 0);
    $('blend-to').replaceChildren(...$('clip').cloneNode(true).children);
    // One slider per morph slot: the node's target name, or its slot number when unnamed.
    const sliders = (viewer.asset.info.morph_slots ?? []).flatMap((node) =>
      node.targets.map((name, k) => {
        const slot = node.first_slot + k;
        const label = document.createElement('label');
        const input = document.createElement('input');
        Object.assign(input, { type: 'range', min: '0', max: '1', step: '0.01', value: '0' });
        input.dataset.slot = String(slot);
        input.addEventListener('input', guard(() => viewer.setMorph(slot, Number(input.value))));
        label.append(`${node.node ?? 'node'}: ${name || `#${slot}`}`, input);
        return label;
      }));
    $('morphs').replaceChildren(...sliders);
    $('morph-set').hidden = sliders.length === 0;
  };
  const open = async (list) => {
    const files = await readFiles(list);
    if (files.length === 0) return;
    const started = performance.now();
    try {
      const asset = viewer.open(files);
      fillClips();
      status.textContent = `${asset.name}: ${asset.jointCount} joints, ${asset.clips.length} clips, ` +
                           `${asset.meshCount} meshes (${Math.round(performance.now() - started)} ms)`;
      for (const note of asset.notes) show(`${asset.name}: ${note}`, "note");
    } catch (error) {
      show(error instanceof MarrowError ? error.message : `${files[0].name}: ${error}`, 'error');
    }
  };
  $('files').addEventListener('change', (e) => open([...e.target.files].map((file) => ({ file }))));
  $('folder').addEventListener('change', (e) => open([...e.target.files].map((file) => ({ file }))));
  document.addEventListener('dragover', (e) => e.preventDefault());
  document.addEventListener('drop', async (e) => {
    e.preventDefault();
    const entries = [...e.dataTransfer.items].map((item) => item.webkitGetAsEntry()).filter(Boolean);
    open((await Promise.all(entries.map((entry) => entriesOf(entry)))).flat());
  });
  const guard = (action) => (...args) => {
    try {
      if (viewer.character) action(...args);
    } catch (error) {
      show(error.message, 'error');
    }
  };
  $('clip').addEventListener('change', guard((e) => {
    viewer.play(e.target.value);
    $('time').max = String(viewer.asset.clips.find((c) => c.name === e.target.value).duration);
  }));
  $('play').addEventListener('click', () => {
    viewer.playing = !viewer.playing;
    $('play').textContent = viewer.playing ? 'Pause' : 'Play';
  });
  $('time').addEventListener('input', guard((e) => viewer.setTime(Number(e.target.value))));
  $('speed').addEventListener('input', guard((e) => viewer.setSpeed(Number(e.target.value))));
  $('loop').addEventListener('change', guard((e) => viewer.setLoop(e.target.checked)));
  $('fade').addEventListener('click', guard(() => viewer.crossFade($('fade-to').value,
                                                                  Number($('fade-seconds').value))));
  $('override').addEventListener('click', guard(() => viewer.setOverride($('override-joint').value,
                                                                        $('override-clip').value)));
  $('override-off').addEventListener('click', guard(() => viewer.setOverride(null, null)));
  $('blend').addEventListener('click', guard(() => {
    $('blend-sync').textContent = viewer.blend($('blend-to').value, Number($('blend-amount').value));
  }));
  $('blend-amount').addEventListener('input',
                                     guard((e) => viewer.setBlendAmount(Number(e.target.value))));
  $('crowd-show').addEventListener('click', guard(() => viewer.setCrowd($('crowd').value)));
  $('skeleton').addEventListener('change', (e) => { viewer.renderer.showSkeleton = e.target.checked; });
  $('meshes').addEventListener('change', (e) => { viewer.renderer.showMeshes = e.target.checked; });
  // A click on a joint shows its skin weights as a heat map; a click elsewhere, the materials.
  let pressed = null;
  $('canvas').addEventListener('mousedown', (e) => { pressed = [e.offsetX, e.offsetY]; });
  $('canvas').addEventListener('click', guard((e) => {
    // The end of a drag (an orbit) is not a click.
    if (pressed && Math.hypot(e.offsetX - pressed[0], e.offsetY - pressed[1]) > 4) return;
    const joint = viewer.jointIndexAt(e.offsetX, e.offsetY);
    viewer.showWeightsOf(joint >= 0 ? joint : null);
    $('weights').textContent = joint >= 0 ? `weights of ${viewer.asset.info.nodes[joint].name}` : '';
  }));
  $('canvas').addEventListener('mousemove', (e) => {
    if (e.buttons & 1) {
      viewer.camera.yaw -= e.movementX * 0.01;
      viewer.camera.pitch = Math.max(-1.4, Math.min(1.4, viewer.camera.pitch + e.movementY * 0.01));
    }
    const name = viewer.jointAt(e.offsetX, e.offsetY);
    $('joint').textContent = name ?? '';
  });
  $('canvas').addEventListener('wheel', (e) => {
    e.preventDefault();
    viewer.camera.distance *= Math.exp(e.deltaY * 0.001);
  }, { passive: false });

  let last = performance.now();
  const loop = (now) => {
    const dt = Math.min((now - last) / 1000, 0.1);
    last = now;
    viewer.frameMs = viewer.frameMs * 0.9 + (dt * 1000) * 0.1;
    const canvas = viewer.canvas;
    if (canvas.width !== canvas.clientWidth || canvas.height !== canvas.clientHeight) {
      canvas.width = canvas.clientWidth;
      canvas.height = canvas.clientHeight;
    }
    try {
      viewer.tick(dt);
    } catch (error) {
      show(error.message, 'error');
    }
    if (viewer.character) {
      $('timing').textContent = `marrow ${viewer.updateMs.toFixed(3)} ms per frame ` +
                                `(update, evaluate, local-to-model, palettes) for ` +
                                `${viewer.crowdSize} character${viewer.crowdSize > 1 ? 's' : ''} · ` +
                                `${(1000 / viewer.frameMs).toFixed(0)} frames per second · ` +
                                `SIMD ${viewer.marrow.simdLevel}`;
      if (viewer.player >= 0 && document.activeElement !== $('time')) {
        $('time').value = String(viewer.character.playerTime(viewer.player));
      }
    }
    requestAnimationFrame(loop);
  };
  requestAnimationFrame(loop);
  return viewer;
}

export { viewProjection };
