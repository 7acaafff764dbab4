# The SIMD suites of tests/ compiled for WebAssembly (make test-web runs them with Node.js): each
# kernel family at the wasm128 level against the portable scalar level, with the bounds the
# native suites hold every x86 level to. Of motion_matching_test.cpp only the search's suite runs
# here (tests/web/simd_test.mjs filters): the others build databases from motion capture, which
# the native suites cover and which would take minutes in WebAssembly. GoogleTest is built from the sources Debian's googletest
# package installs in /usr/src/googletest (the host's libgtest is not WebAssembly). Not part of
# `make web`'s default target.
set(MARROW_GOOGLETEST_SOURCE /usr/src/googletest/googletest)
if(NOT EXISTS ${MARROW_GOOGLETEST_SOURCE}/CMakeLists.txt)
  message(STATUS "${MARROW_GOOGLETEST_SOURCE} is missing (Debian's googletest): the WebAssembly "
                 "SIMD suites are not built")
  return()
endif()
set(gtest_disable_pthreads ON CACHE BOOL "" FORCE)
set(BUILD_GMOCK OFF CACHE BOOL "" FORCE)
set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
add_subdirectory(${MARROW_GOOGLETEST_SOURCE} ${PROJECT_BINARY_DIR}/googletest EXCLUDE_FROM_ALL)

set(MARROW_TESTS ${PROJECT_SOURCE_DIR}/tests)
add_executable(marrow_wasm_simd_tests EXCLUDE_FROM_ALL
  ${MARROW_TESTS}/pose/soa/soa_pose_test.cpp
  ${MARROW_TESTS}/clip/compiled/compiled_clip_test.cpp
  ${MARROW_TESTS}/math/simd/lanes_test.cpp
  ${MARROW_TESTS}/math/simd/lanes_probe_scalar.cpp
  ${MARROW_TESTS}/math/simd/lanes_probe_wasm128.cpp
  ${MARROW_TESTS}/control/inertialization_test.cpp
  ${MARROW_TESTS}/skin/morph_test.cpp
  ${MARROW_TESTS}/skin/skinning_levels_test.cpp
  ${MARROW_TESTS}/control/motion_matching_test.cpp
  ${MARROW_TESTS}/support/allocation_meter.cpp
)
set_source_files_properties(${MARROW_TESTS}/math/simd/lanes_probe_wasm128.cpp PROPERTIES
                            COMPILE_OPTIONS -msimd128)
target_include_directories(marrow_wasm_simd_tests PRIVATE ${MARROW_TESTS}/support
                           ${MARROW_TESTS}/control ${MARROW_TESTS}/skin ${PROJECT_SOURCE_DIR}/src
                           ${PROJECT_SOURCE_DIR}/bench)
target_compile_definitions(marrow_wasm_simd_tests PRIVATE MARROW_WASM_TESTS
                           MARROW_SHARED_DIR="${MARROW_SHARED_DIR}")
target_link_libraries(marrow_wasm_simd_tests PRIVATE marrow_io marrow_runtime gtest_main
                      marrow_warnings)
# Node.js runs it as a program: the host's files (the shared assets) through NODERAWFS.
set_target_properties(marrow_wasm_simd_tests PROPERTIES SUFFIX .js RUNTIME_OUTPUT_DIRECTORY
                      ${PROJECT_BINARY_DIR}/tests)
target_link_options(marrow_wasm_simd_tests PRIVATE -sNODERAWFS=1 -sALLOW_MEMORY_GROWTH=1
                    -sMAXIMUM_MEMORY=4GB -sEXIT_RUNTIME=1 -fexceptions -msimd128
                    # The .wasm inside the .js: Node.js 18 and later fetch a file path by URL.
                    -sSINGLE_FILE=1
                    # binaryen at -O3 took over half an hour over this program's exception paths;
                    # its code is compiled optimized, so the link optimizes little.
                    -O1)
