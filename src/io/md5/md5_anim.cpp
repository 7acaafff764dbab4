// .md5anim: a hierarchy (name, parent, which of tx ty tz qx qy qz each frame animates, where its
// values start), per-frame bounds (ignored), a base frame (every joint's local position and
// orientation), then numFrames frames of numAnimatedComponents numbers. A joint's pose in frame
// f is its base frame with the flagged components replaced, in the order tx ty tz qx qy qz.
// Keys fall at f / frameRate seconds.
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "marrow/clip/clip_builder.h"
#include "md5_internal.h"

namespace marrow::md5 {
namespace {

// The quaternion of x, y, z already checked to be no longer than 1 (beyond rounding).
Quat quat_from_xyz(const float xyz[3]) {
  const double x = xyz[0], y = xyz[1], z = xyz[2];
  const double t = 1.0 - (x * x + y * y + z * z);
  const double w = t > 0 ? -std::sqrt(t) : 0.0;
  return normalize(Quat{static_cast<float>(x), static_cast<float>(y), static_cast<float>(z),
                        static_cast<float>(w)});
}

// The orientation a frame gives joint j (its base frame's where it animates no rotation).
void frame_rotation(const Anim& a, std::size_t j, const float* frame, float r[3]) {
  r[0] = a.base_orientation[j].x, r[1] = a.base_orientation[j].y, r[2] = a.base_orientation[j].z;
  std::uint32_t c = a.first[j] + static_cast<std::uint32_t>(std::popcount(a.flags[j] & 7u));
  for (int bit = 0; bit < 3; ++bit) {
    if (a.flags[j] & (8 << bit)) r[bit] = frame[c++];
  }
}

}  // namespace

void read_header(Lexer& lex) {
  lex.expect_word("MD5Version");
  const Token version = lex.peek();
  const std::int64_t v = lex.read_integer("the MD5 version", 0, kMaxCount);
  if (v != 10) {
    lex.fail(version.line, "MD5Version " + std::to_string(v) +
                               " is not read (marrow reads version 10, "
                               "which Doom 3 and Quake 4 write)");
  }
  lex.expect_word("commandline");
  lex.read_string("the command line");
}

Quat unit_quat(const float xyz[3], const Lexer& lex, std::size_t line) {
  const double x = xyz[0], y = xyz[1], z = xyz[2];
  const double t = 1.0 - (x * x + y * y + z * z);
  if (t < -1e-3) {
    lex.fail(line, "orientation (" + std::to_string(x) + " " + std::to_string(y) + " " +
                       std::to_string(z) +
                       ") is longer than 1: it is not the x, y, z of a "
                       "unit quaternion");
  }
  return quat_from_xyz(xyz);
}

void check_hierarchy(const std::vector<JointRec>& joints, const Lexer& lex) {
  std::vector<std::size_t> depth(joints.size(), 0);
  for (std::size_t j = 0; j < joints.size(); ++j) {
    const std::int64_t p = joints[j].parent;
    if (p >= static_cast<std::int64_t>(j)) {
      lex.fail(joints[j].line, "joint " + std::to_string(j) + " '" + joints[j].name +
                                   "' has parent " + std::to_string(p) +
                                   ", which is not an earlier joint (MD5 lists parents first)");
    }
    depth[j] = p < 0 ? 0 : depth[static_cast<std::size_t>(p)] + 1;
    if (depth[j] > io::kMaxNestingDepth) {
      lex.fail(joints[j].line, "joint '" + joints[j].name + "' lies " + std::to_string(depth[j]) +
                                   " joints below its root; marrow reads hierarchies at most " +
                                   std::to_string(io::kMaxNestingDepth) + " levels deep");
    }
  }
}

Anim parse_anim(std::string_view text, const std::string& file, io::DocumentBudget& budget) {
  Lexer lex(text, file);
  read_header(lex);
  Anim a;
  lex.expect_word("numFrames");
  const std::size_t frames_line = lex.peek().line;
  a.frame_count = static_cast<std::uint32_t>(lex.read_integer("numFrames", 0, kMaxCount));
  lex.expect_word("numJoints");
  const std::size_t joints_line = lex.peek().line;
  const auto joint_count = static_cast<std::size_t>(
      lex.read_integer("numJoints", 1, static_cast<std::int64_t>(kMaxJoints)));
  lex.expect_word("frameRate");
  a.frame_rate_line = lex.peek().line;
  a.frame_rate = static_cast<std::uint32_t>(lex.read_integer("frameRate", 1, kMaxCount));
  lex.expect_word("numAnimatedComponents");
  const std::size_t components_line = lex.peek().line;
  a.components =
      static_cast<std::uint32_t>(lex.read_integer("numAnimatedComponents", 0, kMaxCount));
  // A joint line takes at least 10 bytes, a number 2 and a frame's bounds 14: counts the rest of
  // the file cannot hold are refused before anything is allocated for them.
  if (joint_count * 10 > lex.remaining()) {
    lex.fail(joints_line, "numJoints " + std::to_string(joint_count) + " cannot fit in the " +
                              std::to_string(lex.remaining()) + " bytes left");
  }
  if (std::uint64_t{a.frame_count} * (2 * std::uint64_t{a.components} + 14) > lex.remaining()) {
    lex.fail(frames_line, std::to_string(a.frame_count) + " frames of " +
                              std::to_string(a.components) + " components cannot fit in the " +
                              std::to_string(lex.remaining()) + " bytes left");
  }
  budget.charge(joint_count, sizeof(JointRec) + 64 + 8 + sizeof(Vec3) + sizeof(Quat),
                [&] { return lex.where(joints_line) + ": numJoints"; });
  budget.charge(std::uint64_t{a.frame_count} * a.components, sizeof(float),
                [&] { return lex.where(components_line) + ": frames"; });

  lex.expect_word("hierarchy");
  lex.expect(TokenKind::kOpenBrace, "'{' after hierarchy");
  for (std::size_t j = 0; j < joint_count; ++j) {
    JointRec joint;
    joint.line = lex.peek().line;
    joint.name = lex.read_string("a joint name");
    joint.parent = lex.read_integer("a parent index", -1, static_cast<std::int64_t>(j) - 1);
    const std::int64_t flags = lex.read_integer("the component flags", 0, 63);
    const std::int64_t start = lex.read_integer("the first component index", 0, kMaxCount);
    if (start + std::popcount(static_cast<unsigned>(flags)) > a.components) {
      lex.fail(joint.line, "joint '" + joint.name + "' animates " +
                               std::to_string(std::popcount(static_cast<unsigned>(flags))) +
                               " components from index " + std::to_string(start) +
                               ", past the numAnimatedComponents " + std::to_string(a.components));
    }
    a.joints.push_back(std::move(joint));
    a.flags.push_back(static_cast<std::uint8_t>(flags));
    a.first.push_back(static_cast<std::uint32_t>(start));
  }
  lex.expect(TokenKind::kCloseBrace, "'}' closing the hierarchy after numJoints joints");
  check_hierarchy(a.joints, lex);

  lex.expect_word("bounds");
  lex.expect(TokenKind::kOpenBrace, "'{' after bounds");
  for (std::uint32_t f = 0; f < a.frame_count; ++f) {
    float box[3];
    lex.read_vector(box, 3, "a bound");
    lex.read_vector(box, 3, "a bound");
  }
  lex.expect(TokenKind::kCloseBrace, "'}' closing the bounds after numFrames boxes");

  lex.expect_word("baseframe");
  lex.expect(TokenKind::kOpenBrace, "'{' after baseframe");
  for (std::size_t j = 0; j < joint_count; ++j) {
    const std::size_t line = lex.peek().line;
    float p[3], q[3];
    lex.read_vector(p, 3, "a base position");
    lex.read_vector(q, 3, "a base orientation");
    a.base_position.push_back({p[0], p[1], p[2]});
    a.base_orientation.push_back(unit_quat(q, lex, line));
  }
  lex.expect(TokenKind::kCloseBrace, "'}' closing the baseframe after numJoints entries");

  a.frames.reserve(std::size_t{a.frame_count} * a.components);
  for (std::uint32_t f = 0; f < a.frame_count; ++f) {
    lex.expect_word("frame");
    const Token index = lex.peek();
    const std::int64_t number = lex.read_integer("a frame number", 0, kMaxCount);
    if (number != f) {
      lex.fail(index.line, "frame " + std::to_string(number) + " where frame " + std::to_string(f) +
                               " belongs (frames are numbered in order)");
    }
    lex.expect(TokenKind::kOpenBrace, "'{' opening a frame");
    const std::size_t frame_start = a.frames.size();
    for (std::uint32_t c = 0; c < a.components; ++c) {
      if (lex.peek().kind == TokenKind::kCloseBrace) {
        lex.fail(lex.peek().line, "frame " + std::to_string(f) + " has " + std::to_string(c) +
                                      " components; numAnimatedComponents is " +
                                      std::to_string(a.components));
      }
      a.frames.push_back(lex.read_float("a frame component"));
    }
    const Token close = lex.next();
    if (close.kind != TokenKind::kCloseBrace) {
      lex.fail(close.line, "frame " + std::to_string(f) + " has more than the " +
                               std::to_string(a.components) +
                               " components numAnimatedComponents gives");
    }
    for (std::size_t j = 0; j < joint_count; ++j) {
      if ((a.flags[j] & 56) == 0) continue;
      float r[3];
      frame_rotation(a, j, a.frames.data() + frame_start, r);
      if (r[0] * r[0] + r[1] * r[1] + r[2] * r[2] > 1.001f) {
        lex.fail(index.line, "frame " + std::to_string(f) + ": the orientation of joint '" +
                                 a.joints[j].name +
                                 "' is longer than 1: it is not the x, y, z of a unit "
                                 "quaternion");
      }
    }
  }
  const Token rest = lex.next();
  if (rest.kind != TokenKind::kEnd) {
    lex.fail(rest.line, "unexpected " + describe(rest) + " after the " +
                            std::to_string(a.frame_count) + " frames numFrames announces");
  }
  return a;
}

Clip build_anim_clip(const Anim& a, std::span<const JointIndex> joint_of, std::size_t joint_count,
                     const std::string& file, io::DocumentBudget& budget) {
  ClipBuilder builder(a.name);
  builder.set_ticks_per_second(a.frame_rate);
  const std::string where = file + ":" + std::to_string(a.frame_rate_line);
  const std::size_t frames = std::max<std::size_t>(a.frame_count, 1);
  // Per joint and frame: a time and up to 3 + 4 values, built and then copied into the clip.
  budget.charge(io::DocumentBudget::times(a.joints.size(), frames), 2 * 9 * sizeof(float),
                [&] { return where + ": the clip"; });
  std::vector<float> times(frames), one_time{0.0f}, values;
  for (std::size_t f = 0; f < frames; ++f) {
    times[f] = static_cast<float>(static_cast<double>(f) / a.frame_rate);
  }
  for (std::size_t j = 0; j < a.joints.size(); ++j) {
    const std::uint8_t flags = a.flags[j];
    const std::string& name = a.joints[j].name;
    const std::string track_where =
        file + ":" + std::to_string(a.joints[j].line) + ": joint '" + name + "'";
    // Component c of frame f, or the base frame's where the joint does not animate it.
    auto pose = [&](std::size_t f, Vec3& p, Quat& q) {
      if (a.frame_count == 0) {  // no frames: the base frame is the whole clip
        p = a.base_position[j];
        q = a.base_orientation[j];
        return;
      }
      float t[3] = {a.base_position[j].x, a.base_position[j].y, a.base_position[j].z};
      float r[3];
      std::uint32_t c = a.first[j];
      const float* frame = a.frames.data() + f * a.components;
      for (int bit = 0; bit < 3; ++bit) {
        if (flags & (1 << bit)) t[bit] = frame[c++];
      }
      frame_rotation(a, j, frame, r);
      p = {t[0], t[1], t[2]};
      q = (flags & 56) ? quat_from_xyz(r) : a.base_orientation[j];
    };
    const bool moves = (flags & 7) != 0, turns = (flags & 56) != 0;
    const std::size_t position_keys = moves && a.frame_count > 0 ? frames : 1;
    const std::size_t rotation_keys = turns && a.frame_count > 0 ? frames : 1;
    Vec3 p;
    Quat q;
    values.clear();
    for (std::size_t f = 0; f < position_keys; ++f) {
      pose(f, p, q);
      values.insert(values.end(), {p.x, p.y, p.z});
    }
    Status st = builder.add_track(
        joint_of[j], name, TrackTarget::kTranslation, Interpolation::kLinear,
        position_keys == 1 ? std::span<const float>(one_time) : std::span<const float>(times),
        values, track_where);
    if (!st) throw Md5Error(st.error().message);
    values.clear();
    Quat previous = Quat::identity();
    for (std::size_t f = 0; f < rotation_keys; ++f) {
      pose(f, p, q);
      if (f > 0 && dot(previous, q) < 0) q = negate(q);  // slerp takes the short way
      previous = q;
      values.insert(values.end(), {q.x, q.y, q.z, q.w});
    }
    st = builder.add_track(
        joint_of[j], name, TrackTarget::kRotation, Interpolation::kLinear,
        rotation_keys == 1 ? std::span<const float>(one_time) : std::span<const float>(times),
        values, track_where);
    if (!st) throw Md5Error(st.error().message);
  }
  if (a.frame_count > 0) {
    builder.set_duration(static_cast<float>(static_cast<double>(a.frame_count - 1) / a.frame_rate));
  }
  Result<Clip> clip = builder.build(joint_count, file + ": clip '" + a.name + "'");
  if (!clip) throw Md5Error(clip.error().message);
  return std::move(clip).value();
}

}  // namespace marrow::md5
