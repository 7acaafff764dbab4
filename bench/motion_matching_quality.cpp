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

#include "cmu_fixtures.h"

int main() {
  using namespace marrow;
  std::string why;
  const std::vector<const Asset*> takes = test::cmu_locomotion_takes(why);
  if (takes.empty()) {
    std::fprintf(stderr, "%s\n", why.c_str());
    return 1;
  }
  const std::vector<MotionClipDesc> clips = test::cmu_locomotion_clips(takes);
  std::printf(
      "| trajectory weight | search interval (s) | foot locking | position error mean / worst "
      "(cm) | facing error mean / worst (deg) | switches per s | foot slide per contact mean / "
      "worst (cm) | contacts |\n|---|---|---|---|---|---|---|---|\n");
  for (float weight : {1.0f, 2.0f, 4.0f, 8.0f}) {
    MotionSchema schema = test::cmu_locomotion_schema();
    for (MotionFeatureDesc& f : schema.features) {
      if (f.kind == MotionFeature::kTrajectoryPosition ||
          f.kind == MotionFeature::kTrajectoryDirection)
        f.weight = weight;
    }
    Result<std::shared_ptr<const MotionDatabase>> db =
        MotionDatabase::build(takes[0]->skeleton, clips, schema);
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
