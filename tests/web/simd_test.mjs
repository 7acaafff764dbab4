// The SIMD suites of tests/ built for WebAssembly (web/tests.cmake): every kernel family at the
// wasm128 level against the portable scalar level, run with Node.js. Of the motion-matching suite
// only the search runs here (the database suites build from motion capture; the native run
// covers them).
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const webDir = resolve(process.env.MARROW_WEB_DIR ?? join(repo, 'build-web/web'));
const program = join(dirname(webDir), 'tests', 'marrow_wasm_simd_tests.js');

test('the wasm128 kernels match the scalar ones under the native suites\' bounds',
     { timeout: 600000 }, () => {
  assert.ok(existsSync(program), `${program} is missing (make test-web builds it)`);
  const run = spawnSync('node', [program,
                                 '--gtest_filter=-MotionDatabase.*:MotionMatcher.*:TrajectorySpring.*'],
                        { encoding: 'utf8', env: { ...process.env, MARROW_SIMD: '' } });
  const summary = run.stdout.split('\n').filter((l) => /^\[  (PASSED|FAILED) /.test(l)).join('\n');
  assert.equal(run.status, 0, `${summary}\n${run.stdout.slice(-4000)}${run.stderr}`);
  assert.match(run.stdout, /\[  PASSED  \] \d+ tests?\./);
  assert.match(run.stdout, /TheWebAssemblyBuildDetectsAndRunsItsSimdLevel/);
});
