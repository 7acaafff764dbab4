// Field-by-field equality of two assets (what an archive round trip must preserve exactly).
#pragma once

#include <gtest/gtest.h>

#include "marrow/io/asset.h"

namespace formats_test {

inline void expect_same_clip(const marrow::Clip& a, const marrow::Clip& b) {
  EXPECT_EQ(a.name(), b.name());
  EXPECT_EQ(a.duration(), b.duration());
  EXPECT_EQ(a.ticks_per_second(), b.ticks_per_second());
  EXPECT_EQ(a.joint_count(), b.joint_count());
  ASSERT_EQ(a.tracks().size(), b.tracks().size()) << a.name();
  for (std::size_t t = 0; t < a.tracks().size(); ++t) {
    const marrow::Track &x = a.tracks()[t], &y = b.tracks()[t];
    EXPECT_EQ(x.joint, y.joint);
    EXPECT_EQ(x.target, y.target);
    EXPECT_EQ(x.interpolation, y.interpolation);
    EXPECT_EQ(x.key_count, y.key_count);
    const std::size_t floats =
        std::size_t{x.key_count} * marrow::floats_per_key(x.target, x.interpolation);
    for (std::size_t k = 0; k < x.key_count; ++k)
      ASSERT_EQ(a.times()[x.first_key + k], b.times()[y.first_key + k])
          << a.name() << " track " << t;
    // Step and linear rotations are normalized by ClipBuilder on every build, which may move an
    // already normalized float quaternion by an ulp; everything else must be bit for bit.
    const bool renormalized = x.target == marrow::TrackTarget::kRotation &&
                              x.interpolation != marrow::Interpolation::kCubicSpline;
    for (std::size_t k = 0; k < floats; ++k) {
      if (renormalized) {
        ASSERT_NEAR(a.values()[x.first_value + k], b.values()[y.first_value + k], 3e-7f)
            << a.name() << " track " << t;
      } else {
        ASSERT_EQ(a.values()[x.first_value + k], b.values()[y.first_value + k])
            << a.name() << " track " << t;
      }
    }
  }
  EXPECT_TRUE(std::equal(a.track_joint_names().begin(), a.track_joint_names().end(),
                         b.track_joint_names().begin(), b.track_joint_names().end()));
  EXPECT_EQ(a.weight_count(), b.weight_count());
  ASSERT_EQ(a.weight_tracks().size(), b.weight_tracks().size()) << a.name();
  for (std::size_t t = 0; t < a.weight_tracks().size(); ++t) {
    const marrow::WeightTrack &x = a.weight_tracks()[t], &y = b.weight_tracks()[t];
    EXPECT_EQ(x.node, y.node);
    EXPECT_EQ(x.interpolation, y.interpolation);
    EXPECT_EQ(x.first_weight, y.first_weight);
    ASSERT_EQ(x.weight_count, y.weight_count);
    ASSERT_EQ(x.key_count, y.key_count);
    for (std::size_t k = 0; k < x.key_count; ++k)
      ASSERT_EQ(a.times()[x.first_key + k], b.times()[y.first_key + k]) << "weight track " << t;
    for (std::size_t k = 0; k < std::size_t{x.key_count} * marrow::floats_per_key(x); ++k)
      ASSERT_EQ(a.values()[x.first_value + k], b.values()[y.first_value + k])
          << "weight track " << t;
    EXPECT_EQ(a.weight_track_node_names()[t], b.weight_track_node_names()[t]);
  }
  ASSERT_EQ(a.events().size(), b.events().size());
  for (std::size_t e = 0; e < a.events().size(); ++e) {
    EXPECT_EQ(a.events()[e].time, b.events()[e].time);
    EXPECT_EQ(a.events()[e].name, b.events()[e].name);
  }
}

inline void expect_same_asset(const marrow::Asset& a, const marrow::Asset& b) {
  ASSERT_EQ(a.skeleton.size(), b.skeleton.size());
  for (std::size_t j = 0; j < a.skeleton.size(); ++j) {
    EXPECT_EQ(a.skeleton.name(j), b.skeleton.name(j));
    EXPECT_EQ(a.skeleton.parent(j), b.skeleton.parent(j));
    // Skeleton::build normalizes rest rotations (see expect_same_clip): an ulp may move.
    const marrow::Transform &ra = a.skeleton.rest_pose()[j], &rb = b.skeleton.rest_pose()[j];
    EXPECT_EQ(ra.translation, rb.translation) << a.skeleton.name(j);
    EXPECT_EQ(ra.scale, rb.scale) << a.skeleton.name(j);
    EXPECT_NEAR(ra.rotation.x, rb.rotation.x, 3e-7f) << a.skeleton.name(j);
    EXPECT_NEAR(ra.rotation.y, rb.rotation.y, 3e-7f) << a.skeleton.name(j);
    EXPECT_NEAR(ra.rotation.z, rb.rotation.z, 3e-7f) << a.skeleton.name(j);
    EXPECT_NEAR(ra.rotation.w, rb.rotation.w, 3e-7f) << a.skeleton.name(j);
  }
  EXPECT_EQ(a.source_index, b.source_index);
  ASSERT_EQ(a.clips.size(), b.clips.size());
  for (std::size_t c = 0; c < a.clips.size(); ++c) expect_same_clip(a.clips[c], b.clips[c]);
  ASSERT_EQ(a.skins.size(), b.skins.size());
  for (std::size_t s = 0; s < a.skins.size(); ++s) {
    EXPECT_EQ(a.skins[s].name, b.skins[s].name);
    EXPECT_EQ(a.skins[s].joints, b.skins[s].joints);
    EXPECT_EQ(a.skins[s].inverse_bind_matrices, b.skins[s].inverse_bind_matrices);
    EXPECT_EQ(a.skins[s].root_hint, b.skins[s].root_hint);
  }
  ASSERT_EQ(a.meshes.size(), b.meshes.size());
  for (std::size_t m = 0; m < a.meshes.size(); ++m) {
    const marrow::SkinnedMesh &x = a.meshes[m], &y = b.meshes[m];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.node, y.node);
    EXPECT_EQ(x.skin, y.skin);
    EXPECT_EQ(x.positions, y.positions);
    EXPECT_EQ(x.normals, y.normals);
    EXPECT_EQ(x.tangents, y.tangents);
    EXPECT_EQ(x.uvs, y.uvs);
    EXPECT_EQ(x.indices, y.indices);
    EXPECT_EQ(x.influence_offsets, y.influence_offsets);
    EXPECT_EQ(x.influence_joints, y.influence_joints);
    EXPECT_EQ(x.influence_weights, y.influence_weights);
    EXPECT_EQ(x.default_morph_weights, y.default_morph_weights);
    ASSERT_EQ(x.morph_targets.size(), y.morph_targets.size()) << x.name;
    for (std::size_t t = 0; t < x.morph_targets.size(); ++t) {
      const marrow::MorphTarget &p = x.morph_targets[t], &q = y.morph_targets[t];
      EXPECT_EQ(p.name, q.name);
      EXPECT_EQ(p.vertices, q.vertices) << x.name << " target " << t;
      EXPECT_EQ(p.position_deltas, q.position_deltas) << x.name << " target " << t;
      EXPECT_EQ(p.normal_deltas, q.normal_deltas) << x.name << " target " << t;
      EXPECT_EQ(p.tangent_deltas, q.tangent_deltas) << x.name << " target " << t;
    }
  }
  EXPECT_EQ(a.warnings, b.warnings);
}

}  // namespace formats_test
