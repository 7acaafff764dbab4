// Bad morph-target input in glTF: each a clear error naming the file and the JSON path, never
// a crash (the list: a target with another vertex count than its mesh, a weights
// animation whose count is not a multiple of the target count, NaN deltas, a sparse index out of
// range, a weights channel on a node without targets; and the spec's other musts).
#include <gtest/gtest.h>

#include <cstring>

#include "morph_test_util.h"

namespace marrow {
namespace {

using morph_test::Builder;
using morph_test::Json;

void expect_error(const Builder& b, std::initializer_list<const char*> parts) {
  const std::string text = b.gltf_text();
  const Result<Asset> a = read_gltf(
      std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()), "bad.gltf", "");
  ASSERT_FALSE(a.ok()) << "accepted";
  const std::string& m = a.error().message;
  EXPECT_EQ(m.rfind("bad.gltf", 0), 0u) << m;
  for (const char* p : parts) EXPECT_NE(m.find(p), std::string::npos) << "'" << p << "' in: " << m;
}

TEST(GltfMorphErrors, TargetWithAnotherVertexCountThanItsMesh) {
  Builder b = morph_test::two_target_cube();
  b.doc["meshes"][0]["primitives"][0]["targets"][1]["POSITION"] =
      b.floats(std::vector<float>(21, 0.0f), "VEC3");
  expect_error(b, {"meshes[0].primitives[0].targets[1].POSITION", "7 elements", "8 vertices"});
}

TEST(GltfMorphErrors, WeightsAnimationNotAMultipleOfTheTargetCount) {
  Builder b = morph_test::two_target_cube();
  const int t = morph_test::add_times(b, {0, 1, 2});
  const int w = b.floats({0, 1, 0.5f, 1, 0}, "SCALAR");  // 5 values for 3 keys of 2 targets
  b.animation({{0, "weights", t, w, "LINEAR"}}, "broken");
  expect_error(b, {"animations[3].samplers[0].output", "5 weights for 3 keys of 2 morph targets"});
  Builder c = morph_test::two_target_cube();
  const int w6 = c.floats({0, 0, 1, 1, 0, 0}, "SCALAR");  // 6 = 3 x 2, but CUBICSPLINE needs 18
  const int t3 = morph_test::add_times(c, {0, 1, 2});
  c.animation({{0, "weights", t3, w6, "CUBICSPLINE"}}, "broken");
  expect_error(c, {"samplers[0].output", "CUBICSPLINE needs 18"});
}

TEST(GltfMorphErrors, NanDelta) {
  Builder b = morph_test::two_target_cube();
  std::vector<float> d = morph_test::up_deltas();
  d[7] = std::numeric_limits<float>::quiet_NaN();
  b.doc["meshes"][0]["primitives"][0]["targets"][0]["POSITION"] = b.floats(d, "VEC3");
  expect_error(b, {"targets[0].POSITION", "vertex 2", "not finite"});
}

TEST(GltfMorphErrors, SparseIndexOutOfRange) {
  Builder b = morph_test::sparse_target_cube();
  // The sparse indices' bufferView holds 1, 6; make the second 9 (the accessor has 8 elements).
  const std::size_t view = b.doc["accessors"][2]["sparse"]["indices"]["bufferView"];
  const std::size_t at = b.doc["bufferViews"][view]["byteOffset"].get<std::size_t>() + 2;
  b.bin[at] = 9;
  expect_error(b, {"accessors[2].sparse.indices", "9"});
}

TEST(GltfMorphErrors, WeightsChannelOnANodeWithoutTargets) {
  Builder b = morph_test::two_target_cube();
  b.node({{"name", "empty"}});
  b.doc["scenes"][0]["nodes"].push_back(1);
  const int t = morph_test::add_times(b, {0, 1});
  const int w = b.floats({0, 1}, "SCALAR");
  b.animation({{1, "weights", t, w, "LINEAR"}}, "orphan");
  expect_error(b, {"animations[3].channels[0].target.node = 1", "has none"});
}

TEST(GltfMorphErrors, PrimitivesWithDifferentTargetCounts) {
  Builder b = morph_test::two_target_cube();
  Json second = b.doc["meshes"][0]["primitives"][0];
  second["targets"].erase(1);
  b.doc["meshes"][0]["primitives"].push_back(second);
  expect_error(b, {"meshes[0].primitives", "same number"});
}

TEST(GltfMorphErrors, WeightsArraysOfTheWrongLength) {
  Builder b = morph_test::two_target_cube();
  b.doc["meshes"][0]["weights"] = {0.5};
  expect_error(b, {"meshes[0].weights", "1 weights for 2 morph targets"});
  Builder c = morph_test::two_target_cube();
  c.doc["nodes"][0]["weights"] = {0.5, 0.5, 0.5};
  expect_error(c, {"nodes[0].weights", "3 weights for 2"});
  Builder d = morph_test::two_target_cube();
  d.doc["nodes"][0]["weights"] = {0.5, "x"};
  expect_error(d, {"nodes[0].weights[1]", "not a finite number"});
}

TEST(GltfMorphErrors, TargetDeltaOfTheWrongType) {
  Builder b = morph_test::two_target_cube();
  b.doc["meshes"][0]["primitives"][0]["targets"][0]["POSITION"] =
      b.floats(std::vector<float>(16, 0.0f), "VEC2");
  expect_error(b, {"targets[0].POSITION", "VEC2", "VEC3"});
}

}  // namespace
}  // namespace marrow
