// Read-only memory-mapped files: the scanner touches only the pages it reads (zero-copy, lazy).
// SpooledBytes: a stream (an archive member being inflated) held in memory when small, in an
// unlinked temporary file mapped read-only when large, so that memory follows the pages read.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "smcompat/util/byte_view.hpp"
#include "smcompat/util/result.hpp"

namespace smcompat {

class MappedFile {
 public:
  /// Maps a regular file read-only. Errors name the path and the failing system call.
  static Result<MappedFile> open(const std::string& path);
  /// Maps the first `size` bytes of an open file read-only (the descriptor may be closed after).
  static Result<MappedFile> map_descriptor(int fd, uint64_t size, const std::string& name);

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

/// Drops the whole pages inside `view` from this process's resident set. Only for views of a
/// MappedFile: the pages stay in the page cache and a later read faults them in again (on
/// anonymous memory the same call would zero them).
void release_mapped_pages(ByteView view);

/// Bytes read from a stream with `pull` (returns the count read, 0 at the end, < 0 on error).
class SpooledBytes {
 public:
  using Pull = std::function<int64_t(uint8_t* buffer, uint64_t capacity)>;
  /// Streams at or below this size stay in memory.
  static constexpr uint64_t kMemoryLimit = 32ull << 20;

  /// Reads up to `size` bytes. `reserve` is what may be reserved up front in memory (at most
  /// `size`: a declared size is not trusted further than the stored bytes allow). Above
  /// `memory_limit` the bytes go to an unlinked file in $TMPDIR (or /tmp); where none can be
  /// made they stay in memory.
  static SpooledBytes read(const Pull& pull, uint64_t size, uint64_t reserve,
                           uint64_t memory_limit = kMemoryLimit);

  ByteView view() const;
  /// The bytes are a file mapping (release_mapped_pages() may be called on views of them).
  bool file_backed() const { return file_.size() > 0; }
  /// `pull` returned < 0.
  bool failed() const { return failed_; }
  /// Why the temporary file could not be written or mapped ("" if it could, or none was used).
  const std::string& spool_error() const { return spool_error_; }
  uint64_t size() const { return view().size(); }

 private:
  std::vector<uint8_t> memory_;
  MappedFile file_;
  bool failed_ = false;
  std::string spool_error_;
};

}  // namespace smcompat
