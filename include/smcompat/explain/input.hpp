// Reading the text `smcompat explain` is given (--file LOG, or - for standard input) into a
// TextScan, line by line, in bounded memory: a log is never held whole.
#pragma once

#include <cstdint>
#include <string>

#include "smcompat/explain/explain.hpp"
#include "smcompat/util/result.hpp"

namespace smcompat::explain {

/// At most this much text is read (docs/explain.md); more is an error that says how to cut it.
inline constexpr uint64_t kMaxInputBytes = 256ull << 20;
/// A longer line is read in pieces of this size, each overlapping the previous by kLineOverlap
/// bytes so that a phrase across a boundary is still seen; each piece counts as a line.
inline constexpr size_t kMaxLineBytes = 1u << 20;
inline constexpr size_t kLineOverlap = 4096;

/// Feeds `path` ("-": standard input) to `scan`. Refused with a clear error: a directory, a
/// device (/dev/zero), a FIFO or socket given by name (pipe it to `-` instead), and more than
/// `max_bytes` of text. Errors name the file (and the offset where reading stopped).
Result<void> scan_input(const std::string& path, TextScan& scan,
                        uint64_t max_bytes = kMaxInputBytes);

/// Feeds a text held in memory (command-line words) the same way.
void scan_text(std::string_view text, TextScan& scan);

}  // namespace smcompat::explain
