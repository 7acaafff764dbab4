// Animator's morph-target weights: the same players and layer stack as the pose, on the
// character's weight array. Nothing allocates: each player's weights are sampled into the
// caller's AnimatorWorkspace and blended by one BlendJob with no joints (its weight-only path).
#include <algorithm>
#include <cmath>
#include <limits>

#include "animator_state.h"
#include "marrow/clip/sampling.h"
#include "marrow/pose/blend.h"

namespace marrow {

using control_detail::Slot;
using control_detail::SlotKind;

using control_detail::MorphByHand;

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Holding `weight` from `base` (NaN: the clips), `amount` of the way there, moving at `rate`.
MorphByHand holding(float base, float weight, float amount, float rate) {
  return MorphByHand{base, weight, weight, 1, amount, rate};
}

}  // namespace

bool Animator::set_morph_weight(std::uint32_t slot, float weight) {
  State& st = *state_;
  if (slot >= st.morph_by_hand.size() || !std::isfinite(weight)) return false;
  st.morph_by_hand[slot] = holding(kNaN, weight, 1, 0);
  return true;
}

bool Animator::fade_morph_weight(std::uint32_t slot, float weight, float seconds) {
  State& st = *state_;
  if (slot >= st.morph_by_hand.size() || !std::isfinite(weight) || !std::isfinite(seconds) ||
      seconds < 0) {
    return false;
  }
  if (seconds == 0) return set_morph_weight(slot, weight);
  MorphByHand& m = st.morph_by_hand[slot];
  if (m.amount <= 0) {
    m = holding(kNaN, weight, 0, 1 / seconds);  // from what the clips give
  } else if (!std::isnan(m.from) || m.amount >= 1) {
    // From the weight shown now, which the clips do not touch.
    const float base = std::isnan(m.from) ? m.held() : m.from;
    const float shown = base + (m.held() - base) * m.amount;
    m = holding(shown, weight, 0, 1 / seconds);
  } else {
    // Part way in from the clips: the held weight moves on to `weight` as the amount rises.
    m = MorphByHand{kNaN, weight, m.held(), m.amount, m.amount, (1 - m.amount) / seconds};
  }
  return true;
}

bool Animator::release_morph_weight(std::uint32_t slot, float seconds) {
  State& st = *state_;
  if (slot >= st.morph_by_hand.size() || !std::isfinite(seconds) || seconds < 0) return false;
  MorphByHand& m = st.morph_by_hand[slot];
  if (seconds == 0 || m.amount <= 0) {
    m = MorphByHand{};
    return true;
  }
  // Back to the clips from the weight shown now: a weight held from a fixed base is shown as one
  // held fully; one part way in from the clips keeps its mix and fades from there.
  if (!std::isnan(m.from)) {
    const float shown = m.from + (m.held() - m.from) * m.amount;
    m = holding(kNaN, shown, 1, 0);
  } else {
    m = holding(kNaN, m.held(), m.amount, 0);
  }
  m.rate = -m.amount / seconds;
  return true;
}

void Animator::release_morph_weights() {
  std::fill(state_->morph_by_hand.begin(), state_->morph_by_hand.end(), MorphByHand{});
}

namespace control_detail {

void advance_morph_fades(std::span<MorphByHand> slots, float dt) {
  for (MorphByHand& m : slots) {
    if (m.rate == 0) continue;
    m.amount += m.rate * dt;
    if (m.rate > 0 && m.amount >= 1) {
      m = holding(kNaN, m.to, 1, 0);  // faded in: held
    } else if (m.rate < 0 && m.amount <= 0) {
      m = MorphByHand{};  // released: back to the clips
    }
  }
}

}  // namespace control_detail

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
    const MorphByHand& m = st.morph_by_hand[k];
    if (m.amount <= 0 && std::isnan(m.from)) continue;  // the clips
    const float base = std::isnan(m.from) ? weights[k] : m.from;
    weights[k] = base + (m.held() - base) * m.amount;
  }
  return true;
}

}  // namespace marrow
