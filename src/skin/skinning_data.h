// The prepared layout of a SkinningMesh, shared by the scalar and the SIMD kernels. Private to
// src/skin.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "marrow/skin/skinning.h"

namespace marrow {

namespace skin_detail {

struct SkinningMeshData {
  // Vertices with the same number of influences, in slots [begin, end); groups are ordered by
  // influence count, and within a group vertices keep their original order. A group of 0
  // influences holds vertices kept in place (UnweightedVertices::kKeepBindPosition).
  struct Group {
    std::uint32_t influences = 0;
    std::size_t begin = 0, end = 0;
    std::size_t first_influence = 0;  // index into joints/weights of slot `begin`
  };

  std::string name;
  std::size_t vertex_count = 0;
  std::size_t skin_joint_count = 0;
  std::size_t max_influences = 0;
  bool has_normals = false;
  bool has_tangents = false;

  std::vector<Group> groups;
  // Per slot, in slot order (so a range of slots streams through memory). The float arrays carry
  // one element of padding at the end so the SIMD kernels may load 4 floats at any element.
  std::vector<std::uint32_t> original_index;
  std::vector<Vec3> positions;
  std::vector<Vec3> normals;
  std::vector<std::array<float, 4>> tangents;
  // Influences, `influences` consecutive entries per slot inside its group, strongest first.
  std::vector<std::uint16_t> joints;
  std::vector<float> weights;

  // Per skin joint: bind-space box of the vertices it influences (empty when none).
  std::vector<Aabb> joint_bounds;
  // Box of the vertices kept in place (UnweightedVertices::kKeepBindPosition; group of 0).
  Aabb unweighted_bounds;
};

inline const SkinningMeshData& data_of(const SkinningMesh& mesh) {
  return *mesh.data_;
}

}  // namespace skin_detail

}  // namespace marrow
