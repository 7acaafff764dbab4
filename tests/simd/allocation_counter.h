// Counts heap allocations while an AllocationCounter is alive: the test binary replaces the global
// operator new (forwarding to malloc), so tests can show that per-frame calls allocate nothing.
#pragma once

#include <cstddef>

namespace marrow::test {

class AllocationCounter {
 public:
  AllocationCounter();
  ~AllocationCounter();
  std::size_t count() const;
};

}  // namespace marrow::test
