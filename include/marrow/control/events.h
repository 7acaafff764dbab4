/// @file
/// Events an Animator fires during update(): a clip's named events and sync markers as its players
/// pass them, and the built-in "a player looped" and "a player finished".
#pragma once

#include <cstdint>
#include <string_view>

#include "marrow/control/clip_set.h"

namespace marrow {

/// A player of an Animator: a slot and a generation, so an id kept after its player stopped is
/// recognized as stale instead of reaching the slot's next player.
struct PlayerId {
  std::uint32_t value = kNoId;
  bool valid() const { return value != kNoId; }
  friend constexpr bool operator==(PlayerId, PlayerId) = default;
};

enum class EventType : std::uint8_t {
  kClipEvent,  ///< a named event of the clip (from its file, or ClipSetBuilder::add_event)
  kMarker,     ///< a sync marker (only with AnimatorOptions::marker_events)
  kLooped,     ///< the player crossed a loop seam or a ping-pong turn and goes on
  kFinished,   ///< the player reached its end (clamp, or its last repetition) and holds there
};

std::string_view to_string(EventType type);

struct AnimationEvent {
  EventType type = EventType::kClipEvent;
  /// The event's or marker's name; empty for kLooped and kFinished. Points into the ClipSet.
  std::string_view name;
  PlayerId player;
  ClipId clip = kNoId;
  std::uint32_t layer = 0;
  /// Where in the clip (seconds) it happened: the event's time, or the boundary for built-ins.
  float clip_time = 0;
  /// Seconds from the start of the update at which the player reached it (0 <= time <= dt).
  /// Events of one update are delivered in this order across all players.
  float time = 0;
  /// Loop seams and ping-pong turns the player had crossed before it (0 in the first pass).
  std::uint32_t pass = 0;
  /// True when the clip time was running backwards there.
  bool backwards = false;
};

/// Called once per event, in time order, after the update's time advance is complete. `user` is
/// what was handed to Animator::update. A plain function pointer: no allocation, no virtual call.
using EventCallback = void (*)(const AnimationEvent& event, void* user);

}  // namespace marrow
