// Peak arithmetic: the work a configuration does (FLOPs, bytes moved) and the catalog peak it is
// measured against. Peaks are the catalog's dense datasheet figures (data/catalog.json,
// peak_tflops and bandwidth_gbs, each row citing its source); no figure is invented here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "smcompat/catalog/catalog.hpp"

namespace smcompat::bench {

/// GEMM element types the suites and the torch script name.
enum class Precision { kFp64, kFp32, kTf32, kFp16, kBf16, kFp8E4M3, kFp8E5M2, kFp4, kInt8 };
const char* to_string(Precision p);  // "fp64", "fp32", "tf32", "fp16", "bf16", "fp8_e4m3", ...
std::optional<Precision> parse_precision(std::string_view text);

/// FLOPs of C = A·B with A m×k, B k×n, `batch` times: 2·m·n·k·batch.
double gemm_flops(std::uint64_t m, std::uint64_t n, std::uint64_t k, std::uint64_t batch = 1);

/// A peak and the catalog key it came from.
struct Peak {
  double value = 0;    ///< TFLOPS or GB/s
  std::string key;     ///< "fp16_bf16", "fp32", "bandwidth_gbs"
  std::string source;  ///< "catalog: H100 SXM fp16_bf16 (DS)"
};

/// The dense tensor/FP peak for `p` on `gpu`: fp16/bf16 → fp16_bf16 (FP32 accumulate), tf32,
/// fp8 → fp8, fp4, fp32, fp64 → fp64_tensor when the GPU has one, else fp64. nullopt when the
/// catalog has no figure for that type on that GPU.
std::optional<Peak> peak_tflops(const GpuSpec& gpu, Precision p);
/// DRAM bandwidth (GB/s, 10^9 bytes/s) from the catalog.
std::optional<Peak> peak_bandwidth(const GpuSpec& gpu);
/// Unidirectional NVLink bandwidth per GPU from the catalog (nvlink_gbs is bidirectional total,
/// so half of it), for P2P over NVLink.
std::optional<Peak> peak_nvlink_unidirectional(const GpuSpec& gpu);

/// TFLOPS from FLOPs and seconds; GB/s from bytes and seconds.
double tflops(double flops, double seconds);
double gbps(double bytes, double seconds);

}  // namespace smcompat::bench
