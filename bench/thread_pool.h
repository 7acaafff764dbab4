// A small fixed-size pool of std::threads with a blocking parallel_for: the kind of
// caller-owned executor skin_parallel() takes (the runtime itself owns no threads). Used by the
// benchmarks and the tests.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace marrow {

class ThreadPool {
 public:
  // `threads` workers in all, the calling thread included (so 1 runs everything inline).
  explicit ThreadPool(std::size_t threads) {
    for (std::size_t i = 1; i < threads; ++i) workers_.emplace_back([this] { work(); });
  }
  ~ThreadPool() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
  }
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  std::size_t size() const { return workers_.size() + 1; }

  // Calls task(i) for i in [0, count) on the pool and the calling thread; returns when all ran.
  template <typename F>
  void parallel_for(std::size_t count, F&& task) {
    if (count == 0) return;
    if (workers_.empty() || count == 1) {
      for (std::size_t i = 0; i < count; ++i) task(i);
      return;
    }
    std::function<void(std::size_t)> f = std::ref(task);
    {
      std::lock_guard lock(mutex_);
      task_ = &f;
      count_ = count;
      next_.store(0);
      done_ = 0;
      ++generation_;
    }
    wake_.notify_all();
    run_tasks(f, count);
    std::unique_lock lock(mutex_);
    // Workers that joined this job must leave it before the next job resets the counters.
    finished_.wait(lock, [&] { return done_ == count_ && active_ == 0; });
    task_ = nullptr;
  }

 private:
  // Returns how many tasks this thread ran.
  std::size_t run_tasks(const std::function<void(std::size_t)>& task, std::size_t count) {
    std::size_t ran = 0;
    for (std::size_t i = next_.fetch_add(1); i < count; i = next_.fetch_add(1)) {
      task(i);
      ++ran;
    }
    std::lock_guard lock(mutex_);
    done_ += ran;
    if (done_ == count_) finished_.notify_all();
    return ran;
  }

  void work() {
    std::size_t seen = 0;
    const std::function<void(std::size_t)>* task = nullptr;
    std::size_t count = 0;
    for (;;) {
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return stop_ || (generation_ != seen && task_ != nullptr); });
        if (stop_) return;
        seen = generation_;
        task = task_;
        count = count_;
        ++active_;
      }
      run_tasks(*task, count);
      std::lock_guard lock(mutex_);
      --active_;
      finished_.notify_all();
    }
  }

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, finished_;
  std::function<void(std::size_t)>* task_ = nullptr;
  std::size_t count_ = 0, done_ = 0, generation_ = 0, active_ = 0;
  std::atomic<std::size_t> next_{0};
  bool stop_ = false;
};

}  // namespace marrow
