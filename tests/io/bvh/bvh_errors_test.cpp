// Bad and hostile BVH input: every error names file:line, nothing crashes, hangs or allocates by
// a claimed count.
#include <gtest/gtest.h>

#include <chrono>
#include <random>
#include <string>

#include "bvh_test_util.h"

namespace {

// A valid file; the error tests change one piece of it. Lines:
//  1 HIERARCHY         6 JOINT B           11 }
//  2 ROOT A            7 {                 12 MOTION
//  3 {                 8 OFFSET 0 1 0      13 Frames: 2
//  4 OFFSET 0 0 0      9 CHANNELS 3 ...    14 Frame Time: 0.1
//  5 CHANNELS 6 ...   10 }                 15, 16: frames of 9 values
const std::string kGood =
    "HIERARCHY\n"
    "ROOT A\n"
    "{\n"
    "OFFSET 0 0 0\n"
    "CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n"
    "JOINT B\n"
    "{\n"
    "OFFSET 0 1 0\n"
    "CHANNELS 3 Zrotation Xrotation Yrotation\n"
    "}\n"
    "}\n"
    "MOTION\n"
    "Frames: 2\n"
    "Frame Time: 0.1\n"
    "1 2 3 4 5 6 7 8 9\n"
    "1 2 3 4 5 6 7 8 9\n";

std::string replace(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// The error message must start with "t.bvh:<line>: " and contain `what`.
void expect_error(const std::string& text, int line, const std::string& what) {
  const marrow::Result<marrow::Asset> asset = marrow::read_bvh(text, "t.bvh");
  ASSERT_FALSE(asset.ok()) << "expected an error about: " << what;
  const std::string& message = asset.error().message;
  const std::string place = "t.bvh:" + std::to_string(line) + ": ";
  EXPECT_EQ(message.rfind(place, 0), 0u) << message;
  EXPECT_NE(message.find(what), std::string::npos) << message;
}

TEST(BvhErrors, GoodBaseLoads) {
  const marrow::Asset asset = bvh_test::load_text(kGood);
  EXPECT_EQ(asset.skeleton.size(), 2u);
  EXPECT_EQ(asset.clips.size(), 1u);
}

TEST(BvhErrors, Channels) {
  expect_error(
      replace(kGood, "Zrotation Xrotation Yrotation\n}", "Zrotation Wrotation Yrotation\n}"), 9,
      "unknown channel name 'Wrotation'");
  expect_error(replace(kGood, "CHANNELS 3", "CHANNELS 7"), 9, "must be a whole number from 0 to 6");
  expect_error(replace(kGood, "CHANNELS 3", "CHANNELS -3"), 9, "must be a whole number");
  expect_error(replace(kGood, "CHANNELS 3", "CHANNELS three"), 9, "must be a whole number");
  // The count says 4, three names follow, then '}' on line 10.
  expect_error(replace(kGood, "CHANNELS 3", "CHANNELS 4"), 10, "declares 4 channels but names 3");
  expect_error(
      replace(kGood, "Zrotation Xrotation Yrotation\n}", "Zrotation Xrotation Zrotation\n}"), 9,
      "listed twice");
  expect_error(replace(kGood, "OFFSET 0 1 0\n", "OFFSET 0 1 0\nCHANNELS 0\n"), 10,
               "second CHANNELS");
}

TEST(BvhErrors, Braces) {
  expect_error(replace(kGood, "JOINT B\n{", "JOINT B\nOFFSET"), 7, "expected '{' after JOINT 'B'");
  // One '}' missing: MOTION is then read inside joint A.
  expect_error(replace(kGood, "}\n}\n", "}\n"), 11, "MOTION inside joint 'A'");
  // Both missing and no MOTION: end of file inside B.
  expect_error("HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nJOINT B\n{\nOFFSET 0 0 0\n", 7,
               "end of file inside joint 'B' declared at line 5 (missing '}')");
  expect_error(replace(kGood, "}\n}\n", "}\n}\n}\n"), 12, "'}' without a matching '{'");
  expect_error(replace(kGood, "JOINT B\n{", "JOINT B\n{\n{"), 8, "unexpected '{'");
  expect_error(replace(kGood, "ROOT A", "ROOT"), 2, "ROOT without a name");
  expect_error(replace(kGood, "OFFSET 0 1 0\n", "OFFSET 0 1 0\nEnd Sight\n"), 9,
               "expected 'Site' after 'End', found 'Sight'");
}

TEST(BvhErrors, Structure) {
  expect_error(replace(kGood, "HIERARCHY", "HIERARCH"), 1, "expected HIERARCHY");
  expect_error("", 1, "empty");
  expect_error("\n\n  \n", 3, "empty");
  expect_error(replace(kGood, "OFFSET 0 1 0\n", ""), 9, "joint 'B' (line 6) has no OFFSET");
  expect_error(replace(kGood, "OFFSET 0 1 0\n", "OFFSET 0 1 0\nOFFSET 0 1 0\n"), 9,
               "second OFFSET");
  expect_error(replace(kGood, "OFFSET 0 1 0", "OFFSET 0 1"), 9, "'CHANNELS' is not a number");
  expect_error(replace(kGood, "OFFSET 0 1 0", "OFFSET 0 nan 0"), 8, "'nan' is not finite");
  expect_error(replace(kGood, "OFFSET 0 1 0", "OFFSET 0 1e39 0"), 8, "out of the range");
  expect_error(replace(kGood, "JOINT B\n{\nOFFSET 0 1 0\nCHANNELS 3 Zrotation Xrotation Yrotation",
                       "End Site\n{\nOFFSET 0 1 0\nCHANNELS 3 Zrotation Xrotation Yrotation"),
               9, "End Site with CHANNELS");
  expect_error(replace(kGood, "JOINT B", "Bone B"), 6, "unexpected 'Bone' inside joint 'A'");
  expect_error(replace(kGood, "ROOT A", "JOINT A"), 2, "expected ROOT or MOTION, found 'JOINT'");
  expect_error("HIERARCHY\nMOTION\nFrames: 0\nFrame Time: 1\n", 2, "MOTION before any ROOT");
  expect_error(replace(kGood, "MOTION", "MOTION 12"), 12, "after MOTION");
}

TEST(BvhErrors, MotionHeader) {
  expect_error(replace(kGood, "Frames: 2", "Frames: -1"), 13, "not a whole number");
  expect_error(replace(kGood, "Frames: 2", "Frames: two"), 13, "not a whole number");
  expect_error(replace(kGood, "Frames: 2", "Frames: 99999999999999999999999"), 13,
               "not a whole number");
  expect_error(replace(kGood, "Frames: 2", "Frames 2"), 13, "expected 'Frames:'");
  expect_error(replace(kGood, "Frames: 2", "Frames: 2 3"), 13, "takes one number");
  expect_error(replace(kGood, "Frame Time: 0.1", "Frame Time: 0"), 14, "must be greater than 0");
  expect_error(replace(kGood, "Frame Time: 0.1", "Frame Time: -0.1"), 14, "must be greater than 0");
  expect_error(replace(kGood, "Frame Time: 0.1", "Frame Time: nan"), 14, "not finite");
  expect_error(replace(kGood, "Frame Time: 0.1", "Frame Time: inf"), 14, "not finite");
  expect_error(replace(kGood, "Frame Time: 0.1", "Frame Time: fast"), 14, "not a number");
  expect_error(replace(kGood, "Frame Time: 0.1", "Frame Rate: 10"), 14, "expected 'Frame Time:'");
  // Too small to give distinct float key times.
  expect_error(replace(kGood, "Frame Time: 0.1", "Frame Time: 1e-50"), 14, "distinct");
  expect_error("HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\n}\nMOTION\n", 6, "expected 'Frames:'");
}

TEST(BvhErrors, FrameLines) {
  expect_error(replace(kGood, "\n1 2 3 4 5 6 7 8 9\n1", "\n1 2 3 4 5 6 7 8\n1"), 15,
               "frame 0 has 8 values, but the hierarchy's CHANNELS declare 9");
  expect_error(replace(kGood, "9\n1 2 3 4 5 6 7 8 9\n", "9\n1 2 3 4 5 6 7 8 9 10\n"), 16,
               "frame 1 has more than the 9 values");
  expect_error(replace(kGood, "\n1 2 3 4 5 6 7 8 9\n1", "\n1 2 x 4 5 6 7 8 9\n1"), 15,
               "frame 0, value 3: 'x' is not a number");
  expect_error(replace(kGood, "\n1 2 3 4 5 6 7 8 9\n1", "\n1 2 3 4 5e 6 7 8 9\n1"), 15,
               "'5e' is not a number");
  expect_error(replace(kGood, "\n1 2 3 4 5 6 7 8 9\n1", "\n1 2 3 NaN 5 6 7 8 9\n1"), 15,
               "'NaN' is not finite");
  expect_error(replace(kGood, "\n1 2 3 4 5 6 7 8 9\n1", "\n1 2 3 4 -inf 6 7 8 9\n1"), 15,
               "'-inf' is not finite");
  expect_error(replace(kGood, "\n1 2 3 4 5 6 7 8 9\n1", "\n1 2 3 4 5 1e400 7 8 9\n1"), 15,
               "out of the range");
  // Truncated: 5 frames announced, 2 present; the error is at the end of the file.
  expect_error(replace(kGood, "Frames: 2", "Frames: 5"), 16,
               "end of file after 2 of the 5 frames that 'Frames:' (line 13) announces");
}

TEST(BvhHostile, HugeClaimedFrameCountIsNotAllocated) {
  const auto start = std::chrono::steady_clock::now();
  expect_error(replace(kGood, "Frames: 2", "Frames: 18446744073709551615"), 16,
               "end of file after 2 of the 18446744073709551615 frames");
  expect_error(replace(kGood, "Frames: 2", "Frames: 4000000000"), 16, "end of file after 2");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(BvhHostile, NestingIsReadWithoutRecursionUpToTheStatedDepth) {
  // JOINT J<i> sits i + 1 levels below ROOT J and is declared on line 6 + 2i. 1024 levels
  // (io::kMaxNestingDepth) load; the joint one level deeper is refused on its own line.
  auto nested = [](int depth) {
    std::string text = "HIERARCHY\nROOT J\n{\nOFFSET 0 0 0\nCHANNELS 1 Xrotation\n";
    for (int i = 0; i < depth; ++i) text += "JOINT J" + std::to_string(i) + " {\nOFFSET 0 1 0\n";
    text.append(static_cast<std::size_t>(depth) + 1, '}');
    return text + "\nMOTION\nFrames: 1\nFrame Time: 1\n30\n";
  };
  const marrow::Asset asset = bvh_test::load_text(nested(1024));
  EXPECT_EQ(asset.skeleton.size(), 1025u);
  expect_error(nested(20000), 6 + 2 * 1024,
               "joint lies 1025 joints below its ROOT 'J'; marrow reads hierarchies at most 1024 "
               "levels deep");
}

TEST(BvhHostile, TooManyJoints) {
  std::string text = "HIERARCHY\n";
  for (int i = 0; i < 70000; ++i) text += "ROOT R { OFFSET 0 0 0 }\n";
  expect_error(text, 65537, "more than 65535 joints");
}

TEST(BvhHostile, EveryTruncationFailsCleanlyOrLoads) {
  // Cut the good file at every byte: each prefix either loads or gives a file:line error.
  for (std::size_t n = 0; n < kGood.size(); ++n) {
    const marrow::Result<marrow::Asset> asset = marrow::read_bvh(kGood.substr(0, n), "t.bvh");
    if (!asset.ok()) {
      EXPECT_EQ(asset.error().message.rfind("t.bvh:", 0), 0u) << n << ": " << asset.error().message;
    }
  }
}

TEST(BvhHostile, RandomMutationsNeverCrash) {
  std::mt19937 rng(12345);
  const std::string alphabet = "{}0123456789.-+eE \n\tABCXYZrotainsp:#\r\x01";
  for (int iteration = 0; iteration < 3000; ++iteration) {
    std::string text = kGood;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      const std::size_t at = rng() % text.size();
      switch (rng() % 3) {
        case 0:
          text[at] = alphabet[rng() % alphabet.size()];
          break;
        case 1:
          text.erase(at, 1 + rng() % 8);
          break;
        default:
          text.insert(at, 1, alphabet[rng() % alphabet.size()]);
          break;
      }
      if (text.empty()) text = "x";
    }
    const marrow::Result<marrow::Asset> asset = marrow::read_bvh(text, "t.bvh");
    if (!asset.ok()) {
      EXPECT_EQ(asset.error().message.rfind("t.bvh", 0), 0u) << asset.error().message;
    }
  }
}

TEST(BvhErrors, MissingFile) {
  const marrow::Result<marrow::Asset> asset = marrow::read_bvh(std::string("/nonexistent/x.bvh"));
  ASSERT_FALSE(asset.ok());
  EXPECT_NE(asset.error().message.find("/nonexistent/x.bvh"), std::string::npos);
}

}  // namespace
