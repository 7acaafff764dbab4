// `marrow check`, `marrow convert` and `marrow pose --clip-file` run as processes.
#include "formats_test_util.h"
#include "marrow/clip/sampling.h"
#include "marrow/io/archive.h"

namespace formats_test {
namespace {

// A skeleton file and a clip file in glTF, made by hand: the clip animates "hip" (which the
// skeleton has) and "tail" (which it lacks); the skeleton's "root" and "head" are not animated.
const char* kSkeleton = R"({"asset": {"version": "2.0"},
  "nodes": [{"name": "root", "children": [1, 2]}, {"name": "hip", "translation": [0, 1, 0]},
            {"name": "head", "translation": [0, 2, 0]}]})";

std::string clip_document(bool with_tail) {
  // times [0, 1], hip translation (0,1,0) -> (4,1,0), tail translation (0,0,0) -> (0,0,1)
  const std::string data =
      "data:application/octet-stream;base64,"
      // 2 floats: 0, 1 | 6 floats hip | 6 floats tail
      "AAAAAAAAgD8AAAAAAACAPwAAAAAAAIBAAACAPwAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAgD8=";
  std::string doc = R"({"asset": {"version": "2.0"},
  "nodes": [{"name": "hip", "children": [1]}, {"name": "tail"}],
  "buffers": [{"byteLength": 56, "uri": ")" +
                    data + R"("}],
  "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 8},
                  {"buffer": 0, "byteOffset": 8, "byteLength": 24},
                  {"buffer": 0, "byteOffset": 32, "byteLength": 24}],
  "accessors": [{"bufferView": 0, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0], "max": [1]},
                {"bufferView": 1, "componentType": 5126, "count": 2, "type": "VEC3"},
                {"bufferView": 2, "componentType": 5126, "count": 2, "type": "VEC3"}],
  "animations": [{"name": "Wag", "samplers": [{"input": 0, "output": 1}, {"input": 0, "output": 2}],
                  "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}})";
  if (with_tail) doc += R"(, {"sampler": 1, "target": {"node": 1, "path": "translation"}})";
  return doc + "]}]}";
}

TEST(CheckCommand, ReportsMissingAndUnanimatedJoints) {
  TempDir dir("check");
  write_text(dir / "skeleton.gltf", kSkeleton);
  write_text(dir / "clip.gltf", clip_document(true));
  const Outcome o =
      run_marrow(dir, {"check", (dir / "skeleton.gltf").string(), (dir / "clip.gltf").string()});
  EXPECT_EQ(o.exit_code, 2) << o.out << o.err;
  EXPECT_NE(o.out.find("clip 'Wag'"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("1 of 2 tracks bind: NOT compatible"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("clip joints the skeleton lacks: 1\n    tail\n"), std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("does not animate (rest pose): 2\n    root\n    head\n"), std::string::npos)
      << o.out;
  EXPECT_EQ(o.err, "");
}

TEST(CheckCommand, CompatibleExitsZeroAndStrictCountsUnanimated) {
  TempDir dir("check_ok");
  write_text(dir / "skeleton.gltf", kSkeleton);
  write_text(dir / "clip.gltf", clip_document(false));
  const std::string s = (dir / "skeleton.gltf").string(), c = (dir / "clip.gltf").string();
  Outcome o = run_marrow(dir, {"check", s, c, "--clip", "Wag"});
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("1 of 1 tracks bind: compatible"), std::string::npos) << o.out;
  o = run_marrow(dir, {"check", s, c, "--strict"});
  EXPECT_EQ(o.exit_code, 2) << o.out;
  o = run_marrow(dir, {"check", s, c, "--clip", "Nope"});
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_EQ(o.out, "");
  EXPECT_NE(o.err.find("no clip 'Nope'"), std::string::npos) << o.err;
  o = run_marrow(dir, {"check", s, (dir / "missing.x").string()});
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.err.find("missing.x"), std::string::npos) << o.err;
}

TEST(CheckCommand, TestwusonClipsOnTheirOwnSkeleton) {
  const std::string x = shared_asset("x/Testwuson.X");
  MARROW_REQUIRE_FILE(x);
  TempDir dir("check_x");
  const Outcome o = run_marrow(dir, {"check", x, x});
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  for (const char* clip : {"Wuson_Bind", "Wuson_Run", "Wuson_Walk"})
    EXPECT_NE(o.out.find(std::string("clip '") + clip + "'"), std::string::npos) << o.out;
}

TEST(PoseCommand, PlaysAClipFromAnotherFileByJointName) {
  TempDir dir("pose_other");
  write_text(dir / "skeleton.gltf", kSkeleton);
  write_text(dir / "clip.gltf", clip_document(true));
  const Outcome o = run_marrow(
      dir, {"pose", (dir / "skeleton.gltf").string(), "--clip-file", (dir / "clip.gltf").string(),
            "--clip", "Wag", "--times", "0.5", "--format", "json"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.err.find("tail"), std::string::npos) << o.err;  // the dropped track is named
  const nlohmann::json j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["clip"], "Wag");
  // hip at t = 0.5: halfway from (0,1,0) to (4,1,0) under an identity root; head keeps (0,2,0).
  const auto& world = j["samples"][0]["world"];
  EXPECT_FLOAT_EQ(world[1][12].get<float>(), 2.f);
  EXPECT_FLOAT_EQ(world[1][13].get<float>(), 1.f);
  EXPECT_FLOAT_EQ(world[2][12].get<float>(), 0.f);
  EXPECT_FLOAT_EQ(world[2][13].get<float>(), 2.f);
}

TEST(ConvertCommand, EveryOutputFormatAndNoPartialFiles) {
  TempDir dir("convert");
  write_text(dir / "clip.gltf", clip_document(true));
  const std::string in = (dir / "clip.gltf").string();
  for (const char* out : {"c.glb", "c.marrow", "c2.gltf"}) {
    const Outcome o = run_marrow(dir, {"convert", in, (dir / out).string()});
    EXPECT_EQ(o.exit_code, 0) << o.err;
    EXPECT_TRUE(fs::exists(dir / out));
  }
  EXPECT_TRUE(fs::exists(dir / "c2.bin"));
  // .marrow -> .glb, and the pose survives.
  Outcome o =
      run_marrow(dir, {"convert", (dir / "c.marrow").string(), (dir / "back.glb").string()});
  EXPECT_EQ(o.exit_code, 0) << o.err;
  const Outcome a = run_marrow(dir, {"pose", in, "--times", "0.25,0.75", "--format", "json"});
  const Outcome b = run_marrow(
      dir, {"pose", (dir / "back.glb").string(), "--times", "0.25,0.75", "--format", "json"});
  ASSERT_EQ(a.exit_code, 0);
  ASSERT_EQ(b.exit_code, 0);
  EXPECT_EQ(nlohmann::json::parse(a.out)["samples"], nlohmann::json::parse(b.out)["samples"]);

  const std::vector<std::string> before = dir.files();
  // Unknown output type, unreadable input, a damaged archive: exit 1, nothing new in the folder.
  o = run_marrow(dir, {"convert", in, (dir / "c.fbx").string()});
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.err.find("cannot write '.fbx'"), std::string::npos) << o.err;
  Bytes damaged = read_file(dir / "c.marrow");
  damaged[damaged.size() / 2] ^= 0x55;
  write_file(dir / "damaged.marrow", damaged);
  o = run_marrow(dir, {"convert", (dir / "damaged.marrow").string(), (dir / "d.glb").string()});
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.err.find("checksum mismatch"), std::string::npos) << o.err;
  std::vector<std::string> expected = before;
  expected.push_back("damaged.marrow");
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(dir.files(), expected);
}

// --clip keeps the clips named, in the order given, each with its own keys; a folder refuses it
// and an unknown clip names the clips there are, writing nothing.
TEST(ConvertCommand, ClipKeepsOnlyTheClipsNamed) {
  const std::string soldier = shared_asset("gltf/Soldier.glb");
  MARROW_REQUIRE_FILE(soldier);
  TempDir dir("convert_clip");
  const std::string out = (dir / "two.marrow").string();
  const Outcome o =
      run_marrow(dir, {"convert", soldier, out, "--clip", "Walk", "--clip", "0", "--quiet"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  // Compared with the whole file converted alike (the archive stores keys in its own order).
  const std::string all = (dir / "all.marrow").string();
  ASSERT_EQ(run_marrow(dir, {"convert", soldier, all, "--quiet"}).exit_code, 0);
  marrow::Result<marrow::Asset> source = marrow::load_asset(all);
  marrow::Result<marrow::Asset> written = marrow::load_asset(out);
  ASSERT_TRUE(source.ok() && written.ok());
  ASSERT_EQ(written->clips.size(), 2u);
  const std::size_t walk = *source->find_clip("Walk");
  for (const auto& [kept, from] : {std::pair{0, walk}, std::pair{1, std::size_t{0}}}) {
    const marrow::Clip& a = written->clips[static_cast<std::size_t>(kept)];
    const marrow::Clip& b = source->clips[from];
    EXPECT_EQ(a.name(), b.name());
    EXPECT_TRUE(
        std::equal(a.values().begin(), a.values().end(), b.values().begin(), b.values().end()))
        << a.name();
  }
  const Outcome unknown = run_marrow(
      dir, {"convert", soldier, (dir / "x.glb").string(), "--clip", "Walk", "--clip", "Fly"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("no clip 'Fly' (clips: Idle, Run, TPose, Walk)"), std::string::npos)
      << unknown.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "x.glb"));
  const Outcome folder = run_marrow(
      dir, {"convert", dir.path().string(), (dir / "out").string(), "--to", "glb", "--clip", "0"});
  EXPECT_EQ(folder.exit_code, 1);
  EXPECT_NE(folder.err.find("--clip is for one file"), std::string::npos) << folder.err;
}

TEST(ConvertCommand, TestwusonPoseSurvivesArchiveAndGlb) {
  const std::string x = shared_asset("x/Testwuson.X");
  MARROW_REQUIRE_FILE(x);
  TempDir dir("convert_x");
  ASSERT_EQ(run_marrow(dir, {"convert", x, (dir / "w.marrow").string(), "--quiet"}).exit_code, 0);
  ASSERT_EQ(
      run_marrow(dir, {"convert", (dir / "w.marrow").string(), (dir / "w.glb").string(), "--quiet"})
          .exit_code,
      0);
  const std::vector<std::string> args = {"--clip",     "Wuson_Run", "--times",
                                         "0,0.3,0.61", "--format",  "json"};
  std::vector<std::string> pa = {"pose", x}, pb = {"pose", (dir / "w.glb").string()};
  pa.insert(pa.end(), args.begin(), args.end());
  pb.insert(pb.end(), args.begin(), args.end());
  const Outcome a = run_marrow(dir, pa), b = run_marrow(dir, pb);
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  const nlohmann::json ja = nlohmann::json::parse(a.out), jb = nlohmann::json::parse(b.out);
  ASSERT_EQ(ja["nodes"].size(), jb["nodes"].size());
  float worst = 0, extent = 0;
  for (std::size_t s = 0; s < ja["samples"].size(); ++s) {
    const auto &wa = ja["samples"][s]["world"], &wb = jb["samples"][s]["world"];
    for (std::size_t n = 0; n < wa.size(); ++n) {
      for (int k = 0; k < 16; ++k)
        worst = std::max(worst, std::abs(wa[n][k].get<float>() - wb[n][k].get<float>()));
      for (int k = 12; k < 15; ++k) extent = std::max(extent, std::abs(wa[n][k].get<float>()));
    }
  }
  EXPECT_GT(extent, 0.f);
  EXPECT_LE(worst, 1e-4f * extent);
}

}  // namespace
}  // namespace formats_test

namespace formats_test {
namespace {

// A clip file with two clips that both animate a joint the skeleton lacks: the dropped-track
// note is said for the clip played (by --clip or --layer), not for every clip of the file.
TEST(PoseCommand, ClipFileNotesOnlyTheClipsUsed) {
  TempDir dir("pose_other_notes");
  write_text(dir / "skeleton.gltf", kSkeleton);
  nlohmann::json two = nlohmann::json::parse(clip_document(true));
  nlohmann::json swish = two["animations"][0];
  swish["name"] = "Swish";
  two["animations"].push_back(swish);
  write_text(dir / "clips.gltf", two.dump());
  const std::string skeleton = (dir / "skeleton.gltf").string(),
                    clips = (dir / "clips.gltf").string();
  for (const std::vector<std::string>& choice :
       {std::vector<std::string>{"--clip", "Swish"}, std::vector<std::string>{"--clip", "1"},
        std::vector<std::string>{"--layer", "Swish:weight=0.5"}}) {
    std::vector<std::string> args = {"pose", skeleton, "--clip-file", clips, "--times", "0"};
    args.insert(args.end(), choice.begin(), choice.end());
    const Outcome o = run_marrow(dir, args);
    ASSERT_EQ(o.exit_code, 0) << o.err;
    EXPECT_NE(o.err.find("clip 'Swish': 1 joint(s) not in"), std::string::npos) << o.err;
    EXPECT_EQ(o.err.find("'Wag'"), std::string::npos) << o.err;
  }
  // No clip named: the first is played, and only it is noted.
  const Outcome first = run_marrow(dir, {"pose", skeleton, "--clip-file", clips});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.err.find("clip 'Wag'"), std::string::npos) << first.err;
  EXPECT_EQ(first.err.find("'Swish'"), std::string::npos) << first.err;
}

using namespace marrow;

// Soldier's Walk on Xbot's skeleton (both Mixamo rigs): every track binds, and Xbot's Hips ends
// up at Xbot's Armature transform times the Hips key of Soldier's clip.
TEST(PoseCommand, SoldierWalkOnXbot) {
  const std::string xbot = shared_asset("gltf/Xbot.glb"),
                    soldier = shared_asset("gltf/Soldier.glb");
  MARROW_REQUIRE_FILE(xbot);
  MARROW_REQUIRE_FILE(soldier);
  TempDir dir("walk_on_xbot");
  const Outcome check = run_marrow(dir, {"check", xbot, soldier, "--clip", "Walk"});
  EXPECT_EQ(check.exit_code, 0) << check.out;
  EXPECT_NE(check.out.find("156 of 156 tracks bind: compatible"), std::string::npos) << check.out;

  const Outcome o = run_marrow(dir, {"pose", xbot, "--clip-file", soldier, "--clip", "Walk",
                                     "--times", "0.5", "--format", "json"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  // Every track binds (the notes may say what the readers left out of the files).
  EXPECT_EQ(o.err.find("their tracks are dropped"), std::string::npos) << o.err;
  const nlohmann::json j = nlohmann::json::parse(o.out);

  Result<Asset> x = load_asset(xbot), s = load_asset(soldier);
  ASSERT_TRUE(x.ok() && s.ok());
  const JointIndex hips_x = *x->skeleton.find("mixamorig:Hips");
  const JointIndex hips_s = *s->skeleton.find("mixamorig:Hips");
  const JointIndex parent_x = x->skeleton.parent(hips_x);
  // Soldier's Hips local transform at 0.5 s, from its own clip and skeleton.
  const Clip& walk = s->clips[*s->find_clip("Walk")];
  std::vector<Transform> local(s->skeleton.size());
  SamplingCursor cursor(walk);
  sample(walk, s->skeleton.rest_pose(), 0.5f, cursor, local);
  // Xbot's Hips parent at rest (the clip does not animate it).
  const std::vector<float> t0 = {0};
  const Mat4 parent_world = sample_world(*x, -1, t0).world[0][parent_x];
  const Mat4 expected = mul_affine(parent_world, to_matrix(local[hips_s]));
  // Find Xbot's Hips in the JSON's node list (source order).
  std::size_t row = j["nodes"].size();
  for (std::size_t n = 0; n < j["nodes"].size(); ++n) {
    if (j["nodes"][n]["name"] == "mixamorig:Hips") row = n;
  }
  ASSERT_LT(row, j["nodes"].size());
  const auto& world = j["samples"][0]["world"][row];
  for (int k = 0; k < 16; ++k)
    EXPECT_NEAR(world[k].get<float>(), expected.m[static_cast<std::size_t>(k)], 1e-4f) << k;
}

}  // namespace
}  // namespace formats_test
