// Drawing an asset in a pose: skinned meshes deformed by their bones, rigid meshes placed by
// their node's model matrix, the skeleton as an overlay (or alone when the file has no mesh),
// and an optional weight heat map for one joint.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "marrow/base/error.h"
#include "marrow/io/asset.h"
#include "marrow/render/rasterizer.h"
#include "marrow/skin/morph.h"
#include "marrow/skin/skinning.h"

namespace marrow::render {

struct SceneStyle {
  bool skeleton = false;      // bones as lines and joints as dots over the mesh
  std::string weights_joint;  // non-empty: colour vertices by their weight for this joint
  SkinningMethod method = SkinningMethod::kLinear;
  Vec3 mesh_color{0.78f, 0.76f, 0.72f};
  Rgb background_top{58, 64, 78};
  Rgb background_bottom{150, 156, 168};
};

// Up and facing guessed from joint names in one pose (model matrices, one per joint):
//  - up is Y unless the head lies along Z from the feet (a Z-up source);
//  - the facing line from left/right joint pairs (the character's left is up x forward), its
//    direction from foot-to-toe bones or, for creatures whose head leads (a quadruped), the
//    head's offset from the joints' centre; either cue alone when the other is missing; else
//    glTF's +Z (-Y for Z-up).
Orientation guess_orientation(const Skeleton& skeleton, std::span<const Mat4> model);

// Blue (0) -> cyan -> green -> yellow -> red (1).
Vec3 heat_color(float weight);

class SceneRenderer {
 public:
  // Prepares every mesh for skinning. Errors: a mesh whose skin data is invalid, a weights
  // joint the skeleton lacks. The renderer keeps a pointer to `asset`, which must outlive it.
  static Result<SceneRenderer> create(const Asset& asset, const SceneStyle& style);

  // Places every mesh (and the skeleton) in the pose given by one model matrix per joint, with
  // `morph_weights` (one per slot of the asset's MorphLayout, skin/morph.h) applied to meshes
  // with morph targets before skinning; empty weights show the default weights. Returns false
  // when `model` is shorter than the skeleton.
  bool set_pose(std::span<const Mat4> model, std::span<const float> morph_weights = {});
  // The box around what set_pose placed: mesh vertices, or joint positions when there is no
  // mesh.
  Bounds bounds() const;
  // Appends the extreme points (add_extreme_points) of the same: what frame_points needs.
  void extreme_points(std::vector<Vec3>& out) const;
  // Clears the image to the style's background, then draws the meshes and the overlay.
  void draw(Rasterizer& rasterizer, const Camera& camera) const;

  bool has_meshes() const { return !meshes_.empty(); }
  // Joints drawn by the skeleton overlay: every skin joint; without skins, the animated joints
  // and their descendants (every joint when nothing is animated).
  std::span<const JointIndex> overlay_joints() const { return overlay_joints_; }
  // World-space vertices of mesh i after set_pose (for tests).
  std::span<const Vec3> positions(std::size_t mesh) const { return meshes_[mesh].positions; }
  std::size_t mesh_count() const { return meshes_.size(); }
  // Notes for the user (a weights joint no mesh is bound to).
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  struct MeshState {
    const SkinnedMesh* mesh = nullptr;
    const Skin* skin = nullptr;
    std::optional<SkinningMesh> skinning;
    std::optional<MorphMesh> morph;  // when the mesh has morph targets
    MorphedVertices morphed;         // its bind pose after the morph weights
    std::uint32_t first_weight = 0;  // its targets' slots in the weight array
    std::vector<Mat4> palette;
    std::vector<Vec3> positions, normals, colors;
  };
  const Asset* asset_ = nullptr;
  SceneStyle style_;
  std::vector<MeshState> meshes_;
  std::vector<JointIndex> overlay_joints_;
  std::vector<bool> in_overlay_;
  std::vector<Vec3> joint_positions_;
  std::vector<std::string> notes_;
  std::vector<float> default_weights_;
};

}  // namespace marrow::render
