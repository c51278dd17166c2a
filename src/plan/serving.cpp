// Assembling `smcompat plan`'s answer (include/smcompat/plan/serving.hpp): the planner driven
// over each GPU set, and the peaks of a bench run read for the cost model.
#include "smcompat/plan/serving.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "smcompat/bench/results.hpp"
#include "smcompat/bench/run.hpp"
#include "smcompat/plan/probe_gpus.hpp"
#include "smcompat/probe/probe.hpp"
#include "smcompat/util/strings.hpp"

namespace smcompat {

using plan::PlanEstimate;

const PlanEstimate* PlanSetResult::best() const {
  for (const auto& p : plans)
    if (p.fits) return &p;
  return nullptr;
}

const PlanEstimate* PlanSetResult::runner_up() const {
  const PlanEstimate* b = best();
  if (!b) return nullptr;
  for (const auto* p = b + 1; p < plans.data() + plans.size(); ++p)
    if (p->fits) return p;
  return nullptr;
}

bool PlanReport::fits_anywhere() const {
  return std::any_of(sets.begin(), sets.end(), [](const auto& s) { return s.best() != nullptr; });
}

Result<PlanReport> build_plan_report(const plan::PlanRequest& base,
                                     const std::vector<plan::GpuSet>& sets,
                                     const PlanReportOptions& o) {
  PlanReport r;
  static_cast<PlanReportOptions&>(r) = o;
  r.model = base.model;
  r.workload = base.workload;
  r.assumptions = base.assumptions;
  // The environment's kernels judged once per kind of GPU (a package scan reads every library
  // of the environment): sets of the same GPU share it.
  std::map<std::string, plan::EngineKernels> kernels_by_gpu;
  for (const auto& g : sets) {
    plan::PlanRequest rq = base;
    rq.gpus = g;
    PlanSetResult s;
    s.gpus = g;
    s.plans = plan::rank_plans(rq);
    // Plans the engine has no command for are left out of its ranking (marked, ranked last).
    bool dropped = false;
    // An engine without a model for the architecture (data/engine_architectures.json) runs none.
    const auto unserved = plan::architecture_not_served(o.engine, base.model);
    for (auto& p : s.plans)
      if (auto why = unserved ? unserved : plan::not_expressible(o.engine, p.shape)) {
        p.why_not.insert(p.why_not.begin(), *why);
        p.runnable = false;
        p.fits = false;
        dropped = true;
      }
    if (dropped) plan::sort_plans(s.plans);
    if (!o.python.empty() && g.gpu) {
      auto known = kernels_by_gpu.find(g.gpu->name);
      if (known == kernels_by_gpu.end()) {
        auto k = plan::engine_kernels(o.python, *g.gpu);
        if (!k) return k.error();  // names --python and the path
        known = kernels_by_gpu.emplace(g.gpu->name, std::move(*k)).first;
      }
      plan::apply_engine_kernels(known->second, o.engine, s.plans);
      plan::sort_plans(s.plans);
      s.kernels = known->second;
    }
    for (const auto& p : s.plans)
      s.commands.push_back(plan::engine_command(o.engine, o.model_id, p.shape, base.workload));
    if (o.from) {
      // The command must parse even where no plan fits (its errors are the user's to fix).
      plan::PlanShape shape = s.best()          ? s.best()->shape
                              : s.plans.empty() ? plan::PlanShape{}
                                                : s.plans.front().shape;
      auto rw = plan::rewrite_command(*o.from, shape, base.workload);
      if (!rw) return make_error("--from: " + rw.error().to_string());
      if (s.best()) {
        // A DeepEP backend taken out says why DeepEP does not suit these GPUs, when it does not.
        const PlanEstimate* deepep = nullptr;
        for (const auto& p : s.plans)
          if (p.shape.a2a == plan::AllToAll::kDeepEp && !p.runnable && !deepep) deepep = &p;
        for (auto& c : rw->changes)
          if (deepep && c.old_value.find("deepep") != std::string::npos &&
              c.new_value.find("deepep") == std::string::npos)
            c.why += "; DeepEP cannot run here: " + deepep->why_not.front();
        s.rewrite = std::move(*rw);
      }
    }
    // Memory advice would mislead where the engine has no model for the architecture at all.
    if (!s.best() && !unserved) s.advice = plan::fit_advice(rq);
    r.sets.push_back(std::move(s));
  }
  return r;
}

namespace plan {

Result<std::vector<GpuSet>> resolve_gpu_sets(const std::optional<std::string>& gpus,
                                             const Catalog& catalog) {
  if (gpus) return parse_gpu_sets(*gpus, catalog);
  auto probed = probe_system();
  if (!probed)
    return make_error(
        fmt::format("probe: {} (pass --gpus, e.g. --gpus 8xH100)", probed.error().to_string()));
  if (probed->status != ProbeStatus::kOk || probed->devices.empty())
    return make_error(fmt::format(
        "no GPU found on this machine ({}: {}); pass --gpus to plan for GPUs elsewhere, e.g. "
        "--gpus 8xH100 or --gpus '4x\"RTX PRO 6000\"'",
        to_string(probed->status), probed->explanation));
  auto from_probe = gpu_sets_from_probe(*probed, catalog);
  if (!from_probe)
    return make_error(
        fmt::format("{}; pass --gpus to name the GPUs", from_probe.error().to_string()));
  return from_probe;
}

std::string dense_model_hint(const ModelSpec& m) {
  double weights = double(m.total_params()) * bytes_per_param(m.attention_format);
  return fmt::format(
      "a dense model ({:.1f}B parameters, about {:.1f} GiB of {} weights) needs no expert "
      "placement: serve it with tensor parallelism (--tensor-parallel-size) over as many GPUs as "
      "hold those weights plus the KV cache, and data-parallel replicas beyond that",
      double(m.total_params()) / 1e9, weights / (1ull << 30), to_string(m.attention_format));
}

}  // namespace plan

namespace {

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

}  // namespace

Result<PlanPeaks> read_bench_peaks(const std::string& path, const plan::ModelSpec& model,
                                   const std::vector<plan::GpuSet>& sets) {
  auto run = bench::read_bench_run_file(path);
  if (!run) return Error(run.error()).in_file(path);
  // Every refusal below is about the file as a whole: it names the file, no offset.
  auto refuse = [&](std::string what) { return make_error(std::move(what)).in_file(path); };
  PlanPeaks peaks;
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
    return refuse(
        fmt::format("no usable figure: no measured bf16/fp8 GEMM row and no device memory "
                    "(copy, d2d, triad) row (run `smcompat bench gemm memory --json -o {}`)",
                    path));
  // Whose figures: every device of the run must be a known GPU, the one every set is planned for
  // (peaks measured on an unidentified GPU, or on another, say nothing about these).
  if (run->devices.empty()) return refuse("the run names no GPU it was measured on");
  for (const auto& d : run->devices) {
    if (!d.catalog_gpu)
      return refuse(fmt::format(
          "GPU {} ({}) is not in the catalog, so its figures cannot stand for the GPUs planned "
          "for",
          d.ordinal, d.name));
    for (const auto& s : sets)
      if (s.gpu && s.gpu->name != *d.catalog_gpu)
        return refuse(
            fmt::format("measured on {} (GPU {}), but the plan is for {}: its peaks do not apply",
                        *d.catalog_gpu, d.ordinal, s.gpu->name));
  }
  // A measured figure far from the GPU's specification is a broken run or an edited file, and
  // would put any step time out of range: between 1 % and 150 % of the catalog's figure.
  auto implausible = [&](std::optional<double> measured, std::optional<double> spec,
                         std::string_view what) -> std::optional<std::string> {
    if (!measured || !spec || *spec <= 0) return std::nullopt;
    if (*measured >= 0.01 * *spec && *measured <= 1.5 * *spec) return std::nullopt;
    return fmt::format(
        "a measured {} of {:.4g} is implausible for {} (specification {:.4g}); expected 1 % to "
        "150 % of it",
        what, *measured, sets.front().gpu->name, *spec);
  };
  if (!sets.empty() && sets.front().gpu) {
    const GpuSpec& g = *sets.front().gpu;
    auto peak = g.peak_tflops.find(peaks.tflops_format == "fp8" ? "fp8" : "fp16_bf16");
    std::optional<double> spec_tflops;
    if (peak != g.peak_tflops.end()) spec_tflops = peak->second;
    if (auto e = implausible(peaks.tflops, spec_tflops, peaks.tflops_format + " GEMM TFLOPS"))
      return refuse(*e);
    if (auto e = implausible(peaks.memory_gbs, g.bandwidth_gbs, "memory bandwidth (GB/s)"))
      return refuse(*e);
  }
  peaks.source = path;
  return peaks;
}

}  // namespace smcompat
