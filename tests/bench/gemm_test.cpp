// The gemm suite without a GPU: the plan per architecture (catalog features gate tf32, bf16, fp8
// and block scaling), the cuBLASLt type mapping, the exact small-case encodings and the CPU
// reference check with hand-computed values; the cuBLASLt loader against the toolkit's real
// libcuBLASLt (skipped when absent) and cublasLtCreate under the fake driver (in a child process).
#include "smcompat/bench/gemm.hpp"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "fake_run.hpp"
#include "smcompat/bench/cublaslt.hpp"
#include "toolkit_targets.hpp"

namespace smcompat::bench {
namespace {

namespace cl = cublaslt;
namespace fs = std::filesystem;

std::vector<std::string> names(const std::vector<GemmPlanEntry>& plan, bool skipped) {
  std::vector<std::string> out;
  for (const auto& e : plan) {
    if (e.skip_reason.empty() != skipped) out.push_back(e.config.name());
  }
  return out;
}

const ArchInfo* arch(int sm) { return Catalog::builtin().arch(sm); }

TEST(GemmPlan, HopperQuick) {
  GemmPlanOptions o;
  o.quick = true;
  const auto plan = gemm_plan(arch(90), o);
  EXPECT_EQ(names(plan, false), (std::vector<std::string>{"fp64 4096x4096x4096",
                                                          "fp64 8192x8192x8192",
                                                          "fp32 4096x4096x4096",
                                                          "fp32 8192x8192x8192",
                                                          "tf32 4096x4096x4096",
                                                          "tf32 8192x8192x8192",
                                                          "fp16 4096x4096x4096",
                                                          "fp16 8192x8192x8192",
                                                          "bf16 4096x4096x4096",
                                                          "bf16 8192x8192x8192",
                                                          "fp8_e4m3 4096x4096x4096",
                                                          "fp8_e4m3 8192x8192x8192",
                                                          "fp8_e5m2 4096x4096x4096",
                                                          "fp8_e5m2 8192x8192x8192",
                                                          "fp64 batched 32x1024x1024x1024",
                                                          "fp32 batched 32x1024x1024x1024",
                                                          "tf32 batched 32x1024x1024x1024",
                                                          "fp16 batched 32x1024x1024x1024",
                                                          "bf16 batched 32x1024x1024x1024",
                                                          "fp8_e4m3 batched 32x1024x1024x1024",
                                                          "fp8_e5m2 batched 32x1024x1024x1024"}));
  // 9.0 has no block-scaled MMA (no fp4 in its catalog features).
  ASSERT_EQ(names(plan, true),
            (std::vector<std::string>{"mxfp8 8192x8192x8192", "nvfp4 8192x8192x8192"}));
  EXPECT_EQ(plan.back().skip_reason, "sm_90 has no fp4 (nvfp4; catalog architecture features)");
}

TEST(GemmPlan, FullSizes) {
  const auto plan = gemm_plan(arch(100));
  const auto run = names(plan, false);
  EXPECT_EQ(run.front(), "fp64 1024x1024x1024");
  EXPECT_NE(std::find(run.begin(), run.end(), "bf16 16384x16384x16384"), run.end());
  EXPECT_EQ(run[run.size() - 2], "mxfp8 8192x8192x8192");
  EXPECT_EQ(run.back(), "nvfp4 8192x8192x8192");
  EXPECT_TRUE(names(plan, true).empty());
  // 7 precisions × 5 sizes + 7 batched + 2 block-scaled.
  EXPECT_EQ(run.size(), 44u);
}

TEST(GemmPlan, AmpereHasNoFp8) {
  GemmPlanOptions o;
  o.quick = true;
  const auto plan = gemm_plan(arch(86), o);
  const auto skipped = names(plan, true);
  EXPECT_EQ(skipped, (std::vector<std::string>{"fp8_e4m3 8192x8192x8192", "fp8_e5m2 8192x8192x8192",
                                               "mxfp8 8192x8192x8192", "nvfp4 8192x8192x8192"}));
  for (const auto& e : plan) {
    if (e.config.name() == "fp8_e4m3 8192x8192x8192") {
      EXPECT_EQ(e.skip_reason, "sm_86 has no fp8 (fp8_e4m3; catalog architecture features)");
    }
  }
}

TEST(GemmPlan, TuringHasNoBf16OrTf32) {
  GemmPlanOptions o;
  o.quick = true;
  const auto skipped = names(gemm_plan(arch(75), o), true);
  EXPECT_EQ(skipped.front(), "tf32 8192x8192x8192");
  EXPECT_EQ(skipped[1], "bf16 8192x8192x8192");
}

TEST(GemmPlan, MemoryLimit) {
  GemmPlanOptions o;
  o.precisions = {Precision::kFp64};
  o.device_memory = 7ull << 30;  // 7 GiB
  const auto plan = gemm_plan(arch(120), o);
  // fp64 16384³: 3 × 2 GiB = 6 GiB > 80 % of 7 GiB.
  ASSERT_EQ(names(plan, true), std::vector<std::string>{"fp64 16384x16384x16384"});
  EXPECT_EQ(plan[4].skip_reason, "needs 6.0 GiB of device memory; the GPU has 7.0 GiB");
}

// gemm_types(p, variant), which must exist.
GemmTypes types(Precision p, std::string_view variant = {}) {
  auto t = gemm_types(p, variant);
  EXPECT_TRUE(t.has_value()) << variant;
  return t.value_or(GemmTypes{});
}

// EXPECT_EQ on each integer field of `t` given, against its value.
void expect_ints(const GemmTypes& t, std::initializer_list<std::pair<int GemmTypes::*, int>> want) {
  for (auto [field, value] : want) EXPECT_EQ(t.*field, value);
}

TEST(GemmTypes, CublasLtValues) {
  // Values from cublasLt.h / cublas_api.h / library_types.h (CUDA 13.0).
  // tf32: A CUDA_R_32F (0), compute CUBLAS_COMPUTE_32F_FAST_TF32 (77).
  expect_ints(types(Precision::kTf32), {{&GemmTypes::a, 0}, {&GemmTypes::compute, 77}});
  // bf16: A CUDA_R_16BF (14), compute CUBLAS_COMPUTE_32F (68).
  expect_ints(types(Precision::kBf16), {{&GemmTypes::a, 14}, {&GemmTypes::compute, 68}});
  // fp64: compute CUBLAS_COMPUTE_64F (70), scale CUDA_R_64F (1).
  expect_ints(types(Precision::kFp64), {{&GemmTypes::compute, 70}, {&GemmTypes::scale, 1}});
  // e5m2: A CUDA_R_8F_E5M2 (29), B CUDA_R_8F_E4M3 (28), D 14; per-tensor scale pointers.
  const GemmTypes e5m2 = types(Precision::kFp8E5M2);
  expect_ints(e5m2, {{&GemmTypes::a, 29}, {&GemmTypes::b, 28}, {&GemmTypes::d, 14}});
  EXPECT_TRUE(e5m2.scale_pointers);
  const GemmTypes nvfp4 = types(Precision::kFp4, "nvfp4");
  EXPECT_EQ(nvfp4.a, 33);                // CUDA_R_4F_E2M1
  EXPECT_EQ(nvfp4.block_scale_mode, 1);  // CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3
  const GemmTypes mxfp8 = types(Precision::kFp8E4M3, "mxfp8");
  EXPECT_EQ(mxfp8.block_scale_mode, 2);  // CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0
  EXPECT_FALSE(gemm_types(Precision::kInt8).has_value());
  EXPECT_FALSE(gemm_types(Precision::kFp4).has_value());  // fp4 only block-scaled
}

TEST(GemmReference, HandComputed) {
  // A(i,l) = (3i + 5l) mod 5 − 2 = (3i mod 5) − 2: rows [-2,-2], [1,1] for m = 2, k = 2.
  // B(l,j) = (7l + 2j) mod 5 − 2: B(0,0) = -2, B(1,0) = 0, B(0,1) = 0, B(1,1) = 2.
  EXPECT_EQ(verify_a(0, 0), -2);
  EXPECT_EQ(verify_a(1, 1), 1);
  EXPECT_EQ(verify_b(1, 0), 0);
  EXPECT_EQ(verify_b(1, 1), 2);
  // D = A·B: D(0,0) = (-2)(-2) + (-2)(0) = 4; D(1,0) = (1)(-2) + 0 = -2;
  // D(0,1) = 0 + (-2)(2) = -4; D(1,1) = 0 + (1)(2) = 2. Column-major.
  EXPECT_EQ(reference_gemm(2, 2, 2), (std::vector<double>{4, -2, -4, 2}));
}

TEST(GemmReference, BoundedForEveryOutputType) {
  const auto d = reference_gemm(kVerifySize, kVerifySize, kVerifyK);
  double worst = 0;
  for (double v : d) worst = std::max(worst, std::abs(v));
  EXPECT_LE(worst, 256);  // exact in bf16 (8-bit significand) and fp16
  EXPECT_GT(worst, 0);
}

TEST(GemmReference, Encodings) {
  std::vector<std::uint8_t> buf(8, 0);
  // IEEE binary16 -2 = 0xC000, bf16 1 = 0x3F80, e4m3 -1 = 0xB8, e5m2 2 = 0x40, e2m1 -1 = 0xA.
  ASSERT_TRUE(encode_small_int(-2, cl::kR16F, buf, 0));
  EXPECT_EQ(buf[0], 0x00);
  EXPECT_EQ(buf[1], 0xC0);
  ASSERT_TRUE(encode_small_int(1, cl::kR16BF, buf, 1));
  EXPECT_EQ(buf[2], 0x80);
  EXPECT_EQ(buf[3], 0x3F);
  ASSERT_TRUE(encode_small_int(-1, cl::kR8F_E4M3, buf, 4));
  EXPECT_EQ(buf[4], 0xB8);
  ASSERT_TRUE(encode_small_int(2, cl::kR8F_E5M2, buf, 5));
  EXPECT_EQ(buf[5], 0x40);
  ASSERT_TRUE(encode_small_int(-1, cl::kR4F_E2M1, buf, 12));  // byte 6, low nibble
  ASSERT_TRUE(encode_small_int(2, cl::kR4F_E2M1, buf, 13));   // byte 6, high nibble
  EXPECT_EQ(buf[6], 0x4A);
  EXPECT_FALSE(encode_small_int(3, cl::kR16F, buf, 0));
  EXPECT_FALSE(encode_small_int(1, cl::kR16F, buf, 4));  // out of range
  // Round trips through the decoders of the output types.
  for (int t : {cl::kR64F, cl::kR32F, cl::kR16F, cl::kR16BF}) {
    std::vector<std::uint8_t> b(16, 0);
    for (int v = -2; v <= 2; ++v) {
      ASSERT_TRUE(encode_small_int(v, t, b, 1));
      EXPECT_EQ(decode_element(t, b, 1), std::optional<double>(v)) << t << " " << v;
    }
  }
  // fp16 256 = 0x5C00, bf16 256 = 0x4380, fp16 smallest subnormal 0x0001 = 2^-24.
  const std::vector<std::uint8_t> h{0x00, 0x5C, 0x80, 0x43, 0x01, 0x00};
  EXPECT_EQ(decode_element(cl::kR16F, h, 0), 256.0);
  EXPECT_EQ(decode_element(cl::kR16BF, h, 1), 256.0);
  EXPECT_EQ(decode_element(cl::kR16F, h, 2), std::ldexp(1.0, -24));
}

TEST(GemmReference, CheckFindsAMismatch) {
  for (Precision p : {Precision::kFp64, Precision::kFp32, Precision::kBf16, Precision::kFp16,
                      Precision::kFp8E4M3}) {
    const auto t = *gemm_types(p);
    const auto ref = reference_gemm(kVerifySize, kVerifySize, kVerifyK);
    // A D buffer made from the reference passes...
    std::vector<std::uint8_t> d(ref.size() * t.d_bits / 8, 0);
    for (std::size_t i = 0; i < ref.size(); ++i) {
      if (t.d == cl::kR64F) std::memcpy(d.data() + i * 8, &ref[i], 8);
      if (t.d == cl::kR32F) {
        float f = static_cast<float>(ref[i]);
        std::memcpy(d.data() + i * 4, &f, 4);
      }
      if (t.d == cl::kR16BF) {
        float f = static_cast<float>(ref[i]);
        std::uint32_t u;
        std::memcpy(&u, &f, 4);
        d[i * 2] = static_cast<std::uint8_t>((u >> 16) & 0xFF);
        d[i * 2 + 1] = static_cast<std::uint8_t>(u >> 24);
      }
      if (t.d == cl::kR16F) {
        // Integers up to 256 only: exponent and 10-bit significand by hand.
        const double v = std::abs(ref[i]);
        std::uint16_t bits = 0;
        if (v != 0) {
          int e;
          const double fr = std::frexp(v, &e);  // v = fr · 2^e, fr in [0.5, 1)
          bits =
              static_cast<std::uint16_t>(((e + 14) << 10) | static_cast<int>((fr * 2 - 1) * 1024));
        }
        if (ref[i] < 0) bits |= 0x8000;
        d[i * 2] = bits & 0xFF;
        d[i * 2 + 1] = bits >> 8;
      }
    }
    EXPECT_TRUE(check_against_reference(t.d, d, kVerifySize, kVerifySize, kVerifyK).ok())
        << to_string(p);
    // ...and one flipped sign bit is found.
    d[t.d_bits / 8 * 5 + t.d_bits / 8 - 1] ^= 0x80;
    auto r = check_against_reference(t.d, d, kVerifySize, kVerifySize, kVerifyK);
    ASSERT_FALSE(r.ok()) << to_string(p);
    EXPECT_NE(r.error().what.find("1 of 16384 elements differ"), std::string::npos)
        << r.error().what;
    EXPECT_NE(r.error().what.find("D(5, 0)"), std::string::npos) << r.error().what;
  }
}

TEST(GemmReference, VerifyInputsLayout) {
  const auto t = *gemm_types(Precision::kFp32);
  auto in = verify_inputs(t, 3, 2, 4);
  ASSERT_TRUE(in.has_value());
  ASSERT_EQ(in->a.size(), 3u * 4 * 4);
  float a12;  // A(1, 2) stored transposed at 2 + 1·k
  std::memcpy(&a12, in->a.data() + (2 + 1 * 4) * 4, 4);
  EXPECT_EQ(a12, verify_a(1, 2));
  auto fp4 = *gemm_types(Precision::kFp4, "nvfp4");
  auto in4 = verify_inputs(fp4, 64, 64, 64);
  ASSERT_TRUE(in4.has_value());
  EXPECT_EQ(in4->a.size(), 64u * 64 / 2);
}

TEST(GemmData, RandomElementsAreFiniteAndNearOne) {
  for (int t : {cl::kR64F, cl::kR32F, cl::kR16F, cl::kR16BF}) {
    std::vector<std::uint8_t> b(4096, 0);
    ASSERT_TRUE(fill_random(t, b, 7));
    const std::size_t n = b.size() * 8 / type_bits(t);
    int negative = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double v = *decode_element(t, b, i);
      ASSERT_TRUE(std::isfinite(v));
      EXPECT_GE(std::abs(v), 0.25) << t;
      EXPECT_LT(std::abs(v), 2.0) << t;
      negative += v < 0;
    }
    // Random signs: roughly half (n ≥ 256 here).
    EXPECT_GT(negative, static_cast<int>(n / 4));
    EXPECT_LT(negative, static_cast<int>(3 * n / 4));
  }
  // FP8: exponent fields 5..7 (e4m3) / 13..15 (e5m2): never the all-ones NaN/Inf codes.
  std::vector<std::uint8_t> f8(1024);
  ASSERT_TRUE(fill_random(cl::kR8F_E4M3, f8, 1));
  for (auto byte : f8) {
    EXPECT_GE((byte >> 3) & 0xF, 5);
    EXPECT_LE((byte >> 3) & 0xF, 7);
  }
  ASSERT_TRUE(fill_random(cl::kR8F_E5M2, f8, 1));
  for (auto byte : f8) EXPECT_LE((byte >> 2) & 0x1F, 15);
  // Deterministic in the seed.
  std::vector<std::uint8_t> x(64), y(64);
  ASSERT_TRUE(fill_random(cl::kR16BF, x, 3));
  ASSERT_TRUE(fill_random(cl::kR16BF, y, 3));
  EXPECT_EQ(x, y);
  EXPECT_EQ(unit_scale_byte(cl::kR8F_UE8M0), 0x7F);
  EXPECT_EQ(unit_scale_byte(cl::kR8F_E4M3), 0x38);
  EXPECT_FALSE(fill_random(12345, x, 1));
}

// --- cuBLASLt loader ------------------------------------------------------------------------

// The installed toolkit's cuBLASLt (CUDA 13 or 12), empty without one.
const std::string kToolkitLt = smcompat::bench::testtoolkit::toolkit_cublaslt();

TEST(CublasLtLoader, StatusNames) {
  EXPECT_EQ(cl::status_name(15), "CUBLAS_STATUS_NOT_SUPPORTED");
  EXPECT_EQ(cl::status_name(3), "CUBLAS_STATUS_ALLOC_FAILED");
  EXPECT_EQ(cl::status_name(99), "CUBLAS_STATUS_99");
}

TEST(CublasLtLoader, SearchOrder) {
  const fs::path root = fs::temp_directory_path() / ("smcompat_lt_" + std::to_string(getpid()));
  fs::remove_all(root);
  const auto touch = [](const fs::path& p) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << "x";
  };
  const fs::path sp = root / "venv/lib/python3.12/site-packages";
  touch(sp / "nvidia/cublas/lib/libcublasLt.so.12");
  touch(sp / "nvidia/cu13/lib/libcublasLt.so.13");
  touch(sp / "torch/lib/libcublasLt.so.13");
  touch(root / "cuda/lib64/libcublasLt.so.13");
  touch(root / "cuda/lib64/libcublasLt.so.12");
  touch(root / "cuda/lib64/libcublasLt.so");
  touch(root / "cuda/lib64/libcublasLtFoo.so.13");  // not a candidate
  cl::SearchPaths paths;
  paths.user = root / "mine/libcublasLt.so.13";
  paths.site_packages = {sp};
  paths.cuda_homes = {root / "cuda", root / "cuda"};  // named twice, tried once
  std::vector<std::string> got;
  for (const auto& c : cl::candidates(paths)) {
    const bool bare = c.path.find('/') == std::string::npos;  // a soname for the system search
    got.push_back(c.origin + ":" +
                  (bare ? c.path : fs::path(c.path).lexically_relative(root).string()));
  }
  EXPECT_EQ(got, (std::vector<std::string>{
                     "user:mine/libcublasLt.so.13",
                     "nvidia-cublas wheel:venv/lib/python3.12/site-packages/nvidia/cublas/lib/"
                     "libcublasLt.so.12",
                     "nvidia cu13 wheel:venv/lib/python3.12/site-packages/nvidia/cu13/lib/"
                     "libcublasLt.so.13",
                     "torch/lib:venv/lib/python3.12/site-packages/torch/lib/libcublasLt.so.13",
                     "toolkit:cuda/lib64/libcublasLt.so.13",
                     "toolkit:cuda/lib64/libcublasLt.so.12",
                     "toolkit:cuda/lib64/libcublasLt.so",
                     "system:libcublasLt.so.13",
                     "system:libcublasLt.so.12",
                     "system:libcublasLt.so",
                 }));
  // Files that are not libraries fail to load; the error lists each one tried.
  paths.system = false;
  auto lib = cl::Library::load(paths);
  ASSERT_FALSE(lib.ok());
  EXPECT_NE(lib.error().what.find("(torch/lib)"), std::string::npos) << lib.error().what;
  EXPECT_NE(lib.error().what.find("mine/libcublasLt.so.13"), std::string::npos);
  fs::remove_all(root);
}

TEST(CublasLtLoader, ToolkitLibraryVersion) {
  if (kToolkitLt.empty()) GTEST_SKIP() << "no toolkit cuBLASLt in /usr/local/cuda/lib64";
  auto lib = cl::Library::open(kToolkitLt, "toolkit");
  ASSERT_TRUE(lib.ok()) << lib.error().what;
  // cublasLtGetVersion: major·10000 + minor·100 + patch; the major is the soname's (.so.13: 13.x).
  const unsigned major = std::stoul(kToolkitLt.substr(kToolkitLt.rfind('.') + 1));
  EXPECT_EQ(lib->version() / 10000, major);
  EXPECT_EQ(lib->version_string().substr(0, 3), std::to_string(major) + ".");
  EXPECT_EQ(lib->name(15), "CUBLAS_STATUS_NOT_SUPPORTED");
  EXPECT_EQ(lib->path(), kToolkitLt);
}

// cublasLtCreate under the fake driver, in a forked child so that whatever cuBLASLt does with a
// driver that has no export tables cannot take the test binary down. The child writes the status
// name (or why it got none) to a pipe.
TEST(CublasLtLoader, CreateUnderTheFakeDriver) {
  if (kToolkitLt.empty()) GTEST_SKIP() << "no toolkit cuBLASLt in /usr/local/cuda/lib64";
  const std::string& fake = test::kFakeCuda;
  if (!fs::exists(fake)) GTEST_SKIP() << fake << " not built (target fake_cuda)";
  // test::in_child: the fake's configuration only, and "child failed: ..." if cuBLASLt crashed.
  const std::string msg = test::in_child({{"SMCOMPAT_FAKE_GPUS", "H100"}}, [&]() -> std::string {
    // Loaded first, the fake is what cuBLASLt's dlopen("libcuda.so.1") finds (same soname).
    if (!dlopen(fake.c_str(), RTLD_NOW | RTLD_GLOBAL)) return "no fake driver";
    auto lib = cl::Library::open(kToolkitLt, "toolkit");
    if (!lib) return "load failed: " + lib.error().what;
    cl::Handle h = nullptr;
    const cl::Status s = lib->fn().create(&h);
    if (s == cl::kSuccess) lib->fn().destroy(h);
    return "cublasLtCreate: " + lib->name(s);
  });
  // Either outcome is a status the gemm suite records; it must be one.
  EXPECT_EQ(msg.rfind("cublasLtCreate: CUBLAS_STATUS_", 0), 0u) << msg;
  std::cout << "[ note ] under the fake driver " << msg << "\n";
}

}  // namespace
}  // namespace smcompat::bench
