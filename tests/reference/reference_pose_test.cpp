// marrow's poses against ../shared/reference: global transforms computed by an independent
// implementation (three.js) for every clip of every glTF asset. The match criterion is the one
// the reference README states: positions within 1e-3 of the extent of the reference's node
// positions, 3x3 parts within 1e-3 of their largest column norm.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "marrow/io/asset.h"
#include "marrow/io/pose_dump.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const fs::path kShared = MARROW_SHARED_DIR;

std::vector<fs::path> reference_files() {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(kShared / "reference" / "gltf", ec)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

class ReferencePose : public testing::TestWithParam<fs::path> {};

TEST_P(ReferencePose, MatchesIndependentImplementation) {
  std::ifstream in(GetParam());
  const json ref = json::parse(in);
  const fs::path asset_path = kShared / "assets" / "gltf" / ref["file"].get<std::string>();
  if (!fs::exists(asset_path)) GTEST_SKIP() << asset_path << " is absent";

  marrow::Result<marrow::Asset> asset = marrow::load_asset(asset_path.string());
  ASSERT_TRUE(asset.ok()) << asset.error().message;
  const int clip = ref["clip_index"].get<int>();
  ASSERT_LT(clip, static_cast<int>(asset->clips.size()));
  EXPECT_EQ(asset->clips[clip].name(), ref["clip"].get<std::string>());
  EXPECT_NEAR(asset->clips[clip].duration(), ref["duration"].get<double>(), 1e-6);

  std::vector<float> times;
  for (const json& s : ref["samples"]) times.push_back(s["t"].get<float>());
  const marrow::PoseSamples ours = marrow::sample_world(*asset, clip, times);

  // Extent of the reference's node positions over all samples.
  double lo[3] = {1e300, 1e300, 1e300}, hi[3] = {-1e300, -1e300, -1e300};
  for (const json& s : ref["samples"]) {
    for (const json& w : s["world"]) {
      for (int k = 0; k < 3; ++k) {
        lo[k] = std::min(lo[k], w[12 + k].get<double>());
        hi[k] = std::max(hi[k], w[12 + k].get<double>());
      }
    }
  }
  double extent = std::max({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]});
  if (extent <= 0) extent = 1;

  const json& nodes = ref["nodes"];
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    std::optional<marrow::JointIndex> joint =
        asset->joint_of_source(nodes[n]["index"].get<std::int64_t>());
    if (!joint && nodes[n]["name"].is_string())
      joint = asset->skeleton.find(nodes[n]["name"].get<std::string>());
    ASSERT_TRUE(joint.has_value()) << "reference node " << nodes[n].dump() << " is missing";
    for (std::size_t s = 0; s < times.size(); ++s) {
      const json& expected = ref["samples"][s]["world"][n];
      const marrow::Mat4& got = ours.world[s][*joint];
      double dp = 0;
      for (int k = 0; k < 3; ++k) dp += std::pow(got.m[12 + k] - expected[12 + k].get<double>(), 2);
      EXPECT_LE(std::sqrt(dp), 1e-3 * extent)
          << "position of node " << nodes[n].dump() << " at t=" << times[s];
      double column_norm = 0, dr = 0;
      for (int c = 0; c < 3; ++c) {
        double norm = 0;
        for (int r = 0; r < 3; ++r) {
          const double e = expected[c * 4 + r].get<double>();
          norm += e * e;
          dr = std::max(dr, std::fabs(got.m[c * 4 + r] - e));
        }
        column_norm = std::max(column_norm, std::sqrt(norm));
      }
      EXPECT_LE(dr, 1e-3 * std::max(column_norm, 1e-12))
          << "3x3 part of node " << nodes[n].dump() << " at t=" << times[s];
    }
  }
}

std::string test_name(const testing::TestParamInfo<fs::path>& info) {
  std::string name = info.param.stem().string();
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Gltf, ReferencePose, testing::ValuesIn(reference_files()), test_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ReferencePose);

TEST(ReferencePoses, ArePresentOrSkipped) {
  if (reference_files().empty())
    GTEST_SKIP() << kShared / "reference"
                 << " is absent: reference tests skipped";
  SUCCEED();
}

}  // namespace
