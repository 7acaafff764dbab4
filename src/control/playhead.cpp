#include "playhead.h"

#include <algorithm>
#include <limits>

#include "marrow/control/animator.h"

namespace marrow::control_detail {

void SegmentWalker::skip_cycles(int dir) {
  // Whole cycles leave the playhead where it was: a loop's period, or a ping-pong's round trip.
  const bool loop = rules_.wrap == WrapMode::kLoop;
  const double period = loop ? rules_.duration : 2 * rules_.duration;
  const double legs = loop ? 1 : 2;
  double k = std::floor(remaining_ / period);
  if (rules_.repetitions > 0) {
    // Keep the crossings the repetitions still allow, so the player finishes where it should.
    const double left = static_cast<double>(rules_.repetitions) - head_.passes - 1;
    k = std::min(k, std::floor(left / legs));
  }
  if (!(k >= 1)) return;
  remaining_ -= k * period;
  if (remaining_ < 0) remaining_ = 0;
  travelled_ += k * period;
  const double crossings = k * legs;
  const double max_passes = std::numeric_limits<std::uint32_t>::max();
  head_.passes = static_cast<std::uint32_t>(std::min(max_passes, head_.passes + crossings));
  const double max_count = 1.8e19;
  skipped_ += static_cast<std::uint64_t>(std::min(max_count, crossings));
  skipped_cycles_ += loop ? static_cast<std::uint64_t>(std::min(max_count, k)) : 0;
  skipped_dir_ = static_cast<std::int8_t>(dir);
}

bool SegmentWalker::next(Segment& out) {
  if (done_) return false;
  const double duration = rules_.duration;
  if (!(duration > 0)) {
    // A single pose: the first advance covers its time 0 and finishes it, in any wrap mode.
    done_ = true;
    if (head_.finished || remaining_ <= 0) return false;
    out = Segment{};
    out.closed_start = !head_.fired_here;
    out.closed_end = true;
    out.end = SegmentEnd::kFinished;
    out.pass = head_.passes;
    head_.local = 0;
    head_.finished = true;
    head_.finish_dir = 1;
    head_.fired_here = true;
    travelled_ += remaining_;
    remaining_ = 0;
    return true;
  }
  if (!(remaining_ > 0)) {
    done_ = true;
    return false;
  }
  const int dir = sign_ * (rules_.wrap == WrapMode::kPingPong ? head_.leg : 1);
  if (head_.finished) {
    // A clamped player that finished at one end runs again when its direction turns.
    if (rules_.wrap == WrapMode::kClamp && dir != head_.finish_dir) {
      head_.finished = false;
    } else {
      done_ = true;
      return false;
    }
  }
  if (crossings_ >= kMaxCrossingsPerUpdate && rules_.wrap != WrapMode::kClamp) skip_cycles(dir);

  const double boundary = dir > 0 ? duration : 0.0;
  const double distance = dir > 0 ? duration - head_.local : head_.local;
  out = Segment{};
  out.from = head_.local;
  out.distance_before = travelled_;
  out.dir = static_cast<std::int8_t>(dir);
  out.closed_start = !head_.fired_here;
  out.pass = head_.passes;
  if (remaining_ < distance) {
    out.to = head_.local + dir * remaining_;
    head_.local = out.to;
    head_.fired_here = false;
    travelled_ += remaining_;
    remaining_ = 0;
    done_ = true;
    return true;
  }
  out.to = boundary;
  out.closed_end = true;
  travelled_ += distance;
  remaining_ -= distance;
  head_.local = boundary;
  ++crossings_;
  const bool last = rules_.wrap == WrapMode::kClamp ||
                    (rules_.repetitions > 0 && head_.passes + 1 >= rules_.repetitions);
  if (last) {
    out.end = SegmentEnd::kFinished;
    head_.finished = true;
    head_.finish_dir = static_cast<std::int8_t>(dir);
    head_.fired_here = true;
    remaining_ = 0;
    done_ = true;
    return true;
  }
  out.end = SegmentEnd::kLooped;
  if (head_.passes < std::numeric_limits<std::uint32_t>::max()) ++head_.passes;
  if (rules_.wrap == WrapMode::kLoop) {
    head_.local = dir > 0 ? 0.0 : duration;
    head_.fired_here = false;
  } else {
    head_.leg = static_cast<std::int8_t>(-head_.leg);
    head_.fired_here = true;
  }
  if (!(remaining_ > 0)) done_ = true;
  return true;
}

Playhead start_playhead(const PlayheadRules& rules, double offset, bool backwards) {
  Playhead head;
  const double duration = rules.duration > 0 ? rules.duration : 0.0;
  const double o = std::clamp(std::isfinite(offset) ? offset : 0.0, 0.0, duration);
  head.local = backwards ? duration - o : o;
  return head;
}

Playhead advance(const Playhead& start, const PlayheadRules& rules, double delta,
                 std::uint64_t* skipped) {
  SegmentWalker walker(start, rules, delta);
  Segment segment;
  while (walker.next(segment)) {
  }
  if (skipped) *skipped += walker.skipped();
  return walker.state();
}

}  // namespace marrow::control_detail
