#include "marrow/retarget/mirror.h"

#include <string>
#include <string_view>
#include <utility>

namespace marrow {
namespace {

// `name` with its side swapped by the first rule that applies, or empty.
std::string swapped_side(std::string_view name) {
  static constexpr std::pair<std::string_view, std::string_view> kInside[] = {
      {"Left", "Right"}, {"Right", "Left"}, {"left", "right"}, {"right", "left"},
      {"_L_", "_R_"},    {"_R_", "_L_"},    {".L.", ".R."},    {".R.", ".L."}};
  for (const auto& [from, to] : kInside) {
    if (const std::size_t at = name.find(from); at != std::string_view::npos) {
      std::string out(name);
      out.replace(at, from.size(), to);
      return out;
    }
  }
  static constexpr std::pair<std::string_view, std::string_view> kEnds[] = {
      {"_L", "_R"}, {"_R", "_L"}, {".L", ".R"}, {".R", ".L"}, {" L", " R"}, {" R", " L"}};
  for (const auto& [from, to] : kEnds) {
    if (name.ends_with(from))
      return std::string(name.substr(0, name.size() - from.size())) + std::string(to);
  }
  if (name.starts_with("L_")) return "R_" + std::string(name.substr(2));
  if (name.starts_with("R_")) return "L_" + std::string(name.substr(2));
  return {};
}

}  // namespace

std::vector<JointIndex> mirror_joints(const Skeleton& skeleton, const HumanoidRig& rig) {
  std::vector<JointIndex> mirror(skeleton.size());
  for (std::size_t j = 0; j < skeleton.size(); ++j) mirror[j] = static_cast<JointIndex>(j);
  for (std::size_t j = 0; j < skeleton.size(); ++j) {
    const std::string other = swapped_side(skeleton.names()[j]);
    if (other.empty()) continue;
    const std::optional<JointIndex> k = skeleton.find(other);
    if (k && swapped_side(other) == skeleton.names()[j]) mirror[j] = *k;
  }
  using P = HumanoidPart;
  for (const auto& [left, right] :
       {std::pair{P::kLeftShoulder, P::kRightShoulder},
        std::pair{P::kLeftUpperArm, P::kRightUpperArm},
        std::pair{P::kLeftForearm, P::kRightForearm}, std::pair{P::kLeftHand, P::kRightHand},
        std::pair{P::kLeftThigh, P::kRightThigh}, std::pair{P::kLeftShin, P::kRightShin},
        std::pair{P::kLeftFoot, P::kRightFoot}, std::pair{P::kLeftToe, P::kRightToe}}) {
    const JointIndex l = rig.joint(left), r = rig.joint(right);
    if (l == kNoParent || r == kNoParent) continue;
    mirror[l] = r, mirror[r] = l;
  }
  // A name pair a part overrode on one side only is no pair: that joint mirrors onto itself.
  for (std::size_t j = 0; j < mirror.size(); ++j)
    if (mirror[mirror[j]] != j) mirror[j] = static_cast<JointIndex>(j);
  return mirror;
}

}  // namespace marrow
