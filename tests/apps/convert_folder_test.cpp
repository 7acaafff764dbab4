// `marrow convert DIR OUT_DIR --to glb|marrow`: every file marrow reads, the layout kept, bad
// files reported without stopping the rest, the exit code saying whether any failed, and the
// outputs readable again.
#include <gtest/gtest.h>

#include "marrow/io/asset.h"
#include "run_process.h"
#include "shared_asset.h"

using namespace marrow_test;

namespace {

std::string shared(const std::string& relative) {
  return marrow::test::shared_asset_path(relative);
}

}  // namespace

TEST(ConvertFolder, ConvertsEveryReadableFileKeepsTheLayoutAndReportsTheBadOne) {
  for (const char* f : {"gltf/Soldier.glb", "x/Testwuson.X", "bvh/01_01.bvh"}) {
    if (!fs::exists(shared(f))) GTEST_SKIP() << shared(f) << " absent";
  }
  Scratch s("convert_folder");
  const fs::path in = s.dir / "in", out = s.dir / "out";
  fs::create_directories(in / "x");
  fs::copy_file(shared("gltf/Soldier.glb"), in / "Soldier.glb");
  fs::copy_file(shared("x/Testwuson.X"), in / "x" / "Testwuson.X");
  fs::copy_file(shared("bvh/01_01.bvh"), in / "x" / "walk.bvh");
  std::ofstream(in / "broken.gltf") << "{\"asset\": {\"version\": \"2.0\"}, \"nodes\": [";
  std::ofstream(in / "readme.txt") << "not an asset";
  for (const std::string to : {"glb", "marrow"}) {
    fs::remove_all(out);
    const Outcome o = run(s, {"convert", in.string(), out.string(), "--to", to, "--threads", "2"});
    EXPECT_EQ(o.exit_code, 1) << o.err;  // one file failed
    EXPECT_NE(o.out.find("converted 3 of 4 files"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("1 failed"), std::string::npos) << o.out;
    EXPECT_NE(o.err.find("broken.gltf"), std::string::npos) << o.err;
    EXPECT_EQ(o.err.find("readme"), std::string::npos) << o.err;
    for (const fs::path& p :
         {out / ("Soldier." + to), out / "x" / ("Testwuson." + to), out / "x" / ("walk." + to)}) {
      ASSERT_TRUE(fs::exists(p)) << p;
      marrow::Result<marrow::Asset> again = marrow::load_asset(p.string());
      EXPECT_TRUE(again.ok()) << p << ": " << again.error().message;
    }
    EXPECT_FALSE(fs::exists(out / ("broken." + to)));
    EXPECT_FALSE(fs::exists(out / ("readme." + to)));
  }
  // Without the bad file, success: exit 0.
  fs::remove(in / "broken.gltf");
  fs::remove_all(out);
  const Outcome ok = run(s, {"convert", in.string(), out.string(), "--to", "glb"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_NE(ok.out.find("converted 3 of 3 files"), std::string::npos) << ok.out;
  // A converted asset keeps what it had: Soldier's joints and clips.
  marrow::Result<marrow::Asset> a = marrow::load_asset(shared("gltf/Soldier.glb"));
  marrow::Result<marrow::Asset> b = marrow::load_asset((out / "Soldier.glb").string());
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->skeleton.size(), b->skeleton.size());
  EXPECT_EQ(a->clips.size(), b->clips.size());
}

TEST(ConvertFolder, AFolderNeedsToAndAnEmptyOneIsAnError) {
  Scratch s("convert_folder_bad");
  const Outcome no_to = run(s, {"convert", s.dir.string(), (s.dir / "o").string()});
  EXPECT_EQ(no_to.exit_code, 1);
  EXPECT_NE(no_to.err.find("--to glb or --to marrow"), std::string::npos) << no_to.err;
  const Outcome empty = run(s, {"convert", s.dir.string(), (s.dir / "o").string(), "--to", "glb"});
  EXPECT_EQ(empty.exit_code, 1);
  EXPECT_NE(empty.err.find("no file marrow reads"), std::string::npos) << empty.err;
}

TEST(ConvertFolder, ShowsProgressOnATerminal) {
  if (!fs::exists(shared("x/Testwuson.X"))) GTEST_SKIP() << "shared assets absent";
  Scratch s("convert_progress");
  fs::create_directories(s.dir / "in");
  fs::copy_file(shared("x/Testwuson.X"), s.dir / "in" / "a.X");
  const Outcome o = run_on_terminal(
      s, {"convert", (s.dir / "in").string(), (s.dir / "out").string(), "--to", "marrow"});
  EXPECT_EQ(o.exit_code, 0) << o.out;
  EXPECT_NE(o.out.find("converting ["), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("converted 1 of 1 files"), std::string::npos) << o.out;
}
