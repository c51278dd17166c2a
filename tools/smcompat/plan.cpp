// `smcompat plan`: how to serve a mixture-of-experts model on a set of GPUs. Reads the model's
// config.json (plan/model.hpp), ranks the parallelism plans on each GPU set by the cost model
// (plan/plan.hpp), and prints the best plan's engine command (plan/engine.hpp), optionally
// rewriting the user's own command line. Exit codes: 0 a plan fits; 2 usage or input error, or no
// plan fits on any GPU set (the report is printed so that the user sees why; -o is not written).
#include "smcompat/plan/plan.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <optional>

#include "commands.hpp"
#include "options.hpp"
#include "smcompat/plan/engine.hpp"
#include "smcompat/plan/model.hpp"
#include "smcompat/report/plan_report.hpp"
#include "smcompat/util/files.hpp"
#include "smcompat/util/json_text.hpp"
#include "smcompat/util/strings.hpp"

namespace smcompat::cli {
namespace {

constexpr long long kMaxWorkload = 10'000'000;

struct PlanArgs {
  std::string model;
  std::optional<std::string> gpus;  // absent: this machine's GPUs; given empty: an error
  std::string engine = "vllm";
  long long batch = 64;
  long long prompt_len = 1024;
  long long gen_len = 1024;
  std::optional<std::string> from;
  std::string model_id;
  std::string bench;
  std::string python;
  std::string output;
  bool json = false;
  bool all = false;
};

int run_plan(Context& ctx, const PlanArgs& a) {
  for (auto [name, v] : {std::pair{"--batch", a.batch}, std::pair{"--prompt-len", a.prompt_len},
                         std::pair{"--gen-len", a.gen_len}})
    if (v <= 0 || v > kMaxWorkload)
      return ctx.fail("plan", fmt::format("{} {}: expected 1 to {}", name, v, kMaxWorkload));
  auto engine = plan::parse_engine(a.engine);
  if (!engine)
    return ctx.fail("plan",
                    "--engine " + a.engine + ": unknown engine (use vllm, sglang or trtllm)");

  auto model = plan::read_model_config(a.model);
  if (!model) return ctx.fail("plan", "--model " + a.model + ": " + model.error().to_string());
  if (!model->is_moe())
    return ctx.fail(
        "plan", fmt::format("{} has no expert fields (num_experts / n_routed_experts / "
                            "num_local_experts): smcompat plan plans mixture-of-experts models; {}",
                            a.model, plan::dense_model_hint(*model)));

  auto sets = plan::resolve_gpu_sets(a.gpus, Catalog::builtin());
  if (!sets) return ctx.fail("plan", sets.error().to_string());

  plan::PlanRequest base;
  base.model = *model;
  base.workload = {int(a.batch), int(a.prompt_len), int(a.gen_len)};
  PlanPeaks peaks;
  if (!a.bench.empty()) {
    auto measured = read_bench_peaks(a.bench, *model, *sets);
    if (!measured) return ctx.fail("plan", "--bench " + measured.error().to_string());
    peaks = *measured;
    base.measured_tflops = peaks.tflops;
    base.measured_memory_gbs = peaks.memory_gbs;
  }
  std::string model_id = a.model_id.empty() ? model->name : a.model_id;

  PlanReportOptions options;
  options.engine = *engine;
  options.model_id = model_id;
  options.from = a.from;
  options.peaks = peaks;
  options.python = a.python;
  auto report = build_plan_report(base, *sets, options);
  if (!report) return ctx.fail("plan", report.error().to_string());

  const bool fits = report->fits_anywhere();
  // Model names, paths and --from words are the user's bytes: invalid UTF-8 is replaced, never
  // thrown on.
  auto dump = [](const nlohmann::json& j, int indent) { return json_text(j, indent); };
  nlohmann::json doc;
  if (a.json || !a.output.empty()) doc = plan_to_json(*report, ctx.argv);
  if (fits && !a.output.empty()) {
    if (auto err = write_file_atomically(a.output, dump(doc, 1) + "\n"))
      return ctx.fail("plan", err->to_string());
  }
  if (a.json)
    fmt::print("{}\n", dump(doc, 2));
  else
    fmt::print("{}", render_plan_text(*report, ctx.out_style(), PlanTextOptions{a.all}));
  if (!fits) {
    std::fflush(stdout);  // the report first, then the verdict, also when both go to one file
    return ctx.fail("plan", fmt::format("{} fits on none of the GPU sets given (see the report){}",
                                        report->model_id,
                                        a.output.empty() ? "" : "; " + a.output + " not written"));
  }
  return kExitOk;
}

}  // namespace

void register_plan(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand(
      "plan",
      "How to serve a mixture-of-experts model on these GPUs: parallelism plans ranked by an "
      "estimated cost model, and the engine command line for the best");
  auto a = std::make_shared<PlanArgs>();
  cmd->add_option("--model", a->model,
                  "The model's Hugging Face config.json, or its checkpoint directory (config.json "
                  "and, for NVIDIA ModelOpt checkpoints, hf_quant_config.json)")
      ->required();
  cmd->add_option("--gpus", a->gpus,
                  "GPU sets, e.g. 8xH100, '4x\"RTX PRO 6000\"', '2xRTX 5090:nop2p' (default: "
                  "this machine's GPUs, from the probe)");
  cmd->add_option("--engine", a->engine, "Serving engine: vllm, sglang or trtllm")
      ->capture_default_str();
  cmd->add_option("--batch", a->batch, "Concurrent sequences")->capture_default_str();
  cmd->add_option("--prompt-len", a->prompt_len, "Prompt tokens per sequence")
      ->capture_default_str();
  cmd->add_option("--gen-len", a->gen_len, "Generated tokens per sequence")->capture_default_str();
  cmd->add_option("--from", a->from,
                  "An existing engine command line to rewrite for the best plan (quoted)");
  cmd->add_option("--model-id", a->model_id,
                  "The model name in the emitted command (default: the config's _name_or_path, "
                  "else its directory name)");
  cmd->add_option("--bench", a->bench,
                  "A `smcompat bench --json` file: use its measured GEMM TFLOPS and memory "
                  "bandwidth instead of the catalog's peaks");
  cmd->add_option("--python", a->python,
                  "A Python environment with the engine installed: plans its kernels cannot run "
                  "on the GPUs are marked (the doctor's package scan)");
  add_format_flags(cmd, a->json, nullptr, "smcompat.plan/1");
  cmd->add_option("-o,--output", a->output,
                  "Also write the JSON (schema smcompat.plan/1) to this file, atomically (not "
                  "written when no plan fits)");
  cmd->add_flag("--all", a->all,
                "Show every plan (default: those that fit and the 3 best that do not)");
  cmd->callback([&ctx, a] { ctx.exit_code = run_plan(ctx, *a); });
}

}  // namespace smcompat::cli
