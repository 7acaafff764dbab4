// Retarget maps read from JSON: every member, and every way a file can be wrong, each an error
// naming the file and the JSON place.
#include "marrow/io/retarget_map_json.h"

#include <gtest/gtest.h>

#include "humanoid_builder.h"

namespace marrow {
namespace {

std::string error_of(std::string_view json) {
  Result<RetargetMapSpec> r = parse_retarget_map(json, "m.json");
  return r.ok() ? "ok" : r.error().message;
}

TEST(MapJson, EveryMemberIsRead) {
  Result<RetargetMapSpec> r = parse_retarget_map(R"({
    "automatic": false,
    "source": {"hips": "Hips", "spine": ["LowerBack", "Spine", "Spine1"], "neck": "Neck"},
    "target": {"left_toe": "mixamorig:LeftToeBase"},
    "joints": {"Tail1": "tail_01", "Tail2": "tail_02"}
  })",
                                                 "m.json");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(r->automatic);
  ASSERT_EQ(r->source_parts.size(), 3u);
  const auto find = [&](HumanoidPart p) -> const HumanoidPartNames* {
    for (const HumanoidPartNames& n : r->source_parts) {
      if (n.part == p) return &n;
    }
    return nullptr;
  };
  ASSERT_NE(find(HumanoidPart::kSpine), nullptr);
  EXPECT_EQ(find(HumanoidPart::kSpine)->joints,
            (std::vector<std::string>{"LowerBack", "Spine", "Spine1"}));
  ASSERT_NE(find(HumanoidPart::kNeck), nullptr);  // a chain may be given as one name
  EXPECT_EQ(find(HumanoidPart::kNeck)->joints, std::vector<std::string>{"Neck"});
  ASSERT_EQ(r->target_parts.size(), 1u);
  EXPECT_EQ(r->target_parts[0].part, HumanoidPart::kLeftToe);
  ASSERT_EQ(r->joints.size(), 2u);
  EXPECT_EQ(r->joints[0].source, "Tail1");
  EXPECT_EQ(r->joints[0].target, "tail_01");
  // Nothing given: automatic matching alone.
  r = parse_retarget_map("{}", "m.json");
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->automatic);
}

TEST(MapJson, BadFilesAreErrorsNamingTheFileAndThePlace) {
  EXPECT_NE(error_of("{\"joints\": {\"a\": \"b\",}").find("m.json:1:"), std::string::npos);
  EXPECT_NE(error_of("[1, 2]").find("top level"), std::string::npos);
  EXPECT_NE(error_of(R"({"autmatic": true})").find("autmatic: unknown member"), std::string::npos);
  EXPECT_NE(error_of(R"({"automatic": 1})").find("automatic: must be true or false"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"source": {"left_paw": "x"}})").find("source.left_paw: unknown part"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"target": {"head": ["a", "b"]}})").find("target.head: must be a joint"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"source": {"spine": ["a", 3]}})").find("source.spine[1]"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"source": {"spine": []}})").find("source.spine: names no joint"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"source": {"hips": ""}})").find("empty"), std::string::npos);
  EXPECT_NE(error_of(R"({"joints": {"a": 5}})").find("joints[\"a\"]"), std::string::npos);
  EXPECT_NE(error_of(R"({"joints": ["a", "b"]})").find("joints: must be an object"),
            std::string::npos);
  // A source joint given twice (JSON parsers keep only the last) is caught while reading.
  EXPECT_NE(error_of(R"({"joints": {"a": "x", "a": "y"}})").find("\"a\" is given twice"),
            std::string::npos);
  EXPECT_NE(error_of("").find("m.json:"), std::string::npos);
}

// Nesting is held to 1,024 levels before the parser builds anything (docs/reliability.md,
// "Budgets"). In `{"joints": [[[...` the '{' is level 1 and the bracket at byte 11 + k opens
// level k + 2, so level 1,025 opens at byte 1,034: line 1, column 1,035.
TEST(MapJson, NestingPast1024LevelsIsRefusedWithItsPlace) {
  const std::string deep = std::string(100000, '[');
  EXPECT_EQ(error_of("{\"joints\": " + deep),
            "m.json:1:1035: JSON nests arrays and objects deeper than 1024 levels, the most "
            "marrow reads");
  // A lone CR ends line 1 (the readers' one line rule); line 2 starts at byte 2.
  EXPECT_EQ(error_of("{\r\"joints\": " + deep).rfind("m.json:2:1034: JSON nests", 0), 0u);
  // 1,024 levels are read: the error is then about what the member holds.
  EXPECT_EQ(error_of("{\"joints\": " + std::string(1023, '[') + std::string(1023, ']') + "}"),
            "m.json: joints: must be an object of source name: target name");
}

TEST(MapJson, AMissingFileIsAnErrorNamingIt) {
  Result<RetargetMapSpec> r = read_retarget_map("/nonexistent/map.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("/nonexistent/map.json"), std::string::npos);
}

TEST(MapJson, AMapFromAFileDrivesTheRetargeting) {
  // A source whose legs carry made-up names: the profile cannot find them, the file names them.
  test::HumanoidSpec spec;
  spec.naming = test::Naming::kNumbered;
  test::BuiltHumanoid source = test::build_humanoid(spec);
  spec.naming = test::Naming::kMixamo;
  const test::BuiltHumanoid target = test::build_humanoid(spec);
  const auto name = [&](JointIndex j) { return "\"" + source.skeleton.name(j) + "\""; };
  const std::string json = R"({"source": {"hips": )" + name(source.hips) + R"(, "left_hand": )" +
                           name(source.hand[0]) + R"(},
                               "joints": {)" +
                           name(source.hand_end[0]) + R"(: "mixamorig:LeftHandMiddle4"}})";
  Result<RetargetMapSpec> parsed = parse_retarget_map(json, "m.json");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  Result<RetargetMap> map =
      make_retarget_map(source.skeleton, target.skeleton, *parsed, {}, {}, "m.json");
  ASSERT_TRUE(map.ok()) << map.error().message;
  EXPECT_EQ(map->source_rig.found_by[static_cast<std::size_t>(HumanoidPart::kLeftHand)],
            PartSource::kExplicit);
  bool paired = false;
  for (const RetargetPair& p : map->pairs) {
    paired = paired || (p.source == source.hand_end[0] && p.target == target.hand_end[0]);
  }
  EXPECT_TRUE(paired);
}

}  // namespace
}  // namespace marrow
