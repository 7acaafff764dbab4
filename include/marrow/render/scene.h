/// @file
/// Drawing an asset in a pose: skinned meshes deformed by their bones, rigid meshes placed by
/// their node's model matrix, in their materials (base-colour texture and factor, vertex
/// colours, alpha mask and blend), the skeleton as an overlay (or alone when the file has no
/// mesh), an optional weight heat map for one joint, and a ground plane with a grid and a soft
/// contact shadow under the character.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "marrow/base/error.h"
#include "marrow/io/material.h"
#include "marrow/render/rasterizer.h"
#include "marrow/skeleton/skeleton.h"
#include "marrow/skin/morph.h"
#include "marrow/skin/skinning.h"

namespace marrow {
struct Asset;
}

namespace marrow::render {

struct SceneStyle {
  bool skeleton = false;      ///< bones as lines and joints as dots over the mesh
  std::string weights_joint;  ///< non-empty: colour vertices by their weight for this joint
  SkinningMethod method = SkinningMethod::kLinear;
  Vec3 mesh_color{0.78f, 0.76f, 0.72f};  ///< meshes without a material
  bool textures = true;                  ///< false: materials in their flat base colour
  bool ground = true;                    ///< a ground plane, once place_ground() has placed it
  Rgb background_top{58, 64, 78};
  Rgb background_bottom{150, 156, 168};
};

/// Up and facing guessed from joint names in one pose (model matrices, one per joint):
///  - up is Y unless the head lies along Z from the feet (a Z-up source);
///  - the facing line from left/right joint pairs (the character's left is up x forward), its
/// @code
///    direction from foot-to-toe bones or, for creatures whose head leads (a quadruped), the
///    head's offset from the joints' centre; either cue alone when the other is missing; else
///    glTF's +Z (-Y for Z-up).
/// @endcode
Orientation guess_orientation(const Skeleton& skeleton, std::span<const Mat4> model);

/// Blue (0) -> cyan -> green -> yellow -> red (1).
Vec3 heat_color(float weight);

/// A line on the ground (a motion-matching script's desired and actual paths): its points taken
/// down to the ground plane and drawn as a ribbon just above it, hidden where the character stands
/// in front of it.
struct GroundPath {
  std::vector<Vec3> points;
  Vec3 color{1, 1, 1};
};

class SceneRenderer {
 public:
  /// Prepares every mesh for skinning and decodes the textures its materials use. Errors: a mesh
  /// whose skin data is invalid, a weights joint the skeleton lacks. A texture that is missing
  /// or unreadable is no error: its meshes show the material's colour, and notes() says so.
  /// The renderer keeps a pointer to `asset`, which must outlive it.
  static Result<SceneRenderer> create(const Asset& asset, const SceneStyle& style);

  /// Places every mesh (and the skeleton) in the pose given by one model matrix per joint, with
  /// `morph_weights` (one per slot of the asset's MorphLayout, skin/morph.h) applied to meshes
  /// with morph targets before skinning; empty weights show the default weights. Returns false
  /// when `model` is shorter than the skeleton.
  bool set_pose(std::span<const Mat4> model, std::span<const float> morph_weights = {});
  /// The box around what set_pose placed: mesh vertices, or joint positions when there is no
  /// mesh.
  Bounds bounds() const;
  /// Appends the extreme points (add_extreme_points) of the same: what frame_points needs.
  void extreme_points(std::vector<Vec3>& out) const;
  /// Lays a ground plane under `points` (the character's extreme points over every frame to be
  /// drawn): at their lowest point along `orientation.up`, reaching well beyond them, with a
  /// grid whose spacing is a round number near a sixth of their height. Does nothing when the
  /// style has no ground. Call before drawing; set_pose() then updates the contact shadow.
  void place_ground(std::span<const Vec3> points, const Orientation& orientation);
  bool has_ground() const { return ground_.has_value(); }
  /// Grid spacing and the ground's height along up (for tests and the docs).
  float ground_spacing() const { return ground_ ? ground_->spacing : 0; }
  float ground_level() const { return ground_ ? ground_->level : 0; }
  /// Darkness of the contact shadow (0 none .. 1) at the ground vertex nearest `point`.
  float shadow_at(Vec3 point) const;
  /// Lines drawn on the ground from now on (replacing those set before), as ribbons a fifth of a
  /// grid cell wide. Needs the ground: without one (no place_ground, or a style without ground)
  /// nothing is drawn.
  void set_ground_paths(std::span<const GroundPath> paths);

  /// Clears the image to the style's background, then draws the ground, the meshes (opaque and
  /// masked first, blended last) and the overlay.
  void draw(Rasterizer& rasterizer, const Camera& camera) const;

  bool has_meshes() const { return !meshes_.empty(); }
  /// Joints drawn by the skeleton overlay: every skin joint; without skins, the animated joints
  /// and their descendants (every joint when nothing is animated).
  std::span<const JointIndex> overlay_joints() const { return overlay_joints_; }
  /// World-space vertices of mesh i after set_pose (for tests).
  std::span<const Vec3> positions(std::size_t mesh) const { return meshes_[mesh].positions; }
  std::size_t mesh_count() const { return meshes_.size(); }
  /// Notes for the user (a weights joint no mesh is bound to).
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  struct MeshState {
    const SkinnedMesh* mesh = nullptr;
    const Skin* skin = nullptr;
    std::optional<SkinningMesh> skinning;
    std::optional<MorphMesh> morph;  ///< when the mesh has morph targets
    MorphedVertices morphed;         ///< its bind pose after the morph weights
    std::uint32_t first_weight = 0;  ///< its targets' slots in the weight array
    std::vector<Mat4> palette;
    std::vector<Vec3> positions, normals, colors;
    std::vector<float> alphas;
    Vec3 color;
    float alpha = 1;
    int texture = -1;  ///< into textures_
    AlphaMode alpha_mode = AlphaMode::kOpaque;
    float alpha_cutoff = 0.5f;
  };
  struct Ground {
    Vec3 origin, right, forward, up;  ///< origin: the corner at grid (0, 0), on the ground
    float size = 0, spacing = 1, level = 0, height = 1;
    int cells = 0;                ///< per side
    std::vector<Vec3> positions;  ///< (cells + 1)^2
    std::vector<std::uint32_t> indices;
    std::vector<std::array<float, 2>> uvs;        ///< world units / spacing
    std::vector<Vec3> colors;                     ///< ground colour darkened by the shadow
    std::vector<float> alphas;                    ///< fading out towards the edge
    std::vector<float> nearest, shadow, scratch;  ///< per cell
    std::optional<Texture> grid;
  };
  void set_materials(MeshState& state, const SkinnedMesh& mesh);
  void update_shadow();
  const Asset* asset_ = nullptr;
  SceneStyle style_;
  std::vector<MeshState> meshes_;
  std::vector<JointIndex> overlay_joints_;
  std::vector<bool> in_overlay_;
  std::vector<Vec3> joint_positions_;
  std::vector<std::string> notes_;
  std::vector<float> default_weights_;
  std::vector<std::optional<Texture>> textures_;  ///< per asset image; empty where unreadable
  std::optional<Ground> ground_;
  struct Ribbons {
    std::vector<Vec3> positions, colors;
    std::vector<std::uint32_t> indices;
  } paths_;
};

}  // namespace marrow::render
