// Fatbin containers and entries, and their decompression (include/smcompat/binary/fatbin.hpp).
// Layout and decoding contract: ../shared/reference/fatbin-format.md sections 2-3. zstd and LZ4
// are decoded by libzstd and liblz4; the output is always bounded by the declared size.
#include "smcompat/binary/fatbin.hpp"

#include <fmt/format.h>
#include <lz4.h>
#include <zstd.h>

#include <cstring>
#include <memory>

#include "decode_internal.hpp"
#include "smcompat/binary/elf.hpp"
#include "smcompat/util/enum_names.hpp"

namespace smcompat {

namespace {
constexpr uint64_t kContainerHeader = 16;
constexpr uint64_t kEntryBase = 0x40;

struct DCtxDeleter {
  void operator()(ZSTD_DCtx* c) const { ZSTD_freeDCtx(c); }
};
ZSTD_DCtx* thread_dctx() {
  thread_local std::unique_ptr<ZSTD_DCtx, DCtxDeleter> ctx(ZSTD_createDCtx());
  return ctx.get();
}
}  // namespace

const char* to_string(Compression c) {
  static constexpr std::array<const char*, 3> kNames{"none", "zstd", "lz4"};
  return enum_name(c, kNames);
}

bool fatbin_sniff(ByteView bytes) { return bytes.read_or_zero<uint32_t>(0) == kFatbinMagic; }

Result<FatbinContainer> parse_fatbin(ByteView bytes) {
  SMCOMPAT_TRY(uint32_t magic, bytes.read<uint32_t>(0));
  if (magic != kFatbinMagic)
    return bytes.error_at(
        0, fmt::format("bad fatbin magic {:#x} (expected {:#x})", magic, kFatbinMagic));
  if (bytes.size() < kContainerHeader)
    return bytes.error_at(0,
                          fmt::format("fatbin header truncated: {} bytes available", bytes.size()));
  uint16_t version = bytes.read_or_zero<uint16_t>(4);
  uint16_t header_size = bytes.read_or_zero<uint16_t>(6);
  uint64_t body = bytes.read_or_zero<uint64_t>(8);
  if (version != 1) return bytes.error_at(4, fmt::format("fatbin version {} is not 1", version));
  if (header_size != kContainerHeader)
    return bytes.error_at(6, fmt::format("fatbin header size {} is not 16", header_size));
  auto total = checked_add(kContainerHeader, body);
  if (!total || *total > bytes.size())
    return bytes.error_at(8, fmt::format("fatbin declares {:#x} bytes of entries but only {:#x} "
                                         "bytes follow the header",
                                         body, bytes.size() - kContainerHeader));
  FatbinContainer c;
  c.offset = bytes.file_offset();
  c.size = *total;
  ByteView box = bytes.clamp(0, *total);
  uint64_t pos = kContainerHeader;
  while (pos < *total) {
    if (*total - pos < kEntryBase)
      return box.error_at(pos, fmt::format("entry header needs 64 bytes but only {} remain in the "
                                           "container",
                                           *total - pos));
    FatbinEntry e;
    e.offset = box.file_offset() + pos;
    e.raw_kind = box.read_or_zero<uint16_t>(pos);
    uint16_t entry_version = box.read_or_zero<uint16_t>(pos + 2);
    e.header_size = box.read_or_zero<uint32_t>(pos + 4);
    e.padded_size = box.read_or_zero<uint64_t>(pos + 8);
    e.compressed_size = box.read_or_zero<uint32_t>(pos + 0x10);
    uint32_t options_off = box.read_or_zero<uint32_t>(pos + 0x14);
    e.version_minor = box.read_or_zero<uint16_t>(pos + 0x18);
    e.version_major = box.read_or_zero<uint16_t>(pos + 0x1a);
    uint32_t arch = box.read_or_zero<uint32_t>(pos + 0x1c);
    uint32_t ident_off = box.read_or_zero<uint32_t>(pos + 0x20);
    uint32_t ident_len = box.read_or_zero<uint32_t>(pos + 0x24);
    e.flags = box.read_or_zero<uint64_t>(pos + 0x28);
    e.uncompressed_size = box.read_or_zero<uint64_t>(pos + 0x38);
    if (entry_version != 0x0101)
      return box.error_at(pos + 2, fmt::format("entry version {:#x} is not 0x101", entry_version));
    if (e.header_size < kEntryBase)
      return box.error_at(pos + 4,
                          fmt::format("entry header size {:#x} is below 0x40", e.header_size));
    auto payload_start = checked_add(pos, e.header_size);
    auto next = payload_start ? checked_add(*payload_start, e.padded_size) : std::nullopt;
    if (!next || *next > *total)
      return box.error_at(pos + 8,
                          fmt::format("entry (header {:#x}, payload {:#x} bytes) extends "
                                      "past the container end at {:#x}",
                                      e.header_size, e.padded_size, box.file_offset() + *total));
    switch (e.raw_kind) {
      case 1:
        e.target.kind = ImageKind::kPtx;
        break;
      case 2:
        e.target.kind = ImageKind::kSass;
        break;
      case 8:
        e.target.kind = ImageKind::kLto;
        break;
      default:
        return box.error_at(pos, fmt::format("unknown entry kind {}", e.raw_kind));
    }
    e.target.arch = static_cast<int>(arch);
    if (arch > 999)
      return box.error_at(pos + 0x1c, fmt::format("implausible arch number {}", arch));
    e.target.variant = (e.flags & fatbin_flags::kArchSpecific) ? ArchVariant::kArchSpecific
                       : (e.flags & fatbin_flags::kFamily)     ? ArchVariant::kFamily
                                                               : ArchVariant::kBase;
    bool zstd = e.flags & fatbin_flags::kZstd, lz4 = e.flags & fatbin_flags::kLz4;
    if (zstd && lz4)
      return box.error_at(pos + 0x28,
                          fmt::format("entry flags {:#x} claim both zstd and LZ4", e.flags));
    e.compression = zstd ? Compression::kZstd : lz4 ? Compression::kLz4 : Compression::kNone;
    uint64_t stored = e.padded_size;
    if (e.compression != Compression::kNone) {
      if (e.compressed_size > e.padded_size)
        return box.error_at(pos + 0x10, fmt::format("compressed size {:#x} exceeds the padded "
                                                    "payload size {:#x}",
                                                    e.compressed_size, e.padded_size));
      stored = e.compressed_size;
    }
    e.payload = box.clamp(*payload_start, stored);
    // Identifier and options live in the header's extension area (fatbin-format.md 2.2).
    ByteView header = box.clamp(pos, e.header_size);
    if (ident_off && ident_len) {
      ByteView id = header.clamp(ident_off, ident_len);
      auto s = id.as_string_view();
      e.identifier = std::string(s.substr(0, s.find('\0')));
    }
    if (options_off) {
      uint32_t data_off = header.read_or_zero<uint32_t>(options_off);
      uint32_t data_len = header.read_or_zero<uint32_t>(options_off + 4);
      if (data_len) {
        auto s = header.clamp(data_off, data_len).as_string_view();
        e.options = std::string(s.substr(0, s.find('\0')));
      }
    }
    c.entries.push_back(std::move(e));
    pos = *next;
  }
  return c;
}

Result<void> detail::decompress_into(Compression c, ByteView p, uint8_t* dst, uint64_t usize) {
  if (c == Compression::kZstd) {
    size_t n = ZSTD_decompressDCtx(thread_dctx(), dst, usize, p.data(), p.size());
    if (ZSTD_isError(n)) return p.error_at(0, fmt::format("zstd: {}", ZSTD_getErrorName(n)));
    if (n != usize)
      return p.error_at(0, fmt::format("zstd produced {} bytes, the entry declares {}", n, usize));
    return {};
  }
  if (c == Compression::kLz4) {
    if (p.size() > INT32_MAX || usize > INT32_MAX)
      return p.error_at(0, "LZ4 block larger than 2 GiB");
    int n =
        LZ4_decompress_safe(reinterpret_cast<const char*>(p.data()), reinterpret_cast<char*>(dst),
                            static_cast<int>(p.size()), static_cast<int>(usize));
    if (n < 0) return p.error_at(0, fmt::format("LZ4 block is corrupt (error {})", n));
    if (static_cast<uint64_t>(n) != usize)
      return p.error_at(0, fmt::format("LZ4 produced {} bytes, the entry declares {}", n, usize));
    return {};
  }
  return p.error_at(0, "payload is not compressed");
}

Result<std::vector<uint8_t>> decode_zstd_frame(ByteView frame, uint64_t max_output) {
  unsigned long long declared = ZSTD_getFrameContentSize(frame.data(), frame.size());
  if (declared == ZSTD_CONTENTSIZE_ERROR) return frame.error_at(0, "not a valid zstd frame");
  if (declared == ZSTD_CONTENTSIZE_UNKNOWN)
    return frame.error_at(0, "zstd frame does not declare its content size");
  if (declared > max_output)
    return frame.error_at(0, fmt::format("zstd frame declares {} bytes, above the {}-byte limit "
                                         "(decompression-bomb guard)",
                                         declared, max_output));
  std::vector<uint8_t> out(declared);
  size_t n = ZSTD_decompressDCtx(thread_dctx(), out.data(), out.size(), frame.data(), frame.size());
  if (ZSTD_isError(n)) return frame.error_at(0, fmt::format("zstd: {}", ZSTD_getErrorName(n)));
  if (n != declared)
    return frame.error_at(0, fmt::format("zstd frame produced {} bytes, declared {}", n, declared));
  return out;
}

Result<std::vector<uint8_t>> decode_entry(const FatbinEntry& entry, uint64_t max_output) {
  const ByteView& p = entry.payload;
  if (entry.target.kind == ImageKind::kLto)
    return p.error_at(0, "LTO-IR payload is opaque (input to nvJitLink); not decoded");
  if (entry.compression == Compression::kNone) {
    uint64_t n = p.size();
    if (entry.target.kind == ImageKind::kPtx) {
      const void* nul = std::memchr(p.data(), 0, p.size());
      if (nul) n = static_cast<const uint8_t*>(nul) - p.data();
    } else if (auto elf = ElfFile::parse(p); elf && elf->described_size() < n) {
      n = elf->described_size();
    }
    if (n > max_output)
      return p.error_at(
          0, fmt::format("payload of {} bytes is above the {}-byte limit", n, max_output));
    return std::vector<uint8_t>(p.data(), p.data() + n);
  }
  uint64_t usize = entry.uncompressed_size;
  if (usize == 0) return p.error_at(0, "compressed entry declares an uncompressed size of 0");
  if (usize > max_output)
    return p.error_at(0,
                      fmt::format("entry declares {} uncompressed bytes, above the {}-byte limit "
                                  "(decompression-bomb guard)",
                                  usize, max_output));
  std::vector<uint8_t> out(usize);
  SMCOMPAT_CHECK(detail::decompress_into(entry.compression, p, out.data(), usize));
  if (entry.target.kind == ImageKind::kPtx) {
    while (!out.empty() && out.back() == 0) out.pop_back();  // usize counts the NUL (and padding)
  }
  return out;
}

}  // namespace smcompat
