// Loading and saving from many threads at once gives what one thread gives, byte for byte: no
// reader or writer of marrow keeps global state, and neither does the way it drives its
// libraries (assimp, tinyobjloader, zlib, nlohmann/json). Run in the ordinary suite, under
// AddressSanitizer, and under ThreadSanitizer (make test-tsan), which reports any unsynchronized
// access to shared memory even when the bytes come out right.
#include <gtest/gtest.h>

#include <atomic>
#include <barrier>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "../common/whole_file.h"
#include "encodings.h"
#include "marrow/io/archive.h"
#include "marrow/io/asset.h"
#include "marrow/io/save.h"
#include "shared_asset.h"

namespace fs = std::filesystem;
using marrow::Asset;
using Bytes = std::vector<std::uint8_t>;

namespace {

constexpr int kThreads = 8;

const fs::path kAssets = marrow::test::shared_asset_dir();

Bytes read_bytes(const fs::path& p) {
  return marrow::test::whole_file<Bytes>(p);
}

void write_bytes(const fs::path& p, const Bytes& bytes) {
  std::ofstream out(p, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

void write_text(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

Bytes archive_of(const marrow::Result<Asset>& asset, const std::string& what) {
  if (!asset) {
    ADD_FAILURE() << what << ": " << asset.error().message;
    return {};
  }
  marrow::Result<Bytes> bytes = marrow::archive_bytes(asset.value());
  EXPECT_TRUE(bytes.ok()) << what;
  return bytes.ok() ? *bytes : Bytes{};
}

class ConcurrentLoading : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::is_directory(kAssets)) GTEST_SKIP() << kAssets << " is absent";
    // ctest runs each test in its own process, several at once, and the ThreadSanitizer runtime
    // places the heap at the same addresses in each: the process id keeps the folders apart.
    dir_ = fs::temp_directory_path() / ("marrow_concurrent_" + std::to_string(::getpid()) + "_" +
                                        std::to_string(reinterpret_cast<std::uintptr_t>(this)));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }

  // One file of every format marrow reads, several files for the formats with most code.
  // Formats without a shared asset (binary and compressed .X, OBJ, the archive) are made here
  // from shared ones.
  std::vector<std::string> files_of_every_format() {
    std::vector<std::string> files;
    for (const char* name :
         {"gltf/triangle.gltf", "gltf/simple_skin.gltf", "gltf/box_animated.gltf",
          "gltf/morph/AnimatedMorphCube.gltf", "gltf/quad_skin.glb", "gltf/Soldier.glb", "x/test.x",
          "x/Testwuson.X", "bvh/01_01.bvh", "fbx/walk.fbx", "fbx/arnaud.fbx",
          "collada/pab/walk.dae", "md5/BoarMan.md5mesh", "smd/WusonSMD.smd"}) {
      const fs::path p = kAssets / name;
      if (fs::exists(p)) files.push_back(p.string());
    }
    const Bytes wuson = read_bytes(kAssets / "x/Testwuson.X");
    const std::string_view wuson_text(reinterpret_cast<const char*>(wuson.data()), wuson.size());
    if (auto binary = marrow::fuzz::x_text_to_binary(wuson_text, false)) {
      write_bytes(dir_ / "wuson_binary.x", *binary);
      write_bytes(dir_ / "wuson_bzip.x", marrow::fuzz::x_mszip(*binary));
      files.push_back((dir_ / "wuson_binary.x").string());
      files.push_back((dir_ / "wuson_bzip.x").string());
    }
    write_bytes(dir_ / "wuson_tzip.x", marrow::fuzz::x_mszip(wuson, 8192));
    files.push_back((dir_ / "wuson_tzip.x").string());
    if (auto soldier = marrow::load_asset((kAssets / "gltf/Soldier.glb").string())) {
      const auto [obj, mtl] = marrow::fuzz::obj_and_mtl(*soldier, "soldier.mtl");
      write_text(dir_ / "soldier.obj", obj);
      write_text(dir_ / "soldier.mtl", mtl);
      files.push_back((dir_ / "soldier.obj").string());
    }
    if (auto xbot = marrow::load_asset((kAssets / "gltf/Xbot.glb").string())) {
      EXPECT_TRUE(marrow::save_asset(*xbot, (dir_ / "xbot.marrow").string()).ok());
      files.push_back((dir_ / "xbot.marrow").string());
    }
    return files;
  }

  fs::path dir_;
};

TEST_F(ConcurrentLoading, EightThreadsLoadEveryFormatExactlyAsOneThreadDoes) {
  const std::vector<std::string> files = files_of_every_format();
  ASSERT_GE(files.size(), 8u);
  std::vector<Bytes> expected;
  for (const std::string& f : files) expected.push_back(archive_of(marrow::load_asset(f), f));

  // Every file twice, handed out in order to 8 threads that start together: at any moment the
  // threads are loading different files (and, later, the same file as another thread).
  const std::size_t jobs = files.size() * 2;
  std::vector<Bytes> got(jobs);
  std::atomic<std::size_t> next{0};
  std::barrier start(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      start.arrive_and_wait();
      for (std::size_t j = next++; j < jobs; j = next++) {
        const std::string& f = files[j % files.size()];
        marrow::Result<Asset> asset = marrow::load_asset(f);
        if (!asset) continue;  // reported below as a difference
        if (auto bytes = marrow::archive_bytes(*asset)) got[j] = std::move(bytes).value();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (std::size_t j = 0; j < jobs; ++j) {
    const std::size_t f = j % files.size();
    EXPECT_FALSE(got[j].empty()) << files[f] << " failed to load on a thread";
    EXPECT_TRUE(got[j] == expected[f]) << files[f] << ": a load on a thread differs from the "
                                       << "single-threaded load (" << got[j].size() << " vs "
                                       << expected[f].size() << " archive bytes)";
  }
}

TEST_F(ConcurrentLoading, EightThreadsSaveToEveryFormatExactlyAsOneThreadDoes) {
  const fs::path source = kAssets / "gltf/Soldier.glb";
  if (!fs::exists(source)) GTEST_SKIP() << source << " is absent";
  marrow::Result<Asset> asset = marrow::load_asset(source.string());
  ASSERT_TRUE(asset.ok()) << asset.error().message;
  const char* extensions[] = {".glb", ".gltf", ".marrow"};
  // One folder per writer, the same file names in each (a .gltf names its "<stem>.bin").
  auto path_of = [&](const std::string& who, int e) {
    return dir_ / who / (std::string("soldier") + extensions[e]);
  };
  for (int t = 0; t < kThreads; ++t) fs::create_directories(dir_ / ("thread" + std::to_string(t)));
  fs::create_directories(dir_ / "single");
  for (int e = 0; e < 3; ++e)
    ASSERT_TRUE(marrow::save_asset(*asset, path_of("single", e).string()).ok());

  // Each thread writes every format under its own names, all at once: temporary names, the
  // rename into place and the signal-cleanup table are shared by every writer of the process.
  std::barrier start(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      start.arrive_and_wait();
      for (int e = 0; e < 3; ++e) {
        const marrow::Status s =
            marrow::save_asset(*asset, path_of("thread" + std::to_string(t), e).string());
        EXPECT_TRUE(s.ok()) << s.error().message;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (int t = 0; t < kThreads; ++t) {
    for (int e = 0; e < 3; ++e) {
      EXPECT_TRUE(read_bytes(path_of("thread" + std::to_string(t), e)) ==
                  read_bytes(path_of("single", e)))
          << "thread " << t << extensions[e];
    }
    // The .gltf's side files (its .bin, Soldier's two images) too; nothing else: no temporary
    // left behind.
    std::size_t entries = 0;
    for (const auto& e : fs::directory_iterator(dir_ / ("thread" + std::to_string(t)))) {
      ++entries;
      EXPECT_TRUE(read_bytes(e.path()) == read_bytes(dir_ / "single" / e.path().filename()))
          << e.path();
    }
    EXPECT_EQ(entries, 3u + 1u + asset->images.size()) << "thread " << t;
  }
}

}  // namespace
