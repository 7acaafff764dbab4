// The module's side of the native-against-WebAssembly benchmark (docs/performance.md): the same
// crowd loop as the native BM_Crowd_Walk (bench/crowd_walk.h), timed here, called from
// bench/web/crowd_walk.mjs or a page.
#include <emscripten/bind.h>

#include <chrono>
#include <string>

#include "crowd_walk.h"
#include "marrow/io/asset.h"

namespace marrow::web {

class WebAsset;
const Asset& asset_of(const WebAsset& asset);

namespace {

// Nanoseconds per character-frame of `characters` characters playing clip `clip` compiled at the
// default bound, over at least `seconds` (after one untimed frame); -1 when the clip is missing or
// does not compile.
double bench_crowd_walk(const WebAsset& web_asset, const std::string& clip, int characters,
                        double seconds, bool model) {
  const Asset& asset = asset_of(web_asset);
  const std::optional<std::size_t> index = asset.find_clip(clip);
  if (!index || characters <= 0) return -1;
  Result<CompiledClip> compiled = CompiledClip::compile(asset.clips[*index], asset.skeleton);
  if (!compiled) return -1;
  bench::CrowdWalk crowd(asset.skeleton, *compiled, static_cast<std::size_t>(characters), model);
  float sink = 0;
  const auto touch = [&sink](const SoaTransform* local, const Mat4* matrices) {
    sink += local->tx[0] + matrices->m[12];
  };
  crowd.run_frame(0, touch);
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  std::uint64_t frames = 0;
  double elapsed = 0;
  do {
    for (int k = 0; k < 16; ++k) crowd.run_frame(++frames, touch);
    elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  } while (elapsed < seconds);
  if (sink == 12345.678f) return -2;  // keeps the work observable
  return elapsed * 1e9 / (static_cast<double>(frames) * characters);
}

}  // namespace

EMSCRIPTEN_BINDINGS(marrow_bench) {
  emscripten::function("benchCrowdWalk", &bench_crowd_walk);
}

}  // namespace marrow::web
