// `ptx lower` of datacenter-Blackwell tensor-core PTX: Triton 3.9's sm_100a kernels
// (tests/ptx/data/triton/*.sm_100.ptx: tcgen05.alloc/ld/st/mma/commit with tensor memory, an
// mbarrier and elect.sync) lowered for sm_120 and sm_121, assembled there by ptxas, and run in the
// reference interpreter against the original; and the forms that are refused, with their reasons.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

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
struct Tcgen05Form {
  std::string kind;  // "f16", "tf32", "f8f6f4"
  unsigned atype = 0, btype = 0, m = 64, n = 8, columns = 32, lane = 0, swizzle_a = 0,
           swizzle_b = 0;
  bool d_f32 = true, a_tmem = false, mn_a = false, mn_b = false, neg_a = false, neg_b = false,
       enable = true;
  uint64_t lbo_a = 16, sbo_a = 256, lbo_b = 16, sbo_b = 256;
};

std::string tcgen05_form_kernel(const Tcgen05Form& f) {
  const uint32_t idesc = (f.d_f32 ? 1u << 4 : 0u) | (f.atype << 7) | (f.btype << 10) |
                         (f.neg_a ? 1u << 13 : 0u) | (f.neg_b ? 1u << 14 : 0u) |
                         (f.mn_a ? 1u << 15 : 0u) | (f.mn_b ? 1u << 16 : 0u) | ((f.n >> 3) << 17) |
                         ((f.m >> 4) << 24);
  // Swizzle codes at bits 61-63: 0 none, 6 32 B, 4 64 B, 2 128 B. B's operands start at 16 KiB.
  auto desc = [](uint64_t start, uint64_t lbo, uint64_t sbo, unsigned swz) {
    return (start >> 4) | ((lbo >> 4) << 16) | ((sbo >> 4) << 32) | (uint64_t{1} << 46) |
           (uint64_t{swz} << 61);
  };
  const uint64_t da = desc(0, f.lbo_a, f.sbo_a, f.swizzle_a);
  const uint64_t db = desc(16384, f.lbo_b, f.sbo_b, f.swizzle_b);
  const unsigned a_col = f.columns - 16;  // two MMAs' A: 8 columns each
  std::string fill, dump;
  for (unsigned c = 0; c < f.columns; c += 8) {
    fill += fmt::format(
        "\tld.global.v4.b32 {{%v0, %v1, %v2, %v3}}, [%rd9+{0}];\n"
        "\tld.global.v4.b32 {{%v4, %v5, %v6, %v7}}, [%rd9+{1}];\n"
        "\ttcgen05.st.sync.aligned.32x32b.x8.b32 [%r9+{2}], {{%v0, %v1, %v2, %v3, %v4, %v5, %v6, "
        "%v7}};\n",
        4 * c, 4 * c + 16, c);
    dump += fmt::format(
        "\ttcgen05.ld.sync.aligned.32x32b.x8.b32 {{%v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7}}, "
        "[%r9+{2}];\n"
        "\ttcgen05.wait::ld.sync.aligned;\n"
        "\tst.global.v4.b32 [%rd10+{0}], {{%v0, %v1, %v2, %v3}};\n"
        "\tst.global.v4.b32 [%rd10+{1}], {{%v4, %v5, %v6, %v7}};\n",
        4 * c, 4 * c + 16, c);
  }
  const std::string a_first = f.a_tmem ? "[%r13]" : "%rd7";
  const std::string a_second = f.a_tmem ? "[%r13+8]" : "%rd11";
  return fmt::format(R"(.version 8.7
.target sm_100a
.address_size 64
.extern .shared .align 1024 .b8 dyn[];
.visible .entry k(.param .u64 in, .param .u64 dinit, .param .u64 out)
.reqntid 128
{{
	.reg .pred %p<8>;
	.reg .b32 %r<20>;
	.reg .b32 %v<8>;
	.reg .b64 %rd<16>;
	.shared .align 16 .b8 slots[16];
	ld.param.u64 %rd1, [in];
	ld.param.u64 %rd2, [dinit];
	ld.param.u64 %rd3, [out];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, dyn;
	mov.u32 %r3, %r1;
COPY:
	mul.wide.u32 %rd4, %r3, 16;
	add.s64 %rd5, %rd1, %rd4;
	ld.global.v4.b32 {{%v0, %v1, %v2, %v3}}, [%rd5];
	shl.b32 %r4, %r3, 4;
	add.u32 %r5, %r2, %r4;
	st.shared.v4.b32 [%r5], {{%v0, %v1, %v2, %v3}};
	add.u32 %r3, %r3, 128;
	setp.lt.u32 %p1, %r3, 2048;
	@%p1 bra COPY;
	mov.u32 %r6, slots;
	setp.lt.u32 %p2, %r1, 32;
	@%p2 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r6], {columns};
	setp.eq.u32 %p3, %r1, 0;
	@%p3 mbarrier.init.shared::cta.b64 [%r6+8], 1;
	bar.sync 0;
	ld.shared.b32 %r7, [%r6];
	and.b32 %r8, %r1, 96;
	shl.b32 %r8, %r8, 16;
	add.u32 %r9, %r7, %r8;
	mul.wide.u32 %rd4, %r1, {row_bytes};
	add.s64 %rd9, %rd2, %rd4;
	add.s64 %rd10, %rd3, %rd4;
{fill}	tcgen05.wait::st.sync.aligned;
	bar.sync 0;
	shr.u32 %r10, %r2, 4;
	cvt.u64.u32 %rd6, %r10;
	mov.b64 %rd7, {da};
	add.s64 %rd7, %rd7, %rd6;
	mov.b64 %rd8, {db};
	add.s64 %rd8, %rd8, %rd6;
	add.s64 %rd11, %rd7, 2;
	add.s64 %rd12, %rd8, 2;
	mov.b32 %r11, {idesc};
	mov.pred %p4, {enable};
	mov.pred %p5, -1;
	add.u32 %r12, %r7, {d_lane};
	add.u32 %r13, %r7, {a_addr};
	shr.u32 %r14, %r1, 5;
	setp.ne.u32 %p6, %r14, 0;
	@%p6 bra AFTER;
	elect.sync %r15|%p7, -1;
	@%p7 tcgen05.mma.cta_group::1.kind::{kind} [%r12], {a_first}, %rd8, %r11, %p4;
	@%p7 tcgen05.mma.cta_group::1.kind::{kind} [%r12], {a_second}, %rd12, %r11, %p5;
	@%p7 tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r6+8];
AFTER:
	mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r6+8], 0;
	@!%p3 bra AFTER;
{dump}	bar.sync 0;
	@%p2 tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r7, {columns};
	ret;
}}
)",
                     fmt::arg("columns", f.columns), fmt::arg("row_bytes", 4 * f.columns),
                     fmt::arg("fill", fill), fmt::arg("dump", dump), fmt::arg("da", da),
                     fmt::arg("db", db), fmt::arg("idesc", idesc),
                     fmt::arg("enable", f.enable ? -1 : 0), fmt::arg("d_lane", f.lane << 16),
                     fmt::arg("a_addr", (f.lane << 16) + a_col), fmt::arg("kind", f.kind),
                     fmt::arg("a_first", a_first), fmt::arg("a_second", a_second));
}

Tcgen05Form random_form(std::mt19937& rng) {
  auto pick = [&](unsigned n) { return static_cast<unsigned>(rng() % n); };
  Tcgen05Form f;
  const unsigned kind = pick(4);
  f.kind = kind < 2 ? "f16" : kind == 2 ? "tf32" : "f8f6f4";
  if (f.kind == "f16") {
    f.atype = f.btype = pick(2);
    f.d_f32 = f.atype == 1 || pick(2);
    f.mn_a = pick(3) == 0;
    f.mn_b = pick(3) == 0;
  } else if (f.kind == "tf32") {
    f.atype = f.btype = 2;
  } else {
    f.atype = pick(2);
    f.btype = pick(2);
    f.d_f32 = pick(2);
  }
  f.columns = 32u << pick(3);
  f.m = pick(2) ? 128 : 64;
  f.lane = f.m == 64 && pick(2) ? 16 : 0;
  f.a_tmem = !f.mn_a && pick(3) == 0;
  const unsigned room = f.columns - (f.a_tmem ? 16 : 0);
  const unsigned step = f.m == 128 ? 16 : 8;
  f.n = step * (1 + pick(std::min(room, 256u) / step));
  f.neg_a = pick(4) == 0;
  f.neg_b = pick(4) == 0;
  f.enable = pick(3) != 0;
  const unsigned codes[] = {0, 6, 4, 2};
  f.swizzle_a = codes[pick(4)];
  f.swizzle_b = codes[pick(4)];
  f.lbo_a = 16 * (1 + pick(32));
  f.sbo_a = 16 * (1 + pick(32));
  f.lbo_b = 16 * (1 + pick(32));
  f.sbo_b = 16 * (1 + pick(32));
  return f;
}

TEST(PtxLowerTcgen05, RandomFormsComputeTheSameBytesLowered) {
  std::mt19937 rng(20261128);
  size_t equal = 0, dynamic = 0, m128 = 0, lane16 = 0, a_tmem = 0;
  for (int i = 0; i < 48; ++i) {
    const Tcgen05Form f = random_form(rng);
    const std::string text = tcgen05_form_kernel(f);
    SCOPED_TRACE(
        fmt::format("form {}: kind::{} a{} b{} M={} N={} cols={} lane={} d_f32={} "
                    "a_tmem={} mn={}{} neg={}{} swz={},{} enable={}",
                    i, f.kind, f.atype, f.btype, f.m, f.n, f.columns, f.lane, f.d_f32, f.a_tmem,
                    f.mn_a, f.mn_b, f.neg_a, f.neg_b, f.swizzle_a, f.swizzle_b, f.enable));
    auto r = lower(text, *SmTarget::parse("sm_120"));
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    ASSERT_TRUE(r->ok) << (r->blockers.empty() ? "" : r->blockers[0].reason) << "\n" << text;
    ASSERT_EQ(r->shared_added.size(), 1u);
    if (i % 3 == 0 && !testing::cuda_bin("ptxas").empty()) {
      std::string log;
      EXPECT_TRUE(testing::ptxas_accepts(r->text, "sm_120", &log)) << log;
    }
    LowerVerifyOptions o;
    o.buffer_bytes = 128 * 1024;
    o.dynamic_shared_bytes =
        32 * 1024 +
        static_cast<uint32_t>(r->shared_added[0].dynamic ? r->shared_added[0].bytes : 0);
    equal += testing::expect_same_bytes(text, r->text, o);
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
