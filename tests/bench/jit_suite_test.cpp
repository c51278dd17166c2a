// The jit and gemm suites against the fake driver (tests/fakedriver), whose module loader really
// picks images by the compatibility rules: on a fake RTX 5090 the sm_120 cubin and the compute_80
// PTX load (the PTX by "JIT"), an sm_90 cubin forced on it fails with CUDA_ERROR_NO_BINARY_FOR_GPU
// and becomes a recorded skip; the gemm suite records cublasLtCreate's status under the fake.
// Each case runs in a forked child: the fake reads its GPU list once per process.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <sstream>
#include <string>
#include <vector>

#include "bench/fake_run.hpp"
#include "bench/toolkit_targets.hpp"
#include "smcompat/bench/gemm.hpp"
#include "smcompat/bench/jit.hpp"
#include "smcompat/bench/kernels.hpp"
#include "smcompat/bench/suites.hpp"

namespace smcompat::bench {
namespace {

// "name|skip reason|value|load_ms" per result of `suite`, run in a child process on the fake
// GPUs `gpus` (fake_run.hpp's in_child).
std::vector<std::string> run_on_fake(const char* gpus, const std::string& suite, SuiteFn fn) {
  const std::string text = test::in_child({{"SMCOMPAT_FAKE_GPUS", gpus}}, [&] {
    NativeOptions o;
    o.libcuda = test::kFakeCuda;
    o.libnvml = test::kFakeNvml;
    o.quick = true;
    StopRule stop;
    stop.min_samples = 3;
    stop.min_time_s = 0;
    stop.timeout_s = 2;
    o.stop = stop;
    o.suites = {suite};
    o.extra_suites[suite] = fn;
    std::ostringstream out;
    auto run = run_native_suites(o);
    if (!run) {
      out << "error: " << run.error().what << "\n";
    } else {
      for (const auto& r : run->results) {
        out << r.name << "|" << r.skip_reason << "|" << (r.value ? "value" : "none") << "|"
            << (r.extra.count("load_ms") ? "load_ms" : "") << "\n";
      }
    }
    return out.str();
  });
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

bool has(const std::vector<std::string>& lines, const std::string& prefix) {
  for (const auto& l : lines) {
    if (l.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

// EXPECT_TRUE(has(lines, prefix)) for each prefix, every line in the message.
void expect_has(const std::vector<std::string>& lines,
                std::initializer_list<std::string> prefixes) {
  for (const std::string& prefix : prefixes) EXPECT_TRUE(has(lines, prefix)) << joined(lines);
}

class FakeDriverSuites : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(test::kFakeCuda)) {
      GTEST_SKIP() << "fake driver not built (targets fake_cuda fake_nvml)";
    }
  }
  // The jit tests need these images, which every nvcc from CUDA 12.8 on builds: why not, or "".
  static std::string missing_images() {
    if (kernel_images().empty())
      return "built without bench kernels: " + std::string(kernel_images_absent_reason());
    for (const char* t :
         {"sm_90", "sm_120", "compute_75", "compute_80", "compute_89", "compute_90"})
      if (!find_kernel_image(*SmTarget::parse(t)))
        return fmt::format("the bench kernels built by nvcc {} have no {} image",
                           kernel_images_toolkit(), t);
    return {};
  }
  // The gemm suite's lines for `precision` on a fake H100, cuBLASLt looked for at `library` only.
  static std::vector<std::string> gemm_on_fake_h100(const std::string& library,
                                                    Precision precision) {
    GemmSuiteOptions go;
    go.paths = {};  // nothing but `library`: no toolkit, Python environment or system search
    go.paths.user = library;
    go.paths.system = false;
    go.precisions = {precision};
    return run_on_fake("H100", "gemm", gemm_suite(go));
  }
};

#define SKIP_WITHOUT_IMAGES() \
  if (auto why = missing_images(); !why.empty()) GTEST_SKIP() << why

// Without embedded kernels (an nvcc-less build) the variants are skips: jit_test.cpp's
// JitVariants test calls jit_variants() with no images, so no build leaves that untested.

TEST_F(FakeDriverSuites, JitOnRtx5090) {
  SKIP_WITHOUT_IMAGES();
  const auto lines = run_on_fake("RTX 5090", "jit", run_jit_suite);
  expect_has(lines, {// Exact SASS and the older-generation PTX load and are measured, with the
                     // load time.
                     "jit smc_mma_f16 sm_120 SASS gpu0||value|load_ms",
                     "jit smc_mma_bf16 sm_120 SASS gpu0||value|load_ms",
                     "jit smc_triad sm_120 SASS gpu0||value|load_ms",
                     "jit smc_mma_f16 compute_80 PTX → JIT gpu0||value|load_ms",
                     "jit smc_triad compute_89 PTX → JIT gpu0||value|load_ms",
                     // compute_75 PTX has no bf16 mma: that row is a skip naming the lookup's
                     // CUresult.
                     "jit smc_mma_bf16 compute_75 PTX → JIT gpu0|smc_mma_bf16 is not in",
                     // The rules' skips.
                     "jit older SASS gpu0|no older SASS can run on 12.0",
                     "jit sm_89 SASS (never runs) gpu0|sm_89 SASS cannot run on 12.0"});
}

TEST_F(FakeDriverSuites, ForcedSm90CubinOnRtx5090IsARecordedSkip) {
  SKIP_WITHOUT_IMAGES();
  const auto lines = run_on_fake("RTX 5090", "jit", [](SuiteContext& ctx) {
    JitVariant v;
    v.role = JitRole::kExactSass;
    v.target = SmTarget{ImageKind::kSass, 90, ArchVariant::kBase};
    v.image = find_kernel_image(*v.target);
    v.label = "sm_90 SASS (forced)";
    return run_jit_variant(ctx, *ctx.devices.at(0), v);
  });
  ASSERT_EQ(lines.size(), 1u) << joined(lines);
  EXPECT_NE(lines[0].find("jit sm_90 SASS (forced) gpu0|"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("CUDA_ERROR_NO_BINARY_FOR_GPU"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("|none|"), std::string::npos) << lines[0];
}

TEST_F(FakeDriverSuites, JitOnH100AndRtx5090) {
  SKIP_WITHOUT_IMAGES();
  // Each GPU gets its own plan; names carry the ordinal.
  const auto lines = run_on_fake("H100,RTX 5090", "jit", run_jit_suite);
  const std::string all = joined(lines);
  expect_has(lines, {"jit smc_mma_f16 sm_90 SASS gpu0||value|load_ms",
                     "jit older SASS gpu0|no older SASS can run on 9.0",
                     "jit smc_mma_f16 compute_90 PTX → JIT gpu0||value|load_ms",
                     "jit smc_mma_f16 sm_120 SASS gpu1||value|load_ms"});
  EXPECT_FALSE(has(lines, "jit smc_mma_f16 sm_90 SASS gpu1")) << all;
}

TEST_F(FakeDriverSuites, GemmUnderTheFakeDriverIsRecordedSkips) {
  const std::string lt = testtoolkit::toolkit_cublaslt();
  if (lt.empty())
    GTEST_SKIP() << "no toolkit cuBLASLt (/usr/local/cuda/lib64/libcublasLt.so.13 or .12)";
  const auto lines = gemm_on_fake_h100(lt, Precision::kBf16);
  ASSERT_FALSE(lines.empty());
  // Whatever cuBLASLt makes of the fake, every row is a skip with its status, none crashes.
  for (const auto& l : lines) {
    EXPECT_NE(l.find("|none|"), std::string::npos) << l;
    EXPECT_NE(l.find("CUBLAS_STATUS_"), std::string::npos) << l;
  }
  EXPECT_TRUE(has(lines, "bf16 4096x4096x4096 gpu0|")) << joined(lines);
}

TEST_F(FakeDriverSuites, GemmWithoutCublasLt) {
  const auto lines = gemm_on_fake_h100("/nonexistent/libcublasLt.so.13", Precision::kFp16);
  ASSERT_FALSE(lines.empty());
  for (const auto& l : lines) {
    EXPECT_NE(l.find("cuBLASLt not loaded; tried: /nonexistent/libcublasLt.so.13"),
              std::string::npos)
        << l;
  }
}

TEST_F(FakeDriverSuites, EmbeddedKernelsForTheRunner) {
  SKIP_WITHOUT_IMAGES();
  const ComputeCapability one[] = {{12, 0}};
  auto k = embedded_device_kernels(one);
  ASSERT_TRUE(k.ok());
  ASSERT_TRUE(k->spin.has_value());
  EXPECT_EQ(k->spin->function, "smc_spin");
  EXPECT_EQ(k->triad->image.data(), find_kernel_image(*SmTarget::parse("sm_120"))->bytes.data());
  // Mixed majors: the newest PTX every GPU can JIT.
  const ComputeCapability mixed[] = {{9, 0}, {12, 0}};
  auto m = embedded_device_kernels(mixed);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->copy->image.data(), find_kernel_image(*SmTarget::parse("compute_90"))->bytes.data());
  const ComputeCapability old[] = {{7, 0}};
  EXPECT_FALSE(embedded_device_kernels(old).ok());
}

}  // namespace
}  // namespace smcompat::bench
