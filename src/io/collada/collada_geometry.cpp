#include "collada/collada_geometry.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

#include "collada/collada_material.h"
#include "common/reader_support.h"
#include "marrow/skin/morph.h"

namespace marrow::collada {
namespace {

// One primitive element (<triangles> ...) unrolled: a vertex per distinct index tuple.
struct Primitive {
  SkinnedMesh mesh;
  std::vector<std::uint32_t> position_index;  // per vertex, into Geometry::positions
  std::string material_symbol;                // bound per instance by <bind_material>
};

struct Geometry {
  std::string name;
  std::vector<Vec3> positions;  // the POSITION source, as skins and morphs index it
  std::vector<Primitive> primitives;
};

struct Input {
  std::string semantic;
  const Source* source = nullptr;
  std::size_t offset = 0;
  std::uint64_t set = 0;
};

std::vector<Vec3> vec3s(const Document& doc, const Source& s) {
  if (s.stride < 3) doc.fail(s.element, "has stride " + std::to_string(s.stride) + "; expected 3");
  std::vector<Vec3> out(s.count);
  for (std::size_t i = 0; i < s.count; ++i)
    out[i] = {s.floats[i * s.stride], s.floats[i * s.stride + 1], s.floats[i * s.stride + 2]};
  return out;
}

// Polygons as lists of corners (each `stride` indices) of one primitive element.
std::vector<std::vector<std::uint32_t>> triangles_of(const Document& doc, pugi::xml_node prim,
                                                     std::size_t stride,
                                                     std::vector<std::string>& warnings) {
  const std::string kind = prim.name();
  std::vector<std::vector<std::uint32_t>> tris;  // 3 corners x stride each
  auto corner = [&](const std::vector<std::uint32_t>& p, std::size_t c) {
    return std::vector<std::uint32_t>(p.begin() + static_cast<std::ptrdiff_t>(c * stride),
                                      p.begin() + static_cast<std::ptrdiff_t>((c + 1) * stride));
  };
  auto add = [&](const std::vector<std::uint32_t>& p, std::size_t a, std::size_t b, std::size_t c) {
    std::vector<std::uint32_t> t;
    for (std::size_t k : {a, b, c}) {
      const auto v = corner(p, k);
      t.insert(t.end(), v.begin(), v.end());
    }
    tris.push_back(std::move(t));
  };
  auto fan = [&](const std::vector<std::uint32_t>& p, std::size_t first, std::size_t n) {
    for (std::size_t i = 1; i + 1 < n; ++i) add(p, first, first + i, first + i + 1);
  };
  auto whole = [&](pugi::xml_node pe) {
    std::vector<std::uint32_t> p = doc.uints(pe);
    if (p.size() % stride != 0)
      doc.fail(pe, std::to_string(p.size()) + " indices are not whole vertices of " +
                       std::to_string(stride) + " inputs");
    return p;
  };
  if (kind == "triangles") {
    const std::vector<std::uint32_t> p = whole(prim.child("p"));
    const std::size_t corners = p.size() / stride;
    if (corners % 3 != 0)
      doc.fail(prim, std::to_string(corners) + " vertices do not make whole triangles");
    for (std::size_t c = 0; c < corners; c += 3) add(p, c, c + 1, c + 2);
  } else if (kind == "polylist") {
    const std::vector<std::uint32_t> p = whole(prim.child("p"));
    const std::vector<std::uint32_t> vcount = doc.uints(prim.child("vcount"));
    std::size_t at = 0;
    for (std::size_t i = 0; i < vcount.size(); ++i) {
      if (vcount[i] > p.size() / stride - at)
        doc.fail(prim.child("vcount"), "polygon " + std::to_string(i) + " runs past the " +
                                           std::to_string(p.size() / stride) + " vertices of <p>");
      if (vcount[i] >= 3) fan(p, at, vcount[i]);
      at += vcount[i];
    }
    if (at != p.size() / stride)
      doc.fail(prim, "<vcount> covers " + std::to_string(at) + " of the " +
                         std::to_string(p.size() / stride) + " vertices of <p>");
  } else {
    bool holes = false;
    for (pugi::xml_node c = prim.first_child(); c; c = c.next_sibling()) {
      pugi::xml_node pe = c;
      if (std::strcmp(c.name(), "ph") == 0) {
        pe = c.child("p");
        holes = holes || c.child("h");
      } else if (std::strcmp(c.name(), "p") != 0) {
        continue;
      }
      const std::vector<std::uint32_t> p = whole(pe);
      const std::size_t n = p.size() / stride;
      if (kind == "tristrips") {
        for (std::size_t i = 2; i < n; ++i) {
          if (i % 2 == 0)
            add(p, i - 2, i - 1, i);
          else
            add(p, i - 1, i - 2, i);
        }
      } else {  // polygons, trifans
        fan(p, 0, n);
      }
    }
    if (holes) warnings.push_back(doc.where(prim) + ": polygon holes (<h>) are ignored");
  }
  return tris;
}

Primitive read_primitive(const Document& doc, pugi::xml_node prim, const Geometry& geometry,
                         const std::vector<Input>& vertex_inputs,
                         std::vector<std::string>& warnings) {
  std::vector<Input> inputs;
  std::size_t stride = 0;
  for (pugi::xml_node in : prim.children("input")) {
    Input input;
    input.semantic = in.attribute("semantic").as_string();
    input.offset = in.attribute("offset").as_ullong();
    input.set = in.attribute("set").as_ullong();
    if (input.offset > 64) doc.fail(in, "offset " + std::to_string(input.offset) + " is too large");
    stride = std::max(stride, input.offset + 1);
    if (input.semantic != "VERTEX")
      input.source = &doc.source_at(in, in.attribute("source").as_string());
    inputs.push_back(input);
  }
  const auto vertex = std::find_if(inputs.begin(), inputs.end(),
                                   [](const Input& i) { return i.semantic == "VERTEX"; });
  if (vertex == inputs.end()) doc.fail(prim, "has no VERTEX input");
  // Where each attribute comes from: (source, offset of its index in a corner).
  struct Attribute {
    const Source* source = nullptr;
    std::size_t offset = 0;
    std::uint64_t set = ~0ull;
  } normal, uv;
  for (const Input& v : vertex_inputs) {
    if (v.semantic == "NORMAL") normal = {v.source, vertex->offset, 0};
    if (v.semantic == "TEXCOORD" && v.set < uv.set) uv = {v.source, vertex->offset, v.set};
  }
  bool own_uv = false;  // a primitive-level TEXCOORD replaces a per-vertex one
  for (const Input& i : inputs) {
    if (i.semantic == "NORMAL") normal = {i.source, i.offset, 0};
    if (i.semantic == "TEXCOORD" && (!own_uv || i.set < uv.set)) {
      uv = {i.source, i.offset, i.set};
      own_uv = true;
    }
  }
  if (normal.source && normal.source->stride < 3)
    doc.fail(normal.source->element, "normals need 3 values each");
  if (uv.source && uv.source->stride < 2)
    doc.fail(uv.source->element, "texture coordinates need 2 values each");

  Primitive out;
  std::map<std::array<std::uint32_t, 3>, std::uint32_t> vertex_of;
  for (const std::vector<std::uint32_t>& tri : triangles_of(doc, prim, stride, warnings)) {
    for (std::size_t c = 0; c < 3; ++c) {
      const std::uint32_t* corner = tri.data() + c * stride;
      const std::uint32_t p = corner[vertex->offset];
      const std::uint32_t n = normal.source ? corner[normal.offset] : 0;
      const std::uint32_t t = uv.source ? corner[uv.offset] : 0;
      if (p >= geometry.positions.size())
        doc.fail(prim, "vertex index " + std::to_string(p) + " is past the " +
                           std::to_string(geometry.positions.size()) + " positions");
      if (normal.source && n >= normal.source->count)
        doc.fail(prim, "normal index " + std::to_string(n) + " is past the " +
                           std::to_string(normal.source->count) + " normals");
      if (uv.source && t >= uv.source->count)
        doc.fail(prim, "texture coordinate index " + std::to_string(t) + " is past the " +
                           std::to_string(uv.source->count) + " coordinates");
      const auto [it, fresh] =
          vertex_of.emplace(std::array<std::uint32_t, 3>{p, n, t},
                            static_cast<std::uint32_t>(out.mesh.positions.size()));
      if (fresh) {
        out.mesh.positions.push_back(geometry.positions[p]);
        out.position_index.push_back(p);
        if (normal.source) {
          const float* f = &normal.source->floats[n * normal.source->stride];
          out.mesh.normals.push_back({f[0], f[1], f[2]});
        }
        if (uv.source) {
          const float* f = &uv.source->floats[t * uv.source->stride];
          out.mesh.uvs.push_back({f[0], 1.0f - f[1]});  // Collada's v runs up, glTF's down
        }
      }
      out.mesh.indices.push_back(it->second);
    }
  }
  return out;
}

Geometry read_geometry(const Document& doc, pugi::xml_node element,
                       std::vector<std::string>& warnings) {
  Geometry g;
  g.name = display_name(element, "geometry");
  const pugi::xml_node mesh = element.child("mesh");
  if (!mesh) {
    warnings.push_back(doc.where(element) + ": only <mesh> geometry is read (" +
                       element.first_child().name() + " skipped)");
    return g;
  }
  const pugi::xml_node vertices = mesh.child("vertices");
  if (!vertices) doc.fail(mesh, "has no <vertices>");
  std::vector<Input> vertex_inputs;
  for (pugi::xml_node in : vertices.children("input")) {
    Input input;
    input.semantic = in.attribute("semantic").as_string();
    input.set = in.attribute("set").as_ullong();
    input.source = &doc.source_at(in, in.attribute("source").as_string());
    vertex_inputs.push_back(input);
  }
  const auto position = std::find_if(vertex_inputs.begin(), vertex_inputs.end(),
                                     [](const Input& i) { return i.semantic == "POSITION"; });
  if (position == vertex_inputs.end()) doc.fail(vertices, "has no POSITION input");
  g.positions = vec3s(doc, *position->source);
  for (const Input& v : vertex_inputs) {
    if (v.semantic == "NORMAL" && v.source->count != g.positions.size())
      doc.fail(vertices, "per-vertex NORMAL has " + std::to_string(v.source->count) +
                             " elements for " + std::to_string(g.positions.size()) + " positions");
    if (v.semantic == "TEXCOORD" && v.source->count != g.positions.size())
      doc.fail(vertices, "per-vertex TEXCOORD has " + std::to_string(v.source->count) +
                             " elements for " + std::to_string(g.positions.size()) + " positions");
  }
  std::size_t skipped = 0;
  for (pugi::xml_node prim = mesh.first_child(); prim; prim = prim.next_sibling()) {
    const std::string kind = prim.name();
    if (kind == "lines" || kind == "linestrips") {
      ++skipped;
      continue;
    }
    if (kind != "triangles" && kind != "polylist" && kind != "polygons" && kind != "trifans" &&
        kind != "tristrips")
      continue;
    Primitive p = read_primitive(doc, prim, g, vertex_inputs, warnings);
    if (p.mesh.positions.empty()) continue;
    p.material_symbol = prim.attribute("material").as_string();
    g.primitives.push_back(std::move(p));
  }
  if (skipped)
    warnings.push_back(doc.where(element) + ": " + std::to_string(skipped) +
                       " line primitives skipped");
  for (std::size_t p = 0; p < g.primitives.size(); ++p)
    g.primitives[p].mesh.name = g.primitives.size() > 1 ? g.name + "#" + std::to_string(p) : g.name;
  return g;
}

// The influences of a <skin> per position of its source geometry, and the Skin.
struct SkinData {
  Skin skin;
  // Summed in double: two large weights of one vertex overflow a float sum (then NaN weights).
  std::vector<std::vector<std::pair<std::uint16_t, double>>> per_position;
  std::size_t bind_shape_influences = 0;
};

SkinData read_skin(const Document& doc, pugi::xml_node skin, const Scene& scene,
                   const std::vector<std::size_t>& roots,
                   const std::vector<JointIndex>& joint_of_node, std::size_t position_count) {
  SkinData out;
  out.skin.name = display_name(skin.parent(), "skin");
  DMat bind_shape;
  if (const pugi::xml_node bsm = skin.child("bind_shape_matrix")) {
    const std::vector<float> m = doc.floats(bsm, false);
    if (m.size() != 16) doc.fail(bsm, std::to_string(m.size()) + " numbers; a matrix takes 16");
    std::copy(m.begin(), m.end(), bind_shape.m.begin());
  }
  const pugi::xml_node joints = skin.child("joints");
  const Source* names = nullptr;
  const Source* matrices = nullptr;
  for (pugi::xml_node in : joints.children("input")) {
    const std::string semantic = in.attribute("semantic").as_string();
    if (semantic == "JOINT") names = &doc.source_at(in, in.attribute("source").as_string());
    if (semantic == "INV_BIND_MATRIX")
      matrices = &doc.source_at(in, in.attribute("source").as_string());
  }
  if (!names || names->names.empty()) doc.fail(joints ? joints : skin, "has no JOINT names");
  if (names->count > 65535) doc.fail(names->element, "more than 65535 joints");
  if (matrices && (matrices->count < names->count || matrices->stride != 16))
    doc.fail(matrices->element, std::to_string(matrices->count) + " matrices of stride " +
                                    std::to_string(matrices->stride) + " for " +
                                    std::to_string(names->count) + " joints");
  for (std::size_t j = 0; j < names->count; ++j) {
    const std::string& name = names->names[j * names->stride];
    const std::int64_t node = scene.find_joint(name, roots);
    if (node < 0)
      doc.fail(names->element, "joint " + std::to_string(j) + " " + io::quote_token(name) +
                                   " names no node (by sid, id or name)");
    out.skin.joints.push_back(joint_of_node[static_cast<std::size_t>(node)]);
    DMat ibm;
    if (matrices)
      std::copy_n(matrices->floats.begin() + static_cast<std::ptrdiff_t>(j * 16), 16,
                  ibm.m.begin());
    // The bind shape matrix applies to the vertices before the joints do: fold it in.
    out.skin.inverse_bind_matrices.push_back((ibm * bind_shape).to_mat4());
  }
  const pugi::xml_node vw = skin.child("vertex_weights");
  if (!vw) doc.fail(skin, "has no <vertex_weights>");
  std::size_t joint_offset = ~std::size_t{0}, weight_offset = ~std::size_t{0}, stride = 0;
  const Source* weights = nullptr;
  for (pugi::xml_node in : vw.children("input")) {
    const std::string semantic = in.attribute("semantic").as_string();
    const std::size_t offset = in.attribute("offset").as_ullong();
    if (offset > 64) doc.fail(in, "offset is too large");
    stride = std::max(stride, offset + 1);
    if (semantic == "JOINT") joint_offset = offset;
    if (semantic == "WEIGHT") {
      weight_offset = offset;
      weights = &doc.source_at(in, in.attribute("source").as_string());
    }
  }
  if (!weights || joint_offset == ~std::size_t{0}) doc.fail(vw, "needs JOINT and WEIGHT inputs");
  const std::uint64_t count = vw.attribute("count").as_ullong();
  if (count != position_count)
    doc.fail(vw, "count=" + std::to_string(count) + " but the skinned geometry has " +
                     std::to_string(position_count) + " positions");
  const std::vector<std::uint32_t> vcount = doc.uints(vw.child("vcount"));
  const std::vector<std::int64_t> v = doc.ints(vw.child("v"));
  if (vcount.size() != count)
    doc.fail(vw.child("vcount"),
             std::to_string(vcount.size()) + " entries for count=" + std::to_string(count));
  out.per_position.resize(position_count);
  std::size_t at = 0;
  for (std::size_t p = 0; p < position_count; ++p) {
    if (vcount[p] > (v.size() - at) / stride)
      doc.fail(vw.child("v"), "vertex " + std::to_string(p) + " runs past the end of <v>");
    for (std::uint32_t i = 0; i < vcount[p]; ++i, at += stride) {
      const std::int64_t joint = v[at + joint_offset];
      const std::int64_t wi = v[at + weight_offset];
      if (wi < 0 || static_cast<std::uint64_t>(wi) >= weights->count)
        doc.fail(vw.child("v"), "vertex " + std::to_string(p) + ": weight index " +
                                    std::to_string(wi) + " is past the " +
                                    std::to_string(weights->count) + " weights");
      const float w = weights->floats[static_cast<std::size_t>(wi) * weights->stride];
      if (w < 0) doc.fail(vw.child("v"), "vertex " + std::to_string(p) + " has a negative weight");
      if (joint == -1) {  // the bind shape itself: no joint moves it
        ++out.bind_shape_influences;
        continue;
      }
      if (joint >= static_cast<std::int64_t>(names->count))
        doc.fail(vw.child("v"), "vertex " + std::to_string(p) + ": joint index " +
                                    std::to_string(joint) + " is past the " +
                                    std::to_string(names->count) + " joints");
      if (w == 0) continue;
      auto& list = out.per_position[p];
      const auto j = static_cast<std::uint16_t>(joint);
      const auto same =
          std::find_if(list.begin(), list.end(), [&](auto& e) { return e.first == j; });
      if (same != list.end())
        same->second += w;
      else
        list.emplace_back(j, w);
    }
  }
  if (at != v.size())
    doc.fail(vw.child("v"),
             "holds " + std::to_string(v.size()) + " indices; <vcount> uses " + std::to_string(at));
  return out;
}

// A <morph>'s targets as deltas per position of the base geometry.
struct MorphData {
  std::vector<std::string> names;
  std::vector<std::vector<Vec3>> deltas;  // per target, per position
  std::vector<Geometry> targets;          // for normal deltas where the topology matches
  std::vector<float> defaults;
  bool relative = false;
  pugi::xml_node weights;
};

MorphData read_morph(const Document& doc, pugi::xml_node morph, const Geometry& base,
                     std::vector<std::string>& warnings) {
  MorphData out;
  const std::string method = morph.attribute("method").as_string("NORMALIZED");
  if (method != "NORMALIZED" && method != "RELATIVE")
    doc.fail(morph, "method " + io::quote_token(method) + " is not NORMALIZED or RELATIVE");
  out.relative = method == "RELATIVE";
  const Source* targets = nullptr;
  const Source* weights = nullptr;
  for (pugi::xml_node in : morph.child("targets").children("input")) {
    const std::string semantic = in.attribute("semantic").as_string();
    if (semantic == "MORPH_TARGET")
      targets = &doc.source_at(in, in.attribute("source").as_string());
    if (semantic == "MORPH_WEIGHT")
      weights = &doc.source_at(in, in.attribute("source").as_string());
  }
  if (!targets || !weights) doc.fail(morph, "needs MORPH_TARGET and MORPH_WEIGHT inputs");
  if (weights->count != targets->count || weights->floats.empty())
    doc.fail(weights->element, std::to_string(weights->count) + " weights for " +
                                   std::to_string(targets->count) + " targets");
  out.weights = weights->element;
  for (std::size_t t = 0; t < targets->count; ++t) {
    const std::string& id = targets->names[t * targets->stride];
    const pugi::xml_node element = doc.by_id(id);
    if (!element || std::strcmp(element.name(), "geometry") != 0)
      doc.fail(targets->element,
               "target " + std::to_string(t) + " " + io::quote_token(id) + " names no <geometry>");
    Geometry g = read_geometry(doc, element, warnings);
    if (g.positions.size() != base.positions.size())
      doc.fail(element, "morph target " + std::to_string(t) + " has " +
                            std::to_string(g.positions.size()) + " positions, its base " +
                            io::quote_token(base.name) + " " +
                            std::to_string(base.positions.size()));
    std::vector<Vec3> d(g.positions.size());
    for (std::size_t i = 0; i < d.size(); ++i)
      d[i] = out.relative ? g.positions[i] : g.positions[i] - base.positions[i];
    out.names.push_back(g.name);
    out.deltas.push_back(std::move(d));
    out.targets.push_back(std::move(g));
    out.defaults.push_back(weights->floats[t * weights->stride]);
  }
  return out;
}

// Fills `mesh`'s targets from `morph`, mapping positions through `position_index`; normal
// deltas when the target's primitive `p` has the same vertices (same position per vertex).
void add_targets(const MorphData& morph, std::size_t p, const Primitive& base, SkinnedMesh& mesh) {
  const std::size_t n = base.position_index.size();
  for (std::size_t t = 0; t < morph.deltas.size(); ++t) {
    std::vector<Vec3> dp(n), dn;
    for (std::size_t v = 0; v < n; ++v) dp[v] = morph.deltas[t][base.position_index[v]];
    const Geometry& tg = morph.targets[t];
    if (!mesh.normals.empty() && p < tg.primitives.size() &&
        tg.primitives[p].position_index == base.position_index &&
        tg.primitives[p].mesh.normals.size() == n) {
      dn.resize(n);
      for (std::size_t v = 0; v < n; ++v)
        dn[v] = morph.relative ? tg.primitives[p].mesh.normals[v]
                               : tg.primitives[p].mesh.normals[v] - mesh.normals[v];
    }
    mesh.morph_targets.push_back(make_sparse_target(morph.names[t], dp, dn));
  }
  mesh.default_morph_weights = morph.defaults;
}

}  // namespace

MorphInstances read_instances(const Document& doc, const Scene& scene,
                              const std::vector<JointIndex>& joint_of_node, Asset& asset) {
  MorphInstances morphs;
  MaterialTable materials;
  std::map<const void*, Geometry> geometries;  // read once per <geometry>
  auto geometry_of = [&](pugi::xml_node element) -> const Geometry& {
    auto it = geometries.find(element.internal_object());
    if (it == geometries.end())
      it =
          geometries.emplace(element.internal_object(), read_geometry(doc, element, asset.warnings))
              .first;
    return it->second;
  };
  for (std::size_t n = 0; n < scene.nodes.size(); ++n) {
    for (pugi::xml_node inst : scene.nodes[n].instances) {
      // Follow the controller chain down to the geometry: skin of (morph of) geometry. A chain
      // that ends in nothing (exporters leave such instances) is skipped with a warning.
      auto lookup = [&](pugi::xml_node from, const char* attribute) {
        const std::string_view url = from.attribute(attribute).as_string();
        const pugi::xml_node found =
            url.size() > 1 && url[0] == '#' ? doc.by_id(url.substr(1)) : pugi::xml_node();
        if (!found)
          asset.warnings.push_back(doc.where(from) + ": " + attribute + " " + io::quote_token(url) +
                                   " names no element; " +
                                   io::quote_token(inst.attribute("url").as_string()) +
                                   " is not drawn");
        return found;
      };
      pugi::xml_node element = lookup(inst, "url");
      pugi::xml_node skin, morph;
      for (std::size_t depth = 0; element && std::strcmp(element.name(), "geometry") != 0;
           ++depth) {
        if (depth >= kMaxControllerChain || std::strcmp(element.name(), "controller") != 0)
          doc.fail(inst, "does not lead to a <geometry> (through at most " +
                             std::to_string(kMaxControllerChain) + " controllers)");
        if (const pugi::xml_node s = element.child("skin")) {
          if (skin) doc.fail(s, "a skin of a skin is not supported");
          skin = s;
          element = lookup(s, "source");
        } else if (const pugi::xml_node m = element.child("morph")) {
          if (morph) doc.fail(m, "a morph of a morph is not supported");
          morph = m;
          element = lookup(m, "source");
        } else {
          doc.fail(element, "is neither a <skin> nor a <morph> controller");
        }
      }
      if (!element) continue;
      const Geometry& geometry = geometry_of(element);
      if (geometry.primitives.empty()) {
        asset.warnings.push_back(doc.where(inst) + ": " + io::quote_token(geometry.name) +
                                 " has no triangles; nothing drawn");
        continue;
      }
      int skin_index = -1;
      SkinData skin_data;
      if (skin) {
        std::vector<std::size_t> roots;
        for (pugi::xml_node r : inst.children("skeleton")) {
          const std::string_view url = fragment(r.child_value());
          const auto [b, e] = scene.by_id.equal_range(std::string(url));
          if (b == e) doc.fail(r, io::quote_token(r.child_value()) + " names no node");
          roots.push_back(b->second);
        }
        skin_data = read_skin(doc, skin, scene, roots, joint_of_node, geometry.positions.size());
        if (skin_data.bind_shape_influences > 0)
          asset.warnings.push_back(doc.where(skin) + ": " +
                                   std::to_string(skin_data.bind_shape_influences) +
                                   " influences of the bind shape (joint -1) are left out");
        skin_index = static_cast<int>(asset.skins.size());
        asset.skins.push_back(skin_data.skin);
      }
      MorphData morph_data;
      if (morph) {
        morph_data = read_morph(doc, morph, geometry, asset.warnings);
        const std::string weights_id = morph_data.weights.attribute("id").as_string();
        MorphInstances::Entry& entry = morphs.by_weights_id[weights_id];
        entry.nodes.push_back(n);
        entry.targets = morph_data.deltas.size();
        entry.weights = morph_data.weights;
        if (const char* cid = morph.parent().attribute("id").as_string(); *cid)
          morphs.weights_id_of_controller[cid] = weights_id;
      }
      // The instance binds each primitive's material symbol to a <material>.
      std::map<std::string, pugi::xml_node> bound;
      for (pugi::xml_node im :
           inst.child("bind_material").child("technique_common").children("instance_material"))
        bound.emplace(im.attribute("symbol").as_string(), im);
      std::size_t unweighted = 0;
      for (std::size_t p = 0; p < geometry.primitives.size(); ++p) {
        const Primitive& prim = geometry.primitives[p];
        SkinnedMesh mesh = prim.mesh;
        mesh.node = joint_of_node[n];
        mesh.skin = skin_index;
        if (const auto b = bound.find(prim.material_symbol); b != bound.end())
          mesh.material = materials.index_of(doc, b->second, asset);
        else if (!prim.material_symbol.empty())
          asset.warnings.push_back(doc.where(inst) + ": material " +
                                   io::quote_token(prim.material_symbol) + " of " +
                                   io::quote_token(geometry.name) + " is not bound; drawn plain");
        if (skin) {
          mesh.influence_offsets.assign(1, 0);
          for (std::uint32_t pos : prim.position_index) {
            auto list = skin_data.per_position[pos];
            std::stable_sort(list.begin(), list.end(),
                             [](const auto& a, const auto& b) { return a.second > b.second; });
            double sum = 0;
            for (const auto& e : list) sum += e.second;
            if (sum > 0) {
              for (const auto& e : list) {
                mesh.influence_joints.push_back(e.first);
                mesh.influence_weights.push_back(static_cast<float>(e.second / sum));
              }
            } else {
              ++unweighted;
            }
            mesh.influence_offsets.push_back(
                static_cast<std::uint32_t>(mesh.influence_joints.size()));
          }
        }
        if (morph) add_targets(morph_data, p, prim, mesh);
        asset.meshes.push_back(std::move(mesh));
      }
      if (unweighted)
        asset.warnings.push_back(doc.where(inst) + ": " + std::to_string(unweighted) +
                                 " vertices have no weight");
    }
  }
  materials.add_notes(doc, asset);
  return morphs;
}

}  // namespace marrow::collada
