// DirectX .X → Asset. The parser reads the token stream (text or binary alike) into plain
// records, then the records are turned into a skeleton (every Frame a joint, in file order, which
// is parent-before-child), meshes with skins, and one clip per AnimationSet. Errors are thrown as
// XError deep in the parser and turned into a marrow::Error at the boundary; every message names
// the file and the line (text) or byte offset (binary).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <numeric>
#include <unordered_map>
#include <vector>

#include "common/reader_support.h"
#include "marrow/clip/clip_builder.h"
#include "marrow/io/x_file.h"
#include "x_mszip.h"
#include "x_tokenizer.h"

namespace marrow {
namespace {

using xfile::Token;
using xfile::TokenKind;
using xfile::XError;
using xfile::XTokenizer;

constexpr std::size_t kHeaderSize = 16;
using D3DMatrix = std::array<float, 16>;  // row-major, row vectors (translation in _41 _42 _43)
constexpr D3DMatrix kIdentity = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};

using io::iequals;

// Standard objects that carry nothing marrow keeps; skipped without a note.
bool is_ignorable(std::string_view type) {
  static constexpr std::string_view kIgnored[] = {"Header",
                                                  "Material",
                                                  "TextureFilename",
                                                  "KeyValuePair",
                                                  "XSkinMeshHeader",
                                                  "MeshMaterialList",
                                                  "VertexDuplicationIndices",
                                                  "AnimationOptions",
                                                  "ObjectMatrixComment",
                                                  "EffectInstance",
                                                  "EffectParamString",
                                                  "EffectParamDWord",
                                                  "EffectParamFloats",
                                                  "EffectFilename",
                                                  "AnimTicksPerSecond",
                                                  "MeshFaceWraps",
                                                  "SkinWeights",
                                                  "FrameTransformMatrix"};
  for (std::string_view s : kIgnored) {
    if (iequals(type, s)) return true;
  }
  return false;
}

// A name as it appears in messages.
std::string named(std::string_view s) {
  return "'" + std::string(s) + "'";
}

struct Header {
  std::string type;
  std::string name;
  std::size_t place = 0;
};

struct FrameRec {
  std::string name;
  std::int64_t parent = -1;
  std::size_t place = 0;
  bool has_matrix = false;
  std::size_t matrix_place = 0;
  D3DMatrix matrix = kIdentity;
};

struct SkinWeightsRec {
  std::string frame;
  std::size_t place = 0;
  std::vector<std::uint32_t> vertices;
  std::vector<float> weights;
  D3DMatrix offset = kIdentity;
  std::size_t offset_place = 0;
};

// A Material object: its face colour (RGBA as written: display values) and texture file.
struct MaterialRec {
  std::string name;
  std::array<float, 4> color{1, 1, 1, 1};
  std::string texture;  // TextureFilename as written (may use backslashes)
};

struct MeshRec {
  std::string name;
  std::size_t place = 0;
  std::int64_t frame = -1;
  bool top_level = false;
  std::vector<Vec3> positions;
  std::vector<std::uint32_t> face_offsets{0};  // faces + 1 offsets into face_indices
  std::vector<std::uint32_t> face_indices;
  bool has_normals = false;
  std::vector<Vec3> normals;
  std::vector<std::uint32_t> normal_indices;  // one per face corner, parallel to face_indices
  bool has_uvs = false;
  std::vector<std::array<float, 2>> uvs;
  std::vector<SkinWeightsRec> skin_weights;
  // From DeclData, per vertex: tangents (w = 1 unless the element had a 4th component) and
  // binormals, from which build_mesh derives the handedness.
  bool normals_from_decl = false;
  std::vector<std::array<float, 4>> tangents;
  std::vector<Vec3> binormals;
  // MeshMaterialList: the materials (nested, or top-level ones by name) and each face's.
  std::vector<MaterialRec> materials;
  std::vector<std::string> material_refs;  // parallel to materials: a name to resolve, or ""
  std::vector<std::uint32_t> face_materials;
};

struct MeshRef {
  std::size_t frame = 0;
  std::string name;
  std::size_t place = 0;
};

struct KeyRec {
  std::uint32_t type = 0;
  std::size_t place = 0;
  std::vector<std::uint32_t> ticks;
  std::vector<std::size_t> tick_places;
  std::vector<float> values;  // 4 (rotation w x y z), 3 (scale, position) or 16 (matrix) a key
};

struct AnimationRec {
  std::string name;
  std::size_t place = 0;
  std::string frame;
  std::size_t frame_place = 0;
  bool has_frame = false;
  std::vector<KeyRec> keys;
};

struct SetRec {
  std::string name;
  std::size_t place = 0;
  std::int64_t tps_before = -1;  // the last AnimTicksPerSecond read before the set, if any
  std::vector<AnimationRec> animations;
};

struct TicksRec {
  std::uint32_t value = 0;
  std::size_t place = 0;
};

class Parser {
 public:
  Parser(XTokenizer& tk, std::vector<std::string>& warnings) : tk_(tk), warnings_(warnings) {}

  std::vector<FrameRec> frames;
  std::vector<MeshRec> meshes;
  std::vector<MeshRef> mesh_refs;
  std::vector<SetRec> sets;
  SetRec loose;  // Animation objects outside any AnimationSet
  std::vector<TicksRec> ticks;
  std::vector<MaterialRec> named_materials;  // top-level Material objects

  void parse_file() {
    for (;;) {
      const Token t = tk_.next();
      switch (t.kind) {
        case TokenKind::kEnd:
          return;
        case TokenKind::kTemplate:
          skip_template(t);
          break;
        case TokenKind::kName:
          top_level_object(t);
          break;
        case TokenKind::kOpenBrace:
          read_reference(t);
          warn(t.place, "a reference at the top level means nothing and is skipped");
          break;
        default:
          fail(t.place, "expected a template or a data object, found " + describe(t));
      }
    }
  }

  std::string where(std::size_t place) const { return tk_.where(place); }
  [[noreturn]] void fail(std::size_t place, const std::string& what) const {
    tk_.fail(place, what);
  }

 private:
  void warn(std::size_t place, const std::string& what) {
    warnings_.push_back(where(place) + ": " + what);
  }

  // "line 12" or "byte 345", for "opened at ..." in messages.
  std::string at(std::size_t place) const {
    return (tk_.binary() ? "byte " : "line ") + std::to_string(place);
  }

  static std::string title(const Header& h) {
    return h.name.empty() ? h.type : h.type + " " + named(h.name);
  }

  void note_unknown(const Header& h, const char* why) {
    if (noted_.emplace(h.type, true).second) {
      warn(h.place, std::string(why) + ": objects of type " + named(h.type) + " are not read");
    }
  }

  // Skips an object marrow does not read: silently for the templates every exporter writes
  // (is_ignorable), with a one-time note per type otherwise.
  void skip_unread(const Header& h, const char* why) {
    if (!is_ignorable(h.type)) note_unknown(h, why);
    skip_body(h);
  }

  // Reads the children of `h` up to its closing brace: a reference '{ Name }' goes to
  // `on_reference`, a child object's header to `on_object`. Anything else is an error; where
  // `after_data` is given, stray data is reported as "more data than its counts say".
  template <typename OnReference, typename OnObject>
  void for_each_child(const Header& h, OnReference on_reference, OnObject on_object,
                      const char* after_data = nullptr) {
    for (;;) {
      const Token t = tk_.next();
      if (t.kind == TokenKind::kCloseBrace) return;
      if (t.kind == TokenKind::kOpenBrace) {
        on_reference(t);
        continue;
      }
      if (t.kind == TokenKind::kEnd) {
        fail(t.place, "the file ends inside " + title(h) + " opened at " + at(h.place));
      }
      if (t.kind != TokenKind::kName) {
        if (after_data) {
          fail(t.place, title(h) + " has more data than its counts say: found " + describe(t) +
                            " " + after_data);
        }
        fail(t.place, title(h) + ": expected an object, found " + describe(t));
      }
      on_object(read_header(t));
    }
  }

  // Identifier already read: [name] [<guid>] '{'.
  Header read_header(const Token& id) {
    Header h{std::string(id.text), {}, id.place};
    Token t = tk_.peek();
    if (t.kind == TokenKind::kName ||
        (!tk_.binary() && (t.kind == TokenKind::kInteger || t.kind == TokenKind::kFloat))) {
      h.name = std::string(t.text);
      tk_.next();
      t = tk_.peek();
    }
    if (t.kind == TokenKind::kGuid) {
      tk_.next();
      t = tk_.peek();
    }
    if (t.kind != TokenKind::kOpenBrace) {
      fail(t.place, "expected '{' to open " + title(h) + ", found " + describe(t));
    }
    tk_.next();
    return h;
  }

  // Skips the rest of an object whose '{' has been read.
  void skip_body(const Header& h) {
    std::size_t depth = 1;
    while (depth > 0) {
      const Token t = tk_.next();
      if (t.kind == TokenKind::kOpenBrace) ++depth;
      if (t.kind == TokenKind::kCloseBrace) --depth;
      if (t.kind == TokenKind::kEnd) {
        fail(t.place, "the file ends inside " + title(h) + " opened at " + at(h.place));
      }
    }
  }

  void skip_template(const Token& t) {
    const Token name = tk_.next();
    if (name.kind != TokenKind::kName) {
      fail(name.place, "expected a template name after 'template', found " + describe(name));
    }
    const Token open = tk_.next();
    if (open.kind != TokenKind::kOpenBrace) {
      fail(open.place,
           "expected '{' after template " + named(name.text) + ", found " + describe(open));
    }
    skip_body(Header{"template", std::string(name.text), t.place});
  }

  // '{' already read: Name [<guid>] '}' (or just <guid>). Returns the name.
  std::string read_reference(const Token& open) {
    std::string name;
    Token t = tk_.next();
    if (t.kind == TokenKind::kName ||
        (!tk_.binary() && (t.kind == TokenKind::kInteger || t.kind == TokenKind::kFloat))) {
      name = std::string(t.text);
      t = tk_.next();
    }
    if (t.kind == TokenKind::kGuid) t = tk_.next();
    if (t.kind != TokenKind::kCloseBrace) {
      fail(t.place, "expected '}' to close the reference opened at " + at(open.place) + ", found " +
                        describe(t));
    }
    if (name.empty()) {
      fail(open.place, "a reference by GUID alone cannot be resolved; name the object");
    }
    return name;
  }

  // After the data of an object: nested objects are skipped, numbers mean the counts were
  // wrong, and '}' closes it.
  void finish_object(const Header& h) {
    for (;;) {
      const Token t = tk_.next();
      switch (t.kind) {
        case TokenKind::kCloseBrace:
          return;
        case TokenKind::kName:
          skip_body(read_header(t));
          break;
        case TokenKind::kOpenBrace:
          read_reference(t);
          break;
        case TokenKind::kInteger:
        case TokenKind::kFloat:
        case TokenKind::kString:
          fail(t.place, title(h) + " has more data than its counts say: found " + describe(t) +
                            " where '}' should close it");
        case TokenKind::kEnd:
          fail(t.place, "the file ends inside " + title(h) + " opened at " + at(h.place));
        default:
          fail(t.place, title(h) + ": expected an object, found " + describe(t));
      }
    }
  }

  [[noreturn]] void expected(const Token& t, const std::string& what, const Header& h) const {
    std::string hint;
    const bool object_name = t.kind == TokenKind::kName && !t.text.empty() &&
                             ((t.text[0] >= 'A' && t.text[0] <= 'Z') ||
                              (t.text[0] >= 'a' && t.text[0] <= 'z') || t.text[0] == '_');
    if (t.kind == TokenKind::kCloseBrace || t.kind == TokenKind::kEnd || object_name) {
      hint = " (the data is shorter than its counts say)";
    }
    fail(t.place, title(h) + ": expected " + what + ", found " + describe(t) + hint);
  }

  std::uint32_t read_dword(const char* what, const Header& h, std::size_t* place = nullptr) {
    const Token t = tk_.next();
    if (t.kind != TokenKind::kInteger) expected(t, what, h);
    if (t.integer < 0 || t.integer > std::numeric_limits<std::uint32_t>::max()) {
      fail(t.place, title(h) + ": " + what + " " + std::to_string(t.integer) + " is out of range");
    }
    if (place) *place = t.place;
    return static_cast<std::uint32_t>(t.integer);
  }

  float read_float(const char* what, const Header& h) {
    const Token t = tk_.next();
    if (t.kind != TokenKind::kInteger && t.kind != TokenKind::kFloat) expected(t, what, h);
    if (!std::isfinite(t.real) || std::fabs(t.real) > std::numeric_limits<float>::max()) {
      fail(t.place, title(h) + ": " + what + " " + describe(t) + " is not a finite float");
    }
    return static_cast<float>(t.real);
  }

  void read_matrix(D3DMatrix& m, const Header& h) {
    for (float& v : m) v = read_float("a matrix element", h);
  }

  // A count of items of `numbers_each` numbers must fit in what is left of the file.
  void check_count(std::uint64_t count, std::size_t numbers_each, std::size_t place,
                   const char* what, const Header& h) {
    const std::uint64_t bytes = count * numbers_each * tk_.min_bytes_per_number();
    if (bytes > tk_.remaining()) {
      fail(place, title(h) + ": " + std::to_string(count) + " " + what + " cannot fit in the " +
                      std::to_string(tk_.remaining()) + " bytes left in the file");
    }
  }

  void top_level_object(const Token& id) {
    const Header h = read_header(id);
    if (iequals(h.type, "Frame")) {
      parse_frame(h, -1);
    } else if (iequals(h.type, "Mesh")) {
      parse_mesh(h, -1, true);
    } else if (iequals(h.type, "AnimationSet")) {
      parse_set(h);
    } else if (iequals(h.type, "Animation")) {
      if (loose.animations.empty()) {
        loose.place = h.place;
        loose.tps_before = static_cast<std::int64_t>(ticks.size()) - 1;
      }
      parse_animation(h, loose);
    } else if (iequals(h.type, "Material")) {
      named_materials.push_back(parse_material(h));
    } else if (iequals(h.type, "AnimTicksPerSecond")) {
      std::size_t place = 0;
      const std::uint32_t v = read_dword("the ticks per second", h, &place);
      if (v == 0) fail(place, "AnimTicksPerSecond is 0");
      ticks.push_back({v, place});
      finish_object(h);
    } else {
      skip_unread(h, "unknown top-level object");
    }
  }

  // Frames nest without limit, so they are read with an explicit stack, not recursion.
  void parse_frame(const Header& root, std::int64_t parent) {
    struct Open {
      std::size_t frame;
      Header header;
    };
    std::vector<Open> stack;
    auto open = [&](const Header& h, std::int64_t p) {
      if (frames.size() >= kMaxJoints) {
        fail(h.place,
             "more than the " + std::to_string(kMaxJoints) + " frames a skeleton can index");
      }
      FrameRec f;
      f.name = h.name;
      f.parent = p;
      f.place = h.place;
      frames.push_back(std::move(f));
      stack.push_back({frames.size() - 1, h});
    };
    open(root, parent);
    while (!stack.empty()) {
      const std::size_t f = stack.back().frame;
      const Token t = tk_.next();
      switch (t.kind) {
        case TokenKind::kCloseBrace:
          stack.pop_back();
          break;
        case TokenKind::kOpenBrace: {
          std::string name = read_reference(t);
          mesh_refs.push_back({f, std::move(name), t.place});
          break;
        }
        case TokenKind::kName: {
          const Header h = read_header(t);
          if (iequals(h.type, "Frame")) {
            open(h, static_cast<std::int64_t>(f));
          } else if (iequals(h.type, "FrameTransformMatrix")) {
            if (frames[f].has_matrix) {
              warn(h.place, "Frame " + named(frames[f].name) +
                                " has a second FrameTransformMatrix; the last one is used");
            }
            read_matrix(frames[f].matrix, h);
            frames[f].has_matrix = true;
            frames[f].matrix_place = h.place;
            finish_object(h);
          } else if (iequals(h.type, "Mesh")) {
            parse_mesh(h, static_cast<std::int64_t>(f), false);
          } else {
            skip_unread(h, "unknown object in a Frame");
          }
          break;
        }
        case TokenKind::kEnd:
          fail(t.place, "the file ends inside " + title(stack.back().header) + " opened at " +
                            at(stack.back().header.place));
        default:
          fail(t.place,
               title(stack.back().header) + " holds objects, not data: found " + describe(t));
      }
    }
  }

  void parse_mesh(const Header& h, std::int64_t frame, bool top_level) {
    MeshRec m;
    m.name = h.name;
    m.place = h.place;
    m.frame = frame;
    m.top_level = top_level;
    std::size_t place = 0;
    const std::uint32_t nv = read_dword("the vertex count", h, &place);
    check_count(nv, 3, place, "vertices", h);
    m.positions.resize(nv);
    for (Vec3& p : m.positions) {
      p.x = read_float("a vertex coordinate", h);
      p.y = read_float("a vertex coordinate", h);
      p.z = read_float("a vertex coordinate", h);
    }
    const std::uint32_t nf = read_dword("the face count", h, &place);
    check_count(nf, 1, place, "faces", h);
    m.face_offsets.reserve(std::size_t{nf} + 1);
    for (std::uint32_t f = 0; f < nf; ++f) {
      const std::uint32_t n = read_dword("the index count of a face", h, &place);
      check_count(n, 1, place, "face indices", h);
      for (std::uint32_t k = 0; k < n; ++k) {
        const std::uint32_t v = read_dword("a face's vertex index", h, &place);
        if (v >= nv) {
          fail(place, title(h) + ": face " + std::to_string(f) + " uses vertex " +
                          std::to_string(v) + ", out of range: the mesh has " + std::to_string(nv) +
                          " vertices");
        }
        m.face_indices.push_back(v);
      }
      m.face_offsets.push_back(static_cast<std::uint32_t>(m.face_indices.size()));
    }
    for_each_child(
        h, [&](const Token& t) { read_reference(t); },  // a material by reference
        [&](const Header& c) {
          if (iequals(c.type, "MeshNormals")) {
            parse_normals(c, m);
          } else if (iequals(c.type, "MeshTextureCoords")) {
            parse_uvs(c, m);
          } else if (iequals(c.type, "SkinWeights")) {
            parse_skin_weights(c, m);
          } else if (iequals(c.type, "DeclData")) {
            parse_decl_data(c, m);
          } else if (iequals(c.type, "MeshMaterialList")) {
            parse_material_list(c, m);
          } else if (iequals(c.type, "FVFData") || iequals(c.type, "MeshVertexColors")) {
            note_unknown(c, "vertex data marrow does not take");
            skip_body(c);
          } else {
            skip_unread(c, "unknown object in a Mesh");
          }
        },
        "after its faces");
    meshes.push_back(std::move(m));
  }

  // Material { faceColor RGBA; power; specular RGB; emissive RGB; [TextureFilename { "f"; }] }
  MaterialRec parse_material(const Header& h) {
    MaterialRec mat;
    mat.name = h.name;
    for (float& c : mat.color) c = read_float("a material colour", h);
    for (int i = 0; i < 7; ++i) read_float("a material term", h);  // power, specular, emissive
    for_each_child(
        h, [&](const Token& t) { read_reference(t); },
        [&](const Header& c) {
          if (iequals(c.type, "TextureFilename")) {
            const Token t = tk_.next();
            if (t.kind != TokenKind::kString) expected(t, "a texture file name", c);
            if (mat.texture.empty()) mat.texture = std::string(t.text);
            finish_object(c);
          } else {
            skip_unread(c, "unknown object in a Material");
          }
        },
        "after its colours");
    return mat;
  }

  // MeshMaterialList { nMaterials; nFaceIndexes; faceIndexes; Material or {Reference} ... }
  void parse_material_list(const Header& h, MeshRec& m) {
    std::size_t place = 0;
    const std::uint32_t count = read_dword("the material count", h, &place);
    const std::uint32_t faces = read_dword("the face count", h, &place);
    check_count(faces, 1, place, "face materials", h);
    m.face_materials.resize(faces);
    for (std::uint32_t& f : m.face_materials) f = read_dword("a face's material", h, &place);
    for_each_child(
        h,
        [&](const Token& t) {
          m.material_refs.push_back(read_reference(t));
          m.materials.emplace_back();
        },
        [&](const Header& c) {
          if (iequals(c.type, "Material")) {
            m.materials.push_back(parse_material(c));
            m.material_refs.emplace_back();
          } else {
            skip_unread(c, "unknown object in a MeshMaterialList");
          }
        },
        "after its face indices");
    if (m.materials.size() != count) {
      warn(h.place, title(h) + " declares " + std::to_string(count) + " materials and holds " +
                        std::to_string(m.materials.size()));
    }
  }

  void parse_normals(const Header& h, MeshRec& m) {
    if (m.has_normals && !m.normals_from_decl)
      warn(h.place, "a second MeshNormals replaces the first");
    m.normals_from_decl = false;
    std::size_t place = 0;
    const std::uint32_t nn = read_dword("the normal count", h, &place);
    check_count(nn, 3, place, "normals", h);
    m.normals.resize(nn);
    for (Vec3& n : m.normals) {
      n.x = read_float("a normal coordinate", h);
      n.y = read_float("a normal coordinate", h);
      n.z = read_float("a normal coordinate", h);
    }
    const std::size_t faces = m.face_offsets.size() - 1;
    const std::uint32_t nf = read_dword("the face count", h, &place);
    if (nf != faces) {
      fail(place, title(h) + " has " + std::to_string(nf) + " faces but its Mesh has " +
                      std::to_string(faces));
    }
    m.normal_indices.clear();
    m.normal_indices.reserve(m.face_indices.size());
    for (std::size_t f = 0; f < faces; ++f) {
      const std::uint32_t corners = m.face_offsets[f + 1] - m.face_offsets[f];
      const std::uint32_t n = read_dword("the index count of a face", h, &place);
      if (n != corners) {
        fail(place, title(h) + ": face " + std::to_string(f) + " has " + std::to_string(n) +
                        " normal indices but the Mesh face has " + std::to_string(corners) +
                        " vertices");
      }
      for (std::uint32_t k = 0; k < n; ++k) {
        const std::uint32_t i = read_dword("a normal index", h, &place);
        if (i >= nn) {
          fail(place, title(h) + ": face " + std::to_string(f) + " uses normal " +
                          std::to_string(i) + ", out of range: there are " + std::to_string(nn) +
                          " normals");
        }
        m.normal_indices.push_back(i);
      }
    }
    m.has_normals = true;
    finish_object(h);
  }

  void parse_uvs(const Header& h, MeshRec& m) {
    std::size_t place = 0;
    const std::uint32_t n = read_dword("the texture coordinate count", h, &place);
    if (n != m.positions.size()) {
      fail(place, title(h) + " has " + std::to_string(n) + " coordinates but its Mesh has " +
                      std::to_string(m.positions.size()) + " vertices");
    }
    std::vector<std::array<float, 2>> uvs(n);
    for (auto& uv : uvs) {
      uv[0] = read_float("a texture coordinate", h);
      uv[1] = read_float("a texture coordinate", h);
    }
    if (m.has_uvs) {
      warn(h.place, "only the first MeshTextureCoords is kept");
    } else {
      m.uvs = std::move(uvs);
      m.has_uvs = true;
    }
    finish_object(h);
  }

  // DeclData (D3D vertex declaration + per-vertex DWORDs): takes NORMAL and TEXCOORD 0 where the
  // Mesh has no MeshNormals / MeshTextureCoords, and TANGENT and BINORMAL. Floats are stored as
  // the DWORD of their bits.
  void parse_decl_data(const Header& h, MeshRec& m) {
    struct Element {
      std::uint32_t type = 0, usage = 0, usage_index = 0, offset = 0;
      std::size_t place = 0;
    };
    // DWORDs per D3DDECLTYPE 0..16 (FLOAT1..4, D3DCOLOR, UBYTE4, SHORT2, SHORT4, UBYTE4N,
    // SHORT2N, SHORT4N, USHORT2N, USHORT4N, UDEC3, DEC3N, FLOAT16_2, FLOAT16_4).
    static constexpr std::uint32_t kDwords[] = {1, 2, 3, 4, 1, 1, 1, 2, 1, 1, 2, 1, 2, 1, 1, 1, 2};
    enum : std::uint32_t { kFloat2 = 1, kFloat3 = 2, kFloat4 = 3 };
    enum : std::uint32_t { kNormal = 3, kTexcoord = 5, kTangent = 6, kBinormal = 7 };
    std::size_t place = 0;
    const std::uint32_t ne = read_dword("the vertex element count", h, &place);
    check_count(ne, 4, place, "vertex elements", h);
    std::vector<Element> elements(ne);
    std::uint32_t stride = 0;
    for (Element& e : elements) {
      e.type = read_dword("a vertex element type", h, &e.place);
      read_dword("a vertex element method", h);
      e.usage = read_dword("a vertex element usage", h);
      e.usage_index = read_dword("a vertex element usage index", h);
      if (e.type >= std::size(kDwords)) {
        fail(e.place, title(h) + ": vertex element type " + std::to_string(e.type) +
                          " is unknown (D3DDECLTYPE goes from 0 to 16)");
      }
      e.offset = stride;
      stride += kDwords[e.type];
    }
    const std::uint32_t nd = read_dword("the DWORD count", h, &place);
    const std::uint64_t nv = m.positions.size();
    if (nd != nv * stride) {
      fail(place, title(h) + " has " + std::to_string(nd) + " DWORDs but its Mesh's " +
                      std::to_string(nv) + " vertices of " + std::to_string(stride) +
                      " DWORDs need " + std::to_string(nv * stride));
    }
    check_count(nd, 1, place, "DWORDs", h);
    std::vector<std::uint32_t> data(nd);
    for (std::uint32_t& d : data) d = read_dword("a DWORD of vertex data", h);
    finish_object(h);

    auto read = [&](const Element& e, std::size_t v, int k) {
      float f;
      std::memcpy(&f, &data[v * stride + e.offset + k], sizeof f);
      if (!std::isfinite(f)) {
        fail(e.place, title(h) + ": vertex " + std::to_string(v) + " has a non-finite value in " +
                          "its element of usage " + std::to_string(e.usage));
      }
      return f;
    };
    for (const Element& e : elements) {
      const bool first = e.usage_index == 0;
      if (e.usage == kNormal && e.type == kFloat3 && first) {
        if (m.has_normals) continue;  // MeshNormals wins
        m.normals.resize(nv);
        for (std::size_t v = 0; v < nv; ++v)
          m.normals[v] = {read(e, v, 0), read(e, v, 1), read(e, v, 2)};
        m.normal_indices = m.face_indices;
        m.has_normals = m.normals_from_decl = true;
      } else if (e.usage == kTexcoord && e.type == kFloat2 && first) {
        if (m.has_uvs) continue;
        m.uvs.resize(nv);
        for (std::size_t v = 0; v < nv; ++v) m.uvs[v] = {read(e, v, 0), read(e, v, 1)};
        m.has_uvs = true;
      } else if (e.usage == kTangent && (e.type == kFloat3 || e.type == kFloat4) && first) {
        m.tangents.resize(nv);
        for (std::size_t v = 0; v < nv; ++v) {
          m.tangents[v] = {read(e, v, 0), read(e, v, 1), read(e, v, 2),
                           e.type == kFloat4 ? (read(e, v, 3) < 0 ? -1.0f : 1.0f) : 1.0f};
        }
      } else if (e.usage == kBinormal && e.type == kFloat3 && first) {
        m.binormals.resize(nv);
        for (std::size_t v = 0; v < nv; ++v)
          m.binormals[v] = {read(e, v, 0), read(e, v, 1), read(e, v, 2)};
      } else {
        warn(e.place, title(h) + ": vertex element of usage " + std::to_string(e.usage) +
                          " (index " + std::to_string(e.usage_index) + ", type " +
                          std::to_string(e.type) + ") is not taken");
      }
    }
  }

  void parse_skin_weights(const Header& h, MeshRec& m) {
    SkinWeightsRec s;
    s.place = h.place;
    const Token name = tk_.next();
    if (name.kind != TokenKind::kString && name.kind != TokenKind::kName) {
      expected(name, "the frame name (a string)", h);
    }
    s.frame = tk_.string_value(name);
    s.place = name.place;
    const Header sh{h.type, h.name.empty() ? s.frame : h.name, h.place};
    std::size_t place = 0;
    const std::uint32_t n = read_dword("the weight count", sh, &place);
    check_count(n, 2, place, "weights", sh);
    s.vertices.resize(n);
    for (std::uint32_t& v : s.vertices) {
      v = read_dword("a vertex index", sh, &place);
      if (v >= m.positions.size()) {
        fail(place, "SkinWeights for frame " + named(s.frame) + ": vertex index " +
                        std::to_string(v) + " is out of range: Mesh " + named(m.name) + " has " +
                        std::to_string(m.positions.size()) + " vertices");
      }
    }
    s.weights.resize(n);
    for (float& w : s.weights) {
      const std::size_t wp = tk_.place_here();
      w = read_float("a weight", sh);
      if (w < 0) {
        fail(wp,
             "SkinWeights for frame " + named(s.frame) + ": negative weight " + std::to_string(w));
      }
    }
    s.offset_place = tk_.place_here();
    read_matrix(s.offset, sh);
    finish_object(sh);
    m.skin_weights.push_back(std::move(s));
  }

  void parse_set(const Header& h) {
    SetRec s;
    s.name = h.name;
    s.place = h.place;
    s.tps_before = static_cast<std::int64_t>(ticks.size()) - 1;
    for_each_child(
        h,
        [&](const Token& t) {
          read_reference(t);
          warn(t.place, title(h) + ": an Animation given by reference is not read");
        },
        [&](const Header& c) {
          if (iequals(c.type, "Animation")) {
            parse_animation(c, s);
          } else {
            skip_unread(c, "unknown object in an AnimationSet");
          }
        });
    sets.push_back(std::move(s));
  }

  void parse_animation(const Header& h, SetRec& set) {
    AnimationRec a;
    a.name = h.name;
    a.place = h.place;
    for_each_child(
        h,
        [&](const Token& t) {
          std::string name = read_reference(t);
          if (a.has_frame) {
            fail(t.place,
                 title(h) + " names a second frame " + named(name) + " after " + named(a.frame));
          }
          a.frame = std::move(name);
          a.frame_place = t.place;
          a.has_frame = true;
        },
        [&](const Header& c) {
          if (iequals(c.type, "AnimationKey")) {
            parse_key(c, a);
          } else {
            skip_unread(c, "unknown object in an Animation");
          }
        });
    if (!a.has_frame) fail(h.place, title(h) + " names no frame (expected '{ FrameName }')");
    set.animations.push_back(std::move(a));
  }

  void parse_key(const Header& h, AnimationRec& a) {
    KeyRec k;
    k.place = h.place;
    std::size_t place = 0;
    k.type = read_dword("the key type", h, &place);
    // 0 rotation, 1 scale, 2 position, 4 matrix. The DirectX documentation numbers the matrix
    // key 3 while its writers and D3DX use 4; 3 is read as a matrix too.
    if (k.type > 4) fail(place, "AnimationKey type " + std::to_string(k.type) + " is unknown");
    if (k.type == 3) k.type = 4;
    const std::uint32_t per_key = k.type == 0 ? 4 : k.type == 4 ? 16 : 3;
    const std::uint32_t n = read_dword("the key count", h, &place);
    check_count(n, 2 + per_key, place, "keys", h);
    k.ticks.reserve(n);
    k.tick_places.reserve(n);
    k.values.reserve(std::size_t{n} * per_key);
    for (std::uint32_t i = 0; i < n; ++i) {
      const std::uint32_t time = read_dword("a key time", h, &place);
      if (i > 0 && time <= k.ticks.back()) {
        fail(place, "AnimationKey key " + std::to_string(i) + " is at tick " +
                        std::to_string(time) + ", not after the previous key's tick " +
                        std::to_string(k.ticks.back()) + " (times must increase)");
      }
      k.ticks.push_back(time);
      k.tick_places.push_back(place);
      const std::uint32_t values = read_dword("the value count of a key", h, &place);
      if (values != per_key) {
        static constexpr const char* kWhat[] = {"rotation", "scale", "position", "", "matrix"};
        fail(place, "AnimationKey key " + std::to_string(i) + " has " + std::to_string(values) +
                        " values; a " + kWhat[k.type] + " key has " + std::to_string(per_key));
      }
      for (std::uint32_t v = 0; v < per_key; ++v) k.values.push_back(read_float("a key value", h));
    }
    finish_object(h);
    a.keys.push_back(std::move(k));
  }

  XTokenizer& tk_;
  std::vector<std::string>& warnings_;
  std::map<std::string, bool> noted_;
};

// The D3D matrix (row-major, row vectors) as marrow's column-major, column-vector Mat4: the
// transpose, which has the same memory layout. The last row is forced to 0 0 0 1.
Mat4 to_mat4(const D3DMatrix& d, bool* projective) {
  Mat4 m;
  std::copy(d.begin(), d.end(), m.m.begin());
  const bool affine = std::fabs(m.m[3]) < 1e-6f && std::fabs(m.m[7]) < 1e-6f &&
                      std::fabs(m.m[11]) < 1e-6f && std::fabs(m.m[15] - 1) < 1e-6f;
  if (projective) *projective = !affine;
  m.m[3] = m.m[7] = m.m[11] = 0;
  m.m[15] = 1;
  return m;
}

class Assembler {
 public:
  Assembler(Parser& p, Asset& asset, const std::string& file, std::size_t file_size)
      : p_(p), asset_(asset), file_(file), file_size_(file_size) {}

  void run() {
    build_skeleton();
    resolve_mesh_refs();
    for (MeshRec& m : p_.meshes) build_mesh(m);
    check_ticks();
    for (std::size_t s = 0; s < p_.sets.size(); ++s) build_clip(p_.sets[s], s);
    if (!p_.loose.animations.empty()) {
      std::string stem = std::filesystem::path(file_).stem().string();
      p_.loose.name = stem.empty() ? "animation" : stem;
      asset_.warnings.push_back(p_.where(p_.loose.place) +
                                ": Animation objects outside an AnimationSet form clip " +
                                named(p_.loose.name));
      build_clip(p_.loose, p_.sets.size());
    }
  }

 private:
  void warn(std::size_t place, const std::string& what) {
    asset_.warnings.push_back(p_.where(place) + ": " + what);
  }

  void build_skeleton() {
    std::vector<JointDesc> descs(p_.frames.size());
    for (std::size_t i = 0; i < p_.frames.size(); ++i) {
      const FrameRec& f = p_.frames[i];
      descs[i].name = f.name;
      descs[i].parent = f.parent;
      bool projective = false;
      const Decomposition d = decompose(to_mat4(f.matrix, &projective));
      descs[i].rest = d.transform;
      if (projective) {
        warn(f.matrix_place, "Frame " + named(f.name) +
                                 ": the projective column of FrameTransformMatrix is ignored");
      }
      if (!d.exact) {
        warn(f.matrix_place, "Frame " + named(f.name) +
                                 ": FrameTransformMatrix has shear or zero scale that TRS "
                                 "cannot hold; the nearest TRS is used");
      }
    }
    std::vector<JointIndex> joint_of_frame;
    Result<Skeleton> skeleton = Skeleton::build(descs, file_ + ": frames", &joint_of_frame);
    if (!skeleton) throw XError(skeleton.error().message);
    asset_.skeleton = std::move(skeleton).value();
    joint_of_frame_ = std::move(joint_of_frame);
    asset_.source_index.assign(asset_.skeleton.size(), -1);
    for (std::size_t i = 0; i < joint_of_frame_.size(); ++i) {
      asset_.source_index[joint_of_frame_[i]] = static_cast<std::int64_t>(i);
    }
    // Names that several frames share: references to them take the first.
    std::unordered_map<std::string, int> count;
    for (const FrameRec& f : p_.frames) {
      if (!f.name.empty() && ++count[f.name] == 2) {
        warn(f.place, "frame name " + named(f.name) +
                          " is used more than once; references to it bind the first");
      }
    }
  }

  // A frame may reference a top-level Mesh by name: the mesh then hangs under that frame (a
  // copy for every further frame that references it).
  void resolve_mesh_refs() {
    std::unordered_map<std::string, std::size_t> top;
    for (std::size_t i = 0; i < p_.meshes.size(); ++i) {
      if (p_.meshes[i].top_level && !p_.meshes[i].name.empty()) {
        top.emplace(p_.meshes[i].name, i);
      }
    }
    for (const MeshRef& r : p_.mesh_refs) {
      auto it = top.find(r.name);
      if (it == top.end()) {
        warn(r.place, "Frame " + named(p_.frames[r.frame].name) + " refers to " + named(r.name) +
                          ", which is not a top-level Mesh; the reference is "
                          "ignored");
        continue;
      }
      MeshRec& m = p_.meshes[it->second];
      if (m.frame < 0) {
        m.frame = static_cast<std::int64_t>(r.frame);
      } else {
        // Copies cost memory the file does not pay for: keep them within a multiple of it.
        copied_ += m.positions.size() + m.face_indices.size() + 1;
        if (copied_ > 16 * file_size_ + 65536) {
          p_.fail(r.place, "Mesh " + named(r.name) +
                               " is referenced by more frames than marrow copies for a file "
                               "of this size");
        }
        MeshRec copy = m;
        copy.frame = static_cast<std::int64_t>(r.frame);
        copy.top_level = false;
        p_.meshes.push_back(std::move(copy));
      }
    }
  }

  // The mesh's material: the one most of its faces use (a marrow mesh has one), with its
  // texture as a path beside the file. References name top-level Materials.
  int build_material(const MeshRec& m) {
    if (m.materials.empty() || m.face_materials.empty()) return -1;
    std::vector<std::size_t> uses(m.materials.size(), 0);
    for (std::uint32_t f : m.face_materials) {
      if (f < uses.size()) ++uses[f];
    }
    const std::size_t best =
        static_cast<std::size_t>(std::max_element(uses.begin(), uses.end()) - uses.begin());
    if (uses[best] < m.face_materials.size()) {
      warn(m.place, "Mesh " + named(m.name) + " uses several materials; drawn in the one most " +
                        "of its faces use");
    }
    MaterialRec rec = m.materials[best];
    if (!m.material_refs[best].empty()) {
      const auto it = std::find_if(
          p_.named_materials.begin(), p_.named_materials.end(),
          [&](const MaterialRec& r) { return iequals(r.name, m.material_refs[best]); });
      if (it == p_.named_materials.end()) {
        warn(m.place, "Mesh " + named(m.name) + ": material " + named(m.material_refs[best]) +
                          " is not in the file; drawn plain");
        return -1;
      }
      rec = *it;
    }
    Material material;
    material.name = rec.name;
    // .X colours are display values (fixed-function Direct3D): linear for marrow's factors.
    for (int c = 0; c < 3; ++c) {
      const float v = std::clamp(rec.color[c], 0.0f, 1.0f);
      material.base_color_factor[c] =
          v <= 0.04045f ? v / 12.92f : std::pow((v + 0.055f) / 1.055f, 2.4f);
    }
    material.base_color_factor[3] = std::clamp(rec.color[3], 0.0f, 1.0f);
    if (material.base_color_factor[3] < 1) material.alpha_mode = AlphaMode::kBlend;
    if (!rec.texture.empty()) {
      std::string file = rec.texture;
      std::replace(file.begin(), file.end(), '\\', '/');
      const std::string path =
          (std::filesystem::path(file_).parent_path() / file).lexically_normal().string();
      int image = -1;
      for (std::size_t i = 0; i < asset_.images.size(); ++i) {
        if (asset_.images[i].path == path) image = static_cast<int>(i);
      }
      if (image < 0) {
        image = static_cast<int>(asset_.images.size());
        asset_.images.push_back({rec.texture, path, {}, ""});
      }
      material.base_color_texture = image;
    }
    asset_.materials.push_back(std::move(material));
    return static_cast<int>(asset_.materials.size()) - 1;
  }

  void build_mesh(const MeshRec& m) {
    SkinnedMesh mesh;
    mesh.name = m.name;
    mesh.node = m.frame >= 0 ? joint_of_frame_[static_cast<std::size_t>(m.frame)] : kNoParent;
    const std::size_t nv = m.positions.size();

    // Normals are indexed per face corner; a vertex whose corners disagree is split.
    std::vector<std::uint32_t> origin(nv);
    std::iota(origin.begin(), origin.end(), 0u);
    std::vector<std::uint32_t> corner_vertex = m.face_indices;
    std::vector<std::int64_t> vertex_normal;
    if (m.has_normals) {
      vertex_normal.assign(nv, -1);
      std::unordered_map<std::uint64_t, std::uint32_t> split;
      for (std::size_t c = 0; c < m.face_indices.size(); ++c) {
        const std::uint32_t v = m.face_indices[c];
        const std::uint32_t n = m.normal_indices[c];
        if (vertex_normal[v] < 0) {
          vertex_normal[v] = n;
        } else if (vertex_normal[v] != n) {
          const std::uint64_t key = (std::uint64_t{v} << 32) | n;
          auto [it, added] = split.emplace(key, static_cast<std::uint32_t>(origin.size()));
          if (added) {
            origin.push_back(v);
            vertex_normal.push_back(n);
          }
          corner_vertex[c] = it->second;
        }
      }
      if (!split.empty()) {
        warn(m.place, "Mesh " + named(m.name) + ": " + std::to_string(split.size()) +
                          " vertices added where faces give one vertex different normals");
      }
    }
    for (std::uint32_t o : origin) mesh.positions.push_back(m.positions[o]);
    if (m.has_normals) {
      for (std::int64_t n : vertex_normal) {
        mesh.normals.push_back(n >= 0 ? m.normals[static_cast<std::size_t>(n)] : Vec3{0, 0, 0});
      }
    }
    if (m.has_uvs) {
      for (std::uint32_t o : origin) mesh.uvs.push_back(m.uvs[o]);
    }
    mesh.material = build_material(m);
    if (!m.tangents.empty()) {
      // Handedness from the binormal: glTF's convention, bitangent = cross(normal, tangent) * w.
      for (std::size_t i = 0; i < origin.size(); ++i) {
        std::array<float, 4> t = m.tangents[origin[i]];
        if (!m.binormals.empty() && !mesh.normals.empty()) {
          const Vec3 b = m.binormals[origin[i]];
          t[3] = dot(cross(mesh.normals[i], Vec3{t[0], t[1], t[2]}), b) < 0 ? -1.0f : 1.0f;
        }
        mesh.tangents.push_back(t);
      }
    }

    // Faces with more than three corners become fans; faces with fewer are dropped.
    std::size_t degenerate = 0;
    for (std::size_t f = 0; f + 1 < m.face_offsets.size(); ++f) {
      const std::uint32_t b = m.face_offsets[f], e = m.face_offsets[f + 1];
      if (e - b < 3) {
        ++degenerate;
        continue;
      }
      for (std::uint32_t i = b + 2; i < e; ++i) {
        mesh.indices.insert(mesh.indices.end(),
                            {corner_vertex[b], corner_vertex[i - 1], corner_vertex[i]});
      }
    }
    if (degenerate > 0) {
      warn(m.place, "Mesh " + named(m.name) + ": " + std::to_string(degenerate) +
                        " faces with fewer than 3 vertices are dropped");
    }

    if (!m.skin_weights.empty()) build_skin(m, origin, mesh);
    asset_.meshes.push_back(std::move(mesh));
  }

  void build_skin(const MeshRec& m, const std::vector<std::uint32_t>& origin, SkinnedMesh& mesh) {
    if (m.skin_weights.size() > std::numeric_limits<std::uint16_t>::max()) {
      p_.fail(m.place, "Mesh " + named(m.name) + " has more SkinWeights than marrow can index");
    }
    Skin skin;
    skin.name = m.name;
    const std::size_t nv = m.positions.size();
    std::vector<std::vector<std::pair<std::uint16_t, float>>> per_vertex(nv);
    for (std::size_t s = 0; s < m.skin_weights.size(); ++s) {
      const SkinWeightsRec& w = m.skin_weights[s];
      const std::optional<JointIndex> joint = asset_.skeleton.find(w.frame);
      if (!joint) {
        // Real exporters do this (anim_test.x names two bones it never wrote as frames). The
        // weights have nothing to follow, so they are dropped and the rest renormalized.
        warn(w.place, "SkinWeights names frame " + named(w.frame) +
                          ", which the file does not have: its " +
                          std::to_string(w.vertices.size()) +
                          " weights are dropped and each vertex's other weights renormalized");
        continue;
      }
      const auto j = static_cast<std::uint16_t>(skin.joints.size());
      skin.joints.push_back(*joint);
      bool projective = false;
      skin.inverse_bind_matrices.push_back(to_mat4(w.offset, &projective));
      if (projective) {
        warn(w.offset_place, "SkinWeights for frame " + named(w.frame) +
                                 ": the projective column of matrixOffset is ignored");
      }
      for (std::size_t i = 0; i < w.vertices.size(); ++i) {
        if (w.weights[i] == 0) continue;
        // Skin joints are handed out in order, so a vertex listed twice by this SkinWeights
        // can only meet itself at the back of its list: constant time, whatever the file.
        auto& list = per_vertex[w.vertices[i]];
        if (!list.empty() && list.back().first == j) {
          list.back().second += w.weights[i];
        } else {
          list.emplace_back(j, w.weights[i]);
        }
      }
    }
    if (skin.joints.empty()) {
      warn(m.place, "Mesh " + named(m.name) + ": no SkinWeights names a frame; drawn rigid");
      return;
    }
    // Strongest first, normalized (what the skinning kernels expect).
    std::size_t unweighted = 0;
    for (auto& list : per_vertex) {
      std::stable_sort(list.begin(), list.end(),
                       [](auto& a, auto& b) { return a.second > b.second; });
      float sum = 0;
      for (auto& p : list) sum += p.second;
      for (auto& p : list) p.second /= sum;
      if (list.empty()) ++unweighted;
    }
    mesh.influence_offsets.assign(1, 0);
    for (std::uint32_t o : origin) {
      for (auto& p : per_vertex[o]) {
        mesh.influence_joints.push_back(p.first);
        mesh.influence_weights.push_back(p.second);
      }
      mesh.influence_offsets.push_back(static_cast<std::uint32_t>(mesh.influence_joints.size()));
    }
    if (unweighted > 0) {
      warn(m.place, "Mesh " + named(m.name) + ": " + std::to_string(unweighted) +
                        " vertices have no skin weight");
    }
    mesh.skin = static_cast<int>(asset_.skins.size());
    asset_.skins.push_back(std::move(skin));
  }

  void check_ticks() {
    for (const TicksRec& t : p_.ticks) {
      if (t.value != p_.ticks.front().value) {
        warn(t.place, "AnimTicksPerSecond changes from " + std::to_string(p_.ticks.front().value) +
                          " to " + std::to_string(t.value) +
                          "; each AnimationSet uses the last value read before it");
        return;
      }
    }
  }

  double ticks_per_second(const SetRec& s) const {
    if (p_.ticks.empty()) return kXDefaultTicksPerSecond;
    const std::size_t i = s.tps_before >= 0 ? static_cast<std::size_t>(s.tps_before) : 0;
    return p_.ticks[i].value;
  }

  void build_clip(const SetRec& s, std::size_t index) {
    const std::string name = s.name.empty() ? "animation_" + std::to_string(index) : s.name;
    ClipBuilder builder(name);
    const double tps = ticks_per_second(s);
    builder.set_ticks_per_second(tps);
    channel_place_.clear();
    for (const AnimationRec& a : s.animations) {
      const std::optional<JointIndex> joint = asset_.skeleton.find(a.frame);
      if (!joint) {
        p_.fail(a.frame_place, (a.name.empty() ? "Animation" : "Animation " + named(a.name)) +
                                   " refers to frame " + named(a.frame) +
                                   ", which the file does not have");
      }
      for (const KeyRec& k : a.keys) add_key_tracks(builder, *joint, a, k, tps);
    }
    Result<Clip> clip =
        builder.build(asset_.skeleton.size(), p_.where(s.place) + ": AnimationSet " + named(name));
    if (!clip) throw XError(clip.error().message);
    asset_.clips.push_back(std::move(clip).value());
  }

  void add_key_tracks(ClipBuilder& builder, JointIndex joint, const AnimationRec& a,
                      const KeyRec& k, double tps) {
    const std::size_t n = k.ticks.size();
    if (n == 0) {
      warn(k.place, "AnimationKey for frame " + named(a.frame) + " has no keys; skipped");
      return;
    }
    std::vector<float> times(n);
    for (std::size_t i = 0; i < n; ++i) {
      times[i] = static_cast<float>(static_cast<double>(k.ticks[i]) / tps);
      if (i > 0 && !(times[i] > times[i - 1])) {
        p_.fail(k.tick_places[i], "AnimationKey key " + std::to_string(i) + " at tick " +
                                      std::to_string(k.ticks[i]) +
                                      " falls on the same time in seconds as the key before it");
      }
    }
    const std::string where = p_.where(k.place) + ": AnimationKey for frame " + named(a.frame);
    auto add = [&](TrackTarget target, const std::vector<float>& values) {
      static constexpr const char* kChannel[] = {"translation", "rotation", "scale"};
      const std::uint32_t key = (std::uint32_t{joint} << 2) | static_cast<std::uint32_t>(target);
      const auto [first, added] = channel_place_.emplace(key, k.place);
      if (!added) {
        p_.fail(k.place, "AnimationKey for frame " + named(a.frame) + " animates its " +
                             kChannel[static_cast<int>(target)] + " a second time in this set " +
                             "(first at " + p_.where(first->second) + ")");
      }
      const Status st =
          builder.add_track(joint, a.frame, target, Interpolation::kLinear, times, values, where);
      if (!st) throw XError(st.error().message);
    };
    switch (k.type) {
      case 0: {
        // Stored w, x, y, z, and conjugated: the exporters write the inverse of the rotation
        // their FrameTransformMatrix holds (docs/formats_x.md gives the evidence).
        std::vector<float> q(n * 4);
        for (std::size_t i = 0; i < n; ++i) {
          const float* v = &k.values[i * 4];
          const Quat r{-v[1], -v[2], -v[3], v[0]};
          if (!(dot(r, r) > 1e-12f)) {
            p_.fail(k.tick_places[i], "AnimationKey key " + std::to_string(i) +
                                          ": the rotation quaternion has zero length");
          }
          q[i * 4] = r.x, q[i * 4 + 1] = r.y, q[i * 4 + 2] = r.z, q[i * 4 + 3] = r.w;
        }
        add(TrackTarget::kRotation, q);
        break;
      }
      case 1:
        add(TrackTarget::kScale, k.values);
        break;
      case 2:
        add(TrackTarget::kTranslation, k.values);
        break;
      case 4: {
        std::vector<float> t(n * 3), r(n * 4), s(n * 3);
        bool sheared = false, mirrored = false, projective = false;
        Quat previous = Quat::identity();
        for (std::size_t i = 0; i < n; ++i) {
          D3DMatrix d;
          std::copy_n(k.values.begin() + static_cast<std::ptrdiff_t>(i * 16), 16, d.begin());
          bool proj = false;
          const Decomposition dec = decompose(to_mat4(d, &proj));
          projective |= proj;
          sheared |= !dec.exact;
          const Transform& tr = dec.transform;
          mirrored |= tr.scale.x < 0;
          Quat q = tr.rotation;
          if (i > 0 && dot(q, previous) < 0) q = negate(q);  // one hemisphere along the track
          previous = q;
          t[i * 3] = tr.translation.x, t[i * 3 + 1] = tr.translation.y,
                t[i * 3 + 2] = tr.translation.z;
          r[i * 4] = q.x, r[i * 4 + 1] = q.y, r[i * 4 + 2] = q.z, r[i * 4 + 3] = q.w;
          s[i * 3] = tr.scale.x, s[i * 3 + 1] = tr.scale.y, s[i * 3 + 2] = tr.scale.z;
        }
        const std::string who = "AnimationKey (matrix) for frame " + named(a.frame);
        if (sheared) {
          warn(k.place, who +
                            ": some matrices have shear or zero scale that TRS cannot hold; "
                            "the nearest TRS is used");
        }
        if (mirrored) {
          warn(k.place, who +
                            ": some matrices mirror (negative determinant); the mirror is "
                            "held as a negative x scale, which interpolates through zero");
        }
        if (projective) warn(k.place, who + ": the projective column is ignored");
        add(TrackTarget::kTranslation, t);
        add(TrackTarget::kRotation, r);
        add(TrackTarget::kScale, s);
        break;
      }
      default:
        break;
    }
  }

  Parser& p_;
  Asset& asset_;
  const std::string& file_;
  std::size_t file_size_;
  std::size_t copied_ = 0;
  std::vector<JointIndex> joint_of_frame_;
  // Where each joint channel of the clip being built got its track.
  std::unordered_map<std::uint32_t, std::size_t> channel_place_;
};

Asset read_document(std::span<const std::uint8_t> bytes, const std::string& name) {
  auto fail_at = [&](std::size_t byte, const std::string& what) -> void {
    throw XError(name + ": byte " + std::to_string(byte) + ": " + what);
  };
  if (bytes.size() < kHeaderSize) {
    fail_at(0, "too short for the 16-byte .X header");
  }
  const std::string_view head(reinterpret_cast<const char*>(bytes.data()), kHeaderSize);
  if (head.substr(0, 4) != "xof ") fail_at(0, "not a DirectX .X file (no 'xof ' magic)");
  const std::string_view format = head.substr(8, 4);
  const std::string_view float_size = head.substr(12, 4);
  const bool binary = format == "bin " || format == "bzip";
  const bool compressed = format == "tzip" || format == "bzip";
  if (!binary && !compressed && format != "txt ") {
    fail_at(8, "unknown .X format '" + std::string(format) +
                   "' (expected 'txt ', 'bin ', 'tzip' or 'bzip')");
  }
  if (binary && float_size != "0032" && float_size != "0064") {
    fail_at(12, "unknown float size '" + std::string(float_size) + "' (expected 0032 or 0064)");
  }
  Asset asset;
  asset.source = name;
  std::span<const std::uint8_t> body = bytes.subspan(kHeaderSize);
  xfile::Inflated inflated;
  std::string note;
  std::size_t body_offset = kHeaderSize;
  if (compressed) {
    inflated = xfile::inflate_mszip(body, name);
    const std::size_t got = inflated.bytes.size();
    if (inflated.declared_size != got && inflated.declared_size != got + kHeaderSize) {
      asset.warnings.push_back(name + ": the compressed file declares " +
                               std::to_string(inflated.declared_size) +
                               " bytes uncompressed but holds " + std::to_string(got));
    }
    body = inflated.bytes;
    note = " (decompressed)";
    body_offset = 0;
  }
  XTokenizer tokens(body, binary, float_size == "0064", name, body_offset, note);
  Parser parser(tokens, asset.warnings);
  parser.parse_file();
  Assembler(parser, asset, name, body.size()).run();
  return asset;
}

}  // namespace

Result<Asset> read_x(std::span<const std::uint8_t> bytes, const std::string& name) {
  return io::catch_parse_errors<XError>(name, [&] { return read_document(bytes, name); });
}

Result<Asset> read_x(const std::string& path) {
  Result<std::vector<std::uint8_t>> bytes = io::read_file_bytes(path);
  if (!bytes) return bytes.error();
  return read_x(*bytes, path);
}

}  // namespace marrow
