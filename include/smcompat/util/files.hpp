// Reading small text files (METADATA, /proc entries, version files) safely, and replacing a file
// atomically (metrics for node_exporter's textfile collector).
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

/// Replaces `path` with `content` so that a reader sees the old file or the new one, never a part:
/// writes `<path>.tmp.<pid>` in the same directory (created exclusively, mode 0644 less the
/// umask), fsyncs it, renames it over `path` (rename(2) is atomic within one file system) and
/// fsyncs the directory. On any failure the temporary file is removed and `path` is untouched;
/// the error names the file and the system's reason. A directory that does not exist is an error.
Result<void> write_file_atomically(const std::string& path, std::string_view content);

}  // namespace smcompat
