// Run-time variant rules from data/python_packages.json applied to library lists: which
// bitsandbytes library loads for a torch CUDA version (rules read from bitsandbytes 0.45.2 and
// 0.50.2 cextension.py), and that every row cites a source listed in the file.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "smcompat/doctor/doctor.hpp"

using namespace smcompat;
using namespace smcompat::doctor;

namespace {

Distribution bnb(const std::string& version, const std::vector<std::string>& files) {
  Distribution d;
  d.name = "bitsandbytes";
  d.version = version;
  for (auto& f : files) d.shared_libraries.push_back("/sp/bitsandbytes/" + f);
  return d;
}

std::string chosen_file(const VariantChoice& c) {
  return c.chosen.empty() ? "" : c.chosen.substr(c.chosen.rfind('/') + 1);
}

}  // namespace

TEST(RuntimeVariants, RuleRowsByRelease) {
  const auto& k = PackageKnowledge::builtin();
  auto* old_rule = k.variant_rule("bitsandbytes", "0.45.2");
  auto* new_rule = k.variant_rule("bitsandbytes", "0.50.2");
  ASSERT_NE(old_rule, nullptr);
  ASSERT_NE(new_rule, nullptr);
  EXPECT_FALSE(old_rule->same_major_nearest);
  EXPECT_TRUE(new_rule->same_major_nearest);
  EXPECT_EQ(k.variant_rule("bitsandbytes", "0.51.0"), new_rule);
  EXPECT_EQ(k.variant_rule("bitsandbytes", "0.44.1"), old_rule);  // older: the first row
  EXPECT_EQ(k.variant_rule("torch", "2.15.0"), nullptr);
}

TEST(RuntimeVariants, ExactRuleHasNoFallback) {
  const auto& k = PackageKnowledge::builtin();
  auto d = bnb("0.45.2", {"libbitsandbytes_cpu.so", "libbitsandbytes_cuda124.so",
                          "libbitsandbytes_cuda126.so"});
  auto c = choose_variant(*k.variant_rule("bitsandbytes", "0.45.2"), d, Version{12, 8}, {});
  EXPECT_EQ(chosen_file(c), "");
  EXPECT_EQ(c.wanted_name, "libbitsandbytes_cuda128.so");
  EXPECT_EQ(c.alternatives.size(), 3u);
  auto exact = choose_variant(*k.variant_rule("bitsandbytes", "0.45.2"), d, Version{12, 6}, {});
  EXPECT_EQ(chosen_file(exact), "libbitsandbytes_cuda126.so");
  EXPECT_EQ(exact.how, "exact match");
  // An empty override is ignored by 0.45.2 (`if override_value:`).
  auto empty = choose_variant(*k.variant_rule("bitsandbytes", "0.45.2"), d, Version{12, 6},
                              {{"BNB_CUDA_VERSION", ""}});
  EXPECT_EQ(chosen_file(empty), "libbitsandbytes_cuda126.so");
}

TEST(RuntimeVariants, SameMajorNearestRule) {
  const auto& k = PackageKnowledge::builtin();
  const auto& rule = *k.variant_rule("bitsandbytes", "0.50.2");
  auto d = bnb("0.50.2", {"libbitsandbytes_cuda121.so", "libbitsandbytes_cuda128.so",
                          "libbitsandbytes_cuda130.so", "libbitsandbytes_rocm72.so"});
  EXPECT_EQ(chosen_file(choose_variant(rule, d, Version{12, 9}, {})), "libbitsandbytes_cuda128.so");
  EXPECT_EQ(chosen_file(choose_variant(rule, d, Version{12, 0}, {})), "libbitsandbytes_cuda121.so");
  EXPECT_EQ(chosen_file(choose_variant(rule, d, Version{13, 2}, {})), "libbitsandbytes_cuda130.so");
  auto none = choose_variant(rule, d, Version{11, 8}, {});  // never another major
  EXPECT_EQ(chosen_file(none), "");
  EXPECT_NE(none.problem.find("No compatible CUDA binary"), std::string::npos) << none.problem;
  // The override names one exactly, with no fallback; an empty one is an error in 0.50.2.
  EXPECT_EQ(chosen_file(choose_variant(rule, d, Version{13, 2}, {{"BNB_CUDA_VERSION", "121"}})),
            "libbitsandbytes_cuda121.so");
  EXPECT_EQ(chosen_file(choose_variant(rule, d, Version{13, 2}, {{"BNB_CUDA_VERSION", "129"}})),
            "");
  auto empty = choose_variant(rule, d, Version{13, 2}, {{"BNB_CUDA_VERSION", ""}});
  EXPECT_EQ(chosen_file(empty), "");
  EXPECT_NE(empty.problem.find("not digits"), std::string::npos);
  auto c = choose_variant(rule, d, Version{13, 0}, {});
  ASSERT_EQ(c.alternatives.size(), 3u);
  EXPECT_EQ(c.alternatives.back(),
            "libbitsandbytes_rocm72.so (ROCm (AMD, loaded only under a ROCm torch))");
}

TEST(RuntimeVariants, EveryRowCitesAListedSource) {
  const auto& k = PackageKnowledge::builtin();
  ASSERT_FALSE(k.variant_rules.empty());
  ASSERT_FALSE(k.variant_releases.empty());
  // The sources are the keys of "sources" in data/python_packages.json.
  for (auto& r : k.variant_rules) EXPECT_TRUE(r.source == "BNB0452" || r.source == "BNB0502");
  for (auto& r : k.variant_releases) {
    EXPECT_FALSE(r.cuda.empty()) << r.version;
    EXPECT_TRUE(r.source == "BNB0452" || r.source == "BNB0502");
  }
}
