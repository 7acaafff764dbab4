// The .marrow archive keeps an Asset exactly: every joint, key, interpolation, tick rate,
// skin, mesh attribute and warning, for assets read from every importer.
#include <zlib.h>
#include "asset_compare.h"

#include "compiled_record.h"
#include "formats_test_util.h"
#include "marrow/clip/clip_builder.h"
#include "marrow/clip/compiled_sampling.h"
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

// tests/io/export/data/archive_v1.marrow was written by the archive code of format version 1
// (before morph targets) from archive_v1_source.gltf beside it: it must still load, and hold
// what the source holds.
TEST(Archive, VersionOneArchivesStillLoad) {
  const std::string dir = std::string(MARROW_SOURCE_DIR) + "/tests/io/export/data/";
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

// tests/io/export/data/archive_v2.marrow was written by the archive code of format version 2
// (morph targets, before compiled clips) from archive_v2_source.gltf beside it.
TEST(Archive, VersionTwoArchivesStillLoad) {
  const std::string dir = std::string(MARROW_SOURCE_DIR) + "/tests/io/export/data/";
  const Bytes bytes = read_file(dir + "archive_v2.marrow");
  ASSERT_GT(bytes.size(), 32u);
  ASSERT_EQ(bytes[8], 2);  // the version field
  Result<Asset> old = read_archive(bytes, "archive_v2.marrow");
  ASSERT_TRUE(old.ok()) << old.error().message;
  Result<Asset> source = load_asset(dir + "archive_v2_source.gltf");
  ASSERT_TRUE(source.ok()) << source.error().message;
  expect_same_asset(*source, *old);
  ASSERT_EQ(old->clips.size(), 1u);
  EXPECT_EQ(old->clips[0].weight_tracks().size(), 1u);
  ASSERT_EQ(old->meshes.size(), 1u);
  EXPECT_EQ(old->meshes[0].morph_targets.size(), 1u);
  EXPECT_TRUE(old->compiled_clips.empty());
  EXPECT_EQ(old->compiled_clip(0), nullptr);
}

// Two compiled clips, field for field as they were, sampling to the same bits.
void expect_same_compiled(const CompiledClip& a, const CompiledClip& b) {
  const CompiledClipData x = a.to_data(), y = b.to_data();
  EXPECT_EQ(x.name, y.name);
  EXPECT_EQ(x.duration, y.duration);
  EXPECT_EQ(x.joint_count, y.joint_count);
  EXPECT_EQ(x.sources, y.sources);
  EXPECT_EQ(x.constants, y.constants);
  EXPECT_EQ(x.segment_rate, y.segment_rate);
  EXPECT_EQ(x.frame_times, y.frame_times);
  EXPECT_EQ(x.ranges, y.ranges);
  EXPECT_EQ(x.frames, y.frames);
  EXPECT_EQ(x.keyed_times, y.keyed_times);
  EXPECT_EQ(x.keyed_values, y.keyed_values);
  ASSERT_EQ(x.segments.size(), y.segments.size());
  for (std::size_t i = 0; i < x.segments.size(); ++i) {
    EXPECT_EQ(x.segments[i].start_time, y.segments[i].start_time);
    EXPECT_EQ(x.segments[i].first_stream, y.segments[i].first_stream);
    EXPECT_EQ(x.segments[i].stream_count, y.segments[i].stream_count);
  }
  ASSERT_EQ(x.streams.size(), y.streams.size());
  for (std::size_t i = 0; i < x.streams.size(); ++i) {
    EXPECT_EQ(x.streams[i].sample_rate, y.streams[i].sample_rate);
    EXPECT_EQ(x.streams[i].frame_count, y.streams[i].frame_count);
    EXPECT_EQ(x.streams[i].frame_stride, y.streams[i].frame_stride);
    EXPECT_EQ(x.streams[i].first_byte, y.streams[i].first_byte);
  }
  ASSERT_EQ(x.track_groups.size(), y.track_groups.size());
  for (std::size_t i = 0; i < x.track_groups.size(); ++i) {
    EXPECT_EQ(x.track_groups[i].stream, y.track_groups[i].stream);
    EXPECT_EQ(x.track_groups[i].format, y.track_groups[i].format);
    EXPECT_EQ(x.track_groups[i].frame_offset, y.track_groups[i].frame_offset);
    EXPECT_EQ(x.track_groups[i].range_offset, y.track_groups[i].range_offset);
  }
  ASSERT_EQ(x.keyed.size(), y.keyed.size());
  for (std::size_t i = 0; i < x.keyed.size(); ++i) {
    EXPECT_EQ(x.keyed[i].joint, y.keyed[i].joint);
    EXPECT_EQ(x.keyed[i].channel, y.keyed[i].channel);
    EXPECT_EQ(x.keyed[i].interpolation, y.keyed[i].interpolation);
    EXPECT_EQ(x.keyed[i].key_count, y.keyed[i].key_count);
  }
  EXPECT_EQ(x.report.bound, y.report.bound);
  EXPECT_EQ(x.report.distance, y.report.distance);
  EXPECT_EQ(x.report.extent, y.report.extent);
  EXPECT_EQ(x.report.max_error, y.report.max_error);
  EXPECT_EQ(x.report.p99_error, y.report.p99_error);
  EXPECT_EQ(x.report.max_error_time, y.report.max_error_time);
  EXPECT_EQ(x.report.max_error_joint, y.report.max_error_joint);
  EXPECT_EQ(x.report.measured_times, y.report.measured_times);
  EXPECT_EQ(x.report.exact_bytes, y.report.exact_bytes);
  EXPECT_EQ(a.size_bytes(), b.size_bytes());
}

void expect_compiled_round_trip(const Asset& a) {
  Result<Bytes> bytes = archive_bytes(a);
  ASSERT_TRUE(bytes.ok()) << bytes.error().message;
  EXPECT_EQ((*bytes)[8], 7);
  Result<Asset> back = read_archive(*bytes, "compiled.marrow");
  ASSERT_TRUE(back.ok()) << back.error().message;
  expect_same_asset(a, *back);
  ASSERT_EQ(back->compiled_clips.size(), a.clips.size());
  for (std::size_t c = 0; c < a.clips.size(); ++c) {
    const CompiledClip *x = a.compiled_clip(c), *y = back->compiled_clip(c);
    ASSERT_NE(x, nullptr);
    ASSERT_NE(y, nullptr) << "clip " << c << " lost its compiled form";
    expect_same_compiled(*x, *y);
    // Both sample to the same bits, exact-key tracks included.
    const std::size_t groups = soa_group_count(a.skeleton.size());
    std::vector<SoaTransform> px(groups), py(groups);
    for (float t : {0.0f, 0.13f, 0.5f, 0.99f, x->duration()}) {
      for (auto [clip, out] : {std::pair{x, &px}, std::pair{y, &py}}) {
        CompiledSamplingJob job;
        job.clip = clip;
        job.time = t;
        job.rest_pose = a.skeleton.soa_rest_pose();
        job.output = *out;
        ASSERT_TRUE(job.run());
      }
      ASSERT_EQ(std::memcmp(px.data(), py.data(), groups * sizeof(SoaTransform)), 0) << t;
    }
  }
}

TEST(Archive, KeepsCompiledClipsExactly) {
  expect_compiled_round_trip(compiled_asset());
}

TEST(Archive, KeepsSoldiersCompiledClipsExactly) {
  const std::string path = shared_asset("gltf/Soldier.glb");
  MARROW_REQUIRE_FILE(path);
  Result<Asset> a = load_asset(path);
  ASSERT_TRUE(a.ok()) << a.error().message;
  for (const Clip& clip : a->clips) {
    Result<CompiledClip> c = CompiledClip::compile(clip, a->skeleton);
    ASSERT_TRUE(c.ok()) << c.error().message;
    a->compiled_clips.push_back(std::move(c).value());
  }
  expect_compiled_round_trip(*a);
}

// Clips without a compiled form (here the second) stay without one, and an archive none of whose
// clips has one reads back with no compiled clips at all.
TEST(Archive, ClipsWithoutCompiledFormsStayWithout) {
  Asset a = compiled_asset();
  a.compiled_clips[1].reset();
  Result<Bytes> bytes = archive_bytes(a);
  ASSERT_TRUE(bytes.ok()) << bytes.error().message;
  Result<Asset> back = read_archive(*bytes, "some.marrow");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_NE(back->compiled_clip(0), nullptr);
  EXPECT_EQ(back->compiled_clip(1), nullptr);
  a.compiled_clips.clear();
  bytes = archive_bytes(a);
  ASSERT_TRUE(bytes.ok());
  back = read_archive(*bytes, "none.marrow");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_TRUE(back->compiled_clips.empty());
}

TEST(Archive, RefusesToWriteACompiledClipOfAnotherClip) {
  Asset a = compiled_asset();
  std::swap(a.compiled_clips[0], a.compiled_clips[1]);  // each now sits beside the other's clip
  Result<Bytes> bytes = archive_bytes(a);
  ASSERT_FALSE(bytes.ok());
  EXPECT_NE(bytes.error().message.find("clip 0 'quantized': its compiled form was made from "
                                       "another clip or skeleton ('floats'"),
            std::string::npos)
      << bytes.error().message;
  EXPECT_EQ(a.compiled_clip(0), nullptr);  // nor does the asset hand it out
  a = compiled_asset();
  a.compiled_clips.push_back(a.compiled_clips[0]);
  bytes = archive_bytes(a);
  ASSERT_FALSE(bytes.ok());
  EXPECT_NE(bytes.error().message.find("4 compiled clips for 3 clips"), std::string::npos)
      << bytes.error().message;
}

// An asset made in code with what the files above may lack: events, an explicit duration longer
// than the keys, ticks per second, a mesh without skin, a mesh on no node, warnings.
Asset handmade_for_archive() {
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
  const Asset a = handmade_for_archive();
  Result<Bytes> bytes = archive_bytes(a);
  ASSERT_TRUE(bytes.ok()) << bytes.error().message;
  Result<Asset> back = read_archive(*bytes, "h.marrow");
  ASSERT_TRUE(back.ok()) << back.error().message;
  expect_same_asset(a, *back);
  EXPECT_EQ(back->clips[0].duration(), 3.5f);
  EXPECT_EQ(back->clips[0].ticks_per_second(), 4800.0);
}

TEST(Archive, HeaderIsWhatTheDocsSay) {
  Result<Bytes> bytes = archive_bytes(handmade_for_archive());
  ASSERT_TRUE(bytes.ok());
  const Bytes& b = *bytes;
  ASSERT_GE(b.size(), kArchiveHeaderBytes);
  const std::uint8_t magic[8] = {0x89, 'M', 'R', 'W', '\r', '\n', 0x1A, '\n'};
  EXPECT_TRUE(std::equal(magic, magic + 8, b.begin()));
  auto u32 = [&](std::size_t at) {
    return std::uint32_t(b[at]) | std::uint32_t(b[at + 1]) << 8 | std::uint32_t(b[at + 2]) << 16 |
           std::uint32_t(b[at + 3]) << 24;
  };
  EXPECT_EQ(u32(8), 7u);   // version
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
  const Asset a = handmade_for_archive();
  const fs::path path = dir / "h.marrow";
  ASSERT_TRUE(write_archive(a, path.string()).ok());
  EXPECT_EQ(dir.files(), std::vector<std::string>{"h.marrow"});  // no temporary left behind
  Result<Asset> by_extension = load_asset(path.string());
  ASSERT_TRUE(by_extension.ok()) << by_extension.error().message;
  expect_same_asset(a, *by_extension);
  fs::rename(path, dir / "renamed.dat");
  Result<Asset> by_magic = load_asset((dir / "renamed.dat").string());
  ASSERT_TRUE(by_magic.ok()) << by_magic.error().message;
  // Read by its content, with the note that says so ahead of the archive's own.
  ASSERT_FALSE(by_magic->warnings.empty());
  EXPECT_EQ(by_magic->warnings.front(),
            "its content is a marrow archive, not what the name's '.dat' says: read as what it is");
  by_magic->warnings.erase(by_magic->warnings.begin());
  expect_same_asset(a, *by_magic);
}

TEST(Archive, RefusesToWriteInconsistentMeshes) {
  Asset bad = handmade_for_archive();
  bad.meshes[0].influence_offsets = {0, 2, 1, 3};  // decreasing
  Result<Bytes> bytes = archive_bytes(bad);
  ASSERT_FALSE(bytes.ok());
  EXPECT_NE(bytes.error().message.find("handmade: mesh 'tri': influence arrays are inconsistent"),
            std::string::npos)
      << bytes.error().message;
  bad = handmade_for_archive();
  bad.meshes[1].normals = {{0, 0, 1}, {0, 0, 1}};  // two normals for one vertex
  bytes = archive_bytes(bad);
  ASSERT_FALSE(bytes.ok());
  EXPECT_NE(bytes.error().message.find("normal count differs"), std::string::npos)
      << bytes.error().message;
}

TEST(Archive, FailedWriteLeavesNothing) {
  TempDir dir("archive_fail");
  const std::string into_missing = (dir / "no_such_dir" / "x.marrow").string();
  const Status st = write_archive(handmade_for_archive(), into_missing);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find(into_missing), std::string::npos) << st.error().message;
  EXPECT_TRUE(dir.files().empty());
}

}  // namespace
}  // namespace formats_test
