// libFuzzer target for the binary/ parsers: the whole inventory (ELF, fatbin, cubin, PTX header,
// ar and zip walking, zstd/LZ4 decoding) with deep decode on, plus each parser called directly on
// the same bytes so that none hides behind another's sniffing. Invariants checked: every image's
// stored payload lies inside the input, and decoding never returns more than the limit.
// Seeds: fuzz/corpus/binary/ (docs/testing.md). Replayed in CTest (fuzz_replay_binary) and run
// for a few seconds under ASan+UBSan (fuzz_run_binary).
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "smcompat/binary/cubin.hpp"
#include "smcompat/binary/elf.hpp"
#include "smcompat/binary/fatbin.hpp"
#include "smcompat/binary/inventory.hpp"
#include "smcompat/binary/ptx_header.hpp"

namespace {

constexpr uint64_t kLimit = 16 << 20;  // decode limit: keeps each run fast and within rss limits

// A broken invariant is a bug the fuzzer must report: crash loudly.
void check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace smcompat;
  const ByteView bytes(data, size);

  InspectOptions opt;
  opt.deep = true;
  opt.jobs = 1;
  opt.max_decoded_bytes = kLimit;
  opt.max_member_bytes = kLimit;
  auto inv = inspect_buffer(bytes, "fuzz-input", opt);
  check(!inv.empty());
  for (const auto& img : inv[0].images) {  // the top-level file's images index into `bytes`
    check(img.payload_offset <= size && img.stored_size <= size - img.payload_offset);
    auto d = decode_image(bytes, img, kLimit);
    if (d) check(d->size() <= kLimit);
  }

  // Each parser directly.
  if (auto c = parse_fatbin(bytes)) {
    check(c->size <= size);
    for (const auto& e : c->entries) {
      auto d = decode_entry(e, kLimit);
      if (d) check(d->size() <= kLimit);
    }
  }
  if (auto elf = ElfFile::parse(bytes)) {
    for (const auto& s : elf->sections()) (void)elf->section_data(s);
    (void)elf->symbols();
    (void)elf->symbols(kShtDynsym);
    for (const auto& s : elf->sections())
      if (s.type == kShtNote) (void)elf->notes(s);
  }
  (void)parse_cubin(bytes, true);
  (void)parse_ptx_header(std::string_view(reinterpret_cast<const char*>(data), size), true);
  if (auto d = decode_zstd_frame(bytes, kLimit)) check(d->size() <= kLimit);

  // The in-memory path (trace shim) for everything but the wrapper, whose `data` field is a
  // pointer the shim trusts by design.
  if (size >= 4 && bytes.read_or_zero<uint32_t>(0) != kFatbinWrapperMagic)
    (void)inspect_memory_image(data, size, opt);
  return 0;
}
