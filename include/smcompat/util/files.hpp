// Reading small text files (METADATA, /proc entries, version files) safely; writing files whole.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "smcompat/util/result.hpp"

namespace smcompat {

/// The first `max` bytes of a file, or nullopt if it cannot be opened. Reads in chunks without
/// trusting the reported size (files under /proc report 0).
std::optional<std::string> read_file_prefix(const std::string& path, size_t max);

/// Writes all `n` bytes to `fd`, again after short writes and EINTR; false with errno set
/// (EIO for a write that wrote nothing) when it cannot.
bool write_fully(int fd, const void* data, size_t n);

/// Writes `text` to `path` so that a reader never sees half a file: into `path.tmp.<pid>` in the
/// same directory, flushed to disk, then renamed over `path`. On failure nothing is left behind
/// and the error names the file and the failing step.
std::optional<Error> write_file_atomically(const std::string& path, std::string_view text);

}  // namespace smcompat
