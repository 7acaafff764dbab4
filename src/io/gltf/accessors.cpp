#include "accessors.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "gltf_error.h"

namespace marrow::gltf {

std::string path(const std::string& parent, const char* key) {
  return parent + "." + key;
}
std::string path(const std::string& parent, std::size_t index) {
  return parent + "[" + std::to_string(index) + "]";
}
std::string path(const char* array, std::size_t index) {
  return std::string(array) + "[" + std::to_string(index) + "]";
}

std::string brief(const Json& value) {
  constexpr std::size_t kLongest = 40;
  if (value.is_array()) return "an array";
  if (value.is_object()) return "an object";
  if (value.is_string() && value.get_ref<const std::string&>().size() > kLongest) {
    const Json cut = value.get_ref<const std::string&>().substr(0, kLongest);
    // The cut may split a UTF-8 sequence: replace it rather than throw.
    return cut.dump(-1, ' ', false, Json::error_handler_t::replace) + "...";
  }
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

const Json* find_member(const Json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

const Json& require_member(const Document& doc, const Json& object, const char* key,
                           const std::string& where) {
  const Json* m = find_member(object, key);
  if (!m) fail(doc.name, path(where, key) + " is missing");
  return *m;
}

std::uint64_t require_index(const Document& doc, const Json& value, const std::string& where) {
  if (!value.is_number_integer() ||
      (value.is_number_integer() && value.get<std::int64_t>() < 0 && !value.is_number_unsigned())) {
    fail(doc.name, where + " must be a non-negative integer, found " + brief(value));
  }
  return value.get<std::uint64_t>();
}

std::uint64_t index_member(const Document& doc, const Json& object, const char* key,
                           const std::string& where, std::uint64_t fallback) {
  const Json* m = find_member(object, key);
  return m ? require_index(doc, *m, path(where, key)) : fallback;
}

std::size_t array_size(const Document& doc, const char* array) {
  const Json* a = find_member(doc.json, array);
  if (!a) return 0;
  if (!a->is_array()) fail(doc.name, std::string(array) + " must be an array");
  return a->size();
}

const Json& element(const Document& doc, const char* array, std::uint64_t index,
                    const std::string& where) {
  const std::size_t n = array_size(doc, array);
  if (index >= n) {
    fail(doc.name, where + " = " + std::to_string(index) + " is out of range: the file has " +
                       std::to_string(n) + " " + array);
  }
  const Json& e = doc.json[array][index];
  if (!e.is_object()) fail(doc.name, path(array, index) + " must be an object");
  return e;
}

namespace {

constexpr std::uint64_t kMaxBufferBytes = 1ull << 31;  // a hostile byteLength cannot exhaust memory
constexpr std::uint64_t kMaxAccessorFloats = 1ull << 27;

}  // namespace

std::vector<std::uint8_t> decode_base64(const Document& doc, std::string_view text,
                                        const std::string& where) {
  auto value_of = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+' || c == '-') return 62;
    if (c == '/' || c == '_') return 63;
    return -1;
  };
  std::vector<std::uint8_t> out;
  out.reserve(text.size() / 4 * 3);
  std::uint32_t acc = 0;
  int bits = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '=') break;
    if (c == '\n' || c == '\r' || c == ' ') continue;
    const int v = value_of(c);
    if (v < 0) fail(doc.name, where + ": invalid base64 character at offset " + std::to_string(i));
    acc = (acc << 6) | std::uint32_t(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(std::uint8_t((acc >> bits) & 0xFF));
    }
  }
  return out;
}

std::string percent_decode(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out.push_back(static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16)));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

namespace {

std::vector<std::uint8_t> read_external(const Document& doc, const std::string& uri,
                                        std::uint64_t byte_length, const std::string& where) {
  // Only files beside the document or below its folder: a file from anywhere must not make
  // marrow read (and, converted, hand on) /etc/passwd or ../../secrets.
  const std::filesystem::path relative =
      std::filesystem::path(percent_decode(uri)).lexically_normal();
  if (relative.has_root_path() || (!relative.empty() && *relative.begin() == "..")) {
    fail(doc.name, where + ": '" + uri +
                       "' leaves the document's folder; buffer files are read from beside it only");
  }
  const std::filesystem::path file = std::filesystem::path(doc.base_dir) / relative;
  std::error_code ec;
  const auto size = std::filesystem::file_size(file, ec);
  if (ec) fail(doc.name, where + ": cannot open buffer file '" + file.string() + "'");
  if (size < byte_length) {
    fail(doc.name, where + ": buffer file '" + file.string() + "' has " + std::to_string(size) +
                       " bytes, byteLength says " + std::to_string(byte_length));
  }
  doc.budget.add_input(byte_length);  // an external buffer is part of the document
  doc.budget.charge(byte_length, [&] { return doc.name + ": " + where; });
  std::ifstream in(file, std::ios::binary);
  std::vector<std::uint8_t> data(byte_length);
  if (!in.read(reinterpret_cast<char*>(data.data()), static_cast<std::streamsize>(byte_length))) {
    fail(doc.name, where + ": cannot read buffer file '" + file.string() + "'");
  }
  return data;
}

}  // namespace

void load_buffers(Document& doc, const std::vector<std::uint8_t>* glb_bin) {
  const std::size_t n = array_size(doc, "buffers");
  doc.buffers.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::string where = path("buffers", i);
    const Json& buffer = element(doc, "buffers", i, where);
    const std::uint64_t byte_length = require_index(
        doc, require_member(doc, buffer, "byteLength", where), path(where, "byteLength"));
    if (byte_length > kMaxBufferBytes) {
      fail(doc.name,
           path(where, "byteLength") + " = " + std::to_string(byte_length) + " is too large");
    }
    const Json* uri = find_member(buffer, "uri");
    std::vector<std::uint8_t> data;
    if (!uri) {
      if (i != 0 || !glb_bin) fail(doc.name, where + " has no uri and there is no GLB BIN chunk");
      doc.budget.charge(glb_bin->size(), [&] { return doc.name + ": " + where; });
      data = *glb_bin;
    } else {
      if (!uri->is_string()) fail(doc.name, path(where, "uri") + " must be a string");
      const std::string& u = uri->get_ref<const std::string&>();
      if (u.rfind("data:", 0) == 0) {
        const auto comma = u.find(',');
        if (comma == std::string::npos || u.substr(0, comma).find(";base64") == std::string::npos) {
          fail(doc.name, path(where, "uri") + ": only base64 data URIs are supported");
        }
        doc.budget.charge(u.size() / 4 * 3, [&] { return doc.name + ": " + where; });
        data = decode_base64(doc, std::string_view(u).substr(comma + 1), path(where, "uri"));
      } else {
        data = read_external(doc, u, byte_length, path(where, "uri"));
      }
    }
    if (data.size() < byte_length) {
      fail(doc.name, where + " holds " + std::to_string(data.size()) + " bytes but byteLength is " +
                         std::to_string(byte_length) + " (truncated?)");
    }
    data.resize(byte_length);
    doc.buffers[i] = std::move(data);
  }
}

namespace {

int components_of_type(const Document& doc, const std::string& type, const std::string& where) {
  if (type == "SCALAR") return 1;
  if (type == "VEC2") return 2;
  if (type == "VEC3") return 3;
  if (type == "VEC4") return 4;
  if (type == "MAT2") return 4;
  if (type == "MAT3") return 9;
  if (type == "MAT4") return 16;
  fail(doc.name, where + ": unknown accessor type '" + type + "'");
}

int component_size(const Document& doc, int component_type, const std::string& where) {
  switch (component_type) {
    case 5120:
    case 5121:
      return 1;
    case 5122:
    case 5123:
      return 2;
    case 5125:
    case 5126:
      return 4;
  }
  fail(doc.name, where + ": unknown componentType " + std::to_string(component_type));
}

// A view into a buffer: the bytes of one bufferView, plus its stride (0 when tightly packed).
struct ViewBytes {
  const std::uint8_t* data = nullptr;
  std::size_t size = 0;
  std::size_t stride = 0;
};

ViewBytes buffer_view(const Document& doc, std::uint64_t index, const std::string& where) {
  const std::string vp = path("bufferViews", index);
  const Json& view = element(doc, "bufferViews", index, where);
  const std::uint64_t buffer =
      require_index(doc, require_member(doc, view, "buffer", vp), path(vp, "buffer"));
  if (buffer >= doc.buffers.size()) {
    fail(doc.name, path(vp, "buffer") + " = " + std::to_string(buffer) +
                       " is out of range: the file has " + std::to_string(doc.buffers.size()) +
                       " buffers");
  }
  const std::uint64_t offset = index_member(doc, view, "byteOffset", vp, 0);
  const std::uint64_t length =
      require_index(doc, require_member(doc, view, "byteLength", vp), path(vp, "byteLength"));
  const auto& data = doc.buffers[buffer];
  if (offset > data.size() || length > data.size() - offset) {
    fail(doc.name, vp + ": bytes [" + std::to_string(offset) + ", " +
                       std::to_string(offset + length) + ") run past buffer " +
                       std::to_string(buffer) + " of " + std::to_string(data.size()) + " bytes");
  }
  ViewBytes v;
  v.data = data.data() + offset;
  v.size = length;
  v.stride = index_member(doc, view, "byteStride", vp, 0);
  if (v.stride != 0 && (v.stride < 4 || v.stride > 252)) {
    fail(doc.name,
         path(vp, "byteStride") + " = " + std::to_string(v.stride) + " is outside [4, 252]");
  }
  return v;
}

double read_component(const std::uint8_t* p, int component_type, bool normalized) {
  switch (component_type) {
    case 5120: {
      std::int8_t v;
      std::memcpy(&v, p, 1);
      return normalized ? std::max(v / 127.0, -1.0) : v;
    }
    case 5121:
      return normalized ? *p / 255.0 : *p;
    case 5122: {
      std::int16_t v;
      std::memcpy(&v, p, 2);
      return normalized ? std::max(v / 32767.0, -1.0) : v;
    }
    case 5123: {
      std::uint16_t v;
      std::memcpy(&v, p, 2);
      return normalized ? v / 65535.0 : v;
    }
    case 5125: {
      std::uint32_t v;
      std::memcpy(&v, p, 4);
      return normalized ? v / 4294967295.0 : v;
    }
    default: {
      float v;
      std::memcpy(&v, p, 4);
      return v;
    }
  }
}

struct Layout {
  std::size_t element_size = 0;
  std::vector<std::size_t> offsets;  // per component
};

// Matrix columns of 1- and 2-byte components start on 4-byte boundaries (glTF 2.0 §3.6.2.4).
Layout element_layout(const std::string& type, int components, int size) {
  Layout layout;
  layout.offsets.resize(components);
  int rows = 0;
  if (type == "MAT2") rows = 2;
  if (type == "MAT3") rows = 3;
  if (type == "MAT4") rows = 4;
  if (rows == 0) {
    for (int c = 0; c < components; ++c) layout.offsets[c] = static_cast<std::size_t>(c) * size;
    layout.element_size = static_cast<std::size_t>(components) * size;
    return layout;
  }
  const std::size_t column = (static_cast<std::size_t>(rows) * size + 3) & ~std::size_t(3);
  for (int c = 0; c < components; ++c) {
    layout.offsets[c] = (c / rows) * column + (c % rows) * static_cast<std::size_t>(size);
  }
  layout.element_size = column * rows;
  return layout;
}

template <typename Emit>
void decode(const Document& doc, std::uint64_t index, const std::string& where, Emit emit,
            AccessorShape& shape) {
  const std::string ap = path("accessors", index);
  const Json& accessor = element(doc, "accessors", index, where);
  shape = accessor_shape(doc, index, where);
  const int size = component_size(doc, shape.component_type, path(ap, "componentType"));
  const Layout layout = element_layout(shape.type, shape.components, size);

  if (const Json* view_index = find_member(accessor, "bufferView")) {
    const ViewBytes view = buffer_view(doc, require_index(doc, *view_index, path(ap, "bufferView")),
                                       path(ap, "bufferView"));
    const std::uint64_t offset = index_member(doc, accessor, "byteOffset", ap, 0);
    const std::size_t stride = view.stride ? view.stride : layout.element_size;
    if (view.stride && view.stride < layout.element_size) {
      fail(doc.name, ap + ": byteStride " + std::to_string(view.stride) +
                         " is smaller than one element (" + std::to_string(layout.element_size) +
                         " bytes)");
    }
    if (shape.count > 0) {
      const std::uint64_t end = offset + (shape.count - 1) * stride + layout.element_size;
      if (offset > view.size || end > view.size) {
        fail(doc.name, ap + ": " + std::to_string(shape.count) + " elements from byte " +
                           std::to_string(offset) + " need " + std::to_string(end) +
                           " bytes, but bufferView has " + std::to_string(view.size));
      }
    }
    for (std::size_t e = 0; e < shape.count; ++e) {
      const std::uint8_t* base = view.data + offset + e * stride;
      for (int c = 0; c < shape.components; ++c) {
        emit(e * shape.components + c, base + layout.offsets[c], shape.component_type,
             shape.normalized);
      }
    }
  }
  // Without a bufferView the accessor starts as zeros (the caller's arrays are zeroed).

  if (const Json* sparse = find_member(accessor, "sparse")) {
    const std::string sp = path(ap, "sparse");
    const std::uint64_t count =
        require_index(doc, require_member(doc, *sparse, "count", sp), path(sp, "count"));
    if (count == 0 || count > shape.count) {
      fail(doc.name, path(sp, "count") + " = " + std::to_string(count) + " must be in [1, " +
                         std::to_string(shape.count) + "]");
    }
    const Json& indices = require_member(doc, *sparse, "indices", sp);
    const Json& values = require_member(doc, *sparse, "values", sp);
    const std::string ip = path(sp, "indices"), vp = path(sp, "values");
    const ViewBytes iview = buffer_view(
        doc,
        require_index(doc, require_member(doc, indices, "bufferView", ip), path(ip, "bufferView")),
        path(ip, "bufferView"));
    const ViewBytes vview = buffer_view(
        doc,
        require_index(doc, require_member(doc, values, "bufferView", vp), path(vp, "bufferView")),
        path(vp, "bufferView"));
    // Compared before narrowing, so 2^32 + 5121 is not taken for 5121.
    const std::uint64_t itype_value = require_index(
        doc, require_member(doc, indices, "componentType", ip), path(ip, "componentType"));
    if (itype_value != 5121 && itype_value != 5123 && itype_value != 5125) {
      fail(doc.name, path(ip, "componentType") + " = " + std::to_string(itype_value) +
                         " must be an unsigned integer type");
    }
    const int itype = static_cast<int>(itype_value);
    const int isize = component_size(doc, itype, ip);
    const std::uint64_t ioffset = index_member(doc, indices, "byteOffset", ip, 0);
    const std::uint64_t voffset = index_member(doc, values, "byteOffset", vp, 0);
    if (ioffset > iview.size || count * isize > iview.size - ioffset) {
      fail(doc.name, ip + ": " + std::to_string(count) + " indices run past their bufferView");
    }
    if (voffset > vview.size || count * layout.element_size > vview.size - voffset) {
      fail(doc.name, vp + ": " + std::to_string(count) + " values run past their bufferView");
    }
    std::int64_t previous = -1;
    for (std::size_t s = 0; s < count; ++s) {
      const auto target =
          static_cast<std::int64_t>(read_component(iview.data + ioffset + s * isize, itype, false));
      if (target <= previous || static_cast<std::uint64_t>(target) >= shape.count) {
        fail(doc.name, ip + ": index " + std::to_string(s) + " = " + std::to_string(target) +
                           " is out of range or not increasing");
      }
      previous = target;
      const std::uint8_t* base = vview.data + voffset + s * layout.element_size;
      for (int c = 0; c < shape.components; ++c) {
        emit(static_cast<std::size_t>(target) * shape.components + c, base + layout.offsets[c],
             shape.component_type, shape.normalized);
      }
    }
  }
}

}  // namespace

namespace {

// Every decode is charged, also of an accessor decoded before: a small document that points many
// meshes at one big accessor (or at one without a bufferView, which decodes to zeros) pays for
// each copy.
void charge_decoded(const Document& doc, std::uint64_t index, const AccessorShape& shape,
                    const std::string& where) {
  doc.budget.charge(shape.count, 4 * static_cast<std::uint64_t>(shape.components), [&] {
    return doc.name + ": " + where + " (" + path("accessors", index) + ", " +
           std::to_string(shape.count) + " x " + shape.type + ")";
  });
}

}  // namespace

AccessorShape accessor_shape(const Document& doc, std::uint64_t index, const std::string& where) {
  const std::string ap = path("accessors", index);
  const Json& accessor = element(doc, "accessors", index, where);
  AccessorShape shape;
  shape.count = require_index(doc, require_member(doc, accessor, "count", ap), path(ap, "count"));
  const Json& type = require_member(doc, accessor, "type", ap);
  if (!type.is_string()) fail(doc.name, path(ap, "type") + " must be a string");
  shape.type = type.get<std::string>();
  shape.components = components_of_type(doc, shape.type, path(ap, "type"));
  const std::uint64_t component_type = require_index(
      doc, require_member(doc, accessor, "componentType", ap), path(ap, "componentType"));
  if (component_type > 0xFFFF) {  // checked before narrowing: 2^32 + 5126 is not 5126
    fail(doc.name,
         path(ap, "componentType") + ": unknown componentType " + std::to_string(component_type));
  }
  shape.component_type = static_cast<int>(component_type);
  component_size(doc, shape.component_type, path(ap, "componentType"));
  if (const Json* n = find_member(accessor, "normalized")) {
    if (!n->is_boolean()) fail(doc.name, path(ap, "normalized") + " must be a boolean");
    shape.normalized = n->get<bool>();
  }
  // Divided, not multiplied: count * components can wrap around 2^64 (count = 2^60 of MAT4
  // gives 0) and would pass, leaving the decoder to write past a too-small array.
  if (shape.count > kMaxAccessorFloats / static_cast<std::uint64_t>(shape.components)) {
    fail(doc.name, path(ap, "count") + " = " + std::to_string(shape.count) + " is too large");
  }
  return shape;
}

std::vector<float> read_floats(const Document& doc, std::uint64_t index, const std::string& where) {
  AccessorShape shape = accessor_shape(doc, index, where);
  charge_decoded(doc, index, shape, where);
  std::vector<float> out(shape.count * shape.components, 0.0f);
  decode(
      doc, index, where,
      [&](std::size_t i, const std::uint8_t* p, int type, bool normalized) {
        out[i] = static_cast<float>(read_component(p, type, normalized));
      },
      shape);
  return out;
}

std::vector<std::uint32_t> read_uints(const Document& doc, std::uint64_t index,
                                      const std::string& where) {
  AccessorShape shape = accessor_shape(doc, index, where);
  if (shape.component_type == 5126 || shape.component_type == 5120 ||
      shape.component_type == 5122) {
    fail(doc.name, path("accessors", index) + ": componentType " +
                       std::to_string(shape.component_type) +
                       " where an unsigned integer type is required (" + where + ")");
  }
  charge_decoded(doc, index, shape, where);
  std::vector<std::uint32_t> out(shape.count * shape.components, 0u);
  decode(
      doc, index, where,
      [&](std::size_t i, const std::uint8_t* p, int type, bool) {
        out[i] = static_cast<std::uint32_t>(read_component(p, type, false));
      },
      shape);
  return out;
}

std::span<const std::uint8_t> buffer_view_bytes(const Document& doc, std::uint64_t index,
                                                const std::string& where) {
  const ViewBytes v = buffer_view(doc, index, where);
  return {v.data, v.size};
}

}  // namespace marrow::gltf
