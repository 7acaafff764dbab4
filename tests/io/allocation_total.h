// Bytes allocated with operator new between start and stop, in total (frees not subtracted):
// the test binary replaces the global operator new, so a test can show how much a load cost.
#pragma once

#include <cstddef>

namespace budget_test {

void start_counting_allocations();
// Stops counting and returns the bytes allocated since start.
std::size_t stop_counting_allocations();

}  // namespace budget_test
