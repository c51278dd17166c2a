// Private to binary/: the pieces of the inventory walk that live in their own files
// (container_search.cpp: the magic search over a region; deep_decode.cpp: payload decoding).
#pragma once

#include <cstdint>
#include <string>

#include "decode_internal.hpp"
#include "smcompat/binary/inventory.hpp"
#include "smcompat/util/byte_view.hpp"
#include "smcompat/util/result.hpp"

namespace smcompat::detail {

/// A hostile file cannot flood the report: at most this many errors (and warnings) per file.
inline constexpr uint64_t kMaxErrorsPerFile = 200;

/// The inventory record of one fatbin entry found in `section` (payload offset relative to
/// `base_offset`, the file offset of the inventoried buffer).
DeviceImage image_from_entry(const FatbinEntry& e, const std::string& section, uint64_t container,
                             bool relocatable, uint64_t base_offset);

/// madvise() over the pages that hold any of `view` (a view of a file mapping).
void advise_mapped_pages(ByteView view, int advice);

/// Scans one region (a section, or a whole unparseable file) of `buf` for validated fatbin
/// containers and, with `opt.bare_cubins`, bare zstd cubins; appends to `inv`. With
/// `release_pages` (`buf` is a file mapping) the pages searched are dropped behind the search.
void scan_region(ByteView buf, ByteView region, const std::string& section,
                 const InspectOptions& opt, FileInventory& inv, bool release_pages = false);

/// Decodes an image's payload; the result views either the original bytes (raw payloads) or
/// `scratch` (valid until the next call with the same scratch).
Result<ByteView> decode_payload(ByteView buf, const DeviceImage& img, uint64_t max_output,
                                Scratch& scratch);

/// Decodes every wanted image of `inv` (in parallel, shared payloads once) and records errors.
void deep_decode(ByteView buf, const InspectOptions& opt, FileInventory& inv);
/// Counts the kernels (cubin) or entries (PTX) of raw images and of compressed ones of at most
/// kSmallCubinBytes that the deep decode did not (DeviceImage::kernels); an image that does not
/// decode is left unknown.
/// With `release_pages` (`buf` is a file mapping) each image's stored bytes are dropped after.
void count_header_level_kernels(ByteView buf, FileInventory& inv, bool release_pages = false);

}  // namespace smcompat::detail
