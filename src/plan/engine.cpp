// The engine command lines (include/smcompat/plan/engine.hpp): a PlanShape said as vLLM, SGLang
// or TensorRT-LLM flags. An existing command line is read in engine_args.cpp and rewritten to say
// the plan in engine_rewrite.cpp; the flag spellings cited here are the ones all three follow.
//
// Flag spellings and what they mean, from the engines' own pages and sources:
// - vLLM: --tensor-parallel-size/-tp, --pipeline-parallel-size/-pp, --data-parallel-size/-dp,
//   --enable-expert-parallel (a BooleanOptionalAction, so --no-enable-expert-parallel too),
//   --all2all-backend; long options may be written with underscores (FlexibleArgumentParser).
//   vllm/engine/arg_utils.py (github.com/vllm-project/vllm, commit 99d7eb5d).
//   -ep for --enable-expert-parallel is in newer releases' arg_utils.py; it is recognised in a
//   rewrite and never emitted.
//   EP size = TP x DP; backends allgather_reducescatter (default, any link), deepep_low_latency
//   (decode), deepep_high_throughput (prefill): docs.vllm.ai/en/latest/serving/
//   expert_parallel_deployment/. The backend is read only where vLLM runs an all-to-all:
//   ParallelConfig.use_all2all (vllm/config/parallel.py) is data_parallel_size > 1 (or expert
//   parallelism with prefill context parallelism), so a TP-only EP plan gets no --all2all-backend
//   and one with DP always gets it, said explicitly.
//   VLLM_ALL2ALL_BACKEND is the older spelling: --all2all-backend replaced it in vLLM 0.11.1
//   (PR #26732, merged 2025-10 after 0.11.0, whose parser refuses the flag: vllm issue #27347; the
//   flag overrides the variable, which still worked with a deprecation warning), and the variable
//   was removed after 0.15 (PR #33535, 2026-02): vLLM >= 0.16 ignores it. A rewrite therefore says
//   the backend with the flag and removes a prefix assignment; an exported one (or one set apart
//   from the command) cannot be removed from here and is kept.
//   Data-parallel placement (arg_utils.py): --data-parallel-size-local/-dpl,
//   --data-parallel-rank/-dpn, --data-parallel-start-rank/-dpr, --data-parallel-address/-dpa,
//   --data-parallel-rpc-port/-dpp, --data-parallel-hybrid-lb/-dph and the external-LB switches
//   --data-parallel-external-lb/-dpe, --data-parallel-multi-port-external-lb/-dpm; multi-node:
//   --nnodes/-n, and `vllm serve --headless` for the nodes without an API server. They go with
//   the DP size; -dpl is set to it only on one machine (none of the others given). DCP reuses the
//   TP ranks: "tp_size must be divisible by dcp_size" (parallel.py, without prefill context
//   parallelism).
//   With --data-parallel-size on an MoE model the DP ranks are not independent: "By default,
//   expert layers form a tensor parallel group of size DP x TP" (docs.vllm.ai/en/latest/serving/
//   data_parallel_deployment/). So pure replicas of an MoE model are separate servers, and each
//   DP rank is its own engine core with its own scheduler: --max-num-seqs is per rank.
// - SGLang: --tp-size/--tensor-parallel-size, --dp-size/--data-parallel-size,
//   --ep-size/--expert-parallel-size/--ep, --pp-size/--pipeline-parallel-size,
//   --enable-dp-attention, --moe-a2a-backend (none = all-reduce/all-gather dispatch, the default;
//   deepep): python/sglang/srt/server_args.py (github.com/sgl-project/sglang), and
//   docs.sglang.io/advanced_features/expert_parallelism.html, docs.sglang.io/cookbook/base/
//   reference/server_arguments. `--tp 2`, `--dp 2` in docs.sglang.io/docs/advanced_features/
//   server_arguments are argparse prefixes of --tp-size/--dp-size.
//   --tp-size counts every GPU of a pipeline stage: with --enable-dp-attention the attention TP
//   size is tp_size // dp_size (engine.py _compute_parallelism_ranks), and --max-running-requests
//   is divided over the DP-attention ranks, rounded down (model_runner: max_running_requests //
//   dp_size), so the emitted limit is a multiple of the DP size; plain --dp-size ranks are
//   replicas, each with the full limit.
//   --enable-dp-lm-head ("Please enable dp attention when setting enable_dp_lm_head") and, in
//   newer releases, --enable-tp-lm-head-all-to-all (same check, and tp_size == dp_size) need DP
//   attention: server_args.py. They go when it does.
//   Older releases: --enable-ep-moe ("The ep size is equal to the tp size") and
//   --enable-deepep-moe, both replaced by --ep-size and --moe-a2a-backend.
// - TensorRT-LLM: trtllm-serve MODEL --tp_size --pp_size --ep_size --max_batch_size --max_seq_len
//   --extra_llm_api_options (newer releases: --config, the old name kept as an alias); long
//   aliases --tensor_parallel_size, --pipeline_parallel_size, --moe_expert_parallel_size:
//   tensorrt_llm/commands/serve.py (github.com/NVIDIA/TensorRT-LLM). The YAML file overrides the
//   command line (serve.py: update_llm_args_with_extra_dict after the flags). serve is the
//   default subcommand of a group that also holds disaggregated, disaggregated_mpi_worker, grpc
//   and mm_embedding_serve; those are not rewritten.
//   nvidia.github.io/TensorRT-LLM/1.1.0rc5/commands/trtllm-serve/trtllm-serve.html. Attention DP
//   is `enable_attention_dp: true` in that YAML (nvidia.github.io/TensorRT-LLM/examples/
//   deepseek_r1_reasoning_parser.html: --tp_size 8 --ep_size 8 with it); trtllm-serve has no
//   data-parallel flag, so replicas are separate servers behind a router. --max_batch_size under
//   attention DP is taken as per rank (each rank schedules its own requests): the pages read do
//   not say it outright.
#include "smcompat/plan/engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine_internal.hpp"
#include "smcompat/util/enum_names.hpp"
#include "smcompat/util/shell.hpp"

namespace smcompat::plan::detail {

// ---------------------------------------------------------------------------------------------
// What the plan asks of an engine.

std::string plural(int n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

Layout layout_of(const PlanShape& s) {
  Layout l;
  l.tp = std::max(1, s.tp);
  l.dp = std::max(1, s.dp);
  l.pp = std::max(1, s.pp);
  l.moe = s.experts != ExpertMode::kNone;
  l.ep = s.experts == ExpertMode::kExpertParallel;
  // EP with DP ranks is always DP attention (the experts are shared over the ranks); a dense
  // model has no experts to share, so its DP ranks are replicas.
  l.attention_dp = l.dp > 1 && l.moe && (s.dp_attention || l.ep);
  l.replicas = l.dp > 1 && !l.attention_dp;
  l.deepep = l.ep && s.a2a == AllToAll::kDeepEp;
  return l;
}

namespace {

int ceil_div(int a, int b) { return b <= 0 ? a : (a + b - 1) / b; }

// "attention and dense layers split over 4 GPUs" and the like, for a TP size within a replica.
std::string tp_phrase(const Layout& l) {
  std::string s;
  if (l.tp == 1) {
    s = l.moe && l.ep ? "attention and dense layers on one GPU" : "the whole model on one GPU";
  } else if (!l.moe) {
    s = fmt::format("attention and dense layers split over {} GPUs", l.tp);
  } else if (l.ep) {
    s = fmt::format("attention and dense layers split over {} GPUs; the experts placed whole",
                    l.tp);
  } else {
    s = fmt::format("attention, dense layers and every expert split over {} GPUs", l.tp);
  }
  if (l.pp > 1) s += fmt::format(", in each of {} pipeline stages", l.pp);
  return s;
}

std::string pp_why(const Layout& l) {
  return fmt::format("the layers split into {} stages run one after another, {} in all", l.pp,
                     plural(l.tp * l.dp * l.pp, "GPU", "GPUs"));
}

std::string replica_note(int dp, std::string_view engine_reason) {
  return fmt::format(
      "; this command is one of {} replicas: start {} of them on separate GPUs "
      "(CUDA_VISIBLE_DEVICES) behind a router ({})",
      dp, dp, engine_reason);
}

Desired present(Param p, std::string name, std::string value, std::string why) {
  return Desired{p, std::move(name), std::move(value), true, std::move(why), {}};
}
Desired absent(Param p, std::string name, std::string why) {
  return Desired{p, std::move(name), "", false, std::move(why), {}};
}

std::string ep_removed_why(const Layout& l) {
  return l.moe ? "removed: the experts are split over the TP ranks in this plan, not placed whole"
               : "removed: a dense model has no experts to place";
}

std::string dp_removed_why(const Layout& l) {
  return fmt::format("removed: no data parallelism in this plan: one engine over {}",
                     plural(l.tp * l.pp, "GPU", "GPUs"));
}

std::string limit_len_why(const Workload& w) {
  return fmt::format("{} prompt + {} output tokens", w.prompt_len, w.gen_len);
}

std::vector<Desired> vllm_desired(const Layout& l, const Workload& w) {
  std::vector<Desired> d;
  std::string tp_why;
  if (l.attention_dp) {
    tp_why = fmt::format("attention on {} in each of the {} data-parallel ranks",
                         plural(l.tp, "GPU", "GPUs"), l.dp);
    if (l.pp > 1) tp_why += fmt::format(", in each of {} pipeline stages", l.pp);
  } else {
    tp_why = tp_phrase(l);
    if (l.replicas && l.moe)
      tp_why += replica_note(l.dp,
                             "vLLM's --data-parallel-size would split an MoE model's experts over "
                             "all the replicas' GPUs");
  }
  d.push_back(present(Param::kTp, "--tensor-parallel-size", std::to_string(l.tp), tp_why));
  if (l.pp > 1)
    d.push_back(present(Param::kPp, "--pipeline-parallel-size", std::to_string(l.pp), pp_why(l)));
  else
    d.push_back(
        absent(Param::kPp, "--pipeline-parallel-size", "removed: no pipeline stages in this plan"));
  if (l.attention_dp) {
    std::string why = fmt::format(
        "{} data-parallel attention ranks, each with its own requests and KV cache; ", l.dp);
    why += l.ep ? fmt::format("the experts are shared over all {} GPUs", l.group())
                : fmt::format(
                      "every expert split over all {} GPUs (vLLM's default for an MoE "
                      "model with data parallelism)",
                      l.group());
    d.push_back(present(Param::kDp, "--data-parallel-size", std::to_string(l.dp), why));
  } else if (l.replicas && !l.moe) {
    d.push_back(present(
        Param::kDp, "--data-parallel-size", std::to_string(l.dp),
        fmt::format("{} independent replicas of {} each; vLLM spreads the requests over them", l.dp,
                    plural(l.tp, "GPU", "GPUs"))));
  } else if (l.replicas) {
    d.push_back(absent(Param::kDp, "--data-parallel-size",
                       fmt::format("removed: on an MoE model vLLM's data parallelism would split "
                                   "the experts over all {} GPUs; this plan runs {} separate "
                                   "replicas (see --tensor-parallel-size)",
                                   l.group(), l.dp)));
  } else {
    d.push_back(absent(Param::kDp, "--data-parallel-size", dp_removed_why(l)));
  }
  if (l.ep) {
    std::string why =
        fmt::format("experts placed whole, not split: EP size = TP x DP = {}", l.group());
    if (l.dp == 1 && l.deepep)
      why += "; with one data-parallel rank vLLM runs no all-to-all, so DeepEP is not used";
    d.push_back(present(Param::kEp, "--enable-expert-parallel", "", why));
    // vLLM runs an all-to-all only across data-parallel ranks (ParallelConfig.use_all2all): with
    // one, every TP rank holds every token and the backend is never read.
    if (l.dp == 1)
      d.push_back(absent(Param::kA2a, "--all2all-backend",
                         "removed: with one data-parallel rank (expert parallelism over the TP "
                         "ranks) vLLM runs no all-to-all"));
    else if (l.deepep)
      d.push_back(present(Param::kA2a, "--all2all-backend", "deepep_low_latency",
                          "DeepEP dispatch/combine kernels for decode (need DeepEP and NVSHMEM "
                          "over NVLink or InfiniBand; the flag needs vLLM 0.11.1 or later)"));
    else
      d.push_back(present(Param::kA2a, "--all2all-backend", "allgather_reducescatter",
                          "tokens reach their experts by all-gather and reduce-scatter (NCCL): "
                          "runs on any link, PCIe included (the flag needs vLLM 0.11.1 or "
                          "later)"));
  } else {
    d.push_back(absent(Param::kEp, "--enable-expert-parallel", ep_removed_why(l)));
    d.push_back(absent(Param::kA2a, "--all2all-backend",
                       "removed: no expert parallelism in this plan, so no all-to-all"));
  }
  d.push_back(present(Param::kMaxLen, "--max-model-len", std::to_string(w.prompt_len + w.gen_len),
                      limit_len_why(w)));
  if (l.dp > 1 && (l.attention_dp || !l.moe))
    d.push_back(present(Param::kMaxSeqs, "--max-num-seqs", std::to_string(ceil_div(w.batch, l.dp)),
                        fmt::format("{} concurrent sequences over {} data-parallel ranks (the "
                                    "limit is per rank)",
                                    w.batch, l.dp)));
  else if (l.replicas)
    d.push_back(present(Param::kMaxSeqs, "--max-num-seqs", std::to_string(ceil_div(w.batch, l.dp)),
                        fmt::format("{} concurrent sequences over {} replicas", w.batch, l.dp)));
  else
    d.push_back(present(Param::kMaxSeqs, "--max-num-seqs", std::to_string(w.batch),
                        fmt::format("{} concurrent sequences", w.batch)));
  return d;
}

std::vector<Desired> sglang_desired(const Layout& l, const Workload& w) {
  std::vector<Desired> d;
  if (l.attention_dp) {
    d.push_back(present(
        Param::kTp, "--tp-size", std::to_string(l.group()),
        fmt::format("{} GPUs per pipeline stage: SGLang's --tp-size counts them all, and DP "
                    "attention divides them into {} attention ranks of {}",
                    l.group(), l.dp, plural(l.tp, "GPU", "GPUs"))));
  } else {
    d.push_back(present(Param::kTp, "--tp-size", std::to_string(l.tp), tp_phrase(l)));
  }
  if (l.pp > 1)
    d.push_back(present(Param::kPp, "--pp-size", std::to_string(l.pp), pp_why(l)));
  else
    d.push_back(absent(Param::kPp, "--pp-size", "removed: no pipeline stages in this plan"));
  if (l.attention_dp)
    d.push_back(present(Param::kDp, "--dp-size", std::to_string(l.dp),
                        fmt::format("{} data-parallel attention ranks of {}, each with its own "
                                    "requests and KV cache",
                                    l.dp, plural(l.tp, "GPU", "GPUs"))));
  else if (l.replicas)
    d.push_back(present(
        Param::kDp, "--dp-size", std::to_string(l.dp),
        fmt::format("{} independent replicas of {} each; SGLang spreads the requests over them",
                    l.dp, plural(l.tp, "GPU", "GPUs"))));
  else
    d.push_back(absent(Param::kDp, "--dp-size", dp_removed_why(l)));
  if (l.attention_dp)
    d.push_back(present(Param::kDpAttention, "--enable-dp-attention", "",
                        l.ep ? fmt::format("attention data-parallel, the MoE layers expert-"
                                           "parallel over all {} GPUs",
                                           l.group())
                             : fmt::format("attention data-parallel, every expert split over all "
                                           "{} GPUs",
                                           l.group())));
  else
    d.push_back(absent(Param::kDpAttention, "--enable-dp-attention",
                       l.replicas ? "removed: the data-parallel ranks are independent replicas "
                                    "in this plan"
                                  : "removed: attention is tensor-parallel in this plan"));
  if (l.ep) {
    d.push_back(present(
        Param::kEp, "--ep-size", std::to_string(l.group()),
        fmt::format("experts placed whole, not split: EP size = {}; tokens reach "
                    "them by {}",
                    l.group(),
                    l.deepep ? "DeepEP" : "all-gather (--moe-a2a-backend none, the default)")));
    if (l.deepep)
      d.push_back(present(Param::kA2a, "--moe-a2a-backend", "deepep",
                          "DeepEP dispatch/combine (needs DeepEP and NVSHMEM over NVLink or "
                          "InfiniBand)"));
    else {
      Desired none = absent(Param::kA2a, "--moe-a2a-backend",
                            "all-gather dispatch (SGLang's `none`, the default): runs on any "
                            "link, PCIe included");
      none.default_value = "none";
      d.push_back(std::move(none));
    }
  } else {
    d.push_back(absent(Param::kEp, "--ep-size", ep_removed_why(l)));
    d.push_back(absent(Param::kA2a, "--moe-a2a-backend",
                       "removed: no expert parallelism in this plan, so no all-to-all"));
  }
  d.push_back(present(Param::kMaxLen, "--context-length", std::to_string(w.prompt_len + w.gen_len),
                      limit_len_why(w)));
  if (l.attention_dp) {
    // SGLang gives each attention rank max_running_requests // dp_size: a multiple of the DP size
    // keeps the rounding down from losing sequences.
    int per_rank = ceil_div(w.batch, l.dp);
    int total = per_rank * l.dp;
    d.push_back(present(
        Param::kMaxSeqs, "--max-running-requests", std::to_string(total),
        total == w.batch
            ? fmt::format("{} concurrent sequences in all; SGLang gives each of the {} attention "
                          "ranks {} // {} = {}",
                          w.batch, l.dp, total, l.dp, per_rank)
            : fmt::format("{} concurrent sequences in all, rounded up to {}: SGLang gives each of "
                          "the {} attention ranks {} // {} = {} (the division rounds down)",
                          w.batch, total, l.dp, total, l.dp, per_rank)));
  } else if (l.replicas)
    d.push_back(present(Param::kMaxSeqs, "--max-running-requests",
                        std::to_string(ceil_div(w.batch, l.dp)),
                        fmt::format("{} concurrent sequences over {} replicas (the limit is per "
                                    "replica)",
                                    w.batch, l.dp)));
  else
    d.push_back(present(Param::kMaxSeqs, "--max-running-requests", std::to_string(w.batch),
                        fmt::format("{} concurrent sequences", w.batch)));
  return d;
}

constexpr std::string_view kTrtllmOptionsFile = "extra-llm-api-options.yaml";

std::vector<Desired> trtllm_desired(const Layout& l, const Workload& w) {
  std::vector<Desired> d;
  if (l.attention_dp) {
    std::string why = fmt::format(
        "{} ranks per pipeline stage; with attention DP ({}) each runs attention on its own "
        "requests",
        l.group(), kTrtllmOptionsFile);
    if (l.tp > 1)
      why += fmt::format(
          " (trtllm-serve has no attention-TP size: the plan's {}-GPU attention "
          "groups become single-GPU ranks)",
          l.tp);
    d.push_back(present(Param::kTp, "--tp_size", std::to_string(l.group()), why));
  } else {
    std::string why = tp_phrase(l);
    if (l.replicas) why += replica_note(l.dp, "trtllm-serve has no data-parallel flag");
    d.push_back(present(Param::kTp, "--tp_size", std::to_string(l.tp), why));
  }
  if (l.pp > 1)
    d.push_back(present(Param::kPp, "--pp_size", std::to_string(l.pp), pp_why(l)));
  else
    d.push_back(absent(Param::kPp, "--pp_size", "removed: no pipeline stages in this plan"));
  int ranks = l.attention_dp ? l.group() : l.tp;
  if (l.ep) {
    std::string why = fmt::format(
        "experts placed whole over {} ranks (MoE TP = tp_size / ep_size = 1)", l.group());
    if (l.deepep)
      why += "; TensorRT-LLM picks its own all-to-all (trtllm-serve has no DeepEP switch)";
    d.push_back(present(Param::kEp, "--ep_size", std::to_string(l.group()), why));
  } else if (l.moe) {
    d.push_back(present(Param::kEp, "--ep_size", "1",
                        fmt::format("every expert split over the {} (MoE TP = tp_size / ep_size "
                                    "= {})",
                                    plural(ranks, "rank", "ranks"), ranks)));
  } else {
    d.push_back(absent(Param::kEp, "--ep_size", ep_removed_why(l)));
  }
  if (l.attention_dp)
    d.push_back(present(Param::kOptionsFile, "--extra_llm_api_options",
                        std::string(kTrtllmOptionsFile),
                        fmt::format("the file sets enable_attention_dp: true: attention data-"
                                    "parallel over the {} ranks",
                                    l.group())));
  else
    d.push_back(absent(Param::kOptionsFile, "--extra_llm_api_options",
                       "attention is tensor-parallel in this plan"));
  d.push_back(present(Param::kMaxSeqs, "--max_batch_size",
                      std::to_string(l.dp > 1 ? ceil_div(w.batch, l.dp) : w.batch),
                      l.attention_dp ? fmt::format("{} concurrent sequences over {} attention-DP "
                                                   "ranks (the limit is per rank)",
                                                   w.batch, l.dp)
                      : l.replicas
                          ? fmt::format("{} concurrent sequences over {} servers", w.batch, l.dp)
                          : fmt::format("{} concurrent sequences", w.batch)));
  d.push_back(present(Param::kMaxLen, "--max_seq_len", std::to_string(w.prompt_len + w.gen_len),
                      limit_len_why(w)));
  return d;
}

}  // namespace

std::vector<Desired> desired_for(Engine e, const Layout& l, const Workload& w) {
  switch (e) {
    case Engine::kVllm:
      return vllm_desired(l, w);
    case Engine::kSglang:
      return sglang_desired(l, w);
    case Engine::kTrtllm:
      return trtllm_desired(l, w);
  }
  return {};
}

}  // namespace smcompat::plan::detail

namespace smcompat::plan {

using detail::Desired;
using detail::desired_for;
using detail::join;
using detail::kTrtllmOptionsFile;
using detail::Layout;
using detail::layout_of;

constexpr std::array<const char*, 3> kEngineNames = {"vllm", "sglang", "trtllm"};
std::string_view to_string(Engine e) { return enum_name(e, kEngineNames, "?"); }

std::optional<Engine> parse_engine(std::string_view name) {
  std::string n;
  for (char c : name) n += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (n == "vllm") return Engine::kVllm;
  if (n == "sglang") return Engine::kSglang;
  if (n == "trtllm" || n == "tensorrt-llm" || n == "tensorrt_llm" || n == "trt-llm")
    return Engine::kTrtllm;
  return std::nullopt;
}

std::string EngineCommand::shell() const {
  std::vector<std::string> quoted;
  for (const auto& w : argv) quoted.push_back(shell_quote(w));
  return join(quoted);
}

std::optional<std::string> not_expressible(Engine engine, const PlanShape& shape) {
  if (engine != Engine::kTrtllm) return std::nullopt;
  Layout l = layout_of(shape);
  if (!l.attention_dp) return std::nullopt;
  // TensorRT-LLM's attention module is either TP or DP ("Parallelism in TensorRT-LLM",
  // docs/source/features/parallel-strategy.md in NVIDIA/TensorRT-LLM: with enable_attention_dp
  // every GPU holds the whole attention weights and its own requests), the MoE over tp_size as
  // ep_size x (tp_size / ep_size); trtllm-serve takes no attention-TP size.
  if (l.tp > 1)
    return fmt::format(
        "not expressible on trtllm: with enable_attention_dp each of the {} ranks runs attention "
        "alone (attention TP 1); trtllm-serve has no way to group them into {} attention ranks "
        "of {} GPUs",
        l.group(), l.dp, l.tp);
  if (l.deepep)
    return std::string(
        "not expressible on trtllm: trtllm-serve has no switch for the all-to-all (TensorRT-LLM "
        "chooses it), so this plan's command is the all-gather/reduce-scatter plan's");
  return std::nullopt;
}

EngineCommand engine_command(Engine engine, const std::string& model_id, const PlanShape& shape,
                             const Workload& workload) {
  EngineCommand cmd;
  cmd.engine = engine;
  switch (engine) {
    case Engine::kVllm:
      cmd.argv = {"vllm", "serve", model_id};
      break;
    case Engine::kSglang:
      cmd.argv = {"python3", "-m", "sglang.launch_server", "--model-path", model_id};
      break;
    case Engine::kTrtllm:
      cmd.argv = {"trtllm-serve", model_id};
      break;
  }
  Layout l = layout_of(shape);
  for (const Desired& d : desired_for(engine, l, workload)) {
    if (!d.present) continue;
    cmd.argv.push_back(d.name);
    if (!d.value.empty()) cmd.argv.push_back(d.value);
    cmd.flags.push_back(EngineFlag{d.name, d.value, d.why});
  }
  if (engine == Engine::kTrtllm && l.attention_dp)
    cmd.extra_files.push_back(
        fmt::format("# {} (trtllm-serve --extra_llm_api_options): attention data-parallel over "
                    "the {} ranks\nenable_attention_dp: true\n",
                    kTrtllmOptionsFile, l.group()));
  return cmd;
}

}  // namespace smcompat::plan
