// TensorRT-LLM's attention DP (issue 31): every plan ranked for --engine trtllm has a command that
// runs that plan. enable_attention_dp makes each of tp_size ranks an attention rank of its own, and
// trtllm-serve has no all-to-all switch, so TP4xDP2 / TP2xDP4 attention and the DeepEP twin of an
// all-gather plan are marked "not expressible on trtllm" and ranked last; the plans left have
// pairwise distinct commands (argv and options file). vLLM and SGLang keep every plan.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>

#include "smcompat/plan/engine.hpp"
#include "smcompat/plan/serving.hpp"

namespace smcompat {
namespace {

plan::PlanRequest request(const std::string& config, const std::string& gpus) {
  plan::PlanRequest rq;
  auto m = plan::read_model_config(std::string(SMCOMPAT_SOURCE_DIR) + "/tests/plan/configs/" +
                                   config + ".json");
  EXPECT_TRUE(m.ok());
  if (m.ok()) rq.model = *m;
  auto sets = plan::parse_gpu_sets(gpus, Catalog::builtin());
  EXPECT_TRUE(sets.ok());
  if (sets.ok()) rq.gpus = sets->front();
  return rq;
}

PlanReport report(plan::Engine engine) {
  plan::PlanRequest rq = request("deepseek-ai__DeepSeek-V3", "8xB200");
  PlanReportOptions o;
  o.engine = engine;
  o.model_id = "deepseek-ai/DeepSeek-V3";
  auto r = build_plan_report(rq, {rq.gpus}, o);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().to_string());
  return r.ok() ? std::move(*r) : PlanReport{};
}

TEST(TrtllmAttentionDp, EveryRankedPlanHasItsOwnCommand) {
  PlanReport r = report(plan::Engine::kTrtllm);
  ASSERT_EQ(r.sets.size(), 1u);
  const PlanSetResult& s = r.sets.front();
  ASSERT_EQ(s.plans.size(), s.commands.size());
  std::set<std::pair<std::string, std::string>> seen;
  int ranked = 0, dropped = 0;
  for (size_t i = 0; i < s.plans.size(); ++i) {
    const auto& p = s.plans[i];
    auto why = plan::not_expressible(plan::Engine::kTrtllm, p.shape);
    if (why) {
      ++dropped;
      EXPECT_FALSE(p.fits) << p.shape.name();
      ASSERT_FALSE(p.why_not.empty());
      EXPECT_EQ(p.why_not.front(), *why);
      EXPECT_EQ(why->rfind("not expressible on trtllm", 0), 0u) << *why;
      continue;
    }
    if (!p.fits) continue;
    ++ranked;
    std::string files;
    for (const auto& f : s.commands[i].extra_files) files += f;
    EXPECT_TRUE(seen.emplace(s.commands[i].shell(), files).second)
        << p.shape.name() << " has the command of another ranked plan: " << s.commands[i].shell();
  }
  EXPECT_GT(ranked, 3);
  EXPECT_GT(dropped, 0);
  // The best plan is one trtllm-serve runs as costed.
  ASSERT_NE(s.best(), nullptr);
  EXPECT_FALSE(plan::not_expressible(plan::Engine::kTrtllm, s.best()->shape));
}

TEST(TrtllmAttentionDp, WhichShapesAreNotExpressible) {
  plan::PlanShape tp2dp4{
      2, 4, 1, plan::ExpertMode::kExpertParallel, plan::AllToAll::kAllgatherReduceScatter, true};
  plan::PlanShape dp8{
      1, 8, 1, plan::ExpertMode::kExpertParallel, plan::AllToAll::kAllgatherReduceScatter, true};
  plan::PlanShape dp8_deepep = dp8;
  dp8_deepep.a2a = plan::AllToAll::kDeepEp;
  plan::PlanShape tp8{8, 1, 1, plan::ExpertMode::kExpertParallel, plan::AllToAll::kNone, false};
  EXPECT_TRUE(plan::not_expressible(plan::Engine::kTrtllm, tp2dp4));
  EXPECT_TRUE(plan::not_expressible(plan::Engine::kTrtllm, dp8_deepep));
  EXPECT_FALSE(plan::not_expressible(plan::Engine::kTrtllm, dp8));
  EXPECT_FALSE(plan::not_expressible(plan::Engine::kTrtllm, tp8));
  for (auto e : {plan::Engine::kVllm, plan::Engine::kSglang})
    for (const auto& shape : {tp2dp4, dp8, dp8_deepep, tp8})
      EXPECT_FALSE(plan::not_expressible(e, shape)) << shape.name();
}

}  // namespace
}  // namespace smcompat
