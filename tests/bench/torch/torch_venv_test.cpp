// The shipped torch script under a real torch (the corpus venv, torch 2.15 + torchvision 0.29),
// run through run_torch_script() with --device cpu --quick (the script's testing aid: tiny sizes,
// not a benchmark) and a short stopping rule, so that its control flow, its rows and its
// document are checked on a machine without a GPU. Skips, naming the path, without the cache.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "smcompat/bench/torch_runner.hpp"
#include "support/corpus.hpp"

namespace fs = std::filesystem;
using namespace smcompat::bench;
namespace testcorpus = smcompat::testcorpus;

namespace {

fs::path venv_python() { return testcorpus::corpus_dir() / "venvs/torch/bin/python"; }

#define REQUIRE_VENV()                                                                        \
  if (auto why =                                                                              \
          testcorpus::venv_interpreter_skip_reason(testcorpus::corpus_dir() / "venvs/torch"); \
      !why.empty())                                                                           \
  GTEST_SKIP() << why

TorchOptions cpu_options(std::vector<std::string> rows) {
  TorchOptions o;
  o.python = venv_python().string();
  o.device = "cpu";
  o.quick = true;
  o.rows = std::move(rows);
  o.stop = StopRule::quick();
  o.stop.min_samples = 2;
  o.stop.min_time_s = 0.001;
  o.stop.timeout_s = 0.05;
  o.timeout_s = 120;
  o.on_stderr = [](std::string_view) {};
  return o;
}

const BenchResult* find(const BenchRun& run, const std::string& suite, const std::string& name) {
  for (const BenchResult& r : run.results) {
    if (r.suite == suite && r.name == name) return &r;
  }
  return nullptr;
}

}  // namespace

TEST(TorchVenv, GemmAndLayerRowsOnCpu) {
  REQUIRE_VENV();
  TorchFailure why{};
  auto run = run_torch_script(cpu_options({"gemm", "gemm_batched", "softmax", "layernorm"}), &why);
  ASSERT_TRUE(run.ok()) << to_string(why) << ": " << run.error().to_string();
  EXPECT_TRUE(run->method.quick);
  EXPECT_FALSE(run->method.l2_flush);
  EXPECT_FALSE(run->method.blocking_kernel);
  EXPECT_EQ(run->method.stop.min_samples, 2u);
  EXPECT_EQ(run->method.stop.timeout_s, 0.05);
  ASSERT_TRUE(run->libraries.count("torch"));
  EXPECT_EQ(run->libraries.at("torch").rfind("2.", 0), 0u) << run->libraries.at("torch");
  EXPECT_TRUE(run->libraries.count("python"));
  ASSERT_EQ(run->devices.size(), 1u);
  EXPECT_FALSE(run->devices[0].catalog_gpu.has_value());
  EXPECT_FALSE(run->driver_version.has_value());
  ASSERT_FALSE(run->warnings.empty());
  EXPECT_NE(run->warnings[0].find("not a benchmark"), std::string::npos);

  // fp32, tf32, fp16, bf16, fp64, fp8 at 64; batched fp16, bf16, tf32; softmax; layernorm.
  EXPECT_EQ(run->results.size(), 11u);
  std::map<std::string, int> measured, skipped;
  for (const BenchResult& r : run->results) {
    EXPECT_EQ(r.origin, Origin::kTorch);
    EXPECT_EQ(r.devices, std::vector<int>{0});
    (r.skipped() ? skipped : measured)[r.suite]++;
    if (r.skipped()) {
      EXPECT_FALSE(r.skip_reason.empty()) << r.name;
      EXPECT_FALSE(r.time.has_value()) << r.name;
    } else {
      EXPECT_GT(*r.value, 0) << r.name;
      ASSERT_TRUE(r.time.has_value()) << r.name;
      EXPECT_GE(r.time->samples, 1u) << r.name;
      EXPECT_GT(r.time->median_s, 0) << r.name;
    }
    EXPECT_FALSE(r.peak.has_value()) << "no catalog GPU on cpu: " << r.name;
  }
  const BenchResult* fp16 = find(*run, "torch.gemm", "fp16 64x64x64");
  ASSERT_NE(fp16, nullptr);
  EXPECT_EQ(fp16->unit, "TFLOPS");
  EXPECT_EQ(fp16->params.at("m"), "64");
  EXPECT_EQ(fp16->verified, std::optional<bool>(true));
  // TFLOPS = 2mnk / median time.
  EXPECT_NEAR(*fp16->value, 2.0 * 64 * 64 * 64 / fp16->time->median_s / 1e12, 1e-9);
  const BenchResult* tf32 = find(*run, "torch.gemm", "tf32 64x64x64");
  ASSERT_NE(tf32, nullptr);
  EXPECT_TRUE(tf32->skipped());
  EXPECT_NE(tf32->skip_reason.find("CUDA tensor-core mode"), std::string::npos);
  const BenchResult* fp8 = find(*run, "torch.gemm", "fp8_e4m3 64x64x64");
  ASSERT_NE(fp8, nullptr);
  EXPECT_TRUE(fp8->value.has_value() || !fp8->skip_reason.empty());
  const BenchResult* softmax = find(*run, "torch.softmax", "[1,2,16,16]");
  ASSERT_NE(softmax, nullptr);
  EXPECT_EQ(softmax->unit, "ms");
  EXPECT_NEAR(*softmax->value, softmax->time->median_s * 1e3, 1e-12);
  EXPECT_EQ(measured["torch.gemm_batched"], 2);
  EXPECT_EQ(skipped["torch.gemm_batched"], 1);
}

TEST(TorchVenv, ModelRowsOnCpu) {
  REQUIRE_VENV();
  auto run = run_torch_script(cpu_options({"resnet50", "transformer", "sdpa", "conv2d"}));
  ASSERT_TRUE(run.ok()) << run.error().to_string();
  ASSERT_EQ(run->results.size(), 4u);
  for (const BenchResult& r : run->results) {
    EXPECT_FALSE(r.skipped()) << r.suite << " " << r.name << ": " << r.skip_reason;
  }
  const BenchResult& resnet = run->results[0];
  EXPECT_EQ(resnet.suite, "torch.resnet50");
  EXPECT_EQ(resnet.unit, "img/s");
  ASSERT_TRUE(resnet.value && resnet.time);
  EXPECT_NEAR(*resnet.value, 2 / resnet.time->median_s, 1e-6 * *resnet.value);
  EXPECT_TRUE(run->libraries.count("torchvision"));
  EXPECT_EQ(run->results[1].suite, "torch.transformer");
  EXPECT_EQ(run->results[1].params.at("layers"), "6");
  EXPECT_EQ(run->results[2].unit, "ms");
}

TEST(TorchVenv, UnknownRowKindIsAnError) {
  REQUIRE_VENV();
  TorchFailure why{};
  auto run = run_torch_script(cpu_options({"gemm", "nonsense"}), &why);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(why, TorchFailure::kScriptFailed);
  EXPECT_NE(run.error().what.find("nonsense"), std::string::npos) << run.error().what;
}

TEST(TorchVenv, WithoutCudaTheScriptSaysSo) {
  REQUIRE_VENV();
  TorchOptions o = cpu_options({"softmax"});
  o.device = "cuda";
  // Hide any GPU, so that this is the no-CUDA path even on a machine with one.
  ::setenv("CUDA_VISIBLE_DEVICES", "", 1);
  TorchFailure why{};
  auto run = run_torch_script(o, &why);
  ::unsetenv("CUDA_VISIBLE_DEVICES");
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(why, TorchFailure::kNoCuda) << run.error().what;
  EXPECT_NE(run.error().what.find("no CUDA device"), std::string::npos) << run.error().what;
}
