// SkinningJob: checks the inputs, then runs the kernels group by group over a slot range.
#include <cstdint>
#include <cstring>

#include "base/job_problem.h"
#include "marrow/skin/morph.h"
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
                     const detail::KernelArgs& args, std::size_t begin, std::size_t end) {
  const skin_detail::SkinningMeshData& d = skin_detail::data_of(mesh);
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

detail::JobProblem find_problem(const SkinningJob& job) {
  if (job.mesh == nullptr) return {"mesh", "is null"};
  const skin_detail::SkinningMeshData& d = skin_detail::data_of(*job.mesh);
  const std::size_t n = d.vertex_count;
  if (job.method != SkinningMethod::kLinear && job.method != SkinningMethod::kDualQuaternion) {
    return {"method", "is neither kLinear nor kDualQuaternion"};
  }
  if (!job.dq_palette.empty()) {
    if (job.method != SkinningMethod::kDualQuaternion) {
      return {"method", "is not kDualQuaternion while dq_palette is given"};
    }
    if (job.dq_palette.size() < d.skin_joint_count) {
      return {"dq_palette", "is shorter than the mesh's skin_joint_count()"};
    }
  } else if (job.palette.size() < d.skin_joint_count) {
    return {"palette", "is shorter than the mesh's skin_joint_count()"};
  }
  if (const MorphedVertices* bind = job.bind) {
    if (bind->order != &d || bind->positions.size() < n + 1 ||
        (d.has_normals && bind->normals.size() < n + 1) ||
        (d.has_tangents && bind->tangents.size() < n)) {
      return {"bind", "was not made by MorphedVertices::create for this mesh"};
    }
  }
  const SkinningOutput& out = job.output;
  if (out.positions.size() < n) return {"output.positions", "is shorter than vertex_count()"};
  if (!out.normals.empty() && out.normals.size() < n) {
    return {"output.normals", "is neither empty nor one per vertex"};
  }
  if (!out.tangents.empty() && out.tangents.size() < n) {
    return {"output.tangents", "is neither empty nor one per vertex"};
  }
  const std::size_t end = job.end == kAllVertices ? n : job.end;
  if (job.begin > std::min(end, n)) return {"begin", "is past end"};
  if (end > n) return {"end", "is neither kAllVertices nor at most vertex_count()"};
  return {};
}

template <bool kReference>
bool run_skinning(const SkinningJob& job) {
  if (find_problem(job)) return false;
  const SkinningMesh& mesh = *job.mesh;
  const skin_detail::SkinningMeshData& d = skin_detail::data_of(mesh);
  detail::KernelArgs args = detail::make_args(d, job.output);
  if (job.bind != nullptr) {
    args.bind_positions = job.bind->positions.data();
    if (d.has_normals) args.bind_normals = job.bind->normals.data();
    if (d.has_tangents) args.bind_tangents = job.bind->tangents.data();
  }
  const std::size_t end = job.end == kAllVertices ? d.vertex_count : job.end;
  if (!job.dq_palette.empty()) {
    return skin_dual_quats<kReference>(mesh, job.dq_palette, args, job.begin, end);
  }
  return skin_matrices<kReference>(mesh, job.palette, job.method, args, job.begin, end);
}

}  // namespace

Status SkinningJob::validate() const {
  return detail::to_status("SkinningJob", find_problem(*this));
}

bool SkinningJob::run() const {
  return run_skinning<false>(*this);
}

bool SkinningJob::run_reference() const {
  return run_skinning<true>(*this);
}

bool skin(const SkinningMesh& mesh, std::span<const Mat4> palette, SkinningMethod method,
          SkinningOutput out, std::size_t begin, std::size_t end) {
  return SkinningJob{&mesh, method, palette, {}, nullptr, out, begin, end}.run();
}

bool skin(const SkinningMesh& mesh, std::span<const DqsJoint> dq_palette, SkinningOutput out,
          std::size_t begin, std::size_t end) {
  return SkinningJob{&mesh, SkinningMethod::kDualQuaternion, {}, dq_palette, nullptr, out, begin,
                     end}
      .run();
}

bool skin_reference(const SkinningMesh& mesh, std::span<const Mat4> palette, SkinningMethod method,
                    SkinningOutput out, std::size_t begin, std::size_t end) {
  return SkinningJob{&mesh, method, palette, {}, nullptr, out, begin, end}.run_reference();
}

bool skin_reference(const SkinningMesh& mesh, std::span<const DqsJoint> dq_palette,
                    SkinningOutput out, std::size_t begin, std::size_t end) {
  return SkinningJob{&mesh, SkinningMethod::kDualQuaternion, {}, dq_palette, nullptr, out, begin,
                     end}
      .run_reference();
}

}  // namespace marrow
