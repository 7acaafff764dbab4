// The document budget (src/io/common/budget.h): its rule, and what it does to a small file that
// asks for gigabytes. Allocation totals are counted by replacing operator new in this binary.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "allocation_meter.h"
#include "common/budget.h"
#include "marrow/io/asset.h"
#include "shared_asset.h"

namespace {

using marrow::io::DocumentBudget;

std::string shared(const std::string& relative) {
  return marrow::test::shared_asset_path(relative);
}

TEST(Budget, TheLimitIsSixtyFourBytesPerInputBytePlusSixtyFourMebibytes) {
  EXPECT_EQ(DocumentBudget::limit_for(0), 64ull << 20);
  EXPECT_EQ(DocumentBudget::limit_for(1000), 64000 + (64ull << 20));
  EXPECT_EQ(DocumentBudget::limit_for(~0ull), ~0ull);  // saturates, never wraps
  DocumentBudget budget(1000);
  budget.charge(64000, "t");
  budget.charge(64ull << 20, "t");  // exactly the limit
  EXPECT_EQ(budget.used(), budget.limit());
  EXPECT_THROW(budget.charge(1, "t"), marrow::io::BudgetExceeded);
  // More input read into the same document raises the limit.
  budget.add_input(1);
  budget.charge(64, "t");
  EXPECT_THROW(budget.charge(1, "t"), marrow::io::BudgetExceeded);
}

TEST(Budget, ARefusalNamesThePlaceAndTheRule) {
  DocumentBudget budget(432);
  try {
    budget.charge(4, 536870880 / 4, [] { return std::string("z.gltf: meshes[0]"); });
    FAIL() << "no refusal";
  } catch (const marrow::io::BudgetExceeded& e) {
    EXPECT_EQ(std::string(e.what()),
              "z.gltf: meshes[0]: reading this document would allocate 512.0 MiB, more than the "
              "64.0 MiB marrow allows a document of 432 bytes (64 bytes per input byte + 64.0 "
              "MiB)");
  }
  EXPECT_EQ(budget.used(), 0u);  // a refused charge is not counted
  // count x size saturates instead of wrapping to a small number.
  EXPECT_THROW(budget.charge(1ull << 62, 8, "t"), marrow::io::BudgetExceeded);
}

TEST(Budget, TheFourMeshZeroAccessorGltfIsRefusedBeforeItsFirstDecode) {
  // 432 bytes: an accessor of 44,739,240 VEC3 with no bufferView (zeros, as the spec allows),
  // POSITION of four meshes. Before the budget, `marrow info` spent 15 s and 3.4 GB on it.
  const std::string path = std::string(MARROW_IO_TEST_DATA) + "/zero_accessor_four_meshes.gltf";
  marrow::test::AllocationMeter meter;
  marrow::Result<marrow::Asset> r = marrow::load_asset(path);
  meter.stop();
  const std::size_t allocated = meter.bytes();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            path +
                ": meshes[0].primitives[0].attributes.POSITION (accessors[0], 44739240 x VEC3): "
                "reading this document would allocate 512.0 MiB, more than the 64.0 MiB marrow "
                "allows a document of 432 bytes (64 bytes per input byte + 64.0 MiB)");
  EXPECT_LT(allocated, std::size_t{1} << 20) << allocated;
}

// What loading each shared asset allocates in all, against the budget it is held to (printed
// for docs/formats.md; a reader's transient allocations are counted too, so this is an upper
// bound of what the budget sees).
TEST(Budget, EverySharedAssetLoadsWellInsideItsBudget) {
  const char* files[] = {
      "gltf/Soldier.glb", "gltf/Xbot.glb", "gltf/cesium_man.gltf", "x/Testwuson.X",
      "x/test.x",         "bvh/01_01.bvh", "bvh/Boxing_Toes.bvh",  "md5/BoarMan.md5mesh",
      "smd/WusonSMD.smd"};
  for (const char* file : files) {
    const std::string path = shared(file);
    if (!std::filesystem::exists(path)) continue;
    const std::uintmax_t size = std::filesystem::file_size(path);
    marrow::test::AllocationMeter meter;
    marrow::Result<marrow::Asset> r = marrow::load_asset(path);
    meter.stop();
    const std::size_t allocated = meter.bytes();
    ASSERT_TRUE(r.ok()) << r.error().message;
    const double per_byte = static_cast<double>(allocated) / static_cast<double>(size);
    std::printf("  %-22s %9ju bytes, allocated %11zu (%.1f per input byte), limit %ju\n", file,
                size, allocated, per_byte, DocumentBudget::limit_for(size));
    EXPECT_LT(allocated, DocumentBudget::limit_for(size)) << file;
  }
}

}  // namespace
