// The progress bar: its text (count, bar, time left from the rate so far), and that it appears
// on a terminal (a pseudo-terminal made by `script`) but never in piped output.
#include <gtest/gtest.h>

#include "progress.h"
#include "run_process.h"
#include "shared_asset.h"

using namespace marrow_test;
using marrow::cli::ProgressBar;

TEST(Progress, BarShowsTheCountAndTheTimeLeftAtTheRateSoFar) {
  // 12 of 24 in 6 s: 12 more at 2 per second is 6 s.
  EXPECT_EQ(ProgressBar::format("rendering", 12, 24, "frames", 6.0, 10),
            "rendering [#####-----] 12/24 frames, 0:06 left");
  // 1 of 100 after 3 s: 99 more at 3 s each is 297 s = 4:57.
  EXPECT_EQ(ProgressBar::format("converting", 1, 100, "files", 3.0, 4),
            "converting [----] 1/100 files, 4:57 left");
  // Nothing done yet, or all done: no estimate.
  EXPECT_EQ(ProgressBar::format("x", 0, 8, "", 1.0, 4), "x [----] 0/8");
  EXPECT_EQ(ProgressBar::format("x", 8, 8, "", 1.0, 4), "x [####] 8/8");
}

TEST(Progress, RenderShowsABarOnATerminalOnly) {
  const std::string soldier = marrow::test::shared_asset_path("gltf/Soldier.glb");
  if (!fs::exists(soldier)) GTEST_SKIP() << soldier << " absent";
  Scratch s("render_progress");
  const std::vector<std::string> args = {
      "render", soldier, "--clip", "Walk",  "--size",
      "32x32",  "--fps", "10",     "--out", (s.dir / "w.gif").string()};
  const Outcome tty = run_on_terminal(s, args);
  ASSERT_EQ(tty.exit_code, 0) << tty.out;
  EXPECT_NE(tty.out.find("marrow: rendering ["), std::string::npos) << tty.out;
  EXPECT_NE(tty.out.find("frames"), std::string::npos) << tty.out;
  EXPECT_NE(tty.out.find("wrote "), std::string::npos) << tty.out;
  const Outcome piped = run(s, args);
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_EQ(piped.err, "");
  EXPECT_EQ(piped.out.find("rendering ["), std::string::npos) << piped.out;
}

TEST(Progress, JsonOnATerminalCarriesNoBar) {
  const std::string soldier = marrow::test::shared_asset_path("gltf/Soldier.glb");
  if (!fs::exists(soldier)) GTEST_SKIP() << soldier << " absent";
  Scratch s("json_progress");
  const Outcome tty = run_on_terminal(
      s, {"pose", soldier, "--clip", "Walk", "--times", "0,0.5", "--format", "json"});
  ASSERT_EQ(tty.exit_code, 0) << tty.out;
  EXPECT_EQ(tty.out.find('['), tty.out.find("[{")) << "a bar before the JSON: " << tty.out;
  EXPECT_EQ(tty.out.find('\r'), tty.out.find("\r\n")) << "a redrawn line: " << tty.out;
}

TEST(Progress, CompileShowsABarOnATerminalOnly) {
  const std::string soldier = marrow::test::shared_asset_path("gltf/Soldier.glb");
  if (!fs::exists(soldier)) GTEST_SKIP() << soldier << " absent";
  Scratch s("compile_progress");
  const std::vector<std::string> args = {"compile", soldier, "--clip", "Walk"};
  const Outcome tty = run_on_terminal(s, args);
  ASSERT_EQ(tty.exit_code, 0) << tty.out;
  EXPECT_NE(tty.out.find("marrow: compiling ["), std::string::npos) << tty.out;
  // Counted in frames, so one clip moves the bar: Walk's densest channel has 25 keys (1 s at
  // 24 frames per second, both ends).
  EXPECT_NE(tty.out.find("25/25 frames"), std::string::npos) << tty.out;
  const Outcome piped = run(s, args);
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_EQ(piped.err, "");
  EXPECT_EQ(piped.out.find("compiling ["), std::string::npos) << piped.out;
}
