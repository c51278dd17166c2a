// Inventory speed on the biggest real input there is: libcublasLt.so.13 of CUDA 13.0 (541.6 MB,
// 6,120 fatbin entries, 393 bare zstd cubins; census in ../shared/reference/fatbin-format.md 6).
// Cases: the header inventory of every section with and without the bare-cubin search, the same
// through inspect_file (open + mmap included), and the deep decode of every image (1.4 GB of
// zstd output from .nv_fatbin alone). The file is mapped once and read once before timing, so the
// numbers are warm-cache. Goals on the 2-core machine: inventory <= 60 ms, deep decode <= 0.6 s.
// Reports ms per run, input bytes/s and the process CPU time per run (all threads: robust to
// neighbours on a shared machine); the deep case also decoded bytes/s.
// Set SMCOMPAT_BENCH_FILE to time another file; absent files are reported as skipped.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <ctime>
#include <functional>
#include <string>

#include "smcompat/binary/inventory.hpp"
#include "smcompat/util/mapped_file.hpp"

namespace smcompat {
namespace {

std::string bench_file() {
  if (const char* f = std::getenv("SMCOMPAT_BENCH_FILE"); f && *f) return f;
  std::string dir = "/usr/local/cuda/lib64";
  if (const char* h = std::getenv("CUDA_HOME"); h && *h) dir = std::string(h) + "/lib64";
  return dir + "/libcublasLt.so.13";
}

// The mapped file, paged in once (warm cache); null if it cannot be opened.
const MappedFile* warm_file() {
  static MappedFile* file = [] {
    auto m = MappedFile::open(bench_file());
    if (!m) return static_cast<MappedFile*>(nullptr);
    auto* f = new MappedFile(std::move(*m));
    volatile uint64_t sum = 0;
    for (uint64_t i = 0; i < f->size(); i += 4096) sum = sum + f->view().data()[i];
    return f;
  }();
  return file;
}

void run_inventory(benchmark::State& state, bool deep, bool bare,
                   std::function<bool(const DeviceImage&)> filter = {}) {
  const MappedFile* f = warm_file();
  if (!f) {
    state.SkipWithError((bench_file() + " not found (set SMCOMPAT_BENCH_FILE)").c_str());
    return;
  }
  InspectOptions opt;
  opt.deep = deep;
  opt.bare_cubins = bare;
  opt.deep_filter = std::move(filter);
  size_t images = 0;
  uint64_t decoded = 0;
  const std::clock_t cpu0 = std::clock();
  for (auto _ : state) {
    auto inv = inspect_buffer(f->view(), f->path(), opt);
    images = inv.empty() ? 0 : inv[0].images.size();
    decoded = 0;
    if (!inv.empty())
      for (const auto& img : inv[0].images)
        if (img.cubin || img.ptx)
          decoded += img.uncompressed_size ? img.uncompressed_size : img.stored_size;
    benchmark::DoNotOptimize(inv);
  }
  // CPU time of the whole process (all threads) per run: on a shared machine wall time measures
  // the neighbours too; this does not.
  state.counters["process_cpu_ms"] =
      1000.0 * static_cast<double>(std::clock() - cpu0) / CLOCKS_PER_SEC / state.iterations();
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * f->size()));
  state.counters["images"] = static_cast<double>(images);
  if (deep)
    state.counters["decoded_bytes_per_second"] = benchmark::Counter(
        static_cast<double>(decoded) * state.iterations(), benchmark::Counter::kIsRate);
}

void BM_HeaderInventory(benchmark::State& state) {
  run_inventory(state, false, state.range(0) != 0);
}
BENCHMARK(BM_HeaderInventory)
    ->ArgName("bare_cubins")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_HeaderInventoryFile(benchmark::State& state) {
  if (!warm_file()) {
    state.SkipWithError((bench_file() + " not found (set SMCOMPAT_BENCH_FILE)").c_str());
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize(inspect_file(bench_file(), InspectOptions{}));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * warm_file()->size()));
}
BENCHMARK(BM_HeaderInventoryFile)->Unit(benchmark::kMillisecond)->UseRealTime();

// bare_cubins:0 = every fatbin entry in every section (6,120, 2.32 GB decoded);
// bare_cubins:1 = those plus the 393 bare zstd cubins (6,513 images, 3.55 GB decoded).
void BM_DeepDecode(benchmark::State& state) { run_inventory(state, true, state.range(0) != 0); }
BENCHMARK(BM_DeepDecode)
    ->ArgName("bare_cubins")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(2.0);

// The .nv_fatbin entries alone (5,737 entries, 1.43 GB decoded): what the reference's 1.3 s
// Python timing covers (fatbin-format.md 6), so the two compare like for like.
void BM_DeepDecodeNvFatbin(benchmark::State& state) {
  run_inventory(state, true, false,
                [](const DeviceImage& img) { return img.section == ".nv_fatbin"; });
}
BENCHMARK(BM_DeepDecodeNvFatbin)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);

}  // namespace
}  // namespace smcompat

BENCHMARK_MAIN();
