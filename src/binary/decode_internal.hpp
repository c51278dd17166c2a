// Private to binary/: decompression into caller-owned memory, so hot loops (deep decode of
// thousands of entries) reuse one buffer per thread instead of allocating and zeroing each time.
#pragma once

#include <cstdint>
#include <memory>

#include "smcompat/binary/fatbin.hpp"
#include "smcompat/util/byte_view.hpp"
#include "smcompat/util/result.hpp"

namespace smcompat::detail {

/// Decompresses `src` (zstd frame or raw LZ4 block) into exactly `usize` bytes at `dst`.
Result<void> decompress_into(Compression c, ByteView src, uint8_t* dst, uint64_t usize);

/// A growable, uninitialised byte buffer.
class Scratch {
 public:
  uint8_t* reserve(uint64_t n) {
    if (n > cap_) {
      buf_.reset(new uint8_t[n]);
      cap_ = n;
    }
    return buf_.get();
  }
  uint8_t* data() const { return buf_.get(); }

 private:
  std::unique_ptr<uint8_t[]> buf_;
  uint64_t cap_ = 0;
};

}  // namespace smcompat::detail
