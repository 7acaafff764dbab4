#!/usr/bin/env bash
# Native against WebAssembly, side by side (docs/performance.md, "WebAssembly"): the crowd loop of
# bench/crowd_walk.h (100 characters, Soldier's Walk compiled, sampling and local-to-model) timed
# natively by marrow_bench at every SIMD level and in the module by Node.js (V8, Chromium's
# engine) and in a headless Chromium page, in interleaved rounds on one pinned core. Prints one
# CSV line per measurement:
# round,what,ns per character-frame; then the same run's memory bandwidth.
#   bench/web/run.sh [ROUNDS]     (after make build and make web; CPU=1, BENCH_SECONDS=1)
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${1:-5}
CPU=${CPU:-1}
SECONDS_PER=${BENCH_SECONDS:-1}
BUILD=${BUILD:-build}
WEB=${WEB:-build-web/web}
SOLDIER=${SOLDIER:-../shared/assets/gltf/Soldier.glb}
echo "round,what,ns_per_character_frame"
for round in $(seq "$ROUNDS"); do
  taskset -c "$CPU" "$BUILD/bin/marrow_bench" --benchmark_filter='BM_Crowd_Walk/model:1/level:[0-3]$' \
    --benchmark_min_time="$SECONDS_PER" --benchmark_format=csv 2>/dev/null |
    awk -F, -v r="$round" '/^"BM_Crowd_Walk/ && $7 > 0 && $9 != "true" {
      gsub(/"/, "", $8)  # the label: the SIMD level; items are character-frames
      printf "%s,native/%s,%.1f\n", r, $8, 1e9 / $7 }'
  taskset -c "$CPU" node bench/web/crowd_walk.mjs "$WEB" "$SOLDIER" "$SECONDS_PER" |
    sed "s/^/$round,/"
  # The same loop in a headless Chromium page (every process of the browser on the same core).
  if [ -x "${MARROW_CHROMIUM:-/usr/bin/chromium}" ]; then
    taskset -c "$CPU" node bench/web/crowd_chromium.mjs "$WEB" "$(dirname "$(dirname "$SOLDIER")")" \
      "$SECONDS_PER" | sed "s/^/$round,/"
  fi
done
taskset -c "$CPU" "$BUILD/bin/marrow_bench" --benchmark_filter='BM_MemcpyBandwidth' \
  --benchmark_min_time=0.5 2>/dev/null | grep BM_Memcpy
