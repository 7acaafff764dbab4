// The memory a load may cost: the most heap it holds at once while it runs (its peak, above
// what was held before), measured by replacing the global operator new/delete in the fuzz and
// replay programs. A target checks the peak against a budget of a multiple of the input's size
// plus a constant (docs/reliability.md, "Budgets"); going over it is a finding, like a crash.
#pragma once

#include <cstddef>
#include <string>

namespace marrow::fuzz {

struct Budget {
  std::size_t bytes_per_input_byte;
  std::size_t constant_bytes;

  std::size_t for_input(std::size_t input_size) const {
    return constant_bytes + bytes_per_input_byte * input_size;
  }
};

// The budget a target uses until its reader states its own: generous enough for every parser's
// working state (JSON trees, token lists), tight enough that a small file asking for gigabytes
// is caught.
inline constexpr Budget kDefaultLoadBudget{512, std::size_t{64} << 20};

// While alive, records the peak of C++ heap bytes held above the level at construction.
// One at a time, on one thread.
class HeapWatch {
 public:
  HeapWatch();
  ~HeapWatch();
  HeapWatch(const HeapWatch&) = delete;
  HeapWatch& operator=(const HeapWatch&) = delete;
  std::size_t peak() const;
};

// Aborts (a finding) when `watch` saw more than budget.for_input(input_size).
void expect_within_budget(const HeapWatch& watch, std::size_t input_size, const Budget& budget,
                          const std::string& what);

}  // namespace marrow::fuzz
