// The planner's rules: GPU sets from --gpus, which candidate plans exist, which cannot run and
// why (DeepEP without NVLink, DeepGEMM's architectures, FP8 blocks split by TP), the ranking,
// and the advice when nothing fits.
#include "smcompat/plan/plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace smcompat::plan {
namespace {

ModelSpec model(const std::string& name) {
  auto m =
      read_model_config(std::string(SMCOMPAT_SOURCE_DIR) + "/tests/plan/configs/" + name + ".json");
  EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().to_string());
  return m.ok() ? *m : ModelSpec{};
}

GpuSet gpus(const std::string& spec) {
  auto sets = parse_gpu_sets(spec, Catalog::builtin());
  EXPECT_TRUE(sets.ok()) << (sets.ok() ? "" : sets.error().to_string());
  return sets.ok() && !sets->empty() ? sets->front() : GpuSet{};
}

PlanRequest request(const std::string& config, const std::string& spec) {
  PlanRequest rq;
  rq.model = model(config);
  rq.gpus = gpus(spec);
  return rq;
}

const PlanEstimate* find(const std::vector<PlanEstimate>& plans, const std::string& name) {
  for (const auto& p : plans)
    if (p.shape.name() == name) return &p;
  return nullptr;
}

bool mentions(const std::vector<std::string>& lines, const std::string& text) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return l.find(text) != std::string::npos; });
}

TEST(GpuSets, CountsNamesLinksAndSeveralSets) {
  auto sets = parse_gpu_sets("8xH100, 4x\"RTX PRO 6000\",2xRTX 5090:nop2p, 2x'A40':p2p",
                             Catalog::builtin());
  ASSERT_TRUE(sets.ok()) << sets.error().to_string();
  ASSERT_EQ(sets->size(), 4u);
  EXPECT_EQ((*sets)[0].count, 8);
  EXPECT_EQ((*sets)[0].gpu->name, "H100 SXM");
  EXPECT_EQ((*sets)[0].link.kind, LinkKind::kNvlink);
  EXPECT_DOUBLE_EQ((*sets)[0].link.gbs_per_direction, 450);
  EXPECT_EQ((*sets)[0].memory_bytes, 80ull << 30);
  EXPECT_EQ((*sets)[1].gpu->name, "RTX PRO 6000 Blackwell");
  EXPECT_EQ((*sets)[1].link.kind, LinkKind::kPcieP2p);  // a workstation card: P2P by default
  EXPECT_DOUBLE_EQ((*sets)[1].link.gbs_per_direction, 63);
  EXPECT_EQ((*sets)[1].pcie_gen, 5);
  EXPECT_EQ((*sets)[2].gpu->name, "GeForce RTX 5090");
  EXPECT_EQ((*sets)[2].link.kind, LinkKind::kPcieHost);
  EXPECT_DOUBLE_EQ((*sets)[2].link.gbs_per_direction, 31.5);
  EXPECT_EQ((*sets)[3].gpu->name, "A40");
  EXPECT_DOUBLE_EQ((*sets)[3].link.gbs_per_direction, 31.5);  // PCIe Gen4 x16
  EXPECT_EQ((*sets)[1].label(), "4x RTX PRO 6000 Blackwell");
  // A GeForce card without a suffix: no P2P (the driver does not offer it on these cards).
  EXPECT_EQ(gpus("2xRTX 5090").link.kind, LinkKind::kPcieHost);
}

TEST(GpuSets, BadSpecsAreErrorsThatSayWhy) {
  auto unknown = parse_gpu_sets("4xRTX 9090", Catalog::builtin());
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().what.find("unknown GPU 'RTX 9090'"), std::string::npos);
  auto ambiguous = parse_gpu_sets("8xA100", Catalog::builtin());  // exact alias: fine
  EXPECT_TRUE(ambiguous.ok());
  for (const char* bad : {"", "H100", "0xH100", "x H100", "2000xH100", "8xH100:infiniband",
                          "4xRTX PRO 6000:nvlink"}) {
    auto r = parse_gpu_sets(bad, Catalog::builtin());
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) EXPECT_NE(r.error().what.find("--gpus"), std::string::npos) << bad;
  }
}

TEST(Candidates, EveryFactorisationWithItsExpertModes) {
  auto plans = rank_plans(request("Qwen__Qwen3-30B-A3B", "4x\"RTX PRO 6000\""));
  std::vector<std::string> names;
  for (const auto& p : plans) names.push_back(p.shape.name());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{
                       "DP2xTP2", "DP4", "DP4 attention+EP4 (allgather-reducescatter)",
                       "DP4 attention+EP4 (deepep)", "PP2xTP2", "PP2xTP2+EP2", "PP4xTP1",
                       "TP2xDP2 attention+EP4 (allgather-reducescatter)",
                       "TP2xDP2 attention+EP4 (deepep)", "TP4", "TP4+EP4"}));
}

TEST(Runnable, DeepEpNeedsNvlinkAndDeepGemmArchitectures) {
  auto pcie = rank_plans(request("Qwen__Qwen3-30B-A3B", "4x\"RTX PRO 6000\""));
  const PlanEstimate* deepep = find(pcie, "DP4 attention+EP4 (deepep)");
  ASSERT_NE(deepep, nullptr);
  EXPECT_FALSE(deepep->runnable);
  EXPECT_FALSE(deepep->fits);
  EXPECT_TRUE(mentions(deepep->why_not, "DeepEP needs NVLink"));
  EXPECT_TRUE(mentions(deepep->why_not, "sm_120 has neither"));
  // The same plan on H100s: NVLink and sm_90a's wgmma, so it runs (and Qwen3-30B-A3B fits).
  auto nvlink = rank_plans(request("Qwen__Qwen3-30B-A3B", "8xH100"));
  const PlanEstimate* h100 = find(nvlink, "DP8 attention+EP8 (deepep)");
  ASSERT_NE(h100, nullptr);
  EXPECT_TRUE(h100->runnable);
  EXPECT_TRUE(h100->fits);
  EXPECT_TRUE(h100->why_not.empty());
}

TEST(Runnable, Fp8BlocksMustStayWholeUnderTensorParallelism) {
  // Qwen3-235B-A22B-FP8: expert width 1536 in 128-wide blocks. TP8 leaves 192 per rank: the
  // engines refuse it; TP4 leaves 384 = 3 blocks.
  auto eight = rank_plans(request("Qwen__Qwen3-235B-A22B-FP8", "8xH200"));
  const PlanEstimate* tp8 = find(eight, "TP8");
  ASSERT_NE(tp8, nullptr);
  EXPECT_FALSE(tp8->runnable);
  EXPECT_TRUE(mentions(tp8->why_not, "1536 over TP8 is 192 per rank"));
  const PlanEstimate* tp8ep = find(eight, "TP8+EP8");
  ASSERT_NE(tp8ep, nullptr);
  EXPECT_TRUE(tp8ep->runnable);  // whole experts: nothing is split
  auto four = rank_plans(request("Qwen__Qwen3-235B-A22B-FP8", "4x\"RTX PRO 6000\""));
  const PlanEstimate* tp4 = find(four, "TP4");
  ASSERT_NE(tp4, nullptr);
  EXPECT_TRUE(tp4->runnable);
  EXPECT_TRUE(tp4->fits);
}

TEST(Ranking, FittingPlansFirstByOutputThroughput) {
  auto plans = rank_plans(request("Qwen__Qwen3-235B-A22B-FP8", "4x\"RTX PRO 6000\""));
  ASSERT_FALSE(plans.empty());
  bool seen_unfit = false;
  for (size_t i = 0; i < plans.size(); ++i) {
    if (!plans[i].fits) seen_unfit = true;
    EXPECT_FALSE(seen_unfit && plans[i].fits) << "a fitting plan after one that does not fit";
    if (i > 0 && plans[i].fits)
      EXPECT_GE(plans[i - 1].output_tokens_per_s, plans[i].output_tokens_per_s);
  }
  ASSERT_TRUE(plans[0].fits);
  std::string why = why_wins(plans[0], plans[1]);
  EXPECT_NE(why.find(plans[0].shape.name()), std::string::npos) << why;
  EXPECT_NE(why.find(plans[1].shape.name()), std::string::npos) << why;
}

TEST(FitsNowhere, DeepSeekV3OnFourRtxPro6000) {
  PlanRequest rq = request("deepseek-ai__DeepSeek-V3", "4x\"RTX PRO 6000\"");
  auto plans = rank_plans(rq);
  ASSERT_FALSE(plans.empty());
  for (const auto& p : plans) {
    EXPECT_FALSE(p.fits) << p.shape.name();
    EXPECT_TRUE(mentions(p.why_not, "per GPU")) << p.shape.name();
  }
  FitAdvice advice = fit_advice(rq);
  // 671B parameters in FP8: ~672 GB of weights; four GPUs offer 4 x (96 GiB - 11.6 GiB).
  EXPECT_GT(advice.weights_bytes, 670e9);
  EXPECT_LT(advice.weights_bytes, 690e9);
  EXPECT_GT(advice.weights_bytes, advice.usable_bytes);
  ASSERT_TRUE(advice.gpus_needed.has_value());
  // Eight hold the weights (84 GB each) but not the reserve (11.6 GiB) and 64 sequences of 2048
  // tokens on top; ten do (TP2 x DP5 attention + EP10).
  EXPECT_EQ(*advice.gpus_needed, 10);
  PlanRequest eight = rq;
  eight.gpus.count = 8;
  eight.workload.batch = 16;
  auto at_16 = rank_plans(eight);
  ASSERT_FALSE(at_16.empty());
  EXPECT_TRUE(at_16.front().fits) << "8 GPUs at 16 sequences";
  // Even 4-bit weights (~0.52-0.56 bytes per parameter: 350-380 GB) do not fit 4 x 84 GiB.
  EXPECT_TRUE(advice.formats_that_fit.empty());
}

TEST(FitsNowhere, AdviceNamesTheSmallerFormatThatFits) {
  // Qwen3-235B-A22B in BF16 (470 GB) on 4 x 96 GB: FP8 fits (the released FP8 checkpoint).
  PlanRequest rq = request("Qwen__Qwen3-235B-A22B-FP8", "4x\"RTX PRO 6000\"");
  rq.model.expert_format = WeightFormat::kBf16;
  rq.model.attention_format = WeightFormat::kBf16;
  for (const auto& p : rank_plans(rq)) EXPECT_FALSE(p.fits) << p.shape.name();
  FitAdvice advice = fit_advice(rq);
  ASSERT_FALSE(advice.formats_that_fit.empty());
  EXPECT_EQ(advice.formats_that_fit.front(), WeightFormat::kFp8);
}

}  // namespace
}  // namespace smcompat::plan
