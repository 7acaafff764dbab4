// A progress bar for long work in the `marrow` commands: a bar, a count and the time left, on
// stderr, redrawn in place at most ten times a second. It is shown only when stderr is a
// terminal, so piped or redirected output (logs, JSON pipelines, tests) never carries it.
// Workers on several threads may call advance() at once.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

namespace marrow::cli {

class ProgressBar {
 public:
  // `label` says what is counted ("rendering", "converting"); `unit` names one item ("frames").
  // Shown when stderr is a terminal and `enabled`.
  ProgressBar(std::string label, std::uint64_t total, std::string unit = {}, bool enabled = true);
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;
  ~ProgressBar();  // clears the line

  void advance(std::uint64_t count = 1);
  void set(std::uint64_t done);
  // Starts over with a new label (a new stage of the work): count 0, clock restarted.
  void restart(std::string label, std::uint64_t total, std::string unit = {});
  // Clears the bar's line, so ordinary messages can follow.
  void clear();

  bool shown() const { return shown_; }
  static bool stderr_is_terminal();

  // The text of the bar for `done` of `total` after `elapsed` seconds, `width` characters of
  // bar (for tests: "rendering [#####-----] 12/24 frames, 0:03 left").
  static std::string format(const std::string& label, std::uint64_t done, std::uint64_t total,
                            const std::string& unit, double elapsed_seconds, int width = 24);

 private:
  void draw(bool force);

  bool shown_;
  std::string label_, unit_;
  std::atomic<std::uint64_t> total_;
  std::atomic<std::uint64_t> done_{0};
  std::chrono::steady_clock::time_point start_, last_draw_;
  std::mutex draw_mutex_;
  std::size_t drawn_width_ = 0;
};

}  // namespace marrow::cli
