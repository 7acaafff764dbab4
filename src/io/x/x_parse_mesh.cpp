// The bodies of Mesh objects and their children (MeshNormals, MeshTextureCoords, DeclData,
// SkinWeights): the largest part of the parser, kept apart from the file's structure.
#include <cmath>
#include <cstring>
#include <limits>

#include "common/reader_support.h"
#include "x_parser.h"

namespace marrow::xfile {

using io::iequals;

void Parser::parse_mesh(const Header& h, std::int64_t frame, bool top_level) {
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
        fail(place, title(h) + ": face " + std::to_string(f) + " uses vertex " + std::to_string(v) +
                        ", out of range: the mesh has " + std::to_string(nv) + " vertices");
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
  r_.meshes.push_back(std::move(m));
}

void Parser::parse_normals(const Header& h, MeshRec& m) {
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
        fail(place, title(h) + ": face " + std::to_string(f) + " uses normal " + std::to_string(i) +
                        ", out of range: there are " + std::to_string(nn) + " normals");
      }
      m.normal_indices.push_back(i);
    }
  }
  m.has_normals = true;
  finish_object(h);
}

void Parser::parse_uvs(const Header& h, MeshRec& m) {
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
void Parser::parse_decl_data(const Header& h, MeshRec& m) {
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
      warn(e.place, title(h) + ": vertex element of usage " + std::to_string(e.usage) + " (index " +
                        std::to_string(e.usage_index) + ", type " + std::to_string(e.type) +
                        ") is not taken");
    }
  }
}

void Parser::parse_skin_weights(const Header& h, MeshRec& m) {
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

// Material { faceColor RGBA; power; specular RGB; emissive RGB; [TextureFilename { "f"; }] }
MaterialRec Parser::parse_material(const Header& h) {
  MaterialRec mat;
  mat.name = h.name;
  for (float& c : mat.color) c = read_float("a material colour", h);
  // power and specularColor (no place in a metallic-roughness material), then emissiveColor.
  for (int i = 0; i < 4; ++i) read_float("a material term", h);
  for (float& c : mat.emissive) c = read_float("a material emissive colour", h);
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
void Parser::parse_material_list(const Header& h, MeshRec& m) {
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

}  // namespace marrow::xfile
