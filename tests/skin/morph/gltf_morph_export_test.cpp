// Morph targets and their animations through marrow's glTF writer and the archive: the targets
// come back exactly (sparse accessors), the weights sample the same, and the Khronos validator
// reports no error.
#include <gtest/gtest.h>

#include "asset_compare.h"
#include "formats_test_util.h"
#include "marrow/io/archive.h"
#include "marrow/io/gltf_export.h"
#include "morph_test_util.h"
#include "shared_asset.h"

namespace marrow {
namespace {

namespace fs = std::filesystem;

void expect_same_weights(const Asset& a, const Asset& b) {
  ASSERT_EQ(a.clips.size(), b.clips.size());
  for (std::size_t c = 0; c < a.clips.size(); ++c) {
    const float d = a.clips[c].duration();
    for (float f : {0.0f, 0.13f, 0.5f, 0.77f, 1.0f}) {
      EXPECT_EQ(morph_test::weights_at(a, c, d * f), morph_test::weights_at(b, c, d * f))
          << "clip " << c << " at " << d * f;
    }
  }
}

void expect_targets_survive(const Asset& original, const std::string& tag) {
  formats_test::TempDir dir("morph_export_" + tag);
  std::vector<fs::path> written;
  for (const char* ext : {".glb", ".gltf"}) {
    const fs::path out = dir / (tag + ext);
    std::vector<std::string> notes;
    const Status st = write_gltf(original, out.string(), {}, &notes);
    ASSERT_TRUE(st.ok()) << st.error().message;
    Result<Asset> back = load_asset(out.string());
    ASSERT_TRUE(back.ok()) << back.error().message;
    ASSERT_EQ(back->meshes.size(), original.meshes.size());
    for (std::size_t m = 0; m < original.meshes.size(); ++m) {
      const SkinnedMesh &x = original.meshes[m], &y = back->meshes[m];
      ASSERT_EQ(x.morph_targets.size(), y.morph_targets.size()) << tag;
      for (std::size_t t = 0; t < x.morph_targets.size(); ++t) {
        EXPECT_EQ(x.morph_targets[t].name, y.morph_targets[t].name);
        EXPECT_EQ(x.morph_targets[t].vertices, y.morph_targets[t].vertices) << tag << " " << t;
        EXPECT_EQ(x.morph_targets[t].position_deltas, y.morph_targets[t].position_deltas);
        EXPECT_EQ(x.morph_targets[t].normal_deltas.empty(),
                  y.morph_targets[t].normal_deltas.empty());
      }
      EXPECT_EQ(MorphLayout::build(original.meshes).default_weights().size(),
                MorphLayout::build(back->meshes).default_weights().size());
    }
    expect_same_weights(original, *back);
    written.push_back(out);
  }
  const formats_test::Validation v = formats_test::validate_gltf(written);
  if (!v.ran) GTEST_SKIP() << "the glTF validator is unavailable: " << v.report;
  EXPECT_EQ(v.errors, 0) << v.report;
}

TEST(MorphExport, HandBuiltCubesSurviveGltfAndValidate) {
  expect_targets_survive(morph_test::load(morph_test::two_target_cube(), "cube.gltf"), "cube");
  expect_targets_survive(morph_test::load(morph_test::sparse_target_cube(), "sparse.gltf"),
                         "sparse");
}

TEST(MorphExport, SharedSampleModelsSurviveGltfAndValidate) {
  for (const char* name : {"AnimatedMorphCube.gltf", "MorphPrimitivesTest.gltf"}) {
    const std::string path = marrow::test::shared_asset_path("gltf/morph/") + name;
    if (!fs::exists(path)) GTEST_SKIP() << path << " is absent";
    Result<Asset> a = load_asset(path);
    ASSERT_TRUE(a.ok()) << a.error().message;
    expect_targets_survive(*a, fs::path(name).stem().string());
  }
}

TEST(MorphExport, ArchiveKeepsTargetsNamesDefaultsAndWeightTracks) {
  const Asset a = morph_test::load(morph_test::two_target_cube(), "cube.gltf");
  Result<std::vector<std::uint8_t>> bytes = archive_bytes(a);
  ASSERT_TRUE(bytes.ok()) << bytes.error().message;
  Result<Asset> back = read_archive(*bytes, "cube.marrow");
  ASSERT_TRUE(back.ok()) << back.error().message;
  formats_test::expect_same_asset(a, *back);
  expect_same_weights(a, *back);
}

}  // namespace
}  // namespace marrow
