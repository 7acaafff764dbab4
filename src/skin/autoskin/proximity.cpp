// The 2011 proximity method. For each vertex the nearest bone segment is its parent. If the
// vertex projects onto the parent within [L, U] of its length, the parent alone takes it;
// otherwise the parent and the bones joined at the nearer end share it, each in proportion to
// 1 / (distance from the vertex to that bone's centre).
#include <algorithm>
#include <cmath>

#include "internal.h"

namespace marrow::autoskin::detail {
namespace {

// Squared distance and projection fraction of p to every bone (kept branch-free to vectorize).
void distances(Vec3 p, std::size_t n, const float* __restrict hx, const float* __restrict hy,
               const float* __restrict hz, const float* __restrict ax, const float* __restrict ay,
               const float* __restrict az, const float* __restrict inv, float* __restrict dist2,
               float* __restrict frac) {
  for (std::size_t b = 0; b < n; ++b) {
    const float px = p.x - hx[b], py = p.y - hy[b], pz = p.z - hz[b];
    const float t = (px * ax[b] + py * ay[b] + pz * az[b]) * inv[b];
    const float lo = t > 0.0f ? t : 0.0f;
    const float c = lo < 1.0f ? lo : 1.0f;
    const float dx = px - c * ax[b], dy = py - c * ay[b], dz = pz - c * az[b];
    dist2[b] = dx * dx + dy * dy + dz * dz;
    frac[b] = t;
  }
}

}  // namespace

void proximity_weights(const WeldedMesh& mesh, const Rig& rig, std::span<const Bone> bones,
                       const Options& options, RawWeights& out) {
  const std::size_t n_bones = bones.size();
  // Bones joined at each end of each bone, from the hierarchy (shared joints).
  std::vector<std::vector<std::uint32_t>> at_head(n_bones), at_tail(n_bones);
  for (std::size_t b = 0; b < n_bones; ++b) {
    for (std::size_t o = 0; o < n_bones; ++o) {
      if (o == b) continue;
      const JointIndex h = bones[b].head_joint, t = bones[b].tail_joint;
      if (bones[o].tail_joint == h || bones[o].head_joint == h)
        at_head[b].push_back(static_cast<std::uint32_t>(o));
      if (t != kNoParent && (bones[o].head_joint == t || bones[o].tail_joint == t))
        at_tail[b].push_back(static_cast<std::uint32_t>(o));
    }
  }
  std::vector<ProximityRange> ranges(n_bones, options.range);
  std::vector<Vec3> centres(n_bones);
  for (std::size_t b = 0; b < n_bones; ++b) {
    auto it = options.range_overrides.find(rig.joints[bones[b].rig_joint]);
    if (it != options.range_overrides.end()) ranges[b] = it->second;
    centres[b] = (bones[b].head + bones[b].tail) * 0.5f;
  }
  // A vertex on a bone's centre would divide by zero: keep distances above a tiny floor.
  const float floor = std::max(mesh.diagonal * 1e-6f, 1e-30f);

  // Bones as structure of arrays so the distance loop vectorizes.
  std::vector<float> hx(n_bones), hy(n_bones), hz(n_bones), ax(n_bones), ay(n_bones), az(n_bones),
      inv(n_bones), dist2(n_bones), frac(n_bones);
  for (std::size_t b = 0; b < n_bones; ++b) {
    const Vec3 axis = bones[b].tail - bones[b].head;
    const float len2 = dot(axis, axis);
    hx[b] = bones[b].head.x, hy[b] = bones[b].head.y, hz[b] = bones[b].head.z;
    ax[b] = axis.x, ay[b] = axis.y, az[b] = axis.z;
    inv[b] = len2 > 0 ? 1.0f / len2 : 0.0f;  // a point bone: t = 0 here, 0.5 below
  }

  out.assign(mesh.positions.size(), {});
  for (std::size_t v = 0; v < mesh.positions.size(); ++v) {
    const Vec3 p = mesh.positions[v];
    distances(p, n_bones, hx.data(), hy.data(), hz.data(), ax.data(), ay.data(), az.data(),
              inv.data(), dist2.data(), frac.data());
    std::size_t parent = 0;
    for (std::size_t b = 1; b < n_bones; ++b)
      if (dist2[b] < dist2[parent]) parent = b;
    const float best_t = inv[parent] > 0 ? frac[parent] : 0.5f;
    auto& row = out[v];
    const ProximityRange r = ranges[parent];
    if (best_t >= r.lower && best_t <= r.upper) {
      row.push_back({bones[parent].rig_joint, 1.0f});
      continue;
    }
    const auto& joined = best_t < r.lower ? at_head[parent] : at_tail[parent];
    auto add = [&](std::size_t b) {
      const float w = 1.0f / std::max(length(p - centres[b]), floor);
      for (auto& [j, weight] : row)
        if (j == bones[b].rig_joint) {
          weight += w;
          return;
        }
      row.push_back({bones[b].rig_joint, w});
    };
    add(parent);
    for (std::uint32_t b : joined) add(b);
  }
}

}  // namespace marrow::autoskin::detail
