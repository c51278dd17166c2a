// Relocatable (-rdc) pre-link code in `__nv_relfatbin`: listed, never counted as a loadable unit,
// and used only as the runtime's JIT-link fallback when the device-linked image (.nv_fatbin) has
// no code for the GPU (docs/scan.md, "Pre-link code"). Programs built by nvcc at build time
// (tests/verdict/CMakeLists.txt); the expected images follow from their nvcc flags.
#include <gtest/gtest.h>

#include <filesystem>

#include "smcompat/verdict/verdict.hpp"
#include "support/targets.hpp"

namespace smcompat {
namespace {

FileInventory inventory(const std::string& path) {
  auto invs = inspect_file(path, {});
  EXPECT_EQ(invs.size(), 1u);
  EXPECT_TRUE(invs.at(0).errors.empty());
  return invs.at(0);
}

// `FileInventory inv` of the nvcc-built program `name`; the test skips when it was not built.
#ifdef SMCOMPAT_PRELINK_DIR
#define LOAD_PROGRAM(inv, name)                                                  \
  const std::string inv##_path = std::string(SMCOMPAT_PRELINK_DIR) + "/" + name; \
  if (!std::filesystem::exists(inv##_path))                                      \
    GTEST_SKIP() << "nvcc program missing: " << inv##_path;                      \
  FileInventory inv = inventory(inv##_path)
#else
#define LOAD_PROGRAM(inv, name)                                        \
  GTEST_SKIP() << "nvcc was not found at configure time: no " << name; \
  FileInventory inv
#endif

using testtargets::T;
size_t loadable_units(const FileVerdict& v) {
  size_t n = 0;
  for (size_t c : v.unit_counts) n += c;
  return n;
}

// -gencode arch=compute_80,code=sm_80: the device-linked sm_80 cubin in .nv_fatbin and the pre-link
// sm_80 cubin in __nv_relfatbin. On 8.0 one unit runs, not two.
TEST(Prelink, DeviceLinkedSassCountsOncePrelinkIsListedNotCounted) {
  LOAD_PROGRAM(inv, "rdc_sm80_app");
  FileVerdict v = judge_file(inv, T("8.0"));
  EXPECT_EQ(v.verdict, Fit::kNative);
  EXPECT_FALSE(v.partial);
  EXPECT_EQ(v.prelink_units, 1u);
  EXPECT_EQ(loadable_units(v), 1u);
  EXPECT_EQ(v.unit_counts[static_cast<size_t>(Fit::kNative)], 1u);
  ASSERT_EQ(v.units.size(), 2u);
  for (const auto& u : v.units) {
    EXPECT_EQ(u.loadable, u.section == ".nv_fatbin") << u.section;
    if (!u.loadable) {
      EXPECT_FALSE(u.chosen.has_value());
      EXPECT_NE(u.reason.find("never loaded as a module"), std::string::npos) << u.reason;
    }
  }
  EXPECT_NE(v.summary.find("1 relocatable (-rdc) pre-link containers not counted"),
            std::string::npos)
      << v.summary;
  // No PTX anywhere: on 9.0 neither the linked image nor a JIT link can run.
  FileVerdict v90 = judge_file(inv, T("9.0"));
  EXPECT_EQ(v90.verdict, Fit::kNoImage);
  EXPECT_FALSE(v90.jit_link.has_value());
  EXPECT_FALSE(v90.jit_link_used);
}

// code=[sm_80,compute_80]: nvlink links sm_80 only (the PTX stays pre-link). 8.6 runs the linked
// sm_80 SASS; 9.0 has only the runtime's JIT link of the pre-link PTX.
TEST(Prelink, JitLinkIsTheFallbackWhenTheLinkedImageDoesNotFit) {
  LOAD_PROGRAM(inv, "rdc_sm80_ptx_app");
  FileVerdict v86 = judge_file(inv, T("8.6"));
  EXPECT_EQ(v86.verdict, Fit::kCompatibleSass);
  EXPECT_EQ(v86.jit_link, Fit::kPtxJit);  // possible, but not what happens
  EXPECT_FALSE(v86.jit_link_used);
  FileVerdict v90 = judge_file(inv, T("9.0"));
  EXPECT_EQ(v90.verdict, Fit::kPtxJit);
  EXPECT_TRUE(v90.jit_link_used);
  EXPECT_FALSE(v90.partial);  // the one device-linked image is what the JIT link replaces
  EXPECT_EQ(v90.unit_counts[static_cast<size_t>(Fit::kNoImage)], 1u);
  EXPECT_EQ(loadable_units(v90), 1u);
  EXPECT_NE(v90.summary.find("JIT-link"), std::string::npos) << v90.summary;
}

// code=compute_80 only: nvlink has nothing to link (`nvlink --arch=compute_80` without -o), so the
// device-linked container in .nv_fatbin is empty; the pre-link containers are this program's PTX
// and libcudadevrt's (SASS sm_75..sm_121, compute_121).
TEST(Prelink, PtxOnlyProgramRunsByJitLinkWhereItsPtxCompiles) {
  LOAD_PROGRAM(inv, "rdc_ptx_app");
  size_t empty_linked = 0;
  for (const auto& c : inv.containers)
    if (c.section == ".nv_fatbin" && c.image_count == 0) ++empty_linked;
  EXPECT_EQ(empty_linked, 1u);
  FileVerdict v90 = judge_file(inv, T("9.0"));
  EXPECT_EQ(v90.verdict, Fit::kPtxJit);
  EXPECT_TRUE(v90.jit_link_used);
  EXPECT_FALSE(v90.partial);
  EXPECT_EQ(v90.prelink_units, 2u);
  // compute_80 PTX cannot be compiled for 7.5: the link cannot be completed.
  FileVerdict v75 = judge_file(inv, T("7.5"));
  EXPECT_EQ(v75.verdict, Fit::kNoImage);
  EXPECT_FALSE(v75.jit_link.has_value());
  EXPECT_NE(v75.jit_link_reason.find("1 of 2"), std::string::npos) << v75.jit_link_reason;
}

// nvcc -rdc=true -c: an object before device linking has only __nv_relfatbin and nothing that
// registers it, so it gets no JIT-link fallback although its PTX would compile for 9.0.
TEST(Prelink, ObjectBeforeDeviceLinkingIsNeverHandedToTheRuntime) {
  LOAD_PROGRAM(inv, "rdc_sm80_ptx.o");
  FileVerdict v = judge_file(inv, T("9.0"));
  EXPECT_EQ(v.verdict, Fit::kNoImage);
  EXPECT_EQ(v.prelink_units, 1u);
  EXPECT_EQ(loadable_units(v), 0u);
  EXPECT_FALSE(v.jit_link.has_value());
  EXPECT_NE(v.jit_link_reason.find("no device-linked image"), std::string::npos)
      << v.jit_link_reason;
}

}  // namespace
}  // namespace smcompat
