// `ptx lower` of datacenter-Blackwell tensor-core PTX: Triton 3.9's sm_100a kernels
// (tests/ptx/data/triton/*.sm_100.ptx: tcgen05.alloc/ld/st/mma/commit with tensor memory, an
// mbarrier and elect.sync) lowered for sm_120 and sm_121, assembled there by ptxas, and run in the
// reference interpreter against the original; and the forms that are refused, with their reasons.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "../../fuzz/ptx_lower_tcgen05_case.hpp"
#include "lower_test_util.hpp"
#include "ptx_test_util.hpp"
#include "smcompat/ptx/lower.hpp"

namespace smcompat::ptx {
namespace {

TEST(PtxLowerTcgen05, EveryBlackwellKernelLowersAndAssemblesForSm120AndSm121) {
  const auto files = testing::triton_fixtures(".sm_100.ptx");
  ASSERT_EQ(files.size(), 10u);
  const size_t mmas = testing::expect_every_fixture_lowers(
      files, "tcgen05", "tcgen05-mma", [](const auto& f, const LowerResult& r) {
        ASSERT_EQ(r.shared_added.size(), 1u);
        EXPECT_EQ(r.shared_added[0].bytes % 1024, 0u);
        // Only attention's 128 columns (both halves of the lanes used) pass 48 KiB.
        EXPECT_EQ(r.shared_added[0].dynamic, f.filename() == "attn_fwd.sm_100.ptx");
      });
  // 2 per matmul (K=32 in two k16 steps), 4 for tf32 (k8), 6 for attention.
  EXPECT_EQ(mmas, 8u * 2 + 4 + 6);
}

// Each kernel as Triton wrote it for sm_100a and as lowered runs in the interpreter on the same
// inputs (small-integer f16 patterns: every product and sum exact): every byte must agree.
TEST(PtxLowerTcgen05, EveryBlackwellKernelComputesTheSameBytesLowered) {
  const size_t equal =
      testing::expect_every_fixture_computes_the_same(testing::triton_fixtures(".sm_100.ptx"));
  EXPECT_EQ(equal, 10u);
}

// A wrong lowering is caught: the C fragment's rows g and g+8 swapped in every store back.
TEST(PtxLowerTcgen05, AWrongLoweringIsCaughtByTheInterpreter) {
  const std::string text = testing::read_file(std::filesystem::path(SMCOMPAT_SOURCE_DIR) /
                                              "tests/ptx/data/triton/mm_f16_bn.sm_100.ptx");
  auto r = lower(text, *SmTarget::parse("sm_120"));
  ASSERT_TRUE(r.ok() && r->ok);
  std::string broken = r->text;
  size_t swaps = 0;
  const std::string right = "], %lt_c0;";
  for (size_t p = broken.find(right); p != std::string::npos; p = broken.find(right, p + 1)) {
    broken.replace(p, right.size(), "], %lt_c2;");
    ++swaps;
  }
  ASSERT_GT(swaps, 0u);
  LowerVerifyOptions o;
  o.buffer_bytes = 64 * 1024;
  const auto results = verify_lowering(text, broken, o);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status, "differs") << results[0].reason;
  EXPECT_GT(results[0].differing_bytes, 1000u);
}

// A small kernel around one tcgen05 instruction, to try the refusals.
std::string kernel_with(std::string_view setup, std::string_view instruction) {
  return fmt::format(R"(.version 8.7
.target sm_100a
.address_size 64
.visible .entry k()
{{
	.reg .pred %p<4>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
	.shared .align 16 .b8 s[64];
	mov.u32 %r1, s;
	tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], 32;
	ld.shared.b32 %r2, [s];
	elect.sync %r3|%p1, -1;
	mov.b32 %r4, 68222992;
	mov.b64 %rd1, 0;
{}
	{};
	ret;
}}
)",
                     setup, instruction);
}

std::string refusal(const std::string& text) {
  auto r = lower(text, *SmTarget::parse("sm_120"));
  if (!r.ok()) return "error: " + r.error().what;
  if (r->ok || r->blockers.empty()) return "lowered";
  return r->blockers[0].reason + " @" + std::to_string(r->blockers[0].loc.line);
}

TEST(PtxLowerTcgen05, RefusesWhatItDoesNotLowerWithTheLineAndTheReason) {
  // The control: this one lowers.
  EXPECT_EQ(refusal(kernel_with("",
                                "@%p1 tcgen05.mma.cta_group::1.kind::f16 [%r2], %rd1, %rd1, "
                                "%r4, %p2")),
            "lowered");
  const std::string cta_pair = refusal(
      kernel_with("", "@%p1 tcgen05.mma.cta_group::2.kind::f16 [%r2], %rd1, %rd1, %r4, %p2"));
  EXPECT_NE(cta_pair.find(".cta_group::2 is not lowered"), std::string::npos) << cta_pair;
  EXPECT_NE(cta_pair.find("@17"), std::string::npos) << cta_pair;
  const std::string scaled = refusal(kernel_with(
      "",
      "@%p1 tcgen05.mma.cta_group::1.kind::mxf4.block_scale [%r2], %rd1, %rd1, %r4, [%r2], "
      "[%r2], %p2"));
  EXPECT_NE(scaled.find("is not lowered"), std::string::npos) << scaled;
  const std::string not_elected = refusal(
      kernel_with("", "@%p2 tcgen05.mma.cta_group::1.kind::f16 [%r2], %rd1, %rd1, %r4, %p2"));
  EXPECT_NE(not_elected.find("not issued under an elect.sync predicate"), std::string::npos)
      << not_elected;
  const std::string variable =
      refusal(kernel_with("\tadd.s32 %r5, %r4, %r3;",
                          "@%p1 tcgen05.mma.cta_group::1.kind::f16 [%r2], %rd1, %rd1, %r5, %p2"));
  EXPECT_NE(variable.find("is not a constant"), std::string::npos) << variable;
  // An instruction descriptor with the sparsity bit (4).
  const std::string sparse =
      refusal(kernel_with("\tmov.b32 %r6, 68222996;",
                          "@%p1 tcgen05.mma.cta_group::1.kind::f16 [%r2], %rd1, %rd1, %r6, %p2"));
  EXPECT_NE(sparse.find("sparse"), std::string::npos) << sparse;
  const std::string copy = refusal(kernel_with("", "tcgen05.cp.cta_group::1.128x256b [%r2], %rd1"));
  EXPECT_NE(copy.find("is not lowered"), std::string::npos) << copy;
  const std::string shape = refusal(
      kernel_with("", "tcgen05.ld.sync.aligned.16x256b.x1.b32 {%r5, %r6, %r7, %r0}, [%r2]"));
  EXPECT_NE(shape.find(".16x256b is not lowered"), std::string::npos) << shape;
  // Two allocations in one kernel.
  const std::string twice =
      refusal(kernel_with("\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], 32;",
                          "@%p1 tcgen05.mma.cta_group::1.kind::f16 [%r2], %rd1, %rd1, %r4, %p2"));
  EXPECT_NE(twice.find("2 tcgen05.alloc instructions"), std::string::npos) << twice;
  // 512 columns: 263 KiB of shared memory, more than sm_120 has.
  std::string big = kernel_with("",
                                "@%p1 tcgen05.mma.cta_group::1.kind::f16 [%r2], %rd1, %rd1, "
                                "%r4, %p2");
  big.replace(big.find("[%r1], 32;"), 10, "[%r1], 512;");
  const std::string too_big = refusal(big);
  EXPECT_NE(too_big.find("more than the 49152 bytes of static shared memory"), std::string::npos)
      << too_big;
}

// Random tcgen05.mma forms no compiler here wrote: M 64/128, N from 8 to the allocation, every
// kind and type pair, f16/f32 D, A from a descriptor or from tensor memory, K- and MN-major,
// negations, no swizzle or 32/64/128-byte swizzles with random LBO/SBO, layout F from lane 0 or
// 16, static (32/64 columns) and dynamic (128 columns) tensor memory. Each kernel copies 32 KiB of
// made-up operands into shared memory, fills all of its tensor memory from global memory, runs two
// MMAs (the second accumulating) and dumps the tensor memory; original and lowered must agree.
TEST(PtxLowerTcgen05, RandomFormsComputeTheSameBytesLowered) {
  std::mt19937 rng(20261128);
  size_t equal = 0, dynamic = 0, m128 = 0, lane16 = 0, a_tmem = 0;
  for (int i = 0; i < 48; ++i) {
    uint8_t bytes[tcgen05_case::kBytes];
    for (auto& b : bytes) b = static_cast<uint8_t>(rng());
    const tcgen05_case::Form f = *tcgen05_case::decode(bytes, sizeof bytes);
    const std::string text = tcgen05_case::kernel_ptx(f);
    SCOPED_TRACE(fmt::format("form {}: {}", i, tcgen05_case::describe(f)));
    auto r = lower(text, *SmTarget::parse("sm_120"));
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    ASSERT_TRUE(r->ok) << (r->blockers.empty() ? "" : r->blockers[0].reason) << "\n" << text;
    ASSERT_EQ(r->shared_added.size(), 1u);
    if (i % 3 == 0 && !testing::cuda_bin("ptxas").empty()) {
      std::string log;
      EXPECT_TRUE(testing::ptxas_accepts(r->text, "sm_120", &log)) << log;
    }
    equal += testing::expect_same_bytes(text, r->text, tcgen05_case::verify_options(*r));
    dynamic += r->shared_added[0].dynamic;
    m128 += f.m == 128;
    lane16 += f.lane == 16;
    a_tmem += f.a_tmem;
  }
  EXPECT_EQ(equal, 48u);
  // The draw covers every placement.
  EXPECT_GT(dynamic, 0u);
  EXPECT_GT(m128, 0u);
  EXPECT_GT(lane16, 0u);
  EXPECT_GT(a_tmem, 0u);
}

}  // namespace
}  // namespace smcompat::ptx
