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

  // Grid hashing: a vertex joins an earlier one within `eps` found in the 27 cells around it.
  const float eps = std::max(tolerance * mesh.diagonal, 1e-30f);
  const double cell = eps;
  std::unordered_map<CellKey, std::vector<std::uint32_t>, CellHash> grid;
  grid.reserve(total);
  mesh.welded_of_input.resize(total);
  std::size_t input = 0;
  for (const MeshPart& part : parts) {
    for (const Vec3 q : part.positions) {
      const CellKey key{static_cast<std::int64_t>(std::floor(q.x / cell)),
                        static_cast<std::int64_t>(std::floor(q.y / cell)),
                        static_cast<std::int64_t>(std::floor(q.z / cell))};
      std::uint32_t found = 0xFFFFFFFFu;
      for (int dx = -1; dx <= 1 && found == 0xFFFFFFFFu; ++dx)
        for (int dy = -1; dy <= 1 && found == 0xFFFFFFFFu; ++dy)
          for (int dz = -1; dz <= 1 && found == 0xFFFFFFFFu; ++dz) {
            auto it = grid.find({key.x + dx, key.y + dy, key.z + dz});
            if (it == grid.end()) continue;
            for (std::uint32_t w : it->second) {
              const Vec3 d = mesh.positions[w] - q;
              if (dot(d, d) <= eps * eps) {
                found = w;
                break;
              }
            }
          }
      if (found == 0xFFFFFFFFu) {
        found = static_cast<std::uint32_t>(mesh.positions.size());
        mesh.positions.push_back(q);
        grid[key].push_back(found);
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

}  // namespace marrow::autoskin::detail
