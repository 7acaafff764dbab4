// What the SIMD skinning and morph kernels take, and the table of one SIMD level's kernels. Plain
// data only, so that the per-level translation units can include it (src/math/simd/README.md).
// Private to src/skin.
#pragma once

#include <cstddef>
#include <cstdint>
#include "math/simd/kernel_levels.h"

namespace marrow::skin_detail {

// A range of slots of one influence group (skinning_data.h), every pointer already at the
// range's first slot. Inputs are in slot order; outputs are indexed by original_index.
struct GroupArgs {
  std::size_t count;            // slots in the range
  std::size_t influences;       // per slot, >= 1
  const float* positions;       // 3 floats per slot
  const float* normals;         // 3 floats per slot; null: no normals written
  const float* tangents;        // 4 floats per slot; null: no tangents written
  const std::uint16_t* joints;  // `influences` per slot, strongest first
  const float* weights;         // idem
  const std::uint32_t* original_index;
  float* out_positions;  // 3 floats per vertex
  float* out_normals;    // 3 floats per vertex, when normals is not null
  float* out_tangents;   // 4 floats per vertex, when tangents is not null
  // NormalTransform::kLinearUnnormalized: normals and tangents by the blended 3x3, as they come.
  bool linear_vectors;
};

// Floats per palette entry: a column-major Mat4, and a DqsJoint (real x y z w, dual x y z w,
// stretch 3x3 column-major); skinning_simd.cpp checks both layouts.
inline constexpr std::size_t kMat4Floats = 16;
inline constexpr std::size_t kDqsJointFloats = 17;

// The moved vertices of one morph group (morph_data.h), every pointer already at the group's
// first moved vertex or entry. Delta and base position/normal arrays are padded by one element,
// so every 3-float element can be read as 4 floats.
struct MorphGroupArgs {
  std::size_t count;                  // moved vertices in the group
  std::size_t targets;                // entries per moved vertex, >= 1
  const std::uint32_t* moved;         // per moved vertex: its index in output order
  const std::uint32_t* entry_target;  // per entry: its target, an index into weights
  const float* position_deltas;       // 3 floats per entry
  const float* normal_deltas;         // 3 floats per entry; null: normals not morphed
  const float* tangent_deltas;        // 3 floats per entry; null: tangents not morphed
  const float* weights;               // per target
  const float* base_positions;        // 3 floats per vertex
  const float* base_normals;          // 3 floats per vertex, when normal_deltas is not null
  const float* base_tangents;         // 4 floats per vertex, when tangent_deltas is not null
  float* out_positions;               // 3 floats per vertex
  float* out_normals;                 // idem, when normal_deltas is not null
  float* out_tangents;                // 4 floats per vertex; w is left as it is
};

struct SkinKernels {
  void (*lbs)(const GroupArgs&, const float* palette);
  // rigid: every joint's stretch is exactly the identity, so it is skipped.
  void (*dqs)(const GroupArgs&, const float* palette, bool rigid);
  void (*morph)(const MorphGroupArgs&);
};

MARROW_DECLARE_KERNEL_LEVELS(SkinKernels);

// The active level's kernels (simd.h).
const SkinKernels& skin_kernels();

}  // namespace marrow::skin_detail
