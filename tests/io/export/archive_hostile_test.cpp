// Hostile archives: every truncation, every single damaged byte, random damage re-sealed with a
// valid checksum (so the structural checks behind the CRC are exercised), and counts, offsets
// and indices that lie. Each must fail with a message naming the file and the byte, never crash
// or allocate what the file cannot back.
#include <atomic>
#include <cstdlib>
#include <new>
#include <random>

#include "allocation_meter.h"
#include "archive_reseal.h"
#include "formats_test_util.h"
#include "marrow/clip/clip_builder.h"
#include "marrow/io/archive.h"

namespace formats_test {
namespace {

using namespace marrow;

// Loads with allocation tracking on; returns the largest single allocation.
std::size_t largest_allocation_loading(const Bytes& b) {
  marrow::test::AllocationMeter meter;
  { Result<Asset> r = read_archive(b, "tracked.marrow"); }
  return meter.largest();
}

Asset small_asset() {
  Asset a;
  const JointDesc joints[] = {{"root", -1, Transform::identity()},
                              {"arm", 0, {{1, 2, 3}, {0, 0, 0.6f, 0.8f}, {1, 1, 2}}}};
  a.skeleton = Skeleton::build(joints, "small").value();
  a.source_index = {0, 1};
  ClipBuilder b("wave");
  b.set_ticks_per_second(30);
  const float times[] = {0, 0.5f, 1};
  const float values[] = {0, 0, 0, 1, 0, 0, 2, 0, 0};
  EXPECT_TRUE(
      b.add_track(1, "arm", TrackTarget::kTranslation, Interpolation::kLinear, times, values, "t")
          .ok());
  b.add_event(0.25f, "step");
  a.clips.push_back(b.build(2, "small").value());
  Skin skin;
  skin.name = "s";
  skin.joints = {1};
  skin.inverse_bind_matrices = {Mat4::identity()};
  a.skins.push_back(skin);
  SkinnedMesh m;
  m.name = "tri";
  m.node = 1;
  m.skin = 0;
  m.positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  m.tangents = {{{1, 0, 0, 1}}, {{1, 0, 0, 1}}, {{1, 0, 0, 1}}};
  m.indices = {0, 1, 2};
  m.influence_offsets = {0, 1, 2, 3};
  m.influence_joints = {0, 0, 0};
  m.influence_weights = {1, 1, 1};
  // Version 2: one sparse target moving vertices 1 and 2, default weight 0.5, and a second clip
  // animating its weight (after the first, so the first clip's offsets are version 1's).
  MorphTarget smile;
  smile.name = "smile";
  smile.vertices = {1, 2};
  smile.position_deltas = {{0, 1, 0}, {0, 0, 1}};
  m.morph_targets = {smile};
  m.default_morph_weights = {0.5f};
  // Version 4: an embedded image, a material whose base colour samples it through a texture
  // transform, the mesh's material and vertex colours.
  a.images = {{"dot", "", {0x89, 'P', 'N', 'G', 1, 2, 3}, "image/png"}};
  Material mat;
  mat.name = "skin";
  mat.base_color.image = 0;
  mat.base_color.transform = TextureTransform{{0.5f, 0}, 1, {2, 2}};
  mat.alpha_mode = AlphaMode::kMask;
  a.materials = {mat};
  m.material = 0;
  m.colors = {{{1, 0, 0, 1}}, {{0, 1, 0, 1}}, {{0, 0, 1, 1}}};
  a.meshes.push_back(m);
  ClipBuilder w("smile");
  const float wtimes[] = {0, 1};
  const float wvalues[] = {0, 1};
  EXPECT_TRUE(
      w.add_weight_track(1, "arm", 0, 1, Interpolation::kLinear, wtimes, wvalues, "w").ok());
  a.clips.push_back(w.build(2, "small").value());
  a.warnings = {"w"};
  return a;
}

Bytes small_archive() {
  Result<Bytes> b = archive_bytes(small_asset());
  EXPECT_TRUE(b.ok());
  return b.ok() ? *b : Bytes{};
}

// Where the `nth` (0-based) section tagged `tag` begins.
std::size_t find_tag(const Bytes& b, const char* tag, int nth = 0) {
  const std::string t(tag);
  auto it = b.begin() + 32;
  for (int i = 0; i <= nth; ++i) {
    if (i > 0) ++it;
    it = std::search(it, b.end(), t.begin(), t.end());
    EXPECT_NE(it, b.end()) << tag;
    if (it == b.end()) return 0;
  }
  return static_cast<std::size_t>(it - b.begin());
}

// Loads and expects a failure whose message names the file, a byte offset and `part`.
void expect_rejected(const Bytes& b, const std::string& part) {
  Result<Asset> r = read_archive(b, "bad.marrow");
  ASSERT_FALSE(r.ok()) << "accepted; expected an error about " << part;
  const std::string& m = r.error().message;
  EXPECT_EQ(m.rfind("bad.marrow: byte ", 0), 0u) << m;
  EXPECT_NE(m.find(part), std::string::npos) << "'" << part << "' not in: " << m;
}

// The allocation bound below can fail: the tracking sees an allocation made while it is on.
TEST(ArchiveHostile, AllocationTrackingSeesAllocations) {
  marrow::test::AllocationMeter meter;
  { std::vector<char> big(1 << 20); }
  EXPECT_GE(meter.largest(), std::size_t{1} << 20);
}

TEST(ArchiveHostile, TheUndamagedFileLoads) {
  Result<Asset> r = read_archive(small_archive(), "ok.marrow");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->meshes.size(), 1u);
}

TEST(ArchiveHostile, TruncatedAtEveryLength) {
  const Bytes full = small_archive();
  ASSERT_GT(full.size(), 200u);
  for (std::size_t n = 0; n < full.size(); ++n) {
    const Bytes cut(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(n));
    Result<Asset> r = read_archive(cut, "cut.marrow");
    ASSERT_FALSE(r.ok()) << "accepted at length " << n;
    EXPECT_EQ(r.error().message.rfind("cut.marrow: byte ", 0), 0u) << r.error().message;
    if (n >= 32) {
      EXPECT_NE(r.error().message.find("truncated"), std::string::npos) << r.error().message;
    }
  }
}

TEST(ArchiveHostile, EverySingleDamagedByteIsCaught) {
  const Bytes full = small_archive();
  for (std::size_t i = 0; i < full.size(); ++i) {
    for (std::uint8_t mask : {0x01, 0x80, 0xFF}) {
      Bytes b = full;
      b[i] ^= mask;
      Result<Asset> r = read_archive(b, "bad.marrow");
      ASSERT_FALSE(r.ok()) << "byte " << i << " ^ " << int(mask) << " went unnoticed";
    }
  }
}

TEST(ArchiveHostile, RandomDamageResealedNeverCrashes) {
  const Bytes full = small_archive();
  std::mt19937 rng(12345);
  std::uniform_int_distribution<std::size_t> where(32, full.size() - 1);
  std::uniform_int_distribution<int> value(0, 255), how_many(1, 6);
  int rejected = 0;
  for (int round = 0; round < 4000; ++round) {
    Bytes b = full;
    const int n = how_many(rng);
    for (int k = 0; k < n; ++k) b[where(rng)] = static_cast<std::uint8_t>(value(rng));
    reseal(b);
    // Whatever the damage says, no allocation beyond a small multiple of the file's size.
    ASSERT_LE(largest_allocation_loading(b), 8 * b.size() + 1024) << "round " << round;
    Result<Asset> r = read_archive(b, "bad.marrow");
    if (!r.ok()) {
      ++rejected;
      EXPECT_EQ(r.error().message.rfind("bad.marrow: byte ", 0), 0u) << r.error().message;
      continue;
    }
    // Accepted damage (a changed float, a renamed joint) must still be a consistent asset.
    for (const SkinnedMesh& m : r->meshes) {
      for (std::uint32_t i : m.indices) ASSERT_LT(i, m.vertex_count());
    }
  }
  EXPECT_GT(rejected, 1000);  // most random damage breaks some structure
}

TEST(ArchiveHostile, CountsThatLieAreBoundedByTheFileSize) {
  const Bytes full = small_archive();
  struct Lie {
    std::string tag;
    std::size_t offset;  // from the section's tag
    std::string part;
  };
  const std::vector<Lie> lies = {
      {"SKEL", 12, "joint count = 4294967295 cannot fit"},
      {"CLIP", 32, "track count = 4294967295 cannot fit"},
      {"CLIP", 59, "key time count = 4294967295 cannot fit"},
      {"CLIP", 75, "key value count = 4294967295 cannot fit"},
      {"CLIP", 115, "event count = 4294967295 cannot fit"},
      {"SKIN", 19, "skin joint count = 4294967295 cannot fit"},
      {"MESH", 25, "vertex count = 4294967295 cannot fit"},
      {"MESH", 117, "index count = 4294967295 cannot fit"},
      {"MESH", 133, "influence count = 4294967295 cannot fit"},
      {"WARN", 12, "warning count = 4294967295 cannot fit"},
      {"SKEL", 16, "joint name: needs 4294967295 bytes"},
  };
  for (const Lie& lie : lies) {
    Bytes b = full;
    put_u32(b, find_tag(b, lie.tag.c_str()) + lie.offset, 0xFFFFFFFFu);
    reseal(b);
    expect_rejected(b, lie.part);
    EXPECT_LE(largest_allocation_loading(b), 8 * b.size() + 1024) << lie.part;
  }
}

TEST(ArchiveHostile, IndicesAndOffsetsThatPointOutside) {
  const Bytes full = small_archive();
  auto with = [&](const char* tag, std::size_t offset, std::uint32_t v, int bytes = 4) {
    Bytes b = full;
    const std::size_t at = find_tag(b, tag) + offset;
    for (int i = 0; i < bytes; ++i)
      b.at(at + static_cast<std::size_t>(i)) = static_cast<std::uint8_t>(v >> (8 * i));
    reseal(b);
    return b;
  };
  // Joint 1's parent (after the count, "root"'s 60-byte record and "arm"'s name): itself.
  expect_rejected(with("SKEL", 12 + 4 + 60 + 4 + 3, 1), "parent 1 is not an earlier joint");
  expect_rejected(with("CLIP", 36, 9, 2), "joint 9 is out of range");
  expect_rejected(with("CLIP", 38, 7, 1), "track target 7 is unknown");
  expect_rejected(with("CLIP", 39, 3, 1), "interpolation 3 is unknown");
  expect_rejected(with("CLIP", 40, 2), "lie outside the 3 times");  // first key 2 + 3 keys
  expect_rejected(with("CLIP", 44, 0), "lie outside");              // zero keys
  expect_rejected(with("CLIP", 48, 1), "lie outside");              // values past the end
  // The material's base-colour image (after the name "skin" and four factors): image 1 of 1.
  expect_rejected(with("MATL", 12 + 8 + 16, 1), "base colour texture names image 1 of 1");
  expect_rejected(with("MATL", 12 + 8 + 16 + 8, 3, 1), "wrap u 3 is unknown");
  {
    // The mesh's material, 8 bytes before the colours (3 x 16) at the end of its section.
    const std::size_t mesh = find_tag(full, "MESH");
    std::size_t length = 0;
    for (int i = 7; i >= 0; --i) length = length << 8 | full.at(mesh + 4 + std::size_t(i));
    expect_rejected(with("MESH", 12 + length - 48 - 8, 1), "material 1 is out of range");
  }
  {
    // Version 4's rate source, the byte before the compiled record's length (0: none), which
    // ends the first CLIP section: 3 is none of file, default, option.
    const std::size_t clip = find_tag(full, "CLIP");
    std::size_t length = 0;  // the section's u64 length, little-endian
    for (int i = 7; i >= 0; --i) length = length << 8 | full.at(clip + 4 + std::size_t(i));
    const std::size_t end = clip + 12 + length;
    expect_rejected(with("CLIP", end - 5 - clip, 3, 1), "ticks per second source 3 is unknown");
    const Bytes fine = with("CLIP", end - 5 - clip, 1, 1);
    Result<Asset> r = read_archive(fine, "default.marrow");
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->rate_source(0), RateSource::kDefault);
  }
  expect_rejected(with("SKIN", 23, 5, 2), "joint 0 = 5 is out of range");
  expect_rejected(with("SKIN", 17, 3, 2), "root joint 3 is out of range");
  expect_rejected(with("MESH", 19, 4, 2), "node 4 is out of range");
  expect_rejected(with("MESH", 21, 2), "skin 2 is out of range");
  expect_rejected(with("MESH", 121 + 4, 3), "index 1 = 3 is past the last of 3 vertices");
  expect_rejected(with("MESH", 137, 1), "influence offsets must run from 0");
  expect_rejected(with("MESH", 137 + 4, 3), "influence offsets decrease");
  expect_rejected(with("MESH", 153, 1, 2), "names skin joint 1 of 1");
  expect_rejected(with("MESH", 159, 0xBF800000u), "influence weight 0 is negative");     // -1.0f
  expect_rejected(with("MESH", 33, 0x7FC00000u), "position of vertex 0 is not finite");  // NaN
  // Key times that go backwards reach ClipBuilder, which names the track.
  expect_rejected(with("CLIP", 63 + 4, 0x3F800000u), "clip 0 'wave' track 0");  // 1.0 then 1.0
}

// Version 2's morph targets (the end of MESH 'tri': target count at 171, name "smile", flags at
// 184, vertex count at 188, vertices at 192, position deltas at 200, default weights count at
// 224 and values at 228) and weight tracks (the second CLIP 'smile': weight count at 65, track
// count at 69, the record from 73: node, interpolation, reserved, first weight 77, weight count
// 81, first key 85, key count 89, first value 93).
TEST(ArchiveHostile, MorphTargetsAndWeightTracksThatLie) {
  const Bytes full = small_archive();
  auto with = [&](const char* tag, int nth, std::size_t offset, std::uint32_t v, int bytes = 4) {
    Bytes b = full;
    const std::size_t at = find_tag(b, tag, nth) + offset;
    for (int i = 0; i < bytes; ++i)
      b.at(at + static_cast<std::size_t>(i)) = static_cast<std::uint8_t>(v >> (8 * i));
    reseal(b);
    return b;
  };
  expect_rejected(with("MESH", 0, 171, 0xFFFFFFFFu), "morph target count = 4294967295 cannot fit");
  expect_rejected(with("MESH", 0, 188, 0xFFFFFFFFu),
                  "morph target vertex count = 4294967295 cannot fit");
  expect_rejected(with("MESH", 0, 184, 4), "morph target 0: unknown flags");
  expect_rejected(with("MESH", 0, 196, 3), "vertex 3 is out of range (the mesh has 3)");
  expect_rejected(with("MESH", 0, 192, 2), "not strictly increasing");
  expect_rejected(with("MESH", 0, 200, 0x7FC00000u), "delta of vertex 1 is not finite");
  expect_rejected(with("MESH", 0, 228, 0x7F800000u), "default weight of target 0 is not finite");
  expect_rejected(with("CLIP", 1, 69, 0xFFFFFFFFu), "weight track count = 4294967295 cannot fit");
  expect_rejected(with("CLIP", 1, 65, 1u << 21), "weight count 2097152 exceeds");
  expect_rejected(with("CLIP", 1, 73, 9, 2), "weight track 0: node 9 is out of range");
  expect_rejected(with("CLIP", 1, 75, 5, 1), "interpolation 5 is unknown");
  expect_rejected(with("CLIP", 1, 77, 1), "lie outside the clip's 1");
  expect_rejected(with("CLIP", 1, 85, 1), "lie outside the 2 times");
  expect_rejected(with("CLIP", 1, 93, 1), "lie outside");
  for (const Bytes& b : {with("MESH", 0, 171, 0xFFFFFFFFu), with("CLIP", 1, 69, 0xFFFFFFFFu)})
    EXPECT_LE(largest_allocation_loading(b), 8 * b.size() + 1024);
}

// A version-3 archive is version 4 without the rate-source byte of each CLIP section and the
// material and colours of each MESH section: made so by hand from a version-4 one, it loads with
// every clip's rate read as the file's.
TEST(ArchiveVersions, AVersion3ArchiveLoadsWithRatesFromTheFile) {
  Asset asset = small_asset();
  asset.rate_sources = {RateSource::kDefault, RateSource::kOption};
  // Version 3 has no images, materials or colours.
  asset.images.clear();
  asset.materials.clear();
  asset.meshes[0].material = -1;
  asset.meshes[0].colors.clear();
  Result<Bytes> v4 = archive_bytes(asset);
  ASSERT_TRUE(v4.ok());
  Result<Asset> four = read_archive(*v4, "v4.marrow");
  ASSERT_TRUE(four.ok()) << four.error().message;
  EXPECT_EQ(four->rate_source(0), RateSource::kDefault);
  EXPECT_EQ(four->rate_source(1), RateSource::kOption);
  Bytes b = *v4;
  for (int nth = 1; nth >= 0; --nth) {
    const std::size_t clip = find_tag(b, "CLIP", nth);
    std::size_t length = 0;
    for (int i = 7; i >= 0; --i) length = length << 8 | b.at(clip + 4 + std::size_t(i));
    // The byte before the compiled record's length (0: no record), which ends the section.
    const std::size_t source = clip + 12 + length - 5;
    ASSERT_EQ(b.at(source), nth == 0 ? 1 : 2);
    b.erase(b.begin() + static_cast<std::ptrdiff_t>(source));
    put_u32(b, clip + 4, static_cast<std::uint32_t>(length - 1));
  }
  // And each MESH section without version 4's material (-1) and colour count (0) at its end.
  for (int nth = 0; nth < 1; ++nth) {
    const std::size_t mesh = find_tag(b, "MESH", nth);
    std::size_t length = 0;
    for (int i = 7; i >= 0; --i) length = length << 8 | b.at(mesh + 4 + std::size_t(i));
    const std::size_t end = mesh + 12 + length;
    ASSERT_EQ(Bytes(b.begin() + static_cast<std::ptrdiff_t>(end - 8),
                    b.begin() + static_cast<std::ptrdiff_t>(end)),
              (Bytes{0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0}));
    b.erase(b.begin() + static_cast<std::ptrdiff_t>(end - 8),
            b.begin() + static_cast<std::ptrdiff_t>(end));
    put_u32(b, mesh + 4, static_cast<std::uint32_t>(length - 8));
  }
  put_u32(b, 8, 3);
  put_u32(b, 16, static_cast<std::uint32_t>(b.size() - 32));
  reseal(b);
  Result<Asset> three = read_archive(b, "v3.marrow");
  ASSERT_TRUE(three.ok()) << three.error().message;
  ASSERT_EQ(three->clips.size(), 2u);
  EXPECT_EQ(three->rate_source(0), RateSource::kFile);
  EXPECT_EQ(three->rate_source(1), RateSource::kFile);
  EXPECT_EQ(three->clips[0].times().size(), four->clips[0].times().size());
  EXPECT_DOUBLE_EQ(three->clips[0].ticks_per_second(), 30.0);
}

TEST(ArchiveHostile, SectionsAndHeaderThatLie) {
  const Bytes full = small_archive();
  {
    Bytes b = full;
    b[0] = 'X';
    expect_rejected(b, "not a marrow archive");
  }
  {
    Bytes b = full;
    put_u32(b, 8, 8);
    reseal(b);
    expect_rejected(b, "format version 8; this build reads versions 1 to 7");
  }
  {
    Bytes b = full;
    put_u32(b, 16, static_cast<std::uint32_t>(b.size()));  // claims 32 more bytes than present
    reseal(b);
    expect_rejected(b, "truncated");
  }
  {
    Bytes b = full;
    put_u32(b, find_tag(b, "WARN") + 4, 0x7FFFFFFF);
    reseal(b);
    expect_rejected(b, "section 'WARN' claims 2147483647 bytes");
  }
  {
    Bytes b = full;
    const std::size_t at = find_tag(b, "WARN");
    b[at] = 'Z';
    reseal(b);
    expect_rejected(b, "unknown section 'ZARN'");
  }
  {
    // A section longer than its contents: the extra bytes are reported.
    Bytes b = full;
    const std::size_t at = find_tag(b, "WARN");
    b.insert(b.end(), {0, 0, 0, 0});
    put_u32(b, at + 4, static_cast<std::uint32_t>(b.size() - at - 12));
    put_u32(b, 16, static_cast<std::uint32_t>(b.size() - 32));
    reseal(b);
    expect_rejected(b, "4 bytes its contents do not account for");
  }
  {
    Bytes b = full;
    const std::size_t at = find_tag(b, "SKEL");
    b[at] = 'C', b[at + 1] = 'L', b[at + 2] = 'I', b[at + 3] = 'P';
    reseal(b);
    expect_rejected(b, "before the SKEL section");
  }
}

}  // namespace
}  // namespace formats_test
