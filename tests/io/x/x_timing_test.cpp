// Timing a user can trust (issue 17): a .X file without AnimTicksPerSecond is read at DirectX's
// 4800 ticks per second, says so when its keys look like frame numbers, takes the caller's
// rate instead when given one, and every clip tells where its rate came from.
#include <fstream>
#include <iterator>

#include "marrow/io/save.h"
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

// The key times of the first clip's first track.
std::vector<float> first_track_times(const Asset& a) {
  const Track& t = a.clips.at(0).tracks()[0];
  return {a.clips[0].times().begin() + t.first_key,
          a.clips[0].times().begin() + t.first_key + t.key_count};
}

// A guessed rate stays a guess through every writer: the output says "default", not "file", and
// --ticks-per-second still applies to it, giving the times the source gives at that rate
// (56 ticks at 25 per second: keys at 0, 1.12 and 2.24 s).
TEST(XTiming, AGuessedRateStaysAGuessThroughEveryWriter) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      ("marrow_x_rate_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::create_directories(dir);
  const std::string source = (dir / "walk.x").string();
  std::ofstream(source) << frames_as_ticks(56);
  Result<Asset> guessed = load_asset(source);
  ASSERT_TRUE(guessed.ok()) << guessed.error().message;
  ASSERT_EQ(guessed->rate_source(0), RateSource::kDefault);
  LoadOptions at25;
  at25.ticks_per_second = 25;
  Result<Asset> given = load_asset(source, at25);
  ASSERT_TRUE(given.ok()) << given.error().message;
  EXPECT_EQ(first_track_times(*given), (std::vector<float>{0, 1.12f, 2.24f}));

  for (const char* name : {"walk.glb", "walk.gltf", "walk.marrow"}) {
    SCOPED_TRACE(name);
    const std::string out = (dir / name).string();
    ASSERT_TRUE(save_asset(*guessed, out).ok());
    Result<Asset> back = load_asset(out);
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back->rate_source(0), RateSource::kDefault);
    EXPECT_DOUBLE_EQ(back->clips[0].ticks_per_second(), 4800.0);
    EXPECT_NEAR(back->clips[0].duration(), 56.0f / 4800, 1e-7f);

    Result<Asset> rescaled = load_asset(out, at25);
    ASSERT_TRUE(rescaled.ok()) << rescaled.error().message;
    EXPECT_EQ(rescaled->rate_source(0), RateSource::kOption);
    EXPECT_DOUBLE_EQ(rescaled->clips[0].ticks_per_second(), 25.0);
    EXPECT_NEAR(rescaled->clips[0].duration(), 2.24f, 1e-5f);
    const std::vector<float> times = first_track_times(*rescaled);
    ASSERT_EQ(times.size(), 3u);
    for (std::size_t k = 0; k < 3; ++k) EXPECT_NEAR(times[k], 1.12f * k, 1e-5f) << k;
    bool noted = false;
    for (const std::string& w : rescaled->warnings)
      noted |= w.find("its 4800 ticks/s were a default, not the file's; read at 25 ticks/s") !=
               std::string::npos;
    EXPECT_TRUE(noted);

    // Converted at the rate the user gave, the output keeps that rate and says where it came
    // from; another rate later does not move it.
    ASSERT_TRUE(save_asset(*given, out).ok());
    LoadOptions at30;
    at30.ticks_per_second = 30;
    Result<Asset> kept = load_asset(out, at30);
    ASSERT_TRUE(kept.ok()) << kept.error().message;
    EXPECT_EQ(kept->rate_source(0), RateSource::kOption);
    EXPECT_DOUBLE_EQ(kept->clips[0].ticks_per_second(), 25.0);
    EXPECT_NEAR(kept->clips[0].duration(), 2.24f, 1e-6f);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace marrow::xtest
