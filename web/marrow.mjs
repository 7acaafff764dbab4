// marrow in JavaScript (docs/web.md): a thin layer over the WebAssembly module's bindings that
// writes files into the module's file system, turns failures into thrown MarrowErrors and parses
// what the module reports as JSON.
import createMarrowModule from './marrow_wasm.mjs';
import pako from './pako_inflate.mjs';

/** An error from marrow, with the message its command line would print. */
export class MarrowError extends Error {
  constructor(message) {
    super(message);
    this.name = 'MarrowError';
  }
}

let loads = 0;

class Asset {
  constructor(module, handle, name, folder) {
    this.module = module;
    this.handle = handle;
    this.name = name;
    // The in-memory folder the file was read from, which messages naming the file leave out.
    this.folder = folder;
    /** What `marrow info --format json` prints: skeleton, clips, meshes, materials, notes. */
    this.info = JSON.parse(handle.infoJson());
  }
  get clips() { return this.info.clips; }
  get notes() { return this.info.notes ?? []; }
  get jointCount() { return this.handle.jointCount(); }
  get meshCount() { return this.info.meshes.length; }
  /** Mesh `index` laid out for a vertex shader, copied out of WebAssembly memory: positions,
   * normals, uvs, indices, and per vertex four joints (skin joint indices) and weights; its skin,
   * node and material indices; clampedInfluences, the vertices that had more than four. */
  mesh(index) {
    const m = this.handle.mesh(index);
    if (m === null) throw new MarrowError(`mesh: the asset has no mesh ${index}`);
    const copy = (view) => view.slice();
    return { positions: copy(m.positions), normals: copy(m.normals), uvs: copy(m.uvs),
             indices: copy(m.indices), joints: copy(m.joints), weights: copy(m.weights),
             skin: m.skin, node: m.node, material: m.material,
             clampedInfluences: m.clampedInfluences };
  }
  /** Image `index` of the materials, still encoded: {name, mimeType, bytes} (bytes null when the
   * file could not be read). */
  image(index) {
    const image = this.handle.image(index);
    if (image === null) throw new MarrowError(`image: the asset has no image ${index}`);
    return { name: image.name, mimeType: image.mimeType,
             bytes: image.bytes === null ? null : image.bytes.slice() };
  }
  /**
   * A character playing this asset's clips; call delete() when done with it. `setup` is an
   * animation script's setup (docs/control.md: layers, masks, markers, foot_markers,
   * blend_spaces, state_machine, foot_planting, root_motion, ...; no timeline), as an object;
   * its clips play exact unless it says "compile": true. With {overrideJoint}, clips played on
   * layer 1 override the base layer (0) on that joint and everything below it (waving with the
   * right arm while walking). Characters of one setup share its clip set.
   */
  createCharacter({ overrideJoint = '', setup = {} } = {}) {
    const script = { compile: false, ...setup };
    if (overrideJoint) {
      if (script.layers) {
        throw new MarrowError('createCharacter: give overrideJoint or setup.layers, not both');
      }
      script.masks = { ...(script.masks ?? {}), override: { subtree: String(overrideJoint) } };
      script.layers = [{ name: 'base' }, { name: 'override', mode: 'override', mask: 'override' }];
    }
    const handle = this.module.createCharacter(this.handle, JSON.stringify(script));
    if (!handle) {
      throw new MarrowError(this.module.lastError().replaceAll(`${this.folder}/`, ''));
    }
    return new Character(this.module, handle);
  }
  /** The humanoid parts marrow finds in the skeleton ({hips, spine: [...], left_foot, ...}: joint
   * names, '?' for a part not found), as a retargeting map's section names them. Throws a
   * MarrowError saying why for a skeleton that is not a humanoid. */
  humanoid() {
    const json = this.module.humanoidJson(this.handle);
    if (json === '') throw new MarrowError(this.module.lastError());
    return JSON.parse(json).target;
  }
  delete() { this.handle.delete(); }
}

class Character {
  constructor(module, handle) {
    this.module = module;
    this.handle = handle;
  }
  check(ok) {
    if (!ok) throw new MarrowError(this.module.lastError());
  }
  /** Starts a clip by name or index (on `layer`: 0, or 1 for the override); returns its id. */
  play(clip, { weight = 1, loop = true, fadeIn = 0, layer = 0 } = {}) {
    const id = this.handle.play(String(clip), weight, loop, fadeIn, layer);
    if (id < 0) throw new MarrowError(this.module.lastError());
    return id;
  }
  /** Starts one of the setup's blend spaces at parameter (x, y); returns its player id. */
  playBlendSpace(space, { x = 0, y = 0, weight = 1, loop = true, fadeIn = 0, layer = 0 } = {}) {
    const id = this.handle.playBlendSpace(String(space), x, y, weight, loop, fadeIn, layer);
    if (id < 0) throw new MarrowError(this.module.lastError());
    return id;
  }
  /** Moves a blend-space player's parameter. */
  setBlend(player, x, y = 0) { this.check(this.handle.setBlend(player, x, y)); }
  /**
   * Runs one of an animation script's timeline entries now (docs/control.md), without "t":
   * {play: {clip: 'Walk', id: 'walk'}}, {set_param: {name: 'speed', value: 2}}, {trigger: 'jump'},
   * {set_morph: {target: 'smile', weight: 1}}, {ik: {id: 'look', solver: 'aim', ...}}, ...
   * Players started this way are named by their ids in later commands.
   */
  command(entry) {
    this.check(this.handle.command(typeof entry === 'string' ? entry : JSON.stringify(entry)));
  }
  /** A state machine parameter: a number (set_param) or a boolean (set_bool). */
  setParameter(name, value) {
    if (typeof value === 'boolean') this.command({ set_bool: { name, value } });
    else this.command({ set_param: { name, value } });
  }
  trigger(name) { this.command({ trigger: name }); }
  /** The state machine's current state, as of the last update ('' without a machine). */
  get state() { return this.handle.state(); }
  /** A morph target's weight by name (every mesh's target of that name) or '#SLOT', at once or
   * over `seconds`; it holds until released (clips' weight tracks drive it again). */
  setMorphWeight(target, weight, { seconds = 0 } = {}) {
    if (seconds > 0) this.command({ fade_morph: { target, weight, duration: seconds } });
    else this.command({ set_morph: { target, weight } });
  }
  releaseMorphWeight(target, seconds = 0) {
    this.command({ release_morph: { target, duration: seconds } });
  }
  /** One weight per morph slot (the asset's info.morph_slots), as modelMatrices(). */
  morphWeights() { return this.handle.morphWeights(); }
  /** Mesh `mesh`'s bind-pose vertices with the morph weights applied: {positions, normals}
   * (3 floats each per vertex, views valid until the next call), or null without targets. */
  morphedMesh(mesh) { return this.handle.morphedMesh(mesh); }
  /** Sets (or replaces) an IK constraint: an "ik" command's members without the id
   * (docs/control.md, "IK in scripts": solver two_bone, aim or chain, joint, target, ...). */
  setIk(id, constraint) { this.command({ ik: { id, ...constraint } }); }
  releaseIk(id, seconds = 0) { this.command({ release_ik: { id, duration: seconds } }); }
  /** The IK constraints as of the last update: [{id, weight, reached}]. */
  get ik() { return this.handle.ik(); }
  /** The last update's events: [{type, name, player, clipTime, time}]. */
  events() { return this.handle.events(); }
  stop(player) { this.check(this.handle.stop(player)); }
  setWeight(player, weight) { this.check(this.handle.setWeight(player, weight)); }
  setTimeScale(player, scale) { this.check(this.handle.setTimeScale(player, scale)); }
  setPaused(player, paused) { this.check(this.handle.setPaused(player, paused)); }
  setTime(player, seconds) { this.check(this.handle.setTime(player, seconds)); }
  crossFade(from, to, seconds) { this.check(this.handle.crossFade(from, to, seconds)); }
  fadeOut(player, seconds) { this.check(this.handle.fadeOut(player, seconds)); }
  playerTime(player) { return this.handle.playerTime(player); }
  /** Advances by dt seconds and evaluates the pose, IK, model matrices, morph weights and skin
   * palettes. */
  update(dt) { this.check(this.handle.update(dt)); }
  /** 16 floats per joint, column-major: a view into WebAssembly memory, valid until the next
   * update (and invalidated if the module's memory grows: take it again each frame). */
  modelMatrices() { return this.handle.modelMatrices(); }
  /** Skin `skin`'s palette, 16 floats per skin joint, as modelMatrices(). */
  palette(skin = 0) {
    const view = this.handle.palette(skin);
    if (view === null) throw new MarrowError(`palette: the asset has no skin ${skin}`);
    return view;
  }
  delete() { this.handle.delete(); }
}

class Marrow {
  constructor(module) { this.module = module; }
  get version() { return this.module.version(); }
  /** The SIMD level marrow's kernels run at: 'wasm128' (WebAssembly SIMD), or 'scalar'. */
  get simdLevel() { return this.module.simdLevel(); }
  /** Chooses the level (tests compare them); throws for a level this module has no kernels for. */
  setSimdLevel(name) {
    if (!this.module.setSimdLevel(String(name))) throw new MarrowError(this.module.lastError());
  }
  /**
   * The native benchmark's crowd loop (bench/crowd_walk.h) in the module: `characters` copies of
   * `clip`, compiled, sampled (and with `model`, run through local-to-model) for at least
   * `seconds`. Returns nanoseconds per character-frame.
   */
  benchmarkCrowd(asset, { clip = 'Walk', characters = 100, seconds = 1, model = true } = {}) {
    const ns = this.module.benchCrowdWalk(asset.handle, String(clip), characters, seconds, model);
    if (ns < 0) throw new MarrowError(`benchmarkCrowd: no clip '${clip}' that compiles`);
    return ns;
  }
  /**
   * Loads a file and its companions. `files` is a list of {name, bytes} (bytes: Uint8Array or
   * ArrayBuffer); the first is the file to read, the rest lie beside it (a .gltf's buffers and
   * images, .md5anim files beside an .md5mesh).
   */
  load(files) {
    if (!Array.isArray(files) || files.length === 0) {
      throw new MarrowError('load: expected a list of {name, bytes}, the file to read first');
    }
    const FS = this.module.FS;
    const folder = `/load${++loads}`;
    FS.mkdir(folder);
    try {
      for (const { name, bytes } of files) {
        const path = `${folder}/${name}`;
        const parts = name.split('/').slice(0, -1);
        for (let i = 1; i <= parts.length; ++i) {
          const dir = `${folder}/${parts.slice(0, i).join('/')}`;
          if (!FS.analyzePath(dir).exists) FS.mkdir(dir);
        }
        FS.writeFile(path, bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes));
      }
      const handle = this.module.load(`${folder}/${files[0].name}`);
      if (!handle) {
        throw new MarrowError(this.module.lastError().replaceAll(`${folder}/`, ''));
      }
      return new Asset(this.module, handle, files[0].name, folder);
    } finally {
      removeTree(FS, folder);
    }
  }
}

function removeTree(FS, path) {
  for (const entry of FS.readdir(path)) {
    if (entry === '.' || entry === '..') continue;
    const child = `${path}/${entry}`;
    if (FS.isDir(FS.stat(child).mode)) removeTree(FS, child);
    else FS.unlink(child);
  }
  FS.rmdir(path);
}

// The inflate of compressed .X files (MSZIP: raw deflate blocks, each with the window of the data
// before it), for src/io/x/x_inflate_web.cpp: Debian's pako, as zlib is not built for
// WebAssembly. Returns {bytes} (at most `capacity` bytes are looked at) or {error}.
function inflateRaw(input, dictionary, capacity) {
  let inflator;
  try {
    inflator = new pako.Inflate({ raw: true, chunkSize: capacity,
                                  dictionary: dictionary.length > 0 ? dictionary.slice() : undefined });
  } catch (error) {
    return { error: `inflate: ${error.message}` };
  }
  // Past `capacity` the block is damaged (the caller sees more than it declared): what follows is
  // counted, not kept, so a block that inflates a thousandfold holds no more memory than that.
  const chunks = [];
  let kept = 0;
  inflator.onData = (chunk) => {
    if (kept <= capacity) chunks.push(chunk.slice());
    kept += chunk.length;
  };
  inflator.onEnd = (status) => { inflator.err = status; inflator.msg = inflator.strm.msg; };
  inflator.push(input.slice(), 2 /* Z_SYNC_FLUSH: a block need not end the stream */);
  if (inflator.err) return { error: `inflate: ${inflator.msg || `error ${inflator.err}`}` };
  // What the last push left in its buffer without handing it out (no stream end, buffer not full).
  const strm = inflator.strm;
  if (!inflator.ended && strm.output && strm.avail_out > 0) {
    chunks.push(strm.output.subarray(0, strm.next_out));
  }
  const bytes = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) bytes.set(c, at), at += c.length;
  return { bytes };
}

/**
 * Instantiates the module. In a page the .wasm is fetched beside marrow_wasm.mjs; in Node.js pass
 * its bytes as {wasmBinary} (the loader would fetch a file path by URL).
 */
export async function createMarrow(options = {}) {
  return new Marrow(await createMarrowModule({ ...options, marrowInflateRaw: inflateRaw }));
}
