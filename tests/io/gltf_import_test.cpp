// The glTF importer on small documents made in the test: buffers as data URIs, external files
// and GLB chunks; node matrices and TRS; skins; every accessor component type (normalized
// integers per glTF 2.0 §3.11), byte strides, sparse accessors, several JOINTS_n/WEIGHTS_n sets,
// triangle strips and fans, animation names. Expected values are worked out by hand from the
// spec. The real assets load too.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>

#include "gltf_test_util.h"
#include "marrow/io/pose_dump.h"

namespace fs = std::filesystem;
using namespace gltf_test;
using marrow::Asset;
using marrow::Interpolation;
using marrow::JointIndex;
using marrow::kNoParent;
using marrow::Mat4;
using marrow::SkinnedMesh;
using marrow::TrackTarget;
using marrow::Vec3;

namespace {

constexpr float kEps = 1e-6f;

void expect_vec3(Vec3 actual, Vec3 expected, float eps = kEps) {
  EXPECT_NEAR(actual.x, expected.x, eps);
  EXPECT_NEAR(actual.y, expected.y, eps);
  EXPECT_NEAR(actual.z, expected.z, eps);
}

void expect_positions(const SkinnedMesh& mesh, const std::vector<Vec3>& expected,
                      float eps = kEps) {
  ASSERT_EQ(mesh.positions.size(), expected.size()) << mesh.name;
  for (std::size_t v = 0; v < expected.size(); ++v) {
    SCOPED_TRACE(mesh.name + " vertex " + std::to_string(v));
    expect_vec3(mesh.positions[v], expected[v], eps);
  }
}

JointIndex joint(const Asset& asset, std::int64_t node) {
  const auto j = asset.joint_of_source(node);
  EXPECT_TRUE(j.has_value()) << "node " << node;
  return j.value_or(0);
}

// A triangle with normals, UVs and 16-bit indices, on node 0.
Builder triangle_document() {
  Builder b;
  const int pos = b.floats({0, 0, 0, 1, 0, 0, 0, 1, 0}, "VEC3");
  const int nrm = b.floats({0, 0, 1, 0, 0, 1, 0, 0, 1}, "VEC3");
  const int uv = b.floats({0, 0, 1, 0, 0, 1}, "VEC2");
  const int idx = b.add<std::uint16_t>({0, 1, 2}, "SCALAR");
  b.doc["meshes"] = {{{"name", "tri"},
                      {"primitives",
                       {{{"attributes", {{"POSITION", pos}, {"NORMAL", nrm}, {"TEXCOORD_0", uv}}},
                         {"indices", idx}}}}}};
  b.node({{"name", "holder"}, {"mesh", 0}, {"translation", {1, 2, 3}}});
  return b;
}

void expect_triangle(const Asset& asset) {
  ASSERT_EQ(asset.skeleton.size(), 1u);
  EXPECT_EQ(asset.skeleton.name(0), "holder");
  ASSERT_EQ(asset.meshes.size(), 1u);
  const SkinnedMesh& mesh = asset.meshes[0];
  EXPECT_EQ(mesh.name, "tri");
  EXPECT_EQ(mesh.node, 0);
  EXPECT_EQ(mesh.skin, -1);
  expect_positions(mesh, {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}});
  ASSERT_EQ(mesh.normals.size(), 3u);
  for (const Vec3& n : mesh.normals) expect_vec3(n, {0, 0, 1});
  ASSERT_EQ(mesh.uvs.size(), 3u);
  EXPECT_EQ(mesh.uvs[1], (std::array<float, 2>{1, 0}));
  EXPECT_EQ(mesh.uvs[2], (std::array<float, 2>{0, 1}));
  EXPECT_EQ(mesh.indices, (std::vector<std::uint32_t>{0, 1, 2}));
  EXPECT_TRUE(mesh.influence_offsets.empty());
  expect_vec3(asset.skeleton.rest_pose()[0].translation, {1, 2, 3});
}

TEST(GltfImport, DataUriBuffer) {
  const Builder b = triangle_document();
  const Asset asset = load(b.gltf_text());
  EXPECT_EQ(asset.source, "t.gltf");
  expect_triangle(asset);
  EXPECT_TRUE(asset.clips.empty());
  EXPECT_TRUE(asset.warnings.empty());
}

TEST(GltfImport, ExternalBinBuffersBesideTheFile) {
  const Builder b = triangle_document();
  TempDir dir("external");
  // Percent-encoded URI: the file name has a space.
  write_file(dir / "tri data.bin", b.bin);
  Json doc = b.doc;
  doc["buffers"] = Json::array({{{"byteLength", b.bin.size()}, {"uri", "tri%20data.bin"}}});
  const std::string text = doc.dump(2);

  marrow::Result<Asset> from_memory = read_text(text, "mem.gltf", dir.path().string());
  ASSERT_TRUE(from_memory.ok()) << from_memory.error().message;
  expect_triangle(*from_memory);

  write_file(dir / "tri.gltf", to_bytes(text));
  marrow::Result<Asset> from_file = marrow::read_gltf((dir / "tri.gltf").string());
  ASSERT_TRUE(from_file.ok()) << from_file.error().message;
  expect_triangle(*from_file);
  marrow::Result<Asset> loaded = marrow::load_asset((dir / "tri.gltf").string());
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  expect_triangle(*loaded);
  EXPECT_EQ(loaded->source, (dir / "tri.gltf").string());
}

TEST(GltfImport, ExternalAndDataUriBuffersMixed) {
  // buffers[0] is an external file holding the positions; buffers[1] a data URI holding the
  // indices, 2 bytes into it.
  TempDir dir("mixed");
  const Bytes positions = bytes_of(std::vector<float>{0, 0, 0, 2, 0, 0, 0, 2, 0});
  write_file(dir / "p.bin", positions);
  Bytes index_bytes = {0xEE, 0xEE};
  for (std::uint8_t i : {2, 1, 0}) index_bytes.push_back(i);
  Json doc = {{"asset", {{"version", "2.0"}}},
              {"buffers",
               {{{"byteLength", positions.size()}, {"uri", "p.bin"}},
                {{"byteLength", index_bytes.size()}, {"uri", data_uri(index_bytes)}}}},
              {"bufferViews",
               {{{"buffer", 0}, {"byteLength", positions.size()}},
                {{"buffer", 1}, {"byteOffset", 2}, {"byteLength", 3}}}},
              {"accessors",
               {{{"bufferView", 0}, {"componentType", kFloat}, {"count", 3}, {"type", "VEC3"}},
                {{"bufferView", 1}, {"componentType", kUByte}, {"count", 3}, {"type", "SCALAR"}}}},
              {"meshes", {{{"primitives", {{{"attributes", {{"POSITION", 0}}}, {"indices", 1}}}}}}},
              {"nodes", {{{"mesh", 0}}}}};
  marrow::Result<Asset> asset = read_text(doc.dump(), "mixed.gltf", dir.path().string());
  ASSERT_TRUE(asset.ok()) << asset.error().message;
  ASSERT_EQ(asset->meshes.size(), 1u);
  expect_positions(asset->meshes[0], {{0, 0, 0}, {2, 0, 0}, {0, 2, 0}});
  EXPECT_EQ(asset->meshes[0].indices, (std::vector<std::uint32_t>{2, 1, 0}));
}

TEST(GltfImport, Glb) {
  const Builder b = triangle_document();
  expect_triangle(load_glb(b.glb_bytes()));

  // An unknown chunk between JSON and BIN is skipped; the BIN chunk still feeds buffers[0].
  Json doc = b.doc;
  doc["buffers"] = Json::array({{{"byteLength", b.bin.size()}}});
  const Bytes with_extra = glb(
      {{kChunkJson, to_bytes(doc.dump())}, {0x5A5A5A5A, Bytes{1, 2, 3, 4, 5}}, {kChunkBin, b.bin}});
  expect_triangle(load_glb(with_extra));

  // A GLB without a BIN chunk, its buffer given as a data URI.
  expect_triangle(load_glb(glb({{kChunkJson, to_bytes(b.gltf_text())}})));

  // GLB content is recognized by its magic whatever the name says.
  expect_triangle(load_glb(b.glb_bytes(), "renamed.gltf"));
}

TEST(GltfImport, GlbFromFileViaLoadAsset) {
  TempDir dir("glbfile");
  write_file(dir / "tri.glb", triangle_document().glb_bytes());
  // No extension: the magic picks the glTF reader.
  write_file(dir / "tri_noext", triangle_document().glb_bytes());
  for (const char* name : {"tri.glb", "tri_noext"}) {
    marrow::Result<Asset> asset = marrow::load_asset((dir / name).string());
    ASSERT_TRUE(asset.ok()) << asset.error().message;
    expect_triangle(*asset);
  }
}

TEST(GltfImport, NodeMatrixAndTrsGiveTheSameTransform) {
  // T = (1, 2, 3), R = 90 degrees about +Z, S = 2: the matrix columns are R*S*e_i and T.
  const float h = std::sqrt(0.5f);
  Builder b;
  b.node({{"name", "by_matrix"},
          {"matrix", {0, 2, 0, 0, -2, 0, 0, 0, 0, 0, 2, 0, 1, 2, 3, 1}},
          {"children", {2}}});
  b.node({{"name", "by_trs"},
          {"translation", {1, 2, 3}},
          {"rotation", {0, 0, h, h}},
          {"scale", {2, 2, 2}},
          {"children", {3}}});
  b.node({{"name", "child_a"}, {"translation", {1, 0, 0}}});
  b.node({{"name", "child_b"}, {"translation", {1, 0, 0}}});
  b.node({{"name", "plain"}});
  // Shear cannot be held by TRS: the nearest TRS is used, with a warning.
  b.node({{"name", "sheared"}, {"matrix", {1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}}});
  const Asset asset = load(b.gltf_text());
  ASSERT_EQ(asset.skeleton.size(), 6u);

  for (std::int64_t node : {0, 1}) {
    SCOPED_TRACE("node " + std::to_string(node));
    const marrow::Transform& t = asset.skeleton.rest_pose()[joint(asset, node)];
    expect_vec3(t.translation, {1, 2, 3}, 1e-5f);
    // q and -q are the same rotation.
    const float sign = t.rotation.w < 0 ? -1.0f : 1.0f;
    EXPECT_NEAR(sign * t.rotation.x, 0, 1e-5f);
    EXPECT_NEAR(sign * t.rotation.y, 0, 1e-5f);
    EXPECT_NEAR(sign * t.rotation.z, h, 1e-5f);
    EXPECT_NEAR(sign * t.rotation.w, h, 1e-5f);
    expect_vec3(t.scale, {2, 2, 2}, 1e-5f);
  }
  EXPECT_EQ(asset.skeleton.rest_pose()[joint(asset, 4)], marrow::Transform::identity());

  // The children sit at T + R*S*(1, 0, 0) = (1, 4, 3).
  const std::vector<float> times = {0};
  const marrow::PoseSamples pose = marrow::sample_world(asset, -1, times);
  expect_vec3(pose.world[0][joint(asset, 2)].translation(), {1, 4, 3}, 1e-5f);
  expect_vec3(pose.world[0][joint(asset, 3)].translation(), {1, 4, 3}, 1e-5f);

  ASSERT_EQ(asset.warnings.size(), 1u);
  EXPECT_NE(asset.warnings[0].find("nodes[5].matrix"), std::string::npos) << asset.warnings[0];
}

TEST(GltfImport, ChildrenBeforeParentsAreReordered) {
  // node 0 is a child of node 2, node 2 a child of node 1; node 3 is a second root.
  Builder b;
  b.node({{"name", "leaf"}});
  b.node({{"name", "root"}, {"children", {2}}});
  b.node({{"name", "mid"}, {"children", {0}}});
  b.node({{"name", "other_root"}});
  const Asset asset = load(b.gltf_text());
  ASSERT_EQ(asset.skeleton.size(), 4u);
  const JointIndex leaf = joint(asset, 0), root = joint(asset, 1), mid = joint(asset, 2);
  EXPECT_EQ(asset.skeleton.parent(root), kNoParent);
  EXPECT_EQ(asset.skeleton.parent(mid), root);
  EXPECT_EQ(asset.skeleton.parent(leaf), mid);
  EXPECT_EQ(asset.skeleton.parent(joint(asset, 3)), kNoParent);
  for (std::size_t j = 0; j < asset.skeleton.size(); ++j) {
    if (asset.skeleton.parent(j) != kNoParent) {
      EXPECT_LT(asset.skeleton.parent(j), j);
    }
    EXPECT_EQ(joint(asset, asset.source_index[j]), j);
  }
  EXPECT_EQ(asset.skeleton.name(leaf), "leaf");
  EXPECT_EQ(marrow::joints_in_source_order(asset),
            (std::vector<JointIndex>{leaf, root, mid, joint(asset, 3)}));
}

// node 0 "scene" (not a joint) -> 1 "hips" (joint) -> 2 "twist" (not a joint) -> 3 "hand"
// (joint); node 4 "loose" is a joint in a tree of its own; node 5 carries the skinned mesh.
Builder skin_document() {
  Builder b;
  b.node({{"name", "scene"}, {"children", {1}}, {"translation", {0, 1, 0}}});
  b.node({{"name", "hips"}, {"children", {2}}});
  b.node({{"name", "twist"}, {"children", {3}}});
  b.node({{"name", "hand"}});
  b.node({{"name", "loose"}});
  b.node({{"name", "body"}, {"mesh", 0}, {"skin", 0}});
  const int pos = b.floats({0, 0, 0, 1, 0, 0, 0, 1, 0}, "VEC3");
  const int joints = b.add<std::uint8_t>({2, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0}, "VEC4");
  const int weights = b.floats({1, 0, 0, 0, 0.25f, 0.75f, 0, 0, 1, 0, 0, 0}, "VEC4");
  b.doc["meshes"] = {
      {{"primitives",
        {{{"attributes", {{"POSITION", pos}, {"JOINTS_0", joints}, {"WEIGHTS_0", weights}}}}}}}};
  return b;
}

TEST(GltfImport, SkinJointsUnderSeveralRootsWithNonJointParentsAndNoInverseBinds) {
  Builder b = skin_document();
  b.doc["skins"] = {{{"name", "s"}, {"joints", {3, 1, 4}}}};
  const Asset asset = load(b.gltf_text());
  ASSERT_EQ(asset.skeleton.size(), 6u);
  ASSERT_EQ(asset.skins.size(), 1u);
  const marrow::Skin& skin = asset.skins[0];
  EXPECT_EQ(skin.name, "s");
  EXPECT_EQ(skin.joints,
            (std::vector<JointIndex>{joint(asset, 3), joint(asset, 1), joint(asset, 4)}));
  // Without inverseBindMatrices every matrix is the identity.
  ASSERT_EQ(skin.inverse_bind_matrices.size(), 3u);
  for (const Mat4& m : skin.inverse_bind_matrices) EXPECT_EQ(m, Mat4::identity());
  EXPECT_EQ(skin.root_hint, kNoParent);
  for (std::int64_t node : {1, 3, 4}) EXPECT_TRUE(asset.is_skin_joint(joint(asset, node))) << node;
  for (std::int64_t node : {0, 2, 5}) EXPECT_FALSE(asset.is_skin_joint(joint(asset, node))) << node;
  // The non-joint nodes stay in the hierarchy, so the hand's global transform includes them.
  EXPECT_EQ(asset.skeleton.parent(joint(asset, 3)), joint(asset, 2));
  EXPECT_EQ(asset.skeleton.parent(joint(asset, 2)), joint(asset, 1));
  EXPECT_EQ(asset.skeleton.parent(joint(asset, 1)), joint(asset, 0));
  EXPECT_EQ(asset.skeleton.parent(joint(asset, 4)), kNoParent);

  ASSERT_EQ(asset.meshes.size(), 1u);
  const SkinnedMesh& mesh = asset.meshes[0];
  EXPECT_EQ(mesh.skin, 0);
  EXPECT_EQ(mesh.node, joint(asset, 5));
  // Joint indices are skin-local: 2 is "loose", 1 is "hips", 0 is "hand".
  EXPECT_EQ(mesh.influence_offsets, (std::vector<std::uint32_t>{0, 1, 3, 4}));
  EXPECT_EQ(mesh.influence_joints, (std::vector<std::uint16_t>{2, 1, 0, 1}));
  EXPECT_EQ(mesh.influence_weights, (std::vector<float>{1, 0.75f, 0.25f, 1}));
}

TEST(GltfImport, SkinInverseBindMatricesAndSkeletonHint) {
  Builder b = skin_document();
  std::vector<float> ibm;
  for (int j = 0; j < 2; ++j) {
    Mat4 m;
    m.m[12] = -1.0f - j;  // translation (-1 - j, -0.5, 0)
    m.m[13] = -0.5f;
    ibm.insert(ibm.end(), m.m.begin(), m.m.end());
  }
  const int ibm_accessor = b.floats(ibm, "MAT4");
  b.doc["skins"] = {{{"joints", {1, 3}}, {"inverseBindMatrices", ibm_accessor}, {"skeleton", 0}}};
  // Only skin joints 0 and 1 exist now: the first vertex's joint 2 would be out of range.
  b.doc["accessors"][1] = {
      {"bufferView",
       b.view(bytes_of(std::vector<std::uint16_t>{1, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0}))},
      {"componentType", kUShort},
      {"count", 3},
      {"type", "VEC4"}};
  const Asset asset = load(b.gltf_text());
  ASSERT_EQ(asset.skins.size(), 1u);
  const marrow::Skin& skin = asset.skins[0];
  ASSERT_EQ(skin.inverse_bind_matrices.size(), 2u);
  for (int j = 0; j < 2; ++j) {
    Mat4 expected;
    expected.m[12] = -1.0f - j;
    expected.m[13] = -0.5f;
    EXPECT_EQ(skin.inverse_bind_matrices[j], expected) << j;
  }
  EXPECT_EQ(skin.root_hint, joint(asset, 0));
  EXPECT_EQ(asset.meshes[0].influence_joints, (std::vector<std::uint16_t>{1, 1, 0, 1}));
}

// One mesh, one primitive per accessor (as triangle strips, which take any vertex count).
Asset load_positions(Builder& b, const std::vector<int>& accessors) {
  Json primitives = Json::array();
  for (int a : accessors) primitives.push_back({{"attributes", {{"POSITION", a}}}, {"mode", 5}});
  b.doc["meshes"] = {{{"name", "m"}, {"primitives", primitives}}};
  b.node({{"mesh", 0}});
  Asset asset = load(b.gltf_text());
  EXPECT_EQ(asset.meshes.size(), accessors.size());
  return asset;
}

TEST(GltfImport, EveryComponentTypeRaw) {
  Builder b;
  const std::vector<int> accessors = {
      b.add<std::int8_t>({-128, 127, 5}, "VEC3"),       b.add<std::uint8_t>({0, 255, 7}, "VEC3"),
      b.add<std::int16_t>({-32768, 32767, -3}, "VEC3"), b.add<std::uint16_t>({0, 65535, 9}, "VEC3"),
      b.add<std::uint32_t>({0, 16777216, 11}, "VEC3"),  b.add<float>({-1.5f, 2.25f, 1e-3f}, "VEC3"),
  };
  const Asset asset = load_positions(b, accessors);
  ASSERT_EQ(asset.meshes.size(), 6u);
  EXPECT_EQ(asset.meshes[0].name, "m#0");
  expect_positions(asset.meshes[0], {{-128, 127, 5}});
  expect_positions(asset.meshes[1], {{0, 255, 7}});
  expect_positions(asset.meshes[2], {{-32768, 32767, -3}});
  expect_positions(asset.meshes[3], {{0, 65535, 9}});
  expect_positions(asset.meshes[4], {{0, 16777216, 11}});
  expect_positions(asset.meshes[5], {{-1.5f, 2.25f, 1e-3f}});
}

TEST(GltfImport, NormalizedIntegersFollowTheSpec) {
  // glTF 2.0 §3.11: signed: max(c / (2^(b-1) - 1), -1); unsigned: c / (2^b - 1).
  Builder b;
  const std::vector<int> accessors = {
      b.add<std::int8_t>({-128, -127, 127, 0, 64, -64}, "VEC3", true),
      b.add<std::uint8_t>({0, 255, 51}, "VEC3", true),
      b.add<std::int16_t>({-32768, -32767, 32767, 0, 16384, -1}, "VEC3", true),
      b.add<std::uint16_t>({0, 65535, 13107}, "VEC3", true),
  };
  const Asset asset = load_positions(b, accessors);
  ASSERT_EQ(asset.meshes.size(), 4u);
  expect_positions(asset.meshes[0], {{-1, -1, 1}, {0, 64 / 127.0f, -64 / 127.0f}});
  expect_positions(asset.meshes[1], {{0, 1, 0.2f}});
  expect_positions(asset.meshes[2], {{-1, -1, 1}, {0, 16384 / 32767.0f, -1 / 32767.0f}});
  expect_positions(asset.meshes[3], {{0, 1, 0.2f}});
}

TEST(GltfImport, NormalizedIntegerRotationKeys) {
  // Rotation outputs may be normalized (u)byte/(u)short. Short 32767 is 1.0 and byte -128 is
  // -1.0 exactly: (127, 0, 0, -128) is (1, 0, 0, -1), i.e. (h, 0, 0, -h) once unit length
  // (-128 / 127 would give (0.7043, 0, 0, -0.7099)).
  const float h = std::sqrt(0.5f);
  Builder b;
  for (int n = 0; n < 4; ++n) b.node({{"name", "n" + std::to_string(n)}});
  const int times = b.floats({0, 1}, "SCALAR");
  const int shorts = b.add<std::int16_t>({0, 0, 0, 32767, 32767, 0, 0, 0}, "VEC4", true);
  const int bytes = b.add<std::int8_t>({127, 0, 0, -128, 0, -128, 0, 0}, "VEC4", true);
  const int ushorts = b.add<std::uint16_t>({0, 0, 65535, 65535, 0, 65535, 0, 0}, "VEC4", true);
  const int ubytes = b.add<std::uint8_t>({0, 0, 0, 255, 255, 255, 255, 255}, "VEC4", true);
  b.animation({{0, "rotation", times, shorts},
               {1, "rotation", times, bytes},
               {2, "rotation", times, ushorts},
               {3, "rotation", times, ubytes}});
  const Asset asset = load(b.gltf_text());
  ASSERT_EQ(asset.clips.size(), 1u);
  const marrow::Clip& clip = asset.clips[0];
  ASSERT_EQ(clip.tracks().size(), 4u);
  const std::vector<std::array<float, 8>> expected = {
      {0, 0, 0, 1, 1, 0, 0, 0},
      {h, 0, 0, -h, 0, -1, 0, 0},
      {0, 0, h, h, 0, 1, 0, 0},
      {0, 0, 0, 1, 0.5f, 0.5f, 0.5f, 0.5f},
  };
  for (const marrow::Track& track : clip.tracks()) {
    const std::int64_t node = asset.source_index[track.joint];
    SCOPED_TRACE("node " + std::to_string(node));
    EXPECT_EQ(track.target, TrackTarget::kRotation);
    ASSERT_EQ(track.key_count, 2u);
    for (int k = 0; k < 8; ++k) {
      EXPECT_NEAR(clip.values()[track.first_value + k], expected[node][k], 1e-6f) << k;
    }
  }
}

TEST(GltfImport, ByteStrideInterleavedAndPadded) {
  Builder b;
  // Interleaved: position (3 floats) then normal (3 floats), stride 24.
  const std::vector<float> interleaved = {0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0};
  const int v = b.view(bytes_of(interleaved), 24);
  const int pos =
      b.accessor({{"bufferView", v}, {"componentType", kFloat}, {"count", 3}, {"type", "VEC3"}});
  const int nrm = b.accessor({{"bufferView", v},
                              {"byteOffset", 12},
                              {"componentType", kFloat},
                              {"count", 3},
                              {"type", "VEC3"}});
  // Normalized ushort UVs, 4 bytes each, padded to a stride of 8 (the padding holds 0xFFFF).
  const int uv_view = b.view(bytes_of(std::vector<std::uint16_t>{0, 65535, 0xFFFF, 0xFFFF, 65535, 0,
                                                                 0xFFFF, 0xFFFF, 13107, 13107}),
                             8);
  const int uv = b.accessor({{"bufferView", uv_view},
                             {"componentType", kUShort},
                             {"normalized", true},
                             {"count", 3},
                             {"type", "VEC2"}});
  b.doc["meshes"] = {
      {{"primitives",
        {{{"attributes", {{"POSITION", pos}, {"NORMAL", nrm}, {"TEXCOORD_0", uv}}}}}}}};
  b.node({{"mesh", 0}});
  const Asset asset = load(b.gltf_text());
  ASSERT_EQ(asset.meshes.size(), 1u);
  const SkinnedMesh& mesh = asset.meshes[0];
  expect_positions(mesh, {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}});
  ASSERT_EQ(mesh.normals.size(), 3u);
  expect_vec3(mesh.normals[0], {0, 0, 1});
  expect_vec3(mesh.normals[1], {0, 1, 0});
  expect_vec3(mesh.normals[2], {1, 0, 0});
  ASSERT_EQ(mesh.uvs.size(), 3u);
  EXPECT_EQ(mesh.uvs[0], (std::array<float, 2>{0, 1}));
  EXPECT_EQ(mesh.uvs[1], (std::array<float, 2>{1, 0}));
  EXPECT_NEAR(mesh.uvs[2][0], 0.2f, kEps);
  EXPECT_NEAR(mesh.uvs[2][1], 0.2f, kEps);
}

TEST(GltfImport, SparseAccessors) {
  Builder b;
  // With a bufferView: 4 base vertices, vertices 1 and 3 replaced (ubyte indices).
  const int base = b.view(bytes_of(std::vector<float>{0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3}));
  const int idx8 = b.view(Bytes{1, 3});
  const int val = b.view(bytes_of(std::vector<float>{10, 11, 12, 30, 31, 32}));
  const int with_view =
      b.accessor({{"bufferView", base},
                  {"componentType", kFloat},
                  {"count", 4},
                  {"type", "VEC3"},
                  {"sparse",
                   {{"count", 2},
                    {"indices", {{"bufferView", idx8}, {"componentType", kUByte}}},
                    {"values", {{"bufferView", val}}}}}});
  // Without a bufferView: zeros, with vertex 0 and 2 set (uint indices, offsets into the views).
  const int idx32 = b.view(bytes_of(std::vector<std::uint32_t>{99, 0, 2}));
  const int val2 = b.view(bytes_of(std::vector<float>{-1, -1, -1, 5, 6, 7, 8, 9, 10}));
  const int without_view = b.accessor(
      {{"componentType", kFloat},
       {"count", 3},
       {"type", "VEC3"},
       {"sparse",
        {{"count", 2},
         {"indices", {{"bufferView", idx32}, {"byteOffset", 4}, {"componentType", kUInt}}},
         {"values", {{"bufferView", val2}, {"byteOffset", 12}}}}}});
  // Normalized shorts replaced through ushort indices.
  const int shorts = b.view(bytes_of(std::vector<std::int16_t>{32767, 0, 0, 0, 32767, 0}));
  const int idx16 = b.view(bytes_of(std::vector<std::uint16_t>{1}));
  const int val3 = b.view(bytes_of(std::vector<std::int16_t>{-32768, -32768, 16384}));
  const int normalized =
      b.accessor({{"bufferView", shorts},
                  {"componentType", kShort},
                  {"normalized", true},
                  {"count", 2},
                  {"type", "VEC3"},
                  {"sparse",
                   {{"count", 1},
                    {"indices", {{"bufferView", idx16}, {"componentType", kUShort}}},
                    {"values", {{"bufferView", val3}}}}}});
  const Asset asset = load_positions(b, {with_view, without_view, normalized});
  ASSERT_EQ(asset.meshes.size(), 3u);
  expect_positions(asset.meshes[0], {{0, 0, 0}, {10, 11, 12}, {2, 2, 2}, {30, 31, 32}});
  expect_positions(asset.meshes[1], {{5, 6, 7}, {0, 0, 0}, {8, 9, 10}});
  expect_positions(asset.meshes[2], {{1, 0, 0}, {-1, -1, 16384 / 32767.0f}});
}

TEST(GltfImport, EveryJointsWeightsSetIsMergedStrongestFirst) {
  Builder b;
  std::vector<int> joints;
  for (int j = 0; j < 8; ++j) joints.push_back(b.node({{"name", "j" + std::to_string(j)}}));
  b.doc["skins"] = {{{"joints", joints}}};
  b.node({{"mesh", 0}, {"skin", 0}});
  const int pos = b.floats({0, 0, 0, 1, 0, 0, 0, 1, 0}, "VEC3");
  // Set 0: ubyte joints, float weights. Set 1: ushort joints, normalized ubyte weights.
  const int j0 = b.add<std::uint8_t>({0, 1, 2, 3, 2, 0, 0, 0, 1, 7, 7, 7}, "VEC4");
  const int w0 = b.floats({0.1f, 0.4f, 0.05f, 0.2f, 0.5f, 0, 0, 0, 1, 0, 0, 0}, "VEC4");
  const int j1 = b.add<std::uint16_t>({4, 5, 6, 7, 2, 3, 0, 0, 0, 0, 0, 0}, "VEC4");
  const int w1 = b.add<std::uint8_t>({153, 25, 76, 255, 51, 102, 0, 0, 0, 0, 0, 0}, "VEC4", true);
  b.doc["meshes"] = {{{"primitives",
                       {{{"attributes",
                          {{"POSITION", pos},
                           {"JOINTS_0", j0},
                           {"WEIGHTS_0", w0},
                           {"JOINTS_1", j1},
                           {"WEIGHTS_1", w1}}}}}}}};
  const Asset asset = load(b.gltf_text());
  ASSERT_EQ(asset.meshes.size(), 1u);
  const SkinnedMesh& mesh = asset.meshes[0];
  // Vertex 0: eight influences. Vertex 1: joint 2 in both sets (0.5 + 0.2) and joint 3 (0.4);
  // zero weights are dropped. Vertex 2: one influence (zero-weight slots may name any joint).
  EXPECT_EQ(mesh.influence_offsets, (std::vector<std::uint32_t>{0, 8, 10, 11}));
  EXPECT_EQ(mesh.max_influences(), 8u);
  EXPECT_EQ(mesh.influence_joints, (std::vector<std::uint16_t>{7, 4, 1, 6, 3, 0, 5, 2, 2, 3, 1}));
  const float s0 = 0.1f + 0.4f + 0.05f + 0.2f + (153 + 25 + 76 + 255) / 255.0f;
  const std::vector<float> expected = {
      1.0f / s0,        0.6f / s0,  0.4f / s0,   76 / 255.0f / s0, 0.2f / s0, 0.1f / s0,
      25 / 255.0f / s0, 0.05f / s0, 0.7f / 1.1f, 0.4f / 1.1f,      1.0f};
  ASSERT_EQ(mesh.influence_weights.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR(mesh.influence_weights[i], expected[i], 1e-6f) << i;
  }
  for (std::size_t v = 0; v + 1 < mesh.influence_offsets.size(); ++v) {
    float sum = 0;
    for (std::uint32_t i = mesh.influence_offsets[v]; i < mesh.influence_offsets[v + 1]; ++i) {
      sum += mesh.influence_weights[i];
      if (i > mesh.influence_offsets[v]) {
        EXPECT_GE(mesh.influence_weights[i - 1], mesh.influence_weights[i]);
      }
    }
    EXPECT_NEAR(sum, 1.0f, 1e-6f) << "vertex " << v;
  }
}

// Triangle `got` equals `want` up to a rotation of its corners (same winding).
bool same_triangle(const std::uint32_t* got, std::array<std::uint32_t, 3> want) {
  for (int r = 0; r < 3; ++r) {
    if (got[0] == want[r] && got[1] == want[(r + 1) % 3] && got[2] == want[(r + 2) % 3]) {
      return true;
    }
  }
  return false;
}

void expect_triangles(const SkinnedMesh& mesh,
                      const std::vector<std::array<std::uint32_t, 3>>& expected) {
  ASSERT_EQ(mesh.indices.size(), expected.size() * 3) << mesh.name;
  for (std::size_t t = 0; t < expected.size(); ++t) {
    EXPECT_TRUE(same_triangle(&mesh.indices[t * 3], expected[t]))
        << mesh.name << " triangle " << t << ": " << mesh.indices[t * 3] << " "
        << mesh.indices[t * 3 + 1] << " " << mesh.indices[t * 3 + 2];
  }
}

TEST(GltfImport, TriangleStripsAndFans) {
  // glTF 2.0 §3.7.2.1: strip triangle i is {v_i, v_(i+1+i%2), v_(i+2-i%2)};
  // fan triangle i is {v_(i+1), v_(i+2), v_0}.
  Builder b;
  const int pos = b.floats({0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 2, 0, 0}, "VEC3");
  const int fan_idx = b.add<std::uint8_t>({4, 3, 2, 1, 0}, "SCALAR");
  const int strip_idx = b.add<std::uint16_t>({0, 1, 2, 3}, "SCALAR");
  const int list_idx = b.add<std::uint32_t>({4, 1, 3}, "SCALAR");
  b.doc["meshes"] = {{{"name", "m"},
                      {"primitives",
                       {{{"attributes", {{"POSITION", pos}}}, {"mode", 5}},
                        {{"attributes", {{"POSITION", pos}}}, {"mode", 6}},
                        {{"attributes", {{"POSITION", pos}}}, {"mode", 6}, {"indices", fan_idx}},
                        {{"attributes", {{"POSITION", pos}}}, {"mode", 5}, {"indices", strip_idx}},
                        {{"attributes", {{"POSITION", pos}}}, {"indices", list_idx}},
                        {{"attributes", {{"POSITION", pos}}}, {"mode", 1}}}}}};
  b.node({{"mesh", 0}});
  const Asset asset = load(b.gltf_text());
  ASSERT_EQ(asset.meshes.size(), 5u);  // the line primitive is skipped
  expect_triangles(asset.meshes[0], {{0, 1, 2}, {1, 3, 2}, {2, 3, 4}});
  expect_triangles(asset.meshes[1], {{1, 2, 0}, {2, 3, 0}, {3, 4, 0}});
  expect_triangles(asset.meshes[2], {{3, 2, 4}, {2, 1, 4}, {1, 0, 4}});
  expect_triangles(asset.meshes[3], {{0, 1, 2}, {1, 3, 2}});
  expect_triangles(asset.meshes[4], {{4, 1, 3}});
  ASSERT_EQ(asset.warnings.size(), 1u);
  EXPECT_NE(asset.warnings[0].find("meshes[0].primitives[5]"), std::string::npos);
}

TEST(GltfImport, UnnamedAnimationsAreNamedByIndex) {
  Builder b;
  b.node({{"name", "a"}});
  const int times = b.floats({0, 0.5f}, "SCALAR");
  const int values = b.floats({0, 0, 0, 1, 2, 3}, "VEC3");
  b.animation({{0, "translation", times, values}}, "Walk");
  b.animation({{0, "translation", times, values}});
  b.animation({{0, "translation", times, values}});
  const Asset asset = load(b.gltf_text());
  ASSERT_EQ(asset.clips.size(), 3u);
  EXPECT_EQ(asset.clips[0].name(), "Walk");
  EXPECT_EQ(asset.clips[1].name(), "animation_1");
  EXPECT_EQ(asset.clips[2].name(), "animation_2");
  EXPECT_EQ(asset.find_clip("animation_2"), 2u);
  EXPECT_EQ(asset.find_clip("1"), 1u);
  EXPECT_EQ(asset.find_clip("Walk"), 0u);
  EXPECT_FALSE(asset.find_clip("Run").has_value());
}

TEST(GltfImport, AnimationChannels) {
  Builder b;
  b.node({{"name", "a"}, {"children", {1}}});
  b.node({{"name", "b"}, {"translation", {0, 1, 0}}});
  const int t3 = b.floats({0, 1, 2}, "SCALAR");
  const int t2 = b.floats({0.5f, 3}, "SCALAR");
  const int t_lin = b.floats({0, 4}, "SCALAR");
  const int step = b.floats({1, 1, 1, 2, 2, 2, 3, 3, 3}, "VEC3");
  // Cubic spline: in-tangent, value, out-tangent per key; the identity throughout.
  const int cubic =
      b.floats({0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0}, "VEC4");
  const int trans = b.floats({0, 0, 0, 4, 4, 0}, "VEC3");
  b.animation({{0, "scale", t3, step, "STEP"},
               {1, "rotation", t2, cubic, "CUBICSPLINE"},
               {1, "translation", t_lin, trans}},
              "mixed");
  const Asset asset = load(b.gltf_text());
  ASSERT_EQ(asset.clips.size(), 1u);
  const marrow::Clip& clip = asset.clips[0];
  EXPECT_EQ(clip.name(), "mixed");
  EXPECT_FLOAT_EQ(clip.duration(), 4.0f);
  ASSERT_EQ(clip.tracks().size(), 3u);
  EXPECT_EQ(clip.tracks()[0].joint, joint(asset, 0));
  EXPECT_EQ(clip.tracks()[0].target, TrackTarget::kScale);
  EXPECT_EQ(clip.tracks()[0].interpolation, Interpolation::kStep);
  EXPECT_EQ(clip.tracks()[0].key_count, 3u);
  EXPECT_EQ(clip.tracks()[1].joint, joint(asset, 1));
  EXPECT_EQ(clip.tracks()[1].target, TrackTarget::kTranslation);
  EXPECT_EQ(clip.tracks()[1].interpolation, Interpolation::kLinear);
  EXPECT_EQ(clip.tracks()[2].target, TrackTarget::kRotation);
  EXPECT_EQ(clip.tracks()[2].interpolation, Interpolation::kCubicSpline);
  EXPECT_EQ(clip.tracks()[2].key_count, 2u);
  EXPECT_EQ(clip.track_joint_names()[2], "b");
  EXPECT_TRUE(asset.warnings.empty());

  // At t = 1.5 the step scale of "a" is 2 (key at 1) and the linear translation of "b" is
  // (1.5, 1.5, 0) (it replaces the rest translation), so "b" is at (3, 3, 0).
  const std::vector<float> times = {1.5f};
  const marrow::PoseSamples pose = marrow::sample_world(asset, 0, times);
  expect_vec3(pose.world[0][joint(asset, 1)].translation(), {3, 3, 0}, 1e-5f);
}

TEST(GltfImport, RealAssets) {
  if (!fs::exists(kAssets)) GTEST_SKIP() << "no shared assets at " << kAssets;
  struct Expect {
    const char* file;
    std::size_t nodes, clips, skins;
  };
  for (const Expect& e : {Expect{"Soldier.glb", 68, 4, 1}, Expect{"cesium_man.gltf", 22, 1, 1},
                          Expect{"interpolation_test.gltf", 12, 9, 0},
                          Expect{"quad_skin.glb", 23, 0, 1}, Expect{"triangle.gltf", 1, 0, 0}}) {
    SCOPED_TRACE(e.file);
    const fs::path file = kAssets / e.file;
    if (!fs::exists(file)) continue;
    marrow::Result<Asset> asset = marrow::load_asset(file.string());
    ASSERT_TRUE(asset.ok()) << asset.error().message;
    EXPECT_EQ(asset->skeleton.size(), e.nodes);
    EXPECT_EQ(asset->clips.size(), e.clips);
    EXPECT_EQ(asset->skins.size(), e.skins);
  }
}

}  // namespace
