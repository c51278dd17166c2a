// The engine command lines (include/smcompat/plan/engine.hpp): a PlanShape said as vLLM, SGLang
// or TensorRT-LLM flags, and an existing command line rewritten to say it.
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
#include <span>
#include <utility>

#include "smcompat/util/enum_names.hpp"

namespace smcompat::plan {
namespace {

// ---------------------------------------------------------------------------------------------
// Shell words.
//
// A small POSIX splitter rather than wordexp(3): wordexp expands $VARIABLES, globs and ~, so a
// command written with `$MODEL` or `~/ckpt` would come back changed, and a rewrite must keep every
// word it does not touch exactly as written. This one removes quotes (POSIX 2.2), keeps `$...`,
// `$(...)`, `${...}` and backquotes as text, and remembers each word's source text.

struct Token {
  bool op = false;    // a shell operator (| && ; & < > 2>& ...) or a newline
  std::string value;  // after quote removal
  std::string raw;    // as written (line continuations dropped)
};

bool is_operator_char(char c) {
  return c == '|' || c == '&' || c == ';' || c == '<' || c == '>' || c == '(' || c == ')';
}

bool all_digits(std::string_view s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

// Skips a `$(...)`, `${...}` or backquoted span starting at text[i]; returns the index after it.
Result<size_t> skip_substitution(std::string_view text, size_t i) {
  size_t start = i;
  if (text[i] == '`') {
    for (size_t j = i + 1; j < text.size(); ++j) {
      if (text[j] == '\\') {
        ++j;
      } else if (text[j] == '`') {
        return j + 1;
      }
    }
    return make_error("unbalanced backquote (opened at offset " + std::to_string(start) + ")",
                      start);
  }
  char open = text[i + 1];  // '(' or '{'
  char close = open == '(' ? ')' : '}';
  int depth = 0;
  for (size_t j = i + 1; j < text.size(); ++j) {
    char c = text[j];
    if (c == '\\') {
      ++j;
    } else if (c == '\'') {
      size_t end = text.find('\'', j + 1);
      if (end == std::string_view::npos) break;
      j = end;
    } else if (c == open) {
      ++depth;
    } else if (c == close && --depth == 0) {
      return j + 1;
    }
  }
  return make_error(fmt::format("unbalanced \"${}\" (opened at offset {})", open, start), start);
}

Result<std::vector<Token>> tokenize(std::string_view text) {
  std::vector<Token> tokens;
  Token word;
  bool in_word = false;
  auto finish = [&] {
    if (in_word) tokens.push_back(std::move(word));
    word = Token{};
    in_word = false;
  };
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (c == '\\' && i + 1 < text.size() && text[i + 1] == '\n') {  // line continuation
      i += 2;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r') {
      finish();
      ++i;
      continue;
    }
    if (c == '\n') {
      finish();
      tokens.push_back(Token{true, "\n", "\n"});
      ++i;
      continue;
    }
    if (c == '#' && !in_word) {  // a comment runs to the end of the line
      size_t end = text.find('\n', i);
      i = end == std::string_view::npos ? text.size() : end;
      continue;
    }
    if (is_operator_char(c)) {
      Token op{true, "", ""};
      // "2>&1": digits right before a redirection belong to it (POSIX 2.10.1, IO_NUMBER).
      if (in_word && (c == '<' || c == '>') && word.raw == word.value && all_digits(word.value)) {
        op.value = word.value;
        word = Token{};
        in_word = false;
      }
      finish();
      while (i < text.size() && is_operator_char(text[i])) op.value += text[i++];
      op.raw = op.value;
      tokens.push_back(std::move(op));
      continue;
    }
    in_word = true;
    if (c == '\'') {
      size_t end = text.find('\'', i + 1);
      if (end == std::string_view::npos)
        return make_error("unbalanced single quote (opened at offset " + std::to_string(i) + ")",
                          i);
      word.value.append(text.substr(i + 1, end - i - 1));
      word.raw.append(text.substr(i, end - i + 1));
      i = end + 1;
      continue;
    }
    if (c == '"') {
      size_t start = i;
      word.raw += '"';
      ++i;
      bool closed = false;
      while (i < text.size()) {
        char d = text[i];
        if (d == '"') {
          word.raw += '"';
          ++i;
          closed = true;
          break;
        }
        if (d == '\\' && i + 1 < text.size()) {
          char e = text[i + 1];
          if (e == '\n') {  // continuation inside double quotes
            i += 2;
            continue;
          }
          // Inside double quotes a backslash escapes only $ ` " \ (POSIX 2.2.3).
          if (e == '$' || e == '`' || e == '"' || e == '\\') {
            word.value += e;
          } else {
            word.value += '\\';
            word.value += e;
          }
          word.raw.append(text.substr(i, 2));
          i += 2;
          continue;
        }
        if ((d == '$' && i + 1 < text.size() && (text[i + 1] == '(' || text[i + 1] == '{')) ||
            d == '`') {
          SMCOMPAT_TRY(size_t end, skip_substitution(text, i));
          word.value.append(text.substr(i, end - i));
          word.raw.append(text.substr(i, end - i));
          i = end;
          continue;
        }
        word.value += d;
        word.raw += d;
        ++i;
      }
      if (!closed)
        return make_error(
            "unbalanced double quote (opened at offset " + std::to_string(start) + ")", start);
      continue;
    }
    if (c == '\\') {
      if (i + 1 < text.size()) {
        word.value += text[i + 1];
        word.raw.append(text.substr(i, 2));
        i += 2;
      } else {  // a backslash ending the text stands for itself; escaped, so words after it
                // in a rewrite are not joined to it
        word.value += c;
        word.raw += "\\\\";
        ++i;
      }
      continue;
    }
    if ((c == '$' && i + 1 < text.size() && (text[i + 1] == '(' || text[i + 1] == '{')) ||
        c == '`') {
      SMCOMPAT_TRY(size_t end, skip_substitution(text, i));
      word.value.append(text.substr(i, end - i));
      word.raw.append(text.substr(i, end - i));
      i = end;
      continue;
    }
    word.value += c;
    word.raw += c;
    ++i;
  }
  finish();
  return tokens;
}

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) {
    if (!out.empty()) out += ' ';
    out += w;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// What the plan asks of an engine.

// The parallelism settings a command line carries (and the sequence limits engine_command adds).
enum class Param {
  kTp,
  kPp,
  kDp,
  kDpAttention,  // SGLang --enable-dp-attention
  kEp,           // vLLM: the --enable-expert-parallel switch; SGLang, TensorRT-LLM: the size
  kA2a,          // vLLM --all2all-backend, SGLang --moe-a2a-backend
  kOptionsFile,  // TensorRT-LLM --extra_llm_api_options (attention DP lives in it)
  kMaxLen,
  kMaxSeqs,
  // Read in a rewrite only, following the settings above: vLLM's per-node DP size, the flags that
  // place its DP ranks (rank, start rank, address, RPC port, load-balancing mode), its expert
  // load balancer (which refuses to start without expert parallelism), its multi-node flags, and
  // its context-parallel sizes (DCP must divide the TP size); SGLang's LM-head switches that need
  // DP attention.
  kDpLocal,
  kDpPlacement,
  kEplb,
  kNodes,
  kDcp,
  kPcp,
  kDpLmHead,
  kTpLmHeadA2a,
};

// One setting as the plan wants it: `present` false means the flag must not be there.
struct Desired {
  Param param;
  std::string name;   // the long form emitted
  std::string value;  // empty for a switch
  bool present = false;
  std::string why;  // for a present flag: what its value does; for an absent one: why it goes
  // For an absent flag whose default is what the plan wants: a written flag with this value is
  // kept, one with another value is changed to it (SGLang's --moe-a2a-backend none).
  std::string default_value;
};

std::string plural(int n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

int ceil_div(int a, int b) { return b <= 0 ? a : (a + b - 1) / b; }

// The plan in the terms every engine needs.
struct Layout {
  int tp = 1, dp = 1, pp = 1;
  bool moe = false;           // the model has routed experts
  bool ep = false;            // experts placed whole (EP = TP x DP)
  bool attention_dp = false;  // DP ranks run attention on their own requests, experts shared
  bool replicas = false;      // DP ranks are independent copies
  bool deepep = false;
  int group() const { return tp * dp; }  // GPUs of one pipeline stage that share the experts
};

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

// ---------------------------------------------------------------------------------------------
// Reading an existing command line.

// A spelling the rewrite recognises. kLegacy* and kNoEp are SGLang's and vLLM's other ways of
// saying kEp / kA2a.
enum class Spelling { kNormal, kNoEp, kLegacyEpMoe, kLegacyDeepEpMoe };

struct FlagSpec {
  std::string_view name;
  Param param;
  bool takes_value;
  Spelling spelling = Spelling::kNormal;
};

constexpr FlagSpec kVllmFlags[] = {
    {"--tensor-parallel-size", Param::kTp, true},
    {"-tp", Param::kTp, true},
    {"--pipeline-parallel-size", Param::kPp, true},
    {"-pp", Param::kPp, true},
    {"--data-parallel-size", Param::kDp, true},
    {"-dp", Param::kDp, true},
    {"--enable-expert-parallel", Param::kEp, false},
    {"-ep", Param::kEp, false},
    {"--no-enable-expert-parallel", Param::kEp, false, Spelling::kNoEp},
    {"--all2all-backend", Param::kA2a, true},
    {"--data-parallel-size-local", Param::kDpLocal, true},
    {"-dpl", Param::kDpLocal, true},
    {"--data-parallel-rank", Param::kDpPlacement, true},
    {"-dpn", Param::kDpPlacement, true},
    {"--data-parallel-start-rank", Param::kDpPlacement, true},
    {"-dpr", Param::kDpPlacement, true},
    {"--data-parallel-address", Param::kDpPlacement, true},
    {"-dpa", Param::kDpPlacement, true},
    {"--data-parallel-rpc-port", Param::kDpPlacement, true},
    {"-dpp", Param::kDpPlacement, true},
    {"--data-parallel-hybrid-lb", Param::kDpPlacement, false},
    {"-dph", Param::kDpPlacement, false},
    {"--data-parallel-external-lb", Param::kDpPlacement, false},
    {"-dpe", Param::kDpPlacement, false},
    {"--data-parallel-multi-port-external-lb", Param::kDpPlacement, false},
    {"-dpm", Param::kDpPlacement, false},
    {"--enable-eplb", Param::kEplb, false},
    {"--eplb-config", Param::kEplb, true},
    {"--num-redundant-experts", Param::kEplb, true},
    {"--nnodes", Param::kNodes, true},
    {"-n", Param::kNodes, true},
    {"--headless", Param::kNodes, false},
    {"--decode-context-parallel-size", Param::kDcp, true},
    {"-dcp", Param::kDcp, true},
    {"--prefill-context-parallel-size", Param::kPcp, true},
    {"-pcp", Param::kPcp, true},
};

constexpr FlagSpec kSglangFlags[] = {
    {"--tp-size", Param::kTp, true},
    {"--tensor-parallel-size", Param::kTp, true},
    {"--tp", Param::kTp, true},
    {"--pp-size", Param::kPp, true},
    {"--pipeline-parallel-size", Param::kPp, true},
    {"--dp-size", Param::kDp, true},
    {"--data-parallel-size", Param::kDp, true},
    {"--dp", Param::kDp, true},
    {"--enable-dp-attention", Param::kDpAttention, false},
    {"--ep-size", Param::kEp, true},
    {"--expert-parallel-size", Param::kEp, true},
    {"--ep", Param::kEp, true},
    {"--moe-a2a-backend", Param::kA2a, true},
    {"--enable-ep-moe", Param::kEp, false, Spelling::kLegacyEpMoe},
    {"--enable-deepep-moe", Param::kA2a, false, Spelling::kLegacyDeepEpMoe},
    {"--enable-dp-lm-head", Param::kDpLmHead, false},
    {"--enable-tp-lm-head-all-to-all", Param::kTpLmHeadA2a, false},
};

constexpr FlagSpec kTrtllmFlags[] = {
    {"--tp_size", Param::kTp, true},
    {"--tensor_parallel_size", Param::kTp, true},
    {"--pp_size", Param::kPp, true},
    {"--pipeline_parallel_size", Param::kPp, true},
    {"--ep_size", Param::kEp, true},
    {"--moe_expert_parallel_size", Param::kEp, true},
    {"--extra_llm_api_options", Param::kOptionsFile, true},
    {"--config", Param::kOptionsFile, true},
};

std::span<const FlagSpec> flags_of(Engine e) {
  switch (e) {
    case Engine::kVllm:
      return kVllmFlags;
    case Engine::kSglang:
      return kSglangFlags;
    case Engine::kTrtllm:
      return kTrtllmFlags;
  }
  return {};
}

std::string_view basename(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool is_python(std::string_view word) {
  std::string_view b = basename(word);
  if (!b.starts_with("python")) return false;
  b.remove_prefix(6);
  return std::all_of(b.begin(), b.end(),
                     [](unsigned char c) { return std::isdigit(c) != 0 || c == '.'; });
}

constexpr std::string_view kRecognised =
    "`vllm serve`, `python -m vllm.entrypoints.openai.api_server`, "
    "`python -m sglang.launch_server`, `python -m sglang_router.launch_server`, `sglang serve`, "
    "`trtllm-serve`, `python -m tensorrt_llm.commands.serve`";

struct Found {
  Engine engine;
  size_t engine_word;  // token index of `vllm`, `python3`, `trtllm-serve`, ...
  size_t args_begin;   // token index of the first engine argument
  // A TensorRT-LLM subcommand other than `serve` (`grpc`, `disaggregated`, ...): not rewritten.
  std::string other_subcommand;
};

// The module `python [options] -m MODULE` runs, and the token index after it; nullopt for a
// script, `-c`, or no module. Options before -m are skipped, with the argument of -X, -W and
// --check-hash-based-pycs (docs.python.org/3/using/cmdline.html); short options may be combined
// (`-um`, `-mvllm...`).
std::optional<std::pair<std::string, size_t>> python_module(const std::vector<Token>& tokens,
                                                            size_t python_word) {
  auto word = [&](size_t i) -> std::optional<std::string_view> {
    if (i < tokens.size() && !tokens[i].op) return std::string_view(tokens[i].value);
    return std::nullopt;
  };
  for (size_t j = python_word + 1; j < tokens.size() && !tokens[j].op; ++j) {
    std::string_view w = tokens[j].value;
    if (!w.starts_with("-") || w == "-") return std::nullopt;  // a script, or stdin
    if (w.starts_with("--")) {
      if (w == "--check-hash-based-pycs") ++j;
      continue;
    }
    for (size_t k = 1; k < w.size(); ++k) {
      char c = w[k];
      if (c == 'c') return std::nullopt;  // a command string, not a module
      if (c == 'm') {
        if (k + 1 < w.size()) return std::pair{std::string(w.substr(k + 1)), j + 1};
        auto module = word(j + 1);
        if (!module) return std::nullopt;
        return std::pair{std::string(*module), j + 2};
      }
      if (c == 'X' || c == 'W') {
        if (k + 1 == w.size()) ++j;  // the argument is the next word, else the rest of this one
        break;
      }
    }
  }
  return std::nullopt;
}

// TensorRT-LLM's trtllm-serve is a group whose default subcommand is `serve`
// (tensorrt_llm/commands/serve.py, DefaultGroup); these are the others.
constexpr std::string_view kTrtllmOtherSubcommands[] = {"disaggregated", "disaggregated_mpi_worker",
                                                        "grpc", "mm_embedding_serve"};

std::optional<Found> trtllm_found(const std::vector<Token>& tokens, size_t engine_word,
                                  size_t first_arg) {
  auto word = [&](size_t i) -> std::string_view {
    return i < tokens.size() && !tokens[i].op ? std::string_view(tokens[i].value)
                                              : std::string_view();
  };
  std::string_view first = word(first_arg);
  for (std::string_view sub : kTrtllmOtherSubcommands)
    if (first == sub) return Found{Engine::kTrtllm, engine_word, first_arg + 1, std::string(sub)};
  // `trtllm-serve serve MODEL` names the subcommand; `trtllm-serve MODEL` does not.
  bool sub =
      first == "serve" && !word(first_arg + 1).empty() && !word(first_arg + 1).starts_with("-");
  return Found{Engine::kTrtllm, engine_word, first_arg + (sub ? 1 : 0), {}};
}

// The first engine invocation among the words of `tokens`.
std::optional<Found> find_engine(const std::vector<Token>& tokens) {
  auto word = [&](size_t i) -> std::string_view {
    return i < tokens.size() && !tokens[i].op ? std::string_view(tokens[i].value)
                                              : std::string_view();
  };
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i].op) continue;
    std::string_view w = tokens[i].value;
    std::string_view b = basename(w);
    if (b == "vllm" && word(i + 1) == "serve") return Found{Engine::kVllm, i, i + 2, {}};
    if (b == "sglang" && word(i + 1) == "serve") return Found{Engine::kSglang, i, i + 2, {}};
    if (b == "trtllm-serve") return trtllm_found(tokens, i, i + 1);
    if (is_python(w)) {
      auto module = python_module(tokens, i);
      if (!module) continue;
      const auto& [name, args] = *module;
      if (name == "vllm.entrypoints.openai.api_server") return Found{Engine::kVllm, i, args, {}};
      if (name == "sglang.launch_server" || name == "sglang_router.launch_server")
        return Found{Engine::kSglang, i, args, {}};
      if (name == "tensorrt_llm.commands.serve") return trtllm_found(tokens, i, args);
    }
  }
  return std::nullopt;
}

// Redirections (`>`, `2>&`, `<`, bash's `&>`) stay inside a simple command; every other operator
// (| || && ; & ( ) newline) ends it.
bool is_control_operator(const Token& t) {
  if (!t.op) return false;
  std::string_view v = t.value;
  while (!v.empty() && std::isdigit(static_cast<unsigned char>(v.front()))) v.remove_prefix(1);
  bool redirection = v.starts_with("<") || v.starts_with(">") || v.starts_with("&>");
  return !redirection;
}

// One recognised flag in the original.
struct Occurrence {
  const FlagSpec* spec;
  std::string written;  // the flag as written ("-tp", "--tp_size")
  std::string value;
  size_t flag_index;                  // token index of the flag word
  std::optional<size_t> value_index;  // the separate value word, if any (else inline or none)
  bool inline_value = false;
};

// Name normalisation: vLLM's parser takes --tensor_parallel_size for --tensor-parallel-size.
std::string normalised(Engine e, std::string_view name) {
  std::string n(name);
  if (e == Engine::kVllm && n.starts_with("--")) std::replace(n.begin() + 2, n.end(), '_', '-');
  return n;
}

const FlagSpec* lookup(Engine e, std::string_view name) {
  std::string n = normalised(e, name);
  for (const FlagSpec& f : flags_of(e))
    if (f.name == n) return &f;
  return nullptr;
}

struct Parsed {
  std::vector<size_t> args;  // token indices of the engine's argument words (redirections out)
  size_t insert_at = 0;      // where added flags go: after the last argument word
  std::vector<Occurrence> found;
};

Parsed parse_args(Engine e, const std::vector<Token>& tokens, size_t begin) {
  Parsed p;
  p.insert_at = begin;
  for (size_t i = begin; i < tokens.size(); ++i) {
    const Token& t = tokens[i];
    if (t.op) {
      if (is_control_operator(t)) break;
      ++i;  // a redirection: the next word is its target, not an argument
      continue;
    }
    p.args.push_back(i);
    p.insert_at = i + 1;
  }
  for (size_t k = 0; k < p.args.size(); ++k) {
    const Token& t = tokens[p.args[k]];
    if (!t.value.starts_with("-") || t.value == "-" || t.value == "--") continue;
    size_t eq = t.value.find('=');
    std::string name = eq == std::string::npos ? t.value : t.value.substr(0, eq);
    const FlagSpec* spec = lookup(e, name);
    if (!spec) continue;
    Occurrence o{spec, name, "", p.args[k], std::nullopt, false};
    if (eq != std::string::npos) {
      o.value = t.value.substr(eq + 1);
      o.inline_value = true;
    } else if (spec->takes_value && k + 1 < p.args.size()) {
      o.value_index = p.args[k + 1];
      o.value = tokens[p.args[k + 1]].value;
      ++k;
    }
    p.found.push_back(std::move(o));
  }
  return p;
}

// An `export NAME=value` or `NAME=value` word before the engine.
struct EnvAssignment {
  size_t index;
  std::string value;
  bool prefix;  // a prefix of the engine's simple command (removing it removes nothing else)
};

constexpr std::string_view kVllmA2aEnv = "VLLM_ALL2ALL_BACKEND";

std::optional<EnvAssignment> find_a2a_env(const std::vector<Token>& tokens, size_t engine_word) {
  bool prefix = true;  // no control operator between the word and the engine
  for (size_t i = engine_word; i-- > 0;) {
    const Token& t = tokens[i];
    if (t.op) {
      if (is_control_operator(t)) prefix = false;
      continue;
    }
    if (t.value.starts_with(kVllmA2aEnv) && t.value.size() > kVllmA2aEnv.size() &&
        t.value[kVllmA2aEnv.size()] == '=') {
      bool exported = i > 0 && !tokens[i - 1].op && tokens[i - 1].value == "export";
      return EnvAssignment{i, t.value.substr(kVllmA2aEnv.size() + 1), prefix && !exported};
    }
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// Editing the token list.

struct Editor {
  std::vector<Token> tokens;
  std::vector<bool> removed;
  std::vector<Token> added;  // inserted at `insert_at`
  size_t insert_at = 0;

  void set(size_t i, std::string value) {
    tokens[i].raw = shell_quote(value);
    tokens[i].value = std::move(value);
  }
  void remove(size_t i) { removed[i] = true; }
  void add(std::string value) {
    Token t;
    t.raw = shell_quote(value);
    t.value = std::move(value);
    added.push_back(std::move(t));
  }
  Rewrite result(Engine e) const {
    Rewrite r;
    r.engine = e;
    auto put = [&](const Token& t) {
      r.argv.push_back(t.value);
      r.shell_words.push_back(t.raw);
    };
    for (size_t i = 0; i <= tokens.size(); ++i) {
      if (i == insert_at)
        for (const Token& t : added) put(t);
      if (i < tokens.size() && !removed[i]) put(tokens[i]);
    }
    return r;
  }
};

FlagChange change(FlagChange::Kind kind, std::string flag, std::string old_value,
                  std::string new_value, std::string why) {
  return FlagChange{kind, std::move(flag), std::move(old_value), std::move(new_value),
                    std::move(why)};
}

// Removes one occurrence (flag word and its value word).
void remove_occurrence(Editor& ed, const Occurrence& o) {
  ed.remove(o.flag_index);
  if (o.value_index) ed.remove(*o.value_index);
}

// Sets an occurrence's value, in the spelling it was written in.
void set_occurrence(Editor& ed, const Occurrence& o, const std::string& value) {
  if (o.inline_value)
    ed.set(o.flag_index, o.written + "=" + value);
  else if (o.value_index)
    ed.set(*o.value_index, value);
}

bool same_backend(Param p, const std::string& have, const std::string& want) {
  if (have == want) return true;
  // Either DeepEP mode says the plan's DeepEP: keep the one the user chose.
  return p == Param::kA2a && have.starts_with("deepep") && want.starts_with("deepep");
}

void apply(Editor& ed, const Parsed& parsed, const Desired& want, std::vector<FlagChange>& out) {
  std::vector<const Occurrence*> normal;
  std::vector<const Occurrence*> other;  // negated or old spellings of the same setting
  for (const Occurrence& o : parsed.found) {
    if (o.spec->param != want.param) continue;
    (o.spec->spelling == Spelling::kNormal ? normal : other).push_back(&o);
  }
  for (const Occurrence* o : other) {
    std::string why;
    switch (o->spec->spelling) {
      case Spelling::kNoEp:
        if (!want.present) continue;  // already says what the plan wants
        why = "removed: expert parallelism is on in this plan (--enable-expert-parallel)";
        break;
      case Spelling::kLegacyEpMoe:
        why = want.present ? "removed: old SGLang spelling of --ep-size, which replaces it"
                           : want.why;
        break;
      case Spelling::kLegacyDeepEpMoe:
        why = want.present ? "removed: old SGLang spelling of --moe-a2a-backend deepep, which "
                             "replaces it"
                           : want.why;
        if (!want.present && !want.default_value.empty())
          why = "removed: DeepEP is not used in this plan: " + want.why;
        break;
      case Spelling::kNormal:
        break;
    }
    remove_occurrence(ed, *o);
    out.push_back(change(FlagChange::Kind::kRemoved, o->written, o->value, "", why));
  }
  if (!want.present) {
    for (const Occurrence* o : normal) {
      if (!want.default_value.empty()) {
        if (o->value == want.default_value) continue;
        set_occurrence(ed, *o, want.default_value);
        out.push_back(
            change(FlagChange::Kind::kChanged, o->written, o->value, want.default_value, want.why));
        continue;
      }
      remove_occurrence(ed, *o);
      out.push_back(change(FlagChange::Kind::kRemoved, o->written, o->value, "", want.why));
    }
    return;
  }
  if (normal.empty()) {
    // A size of 1 is every engine's default for TP, PP and DP: nothing to add.
    bool size = want.param == Param::kTp || want.param == Param::kPp || want.param == Param::kDp;
    if (size && want.value == "1") return;
    ed.add(want.name);
    if (!want.value.empty()) ed.add(want.value);
    out.push_back(change(FlagChange::Kind::kAdded, want.name, "", want.value, want.why));
    return;
  }
  // The last occurrence is the one the engine's parser keeps: set it, drop the earlier ones.
  for (size_t k = 0; k + 1 < normal.size(); ++k) {
    remove_occurrence(ed, *normal[k]);
    out.push_back(change(FlagChange::Kind::kRemoved, normal[k]->written, normal[k]->value, "",
                         "removed: given again later in the command"));
  }
  const Occurrence& last = *normal.back();
  if (want.value.empty() || same_backend(want.param, last.value, want.value)) return;
  if (!last.inline_value && !last.value_index) {  // a flag missing its value: write it anew
    ed.remove(last.flag_index);
    ed.add(want.name);
    ed.add(want.value);
    out.push_back(change(FlagChange::Kind::kAdded, want.name, "", want.value, want.why));
    return;
  }
  set_occurrence(ed, last, want.value);
  out.push_back(change(FlagChange::Kind::kChanged, last.written, last.value, want.value, want.why));
}

}  // namespace

// ---------------------------------------------------------------------------------------------

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

Result<std::vector<std::string>> split_shell_words(std::string_view text) {
  SMCOMPAT_TRY(auto tokens, tokenize(text));
  std::vector<std::string> words;
  for (auto& t : tokens) words.push_back(std::move(t.value));
  return words;
}

std::string EngineCommand::shell() const {
  std::vector<std::string> quoted;
  for (const auto& w : argv) quoted.push_back(shell_quote(w));
  return join(quoted);
}

std::string Rewrite::shell() const { return join(shell_words); }

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

Result<Rewrite> rewrite_command(std::string_view original, const PlanShape& shape,
                                const Workload& workload) {
  SMCOMPAT_TRY(std::vector<Token> tokens, tokenize(original));
  bool any_word = std::any_of(tokens.begin(), tokens.end(), [](const Token& t) { return !t.op; });
  if (!any_word) return make_error("empty command: nothing to rewrite");
  auto found = find_engine(tokens);
  if (!found)
    return make_error(
        fmt::format("no serving engine recognised in the command; recognised: {}", kRecognised));
  if (!found->other_subcommand.empty())
    return make_error(fmt::format(
        "TensorRT-LLM's `{}` subcommand is not rewritten: only `trtllm-serve [serve] MODEL ...` "
        "is (disaggregated, disaggregated_mpi_worker, grpc and mm_embedding_serve are other "
        "servers, configured otherwise); recognised: {}",
        found->other_subcommand, kRecognised));
  Engine engine = found->engine;
  Parsed parsed = parse_args(engine, tokens, found->args_begin);
  Layout l = layout_of(shape);

  Editor ed;
  ed.tokens = tokens;
  ed.removed.assign(tokens.size(), false);
  ed.insert_at = parsed.insert_at;
  std::vector<FlagChange> changes;

  auto last_of = [&](Param p) -> const Occurrence* {
    const Occurrence* last = nullptr;
    for (const Occurrence& o : parsed.found)
      if (o.spec->param == p) last = &o;
    return last;
  };

  // vLLM's older spelling of the all-to-all backend: an environment assignment before the command.
  std::optional<EnvAssignment> env;
  bool a2a_flag = false;
  bool pcp = false;  // vLLM prefill context parallelism (> 1) in the command
  if (engine == Engine::kVllm) {
    // The engine word is the one before `serve` / the module name: search the words before it.
    env = find_a2a_env(tokens, found->engine_word);
    a2a_flag = last_of(Param::kA2a) != nullptr;
    const Occurrence* p = last_of(Param::kPcp);
    pcp = p && !p->value.empty() && p->value != "1";
  }

  std::vector<Desired> wanted = desired_for(engine, l, workload);
  bool layout_changed = false;  // the TP, PP or DP size changed
  for (const Desired& want : wanted) {
    if (want.param == Param::kMaxLen || want.param == Param::kMaxSeqs) continue;
    if (want.param == Param::kA2a && engine == Engine::kVllm) {
      // Expert parallelism with prefill context parallelism runs an all-to-all without data
      // parallelism (ParallelConfig.use_all2all): a backend the user gave for it stays.
      if (!want.present && l.ep && pcp) continue;
      if (env) {
        std::string var(kVllmA2aEnv);
        if (env->prefix) {
          ed.remove(env->index);
          std::string why =
              "removed: vLLM 0.16 and later no longer read VLLM_ALL2ALL_BACKEND; "
              "--all2all-backend (vLLM 0.11.1 and later) says the backend instead";
          if (!want.present) {
            std::string_view reason = want.why;
            if (reason.starts_with("removed: ")) reason.remove_prefix(9);
            why = fmt::format(
                "removed: vLLM 0.16 and later no longer read VLLM_ALL2ALL_BACKEND, and {}", reason);
          }
          changes.push_back(change(FlagChange::Kind::kRemoved, var, env->value, "", why));
        }
        if (want.present && !a2a_flag) {
          // The flag says the backend; either DeepEP mode says the plan's DeepEP, so the user's
          // stays.
          bool keep = same_backend(Param::kA2a, env->value, want.value);
          std::string value = keep ? env->value : want.value;
          std::string why = want.why;
          if (keep && value != want.value)
            why =
                "DeepEP dispatch/combine kernels, in the mode VLLM_ALL2ALL_BACKEND chose (need "
                "DeepEP and NVSHMEM over NVLink or InfiniBand; the flag needs vLLM 0.11.1 or "
                "later)";
          if (!env->prefix)
            why +=
                "; it overrides the VLLM_ALL2ALL_BACKEND set before this command in vLLM 0.11.1 "
                "to 0.15, and later releases ignore the variable";
          ed.add(want.name);
          ed.add(value);
          changes.push_back(change(FlagChange::Kind::kAdded, want.name, "", value, why));
          continue;
        }
      }
    }
    if (want.param == Param::kOptionsFile) {
      // The file is the user's: it cannot be edited from here, so say what it must hold.
      auto it = std::find_if(parsed.found.begin(), parsed.found.end(), [](const Occurrence& o) {
        return o.spec->param == Param::kOptionsFile;
      });
      if (it != parsed.found.end()) {
        // The YAML overrides the command line (serve.py: update_llm_args_with_extra_dict).
        constexpr std::string_view kOverrides =
            "; the file overrides the command line, so check that it does not set "
            "tensor_parallel_size, pipeline_parallel_size, moe_expert_parallel_size, "
            "max_batch_size or max_seq_len to other values than the flags here";
        changes.push_back(change(
            FlagChange::Kind::kChanged, it->written, it->value, it->value,
            fmt::format("{}{}",
                        want.present ? "edit this file: set enable_attention_dp: true (attention "
                                       "data-parallel; trtllm-serve reads it only from the YAML)"
                                     : "check this file: enable_attention_dp must be false or "
                                       "absent (attention is tensor-parallel in this plan)",
                        kOverrides)));
        continue;
      }
      if (!want.present) continue;
      ed.add(want.name);
      ed.add(want.value);
      changes.push_back(change(FlagChange::Kind::kAdded, want.name, "", want.value,
                               want.why + " (write that file: one line, "
                                          "`enable_attention_dp: true`)"));
      continue;
    }
    size_t before = changes.size();
    apply(ed, parsed, want, changes);
    bool size = want.param == Param::kTp || want.param == Param::kPp || want.param == Param::kDp;
    if (size && changes.size() != before) layout_changed = true;
  }

  if (engine == Engine::kVllm) {
    // vLLM settings that follow the ones above.
    const Desired* dp = nullptr;
    bool ep = false;
    for (const Desired& want : wanted) {
      if (want.param == Param::kDp) dp = &want;
      if (want.param == Param::kEp) ep = want.present;
    }
    bool dp_present = dp && dp->present;
    // Flags that make this command one part of a launch over several nodes (or one process per
    // DP rank): the per-node split is the user's to set there.
    std::vector<std::string> markers;
    const Occurrence* first_marker = nullptr;
    for (const Occurrence& o : parsed.found) {
      bool marker = o.spec->param == Param::kDpPlacement ||
                    (o.spec->param == Param::kNodes && (!o.spec->takes_value || o.value != "1"));
      if (!marker) continue;
      if (!first_marker) first_marker = &o;
      if (std::find(markers.begin(), markers.end(), o.written) == markers.end())
        markers.push_back(o.written);
    }
    bool multi_node = !markers.empty();
    const Occurrence* local = nullptr;
    for (const Occurrence& o : parsed.found) {
      if (o.spec->param == Param::kDpLocal) {
        if (dp_present) {
          local = &o;
          if (multi_node) continue;  // the split over the nodes is said below
          // One machine: every data-parallel rank is local.
          if (o.value == dp->value || (!o.inline_value && !o.value_index)) continue;
          set_occurrence(ed, o, dp->value);
          changes.push_back(
              change(FlagChange::Kind::kChanged, o.written, o.value, dp->value,
                     fmt::format("all {} data-parallel ranks on this machine", dp->value)));
        } else {
          remove_occurrence(ed, o);
          changes.push_back(change(FlagChange::Kind::kRemoved, o.written, o.value, "",
                                   "removed: no data-parallel ranks in this plan"));
        }
      } else if (o.spec->param == Param::kDpPlacement && !dp_present) {
        remove_occurrence(ed, o);
        changes.push_back(change(FlagChange::Kind::kRemoved, o.written, o.value, "",
                                 "removed: it places data-parallel ranks, and this command has "
                                 "none"));
      } else if (o.spec->param == Param::kEplb && !ep) {
        remove_occurrence(ed, o);
        changes.push_back(change(FlagChange::Kind::kRemoved, o.written, o.value, "",
                                 "removed: vLLM's expert load balancing needs expert parallelism, "
                                 "which this plan does not use"));
      }
    }
    if (dp_present && multi_node && layout_changed) {
      const Occurrence& o = local ? *local : *first_marker;
      std::string joined;
      for (const auto& m : markers) joined += (joined.empty() ? "" : ", ") + m;
      changes.push_back(change(
          FlagChange::Kind::kChanged, o.written, o.value, o.value,
          fmt::format("check by hand: this command is one part of a launch over several nodes or "
                      "processes ({}), so its share of the data-parallel ranks is left as "
                      "written; the plan has {} data-parallel ranks of {} each, to be shared out "
                      "with each node's --data-parallel-size-local and --data-parallel-start-rank",
                      joined, dp->value, plural(l.tp, "GPU", "GPUs"))));
    }
    // Decode context parallelism reuses the TP ranks: vLLM refuses a TP size it does not divide.
    const Occurrence* dcp = last_of(Param::kDcp);
    if (dcp && !pcp && all_digits(dcp->value) && dcp->value.size() < 6) {
      int size = std::stoi(dcp->value);
      if (size > 1 && l.tp % size != 0)
        for (const Occurrence& o : parsed.found) {
          if (o.spec->param != Param::kDcp) continue;
          remove_occurrence(ed, o);
          changes.push_back(change(
              FlagChange::Kind::kRemoved, o.written, o.value, "",
              fmt::format("removed: vLLM refuses a TP size ({}) that the decode-context-parallel "
                          "size ({}) does not divide, as DCP runs on the TP ranks; the plan "
                          "costs no context parallelism",
                          l.tp, size)));
        }
    }
  }

  if (engine == Engine::kSglang) {
    // SGLang's LM-head switches that need DP attention (server_args.py asserts).
    for (const Occurrence& o : parsed.found) {
      std::string why;
      if (o.spec->param == Param::kDpLmHead && !l.attention_dp)
        why =
            "removed: SGLang refuses it without DP attention (\"Please enable dp attention when "
            "setting enable_dp_lm_head\"), which this plan does not use";
      else if (o.spec->param == Param::kTpLmHeadA2a && !l.attention_dp)
        why =
            "removed: SGLang refuses it without DP attention (\"Please enable dp attention when "
            "setting enable_tp_lm_head_all_to_all\"), which this plan does not use";
      else if (o.spec->param == Param::kTpLmHeadA2a && l.tp != 1)
        why = fmt::format(
            "removed: SGLang allows it only with --tp-size equal to --dp-size (one GPU per "
            "attention rank); this plan's attention ranks have {} GPUs",
            l.tp);
      if (why.empty()) continue;
      remove_occurrence(ed, o);
      changes.push_back(change(FlagChange::Kind::kRemoved, o.written, o.value, "", why));
    }
  }

  Rewrite r = ed.result(engine);
  r.changes = std::move(changes);
  return r;
}

}  // namespace smcompat::plan
