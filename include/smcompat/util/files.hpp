// Reading small text files (METADATA, /proc entries, version files) safely.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace smcompat {

/// The first `max` bytes of a file, or nullopt if it cannot be opened. Reads in chunks without
/// trusting the reported size (files under /proc report 0).
std::optional<std::string> read_file_prefix(const std::string& path, size_t max);

}  // namespace smcompat
