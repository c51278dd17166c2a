// Pages the header inventory reads (issue 32, item 1), beside the pages it must read.
// Method: the file's pages are evicted from the page cache (posix_fadvise(POSIX_FADV_DONTNEED);
// mincore on a fresh mapping checks that they are gone), inspect_file() runs as `smcompat scan`
// runs it (its own mapping, its own advice), and mincore then counts the file's pages in the
// page cache: every page the inventory faulted in or read, with whatever readahead the kernel
// added for it. That is the physical cost of the inventory (cold), not a guess from sizes.
// The floor printed beside it counts the pages that must be read for the same inventory:
//   headers: the ELF header, section table and section names; every container header and
//     entry header; the stored bytes of images whose kernels are counted at header level (raw,
//     or compressed to at most kSmallCubinBytes); for bare zstd cubins the frame header, the
//     first block (its first 64 decoded bytes give the arch) and every block header (the frame's
//     size comes from walking them);
//   search: the bytes of every searched section that no container or bare cubin covers (the
//     bare-cubin and container search must look at them: device code is found in any section).
// Also timed warm (file in the page cache): inspect_file() wall and process CPU per run.
// SMCOMPAT_BENCH_FILE selects another file (default: CUDA's libcublasLt.so.13).
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>
#define ZSTD_STATIC_LINKING_ONLY  // ZSTD_frameHeaderSize
#include <zstd.h>

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "smcompat/binary/elf.hpp"
#include "smcompat/binary/inventory.hpp"
#include "smcompat/util/mapped_file.hpp"

namespace smcompat {
namespace {

constexpr uint64_t kPage = 4096;

std::string bench_file() {
  if (const char* f = std::getenv("SMCOMPAT_BENCH_FILE"); f && *f) return f;
  return "/usr/local/cuda/lib64/libcublasLt.so.13";
}

// Pages of the file now in the page cache (a fresh mapping of it, asked with mincore).
Result<uint64_t> cached_pages(const std::string& path) {
  SMCOMPAT_TRY(MappedFile m, MappedFile::open(path));
  std::vector<unsigned char> vec((m.size() + kPage - 1) / kPage);
  if (mincore(const_cast<uint8_t*>(m.view().data()), m.size(), vec.data()) != 0)
    return make_error("mincore failed");
  uint64_t n = 0;
  for (unsigned char v : vec) n += v & 1;
  return n;
}

bool evict(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0;
  ::close(fd);
  return ok;
}

// The pages of [offset, offset + size) added to `pages`.
void add_range(std::set<uint64_t>& pages, uint64_t offset, uint64_t size) {
  if (size == 0) return;
  for (uint64_t p = offset / kPage; p <= (offset + size - 1) / kPage; ++p) pages.insert(p);
}

// The pages a bare zstd frame's size and first 64 decoded bytes need: the frame header, the
// first block, every block header, the checksum.
void add_zstd_frame_headers(std::set<uint64_t>& pages, ByteView file, uint64_t offset) {
  ByteView frame = file.clamp(offset, file.size());
  size_t header = ZSTD_frameHeaderSize(frame.data(), frame.size());
  if (ZSTD_isError(header)) return;
  add_range(pages, offset, header);
  uint64_t pos = header;
  for (bool first = true;; first = false) {
    if (pos + 3 > frame.size()) return;
    uint32_t bh = frame.data()[pos] | frame.data()[pos + 1] << 8 | frame.data()[pos + 2] << 16;
    uint64_t size = ((bh >> 1) & 3) == 1 ? 1 : bh >> 3;  // an RLE block stores one byte
    add_range(pages, offset + pos, first ? 3 + size : 3);
    pos += 3 + size;
    if (bh & 1) break;
  }
  add_range(pages, offset + pos, 4);  // a checksum, where the frame has one
}

struct Floor {
  uint64_t header_pages = 0;  // the headers alone
  uint64_t search_pages = 0;  // what the search must read besides (pages not already counted)
  uint64_t images = 0;
};

Floor floor_of(const std::string& path, const FileInventory& inv) {
  Floor f;
  auto m = MappedFile::open(path);
  if (!m) return f;
  ByteView file = m->view();
  auto elf = ElfFile::parse(file);
  if (!elf) return f;
  std::set<uint64_t> headers;
  add_range(headers, 0, 64);
  uint64_t shoff = file.read_or_zero<uint64_t>(40);
  add_range(headers, shoff, uint64_t{file.read_or_zero<uint16_t>(60)} * 64);
  uint16_t shstrndx = file.read_or_zero<uint16_t>(62);
  if (shstrndx < elf->sections().size())
    add_range(headers, elf->sections()[shstrndx].offset, elf->sections()[shstrndx].size);
  // Bytes covered by a container or a bare frame, per section: the search need not read them.
  std::vector<std::pair<uint64_t, uint64_t>> covered;
  for (const auto& c : inv.containers) {
    add_range(headers, c.offset, 16);
    covered.emplace_back(c.offset, c.size);
  }
  for (const auto& img : inv.images) {
    ++f.images;
    if (img.in_container) {
      add_range(headers, img.entry_offset, img.payload_offset - img.entry_offset);
      const bool counted_at_header_level =
          img.compression == Compression::kNone || img.uncompressed_size <= kSmallCubinBytes;
      if (counted_at_header_level && img.target.kind != ImageKind::kLto)
        add_range(headers, img.payload_offset, img.stored_size);
    } else {
      add_zstd_frame_headers(headers, file, img.payload_offset);
      covered.emplace_back(img.payload_offset, img.stored_size);
    }
  }
  std::sort(covered.begin(), covered.end());
  std::set<uint64_t> search;
  for (const auto& s : elf->sections()) {
    if (s.type == kShtNobits || s.type == 0 || s.size == 0) continue;
    uint64_t pos = s.offset, end = s.offset + s.size;
    auto it = std::lower_bound(covered.begin(), covered.end(), std::make_pair(pos, uint64_t{0}));
    for (; it != covered.end() && it->first < end; ++it) {
      if (it->first > pos) add_range(search, pos, it->first - pos);
      pos = std::max(pos, it->first + it->second);
    }
    if (pos < end) add_range(search, pos, end - pos);
  }
  f.header_pages = headers.size();
  for (uint64_t p : search) f.search_pages += !headers.count(p);
  return f;
}

double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// Cold: the pages the header inventory brings into memory, beside its floor.
void BM_HeaderInventoryPagesRead(benchmark::State& state) {
  const std::string path = bench_file();
  if (!std::filesystem::exists(path)) {
    state.SkipWithError(("no " + path).c_str());
    return;
  }
  InspectOptions opt;
  std::vector<FileInventory> result;
  uint64_t before = 0, after = 0;
  for (auto _ : state) {
    state.PauseTiming();
    evict(path);
    before = cached_pages(path).value_or(0);
    state.ResumeTiming();
    result = inspect_file(path, opt);
    state.PauseTiming();
    after = cached_pages(path).value_or(0);
    state.ResumeTiming();
  }
  if (result.empty()) return;
  Floor f = floor_of(path, result.front());
  const uint64_t file_pages = (std::filesystem::file_size(path) + kPage - 1) / kPage;
  state.counters["pages_read"] = static_cast<double>(after - before);
  state.counters["cached_before"] = static_cast<double>(before);
  state.counters["floor_headers"] = static_cast<double>(f.header_pages);
  state.counters["floor_search"] = static_cast<double>(f.search_pages);
  state.counters["file_pages"] = static_cast<double>(file_pages);
  state.counters["images"] = static_cast<double>(f.images);
  const ChainCounts& chain = result.front().chain;
  fmt::print(stderr,
             "chain: {} sections searched from their start, {} linked, breaks: {} gap, {} invalid "
             "container, {} zstd magic without a cubin\n",
             chain.searched_from_section_start, chain.linked, chain.breaks_gap,
             chain.breaks_invalid_container, chain.breaks_not_a_cubin);
  fmt::print(stderr,
             "{}: {} images; pages read cold {} (of {} in the file; {} cached before); floor {} "
             "= {} header pages + {} the search must read\n",
             path, f.images, after - before, file_pages, before, f.header_pages + f.search_pages,
             f.header_pages, f.search_pages);
}
BENCHMARK(BM_HeaderInventoryPagesRead)->Unit(benchmark::kMillisecond)->Iterations(1);

// Warm: the file in the page cache, inspect_file() as `smcompat scan` calls it.
void BM_HeaderInventoryWarm(benchmark::State& state) {
  const std::string path = bench_file();
  if (!std::filesystem::exists(path)) {
    state.SkipWithError(("no " + path).c_str());
    return;
  }
  InspectOptions opt;
  (void)inspect_file(path, opt);  // into the page cache
  double cpu = 0;
  for (auto _ : state) {
    double c0 = process_cpu_seconds();
    auto r = inspect_file(path, opt);
    cpu += process_cpu_seconds() - c0;
    benchmark::DoNotOptimize(r);
  }
  state.counters["cpu_ms"] =
      benchmark::Counter(cpu * 1e3 / static_cast<double>(state.iterations()));
}
BENCHMARK(BM_HeaderInventoryWarm)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);

}  // namespace
}  // namespace smcompat

BENCHMARK_MAIN();
