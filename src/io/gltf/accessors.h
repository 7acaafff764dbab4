// The glTF document as the reader sees it: parsed JSON, decoded buffers, and accessor decoding
// into plain float or integer arrays (every component type, normalized integers, byte strides,
// matrix column padding and sparse substitution).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/budget.h"

namespace marrow::gltf {

using Json = nlohmann::json;

struct Document {
  std::string name;      // the file, for messages
  std::string base_dir;  // where external buffers are looked up
  Json json;
  std::vector<std::vector<std::uint8_t>> buffers;
  // What decoding may allocate across the whole document (buffers, every decoded accessor).
  // Charged by the const decoders too: it is bookkeeping about the reading, not document data.
  mutable io::DocumentBudget budget;
};

// Path strings for messages: "accessors[3].sparse".
std::string path(const std::string& parent, const char* key);
std::string path(const std::string& parent, std::size_t index);
std::string path(const char* array, std::size_t index);

// A JSON value as error messages quote it: numbers and short strings whole, longer strings cut,
// arrays and objects by kind only (a hostile, deeply nested value must not be serialized: that
// recursion can overflow the stack, and the message would be unbounded).
std::string brief(const Json& value);

// JSON access that fails with the file and the JSON path.
const Json* find_member(const Json& object, const char* key);
const Json& require_member(const Document& doc, const Json& object, const char* key,
                           const std::string& where);
std::uint64_t require_index(const Document& doc, const Json& value, const std::string& where);
std::uint64_t index_member(const Document& doc, const Json& object, const char* key,
                           const std::string& where, std::uint64_t fallback);
// The element `index` of top-level array `array` ("nodes", "accessors", ...), or an error
// naming the referring place `where` when it is out of range.
const Json& element(const Document& doc, const char* array, std::uint64_t index,
                    const std::string& where);
std::size_t array_size(const Document& doc, const char* array);

// Base64 (standard or URL-safe alphabet) of a data URI's payload.
std::vector<std::uint8_t> decode_base64(const Document& doc, std::string_view text,
                                        const std::string& where);
// A URI's %XX escapes decoded (for file names).
std::string percent_decode(std::string_view s);
// The bytes of bufferView `index` (an embedded image's), checked against its buffer.
std::span<const std::uint8_t> buffer_view_bytes(const Document& doc, std::uint64_t index,
                                                const std::string& where);

// Decodes all buffers (GLB BIN chunk, data URIs, external files).
void load_buffers(Document& doc, const std::vector<std::uint8_t>* glb_bin);

struct AccessorShape {
  std::size_t count = 0;
  int components = 0;      // 1 SCALAR ... 16 MAT4
  int component_type = 0;  // 5120 ... 5126
  bool normalized = false;
  std::string type;  // "SCALAR", "VEC3", ...
};

AccessorShape accessor_shape(const Document& doc, std::uint64_t accessor, const std::string& where);
// Every element's components as floats (normalized integers mapped to [-1, 1] or [0, 1]).
std::vector<float> read_floats(const Document& doc, std::uint64_t accessor,
                               const std::string& where);
// Integer components (indices, joint indices); float accessors are refused.
std::vector<std::uint32_t> read_uints(const Document& doc, std::uint64_t accessor,
                                      const std::string& where);

}  // namespace marrow::gltf
