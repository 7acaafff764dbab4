// The runtime alone (marrow::runtime: C++20 and its standard library, no file readers): a
// two-joint arm built in code, a clip that swings the elbow from 0 to 90 degrees about Z over
// one second, sampled at a few times and run through local-to-model. Prints the hand's
// position, which a reader can check by hand: the forearm (length 1 along X) turns about Z, so
// at angle a the hand is at (1 + cos a, sin a, 0).
//
//   swing_arm
#include <cmath>
#include <cstdio>
#include <vector>

#include "marrow/clip/clip_builder.h"
#include "marrow/clip/sampling.h"
#include "marrow/pose/local_to_model.h"
#include "marrow/skeleton/skeleton.h"

int main() {
  using namespace marrow;
  const Transform shoulder_rest{{0, 0, 0}, {}, {1, 1, 1}};
  const Transform elbow_rest{{1, 0, 0}, {}, {1, 1, 1}};
  const Transform hand_rest{{1, 0, 0}, {}, {1, 1, 1}};
  const std::vector<JointDesc> joints = {
      {"shoulder", -1, shoulder_rest}, {"elbow", 0, elbow_rest}, {"hand", 1, hand_rest}};
  Result<Skeleton> skeleton = Skeleton::build(joints, "arm");
  if (!skeleton) {
    std::fprintf(stderr, "%s\n", skeleton.error().message.c_str());
    return 1;
  }
  // Rotation keys (x, y, z, w): identity at 0 s, 90 degrees about Z at 1 s.
  const float half = std::sqrt(0.5f);
  const float times[] = {0, 1};
  const float rotations[] = {0, 0, 0, 1, 0, 0, half, half};
  ClipBuilder builder("swing");
  if (Status s = builder.add_track(1, "elbow", TrackTarget::kRotation, Interpolation::kLinear,
                                   times, rotations, "swing");
      !s) {
    std::fprintf(stderr, "%s\n", s.error().message.c_str());
    return 1;
  }
  Result<Clip> clip = builder.build(skeleton->size(), "swing");
  if (!clip) {
    std::fprintf(stderr, "%s\n", clip.error().message.c_str());
    return 1;
  }
  std::vector<Transform> local(skeleton->size());
  std::vector<Mat4> model(skeleton->size());
  SamplingCursor cursor(*clip);
  for (float t : {0.0f, 0.5f, 1.0f}) {
    sample(*clip, skeleton->rest_pose(), t, cursor, local);
    local_to_model(*skeleton, local, model);
    const Vec3 hand = model[2].translation();
    std::printf("t %.2f: hand at (%.4f, %.4f, %.4f)\n", t, hand.x, hand.y, hand.z);
  }
  return 0;
}
