#include "collada/collada_scene.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>

#include "common/reader_support.h"
#include "marrow/skeleton/skeleton.h"

namespace marrow::collada {

DMat DMat::operator*(const DMat& b) const {
  DMat r;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      double s = 0;
      for (int k = 0; k < 4; ++k) s += m[i * 4 + k] * b.m[k * 4 + j];
      r.m[i * 4 + j] = s;
    }
  return r;
}

Mat4 DMat::to_mat4() const {
  Mat4 r;
  for (int row = 0; row < 4; ++row)
    for (int col = 0; col < 4; ++col) r(row, col) = static_cast<float>(m[row * 4 + col]);
  return r;
}

namespace {

DMat rotation(double x, double y, double z, double degrees) {
  DMat r;
  const double len = std::sqrt(x * x + y * y + z * z);
  if (!(len > 0)) return r;  // no axis: no rotation
  x /= len, y /= len, z /= len;
  const double a = degrees * std::numbers::pi / 180.0, c = std::cos(a), s = std::sin(a), t = 1 - c;
  r.m = {t * x * x + c,
         t * x * y - s * z,
         t * x * z + s * y,
         0,
         t * x * y + s * z,
         t * y * y + c,
         t * y * z - s * x,
         0,
         t * x * z - s * y,
         t * y * z + s * x,
         t * z * z + c,
         0,
         0,
         0,
         0,
         1};
  return r;
}

// The node at `eye` looking at `interest` (its -z axis towards it), `up` as close to its +y as
// the direction allows: the inverse of a view matrix.
DMat look_at(const float* v) {
  const double ex = v[0], ey = v[1], ez = v[2];
  double zx = ex - v[3], zy = ey - v[4], zz = ez - v[5];
  const double zl = std::sqrt(zx * zx + zy * zy + zz * zz);
  if (!(zl > 0)) return DMat{};
  zx /= zl, zy /= zl, zz /= zl;
  double xx = v[7] * zz - v[8] * zy, xy = v[8] * zx - v[6] * zz, xz = v[6] * zy - v[7] * zx;
  const double xl = std::sqrt(xx * xx + xy * xy + xz * xz);
  if (!(xl > 0)) return DMat{};
  xx /= xl, xy /= xl, xz /= xl;
  const double yx = zy * xz - zz * xy, yy = zz * xx - zx * xz, yz = zx * xy - zy * xx;
  DMat r;
  r.m = {xx, yx, zx, ex, xy, yy, zy, ey, xz, yz, zz, ez, 0, 0, 0, 1};
  return r;
}

constexpr std::uint8_t size_of(ElementKind k) {
  switch (k) {
    case ElementKind::kTranslate:
    case ElementKind::kScale:
      return 3;
    case ElementKind::kRotate:
      return 4;
    case ElementKind::kMatrix:
      return 16;
    case ElementKind::kLookAt:
      return 9;
    case ElementKind::kSkew:
      return 7;
  }
  return 0;
}

}  // namespace

DMat element_matrix(ElementKind kind, const float* v) {
  DMat r;
  switch (kind) {
    case ElementKind::kTranslate:
      r.m[3] = v[0], r.m[7] = v[1], r.m[11] = v[2];
      break;
    case ElementKind::kScale:
      r.m[0] = v[0], r.m[5] = v[1], r.m[10] = v[2];
      break;
    case ElementKind::kRotate:
      return rotation(v[0], v[1], v[2], v[3]);
    case ElementKind::kMatrix:
      for (int i = 0; i < 16; ++i) r.m[static_cast<std::size_t>(i)] = v[i];
      break;
    case ElementKind::kLookAt:
      return look_at(v);
    case ElementKind::kSkew:
      break;  // not supported: read_scene warns
  }
  return r;
}

DMat Scene::local(std::size_t n) const {
  const SceneNode& node = nodes[n];
  DMat m = node.fixed;
  for (const TransformElement& e : node.stack) m = m * element_matrix(e.kind, e.values.data());
  return m;
}

bool Scene::is_descendant(std::size_t node, std::size_t ancestor) const {
  for (std::int64_t n = static_cast<std::int64_t>(node); n >= 0; n = nodes[n].parent) {
    if (static_cast<std::size_t>(n) == ancestor) return true;
  }
  return false;
}

std::int64_t Scene::find_joint(const std::string& name,
                               const std::vector<std::size_t>& skeleton_roots) const {
  const auto [sb, se] = by_sid.equal_range(name);
  for (std::size_t root : skeleton_roots) {
    for (auto it = sb; it != se; ++it)
      if (is_descendant(it->second, root)) return static_cast<std::int64_t>(it->second);
  }
  if (sb != se) return static_cast<std::int64_t>(sb->second);
  if (const auto it = by_id.find(name); it != by_id.end())
    return static_cast<std::int64_t>(it->second);
  for (std::size_t n = 1; n < nodes.size(); ++n)
    if (nodes[n].name == name) return static_cast<std::int64_t>(n);
  return -1;
}

Scene read_scene(const Document& doc, std::vector<std::string>& warnings) {
  Scene scene;
  const pugi::xml_node asset = doc.root().child("asset");
  if (const pugi::xml_node unit = asset.child("unit")) {
    scene.meter = unit.attribute("meter").as_double(1.0);
    if (!(scene.meter >= 1e-9 && scene.meter <= 1e9))
      doc.fail(unit, "meter=" + io::quote_token(unit.attribute("meter").as_string()) +
                         " is not a length between 1e-9 and 1e9 metres");
  }
  if (const pugi::xml_node up = asset.child("up_axis")) {
    scene.up_axis = up.child_value();
    while (!scene.up_axis.empty() && std::isspace(static_cast<unsigned char>(scene.up_axis.back())))
      scene.up_axis.pop_back();
    const std::size_t start = scene.up_axis.find_first_not_of(" \t\r\n");
    scene.up_axis = start == std::string::npos ? "" : scene.up_axis.substr(start);
    if (scene.up_axis != "X_UP" && scene.up_axis != "Y_UP" && scene.up_axis != "Z_UP")
      doc.fail(up, io::quote_token(scene.up_axis) + " is not X_UP, Y_UP or Z_UP");
  }
  pugi::xml_node visual;
  const pugi::xml_node first = doc.root().child("library_visual_scenes").child("visual_scene");
  if (const pugi::xml_node inst = doc.root().child("scene").child("instance_visual_scene")) {
    const std::string_view url = inst.attribute("url").as_string();
    visual = doc.by_id(fragment(url));
    // Exporters write url="#" for a scene without an id: the file's only scene is meant.
    if (!visual && first && !first.next_sibling("visual_scene")) {
      warnings.push_back(doc.where(inst) + ": url " + io::quote_token(url) +
                         " names no element; the file's only <visual_scene> is used");
      visual = first;
    } else if (!visual) {
      visual = doc.resolve(inst, url, "url");
    }
  } else {
    visual = first;
  }
  if (!visual) throw ColladaError(doc.name() + ": no <visual_scene>");

  // Node 0: the visual scene, holding the conversion to metres and to Y up (glTF's frame), as
  // the node above everything.
  SceneNode root;
  root.element = visual;
  root.name = display_name(visual, "scene");
  const double s = scene.meter;
  DMat unit;
  unit.m[0] = unit.m[5] = unit.m[10] = s;
  if (scene.up_axis == "Z_UP")
    root.fixed = rotation(1, 0, 0, -90) * unit;  // +z becomes +y
  else if (scene.up_axis == "X_UP")
    root.fixed = rotation(0, 0, 1, 90) * unit;  // +x becomes +y
  else
    root.fixed = unit;
  scene.nodes.push_back(std::move(root));

  // Pre-order walk over <node> children with an explicit stack; <instance_node> brings the
  // referenced node (and its subtree) in again under the current node.
  struct Item {
    pugi::xml_node element;
    std::int64_t parent;
    std::size_t depth;
  };
  std::vector<Item> stack;
  auto push_children = [&](pugi::xml_node parent_element, std::int64_t parent, std::size_t depth) {
    const std::size_t first = stack.size();
    for (pugi::xml_node c = parent_element.first_child(); c; c = c.next_sibling()) {
      if (std::strcmp(c.name(), "node") == 0) {
        stack.push_back({c, parent, depth});
      } else if (std::strcmp(c.name(), "instance_node") == 0) {
        const std::string_view url = c.attribute("url").as_string();
        if (url.empty() || url[0] != '#') {
          warnings.push_back(doc.where(c) + ": external node " + io::quote_token(url) +
                             " is not loaded");
          continue;
        }
        const pugi::xml_node target = doc.resolve(c, url, "url");
        if (std::strcmp(target.name(), "node") != 0)
          doc.fail(c, "url names a <" + std::string(target.name()) + ">, not a <node>");
        stack.push_back({target, parent, depth});
      }
    }
    std::reverse(stack.begin() + static_cast<std::ptrdiff_t>(first), stack.end());
  };
  push_children(visual, 0, 1);
  // <instance_node> multiplies nodes: a budget proportional to the file keeps a small file from
  // asking for millions of them.
  const std::size_t node_limit = std::min<std::size_t>(kMaxJoints, kNodesBase + doc.size() / 2);
  bool skew_seen = false;
  while (!stack.empty()) {
    const Item item = stack.back();
    stack.pop_back();
    if (item.depth > kMaxNodeDepth)
      doc.fail(item.element, "nodes nested deeper than " + std::to_string(kMaxNodeDepth) +
                                 " levels (or an <instance_node> cycle)");
    if (scene.nodes.size() >= node_limit)
      doc.fail(item.element, "more nodes than a file of " + std::to_string(doc.size()) +
                                 " bytes may make (" + std::to_string(node_limit) +
                                 ", instance_node copies included)");
    SceneNode node;
    node.element = item.element;
    node.parent = item.parent;
    node.depth = item.depth;
    node.name = display_name(item.element, "node_" + std::to_string(scene.nodes.size()));
    for (pugi::xml_node c = item.element.first_child(); c; c = c.next_sibling()) {
      static constexpr std::pair<const char*, ElementKind> kKinds[] = {
          {"translate", ElementKind::kTranslate}, {"rotate", ElementKind::kRotate},
          {"scale", ElementKind::kScale},         {"matrix", ElementKind::kMatrix},
          {"lookat", ElementKind::kLookAt},       {"skew", ElementKind::kSkew}};
      for (const auto& [tag, kind] : kKinds) {
        if (std::strcmp(c.name(), tag) != 0) continue;
        TransformElement e;
        e.kind = kind;
        e.sid = c.attribute("sid").as_string();
        e.size = size_of(kind);
        e.element = c;
        const std::vector<float> v = doc.floats(c, false);
        if (v.size() != e.size)
          doc.fail(c, std::to_string(v.size()) + " numbers; <" + tag + "> takes " +
                          std::to_string(e.size));
        std::copy(v.begin(), v.end(), e.values.begin());
        if (kind == ElementKind::kSkew && !skew_seen) {
          warnings.push_back(doc.where(c) + ": <skew> is not supported and is ignored");
          skew_seen = true;
        }
        node.stack.push_back(std::move(e));
      }
      if (std::strcmp(c.name(), "instance_geometry") == 0 ||
          std::strcmp(c.name(), "instance_controller") == 0)
        node.instances.push_back(c);
    }
    const auto index = static_cast<std::int64_t>(scene.nodes.size());
    if (const char* id = item.element.attribute("id").as_string(); *id)
      scene.by_id.emplace(id, static_cast<std::size_t>(index));
    if (const char* sid = item.element.attribute("sid").as_string(); *sid)
      scene.by_sid.emplace(sid, static_cast<std::size_t>(index));
    scene.nodes.push_back(std::move(node));
    push_children(item.element, index, item.depth + 1);
  }
  return scene;
}

}  // namespace marrow::collada
