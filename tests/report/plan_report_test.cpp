// The serving-plan printers (report/plan_report.hpp) on real configs (tests/plan/configs/): the
// JSON's keys and its per-plan figures against the PlanEstimate values (never against numbers of
// the cost model, which is being tuned), the order and the best plan, the rewrite, and the text's
// command line and "fits nowhere" block.
#include "smcompat/report/plan_report.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "smcompat/plan/model.hpp"

namespace smcompat {
namespace {

using nlohmann::json;

std::string config(const char* name) {
  return std::string(SMCOMPAT_SOURCE_DIR) + "/tests/plan/configs/" + name + ".json";
}

// The request for `model` (its config read into rq.model) and the GPU sets `gpus` names; false,
// with the reason as a test failure, when either does not read.
bool read_inputs(const char* model, const char* gpus, plan::PlanRequest& rq,
                 std::vector<plan::GpuSet>& sets) {
  auto spec = plan::read_model_config(config(model));
  EXPECT_TRUE(spec) << spec.error().to_string();
  auto parsed = plan::parse_gpu_sets(gpus, Catalog::builtin());
  EXPECT_TRUE(parsed) << parsed.error().to_string();
  if (!spec || !parsed) return false;
  rq.model = *spec;
  sets = *parsed;
  return true;
}

PlanReport make_report(const char* model, const char* gpus,
                       std::optional<std::string> from = std::nullopt,
                       plan::Engine engine = plan::Engine::kVllm) {
  plan::PlanRequest rq;
  std::vector<plan::GpuSet> sets;
  read_inputs(model, gpus, rq, sets);
  PlanReportOptions o;
  o.engine = engine;
  o.model_id = "org/model";
  o.from = from;
  auto r = build_plan_report(rq, sets, o);
  EXPECT_TRUE(r) << r.error().to_string();
  return *r;
}

// A key and the value expected under it: key("tp", 4).
template <class V>
struct Key {
  const char* name;
  V value;
};
template <class V>
Key<V> key(const char* name, V value) {
  return {name, std::move(value)};
}

template <class V>
void expect_key(const json& got, const Key<V>& want) {
  EXPECT_EQ(got[want.name], want.value) << want.name;
}

// EXPECT_EQ(got[key], value) for each key given, each failure naming its key.
template <class... V>
void expect_keys(const json& got, const Key<V>&... want) {
  (expect_key(got, want), ...);
}

void expect_plan_json(const json& j, const plan::PlanEstimate& p, const plan::EngineCommand& c) {
  expect_keys(j, key("plan", p.shape.name()), key("tp", p.shape.tp), key("dp", p.shape.dp),
              key("pp", p.shape.pp), key("ep", p.shape.ep()),
              key("a2a", std::string(plan::to_string(p.shape.a2a))),
              key("dp_attention", p.shape.dp_attention), key("fits", p.fits),
              key("runnable", p.runnable), key("why_not", json(p.why_not)),
              key("notes", json(p.notes)));
  const json& g = j["per_gpu"];
  expect_keys(g, key("weights_bytes", p.memory.weights), key("kv_cache_bytes", p.memory.kv_cache),
              key("activation_bytes", p.memory.activations), key("reserve_bytes", p.memory.reserve),
              key("total_bytes", p.memory.total()), key("gpu_memory_bytes", p.gpu_memory_bytes));
  const json& d = j["decode"];
  expect_keys(d, key("weight_bytes_read", p.decode.weight_bytes_read),
              key("kv_bytes_read", p.decode.kv_bytes_read), key("flops", p.decode.flops),
              key("allreduce_bytes", p.decode.allreduce_bytes),
              key("all2all_bytes", p.decode.all2all_bytes),
              key("expert_load_imbalance", p.decode.expert_load_imbalance),
              key("memory_s", p.decode.memory_s), key("compute_s", p.decode.compute_s),
              key("comm_s", p.decode.comm_s), key("overhead_s", p.decode.overhead_s),
              key("step_s", p.decode.step_s));
  const json& e = j["estimates"];
  expect_keys(e, key("tpot_ms", p.tpot_ms), key("decode_tokens_per_s", p.decode_tokens_per_s),
              key("output_tokens_per_s", p.output_tokens_per_s), key("prefill_s", p.prefill_s),
              key("max_batch_that_fits", p.max_batch_that_fits));
  const json& f = j["flags"];
  EXPECT_EQ(f["engine"], std::string(plan::to_string(c.engine)));
  EXPECT_EQ(f["argv"], json(c.argv));
  EXPECT_EQ(f["shell"], c.shell());
  ASSERT_EQ(f["flags"].size(), c.flags.size());
  for (size_t i = 0; i < c.flags.size(); ++i) {
    EXPECT_EQ(f["flags"][i]["name"], c.flags[i].name);
    EXPECT_EQ(f["flags"][i]["value"], c.flags[i].value);
    EXPECT_EQ(f["flags"][i]["why"], c.flags[i].why);
  }
  EXPECT_EQ(f["extra_files"], json(c.extra_files));
}

TEST(PlanReport, BuildRanksEverySetAndPicksTheFirstFittingPlan) {
  PlanReport r = make_report("Qwen__Qwen3-30B-A3B", "4x\"RTX PRO 6000\",8xH100");
  ASSERT_EQ(r.sets.size(), 2u);
  for (const auto& s : r.sets) {
    ASSERT_FALSE(s.plans.empty());
    ASSERT_EQ(s.commands.size(), s.plans.size());
    ASSERT_NE(s.best(), nullptr);
    EXPECT_EQ(s.best(), &s.plans.front());  // rank_plans puts fitting plans first
    for (size_t i = 0; i < s.plans.size(); ++i)
      EXPECT_EQ(s.commands[i].argv,
                plan::engine_command(plan::Engine::kVllm, "org/model", s.plans[i].shape, r.workload)
                    .argv);
    EXPECT_FALSE(s.rewrite);  // no --from
  }
  EXPECT_TRUE(r.fits_anywhere());
}

TEST(PlanReport, JsonHasTheSchemaAndEveryPlanAsEstimated) {
  PlanReport r = make_report("Qwen__Qwen3-30B-A3B", "4x\"RTX PRO 6000\"");
  json j = plan_to_json(r, {"smcompat", "plan"});
  EXPECT_EQ(j["schema"], "smcompat.plan/1");
  EXPECT_EQ(j["argv"], json({"smcompat", "plan"}));
  EXPECT_TRUE(j.contains("tool_version"));
  EXPECT_EQ(j["fits_anywhere"], true);
  const json& m = j["model"];
  for (const char* key : {"name", "model_type", "layers", "hidden", "experts", "experts_per_token",
                          "shared_experts", "attention", "total_params", "active_params",
                          "expert_format", "attention_format", "kv_bytes_per_token_per_layer"})
    EXPECT_TRUE(m.contains(key)) << key;
  EXPECT_EQ(m["total_params"], r.model.total_params());
  EXPECT_EQ(m["active_params"], r.model.active_params());
  EXPECT_EQ(m["experts"], r.model.experts);
  EXPECT_EQ(m["attention"], "gqa");
  EXPECT_EQ(m["kv_bytes_per_token_per_layer"], r.model.kv_bytes_per_token_per_layer());
  EXPECT_EQ(j["workload"], json({{"batch", 64}, {"prompt_len", 1024}, {"gen_len", 1024}}));
  const json& a = j["assumptions"];
  expect_keys(a, key("memory_efficiency", r.assumptions.memory_efficiency),
              key("compute_efficiency", r.assumptions.compute_efficiency),
              key("memory_utilization", r.assumptions.memory_utilization),
              key("runtime_overhead_bytes", r.assumptions.runtime_overhead_bytes),
              key("prefill_chunk_tokens", r.assumptions.prefill_chunk_tokens),
              key("routing_skew", r.assumptions.routing_skew),
              key("per_layer_overhead_us", r.assumptions.per_layer_overhead_us));
  EXPECT_EQ(a.size(), 7u);
  EXPECT_EQ(j["peaks"]["source"], "catalog");

  ASSERT_EQ(j["gpu_sets"].size(), 1u);
  const json& s = j["gpu_sets"][0];
  const PlanSetResult& set = r.sets[0];
  EXPECT_EQ(s["label"], set.gpus.label());
  EXPECT_EQ(s["count"], 4);
  EXPECT_EQ(s["gpu"], set.gpus.gpu->name);
  EXPECT_EQ(s["memory_bytes"], set.gpus.memory_bytes);
  EXPECT_EQ(s["link"]["kind"], std::string(plan::to_string(set.gpus.link.kind)));
  EXPECT_EQ(s["link"]["gbs_per_direction"], set.gpus.link.gbs_per_direction);
  EXPECT_EQ(s["link"]["latency_us"], set.gpus.link.latency_us);
  EXPECT_EQ(s["link"]["efficiency"], set.gpus.link.efficiency);
  EXPECT_EQ(s["link"]["source"], set.gpus.link.source);
  EXPECT_EQ(s["pcie_gen"], set.gpus.pcie_gen);
  ASSERT_EQ(s["plans"].size(), set.plans.size());
  for (size_t i = 0; i < set.plans.size(); ++i) {
    SCOPED_TRACE(set.plans[i].shape.name());
    expect_plan_json(s["plans"][i], set.plans[i], set.commands[i]);
  }
  EXPECT_EQ(s["best"], set.best()->shape.name());
  ASSERT_NE(set.runner_up(), nullptr);
  EXPECT_EQ(s["why_best"], plan::why_wins(*set.best(), *set.runner_up()));
  EXPECT_FALSE(s.contains("rewrite"));
}

TEST(PlanReport, ExpertModeNames) {
  PlanReport r = make_report("Qwen__Qwen3-30B-A3B", "4xH100");
  json j = plan_to_json(r, {});
  std::set<std::string> modes;
  for (const auto& p : j["gpu_sets"][0]["plans"]) modes.insert(p["experts"]);
  EXPECT_EQ(modes, (std::set<std::string>{"tp-sharded", "expert-parallel"}));
}

TEST(PlanReport, RewriteOfTheUsersCommand) {
  const std::string from = "vllm serve Qwen/Qwen3-30B-A3B --tensor-parallel-size 8 --port 9000";
  PlanReport r = make_report("Qwen__Qwen3-30B-A3B", "4x\"RTX PRO 6000\"", from);
  const PlanSetResult& s = r.sets[0];
  ASSERT_TRUE(s.rewrite);
  auto expected = plan::rewrite_command(from, s.best()->shape, r.workload);
  ASSERT_TRUE(expected);
  EXPECT_EQ(s.rewrite->argv, expected->argv);
  json j = plan_to_json(r, {});
  const json& rw = j["gpu_sets"][0]["rewrite"];
  EXPECT_EQ(rw["argv"], json(expected->argv));
  EXPECT_EQ(rw["shell"], expected->shell());
  ASSERT_EQ(rw["changes"].size(), expected->changes.size());
  ASSERT_FALSE(expected->changes.empty());  // TP8 on 4 GPUs must change
  for (size_t i = 0; i < expected->changes.size(); ++i) {
    const auto& c = expected->changes[i];
    EXPECT_EQ(rw["changes"][i]["flag"], c.flag);
    EXPECT_EQ(rw["changes"][i]["old_value"], c.old_value);
    EXPECT_EQ(rw["changes"][i]["new_value"], c.new_value);
    EXPECT_EQ(rw["changes"][i]["why"], c.why);
    EXPECT_TRUE(rw["changes"][i]["kind"] == "added" || rw["changes"][i]["kind"] == "changed" ||
                rw["changes"][i]["kind"] == "removed");
  }
  EXPECT_EQ(j["from"], from);
  std::string text = render_plan_text(r, Style::plain());
  EXPECT_NE(text.find("Your command, rewritten"), std::string::npos);
  EXPECT_NE(text.find(expected->shell()), std::string::npos);
  EXPECT_NE(text.find(" → "), std::string::npos);  // --tensor-parallel-size 8 → its new value
}

// A DeepEP backend taken out of a PCIe machine's command says why, from the DeepEP plan's reason.
TEST(PlanReport, RewriteAwayFromDeepEpSaysWhy) {
  const std::string from =
      "VLLM_ALL2ALL_BACKEND=deepep_low_latency vllm serve Qwen/Qwen3-235B-A22B-FP8 "
      "--data-parallel-size 4 --enable-expert-parallel --port 8000";
  PlanReport r = make_report("Qwen__Qwen3-235B-A22B-FP8", "4x\"RTX PRO 6000\"", from);
  ASSERT_TRUE(r.sets[0].rewrite);
  // vLLM 0.16 dropped the variable: it is removed (naming why DeepEP does not suit these GPUs)
  // and the backend is said with the flag.
  const plan::FlagChange* removed = nullptr;
  const plan::FlagChange* flag = nullptr;
  for (const auto& c : r.sets[0].rewrite->changes) {
    if (c.flag == "VLLM_ALL2ALL_BACKEND") removed = &c;
    if (c.flag == "--all2all-backend") flag = &c;
  }
  ASSERT_NE(removed, nullptr);
  EXPECT_EQ(removed->kind, plan::FlagChange::Kind::kRemoved);
  EXPECT_EQ(removed->old_value, "deepep_low_latency");
  ASSERT_NE(flag, nullptr);
  EXPECT_EQ(flag->kind, plan::FlagChange::Kind::kAdded);
  EXPECT_EQ(flag->new_value, "allgather_reducescatter");
  EXPECT_NE(removed->why.find("; DeepEP cannot run here: DeepEP needs NVLink (or InfiniBand) "
                              "between the GPUs for NVSHMEM; these talk over PCIe"),
            std::string::npos)
      << removed->why;
}

TEST(PlanReport, BadFromIsAnError) {
  plan::PlanRequest rq;
  std::vector<plan::GpuSet> sets;
  ASSERT_TRUE(read_inputs("Qwen__Qwen3-30B-A3B", "4xH100", rq, sets));
  PlanReportOptions o;
  o.model_id = "m";
  o.from = "vllm serve 'unbalanced";
  auto r = build_plan_report(rq, sets, o);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().to_string().find("--from"), std::string::npos);
  o.from = "ls -l";
  r = build_plan_report(rq, sets, o);
  EXPECT_FALSE(r);
}

TEST(PlanReport, TextShowsHeaderTableBestAndCommand) {
  PlanReport r = make_report("Qwen__Qwen3-30B-A3B", "4x\"RTX PRO 6000\"");
  std::string text = render_plan_text(r, Style::plain());
  const PlanSetResult& s = r.sets[0];
  EXPECT_NE(text.find("estimated, not measured"), std::string::npos);
  EXPECT_EQ(text.find("estimated, not measured"), text.rfind("estimated, not measured"));
  EXPECT_NE(text.find(s.gpus.label()), std::string::npos);
  EXPECT_NE(text.find(s.gpus.link.source), std::string::npos);
  EXPECT_NE(text.find("Best: " + s.best()->shape.name()), std::string::npos);
  EXPECT_NE(text.find(plan::why_wins(*s.best(), *s.runner_up())), std::string::npos);
  const auto& cmd = s.commands[0];
  EXPECT_NE(text.find(cmd.shell()), std::string::npos);
  for (const auto& f : cmd.flags) EXPECT_NE(text.find(f.why), std::string::npos) << f.name;
  EXPECT_EQ(text.find("Fits nowhere"), std::string::npos);
  // Every plan that fits is a row; at most 3 that do not, unless --all.
  size_t fitting = 0, unfit = 0;
  for (const auto& p : s.plans) (p.fits ? fitting : unfit)++;
  auto rows = [&](const std::string& t) {
    size_t n = 0;
    for (const auto& p : s.plans)
      if (t.find("  " + p.shape.name() + "  ") != std::string::npos) ++n;
    return n;
  };
  EXPECT_EQ(rows(text), fitting + std::min<size_t>(unfit, 3));
  EXPECT_EQ(rows(render_plan_text(r, Style::plain(), {.all = true})), s.plans.size());
}

TEST(PlanReport, TrtllmExtraFilesAreShown) {
  PlanReport r = make_report("Qwen__Qwen3-30B-A3B", "8xH100", std::nullopt, plan::Engine::kTrtllm);
  std::string text = render_plan_text(r, Style::plain());
  const PlanSetResult& s = r.sets[0];
  const auto& cmd = s.commands[size_t(s.best() - s.plans.data())];
  EXPECT_NE(text.find(cmd.shell()), std::string::npos);
  for (const auto& file : cmd.extra_files) {
    auto first_line = file.substr(0, file.find('\n'));
    EXPECT_NE(text.find(first_line), std::string::npos);
  }
}

TEST(PlanReport, FitsNowhere) {
  PlanReport r = make_report("deepseek-ai__DeepSeek-V3", "4x\"RTX PRO 6000\"",
                             "vllm serve deepseek-ai/DeepSeek-V3 --tensor-parallel-size 8");
  ASSERT_EQ(r.sets.size(), 1u);
  const PlanSetResult& s = r.sets[0];
  EXPECT_EQ(s.best(), nullptr);
  EXPECT_FALSE(s.rewrite);
  EXPECT_FALSE(r.fits_anywhere());
  json j = plan_to_json(r, {});
  EXPECT_EQ(j["fits_anywhere"], false);
  EXPECT_TRUE(j["gpu_sets"][0]["best"].is_null());
  EXPECT_TRUE(j["gpu_sets"][0]["why_best"].is_null());
  EXPECT_FALSE(j["gpu_sets"][0].contains("rewrite"));
  for (const auto& p : j["gpu_sets"][0]["plans"]) {
    EXPECT_EQ(p["fits"], false);
    EXPECT_FALSE(p["why_not"].empty());
  }
  EXPECT_EQ(j["model"]["attention"], "mla");

  std::string text = render_plan_text(r, Style::plain());
  EXPECT_NE(text.find("Fits nowhere on " + s.gpus.label()), std::string::npos);
  EXPECT_EQ(text.find("Best:"), std::string::npos);
  // The block names the plan that needs the least memory, and how many GPUs would hold the
  // weights, from that plan's own figures.
  const plan::PlanEstimate* least = &s.plans.front();
  for (const auto& p : s.plans)
    if (p.memory.total() < least->memory.total()) least = &p;
  EXPECT_NE(text.find("The plan needing the least memory, " + least->shape.name()),
            std::string::npos);
  // What would make it fit is fit_advice()'s, said as it is.
  ASSERT_TRUE(s.advice);
  plan::PlanRequest rq;
  rq.model = r.model;
  rq.gpus = s.gpus;
  rq.workload = r.workload;
  plan::FitAdvice expected = plan::fit_advice(rq);
  EXPECT_EQ(s.advice->gpus_needed, expected.gpus_needed);
  EXPECT_EQ(s.advice->formats_that_fit, expected.formats_that_fit);
  ASSERT_TRUE(expected.gpus_needed);
  EXPECT_GT(*expected.gpus_needed, 4);
  EXPECT_NE(text.find(fmt::format("{} GPUs of this kind", *expected.gpus_needed)),
            std::string::npos)
      << text;
  const json& advice = j["gpu_sets"][0]["fit_advice"];
  EXPECT_EQ(advice["gpus_needed"], *expected.gpus_needed);
  EXPECT_EQ(advice["weights_bytes"], expected.weights_bytes);
  EXPECT_EQ(advice["usable_bytes"], expected.usable_bytes);
  EXPECT_EQ(advice["formats_that_fit"].size(), expected.formats_that_fit.size());
  EXPECT_NE(text.find("No plan fits on any GPU set given."), std::string::npos);
}

TEST(PlanReport, FitsNowhereBecauseOfTheKvCache) {
  plan::PlanRequest rq;
  std::vector<plan::GpuSet> sets;
  ASSERT_TRUE(read_inputs("Qwen__Qwen3-30B-A3B", "2xH100", rq, sets));
  rq.workload = {5000, 8192, 1024};
  auto r = build_plan_report(rq, sets, PlanReportOptions{});
  ASSERT_TRUE(r);
  const PlanSetResult& s = r->sets[0];
  ASSERT_EQ(s.best(), nullptr);
  const plan::PlanEstimate* most = nullptr;
  for (const auto& p : s.plans)
    if (p.runnable && (!most || p.max_batch_that_fits > most->max_batch_that_fits)) most = &p;
  ASSERT_NE(most, nullptr);
  ASSERT_GT(most->max_batch_that_fits, 0);
  std::string text = render_plan_text(*r, Style::plain());
  EXPECT_NE(text.find("The weights fit; the KV cache for 5000 sequences of 9216 tokens"),
            std::string::npos)
      << text;
  EXPECT_NE(
      text.find(fmt::format("{} holds at most {} at these lengths (--batch {})", most->shape.name(),
                            most->max_batch_that_fits, most->max_batch_that_fits)),
      std::string::npos)
      << text;
  EXPECT_EQ(text.find("No smaller weight format"), std::string::npos);
}

TEST(PlanReport, ColourOnlyWhenAsked) {
  PlanReport r = make_report("Qwen__Qwen3-30B-A3B", "4x\"RTX PRO 6000\"");
  EXPECT_EQ(render_plan_text(r, Style::plain()).find('\x1b'), std::string::npos);
  EXPECT_NE(render_plan_text(r, Style::for_stream(stdout, Style::Mode::kAlways)).find('\x1b'),
            std::string::npos);
}

}  // namespace
}  // namespace smcompat
