// The largest single allocation made between start and stop: the test binary replaces the
// global operator new (it only forwards to malloc) so tests can show that a hostile file never
// makes a loader allocate more than a small multiple of its own size.
#pragma once

#include <cstddef>

namespace formats_test {

void start_tracking_allocations();
// Stops tracking and returns the largest single allocation since start.
std::size_t stop_tracking_allocations();

}  // namespace formats_test
