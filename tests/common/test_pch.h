// The precompiled header of every test program (tests/CMakeLists.txt): the large headers most
// test files include, parsed once per build instead of once per translation unit. Only headers
// from outside marrow, so editing marrow's headers does not rebuild it.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <numbers>
#include <optional>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <vector>
