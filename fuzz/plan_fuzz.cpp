// libFuzzer target for `smcompat plan`'s untrusted inputs: a config.json (any bytes), planned on
// a fixed GPU set when it reads as a model, and the whole report made of it (ranking, commands,
// fit advice where nothing fits, text and JSON rendering, as `smcompat plan` prints them); a
// --gpus spec; a --from command line rewritten to a fixed plan. The first byte picks which.
// Invariants: no crash, no hang, no undefined behaviour (the sanitizer build), every error says
// what it is about, every plan's memory terms add up, its decode step is the sum of its terms.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "smcompat/plan/engine.hpp"
#include "smcompat/plan/plan.hpp"
#include "smcompat/report/plan_report.hpp"

namespace {

using namespace smcompat;
using namespace smcompat::plan;

void check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  const Catalog& catalog = Catalog::builtin();
  switch (data[0] % 3) {
    case 0: {
      auto model = parse_model_config(text, "fuzz.json");
      if (!model.ok()) {
        check(!model.error().what.empty());
        if (model.error().offset) check(*model.error().offset <= text.size());
        break;
      }
      if (!model->is_moe() && model->layers > 0) break;
      auto sets = parse_gpu_sets("4xRTX PRO 6000", catalog);
      check(sets.ok());
      PlanRequest rq;
      rq.model = *model;
      rq.gpus = sets->front();
      rq.workload = {8, 256, 256};
      for (const PlanEstimate& e : rank_plans(rq)) {
        check(e.memory.total() >= e.memory.weights);
        check(e.fits == (e.why_not.empty()));
        const StepCost& d = e.decode;
        double sum = std::max(d.memory_s, d.compute_s) + d.comm_s + d.overhead_s;
        check(!(std::abs(d.step_s - sum) > 1e-9 * std::max(1.0, sum)));
      }
      // The report `smcompat plan` prints, in text and JSON (no --python, no --from).
      PlanReportOptions options;
      options.model_id = "fuzz/model";
      auto report = build_plan_report(rq, *sets, options);
      if (!report.ok()) {
        check(!report.error().what.empty());
        break;
      }
      check(!render_plan_text(*report, Style::plain()).empty());
      check(plan_to_json(*report, {"smcompat", "plan"}).is_object());
      break;
    }
    case 1: {
      auto sets = parse_gpu_sets(text, catalog);
      if (!sets.ok())
        check(sets.error().what.find("--gpus") != std::string::npos);
      else
        for (const GpuSet& s : *sets) check(s.count > 0 && s.gpu != nullptr);
      break;
    }
    case 2: {
      PlanShape shape;
      shape.tp = 2;
      shape.dp = 2;
      shape.experts = ExpertMode::kExpertParallel;
      shape.dp_attention = true;
      shape.a2a = AllToAll::kAllgatherReduceScatter;
      auto rewrite = rewrite_command(text, shape, Workload{});
      if (!rewrite.ok()) check(!rewrite.error().what.empty());
      break;
    }
  }
  return 0;
}
