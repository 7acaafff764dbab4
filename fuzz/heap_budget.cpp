#include "heap_budget.h"

#include <malloc.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "fuzz_target.h"

namespace marrow::fuzz {
namespace {

// Bytes handed out by operator new and not yet returned, counted by the allocator's own usable
// size so a delete subtracts exactly what its new added.
std::atomic<std::size_t> g_live{0};
std::atomic<std::size_t> g_peak{0};
std::atomic<std::size_t> g_base{0};
std::atomic<bool> g_watching{false};

void* allocate(std::size_t n) noexcept {
  void* p = std::malloc(n == 0 ? 1 : n);
  if (p) {
    const std::size_t live = g_live.fetch_add(malloc_usable_size(p)) + malloc_usable_size(p);
    if (g_watching.load(std::memory_order_relaxed)) {
      std::size_t seen = g_peak.load(std::memory_order_relaxed);
      while (live > seen && !g_peak.compare_exchange_weak(seen, live)) {
      }
    }
  }
  return p;
}

void release(void* p) noexcept {
  if (!p) return;
  g_live.fetch_sub(malloc_usable_size(p));
  std::free(p);
}

void* allocate_or_throw(std::size_t n) {
  if (void* p = allocate(n)) return p;
  throw std::bad_alloc();
}

}  // namespace

HeapWatch::HeapWatch() {
  g_base = g_live.load();
  g_peak = g_base.load();
  g_watching = true;
}

HeapWatch::~HeapWatch() {
  g_watching = false;
}

std::size_t HeapWatch::peak() const {
  return g_peak.load() - g_base.load();
}

void expect_within_budget(const HeapWatch& watch, std::size_t input_size, const Budget& budget,
                          const std::string& what) {
  const std::size_t limit = budget.for_input(input_size);
  MARROW_FUZZ_CHECK(watch.peak() <= limit,
                    what + " held " + std::to_string(watch.peak()) + " bytes of heap for a " +
                        std::to_string(input_size) + "-byte input; the budget is " +
                        std::to_string(limit) + " (" + std::to_string(budget.bytes_per_input_byte) +
                        " x size + " + std::to_string(budget.constant_bytes) + ")");
}

}  // namespace marrow::fuzz

// Every non-aligned form is replaced, each paired with our own release (the sanitizers check that
// new and delete match).
void* operator new(std::size_t n) {
  return marrow::fuzz::allocate_or_throw(n);
}
void* operator new[](std::size_t n) {
  return marrow::fuzz::allocate_or_throw(n);
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  return marrow::fuzz::allocate(n);
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  return marrow::fuzz::allocate(n);
}
void operator delete(void* p) noexcept {
  marrow::fuzz::release(p);
}
void operator delete[](void* p) noexcept {
  marrow::fuzz::release(p);
}
void operator delete(void* p, std::size_t) noexcept {
  marrow::fuzz::release(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  marrow::fuzz::release(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
  marrow::fuzz::release(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  marrow::fuzz::release(p);
}
