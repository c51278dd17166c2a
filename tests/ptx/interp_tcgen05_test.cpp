// The interpreter's tcgen05, mbarrier and elect.sync against what Triton's own kernels compute:
// Triton 3.9 compiled the same ten kernels for sm_90a (wgmma) and sm_100a (tcgen05 with tensor
// memory, an mbarrier and elect.sync), with different data-path layouts and different code. Run
// on the same inputs, both builds of each kernel must write the same bytes; and one matmul is
// checked against a product computed here.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include "lower_test_util.hpp"
#include "ptx_test_util.hpp"
#include "smcompat/ptx/interp.hpp"
#include "smcompat/ptx/lower.hpp"

namespace smcompat::ptx {
namespace {

std::filesystem::path triton_dir() {
  return std::filesystem::path(SMCOMPAT_SOURCE_DIR) / "tests/ptx/data/triton";
}

TEST(InterpTcgen05, TritonsBlackwellAndHopperBuildsComputeTheSameBytes) {
  size_t equal = 0;
  for (const char* name : {"mm_f16_bt", "mm_f16_bn", "mm_bf16", "mm_acc16", "mm_tf32", "mm_fp8",
                           "mm_kloop_bias_relu", "mm_f16_n16", "bmm_f16", "attn_fwd"}) {
    SCOPED_TRACE(name);
    const std::string hopper =
        testing::read_file(triton_dir() / (std::string(name) + ".sm_90.ptx"));
    const std::string blackwell =
        testing::read_file(triton_dir() / (std::string(name) + ".sm_100.ptx"));
    LowerVerifyOptions o;
    o.buffer_bytes = 64 * 1024;
    equal += testing::expect_same_bytes(hopper, blackwell, o);
  }
  EXPECT_EQ(equal, 10u);
}

// mm_f16_bn for sm_100a: C[64x64] f32 = A[64x32] f16 @ B[32x64] f16, both row-major, against the
// product computed here from the same small integers.
TEST(InterpTcgen05, TritonsBlackwellMatmulEqualsTheProduct) {
  const std::string text = testing::read_file(triton_dir() / "mm_f16_bn.sm_100.ptx");
  auto m = parse_module(text);
  ASSERT_TRUE(m.ok());
  InterpMemory mem;
  const uint64_t a = mem.allocate(64 * 32 * 2), b = mem.allocate(32 * 64 * 2),
                 c = mem.allocate(64 * 64 * 4), s1 = mem.allocate(256), s2 = mem.allocate(256);
  // f16 of -3..3 as bit patterns.
  const uint16_t halves[] = {0xC200, 0xC000, 0xBC00, 0x0000, 0x3C00, 0x4000, 0x4200};
  std::vector<int> av(64 * 32), bv(32 * 64);
  for (size_t i = 0; i < av.size(); ++i) {
    av[i] = static_cast<int>((i * 7 + i / 32) % 7) - 3;
    std::memcpy(&mem.buffer(a)[2 * i], &halves[av[i] + 3], 2);
  }
  for (size_t i = 0; i < bv.size(); ++i) {
    bv[i] = static_cast<int>((i * 5 + i / 64 * 3) % 7) - 3;
    std::memcpy(&mem.buffer(b)[2 * i], &halves[bv[i] + 3], 2);
  }
  InterpLaunch launch;
  launch.dynamic_shared_bytes = 64 * 1024;
  const uint64_t params[] = {a, b, c, s1, s2};
  auto r = interpret_kernel(*m, "mm_f16_bn", launch, params, mem);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  size_t wrong = 0;
  for (int i = 0; i < 64; ++i)
    for (int j = 0; j < 64; ++j) {
      int want = 0;
      for (int k = 0; k < 32; ++k) want += av[i * 32 + k] * bv[k * 64 + j];
      float got;
      std::memcpy(&got, &mem.buffer(c)[4 * (i * 64 + j)], 4);
      wrong += got != static_cast<float>(want);
    }
  EXPECT_EQ(wrong, 0u);
}

// Hand-computed fragments (PTX ISA "Matrix fragments for shape .16x32bx2 / .32x32b"): each thread
// stores its thread index with .16x32bx2.x1 (immHalfSplitoff 4) into its warp's 32 lanes; then
// .32x32b.x8 reads columns 0..7 back. Thread i < 16 of warp w wrote lane 32w+i, column 0;
// thread i >= 16 lane 32w+i-16, column 4. An mbarrier the elected thread arrives on gates the
// read, so the blocked-wait path runs too.
constexpr std::string_view kLdStKernel = R"(.version 8.7
.target sm_100a
.address_size 64
.visible .entry k(.param .u64 out)
.reqntid 128
{
	.reg .pred %p<4>;
	.reg .b32 %r<20>;
	.reg .b64 %rd<4>;
	.shared .align 16 .b8 s[16];
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, s;
	setp.lt.u32 %p1, %r1, 32;
	@%p1 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r2], 32;
	setp.eq.u32 %p2, %r1, 0;
	@%p2 mbarrier.init.shared::cta.b64 [%r2+8], 1;
	bar.sync 0;
	ld.shared.b32 %r3, [s];
	and.b32 %r4, %r1, 96;
	shl.b32 %r4, %r4, 16;
	add.u32 %r5, %r3, %r4;
	tcgen05.st.sync.aligned.16x32bx2.x1.b32 [%r5], 4, {%r1};
	tcgen05.wait::st.sync.aligned;
	shr.u32 %r6, %r1, 5;
	setp.eq.u32 %p3, %r6, 3;
	@!%p3 bra WAIT;
	elect.sync %r7|%p3, -1;
	@%p3 mbarrier.arrive.shared::cta.b64 %rd2, [%r2+8];
WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r2+8], 0;
	@!%p3 bra WAIT;
	tcgen05.ld.sync.aligned.32x32b.x8.b32 {%r8, %r9, %r10, %r11, %r12, %r13, %r14, %r15}, [%r5];
	tcgen05.wait::ld.sync.aligned;
	mul.wide.u32 %rd3, %r1, 32;
	add.s64 %rd3, %rd1, %rd3;
	st.global.v4.b32 [%rd3], {%r8, %r9, %r10, %r11};
	st.global.v4.b32 [%rd3+16], {%r12, %r13, %r14, %r15};
	bar.sync 0;
	@%p1 tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r3, 32;
	ret;
}
)";

TEST(InterpTcgen05, LdStLaneMappingFromTheIsaFigures) {
  const std::string text(kLdStKernel);
  auto m = parse_module(text);
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  InterpMemory mem;
  const uint64_t out = mem.allocate(128 * 8 * 4);
  InterpLaunch launch;
  const uint64_t params[] = {out};
  auto r = interpret_kernel(*m, "k", launch, params, mem);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  std::vector<uint32_t> got(128 * 8);
  std::memcpy(got.data(), mem.buffer(out).data(), got.size() * 4);
  for (uint32_t t = 0; t < 128; ++t) {
    const uint32_t i = t % 32, w = t / 32;
    for (uint32_t c = 0; c < 8; ++c) {
      uint32_t want = 0;
      if (i < 16 && c == 0) want = 32 * w + i;
      if (i < 16 && c == 4) want = 32 * w + i + 16;
      EXPECT_EQ(got[t * 8 + c], want) << "thread " << t << " column " << c;
    }
  }
  if (!testing::cuda_bin("ptxas").empty()) {
    std::string log;
    EXPECT_TRUE(testing::ptxas_accepts(std::string(kLdStKernel), "sm_100a", &log)) << log;
  }
}

// A wait that no thread will ever complete is a located deadlock, not a hang.
TEST(InterpTcgen05, AnMbarrierNobodyArrivesOnIsADeadlock) {
  std::string text(kLdStKernel);
  const std::string arrive = "@%p3 mbarrier.arrive.shared::cta.b64 %rd2, [%r2+8];";
  text.replace(text.find(arrive), arrive.size(), "");
  auto m = parse_module(text);
  ASSERT_TRUE(m.ok());
  InterpMemory mem;
  const uint64_t params[] = {mem.allocate(128 * 8 * 4)};
  auto r = interpret_kernel(*m, "k", InterpLaunch{}, params, mem);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().what.find("deadlock"), std::string::npos) << r.error().what;
  EXPECT_NE(r.error().what.find("mbarrier"), std::string::npos) << r.error().what;
}

}  // namespace
}  // namespace smcompat::ptx
