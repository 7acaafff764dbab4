// Every Collada file that imported through assimp imports at least as well through marrow's own
// reader: the same nodes by name, the same clips and durations, and the same global transforms
// where both are right. Where they differ the reason is stated (docs/formats_collada.md).
#include <gtest/gtest.h>

#include <optional>

#include "collada_test_util.h"
#include "marrow/clip/sampling.h"
#include "marrow/io/assimp_import.h"
#include "marrow/io/pose_dump.h"

namespace marrow {
namespace {

struct Comparison {
  std::size_t matched = 0, unmatched = 0;
  double position = 0;  // largest global position difference, relative to the scene's extent
  double rotation = 0;  // largest difference of a normalized 3x3 column
};

Comparison compare(const Asset& ours, const Asset& theirs, std::span<const float> times) {
  Comparison c;
  const int clip = ours.clips.empty() ? -1 : 0;
  const PoseSamples a = sample_world(ours, clip, times);
  const PoseSamples b = sample_world(theirs, theirs.clips.empty() ? -1 : 0, times);
  double extent = 1e-9;
  for (const Mat4& m : a.world[0]) extent = std::max<double>(extent, length(m.translation()));
  for (std::size_t j = 0; j < ours.skeleton.size(); ++j) {
    const auto k = theirs.skeleton.find(ours.skeleton.name(j));
    if (!k) {
      ++c.unmatched;
      continue;
    }
    ++c.matched;
    for (std::size_t s = 0; s < times.size(); ++s) {
      const Mat4 &x = a.world[s][j], &y = b.world[s][*k];
      c.position = std::max<double>(c.position, length(x.translation() - y.translation()) / extent);
      for (int col = 0; col < 3; ++col) {
        const Vec3 u = x.column(col), v = y.column(col);
        const float lu = length(u), lv = length(v);
        if (lu > 0 && lv > 0)
          c.rotation = std::max<double>(c.rotation, length(u * (1 / lu) - v * (1 / lv)));
      }
    }
  }
  return c;
}

struct Loaded {
  Asset ours, theirs;
};

std::optional<Loaded> load_both(const std::string& relative) {
  const std::string path = collada_test::shared(relative);
  if (!std::filesystem::exists(path)) return std::nullopt;
  Result<Asset> ours = read_collada(path);
  Result<Asset> theirs = read_assimp(path);
  EXPECT_TRUE(ours.ok()) << ours.error().message;
  EXPECT_TRUE(theirs.ok()) << theirs.error().message;
  if (!ours.ok() || !theirs.ok()) return std::nullopt;
  return Loaded{std::move(ours).value(), std::move(theirs).value()};
}

std::vector<float> times_over(float duration, int n) {
  std::vector<float> t;
  for (int i = 0; i <= n; ++i)
    t.push_back(duration * static_cast<float>(i) / static_cast<float>(n));
  return t;
}

TEST(ColladaVersusAssimp, MatrixAnimatedFilesAgreeEverywhere) {
  // walk.dae and skeleton.dae (FBX COLLADA exporter): matrix keys at 30 fps, LINEAR. assimp
  // decomposes and slerps the keys, as marrow's reader does: they agree at and between keys.
  for (const char* f : {"collada/pab/walk.dae", "collada/pab/skeleton.dae",
                        "collada/assimp/box_nested_animation.dae"}) {
    SCOPED_TRACE(f);
    const std::optional<Loaded> l = load_both(f);
    if (!l) GTEST_SKIP() << f << " is absent";
    ASSERT_EQ(l->ours.clips.size(), l->theirs.clips.size());
    EXPECT_EQ(l->ours.clips[0].name(), l->theirs.clips[0].name());
    EXPECT_NEAR(l->ours.clips[0].duration(), l->theirs.clips[0].duration(), 1e-5);
    const Comparison c = compare(l->ours, l->theirs, times_over(l->ours.clips[0].duration(), 40));
    // Every node assimp shows is there, under the same name, except those assimp names itself
    // (a nameless node: "$ColladaAutoName$_0" there, "node_N" here; the root's name).
    EXPECT_LE(c.unmatched, 1u);
    EXPECT_GT(c.matched, 2u);
    EXPECT_LT(c.position, 1e-5);
    EXPECT_LT(c.rotation, 1e-4);
  }
}

TEST(ColladaVersusAssimp, FullTurnsBetweenKeysAgreeAtKeysAndFollowTheAnglesBetween) {
  // Per-axis rotate channels turning a full 360 degrees between two keys: assimp converts them
  // to one quaternion per key and slerps (the short way: no turn at all); the file's curve
  // turns the angle linearly, which marrow follows. At the keys both agree.
  const std::optional<Loaded> l =
      load_both("collada/assimp/anims_with_full_rotations_between_keys.DAE");
  if (!l) GTEST_SKIP() << "anims_with_full_rotations_between_keys.DAE is absent";
  const std::vector<float> keys = {0.0f, 0.033333f, 11.966667f};
  const Comparison at_keys = compare(l->ours, l->theirs, keys);
  EXPECT_EQ(at_keys.unmatched, 0u);
  // assimp builds the rotations of angles up to 1440 degrees in float; marrow in double.
  EXPECT_LT(at_keys.position, 1e-4);
  EXPECT_LT(at_keys.rotation, 1e-4);
  // Half way between the keys the boxes have turned 180 degrees about their z axis here.
  const JointIndex box = *l->ours.skeleton.find("Box001");
  std::vector<Transform> pose(l->ours.skeleton.rest_pose().begin(),
                              l->ours.skeleton.rest_pose().end());
  ASSERT_TRUE(sample_tracks(l->ours.clips[0], 0.5f * (0.033333f + 11.966667f), pose));
  EXPECT_NEAR(std::fabs(pose[box].rotation.z), 1.0f, 1e-4f);  // 1080 + 180 degrees about z
}

TEST(ColladaVersusAssimp, LibraryAnimationClipsThatAssimpRefusesAreRead) {
  const std::string path = collada_test::shared("collada/assimp/library_animation_clips.dae");
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is absent";
  EXPECT_FALSE(read_assimp(path).ok());  // assimp 5.2 refuses it
  Result<Asset> a = read_collada(path);
  ASSERT_TRUE(a.ok()) << a.error().message;
  ASSERT_EQ(a->clips.size(), 2u);
  EXPECT_EQ(a->clips[0].name(), "bend");
  EXPECT_EQ(a->clips[1].name(), "turn");
  // <animation_clip start="0.041666666666666664" end="0.625">: times from the clip's start.
  EXPECT_NEAR(a->clips[0].duration(), 0.625 - 0.041666666666666664, 1e-6);
  EXPECT_NEAR(a->clips[1].duration(), 0.8333333333333333, 1e-6);
  ASSERT_EQ(a->meshes.size(), 1u);
  EXPECT_EQ(a->meshes[0].skin, 0);
  EXPECT_EQ(a->skins[0].joints.size(), 5u);
}

TEST(ColladaVersusAssimp, LoadAssetReadsColladaWithMarrowsReader) {
  const std::string path = collada_test::shared("collada/pab/walk.dae");
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is absent";
  Result<Asset> a = load_asset(path);
  ASSERT_TRUE(a.ok()) << a.error().message;
  // assimp invented a "skeleton mesh" for this animation-only file; marrow's reader does not.
  EXPECT_TRUE(a->meshes.empty());
  for (const std::string& w : a->warnings) EXPECT_EQ(w.find("assimp"), std::string::npos) << w;
}

}  // namespace
}  // namespace marrow
