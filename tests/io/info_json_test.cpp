// `marrow info --format json` (docs/info_json.md): values of a document built here, the clips
// listed first, `--clips`, and every member the command writes on real files named in the
// schema's page, so the page cannot fall behind the code.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "gltf_test_util.h"
#include "shared_asset.h"

namespace fs = std::filesystem;
using namespace gltf_test;
using nlohmann::json;

namespace {

struct InfoRun {
  int exit_code = -1;
  std::string out, err;
};

InfoRun run_info(const TempDir& dir, const std::vector<std::string>& args) {
  std::string command = std::string("'") + MARROW_BIN + "' info";
  for (const std::string& a : args) command += " '" + a + "'";
  const fs::path out = dir / "stdout.txt", err = dir / "stderr.txt";
  command += " >'" + out.string() + "' 2>'" + err.string() + "'";
  const int status = std::system(command.c_str());
  InfoRun run;
  if (status != -1 && WIFEXITED(status)) run.exit_code = WEXITSTATUS(status);
  const Bytes o = read_file(out), e = read_file(err);
  run.out.assign(o.begin(), o.end());
  run.err.assign(e.begin(), e.end());
  return run;
}

// root -> tip (at y = 1); clip "Wave" moves tip's translation from (0,0,0) at 0 s to (2,0,0) at
// 1 s.
std::string wave_document(const TempDir& dir) {
  Builder b;
  b.node({{"name", "root"}, {"children", {1}}});
  b.node({{"name", "tip"}, {"translation", {0, 1, 0}}});
  const int times = b.floats({0, 1}, "SCALAR");
  const int values = b.floats({0, 0, 0, 2, 0, 0}, "VEC3");
  b.animation({{1, "translation", times, values}}, "Wave");
  const std::string file = (dir / "wave.gltf").string();
  write_file(file, to_bytes(b.gltf_text()));
  return file;
}

// Every member's path in the document: "clips[].channels[].joint". Textures, whose members are
// the same in every slot, as "materials[].*_texture.image".
void collect_paths(const json& value, const std::string& path, std::set<std::string>& paths) {
  if (value.is_object()) {
    for (const auto& [key, member] : value.items()) {
      std::string child = path.empty() ? key : path + "." + key;
      child = std::regex_replace(child, std::regex(R"(materials\[\]\.\w+_texture\.)"),
                                 "materials[].*_texture.");
      paths.insert(child);
      collect_paths(member, child, paths);
    }
  } else if (value.is_array()) {
    for (const json& element : value) collect_paths(element, path + "[]", paths);
  }
}

std::string docs_page() {
  std::ifstream in(std::string(MARROW_SOURCE_DIR) + "/docs/info_json.md");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST(InfoJson, DescribesTheClipChannelsAndNodesOfADocument) {
  TempDir dir("info_json");
  const std::string file = wave_document(dir);
  const InfoRun o = run_info(dir, {file, "--format", "json"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const json doc = json::parse(o.out);
  EXPECT_EQ(doc["schema"], "marrow-info");
  EXPECT_EQ(doc["version"], 1);
  EXPECT_EQ(doc["file"], file);
  ASSERT_EQ(doc["clips"].size(), 1u);
  const json& clip = doc["clips"][0];
  EXPECT_EQ(clip["name"], "Wave");
  EXPECT_EQ(clip["index"], 0);
  EXPECT_EQ(clip["duration"], 1.0);
  EXPECT_TRUE(clip["ticks_per_second"].is_null());  // glTF times are seconds
  EXPECT_EQ(clip["animated_joints"], 1);
  EXPECT_TRUE(clip["compiled"].is_null());
  ASSERT_EQ(clip["channels"].size(), 1u);
  const json& channel = clip["channels"][0];
  EXPECT_EQ(channel["joint"], "tip");
  EXPECT_EQ(channel["property"], "translation");
  EXPECT_EQ(channel["interpolation"], "LINEAR");
  EXPECT_EQ(channel["keys"], 2);
  EXPECT_EQ(channel["first_time"], 0.0);
  EXPECT_EQ(channel["last_time"], 1.0);
  EXPECT_EQ(channel["keys_per_second"], 1.0);  // two keys one second apart
  ASSERT_EQ(doc["nodes"].size(), 2u);
  const json& tip = doc["nodes"][channel["joint_index"].get<std::size_t>()];
  EXPECT_EQ(tip["name"], "tip");
  EXPECT_EQ(tip["source_index"], 1);
  EXPECT_EQ(tip["translation"], json::array({0.0, 1.0, 0.0}));
  EXPECT_EQ(tip["rotation"], json::array({0.0, 0.0, 0.0, 1.0}));
  EXPECT_EQ(doc["nodes"][tip["parent"].get<std::size_t>()]["name"], "root");
  EXPECT_TRUE(doc["nodes"][0]["parent"].is_null());
  EXPECT_EQ(doc["meshes"], json::array());
  EXPECT_EQ(doc["notes"], json::array());
  // Members in the schema's order, clips before the node tree.
  EXPECT_LT(o.out.find("\"clips\""), o.out.find("\"nodes\""));
}

TEST(InfoJson, ClipsOnlyLeavesTheRestOut) {
  TempDir dir("info_clips");
  const std::string file = wave_document(dir);
  const InfoRun json_run = run_info(dir, {file, "--format", "json", "--clips"});
  ASSERT_EQ(json_run.exit_code, 0) << json_run.err;
  const json doc = json::parse(json_run.out);
  EXPECT_EQ(doc["clips"].size(), 1u);
  for (const char* part : {"nodes", "skins", "meshes", "materials", "images", "morph_slots"})
    EXPECT_FALSE(doc.contains(part)) << part;
  const InfoRun text = run_info(dir, {file, "--clips"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("[0] 'Wave'  1 s, 1 channels on 1 joints"), std::string::npos)
      << text.out;
  EXPECT_EQ(text.out.find("nodes:"), std::string::npos) << text.out;
  const InfoRun all = run_info(dir, {file});
  EXPECT_LT(all.out.find("clips:"), all.out.find("nodes:")) << all.out;
}

TEST(InfoJson, AnUnreadableFileWritesNoDocument) {
  TempDir dir("info_bad");
  const std::string file = (dir / "broken.gltf").string();
  write_file(file, to_bytes(std::string("{\"asset\": ")));
  const InfoRun o = run_info(dir, {file, "--format", "json"});
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_EQ(o.out, "");
  EXPECT_EQ(o.err.rfind("marrow: " + file, 0), 0u) << o.err;
}

// Files with skins, textures, morph targets, morph-weight channels, a rate from the file and a
// rate by default: each member written is in docs/info_json.md's tables.
TEST(InfoJson, EveryMemberWrittenIsDocumented) {
  const std::string assets = marrow::test::shared_asset_path("");
  const std::vector<std::string> files = {"gltf/Soldier.glb", "gltf/morph/AnimatedMorphCube.gltf",
                                          "x/Testwuson.X", "bvh/01_01.bvh"};
  const std::string page = docs_page();
  ASSERT_FALSE(page.empty()) << "docs/info_json.md not found";
  TempDir dir("info_documented");
  std::set<std::string> paths;
  for (const std::string& name : files) {
    if (!fs::exists(assets + name)) GTEST_SKIP() << "no " << assets + name;
    const InfoRun o = run_info(dir, {assets + name, "--format", "json"});
    ASSERT_EQ(o.exit_code, 0) << name << ": " << o.err;
    collect_paths(json::parse(o.out), "", paths);
  }
  for (const std::string& path : paths)
    EXPECT_NE(page.find("`" + path + "`"), std::string::npos)
        << path << " is written but not in docs/info_json.md";
  // The real files reach the nested members, so the check above is not vacuous.
  for (const char* expected :
       {"clips[].channels[].keys_per_second", "meshes[].morph_targets[].name",
        "materials[].*_texture.image", "clips[].weight_channels[].keys", "nodes[].rotation",
        "skins[].joints"})
    EXPECT_TRUE(paths.count(expected)) << expected;
}
