// ByteView: the only way parsers read untrusted bytes. Every access is bounds-checked with
// overflow-safe arithmetic and returns a Result; fixed-width values are read little-endian by
// memcpy (no reinterpret_cast over file bytes). Modelled on bloaty's StringPiece helpers and LLVM's
// DataExtractor (../shared/design/style.md).
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "smcompat/util/result.hpp"

namespace smcompat {

/// a + b, or nullopt on unsigned overflow.
inline std::optional<uint64_t> checked_add(uint64_t a, uint64_t b) {
  uint64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}
/// a * b, or nullopt on unsigned overflow.
inline std::optional<uint64_t> checked_mul(uint64_t a, uint64_t b) {
  uint64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

/// A non-owning view of input bytes that remembers where byte 0 sits in the original file, so
/// errors can name absolute file offsets even inside decompressed or nested data.
class ByteView {
 public:
  ByteView() = default;
  ByteView(const uint8_t* data, uint64_t size, uint64_t file_offset = 0)
      : data_(data), size_(size), file_offset_(file_offset) {}
  explicit ByteView(std::string_view s, uint64_t file_offset = 0)
      : ByteView(reinterpret_cast<const uint8_t*>(s.data()), s.size(), file_offset) {}

  const uint8_t* data() const { return data_; }
  uint64_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  /// Offset of byte 0 of this view in the original input.
  uint64_t file_offset() const { return file_offset_; }

  /// True if [off, off + n) lies inside the view (overflow-safe).
  bool contains(uint64_t off, uint64_t n) const { return off <= size_ && n <= size_ - off; }

  /// The sub-range [off, off + n), or an error naming both values and the view size.
  Result<ByteView> sub(uint64_t off, uint64_t n) const;
  /// The sub-range from `off` to the end.
  Result<ByteView> tail(uint64_t off) const;
  /// Like sub() but clamps to the end instead of failing (for "read up to" cases).
  ByteView clamp(uint64_t off, uint64_t n) const;

  /// Reads a little-endian integer of type T at `off`.
  template <class T>
  Result<T> read(uint64_t off) const {
    static_assert(std::is_integral_v<T> && std::is_unsigned_v<T>, "unsigned integers only");
    if (!contains(off, sizeof(T))) return out_of_range(off, sizeof(T));
    T v;
    std::memcpy(&v, data_ + off, sizeof(T));  // x86-64 and aarch64 Linux are little-endian
    return v;
  }
  /// Like read() but for callers that already checked the bounds (returns 0 if out of range).
  template <class T>
  T read_or_zero(uint64_t off) const {
    if (!contains(off, sizeof(T))) return 0;
    T v;
    std::memcpy(&v, data_ + off, sizeof(T));
    return v;
  }

  /// A NUL-terminated string starting at `off` (at most `max_len` bytes searched).
  Result<std::string_view> cstring(uint64_t off, uint64_t max_len = UINT64_MAX) const;

  std::string_view as_string_view() const {
    return {reinterpret_cast<const char*>(data_), static_cast<size_t>(size_)};
  }

  /// An Error located at `off` within this view (absolute file offset).
  Error error_at(uint64_t off, std::string what) const;

 private:
  Error out_of_range(uint64_t off, uint64_t n) const;

  const uint8_t* data_ = nullptr;
  uint64_t size_ = 0;
  uint64_t file_offset_ = 0;
};

}  // namespace smcompat
