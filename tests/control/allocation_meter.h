// Counts heap allocations and the bytes they ask for while an AllocationMeter is alive: the test
// binary replaces the global operator new (forwarding to malloc), so tests can show that per-frame
// calls allocate nothing and measure what one more Animator costs.
#pragma once

#include <cstddef>

namespace marrow::test {

class AllocationMeter {
 public:
  AllocationMeter();
  ~AllocationMeter();
  std::size_t count() const;
  std::size_t bytes() const;
};

}  // namespace marrow::test
