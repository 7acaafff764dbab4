// The test-support library's allocation meter, shared by every suite that checks allocations:
// while an AllocationMeter is alive it counts the heap allocations made (by any thread), the bytes
// they ask for and the largest one. A program that links marrow_test_support gets replacements of
// every global operator new and delete (forwarding to malloc and free) that feed it, so tests can
// show that per-frame calls allocate nothing, what one more Animator costs, and that a hostile
// file never makes a loader allocate more than a small multiple of its size.
#pragma once

#include <cstddef>

namespace marrow::test {

class AllocationMeter {
 public:
  AllocationMeter();  // starts from zero; one meter at a time
  ~AllocationMeter();
  AllocationMeter(const AllocationMeter&) = delete;
  AllocationMeter& operator=(const AllocationMeter&) = delete;

  std::size_t count() const;    // allocations so far
  std::size_t bytes() const;    // bytes asked for so far, frees not subtracted
  std::size_t largest() const;  // the largest single allocation so far
  void stop();                  // stops counting; the figures stay
};

}  // namespace marrow::test
