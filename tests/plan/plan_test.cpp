// The planner's rules: GPU sets from --gpus, which candidate plans exist, which cannot run and
// why (DeepEP without NVLink, DeepGEMM's architectures, FP8 blocks split by TP), the ranking,
// and the advice when nothing fits.
#include "smcompat/plan/plan.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "smcompat/util/strings.hpp"

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

uint64_t whole(double bytes) { return static_cast<uint64_t>(bytes); }

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

// The same rule for every FFN a TP rank holds a slice of: the shared experts and the dense FFN
// too, and a width whose slice is 128 only after integer division (1030 / 8 = 128.75) is refused.
TEST(Runnable, Fp8BlocksOfSharedAndDenseFfnsAndRemainders) {
  PlanRequest rq = request("Qwen__Qwen3-235B-A22B-FP8", "8xH200");
  ASSERT_EQ(rq.model.weight_block, 128);
  PlanShape tp8;
  tp8.tp = 8;
  tp8.experts = ExpertMode::kTpSharded;
  PlanRequest odd = rq;
  odd.model.moe_intermediate = 1030;
  EXPECT_TRUE(mentions(estimate(odd, tp8).why_not, "an expert's width 1030 over TP8 is 128.75"));
  PlanShape ep8 = tp8;
  ep8.experts = ExpertMode::kExpertParallel;
  PlanRequest shared = rq;  // whole routed experts, a shared expert split 8 ways
  shared.model.shared_experts = 1;
  shared.model.shared_intermediate = 1536;
  PlanEstimate e = estimate(shared, ep8);
  EXPECT_FALSE(e.runnable);
  EXPECT_TRUE(mentions(e.why_not, "the shared experts' width 1536 over TP8 is 192 per rank"))
      << (e.why_not.empty() ? "" : e.why_not.front());
  PlanRequest dense = rq;  // DeepSeek-like first dense layers
  dense.model.dense_layers = 3;
  dense.model.moe_layers = 91;
  dense.model.intermediate = 12288 + 64;
  EXPECT_TRUE(mentions(estimate(dense, ep8).why_not, "the dense FFN's width 12352 over TP8"));
  // Per-tensor or per-channel FP8 (no weight_block_size) has no blocks to keep whole.
  PlanRequest per_tensor = rq;
  per_tensor.model.weight_block = 0;
  EXPECT_TRUE(estimate(per_tensor, tp8).runnable);
  // DeepSeek-V3 at TP8: expert 2048 / 8 = 256, shared 256, dense 18432 / 8 = 2304: all whole.
  PlanRequest v3 = request("deepseek-ai__DeepSeek-V3", "8xH200");
  EXPECT_TRUE(estimate(v3, tp8).runnable);
}

// Without the peak the compute format needs, the next wider one the GPU lists; without any, the
// plan says compute time is unknown instead of taking it as 0 silently.
TEST(Peaks, MissingCatalogPeaksFallBackOrAreNoted) {
  PlanRequest rq = request("Qwen__Qwen3-235B-A22B-FP8", "4x\"RTX PRO 6000\"");
  PlanShape tp4;
  tp4.tp = 4;
  tp4.experts = ExpertMode::kTpSharded;
  PlanEstimate with_fp8 = estimate(rq, tp4);
  GpuSpec no_fp8 = *rq.gpus.gpu;
  no_fp8.peak_tflops.erase("fp8");
  rq.gpus.gpu = &no_fp8;
  PlanEstimate bf16 = estimate(rq, tp4);
  EXPECT_TRUE(mentions(bf16.notes, "no fp8 tensor peak")) << ::testing::PrintToString(bf16.notes);
  EXPECT_NEAR(bf16.decode.compute_s, with_fp8.decode.compute_s * 1000 / 504, 1e-12);
  GpuSpec none = no_fp8;
  none.peak_tflops.clear();
  none.bandwidth_gbs.reset();
  rq.gpus.gpu = &none;
  PlanEstimate unknown = estimate(rq, tp4);
  EXPECT_EQ(unknown.decode.compute_s, 0);
  EXPECT_TRUE(mentions(unknown.notes, "compute time is unknown"));
  EXPECT_TRUE(mentions(unknown.notes, "memory time is unknown"));
}

// routing_skew multiplies the busiest rank's load, and the cap (all assignments on one rank, ep x
// the mean) applies after it: the imbalance never exceeds ep.
TEST(Experts, RoutingSkewIsCappedAtEp) {
  PlanRequest rq = request("Qwen__Qwen3-30B-A3B", "4x\"RTX PRO 6000\"");
  const PlanShape ep4{.tp = 1,
                      .dp = 4,
                      .experts = ExpertMode::kExpertParallel,
                      .a2a = AllToAll::kAllgatherReduceScatter,
                      .dp_attention = true};
  double binomial = estimate(rq, ep4).decode.expert_load_imbalance;
  rq.assumptions.routing_skew = 2;
  EXPECT_NEAR(estimate(rq, ep4).decode.expert_load_imbalance, 2 * binomial, 1e-12);
  rq.assumptions.routing_skew = 10;
  EXPECT_DOUBLE_EQ(estimate(rq, ep4).decode.expert_load_imbalance, 4.0);
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
}

// Why the best plan wins, in the sentence the report prints: the term that differs most, with
// both plans' figures. Qwen3-235B-A22B-FP8 on 4xRTX PRO 6000: DP attention over 2 ranks of TP2
// halves what the all-reduce sends over PCIe (the bytes read are about the same), and the
// estimates are within the model's error of each other.
TEST(Ranking, WhyTheBestWinsNamesTheTermThatDecides) {
  auto plans = rank_plans(request("Qwen__Qwen3-235B-A22B-FP8", "4x\"RTX PRO 6000\""));
  ASSERT_GE(plans.size(), 2u);
  const PlanEstimate& best = plans[0];
  ASSERT_EQ(best.shape.name(), "TP2xDP2 attention+EP4 (allgather-reducescatter)");
  // TP4 ranks third since decode reads only the tokens' rows of the embedding (issue 31): DP4
  // attention's whole embedding table per GPU no longer costs it a step's read. The sentence is
  // the one against TP4.
  const PlanEstimate* tp4 = find(plans, "TP4");
  ASSERT_NE(tp4, nullptr);
  const PlanEstimate& next = *tp4;
  const StepCost& a = best.decode;
  const StepCost& b = next.decode;
  EXPECT_GT(b.comm_s - a.comm_s, std::abs(b.memory_s - a.memory_s));
  std::string why = why_wins(best, next);
  EXPECT_NE(why.find("a close call"), std::string::npos) << why;  // 1.06x, under 1.2x
  EXPECT_NE(why.find("each decode step sends 73.9 MB per GPU instead of 147.8 MB"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find(fmt::format("({:.2f} vs {:.2f} ms of communication)", a.comm_s * 1e3,
                                 b.comm_s * 1e3)),
            std::string::npos)
      << why;
}

// A pipeline's decode terms are for the whole step (its pp stage-times), as a plan without stages
// has them: TP4 against PP2xTP2 is decided by what a GPU reads in a step (PP2xTP2's GPUs read
// their half of the layers, split two ways, once per micro-batch), not by comparing one stage's
// time with a whole step.
TEST(Ranking, PipelinePlansCompareTermByTerm) {
  auto plans = rank_plans(request("Qwen__Qwen3-235B-A22B-FP8", "4x\"RTX PRO 6000\""));
  const PlanEstimate* tp4 = find(plans, "TP4");
  const PlanEstimate* pp2 = find(plans, "PP2xTP2");
  ASSERT_NE(tp4, nullptr);
  ASSERT_NE(pp2, nullptr);
  ASSERT_GT(tp4->output_tokens_per_s, pp2->output_tokens_per_s);
  // Per step both read about the whole model's share of a GPU of TP4 (W/4), the pipeline twice.
  EXPECT_GT(pp2->decode.weight_bytes_read, 1.5 * tp4->decode.weight_bytes_read);
  EXPECT_GT(pp2->decode.memory_s, 1.5 * tp4->decode.memory_s);
  EXPECT_NEAR(pp2->tpot_ms, pp2->decode.step_s * 1e3, 1e-9);
  std::string why = why_wins(*tp4, *pp2);
  EXPECT_NE(why.find(fmt::format(
                "each decode step reads {} per GPU instead of {} ({:.2f} vs "
                "{:.2f} ms)",
                human_bytes(whole(tp4->decode.weight_bytes_read + tp4->decode.kv_bytes_read)),
                human_bytes(whole(pp2->decode.weight_bytes_read + pp2->decode.kv_bytes_read)),
                tp4->decode.memory_s * 1e3, pp2->decode.memory_s * 1e3)),
            std::string::npos)
      << why;
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
