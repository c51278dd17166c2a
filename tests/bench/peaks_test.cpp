// Peak arithmetic against the built-in catalog: each precision maps to the catalog key it is
// documented to, with the catalog's exact figure; GEMM FLOPs and the unit conversions.
#include "smcompat/bench/peaks.hpp"

#include <gtest/gtest.h>

namespace smcompat::bench {
namespace {

const GpuSpec& gpu(const char* name) {
  const GpuSpec* g = Catalog::builtin().find_gpu(name);
  EXPECT_NE(g, nullptr) << name;
  return *g;
}

TEST(BenchPeaks, H100PerPrecision) {
  const GpuSpec& h100 = gpu("H100 SXM");
  EXPECT_DOUBLE_EQ(peak_tflops(h100, Precision::kBf16)->value, 989);
  EXPECT_DOUBLE_EQ(peak_tflops(h100, Precision::kFp16)->value, 989);
  EXPECT_EQ(peak_tflops(h100, Precision::kFp16)->key, "fp16_bf16");
  EXPECT_DOUBLE_EQ(peak_tflops(h100, Precision::kTf32)->value, 495);
  EXPECT_DOUBLE_EQ(peak_tflops(h100, Precision::kFp8E4M3)->value, 1979);
  EXPECT_DOUBLE_EQ(peak_tflops(h100, Precision::kFp8E5M2)->value, 1979);
  EXPECT_DOUBLE_EQ(peak_tflops(h100, Precision::kFp32)->value, 67);
  // DGEMM runs on the FP64 tensor cores where the GPU has them.
  EXPECT_DOUBLE_EQ(peak_tflops(h100, Precision::kFp64)->value, 67);
  EXPECT_EQ(peak_tflops(h100, Precision::kFp64)->key, "fp64_tensor");
  EXPECT_FALSE(peak_tflops(h100, Precision::kFp4).has_value());  // no FP4 on Hopper
  EXPECT_EQ(peak_tflops(h100, Precision::kBf16)->source, "catalog: H100 SXM fp16_bf16 dense (DS)");
  EXPECT_DOUBLE_EQ(peak_bandwidth(h100)->value, 3350);
  EXPECT_DOUBLE_EQ(peak_nvlink_unidirectional(h100)->value, 450);
}

TEST(BenchPeaks, ConsumerAndBlackwellRows) {
  const GpuSpec& rtx5090 = gpu("RTX 5090");
  EXPECT_DOUBLE_EQ(peak_tflops(rtx5090, Precision::kFp16)->value, 209.5);
  EXPECT_DOUBLE_EQ(peak_tflops(rtx5090, Precision::kFp64)->value, 1.6);  // no fp64_tensor
  EXPECT_EQ(peak_tflops(rtx5090, Precision::kFp64)->key, "fp64");
  EXPECT_DOUBLE_EQ(peak_bandwidth(rtx5090)->value, 1792);
  EXPECT_FALSE(peak_nvlink_unidirectional(rtx5090).has_value());
  EXPECT_DOUBLE_EQ(peak_tflops(gpu("B200"), Precision::kFp4)->value, 9000);
  // A100 has no FP8: the catalog has no figure, so there is no peak (not 0).
  EXPECT_FALSE(peak_tflops(gpu("A100 80GB SXM"), Precision::kFp8E4M3).has_value());
}

TEST(BenchPeaks, PrecisionNamesRoundTrip) {
  for (Precision p :
       {Precision::kFp64, Precision::kFp32, Precision::kTf32, Precision::kFp16, Precision::kBf16,
        Precision::kFp8E4M3, Precision::kFp8E5M2, Precision::kFp4, Precision::kInt8}) {
    EXPECT_EQ(parse_precision(to_string(p)), p) << to_string(p);
  }
  EXPECT_EQ(parse_precision("fp8"), Precision::kFp8E4M3);
  EXPECT_FALSE(parse_precision("fp12").has_value());
}

TEST(BenchPeaks, FlopsAndUnits) {
  EXPECT_DOUBLE_EQ(gemm_flops(8192, 8192, 8192), 2.0 * 8192.0 * 8192.0 * 8192.0);
  EXPECT_DOUBLE_EQ(gemm_flops(1024, 1024, 1024, 32), 2.0 * 1024.0 * 1024.0 * 1024.0 * 32.0);
  // 8192³ BF16 in 1.4 ms is 785.4 TFLOPS (the order torch.matmul reaches on an H100).
  EXPECT_NEAR(tflops(gemm_flops(8192, 8192, 8192), 1.4e-3), 785.36, 0.01);
  EXPECT_DOUBLE_EQ(gbps(2.0 * (1ull << 30), 1.0), 2.147483648);
  EXPECT_DOUBLE_EQ(tflops(1e12, 0), 0);
}

}  // namespace
}  // namespace smcompat::bench
