# marrow — the two commands a newcomer needs are `make demo` and `make test`.
# Every target installs what it needs first (Debian 12, apt-get), so a fresh machine gets there alone.

JOBS ?= $(shell nproc 2>/dev/null || echo 2)
BUILD_DIR := build
ASAN_DIR := build-asan
# The fuzz targets are built in the sanitizer suite's folder: the libraries they fuzz are compiled
# once, with ASan + UBSan and libFuzzer's coverage, for both (docs/building.md).
FUZZ_DIR := $(ASAN_DIR)
TSAN_DIR := build-tsan
COVERAGE_DIR := build-coverage
# The WebAssembly module (docs/web.md), built with Debian's emscripten.
WEB_DIR := build-web
# The sanitizer, fuzz, ThreadSanitizer and coverage builds use clang (libFuzzer and the sanitizer
# runtimes come with libclang-rt-14-dev, llvm-profdata and llvm-cov with llvm-14).
CLANG_CXX := clang++-14
# Their optimization and debug information: line tables are all a sanitizer's or libFuzzer's stack
# trace needs (file and line of every frame), at less compile time than full -g.
INSTRUMENTED_FLAGS := -O1 -gline-tables-only
# `make fuzz`: seconds per target, targets run at once, memory and time limits per input.
FUZZ_SECONDS ?= 60
FUZZ_PARALLEL ?= 1
FUZZ_RSS_MB ?= 2048
FUZZ_TIMEOUT ?= 10
CMAKE_GEN := $(shell command -v ninja >/dev/null 2>&1 && echo "-G Ninja")
# ccache, when installed (Debian's package; not installed by `make deps`), caches compiles across
# build folders and fresh clones; its cache lives in ~/.cache/ccache, outside the repository.
# Every time in docs/building.md is measured without it. MARROW_CCACHE=0 turns it off.
MARROW_CCACHE ?= 1
LAUNCHER := $(if $(filter 1,$(MARROW_CCACHE)),$(if $(shell command -v ccache 2>/dev/null),-DCMAKE_CXX_COMPILER_LAUNCHER=ccache))
# Prints how long a step took (scripts/timed.sh): `.ci/run` and the build times in docs/building.md.
TIMED := scripts/timed.sh

# Debian packages the libraries and the `marrow` command need to build (all `make demo` installs).
DEMO_PACKAGES := build-essential cmake ninja-build pkg-config \
  nlohmann-json3-dev zlib1g-dev libassimp-dev libcli11-dev libstb-dev libjpeg62-turbo-dev \
  libtinyobjloader-dev libeigen3-dev libembree-dev libpugixml-dev
# What `make web` needs: Debian's emscripten (3.1.6) and the header-only libraries it compiles in.
WEB_PACKAGES := emscripten nlohmann-json3-dev libtinyobjloader-dev googletest node-pako
# And what its tests run in: Debian's Chromium, headless (no browser is downloaded).
WEB_TEST_PACKAGES := chromium
# And what the tests, benchmarks, Python module and tools need besides.
DEB_PACKAGES := $(DEMO_PACKAGES) git libgtest-dev libgmock-dev \
  libbenchmark-dev clang-format ffmpeg \
  python3-dev pybind11-dev python3-numpy python3-pytest mypy \
  clang-14 libclang-rt-14-dev llvm-14 lld-14 lld doxygen $(WEB_PACKAGES) $(WEB_TEST_PACKAGES)

.PHONY: check-headers all deps deps-demo configure configure-cli build build-cli test test-release configure-asan test-asan test-tsan fuzz fuzz-build \
  fuzz-report demo bench soak format format-check clean install docs deps-web web test-web web-serve

# `make build` also builds the Python module into build/python: PYTHONPATH=build/python python3
# then imports marrow (docs/python.md).

all: build

# node and npm run the Khronos glTF Validator in the tests (installed from npm into the build
# tree); Debian's packages are taken only where the commands are missing, since a machine may
# have a node of its own.
NODE_PACKAGES := $(if $(shell command -v node 2>/dev/null),,nodejs) $(if $(shell command -v npm 2>/dev/null),,npm)

deps:
	@scripts/install-deps.sh $(DEB_PACKAGES) $(NODE_PACKAGES)

deps-demo:
	@scripts/install-deps.sh $(DEMO_PACKAGES)

# One Release folder for both: `make demo` configures it without the tests, benchmarks and Python
# module (so it needs none of their packages), `make build` with them; the objects they share are
# compiled once.
configure: deps
	@cmake -S . -B $(BUILD_DIR) $(CMAKE_GEN) $(LAUNCHER) -DCMAKE_BUILD_TYPE=Release \
	  -DMARROW_BUILD_TESTS=ON -DMARROW_BUILD_BENCH=ON -DMARROW_BUILD_PYTHON=ON \
	  -DMARROW_TEST_GRANULARITY=program >/dev/null

configure-cli: deps-demo
	@cmake -S . -B $(BUILD_DIR) $(CMAKE_GEN) $(LAUNCHER) -DCMAKE_BUILD_TYPE=Release \
	  -DMARROW_BUILD_TESTS=OFF -DMARROW_BUILD_BENCH=OFF -DMARROW_BUILD_PYTHON=OFF >/dev/null

# Everything: libraries, the command line, tests, benchmarks, examples, the Python module.
build: configure
	@$(TIMED) "make build" cmake --build $(BUILD_DIR) -j $(JOBS)

# Only what `marrow` runs: the runtime, io, render, autoskin and demo libraries, the command and
# its import helper (what `make demo` needs; docs/building.md).
build-cli: configure-cli
	@$(TIMED) "make build-cli" cmake --build $(BUILD_DIR) -j $(JOBS) --target marrow marrow-import-helper

test: build test-release test-asan

test-release: build
	@cd $(BUILD_DIR) && ../$(TIMED) "Release tests" ctest --output-on-failure -j $(JOBS)

# The WebAssembly module and its JavaScript interface, in $(WEB_DIR)/web (docs/web.md).
# Debian's emscripten runs its JavaScript optimizer with Node.js, which finds Debian's acorn
# package only through NODE_PATH.
EMSCRIPTEN_ENV := NODE_PATH=/usr/share/nodejs
deps-web:
	@scripts/install-deps.sh $(WEB_PACKAGES) $(NODE_PACKAGES)

web: deps-web
	@$(EMSCRIPTEN_ENV) emcmake cmake -S . -B $(WEB_DIR) $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=Release >/dev/null
	@$(EMSCRIPTEN_ENV) $(TIMED) "make web" cmake --build $(WEB_DIR) -j $(JOBS)
	@echo "make web: $$(stat -c %s $(WEB_DIR)/web/marrow_wasm.wasm) bytes of WebAssembly in $(WEB_DIR)/web"

# The module in Node.js and the viewer in headless Chromium, against the native command line
# (tests/web): same poses, clips, errors; a drawn, moving character. A step of .ci/run of its own,
# beside make test, whose 20-minute budget it would crowd.
test-web: web build
	@scripts/install-deps.sh $(WEB_TEST_PACKAGES)
	@$(EMSCRIPTEN_ENV) $(TIMED) "WebAssembly SIMD tests build" cmake --build $(WEB_DIR) -j $(JOBS) \
	  --target marrow_wasm_simd_tests
	@$(TIMED) "WebAssembly tests" env MARROW_WEB_DIR=$(WEB_DIR)/web \
	  MARROW_BIN=$(BUILD_DIR)/bin/marrow node --test tests/web/

# The viewer on http://127.0.0.1:8000/ (docs/web.md); nothing is served beyond this machine.
web-serve: web
	@echo "marrow viewer: http://127.0.0.1:8000/index.html"
	@python3 -m http.server --bind 127.0.0.1 --directory $(WEB_DIR)/web 8000

# AddressSanitizer + UndefinedBehaviorSanitizer build of the whole test suite and the fuzz targets:
# clang, the libraries at -O1 (the SIMD kernels at -O0, src/CMakeLists.txt) and instrumented for
# libFuzzer's coverage, the tests' own code at -O0 (tests/CMakeLists.txt), which builds and runs
# it in less time than GCC at -O0 (docs/building.md). Without the Python module: an instrumented
# extension needs the sanitizer runtime preloaded into python3; the Release pass runs the Python
# tests.
configure-asan: deps
	@cmake -S . -B $(ASAN_DIR) $(CMAKE_GEN) $(LAUNCHER) -DCMAKE_CXX_COMPILER=$(CLANG_CXX) \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=$(INSTRUMENTED_FLAGS)" \
	  -DMARROW_SANITIZE=ON -DMARROW_FUZZ=ON -DMARROW_BUILD_TESTS=ON -DMARROW_BUILD_BENCH=OFF \
	  -DMARROW_BUILD_PYTHON=OFF -DMARROW_TEST_GRANULARITY=program >/dev/null

test-asan: configure-asan
	@$(TIMED) "ASan + UBSan build" cmake --build $(ASAN_DIR) -j $(JOBS)
	@cd $(ASAN_DIR) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ../$(TIMED) "ASan + UBSan tests" \
	  ctest --output-on-failure -j $(JOBS)

# ThreadSanitizer build of what runs threads (tests/reliability/CMakeLists.txt lists them):
# loading and saving from 8 threads, parallel skinning, the heat solver's workers.
test-tsan: deps
	@cmake -S . -B $(TSAN_DIR) $(CMAKE_GEN) $(LAUNCHER) -DCMAKE_CXX_COMPILER=$(CLANG_CXX) \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=$(INSTRUMENTED_FLAGS)" \
	  -DMARROW_TSAN=ON -DMARROW_BUILD_BENCH=OFF -DMARROW_BUILD_PYTHON=OFF >/dev/null
	@$(TIMED) "ThreadSanitizer build" cmake --build $(TSAN_DIR) -j $(JOBS) --target marrow_thread_tests
	@cd $(TSAN_DIR) && TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
	  ctest --output-on-failure -j $(JOBS)

# libFuzzer targets (fuzz/, docs/reliability.md): each runs FUZZ_SECONDS; any finding fails.
fuzz: fuzz-build
	@FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_PARALLEL=$(FUZZ_PARALLEL) FUZZ_RSS_MB=$(FUZZ_RSS_MB) \
	  FUZZ_TIMEOUT=$(FUZZ_TIMEOUT) scripts/fuzz.sh $(FUZZ_DIR)

# Only the fuzz targets and what they link, in the sanitizer suite's folder: after `make test`
# that is the targets themselves.
fuzz-build: configure-asan
	@$(TIMED) "fuzz build" cmake --build $(FUZZ_DIR) -j $(JOBS) --target marrow_fuzz_all

# The figures of docs/reliability.md: line coverage of each target's corpus (clang source-based
# coverage) and the last fuzz run's executions, in $(COVERAGE_DIR)/report.md. Run after `make fuzz`.
fuzz-report: deps
	@cmake -S . -B $(COVERAGE_DIR) $(CMAKE_GEN) -DCMAKE_CXX_COMPILER=$(CLANG_CXX) \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=$(INSTRUMENTED_FLAGS)" \
	  -DMARROW_COVERAGE=ON -DMARROW_BUILD_TESTS=OFF -DMARROW_BUILD_BENCH=OFF -DMARROW_BUILD_PYTHON=OFF >/dev/null
	@cmake --build $(COVERAGE_DIR) -j $(JOBS) --target marrow_fuzz_all
	@scripts/fuzz_report.sh $(FUZZ_DIR) $(COVERAGE_DIR)
# Installs the command, libraries, headers and CMake/pkg-config files under PREFIX.
PREFIX ?= /usr/local
install: build
	@cmake --install $(BUILD_DIR) --prefix $(PREFIX)

demo: build-cli
	@$(BUILD_DIR)/bin/marrow demo

bench: build
	@$(BUILD_DIR)/bin/marrow_bench --benchmark_min_time=0.2

# 10,000 characters over both cores for a minute: throughput, and memory that must stay flat.
soak: build
	@$(BUILD_DIR)/bin/marrow_soak --seconds 60 --characters 10000 --threads 2

# The API reference from the public headers: build/docs/html/index.html (docs/Doxyfile).
docs: deps
	@(cat docs/Doxyfile; echo OUTPUT_DIRECTORY=$(BUILD_DIR)/docs) | doxygen -
	@echo "API reference: $(BUILD_DIR)/docs/html/index.html"

# Each public header compiles alone (scripts/check_headers.sh); .ci/run runs it after make test.
check-headers: configure
	@$(TIMED) "check headers" env JOBS=$(JOBS) scripts/check_headers.sh $(BUILD_DIR)

format:
	@git ls-files '*.h' '*.cpp' | xargs clang-format -i

format-check:
	@git ls-files '*.h' '*.cpp' | xargs clang-format --dry-run -Werror

clean:
	rm -rf $(BUILD_DIR) $(ASAN_DIR) $(TSAN_DIR) $(COVERAGE_DIR) $(WEB_DIR)
