// The independent reference poses of ../shared/reference (three.js's global transforms of every
// clip of the glTF assets), read once, and the match criterion its README states, written once
// for every suite that holds a pose to them.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "marrow/math/mat4.h"

namespace marrow::test {

struct ReferenceClip {
  std::string file;  // under ../shared/assets/gltf
  std::string clip;
  int clip_index = 0;
  double duration = 0;
  struct Node {
    std::int64_t index = 0;           // the glTF node
    std::optional<std::string> name;  // null in the file when the node has none
  };
  std::vector<Node> nodes;
  struct Sample {
    float t = 0;
    std::vector<std::array<double, 16>> world;  // per node, column-major
  };
  std::vector<Sample> samples;
  double extent = 1;  // of the reference's node positions over all samples (1 when none)
};

// ../shared/reference/gltf: every reference file, sorted (empty when the folder is absent).
inline std::vector<std::filesystem::path> reference_files() {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  const std::filesystem::path dir = std::filesystem::path(MARROW_SHARED_DIR) / "reference" / "gltf";
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

inline std::filesystem::path reference_file(const std::string& asset, int clip) {
  return std::filesystem::path(MARROW_SHARED_DIR) / "reference" / "gltf" /
         (asset + ".clip" + std::to_string(clip) + ".json");
}

// The reference at `path`, or nothing with `why` set (absent or unreadable).
inline std::optional<ReferenceClip> read_reference(const std::filesystem::path& path,
                                                   std::string& why) {
  std::ifstream in(path);
  if (!in) {
    why = path.string() + " is absent";
    return std::nullopt;
  }
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded()) {
    why = path.string() + " is not JSON";
    return std::nullopt;
  }
  ReferenceClip r;
  r.file = j["file"].get<std::string>();
  r.clip = j["clip"].get<std::string>();
  r.clip_index = j["clip_index"].get<int>();
  r.duration = j["duration"].get<double>();
  for (const nlohmann::json& n : j["nodes"]) {
    ReferenceClip::Node node{n["index"].get<std::int64_t>(), std::nullopt};
    if (n["name"].is_string()) node.name = n["name"].get<std::string>();
    r.nodes.push_back(std::move(node));
  }
  double lo[3] = {1e300, 1e300, 1e300}, hi[3] = {-1e300, -1e300, -1e300};
  for (const nlohmann::json& s : j["samples"]) {
    ReferenceClip::Sample sample{s["t"].get<float>(), {}};
    for (const nlohmann::json& w : s["world"]) {
      std::array<double, 16> m{};
      for (int e = 0; e < 16; ++e) m[e] = w[e].get<double>();
      for (int k = 0; k < 3; ++k)
        lo[k] = std::min(lo[k], m[12 + k]), hi[k] = std::max(hi[k], m[12 + k]);
      sample.world.push_back(m);
    }
    r.samples.push_back(std::move(sample));
  }
  r.extent = std::max({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]});
  if (!(r.extent > 0)) r.extent = 1;
  return r;
}

// Where `got` (node n's model matrix at sample s) misses the reference by its README's criterion
// (position within 1e-3 of the extent; 3x3 part within 1e-3 of its largest column norm), or an
// empty string when it matches.
inline std::string reference_mismatch(const ReferenceClip& ref, std::size_t s, std::size_t n,
                                      const Mat4& got) {
  const std::array<double, 16>& want = ref.samples[s].world[n];
  double position = 0;
  for (int k = 0; k < 3; ++k) position += std::pow(got.m[12 + k] - want[12 + k], 2);
  position = std::sqrt(position);
  double column = 0, rotation = 0;
  for (int c = 0; c < 3; ++c) {
    double norm = 0;
    for (int r = 0; r < 3; ++r) {
      norm += want[c * 4 + r] * want[c * 4 + r];
      rotation = std::max(rotation, std::abs(got.m[c * 4 + r] - want[c * 4 + r]));
    }
    column = std::max(column, std::sqrt(norm));
  }
  std::ostringstream out;
  const auto where = [&] {
    return ref.file + " clip " + std::to_string(ref.clip_index) + " node " +
           std::to_string(ref.nodes[n].index) + " at t=" + std::to_string(ref.samples[s].t);
  };
  if (!(position <= 1e-3 * ref.extent)) {
    out << where() << ": position off by " << position << " (allowed " << 1e-3 * ref.extent << ")";
  } else if (!(rotation <= 1e-3 * std::max(column, 1e-12))) {
    out << where() << ": 3x3 part off by " << rotation << " (allowed " << 1e-3 * column << ")";
  }
  return out.str();
}

}  // namespace marrow::test
