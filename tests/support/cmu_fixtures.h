// CMU motion capture on Character Creator's rig (../shared/assets/bvh/cmu_iclone), as the
// motion-matching tests, benchmarks and quality table use it: walks (subjects 2 and 7, a slow
// walk among them), a jog, a walk and dribbles with 90-degree turns, backward and sideways
// dribbles. The first frame of some of these files is a T-pose, so the first 0.05 s of each take
// is excluded from search.
#pragma once

#include <string>
#include <vector>

#include "marrow/control/motion_database.h"
#include "marrow/io/asset.h"
#include "shared_asset.h"

namespace marrow::test {

inline constexpr const char* kCmuLocomotionTrials[] = {
    "002_01", "002_02", "002_03", "007_01", "007_02", "007_03", "007_04",
    "007_05", "007_06", "007_07", "007_08", "007_09", "007_10", "007_11",
    "007_12", "006_01", "006_06", "006_08", "006_10", "006_11"};

// The takes, loaded once per program; empty with `why` set when one is absent or fails to load.
inline std::vector<const Asset*> cmu_locomotion_takes(std::string& why) {
  std::vector<const Asset*> takes;
  for (const char* trial : kCmuLocomotionTrials) {
    const Asset* take = shared_asset(std::string("bvh/cmu_iclone/") + trial + ".bvh", why);
    if (!take) return {};
    takes.push_back(take);
  }
  return takes;
}

// Each take's clip for a database, its first 0.05 s excluded.
inline std::vector<MotionClipDesc> cmu_locomotion_clips(const std::vector<const Asset*>& takes) {
  std::vector<MotionClipDesc> clips;
  for (const Asset* take : takes) clips.push_back({&take->clips[0], {{0, 0.05f}}});
  return clips;
}

// Holden's locomotion schema on the rig's hips and feet.
inline MotionSchema cmu_locomotion_schema() {
  return MotionSchema::locomotion("CC_Base_Hip", "CC_Base_L_Foot", "CC_Base_R_Foot");
}

}  // namespace marrow::test
