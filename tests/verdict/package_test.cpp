// The package roll-up (verdict/package.hpp) and the unit model under it: kernel-less images are no
// units, relocatable code replaces one device-linked image only, the driver is asked about the
// GPU and the CUDA runtime. Inventories are built by hand (the targets are what matters), except
// for the toolkit's libcufftw, a real file with nothing to launch.
#include "smcompat/verdict/package.hpp"

#include <gtest/gtest.h>

#include "fixtures/support.hpp"
#include "support/targets.hpp"

namespace smcompat {
namespace {

using testtargets::T;

struct Unit {
  std::vector<std::string> targets;  // "sm_90a", "compute_80", ...
  bool relocatable = false;
  size_t copies = 1;
  bool kernelless = false;
};

// A host library holding one fatbin container per unit (copies repeat it).
FileInventory library(const std::vector<Unit>& units) {
  FileInventory inv;
  inv.path = "lib.so";
  inv.format = FileFormat::kHostElf;
  for (const auto& u : units) {
    for (size_t c = 0; c < u.copies; ++c) {
      ContainerInfo ci;
      ci.section = u.relocatable ? "__nv_relfatbin" : ".nv_fatbin";
      ci.offset = 0x1000 * (inv.containers.size() + 1);
      ci.first_image = inv.images.size();
      ci.relocatable = u.relocatable;
      for (const auto& t : u.targets) {
        DeviceImage img;
        img.target = *SmTarget::parse(t);
        img.section = ci.section;
        img.relocatable = u.relocatable;
        if (img.target.kind == ImageKind::kPtx) img.ptx_version = Version{8, 7};
        if (u.kernelless) img.kernels = 0;
        inv.images.push_back(img);
      }
      ci.image_count = u.targets.size();
      inv.containers.push_back(ci);
    }
  }
  return inv;
}

PackageLibrary lib(const std::string& path, const std::vector<Unit>& units, const Target& t) {
  return {path, judge_file(library(units), t)};
}

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += s + "\n";
  return out;
}

TEST(UnitModel, KernelLessImagesAreNoUnits) {
  // NPP-style: an 872-byte sm_52 cubin without a kernel is no code any GPU lacks.
  auto empty = judge_file(library({{{"sm_52"}, false, 3, true}}), T("RTX 5090"));
  EXPECT_FALSE(empty.has_device_code);
  EXPECT_EQ(empty.no_code_units, 3u);
  EXPECT_EQ(empty.summary, "only images without kernels: nothing to launch on any GPU");
  // Beside real code it is left out of the counts.
  auto mixed = judge_file(library({{{"sm_52"}, false, 2, true}, {{"sm_120", "compute_120"}}}),
                          T("RTX 5090"));
  EXPECT_EQ(mixed.verdict, Fit::kNative);
  EXPECT_FALSE(mixed.partial);
  EXPECT_EQ(mixed.summary, "1 of 1 units run (1 native)");
}

TEST(UnitModel, ToolkitCufftwHasNothingToLaunch) {
  SMCOMPAT_REQUIRE_TOOLKIT_LIB(path, "libcufftw.so.12");
  auto invs = inspect_file(path, {});
  ASSERT_FALSE(invs.empty());
  ASSERT_FALSE(invs[0].images.empty()) << path;
  for (const auto& img : invs[0].images) {
    ASSERT_TRUE(img.kernels.has_value()) << img.target.to_string();
    EXPECT_EQ(*img.kernels, 0u) << img.target.to_string();
  }
  for (const char* gpu : {"RTX 5090", "B200", "H100", "T4"}) {
    auto v = judge_file(invs[0], T(gpu));
    EXPECT_FALSE(v.has_device_code) << gpu;
    auto p = judge_package({{path, v}}, {"nvidia-cufft-cu12", std::nullopt, ""}, T(gpu));
    EXPECT_FALSE(p.has_device_code) << gpu;
    EXPECT_EQ(p.route, "no device code") << gpu;
  }
}

TEST(UnitModel, UniformUnitsAreNotAlternatives) {
  // Per-architecture units (cuBLAS): the ones for other GPUs can be normal.
  auto per_arch = judge_file(library({{{"sm_90"}}, {{"sm_120"}}}), T("RTX 5090"));
  EXPECT_TRUE(per_arch.alternatives);
  EXPECT_TRUE(per_arch.partial);
  // 665 ordinary units for sm_61..sm_86 and 7 -rdc containers with PTX: the runtime's JIT link
  // replaces the one device-linked image, so 664 units still have no image.
  auto rdc = judge_file(
      library({{{"sm_61", "sm_75", "sm_86"}, false, 665}, {{"sm_86", "compute_86"}, true, 7}}),
      T("RTX 5090"));
  EXPECT_FALSE(rdc.alternatives);
  EXPECT_EQ(rdc.verdict, Fit::kNoImage);
  EXPECT_FALSE(rdc.jit_link_used);
  EXPECT_NE(rdc.summary.find("replaces only the one device-linked image: 664 other units still "
                             "have no image"),
            std::string::npos)
      << rdc.summary;
  // One ordinary unit: the JIT link covers it.
  auto one = judge_file(
      library({{{"sm_61", "sm_75", "sm_86"}}, {{"sm_86", "compute_86"}, true, 7}}), T("RTX 5090"));
  EXPECT_EQ(one.verdict, Fit::kPtxJit);
  EXPECT_TRUE(one.jit_link_used);
}

TEST(UnitModel, DriverBeforeTheGpuIsTooOld) {
  const std::vector<Unit> sm120 = {{{"sm_120", "compute_120"}}};
  auto v = judge_file(library(sm120), T("RTX 5090", "12.6"));
  EXPECT_EQ(v.verdict, Fit::kDriverTooOld);
  EXPECT_EQ(v.code_verdict, Fit::kNative);
  EXPECT_EQ(v.driver_reason,
            "the driver supports CUDA 12.6, and sm_120 needs a driver for CUDA 12.8 or newer "
            "(570.26 or newer)");
  EXPECT_EQ(judge_file(library(sm120), T("RTX 5090", "12.8")).verdict, Fit::kNative);
  // GB10 (sm_121) came with CUDA 12.9.
  auto gb10 = judge_file(library(sm120), T("GB10", "12.8"));
  EXPECT_EQ(gb10.verdict, Fit::kDriverTooOld);
  EXPECT_NE(gb10.driver_reason.find("sm_121 needs a driver for CUDA 12.9"), std::string::npos)
      << gb10.driver_reason;
  // Code with no image stays no-image: a driver would not help.
  EXPECT_EQ(judge_file(library({{{"sm_90"}}}), T("RTX 5090", "12.6")).verdict, Fit::kNoImage);
}

TEST(PackageRoll, OptionalLibraryDoesNotDecide) {
  auto a100 = T("A100");
  auto p = judge_package(
      {lib("transformer_engine/libtransformer_engine.so", {{{"sm_80", "sm_90"}}}, a100),
       lib("transformer_engine/lib/libnccl_ep.so", {{{"sm_90"}}}, a100)},
      {"transformer-engine-cu12", std::nullopt, ""}, a100);
  EXPECT_EQ(p.fit, Fit::kNative);
  ASSERT_EQ(p.libraries.size(), 2u);
  EXPECT_EQ(p.libraries[1].role, LibraryRole::kOptional);
  EXPECT_FALSE(p.libraries[1].decides);
  ASSERT_EQ(p.not_running.size(), 1u);
  EXPECT_NE(p.not_running[0].find("transformer_engine/lib/libnccl_ep.so (optional: NCCL EP"),
            std::string::npos)
      << p.not_running[0];
}

TEST(PackageRoll, FlashAttentionAlternativesAndJitUnits) {
  auto judge = [](const Target& t) {
    return judge_package(
        {lib("vllm/_C.abi3.so", {{{"sm_90", "sm_120"}, false, 75}, {{"compute_80"}, false, 12}}, t),
         lib("vllm/vllm_flash_attn/_vllm_fa2_C.abi3.so", {{{"sm_80", "compute_80"}, false, 76}}, t),
         lib("vllm/vllm_flash_attn/_vllm_fa3_C.abi3.so", {{{"sm_90a"}, false, 192}}, t),
         lib("vllm/_qutlass_C.abi3.so", {{{"sm_100f"}, false, 6}}, t)},
        {"vllm", std::nullopt, ""}, t);
  };
  // H100: FA3 is the one vLLM loads; only _C's PTX-only units JIT.
  auto h100 = judge(T("H100"));
  EXPECT_EQ(h100.fit, Fit::kNative);
  EXPECT_EQ(h100.route, "native; 12 units in vllm/_C.abi3.so JIT");
  EXPECT_EQ(h100.libraries[1].role, LibraryRole::kAlternative);
  EXPECT_FALSE(h100.libraries[1].decides);
  EXPECT_TRUE(h100.libraries[2].decides);
  EXPECT_TRUE(h100.libraries[3].other_gpus);
  // RTX 5090: FA3 is Hopper's, FA2 JITs; still native, and it says where the JIT is.
  auto rtx = judge(T("RTX 5090"));
  EXPECT_EQ(rtx.fit, Fit::kNative);
  EXPECT_EQ(rtx.route, "native; 88 units in 2 libraries JIT");
  EXPECT_EQ(rtx.jit_libraries, (std::vector<std::string>{
                                   "vllm/_C.abi3.so", "vllm/vllm_flash_attn/_vllm_fa2_C.abi3.so"}));
  // A100: FA2 runs natively; _C has no sm_80 SASS, so all of its running units JIT.
  auto a100 = judge(T("A100"));
  EXPECT_EQ(a100.fit, Fit::kNative);
  EXPECT_EQ(a100.route, "native; 12 units in vllm/_C.abi3.so JIT");
}

TEST(PackageRoll, PerArchitectureBuildsAndRuntimeVariants) {
  auto sgl = [](const Target& t) {
    return judge_package({lib("sgl_kernel/sm90/common_ops.abi3.so", {{{"sm_90a"}}}, t),
                          lib("sgl_kernel/sm100/common_ops.abi3.so", {{{"sm_100a"}}}, t)},
                         {"sgl-kernel", std::nullopt, ""}, t);
  };
  EXPECT_EQ(sgl(T("H100")).fit, Fit::kNative);
  EXPECT_EQ(sgl(T("B200")).fit, Fit::kNative);
  EXPECT_EQ(sgl(T("RTX 5090")).fit, Fit::kNoImage);  // neither build is for sm_120
  auto bnb = [](const Target& t, const std::string& loaded) {
    return judge_package(
        {lib("bitsandbytes/libbitsandbytes_cuda126.so", {{{"sm_90", "compute_90"}}}, t),
         lib("bitsandbytes/libbitsandbytes_cuda128.so", {{{"sm_90", "sm_120"}}}, t)},
        {"bitsandbytes", std::nullopt, loaded}, t);
  };
  auto best = bnb(T("RTX 5090"), "");
  EXPECT_EQ(best.fit, Fit::kNative);
  EXPECT_TRUE(best.libraries[1].runtime_variant);
  EXPECT_TRUE(best.libraries[1].decides);
  // The doctor knows torch's CUDA 12.6 picks the other library: that one decides.
  EXPECT_EQ(bnb(T("RTX 5090"), "bitsandbytes/libbitsandbytes_cuda126.so").fit, Fit::kPtxJit);
  EXPECT_EQ(alternative_key("bitsandbytes/libbitsandbytes_cuda126.so"),
            "bitsandbytes/libbitsandbytes_cuda*.so");
  EXPECT_EQ(alternative_key("sgl_kernel/sm100/common_ops.abi3.so"),
            "sgl_kernel/sm*/common_ops.abi3.so");
  EXPECT_EQ(alternative_key("pkg/smooth_ops.so"), "");  // "sm" inside a word is no arch
}

TEST(PackageRoll, TheWorstDecidingLibraryAndTheDriver) {
  auto t = T("RTX 5090");
  auto jit = judge_package({lib("pkg/a.so", {{{"sm_80", "compute_80"}}}, t)}, {"pkg"}, t);
  EXPECT_EQ(jit.fit, Fit::kPtxJit);
  EXPECT_EQ(jit.route, "JIT only");
  auto broken = judge_package(
      {lib("pkg/a.so", {{{"sm_120"}}}, t), lib("pkg/b.so", {{{"sm_80", "sm_90"}}}, t)}, {"pkg"}, t);
  EXPECT_EQ(broken.fit, Fit::kNoImage) << joined(broken.not_running);
  // The CUDA runtime the package links against a driver of an older major.
  auto h100 = T("H100", "12.8");
  auto cu13 =
      judge_package({lib("pkg/a.so", {{{"sm_90"}}}, h100)},
                    {"pkg", RuntimeNeed{Version{13, 0}, "bundles libcudart.so.13"}, ""}, h100);
  EXPECT_EQ(cu13.fit, Fit::kDriverTooOld);
  EXPECT_EQ(cu13.code_fit, Fit::kNative);
  EXPECT_EQ(cu13.driver_reason,
            "it needs the CUDA 13.0 runtime (bundles libcudart.so.13), and the driver supports "
            "CUDA 12.8: install a driver for CUDA 13.0 or newer (580.65.06 or newer)");
  EXPECT_EQ(cu13.route, "driver-too-old (by its code: native)");
  // Minor-version compatibility: a 12.8 runtime on a 12.2 driver initialises.
  auto h100_122 = T("H100", "12.2");
  EXPECT_EQ(judge_package({lib("pkg/a.so", {{{"sm_90"}}}, h100_122)},
                          {"pkg", RuntimeNeed{Version{12, 8}, "requires"}, ""}, h100_122)
                .fit,
            Fit::kNative);
  // Link inputs only (libcudadevrt.a): nothing that loads.
  auto devrt = judge_package({lib("nvidia/lib/libcudadevrt.a!o", {{{"sm_90"}, true}}, h100)},
                             {"nvidia-cuda-runtime"}, h100);
  EXPECT_FALSE(devrt.has_device_code);
  ASSERT_EQ(devrt.libraries.size(), 1u);
  EXPECT_TRUE(devrt.libraries[0].link_input);
}

}  // namespace
}  // namespace smcompat
