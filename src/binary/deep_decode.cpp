// The deep decode of the inventory: each image's payload is decompressed (into per-thread
// scratch) and parsed as a cubin or a PTX header, in parallel, shared payloads once. Private to
// binary/ (inventory_internal.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "inventory_internal.hpp"
#include "smcompat/binary/elf.hpp"
#include "smcompat/util/mapped_file.hpp"
#include "smcompat/util/thread_pool.hpp"

namespace smcompat::detail {

// Decodes an image's payload; the result views either the original bytes (raw payloads) or
// `scratch` (valid until the next call with the same scratch).
Result<ByteView> decode_payload(ByteView buf, const DeviceImage& img, uint64_t max_output,
                                Scratch& scratch) {
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
  SMCOMPAT_CHECK(decompress_into(img.compression, stored, dst, usize));
  uint64_t n = usize;
  if (img.target.kind == ImageKind::kPtx)
    while (n > 0 && dst[n - 1] == 0) --n;  // usize counts the NUL (and padding)
  return ByteView(dst, n, 0);
}

namespace {

// Decodes one image and fills its deep details (or its decode_error).
void decode_one(ByteView buf, const InspectOptions& opt, DeviceImage& img) {
  thread_local Scratch scratch;
  auto payload = decode_payload(buf, img, opt.max_decoded_bytes, scratch);
  if (!payload) {
    img.decode_error = payload.error();
    return;
  }
  if (img.target.kind == ImageKind::kPtx) {
    auto h = parse_ptx_header(payload->as_string_view(), true);
    if (h) {
      img.kernels = static_cast<uint32_t>(h->entries.size());
      img.ptx = std::move(*h);
    } else
      img.decode_error = h.error();
  } else {
    auto c = parse_cubin(*payload, true);
    if (!c) {
      img.decode_error = c.error();
      return;
    }
    // Variant from the cubin where the container said nothing (bare cubins).
    if (!img.in_container && c->variant) img.target.variant = *c->variant;
    img.kernels = static_cast<uint32_t>(c->kernels.size());
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

}  // namespace

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
    img.kernels = from.kernels;
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

void count_header_level_kernels(ByteView buf, FileInventory& inv, bool release_pages) {
  Scratch scratch;
  // Identical stored payloads (same bytes, kind, compression and declared size) give the same
  // count: libcublasLt.so.13 holds 4,682 small compressed images, mostly copies of a few, and
  // inflating each was most of its header inventory's CPU (a zstd frame costs its table set-up
  // however small it is).
  struct SmallPayload {
    std::string_view stored;
    ImageKind kind;
    Compression compression;
    uint64_t uncompressed_size;
    bool operator==(const SmallPayload&) const = default;
  };
  struct SmallPayloadHash {
    size_t operator()(const SmallPayload& p) const {
      return std::hash<std::string_view>()(p.stored) ^ (p.uncompressed_size * 0x9e3779b97f4a7c15u);
    }
  };
  std::unordered_map<SmallPayload, std::optional<uint32_t>, SmallPayloadHash> counted;
  for (auto& img : inv.images) {
    if (img.target.kind == ImageKind::kLto || img.kernels || img.decode_error) continue;
    // Raw images are read in place, whatever their size (cuda-cccl's kernel-less cubins reach
    // 9.5 KB); compressed ones are inflated only when small.
    if (img.compression != Compression::kNone && img.uncompressed_size > kSmallCubinBytes) continue;
    auto stored = buf.sub(img.payload_offset, img.stored_size);
    std::optional<SmallPayload> key;
    if (stored && img.compression != Compression::kNone) {
      key = SmallPayload{stored->as_string_view(), img.target.kind, img.compression,
                         img.uncompressed_size};
      if (auto it = counted.find(*key); it != counted.end()) {
        img.kernels = it->second;
        continue;
      }
    }
    std::optional<uint32_t> kernels;
    if (auto payload = decode_payload(buf, img, kSmallCubinBytes, scratch)) {
      if (img.target.kind == ImageKind::kPtx) {
        if (auto h = parse_ptx_header(payload->as_string_view(), true))
          kernels = static_cast<uint32_t>(h->entries.size());
      } else if (auto c = parse_cubin(*payload, true)) {
        kernels = static_cast<uint32_t>(c->kernels.size());
      }
    }
    // A payload that does not decode keeps its count unknown (the deep decode reports why).
    img.kernels = kernels;
    if (key) counted.emplace(*key, kernels);
    if (release_pages) release_mapped_pages(buf.clamp(img.payload_offset, img.stored_size));
  }
}

}  // namespace smcompat::detail
