// Animator's morph-target weights: the same players and layer stack as the pose, on the
// character's weight array. Nothing allocates: each player's weights are sampled into the
// caller's AnimatorWorkspace and blended by one BlendJob with no joints (its weight-only path).
#include <algorithm>
#include <cmath>

#include "animator_state.h"
#include "marrow/clip/sampling.h"
#include "marrow/pose/blend.h"

namespace marrow {

using control_detail::Slot;
using control_detail::SlotKind;

bool Animator::set_morph_weight(std::uint32_t slot, float weight) {
  State& st = *state_;
  if (slot >= st.morph_by_hand.size() || !std::isfinite(weight)) return false;
  st.morph_by_hand[slot] = weight;
  st.morph_by_hand_set[slot] = 1;
  return true;
}

bool Animator::release_morph_weight(std::uint32_t slot) {
  State& st = *state_;
  if (slot >= st.morph_by_hand_set.size()) return false;
  st.morph_by_hand_set[slot] = 0;
  return true;
}

void Animator::release_morph_weights() {
  std::fill(state_->morph_by_hand_set.begin(), state_->morph_by_hand_set.end(), 0);
}

bool Animator::evaluate_morph_weights(AnimatorWorkspace& ws, std::span<float> weights) const {
  const State& st = *state_;
  const ClipSet& set = *set_;
  const std::size_t count = set.morph_weight_count();
  if (weights.size() < count || ws.max_players_ < st.slots.size() ||
      ws.morph_.size() < count * st.slots.size()) {
    return false;
  }
  if (count == 0) return true;
  const std::span<const float> defaults = set.default_morph_weights();
  BlendLayer normal[kMaxAnimatorPlayers], over[kMaxAnimatorPlayers], add[kMaxAnimatorPlayers];
  std::size_t nn = 0, no = 0, na = 0;
  for (std::size_t i = 0; i < st.slots.size(); ++i) {
    const Slot& s = st.slots[i];
    if (!s.active || s.kind == SlotKind::kBlendSpace) continue;
    const LayerDesc& layer = options_.layers[s.layer];
    const float w = control_detail::total_effective(st.slots, s) * st.layer_weights[s.layer];
    if (layer.mode == LayerMode::kAdditive ? w == 0 : !(w > 0)) continue;
    // A player takes part with its clip's weights where it has tracks and the defaults (an
    // additive clip: no difference) elsewhere, so fading a face clip out returns the face to
    // rest rather than holding its last expression.
    const Clip& clip = set.clip(s.clip);
    const bool additive_clip = set.is_additive(s.clip);
    const std::span<float> mine = std::span<float>(ws.morph_).subspan(i * count, count);
    if (additive_clip) {
      std::fill(mine.begin(), mine.end(), 0.0f);
    } else {
      std::copy(defaults.begin(), defaults.end(), mine.begin());
    }
    (void)sample_weight_tracks(clip, static_cast<float>(s.playhead.local), mine);
    BlendLayer entry;
    entry.weight = w;
    entry.morph_weights = mine;
    if (layer.mask != kNoId) entry.morph_mask = set.morph_mask(layer.mask);
    if (layer.mode == LayerMode::kNormal) normal[nn++] = entry;
    if (layer.mode == LayerMode::kOverride) over[no++] = entry;
    if (layer.mode == LayerMode::kAdditive) add[na++] = entry;
  }
  BlendJob job;
  job.layers = {normal, nn};
  job.overrides = {over, no};
  job.additives = {add, na};
  job.threshold = options_.blend_threshold;
  job.rest_morph_weights = defaults;
  job.morph_output = weights.first(count);
  if (!job.run()) return false;
  for (std::size_t k = 0; k < count; ++k) {
    if (st.morph_by_hand_set[k]) weights[k] = st.morph_by_hand[k];
  }
  return true;
}

}  // namespace marrow
