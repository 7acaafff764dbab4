/// @file
/// The compiled clip: the form a game plays from. Built from an exact Clip (offline or at load) for
/// one skeleton, immutable, and shared by every character that plays it. Sampling it
/// (compiled_sampling.h) writes structure-of-arrays poses (soa_transform.h) with SIMD kernels.
///
/// Layout (docs/architecture.md has the picture):
///  - Joint channels (translation, rotation, scale) are taken 8 joints at a time, the SIMD width.
/// @code
///    A channel that does not move within the error bound is folded away: it reads the skeleton's
///    rest pose, or one constant per joint, and costs no key.
/// @endcode
///  - The channels that move are sampled uniformly in time. The clip is cut into segments of up
/// @code
///    to 64 frames of its key rate (its keys' common grid), and within a segment each group's
///    channel takes the lowest rate that keeps it within the bound: a quarter, half, one, two,
///    four or eight times the key rate (nlerp and lerp between frames must stay close to the exact
///    curve), so a still stretch costs few frames and a fast one (a mocap file's jump from its
///    T-pose) costs many only where it happens. Within a segment, one stream per rate holds the
///    frames one after the other, so forward playback streams through memory, and any time is
///    reached in O(1): no search, no per-character cursor. Frame times are the keys' own times
///    where they fall on the grid, so a key comes out exactly at its time. Between frames,
///    translations and scales are lerped and rotations nlerped; the rotations' hemisphere is fixed
///    when the clip is compiled. Values are quantized within each segment's range of each joint:
///    per group of 8 joints, 8 or 16 bits per component, floats, or each joint with the fewest
///    bits (0 to 24) that keep it within the bound, packed one after another (rotations then
///    stored without w), whichever is smallest.
/// @endcode
///  - STEP tracks, and the rare track that uniform frames cannot follow within the bound (a jump in
/// @code
///    a linear track), are kept as their exact keys and evaluated exactly.
/// @endcode
///  - Morph-weight tracks (clip.h's WeightTrack) are not compiled: they are few and cheap, and are
/// @code
///    sampled from the exact clip (sample_weights), which every holder of a compiled clip keeps.
/// @endcode
///
/// The error bound is the one the animation-compression literature uses (ACL): the largest
/// distance, in model space, between a virtual vertex placed `distance` from each joint (and the
/// joint itself) moved by the exact clip and by the compiled one, over the whole clip, at its key
/// times and between them. compile() measures it on the result and reports it; it never returns a
/// clip whose measured error is over the bound.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "marrow/base/error.h"
#include "marrow/clip/clip.h"
#include "marrow/skeleton/skeleton.h"

namespace marrow {

struct CompileOptions {
  /// The error bound and the virtual vertices' distance. Relative (the default): fractions of the
  /// skeleton's extent (the longest side of the box around its joints in the rest pose, in model
  /// space), so a character in centimetres, or under a scaled root, is treated like one in metres.
  /// The defaults are 0.1 mm and 10 cm for a character 1.8 m tall. Absolute: model-space units.
  float error = 0.1f / 1800.0f;
  float distance = 100.0f / 1800.0f;
  bool absolute = false;
  /// Quantize keys (8 or 16 bits per component, or packed bits) where the bound allows; false
  /// keeps floats.
  bool quantize = true;
  /// With quantize: give each joint of a group its own bits (Format::kPacked) where that is
  /// smaller; false keeps every group at 8 or 16 bits per component, which decode a little faster.
  bool pack = true;
  /// For an additive clip (make_additive_clip in pose/additive.h): the reference pose its deltas
  /// were taken against, one transform per joint. Channels the clip does not animate then hold no
  /// change (the identity) instead of the rest pose, and the error is measured on the reference
  /// with the deltas applied at weight 1. Empty for an ordinary clip.
  std::span<const Transform> additive_reference{};
  /// Called on the compiling thread now and then with the share of the work done, from 0 to 1
  /// (for progress bars: a long clip takes seconds). Empty: not called.
  std::function<void(float)> progress{};
};

/// What compile() did and measured.
struct CompiledClipReport {
  float bound = 0;           ///< the error bound, in model-space units
  float distance = 0;        ///< the virtual vertices' distance, in model-space units
  float extent = 0;          ///< the skeleton's extent used for relative options
  float max_error = 0;       ///< measured, model-space units; <= bound
  float p99_error = 0;       ///< 99th percentile over all virtual vertices and measured times
  float max_error_time = 0;  ///< where max_error was found
  std::uint32_t max_error_joint = 0;
  std::size_t measured_times = 0;
  std::size_t exact_bytes = 0;  ///< the exact clip's keys, values and tracks
};

/// A clip as raw float samples, the measure compression ratios are usually quoted against (ACL's
/// among them): `joint_count` joints × every sample at the clip's fastest key rate
/// (duration × rate + 1, rounded; one sample for a clip without two keys on a track) × 10 floats
/// (rotation 4, translation 3, scale 3).
std::size_t raw_sample_bytes(const Clip& clip, std::size_t joint_count);

/// The serialized form (the .marrow archive stores it as is). Field meanings are in
/// docs/formats_archive.md; CompiledClip::from_data validates all of it.
struct CompiledClipData {
  enum class Source : std::uint8_t { kRest, kConstant, kAnimated };
  /// How a track group's frames hold their values: 8 or 16 bits per component of every lane,
  /// floats, or kPacked: each lane its own number of bits (0 to 24, lane_bits), the lanes one
  /// after the other in one little-endian bit record per component, rotations without their w
  /// (rebuilt as the non-negative root; so every frame's rotation has w >= 0, and consecutive
  /// frames lie in one hemisphere, as in the other formats).
  enum class Format : std::uint8_t { kU8, kU16, kF32, kPacked };
  enum class Channel : std::uint8_t { kTranslation, kRotation, kScale };

  /// Frames at one rate within one segment: frame_count frames of frame_stride bytes from
  /// first_byte in `frames`, their times from first_time in `frame_times` (the segment's start
  /// first, its end last, increasing, each within a quarter frame of its place at sample_rate).
  struct Stream {
    float sample_rate = 0;           ///< frames per second
    std::uint32_t frame_count = 0;   ///< >= 2
    std::uint32_t frame_stride = 0;  ///< a multiple of 4
    std::uint32_t first_time = 0;
    std::uint64_t first_byte = 0;
  };
  static constexpr std::size_t kMaxStreams = 6;
  /// One animated (group, channel) in one segment: 8 lanes of 3 or 4 components per frame of one
  /// of the segment's streams.
  struct TrackGroup {
    std::uint8_t stream = 0;  ///< index among the segment's streams
    Format format = Format::kF32;
    /// Rotation groups only: between two frames the sampler moves by nlerp at a corrected
    /// fraction, alpha + k alpha (alpha - 1/2) (alpha - 1) with k = (1 - d) (2/3 + 0.19 (1 - d))
    /// and d the two frames' dot product, which follows slerp's constant speed far more closely
    /// than nlerp's plain alpha (docs/formats_archive.md). false: plain nlerp (archives before
    /// version 7).
    bool slerp_timing = false;
    std::uint32_t frame_offset = 0;  ///< bytes from a frame's start
    std::uint32_t range_offset =
        0;  ///< into ranges: min[8] then scale[8] per stored component (quantized)
    /// kPacked: each lane's bits per component, at most kMaxLaneBits (0: the lane holds its
    /// range's min); all 0 for the other formats.
    std::uint8_t lane_bits[8] = {};
    /// kPacked: each lane's first bit in a component's record, the sum of the bits of the lanes
    /// before it. from_data works it out from lane_bits (the archive does not store it).
    std::uint8_t lane_offset[8] = {};
  };
  static constexpr int kMaxLaneBits = 24;
  /// A stretch of the clip, from start_time to the next segment's (the last to the duration):
  /// its streams (stream_count from first_stream) and one track group per kAnimated source, in
  /// the sources' order (from first_track_group).
  struct Segment {
    float start_time = 0;
    std::uint32_t first_stream = 0, stream_count = 0;
    std::uint32_t first_track_group = 0;
  };
  /// One channel of one joint kept as exact keys: key_count times from keyed_times and
  /// key_count * floats_per_key values from keyed_values, in the order of `keyed`.
  struct KeyedTrack {
    std::uint32_t joint = 0;
    Channel channel = Channel::kTranslation;
    Interpolation interpolation = Interpolation::kStep;
    std::uint32_t key_count = 0;
  };

  std::string name;
  float duration = 0;
  double ticks_per_second = 0;
  std::uint32_t joint_count = 0;
  std::vector<Source> sources;   ///< 3 per group: translation, rotation, scale
  std::vector<float> constants;  ///< per kConstant source in order: components x 8 lanes
  /// Segments, when some channel is kAnimated: segment s starts near s / segment_rate seconds
  /// (within a quarter of a segment), so the sampler finds it in O(1).
  float segment_rate = 0;  ///< segments per second
  std::vector<Segment> segments;
  std::vector<Stream> streams;  ///< at most kMaxStreams per segment
  std::vector<float> frame_times;
  std::vector<TrackGroup> track_groups;  ///< segments x kAnimated sources
  std::vector<float> ranges;
  std::vector<std::uint8_t> frames;
  std::vector<KeyedTrack> keyed;
  std::vector<float> keyed_times, keyed_values;
  std::vector<ClipEvent> events;
  CompiledClipReport report;
};

/// The arrays the sampler reads: views into one block that a compiled clip owns and shares with its
/// copies (immutable, so sharing needs no lock).
struct CompiledClipLayout {
  float duration = 0;
  float segment_rate = 0;
  std::uint32_t joint_count = 0;
  std::span<const CompiledClipData::Source> sources;
  std::span<const float> constants;
  std::span<const CompiledClipData::Segment> segments;
  std::span<const CompiledClipData::Stream> streams;
  std::span<const float> frame_times;
  std::span<const CompiledClipData::TrackGroup> track_groups;
  std::span<const float> ranges;
  std::span<const std::uint8_t> frames;
};

class CompiledClip {
 public:
  CompiledClip() = default;

  /// Compiles `clip`, built for `skeleton` (same joint count). Errors: options out of range (a
  /// bound that is not finite and positive, a negative or non-finite distance), a clip of another
  /// skeleton.
  static Result<CompiledClip> compile(const Clip& clip, const Skeleton& skeleton,
                                      const CompileOptions& options = {});
  /// Validates serialized data (counts, offsets, formats, finiteness) and takes it. Errors name
  /// the part that is wrong; `where` prefixes them.
  static Result<CompiledClip> from_data(CompiledClipData data, std::string_view where);

  const std::string& name() const;
  float duration() const { return layout_.duration; }
  double ticks_per_second() const;
  std::size_t joint_count() const { return layout_.joint_count; }
  std::span<const ClipEvent> events() const;
  const CompiledClipReport& report() const;
  /// The layout the sampler reads (the exact-key tracks are in keyed_clip(), not here).
  const CompiledClipLayout& layout() const { return layout_; }
  /// Everything, exact-key tracks included: what from_data takes back (the archive stores it).
  CompiledClipData to_data() const;
  /// Bytes the clip occupies at run time: this handle, the shared block and what it holds.
  std::size_t size_bytes() const;
  /// The tracks kept as exact keys, as a clip of their own (evaluated with sampling.h); null when
  /// there are none, as for most clips.
  const Clip* keyed_clip() const;
  std::size_t keyed_track_count() const;

 private:
  struct Shared;
  CompiledClipReport& report_to_fill();  ///< compile(), while it is the clip's one owner
  /// The handle is small (the sampler's views and one pointer) and copies share everything:
  /// per-clip bytes are what docs/performance.md compares with ozz-animation's.
  CompiledClipLayout layout_;
  std::shared_ptr<Shared> shared_;  ///< written only while compile() is its one owner
};

}  // namespace marrow
