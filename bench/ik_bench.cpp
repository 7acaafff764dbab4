// IK jobs (issue 16), per call: two-bone, aim, a FABRIK chain; foot planting per
// character-frame on Xbot.glb walking Soldier's retargeted Walk on a slope. The jobs' inputs
// cycle through 64 targets so no branch settles on one case.
#include <benchmark/benchmark.h>

#include <cmath>
#include <memory>

#include "marrow/clip/sampling.h"
#include "marrow/ik/aim_ik.h"
#include "marrow/ik/chain_ik.h"
#include "marrow/ik/foot_contacts.h"
#include "marrow/ik/foot_planting.h"
#include "marrow/ik/two_bone_ik.h"
#include "marrow/io/asset.h"
#include "marrow/pose/local_to_model.h"
#include "marrow/retarget/retargeter.h"
#include "retarget_fixtures.h"
#include "shared_asset.h"

namespace {

using namespace marrow;

Transform at(float x, float y, float z) {
  Transform t;
  t.translation = {x, y, z};
  return t;
}

// 64 points on a shell around `center` between radii r0 and r1 (deterministic).
std::vector<Vec3> targets(Vec3 center, float r0, float r1) {
  std::vector<Vec3> out;
  for (int i = 0; i < 64; ++i) {
    const float a = 2.399963f * static_cast<float>(i), z = 1 - 2 * (i + 0.5f) / 64.0f;
    const float r = std::sqrt(1 - z * z), d = r0 + (r1 - r0) * static_cast<float>(i % 7) / 6;
    out.push_back(center + Vec3{r * std::cos(a), z, r * std::sin(a)} * d);
  }
  return out;
}

void BM_TwoBoneIk(benchmark::State& state) {
  // hip -> knee -> ankle, 0.45 + 0.45, slightly bent, under a root.
  const std::vector<JointDesc> joints = {{"root", -1, at(0, 1, 0)},
                                         {"hip", 0, at(0.1f, 0, 0)},
                                         {"knee", 1, at(0, -0.45f, 0.05f)},
                                         {"ankle", 2, at(0, -0.45f, -0.05f)}};
  const Skeleton s = Skeleton::build(joints, "leg").value();
  std::vector<Transform> local(s.rest_pose().begin(), s.rest_pose().end());
  std::vector<Mat4> model(s.size());
  (void)local_to_model(s, local, model);
  const std::vector<Vec3> goals = targets({0.1f, 1, 0}, 0.2f, 1.0f);  // some out of reach
  TwoBoneIkJob job;
  job.skeleton = &s;
  job.start = 1;
  job.mid = 2;
  job.end = 3;
  job.pole_vector = {0, 0, 1};
  job.soft_limit = 0.97f;
  job.model = model;
  job.local = local;
  std::size_t i = 0;
  for (auto _ : state) {
    job.target = goals[i++ & 63];
    benchmark::DoNotOptimize(job.run());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_TwoBoneIk);

void BM_AimIk(benchmark::State& state) {
  const std::vector<JointDesc> joints = {{"neck", -1, at(0, 1.5f, 0)}, {"head", 0, at(0, 0.1f, 0)}};
  const Skeleton s = Skeleton::build(joints, "head").value();
  std::vector<Transform> local(s.rest_pose().begin(), s.rest_pose().end());
  std::vector<Mat4> model(s.size());
  (void)local_to_model(s, local, model);
  const std::vector<Vec3> goals = targets({0, 1.6f, 0}, 0.5f, 3.0f);
  AimIkJob job;
  job.skeleton = &s;
  job.joint = 1;
  job.forward = {0, 0, 1};
  job.up = {0, 1, 0};
  job.offset = {0, 0.05f, 0.08f};
  job.max_angle = 1.4f;  // 80 degrees: some targets are clamped
  job.model = model;
  job.local = local;
  std::size_t i = 0;
  for (auto _ : state) {
    job.target = goals[i++ & 63];
    benchmark::DoNotOptimize(job.run());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_AimIk);

// range(0): bones in the chain (a tail along +y, gently curled).
void BM_ChainIk(benchmark::State& state) {
  const int bones = static_cast<int>(state.range(0));
  std::vector<JointDesc> joints = {{"j0", -1, at(0, 1, 0)}};
  for (int b = 1; b <= bones; ++b) {
    Transform t = at(0, 0.1f, 0);
    t.rotation = from_axis_angle({0, 0, 1}, 0.1f);
    joints.push_back({"j" + std::to_string(b), b - 1, t});
  }
  const Skeleton s = Skeleton::build(joints, "tail").value();
  const std::vector<Transform> rest(s.rest_pose().begin(), s.rest_pose().end());
  std::vector<Transform> local = rest;
  std::vector<Mat4> model(s.size());
  (void)local_to_model(s, local, model);
  const float length = 0.1f * static_cast<float>(bones);
  const std::vector<Vec3> goals = targets({0, 1, 0}, 0.3f * length, 0.9f * length);
  int iterations = 0;
  std::int64_t passes = 0;
  ChainIkJob job;
  job.skeleton = &s;
  job.root = 0;
  job.tip = static_cast<JointIndex>(bones);
  job.max_iterations = 16;
  job.tolerance = 1e-4f;
  job.model = model;
  job.local = local;
  job.iterations = &iterations;
  std::size_t i = 0;
  for (auto _ : state) {
    job.target = goals[i++ & 63];
    benchmark::DoNotOptimize(job.run());
    passes += iterations;
    benchmark::ClobberMemory();
  }
  state.counters["passes"] = static_cast<double>(passes) /
                             static_cast<double>(std::max<std::int64_t>(1, state.iterations()));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_ChainIk)->Arg(4)->Arg(10)->ArgName("bones");

// Xbot walking Soldier's Walk, retargeted, planted on a 10 degree slope with its contacts: one
// FootPlantingJob per character-frame (pelvis, two legs, the pelvis' subtree recomputed).
struct Walker {
  const Asset* xbot = nullptr;
  Clip walk;
  FootContacts contacts;
  JointIndex hips = 0, thigh[2]{}, shin[2]{}, foot[2]{};
};

const Walker* walker() {
  static std::unique_ptr<Walker> w = []() -> std::unique_ptr<Walker> {
    std::string why;
    const Asset* soldier = test::shared_asset("gltf/Soldier.glb", why);
    const Asset* xbot = test::shared_asset("gltf/Xbot.glb", why);
    if (!soldier || !xbot) return nullptr;
    auto w = std::make_unique<Walker>();
    w->xbot = xbot;
    Result<Retargeter> r = test::retargeter_posed_by(*soldier, "TPose", *xbot);
    if (!r) return nullptr;
    Result<Clip> walk = retarget_clip(*r, soldier->clips[*soldier->find_clip("Walk")]);
    if (!walk) return nullptr;
    w->walk = std::move(walk).value();
    const HumanoidRig& tr = r->map().target_rig;
    w->hips = tr.joint(HumanoidPart::kHips);
    for (int side = 0; side < 2; ++side) {
      const bool l = side == 0;
      w->thigh[side] = tr.joint(l ? HumanoidPart::kLeftThigh : HumanoidPart::kRightThigh);
      w->shin[side] = tr.joint(l ? HumanoidPart::kLeftShin : HumanoidPart::kRightShin);
      w->foot[side] = tr.joint(l ? HumanoidPart::kLeftFoot : HumanoidPart::kRightFoot);
    }
    const FootJoints feet[] = {{w->foot[0], kNoParent}, {w->foot[1], kNoParent}};
    Result<FootContacts> c = detect_foot_contacts(w->xbot->skeleton, w->walk, feet);
    if (!c) return nullptr;
    w->contacts = std::move(c).value();
    return w;
  }();
  return w.get();
}

void BM_FootPlanting(benchmark::State& state) {
  const Walker* w = walker();
  if (!w) {
    state.SkipWithError("Soldier.glb or Xbot.glb is absent from ../shared/assets/gltf");
    return;
  }
  const Skeleton& s = w->xbot->skeleton;
  // 60 frames of the walk, sampled once: the benchmark times the planting alone.
  std::vector<std::vector<Transform>> frames_local;
  std::vector<std::vector<Mat4>> frames_model;
  std::vector<std::array<float, 2>> contact;
  SamplingCursor cursor(w->walk);
  for (int f = 0; f < 60; ++f) {
    const float t = w->walk.duration() * static_cast<float>(f) / 60;
    std::vector<Transform> local(s.size());
    std::vector<Mat4> model(s.size());
    (void)sample(w->walk, s.rest_pose(), t, cursor, local);
    (void)local_to_model(s, local, model);
    frames_local.push_back(local);
    frames_model.push_back(model);
    contact.push_back({contact_weight(w->contacts.feet[0], t, w->walk.duration(), 0.05f),
                       contact_weight(w->contacts.feet[1], t, w->walk.duration(), 0.05f)});
  }
  const float slope = 0.1745f;
  const GroundPlane plane{{0, 0, 0}, {-std::sin(slope), std::cos(slope), 0}};
  std::vector<Transform> local(s.size());
  std::vector<Mat4> model(s.size());
  FootPlantLeg legs[2];
  for (int side = 0; side < 2; ++side) {
    legs[side].hip = w->thigh[side];
    legs[side].knee = w->shin[side];
    legs[side].ankle = w->foot[side];
  }
  FootPlantingJob job;
  job.skeleton = &s;
  job.pelvis = w->hips;
  job.legs = legs;
  job.plane = &plane;
  job.local = local;
  job.model = model;
  const bool plant = state.range(0) != 0;
  std::size_t f = 0;
  for (auto _ : state) {
    const std::size_t k = f++ % 60;
    // Restoring the frame's pose (~7 KB) is part of both variants; range 0 measures it alone.
    std::copy(frames_local[k].begin(), frames_local[k].end(), local.begin());
    std::copy(frames_model[k].begin(), frames_model[k].end(), model.begin());
    if (plant) {
      legs[0].contact = contact[k][0];
      legs[1].contact = contact[k][1];
      benchmark::DoNotOptimize(job.run());
    }
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_FootPlanting)->Arg(0)->Arg(1)->ArgName("plant");

}  // namespace
