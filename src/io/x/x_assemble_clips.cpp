// The clips of a .X file: one per AnimationSet (and one for Animations outside any set), keys
// converted from ticks to seconds at the rate the file gives, the caller's, or DirectX's 4800.
#include <algorithm>
#include <cstdio>

#include "marrow/io/x_file.h"
#include "x_assembler.h"

namespace marrow::xfile {
namespace {

// Seconds in messages: three significant digits ("0.0117", "2.24").
std::string seconds(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", s);
  return text;
}

}  // namespace

void Assembler::check_ticks() {
  for (const TicksRec& t : r_.ticks) {
    if (t.value != r_.ticks.front().value) {
      warn(t.place, "AnimTicksPerSecond changes from " + std::to_string(r_.ticks.front().value) +
                        " to " + std::to_string(t.value) +
                        "; each AnimationSet uses the last value read before it");
      return;
    }
  }
}

double Assembler::ticks_per_second(const SetRec& s, RateSource& source) const {
  if (!r_.ticks.empty()) {
    source = RateSource::kFile;
    const std::size_t i = s.tps_before >= 0 ? static_cast<std::size_t>(s.tps_before) : 0;
    return r_.ticks[i].value;
  }
  if (options_.ticks_per_second > 0) {
    source = RateSource::kOption;
    return options_.ticks_per_second;
  }
  source = RateSource::kDefault;
  return kXDefaultTicksPerSecond;
}

// Exporters that wrote frame numbers as ticks and no AnimTicksPerSecond (the Irrlicht dwarf,
// MilkShape) give clips that last a few milliseconds at DirectX's 4800: say so, with both
// readings, when the last key falls before a tenth of a second.
void Assembler::warn_if_frame_numbers(const SetRec& s, const std::string& name) {
  std::uint32_t last = 0;
  for (const AnimationRec& a : s.animations) {
    for (const KeyRec& k : a.keys) {
      if (!k.ticks.empty()) last = std::max(last, k.ticks.back());
    }
  }
  const double at_default = last / kXDefaultTicksPerSecond;
  if (last == 0 || at_default >= 0.1) return;
  constexpr double kFramesPerSecond = 25;
  warn(s.place, "AnimationSet " + named(name) + ": the file gives no AnimTicksPerSecond and " +
                    "its keys end at tick " + std::to_string(last) + ": " + seconds(at_default) +
                    " s at DirectX's 4800 ticks/s, or " + seconds(last / kFramesPerSecond) +
                    " s at 25 frames/s if they are frame numbers (choose the rate with " +
                    "--ticks-per-second or LoadOptions::ticks_per_second)");
}

void Assembler::build_clip(const SetRec& s, std::size_t index) {
  const std::string name = s.name.empty() ? "animation_" + std::to_string(index) : s.name;
  ClipBuilder builder(name);
  RateSource source = RateSource::kFile;
  const double tps = ticks_per_second(s, source);
  if (source == RateSource::kDefault) warn_if_frame_numbers(s, name);
  builder.set_ticks_per_second(tps);
  channel_place_.clear();
  std::uint64_t keys = 0;
  for (const AnimationRec& a : s.animations) {
    for (const KeyRec& k : a.keys) keys += k.ticks.size() * (k.type == 4 ? 3 : 1);
  }
  // A key becomes a time and up to four values in the clip, and a copy while it is built.
  budget_.charge(keys, 2 * 5 * sizeof(float),
                 [&] { return tk_.where(s.place) + ": AnimationSet " + named(name); });
  for (const AnimationRec& a : s.animations) {
    const std::optional<JointIndex> joint = asset_.skeleton.find(a.frame);
    if (!joint) {
      tk_.fail(a.frame_place, (a.name.empty() ? "Animation" : "Animation " + named(a.name)) +
                                  " refers to frame " + named(a.frame) +
                                  ", which the file does not have");
    }
    for (const KeyRec& k : a.keys) add_key_tracks(builder, *joint, a, k, tps);
  }
  Result<Clip> clip =
      builder.build(asset_.skeleton.size(), tk_.where(s.place) + ": AnimationSet " + named(name));
  if (!clip) throw XError(clip.error().message);
  asset_.clips.push_back(std::move(clip).value());
  asset_.rate_sources.push_back(source);
}

void Assembler::add_key_tracks(ClipBuilder& builder, JointIndex joint, const AnimationRec& a,
                               const KeyRec& k, double tps) {
  const std::size_t n = k.ticks.size();
  if (n == 0) {
    warn(k.place, "AnimationKey for frame " + named(a.frame) + " has no keys; skipped");
    return;
  }
  std::vector<float> times(n);
  for (std::size_t i = 0; i < n; ++i) {
    times[i] = static_cast<float>(static_cast<double>(k.ticks[i]) / tps);
    if (i > 0 && !(times[i] > times[i - 1])) {
      tk_.fail(k.tick_places[i], "AnimationKey key " + std::to_string(i) + " at tick " +
                                     std::to_string(k.ticks[i]) +
                                     " falls on the same time in seconds as the key before it");
    }
  }
  const std::string where = tk_.where(k.place) + ": AnimationKey for frame " + named(a.frame);
  auto add = [&](TrackTarget target, const std::vector<float>& values) {
    static constexpr const char* kChannel[] = {"translation", "rotation", "scale"};
    const std::uint32_t key = (std::uint32_t{joint} << 2) | static_cast<std::uint32_t>(target);
    const auto [first, added] = channel_place_.emplace(key, k.place);
    if (!added) {
      tk_.fail(k.place, "AnimationKey for frame " + named(a.frame) + " animates its " +
                            kChannel[static_cast<int>(target)] + " a second time in this set " +
                            "(first at " + tk_.where(first->second) + ")");
    }
    const Status st =
        builder.add_track(joint, a.frame, target, Interpolation::kLinear, times, values, where);
    if (!st) throw XError(st.error().message);
  };
  switch (k.type) {
    case 0: {
      // Stored w, x, y, z, and conjugated: the exporters write the inverse of the rotation
      // their FrameTransformMatrix holds (docs/formats_x.md gives the evidence).
      std::vector<float> q(n * 4);
      for (std::size_t i = 0; i < n; ++i) {
        const float* v = &k.values[i * 4];
        const Quat r{-v[1], -v[2], -v[3], v[0]};  // the parser refused zero lengths
        q[i * 4] = r.x, q[i * 4 + 1] = r.y, q[i * 4 + 2] = r.z, q[i * 4 + 3] = r.w;
      }
      add(TrackTarget::kRotation, q);
      break;
    }
    case 1:
      add(TrackTarget::kScale, k.values);
      break;
    case 2:
      add(TrackTarget::kTranslation, k.values);
      break;
    case 4: {
      std::vector<float> t(n * 3), r(n * 4), s(n * 3);
      bool sheared = false, mirrored = false, projective = false;
      Quat previous = Quat::identity();
      for (std::size_t i = 0; i < n; ++i) {
        D3DMatrix d;
        std::copy_n(k.values.begin() + static_cast<std::ptrdiff_t>(i * 16), 16, d.begin());
        bool proj = false;
        const Decomposition dec = decompose(to_mat4(d, &proj));
        projective |= proj;
        sheared |= !dec.exact;
        const Transform& tr = dec.transform;
        mirrored |= tr.scale.x < 0;
        Quat q = tr.rotation;
        if (i > 0 && dot(q, previous) < 0) q = negate(q);  // one hemisphere along the track
        previous = q;
        t[i * 3] = tr.translation.x, t[i * 3 + 1] = tr.translation.y,
              t[i * 3 + 2] = tr.translation.z;
        r[i * 4] = q.x, r[i * 4 + 1] = q.y, r[i * 4 + 2] = q.z, r[i * 4 + 3] = q.w;
        s[i * 3] = tr.scale.x, s[i * 3 + 1] = tr.scale.y, s[i * 3 + 2] = tr.scale.z;
      }
      const std::string who = "AnimationKey (matrix) for frame " + named(a.frame);
      if (sheared) {
        warn(k.place, who +
                          ": some matrices have shear or zero scale that TRS cannot hold; "
                          "the nearest TRS is used");
      }
      if (mirrored) {
        warn(k.place, who +
                          ": some matrices mirror (negative determinant); the mirror is "
                          "held as a negative x scale, which interpolates through zero");
      }
      if (projective) warn(k.place, who + ": the projective column is ignored");
      add(TrackTarget::kTranslation, t);
      add(TrackTarget::kRotation, r);
      add(TrackTarget::kScale, s);
      break;
    }
    default:
      break;
  }
}

}  // namespace marrow::xfile
