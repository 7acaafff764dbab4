// The isolated import: FBX and Collada read by assimp in a child process. Files that crash or
// exhaust assimp 5.2.5 become errors naming the file, and the parent survives; what the child
// sends back is the same asset an in-process import gives. A misbehaving stand-in helper shows
// the parent's limits one by one.
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <thread>

#include "assimp_test_util.h"
#include "base/sanitizer_build.h"
#include "marrow/io/archive.h"

namespace marrow {
namespace {

using test::asset_path;

const std::string kData = MARROW_ASSIMP_TEST_DATA;

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.rfind(prefix, 0) == 0;
}

// Equal up to the last bit or two: the archive rebuilds the skeleton and the clips through
// Skeleton::build and ClipBuilder, which normalize rotations once more.
void expect_near(std::span<const float> a, std::span<const float> b) {
  ASSERT_EQ(a.size(), b.size());
  float worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::fabs(a[i] - b[i]));
  EXPECT_LE(worst, 1e-6f);
}

std::vector<float> floats_of(const Transform& t) {
  return {t.translation.x, t.translation.y, t.translation.z, t.rotation.x, t.rotation.y,
          t.rotation.z,    t.rotation.w,    t.scale.x,       t.scale.y,    t.scale.z};
}

void expect_same_asset(const Asset& a, const Asset& b) {
  ASSERT_EQ(a.skeleton.size(), b.skeleton.size());
  for (std::size_t j = 0; j < a.skeleton.size(); ++j) {
    EXPECT_EQ(a.skeleton.name(j), b.skeleton.name(j));
    EXPECT_EQ(a.skeleton.parent(j), b.skeleton.parent(j));
    expect_near(floats_of(a.skeleton.rest_pose()[j]), floats_of(b.skeleton.rest_pose()[j]));
  }
  EXPECT_EQ(a.source_index, b.source_index);
  ASSERT_EQ(a.clips.size(), b.clips.size());
  for (std::size_t c = 0; c < a.clips.size(); ++c) {
    EXPECT_EQ(a.clips[c].name(), b.clips[c].name());
    EXPECT_EQ(a.clips[c].duration(), b.clips[c].duration());
    EXPECT_EQ(a.clips[c].ticks_per_second(), b.clips[c].ticks_per_second());
    EXPECT_EQ(a.clips[c].tracks().size(), b.clips[c].tracks().size());
    // The archive may keep the tracks in another order: compare what they play.
    for (float f : {0.0f, 0.3f, 0.5f, 0.8f, 1.0f}) {
      const float t = f * a.clips[c].duration();
      const std::vector<Transform> x = test::local_pose(a, a.clips[c], t);
      const std::vector<Transform> y = test::local_pose(b, b.clips[c], t);
      for (std::size_t j = 0; j < x.size(); ++j) expect_near(floats_of(x[j]), floats_of(y[j]));
    }
    EXPECT_EQ(a.rate_source(c), b.rate_source(c));
  }
  ASSERT_EQ(a.meshes.size(), b.meshes.size());
  for (std::size_t m = 0; m < a.meshes.size(); ++m) {
    EXPECT_EQ(a.meshes[m].positions, b.meshes[m].positions);
    EXPECT_EQ(a.meshes[m].indices, b.meshes[m].indices);
    expect_near(a.meshes[m].influence_weights, b.meshes[m].influence_weights);
  }
  EXPECT_EQ(a.warnings, b.warnings);
}

TEST(AssimpIsolated, TheChildSendsBackWhatAnInProcessImportGives) {
  for (const char* file : {"fbx/walk.fbx", "fbx/arnaud.fbx", "collada/pab/skeleton.dae"}) {
    const std::string path = asset_path(file);
    MARROW_REQUIRE_ASSET(path);
    Result<Asset> inside = read_assimp(path);
    Result<Asset> isolated = read_assimp_isolated(path);
    ASSERT_TRUE(inside.ok()) << inside.error().message;
    ASSERT_TRUE(isolated.ok()) << isolated.error().message;
    EXPECT_EQ(isolated->source, path);
    expect_same_asset(*inside, *isolated);
  }
}

TEST(AssimpIsolated, LoadAssetIsolatesFbxByDefault) {
  // A 64-byte FBX whose property-list length wraps the tokenizer's end pointer around: assimp
  // 5.2.5 fails an assertion and aborts. Imported in this process it would end the test run.
  const std::string path = kData + "/block_length_wraps.fbx";
  Result<Asset> r = load_asset(path);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(starts_with(r.error().message,
                          "the FBX importer crashed on " + path + " (signal 6, SIGABRT)"))
      << r.error().message;
  LoadOptions inside;
  inside.isolate_importers = false;
  EXPECT_FALSE(inside.isolate_importers);  // the in-process path stays available, not tried here
}

TEST(AssimpIsolated, AColladaArrayWithoutItsCountIsASegfaultCaught) {
  // 4.4 KB, cut down by hand from a mutation of box_nested_animation.dae: the normals'
  // <float_array> has no count, and assimp 5.2.5 reads past the empty array it made.
  // load_asset reads .dae with marrow's own reader, which refuses it; assimp is asked directly.
  const std::string path = kData + "/float_array_without_count.dae";
  const Result<Asset> own = load_asset(path);
  EXPECT_FALSE(own.ok());
  Result<Asset> r = read_assimp_isolated(path);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "the Collada importer crashed on " + path + " (signal 11, SIGSEGV)");
}

TEST(AssimpIsolated, AColladaCountOfFourBillionIsARunawayAllocationStopped) {
  // 357 bytes announcing 4e9 floats: assimp reserves 16 GB for them.
  // marrow's own Collada reader refuses the count against the file's size; assimp is asked
  // directly.
  const std::string path = kData + "/float_array_count_4e9.dae";
  const Result<Asset> own = load_asset(path);
  EXPECT_FALSE(own.ok());
  Result<Asset> r = read_assimp_isolated(path);
#if defined(MARROW_ADDRESS_SANITIZER)
  // Under AddressSanitizer only the resident memory is watched, and an untouched reservation
  // costs none: what assimp makes of the rest decides, and the test process lives either way.
  if (!r.ok()) {
    EXPECT_NE(r.error().message.find(path), std::string::npos) << r.error().message;
  }
#else
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "the Collada importer ran out of its 1024 MiB on " + path +
                                   " (LoadOptions::importer_memory_bytes)");
#endif
}

TEST(AssimpIsolated, TheTimeLimitStopsTheChild) {
  const std::string path = asset_path("fbx/walk.fbx");
  MARROW_REQUIRE_ASSET(path);
  LoadOptions options;
  options.importer_seconds = 0.001;
  Result<Asset> r = read_assimp_isolated(path, options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "the FBX importer took longer than 0.001 s on " + path +
                                   " and was stopped (LoadOptions::importer_seconds)");
}

TEST(AssimpIsolated, AMissingHelperIsNamed) {
  LoadOptions options;
  options.importer_helper = "/nonexistent/marrow-import-helper";
  Result<Asset> r = read_assimp_isolated(kData + "/block_length_wraps.fbx", options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, kData +
                                   "/block_length_wraps.fbx: cannot run the isolated importer: "
                                   "LoadOptions::importer_helper "
                                   "'/nonexistent/marrow-import-helper' is not an executable file");
  EXPECT_TRUE(find_import_helper().ok()) << find_import_helper().error().message;
}

TEST(AssimpIsolated, SeveralThreadsImportAtOnce) {
  const std::string path = asset_path("fbx/jog.fbx");
  MARROW_REQUIRE_ASSET(path);
  Result<Asset> single = read_assimp_isolated(path);
  ASSERT_TRUE(single.ok()) << single.error().message;
  std::vector<Result<Asset>> results(4, Error{"not run"});
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < results.size(); ++t) {
    threads.emplace_back([&, t] { results[t] = read_assimp_isolated(path); });
  }
  for (std::thread& t : threads) t.join();
  for (Result<Asset>& r : results) {
    ASSERT_TRUE(r.ok()) << r.error().message;
    expect_same_asset(*single, *r);
  }
}

TEST(AssimpIsolated, TheAnswerIsCheckedFrameFirstThenArchive) {
  // A real answer: the frame (one clip, its rate the format's default), then an archive.
  const std::string path = asset_path("fbx/jog.fbx");
  MARROW_REQUIRE_ASSET(path);
  Result<Asset> asset = read_assimp(path);
  ASSERT_TRUE(asset.ok()) << asset.error().message;
  ASSERT_EQ(asset->clips.size(), 1u);
  Result<std::vector<std::uint8_t>> archive = archive_bytes(*asset);
  ASSERT_TRUE(archive.ok());
  std::vector<std::uint8_t> answer = {'M', 'R', 'W', 'C', 'H', 'L', 'D', '1', 1, 0, 0, 0, 1};
  answer.insert(answer.end(), archive->begin(), archive->end());
  Result<Asset> back = read_import_answer(answer, "jog.fbx");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->source, "jog.fbx");
  EXPECT_EQ(back->rate_source(0), RateSource::kDefault);
  const std::string from = "jog.fbx (as returned by the isolated importer): ";
  std::vector<std::uint8_t> bad = answer;
  bad[12] = 7;
  EXPECT_EQ(read_import_answer(bad, "jog.fbx").error().message,
            from + "clip 0 has an unknown rate source");
  bad = answer;
  bad[8] = 2;  // two rates for the archive's one clip
  bad.insert(bad.begin() + 13, 0);
  EXPECT_EQ(read_import_answer(bad, "jog.fbx").error().message,
            from + "the importer names the rate of 2 clips, the archive holds 1");
  bad.assign(answer.begin(), answer.begin() + 12);
  bad[8] = 200;
  EXPECT_EQ(read_import_answer(bad, "jog.fbx").error().message,
            from + "the importer's answer is cut short");
  // Cut anywhere, the answer is refused cleanly by the frame or the archive's own checks.
  for (std::size_t cut = 0; cut < answer.size(); cut += answer.size() / 50 + 1) {
    Result<Asset> r = read_import_answer(std::span<const std::uint8_t>(answer).first(cut), "j");
    EXPECT_FALSE(r.ok()) << cut;
  }
}

// ---- The parent against a stand-in child that misbehaves -----------------------------------

class FakeChild : public testing::Test {
 protected:
  Result<Asset> run(const std::string& behaviour, LoadOptions options = {}) {
    const std::filesystem::path dir = std::filesystem::path(testing::TempDir()) / "fake_child";
    std::filesystem::create_directories(dir);
    path_ = (dir / (behaviour + ".fbx")).string();
    std::ofstream(path_) << "fake";
    options.importer_helper = MARROW_FAKE_IMPORT_HELPER;
    return read_assimp_isolated(path_, options);
  }
  std::string path_;
};

TEST_F(FakeChild, AHangIsStoppedAtTheTimeLimit) {
  LoadOptions options;
  options.importer_seconds = 0.2;
  Result<Asset> r = run("hang", options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "the FBX importer took longer than 0.2 s on " + path_ +
                                   " and was stopped (LoadOptions::importer_seconds)");
}

TEST_F(FakeChild, ACrashNamesTheSignal) {
  Result<Asset> r = run("segv");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "the FBX importer crashed on " + path_ + " (signal 11, SIGSEGV)");
}

TEST_F(FakeChild, MemoryPastTheLimitStopsTheChild) {
  LoadOptions options;
  options.importer_memory_bytes = 64 << 20;
  Result<Asset> r = run("hog", options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "the FBX importer used more than 64 MiB on " + path_ +
                                   " and was stopped (LoadOptions::importer_memory_bytes)");
}

TEST_F(FakeChild, AnAnswerThatIsNotAnArchiveIsRefused) {
  Result<Asset> r = run("garbage");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, path_ +
                                   " (as returned by the isolated importer): the importer's "
                                   "answer does not start as expected");
  Result<Asset> bad = run("badarchive");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(starts_with(bad.error().message, path_ + " (as returned by the isolated importer)"))
      << bad.error().message;
}

TEST_F(FakeChild, AnAnswerPastTheDocumentBudgetIsCutOff) {
  Result<Asset> r = run("flood");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "the FBX importer sent back more than the 64 MiB the budget "
            "allows for " +
                path_ + " and was stopped");
}

TEST_F(FakeChild, TheChildsOwnErrorIsPassedOn) {
  Result<Asset> r = run("talk");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "t.fbx: assimp: something the importer said");
}

}  // namespace
}  // namespace marrow
