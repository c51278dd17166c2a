// `smcompat explain` over a large log: a 10 MB log of real-looking lines (training progress,
// warnings, a traceback, the error near the end) scanned line by line through TextScan: facts,
// every mode's RE2 set and the context fixes. Reports bytes/second; the goal is a 10 MB log in
// at most 1 s on one core (docs/explain.md).
#include <benchmark/benchmark.h>

#include <string>

#include "smcompat/explain/explain.hpp"
#include "smcompat/explain/input.hpp"

namespace {

std::string log_of(size_t bytes) {
  const char* lines[] = {
      "2024-05-01 12:00:00.123456: I tensorflow/core/platform/cpu_feature_guard.cc:182] This "
      "TensorFlow binary is optimized to use available CPU instructions in performance-critical "
      "operations.",
      "Epoch 3/100: 41%|████      | 410/1000 [02:13<03:11,  3.08it/s, loss=0.3121, lr=3e-4]",
      "[W socket.cpp:663] [c10d] The client socket has failed to connect to [localhost]:29500",
      "  File \"/opt/conda/lib/python3.10/site-packages/torch/nn/modules/module.py\", line 1518, "
      "in _wrapped_call_impl",
      "WARNING: Logging before flag parsing goes to stderr.",
      "NCCL INFO Channel 00/02 :    0   1   2   3   4   5   6   7",
  };
  std::string out;
  out.reserve(bytes + 256);
  for (size_t i = 0; out.size() < bytes; ++i) out += std::string(lines[i % 6]) + "\n";
  out +=
      "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
      "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current "
      "PyTorch installation. torch 2.5.1+cu124\n";
  return out;
}

void BM_ExplainLog(benchmark::State& state) {
  const std::string text = log_of(size_t(state.range(0)) << 20);
  const auto& kb = smcompat::explain::KnowledgeBase::builtin();
  size_t matches = 0;
  for (auto _ : state) {
    smcompat::explain::TextScan scan(kb);
    smcompat::explain::scan_text(text, scan);
    matches = scan.finish(nullptr).matches.size();
    benchmark::DoNotOptimize(matches);
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(text.size()));
  state.counters["matches"] = double(matches);
}
BENCHMARK(BM_ExplainLog)->Arg(1)->Arg(10)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
