// What one document may cost. Every reader charges what a file makes it allocate (decoded
// accessors, copied meshes, decompressed bytes, keys, joints) to one DocumentBudget before it
// allocates; the total is bounded by kBudgetBytesPerInputByte times the document's size plus
// kBudgetBaseBytes, so a small hostile file cannot ask for gigabytes by reusing one big piece
// many times. Nesting (joint hierarchies, JSON arrays and objects) is bounded by
// kMaxNestingDepth. The rules and the figures behind them are in docs/formats.md ("Budget").
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

#include "marrow/base/error.h"

namespace marrow::io {

// A document may make marrow allocate this many bytes per byte of its own...
inline constexpr std::uint64_t kBudgetBytesPerInputByte = 64;
// ...plus this much, so that small files with legitimate expansion (a cube's keys) always load.
inline constexpr std::uint64_t kBudgetBaseBytes = std::uint64_t{64} << 20;
// The deepest nesting a document may have: joints under joints (BVH, .X frames, glTF nodes,
// MD5 and SMD parents, assimp nodes) and JSON arrays and objects inside each other.
inline constexpr std::size_t kMaxNestingDepth = 1024;

// Thrown by DocumentBudget::charge; the message names the file and the place.
class BudgetExceeded : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class DocumentBudget {
 public:
  DocumentBudget() = default;
  // `input_bytes`: the size of the document as read (the file, or the bytes given).
  explicit DocumentBudget(std::uint64_t input_bytes) { add_input(input_bytes); }

  // More input read as part of the same document (a glTF's external buffers).
  void add_input(std::uint64_t bytes);

  // Records `bytes` about to be allocated (or an amount of work of that size). `where` names the
  // file and the place, as a string or as a callable returning one (built only on failure).
  // Throws BudgetExceeded when the document's total would pass limit().
  template <typename Where>
  void charge(std::uint64_t bytes, const Where& where) {
    if (bytes <= limit_ - used_) {
      used_ += bytes;
      return;
    }
    if constexpr (std::is_invocable_v<const Where&>) {
      refuse(bytes, std::string(where()));
    } else {
      refuse(bytes, std::string(where));
    }
  }
  // `count` items of `size_each` bytes (the product saturates instead of wrapping).
  template <typename Where>
  void charge(std::uint64_t count, std::uint64_t size_each, const Where& where) {
    charge(times(count, size_each), where);
  }
  // The same check as a Status, for readers that do not throw.
  [[nodiscard]] Status try_charge(std::uint64_t bytes, std::string_view where);

  std::uint64_t used() const { return used_; }
  std::uint64_t limit() const { return limit_; }
  std::uint64_t input_bytes() const { return input_; }

  // The limit for a document of `input_bytes` bytes.
  static std::uint64_t limit_for(std::uint64_t input_bytes);
  // count * size_each, or UINT64_MAX when that overflows.
  static std::uint64_t times(std::uint64_t count, std::uint64_t size_each);

 private:
  [[noreturn]] void refuse(std::uint64_t bytes, const std::string& where) const;
  std::string refusal(std::uint64_t bytes, std::string_view where) const;

  std::uint64_t input_ = 0;
  std::uint64_t limit_ = kBudgetBaseBytes;
  std::uint64_t used_ = 0;
};

}  // namespace marrow::io
