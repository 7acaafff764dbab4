#!/bin/sh
# Side by side with the Animation Compression Library (issue 34): builds side_by_side.cpp against
# ACL's and RTM's headers from source trees you give and marrow (this checkout, or an installed
# Release marrow), then runs it pinned to one core on the clips named (default: three CMU
# captures on Character Creator's rig and Soldier.glb). Nothing is downloaded and nothing is
# written inside the repository.
#
#   bench/peers/acl/run.sh ACL_SOURCE_DIR RTM_SOURCE_DIR [BUILD_DIR] [program arguments...]
#
# ACL_SOURCE_DIR: an ACL 2.1 checkout (https://github.com/nfrechette/acl, MIT licence, tag
# v2.1.0); RTM_SOURCE_DIR: the Realtime Math commit it pins as external/rtm
# (https://github.com/nfrechette/rtm, MIT). BUILD_DIR (default $TMPDIR or /tmp,
# /marrow-peers-acl) receives the build. Environment: MARROW_SHARED_DIR (default ../shared beside
# the repository), CPU (default 1), JOBS (default 2), MARROW_PREFIX (an installed Release
# marrow, `cmake --install build --prefix DIR`, linked instead of building this checkout again;
# it must be installed from the same commit). Program arguments: --repetitions=N (default 7),
# --quick, and files (any marrow reads) instead of the default set.
set -eu

if [ $# -lt 2 ]; then
  echo "usage: $0 ACL_SOURCE_DIR RTM_SOURCE_DIR [BUILD_DIR] [program arguments...]" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
acl_src=$(cd "$1" && pwd) || { echo "$0: no directory $1" >&2; exit 2; }
rtm_src=$(cd "$2" && pwd) || { echo "$0: no directory $2" >&2; exit 2; }
shift 2
build=${TMPDIR:-/tmp}/marrow-peers-acl
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ] && [ ! -f "$1" ]; then
  build=$1
  shift
fi
[ -f "$acl_src/includes/acl/compression/compress.h" ] ||
  { echo "$0: $acl_src is not an ACL source tree" >&2; exit 2; }
[ -f "$rtm_src/includes/rtm/qvvf.h" ] ||
  { echo "$0: $rtm_src is not an RTM source tree" >&2; exit 2; }
mkdir -p "$build"
build=$(cd "$build" && pwd)
case "$build/" in
  "$repo"/*) echo "$0: BUILD_DIR must be outside the repository" >&2; exit 2 ;;
esac
generator=""
command -v ninja >/dev/null 2>&1 && generator="-G Ninja"

logged() {
  log=$1
  shift
  "$@" >"$log" 2>&1 || { tail -n 40 "$log" >&2; echo "$0: failed, see $log" >&2; exit 1; }
}

echo "== building side_by_side against $acl_src and $rtm_src"
# shellcheck disable=SC2086
logged "$build/configure.log" cmake -S "$here" -B "$build" $generator \
  -DCMAKE_BUILD_TYPE=Release -DMARROW_SOURCE_DIR="$repo" -DACL_SOURCE_DIR="$acl_src" \
  -DRTM_SOURCE_DIR="$rtm_src" -DMARROW_PREFIX="${MARROW_PREFIX:-}"
logged "$build/build.log" cmake --build "$build" -j "${JOBS:-2}" --target side_by_side

files=0
for arg in "$@"; do [ "${arg#--}" = "$arg" ] && files=1; done
shared=${MARROW_SHARED_DIR:-$repo/../shared}
if [ "$files" = 0 ]; then
  for f in bvh/cmu_iclone/002_03.bvh bvh/cmu_iclone/007_01.bvh bvh/cmu_iclone/006_10.bvh \
           gltf/Soldier.glb; do
    [ -f "$shared/assets/$f" ] || { echo "$0: $shared/assets/$f is absent" >&2; exit 2; }
    set -- "$@" "$shared/assets/$f"
  done
fi
cpu=${CPU:-1}
echo "== running on CPU $cpu ($(uptime))"
pin=""
command -v taskset >/dev/null 2>&1 && pin="taskset -c $cpu"
# shellcheck disable=SC2086
exec $pin "$build/side_by_side" "$@"
