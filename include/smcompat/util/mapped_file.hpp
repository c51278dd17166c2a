// Read-only memory-mapped files: the scanner touches only the pages it reads (zero-copy, lazy).
#pragma once

#include <cstdint>
#include <string>

#include "smcompat/util/byte_view.hpp"
#include "smcompat/util/result.hpp"

namespace smcompat {

class MappedFile {
 public:
  /// Maps a regular file read-only. Errors name the path and the failing system call.
  static Result<MappedFile> open(const std::string& path);

  MappedFile() = default;
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  ByteView view() const { return ByteView(data_, size_, 0); }
  uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }

 private:
  const uint8_t* data_ = nullptr;
  uint64_t size_ = 0;
  std::string path_;
};

}  // namespace smcompat
