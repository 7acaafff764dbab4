/// @file
/// Sampling a compiled clip into a structure-of-arrays local pose, in the ozz job shape. The
/// per-frame call allocates nothing, takes no lock, makes no virtual call and throws nothing; the
/// SIMD level is chosen at run time (simd.h).
///
/// @code
///   CompiledSamplingJob job;
///   job.clip = &compiled;
///   job.rest_pose = skeleton.soa_rest_pose();
///   job.context = &context;   // optional, see below
///   job.output = pose;        // soa_group_count(skeleton.size()) groups, caller-owned
///   job.time = t;             // seconds; clamped to [0, duration]
///   job.run();
/// @endcode
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "marrow/base/error.h"
#include "marrow/clip/compiled_clip.h"
#include "marrow/math/soa_transform.h"

namespace marrow {

/// Per character and clip: where the exact-key tracks of a compiled clip were last found, so that
/// forward playback of them costs no search. Most clips have no such track, and then the context
/// holds nothing and may be omitted. A context may be shared by no two threads at once.
class CompiledSamplingContext {
 public:
  CompiledSamplingContext() = default;
  explicit CompiledSamplingContext(const CompiledClip& clip) { bind(clip); }
  /// Sizes the context for `clip` (allocates once) and rewinds it.
  void bind(const CompiledClip& clip);
  const CompiledClip* clip() const { return clip_; }
  std::span<std::uint32_t> hints() { return hints_; }
  std::size_t size_bytes() const {
    return sizeof(*this) + hints_.capacity() * sizeof(std::uint32_t);
  }

 private:
  const CompiledClip* clip_ = nullptr;
  std::vector<std::uint32_t> hints_;
};

struct CompiledSamplingJob {
  const CompiledClip* clip = nullptr;
  /// Seconds; clamped to [0, duration] (wrap it first: wrap_time in sampling.h). NaN reads as 0.
  float time = 0;
  /// The skeleton's rest pose in SoA form (Skeleton::soa_rest_pose()): channels the clip does not
  /// move are read from it.
  std::span<const SoaTransform> rest_pose{};
  /// Optional; when given it must be bound to `clip`.
  CompiledSamplingContext* context = nullptr;
  /// soa_group_count(clip->joint_count()) groups, written entirely (lanes past the last joint get
  /// the rest pose's, i.e. the identity).
  std::span<SoaTransform> output{};

  /// An error naming the first wrong input, checked in this order ("CompiledSamplingJob: output:
  /// is shorter than the clip's groups"), or ok:
  /// - `clip`: null;
  /// - `rest_pose`: shorter than soa_group_count(clip->joint_count());
  /// - `output`: shorter than soa_group_count(clip->joint_count());
  /// - `context`: given, and bound to another clip (or to none).
  Status validate() const;
  /// Returns false, writing nothing, when validate() fails.
  bool run() const;
};

}  // namespace marrow
