// What `smcompat plan` answers, assembled: per GPU set the ranked plans (plan.hpp), each plan's
// engine command (engine.hpp), the user's command line rewritten for the best one, the installed
// kernels' verdicts (installed.hpp) and, where nothing fits, the advice; and the measured peaks a
// `smcompat bench --json` run gives the cost model. report/plan_report.hpp renders it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "smcompat/plan/engine.hpp"
#include "smcompat/plan/installed.hpp"
#include "smcompat/plan/model.hpp"
#include "smcompat/plan/plan.hpp"
#include "smcompat/util/result.hpp"

namespace smcompat {

/// One GPU set's ranked plans, with the engine command of each and the rewrite of the user's
/// command line (--from) into the best plan.
struct PlanSetResult {
  plan::GpuSet gpus;
  std::vector<plan::PlanEstimate> plans;       ///< rank_plans' order, best first
  std::vector<plan::EngineCommand> commands;   ///< one per plan, same order
  std::optional<plan::Rewrite> rewrite;        ///< --from rewritten for the best plan
  std::optional<plan::FitAdvice> advice;       ///< set when no plan fits
  std::optional<plan::EngineKernels> kernels;  ///< --python: the engine's installed kernels
  const plan::PlanEstimate* best() const;      ///< the first fitting plan, nullptr if none
  /// The plan after the best one that also fits, nullptr if none.
  const plan::PlanEstimate* runner_up() const;
};

/// Where the GPU peaks come from: the catalog, or a `smcompat bench` run.
struct PlanPeaks {
  std::string source;                ///< empty: the catalog; else the bench file
  std::optional<double> tflops;      ///< measured GEMM TFLOPS (for `tflops_format`)
  std::string tflops_format;         ///< "bf16", "fp8"
  std::optional<double> memory_gbs;  ///< measured device memory bandwidth
};

/// What the report is built with, besides the request.
struct PlanReportOptions {
  plan::Engine engine = plan::Engine::kVllm;
  std::string model_id;             ///< the name in the emitted commands
  std::optional<std::string> from;  ///< a command line to rewrite for each set's best plan
  PlanPeaks peaks;
  /// A Python environment with the engine installed (--python): plans its kernels cannot run on
  /// a set's GPU are marked (plan/installed.hpp) and the plans ranked again. Empty: not checked.
  std::string python;
};

/// The answer carries what it was built with (engine, model id, peaks, --from, --python).
struct PlanReport : PlanReportOptions {
  plan::ModelSpec model;
  plan::Workload workload;
  plan::PlanAssumptions assumptions;
  std::vector<PlanSetResult> sets;
  bool fits_anywhere() const;
};

/// Ranks the plans of `base` (model, workload, assumptions, measured peaks) on each GPU set,
/// applies the installed kernels' verdicts (options.python), emits each plan's command, rewrites
/// options.from for each set's best plan, and asks fit_advice() where no plan fits. Errors:
/// options.from does not parse as an engine command line; options.python is no environment.
Result<PlanReport> build_plan_report(const plan::PlanRequest& base,
                                     const std::vector<plan::GpuSet>& sets,
                                     const PlanReportOptions& options);

namespace plan {
/// The GPU sets to plan for: `gpus` parsed (parse_gpu_sets), or this machine's GPUs from the
/// probe when it is absent; the errors say what to pass instead.
Result<std::vector<GpuSet>> resolve_gpu_sets(const std::optional<std::string>& gpus,
                                             const Catalog& catalog);
/// What a dense model (no expert fields) needs instead: its weights in their format, and tensor
/// parallelism over enough GPUs.
std::string dense_model_hint(const ModelSpec& model);
}  // namespace plan

/// Reads the peaks a `smcompat bench --json` run at `path` measured into `peaks`: the best GEMM
/// TFLOPS in the model's compute format (fp8 for FP8 / 4-bit checkpoints when the run has FP8
/// rows, else bf16) and the best device-memory bandwidth at sizes far beyond any L2. Refused (the
/// message says why) when the file is no bench run, has no usable row, was measured on another or
/// an unknown GPU than `sets` plan for, or holds a figure outside 1-150 % of the specification.
/// The error names the file (and, for a file that is no bench run, the offset where it fails).
Result<PlanPeaks> read_bench_peaks(const std::string& path, const plan::ModelSpec& model,
                                   const std::vector<plan::GpuSet>& sets);

}  // namespace smcompat
