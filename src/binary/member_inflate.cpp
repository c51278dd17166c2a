// ISA-L inflation of zip members (member_inflate.hpp).
#include "member_inflate.hpp"

#include <fmt/format.h>
#include <isa-l/igzip_lib.h>

#include <algorithm>
#include <limits>

namespace smcompat::detail {

namespace {

constexpr size_t kInputChunk = 256 << 10;

const char* isal_error(int code) {
  switch (code) {
    case ISAL_INVALID_BLOCK:
      return "invalid deflate block";
    case ISAL_INVALID_SYMBOL:
      return "invalid deflate symbol";
    case ISAL_INVALID_LOOKBACK:
      return "invalid lookback distance";
    default:
      return "invalid deflate stream";
  }
}

}  // namespace

MemberInflater::MemberInflater(zip_file_t* raw)
    : raw_(raw), state_(std::make_unique<inflate_state>()), in_(kInputChunk) {
  isal_inflate_init(state_.get());
  // Raw deflate (zip has no gzip or zlib wrapper); the CRC-32 of the output is kept in crc.
  state_->crc_flag = ISAL_GZIP_NO_HDR;
}

MemberInflater::~MemberInflater() = default;

int64_t MemberInflater::pull(uint8_t* out, uint64_t capacity) {
  inflate_state& s = *state_;
  const uint64_t want = std::min<uint64_t>(capacity, std::numeric_limits<uint32_t>::max());
  s.next_out = out;
  s.avail_out = static_cast<uint32_t>(want);
  while (s.avail_out > 0 && s.block_state != ISAL_BLOCK_FINISH) {
    if (s.avail_in == 0 && !input_ended_) {
      zip_int64_t r = zip_fread(raw_, in_.data(), in_.size());
      if (r < 0) {
        why_ = zip_file_strerror(raw_);
        return -1;
      }
      input_ended_ = r == 0;
      s.next_in = in_.data();
      s.avail_in = static_cast<uint32_t>(r);
    }
    const uint32_t before_out = s.avail_out, before_in = s.avail_in;
    int rc = isal_inflate(&s);
    if (rc < 0) {
      why_ = fmt::format("inflate: {} after {} bytes of output", isal_error(rc),
                         produced_ + (want - s.avail_out));
      return -1;
    }
    // No input left and none taken or given: the stored bytes end inside the stream.
    if (input_ended_ && s.avail_in == 0 && s.avail_out == before_out && before_in == 0 &&
        s.block_state != ISAL_BLOCK_FINISH) {
      why_ = fmt::format(
          "inflate: the stored bytes end inside the deflate stream after {} "
          "bytes of output",
          produced_ + (want - s.avail_out));
      return -1;
    }
  }
  const uint64_t n = want - s.avail_out;
  produced_ += n;
  return static_cast<int64_t>(n);
}

std::string MemberInflater::check_end(uint64_t size, uint32_t crc) const {
  if (!why_.empty()) return why_;
  if (state_->block_state != ISAL_BLOCK_FINISH)
    return fmt::format("the deflate stream goes on past the declared {} bytes", size);
  if (produced_ != size)
    return fmt::format("the deflate stream holds {} bytes, not the declared {}", produced_, size);
  if (state_->crc != crc)
    return fmt::format("CRC-32 {:08x} of the inflated bytes, not the declared {:08x}", state_->crc,
                       crc);
  return "";
}

}  // namespace smcompat::detail
