// FBX and Collada through assimp: skeletons, clips, skins, and the two formats against each other.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "assimp_test_util.h"
#include "marrow/io/asset.h"

namespace marrow {
namespace {

using test::asset_path;

const char* const kFbxFiles[] = {
    "walk", "jog", "run", "crossarms", "skeleton", "arnaud", "animation_with_skeleton"};

Asset load(const std::string& path) {
  Result<Asset> asset = read_assimp(path);
  EXPECT_TRUE(asset.ok()) << (asset.ok() ? "" : asset.error().message);
  return asset.ok() ? std::move(asset).value() : Asset{};
}

std::vector<std::string> names(const Asset& a) {
  return {a.skeleton.names().begin(), a.skeleton.names().end()};
}

TEST(AssimpFbx, NoHelperNodesAndExpectedJointCounts) {
  const std::size_t expected[] = {77, 77, 77, 77, 71, 56, 21};
  for (std::size_t i = 0; i < std::size(kFbxFiles); ++i) {
    const std::string path = asset_path(std::string("fbx/") + kFbxFiles[i] + ".fbx");
    MARROW_REQUIRE_ASSET(path);
    SCOPED_TRACE(path);
    const Asset a = load(path);
    EXPECT_EQ(a.skeleton.size(), expected[i]);
    for (const std::string& n : a.skeleton.names()) {
      EXPECT_EQ(n.find("$AssimpFbx$"), std::string::npos) << n;
    }
    EXPECT_EQ(a.source_index.size(), a.skeleton.size());
    EXPECT_EQ(a.skeleton.name(0), "RootNode");
  }
}

TEST(AssimpFbx, ProAnimationBankClipsShareOneSkeleton) {
  const std::string walk_path = asset_path("fbx/walk.fbx");
  MARROW_REQUIRE_ASSET(walk_path);
  const Asset walk = load(walk_path);
  ASSERT_EQ(walk.skeleton.size(), 77u);
  EXPECT_EQ(walk.skeleton.name(7), "Hips");
  for (const char* other : {"jog", "run", "crossarms"}) {
    const std::string path = asset_path(std::string("fbx/") + other + ".fbx");
    MARROW_REQUIRE_ASSET(path);
    EXPECT_EQ(names(load(path)), names(walk)) << path;
  }
  // skeleton.fbx and skeleton.dae carry the same character joints; only the end "Nub" joints
  // are spelled with spaces there ("Bip01 L Finger0Nub" against "Bip01LFinger0Nub").
  auto squeeze = [](std::string s) {
    s.erase(std::remove(s.begin(), s.end(), ' '), s.end());
    return s;
  };
  for (const char* skel : {"fbx/skeleton.fbx", "collada/pab/skeleton.dae"}) {
    const std::string path = asset_path(skel);
    MARROW_REQUIRE_ASSET(path);
    const Asset s = load(path);
    std::set<std::string> have;
    for (const std::string& n : s.skeleton.names()) have.insert(squeeze(n));
    const JointIndex hips = *walk.skeleton.find("Hips");
    std::size_t checked = 0;
    for (std::size_t j = 0; j < walk.skeleton.size(); ++j) {
      if (!walk.skeleton.is_descendant(static_cast<JointIndex>(j), hips)) continue;
      if (walk.skeleton.name(j) == "Bip01 Footsteps") continue;  // a Biped helper, animation only
      EXPECT_TRUE(have.count(squeeze(walk.skeleton.name(j))))
          << skel << " lacks " << walk.skeleton.name(j);
      ++checked;
    }
    EXPECT_EQ(checked, 67u);
  }
}

TEST(AssimpFbx, ClipNamesDurationsAndRates) {
  struct Expect {
    const char* file;
    const char* clip;
    double frames;
    double fps;
  };
  const Expect expected[] = {{"walk", "walk", 40, 30},
                             {"jog", "jog", 24, 30},
                             {"run", "run", 20, 30},
                             {"crossarms", "crossarms", 258, 30},
                             {"skeleton", "Take 001", 150, 30},
                             {"animation_with_skeleton", "Armature|ArmatureAction", 20, 24}};
  for (const Expect& e : expected) {
    const std::string path = asset_path(std::string("fbx/") + e.file + ".fbx");
    MARROW_REQUIRE_ASSET(path);
    SCOPED_TRACE(path);
    const Asset a = load(path);
    ASSERT_EQ(a.clips.size(), 1u);
    EXPECT_EQ(a.clips[0].name(), e.clip);
    EXPECT_NEAR(a.clips[0].duration(), e.frames / e.fps, 1e-5);
    EXPECT_EQ(a.clips[0].ticks_per_second(), e.fps);
    // Key times stay inside the take (jog/run/crossarms carry sub-frame keys: assimp takes
    // the union of the X/Y/Z curve times of a node, see docs/formats_assimp.md).
    for (float t : a.clips[0].times()) {
      EXPECT_GE(t, 0.0f);
      EXPECT_LE(t, a.clips[0].duration() + 1e-5f);
    }
  }
  const std::string arnaud = asset_path("fbx/arnaud.fbx");
  MARROW_REQUIRE_ASSET(arnaud);
  EXPECT_TRUE(load(arnaud).clips.empty());
}

TEST(AssimpFbx, RotationKeysAreHemisphereConsistent) {
  for (const char* f : {"walk", "crossarms", "animation_with_skeleton"}) {
    const std::string path = asset_path(std::string("fbx/") + f + ".fbx");
    MARROW_REQUIRE_ASSET(path);
    const Asset a = load(path);
    for (const Clip& clip : a.clips) {
      const auto v = clip.values();
      for (const Track& t : clip.tracks()) {
        if (t.target != TrackTarget::kRotation) continue;
        for (std::uint32_t k = 1; k < t.key_count; ++k) {
          const float* p = &v[t.first_value + (k - 1) * 4];
          const float* q = &v[t.first_value + k * 4];
          EXPECT_GE(p[0] * q[0] + p[1] * q[1] + p[2] * q[2] + p[3] * q[3], 0.0f) << path;
        }
      }
    }
  }
}

TEST(AssimpFbx, SkinWeightsAreNormalizedStrongestFirst) {
  const std::string path = asset_path("fbx/skeleton.fbx");
  MARROW_REQUIRE_ASSET(path);
  const Asset a = load(path);
  ASSERT_EQ(a.meshes.size(), 1u);
  ASSERT_EQ(a.skins.size(), 1u);
  const SkinnedMesh& m = a.meshes[0];
  EXPECT_EQ(m.name, "GENERIC MAN new");
  EXPECT_EQ(a.skeleton.name(m.node), "GENERIC MAN new");
  EXPECT_EQ(m.skin, 0);
  EXPECT_EQ(a.skins[0].joints.size(), 53u);
  EXPECT_EQ(a.skins[0].inverse_bind_matrices.size(), 53u);
  EXPECT_EQ(m.vertex_count(), 8433u);
  EXPECT_EQ(m.indices.size(), 2811u * 3);
  ASSERT_EQ(m.influence_offsets.size(), m.vertex_count() + 1);
  for (std::size_t v = 0; v < m.vertex_count(); ++v) {
    float sum = 0;
    for (std::uint32_t i = m.influence_offsets[v]; i < m.influence_offsets[v + 1]; ++i) {
      sum += m.influence_weights[i];
      EXPECT_LT(m.influence_joints[i], a.skins[0].joints.size());
      if (i > m.influence_offsets[v]) {
        EXPECT_LE(m.influence_weights[i], m.influence_weights[i - 1]);
      }
    }
    if (m.influence_offsets[v + 1] > m.influence_offsets[v]) {
      EXPECT_NEAR(sum, 1.0f, 1e-5f);
    }
  }
  // The inverse bind matrix of a skin joint undoes that joint's bind-pose global transform: the
  // skin's root joint (Hips) must map its own origin near the origin of bind space.
  for (std::size_t s = 0; s < a.skins[0].joints.size(); ++s) {
    for (float f : a.skins[0].inverse_bind_matrices[s].m) EXPECT_TRUE(std::isfinite(f));
  }
}

// walk.dae: LeftLeg's <matrix> key 20 at 0.666667 s, row-major as the file writes it
// (library_animations, "LeftLeg-Matrix-animation-output-transform-array", floats 320..335).
TEST(AssimpCollada, LocalTransformMatchesTheFileAtAKey) {
  const std::string path = asset_path("collada/pab/walk.dae");
  MARROW_REQUIRE_ASSET(path);
  const Asset a = load(path);
  ASSERT_EQ(a.clips.size(), 1u);
  const float file_rows[16] = {0.348551f,  0.937290f, 0.000000f, 47.142189f, -0.937290f, 0.348551f,
                               -0.000000f, 0.000000f, 0.000000f, -0.000000f, 1.000000f,  0.000000f,
                               0.000000f,  0.000000f, 0.000000f, 1.000000f};
  const auto joint = a.skeleton.find("LeftLeg");
  ASSERT_TRUE(joint);
  const Mat4 m = to_matrix(test::local_pose(a, a.clips[0], 0.666667f)[*joint]);
  for (int row = 0; row < 4; ++row)
    for (int col = 0; col < 4; ++col)
      EXPECT_NEAR(m(row, col), file_rows[row * 4 + col], 2e-5f) << row << "," << col;
}

TEST(AssimpCollada, WalkClipSkeletonAndUnits) {
  const std::string path = asset_path("collada/pab/walk.dae");
  MARROW_REQUIRE_ASSET(path);
  const Asset a = load(path);
  EXPECT_EQ(a.skeleton.size(), 78u);
  EXPECT_EQ(a.skeleton.name(0), "KFbxScene");
  ASSERT_EQ(a.clips.size(), 1u);
  // assimp names the merged clip after its first node ("Camera01"); we use the file's stem.
  EXPECT_EQ(a.clips[0].name(), "walk");
  // The cameras Camera02(.Target) carry 58 keys up to 1.9 s; the character's 41 keys end at 1.3333
  // s.
  EXPECT_NEAR(a.clips[0].duration(), 1.9f, 1e-5f);
  EXPECT_EQ(a.clips[0].ticks_per_second(), 0.0);  // Collada counts in seconds
  // <unit meter="0.01"/>: assimp puts the unit scale on the root node.
  EXPECT_NEAR(a.skeleton.rest_pose()[0].scale.x, 0.01f, 1e-7f);
  const auto hips = *a.skeleton.find("Hips");
  std::size_t hips_keys = 0;
  for (const Track& t : a.clips[0].tracks())
    if (t.joint == hips && t.target == TrackTarget::kTranslation) hips_keys = t.key_count;
  EXPECT_EQ(hips_keys, 41u);
}

// The Collada and the FBX walk are the same motion from the same bank. FBX keeps centimetres on
// an identity root; Collada's root carries <unit meter="0.01"/> as a 0.01 scale.
TEST(AssimpCollada, AgreesWithFbxWalkOnGlobalPositions) {
  const std::string dae_path = asset_path("collada/pab/walk.dae");
  const std::string fbx_path = asset_path("fbx/walk.fbx");
  MARROW_REQUIRE_ASSET(dae_path);
  MARROW_REQUIRE_ASSET(fbx_path);
  const Asset dae = load(dae_path);
  const Asset fbx = load(fbx_path);
  ASSERT_FALSE(dae.clips.empty());
  ASSERT_FALSE(fbx.clips.empty());
  const JointIndex hips = *fbx.skeleton.find("Hips");
  for (float t : {0.0f, 0.25f, 0.5f, 0.8f, 1.0f, 1.3333f}) {
    const auto md = test::model_pose(dae, dae.clips[0], t);
    const auto mf = test::model_pose(fbx, fbx.clips[0], t);
    std::size_t compared = 0;
    for (std::size_t j = 0; j < fbx.skeleton.size(); ++j) {
      if (!fbx.skeleton.is_descendant(static_cast<JointIndex>(j), hips)) continue;
      const auto jd = dae.skeleton.find(fbx.skeleton.name(j));
      ASSERT_TRUE(jd) << fbx.skeleton.name(j);
      const Vec3 pf = mf[j].translation() * 0.01f;
      const Vec3 pd = md[*jd].translation();
      EXPECT_LT(length(pf - pd), 1e-4f) << fbx.skeleton.name(j) << " at " << t << "s";
      ++compared;
    }
    EXPECT_EQ(compared, 68u);
  }
}

TEST(AssimpLoad, LoadAssetDispatchesByExtension) {
  const std::string path = asset_path("fbx/run.fbx");
  MARROW_REQUIRE_ASSET(path);
  Result<Asset> a = load_asset(path);
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->clips.size(), 1u);
  EXPECT_EQ(a->source, path);
}

}  // namespace
}  // namespace marrow
