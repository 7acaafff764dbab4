// Timing a user can trust (issue 17): a .X file without AnimTicksPerSecond is read at DirectX's
// 4800 ticks per second, says so when its keys look like frame numbers, takes the caller's
// rate instead when given one, and every clip tells where its rate came from.
#include <fstream>
#include <iterator>

#include "x_test_util.h"

namespace marrow::xtest {
namespace {

// One frame, one set, keys at ticks 0, 28 and 56 and no AnimTicksPerSecond: an exporter that
// wrote frame numbers. At 4800 ticks/s the set lasts 56 / 4800 = 0.0117 s; read as frames at
// 25 per second, 56 / 25 = 2.24 s.
std::string frames_as_ticks(int last) {
  const std::string mid = std::to_string(last / 2), end = std::to_string(last);
  return "xof 0303txt 0032\n"
         "Frame Hip {\n"
         "  FrameTransformMatrix { 1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1;; }\n"
         "}\n"
         "AnimationSet Walk {\n"
         "  Animation {\n"
         "    { Hip }\n"
         "    AnimationKey {\n"
         "      2;\n"
         "      3;\n"
         "      0;3;0,0,0;;,\n"
         "      " +
         mid +
         ";3;1,0,0;;,\n"
         "      " +
         end +
         ";3;2,0,0;;;\n"
         "    }\n"
         "  }\n"
         "}\n";
}

std::vector<std::string> timing_warnings(const Asset& a) {
  std::vector<std::string> out;
  for (const std::string& w : a.warnings) {
    if (w.find("AnimTicksPerSecond") != std::string::npos) out.push_back(w);
  }
  return out;
}

TEST(XTiming, KeysThatLookLikeFrameNumbersGetAWarningNamingBothReadings) {
  Result<Asset> r = read_text(frames_as_ticks(56));
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->clips.size(), 1u);
  EXPECT_NEAR(r->clips[0].duration(), 56.0f / 4800, 1e-7f);
  EXPECT_EQ(r->rate_source(0), RateSource::kDefault);
  EXPECT_EQ(timing_warnings(*r),
            std::vector<std::string>{
                "mini.x:5: AnimationSet 'Walk': the file gives no AnimTicksPerSecond and its keys "
                "end at tick 56: 0.0117 s at DirectX's 4800 ticks/s, or 2.24 s at 25 frames/s if "
                "they are frame numbers (choose the rate with --ticks-per-second or "
                "LoadOptions::ticks_per_second)"});
}

TEST(XTiming, TheCallersRateAppliesWhenTheFileGivesNone) {
  LoadOptions options;
  options.ticks_per_second = 25;
  const std::string text = frames_as_ticks(56);
  Result<Asset> r = read_x(std::span<const std::uint8_t>(
                               reinterpret_cast<const std::uint8_t*>(text.data()), text.size()),
                           "mini.x", options);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_NEAR(r->clips[0].duration(), 2.24f, 1e-6f);
  EXPECT_DOUBLE_EQ(r->clips[0].ticks_per_second(), 25.0);
  EXPECT_EQ(r->rate_source(0), RateSource::kOption);
  EXPECT_TRUE(timing_warnings(*r).empty());
}

TEST(XTiming, KeysLongerThanATenthOfASecondAtTheDefaultGetNoWarning) {
  Result<Asset> r = read_text(frames_as_ticks(4800));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_NEAR(r->clips[0].duration(), 1.0f, 1e-7f);
  EXPECT_EQ(r->rate_source(0), RateSource::kDefault);
  EXPECT_TRUE(timing_warnings(*r).empty());
}

TEST(XTiming, SharedFilesKeepTheirOwnRateAndLoseItOnlyWhenItIsRemoved) {
  const std::string path = x_asset("anim_test.x");
  MARROW_REQUIRE_X_ASSET(path);
  std::ifstream in(path, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // The file says AnimTicksPerSecond 24 and its keys run from tick 1 to tick 24: the rate in
  // the file wins over the caller's.
  LoadOptions options;
  options.ticks_per_second = 25;
  Result<Asset> own = load_asset(path, options);
  ASSERT_TRUE(own.ok()) << own.error().message;
  ASSERT_EQ(own->clips.size(), 1u);
  EXPECT_DOUBLE_EQ(own->clips[0].ticks_per_second(), 24.0);
  EXPECT_EQ(own->rate_source(0), RateSource::kFile);
  EXPECT_NEAR(own->clips[0].duration(), 1.0f, 1e-6f);
  // Without the object the same keys last 24 / 4800 = 0.005 s, or 24 / 25 = 0.96 s as frames.
  const std::string object = "AnimTicksPerSecond {\n    24;\n}\n";
  ASSERT_NE(text.find(object), std::string::npos);
  std::string stripped = text;
  stripped.replace(stripped.find(object), object.size(), "\n\n\n");
  Result<Asset> bare = read_text(stripped, "anim_test.x");
  ASSERT_TRUE(bare.ok()) << bare.error().message;
  EXPECT_EQ(bare->rate_source(0), RateSource::kDefault);
  const std::vector<std::string> w = timing_warnings(*bare);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("keys end at tick 24: 0.005 s at DirectX's 4800 ticks/s, or 0.96 s at 25 "
                      "frames/s"),
            std::string::npos)
      << w[0];
  // Testwuson.X gives its rate before every set.
  const std::string wuson = x_asset("Testwuson.X");
  MARROW_REQUIRE_X_ASSET(wuson);
  Result<Asset> w2 = load_asset(wuson, options);
  ASSERT_TRUE(w2.ok()) << w2.error().message;
  for (std::size_t c = 0; c < w2->clips.size(); ++c) {
    EXPECT_EQ(w2->rate_source(c), RateSource::kFile) << c;
    EXPECT_DOUBLE_EQ(w2->clips[c].ticks_per_second(), 4800.0);
  }
}

}  // namespace
}  // namespace marrow::xtest
