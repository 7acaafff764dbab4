// The archive's byte streams, shared by its section writers and readers (archive.cpp for the
// asset, archive_morph.cpp for morph targets and weight tracks): little-endian scalars, strings
// and arrays; reading checks every length against the bytes left in the current section and
// fails with the file and the byte offset. Private to src/io/archive.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace marrow::archive_detail {

constexpr std::uint64_t kMaxSection = 0xFFFFFFFFull;

class Out {
 public:
  std::vector<std::uint8_t> bytes;

  template <typename T>
  void scalar(T value) {
    static_assert(std::is_trivially_copyable_v<T>);
    std::uint8_t raw[sizeof(T)];
    std::memcpy(raw, &value, sizeof(T));
    if constexpr (std::endian::native == std::endian::big) std::reverse(raw, raw + sizeof(T));
    bytes.insert(bytes.end(), raw, raw + sizeof(T));
  }
  void u8(std::uint8_t v) { scalar(v); }
  void u16(std::uint16_t v) { scalar(v); }
  void u32(std::uint32_t v) { scalar(v); }
  void i32(std::int32_t v) { scalar(v); }
  void u64(std::uint64_t v) { scalar(v); }
  void i64(std::int64_t v) { scalar(v); }
  void f32(float v) { scalar(v); }
  void f64(double v) { scalar(v); }

  void string(const std::string& s) {
    u32(static_cast<std::uint32_t>(s.size()));
    bytes.insert(bytes.end(), s.begin(), s.end());
  }
  // `count` elements of a scalar type T, stored little-endian back to back.
  template <typename T>
  void array(const T* data, std::size_t count) {
    if constexpr (std::endian::native == std::endian::little) {
      if (count == 0) return;
      const auto* p = reinterpret_cast<const std::uint8_t*>(data);
      bytes.insert(bytes.end(), p, p + count * sizeof(T));
    } else {
      for (std::size_t i = 0; i < count; ++i) scalar(data[i]);
    }
  }

  std::size_t begin_section(std::uint32_t tag) {
    u32(tag);
    u64(0);  // patched by end_section
    return bytes.size();
  }
  bool end_section(std::size_t start) {
    const std::uint64_t length = bytes.size() - start;
    if (length > kMaxSection) return false;
    for (int i = 0; i < 8; ++i)
      bytes[start - 8 + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(length >> (8 * i));
    return true;
  }
};

// Vec3, array<float, 4> and array<float, 2> are plain runs of floats (checked in read_mesh).
template <typename T>
const float* floats_of(const std::vector<T>& v) {
  return reinterpret_cast<const float*>(v.data());
}

struct WriteError {
  std::string message;
};

struct ReadError {
  std::string message;
};

class In {
 public:
  In(std::span<const std::uint8_t> bytes, const std::string& name) : bytes_(bytes), name_(name) {}

  [[noreturn]] void fail(std::size_t at, const std::string& what) const {
    throw ReadError{name_ + ": byte " + std::to_string(at) + ": " + what};
  }
  [[noreturn]] void fail(const std::string& what) const { fail(pos_, what); }

  std::size_t pos() const { return pos_; }
  std::size_t left() const { return end_ - pos_; }
  void set_window(std::size_t begin, std::size_t end) {
    pos_ = begin;
    end_ = end;
  }

  void need(std::uint64_t n, const char* what) const {
    if (n > left())
      fail(std::string(what) + ": needs " + std::to_string(n) + " bytes, " +
           std::to_string(left()) + " left in the section");
  }

  template <typename T>
  T scalar(const char* what) {
    need(sizeof(T), what);
    std::uint8_t raw[sizeof(T)];
    std::memcpy(raw, bytes_.data() + pos_, sizeof(T));
    if constexpr (std::endian::native == std::endian::big) std::reverse(raw, raw + sizeof(T));
    pos_ += sizeof(T);
    T v;
    std::memcpy(&v, raw, sizeof(T));
    return v;
  }
  std::uint8_t u8(const char* w) { return scalar<std::uint8_t>(w); }
  std::uint16_t u16(const char* w) { return scalar<std::uint16_t>(w); }
  std::uint32_t u32(const char* w) { return scalar<std::uint32_t>(w); }
  std::int32_t i32(const char* w) { return scalar<std::int32_t>(w); }
  std::uint64_t u64(const char* w) { return scalar<std::uint64_t>(w); }
  std::int64_t i64(const char* w) { return scalar<std::int64_t>(w); }
  float f32(const char* w) { return scalar<float>(w); }
  double f64(const char* w) { return scalar<double>(w); }

  std::string string(const char* what) {
    const std::uint32_t n = u32(what);
    need(n, what);
    std::string s(reinterpret_cast<const char*>(bytes_.data() + pos_), n);
    pos_ += n;
    return s;
  }

  // A count whose elements (at least `bytes_each` bytes each) must fit in what is left, so a
  // lying count fails here instead of allocating.
  std::uint32_t count(const char* what, std::uint64_t bytes_each) {
    const std::size_t at = pos_;
    const std::uint32_t n = u32(what);
    if (std::uint64_t{n} * bytes_each > left())
      fail(at, std::string(what) + " = " + std::to_string(n) + " cannot fit in the " +
                   std::to_string(left()) + " bytes left in the section");
    return n;
  }

  template <typename T>
  void array(T* out, std::size_t count, const char* what) {
    need(std::uint64_t{count} * sizeof(T), what);
    if constexpr (std::endian::native == std::endian::little) {
      if (count > 0) std::memcpy(out, bytes_.data() + pos_, count * sizeof(T));
      pos_ += count * sizeof(T);
    } else {
      for (std::size_t i = 0; i < count; ++i) out[i] = scalar<T>(what);
    }
  }

  // The first non-finite float in [p, p + n), or n.
  static std::size_t first_non_finite(const float* p, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
      if (!std::isfinite(p[i])) return i;
    }
    return n;
  }

 private:
  std::span<const std::uint8_t> bytes_;
  const std::string& name_;
  std::size_t pos_ = 0;
  std::size_t end_ = 0;
};

}  // namespace marrow::archive_detail
