// Pictures of real assets checked for what they must show: the silhouette in the depth buffer
// against where the skinned mesh's vertices project (skinned here through the skin module and
// projected with the test's own pinhole formula), the skeleton overlay at the joints, and the
// weight heat map hot at the chosen joint and cold far from it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "marrow/io/asset.h"
#include "marrow/io/pose_dump.h"
#include "marrow/render/scene.h"
#include "marrow/skin/skinning.h"
#include "shared_asset.h"

using namespace marrow;
using namespace marrow::render;

namespace {

std::string shared(const std::string& relative) {
  return marrow::test::shared_asset_path(relative);
}

#define LOAD_OR_SKIP(var, relative)                                                  \
  const std::string var##_path = shared(relative);                                   \
  if (!std::filesystem::exists(var##_path)) GTEST_SKIP() << var##_path << " absent"; \
  Result<Asset> var##_result = load_asset(var##_path);                               \
  ASSERT_TRUE(var##_result.ok()) << var##_result.error().message;                    \
  const Asset& var = *var##_result;

struct Point {
  float x, y;
};

// The test's own projection: view transform, then x_ndc = x f / (aspect (-z)), y likewise,
// then pixels with rows going down.
Point project(const Camera& camera, Vec3 p, int w, int h) {
  const Vec3 v = transform_point(camera.view, p);
  const float f = 1 / std::tan(camera.vertical_fov / 2);
  const float x = v.x * f / camera.aspect / -v.z, y = v.y * f / -v.z;
  return {(x * 0.5f + 0.5f) * w, (0.5f - y * 0.5f) * h};
}

// Every mesh of the asset skinned (or placed rigidly) in the pose, through the skin module.
std::vector<Vec3> skinned_vertices(const Asset& asset, std::span<const Mat4> model,
                                   SkinningMethod method = SkinningMethod::kLinear) {
  std::vector<Vec3> all;
  for (const SkinnedMesh& mesh : asset.meshes) {
    std::vector<Vec3> out(mesh.vertex_count());
    if (mesh.skin >= 0) {
      const Skin& skin = asset.skins[static_cast<std::size_t>(mesh.skin)];
      std::vector<Mat4> palette(skin.joints.size());
      EXPECT_TRUE(compute_skinning_palette(skin, model, palette));
      Result<SkinningMesh> prepared = SkinningMesh::build(mesh, skin.joints.size());
      EXPECT_TRUE(prepared.ok());
      if (!prepared) continue;
      EXPECT_TRUE(
          skin_reference(*prepared, palette, method, {out, {}, {}}, 0, mesh.vertex_count()));
    } else {
      for (std::size_t v = 0; v < out.size(); ++v) {
        out[v] = transform_point(model[mesh.node], mesh.positions[v]);
      }
    }
    all.insert(all.end(), out.begin(), out.end());
  }
  return all;
}

struct Silhouette {
  int covered = 0;
  int min_x = 1 << 30, max_x = -1, min_y = 1 << 30, max_y = -1;
  std::vector<bool> mask;
};

Silhouette silhouette_of(const Rasterizer& r) {
  Silhouette s;
  s.mask.assign(r.depth().size(), false);
  for (int y = 0; y < r.height(); ++y) {
    for (int x = 0; x < r.width(); ++x) {
      if (r.depth()[static_cast<std::size_t>(y) * r.width() + x] >= 1.0f) continue;
      s.mask[static_cast<std::size_t>(y) * r.width() + x] = true;
      ++s.covered;
      s.min_x = std::min(s.min_x, x);
      s.max_x = std::max(s.max_x, x);
      s.min_y = std::min(s.min_y, y);
      s.max_y = std::max(s.max_y, y);
    }
  }
  return s;
}

struct Shot {
  Camera camera;
  Silhouette silhouette;
  std::vector<Vec3> vertices;
  std::vector<Mat4> model;
};

// Renders clip `clip` at time t from `preset`, framed on this pose alone.
Shot shoot(const Asset& asset, const std::string& clip, float t, CameraPreset preset, int w, int h,
           Rasterizer& r, const SceneStyle& style = {}) {
  const auto index = asset.find_clip(clip);
  EXPECT_TRUE(index.has_value()) << clip;
  const float times[] = {t};
  Shot shot;
  shot.model = sample_world(asset, static_cast<int>(index.value_or(0)), times).world[0];
  Result<SceneRenderer> scene = SceneRenderer::create(asset, style);
  EXPECT_TRUE(scene.ok());
  scene->set_pose(shot.model);
  std::vector<Vec3> extremes;
  scene->extreme_points(extremes);
  shot.camera = frame_points(extremes, preset, static_cast<float>(w) / h,
                             guess_orientation(asset.skeleton, shot.model));
  scene->draw(r, shot.camera);
  shot.silhouette = silhouette_of(r);
  shot.vertices = skinned_vertices(asset, shot.model, style.method);
  return shot;
}

// What a silhouette must show: its bounding box where the vertices' box projects (within
// `slack` pixels: a thin tip may cover no pixel centre), every vertex near a covered pixel,
// and a body that fills a plausible part of its box.
void expect_silhouette_matches(const Shot& shot, int w, int h, float slack) {
  const Silhouette& s = shot.silhouette;
  ASSERT_GT(s.covered, 0);
  float min_x = 1e30f, max_x = -1e30f, min_y = 1e30f, max_y = -1e30f;
  int far_from_silhouette = 0;
  for (const Vec3& v : shot.vertices) {
    const Point p = project(shot.camera, v, w, h);
    min_x = std::min(min_x, p.x);
    max_x = std::max(max_x, p.x);
    min_y = std::min(min_y, p.y);
    max_y = std::max(max_y, p.y);
    // A covered pixel within 2 pixels of the vertex.
    bool near = false;
    for (int dy = -2; dy <= 2 && !near; ++dy) {
      for (int dx = -2; dx <= 2 && !near; ++dx) {
        const int x = static_cast<int>(std::floor(p.x)) + dx,
                  y = static_cast<int>(std::floor(p.y)) + dy;
        near = x >= 0 && y >= 0 && x < w && y < h && s.mask[static_cast<std::size_t>(y) * w + x];
      }
    }
    far_from_silhouette += !near;
  }
  // The camera frames the pose: every vertex projects inside the image.
  EXPECT_GE(min_x, 0);
  EXPECT_LE(max_x, w);
  EXPECT_GE(min_y, 0);
  EXPECT_LE(max_y, h);
  // Covered pixels are pixels whose centre (x + 0.5) lies inside a projected triangle.
  EXPECT_NEAR(s.min_x + 0.5f, min_x, slack);
  EXPECT_NEAR(s.max_x + 0.5f, max_x, slack);
  EXPECT_NEAR(s.min_y + 0.5f, min_y, slack);
  EXPECT_NEAR(s.max_y + 0.5f, max_y, slack);
  EXPECT_EQ(far_from_silhouette, 0) << "of " << shot.vertices.size() << " vertices";
  const float box = (max_x - min_x) * (max_y - min_y);
  EXPECT_GT(s.covered, 0.15f * box);
  EXPECT_LT(s.covered, 0.95f * box);
  // The framing is tight: the silhouette spans most of the image along one axis (the margin
  // leaves 1/1.08 of it; oblique views of a long body a little less).
  EXPECT_GT(std::max((max_x - min_x) / w, (max_y - min_y) / h), 0.7f);
}

int differing(const Silhouette& a, const Silhouette& b) {
  int n = 0;
  for (std::size_t i = 0; i < a.mask.size(); ++i) n += a.mask[i] != b.mask[i];
  return n;
}

}  // namespace

TEST(RenderAssets, SoldierWalkSilhouetteIsTheSkinnedMesh) {
  LOAD_OR_SKIP(asset, "gltf/Soldier.glb");
  constexpr int kW = 120, kH = 160;
  Rasterizer r(kW, kH);
  const Shot a = shoot(asset, "Walk", 0.0f, CameraPreset::kFront, kW, kH, r);
  expect_silhouette_matches(a, kW, kH, 2.5f);
  const Shot b = shoot(asset, "Walk", 0.5f, CameraPreset::kSide, kW, kH, r);
  expect_silhouette_matches(b, kW, kH, 2.5f);
  // A standing character seen from the front is taller than wide.
  EXPECT_GT(a.silhouette.max_y - a.silhouette.min_y, a.silhouette.max_x - a.silhouette.min_x);
}

TEST(RenderAssets, SoldierDualQuaternionSilhouette) {
  // --skinning dq: the picture is the dual-quaternion skinned mesh.
  LOAD_OR_SKIP(asset, "gltf/Soldier.glb");
  constexpr int kW = 96, kH = 128;
  Rasterizer r(kW, kH);
  SceneStyle style;
  style.method = SkinningMethod::kDualQuaternion;
  const Shot shot = shoot(asset, "Run", 0.3f, CameraPreset::kThreeQuarter, kW, kH, r, style);
  expect_silhouette_matches(shot, kW, kH, 2.5f);
}

TEST(RenderAssets, SoldierPosesDiffer) {
  LOAD_OR_SKIP(asset, "gltf/Soldier.glb");
  constexpr int kW = 96, kH = 96;
  Rasterizer r(kW, kH);
  // Run at two times a quarter-cycle apart from the same side: the legs move.
  const Shot a = shoot(asset, "Run", 0.0f, CameraPreset::kSide, kW, kH, r);
  const Shot b = shoot(asset, "Run", 0.2f, CameraPreset::kSide, kW, kH, r);
  EXPECT_GT(differing(a.silhouette, b.silhouette), 150);
}

TEST(RenderAssets, WusonSilhouetteIsTheSkinnedMesh) {
  LOAD_OR_SKIP(asset, "x/Testwuson.X");
  ASSERT_FALSE(asset.clips.empty());
  constexpr int kW = 128, kH = 96;
  Rasterizer r(kW, kH);
  const std::string clip = asset.clips[0].name();
  const Shot a = shoot(asset, clip, 0.0f, CameraPreset::kAuto, kW, kH, r);
  expect_silhouette_matches(a, kW, kH, 2.5f);
  const Shot b = shoot(asset, clip, 0.4f, CameraPreset::kSide, kW, kH, r);
  expect_silhouette_matches(b, kW, kH, 2.5f);
  // The quadruped seen from its side is longer than tall.
  EXPECT_GT(b.silhouette.max_x - b.silhouette.min_x, b.silhouette.max_y - b.silhouette.min_y);
}

TEST(RenderAssets, SkeletonOverlayMarksTheJoints) {
  LOAD_OR_SKIP(asset, "gltf/Soldier.glb");
  constexpr int kW = 160, kH = 160;
  Rasterizer r(kW, kH);
  SceneStyle style;
  style.skeleton = true;
  const Shot shot = shoot(asset, "Walk", 0.25f, CameraPreset::kFront, kW, kH, r, style);
  const Rgb joint{230, 60, 40};
  int marked = 0, joints = 0;
  for (JointIndex j :
       {*asset.skeleton.find("mixamorig:Hips"), *asset.skeleton.find("mixamorig:Head"),
        *asset.skeleton.find("mixamorig:LeftFoot"), *asset.skeleton.find("mixamorig:RightHand")}) {
    const Point p = project(shot.camera, shot.model[j].translation(), kW, kH);
    ++joints;
    marked += r.image().at(static_cast<int>(p.x), static_cast<int>(p.y)) == joint;
  }
  EXPECT_EQ(marked, joints);
}

TEST(RenderAssets, WeightHeatMapIsHotAtItsJoint) {
  LOAD_OR_SKIP(asset, "gltf/Soldier.glb");
  constexpr int kW = 160, kH = 160;
  Rasterizer r(kW, kH);
  SceneStyle style;
  style.weights_joint = "mixamorig:Head";
  const Shot shot = shoot(asset, "Idle", 0.0f, CameraPreset::kFront, kW, kH, r, style);
  // Just above the head joint lies head geometry weighted ~1 to the head: red dominates. At
  // the feet, blue.
  const Mat4& head = shot.model[*asset.skeleton.find("mixamorig:Head")];
  const Mat4& foot = shot.model[*asset.skeleton.find("mixamorig:LeftFoot")];
  const Point ph = project(shot.camera, head.translation(), kW, kH);
  const Point pf = project(shot.camera, foot.translation(), kW, kH);
  const Rgb hot = r.image().at(static_cast<int>(ph.x), static_cast<int>(ph.y) - 3);
  const Rgb cold = r.image().at(static_cast<int>(pf.x), static_cast<int>(pf.y));
  EXPECT_GT(hot.r, hot.b + 40) << int(hot.r) << " " << int(hot.g) << " " << int(hot.b);
  EXPECT_GT(cold.b, cold.r + 40) << int(cold.r) << " " << int(cold.g) << " " << int(cold.b);
  // An unknown joint is an error naming it.
  style.weights_joint = "NoSuchJoint";
  Result<SceneRenderer> bad = SceneRenderer::create(asset, style);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("NoSuchJoint"), std::string::npos);
}

TEST(RenderAssets, BvhWithoutMeshDrawsItsSkeleton) {
  LOAD_OR_SKIP(asset, "bvh/01_01.bvh");
  ASSERT_TRUE(asset.meshes.empty());
  constexpr int kW = 96, kH = 96;
  Rasterizer r(kW, kH);
  const Shot shot = shoot(asset, "0", 1.0f, CameraPreset::kFront, kW, kH, r);
  Result<SceneRenderer> scene = SceneRenderer::create(asset, {});
  ASSERT_TRUE(scene.ok());
  const Rgb joint{230, 60, 40};
  int marked = 0;
  for (JointIndex j : scene->overlay_joints()) {
    const Point p = project(shot.camera, shot.model[j].translation(), kW, kH);
    ASSERT_GE(p.x, 0);
    ASSERT_LT(p.x, kW);
    ASSERT_GE(p.y, 0);
    ASSERT_LT(p.y, kH);
    marked += r.image().at(static_cast<int>(p.x), static_cast<int>(p.y)) == joint;
  }
  EXPECT_EQ(marked, static_cast<int>(scene->overlay_joints().size()));
}

TEST(RenderAssets, OrientationFromJointNames) {
  {
    LOAD_OR_SKIP(soldier, "gltf/Soldier.glb");  // Mixamo export facing -Z (Idle stands turned)
    const float t[] = {0};
    const auto model =
        sample_world(soldier, static_cast<int>(*soldier.find_clip("Walk")), t).world[0];
    const Orientation o = guess_orientation(soldier.skeleton, model);
    EXPECT_NEAR(o.up.y, 1, 1e-6f);
    EXPECT_LT(o.forward.z, -0.9f);
  }
  {
    LOAD_OR_SKIP(xbot, "gltf/Xbot.glb");  // facing +Z
    const float t[] = {0};
    const auto model = sample_world(xbot, 0, t).world[0];
    EXPECT_GT(guess_orientation(xbot.skeleton, model).forward.z, 0.9f);
  }
  {
    // Its head leads towards -Z; its _L joints lie at +X, so left/right alone would say +Z
    // (the .X importer mirrors handedness): the head settles the direction.
    LOAD_OR_SKIP(wuson, "x/Testwuson.X");
    const float t[] = {0};
    const auto model = sample_world(wuson, 0, t).world[0];
    EXPECT_LT(guess_orientation(wuson.skeleton, model).forward.z, -0.9f);
  }
}

TEST(RenderAssets, FbxWithoutMeshDrawsItsSkeletonNotItsCameras) {
  // walk.fbx keeps 3ds Max's cameras, sky and their targets as nodes (some animated), hundreds
  // of units from the character: the overlay is the character's skeleton alone, so the
  // framing is the character's.
  LOAD_OR_SKIP(asset, "fbx/walk.fbx");
  ASSERT_TRUE(asset.meshes.empty());
  Result<SceneRenderer> scene = SceneRenderer::create(asset, {});
  ASSERT_TRUE(scene.ok());
  std::vector<std::string> names;
  for (JointIndex j : scene->overlay_joints()) names.push_back(asset.skeleton.name(j));
  auto has_name = [&](const std::string& n) {
    return std::find(names.begin(), names.end(), n) != names.end();
  };
  EXPECT_TRUE(has_name("Hips"));
  EXPECT_TRUE(has_name("Head"));
  EXPECT_FALSE(has_name("Camera01"));
  EXPECT_FALSE(has_name("Camera01.Target"));
  EXPECT_FALSE(has_name("Sky01"));
  // The character (about 180 units tall) fills the frame's height.
  constexpr int kW = 80, kH = 80;
  Rasterizer r(kW, kH);
  const Shot shot = shoot(asset, "walk", 0.5f, CameraPreset::kFront, kW, kH, r);
  float low = 1e30f, high = -1e30f;
  for (JointIndex j : scene->overlay_joints()) {
    const Point p = project(shot.camera, shot.model[j].translation(), kW, kH);
    low = std::min(low, p.y);
    high = std::max(high, p.y);
  }
  EXPECT_GT(high - low, 0.75f * kH);
}

TEST(RenderAssets, CameraFramesTheWholeAnimation) {
  // box_animated.gltf moves its parts over the clip: framed on extreme points of frames spread
  // over the range (as marrow render does), every vertex of every frame projects inside the
  // image, and some frame reaches near the margin (the framing is not loose).
  LOAD_OR_SKIP(asset, "gltf/box_animated.gltf");
  ASSERT_FALSE(asset.clips.empty());
  constexpr int kW = 100, kH = 80, kFrames = 40;
  const float duration = asset.clips[0].duration();
  std::vector<float> times;
  for (int f = 0; f < kFrames; ++f) times.push_back(duration * f / (kFrames - 1));
  const PoseSamples poses = sample_world(asset, 0, times);
  Result<SceneRenderer> scene = SceneRenderer::create(asset, {});
  ASSERT_TRUE(scene.ok());
  std::vector<Vec3> extremes;
  for (const auto& pose : poses.world) {
    scene->set_pose(pose);
    scene->extreme_points(extremes);
  }
  for (CameraPreset preset : {CameraPreset::kAuto, CameraPreset::kFront, CameraPreset::kTop}) {
    const Camera camera = frame_points(extremes, preset, static_cast<float>(kW) / kH,
                                       guess_orientation(asset.skeleton, poses.world[0]));
    float reach = 0;
    for (const auto& pose : poses.world) {
      for (const Vec3& v : skinned_vertices(asset, pose)) {
        const Point p = project(camera, v, kW, kH);
        ASSERT_GE(p.x, -0.01f);
        ASSERT_LE(p.x, kW + 0.01f);
        ASSERT_GE(p.y, -0.01f);
        ASSERT_LE(p.y, kH + 0.01f);
        reach = std::max({reach, std::fabs(p.x / kW - 0.5f) * 2, std::fabs(p.y / kH - 0.5f) * 2});
      }
    }
    EXPECT_GT(reach, 0.8f) << static_cast<int>(preset);
  }
}

TEST(RenderAssets, GroundLiesUnderTheFeetWithAContactShadowWhereTheyTouch) {
  LOAD_OR_SKIP(soldier, "gltf/Soldier.glb");
  const float times[] = {0.0f};
  const auto walk = soldier.find_clip("Walk");
  ASSERT_TRUE(walk.has_value());
  const PoseSamples pose = sample_world(soldier, static_cast<int>(*walk), times);
  Result<SceneRenderer> scene = SceneRenderer::create(soldier, {});
  ASSERT_TRUE(scene.ok());
  scene->set_pose(pose.world[0]);
  const std::vector<Vec3> vertices = skinned_vertices(soldier, pose.world[0]);
  std::vector<Vec3> extremes;
  scene->extreme_points(extremes);
  const Orientation orientation = guess_orientation(soldier.skeleton, pose.world[0]);
  EXPECT_FALSE(scene->has_ground());
  scene->place_ground(extremes, orientation);
  ASSERT_TRUE(scene->has_ground());
  // The ground is at the lowest vertex along up (Y), and the grid a round number (1, 2 or 5
  // times a power of ten) near a sixth of the height: between 2 and 9 cells per height.
  float low = 1e30f, high = -1e30f;
  Vec3 lowest;
  for (const Vec3& v : vertices) {
    if (v.y < low) lowest = v;
    low = std::min(low, v.y);
    high = std::max(high, v.y);
  }
  EXPECT_NEAR(scene->ground_level(), low, 1e-4f);
  const float spacing = scene->ground_spacing();
  const float mantissa = spacing / std::pow(10.0f, std::floor(std::log10(spacing) + 1e-4f));
  EXPECT_TRUE(std::fabs(mantissa - 1) < 1e-3f || std::fabs(mantissa - 2) < 1e-3f ||
              std::fabs(mantissa - 5) < 1e-3f)
      << spacing;
  EXPECT_GT((high - low) / spacing, 2.0f);
  EXPECT_LT((high - low) / spacing, 9.0f);
  // Dark under the foot that touches the ground; no shadow a body height away from it.
  EXPECT_GT(scene->shadow_at(lowest), 0.2f);
  EXPECT_EQ(scene->shadow_at(lowest + Vec3{high - low, 0, 0}), 0.0f);
  // Drawn: the pixel under the lowest vertex's neighbourhood is ground, darker than open ground
  // at the same depth.
  Rasterizer with(160, 160);
  const Camera camera = frame_points(extremes, CameraPreset::kFront, 1, orientation);
  scene->draw(with, camera);
  SceneStyle no_ground;
  no_ground.ground = false;
  Result<SceneRenderer> bare = SceneRenderer::create(soldier, no_ground);
  ASSERT_TRUE(bare.ok());
  bare->set_pose(pose.world[0]);
  bare->place_ground(extremes, orientation);
  EXPECT_FALSE(bare->has_ground());
  Rasterizer without(160, 160);
  bare->draw(without, camera);
  // Bottom corners: ground in one picture, the background gradient in the other.
  EXPECT_NE(with.image().at(80, 158), without.image().at(80, 158));
  EXPECT_EQ(without.image().at(2, 158), without.image().at(157, 158));
}
