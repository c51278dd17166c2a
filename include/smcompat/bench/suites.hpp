// The native benchmark suites and the one entry point the CLI calls: run_native_suites() probes
// the machine (probe/probe.hpp: devices, catalog GPU, P2P and NVLink topology), opens a
// CudaSession and NVML, and runs the requested suites through the measurement loop
// (measure.hpp), each configuration a BenchResult (results.hpp) compared with the catalog peak
// of peaks.hpp. A configuration that fails is a recorded skip naming the CUresult; the run goes
// on. Suites of other parts of the build (gemm, jit) plug in through NativeOptions::extra_suites
// and get the same session, devices and method.
//  - memory: copy-engine device-to-device (cuMemcpyDtoDAsync), host<->device pinned and pageable,
//    SM copy and triad kernels (DeviceKernels), sizes from L2-resident to 4 GiB.
//  - launch: empty-kernel launch and CUDA graph launch, time per launch.
//  - p2p: every ordered GPU pair, unidirectional and bidirectional, copy engine (and SM copy with a
//    copy kernel), labelled with the probe's P2P access and NVLink links.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "smcompat/bench/cuda_session.hpp"
#include "smcompat/bench/measure.hpp"
#include "smcompat/bench/results.hpp"
#include "smcompat/bench/stats.hpp"
#include "smcompat/catalog/catalog.hpp"
#include "smcompat/probe/probe.hpp"
#include "smcompat/util/result.hpp"

namespace smcompat::bench {

struct SuiteContext;
/// A suite: the results (measured or skipped) of its configurations.
using SuiteFn = std::function<std::vector<BenchResult>(SuiteContext&)>;

struct NativeOptions {
  /// Suites to run, in order: "memory", "launch", "p2p", or a key of extra_suites. Empty: the
  /// three native ones, then every extra suite.
  std::vector<std::string> suites;
  /// CUDA ordinals to use; empty: every GPU.
  std::vector<int> devices;
  /// --quick: fewer sizes and StopRule::quick() (unless `stop` is given).
  bool quick = false;
  /// Copy sizes in bytes for memory and p2p, replacing the defaults.
  std::vector<std::uint64_t> sizes;
  std::string libcuda = "libcuda.so.1";
  std::string libnvml = "libnvidia-ml.so.1";  ///< empty: no NVML (no clocks, no throttle flags)
  /// The stopping rule; default StopRule{} (StopRule::quick() with `quick`).
  std::optional<StopRule> stop;
  /// Flush L2 before each sample of single-device memory configurations.
  bool l2_flush = true;
  /// Device kernels embedded by the build (spin, empty, copy, triad); absent ones become skips.
  DeviceKernels kernels;
  /// When `kernels` has no spin kernel: supplies the kernels once the selected GPUs are known
  /// (their true compute capabilities and the driver's CUDA version) — the CLI passes the build's
  /// embedded images (jit.hpp's embedded_device_kernels). An Error becomes a run warning.
  std::function<Result<DeviceKernels>(std::span<const ComputeCapability>, std::optional<Version>)>
      kernel_provider;
  /// Suites from other parts of the build ("gemm", "jit"), run with the same context.
  std::map<std::string, SuiteFn> extra_suites;
  /// Progress for people, called with the suite's name and the number of configurations it has
  /// started measuring so far (0 as a suite begins). May be empty.
  std::function<void(std::string_view suite, int started)> progress;
};

/// What a suite runs with.
struct SuiteContext {
  CudaSession& session;
  const NvmlReader* nvml;  ///< null without NVML
  const ProbeReport& probe;
  const NativeOptions& options;
  StopRule stop;
  std::vector<DeviceContext*> devices;  ///< the selected GPUs, in the order asked for
  std::vector<std::string> warnings;    ///< run-level notes (end up in BenchRun::warnings)
  /// Libraries a suite used, name → version (end up in BenchRun::libraries: "cublasLt").
  std::map<std::string, std::string> libraries;
  std::string suite;        ///< the suite running now (for progress)
  mutable int started = 0;  ///< configurations of `suite` whose measurement has started

  const ProbeDevice* probe_device(int ordinal) const;
  /// The catalog row of a device (nullptr if the catalog does not know it).
  const GpuSpec* catalog_gpu(int ordinal) const;
  /// A MeasureSpec with this run's stopping rule.
  MeasureSpec spec() const;
};

/// The copy sizes of the memory suite for a GPU with `l2_bytes` of L2: powers of two from the
/// largest one whose source and destination both fit in L2 (at least 1 MiB) up to 4 GiB
/// (--quick: that first size, 64 MiB and 1 GiB). Sizes that do not fit the GPU's memory become
/// skips when run.
std::vector<std::uint64_t> memory_sizes(int l2_bytes, bool quick);
/// "4 KiB", "256 MiB", "1 GiB", or bytes.
std::string size_label(std::uint64_t bytes);

std::vector<BenchResult> run_memory_suite(SuiteContext& context);
std::vector<BenchResult> run_launch_suite(SuiteContext& context);
std::vector<BenchResult> run_p2p_suite(SuiteContext& context);

/// Runs the suites of `options` on this machine. An Error when there is no usable GPU or driver
/// (the message begins "no usable GPU/driver:" and carries the probe's explanation: the CLI
/// exits 2 with it), when a device ordinal or suite name is unknown, or when a device cannot be
/// set up. Otherwise a BenchRun with devices, driver, method and one result per configuration
/// (skips included); tool_version and argv are left for the caller.
Result<BenchRun> run_native_suites(const NativeOptions& options);

}  // namespace smcompat::bench
