// Rendering of serving plans (plan/plan.hpp, plan/engine.hpp): text for people (per GPU set the
// ranked plans, the best one's command line and why, or why nothing fits) and JSON for programs
// (schema "smcompat.plan/1", docs/json-schema.md). Every figure is an estimate of the cost model,
// and the text says so.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "smcompat/plan/engine.hpp"
#include "smcompat/plan/installed.hpp"
#include "smcompat/plan/plan.hpp"
#include "smcompat/util/result.hpp"
#include "smcompat/util/table.hpp"

namespace smcompat {

inline constexpr const char* kPlanSchema = "smcompat.plan/1";

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

struct PlanReport {
  plan::ModelSpec model;
  plan::Workload workload;
  plan::PlanAssumptions assumptions;
  plan::Engine engine = plan::Engine::kVllm;
  std::string model_id;
  PlanPeaks peaks;
  std::optional<std::string> from;
  std::string python;
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

struct PlanTextOptions {
  bool all = false;  ///< every plan; default the fitting ones and the 3 best that do not fit
};

std::string render_plan_text(const PlanReport& report, const Style& style,
                             const PlanTextOptions& options = {});
nlohmann::json plan_to_json(const PlanReport& report, const std::vector<std::string>& argv);

}  // namespace smcompat
