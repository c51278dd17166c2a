// Reading an existing engine command line (engine_internal.hpp): which engine it runs
// (find_engine), the parallelism flags it carries in their every spelling (parse_args), and vLLM's
// VLLM_ALL2ALL_BACKEND assignment before it (find_a2a_env). engine.cpp cites the flag spellings.
#include <algorithm>
#include <cctype>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine_internal.hpp"
#include "smcompat/plan/engine.hpp"

namespace smcompat::plan::detail {
namespace {

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

// Redirections (`>`, `2>&`, `<`, bash's `&>`) stay inside a simple command; every other operator
// (| || && ; & ( ) newline) ends it.
bool is_control_operator(const Token& t) {
  if (!t.op) return false;
  std::string_view v = t.value;
  while (!v.empty() && std::isdigit(static_cast<unsigned char>(v.front()))) v.remove_prefix(1);
  bool redirection = v.starts_with("<") || v.starts_with(">") || v.starts_with("&>");
  return !redirection;
}

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

}  // namespace

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

}  // namespace smcompat::plan::detail
