// The prepared layout of a MorphMesh, shared by the scalar and the SIMD kernels. Private to
// src/skin.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "marrow/skin/morph.h"

namespace marrow {

namespace skin_detail {

struct MorphMeshData {
  // Moved vertices that K targets move, in [begin, end) of `moved`; groups ordered by K. Their
  // K entries each (target index and deltas) start at first_entry, vertex after vertex.
  struct Group {
    std::uint32_t targets = 0;
    std::size_t begin = 0, end = 0;
    std::size_t first_entry = 0;
  };

  std::size_t vertex_count = 0;
  std::size_t target_count = 0;
  bool has_normals = false, has_tangents = false;      // the mesh's attributes
  bool morph_normals = false, morph_tangents = false;  // some target has such deltas
  const void* order =
      nullptr;  // the skin_detail::SkinningMeshData whose slot order is used, or null

  // The mesh's own vertices in output order; positions and normals padded by one element.
  std::vector<Vec3> base_positions;
  std::vector<Vec3> base_normals;
  std::vector<std::array<float, 4>> base_tangents;

  std::vector<Group> groups;
  std::vector<std::uint32_t> moved;  // per moved vertex: its index in output order
  // Per entry: the target and its deltas (a target without normal or tangent deltas has zeros
  // there). Delta arrays are padded by one element for 4-float loads.
  std::vector<std::uint32_t> entry_target;
  std::vector<Vec3> position_deltas;
  std::vector<Vec3> normal_deltas;   // empty unless morph_normals
  std::vector<Vec3> tangent_deltas;  // empty unless morph_tangents
};

inline const MorphMeshData& data_of(const MorphMesh& mesh) {
  return *mesh.data_;
}

}  // namespace skin_detail

namespace detail {

// The kernels over the moved vertices of one group (morph.cpp): the scalar reference, and the
// SIMD level's kernel (morph_kernels.h) through the runtime's dispatch.
void morph_group_scalar(const skin_detail::MorphMeshData& d,
                        const skin_detail::MorphMeshData::Group& g, const float* weights,
                        MorphedVertices& out);
void morph_group_simd(const skin_detail::MorphMeshData& d,
                      const skin_detail::MorphMeshData::Group& g, const float* weights,
                      MorphedVertices& out);

}  // namespace detail
}  // namespace marrow
