#include "progress.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>

namespace marrow::cli {

bool ProgressBar::stderr_is_terminal() {
  return isatty(STDERR_FILENO) == 1;
}

ProgressBar::ProgressBar(std::string label, std::uint64_t total, std::string unit, bool enabled)
    : shown_(enabled && stderr_is_terminal()),
      label_(std::move(label)),
      unit_(std::move(unit)),
      total_(total),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {
  draw(true);
}

ProgressBar::~ProgressBar() {
  clear();
}

std::string ProgressBar::format(const std::string& label, std::uint64_t done, std::uint64_t total,
                                const std::string& unit, double elapsed_seconds, int width) {
  done = std::min(done, total);
  const double fraction = total ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
  const int filled = static_cast<int>(fraction * width);
  std::string text = label + " [" + std::string(static_cast<std::size_t>(filled), '#') +
                     std::string(static_cast<std::size_t>(width - filled), '-') + "] " +
                     std::to_string(done) + "/" + std::to_string(total);
  if (!unit.empty()) text += " " + unit;
  // The time left, once there is a rate to go by.
  if (done > 0 && done < total && elapsed_seconds > 0.2) {
    const double left = elapsed_seconds * static_cast<double>(total - done) / done;
    const long s = std::lround(left);
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, ", %ld:%02ld left", s / 60, s % 60);
    text += buffer;
  }
  return text;
}

void ProgressBar::draw(bool force) {
  if (!shown_) return;
  std::unique_lock lock(draw_mutex_, std::try_to_lock);
  if (!lock.owns_lock() && !force) return;  // another thread is drawing: skip this update
  if (!lock.owns_lock()) lock.lock();
  const auto now = std::chrono::steady_clock::now();
  if (!force && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  std::string text = "marrow: " + format(label_, done_.load(), total_.load(), unit_, elapsed);
  const std::size_t width = text.size();
  if (width < drawn_width_) text += std::string(drawn_width_ - width, ' ');
  drawn_width_ = width;
  std::fprintf(stderr, "\r%s", text.c_str());
  std::fflush(stderr);
}

void ProgressBar::advance(std::uint64_t count) {
  const std::uint64_t done = done_.fetch_add(count) + count;
  draw(done >= total_);
}

void ProgressBar::set(std::uint64_t done) {
  done_.store(done);
  draw(done >= total_);
}

void ProgressBar::restart(std::string label, std::uint64_t total, std::string unit) {
  {
    std::lock_guard lock(draw_mutex_);
    label_ = std::move(label);
    unit_ = std::move(unit);
    total_.store(total);
    done_.store(0);
    start_ = std::chrono::steady_clock::now();
  }
  draw(true);
}

void ProgressBar::clear() {
  if (!shown_) return;
  std::lock_guard lock(draw_mutex_);
  if (drawn_width_ == 0) return;
  std::fprintf(stderr, "\r%s\r", std::string(drawn_width_ + 8, ' ').c_str());
  std::fflush(stderr);
  drawn_width_ = 0;
}

}  // namespace marrow::cli
