// One frame of a crowd playing one compiled clip: each of `count` characters at its own time
// offset samples the clip into its SoA local pose and runs local-to-model. Shared by the native
// benchmark (compiled_bench.cpp, BM_Crowd_Walk) and the WebAssembly module's (web/src/bench.cpp),
// so that the ratio docs/performance.md quotes compares the same loop.
#pragma once

#include <cstdint>
#include <vector>

#include "marrow/clip/compiled_clip.h"
#include "marrow/clip/compiled_sampling.h"
#include "marrow/clip/sampling.h"
#include "marrow/pose/local_to_model.h"
#include "marrow/skeleton/skeleton.h"

namespace marrow::bench {

class CrowdWalk {
 public:
  static constexpr float kFrame = 1.0f / 60.0f;

  CrowdWalk(const Skeleton& skeleton, const CompiledClip& clip, std::size_t count, bool model)
      : clip_(&clip), model_(model), characters_(count) {
    for (Character& c : characters_) {
      c.local.resize(soa_group_count(skeleton.size()));
      c.model.resize(skeleton.size());
    }
    sample_.clip = &clip;
    sample_.rest_pose = skeleton.soa_rest_pose();
    to_model_.skeleton = &skeleton;
  }

  // Time of character c at frame f: each starts at its own offset in the clip.
  float time_of(std::size_t c, std::uint64_t frame) const {
    return wrap_time(static_cast<float>(c) * 0.173f + frame * kFrame, clip_->duration(),
                     WrapMode::kLoop);
  }

  // Frame `frame` of every character; `touch` is called with each character's outputs (the
  // benchmark's DoNotOptimize).
  template <typename Touch>
  void run_frame(std::uint64_t frame, Touch&& touch) {
    for (std::size_t i = 0; i < characters_.size(); ++i) {
      Character& c = characters_[i];
      sample_.time = time_of(i, frame);
      sample_.output = c.local;
      sample_.run();
      if (model_) {
        to_model_.local = c.local;
        to_model_.model = c.model;
        to_model_.run();
      }
      touch(c.local.data(), c.model.data());
    }
  }

  std::size_t size() const { return characters_.size(); }
  const std::vector<Mat4>& model(std::size_t i) const { return characters_[i].model; }

 private:
  struct Character {
    std::vector<SoaTransform> local;
    std::vector<Mat4> model;
  };
  const CompiledClip* clip_;
  bool model_;
  std::vector<Character> characters_;
  CompiledSamplingJob sample_;
  SoaLocalToModelJob to_model_;
};

}  // namespace marrow::bench
