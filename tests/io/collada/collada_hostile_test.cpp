// Bad and hostile Collada input: every failure a clear error naming the file, the line and the
// element; no crash, no hang, and no allocation beyond a small multiple of the file's size
// (the test binary tracks allocations), for damaged, truncated and deliberately lying files.
#include <gtest/gtest.h>

#include <chrono>
#include <random>

#include "allocation_meter.h"
#include "collada_test_util.h"

namespace marrow {
namespace {

using collada_test::bytes;

std::string error_of(const std::string& text, const std::string& name = "bad.dae") {
  const Result<Asset> r = read_collada(bytes(text), name);
  EXPECT_FALSE(r.ok()) << "accepted";
  return r.ok() ? std::string() : r.error().message;
}

void expect_error(const std::string& text, std::initializer_list<const char*> parts) {
  const std::string m = error_of(text);
  EXPECT_EQ(m.rfind("bad.dae", 0), 0u) << m;
  for (const char* p : parts) EXPECT_NE(m.find(p), std::string::npos) << "'" << p << "' in: " << m;
}

std::string replace(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

std::size_t largest_allocation_reading(const std::string& text) {
  marrow::test::AllocationMeter meter;
  { const Result<Asset> r = read_collada(bytes(text), "tracked.dae"); }
  return meter.largest();
}

TEST(ColladaHostile, MalformedXmlNamesLineAndColumn) {
  const std::string doc = collada_test::skin_morph_document();
  expect_error(doc.substr(0, doc.size() / 2), {"bad.dae:", "malformed XML"});
  expect_error("<?xml version=\"1.0\"?>\n<root/>", {"not a Collada document"});
  expect_error("", {"malformed XML"});
  // Lines end at LF, CRLF and a lone CR alike: the unclosed tag's error is on line 3 each time.
  for (const char* br : {"\n", "\r\n", "\r"}) {
    expect_error(std::string("<?xml version=\"1.0\"?>") + br + "<COLLADA>" + br + "<asset><<",
                 {"bad.dae:3:", "malformed XML"});
  }
}

TEST(ColladaHostile, ArraysThatDisagreeWithTheirCounts) {
  const std::string doc = collada_test::skin_morph_document();
  expect_error(replace(doc, "count=\"12\">0 0 0  1 0 0  1 1 0  0 1 0",
                       "count=\"13\">0 0 0  1 0 0  1 1 0  0 1 0"),
               {"bad.dae:4: <float_array id='quad-pos-a'>", "count=\"13\" but 12 numbers"});
  expect_error(replace(doc, "1 0 0  1 1 0  0 1 0", "1 0 0  1 nan 0  0 1 0"),
               {"<float_array id='quad-pos-a'>", "value 7 'nan' is not a finite number"});
  expect_error(replace(doc, "1 0 0  1 1 0  0 1 0", "1 0 0  1 1e99 0  0 1 0"),
               {"value 7 '1e99'", "not a finite number"});
  // An accessor that claims more than its array holds; a count of 4 billion allocates nothing.
  const std::string liar = replace(doc, "<accessor source=\"#quad-pos-a\" count=\"4\"",
                                   "<accessor source=\"#quad-pos-a\" count=\"4000000000\"");
  expect_error(liar, {"<accessor>", "4000000000 elements of stride 3", "more than the 12 values"});
  EXPECT_LE(largest_allocation_reading(liar), 64 * liar.size() + (1u << 20));
}

TEST(ColladaHostile, IndicesThatPointOutside) {
  const std::string doc = collada_test::skin_morph_document();
  expect_error(replace(doc, "<p>0 1 2 3</p>", "<p>0 1 9 3</p>"),
               {"<polylist>", "vertex index 9 is past the 4 positions"});
  expect_error(replace(doc, "<vcount>4</vcount>", "<vcount>5</vcount>"),
               {"polygon 0 runs past the 4 vertices"});
  expect_error(
      replace(doc, "<v>0 0  0 0  0 1 1 1  0 1 1 1</v>", "<v>0 0  0 0  0 1 7 1  0 1 1 1</v>"),
      {"<v>", "joint index 7 is past the 2 joints"});
  expect_error(replace(doc, "<vertex_weights count=\"4\">", "<vertex_weights count=\"3\">"),
               {"<vertex_weights>", "count=3 but the skinned geometry has 4 positions"});
  expect_error(replace(doc, "b0 b1</Name_array>", "b0 nobody</Name_array>"),
               {"joint 1 'nobody' names no node"});
  // An instance of nothing is skipped with a warning (exporters leave such instances behind).
  const Result<Asset> dangling =
      read_collada(bytes(replace(doc, "<instance_controller url=\"#quad-skin\">",
                                 "<instance_controller url=\"#no-such-skin\">")),
                   "dangling.dae");
  ASSERT_TRUE(dangling.ok()) << dangling.error().message;
  EXPECT_TRUE(dangling->meshes.empty());
  ASSERT_FALSE(dangling->warnings.empty());
  EXPECT_NE(dangling->warnings[0].find("'#no-such-skin' names no element"), std::string::npos)
      << dangling->warnings[0];
  expect_error(replace(doc, "<skeleton>#rig-root</skeleton>", "<skeleton>#nobody</skeleton>"),
               {"<skeleton>", "'#nobody' names no node"});
}

TEST(ColladaHostile, MorphTargetsAndChannelsThatDoNotFit) {
  const std::string doc = collada_test::skin_morph_document();
  // A target with another vertex count than its base.
  expect_error(
      replace(doc, "count=\"12\">0 0 0  1 0 0  1 2 0  0 2 0", "count=\"9\">0 0 0  1 0 0  1 2 0"),
      {"<accessor>"});
  std::string fewer = replace(
      replace(doc, "count=\"12\">0 0 0  1 0 0  1 2 0  0 2 0", "count=\"9\">0 0 0  1 0 0  1 2 0"),
      "<accessor source=\"#quad-up-pos-a\" count=\"4\"",
      "<accessor source=\"#quad-up-pos-a\" count=\"3\"");
  const std::size_t last_p = fewer.rfind("<vcount>4</vcount><p>0 1 2 3</p>");
  ASSERT_NE(last_p, std::string::npos);
  fewer.replace(last_p, 32, "<vcount>3</vcount><p>0 1 2</p>");
  expect_error(fewer, {"morph target 0 has 3 positions, its base 'quad' 4"});
  // NaN deltas.
  expect_error(replace(doc, "1 2 0  0 2 0", "1 2 0  0 inf 0"), {"not a finite number"});
  // A weights channel naming a target the morph lacks.
  expect_error(replace(doc, "target=\"quad-morph-weights(0)\"", "target=\"quad-morph-weights(5)\""),
               {"<channel>", "names morph target 5, but the morph has 1"});
  // A sampler giving three values per key to one weight.
  expect_error(replace(replace(doc, "count=\"2\">0.25 1</float_array>",
                               "count=\"6\">0.25 1 1 1 1 1</float_array>"),
                       "<accessor source=\"#w-out-a\" count=\"2\" stride=\"1\"",
                       "<accessor source=\"#w-out-a\" count=\"2\" stride=\"3\""),
               {"gives 3 values per key for 1 morph weights"});
}

TEST(ColladaHostile, CurvesThatGoBackInTimeOrLackTangents) {
  const std::string doc = collada_test::curves_document();
  expect_error(replace(doc, "count=\"4\">0 1 1 2", "count=\"4\">0 1 0.5 2"),
               {"<source id='lz-in'>", "key 2 at 0.500000 s goes back in time"});
  const std::string no_tangents =
      replace(doc, "<input semantic=\"IN_TANGENT\" source=\"#bx-intan\"/>", "");
  expect_error(no_tangents, {"<sampler id='bx-s'>", "BEZIER or HERMITE keys but no IN_TANGENT"});
  expect_error(replace(doc, "BEZIER BEZIER", "BEZIER WOBBLY"), {"interpolation 'WOBBLY' of key 1"});
  expect_error(replace(doc, "target=\"n/t.X\"", "target=\"n/t.Q\""), {"member .Q"});
}

TEST(ColladaHostile, UnitsAndClipRangesOutOfReason) {
  const std::string doc = collada_test::maya_document();
  expect_error(replace(doc, "meter=\"0.01\"", "meter=\"1e300\""),
               {"<unit name='centimeter'>", "is not a length between 1e-9 and 1e9 metres"});
  expect_error(replace(doc, "meter=\"0.01\"", "meter=\"-1\""), {"meter='-1'"});
  expect_error(replace(doc, "</library_animations>",
                       "</library_animations><library_animation_clips><animation_clip id=\"c\" "
                       "start=\"0\" end=\"1e30\"><instance_animation url=\"#t\"/>"
                       "</animation_clip></library_animation_clips>"),
               {"<animation_clip id='c'>", "are not a time range"});
  expect_error(replace(doc, "<up_axis>Z_UP</up_axis>", "<up_axis>W_UP</up_axis>"),
               {"'W_UP' is not X_UP, Y_UP or Z_UP"});
}

// Nesting and instancing that would recurse, loop or multiply without bound.
TEST(ColladaHostile, DeepNestingCyclesAndExplosionsAreRefusedQuickly) {
  std::string deep;
  for (int i = 0; i < 3000; ++i) deep += "<node>";
  for (int i = 0; i < 3000; ++i) deep += "</node>";
  expect_error(collada_test::document("", "", deep), {"nested deeper than 1024 levels"});

  const std::string cycle = collada_test::document(
      "", "<library_nodes><node id=\"a\"><instance_node url=\"#a\"/></node></library_nodes>",
      "<instance_node url=\"#a\"/>");
  expect_error(cycle, {"nested deeper than 1024 levels"});

  // Each level instances the next twice: 2^30 nodes if expanded.
  std::string lib = "<library_nodes>";
  for (int i = 0; i < 30; ++i) {
    lib += "<node id=\"n" + std::to_string(i) + "\"><instance_node url=\"#n" +
           std::to_string(i + 1) + "\"/><instance_node url=\"#n" + std::to_string(i + 1) +
           "\"/></node>";
  }
  lib += "<node id=\"n30\"/></library_nodes>";
  const std::string bomb = collada_test::document("", lib, "<instance_node url=\"#n0\"/>");
  const auto start = std::chrono::steady_clock::now();
  expect_error(bomb, {"more nodes than a file of", "may make"});
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_LE(largest_allocation_reading(bomb), 64 * bomb.size() + (8u << 20));
}

TEST(ColladaHostile, TruncatedAtManyLengthsNeverCrashes) {
  const std::string doc = collada_test::skin_morph_document();
  for (std::size_t n = 0; n < doc.size(); n += 13) {
    const Result<Asset> r = read_collada(bytes(doc.substr(0, n)), "cut.dae");
    if (!r.ok()) {
      EXPECT_EQ(r.error().message.rfind("cut.dae", 0), 0u) << r.error().message;
    }
  }
}

TEST(ColladaHostile, RandomDamageNeverCrashesOrBlowsUp) {
  const std::string docs[] = {collada_test::skin_morph_document(), collada_test::maya_document(),
                              collada_test::curves_document()};
  std::mt19937 rng(7);
  int rejected = 0;
  for (const std::string& good : docs) {
    std::uniform_int_distribution<std::size_t> where(0, good.size() - 1);
    const char alphabet[] = "0123456789 .-e<>/\"#()XYZ";
    std::uniform_int_distribution<std::size_t> pick(0, sizeof alphabet - 2);
    for (int round = 0; round < 300; ++round) {
      std::string d = good;
      for (int k = 0; k < 3; ++k) d[where(rng)] = alphabet[pick(rng)];
      ASSERT_LE(largest_allocation_reading(d), 64 * d.size() + (8u << 20)) << round;
      const Result<Asset> r = read_collada(bytes(d), "damaged.dae");
      if (!r.ok()) {
        ++rejected;
        EXPECT_EQ(r.error().message.rfind("damaged.dae", 0), 0u) << r.error().message;
      }
    }
  }
  EXPECT_GT(rejected, 100);
}

}  // namespace
}  // namespace marrow
