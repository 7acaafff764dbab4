#include "layers.h"

#include "commands.h"

#include <algorithm>
#include <cmath>
#include <iostream>

#include "marrow/clip/binding.h"
#include "marrow/pose/additive.h"
#include "marrow/pose/blend.h"
#include "marrow/pose/local_to_model.h"
#include "marrow/pose/mask.h"
#include "marrow/skin/morph.h"

namespace marrow::cli {
namespace {

constexpr const char* kKeys[] = {"weight", "mode", "mask", "time", "ref"};

// Position of the next ":key=" at or after `from`, for any known key.
std::size_t next_key(const std::string& text, std::size_t from) {
  std::size_t best = std::string::npos;
  for (const char* key : kKeys) {
    const std::size_t at = text.find(":" + std::string(key) + "=", from);
    if (at < best) best = at;
  }
  return best;
}

std::optional<float> parse_float(const std::string& s) {
  char* end = nullptr;
  const float v = std::strtof(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

}  // namespace

Result<LayerSpec> parse_layer(const std::string& text) {
  const std::string where = "--layer '" + text + "'";
  LayerSpec spec;
  std::size_t at = next_key(text, 0);
  spec.clip = text.substr(0, at);
  if (spec.clip.empty()) return make_error(where, "names no clip");
  while (at != std::string::npos) {
    const std::size_t eq = text.find('=', at);
    const std::string key = text.substr(at + 1, eq - at - 1);
    const std::size_t next = next_key(text, eq);
    const std::string value =
        text.substr(eq + 1, next == std::string::npos ? std::string::npos : next - eq - 1);
    if (key == "weight" || key == "time" || key == "ref") {
      if (key == "ref" && value == "rest") {
        spec.reference_time.reset();
      } else {
        const auto v = parse_float(value);
        if (!v) return make_error(where, key + "='" + value + "' is not a number");
        if (key == "weight")
          spec.weight = *v;
        else if (key == "time")
          spec.time = *v;
        else
          spec.reference_time = *v;
      }
    } else if (key == "mode") {
      if (value == "normal")
        spec.mode = LayerMode::kNormal;
      else if (value == "override")
        spec.mode = LayerMode::kOverride;
      else if (value == "additive")
        spec.mode = LayerMode::kAdditive;
      else
        return make_error(where, "mode='" + value + "' is not normal, override or additive");
    } else if (key == "mask") {
      if (value.empty() || value == "!") return make_error(where, "mask= names no joint");
      spec.mask = value;
    }
    at = next;
  }
  return spec;
}

Result<LayerStack> LayerStack::build(const Asset& asset, const std::vector<LayerSpec>& specs) {
  if (specs.empty()) return make_error(asset.source, "no layers");
  LayerStack stack;
  stack.asset_ = &asset;
  const Skeleton& skeleton = asset.skeleton;
  const MorphLayout morphs = MorphLayout::build(asset.meshes);
  for (const LayerSpec& spec : specs) {
    Layer layer;
    layer.spec = spec;
    const auto clip = asset.find_clip(spec.clip);
    if (!clip) return make_error(asset.source, "--layer: no clip '" + spec.clip + "'");
    layer.clip = *clip;
    const Clip& source = asset.clips[*clip];
    if (spec.mask == "auto") {
      auto mask = mask_from_clip(skeleton, source, skeleton.rest_pose());
      if (!mask) return mask.error();
      layer.mask = std::move(mask).value();
    } else if (!spec.mask.empty()) {
      const bool inverse = spec.mask[0] == '!';
      auto mask = mask_from_subtree(skeleton, inverse ? spec.mask.substr(1) : spec.mask);
      if (!mask)
        return make_error(asset.source, "--layer " + spec.clip + ": " + mask.error().message);
      layer.mask = inverse ? mask_inverse(*mask) : std::move(mask).value();
    }
    // A mask selects morph weights too: those of the nodes it selects, or with mask=auto those
    // the clip moves.
    if (spec.mask == "auto") {
      auto morph_mask = morph_mask_from_clip(source, morphs.default_weights());
      if (!morph_mask) return morph_mask.error();
      layer.morph_mask = std::move(morph_mask).value();
    } else if (!spec.mask.empty()) {
      layer.morph_mask =
          morph_mask_from_joint_mask(layer.mask, morphs.slots(), morphs.weight_count());
    }
    if (spec.mode == LayerMode::kAdditive) {
      std::vector<Transform> reference(skeleton.rest_pose().begin(), skeleton.rest_pose().end());
      std::vector<float> reference_weights(morphs.default_weights().begin(),
                                           morphs.default_weights().end());
      if (spec.reference_time) {
        auto sampled = sample_reference_pose(skeleton, source, *spec.reference_time);
        if (!sampled) return sampled.error();
        reference = std::move(sampled).value();
        if (source.weight_count() <= reference_weights.size())
          sample_weight_tracks(source, *spec.reference_time, reference_weights);
      }
      auto additive = make_additive_clip(source, skeleton, reference, reference_weights);
      if (!additive) return additive.error();
      layer.additive = std::move(additive).value();
    }
    stack.layers_.push_back(std::move(layer));
  }
  for (LayerMode mode : {LayerMode::kNormal, LayerMode::kOverride, LayerMode::kAdditive}) {
    const auto count = std::count_if(specs.begin(), specs.end(),
                                     [&](const LayerSpec& s) { return s.mode == mode; });
    if (static_cast<std::size_t>(count) > kMaxBlendLayers) {
      return make_error(asset.source,
                        "more than " + std::to_string(kMaxBlendLayers) + " layers of one mode");
    }
  }
  return stack;
}

PoseSamples LayerStack::sample(std::span<const float> times, WrapMode wrap) const {
  const Skeleton& skeleton = asset_->skeleton;
  const std::size_t n = skeleton.size();
  // Buffers made once; the per-time loop below is what a game does each frame.
  std::vector<std::vector<Transform>> poses(layers_.size(), std::vector<Transform>(n));
  const std::vector<Transform> identity(n);
  const MorphLayout morphs = MorphLayout::build(asset_->meshes);
  const std::span<const float> defaults = morphs.default_weights();
  const std::vector<float> zeros(defaults.size(), 0.0f);
  std::vector<std::vector<float>> weights(layers_.size(), std::vector<float>(defaults.size()));
  std::vector<SamplingCursor> cursors(layers_.size());
  std::vector<BlendLayer> normal, override_layers, additive;
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    const Layer& layer = layers_[i];
    cursors[i].bind(layer.additive ? *layer.additive : asset_->clips[layer.clip]);
    BlendLayer blend{poses[i], layer.spec.weight, layer.mask, weights[i], layer.morph_mask};
    if (layer.spec.mode == LayerMode::kNormal)
      normal.push_back(blend);
    else if (layer.spec.mode == LayerMode::kOverride)
      override_layers.push_back(blend);
    else
      additive.push_back(blend);
  }
  std::vector<Transform> blended(n);
  std::vector<float> blended_weights(defaults.size());
  PoseSamples samples;
  samples.times.assign(times.begin(), times.end());
  for (float t : times) {
    for (std::size_t i = 0; i < layers_.size(); ++i) {
      const Layer& layer = layers_[i];
      const Clip& clip = layer.additive ? *layer.additive : asset_->clips[layer.clip];
      const float local_time = wrap_time(layer.spec.time.value_or(t), clip.duration(), wrap);
      // Additive clips hold deltas: channels without a track must read as "no change".
      marrow::sample(clip,
                     layer.additive ? std::span<const Transform>(identity) : skeleton.rest_pose(),
                     local_time, cursors[i], poses[i]);
      // Additive weight clips hold differences: slots without a track add nothing.
      if (clip.weight_count() <= defaults.size()) {
        sample_weights(clip, layer.additive ? std::span<const float>(zeros) : defaults, local_time,
                       cursors[i], weights[i]);
      }
    }
    BlendJob job;
    job.rest_pose = skeleton.rest_pose();
    job.layers = normal;
    job.overrides = override_layers;
    job.additives = additive;
    job.output = blended;
    job.rest_morph_weights = defaults;
    job.morph_output = blended_weights;
    job.run();
    std::vector<Mat4> world(n);
    local_to_model(skeleton, blended, world);
    samples.world.push_back(std::move(world));
    samples.weights.push_back(blended_weights);
  }
  return samples;
}

std::vector<std::string> clips_named(const std::string& clip,
                                     const std::vector<std::string>& layers) {
  std::vector<std::string> names;
  if (!clip.empty()) names.push_back(clip);
  for (const std::string& text : layers) {
    if (Result<LayerSpec> spec = parse_layer(text)) names.push_back(spec->clip);
  }
  return names;
}

Status use_clips_of(Asset& asset, const std::string& clip_file, const LoadOptions& load,
                    const std::optional<std::vector<std::string>>& used) {
  Result<Asset> other = load_input(clip_file, load);
  if (!other) return other.error();
  std::vector<bool> noted(other->clips.size(), !used.has_value());
  if (used) {
    for (const std::string& name : *used) {
      if (const std::optional<std::size_t> c = other->find_clip(name)) noted[*c] = true;
    }
    if (used->empty() && !noted.empty()) noted[0] = true;
  }
  std::vector<Clip> clips;
  const MorphLayout morphs = MorphLayout::build(asset.meshes);
  for (const Clip& clip : other->clips) {
    std::vector<std::string> dropped;
    Result<Clip> bound =
        rebind_clip(clip, asset.skeleton, &dropped, morphs.slots(), morphs.weight_count());
    if (!bound) return make_error(clip_file, bound.error().message);
    if (!dropped.empty() && noted[clips.size()]) {
      std::string names;
      for (const std::string& n : dropped) names += (names.empty() ? "" : ", ") + n;
      std::cerr << "marrow: note: " << clip_file << ": clip '" << clip.name()
                << "': " << dropped.size() << " joint(s) not in " << asset.source
                << " (their tracks are dropped): " << names << "\n";
    }
    clips.push_back(std::move(bound).value());
  }
  asset.clips = std::move(clips);
  asset.rate_sources = other->rate_sources;  // the same clips, in the same order
  asset.compiled_clips.clear();              // they belonged to the clips replaced
  return {};
}

Result<PoseSource> PoseSource::create(const Asset& asset, const std::string& clip,
                                      const std::vector<std::string>& layers) {
  PoseSource source;
  source.asset_ = &asset;
  if (!clip.empty()) {
    Result<std::size_t> found = asset.require_clip(clip);
    if (!found) return found.error();
    source.clip_index_ = static_cast<int>(*found);
  } else if (!asset.clips.empty()) {
    source.clip_index_ = 0;
  }
  if (!layers.empty()) {
    // --clip, when given too, is the first normal layer at weight 1.
    std::vector<LayerSpec> specs;
    if (!clip.empty()) {
      LayerSpec base;
      base.clip = clip;
      specs.push_back(base);
    }
    for (const std::string& text : layers) {
      Result<LayerSpec> spec = parse_layer(text);
      if (!spec) return spec.error();
      specs.push_back(std::move(spec).value());
    }
    Result<LayerStack> stack = LayerStack::build(asset, specs);
    if (!stack) return stack.error();
    source.clip_index_ = static_cast<int>(stack->first_clip());
    for (const LayerSpec& spec : specs) {
      source.duration_ =
          std::max(source.duration_, asset.clips[*asset.find_clip(spec.clip)].duration());
    }
    source.stack_ = std::move(stack).value();
  } else if (source.clip_index_ >= 0) {
    source.duration_ = asset.clips[static_cast<std::size_t>(source.clip_index_)].duration();
  }
  return source;
}

PoseSource PoseSource::rest_pose(const Asset& asset) {
  PoseSource source;
  source.asset_ = &asset;
  return source;
}

PoseSamples PoseSource::sample(std::span<const float> times, WrapMode wrap) const {
  if (stack_) return stack_->sample(times, wrap);
  return sample_world(*asset_, clip_index_, times, wrap);
}

}  // namespace marrow::cli
