// Helpers for the .X tests: shared assets, a small writer of the binary token stream, MSZIP
// compression, and hand arithmetic on D3D (row-major, row-vector) matrices.
#pragma once

#include <gtest/gtest.h>
#include <zlib.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "marrow/clip/sampling.h"
#include "marrow/io/x_file.h"
#include "marrow/pose/local_to_model.h"
#include "shared_asset.h"

namespace marrow::xtest {

inline std::string x_asset(const std::string& name) {
  return marrow::test::shared_asset_path("x/") + name;
}

#define MARROW_REQUIRE_X_ASSET(path)                                          \
  do {                                                                        \
    if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is absent"; \
  } while (0)

inline Result<Asset> read_text(std::string_view text, const std::string& name = "mini.x") {
  return read_x(std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(text.data()),
                                              text.size()),
                name);
}

inline Result<Asset> read_bytes(const std::vector<std::uint8_t>& bytes,
                                const std::string& name = "mini.x") {
  return read_x(std::span<const std::uint8_t>(bytes), name);
}

// The 1-based line of the first occurrence of `marker` in `text`.
inline std::size_t line_of(std::string_view text, std::string_view marker, std::size_t from = 0) {
  const std::size_t at = text.find(marker, from);
  EXPECT_NE(at, std::string_view::npos) << marker;
  std::size_t line = 1;
  for (std::size_t i = 0; i < at && i < text.size(); ++i) line += text[i] == '\n';
  return line;
}

// A D3D matrix: row-major, row vectors, translation in the 4th row.
using D3D = std::array<double, 16>;

inline D3D d3d_mul(const D3D& a, const D3D& b) {
  D3D r{};
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) {
      double s = 0;
      for (int k = 0; k < 4; ++k) s += a[i * 4 + k] * b[k * 4 + j];
      r[i * 4 + j] = s;
    }
  }
  return r;
}

// D3DXMatrixRotationQuaternion: the row-vector matrix of quaternion (x, y, z, w).
inline D3D d3dx_rotation(double x, double y, double z, double w) {
  return {1 - 2 * (y * y + z * z),
          2 * (x * y + z * w),
          2 * (x * z - y * w),
          0,
          2 * (x * y - z * w),
          1 - 2 * (x * x + z * z),
          2 * (y * z + x * w),
          0,
          2 * (x * z + y * w),
          2 * (y * z - x * w),
          1 - 2 * (x * x + y * y),
          0,
          0,
          0,
          0,
          1};
}

// The key matrix the way D3DX composes an animation key: scale, then rotation, then translation
// (row vectors, so S * R * T). `q_file` is the quaternion as the file stores it (w, x, y, z);
// marrow's convention (docs/formats_x.md) is that it holds the inverse rotation.
inline D3D d3d_key_matrix(std::array<double, 3> s, std::array<double, 4> q_file,
                          std::array<double, 3> t) {
  const D3D S = {s[0], 0, 0, 0, 0, s[1], 0, 0, 0, 0, s[2], 0, 0, 0, 0, 1};
  const D3D R = d3dx_rotation(-q_file[1], -q_file[2], -q_file[3], q_file[0]);
  const D3D T = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, t[0], t[1], t[2], 1};
  return d3d_mul(d3d_mul(S, R), T);
}

// marrow's column-major column-vector model matrix is the transpose of the D3D one, which has
// the same memory layout: element i of one is element i of the other.
inline void expect_same_matrix(const Mat4& m, const D3D& d, double tol, const std::string& what) {
  for (int i = 0; i < 16; ++i) {
    EXPECT_NEAR(m.m[i], d[i], tol) << what << " element " << i;
  }
}

// Model matrices of every joint for `clip` at `time` (the rest pose when clip is null).
inline std::vector<Mat4> model_pose(const Asset& asset, const Clip* clip, float time) {
  std::vector<Transform> local(asset.skeleton.rest_pose().begin(),
                               asset.skeleton.rest_pose().end());
  if (clip) {
    SamplingCursor cursor(*clip);
    EXPECT_TRUE(sample(*clip, asset.skeleton.rest_pose(), time, cursor, local));
  }
  std::vector<Mat4> model(asset.skeleton.size());
  EXPECT_TRUE(local_to_model(asset.skeleton, local, model));
  return model;
}

inline std::vector<Transform> local_pose(const Asset& asset, const Clip& clip, float time) {
  std::vector<Transform> local(asset.skeleton.rest_pose().begin(),
                               asset.skeleton.rest_pose().end());
  SamplingCursor cursor(clip);
  EXPECT_TRUE(sample(clip, asset.skeleton.rest_pose(), time, cursor, local));
  return local;
}

inline const Clip* find_clip(const Asset& asset, std::string_view name) {
  for (const Clip& c : asset.clips) {
    if (c.name() == name) return &c;
  }
  return nullptr;
}

inline bool has_warning(const Asset& asset, std::string_view part) {
  for (const std::string& w : asset.warnings) {
    if (w.find(part) != std::string::npos) return true;
  }
  return false;
}

// A small text file with every feature the reader takes: a template declaration, comments, a
// frame hierarchy, a mesh with a quad and a triangle, per-corner normals that force a vertex
// split, texture coordinates, a material, two SkinWeights, ticks per second, and an
// AnimationSet with rotation, position and matrix keys.
inline const std::string kMiniText = R"(xof 0302txt 0032
// a comment
# another comment
template Foo {
 <12345678-1234-1234-1234-123456789abc>
 DWORD a;
 array FLOAT b[a];
 [...]
}
Header { 1; 0; 1; }
Frame Hip {
  FrameTransformMatrix {
    1,0,0,0, 0,1,0,0, 0,0,1,0, 1,2,3,1;;
  }
  Frame Knee {
    FrameTransformMatrix {
      0,1,0,0, -1,0,0,0, 0,0,1,0, 0,-1,0,1;;
    }
  }
  Mesh Body {
    5;
    0;0;0;, 1;0;0;, 1;1;0;, 0;1;0;, 0;0;1;;
    2;
    4;0,1,2,3;,
    3;0,1,4;;
    MeshNormals {
      2;
      0;0;1;, 0;1;0;;
      2;
      4;0,0,0,0;,
      3;1,1,1;;
    }
    MeshTextureCoords { 5; 0;0;, 1;0;, 1;1;, 0;1;, 0.5;0.5;; }
    MeshMaterialList { 1; 2; 0, 0;; Material { 1;1;1;1;; 0; 0;0;0;; 0;0;0;; } }
    XSkinMeshHeader { 2; 4; 2; }
    SkinWeights {
      "Hip";
      3;
      0, 1, 4;
      1.0, 0.25, 0.5;
      1,0,0,0, 0,1,0,0, 0,0,1,0, -1,-2,-3,1;;
    }
    SkinWeights {
      "Knee";
      2;
      1, 4;
      0.75, 0.5;
      0,-1,0,0, 1,0,0,0, 0,0,1,0, -1,1,-3,1;;
    }
  }
}
AnimTicksPerSecond { 30; }
AnimationSet Walk {
  Animation KneeAnim {
    { Knee }
    AnimationOptions { 1; 0; }
    AnimationKey {
      0;
      2;
      0;4;1,0,0,0;;,
      30;4;0.7071068,0,0,-0.7071068;;;
    }
    AnimationKey {
      2;
      2;
      0;3;0,-1,0;;,
      60;3;0,-2,0;;;
    }
  }
  Animation {
    { Hip }
    AnimationKey {
      4;
      2;
      0;16;1,0,0,0, 0,1,0,0, 0,0,1,0, 1,2,3,1;;,
      15;16;2,0,0,0, 0,0,2,0, 0,-2,0,0, 5,6,7,1;;;
    }
  }
}
)";

// `text` with the first occurrence of `from` replaced by `to` (which must exist).
inline std::string replaced(std::string text, std::string_view from, std::string_view to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// Writes the binary .X token stream (DirectX "Binary Format" token values).
class BinaryWriter {
 public:
  explicit BinaryWriter(bool float64 = false) : float64_(float64) {
    const char* header = float64 ? "xof 0303bin 0064" : "xof 0303bin 0032";
    bytes_.assign(header, header + 16);
  }
  BinaryWriter& name(std::string_view s) {
    word(1);
    dword(static_cast<std::uint32_t>(s.size()));
    bytes_.insert(bytes_.end(), s.begin(), s.end());
    return *this;
  }
  // TOKEN_STRING with its terminator; `dword_terminator` writes it as a DWORD as some writers do.
  BinaryWriter& string(std::string_view s, bool dword_terminator = false) {
    word(2);
    dword(static_cast<std::uint32_t>(s.size()));
    bytes_.insert(bytes_.end(), s.begin(), s.end());
    if (dword_terminator) {
      dword(20);
    } else {
      word(20);
    }
    return *this;
  }
  BinaryWriter& integer(std::uint32_t v) {
    word(3);
    dword(v);
    return *this;
  }
  BinaryWriter& guid() {
    word(5);
    for (int i = 0; i < 16; ++i) bytes_.push_back(static_cast<std::uint8_t>(i * 7));
    return *this;
  }
  BinaryWriter& integers(const std::vector<std::uint32_t>& v) {
    word(6);
    dword(static_cast<std::uint32_t>(v.size()));
    for (std::uint32_t x : v) dword(x);
    return *this;
  }
  BinaryWriter& floats(const std::vector<double>& v) {
    word(7);
    dword(static_cast<std::uint32_t>(v.size()));
    for (double x : v) {
      if (float64_) {
        std::uint8_t b[8];
        std::memcpy(b, &x, 8);
        bytes_.insert(bytes_.end(), b, b + 8);
      } else {
        const float f = static_cast<float>(x);
        std::uint8_t b[4];
        std::memcpy(b, &f, 4);
        bytes_.insert(bytes_.end(), b, b + 4);
      }
    }
    return *this;
  }
  BinaryWriter& open() { return word(10); }
  BinaryWriter& close() { return word(11); }
  BinaryWriter& semicolon() { return word(20); }
  BinaryWriter& comma() { return word(19); }
  BinaryWriter& token(std::uint16_t id) { return word(id); }
  // `Type name {` (name may be empty).
  BinaryWriter& object(std::string_view type, std::string_view object_name = {}) {
    name(type);
    if (!object_name.empty()) name(object_name);
    return open();
  }
  BinaryWriter& reference(std::string_view target) { return open().name(target).close(); }
  BinaryWriter& word(std::uint16_t v) {
    bytes_.push_back(static_cast<std::uint8_t>(v & 0xff));
    bytes_.push_back(static_cast<std::uint8_t>(v >> 8));
    return *this;
  }
  BinaryWriter& dword(std::uint32_t v) {
    for (int i = 0; i < 4; ++i) bytes_.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
    return *this;
  }
  const std::vector<std::uint8_t>& bytes() const { return bytes_; }

 private:
  bool float64_;
  std::vector<std::uint8_t> bytes_;
};

// Compresses a whole .X file (16-byte header + body) into MSZIP ('tzip' for text, 'bzip' for
// binary): blocks of at most `block` bytes, each a raw deflate stream whose dictionary is the
// data before it.
inline std::vector<std::uint8_t> mszip(const std::vector<std::uint8_t>& file, std::size_t block) {
  std::vector<std::uint8_t> out(file.begin(), file.begin() + 16);
  const bool binary = std::memcmp(file.data() + 8, "bin ", 4) == 0;
  std::memcpy(out.data() + 8, binary ? "bzip" : "tzip", 4);
  const std::uint32_t total = static_cast<std::uint32_t>(file.size());
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(total >> (8 * i)));
  for (std::size_t pos = 16; pos < file.size(); pos += block) {
    const std::size_t n = std::min(block, file.size() - pos);
    z_stream z{};
    EXPECT_EQ(deflateInit2(&z, 9, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
    if (pos > 16) {
      const std::size_t dict = std::min<std::size_t>(pos - 16, 32768);
      EXPECT_EQ(deflateSetDictionary(&z, file.data() + pos - dict, static_cast<uInt>(dict)), Z_OK);
    }
    std::vector<std::uint8_t> buf(deflateBound(&z, static_cast<uLong>(n)) + 16);
    z.next_in = const_cast<Bytef*>(file.data() + pos);
    z.avail_in = static_cast<uInt>(n);
    z.next_out = buf.data();
    z.avail_out = static_cast<uInt>(buf.size());
    EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
    const std::size_t c = buf.size() - z.avail_out;
    deflateEnd(&z);
    out.push_back(static_cast<std::uint8_t>(n & 0xff));
    out.push_back(static_cast<std::uint8_t>(n >> 8));
    out.push_back(static_cast<std::uint8_t>((c + 2) & 0xff));
    out.push_back(static_cast<std::uint8_t>((c + 2) >> 8));
    out.push_back('C');
    out.push_back('K');
    out.insert(out.end(), buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(c));
  }
  return out;
}

}  // namespace marrow::xtest
