#include "common/budget.h"

#include <limits>

namespace marrow::io {
namespace {

std::string mebibytes(std::uint64_t bytes) {
  // Rounded to a tenth: enough to compare against the limit in a message.
  constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
  const std::uint64_t tenths = bytes / kMiB * 10 + ((bytes % kMiB) * 10 + kMiB / 2) / kMiB;
  return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + " MiB";
}

}  // namespace

std::uint64_t DocumentBudget::times(std::uint64_t count, std::uint64_t size_each) {
  if (size_each != 0 && count > std::numeric_limits<std::uint64_t>::max() / size_each) {
    return std::numeric_limits<std::uint64_t>::max();
  }
  return count * size_each;
}

std::uint64_t DocumentBudget::limit_for(std::uint64_t input_bytes) {
  const std::uint64_t scaled = times(input_bytes, kBudgetBytesPerInputByte);
  const std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
  return scaled > max - kBudgetBaseBytes ? max : scaled + kBudgetBaseBytes;
}

void DocumentBudget::add_input(std::uint64_t bytes) {
  const std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
  input_ = bytes > max - input_ ? max : input_ + bytes;
  limit_ = limit_for(input_);
}

Status DocumentBudget::try_charge(std::uint64_t bytes, std::string_view where) {
  if (bytes <= limit_ - used_) {
    used_ += bytes;
    return {};
  }
  return Error{refusal(bytes, where)};
}

std::string DocumentBudget::refusal(std::uint64_t bytes, std::string_view where) const {
  const std::uint64_t wanted = bytes > std::numeric_limits<std::uint64_t>::max() - used_
                                   ? std::numeric_limits<std::uint64_t>::max()
                                   : used_ + bytes;
  return std::string(where) + ": reading this document would allocate " + mebibytes(wanted) +
         ", more than the " + mebibytes(limit_) + " marrow allows a document of " +
         std::to_string(input_) + " bytes (" + std::to_string(kBudgetBytesPerInputByte) +
         " bytes per input byte + " + mebibytes(kBudgetBaseBytes) + ")";
}

void DocumentBudget::refuse(std::uint64_t bytes, const std::string& where) const {
  throw BudgetExceeded(refusal(bytes, where));
}

}  // namespace marrow::io
