// The jit suite's plan per compute capability (jit_variants), against the compatibility rules:
// exact SASS, the older SASS the rules allow, the PTX the driver JIT-compiles, and the skips.
// Uses the embedded images when built by nvcc 13.0, and a synthetic image list (targets only)
// so that the selection is tested without nvcc too.
#include "smcompat/bench/jit.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "smcompat/bench/kernels.hpp"
#include "toolkit_targets.hpp"

namespace smcompat::bench {
namespace {

// nvcc 13.0's images: the targets matter, the bytes do not.
std::vector<EmbeddedImage> synthetic_images() {
  std::vector<EmbeddedImage> v;
  for (int arch : {75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121}) {
    v.push_back({{ImageKind::kSass, arch, ArchVariant::kBase}, {}, std::nullopt});
  }
  for (int arch : {75, 80, 89, 90}) {
    v.push_back({{ImageKind::kPtx, arch, ArchVariant::kBase}, {}, Version{9, 0}});
  }
  return v;
}

// "label|role|skip?" per variant.
std::vector<std::string> plan(ComputeCapability cc, std::optional<Version> cuda = std::nullopt) {
  const auto images = synthetic_images();
  std::vector<std::string> out;
  for (const auto& v : jit_variants(cc, cuda, images)) {
    out.push_back(v.label + "|" + to_string(v.role) + (v.skipped() ? "|skip" : ""));
    EXPECT_EQ(v.skipped(), v.image == nullptr) << v.label;
  }
  return out;
}

// A plan's rows on a GPU with no SASS of an older minor in synthetic_images() (9.0, 12.0): its
// own SASS, the older-SASS skip, every PTX JIT-compiled forward, and the sm_89 SASS that cannot
// cross major versions.
std::vector<std::string> plan_without_older_minor(const std::string& own_sass) {
  return {own_sass + " SASS|exact-sass",
          "older SASS|older-sass|skip",
          "compute_75 PTX → JIT|ptx-jit",
          "compute_80 PTX → JIT|ptx-jit",
          "compute_89 PTX → JIT|ptx-jit",
          "compute_90 PTX → JIT|ptx-jit",
          "sm_89 SASS (never runs)|never-runs|skip"};
}

TEST(JitVariants, Hopper90) {
  EXPECT_EQ(plan({9, 0}), plan_without_older_minor("sm_90"));
  const auto v = jit_variants({9, 0}, std::nullopt, synthetic_images());
  EXPECT_EQ(v[1].skip_reason,
            "no older SASS can run on 9.0: SASS runs only on its own major version with an equal "
            "or higher minor, and 9.0 is the first minor of 9.x");
  EXPECT_EQ(v[6].skip_reason,
            "sm_89 SASS cannot run on 9.0: SASS never crosses major versions; a driver cannot "
            "fall back to sm_89 code on 9.0: only PTX is JIT-compiled forward");
}

TEST(JitVariants, Ada89) {
  EXPECT_EQ(plan({8, 9}), (std::vector<std::string>{
                              "sm_89 SASS|exact-sass",
                              "sm_80 SASS (older minor)|older-sass",
                              "sm_86 SASS (older minor)|older-sass",
                              "sm_87 SASS (older minor)|older-sass",
                              "sm_88 SASS (older minor)|older-sass",
                              "compute_75 PTX → JIT|ptx-jit",
                              "compute_80 PTX → JIT|ptx-jit",
                              "compute_89 PTX → JIT|ptx-jit",
                          }));
}

TEST(JitVariants, Rtx50_120) {
  // The "sm_89 fallback" experiment: compute_80/89 PTX JIT-compiled on 12.0 against sm_120 SASS.
  EXPECT_EQ(plan({12, 0}), plan_without_older_minor("sm_120"));
}

TEST(JitVariants, Gb10_121) {
  EXPECT_EQ(plan({12, 1}), (std::vector<std::string>{
                               "sm_121 SASS|exact-sass",
                               "sm_120 SASS (older minor)|older-sass",
                               "compute_75 PTX → JIT|ptx-jit",
                               "compute_80 PTX → JIT|ptx-jit",
                               "compute_89 PTX → JIT|ptx-jit",
                               "compute_90 PTX → JIT|ptx-jit",
                               "sm_89 SASS (never runs)|never-runs|skip",
                           }));
}

TEST(JitVariants, B200_100) {
  const auto p = plan({10, 0});
  ASSERT_EQ(p.size(), 7u);
  EXPECT_EQ(p[0], "sm_100 SASS|exact-sass");
  EXPECT_EQ(p[1], "older SASS|older-sass|skip");
  EXPECT_EQ(p[6], "sm_89 SASS (never runs)|never-runs|skip");
}

TEST(JitVariants, NoExactSassForAnArchNvccDoesNotBuild) {
  // 10.7 (newest guide revision): nvcc 13.0 has no sm_107; sm_100 and sm_103 are compatible.
  const auto p = plan({10, 7});
  EXPECT_EQ(p[0], "sm_107 SASS|exact-sass|skip");
  EXPECT_EQ(p[1], "sm_100 SASS (older minor)|older-sass");
  EXPECT_EQ(p[2], "sm_103 SASS (older minor)|older-sass");
}

TEST(JitVariants, PtxTooNewForTheDriverIsASkip) {
  // PTX ISA 9.0 needs a CUDA 13.0 driver; on a 12.8 driver each PTX variant is a recorded skip.
  const auto v = jit_variants({12, 0}, Version{12, 8}, synthetic_images());
  int ptx = 0;
  for (const auto& x : v) {
    if (x.role != JitRole::kPtxJit) continue;
    ++ptx;
    EXPECT_TRUE(x.skipped());
    EXPECT_EQ(x.fit.fit, Fit::kUnsupportedPtx);
    EXPECT_NE(x.skip_reason.find("CUDA_ERROR_UNSUPPORTED_PTX_VERSION"), std::string::npos);
  }
  EXPECT_EQ(ptx, 4);
}

TEST(JitVariants, NothingEmbedded) {
  const auto v = jit_variants({9, 0}, std::nullopt, {});
  ASSERT_EQ(v.size(), 2u);  // the exact-SASS skip and the sm_89 note
  EXPECT_TRUE(v[0].skipped());
  EXPECT_NE(v[0].skip_reason.find("no bench kernels embedded"), std::string::npos);
}

TEST(JitVariants, EmbeddedImagesMatchThePlanOfWhatNvccLists) {
  // The plan over the embedded images equals the plan over the targets the installed nvcc says it
  // builds (CUDA 12.x or 13.x), as a list without bytes.
  if (kernel_images().empty()) GTEST_SKIP() << kernel_images_absent_reason();
  std::vector<EmbeddedImage> listed;
  for (const auto& name : testtoolkit::nvcc_bench_targets()) {
    auto target = SmTarget::parse(name);
    ASSERT_TRUE(target) << name;
    const auto* image = find_kernel_image(*target);
    listed.push_back({*target, {}, image ? image->ptx_isa : std::nullopt});
  }
  if (listed.empty()) GTEST_SKIP() << SMCOMPAT_TEST_NVCC << " --list-gpu-code gave nothing here";
  for (ComputeCapability cc : {ComputeCapability{9, 0}, {8, 9}, {12, 0}, {12, 1}, {10, 0}}) {
    const auto a = jit_variants(cc);
    const auto b = jit_variants(cc, std::nullopt, listed);
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].label, b[i].label);
      EXPECT_EQ(a[i].skipped(), b[i].skipped());
      if (a[i].image) EXPECT_FALSE(a[i].image->bytes.empty());
    }
  }
}

TEST(JitVariants, SkipResult) {
  const auto v = jit_variants({12, 0}, std::nullopt, synthetic_images());
  const auto r = jit_skip_result(v.back(), 1);
  EXPECT_EQ(r.suite, "jit");
  EXPECT_EQ(r.name, "jit sm_89 SASS (never runs) gpu1");
  EXPECT_TRUE(r.skipped());
  EXPECT_EQ(r.devices, std::vector<int>{1});
  EXPECT_EQ(r.params.at("target"), "sm_89");
  EXPECT_EQ(r.params.at("fit"), "no-image");
  EXPECT_EQ(r.params.at("role"), "never-runs");
  EXPECT_NE(r.skip_reason.find("SASS never crosses major versions"), std::string::npos);
}

}  // namespace
}  // namespace smcompat::bench
