// Shared helpers for the format tests: assets, temporary folders, comparing assets and poses,
// running the marrow binary and the glTF validator as processes.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../../common/whole_file.h"
#include "marrow/io/asset.h"
#include "marrow/io/pose_dump.h"
#include "shared_asset.h"

namespace formats_test {

namespace fs = std::filesystem;
using Bytes = std::vector<std::uint8_t>;

inline std::string shared_asset(const std::string& relative) {
  return marrow::test::shared_asset_path(relative);
}

#define MARROW_REQUIRE_FILE(path)                                             \
  do {                                                                        \
    if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is absent"; \
  } while (0)

class TempDir {
 public:
  explicit TempDir(const std::string& tag) {
    path_ =
        fs::temp_directory_path() / ("marrow_formats_" + tag + "_" + std::to_string(::getpid()) +
                                     "_" + std::to_string(counter()++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  fs::path operator/(const std::string& name) const { return path_ / name; }
  const fs::path& path() const { return path_; }
  // Names of the files in the folder, sorted.
  std::vector<std::string> files() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(path_)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  static int& counter() {
    static int c = 0;
    return c;
  }
  fs::path path_;
};

inline Bytes read_file(const fs::path& path) {
  return marrow::test::whole_file<Bytes>(path);
}

inline void write_file(const fs::path& path, const Bytes& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

inline void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

inline std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

struct Outcome {
  int exit_code = -1;  // -1 when the process did not exit normally
  std::string out, err;
};

// Runs a shell command line, capturing stdout and stderr.
inline Outcome run_command(const TempDir& dir, const std::string& command) {
  const fs::path out = dir / "stdout.txt", err = dir / "stderr.txt";
  const int status =
      std::system((command + " >" + quote(out.string()) + " 2>" + quote(err.string())).c_str());
  Outcome run;
  if (status != -1 && WIFEXITED(status)) run.exit_code = WEXITSTATUS(status);
  const Bytes o = read_file(out), e = read_file(err);
  run.out.assign(o.begin(), o.end());
  run.err.assign(e.begin(), e.end());
  fs::remove(out);
  fs::remove(err);
  return run;
}

inline Outcome run_marrow(const TempDir& dir, const std::vector<std::string>& args) {
  std::string command = quote(MARROW_BIN);
  for (const std::string& a : args) command += " " + quote(a);
  return run_command(dir, command);
}

// Runs the Khronos validator on `file`. Skips the calling test when node or the package is
// missing (the ctest fixture installs it into the build tree).
struct Validation {
  bool ran = false;
  int errors = -1;
  std::string report;
};

// Several files in one run of node (totals over all of them; the report names each file).
inline Validation validate_gltf(const std::vector<fs::path>& files) {
  Validation v;
  const std::string node = MARROW_NODE;
  const fs::path package = fs::path(MARROW_NPM_DIR) / "node_modules" / "gltf-validator";
  if (node.empty() || node.find("NOTFOUND") != std::string::npos || !fs::exists(package)) return v;
  std::string joined;
  for (const fs::path& f : files) joined += " " + quote(f.string());
  TempDir dir("validate");
  const Outcome o =
      run_command(dir, "NODE_PATH=" + quote((fs::path(MARROW_NPM_DIR) / "node_modules").string()) +
                           " " + quote(node) + " " + quote(MARROW_VALIDATE_SCRIPT) + " " + joined);
  v.report = o.out + o.err;
  if (o.exit_code == 0 || o.exit_code == 1) {
    const nlohmann::json j = nlohmann::json::parse(o.out, nullptr, false);
    if (j.is_object() && j.contains("errors")) {
      v.ran = true;
      v.errors = j["errors"].get<int>();
    }
  }
  return v;
}

inline Validation validate_gltf(const fs::path& file) {
  return validate_gltf(std::vector<fs::path>{file});
}

#define MARROW_EXPECT_VALID_GLTF(path)                                                      \
  do {                                                                                      \
    const ::formats_test::Validation v_ = ::formats_test::validate_gltf(path);              \
    if (!v_.ran) {                                                                          \
      if (v_.report.empty())                                                                \
        GTEST_SKIP() << "node or the gltf-validator package is missing (ctest installs it " \
                        "into the build tree with npm)";                                    \
      ADD_FAILURE() << "the validator did not run: " << v_.report;                          \
    } else {                                                                                \
      EXPECT_EQ(v_.errors, 0) << (path) << ": " << v_.report;                               \
    }                                                                                       \
  } while (0)

// The largest distance between any two joint origins of the rest pose: the "extent" errors are
// measured against.
inline float extent_of(const marrow::Asset& a, int clip) {
  const std::vector<float> t0 = {0};
  const marrow::PoseSamples s = marrow::sample_world(a, clip, t0);
  marrow::Vec3 lo{INFINITY, INFINITY, INFINITY}, hi{-INFINITY, -INFINITY, -INFINITY};
  for (const marrow::Mat4& m : s.world[0]) {
    const marrow::Vec3 p = m.translation();
    lo = {std::min(lo.x, p.x), std::min(lo.y, p.y), std::min(lo.z, p.z)};
    hi = {std::max(hi.x, p.x), std::max(hi.y, p.y), std::max(hi.z, p.z)};
  }
  return marrow::length(hi - lo);
}

// Largest difference of any matrix entry between two assets' world poses, joints matched by
// index, for clip `clip` at `times`.
inline float max_pose_difference(const marrow::Asset& a, int clip_a, const marrow::Asset& b,
                                 int clip_b, const std::vector<float>& times) {
  const marrow::PoseSamples sa = marrow::sample_world(a, clip_a, times);
  const marrow::PoseSamples sb = marrow::sample_world(b, clip_b, times);
  float worst = 0;
  for (std::size_t s = 0; s < times.size(); ++s) {
    EXPECT_EQ(sa.world[s].size(), sb.world[s].size());
    for (std::size_t j = 0; j < std::min(sa.world[s].size(), sb.world[s].size()); ++j) {
      for (int k = 0; k < 16; ++k) {
        worst = std::max(worst, std::abs(sa.world[s][j].m[static_cast<std::size_t>(k)] -
                                         sb.world[s][j].m[static_cast<std::size_t>(k)]));
      }
    }
  }
  return worst;
}

// Times spread over a clip: its start, end and interior points.
inline std::vector<float> times_over(float duration, int count = 7) {
  std::vector<float> t;
  for (int i = 0; i < count; ++i)
    t.push_back(duration * static_cast<float>(i) / static_cast<float>(count - 1));
  t.push_back(duration * 0.333f);
  return t;
}

}  // namespace formats_test
