/// @file
/// Collada (.dae) import, marrow's own reader (on pugixml): the node tree with every transform
/// stack, `<skin>` and `<morph>` controllers, units and up axis, and animations whose samplers are
/// evaluated as Collada 1.4.1/1.5 define them (STEP, LINEAR, BEZIER, HERMITE) and baked into
/// marrow's TRS and weight tracks within a stated tolerance. docs/formats_collada.md has the
/// mapping, the names users see, the limits and how the result compares with assimp's.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "marrow/io/asset.h"

namespace marrow {

/// How close the baked tracks stay to the exact animation, everywhere in every clip (between
/// keys too): the local transform's translation within `translation` (file units after the
/// scene's unit scale is applied at the root, i.e. in the node's own units), its rotation within
/// `rotation` radians, each scale factor within `scale` times max(1, |scale|), and morph weights
/// within `weight`. A translation tolerance of 0 means 1e-5 x the longest local translation of
/// the file's nodes, at rest or at any key (at least 1e-9).
struct ColladaBakeTolerance {
  double translation = 0;
  double rotation = 1e-5;
  double scale = 1e-5;
  double weight = 1e-5;
};

Result<Asset> read_collada(const std::string& path);
/// From memory: `name` is used in messages, and its stem names a file's only clip when the file
/// has no `<library_animation_clips>`.
Result<Asset> read_collada(std::span<const std::uint8_t> bytes, const std::string& name,
                           const ColladaBakeTolerance& tolerance = {});

/// The exact animation read_collada bakes from, kept for checking the bake (tests, tools): the
/// same file read once, its baked Asset, and the exact evaluation of every joint's local
/// transform and every morph weight at any time.
class ColladaReference {
 public:
  static Result<ColladaReference> read(std::span<const std::uint8_t> bytes, const std::string& name,
                                       const ColladaBakeTolerance& tolerance = {});
  /// What read_collada returns for the same bytes.
  const Asset& asset() const;
  /// The tolerance the bake was held to (with the translation default resolved).
  const ColladaBakeTolerance& tolerance() const;
  /// Joint `joint`'s local transform in clip `clip` at the clip's own time `time` (seconds from
  /// the clip's start, as the baked clip counts), from the file's curves: a matrix, since a
  /// transform stack may hold shear that TRS cannot.
  Mat4 local_matrix(std::size_t clip, JointIndex joint, double time) const;
  /// Morph weight `slot` (of MorphLayout::build(asset().meshes)) in clip `clip` at `time`.
  float morph_weight(std::size_t clip, std::size_t slot, double time) const;

  ColladaReference(ColladaReference&&) noexcept;
  ColladaReference& operator=(ColladaReference&&) noexcept;
  ~ColladaReference();

  struct State;

 private:
  friend Result<Asset> read_collada(std::span<const std::uint8_t>, const std::string&,
                                    const ColladaBakeTolerance&);
  ColladaReference();
  std::unique_ptr<State> state_;
};

}  // namespace marrow
