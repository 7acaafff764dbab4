// Retargeting set up as the tests and benchmarks do it on real rigs: the source's rest pose
// replaced by one clip's first frame (a T-pose clip, so both rigs are in the same pose), joints
// paired by make_retarget_map's defaults, the Retargeter built from that.
#pragma once

#include <string_view>
#include <vector>

#include "marrow/clip/sampling.h"
#include "marrow/io/asset.h"
#include "marrow/retarget/retarget_map.h"
#include "marrow/retarget/retargeter.h"

namespace marrow::test {

inline Result<Retargeter> retargeter_posed_by(const Asset& source, std::string_view pose_clip,
                                              const Asset& target) {
  const Result<std::size_t> clip = source.require_clip(pose_clip);
  if (!clip) return clip.error();
  const Clip& pose = source.clips[*clip];
  std::vector<Transform> reference(source.skeleton.rest_pose().begin(),
                                   source.skeleton.rest_pose().end());
  SamplingCursor cursor(pose);
  (void)sample(pose, source.skeleton.rest_pose(), 0, cursor, reference);
  Result<RetargetMap> map = make_retarget_map(source.skeleton, target.skeleton, {}, reference);
  if (!map) return map.error();
  RetargetOptions options;
  options.source_reference = reference;
  return Retargeter::create(source.skeleton, target.skeleton, *map, options);
}

}  // namespace marrow::test
