// What a benchmark run records: the machine (devices, driver, clocks), the method, and one
// BenchResult per measured (or skipped) configuration. Native suites and the PyTorch script write
// the same model, so their numbers stand side by side. Written as JSON by report/bench_report.hpp
// (schema smcompat.bench/1, docs/json-schema.md), read back by read_bench_run() so that any
// recorded run can be rendered or compared without a GPU.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "smcompat/bench/stats.hpp"
#include "smcompat/util/result.hpp"

namespace smcompat::bench {

/// Where a figure came from. Native suites time their own kernels and library calls through the
/// driver; torch rows come from the shipped PyTorch script; synthetic rows are made by tests and
/// documentation examples and must never be mistaken for a measurement.
enum class Origin { kNative, kTorch, kSynthetic };
const char* to_string(Origin origin);  // "native", "torch", "synthetic"
std::optional<Origin> parse_origin(std::string_view text);

/// NVML readings taken around a result's samples (nullopt: NVML absent or the query failed).
struct DeviceState {
  std::optional<int> sm_clock_mhz;
  std::optional<int> memory_clock_mhz;
  std::optional<int> temperature_c;
  std::optional<double> power_w;
  /// nvmlDeviceGetCurrentClocksThrottleReasons bit names active at the reading ("sw_power_cap",
  /// "hw_slowdown", "sw_thermal", "hw_thermal", "hw_power_brake", ...); idle/app-clock bits
  /// omitted.
  std::vector<std::string> throttle_reasons;
};

/// One measured configuration, or a recorded skip.
struct BenchResult {
  std::string suite;  ///< "gemm", "memory", "p2p", "launch", "jit", or a torch row kind
  std::string name;   ///< the configuration, unique within a run: "bf16 8192x8192x8192"
  Origin origin = Origin::kNative;
  std::vector<int> devices;  ///< CUDA ordinals involved (one, or source and destination for p2p)
  /// Parameters that identify the configuration ("dtype": "bf16", "m": "8192", "direction":
  /// "bidirectional", "image": "sm_90 SASS"...). Strings, so that every suite fits one shape.
  std::map<std::string, std::string> params;
  /// The headline figure and its unit ("TFLOPS", "GB/s", "us", "ms", "img/s"); nullopt = skipped.
  std::optional<double> value;
  std::string unit;
  /// Time per iteration behind `value` (seconds), summarised over the samples.
  std::optional<SampleSummary> time;
  /// The catalog peak this figure is compared with, in `unit`, and where it comes from.
  std::optional<double> peak;
  std::string peak_source;  ///< "catalog: H100 SXM fp16_bf16 dense" or empty
  /// Why this configuration produced no figure (the CUresult name, "no fp8 on 8.6", ...).
  std::string skip_reason;
  /// Whether the reference check on a small case passed (gemm); nullopt where none is done.
  std::optional<bool> verified;
  std::optional<DeviceState> state;
  /// Extra named numbers: "jit_load_ms", "first_call_ms", "bytes", ...
  std::map<std::string, double> extra;
  std::vector<std::string> notes;

  bool skipped() const { return !value.has_value(); }
  /// value / peak × 100, when both exist and the peak is positive.
  std::optional<double> percent_of_peak() const;
};

/// A GPU as the run saw it.
struct BenchDevice {
  int ordinal = 0;
  std::string name;  ///< as the driver names it
  std::string uuid;
  std::string cc;                          ///< "9.0" (the true compute capability)
  std::optional<std::string> catalog_gpu;  ///< the catalog row its peaks come from
  std::optional<DeviceState> state_at_start;
};

/// The measurement method in force (what makes two runs comparable).
struct MethodSettings {
  StopRule stop;
  bool blocking_kernel = true;  ///< a spin kernel held the stream while work was queued
  bool l2_flush = true;         ///< cold samples: L2 flushed before each one
  bool quick = false;           ///< --quick: fewer sizes, looser stopping rule
};

/// One run of `smcompat bench` (or of the torch script).
struct BenchRun {
  std::string tool_version;
  std::vector<std::string> argv;
  std::string started_utc;  ///< ISO 8601
  std::string host;
  std::optional<std::string> driver_version;  ///< "580.95.05"
  std::optional<int> cuda_driver_version;     ///< 13000
  std::vector<BenchDevice> devices;
  MethodSettings method;
  /// Library versions used ("cublasLt": "13.0.0", "torch": "2.15.0+cu130", "python": "3.11.7").
  std::map<std::string, std::string> libraries;
  std::vector<BenchResult> results;
  std::vector<std::string> warnings;
};

/// Reads a run written by bench_to_json() (schema smcompat.bench/1). Errors name the JSON path
/// ("results[3].time.median_s: expected a number"); unknown fields are ignored so that newer
/// minor versions can be read.
Result<BenchRun> read_bench_run(std::string_view json_text);

}  // namespace smcompat::bench
