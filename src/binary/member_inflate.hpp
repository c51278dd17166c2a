// A zip member's deflate stream inflated with ISA-L's igzip instead of libzip's zlib: zlib was
// 82 % of the CPU of scanning a wheel (torch's 539 MB, docs/scan.md), and igzip inflates the same
// bytes several times faster. libzip still reads the zip (central directory, local headers,
// ZIP_FL_COMPRESSED hands over the stored bytes); this checks what libzip's own reader checks —
// the CRC-32 and the size the central directory declares. Private to binary/.
#pragma once

#include <zip.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

struct inflate_state;

namespace smcompat::detail {

class MemberInflater {
 public:
  /// `raw`: the member opened with ZIP_FL_COMPRESSED (its stored deflate bytes).
  explicit MemberInflater(zip_file_t* raw);
  ~MemberInflater();
  MemberInflater(const MemberInflater&) = delete;
  MemberInflater& operator=(const MemberInflater&) = delete;

  /// A SpooledBytes::Pull: up to `capacity` inflated bytes, 0 at the end, -1 on an error (why()).
  int64_t pull(uint8_t* out, uint64_t capacity);
  /// After the last pull: "" when the stream ended with exactly `size` bytes whose CRC-32 is
  /// `crc`, else what did not hold.
  std::string check_end(uint64_t size, uint32_t crc) const;
  const std::string& why() const { return why_; }

 private:
  zip_file_t* raw_;
  std::unique_ptr<inflate_state> state_;  // ~ 90 KB of tables: on the heap
  std::vector<uint8_t> in_;
  bool input_ended_ = false;
  uint64_t produced_ = 0;
  std::string why_;
};

}  // namespace smcompat::detail
