// Which plans the installed kernels cannot run (plan/installed.hpp): apply_engine_kernels on
// hand-built package verdicts over the real candidate plans of Qwen3-30B-A3B on 8xH100
// (installed_corpus_test.cpp: engine_kernels on a real environment of the corpus).
#include "smcompat/plan/installed.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "plan/qwen_plans.hpp"

namespace smcompat::plan {
namespace {

const std::string kPython = "/opt/venv/bin/python";

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
