// The time model of one player: where its playhead is in the clip, and how an advance by some
// clip seconds walks through loop seams, ping-pong turns and the end. Everything that fires
// (events, markers, looped, finished) and root motion is read off the segments of that walk, so
// one rule decides both. Internal to the control module; docs/control.md states the rules.
//
// A segment is a stretch where the clip time moves one way. Which cue times a segment covers:
//  - a segment covers its start when the playhead has not yet fired what lies exactly there
//    (`fired_here` false): so a cue fires when the playhead leaves it, and a cue right where an
//    update stopped fires in the next update, once;
//  - a segment that ends at a boundary (loop seam, turn, end) covers the boundary, so an event at
//    the clip's duration fires when a forward pass ends there;
//  - after a loop seam the playhead is at the other end with fired_here false, so an event at 0
//    fires as the next pass starts; after a ping-pong turn fired_here stays true, so the turning
//    point fires once.
#pragma once

#include <cmath>
#include <cstdint>

#include "marrow/clip/sampling.h"

namespace marrow::control_detail {

struct Playhead {
  double local = 0;            // clip seconds, in [0, duration]
  std::uint32_t passes = 0;    // seams and turns crossed
  std::int8_t leg = 1;         // ping-pong: +1 on a forward leg, -1 on a backward one
  std::int8_t finish_dir = 0;  // the clip-time direction it finished in (clamp can resume)
  bool fired_here = false;
  bool finished = false;
};

struct PlayheadRules {
  double duration = 0;
  WrapMode wrap = WrapMode::kLoop;
  std::uint32_t repetitions = 0;  // 0: forever
};

enum class SegmentEnd : std::uint8_t { kNone, kLooped, kFinished };

struct Segment {
  double from = 0, to = 0;     // clip seconds
  double distance_before = 0;  // clip seconds travelled in this advance before the segment
  std::int8_t dir = 1;         // +1: clip time increasing
  bool closed_start = false, closed_end = false;
  SegmentEnd end = SegmentEnd::kNone;
  std::uint32_t pass = 0;  // passes before this segment
};

// Walks an advance of `delta` clip seconds (signed: negative runs the clip time backwards, or
// forwards on a ping-pong's backward leg) segment by segment. `state()` is the playhead after the
// segments handed out so far, the final one once next() returned false.
class SegmentWalker {
 public:
  SegmentWalker(const Playhead& start, const PlayheadRules& rules, double delta)
      : head_(start), rules_(rules), remaining_(std::fabs(delta)), sign_(delta < 0 ? -1 : 1) {
    if (!(remaining_ > 0)) remaining_ = 0;
    total_ = remaining_;
  }

  bool next(Segment& out);
  const Playhead& state() const { return head_; }
  // Distance the advance asked for (fractions of the update are measured against it).
  double total() const { return total_; }
  std::uint64_t skipped() const { return skipped_; }
  // Whole cycles skipped past kMaxCrossingsPerUpdate, for root motion.
  std::uint64_t skipped_cycles() const { return skipped_cycles_; }
  std::int8_t skipped_dir() const { return skipped_dir_; }

 private:
  void skip_cycles(int dir);

  Playhead head_;
  PlayheadRules rules_;
  double remaining_ = 0;
  double total_ = 0;
  double travelled_ = 0;
  int sign_ = 1;
  std::uint32_t crossings_ = 0;
  std::uint64_t skipped_ = 0, skipped_cycles_ = 0;
  std::int8_t skipped_dir_ = 1;
  bool done_ = false;
};

// Where a player starts: `offset` seconds from the start in the direction of play (from the end
// when running backwards), clamped to the clip.
Playhead start_playhead(const PlayheadRules& rules, double offset, bool backwards);

// The playhead after an advance, without the segments (the walk's last state).
Playhead advance(const Playhead& start, const PlayheadRules& rules, double delta,
                 std::uint64_t* skipped = nullptr);

}  // namespace marrow::control_detail
