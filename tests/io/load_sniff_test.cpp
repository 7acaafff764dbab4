// load_asset and what a file is: a folder, a missing file, and files whose content is another
// format than their name says (read as what they are, with a note, or refused naming what they
// are); and every shared asset's content fits its own name.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "format_sniff.h"
#include "marrow/io/asset.h"
#include "marrow/io/gltf_export.h"
#include "shared_asset.h"

namespace marrow {
namespace {

namespace fs = std::filesystem;

// A BVH of two joints and an End Site (a third joint, docs/formats_bvh.md) over two frames,
// written by hand.
constexpr const char* kBvh =
    "HIERARCHY\nROOT hips\n{\n  OFFSET 0 0 0\n  CHANNELS 6 Xposition Yposition Zposition "
    "Zrotation Xrotation Yrotation\n  JOINT spine\n  {\n    OFFSET 0 1 0\n    CHANNELS 3 "
    "Zrotation Xrotation Yrotation\n    End Site\n    {\n      OFFSET 0 1 0\n    }\n  }\n}\n"
    "MOTION\nFrames: 2\nFrame Time: 0.5\n0 0 0 0 0 0 0 0 0\n0 1 0 0 0 0 0 0 90\n";

class LoadSniff : public testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        fs::temp_directory_path() /
        ("marrow_load_sniff_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
         "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& bytes) const {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << bytes;
    return p.string();
  }

  fs::path dir_;
};

bool first_note_says(const Asset& a, const std::string& words) {
  return !a.warnings.empty() && a.warnings.front().find(words) != std::string::npos;
}

TEST_F(LoadSniff, AFolderIsAFolderAndAMissingFileIsMissing) {
  Result<Asset> folder = load_asset(dir_.string());
  ASSERT_FALSE(folder.ok());
  EXPECT_NE(folder.error().message.find("is a directory"), std::string::npos)
      << folder.error().message;
  Result<Asset> missing = load_asset((dir_ / "nothing.glb").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("no such file"), std::string::npos);
}

TEST_F(LoadSniff, BvhTextNamedGlbIsReadAsBvhWithANote) {
  const std::string path = write("walk.glb", kBvh);
  Result<Asset> a = load_asset(path);
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->skeleton.size(), 3u);
  ASSERT_EQ(a->clips.size(), 1u);
  EXPECT_TRUE(first_note_says(*a, "its content is BVH text, not what the name's '.glb' says"))
      << (a->warnings.empty() ? "no note" : a->warnings.front());
}

TEST_F(LoadSniff, AGlbNamedBvhOrWithNoKnownExtensionIsReadAsGlb) {
  Result<Asset> bvh = load_asset(write("walk.bvh", kBvh));
  ASSERT_TRUE(bvh.ok()) << bvh.error().message;
  EXPECT_TRUE(bvh->warnings.empty() ||
              bvh->warnings.front().find("its content") == std::string::npos);
  Result<std::vector<std::uint8_t>> glb = export_glb(*bvh);
  ASSERT_TRUE(glb.ok()) << glb.error().message;
  const std::string bytes(glb->begin(), glb->end());
  for (const char* name : {"walk_glb.bvh", "walk_glb.bin", "walk_glb"}) {
    Result<Asset> a = load_asset(write(name, bytes));
    ASSERT_TRUE(a.ok()) << name << ": " << a.error().message;
    EXPECT_EQ(a->skeleton.size(), 3u) << name;
    EXPECT_TRUE(first_note_says(*a, "its content is a binary glTF (GLB), not what")) << name;
  }
}

TEST_F(LoadSniff, ContentMarrowCannotReadIsNamedInTheError) {
  Result<Asset> json = load_asset(write("walk.bvh", "{\"frames\": [1, 2, 3]}\n"));
  ASSERT_FALSE(json.ok());
  EXPECT_NE(json.error().message.find("its content is JSON that is not glTF, not what the name's "
                                      "'.bvh' says"),
            std::string::npos)
      << json.error().message;
  // A reader's own error keeps its place, and says which reader read it and why.
  Result<Asset> bad_bvh = load_asset(write("cut.glb", "HIERARCHY\nROOT hips\n{\n"));
  ASSERT_FALSE(bad_bvh.ok());
  EXPECT_NE(bad_bvh.error().message.find("read as BVH text, which its content is"),
            std::string::npos)
      << bad_bvh.error().message;
  // Bytes that are no format at all, under an unknown name, are still "unsupported".
  Result<Asset> junk = load_asset(write("notes.txt", std::string("\x01\x02\x03\x00", 4)));
  ASSERT_FALSE(junk.ok());
  EXPECT_NE(junk.error().message.find("unsupported file type '.txt'"), std::string::npos)
      << junk.error().message;
}

// The heads of the formats, each as its specification or the format's writers begin it.
TEST(FormatSniff, EachFormatsHeadIsRecognised) {
  using io::FileKind;
  auto sniff = [](const std::string& head) {
    return io::sniff_file_kind(
        std::span(reinterpret_cast<const std::uint8_t*>(head.data()), head.size()));
  };
  EXPECT_EQ(sniff(std::string("glTF\x02\0\0\0", 8)), FileKind::kGlb);
  EXPECT_EQ(sniff("{\n  \"asset\": {\"version\": \"2.0\"}\n}"), FileKind::kGltfJson);
  EXPECT_EQ(sniff("\xEF\xBB\xBF{\"scenes\": []}"), FileKind::kGltfJson);
  EXPECT_EQ(sniff("{\"name\": 1}"), FileKind::kOtherJson);
  EXPECT_EQ(sniff("  HIERARCHY\r\nROOT a"), FileKind::kBvh);
  EXPECT_EQ(sniff("xof 0303txt 0032\nFrame {"), FileKind::kXText);
  EXPECT_EQ(sniff("xof 0302bin 0064"), FileKind::kXBinary);
  EXPECT_EQ(sniff("xof 0303bzip0032"), FileKind::kXCompressed);
  EXPECT_EQ(sniff("<?xml version=\"1.0\"?>\n<COLLADA xmlns=\"x\" version=\"1.4.1\">"),
            FileKind::kCollada);
  EXPECT_EQ(sniff("<?xml version=\"1.0\"?>\n<svg/>"), FileKind::kOtherXml);
  EXPECT_EQ(sniff(std::string("Kaydara FBX Binary  \0\x1a\0", 23)), FileKind::kFbxBinary);
  EXPECT_EQ(sniff("; FBX 7.4.0 project file\n"), FileKind::kFbxAscii);
  EXPECT_EQ(sniff("# Blender\nmtllib a.mtl\no Cube\nv 1 1 1\nv 1 -1 1\nf 1 2 3\n"), FileKind::kObj);
  EXPECT_EQ(sniff("# only comments\n# here\n"), FileKind::kUnknown);
  EXPECT_EQ(sniff("MD5Version 10\ncommandline \"\"\nnumJoints 2\nnumMeshes 1\n"),
            FileKind::kMd5Mesh);
  EXPECT_EQ(sniff("MD5Version 10\ncommandline \"\"\nnumFrames 3\nnumJoints 2\n"),
            FileKind::kMd5Anim);
  EXPECT_EQ(sniff("version 1\nnodes\n0 \"root\" -1\nend\n"), FileKind::kSmd);
  EXPECT_EQ(sniff("version 12\n"), FileKind::kUnknown);
  EXPECT_EQ(sniff(""), FileKind::kUnknown);
}

// Every file of ../shared/assets that marrow reads by its extension has content that fits that
// extension: none of them would be read another way, or draw the note.
TEST(FormatSniff, EverySharedAssetFitsItsOwnName) {
  const fs::path assets = marrow::test::shared_asset_dir();
  if (!fs::is_directory(assets)) GTEST_SKIP() << assets << " is absent";
  std::size_t checked = 0;
  for (const auto& e : fs::recursive_directory_iterator(assets)) {
    if (!e.is_regular_file() || !is_readable_extension(e.path().string())) continue;
    std::string ext = e.path().extension().string();
    for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::ifstream in(e.path(), std::ios::binary);
    std::vector<std::uint8_t> head(io::kSniffBytes);
    in.read(reinterpret_cast<char*>(head.data()), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount()));
    const io::FileKind kind = io::sniff_file_kind(head);
    EXPECT_TRUE(io::fits(kind, io::kind_of_extension(ext)))
        << e.path() << " sniffs as " << io::describe_kind(kind);
    ++checked;
  }
  EXPECT_GT(checked, 20u);
}

}  // namespace
}  // namespace marrow
