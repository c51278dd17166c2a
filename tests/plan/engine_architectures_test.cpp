// Hybrid-model support per engine (data/engine_architectures.json, read from the engines' model
// registries): a plan for an architecture the engine has no model for is "not expressible on
// ENGINE" with the reason and the source; the engines that do serve it rank it as before.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "plan_test_util.hpp"
#include "smcompat/plan/engine.hpp"
#include "smcompat/plan/plan.hpp"
#include "smcompat/plan/serving.hpp"

namespace smcompat::plan {
namespace {

using testing::read;

TEST(EngineArchitectures, JambaIsNotExpressibleOnTensorRtLlm) {
  ModelSpec jamba = read("ai21labs__AI21-Jamba-1.5-Mini");
  EXPECT_EQ(jamba.architecture, "JambaForCausalLM");
  auto why = architecture_not_served(Engine::kTrtllm, jamba);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("not expressible on trtllm: "), std::string::npos) << *why;
  EXPECT_NE(why->find("no Jamba model"), std::string::npos) << *why;
  EXPECT_NE(why->find("github.com/NVIDIA/TensorRT-LLM"), std::string::npos) << *why;
  EXPECT_FALSE(architecture_not_served(Engine::kVllm, jamba));
  EXPECT_FALSE(architecture_not_served(Engine::kSglang, jamba));
  // Nemotron-H and Qwen3-Next have a model in all three engines.
  for (const char* config :
       {"nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", "Qwen__Qwen3-Next-80B-A3B-Thinking"})
    for (Engine e : {Engine::kVllm, Engine::kSglang, Engine::kTrtllm})
      EXPECT_FALSE(architecture_not_served(e, read(config))) << config << " " << to_string(e);
  // An architecture the table does not list is not judged.
  EXPECT_FALSE(architecture_not_served(Engine::kTrtllm, read("Qwen__Qwen3-30B-A3B")));
}

TEST(EngineArchitectures, EveryPlanOfTheReportIsMarkedWithTheReason) {
  PlanRequest rq;
  rq.model = read("ai21labs__AI21-Jamba-1.5-Mini");
  auto sets = parse_gpu_sets("4xH100", Catalog::builtin());
  ASSERT_TRUE(sets.ok());
  PlanReportOptions trt;
  trt.engine = Engine::kTrtllm;
  trt.model_id = "ai21labs/AI21-Jamba-1.5-Mini";
  auto report = build_plan_report(rq, *sets, trt);
  ASSERT_TRUE(report.ok()) << report.error().to_string();
  ASSERT_FALSE(report->sets.empty());
  ASSERT_FALSE(report->sets[0].plans.empty());
  for (const auto& p : report->sets[0].plans) {
    EXPECT_FALSE(p.runnable);
    ASSERT_FALSE(p.why_not.empty());
    EXPECT_NE(p.why_not[0].find("not expressible on trtllm"), std::string::npos) << p.why_not[0];
  }
  PlanReportOptions vllm = trt;
  vllm.engine = Engine::kVllm;
  auto served = build_plan_report(rq, *sets, vllm);
  ASSERT_TRUE(served.ok());
  ASSERT_NE(served->sets[0].best(), nullptr);
}

TEST(EngineArchitectures, EveryRowCitesItsSourceForEachEngine) {
  std::ifstream in(std::string(SMCOMPAT_SOURCE_DIR) + "/data/engine_architectures.json");
  auto doc = nlohmann::json::parse(in, nullptr, false);
  ASSERT_TRUE(doc.is_object());
  ASSERT_TRUE(doc["architectures"].is_array());
  for (const auto& row : doc["architectures"]) {
    SCOPED_TRACE(row.value("architecture", "?"));
    for (const char* e : {"vllm", "sglang", "trtllm"}) {
      ASSERT_TRUE(row["engines"].contains(e)) << e;
      const auto& cell = row["engines"][e];
      EXPECT_TRUE(cell["serves"].is_boolean()) << e;
      EXPECT_EQ(cell.value("source", "").rfind("https://github.com/", 0), 0u) << e;
      EXPECT_EQ(cell.value("seen_at", "").size(), 40u) << e;
      if (!cell.value("serves", true)) EXPECT_FALSE(cell.value("why", "").empty()) << e;
    }
  }
}

}  // namespace
}  // namespace smcompat::plan
