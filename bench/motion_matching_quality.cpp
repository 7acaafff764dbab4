// How well a motion-matching character follows the test course (issue 33,
// docs/motion_matching.md), as the trajectory weight, the search interval and foot locking vary:
// one Markdown table row per setting. Not a timing benchmark: every figure is a distance, an
// angle or a rate from run_motion_course on the CMU takes the tests use.
#include <cmath>
#include <cstdio>
#include <numbers>
#include <string>
#include <vector>

#include "marrow/control/motion_course.h"
#include "marrow/io/asset.h"

int main() {
  using namespace marrow;
  const char* trials[] = {"002_01", "002_02", "002_03", "007_01", "007_02", "007_03", "007_04",
                          "007_05", "007_06", "007_07", "007_08", "007_09", "007_10", "007_11",
                          "007_12", "006_01", "006_06", "006_08", "006_10", "006_11"};
  std::vector<Asset> assets;
  for (const char* trial : trials) {
    const std::string path =
        std::string(MARROW_SHARED_DIR) + "/assets/bvh/cmu_iclone/" + trial + ".bvh";
    Result<Asset> asset = load_asset(path);
    if (!asset) {
      std::fprintf(stderr, "%s\n", asset.error().message.c_str());
      return 1;
    }
    assets.push_back(std::move(*asset));
  }
  std::vector<MotionClipDesc> clips;
  for (const Asset& a : assets) clips.push_back({&a.clips[0], {{0, 0.05f}}});
  std::printf(
      "| trajectory weight | search interval (s) | foot locking | position error mean / worst "
      "(cm) | facing error mean / worst (deg) | switches per s | foot slide per contact mean / "
      "worst (cm) | contacts |\n|---|---|---|---|---|---|---|---|\n");
  for (float weight : {1.0f, 2.0f, 4.0f, 8.0f}) {
    MotionSchema schema =
        MotionSchema::locomotion("CC_Base_Hip", "CC_Base_L_Foot", "CC_Base_R_Foot");
    for (MotionFeatureDesc& f : schema.features) {
      if (f.kind == MotionFeature::kTrajectoryPosition ||
          f.kind == MotionFeature::kTrajectoryDirection)
        f.weight = weight;
    }
    Result<std::shared_ptr<const MotionDatabase>> db =
        MotionDatabase::build(assets[0].skeleton, clips, schema);
    if (!db) {
      std::fprintf(stderr, "%s\n", db.error().message.c_str());
      return 1;
    }
    for (float interval : {0.05f, 0.1f, 0.2f, 0.4f}) {
      for (bool locking : {false, true}) {
        MotionCourseOptions options;
        options.matcher.search_interval = interval;
        options.foot_locking = locking;
        Result<MotionCourseReport> r =
            run_motion_course(*db, standard_motion_course(**db, 130, 250), options);
        if (!r) {
          std::fprintf(stderr, "%s\n", r.error().message.c_str());
          return 1;
        }
        std::printf("| %g | %.2f | %s | %.1f / %.1f | %.1f / %.1f | %.2f | %.1f / %.1f | %llu |\n",
                    weight, interval, locking ? "yes" : "no", r->mean_position_error,
                    r->worst_position_error, r->mean_facing_error, r->worst_facing_error,
                    r->switches_per_second, r->mean_foot_slide, r->worst_foot_slide,
                    static_cast<unsigned long long>(r->contacts));
      }
    }
  }
  return 0;
}
