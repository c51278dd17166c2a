// The floor under reading a wheel (issue 32, items 2 and 4): how fast the inflaters alone turn a
// real wheel's largest deflated member back into bytes, beside what the inventory of the whole
// wheel costs. The member's stored bytes are read into memory once; each inflater writes into a
// 1 MiB buffer that is overwritten (no allocation, no output device), so the figure is the
// inflater's raw speed on those bytes. Counters: `inflated` bytes per second.
//
//   SMCOMPAT_BENCH_WHEEL=/path/to/wheel.whl build/bin/inflate_bench
//
// Default wheel: the corpus's torch (scripts/fetch-corpus.sh); the issue's own Transformer Engine
// wheel (one 725 MB member) is `pip download --no-deps transformer-engine-cu12==2.20.2`.
#include <benchmark/benchmark.h>
#include <zip.h>
#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#if SMCOMPAT_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

#include "smcompat/binary/inventory.hpp"

namespace {

struct Member {
  std::string wheel, name;
  std::vector<unsigned char> stored;
  uint64_t inflated = 0;
};

std::string wheel_path() {
  if (const char* e = std::getenv("SMCOMPAT_BENCH_WHEEL"); e && *e) return e;
  const char* home = std::getenv("HOME");
  return std::string(home ? home : "/root") +
         "/.cache/smcompat-corpus/wheels/torch-2.15.0-cp311-cp311-manylinux_2_28_x86_64.whl";
}

// The wheel's largest deflated member, its stored (compressed) bytes in memory.
const Member* largest_member() {
  static Member m;
  static bool tried = false;
  if (tried) return m.stored.empty() ? nullptr : &m;
  tried = true;
  m.wheel = wheel_path();
  int err = 0;
  zip_t* z = zip_open(m.wheel.c_str(), ZIP_RDONLY, &err);
  if (!z) return nullptr;
  zip_int64_t best = -1;
  zip_uint64_t best_size = 0;
  for (zip_int64_t i = 0; i < zip_get_num_entries(z, 0); ++i) {
    zip_stat_t st;
    if (zip_stat_index(z, i, 0, &st) == 0 && st.comp_method == ZIP_CM_DEFLATE &&
        st.size > best_size) {
      best = i;
      best_size = st.size;
    }
  }
  if (best >= 0) {
    zip_stat_t st;
    zip_stat_index(z, best, 0, &st);
    m.name = st.name;
    m.inflated = st.size;
    m.stored.resize(st.comp_size);
    zip_file_t* f = zip_fopen_index(z, best, ZIP_FL_COMPRESSED);
    if (!f || zip_fread(f, m.stored.data(), st.comp_size) != static_cast<zip_int64_t>(st.comp_size))
      m.stored.clear();
    if (f) zip_fclose(f);
  }
  zip_close(z);
  return m.stored.empty() ? nullptr : &m;
}

bool have_member(benchmark::State& state, const Member*& m) {
  m = largest_member();
  if (!m) state.SkipWithError(("no deflated member in " + wheel_path()).c_str());
  return m != nullptr;
}

void report(benchmark::State& state, const Member& m) {
  state.SetLabel(std::filesystem::path(m.wheel).filename().string() + "!" + m.name);
  state.counters["inflated"] =
      benchmark::Counter(static_cast<double>(m.inflated) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate);
  state.counters["stored_MB"] = static_cast<double>(m.stored.size()) / 1e6;
}

void BM_ZlibRawInflate(benchmark::State& state) {
  const Member* m;
  if (!have_member(state, m)) return;
  std::vector<unsigned char> out(1 << 20);
  for (auto _ : state) {
    z_stream zs{};
    inflateInit2(&zs, -MAX_WBITS);
    zs.next_in = const_cast<unsigned char*>(m->stored.data());
    zs.avail_in = static_cast<uInt>(m->stored.size());  // members < 4 GiB here
    uint64_t total = 0;
    int rc = Z_OK;
    while (rc == Z_OK) {
      zs.next_out = out.data();
      zs.avail_out = static_cast<uInt>(out.size());
      rc = inflate(&zs, Z_NO_FLUSH);
      total += out.size() - zs.avail_out;
    }
    inflateEnd(&zs);
    if (rc != Z_STREAM_END || total != m->inflated) state.SkipWithError("zlib: bad stream");
    benchmark::DoNotOptimize(total);
  }
  report(state, *m);
}
BENCHMARK(BM_ZlibRawInflate)->Unit(benchmark::kMillisecond)->Iterations(1);

#if SMCOMPAT_HAVE_ISAL
void isal_inflate_member(benchmark::State& state, bool crc) {
  const Member* m;
  if (!have_member(state, m)) return;
  std::vector<unsigned char> out(1 << 20);
  auto st = std::make_unique<inflate_state>();
  for (auto _ : state) {
    isal_inflate_init(st.get());
    st->crc_flag = crc ? ISAL_GZIP_NO_HDR : 0;  // the zip member's CRC-32, as smcompat checks it
    st->next_in = const_cast<unsigned char*>(m->stored.data());
    st->avail_in = static_cast<uint32_t>(m->stored.size());
    uint64_t total = 0;
    int rc = ISAL_DECOMP_OK;
    while (rc == ISAL_DECOMP_OK && st->block_state != ISAL_BLOCK_FINISH) {
      st->next_out = out.data();
      st->avail_out = static_cast<uint32_t>(out.size());
      rc = isal_inflate(st.get());
      total += out.size() - st->avail_out;
    }
    if (rc != ISAL_DECOMP_OK || total != m->inflated) state.SkipWithError("isa-l: bad stream");
    benchmark::DoNotOptimize(total);
  }
  report(state, *m);
}
void BM_IsalRawInflate(benchmark::State& state) { isal_inflate_member(state, false); }
void BM_IsalInflateWithCrc(benchmark::State& state) { isal_inflate_member(state, true); }
BENCHMARK(BM_IsalRawInflate)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_IsalInflateWithCrc)->Unit(benchmark::kMillisecond)->Iterations(3);
#endif

// What `smcompat scan WHEEL` does below the report: every member read, inflated, inventoried.
void BM_InventoryOfTheWheel(benchmark::State& state) {
  const Member* m;
  if (!have_member(state, m)) return;
  smcompat::InspectOptions opt;
  for (auto _ : state) {
    auto inv = smcompat::inspect_file(m->wheel, opt);
    benchmark::DoNotOptimize(inv);
  }
  state.SetLabel(std::filesystem::path(m->wheel).filename().string() + " (whole wheel)");
}
BENCHMARK(BM_InventoryOfTheWheel)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
