// Blending on real clips (issue: "Blend poses the way the seeds asked"): Soldier.glb's Idle,
// Walk and Run, Testwuson.X's Wuson_Walk and Wuson_Run, and ProAnimationBank's walk, jog, run
// and crossarms (FBX). Each case names two clips of one skeleton and a subtree for masks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>

#include "marrow/clip/sampling.h"
#include "marrow/io/asset.h"
#include "marrow/pose/additive.h"
#include "marrow/pose/blend.h"
#include "marrow/pose/local_to_model.h"
#include "marrow/pose/mask.h"
#include "shared_asset.h"

namespace fs = std::filesystem;

namespace {

struct Case {
  const char* name;
  const char* file_a;  // relative to ../shared/assets
  const char* clip_a;
  const char* file_b;  // may be the same file
  const char* clip_b;
  const char* mask_root;  // a subtree for the masked tests ("" picks the first joint with children)
};

const Case kCases[] = {
    {"SoldierWalkRun", "gltf/Soldier.glb", "Walk", "gltf/Soldier.glb", "Run", "mixamorig:LeftArm"},
    {"SoldierIdleWalk", "gltf/Soldier.glb", "Idle", "gltf/Soldier.glb", "Walk", "mixamorig:Spine1"},
    {"WusonWalkRun", "x/Testwuson.X", "Wuson_Walk", "x/Testwuson.X", "Wuson_Run", ""},
    {"PabWalkRun", "fbx/walk.fbx", "0", "fbx/run.fbx", "0", ""},
    {"PabJogCrossarms", "fbx/jog.fbx", "0", "fbx/crossarms.fbx", "0", ""},
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

const fs::path kAssets = marrow::test::shared_asset_dir();

// Assets load once per process: Soldier.glb takes a moment under the sanitizers.
const marrow::Asset* load(const char* relative, std::string& why) {
  static std::map<std::string, std::unique_ptr<marrow::Asset>> cache;
  const fs::path path = kAssets / relative;
  if (!fs::exists(path)) {
    why = path.string() + " is absent";
    return nullptr;
  }
  auto it = cache.find(path.string());
  if (it == cache.end()) {
    auto loaded = marrow::load_asset(path.string());
    if (!loaded) {
      why = loaded.error().message;
      return nullptr;
    }
    it = cache.emplace(path.string(), std::make_unique<marrow::Asset>(std::move(loaded).value()))
             .first;
  }
  return it->second.get();
}

class RealClips : public testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    std::string why;
    a_asset_ = load(GetParam().file_a, why);
    if (a_asset_) b_asset_ = load(GetParam().file_b, why);
    if (!a_asset_ || !b_asset_) {
      // A file that exists but does not load is a failure, except for formats not read yet.
      if (why.find("unsupported file type") != std::string::npos ||
          why.find("is absent") != std::string::npos) {
        GTEST_SKIP() << why;
      }
      FAIL() << why;
    }
    skeleton_ = &a_asset_->skeleton;
    auto ia = a_asset_->find_clip(GetParam().clip_a);
    auto ib = b_asset_->find_clip(GetParam().clip_b);
    ASSERT_TRUE(ia && ib) << "clips " << GetParam().clip_a << ", " << GetParam().clip_b;
    a_ = &a_asset_->clips[*ia];
    b_ = &b_asset_->clips[*ib];
    // Clip B from another file of the same skeleton: its joint indices must be this skeleton's.
    ASSERT_EQ(b_asset_->skeleton.size(), skeleton_->size()) << "the two files' skeletons differ";
    for (std::size_t j = 0; j < skeleton_->size(); ++j) {
      ASSERT_EQ(b_asset_->skeleton.name(j), skeleton_->name(j));
    }
    n_ = skeleton_->size();
    std::string root = GetParam().mask_root;
    if (root.empty()) {
      // A joint two levels or more above some leaf: a real subtree, not the whole skeleton.
      for (std::size_t j = 1; j < n_ && root.empty(); ++j) {
        if (skeleton_->parent(j) != marrow::kNoParent &&
            skeleton_->children(static_cast<marrow::JointIndex>(j)).size() == 1 &&
            skeleton_->parent(skeleton_->parent(j)) != marrow::kNoParent) {
          root = skeleton_->name(j);
        }
      }
    }
    auto mask = marrow::mask_from_subtree(*skeleton_, root);
    ASSERT_TRUE(mask.ok()) << mask.error().message;
    mask_ = std::move(mask).value();
    mask_root_ = root;
  }

  std::vector<marrow::Transform> sample_at(const marrow::Clip& clip, float t) const {
    std::vector<marrow::Transform> pose(n_);
    marrow::SamplingCursor cursor(clip);
    marrow::sample(clip, skeleton_->rest_pose(), t, cursor, pose);
    return pose;
  }

  std::vector<marrow::Transform> blend(std::vector<marrow::BlendLayer> normal,
                                       std::vector<marrow::BlendLayer> overrides = {}) const {
    std::vector<marrow::Transform> out(n_);
    marrow::BlendJob job;
    job.rest_pose = skeleton_->rest_pose();
    job.layers = normal;
    job.overrides = overrides;
    job.output = out;
    EXPECT_TRUE(job.run());
    return out;
  }

  std::vector<float> times(const marrow::Clip& clip) const {
    std::vector<float> t;
    for (int i = 0; i <= 10; ++i) t.push_back(clip.duration() * static_cast<float>(i) / 10.0f);
    return t;
  }

  const marrow::Asset* a_asset_ = nullptr;
  const marrow::Asset* b_asset_ = nullptr;
  const marrow::Skeleton* skeleton_ = nullptr;
  const marrow::Clip* a_ = nullptr;
  const marrow::Clip* b_ = nullptr;
  std::size_t n_ = 0;
  std::vector<float> mask_;
  std::string mask_root_;
};

// Model-space positions, the quantity a viewer sees.
std::vector<marrow::Vec3> positions(const marrow::Skeleton& skeleton,
                                    const std::vector<marrow::Transform>& local) {
  std::vector<marrow::Mat4> model(skeleton.size());
  marrow::local_to_model(skeleton, local, model);
  std::vector<marrow::Vec3> p;
  for (const auto& m : model) p.push_back(m.translation());
  return p;
}

float extent(const std::vector<marrow::Vec3>& p) {
  marrow::Vec3 lo = p[0], hi = p[0];
  for (const auto& v : p) {
    lo = {std::min(lo.x, v.x), std::min(lo.y, v.y), std::min(lo.z, v.z)};
    hi = {std::max(hi.x, v.x), std::max(hi.y, v.y), std::max(hi.z, v.z)};
  }
  return std::max({hi.x - lo.x, hi.y - lo.y, hi.z - lo.z, 1e-6f});
}

TEST_P(RealClips, BlendingAClipWithItselfGivesTheClip) {
  for (float t : times(*a_)) {
    const auto pose = sample_at(*a_, t);
    for (float w : {0.2f, 1.0f, 3.5f}) {
      const auto out = blend({{pose, w, {}}, {pose, 0.7f, {}}, {pose, 0.05f, mask_}});
      const auto expected = positions(*skeleton_, pose), got = positions(*skeleton_, out);
      const float tolerance = 1e-5f * extent(expected);
      for (std::size_t j = 0; j < n_; ++j) {
        ASSERT_NEAR(marrow::length(got[j] - expected[j]), 0.0f, tolerance)
            << skeleton_->name(j) << " t=" << t;
        ASSERT_LT(marrow::angle_between(out[j].rotation, pose[j].rotation), 1e-3f)
            << skeleton_->name(j);
      }
    }
  }
}

TEST_P(RealClips, WeightsOneAndZeroGiveTheFirstClipExactly) {
  for (float t : times(*a_)) {
    const auto pa = sample_at(*a_, t), pb = sample_at(*b_, t);
    const auto out = blend({{pa, 1.0f, {}}, {pb, 0.0f, {}}});
    for (std::size_t j = 0; j < n_; ++j) {
      ASSERT_EQ(out[j].translation, pa[j].translation) << skeleton_->name(j);
      ASSERT_EQ(out[j].scale, pa[j].scale) << skeleton_->name(j);
      // The same orientation (a quaternion and its negation are one rotation).
      ASSERT_LT(marrow::angle_between(out[j].rotation, pa[j].rotation), 1e-3f)
          << skeleton_->name(j);
    }
  }
}

TEST_P(RealClips, MaskedOverrideLeavesJointsOutsideTheMaskBitIdentical) {
  for (float t : times(*a_)) {
    const auto pa = sample_at(*a_, t), pb = sample_at(*b_, t);
    const auto base = blend({{pa, 1.0f, {}}});
    for (float w : {0.3f, 1.0f}) {
      const auto out = blend({{pa, 1.0f, {}}}, {{pb, w, mask_}});
      for (std::size_t j = 0; j < n_; ++j) {
        if (mask_[j] == 0) {
          ASSERT_EQ(out[j], base[j]) << skeleton_->name(j) << " is outside mask " << mask_root_;
        }
      }
      if (w == 1.0f) {
        // At full weight the masked joints are clip B's.
        for (std::size_t j = 0; j < n_; ++j) {
          if (mask_[j] == 1) {
            ASSERT_LT(marrow::angle_between(out[j].rotation, pb[j].rotation), 1e-3f);
          }
        }
      }
    }
  }
}

TEST_P(RealClips, AdditiveAgainstOwnFirstFrameReproducesTheClip) {
  auto reference = marrow::sample_reference_pose(*skeleton_, *a_, 0.0f);
  ASSERT_TRUE(reference.ok()) << reference.error().message;
  auto additive = marrow::make_additive_clip(*a_, *skeleton_, *reference);
  ASSERT_TRUE(additive.ok()) << additive.error().message;
  const std::vector<marrow::Transform> identity(n_);
  marrow::SamplingCursor cursor(*additive);
  for (float t : times(*a_)) {
    std::vector<marrow::Transform> delta(n_), pose = *reference;
    marrow::sample(*additive, identity, t, cursor, delta);
    ASSERT_TRUE(marrow::apply_additive(pose, delta, 1.0f));
    const auto expected = sample_at(*a_, t);
    const auto pe = positions(*skeleton_, expected), pg = positions(*skeleton_, pose);
    const float tolerance = 1e-4f * extent(pe);
    for (std::size_t j = 0; j < n_; ++j) {
      ASSERT_LT(marrow::length(pg[j] - pe[j]), tolerance) << skeleton_->name(j) << " t=" << t;
      ASSERT_LT(marrow::angle_between(pose[j].rotation, expected[j].rotation), 2e-3f)
          << skeleton_->name(j);
    }
  }
}

// A weight ramping 0 -> 1 over 0.3 s at 60 Hz: no joint's per-frame rotation step exceeds the
// larger of the two clips' own steps plus the blend's own motion (the angle between the clips
// times the weight step). Normalized lerp moves at most 2 tan(phi/2)/phi <= 1.28 times faster
// than uniformly over the at most 90-degree quaternion arc the hemisphere alignment leaves.
TEST_P(RealClips, WeightRampHasNoPop) {
  constexpr int kFrames = 18;  // 0.3 s at 60 Hz
  constexpr float kDt = 1.0f / 60.0f;
  const float start = 0.1f * a_->duration();
  std::vector<marrow::Transform> previous, prev_a, prev_b;
  float largest_excess = 0;
  for (int f = 0; f <= kFrames; ++f) {
    const float t = start + f * kDt;
    const float w = static_cast<float>(f) / kFrames;
    const auto pa = sample_at(*a_, marrow::wrap_time(t, a_->duration(), marrow::WrapMode::kLoop));
    const auto pb = sample_at(*b_, marrow::wrap_time(t, b_->duration(), marrow::WrapMode::kLoop));
    const auto out = blend({{pa, 1.0f - w, {}}, {pb, w, {}}});
    if (f > 0) {
      for (std::size_t j = 0; j < n_; ++j) {
        const float step = marrow::angle_between(out[j].rotation, previous[j].rotation);
        const float own = std::max(marrow::angle_between(pa[j].rotation, prev_a[j].rotation),
                                   marrow::angle_between(pb[j].rotation, prev_b[j].rotation));
        const float blend_motion = marrow::angle_between(pa[j].rotation, pb[j].rotation) / kFrames;
        const float bound = 1.28f * (own + blend_motion) + 2e-3f;
        largest_excess = std::max(largest_excess, step - bound);
        ASSERT_LE(step, bound) << skeleton_->name(j) << " frame " << f;
      }
    }
    previous = out;
    prev_a = pa;
    prev_b = pb;
  }
  RecordProperty("largest_excess_rad", std::to_string(largest_excess));
}

// The seed's wave: B as an override on the mask subtree, weight 0 -> 1 over a second and back,
// over A at weight 1. Outside the mask A plays untouched; inside, no frame jumps.
TEST_P(RealClips, OverrideRampKeepsTheRestPlayingAndDoesNotPop) {
  constexpr int kFrames = 120;  // 2 s at 60 Hz
  std::vector<marrow::Transform> previous, prev_a, prev_b;
  for (int f = 0; f <= kFrames; ++f) {
    const float t = f / 60.0f;
    const float w = f <= 60 ? f / 60.0f : (kFrames - f) / 60.0f;
    const auto pa = sample_at(*a_, marrow::wrap_time(t, a_->duration(), marrow::WrapMode::kLoop));
    const auto pb = sample_at(*b_, marrow::wrap_time(t, b_->duration(), marrow::WrapMode::kLoop));
    const auto out = blend({{pa, 1.0f, {}}}, {{pb, w, mask_}});
    for (std::size_t j = 0; j < n_; ++j) {
      if (mask_[j] == 0) {
        ASSERT_LT(marrow::angle_between(out[j].rotation, pa[j].rotation), 1e-3f)
            << skeleton_->name(j);
        ASSERT_EQ(out[j].translation, pa[j].translation) << skeleton_->name(j);
      } else if (f > 0) {
        // A frame moves the weight by 1/60: the joint turns at most by that share of the gap
        // between the clips plus the clips' own motion (same bound as WeightRampHasNoPop).
        const float step = marrow::angle_between(out[j].rotation, previous[j].rotation);
        const float own = std::max(marrow::angle_between(pa[j].rotation, prev_a[j].rotation),
                                   marrow::angle_between(pb[j].rotation, prev_b[j].rotation));
        const float gap = marrow::angle_between(pa[j].rotation, pb[j].rotation) / 60.0f;
        ASSERT_LE(step, 1.28f * (own + gap) + 2e-3f)
            << skeleton_->name(j) << " frame " << f << ": a pop";
      }
    }
    previous = out;
    prev_a = pa;
    prev_b = pb;
  }
}

std::string case_name(const testing::TestParamInfo<Case>& info) {
  return info.param.name;
}
INSTANTIATE_TEST_SUITE_P(Assets, RealClips, testing::ValuesIn(kCases), case_name);

}  // namespace
