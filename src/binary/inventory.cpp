// Inventory of device code in any file (include/smcompat/binary/inventory.hpp).
// Scanner checklist: ../shared/reference/fatbin-format.md section 7. Containers are searched in
// every non-NOBITS section at 8-aligned file offsets and validated; bare zstd frames holding an
// EM_CUDA ELF are found outside containers. Archives and wheels are walked member by member.
#include "smcompat/binary/inventory.hpp"

#include <fmt/format.h>
#include <zip.h>
#include <zstd.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <cstring>
#include <iterator>
#include <memory>
#include <unordered_map>

#include "decode_internal.hpp"
#include "smcompat/binary/elf.hpp"
#include "smcompat/util/mapped_file.hpp"
#include "smcompat/util/strings.hpp"
#include "smcompat/util/thread_pool.hpp"

namespace smcompat {

namespace {

constexpr uint64_t kMaxErrorsPerFile = 200;  // a hostile file cannot flood the report

// ---------------------------------------------------------------------------------------------
// Magic search: 8-aligned file offsets whose u32 equals the fatbin or zstd magic.

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
  // Stream just the first 64 bytes.
  std::unique_ptr<ZSTD_DStream, size_t (*)(ZSTD_DStream*)> ds(ZSTD_createDStream(),
                                                              ZSTD_freeDStream);
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

// Scans one region (a section, or a whole unparseable file) for containers and bare cubins.
void scan_region(ByteView buf, ByteView region, const std::string& section,
                 const InspectOptions& opt, FileInventory& inv) {
  const bool relocatable = section == "__nv_relfatbin";
  const bool want_zstd = opt.bare_cubins;
  uint64_t pos = 0;
  while (auto hit = next_magic(region, buf.file_offset(), pos, want_zstd)) {
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
        continue;
      }
      pos = hit->offset + 8;
      continue;
    }
    auto c = parse_fatbin(at);
    if (!c) {
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
  }
}

// ---------------------------------------------------------------------------------------------
// Deep decode.

// Decodes an image's payload; the result views either the original bytes (raw payloads) or
// `scratch` (valid until the next call with the same scratch).
Result<ByteView> decode_payload(ByteView buf, const DeviceImage& img, uint64_t max_output,
                                detail::Scratch& scratch) {
  if (img.target.kind == ImageKind::kLto)
    return make_error("LTO-IR payload is opaque (input to nvJitLink); not decoded",
                      buf.file_offset() + img.payload_offset);
  SMCOMPAT_TRY(ByteView stored, buf.sub(img.payload_offset, img.stored_size));
  if (img.compression == Compression::kNone) {
    if (img.target.kind == ImageKind::kPtx) {
      const void* nul = std::memchr(stored.data(), 0, stored.size());
      uint64_t n = nul ? static_cast<const uint8_t*>(nul) - stored.data() : stored.size();
      return stored.clamp(0, n);
    }
    if (auto elf = ElfFile::parse(stored); elf && elf->described_size() < stored.size())
      return stored.clamp(0, elf->described_size());
    return stored;
  }
  uint64_t usize = img.uncompressed_size;
  if (usize == 0) return stored.error_at(0, "compressed image declares an uncompressed size of 0");
  if (usize > max_output)
    return stored.error_at(0, fmt::format("image declares {} uncompressed bytes, above the {}-byte "
                                          "limit (decompression-bomb guard)",
                                          usize, max_output));
  uint8_t* dst = scratch.reserve(usize);
  SMCOMPAT_CHECK(detail::decompress_into(img.compression, stored, dst, usize));
  uint64_t n = usize;
  if (img.target.kind == ImageKind::kPtx)
    while (n > 0 && dst[n - 1] == 0) --n;  // usize counts the NUL (and padding)
  return ByteView(dst, n, 0);
}

// Decodes one image and fills its deep details (or its decode_error).
void decode_one(ByteView buf, const InspectOptions& opt, DeviceImage& img) {
  thread_local detail::Scratch scratch;
  auto payload = decode_payload(buf, img, opt.max_decoded_bytes, scratch);
  if (!payload) {
    img.decode_error = payload.error();
    return;
  }
  if (img.target.kind == ImageKind::kPtx) {
    auto h = parse_ptx_header(payload->as_string_view(), true);
    if (h)
      img.ptx = std::move(*h);
    else
      img.decode_error = h.error();
  } else {
    auto c = parse_cubin(*payload, true);
    if (!c) {
      img.decode_error = c.error();
      return;
    }
    // Variant from the cubin where the container said nothing (bare cubins).
    if (!img.in_container && c->variant) img.target.variant = *c->variant;
    img.cubin = std::move(*c);
  }
}

// Compressed images whose stored bytes equal an earlier one's (same kind, same declared size)
// decode to the same details: libcublasLt.so.13 has 6,513 images and only 1,886 distinct
// payloads. Returns, per image, the index of the image it copies, or itself. Raw payloads are
// not shared: their errors carry their own file offsets.
std::vector<size_t> shared_payloads(ByteView buf, const std::vector<DeviceImage>& images,
                                    const std::vector<bool>& wanted) {
  std::vector<size_t> source(images.size());
  struct Key {
    uint64_t stored, decoded, head, tail;
    int kind, compression;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return std::hash<uint64_t>()(k.head ^ (k.tail * 0x9e3779b97f4a7c15ull) ^ (k.stored << 20) ^
                                   k.decoded);
    }
  };
  std::unordered_map<Key, std::vector<size_t>, KeyHash> first_of;
  for (size_t i = 0; i < images.size(); ++i) {
    source[i] = i;
    const DeviceImage& img = images[i];
    if (!wanted[i] || img.compression == Compression::kNone) continue;
    auto stored = buf.sub(img.payload_offset, img.stored_size);
    if (!stored || stored->size() < 8) continue;
    Key key{stored->size(),
            img.uncompressed_size,
            stored->read_or_zero<uint64_t>(0),
            stored->read_or_zero<uint64_t>(stored->size() - 8),
            static_cast<int>(img.target.kind),
            static_cast<int>(img.compression)};
    auto& candidates = first_of[key];
    for (size_t c : candidates) {
      const DeviceImage& other = images[c];
      if (std::memcmp(buf.data() + other.payload_offset, stored->data(), stored->size()) == 0) {
        source[i] = c;
        break;
      }
    }
    if (source[i] == i) candidates.push_back(i);
  }
  return source;
}

void deep_decode(ByteView buf, const InspectOptions& opt, FileInventory& inv) {
  std::vector<bool> wanted(inv.images.size());
  for (size_t i = 0; i < inv.images.size(); ++i) {
    const DeviceImage& img = inv.images[i];
    wanted[i] = img.target.kind != ImageKind::kLto && (!opt.deep_filter || opt.deep_filter(img));
  }
  const std::vector<size_t> source = shared_payloads(buf, inv.images, wanted);
  // Largest images first, so that no big one is left running alone at the end (sizes range from
  // kilobytes to tens of megabytes).
  std::vector<size_t> order;
  for (size_t i = 0; i < inv.images.size(); ++i)
    if (wanted[i] && source[i] == i) order.push_back(i);
  auto decoded_size = [&](size_t i) {
    const DeviceImage& img = inv.images[i];
    return img.uncompressed_size ? img.uncompressed_size : img.stored_size;
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return decoded_size(a) > decoded_size(b); });
  parallel_for(order.size(), opt.jobs,
               [&](size_t k) { decode_one(buf, opt, inv.images[order[k]]); });
  // Copies get the details of the image they share bytes with; a failed decode is repeated for
  // each copy so that its error names the copy's own offsets.
  for (size_t i = 0; i < inv.images.size(); ++i) {
    if (source[i] == i) continue;
    const DeviceImage& from = inv.images[source[i]];
    DeviceImage& img = inv.images[i];
    if (from.decode_error) {
      decode_one(buf, opt, img);
      continue;
    }
    img.ptx = from.ptx;
    img.cubin = from.cubin;
    if (img.cubin && !img.in_container && img.cubin->variant)
      img.target.variant = *img.cubin->variant;
  }
  for (const auto& img : inv.images) {
    if (img.decode_error && inv.errors.size() < kMaxErrorsPerFile) {
      Error e = *img.decode_error;
      if (!e.offset) e.offset = img.entry_offset;
      e.what =
          fmt::format("{} image at {:#x}: {}", img.target.to_string(), img.entry_offset, e.what);
      inv.errors.push_back(std::move(e));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Formats.

bool name_is_candidate(std::string_view name) {
  // Members of zips worth reading: shared objects, objects, archives, device code, nested zips.
  auto base = name.substr(name.rfind('/') == std::string_view::npos ? 0 : name.rfind('/') + 1);
  if (base.empty()) return false;
  for (auto ext : {".a", ".o", ".cubin", ".fatbin", ".ptx", ".whl", ".zip", ".so", ".bin"})
    if (base.ends_with(ext)) return true;
  return base.find(".so.") != std::string_view::npos;
}

using Sink = std::function<void(FileInventory&&, ByteView)>;

void walk(ByteView bytes, const std::string& path, const std::string& member,
          const InspectOptions& opt, int depth, const Sink& sink);

void inspect_elf(ByteView bytes, const InspectOptions& opt, FileInventory& inv) {
  auto elf = ElfFile::parse(bytes);
  if (!elf) {
    inv.errors.push_back(elf.error());
    // Still look for validated containers in the raw bytes: a truncated .so loses its section
    // table (at the end of the file) but not its device code.
    scan_region(bytes, bytes, "<raw>", opt, inv);
    return;
  }
  if (elf->is_cuda()) {
    inv.format = FileFormat::kCubin;
    if (elf->described_size() > bytes.size())
      inv.errors.push_back(bytes.error_at(
          bytes.size(), fmt::format("file is truncated: its headers describe {:#x} bytes",
                                    elf->described_size())));
    auto c = parse_cubin(bytes, false);
    if (!c) {
      inv.errors.push_back(c.error());
      return;
    }
    DeviceImage img;
    img.in_container = false;
    img.target = SmTarget{ImageKind::kSass, c->sm, c->variant.value_or(ArchVariant::kBase)};
    img.stored_size = bytes.size();
    img.elf_abi = c->abi_version;
    img.relocatable = c->relocatable;
    img.debug = c->debug;
    img.payload_offset = 0;
    inv.images.push_back(std::move(img));
    return;
  }
  inv.format = FileFormat::kHostElf;
  if (elf->described_size() > bytes.size())
    inv.errors.push_back(bytes.error_at(
        bytes.size(),
        fmt::format("file is truncated: its headers describe {:#x} bytes", elf->described_size())));
  // Sections are scanned in parallel, each into its own partial inventory, merged in order.
  std::vector<const ElfSection*> regions;
  for (const auto& s : elf->sections())
    if (s.type != kShtNobits && s.size != 0 && s.type != 0) regions.push_back(&s);
  std::vector<FileInventory> parts(regions.size());
  parallel_for(regions.size(), opt.jobs, [&](size_t i) {
    auto data = elf->section_data(*regions[i]);
    if (!data)
      parts[i].errors.push_back(data.error());
    else
      scan_region(bytes, *data, regions[i]->name, opt, parts[i]);
  });
  for (auto& part : parts) {
    size_t base = inv.images.size();
    for (auto& c : part.containers) {
      c.first_image += base;
      inv.containers.push_back(std::move(c));
    }
    std::move(part.images.begin(), part.images.end(), std::back_inserter(inv.images));
    std::move(part.errors.begin(), part.errors.end(), std::back_inserter(inv.errors));
    std::move(part.warnings.begin(), part.warnings.end(), std::back_inserter(inv.warnings));
  }
}

void inspect_fatbin_file(ByteView bytes, const InspectOptions& opt, FileInventory& inv) {
  uint64_t pos = 0;
  while (pos < bytes.size() && fatbin_sniff(bytes.clamp(pos, 16))) {  // < 16 bytes: an error
    auto c = parse_fatbin(bytes.clamp(pos, bytes.size()));
    if (!c) {
      inv.errors.push_back(c.error());
      return;
    }
    ContainerInfo ci{"", c->offset, c->size, inv.images.size(), c->entries.size(), false};
    for (const auto& e : c->entries)
      inv.images.push_back(image_from_entry(e, "", c->offset, false, bytes.file_offset()));
    inv.containers.push_back(std::move(ci));
    pos += c->size;
    pos = (pos + 7) & ~uint64_t{7};
  }
}

void inspect_ptx_file(ByteView bytes, FileInventory& inv) {
  auto h = parse_ptx_header(bytes.as_string_view(), false);
  if (!h) {
    inv.errors.push_back(h.error());
    return;
  }
  DeviceImage img;
  img.in_container = false;
  img.target = h->target;
  img.ptx_version = h->version;
  img.stored_size = bytes.size();
  img.debug = h->debug;
  inv.images.push_back(std::move(img));
}

// "!<arch>\n" static archives: 60-byte member headers, GNU long-name table "//".
void walk_archive(ByteView bytes, const std::string& path, const std::string& member,
                  const InspectOptions& opt, int depth, const Sink& sink, FileInventory& self) {
  uint64_t pos = 8;
  ByteView long_names;
  while (pos + 60 <= bytes.size()) {
    ByteView h = bytes.clamp(pos, 60);
    auto hs = h.as_string_view();
    if (hs.substr(58, 2) != "`\n") {
      self.errors.push_back(h.error_at(58, "archive member header has a bad terminator"));
      return;
    }
    auto size = parse_uint(trim(hs.substr(48, 10)));
    if (!size) {
      self.errors.push_back(h.error_at(
          48, fmt::format("archive member size '{}' is not a number", trim(hs.substr(48, 10)))));
      return;
    }
    auto data = bytes.sub(pos + 60, *size);
    if (!data) {
      self.errors.push_back(
          h.error_at(48, fmt::format("archive member of {} bytes extends past the "
                                     "end of the archive",
                                     *size)));
      return;
    }
    std::string name(trim(hs.substr(0, 16)));
    if (name == "//") {
      long_names = *data;
    } else if (name != "/" && name != "/SYM64/" && name != "__.SYMDEF") {
      if (name.size() > 1 && name[0] == '/' && std::isdigit(static_cast<unsigned char>(name[1]))) {
        auto idx = parse_uint(name.substr(1));
        if (idx && *idx < long_names.size()) {
          auto s = long_names.clamp(*idx, long_names.size()).as_string_view();
          name = std::string(s.substr(0, s.find('\n')));
        }
      }
      if (!name.empty() && name.back() == '/') name.pop_back();
      std::string sub = member.empty() ? name : member + "!" + name;
      // Offsets (and the 8-byte alignment of containers) are relative to the member itself.
      walk(ByteView(data->data(), data->size(), 0), path, sub, opt, depth + 1, sink);
    }
    pos += 60 + *size;
    pos += pos & 1;
  }
  if (pos < bytes.size())
    self.errors.push_back(bytes.error_at(pos, fmt::format("archive ends inside a member header "
                                                          "({} of 60 bytes)",
                                                          bytes.size() - pos)));
}

struct ZipCloser {
  void operator()(zip_t* z) const { zip_discard(z); }
};

void walk_zip(ByteView bytes, const std::string& path, const std::string& member,
              const InspectOptions& opt, int depth, const Sink& sink, FileInventory& self) {
  zip_error_t err;
  zip_error_init(&err);
  zip_source_t* src = zip_source_buffer_create(bytes.data(), bytes.size(), 0, &err);
  if (!src) {
    self.errors.push_back(bytes.error_at(0, fmt::format("zip: {}", zip_error_strerror(&err))));
    zip_error_fini(&err);
    return;
  }
  std::unique_ptr<zip_t, ZipCloser> z(zip_open_from_source(src, ZIP_RDONLY, &err));
  if (!z) {
    zip_source_free(src);
    self.errors.push_back(bytes.error_at(0, fmt::format("zip: {}", zip_error_strerror(&err))));
    zip_error_fini(&err);
    return;
  }
  zip_error_fini(&err);
  zip_int64_t n = zip_get_num_entries(z.get(), 0);
  for (zip_int64_t i = 0; i < n; ++i) {
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(z.get(), i, 0, &st) != 0 || !st.name) continue;
    std::string name = st.name;
    if (!name_is_candidate(name)) continue;
    std::string sub = member.empty() ? name : member + "!" + name;
    FileInventory minv;
    minv.path = path;
    minv.member = sub;
    if (!(st.valid & ZIP_STAT_SIZE) || st.size > opt.max_member_bytes) {
      minv.errors.push_back(
          make_error(fmt::format("zip member declares {} bytes, above the {}-byte "
                                 "limit; not read",
                                 st.size, opt.max_member_bytes)));
      for (auto& e : minv.errors) e.in_file(minv.display_name());
      sink(std::move(minv), {});
      continue;
    }
    std::unique_ptr<zip_file_t, int (*)(zip_file_t*)> f(zip_fopen_index(z.get(), i, 0), zip_fclose);
    if (!f) {
      minv.errors.push_back(
          make_error(fmt::format("zip member cannot be opened: {}", zip_strerror(z.get()))));
      for (auto& e : minv.errors) e.in_file(minv.display_name());
      sink(std::move(minv), {});
      continue;
    }
    // Read in chunks so memory grows with the bytes that really arrive, not with the declared
    // size: a 350 KB wheel declaring a 3.75 GiB member must not allocate (or fail to) 3.75 GiB.
    std::vector<uint8_t> data;
    zip_int64_t got = 0;
    while (static_cast<uint64_t>(got) < st.size) {
      uint64_t chunk = std::min<uint64_t>(st.size - got, 16 << 20);
      data.resize(got + chunk);
      zip_int64_t r = zip_fread(f.get(), data.data() + got, chunk);
      if (r < 0) got = -1;
      if (r <= 0) break;
      got += r;
    }
    if (got >= 0) data.resize(got);
    if (got < 0 || static_cast<uint64_t>(got) != st.size) {
      // libzip verifies the CRC and the declared size: a member that lies about either ends here.
      minv.errors.push_back(make_error(
          fmt::format("zip member does not match its declared size of {} bytes (read {}): {}",
                      st.size, got, got < 0 ? zip_file_strerror(f.get()) : "short read")));
      for (auto& e : minv.errors) e.in_file(minv.display_name());
      sink(std::move(minv), {});
      continue;
    }
    walk(ByteView(data.data(), data.size(), 0), path, sub, opt, depth + 1, sink);
  }
}

void walk(ByteView bytes, const std::string& path, const std::string& member,
          const InspectOptions& opt, int depth, const Sink& sink) {
  FileInventory inv;
  inv.path = path;
  inv.member = member;
  inv.size = bytes.size();
  inv.format = sniff_format(bytes, member.empty() ? path : member);
  if (depth > opt.max_nesting) {
    inv.errors.push_back(
        make_error(fmt::format("nested more than {} levels deep; not read", opt.max_nesting)));
    sink(std::move(inv), bytes);
    return;
  }
  switch (inv.format) {
    case FileFormat::kHostElf:
    case FileFormat::kCubin:
      inspect_elf(bytes, opt, inv);
      break;
    case FileFormat::kFatbin:
      inspect_fatbin_file(bytes, opt, inv);
      break;
    case FileFormat::kPtx:
      inspect_ptx_file(bytes, inv);
      break;
    case FileFormat::kArchive:
      walk_archive(bytes, path, member, opt, depth, sink, inv);
      break;
    case FileFormat::kZip:
      walk_zip(bytes, path, member, opt, depth, sink, inv);
      break;
    case FileFormat::kUnknown:
      break;
  }
  if (opt.deep && !inv.images.empty()) deep_decode(bytes, opt, inv);
  for (auto& e : inv.errors) e.in_file(inv.display_name());
  for (auto& e : inv.warnings) e.in_file(inv.display_name());
  sink(std::move(inv), bytes);
}

}  // namespace

const char* to_string(FileFormat f) {
  switch (f) {
    case FileFormat::kUnknown:
      return "unknown";
    case FileFormat::kHostElf:
      return "elf";
    case FileFormat::kCubin:
      return "cubin";
    case FileFormat::kFatbin:
      return "fatbin";
    case FileFormat::kPtx:
      return "ptx";
    case FileFormat::kArchive:
      return "ar";
    case FileFormat::kZip:
      return "zip";
  }
  return "?";
}

FileFormat sniff_format(ByteView bytes, std::string_view name_hint) {
  if (ElfFile::sniff(bytes)) return cubin_sniff(bytes) ? FileFormat::kCubin : FileFormat::kHostElf;
  if (fatbin_sniff(bytes)) return FileFormat::kFatbin;
  auto s = bytes.clamp(0, 8).as_string_view();
  if (s == "!<arch>\n") return FileFormat::kArchive;
  if (s.starts_with("PK\x03\x04") || s.starts_with("PK\x05\x06")) return FileFormat::kZip;
  if (ptx_sniff(bytes.clamp(0, 1 << 16).as_string_view())) return FileFormat::kPtx;
  (void)name_hint;
  return FileFormat::kUnknown;
}

std::vector<FileInventory> inspect_buffer(ByteView bytes, const std::string& path,
                                          const InspectOptions& options) {
  std::vector<FileInventory> out;
  walk(bytes, path, "", options, 0,
       [&](FileInventory&& inv, ByteView) { out.push_back(std::move(inv)); });
  // The container file itself comes first; members follow in walk order. Members without device
  // code or problems are dropped to keep reports small.
  std::vector<FileInventory> kept;
  for (size_t i = 0; i < out.size(); ++i) {
    bool top = out[i].member.empty();
    if (top || !out[i].images.empty() || !out[i].errors.empty()) kept.push_back(std::move(out[i]));
  }
  std::stable_partition(kept.begin(), kept.end(),
                        [](const FileInventory& f) { return f.member.empty(); });
  return kept;
}

std::vector<FileInventory> inspect_file(const std::string& path, const InspectOptions& options) {
  auto mf = MappedFile::open(path);
  if (!mf) {
    FileInventory inv;
    inv.path = path;
    inv.errors.push_back(mf.error());
    return {std::move(inv)};
  }
  return inspect_buffer(mf->view(), path, options);
}

Result<std::vector<uint8_t>> decode_image(ByteView bytes, const DeviceImage& image,
                                          uint64_t max_output) {
  detail::Scratch scratch;
  SMCOMPAT_TRY(ByteView v, decode_payload(bytes, image, max_output, scratch));
  if (v.size() > max_output)
    return v.error_at(
        0, fmt::format("payload of {} bytes is above the {}-byte limit", v.size(), max_output));
  return std::vector<uint8_t>(v.data(), v.data() + v.size());
}

bool visit_images(const std::string& path, const InspectOptions& options, const ImageVisitor& visit,
                  const ErrorVisitor& on_error) {
  auto mf = MappedFile::open(path);
  if (!mf) {
    if (on_error) {
      FileInventory inv;
      inv.path = path;
      on_error(inv, mf.error());
    }
    return false;
  }
  InspectOptions shallow = options;
  shallow.deep = false;
  walk(mf->view(), path, "", shallow, 0, [&](FileInventory&& inv, ByteView bytes) {
    if (on_error)
      for (const auto& e : inv.errors) on_error(inv, e);
    detail::Scratch scratch;
    for (const auto& img : inv.images) {
      if (img.target.kind == ImageKind::kLto) continue;
      auto payload = decode_payload(bytes, img, options.max_decoded_bytes, scratch);
      if (!payload) {
        if (on_error) {
          Error e = payload.error();
          e.in_file(inv.display_name());
          on_error(inv, e);
        }
        continue;
      }
      visit(inv, img, *payload);
    }
  });
  return true;
}

FileInventory inspect_memory_image(const void* image, uint64_t max_size,
                                   const InspectOptions& options) {
  FileInventory inv;
  inv.path = "<memory>";
  if (!image || max_size < 4) {
    inv.errors.push_back(make_error("null or empty image"));
    return inv;
  }
  ByteView probe(static_cast<const uint8_t*>(image), std::min<uint64_t>(max_size, 16));
  uint32_t magic = probe.read_or_zero<uint32_t>(0);
  ByteView bytes;
  if (magic == kFatbinWrapperMagic) {  // __fatBinC_Wrapper_t: the container is at `data`
    ByteView w(static_cast<const uint8_t*>(image), std::min<uint64_t>(max_size, 24));
    uint64_t data = w.read_or_zero<uint64_t>(8);
    if (!data) {
      inv.errors.push_back(make_error("fatbin wrapper has a null data pointer"));
      return inv;
    }
    // A wrapper points at a container, never at another wrapper: unwrap exactly one level (a
    // wrapper pointing at itself must not recurse).
    const void* inner = reinterpret_cast<const void*>(data);
    if (ByteView(static_cast<const uint8_t*>(inner), 4).read_or_zero<uint32_t>(0) ==
        kFatbinWrapperMagic) {
      inv.errors.push_back(make_error("fatbin wrapper points at another wrapper, not a container"));
      return inv;
    }
    return inspect_memory_image(inner, max_size, options);
  }
  if (magic == kFatbinMagic) {
    ByteView h(static_cast<const uint8_t*>(image), std::min<uint64_t>(max_size, 16));
    auto total = checked_add(16, h.read_or_zero<uint64_t>(8));
    bytes = ByteView(static_cast<const uint8_t*>(image),
                     std::min<uint64_t>(total.value_or(16), max_size));
  } else if (ElfFile::sniff(probe)) {
    // The header table gives the extent: read the 64-byte header first, then the section table.
    ByteView head(static_cast<const uint8_t*>(image), std::min<uint64_t>(max_size, 64));
    uint64_t shoff = head.read_or_zero<uint64_t>(40);
    uint64_t extent = 64;
    if (auto t = checked_add(
            shoff, uint64_t{head.read_or_zero<uint16_t>(60)} * head.read_or_zero<uint16_t>(58)))
      extent = std::max(extent, *t);
    extent = std::min(extent, max_size);
    auto elf = ElfFile::parse(ByteView(static_cast<const uint8_t*>(image), extent));
    if (elf) extent = std::min(std::max(extent, elf->described_size()), max_size);
    bytes = ByteView(static_cast<const uint8_t*>(image), extent);
  } else {
    const void* nul = std::memchr(image, 0, max_size);
    uint64_t n =
        nul ? static_cast<const uint8_t*>(nul) - static_cast<const uint8_t*>(image) : max_size;
    bytes = ByteView(static_cast<const uint8_t*>(image), n);
  }
  auto all = inspect_buffer(bytes, "<memory>", options);
  if (all.empty()) return inv;
  inv = std::move(all.front());
  if (inv.format == FileFormat::kUnknown && inv.images.empty())
    inv.errors.push_back(make_error("image is not a fatbin wrapper, fatbin, cubin or PTX text"));
  return inv;
}

}  // namespace smcompat
