// `marrow match` as a user meets it: its report, a course file, and bad input refused with one
// line naming what is wrong (docs/motion_matching.md).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "run_process.h"
#include "shared_asset.h"

using namespace marrow_test;

namespace {

std::vector<std::string> cmu_takes(const std::vector<std::string>& more) {
  const std::string dir = marrow::test::shared_asset_path("bvh/cmu_iclone/");
  std::vector<std::string> args = {
      "match", dir + "002_01.bvh", dir + "007_01.bvh", dir + "006_10.bvh", "--exclude-start",
      "0.05"};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

const std::vector<std::string> kFeet = {"--root",         "CC_Base_Hip",  "--left-foot",
                                        "CC_Base_L_Foot", "--right-foot", "CC_Base_R_Foot"};

}  // namespace

TEST(MatchCommand, ReportsACourseAndRefusesBadInputNamingIt) {
  if (!fs::exists(marrow::test::shared_asset_path("bvh/cmu_iclone/002_01.bvh")))
    GTEST_SKIP() << "no CMU takes in ../shared/assets/bvh/cmu_iclone";
  Scratch s("match");
  const fs::path course = s.dir / "course.json";
  std::ofstream(course) << R"({"steps": [{"duration": 2, "speed": 130, "direction": 0},
                                          {"duration": 2, "speed": 130, "direction": 90}]})";
  std::vector<std::string> args = cmu_takes(kFeet);
  args.insert(args.end(), {"--course", course.string(), "--format", "json"});
  Outcome o = run(s, args);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  // Mirrored: every clip twice, so twice the frames.
  const auto frames_of = [](const std::string& json) {
    const std::size_t at = json.find("\"frames\": ");
    return at == std::string::npos ? -1 : std::stol(json.substr(at + 10));
  };
  args.push_back("--mirror");
  const Outcome mirrored = run(s, args);
  ASSERT_EQ(mirrored.exit_code, 0) << mirrored.err;
  EXPECT_EQ(frames_of(mirrored.out), 2 * frames_of(o.out)) << mirrored.out;
  args.pop_back();
  EXPECT_NE(o.out.find("\"searchable\""), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("\"duration\": 4"), std::string::npos) << o.out;  // 2 + 2 s

  // A joint the skeleton lacks, named.
  std::vector<std::string> feet = kFeet;
  feet[3] = "LeftFoot";
  o = run(s, cmu_takes(feet));
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_EQ(o.out, "");
  EXPECT_NE(o.err.find("'LeftFoot'"), std::string::npos) << o.err;

  // A course with a negative speed: the file and the place.
  std::ofstream(course) << R"({"steps": [{"duration": 2, "speed": -1, "direction": 0}]})";
  args = cmu_takes(kFeet);
  args.insert(args.end(), {"--course", course.string()});
  o = run(s, args);
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.err.find("course.json"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("steps[0].speed"), std::string::npos) << o.err;

  // An unknown member.
  std::ofstream(course) << R"({"steps": [{"duration": 2, "speed": 1, "direction": 0, "fast": 1}]})";
  o = run(s, args);
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.err.find("steps[0].fast: unknown member"), std::string::npos) << o.err;
}

TEST(MatchCommand, ASavedDatabaseRunsTheCourseAsTheBuiltOne) {
  if (!fs::exists(marrow::test::shared_asset_path("bvh/cmu_iclone/002_01.bvh")))
    GTEST_SKIP() << "no CMU takes in ../shared/assets/bvh/cmu_iclone";
  Scratch s("match_saved");
  const std::string saved = (s.dir / "locomotion.marrow").string();
  std::vector<std::string> args = cmu_takes(kFeet);
  args.insert(args.end(), {"--format", "json", "--save", saved});
  const Outcome built = run(s, args);
  ASSERT_EQ(built.exit_code, 0) << built.err;
  ASSERT_TRUE(fs::exists(saved));
  const Outcome loaded = run(s, {"match", "--database", saved, "--format", "json"});
  ASSERT_EQ(loaded.exit_code, 0) << loaded.err;
  // The same course on the same frames: the same searches and switches, the same path. The
  // clips' rotations are normalized again on load (docs/formats_archive.md, "Exactness": at most
  // an ulp), which the feet's positions, and so their slide, may show in the last digits.
  const nlohmann::json a = nlohmann::json::parse(built.out)["course"];
  const nlohmann::json b = nlohmann::json::parse(loaded.out)["course"];
  for (const char* exact : {"searches", "switches", "contacts", "duration"})
    EXPECT_EQ(a[exact], b[exact]) << exact;
  for (const char* error : {"position_error", "facing_error_degrees", "foot_slide"}) {
    for (const char* which : {"mean", "worst"}) {
      const double x = a[error][which], y = b[error][which];
      EXPECT_NEAR(x, y, 1e-5 * std::abs(x) + 1e-9) << error << " " << which;
    }
  }
  EXPECT_NE(loaded.out.find("\"loaded\": true"), std::string::npos) << loaded.out;

  // Options that build a database do not go with a saved one; neither does nothing at all.
  Outcome o = run(s, {"match", "--database", saved, "--mirror"});
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.err.find("--database excludes --mirror"), std::string::npos) << o.err;
  o = run(s, {"match"});
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.err.find("or a saved --database"), std::string::npos) << o.err;
  // A file that is not a database, named.
  o = run(s, {"match", "--database", s.dir.string() + "/missing.marrow"});
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.err.find("missing.marrow"), std::string::npos) << o.err;
}
