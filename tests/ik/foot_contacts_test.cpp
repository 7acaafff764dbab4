// Foot contacts: a constructed treadmill clip whose contacts are known by construction, and
// Soldier.glb's Walk and Run checked against what the data shows, computed here independently.
#include "marrow/ik/foot_contacts.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "ik_test_util.h"
#include "marrow/clip/clip_builder.h"

namespace marrow {
namespace {

using test::joint;

// hips (1 m up) -> thigh -> knee -> foot on each side: leg length 1 (0.5 + 0.5).
Skeleton treadmill_skeleton() {
  const auto at = [](float x, float y, float z) {
    Transform t;
    t.translation = {x, y, z};
    return t;
  };
  const std::vector<JointDesc> joints = {
      {"hips", -1, at(0, 1, 0)},       {"thigh_l", 0, at(0.1f, 0, 0)},
      {"knee_l", 1, at(0, -0.5f, 0)},  {"foot_l", 2, at(0, -0.5f, 0)},
      {"thigh_r", 0, at(-0.1f, 0, 0)}, {"knee_r", 4, at(0, -0.5f, 0)},
      {"foot_r", 5, at(0, -0.5f, 0)},
  };
  return Skeleton::build(joints, "treadmill").value();
}

// An in-place gait of period 1 s: each foot is planted for `stance` of the cycle, sliding
// backwards (+z) at 1 m/s, then lifted 0.3 m and carried forward. The right foot runs half a
// cycle behind the left. The knee's translation moves the foot (the leg's rest lengths, which
// set the thresholds, stay 0.5 + 0.5).
Clip treadmill_clip(const Skeleton& s, float stance) {
  ClipBuilder b("treadmill");
  const float step = 1.0f / 100;  // keys every 10 ms
  for (int side = 0; side < 2; ++side) {
    std::vector<float> times, values;
    for (int k = 0; k <= 100; ++k) {
      const float t = step * static_cast<float>(k);
      const float phase = std::fmod(t + (side == 0 ? 0.0f : 0.5f), 1.0f);
      float y, z;
      if (phase < stance) {  // planted: on the ground, sliding back with the treadmill
        y = 0;
        z = -0.5f * stance + phase;
      } else {  // swing: up and forward, a sine arch
        const float u = (phase - stance) / (1 - stance);
        y = 0.3f * std::sin(test::kPi * u);
        z = 0.5f * stance - stance * u;
      }
      times.push_back(t);
      // The knee's local translation: the thigh is at (±0.1, 1, 0), the foot 0.5 below the knee.
      values.insert(values.end(), {0.0f, y - 0.5f, z});
    }
    const JointIndex knee = side == 0 ? 2 : 5;
    EXPECT_TRUE(b.add_track(knee, s.name(knee), TrackTarget::kTranslation, Interpolation::kLinear,
                            times, values, "test")
                    .ok());
  }
  return b.build(s.size(), "treadmill").value();
}

TEST(FootContacts, TreadmillContactsAreFoundWhereTheyWereBuilt) {
  const Skeleton s = treadmill_skeleton();
  const float stance = 0.6f;
  const Clip clip = treadmill_clip(s, stance);
  const FootJoints feet[] = {{3, kNoParent}, {6, kNoParent}};
  Result<FootContacts> r = detect_foot_contacts(s, clip, feet);
  ASSERT_TRUE(r.ok()) << r.error().message;
  // The ground slides at +1 m/s in z; the detector sees it as the ground's velocity.
  EXPECT_NEAR(r->ground_velocity.z, 1.0f, 1e-3f);
  EXPECT_NEAR(r->ground_velocity.x, 0.0f, 1e-6f);
  ASSERT_EQ(r->feet.size(), 2u);
  EXPECT_FLOAT_EQ(r->feet[0].leg_length, 1.0f);
  // Boundaries are resolved to about a sample (1/60 s): the velocity at the sample where the
  // foot lands is a central difference that still spans the end of the swing.
  const float sample = 1.0f / 60;
  // Left: planted on [0, 0.6].
  ASSERT_EQ(r->feet[0].intervals.size(), 1u);
  const ContactInterval left = r->feet[0].intervals[0];
  EXPECT_NEAR(left.start, 0.0f, 1.5f * sample);
  EXPECT_NEAR(left.end, stance, 1.5f * sample);
  // Right: planted on [0.5, 1.1] = [0.5, 1] and [0, 0.1], one interval through the loop point.
  ASSERT_EQ(r->feet[1].intervals.size(), 1u);
  const ContactInterval right = r->feet[1].intervals[0];
  EXPECT_TRUE(right.wraps());
  EXPECT_NEAR(right.start, 0.5f, 1.5f * sample);
  EXPECT_NEAR(right.end, 0.1f, 1.5f * sample);
  EXPECT_NEAR(r->feet[0].contact_fraction(1), stance, 2.5f * sample);
  EXPECT_NEAR(r->feet[1].contact_fraction(1), stance, 2.5f * sample);

  // The knee and hip given explicitly (as for a foot parented away from its leg) are the
  // parents here: the same leg length and contacts.
  const FootJoints given[] = {{3, kNoParent, 2, 1}, {6, kNoParent, 5, 4}};
  Result<FootContacts> g = detect_foot_contacts(s, clip, given);
  ASSERT_TRUE(g.ok()) << g.error().message;
  EXPECT_FLOAT_EQ(g->feet[0].leg_length, 1.0f);
  EXPECT_EQ(g->feet[1].intervals.size(), 1u);
  EXPECT_FLOAT_EQ(g->feet[1].intervals[0].start, right.start);
  EXPECT_FLOAT_EQ(g->feet[1].intervals[0].end, right.end);
}

TEST(FootContacts, WithoutGroundVelocityAnInPlaceFootSlidesTooFastToCount) {
  const Skeleton s = treadmill_skeleton();
  const Clip clip = treadmill_clip(s, 0.6f);
  const FootJoints feet[] = {{3, kNoParent}};
  FootContactOptions o;
  o.estimate_ground_velocity = false;  // 1 m/s sliding is twice the 0.5 leg lengths per second
  Result<FootContacts> r = detect_foot_contacts(s, clip, feet, o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->feet[0].intervals.empty());
  o.speed_tolerance = 1.2f;  // now 1 m/s is slow enough
  r = detect_foot_contacts(s, clip, feet, o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->feet[0].intervals.size(), 1u);
}

TEST(FootContacts, ShortBlipsAreClosedAndShortContactsDropped) {
  const Skeleton s = treadmill_skeleton();
  const Clip clip = treadmill_clip(s, 0.6f);
  const FootJoints feet[] = {{3, kNoParent}};
  FootContactOptions o;
  o.min_duration = 0.45f;  // the 0.4 s swing is now a gap to close: one contact, the whole loop
  Result<FootContacts> r = detect_foot_contacts(s, clip, feet, o);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->feet[0].intervals.size(), 1u);
  EXPECT_FLOAT_EQ(r->feet[0].contact_fraction(1), 1.0f);
  o.min_duration = 0.7f;  // the 0.6 s contact is shorter than that: closing needs a gap < 0.7
                          // first, so the whole loop is closed again
  r = detect_foot_contacts(s, clip, feet, o);
  ASSERT_TRUE(r.ok());
  EXPECT_FLOAT_EQ(r->feet[0].contact_fraction(1), 1.0f);
  o.looping = false;  // now the swing at the clip's end is not bounded: not closed
  o.min_duration = 0.05f;
  r = detect_foot_contacts(s, clip, feet, o);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->feet[0].intervals.size(), 1u);
  EXPECT_FALSE(r->feet[0].intervals[0].wraps());
}

TEST(FootContacts, TheSameInputGivesTheSameIntervalsBitForBit) {
  const Skeleton s = treadmill_skeleton();
  const Clip clip = treadmill_clip(s, 0.55f);
  const FootJoints feet[] = {{3, kNoParent}, {6, kNoParent}};
  const FootContacts a = detect_foot_contacts(s, clip, feet).value();
  const FootContacts b = detect_foot_contacts(s, clip, feet).value();
  ASSERT_EQ(a.feet.size(), b.feet.size());
  for (std::size_t f = 0; f < a.feet.size(); ++f) {
    ASSERT_EQ(a.feet[f].intervals.size(), b.feet[f].intervals.size());
    for (std::size_t i = 0; i < a.feet[f].intervals.size(); ++i) {
      EXPECT_EQ(a.feet[f].intervals[i].start, b.feet[f].intervals[i].start);
      EXPECT_EQ(a.feet[f].intervals[i].end, b.feet[f].intervals[i].end);
    }
  }
}

TEST(FootContacts, BadInputIsAnErrorNamingIt) {
  const Skeleton s = treadmill_skeleton();
  const Clip clip = treadmill_clip(s, 0.6f);
  const FootJoints good[] = {{3, kNoParent}};
  const auto message = [&](std::span<const FootJoints> feet, const FootContactOptions& o = {}) {
    Result<FootContacts> r = detect_foot_contacts(s, clip, feet, o);
    return r.ok() ? std::string("ok") : r.error().message;
  };
  EXPECT_NE(message({}).find("no feet"), std::string::npos);
  const FootJoints out_of_range[] = {{99, kNoParent}};
  EXPECT_NE(message(out_of_range).find("out of range"), std::string::npos);
  const FootJoints no_leg[] = {{1, kNoParent}};  // thigh_l: a parent but no grandparent
  EXPECT_NE(message(no_leg).find("grandparent"), std::string::npos);
  const FootJoints leg_given[] = {{1, kNoParent, 2, 0}};  // knee and hip named: a leg
  EXPECT_EQ(message(leg_given), "ok");
  const FootJoints knee_out_of_range[] = {{3, kNoParent, 99, 1}};
  EXPECT_NE(message(knee_out_of_range).find("out of range"), std::string::npos);
  FootContactOptions o;
  o.up = {0, 0, 0};
  EXPECT_NE(message(good, o).find("up axis"), std::string::npos);
  o = {};
  o.sample_rate = std::nanf("");
  EXPECT_NE(message(good, o).find("sample_rate"), std::string::npos);
  o = {};
  o.height_tolerance = -1;
  EXPECT_NE(message(good, o).find("height_tolerance"), std::string::npos);

  // A clip made for another skeleton.
  ClipBuilder b("other");
  const float times[] = {0};
  const float values[] = {0, 0, 0};
  ASSERT_TRUE(
      b.add_track(0, "hips", TrackTarget::kTranslation, Interpolation::kLinear, times, values, "t")
          .ok());
  const Clip other = b.build(3, "other").value();
  Result<FootContacts> r = detect_foot_contacts(s, other, good);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("built for 3 joints"), std::string::npos);

  // A leg folded to a point in the rest pose.
  std::vector<JointDesc> folded = {
      {"hips", -1, {}}, {"thigh", 0, {}}, {"knee", 1, {}}, {"foot", 2, {}}};
  const Skeleton zero = Skeleton::build(folded, "zero").value();
  ClipBuilder zb("still");
  const Clip still = zb.build(zero.size(), "still").value();
  const FootJoints zero_foot[] = {{3, kNoParent}};
  r = detect_foot_contacts(zero, still, zero_foot);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("zero length"), std::string::npos);
}

TEST(FootContacts, ContactWeightRampsInAndOutAcrossTheLoopPoint) {
  FootContactTrack track;
  track.intervals = {{0.3f, 0.6f}, {0.9f, 0.1f}};  // the second wraps
  EXPECT_FLOAT_EQ(contact_weight(track, 0.45f, 1, 0.1f), 1.0f);
  EXPECT_FLOAT_EQ(contact_weight(track, 0.95f, 1, 0.1f), 1.0f);
  EXPECT_FLOAT_EQ(contact_weight(track, 0.05f, 1, 0.1f), 1.0f);
  EXPECT_NEAR(contact_weight(track, 0.25f, 1, 0.1f), 0.5f, 1e-5f);  // 50 ms before 0.3
  EXPECT_NEAR(contact_weight(track, 0.62f, 1, 0.1f), 0.8f, 1e-5f);  // 20 ms after 0.6
  EXPECT_FLOAT_EQ(contact_weight(track, 0.75f, 1, 0.1f), 0.0f);
  EXPECT_FLOAT_EQ(contact_weight(track, 0.62f, 1, 0.0f), 0.0f);  // no blend: a step
  FootContactTrack near_end;
  near_end.intervals = {{0.05f, 0.5f}};
  // 0.98 is 70 ms before 0.05 around the loop, but far from it without looping.
  EXPECT_NEAR(contact_weight(near_end, 0.98f, 1, 0.1f, true), 0.3f, 1e-5f);
  EXPECT_FLOAT_EQ(contact_weight(near_end, 0.98f, 1, 0.1f, false), 0.0f);
}

// ---- Soldier.glb: Walk and Run ----

class SoldierContacts : public testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    asset_ = test::shared_asset("gltf/Soldier.glb", why);
    if (!asset_) GTEST_SKIP() << why;
    const Skeleton& s = asset_->skeleton;
    feet_ = {{joint(s, "mixamorig:LeftFoot"), joint(s, "mixamorig:LeftToeBase")},
             {joint(s, "mixamorig:RightFoot"), joint(s, "mixamorig:RightToeBase")}};
  }

  const Clip& clip(const char* name) const { return asset_->clips[*asset_->find_clip(name)]; }

  // What the data show, computed here independently of the detector (its own sampling at
  // 240 Hz): heel and toe heights, and their velocity along z (the Soldier faces -z and walks
  // in place, so a planted foot rides the ground backwards, +z).
  struct Trace {
    std::vector<float> time, heel, toe, heel_vz, toe_vz;
    float heel_min = 0, toe_min = 0, leg = 0;
  };
  Trace trace(const Clip& c, std::size_t foot) const {
    const Skeleton& s = asset_->skeleton;
    const int n = static_cast<int>(std::lround(c.duration() * 240));
    const float dt = c.duration() / static_cast<float>(n);
    Trace tr;
    std::vector<Vec3> heel(n + 1), toe(n + 1);
    for (int k = 0; k <= n; ++k) {
      const std::vector<Mat4> m = test::model_at(s, c, dt * static_cast<float>(k));
      heel[k] = m[feet_[foot].foot].translation();
      toe[k] = m[feet_[foot].toe].translation();
    }
    for (int k = 0; k < n; ++k) {  // a loop: sample n is sample 0
      tr.time.push_back(dt * static_cast<float>(k));
      tr.heel.push_back(heel[k].y);
      tr.toe.push_back(toe[k].y);
      const int next = k + 1, prev = k == 0 ? n - 1 : k - 1;
      tr.heel_vz.push_back((heel[next].z - heel[prev].z) / (2 * dt));
      tr.toe_vz.push_back((toe[next].z - toe[prev].z) / (2 * dt));
    }
    tr.heel_min = *std::min_element(tr.heel.begin(), tr.heel.end());
    tr.toe_min = *std::min_element(tr.toe.begin(), tr.toe.end());
    const std::vector<Mat4> rest = test::model_of(s, s.rest_pose());
    const JointIndex knee = s.parent(feet_[foot].foot), thigh = s.parent(knee);
    tr.leg = length(rest[feet_[foot].foot].translation() - rest[knee].translation()) +
             length(rest[knee].translation() - rest[thigh].translation());
    return tr;
  }

  // Checks one foot's contacts against the trace: inside every contact the heel or the toe is
  // down (within 6% of the leg length of its lowest) and that low joint rides the ground
  // backwards; every gap between contacts lifts the foot (a swing, above 8%).
  void expect_contacts_match_data(const Clip& c, const FootContactTrack& track,
                                  std::size_t foot) const {
    const Trace tr = trace(c, foot);
    for (std::size_t k = 0; k < tr.time.size(); ++k) {
      const bool heel_low = tr.heel[k] - tr.heel_min <= 0.06f * tr.leg;
      const bool toe_low = tr.toe[k] - tr.toe_min <= 0.06f * tr.leg;
      if (track.in_contact(tr.time[k])) {
        EXPECT_TRUE(heel_low || toe_low)
            << "foot " << foot << " up during a contact at " << tr.time[k];
        EXPECT_TRUE((heel_low && tr.heel_vz[k] > 0) || (toe_low && tr.toe_vz[k] > 0))
            << "foot " << foot << " not riding the ground during a contact at " << tr.time[k];
      }
    }
    for (std::size_t i = 0; i < track.intervals.size(); ++i) {
      // The gap after contact i runs to the start of the next (around the loop).
      const float from = track.intervals[i].end;
      const float to = track.intervals[(i + 1) % track.intervals.size()].start;
      float highest = 0;
      for (std::size_t k = 0; k < tr.time.size(); ++k) {
        const float t = tr.time[k];
        const bool in_gap = from < to ? (t > from && t < to) : (t > from || t < to);
        if (in_gap)
          highest = std::max(highest, std::min(tr.heel[k] - tr.heel_min, tr.toe[k] - tr.toe_min));
      }
      EXPECT_GT(highest, 0.08f * tr.leg) << "foot " << foot << " never lifts after contact " << i;
    }
  }

  const Asset* asset_ = nullptr;
  std::vector<FootJoints> feet_;
};

// Start times of both feet's contacts in time order alternate left, right, left...
void expect_alternating(const FootContacts& r) {
  std::vector<std::pair<float, int>> starts;
  for (int f = 0; f < 2; ++f) {
    for (const ContactInterval& c : r.feet[f].intervals) starts.push_back({c.start, f});
  }
  std::sort(starts.begin(), starts.end());
  ASSERT_GE(starts.size(), 2u);
  for (std::size_t i = 1; i < starts.size(); ++i) {
    EXPECT_NE(starts[i].second, starts[i - 1].second) << "two contacts of one foot in a row";
  }
}

TEST_F(SoldierContacts, WalkAlternatesFeetEachPlantedAboutHalfTheCycleWithDoubleSupport) {
  const Clip& walk = clip("Walk");
  Result<FootContacts> r = detect_foot_contacts(asset_->skeleton, walk, feet_);
  ASSERT_TRUE(r.ok()) << r.error().message;
  expect_alternating(*r);
  for (std::size_t f = 0; f < 2; ++f) {
    const float fraction = r->feet[f].contact_fraction(walk.duration());
    std::printf("[ data ] Soldier Walk foot %zu: in contact %.1f%% of the cycle, %zu contact(s)\n",
                f, 100 * fraction, r->feet[f].intervals.size());
    EXPECT_EQ(r->feet[f].intervals.size(), 1u);
    // A walk keeps each foot down a little over half the cycle.
    EXPECT_GE(fraction, 0.5f);
    EXPECT_LE(fraction, 0.65f);
    expect_contacts_match_data(walk, r->feet[f], f);
  }
  // Both feet down at once at some time: a walk's double support.
  bool double_support = false;
  for (float t = 0; t < walk.duration(); t += 0.005f) {
    double_support = double_support || (r->feet[0].in_contact(t) && r->feet[1].in_contact(t));
  }
  EXPECT_TRUE(double_support);
  // In place: the ground moves backwards (+z) at the walking speed, roughly two leg lengths per
  // second for this walk.
  EXPECT_GT(r->ground_velocity.z, 1.5f * r->feet[0].leg_length);
  EXPECT_LT(r->ground_velocity.z, 2.5f * r->feet[0].leg_length);
}

TEST_F(SoldierContacts, RunAlternatesFeetWithFlightPhasesBetweenContacts) {
  const Clip& run = clip("Run");
  Result<FootContacts> r = detect_foot_contacts(asset_->skeleton, run, feet_);
  ASSERT_TRUE(r.ok()) << r.error().message;
  expect_alternating(*r);
  for (std::size_t f = 0; f < 2; ++f) {
    const float fraction = r->feet[f].contact_fraction(run.duration());
    std::printf("[ data ] Soldier Run foot %zu: in contact %.1f%% of the cycle\n", f,
                100 * fraction);
    EXPECT_EQ(r->feet[f].intervals.size(), 1u);
    // A run's stance is short: well under half the cycle.
    EXPECT_GE(fraction, 0.15f);
    EXPECT_LE(fraction, 0.4f);
    expect_contacts_match_data(run, r->feet[f], f);
  }
  // Never both feet down: flight phases between the contacts.
  for (float t = 0; t < run.duration(); t += 0.005f) {
    EXPECT_FALSE(r->feet[0].in_contact(t) && r->feet[1].in_contact(t)) << "at " << t;
  }
}

TEST_F(SoldierContacts, IdleKeepsBothFeetDownTheWholeClip) {
  const Clip& idle = clip("Idle");
  Result<FootContacts> r = detect_foot_contacts(asset_->skeleton, idle, feet_);
  ASSERT_TRUE(r.ok()) << r.error().message;
  for (const FootContactTrack& f : r->feet) {
    EXPECT_FLOAT_EQ(f.contact_fraction(idle.duration()), 1.0f);
  }
}

}  // namespace
}  // namespace marrow
