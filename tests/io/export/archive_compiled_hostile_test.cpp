// Hostile compiled clips in an archive (version 3): records cut short, counts that lie, enum and
// reserved bytes out of range, offsets that point outside, quantized values that decode to
// nothing a pose can hold, reports that contradict themselves, random damage re-sealed with a
// valid checksum. Each must fail with a message naming the file, the byte and the part; nothing
// may crash (the suite runs under ASan and UBSan) or allocate what the file cannot back.
#include <random>
#include <regex>

#include "allocation_meter.h"
#include "compiled_record.h"
#include "marrow/clip/compiled_sampling.h"

namespace formats_test {
namespace {

using namespace marrow;
using Data = CompiledClipData;

struct Fixture {
  Asset asset = compiled_asset();
  Bytes archive;
  Data data[3];
  Record record[3];
  // Where each clip's record starts in `archive`.
  std::size_t record_at[3] = {0, 0, 0};

  Fixture() {
    Result<Bytes> b = archive_bytes(asset);
    EXPECT_TRUE(b.ok()) << b.error().message;
    archive = b.ok() ? *b : Bytes{};
    for (int c = 0; c < 3; ++c) {
      data[c] = asset.compiled_clips[static_cast<std::size_t>(c)]->to_data();
      record[c] = serialize_record(data[c]);
      record_at[c] = clip_section_end(archive, c) - record[c].bytes.size();
    }
  }
  // The archive with clip c's record replaced (its length field saying `length`).
  Bytes with_record(int c, const Bytes& bytes, std::optional<std::uint32_t> length = {}) const {
    return splice_record(archive, c, record[c].bytes.size(),
                         length.value_or(static_cast<std::uint32_t>(bytes.size())), bytes);
  }
  // The archive with clip c's compiled data changed by `change` before it is written.
  template <typename Change>
  Bytes with_data(int c, Change change) const {
    Data d = data[c];
    change(d);
    return with_record(c, serialize_record(d).bytes);
  }
  // The archive with `bytes` written over clip c's record at field `field` + `offset`.
  Bytes with_bytes(int c, const std::string& field, std::size_t offset,
                   std::vector<std::uint8_t> bytes) const {
    Bytes r = record[c].bytes;
    const std::size_t at = record[c].at.at(field) + offset;
    for (std::size_t i = 0; i < bytes.size(); ++i) r.at(at + i) = bytes[i];
    return with_record(c, r);
  }
  Bytes with_u32(int c, const std::string& field, std::size_t offset, std::uint32_t v) const {
    return with_bytes(
        c, field, offset,
        {std::uint8_t(v), std::uint8_t(v >> 8), std::uint8_t(v >> 16), std::uint8_t(v >> 24)});
  }
};

const Fixture& fixture() {
  static const Fixture f;
  return f;
}

std::size_t largest_allocation_loading_compiled(const Bytes& b) {
  marrow::test::AllocationMeter meter;
  { Result<Asset> r = read_archive(b, "tracked.marrow"); }
  return meter.largest();
}

// Loads and expects a failure naming the file, a byte offset inside clip c's record (or its
// length field) and `part`.
void expect_rejected(const Bytes& b, int c, const std::string& part) {
  Result<Asset> r = read_archive(b, "bad.marrow");
  ASSERT_FALSE(r.ok()) << "accepted; expected an error about " << part;
  const std::string& m = r.error().message;
  std::smatch where;
  ASSERT_TRUE(std::regex_search(m, where, std::regex("^bad\\.marrow: byte ([0-9]+): "))) << m;
  const std::size_t byte = std::stoul(where[1]);
  const std::size_t begin = fixture().record_at[c] - 4;
  EXPECT_GE(byte, begin) << m;
  EXPECT_LE(byte, b.size()) << m;
  EXPECT_NE(m.find("clip " + std::to_string(c)), std::string::npos) << m;
  EXPECT_NE(m.find(part), std::string::npos) << "'" << part << "' not in: " << m;
}

// The fixture covers what it claims: every source kind, every format, exact-key tracks.
TEST(ArchiveCompiledHostile, TheFixtureHoldsEveryKindOfCompiledData) {
  const Fixture& f = fixture();
  bool formats[4] = {}, sources[3] = {};
  for (const Data& d : f.data) {
    for (const Data::TrackGroup& g : d.track_groups) formats[static_cast<int>(g.format)] = true;
    for (Data::Source s : d.sources) sources[static_cast<int>(s)] = true;
    EXPECT_FALSE(d.keyed.empty());
  }
  EXPECT_TRUE(formats[0] || formats[1]) << "no quantized track group";
  EXPECT_TRUE(formats[2]) << "no float track group";
  EXPECT_TRUE(formats[3]) << "no packed track group";
  EXPECT_TRUE(sources[0] && sources[1] && sources[2]);
}

// The library writes the record exactly as docs/formats_archive.md lays it out.
TEST(ArchiveCompiledHostile, TheRecordIsTheDocumentedLayout) {
  const Fixture& f = fixture();
  for (int c = 0; c < 3; ++c) {
    const Bytes& r = f.record[c].bytes;
    ASSERT_GE(f.record_at[c], 4u);
    EXPECT_EQ(u32_at(f.archive, f.record_at[c] - 4), r.size());
    EXPECT_TRUE(std::equal(r.begin(), r.end(),
                           f.archive.begin() + static_cast<std::ptrdiff_t>(f.record_at[c])))
        << "clip " << c;
  }
  // And the spliced copy of the undamaged record reads back.
  Result<Asset> back = read_archive(f.with_record(0, f.record[0].bytes), "same.marrow");
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_NE(back->compiled_clip(0), nullptr);
}

TEST(ArchiveCompiledHostile, RecordsCutShortAtEveryLength) {
  const Fixture& f = fixture();
  for (int c = 0; c < 2; ++c) {
    const Bytes& full = f.record[c].bytes;
    // Length 0 says "no compiled form": that loads, without one.
    Result<Asset> none = read_archive(f.with_record(c, {}), "none.marrow");
    ASSERT_TRUE(none.ok()) << none.error().message;
    EXPECT_EQ(none->compiled_clip(static_cast<std::size_t>(c)), nullptr);
    // Every length, except inside the frame bytes (most of a record's tens of kilobytes: every
    // length there would take minutes under ASan), where every 61st.
    const std::size_t frames = f.record[c].at.at("frames") + 64,
                      after = f.record[c].at.at("exact track count");
    for (std::size_t n = 1; n < full.size(); n += n >= frames && n + 61 < after ? 61 : 1) {
      const Bytes cut(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(n));
      const Bytes b = f.with_record(c, cut);
      Result<Asset> r = read_archive(b, "bad.marrow");
      ASSERT_FALSE(r.ok()) << "clip " << c << " record cut to " << n << " bytes was accepted";
      EXPECT_EQ(r.error().message.rfind("bad.marrow: byte ", 0), 0u) << r.error().message;
    }
  }
}

TEST(ArchiveCompiledHostile, AFileCutInsideTheRecordIsTruncated) {
  const Fixture& f = fixture();
  for (std::size_t n = f.record_at[0]; n < f.record_at[0] + f.record[0].bytes.size(); n += 7) {
    const Bytes cut(f.archive.begin(), f.archive.begin() + static_cast<std::ptrdiff_t>(n));
    Result<Asset> r = read_archive(cut, "cut.marrow");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("truncated"), std::string::npos) << r.error().message;
  }
}

TEST(ArchiveCompiledHostile, RecordLengthsThatLie) {
  const Fixture& f = fixture();
  const Bytes& r = f.record[0].bytes;
  const auto size = static_cast<std::uint32_t>(r.size());
  expect_rejected(f.with_record(0, r, size + 1000), 0, "compiled clip record claims");
  expect_rejected(f.with_record(0, r, 0xFFFFFFFFu), 0, "compiled clip record claims 4294967295");
  // Extra bytes inside the record, or a record that ends before its fields do.
  Bytes longer = r;
  longer.insert(longer.end(), {0, 0, 0});
  expect_rejected(f.with_record(0, longer), 0, "3 bytes its fields do not account for");
  // A length 4 short of the fields (the bytes still there): the last field runs past the record,
  // and the 4 bytes after it are not the section's.
  expect_rejected(f.with_record(0, r, size - 4), 0, "left in the record");
}

TEST(ArchiveCompiledHostile, CountsThatLieAreBoundedByTheRecord) {
  const Fixture& f = fixture();
  for (const std::string count :
       {"source count", "constant count", "segment count", "stream count", "frame time count",
        "track group count", "range count", "frame byte count", "exact track count",
        "exact key time count", "exact key value count"}) {
    for (int c = 0; c < 2; ++c) {
      const Bytes b = f.with_u32(c, count, 0, 0xFFFFFFFFu);
      if (count == "source count") {
        expect_rejected(b, c, "channel source count = 4294967295 cannot fit");
      } else {
        expect_rejected(b, c, " = 4294967295 cannot fit");
      }
      EXPECT_LE(largest_allocation_loading_compiled(b), 8 * b.size() + 1024) << count;
      // One more or one fewer than there are: the fields after it no longer line up.
      const std::uint32_t real = u32_at(f.record[c].bytes, f.record[c].at.at(count));
      for (std::uint32_t lie : {real + 1, real - 1}) {
        if (real == 0 && lie == real - 1) continue;
        Result<Asset> r = read_archive(f.with_u32(c, count, 0, lie), "bad.marrow");
        ASSERT_FALSE(r.ok()) << count << " " << lie << " for " << real << " was accepted";
        EXPECT_EQ(r.error().message.rfind("bad.marrow: byte ", 0), 0u) << r.error().message;
      }
    }
  }
  expect_rejected(f.with_data(0, [](Data& d) { d.sources.pop_back(); }), 0,
                  "5 channel sources for 10 joints");
}

TEST(ArchiveCompiledHostile, EnumsAndReservedBytesOutOfRange) {
  const Fixture& f = fixture();
  expect_rejected(f.with_bytes(0, "sources", 0, {3}), 0, "channel source 3 is unknown");
  expect_rejected(f.with_bytes(0, "track groups", 1, {4}), 0, "track group format 4 is unknown");
  expect_rejected(f.with_bytes(0, "track groups", 2, {2}), 0,
                  "track group flags 2 unknown in version 7");
  // Slerp timing on clip 0's first group, its translations.
  expect_rejected(f.with_bytes(0, "track groups", 2, {1}), 0,
                  "asks for slerp timing but holds no rotations");
  expect_rejected(f.with_bytes(0, "exact tracks", 2, {3}), 0, "exact track channel 3 is unknown");
  expect_rejected(f.with_bytes(0, "exact tracks", 3, {7}), 0,
                  "exact track interpolation 7 is unknown");
}

TEST(ArchiveCompiledHostile, OffsetsThatPointOutside) {
  const Fixture& f = fixture();
  const auto data = [&](int c, auto change, const std::string& part) {
    expect_rejected(f.with_data(c, change), c, part);
  };
  data(
      0, [](Data& d) { d.track_groups[0].frame_offset = d.streams[0].frame_stride; },
      "lies outside its frame");
  data(
      0, [](Data& d) { d.track_groups[0].frame_offset += 1; }, "lies outside its frame");
  data(
      0, [](Data& d) { d.track_groups[0].stream = 5; }, "names a stream that does not exist");
  data(
      0,
      [](Data& d) {
        for (Data::TrackGroup& g : d.track_groups) {
          if (g.format != Data::Format::kF32) g.range_offset = 0xFFFFFFF0u;
        }
      },
      "has its ranges outside the range table");
  data(
      0, [](Data& d) { d.streams[0].first_byte += 4; }, "frames out of order or past the end");
  data(
      0, [](Data& d) { d.streams[0].first_byte = ~std::uint64_t{0} - 2; },
      "frames out of order or past the end");
  data(
      0, [](Data& d) { d.streams.back().frame_stride += 4; }, "past the end of the frame data");
  data(
      0, [](Data& d) { d.streams[0].frame_stride = 3; }, "bad frame stride");
  data(
      0, [](Data& d) { d.streams[0].first_time = 1; }, "frame times out of order");
  data(
      0, [](Data& d) { d.streams[0].frame_count = 1; }, "fewer than 2 frames");
  data(
      0, [](Data& d) { d.streams[0].frame_count = 0xFFFFFFFFu; }, "past the end");
  data(
      0, [](Data& d) { d.streams[0].sample_rate = -30; }, "bad rate");
  data(
      0, [](Data& d) { d.frame_times[1] += 0.5f * (d.frame_times[2] - d.frame_times[1]); },
      "is off the stream's rate");
  data(
      0, [](Data& d) { d.segments[0].first_stream = 1; }, "streams or track groups out of order");
  data(
      0, [](Data& d) { d.segments[0].stream_count = 99; }, "streams or track groups out of order");
  data(
      0, [](Data& d) { d.segments[0].start_time = 0.25f; }, "does not start where its index");
  data(
      0, [](Data& d) { d.segment_rate = std::nanf(""); }, "bad segment rate");
  data(
      0, [](Data& d) { d.frames.push_back(0); }, "frame data that no segment uses");
  data(
      0, [](Data& d) { d.keyed[0].joint = 10; }, "exact track 0: bad joint");
  data(
      0, [](Data& d) { d.keyed[0].key_count += 1; }, "runs past the key arrays");
  data(
      0, [](Data& d) { d.keyed_values.push_back(1); }, "hold keys no track uses");
  data(
      0, [](Data& d) { d.keyed_times[1] = d.keyed_times[0]; }, "exact track 0");
}

// Quantized values decode to min + q * scale per lane: ranges that make them infinite, rotations
// that are no longer unit quaternions, floats that are not finite.
TEST(ArchiveCompiledHostile, ValuesThatDecodeOutOfRange) {
  const Fixture& f = fixture();
  const Data& q = f.data[0];
  // The first quantized rotation group and its range table.
  std::size_t rotation_group = q.track_groups.size(), animated = 0;
  for (std::size_t s = 0; s < q.sources.size() && rotation_group == q.track_groups.size(); ++s) {
    if (q.sources[s] != Data::Source::kAnimated) continue;
    if (s % 3 == 1 && q.track_groups[animated].format != Data::Format::kF32)
      rotation_group = animated;
    ++animated;
  }
  ASSERT_LT(rotation_group, q.track_groups.size()) << "no quantized rotation group";
  const std::uint32_t range = q.track_groups[rotation_group].range_offset;
  // scale of component x, lane 1: 255 or 65535 steps of 1e38 overflow.
  expect_rejected(f.with_data(0, [&](Data& d) { d.ranges[range + 8 + 1] = 1e38f; }), 0,
                  "decodes to a value that is not finite");
  // min of component w, lane 2, moved by 2: |q| is about 3.
  expect_rejected(f.with_data(0, [&](Data& d) { d.ranges[range + 6 * 8 + 2] += 2; }), 0,
                  "not a unit quaternion");
  expect_rejected(f.with_data(0, [&](Data& d) { d.ranges[range] = INFINITY; }), 0,
                  "quantization range is not finite");

  // Float frames: a NaN, a rotation doubled, a rotation flipped to the other hemisphere.
  const Data& fl = f.data[1];
  std::size_t float_rotation = fl.track_groups.size();
  animated = 0;
  for (std::size_t s = 0; s < fl.sources.size(); ++s) {
    if (fl.sources[s] != Data::Source::kAnimated) continue;
    if (s % 3 == 1 && float_rotation == fl.track_groups.size()) float_rotation = animated;
    ++animated;
  }
  ASSERT_LT(float_rotation, fl.track_groups.size());
  const Data::TrackGroup g = fl.track_groups[float_rotation];
  const Data::Stream st = fl.streams[g.stream];  // the first segment's streams come first
  const auto frame_float = [&](Data& d, std::size_t frame, std::size_t k, std::size_t lane) {
    return reinterpret_cast<float*>(d.frames.data() + st.first_byte + frame * st.frame_stride +
                                    g.frame_offset) +
           k * 8 + lane;
  };
  expect_rejected(f.with_data(1, [&](Data& d) { *frame_float(d, 1, 0, 1) = std::nanf(""); }), 1,
                  "decodes to a value that is not finite");
  expect_rejected(f.with_data(1,
                              [&](Data& d) {
                                for (std::size_t k = 0; k < 4; ++k) *frame_float(d, 1, k, 1) *= 2;
                              }),
                  1, "not a unit quaternion");
  expect_rejected(f.with_data(1,
                              [&](Data& d) {
                                for (std::size_t k = 0; k < 4; ++k) *frame_float(d, 1, k, 1) *= -1;
                              }),
                  1, "opposite hemispheres");
  // Constants: not finite, or a rotation that is not unit.
  expect_rejected(f.with_data(0, [](Data& d) { d.constants[0] = INFINITY; }), 0,
                  "a constant is not finite");
  expect_rejected(f.with_data(0,
                              [](Data& d) {
                                // The first constant rotation source's floats are zeroed.
                                std::size_t at = 0;
                                for (std::size_t s = 0; s < d.sources.size(); ++s) {
                                  if (d.sources[s] != Data::Source::kConstant) continue;
                                  const std::size_t n = s % 3 == 1 ? 32 : 24;
                                  if (s % 3 == 1) {
                                    std::fill_n(d.constants.begin() + static_cast<long>(at), n, 0);
                                    return;
                                  }
                                  at += n;
                                }
                                // No constant rotation: make the first group's rotation one.
                                d.sources[1] = Data::Source::kConstant;
                                d.constants.insert(d.constants.begin(), 32, 0.0f);
                              }),
                  0, "rotation is not a unit quaternion");
}

// kPacked groups (version 6): lane bits past 24, bits in another format, records that outgrow
// their frame, rotations whose x, y and z leave no room for w, and the format in a version-5
// archive, which had none.
TEST(ArchiveCompiledHostile, PackedGroupsThatLie) {
  const Fixture& f = fixture();
  const Data& p = f.data[2];
  std::size_t packed = p.track_groups.size(), rotation = p.track_groups.size(), animated = 0;
  for (std::size_t s = 0; s < p.sources.size(); ++s) {
    if (p.sources[s] != Data::Source::kAnimated) continue;
    const Data::TrackGroup& g = p.track_groups[animated];
    if (g.format == Data::Format::kPacked && packed == p.track_groups.size()) packed = animated;
    if (g.format == Data::Format::kPacked && s % 3 == 1 && rotation == p.track_groups.size())
      rotation = animated;
    ++animated;
  }
  ASSERT_LT(packed, p.track_groups.size()) << "no packed group";
  ASSERT_LT(rotation, p.track_groups.size()) << "no packed rotation group";
  const auto data = [&](auto change, const std::string& part) {
    expect_rejected(f.with_data(2, change), 2, part);
  };
  data([&](Data& d) { d.track_groups[packed].lane_bits[6] = 25; }, "lane 6 has 25 bits");
  data([&](Data& d) { d.track_groups[packed].lane_bits[3] = 255; }, "lane 3 has 255 bits");
  // The group's records starting at its frame's last byte.
  data(
      [&](Data& d) {
        Data::TrackGroup& g = d.track_groups[packed];
        g.frame_offset = d.streams[d.segments[0].first_stream + g.stream].frame_stride - 1;
      },
      "lies outside its frame");
  // Bits on a float group.
  expect_rejected(f.with_data(1, [](Data& d) { d.track_groups[0].lane_bits[0] = 1; }), 1,
                  "lane 0 has 1 bits (at most 0 in its format)");
  // A rotation's x range moved by 2: |xyz| about 2, no room for w.
  const std::uint32_t range = p.track_groups[rotation].range_offset;
  data([&](Data& d) { d.ranges[range] += 2; }, "not a unit quaternion");
  // Format 3 in a version-5 archive is unknown: every record written as version 5 wrote them (no
  // lane bits) and the archive's version set to 5. Without clip 2's packed groups, it loads.
  const auto as_version5 = [&](bool keep_packed) {
    Bytes b = f.archive;
    for (int c = 0; c < 3; ++c) {
      Record r = serialize_record(f.data[c]);
      for (std::size_t g = f.data[c].track_groups.size(); g-- > 0;) {
        r.bytes[r.at.at("track groups") + g * 20 + 2] = 0;  // flags: version 7
        const std::size_t at = r.at.at("track groups") + g * 20 + 12;
        r.bytes.erase(r.bytes.begin() + static_cast<std::ptrdiff_t>(at),
                      r.bytes.begin() + static_cast<std::ptrdiff_t>(at + 8));
      }
      const bool drop = c == 2 && !keep_packed;
      b = splice_record(b, c, f.record[c].bytes.size(),
                        drop ? 0u : static_cast<std::uint32_t>(r.bytes.size()),
                        drop ? Bytes{} : r.bytes);
    }
    put_u32_at(b, 8, 5);
    reseal_archive(b);
    return b;
  };
  Result<Asset> v5 = read_archive(as_version5(false), "v5.marrow");
  ASSERT_TRUE(v5.ok()) << v5.error().message;
  ASSERT_NE(v5->compiled_clip(0), nullptr);
  EXPECT_EQ(v5->compiled_clip(0)->size_bytes(), f.asset.compiled_clip(0)->size_bytes());
  EXPECT_EQ(v5->compiled_clip(2), nullptr);
  Result<Asset> packed_v5 = read_archive(as_version5(true), "v5.marrow");
  ASSERT_FALSE(packed_v5.ok());
  EXPECT_NE(packed_v5.error().message.find("clip 2 'packed': compiled clip: track group format 3 "
                                           "is unknown"),
            std::string::npos)
      << packed_v5.error().message;
}

// Slerp timing came with version 7: a version-6 archive whose track group flags set it is
// refused; with the flags at 0, as version 6 wrote them, its rotation groups load as plain nlerp.
TEST(ArchiveCompiledHostile, SlerpTimingIsRefusedBeforeVersion7) {
  const Fixture& f = fixture();
  bool flagged = false;
  for (const Data& d : f.data) {
    for (const Data::TrackGroup& g : d.track_groups) flagged = flagged || g.slerp_timing;
  }
  ASSERT_TRUE(flagged) << "no track group with slerp timing in the fixture";
  const auto as_version6 = [&](bool keep_flags) {
    Bytes b = f.archive;
    for (int c = 0; c < 3; ++c) {
      Record r = serialize_record(f.data[c]);
      for (std::size_t g = 0; g < f.data[c].track_groups.size() && !keep_flags; ++g) {
        r.bytes[r.at.at("track groups") + g * 20 + 2] = 0;
      }
      b = splice_record(b, c, f.record[c].bytes.size(), static_cast<std::uint32_t>(r.bytes.size()),
                        r.bytes);
    }
    put_u32_at(b, 8, 6);
    reseal_archive(b);
    return b;
  };
  Result<Asset> flags = read_archive(as_version6(true), "v6.marrow");
  ASSERT_FALSE(flags.ok());
  EXPECT_NE(flags.error().message.find("track group flags 1 unknown in version 6"),
            std::string::npos)
      << flags.error().message;
  Result<Asset> plain = read_archive(as_version6(false), "v6.marrow");
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  for (std::size_t c = 0; c < 3; ++c) {
    ASSERT_NE(plain->compiled_clip(c), nullptr) << c;
    for (const Data::TrackGroup& g : plain->compiled_clip(c)->layout().track_groups) {
      EXPECT_FALSE(g.slerp_timing);
    }
  }
}

TEST(ArchiveCompiledHostile, ReportsThatContradictThemselves) {
  const Fixture& f = fixture();
  expect_rejected(f.with_data(0, [](Data& d) { d.report.bound = std::nanf(""); }), 0,
                  "report: a value is negative or not finite");
  expect_rejected(f.with_data(0, [](Data& d) { d.report.bound = 0; }), 0,
                  "the bound and the extent must be above 0");
  expect_rejected(f.with_data(0, [](Data& d) { d.report.max_error = 2 * d.report.bound; }), 0,
                  "over the bound");
  expect_rejected(f.with_data(0, [](Data& d) { d.report.max_error_joint = 10; }), 0,
                  "lies outside the clip");
  expect_rejected(f.with_data(0, [](Data& d) { d.report.max_error_time = 3; }), 0,
                  "lies outside the clip");
}

// Random bytes of a record changed and the file re-sealed: each load fails with a message naming
// the file, or gives a compiled clip that samples to finite poses.
TEST(ArchiveCompiledHostile, RandomDamageResealedNeverCrashes) {
  const Fixture& f = fixture();
  std::mt19937 rng(1313);
  std::uniform_int_distribution<int> value(0, 255), how_many(1, 4), clip(0, 2);
  int rejected = 0, accepted = 0;
  for (int round = 0; round < 1500; ++round) {
    const int c = clip(rng);
    Bytes r = f.record[c].bytes;
    std::uniform_int_distribution<std::size_t> where(0, r.size() - 1);
    const int n = how_many(rng);
    for (int k = 0; k < n; ++k) r[where(rng)] = static_cast<std::uint8_t>(value(rng));
    const Bytes b = f.with_record(c, r);
    if (round % 50 == 0) {
      ASSERT_LE(largest_allocation_loading_compiled(b), 8 * b.size() + 1024) << "round " << round;
    }
    Result<Asset> loaded = read_archive(b, "bad.marrow");
    if (!loaded.ok()) {
      ++rejected;
      ASSERT_EQ(loaded.error().message.rfind("bad.marrow: byte ", 0), 0u) << loaded.error().message;
      continue;
    }
    ++accepted;
    const CompiledClip* compiled = loaded->compiled_clip(static_cast<std::size_t>(c));
    ASSERT_NE(compiled, nullptr);
    std::vector<SoaTransform> soa(soa_group_count(loaded->skeleton.size()));
    CompiledSamplingContext context(*compiled);
    for (float t : {0.0f, 0.3f, 1.0f, 1.77f, 2.0f, 0.1f}) {
      CompiledSamplingJob job;
      job.clip = compiled;
      job.time = t;
      job.rest_pose = loaded->skeleton.soa_rest_pose();
      job.context = &context;
      job.output = soa;
      ASSERT_TRUE(job.run());
      for (const SoaTransform& s : soa) {
        for (const float* plane : {s.tx, s.ty, s.tz, s.qx, s.qy, s.qz, s.qw, s.sx, s.sy, s.sz}) {
          for (std::size_t i = 0; i < kSoaWidth; ++i) {
            ASSERT_TRUE(std::isfinite(plane[i])) << "round " << round << " t " << t;
          }
        }
      }
    }
  }
  EXPECT_GT(rejected, 100);  // damage to counts, offsets, enums, ranges
  EXPECT_GT(accepted, 100);  // most lands in quantized frames, where any byte is a value
}

}  // namespace
}  // namespace formats_test
