#include "smcompat/bench/peaks.hpp"

#include <fmt/format.h>

#include <array>
#include <utility>

namespace smcompat::bench {

namespace {

constexpr std::array<std::pair<Precision, const char*>, 9> kPrecisionNames = {{
    {Precision::kFp64, "fp64"},
    {Precision::kFp32, "fp32"},
    {Precision::kTf32, "tf32"},
    {Precision::kFp16, "fp16"},
    {Precision::kBf16, "bf16"},
    {Precision::kFp8E4M3, "fp8_e4m3"},
    {Precision::kFp8E5M2, "fp8_e5m2"},
    {Precision::kFp4, "fp4"},
    {Precision::kInt8, "int8"},
}};

std::optional<Peak> from_table(const GpuSpec& gpu, const char* key) {
  auto it = gpu.peak_tflops.find(key);
  if (it == gpu.peak_tflops.end() || it->second <= 0) return std::nullopt;
  return Peak{it->second, key, fmt::format("catalog: {} {} dense ({})", gpu.name, key, gpu.source)};
}

}  // namespace

const char* to_string(Precision p) {
  for (const auto& [value, name] : kPrecisionNames) {
    if (value == p) return name;
  }
  return "?";
}

std::optional<Precision> parse_precision(std::string_view text) {
  for (const auto& [value, name] : kPrecisionNames) {
    if (text == name) return value;
  }
  if (text == "fp8") return Precision::kFp8E4M3;
  return std::nullopt;
}

double gemm_flops(std::uint64_t m, std::uint64_t n, std::uint64_t k, std::uint64_t batch) {
  return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) *
         static_cast<double>(batch);
}

std::optional<Peak> peak_tflops(const GpuSpec& gpu, Precision p) {
  switch (p) {
    case Precision::kFp64:
      // Tensor-core FP64 (DMMA) where the GPU has it: cuBLAS uses it for DGEMM.
      if (auto t = from_table(gpu, "fp64_tensor")) return t;
      return from_table(gpu, "fp64");
    case Precision::kFp32:
      return from_table(gpu, "fp32");
    case Precision::kTf32:
      return from_table(gpu, "tf32");
    case Precision::kFp16:
    case Precision::kBf16:
      return from_table(gpu, "fp16_bf16");
    case Precision::kFp8E4M3:
    case Precision::kFp8E5M2:
      return from_table(gpu, "fp8");
    case Precision::kFp4:
      return from_table(gpu, "fp4");
    case Precision::kInt8:
      return from_table(gpu, "int8");
  }
  return std::nullopt;
}

std::optional<Peak> peak_bandwidth(const GpuSpec& gpu) {
  if (!gpu.bandwidth_gbs || *gpu.bandwidth_gbs <= 0) return std::nullopt;
  return Peak{*gpu.bandwidth_gbs, "bandwidth_gbs",
              fmt::format("catalog: {} memory bandwidth ({})", gpu.name, gpu.source)};
}

std::optional<Peak> peak_nvlink_unidirectional(const GpuSpec& gpu) {
  if (!gpu.nvlink_gbs || *gpu.nvlink_gbs <= 0) return std::nullopt;
  return Peak{*gpu.nvlink_gbs / 2, "nvlink_gbs",
              fmt::format("catalog: {} NVLink {} GB/s total, half per direction ({})", gpu.name,
                          *gpu.nvlink_gbs, gpu.source)};
}

double tflops(double flops, double seconds) { return seconds > 0 ? flops / seconds / 1e12 : 0; }
double gbps(double bytes, double seconds) { return seconds > 0 ? bytes / seconds / 1e9 : 0; }

}  // namespace smcompat::bench
