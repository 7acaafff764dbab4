// The .marrow archive: a 32-byte header, then tagged sections (SKEL, CLIP, SKIN, MESH, WARN).
// docs/formats_archive.md describes every byte. Loading trusts nothing: the CRC-32 first, then
// every count against the bytes left in its section before anything is allocated, every index
// against what it indexes, every float for finiteness; the clips go through ClipBuilder and the
// skeleton through Skeleton::build, which check the rest (key order, cycles).
#include "marrow/io/archive.h"

#ifndef MARROW_NO_ZLIB
#include <zlib.h>
#endif

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>

#include "archive/archive_compiled.h"
#include "archive/archive_material.h"
#include "archive/archive_morph.h"
#include "archive/archive_sections.h"
#include "archive/archive_stream.h"
#include "marrow/clip/clip_builder.h"
#include "marrow/io/atomic_file.h"

namespace marrow {
namespace {

using archive_detail::floats_of;
using archive_detail::In;
using archive_detail::kHasMorphTargets;
using archive_detail::Out;
using archive_detail::ReadError;
using archive_detail::WriteError;

constexpr std::uint8_t kMagic[8] = {0x89, 'M', 'R', 'W', '\r', '\n', 0x1A, '\n'};

using archive_detail::ExtraSection;
using archive_detail::fourcc;
using archive_detail::kMotionTag;

constexpr std::uint32_t kSkel = fourcc("SKEL"), kClip = fourcc("CLIP"), kSkin = fourcc("SKIN"),
                        kMesh = fourcc("MESH"), kWarn = fourcc("WARN"), kImag = fourcc("IMAG"),
                        kMatl = fourcc("MATL");

constexpr std::uint32_t kHasNormals = 1, kHasTangents = 2, kHasUvs = 4, kHasInfluences = 8;
constexpr std::uint32_t kKnownMeshFlagsV1 = 15;
constexpr std::uint32_t kKnownMeshFlags = kKnownMeshFlagsV1 | kHasMorphTargets;
// Version 1 archives (no morph targets or weight tracks), version 2 (no compiled clips) and
// version 3 (no record of where a clip's tick rate came from) still load.
constexpr std::uint32_t kOldestReadableVersion = 1;

#ifndef MARROW_NO_ZLIB
std::uint32_t crc32_of(std::span<const std::uint8_t> bytes) {
  uLong crc = ::crc32(0L, Z_NULL, 0);
  const std::uint8_t* p = bytes.data();
  std::size_t left = bytes.size();
  while (left > 0) {  // zlib takes uInt lengths
    const uInt n = static_cast<uInt>(std::min<std::size_t>(left, 1u << 30));
    crc = ::crc32(crc, p, n);
    p += n;
    left -= n;
  }
  return static_cast<std::uint32_t>(crc);
}
#else
// The WebAssembly build has no zlib (docs/web.md): the same CRC-32 (ISO 3309, the reflected
// polynomial 0xEDB88320, as zlib and PNG use), a byte at a time.
std::uint32_t crc32_of(std::span<const std::uint8_t> bytes) {
  static const auto table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t n = 0; n < 256; ++n) {
      std::uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[n] = c;
    }
    return t;
  }();
  std::uint32_t crc = 0xFFFFFFFFu;
  for (const std::uint8_t b : bytes) crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8);
  return crc ^ 0xFFFFFFFFu;
}
#endif

// ---------------------------------------------------------------------------------- writing

void put_u32_at(std::vector<std::uint8_t>& b, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i)
    b[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v >> (8 * i));
}

std::vector<std::uint8_t> encode(const Asset& asset, std::vector<std::string>* notes,
                                 ImageFiles files, const ExtraSection* extra = nullptr) {
  const std::string who = asset.source.empty() ? std::string("asset") : asset.source;
  auto fail = [&who](const std::string& what) { throw WriteError{who + ": " + what}; };
  auto fits_u32 = [&](std::size_t n, const std::string& what) {
    if (n > 0xFFFFFFFFull) fail(what + ": more than 2^32 - 1 elements");
    return static_cast<std::uint32_t>(n);
  };
  Out out;
  out.bytes.resize(kArchiveHeaderBytes);

  // SKEL
  const Skeleton& s = asset.skeleton;
  std::size_t section = out.begin_section(kSkel);
  out.u32(static_cast<std::uint32_t>(s.size()));
  for (std::size_t j = 0; j < s.size(); ++j) {
    out.string(s.name(j));
    out.i32(s.parent(j) == kNoParent ? -1 : static_cast<std::int32_t>(s.parent(j)));
    const Transform& r = s.rest_pose()[j];
    const float trs[10] = {r.translation.x, r.translation.y, r.translation.z, r.rotation.x,
                           r.rotation.y,    r.rotation.z,    r.rotation.w,    r.scale.x,
                           r.scale.y,       r.scale.z};
    out.array(trs, 10);
    out.i64(j < asset.source_index.size() ? asset.source_index[j] : -1);
  }
  if (!out.end_section(section)) fail("skeleton section over 4 GiB");

  if (asset.compiled_clips.size() > asset.clips.size())
    fail(std::to_string(asset.compiled_clips.size()) + " compiled clips for " +
         std::to_string(asset.clips.size()) + " clips");
  for (std::size_t c = 0; c < asset.clips.size(); ++c) {
    const Clip& clip = asset.clips[c];
    section = out.begin_section(kClip);
    out.string(clip.name());
    out.f32(clip.duration());
    out.f64(clip.ticks_per_second());
    out.u32(fits_u32(clip.tracks().size(), "clip '" + clip.name() + "'"));
    const std::span<const std::string> names = clip.track_joint_names();
    for (std::size_t t = 0; t < clip.tracks().size(); ++t) {
      const Track& track = clip.tracks()[t];
      out.u16(track.joint);
      out.u8(static_cast<std::uint8_t>(track.target));
      out.u8(static_cast<std::uint8_t>(track.interpolation));
      out.u32(track.first_key);
      out.u32(track.key_count);
      out.u32(track.first_value);
      out.string(t < names.size() ? names[t] : std::string());
    }
    out.u32(fits_u32(clip.times().size(), "clip '" + clip.name() + "' times"));
    out.array(clip.times().data(), clip.times().size());
    out.u32(fits_u32(clip.values().size(), "clip '" + clip.name() + "' values"));
    out.array(clip.values().data(), clip.values().size());
    out.u32(static_cast<std::uint32_t>(clip.events().size()));
    for (const ClipEvent& e : clip.events()) {
      out.f32(e.time);
      out.string(e.name);
    }
    archive_detail::write_weight_tracks(out, clip);
    // Version 4, before the compiled record, which ends the section.
    out.u8(static_cast<std::uint8_t>(asset.rate_source(c)));
    archive_detail::write_compiled_clip(
        out, c < asset.compiled_clips.size() ? asset.compiled_clips[c] : std::nullopt, clip,
        s.size(), "clip " + std::to_string(c) + " '" + clip.name() + "'");
    if (!out.end_section(section)) fail("clip '" + clip.name() + "' over 4 GiB");
  }

  for (const Skin& skin : asset.skins) {
    if (skin.inverse_bind_matrices.size() != skin.joints.size())
      fail("skin '" + skin.name + "': joints and inverse bind matrices differ in count");
    section = out.begin_section(kSkin);
    out.string(skin.name);
    out.u16(skin.root_hint);
    out.u32(static_cast<std::uint32_t>(skin.joints.size()));
    out.array(skin.joints.data(), skin.joints.size());
    for (const Mat4& m : skin.inverse_bind_matrices) out.array(m.m.data(), 16);
    if (!out.end_section(section)) fail("skin '" + skin.name + "' over 4 GiB");
  }

  // Version 4: images and materials, before the meshes that name them.
  for (const MaterialImage& image : asset.images) {
    section = out.begin_section(kImag);
    std::string note;
    archive_detail::write_image(out, image, files == ImageFiles::kEmbed, note);
    if (!note.empty() && notes) notes->push_back(note);
    if (!out.end_section(section)) fail("image '" + image.name + "' over 4 GiB");
  }
  for (const Material& material : asset.materials) {
    section = out.begin_section(kMatl);
    archive_detail::write_material(out, material);
    if (!out.end_section(section)) fail("material '" + material.name + "' over 4 GiB");
  }

  for (const SkinnedMesh& mesh : asset.meshes) {
    const std::string what = "mesh '" + mesh.name + "'";
    const std::size_t n = mesh.vertex_count();
    std::uint32_t flags = 0;
    auto optional = [&](std::size_t size, std::uint32_t flag, const char* name) {
      if (size == n && n > 0) {
        flags |= flag;
      } else if (size != 0) {
        fail(what + ": " + name + " count differs from the vertex count");
      }
    };
    optional(mesh.normals.size(), kHasNormals, "normal");
    optional(mesh.tangents.size(), kHasTangents, "tangent");
    optional(mesh.uvs.size(), kHasUvs, "UV");
    if (!mesh.influence_offsets.empty()) {
      if (mesh.influence_offsets.size() != n + 1 ||
          mesh.influence_joints.size() != mesh.influence_weights.size() ||
          mesh.influence_offsets.front() != 0 ||
          mesh.influence_offsets.back() != mesh.influence_joints.size() ||
          !std::is_sorted(mesh.influence_offsets.begin(), mesh.influence_offsets.end()))
        fail(what + ": influence arrays are inconsistent");
      flags |= kHasInfluences;
    }
    if (!mesh.morph_targets.empty()) flags |= kHasMorphTargets;
    section = out.begin_section(kMesh);
    out.string(mesh.name);
    out.u16(mesh.node);
    out.i32(mesh.skin);
    out.u32(fits_u32(n, what));
    out.u32(flags);
    out.array(floats_of(mesh.positions), n * 3);
    if (flags & kHasNormals) out.array(floats_of(mesh.normals), n * 3);
    if (flags & kHasTangents) out.array(floats_of(mesh.tangents), n * 4);
    if (flags & kHasUvs) out.array(floats_of(mesh.uvs), n * 2);
    out.u32(fits_u32(mesh.indices.size(), what + " indices"));
    out.array(mesh.indices.data(), mesh.indices.size());
    if (flags & kHasInfluences) {
      out.u32(fits_u32(mesh.influence_joints.size(), what + " influences"));
      out.array(mesh.influence_offsets.data(), n + 1);
      out.array(mesh.influence_joints.data(), mesh.influence_joints.size());
      out.array(mesh.influence_weights.data(), mesh.influence_weights.size());
    }
    if (flags & kHasMorphTargets) archive_detail::write_morph_targets(out, mesh, what);
    archive_detail::write_mesh_surface(out, mesh, what);  // version 4
    if (!out.end_section(section)) fail(what + " over 4 GiB");
  }

  if (!asset.warnings.empty()) {
    section = out.begin_section(kWarn);
    out.u32(static_cast<std::uint32_t>(asset.warnings.size()));
    for (const std::string& w : asset.warnings) out.string(w);
    if (!out.end_section(section)) fail("warnings over 4 GiB");
  }
  if (extra) {
    section = out.begin_section(extra->tag);
    extra->write(out);
    if (!out.end_section(section)) fail("section over 4 GiB");
  }

  // Header: magic, version, flags, payload length, payload CRC, header CRC.
  std::vector<std::uint8_t>& b = out.bytes;
  std::copy(std::begin(kMagic), std::end(kMagic), b.begin());
  put_u32_at(b, 8, kArchiveVersion);
  put_u32_at(b, 12, 0);
  const std::uint64_t payload = b.size() - kArchiveHeaderBytes;
  put_u32_at(b, 16, static_cast<std::uint32_t>(payload));
  put_u32_at(b, 20, static_cast<std::uint32_t>(payload >> 32));
  put_u32_at(b, 24, crc32_of(std::span(b).subspan(kArchiveHeaderBytes)));
  put_u32_at(b, 28, crc32_of(std::span(b).first(28)));
  return std::move(out.bytes);
}

// ---------------------------------------------------------------------------------- reading

std::uint32_t get_u32(std::span<const std::uint8_t> b, std::size_t at) {
  return std::uint32_t(b[at]) | std::uint32_t(b[at + 1]) << 8 | std::uint32_t(b[at + 2]) << 16 |
         std::uint32_t(b[at + 3]) << 24;
}

class Decoder {
 public:
  Decoder(std::span<const std::uint8_t> bytes, const std::string& name,
          const ExtraSection* extra = nullptr)
      : bytes_(bytes), name_(name), in_(bytes, name), extra_(extra) {}

  // Whether the archive held the extra section (or, without one asked for, a motion database).
  bool found_extra() const { return extra_at_ != 0; }

  Asset run() {
    check_header();
    asset_.source = name_;
    bool have_skeleton = false;
    std::size_t at = kArchiveHeaderBytes;
    while (at < bytes_.size()) {
      in_.set_window(at, bytes_.size());
      const std::uint32_t tag = in_.u32("section tag");
      const std::uint64_t length = in_.u64("section length");
      if (length > in_.left())
        in_.fail(at, "section '" + tag_text(tag) + "' claims " + std::to_string(length) +
                         " bytes, " + std::to_string(in_.left()) + " remain in the file");
      const std::size_t begin = in_.pos(), end = begin + static_cast<std::size_t>(length);
      in_.set_window(begin, end);
      section_end_ = end;
      if (tag == kSkel) {
        if (have_skeleton) in_.fail(at, "a second SKEL section");
        read_skeleton();
        have_skeleton = true;
      } else if (!have_skeleton) {
        in_.fail(at, "section '" + tag_text(tag) + "' before the SKEL section");
      } else if (tag == kClip) {
        read_clip();
      } else if (tag == kSkin) {
        read_skin();
      } else if (tag == kMesh) {
        read_mesh();
      } else if (tag == kImag && version_ >= 4) {
        asset_.images.push_back(
            archive_detail::read_image(in_, "image " + std::to_string(asset_.images.size())));
      } else if (tag == kMatl && version_ >= 4) {
        material_offsets_.push_back(at);
        asset_.materials.push_back(archive_detail::read_material(
            in_, "material " + std::to_string(asset_.materials.size())));
      } else if (tag == (extra_ ? extra_->tag : kMotionTag) && version_ >= 5) {
        if (extra_at_ != 0) in_.fail(at, "a second '" + tag_text(tag) + "' section");
        extra_at_ = at, extra_begin_ = begin;
        in_.set_window(end, end);  // read once the rest is
      } else if (tag == kWarn) {
        const std::uint32_t n = in_.count("warning count", 4);
        for (std::uint32_t i = 0; i < n; ++i) asset_.warnings.push_back(in_.string("warning"));
      } else {
        in_.fail(at, "unknown section '" + tag_text(tag) + "' (format version " +
                         std::to_string(kArchiveVersion) + ")");
      }
      if (in_.pos() != end)
        in_.fail("section '" + tag_text(tag) + "' (at byte " + std::to_string(at) + ") has " +
                 std::to_string(end - in_.pos()) + " bytes its contents do not account for");
      at = end;
    }
    if (!have_skeleton) in_.fail(at, "no SKEL section");
    check_mesh_references();
    read_extra();
    for (std::size_t m = 0; m < asset_.materials.size(); ++m)
      archive_detail::check_material_images(in_, material_offsets_[m],
                                            "material " + std::to_string(m), asset_.materials[m],
                                            asset_.images.size());
    // Parallel to the clips, or empty when no clip has a compiled form.
    if (std::none_of(asset_.compiled_clips.begin(), asset_.compiled_clips.end(),
                     [](const std::optional<CompiledClip>& c) { return c.has_value(); }))
      asset_.compiled_clips.clear();
    return std::move(asset_);
  }

 private:
  std::span<const std::uint8_t> bytes_;
  const std::string& name_;
  In in_;
  Asset asset_;
  std::vector<std::size_t> mesh_offsets_;      // where each mesh's section began, for messages
  std::vector<std::size_t> material_offsets_;  // and each material's
  std::uint32_t version_ = kArchiveVersion;
  std::size_t section_end_ = 0;  // of the section being read
  const ExtraSection* extra_ = nullptr;
  std::size_t extra_at_ = 0, extra_begin_ = 0;  // the extra section's header and content

  void read_extra() {
    if (extra_at_ == 0) return;
    if (!extra_) {
      asset_.warnings.push_back(
          "holds a motion-matching database (its MOTN section), which an asset does not carry: "
          "read it with read_motion_database or `marrow match --database`");
      return;
    }
    const std::size_t end = extra_begin_ + static_cast<std::size_t>(get_u64(extra_begin_ - 8));
    in_.set_window(extra_begin_, end);
    extra_->read(in_, extra_at_, asset_);
    if (in_.pos() != end)
      in_.fail("section '" + tag_text(extra_->tag) + "' (at byte " + std::to_string(extra_at_) +
               ") has " + std::to_string(end - in_.pos()) +
               " bytes its contents do not account for");
  }

  std::uint64_t get_u64(std::size_t at) const {
    return std::uint64_t{get_u32(bytes_, at)} | std::uint64_t{get_u32(bytes_, at + 4)} << 32;
  }

  static std::string tag_text(std::uint32_t tag) {
    std::string s;
    for (int i = 0; i < 4; ++i) {
      const char c = static_cast<char>((tag >> (8 * i)) & 0xFF);
      s += (c >= 32 && c < 127) ? c : '?';
    }
    return s;
  }

  void check_header() {
    if (bytes_.size() < kArchiveHeaderBytes) {
      if (!std::equal(bytes_.begin(), bytes_.end(), kMagic,
                      kMagic + std::min<std::size_t>(8, bytes_.size())))
        in_.fail(0, "not a marrow archive (wrong magic)");
      in_.fail(bytes_.size(), "truncated header: " + std::to_string(bytes_.size()) + " of " +
                                  std::to_string(kArchiveHeaderBytes) + " bytes");
    }
    if (!std::equal(kMagic, kMagic + 8, bytes_.begin()))
      in_.fail(0, "not a marrow archive (wrong magic)");
    if (get_u32(bytes_, 28) != crc32_of(bytes_.first(28)))
      in_.fail(28, "header checksum mismatch: the header is damaged");
    const std::uint32_t version = get_u32(bytes_, 8);
    if (version < kOldestReadableVersion || version > kArchiveVersion)
      in_.fail(8, "format version " + std::to_string(version) + "; this build reads versions " +
                      std::to_string(kOldestReadableVersion) + " to " +
                      std::to_string(kArchiveVersion));
    version_ = version;
    if (get_u32(bytes_, 12) != 0)
      in_.fail(12, "unknown flags " + std::to_string(get_u32(bytes_, 12)));
    const std::uint64_t payload =
        std::uint64_t{get_u32(bytes_, 16)} | std::uint64_t{get_u32(bytes_, 20)} << 32;
    const std::uint64_t actual = bytes_.size() - kArchiveHeaderBytes;
    if (payload != actual)
      in_.fail(16, "header gives " + std::to_string(payload) + " payload bytes, the file has " +
                       std::to_string(actual) + (payload > actual ? " (truncated)" : ""));
    if (get_u32(bytes_, 24) != crc32_of(bytes_.subspan(kArchiveHeaderBytes)))
      in_.fail(24, "payload checksum mismatch: the file is damaged");
  }

  void read_skeleton() {
    // name length (4) + parent (4) + rest (40) + source index (8) per joint at least
    const std::size_t at = in_.pos();
    const std::uint32_t n = in_.count("joint count", 56);
    if (n > kMaxJoints)
      in_.fail(at, "joint count " + std::to_string(n) + " exceeds " + std::to_string(kMaxJoints));
    std::vector<JointDesc> joints(n);
    asset_.source_index.resize(n);
    for (std::uint32_t j = 0; j < n; ++j) {
      JointDesc& d = joints[j];
      d.name = in_.string("joint name");
      const std::size_t parent_at = in_.pos();
      const std::int32_t parent = in_.i32("joint parent");
      if (parent < -1 || parent >= static_cast<std::int32_t>(j))
        in_.fail(parent_at, "joint " + std::to_string(j) + " '" + d.name + "': parent " +
                                std::to_string(parent) +
                                " is not an earlier joint (joints are stored parent first)");
      d.parent = parent;
      float trs[10];
      const std::size_t rest_at = in_.pos();
      in_.array(trs, 10, "joint rest transform");
      if (In::first_non_finite(trs, 10) != 10)
        in_.fail(rest_at,
                 "joint " + std::to_string(j) + " '" + d.name + "': rest transform is not finite");
      d.rest = {
          {trs[0], trs[1], trs[2]}, {trs[3], trs[4], trs[5], trs[6]}, {trs[7], trs[8], trs[9]}};
      const std::size_t source_at = in_.pos();
      asset_.source_index[j] = in_.i64("joint source index");
      if (asset_.source_index[j] < -1)
        in_.fail(source_at, "joint " + std::to_string(j) + " '" + d.name + "': source index " +
                                std::to_string(asset_.source_index[j]) + " is below -1");
    }
    std::vector<JointIndex> joint_of_desc;
    Result<Skeleton> s = Skeleton::build(joints, name_, &joint_of_desc);
    if (!s) in_.fail(at, s.error().message);
    for (std::uint32_t j = 0; j < n; ++j) {
      if (joint_of_desc[j] != j) in_.fail(at, "joints are not stored parent first");
    }
    asset_.skeleton = std::move(s).value();
  }

  void read_clip() {
    const std::size_t at = in_.pos();
    const std::string name = in_.string("clip name");
    const std::string what = "clip " + std::to_string(asset_.clips.size()) + " '" + name + "'";
    const float duration = in_.f32("clip duration");
    const double ticks = in_.f64("ticks per second");
    if (!std::isfinite(duration) || duration < 0 || !std::isfinite(ticks) || ticks < 0)
      in_.fail(at, what + ": duration or ticks per second negative or not finite");
    struct TrackRec {
      Track track;
      std::string joint_name;
      std::size_t at;
    };
    // joint 2 + target 1 + interpolation 1 + three offsets 12 + name length 4
    const std::uint32_t track_count = in_.count("track count", 20);
    std::vector<TrackRec> tracks(track_count);
    for (TrackRec& r : tracks) {
      r.at = in_.pos();
      r.track.joint = in_.u16("track joint");
      const std::uint8_t target = in_.u8("track target");
      const std::uint8_t interpolation = in_.u8("track interpolation");
      if (target > 2)
        in_.fail(r.at + 2, what + ": track target " + std::to_string(target) + " is unknown");
      if (interpolation > 2)
        in_.fail(r.at + 3,
                 what + ": interpolation " + std::to_string(interpolation) + " is unknown");
      r.track.target = static_cast<TrackTarget>(target);
      r.track.interpolation = static_cast<Interpolation>(interpolation);
      r.track.first_key = in_.u32("track first key");
      r.track.key_count = in_.u32("track key count");
      r.track.first_value = in_.u32("track first value");
      r.joint_name = in_.string("track joint name");
    }
    const std::uint32_t time_count = in_.count("key time count", 4);
    std::vector<float> times(time_count);
    in_.array(times.data(), times.size(), "key times");
    const std::uint32_t value_count = in_.count("key value count", 4);
    std::vector<float> values(value_count);
    in_.array(values.data(), values.size(), "key values");

    ClipBuilder builder(name);
    builder.set_ticks_per_second(ticks);
    builder.set_duration(duration);
    for (std::size_t t = 0; t < tracks.size(); ++t) {
      const TrackRec& r = tracks[t];
      const Track& k = r.track;
      const std::string where = what + " track " + std::to_string(t);
      if (k.joint >= asset_.skeleton.size())
        in_.fail(r.at, where + ": joint " + std::to_string(k.joint) + " is out of range (" +
                           std::to_string(asset_.skeleton.size()) + " joints)");
      const std::uint64_t value_floats =
          std::uint64_t{k.key_count} * floats_per_key(k.target, k.interpolation);
      if (k.key_count == 0 || std::uint64_t{k.first_key} + k.key_count > time_count ||
          std::uint64_t{k.first_value} + value_floats > value_count)
        in_.fail(r.at, where + ": keys [" + std::to_string(k.first_key) + ", +" +
                           std::to_string(k.key_count) + ") or values from " +
                           std::to_string(k.first_value) + " lie outside the " +
                           std::to_string(time_count) + " times and " +
                           std::to_string(value_count) + " values");
      const Status st =
          builder.add_track(k.joint, r.joint_name, k.target, k.interpolation,
                            std::span<const float>(times).subspan(k.first_key, k.key_count),
                            std::span<const float>(values).subspan(
                                k.first_value, static_cast<std::size_t>(value_floats)),
                            name_ + ": byte " + std::to_string(r.at) + ": " + where);
      if (!st) throw ReadError{st.error().message};
    }
    const std::uint32_t event_count = in_.count("event count", 8);
    for (std::uint32_t e = 0; e < event_count; ++e) {
      const std::size_t event_at = in_.pos();
      const float time = in_.f32("event time");
      if (!std::isfinite(time) || time < 0)
        in_.fail(event_at,
                 what + ": event " + std::to_string(e) + " time is negative or not finite");
      builder.add_event(time, in_.string("event name"));
    }
    if (version_ >= 2) {
      archive_detail::read_weight_tracks(in_, name_, what, asset_.skeleton.size(), times, values,
                                         builder);
    }
    // Version 4, before the compiled record, which ends the section.
    RateSource rate_source = RateSource::kFile;
    if (version_ >= 4) {
      const std::size_t source_at = in_.pos();
      const std::uint8_t source = in_.u8("ticks per second source");
      if (source > static_cast<std::uint8_t>(RateSource::kOption))
        in_.fail(source_at,
                 what + ": ticks per second source " + std::to_string(source) + " is unknown");
      rate_source = static_cast<RateSource>(source);
    }
    Result<Clip> clip =
        builder.build(asset_.skeleton.size(), name_ + ": byte " + std::to_string(at) + ": " + what);
    if (!clip) throw ReadError{clip.error().message};
    asset_.compiled_clips.push_back(
        version_ >= 3 ? archive_detail::read_compiled_clip(in_, section_end_, name_, what, *clip,
                                                           asset_.skeleton.size(), version_)
                      : std::nullopt);
    asset_.rate_sources.resize(asset_.clips.size(), RateSource::kFile);
    asset_.rate_sources.push_back(rate_source);
    asset_.clips.push_back(std::move(clip).value());
  }

  void read_skin() {
    Skin skin;
    skin.name = in_.string("skin name");
    const std::string what = "skin " + std::to_string(asset_.skins.size()) + " '" + skin.name + "'";
    const std::size_t hint_at = in_.pos();
    skin.root_hint = in_.u16("skin root");
    if (skin.root_hint != kNoParent && skin.root_hint >= asset_.skeleton.size())
      in_.fail(hint_at,
               what + ": root joint " + std::to_string(skin.root_hint) + " is out of range");
    const std::uint32_t n = in_.count("skin joint count", 2 + 64);
    skin.joints.resize(n);
    const std::size_t joints_at = in_.pos();
    in_.array(skin.joints.data(), n, "skin joints");
    for (std::uint32_t i = 0; i < n; ++i) {
      if (skin.joints[i] >= asset_.skeleton.size())
        in_.fail(joints_at + 2 * i, what + ": joint " + std::to_string(i) + " = " +
                                        std::to_string(skin.joints[i]) + " is out of range (" +
                                        std::to_string(asset_.skeleton.size()) + " joints)");
    }
    skin.inverse_bind_matrices.resize(n);
    const std::size_t matrices_at = in_.pos();
    for (Mat4& m : skin.inverse_bind_matrices) in_.array(m.m.data(), 16, "inverse bind matrices");
    for (std::uint32_t i = 0; i < n; ++i) {
      if (In::first_non_finite(skin.inverse_bind_matrices[i].m.data(), 16) != 16)
        in_.fail(matrices_at + 64 * i,
                 what + ": inverse bind matrix " + std::to_string(i) + " is not finite");
    }
    asset_.skins.push_back(std::move(skin));
  }

  template <typename T>
  void read_floats(std::vector<T>& out, std::size_t n, std::size_t floats_each, const char* what,
                   const std::string& mesh) {
    out.resize(n);
    const std::size_t at = in_.pos();
    float* p = reinterpret_cast<float*>(out.data());
    static_assert(sizeof(T) % sizeof(float) == 0);
    in_.array(p, n * floats_each, what);
    const std::size_t bad = In::first_non_finite(p, n * floats_each);
    if (bad != n * floats_each)
      in_.fail(at + bad * 4, mesh + ": " + what + " of vertex " +
                                 std::to_string(bad / floats_each) + " is not finite");
  }

  void read_mesh() {
    mesh_offsets_.push_back(in_.pos());
    SkinnedMesh mesh;
    mesh.name = in_.string("mesh name");
    const std::string what =
        "mesh " + std::to_string(asset_.meshes.size()) + " '" + mesh.name + "'";
    const std::size_t node_at = in_.pos();
    mesh.node = in_.u16("mesh node");
    if (mesh.node != kNoParent && mesh.node >= asset_.skeleton.size())
      in_.fail(node_at, what + ": node " + std::to_string(mesh.node) + " is out of range");
    mesh.skin = in_.i32("mesh skin");
    if (mesh.skin < -1)
      in_.fail(node_at + 2, what + ": skin " + std::to_string(mesh.skin) + " is invalid");
    const std::size_t flags_at = in_.pos() + 4;
    const std::uint32_t n = in_.count("vertex count", 12);
    const std::uint32_t flags = in_.u32("mesh attribute flags");
    if (flags & ~(version_ >= 2 ? kKnownMeshFlags : kKnownMeshFlagsV1))
      in_.fail(flags_at, what + ": unknown attribute flags");
    static_assert(sizeof(Vec3) == 12 && sizeof(std::array<float, 4>) == 16 &&
                  sizeof(std::array<float, 2>) == 8);
    read_floats(mesh.positions, n, 3, "position", what);
    if (flags & kHasNormals) read_floats(mesh.normals, n, 3, "normal", what);
    if (flags & kHasTangents) read_floats(mesh.tangents, n, 4, "tangent", what);
    if (flags & kHasUvs) read_floats(mesh.uvs, n, 2, "UV", what);
    const std::uint32_t index_count = in_.count("index count", 4);
    if (index_count % 3 != 0)
      in_.fail(what + ": " + std::to_string(index_count) + " indices do not make whole triangles");
    mesh.indices.resize(index_count);
    const std::size_t indices_at = in_.pos();
    in_.array(mesh.indices.data(), index_count, "indices");
    for (std::size_t i = 0; i < index_count; ++i) {
      if (mesh.indices[i] >= n)
        in_.fail(indices_at + 4 * i, what + ": index " + std::to_string(i) + " = " +
                                         std::to_string(mesh.indices[i]) + " is past the last of " +
                                         std::to_string(n) + " vertices");
    }
    if (flags & kHasInfluences) {
      const std::uint32_t influences = in_.count("influence count", 6);
      in_.need(4 * (std::uint64_t{n} + 1), "influence offsets");
      mesh.influence_offsets.resize(std::size_t{n} + 1);
      const std::size_t offsets_at = in_.pos();
      in_.array(mesh.influence_offsets.data(), mesh.influence_offsets.size(), "influence offsets");
      if (mesh.influence_offsets.front() != 0 || mesh.influence_offsets.back() != influences)
        in_.fail(offsets_at, what + ": influence offsets must run from 0 to the influence count " +
                                 std::to_string(influences));
      for (std::size_t v = 0; v < n; ++v) {
        if (mesh.influence_offsets[v + 1] < mesh.influence_offsets[v])
          in_.fail(offsets_at + 4 * (v + 1),
                   what + ": influence offsets decrease at vertex " + std::to_string(v + 1));
      }
      mesh.influence_joints.resize(influences);
      in_.array(mesh.influence_joints.data(), influences, "influence joints");
      mesh.influence_weights.resize(influences);
      const std::size_t weights_at = in_.pos();
      in_.array(mesh.influence_weights.data(), influences, "influence weights");
      for (std::size_t i = 0; i < influences; ++i) {
        const float w = mesh.influence_weights[i];
        if (!std::isfinite(w) || w < 0)
          in_.fail(weights_at + 4 * i,
                   what + ": influence weight " + std::to_string(i) + " is negative or not finite");
      }
    }
    if (flags & kHasMorphTargets) archive_detail::read_morph_targets(in_, mesh, what);
    if (version_ >= 4) archive_detail::read_mesh_surface(in_, mesh, what);
    asset_.meshes.push_back(std::move(mesh));
  }

  // Skins are read by now: meshes name them and their joints.
  void check_mesh_references() {
    for (std::size_t m = 0; m < asset_.meshes.size(); ++m) {
      const SkinnedMesh& mesh = asset_.meshes[m];
      const std::string what = "mesh " + std::to_string(m) + " '" + mesh.name + "'";
      if (mesh.material >= static_cast<int>(asset_.materials.size()))
        in_.fail(mesh_offsets_[m], what + ": material " + std::to_string(mesh.material) +
                                       " is out of range (" +
                                       std::to_string(asset_.materials.size()) + " materials)");
      if (mesh.skin >= static_cast<int>(asset_.skins.size()))
        in_.fail(mesh_offsets_[m], what + ": skin " + std::to_string(mesh.skin) +
                                       " is out of range (" + std::to_string(asset_.skins.size()) +
                                       " skins)");
      if (mesh.influence_offsets.empty()) continue;
      if (mesh.skin < 0) in_.fail(mesh_offsets_[m], what + ": has influences but no skin");
      const std::size_t joints = asset_.skins[static_cast<std::size_t>(mesh.skin)].joints.size();
      for (std::size_t i = 0; i < mesh.influence_joints.size(); ++i) {
        if (mesh.influence_joints[i] >= joints)
          in_.fail(mesh_offsets_[m],
                   what + ": influence " + std::to_string(i) + " names skin joint " +
                       std::to_string(mesh.influence_joints[i]) + " of " + std::to_string(joints));
      }
    }
  }
};

}  // namespace

bool has_archive_magic(std::span<const std::uint8_t> bytes) {
  return bytes.size() >= 8 && std::equal(kMagic, kMagic + 8, bytes.begin());
}

Result<std::vector<std::uint8_t>> archive_bytes(const Asset& asset, std::vector<std::string>* notes,
                                                ImageFiles files) {
  try {
    return encode(asset, notes, files);
  } catch (const WriteError& e) {
    return Error{e.message};
  }
}

Status write_archive(const Asset& asset, const std::string& path, std::vector<std::string>* notes) {
  Result<std::vector<std::uint8_t>> bytes = archive_bytes(asset, notes);
  if (!bytes) return bytes.error();
  return write_file_atomically(path, *bytes);
}

Result<Asset> read_archive(std::span<const std::uint8_t> bytes, const std::string& name) {
  try {
    return Decoder(bytes, name).run();
  } catch (const ReadError& e) {
    return Error{e.message};
  }
}

namespace archive_detail {

Result<std::vector<std::uint8_t>> archive_bytes_with(const Asset& asset,
                                                     const ExtraSection& extra) {
  try {
    return encode(asset, nullptr, ImageFiles::kEmbed, &extra);
  } catch (const WriteError& e) {
    return Error{e.message};
  }
}

Result<Asset> read_archive_with(std::span<const std::uint8_t> bytes, const std::string& name,
                                const ExtraSection& extra, bool* found) {
  try {
    Decoder decoder(bytes, name, &extra);
    Asset asset = decoder.run();
    if (found) *found = decoder.found_extra();
    return asset;
  } catch (const ReadError& e) {
    return Error{e.message};
  }
}

}  // namespace archive_detail

Result<Asset> read_archive(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return Error{path + ": cannot open"};
  const std::streamoff size = in.tellg();
  if (size < 0) return Error{path + ": cannot read its size"};
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(size));
  in.seekg(0);
  if (!in.read(reinterpret_cast<char*>(bytes.data()), size)) return Error{path + ": read failed"};
  return read_archive(bytes, path);
}

}  // namespace marrow
