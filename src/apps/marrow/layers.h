// `--layer CLIP[:weight=W][:mode=normal|override|additive][:mask=ROOT|!ROOT|auto][:time=T]
// [:ref=rest|T]`: a blend stack described on the command line, and its evaluation.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "marrow/base/error.h"
#include "marrow/clip/sampling.h"
#include "marrow/io/asset.h"
#include "marrow/io/pose_dump.h"

namespace marrow::cli {

enum class LayerMode { kNormal, kOverride, kAdditive };

struct LayerSpec {
  std::string clip;  // name or index
  float weight = 1;
  LayerMode mode = LayerMode::kNormal;
  std::string mask;                     // "", a subtree root, "!root" for its inverse, or "auto"
  std::optional<float> time;            // a fixed time instead of the sample times
  std::optional<float> reference_time;  // additive reference: a frame of the clip, else rest
};

// Parses one --layer value. Joint names may contain ':' (Mixamo's "mixamorig:Hips"), so the
// value is split only before the known keys.
Result<LayerSpec> parse_layer(const std::string& text);

// A blend stack resolved against an asset: clips found, masks and additive clips built.
class LayerStack {
 public:
  static Result<LayerStack> build(const Asset& asset, const std::vector<LayerSpec>& specs);
  // Global transforms at each time (each layer at its own fixed time when it has one).
  PoseSamples sample(std::span<const float> times, WrapMode wrap) const;
  std::size_t first_clip() const { return layers_.front().clip; }

 private:
  struct Layer {
    LayerSpec spec;
    std::size_t clip = 0;
    std::vector<float> mask;
    std::vector<float> morph_mask;  // the same selection over the morph-weight slots
    std::optional<Clip> additive;   // the delta clip, for additive layers
  };
  const Asset* asset_ = nullptr;
  std::vector<Layer> layers_;
};

// Replaces the asset's clips with those of `clip_file`, bound to the asset's skeleton by joint
// name (`--clip-file`: play a clip from one file on the skeleton of another). Tracks whose
// joint the skeleton lacks are dropped, and said so on stderr for the clips `used` names (names
// or indices; the first clip when it names none), or for every clip when `used` is nullopt (a
// script, whose clips are known only when it runs).
Status use_clips_of(Asset& asset, const std::string& clip_file, const LoadOptions& load,
                    const std::optional<std::vector<std::string>>& used);

// The clips `--clip CLIP` and `--layer SPEC...` name, for use_clips_of; a layer that does not
// parse is left out (PoseSource::create reports it).
std::vector<std::string> clips_named(const std::string& clip,
                                     const std::vector<std::string>& layers);

// What `--clip NAME|INDEX` and `--layer ...` select, as `marrow pose` and `marrow render` take
// them: one clip (the first by default; the rest pose when the file has none) or, with
// --layer, a blend stack whose first normal layer is --clip at weight 1 when given.
class PoseSource {
 public:
  static Result<PoseSource> create(const Asset& asset, const std::string& clip,
                                   const std::vector<std::string>& layers);
  // The rest pose (the file's node transforms) whatever clips the file has.
  static PoseSource rest_pose(const Asset& asset);
  // Global transforms at each time, times wrapped by `wrap` per clip.
  PoseSamples sample(std::span<const float> times, WrapMode wrap) const;
  // The clip shown as "the" clip (the first layer's with --layer); -1 for the rest pose.
  int clip_index() const { return clip_index_; }
  // Seconds of the longest clip involved (0 for the rest pose).
  float duration() const { return duration_; }

 private:
  const Asset* asset_ = nullptr;
  int clip_index_ = -1;
  float duration_ = 0;
  std::optional<LayerStack> stack_;
};

}  // namespace marrow::cli
