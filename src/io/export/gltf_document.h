// The glTF document a writer builds: JSON plus one binary buffer, with helpers that append
// bufferViews and accessors (dense, integer, sparse). Shared by gltf_writer.cpp and
// gltf_morph_export.cpp. Private to src/io/export.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "marrow/math/vec3.h"

namespace marrow::gltf_out {

using Json = nlohmann::json;

constexpr int kFloat = 5126, kUnsignedByte = 5121, kUnsignedShort = 5123, kUnsignedInt = 5125;
constexpr int kArrayBuffer = 34962, kElementArrayBuffer = 34963;

struct ExportError {
  std::string message;
};

// An image the document's "images" entry `index` holds, placed by the export function: into the
// binary buffer (.glb, embedded .gltf) or into a file beside the .gltf.
struct ImageOut {
  std::size_t index = 0;
  std::vector<std::uint8_t> bytes;
  std::string mime_type;  // image/png or image/jpeg
};

class Document {
 public:
  Json json = Json::object();
  std::vector<std::uint8_t> bin;
  std::vector<ImageOut> images;

  // Appends raw bytes as a bufferView (aligned to 4) and returns its index.
  int add_view(const void* data, std::size_t bytes, std::optional<int> target) {
    while (bin.size() % 4 != 0) bin.push_back(0);
    Json view = {{"buffer", 0}, {"byteOffset", bin.size()}, {"byteLength", bytes}};
    if (target) view["target"] = *target;
    const auto* p = static_cast<const std::uint8_t*>(data);
    bin.insert(bin.end(), p, p + bytes);
    views().push_back(std::move(view));
    return static_cast<int>(views().size() - 1);
  }

  // A float accessor over `floats` (count * components), with min/max when asked.
  int add_floats(const std::vector<float>& floats, int components, const char* type,
                 std::optional<int> target, bool bounds) {
    const std::size_t count = floats.size() / static_cast<std::size_t>(components);
    const int view = add_view(floats.data(), floats.size() * sizeof(float), target);
    Json accessor = {
        {"bufferView", view}, {"componentType", kFloat}, {"count", count}, {"type", type}};
    if (bounds) {
      std::vector<float> lo(static_cast<std::size_t>(components), INFINITY);
      std::vector<float> hi(static_cast<std::size_t>(components), -INFINITY);
      for (std::size_t i = 0; i < floats.size(); ++i) {
        const std::size_t c = i % static_cast<std::size_t>(components);
        lo[c] = std::min(lo[c], floats[i]);
        hi[c] = std::max(hi[c], floats[i]);
      }
      accessor["min"] = to_doubles(lo);
      accessor["max"] = to_doubles(hi);
    }
    return push_accessor(std::move(accessor));
  }

  // A VEC3 float accessor of `count` elements that are zero except at `indices` (strictly
  // increasing), where they are `values`: a sparse accessor on zeros (no bufferView), or zeros
  // alone when nothing deviates. min/max cover the zeros too when `bounds`.
  int add_sparse_vec3(std::size_t count, const std::vector<std::uint32_t>& indices,
                      const std::vector<Vec3>& values, bool bounds) {
    Json accessor = {{"componentType", kFloat}, {"count", count}, {"type", "VEC3"}};
    if (!indices.empty()) {
      Json index_part;
      if (count <= 0xFFFF) {
        const std::vector<std::uint16_t> shorts(indices.begin(), indices.end());
        index_part = {{"bufferView", add_view(shorts.data(), shorts.size() * 2, std::nullopt)},
                      {"componentType", kUnsignedShort}};
      } else {
        index_part = {{"bufferView", add_view(indices.data(), indices.size() * 4, std::nullopt)},
                      {"componentType", kUnsignedInt}};
      }
      const int value_view = add_view(values.data(), values.size() * sizeof(Vec3), std::nullopt);
      accessor["sparse"] = {{"count", indices.size()},
                            {"indices", std::move(index_part)},
                            {"values", {{"bufferView", value_view}}}};
    }
    if (bounds) {
      // Zeros remain wherever fewer elements deviate than there are.
      const float start = indices.size() < count ? 0.0f : INFINITY;
      std::vector<float> lo(3, start), hi(3, indices.size() < count ? 0.0f : -INFINITY);
      for (const Vec3& v : values) {
        const float c[3] = {v.x, v.y, v.z};
        for (std::size_t k = 0; k < 3; ++k) {
          lo[k] = std::min(lo[k], c[k]);
          hi[k] = std::max(hi[k], c[k]);
        }
      }
      accessor["min"] = to_doubles(lo);
      accessor["max"] = to_doubles(hi);
    }
    return push_accessor(std::move(accessor));
  }

  template <typename T>
  int add_integers(const std::vector<T>& values, int component_type, const char* type,
                   std::size_t count, std::optional<int> target) {
    const int view = add_view(values.data(), values.size() * sizeof(T), target);
    return push_accessor({{"bufferView", view},
                          {"componentType", component_type},
                          {"count", count},
                          {"type", type}});
  }

  static Json to_doubles(const std::vector<float>& v) {
    Json a = Json::array();
    for (float f : v) a.push_back(static_cast<double>(f));
    return a;
  }

 private:
  Json& views() {
    if (!json.contains("bufferViews")) json["bufferViews"] = Json::array();
    return json["bufferViews"];
  }
  int push_accessor(Json accessor) {
    if (!json.contains("accessors")) json["accessors"] = Json::array();
    json["accessors"].push_back(std::move(accessor));
    return static_cast<int>(json["accessors"].size() - 1);
  }
};

}  // namespace marrow::gltf_out
