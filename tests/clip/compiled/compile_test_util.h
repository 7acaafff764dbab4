// What the `marrow compile` and `marrow pose --compiled` tests share: the files they run on, the
// bound the options must give (computed here from the skeleton, as compiled_clip.h defines it),
// and the virtual-vertex error computed from model matrices, independently of the command.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "marrow/io/asset.h"
#include "marrow/pose/local_to_model.h"
#include "run_process.h"
#include "shared_asset.h"

namespace compile_test {

using namespace marrow_test;

// Always present: a hand-written glTF (STEP translation, LINEAR rotation, CUBICSPLINE scale, a
// morph weights channel, an event) kept with the archive tests.
inline std::string fixture() {
  return std::string(MARROW_SOURCE_DIR) + "/tests/io/export/data/archive_v2_source.gltf";
}
inline std::string shared_asset(const std::string& relative) {
  return marrow::test::shared_asset_path(relative);
}
#define COMPILE_REQUIRE_FILE(path) \
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is absent"

inline marrow::Asset load(const std::string& path) {
  marrow::Result<marrow::Asset> a = marrow::load_asset(path);
  EXPECT_TRUE(a.ok()) << (a.ok() ? "" : a.error().message);
  return a.ok() ? std::move(a).value() : marrow::Asset{};
}

inline std::vector<marrow::Mat4> rest_model(const marrow::Skeleton& s) {
  std::vector<marrow::Mat4> m(s.size());
  EXPECT_TRUE(marrow::local_to_model(s, s.rest_pose(), m));
  return m;
}

// The skeleton's extent: the longest side of the box around its joints in the rest pose.
inline float extent(const marrow::Skeleton& s) {
  const std::vector<marrow::Mat4> m = rest_model(s);
  marrow::Vec3 lo = m[0].translation(), hi = lo;
  for (const marrow::Mat4& x : m) {
    const marrow::Vec3 p = x.translation();
    lo = {std::min(lo.x, p.x), std::min(lo.y, p.y), std::min(lo.z, p.z)};
    hi = {std::max(hi.x, p.x), std::max(hi.y, p.y), std::max(hi.z, p.z)};
  }
  return std::max({hi.x - lo.x, hi.y - lo.y, hi.z - lo.z});
}

// `mm` millimetres on the character scaled to 1.8 m, in model units.
inline float relative_bound(const marrow::Skeleton& s, float mm) {
  return mm / 1800.0f * extent(s);
}

// Per joint: `distance` (model units) in the joint's own units, over its rest model scale.
inline std::vector<float> local_distances(const marrow::Skeleton& s, float distance) {
  std::vector<float> out;
  for (const marrow::Mat4& m : rest_model(s)) {
    const float scale = std::max({length(m.column(0)), length(m.column(1)), length(m.column(2))});
    out.push_back(scale > 1e-20f ? distance / scale : distance);
  }
  return out;
}

// The largest distance between each joint, and the points `local[j]` along its three axes,
// moved by the two model matrices.
inline float virtual_vertex_error(const marrow::Mat4& a, const marrow::Mat4& b, float local) {
  float worst = 0;
  for (const marrow::Vec3 p : {marrow::Vec3{0, 0, 0}, marrow::Vec3{local, 0, 0},
                               marrow::Vec3{0, local, 0}, marrow::Vec3{0, 0, local}}) {
    worst = std::max(worst, length(transform_point(a, p) - transform_point(b, p)));
  }
  return worst;
}

inline marrow::Mat4 matrix_of(const nlohmann::json& m) {
  marrow::Mat4 out;
  for (int i = 0; i < 16; ++i) out.m[static_cast<std::size_t>(i)] = m.at(i).get<float>();
  return out;
}

inline nlohmann::json parse(const Outcome& o) {
  EXPECT_EQ(o.exit_code, 0) << o.err;
  try {
    return nlohmann::json::parse(o.out);
  } catch (const std::exception& e) {
    ADD_FAILURE() << e.what() << "\n" << o.out;
    return {};
  }
}

// Files in a folder, so a test can show a failed command left nothing behind.
inline std::vector<std::string> files_in(const std::filesystem::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace compile_test
