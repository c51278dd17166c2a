// Compatibility rules (../shared/reference/compatibility-rules.md sections 1-6), one test per rule.
#include <gtest/gtest.h>

#include "smcompat/catalog/catalog.hpp"
#include "smcompat/verdict/fit.hpp"

namespace smcompat {
namespace {

const Catalog& cat() { return Catalog::builtin(); }
SmTarget T(const char* s) { return *SmTarget::parse(s); }
ComputeCapability CC(const char* s) { return *ComputeCapability::parse(s); }
Fit fit(const char* image, const char* device) { return fit_image(T(image), CC(device)).fit; }
// Where `image` lands on each device of `on` ({device, fit} pairs).
void expect_fits(const char* image, std::initializer_list<std::pair<const char*, Fit>> on) {
  for (const auto& [device, want] : on)
    EXPECT_EQ(fit(image, device), want) << image << " on " << device;
}

TEST(SassRule, ExactArchIsNative) {
  expect_fits("sm_120", {{"12.0", Fit::kNative}});
  expect_fits("sm_90", {{"9.0", Fit::kNative}});
}

TEST(SassRule, LowerMinorSameMajorIsCompatible) {
  expect_fits("sm_80", {{"8.6", Fit::kCompatibleSass}});
  expect_fits("sm_120", {{"12.1", Fit::kCompatibleSass}});  // GB10 runs sm_120 cubins
  expect_fits("sm_100", {{"10.3", Fit::kCompatibleSass}});  // B300 runs sm_100 cubins
}

TEST(SassRule, HigherMinorIsIncompatible) {
  expect_fits("sm_86", {{"8.0", Fit::kNoImage}});
  expect_fits("sm_121", {{"12.0", Fit::kNoImage}});
}

TEST(SassRule, NeverCrossesMajor) {
  expect_fits("sm_90", {{"12.0", Fit::kNoImage}});
  expect_fits("sm_89", {{"9.0", Fit::kNoImage}});
  expect_fits("sm_100", {{"12.0", Fit::kNoImage}});
  expect_fits("sm_120", {{"10.0", Fit::kNoImage}});
  auto r = fit_image(T("sm_90"), CC("12.0"));
  EXPECT_NE(r.reason.find("never crosses major"), std::string::npos) << r.reason;
}

TEST(ArchSpecificRule, ExactOnly) {
  expect_fits("sm_90a", {{"9.0", Fit::kNative}, {"12.0", Fit::kNoImage}});
  expect_fits("sm_100a", {{"10.3", Fit::kNoImage}});
  expect_fits("sm_120a", {{"12.1", Fit::kNoImage}});
}

TEST(ArchSpecificRule, PtxDoesNotJitForward) {
  expect_fits("compute_90a",
              {{"9.0", Fit::kPtxJit}, {"10.0", Fit::kNoImage}, {"12.0", Fit::kNoImage}});
}

TEST(FamilyRule, Table28) {
  // compute_100f: 10.0, 10.3 (and 10.7 in the newest revision)
  expect_fits("sm_100f", {{"10.0", Fit::kNative},
                          {"10.3", Fit::kCompatibleSass},
                          {"10.7", Fit::kCompatibleSass},
                          {"11.0", Fit::kNoImage},
                          {"12.0", Fit::kNoImage}});
  // compute_103f: 10.3 (and 10.7)
  expect_fits("sm_103f", {{"10.0", Fit::kNoImage}, {"10.3", Fit::kNative}});
  // compute_110f: 11.0 only
  expect_fits("sm_110f", {{"11.0", Fit::kNative}, {"12.0", Fit::kNoImage}});
  // compute_120f: 12.0, 12.1
  expect_fits("sm_120f",
              {{"12.0", Fit::kNative}, {"12.1", Fit::kCompatibleSass}, {"10.0", Fit::kNoImage}});
  // compute_121f: 12.1 only
  expect_fits("sm_121f", {{"12.0", Fit::kNoImage}, {"12.1", Fit::kNative}});
  // PTX with f suffix follows the same family.
  expect_fits("compute_120f", {{"12.1", Fit::kPtxJit}, {"13.0", Fit::kNoImage}});
  expect_fits("compute_100f", {{"12.0", Fit::kNoImage}});
}

TEST(PtxRule, ForwardJit) {
  expect_fits("compute_90", {{"12.0", Fit::kPtxJit}});
  expect_fits("compute_80", {{"8.6", Fit::kPtxJit}});
  expect_fits("compute_120", {{"12.0", Fit::kPtxJit}, {"10.0", Fit::kNoImage}});
  expect_fits("compute_100", {{"12.0", Fit::kPtxJit}});
  expect_fits("compute_86", {{"8.0", Fit::kNoImage}});
}

TEST(PtxRule, IsaNewerThanDriverIsUnsupported) {
  // PTX ISA 9.0 needs CUDA 13.0; a driver for 12.8 cannot JIT it
  // (CUDA_ERROR_UNSUPPORTED_PTX_VERSION).
  auto r = fit_image(T("compute_120"), CC("12.0"), Version{9, 0}, Version{12, 8});
  EXPECT_EQ(r.fit, Fit::kUnsupportedPtx);
  EXPECT_NE(r.reason.find("CUDA 13.0"), std::string::npos) << r.reason;
  EXPECT_EQ(fit_image(T("compute_120"), CC("12.0"), Version{9, 0}, Version{13, 0}).fit,
            Fit::kPtxJit);
  EXPECT_EQ(fit_image(T("compute_120"), CC("12.0"), Version{8, 7}, Version{12, 8}).fit,
            Fit::kPtxJit);
  EXPECT_EQ(fit_image(T("compute_90"), CC("12.0"), Version{8, 8}, Version{12, 8}).fit,
            Fit::kUnsupportedPtx);
  // Without a known driver the rule cannot fire.
  EXPECT_EQ(fit_image(T("compute_120"), CC("12.0"), Version{9, 1}).fit, Fit::kPtxJit);
  // An incompatible arch stays incompatible whatever the driver.
  EXPECT_EQ(fit_image(T("compute_120"), CC("9.0"), Version{9, 1}, Version{12, 0}).fit,
            Fit::kNoImage);
}

TEST(PtxRule, IsaToCudaTable) {
  EXPECT_EQ(cat().min_cuda_for_ptx({8, 7}), (Version{12, 8}));
  EXPECT_EQ(cat().min_cuda_for_ptx({8, 6}), (Version{12, 7}));
  EXPECT_EQ(cat().min_cuda_for_ptx({8, 8}), (Version{12, 9}));
  EXPECT_EQ(cat().min_cuda_for_ptx({9, 1}), (Version{13, 1}));
  EXPECT_EQ(cat().min_cuda_for_ptx({7, 5}), (Version{11, 5}));
  EXPECT_EQ(cat().max_ptx_for_cuda({13, 0}), (Version{9, 0}));
  EXPECT_EQ(cat().max_ptx_for_cuda({12, 6}), (Version{8, 5}));
}

TEST(LtoRule, NeverLoadable) {
  expect_fits("lto_120", {{"12.0", Fit::kNotLoadable}});
  expect_fits("lto_75", {{"7.5", Fit::kNotLoadable}});
}

TEST(DriverTable, MinimumsAndMaximumCuda) {
  const auto* r = cat().cuda_release({12, 8});
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->min_driver_linux->to_string(), "570.26");
  EXPECT_EQ(cat().cuda_release({13, 0})->min_driver_linux->to_string(), "580.65.06");
  EXPECT_EQ(cat().max_cuda_for_driver(*DriverVersion::parse("570.124.06")), (Version{12, 8}));
  EXPECT_EQ(cat().max_cuda_for_driver(*DriverVersion::parse("580.95.05")), (Version{13, 0}));
  EXPECT_EQ(cat().max_cuda_for_driver(*DriverVersion::parse("560.35.03")), (Version{12, 6}));
  EXPECT_EQ(cat().max_cuda_for_driver(*DriverVersion::parse("510.47.03")), (Version{11, 6}));
  EXPECT_EQ(cat().max_cuda_for_driver(*DriverVersion::parse("470.82.01")), (Version{11, 4}));
  EXPECT_FALSE(cat().max_cuda_for_driver(*DriverVersion::parse("375.26")).has_value());
}

TEST(ArchTable, BuildableByRelease) {
  auto v130 = cat().archs_built_by({13, 0});
  EXPECT_EQ(v130, (std::vector<int>{75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121}));
  auto v128 = cat().archs_built_by({12, 8});
  EXPECT_EQ(v128, (std::vector<int>{50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90, 100,
                                    101, 120}));
}

}  // namespace
}  // namespace smcompat
