// The .marrow archive keeps an Asset exactly: every joint, key, interpolation, tick rate,
// skin, mesh attribute and warning, for assets read from every importer.
#include <zlib.h>
#include "asset_compare.h"

#include "formats_test_util.h"
#include "marrow/clip/clip_builder.h"
#include "marrow/io/archive.h"
#include "marrow/io/obj.h"

namespace formats_test {
namespace {

using namespace marrow;

void expect_archive_round_trip(const std::string& path) {
  MARROW_REQUIRE_FILE(path);
  Result<Asset> original = load_asset(path);
  ASSERT_TRUE(original.ok()) << original.error().message;
  Result<Bytes> bytes = archive_bytes(*original);
  ASSERT_TRUE(bytes.ok()) << bytes.error().message;
  Result<Asset> back = read_archive(*bytes, "copy.marrow");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->source, "copy.marrow");
  expect_same_asset(*original, *back);
}

TEST(Archive, KeepsTestwusonX) {
  expect_archive_round_trip(shared_asset("x/Testwuson.X"));
}
TEST(Archive, KeepsSoldierGlb) {
  expect_archive_round_trip(shared_asset("gltf/Soldier.glb"));
}
TEST(Archive, KeepsCubicSplinesAndStep) {
  expect_archive_round_trip(shared_asset("gltf/interpolation_test.gltf"));
}
TEST(Archive, KeepsCesiumMan) {
  expect_archive_round_trip(shared_asset("gltf/cesium_man.gltf"));
}
TEST(Archive, KeepsBvh) {
  expect_archive_round_trip(shared_asset("bvh/01_01.bvh"));
}
TEST(Archive, KeepsFbx) {
  expect_archive_round_trip(shared_asset("fbx/walk.fbx"));
}
TEST(Archive, KeepsMorphTargetsAndWeightTracks) {
  expect_archive_round_trip(shared_asset("gltf/morph/AnimatedMorphCube.gltf"));
  expect_archive_round_trip(shared_asset("gltf/morph/MorphPrimitivesTest.gltf"));
}

// tests/formats/data/archive_v1.marrow was written by the archive code of format version 1
// (before morph targets) from archive_v1_source.gltf beside it: it must still load, and hold
// what the source holds.
TEST(Archive, VersionOneArchivesStillLoad) {
  const std::string dir = std::string(MARROW_SOURCE_DIR) + "/tests/formats/data/";
  const Bytes bytes = read_file(dir + "archive_v1.marrow");
  ASSERT_GT(bytes.size(), 32u);
  ASSERT_EQ(bytes[8], 1);  // the version field
  Result<Asset> old = read_archive(bytes, "archive_v1.marrow");
  ASSERT_TRUE(old.ok()) << old.error().message;
  Result<Asset> source = load_asset(dir + "archive_v1_source.gltf");
  ASSERT_TRUE(source.ok()) << source.error().message;
  expect_same_asset(*source, *old);
  ASSERT_EQ(old->clips.size(), 1u);
  EXPECT_TRUE(old->clips[0].weight_tracks().empty());
  EXPECT_EQ(old->clips[0].events().size(), 1u);
}

// An asset made in code with what the files above may lack: events, an explicit duration longer
// than the keys, ticks per second, a mesh without skin, a mesh on no node, warnings.
Asset handmade() {
  Asset a;
  a.source = "handmade";
  const JointDesc joints[] = {{"root", -1, Transform::identity()},
                              {"arm", 0, {{1, 2, 3}, {0, 0, 0.6f, 0.8f}, {1, 1, 2}}}};
  a.skeleton = Skeleton::build(joints, "handmade").value();
  a.source_index = {7, -1};
  ClipBuilder b("wave");
  b.set_ticks_per_second(4800);
  b.set_duration(3.5f);
  const float times[] = {0, 0.5f, 1};
  const float values[] = {0, 0, 0, 1, 0, 0, 2, 0, 0};
  EXPECT_TRUE(
      b.add_track(1, "arm", TrackTarget::kTranslation, Interpolation::kStep, times, values, "t")
          .ok());
  b.add_event(0.25f, "footstep");
  a.clips.push_back(b.build(2, "handmade").value());
  Skin skin;
  skin.name = "s";
  skin.joints = {1};
  skin.inverse_bind_matrices = {mat4_from_trs({-1, -2, -3}, Quat::identity(), {1, 1, 1})};
  skin.root_hint = 0;
  a.skins.push_back(skin);
  SkinnedMesh m;
  m.name = "tri";
  m.node = 1;
  m.skin = 0;
  m.positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  m.tangents = {{{1, 0, 0, -1}}, {{1, 0, 0, 1}}, {{1, 0, 0, 1}}};
  m.indices = {0, 1, 2};
  m.influence_offsets = {0, 1, 2, 3};
  m.influence_joints = {0, 0, 0};
  m.influence_weights = {1, 1, 1};
  a.meshes.push_back(m);
  SkinnedMesh rigid;
  rigid.name = "floating";
  rigid.positions = {{5, 5, 5}};
  rigid.uvs = {{{0.25f, 0.75f}}};
  a.meshes.push_back(rigid);
  a.warnings = {"one", "two"};
  return a;
}

TEST(Archive, KeepsEventsDurationTicksAndRigidMeshes) {
  const Asset a = handmade();
  Result<Bytes> bytes = archive_bytes(a);
  ASSERT_TRUE(bytes.ok()) << bytes.error().message;
  Result<Asset> back = read_archive(*bytes, "h.marrow");
  ASSERT_TRUE(back.ok()) << back.error().message;
  expect_same_asset(a, *back);
  EXPECT_EQ(back->clips[0].duration(), 3.5f);
  EXPECT_EQ(back->clips[0].ticks_per_second(), 4800.0);
}

TEST(Archive, HeaderIsWhatTheDocsSay) {
  Result<Bytes> bytes = archive_bytes(handmade());
  ASSERT_TRUE(bytes.ok());
  const Bytes& b = *bytes;
  ASSERT_GE(b.size(), kArchiveHeaderBytes);
  const std::uint8_t magic[8] = {0x89, 'M', 'R', 'W', '\r', '\n', 0x1A, '\n'};
  EXPECT_TRUE(std::equal(magic, magic + 8, b.begin()));
  auto u32 = [&](std::size_t at) {
    return std::uint32_t(b[at]) | std::uint32_t(b[at + 1]) << 8 | std::uint32_t(b[at + 2]) << 16 |
           std::uint32_t(b[at + 3]) << 24;
  };
  EXPECT_EQ(u32(8), 2u);   // version
  EXPECT_EQ(u32(12), 0u);  // flags
  EXPECT_EQ(u32(16), b.size() - 32);
  EXPECT_EQ(u32(20), 0u);
  EXPECT_EQ(u32(24), ::crc32(0, b.data() + 32, static_cast<unsigned>(b.size() - 32)));
  EXPECT_EQ(u32(28), ::crc32(0, b.data(), 28));
  // The first section is the skeleton: tag, 64-bit length, joint count 2, first name "root".
  EXPECT_EQ(std::string(b.begin() + 32, b.begin() + 36), "SKEL");
  EXPECT_EQ(u32(44), 2u);
  EXPECT_EQ(u32(48), 4u);
  EXPECT_EQ(std::string(b.begin() + 52, b.begin() + 56), "root");
}

TEST(Archive, FileIsChosenByExtensionAndByMagic) {
  TempDir dir("archive_file");
  const Asset a = handmade();
  const fs::path path = dir / "h.marrow";
  ASSERT_TRUE(write_archive(a, path.string()).ok());
  EXPECT_EQ(dir.files(), std::vector<std::string>{"h.marrow"});  // no temporary left behind
  Result<Asset> by_extension = load_asset(path.string());
  ASSERT_TRUE(by_extension.ok()) << by_extension.error().message;
  expect_same_asset(a, *by_extension);
  fs::rename(path, dir / "renamed.dat");
  Result<Asset> by_magic = load_asset((dir / "renamed.dat").string());
  ASSERT_TRUE(by_magic.ok()) << by_magic.error().message;
  expect_same_asset(a, *by_magic);
}

TEST(Archive, RefusesToWriteInconsistentMeshes) {
  Asset bad = handmade();
  bad.meshes[0].influence_offsets = {0, 2, 1, 3};  // decreasing
  Result<Bytes> bytes = archive_bytes(bad);
  ASSERT_FALSE(bytes.ok());
  EXPECT_NE(bytes.error().message.find("handmade: mesh 'tri': influence arrays are inconsistent"),
            std::string::npos)
      << bytes.error().message;
  bad = handmade();
  bad.meshes[1].normals = {{0, 0, 1}, {0, 0, 1}};  // two normals for one vertex
  bytes = archive_bytes(bad);
  ASSERT_FALSE(bytes.ok());
  EXPECT_NE(bytes.error().message.find("normal count differs"), std::string::npos)
      << bytes.error().message;
}

TEST(Archive, FailedWriteLeavesNothing) {
  TempDir dir("archive_fail");
  const std::string into_missing = (dir / "no_such_dir" / "x.marrow").string();
  const Status st = write_archive(handmade(), into_missing);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find(into_missing), std::string::npos) << st.error().message;
  EXPECT_TRUE(dir.files().empty());
}

}  // namespace
}  // namespace formats_test
