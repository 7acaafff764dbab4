// Shared helpers for the assimp importer tests.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "marrow/clip/sampling.h"
#include "marrow/io/assimp_import.h"
#include "marrow/pose/local_to_model.h"
#include "shared_asset.h"

namespace marrow::test {

inline std::string asset_path(const std::string& relative) {
  return shared_asset_path(relative);
}

// Skips the calling test when the shared asset is absent.
#define MARROW_REQUIRE_ASSET(path)                                                       \
  do {                                                                                   \
    if (!std::filesystem::exists(path)) GTEST_SKIP() << "asset not present: " << (path); \
  } while (0)

// Model-space matrices of every joint with `clip` sampled at `seconds` (rest pose elsewhere).
inline std::vector<Mat4> model_pose(const Asset& asset, const Clip& clip, float seconds) {
  std::vector<Transform> local(asset.skeleton.rest_pose().begin(),
                               asset.skeleton.rest_pose().end());
  EXPECT_TRUE(sample_tracks(clip, seconds, local));
  std::vector<Mat4> model(asset.skeleton.size());
  EXPECT_TRUE(local_to_model(asset.skeleton, local, model));
  return model;
}

inline std::vector<Transform> local_pose(const Asset& asset, const Clip& clip, float seconds) {
  std::vector<Transform> local(asset.skeleton.rest_pose().begin(),
                               asset.skeleton.rest_pose().end());
  EXPECT_TRUE(sample_tracks(clip, seconds, local));
  return local;
}

}  // namespace marrow::test
