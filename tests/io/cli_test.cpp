// The `marrow` command line run as a process: bad files and bad arguments exit non-zero with one
// "marrow: ..." message on stderr and nothing on stdout; `pose --format json` on Soldier.glb
// gives a document with every node.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>

#include "gltf_test_util.h"

namespace fs = std::filesystem;
using namespace gltf_test;

namespace {

std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  return out + "'";
}

struct Outcome {
  int exit_code = -1;  // -1 when the process did not exit normally (a signal)
  std::string out, err;
};

Outcome run_marrow(const TempDir& dir, const std::vector<std::string>& args) {
  std::string command = quote(MARROW_BIN);
  for (const std::string& a : args) command += " " + quote(a);
  const fs::path out = dir / "stdout.txt", err = dir / "stderr.txt";
  command += " >" + quote(out.string()) + " 2>" + quote(err.string());
  const int status = std::system(command.c_str());
  Outcome run;
  if (status != -1 && WIFEXITED(status)) run.exit_code = WEXITSTATUS(status);
  const Bytes o = read_file(out), e = read_file(err);
  run.out.assign(o.begin(), o.end());
  run.err.assign(e.begin(), e.end());
  return run;
}

// A clean failure: exit code 1, "marrow: <expected...>" on stderr in one line, nothing on stdout.
void expect_failure(const Outcome& run, const std::vector<std::string>& parts) {
  EXPECT_NE(run.exit_code, 0);
  EXPECT_NE(run.exit_code, -1) << "killed by a signal; stderr: " << run.err;
  EXPECT_EQ(run.out, "");
  EXPECT_EQ(run.err.rfind("marrow: ", 0), 0u) << run.err;
  for (const std::string& part : parts) {
    EXPECT_NE(run.err.find(part), std::string::npos) << "'" << part << "' not in: " << run.err;
  }
  EXPECT_EQ(run.err.find("Sanitizer"), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find("runtime error"), std::string::npos) << run.err;
}

// A document with two nodes and one animation called "Wave".
Builder animated_document() {
  Builder b;
  b.node({{"name", "root"}, {"children", {1}}});
  b.node({{"name", "tip"}, {"translation", {0, 1, 0}}});
  const int times = b.floats({0, 1}, "SCALAR");
  const int values = b.floats({0, 0, 0, 2, 0, 0}, "VEC3");
  b.animation({{0, "translation", times, values}}, "Wave");
  return b;
}

TEST(Cli, MissingFile) {
  TempDir dir("cli_missing");
  const std::string missing = (dir / "no_such.glb").string();
  expect_failure(run_marrow(dir, {"info", missing}), {"marrow: " + missing});
  expect_failure(run_marrow(dir, {"pose", missing, "--times", "0"}), {"marrow: " + missing});
}

TEST(Cli, TruncatedFiles) {
  TempDir dir("cli_truncated");
  const Builder b = animated_document();
  const Bytes glb_bytes = b.glb_bytes();
  const std::string glb_file = (dir / "cut.glb").string();
  write_file(glb_file, Bytes(glb_bytes.begin(), glb_bytes.begin() + glb_bytes.size() / 2));
  expect_failure(run_marrow(dir, {"info", glb_file}),
                 {"marrow: " + glb_file + ": byte 8", "truncated"});
  expect_failure(run_marrow(dir, {"pose", glb_file, "--format", "json"}),
                 {"marrow: " + glb_file + ": byte 8"});

  const std::string text = b.gltf_text();
  const std::string gltf_file = (dir / "cut.gltf").string();
  write_file(gltf_file, to_bytes(text.substr(0, text.size() - 10)));
  expect_failure(run_marrow(dir, {"pose", gltf_file, "--times", "0,1"}),
                 {"marrow: " + gltf_file + ":1:", "JSON"});
}

TEST(Cli, BadDocumentAndUnknownClip) {
  TempDir dir("cli_clip");
  Builder b = animated_document();
  const std::string file = (dir / "wave.gltf").string();
  write_file(file, to_bytes(b.gltf_text()));
  const Outcome good = run_marrow(dir, {"pose", file, "--clip", "Wave", "--times", "0.5"});
  EXPECT_EQ(good.exit_code, 0) << good.err;
  EXPECT_EQ(good.err, "");
  EXPECT_NE(good.out.find("Wave"), std::string::npos) << good.out;

  expect_failure(run_marrow(dir, {"pose", file, "--clip", "Run", "--times", "0"}),
                 {"marrow: " + file + ": no clip 'Run'", "Wave"});
  expect_failure(run_marrow(dir, {"pose", file, "--clip", "1", "--times", "0"}),
                 {"marrow: " + file + ": no clip '1'"});

  b.doc["nodes"][1]["children"] = {0};
  const std::string cyclic = (dir / "cycle.gltf").string();
  write_file(cyclic, to_bytes(b.gltf_text()));
  expect_failure(run_marrow(dir, {"info", cyclic}), {"marrow: " + cyclic, "cycle"});
}

// Times are checked before the file is read: the message names the option ("marrow: --times:
// 'abc' is not a time in seconds").
TEST(Cli, BadTimes) {
  TempDir dir("cli_times");
  const std::string file = (dir / "wave.gltf").string();
  write_file(file, to_bytes(animated_document().gltf_text()));
  for (const char* times : {"abc", "0,,1", "nan", "1e50"}) {
    SCOPED_TRACE(times);
    expect_failure(run_marrow(dir, {"pose", file, "--times", times}), {"--times"});
  }
}

TEST(Cli, SoldierPoseJson) {
  const fs::path soldier = kAssets / "Soldier.glb";
  if (!fs::exists(soldier)) GTEST_SKIP() << "no " << soldier;
  TempDir dir("cli_json");
  const Outcome run =
      run_marrow(dir, {"pose", soldier.string(), "--format", "json", "--times", "0,0.25,1.5"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err, "");
  const nlohmann::json doc = nlohmann::json::parse(run.out);  // throws (fails) if not JSON
  for (const char* key : {"file", "clip", "clip_index", "duration", "nodes", "samples"}) {
    EXPECT_TRUE(doc.contains(key)) << key;
  }
  EXPECT_EQ(doc["file"], "Soldier.glb");
  EXPECT_TRUE(doc["clip"].is_string());
  EXPECT_EQ(doc["clip_index"], 0);
  EXPECT_TRUE(doc["duration"].is_number());
  EXPECT_GT(doc["duration"].get<double>(), 0.0);
  // One entry per glTF node, in node order.
  const nlohmann::json& nodes = doc["nodes"];
  ASSERT_TRUE(nodes.is_array());
  ASSERT_EQ(nodes.size(), 68u);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    EXPECT_EQ(nodes[i]["index"], i);
    EXPECT_TRUE(nodes[i]["name"].is_string() || nodes[i]["name"].is_null());
  }
  const nlohmann::json& samples = doc["samples"];
  ASSERT_TRUE(samples.is_array());
  ASSERT_EQ(samples.size(), 3u);
  const std::vector<double> times = {0, 0.25, 1.5};
  for (std::size_t s = 0; s < samples.size(); ++s) {
    EXPECT_DOUBLE_EQ(samples[s]["t"].get<double>(), times[s]);
    const nlohmann::json& world = samples[s]["world"];
    ASSERT_TRUE(world.is_array());
    ASSERT_EQ(world.size(), 68u);
    for (const nlohmann::json& m : world) {
      ASSERT_TRUE(m.is_array());
      ASSERT_EQ(m.size(), 16u);
      for (const nlohmann::json& v : m) ASSERT_TRUE(v.is_number());
      EXPECT_EQ(m[15].get<double>(), 1.0);  // affine
    }
  }
}

// A .X walk whose keys are frame numbers (0 to 56) and which gives no AnimTicksPerSecond.
const char* const kFramesAsTicks = R"(xof 0303txt 0032
Frame Hip { FrameTransformMatrix { 1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1;; } }
AnimationSet Walk { Animation { { Hip } AnimationKey { 2; 2; 0;3;0,0,0;;, 56;3;1,0,0;;; } } }
)";

TEST(Cli, InfoShowsWhereEachClipsRateCameFrom) {
  TempDir dir("rate");
  const std::string file = (dir.path() / "walk.x").string();
  write_file(dir.path() / "walk.x",
             Bytes(kFramesAsTicks, kFramesAsTicks + std::strlen(kFramesAsTicks)));
  const Outcome plain = run_marrow(dir, {"info", file});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_NE(plain.out.find("'Walk'  0.0116667 s, 1 channels on 1 joints, 2 keys, LINEAR, 4800 "
                           "ticks/s (default)"),
            std::string::npos)
      << plain.out;
  EXPECT_NE(plain.out.find("0.0117 s at DirectX's 4800 ticks/s, or 2.24 s at 25 frames/s"),
            std::string::npos)
      << plain.out;
  const Outcome option = run_marrow(dir, {"info", file, "--ticks-per-second", "25"});
  ASSERT_EQ(option.exit_code, 0) << option.err;
  EXPECT_NE(option.out.find("'Walk'  2.24 s, 1 channels on 1 joints, 2 keys, LINEAR, 25 ticks/s "
                            "(option)"),
            std::string::npos)
      << option.out;
  const Outcome pose =
      run_marrow(dir, {"pose", file, "--ticks-per-second", "25", "--times", "1.12"});
  ASSERT_EQ(pose.exit_code, 0) << pose.err;
  EXPECT_NE(pose.out.find("0.5"), std::string::npos) << pose.out;  // halfway along x at 1.12 s
  const Outcome zero = run_marrow(dir, {"info", file, "--ticks-per-second", "0"});
  EXPECT_NE(zero.exit_code, 0);
}

TEST(Cli, AnFbxThatCrashesAssimpIsAnErrorNotACrash) {
  TempDir dir("crash");
  const std::string file = std::string(MARROW_ASSIMP_TEST_DATA) + "/block_length_wraps.fbx";
  const Outcome run = run_marrow(dir, {"info", file});
  expect_failure(run, {"the FBX importer crashed on " + file + " (signal 6, SIGABRT)"});
  EXPECT_EQ(run.exit_code, 1);
}

}  // namespace
