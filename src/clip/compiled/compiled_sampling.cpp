#include "marrow/clip/compiled_sampling.h"

#include <algorithm>
#include <cmath>

#include "base/job_problem.h"
#include "clip/compiled/sample_dispatch.h"
#include "marrow/clip/sampling.h"

namespace marrow {

void CompiledSamplingContext::bind(const CompiledClip& clip) {
  clip_ = &clip;
  hints_.assign(clip.keyed_track_count(), 0);
}

namespace {

detail::JobProblem find_problem(const CompiledSamplingJob& job) {
  if (job.clip == nullptr) return {"clip", "is null"};
  const std::size_t groups = soa_group_count(job.clip->joint_count());
  if (job.rest_pose.size() < groups) return {"rest_pose", "is shorter than the clip's groups"};
  if (job.output.size() < groups) return {"output", "is shorter than the clip's groups"};
  if (job.context != nullptr && job.context->clip() != job.clip) {
    return {"context", "is bound to another clip"};
  }
  return {};
}

}  // namespace

Status CompiledSamplingJob::validate() const {
  return detail::to_status("CompiledSamplingJob", find_problem(*this));
}

bool CompiledSamplingJob::run() const {
  if (find_problem(*this)) return false;
  const CompiledClipLayout& d = clip->layout();
  const float t = std::isnan(time) ? 0.0f : std::clamp(time, 0.0f, d.duration);

  compiled_detail::SampleArgs args;
  args.group_count = soa_group_count(d.joint_count);
  args.sources = d.sources.data();
  args.constants = d.constants.data();
  args.track_groups = d.track_groups.data();
  args.ranges = d.ranges.data();
  if (!d.segments.empty()) {
    // The segment, then in each of its streams the frame at or before t: guessed from the rates,
    // then settled against the start and frame times, so that at a key's own time the key itself
    // comes out.
    const std::size_t last_segment = d.segments.size() - 1;
    const float us = t * d.segment_rate;
    std::size_t s =
        us >= static_cast<float>(last_segment) ? last_segment : static_cast<std::size_t>(us);
    if (s > 0 && t < d.segments[s].start_time) --s;
    if (s < last_segment && t >= d.segments[s + 1].start_time) ++s;
    const CompiledClipData::Segment& seg = d.segments[s];
    args.track_groups = d.track_groups.data() + seg.first_track_group;
    for (std::size_t i = 0; i < seg.stream_count; ++i) {
      const CompiledClipData::Stream& st = d.streams[seg.first_stream + i];
      const float* ft = d.frame_times.data() + st.first_time;
      const std::uint32_t last = st.frame_count - 2;
      const float u = (t - ft[0]) * st.sample_rate;
      std::uint32_t f = u >= static_cast<float>(last) ? last
                        : u > 0                       ? static_cast<std::uint32_t>(u)
                                                      : 0;
      if (f > 0 && t < ft[f]) --f;
      if (f < last && t >= ft[f + 1]) ++f;
      const float alpha = std::clamp((t - ft[f]) / (ft[f + 1] - ft[f]), 0.0f, 1.0f);
      args.alpha[i] = alpha;
      compiled_detail::slerp_timing_coefficients(alpha, args.timing[i]);
      args.frame0[i] = d.frames.data() + st.first_byte + std::size_t{f} * st.frame_stride;
      args.frame1[i] = args.frame0[i] + st.frame_stride;
    }
  }
  args.rest = rest_pose.data();
  args.output = output.data();
  compiled_detail::sample_kernels().sample(args);

  // Tracks kept as exact keys overwrite their lanes.
  if (clip->keyed_clip() == nullptr) return true;
  const Clip& keyed = *clip->keyed_clip();
  const std::span<const Track> tracks = keyed.tracks();
  for (std::size_t i = 0; i < tracks.size(); ++i) {
    const Track& track = tracks[i];
    const std::span<const float> times = keyed.times().subspan(track.first_key, track.key_count);
    const std::uint32_t hint = context != nullptr ? context->hints()[i] : 0;
    const std::uint32_t k = find_key(times, t, hint);
    if (context != nullptr) context->hints()[i] = k;
    float v[4];
    evaluate_track(keyed, track, t, k, v);
    SoaTransform& out = output[track.joint / kSoaWidth];
    const std::size_t lane = track.joint % kSoaWidth;
    switch (track.target) {
      case TrackTarget::kTranslation:
        out.tx[lane] = v[0], out.ty[lane] = v[1], out.tz[lane] = v[2];
        break;
      case TrackTarget::kRotation:
        out.qx[lane] = v[0], out.qy[lane] = v[1], out.qz[lane] = v[2], out.qw[lane] = v[3];
        break;
      case TrackTarget::kScale:
        out.sx[lane] = v[0], out.sy[lane] = v[1], out.sz[lane] = v[2];
        break;
    }
  }
  return true;
}

}  // namespace marrow
