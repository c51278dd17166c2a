// Interpreter tests: scalar instructions, fragment layouts of mma.sync / ldmatrix / wgmma checked
// against values worked out by hand from the PTX ISA figures, nvcc-built kernels compared with a
// CPU reference, and located errors. Every hand-written kernel is also assembled with ptxas (when
// the toolkit is there) so that it is known to be valid PTX.
#include "smcompat/ptx/interp.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "ptx_test_util.hpp"

namespace smcompat::ptx {
namespace {

constexpr std::string_view kHeader = ".version 8.4\n.target sm_90a\n.address_size 64\n";

void expect_ptxas_accepts(const std::string& text) {
  if (testing::cuda_bin("ptxas").empty()) return;
  std::string log;
  EXPECT_TRUE(testing::ptxas_accepts(text, "sm_90a", &log)) << log << "\n" << text;
}

struct Run {
  Module module;
  std::string text;
};

Result<InterpStats> run(const std::string& text, std::string_view kernel,
                        const InterpLaunch& launch, std::vector<uint64_t> params,
                        InterpMemory& memory) {
  auto m = parse_module(text);
  if (!m) return std::move(m).error();
  return interpret_kernel(*m, kernel, launch, params, memory);
}

template <class T>
uint64_t upload(InterpMemory& mem, const std::vector<T>& v) {
  uint64_t a = mem.allocate(v.size() * sizeof(T));
  std::memcpy(mem.buffer(a).data(), v.data(), v.size() * sizeof(T));
  return a;
}
template <class T>
std::vector<T> download(InterpMemory& mem, uint64_t a, size_t n) {
  std::vector<T> v(n);
  std::memcpy(v.data(), mem.buffer(a).data(), n * sizeof(T));
  return v;
}

// Test-side number formats (exact for the small integers the tests use).
uint16_t f16_of(float f) {
  // Exact for integers |f| <= 2048 and halves in range: build from the f32 bits.
  uint32_t b;
  std::memcpy(&b, &f, 4);
  if ((b & 0x7fffffff) == 0) return static_cast<uint16_t>(b >> 16);
  uint32_t sign = (b >> 16) & 0x8000, exp = (b >> 23) & 0xff, man = b & 0x7fffff;
  return static_cast<uint16_t>(sign | ((exp - 112) << 10) | (man >> 13));
}
uint16_t bf16_of(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return static_cast<uint16_t>(b >> 16);
}
uint8_t e4m3_of(int v) {  // small integers 0..15 (and negatives)
  uint8_t sign = v < 0 ? 0x80 : 0;
  v = std::abs(v);
  if (v == 0) return sign;
  int e = 0;
  while ((v >> (e + 1)) != 0) ++e;
  int man = (v << 3 >> e) & 7;
  return static_cast<uint8_t>(sign | ((e + 7) << 3) | man);
}
float f32_of_bits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
uint32_t bits_of(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

// ---- core instructions ----------------------------------------------------------------------

TEST(InterpCore, ArithmeticLoopsSharedMemoryAndBarrier) {
  // out[i] = sum_{j<=i} in[j] through shared memory, plus a few scalar checks in out2.
  std::string text = std::string(kHeader) + R"(
.visible .entry k(.param .u64 pin, .param .u64 pout, .param .u64 pout2)
{
  .reg .pred %p<4>;
  .reg .b32 %r<30>;
  .reg .b64 %rd<12>;
  .reg .f32 %f<6>;
  .reg .b16 %h<4>;
  .shared .align 4 .b8 buf[512];
  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [pout];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.nc.u32 %r2, [%rd4];
  mov.u32 %r3, buf;
  shl.b32 %r4, %r1, 2;
  add.s32 %r5, %r3, %r4;
  st.shared.u32 [%r5], %r2;
  bar.sync 0;
  mov.u32 %r6, 0;
  mov.u32 %r7, 0;
$L_loop:
  shl.b32 %r8, %r7, 2;
  add.s32 %r9, %r3, %r8;
  ld.shared.u32 %r10, [%r9];
  add.s32 %r6, %r6, %r10;
  add.s32 %r7, %r7, 1;
  setp.le.u32 %p1, %r7, %r1;
  @%p1 bra $L_loop;
  add.s64 %rd5, %rd2, %rd3;
  st.global.u32 [%rd5], %r6;
  setp.ne.u32 %p2, %r1, 0;
  @%p2 bra $L_done;
  ld.param.u64 %rd6, [pout2];
  // scalar checks, thread 0 only
  mov.u32 %r11, -7;
  shr.s32 %r12, %r11, 1;
  st.global.u32 [%rd6], %r12;
  mul.hi.u32 %r13, %r11, 16;
  st.global.u32 [%rd6+4], %r13;
  bfe.s32 %r14, 0x00000f00, 8, 4;
  st.global.u32 [%rd6+8], %r14;
  prmt.b32 %r15, 0x33221100, 0x77665544, 0x4321;
  st.global.u32 [%rd6+12], %r15;
  cvt.rn.f16x2.f32 %r16, 0f3F800000, 0f40000000;
  st.global.u32 [%rd6+16], %r16;
  cvt.rzi.s32.f32 %r17, 0fC0700000;
  st.global.u32 [%rd6+20], %r17;
  mov.b32 %r18, 0f33800000;
  cvt.rn.f16.f32 %h1, %f1;
  mov.b32 %f2, %r18;
  cvt.rn.f16.f32 %h2, %f2;
  mov.b32 %r19, {%h2, %h1};
  st.global.u32 [%rd6+24], %r19;
  setp.lt.s32 %p3|%p2, %r11, 0;
  selp.u32 %r20, 11, 22, %p2;
  st.global.u32 [%rd6+28], %r20;
  bfi.b32 %r21, 5, 0xffffffff, 4, 3;
  st.global.u32 [%rd6+32], %r21;
  cvt.rn.bf16x2.f32 %r22, 0f3F800000, 0fC0000000;
  st.global.u32 [%rd6+36], %r22;
  clz.b32 %r23, 1;
  popc.b32 %r24, %r11;
  add.s32 %r25, %r23, %r24;
  st.global.u32 [%rd6+40], %r25;
  mul.wide.s32 %rd7, %r11, 3;
  st.global.u64 [%rd6+48], %rd7;
  fma.rn.f32 %f3, 0f40000000, 0f40400000, 0f3F800000;
  st.global.f32 [%rd6+56], %f3;
  mov.b64 {%r26, %r27}, %rd7;
  st.global.u32 [%rd6+60], %r27;
$L_done:
  ret;
}
)";
  expect_ptxas_accepts(text);
  InterpMemory mem;
  std::vector<uint32_t> in(128);
  for (uint32_t i = 0; i < 128; ++i) in[i] = i * 3 + 1;
  uint64_t a_in = upload(mem, in), a_out = mem.allocate(512), a_out2 = mem.allocate(64);
  auto r = run(text, "k", InterpLaunch{}, {a_in, a_out, a_out2}, mem);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  auto out = download<uint32_t>(mem, a_out, 128);
  uint32_t sum = 0;
  for (uint32_t i = 0; i < 128; ++i) {
    sum += in[i];
    EXPECT_EQ(out[i], sum) << i;
  }
  auto o2 = download<uint32_t>(mem, a_out2, 16);
  EXPECT_EQ(o2[0], static_cast<uint32_t>(-4));    // -7 >> 1 (arithmetic)
  EXPECT_EQ(o2[1], 15u);                          // hi(0xfffffff9 * 16)
  EXPECT_EQ(o2[2], static_cast<uint32_t>(-1));    // 0xf sign-extended from 4 bits
  EXPECT_EQ(o2[3], 0x44332211u);                  // prmt selectors 1,2,3,4
  EXPECT_EQ(o2[4], 0x3c004000u);                  // {hi = f16(1.0), lo = f16(2.0)}
  EXPECT_EQ(o2[5], static_cast<uint32_t>(-3));    // trunc(-3.75)
  EXPECT_EQ(o2[6], 0x00000001u);                  // lo: f16(2^-24) = smallest subnormal
  EXPECT_EQ(o2[7], 22u);                          // %p2 = !(-7 < 0)
  EXPECT_EQ(o2[8], 0xffffffdfu);                  // bits 4..6 of all-ones replaced by 101
  EXPECT_EQ(o2[9], 0x3f80c000u);                  // bf16 {1.0, -2.0}
  EXPECT_EQ(o2[10], 31u + 30u);                   // clz(1) + popc(-7)
  EXPECT_EQ(o2[12], static_cast<uint32_t>(-21));  // low word of -21 (64-bit)
  EXPECT_EQ(o2[13], 0xffffffffu);
  EXPECT_EQ(f32_of_bits(o2[14]), 7.0f);
  EXPECT_EQ(o2[15], 0xffffffffu);  // high word via mov.b64 unpack
}

TEST(InterpCore, ShuffleVoteAndGenericSharedAccess) {
  std::string text = std::string(kHeader) + R"(
.visible .entry k(.param .u64 pout)
{
  .reg .pred %p<3>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<8>;
  .shared .align 8 .b32 s[64];
  ld.param.u64 %rd1, [pout];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %laneid;
  shfl.sync.bfly.b32 %r3, %r1, 1, 31, -1;
  shfl.sync.up.b32 %r4|%p1, %r1, 2, 0, -1;
  shfl.sync.down.b32 %r5, %r1, 3, 31, -1;
  shfl.sync.idx.b32 %r6, %r1, 5, 31, -1;
  setp.lt.u32 %p2, %r2, 4;
  vote.sync.ballot.b32 %r7, %p2, -1;
  selp.u32 %r8, 1, 0, %p1;
  mov.u64 %rd2, s;
  cvta.shared.u64 %rd3, %rd2;
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd3, %rd4;
  st.u32 [%rd5], %r1;
  bar.sync 0;
  xor.b32 %r9, %r1, 63;
  mul.wide.u32 %rd4, %r9, 4;
  add.s64 %rd5, %rd3, %rd4;
  ld.u32 %r10, [%rd5];
  mul.wide.u32 %rd6, %r1, 32;
  add.s64 %rd7, %rd1, %rd6;
  st.global.v4.u32 [%rd7], {%r3, %r4, %r5, %r6};
  st.global.v4.u32 [%rd7+16], {%r7, %r8, %r10, %r2};
  ret;
}
)";
  expect_ptxas_accepts(text);
  InterpMemory mem;
  uint64_t out = mem.allocate(64 * 32);
  InterpLaunch l;
  l.block = {64, 1, 1};
  auto r = run(text, "k", l, {out}, mem);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  auto o = download<uint32_t>(mem, out, 64 * 8);
  for (uint32_t t = 0; t < 64; ++t) {
    uint32_t lane = t % 32, base = t - lane;
    const uint32_t* v = &o[t * 8];
    EXPECT_EQ(v[0], base + (lane ^ 1)) << t;
    EXPECT_EQ(v[1], lane >= 2 ? t - 2 : t) << t;
    EXPECT_EQ(v[2], lane + 3 <= 31 ? t + 3 : t) << t;
    EXPECT_EQ(v[3], base + 5) << t;
    EXPECT_EQ(v[4], 0xfu) << t;
    EXPECT_EQ(v[5], lane >= 2 ? 1u : 0u) << t;
    EXPECT_EQ(v[6], t ^ 63) << t;
    EXPECT_EQ(v[7], lane) << t;
  }
}

TEST(InterpCore, NestedBlockRegistersCpAsyncAndAtomics) {
  // Inline-asm style blocks declare `p` without '%' (a new register per block, shadowing nothing
  // outside); cp.async with a source size zero-fills; atom/red on global and shared memory.
  std::string text = std::string(kHeader) + R"(
.visible .entry k(.param .u64 pin, .param .u64 pout)
{
  .reg .pred %p<2>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<8>;
  .shared .align 16 .b8 stage[256];
  .shared .align 4 .b32 counter;
  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [pout];
  mov.u32 %r1, %tid.x;
  {
  .reg .pred p;
  setp.eq.u32 p, %r1, 0;
  @p st.shared.u32 [counter], 0;
  }
  bar.sync 0;
  mov.u32 %r2, stage;
  shl.b32 %r3, %r1, 4;
  add.s32 %r4, %r2, %r3;
  mul.wide.u32 %rd3, %r1, 16;
  add.s64 %rd4, %rd1, %rd3;
  and.b32 %r5, %r1, 15;
  cp.async.cg.shared.global [%r4], [%rd4], 16, %r5;
  cp.async.commit_group;
  cp.async.wait_group 0;
  bar.sync 0;
  ld.shared.v4.u32 {%r6, %r7, %r8, %r9}, [%r4];
  add.s32 %r6, %r6, %r9;
  {
  .reg .pred p;
  setp.gt.u32 p, %r1, 7;
  @p red.shared.add.u32 [counter], 1;
  }
  atom.global.add.u32 %r10, [%rd2+64], %r6;
  bar.sync 0;
  ld.shared.u32 %r11, [counter];
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $L_end;
  st.global.u32 [%rd2+68], %r11;
$L_end:
  ret;
}
)";
  expect_ptxas_accepts(text);
  InterpMemory mem;
  std::vector<uint32_t> in(64);
  for (uint32_t i = 0; i < 64; ++i) in[i] = 0x01010101u * (i + 1);
  uint64_t pin = upload(mem, in), pout = mem.allocate(128);
  InterpLaunch l;
  l.block = {16, 1, 1};
  auto r = run(text, "k", l, {pin, pout}, mem);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  auto o = download<uint32_t>(mem, pout, 18);
  // Thread t copies t % 16 = t bytes of its 16: word 0 keeps min(t, 4) bytes, word 3 keeps
  // t - 12 bytes when t > 12.
  uint32_t sum = 0;
  for (uint32_t t = 0; t < 16; ++t) {
    auto keep = [&](uint32_t word) {
      uint32_t bytes = t > 4 * word ? std::min(t - 4 * word, 4u) : 0;
      uint64_t mask = bytes == 4 ? 0xffffffffull : (1ull << (8 * bytes)) - 1;
      return static_cast<uint32_t>(in[4 * t + word] & mask);
    };
    sum += keep(0) + keep(3);
  }
  EXPECT_EQ(o[16], sum);
  EXPECT_EQ(o[17], 8u);  // threads 8..15
}

TEST(InterpLdmatrix, StmatrixInvertsLdmatrix) {
  std::string text = std::string(kHeader) + R"(
.visible .entry k(.param .u64 pin, .param .u64 pout)
{
  .reg .pred %p<2>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<8>;
  .shared .align 16 .b8 src[512];
  .shared .align 16 .b8 dst[512];
  .shared .align 16 .b8 dst2[512];
  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [pout];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 16;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd4];
  shl.b32 %r6, %r1, 4;
  mov.u32 %r7, src;
  add.s32 %r8, %r7, %r6;
  st.shared.v4.u32 [%r8], {%r2, %r3, %r4, %r5};
  bar.warp.sync -1;
  ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r9, %r10, %r11, %r12}, [%r8];
  mov.u32 %r13, dst;
  add.s32 %r14, %r13, %r6;
  stmatrix.sync.aligned.m8n8.x4.shared.b16 [%r14], {%r9, %r10, %r11, %r12};
  ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r9, %r10, %r11, %r12}, [%r8];
  mov.u32 %r15, dst2;
  add.s32 %r16, %r15, %r6;
  stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%r16], {%r9, %r10, %r11, %r12};
  ld.shared.v4.u32 {%r2, %r3, %r4, %r5}, [%r14];
  add.s64 %rd5, %rd2, %rd3;
  st.global.v4.u32 [%rd5], {%r2, %r3, %r4, %r5};
  ld.shared.v4.u32 {%r2, %r3, %r4, %r5}, [%r16];
  st.global.v4.u32 [%rd5+512], {%r2, %r3, %r4, %r5};
  ret;
}
)";
  expect_ptxas_accepts(text);
  InterpMemory mem;
  std::vector<uint32_t> in(128);
  for (uint32_t i = 0; i < 128; ++i) in[i] = 0x9e3779b9u * (i + 1);
  uint64_t pin = upload(mem, in), pout = mem.allocate(1024);
  InterpLaunch l;
  l.block = {32, 1, 1};
  auto r = run(text, "k", l, {pin, pout}, mem);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  auto o = download<uint32_t>(mem, pout, 256);
  for (uint32_t i = 0; i < 128; ++i) {
    EXPECT_EQ(o[i], in[i]) << i;
    EXPECT_EQ(o[128 + i], in[i]) << i;
  }
}

TEST(InterpCore, FloatConversionsRoundToNearestEvenExactly) {
  // Each thread converts in[t] to f16, bf16 and an e4m3x2 pair (both halves from in[t]).
  std::string text = std::string(kHeader) + R"(
.visible .entry k(.param .u64 pin, .param .u64 pout)
{
  .reg .b16 %h<4>;
  .reg .b32 %r<6>;
  .reg .f32 %f<2>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [pout];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.f32 %f1, [%rd4];
  cvt.rn.f16.f32 %h1, %f1;
  cvt.rn.bf16.f32 %h2, %f1;
  cvt.rn.satfinite.e4m3x2.f32 %h3, %f1, %f1;
  mul.wide.u32 %rd5, %r1, 8;
  add.s64 %rd6, %rd2, %rd5;
  st.global.v4.u16 [%rd6], {%h1, %h2, %h3, %h3};
  ret;
}
)";
  expect_ptxas_accepts(text);
  struct Case {
    uint32_t in;
    uint16_t f16, bf16;
    uint8_t e4m3;
  };
  const Case cases[] = {
      {0x3f800000, 0x3c00, 0x3f80, 0x38},  // 1.0
      {0x477fe000, 0x7bff, 0x4780, 0x7e},  // 65504: largest f16; bf16 rounds up; e4m3 saturates
      {0x477ff000, 0x7c00, 0x4780, 0x7e},  // 65520: f16 tie rounds to infinity
      {0x33800000, 0x0001, 0x3380, 0x00},  // 2^-24: smallest f16 subnormal
      {0x33000000, 0x0000, 0x3300, 0x00},  // 2^-25: tie between 0 and 2^-24 -> even (0)
      {0x33000001, 0x0001, 0x3300, 0x00},  // just above the tie
      {0x33c00000, 0x0002, 0x33c0, 0x00},  // 3 * 2^-25: tie -> even (2 * 2^-24)
      {0x3f801000, 0x3c00, 0x3f80, 0x38},  // 1 + 2^-11: tie -> even
      {0x3f803000, 0x3c02, 0x3f80, 0x38},  // 1 + 3 * 2^-11: tie -> even (up)
      {0x387fe000, 0x0400, 0x3880, 0x00},  // just below 2^-14 rounds up to the smallest normal
      {0x3f808000, 0x3c04, 0x3f80, 0x38},  // bf16 tie -> even (down)
      {0x3f818000, 0x3c0c, 0x3f82, 0x38},  // bf16 tie -> even (up)
      {0x80000000, 0x8000, 0x8000, 0x80},  // -0
      {0x7f800000, 0x7c00, 0x7f80, 0x7e},  // +inf (e4m3 has none: satfinite gives 448)
      {0x3b000000, 0x1800, 0x3b00, 0x01},  // 2^-9: smallest e4m3 subnormal
      {0x41880000, 0x4c40, 0x4188, 0x58},  // 17: e4m3 tie between 16 and 18 -> even (16)
      {0xc3e00000, 0xdf00, 0xc3e0, 0xfe},  // -448
  };
  constexpr size_t n = std::size(cases);
  std::vector<uint32_t> in;
  for (auto& c : cases) in.push_back(c.in);
  InterpMemory mem;
  uint64_t pin = upload(mem, in), pout = mem.allocate(n * 8);
  InterpLaunch l;
  l.block = {static_cast<uint32_t>(n), 1, 1};
  auto r = run(text, "k", l, {pin, pout}, mem);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  auto o = download<uint16_t>(mem, pout, n * 4);
  for (size_t i = 0; i < n; ++i) {
    EXPECT_EQ(o[4 * i], cases[i].f16) << std::hex << cases[i].in;
    EXPECT_EQ(o[4 * i + 1], cases[i].bf16) << std::hex << cases[i].in;
    EXPECT_EQ(o[4 * i + 2], cases[i].e4m3 * 0x101u) << std::hex << cases[i].in;
  }
}

TEST(InterpCore, InitialisedGlobalsAndTritonStyleOperands) {
  // Module-scope initialisers, `{ %rs1 }` around a scalar load and `[ %rd1 + 0 ]` (Triton).
  std::string text = std::string(kHeader) + R"(
.global .align 4 .b32 table[4] = {1, -2, 0x10, 7};
.global .align 1 .b8 _$_str[5] = {104, 105};

.visible .entry k(.param .u64 pout)
{
  .reg .pred %p<2>;
  .reg .b16 %rs<3>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [pout];
  mov.u64 %rd2, table;
  ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd2];
  add.s32 %r5, %r1, %r2;
  add.s32 %r5, %r5, %r3;
  add.s32 %r5, %r5, %r4;
  st.global.u32 [ %rd1 + 0 ], %r5;
  mov.u64 %rd3, _$_str;
  mov.pred %p1, -1;
  @%p1 ld.global.b16 { %rs1 }, [ %rd3 + 0 ];
  ld.global.b8 %rs2, [%rd3+4];
  st.global.b16 [ %rd1 + 4 ], %rs1;
  st.global.b16 [ %rd1 + 6 ], %rs2;
  ret;
}
)";
  expect_ptxas_accepts(text);
  InterpMemory mem;
  uint64_t out = mem.allocate(8);
  InterpLaunch l;
  l.block = {1, 1, 1};
  auto r = run(text, "k", l, {out}, mem);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  auto o = download<uint16_t>(mem, out, 4);
  EXPECT_EQ(o[0] | (uint32_t{o[1]} << 16), 22u);
  EXPECT_EQ(o[2], 104u | (105u << 8));
  EXPECT_EQ(o[3], 0u);
}

// ---- mma.sync -------------------------------------------------------------------------------

// A kernel that loads 4 A registers and 2 B registers per lane from global arrays (lane-major),
// runs `mma` with a zero accumulator and stores the 4 f32 results per lane.
std::string mma_kernel(const std::string& mma) {
  return std::string(kHeader) + R"(
.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pd)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<10>;
  .reg .f32 %f<6>;
  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pb];
  ld.param.u64 %rd3, [pd];
  mov.u32 %r1, %laneid;
  mul.wide.u32 %rd4, %r1, 16;
  add.s64 %rd5, %rd1, %rd4;
  ld.global.v4.b32 {%r2, %r3, %r4, %r5}, [%rd5];
  mul.wide.u32 %rd6, %r1, 8;
  add.s64 %rd7, %rd2, %rd6;
  ld.global.v2.b32 {%r6, %r7}, [%rd7];
  mov.f32 %f1, 0f00000000;
  mov.f32 %f2, 0f00000000;
  mov.f32 %f3, 0f00000000;
  mov.f32 %f4, 0f00000000;
  )" + mma +
         R"(
  add.s64 %rd8, %rd3, %rd4;
  st.global.v4.f32 [%rd8], {%f1, %f2, %f3, %f4};
  ret;
}
)";
}

// Fragments written from the ISA figures for mma.m16n8k16 (.f16/.bf16), with
// groupID g = lane >> 2 and threadID_in_group t = lane % 4:
//   A: a_i at row g (+8 for i in {2,3,6,7}), col 2t + (i & 1) (+8 for i >= 4); 2 per register
//   B: b_i at row (k) 2t + (i & 1) (+8 for i >= 2), col g
//   C/D: c_i at row g (+8 for i >= 2), col 2t + (i & 1)
struct MmaCase {
  std::vector<uint32_t> a, b;  // lane-major registers
  std::vector<float> d;
};

std::vector<float> run_mma(const std::string& mma, const std::vector<uint32_t>& a,
                           const std::vector<uint32_t>& b) {
  std::string text = mma_kernel(mma);
  expect_ptxas_accepts(text);
  InterpMemory mem;
  uint64_t pa = upload(mem, a), pb = upload(mem, b), pd = mem.allocate(32 * 16);
  InterpLaunch l;
  l.block = {32, 1, 1};
  auto r = run(text, "k", l, {pa, pb, pd}, mem);
  EXPECT_TRUE(r.ok()) << r.error().to_string();
  return download<float>(mem, pd, 128);
}

TEST(InterpMma, M16N8K16F16FragmentsFromTheIsaFigure) {
  // A[r][k] = 16r + k; B selects column: B[k][n] = 1 iff k == n + 8*shift, so D[r][n] = A[r][n+8s].
  for (int shift = 0; shift < 2; ++shift) {
    std::vector<uint32_t> a(128), b(64);
    for (unsigned lane = 0; lane < 32; ++lane) {
      unsigned g = lane >> 2, t = lane & 3;
      for (unsigned i = 0; i < 8; ++i) {
        unsigned row = g + ((i & 2) ? 8 : 0), col = 2 * t + (i & 1) + (i >= 4 ? 8 : 0);
        a[lane * 4 + i / 2] |= uint32_t{f16_of(static_cast<float>(16 * row + col))}
                               << (16 * (i & 1));
      }
      for (unsigned i = 0; i < 4; ++i) {
        unsigned k = 2 * t + (i & 1) + (i >= 2 ? 8 : 0), n = g;
        float v = k == n + 8u * shift ? 1.0f : 0.0f;
        b[lane * 2 + i / 2] |= uint32_t{f16_of(v)} << (16 * (i & 1));
      }
    }
    auto d = run_mma(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r2, %r3, %r4, "
        "%r5}, {%r6, %r7}, {%f1, %f2, %f3, %f4};",
        a, b);
    float s8 = 8.0f * shift;
    // lane 0: g=0, t=0: c0 = D[0][0], c1 = D[0][1], c2 = D[8][0], c3 = D[8][1]
    EXPECT_EQ(d[0], 0 + s8);
    EXPECT_EQ(d[1], 1 + s8);
    EXPECT_EQ(d[2], 128 + s8);
    EXPECT_EQ(d[3], 129 + s8);
    // lane 5: g=1, t=1: D[1][2], D[1][3], D[9][2], D[9][3]
    EXPECT_EQ(d[20], 18 + s8);
    EXPECT_EQ(d[21], 19 + s8);
    EXPECT_EQ(d[22], 146 + s8);
    EXPECT_EQ(d[23], 147 + s8);
    // lane 31: g=7, t=3: D[7][6], D[7][7], D[15][6], D[15][7]
    EXPECT_EQ(d[124], 118 + s8);
    EXPECT_EQ(d[125], 119 + s8);
    EXPECT_EQ(d[126], 246 + s8);
    EXPECT_EQ(d[127], 247 + s8);
  }
}

TEST(InterpMma, F16AccumulatorAndM16N8K8) {
  // m16n8k16 with an f16 accumulator: D is 2 registers of f16x2, {D[g][2t], D[g][2t+1]} and
  // {D[g+8][2t], D[g+8][2t+1]} (ISA figure for the m16n8k16 C/D .f16 fragment).
  std::vector<uint32_t> a(128), b(64);
  for (unsigned lane = 0; lane < 32; ++lane) {
    unsigned g = lane >> 2, t = lane & 3;
    for (unsigned i = 0; i < 8; ++i) {
      unsigned row = g + ((i & 2) ? 8 : 0), col = 2 * t + (i & 1) + (i >= 4 ? 8 : 0);
      a[lane * 4 + i / 2] |= uint32_t{f16_of(static_cast<float>(16 * row + col))} << (16 * (i & 1));
    }
    for (unsigned i = 0; i < 4; ++i) {
      unsigned k = 2 * t + (i & 1) + (i >= 2 ? 8 : 0);
      b[lane * 2 + i / 2] |= uint32_t{f16_of(k == g ? 1.0f : 0.0f)} << (16 * (i & 1));
    }
  }
  auto d = run_mma(
      "mov.b32 %r8, 0;\n  mov.b32 %r9, 0;\n"
      "  mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%r8, %r9}, {%r2, %r3, %r4, %r5}, "
      "{%r6, %r7}, {%r8, %r9};\n  mov.b32 %f1, %r8;\n  mov.b32 %f2, %r9;",
      a, b);
  auto pair = [](float lo, float hi) { return f16_of(lo) | (uint32_t{f16_of(hi)} << 16); };
  EXPECT_EQ(bits_of(d[20]), pair(18, 19));     // lane 5: D[1][2], D[1][3]
  EXPECT_EQ(bits_of(d[21]), pair(146, 147));   // D[9][2], D[9][3]
  EXPECT_EQ(bits_of(d[124]), pair(118, 119));  // lane 31: D[7][6], D[7][7]

  // m16n8k8 .f16 (ISA figure): A a0,a1 at row g, a2,a3 at row g+8, columns 2t, 2t+1;
  // B b0,b1 at k = 2t, 2t+1, n = g. A[r][k] = 8r + k, B = identity: D[r][n] = A[r][n].
  std::vector<uint32_t> a8(128), b8(64);
  for (unsigned lane = 0; lane < 32; ++lane) {
    unsigned g = lane >> 2, t = lane & 3;
    for (unsigned i = 0; i < 4; ++i) {
      unsigned row = g + (i >= 2 ? 8 : 0), col = 2 * t + (i & 1);
      a8[lane * 4 + i / 2] |= uint32_t{f16_of(static_cast<float>(8 * row + col))} << (16 * (i & 1));
    }
    for (unsigned i = 0; i < 2; ++i)
      b8[lane * 2] |= uint32_t{f16_of(2 * t + i == g ? 1.0f : 0.0f)} << (16 * i);
  }
  d = run_mma(
      "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r2, %r3}, {%r6}, "
      "{%f1, %f2, %f3, %f4};",
      a8, b8);
  EXPECT_EQ(d[20], 10);  // lane 5: D[1][2]
  EXPECT_EQ(d[21], 11);
  EXPECT_EQ(d[22], 74);  // D[9][2]
  EXPECT_EQ(d[23], 75);
  EXPECT_EQ(d[124], 62);  // lane 31: D[7][6]
  EXPECT_EQ(d[127], 127);
}

TEST(InterpMma, M16N8K16Bf16AgreesWithAReference) {
  std::mt19937 rng(7);
  float A[16][16], B[16][8];
  for (auto& r : A)
    for (auto& v : r) v = static_cast<float>(static_cast<int>(rng() % 9) - 4);
  for (auto& r : B)
    for (auto& v : r) v = static_cast<float>(static_cast<int>(rng() % 9) - 4);
  std::vector<uint32_t> a(128), b(64);
  for (unsigned lane = 0; lane < 32; ++lane) {
    unsigned g = lane >> 2, t = lane & 3;
    for (unsigned i = 0; i < 8; ++i) {
      unsigned row = g + ((i & 2) ? 8 : 0), col = 2 * t + (i & 1) + (i >= 4 ? 8 : 0);
      a[lane * 4 + i / 2] |= uint32_t{bf16_of(A[row][col])} << (16 * (i & 1));
    }
    for (unsigned i = 0; i < 4; ++i) {
      unsigned k = 2 * t + (i & 1) + (i >= 2 ? 8 : 0);
      b[lane * 2 + i / 2] |= uint32_t{bf16_of(B[k][g])} << (16 * (i & 1));
    }
  }
  auto d = run_mma(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f1, %f2, %f3, %f4}, {%r2, %r3, %r4, "
      "%r5}, {%r6, %r7}, {%f1, %f2, %f3, %f4};",
      a, b);
  for (unsigned lane = 0; lane < 32; ++lane)
    for (unsigned i = 0; i < 4; ++i) {
      unsigned row = (lane >> 2) + (i >= 2 ? 8 : 0), col = 2 * (lane & 3) + (i & 1);
      float ref = 0;
      for (unsigned k = 0; k < 16; ++k) ref += A[row][k] * B[k][col];
      EXPECT_EQ(d[lane * 4 + i], ref) << lane << " " << i;
    }
}

TEST(InterpMma, M16N8K8Tf32FragmentsFromTheIsaFigure) {
  // ISA figure for mma.m16n8k8 .tf32: A a0:(g, t) a1:(g+8, t) a2:(g, t+4) a3:(g+8, t+4);
  // B b0:(k=t, n=g) b1:(k=t+4, n=g). A[r][k] = 8r + k, plus garbage in the low 13 bits (ignored).
  for (int shift = 0; shift < 2; ++shift) {
    std::vector<uint32_t> a(128), b(64);
    for (unsigned lane = 0; lane < 32; ++lane) {
      unsigned g = lane >> 2, t = lane & 3;
      for (unsigned i = 0; i < 4; ++i) {
        unsigned row = g + (i & 1) * 8, col = t + (i >> 1) * 4;
        a[lane * 4 + i] = bits_of(static_cast<float>(8 * row + col)) | 0x1fffu;
      }
      for (unsigned i = 0; i < 2; ++i) {
        unsigned k = t + 4 * i;
        b[lane * 2 + i] = bits_of(k == g % 4 + 4u * shift ? 1.0f : 0.0f);
      }
    }
    auto d = run_mma(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%f1, %f2, %f3, %f4}, {%r2, %r3, %r4, "
        "%r5}, {%r6, %r7}, {%f1, %f2, %f3, %f4};",
        a, b);
    // D[r][n] = A[r][n%4 + 4s]. Lane 5 (g=1, t=1): D[1][2], D[1][3], D[9][2], D[9][3].
    float s4 = 4.0f * shift;
    EXPECT_EQ(d[20], 10 + s4);
    EXPECT_EQ(d[21], 11 + s4);
    EXPECT_EQ(d[22], 74 + s4);
    EXPECT_EQ(d[23], 75 + s4);
    // Lane 31 (g=7, t=3): D[7][6] = A[7][2+4s], D[7][7], D[15][6], D[15][7]
    EXPECT_EQ(d[124], 58 + s4);
    EXPECT_EQ(d[125], 59 + s4);
    EXPECT_EQ(d[126], 122 + s4);
    EXPECT_EQ(d[127], 123 + s4);
  }
}

TEST(InterpMma, M16N8K32E4m3FragmentsFromTheIsaFigure) {
  // ISA figure for mma.m16n8k32 .e4m3: A a_i at row g (+8 for i%8 >= 4), col 4t + i%4 (+16 for
  // i >= 8), 4 per register; B b_i at k = 4t + i%4 (+16 for i >= 4), n = g.
  // A[r][k] = (r + k) % 16; B[k][n] = 1 iff k == n + 8s, so D[r][n] = A[r][n + 8s].
  for (int shift = 0; shift < 4; ++shift) {
    std::vector<uint32_t> a(128), b(64);
    for (unsigned lane = 0; lane < 32; ++lane) {
      unsigned g = lane >> 2, t = lane & 3;
      for (unsigned i = 0; i < 16; ++i) {
        unsigned row = g + ((i % 8) >= 4 ? 8 : 0), col = 4 * t + i % 4 + (i >= 8 ? 16 : 0);
        a[lane * 4 + i / 4] |= uint32_t{e4m3_of(static_cast<int>((row + col) % 16))}
                               << (8 * (i % 4));
      }
      for (unsigned i = 0; i < 8; ++i) {
        unsigned k = 4 * t + i % 4 + (i >= 4 ? 16 : 0);
        b[lane * 2 + i / 4] |= uint32_t{e4m3_of(k == g + 8u * shift ? 1 : 0)} << (8 * (i % 4));
      }
    }
    auto d = run_mma(
        "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%f1, %f2, %f3, %f4}, {%r2, %r3, %r4, "
        "%r5}, {%r6, %r7}, {%f1, %f2, %f3, %f4};",
        a, b);
    auto A = [](unsigned r, unsigned k) { return static_cast<float>((r + k) % 16); };
    unsigned s = 8 * shift;
    EXPECT_EQ(d[20], A(1, 2 + s));   // lane 5: D[1][2]
    EXPECT_EQ(d[23], A(9, 3 + s));   // D[9][3]
    EXPECT_EQ(d[124], A(7, 6 + s));  // lane 31: D[7][6]
    EXPECT_EQ(d[127], A(15, 7 + s));
  }
}

// ---- ldmatrix -------------------------------------------------------------------------------

TEST(InterpLdmatrix, X4AndTransFromTheIsaFigure) {
  // Shared tile: 32 rows of 8 b16 values, value = 256*row + col. Thread L gives the address of
  // row L (matrix L/8, row L%8). Without .trans lane L gets row L/4 of each matrix, columns
  // 2(L%4), +1; with .trans it gets column L/4 of rows 2(L%4), +1.
  std::string text = std::string(kHeader) + R"(
.visible .entry k(.param .u64 pout)
{
  .reg .pred %p<2>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<6>;
  .reg .b16 %h<2>;
  .shared .align 16 .b16 tile[256];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, tile;
  mov.u32 %r3, 0;
$L_fill:
  shr.u32 %r4, %r3, 3;
  and.b32 %r5, %r3, 7;
  shl.b32 %r6, %r4, 8;
  or.b32 %r7, %r6, %r5;
  cvt.u16.u32 %h1, %r7;
  shl.b32 %r8, %r3, 1;
  add.s32 %r9, %r2, %r8;
  st.shared.u16 [%r9], %h1;
  add.s32 %r3, %r3, 1;
  setp.lt.u32 %p1, %r3, 256;
  @%p1 bra $L_fill;
  shl.b32 %r10, %r1, 4;
  add.s32 %r11, %r2, %r10;
  ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r12, %r13, %r14, %r15}, [%r11];
  ldmatrix.sync.aligned.m8n8.x4.trans.shared::cta.b16 {%r16, %r17, %r18, %r19}, [%r11];
  ld.param.u64 %rd1, [pout];
  mul.wide.u32 %rd2, %r1, 32;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v4.b32 [%rd3], {%r12, %r13, %r14, %r15};
  st.global.v4.b32 [%rd3+16], {%r16, %r17, %r18, %r19};
  ret;
}
)";
  expect_ptxas_accepts(text);
  InterpMemory mem;
  uint64_t out = mem.allocate(32 * 32);
  InterpLaunch l;
  l.block = {32, 1, 1};
  auto r = run(text, "k", l, {out}, mem);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  auto o = download<uint32_t>(mem, out, 32 * 8);
  auto pack = [](uint32_t lo, uint32_t hi) { return lo | (hi << 16); };
  // lane 0: matrix i row 0 cols 0,1 -> rows 8i: values 256*8i + {0,1}
  EXPECT_EQ(o[0], pack(0, 1));
  EXPECT_EQ(o[1], pack(256 * 8, 256 * 8 + 1));
  EXPECT_EQ(o[3], pack(256 * 24, 256 * 24 + 1));
  // lane 5 (g=1, t=1): row 1 of matrix i, cols 2,3
  EXPECT_EQ(o[5 * 8 + 0], pack(256 * 1 + 2, 256 * 1 + 3));
  EXPECT_EQ(o[5 * 8 + 2], pack(256 * 17 + 2, 256 * 17 + 3));
  // trans, lane 5: column g=1 of rows 2t=2 and 3 of matrix i
  EXPECT_EQ(o[5 * 8 + 4], pack(256 * 2 + 1, 256 * 3 + 1));
  EXPECT_EQ(o[5 * 8 + 7], pack(256 * 26 + 1, 256 * 27 + 1));
  // lane 31 (g=7, t=3): row 7 cols 6,7; trans: column 7 of rows 6 and 7
  EXPECT_EQ(o[31 * 8 + 1], pack(256 * 15 + 6, 256 * 15 + 7));
  EXPECT_EQ(o[31 * 8 + 5], pack(256 * 14 + 7, 256 * 15 + 7));
}

// ---- wgmma ----------------------------------------------------------------------------------

// Layout of one wgmma operand in shared memory (written from the ISA's canonical layouts).
struct SmemLayout {
  unsigned swizzle = 0;  // descriptor mode: 0 none, 1 128B, 2 64B, 3 32B
  bool mn_major = false;
  uint32_t lbo = 0, sbo = 0;
  unsigned width() const { return swizzle == 1 ? 128 : swizzle == 2 ? 64 : swizzle == 3 ? 32 : 0; }
  uint64_t descriptor(uint32_t start) const {
    return (uint64_t{start >> 4} & 0x3fff) | (uint64_t{(lbo >> 4) & 0x3fff} << 16) |
           (uint64_t{(sbo >> 4) & 0x3fff} << 32) | (uint64_t{swizzle} << 62);
  }
  // Byte offset of element (mn, k) of `ebytes`-byte elements, before the swizzle.
  uint32_t offset(unsigned mn, unsigned k, unsigned ebytes) const {
    unsigned w = width();
    if (!mn_major) {
      unsigned kb = k * ebytes;
      return w == 0 ? (mn / 8) * sbo + (mn % 8) * 16 + (kb / 16) * lbo + kb % 16
                    : (mn / 8) * sbo + (mn % 8) * w + kb;
    }
    unsigned mb = mn * ebytes;
    return w == 0 ? (mb / 16) * sbo + (k % 8) * 16 + (k / 8) * lbo + mb % 16
                  : (mb / w) * lbo + mb % w + (k % 8) * w + (k / 8) * sbo;
  }
  uint32_t address(uint32_t start, unsigned mn, unsigned k, unsigned ebytes) const {
    uint32_t a = start + offset(mn, k, ebytes);
    unsigned s = swizzle == 1 ? 3 : swizzle == 2 ? 2 : swizzle == 3 ? 1 : 0;
    return a ^ (((a >> 7) & ((1u << s) - 1)) << 4);
  }
};

struct WgmmaCase {
  unsigned n = 16;
  std::string ab = "f16";  // f16, bf16, tf32, e4m3
  bool a_from_registers = false;
  SmemLayout la, lb;
  bool scale_d = false;
  int scale_a = 1, scale_b = 1;
  bool d_f16 = false;  // f16 accumulator: N/4 registers of f16x2 (element 2j in the low half)
};

float float_of_f16(uint16_t h) {
  int exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  float v = exp == 0 ? std::ldexp(static_cast<float>(man), -24)
                     : std::ldexp(static_cast<float>(1024 + man), exp - 25);
  return (h & 0x8000) ? -v : v;
}

// Runs one wgmma m64nNk* over 128 threads; A (64xK) and B (KxN) are given as values.
std::vector<float> run_wgmma(const WgmmaCase& c, const std::vector<std::vector<float>>& A,
                             const std::vector<std::vector<float>>& B,
                             const std::vector<float>& d_init, std::string* text_out = nullptr) {
  unsigned ebytes = c.ab == "tf32" ? 4 : c.ab == "e4m3" ? 1 : 2;
  unsigned K = 32 / ebytes, N = c.n;
  auto encode = [&](float v) -> uint32_t {
    if (c.ab == "f16") return f16_of(v);
    if (c.ab == "bf16") return bf16_of(v);
    if (c.ab == "tf32") return bits_of(v);
    return e4m3_of(static_cast<int>(v));
  };
  const uint32_t a_start = 0, b_start = 16384;  // offsets inside the 1024-aligned tile
  std::vector<uint8_t> smem(32768);
  for (unsigned m = 0; m < 64; ++m)
    for (unsigned k = 0; k < K; ++k) {
      uint32_t v = encode(A[m][k]);
      std::memcpy(&smem[c.la.address(a_start, m, k, ebytes)], &v, ebytes);
    }
  for (unsigned n = 0; n < N; ++n)
    for (unsigned k = 0; k < K; ++k) {
      uint32_t v = encode(B[k][n]);
      std::memcpy(&smem[c.lb.address(b_start, n, k, ebytes)], &v, ebytes);
    }
  // A fragments (registers): warp w rows 16w.., like mma.m16n8 A (ISA "WGMMA .m64nNk16 register
  // fragment layout for matrix A").
  std::vector<uint32_t> afrag(128 * 4);
  for (unsigned tid = 0; tid < 128; ++tid) {
    unsigned w = tid / 32, lane = tid % 32, g = lane >> 2, t = lane & 3;
    unsigned per = 4 / ebytes, count = 16 * K / 32;
    for (unsigned i = 0; i < count; ++i) {
      unsigned row, col;
      if (ebytes == 4) {
        row = g + (i & 1) * 8;
        col = t + (i >> 1) * 4;
      } else if (ebytes == 2) {
        row = g + ((i & 2) ? 8 : 0);
        col = 2 * t + (i & 1) + (i >= 4 ? 8 : 0);
      } else {
        row = g + ((i % 8) >= 4 ? 8 : 0);
        col = 4 * t + i % 4 + (i >= 8 ? 16 : 0);
      }
      afrag[tid * 4 + i / per] |= encode(A[16 * w + row][col]) << (8 * ebytes * (i % per));
    }
  }
  unsigned dregs = c.d_f16 ? N / 4 : N / 2;
  std::string dlist;
  for (unsigned i = 0; i < dregs; ++i) dlist += (i ? ", %f" : "%f") + std::to_string(i);
  bool half = ebytes == 2;
  std::string a_operand = c.a_from_registers ? "{%r10, %r11, %r12, %r13}" : "%rd20";
  std::string args =
      std::string(", %p1, ") + std::to_string(c.scale_a) + ", " + std::to_string(c.scale_b);
  if (half) {
    if (!c.a_from_registers) args += c.la.mn_major ? ", 1" : ", 0";
    args += c.lb.mn_major ? ", 1" : ", 0";
  }
  std::string wg = "wgmma.mma_async.sync.aligned.m64n" + std::to_string(N) + "k" +
                   std::to_string(K) + (c.d_f16 ? ".f16." : ".f32.") + c.ab + "." + c.ab + " {" +
                   dlist + "}, " + a_operand + ", %rd21" + args + ";";
  std::string loads, stores;
  for (unsigned i = 0; i < dregs; ++i) {
    loads += std::string(c.d_f16 ? "  ld.global.b32 %f" : "  ld.global.f32 %f") +
             std::to_string(i) + ", [%rd6+" + std::to_string(4 * i) + "];\n";
    stores += std::string(c.d_f16 ? "  st.global.b32 [%rd6+" : "  st.global.f32 [%rd6+") +
              std::to_string(4 * i) + "], %f" + std::to_string(i) + ";\n";
  }
  std::string text = std::string(kHeader) + R"(
.visible .entry k(.param .u64 psrc, .param .u64 pdesc_a, .param .u64 pdesc_b, .param .u64 pd,
                  .param .u64 pafrag, .param .u32 pscale)
{
  .reg .pred %p<3>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<30>;
  .reg )" + (c.d_f16 ? std::string(".b32") : std::string(".f32")) +
                     " %f<" + std::to_string(dregs) +
                     R"(>;
  .shared .align 1024 .b8 tile[32768];
  ld.param.u64 %rd1, [psrc];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, tile;
  mov.u32 %r3, %r1;
$L_copy:
  mul.wide.u32 %rd2, %r3, 16;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.v4.b32 {%r4, %r5, %r6, %r7}, [%rd3];
  shl.b32 %r8, %r3, 4;
  add.s32 %r9, %r2, %r8;
  st.shared.v4.b32 [%r9], {%r4, %r5, %r6, %r7};
  add.s32 %r3, %r3, 128;
  setp.lt.u32 %p2, %r3, 2048;
  @%p2 bra $L_copy;
  bar.sync 0;
  ld.param.u64 %rd4, [pd];
  mul.wide.u32 %rd5, %r1, )" +
                     std::to_string(4 * dregs) +
                     R"(;
  add.s64 %rd6, %rd4, %rd5;
)" + loads + R"(
  ld.param.u64 %rd7, [pafrag];
  mul.wide.u32 %rd8, %r1, 16;
  add.s64 %rd9, %rd7, %rd8;
  ld.global.v4.b32 {%r10, %r11, %r12, %r13}, [%rd9];
  cvt.u64.u32 %rd10, %r2;
  shr.u64 %rd11, %rd10, 4;
  ld.param.u64 %rd12, [pdesc_a];
  add.s64 %rd20, %rd12, %rd11;
  ld.param.u64 %rd13, [pdesc_b];
  add.s64 %rd21, %rd13, %rd11;
  ld.param.u32 %r14, [pscale];
  setp.ne.u32 %p1, %r14, 0;
  wgmma.fence.sync.aligned;
  )" + wg + R"(
  wgmma.commit_group.sync.aligned;
  wgmma.wait_group.sync.aligned 0;
)" + stores + R"(
  ret;
}
)";
  if (text_out) *text_out = text;
  expect_ptxas_accepts(text);
  InterpMemory mem;
  uint64_t src = upload(mem, smem);
  uint64_t pd;
  if (c.d_f16) {
    std::vector<uint16_t> packed;
    for (float v : d_init) packed.push_back(f16_of(v));
    pd = upload(mem, packed);
  } else {
    pd = upload(mem, d_init);
  }
  uint64_t pafrag = upload(mem, afrag);
  InterpLaunch l;
  l.block = {128, 1, 1};
  auto r = run(
      text, "k", l,
      {src, c.la.descriptor(a_start), c.lb.descriptor(b_start), pd, pafrag, c.scale_d ? 1u : 0u},
      mem);
  EXPECT_TRUE(r.ok()) << r.error().to_string();
  if (!c.d_f16) return download<float>(mem, pd, 128 * dregs);
  std::vector<float> out;
  for (uint16_t h : download<uint16_t>(mem, pd, 128 * N / 2)) out.push_back(float_of_f16(h));
  return out;
}

// Checks the whole D tile against a CPU reference, with the D fragment layout of the ISA figure
// "WGMMA .m64nNk16 register fragment layout for accumulator matrix D": thread 32w + L holds
// d_i = D[16w + L/4 + 8*((i/2)%2)][8*(i/4) + 2*(L%4) + i%2].
void check_wgmma(const WgmmaCase& c, unsigned seed) {
  unsigned ebytes = c.ab == "tf32" ? 4 : c.ab == "e4m3" ? 1 : 2;
  unsigned K = 32 / ebytes, N = c.n;
  std::mt19937 rng(seed);
  auto small = [&] { return static_cast<float>(static_cast<int>(rng() % 7) - 3); };
  std::vector<std::vector<float>> A(64, std::vector<float>(K)), B(K, std::vector<float>(N));
  for (auto& r : A)
    for (auto& v : r) v = small();
  for (auto& r : B)
    for (auto& v : r) v = small();
  std::vector<float> d_init(128 * N / 2);
  for (auto& v : d_init) v = small();
  auto d = run_wgmma(c, A, B, d_init);
  for (unsigned tid = 0; tid < 128; ++tid)
    for (unsigned i = 0; i < N / 2; ++i) {
      unsigned w = tid / 32, lane = tid % 32;
      unsigned row = 16 * w + lane / 4 + 8 * ((i / 2) % 2),
               col = 8 * (i / 4) + 2 * (lane % 4) + i % 2;
      float ref = c.scale_d ? d_init[tid * (N / 2) + i] : 0.0f;
      for (unsigned k = 0; k < K; ++k) ref += c.scale_a * A[row][k] * c.scale_b * B[k][col];
      ASSERT_EQ(d[tid * (N / 2) + i], ref) << "thread " << tid << " d" << i;
    }
}

TEST(InterpWgmma, AccumulatorFragmentFromTheIsaFigure) {
  // A[m][0] = m, A[m][1] = 1, B[0][n] = 64, B[1][n] = n: D[m][n] = 64m + n names its position.
  WgmmaCase c;
  c.n = 24;
  c.la = {1, false, 16, 1024};
  c.lb = {1, false, 16, 1024};
  std::vector<std::vector<float>> A(64, std::vector<float>(16)), B(16, std::vector<float>(24));
  for (unsigned m = 0; m < 64; ++m) {
    A[m][0] = static_cast<float>(m);
    A[m][1] = 1;
  }
  for (unsigned n = 0; n < 24; ++n) {
    B[0][n] = 64;
    B[1][n] = static_cast<float>(n);
  }
  auto d = run_wgmma(c, A, B, std::vector<float>(128 * 12));
  auto at = [&](unsigned tid, unsigned i) { return d[tid * 12 + i]; };
  // warp 0 lane 0: d0 = D[0][0], d1 = D[0][1], d2 = D[8][0], d3 = D[8][1], d4 = D[0][8]
  EXPECT_EQ(at(0, 0), 0);
  EXPECT_EQ(at(0, 1), 1);
  EXPECT_EQ(at(0, 2), 64 * 8);
  EXPECT_EQ(at(0, 3), 64 * 8 + 1);
  EXPECT_EQ(at(0, 4), 8);
  // warp 1 lane 5 (g=1, t=1): rows 17 / 25, d9 = D[17][8*2 + 2 + 1]
  EXPECT_EQ(at(37, 0), 64 * 17 + 2);
  EXPECT_EQ(at(37, 3), 64 * 25 + 3);
  EXPECT_EQ(at(37, 9), 64 * 17 + 19);
  // warp 3 lane 31 (g=7, t=3): rows 55 / 63, d11 = D[63][23]
  EXPECT_EQ(at(127, 0), 64 * 55 + 6);
  EXPECT_EQ(at(127, 11), 64 * 63 + 23);
}

TEST(InterpWgmma, F16KMajorEverySwizzleADescriptorAndRegisters) {
  // K-major: no swizzle uses LBO between the two 16-byte K halves and SBO between 8-row groups;
  // swizzled layouts have rows of W bytes in 8-row atoms, SBO = 8 * W between atoms.
  for (unsigned sw : {0u, 3u, 2u, 1u}) {
    for (bool a_regs : {false, true}) {
      WgmmaCase c;
      c.n = 32;
      c.a_from_registers = a_regs;
      unsigned w = sw == 1 ? 128 : sw == 2 ? 64 : sw == 3 ? 32 : 0;
      c.la = sw == 0 ? SmemLayout{0, false, 128, 256} : SmemLayout{sw, false, 16, 8 * w};
      c.lb = sw == 0 ? SmemLayout{0, false, 128, 256} : SmemLayout{sw, false, 16, 8 * w};
      SCOPED_TRACE("swizzle " + std::to_string(sw) + (a_regs ? " A regs" : " A desc"));
      check_wgmma(c, 11 + sw);
    }
  }
}

TEST(InterpWgmma, F16MnMajorTransposedOperands) {
  // MN-major: W bytes of M (or N) contiguous per k row; LBO between W-byte MN atoms, SBO between
  // groups of 8 k rows (no swizzle: 16-byte MN chunks SBO apart, 8-k groups LBO apart).
  for (unsigned sw : {0u, 3u, 2u, 1u}) {
    WgmmaCase c;
    c.n = 64;
    unsigned w = sw == 1 ? 128 : sw == 2 ? 64 : sw == 3 ? 32 : 0;
    c.la = sw == 0 ? SmemLayout{0, true, 128, 256} : SmemLayout{sw, true, 8 * w * 2, 8 * w};
    c.lb = sw == 0 ? SmemLayout{0, true, 128, 256} : SmemLayout{sw, true, 8 * w * 2, 8 * w};
    SCOPED_TRACE("swizzle " + std::to_string(sw));
    check_wgmma(c, 21 + sw);
    c.ab = "bf16";
    check_wgmma(c, 31 + sw);
  }
}

TEST(InterpWgmma, ScaleDAndNegatedInputs) {
  WgmmaCase c;
  c.n = 8;
  c.la = {1, false, 16, 1024};
  c.lb = {2, false, 16, 512};
  c.scale_d = true;
  check_wgmma(c, 41);
  c.scale_a = -1;
  check_wgmma(c, 42);
  c.scale_b = -1;
  c.scale_d = false;
  check_wgmma(c, 43);
  c.n = 256;
  c.scale_a = 1;
  check_wgmma(c, 44);
}

TEST(InterpWgmma, F16Accumulator) {
  WgmmaCase c;
  c.n = 32;
  c.d_f16 = true;
  c.la = {1, false, 16, 1024};
  c.lb = {1, true, 2048, 1024};
  c.scale_d = true;
  check_wgmma(c, 61);
  c.a_from_registers = true;
  c.ab = "e4m3";
  c.lb = {3, false, 16, 256};
  check_wgmma(c, 62);
}

TEST(InterpWgmma, Tf32AndE4m3) {
  WgmmaCase c;
  c.n = 16;
  c.ab = "tf32";
  c.la = {1, false, 16, 1024};
  c.lb = {3, false, 16, 256};
  check_wgmma(c, 51);
  c.a_from_registers = true;
  check_wgmma(c, 52);
  c.ab = "e4m3";
  c.a_from_registers = false;
  c.lb = {0, false, 128, 256};
  check_wgmma(c, 53);
  c.a_from_registers = true;
  c.scale_d = true;
  check_wgmma(c, 54);
}

// ---- nvcc-built kernels ---------------------------------------------------------------------

std::string nvcc_kernels(std::string* log) {
  return testing::nvcc_ptx(std::string(SMCOMPAT_SOURCE_DIR) + "/tests/ptx/data/interp_kernels.cu",
                           "sm_90a", "interp_kernels.ptx", log);
}

TEST(InterpNvcc, MmaSyncMatmulMatchesCpuReference) {
  SMCOMPAT_REQUIRE_CUDA();
  std::string log;
  std::string ptx = nvcc_kernels(&log);
  ASSERT_FALSE(ptx.empty()) << log;
  constexpr int M = 32, N = 16, K = 64;
  std::mt19937 rng(3);
  std::vector<uint16_t> a(M * K), b(K * N);
  std::vector<float> af(M * K), bf(K * N);
  for (int i = 0; i < M * K; ++i) {
    af[i] = static_cast<float>(static_cast<int>(rng() % 9) - 4);
    a[i] = f16_of(af[i]);
  }
  for (int i = 0; i < K * N; ++i) {
    bf[i] = static_cast<float>(static_cast<int>(rng() % 9) - 4);
    b[i] = f16_of(bf[i]);
  }
  InterpMemory mem;
  uint64_t pa = upload(mem, a), pb = upload(mem, b), pc = mem.allocate(M * N * 4);
  InterpLaunch l;
  l.block = {64, 1, 1};
  auto r = run(ptx, "mma_matmul", l, {pa, pb, pc, K}, mem);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  auto c = download<float>(mem, pc, M * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float ref = 0;
      for (int k = 0; k < K; ++k) ref += af[i * K + k] * bf[k * N + j];
      ASSERT_EQ(c[i * N + j], ref) << i << "," << j;
    }
}

TEST(InterpNvcc, ShuffleReductionAndElementwise) {
  SMCOMPAT_REQUIRE_CUDA();
  std::string log;
  std::string ptx = nvcc_kernels(&log);
  ASSERT_FALSE(ptx.empty()) << log;
  constexpr int kN = 1000;
  std::vector<int> x(kN);
  for (int i = 0; i < kN; ++i) x[i] = (i * 37) % 101 - 50;
  InterpMemory mem;
  uint64_t px = upload(mem, x), pout = mem.allocate(4 * 8);
  InterpLaunch l;
  l.block = {256, 1, 1};
  l.grid = {4, 1, 1};
  auto r = run(ptx, "block_sum", l, {px, pout, kN}, mem);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  auto out = download<int>(mem, pout, 4);
  for (int blk = 0; blk < 4; ++blk) {
    int ref = 0;
    for (int i = blk * 256; i < std::min(kN, (blk + 1) * 256); ++i) ref += x[i];
    EXPECT_EQ(out[blk], ref) << blk;
  }
  std::vector<float> xf(kN), yf(kN);
  for (int i = 0; i < kN; ++i) {
    xf[i] = static_cast<float>(i) * 0.25f;
    yf[i] = static_cast<float>(kN - i);
  }
  uint64_t pxf = upload(mem, xf), pyf = upload(mem, yf);
  l.grid = {8, 1, 1};
  l.block = {128, 1, 1};
  r = run(ptx, "saxpy", l, {pxf, pyf, bits_of(1.5f), kN}, mem);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  auto y = download<float>(mem, pyf, kN);
  for (int i = 0; i < kN; ++i) EXPECT_EQ(y[i], 1.5f * xf[i] + yf[i]) << i;
}

// ---- errors ---------------------------------------------------------------------------------

std::string error_kernel(const std::string& body) {
  return std::string(kHeader) + R"(
.visible .entry k(.param .u64 p)
{
  .reg .pred %p<3>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<6>;
)" + body +
         "\n}\n";
}

TEST(InterpErrors, UnsupportedInstructionIsLocated) {
  std::string text = error_kernel("  mov.u32 %r1, 1;\n  dp4a.u32.u32 %r2, %r1, %r1, %r1;\n  ret;");
  expect_ptxas_accepts(text);
  InterpMemory mem;
  auto r = run(text, "k", InterpLaunch{}, {0}, mem);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().what.find("line 11, column 3: unsupported in the interpreter: dp4a.u32.u32"),
            std::string::npos)
      << r.error().what;
}

TEST(InterpErrors, OutOfBoundsGlobalAccess) {
  std::string text = error_kernel(
      "  ld.param.u64 %rd1, [p];\n  mov.u32 %r1, %tid.x;\n  mul.wide.u32 %rd2, %r1, 4;\n"
      "  add.s64 %rd3, %rd1, %rd2;\n  st.global.u32 [%rd3], %r1;\n  ret;");
  expect_ptxas_accepts(text);
  InterpMemory mem;
  uint64_t buf = mem.allocate(64 * 4);  // 64 elements for 128 threads
  auto r = run(text, "k", InterpLaunch{}, {buf}, mem);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().what.find("line 14, column 3"), std::string::npos) << r.error().what;
  EXPECT_NE(r.error().what.find(fmt::format("0x{:x}", buf + 256)), std::string::npos)
      << r.error().what;
}

TEST(InterpErrors, RunawayLoopStopsAtTheInstructionLimit) {
  std::string text = error_kernel("$L_spin:\n  add.s32 %r1, %r1, 1;\n  bra.uni $L_spin;\n  ret;");
  expect_ptxas_accepts(text);
  InterpMemory mem;
  InterpLaunch l;
  l.max_instructions = 100000;
  auto r = run(text, "k", l, {0}, mem);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().what.find("more than 100000 instructions"), std::string::npos)
      << r.error().what;
}

TEST(InterpErrors, DeadlockNamesBothInstructions) {
  std::string text = error_kernel(
      "  mov.u32 %r1, %laneid;\n  setp.lt.u32 %p1, %r1, 16;\n  @%p1 bra $L_a;\n"
      "  shfl.sync.bfly.b32 %r2, %r1, 1, 31, -1;\n  ret;\n$L_a:\n"
      "  shfl.sync.bfly.b32 %r3, %r1, 2, 31, -1;\n  ret;");
  expect_ptxas_accepts(text);
  InterpMemory mem;
  InterpLaunch l;
  l.block = {32, 1, 1};
  auto r = run(text, "k", l, {0}, mem);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().what.find("deadlock"), std::string::npos) << r.error().what;
  EXPECT_NE(r.error().what.find("line 13"), std::string::npos) << r.error().what;
  EXPECT_NE(r.error().what.find("line 16"), std::string::npos) << r.error().what;
}

TEST(InterpErrors, MalformedInputsNeverCrash) {
  // Truncations of a kernel: each parses to an error or runs to a result or an error.
  std::string text = mma_kernel(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r2, %r3, %r4}, "
      "{%r6, %r7}, {%f1, %f2, %f3, %f4};");
  InterpMemory mem;
  uint64_t a = mem.allocate(4096);
  InterpLaunch l;
  l.block = {32, 1, 1};
  auto r = run(text, "k", l, {a, a, a}, mem);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().what.find("unsupported in the interpreter: mma.sync"), std::string::npos);
  for (size_t cut = 0; cut < text.size(); cut += 7) {
    auto rr = run(text.substr(0, cut), "k", l, {a, a, a}, mem);
    (void)rr;
  }
}

TEST(InterpErrors, MutatedKernelsNeverCrash) {
  // Random byte edits of valid kernels: each must parse to an error, or run to a result or a
  // located error (register names, vector sizes, addresses and counts are all bounds-checked).
  const std::string bases[] = {
      mma_kernel("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r2, "
                 "%r3, %r4, %r5}, {%r6, %r7}, {%f1, %f2, %f3, %f4};"),
      mma_kernel(
          "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r2, %r3, %r4, %r5}, [%r1];\n"
          "  shfl.sync.idx.b32 %r6|%p1, %r2, 3, 31, -1;\n  vote.sync.ballot.b32 %r7, %p1, -1;")
          .insert(std::string(kHeader).size() + 69, "  .reg .pred %p<2>;\n"),
  };
  ASSERT_EQ(bases[1].substr(std::string(kHeader).size() + 67, 3), "{\n ");
  std::mt19937 rng(1234);
  const std::string alphabet = "0123456789%{}[],.;-+x_rdfp";
  InterpMemory mem;
  uint64_t buf = mem.allocate(4096);
  InterpLaunch l;
  l.block = {32, 1, 1};
  l.max_instructions = 100000;
  int ran = 0;
  for (const auto& base : bases) {
    for (int iter = 0; iter < 300; ++iter) {
      std::string text = base;
      size_t pos =
          std::string(kHeader).size() + rng() % (text.size() - std::string(kHeader).size());
      switch (rng() % 3) {
        case 0:
          text.erase(pos, 1 + rng() % 3);
          break;
        case 1:
          text[pos] = alphabet[rng() % alphabet.size()];
          break;
        default:
          text.insert(pos, 1, alphabet[rng() % alphabet.size()]);
          break;
      }
      auto r = run(text, "k", l, {buf, buf, buf}, mem);
      if (!r.ok()) EXPECT_FALSE(r.error().what.empty());
      ++ran;
    }
  }
  EXPECT_EQ(ran, 600);
}

}  // namespace
}  // namespace smcompat::ptx
