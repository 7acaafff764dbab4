#include "marrow/ik/foot_contacts.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "marrow/clip/sampling.h"
#include "marrow/pose/local_to_model.h"

namespace marrow {
namespace {

constexpr const char* kWhere = "foot contacts";

// Closes false runs shorter than `min_samples` that have contacts on both sides, then drops
// true runs shorter than `min_samples`. `circular`: the sequence is a loop.
void debounce(std::vector<char>& flags, bool circular, std::size_t min_samples) {
  const std::size_t m = flags.size();
  if (m == 0 || min_samples <= 1) return;
  // Rotate a loop so that it starts at a run boundary: then no run crosses the end.
  std::size_t shift = 0;
  if (circular) {
    while (shift < m && flags[shift] == flags[(shift + m - 1) % m]) ++shift;
    if (shift == m) return;  // one run covers the whole loop
    std::rotate(flags.begin(), flags.begin() + static_cast<std::ptrdiff_t>(shift), flags.end());
  }
  const auto for_runs = [&](char value, auto&& action) {
    for (std::size_t i = 0; i < m;) {
      std::size_t j = i;
      while (j < m && flags[j] == flags[i]) ++j;
      if (flags[i] == value) action(i, j);
      i = j;
    }
  };
  for_runs(0, [&](std::size_t a, std::size_t b) {
    const bool bounded = circular || (a > 0 && b < m);
    if (bounded && b - a < min_samples) std::fill(flags.begin() + a, flags.begin() + b, 1);
  });
  for_runs(1, [&](std::size_t a, std::size_t b) {
    if (b - a < min_samples) std::fill(flags.begin() + a, flags.begin() + b, 0);
  });
  if (circular) {
    std::rotate(flags.begin(), flags.begin() + static_cast<std::ptrdiff_t>(m - shift), flags.end());
  }
}

Vec3 horizontal(Vec3 v, Vec3 up) {
  return v - up * dot(v, up);
}

float median(std::vector<float>& values) {
  if (values.empty()) return 0;
  const auto mid = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), mid, values.end());
  return *mid;
}

// The knee and hip of a foot: as given, else its parent and grandparent (kNoParent if absent).
std::pair<JointIndex, JointIndex> leg_of(const Skeleton& s, const FootJoints& f) {
  const JointIndex knee = f.knee != kNoParent ? f.knee : s.parent(f.foot);
  const JointIndex hip =
      f.hip != kNoParent ? f.hip : (knee == kNoParent ? kNoParent : s.parent(knee));
  return {knee, hip};
}

}  // namespace

bool FootContactTrack::in_contact(float time) const {
  for (const ContactInterval& c : intervals) {
    if (c.contains(time)) return true;
  }
  return false;
}

float FootContactTrack::contact_fraction(float duration) const {
  if (!(duration > 0)) return intervals.empty() ? 0.0f : 1.0f;
  float total = 0;
  for (const ContactInterval& c : intervals) total += c.length(duration);
  return std::min(total / duration, 1.0f);
}

namespace {

Status check_inputs(const Skeleton& skeleton, const Clip& clip, std::span<const FootJoints> feet,
                    const FootContactOptions& o) {
  if (clip.joint_count() != skeleton.size()) {
    return make_error(kWhere, "clip '" + clip.name() + "' was built for " +
                                  std::to_string(clip.joint_count()) +
                                  " joints, the skeleton has " + std::to_string(skeleton.size()));
  }
  if (!is_finite(o.up) || !(length(o.up) > 1e-12f)) {
    return make_error(kWhere, "the up axis is zero or not finite");
  }
  if (!(o.sample_rate > 0) || !std::isfinite(o.sample_rate) || !(o.height_tolerance > 0) ||
      !std::isfinite(o.height_tolerance) || !(o.speed_tolerance > 0) ||
      !std::isfinite(o.speed_tolerance) || !(o.min_duration >= 0) ||
      !std::isfinite(o.min_duration)) {
    return make_error(kWhere,
                      "sample_rate, height_tolerance and speed_tolerance must be finite "
                      "and positive, min_duration finite and not negative");
  }
  if (feet.empty()) return make_error(kWhere, "no feet given");
  return {};
}

// One track per foot with its leg's rest-pose length (the thresholds' unit); errors name the foot.
Result<std::vector<FootContactTrack>> tracks_of(const Skeleton& skeleton,
                                                std::span<const FootJoints> feet) {
  std::vector<Mat4> model(skeleton.size());
  (void)local_to_model(skeleton, skeleton.rest_pose(), model);
  std::vector<FootContactTrack> tracks;
  for (std::size_t f = 0; f < feet.size(); ++f) {
    const FootJoints& fj = feet[f];
    const std::string which = "foot " + std::to_string(f);
    const auto out_of_range = [&](JointIndex j) { return j != kNoParent && j >= skeleton.size(); };
    if (fj.foot >= skeleton.size() || out_of_range(fj.toe) || out_of_range(fj.knee) ||
        out_of_range(fj.hip)) {
      return make_error(kWhere, which + ": joint index out of range");
    }
    const auto [knee, hip] = leg_of(skeleton, fj);
    if (knee == kNoParent || hip == kNoParent) {
      return make_error(kWhere, which + " ('" + skeleton.name(fj.foot) +
                                    "'): needs a parent and a grandparent (shin and thigh), or "
                                    "its knee and hip given");
    }
    const Vec3 a = model[fj.foot].translation(), k = model[knee].translation(),
               h = model[hip].translation();
    const float leg = length(a - k) + length(k - h);
    if (!(leg > 1e-12f) || !std::isfinite(leg)) {
      return make_error(kWhere, which + " ('" + skeleton.name(fj.foot) +
                                    "'): the leg above it has zero length in the rest pose");
    }
    tracks.push_back({fj, leg, {}});
  }
  return tracks;
}

constexpr std::size_t kJointsPerFoot = 2;  // the ankle, then the toe (or the ankle again)

// Every foot joint's model-space position on the grid t_k = duration * k / (n - 1), joint-major.
struct FootSamples {
  std::size_t n = 1;
  float dt = 0;
  std::vector<Vec3> positions;  // [joint * n + k], joints foot-major
  float time(std::size_t k, float duration) const {
    return k + 1 == n ? duration : dt * static_cast<float>(k);
  }
};

FootSamples sample_feet(const Skeleton& skeleton, const Clip& clip,
                        std::span<const FootJoints> feet, float sample_rate) {
  FootSamples s;
  const float duration = clip.duration();
  s.n = duration > 0 ? static_cast<std::size_t>(std::ceil(duration * sample_rate)) + 1 : 1;
  s.dt = s.n > 1 ? duration / static_cast<float>(s.n - 1) : 0.0f;
  s.positions.resize(s.n * feet.size() * kJointsPerFoot);
  std::vector<Transform> local(skeleton.size());
  std::vector<Mat4> model(skeleton.size());
  SamplingCursor cursor(clip);
  for (std::size_t k = 0; k < s.n; ++k) {
    (void)sample(clip, skeleton.rest_pose(), s.time(k, duration), cursor, local);
    (void)local_to_model(skeleton, local, model);
    for (std::size_t f = 0; f < feet.size(); ++f) {
      const JointIndex toe = feet[f].toe == kNoParent ? feet[f].foot : feet[f].toe;
      s.positions[(f * kJointsPerFoot + 0) * s.n + k] = model[feet[f].foot].translation();
      s.positions[(f * kJointsPerFoot + 1) * s.n + k] = model[toe].translation();
    }
  }
  return s;
}

// Which joints are low at which samples, their horizontal velocities, and the ground's velocity
// (the median over the low samples), over the m distinct samples (a loop's last repeats its
// first).
struct FootMotion {
  std::size_t m = 0;
  bool circular = false;
  std::vector<char> low;         // [joint * m + k]
  std::vector<Vec3> velocities;  // [joint * m + k]
  Vec3 ground_velocity{0, 0, 0};
};

FootMotion motion_of(const FootSamples& s, std::span<const FootContactTrack> tracks, Vec3 up,
                     const FootContactOptions& o) {
  FootMotion mo;
  const std::size_t n = s.n;
  mo.circular = o.looping && n >= 3;
  const std::size_t m = mo.m = mo.circular ? n - 1 : n;
  const float dt = s.dt;
  const auto velocity = [&](const Vec3* p, std::size_t k) -> Vec3 {
    if (m < 2 || !(dt > 0)) return {0, 0, 0};
    if (mo.circular) return (p[(k + 1) % m] - p[(k + m - 1) % m]) * (0.5f / dt);
    if (k == 0) return (p[1] - p[0]) * (1.0f / dt);
    if (k + 1 == m) return (p[m - 1] - p[m - 2]) * (1.0f / dt);
    return (p[k + 1] - p[k - 1]) * (0.5f / dt);
  };
  const std::size_t joint_count = tracks.size() * kJointsPerFoot;
  mo.low.resize(joint_count * m);
  mo.velocities.resize(joint_count * m);
  std::vector<float> ground_x, ground_y, ground_z;
  for (std::size_t j = 0; j < joint_count; ++j) {
    const Vec3* p = &s.positions[j * n];
    const float leg = tracks[j / kJointsPerFoot].leg_length;
    float lowest = dot(p[0], up);
    for (std::size_t k = 1; k < m; ++k) lowest = std::min(lowest, dot(p[k], up));
    for (std::size_t k = 0; k < m; ++k) {
      mo.low[j * m + k] = dot(p[k], up) - lowest <= o.height_tolerance * leg;
      mo.velocities[j * m + k] = horizontal(velocity(p, k), up);
      if (mo.low[j * m + k]) {
        ground_x.push_back(mo.velocities[j * m + k].x);
        ground_y.push_back(mo.velocities[j * m + k].y);
        ground_z.push_back(mo.velocities[j * m + k].z);
      }
    }
  }
  if (o.estimate_ground_velocity) {
    mo.ground_velocity = horizontal({median(ground_x), median(ground_y), median(ground_z)}, up);
  }
  return mo;
}

// The runs of contact samples as intervals; with a loop, a run through the loop point is one
// interval that wraps.
void add_intervals(const std::vector<char>& contact, const FootSamples& s, const FootMotion& mo,
                   float duration, FootContactTrack& track) {
  const std::size_t m = mo.m;
  if (std::all_of(contact.begin(), contact.end(), [](char c) { return c != 0; })) {
    track.intervals.push_back({0, duration});
    return;
  }
  for (std::size_t k = 0; k < m;) {
    if (!contact[k]) {
      ++k;
      continue;
    }
    std::size_t e = k;
    while (e + 1 < m && contact[e + 1]) ++e;
    track.intervals.push_back({s.time(k, duration), s.time(e, duration)});
    k = e + 1;
  }
  if (mo.circular && contact[0] && contact[m - 1] && track.intervals.size() >= 2) {
    const ContactInterval first = track.intervals.front();
    const ContactInterval last = track.intervals.back();
    track.intervals.erase(track.intervals.begin());
    track.intervals.back() = {last.start, first.end};
  }
}

}  // namespace

Result<FootContacts> detect_foot_contacts(const Skeleton& skeleton, const Clip& clip,
                                          std::span<const FootJoints> feet,
                                          const FootContactOptions& options) {
  const FootContactOptions& o = options;
  if (Status s = check_inputs(skeleton, clip, feet, o); !s) return s.error();
  const Vec3 up = o.up * (1.0f / length(o.up));
  Result<std::vector<FootContactTrack>> tracks = tracks_of(skeleton, feet);
  if (!tracks) return tracks.error();
  FootContacts result;
  result.duration = clip.duration();
  result.feet = std::move(tracks).value();

  const FootSamples samples = sample_feet(skeleton, clip, feet, o.sample_rate);
  const FootMotion motion = motion_of(samples, result.feet, up, o);
  result.ground_velocity = motion.ground_velocity;
  const std::size_t m = motion.m;
  const std::size_t min_samples =
      samples.dt > 0 ? static_cast<std::size_t>(std::ceil(o.min_duration / samples.dt - 1e-4f)) : 0;
  std::vector<char> contact(m);
  for (std::size_t f = 0; f < feet.size(); ++f) {
    FootContactTrack& track = result.feet[f];
    const float speed_limit = o.speed_tolerance * track.leg_length;
    for (std::size_t k = 0; k < m; ++k) {
      bool on = false;
      for (std::size_t i = 0; i < kJointsPerFoot; ++i) {
        const std::size_t j = f * kJointsPerFoot + i;
        const float speed = length(motion.velocities[j * m + k] - result.ground_velocity);
        on = on || (motion.low[j * m + k] && speed <= speed_limit);
      }
      contact[k] = on;
    }
    debounce(contact, motion.circular, min_samples);
    add_intervals(contact, samples, motion, result.duration, track);
  }
  return result;
}

float contact_weight(const FootContactTrack& track, float time, float duration, float blend,
                     bool looping) {
  if (track.in_contact(time)) return 1;
  if (!(blend > 0)) return 0;
  const bool loop = looping && duration > 0;
  // Time from `from` forward to `to`, around the loop when there is one.
  const auto ahead = [&](float from, float to) {
    float d = to - from;
    if (loop && d < 0) d += duration;
    return d < 0 ? blend : d;
  };
  float nearest = blend;
  for (const ContactInterval& c : track.intervals) {
    nearest = std::min(nearest, ahead(time, c.start));  // a contact about to begin
    nearest = std::min(nearest, ahead(c.end, time));    // a contact just ended
  }
  return std::clamp(1.0f - nearest / blend, 0.0f, 1.0f);
}

}  // namespace marrow
