// What the MD5 mesh and animation readers share: the common header, the unit quaternion from
// its stored x, y, z, and the parsed animation (so a mesh can take an .md5anim as a clip).
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/budget.h"
#include "marrow/io/asset.h"
#include "marrow/math/quat.h"
#include "marrow/math/vec3.h"
#include "md5_lexer.h"

namespace marrow::md5 {

// The largest count or index either file may give.
inline constexpr std::int64_t kMaxCount = std::numeric_limits<std::int32_t>::max();

// "MD5Version 10" and "commandline \"...\"": the only version Doom 3 and Quake 4 write.
void read_header(Lexer& lex);

// An orientation as MD5 stores it, x, y, z of a unit quaternion whose w is taken as
// -sqrt(1 - x² - y² - z²) (the convention of id's exporter; q and -q are one rotation). A
// length past 1 (beyond rounding) is an error at `line`.
Quat unit_quat(const float xyz[3], const Lexer& lex, std::size_t line);

// A "name" parent line's joint, in the file's order; parents come before their children.
struct JointRec {
  std::string name;
  std::int64_t parent = -1;
  std::size_t line = 0;
};

// The joint hierarchy deeper than io::kMaxNestingDepth, or a parent that is not an earlier
// joint, is an error naming the joint's line.
void check_hierarchy(const std::vector<JointRec>& joints, const Lexer& lex);

struct Anim {
  std::string name;  // the file's stem: the clip's name
  std::vector<JointRec> joints;
  std::vector<std::uint8_t> flags;     // per joint: 1 tx, 2 ty, 4 tz, 8 qx, 16 qy, 32 qz
  std::vector<std::uint32_t> first;    // per joint: its first animated component
  std::vector<Vec3> base_position;     // per joint, local to its parent
  std::vector<Quat> base_orientation;  // per joint, local to its parent
  std::uint32_t frame_count = 0;
  std::uint32_t frame_rate = 0;
  std::uint32_t components = 0;  // numAnimatedComponents
  std::vector<float> frames;     // frame_count x components
  std::size_t frame_rate_line = 0;
};

// Parses an .md5anim; `budget` is the document's.
Anim parse_anim(std::string_view text, const std::string& file, io::DocumentBudget& budget);

// The clip of `anim` for a skeleton whose joint `joint_of[i]` is the anim's joint i.
// Throws Md5Error (or io::BudgetExceeded) naming the file.
Clip build_anim_clip(const Anim& anim, std::span<const JointIndex> joint_of,
                     std::size_t joint_count, const std::string& file, io::DocumentBudget& budget);

// Parses and assembles an .md5mesh (without looking for animations).
Asset read_mesh_document(std::string_view text, const std::string& file,
                         io::DocumentBudget& budget);

}  // namespace marrow::md5
