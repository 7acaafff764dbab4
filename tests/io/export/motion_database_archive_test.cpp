// A motion-matching database saved in the archive (io/motion_database_archive.h): loaded back it
// holds the same frames and features and finds the same frames; an archive without a database,
// an older version, damage and lies are refused naming the file and the byte.
#include <cstring>
#include <random>

#include "archive_reseal.h"
#include "formats_test_util.h"
#include "marrow/io/archive.h"
#include "marrow/io/motion_database_archive.h"
#include "motion_fixtures.h"

namespace formats_test {
namespace {

using namespace marrow;
using marrow::test::walker_clip;
using marrow::test::walker_schema;
using marrow::test::walker_skeleton;

std::shared_ptr<const MotionDatabase> walker_database() {
  const Skeleton skeleton = walker_skeleton();
  const Clip ahead = walker_clip("ahead", 3, {0, 0, 0}, {0, 0, 3}, 0);
  const Clip turned = walker_clip("turned", 2, {0, 0, 0}, {2, 0, 0}, 1.5f, 0.3f);
  const Clip spin = walker_clip("spin", 2, {0, 0, 0}, {0, 0, 0}, 0, 1);
  const std::vector<MotionClipDesc> clips = {{&ahead, {{0.2f, 0.4f}}}, {&turned}, {&spin}};
  MotionSchema schema = walker_schema();
  schema.features[0].weight = 0.5f;  // a weight of its own, kept by the archive
  Result<std::shared_ptr<const MotionDatabase>> db = MotionDatabase::build(skeleton, clips, schema);
  EXPECT_TRUE(db.ok()) << db.error().message;
  return db.ok() ? *db : nullptr;
}

Bytes walker_bytes() {
  Result<Bytes> bytes = motion_database_bytes(*walker_database());
  EXPECT_TRUE(bytes.ok()) << bytes.error().message;
  return bytes.ok() ? *bytes : Bytes{};
}

std::size_t motion_section(const Bytes& b) {
  const std::string tag = "MOTN";
  auto it = std::search(b.begin() + 32, b.end(), tag.begin(), tag.end());
  EXPECT_NE(it, b.end());
  return static_cast<std::size_t>(it - b.begin());
}

void expect_refused(const Bytes& b, const std::string& part) {
  Result<std::shared_ptr<const MotionDatabase>> r = read_motion_database(b, "bad.marrow");
  ASSERT_FALSE(r.ok()) << "accepted; expected an error about " << part;
  EXPECT_EQ(r.error().message.rfind("bad.marrow: ", 0), 0u) << r.error().message;
  EXPECT_NE(r.error().message.find(part), std::string::npos)
      << "'" << part << "' not in: " << r.error().message;
}

TEST(MotionDatabaseArchive, LoadedItHoldsTheSameFramesAndFindsTheSameFrames) {
  const std::shared_ptr<const MotionDatabase> saved = walker_database();
  ASSERT_TRUE(saved);
  TempDir dir("motion_db");
  const std::string path = (dir / "walker.marrow").string();
  ASSERT_TRUE(write_motion_database(*saved, path).ok());
  Result<std::shared_ptr<const MotionDatabase>> read = read_motion_database(path);
  ASSERT_TRUE(read.ok()) << read.error().message;
  const MotionDatabase& loaded = **read;

  ASSERT_EQ(loaded.frame_count(), saved->frame_count());
  ASSERT_EQ(loaded.dims(), saved->dims());
  EXPECT_EQ(loaded.searchable_count(), saved->searchable_count());
  EXPECT_EQ(loaded.schema().features[0].weight, 0.5f);
  EXPECT_EQ(loaded.root_joint(), saved->root_joint());
  EXPECT_EQ(loaded.mean_speed(), saved->mean_speed());
  EXPECT_EQ(loaded.leg_length(), saved->leg_length());
  EXPECT_EQ(loaded.clip_set().clip_count(), 3u);
  EXPECT_EQ(loaded.clip_set().clip(1).name(), "turned");
  for (std::uint32_t f = 0; f < saved->frame_count(); ++f) {
    const MotionFrame &a = saved->frame(f), &b = loaded.frame(f);
    ASSERT_EQ(a.clip, b.clip) << f;
    ASSERT_EQ(a.time, b.time) << f;
    ASSERT_EQ(a.yaw, b.yaw) << f;
    ASSERT_EQ(a.searchable, b.searchable) << f;
    ASSERT_EQ(a.left_contact, b.left_contact) << f;
    for (std::size_t d = 0; d < saved->dims(); ++d)
      ASSERT_EQ(saved->features(f)[d], loaded.features(f)[d]) << f << " " << d;
  }
  // Raw values normalize alike, and any query finds the same frame at the same distance.
  for (std::size_t d = 0; d < saved->dims(); ++d)
    EXPECT_EQ(saved->normalize(d, 0.25f), loaded.normalize(d, 0.25f));
  std::mt19937 rng(7);
  std::normal_distribution<float> value(0, 1.5f);
  std::vector<float> query(saved->dims());
  for (int q = 0; q < 200; ++q) {
    for (float& v : query) v = value(rng);
    const MotionMatch a = saved->search(query), b = loaded.search(query);
    ASSERT_EQ(a.frame, b.frame) << "query " << q;
    ASSERT_EQ(a.distance, b.distance) << "query " << q;
  }
  // The same clips play: the loaded database's clip keys are the saved ones.
  const Clip &ca = saved->clip_set().clip(2), &cb = loaded.clip_set().clip(2);
  ASSERT_EQ(ca.values().size(), cb.values().size());
  for (std::size_t i = 0; i < ca.values().size(); ++i) ASSERT_EQ(ca.values()[i], cb.values()[i]);
}

TEST(MotionDatabaseArchive, AssetReadersSayTheDatabaseIsNotPartOfAnAsset) {
  Result<Asset> asset = read_archive(walker_bytes(), "walker.marrow");
  ASSERT_TRUE(asset.ok()) << asset.error().message;
  EXPECT_EQ(asset->clips.size(), 3u);
  ASSERT_EQ(asset->warnings.size(), 1u);
  EXPECT_NE(asset->warnings[0].find("motion-matching database"), std::string::npos);
  // And an archive of an asset holds no database.
  Result<Bytes> plain = archive_bytes(*asset);
  ASSERT_TRUE(plain.ok());
  expect_refused(*plain, "holds no motion-matching database");
}

TEST(MotionDatabaseArchive, ADatabaseOfFeatureRowsHasNothingToSave) {
  const std::vector<float> rows = {0, 1, 2, 3};
  Result<std::shared_ptr<const MotionDatabase>> db = MotionDatabase::from_features(2, rows);
  ASSERT_TRUE(db.ok());
  Result<Bytes> bytes = motion_database_bytes(**db);
  ASSERT_FALSE(bytes.ok());
  EXPECT_NE(bytes.error().message.find("no clips to save"), std::string::npos);
}

TEST(MotionDatabaseArchive, DamageAndLiesAreRefusedNamingTheByte) {
  const Bytes full = walker_bytes();
  ASSERT_FALSE(full.empty());
  const std::size_t motn = motion_section(full);
  // The section's content: root "hips" (4 + 4), left "left" (4 + 4), right "right" (4 + 5), up
  // (12), rate (4), compile flag (1), mirror count (4), feature count (4), then features.
  const std::size_t content = motn + 12;
  const std::size_t up = content + 8 + 8 + 9, flag = up + 16, features = flag + 5;
  auto with_u32 = [&](std::size_t at, std::uint32_t v) {
    Bytes b = full;
    put_u32(b, at, v);
    reseal(b);
    return b;
  };
  // Version 4 knew no MOTN section.
  const Bytes old = with_u32(8, 4);
  expect_refused(old, "unknown section 'MOTN'");
  expect_refused(with_u32(content, 0xFFFFFFFFu), "root joint: needs 4294967295 bytes");
  Bytes renamed = full;
  renamed[content + 4] = 'x';
  reseal(renamed);
  expect_refused(renamed, "the root joint 'xips' is not in the skeleton");
  Bytes flagged = full;
  flagged[flag] = 7;
  reseal(flagged);
  expect_refused(flagged, "compile flag 7 is not 0 or 1");
  expect_refused(with_u32(flag + 1, 0xFFFFFFFFu), "mirror joint count = 4294967295 cannot fit");
  expect_refused(with_u32(features, 0xFFFFFFFFu), "feature count = 4294967295 cannot fit");
  Bytes kind = full;
  kind[features + 4] = 9;
  reseal(kind);
  expect_refused(kind, "feature 0: kind 9 is unknown");
  const float nan = std::nanf("");
  std::uint32_t nan_bits;
  std::memcpy(&nan_bits, &nan, 4);
  expect_refused(with_u32(up, nan_bits), "the up axis must be a finite non-zero vector");
  // The last float of the file is the last feature of the last frame.
  expect_refused(with_u32(full.size() - 4, nan_bits), "a feature");
  // Any truncation, and random damage resealed, fails cleanly or loads a database that searches.
  for (std::size_t n = 32; n < full.size(); n += 7) {
    Bytes b(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(n));
    ASSERT_FALSE(read_motion_database(b, "bad.marrow").ok()) << n;
  }
  std::mt19937 rng(3);
  std::uniform_int_distribution<std::size_t> where(motn, full.size() - 1);
  std::uniform_int_distribution<int> value(0, 255);
  for (int round = 0; round < 300; ++round) {
    Bytes b = full;
    for (int k = 0; k < 3; ++k) b[where(rng)] = static_cast<std::uint8_t>(value(rng));
    reseal(b);
    Result<std::shared_ptr<const MotionDatabase>> r = read_motion_database(b, "bad.marrow");
    if (!r.ok()) {
      EXPECT_EQ(r.error().message.rfind("bad.marrow: byte ", 0), 0u) << r.error().message;
      continue;
    }
    std::vector<float> query((*r)->dims(), 0.5f);
    EXPECT_NE((*r)->search(query).frame, kNoMotionFrame) << "round " << round;
  }
}

}  // namespace
}  // namespace formats_test
