// three.js's morph-target weights (Mesh.morphTargetInfluences) for every clip of glTF files,
// sampled by its AnimationMixer: the independent implementation marrow's weights are compared
// with. Usage: node three_morph_weights.mjs NPM_PREFIX FILE.gltf|FILE.glb ...
// Prints {"files": [{"file", "clips": [{"index", "name", "duration", "times": [...],
//   "morphs": [{"node": glTF node index, "influences": [[one per target] per time]}]}]}]}.
// Textures are dropped before parsing (node has no image decoder; weights do not need them).
// Exit code 0 on success, 2 when three.js cannot be loaded or a file cannot be parsed.
import fs from 'node:fs';
import path from 'node:path';
import {pathToFileURL} from 'node:url';

// three's FileLoader reports progress with the browser's ProgressEvent, absent from node 20.
if (typeof globalThis.ProgressEvent === 'undefined') {
  globalThis.ProgressEvent = class ProgressEvent {
    constructor(type, init = {}) {
      this.type = type;
      Object.assign(this, init);
    }
  };
}

const [prefix, ...files] = process.argv.slice(2);
let THREE, GLTFLoader;
try {
  const base = path.join(prefix, 'node_modules', 'three');
  THREE = await import(pathToFileURL(path.join(base, 'build', 'three.module.js')).href);
  ({GLTFLoader} = await import(
      pathToFileURL(path.join(base, 'examples', 'jsm', 'loaders', 'GLTFLoader.js')).href));
} catch (e) {
  console.log(JSON.stringify({fatal: 'three is not installed: ' + e.message}));
  process.exit(2);
}

// The document as JSON with every buffer inlined as a data URI and no textures.
function documentOf(file) {
  const bytes = fs.readFileSync(file);
  let json, bin = null;
  if (bytes.readUInt32LE(0) === 0x46546C67) {  // GLB
    let at = 12;
    while (at < bytes.length) {
      const length = bytes.readUInt32LE(at), type = bytes.readUInt32LE(at + 4);
      const chunk = bytes.subarray(at + 8, at + 8 + length);
      if (type === 0x4E4F534A) json = JSON.parse(chunk.toString('utf8'));
      if (type === 0x004E4942) bin = chunk;
      at += 8 + length;
    }
  } else {
    json = JSON.parse(bytes.toString('utf8'));
  }
  for (const [i, buffer] of (json.buffers || []).entries()) {
    let data;
    if (buffer.uri === undefined) data = bin;
    else if (buffer.uri.startsWith('data:')) continue;
    else data = fs.readFileSync(path.join(path.dirname(file), decodeURIComponent(buffer.uri)));
    json.buffers[i].uri = 'data:application/octet-stream;base64,' + Buffer.from(data).toString('base64');
  }
  delete json.images;
  delete json.textures;
  for (const material of json.materials || []) {
    const strip = (o) => {
      for (const key of Object.keys(o)) {
        if (key.endsWith('Texture')) delete o[key];
        else if (o[key] && typeof o[key] === 'object') strip(o[key]);
      }
    };
    strip(material);
  }
  return json;
}

function parse(json) {
  return new Promise((resolve, reject) => {
    new GLTFLoader().parse(JSON.stringify(json), '', resolve, reject);
  });
}

// The glTF node an object was made from: itself or, for the meshes of a multi-primitive node,
// its parent group.
function nodeIndexOf(parser, object) {
  for (let o = object; o; o = o.parent) {
    const a = parser.associations.get(o);
    if (a && a.nodes !== undefined) return a.nodes;
  }
  return -1;
}

const out = {files: []};
try {
  for (const file of files) {
    const gltf = await parse(documentOf(file));
    const morphed = [];  // [node index, mesh], first mesh per node
    gltf.scene.traverse((o) => {
      if (!o.morphTargetInfluences) return;
      const node = nodeIndexOf(gltf.parser, o);
      if (!morphed.some(([n]) => n === node)) morphed.push([node, o]);
    });
    const clips = [];
    for (const [index, clip] of gltf.animations.entries()) {
      const mixer = new THREE.AnimationMixer(gltf.scene);
      mixer.clipAction(clip).play();
      const times = [];
      for (let k = 0; k <= 10; ++k) times.push(clip.duration * k / 11);
      times.push(clip.duration * 0.999);
      const morphs = morphed.map(([node]) => ({node, influences: []}));
      for (const t of times) {
        mixer.setTime(t);
        morphed.forEach(([, mesh], i) => morphs[i].influences.push(Array.from(mesh.morphTargetInfluences)));
      }
      clips.push({index, name: clip.name, duration: clip.duration, times, morphs});
    }
    out.files.push({file, clips});
  }
} catch (e) {
  console.log(JSON.stringify({fatal: String(e && e.stack || e)}));
  process.exit(2);
}
console.log(JSON.stringify(out));
