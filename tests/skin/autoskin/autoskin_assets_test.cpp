// Automatic weights on real rigged files (skipped when ../shared is absent): the evaluation
// runs, its numbers are sane, and heat deforms closer to the artist than proximity.
#include <gtest/gtest.h>

#include <filesystem>

#include "marrow/io/asset.h"
#include "marrow/skin/autoskin_evaluation.h"
#include "shared_asset.h"

namespace marrow {
namespace {

struct Pair {
  autoskin::Evaluation proximity, heat;
};

std::optional<Pair> evaluate_both(const std::string& file) {
  const std::string path = marrow::test::shared_asset_path(file);
  if (!std::filesystem::exists(path)) return std::nullopt;
  Result<Asset> asset = load_asset(path);
  EXPECT_TRUE(asset.ok()) << (asset.ok() ? "" : asset.error().message);
  if (!asset) return std::nullopt;
  std::vector<SkinnedMesh> meshes;
  for (const SkinnedMesh& m : asset->meshes)
    if (m.skin == 0) meshes.push_back(m);
  Pair out;
  for (auto method : {autoskin::Method::kProximity, autoskin::Method::kHeat}) {
    autoskin::Options options;
    options.method = method;
    auto e = autoskin::evaluate(asset->skeleton, asset->clips, asset->skins[0], meshes, options);
    EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message);
    if (!e) return std::nullopt;
    (method == autoskin::Method::kHeat ? out.heat : out.proximity) = *e;
  }
  return out;
}

void expect_sane(const autoskin::Evaluation& e) {
  EXPECT_GE(e.mean_l1, 0.0);
  EXPECT_LE(e.mean_l1, 2.0);
  EXPECT_GT(e.precision, 0.3);
  EXPECT_GT(e.recall, 0.3);
  EXPECT_GT(e.frames, 0u);
  EXPECT_GE(e.max_distance, e.mean_distance);
}

TEST(Assets, CesiumManHeatDeformsCloserToTheArtistThanProximity) {
  auto r = evaluate_both("gltf/cesium_man.gltf");
  if (!r) GTEST_SKIP() << "cesium_man.gltf is absent from ../shared/assets";
  expect_sane(r->proximity);
  expect_sane(r->heat);
  EXPECT_EQ(r->heat.vertices, 3273u);
  EXPECT_EQ(r->heat.frames, 61u);  // 2 s at 30 Hz, both ends
  EXPECT_LT(r->heat.mean_distance, r->proximity.mean_distance);
  EXPECT_LT(r->heat.max_distance, r->proximity.max_distance);
  // Both are close to the artist on average: well under 1 % of the body's size.
  EXPECT_LT(r->heat.mean_distance, 0.01);
}

TEST(Assets, TestwusonHeatDeformsCloserToTheArtistThanProximity) {
  auto r = evaluate_both("x/Testwuson.X");
  if (!r) GTEST_SKIP() << "Testwuson.X is absent from ../shared/assets";
  expect_sane(r->proximity);
  expect_sane(r->heat);
  EXPECT_LT(r->heat.mean_distance, r->proximity.mean_distance);
  EXPECT_LT(r->heat.max_distance, r->proximity.max_distance);
  EXPECT_LT(r->heat.mean_l1, r->proximity.mean_l1);
}

}  // namespace
}  // namespace marrow
