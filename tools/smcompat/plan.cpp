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
#include "smcompat/bench/results.hpp"
#include "smcompat/plan/engine.hpp"
#include "smcompat/plan/model.hpp"
#include "smcompat/plan/probe_gpus.hpp"
#include "smcompat/probe/probe.hpp"
#include "smcompat/report/plan_report.hpp"
#include "smcompat/util/files.hpp"
#include "smcompat/util/json_text.hpp"
#include "smcompat/util/strings.hpp"

namespace smcompat::cli {
namespace {

constexpr long long kMaxWorkload = 10'000'000;
constexpr size_t kMaxBenchFile = 64u << 20;

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

template <typename... T>
int fail(fmt::format_string<T...> f, T&&... args) {
  fmt::print(stderr, "smcompat plan: {}\n", fmt::format(f, std::forward<T>(args)...));
  return kExitError;
}

// What a dense model would need, from its own counts: the weights in their format, and that
// tensor parallelism over enough GPUs is the plan there.
std::string dense_hint(const plan::ModelSpec& m) {
  double weights = double(m.total_params()) * plan::bytes_per_param(m.attention_format);
  return fmt::format(
      "a dense model ({:.1f}B parameters, about {:.1f} GiB of {} weights) needs no expert "
      "placement: serve it with tensor parallelism (--tensor-parallel-size) over as many GPUs as "
      "hold those weights plus the KV cache, and data-parallel replicas beyond that",
      double(m.total_params()) / 1e9, weights / (1ull << 30), plan::to_string(m.attention_format));
}

bool is_device_memory_row(const bench::BenchResult& r) {
  if (r.suite != "memory" || r.skipped()) return false;
  auto op = r.params.find("op");
  if (r.params.count("host")) return false;
  return op != r.params.end() &&
         (op->second == "copy" || op->second == "d2d" || op->second == "triad");
}

uint64_t row_bytes(const bench::BenchResult& r) {
  auto it = r.params.find("bytes");
  if (it == r.params.end()) return 0;
  return parse_uint(it->second).value_or(0);
}

// The peaks a `smcompat bench --json` run measured: the best GEMM TFLOPS in the model's compute
// format (fp8 for FP8 / 4-bit checkpoints when the run has FP8 rows, else bf16) and the best
// device-memory bandwidth at sizes far beyond any L2 (1 GiB and up; the largest size otherwise).
std::optional<std::string> read_bench_peaks(const std::string& path, const plan::ModelSpec& model,
                                            const std::vector<plan::GpuSet>& sets,
                                            PlanPeaks& peaks) {
  auto text = read_file_prefix(path, kMaxBenchFile + 1);
  if (!text) return fmt::format("--bench {}: cannot read the file", path);
  if (text->size() > kMaxBenchFile) return fmt::format("--bench {}: larger than 64 MiB", path);
  auto run = bench::read_bench_run(*text);
  if (!run)
    return fmt::format("--bench {}: not a `smcompat bench --json` document: {}", path,
                       run.error().to_string());
  auto gemm_dtype = [](const bench::BenchResult& r) -> std::string {
    if ((r.suite != "gemm" && r.suite != "torch.gemm") || r.skipped()) return "";
    auto it = r.params.find("dtype");
    if (it == r.params.end()) return "";
    if (it->second == "bf16") return "bf16";
    if (it->second.starts_with("fp8")) return "fp8";
    return "";
  };
  bool want_fp8 = model.expert_format != plan::WeightFormat::kBf16;
  bool has_fp8 = false;
  for (const auto& r : run->results) has_fp8 = has_fp8 || gemm_dtype(r) == "fp8";
  std::string fmt_key = want_fp8 && has_fp8 ? "fp8" : "bf16";
  for (const auto& r : run->results)
    if (gemm_dtype(r) == fmt_key && *r.value > 0 && (!peaks.tflops || *r.value > *peaks.tflops))
      peaks.tflops = *r.value;
  if (peaks.tflops) peaks.tflops_format = fmt_key;

  uint64_t largest = 0;
  bool big = false;
  for (const auto& r : run->results)
    if (is_device_memory_row(r)) {
      largest = std::max(largest, row_bytes(r));
      big = big || row_bytes(r) >= (1ull << 30);
    }
  for (const auto& r : run->results)
    if (is_device_memory_row(r) && *r.value > 0 &&
        (big ? row_bytes(r) >= (1ull << 30) : row_bytes(r) == largest) &&
        (!peaks.memory_gbs || *r.value > *peaks.memory_gbs))
      peaks.memory_gbs = *r.value;
  if (!peaks.tflops && !peaks.memory_gbs)
    return fmt::format(
        "--bench {}: no usable figure: no measured bf16/fp8 GEMM row and no device memory "
        "(copy, d2d, triad) row (run `smcompat bench gemm memory --json -o {}`)",
        path, path);
  // Whose figures: every device of the run must be a known GPU, the one every set is planned for
  // (peaks measured on an unidentified GPU, or on another, say nothing about these).
  if (run->devices.empty())
    return fmt::format("--bench {}: the run names no GPU it was measured on", path);
  for (const auto& d : run->devices) {
    if (!d.catalog_gpu)
      return fmt::format(
          "--bench {}: GPU {} ({}) is not in the catalog, so its figures cannot stand for the "
          "GPUs planned for",
          path, d.ordinal, d.name);
    for (const auto& s : sets)
      if (s.gpu && s.gpu->name != *d.catalog_gpu)
        return fmt::format(
            "--bench {}: measured on {} (GPU {}), but the plan is for {}: its peaks do not apply",
            path, *d.catalog_gpu, d.ordinal, s.gpu->name);
  }
  // A measured figure far from the GPU's specification is a broken run or an edited file, and
  // would put any step time out of range: between 1 % and 150 % of the catalog's figure.
  auto implausible = [&](std::optional<double> measured, std::optional<double> spec,
                         std::string_view what) -> std::optional<std::string> {
    if (!measured || !spec || *spec <= 0) return std::nullopt;
    if (*measured >= 0.01 * *spec && *measured <= 1.5 * *spec) return std::nullopt;
    return fmt::format(
        "--bench {}: a measured {} of {:.4g} is implausible for {} (specification {:.4g}); "
        "expected 1 % to 150 % of it",
        path, what, *measured, sets.front().gpu->name, *spec);
  };
  if (!sets.empty() && sets.front().gpu) {
    const GpuSpec& g = *sets.front().gpu;
    auto peak = g.peak_tflops.find(peaks.tflops_format == "fp8" ? "fp8" : "fp16_bf16");
    std::optional<double> spec_tflops;
    if (peak != g.peak_tflops.end()) spec_tflops = peak->second;
    if (auto e = implausible(peaks.tflops, spec_tflops, peaks.tflops_format + " GEMM TFLOPS"))
      return e;
    if (auto e = implausible(peaks.memory_gbs, g.bandwidth_gbs, "memory bandwidth (GB/s)"))
      return e;
  }
  peaks.source = path;
  return std::nullopt;
}

int run_plan(Context& ctx, const PlanArgs& a) {
  for (auto [name, v] : {std::pair{"--batch", a.batch}, std::pair{"--prompt-len", a.prompt_len},
                         std::pair{"--gen-len", a.gen_len}})
    if (v <= 0 || v > kMaxWorkload) return fail("{} {}: expected 1 to {}", name, v, kMaxWorkload);
  auto engine = plan::parse_engine(a.engine);
  if (!engine) return fail("--engine {}: unknown engine (use vllm, sglang or trtllm)", a.engine);

  auto model = plan::read_model_config(a.model);
  if (!model) return fail("--model {}: {}", a.model, model.error().to_string());
  if (!model->is_moe())
    return fail(
        "{} has no expert fields (num_experts / n_routed_experts / num_local_experts): smcompat "
        "plan plans mixture-of-experts models; {}",
        a.model, dense_hint(*model));

  const Catalog& catalog = Catalog::builtin();
  std::vector<plan::GpuSet> sets;
  if (a.gpus) {
    auto parsed = plan::parse_gpu_sets(*a.gpus, catalog);
    if (!parsed) return fail("{}", parsed.error().to_string());
    sets = std::move(*parsed);
  } else {
    auto probed = probe_system();
    if (!probed)
      return fail("probe: {} (pass --gpus, e.g. --gpus 8xH100)", probed.error().to_string());
    if (probed->status != ProbeStatus::kOk || probed->devices.empty())
      return fail(
          "no GPU found on this machine ({}: {}); pass --gpus to plan for GPUs elsewhere, e.g. "
          "--gpus 8xH100 or --gpus '4x\"RTX PRO 6000\"'",
          to_string(probed->status), probed->explanation);
    auto from_probe = plan::gpu_sets_from_probe(*probed, catalog);
    if (!from_probe)
      return fail("{}; pass --gpus to name the GPUs", from_probe.error().to_string());
    sets = std::move(*from_probe);
  }

  plan::PlanRequest base;
  base.model = *model;
  base.workload = {int(a.batch), int(a.prompt_len), int(a.gen_len)};
  PlanPeaks peaks;
  if (!a.bench.empty()) {
    if (auto err = read_bench_peaks(a.bench, *model, sets, peaks)) return fail("{}", *err);
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
  auto report = build_plan_report(base, sets, options);
  if (!report) return fail("{}", report.error().to_string());

  const bool fits = report->fits_anywhere();
  // Model names, paths and --from words are the user's bytes: invalid UTF-8 is replaced, never
  // thrown on.
  auto dump = [](const nlohmann::json& j, int indent) { return json_text(j, indent); };
  nlohmann::json doc;
  if (a.json || !a.output.empty()) doc = plan_to_json(*report, ctx.argv);
  if (fits && !a.output.empty()) {
    if (auto err = write_file_atomically(a.output, dump(doc, 1) + "\n"))
      return fail("{}", err->to_string());
  }
  if (a.json)
    fmt::print("{}\n", dump(doc, 2));
  else
    fmt::print("{}", render_plan_text(*report, ctx.out_style(), PlanTextOptions{a.all}));
  if (!fits) {
    std::fflush(stdout);  // the report first, then the verdict, also when both go to one file
    fmt::print(stderr, "smcompat plan: {} fits on none of the GPU sets given (see the report){}\n",
               report->model_id, a.output.empty() ? "" : "; " + a.output + " not written");
    return kExitError;
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
  cmd->add_option("--model", a->model, "The model's Hugging Face config.json")->required();
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
  cmd->add_flag("--json", a->json, "JSON output (schema smcompat.plan/1)");
  cmd->add_option("-o,--output", a->output,
                  "Also write the JSON (schema smcompat.plan/1) to this file, atomically (not "
                  "written when no plan fits)");
  cmd->add_flag("--all", a->all,
                "Show every plan (default: those that fit and the 3 best that do not)");
  cmd->callback([&ctx, a] { ctx.exit_code = run_plan(ctx, *a); });
}

}  // namespace smcompat::cli
