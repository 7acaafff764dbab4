// CompiledClip: validation of serialized data, and its size. The compiler is compiler.cpp.
#include <cmath>
#include <cstring>
#include <memory>
#include <string>

#include "clip/compiled/layout.h"
#include "marrow/clip/clip_builder.h"
#include "marrow/clip/compiled_clip.h"

namespace marrow {
namespace {

using Data = CompiledClipData;
using compiled_detail::components;
using compiled_detail::element_bytes;
using compiled_detail::group_frame_bytes;
using compiled_detail::packed_record_bytes;
using compiled_detail::stored_components;
using compiled_detail::target_of;

bool all_finite(std::span<const float> v) {
  for (float x : v) {
    if (!std::isfinite(x)) return false;
  }
  return true;
}

// What one track group's frames decode to, read as the sampler reads them (min + q * scale for
// quantized values): every value finite, every rotation within 10 % of unit length, and no two
// consecutive rotations of a lane so far apart (dot below -1/2) that their lerp passes near zero
// before the sampler normalizes it. Returns what is wrong, or an empty string.
// Lane i's value in a kPacked component record, as load_bits reads it.
std::uint32_t packed_value(const std::uint8_t* record, const Data::TrackGroup& tg, std::size_t i) {
  std::uint32_t value = 0;
  for (unsigned b = 0; b < tg.lane_bits[i]; ++b) {
    const unsigned at = tg.lane_offset[i] + b;
    value |= static_cast<std::uint32_t>((record[at / 8] >> (at % 8)) & 1u) << b;
  }
  return value;
}

std::string check_decoded_values(const Data& d, const Data::Stream& st, const Data::TrackGroup& tg,
                                 Data::Channel channel) {
  const bool packed = tg.format == Data::Format::kPacked;
  const int comps = stored_components(channel, tg.format);
  const bool rotation = channel == Data::Channel::kRotation;
  float previous[4][kSoaWidth] = {};
  for (std::size_t f = 0; f < st.frame_count; ++f) {
    const std::uint8_t* p = d.frames.data() + st.first_byte + f * st.frame_stride + tg.frame_offset;
    float v[4][kSoaWidth];
    for (int k = 0; k < comps; ++k) {
      for (std::size_t i = 0; i < kSoaWidth; ++i) {
        const std::size_t e = static_cast<std::size_t>(k) * kSoaWidth + i;
        float x = 0;
        if (tg.format == Data::Format::kF32) {
          std::memcpy(&x, p + 4 * e, 4);
        } else if (packed) {
          const float* range = d.ranges.data() + tg.range_offset;
          const std::uint32_t q = packed_value(p + k * packed_record_bytes(tg), tg, i);
          x = std::fma(static_cast<float>(q), range[(2 * k + 1) * kSoaWidth + i],
                       range[2 * k * kSoaWidth + i]);
        } else {
          std::uint16_t q = p[e];
          if (tg.format == Data::Format::kU16) std::memcpy(&q, p + 2 * e, 2);
          const float* range = d.ranges.data() + tg.range_offset;
          x = std::fma(static_cast<float>(q), range[(2 * k + 1) * kSoaWidth + i],
                       range[2 * k * kSoaWidth + i]);
        }
        if (!std::isfinite(x))
          return "frame " + std::to_string(f) + " decodes to a value that is not finite";
        v[k][i] = x;
      }
    }
    if (!rotation) continue;
    // A packed rotation's w is rebuilt as the sampler rebuilds it (0 when x, y and z leave no
    // room, which the length check below then refuses).
    for (std::size_t i = 0; packed && i < kSoaWidth; ++i) {
      v[3][i] = std::sqrt(
          std::max(0.0f, 1 - (v[0][i] * v[0][i] + v[1][i] * v[1][i] + v[2][i] * v[2][i])));
    }
    for (std::size_t i = 0; i < kSoaWidth; ++i) {
      float norm2 = 0, dot = 0;
      for (int k = 0; k < 4; ++k) {
        norm2 += v[k][i] * v[k][i];
        dot += v[k][i] * previous[k][i];
        previous[k][i] = v[k][i];
      }
      if (!(norm2 >= 0.81f && norm2 <= 1.21f)) {
        return "frame " + std::to_string(f) + " lane " + std::to_string(i) +
               " decodes to a rotation of length " + std::to_string(std::sqrt(norm2)) +
               ", not a unit quaternion";
      }
      if (f > 0 && dot < -0.5f) {
        return "frames " + std::to_string(f - 1) + " and " + std::to_string(f) + " lane " +
               std::to_string(i) + " hold rotations in opposite hemispheres";
      }
    }
  }
  return {};
}

// The header, the channel sources and the constants. Counts the animated sources into
// `animated`. Returns what is wrong, or an empty string.
std::string check_sources_and_constants(const Data& d, std::size_t& animated) {
  if (!std::isfinite(d.duration) || d.duration < 0) return "duration is not a finite time";
  if (!std::isfinite(d.ticks_per_second) || d.ticks_per_second < 0) {
    return "ticks per second is not finite and >= 0";
  }
  if (d.joint_count == 0 || d.joint_count > kMaxJoints) {
    return "joint count " + std::to_string(d.joint_count) + " is out of range";
  }
  const std::size_t groups = soa_group_count(d.joint_count);
  if (d.sources.size() != 3 * groups) {
    return std::to_string(d.sources.size()) + " channel sources for " + std::to_string(groups) +
           " joint groups (expected 3 per group)";
  }
  std::size_t constant_floats = 0;
  animated = 0;
  for (std::size_t i = 0; i < d.sources.size(); ++i) {
    const Data::Channel c = static_cast<Data::Channel>(i % 3);
    switch (d.sources[i]) {
      case Data::Source::kRest:
        break;
      case Data::Source::kConstant:
        constant_floats += static_cast<std::size_t>(components(c)) * kSoaWidth;
        break;
      case Data::Source::kAnimated:
        ++animated;
        break;
      default:
        return "channel source " + std::to_string(i) + " has an unknown kind";
    }
  }
  if (d.constants.size() != constant_floats) {
    return std::to_string(d.constants.size()) + " constant floats, expected " +
           std::to_string(constant_floats);
  }
  if (!all_finite(d.constants)) return "a constant is not finite";
  // Constant rotations are copied to the pose as they are: they must be unit quaternions.
  for (std::size_t i = 0, at = 0; i < d.sources.size(); ++i) {
    const Data::Channel c = static_cast<Data::Channel>(i % 3);
    if (d.sources[i] != Data::Source::kConstant) continue;
    for (std::size_t lane = 0; c == Data::Channel::kRotation && lane < kSoaWidth; ++lane) {
      float norm2 = 0;
      for (std::size_t k = 0; k < 4; ++k) {
        const float x = d.constants[at + k * kSoaWidth + lane];
        norm2 += x * x;
      }
      if (!(norm2 >= 0.81f && norm2 <= 1.21f)) {
        return "channel source " + std::to_string(i) + " lane " + std::to_string(lane) +
               ": the constant rotation is not a unit quaternion";
      }
    }
    at += static_cast<std::size_t>(components(c)) * kSoaWidth;
  }
  if (!all_finite(d.ranges)) return "a quantization range is not finite";
  return {};
}

// Where check_segments has got to: the streams, frame times and frame bytes used so far.
struct SegmentCursor {
  std::size_t streams = 0, times = 0;
  std::uint64_t bytes = 0;
};

// One stream of a segment that runs to `end`: at least two frames, near-uniform times at its
// rate from the segment's start to its end, frames in order inside the frame data.
std::string check_stream(const Data& d, const Data::Segment& seg, float end, const Data::Stream& st,
                         const std::string& name, SegmentCursor& at) {
  if (st.frame_count < 2) return name + " has fewer than 2 frames";
  if (!std::isfinite(st.sample_rate) || !(st.sample_rate > 0)) return name + ": bad rate";
  if (st.frame_stride == 0 || st.frame_stride % 4 != 0) return name + ": bad frame stride";
  if (st.first_time != at.times || st.frame_count > d.frame_times.size() - at.times) {
    return name + ": frame times out of order or past the end";
  }
  const float* ft = d.frame_times.data() + st.first_time;
  const std::size_t last = st.frame_count - 1;
  if (ft[0] != seg.start_time || ft[last] != end) {
    return name + ": frame times must run from the segment's start to its end";
  }
  // Near-uniform times: the sampler guesses a frame from the rate and moves by at most one.
  for (std::size_t f = 1; f <= last; ++f) {
    const float place = (ft[f] - ft[0]) * st.sample_rate;
    const bool ok = f < last ? std::fabs(place - static_cast<float>(f)) <= 0.25f
                             : place > static_cast<float>(f) - 1 && place <= f + 0.25f;
    if (!(ft[f] > ft[f - 1]) || !ok) {
      return name + ": frame " + std::to_string(f) + " is off the stream's rate";
    }
  }
  if (st.first_byte != at.bytes ||
      std::uint64_t{st.frame_count} * st.frame_stride > d.frames.size() - at.bytes) {
    return name + ": frames out of order or past the end of the frame data";
  }
  at.times += st.frame_count;
  at.bytes += std::uint64_t{st.frame_count} * st.frame_stride;
  return {};
}

// The i-th animated channel's track group in a segment: a known format, its stream, inside its
// frame, its ranges inside the range table, and values that decode well.
std::string check_track_group(const Data& d, const Data::Segment& seg, std::size_t i,
                              const Data::TrackGroup& tg, const std::string& name) {
  // The channel of the i-th animated source.
  std::size_t source = 0;
  for (std::size_t k = 0, seen = 0; k < d.sources.size(); ++k) {
    if (d.sources[k] == Data::Source::kAnimated && seen++ == i) source = k;
  }
  const Data::Channel channel = static_cast<Data::Channel>(source % 3);
  if (tg.format != Data::Format::kU8 && tg.format != Data::Format::kU16 &&
      tg.format != Data::Format::kF32 && tg.format != Data::Format::kPacked) {
    return name + " has an unknown format";
  }
  for (std::size_t i = 0; i < kSoaWidth; ++i) {
    const unsigned most = tg.format == Data::Format::kPacked ? Data::kMaxLaneBits : 0;
    if (tg.lane_bits[i] > most) {
      return name + " lane " + std::to_string(i) + " has " + std::to_string(tg.lane_bits[i]) +
             " bits (at most " + std::to_string(most) + " in its format)";
    }
  }
  if (tg.slerp_timing && channel != Data::Channel::kRotation) {
    return name + " asks for slerp timing but holds no rotations";
  }
  if (tg.stream >= seg.stream_count) return name + " names a stream that does not exist";
  const Data::Stream& st = d.streams[seg.first_stream + tg.stream];
  const std::size_t group_bytes = group_frame_bytes(tg, channel);
  if (tg.frame_offset % element_bytes(tg.format) != 0 ||
      std::size_t{tg.frame_offset} + group_bytes > st.frame_stride) {
    return name + " lies outside its frame";
  }
  if (tg.format != Data::Format::kF32 &&
      std::size_t{tg.range_offset} + 2 * stored_components(channel, tg.format) * kSoaWidth >
          d.ranges.size()) {
    return name + " has its ranges outside the range table";
  }
  if (const std::string bad = check_decoded_values(d, st, tg, channel); !bad.empty()) {
    return name + ": " + bad;
  }
  return {};
}

// Segments: from 0 to the duration, each near its place at segment_rate; streams and track
// groups in order, frames inside the byte array, and no frame data left over.
std::string check_segments(const Data& d, std::size_t animated) {
  if ((animated == 0) != d.segments.empty()) {
    return "segments and animated channels must come together";
  }
  if (d.track_groups.size() != d.segments.size() * animated) {
    return std::to_string(d.track_groups.size()) + " track groups, expected " +
           std::to_string(animated) + " per segment";
  }
  if (!d.segments.empty() &&
      (!std::isfinite(d.segment_rate) || !(d.segment_rate > 0) || !(d.duration > 0))) {
    return "bad segment rate";
  }
  SegmentCursor at;
  for (std::size_t s = 0; s < d.segments.size(); ++s) {
    const Data::Segment& seg = d.segments[s];
    const std::string where_s = "segment " + std::to_string(s);
    const float end = s + 1 < d.segments.size() ? d.segments[s + 1].start_time : d.duration;
    if ((s == 0 && seg.start_time != 0) || !(end > seg.start_time) ||
        !(std::fabs(seg.start_time * d.segment_rate - static_cast<float>(s)) <= 0.25f)) {
      return where_s + " does not start where its index puts it";
    }
    if (seg.first_stream != at.streams || seg.stream_count == 0 ||
        seg.stream_count > Data::kMaxStreams || seg.stream_count > d.streams.size() - at.streams ||
        seg.first_track_group != s * animated) {
      return where_s + ": streams or track groups out of order";
    }
    for (std::size_t i = 0; i < seg.stream_count; ++i) {
      const std::string bad = check_stream(d, seg, end, d.streams[at.streams + i],
                                           where_s + " stream " + std::to_string(i), at);
      if (!bad.empty()) return bad;
    }
    for (std::size_t i = 0; i < animated; ++i) {
      const std::string bad = check_track_group(d, seg, i, d.track_groups[s * animated + i],
                                                where_s + " track group " + std::to_string(i));
      if (!bad.empty()) return bad;
    }
    at.streams += seg.stream_count;
  }
  if (at.streams != d.streams.size() || at.times != d.frame_times.size() ||
      at.bytes != d.frames.size()) {
    return "frame data that no segment uses";
  }
  return {};
}

// The exact-key tracks as a clip of their own, through the builder's checks.
Result<Clip> keyed_clip_of(const Data& d, std::string_view where) {
  const auto fail = [&](const std::string& what) -> Result<Clip> {
    return make_error(where, "compiled clip '" + d.name + "': " + what);
  };
  ClipBuilder keyed(d.name);
  std::size_t key = 0, value = 0;
  for (std::size_t i = 0; i < d.keyed.size(); ++i) {
    const Data::KeyedTrack& k = d.keyed[i];
    const TrackTarget target = target_of(k.channel);
    if (k.joint >= d.joint_count) return fail("exact track " + std::to_string(i) + ": bad joint");
    if (static_cast<unsigned>(k.channel) > 2 ||
        static_cast<unsigned>(k.interpolation) >
            static_cast<unsigned>(Interpolation::kCubicSpline)) {
      return fail("exact track " + std::to_string(i) + ": unknown channel or interpolation");
    }
    const std::size_t values = std::size_t{k.key_count} * floats_per_key(target, k.interpolation);
    if (k.key_count == 0 || k.key_count > d.keyed_times.size() - key ||
        values > d.keyed_values.size() - value) {
      return fail("exact track " + std::to_string(i) + " runs past the key arrays");
    }
    const Status st = keyed.add_track(
        static_cast<JointIndex>(k.joint), "", target, k.interpolation,
        std::span<const float>(d.keyed_times).subspan(key, k.key_count),
        std::span<const float>(d.keyed_values).subspan(value, values),
        std::string(where) + ": compiled clip '" + d.name + "' exact track " + std::to_string(i));
    if (!st) return st.error();
    key += k.key_count;
    value += values;
  }
  if (key != d.keyed_times.size() || value != d.keyed_values.size()) {
    return fail("exact-key arrays hold keys no track uses");
  }
  return keyed.build(d.joint_count, where);
}

}  // namespace

// What every copy of a compiled clip shares: the block its layout views, and what the sampler does
// not read every frame.
struct CompiledClip::Shared {
  std::unique_ptr<std::byte[]> block;
  std::size_t block_bytes = 0;
  std::unique_ptr<const Clip> keyed_clip;  // null when no track is kept as exact keys
  std::string name;
  double ticks_per_second = 0;
  std::vector<ClipEvent> events;
  CompiledClipReport report;
};

Result<CompiledClip> CompiledClip::from_data(CompiledClipData d, std::string_view where) {
  const auto fail = [&](const std::string& what) -> Result<CompiledClip> {
    return make_error(where, "compiled clip '" + d.name + "': " + what);
  };
  // Lane offsets follow from the bits (checked below, at most 24 each, so the sums fit).
  for (Data::TrackGroup& tg : d.track_groups) compiled_detail::set_lane_offsets(tg);
  std::size_t animated = 0;
  if (const std::string bad = check_sources_and_constants(d, animated); !bad.empty()) {
    return fail(bad);
  }
  if (const std::string bad = check_segments(d, animated); !bad.empty()) return fail(bad);
  Result<Clip> keyed_clip = keyed_clip_of(d, where);
  if (!keyed_clip) return keyed_clip.error();
  for (const ClipEvent& e : d.events) {
    if (!std::isfinite(e.time) || e.time < 0) return fail("event '" + e.name + "' has a bad time");
  }
  // One block holds every array the sampler reads, each at a 16-byte boundary.
  std::size_t block_bytes = 0;
  const auto place = [&block_bytes](std::size_t bytes) {
    const std::size_t at = block_bytes;
    block_bytes += (bytes + 15) & ~std::size_t{15};
    return at;
  };
  const std::size_t at_sources = place(d.sources.size() * sizeof(Data::Source));
  const std::size_t at_constants = place(d.constants.size() * sizeof(float));
  const std::size_t at_segments = place(d.segments.size() * sizeof(Data::Segment));
  const std::size_t at_streams = place(d.streams.size() * sizeof(Data::Stream));
  const std::size_t at_frame_times = place(d.frame_times.size() * sizeof(float));
  const std::size_t at_track_groups = place(d.track_groups.size() * sizeof(Data::TrackGroup));
  const std::size_t at_ranges = place(d.ranges.size() * sizeof(float));
  // The sampler's bit loads may read a few bytes past the last frame: they stay in the block.
  const std::size_t at_frames = place(d.frames.size() + compiled_detail::kFrameReadSlack);

  auto shared = std::make_shared<Shared>();
  // new std::byte[n] leaves the bytes uninitialized, as make_unique_for_overwrite would (which
  // the WebAssembly build's libc++ lacks); every byte is written below.
  shared->block.reset(new std::byte[block_bytes]);
  shared->block_bytes = block_bytes;
  std::byte* block = shared->block.get();
  const auto copy = [block]<typename T>(const std::vector<T>& from, std::size_t at) {
    if (!from.empty()) std::memcpy(block + at, from.data(), from.size() * sizeof(T));
    return std::span<const T>(reinterpret_cast<const T*>(block + at), from.size());
  };
  CompiledClip clip;
  CompiledClipLayout& l = clip.layout_;
  l.duration = d.duration;
  l.segment_rate = d.segment_rate;
  l.joint_count = d.joint_count;
  l.sources = copy(d.sources, at_sources);
  l.constants = copy(d.constants, at_constants);
  l.segments = copy(d.segments, at_segments);
  l.streams = copy(d.streams, at_streams);
  l.frame_times = copy(d.frame_times, at_frame_times);
  l.track_groups = copy(d.track_groups, at_track_groups);
  l.ranges = copy(d.ranges, at_ranges);
  l.frames = copy(d.frames, at_frames);
  std::memset(block + at_frames + d.frames.size(), 0, compiled_detail::kFrameReadSlack);
  if (!keyed_clip->tracks().empty()) {
    shared->keyed_clip = std::make_unique<const Clip>(std::move(keyed_clip).value());
  }
  shared->name = std::move(d.name);
  shared->ticks_per_second = d.ticks_per_second;
  shared->events = std::move(d.events);
  shared->report = d.report;
  clip.shared_ = std::move(shared);
  return clip;
}

namespace {
// The bytes a string holds outside itself: none when short enough to live inside.
std::size_t heap_bytes(const std::string& s) {
  const auto* inside = reinterpret_cast<const char*>(&s);
  const bool in_place = s.data() >= inside && s.data() < inside + sizeof(std::string);
  return in_place ? 0 : s.capacity() + 1;
}

// What a default-constructed clip answers.
const std::string& no_name() {
  static const std::string empty;
  return empty;
}
}  // namespace

const std::string& CompiledClip::name() const {
  return shared_ ? shared_->name : no_name();
}

double CompiledClip::ticks_per_second() const {
  return shared_ ? shared_->ticks_per_second : 0;
}

std::span<const ClipEvent> CompiledClip::events() const {
  return shared_ ? std::span<const ClipEvent>(shared_->events) : std::span<const ClipEvent>();
}

const CompiledClipReport& CompiledClip::report() const {
  static const CompiledClipReport none;
  return shared_ ? shared_->report : none;
}

CompiledClipReport& CompiledClip::report_to_fill() {
  return shared_->report;
}

const Clip* CompiledClip::keyed_clip() const {
  return shared_ ? shared_->keyed_clip.get() : nullptr;
}

std::size_t CompiledClip::keyed_track_count() const {
  const Clip* k = keyed_clip();
  return k != nullptr ? k->tracks().size() : 0;
}

CompiledClipData CompiledClip::to_data() const {
  const CompiledClipLayout& l = layout_;
  CompiledClipData d;
  d.name = name();
  d.duration = l.duration;
  d.ticks_per_second = ticks_per_second();
  d.joint_count = l.joint_count;
  d.sources.assign(l.sources.begin(), l.sources.end());
  d.constants.assign(l.constants.begin(), l.constants.end());
  d.segment_rate = l.segment_rate;
  d.segments.assign(l.segments.begin(), l.segments.end());
  d.streams.assign(l.streams.begin(), l.streams.end());
  d.frame_times.assign(l.frame_times.begin(), l.frame_times.end());
  d.track_groups.assign(l.track_groups.begin(), l.track_groups.end());
  d.ranges.assign(l.ranges.begin(), l.ranges.end());
  d.frames.assign(l.frames.begin(), l.frames.end());
  d.events.assign(events().begin(), events().end());
  d.report = report();
  if (const Clip* k = keyed_clip()) {
    for (const Track& track : k->tracks()) {
      const auto channel = static_cast<Data::Channel>(static_cast<unsigned>(track.target));
      d.keyed.push_back({track.joint, channel, track.interpolation, track.key_count});
      const auto times = k->times().subspan(track.first_key, track.key_count);
      const auto values = k->values().subspan(
          track.first_value,
          std::size_t{track.key_count} * floats_per_key(track.target, track.interpolation));
      d.keyed_times.insert(d.keyed_times.end(), times.begin(), times.end());
      d.keyed_values.insert(d.keyed_values.end(), values.begin(), values.end());
    }
  }
  return d;
}

std::size_t CompiledClip::size_bytes() const {
  std::size_t bytes = sizeof(*this);
  if (!shared_) return bytes;
  const Shared& s = *shared_;
  // The shared object with make_shared's control block (two counts and a vtable pointer).
  bytes += sizeof(Shared) + 16 + s.block_bytes;
  bytes += heap_bytes(s.name);
  if (const Clip* k = s.keyed_clip.get()) {
    bytes += sizeof(Clip) + k->tracks().size() * sizeof(Track) +
             (k->times().size() + k->values().size()) * sizeof(float);
  }
  for (const ClipEvent& e : s.events) bytes += sizeof(ClipEvent) + heap_bytes(e.name);
  return bytes;
}

}  // namespace marrow
