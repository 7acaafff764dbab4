// `marrow compile` run as a process: per clip it reports sizes, the ratio and the largest error
// measured against the exact clip; the bound the options give is the one compiled_clip.h
// defines (checked here from the skeleton); --out writes an archive whose compiled clips the
// test measures itself; bad bounds and bad files are clear errors that leave nothing behind.
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "compile_test_util.h"
#include "marrow/clip/compiled_sampling.h"
#include "marrow/clip/sampling.h"
#include "marrow/io/archive.h"
#include "shared_asset.h"

namespace compile_test {
namespace {

using namespace marrow;

TEST(CompileCli, ReportsSizesRatioAndAMeasuredErrorWithinTheBound) {
  Scratch s("compile_report");
  const Asset a = load(fixture());
  const nlohmann::json j = parse(run(s, {"compile", fixture(), "--format", "json"}));
  ASSERT_TRUE(j.is_object());
  // 0.1 mm at 1.8 m tall and virtual vertices at 10 cm, relative to this skeleton's extent.
  EXPECT_NEAR(j["extent"].get<float>(), extent(a.skeleton), 1e-6f);
  EXPECT_NEAR(j["bound"].get<float>(), relative_bound(a.skeleton, 0.1f), 1e-9f);
  EXPECT_NEAR(j["distance"].get<float>(), relative_bound(a.skeleton, 100.0f), 1e-6f);
  ASSERT_EQ(j["clips"].size(), a.clips.size());
  for (std::size_t c = 0; c < a.clips.size(); ++c) {
    const nlohmann::json& r = j["clips"][c];
    const Clip& clip = a.clips[c];
    EXPECT_EQ(r["name"], clip.name());
    // The exact clip's size: its track records and its key arrays.
    const std::size_t exact =
        clip.tracks().size() * sizeof(Track) + (clip.times().size() + clip.values().size()) * 4;
    EXPECT_EQ(r["exact_bytes"].get<std::size_t>(), exact);
    EXPECT_GT(r["compiled_bytes"].get<std::size_t>(), 0u);
    EXPECT_NEAR(r["ratio"].get<double>(),
                static_cast<double>(exact) / r["compiled_bytes"].get<double>(), 1e-9);
    EXPECT_LE(r["max_error"].get<float>(), j["bound"].get<float>());
    EXPECT_GT(r["measured_times"].get<std::size_t>(), 256u);  // keys, between them, random
  }
  // The text form says the same, with the bound in millimetres.
  const Outcome text = run(s, {"compile", fixture()});
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("bound 0.1 mm at 1.8 m"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("wave"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("measured against the exact clip"), std::string::npos) << text.out;
}

// Against raw float samples (ACL's measure), on a BVH whose header gives the count by hand:
// every joint × every frame × 10 floats. And ACL's metric: vertices 3 cm from each joint (at
// 1.8 m) lie between the joint and marrow's 10 cm vertices on the same axis, and a point's error
// is convex along that segment, so ACL's error is at most marrow's.
TEST(CompileCli, ReportsTheRatioToRawSamplesAndAclsMetric) {
  const std::string bvh = marrow::test::shared_asset_path("bvh/cmu_iclone/002_03.bvh");
  if (!std::filesystem::exists(bvh)) GTEST_SKIP() << bvh << " is absent";
  Scratch s("compile_raw");
  std::ifstream in(bvh);
  std::string line;
  std::size_t frames = 0;
  while (std::getline(in, line))
    if (line.rfind("Frames:", 0) == 0) frames = std::stoul(line.substr(7));
  ASSERT_GT(frames, 1u);
  const nlohmann::json j =
      parse(run(s, {"compile", bvh, "--format", "json", "--metric", "acl", "--error", "1"}));
  ASSERT_TRUE(j.is_object());
  const nlohmann::json& r = j["clips"][0];
  const std::size_t raw = j["joints"].get<std::size_t>() * frames * 40;
  EXPECT_EQ(r["raw_bytes"].get<std::size_t>(), raw);
  EXPECT_NEAR(r["raw_ratio"].get<double>(), raw / r["compiled_bytes"].get<double>(), 1e-9);
  const nlohmann::json& acl = r["acl_metric"];
  ASSERT_TRUE(acl.is_object()) << r.dump();
  EXPECT_NEAR(acl["shell"].get<double>(), 3.0 / 180.0 * j["extent"].get<double>(), 1e-5);
  EXPECT_GT(acl["max_error"].get<double>(), 0.0);
  EXPECT_LE(acl["max_error"].get<double>(), r["max_error"].get<double>() * (1 + 1e-5));
  // Without --metric acl the member is absent; the text form names the metric when asked.
  const nlohmann::json plain = parse(run(s, {"compile", bvh, "--format", "json", "--error", "1"}));
  EXPECT_FALSE(plain["clips"][0].contains("acl_metric"));
  const Outcome text = run(s, {"compile", bvh, "--metric", "acl", "--error", "1"});
  EXPECT_NE(text.out.find("ACL's metric"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("raw:c"), std::string::npos) << text.out;
}

// A looser bound is used, and the error reported grows with it: the number is measured, not the
// bound echoed or zero assumed.
TEST(CompileCli, TheReportedErrorFollowsTheBoundItIsMeasuredUnder) {
  const std::string soldier = shared_asset("gltf/Soldier.glb");
  COMPILE_REQUIRE_FILE(soldier);
  Scratch s("compile_loose");
  const nlohmann::json tight =
      parse(run(s, {"compile", soldier, "--clip", "Walk", "--format", "json"}));
  const nlohmann::json loose =
      parse(run(s, {"compile", soldier, "--clip", "Walk", "--error", "5", "--format", "json"}));
  ASSERT_EQ(tight["clips"].size(), 1u);
  ASSERT_EQ(loose["clips"].size(), 1u);
  const float tight_error = tight["clips"][0]["max_error"],
              loose_error = loose["clips"][0]["max_error"];
  EXPECT_LE(tight_error, tight["bound"].get<float>());
  EXPECT_LE(loose_error, loose["bound"].get<float>());
  EXPECT_NEAR(loose["bound"].get<float>(), 50 * tight["bound"].get<float>(), 1e-9f);
  // Under 5 mm the compiler takes more than the whole 0.1 mm: the measured error shows it.
  EXPECT_GT(loose_error, tight["bound"].get<float>());
  EXPECT_LT(loose["clips"][0]["compiled_bytes"].get<std::size_t>(),
            tight["clips"][0]["compiled_bytes"].get<std::size_t>());
}

// --clip repeats: the clips named are compiled, in the order given, each once; the archive --out
// writes holds compiled forms for those alone. An unknown name is an error listing the clips.
TEST(CompileCli, ClipRepeatsAndNamesOnlyTheClipsCompiled) {
  const std::string soldier = shared_asset("gltf/Soldier.glb");
  COMPILE_REQUIRE_FILE(soldier);
  Scratch s("compile_clips");
  const std::string out = (s.dir / "two.marrow").string();
  const nlohmann::json report = parse(run(s, {"compile", soldier, "--clip", "Walk", "--clip", "1",
                                              "--clip", "Walk", "--out", out, "--format", "json"}));
  ASSERT_EQ(report["clips"].size(), 2u);
  EXPECT_EQ(report["clips"][0]["name"], "Walk");
  EXPECT_EQ(report["clips"][1]["name"], "Run");  // index 1 in Soldier.glb's clip list
  Result<Asset> archive = load_asset(out);
  ASSERT_TRUE(archive.ok()) << archive.error().message;
  ASSERT_EQ(archive->clips.size(), 4u);  // every clip is kept; two carry compiled forms
  for (std::size_t c = 0; c < archive->clips.size(); ++c) {
    const std::string& name = archive->clips[c].name();
    EXPECT_EQ(archive->compiled_clip(c) != nullptr, name == "Walk" || name == "Run") << name;
  }
  const Outcome unknown = run(s, {"compile", soldier, "--clip", "Walk", "--clip", "Swim"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("no clip 'Swim' (clips: Idle, Run, TPose, Walk)"), std::string::npos)
      << unknown.err;
}

// Every clip of the archive --out wrote carries its compiled form, made under the bound asked
// for, and the test's own measurement (keys, between keys, random times, played backwards)
// finds it within that bound.
TEST(CompileCli, WritesAnArchiveWhoseCompiledClipsStayWithinTheBound) {
  Scratch s("compile_out");
  const std::string out = (s.dir / "compiled.marrow").string();
  const Outcome o = run(s, {"compile", fixture(), "--error", "0.5", "--out", out});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("wrote " + out), std::string::npos) << o.out;
  Result<Asset> a = read_archive(out);
  ASSERT_TRUE(a.ok()) << a.error().message;
  const float bound = relative_bound(a->skeleton, 0.5f);
  const std::vector<float> local = local_distances(a->skeleton, relative_bound(a->skeleton, 100));
  ASSERT_EQ(a->compiled_clips.size(), a->clips.size());
  for (std::size_t c = 0; c < a->clips.size(); ++c) {
    const Clip& clip = a->clips[c];
    const CompiledClip* compiled = a->compiled_clip(c);
    ASSERT_NE(compiled, nullptr) << clip.name();
    EXPECT_NEAR(compiled->report().bound, bound, 1e-9f);
    std::vector<float> times;
    for (std::size_t k = 0; k < clip.times().size(); ++k) {
      times.push_back(clip.times()[k]);
      if (k + 1 < clip.times().size())
        times.push_back(0.5f * (clip.times()[k] + clip.times()[k + 1]));
    }
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> anywhere(0, clip.duration());
    for (int i = 0; i < 200; ++i) times.push_back(anywhere(rng));
    std::sort(times.begin(), times.end());
    std::vector<float> backwards(times.rbegin(), times.rend());
    times.insert(times.end(), backwards.begin(), backwards.end());
    const std::size_t n = a->skeleton.size();
    std::vector<Transform> exact(n), fast(n);
    std::vector<SoaTransform> soa(soa_group_count(n));
    std::vector<Mat4> me(n), mf(n);
    CompiledSamplingContext context(*compiled);
    float worst = 0;
    for (float t : times) {
      std::copy(a->skeleton.rest_pose().begin(), a->skeleton.rest_pose().end(), exact.begin());
      ASSERT_TRUE(sample_tracks(clip, t, exact));
      CompiledSamplingJob job;
      job.clip = compiled;
      job.time = t;
      job.rest_pose = a->skeleton.soa_rest_pose();
      job.context = &context;
      job.output = soa;
      ASSERT_TRUE(job.run());
      ASSERT_TRUE(from_soa(soa, fast));
      ASSERT_TRUE(local_to_model(a->skeleton, exact, me));
      ASSERT_TRUE(local_to_model(a->skeleton, fast, mf));
      for (std::size_t j = 0; j < n; ++j)
        worst = std::max(worst, virtual_vertex_error(me[j], mf[j], local[j]));
    }
    EXPECT_LE(worst, bound) << clip.name();
  }
}

// An absolute bound is taken in the file's model units, as given.
TEST(CompileCli, AbsoluteBoundsAreInModelUnits) {
  Scratch s("compile_absolute");
  const nlohmann::json j = parse(run(s, {"compile", fixture(), "--absolute", "--error", "0.002",
                                         "--distance", "0.5", "--format", "json"}));
  EXPECT_FLOAT_EQ(j["bound"].get<float>(), 0.002f);
  EXPECT_FLOAT_EQ(j["distance"].get<float>(), 0.5f);
  for (const nlohmann::json& r : j["clips"]) EXPECT_LE(r["max_error"].get<float>(), 0.002f);
}

TEST(CompileCli, ABoundOfZeroBelowZeroOrNotANumberIsAClearErrorAndWritesNothing) {
  Scratch s("compile_bad_bound");
  const std::string out = (s.dir / "never.marrow").string();
  for (const char* bad : {"0", "-1", "-0.0001", "nan", "inf", "-inf"}) {
    const Outcome o = run(s, {"compile", fixture(), "--error=" + std::string(bad), "--out", out});
    EXPECT_EQ(o.exit_code, 1) << bad;
    EXPECT_NE(o.err.find("--error: the error bound must be a finite number above 0"),
              std::string::npos)
        << bad << ": " << o.err;
    EXPECT_EQ(o.out, "") << bad;
  }
  for (const char* bad : {"-1", "nan"}) {
    const Outcome o = run(s, {"compile", fixture(), "--distance=" + std::string(bad)});
    EXPECT_EQ(o.exit_code, 1) << bad;
    EXPECT_NE(o.err.find("--distance: the virtual vertices' distance must be a finite number"),
              std::string::npos)
        << o.err;
  }
  const Outcome words = run(s, {"compile", fixture(), "--error", "tiny"});
  EXPECT_NE(words.exit_code, 0);
  EXPECT_NE(words.err.find("--error"), std::string::npos) << words.err;
  EXPECT_EQ(files_in(s.dir), (std::vector<std::string>{"stderr", "stdout"}));
}

TEST(CompileCli, OutMustBeAnArchive) {
  Scratch s("compile_out_glb");
  const Outcome o = run(s, {"compile", fixture(), "--out", (s.dir / "x.glb").string()});
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.err.find("compiled clips are kept in marrow's archive only"), std::string::npos)
      << o.err;
  EXPECT_EQ(files_in(s.dir), (std::vector<std::string>{"stderr", "stdout"}));
}

TEST(CompileCli, OneClipByNameAndAnUnknownNameListsTheClips) {
  const std::string soldier = shared_asset("gltf/Soldier.glb");
  COMPILE_REQUIRE_FILE(soldier);
  Scratch s("compile_clip");
  const nlohmann::json j = parse(run(s, {"compile", soldier, "--clip", "Run", "--format", "json"}));
  ASSERT_EQ(j["clips"].size(), 1u);
  EXPECT_EQ(j["clips"][0]["name"], "Run");
  const Outcome o = run(s, {"compile", soldier, "--clip", "Swim"});
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.err.find("no clip 'Swim' (clips: Idle, Run, TPose, Walk)"), std::string::npos)
      << o.err;
}

// With --clip, the other clips keep the compiled forms the input archive held.
TEST(CompileCli, RecompilingOneClipOfAnArchiveKeepsTheOthers) {
  const std::string soldier = shared_asset("gltf/Soldier.glb");
  COMPILE_REQUIRE_FILE(soldier);
  Scratch s("compile_keep");
  const std::string first = (s.dir / "a.marrow").string(), second = (s.dir / "b.marrow").string();
  ASSERT_EQ(run(s, {"compile", soldier, "--out", first}).exit_code, 0);
  ASSERT_EQ(run(s, {"compile", first, "--clip", "Walk", "--error", "1", "--out", second}).exit_code,
            0);
  Result<Asset> a = read_archive(first), b = read_archive(second);
  ASSERT_TRUE(a.ok() && b.ok());
  for (std::size_t c = 0; c < b->clips.size(); ++c) {
    ASSERT_NE(b->compiled_clip(c), nullptr) << c;
    const float expected = b->clips[c].name() == "Walk" ? relative_bound(b->skeleton, 1.0f)
                                                        : relative_bound(b->skeleton, 0.1f);
    EXPECT_NEAR(b->compiled_clip(c)->report().bound, expected, 1e-9f) << b->clips[c].name();
    if (b->clips[c].name() != "Walk") {
      EXPECT_EQ(b->compiled_clip(c)->to_data().frames, a->compiled_clip(c)->to_data().frames);
    }
  }
}

TEST(CompileCli, FilesThatDoNotLoadAreErrorsNamingThem) {
  Scratch s("compile_bad_file");
  const std::string missing = (s.dir / "missing.glb").string();
  Outcome o = run(s, {"compile", missing});
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.err.find(missing), std::string::npos) << o.err;
  // An archive whose compiled clip lies: refused with the file's name, and no output written.
  const Asset a = load(fixture());
  Asset with = a;
  Result<CompiledClip> compiled = CompiledClip::compile(a.clips[0], a.skeleton);
  ASSERT_TRUE(compiled.ok());
  with.compiled_clips.push_back(std::move(compiled).value());
  Result<std::vector<std::uint8_t>> bytes = archive_bytes(with);
  ASSERT_TRUE(bytes.ok());
  std::vector<std::uint8_t> b = *bytes;
  b[b.size() / 2] ^= 0xFF;  // the CRC catches it
  const std::string bad = (s.dir / "bad.marrow").string();
  {
    std::ofstream f(bad, std::ios::binary);
    f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  }
  o = run(s, {"compile", bad, "--out", (s.dir / "out.marrow").string()});
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_EQ(o.err.rfind("marrow: " + bad + ": byte ", 0), 0u) << o.err;
  EXPECT_EQ(files_in(s.dir), (std::vector<std::string>{"bad.marrow", "stderr", "stdout"}));
}

}  // namespace
}  // namespace compile_test
