// The clip compiler: exact Clip -> CompiledClip under one model-space error bound
// (compiled_clip.h). The steps, run for several per-joint shares of the bound (the smallest clip
// whose measured error is within the bound wins; when none is, smaller shares are tried until one
// is):
//  1. every joint channel gets a tolerance in its own units (distance, angle, scale) from its
//     share of the bound and the rest pose's geometry (how far the joint's subtree reaches);
//  2. channels that stay within it of one value are folded (to the rest pose or a constant);
//  3. STEP channels are kept as exact keys; the others are sampled uniformly at the clip's key
//     rate (or 2, 4, 8 times it where nlerp/lerp between frames would leave the tolerance), and
//     the few that no rate fits are kept as exact keys too;
//  4. each group of 8 joints' channel takes the smallest of 8-bit, 16-bit or float keys that
//     keeps all its joints within their tolerance, or, when smaller, each joint the fewest bits
//     that keep it within its own (kPacked; rotations then stored without w);
//  5. the result is sampled by the runtime's own sampler and measured against the exact clip in
//     model space (virtual vertices), at every frame, between frames and at every key time.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <unordered_map>

#include "clip/compiled/layout.h"
#include "clip/compiled/sample_dispatch.h"
#include "marrow/clip/compiled_clip.h"
#include "marrow/clip/compiled_sampling.h"
#include "marrow/clip/sampling.h"

namespace marrow {
namespace {

using Data = CompiledClipData;
using compiled_detail::components;
using compiled_detail::element_bytes;

// Key grids finer than this are not followed: such tracks are sampled at 60 Hz or kept exact.
constexpr double kMaxGridRate = 240.0;
constexpr double kFallbackRate = 60.0;
// Where between two keys or frames errors are checked: nlerp strays furthest from slerp near
// 1/2 -+ 1/(2 sqrt 3) of the interval (it agrees with slerp at the middle), a cubic's error is
// largest near the middle.
constexpr float kInterior[] = {0.2113249f, 0.5f, 0.7886751f};
// compile() keeps this fraction of the bound for what its measurement cannot see (times between
// the ones it measures).
constexpr float kSafety = 0.9f;
// The share search's attempts are measured at fewer points (Detail::kSearch), which can miss a
// little of the largest error: they aim this much further inside the target.
constexpr float kSearchMargin = 0.99f;
// The search for the share of the bound each joint channel gets (compile()): where it starts,
// how many clips it measures, when it stops narrowing, and how far it halves before it keeps
// every moving channel as exact keys.
constexpr float kFirstShare = 1.0f;
constexpr float kLargestShare = 4.0f;
constexpr int kShareMeasurements = 6;
constexpr float kShareResolution = 1.04f;
constexpr int kMaxHalvings = 10;

// --- Geometry of the rest pose (model space) ---------------------------------------------------

Mat4 to_model(const Mat4& parent, const Transform& local, bool root) {
  return root ? to_matrix(local) : mul_affine(parent, to_matrix(local));
}

void local_to_model(const Skeleton& s, std::span<const Transform> local, std::vector<Mat4>& model) {
  model.resize(s.size());
  for (std::size_t j = 0; j < s.size(); ++j) {
    const JointIndex p = s.parent(j);
    model[j] = to_model(p == kNoParent ? Mat4::identity() : model[p], local[j], p == kNoParent);
  }
}

float column_norm(const Mat4& m, int c) {
  return length(m.column(c));
}

struct Geometry {
  float extent = 1;
  std::vector<float> lever;             // reach of the joint's subtree, model units
  std::vector<float> parent_scale;      // largest column norm of the parent's model 3x3
  std::vector<float> parent_condition;  // largest / smallest column norm of the parent's 3x3
  std::vector<float> own_scale;         // smallest |component| of the joint's rest scale
  std::vector<float> local_distance;    // `distance` in the joint's local units
};

Geometry measure_geometry(const Skeleton& skeleton, float distance_relative, bool absolute,
                          float distance_absolute) {
  const std::size_t n = skeleton.size();
  std::vector<Mat4> model;
  local_to_model(skeleton, skeleton.rest_pose(), model);
  Geometry g;
  Vec3 lo = model[0].translation(), hi = lo;
  for (const Mat4& m : model) {
    const Vec3 p = m.translation();
    lo = {std::min(lo.x, p.x), std::min(lo.y, p.y), std::min(lo.z, p.z)};
    hi = {std::max(hi.x, p.x), std::max(hi.y, p.y), std::max(hi.z, p.z)};
  }
  const float extent = std::max({hi.x - lo.x, hi.y - lo.y, hi.z - lo.z});
  g.extent = std::isfinite(extent) && extent > 0 ? extent : 1.0f;
  const float distance = absolute ? distance_absolute : distance_relative * g.extent;
  g.lever.assign(n, 0);
  g.parent_scale.assign(n, 1);
  g.parent_condition.assign(n, 1);
  g.own_scale.assign(n, 1);
  g.local_distance.assign(n, distance);
  // Children come after parents: walk backwards so each joint's reach is complete before its
  // parent takes it.
  for (std::size_t j = n; j-- > 0;) {
    const float s =
        std::max({column_norm(model[j], 0), column_norm(model[j], 1), column_norm(model[j], 2)});
    g.lever[j] = std::max(g.lever[j], distance);
    g.local_distance[j] = s > 1e-20f ? distance / s : distance;
    const JointIndex p = skeleton.parent(j);
    if (p != kNoParent) {
      const float reach = length(model[j].translation() - model[p].translation()) + g.lever[j];
      g.lever[p] = std::max(g.lever[p], reach);
      float smax = 0, smin = 3e38f;
      for (int c = 0; c < 3; ++c) {
        smax = std::max(smax, column_norm(model[p], c));
        smin = std::min(smin, column_norm(model[p], c));
      }
      g.parent_scale[j] = smax > 0 ? smax : 1;
      g.parent_condition[j] = smin > 1e-20f ? std::min(smax / smin, 1e6f) : 1e6f;
    }
    const Vec3 rs = skeleton.rest_pose()[j].scale;
    const float own = std::min({std::fabs(rs.x), std::fabs(rs.y), std::fabs(rs.z)});
    g.own_scale[j] = own > 1e-20f ? own : 1e-20f;
  }
  return g;
}

// --- One joint channel ------------------------------------------------------------------------

// |a - b|^2 and |a + b|^2 for unit quaternions, b turned into a's hemisphere: the angle between
// them is 4 atan2(|a - b|, |a + b|), precise near 0.
void quarter_angle_terms(const float* a, const float* b, float& diff, float& sum) {
  const float d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
  const float s = d < 0 ? -1.0f : 1.0f;
  diff = 0, sum = 0;
  for (int k = 0; k < 4; ++k) {
    diff += (a[k] - s * b[k]) * (a[k] - s * b[k]);
    sum += (a[k] + s * b[k]) * (a[k] + s * b[k]);
  }
}

float angle_between_units(const float* a, const float* b) {
  float diff, sum;
  quarter_angle_terms(a, b, diff, sum);
  return 4.0f * std::atan2(std::sqrt(diff), std::sqrt(sum));
}

// The distance between two values of a channel in the units its tolerance uses.
float channel_distance(Data::Channel c, const float* a, const float* b) {
  switch (c) {
    case Data::Channel::kTranslation:
      return std::sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                       (a[2] - b[2]) * (a[2] - b[2]));
    case Data::Channel::kRotation:
      return angle_between_units(a, b);
    case Data::Channel::kScale:
      break;
  }
  return std::max({std::fabs(a[0] - b[0]), std::fabs(a[1] - b[1]), std::fabs(a[2] - b[2])});
}

// A quantity that grows with channel_distance, cheaper to take (no root or arc tangent): the
// largest of many distances is found by it and converted once, by distance_of_proxy.
float channel_distance_proxy(Data::Channel c, const float* a, const float* b) {
  switch (c) {
    case Data::Channel::kTranslation:
      return (a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
             (a[2] - b[2]) * (a[2] - b[2]);
    case Data::Channel::kRotation: {
      float diff, sum;  // their ratio is tan^2 of a quarter of the angle
      quarter_angle_terms(a, b, diff, sum);
      return diff / sum;
    }
    case Data::Channel::kScale:
      break;
  }
  return std::max({std::fabs(a[0] - b[0]), std::fabs(a[1] - b[1]), std::fabs(a[2] - b[2])});
}

float distance_of_proxy(Data::Channel c, float proxy) {
  switch (c) {
    case Data::Channel::kTranslation:
      return std::sqrt(proxy);
    case Data::Channel::kRotation:
      return 4.0f * std::atan(std::sqrt(proxy));
    case Data::Channel::kScale:
      break;
  }
  return proxy;
}

// Interpolates two frame values as the runtime does: lerp, or for rotations nlerp at the
// fraction TrackGroup::slerp_timing gives (the compiler sets it on every rotation group).
void interpolate(Data::Channel c, const float* a, const float* b, float alpha, float* out) {
  const int n = components(c);
  if (c == Data::Channel::kRotation) {
    const float gap = 1.0f - (a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]);
    const float k =
        gap * (compiled_detail::kSlerpTimingLinear + compiled_detail::kSlerpTimingQuadratic * gap);
    alpha += k * alpha * (alpha - 0.5f) * (alpha - 1.0f);
  }
  for (int k = 0; k < n; ++k) out[k] = a[k] + (b[k] - a[k]) * alpha;
  if (c == Data::Channel::kRotation) {
    const float n2 = out[0] * out[0] + out[1] * out[1] + out[2] * out[2] + out[3] * out[3];
    const float inv = 1.0f / std::sqrt(n2);
    for (int k = 0; k < 4; ++k) out[k] *= inv;
  }
}

enum class LaneKind { kRest, kConstant, kUniform, kKeyed };

struct Lane {
  JointIndex joint = 0;
  Data::Channel channel = Data::Channel::kTranslation;
  int track = -1;  // index into clip.tracks(); -1: the clip does not animate this channel
  LaneKind kind = LaneKind::kRest;
  std::array<float, 4> value{};  // rest or constant value
  float tolerance = 0;
  std::vector<float> frames;  // (frame count) x components, for uniform lanes
};

// The exact value of `lane` at `t` (the clip's track, or its constant value).
void exact_value(const Clip& clip, const Lane& lane, float t, float* out) {
  if (lane.track < 0) {
    std::copy_n(lane.value.data(), components(lane.channel), out);
    return;
  }
  const Track& track = clip.tracks()[static_cast<std::size_t>(lane.track)];
  const std::span<const float> times = clip.times().subspan(track.first_key, track.key_count);
  const auto it = std::upper_bound(times.begin(), times.end(), t);
  const auto k = it == times.begin() ? 0u : static_cast<std::uint32_t>(it - times.begin() - 1);
  evaluate_track(clip, track, t, k, out);
}

std::array<float, 4> rest_value(const Transform& rest, Data::Channel c) {
  switch (c) {
    case Data::Channel::kTranslation:
      return {rest.translation.x, rest.translation.y, rest.translation.z, 0};
    case Data::Channel::kRotation:
      return {rest.rotation.x, rest.rotation.y, rest.rotation.z, rest.rotation.w};
    case Data::Channel::kScale:
      break;
  }
  return {rest.scale.x, rest.scale.y, rest.scale.z, 0};
}

std::vector<float> analysis_times(const Clip& clip, const Track& track, float duration) {
  const std::span<const float> times = clip.times().subspan(track.first_key, track.key_count);
  std::vector<float> out{0.0f, duration};
  for (std::size_t k = 0; k < times.size(); ++k) {
    out.push_back(times[k]);
    if (k + 1 < times.size()) {
      for (float f : kInterior) out.push_back(times[k] + (times[k + 1] - times[k]) * f);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// Frame times of one stream: n + 1 times from 0 to the duration.
using FrameTimes = std::vector<float>;

// Samples the exact channel at the frame times, rotations kept in one hemisphere frame to frame.
std::vector<float> sample_frames(const Clip& clip, const Lane& lane, const FrameTimes& times) {
  const int c = components(lane.channel);
  std::vector<float> frames(times.size() * c);
  for (std::size_t f = 0; f < times.size(); ++f) {
    float* v = frames.data() + f * c;
    exact_value(clip, lane, times[f], v);
    if (lane.channel == Data::Channel::kRotation && f > 0) {
      const float* p = v - 4;
      if (p[0] * v[0] + p[1] * v[1] + p[2] * v[2] + p[3] * v[3] < 0) {
        for (int k = 0; k < 4; ++k) v[k] = -v[k];
      }
    }
  }
  return frames;
}

// The frame at or before t and where t lies towards the next one, as the sampler finds them.
std::size_t frame_at(const FrameTimes& times, float t, float& alpha) {
  const auto it = std::upper_bound(times.begin(), times.end(), t);
  std::size_t f = it == times.begin() ? 0 : static_cast<std::size_t>(it - times.begin() - 1);
  f = std::min(f, times.size() - 2);
  alpha = std::clamp((t - times[f]) / (times[f + 1] - times[f]), 0.0f, 1.0f);
  return f;
}

// The frame times of the base stream: the keys' own times where the clip's keys lie on a common
// grid (not finer than kMaxGridRate), else kFallbackRate frames. Empty for a clip of no duration.
FrameTimes base_frame_times(const Clip& clip) {
  const float duration = clip.duration();
  if (!(duration > 0)) return {};
  std::vector<float> keys;
  for (const Track& t : clip.tracks()) {
    if (t.interpolation == Interpolation::kStep || t.key_count < 2) continue;
    const auto ts = clip.times().subspan(t.first_key, t.key_count);
    keys.insert(keys.end(), ts.begin(), ts.end());
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  const auto uniform = [&](std::size_t n) {
    FrameTimes times(n + 1);
    for (std::size_t f = 0; f <= n; ++f) {
      times[f] = f == n ? duration : static_cast<float>(static_cast<double>(duration) * f / n);
    }
    return times;
  };
  const std::size_t fallback =
      std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(duration * kFallbackRate)));
  if (keys.size() < 2) return uniform(fallback);
  // The grid step is the smallest gap averaged over the whole span (float rounding of key times,
  // ~2e-6 at 30 s, skews single gaps); the interval count may round either way, so the nearest
  // counts are tried, fewest first.
  double gap = 1e30;
  for (std::size_t i = 1; i < keys.size(); ++i) gap = std::min<double>(gap, keys[i] - keys[i - 1]);
  const double span = static_cast<double>(keys.back()) - keys.front();
  const long long guess = std::llround(span / gap);
  double rate = 0;
  for (long long count = std::max(1LL, guess - 1); count <= guess + 1 && rate == 0; ++count) {
    const double r = count / span;
    const auto on = [&](double t) { return std::fabs(t * r - std::round(t * r)) < 1e-2; };
    if (r <= kMaxGridRate && on(duration) && std::all_of(keys.begin(), keys.end(), on)) rate = r;
  }
  if (rate == 0) return uniform(fallback);
  const auto grid_index = [&](double t) { return t * rate; };
  const std::size_t n = std::max<std::size_t>(1, std::llround(duration * rate));
  FrameTimes times = uniform(n);
  // Frames that fall on a key take the key's own time, so the key comes out exactly.
  for (float k : keys) {
    const long long f = std::llround(grid_index(k));
    if (f > 0 && static_cast<std::size_t>(f) < n) times[static_cast<std::size_t>(f)] = k;
  }
  for (std::size_t f = 1; f < times.size(); ++f) {
    if (!(times[f] > times[f - 1])) return uniform(fallback);
  }
  return times;
}

// The rates a segment's channel may take, as multiples of the key rate.
constexpr int kRateCount = 6;
constexpr int kKeyRate = 2;  // index of 1x
// Frame times of rate r over base frames [b0, b1]: every 4th or 2nd base frame (the last interval
// may be shorter), every one, or 2, 4 or 8 frames per base interval.
FrameTimes rate_times(const FrameTimes& base, std::size_t b0, std::size_t b1, int r) {
  FrameTimes times;
  if (r < kKeyRate) {
    const std::size_t step = r == 0 ? 4 : 2;
    for (std::size_t f = b0; f < b1; f += step) times.push_back(base[f]);
    times.push_back(base[b1]);
    return times;
  }
  const int m = 1 << (r - kKeyRate);
  for (std::size_t f = b0; f < b1; ++f) {
    for (int i = 0; i < m; ++i) {
      times.push_back(
          static_cast<float>(base[f] + (static_cast<double>(base[f + 1]) - base[f]) * i / m));
    }
  }
  times.push_back(base[b1]);
  return times;
}

// Frames per second of rate r, from the key rate.
double rate_of(double key_rate, int r) {
  return r < kKeyRate ? key_rate / (r == 0 ? 4 : 2) : key_rate * (1 << (r - kKeyRate));
}

// Base intervals per segment: a multiple of 4, so that quarter rates fit every full segment.
constexpr std::size_t kSegmentFrames = 64;

// --- The exact channels, sampled once per compile ----------------------------------------------

// A lane's exact channel at one rate in one segment: the frame times, the frames there, and the
// values at kInterior points of every frame interval.
// Whether frames stay within a tolerance of the exact channel (uniform_error), remembering what
// was learnt: the error itself once measured whole, or the largest tolerance it was found over.
// Frames at a given rate, through a given format, do not depend on the share of the bound, so
// every attempt of the share search asks about the same ones with another tolerance.
struct KnownError {
  float error = -1;  // measured whole; negative: not yet
  float over = -1;   // the error is above this

  // measure_up_to(limit): the error, or any value above `limit` once it is clearly above it.
  template <class Measure>
  bool within(float tolerance, const Measure& measure_up_to) {
    if (error >= 0) return error <= tolerance;
    if (tolerance <= over) return false;
    const float e = measure_up_to(tolerance);
    if (e <= tolerance) {
      error = e;
      return true;
    }
    over = tolerance;
    return false;
  }
};

struct RateSamples {
  bool filled = false;
  FrameTimes times;
  std::vector<float> frames;
  std::vector<float> interior;
  // What is known of these frames' error as they are, through 8 and 16 bits, and packed at each
  // bit count.
  KnownError as_is, u8, u16;
  std::array<KnownError, Data::kMaxLaneBits + 1> packed;
};

// The exact channel of a lane with a track at every point compile() checks it: every share of
// the bound, rate, format and bit count tried is compared against these, so each is evaluated
// once (evaluating the exact clip was most of compile()'s time).
struct ExactLane {
  bool filled = false;
  std::vector<float> analysis_times;   // key times and kInterior points between them
  std::vector<float> analysis_values;  // the exact values there, components() each
  float spread = 0;                    // the largest distance from the value at time 0
  std::vector<std::array<RateSamples, kRateCount>> segments;
};

void fill_exact_lane(const Clip& clip, const Lane& lane, ExactLane& exact) {
  const int c = components(lane.channel);
  const Track& track = clip.tracks()[static_cast<std::size_t>(lane.track)];
  exact.analysis_times = analysis_times(clip, track, clip.duration());
  exact.analysis_values.resize(exact.analysis_times.size() * c);
  float first[4];
  exact_value(clip, lane, 0.0f, first);
  for (std::size_t i = 0; i < exact.analysis_times.size(); ++i) {
    float* v = exact.analysis_values.data() + i * c;
    exact_value(clip, lane, exact.analysis_times[i], v);
    exact.spread = std::max(exact.spread, channel_distance(lane.channel, first, v));
  }
  exact.filled = true;
}

// The samples of rate r in segment s (base frames [b0, b1]), evaluated on first use.
RateSamples& rate_samples(const Clip& clip, const Lane& lane, ExactLane& exact,
                          const FrameTimes& base, std::size_t s, std::size_t b0, std::size_t b1,
                          int r) {
  if (exact.segments.size() <= s) exact.segments.resize(s + 1);
  RateSamples& rs = exact.segments[s][static_cast<std::size_t>(r)];
  if (rs.filled) return rs;
  rs.times = rate_times(base, b0, b1, r);
  rs.frames = sample_frames(clip, lane, rs.times);
  const int c = components(lane.channel);
  rs.interior.resize((rs.times.size() - 1) * std::size(kInterior) * c);
  float* out = rs.interior.data();
  for (std::size_t f = 0; f + 1 < rs.times.size(); ++f) {
    for (float u : kInterior) {
      exact_value(clip, lane, rs.times[f] + (rs.times[f + 1] - rs.times[f]) * u, out);
      out += c;
    }
  }
  rs.filled = true;
  return rs;
}

// The proxy (channel_distance_proxy) of a distance: the inverse of distance_of_proxy.
float proxy_of_distance(Data::Channel c, float distance) {
  switch (c) {
    case Data::Channel::kTranslation:
      return distance * distance;
    case Data::Channel::kRotation: {
      if (!(distance < 6.0f)) return std::numeric_limits<float>::infinity();
      const float quarter = std::tan(distance * 0.25f);
      return quarter * quarter;
    }
    case Data::Channel::kScale:
      break;
  }
  return distance;
}

// The largest error, over the lane's analysis times inside the frames' span and three points
// inside every frame interval, of `frames` (at rs's times, as the runtime interpolates them)
// against the exact channel; or, once an error is clearly above `limit` (past float rounding of
// the proxy's conversion), a value above `limit` without looking further.
float uniform_error(const Lane& lane, const ExactLane& exact, const RateSamples& rs,
                    std::span<const float> frames, float limit) {
  const int c = components(lane.channel);
  const FrameTimes& times = rs.times;
  const float give_up = proxy_of_distance(lane.channel, limit) * 1.001f + 1e-30f;
  float worst = 0;
  const auto check = [&](float t, const float* want) {
    float alpha;
    const std::size_t f = frame_at(times, t, alpha);
    float got[4];
    interpolate(lane.channel, frames.data() + f * c, frames.data() + (f + 1) * c, alpha, got);
    worst = std::max(worst, channel_distance_proxy(lane.channel, got, want));
    return worst <= give_up;
  };
  const std::vector<float>& at = exact.analysis_times;
  for (std::size_t i = static_cast<std::size_t>(
           std::lower_bound(at.begin(), at.end(), times.front()) - at.begin());
       i < at.size() && at[i] <= times.back(); ++i) {
    if (!check(at[i], exact.analysis_values.data() + i * c)) return 2 * limit + 1;
  }
  const float* want = rs.interior.data();
  for (std::size_t f = 0; f + 1 < times.size(); ++f) {
    for (float u : kInterior) {
      if (!check(times[f] + (times[f + 1] - times[f]) * u, want)) return 2 * limit + 1;
      want += c;
    }
  }
  return distance_of_proxy(lane.channel, worst);
}

// --- Quantization ----------------------------------------------------------------------------

float levels(Data::Format f) {
  return f == Data::Format::kU8 ? 255.0f : 65535.0f;
}

// Per lane and component of a track group: the frames' range.
struct LaneRange {
  float min = 0, scale = 0;
};

LaneRange range_of(std::span<const float> frames, int comps, int k, Data::Format f) {
  float lo = frames[k], hi = frames[k];
  for (std::size_t i = k; i < frames.size(); i += comps) {
    lo = std::min(lo, frames[i]);
    hi = std::max(hi, frames[i]);
  }
  return {lo, (hi - lo) / levels(f)};
}

float quantize(float v, const LaneRange& r, Data::Format f) {
  if (!(r.scale > 0)) return 0;
  return std::clamp(std::round((v - r.min) / r.scale), 0.0f, levels(f));
}

float dequantize(float q, const LaneRange& r) {
  return std::fma(q, r.scale, r.min);
}

// `frames` as the runtime reads them back in format f.
std::vector<float> through_format(std::span<const float> frames, int comps, Data::Format f,
                                  std::array<LaneRange, 4>& ranges) {
  std::vector<float> out(frames.begin(), frames.end());
  if (f == Data::Format::kF32) return out;
  for (int k = 0; k < comps; ++k) ranges[k] = range_of(frames, comps, k, f);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const LaneRange& r = ranges[i % comps];
    out[i] = dequantize(quantize(out[i], r, f), r);
  }
  return out;
}

// --- Packed lanes (Format::kPacked) -----------------------------------------------------------

// A lane's frames as a kPacked group quantizes them: rotations of unit length with w >= 0 (the
// sampler rebuilds w as the non-negative root).
std::vector<float> packed_source(std::span<const float> frames, bool rotation) {
  std::vector<float> out(frames.begin(), frames.end());
  if (!rotation) return out;
  for (std::size_t f = 0; f + 3 < out.size(); f += 4) {
    float* q = out.data() + f;
    const float norm = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    const float s = (q[3] < 0 ? -1.0f : 1.0f) / norm;
    for (int k = 0; k < 4; ++k) q[k] *= s;
  }
  return out;
}

LaneRange packed_range(std::span<const float> frames, int comps, int k, int bits) {
  float lo = frames[k], hi = frames[k];
  for (std::size_t i = k; i < frames.size(); i += comps) {
    lo = std::min(lo, frames[i]);
    hi = std::max(hi, frames[i]);
  }
  return {lo, bits == 0 ? 0.0f : (hi - lo) / static_cast<float>((1u << bits) - 1)};
}

std::uint32_t packed_quantize(float v, const LaneRange& r, int bits) {
  if (!(r.scale > 0)) return 0;
  const float top = static_cast<float>((1u << bits) - 1);
  return static_cast<std::uint32_t>(std::clamp(std::round((v - r.min) / r.scale), 0.0f, top));
}

// `source` (packed_source's) as the sampler reads it back with `bits` per component; rotations
// come back with w rebuilt.
std::vector<float> through_packed(std::span<const float> source, int comps, bool rotation,
                                  int bits) {
  const int stored = rotation ? 3 : comps;
  std::array<LaneRange, 4> ranges;
  for (int k = 0; k < stored; ++k) ranges[k] = packed_range(source, comps, k, bits);
  std::vector<float> out(source.begin(), source.end());
  for (std::size_t f = 0; f < out.size(); f += comps) {
    float* v = out.data() + f;
    for (int k = 0; k < stored; ++k) {
      v[k] = dequantize(static_cast<float>(packed_quantize(v[k], ranges[k], bits)), ranges[k]);
    }
    if (rotation)
      v[3] = std::sqrt(std::max(0.0f, 1.0f - (v[0] * v[0] + v[1] * v[1] + v[2] * v[2])));
  }
  return out;
}

// The fewest bits (0 to kMaxLaneBits) that keep a moving lane within its tolerance, its error
// taken to fall as bits are added; -1 when even the most do not. A rotation whose w changes sign
// between two frames (a turn through 180 degrees) lands in opposite hemispheres once every w is
// made positive, which nlerp cannot cross: its error is then far off and it is not packed. The
// search starts from the bits whose rounding alone would fit (half a step on each of 3
// components; a rotation's angle twice its quaternion's change) and steps from there: the
// frames' own error takes a share too, so it usually ends one or two steps up.
int packed_lane_bits(const Lane& lane, const ExactLane& exact, RateSamples& rs,
                     std::span<const float> source) {
  const int comps = components(lane.channel);
  const bool rotation = lane.channel == Data::Channel::kRotation;
  const auto fits = [&](int bits) {
    return rs.packed[static_cast<std::size_t>(bits)].within(lane.tolerance, [&](float limit) {
      return uniform_error(lane, exact, rs, through_packed(source, comps, rotation, bits), limit);
    });
  };
  float widest = 0;
  for (int k = 0; k < (rotation ? 3 : comps); ++k) {
    const LaneRange r = packed_range(source, comps, k, 1);
    widest = std::max(widest, r.scale);  // at 1 bit the step is the range
  }
  const float step = (rotation ? 0.5f : 1.0f) * lane.tolerance * 2.0f / std::sqrt(3.0f);
  int bits = 0;
  while (bits < Data::kMaxLaneBits && widest > step * static_cast<float>((1u << bits) - 1)) {
    ++bits;
  }
  bits = std::max(0, bits - 1);
  if (fits(bits)) {
    while (bits > 0 && fits(bits - 1)) --bits;
    return bits;
  }
  while (++bits <= Data::kMaxLaneBits) {
    if (fits(bits)) return bits;
  }
  return -1;
}

// --- Building one attempt ----------------------------------------------------------------------

// Per segment: its base frames, and for each group's channel the rate its lanes need.
struct SegmentPlan {
  std::size_t b0 = 0, b1 = 0;
  std::vector<int> group_rate;  // 3 per group; -1 where nothing moves
  // Per lane (3 per joint): frames at its group's rate, for uniform lanes.
  std::vector<std::vector<float>> frames;
};

struct Attempt {
  std::vector<Lane> lanes;  // joint-major: 3 per joint (translation, rotation, scale)
  std::vector<SegmentPlan> segments;
};

// A part of compile()'s work, reporting its own progress from 0 to 1 as the span
// [begin, begin + width] of the whole (CompileOptions::progress).
struct ProgressSpan {
  const std::function<void(float)>* report = nullptr;
  float begin = 0, width = 1;

  void at(float inner) const {
    if (report && *report) (*report)(begin + width * std::clamp(inner, 0.0f, 1.0f));
  }
  ProgressSpan part(float from, float to) const {
    return {report, begin + width * from, width * (to - from)};
  }
};

Data::Channel channel_of(int c) {
  return static_cast<Data::Channel>(c);
}

// Steps 1-3 for share `share` of the bound: tolerances, folding, rates per segment.
Attempt plan(const Clip& clip, const Skeleton& skeleton, const Geometry& geo, float bound,
             float share, std::span<const Transform> base, const FrameTimes& base_times,
             std::vector<ExactLane>& exact, const ProgressSpan& progress) {
  const std::size_t n = skeleton.size();
  Attempt a;
  a.lanes.resize(3 * n);
  for (std::size_t j = 0; j < n; ++j) {
    for (int c = 0; c < 3; ++c) {
      Lane& lane = a.lanes[3 * j + c];
      lane.joint = static_cast<JointIndex>(j);
      lane.channel = channel_of(c);
      lane.value = rest_value(base[j], lane.channel);
      const float budget = share * bound;
      switch (lane.channel) {
        case Data::Channel::kTranslation:
          lane.tolerance = budget / geo.parent_scale[j];
          break;
        case Data::Channel::kRotation:
          lane.tolerance = budget / (geo.lever[j] * geo.parent_condition[j]);
          break;
        case Data::Channel::kScale:
          lane.tolerance = budget * geo.own_scale[j] / (geo.lever[j] * geo.parent_condition[j]);
          break;
      }
    }
  }
  const std::span<const Track> tracks = clip.tracks();
  for (std::size_t i = 0; i < tracks.size(); ++i) {
    const Track& t = tracks[i];
    Lane& lane = a.lanes[3 * t.joint + static_cast<int>(t.target)];
    lane.track = static_cast<int>(i);
    ExactLane& ex = exact[3 * t.joint + static_cast<int>(t.target)];
    if (!ex.filled) fill_exact_lane(clip, lane, ex);
    // Folding: within tolerance of the value at 0 everywhere -> constant (or rest).
    float first[4];
    exact_value(clip, lane, 0.0f, first);
    const float spread = ex.spread;
    if (spread <= lane.tolerance) {
      const float off_rest = channel_distance(lane.channel, first, lane.value.data());
      if (off_rest + spread <= lane.tolerance) {
        lane.kind = LaneKind::kRest;
      } else {
        lane.kind = LaneKind::kConstant;
        std::copy_n(first, components(lane.channel), lane.value.data());
      }
    } else if (t.interpolation == Interpolation::kStep || base_times.size() < 2 || share == 0) {
      lane.kind = LaneKind::kKeyed;
    } else {
      lane.kind = LaneKind::kUniform;
    }
  }
  if (base_times.size() < 2) return a;

  // Rates: in each segment each moving lane takes the lowest rate at which it fits; a lane that
  // no rate fits somewhere stays exact everywhere. A group's channel takes its lanes' highest.
  const std::size_t intervals = base_times.size() - 1;
  std::vector<std::vector<int>> fit(a.lanes.size());
  for (std::size_t b0 = 0; b0 < intervals; b0 += kSegmentFrames) {
    SegmentPlan seg;
    seg.b0 = b0;
    seg.b1 = std::min(b0 + kSegmentFrames, intervals);
    a.segments.push_back(std::move(seg));
  }
  for (std::size_t l = 0; l < a.lanes.size(); ++l) {
    Lane& lane = a.lanes[l];
    if (lane.kind != LaneKind::kUniform) continue;
    progress.at(static_cast<float>(l) / static_cast<float>(a.lanes.size()));
    for (const SegmentPlan& seg : a.segments) {
      const std::size_t s = static_cast<std::size_t>(&seg - a.segments.data());
      int rate = -1;
      for (int r = 0; r < kRateCount && rate < 0; ++r) {
        RateSamples& rs = rate_samples(clip, lane, exact[l], base_times, s, seg.b0, seg.b1, r);
        const bool fits = rs.as_is.within(lane.tolerance, [&](float limit) {
          return uniform_error(lane, exact[l], rs, rs.frames, limit);
        });
        if (fits) rate = r;
      }
      fit[l].push_back(rate);
      if (rate < 0) lane.kind = LaneKind::kKeyed;
    }
    // A track whose frames would take far more room than its own keys (a few keys far apart,
    // long arcs needing many frames) stays exact: exact keys cost more to sample, so only when
    // they save much.
    if (lane.kind != LaneKind::kUniform) continue;
    std::size_t frame_bytes = 0;
    for (std::size_t s = 0; s < a.segments.size(); ++s) {
      frame_bytes += rate_times(base_times, a.segments[s].b0, a.segments[s].b1, fit[l][s]).size() *
                     components(lane.channel) * 2;
    }
    const Track& t = tracks[static_cast<std::size_t>(lane.track)];
    const std::size_t key_bytes = t.key_count * 4 * (1 + floats_per_key(t.target, t.interpolation));
    if (frame_bytes > 4 * key_bytes) lane.kind = LaneKind::kKeyed;
  }
  for (SegmentPlan& seg : a.segments) {
    const std::size_t s = static_cast<std::size_t>(&seg - a.segments.data());
    seg.group_rate.assign(3 * soa_group_count(n), -1);
    seg.frames.resize(a.lanes.size());
    for (std::size_t l = 0; l < a.lanes.size(); ++l) {
      if (a.lanes[l].kind != LaneKind::kUniform) continue;
      int& rate =
          seg.group_rate[(a.lanes[l].joint / kSoaWidth) * 3 + static_cast<int>(a.lanes[l].channel)];
      rate = std::max(rate, fit[l][s]);
    }
    for (std::size_t l = 0; l < a.lanes.size(); ++l) {
      const Lane& lane = a.lanes[l];
      if (lane.kind != LaneKind::kUniform) continue;
      const int rate =
          seg.group_rate[(lane.joint / kSoaWidth) * 3 + static_cast<int>(lane.channel)];
      seg.frames[l] =
          rate_samples(clip, lane, exact[l], base_times, s, seg.b0, seg.b1, rate).frames;
    }
  }
  return a;
}

// Step 4: the layout. Sources are decided for the whole clip; each segment gets, per moving
// group's channel, its rate's stream and the smallest format within the lanes' tolerances.
struct LayoutInputs {
  const Clip& clip;
  const Attempt& a;
  const FrameTimes& base_times;
  std::vector<ExactLane>& exact;
  std::size_t joints = 0;
  bool quantize_keys = true;
  bool pack_lanes = true;

  // Lane l's exact samples at rate r in segment seg.
  RateSamples& samples(std::size_t l, const SegmentPlan& seg, int r) const {
    const std::size_t s = static_cast<std::size_t>(&seg - a.segments.data());
    return rate_samples(clip, a.lanes[l], exact[l], base_times, s, seg.b0, seg.b1, r);
  }

  // The lane of joint group g, channel c, lane i; -1 past the last joint.
  std::ptrdiff_t lane_index(std::size_t g, int c, std::size_t i) const {
    const std::size_t j = g * kSoaWidth + i;
    return j < joints ? static_cast<std::ptrdiff_t>(3 * j + c) : -1;
  }
  // Lanes past the last joint hold the identity; lanes kept as exact keys hold their rest value
  // until the exact keys overwrite them.
  std::array<float, 4> fixed_value(std::ptrdiff_t l, int c) const {
    if (l < 0) return rest_value(Transform::identity(), channel_of(c));
    return a.lanes[static_cast<std::size_t>(l)].value;
  }
  bool uniform(std::ptrdiff_t l) const {
    return l >= 0 && a.lanes[static_cast<std::size_t>(l)].kind == LaneKind::kUniform;
  }
};

// Each (group, channel)'s source: animated when a lane moves, the rest pose when every lane
// rests (never for additive clips, whose rest is the identity), else constants. Returns the
// (group, channel) of each animated source, in order.
std::vector<std::pair<std::size_t, int>> assemble_sources(const LayoutInputs& in, bool additive,
                                                          Data& d) {
  std::vector<std::pair<std::size_t, int>> moving;
  for (std::size_t g = 0; g < soa_group_count(in.joints); ++g) {
    for (int c = 0; c < 3; ++c) {
      bool animated = false, all_rest = true;
      for (std::size_t i = 0; i < kSoaWidth; ++i) {
        const std::ptrdiff_t l = in.lane_index(g, c, i);
        if (l < 0) continue;
        const LaneKind kind = in.a.lanes[static_cast<std::size_t>(l)].kind;
        animated = animated || kind == LaneKind::kUniform;
        all_rest = all_rest && (kind == LaneKind::kRest || kind == LaneKind::kKeyed);
      }
      if (animated) {
        d.sources.push_back(Data::Source::kAnimated);
        moving.emplace_back(g, c);
      } else if (all_rest && !additive) {
        d.sources.push_back(Data::Source::kRest);
      } else {
        d.sources.push_back(Data::Source::kConstant);
        const int comps = components(channel_of(c));
        for (int k = 0; k < comps; ++k) {
          for (std::size_t i = 0; i < kSoaWidth; ++i) {
            d.constants.push_back(in.fixed_value(in.lane_index(g, c, i), c)[k]);
          }
        }
      }
    }
  }
  return moving;
}

// One moving group's channel in one segment, before it has a place in a stream.
struct PendingGroup {
  Data::TrackGroup tg;
  Data::Channel channel = Data::Channel::kTranslation;
  int rate = 0;
  int comps = 3;
  std::vector<std::vector<float>> lane_frames;  // 8 lanes of (frames x comps) values
  std::array<std::array<LaneRange, 4>, kSoaWidth> ranges{};
};

// Each lane with its own bits (kPacked), taken when its frames are smaller than p's format's.
void try_packed(const LayoutInputs& in, const SegmentPlan& seg, std::size_t g, int c,
                PendingGroup& p) {
  const bool rotation = p.channel == Data::Channel::kRotation;
  Data::TrackGroup packed = p.tg;
  packed.format = Data::Format::kPacked;
  std::vector<std::vector<float>> sources(kSoaWidth);
  for (std::size_t i = 0; i < kSoaWidth; ++i) {
    const std::ptrdiff_t l = in.lane_index(g, c, i);
    sources[i] = packed_source(p.lane_frames[i], rotation);
    // A lane that holds one value (rest, constant, exact keys, past the last joint) needs none.
    if (!in.uniform(l)) continue;
    const auto lane = static_cast<std::size_t>(l);
    const int bits = packed_lane_bits(in.a.lanes[lane], in.exact[lane],
                                      in.samples(lane, seg, p.rate), sources[i]);
    if (bits < 0) return;
    packed.lane_bits[i] = static_cast<std::uint8_t>(bits);
  }
  compiled_detail::set_lane_offsets(packed);
  if (compiled_detail::group_frame_bytes(packed, p.channel) >=
      compiled_detail::group_frame_bytes(p.tg, p.channel)) {
    return;
  }
  p.tg = packed;
  p.lane_frames = std::move(sources);
  const int stored = compiled_detail::stored_components(p.channel, packed.format);
  for (std::size_t i = 0; i < kSoaWidth; ++i) {
    for (int k = 0; k < stored; ++k) {
      p.ranges[i][k] = packed_range(p.lane_frames[i], p.comps, k, packed.lane_bits[i]);
    }
  }
}

// Group g's channel c in `seg`: its lanes' frames at the group's rate, and the smallest format
// that keeps every moving lane within its tolerance.
PendingGroup pending_group(const LayoutInputs& in, const SegmentPlan& seg, std::size_t g, int c) {
  PendingGroup p;
  p.comps = components(channel_of(c));
  p.rate = std::max(seg.group_rate[g * 3 + c], 0);  // a group still in this segment: lowest
  const FrameTimes times = rate_times(in.base_times, seg.b0, seg.b1, p.rate);
  p.lane_frames.resize(kSoaWidth);
  for (std::size_t i = 0; i < kSoaWidth; ++i) {
    const std::ptrdiff_t l = in.lane_index(g, c, i);
    if (in.uniform(l)) {
      p.lane_frames[i] = seg.frames[static_cast<std::size_t>(l)];
      continue;
    }
    const std::array<float, 4> v = in.fixed_value(l, c);
    for (std::size_t f = 0; f < times.size(); ++f) {
      for (int k = 0; k < p.comps; ++k) p.lane_frames[i].push_back(v[k]);
    }
  }
  p.channel = channel_of(c);
  p.tg.slerp_timing = p.channel == Data::Channel::kRotation;
  for (Data::Format f : {Data::Format::kU8, Data::Format::kU16, Data::Format::kF32}) {
    if (!in.quantize_keys && f != Data::Format::kF32) continue;
    bool ok = true;
    for (std::size_t i = 0; i < kSoaWidth && ok; ++i) {
      const std::ptrdiff_t l = in.lane_index(g, c, i);
      const std::vector<float> back = through_format(p.lane_frames[i], p.comps, f, p.ranges[i]);
      if (in.uniform(l) && f != Data::Format::kF32) {
        const auto lane = static_cast<std::size_t>(l);
        RateSamples& rs = in.samples(lane, seg, p.rate);
        KnownError& known = f == Data::Format::kU8 ? rs.u8 : rs.u16;
        ok = known.within(in.a.lanes[lane].tolerance, [&](float limit) {
          return uniform_error(in.a.lanes[lane], in.exact[lane], rs, back, limit);
        });
      }
    }
    if (ok) {
      p.tg.format = f;
      break;
    }
  }
  if (in.quantize_keys && in.pack_lanes) try_packed(in, seg, g, c, p);
  return p;
}

// One stream per rate in use, slowest first; within a frame, groups one after the other, each
// aligned to its element size. A packed group of no bits (every lane at its min) reads nothing,
// so it goes to the segment's first stream, made of one 4-byte frame per frame when no other
// group needs one. Fills stream_of_rate for the rates in use.
void assemble_streams(const LayoutInputs& in, const SegmentPlan& seg,
                      std::vector<PendingGroup>& pending, Data::Segment& out, Data& d,
                      std::uint8_t (&stream_of_rate)[kRateCount]) {
  const auto bytes_of = [](const PendingGroup& p) {
    return compiled_detail::group_frame_bytes(p.tg, p.channel);
  };
  int first_rate = -1;
  const auto add_stream = [&](int rate, std::size_t bytes) {
    const FrameTimes times = rate_times(in.base_times, seg.b0, seg.b1, rate);
    Data::Stream st;
    st.frame_count = static_cast<std::uint32_t>(times.size());
    st.sample_rate = static_cast<float>(
        rate_of((in.base_times.size() - 1) / static_cast<double>(d.duration), rate));
    st.frame_stride = static_cast<std::uint32_t>(std::max<std::size_t>(4, (bytes + 3) / 4 * 4));
    st.first_time = static_cast<std::uint32_t>(d.frame_times.size());
    st.first_byte = d.frames.size();
    d.frame_times.insert(d.frame_times.end(), times.begin(), times.end());
    d.frames.resize(d.frames.size() + std::size_t{st.frame_count} * st.frame_stride, 0);
    stream_of_rate[rate] = static_cast<std::uint8_t>(d.streams.size());
    d.streams.push_back(st);
    if (first_rate < 0) first_rate = rate;
  };
  for (int rate = 0; rate < kRateCount; ++rate) {
    std::size_t offset = 0;
    for (PendingGroup& p : pending) {
      if (p.rate != rate || bytes_of(p) == 0) continue;
      p.tg.stream = static_cast<std::uint8_t>(d.streams.size() - out.first_stream);
      const std::size_t align = element_bytes(p.tg.format);
      offset = (offset + align - 1) / align * align;
      p.tg.frame_offset = static_cast<std::uint32_t>(offset);
      offset += bytes_of(p);
    }
    if (offset > 0) add_stream(rate, offset);
  }
  for (PendingGroup& p : pending) {
    if (bytes_of(p) != 0) continue;
    if (first_rate < 0) add_stream(p.rate, 0);
    p.rate = first_rate;
    p.tg.stream = 0;
    p.tg.frame_offset = 0;
  }
  out.stream_count = static_cast<std::uint32_t>(d.streams.size()) - out.first_stream;
}

// A placed group's ranges into the range table and its values, in its format, into its frames.
// A kPacked group's frames: per stored component, each lane's bits at its offset in the record.
void write_packed_frames(const PendingGroup& p, const Data::Stream& st, Data& d) {
  const Data::TrackGroup& tg = p.tg;
  const int stored = compiled_detail::stored_components(p.channel, tg.format);
  const std::size_t record = compiled_detail::packed_record_bytes(tg);
  // A group of no bits writes nothing, and its stream may be another rate's, with more frames
  // than its own (assemble_streams).
  if (record == 0) return;
  for (std::size_t f = 0; f < st.frame_count; ++f) {
    std::uint8_t* dst = d.frames.data() + st.first_byte + f * st.frame_stride + tg.frame_offset;
    for (int k = 0; k < stored; ++k, dst += record) {
      for (std::size_t i = 0; i < kSoaWidth; ++i) {
        const std::uint32_t q =
            packed_quantize(p.lane_frames[i][f * p.comps + k], p.ranges[i][k], tg.lane_bits[i]);
        for (unsigned b = 0; b < tg.lane_bits[i]; ++b) {
          const unsigned at = tg.lane_offset[i] + b;
          dst[at / 8] = static_cast<std::uint8_t>(dst[at / 8] | (((q >> b) & 1u) << (at % 8)));
        }
      }
    }
  }
}

void write_group(const PendingGroup& p, const Data::Stream& st, Data& d) {
  Data::TrackGroup tg = p.tg;
  if (tg.format != Data::Format::kF32) {
    tg.range_offset = static_cast<std::uint32_t>(d.ranges.size());
    for (int k = 0; k < compiled_detail::stored_components(p.channel, tg.format); ++k) {
      for (std::size_t i = 0; i < kSoaWidth; ++i) d.ranges.push_back(p.ranges[i][k].min);
      for (std::size_t i = 0; i < kSoaWidth; ++i) d.ranges.push_back(p.ranges[i][k].scale);
    }
  }
  d.track_groups.push_back(tg);
  if (tg.format == Data::Format::kPacked) return write_packed_frames(p, st, d);
  for (std::size_t f = 0; f < st.frame_count; ++f) {
    std::uint8_t* dst = d.frames.data() + st.first_byte + f * st.frame_stride + tg.frame_offset;
    for (int k = 0; k < p.comps; ++k) {
      for (std::size_t i = 0; i < kSoaWidth; ++i) {
        const float v = p.lane_frames[i][f * p.comps + k];
        const std::size_t e = k * kSoaWidth + i;
        switch (tg.format) {
          case Data::Format::kU8:
            dst[e] = static_cast<std::uint8_t>(quantize(v, p.ranges[i][k], tg.format));
            break;
          case Data::Format::kU16: {
            const auto q = static_cast<std::uint16_t>(quantize(v, p.ranges[i][k], tg.format));
            std::memcpy(dst + 2 * e, &q, 2);
            break;
          }
          case Data::Format::kF32:
            std::memcpy(dst + 4 * e, &v, 4);
            break;
          case Data::Format::kPacked:
            break;
        }
      }
    }
  }
}

// Exact keys: the clip's own tracks, unchanged.
void assemble_keyed(const Clip& clip, const Attempt& a, Data& d) {
  for (const Lane& lane : a.lanes) {
    if (lane.kind != LaneKind::kKeyed) continue;
    const Track& t = clip.tracks()[static_cast<std::size_t>(lane.track)];
    d.keyed.push_back({lane.joint, lane.channel, t.interpolation, t.key_count});
    const auto times = clip.times().subspan(t.first_key, t.key_count);
    const auto values = clip.values().subspan(
        t.first_value, std::size_t{t.key_count} * floats_per_key(t.target, t.interpolation));
    d.keyed_times.insert(d.keyed_times.end(), times.begin(), times.end());
    d.keyed_values.insert(d.keyed_values.end(), values.begin(), values.end());
  }
}

Data assemble(const Clip& clip, const Skeleton& skeleton, const Attempt& a,
              const FrameTimes& base_times, std::vector<ExactLane>& exact,
              const CompileOptions& options, bool additive) {
  const LayoutInputs in{clip,        a, base_times, exact, skeleton.size(), options.quantize,
                        options.pack};
  Data d;
  d.name = clip.name();
  d.duration = clip.duration();
  d.ticks_per_second = clip.ticks_per_second();
  d.joint_count = static_cast<std::uint32_t>(in.joints);
  d.events.assign(clip.events().begin(), clip.events().end());
  const std::vector<std::pair<std::size_t, int>> moving = assemble_sources(in, additive, d);
  if (!moving.empty()) {
    const double key_rate = (base_times.size() - 1) / static_cast<double>(d.duration);
    d.segment_rate = static_cast<float>(key_rate / kSegmentFrames);
  }
  for (const SegmentPlan& seg : moving.empty() ? std::span<const SegmentPlan>{} : a.segments) {
    Data::Segment out;
    out.start_time = base_times[seg.b0];
    out.first_stream = static_cast<std::uint32_t>(d.streams.size());
    out.first_track_group = static_cast<std::uint32_t>(d.track_groups.size());
    std::vector<PendingGroup> pending;
    for (const auto& [g, c] : moving) pending.push_back(pending_group(in, seg, g, c));
    std::uint8_t stream_of_rate[kRateCount];
    assemble_streams(in, seg, pending, out, d, stream_of_rate);
    for (const PendingGroup& p : pending) write_group(p, d.streams[stream_of_rate[p.rate]], d);
    d.segments.push_back(out);
  }
  assemble_keyed(clip, a, d);
  return d;
}

// --- Step 5: the measured error ---------------------------------------------------------------

// base . delta for additive clips (pose/additive.h at weight 1), kept here since clip/ comes
// before pose/.
Transform compose_additive(const Transform& base, const Transform& delta) {
  return {base.translation + delta.translation, normalize(base.rotation * delta.rotation),
          mul(base.scale, delta.scale)};
}

// A model matrix's 3x3 part (columns) and translation: what measure() compares.
struct Affine {
  std::array<float, 12> m;
};

// The exact clip's model-space pose at the times measure() checks. Each attempt of the share
// search checks mostly the same times (its streams' frames change little from one share to the
// next), so poses already computed are kept, up to kCacheBytes, and only new times are sampled.
class ExactPoses {
 public:
  ExactPoses(const Clip& clip, const Skeleton& skeleton, std::span<const Transform> base,
             std::span<const Transform> additive_reference)
      : clip_(clip),
        skeleton_(skeleton),
        base_(base),
        additive_reference_(additive_reference),
        cursor_(clip),
        local_(skeleton.size()),
        scratch_(skeleton.size()) {}

  // The pose at t: valid until the next call.
  std::span<const Affine> at(float t) {
    const std::size_t n = skeleton_.size();
    if (const auto it = index_.find(t); it != index_.end()) {
      return std::span<const Affine>(poses_).subspan(it->second * n, n);
    }
    std::copy(base_.begin(), base_.end(), local_.begin());
    sample_tracks(clip_, t, cursor_, local_);
    if (!additive_reference_.empty()) {
      for (std::size_t j = 0; j < n; ++j) {
        local_[j] = compose_additive(additive_reference_[j], local_[j]);
      }
    }
    local_to_model(skeleton_, local_, model_);
    for (std::size_t j = 0; j < n; ++j) {
      std::copy_n(model_[j].m.begin(), 3, scratch_[j].m.begin());
      std::copy_n(model_[j].m.begin() + 4, 3, scratch_[j].m.begin() + 3);
      std::copy_n(model_[j].m.begin() + 8, 3, scratch_[j].m.begin() + 6);
      std::copy_n(model_[j].m.begin() + 12, 3, scratch_[j].m.begin() + 9);
    }
    if ((poses_.size() + n) * sizeof(Affine) > kCacheBytes) return scratch_;
    index_.emplace(t, poses_.size() / n);
    poses_.insert(poses_.end(), scratch_.begin(), scratch_.end());
    return std::span<const Affine>(poses_).subspan(poses_.size() - n, n);
  }

 private:
  static constexpr std::size_t kCacheBytes = std::size_t{96} << 20;
  const Clip& clip_;
  const Skeleton& skeleton_;
  std::span<const Transform> base_, additive_reference_;
  SamplingCursor cursor_;
  std::vector<Transform> local_;
  std::vector<Mat4> model_;
  std::vector<Affine> scratch_, poses_;
  std::unordered_map<float, std::size_t> index_;
};

struct Measurement {
  float max_error = 0, p99 = 0, max_time = 0;
  std::uint32_t max_joint = 0;
  std::size_t times = 0;
};

// Where measure() looks inside each frame interval of the compiled clip: kFull, ten points (the
// error the report gives and the bound is checked on); kSearch, four of them (the frame, the
// middle and the two points where a cubic's error peaks), for the share search's attempts, whose
// chosen clip is then measured in full.
enum class Detail { kSearch, kFull };
constexpr float kFullPoints[] = {0.0f, 0.125f, 0.2113249f, 0.25f,      0.375f,
                                 0.5f, 0.625f, 0.75f,      0.7886751f, 0.875f};
constexpr float kSearchPoints[] = {0.0f, 0.2113249f, 0.5f, 0.7886751f};

Measurement measure(const Clip& clip, const CompiledClip& compiled, const Skeleton& skeleton,
                    const Geometry& geo, std::span<const Transform> base,
                    std::span<const Transform> additive_reference, ExactPoses& exact_poses,
                    float bound, Detail detail, const ProgressSpan& progress) {
  const std::size_t n = skeleton.size();
  const float duration = clip.duration();
  std::vector<float> times{0.0f, duration, duration * (1 - 1e-4f)};
  times.insert(times.end(), clip.times().begin(), clip.times().end());
  const CompiledClipLayout& d = compiled.layout();
  const std::span<const float> points =
      detail == Detail::kFull ? std::span<const float>(kFullPoints) : kSearchPoints;
  for (const CompiledClipData::Stream& st : d.streams) {
    const float* ft = d.frame_times.data() + st.first_time;
    for (std::size_t f = 0; f + 1 < st.frame_count; ++f) {
      for (float u : points) times.push_back(ft[f] + (ft[f + 1] - ft[f]) * u);
    }
  }
  for (float& t : times) t = std::clamp(t, 0.0f, duration);
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());

  std::vector<Transform> fast(n);
  std::vector<SoaTransform> soa(soa_group_count(n)), soa_base(soa_group_count(n));
  to_soa(base, soa_base);
  std::vector<Mat4> fast_model;
  CompiledSamplingContext context(compiled);
  // p99 from a histogram of error / bound.
  constexpr std::size_t kBins = 4096;
  std::vector<std::size_t> histogram(kBins + 1, 0);
  const float bins_per_unit = (kBins / 4.0f) / bound;  // 4 bounds wide
  std::size_t samples = 0;
  Measurement m;
  m.times = times.size();
  const bool additive = !additive_reference.empty();
  for (std::size_t i = 0; i < times.size(); ++i) {
    const float t = times[i];
    if (i % 256 == 0) progress.at(static_cast<float>(i) / static_cast<float>(times.size()));
    CompiledSamplingJob job;
    job.clip = &compiled;
    job.time = t;
    job.rest_pose = soa_base;
    job.context = &context;
    job.output = soa;
    job.run();
    from_soa(soa, fast);
    if (additive) {
      for (std::size_t j = 0; j < n; ++j) {
        fast[j] = compose_additive(additive_reference[j], fast[j]);
      }
    }
    local_to_model(skeleton, fast, fast_model);
    const std::span<const Affine> exact_model = exact_poses.at(t);
    for (std::size_t j = 0; j < n; ++j) {
      // A virtual vertex at p moves by (exact - fast) applied to p: the translations' difference
      // plus dl times the difference of the axis p lies on.
      const float dl = geo.local_distance[j];
      const float* a = exact_model[j].m.data();
      const float* b = fast_model[j].m.data();
      const Vec3 moved{a[9] - b[12], a[10] - b[13], a[11] - b[14]};
      for (int axis = -1; axis < 3; ++axis) {
        Vec3 d = moved;
        if (axis >= 0) {
          d = d + Vec3{a[axis * 3] - b[axis * 4], a[axis * 3 + 1] - b[axis * 4 + 1],
                       a[axis * 3 + 2] - b[axis * 4 + 2]} *
                      dl;
        }
        const float e = length(d);
        const float err = std::isfinite(e) ? e : 3e38f;
        if (err > m.max_error)
          m.max_error = err, m.max_time = t, m.max_joint = static_cast<std::uint32_t>(j);
        const auto bin =
            static_cast<std::size_t>(std::min(err * bins_per_unit, static_cast<float>(kBins)));
        ++histogram[bin];
        ++samples;
      }
    }
  }
  std::size_t seen = 0;
  for (std::size_t b = 0; b <= kBins; ++b) {
    seen += histogram[b];
    if (seen >= samples * 99 / 100) {
      m.p99 = std::min(m.max_error, (b + 1) * bound / (kBins / 4.0f));
      break;
    }
  }
  return m;
}

// A compiled clip and its measured error.
struct Candidate {
  CompiledClip clip;
  Measurement m;
};

// compile()'s search for the share of the bound each joint channel gets, `attempt` building and
// measuring the clip of one share. The per-channel tolerances add up along the hierarchy in ways
// the split cannot foresee, so the share is searched on the measured error, which grows about in
// proportion to it: each step aims just inside `target` from the last measurement, kept inside
// the bracket of the largest share that passed and the smallest that failed (their geometric
// middle when the aim leaves it). The size does not fall steadily as the share grows (a larger
// tolerance can tip a group of 8 joints into a finer rate or format), so the smallest clip that
// passed is kept. When nothing passes, the share is halved from the smallest tried; the last
// step, share 0, keeps every moving channel as exact keys: its error is the exact sampler's
// rounding, so the search always ends with a clip. Each attempt takes half the progress left.
template <class TryShare>
Result<Candidate> search_share(const TryShare& attempt, float target, const ProgressSpan& whole) {
  ProgressSpan rest = whole;
  const auto next_half = [&rest] {
    const ProgressSpan half = rest.part(0.0f, 0.5f);
    rest = rest.part(0.5f, 1.0f);
    return half;
  };
  std::optional<Candidate> best;
  float passed = 0, failed = kLargestShare * 2, share = kFirstShare;
  for (int i = 0;
       i < kShareMeasurements && passed < kLargestShare && failed > passed * kShareResolution;
       ++i) {
    Result<Candidate> tried = attempt(share, next_half());
    if (!tried) return tried.error();
    const float error = tried->m.max_error;
    const bool ok = error <= target;
    (ok ? passed : failed) = share;
    if (ok && (!best || tried->clip.size_bytes() < best->clip.size_bytes())) {
      best = std::move(tried).value();
    }
    float aim = error > 0 ? share * 0.97f * target / error : kLargestShare;
    if (!(aim > passed && aim < failed)) aim = std::sqrt(std::max(passed, failed / 16) * failed);
    share = std::min(aim, kLargestShare);
  }
  share = std::min(failed, kFirstShare) * 0.5f;
  for (int halving = 0; !best; ++halving) {
    const bool last = halving == kMaxHalvings;
    Result<Candidate> tried = attempt(last ? 0.0f : share, next_half());
    if (!tried) return tried.error();
    if (tried->m.max_error <= target || last) best = std::move(tried).value();
    share *= 0.5f;
  }
  return std::move(*best);
}

std::size_t exact_bytes(const Clip& clip) {
  return clip.tracks().size() * sizeof(Track) + (clip.times().size() + clip.values().size()) * 4;
}

}  // namespace

Result<CompiledClip> CompiledClip::compile(const Clip& clip, const Skeleton& skeleton,
                                           const CompileOptions& options) {
  const std::string where = "compile(" + clip.name() + ")";
  if (!std::isfinite(options.error) || !(options.error > 0)) {
    return make_error(where, "the error bound must be a finite number above 0 (got " +
                                 std::to_string(options.error) + ")");
  }
  if (!std::isfinite(options.distance) || options.distance < 0) {
    return make_error(where, "the virtual vertex distance must be finite and >= 0 (got " +
                                 std::to_string(options.distance) + ")");
  }
  if (clip.joint_count() != skeleton.size() || skeleton.empty()) {
    return make_error(where, "the clip is for " + std::to_string(clip.joint_count()) +
                                 " joints, the skeleton has " + std::to_string(skeleton.size()));
  }
  const std::size_t n = skeleton.size();
  const bool additive = !options.additive_reference.empty();
  if (additive && options.additive_reference.size() < n) {
    return make_error(where, "the additive reference pose has " +
                                 std::to_string(options.additive_reference.size()) +
                                 " joints, the skeleton " + std::to_string(n));
  }
  const Geometry geo =
      measure_geometry(skeleton, options.distance, options.absolute, options.distance);
  const float bound = options.absolute ? options.error : options.error * geo.extent;
  // Channels without a track hold the rest pose, or for additive clips no change (identity).
  const std::vector<Transform> identity(n);
  const std::span<const Transform> base =
      additive ? std::span<const Transform>(identity) : skeleton.rest_pose();

  const FrameTimes base_times = base_frame_times(clip);
  std::vector<ExactLane> exact(3 * n);
  ExactPoses exact_poses(clip, skeleton, base, options.additive_reference);
  // Steps 1-5 for one share of the bound.
  const auto measured = [&](const CompiledClip& c, Detail detail, const ProgressSpan& progress) {
    return measure(clip, c, skeleton, geo, base, options.additive_reference, exact_poses, bound,
                   detail, progress);
  };
  const auto attempt_at = [&](float share, Detail detail,
                              const ProgressSpan& progress) -> Result<Candidate> {
    const Attempt a = plan(clip, skeleton, geo, bound, share, base, base_times, exact,
                           progress.part(0.0f, 0.25f));
    Data data = assemble(clip, skeleton, a, base_times, exact, options, additive);
    Result<CompiledClip> compiled = from_data(std::move(data), where);
    if (!compiled) return compiled.error();
    const Measurement m = measured(*compiled, detail, progress.part(0.3f, 1.0f));
    progress.at(1.0f);
    return Candidate{std::move(compiled).value(), m};
  };
  const auto attempt = [&](float share, const ProgressSpan& progress) {
    return attempt_at(share, Detail::kFull, progress);
  };
  const auto attempt_searching = [&](float share, const ProgressSpan& progress) {
    return attempt_at(share, Detail::kSearch, progress);
  };
  const ProgressSpan whole{&options.progress, 0.0f, 1.0f};
  // The search measures its attempts at fewer points, aiming a little further inside, and the clip
  // it chooses is measured in full; should that miss the target, the search runs again measuring
  // every attempt in full, so the result always meets what a full search would.
  Result<Candidate> best =
      search_share(attempt_searching, bound * kSafety * kSearchMargin, whole.part(0.0f, 0.9f));
  if (!best) return best.error();
  best->m = measured(best->clip, Detail::kFull, whole.part(0.9f, 1.0f));
  if (best->m.max_error > bound * kSafety) {
    best = search_share(attempt, bound * kSafety, whole);
    if (!best) return best.error();
  }
  // Sparse clips (a few keys per track) are smaller kept as their keys than resampled at any
  // rate: share 0 keeps every moving channel as exact keys, tried when the keys alone would be
  // smaller than the search's clip.
  if (exact_bytes(clip) < best->clip.size_bytes()) {
    Result<Candidate> keyed = attempt(0.0f, ProgressSpan{});
    if (!keyed) return keyed.error();
    if (keyed->m.max_error <= bound * kSafety &&
        keyed->clip.size_bytes() < best->clip.size_bytes()) {
      best = std::move(keyed).value();
    }
  }
  whole.at(1.0f);
  CompiledClip compiled = std::move(best->clip);
  const Measurement m = best->m;
  CompiledClipReport& r = compiled.report_to_fill();
  r.bound = bound;
  r.distance = options.absolute ? options.distance : options.distance * geo.extent;
  r.extent = geo.extent;
  r.max_error = m.max_error;
  r.p99_error = m.p99;
  r.max_error_time = m.max_time;
  r.max_error_joint = m.max_joint;
  r.measured_times = m.times;
  r.exact_bytes = exact_bytes(clip);
  if (m.max_error > bound) {
    return make_error(where, "the exact keys alone are " + std::to_string(m.max_error) +
                                 " from the exact clip, over the bound " + std::to_string(bound) +
                                 " (a bound below float precision)");
  }
  return compiled;
}

std::size_t raw_sample_bytes(const Clip& clip, std::size_t joint_count) {
  double rate = 0;
  for (const Track& t : clip.tracks()) {
    if (t.key_count < 2) continue;
    const float span = clip.times()[t.first_key + t.key_count - 1] - clip.times()[t.first_key];
    if (span > 0) rate = std::max(rate, (t.key_count - 1) / static_cast<double>(span));
  }
  const double samples = rate > 0 ? std::floor(clip.duration() * rate + 0.5) + 1 : 1;
  return joint_count * static_cast<std::size_t>(samples) * 10 * sizeof(float);
}

}  // namespace marrow
