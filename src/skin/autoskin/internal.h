// Shared pieces of the automatic-weights methods (not part of the public API).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "marrow/skin/autoskin.h"

namespace marrow::autoskin::detail {

// All parts as one welded mesh: vertices at the same place (within the tolerance) are one.
struct WeldedMesh {
  std::vector<Vec3> positions;                 // welded vertices
  std::vector<std::uint32_t> welded_of_input;  // input vertex (all parts, in order) -> welded
  std::vector<std::uint32_t> part_offsets;     // first input vertex of each part, + total
  std::vector<std::array<std::uint32_t, 3>> triangles;  // welded, collapsed ones removed
  std::size_t collapsed_triangles = 0;  // triangles with two corners welded together
  std::size_t duplicate_vertices = 0;   // input vertices merged into another
  float diagonal = 0;                   // bounding-box diagonal
};

Result<WeldedMesh> weld(std::span<const MeshPart> parts, float tolerance);

// Every triangle split in four at its edge midpoints (the first vertices stay where they were;
// welded_of_input and part_offsets are left empty).
WeldedMesh subdivide(const WeldedMesh& mesh);

// Squared distance from p to segment [a, b] and the projection fraction t (unclamped).
struct SegmentDistance {
  float distance_squared;
  float t;  // projection of p on the line, as a fraction of |b - a| (0.5 for a point)
  Vec3 closest;
};
SegmentDistance segment_distance(Vec3 p, Vec3 a, Vec3 b);

// Leaf stubs (see build_bones) run along their parent's direction to where the mesh ends in
// that direction, at most the parent's length.
void fit_leaf_bones(std::vector<Bone>& bones, const WeldedMesh& mesh);

// Per welded vertex: (rig joint, weight) pairs, any order, not yet limited.
using RawWeights = std::vector<std::vector<std::pair<std::uint16_t, float>>>;

void proximity_weights(const WeldedMesh& mesh, const Rig& rig, std::span<const Bone> bones,
                       const Options& options, RawWeights& out);

void heat_weights(const WeldedMesh& mesh, const Rig& rig, std::span<const Bone> bones,
                  const Options& options, RawWeights& out, std::vector<std::string>& notes);

}  // namespace marrow::autoskin::detail
