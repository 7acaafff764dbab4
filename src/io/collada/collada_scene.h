// The node tree of a Collada visual scene: every <node> (and every node an <instance_node>
// brings in) with its transform stack, the user-visible name, and lookups by id and sid; plus
// the stack's evaluation (in double precision) into one matrix. Private to src/io/collada.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "collada/collada_document.h"
#include "marrow/math/mat4.h"

namespace marrow::collada {

// A 4x4 matrix in double, row-major as Collada writes <matrix> (translation in elements 3, 7,
// 11), for composing transform stacks without float round-off piling up.
struct DMat {
  std::array<double, 16> m{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  DMat operator*(const DMat& b) const;
  Mat4 to_mat4() const;  // marrow's column-major float matrix
};

enum class ElementKind : std::uint8_t { kTranslate, kRotate, kScale, kMatrix, kLookAt, kSkew };

// One element of a node's transform stack, in document order (Collada composes them left to
// right: the first element is outermost).
struct TransformElement {
  ElementKind kind = ElementKind::kTranslate;
  std::string sid;
  // translate/scale: x y z; rotate: axis x y z, angle in degrees; matrix: 16 row-major;
  // lookat: eye, interest, up; skew: angle, rotation axis, translation axis.
  std::array<float, 16> values{};
  std::uint8_t size = 0;
  pugi::xml_node element;
};

// The matrix of one element with `values` (size() floats, possibly animated).
DMat element_matrix(ElementKind kind, const float* values);

struct SceneNode {
  pugi::xml_node element;  // the <node>; the visual scene itself for node 0
  std::int64_t parent = -1;
  std::size_t depth = 0;
  std::string name;  // what the user sees (display_name)
  std::vector<TransformElement> stack;
  // Node 0 (the visual scene) carries the unit and up-axis conversion instead of a stack.
  DMat fixed = DMat{};
  // <instance_geometry> and <instance_controller> elements of this node.
  std::vector<pugi::xml_node> instances;
};

struct Scene {
  std::vector<SceneNode> nodes;  // node 0 = the visual scene, then <node>s in pre-order
  double meter = 1;              // <unit meter>
  std::string up_axis = "Y_UP";
  // Scene nodes by the id and sid of their <node> (an instanced node appears once per use).
  std::unordered_multimap<std::string, std::size_t> by_id, by_sid;

  // The local matrix of node `n` with its stack's rest values.
  DMat local(std::size_t n) const;
  // The nodes a skin's joint name means (docs/formats_collada.md): a sid under one of the
  // `skeleton_roots` (scene nodes), else a sid anywhere, else an id, else a name; -1 if none.
  std::int64_t find_joint(const std::string& name,
                          const std::vector<std::size_t>& skeleton_roots) const;
  bool is_descendant(std::size_t node, std::size_t ancestor) const;
};

// Reads the scene <scene><instance_visual_scene> names (or the first visual scene), with
// <asset> unit and up axis. Warnings for what is dropped (skew elements, external nodes).
Scene read_scene(const Document& doc, std::vector<std::string>& warnings);

}  // namespace marrow::collada
