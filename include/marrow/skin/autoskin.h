/// @file
/// Automatic skinning weights: binding a mesh to a skeleton without an artist.
///
/// Two methods (docs/autoskin.md):
///  - kProximity: the 2011 write-up. The nearest bone segment is a vertex's parent; inside the
/// @code
///    [L, U] part of the parent it gets that bone alone, otherwise it also gets the bones joined at
///    the nearer end, each weighted by 1 / distance to the bone's centre.
/// @endcode
///  - kHeat: bone heat diffusion (Baran & Popovic 2007): for every bone i solve
/// @code
///    (-Delta + H) w_i = H p_i on the surface, where H = c / d^2 toward the nearest bone visible
///    from the vertex (ray cast against the mesh).
/// @endcode
///
/// This is not runtime code: it allocates, uses Eigen (sparse Cholesky) and Embree (rays), and
/// lives in its own library, marrow::autoskin.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "marrow/base/error.h"
#include "marrow/math/mat4.h"
#include "marrow/skeleton/skeleton.h"
#include "marrow/skin/skinned_mesh.h"

namespace marrow::autoskin {

enum class Method { kProximity, kHeat };

/// The skeleton placed in the mesh's space.
struct Rig {
  const Skeleton* skeleton = nullptr;
  /// Model-space bind matrix of every skeleton joint (one per joint), in the mesh's coordinates.
  std::vector<Mat4> bind_model;
  /// The joints that may receive weights, in the order of the resulting Skin (its joint list).
  std::vector<JointIndex> joints;
};

/// A rig from the skeleton's rest pose: every joint of `joints` (all joints when empty) is a bone.
Result<Rig> rig_from_rest_pose(const Skeleton& skeleton, std::span<const JointIndex> joints = {});
/// A rig from an existing skin: its joints, placed where its inverse bind matrices put them (the
/// space the skin's meshes are authored in). Joints outside the skin follow their nearest skin
/// ancestor by the rest pose.
Result<Rig> rig_from_skin(const Skeleton& skeleton, const Skin& skin);

/// A bone segment. Weights that go to the segment go to `joint` (its transform moves the
/// segment). A joint with several children has several segments; a leaf joint gets a segment
/// continuing its parent's direction for half the parent's length (a point at the joint when it
/// has no parent or the parent is at the same place). bind_mesh() then stretches or shortens
/// each leaf segment to where the mesh ends in that direction (at most the parent's length).
struct Bone {
  std::uint16_t rig_joint = 0;  ///< index into Rig::joints
  Vec3 head, tail;
  JointIndex head_joint = kNoParent;  ///< skeleton joint at the head (the bone's own joint)
  JointIndex tail_joint = kNoParent;  ///< skeleton joint at the tail; kNoParent for a leaf's stub
};
std::vector<Bone> build_bones(const Rig& rig);

/// One piece of the mesh: positions and a triangle list (indices into this part's positions).
struct MeshPart {
  std::span<const Vec3> positions;
  std::span<const std::uint32_t> indices;
  std::string name;  ///< for messages
};

struct ProximityRange {
  float lower = 0.2f;  ///< L: projection fraction along the parent bone below which neighbours join
  float upper = 0.8f;  ///< U
};

struct Options {
  Method method = Method::kHeat;
  std::size_t max_influences = 4;  ///< 0 keeps all
  float min_weight = 0.01f;        ///< weights below this (after normalizing) are pruned

  /// proximity
  ProximityRange range;
  std::unordered_map<JointIndex, ProximityRange> range_overrides;  ///< by skeleton joint

  /// heat
  double heat_c = 1.0;  ///< H = c / d^2 (the paper's c)
  /// A bone counts as visible only when the direction from it to the vertex is within this
  /// cosine of the vertex normal (0 disables the test).
  double heat_cone = 0.0;
  /// Ray-cast visibility (Embree); false counts every bone as visible (for comparison).
  bool heat_visibility = true;
  /// Heat only from the nearest bone(s), and none when they are hidden (Pinocchio's rule), instead
  /// of from the nearest visible bone.
  bool heat_nearest_only = false;
  /// Bones farther than this multiple of the nearest bone's distance are not heat sources.
  double heat_reach = 2.0;
  /// A vertex that sees no bone: false leaves it without heat (its weights diffuse from its
  /// neighbours, the paper's rule); true heats it from its nearest bone regardless.
  bool heat_hidden_to_nearest = false;
  unsigned threads = 2;

  /// Positions closer than this fraction of the bounding-box diagonal are one vertex.
  float weld_tolerance = 1e-5f;

  /// Called now and then with a stage name and the fraction done in it (for long runs).
  std::function<void(std::string_view stage, float fraction)> progress;
};

/// Weights of one part, one compressed row per vertex: influences strongest-first, normalized,
/// joint indices into Rig::joints (= Skin::joints), the layout of SkinnedMesh.
struct PartWeights {
  std::vector<std::uint32_t> offsets;
  std::vector<std::uint16_t> joints;
  std::vector<float> weights;
};

struct Binding {
  std::vector<PartWeights> parts;  ///< one per input part
  Skin skin;                       ///< Rig::joints with inverse bind matrices
  std::vector<std::string> notes;  ///< what was done beyond the plain method (welds, fallbacks)
};

/// Computes weights for all parts together (vertices at the same place get the same weights, so
/// parts loaded separately move as one). Errors name the part and the place.
Result<Binding> bind_mesh(std::span<const MeshPart> parts, const Rig& rig, const Options& options);

/// How big the mesh and the skeleton are, to tell whether they are in the same units: the longest
/// side of each one's axis-aligned bounding box (the parts' vertices; the rig's bone joints where
/// the rig places them). A skeleton is a little smaller than its body (the joints lie inside it);
/// one that is several times larger or smaller was made in other units.
struct Extents {
  float mesh = 0;
  float skeleton = 0;
  /// The larger extent over the smaller (1 when equal); 0 when either is zero (a one-joint
  /// skeleton, a flat point cloud), where sizes say nothing.
  float ratio() const;
};
Extents measure_extents(std::span<const MeshPart> parts, const Rig& rig);

/// Writes a part's weights into a mesh as its influences and sets its skin index.
void apply(const PartWeights& weights, int skin_index, SkinnedMesh& mesh);

/// Keeps the `max_influences` strongest weights (0: all), drops those below `min_weight` of the
/// total, normalizes and sorts strongest-first. `joint_weights` holds (joint, weight) pairs and
/// may be modified. Never returns an empty row for a non-empty input with a positive total.
void limit_influences(std::vector<std::pair<std::uint16_t, float>>& joint_weights,
                      std::size_t max_influences, float min_weight);

}  // namespace marrow::autoskin
