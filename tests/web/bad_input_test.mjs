// Bad files in the module get the command line's treatment (docs/reliability.md): every fuzz seed
// of a reader the browser build has, whole, truncated and with bytes changed, either loads or
// fails with a MarrowError; nothing else escapes (no WebAssembly trap, no abort), the module
// keeps working, and its memory stays bounded.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const webDir = resolve(process.env.MARROW_WEB_DIR ?? join(repo, 'build-web/web'));
const { createMarrow, MarrowError } = await import(join(webDir, 'marrow.mjs'));
const marrow = await createMarrow({ wasmBinary: readFileSync(join(webDir, 'marrow_wasm.wasm')) });

// Seed folders (fuzz/seeds) and the extension their files are read under.
const kinds = { glb: '.glb', gltf_json: '.gltf', bvh: '.bvh', obj: '.obj', smd: '.smd',
                md5mesh: '.md5mesh', md5anim: '.md5anim', x_text: '.x', x_binary: '.x',
                x_compressed: '.x', archive_crc: '.marrow', archive_raw: '.marrow' };

// The file whole, cut at eight places, and eight copies with a run of bytes changed
// (positions from a fixed linear congruential sequence, so every run tries the same inputs).
function variants(bytes) {
  const out = [['whole', bytes]];
  for (let k = 1; k <= 8; ++k) {
    const at = Math.floor((bytes.length * k) / 9);
    out.push([`cut at ${at}`, bytes.subarray(0, at)]);
  }
  let state = bytes.length * 2654435761 >>> 0;
  for (let k = 0; k < 8; ++k) {
    const copy = Uint8Array.from(bytes);
    state = (state * 1664525 + 1013904223) >>> 0;
    const at = state % Math.max(1, copy.length);
    for (let i = at; i < Math.min(copy.length, at + 4); ++i) copy[i] ^= 0xA5;
    out.push([`bytes ${at}..${at + 3} changed`, copy]);
  }
  return out;
}

test('every reader refuses damaged files with a MarrowError and the module keeps working', (t) => {
  let loaded = 0, refused = 0;
  for (const [folder, extension] of Object.entries(kinds)) {
    const dir = join(repo, 'fuzz/seeds', folder);
    for (const seed of readdirSync(dir)) {
      const name = seed.replace(/\.[^.]*$/, '') + extension;
      for (const [what, bytes] of variants(readFileSync(join(dir, seed)))) {
        try {
          marrow.load([{ name, bytes }]).delete();
          ++loaded;
        } catch (error) {
          assert.ok(error instanceof MarrowError,
                    `fuzz/seeds/${folder}/${seed} (${what}): ${error?.stack ?? error}`);
          assert.ok(error.message.startsWith(name), `${folder}/${seed} (${what}): ${error.message}`);
          ++refused;
        }
      }
    }
  }
  assert.ok(loaded > 0 && refused > 0, `${loaded} loaded, ${refused} refused`);
  const memory = marrow.module.HEAP8.buffer.byteLength;
  t.diagnostic(`${loaded} loaded, ${refused} refused; the module's memory: ${memory} bytes`);
  assert.ok(memory <= 256 * 1024 * 1024, `the module's memory grew to ${memory} bytes`);
  const good = readFileSync(join(repo, 'fuzz/seeds/glb/skinned_walk.glb'));
  const asset = marrow.load([{ name: 'skinned_walk.glb', bytes: good }]);
  const character = asset.createCharacter();
  character.play(0);
  character.update(0.1);
  assert.ok(character.modelMatrices().every(Number.isFinite));
  character.delete();
  asset.delete();
});
