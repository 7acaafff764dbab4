#include "marrow/control/blend_space.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace marrow {
namespace {

struct P2 {
  double x = 0, y = 0;
};

double orient(P2 a, P2 b, P2 c) {
  return (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);
}

// True when d lies strictly inside the circumcircle of the counter-clockwise triangle abc.
bool in_circumcircle(P2 a, P2 b, P2 c, P2 d) {
  const double ax = a.x - d.x, ay = a.y - d.y;
  const double bx = b.x - d.x, by = b.y - d.y;
  const double cx = c.x - d.x, cy = c.y - d.y;
  const double det = (ax * ax + ay * ay) * (bx * cy - cx * by) -
                     (bx * bx + by * by) * (ax * cy - cx * ay) +
                     (cx * cx + cy * cy) * (ax * by - bx * ay);
  return det > 0;
}

Status check_samples(const std::string& name, const std::vector<BlendSample>& samples, int dims) {
  const std::size_t needed = dims == 1 ? 2 : 3;
  if (samples.size() < needed) {
    return make_error("blend space '" + name + "'", "needs at least " + std::to_string(needed) +
                                                        " samples, has " +
                                                        std::to_string(samples.size()));
  }
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (!std::isfinite(samples[i].x) || !std::isfinite(samples[i].y)) {
      return make_error("blend space '" + name + "'",
                        "sample " + std::to_string(i) + " has a coordinate that is not finite");
    }
    for (std::size_t j = 0; j < i; ++j) {
      const bool same = dims == 1 ? samples[i].x == samples[j].x
                                  : samples[i].x == samples[j].x && samples[i].y == samples[j].y;
      if (same) {
        return make_error("blend space '" + name + "'", "samples " + std::to_string(j) + " and " +
                                                            std::to_string(i) +
                                                            " sit at the same point");
      }
    }
  }
  return {};
}

}  // namespace

Result<BlendSpace> BlendSpace::make_1d(std::string name, std::vector<BlendSample> samples) {
  for (BlendSample& s : samples) s.y = 0;
  if (Status s = check_samples(name, samples, 1); !s) return s.error();
  BlendSpace space;
  space.name_ = std::move(name);
  space.dimensions_ = 1;
  space.samples_ = std::move(samples);
  space.order_.resize(space.samples_.size());
  for (std::uint32_t i = 0; i < space.order_.size(); ++i) space.order_[i] = i;
  std::sort(space.order_.begin(), space.order_.end(), [&](std::uint32_t a, std::uint32_t b) {
    return space.samples_[a].x < space.samples_[b].x;
  });
  return space;
}

Result<BlendSpace> BlendSpace::make_2d(std::string name, std::vector<BlendSample> samples) {
  if (Status s = check_samples(name, samples, 2); !s) return s.error();
  // Bowyer-Watson: insert the points one by one into a triangle that holds them all, removing the
  // triangles whose circumcircle holds the new point and fanning the hole from it.
  const std::size_t n = samples.size();
  std::vector<P2> p(n + 3);
  double min_x = samples[0].x, max_x = min_x, min_y = samples[0].y, max_y = min_y;
  for (std::size_t i = 0; i < n; ++i) {
    p[i] = {samples[i].x, samples[i].y};
    min_x = std::min(min_x, p[i].x), max_x = std::max(max_x, p[i].x);
    min_y = std::min(min_y, p[i].y), max_y = std::max(max_y, p[i].y);
  }
  const double size = std::max({max_x - min_x, max_y - min_y, 1e-30});
  const double cx = (min_x + max_x) / 2, cy = (min_y + max_y) / 2;
  p[n] = {cx - 40 * size, cy - 30 * size};
  p[n + 1] = {cx + 40 * size, cy - 30 * size};
  p[n + 2] = {cx, cy + 40 * size};
  using Tri = std::array<std::uint32_t, 3>;
  std::vector<Tri> tris{{static_cast<std::uint32_t>(n), static_cast<std::uint32_t>(n + 1),
                         static_cast<std::uint32_t>(n + 2)}};
  for (std::uint32_t i = 0; i < n; ++i) {
    std::vector<std::array<std::uint32_t, 2>> edges;
    std::vector<Tri> kept;
    for (const Tri& t : tris) {
      if (in_circumcircle(p[t[0]], p[t[1]], p[t[2]], p[i])) {
        for (int e = 0; e < 3; ++e) edges.push_back({t[e], t[(e + 1) % 3]});
      } else {
        kept.push_back(t);
      }
    }
    // The hole's boundary: edges that only one removed triangle had.
    for (const auto& e : edges) {
      const auto shared = std::count_if(edges.begin(), edges.end(), [&](const auto& f) {
        return (f[0] == e[0] && f[1] == e[1]) || (f[0] == e[1] && f[1] == e[0]);
      });
      if (shared == 1) kept.push_back({e[0], e[1], i});
    }
    tris = std::move(kept);
  }
  BlendSpace space;
  space.name_ = std::move(name);
  space.dimensions_ = 2;
  for (const Tri& t : tris) {
    if (t[0] >= n || t[1] >= n || t[2] >= n) continue;
    // Drop slivers left by (nearly) collinear points: they carry no area to interpolate over.
    if (!(orient(p[t[0]], p[t[1]], p[t[2]]) > 1e-12 * size * size)) continue;
    space.triangles_.insert(space.triangles_.end(), t.begin(), t.end());
  }
  if (space.triangles_.empty()) {
    return make_error("blend space '" + space.name_ + "'",
                      "its points all lie on one line; a 2D space needs an area");
  }
  // The hull: edges of exactly one triangle.
  const std::size_t tri_count = space.triangles_.size() / 3;
  for (std::size_t t = 0; t < tri_count; ++t) {
    for (int e = 0; e < 3; ++e) {
      const std::uint32_t a = space.triangles_[t * 3 + e],
                          b = space.triangles_[t * 3 + (e + 1) % 3];
      bool shared = false;
      for (std::size_t u = 0; u < tri_count && !shared; ++u) {
        if (u == t) continue;
        for (int f = 0; f < 3; ++f) {
          const std::uint32_t c = space.triangles_[u * 3 + f],
                              d = space.triangles_[u * 3 + (f + 1) % 3];
          if (c == b && d == a) shared = true;
        }
      }
      if (!shared) space.hull_.insert(space.hull_.end(), {a, b});
    }
  }
  space.samples_ = std::move(samples);
  return space;
}

BlendSpace::Point BlendSpace::weights(float x, float y, std::span<float> weights) const {
  const std::size_t n = samples_.size();
  if (weights.size() < n || n == 0) return {};
  std::fill(weights.begin(), weights.begin() + static_cast<std::ptrdiff_t>(n), 0.0f);
  if (!std::isfinite(x)) x = 0;
  if (!std::isfinite(y)) y = 0;
  if (dimensions_ == 1) {
    const BlendSample& first = samples_[order_.front()];
    const BlendSample& last = samples_[order_.back()];
    if (x <= first.x) {
      weights[order_.front()] = 1;
      return {first.x, 0};
    }
    if (x >= last.x) {
      weights[order_.back()] = 1;
      return {last.x, 0};
    }
    for (std::size_t k = 0; k + 1 < order_.size(); ++k) {
      const float a = samples_[order_[k]].x, b = samples_[order_[k + 1]].x;
      if (x <= b) {
        const float u = (x - a) / (b - a);
        weights[order_[k]] = 1 - u;
        weights[order_[k + 1]] += u;
        return {x, 0};
      }
    }
    weights[order_.back()] = 1;
    return {last.x, 0};
  }
  // 2D: the triangle holding the point, by barycentric coordinates (a small tolerance takes
  // points on an edge shared by two triangles).
  const double px = x, py = y;
  for (std::size_t t = 0; t + 2 < triangles_.size(); t += 3) {
    const BlendSample& a = samples_[triangles_[t]];
    const BlendSample& b = samples_[triangles_[t + 1]];
    const BlendSample& c = samples_[triangles_[t + 2]];
    const double area = orient({a.x, a.y}, {b.x, b.y}, {c.x, c.y});
    const double la = orient({px, py}, {b.x, b.y}, {c.x, c.y}) / area;
    const double lb = orient({a.x, a.y}, {px, py}, {c.x, c.y}) / area;
    const double lc = 1 - la - lb;
    const double eps = -1e-7;
    if (la >= eps && lb >= eps && lc >= eps) {
      const double wa = std::max(la, 0.0), wb = std::max(lb, 0.0), wc = std::max(lc, 0.0);
      const double sum = wa + wb + wc;
      weights[triangles_[t]] = static_cast<float>(wa / sum);
      weights[triangles_[t + 1]] = static_cast<float>(wb / sum);
      weights[triangles_[t + 2]] = static_cast<float>(wc / sum);
      return {x, y};
    }
  }
  // Outside the hull: the nearest point of its boundary.
  double best = INFINITY, best_u = 0;
  std::uint32_t best_a = 0, best_b = 0;
  for (std::size_t e = 0; e + 1 < hull_.size(); e += 2) {
    const BlendSample& a = samples_[hull_[e]];
    const BlendSample& b = samples_[hull_[e + 1]];
    const double dx = b.x - a.x, dy = b.y - a.y;
    const double len2 = dx * dx + dy * dy;
    double u = len2 > 0 ? ((px - a.x) * dx + (py - a.y) * dy) / len2 : 0;
    u = std::clamp(u, 0.0, 1.0);
    const double qx = a.x + u * dx - px, qy = a.y + u * dy - py;
    const double d2 = qx * qx + qy * qy;
    if (d2 < best) best = d2, best_u = u, best_a = hull_[e], best_b = hull_[e + 1];
  }
  weights[best_a] = static_cast<float>(1 - best_u);
  weights[best_b] += static_cast<float>(best_u);
  const BlendSample& a = samples_[best_a];
  const BlendSample& b = samples_[best_b];
  return {static_cast<float>(a.x + best_u * (b.x - a.x)),
          static_cast<float>(a.y + best_u * (b.y - a.y))};
}

}  // namespace marrow
