#include "collada/collada_bake.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "marrow/clip/clip_builder.h"

namespace marrow::collada {
namespace {

struct Key {
  double time;
  Transform value;
};

// Angle of the rotation taking `a` to `b`, precise near zero.
double angle_between_rotations(Quat a, Quat b) {
  const Quat d = conjugate(a) * b;
  const double v = std::sqrt(double(d.x) * d.x + double(d.y) * d.y + double(d.z) * d.z);
  return 2 * std::atan2(v, std::fabs(double(d.w)));
}

Transform interpolate(const Transform& a, const Transform& b, float s) {
  return {lerp(a.translation, b.translation, s), slerp(a.rotation, b.rotation, s),
          lerp(a.scale, b.scale, s)};
}

class NodeBaker {
 public:
  NodeBaker(BakeInput& in, std::size_t clip, std::size_t node, double start)
      : in_(in), clip_(clip), node_(node), start_(start) {}

  std::size_t pieces(double a, double b) const;

  // The exact local transform as TRS (shear, which TRS cannot hold, is measured apart).
  Transform exact(double t, bool left) const {
    return decompose(in_.model->local(clip_, node_, t, left).to_mat4()).transform;
  }

  // Errors of `l` against the exact `e`, each divided by its tolerance: <= 1 is within.
  double error(const Transform& e, const Transform& l) const {
    const ColladaBakeTolerance& tol = in_.tolerance;
    const double dt = length(e.translation - l.translation) / tol.translation;
    const double dr = angle_between_rotations(e.rotation, l.rotation) / tol.rotation;
    const double smax =
        std::max({1.0f, std::fabs(e.scale.x), std::fabs(e.scale.y), std::fabs(e.scale.z)});
    const Vec3 ds = e.scale - l.scale;
    const double dsr =
        std::max({std::fabs(ds.x), std::fabs(ds.y), std::fabs(ds.z)}) / (tol.scale * smax);
    return std::max({dt, dr, dsr});
  }

  bool distinct_float_times(double a, double b) const {
    return static_cast<float>(a - start_) < static_cast<float>(b - start_);
  }

  // Keys for (a, b]: `b_value` is the exact value approaching b from the left.
  void refine(double a, const Transform& av, double b, const Transform& bv, int depth,
              std::vector<Key>& out) {
    double worst = 0;
    for (const double f : {0.25, 0.5, 0.75}) {
      const Transform e = exact(a + f * (b - a), false);
      worst = std::max(worst, error(e, interpolate(av, bv, static_cast<float>(f))));
      if (worst > 1) break;
    }
    const double m = 0.5 * (a + b);
    const bool can_split = depth < kMaxBakeDepth && in_.key_budget > 0 &&
                           distinct_float_times(a, m) && distinct_float_times(m, b);
    if (worst <= 1 || !can_split) {
      if (worst > 1) accepted_error = std::max(accepted_error, worst);
      out.push_back({b, bv});
      return;
    }
    --in_.key_budget;
    const Transform mv = exact(m, false);
    refine(a, av, m, mv, depth + 1, out);
    refine(m, mv, b, bv, depth + 1, out);
  }

  std::vector<Key> bake(const std::vector<double>& breaks, bool step) {
    std::vector<Key> out;
    out.push_back({breaks[0], exact(breaks[0], false)});
    for (std::size_t i = 1; i < breaks.size(); ++i) {
      const double a = breaks[i - 1], b = breaks[i];
      const Transform right = exact(b, false);
      if (step) {
        out.push_back({b, right});
        continue;
      }
      const Transform left = exact(b, true);
      // Cut first where rotate angles sweep far (see angle_pieces), then refine each piece.
      std::size_t n = std::min(pieces(a, b), in_.key_budget + 1);  // pieces are keys too
      in_.key_budget -= n - 1;
      for (std::size_t p = 1; p < n; ++p) {
        const double m = a + (b - a) * static_cast<double>(p) / static_cast<double>(n);
        const double from = out.back().time;
        if (!distinct_float_times(from, m) || !distinct_float_times(m, b)) continue;
        refine(from, out.back().value, m, exact(m, false), 0, out);
      }
      refine(out.back().time, out.back().value, b, left, 0, out);
      // A jump at b (a STEP key, a repeated time): the left value goes one float before b.
      if (error(right, left) > 1 && out.size() >= 2) {
        const auto tb = static_cast<float>(b - start_);
        const float before = std::nextafter(tb, -INFINITY);
        if (before > static_cast<float>(out[out.size() - 2].time - start_)) {
          out.back().time = start_ + before;
          out.push_back({b, right});
          continue;
        }
      }
      out.back().value = right;
    }
    return out;
  }

  double accepted_error = 0;

 private:
  BakeInput& in_;
  std::size_t clip_, node_;
  double start_;
};

// The same for one morph weight.
class WeightBaker {
 public:
  WeightBaker(BakeInput& in, std::size_t clip, std::size_t node, std::size_t target, double start)
      : in_(in), clip_(clip), node_(node), target_(target), start_(start) {}

  double exact(double t, bool left) const {
    return in_.model->weight(clip_, node_, target_, t, 0.0f, left);
  }
  bool distinct(double a, double b) const {
    return static_cast<float>(a - start_) < static_cast<float>(b - start_);
  }
  void refine(double a, double av, double b, double bv, int depth,
              std::vector<std::pair<double, double>>& out) {
    double worst = 0;
    for (const double f : {0.25, 0.5, 0.75})
      worst = std::max(worst, std::fabs(exact(a + f * (b - a), false) - (av + f * (bv - av))));
    worst /= in_.tolerance.weight;
    const double m = 0.5 * (a + b);
    if (worst <= 1 || depth >= kMaxBakeDepth || in_.key_budget == 0 || !distinct(a, m) ||
        !distinct(m, b)) {
      if (worst > 1) accepted_error = std::max(accepted_error, worst);
      out.emplace_back(b, bv);
      return;
    }
    --in_.key_budget;
    const double mv = exact(m, false);
    refine(a, av, m, mv, depth + 1, out);
    refine(m, mv, b, bv, depth + 1, out);
  }
  std::vector<std::pair<double, double>> bake(const std::vector<double>& breaks, bool step) {
    std::vector<std::pair<double, double>> out{{breaks[0], exact(breaks[0], false)}};
    for (std::size_t i = 1; i < breaks.size(); ++i) {
      const double a = breaks[i - 1], b = breaks[i], right = exact(b, false);
      if (step) {
        out.emplace_back(b, right);
        continue;
      }
      const double left = exact(b, true);
      refine(a, out.back().second, b, left, 0, out);
      if (std::fabs(right - left) > in_.tolerance.weight && out.size() >= 2) {
        const float before = std::nextafter(static_cast<float>(b - start_), -INFINITY);
        if (before > static_cast<float>(out[out.size() - 2].first - start_)) {
          out.back().first = start_ + before;
          out.emplace_back(b, right);
          continue;
        }
      }
      out.back().second = right;
    }
    return out;
  }
  double accepted_error = 0;

 private:
  BakeInput& in_;
  std::size_t clip_, node_, target_;
  double start_;
};

// Breakpoints: the clip's start and end and every key time of `curves` strictly between, one
// per distinct float clip time (the clip stores float times from `start`).
std::vector<double> breakpoints(const AnimationModel& model, const std::set<std::size_t>& curves,
                                double start, double end) {
  std::vector<double> out{start};
  for (std::size_t c : curves) {
    for (float t : model.curves()[c].times)
      if (t > start && t < end) out.push_back(t);
  }
  out.push_back(end);
  std::sort(out.begin(), out.end());
  std::vector<double> unique{start};
  for (double t : out) {
    if (static_cast<float>(t - start) > static_cast<float>(unique.back() - start))
      unique.push_back(t);
  }
  return unique;
}

// How many equal pieces [a, b] is cut into before refining: enough that no rotate angle of
// the node turns more than 45 degrees in one piece (bounded through the curve's control
// values), so that whole turns between keys cannot hide between the check points.
std::size_t angle_pieces(const AnimationModel& model, std::size_t clip, std::size_t node, double a,
                         double b) {
  double most = 0;
  const SceneNode& n = model.scene().nodes[node];
  for (const auto& [c, bi] : model.bindings(clip, node)) {
    const Binding& bnd = model.channels()[c].bindings[bi];
    if (bnd.weight || n.stack[bnd.element].kind != ElementKind::kRotate) continue;
    if (bnd.first > 3 || bnd.first + bnd.count <= 3) continue;  // the angle is not animated
    const Curve& curve = model.curves()[model.channels()[c].curve];
    const std::size_t comp = 3 - bnd.first;
    float lo = INFINITY, hi = -INFINITY;
    float v[16];
    for (double t : {a, b}) {
      curve.evaluate(t, false, v);
      lo = std::min(lo, v[comp]), hi = std::max(hi, v[comp]);
    }
    for (std::size_t k = 0; k < curve.times.size(); ++k) {
      if (curve.times[k] < a || curve.times[k] > b) continue;
      const float value = curve.values[k * curve.dim + comp];
      lo = std::min(lo, value), hi = std::max(hi, value);
      if (curve.tangent_dim > 0) {
        for (const auto* tangents : {&curve.in_tangents, &curve.out_tangents}) {
          const float y =
              (*tangents)[(k * curve.dim + comp) * curve.tangent_dim + (curve.tangent_dim - 1)];
          // Bezier controls bound the curve; Hermite tangents move it by a third of themselves.
          const float reach =
              curve.interpolation[k] == CurveInterpolation::kHermite ? value + std::fabs(y) / 3 : y;
          lo = std::min(lo, std::min(reach, value - std::fabs(y) / 3));
          hi = std::max(hi, reach);
        }
      }
    }
    most = std::max<double>(most, hi - lo);
  }
  return std::clamp<std::size_t>(static_cast<std::size_t>(std::ceil(most / 45.0)), 1, 4096);
}

std::size_t NodeBaker::pieces(double a, double b) const {
  return angle_pieces(*in_.model, clip_, node_, a, b);
}

}  // namespace

Clip bake_clip(BakeInput& in, std::size_t clip, std::vector<std::string>& warnings) {
  const AnimationModel& model = *in.model;
  const ClipRange& range = model.clips()[clip];
  const double start = range.start, end = range.end;
  ClipBuilder builder(range.name);
  builder.set_duration(static_cast<float>(end - start));
  builder.set_weight_count(in.morphs->weight_count());
  // The nodes and morph weights the clip animates, with their curves.
  std::map<std::size_t, std::set<std::size_t>> node_curves;
  std::map<std::pair<std::size_t, std::size_t>, std::set<std::size_t>> weight_curves;
  for (std::size_t c : range.channels) {
    for (const Binding& b : model.channels()[c].bindings) {
      if (b.weight) {
        for (std::size_t t = b.first; t < b.first + b.count; ++t)
          weight_curves[{b.node, t}].insert(model.channels()[c].curve);
      } else {
        node_curves[b.node].insert(model.channels()[c].curve);
      }
    }
  }
  const std::string where = in.file + ": clip '" + range.name + "'";
  double accepted = 0;
  std::vector<float> times, tv, rv, sv;
  for (const auto& [node, curves] : node_curves) {
    const bool step = std::all_of(curves.begin(), curves.end(),
                                  [&](std::size_t c) { return model.curves()[c].all_step; });
    NodeBaker baker(in, clip, node, start);
    const std::vector<Key> keys = baker.bake(breakpoints(model, curves, start, end), step);
    accepted = std::max(accepted, baker.accepted_error);
    times.clear(), tv.clear(), rv.clear(), sv.clear();
    Quat previous = keys.front().value.rotation;
    for (const Key& k : keys) {
      times.push_back(static_cast<float>(k.time - start));
      const Transform& x = k.value;
      Quat q = x.rotation;
      if (dot(q, previous) < 0) q = negate(q);  // the same hemisphere as the key before
      previous = q;
      tv.insert(tv.end(), {x.translation.x, x.translation.y, x.translation.z});
      rv.insert(rv.end(), {q.x, q.y, q.z, q.w});
      sv.insert(sv.end(), {x.scale.x, x.scale.y, x.scale.z});
    }
    const JointIndex joint = (*in.joint_of_node)[node];
    const std::string& name = in.skeleton->name(joint);
    const Interpolation interp = step ? Interpolation::kStep : Interpolation::kLinear;
    const Transform& rest = in.skeleton->rest_pose()[joint];
    // A channel that never leaves its rest value needs no track.
    auto constant = [](const std::vector<float>& v, std::size_t n, const float* r) {
      for (std::size_t i = 0; i < v.size(); ++i)
        if (v[i] != r[i % n]) return false;
      return true;
    };
    const float rt[3] = {rest.translation.x, rest.translation.y, rest.translation.z};
    const float rs[3] = {rest.scale.x, rest.scale.y, rest.scale.z};
    for (const auto& [target, values, same] :
         {std::tuple{TrackTarget::kTranslation, &tv, constant(tv, 3, rt)},
          std::tuple{TrackTarget::kRotation, &rv, false},
          std::tuple{TrackTarget::kScale, &sv, constant(sv, 3, rs)}}) {
      if (same) continue;
      const Status st = builder.add_track(joint, name, target, interp, times, *values, where);
      if (!st) throw ColladaError(st.error().message);
    }
  }
  for (const auto& [key, curves] : weight_curves) {
    const auto [node, target] = key;
    const JointIndex joint = (*in.joint_of_node)[node];
    const MorphSlots* slots = in.morphs->find(joint);
    if (!slots || target >= slots->count) continue;
    const bool step = std::all_of(curves.begin(), curves.end(),
                                  [&](std::size_t c) { return model.curves()[c].all_step; });
    WeightBaker baker(in, clip, node, target, start);
    const auto keys = baker.bake(breakpoints(model, curves, start, end), step);
    accepted = std::max(accepted, baker.accepted_error);
    times.clear(), tv.clear();
    for (const auto& [t, v] : keys) {
      times.push_back(static_cast<float>(t - start));
      tv.push_back(static_cast<float>(v));
    }
    const Status st = builder.add_weight_track(
        joint, in.skeleton->name(joint), slots->first + static_cast<std::uint32_t>(target), 1,
        step ? Interpolation::kStep : Interpolation::kLinear, times, tv,
        where + " morph weight " + std::to_string(target));
    if (!st) throw ColladaError(st.error().message);
  }
  if (accepted > 1)
    warnings.push_back(where + ": the bake reached its key limit; the largest error is " +
                       std::to_string(accepted) + " x the tolerance");
  Result<Clip> built = builder.build(in.skeleton->size(), where);
  if (!built) throw ColladaError(built.error().message);
  return std::move(built).value();
}

}  // namespace marrow::collada
