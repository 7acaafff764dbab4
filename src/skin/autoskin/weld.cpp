// Joining all parts into one mesh and welding vertices that share a place: seams, split normals
// and separately loaded parts would otherwise cut the surface the heat diffuses over, and the
// pieces would get different weights and tear apart when animated.
#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "internal.h"

namespace marrow::autoskin::detail {
namespace {

struct CellKey {
  std::int64_t x, y, z;
  friend bool operator==(const CellKey&, const CellKey&) = default;
};
struct CellHash {
  std::size_t operator()(const CellKey& k) const {
    std::uint64_t h = static_cast<std::uint64_t>(k.x) * 0x9E3779B97F4A7C15ull;
    h ^= static_cast<std::uint64_t>(k.y) * 0xC2B2AE3D27D4EB4Full + (h << 6) + (h >> 2);
    h ^= static_cast<std::uint64_t>(k.z) * 0x165667B19E3779F9ull + (h << 6) + (h >> 2);
    return static_cast<std::size_t>(h);
  }
};

}  // namespace

Result<WeldedMesh> weld(std::span<const MeshPart> parts, float tolerance) {
  WeldedMesh mesh;
  std::size_t total = 0;
  Vec3 lo{INFINITY, INFINITY, INFINITY}, hi{-INFINITY, -INFINITY, -INFINITY};
  for (std::size_t p = 0; p < parts.size(); ++p) {
    const MeshPart& part = parts[p];
    const std::string where = "mesh part " + std::to_string(p) +
                              (part.name.empty() ? std::string() : " '" + part.name + "'");
    if (part.indices.size() % 3 != 0)
      return make_error(
          where, std::to_string(part.indices.size()) + " triangle indices is not a multiple of 3");
    for (std::size_t i = 0; i < part.indices.size(); ++i)
      if (part.indices[i] >= part.positions.size())
        return make_error(where, "triangle " + std::to_string(i / 3) + ": index " +
                                     std::to_string(part.indices[i]) + " is out of range (" +
                                     std::to_string(part.positions.size()) + " vertices)");
    for (std::size_t v = 0; v < part.positions.size(); ++v) {
      const Vec3 q = part.positions[v];
      if (!is_finite(q)) return make_error(where, "vertex " + std::to_string(v) + " is not finite");
      lo = {std::min(lo.x, q.x), std::min(lo.y, q.y), std::min(lo.z, q.z)};
      hi = {std::max(hi.x, q.x), std::max(hi.y, q.y), std::max(hi.z, q.z)};
    }
    mesh.part_offsets.push_back(static_cast<std::uint32_t>(total));
    total += part.positions.size();
  }
  mesh.part_offsets.push_back(static_cast<std::uint32_t>(total));
  if (total == 0) return make_error("autoskin", "the mesh has no vertices");
  if (total >= 0xFFFFFFFFu) return make_error("autoskin", "too many vertices");
  mesh.diagonal = length(hi - lo);

  // Grid hashing with cells much larger than `eps`: a vertex looks in its own cell, and in the
  // neighbouring ones only when it lies within `eps` of a cell face (rare). Each cell keeps a
  // chain of its welded vertices through `next`.
  // At least a few float steps of the largest coordinate, so a mesh of one point (diagonal 0)
  // or a tiny one far from the origin still gets cell indices that fit.
  const float magnitude = std::max({std::abs(lo.x), std::abs(lo.y), std::abs(lo.z), std::abs(hi.x),
                                    std::abs(hi.y), std::abs(hi.z), 1e-30f});
  const float eps = std::max({tolerance * mesh.diagonal, 1e-6f * magnitude, 1e-30f});
  const double cell = 64.0 * eps;
  constexpr std::uint32_t kNone = 0xFFFFFFFFu;
  std::unordered_map<CellKey, std::uint32_t, CellHash> grid;
  grid.reserve(total);
  std::vector<std::uint32_t> next;
  next.reserve(total);
  mesh.positions.reserve(total);
  mesh.welded_of_input.resize(total);
  auto search = [&](const CellKey& key, Vec3 q) {
    auto it = grid.find(key);
    for (std::uint32_t w = it == grid.end() ? kNone : it->second; w != kNone; w = next[w]) {
      const Vec3 d = mesh.positions[w] - q;
      if (dot(d, d) <= eps * eps) return w;
    }
    return kNone;
  };
  std::size_t input = 0;
  for (const MeshPart& part : parts) {
    for (const Vec3 q : part.positions) {
      const double fx = q.x / cell, fy = q.y / cell, fz = q.z / cell;
      const CellKey key{static_cast<std::int64_t>(std::floor(fx)),
                        static_cast<std::int64_t>(std::floor(fy)),
                        static_cast<std::int64_t>(std::floor(fz))};
      std::uint32_t found = search(key, q);
      if (found == kNone) {
        // Which neighbours could hold a vertex within eps: -1, 0 or +1 per axis.
        const double margin = eps / cell;
        auto range = [&](double f, std::int64_t k, int& lo, int& hi) {
          lo = f - static_cast<double>(k) < margin ? -1 : 0;
          hi = static_cast<double>(k) + 1 - f < margin ? 1 : 0;
        };
        int lx, hx, ly, hy, lz, hz;
        range(fx, key.x, lx, hx);
        range(fy, key.y, ly, hy);
        range(fz, key.z, lz, hz);
        for (int dx = lx; dx <= hx && found == kNone; ++dx)
          for (int dy = ly; dy <= hy && found == kNone; ++dy)
            for (int dz = lz; dz <= hz && found == kNone; ++dz)
              if (dx || dy || dz) found = search({key.x + dx, key.y + dy, key.z + dz}, q);
      }
      if (found == kNone) {
        found = static_cast<std::uint32_t>(mesh.positions.size());
        mesh.positions.push_back(q);
        auto [it, inserted] = grid.try_emplace(key, found);
        next.push_back(inserted ? kNone : it->second);
        it->second = found;
      } else {
        ++mesh.duplicate_vertices;
      }
      mesh.welded_of_input[input++] = found;
    }
  }

  for (std::size_t p = 0; p < parts.size(); ++p) {
    const std::uint32_t base = mesh.part_offsets[p];
    const auto& idx = parts[p].indices;
    for (std::size_t t = 0; t + 2 < idx.size(); t += 3) {
      const std::uint32_t a = mesh.welded_of_input[base + idx[t]];
      const std::uint32_t b = mesh.welded_of_input[base + idx[t + 1]];
      const std::uint32_t c = mesh.welded_of_input[base + idx[t + 2]];
      if (a == b || b == c || a == c) {
        ++mesh.collapsed_triangles;
        continue;
      }
      mesh.triangles.push_back({a, b, c});
    }
  }
  return mesh;
}

WeldedMesh subdivide(const WeldedMesh& mesh) {
  WeldedMesh out;
  out.positions = mesh.positions;
  out.diagonal = mesh.diagonal;
  out.triangles.reserve(mesh.triangles.size() * 4);
  std::unordered_map<std::uint64_t, std::uint32_t> midpoints;
  midpoints.reserve(mesh.triangles.size() * 2);
  auto midpoint = [&](std::uint32_t a, std::uint32_t b) {
    const std::uint64_t key = (std::uint64_t{std::min(a, b)} << 32) | std::max(a, b);
    auto [it, inserted] = midpoints.try_emplace(key, 0u);
    if (inserted) {
      it->second = static_cast<std::uint32_t>(out.positions.size());
      out.positions.push_back((out.positions[a] + out.positions[b]) * 0.5f);
    }
    return it->second;
  };
  for (const auto& t : mesh.triangles) {
    const std::uint32_t ab = midpoint(t[0], t[1]), bc = midpoint(t[1], t[2]),
                        ca = midpoint(t[2], t[0]);
    out.triangles.push_back({t[0], ab, ca});
    out.triangles.push_back({ab, t[1], bc});
    out.triangles.push_back({ca, bc, t[2]});
    out.triangles.push_back({ab, bc, ca});
  }
  return out;
}

}  // namespace marrow::autoskin::detail
