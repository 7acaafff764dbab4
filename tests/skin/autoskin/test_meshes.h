// Hand-built meshes and skeletons for the automatic-weights tests and benchmarks.
#pragma once

#include <cmath>
#include <cstdint>
#include <numbers>
#include <string>
#include <vector>

#include "marrow/skeleton/skeleton.h"

namespace marrow::test {

struct TestMesh {
  std::vector<Vec3> positions;
  std::vector<std::uint32_t> indices;
};

// A closed tube along +y from y0 to y1 around (cx, cz) with elliptic section rx, rz: `rings`
// rings of `segments` vertices, capped by a centre vertex at each end. With `seam` the first
// column is repeated at angle 2*pi (duplicate vertices, as UV seams produce).
inline void add_tube(TestMesh& m, float cx, float cz, float y0, float y1, float rx, float rz,
                     int rings, int segments, bool seam = false) {
  const auto base = static_cast<std::uint32_t>(m.positions.size());
  const int columns = segments + (seam ? 1 : 0);
  for (int r = 0; r < rings; ++r) {
    const float y = y0 + (y1 - y0) * static_cast<float>(r) / static_cast<float>(rings - 1);
    for (int s = 0; s < columns; ++s) {
      const float a = 2 * std::numbers::pi_v<float> * static_cast<float>(s % segments) /
                      static_cast<float>(segments);
      m.positions.push_back({cx + rx * std::cos(a), y, cz + rz * std::sin(a)});
    }
  }
  auto at = [&](int r, int s) {
    return base + static_cast<std::uint32_t>(r * columns + (seam ? s : s % segments));
  };
  for (int r = 0; r + 1 < rings; ++r)
    for (int s = 0; s < segments; ++s) {
      m.indices.insert(m.indices.end(), {at(r, s), at(r + 1, s), at(r + 1, s + 1)});
      m.indices.insert(m.indices.end(), {at(r, s), at(r + 1, s + 1), at(r, s + 1)});
    }
  const auto bottom = static_cast<std::uint32_t>(m.positions.size());
  m.positions.push_back({cx, y0, cz});
  const auto top = static_cast<std::uint32_t>(m.positions.size());
  m.positions.push_back({cx, y1, cz});
  for (int s = 0; s < segments; ++s) {
    m.indices.insert(m.indices.end(), {bottom, at(0, s + 1), at(0, s)});
    m.indices.insert(m.indices.end(), {top, at(rings - 1, s), at(rings - 1, s + 1)});
  }
}

// A skeleton from (name, parent, model-space position) with identity rotations.
struct JointAt {
  std::string name;
  int parent;
  Vec3 position;
};
inline Skeleton make_skeleton(const std::vector<JointAt>& joints) {
  std::vector<JointDesc> desc;
  for (const JointAt& j : joints) {
    JointDesc d;
    d.name = j.name;
    d.parent = j.parent;
    d.rest.translation = j.parent < 0
                             ? j.position
                             : j.position - joints[static_cast<std::size_t>(j.parent)].position;
    desc.push_back(d);
  }
  return std::move(Skeleton::build(desc, "test")).value();
}

}  // namespace marrow::test
