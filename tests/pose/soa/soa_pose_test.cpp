// The SIMD blend and local-to-model (structure of arrays) against their scalar references,
// BlendJob and LocalToModelJob, on every SIMD level this machine has.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <string>

#include "job_checks.h"
#include "marrow/pose/additive.h"
#include "marrow/pose/blend.h"
#include "marrow/pose/local_to_model.h"
#include "marrow/pose/soa_blend.h"
#include "simd_test_util.h"

namespace marrow::test {
namespace {

// Tolerances, stated: the SIMD paths fuse multiply-adds, normalize with a refined reciprocal
// square root and evaluate q^w with single-precision polynomials, so they differ from the scalar
// reference by a few float roundings.
constexpr float kBlendEps = 2e-5f;
constexpr float kMatrixEps = 2e-5f;

struct Stack {
  std::vector<std::vector<Transform>> poses;
  std::vector<std::vector<float>> masks;
};

std::vector<float> random_mask(std::mt19937& rng, std::size_t n) {
  std::uniform_real_distribution<float> u(-0.3f, 1.3f);  // out-of-range weights are clamped
  std::vector<float> m(n);
  for (float& w : m) w = u(rng);
  m[n / 2] = std::numeric_limits<float>::quiet_NaN();  // reads as 0
  return m;
}

void expect_same_pose(std::span<const Transform> got, std::span<const Transform> want, float eps) {
  for (std::size_t j = 0; j < want.size(); ++j) {
    SCOPED_TRACE("joint " + std::to_string(j));
    EXPECT_TRUE(near(got[j].translation, want[j].translation, eps))
        << got[j].translation.x << " " << want[j].translation.x;
    EXPECT_TRUE(same_rotation(got[j].rotation, want[j].rotation, eps))
        << got[j].rotation.x << " " << got[j].rotation.y << " " << got[j].rotation.z << " "
        << got[j].rotation.w << " vs " << want[j].rotation.x << " " << want[j].rotation.y << " "
        << want[j].rotation.z << " " << want[j].rotation.w;
    EXPECT_TRUE(near(got[j].scale, want[j].scale, eps));
  }
}

std::vector<SoaTransform> soa(std::span<const Transform> aos) {
  std::vector<SoaTransform> r(soa_group_count(aos.size()));
  EXPECT_TRUE(to_soa(aos, r));
  return r;
}

// Runs the same stack through BlendJob and SoaBlendJob.
void compare_blend(std::size_t joints, const std::vector<float>& normal_weights,
                   const std::vector<float>& override_weights,
                   const std::vector<float>& additive_weights, bool masks, unsigned seed) {
  std::mt19937 rng(seed);
  const std::vector<Transform> rest = random_pose(rng, joints);
  const std::size_t layer_count =
      normal_weights.size() + override_weights.size() + additive_weights.size();
  std::vector<std::vector<Transform>> poses;
  std::vector<std::vector<float>> mask_storage;
  for (std::size_t i = 0; i < layer_count; ++i) {
    poses.push_back(random_pose(rng, joints));
    mask_storage.push_back(random_mask(rng, joints));
  }
  // Additive layers hold deltas: against a random reference, with some unit scale ratios.
  for (std::size_t i = normal_weights.size() + override_weights.size(); i < layer_count; ++i) {
    const std::vector<Transform> reference = random_pose(rng, joints);
    std::vector<Transform> delta(joints);
    ASSERT_TRUE(make_additive_pose(reference, poses[i], delta));
    for (std::size_t j = 0; j < joints; j += 3) delta[j].scale = {1, 1, 1};
    poses[i] = delta;
  }
  std::vector<std::vector<SoaTransform>> soa_poses;
  for (const auto& p : poses) soa_poses.push_back(soa(p));

  std::vector<BlendLayer> aos_layers[3];
  std::vector<SoaBlendLayer> soa_layers[3];
  std::size_t k = 0;
  const std::vector<float>* weights[3] = {&normal_weights, &override_weights, &additive_weights};
  for (int kind = 0; kind < 3; ++kind) {
    for (float w : *weights[kind]) {
      const std::span<const float> mask =
          masks ? std::span<const float>(mask_storage[k]) : std::span<const float>{};
      aos_layers[kind].push_back({poses[k], w, mask});
      soa_layers[kind].push_back({soa_poses[k], w, mask});
      ++k;
    }
  }
  std::vector<Transform> want(joints);
  BlendJob reference;
  reference.rest_pose = rest;
  reference.layers = aos_layers[0];
  reference.overrides = aos_layers[1];
  reference.additives = aos_layers[2];
  reference.output = want;
  ASSERT_TRUE(reference.run());

  const std::vector<SoaTransform> soa_rest = soa(rest);
  for_each_simd_level([&](SimdLevel) {
    std::vector<SoaTransform> out(soa_group_count(joints));
    SoaBlendJob job;
    job.joint_count = joints;
    job.rest_pose = soa_rest;
    job.layers = soa_layers[0];
    job.overrides = soa_layers[1];
    job.additives = soa_layers[2];
    job.output = out;
    ASSERT_TRUE(job.run());
    std::vector<Transform> got(joints);
    ASSERT_TRUE(from_soa(out, got));
    expect_same_pose(got, want, kBlendEps);
  });
}

TEST(SoaBlend, MorphWeightsGoThroughTheSameStackAsBlendJobs) {
  // Worked by hand (blend.h's three steps on plain numbers), rest weights {0.1, 0.9, 0.5}:
  //  normal: A (0.25) {0, 1, 0.2} and B (0.75) {1, 0.5, 0.6} masked out of slot 2
  //    -> {0.75, 0.625, 0.2} (slot 2: A alone, above the threshold, is itself);
  //  override C (0.5) {0.25, 0.625, 1} lerped over by 0.5 -> {0.5, 0.625, 0.6};
  //  additive D (0.5) differences {0.5, -0.25, 0} -> {0.75, 0.5, 0.6}.
  // E, a normal layer without morph weights, blends poses only.
  const std::vector<SoaTransform> rest = soa(std::vector<Transform>(3, Transform::identity()));
  const std::vector<float> rest_weights = {0.1f, 0.9f, 0.5f};
  const std::vector<float> a = {0, 1, 0.2f}, b = {1, 0.5f, 0.6f}, b_mask = {1, 1, 0};
  const std::vector<float> c = {0.25f, 0.625f, 1}, d = {0.5f, -0.25f, 0};
  SoaBlendLayer normal[3] = {{rest, 0.25f, {}, a, {}}, {rest, 0.75f, {}, b, b_mask}, {rest, 1.0f}};
  const SoaBlendLayer over[] = {{rest, 0.5f, {}, c, {}}};
  const SoaBlendLayer add[] = {{rest, 0.5f, {}, d, {}}};
  std::vector<SoaTransform> out(1);
  std::vector<float> weights(3, -1);
  SoaBlendJob job;
  job.joint_count = 3;
  job.rest_pose = rest;
  job.layers = normal;
  job.overrides = over;
  job.additives = add;
  job.output = out;
  job.rest_morph_weights = rest_weights;
  job.morph_output = weights;
  ASSERT_TRUE(job.validate().ok());
  ASSERT_TRUE(job.run());
  EXPECT_FLOAT_EQ(weights[0], 0.75f);
  EXPECT_FLOAT_EQ(weights[1], 0.5f);
  EXPECT_NEAR(weights[2], 0.6f, 1e-6f);

  const std::vector<float> short_weights = {1, 1};
  normal[2].morph_weights = short_weights;
  EXPECT_TRUE(refused_naming(job.validate(), "SoaBlendJob: layers[2].morph_weights"));
  normal[2].morph_weights = {};
  job.morph_output = std::span(weights).first(2);
  EXPECT_TRUE(refused_naming(job.validate(), "SoaBlendJob: morph_output"));
}

TEST(SoaBlend, NormalLayersMatchTheScalarBlendOnEveryLevel) {
  compare_blend(37, {0.2f, 0.5f, 0.3f}, {}, {}, false, 1);
  compare_blend(37, {0.2f, 0.5f, 0.3f}, {}, {}, true, 2);
}

TEST(SoaBlend, LightLayersLetTheRestPoseFillInBelowTheThreshold) {
  compare_blend(21, {0.03f, 0.02f}, {}, {}, false, 3);
  compare_blend(21, {0.03f, 0.02f}, {}, {}, true, 4);
}

TEST(SoaBlend, OverrideLayersMatchTheScalarBlendOnEveryLevel) {
  compare_blend(64, {1.0f}, {0.8f}, {}, true, 5);
  compare_blend(13, {0.4f, 0.6f}, {0.3f, 0.9f}, {}, true, 6);
}

TEST(SoaBlend, AdditiveLayersAtAnyWeightMatchTheScalarBlendOnEveryLevel) {
  compare_blend(30, {1.0f}, {}, {1.0f}, false, 7);
  compare_blend(30, {1.0f}, {}, {0.5f, -0.3f}, true, 8);
  compare_blend(30, {0.5f, 0.5f}, {0.7f}, {2.0f, 0.25f}, true, 9);
}

TEST(SoaBlend, OneLayerAtFullWeightReturnsItsPoseExactly) {
  std::mt19937 rng(10);
  const std::vector<Transform> rest = random_pose(rng, 19), pose = random_pose(rng, 19);
  const std::vector<SoaTransform> soa_rest = soa(rest), soa_pose = soa(pose);
  for_each_simd_level([&](SimdLevel) {
    std::vector<SoaTransform> out(soa_group_count(19));
    const SoaBlendLayer layers[] = {{soa_pose, 1.0f, {}}};
    SoaBlendJob job;
    job.joint_count = 19;
    job.rest_pose = soa_rest;
    job.layers = layers;
    job.output = out;
    ASSERT_TRUE(job.run());
    std::vector<Transform> got(19);
    ASSERT_TRUE(from_soa(out, got));
    for (std::size_t j = 0; j < 19; ++j) EXPECT_EQ(got[j], pose[j]) << "joint " << j;
  });
}

TEST(SoaBlend, RotationsHalfATurnApartBlendTheSameWayAsTheScalarJob) {
  // Two layers holding every joint half a turn apart: the undecided hemisphere case, where both
  // jobs must pick the canonical signs and agree frame after frame.
  std::mt19937 rng(11);
  const std::size_t n = 16;
  std::vector<Transform> a = random_pose(rng, n), b = a;
  for (std::size_t j = 0; j < n; ++j) {
    b[j].rotation = a[j].rotation * from_axis_angle({0, 0, 1}, 3.14159265f);
    if (j % 2) b[j].rotation = negate(b[j].rotation);
  }
  const std::vector<Transform> rest = random_pose(rng, n);
  std::vector<Transform> want(n);
  const BlendLayer aos_layers[] = {{a, 0.5f, {}}, {b, 0.5f, {}}};
  BlendJob reference;
  reference.rest_pose = rest;
  reference.layers = aos_layers;
  reference.output = want;
  ASSERT_TRUE(reference.run());
  const std::vector<SoaTransform> sa = soa(a), sb = soa(b), sr = soa(rest);
  for_each_simd_level([&](SimdLevel) {
    std::vector<SoaTransform> out(soa_group_count(n));
    const SoaBlendLayer layers[] = {{sa, 0.5f, {}}, {sb, 0.5f, {}}};
    SoaBlendJob job;
    job.joint_count = n;
    job.rest_pose = sr;
    job.layers = layers;
    job.output = out;
    ASSERT_TRUE(job.run());
    std::vector<Transform> got(n);
    ASSERT_TRUE(from_soa(out, got));
    expect_same_pose(got, want, kBlendEps);
  });
}

TEST(SoaBlend, ValidateNamesShortSpansAndBadWeights) {
  std::mt19937 rng(12);
  const std::vector<SoaTransform> rest = soa(random_pose(rng, 9)), pose = rest;
  std::vector<SoaTransform> out(2), short_out(1);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> short_mask(8, 1.0f);
  SoaBlendJob job;
  job.joint_count = 9;
  job.rest_pose = rest;
  job.output = out;
  EXPECT_TRUE(job.validate());
  job.output = short_out;
  EXPECT_FALSE(job.run());
  EXPECT_TRUE(refused_naming(job.validate(), "SoaBlendJob: output"));
  job.output = out;
  const SoaBlendLayer nan_weight[] = {{pose, nan, {}}};
  job.layers = nan_weight;
  EXPECT_TRUE(refused_naming(job.validate(), "SoaBlendJob: layers[0].weight"));
  const SoaBlendLayer masked[] = {{pose, 1.0f, short_mask}};
  job.overrides = masked;
  job.layers = {};
  EXPECT_TRUE(refused_naming(job.validate(), "SoaBlendJob: overrides[0].mask"));
  job.overrides = {};
  job.threshold = 0;
  EXPECT_TRUE(refused_naming(job.validate(), "SoaBlendJob: threshold"));
  job.threshold = kDefaultBlendThreshold;
  job.rest_pose = {};
  EXPECT_TRUE(refused_naming(job.validate(), "SoaBlendJob: rest_pose"));
}

void expect_same_matrices(std::span<const Mat4> got, std::span<const Mat4> want, float eps) {
  for (std::size_t j = 0; j < want.size(); ++j) {
    for (int k = 0; k < 16; ++k) {
      EXPECT_NEAR(got[j].m[k], want[j].m[k], eps * (1 + std::fabs(want[j].m[k])))
          << "joint " << j << " element " << k;
    }
  }
}

TEST(SoaLocalToModel, MatchesTheScalarJobOnEveryLevel) {
  std::mt19937 rng(20);
  // 300 joints exceed the kernel's stack scratch (256), so its local matrices wait in `model`.
  for (std::size_t n : {1u, 7u, 8u, 9u, 68u, 300u}) {
    const Skeleton skeleton = random_skeleton(rng, n);
    const std::vector<Transform> local = random_pose(rng, n, true);
    std::vector<Mat4> want(n);
    Mat4 root = to_matrix(random_transform(rng, true));
    LocalToModelJob reference;
    reference.skeleton = &skeleton;
    reference.local = local;
    reference.model = want;
    reference.root = root;
    ASSERT_TRUE(reference.run());
    const std::vector<SoaTransform> soa_local = soa(local);
    for_each_simd_level([&](SimdLevel) {
      std::vector<Mat4> got(n);
      SoaLocalToModelJob job;
      job.skeleton = &skeleton;
      job.local = soa_local;
      job.model = got;
      job.root = root;
      ASSERT_TRUE(job.run());
      expect_same_matrices(got, want, kMatrixEps);
    });
  }
}

TEST(SoaLocalToModel, StreamingWritesTheSameMatricesBitForBit) {
  std::mt19937 rng(23);
  for (std::size_t n : {1u, 9u, 68u, 256u, 300u}) {  // 300: past the scratch, written as usual
    const Skeleton skeleton = random_skeleton(rng, n);
    const std::vector<SoaTransform> local = soa(random_pose(rng, n, true));
    const Mat4 root = to_matrix(random_transform(rng, true));
    for_each_simd_level([&](SimdLevel level) {
      for (const bool with_root : {false, true}) {
        std::vector<Mat4> plain(n), streamed(n, Mat4::identity());
        SoaLocalToModelJob job;
        job.skeleton = &skeleton;
        job.local = local;
        if (with_root) job.root = root;
        job.model = plain;
        ASSERT_TRUE(job.run());
        job.streaming = true;
        job.model = streamed;
        ASSERT_TRUE(job.run());
        for (std::size_t j = 0; j < n; ++j) {
          ASSERT_EQ(std::memcmp(&plain[j], &streamed[j], sizeof(Mat4)), 0)
              << "joint " << j << " of " << n << ", " << to_string(level);
        }
      }
    });
  }
}

TEST(SoaLocalToModel, FromAJointRecomputesOnlyItsSubtree) {
  std::mt19937 rng(21);
  const std::size_t n = 40;
  const Skeleton skeleton = random_skeleton(rng, n);
  std::vector<Transform> local = random_pose(rng, n, true);
  for_each_simd_level([&](SimdLevel) {
    std::vector<Mat4> model(n);
    std::vector<SoaTransform> soa_local = soa(local);
    SoaLocalToModelJob job;
    job.skeleton = &skeleton;
    job.local = soa_local;
    job.model = model;
    ASSERT_TRUE(job.run());
    // Change joint 5 and something outside its subtree; recompute from 5 only.
    const JointIndex from = 5;
    std::vector<Transform> changed = local;
    changed[from].rotation = random_rotation(rng);
    std::size_t outside = 0;
    for (std::size_t j = 1; j < n; ++j) {
      if (!skeleton.is_descendant(static_cast<JointIndex>(j), from)) outside = j;
    }
    changed[outside].translation = {9, 9, 9};
    ASSERT_TRUE(to_soa(changed, soa_local));
    const std::vector<Mat4> before = model;
    job.from = from;
    ASSERT_TRUE(job.run());
    std::vector<Transform> expected_local = changed;
    expected_local[outside] = local[outside];  // not recomputed: keeps its old matrix
    std::vector<Mat4> want(n);
    ASSERT_TRUE(local_to_model(skeleton, expected_local, want));
    for (std::size_t j = 0; j < n; ++j) {
      if (skeleton.is_descendant(static_cast<JointIndex>(j), from)) {
        expect_same_matrices(std::span(model).subspan(j, 1), std::span(want).subspan(j, 1),
                             kMatrixEps);
      } else {
        EXPECT_EQ(model[j], before[j]) << "joint " << j << " is outside the subtree";
      }
    }
  });
}

// What a local-to-model job with `from`, `to` and `from_excluded` must leave in `model`, by the
// definition: the chosen joints in index order, each its parent's expected matrix (or the root's)
// times its local matrix, the other joints' matrices as they were.
std::vector<Mat4> expected_range(const Skeleton& skeleton, std::span<const Transform> local,
                                 std::vector<Mat4> model, const Mat4& root, JointIndex from,
                                 JointIndex to, bool from_excluded) {
  auto product = [](const Mat4& a, const Mat4& b) {
    Mat4 r;
    for (int row = 0; row < 4; ++row) {
      for (int col = 0; col < 4; ++col) {
        double sum = 0;
        for (int k = 0; k < 4; ++k) sum += double{a(row, k)} * b(k, col);
        r(row, col) = static_cast<float>(sum);
      }
    }
    return r;
  };
  for (std::size_t j = 0; j < skeleton.size(); ++j) {
    const auto joint = static_cast<JointIndex>(j);
    const bool chosen = (from == kNoParent || skeleton.is_descendant(joint, from)) &&
                        (to == kNoParent || j <= to) &&
                        !(from != kNoParent && from_excluded && joint == from);
    if (!chosen) continue;
    const JointIndex p = skeleton.parent(joint);
    model[j] = product(p == kNoParent ? root : model[p], to_matrix(local[j]));
  }
  return model;
}

TEST(LocalToModel, BothLayoutsWriteTheChosenJointsAndNothingElseOnEveryRange) {
  std::mt19937 rng(23);
  const std::size_t n = 40;
  const Skeleton skeleton = random_skeleton(rng, n);
  const std::vector<Transform> old_pose = random_pose(rng, n, true),
                               local = random_pose(rng, n, true);
  Mat4 root = to_matrix(random_transform(rng, true));
  std::vector<Mat4> stale(n);
  ASSERT_TRUE(local_to_model(skeleton, old_pose, stale));
  const std::vector<SoaTransform> soa_local = soa(local);
  // A joint deep enough to have a subtree of several joints, and indices on both sides of a group.
  JointIndex deep = 5;
  for (std::size_t j = 1; j < n; ++j) {
    std::size_t below = 0;
    for (std::size_t k = j; k < n; ++k)
      below += skeleton.is_descendant(static_cast<JointIndex>(k), static_cast<JointIndex>(j));
    if (below >= 4) deep = static_cast<JointIndex>(j);
  }
  for (const JointIndex from : {kNoParent, JointIndex{0}, JointIndex{5}, deep}) {
    for (const JointIndex to : {kNoParent, JointIndex{deep}, JointIndex{20}, JointIndex{39}}) {
      for (const bool excluded : {false, true}) {
        if (from != kNoParent && to != kNoParent && to < from) continue;
        SCOPED_TRACE("from " + std::to_string(from) + " to " + std::to_string(to) +
                     (excluded ? " excluded" : ""));
        const std::vector<Mat4> want =
            expected_range(skeleton, local, stale, root, from, to, excluded);
        // The chosen joints as the definition has them; the others exactly as they were.
        auto expect_range = [&](const std::vector<Mat4>& got) {
          for (std::size_t j = 0; j < n; ++j) {
            if (want[j] == stale[j]) {
              EXPECT_EQ(got[j], stale[j]) << "joint " << j << " was not to be written";
            }
          }
          expect_same_matrices(got, want, kMatrixEps);
        };
        std::vector<Mat4> exact = stale;
        ASSERT_TRUE((LocalToModelJob{&skeleton, local, exact, root, from, to, excluded}.run()));
        expect_range(exact);
        for_each_simd_level([&](SimdLevel) {
          std::vector<Mat4> model = stale;
          ASSERT_TRUE(
              (SoaLocalToModelJob{&skeleton, soa_local, model, root, from, to, excluded}.run()));
          expect_range(model);
        });
      }
    }
  }
}

TEST(LocalToModel, BothJobsRefuseTheSameRanges) {
  std::mt19937 rng(24);
  const Skeleton skeleton = random_skeleton(rng, 10);
  std::vector<Transform> local(10);
  std::vector<SoaTransform> soa_local(2);
  std::vector<Mat4> model(10);
  struct Range {
    JointIndex from, to;
    const char* refused;  // the input validate() names; null: accepted
  };
  const Range ranges[] = {{kNoParent, kNoParent, nullptr},
                          {3, kNoParent, nullptr},
                          {3, 3, nullptr},
                          {kNoParent, 9, nullptr},
                          {3, 2, "to"},
                          {10, kNoParent, "from"},
                          {kNoParent, 10, "to"},
                          {0, 10, "to"}};
  for (const Range& r : ranges) {
    for (const bool excluded : {false, true}) {
      LocalToModelJob aos{&skeleton, local, model, Mat4::identity(), r.from, r.to, excluded};
      SoaLocalToModelJob soa_job{&skeleton, soa_local, model,   Mat4::identity(),
                                 r.from,    r.to,      excluded};
      if (r.refused == nullptr) {
        EXPECT_TRUE(aos.validate().ok()) << r.from << " " << r.to;
        EXPECT_TRUE(soa_job.validate().ok()) << r.from << " " << r.to;
        continue;
      }
      const std::string input = r.refused;
      EXPECT_TRUE(refused_naming(aos.validate(), "LocalToModelJob: " + input)) << r.from;
      EXPECT_TRUE(refused_naming(soa_job.validate(), "SoaLocalToModelJob: " + input)) << r.from;
    }
  }
}

TEST(SoaLocalToModel, ValidateRefusesShortSpansAndJointsOutOfRange) {
  std::mt19937 rng(22);
  const Skeleton skeleton = random_skeleton(rng, 10);
  std::vector<SoaTransform> local(2), short_local(1);
  std::vector<Mat4> model(10), short_model(9);
  SoaLocalToModelJob job;
  job.skeleton = &skeleton;
  job.local = local;
  job.model = model;
  EXPECT_TRUE(job.validate());
  job.model = short_model;
  EXPECT_FALSE(job.run());
  job.model = model;
  job.local = short_local;
  EXPECT_TRUE(refused_naming(job.validate(), "SoaLocalToModelJob: local"));
  job.local = local;
  job.from = 10;
  EXPECT_TRUE(refused_naming(job.validate(), "SoaLocalToModelJob: from"));
  job.skeleton = nullptr;
  EXPECT_TRUE(refused_naming(job.validate(), "SoaLocalToModelJob: skeleton"));
}

}  // namespace
}  // namespace marrow::test
