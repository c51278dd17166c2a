// Which plans the installed kernels cannot run (plan/installed.hpp): apply_engine_kernels on
// hand-built package verdicts over the real candidate plans of Qwen3-30B-A3B on 8xH100, and
// engine_kernels on a real environment (vllm 0.33.0 over torch 2.15.0: venvs/torch-vllm of
// scripts/fetch-corpus.sh) against what `smcompat doctor` says of the same environment.
#include "smcompat/plan/installed.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace smcompat::plan {
namespace {

const std::string kPython = "/opt/venv/bin/python";

std::vector<PlanEstimate> qwen_on_8xh100() {
  PlanRequest rq;
  auto m = read_model_config(std::string(SMCOMPAT_SOURCE_DIR) +
                             "/tests/plan/configs/Qwen__Qwen3-30B-A3B.json");
  EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().to_string());
  if (m.ok()) rq.model = *m;
  auto sets = parse_gpu_sets("8xH100", Catalog::builtin());
  EXPECT_TRUE(sets.ok() && !sets->empty());
  if (sets.ok() && !sets->empty()) rq.gpus = sets->front();
  auto plans = rank_plans(rq);
  // Every candidate fits and runs before the installed kernels are looked at (3 of them DeepEP).
  EXPECT_EQ(plans.size(), 16u);
  for (auto& p : plans) EXPECT_TRUE(p.runnable && p.fits && p.why_not.empty()) << p.shape.name();
  EXPECT_EQ(std::count_if(plans.begin(), plans.end(),
                          [](auto& p) { return p.shape.a2a == AllToAll::kDeepEp; }),
            3);
  return plans;
}

InstalledPackage package(std::string name, std::string version, Fit runs, std::string detail,
                         std::string carries) {
  InstalledPackage p;
  p.name = std::move(name);
  p.version = std::move(version);
  p.fit = p.runs = runs;
  p.detail = std::move(detail);
  p.carries = std::move(carries);
  p.has_device_code = true;
  return p;
}

EngineKernels h100(std::vector<InstalledPackage> packages) {
  EngineKernels k;
  k.python = kPython;
  k.gpu = "H100 SXM";
  k.cc = {9, 0};
  k.packages = std::move(packages);
  return k;
}

InstalledPackage torch_native() {
  return package("torch", "2.15.0", Fit::kNative,
                 "torch/lib/libtorch_cuda.so, the best of its 3 libraries: native, best image "
                 "sm_90",
                 "sm_80, sm_90, sm_100, sm_120");
}
InstalledPackage vllm_native() {
  return package("vllm", "0.33.0", Fit::kNative,
                 "vllm/_C_stable_libtorch.abi3.so, loaded at import: native, best image sm_90",
                 "sm_80, sm_90, sm_100, sm_120");
}
InstalledPackage deep_ep_native() {
  return package("deep-ep", "1.2.1", Fit::kNative,
                 "deep_ep_cpp.cpython-311-x86_64-linux-gnu.so: native, best image sm_90", "sm_90");
}

const std::string kNoDeepEp =
    "DeepEP is not installed in /opt/venv/bin/python (no deep_ep distribution): install it, or "
    "serve with a plan without DeepEP";

TEST(ApplyEngineKernels, EnginePackageWithoutCodeBlocksEveryPlan) {
  auto plans = qwen_on_8xh100();
  auto vllm = package("vllm", "0.9.9", Fit::kNoImage, "vllm/_C.abi3.so, loaded at import: no-image",
                      "sm_100, sm_120, compute_120");
  apply_engine_kernels(h100({torch_native(), vllm, deep_ep_native()}), Engine::kVllm, plans);
  const std::string why =
      "vllm 0.9.9 cannot load on H100 SXM (sm_90): vllm/_C.abi3.so, loaded at import: no-image; "
      "it carries sm_100, sm_120, compute_120";
  for (auto& p : plans) {
    EXPECT_EQ(p.why_not, std::vector<std::string>{why}) << p.shape.name();
    EXPECT_FALSE(p.runnable) << p.shape.name();
    EXPECT_FALSE(p.fits) << p.shape.name();
    for (auto& note : p.notes) EXPECT_EQ(note.find("vllm"), std::string::npos) << note;
  }
}

TEST(ApplyEngineKernels, SglKernelIsSGLangsKernelPackage) {
  auto plans = qwen_on_8xh100();
  auto sgl = package("sgl-kernel", "0.3.21", Fit::kNoImage,
                     "sgl_kernel/sm90/common_ops.abi3.so, loaded at import: no-image", "sm_100a");
  InstalledPackage sglang;
  sglang.name = "sglang";
  sglang.version = "0.5.9";
  sglang.detail = "no device code";
  apply_engine_kernels(h100({torch_native(), sglang, sgl, deep_ep_native()}), Engine::kSglang,
                       plans);
  for (auto& p : plans)
    EXPECT_EQ(p.why_not,
              std::vector<std::string>{
                  "sgl-kernel 0.3.21 cannot load on H100 SXM (sm_90): "
                  "sgl_kernel/sm90/common_ops.abi3.so, loaded at import: no-image; it "
                  "carries sm_100a"})
        << p.shape.name();
}

TEST(ApplyEngineKernels, DeepEpMissingBlocksOnlyDeepEpPlans) {
  auto plans = qwen_on_8xh100();
  apply_engine_kernels(h100({torch_native(), vllm_native()}), Engine::kVllm, plans);
  for (auto& p : plans) {
    if (p.shape.a2a == AllToAll::kDeepEp) {
      EXPECT_EQ(p.why_not, std::vector<std::string>{kNoDeepEp}) << p.shape.name();
      EXPECT_FALSE(p.runnable);
      EXPECT_FALSE(p.fits);
    } else {
      EXPECT_TRUE(p.why_not.empty()) << p.shape.name();
      EXPECT_TRUE(p.runnable);
      EXPECT_TRUE(p.fits);
    }
  }
  // TensorRT-LLM may carry its own DeepEP build: a missing deep_ep package blocks nothing there.
  auto trt = qwen_on_8xh100();
  auto trtllm =
      package("tensorrt-llm", "1.1.0", Fit::kNative,
              "tensorrt_llm/libs/libtensorrt_llm.so, the best of its 4 libraries: native", "sm_90");
  apply_engine_kernels(h100({torch_native(), trtllm}), Engine::kTrtllm, trt);
  for (auto& p : trt) EXPECT_TRUE(p.why_not.empty() && p.runnable) << p.shape.name();
}

TEST(ApplyEngineKernels, DeepEpWithoutCodeBlocksOnlyDeepEpPlans) {
  auto plans = qwen_on_8xh100();
  auto ep = package("deep-ep", "1.2.1", Fit::kNoImage,
                    "deep_ep_cpp.cpython-311-x86_64-linux-gnu.so: no-image", "sm_100a");
  apply_engine_kernels(h100({torch_native(), vllm_native(), ep}), Engine::kVllm, plans);
  for (auto& p : plans) {
    bool deepep = p.shape.a2a == AllToAll::kDeepEp;
    EXPECT_EQ(p.runnable, !deepep) << p.shape.name();
    EXPECT_EQ(
        p.why_not,
        deepep
            ? std::vector<std::string>{"deep-ep 1.2.1 cannot load on H100 SXM (sm_90): "
                                       "deep_ep_cpp.cpython-311-x86_64-linux-gnu.so: no-image; it "
                                       "carries sm_100a"}
            : std::vector<std::string>{})
        << p.shape.name();
  }
}

TEST(ApplyEngineKernels, EngineNotInstalledIsANoteOnly) {
  auto plans = qwen_on_8xh100();
  apply_engine_kernels(h100({torch_native(), deep_ep_native()}), Engine::kVllm, plans);
  for (auto& p : plans) {
    EXPECT_TRUE(p.why_not.empty() && p.runnable && p.fits) << p.shape.name();
    EXPECT_EQ(p.notes.back(),
              "vllm is not installed in /opt/venv/bin/python: the plan is not checked against its "
              "kernels");
  }
  // SGLang installed without its kernels: the note names sgl-kernel.
  auto sg = qwen_on_8xh100();
  InstalledPackage sglang;
  sglang.name = "sglang";
  sglang.version = "0.5.9";
  apply_engine_kernels(h100({torch_native(), sglang, deep_ep_native()}), Engine::kSglang, sg);
  for (auto& p : sg)
    EXPECT_EQ(p.notes.back(),
              "sgl-kernel is not installed in /opt/venv/bin/python: the plan is not checked "
              "against its kernels");
}

TEST(ApplyEngineKernels, PtxJitIsANote) {
  auto plans = qwen_on_8xh100();
  auto vllm = package("vllm", "0.9.9", Fit::kPtxJit,
                      "vllm/_C.abi3.so, loaded at import: ptx-jit, best image compute_80",
                      "sm_80, compute_80");
  auto ep = package("deep-ep", "1.2.1", Fit::kPtxJit,
                    "deep_ep_cpp.cpython-311-x86_64-linux-gnu.so: ptx-jit, best image compute_80",
                    "compute_80");
  apply_engine_kernels(h100({torch_native(), vllm, ep}), Engine::kVllm, plans);
  const std::string vllm_note =
      "vllm 0.9.9 runs on H100 SXM (sm_90) only by PTX JIT, which compiles its kernels at the "
      "first start (minutes): vllm/_C.abi3.so, loaded at import: ptx-jit, best image compute_80; "
      "it carries sm_80, compute_80";
  const std::string ep_note =
      "deep-ep 1.2.1 runs on H100 SXM (sm_90) only by PTX JIT, which compiles its kernels at the "
      "first start (minutes): deep_ep_cpp.cpython-311-x86_64-linux-gnu.so: ptx-jit, best image "
      "compute_80; it carries compute_80";
  for (auto& p : plans) {
    EXPECT_TRUE(p.why_not.empty() && p.runnable && p.fits) << p.shape.name();
    bool deepep = p.shape.a2a == AllToAll::kDeepEp;
    ASSERT_GE(p.notes.size(), deepep ? 2u : 1u);
    EXPECT_EQ(p.notes[p.notes.size() - (deepep ? 2 : 1)], vllm_note) << p.shape.name();
    if (deepep) EXPECT_EQ(p.notes.back(), ep_note) << p.shape.name();
  }
}

// ---- a real environment ----

std::string corpus() {
  if (const char* e = std::getenv("SMCOMPAT_CORPUS"); e && *e) return e;
  const char* home = std::getenv("HOME");
  return std::string(home ? home : "") + "/.cache/smcompat-corpus";
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
    venv_ = corpus() + "/venvs/torch-vllm";
    if (!std::filesystem::exists(venv_ + "/lib/python3.11/site-packages/vllm-0.33.0.dist-info"))
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

TEST(EngineKernels, NoEnvironmentIsAnError) {
  const GpuSpec* gpu = Catalog::builtin().find_gpu("H100 SXM");
  ASSERT_NE(gpu, nullptr);
  auto k = engine_kernels("/nonexistent/bin/python", *gpu);
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.error().what.find("/nonexistent/bin/python"), std::string::npos) << k.error().what;
}

TEST(EngineKernels, CoreLibraries) {
  EXPECT_EQ(engine_kernel_package(Engine::kSglang), "sgl-kernel");
  EXPECT_EQ(engine_kernel_package(Engine::kVllm), "vllm");
  EXPECT_EQ(engine_kernel_package(Engine::kTrtllm), "tensorrt-llm");
  EXPECT_EQ(core_library_patterns("sgl-kernel", {9, 0}).back(), "sgl_kernel/sm90/common_ops.*.so");
  EXPECT_EQ(core_library_patterns("sgl-kernel", {12, 0}).back(),
            "sgl_kernel/sm100/common_ops.*.so");
  EXPECT_TRUE(core_library_patterns("deep-ep", {9, 0}).empty());
}

}  // namespace
}  // namespace smcompat::plan
