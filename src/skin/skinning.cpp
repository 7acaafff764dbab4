// skin(): checks the spans, then runs the kernels group by group over a slot range.
#include <cstdint>
#include <cstring>

#include "skin/skinning_kernels.h"

namespace marrow {

namespace {

// Palettes up to this size are converted to dual quaternions on the stack (17 KiB).
constexpr std::size_t kStackDqsJoints = 256;

// The SIMD kernels read each palette matrix as two 32-byte halves; when a matrix does not start
// on a 32-byte boundary one of them straddles two cache lines, which costs a second access (a
// std::vector<Mat4> is only 16-byte aligned: LBS with the faster normals ran 12 % slower at
// offsets 16 and 48 from a cache line than at 0 and 32, docs/performance.md). Palettes up to this
// size that are not on such a boundary are copied to one on the stack first (16 KiB; for an
// 8,192-vertex mesh the copy does not show: BM_SkinPaletteOffset reads every offset alike).
constexpr std::size_t kStackAlignedJoints = 256;
constexpr std::size_t kKernelLoadBytes = 32;
constexpr std::size_t kMat4FloatCount = sizeof(Mat4) / sizeof(float);

bool check(const SkinningMesh& mesh, std::size_t palette_size, const SkinningOutput& out,
           std::size_t begin, std::size_t end) {
  return validate_skinning(mesh, palette_size, out) && begin <= end && end <= mesh.vertex_count();
}

template <bool kReference>
bool skin_matrices(const SkinningMesh& mesh, std::span<const Mat4> palette, SkinningMethod method,
                   const detail::KernelArgs& args, std::size_t begin, std::size_t end) {
  const skin_detail::SkinningMeshData& d = skin_detail::data_of(mesh);
  if (method == SkinningMethod::kLinear) {
    if constexpr (kReference) {
      detail::for_each_group_range(d, args, begin, end,
                                   [&](const auto& g, std::size_t b, std::size_t e) {
                                     detail::lbs_scalar(args, palette.data(), g, b, e);
                                   });
    } else {
      const float* floats = reinterpret_cast<const float*>(palette.data());
      alignas(kKernelLoadBytes) float aligned[kStackAlignedJoints * kMat4FloatCount];
      const std::size_t joints = d.skin_joint_count;
      if (reinterpret_cast<std::uintptr_t>(floats) % kKernelLoadBytes != 0 &&
          joints <= kStackAlignedJoints) {
        std::memcpy(aligned, floats, joints * sizeof(Mat4));
        floats = aligned;
      }
      detail::for_each_group_range(d, args, begin, end,
                                   [&](const auto& g, std::size_t b, std::size_t e) {
                                     detail::lbs_simd(args, floats, g, b, e);
                                   });
    }
    return true;
  }
  const std::size_t joints = d.skin_joint_count;
  if (joints > kStackDqsJoints) {
    detail::for_each_group_range(d, args, begin, end,
                                 [&](const auto& g, std::size_t b, std::size_t e) {
                                   detail::dqs_scalar_from_matrices(args, palette.data(), g, b, e);
                                 });
    return true;
  }
  std::array<DqsJoint, kStackDqsJoints> dq;
  compute_dual_quat_palette(palette.first(joints), std::span(dq).first(joints));
  const bool rigid = detail::all_rigid(dq.data(), joints);
  detail::for_each_group_range(d, args, begin, end,
                               [&](const auto& g, std::size_t b, std::size_t e) {
                                 if constexpr (kReference)
                                   detail::dqs_scalar(args, dq.data(), g, b, e);
                                 else
                                   detail::dqs_simd(args, dq.data(), rigid, g, b, e);
                               });
  return true;
}

template <bool kReference>
bool skin_dual_quats(const SkinningMesh& mesh, std::span<const DqsJoint> palette,
                     SkinningOutput out, std::size_t begin, std::size_t end) {
  if (!check(mesh, palette.size(), out, begin, end)) return false;
  const skin_detail::SkinningMeshData& d = skin_detail::data_of(mesh);
  const detail::KernelArgs args = detail::make_args(d, out);
  const bool rigid = !kReference && detail::all_rigid(palette.data(), d.skin_joint_count);
  detail::for_each_group_range(d, args, begin, end,
                               [&](const auto& g, std::size_t b, std::size_t e) {
                                 if constexpr (kReference)
                                   detail::dqs_scalar(args, palette.data(), g, b, e);
                                 else
                                   detail::dqs_simd(args, palette.data(), rigid, g, b, e);
                               });
  return true;
}

}  // namespace

namespace detail {

bool skin_with_args(const SkinningMesh& mesh, std::span<const Mat4> palette, SkinningMethod method,
                    const SkinningOutput& out, const KernelArgs& args, std::size_t begin,
                    std::size_t end, bool reference) {
  if (!check(mesh, palette.size(), out, begin, end)) return false;
  return reference ? skin_matrices<true>(mesh, palette, method, args, begin, end)
                   : skin_matrices<false>(mesh, palette, method, args, begin, end);
}

}  // namespace detail

bool skin(const SkinningMesh& mesh, std::span<const Mat4> palette, SkinningMethod method,
          SkinningOutput out, std::size_t begin, std::size_t end) {
  return detail::skin_with_args(mesh, palette, method, out,
                                detail::make_args(skin_detail::data_of(mesh), out), begin, end,
                                false);
}

bool skin(const SkinningMesh& mesh, std::span<const DqsJoint> dq_palette, SkinningOutput out,
          std::size_t begin, std::size_t end) {
  return skin_dual_quats<false>(mesh, dq_palette, out, begin, end);
}

bool skin_reference(const SkinningMesh& mesh, std::span<const Mat4> palette, SkinningMethod method,
                    SkinningOutput out, std::size_t begin, std::size_t end) {
  return detail::skin_with_args(mesh, palette, method, out,
                                detail::make_args(skin_detail::data_of(mesh), out), begin, end,
                                true);
}

bool skin_reference(const SkinningMesh& mesh, std::span<const DqsJoint> dq_palette,
                    SkinningOutput out, std::size_t begin, std::size_t end) {
  return skin_dual_quats<true>(mesh, dq_palette, out, begin, end);
}

}  // namespace marrow
