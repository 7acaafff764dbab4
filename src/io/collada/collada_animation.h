// Collada animation, evaluated exactly as the 1.4.1/1.5 specifications define it: samplers
// (STEP, LINEAR, BEZIER and HERMITE with 1-D or 2-D tangents; the cubic solved in time for its
// parameter, then evaluated in value), channels addressed by node id, element sid and member
// (".ANGLE", ".X", "(i)", "(i)(j)"), the node transform stacks they drive, morph-weight channels,
// and clips (<animation_clip>, or one clip of everything). This is the reference the baked clips
// are held to (collada_bake.h). Private to src/io/collada.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "collada/collada_geometry.h"
#include "collada/collada_scene.h"
#include "marrow/math/transform.h"

namespace marrow::collada {

enum class CurveInterpolation : std::uint8_t { kStep, kLinear, kBezier, kHermite };

// One <sampler>: keys of `dim` values, an interpolation per key (for the segment that starts
// there), tangents for BEZIER/HERMITE keys (`tangent_dim` 2: time and value per component; 1:
// value only, times at thirds of the segment).
struct Curve {
  pugi::xml_node sampler;
  std::size_t dim = 1;
  std::vector<float> times;                       // non-decreasing; equal times mark a jump
  std::vector<float> values;                      // keys x dim
  std::vector<CurveInterpolation> interpolation;  // one per key
  std::size_t tangent_dim = 0;
  std::vector<float> in_tangents, out_tangents;  // keys x dim x tangent_dim
  bool all_step = false;

  // The value at `time` (dim floats); `left` asks for the limit from before `time` (differs
  // from the value at `time` only where a STEP key or a repeated time jumps there).
  void evaluate(double time, bool left, float* out) const;
  // The segment holding `time` (the last key at or before it; with `left`, before it).
  std::size_t segment(double time, bool left) const;
};

// What a channel drives: components [first, first + count) of transform element `element` of
// scene node `node`, or morph weight `target` of the meshes on `node`.
struct Binding {
  std::size_t node = 0;
  std::size_t element = 0;  // index into the node's stack
  std::size_t first = 0;
  std::size_t count = 0;
  bool weight = false;
  std::size_t target = 0;  // for weights
  // "(i)(j)" on a <matrix> (whose 16 values are stored as written, row by row): the value it
  // names read as column i, row j and as row i, column j. `first` is one of the two, chosen for
  // the whole document once every channel is bound (AnimationModel::order_matrix_elements).
  bool matrix_element = false;
  std::size_t column_i_row_j = 0;
  std::size_t row_i_column_j = 0;
};

struct Channel {
  pugi::xml_node element;  // <channel>
  std::size_t curve = 0;
  std::vector<Binding> bindings;  // one per scene node the target id names
  // The <animation>s that contain it, innermost first: what clips select.
  std::vector<const void*> animations;
};

struct ClipRange {
  std::string name;
  double start = 0, end = 0;          // in the file's time
  std::vector<std::size_t> channels;  // indices into AnimationModel::channels
};

class AnimationModel {
 public:
  // Reads <library_animations> and <library_animation_clips> against the scene and the morph
  // instances. Channels whose target is not a node transform or morph weight (materials,
  // cameras) are dropped with a warning; bad curves and references are errors.
  AnimationModel(const Document& doc, const Scene& scene, const MorphInstances& morphs,
                 const std::string& default_clip_name, std::vector<std::string>& warnings);

  const Scene& scene() const { return scene_; }
  const std::vector<Curve>& curves() const { return curves_; }
  const std::vector<Channel>& channels() const { return channels_; }
  const std::vector<ClipRange>& clips() const { return clips_; }

  // The exact local matrix of scene node `node` at file time `time` with the channels of clip
  // `clip` (the others hold their rest values); `left` for the limit from before `time`.
  DMat local(std::size_t clip, std::size_t node, double time, bool left = false) const;
  // The exact value of morph weight `target` of `node` (its default when the clip does not
  // animate it): `default_weight`.
  float weight(std::size_t clip, std::size_t node, std::size_t target, double time,
               float default_weight, bool left = false) const;

 private:
  void read_animations(const MorphInstances& morphs, std::vector<std::string>& warnings);
  void order_matrix_elements(std::vector<std::string>& warnings);
  void read_clips(const std::string& default_clip_name, std::vector<std::string>& warnings);
  Curve read_curve(pugi::xml_node sampler, std::vector<std::string>& warnings) const;
  std::vector<Binding> bind(pugi::xml_node channel, const Curve& curve,
                            const MorphInstances& morphs, std::vector<std::string>& warnings) const;

  const Document& doc_;
  const Scene& scene_;
  std::vector<Curve> curves_;
  std::vector<Channel> channels_;
  std::vector<ClipRange> clips_;
  // Per whole-matrix LINEAR curve: its keys decomposed, so that matrix keys are interpolated as
  // translation, rotation and scale rather than component by component (which shears and
  // shrinks between keys; docs/formats_collada.md).
  std::vector<std::vector<Transform>> matrix_keys_;
  // Per clip: for each scene node it animates, its (channel, binding) pairs.
  std::vector<std::unordered_map<std::size_t, std::vector<std::pair<std::size_t, std::size_t>>>>
      bindings_of_node_;

 public:
  // The (channel, binding) pairs of clip `clip` on scene node `node` (empty when none).
  const std::vector<std::pair<std::size_t, std::size_t>>& bindings(std::size_t clip,
                                                                   std::size_t node) const;
};

}  // namespace marrow::collada
