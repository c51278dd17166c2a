// The plans for a request, best first (include/smcompat/plan/plan.hpp: rank_plans, sort_plans):
// the candidate shapes, each estimated by the cost model (plan.cpp); what would make a model fit
// when no plan does (fit_advice); and why the first plan wins (why_wins).
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "plan_internal.hpp"
#include "smcompat/plan/model.hpp"
#include "smcompat/plan/plan.hpp"
#include "smcompat/util/strings.hpp"

namespace smcompat::plan {

using detail::whole_bytes;

namespace {

std::vector<int> divisors(int n) {
  std::vector<int> out;
  for (int i = 1; i <= n; ++i)
    if (n % i == 0) out.push_back(i);
  return out;
}

bool heads_split(const ModelSpec& m, int tp) {
  if (m.heads % tp != 0) return false;
  if (m.attention == AttentionKind::kMla || m.kv_heads <= 0) return true;
  return m.kv_heads % tp == 0 || tp % m.kv_heads == 0;
}

std::vector<PlanShape> candidate_shapes(const ModelSpec& m, int gpus) {
  std::vector<PlanShape> out;
  for (int pp : divisors(gpus)) {
    if (pp > m.layers || pp > 8) continue;
    int per_stage = gpus / pp;
    for (int tp : divisors(per_stage)) {
      if (!heads_split(m, tp)) continue;
      int dp = per_stage / tp;
      if (pp > 1 && dp > 1) continue;  // pipelines of replicas: not offered by the engines' CLIs
      PlanShape s;
      s.tp = tp;
      s.dp = dp;
      s.pp = pp;
      if (!m.is_moe()) {
        out.push_back(s);
        continue;
      }
      s.experts = ExpertMode::kTpSharded;
      out.push_back(s);  // TP-sharded experts (dp > 1: replicas)
      if (tp * dp == 1) continue;
      s.experts = ExpertMode::kExpertParallel;
      if (tp * dp > m.experts) continue;
      if (dp == 1) {
        out.push_back(s);  // TPn+EPn: tokens replicated, experts combined by the all-reduce
      } else {
        s.dp_attention = true;
        s.a2a = AllToAll::kAllgatherReduceScatter;
        out.push_back(s);
        s.a2a = AllToAll::kDeepEp;
        out.push_back(s);
      }
    }
  }
  return out;
}

}  // namespace

std::vector<PlanEstimate> rank_plans(const PlanRequest& request) {
  std::vector<PlanEstimate> plans;
  for (const PlanShape& s : candidate_shapes(request.model, request.gpus.count))
    plans.push_back(estimate(request, s));
  sort_plans(plans);
  return plans;
}

void sort_plans(std::vector<PlanEstimate>& plans) {
  std::stable_sort(plans.begin(), plans.end(), [](const PlanEstimate& x, const PlanEstimate& y) {
    if (x.fits != y.fits) return x.fits;
    if (x.fits) return x.output_tokens_per_s > y.output_tokens_per_s;
    if (x.runnable != y.runnable) return x.runnable;
    return x.memory.total() < y.memory.total();
  });
}

FitAdvice fit_advice(const PlanRequest& request) {
  FitAdvice advice;
  const ModelSpec& m = request.model;
  advice.weights_bytes = whole_bytes(
      double(m.embedding_params()) * 2.0 +
      double(m.mixer_params()) * bytes_per_param(m.attention_format) +
      double(m.dense_ffn_params_per_layer()) * m.dense_layers *
          bytes_per_param(m.attention_format) +
      (double(m.expert_params()) * m.experts + double(m.shared_ffn_params_per_layer())) *
          m.moe_layers * bytes_per_param(m.expert_format) +
      (double(m.router_params_per_layer()) * m.moe_layers +
       double(m.norm_params_per_layer()) * m.layers) *
          2.0);
  PlanEstimate any = estimate(request, PlanShape{});
  advice.usable_bytes =
      request.gpus.count *
      (request.gpus.memory_bytes - std::min(request.gpus.memory_bytes, any.memory.reserve));
  auto fits = [](const PlanRequest& rq) {
    for (const PlanEstimate& e : rank_plans(rq))
      if (e.fits) return true;
    return false;
  };
  for (int n = request.gpus.count + 1; n <= 64 && !advice.gpus_needed; ++n) {
    PlanRequest more = request;
    more.gpus.count = n;
    if (fits(more)) advice.gpus_needed = n;
  }
  for (WeightFormat f :
       {WeightFormat::kFp8, WeightFormat::kNvfp4, WeightFormat::kMxfp4, WeightFormat::kInt4}) {
    if (bytes_per_param(f) >= bytes_per_param(m.expert_format)) continue;
    PlanRequest smaller = request;
    smaller.model.expert_format = f;
    smaller.model.attention_format =
        bytes_per_param(f) < bytes_per_param(m.attention_format) ? f : m.attention_format;
    if (fits(smaller)) advice.formats_that_fit.push_back(f);
    FitAdvice::SmallerFormat most{f, 0, ""};
    for (const PlanEstimate& e : rank_plans(smaller))
      if (e.runnable && e.max_batch_that_fits > most.max_batch)
        most = {f, e.max_batch_that_fits, e.shape.name()};
    advice.smaller_formats.push_back(most);
  }
  return advice;
}

std::string why_wins(const PlanEstimate& w, const PlanEstimate& r) {
  const StepCost& a = w.decode;
  const StepCost& b = r.decode;
  double ratio = r.output_tokens_per_s > 0 ? w.output_tokens_per_s / r.output_tokens_per_s : 0;
  // The term that differs most (in seconds per step) is the reason. Every term is for a whole
  // decode step (a pipeline's pp stage-times included), so plans with and without stages compare
  // like with like.
  double d_mem = b.memory_s - a.memory_s, d_comp = b.compute_s - a.compute_s,
         d_comm = b.comm_s - a.comm_s, d_over = b.overhead_s - a.overhead_s,
         d_prefill = (r.prefill_s - w.prefill_s);
  // Held-out published figures differ from the model by up to 20 % between plans on one machine
  // (docs/plan.md, "Calibration"): a closer call is said to be one.
  std::string lead = fmt::format("{} is {:.2f}x {}'s estimated output tokens/s{}: ", w.shape.name(),
                                 ratio, r.shape.name(),
                                 ratio < 1.2 ? " (a close call, within the model's error: measure "
                                               "both)"
                                             : "");
  auto sent = [](const StepCost& c) {
    return human_bytes(whole_bytes(c.allreduce_bytes + c.all2all_bytes + c.pipeline_bytes));
  };
  double best = std::max({d_mem, d_comp, d_comm, d_over});
  if (best == d_comm && d_comm > 0)
    return lead + fmt::format(
                      "each decode step sends {} per GPU instead of {} ({:.2f} vs {:.2f} ms of "
                      "communication)",
                      sent(a), sent(b), a.comm_s * 1e3, b.comm_s * 1e3);
  if (best == d_mem && d_mem > 0)
    return lead +
           fmt::format("each decode step reads {} per GPU instead of {} ({:.2f} vs {:.2f} ms)",
                       human_bytes(whole_bytes(a.weight_bytes_read + a.kv_bytes_read)),
                       human_bytes(whole_bytes(b.weight_bytes_read + b.kv_bytes_read)),
                       a.memory_s * 1e3, b.memory_s * 1e3);
  if (best == d_comp && d_comp > 0)
    return lead + fmt::format("each decode step computes {:.3g} GFLOP per GPU instead of {:.3g}",
                              a.flops / 1e9, b.flops / 1e9);
  if (best == d_over && d_over > 0)
    return lead + fmt::format(
                      "each decode step's fixed per-layer costs take {:.2f} ms instead "
                      "of {:.2f} ms",
                      a.overhead_s * 1e3, b.overhead_s * 1e3);
  if (d_prefill > 0)
    return lead +
           fmt::format("the prompts take {:.2f} s instead of {:.2f} s", w.prefill_s, r.prefill_s);
  return lead + "the terms are close; the difference is within the model's error";
}

}  // namespace smcompat::plan
