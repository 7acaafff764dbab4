// Through every writer and back: SOURCE -> .marrow -> .glb -> our glTF reader gives the poses of
// the source within 1e-4 of the skeleton's extent, for every clip at several times.
#include "formats_test_util.h"
#include "marrow/io/gltf.h"
#include "marrow/io/save.h"

namespace formats_test {
namespace {

using namespace marrow;

// `validate`: also run the glTF validator on the final .glb (done here for the assets the
// GltfExport tests do not validate, and Testwuson; each costs a node start).
void expect_round_trip(const std::string& source, bool validate = false) {
  MARROW_REQUIRE_FILE(source);
  Result<Asset> original = load_asset(source);
  ASSERT_TRUE(original.ok()) << original.error().message;
  TempDir dir("roundtrip");
  const std::string archive = (dir / "a.marrow").string(), glb = (dir / "a.glb").string();
  ASSERT_TRUE(save_asset(*original, archive).ok());
  Result<Asset> from_archive = load_asset(archive);
  ASSERT_TRUE(from_archive.ok()) << from_archive.error().message;
  const Status st = save_asset(*from_archive, glb);
  ASSERT_TRUE(st.ok()) << st.error().message;
  Result<Asset> final_asset = read_gltf(glb);
  ASSERT_TRUE(final_asset.ok()) << final_asset.error().message;
  const Asset& a = *original;
  const Asset& b = *final_asset;

  ASSERT_EQ(a.skeleton.size(), b.skeleton.size());
  for (std::size_t j = 0; j < a.skeleton.size(); ++j)
    EXPECT_EQ(a.skeleton.name(j), b.skeleton.name(j));
  ASSERT_EQ(a.clips.size(), b.clips.size());
  ASSERT_FALSE(a.clips.empty());
  for (std::size_t c = 0; c < a.clips.size(); ++c) {
    EXPECT_EQ(a.clips[c].name(), b.clips[c].name());
    const int ci = static_cast<int>(c);
    const float extent = extent_of(a, ci);
    ASSERT_GT(extent, 0.f);
    // Past the end too: the seeds' rule (hold the last key) must survive.
    std::vector<float> times = times_over(a.clips[c].duration(), 9);
    times.push_back(a.clips[c].duration() + 0.5f);
    const float diff = max_pose_difference(a, ci, b, ci, times);
    EXPECT_LE(diff, 1e-4f * extent) << a.clips[c].name() << ": extent " << extent;
  }
  if (validate) MARROW_EXPECT_VALID_GLTF(glb);
}

TEST(RoundTrip, TestwusonXThroughArchiveAndGlb) {
  expect_round_trip(shared_asset("x/Testwuson.X"), true);
}
TEST(RoundTrip, SoldierGlbThroughArchiveAndGlb) {
  expect_round_trip(shared_asset("gltf/Soldier.glb"));
}
TEST(RoundTrip, BvhThroughArchiveAndGlb) {
  expect_round_trip(shared_asset("bvh/Boxing_Toes.bvh"), true);
}
TEST(RoundTrip, FbxThroughArchiveAndGlb) {
  expect_round_trip(shared_asset("fbx/walk.fbx"));
}
TEST(RoundTrip, ColladaThroughArchiveAndGlb) {
  expect_round_trip(shared_asset("collada/pab/walk.dae"), true);
}

}  // namespace
}  // namespace formats_test
