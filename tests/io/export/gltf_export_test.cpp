// glTF export: every exported file passes the Khronos glTF Validator with zero errors, and reads
// back through our glTF reader with the same skeleton, keys, interpolations, skins, meshes and
// poses.
#include "marrow/io/gltf_export.h"
#include "asset_compare.h"
#include "formats_test_util.h"
#include "marrow/clip/clip_builder.h"
#include "marrow/io/gltf.h"

namespace formats_test {
namespace {

using namespace marrow;

// Three joints; a clip with one track of each interpolation (a cubic spline rotation, a step
// scale, a linear translation) and a one-key linear track; a mesh whose first vertex has six
// influences (so JOINTS_1/WEIGHTS_1 are needed) given unnormalized and with one joint twice.
Asset handmade_for_gltf() {
  Asset a;
  a.source = "handmade";
  const JointDesc joints[] = {{"root", -1, Transform::identity()},
                              {"upper", 0, {{0, 1, 0}, {0, 0, 0.6f, 0.8f}, {1, 1, 1}}},
                              {"lower", 1, {{0, 1, 0}, {0, 0, 0, 1}, {2, 2, 2}}},
                              {"hand", 2, {{0, 0.5f, 0}, {0, 0, 0, 1}, {1, 1, 1}}},
                              {"finger", 3, {{0, 0.25f, 0}, {0, 0, 0, 1}, {1, 1, 1}}}};
  a.skeleton = Skeleton::build(joints, "handmade").value();
  a.source_index = {0, 1, 2, 3, 4};
  ClipBuilder b("bend");
  // Kept in extras.marrow: a duration past the last key, ticks per second, events.
  b.set_duration(2.0f);
  b.set_ticks_per_second(4800);
  b.add_event(0.75f, "footstep");
  const float t3[] = {0, 0.5f, 1.25f};
  const float rot[] = {
      0, 0, 0,     0, 0, 0, 0,           1,           0, 0, 0.1f, 0,   // in, value, out for key 0
      0, 0, -0.2f, 0, 0, 0, 0.38268343f, 0.9238795f,  0, 0, 0.2f, 0,   // key 1
      0, 0, 0,     0, 0, 0, 0.70710677f, 0.70710677f, 0, 0, 0,    0};  // key 2
  EXPECT_TRUE(
      b.add_track(1, "upper", TrackTarget::kRotation, Interpolation::kCubicSpline, t3, rot, "t")
          .ok());
  const float scales[] = {1, 1, 1, 2, 2, 2, 1, 1, 1};
  EXPECT_TRUE(
      b.add_track(2, "lower", TrackTarget::kScale, Interpolation::kStep, t3, scales, "t").ok());
  const float t2[] = {0.25f, 1};
  const float moves[] = {0, 0, 0, 3, 0, 0};
  EXPECT_TRUE(
      b.add_track(0, "root", TrackTarget::kTranslation, Interpolation::kLinear, t2, moves, "t")
          .ok());
  const float t1[] = {0.5f};
  const float one[] = {0, 2, 0};
  EXPECT_TRUE(
      b.add_track(2, "lower", TrackTarget::kTranslation, Interpolation::kLinear, t1, one, "t")
          .ok());
  a.clips.push_back(b.build(5, "handmade").value());

  Skin skin;
  skin.name = "body";
  skin.joints = {0, 1, 2, 3, 4};
  for (JointIndex j = 0; j < 5; ++j)
    skin.inverse_bind_matrices.push_back(
        mat4_from_trs({0, -float(j), 0}, Quat::identity(), {1, 1, 1}));
  a.skins.push_back(skin);
  SkinnedMesh m;
  m.name = "strip";
  m.node = 0;
  m.skin = 0;
  m.positions = {{0, 0, 0}, {1, 0, 0}, {0, 2, 0}, {1, 2, 0}};
  m.normals = {{0, 0, 2}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1}};  // the first one not unit length
  m.uvs = {{{0, 0}}, {{1, 0}}, {{0, 1}}, {{1, 1}}};
  m.tangents = {{{1, 0, 0, 1}}, {{1, 0, 0, -1}}, {{1, 0, 0, 1}}, {{1, 0, 0, 1}}};
  m.indices = {0, 1, 2, 2, 1, 3};
  // vertex 0: six influences (joint 2 twice, summing to 0.3); others: one or two
  m.influence_offsets = {0, 6, 7, 9, 10};
  m.influence_joints = {0, 1, 2, 2, 0, 1, 1, 1, 2, 2};
  m.influence_weights = {0.2f, 0.2f, 0.1f, 0.2f, 0.1f, 0.2f, 0.5f, 0.5f, 0.5f, 1};
  a.meshes.push_back(m);
  return a;
}

Asset reread(const fs::path& path) {
  Result<Asset> r = read_gltf(path.string());
  EXPECT_TRUE(r.ok()) << r.error().message;
  return r.ok() ? std::move(r).value() : Asset{};
}

void expect_same_structure(const Asset& a, const Asset& b) {
  ASSERT_EQ(a.skeleton.size(), b.skeleton.size());
  for (std::size_t j = 0; j < a.skeleton.size(); ++j) {
    EXPECT_EQ(a.skeleton.name(j), b.skeleton.name(j));
    EXPECT_EQ(a.skeleton.parent(j), b.skeleton.parent(j));
  }
  ASSERT_EQ(a.clips.size(), b.clips.size());
  for (std::size_t c = 0; c < a.clips.size(); ++c) {
    const Clip &x = a.clips[c], &y = b.clips[c];
    EXPECT_EQ(x.name(), y.name());
    ASSERT_EQ(x.tracks().size(), y.tracks().size());
    for (std::size_t t = 0; t < x.tracks().size(); ++t) {
      EXPECT_EQ(x.tracks()[t].joint, y.tracks()[t].joint);
      EXPECT_EQ(x.tracks()[t].target, y.tracks()[t].target);
      if (x.tracks()[t].key_count > 1 ||
          x.tracks()[t].interpolation != Interpolation::kCubicSpline) {
        EXPECT_EQ(x.tracks()[t].interpolation, y.tracks()[t].interpolation) << x.name() << " " << t;
      }
      EXPECT_EQ(x.tracks()[t].key_count, y.tracks()[t].key_count);
    }
  }
  ASSERT_EQ(a.skins.size(), b.skins.size());
  for (std::size_t s = 0; s < a.skins.size(); ++s) EXPECT_EQ(a.skins[s].joints, b.skins[s].joints);
}

void expect_same_poses(const Asset& a, const Asset& b, float relative = 1e-5f) {
  const int clips = static_cast<int>(a.clips.size());
  for (int c = clips == 0 ? -1 : 0; c < std::max(clips, 0); ++c) {
    const float duration = c < 0 ? 0.f : a.clips[static_cast<std::size_t>(c)].duration();
    const float extent = std::max(extent_of(a, c), 1e-3f);
    const float diff = max_pose_difference(a, c, b, c, times_over(duration));
    EXPECT_LE(diff, relative * extent) << "clip " << c << ": extent " << extent;
  }
}

TEST(GltfExport, HandmadeAssetAllThreeContainers) {
  TempDir dir("export_handmade");
  const Asset a = handmade_for_gltf();
  std::vector<std::string> notes;
  ASSERT_TRUE(write_gltf(a, (dir / "h.glb").string(), {}, &notes).ok());
  ASSERT_TRUE(write_gltf(a, (dir / "side car.gltf").string()).ok());
  GltfExportOptions embed;
  embed.embed_buffer = true;
  ASSERT_TRUE(write_gltf(a, (dir / "e.gltf").string(), embed).ok());
  EXPECT_EQ(dir.files(),
            (std::vector<std::string>{"e.gltf", "h.glb", "side car.bin", "side car.gltf"}));
  for (const char* name : {"h.glb", "side car.gltf", "e.gltf"}) {
    SCOPED_TRACE(name);
    const Asset b = reread(dir / name);
    expect_same_structure(a, b);
    expect_same_poses(a, b, 1e-6f);
    // Keys come back bit for bit, interpolations and all.
    expect_same_clip(a.clips[0], b.clips[0]);
    EXPECT_EQ(b.clips[0].tracks()[1].interpolation, Interpolation::kCubicSpline);
    EXPECT_EQ(b.skins[0].inverse_bind_matrices, a.skins[0].inverse_bind_matrices);
    ASSERT_EQ(b.meshes.size(), 1u);
    const SkinnedMesh& m = b.meshes[0];
    EXPECT_EQ(m.positions, a.meshes[0].positions);
    EXPECT_EQ(m.indices, a.meshes[0].indices);
    EXPECT_EQ(m.uvs, a.meshes[0].uvs);
    EXPECT_EQ(m.normals[0], (Vec3{0, 0, 1}));  // normalized as glTF requires
    EXPECT_EQ(m.tangents[1][3], -1.f);
    // Vertex 0: each joint's two entries merged (joint 0: 0.2 + 0.1, joint 1: 0.2 + 0.2,
    // joint 2: 0.1 + 0.2); weights sum to one, strongest first.
    ASSERT_EQ(m.influence_offsets[1], 3u);
    EXPECT_EQ(m.influence_joints[0], 1);
    EXPECT_NEAR(m.influence_weights[0], 0.4f, 1e-6f);
    EXPECT_NEAR(m.influence_weights[1], 0.3f, 1e-6f);
    EXPECT_NEAR(m.influence_weights[2], 0.3f, 1e-6f);
    EXPECT_EQ(m.influence_offsets[2] - m.influence_offsets[1], 1u);
    EXPECT_NEAR(m.influence_weights[m.influence_offsets[1]], 1.f, 1e-7f);
  }
  // Last, since it skips the test where the validator is unavailable.
  for (const char* name : {"h.glb", "side car.gltf", "e.gltf"})
    MARROW_EXPECT_VALID_GLTF(dir / name);
}

TEST(GltfExport, MoreThanFourInfluencesUseASecondSet) {
  TempDir dir("export_sets");
  Asset a = handmade_for_gltf();
  // Vertex 0 gets five distinct joints (joint 1 twice, merged).
  SkinnedMesh& m = a.meshes[0];
  m.influence_joints = {0, 1, 2, 3, 4, 1, 1, 1, 2, 2};
  ASSERT_TRUE(write_gltf(a, (dir / "five.glb").string()).ok());
  const Bytes glb = read_file(dir / "five.glb");
  const std::uint32_t json_length = glb[12] | glb[13] << 8 | glb[14] << 16 | glb[15] << 24;
  const nlohmann::json doc =
      nlohmann::json::parse(glb.begin() + 20, glb.begin() + 20 + json_length);
  const nlohmann::json& attributes = doc["meshes"][0]["primitives"][0]["attributes"];
  EXPECT_TRUE(attributes.contains("JOINTS_1"));
  EXPECT_TRUE(attributes.contains("WEIGHTS_1"));
  EXPECT_FALSE(attributes.contains("JOINTS_2"));
  const Asset b = reread(dir / "five.glb");
  EXPECT_EQ(b.meshes[0].influence_offsets[1], 5u);  // joint 1 appears twice and is merged
  MARROW_EXPECT_VALID_GLTF(dir / "five.glb");
}

void expect_exports_cleanly(const std::string& path) {
  MARROW_REQUIRE_FILE(path);
  Result<Asset> original = load_asset(path);
  ASSERT_TRUE(original.ok()) << original.error().message;
  TempDir dir("export_real");
  const fs::path out = dir / "out.glb";
  std::vector<std::string> notes;
  const Status st = write_gltf(*original, out.string(), {}, &notes);
  ASSERT_TRUE(st.ok()) << st.error().message;
  for (const std::string& n : notes) std::cout << "note: " << n << "\n";
  const Asset back = reread(out);
  expect_same_structure(*original, back);
  expect_same_poses(*original, back);
  MARROW_EXPECT_VALID_GLTF(out);
}

TEST(GltfExport, SoldierGlb) {
  expect_exports_cleanly(shared_asset("gltf/Soldier.glb"));
}
TEST(GltfExport, CesiumMan) {
  expect_exports_cleanly(shared_asset("gltf/cesium_man.gltf"));
}
TEST(GltfExport, InterpolationTest) {
  expect_exports_cleanly(shared_asset("gltf/interpolation_test.gltf"));
}
TEST(GltfExport, TestwusonX) {
  expect_exports_cleanly(shared_asset("x/Testwuson.X"));
}
TEST(GltfExport, Bvh) {
  expect_exports_cleanly(shared_asset("bvh/01_01.bvh"));
}
TEST(GltfExport, Fbx) {
  expect_exports_cleanly(shared_asset("fbx/walk.fbx"));
}

// OBJ's static meshes: rigid meshes under the file's root joint, valid glTF, same vertices.
TEST(GltfExport, ObjMeshes) {
  TempDir dir("export_obj");
  write_text(dir / "two.obj",
             "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nvn 0 0 1\n"
             "o quad\nf 1/1/1 2/2/1 3/3/1 4/4/1\no tri\nf 1 2 4\n");
  Result<Asset> obj = load_asset((dir / "two.obj").string());
  ASSERT_TRUE(obj.ok()) << obj.error().message;
  ASSERT_TRUE(write_gltf(*obj, (dir / "two.glb").string()).ok());
  const Asset back = reread(dir / "two.glb");
  ASSERT_EQ(back.skeleton.size(), 1u);
  EXPECT_EQ(back.skeleton.name(0), "two");
  ASSERT_EQ(back.meshes.size(), 2u);  // two primitives of one glTF mesh on the root node
  for (std::size_t m = 0; m < 2; ++m) {
    EXPECT_EQ(back.meshes[m].positions, obj->meshes[m].positions);
    EXPECT_EQ(back.meshes[m].indices, obj->meshes[m].indices);
    EXPECT_EQ(back.meshes[m].uvs, obj->meshes[m].uvs);
    EXPECT_EQ(back.meshes[m].skin, -1);
  }
  MARROW_EXPECT_VALID_GLTF(dir / "two.glb");
}

// A skin over two roots of a forest: glTF wants a common root, so one is added above them; the
// original joints keep their poses.
TEST(GltfExport, SkinOverAForestGetsACommonRoot) {
  Asset a = handmade_for_gltf();
  const JointDesc joints[] = {{"left", -1, {{-1, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}}},
                              {"right", -1, {{1, 0, 0}, {0, 0, 0.6f, 0.8f}, {1, 1, 1}}},
                              {"tip", 1, {{0, 2, 0}, {0, 0, 0, 1}, {1, 1, 1}}},
                              {"x", 0, Transform::identity()},
                              {"y", 3, Transform::identity()}};
  a.skeleton = Skeleton::build(joints, "forest").value();
  a.skins[0].root_hint = kNoParent;
  TempDir dir("export_forest");
  std::vector<std::string> notes;
  ASSERT_TRUE(write_gltf(a, (dir / "forest.glb").string(), {}, &notes).ok());
  ASSERT_FALSE(notes.empty());
  EXPECT_NE(notes[0].find("marrow_root"), std::string::npos) << notes[0];
  const Asset b = reread(dir / "forest.glb");
  ASSERT_EQ(b.skeleton.size(), a.skeleton.size() + 1);
  EXPECT_EQ(b.skeleton.name(0), "marrow_root");
  const std::vector<float> times = {0, 0.3f, 0.9f};
  const PoseSamples pa = sample_world(a, 0, times), pb = sample_world(b, 0, times);
  for (std::size_t s = 0; s < times.size(); ++s) {
    for (std::size_t j = 0; j < a.skeleton.size(); ++j) {
      const JointIndex k = *b.skeleton.find(a.skeleton.name(j));
      for (int e = 0; e < 16; ++e)
        EXPECT_NEAR(pa.world[s][j].m[static_cast<std::size_t>(e)],
                    pb.world[s][k].m[static_cast<std::size_t>(e)], 1e-6f);
    }
  }
  EXPECT_EQ(b.skins[0].joints, (std::vector<JointIndex>{1, 2, 3, 4, 5}));
  MARROW_EXPECT_VALID_GLTF(dir / "forest.glb");
}

// Every other file of ../shared/assets that loads (the ones above have tests of their own; the
// malformed .x must fail) exports to a valid .glb, checked in one validator run.
TEST(GltfExport, EveryOtherSharedAsset) {
  const std::vector<std::string> names = {"gltf/Xbot.glb",
                                          "gltf/box_animated.gltf",
                                          "gltf/quad_skin.glb",
                                          "gltf/rigged_simple.gltf",
                                          "gltf/simple_skin.gltf",
                                          "gltf/triangle.gltf",
                                          "x/anim_test.x",
                                          "x/test.x",
                                          "fbx/animation_with_skeleton.fbx",
                                          "fbx/arnaud.fbx",
                                          "fbx/crossarms.fbx",
                                          "fbx/jog.fbx",
                                          "fbx/run.fbx",
                                          "fbx/skeleton.fbx",
                                          "collada/pab/skeleton.dae"};
  TempDir dir("export_all");
  std::vector<fs::path> written;
  for (const std::string& name : names) {
    const std::string path = shared_asset(name);
    if (!fs::exists(path)) continue;
    Result<Asset> a = load_asset(path);
    ASSERT_TRUE(a.ok()) << a.error().message;
    const fs::path out = dir / (fs::path(name).filename().string() + ".glb");
    const Status st = write_gltf(*a, out.string());
    ASSERT_TRUE(st.ok()) << st.error().message;
    const Asset back = reread(out);
    EXPECT_EQ(back.clips.size(), a->clips.size()) << name;
    written.push_back(out);
  }
  if (written.empty()) GTEST_SKIP() << "../shared/assets is absent";
  const Validation v = validate_gltf(written);
  if (!v.ran) GTEST_SKIP() << "the validator is unavailable: " << v.report;
  EXPECT_EQ(v.errors, 0) << v.report;
  Result<Asset> bad = load_asset(shared_asset("x/malformed_skinweights_oob.x"));
  EXPECT_FALSE(bad.ok());
}

// extras are free-form: what does not fit marrow's shape is skipped with a warning, not an error.
TEST(GltfExport, MalformedMarrowExtrasAreWarnings) {
  TempDir dir("extras");
  Asset a = handmade_for_gltf();
  ASSERT_TRUE(write_gltf(a, (dir / "e.gltf").string(), {.embed_buffer = true}).ok());
  const Bytes bytes = read_file(dir / "e.gltf");
  nlohmann::json doc = nlohmann::json::parse(bytes.begin(), bytes.end());
  doc["animations"][0]["extras"]["marrow"] = {
      {"duration", "long"}, {"ticksPerSecond", -5}, {"events", {{{"time", -1}, {"name", "x"}}}}};
  write_text(dir / "e.gltf", doc.dump());
  Result<Asset> r = read_gltf((dir / "e.gltf").string());
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->clips[0].duration(), 1.25f);  // the last key
  EXPECT_EQ(r->clips[0].ticks_per_second(), 0.0);
  EXPECT_TRUE(r->clips[0].events().empty());
  std::string warnings;
  for (const std::string& w : r->warnings) warnings += w + "\n";
  EXPECT_NE(warnings.find("extras.marrow.duration is not a duration"), std::string::npos)
      << warnings;
  EXPECT_NE(warnings.find("ticksPerSecond is not a rate"), std::string::npos) << warnings;
  EXPECT_NE(warnings.find("a malformed event is ignored"), std::string::npos) << warnings;
}

// The validator check can fail: a node rotation of length 1.13 is an error it reports.
TEST(GltfExport, TheValidatorCatchesAnInvalidFile) {
  TempDir dir("validator_negative");
  write_text(dir / "bad.gltf",
             R"({"asset": {"version": "2.0"}, "nodes": [{"rotation": [0, 0, 0.8, 0.8]}]})");
  const Validation v = validate_gltf(dir / "bad.gltf");
  if (!v.ran) GTEST_SKIP() << "the validator is unavailable: " << v.report;
  EXPECT_GT(v.errors, 0) << v.report;
  EXPECT_NE(v.report.find("ROTATION_NON_UNIT"), std::string::npos) << v.report;
}

TEST(GltfExport, FailureLeavesNoFile) {
  TempDir dir("export_fail");
  Asset a = handmade_for_gltf();
  a.meshes[0].indices.push_back(99);  // past the last vertex, and not a whole triangle
  const Status st = write_gltf(a, (dir / "bad.glb").string());
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("handmade: mesh 0 'strip'"), std::string::npos)
      << st.error().message;
  EXPECT_TRUE(dir.files().empty());
  Asset inconsistent = handmade_for_gltf();
  inconsistent.meshes[0].influence_offsets[2] = 99;  // past the influences
  const Status st2 = write_gltf(inconsistent, (dir / "bad.glb").string());
  ASSERT_FALSE(st2.ok());
  EXPECT_NE(st2.error().message.find("influence arrays are inconsistent"), std::string::npos);
  const Status unwritable = write_gltf(handmade_for_gltf(), (dir / "missing" / "x.gltf").string());
  ASSERT_FALSE(unwritable.ok());
  EXPECT_TRUE(dir.files().empty());
}

}  // namespace
}  // namespace formats_test
