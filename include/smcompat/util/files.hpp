// Reading small text files (METADATA, /proc entries, version files) safely; writing files whole.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "smcompat/util/result.hpp"
#include "smcompat/util/text_sink.hpp"

namespace smcompat {

/// The first `max` bytes of a file, or nullopt if it cannot be opened. Reads in chunks without
/// trusting the reported size (files under /proc report 0).
std::optional<std::string> read_file_prefix(const std::string& path, size_t max);

/// Writes all `n` bytes to `fd`, again after short writes and EINTR; false with errno set
/// (EIO for a write that wrote nothing) when it cannot.
bool write_fully(int fd, const void* data, size_t n);

/// A file written in pieces so that a reader never sees half of it: into `path.tmp.<pid>` in the
/// same directory, then flushed to disk and renamed over `path` by commit(). Writes are buffered
/// and the first failure is kept (later writes are dropped); destroyed without a successful
/// commit, it removes the temporary. Errors name the file and the failing step.
class AtomicFileWriter final : public TextSink {
 public:
  explicit AtomicFileWriter(std::string path);
  ~AtomicFileWriter() override;
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  void write(std::string_view text) override;
  /// Flushes, syncs, closes and renames into place; the first error on the way (or before).
  std::optional<Error> commit();

 private:
  void fail(const char* step, int err);
  bool flush();
  std::string path_, tmp_;
  int fd_ = -1;
  std::string buffer_;
  std::optional<Error> error_;
};

/// Writes `text` to `path` through an AtomicFileWriter: a reader never sees half a file, and on
/// failure nothing is left behind.
std::optional<Error> write_file_atomically(const std::string& path, std::string_view text);

}  // namespace smcompat
