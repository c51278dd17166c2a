// The container search of the inventory (fatbin-format.md section 7): 8-aligned file offsets
// whose u32 equals the fatbin or zstd magic, validated as a fatbin container or as a bare zstd
// frame holding an EM_CUDA ELF. Private to binary/ (inventory_internal.hpp).
#include <fmt/format.h>
#include <zstd.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <memory>

#include "inventory_internal.hpp"
#include "smcompat/util/mapped_file.hpp"

namespace smcompat::detail {

namespace {

struct MagicHit {
  uint64_t offset;  // relative to the region
  bool zstd;
};

#if defined(__x86_64__)
// 32 bytes per step: four 8-aligned candidates (32-bit lanes 0, 2, 4, 6). Chosen at run time.
__attribute__((target("avx2"))) uint64_t scan_avx2(const uint8_t* d, uint64_t pos, uint64_t n,
                                                   bool want_zstd) {
  const __m256i fat = _mm256_set1_epi32(static_cast<int>(kFatbinMagic));
  const __m256i zst = _mm256_set1_epi32(static_cast<int>(want_zstd ? kZstdMagic : kFatbinMagic));
  while (pos + 32 <= n) {
    __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(d + pos));
    __m256i hit = _mm256_or_si256(_mm256_cmpeq_epi32(v, fat), _mm256_cmpeq_epi32(v, zst));
    if (_mm256_movemask_epi8(hit) & 0x0f0f0f0f) return pos;
    pos += 32;
  }
  return pos;
}
bool have_avx2() {
  static const bool yes = __builtin_cpu_supports("avx2");
  return yes;
}
#endif

// Finds the next hit at or after `pos` (region-relative); hits are 8-aligned relative to `base`,
// the file offset where the ELF starts (an archive member starts at any even offset).
std::optional<MagicHit> next_magic(ByteView region, uint64_t base, uint64_t pos, bool want_zstd) {
  const uint8_t* d = region.data();
  const uint64_t n = region.size();
  uint64_t mis = (region.file_offset() - base + pos) & 7;
  if (mis) pos += 8 - mis;
#if defined(__x86_64__)
  if (have_avx2()) pos = scan_avx2(d, pos, n, want_zstd);  // stops at a block holding a hit
#endif
#if defined(__x86_64__)
  const __m128i fat = _mm_set1_epi32(static_cast<int>(kFatbinMagic));
  const __m128i zst = _mm_set1_epi32(static_cast<int>(kZstdMagic));
  while (pos + 16 <= n) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(d + pos));
    int mf = _mm_movemask_epi8(_mm_cmpeq_epi32(v, fat)) & 0x0f0f;  // lanes at +0 and +8
    int mz = want_zstd ? _mm_movemask_epi8(_mm_cmpeq_epi32(v, zst)) & 0x0f0f : 0;
    if (mf | mz) {
      for (int lane = 0; lane < 2; ++lane) {
        int bits = 0x0f << (lane * 8);
        if ((mf & bits) == bits) return MagicHit{pos + lane * 8u, false};
        if ((mz & bits) == bits) return MagicHit{pos + lane * 8u, true};
      }
    }
    pos += 16;
  }
#endif
  for (; pos + 4 <= n; pos += 8) {
    uint32_t w;
    std::memcpy(&w, d + pos, 4);
    if (w == kFatbinMagic) return MagicHit{pos, false};
    if (want_zstd && w == kZstdMagic) return MagicHit{pos, true};
  }
  return std::nullopt;
}

struct BareFrame {
  uint64_t compressed_size;
  uint64_t content_size;
  uint8_t head[64];  // first decoded bytes: the cubin's ELF header
};

// A bare zstd frame is accepted only if its first decoded bytes are an EM_CUDA ELF header.
std::optional<BareFrame> bare_cubin_frame(ByteView at) {
  size_t csize = ZSTD_findFrameCompressedSize(at.data(), at.size());
  if (ZSTD_isError(csize)) return std::nullopt;
  unsigned long long usize = ZSTD_getFrameContentSize(at.data(), csize);
  if (usize == ZSTD_CONTENTSIZE_ERROR || usize == ZSTD_CONTENTSIZE_UNKNOWN || usize < 64)
    return std::nullopt;
  // Stream just the first 64 bytes, through one stream per thread: creating one per frame cost
  // a window-sized allocation each time.
  thread_local std::unique_ptr<ZSTD_DStream, size_t (*)(ZSTD_DStream*)> ds(ZSTD_createDStream(),
                                                                           ZSTD_freeDStream);
  if (!ds) return std::nullopt;
  ZSTD_DCtx_reset(ds.get(), ZSTD_reset_session_only);
  BareFrame f{csize, usize, {}};
  ZSTD_inBuffer in{at.data(), csize, 0};
  ZSTD_outBuffer out{f.head, sizeof f.head, 0};
  while (out.pos < out.size && in.pos < in.size) {
    size_t r = ZSTD_decompressStream(ds.get(), &out, &in);
    if (ZSTD_isError(r) || r == 0) break;
  }
  if (out.pos < sizeof f.head || !cubin_sniff(ByteView(f.head, out.pos))) return std::nullopt;
  return f;
}

}  // namespace

DeviceImage image_from_entry(const FatbinEntry& e, const std::string& section, uint64_t container,
                             bool relocatable, uint64_t base_offset) {
  DeviceImage img;
  img.target = e.target;
  img.section = section;
  img.container_offset = container;
  img.entry_offset = e.offset;
  img.compression = e.compression;
  img.stored_size = e.payload.size();
  img.uncompressed_size = e.uncompressed_size;
  if (e.target.kind == ImageKind::kPtx) img.ptx_version = Version{e.version_major, e.version_minor};
  if (e.target.kind == ImageKind::kSass) img.elf_abi = e.version_minor;
  img.flags = e.flags;
  img.identifier = e.identifier;
  img.options = e.options;
  img.relocatable = relocatable;
  img.debug = e.debug();
  img.payload_offset = e.payload.file_offset() - base_offset;
  return img;
}

void advise_mapped_pages(ByteView view, int advice) {
  static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  auto begin = reinterpret_cast<uintptr_t>(view.data());
  uintptr_t first = begin & ~(page - 1);  // the pages that hold any of the view
  uintptr_t last = (begin + view.size() + page - 1) & ~(page - 1);
  if (view.data() && last > first) madvise(reinterpret_cast<void*>(first), last - first, advice);
}

// Scans one region (a section, or a whole unparseable file) for containers and bare cubins.
// Containers and bare frames follow one another: each found one is jumped over by its recorded
// size, and the next is looked for right at its end (the chain). The search reads only the bytes
// between them, in windows that start at one page and double, so that an 8-byte gap costs one
// page and a 300 MB .text is read once, sequentially.
void scan_region(ByteView buf, ByteView region, const std::string& section,
                 const InspectOptions& opt, FileInventory& inv, bool release_pages) {
  const bool relocatable = section == "__nv_relfatbin";
  const bool want_zstd = opt.bare_cubins;
  ChainCounts& chain = inv.chain;
  uint64_t pos = 0;
  // A large section is searched byte by byte: in a file mapping, what lies behind the search is
  // dropped every few MiB, so the resident set stays small whatever the section's size.
  constexpr uint64_t kReleaseStep = 8ull << 20;
  constexpr uint64_t kFirstWindow = 4096;
  uint64_t released = 0;
  auto release_behind = [&](uint64_t upto) {
    if (!release_pages || upto < released + kReleaseStep) return;
    release_mapped_pages(region.clamp(released, upto - released));
    released = upto;
  };
  // In a file mapping the search goes window by window: a window is asked for ahead
  // (MADV_WILLNEED: the walk maps the file MADV_RANDOM, so that jumping over a payload reads
  // no readahead around the next header) and a section without a hit (a 300 MB .text) is
  // dropped as it is searched, not once at its end.
  auto find_next = [&](uint64_t from) -> std::optional<MagicHit> {
    uint64_t window = kFirstWindow;
    while (release_pages && from + window < region.size()) {
      uint64_t end = from + window;
      if (window > kFirstWindow) advise_mapped_pages(region.clamp(from, window), MADV_WILLNEED);
      if (auto hit = next_magic(region.clamp(0, end), buf.file_offset(), from, want_zstd))
        return hit;
      release_behind(end);
      from = end - 7;  // candidates whose 4 bytes cross `end` are looked at again
      window = std::min(window * 2, kReleaseStep);
    }
    if (release_pages && from < region.size())
      advise_mapped_pages(region.clamp(from, region.size() - from), MADV_WILLNEED);
    return next_magic(region, buf.file_offset(), from, want_zstd);
  };
  // Where the chain goes on: the first 8-aligned candidate at or after `end` (the search's own
  // alignment), and whether it holds the magic the search would stop at.
  auto count_link = [&](uint64_t end) {
    uint64_t mis = (region.file_offset() - buf.file_offset() + end) & 7;
    uint64_t next = mis ? end + 8 - mis : end;
    if (next + 4 > region.size()) return;  // the region ends: not a break
    uint32_t w = region.read_or_zero<uint32_t>(next);
    if (w == kFatbinMagic || (want_zstd && w == kZstdMagic))
      ++chain.linked;
    else
      ++chain.breaks_gap;
  };
  bool first = true;
  while (auto hit = find_next(pos)) {
    if (first) ++chain.searched_from_section_start;
    first = false;
    release_behind(hit->offset);
    ByteView at = region.clamp(hit->offset, region.size());
    if (hit->zstd) {
      if (auto frame = bare_cubin_frame(at)) {
        DeviceImage img;
        img.in_container = false;
        img.section = section;
        img.container_offset = img.entry_offset = at.file_offset();
        img.compression = Compression::kZstd;
        img.stored_size = frame->compressed_size;
        img.uncompressed_size = frame->content_size;
        img.payload_offset = at.file_offset() - buf.file_offset();
        // Arch comes from the cubin's own ELF header (the variant needs the whole cubin: deep).
        ByteView h(frame->head, sizeof frame->head);
        uint8_t abi = h.read_or_zero<uint8_t>(8);
        uint32_t flags = h.read_or_zero<uint32_t>(48);
        img.elf_abi = abi;
        img.target = SmTarget{ImageKind::kSass,
                              static_cast<int>(abi >= 8 ? (flags >> 8) & 0xff : flags & 0xff),
                              ArchVariant::kBase};
        img.relocatable = h.read_or_zero<uint16_t>(16) == 1;
        inv.images.push_back(std::move(img));
        pos = hit->offset + frame->compressed_size;
        count_link(pos);
        continue;
      }
      ++chain.breaks_not_a_cubin;
      pos = hit->offset + 8;
      continue;
    }
    auto c = parse_fatbin(at);
    if (!c) {
      ++chain.breaks_invalid_container;
      // A magic hit that fails validation is common in code and data (7 in the CUDA 13.0
      // libraries); it is only worth a warning.
      if (inv.warnings.size() < kMaxErrorsPerFile) {
        Error w = c.error();
        w.what = fmt::format("section {}: fatbin magic at {:#x} is not a valid container: {}",
                             section, at.file_offset(), w.what);
        inv.warnings.push_back(std::move(w));
      }
      pos = hit->offset + 8;
      continue;
    }
    ContainerInfo ci{section,           c->offset,         c->size,
                     inv.images.size(), c->entries.size(), relocatable};
    for (const auto& e : c->entries)
      inv.images.push_back(image_from_entry(e, section, c->offset, relocatable, buf.file_offset()));
    inv.containers.push_back(std::move(ci));
    pos = hit->offset + std::max<uint64_t>(c->size, 8);
    count_link(pos);
  }
  if (release_pages) release_mapped_pages(region.clamp(released, region.size()));
}

}  // namespace smcompat::detail
