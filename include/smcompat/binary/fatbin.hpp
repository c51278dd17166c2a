// Fatbin containers (magic 0xBA55ED50) and their entries; decompression of zstd and LZ4 payloads
// through libzstd and liblz4. Layouts: ../shared/reference/fatbin-format.md sections 2 and 3.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "smcompat/catalog/sm_target.hpp"
#include "smcompat/util/byte_view.hpp"
#include "smcompat/util/result.hpp"

namespace smcompat {

inline constexpr uint32_t kFatbinMagic = 0xBA55ED50;
inline constexpr uint32_t kFatbinWrapperMagic = 0x466243B1;  // __fatBinC_Wrapper_t
inline constexpr uint32_t kZstdMagic = 0xFD2FB528;           // bytes 28 B5 2F FD

enum class Compression { kNone, kZstd, kLz4 };
const char* to_string(Compression c);  // "none", "zstd", "lz4"

/// Entry flag bits (fatbin-format.md 2.4), tested against FatbinEntry::flags.
namespace fatbin_flags {
inline constexpr uint64_t k64Bit = 0x1, kDebug = 0x2;                    // address size, -G
inline constexpr uint64_t kLz4 = 0x2000, kZstd = 0x8000;                 // payload compression
inline constexpr uint64_t kArchSpecific = 0x100000, kFamily = 0x200000;  // `a`, `f` variant
}  // namespace fatbin_flags

/// One image inside a container.
struct FatbinEntry {
  uint16_t raw_kind = 0;  ///< 1 PTX, 2 ELF, 8 LTO-IR
  SmTarget target;        ///< kind, arch and a/f variant
  uint64_t offset = 0;    ///< absolute file offset of the entry header
  uint32_t header_size = 0;
  uint64_t padded_size = 0;
  uint32_t compressed_size = 0;    ///< 0 if uncompressed
  uint64_t uncompressed_size = 0;  ///< 0 if uncompressed
  uint64_t flags = 0;
  Compression compression = Compression::kNone;
  uint16_t version_major = 0;  ///< PTX: ISA major; ELF: 1
  uint16_t version_minor = 0;  ///< PTX: ISA minor; ELF: ABI code version (7 or 8)
  std::string identifier;      ///< source file (-G/-lineinfo) or --ident string
  std::string options;         ///< ptxas/JIT options recorded at build time (PTX)
  ByteView payload;            ///< stored bytes (compressed or raw), `padded` or `csize` long

  bool debug() const { return flags & fatbin_flags::kDebug; }
};

struct FatbinContainer {
  uint64_t offset = 0;  ///< absolute file offset of the container header
  uint64_t size = 0;    ///< header + entries
  std::vector<FatbinEntry> entries;
};

/// True if the bytes start with the container magic (never fails).
bool fatbin_sniff(ByteView bytes);

/// Parses and validates the container that starts at byte 0 of `bytes` (which may extend beyond
/// it: the container's own size decides). Validation per fatbin-format.md 2.3: version 1, header
/// size 16, fits, and the entry walk ends exactly at the container end.
Result<FatbinContainer> parse_fatbin(ByteView bytes);

/// Decodes an entry's payload: zstd or LZ4 by flags only (never by sniffing); raw payloads are
/// returned as stored (PTX up to its NUL, ELF up to its described size). The output is bounded by
/// the declared uncompressed size and by `max_output` (decompression-bomb guard). LTO-IR is
/// refused: its payload is opaque.
Result<std::vector<uint8_t>> decode_entry(const FatbinEntry& entry, uint64_t max_output);

/// Decompresses one bare zstd frame (a cubin stored without a fatbin header) bounded by
/// `max_output`. The frame's content size must be declared.
Result<std::vector<uint8_t>> decode_zstd_frame(ByteView frame, uint64_t max_output);

}  // namespace smcompat
