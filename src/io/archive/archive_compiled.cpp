#include "archive/archive_compiled.h"

#include <cmath>

namespace marrow::archive_detail {
namespace {

using Data = CompiledClipData;

// The report's fixed part: six f32, a u32 and two u64.
constexpr std::uint64_t kReportBytes = 6 * 4 + 4 + 2 * 8;

bool same_events(std::span<const ClipEvent> a, std::span<const ClipEvent> b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].time != b[i].time || a[i].name != b[i].name) return false;
  }
  return true;
}

// A u32 count, then the elements.
template <typename T>
void counted(Out& out, const std::vector<T>& v) {
  out.u32(static_cast<std::uint32_t>(v.size()));
  out.array(v.data(), v.size());
}

void write_record(Out& out, const Data& d) {
  const CompiledClipReport& r = d.report;
  for (float f : {r.bound, r.distance, r.extent, r.max_error, r.p99_error, r.max_error_time})
    out.f32(f);
  out.u32(r.max_error_joint);
  out.u64(r.measured_times);
  out.u64(r.exact_bytes);
  out.u32(static_cast<std::uint32_t>(d.sources.size()));
  for (Data::Source s : d.sources) out.u8(static_cast<std::uint8_t>(s));
  counted(out, d.constants);
  out.f32(d.segment_rate);
  out.u32(static_cast<std::uint32_t>(d.segments.size()));
  for (const Data::Segment& s : d.segments) {
    out.f32(s.start_time);
    out.u32(s.first_stream);
    out.u32(s.stream_count);
    out.u32(s.first_track_group);
  }
  out.u32(static_cast<std::uint32_t>(d.streams.size()));
  for (const Data::Stream& s : d.streams) {
    out.f32(s.sample_rate);
    out.u32(s.frame_count);
    out.u32(s.frame_stride);
    out.u32(s.first_time);
    out.u64(s.first_byte);
  }
  counted(out, d.frame_times);
  out.u32(static_cast<std::uint32_t>(d.track_groups.size()));
  for (const Data::TrackGroup& g : d.track_groups) {
    out.u8(g.stream);
    out.u8(static_cast<std::uint8_t>(g.format));
    out.u16(g.slerp_timing ? 1 : 0);  // flags, version 7 (reserved, 0, before)
    out.u32(g.frame_offset);
    out.u32(g.range_offset);
    out.array(g.lane_bits, kSoaWidth);  // version 6
  }
  counted(out, d.ranges);
  counted(out, d.frames);
  out.u32(static_cast<std::uint32_t>(d.keyed.size()));
  for (const Data::KeyedTrack& k : d.keyed) {
    out.u16(static_cast<std::uint16_t>(k.joint));
    out.u8(static_cast<std::uint8_t>(k.channel));
    out.u8(static_cast<std::uint8_t>(k.interpolation));
    out.u32(k.key_count);
  }
  counted(out, d.keyed_times);
  counted(out, d.keyed_values);
}

// What counted() wrote: the count is checked against the bytes left in the record first.
template <typename T>
void read_array(In& in, std::vector<T>& v, const char* what) {
  v.resize(in.count(what, sizeof(T)));
  in.array(v.data(), v.size(), what);
}

// One enum byte, refused past its last value.
std::uint8_t enum_byte(In& in, const char* what, std::uint8_t last) {
  const std::size_t at = in.pos();
  const std::uint8_t v = in.u8(what);
  if (v > last) in.fail(at, std::string(what) + " " + std::to_string(v) + " is unknown");
  return v;
}

void check_report(const In& in, std::size_t at, const CompiledClipReport& r, const Clip& clip,
                  std::size_t joint_count) {
  const float fields[] = {r.bound,     r.distance,  r.extent,
                          r.max_error, r.p99_error, r.max_error_time};
  for (float f : fields) {
    if (!std::isfinite(f) || f < 0) in.fail(at, "report: a value is negative or not finite");
  }
  if (!(r.bound > 0) || !(r.extent > 0))
    in.fail(at, "report: the bound and the extent must be above 0");
  if (r.max_error > r.bound || r.p99_error > r.max_error)
    in.fail(at, "report: the measured error " + std::to_string(r.max_error) +
                    " is over the bound " + std::to_string(r.bound) +
                    " (or its 99th percentile over the maximum)");
  if (r.max_error_time > clip.duration() || r.max_error_joint >= joint_count)
    in.fail(at, "report: the worst time or joint lies outside the clip");
}

}  // namespace

void write_compiled_clip(Out& out, const std::optional<CompiledClip>& compiled, const Clip& clip,
                         std::size_t joint_count, const std::string& what) {
  if (!compiled) {
    out.u32(0);
    return;
  }
  const CompiledClip& c = *compiled;
  if (c.name() != clip.name() || c.duration() != clip.duration() ||
      c.ticks_per_second() != clip.ticks_per_second() || c.joint_count() != joint_count ||
      !same_events(c.events(), clip.events())) {
    throw WriteError{what + ": its compiled form was made from another clip or skeleton ('" +
                     c.name() + "', " + std::to_string(c.duration()) + " s, " +
                     std::to_string(c.joint_count()) + " joints)"};
  }
  const std::size_t length_at = out.bytes.size();
  out.u32(0);  // patched below
  write_record(out, c.to_data());
  const std::uint64_t length = out.bytes.size() - length_at - 4;
  if (length > 0xFFFFFFFFull) throw WriteError{what + ": compiled form over 4 GiB"};
  for (int i = 0; i < 4; ++i)
    out.bytes[length_at + static_cast<std::size_t>(i)] =
        static_cast<std::uint8_t>(length >> (8 * i));
}

std::optional<CompiledClip> read_compiled_clip(In& in, std::size_t section_end,
                                               const std::string& file, const std::string& what,
                                               const Clip& clip, std::size_t joint_count,
                                               std::uint32_t version) {
  const std::size_t length_at = in.pos();
  const std::uint32_t length = in.u32("compiled clip length");
  if (length == 0) return std::nullopt;
  if (length > in.left())
    in.fail(length_at, what + ": compiled clip record claims " + std::to_string(length) +
                           " bytes, " + std::to_string(in.left()) + " remain in the section");
  const std::size_t begin = in.pos(), end = begin + length;
  // Counts inside are bounded by the record, not the section; failures name the clip.
  in.set_window(begin, end);
  in.enter(what + ": compiled clip", "record");

  Data d;
  d.name = clip.name();
  d.duration = clip.duration();
  d.ticks_per_second = clip.ticks_per_second();
  d.joint_count = static_cast<std::uint32_t>(joint_count);
  d.events.assign(clip.events().begin(), clip.events().end());

  CompiledClipReport& r = d.report;
  in.need(kReportBytes, "compiled clip report");
  r.bound = in.f32("report bound");
  r.distance = in.f32("report distance");
  r.extent = in.f32("report extent");
  r.max_error = in.f32("report max error");
  r.p99_error = in.f32("report p99 error");
  r.max_error_time = in.f32("report max error time");
  r.max_error_joint = in.u32("report max error joint");
  r.measured_times = in.u64("report measured times");
  r.exact_bytes = in.u64("report exact bytes");
  check_report(in, begin, r, clip, joint_count);

  const std::size_t sources_at = in.pos();
  const std::uint32_t source_count = in.count("channel source count", 1);
  if (source_count != 3 * soa_group_count(joint_count))
    in.fail(sources_at, std::to_string(source_count) + " channel sources for " +
                            std::to_string(joint_count) + " joints (3 per group of " +
                            std::to_string(kSoaWidth) + " expected)");
  d.sources.resize(source_count);
  for (Data::Source& s : d.sources)
    s = static_cast<Data::Source>(enum_byte(in, "channel source", 2));
  read_array(in, d.constants, "constant count");
  d.segment_rate = in.f32("segment rate");
  // start 4 + first stream 4 + stream count 4 + first track group 4
  d.segments.resize(in.count("segment count", 16));
  for (Data::Segment& s : d.segments) {
    s.start_time = in.f32("segment start");
    s.first_stream = in.u32("segment first stream");
    s.stream_count = in.u32("segment stream count");
    s.first_track_group = in.u32("segment first track group");
  }
  // rate 4 + frame count 4 + stride 4 + first time 4 + first byte 8
  d.streams.resize(in.count("stream count", 24));
  for (Data::Stream& s : d.streams) {
    s.sample_rate = in.f32("stream rate");
    s.frame_count = in.u32("stream frame count");
    s.frame_stride = in.u32("stream frame stride");
    s.first_time = in.u32("stream first time");
    s.first_byte = in.u64("stream first byte");
  }
  read_array(in, d.frame_times, "frame time count");
  // stream 1 + format 1 + reserved 2 + frame offset 4 + range offset 4 (+ lane bits 8 from
  // version 6, which added kPacked)
  const bool lane_bits = version >= 6;
  d.track_groups.resize(in.count("track group count", lane_bits ? 20 : 12));
  for (Data::TrackGroup& g : d.track_groups) {
    g.stream = in.u8("track group stream");
    g.format = static_cast<Data::Format>(enum_byte(in, "track group format", lane_bits ? 3 : 2));
    const std::size_t flags_at = in.pos();
    const std::uint16_t flags = in.u16("track group flags");
    if (flags > (version >= 7 ? 1 : 0))
      in.fail(flags_at, "track group flags " + std::to_string(flags) + " unknown in version " +
                            std::to_string(version));
    g.slerp_timing = (flags & 1) != 0;
    g.frame_offset = in.u32("track group frame offset");
    g.range_offset = in.u32("track group range offset");
    if (lane_bits) in.array(g.lane_bits, kSoaWidth, "track group lane bits");
  }
  read_array(in, d.ranges, "range count");
  read_array(in, d.frames, "frame byte count");
  // joint 2 + channel 1 + interpolation 1 + key count 4
  d.keyed.resize(in.count("exact track count", 8));
  for (Data::KeyedTrack& k : d.keyed) {
    k.joint = in.u16("exact track joint");
    k.channel = static_cast<Data::Channel>(enum_byte(in, "exact track channel", 2));
    k.interpolation = static_cast<Interpolation>(enum_byte(in, "exact track interpolation", 2));
    k.key_count = in.u32("exact track key count");
  }
  read_array(in, d.keyed_times, "exact key time count");
  read_array(in, d.keyed_values, "exact key value count");
  if (in.pos() != end)
    in.fail("the record has " + std::to_string(end - in.pos()) +
            " bytes its fields do not account for");
  in.leave();
  in.set_window(end, section_end);

  // The layout as a whole: the offsets, the frame times, the formats, what the quantized values
  // decode to.
  Result<CompiledClip> compiled =
      CompiledClip::from_data(std::move(d), file + ": byte " + std::to_string(begin) + ": " + what);
  if (!compiled) throw ReadError{compiled.error().message};
  return std::move(compiled).value();
}

}  // namespace marrow::archive_detail
