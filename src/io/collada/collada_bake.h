// Baking the exact Collada animation (collada_animation.h) into marrow clips: a node's
// transform stack becomes translation, rotation and scale tracks, and morph-weight curves become
// weight tracks, with keys placed adaptively. Each interval between the file's keys is split in
// halves until the interpolated keys (lerp, slerp, lerp) agree with the exact evaluation at a
// quarter, half and three quarters of every piece, within the tolerance; jumps (STEP keys,
// repeated times) get a key just before them. Nodes animated only by STEP curves keep STEP keys.
// Private to src/io/collada.
#pragma once

#include <string>
#include <vector>

#include "collada/collada_animation.h"
#include "marrow/clip/clip.h"
#include "marrow/io/collada.h"
#include "marrow/skin/morph.h"

namespace marrow::collada {

// The most halvings of one key interval, and how many keys one file's clips may get in all
// (a multiple of the file's own keys): past either, the bake stops refining and warns with the
// largest error it had to accept.
inline constexpr int kMaxBakeDepth = 12;
inline constexpr std::size_t kBakedKeysPerFileKey = 256;
inline constexpr std::size_t kMaxBakedKeys = 1u << 22;

struct BakeInput {
  std::string file;  // the document's name, which every error starts with
  const AnimationModel* model = nullptr;
  const Scene* scene = nullptr;
  const std::vector<JointIndex>* joint_of_node = nullptr;
  const Skeleton* skeleton = nullptr;
  const MorphLayout* morphs = nullptr;
  ColladaBakeTolerance tolerance;
  std::size_t key_budget = 0;  // shared by every clip of the file; decremented
};

// Clip `clip` of the model, with its name, duration (end - start) and times from 0.
Clip bake_clip(BakeInput& input, std::size_t clip, std::vector<std::string>& warnings);

}  // namespace marrow::collada
