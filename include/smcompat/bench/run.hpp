// `smcompat bench` as one call: the native suites (memory, launch, p2p; gemm and jit from this
// build's cuBLASLt loader and embedded kernels) and/or the shipped PyTorch script, merged into one
// run; and a recorded run read back from its file.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "smcompat/bench/results.hpp"
#include "smcompat/util/result.hpp"

namespace smcompat::bench {

/// The suites `smcompat bench` runs by default, in order.
inline const std::vector<std::string> kBenchSuites = {"gemm", "memory", "p2p", "launch", "jit"};

struct BenchRequest {
  std::vector<std::string> suites;  ///< empty: kBenchSuites (unless only --torch is asked)
  std::vector<int> devices;         ///< CUDA ordinals; empty: every GPU
  bool quick = false;
  std::string libcuda = "libcuda.so.1";
  std::string libnvml = "libnvidia-ml.so.1";  ///< empty: no NVML
  std::string cublaslt;                       ///< a libcublasLt file or directory; "": searched
  bool torch = false;                         ///< run the PyTorch script (alone, or beside suites)
  std::string python;                         ///< its interpreter
  std::vector<std::string> rows;              ///< its row kinds; empty: all
  std::vector<std::string> argv;              ///< the command line, recorded in the run
  /// Progress of the native suites: the suite and how many configurations it has started.
  std::function<void(std::string_view suite, int started)> progress;
};

/// Runs what `request` asks for. --torch alone runs only the PyTorch script; suites named beside
/// it run too, and the script's rows are appended to theirs. Errors: no usable GPU or driver, or
/// the script could not run (prefixed "--torch: ").
Result<BenchRun> run_bench(const BenchRequest& request);

/// A recorded run (`smcompat bench --json` output) read from `path` (at most 64 MiB): the one
/// reader for `bench --compare`, `bench report` and `plan --bench`; errors name the file and the
/// offset.
Result<BenchRun> read_bench_run_file(const std::string& path);

}  // namespace smcompat::bench
