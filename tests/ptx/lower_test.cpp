// wgmma → mma.sync lowering, proven with ptxas: the nvcc-built fixture (tests/ptx/data/
// wgmma_kernels.cu: every operand form the lowering handles) is lowered for sm_120, sm_121 and
// sm_90 and assembled there; `ptx check` finds nothing left for the target; what is not lowered
// is refused with its line and reason.
#include "smcompat/ptx/lower.hpp"

#include <gtest/gtest.h>

#include "ptx_test_util.hpp"

namespace smcompat::ptx {
namespace {

using testing::ptxas_accepts;

const std::string& wgmma_fixture() {
  static const std::string text = [] {
    std::string log;
    std::string t =
        testing::nvcc_ptx(std::string(SMCOMPAT_SOURCE_DIR) + "/tests/ptx/data/wgmma_kernels.cu",
                          "sm_90a", "wgmma_kernels.sm_90a.ptx", &log);
    EXPECT_FALSE(t.empty()) << log;
    return t;
  }();
  return text;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

TEST(PtxLower, EveryWgmmaFormOfTheFixtureAssemblesForSm120AndSm121) {
  SMCOMPAT_REQUIRE_CUDA();
  const std::string& src = wgmma_fixture();
  ASSERT_FALSE(src.empty());
  std::string log;
  // The premise, from ptxas itself: sm_120 has no wgmma.
  std::string as_sm120 = src;
  as_sm120.replace(as_sm120.find(".target sm_90a"), 14, ".target sm_120");
  ASSERT_FALSE(ptxas_accepts(as_sm120, "sm_120", &log));
  EXPECT_NE(log.find("wgmma"), std::string::npos) << log;

  for (const char* target : {"sm_120", "sm_121", "sm_120a", "sm_90"}) {
    SCOPED_TRACE(target);
    auto r = lower(src, *SmTarget::parse(target));
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    ASSERT_TRUE(r->ok) << (r->blockers.empty() ? "" : r->blockers[0].reason);
    // 9 kernels, each with one wgmma.mma_async and its fence, commit and wait.
    size_t mma = 0, sync = 0, per_warp = 0;
    for (const auto& l : r->lowered) {
      mma += l.kind == "wgmma-mma";
      sync += l.kind == "wgmma-sync";
      per_warp += l.mma_count;
    }
    EXPECT_EQ(mma, 9u);
    EXPECT_EQ(sync, 27u);
    // N/8 per instruction: 64, 64, 32, 16, 64, 16, 32, 256, 8.
    EXPECT_EQ(per_warp, (64u + 64 + 32 + 16 + 64 + 16 + 32 + 256 + 8) / 8);
    EXPECT_EQ(count(r->text, "\twgmma."), 0u);
    EXPECT_EQ(count(r->text, "\tmma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"),
              (64u + 64 + 16 + 256) / 8);
    EXPECT_EQ(count(r->text, "\tmma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16"), 8u);
    EXPECT_EQ(count(r->text, "\tmma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"), 5u);
    EXPECT_EQ(count(r->text, "\tmma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"), 2u);
    EXPECT_EQ(count(r->text, "\tmma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32"), 4u);
    EXPECT_TRUE(ptxas_accepts(r->text, target, &log)) << log;
    // Nothing is left that the target lacks.
    auto again = parse_module(r->text);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(analyze(*again, *SmTarget::parse(target)).outcome, KernelCheck::kRuns);
  }
}

TEST(PtxLower, OneKernelIsKeptAndLoweredWithKernel) {
  SMCOMPAT_REQUIRE_CUDA();
  const std::string& src = wgmma_fixture();
  ASSERT_FALSE(src.empty());
  auto r = lower(src, *SmTarget::parse("sm_121"), "wgmma_bf16_ss_n8");
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_TRUE(r->ok) << (r->blockers.empty() ? "" : r->blockers[0].reason);
  EXPECT_EQ(r->lowered.size(), 4u);
  auto m = parse_module(r->text);
  ASSERT_TRUE(m.ok());
  size_t entries = 0;
  for (const auto& f : m->functions) entries += f.is_entry;
  EXPECT_EQ(entries, 1u);
  ASSERT_NE(m->find_function("wgmma_bf16_ss_n8"), nullptr);
  EXPECT_NE(r->text.find("/* smcompat: kernel wgmma_e4m3_ss_n32 left out"), std::string::npos);
  std::string log;
  EXPECT_TRUE(ptxas_accepts(r->text, "sm_121", &log)) << log;
  EXPECT_FALSE(lower(src, *SmTarget::parse("sm_120"), "no_such_kernel").ok());
}

TEST(PtxLower, Fp8NeedsSm89AndEverythingNeedsSm80) {
  SMCOMPAT_REQUIRE_CUDA();
  const std::string& src = wgmma_fixture();
  ASSERT_FALSE(src.empty());
  auto r = lower(src, *SmTarget::parse("sm_80"));
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->ok);
  ASSERT_EQ(r->blockers.size(), 1u);
  EXPECT_EQ(r->blockers[0].kernel, "wgmma_e4m3_ss_n32");
  EXPECT_NE(r->blockers[0].reason.find("needs sm_89"), std::string::npos) << r->blockers[0].reason;
  // On sm_89 every wgmma lowers, but the fixture's fence.proxy.async (sm_90+) stays: retarget
  // names it in each of the 9 kernels.
  auto r89 = lower(src, *SmTarget::parse("sm_89"));
  ASSERT_TRUE(r89.ok());
  EXPECT_FALSE(r89->ok);
  EXPECT_EQ(r89->lowered.size(), 36u);
  ASSERT_EQ(r89->blockers.size(), 9u);
  for (const auto& b : r89->blockers)
    EXPECT_NE(b.reason.find("fence.proxy.async"), std::string::npos) << b.reason;
  auto r75 = lower(src, *SmTarget::parse("sm_75"));
  ASSERT_TRUE(r75.ok());
  EXPECT_EQ(r75->blockers.size(), 9u);
}

// Hand-written PTX for the refusals: each is valid sm_90a PTX (ptxas accepts it).
std::string kernel_with(const std::string& body) {
  return ".version 8.0\n.target sm_90a\n.address_size 64\n"
         ".visible .entry k(.param .u64 p)\n{\n"
         ".reg .pred %p<2>;\n.reg .b32 %r<16>;\n.reg .f32 %f<8>;\n.reg .b64 %rd<4>;\n"
         "ld.param.u64 %rd1, [p];\nmov.b64 %rd2, %rd1;\nsetp.ne.u64 %p1, %rd1, 0;\n" +
         body + "\nret;\n}\n";
}

TEST(PtxLower, RefusesWhatItCannotLowerWithLineAndReason) {
  struct Case {
    const char* body;
    const char* reason;
  } cases[] = {
      {"wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8 {%r1, %r2, %r3, %r4}, %rd1, %rd2, 1;",
       "integer and b1 wgmma are not lowered"},
      {"@%p1 wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, "
       "1, 1, 1, 0, 0;",
       "a guarded wgmma"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.body);
    const std::string text = kernel_with(c.body);
    std::string log;
    if (!testing::cuda_bin("ptxas").empty())
      EXPECT_TRUE(ptxas_accepts(text, "sm_90a", &log)) << log;
    auto r = lower(text, *SmTarget::parse("sm_120"));
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    EXPECT_FALSE(r->ok);
    ASSERT_EQ(r->blockers.size(), 1u);
    EXPECT_EQ(r->blockers[0].loc.line, 13u);
    EXPECT_NE(r->blockers[0].reason.find(c.reason), std::string::npos) << r->blockers[0].reason;
  }
}

TEST(PtxLower, WhatRetargetRefusesAfterTheLoweringIsReported) {
  // tcgen05 is not lowered: the lowering leaves it, and retarget names it.
  const std::string text = kernel_with(
      "wgmma.fence.sync.aligned;\n"
      "tcgen05.fence::before_thread_sync;");
  auto r = lower(text, *SmTarget::parse("sm_120"));
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->ok);
  ASSERT_FALSE(r->blockers.empty());
  EXPECT_NE(r->blockers[0].feature.find("tcgen05"), std::string::npos) << r->blockers[0].feature;
}

TEST(PtxLower, RetargetsRewritesAreLocatedInTheInput) {
  // The lowered block is longer than the wgmma it replaces; setmaxnreg after it is still
  // reported at its line in the input.
  const std::string text = kernel_with(
      "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, "
      "%p1, 1, 1, 0, 0;\n"
      "setmaxnreg.inc.sync.aligned.u32 232;");
  auto r = lower(text, *SmTarget::parse("sm_120"));
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->ok) << (r->blockers.empty() ? "" : r->blockers[0].reason);
  bool seen = false;
  for (const auto& w : r->rewrites) {
    if (w.kind != "drop-setmaxnreg") continue;
    seen = true;
    EXPECT_EQ(w.loc.line, 14u);
    EXPECT_EQ(w.loc.col, 1u);
  }
  EXPECT_TRUE(seen);
  // scale-d from a predicate: D is zeroed where it is false.
  EXPECT_NE(r->text.find("@!%p1 mov.b32 %f4, 0;"), std::string::npos);
}

TEST(PtxLower, MalformedWgmmaOperandsAreRefusedNotCrashed) {
  const char* bodies[] = {
      "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3}, %rd1, %rd2, 1, 1, 1, 0, "
      "0;",
      "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, 1, 2, "
      "1, 0, 0;",
      "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, 1, 1, "
      "1, 0, 7;",
      "wgmma.mma_async.sync.aligned.m64n12k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, 1, 1, "
      "1, 0, 0;",
      "wgmma.mma_async.sync.aligned.m64n8k8.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, 1, 1, 1, "
      "0, 0;",
      "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1;",
      "wgmma.mma_async.sync.aligned.m64n8k16.f16.bf16.bf16 {%r1, %r2}, %rd1, %rd2, 1, 1, 1, 0, 0;",
      "wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, %r1, "
      "0, 1, 1, 1, 0, 0;",
  };
  for (const char* body : bodies) {
    SCOPED_TRACE(body);
    auto r = lower(kernel_with(body), *SmTarget::parse("sm_120"));
    ASSERT_TRUE(r.ok());
    EXPECT_FALSE(r->ok);
    ASSERT_EQ(r->blockers.size(), 1u);
    EXPECT_EQ(r->blockers[0].feature, "wgmma");
  }
}

}  // namespace
}  // namespace smcompat::ptx
