// The archive's compiled-clip record written by the test itself from the layout in
// docs/formats_archive.md ("Compiled clip record"), not by the library: the tests check that the
// library writes exactly these bytes, then feed altered records to the reader. Also: an asset
// whose compiled clips cover every kind of source, format and exact-key track, and splicing a
// record into an archive in place of another.
#pragma once

#include <zlib.h>

#include <cmath>
#include <cstring>
#include <map>
#include <string>

#include "formats_test_util.h"
#include "marrow/clip/clip_builder.h"
#include "marrow/clip/compiled_clip.h"
#include "marrow/io/archive.h"

namespace formats_test {

struct Record {
  Bytes bytes;
  std::map<std::string, std::size_t> at;  // where each named field starts, from the record's start

  void mark(const std::string& field) { at[field] = bytes.size(); }
  template <typename T>
  void put(T v) {
    std::uint8_t raw[sizeof(T)];
    std::memcpy(raw, &v, sizeof(T));  // little-endian machines only (the suite runs on x86-64)
    bytes.insert(bytes.end(), raw, raw + sizeof(T));
  }
  template <typename T>
  void counted(const std::string& count_name, const std::string& name, const std::vector<T>& v) {
    mark(count_name);
    put(static_cast<std::uint32_t>(v.size()));
    mark(name);
    for (const T& x : v) put(x);
  }
};

// The record, field by field as docs/formats_archive.md lists them.
inline Record serialize_record(const marrow::CompiledClipData& d) {
  Record r;
  r.mark("report");
  const marrow::CompiledClipReport& rep = d.report;
  for (float f :
       {rep.bound, rep.distance, rep.extent, rep.max_error, rep.p99_error, rep.max_error_time})
    r.put(f);
  r.put(rep.max_error_joint);
  r.put(static_cast<std::uint64_t>(rep.measured_times));
  r.put(static_cast<std::uint64_t>(rep.exact_bytes));
  r.mark("source count");
  r.put(static_cast<std::uint32_t>(d.sources.size()));
  r.mark("sources");
  for (auto s : d.sources) r.put(static_cast<std::uint8_t>(s));
  r.counted("constant count", "constants", d.constants);
  r.mark("segment rate");
  r.put(d.segment_rate);
  r.mark("segment count");
  r.put(static_cast<std::uint32_t>(d.segments.size()));
  r.mark("segments");
  for (const auto& s : d.segments) {
    r.put(s.start_time);
    r.put(s.first_stream);
    r.put(s.stream_count);
    r.put(s.first_track_group);
  }
  r.mark("stream count");
  r.put(static_cast<std::uint32_t>(d.streams.size()));
  r.mark("streams");
  for (const auto& s : d.streams) {
    r.put(s.sample_rate);
    r.put(s.frame_count);
    r.put(s.frame_stride);
    r.put(s.first_time);
    r.put(s.first_byte);
  }
  r.counted("frame time count", "frame times", d.frame_times);
  r.mark("track group count");
  r.put(static_cast<std::uint32_t>(d.track_groups.size()));
  r.mark("track groups");
  for (const auto& g : d.track_groups) {
    r.put(g.stream);
    r.put(static_cast<std::uint8_t>(g.format));
    r.put(static_cast<std::uint16_t>(g.slerp_timing ? 1 : 0));  // flags, version 7
    r.put(g.frame_offset);
    r.put(g.range_offset);
    for (std::uint8_t bits : g.lane_bits) r.put(bits);  // version 6
  }
  r.counted("range count", "ranges", d.ranges);
  r.counted("frame byte count", "frames", d.frames);
  r.mark("exact track count");
  r.put(static_cast<std::uint32_t>(d.keyed.size()));
  r.mark("exact tracks");
  for (const auto& k : d.keyed) {
    r.put(static_cast<std::uint16_t>(k.joint));
    r.put(static_cast<std::uint8_t>(k.channel));
    r.put(static_cast<std::uint8_t>(k.interpolation));
    r.put(k.key_count);
  }
  r.counted("exact key time count", "exact key times", d.keyed_times);
  r.counted("exact key value count", "exact key values", d.keyed_values);
  return r;
}

// A 10-joint chain (two groups of 8 lanes) and two clips of the same motion: smooth LINEAR
// rotations on joints 1-9 and a LINEAR root translation (animated sources), a STEP scale on
// joint 5 (kept as exact keys), a constant translation on joint 8 away from its rest value (the
// second group's translation: a constant source), nothing on the second group's scales (rest).
// Clip 0 is compiled with quantization at 8 and 16 bits (packing off), clip 1 without (floats),
// clip 2 with the defaults (each lane its own bits: kPacked groups).
inline marrow::Asset compiled_asset() {
  using namespace marrow;
  Asset a;
  a.source = "compiled";
  std::vector<JointDesc> joints;
  for (int j = 0; j < 10; ++j) {
    joints.push_back({"j" + std::to_string(j),
                      j - 1,
                      {{0, j == 0 ? 0.0f : 0.2f, 0}, Quat::identity(), {1, 1, 1}}});
  }
  a.skeleton = Skeleton::build(joints, "compiled").value();
  for (int j = 0; j < 10; ++j) a.source_index.push_back(j);
  for (const std::string name : {"quantized", "floats", "packed"}) {
    ClipBuilder b(name);
    std::vector<float> times;
    for (int k = 0; k <= 60; ++k) times.push_back(k / 30.0f);
    for (JointIndex j = 1; j < 10; ++j) {
      std::vector<float> values;
      for (float t : times) {
        const float angle = 0.4f * std::sin(2.0f * t + 0.3f * j);
        values.insert(values.end(), {std::sin(angle / 2), 0, 0, std::cos(angle / 2)});
      }
      EXPECT_TRUE(b.add_track(j, "j" + std::to_string(j), TrackTarget::kRotation,
                              Interpolation::kLinear, times, values, "t")
                      .ok());
    }
    std::vector<float> root;
    for (float t : times) root.insert(root.end(), {0.3f * t, 0.05f * std::sin(6 * t), 0});
    EXPECT_TRUE(
        b.add_track(0, "j0", TrackTarget::kTranslation, Interpolation::kLinear, times, root, "t")
            .ok());
    const float step_times[] = {0, 1};
    const float step_scales[] = {1, 1, 1, 1.5f, 1.5f, 1.5f};
    EXPECT_TRUE(b.add_track(5, "j5", TrackTarget::kScale, Interpolation::kStep, step_times,
                            step_scales, "t")
                    .ok());
    const float still_times[] = {0, 2};
    const float still[] = {0.1f, 0.2f, 0, 0.1f, 0.2f, 0};
    EXPECT_TRUE(b.add_track(8, "j8", TrackTarget::kTranslation, Interpolation::kLinear, still_times,
                            still, "t")
                    .ok());
    b.add_event(0.5f, "step");
    a.clips.push_back(b.build(10, "compiled").value());
    CompileOptions options;
    options.quantize = name != "floats";
    options.pack = name == "packed";
    // Float frames cost four bytes a value: at the default bound this motion is smaller kept as
    // its keys; a hundred times the bound lowers the rates enough that frames are the smaller form.
    if (name == "floats") options.error *= 100;
    Result<CompiledClip> c = CompiledClip::compile(a.clips.back(), a.skeleton, options);
    EXPECT_TRUE(c.ok()) << c.error().message;
    a.compiled_clips.push_back(std::move(c).value());
  }
  return a;
}

inline void put_u32_at(Bytes& b, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i)
    b.at(at + static_cast<std::size_t>(i)) = static_cast<std::uint8_t>(v >> (8 * i));
}
inline std::uint32_t u32_at(const Bytes& b, std::size_t at) {
  return std::uint32_t(b.at(at)) | std::uint32_t(b.at(at + 1)) << 8 |
         std::uint32_t(b.at(at + 2)) << 16 | std::uint32_t(b.at(at + 3)) << 24;
}

// Both checksums and the payload length made right again, so the reader gets past them.
inline void reseal_archive(Bytes& b) {
  const std::uint64_t payload = b.size() - 32;
  put_u32_at(b, 16, static_cast<std::uint32_t>(payload));
  put_u32_at(b, 20, static_cast<std::uint32_t>(payload >> 32));
  put_u32_at(
      b, 24,
      static_cast<std::uint32_t>(::crc32(0, b.data() + 32, static_cast<unsigned>(b.size() - 32))));
  put_u32_at(b, 28, static_cast<std::uint32_t>(::crc32(0, b.data(), 28)));
}

// Where the content of the `nth` CLIP section ends (sections walked by their lengths).
inline std::size_t clip_section_end(const Bytes& b, int nth, std::size_t* length_at = nullptr) {
  std::size_t at = 32;
  int seen = 0;
  while (at + 12 <= b.size()) {
    const std::uint64_t length = u32_at(b, at + 4) | std::uint64_t{u32_at(b, at + 8)} << 32;
    if (std::memcmp(b.data() + at, "CLIP", 4) == 0 && seen++ == nth) {
      if (length_at) *length_at = at + 4;
      return at + 12 + static_cast<std::size_t>(length);
    }
    at += 12 + static_cast<std::size_t>(length);
  }
  ADD_FAILURE() << "no CLIP section " << nth;
  return 0;
}

// `archive` with clip `nth`'s compiled record (`old_size` bytes, the last of its section) and
// its length field replaced by `length` and `record`; section length, payload length and
// checksums made right.
inline Bytes splice_record(const Bytes& archive, int nth, std::size_t old_size,
                           std::uint32_t length, const Bytes& record) {
  std::size_t section_length_at = 0;
  const std::size_t end = clip_section_end(archive, nth, &section_length_at);
  const std::size_t record_at = end - old_size, length_field = record_at - 4;
  Bytes b(archive.begin(), archive.begin() + static_cast<std::ptrdiff_t>(length_field));
  for (int i = 0; i < 4; ++i) b.push_back(static_cast<std::uint8_t>(length >> (8 * i)));
  b.insert(b.end(), record.begin(), record.end());
  b.insert(b.end(), archive.begin() + static_cast<std::ptrdiff_t>(end), archive.end());
  const std::uint64_t section =
      (end - section_length_at - 8) - old_size + record.size();  // content bytes
  put_u32_at(b, section_length_at, static_cast<std::uint32_t>(section));
  put_u32_at(b, section_length_at + 4, static_cast<std::uint32_t>(section >> 32));
  reseal_archive(b);
  return b;
}

}  // namespace formats_test
