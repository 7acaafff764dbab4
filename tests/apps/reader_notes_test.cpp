// What a reader noticed reaches the user of every command that reads the file: on stderr, once
// per file however often the command reads it, in the words `marrow info` lists, and not with
// --quiet.
#include <gtest/gtest.h>

#include "run_process.h"
#include "shared_asset.h"

using namespace marrow_test;

namespace {

// A BVH (two joints and an End Site, two frames) saved under a .glb name: the reader's note
// says so (docs/formats.md, "Which reader"), whatever the command.
constexpr const char* kBvh =
    "HIERARCHY\nROOT hips\n{\n  OFFSET 0 0 0\n  CHANNELS 6 Xposition Yposition Zposition "
    "Zrotation Xrotation Yrotation\n  JOINT spine\n  {\n    OFFSET 0 1 0\n    CHANNELS 3 "
    "Zrotation Xrotation Yrotation\n    End Site\n    {\n      OFFSET 0 1 0\n    }\n  }\n}\n"
    "MOTION\nFrames: 2\nFrame Time: 0.5\n0 0 0 0 0 0 0 0 0\n0 1 0 0 0 0 0 0 90\n";

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST(ReaderNotes, EveryCommandThatReadsAFilePrintsItsNotesOnceAndQuietSilencesThem) {
  Scratch s("reader_notes");
  const std::string file = (s.dir / "walk.glb").string();
  std::ofstream(file) << kBvh;
  const std::string note =
      "marrow: note: " + file + ": its content is BVH text, not what the name's '.glb' says";
  // A BVH's one clip is named after the file's stem.
  const std::string script = (s.dir / "play.json").string();
  std::ofstream(script) << R"({"timeline": [{"t": 0, "play": {"clip": "walk"}}]})";
  const std::vector<std::vector<std::string>> commands = {
      {"pose", file},
      {"render", file, "--out", (s.dir / "out.png").string()},
      {"convert", file, (s.dir / "out.glb").string()},
      {"compile", file, "--out", (s.dir / "out.marrow").string()},
      // The same file as both inputs: read twice, noted once.
      {"retarget", file, file, "-o", (s.dir / "retargeted.glb").string()},
      {"autoskin", file, "--skeleton", file, "-o", (s.dir / "bound.glb").string()},
      {"check", file, file},
      {"play", file, "--script", script},
  };
  for (std::vector<std::string> args : commands) {
    SCOPED_TRACE(args[0]);
    const Outcome loud = run(s, args);
    EXPECT_EQ(count(loud.err, note), 1u) << loud.err;
    args.push_back("--quiet");
    const Outcome quiet = run(s, args);
    EXPECT_EQ(count(quiet.err, "marrow: note: " + file), 0u) << quiet.err;
    // Whether the command succeeds on this file is its own business; the note does not change
    // it.
    EXPECT_EQ(quiet.exit_code, loud.exit_code) << quiet.err;
  }
  // `info` lists them in its own output, in the same words.
  const Outcome info = run(s, {"info", file});
  EXPECT_EQ(info.exit_code, 0) << info.err;
  EXPECT_EQ(count(info.out, "note: its content is BVH text, not what the name's '.glb' says"), 1u)
      << info.out;
}

TEST(ReaderNotes, ANoteThatNamesItsPlaceNamesTheFileOnce) {
  // anim_test.x's skin weights name frames the file lacks: the reader's notes start
  // "FILE:LINE:", and the command prints them as they are rather than "FILE: FILE:LINE:".
  const std::string file = marrow::test::shared_asset_path("x/anim_test.x");
  if (!std::filesystem::exists(file)) GTEST_SKIP() << file << " absent";
  Scratch s("reader_notes_place");
  const Outcome o = run(s, {"pose", file});
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_GT(count(o.err, "marrow: note: " + file + ":26539: SkinWeights names frame 'joint3'"), 0u)
      << o.err;
  EXPECT_EQ(count(o.err, file + ": " + file), 0u) << o.err;
}
