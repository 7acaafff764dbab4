// Retargeting measured on real clips (docs/retargeting.md records the printed figures):
// Soldier.glb's Walk onto Xbot.glb, and the CMU capture 01_01.bvh onto Soldier.glb, each by the
// rest-relative method, by naive name copy (local rotations copied, as binding by name does), and
// rest-relative followed by foot planting. Everything is computed here from sampled model-space
// poses, independently of the retargeter's internals:
//  - foot slide: during each contact the source clip shows (detected on the source), how far
//    the target's ankle drifts horizontally from where the contact began, relative to a ground
//    moving at the source's ground velocity carried over (k * A * v: the speed a game would move
//    the retargeted character at; zero for clips with root motion); max per contact, in target
//    leg lengths, averaged over contacts (and the worst);
//  - foot slide beyond the source's own: the same drift measured against the source's ankle
//    carried over (k * A), which the source's heel-to-toe roll does not inflate; and how far the
//    lowest foot joint is off the target's floor during contacts;
//  - bone direction error: the angle between each limb bone of the target (upper arm, forearm,
//    thigh, shin) and the source's (seen through A), mean and max over bones and samples;
//  - joint-angle error in the rest-relative frame: per mapped joint, the angle between the
//    source's rotation away from its reference pose (carried through A) and the target's away
//    from its own response to that reference pose.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>

#include "../support/shared_asset.h"
#include "family_rigs.h"
#include "marrow/clip/sampling.h"
#include "marrow/ik/foot_contacts.h"
#include "marrow/ik/foot_planting.h"
#include "marrow/io/asset.h"
#include "marrow/pose/local_to_model.h"
#include "marrow/pose/mask.h"
#include "marrow/retarget/retargeter.h"
#include "retarget_util.h"

namespace marrow {
namespace {

using P = HumanoidPart;

using test::shared_asset;

// The first frame of a clip (or the rest pose): a reference pose.
std::vector<Transform> pose_of(const Asset& a, const char* clip) {
  std::vector<Transform> p = test::rest_of(a.skeleton);
  if (clip != nullptr) {
    const Clip& c = a.clips[*a.find_clip(clip)];
    SamplingCursor cursor(c);
    EXPECT_TRUE(sample(c, a.skeleton.rest_pose(), 0, cursor, p));
  }
  return p;
}

std::vector<Transform> sample_at(const Skeleton& s, const Clip& c, float t) {
  std::vector<Transform> p(s.size());
  SamplingCursor cursor(c);
  EXPECT_TRUE(sample(c, s.rest_pose(), t, cursor, p));
  return p;
}

struct Figures {
  float slide_mean = 0, slide_max = 0;  // target leg lengths
  float added_mean = 0, added_max = 0;  // slide beyond the source's own, leg lengths
  float floor_mean = 0;  // lowest foot joint off the target's floor in contact, leg lengths
  float bone_mean = 0, bone_max = 0;    // degrees
  float joint_mean = 0, joint_max = 0;  // degrees
  std::size_t contacts = 0;
};

struct Comparison {
  const Asset* source = nullptr;
  const Asset* target = nullptr;
  const Clip* clip = nullptr;
  std::vector<Transform> source_ref, target_ref;
  RetargetMap map;
  Retargeter rest_relative, naive, by_legs;
  FootContacts contacts;
  bool looping = true;
  float target_leg = 0;

  // Skips (returns false, `why` set) when an asset is absent.
  bool make(const char* source_file, const char* clip_name, const char* source_ref_clip,
            const char* target_file, const char* target_ref_clip, bool loop, std::string& why) {
    source = shared_asset(source_file, why);
    target = shared_asset(target_file, why);
    if (source == nullptr || target == nullptr) return false;
    clip = &source->clips[*source->find_clip(clip_name)];
    setup(pose_of(*source, source_ref_clip), pose_of(*target, target_ref_clip), loop);
    return true;
  }

  // The rest of make(), for a source, clip and target already set.
  void setup(std::vector<Transform> source_reference, std::vector<Transform> target_reference,
             bool loop) {
    looping = loop;
    source_ref = std::move(source_reference);
    target_ref = std::move(target_reference);
    Result<RetargetMap> m =
        make_retarget_map(source->skeleton, target->skeleton, {}, source_ref, target_ref);
    EXPECT_TRUE(m.ok()) << m.error().message;
    map = std::move(m).value();
    RetargetOptions o;
    o.source_reference = source_ref;
    o.target_reference = target_ref;
    Result<Retargeter> r = Retargeter::create(source->skeleton, target->skeleton, map, o);
    EXPECT_TRUE(r.ok()) << r.error().message;
    rest_relative = std::move(r).value();
    o.root_scale = RootScale::kLegLength;
    by_legs = Retargeter::create(source->skeleton, target->skeleton, map, o).value();
    o.root_scale = RootScale::kHipHeight;
    o.method = RetargetMethod::kCopyLocal;
    naive = Retargeter::create(source->skeleton, target->skeleton, map, o).value();
    const HumanoidRig& sr = map.source_rig;
    // The legs as matched: a foot hanging from the armature still has its shin and thigh.
    const FootJoints feet[] = {{sr.joint(P::kLeftFoot), sr.joint(P::kLeftToe),
                                sr.joint(P::kLeftShin), sr.joint(P::kLeftThigh)},
                               {sr.joint(P::kRightFoot), sr.joint(P::kRightToe),
                                sr.joint(P::kRightShin), sr.joint(P::kRightThigh)}};
    FootContactOptions co;
    co.looping = loop;
    contacts = detect_foot_contacts(source->skeleton, *clip, feet, co).value();
    const HumanoidRig& tr = map.target_rig;
    const std::vector<Mat4> rest = test::model_of(target->skeleton, target_ref);
    for (P thigh : {P::kLeftThigh, P::kRightThigh}) {
      const P shin = thigh == P::kLeftThigh ? P::kLeftShin : P::kRightShin;
      const P foot = thigh == P::kLeftThigh ? P::kLeftFoot : P::kRightFoot;
      target_leg +=
          0.5f * (length(rest[tr.joint(shin)].translation() - rest[tr.joint(thigh)].translation()) +
                  length(rest[tr.joint(foot)].translation() - rest[tr.joint(shin)].translation()));
    }
  }

  // Target model poses at `times` for a method, optionally foot-planted.
  std::vector<std::vector<Mat4>> target_frames(const Retargeter& r, const std::vector<float>& times,
                                               bool plant) const {
    const Clip out = retarget_clip(r, *clip).value();
    const Skeleton& ts = target->skeleton;
    const HumanoidRig& tr = map.target_rig;
    const Quat A = rest_relative.axes();
    const Vec3 ground = rotate(A, contacts.ground_velocity) * rest_relative.root_scale();
    FootLock locks[2];
    std::vector<std::vector<Mat4>> frames;
    float previous = times.empty() ? 0 : times.front();
    for (float t : times) {
      std::vector<Transform> local = sample_at(ts, out, t);
      std::vector<Mat4> model = test::model_of(ts, local);
      if (plant) {
        FootPlantLeg legs[2];
        for (int side = 0; side < 2; ++side) {
          const bool l = side == 0;
          FootPlantLeg& leg = legs[side];
          leg.hip = tr.joint(l ? P::kLeftThigh : P::kRightThigh);
          leg.knee = tr.joint(l ? P::kLeftShin : P::kRightShin);
          leg.ankle = tr.joint(l ? P::kLeftFoot : P::kRightFoot);
          leg.contact = contact_weight(contacts.feet[side], t, clip->duration(), 0.05f, looping);
          locks[side].update(leg.contact, model[leg.ankle].translation(), ground * (t - previous));
          leg.locked = locks[side].locked;
          leg.lock_position = locks[side].position;
          // The knee keeps bending the way the animation bends it.
          leg.pole_vector = {0, 0, 0};
        }
        FootPlantingJob job;
        job.skeleton = &ts;
        job.pelvis = tr.joint(P::kHips);
        job.legs = legs;
        job.local = local;
        job.model = model;
        EXPECT_TRUE(job.run());
      }
      frames.push_back(std::move(model));
      previous = t;
    }
    return frames;
  }

  // The same foot slide measured on the source clip itself (its ankles, its ground velocity, its
  // leg length): what the data holds before any retargeting, heel-to-toe roll included.
  float source_slide(float* worst_out) const {
    const Skeleton& ss = source->skeleton;
    const HumanoidRig& sr = map.source_rig;
    const std::vector<Mat4> rest = test::model_of(ss, source_ref);
    float leg = 0;
    for (P thigh : {P::kLeftThigh, P::kRightThigh}) {
      const P shin = thigh == P::kLeftThigh ? P::kLeftShin : P::kRightShin;
      const P foot = thigh == P::kLeftThigh ? P::kLeftFoot : P::kRightFoot;
      leg +=
          0.5f * (length(rest[sr.joint(shin)].translation() - rest[sr.joint(thigh)].translation()) +
                  length(rest[sr.joint(foot)].translation() - rest[sr.joint(shin)].translation()));
    }
    float sum = 0, worst = 0;
    std::size_t n = 0;
    const Vec3 up{0, 1, 0};
    for (int side = 0; side < 2; ++side) {
      const JointIndex ankle = sr.joint(side == 0 ? P::kLeftFoot : P::kRightFoot);
      for (const ContactInterval& c : contacts.feet[side].intervals) {
        const float to = c.wraps() ? c.end + clip->duration() : c.end;
        Vec3 start{};
        float drift_max = 0;
        for (float t = c.start; t <= to; t += 1.0f / 120) {
          const float tc = t > clip->duration() ? t - clip->duration() : t;
          const Vec3 p = test::model_of(ss, sample_at(ss, *clip, tc))[ankle].translation();
          if (t == c.start) start = p;
          Vec3 d = p - start - contacts.ground_velocity * (t - c.start);
          d -= up * dot(d, up);
          drift_max = std::max(drift_max, length(d));
        }
        sum += drift_max / leg;
        worst = std::max(worst, drift_max / leg);
        ++n;
      }
    }
    if (worst_out != nullptr) *worst_out = worst;
    return n ? sum / static_cast<float>(n) : 0;
  }

  Figures measure(const Retargeter& r, bool plant) const {
    Figures f;
    const float dt = 1.0f / 120;
    std::vector<float> times;
    for (float t = 0; t <= clip->duration(); t += dt) times.push_back(t);
    const std::vector<std::vector<Mat4>> frames = target_frames(r, times, plant);
    const Skeleton& ss = source->skeleton;
    const Skeleton& ts = target->skeleton;
    const HumanoidRig& sr = map.source_rig;
    const HumanoidRig& tr = map.target_rig;
    const Quat A = rest_relative.axes();  // the model axes, whatever the method
    const Vec3 up{0, 1, 0};
    const Vec3 ground = rotate(A, contacts.ground_velocity) * rest_relative.root_scale();

    // The source's ankles at the same times, carried into the target's space (k * A), each
    // side's heights taken from its floor: the lowest any foot joint goes in the source clip,
    // the lowest foot joint of the target's reference pose.
    std::vector<std::array<Vec3, 2>> source_ankles(times.size());
    float source_floor = std::numeric_limits<float>::max();
    for (std::size_t i = 0; i < times.size(); ++i) {
      const std::vector<Mat4> m = test::model_of(ss, sample_at(ss, *clip, times[i]));
      for (P part : {P::kLeftFoot, P::kLeftToe, P::kRightFoot, P::kRightToe}) {
        source_floor = std::min(source_floor, m[sr.joint(part)].translation().y);
      }
      for (int side = 0; side < 2; ++side) {
        const Vec3 p = m[sr.joint(side == 0 ? P::kLeftFoot : P::kRightFoot)].translation();
        source_ankles[i][side] = rotate(A, p) * rest_relative.root_scale();
      }
    }
    float target_floor = std::numeric_limits<float>::max();
    const std::vector<Mat4> target_ref_model = test::model_of(ts, target_ref);
    for (P part : {P::kLeftFoot, P::kLeftToe, P::kRightFoot, P::kRightToe}) {
      target_floor = std::min(target_floor, target_ref_model[tr.joint(part)].translation().y);
    }
    (void)source_floor;
    // Foot slide over the source's contacts.
    float slide_sum = 0, added_sum = 0, height_sum = 0;
    std::size_t height_n = 0;
    for (int side = 0; side < 2; ++side) {
      const JointIndex ankle = tr.joint(side == 0 ? P::kLeftFoot : P::kRightFoot);
      for (const ContactInterval& c : contacts.feet[side].intervals) {
        float worst = 0, added = 0;
        bool started = false;
        Vec3 start{}, source_start{};
        float t0 = 0;
        // Walk the contact from its start, around the loop point if it wraps.
        const std::size_t passes = c.wraps() ? 2 : 1;
        for (std::size_t k = 0; k < passes * times.size(); ++k) {
          const std::size_t i = k % times.size();
          const float t = times[i] + (k >= times.size() ? clip->duration() : 0.0f);
          const float from = c.start, to = c.wraps() ? c.end + clip->duration() : c.end;
          if (t < from || t > to) continue;
          const Vec3 p = frames[i][ankle].translation();
          const Vec3 q = source_ankles[i][side];
          if (!started) {
            started = true;
            start = p;
            source_start = q;
            t0 = t;
          }
          Vec3 drift = p - start - ground * (t - t0);
          drift -= up * dot(drift, up);
          worst = std::max(worst, length(drift));
          Vec3 beyond = (p - start) - (q - source_start);
          beyond -= up * dot(beyond, up);
          added = std::max(added, length(beyond));
          const JointIndex toe = tr.joint(side == 0 ? P::kLeftToe : P::kRightToe);
          const float lowest = std::min(p.y, frames[i][toe].translation().y);
          height_sum += std::fabs(lowest - target_floor) / target_leg;
          ++height_n;
        }
        if (!started) continue;
        ++f.contacts;
        slide_sum += worst / target_leg;
        f.slide_max = std::max(f.slide_max, worst / target_leg);
        added_sum += added / target_leg;
        f.added_max = std::max(f.added_max, added / target_leg);
      }
    }
    f.slide_mean = f.contacts ? slide_sum / static_cast<float>(f.contacts) : 0;
    f.added_mean = f.contacts ? added_sum / static_cast<float>(f.contacts) : 0;
    f.floor_mean = height_n ? height_sum / static_cast<float>(height_n) : 0;

    // Bone directions and rest-relative joint angles, on every fourth sample.
    // The limb bones (feet differ between rigs by anatomy, not by pose: see retargeter.h).
    const std::vector<std::pair<P, P>> bones = {
        {P::kLeftUpperArm, P::kLeftForearm},   {P::kLeftForearm, P::kLeftHand},
        {P::kRightUpperArm, P::kRightForearm}, {P::kRightForearm, P::kRightHand},
        {P::kLeftThigh, P::kLeftShin},         {P::kLeftShin, P::kLeftFoot},
        {P::kRightThigh, P::kRightShin},       {P::kRightShin, P::kRightFoot}};
    std::vector<P> joints;
    for (std::size_t p = 0; p < kHumanoidPartCount; ++p) {
      const P part = static_cast<P>(p);
      if (!is_chain(part) && sr.has(part) && tr.has(part)) joints.push_back(part);
    }
    const std::vector<Mat4> source_ref_model = test::model_of(ss, source_ref);
    const std::vector<Mat4> target_at_ref = test::model_of(ts, test::retarget_pose(r, source_ref));
    double bone_sum = 0, joint_sum = 0;
    std::size_t bone_n = 0, joint_n = 0;
    for (std::size_t i = 0; i < times.size(); i += 4) {
      const std::vector<Mat4> s = test::model_of(ss, sample_at(ss, *clip, times[i]));
      const std::vector<Mat4>& t = frames[i];
      for (const auto& [a, b] : bones) {
        if (!sr.has(a) || !sr.has(b) || !tr.has(a) || !tr.has(b)) continue;  // a rig without hands
        const Vec3 want = rotate(A, s[sr.joint(b)].translation() - s[sr.joint(a)].translation());
        const Vec3 got = t[tr.joint(b)].translation() - t[tr.joint(a)].translation();
        const float e = test::angle_between_dirs(want, got) * 180 / test_pi;
        bone_sum += e;
        ++bone_n;
        f.bone_max = std::max(f.bone_max, e);
      }
      for (P part : joints) {
        const Quat ds = test::model_rotation(s[sr.joint(part)]) *
                        conjugate(test::model_rotation(source_ref_model[sr.joint(part)]));
        const Quat dt_ = test::model_rotation(t[tr.joint(part)]) *
                         conjugate(test::model_rotation(target_at_ref[tr.joint(part)]));
        const float e = rotation_angle(A * ds * conjugate(A), dt_) * 180 / test_pi;
        joint_sum += e;
        ++joint_n;
        f.joint_max = std::max(f.joint_max, e);
      }
    }
    f.bone_mean = static_cast<float>(bone_sum / static_cast<double>(bone_n));
    f.joint_mean = static_cast<float>(joint_sum / static_cast<double>(joint_n));
    return f;
  }

  static constexpr float test_pi = 3.14159265f;
};

void print(const char* what, const char* method, const Figures& f) {
  std::printf(
      "[ data ] %s, %-20s foot slide %.3f leg lengths per contact (worst %.3f, %zu "
      "contacts), beyond the source's own %.3f (worst %.3f), foot off the floor %.3f; "
      "bone direction error %.2f deg (max %.2f); rest-relative joint angle error %.2f "
      "deg (max %.2f)\n",
      what, method, f.slide_mean, f.slide_max, f.contacts, f.added_mean, f.added_max, f.floor_mean,
      f.bone_mean, f.bone_max, f.joint_mean, f.joint_max);
}

void expect_better_than_name_copy(const Figures& ours, const Figures& naive, const Figures& planted,
                                  float source_slide) {
  // Limb bones point where the source's do (float rounding only), and every mapped joint turns
  // from its reference as the source's does...
  EXPECT_LT(ours.bone_max, 0.05f);
  EXPECT_LT(ours.joint_max, 0.05f);
  // ...where copying local rotations across the two rigs' different joint frames turns them
  // far away.
  EXPECT_GT(naive.bone_mean, 20.0f);
  EXPECT_GT(naive.joint_mean, 10.0f);
  // Feet: no more slide than the source clip has itself, less slide of its own than name copy,
  // and closer to the floor.
  // Other proportions leave some slide of their own (CMU onto Soldier: 0.03 leg lengths per
  // contact above the capture's): rotations alone cannot fix lengths; planting does.
  EXPECT_LT(ours.slide_mean, source_slide + 0.05f);
  EXPECT_LT(ours.added_mean, 0.5f * naive.added_mean);
  EXPECT_LT(ours.floor_mean, 0.5f * naive.floor_mean);
  // Foot planting holds the planted feet to the (moving) ground.
  EXPECT_LT(planted.slide_mean, 0.3f * ours.slide_mean);
}

TEST(RetargetReal, SoldierWalkOntoXbotKeepsBonesAndFeetWhereNameCopyDoesNot) {
  Comparison s;
  std::string why;
  if (!s.make("gltf/Soldier.glb", "Walk", "TPose", "gltf/Xbot.glb", nullptr, true, why)) {
    GTEST_SKIP() << why;
  }
  const Figures ours = s.measure(s.rest_relative, false);
  const Figures naive = s.measure(s.naive, false);
  const Figures planted = s.measure(s.rest_relative, true);
  print("Soldier Walk -> Xbot", "rest-relative:", ours);
  print("Soldier Walk -> Xbot", "naive name copy:", naive);
  print("Soldier Walk -> Xbot", "rest-relative + IK:", planted);
  print("Soldier Walk -> Xbot", "root by leg length:", s.measure(s.by_legs, false));
  float worst = 0;
  const float source = s.source_slide(&worst);
  std::printf(
      "[ data ] Soldier Walk itself: foot slide %.3f leg lengths per contact (worst %.3f)\n",
      source, worst);
  EXPECT_EQ(ours.contacts, 2u);
  expect_better_than_name_copy(ours, naive, planted, source);
}

TEST(RetargetReal, CmuCaptureOntoSoldierKeepsBonesAndFeetWhereNameCopyDoesNot) {
  Comparison s;
  std::string why;
  if (!s.make("bvh/01_01.bvh", "01_01", nullptr, "gltf/Soldier.glb", "TPose", false, why)) {
    GTEST_SKIP() << why;
  }
  const Figures ours = s.measure(s.rest_relative, false);
  const Figures naive = s.measure(s.naive, false);
  const Figures planted = s.measure(s.rest_relative, true);
  print("CMU 01_01 -> Soldier", "rest-relative:", ours);
  print("CMU 01_01 -> Soldier", "naive name copy:", naive);
  print("CMU 01_01 -> Soldier", "rest-relative + IK:", planted);
  print("CMU 01_01 -> Soldier", "root by leg length:", s.measure(s.by_legs, false));
  float worst = 0;
  const float source = s.source_slide(&worst);
  std::printf("[ data ] CMU 01_01 itself: foot slide %.3f leg lengths per contact (worst %.3f)\n",
              source, worst);
  EXPECT_GT(ours.contacts, 10u);
  expect_better_than_name_copy(ours, naive, planted, source);
}

// Prints a comparison's figures (default root, root by leg length, planted) and checks what
// every capture must give: limb bones where the source's point, the feet within the source's
// own slide with the root scaled by leg length (the stride follows the legs), planted feet held.
// Returns the default figures.
Figures report(Comparison& s, const std::string& what) {
  const Figures ours = s.measure(s.rest_relative, false);
  const Figures by_legs = s.measure(s.by_legs, false);
  const Figures planted = s.measure(s.rest_relative, true);
  float worst = 0;
  const float source = s.source_slide(&worst);
  std::printf("[ data ] %s, source itself: foot slide %.3f leg lengths per contact (worst %.3f)\n",
              what.c_str(), source, worst);
  print(what.c_str(), "rest-relative:", ours);
  print(what.c_str(), "root by leg length:", by_legs);
  print(what.c_str(), "rest-relative + IK:", planted);
  std::printf("[ data ] %s, root scale %.5f (hip height) %.5f (leg length)\n", what.c_str(),
              s.rest_relative.root_scale(), s.by_legs.root_scale());
  EXPECT_GT(ours.contacts, 0u);
  EXPECT_LT(ours.bone_max, 0.05f);
  EXPECT_LT(by_legs.slide_mean, source + 0.05f);
  EXPECT_LT(planted.slide_mean, 0.01f);
  return ours;
}

TEST(RetargetReal, CharacterCreatorCapturesOntoSoldierAndXbot) {
  // CMU walks and a run on Reallusion's rig (../shared/assets/bvh/cmu_iclone): matched by names
  // ("CC_Base_L_Thigh"), referenced at their first frame (the rest pose does not stand). Hip
  // height, measured on that mid-stride frame, scales the root more than leg length does
  // (docs/retargeting.md): report() holds the slide to the leg-length root.
  const char* const captures[] = {"002_01", "002_03", "003_01", "006_01", "007_01"};
  for (const char* target : {"gltf/Soldier.glb", "gltf/Xbot.glb"}) {
    for (const char* capture : captures) {
      const std::string file = std::string("bvh/cmu_iclone/") + capture + ".bvh";
      Comparison s;
      std::string why;
      if (!s.make(file.c_str(), capture, capture, target,
                  std::string(target) == "gltf/Soldier.glb" ? "TPose" : nullptr, false, why)) {
        GTEST_SKIP() << why;
      }
      const std::string what = std::string("CC ") + capture + " -> " + target;
      SCOPED_TRACE(what);
      const Figures ours = report(s, what);
      EXPECT_LT(ours.joint_max, 0.05f);
      EXPECT_LT(ours.floor_mean, 0.1f);
    }
  }
}

TEST(RetargetReal, EachRigFamilyCarriesACaptureOntoSoldier) {
  // A Character Creator walk onto each hand-built family rig (family_rigs.h, at its rest pose),
  // then from that rig onto Soldier: the family's matching, twist and IK bones included.
  std::string why;
  const Asset* cc = shared_asset("bvh/cmu_iclone/002_01.bvh", why);
  const Asset* soldier = cc == nullptr ? nullptr : shared_asset("gltf/Soldier.glb", why);
  if (cc == nullptr || soldier == nullptr) GTEST_SKIP() << why;
  const std::vector<Transform> cc_ref = pose_of(*cc, "002_01");
  for (const test::Family& f :
       {test::character_creator_rig(), test::biped_rig(), test::unreal_mannequin_rig(),
        test::human_ik_rig(), test::blender("Blender", ".L", ".R", false), test::rigify_rig(),
        test::ik_feet_rig()}) {
    SCOPED_TRACE(f.label);
    Asset family;
    family.skeleton = test::rig_of(test::build(f));
    Result<RetargetMap> onto = make_retarget_map(cc->skeleton, family.skeleton, {}, cc_ref, {});
    ASSERT_TRUE(onto.ok()) << onto.error().message;
    RetargetOptions o;
    o.source_reference = cc_ref;
    Result<Retargeter> r = Retargeter::create(cc->skeleton, family.skeleton, *onto, o);
    ASSERT_TRUE(r.ok()) << r.error().message;
    family.clips.push_back(retarget_clip(*r, cc->clips.front()).value());

    Comparison s;
    s.source = &family;
    s.target = soldier;
    s.clip = &family.clips.front();
    s.setup(test::rest_of(family.skeleton), pose_of(*soldier, "TPose"), false);
    report(s, "CC 002_01 -> " + f.label + " -> Soldier");
  }
}

TEST(RetargetReal, FeetParentedAwayFromTheLegsFollowTheShins) {
  // The IK-feet rig's feet hang from the root: retargeted onto it, each foot must still ride at
  // the end of its shin, where the reference pose has it, frame after frame.
  std::string why;
  const Asset* cc = shared_asset("bvh/cmu_iclone/002_01.bvh", why);
  if (cc == nullptr) GTEST_SKIP() << why;
  const std::vector<Transform> cc_ref = pose_of(*cc, "002_01");
  const Skeleton rig = test::rig_of(test::build(test::ik_feet_rig()));
  Result<RetargetMap> map = make_retarget_map(cc->skeleton, rig, {}, cc_ref, {});
  ASSERT_TRUE(map.ok()) << map.error().message;
  RetargetOptions o;
  o.source_reference = cc_ref;
  Result<Retargeter> r = Retargeter::create(cc->skeleton, rig, *map, o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const Clip clip = retarget_clip(*r, cc->clips.front()).value();
  const std::vector<Mat4> rest = test::model_of(rig, test::rest_of(rig));
  for (P side_shin : {P::kLeftShin, P::kRightShin}) {
    const JointIndex shin = map->target_rig.joint(side_shin);
    const JointIndex foot =
        map->target_rig.joint(side_shin == P::kLeftShin ? P::kLeftFoot : P::kRightFoot);
    ASSERT_NE(rig.parent(foot), shin);
    // The foot's place in the shin's frame, from the reference (rest) pose.
    Mat4 inverse = Mat4::identity();
    ASSERT_TRUE(invert_affine(rest[shin], inverse));
    const Vec3 offset = transform_point(inverse, rest[foot].translation());
    float moved = 0;
    for (float t = 0; t <= clip.duration(); t += 0.1f) {
      const std::vector<Mat4> m = test::model_of(rig, sample_at(rig, clip, t));
      const Vec3 want = transform_point(m[shin], offset);
      EXPECT_LT(length(m[foot].translation() - want), 1e-4f) << "t = " << t;
      moved = std::max(moved, length(m[foot].translation() - rest[foot].translation()));
    }
    EXPECT_GT(moved, 0.1f);  // a walk: the foot leaves its rest place
  }
}

TEST(RetargetReal, ARetargetedWalkIsPlantedOnASlopeWithThePelvisLowered) {
  // Soldier's Walk on Xbot (other leg lengths), then a 10 degree slope rising along the
  // character's left (+x): during every contact the planted ankle keeps its animated clearance
  // above the slope, the feet lie on it, and the pelvis goes down for the lower foot.
  Comparison s;
  std::string why;
  if (!s.make("gltf/Soldier.glb", "Walk", "TPose", "gltf/Xbot.glb", nullptr, true, why)) {
    GTEST_SKIP() << why;
  }
  const Skeleton& ts = s.target->skeleton;
  const HumanoidRig& tr = s.map.target_rig;
  const Clip walk = retarget_clip(s.rest_relative, *s.clip).value();
  const float slope = 10 * Comparison::test_pi / 180;
  const GroundPlane plane{{0, 0, 0}, {-std::sin(slope), std::cos(slope), 0}};
  const float floor = s.rest_relative.target_floor();
  std::size_t planted_frames = 0;
  float lowest_offset = 0;
  for (float t = 0; t < walk.duration(); t += 1.0f / 60) {
    std::vector<Transform> local = sample_at(ts, walk, t);
    std::vector<Mat4> model = test::model_of(ts, local);
    const std::vector<Mat4> animated = model;
    FootPlantLeg legs[2];
    for (int side = 0; side < 2; ++side) {
      const bool l = side == 0;
      legs[side].hip = tr.joint(l ? P::kLeftThigh : P::kRightThigh);
      legs[side].knee = tr.joint(l ? P::kLeftShin : P::kRightShin);
      legs[side].ankle = tr.joint(l ? P::kLeftFoot : P::kRightFoot);
      legs[side].contact = s.contacts.feet[side].in_contact(t) ? 1.0f : 0.0f;
    }
    FootPlantingResult result;
    FootPlantingJob job;
    job.skeleton = &ts;
    job.pelvis = tr.joint(P::kHips);
    job.legs = legs;
    job.animation_ground = floor;
    job.plane = &plane;
    job.local = local;
    job.model = model;
    job.result = &result;
    ASSERT_TRUE(job.run()) << "at " << t;
    for (const Transform& x : local) ASSERT_TRUE(is_finite(x));
    lowest_offset = std::min(lowest_offset, result.pelvis_offset);
    // The pelvis follows the lowest planted foot's ground (x tan 10 degrees under it), lower
    // still only where a leg could not reach.
    float lowest_ground = std::numeric_limits<float>::max();
    for (int side = 0; side < 2; ++side) {
      if (legs[side].contact >= 1) {
        lowest_ground =
            std::min(lowest_ground, animated[legs[side].ankle].translation().x * std::tan(slope));
      }
    }
    if (lowest_ground < std::numeric_limits<float>::max()) {
      EXPECT_LE(result.pelvis_offset, lowest_ground + 1e-4f) << "at " << t;
      EXPECT_GE(result.pelvis_offset, lowest_ground - 0.05f * s.target_leg) << "at " << t;
    }
    for (int side = 0; side < 2; ++side) {
      if (legs[side].contact < 1) continue;
      ++planted_frames;
      const JointIndex ankle = legs[side].ankle;
      const Vec3 before = animated[ankle].translation(), after = model[ankle].translation();
      // The slope's height under the foot: x tan(10 degrees).
      const float ground = after.x * std::tan(slope);
      EXPECT_NEAR(after.y - ground, before.y, 1e-3f * s.target_leg) << "at " << t;
      EXPECT_NEAR(after.x, before.x, 1e-3f * s.target_leg);
      EXPECT_NEAR(after.z, before.z, 1e-3f * s.target_leg);
      EXPECT_TRUE(result.reached[side]) << "at " << t;
      // The foot tilted with the slope: the ankle's up turned by 10 degrees about z.
      const Quat tilt =
          test::model_rotation(model[ankle]) * conjugate(test::model_rotation(animated[ankle]));
      EXPECT_NEAR(std::fabs(dot(tilt, from_axis_angle({0, 0, 1}, slope))), 1.0f, 1e-4f);
    }
  }
  EXPECT_GT(planted_frames, 60u);
  // The right foot (at x < 0) stands lower on the slope: with it planted the pelvis goes down,
  // about 0.08 m * tan(10 degrees) for Xbot's 8 cm half hip width.
  EXPECT_LT(lowest_offset, -0.01f);
  std::printf(
      "[ data ] Xbot walking on a 10 degree slope: %zu planted foot-frames, pelvis lowered "
      "up to %.3f m\n",
      planted_frames, -lowest_offset);
}

}  // namespace
}  // namespace marrow
