// Where PTX comes from: a .ptx file, or the PTX images embedded in any binary the scan reads
// (host ELF .so/.o, fatbin, archives, wheels), found by the binary/ inventory and decoded
// (zstd/LZ4) one at a time, PTX images only.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "smcompat/catalog/sm_target.hpp"
#include "smcompat/util/result.hpp"

namespace smcompat::ptx {

struct PtxSource {
  std::string file;    ///< path on disk
  std::string member;  ///< archive/zip member ("" for the file itself)
  std::optional<SmTarget>
      image_target;           ///< compute_XX of the embedded image (nullopt for .ptx files)
  std::string section;        ///< ELF section of the fatbin holding it
  uint64_t entry_offset = 0;  ///< file offset of the fatbin entry (0 for .ptx files)
  bool embedded = false;      ///< true if it came out of a binary
  std::string text;           ///< the PTX text (trailing NULs removed)

  /// "file", "file!member" or "file@0x1234 (compute_90)"
  std::string display_name() const;
};

struct PtxSourceOptions {
  uint64_t max_image_bytes = 1ull << 30;  ///< decompression-bomb guard per image
};

/// Calls `visit` for every PTX text in the file at `path`. Problems decoding one image go to
/// `on_error` and the walk goes on. Returns the number of PTX texts visited, or an error if the
/// file cannot be read or holds no device code at all.
Result<size_t> for_each_ptx(const std::string& path, const std::function<void(PtxSource&&)>& visit,
                            const std::function<void(const Error&)>& on_error = {},
                            const PtxSourceOptions& options = {});

}  // namespace smcompat::ptx
