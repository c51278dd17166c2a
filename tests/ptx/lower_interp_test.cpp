// The lowering computes what the original computes: every kernel of the nvcc-built wgmma fixture
// (tests/ptx/data/wgmma_kernels.cu) runs in the reference interpreter as built for sm_90a and as
// lowered for sm_120, on the same inputs, with every shared-memory layout the descriptors can
// name (no swizzle with LBO/SBO, 32/64/128-byte swizzles, K-major and MN-major, a start address
// advanced along K), D accumulated or not. Inputs are small integers, so every product and sum
// is exact in any order and the outputs must be bit-identical.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <filesystem>
#include <random>

#include "../../fuzz/ptx_lower_case.hpp"
#include "../../fuzz/ptx_lower_tcgen05_case.hpp"
#include "ptx_test_util.hpp"
#include "smcompat/ptx/interp.hpp"
#include "smcompat/ptx/lower.hpp"

namespace smcompat::ptx {
namespace {

using lower_case::Elem;
using lower_case::fill;
using lower_case::Layout;

struct FixtureKernel {
  const char* name;
  Elem type;
  uint32_t d_regs;  // 32-bit D registers per thread
  bool f16_accumulator;
  bool a_mn, b_mn;  // MN-major operands (imm-trans 1)
};

// The kernels of wgmma_kernels.cu.
const FixtureKernel kKernels[] = {
    {"wgmma_f16_ss_n64_kk", Elem::kF16, 32, false, false, false},
    {"wgmma_f16_ss_n64_mn", Elem::kF16, 32, false, true, true},
    {"wgmma_bf16_ss_n32_kn", Elem::kBF16, 16, false, false, true},
    {"wgmma_f16_rs_n16", Elem::kF16, 8, false, false, false},
    {"wgmma_f16acc_ss_n64", Elem::kF16, 16, true, false, false},
    {"wgmma_tf32_ss_n16", Elem::kTF32, 8, false, false, false},
    {"wgmma_e4m3_ss_n32", Elem::kE4M3, 16, false, false, false},
    {"wgmma_f16_ss_n256", Elem::kF16, 128, false, false, false},
    {"wgmma_bf16_ss_n8", Elem::kBF16, 4, false, false, false},
};

// Layouts whose every address stays inside the 8 KiB operand buffers for 64 rows (or N up to 256
// for K-major B: 32 groups of 8 rows; 8 KiB / 32 = 256 bytes a group at most).
const Layout kKMajorA[] = {{0, 128, 256, 0}, {32, 128, 512, 0}, {0, 16, 1024, 1}, {32, 16, 1024, 1},
                           {0, 16, 512, 2},  {32, 16, 512, 2},  {0, 16, 256, 3},  {16, 48, 272, 0}};
const Layout kKMajorBWide[] = {{0, 128, 256, 0}, {0, 16, 256, 3}, {16, 32, 240, 0}};
const Layout kMnMajor[] = {{0, 1024, 128, 0},
                           {0, 2048, 1024, 1},
                           {0, 2048, 512, 2},
                           {0, 2048, 256, 3},
                           {1024, 1024, 2048, 1}};

struct Outputs {
  std::vector<uint8_t> out;
  std::string error;
};

Outputs run(const Module& m, const FixtureKernel& k, const std::vector<uint8_t>& a,
            const std::vector<uint8_t>& b, const std::vector<uint8_t>& ar,
            const std::vector<uint8_t>& d0, const Layout& la, const Layout& lb, int accumulate) {
  auto r = lower_case::run_on_buffers(m, k.name, {&d0, &a, &b, &ar},
                                      {la.off, la.lbo, la.sbo, la.mode, lb.off, lb.lbo, lb.sbo,
                                       lb.mode, static_cast<uint64_t>(accumulate)});
  Outputs o;
  if (!r.ok())
    o.error = r.error().to_string();
  else
    o.out = std::move(*r);
  return o;
}

TEST(PtxLowerInterp, EveryFixtureKernelComputesTheSameBitsAsTheOriginal) {
  SMCOMPAT_REQUIRE_CUDA();
  std::string log;
  const std::string original =
      testing::nvcc_ptx(std::string(SMCOMPAT_SOURCE_DIR) + "/tests/ptx/data/wgmma_kernels.cu",
                        "sm_90a", "wgmma_kernels.interp.ptx", &log);
  ASSERT_FALSE(original.empty()) << log;
  auto lowered = lower(original, *SmTarget::parse("sm_120"));
  ASSERT_TRUE(lowered.ok());
  ASSERT_TRUE(lowered->ok);
  auto m_orig = parse_module(original);
  auto m_low = parse_module(lowered->text);
  ASSERT_TRUE(m_orig.ok() && m_low.ok());

  std::mt19937 rng(20261128);
  size_t runs = 0;
  for (const auto& k : kKernels) {
    SCOPED_TRACE(k.name);
    std::vector<Layout> as, bs;
    if (k.a_mn)
      as.assign(std::begin(kMnMajor), std::end(kMnMajor));
    else
      as.assign(std::begin(kKMajorA), std::end(kKMajorA));
    if (k.b_mn)
      bs.assign(std::begin(kMnMajor), std::end(kMnMajor));
    else if (k.d_regs * (k.f16_accumulator ? 4u : 2u) > 64u)  // N > 64: at most 256 B a group
      bs.assign(std::begin(kKMajorBWide), std::end(kKMajorBWide));
    else
      bs.assign(std::begin(kKMajorA), std::end(kKMajorA));
    for (size_t i = 0; i < std::max(as.size(), bs.size()); ++i) {
      const Layout& la = as[i % as.size()];
      const Layout& lb = bs[(i * 3 + 1) % bs.size()];
      for (int accumulate : {0, 1}) {
        std::vector<uint8_t> a(8192), b(8192), ar(128 * 16), d0(128 * 4 * k.d_regs);
        fill(a, k.type, rng);
        fill(b, k.type, rng);
        fill(ar, k.type, rng);
        fill(d0, k.f16_accumulator ? Elem::kF16 : Elem::kTF32, rng);  // f32 / f16x2 small ints
        const Outputs want = run(*m_orig, k, a, b, ar, d0, la, lb, accumulate);
        const Outputs got = run(*m_low, k, a, b, ar, d0, la, lb, accumulate);
        ASSERT_EQ(want.error, "") << "layout " << i;
        ASSERT_EQ(got.error, "") << "layout " << i;
        ASSERT_EQ(want.out.size(), got.out.size());
        size_t differ = 0, nonzero = 0;  // in 32-bit words
        for (size_t j = 0; j + 3 < want.out.size(); j += 4) {
          uint32_t w, g;
          std::memcpy(&w, &want.out[j], 4);
          std::memcpy(&g, &got.out[j], 4);
          differ += w != g;
          nonzero += w != 0;
        }
        EXPECT_EQ(differ, 0u) << "layout " << i << " (A mode " << la.mode << ", B mode " << lb.mode
                              << "), accumulate " << accumulate;
        EXPECT_GT(nonzero, want.out.size() / 4 / 2) << "the inputs must not make D trivially zero";
        ++runs;
      }
    }
  }
  EXPECT_GE(runs, 100u);
}

// The fuzz target's seeds (fuzz/corpus/ptx_lower: one per input type and operand form) are valid
// cases, and each computes the same bits lowered.
TEST(PtxLowerInterp, FuzzSeedsAreValidCasesAndAgree) {
  size_t wgmma = 0, tcgen05 = 0;
  for (const auto& e : std::filesystem::directory_iterator(
           std::filesystem::path(SMCOMPAT_SOURCE_DIR) / "fuzz/corpus/ptx_lower")) {
    SCOPED_TRACE(e.path().filename().string());
    const std::string bytes = testing::read_file(e.path());
    const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
    // The 12-byte seeds are wgmma cases; the 19-byte ones tcgen05 cases (and what wgmma case
    // their first bytes make, if any).
    auto c = lower_case::decode(data, bytes.size());
    if (bytes.size() < tcgen05_case::kBytes) ASSERT_TRUE(c.has_value());
    if (c) {
      const lower_case::Outcome o = lower_case::run(*c);
      EXPECT_EQ(o.error, "");
      EXPECT_EQ(o.differ, 0u);
      EXPECT_GT(o.nonzero, 0u);
      wgmma += bytes.size() < tcgen05_case::kBytes;
    }
    if (auto f = tcgen05_case::decode(data, bytes.size())) {
      const tcgen05_case::Outcome o = tcgen05_case::run(*f);
      EXPECT_EQ(o.error, "") << tcgen05_case::describe(*f);
      EXPECT_EQ(o.differ, 0u) << tcgen05_case::describe(*f);
      EXPECT_GT(o.written, 0u);
      ++tcgen05;
    }
  }
  EXPECT_EQ(wgmma, 9u);
  EXPECT_EQ(tcgen05, 6u);
}

// Random wgmma forms and layouts, written as PTX by hand (no toolkit needed): the fuzz target's
// cases (fuzz/ptx_lower_case.hpp), here from a fixed seed.
TEST(PtxLowerInterp, RandomFormsAndLayoutsComputeTheSameBits) {
  std::mt19937 rng(30);
  size_t cases = 0, words = 0;
  std::vector<uint8_t> bytes(12);
  std::array<size_t, 5> per_type{};
  while (cases < 120) {
    for (auto& x : bytes) x = static_cast<uint8_t>(rng());
    auto c = lower_case::decode(bytes.data(), bytes.size());
    if (!c) continue;
    const lower_case::Outcome o = lower_case::run(*c);
    ASSERT_EQ(o.error, "") << o.original;
    ASSERT_EQ(o.differ, 0u) << o.original;
    ASSERT_GT(o.nonzero, 0u) << o.original;
    words += o.words;
    ++per_type[static_cast<size_t>(c->type)];
    ++cases;
  }
  for (size_t t = 0; t < per_type.size(); ++t) EXPECT_GT(per_type[t], 5u) << "type " << t;
  EXPECT_GT(words, 100000u);
}

}  // namespace
}  // namespace smcompat::ptx
