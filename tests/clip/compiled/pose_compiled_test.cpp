// `marrow pose --compiled` run as a process: its poses stay within the bound of the exact ones
// (`marrow pose` without the flag, which stays the default), measured here from the printed
// matrices; it says the bound and where the compiled clip came from; misuse is a clear error.
// `marrow play` plays an archive's compiled clips.
#include <fstream>

#include "compile_test_util.h"
#include "marrow/io/pose_dump.h"

namespace compile_test {
namespace {

using namespace marrow;

// Times at and between the keys of the clip's tracks (at most 60 of each track, spread over it),
// past both ends (wrapped), and evenly in between.
std::string times_for(const Clip& clip) {
  std::vector<float> times{0.0f, clip.duration(), -0.3f, clip.duration() + 0.7f};
  for (const Track& track : clip.tracks()) {
    const auto keys = clip.times().subspan(track.first_key, track.key_count);
    const std::size_t step = std::max<std::size_t>(1, keys.size() / 60);
    for (std::size_t k = 0; k < keys.size(); k += step) {
      times.push_back(keys[k]);
      if (k + 1 < keys.size()) times.push_back(0.5f * (keys[k] + keys[k + 1]));
    }
  }
  for (int i = 1; i < 40; ++i) times.push_back(clip.duration() * static_cast<float>(i) / 40);
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  std::string out;
  for (float t : times) out += (out.empty() ? "" : ",") + std::to_string(t);
  return out;
}

// The exact and the compiled poses of `clip` at the same times, with each wrap mode; the
// largest virtual-vertex distance between them, computed here, must be within the bound.
void expect_within_bound(const std::string& file, const std::string& clip_name,
                         std::vector<std::string> wraps = {"clamp", "loop", "pingpong"}) {
  Scratch s("pose_compiled");
  const Asset a = load(file);
  const std::size_t clip = *a.find_clip(clip_name);
  const float bound = relative_bound(a.skeleton, 0.1f);
  const std::vector<float> local = local_distances(a.skeleton, relative_bound(a.skeleton, 100));
  const std::vector<JointIndex> order = joints_in_source_order(a);
  for (const std::string& wrap : wraps) {
    const std::vector<std::string> args = {
        "pose",   file, "--clip",   clip_name, "--times", times_for(a.clips[clip]),
        "--wrap", wrap, "--format", "json"};
    const nlohmann::json exact = parse(run(s, args));
    std::vector<std::string> compiled_args = args;
    compiled_args.push_back("--compiled");
    const nlohmann::json compiled = parse(run(s, compiled_args));
    ASSERT_FALSE(exact.contains("compiled"));  // exact is the default
    ASSERT_TRUE(compiled.contains("compiled"));
    EXPECT_NEAR(compiled["compiled"]["error_bound"].get<float>(), bound, 1e-9f);
    EXPECT_EQ(compiled["compiled"]["origin"], "compiled now");
    ASSERT_EQ(exact["samples"].size(), compiled["samples"].size());
    float worst = 0;
    for (std::size_t i = 0; i < exact["samples"].size(); ++i) {
      const nlohmann::json &e = exact["samples"][i]["world"], &c = compiled["samples"][i]["world"];
      ASSERT_EQ(e.size(), order.size());
      for (std::size_t n = 0; n < order.size(); ++n) {
        worst = std::max(worst,
                         virtual_vertex_error(matrix_of(e[n]), matrix_of(c[n]), local[order[n]]));
      }
      // Morph weights come from the exact clip either way.
      if (exact["samples"][i].contains("weights")) {
        EXPECT_EQ(exact["samples"][i]["weights"], compiled["samples"][i]["weights"]);
      }
    }
    EXPECT_LE(worst, bound) << file << " " << clip_name << " " << wrap;
    // What the command reports for these times is what the printed poses show.
    EXPECT_NEAR(compiled["compiled"]["max_error"].get<float>(), worst, 0.02f * bound + 1e-7f)
        << wrap;
  }
}

TEST(PoseCompiled, StaysWithinTheBoundOfTheExactPosesOnTheFixture) {
  expect_within_bound(fixture(), "wave");
}

// Soldier's model space is 0.2 units tall (a 0.01 scale on its armature): the bound follows.
TEST(PoseCompiled, StaysWithinTheBoundOfTheExactPosesOnSoldier) {
  const std::string soldier = shared_asset("gltf/Soldier.glb");
  COMPILE_REQUIRE_FILE(soldier);
  expect_within_bound(soldier, "Walk", {"loop"});  // the fixture covers every wrap mode
}

TEST(PoseCompiled, TheTextSaysTheBound) {
  Scratch s("pose_compiled_text");
  const Outcome o = run(s, {"pose", fixture(), "--compiled", "--times", "0.3"});
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("compiled clip (compiled now), error bound 0.1 mm at 1.8 m"),
            std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("measured against the exact clip"), std::string::npos) << o.out;
  const Outcome exact = run(s, {"pose", fixture(), "--times", "0.3"});
  EXPECT_EQ(exact.out.find("compiled"), std::string::npos) << exact.out;
}

// An archive's compiled clip is played as stored; a bound given on the command line compiles
// anew.
TEST(PoseCompiled, PlaysTheCompiledClipAnArchiveHolds) {
  Scratch s("pose_compiled_stored");
  const std::string archive = (s.dir / "a.marrow").string();
  ASSERT_EQ(run(s, {"compile", fixture(), "--error", "2", "--out", archive}).exit_code, 0);
  const Asset a = load(fixture());
  const nlohmann::json stored =
      parse(run(s, {"pose", archive, "--compiled", "--times", "0.4", "--format", "json"}));
  EXPECT_EQ(stored["compiled"]["origin"], "stored in the archive");
  EXPECT_NEAR(stored["compiled"]["error_bound"].get<float>(), relative_bound(a.skeleton, 2), 1e-8f);
  const nlohmann::json fresh = parse(run(
      s, {"pose", archive, "--compiled", "--error", "0.1", "--times", "0.4", "--format", "json"}));
  EXPECT_EQ(fresh["compiled"]["origin"], "compiled now");
  EXPECT_NEAR(fresh["compiled"]["error_bound"].get<float>(), relative_bound(a.skeleton, 0.1f),
              1e-9f);
}

TEST(PoseCompiled, MisuseIsAClearError) {
  Scratch s("pose_compiled_misuse");
  Outcome o = run(s, {"pose", fixture(), "--error", "1"});
  EXPECT_NE(o.exit_code, 0);
  EXPECT_NE(o.err.find("--error requires --compiled"), std::string::npos) << o.err;
  o = run(s, {"pose", fixture(), "--compiled", "--error=0"});
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.err.find("--error: the error bound must be a finite number above 0"),
            std::string::npos)
      << o.err;
  o = run(s, {"pose", fixture(), "--compiled", "--layer", "wave:weight=0.5"});
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.err.find("--compiled plays one clip; it does not combine with --layer"),
            std::string::npos)
      << o.err;
  EXPECT_EQ(o.out, "");
}

// `marrow play` plays the compiled clips an archive holds instead of compiling its own: with
// clips compiled under 3 mm, its poses leave the 0.1 mm it would compile under by itself, and
// stay within the 3 mm (against the same script with "compile": false, the exact clips).
TEST(PlayCompiled, PlaysTheCompiledClipsAnArchiveHolds) {
  const std::string soldier = shared_asset("gltf/Soldier.glb");
  COMPILE_REQUIRE_FILE(soldier);
  Scratch s("play_compiled");
  const std::string archive = (s.dir / "soldier.marrow").string();
  ASSERT_EQ(
      run(s, {"compile", soldier, "--clip", "Walk", "--error", "3", "--out", archive}).exit_code,
      0);
  const Asset a = load(soldier);
  const auto play = [&](bool compile) {
    const std::string script = (s.dir / (compile ? "compiled.json" : "exact.json")).string();
    std::ofstream(script) << R"({"fps": 30, "duration": 1, "compile": )"
                          << (compile ? "true" : "false")
                          << R"(, "timeline": [{"t": 0, "play": "Walk"}]})";
    return parse(run(s, {"play", archive, "--script", script, "--format", "json", "--pose"}));
  };
  const nlohmann::json compiled = play(true), exact = play(false);
  const std::vector<float> local = local_distances(a.skeleton, relative_bound(a.skeleton, 100));
  const std::vector<JointIndex> order = joints_in_source_order(a);
  ASSERT_EQ(compiled["frames"].size(), exact["frames"].size());
  float worst = 0;
  for (std::size_t f = 0; f < exact["frames"].size(); ++f) {
    const nlohmann::json &e = exact["frames"][f]["world"], &c = compiled["frames"][f]["world"];
    ASSERT_EQ(e.size(), order.size());
    for (std::size_t n = 0; n < order.size(); ++n) {
      worst =
          std::max(worst, virtual_vertex_error(matrix_of(e[n]), matrix_of(c[n]), local[order[n]]));
    }
  }
  EXPECT_GT(worst, relative_bound(a.skeleton, 0.1f));
  EXPECT_LE(worst, relative_bound(a.skeleton, 3.0f));
}

}  // namespace
}  // namespace compile_test
