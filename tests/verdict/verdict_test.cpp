// Verdicts over hand-built inventories: the image choice within a unit (working model of
// compatibility-rules.md 7), file verdicts with partial coverage, and target parsing.
#include "smcompat/verdict/verdict.hpp"

#include <gtest/gtest.h>

#include "support/synth.hpp"
#include "support/targets.hpp"

namespace smcompat {
namespace {

using synth::Entry;

// A .fatbin file holding one container per list of entries.
struct Built {
  std::vector<uint8_t> bytes;
  FileInventory inv;
};
Built build(const std::vector<std::vector<Entry>>& containers) {
  Built b;
  for (const auto& c : containers) {
    auto bytes = synth::container(c);
    b.bytes.insert(b.bytes.end(), bytes.begin(), bytes.end());
  }
  auto invs = inspect_buffer(ByteView(b.bytes.data(), b.bytes.size(), 0), "t.fatbin", {});
  b.inv = invs.at(0);
  return b;
}
using testtargets::T;
Entry A(uint32_t arch) { return synth::sass_entry(arch, 0x100000); }  // sm_XXa
Entry F(uint32_t arch) { return synth::sass_entry(arch, 0x200000); }  // sm_XXf

TEST(UnitChoice, ExactSassBeatsCompatibleBeatsPtx) {
  auto b = build({{synth::sass_entry(80), synth::sass_entry(86), synth::ptx_entry(80, "sm_80")}});
  auto v = judge_file(b.inv, T("8.6"));
  ASSERT_EQ(v.units.size(), 1u);
  EXPECT_EQ(v.units[0].verdict, Fit::kNative);
  EXPECT_EQ(b.inv.images[*v.units[0].chosen].target.to_string(), "sm_86");
  auto v89 = judge_file(b.inv, T("8.9"));  // sm_86 is the highest compatible SASS
  EXPECT_EQ(v89.units[0].verdict, Fit::kCompatibleSass);
  EXPECT_EQ(b.inv.images[*v89.units[0].chosen].target.to_string(), "sm_86");
  auto v90 = judge_file(b.inv, T("9.0"));  // other major: only the PTX bridges it
  EXPECT_EQ(v90.units[0].verdict, Fit::kPtxJit);
  EXPECT_EQ(b.inv.images[*v90.units[0].chosen].target.to_string(), "compute_80");
}

TEST(UnitChoice, HighestCompatiblePtxWins) {
  auto b = build({{synth::ptx_entry(75, "sm_75"), synth::ptx_entry(90, "sm_90"),
                   synth::ptx_entry(120, "sm_120")}});
  auto v = judge_file(b.inv, T("RTX 5090"));
  EXPECT_EQ(b.inv.images[*v.units[0].chosen].target.to_string(), "compute_120");
  auto h = judge_file(b.inv, T("H100"));
  EXPECT_EQ(b.inv.images[*h.units[0].chosen].target.to_string(), "compute_90");
}

TEST(UnitChoice, ArchSpecificAndFamilyTargets) {
  auto b = build({{A(90), synth::sass_entry(80)}, {F(120)}, {A(100), F(100)}});
  auto h100 = judge_file(b.inv, T("H100"));
  EXPECT_EQ(h100.units[0].verdict, Fit::kNative);
  EXPECT_EQ(b.inv.images[*h100.units[0].chosen].target.to_string(), "sm_90a");
  auto gb10 = judge_file(b.inv, T("GB10"));  // 12.1: sm_120f is in its family
  EXPECT_EQ(gb10.units[1].verdict, Fit::kCompatibleSass);
  EXPECT_EQ(gb10.units[0].verdict, Fit::kNoImage);
  EXPECT_FALSE(gb10.units[0].specialized_elsewhere);  // has a generic sm_80 image
  EXPECT_EQ(gb10.units[2].verdict, Fit::kNoImage);
  EXPECT_TRUE(gb10.units[2].specialized_elsewhere);  // only sm_100a/sm_100f
  EXPECT_EQ(gb10.specialized_elsewhere, 1u);
  auto b300 = judge_file(b.inv, T("B300"));  // 10.3: sm_100f yes, sm_100a no
  EXPECT_EQ(b300.units[2].verdict, Fit::kCompatibleSass);
  EXPECT_EQ(b.inv.images[*b300.units[2].chosen].target.to_string(), "sm_100f");
}

TEST(FileVerdict, PartialCoverageIsToldApart) {
  auto b = build({{synth::sass_entry(120)}, {synth::sass_entry(90)}, {A(90)}});
  auto v = judge_file(b.inv, T("RTX 5090"));
  EXPECT_EQ(v.verdict, Fit::kNative);
  EXPECT_TRUE(v.partial);
  EXPECT_EQ(v.units_without_image, 2u);
  EXPECT_EQ(v.specialized_elsewhere, 1u);
  EXPECT_EQ(v.unit_counts[static_cast<size_t>(Fit::kNative)], 1u);
  EXPECT_EQ(v.summary,
            "1 of 3 units run (1 native); 2 have no image for 12.0 (1 of them a/f-specific "
            "code for other GPUs)");
}

TEST(FileVerdict, NothingFitsIsNoImage) {
  // A cu126-style build: sm_50 ... sm_90 SASS and no PTX, on an RTX 5090.
  auto b = build({{synth::sass_entry(50), synth::sass_entry(80), synth::sass_entry(90)}});
  auto v = judge_file(b.inv, T("RTX 5090"));
  EXPECT_EQ(v.verdict, Fit::kNoImage);
  EXPECT_FALSE(v.partial);
  EXPECT_EQ(v.summary, "none of 1 units has an image for 12.0");
  EXPECT_EQ(v.units[0].reason, "no compatible SASS and no usable PTX (offers sm_50, sm_80, sm_90)");
  // With +PTX the same build JITs.
  auto jit =
      build({{synth::sass_entry(80), synth::sass_entry(90), synth::ptx_entry(90, "sm_90", 8, 5)}});
  EXPECT_EQ(judge_file(jit.inv, T("RTX 5090")).verdict, Fit::kPtxJit);
}

TEST(FileVerdict, EmptyContainerSaysSo) {
  // A container header without entries beside one with PTX (what the static CUDA runtime leaves
  // in a library built with PTX only).
  auto b = build({{}, {synth::ptx_entry(80, "sm_80", 9, 0)}});
  ASSERT_EQ(b.inv.containers.size(), 2u);
  auto v = judge_file(b.inv, T("RTX 5090"));
  EXPECT_EQ(v.verdict, Fit::kPtxJit);
  EXPECT_EQ(v.units[0].reason, "an empty fatbin container: it holds no code for any GPU");
}

TEST(FileVerdict, LtoOnlyCannotLoad) {
  Entry lto = synth::sass_entry(120);
  lto.kind = 8;
  auto b = build({{lto}});
  auto v = judge_file(b.inv, T("sm_120"));
  EXPECT_EQ(v.verdict, Fit::kNoImage);
  EXPECT_EQ(v.units[0].reason, "only LTO-IR (lto_120), which the driver cannot load");
}

TEST(FileVerdict, PtxNewerThanDriverIsUnsupported) {
  auto b = build({{synth::sass_entry(90), synth::ptx_entry(90, "sm_90", 9, 0)}});
  EXPECT_EQ(judge_file(b.inv, T("RTX 5090", "12.8")).verdict, Fit::kUnsupportedPtx);
  EXPECT_EQ(judge_file(b.inv, T("RTX 5090", "570.124.06")).verdict, Fit::kUnsupportedPtx);
  EXPECT_EQ(judge_file(b.inv, T("RTX 5090", "580.65.06")).verdict, Fit::kPtxJit);
  EXPECT_EQ(judge_file(b.inv, T("RTX 5090")).verdict, Fit::kPtxJit);  // driver unknown
  // Native SASS needs no JIT, whatever the driver.
  EXPECT_EQ(judge_file(b.inv, T("H100", "12.0")).verdict, Fit::kNative);
}

TEST(Target, ParsesGpusArchsAndDrivers) {
  auto t = T("RTX 5090");
  EXPECT_EQ(t.cc, (ComputeCapability{12, 0}));
  ASSERT_NE(t.gpu, nullptr);
  EXPECT_EQ(t.label, "GeForce RTX 5090 (12.0)");
  EXPECT_EQ(T("5090").cc, (ComputeCapability{12, 0}));
  EXPECT_EQ(T("sm_121").label, "sm_121 (12.1)");
  EXPECT_EQ(T("12.0").gpu, nullptr);
  EXPECT_EQ(T("sm_90a").cc, (ComputeCapability{9, 0}));
  EXPECT_EQ(T("B200").cc, (ComputeCapability{10, 0}));
  EXPECT_EQ(T("120").cc, (ComputeCapability{12, 0}));
  EXPECT_EQ(T("H100", "12.8").driver_cuda, (Version{12, 8}));
  EXPECT_EQ(T("H100", "580.95.05").driver_cuda, (Version{13, 0}));
  EXPECT_EQ(T("H100", "12080").driver_cuda, (Version{12, 8}));  // cuDriverGetVersion's integer
  EXPECT_EQ(T("H100", "570.26").driver_cuda, (Version{12, 8}));
  auto bad = resolve_target("RTX 9999");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().what.find("unknown GPU"), std::string::npos);
  auto ambiguous = resolve_target("A100 80GB");  // two products share these words
  EXPECT_TRUE(ambiguous || ambiguous.error().what.find("did you mean") != std::string::npos);
  EXPECT_FALSE(resolve_target("sm_999"));
  EXPECT_FALSE(resolve_target("H100", "banana"));
  EXPECT_FALSE(resolve_target("H100", "375.26"));  // older than every release in the catalog
}

}  // namespace
}  // namespace smcompat
