// engine_kernels on a real environment of the corpus (vllm 0.33.0 over torch 2.15.0:
// venvs/torch-vllm of scripts/fetch-corpus.sh) against what `smcompat doctor` says of the same
// environment (label corpus: its own binary, plan_corpus_tests, by the *_corpus_test.cpp rule of
// tests/CMakeLists.txt; skipped, naming the path, without the cache).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "plan/qwen_plans.hpp"
#include "smcompat/plan/installed.hpp"
#include "support/corpus.hpp"

namespace smcompat::plan {
namespace {

// Whether the venv's site-packages (whichever Python built it) holds `dist_info`.
bool installed(const std::string& venv, const std::string& dist_info) {
  auto site = testcorpus::site_packages(venv);
  return !site.empty() && std::filesystem::exists(site / dist_info);
}

// venvs/torch-vllm: venvs/torch (torch 2.15.0, triton 3.9.0, nvidia-nvshmem-cu13 3.7.2, the CUDA
// 13 libraries) plus vllm-0.33.0-cp38-abi3-manylinux_2_28_x86_64.whl (320 MiB, pip install
// --no-deps). What vllm 0.33.0 carries (cuobjdump --list-elf / --list-ptx of each library):
//   _C_stable_libtorch.abi3.so   SASS sm_75 sm_80 sm_86 sm_89 sm_90 sm_90a sm_100 sm_100f sm_120
//                                sm_120f, PTX compute_80 compute_89 compute_90
//   _moe_C_stable_libtorch       SASS sm_75 .. sm_120, PTX compute_80
//   vllm_flash_attn/_vllm_fa2_C  SASS sm_80, PTX compute_80;  _vllm_fa3_C: sm_90a only
//   _flashmla_C, _flashmla_extension_C: sm_90a and sm_100 (a/f);  _flashkda_C: sm_90a sm_100 sm_120
//   _deepselect_C, _qutlass_C: sm_100 only
// `smcompat doctor --python VENV/bin/python --gpu H100 --gpu "RTX PRO 6000" --no-active --json`
// (run by hand) judges vllm 0.33.0 "no-image" for both GPUs (its worst library: _deepselect_C and
// _qutlass_C on sm_90; those and fa3, flashmla on sm_120), and torch, triton and
// nvidia-nvshmem-cu13 "native" for both. The library vLLM loads at import, _C_stable_libtorch, is
// native on both (best image sm_90, sm_120).
class RealVenv : public ::testing::Test {
 protected:
  void SetUp() override {
    venv_ = (testcorpus::corpus_dir() / "venvs/torch-vllm").string();
    if (!installed(venv_, "vllm-0.33.0.dist-info"))
      GTEST_SKIP() << venv_ << " missing: the vllm-0.33.0 wheel installed over venvs/torch (run "
                   << "scripts/fetch-corpus.sh, or set SMCOMPAT_CORPUS)";
  }
  EngineKernels kernels(const std::string& gpu_name) {
    const GpuSpec* gpu = Catalog::builtin().find_gpu(gpu_name);
    EXPECT_NE(gpu, nullptr) << gpu_name;
    if (!gpu) return {};
    auto k = engine_kernels(venv_ + "/bin/python", *gpu);
    EXPECT_TRUE(k.ok()) << (k.ok() ? "" : k.error().to_string());
    return k.ok() ? *k : EngineKernels{};
  }
  std::string venv_;
};

std::vector<std::string> names(const EngineKernels& k) {
  std::vector<std::string> out;
  for (auto& p : k.packages) out.push_back(p.name + " " + p.version);
  return out;
}

TEST_F(RealVenv, H100) {
  auto k = kernels("H100 SXM");
  EXPECT_EQ(k.gpu, "H100 SXM");
  EXPECT_TRUE(k.errors.empty());
  EXPECT_EQ(names(k), (std::vector<std::string>{"nvidia-nvshmem-cu13 3.7.2", "torch 2.15.0",
                                                "triton 3.9.0", "vllm 0.33.0"}));
  for (auto* n : {"nvidia-nvshmem-cu13", "torch", "triton"}) {
    ASSERT_NE(k.find(n), nullptr) << n;
    EXPECT_EQ(k.find(n)->fit, Fit::kNative) << n;
    EXPECT_EQ(k.find(n)->runs, Fit::kNative) << n;
  }
  const InstalledPackage* vllm = k.find("vllm");
  ASSERT_NE(vllm, nullptr);
  EXPECT_EQ(vllm->fit, Fit::kNative);  // as the doctor says: the libraries that load decide
  EXPECT_EQ(vllm->runs, Fit::kNative);
  EXPECT_EQ(vllm->detail,
            "vllm/_C_stable_libtorch.abi3.so, loaded at import: native, best image sm_90");
  EXPECT_EQ(vllm->carries,
            "sm_75, sm_80, sm_86, sm_89, sm_90, sm_90a, sm_100, sm_100f, sm_120, sm_120f, "
            "compute_80, compute_89, compute_90");
  EXPECT_EQ(vllm->without_code,
            (std::vector<std::string>{"vllm/_deepselect_C.abi3.so", "vllm/_qutlass_C.abi3.so"}));

  // On the plans: vLLM runs; the DeepEP plans lack deep_ep; SGLang is not there at all.
  auto plans = qwen_on_8xh100();
  apply_engine_kernels(k, Engine::kVllm, plans);
  const std::string note =
      "vllm 0.33.0: 2 of its libraries have no code for sm_90 (vllm/_deepselect_C.abi3.so, "
      "vllm/_qutlass_C.abi3.so); the features they serve are not available on H100 SXM";
  const std::string no_deep_ep = "DeepEP is not installed in " + venv_ +
                                 "/bin/python (no deep_ep distribution): install it, or serve "
                                 "with a plan without DeepEP";
  for (auto& p : plans) {
    bool deepep = p.shape.a2a == AllToAll::kDeepEp;
    EXPECT_EQ(p.runnable, !deepep) << p.shape.name();
    EXPECT_EQ(p.why_not, deepep ? std::vector<std::string>{no_deep_ep} : std::vector<std::string>{})
        << p.shape.name();
    EXPECT_EQ(p.notes.back(), note) << p.shape.name();
  }
  auto sg = qwen_on_8xh100();
  apply_engine_kernels(k, Engine::kSglang, sg);
  for (auto& p : sg)
    EXPECT_EQ(p.notes.back(), "sglang is not installed in " + venv_ +
                                  "/bin/python: the plan is not checked against its kernels");
}

TEST_F(RealVenv, RtxPro6000Blackwell) {
  auto k = kernels("RTX PRO 6000 Blackwell");
  EXPECT_EQ(k.cc.arch(), 120);
  EXPECT_EQ(names(k), (std::vector<std::string>{"nvidia-nvshmem-cu13 3.7.2", "torch 2.15.0",
                                                "triton 3.9.0", "vllm 0.33.0"}));
  for (auto* n : {"nvidia-nvshmem-cu13", "torch", "triton"}) {
    ASSERT_NE(k.find(n), nullptr) << n;
    EXPECT_EQ(k.find(n)->fit, Fit::kNative) << n;
  }
  const InstalledPackage* vllm = k.find("vllm");
  ASSERT_NE(vllm, nullptr);
  EXPECT_EQ(vllm->fit, Fit::kNative);  // FA2 JITs; _deepselect_C, _qutlass_C are sm_100f
  EXPECT_EQ(vllm->runs, Fit::kNative);
  EXPECT_EQ(vllm->detail,
            "vllm/_C_stable_libtorch.abi3.so, loaded at import: native, best image sm_120");
  EXPECT_EQ(vllm->without_code, (std::vector<std::string>{
                                    "vllm/_deepselect_C.abi3.so", "vllm/_flashmla_C.abi3.so",
                                    "vllm/_flashmla_extension_C.abi3.so", "vllm/_qutlass_C.abi3.so",
                                    "vllm/vllm_flash_attn/_vllm_fa3_C.abi3.so"}));
}

}  // namespace
}  // namespace smcompat::plan
