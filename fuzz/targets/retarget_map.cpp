// Retarget maps (io/retarget_map_json.h), used as `marrow retarget --map` uses them: parsed and
// made into a RetargetMap under the heap budget, then, when both succeed, the map is checked
// (indices in range, no target joint driven twice) and played: a retargeter for each method,
// frames of the source's Walk through RetargetJob, and the whole Walk and Run through
// retarget_clip, whose clips are then checked and played like any imported asset.
//
// The stage is fixed so that the file alone decides what happens: the source is the controller
// targets' Mixamo-named humanoid (script_character.h) with its "TPose" clip as reference; the
// target is the same body renamed in 3ds Max Biped style, in centimetres under a "Bip01" root
// that scales it to metres and turns it to face -z, with its arms in an A-pose, a spine of two
// joints for the source's one, and three joints the humanoid profile does not know (two tail
// joints and a prop) for the map's "joints" pairs. Its End Sites keep the source's names without
// the "mixamorig:" namespace, as the profile's pairing by equal names expects of fingers.
#include <cmath>
#include <numbers>
#include <string>
#include <string_view>
#include <vector>

#include "asset_checks.h"
#include "fuzz_target.h"
#include "heap_budget.h"
#include "marrow/clip/sampling.h"
#include "marrow/io/retarget_map_json.h"
#include "marrow/retarget/retargeter.h"
#include "script_character.h"

namespace {

using namespace marrow;

struct RetargetStage {
  const Asset* source = nullptr;
  std::vector<Transform> source_reference;
  Skeleton target;
};

// Mixamo names (without "mixamorig:") to Biped names.
std::string biped_name(std::string_view mixamo) {
  static constexpr std::pair<std::string_view, std::string_view> kNames[] = {
      {"Hips", "Bip01 Pelvis"},
      {"Spine", "Bip01 Spine"},
      {"Neck", "Bip01 Neck"},
      {"Head", "Bip01 Head"},
      {"LeftShoulder", "Bip01 L Clavicle"},
      {"LeftArm", "Bip01 L UpperArm"},
      {"LeftForeArm", "Bip01 L Forearm"},
      {"LeftHand", "Bip01 L Hand"},
      {"RightShoulder", "Bip01 R Clavicle"},
      {"RightArm", "Bip01 R UpperArm"},
      {"RightForeArm", "Bip01 R Forearm"},
      {"RightHand", "Bip01 R Hand"},
      {"LeftUpLeg", "Bip01 L Thigh"},
      {"LeftLeg", "Bip01 L Calf"},
      {"LeftFoot", "Bip01 L Foot"},
      {"LeftToeBase", "Bip01 L Toe0"},
      {"RightUpLeg", "Bip01 R Thigh"},
      {"RightLeg", "Bip01 R Calf"},
      {"RightFoot", "Bip01 R Foot"},
      {"RightToeBase", "Bip01 R Toe0"},
  };
  constexpr std::string_view kPrefix = "mixamorig:";
  if (mixamo.starts_with(kPrefix)) mixamo.remove_prefix(kPrefix.size());
  for (const auto& [from, to] : kNames) {
    if (mixamo == from) return std::string(to);
  }
  return std::string(mixamo);  // End Sites keep their names, so the profile pairs them by name
}

RetargetStage make_retarget_stage() {
  RetargetStage stage;
  stage.source = &fuzz::script_character();
  const Asset& source = *stage.source;
  const Skeleton& s = source.skeleton;

  stage.source_reference.assign(s.rest_pose().begin(), s.rest_pose().end());
  const std::optional<std::size_t> t_pose = source.find_clip("TPose");
  MARROW_FUZZ_CHECK(t_pose.has_value(), "the retarget stage's source has a TPose clip");
  SamplingCursor cursor(source.clips[*t_pose]);
  MARROW_FUZZ_CHECK(sample(source.clips[*t_pose], s.rest_pose(), 0, cursor, stage.source_reference),
                    "the retarget stage's reference pose samples");

  constexpr float kPi = std::numbers::pi_v<float>;
  std::vector<JointDesc> joints;
  Transform root;
  root.rotation = from_axis_angle({0, 1, 0}, kPi);  // faces -z
  root.scale = {0.01f, 0.01f, 0.01f};               // centimetres to metres
  joints.push_back({"Bip01", -1, root});
  std::int64_t pelvis = -1, right_hand = -1;
  for (std::size_t j = 0; j < s.size(); ++j) {
    JointDesc d{biped_name(s.name(j)), s.parent(j) == kNoParent ? 0 : s.parent(j) + 1,
                s.rest_pose()[j]};
    const bool left = d.name.find(" L ") != std::string::npos;
    if (d.name.ends_with("UpperArm")) {  // arms 45 degrees down from the T
      d.rest.rotation = from_axis_angle({0, 0, 1}, (left ? -0.25f : 0.25f) * kPi);
    }
    if (d.name == "Bip01 Pelvis") pelvis = static_cast<std::int64_t>(joints.size());
    if (d.name == "Bip01 R Hand") right_hand = static_cast<std::int64_t>(joints.size());
    joints.push_back(std::move(d));
  }
  MARROW_FUZZ_CHECK(pelvis >= 0 && right_hand >= 0, "the retarget stage's target has its joints");
  // A second spine joint halfway up, so spine chains of one joint map onto two.
  std::int64_t spine = -1;
  for (std::size_t j = 0; j < joints.size(); ++j) {
    if (joints[j].name == "Bip01 Spine") spine = static_cast<std::int64_t>(j);
  }
  MARROW_FUZZ_CHECK(spine >= 0, "the retarget stage's target has a spine");
  const std::int64_t spine1 = static_cast<std::int64_t>(joints.size());
  const Vec3 half{0, 15, 0};
  for (JointDesc& d : joints) {
    if (d.parent != spine) continue;
    d.parent = spine1;
    d.rest.translation = d.rest.translation - half;
  }
  Transform spine1_rest;
  spine1_rest.translation = half;
  joints.push_back({"Bip01 Spine1", spine, spine1_rest});
  Transform tail;
  tail.translation = {0, -5, -10};
  joints.push_back({"Tail1", pelvis, tail});
  joints.push_back({"Tail2", static_cast<std::int64_t>(joints.size()) - 1, tail});
  Transform prop;
  prop.translation = {-8, 0, 0};
  joints.push_back({"Bip01 Prop1", right_hand, prop});
  Result<Skeleton> target = Skeleton::build(joints, "retarget stage");
  MARROW_FUZZ_CHECK(target.ok(), "the retarget stage's target skeleton builds");
  stage.target = std::move(target).value();
  return stage;
}

const RetargetStage& retarget_stage() {
  static const RetargetStage built = make_retarget_stage();
  return built;
}

// What make_retarget_map promises of a map it returns.
void check_map(const RetargetMap& map, const Skeleton& source, const Skeleton& target) {
  const auto in = [](JointIndex j, const Skeleton& s) { return j < s.size(); };
  std::vector<int> drives(target.size(), 0);
  for (const RetargetPair& p : map.pairs) {
    MARROW_FUZZ_CHECK(in(p.source, source) && in(p.target, target), "a map pair is in range");
    ++drives[p.target];
  }
  for (const RetargetChain& c : map.chains) {
    for (JointIndex j : c.source) MARROW_FUZZ_CHECK(in(j, source), "a chain joint is in range");
    for (JointIndex j : c.target) {
      MARROW_FUZZ_CHECK(in(j, target), "a chain joint is in range");
      ++drives[j];
    }
  }
  for (int d : drives) MARROW_FUZZ_CHECK(d <= 1, "no target joint is driven twice");
  for (JointIndex j : map.unmapped_target) MARROW_FUZZ_CHECK(in(j, target), "unmapped in range");
  for (JointIndex j : map.unmapped_source) MARROW_FUZZ_CHECK(in(j, source), "unmapped in range");
  for (JointIndex j : map.matched_by_name) MARROW_FUZZ_CHECK(in(j, target), "matched in range");
  if (map.source_hips != kNoParent) MARROW_FUZZ_CHECK(in(map.source_hips, source), "hips");
  if (map.target_hips != kNoParent) MARROW_FUZZ_CHECK(in(map.target_hips, target), "hips");
}

// Frames of `clip` through RetargetJob: the job must accept its inputs and write a finite pose.
void play_frames(const Retargeter& retargeter, const Clip& clip) {
  const Skeleton& source = retargeter.source();
  const Skeleton& target = retargeter.target();
  RetargetContext context(retargeter);
  std::vector<Transform> source_pose(source.rest_pose().begin(), source.rest_pose().end());
  std::vector<Transform> target_pose(target.size());
  SamplingCursor cursor(clip);
  for (const float fraction : {0.0f, 0.37f, 1.0f}) {
    MARROW_FUZZ_CHECK(
        sample(clip, source.rest_pose(), fraction * clip.duration(), cursor, source_pose),
        "the stage's clip samples");
    RetargetJob job;
    job.retargeter = &retargeter;
    job.context = &context;
    job.source_pose = source_pose;
    job.target_pose = target_pose;
    MARROW_FUZZ_CHECK(job.validate(), "RetargetJob validates");
    MARROW_FUZZ_CHECK(job.run(), "RetargetJob runs on a finite pose");
    for (const Transform& t : target_pose) {
      MARROW_FUZZ_CHECK(std::isfinite(t.translation.x) && std::isfinite(t.translation.y) &&
                            std::isfinite(t.translation.z) && is_finite(t.rotation) &&
                            std::isfinite(t.scale.x) && std::isfinite(t.scale.y) &&
                            std::isfinite(t.scale.z),
                        "a retargeted frame is finite");
    }
  }
}

}  // namespace

MARROW_FUZZ_TARGET(retarget_map) {
  const std::string where = "fuzz_map.json";
  const RetargetStage& s = retarget_stage();
  const Skeleton& source = s.source->skeleton;
  Result<RetargetMapSpec> spec = Error{};
  Result<RetargetMap> map = Error{};
  {
    const fuzz::HeapWatch watch;
    spec = parse_retarget_map(std::string_view(reinterpret_cast<const char*>(data), size), where);
    if (spec) map = make_retarget_map(source, s.target, *spec, s.source_reference, {}, where);
    fuzz::expect_within_budget(watch, size, fuzz::kDefaultLoadBudget,
                               "parse_retarget_map and make_retarget_map");
  }
  if (!spec) {
    fuzz::expect_documented_error(spec.error(), where);
    return 0;
  }
  if (!map) {
    fuzz::expect_documented_error(map.error(), where);
    return 0;
  }
  check_map(*map, source, s.target);

  for (const RetargetMethod method : {RetargetMethod::kRestRelative, RetargetMethod::kCopyLocal}) {
    RetargetOptions options;
    options.method = method;
    // Each method with another root scale, so both scale measures are reached.
    options.root_scale =
        method == RetargetMethod::kCopyLocal ? RootScale::kLegLength : RootScale::kHipHeight;
    options.source_reference = s.source_reference;
    Result<Retargeter> retargeter = Retargeter::create(source, s.target, *map, options);
    if (!retargeter) {  // a map without hips, say: an Error the caller names the map in
      MARROW_FUZZ_CHECK(!retargeter.error().message.empty(), "Retargeter::create says why");
      continue;
    }
    const Clip& walk = s.source->clips[*s.source->find_clip("Walk")];
    play_frames(*retargeter, walk);
    Asset played;
    played.source = where;
    played.skeleton = s.target;
    played.source_index.assign(s.target.size(), -1);
    // Walk at the source's key times, Run on a 24 Hz grid.
    for (const auto& [name, rate] : {std::pair{"Walk", 0.0f}, std::pair{"Run", 24.0f}}) {
      RetargetClipOptions clip_options;
      clip_options.sample_rate = rate;
      Result<Clip> clip =
          retarget_clip(*retargeter, s.source->clips[*s.source->find_clip(name)], clip_options);
      if (!clip) {
        MARROW_FUZZ_CHECK(!clip.error().message.empty(), "retarget_clip says why");
        continue;
      }
      played.clips.push_back(std::move(clip).value());
    }
    fuzz::check_and_exercise(played, where);
  }
  return 0;
}
