// The cost model (include/smcompat/plan/plan.hpp). Every formula here is written out, with the
// reason for it, in docs/plan.md ("The model, term by term"); the tests in tests/plan/ check each
// term against values computed by hand.
//
// The GPU sets and their links are read in gpu_sets.cpp; the candidate plans are ranked, and
// the winner explained, in ranking.cpp.
#include "smcompat/plan/plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "plan_internal.hpp"
#include "smcompat/util/enum_names.hpp"

namespace smcompat::plan {

namespace detail {

uint64_t whole_bytes(double bytes) {
  constexpr double kMax = double(uint64_t(1) << 62);
  return bytes <= 0 || std::isnan(bytes) ? 0 : bytes >= kMax ? uint64_t(1) << 62 : uint64_t(bytes);
}

}  // namespace detail

using detail::whole_bytes;

namespace {

constexpr std::array<const char*, 3> kAllToAllNames = {"none", "allgather-reducescatter", "deepep"};

// ---- the terms ----------------------------------------------------------------------------

double ceil_div(double a, double b) { return std::ceil(a / b); }

double gib(uint64_t bytes) { return double(bytes) / double(1ull << 30); }

/// Layers of each kind on the busiest pipeline stage.
struct StageLayers {
  double total = 0, dense = 0, moe = 0, sliding = 0;
  double attention = 0;          ///< softmax attention (full + sliding): the layers with a KV cache
  double mamba = 0, linear = 0;  ///< recurrent mixers: a fixed state per sequence
};

StageLayers stage_layers(const ModelSpec& m, int pp) {
  StageLayers s;
  s.total = ceil_div(m.layers, pp);
  double share = s.total / m.layers;  // the busiest stage's share of each kind of layer
  s.dense = m.dense_layers * share;
  s.moe = m.moe_layers * share;
  s.sliding = m.sliding_window_layers * share;
  s.attention = m.attention_layers() * share;
  s.mamba = m.mamba_layers * share;
  s.linear = m.linear_layers * share;
  return s;
}

/// Fraction of the KV heads one TP rank holds (GQA heads split, replicated when tp > kv_heads;
/// MLA's latent is the same for every head, so every TP rank holds all of it).
double kv_shard(const ModelSpec& m, int tp) {
  if (m.attention == AttentionKind::kMla || m.kv_heads <= 0) return 1.0;
  return std::ceil(double(m.kv_heads) / tp) / m.kv_heads;
}

/// Expected number of distinct experts (of `experts`) that `tokens` tokens, each choosing `k`,
/// touch: E x (1 - (1 - k/E)^T). Uniform routing; the load-imbalance term covers skew.
double distinct_experts(double experts, double k, double tokens) {
  if (experts <= 0 || tokens <= 0) return 0;
  return experts * (1.0 - std::pow(1.0 - k / experts, tokens));
}

/// The busiest of `ranks` ranks receives this many times the mean of `tokens` x k assignments:
/// the binomial's mean plus 2 standard deviations, times the configured skew.
double load_imbalance(double tokens, double k, int ranks, double skew) {
  if (ranks <= 1 || tokens <= 0) return 1.0;
  double mean = tokens * k / ranks;
  double sd = std::sqrt(mean * (1.0 - 1.0 / ranks));
  // The cap last: however skewed, the busiest rank cannot hold more than every assignment.
  return std::min<double>(ranks, (mean + 2 * sd) / mean * skew);
}

/// The mean of min(p, window) over positions p spread evenly over [first, last]: the context one
/// token attends to in a sliding-window layer (window 0: no window, the mean position).
double mean_attended(double first, double last, double window) {
  if (window <= 0 || window >= last) return (first + last) / 2;
  if (window <= first || last <= first) return std::min(first, window);
  // (integral of p from first to window + window x (last - window)) / (last - first)
  return ((window * window - first * first) / 2 + window * (last - window)) / (last - first);
}

/// What the tensor cores run at for this model on this GPU: the weights' format when the
/// architecture has it, else BF16 (the weights are widened on the fly: Marlin-style W8A16/W4A16).
struct ComputeFormat {
  std::string peak_key;  ///< "fp8", "fp4", "fp16_bf16"
  std::string note;      ///< set when the weights' format is not computed natively
};

ComputeFormat compute_format(const ModelSpec& m, const GpuSpec& g, const Catalog& catalog) {
  const ArchInfo* arch = catalog.arch(g.cc.arch());
  auto has = [&](const char* f) { return arch && arch->has_feature(f); };
  auto fallback = [&](std::string why) {
    return ComputeFormat{g.peak_tflops.count("fp16_bf16") ? "fp16_bf16" : "fp16_acc16",
                         std::move(why)};
  };
  switch (m.expert_format) {
    case WeightFormat::kFp8:
      if (has("fp8")) return {"fp8", ""};
      return fallback(fmt::format(
          "FP8 weights on sm_{}: no FP8 tensor cores, computed in BF16 (weight-only FP8, "
          "e.g. Marlin)",
          g.cc.arch()));
    case WeightFormat::kMxfp4:
    case WeightFormat::kNvfp4:
      if (has("fp4") && g.peak_tflops.count("fp4")) return {"fp4", ""};
      if (has("fp8"))
        return {"fp8", fmt::format("{} weights on sm_{}: no FP4 tensor cores here, computed "
                                   "in FP8/BF16 after widening",
                                   to_string(m.expert_format), g.cc.arch())};
      return fallback(fmt::format("{} weights on sm_{}: computed in BF16 after widening",
                                  to_string(m.expert_format), g.cc.arch()));
    default:
      return fallback("");
  }
}

}  // namespace

std::string_view to_string(AllToAll a) { return enum_name(a, kAllToAllNames); }

std::string PlanShape::name() const {
  std::string s;
  if (pp > 1) s += fmt::format("PP{}x", pp);
  bool ep_on = experts == ExpertMode::kExpertParallel;
  if (dp > 1 && dp_attention) {
    s += tp > 1 ? fmt::format("TP{}xDP{} attention+EP{}", tp, dp, ep())
                : fmt::format("DP{} attention+EP{}", dp, ep());
  } else if (dp > 1) {
    s += tp > 1 ? fmt::format("DP{}xTP{}", dp, tp) : fmt::format("DP{}", dp);
  } else {
    s += fmt::format("TP{}", tp);
    if (ep_on) s += fmt::format("+EP{}", ep());
  }
  if (a2a != AllToAll::kNone) s += fmt::format(" ({})", to_string(a2a));
  return s;
}

PlanEstimate estimate(const PlanRequest& rq, const PlanShape& shape) {
  PlanEstimate e;
  e.shape = shape;
  e.gpu_memory_bytes = rq.gpus.memory_bytes;
  if (!rq.gpus.gpu) {
    e.runnable = false;
    e.why_not.push_back("no GPU: the GPU set names no catalog entry");
    return e;
  }
  const ModelSpec& m = rq.model;
  const GpuSpec& g = *rq.gpus.gpu;
  const PlanAssumptions& a = rq.assumptions;
  const Catalog& catalog = Catalog::builtin();

  const int tp = shape.tp, dp = shape.dp, pp = shape.pp, ep = shape.ep();
  const bool ep_on = shape.experts == ExpertMode::kExpertParallel;
  const StageLayers L = stage_layers(m, pp);
  const double attn_b = bytes_per_param(m.attention_format);
  const double expert_b = bytes_per_param(m.expert_format);
  const double emb_b = 2.0;  // embeddings and LM head stay BF16 in every checkpoint read here

  // ---- memory per GPU (the busiest stage; one rank) ----
  double embedding_gpu = double(m.embedding_params()) / tp;
  if (pp > 1 && !m.tied_embeddings)
    embedding_gpu /= 2;  // input on the first stage, head on the last
  // Every layer's mixer, split over TP: attention where the layer attends, Mamba or Gated
  // DeltaNet where it is recurrent (their projections split by heads like attention's).
  double attn_params_gpu = (double(m.attention_params_per_layer()) * L.attention +
                            double(m.mamba_params_per_layer()) * L.mamba +
                            double(m.linear_attention_params_per_layer()) * L.linear) /
                           tp;
  double dense_params_gpu = double(m.dense_ffn_params_per_layer()) * L.dense / tp;
  double shared_params_gpu = double(m.shared_ffn_params_per_layer()) * L.moe / tp;
  // Routers and norms are small and kept whole on every rank, in the checkpoint's 16 bits.
  double router_params_gpu =
      double(m.router_params_per_layer()) * L.moe + double(m.norm_params_per_layer()) * L.total;
  double local_experts = ep_on ? std::ceil(double(m.experts) / ep) : double(m.experts);
  double expert_params_gpu =
      double(m.expert_params()) * local_experts * L.moe / (ep_on ? 1.0 : double(tp));
  double weights = embedding_gpu * emb_b + (attn_params_gpu + dense_params_gpu) * attn_b +
                   (shared_params_gpu + expert_params_gpu) * expert_b + router_params_gpu * emb_b;
  e.memory.weights = whole_bytes(weights);

  const Workload& w = rq.workload;
  const double seqs_rank = std::ceil(double(w.batch) / dp);  // sequences one attention rank holds
  const double ctx_max = double(w.prompt_len) + w.gen_len;
  const double kv_token_layer = double(m.kv_bytes_per_token_per_layer()) * kv_shard(m, tp);
  const double window = m.sliding_window > 0 ? double(m.sliding_window) : 0.0;
  auto kv_per_seq = [&](double ctx) {
    double full_layers = L.attention - L.sliding;
    double held = window > 0 ? std::min(ctx, window) : ctx;
    return (full_layers * ctx + L.sliding * held) * kv_token_layer;
  };
  e.memory.kv_cache = whole_bytes(seqs_rank * kv_per_seq(ctx_max));
  // Recurrent state (Mamba SSM + convolution, Gated DeltaNet): fixed per sequence, whatever the
  // context, split over TP by heads.
  const double state_per_seq = (double(m.mamba_state_bytes_per_layer()) * L.mamba +
                                double(m.linear_state_bytes_per_layer()) * L.linear) /
                               tp;
  e.memory.state = whole_bytes(seqs_rank * state_per_seq);

  // Activations: one prefill chunk's hidden states (4 live copies) and FFN intermediates (gate
  // and up), plus the sampled rows' FP32 logits.
  const double chunk = a.prefill_chunk_tokens;
  double ffn_width = 0;
  if (m.dense_layers > 0) ffn_width = double(m.intermediate) / tp;
  if (m.is_moe()) {
    double moe_width = double(m.experts_per_token) * m.moe_intermediate / (ep_on ? 1.0 : tp);
    ffn_width = std::max(ffn_width, moe_width + double(m.shared_intermediate) / tp);
  }
  auto logits = [&](double seqs) { return seqs * double(m.vocab) / tp * 4.0; };
  double act_fixed = chunk * m.hidden * 2.0 * 4 + chunk * ffn_width * 2.0 * 2;
  e.memory.activations = whole_bytes(act_fixed + logits(seqs_rank));
  e.memory.reserve = whole_bytes((1.0 - a.memory_utilization) * double(rq.gpus.memory_bytes)) +
                     a.runtime_overhead_bytes;

  // Largest batch at these lengths: what is left after weights, reserve and the fixed
  // activations, per sequence of KV cache and logits, times the attention ranks.
  double left = double(rq.gpus.memory_bytes) - double(e.memory.weights) - double(e.memory.reserve) -
                act_fixed;
  double per_seq = kv_per_seq(ctx_max) + state_per_seq + logits(1);
  e.max_batch_that_fits =
      left > 0 && per_seq > 0 ? int(std::min(1e9, std::floor(left / per_seq) * dp)) : 0;

  // ---- runnable? ----
  const ArchInfo* arch = catalog.arch(g.cc.arch());
  if (shape.a2a == AllToAll::kDeepEp) {
    if (rq.gpus.link.kind != LinkKind::kNvlink)
      e.why_not.push_back(fmt::format(
          "DeepEP needs NVLink (or InfiniBand) between the GPUs for NVSHMEM; these talk over {}",
          rq.gpus.link.kind == LinkKind::kPcieP2p ? "PCIe" : "PCIe without P2P"));
    bool deepgemm = arch && (arch->has_feature("wgmma", ArchVariant::kArchSpecific) ||
                             arch->has_feature("tcgen05", ArchVariant::kArchSpecific));
    if (!deepgemm)
      e.why_not.push_back(fmt::format(
          "DeepEP's FP8 expert path runs DeepGEMM, which has kernels for sm_90a (wgmma) and "
          "sm_100a (tcgen05) only; sm_{} has neither",
          g.cc.arch()));
  }
  // Block-quantised FP8 needs each TP rank's slice of an FFN to be whole blocks (128 wide): the
  // routed experts when TP splits them, the shared experts and the dense FFN always. In integers
  // of the whole width, so that no remainder is lost to a division.
  if (m.weight_block > 0 && tp > 1) {
    auto whole_blocks = [&](const char* what, int width, WeightFormat format, const char* instead) {
      if (format != WeightFormat::kFp8 || width <= 0) return;
      if (int64_t(width) % (int64_t(m.weight_block) * tp) == 0) return;
      e.why_not.push_back(fmt::format(
          "FP8 block quantisation ({0}x{0}): {1} width {2} over TP{3} is {4:g} per rank, not a "
          "multiple of {0} (the engines refuse it); {5}",
          m.weight_block, what, width, tp, double(width) / tp, instead));
    };
    if (m.is_moe() && !ep_on)
      whole_blocks("an expert's", m.moe_intermediate, m.expert_format,
                   "use expert parallelism or a smaller TP");
    if (m.is_moe() && m.shared_intermediate > 0)
      whole_blocks("the shared experts'", m.shared_intermediate, m.expert_format,
                   "use a smaller TP");
    if (m.dense_layers > 0)
      whole_blocks("the dense FFN's", m.intermediate, m.attention_format, "use a smaller TP");
  }
  e.runnable = e.why_not.empty();
  if (rq.gpus.link.kind == LinkKind::kPcieHost && shape.gpus() > 1)
    e.notes.push_back("no peer-to-peer access: NCCL copies through host memory");
  ComputeFormat cf = compute_format(m, g, catalog);
  if (!cf.note.empty()) e.notes.push_back(cf.note);

  // ---- the GPU's peaks: measured, else the catalog's ----
  // The tensor peak of the compute format, else the next wider one the catalog lists for this
  // GPU; with none, compute time is not estimated, and the plan says so.
  double peak_tflops = 0;
  if (rq.measured_tflops) {
    peak_tflops = *rq.measured_tflops;
  } else {
    constexpr std::array<const char*, 4> kWider = {"fp4", "fp8", "fp16_bf16", "fp16_acc16"};
    auto from = std::find(kWider.begin(), kWider.end(), cf.peak_key);
    for (auto it = from; it != kWider.end() && peak_tflops <= 0; ++it) {
      auto peak = g.peak_tflops.find(*it);
      if (peak == g.peak_tflops.end() || peak->second <= 0) continue;
      peak_tflops = peak->second;
      if (it != from)
        e.notes.push_back(
            fmt::format("the catalog lists no {} tensor peak for the {}: compute "
                        "time taken at its {} peak",
                        cf.peak_key, g.name, *it));
    }
    if (peak_tflops <= 0)
      e.notes.push_back(fmt::format(
          "the catalog lists no tensor peak for the {} ({} or wider): compute time is unknown "
          "and left out (pass --bench RESULTS.json)",
          g.name, cf.peak_key));
  }
  double mem_gbs = rq.measured_memory_gbs.value_or(g.bandwidth_gbs.value_or(0));
  if (mem_gbs <= 0)
    e.notes.push_back(fmt::format(
        "the catalog lists no memory bandwidth for the {}: memory time is unknown and left out "
        "(pass --bench RESULTS.json)",
        g.name));
  const Link& link = rq.gpus.link;
  const double bw = link.gbs_per_direction * 1e9 * link.efficiency;
  const double lat = link.latency_us * 1e-6;
  const double act_bytes = 2.0;  // BF16 hidden states

  // ---- time: one step of `tokens_total` new tokens, `tokens_per_seq` per sequence ----
  // What the step's tokens attend to, per full and per sliding-window layer: the mean context
  // of a query (attention FLOPs), and the KV cache tokens read per sequence (bytes).
  struct Context {
    double attend_full = 0, attend_sliding = 0;  ///< mean context a query attends to
    double kv_full = 0, kv_sliding = 0;          ///< KV tokens read per sequence
    bool mla_absorbed = true;  ///< MLA: attention over the latent (decode), else decompressed
  };
  const double full_layers = L.attention - L.sliding;
  // A decode step reads the LM head whole but only the embedding rows of its tokens (a lookup).
  const double head_gpu = double(m.lm_head_params()) / tp;
  auto step = [&](double tokens_total, double tokens_per_seq, const Context& ctx) {
    StepCost c;
    double tokens_rank = std::ceil(tokens_total / dp);
    double stage_tokens = tokens_total;  // tokens through the MoE layers of one stage
    // Weights read: everything but the routed experts, then the distinct experts touched.
    double non_expert_bytes = (head_gpu + tokens_rank * m.hidden) * emb_b +
                              (attn_params_gpu + dense_params_gpu) * attn_b +
                              shared_params_gpu * expert_b + router_params_gpu * emb_b;
    double expert_bytes = 0;
    double moe_tokens_rank = 0;  // token-expert pairs this rank computes, per MoE layer
    if (m.is_moe()) {
      double k = m.experts_per_token;
      if (ep_on) {
        c.expert_load_imbalance = load_imbalance(stage_tokens, k, ep, a.routing_skew);
        moe_tokens_rank = stage_tokens * k / ep * c.expert_load_imbalance;
        double touched = distinct_experts(m.experts, k, stage_tokens) / ep;
        expert_bytes = touched * double(m.expert_params()) * L.moe * expert_b;
      } else {
        // Sharded experts (or a replica): a rank sees its replica's tokens, 1/tp of each expert.
        moe_tokens_rank = tokens_rank * k;
        double touched = distinct_experts(m.experts, k, tokens_rank);
        expert_bytes = touched * double(m.expert_params()) / tp * L.moe * expert_b;
      }
    }
    c.weight_bytes_read = non_expert_bytes + expert_bytes;
    double seqs = tokens_rank / tokens_per_seq;
    c.kv_bytes_read =
        seqs * (full_layers * ctx.kv_full + L.sliding * ctx.kv_sliding) * kv_token_layer;
    // Each sequence's recurrent state is read and written back once per step.
    c.state_bytes = 2.0 * seqs * state_per_seq;
    // FLOPs: 2 per weight per token (dense parts on this rank's tokens, split over TP), the
    // experts' token pairs, and attention over the context: 2 x (q.k width + v width) per head
    // and context token.
    double dense_flops = 2.0 * tokens_rank *
                         (embedding_gpu / (m.tied_embeddings || pp > 1 ? 1 : 2) + attn_params_gpu +
                          dense_params_gpu + shared_params_gpu);
    double expert_flops =
        2.0 * moe_tokens_rank * double(m.expert_params()) / (ep_on ? 1.0 : tp) * L.moe;
    double heads_rank = double(m.heads) / tp;
    double per_ctx = 0;
    if (m.attention == AttentionKind::kMla && ctx.mla_absorbed)
      per_ctx = 2.0 * heads_rank * (2.0 * m.kv_lora_rank + m.qk_rope_head_dim);
    else if (m.attention == AttentionKind::kMla)
      per_ctx = 2.0 * heads_rank * (double(m.qk_nope_head_dim) + m.qk_rope_head_dim + m.v_head_dim);
    else
      per_ctx = 4.0 * heads_rank * m.head_dim;
    double attn_ctx_flops =
        tokens_rank * per_ctx * (full_layers * ctx.attend_full + L.sliding * ctx.attend_sliding);
    c.flops = dense_flops + expert_flops + attn_ctx_flops;
    c.memory_s = mem_gbs > 0 ? (c.weight_bytes_read + c.kv_bytes_read + c.state_bytes) /
                                   (mem_gbs * 1e9 * a.memory_efficiency)
                             : 0;
    c.compute_s = peak_tflops > 0 ? c.flops / (peak_tflops * 1e12 * a.compute_efficiency) : 0;

    // Communication, per GPU sent, and its time: bandwidth term plus per-step latency.
    double comm_s = 0;
    if (tp > 1) {
      // Ring all-reduce: 2(tp-1)/tp of the message, 2(tp-1) steps. Two per layer (attention
      // output, FFN output); with EP across DP ranks the MoE output is combined by the
      // all-to-all instead.
      double per_layer = (ep_on && dp > 1) ? 1.0 + (L.total - L.moe) / L.total : 2.0;
      double msgs = per_layer * L.total;
      double msg_bytes = tokens_rank * m.hidden * act_bytes;
      c.allreduce_bytes = msgs * 2.0 * (tp - 1) / tp * msg_bytes;
      comm_s += c.allreduce_bytes / bw + msgs * 2.0 * (tp - 1) * lat;
    }
    if (ep_on && dp > 1 && m.is_moe()) {
      double k = m.experts_per_token;
      if (shape.a2a == AllToAll::kDeepEp) {
        // Each token goes once to every rank holding one of its experts (FP8 dispatch, BF16
        // combine); the busiest rank receives imbalance x the mean.
        double ranks_per_token = ep * (1.0 - std::pow(1.0 - 1.0 / ep, k));
        double remote = ranks_per_token * (ep - 1.0) / ep;
        double per_layer = tokens_rank * remote * m.hidden * (1.0 + 2.0) * c.expert_load_imbalance;
        c.all2all_bytes = per_layer * L.moe;
        comm_s += c.all2all_bytes / bw + L.moe * 2.0 * lat;
      } else {
        // All-gather every rank's tokens, reduce-scatter the outputs (BF16 both ways).
        double per_layer = 2.0 * (dp - 1.0) / dp * tokens_total * m.hidden * act_bytes;
        c.all2all_bytes = per_layer * L.moe;
        comm_s += c.all2all_bytes / bw + L.moe * 2.0 * (dp - 1) * lat;
      }
    }
    c.comm_s = comm_s;
    c.overhead_s = L.total * a.per_layer_overhead_us * 1e-6;
    c.step_s = std::max(c.memory_s, c.compute_s) + c.comm_s + c.overhead_s;
    return c;
  };

  // Decode: one token for each of the B sequences, at positions L .. L + G. A token attends to
  // its whole context in a full layer (L + G/2 on average) and to at most the window in a
  // sliding layer, and reads exactly that much KV cache; MLA attends over the latent (absorbed).
  const double B = w.batch, P = w.prompt_len, G = w.gen_len;
  Context decode_ctx;
  decode_ctx.attend_full = decode_ctx.kv_full = P + G / 2;
  decode_ctx.attend_sliding = decode_ctx.kv_sliding = mean_attended(P, P + G, window);
  // With pipeline stages the batch runs as pp micro-batches of B/pp, one per stage at a time: a
  // sequence waits pp stage-times per token. Each micro-batch crosses each of the pp - 1 stage
  // boundaries once; a GPU of a stage that sends (every stage but the last) sends each of the
  // pp micro-batches once per step, in series with its compute. Every term of `decode` is for the
  // whole step (pp stage-times), so that plans with and without stages compare term by term.
  StepCost d = step(B / pp, 1.0, decode_ctx);
  if (pp > 1) {
    double micro_tokens = std::ceil(B / pp / dp);
    double send_bytes = micro_tokens * m.hidden * act_bytes;
    d.weight_bytes_read *= pp;
    d.kv_bytes_read *= pp;
    d.state_bytes *= pp;
    d.flops *= pp;
    d.allreduce_bytes *= pp;
    d.all2all_bytes *= pp;
    d.pipeline_bytes = pp * send_bytes;
    d.memory_s *= pp;
    d.compute_s *= pp;
    d.comm_s = pp * (d.comm_s + send_bytes / bw + lat);
    d.overhead_s *= pp;
    d.step_s = std::max(d.memory_s, d.compute_s) + d.comm_s + d.overhead_s;
  }
  e.decode = d;

  // Prefill: the B prompts as one step of B x L tokens. A query at position p attends to p
  // tokens (L/2 on average) or at most the window; the attention kernel reads each prompt's K
  // and V once (L tokens per layer, sliding layers too: every key is in some query's window);
  // MLA prefill decompresses the latent into per-head keys and values (as vLLM and SGLang run
  // it), so its attention costs 2 x (qk_nope + qk_rope + v) per head and context token.
  Context prefill_ctx;
  prefill_ctx.attend_full = P / 2;
  prefill_ctx.attend_sliding = mean_attended(0, P, window);
  prefill_ctx.kv_full = prefill_ctx.kv_sliding = P;
  prefill_ctx.mla_absorbed = false;
  StepCost p = step(B * P, P, prefill_ctx);
  // Each rank's prompts run in chunks of prefill_chunk_tokens: one fixed overhead per chunk.
  const double prompt_tokens_rank = std::ceil(B * P / dp);
  double chunks = std::max(1.0, std::ceil(prompt_tokens_rank / a.prefill_chunk_tokens));
  e.prefill_s = p.step_s + (chunks - 1) * p.overhead_s;
  if (pp > 1) {
    // The stages work on successive chunks at once: each stage takes the time above for all the
    // tokens, sends them all to the next stage (one latency per chunk), and the last stage
    // starts pp - 1 chunk-times after the first.
    double send_s = prompt_tokens_rank * m.hidden * act_bytes / bw + chunks * lat;
    double per_chunk = (e.prefill_s + send_s) / chunks;
    e.prefill_s += send_s + (pp - 1) * per_chunk;
  }
  e.tpot_ms = d.step_s * 1e3;
  e.decode_tokens_per_s = d.step_s > 0 ? B / d.step_s : 0;
  double total_s = e.prefill_s + G * d.step_s;
  e.output_tokens_per_s = total_s > 0 ? B * G / total_s : 0;

  if (e.memory.total() > rq.gpus.memory_bytes)
    e.why_not.push_back(fmt::format(
        "needs {:.1f} GiB per GPU (weights {:.1f}, KV cache {:.1f}, {}activations {:.1f}, "
        "reserve {:.1f} GiB); a GPU has {:.1f} GiB",
        gib(e.memory.total()), gib(e.memory.weights), gib(e.memory.kv_cache),
        e.memory.state > 0 ? fmt::format("recurrent state {:.1f}, ", gib(e.memory.state))
                           : std::string(),
        gib(e.memory.activations), gib(e.memory.reserve), gib(rq.gpus.memory_bytes)));
  e.fits = e.why_not.empty();
  return e;
}

}  // namespace smcompat::plan
