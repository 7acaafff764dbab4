#!/usr/bin/env bash
# The installed package as a user meets it: `cmake --install` into a prefix, then
#  1. examples/ built as a separate project with find_package(marrow CONFIG REQUIRED), and run;
#  2. a project that asks for the runtime component alone, with every other package made
#     unfindable (so the runtime provably pulls in nothing);
#  3. the runtime example compiled by hand with pkg-config;
#  4. a project that takes marrow with add_subdirectory, and runs;
#  5. `cpack` makes a Debian package holding the command, the libraries, headers and config.
# Arguments: SOURCE_DIR BUILD_DIR WORK_DIR SHARED_DIR
set -euo pipefail
src=$1 build=$2 work=$3 shared=$4
rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
gen=()
if command -v ninja >/dev/null; then gen=(-G Ninja); fi

step() { echo "== $*"; }
expect_hand() {  # the swing_arm example's output, computed by hand: hand at (1 + cos a, sin a, 0)
  local out
  out=$("$1")
  echo "$out"
  grep -qx 't 0.00: hand at (2.0000, 0.0000, 0.0000)' <<<"$out"
  grep -qx 't 0.50: hand at (1.7071, 0.7071, 0.0000)' <<<"$out"
  grep -qx 't 1.00: hand at (1.0000, 1.0000, 0.0000)' <<<"$out"
}

step "install into $prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
for f in bin/marrow include/marrow/version.h include/marrow/io/asset.h include/marrow/io/material.h \
         include/marrow/render/texture.h lib/libmarrow_runtime.a lib/libmarrow_io.a \
         lib/libmarrow_autoskin.a lib/libmarrow_render.a lib/cmake/marrow/marrowConfig.cmake \
         lib/cmake/marrow/marrowConfigVersion.cmake lib/pkgconfig/marrow.pc \
         lib/pkgconfig/marrow-runtime.pc; do
  test -e "$prefix/$f" || { echo "missing after install: $f"; exit 1; }
done
# Every header of the source tree is installed (new modules' headers included).
(cd "$src/include" && find marrow -name '*.h') | while read -r h; do
  test -f "$prefix/include/$h" || { echo "header not installed: $h"; exit 1; }
done
"$prefix/bin/marrow" --version | head -1

step "1. examples/ against the installed package (find_package)"
cmake -S "$src/examples" -B "$work/examples" "${gen[@]}" "${launcher[@]}" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/examples" >/dev/null
expect_hand "$work/examples/swing_arm"
if [ -f "$shared/assets/gltf/Soldier.glb" ]; then
  "$work/examples/play_and_skin" "$shared/assets/gltf/Soldier.glb" Walk Run mixamorig:LeftArm |
    grep -q "frame 60: bounds"
fi

step "2. the runtime component alone finds no other package"
mkdir -p "$work/runtime_only"
cat >"$work/runtime_only/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.25)
project(runtime_only LANGUAGES CXX)
set(CMAKE_CXX_STANDARD 20)
find_package(marrow CONFIG REQUIRED COMPONENTS runtime)
if(TARGET marrow::io OR TARGET marrow::render OR TARGET marrow::autoskin)
  message(FATAL_ERROR "asking for the runtime imported more than the runtime")
endif()
add_executable(swing_arm "$src/examples/swing_arm.cpp")
target_link_libraries(swing_arm PRIVATE marrow::runtime)
CMAKE
cmake -S "$work/runtime_only" -B "$work/runtime_only/build" "${gen[@]}" "${launcher[@]}" \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release --no-warn-unused-cli \
  -DCMAKE_DISABLE_FIND_PACKAGE_assimp=ON -DCMAKE_DISABLE_FIND_PACKAGE_ZLIB=ON \
  -DCMAKE_DISABLE_FIND_PACKAGE_nlohmann_json=ON -DCMAKE_DISABLE_FIND_PACKAGE_tinyobjloader=ON \
  -DCMAKE_DISABLE_FIND_PACKAGE_Eigen3=ON -DCMAKE_DISABLE_FIND_PACKAGE_embree=ON \
  -DCMAKE_DISABLE_FIND_PACKAGE_PkgConfig=ON >/dev/null
cmake --build "$work/runtime_only/build" >/dev/null
# Linked against nothing but the C++ runtime libraries.
if ldd "$work/runtime_only/build/swing_arm" | grep -E -v 'libstdc\+\+|libm\.|libgcc_s|libc\.|ld-linux|linux-vdso' | grep -q .; then
  ldd "$work/runtime_only/build/swing_arm"
  echo "the runtime alone links more than the C++ standard library"
  exit 1
fi
expect_hand "$work/runtime_only/build/swing_arm"

step "3. pkg-config"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
# shellcheck disable=SC2046
c++ $(pkg-config --cflags marrow-runtime) "$src/examples/swing_arm.cpp" -o "$work/swing_arm_pc" \
  $(pkg-config --libs marrow-runtime)
expect_hand "$work/swing_arm_pc"
pkg-config --static --libs marrow | grep -q -- -lmarrow_io

# This proves the wiring (targets, include paths, C++20, linking), not the optimizer: Debug, with
# the kernels' inlining left to the compiler (MARROW_NO_FORCE_INLINE, as the sanitizer builds do)
# and the runtime's files compiled in unity batches (MARROW_RUNTIME_UNITY_BUILD), without debug
# information (Debug's -g alone cost a quarter of this test's time), compiles the runtime from
# source in a fraction of a Release compile's CPU time (docs/building.md).
step "4. add_subdirectory (Debug)"
mkdir -p "$work/subdir"
cat >"$work/subdir/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.25)
project(uses_marrow LANGUAGES CXX)
set(MARROW_BUILD_TESTS OFF CACHE BOOL "" FORCE)
set(MARROW_BUILD_BENCH OFF CACHE BOOL "" FORCE)
add_subdirectory("$src" marrow)
add_executable(my_arm "$src/examples/swing_arm.cpp")
target_link_libraries(my_arm PRIVATE marrow::runtime)
CMAKE
cmake -S "$work/subdir" -B "$work/subdir/build" "${gen[@]}" "${launcher[@]}" \
  -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-O0 -DCMAKE_CXX_FLAGS=-DMARROW_NO_FORCE_INLINE \
  -DMARROW_RUNTIME_UNITY_BUILD=ON >/dev/null
cmake --build "$work/subdir/build" --target my_arm >/dev/null
expect_hand "$work/subdir/build/my_arm"

step "5. cpack: a Debian package"
(cd "$build" && cpack -G DEB -B "$work/deb" >/dev/null)
deb=$(ls "$work"/deb/marrow_*.deb)
contents=$(dpkg-deb -c "$deb")
for f in ./usr/bin/marrow ./usr/include/marrow/version.h ./usr/lib/cmake/marrow/marrowConfig.cmake \
         ./usr/lib/libmarrow_runtime.a ./usr/lib/pkgconfig/marrow.pc; do
  grep -q " $f\$" <<<"$contents" || { echo "not in the package: $f"; echo "$contents"; exit 1; }
done
dpkg-deb -f "$deb" Package Version Depends
echo "package test passed"
