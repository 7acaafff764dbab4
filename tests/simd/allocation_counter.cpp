#include "allocation_counter.h"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<bool> counting{false};
std::atomic<std::size_t> allocations{0};
}  // namespace

namespace marrow::test {
AllocationCounter::AllocationCounter() {
  allocations = 0;
  counting = true;
}
AllocationCounter::~AllocationCounter() {
  counting = false;
}
std::size_t AllocationCounter::count() const {
  return allocations.load();
}
}  // namespace marrow::test

void* operator new(std::size_t size) {
  if (counting.load(std::memory_order_relaxed)) ++allocations;
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t size, std::align_val_t align) {
  if (counting.load(std::memory_order_relaxed)) ++allocations;
  const std::size_t a = static_cast<std::size_t>(align);
  if (void* p = std::aligned_alloc(a, (size + a - 1) / a * a)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete(void* p, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
  std::free(p);
}
