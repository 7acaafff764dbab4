#!/bin/sh
# Side by side with ozz-animation (issue 13): builds ozz from a source tree you give, converts
# Soldier.glb with ozz's own gltf2ozz, builds side_by_side.cpp against both libraries and runs it
# pinned to one core. Nothing is downloaded and nothing is written inside the repository.
#
#   bench/peers/ozz/run.sh OZZ_SOURCE_DIR [BUILD_DIR]
#
# OZZ_SOURCE_DIR: an ozz-animation 0.16 checkout (https://github.com/guillaumeblanc/ozz-animation,
# MIT licence). BUILD_DIR (default: $TMPDIR or /tmp, /marrow-peers-ozz) receives ozz's build, the
# converted .ozz files and the side-by-side build. Environment: MARROW_SHARED_DIR (default
# ../shared beside the repository) for Soldier.glb, CPU (default 1) for the pinned core,
# REPETITIONS (default 7), JOBS (default 2) for the builds, MARROW_PREFIX (optional) for an
# installed Release marrow to link instead of building this checkout again. Arguments after
# BUILD_DIR go to the program (e.g. --quick).
set -eu

if [ $# -lt 1 ]; then
  echo "usage: $0 OZZ_SOURCE_DIR [BUILD_DIR] [program arguments...]" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
ozz_src=$(cd "$1" && pwd) || { echo "$0: no directory $1" >&2; exit 2; }
shift
build=${TMPDIR:-/tmp}/marrow-peers-ozz
if [ $# -gt 0 ]; then
  build=$1
  shift
fi
shared=${MARROW_SHARED_DIR:-$repo/../shared}
soldier=$shared/assets/gltf/Soldier.glb
jobs=${JOBS:-2}
cpu=${CPU:-1}

[ -f "$ozz_src/include/ozz/animation/runtime/animation.h" ] ||
  { echo "$0: $ozz_src is not an ozz-animation source tree" >&2; exit 2; }
[ -f "$soldier" ] || { echo "$0: $soldier is absent (set MARROW_SHARED_DIR)" >&2; exit 2; }
mkdir -p "$build"
build=$(cd "$build" && pwd)
case "$build/" in
  "$repo"/*) echo "$0: BUILD_DIR must be outside the repository" >&2; exit 2 ;;
esac
generator=""
command -v ninja >/dev/null 2>&1 && generator="-G Ninja"

# Runs a command with its output in a log file; on failure shows the log's end and stops.
logged() {
  log=$1
  shift
  "$@" >"$log" 2>&1 || { tail -n 40 "$log" >&2; echo "$0: failed, see $log" >&2; exit 1; }
}

# 1. ozz with its default flags (Release, as its README builds it), only the runtime libraries and
#    the glTF importer: no samples, howtos, tests or FBX (which needs Autodesk's SDK).
echo "== building ozz-animation from $ozz_src"
# shellcheck disable=SC2086
logged "$build/ozz-configure.log" cmake -S "$ozz_src" -B "$build/ozz" $generator \
  -DCMAKE_BUILD_TYPE=Release -Dozz_build_samples=OFF -Dozz_build_howtos=OFF \
  -Dozz_build_tests=OFF -Dozz_build_fbx=OFF -Dozz_build_gltf=ON -Dozz_build_tools=ON
logged "$build/ozz-build.log" cmake --build "$build/ozz" -j "$jobs" \
  --target ozz_base ozz_animation ozz_geometry gltf2ozz

# 2. Soldier.glb through gltf2ozz with its default settings, naming the three clips (the file's
#    fourth, a one-key TPose, fails ozz's validation and would stop the import before Walk):
#    skeleton.ozz, Idle.ozz, Walk.ozz, Run.ozz.
echo "== converting $soldier with gltf2ozz (default settings)"
mkdir -p "$build/data"
gltf2ozz=$(find "$build/ozz" -name gltf2ozz -type f | head -n 1)
config='{"animations":[{"clip":"Idle"},{"clip":"Walk"},{"clip":"Run"}]}'
(cd "$build/data" && logged "$build/gltf2ozz.log" "$gltf2ozz" --file="$soldier" --config="$config")
for clip in skeleton Idle Walk Run; do
  [ -f "$build/data/$clip.ozz" ] || { echo "$0: gltf2ozz wrote no $clip.ozz" >&2; exit 1; }
done

# 3. The side-by-side program, against ozz's libraries and marrow's (built from this checkout).
echo "== building side_by_side"
# shellcheck disable=SC2086
logged "$build/side-configure.log" cmake -S "$here" -B "$build/side" $generator \
  -DCMAKE_BUILD_TYPE=Release -DMARROW_SOURCE_DIR="$repo" -DOZZ_SOURCE_DIR="$ozz_src" \
  -DOZZ_BUILD_DIR="$build/ozz" -DMARROW_PREFIX="${MARROW_PREFIX:-}"
logged "$build/side-build.log" cmake --build "$build/side" -j "$jobs" --target side_by_side

# 4. A second conversion with ozz's default tolerance and distance scaled to the character's
#    size (Soldier.glb's character is about 0.2 units tall, and ozz's defaults are absolute: 1 mm
#    at 10 cm for a file in metres), so clip sizes can also be compared at a realistic error.
scaled_config=$("$build/side/side_by_side" --soldier="$soldier" --print-ozz-scaled-config)
mkdir -p "$build/data-scaled"
(cd "$build/data-scaled" &&
  logged "$build/gltf2ozz-scaled.log" "$gltf2ozz" --file="$soldier" --config="$scaled_config")

# 5. Run it on one core.
echo "== running on CPU $cpu ($(uptime))"
pin=""
command -v taskset >/dev/null 2>&1 && pin="taskset -c $cpu"
# shellcheck disable=SC2086
exec $pin "$build/side/side_by_side" --soldier="$soldier" --ozz-data="$build/data" \
  --ozz-scaled-data="$build/data-scaled" --repetitions="${REPETITIONS:-7}" "$@"
