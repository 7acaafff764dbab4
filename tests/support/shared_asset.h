// The shared assets (../shared/assets) the tests and benchmarks read, each loaded once per
// program (from one thread: the cache has no lock).
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "marrow/io/asset.h"

namespace marrow::test {

// ../shared/assets (the folder CMake's MARROW_SHARED_DIR names, then assets/).
inline std::filesystem::path shared_asset_dir() {
  return std::filesystem::path(MARROW_SHARED_DIR) / "assets";
}

// The path of `relative` under the shared assets, whether or not it is there.
inline std::string shared_asset_path(const std::string& relative) {
  return std::string(MARROW_SHARED_DIR) + "/assets/" + relative;
}

// The asset at `relative` under the shared assets, or null with `why` set (absent, or the error).
inline const Asset* shared_asset(const std::string& relative, std::string& why) {
  static std::map<std::string, std::unique_ptr<Asset>> cache;
  const std::filesystem::path path = shared_asset_dir() / relative;
  if (!std::filesystem::exists(path)) {
    why = path.string() + " is absent";
    return nullptr;
  }
  auto it = cache.find(relative);
  if (it == cache.end()) {
    Result<Asset> a = load_asset(path.string());
    if (!a) {
      why = a.error().message;
      return nullptr;
    }
    it = cache.emplace(relative, std::make_unique<Asset>(std::move(a).value())).first;
  }
  return it->second.get();
}

}  // namespace marrow::test
