// Small glTF documents made in memory: a JSON document, one binary buffer that typed arrays are
// appended to (each becoming a bufferView and an accessor), and the two ways to ship them: a
// .gltf text with the buffer as a base64 data URI, or a .glb container.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>
#include <vector>

#include <unistd.h>

#include "../common/whole_file.h"
#include "marrow/io/asset.h"
#include "marrow/io/gltf.h"
#include "shared_asset.h"

namespace gltf_test {

using Json = nlohmann::json;
using Bytes = std::vector<std::uint8_t>;

inline constexpr int kByte = 5120;
inline constexpr int kUByte = 5121;
inline constexpr int kShort = 5122;
inline constexpr int kUShort = 5123;
inline constexpr int kUInt = 5125;
inline constexpr int kFloat = 5126;

template <typename T>
constexpr int component_type_of() {
  if constexpr (std::is_same_v<T, std::int8_t>) return kByte;
  if constexpr (std::is_same_v<T, std::uint8_t>) return kUByte;
  if constexpr (std::is_same_v<T, std::int16_t>) return kShort;
  if constexpr (std::is_same_v<T, std::uint16_t>) return kUShort;
  if constexpr (std::is_same_v<T, std::uint32_t>) return kUInt;
  if constexpr (std::is_same_v<T, float>) return kFloat;
}

inline int components_of(const std::string& type) {
  if (type == "SCALAR") return 1;
  if (type == "VEC2") return 2;
  if (type == "VEC3") return 3;
  if (type == "VEC4") return 4;
  if (type == "MAT4") return 16;
  ADD_FAILURE() << "type " << type;
  return 1;
}

inline std::string base64(const Bytes& data) {
  static const char* kDigits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < data.size(); i += 3) {
    const std::uint32_t v = data[i] << 16 | data[i + 1] << 8 | data[i + 2];
    for (int s = 18; s >= 0; s -= 6) out.push_back(kDigits[(v >> s) & 63]);
  }
  if (i + 1 == data.size()) {
    const std::uint32_t v = data[i] << 16;
    out += {kDigits[(v >> 18) & 63], kDigits[(v >> 12) & 63], '=', '='};
  } else if (i + 2 == data.size()) {
    const std::uint32_t v = data[i] << 16 | data[i + 1] << 8;
    out += {kDigits[(v >> 18) & 63], kDigits[(v >> 12) & 63], kDigits[(v >> 6) & 63], '='};
  }
  return out;
}

inline std::string data_uri(const Bytes& data) {
  return "data:application/octet-stream;base64," + base64(data);
}

inline void put_u32(Bytes& out, std::uint32_t v) {
  for (int k = 0; k < 4; ++k) out.push_back(static_cast<std::uint8_t>(v >> (8 * k)));
}

struct Chunk {
  std::uint32_t type;
  Bytes data;
};

inline constexpr std::uint32_t kChunkJson = 0x4E4F534A;
inline constexpr std::uint32_t kChunkBin = 0x004E4942;

// A GLB container around the given chunks; chunks are padded to 4 bytes (JSON with spaces).
inline Bytes glb(const std::vector<Chunk>& chunks) {
  Bytes out;
  put_u32(out, 0x46546C67);
  put_u32(out, 2);
  put_u32(out, 0);  // total length, patched below
  for (const Chunk& c : chunks) {
    Bytes data = c.data;
    while (data.size() % 4) data.push_back(c.type == kChunkJson ? ' ' : 0);
    put_u32(out, static_cast<std::uint32_t>(data.size()));
    put_u32(out, c.type);
    out.insert(out.end(), data.begin(), data.end());
  }
  const auto length = static_cast<std::uint32_t>(out.size());
  for (int k = 0; k < 4; ++k) out[8 + k] = static_cast<std::uint8_t>(length >> (8 * k));
  return out;
}

inline Bytes to_bytes(const std::string& s) {
  return Bytes(s.begin(), s.end());
}

template <typename T>
Bytes bytes_of(const std::vector<T>& values) {
  Bytes out(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
  return out;
}

// A document under construction with one binary buffer (buffers[0]).
struct Builder {
  Json doc = {{"asset", {{"version", "2.0"}}}};
  Bytes bin;

  // Appends `data` (4-byte aligned) as a new bufferView; returns its index.
  int view(const Bytes& data, int stride = 0) {
    while (bin.size() % 4) bin.push_back(0);
    Json v = {{"buffer", 0}, {"byteOffset", bin.size()}, {"byteLength", data.size()}};
    if (stride) v["byteStride"] = stride;
    bin.insert(bin.end(), data.begin(), data.end());
    doc["bufferViews"].push_back(v);
    return static_cast<int>(doc["bufferViews"].size()) - 1;
  }

  // Adds an accessor; returns its index.
  int accessor(Json a) {
    doc["accessors"].push_back(std::move(a));
    return static_cast<int>(doc["accessors"].size()) - 1;
  }

  // A tightly packed accessor over `values` of the given element type ("VEC3", ...).
  template <typename T>
  int add(const std::vector<T>& values, const std::string& type, bool normalized = false) {
    const int v = view(bytes_of(values));
    Json a = {{"bufferView", v},
              {"componentType", component_type_of<T>()},
              {"count", values.size() / components_of(type)},
              {"type", type}};
    if (normalized) a["normalized"] = true;
    return accessor(std::move(a));
  }
  int floats(const std::vector<float>& values, const std::string& type) {
    return add(values, type);
  }

  int node(Json n) {
    doc["nodes"].push_back(std::move(n));
    return static_cast<int>(doc["nodes"].size()) - 1;
  }

  // One animation with one channel per (node, path, input, output, interpolation).
  struct Channel {
    int node;
    std::string path;
    int input;
    int output;
    std::string interpolation = "LINEAR";
  };
  int animation(const std::vector<Channel>& channels, const std::string& name = {}) {
    Json a = {{"channels", Json::array()}, {"samplers", Json::array()}};
    if (!name.empty()) a["name"] = name;
    for (const Channel& c : channels) {
      a["channels"].push_back(
          {{"sampler", a["samplers"].size()}, {"target", {{"node", c.node}, {"path", c.path}}}});
      a["samplers"].push_back(
          {{"input", c.input}, {"output", c.output}, {"interpolation", c.interpolation}});
    }
    doc["animations"].push_back(std::move(a));
    return static_cast<int>(doc["animations"].size()) - 1;
  }

  // The document with buffers[0] as a data URI (omitted when nothing was appended).
  Json with_data_uri() const {
    Json d = doc;
    if (!bin.empty() || doc.contains("bufferViews")) {
      d["buffers"] = Json::array({{{"byteLength", bin.size()}, {"uri", data_uri(bin)}}});
    }
    return d;
  }
  std::string gltf_text() const { return with_data_uri().dump(); }

  // The document as a .glb with buffers[0] in the BIN chunk.
  Bytes glb_bytes() const {
    Json d = doc;
    std::vector<Chunk> chunks;
    if (!bin.empty()) d["buffers"] = Json::array({{{"byteLength", bin.size()}}});
    chunks.push_back({kChunkJson, to_bytes(d.dump())});
    if (!bin.empty()) chunks.push_back({kChunkBin, bin});
    return glb(chunks);
  }
};

inline marrow::Result<marrow::Asset> read_text(const std::string& text,
                                               const std::string& name = "t.gltf",
                                               const std::string& base_dir = ".") {
  const Bytes bytes = to_bytes(text);
  return marrow::read_gltf(bytes, name, base_dir);
}

// Reads a document that must load; fails the test (and returns an empty asset) otherwise.
inline marrow::Asset load(const std::string& text, const std::string& name = "t.gltf") {
  marrow::Result<marrow::Asset> asset = read_text(text, name);
  EXPECT_TRUE(asset.ok()) << asset.error().message;
  if (!asset.ok()) return {};
  return std::move(asset).value();
}

inline marrow::Asset load_glb(const Bytes& bytes, const std::string& name = "t.glb") {
  marrow::Result<marrow::Asset> asset = marrow::read_gltf(bytes, name, ".");
  EXPECT_TRUE(asset.ok()) << asset.error().message;
  if (!asset.ok()) return {};
  return std::move(asset).value();
}

// A fresh empty directory under the system temp dir, removed by the destructor.
class TempDir {
 public:
  explicit TempDir(const std::string& tag) {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::temp_directory_path() /
            ("marrow_io_" + tag + "_" + (info ? std::string(info->name()) : "x") + "_" +
             std::to_string(::getpid()));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

inline void write_file(const std::filesystem::path& path, const Bytes& data) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
}

inline Bytes read_file(const std::filesystem::path& path) {
  return marrow::test::whole_file<Bytes>(path);
}

inline const std::filesystem::path kAssets = marrow::test::shared_asset_dir() / "gltf";

}  // namespace gltf_test
