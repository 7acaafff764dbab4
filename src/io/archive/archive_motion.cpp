// A motion-matching database in the archive: the MOTN section's bytes (docs/formats_archive.md)
// written from MotionDatabase::contents() and read back into MotionDatabase::restore().
#include <cmath>

#include "archive/archive_sections.h"
#include "common/reader_support.h"
#include "marrow/io/atomic_file.h"
#include "marrow/io/motion_database_archive.h"

namespace marrow {
namespace {

using archive_detail::In;
using archive_detail::Out;

constexpr std::uint8_t kSearchable = 1, kLeftContact = 2, kRightContact = 4;
constexpr std::size_t kFrameRecordBytes = 21;  // clip, time, side, forward, yaw, flags

void write_contents(Out& out, const MotionDatabaseContents& c) {
  const MotionSchema& s = c.schema;
  out.string(s.root);
  out.string(s.left_foot);
  out.string(s.right_foot);
  out.array(&s.up.x, 3);
  out.f32(s.sample_rate);
  out.u8(s.compile_clips ? 1 : 0);
  out.u32(static_cast<std::uint32_t>(s.mirror.size()));
  out.array(s.mirror.data(), s.mirror.size());
  out.u32(static_cast<std::uint32_t>(s.features.size()));
  for (const MotionFeatureDesc& f : s.features) {
    out.u8(static_cast<std::uint8_t>(f.kind));
    out.string(f.joint);
    out.f32(f.horizon);
    out.f32(f.weight);
  }
  out.f32(c.mean_speed);
  out.u32(static_cast<std::uint32_t>(c.first_frame_of_clip.size()));
  out.array(c.first_frame_of_clip.data(), c.first_frame_of_clip.size());
  out.u32(static_cast<std::uint32_t>(c.frames.size()));
  for (const MotionFrame& f : c.frames) {
    out.u32(f.clip);
    out.f32(f.time);
    out.f32(f.ground_side);
    out.f32(f.ground_forward);
    out.f32(f.yaw);
    out.u8(static_cast<std::uint8_t>((f.searchable ? kSearchable : 0) |
                                     (f.left_contact ? kLeftContact : 0) |
                                     (f.right_contact ? kRightContact : 0)));
  }
  out.u32(static_cast<std::uint32_t>(c.mean.size()));
  out.array(c.mean.data(), c.mean.size());
  out.array(c.scale.data(), c.scale.size());
  out.array(c.features.data(), c.features.size());
}

// Everything but the features' values is checked by MotionDatabase::restore(); here only what
// the bytes can hold.
MotionSchema read_schema(In& in) {
  MotionSchema s;
  s.root = in.string("root joint");
  s.left_foot = in.string("left foot joint");
  s.right_foot = in.string("right foot joint");
  in.array(&s.up.x, 3, "up axis");
  s.sample_rate = in.f32("sample rate");
  const std::size_t flag_at = in.pos();
  const std::uint8_t compile = in.u8("compile flag");
  if (compile > 1) in.fail(flag_at, "compile flag " + std::to_string(compile) + " is not 0 or 1");
  s.compile_clips = compile == 1;
  s.mirror.resize(in.count("mirror joint count", 2));
  in.array(s.mirror.data(), s.mirror.size(), "mirror joints");
  // kind 1 + joint name length 4 + horizon 4 + weight 4
  const std::uint32_t features = in.count("feature count", 13);
  for (std::uint32_t i = 0; i < features; ++i) {
    const std::size_t at = in.pos();
    const std::uint8_t kind = in.u8("feature kind");
    if (kind > static_cast<std::uint8_t>(MotionFeature::kTrajectoryDirection))
      in.fail(at,
              "feature " + std::to_string(i) + ": kind " + std::to_string(kind) + " is unknown");
    MotionFeatureDesc f;
    f.kind = static_cast<MotionFeature>(kind);
    f.joint = in.string("feature joint");
    f.horizon = in.f32("feature horizon");
    f.weight = in.f32("feature weight");
    s.features.push_back(std::move(f));
  }
  return s;
}

MotionDatabaseContents read_contents(In& in) {
  MotionDatabaseContents c;
  c.schema = read_schema(in);
  c.mean_speed = in.f32("mean speed");
  c.first_frame_of_clip.resize(in.count("clip frame range count", 4));
  in.array(c.first_frame_of_clip.data(), c.first_frame_of_clip.size(), "clip frame ranges");
  const std::uint32_t frames = in.count("frame count", kFrameRecordBytes);
  c.frames.resize(frames);
  for (std::uint32_t i = 0; i < frames; ++i) {
    MotionFrame& f = c.frames[i];
    f.clip = in.u32("frame clip");
    f.time = in.f32("frame time");
    f.ground_side = in.f32("frame ground position");
    f.ground_forward = in.f32("frame ground position");
    f.yaw = in.f32("frame facing");
    const std::size_t at = in.pos();
    const std::uint8_t flags = in.u8("frame flags");
    if (flags & ~(kSearchable | kLeftContact | kRightContact))
      in.fail(at, "frame " + std::to_string(i) + ": unknown flags " + std::to_string(flags));
    f.searchable = flags & kSearchable;
    f.left_contact = flags & kLeftContact;
    f.right_contact = flags & kRightContact;
  }
  const std::size_t dims_at = in.pos();
  const std::uint32_t dims = in.count("feature float count", 8);
  if (dims > kMaxMotionDims)
    in.fail(dims_at,
            std::to_string(dims) + " floats a frame, more than " + std::to_string(kMaxMotionDims));
  c.mean.resize(dims), c.scale.resize(dims);
  in.array(c.mean.data(), dims, "feature means");
  in.array(c.scale.data(), dims, "feature scales");
  in.need(std::uint64_t{frames} * dims * 4, "features");
  c.features.resize(std::size_t{frames} * dims);
  in.array(c.features.data(), c.features.size(), "features");
  return c;
}

}  // namespace

Result<std::vector<std::uint8_t>> motion_database_bytes(const MotionDatabase& database) {
  Result<MotionDatabaseContents> contents = database.contents();
  if (!contents) return contents.error();
  const ClipSet& set = database.clip_set();
  Asset asset;
  asset.source = "motion database";
  asset.skeleton = set.skeleton();
  for (ClipId c = 0; c < set.clip_count(); ++c) asset.clips.push_back(set.clip(c));
  archive_detail::ExtraSection section;
  section.tag = archive_detail::kMotionTag;
  section.write = [&](Out& out) { write_contents(out, *contents); };
  return archive_detail::archive_bytes_with(asset, section);
}

Status write_motion_database(const MotionDatabase& database, const std::string& path) {
  Result<std::vector<std::uint8_t>> bytes = motion_database_bytes(database);
  if (!bytes) return bytes.error();
  return write_file_atomically(path, *bytes);
}

Result<std::shared_ptr<const MotionDatabase>> read_motion_database(
    std::span<const std::uint8_t> bytes, const std::string& name) {
  std::shared_ptr<const MotionDatabase> database;
  archive_detail::ExtraSection section;
  section.tag = archive_detail::kMotionTag;
  section.read = [&](In& in, std::size_t at, const Asset& asset) {
    MotionDatabaseContents contents = read_contents(in);
    Result<std::shared_ptr<const MotionDatabase>> restored =
        MotionDatabase::restore(asset.skeleton, asset.clips, std::move(contents));
    if (!restored) in.fail(at, "MOTN section: " + restored.error().message);
    database = std::move(*restored);
  };
  bool found = false;
  Result<Asset> asset = archive_detail::read_archive_with(bytes, name, section, &found);
  if (!asset) return asset.error();
  if (!found) return Error{name + ": holds no motion-matching database (no MOTN section)"};
  return database;
}

Result<std::shared_ptr<const MotionDatabase>> read_motion_database(const std::string& path) {
  Result<std::vector<std::uint8_t>> bytes = io::read_file_bytes(path);
  if (!bytes) return bytes.error();
  return read_motion_database(*bytes, path);
}

}  // namespace marrow
