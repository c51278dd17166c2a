// The version-exact answers of `smcompat advise bitsandbytes torch xformers` for an RTX 5090 and a
// GB10 from the shipped index (data/wheel_index.json, built by `smcompat index build` on
// 2026-11-25). Each expected value is what the wheels hold, read from the index's own records
// here (a release's SASS list), so the test fails when the advice and the records part ways; a
// fresh scan of the corpus wheels checks the records themselves (record_corpus_test.cpp).
// Refreshing the index may move "newest" forward: update the versions below with it.
#include <gtest/gtest.h>

#include <algorithm>

#include "smcompat/index/advise.hpp"

namespace smcompat {
namespace {

const WheelRecord* record(const std::string& package, const std::string& version,
                          const std::string& machine) {
  for (const auto& w : builtin_wheel_index().wheels)
    if (w.package == package && w.version == version && w.machine == machine) return &w;
  return nullptr;
}

bool has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

PackageAdvice advice_for(const std::string& package, const char* gpu) {
  auto target = resolve_target(gpu);
  EXPECT_TRUE(target) << gpu;
  auto all = advise(builtin_wheel_index(), {package}, *target, {});
  EXPECT_EQ(all.size(), 1u);
  return all.at(0);
}

// The advice names `recommended` and `first_native` (the oldest release that runs natively).
void expect_recommended_and_first_native(const PackageAdvice& a, const std::string& recommended,
                                         const std::string& first_native) {
  ASSERT_TRUE(a.recommended);
  EXPECT_EQ(*a.recommended, recommended);
  ASSERT_TRUE(a.first_native);
  EXPECT_EQ(*a.first_native, first_native);
}

TEST(AdviseShipped, BitsandbytesOnRtx5090) {
  auto a = advice_for("bitsandbytes", "RTX 5090");
  EXPECT_EQ(a.machine, "x86_64");
  ASSERT_NO_FATAL_FAILURE(expect_recommended_and_first_native(a, "0.50.2", "0.45.3"));
  EXPECT_EQ(a.install_command, "pip install \"bitsandbytes==0.50.2\"");
  EXPECT_FALSE(a.first_native_is_oldest_indexed);
  // The records: 0.45.2 has no sm_120 SASS, 0.45.3 does.
  ASSERT_NE(record("bitsandbytes", "0.45.2", "x86_64"), nullptr);
  ASSERT_NE(record("bitsandbytes", "0.45.3", "x86_64"), nullptr);
  EXPECT_FALSE(has(record("bitsandbytes", "0.45.2", "x86_64")->sass, "sm_120"));
  EXPECT_TRUE(has(record("bitsandbytes", "0.45.3", "x86_64")->sass, "sm_120"));
}

TEST(AdviseShipped, TorchOnRtx5090) {
  auto a = advice_for("torch", "RTX 5090");
  // First native 2.8.0: PyPI's 2.7.x were CUDA 12.6 builds without sm_120.
  ASSERT_NO_FATAL_FAILURE(expect_recommended_and_first_native(a, "2.15.0", "2.8.0"));
  EXPECT_FALSE(has(record("torch", "2.7.1", "x86_64")->sass, "sm_120"));
  EXPECT_TRUE(has(record("torch", "2.8.0", "x86_64")->sass, "sm_120"));
}

// xformers 0.0.35's PyPI wheel carries no sm_120 SASS: its PTX is what an RTX 5090 runs, by JIT.
// 0.0.33's core library has sm_120 SASS (only its FlashAttention-3 library JITs): it runs
// natively, and the roll-up says which units JIT.
TEST(AdviseShipped, XformersOnRtx5090IsJitOnly) {
  auto a = advice_for("xformers", "RTX 5090");
  EXPECT_TRUE(a.indexed);
  EXPECT_EQ(a.newest_native, "0.0.33");
  ASSERT_FALSE(a.jit_only.empty());
  EXPECT_EQ(a.jit_only.front(), "0.0.35");
  ASSERT_TRUE(a.recommended);
  EXPECT_EQ(*a.recommended, "0.0.33");
  ASSERT_FALSE(a.releases.empty());
  EXPECT_EQ(a.releases.front().verdict.fit, Fit::kPtxJit);
  for (const auto& r : a.releases)
    if (r.version == "0.0.33")
      EXPECT_EQ(r.verdict.package.route, "native; 153 units in xformers/flash_attn_3/_C.so JIT");
  const auto* r = record("xformers", "0.0.35", "x86_64");
  ASSERT_NE(r, nullptr);
  EXPECT_FALSE(has(r->sass, "sm_120"));
  EXPECT_FALSE(r->ptx.empty());
}

TEST(AdviseShipped, BitsandbytesOnGb10) {
  auto a = advice_for("bitsandbytes", "GB10");
  EXPECT_EQ(a.machine, "aarch64");
  // First native 0.46.1: sm_120 SASS (compatible with 12.1) from 0.46.1.
  ASSERT_NO_FATAL_FAILURE(expect_recommended_and_first_native(a, "0.50.2", "0.46.1"));
  ASSERT_TRUE(a.newest_native);
  EXPECT_EQ(a.releases.front().verdict.fit, Fit::kNative);  // sm_121 SASS since 0.49.0
  EXPECT_FALSE(has(record("bitsandbytes", "0.46.0", "aarch64")->sass, "sm_120"));
  EXPECT_TRUE(has(record("bitsandbytes", "0.46.1", "aarch64")->sass, "sm_120"));
  EXPECT_TRUE(has(record("bitsandbytes", "0.49.0", "aarch64")->sass, "sm_121"));
}

TEST(AdviseShipped, TorchOnGb10) {
  auto a = advice_for("torch", "GB10");
  // First native 2.11.0: PyPI's aarch64 torch before 2.11 has no CUDA code.
  ASSERT_NO_FATAL_FAILURE(expect_recommended_and_first_native(a, "2.15.0", "2.11.0"));
  EXPECT_EQ(a.releases.front().verdict.fit, Fit::kCompatibleSass);  // sm_120 SASS on 12.1
  EXPECT_TRUE(record("torch", "2.10.0", "aarch64")->sass.empty());
  EXPECT_TRUE(has(record("torch", "2.11.0", "aarch64")->sass, "sm_120"));
}

// PyPI has no aarch64 xformers wheel: nothing to install on a GB10.
TEST(AdviseShipped, XformersOnGb10HasNoWheel) {
  auto a = advice_for("xformers", "GB10");
  EXPECT_FALSE(a.recommended);
  EXPECT_EQ(a.install_command, "");
  for (const auto& w : builtin_wheel_index().wheels)
    if (w.package == "xformers") EXPECT_NE(w.machine, "aarch64") << w.filename;
}

}  // namespace
}  // namespace smcompat
