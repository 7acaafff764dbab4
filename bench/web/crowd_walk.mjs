// The WebAssembly side of the crowd benchmark (docs/performance.md, "WebAssembly"): nanoseconds
// per character-frame of 100 characters sampling Soldier's Walk (compiled) and running
// local-to-model, the loop of the native BM_Crowd_Walk/model:1 (bench/crowd_walk.h), at each SIMD
// level the module has. bench/web/run.sh interleaves it with the native benchmark on one core.
//   node bench/web/crowd_walk.mjs WEB_DIR SOLDIER.glb [SECONDS]
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const [webDir, soldier, seconds = '1'] = process.argv.slice(2);
const { createMarrow } = await import(resolve(webDir, 'marrow.mjs'));
const marrow = await createMarrow({ wasmBinary: readFileSync(join(webDir, 'marrow_wasm.wasm')) });
const asset = marrow.load([{ name: 'Soldier.glb', bytes: readFileSync(soldier) }]);
for (const level of ['wasm128', 'scalar']) {
  marrow.setSimdLevel(level);
  const ns = marrow.benchmarkCrowd(asset, { clip: 'Walk', characters: 100,
                                            seconds: Number(seconds) });
  console.log(`wasm/${level},${ns.toFixed(1)}`);
}
