// Bounds-checked views over untrusted bytes (include/smcompat/util/byte_view.hpp).
#include "smcompat/util/byte_view.hpp"

#include <fmt/format.h>

namespace smcompat {

Result<ByteView> ByteView::sub(uint64_t off, uint64_t n) const {
  if (!contains(off, n)) return out_of_range(off, n);
  return ByteView(data_ + off, n, file_offset_ + off);
}

Result<ByteView> ByteView::tail(uint64_t off) const {
  if (off > size_) return out_of_range(off, 0);
  return ByteView(data_ + off, size_ - off, file_offset_ + off);
}

ByteView ByteView::clamp(uint64_t off, uint64_t n) const {
  if (off > size_) return ByteView(data_ + size_, 0, file_offset_ + size_);
  uint64_t avail = size_ - off;
  return ByteView(data_ + off, n < avail ? n : avail, file_offset_ + off);
}

Result<std::string_view> ByteView::cstring(uint64_t off, uint64_t max_len) const {
  if (off > size_) return out_of_range(off, 1);
  uint64_t limit = size_ - off;
  if (max_len < limit) limit = max_len;
  const void* nul = std::memchr(data_ + off, 0, limit);
  if (!nul)
    return error_at(off, fmt::format("string is not NUL-terminated within {:#x} bytes", limit));
  return std::string_view(reinterpret_cast<const char*>(data_ + off),
                          static_cast<const uint8_t*>(nul) - (data_ + off));
}

Error ByteView::error_at(uint64_t off, std::string what) const {
  return make_error(std::move(what), file_offset_ + off);
}

Error ByteView::out_of_range(uint64_t off, uint64_t n) const {
  return error_at(off, fmt::format("range of {:#x} bytes at {:#x} extends past the end of the "
                                   "{:#x}-byte region",
                                   n, file_offset_ + off, size_));
}

}  // namespace smcompat
