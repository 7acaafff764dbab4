// Khronos-style morph-target glTF files built in memory: a unit cube with two targets ("up"
// lifts the top face by 1, "wide" pushes the +x face out by 0.5) and one animation per
// interpolation, and a cube whose only target is a sparse accessor without a bufferView.
// Expected values are worked out by hand in the tests.
#pragma once

#include <string>
#include <vector>

#include "gltf_test_util.h"
#include "marrow/clip/sampling.h"
#include "marrow/io/asset.h"
#include "marrow/skin/morph.h"

namespace morph_test {

using gltf_test::Builder;
using gltf_test::Json;

// Vertex v of the cube: x = bit 0, y = bit 1, z = bit 2, each -0.5 or +0.5.
inline std::vector<float> cube_positions() {
  std::vector<float> p;
  for (int v = 0; v < 8; ++v) {
    p.insert(p.end(), {(v & 1) ? 0.5f : -0.5f, (v & 2) ? 0.5f : -0.5f, (v & 4) ? 0.5f : -0.5f});
  }
  return p;
}

inline std::vector<std::uint16_t> cube_indices() {
  return {0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4,
          2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5};
}

// "up": (0, 1, 0) on the four top vertices (y = +0.5); "wide": (0.5, 0, 0) on the +x ones.
inline std::vector<float> up_deltas() {
  std::vector<float> d(24, 0.0f);
  for (int v = 0; v < 8; ++v)
    if (v & 2) d[v * 3 + 1] = 1;
  return d;
}
inline std::vector<float> wide_deltas() {
  std::vector<float> d(24, 0.0f);
  for (int v = 0; v < 8; ++v)
    if (v & 1) d[v * 3] = 0.5f;
  return d;
}

// Adds the float accessor with min/max (POSITION accessors need them).
inline int add_vec3(Builder& b, const std::vector<float>& values) {
  const int a = b.floats(values, "VEC3");
  std::vector<float> lo(3, 1e30f), hi(3, -1e30f);
  for (std::size_t i = 0; i < values.size(); ++i) {
    lo[i % 3] = std::min(lo[i % 3], values[i]);
    hi[i % 3] = std::max(hi[i % 3], values[i]);
  }
  b.doc["accessors"][a]["min"] = lo;
  b.doc["accessors"][a]["max"] = hi;
  return a;
}

inline int add_times(Builder& b, const std::vector<float>& t) {
  const int a = b.floats(t, "SCALAR");
  b.doc["accessors"][a]["min"] = {t.front()};
  b.doc["accessors"][a]["max"] = {t.back()};
  return a;
}

// The two-target cube, with animations "linear", "step" (keys 0, 1, 2 s: weights (0, 0),
// (1, 0.5), (0.5, 1)) and "cubic" (keys 0 and 2 s; per key in-tangents, values, out-tangents:
// (0, 0) (0, 0) (1, -1) then (2, 0) (1, 1) (0, 0)). Default weights (0.25, 0).
inline Builder two_target_cube() {
  Builder b;
  const int pos = add_vec3(b, cube_positions());
  const int idx = b.add(cube_indices(), "SCALAR");
  const int up = add_vec3(b, up_deltas());
  const int wide = add_vec3(b, wide_deltas());
  b.doc["meshes"] = Json::array({{{"name", "cube"},
                                  {"primitives",
                                   {{{"attributes", {{"POSITION", pos}}},
                                     {"indices", idx},
                                     {"targets", {{{"POSITION", up}}, {{"POSITION", wide}}}}}}},
                                  {"weights", {0.25, 0.0}},
                                  {"extras", {{"targetNames", {"up", "wide"}}}}}});
  b.node({{"name", "cube"}, {"mesh", 0}});
  b.doc["scenes"] = Json::array({{{"nodes", {0}}}});
  b.doc["scene"] = 0;
  const int t3 = add_times(b, {0, 1, 2});
  const int w3 = b.floats({0, 0, 1, 0.5f, 0.5f, 1}, "SCALAR");
  b.animation({{0, "weights", t3, w3, "LINEAR"}}, "linear");
  b.animation({{0, "weights", t3, w3, "STEP"}}, "step");
  const int t2 = add_times(b, {0, 2});
  const int wc = b.floats({0, 0, 0, 0, 1, -1, 2, 0, 1, 1, 0, 0}, "SCALAR");
  b.animation({{0, "weights", t2, wc, "CUBICSPLINE"}}, "cubic");
  return b;
}

// A cube whose one target is sparse with no bufferView (zeros, then two substitutions: vertex 1
// by (0, 0, 1) and vertex 6 by (0, 2, 0)); its weight animates LINEAR from 0 at 0 s to 1 at 1 s.
inline Builder sparse_target_cube() {
  Builder b;
  const int pos = add_vec3(b, cube_positions());
  const int idx = b.add(cube_indices(), "SCALAR");
  const int indices_view = b.view(gltf_test::bytes_of(std::vector<std::uint16_t>{1, 6}));
  const int values_view = b.view(gltf_test::bytes_of(std::vector<float>{0, 0, 1, 0, 2, 0}));
  const int sparse = b.accessor(
      {{"componentType", gltf_test::kFloat},
       {"count", 8},
       {"type", "VEC3"},
       {"min", {0, 0, 0}},
       {"max", {0, 2, 1}},
       {"sparse",
        {{"count", 2},
         {"indices", {{"bufferView", indices_view}, {"componentType", gltf_test::kUShort}}},
         {"values", {{"bufferView", values_view}}}}}});
  b.doc["meshes"] = Json::array({{{"name", "sparse"},
                                  {"primitives",
                                   {{{"attributes", {{"POSITION", pos}}},
                                     {"indices", idx},
                                     {"targets", {{{"POSITION", sparse}}}}}}}}});
  b.node({{"name", "sparse"}, {"mesh", 0}});
  b.doc["scenes"] = Json::array({{{"nodes", {0}}}});
  b.doc["scene"] = 0;
  const int t = add_times(b, {0, 1});
  const int w = b.floats({0, 1}, "SCALAR");
  b.animation({{0, "weights", t, w, "LINEAR"}}, "grow");
  return b;
}

inline marrow::Asset load(const Builder& b, const std::string& name) {
  const std::string text = b.gltf_text();
  marrow::Result<marrow::Asset> a = marrow::read_gltf(
      std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()), name, "");
  EXPECT_TRUE(a.ok()) << (a.ok() ? "" : a.error().message);
  return a.ok() ? std::move(a).value() : marrow::Asset{};
}

// The weight array of `asset` at `t` in clip `clip` (defaults where nothing animates).
inline std::vector<float> weights_at(const marrow::Asset& asset, std::size_t clip, float t) {
  const marrow::MorphLayout layout = marrow::MorphLayout::build(asset.meshes);
  std::vector<float> w(layout.weight_count());
  marrow::SamplingCursor cursor(asset.clips.at(clip));
  EXPECT_TRUE(marrow::sample_weights(asset.clips[clip], layout.default_weights(), t, cursor, w));
  return w;
}

}  // namespace morph_test
