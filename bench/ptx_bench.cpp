// PTX lexer and parser throughput over all PTX embedded in libcublasLt.so.13 (decompressed once,
// outside the timing). Reports bytes/second per core; the goal is >= 300 MB/s for parse_module.
// Skips when the toolkit library is not present.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "smcompat/ptx/lexer.hpp"
#include "smcompat/ptx/module.hpp"
#include "smcompat/ptx/sources.hpp"

namespace {

const std::vector<std::string>& corpus() {
  static const std::vector<std::string> texts = [] {
    std::vector<std::string> out;
    std::string lib = "/usr/local/cuda/lib64/libcublasLt.so.13";
    if (const char* p = std::getenv("SMCOMPAT_PTX_BENCH_FILE")) lib = p;
    auto r = smcompat::ptx::for_each_ptx(
        lib, [&](smcompat::ptx::PtxSource&& s) { out.push_back(std::move(s.text)); });
    (void)r;
    return out;
  }();
  return texts;
}

size_t total_bytes() {
  size_t n = 0;
  for (const auto& t : corpus()) n += t.size();
  return n;
}

void BM_Lex(benchmark::State& state) {
  if (corpus().empty())
    return state.SkipWithError("libcublasLt.so.13 not found (set SMCOMPAT_PTX_BENCH_FILE)");
  size_t tokens = 0;
  for (auto _ : state) {
    for (const auto& t : corpus()) {
      smcompat::ptx::Lexer lx(t);
      while (lx.next().kind != smcompat::ptx::TokenKind::kEnd) ++tokens;
    }
  }
  benchmark::DoNotOptimize(tokens);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * total_bytes()));
  state.counters["images"] = static_cast<double>(corpus().size());
}

void BM_Parse(benchmark::State& state) {
  if (corpus().empty())
    return state.SkipWithError("libcublasLt.so.13 not found (set SMCOMPAT_PTX_BENCH_FILE)");
  size_t statements = 0, failures = 0;
  for (auto _ : state) {
    for (const auto& t : corpus()) {
      auto m = smcompat::ptx::parse_module(t);
      if (m.ok())
        statements += m->statements.size();
      else
        ++failures;
    }
  }
  benchmark::DoNotOptimize(statements);
  if (failures) state.SkipWithError("parse failures");
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * total_bytes()));
  state.counters["images"] = static_cast<double>(corpus().size());
  state.counters["MB"] = static_cast<double>(total_bytes()) / 1e6;
}

}  // namespace

BENCHMARK(BM_Lex)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_Parse)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK_MAIN();
